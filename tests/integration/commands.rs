//! The inspection commands on real states: list with its filters, show, query and summary.

use crate::builder::{Test, assert_contains, assert_lacks, assert_starts_with, root, run_on};
use crate::files::{folder_with_copy, folder_with_state};
use crate::skip::require_corpus;

fn testdata(name: &str) -> std::path::PathBuf {
    root().join("testdata/states").join(name)
}

#[test]
fn list_reads_standard_input_and_the_default_file() {
    let bytes = std::fs::read(testdata("count_for_each.tfstate")).unwrap();
    let from_file = Test::new()
        .arg("list")
        .arg(testdata("count_for_each.tfstate"))
        .run()
        .code(0);
    assert!(from_file.stdout.lines().count() >= 5);
    Test::new()
        .args(["list", "-"])
        .stdin(bytes.clone())
        .run()
        .code(0)
        .stdout(&from_file.stdout);
    let (folder, _) = folder_with_state(bytes);
    Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .code(0)
        .stdout(&from_file.stdout);
}

/// Each filter's whole output is pinned (`tests/integration/snapshots/commands-list-*.snap`); an
/// address, `--module` and a module's address as the pattern list the same instances.
#[test]
fn list_filters_by_address_glob_type_and_module() {
    let state = testdata("modules.tfstate");
    let list = |args: &[&str]| Test::new().arg("list").arg(&state).args(args);
    let module = statectl_snapshot!("commands-list-module", list(&["module.single"])).code(0);
    assert!(!module.stdout.is_empty());
    statectl_snapshot!("commands-list-glob", list(&["*.row[\"a\"]"])).code(0);
    let by_module = list(&["--module", "module.single"]).run().code(0);
    assert_eq!(by_module.stdout, module.stdout);
    statectl_snapshot!(
        "commands-list-no-such-type",
        list(&["--type", "nothing_like_this"])
    )
    .code(0);
    statectl_snapshot!("commands-list-bad-address", list(&["module."])).code(2);
}

#[test]
fn list_filters_tainted_and_deposed_and_reports_status_in_json() {
    let state = testdata("lifecycle.tfstate");
    let tainted = run_on(&["list", "--tainted"], &[&state], 0);
    assert_eq!(
        tainted.stdout,
        "terraform_data.cbd\nterraform_data.workers[1]\n"
    );
    let deposed = run_on(&["list", "--deposed"], &[&state], 0);
    assert_eq!(deposed.stdout, "terraform_data.cbd\n");
    let document = run_on(&["list", "--format", "json", "--deposed"], &[&state], 0).json();
    assert_eq!(document["schema_version"], 1);
    let instance = &document["instances"][0];
    assert_eq!(instance["address"], "terraform_data.cbd");
    assert_eq!(instance["status"], "tainted");
    assert_eq!(instance["deposed"].as_array().unwrap().len(), 1);
    assert_eq!(instance["create_before_destroy"], true);
}

/// Go's reader (Terraform's) folds a key's case as Unicode does, so `ſ` (U+017F) reads as `s` and
/// the Kelvin sign as `k`: an output's `ſensitive` and an instance's `ſensitive_attributes` mark
/// secrets to Terraform, and of `attributes` then `attributeſ` it reads the second. Each secret is
/// masked by `show`, `query` and `diff`, and shown with `--show-sensitive`.
#[test]
fn keys_that_go_folds_to_a_field_are_that_field() {
    let folder = tempfile::tempdir().unwrap();
    let state = |secret: &str| {
        format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l",
 "outputs": {{"pw": {{"value": "output-{secret}", "type": "string", "ſensitive": true}}}},
 "resources": [{{"mode": "managed", "type": "aws_db_instance", "name": "db", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
  "instances": [{{"schema_version": 0, "attributes": {{"id": "db-1", "password": "shadow-{secret}"}},
   "attributeſ": {{"id": "db-1", "password": "read-{secret}"}},
   "ſensitive_attributes": [[{{"type": "get_attr", "value": "password"}}]]}}]}}]}}"#
        )
    };
    let (before, after) = (
        folder.path().join("a.tfstate"),
        folder.path().join("b.tfstate"),
    );
    std::fs::write(&before, state("one")).unwrap();
    std::fs::write(&after, state("two")).unwrap();
    let outputs = [
        run_on(&["show", "aws_db_instance.db"], &[&before], 0).stdout,
        run_on(
            &["show", "--format", "json", "aws_db_instance.db"],
            &[&before],
            0,
        )
        .stdout,
        run_on(&["query", "$..*"], &[&before], 0).stdout,
        run_on(&["diff"], &[&before, &after], 1).stdout,
    ];
    for output in &outputs {
        for secret in [
            "output-one",
            "shadow-one",
            "read-one",
            "read-two",
            "shadow-two",
        ] {
            assert!(!output.contains(secret), "{secret} in {output}");
        }
    }
    // The member Terraform reads is the one shown.
    let revealed = run_on(
        &["show", "--show-sensitive", "aws_db_instance.db"],
        &[&before],
        0,
    );
    assert_contains(&revealed.stdout, "read-one");
    assert!(
        !revealed.stdout.contains("shadow-one"),
        "{}",
        revealed.stdout
    );
    let queried = run_on(
        &["query", "--show-sensitive", "$.outputs.pw.value"],
        &[&before],
        0,
    );
    assert_contains(&queried.stdout, "output-one");
}

