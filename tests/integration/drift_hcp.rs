//! `statectl drift --workspace GLOB` on HCP Terraform / Terraform Enterprise, against
//! `statectl-sim tfe` on loopback: the workspaces `terraform workspace list` names for the block (a
//! `cloud` block's tags and project, a `remote` backend's prefix, named without it), those the glob
//! matches checked in one report naming each; a glob matching none refused with the workspaces
//! found; a listing that never ends stopped by `--max-pages`; no state version written, no lock
//! taken unless `--lock`, the token in no output. The states hold only `terraform_data` (no
//! provider to start): these tests are about the listing and the run around it; `plugin_tf.rs`
//! checks a drifted workspace through a real provider.

use std::path::Path;

use serde_json::{Value, json};

use crate::builder::{Output, Test, root};
use crate::drift_workspaces::states_checked;
use crate::hcp_backend::{TOKEN, Tfe, home_with_token};

/// A `terraform_data`-only state.
fn seed() -> String {
    format!(
        "{}",
        root().join("testdata/states/modules.tfstate").display()
    )
}

/// The simulator holding `workspaces` (`NAME` or `NAME:TAG,...`, as its `--workspace` takes them),
/// the seed state in each of `with_state`, and `extra` arguments.
fn simulated(workspaces: &[&str], with_state: &[&str], extra: &[&str]) -> Tfe {
    let seed = seed();
    let mut args: Vec<String> = Vec::new();
    for workspace in workspaces {
        args.extend(["--workspace".to_owned(), (*workspace).to_owned()]);
    }
    for name in with_state {
        args.extend(["--state".to_owned(), format!("{name}={seed}")]);
    }
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    Tfe::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A working directory initialised for backend `kind` (`cloud` or `remote`) on the simulator,
/// with `workspaces` as the block's.
fn initialised(tfe: &Tfe, kind: &str, workspaces: &Value) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join(".terraform")).unwrap();
    let cache = json!({"version": 3, "backend": {"type": kind, "hash": 1,
        "config": {"hostname": tfe.host(), "organization": "acme", "token": null,
                   "workspaces": workspaces}}});
    std::fs::write(
        folder.path().join(".terraform/terraform.tfstate"),
        cache.to_string(),
    )
    .unwrap();
    folder
}

/// `statectl drift ARGS` in `folder`, the simulator's CA trusted, the token in `home`'s
/// credentials file.
fn drift(tfe: &Tfe, folder: &Path, home: &Path, args: &[&str]) -> Output {
    Test::new()
        .current_dir(folder)
        .env("SSL_CERT_FILE", tfe.ca())
        .env("HOME", home)
        .arg("drift")
        .args(args)
        .run()
}

/// The states `drift --workspace '*' --format json` checks in `folder`, finding no drift (exit 0),
/// its output without the token.
fn every_state_checked(tfe: &Tfe, folder: &Path, home: &Path) -> Vec<String> {
    let output = drift(tfe, folder, home, &["--workspace", "*", "--format", "json"]).code(0);
    no_token(&output);
    states_checked(&output)
}

/// Every output of the run shows no token.
fn no_token(output: &Output) {
    assert!(
        !output.stdout.contains(TOKEN) && !output.stderr.contains(TOKEN),
        "{}{}",
        output.stdout,
        output.stderr
    );
}

