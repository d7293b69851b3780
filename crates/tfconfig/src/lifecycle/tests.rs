//! The configuration reader on real files: every setting, local modules, JSON syntax, skipped files and
//! the refusals Terraform makes.

use std::fs;
use std::path::{Path, PathBuf};

use statectl_state::state::address::{Mode, ResourceAddr};
use tempfile::TempDir;

use super::{Config, ConfigResource, RemovedBlock, SkippedModule};
use crate::ConfigError;

fn realistic() -> (PathBuf, Config) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/config/realistic");
    let config = Config::read(&dir).unwrap();
    (dir, config)
}

fn folder(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

fn read(files: &[(&str, &str)]) -> Config {
    let dir = folder(files);
    Config::read(dir.path()).unwrap()
}

/// The error, with the temporary folder written as `DIR`.
#[track_caller]
fn refused(files: &[(&str, &str)]) -> ConfigError {
    let dir = folder(files);
    let mut error = Config::read(dir.path()).unwrap_err();
    error.message = error
        .message
        .replace(&dir.path().display().to_string(), "DIR");
    error
}

/// [`refused`] of a folder holding only `main.tf` with `text`.
#[track_caller]
fn refused_main(text: &str) -> ConfigError {
    refused(&[("main.tf", text)])
}

#[track_caller]
fn lookup<'c>(config: &'c Config, address: &str) -> &'c ConfigResource {
    config
        .resource(&ResourceAddr::parse(address).unwrap())
        .unwrap_or_else(|| panic!("no block for {address}"))
}

#[test]
fn root_module_settings_are_read_with_their_lines() {
    let (dir, config) = realistic();
    assert_eq!(
        lookup(&config, "aws_s3_bucket.logs"),
        &ConfigResource {
            module: vec![],
            mode: Mode::Managed,
            type_name: "aws_s3_bucket".to_owned(),
            name: "logs".to_owned(),
            prevent_destroy: true,
            create_before_destroy: false,
            destroy: None,
            file: dir.join("main.tf"),
            line: 10,
        }
    );
    let web = lookup(&config, "aws_instance.web");
    assert!(web.create_before_destroy && !web.prevent_destroy);
    assert_eq!(web.line, 18);
    let identity = lookup(&config, "data.aws_caller_identity.current");
    assert_eq!(identity.mode, Mode::Data);
    assert_eq!(identity.line, 29);
}

#[test]
fn local_modules_are_read_under_their_call_names() {
    let (dir, config) = realistic();
    let db = lookup(&config, "module.db[0].aws_db_instance.main");
    assert_eq!(db.module, ["db"]);
    assert!(db.prevent_destroy && !db.create_before_destroy);
    assert_eq!(db.destroy, Some(false));
    assert_eq!(db.file, dir.join("modules/db/main.tf"));
    assert_eq!(db.line, 6);
    let replica = lookup(
        &config,
        "module.db[0].module.replica.aws_db_instance.replica",
    );
    assert_eq!(replica.module, ["db", "replica"]);
    assert!(replica.create_before_destroy);
    // `..` stays in the path: lexically removing it would be wrong across symbolic links.
    assert_eq!(replica.file, dir.join("modules/db/../replica/main.tf"));
}

#[test]
fn registry_and_git_modules_are_listed_not_read() {
    let (_, config) = realistic();
    assert_eq!(
        config.skipped_modules,
        [
            SkippedModule {
                module: vec!["vpc".to_owned()],
                source: "terraform-aws-modules/vpc/aws".to_owned(),
            },
            SkippedModule {
                module: vec!["dns".to_owned()],
                source: "git::https://example.com/dns.git?ref=v1.2.0".to_owned(),
            },
        ]
    );
}