#[test]
fn show_masks_sensitive_values_unless_asked() {
    let state = testdata("sensitive.tfstate");
    let masked = run_on(&["show", "terraform_data.password"], &[&state], 0);
    assert_starts_with(
        &masked.stdout,
        "# terraform_data.password:\nresource \"terraform_data\" \"password\" {\n",
    );
    assert_contains(&masked.stdout, "(sensitive value)");
    let revealed = run_on(
        &[
            "show",
            "--show-sensitive",
            "--format",
            "json",
            "terraform_data.password",
        ],
        &[&state],
        0,
    );
    let masked_json = run_on(
        &["show", "--format", "json", "terraform_data.password"],
        &[&state],
        0,
    );
    assert_ne!(revealed.stdout, masked_json.stdout);
    assert_eq!(
        masked_json.json()["attributes"]["input"],
        "(sensitive value)"
    );
    assert_eq!(
        revealed.json()["attributes"]["input"]["value"],
        "hunter2-s3cr3t"
    );
}

#[test]
fn show_finds_deposed_objects_and_names_missing_ones() {
    let state = testdata("lifecycle.tfstate");
    let document = run_on(&["list", "--format", "json", "--deposed"], &[&state], 0).json();
    let key = document["instances"][0]["deposed"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let by_flag = run_on(
        &["show", "terraform_data.cbd", "--deposed", &key],
        &[&state],
        0,
    );
    assert_starts_with(
        &by_flag.stdout,
        &format!("# terraform_data.cbd: (deposed object {key})\n"),
    );
    let by_address = run_on(
        &[
            "show",
            &format!("terraform_data.cbd (deposed object {key})"),
        ],
        &[&state],
        0,
    );
    assert_eq!(by_address.stdout, by_flag.stdout);
    Test::new()
        .args(["show", "terraform_data.nope"])
        .arg(&state)
        .run()
        .refused("no resource instance `terraform_data.nope`");
}

/// Each query's whole output is pinned (`tests/integration/snapshots/commands-query-*.snap`).
#[test]
fn query_runs_rfc9535_paths_and_masks_secrets() {
    let query =
        |state: &str, args: &[&str]| Test::new().arg("query").args(args).arg(testdata(state));
    let state = "count_for_each.tfstate";
    statectl_snapshot!(
        "commands-query-types",
        query(state, &["--compact", "$.resources[*].type"])
    )
    .code(0);
    let counted = "$.resources[?@.name=='counted'].instances[*].index_key";
    statectl_snapshot!(
        "commands-query-filter",
        query(state, &["--compact", counted])
    )
    .code(0);
    let secrets = query("sensitive.tfstate", &["$..attributes.input"]);
    statectl_snapshot!("commands-query-masked", secrets).code(0);
    // terraform_data's `output` is a copy of its `input`, which Terraform alone marks.
    let copies = query("sensitive.tfstate", &["$..attributes.output"]);
    let copies = statectl_snapshot!("commands-query-masked-copies", copies).code(0);
    assert_lacks(&copies.stdout, "hunter2");
    statectl_snapshot!("commands-query-invalid", query(state, &["$[?"])).code(2);
}

#[test]
fn query_keeps_big_numbers_exact() {
    let state = testdata("values.tfstate");
    let numbers = run_on(&["query", "--compact", "$..attributes.input"], &[&state], 0);
    assert_contains(&numbers.stdout, "123456789012345678901234567890");
    assert_contains(&numbers.stdout, "9007199254740993");
}

#[test]
fn summary_counts_by_type_module_provider_and_status() {
    let state = testdata("lifecycle.tfstate");
    let document = run_on(&["summary", "--format", "json"], &[&state], 0).json();
    assert_eq!(document["by_status"]["tainted"], 2);
    assert!(
        document["by_provider"]["terraform.io/builtin/terraform"]
            .as_u64()
            .unwrap()
            >= 3
    );
    statectl_snapshot!("summary-lifecycle", Test::new().arg("summary").arg(&state)).code(0);
}

/// Issue 25, item 11: on `lifecycle.tfstate` (a tainted `terraform_data.cbd` that still holds a
/// deposed object) `list` and `summary` said 4 instances, `scan` 5, and the summary's status rows
/// added up to 5. An instance is an address, as `terraform state list` lists it; its deposed objects
/// are counted apart.
#[test]
fn every_command_counts_the_instances_terraform_lists() {
    let state = testdata("lifecycle.tfstate");
    let listed = Test::new().arg("list").arg(&state).run().code(0);
    let instances = listed.stdout.lines().count();
    assert_eq!(instances, 4);
    let summary = run_on(&["summary", "--format", "json"], &[&state], 0).json();
    assert_eq!(summary["instances"], instances);
    assert_eq!(summary["deposed_objects"], 1);
    let statuses: u64 = crate::builder::sum_of_counts(&summary["by_status"]);
    assert_eq!(statuses, 4, "{}", summary["by_status"]);
    let scan = run_on(&["scan", "--format", "json"], &[&state], 1).json();
    assert_eq!(scan["states"][0]["instances"], instances);
}

/// Issue 25, item 12: Terraform orders numeric keys as numbers (`module.shard[2]` before
/// `module.shard[10]`), in the table and the JSON.
#[test]
fn summary_orders_module_keys_as_terraform_does() {
    let state = testdata("modules.tfstate");
    let document = run_on(&["summary", "--format", "json"], &[&state], 0).json();
    let shards: Vec<&str> = document["by_module"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|module| module.starts_with("module.shard["))
        .map(String::as_str)
        .collect();
    let expected: Vec<String> = (0..=10).map(|n| format!("module.shard[{n}]")).collect();
    assert_eq!(shards, expected);
    let table = Test::new().arg("summary").arg(&state).run().code(0).stdout;
    let at = |module: &str| table.find(&format!("│ {module} ")).unwrap();
    assert!(at("module.shard[2]") < at("module.shard[10]"), "{table}");
    assert!(at("module.shard[9]") < at("module.shard[10]"), "{table}");
}

/// Issue 25, item 12: `summary DIR` failed ("is a directory") and `summary a b` refused the second
/// file; it takes what `scan` takes and adds the states up.
#[test]
fn summary_takes_folders_and_several_states_as_scan_does() {
    let (lifecycle, modules) = (testdata("lifecycle.tfstate"), testdata("modules.tfstate"));
    let two = run_on(&["summary", "--format", "json"], &[&lifecycle, &modules], 0).json();
    assert_eq!(two["states"], 2);
    assert_eq!(two["instances"], 4 + 32);
    assert_eq!(two["deposed_objects"], 1);
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join("nested")).unwrap();
    std::fs::copy(&lifecycle, folder.path().join("a.tfstate")).unwrap();
    std::fs::copy(&modules, folder.path().join("nested/b.tfstate")).unwrap();
    let text = Test::new()
        .arg("summary")
        .arg(folder.path())
        .run()
        .code(0)
        .stdout;
    assert_starts_with(
        &text,
        &format!(
            "2 states under {}: 26 resources, 36 instances, and 1 deposed object\n",
            folder.path().display()
        ),
    );
    // What scan would find in the folder: it has the same count.
    let scanned = run_on(&["scan", "--format", "json"], &[folder.path()], 1).json();
    assert_eq!(scanned["summary"]["states"], 2);
}