#[test]
fn drift_checks_the_cloud_workspaces_the_tags_and_a_glob_choose() {
    let tfe = simulated(
        &[
            "app-eu:app",
            "app-us:app,us:Infra",
            "app-new:app",
            "db-eu:db",
        ],
        &["app-eu", "app-us", "db-eu"],
        &[],
    );
    let home = home_with_token(&tfe.host(), TOKEN);
    let tagged = initialised(&tfe, "cloud", &json!({"name": null, "tags": ["app"]}));
    let at = |name: &str| {
        format!(
            "https://{}/app/acme/workspaces/{name} (workspace \"{name}\")",
            tfe.host()
        )
    };
    let versions = || -> Vec<usize> {
        ["app-eu", "app-us", "app-new", "db-eu"]
            .iter()
            .map(|name| tfe.versions(name).len())
            .collect()
    };
    let before = versions();

    // The tags choose three workspaces, `app-new` has no state yet: two are checked.
    assert_eq!(
        every_state_checked(&tfe, tagged.path(), home.path()),
        [at("app-eu"), at("app-us")]
    );
    let some = drift(&tfe, tagged.path(), home.path(), &["--workspace", "*-eu"]).code(0);
    assert_eq!(
        some.stdout,
        format!(
            "{}: 0 instances read; no drift; 32 built into Terraform (no remote object) not read\n",
            at("app-eu")
        )
    );
    // The listing asked the server for the tags, a hundred a page.
    assert_eq!(
        tfe.count(
            "GET",
            "/workspaces?page%5Bsize%5D=100&page%5Bnumber%5D=1&search%5Btags%5D=app"
        ),
        2
    );
    // `db-eu` exists, but the block's tags do not choose it.
    let none = drift(&tfe, tagged.path(), home.path(), &["--workspace", "db-*"]);
    none.refused(
        "error: `--workspace db-*` matches no workspace of backend \"cloud\"\nhint: the workspaces there: app-eu, app-new, app-us\n",
    );

    // Read only: no state version written, no lock asked for, nothing uploaded.
    assert_eq!(versions(), before);
    assert_eq!(tfe.count("POST", "actions/lock"), 0);
    assert_eq!(tfe.count("POST", "state-versions"), 0);
    assert_eq!(tfe.count("PUT", "/_archivist/"), 0);
    // `--lock` locks each workspace while it is read, and releases it; the one without a state
    // too, which is then nothing to check.
    let locked = drift(
        &tfe,
        tagged.path(),
        home.path(),
        &["--workspace", "app-*", "--lock"],
    );
    locked
        .code(0)
        .stderr_contains("workspace \"app-new\" has no state yet");
    assert_eq!(tfe.count("POST", "actions/lock"), 3);
    assert_eq!(tfe.count("POST", "actions/unlock"), 3);
    assert_eq!((tfe.holder("app-eu"), tfe.holder("app-us")), (None, None));
    assert_eq!(versions(), before);
}

/// The `project` narrows the list to its workspaces; a block with neither `name` nor `tags` maps
/// to every workspace, and one with `name` to that one.
#[test]
fn a_cloud_blocks_project_and_name_shape_the_list_as_in_terraform() {
    let tfe = simulated(
        &[
            "app-eu:app",
            "app-us:app,us:Infra",
            "app-new:app",
            "db-eu:db",
            "web-prod:env=prod",
            "web-dev:env=dev",
        ],
        &["app-us", "db-eu", "web-prod", "web-dev"],
        &[],
    );
    let home = home_with_token(&tfe.host(), TOKEN);
    let at = |name: &str| {
        format!(
            "https://{}/app/acme/workspaces/{name} (workspace \"{name}\")",
            tfe.host()
        )
    };
    // The project narrows the list, found by name as Terraform finds it.
    let project = initialised(
        &tfe,
        "cloud",
        &json!({"name": null, "tags": ["app"], "project": "Infra"}),
    );
    assert_eq!(
        every_state_checked(&tfe, project.path(), home.path()),
        [at("app-us")]
    );
    assert_eq!(tfe.count("GET", "/projects?filter%5Bnames%5D=Infra"), 1);
    // A block with neither name nor tags maps to every workspace, as in Terraform.
    let every = initialised(&tfe, "cloud", &json!({"name": null, "tags": null}));
    let listed = drift(&tfe, every.path(), home.path(), &["--workspace", "nope*"]);
    listed
        .refused("hint: the workspaces there: app-eu, app-new, app-us, db-eu, web-dev, web-prod\n");
    // Key/value tags: the key and its value, as Terraform asks for them.
    let bound = initialised(
        &tfe,
        "cloud",
        &json!({"name": null, "tags": {"env": "prod"}}),
    );
    assert_eq!(
        every_state_checked(&tfe, bound.path(), home.path()),
        [at("web-prod")]
    );
    assert_eq!(
        tfe.count(
            "GET",
            "search%5Btags%5D=env&filter%5Btagged%5D%5B0%5D%5Bkey%5D=env&filter%5Btagged%5D%5B0%5D%5Bvalue%5D=prod"
        ),
        1
    );
    // A block naming one workspace: that one.
    let named = initialised(&tfe, "cloud", &json!({"name": "db-eu", "tags": null}));
    assert_eq!(
        every_state_checked(&tfe, named.path(), home.path()),
        [at("db-eu")]
    );

    // A project that does not exist filters nothing, as in Terraform, and says so.
    let elsewhere = initialised(
        &tfe,
        "cloud",
        &json!({"name": null, "tags": ["app"], "project": "Nowhere"}),
    );
    let unfiltered = drift(
        &tfe,
        elsewhere.path(),
        home.path(),
        &["--workspace", "*-us"],
    );
    unfiltered
        .code(0)
        .stderr_contains("project `Nowhere` was not found in organization `acme`");
    assert_eq!(tfe.count("POST", "actions/lock"), 0);
}