#[test]
fn removed_blocks_keep_from_as_written() {
    let (dir, config) = realistic();
    let removed: Vec<(&str, Option<bool>, usize)> = config
        .removed
        .iter()
        .map(|block| (&*block.from, block.destroy, block.line))
        .collect();
    assert_eq!(
        removed,
        [
            ("aws_instance.legacy", Some(false), 45),
            ("module.old_cache", None, 53),
            ("aws_sqs_queue.old", Some(false), 0),
        ]
    );
    assert_eq!(config.removed[2].file, dir.join("queues.tf.json"));
}

#[test]
fn json_syntax_takes_lifecycle_as_an_object_or_a_list_of_one() {
    let (dir, config) = realistic();
    let jobs = lookup(&config, "aws_sqs_queue.jobs");
    assert!(jobs.prevent_destroy);
    assert_eq!(
        (jobs.file.clone(), jobs.line),
        (dir.join("queues.tf.json"), 0)
    );
    assert!(lookup(&config, "aws_sqs_queue.dead_letters").create_before_destroy);
}

#[test]
fn json_modules_and_block_arrays() {
    let config = read(&[
        (
            "main.tf.json",
            r#"{"resource": [{"aws_instance": {"a": [{"lifecycle": {"destroy": "false"}}]}}],
                "module": {"m": {"source": "./m"}}}"#,
        ),
        ("m/main.tf.json", r#"{"data": {"aws_ami": {"x": {}}}}"#),
    ]);
    assert_eq!(lookup(&config, "aws_instance.a").destroy, Some(false));
    assert_eq!(lookup(&config, "module.m.data.aws_ami.x").module, ["m"]);
}

#[test]
fn override_and_hidden_files_are_skipped() {
    let (_, config) = realistic();
    // override.tf sets `prevent_destroy = false`, and `.#main.tf` declares the bucket a second
    // time: reading either would change this.
    assert!(lookup(&config, "aws_s3_bucket.logs").prevent_destroy);
    let config = read(&[
        ("main.tf", "resource \"a\" \"b\" {}\n"),
        ("x_override.tf.json", "not even json"),
    ]);
    assert_eq!(config.resources.len(), 1);
}

#[test]
fn files_are_read_in_name_order() {
    let config = read(&[
        ("b.tf", "resource \"t\" \"from_b\" {}\n"),
        ("a.tf", "resource \"t\" \"from_a\" {}\n"),
        ("sub/c.tf", "resource \"t\" \"in_a_subfolder\" {}\n"),
    ]);
    let names: Vec<&str> = config
        .resources
        .iter()
        .map(|resource| &*resource.name)
        .collect();
    assert_eq!(names, ["from_a", "from_b"]);
}

#[test]
fn settings_not_set_read_as_false_and_none() {
    let config = read(&[("main.tf", "resource \"t\" \"n\" {\n  lifecycle {}\n}\n")]);
    let resource = lookup(&config, "t.n");
    assert!(!resource.prevent_destroy && !resource.create_before_destroy);
    assert_eq!(resource.destroy, None);
}

#[test]
fn quoted_and_parenthesized_literals_convert_as_in_terraform() {
    let config = read(&[(
        "main.tf",
        "resource \"t\" \"n\" {\n  lifecycle {\n    prevent_destroy = \"1\"\n    create_before_destroy = (true)\n    destroy = \"false\"\n  }\n}\n",
    )]);
    let resource = lookup(&config, "t.n");
    assert!(resource.prevent_destroy && resource.create_before_destroy);
    assert_eq!(resource.destroy, Some(false));
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let error =
        refused_main("resource \"t\" \"n\" {\n  lifecycle {\n    prevent_destroy = \n  }\n}\n");
    assert!(
        error
            .message
            .starts_with("DIR/main.tf:3:23: invalid configuration: invalid expression; expected"),
        "{}",
        error.message
    );
    let error = refused(&[("main.tf.json", "{\n  \"resource\": {,\n}\n")]);
    assert_eq!(
        error.message,
        "DIR/main.tf.json:2:16: invalid configuration: key must be a string"
    );
}