#[test]
fn summary_of_the_synthetic_opentofu_state_uses_instance_providers() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let state =
        corpus.join("synthetic/SYNTHETIC-opentofu-1.12-skip_destroy-provider_foreach.tfstate");
    let document = run_on(&["summary", "--format", "json"], &[&state], 0).json();
    assert_eq!(
        document["by_provider"]["registry.opentofu.org/hashicorp/aws.by_region"],
        2
    );
}

/// Issue 25, item 14: `statectl list module.single` (as `terraform state list module.single`) said
/// only "no such file"; the hint now says the state comes first. A path that exists, or reads as
/// a path, gets no such hint.
#[test]
fn list_with_an_address_where_the_state_goes_says_the_order() {
    let folder = tempfile::tempdir().unwrap();
    Test::new()
        .args(["list", "module.single"])
        .current_dir(folder.path())
        .run()
        .stderr_is("error: module.single: cannot read the state: no such file\nhint: `module.single` looks like an address: the state comes first (`statectl list STATE module.single`), or `-` to read standard input\n");
    Test::new()
        .args(["list", "aws_instance.web[0]"])
        .current_dir(folder.path())
        .run()
        .code(2)
        .stderr_contains("(`statectl list STATE 'aws_instance.web[0]'`)");
    for path in ["prod.tfstate", "states/prod"] {
        Test::new()
            .args(["list", path])
            .current_dir(folder.path())
            .run()
            .stderr_is(&format!(
                "error: {path}: cannot read the state: no such file\n"
            ));
    }
}