#[test]
fn drift_names_a_remote_backends_workspaces_without_its_prefix() {
    let tfe = simulated(
        &["app-dev", "app-prod", "my-app-x", "web"],
        &["app-dev", "app-prod", "my-app-x", "web"],
        &[],
    );
    let home = home_with_token(&tfe.host(), TOKEN);
    let prefixed = initialised(&tfe, "remote", &json!({"name": null, "prefix": "app-"}));
    let at = |remote: &str, name: &str| {
        format!(
            "https://{}/app/acme/workspaces/{remote} (workspace \"{name}\")",
            tfe.host()
        )
    };
    // `my-app-x` matches the search (anywhere in the name), not the prefix.
    assert_eq!(
        every_state_checked(&tfe, prefixed.path(), home.path()),
        [at("app-dev", "dev"), at("app-prod", "prod")]
    );
    assert_eq!(tfe.count("GET", "search%5Bname%5D=app-"), 1);
    drift(&tfe, prefixed.path(), home.path(), &["--workspace", "stage-*"]).refused(
        "error: `--workspace stage-*` matches no workspace of backend \"remote\"\nhint: the workspaces there: dev, prod\n",
    );
    // `name` is the one workspace, which Terraform calls `default`.
    let named = initialised(&tfe, "remote", &json!({"name": "web", "prefix": null}));
    assert_eq!(
        every_state_checked(&tfe, named.path(), home.path()),
        [at("web", "default")]
    );
    assert_eq!(tfe.count("POST", "actions/lock"), 0);
    assert_eq!(tfe.versions("app-dev").len(), 1);
}

/// A list whose every page repeats the first and offers another: counted once each, with a
/// warning; offered for ever, it is stopped at `--max-pages` with one line and exit 2, before any
/// state is read. A server that echoes the request (token included) in its error does not get
/// the token shown.
#[test]
fn a_hostile_workspace_list_ends_at_the_page_limit_and_the_token_stays_hidden() {
    let start =
        |extra: &[&str]| simulated(&["app-eu:app", "app-us:app"], &["app-eu", "app-us"], extra);

    let repeating = start(&["--tag-pages-repeat", "3"]);
    let home = home_with_token(&repeating.host(), TOKEN);
    let tags = json!({"name": null, "tags": ["app"]});
    let folder = initialised(&repeating, "cloud", &tags);
    let output = drift(
        &repeating,
        folder.path(),
        home.path(),
        &["--workspace", "*", "--format", "json"],
    );
    let output = output.code(0);
    assert_eq!(states_checked(&output).len(), 2, "{}", output.stdout);
    assert!(
        output.stderr.contains("warning: ")
            && output
                .stderr
                .contains("more than once; each state is read once"),
        "{}",
        output.stderr
    );
    assert_eq!(repeating.count("GET", "search%5Btags%5D"), 3);

    let endless = start(&["--tag-pages-repeat", "0"]);
    let home = home_with_token(&endless.host(), TOKEN);
    let folder = initialised(&endless, "cloud", &tags);
    let stopped = drift(
        &endless,
        folder.path(),
        home.path(),
        &["--workspace", "*", "--max-pages", "4"],
    );
    let stopped = stopped.refused(&format!(
        "error: .terraform/terraform.tfstate ({}): the listing has not ended after 4 pages (2 workspaces so far); statectl stopped it\nhint: raise the limit with `--max-pages N`",
        endless.host()
    ));
    assert_eq!(stopped.stderr.lines().count(), 2, "{}", stopped.stderr);
    assert_eq!(endless.count("GET", "search%5Btags%5D"), 4);
    assert_eq!(endless.count("GET", "current-state-version"), 0);

    let echoing = start(&["--echo-faults", "--fault", "GET:page%5Bsize%5D=403"]);
    let home = home_with_token(&echoing.host(), TOKEN);
    let folder = initialised(&echoing, "cloud", &tags);
    let refused = drift(&echoing, folder.path(), home.path(), &["--workspace", "*"]).code(2);
    assert!(
        refused.stderr.starts_with("error: ") && refused.stderr.contains("403"),
        "{}",
        refused.stderr
    );
    no_token(&refused);
}