#[test]
fn non_literal_lifecycle_value_is_refused() {
    let error = refused_main(
        "variable \"protect\" {\n  type = bool\n}\n\nresource \"t\" \"n\" {\n  lifecycle {\n    prevent_destroy = var.protect\n  }\n}\n",
    );
    assert_eq!(
        error.message,
        "DIR/main.tf:7:5: lifecycle argument `prevent_destroy` must be a literal true or false"
    );
    for value in ["!false", "\"yes\"", "\"${true}\"", "null", "1"] {
        let text =
            format!("resource \"t\" \"n\" {{\n  lifecycle {{\n    destroy = {value}\n  }}\n}}\n");
        let error = refused_main(&text);
        assert!(
            error
                .message
                .ends_with("`destroy` must be a literal true or false"),
            "{value}: {error}"
        );
    }
    let error = refused(&[(
        "main.tf.json",
        r#"{"resource": {"t": {"n": {"lifecycle": {"prevent_destroy": "${var.p}"}}}}}"#,
    )]);
    assert_eq!(
        error.message,
        "DIR/main.tf.json: resource \"t\" \"n\": lifecycle argument `prevent_destroy` must be a literal true or false"
    );
}

#[test]
fn data_blocks_take_no_destroy_settings() {
    let error =
        refused_main("data \"t\" \"n\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n");
    assert!(
        error.message.starts_with(
            "DIR/main.tf:3:5: lifecycle argument `prevent_destroy` is defined only for managed resources"
        ),
        "{error}"
    );
}

#[test]
fn duplicate_resource_is_refused_naming_both_places() {
    let error = refused(&[
        ("a.tf", "\n\nresource \"aws_instance\" \"web\" {}\n"),
        (
            "b.tf",
            "data \"aws_instance\" \"web\" {}\n  resource \"aws_instance\" \"web\" {}\n",
        ),
    ]);
    assert_eq!(
        error.message,
        "DIR/b.tf:2:3: duplicate resource \"aws_instance\" \"web\", already declared at DIR/a.tf:3:1"
    );
    assert!(error.hint.is_some());
}

#[test]
fn duplicate_module_call_and_lifecycle_block_are_refused() {
    let error = refused_main(
        "module \"m\" {\n  source = \"./m\"\n}\nmodule \"m\" {\n  source = \"./m\"\n}\n",
    );
    assert_eq!(
        error.message,
        "DIR/main.tf:4:1: duplicate module call `m`, already declared at DIR/main.tf:1:1"
    );
    let error = refused_main("resource \"t\" \"n\" {\n  lifecycle {}\n  lifecycle {}\n}\n");
    assert_eq!(
        error.message,
        "DIR/main.tf:3:3: duplicate `lifecycle` block, the first is at DIR/main.tf:2:3"
    );
}

#[test]
fn removed_from_must_be_an_address_not_a_string() {
    let error = refused_main("removed {\n  from = \"aws_instance.a\"\n}\n");
    assert!(
        error
            .message
            .starts_with("DIR/main.tf:2:3: `from` must be an address"),
        "{error}"
    );
}

#[test]
fn removed_from_is_rendered_without_stray_whitespace() {
    let config = read(&[(
        "main.tf",
        "removed {\n  from = module.a[\"k\"] . aws_instance.b[ 0 ] # gone\n}\n",
    )]);
    assert_eq!(
        config.removed,
        [RemovedBlock {
            module: vec![],
            from: "module.a[\"k\"].aws_instance.b[0]".to_owned(),
            destroy: None,
            file: config.removed[0].file.clone(),
            line: 1,
        }]
    );
}

#[test]
fn module_cycle_is_refused_naming_it() {
    let error = refused(&[
        ("main.tf", "module \"a\" {\n  source = \"./a\"\n}\n"),
        ("a/main.tf", "module \"b\" {\n  source = \"../b\"\n}\n"),
        ("b/main.tf", "module \"again\" {\n  source = \"../a\"\n}\n"),
    ]);
    assert_eq!(
        error.message,
        "DIR/a/../b/main.tf:1:1: module cycle: `module.a.module.b.module.again` calls `../a`, the folder of `module.a`"
    );
    let error = refused_main("module \"self\" {\n  source = \"./\"\n}\n");
    assert!(
        error.message.ends_with("the folder of the root module"),
        "{error}"
    );
}