/// Issue 25, item 14: `forget` takes several addresses, as `terraform state rm` does; overlapping
/// and repeated ones forget each object once (this once said "asked to forget and to forget the
/// same object"). `rewrite_oracle` compares the bytes with Terraform's.
#[test]
fn forget_takes_several_addresses_in_one_write() {
    let folder = folder_with_copy(testdata("modules.tfstate"));
    Test::new()
        .args([
            "forget",
            "module.shard[1]",
            "module.shard[1]",
            r#"module.app["blue"]"#,
            r#"module.app["blue"].module.db[0]"#,
            "--backup",
            "-",
        ])
        .current_dir(folder.path())
        .run()
        .code(0)
        .stderr_contains("Removed 6 objects; serial 33 -> 34; no backup");
    let listed = Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .code(0)
        .stdout;
    assert_lacks(&listed, "module.shard[1].");
    assert_lacks(&listed, r#"module.app["blue"]"#);
    assert_contains(&listed, "module.shard[2].");
}

/// Issue 25, item 15: the lock holder showed as `0@vm` when `$USER` was unset (root in a container);
/// Terraform names the user from `/etc/passwd`, as Go's `user.Current()` does. The test builder runs
/// statectl with no `$USER` and no `$HOME`.
#[test]
fn the_lock_holder_is_named_from_the_system_without_user_set() {
    let folder = folder_with_copy(testdata("lifecycle.tfstate"));
    let output = Test::new()
        .args(["lock", "--", "cat", ".terraform.tfstate.lock.info"])
        .current_dir(folder.path())
        .run()
        .code(0);
    let info = output.json();
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let name = passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.len() >= 7 && fields[2] == uid)
        .map_or("", |fields| fields[0]);
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    // With no entry for the uid (and no `$USER`), Terraform writes `@host`: so does statectl.
    assert_eq!(info["Who"], format!("{name}@{host}"));
}

/// Issue 24, item 22: every `-v` run with color on printed "tracing-subscriber: the `ansi` crate
/// feature is required" (a debug build panicked); the log is uncolored.
#[test]
fn a_verbose_run_in_color_logs_without_complaint() {
    let output = Test::new()
        .args(["-vv", "--color", "always", "list"])
        .arg(testdata("lifecycle.tfstate"))
        .run()
        .code(0);
    assert_lacks(&output.stderr, "tracing-subscriber");
    assert_contains(&output.stderr, "state read");
    assert!(!output.stderr.contains('\u{1b}'), "{}", output.stderr);
}