#[test]
fn one_folder_called_twice_is_not_a_cycle() {
    let config = read(&[
        (
            "main.tf",
            "module \"a\" {\n  source = \"./db\"\n}\nmodule \"b\" {\n  source = \"./db\"\n}\n",
        ),
        ("db/main.tf", "resource \"t\" \"n\" {}\n"),
    ]);
    let modules: Vec<&[String]> = config
        .resources
        .iter()
        .map(|resource| &*resource.module)
        .collect();
    assert_eq!(modules, [["a".to_owned()], ["b".to_owned()]]);
}

#[test]
fn missing_local_module_folder_points_at_the_source() {
    let error = refused_main("\nmodule \"db\" {\n  source = \"./modules/db\"\n}\n");
    assert_eq!(
        error.message,
        "DIR/main.tf:2:1: module `db`: no folder at `DIR/modules/db`"
    );
    assert_eq!(error.hint.as_deref(), Some("check the module's `source`"));
}

#[test]
fn a_folder_without_configuration_is_refused_with_a_hint() {
    let error = refused(&[
        ("README.md", "no configuration here"),
        ("modules/db/main.tf", ""),
    ]);
    assert_eq!(
        error.message,
        "DIR: no Terraform configuration files (*.tf, *.tofu) here"
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("--config takes the root module's folder")
    );
    let dir = folder(&[]);
    let error = Config::read(&dir.path().join("nope")).unwrap_err();
    assert!(
        error.message.contains("nope: cannot read the folder: "),
        "{error}"
    );
}

#[test]
fn lookup_matches_module_names_and_ignores_their_keys() {
    let (_, config) = realistic();
    for address in [
        "module.db.aws_db_instance.main",
        "module.db[0].aws_db_instance.main",
        "module.db[\"x\"].aws_db_instance.main",
    ] {
        assert_eq!(lookup(&config, address).module, ["db"], "{address}");
    }
    for address in [
        "aws_db_instance.main",
        "module.db.module.replica.aws_db_instance.main",
        "module.other.aws_db_instance.main",
        "module.db.data.aws_db_instance.main",
        "aws_s3_bucket.other",
    ] {
        let parsed = ResourceAddr::parse(address).unwrap();
        assert_eq!(config.resource(&parsed), None, "{address}");
    }
}

/// OpenTofu loads `.tofu` and `.tofu.json` files too, and a `.tofu` file hides the `.tf` file of
/// the same name (so a module can say one thing to OpenTofu and another to Terraform).
#[test]
fn tofu_files_are_read_and_hide_the_tf_file_of_the_same_name() {
    let protected =
        "resource \"terraform_data\" \"a\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n";
    let config = read(&[
        ("main.tf", "resource \"terraform_data\" \"a\" {}\n"),
        ("main.tofu", protected),
        ("extra.tofu", "resource \"terraform_data\" \"b\" {}\n"),
        (
            "more.tofu.json",
            r#"{"resource": {"terraform_data": {"c": {}}}}"#,
        ),
        (
            "more.tf.json",
            r#"{"resource": {"terraform_data": {"ignored": {}}}}"#,
        ),
    ]);
    assert!(lookup(&config, "terraform_data.a").prevent_destroy);
    assert!(
        lookup(&config, "terraform_data.a")
            .file
            .ends_with("main.tofu")
    );
    lookup(&config, "terraform_data.b");
    lookup(&config, "terraform_data.c");
    assert!(
        config
            .resource(&ResourceAddr::parse("terraform_data.ignored").unwrap())
            .is_none()
    );
    assert!(crate::holds_configuration(folder(&[("x.tofu", "")]).path()));
    assert!(!crate::holds_configuration(
        folder(&[("x.tfvars", ""), ("override.tf", "")]).path()
    ));
}