/// Issue 24, item 22: `--reader cf=plugin` (an endpoint name) and `--reader nosuch=plugin` chose
/// nothing and the instances were read over HTTP anyway; the run is refused before any request,
/// naming the providers the state has.
#[test]
fn a_reader_for_a_provider_the_state_lacks_is_refused() {
    let folder = folder_with_copy(root().join("testdata/scan/cf-tainted-in-progress.tfstate"));
    for (flag, name) in [("cf=plugin", "cf"), ("nosuch=http", "nosuch")] {
        Test::new()
            .args(["refresh", "--reader", flag, "--endpoint", "cf=http://127.0.0.1:9"])
            .current_dir(folder.path())
            .run()
            .stderr_is(&format!(
                "error: `--reader {flag}`: no provider `{name}` in the state; its providers: `cloudfoundry`\nhint: NAME is a provider's local name (the last part of its source: `aws`, `oci`, `cloudfoundry`), not an `--endpoint` name\n"
            ));
    }
    assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 1);
}

/// A state large enough for `list` to format its second half on a thread of its own (16,384
/// objects and more): the text lines are the JSON's addresses (formatted in one walk), in order,
/// with and without a filter, and a resource whose objects straddle the middle is listed once.
#[test]
fn a_large_states_list_in_two_halves_is_the_list_in_one() {
    let mut entries = Vec::new();
    for module in 0..12 {
        for index in 0..1_800 {
            // Every 7th instance tainted, every 500th with a deposed object beside its current one.
            let status = if index % 7 == 0 {
                r#""status":"tainted","#
            } else {
                ""
            };
            let object = |deposed: &str| {
                format!(
                    r#"{{"index_key":{index},{status}{deposed}"schema_version":0,"attributes":{{"id":"i-{module}-{index}"}}}}"#
                )
            };
            let mut objects = vec![object("")];
            if index % 500 == 0 {
                objects.push(object(r#""deposed":"0000aaaa","#));
            }
            entries.push(format!(
                r#"{{"module":"module.m[{module}]","mode":"managed","type":"aws_instance","name":"web{}","provider":"provider[\"registry.terraform.io/hashicorp/aws\"]","instances":[{}]}}"#,
                index / 900,
                objects.join(",")
            ));
        }
    }
    // Two objects more, last in the order: the middle of the 21,650 objects is then the deposed
    // object of `module.m[6].aws_instance.web0[0]`, whose current object is the one before it.
    entries.push(
        r#"{"module":"module.m[11]","mode":"managed","type":"aws_instance","name":"zz","provider":"provider[\"registry.terraform.io/hashicorp/aws\"]","instances":[{"index_key":0,"schema_version":0,"attributes":{}},{"index_key":1,"schema_version":0,"attributes":{}}]}"#
            .to_string(),
    );
    let text = format!(
        r#"{{"version":4,"terraform_version":"1.15.5","serial":1,"lineage":"l","outputs":{{}},"resources":[{}],"check_results":null}}"#,
        entries.join(",")
    );
    let (_folder, state) = folder_with_state(text);
    for filter in [&[][..], &["--tainted"][..], &["--deposed"][..]] {
        let lines = run_on(&[&["list"][..], filter].concat(), &[&state], 0).stdout;
        let lines: Vec<&str> = lines.lines().collect();
        let document = run_on(
            &[&["list", "--format", "json"][..], filter].concat(),
            &[&state],
            0,
        )
        .json();
        let addresses: Vec<&str> = document["instances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|instance| instance["address"].as_str().unwrap())
            .collect();
        let first_difference = lines.iter().zip(&addresses).position(|(a, b)| a != b);
        assert!(
            lines == addresses,
            "{filter:?}: {} lines, {} addresses, first difference at {first_difference:?}",
            lines.len(),
            addresses.len()
        );
        let expected = match filter {
            [] => 12 * 1_800 + 2,
            ["--tainted"] => 12 * 1_800_usize.div_ceil(7),
            _ => 12 * 4,
        };
        assert_eq!(lines.len(), expected, "{filter:?}");
    }
    let all = run_on(&["list"], &[&state], 0).stdout;
    // module.m[10] sorts after module.m[9] (integer keys), and web0 before web1 within a module.
    let firsts: Vec<&str> = all
        .lines()
        .filter(|line| line.ends_with(".web0[0]"))
        .collect();
    assert_eq!(firsts.first(), Some(&"module.m[0].aws_instance.web0[0]"));
    assert_eq!(firsts.last(), Some(&"module.m[11].aws_instance.web0[0]"));
    let straddling = "module.m[6].aws_instance.web0[0]";
    assert_eq!(all.lines().filter(|line| *line == straddling).count(), 1);
}
