//! The plugin reader against a real protocol-6 server that is not Go: the test provider in
//! `testdata/plugin-tf/provider.py`, written with Python's `tf` package (its own go-plugin handshake,
//! an RSA-1024 TLS certificate, tfplugin6, a `nested_type` attribute). Real Terraform 1.15.5 installs
//! it from a filesystem mirror and applies `testdata/plugin-tf/main.tf`; the job's remote object then
//! finishes creating behind Terraform's back, and `statectl refresh --reader plugin --write` must
//! write the bytes `terraform apply -refresh-only` writes. Without Terraform or the Python (from
//! scripts/install-tf-provider.sh) these tests skip, except under CI, where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::builder::{assert_contains, root};
use crate::files::write_script;
use crate::oracle::{run, terraform};
use crate::skip::require_installed;

/// The provider's address, as `required_providers` names it.
const SOURCE: &str = "statectl.example/test/pyasync";

/// A working folder with the job applied: `work/` (the configuration and state), `mirror/` (the
/// provider, as an unpacked filesystem mirror), `remote.json` (the provider's "remote").
struct Stack {
    folder: tempfile::TempDir,
    terraform: PathBuf,
    /// The provider's identity schema version (`PYASYNC_IDENTITY_VERSION`); none: no identities.
    identity_version: std::cell::Cell<Option<u8>>,
    /// More environment for every process from now on (`TF_VAR_region`, `PYASYNC_MISBEHAVE`).
    env: std::cell::RefCell<Vec<(String, String)>>,
}

impl Stack {
    fn apply() -> Option<Stack> {
        Stack::apply_with_identity(None)
    }

    fn apply_with_identity(identity_version: Option<u8>) -> Option<Stack> {
        let terraform = terraform()?;
        let python = require_installed("STATECTL_TF_PYTHON", "target/tf-provider/venv/bin/python")?;
        let folder = tempfile::tempdir().unwrap();
        let package = folder
            .path()
            .join(format!("mirror/{SOURCE}/1.0.0/linux_amd64"));
        std::fs::create_dir_all(&package).unwrap();
        std::fs::create_dir_all(folder.path().join("work")).unwrap();
        let binary = package.join("terraform-provider-pyasync_v1.0.0");
        write_script(
            &binary,
            format!(
                "#!/bin/sh\nexec \"{}\" \"{}\" \"$@\"\n",
                python.display(),
                root().join("testdata/plugin-tf/provider.py").display()
            ),
        );
        crate::files::write_mirror_config(
            &folder.path().join("cli.tfrc"),
            &folder.path().join("mirror"),
            SOURCE,
        );
        std::fs::copy(
            root().join("testdata/plugin-tf/main.tf"),
            folder.path().join("work/main.tf"),
        )
        .unwrap();
        let stack = Stack {
            folder,
            terraform,
            identity_version: std::cell::Cell::new(identity_version),
            env: std::cell::RefCell::new(Vec::new()),
        };
        run(&mut stack.terraform_command("work", &["init", "-input=false", "-no-color"]));
        run(&mut stack.terraform_command(
            "work",
            &["apply", "-auto-approve", "-input=false", "-no-color"],
        ));
        Some(stack)
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    /// What every process here needs: the CLI configuration, the provider's remote, and a home of
    /// its own (the `tf` package caches its certificate under `~/.cache`).
    fn environment(&self, command: &mut Command) {
        command
            .env("TF_CLI_CONFIG_FILE", self.path().join("cli.tfrc"))
            .env("PYASYNC_REMOTE", self.path().join("remote.json"))
            .env("HOME", self.path());
        if let Some(version) = self.identity_version.get() {
            command.env("PYASYNC_IDENTITY_VERSION", version.to_string());
        }
        command.envs(self.env.borrow().iter().map(|(k, v)| (k, v)));
    }

    fn terraform_command(&self, folder: &str, args: &[&str]) -> Command {
        let mut command = Command::new(&self.terraform);
        command.args(args).current_dir(self.path().join(folder));
        self.environment(&mut command);
        command
    }

    fn statectl(&self, folder: &str, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["refresh", "--reader", "plugin", "--config", "."];
        all.extend_from_slice(args);
        self.statectl_in(folder, &all)
    }

    /// `statectl drift --config . ARGS` in `folder`, in the same clean environment.
    fn drift(&self, folder: &str, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["--config", "."];
        all.extend_from_slice(args);
        self.drift_in(folder, &all)
    }

    /// `statectl drift ARGS` in `folder` (`""`: the stack's folder), in the same clean environment.
    fn drift_in(&self, folder: &str, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["drift"];
        all.extend_from_slice(args);
        self.statectl_in(folder, &all)
    }

    /// `statectl ARGS` in `folder`, with no environment but `PATH`, `COLUMNS` and the stack's.
    fn statectl_in(&self, folder: &str, args: &[&str]) -> (i32, String, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
        command
            .args(args)
            .current_dir(self.path().join(folder))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("COLUMNS", "200");
        self.environment(&mut command);
        let output = command.output().unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }

    fn state_bytes(&self, folder: &str) -> Vec<u8> {
        std::fs::read(self.path().join(folder).join("terraform.tfstate")).unwrap()
    }

    fn state(&self, folder: &str) -> Value {
        serde_json::from_slice(&self.state_bytes(folder)).unwrap()
    }

    /// Edits the job's remote object, as the remote system would.
    fn remote(&self, edit: impl FnOnce(&mut Value)) {
        let path = self.path().join("remote.json");
        let mut jobs: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        edit(&mut jobs["job-build"]);
        std::fs::write(&path, jobs.to_string()).unwrap();
    }

    /// `terraform apply -refresh-only` in `folder`.
    fn terraform_refresh(&self, folder: &str) {
        self.terraform_refresh_with(folder, &[]);
    }

    /// `terraform apply -refresh-only EXTRA...` in `folder`.
    fn terraform_refresh_with(&self, folder: &str, extra: &[&str]) {
        let mut args = vec![
            "apply",
            "-refresh-only",
            "-auto-approve",
            "-input=false",
            "-no-color",
        ];
        args.extend_from_slice(extra);
        run(&mut self.terraform_command(folder, &args));
    }

    /// The provider processes of this stack still running (found by their `PYASYNC_REMOTE`).
    fn providers_running(&self) -> Vec<String> {
        let marker = format!(
            "PYASYNC_REMOTE={}",
            self.path().join("remote.json").display()
        );
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
            .filter(|entry| {
                std::fs::read(entry.path().join("environ")).is_ok_and(|environ| {
                    environ
                        .split(|&byte| byte == 0)
                        .any(|variable| variable == marker.as_bytes())
                })
            })
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect()
    }

    /// A copy of `work/` as `folder`, sharing its `.terraform`.
    /// `terraform apply -refresh-only` in a copy of the work folder named `oracle`, and statectl's
    /// refresh with `--write` in the work folder: the two states are the same bytes.
    fn writes_as_terraform_refreshes(&self, oracle: &str) {
        self.copy(oracle);
        self.terraform_refresh(oracle);
        let (code, stdout, stderr) = self.statectl("work", &["--write", "--backup", "-"]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert_eq!(
            String::from_utf8_lossy(&self.state_bytes("work")),
            String::from_utf8_lossy(&self.state_bytes(oracle))
        );
    }

    fn copy(&self, folder: &str) {
        let copy = self.path().join(folder);
        std::fs::create_dir_all(&copy).unwrap();
        for name in ["main.tf", ".terraform.lock.hcl", "terraform.tfstate"] {
            std::fs::copy(self.path().join("work").join(name), copy.join(name)).unwrap();
        }
        std::os::unix::fs::symlink(self.path().join("work/.terraform"), copy.join(".terraform"))
            .unwrap();
    }
}

fn job(state: &Value) -> &Value {
    &state["resources"][0]["instances"][0]
}

/// The job finishes creating: ready, with an endpoint, a token and every step done.
fn finish(job: &mut Value) {
    job["status"] = "ready".into();
    job["endpoint"] = "https://build.example:8443".into();
    job["token"] = "s3cret-token".into();
    job["steps"] = serde_json::json!([
        {"name": "provision", "state": "done"},
        {"name": "configure", "state": "done"}
    ]);
}

#[test]
fn refresh_through_a_protocol_6_plugin_writes_what_terraform_refresh_only_writes() {
    let Some(stack) = Stack::apply() else { return };
    let applied = stack.state("work");
    assert_eq!(job(&applied)["attributes"]["status"], "creating");
    assert_eq!(
        job(&applied)["attributes"]["steps"][0]["state"],
        "running",
        "{applied:#}"
    );
    stack.remote(finish);
    stack.copy("oracle");
    run(&mut stack.terraform_command(
        "oracle",
        &[
            "apply",
            "-refresh-only",
            "-auto-approve",
            "-input=false",
            "-no-color",
        ],
    ));
    let expected = stack.state_bytes("oracle");

    // The plan: read over protocol 6, exit 1, nothing written, the token masked.
    let before = stack.state_bytes("work");
    let (code, stdout, stderr) = stack.statectl("work", &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    crate::builder::assert_row(&stdout, &["pyasync_job.build", "reconciled (refreshed)"]);
    assert_contains(&stdout, "+    \"status\": \"ready\",");
    assert_contains(&stdout, "+        \"state\": \"done\"");
    assert!(!stdout.contains("s3cret-token") && !stderr.contains("s3cret-token"));
    assert_eq!(stack.state_bytes("work"), before);

    // Written: the very bytes Terraform wrote (serial + 1 on both sides, the same lineage).
    let (code, stdout, stderr) = stack.statectl("work", &["--write", "--backup", "-"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let written = stack.state_bytes("work");
    assert_eq!(
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&expected)
    );
    let written = stack.state("work");
    assert_eq!(written["serial"], applied["serial"].as_u64().unwrap() + 1);
    assert_eq!(written["lineage"], applied["lineage"]);
    assert_eq!(job(&written)["attributes"]["steps"][1]["state"], "done");
    // The mark from the configuration's sensitive variable survives beside the schema's.
    assert_eq!(
        job(&written)["sensitive_attributes"],
        serde_json::json!([
            [{"type": "get_attr", "value": "name"}],
            [{"type": "get_attr", "value": "token"}]
        ])
    );

    // Ready now, so no longer stale; deleted behind Terraform's back, a targeted read finds it gone.
    let (code, stdout, stderr) = stack.statectl("work", &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    std::fs::write(stack.path().join("remote.json"), "{}").unwrap();
    let (code, stdout, stderr) = stack.statectl("work", &["--target", "pyasync_job.build"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    crate::builder::assert_row(&stdout, &["pyasync_job.build", "gone"]);
}

/// Identities: the first one ReadResource returns, and one stored under an older identity schema
/// version (upgraded through UpgradeResourceIdentity before the read), each written byte for byte as
/// `terraform apply -refresh-only` writes it.
#[test]
fn identities_are_read_and_upgraded_as_terraform_does() {
    let Some(stack) = Stack::apply_with_identity(Some(0)) else {
        return;
    };
    assert!(job(&stack.state("work")).get("identity").is_none());

    // The provider returns the object's first identity (version 0) from ReadResource.
    stack.writes_as_terraform_refreshes("oracle0");
    let stored = stack.state("work");
    assert_eq!(
        job(&stored)["identity"],
        serde_json::json!({"job": "job-build"})
    );
    assert_eq!(job(&stored)["identity_schema_version"], 0);

    // A provider upgrade moves the identity schema to version 1; the job finishes meanwhile.
    stack.identity_version.set(Some(1));
    stack.remote(finish);
    std::fs::remove_dir_all(stack.path().join("oracle0")).unwrap();
    stack.writes_as_terraform_refreshes("oracle1");
    let upgraded = stack.state("work");
    assert_eq!(
        job(&upgraded)["identity"],
        serde_json::json!({"id": "job-build", "origin": "upgraded from 0"})
    );
    assert_eq!(job(&upgraded)["identity_schema_version"], 1);
    assert_eq!(job(&upgraded)["attributes"]["status"], "ready");

    // An identity from a newer provider than the one installed is refused, nothing written.
    stack.identity_version.set(Some(0));
    let before = stack.state_bytes("work");
    let (code, stdout, stderr) =
        stack.statectl("work", &["--target", "pyasync_job.build", "--write"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains(
            "its identity was stored by a newer provider version (identity schema version 1, this provider's is 0)"
        ),
        "{stdout}{stderr}"
    );
    assert_eq!(stack.state_bytes("work"), before);
}

/// The provider block's `region = var.region`, evaluated as Terraform does: `*.auto.tfvars` over
/// `terraform.tfvars` over `TF_VAR_region` over the default, and `-var` over them all. The provider
/// copies the region it was configured with into the job, so the refreshed state shows which value
/// the refresh used, and it must be the bytes `terraform apply -refresh-only` writes.
#[test]
fn provider_block_variables_configure_the_provider_as_terraform_does() {
    let Some(stack) = Stack::apply() else { return };
    assert_eq!(
        job(&stack.state("work"))["attributes"]["region"],
        "default-region"
    );
    stack.remote(finish);
    stack
        .env
        .borrow_mut()
        .push(("TF_VAR_region".into(), "from-env".into()));
    let tfvars = |folder: &str| {
        let folder = stack.path().join(folder);
        std::fs::write(
            folder.join("terraform.tfvars"),
            "region = \"from-tfvars\"\n",
        )
        .unwrap();
        std::fs::write(folder.join("b.auto.tfvars"), "region = \"from-auto\"\n").unwrap();
    };
    tfvars("work");
    // Terraform refreshes a copy of `work`, statectl `work` itself, each given `var` (NAME=VALUE) on
    // the command line if any: the same bytes, the job's region `expected`.
    let both_refresh = |var: Option<&str>, expected: &str| {
        let _ = std::fs::remove_dir_all(stack.path().join("oracle"));
        stack.copy("oracle");
        tfvars("oracle");
        let mut args = vec!["--target", "pyasync_job.build", "--write", "--backup", "-"];
        if let Some(var) = var {
            stack.terraform_refresh_with("oracle", &["-var", var]);
            args.extend(["--var", var]);
        } else {
            stack.terraform_refresh("oracle");
        }
        let (code, stdout, stderr) = stack.statectl("work", &args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert_eq!(
            String::from_utf8_lossy(&stack.state_bytes("work")),
            String::from_utf8_lossy(&stack.state_bytes("oracle"))
        );
        assert_eq!(job(&stack.state("work"))["attributes"]["region"], expected);
    };
    both_refresh(None, "from-auto");
    // The command line beats every file and the environment.
    both_refresh(Some("region=from-flag"), "from-flag");
}

/// `statectl refresh --reader plugin --target pyasync_job.build --write` with the provider
/// misbehaving as `PYASYNC_MISBEHAVE` says: the one instance's error detail, after checking exit 2,
/// the state's bytes, the lock, and that no provider process outlived the run.
fn misbehaving(stack: &Stack, misbehaviour: &str, extra: &[&str]) -> String {
    stack
        .env
        .borrow_mut()
        .retain(|(key, _)| key != "PYASYNC_MISBEHAVE");
    stack
        .env
        .borrow_mut()
        .push(("PYASYNC_MISBEHAVE".into(), misbehaviour.into()));
    let before = stack.state_bytes("work");
    let mut args = vec![
        "--target",
        "pyasync_job.build",
        "--write",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = stack.statectl("work", &args);
    assert_eq!(code, 2, "{misbehaviour}: {stdout}{stderr}");
    assert_eq!(stack.state_bytes("work"), before, "{misbehaviour}");
    assert!(
        !stack
            .path()
            .join("work/.terraform.tfstate.lock.info")
            .exists()
    );
    assert_eq!(
        stack.providers_running(),
        Vec::<String>::new(),
        "{misbehaviour}"
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let instances = report["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 1, "{stdout}");
    assert_eq!(instances[0]["outcome"], "error", "{stdout}");
    instances[0]["detail"].as_str().unwrap().to_owned()
}

/// A protocol-6 provider that hangs before the first read (its schema never comes), answers a read
/// with a value its own schema refuses, or answers with an error diagnostic: each one clear error
/// for the instance, exit 2, nothing written, no provider process left.
#[test]
fn a_provider_that_hangs_at_start_or_answers_badly_is_one_clear_error() {
    let Some(stack) = Stack::apply() else { return };
    stack.remote(finish);

    let started = std::time::Instant::now();
    let detail = misbehaving(&stack, "schema-hang", &["--start-timeout", "2s"]);
    assert!(
        detail.ends_with("did not answer GetProviderSchema within 2s (--start-timeout)"),
        "{detail}"
    );
    assert_contains(&detail, "plugin `terraform-provider-pyasync_v1.0.0`");
    // Bounded by the deadline, not by the provider's hour-long sleep.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));

    let detail = misbehaving(&stack, "bad-value", &[]);
    assert!(
        detail.contains("cannot decode the provider's answer") && detail.contains("`status`"),
        "{detail}"
    );

    let detail = misbehaving(&stack, "read-error", &[]);
    assert!(
        detail.contains("the job API refused the request")
            && detail.contains("HTTP 403: the token has expired"),
        "{detail}"
    );
}

/// `TF_DATA_DIR` moves Terraform's data directory, the installed providers with it: statectl looks
/// there, as Terraform does (and, without the variable, says where it looked instead).
#[test]
fn the_provider_is_found_in_the_data_directory_tf_data_dir_names() {
    let Some(stack) = Stack::apply() else { return };
    stack.remote(finish);
    let work = stack.path().join("work");
    std::fs::rename(work.join(".terraform"), work.join("tfdata")).unwrap();
    let (code, stdout, stderr) = stack.statectl(
        "work",
        &["--target", "pyasync_job.build", "--format", "json"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_contains(&stderr, ".terraform/providers`");

    stack
        .env
        .borrow_mut()
        .push(("TF_DATA_DIR".into(), "tfdata".into()));
    let oracle = stack.path().join("oracle");
    std::fs::create_dir(&oracle).unwrap();
    for name in ["main.tf", ".terraform.lock.hcl", "terraform.tfstate"] {
        std::fs::copy(work.join(name), oracle.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(work.join("tfdata"), oracle.join("tfdata")).unwrap();
    stack.terraform_refresh("oracle");
    let (code, stdout, stderr) = stack.statectl("work", &["--write", "--backup", "-"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&stack.state_bytes("work")),
        String::from_utf8_lossy(&stack.state_bytes("oracle"))
    );
}

/// The state's bytes and modification time: what a read-only command must leave as it found.
fn untouched(stack: &Stack) -> (Vec<u8>, std::time::SystemTime) {
    let path = stack.path().join("work/terraform.tfstate");
    (
        std::fs::read(&path).unwrap(),
        std::fs::metadata(&path).unwrap().modified().unwrap(),
    )
}

/// `statectl drift` over protocol 6: nothing changed is exit 0; changes only the provider makes
/// (computed-only attributes) are noise, counted, unless `--all-changes`, and then they are
/// exactly the paths Terraform's refresh-only plan reports in `resource_drift`; a value changed
/// outside (the configured `name`, sensitive in the configuration) is drift, masked; a deleted
/// object is gone; a provider that fails a read is exit 2. The state's bytes and modification time
/// never change, with or without `--lock`.
#[test]
fn drift_over_protocol_6_reports_what_terraform_refresh_only_reports() {
    let Some(stack) = Stack::apply() else { return };
    let before = untouched(&stack);

    let (code, stdout, stderr) = stack.drift("work", &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_contains(&stdout, "1 instance read; no drift");

    // The job finishes: only computed-only attributes change.
    stack.remote(finish);
    let (code, stdout, stderr) = stack.drift("work", &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_contains(&stdout, "no drift\nignored by `computed-only`: 5 changes\n");
    let (code, stdout, stderr) = stack.drift("work", &["--all-changes", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(!stdout.contains("s3cret-token") && !stderr.contains("s3cret-token"));
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let terraform = crate::drift_oracle::terraform_drift(
        |args| stack.terraform_command("work", args),
        &stack.path().join("work"),
    );
    assert_eq!(crate::drift_oracle::statectl_drift(&report), terraform);
    assert_eq!(
        report["resource_drift"][0]["change"]["after"]["token"], "(sensitive value)",
        "{stdout}"
    );

    // The name changed outside Terraform: drift, its value masked as the configuration marks it.
    stack.remote(|job| job["name"] = "renamed-secret".into());
    let (code, stdout, stderr) = stack.drift("work", &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        stdout.lines().take(2).collect::<Vec<_>>(),
        [
            "~ pyasync_job.build",
            "    name: \"(sensitive value)\" -> \"(sensitive value)\""
        ],
        "{stdout}"
    );
    assert!(!stdout.contains("renamed-secret") && !stderr.contains("renamed-secret"));
    // The shared report formats: one finding, the value masked in each.
    for format in ["sarif", "github", "gitlab", "junit", "markdown"] {
        let (code, stdout, stderr) = stack.drift("work", &["--format", format]);
        assert_eq!(code, 1, "{format}: {stdout}{stderr}");
        assert_contains(&stdout, "drift-changed");
        assert_contains(&stdout, "changed outside Terraform: name");
        assert!(!stdout.contains("renamed-secret"), "{format}: {stdout}");
        if format == "sarif" {
            let document: Value = serde_json::from_str(&stdout).unwrap();
            crate::sarif_schema::validate_sarif(&document).unwrap();
        }
    }
    let (code, _, _) = stack.drift("work", &["--ignore", "pyasync_*.name"]);
    assert_eq!(code, 0);
    // The same from `.statectl.toml`, whose reason the report repeats beside the count.
    let settings = stack.path().join("work/.statectl.toml");
    std::fs::write(
        &settings,
        "[[drift.ignore]]\nattribute = \"pyasync_job.name\"\nreason = \"the scheduler renames jobs\"\n",
    )
    .unwrap();
    let (code, stdout, stderr) = stack.drift("work", &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_contains(
        &stdout,
        "ignored by `pyasync_job.name`: 1 change (the scheduler renames jobs)\n",
    );
    std::fs::remove_file(settings).unwrap();

    // A read that fails is never "no drift".
    stack
        .env
        .borrow_mut()
        .push(("PYASYNC_MISBEHAVE".into(), "read-error".into()));
    let (code, stdout, stderr) = stack.drift("work", &["--lock"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_contains(&stdout, "! pyasync_job.build: not read");
    assert_contains(&stderr, "the job API refused the request");
    stack.env.borrow_mut().clear();

    // Deleted outside Terraform: gone, under the lock this time.
    std::fs::write(stack.path().join("remote.json"), "{}").unwrap();
    let (code, stdout, stderr) = stack.drift("work", &["--lock", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["resource_drift"][0]["change"]["actions"],
        serde_json::json!(["delete"])
    );
    assert_eq!(report["resource_drift"][0]["change"]["after"], Value::Null);
    assert!(
        !stack
            .path()
            .join("work/.terraform.tfstate.lock.info")
            .exists()
    );
    assert_eq!(untouched(&stack), before, "drift never writes the state");
    assert_eq!(stack.providers_running(), Vec::<String>::new());
}

/// A stored `sensitive_attributes` list holding a path drift cannot follow (an index of 0.5, which
/// Terraform reads) beside the configuration's mark on `name`: the list read as no secrets, and the
/// report showed the job's name in clear. Now `name` stays masked and `steps`, which the odd path
/// reached, is masked whole, in a change and in an object gone.
#[test]
fn drift_masks_what_an_unfollowable_sensitive_path_reached() {
    let Some(stack) = Stack::apply() else { return };
    let path = stack.path().join("work/terraform.tfstate");
    let mut state = stack.state("work");
    let instance = &mut state["resources"][0]["instances"][0];
    assert_eq!(instance["attributes"]["name"], "build");
    instance["sensitive_attributes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!([
            {"type": "get_attr", "value": "steps"},
            {"type": "index", "value": {"value": 0.5, "type": "number"}}
        ]));
    std::fs::write(&path, serde_json::to_string_pretty(&state).unwrap()).unwrap();
    stack.remote(|job| job["name"] = "renamed-secretly".into());
    let (code, stdout, stderr) = stack.drift("work", &["--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    // A state named directly has no workspace to name.
    assert_eq!(report["resource_drift"][0]["workspace"], Value::Null);
    assert_eq!(report["states"][0]["workspace"], Value::Null);
    let change = &report["resource_drift"][0]["change"];
    for side in ["before", "after"] {
        assert_eq!(
            change[side]["name"], "(sensitive value)",
            "{side}: {stdout}"
        );
        assert_eq!(
            change[side]["steps"], "(sensitive value)",
            "{side}: {stdout}"
        );
    }
    assert!(
        !stdout.contains("renamed-secretly") && !stdout.contains("provision"),
        "{stdout}"
    );

    std::fs::write(stack.path().join("remote.json"), "{}").unwrap();
    let (code, stdout, stderr) = stack.drift("work", &["--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let before = &report["resource_drift"][0]["change"]["before"];
    assert_eq!(before["name"], "(sensitive value)", "{stdout}");
    assert_eq!(before["steps"], "(sensitive value)", "{stdout}");
}

/// The state on a remote backend (the http backend, on loopback): `statectl drift URL` only ever
/// GETs it; with `--lock` it locks and unlocks, and still writes nothing.
#[test]
fn drift_reads_a_remote_state_and_never_writes_or_locks_it_unasked() {
    let Some(stack) = Stack::apply() else { return };
    let state = stack.path().join("work/terraform.tfstate");
    let server = crate::http_backend::Server::start_with(&[
        std::ffi::OsStr::new("--state"),
        state.as_os_str(),
    ]);
    let url = server.url();
    stack.remote(|job| job["name"] = "renamed".into());
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let methods = || -> Vec<String> {
        let (status, body) = crate::simulator::control(port, "GET", "/_sim/log", b"");
        assert_eq!(status, 200);
        let log: Value = serde_json::from_slice(&body).unwrap();
        log.as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                format!(
                    "{} {}",
                    entry["method"].as_str().unwrap(),
                    entry["target"].as_str().unwrap()
                )
            })
            .collect()
    };
    let drift = |extra: &[&str]| {
        let mut command = crate::http_backend::statectl_for(&url);
        command
            .args(["drift", &url, "--config", "."])
            .args(extra)
            .current_dir(stack.path().join("work"));
        stack.environment(&mut command);
        crate::processes::output_of(&mut command)
    };
    let (code, stdout, stderr) = drift(&[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_contains(&stdout, "~ pyasync_job.build\n");
    assert_eq!(methods(), ["GET /state"]);
    let (code, stdout, stderr) = drift(&["--lock"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        methods(),
        [
            "GET /state",
            "LOCK /state/lock",
            "GET /state",
            "UNLOCK /state/lock"
        ]
    );
    assert_eq!(server.lock(), None);
}

/// Several states in one run, one report: two working directories (each read with its own
/// configuration's providers), two state files of one configuration (its provider started once for
/// both), and a state that cannot be read among them (reported, the others still checked, exit 2).
#[test]
fn drift_checks_many_states_in_one_run() {
    let Some(stack) = Stack::apply() else { return };
    stack.copy("second");
    stack.remote(|job| job["name"] = "renamed".into());

    let (code, stdout, stderr) = stack.drift_in("", &["work", "second", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["summary"]["states"], 2, "{stdout}");
    assert_eq!(report["summary"]["changed"], 2, "{stdout}");
    let states: Vec<&str> = crate::builder::strings_of(&report["resource_drift"], "state");
    assert_eq!(
        states,
        ["work/terraform.tfstate", "second/terraform.tfstate"]
    );

    let (code, stdout, stderr) = stack.drift_in(
        "",
        &[
            "--config",
            "work",
            "work/terraform.tfstate",
            "second/terraform.tfstate",
            "-vv",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(stdout.matches("~ pyasync_job.build").count(), 2, "{stdout}");
    assert_eq!(
        stderr.matches("plugin started").count(),
        1,
        "one provider process for both states: {stderr}"
    );

    let (code, stdout, stderr) = stack.drift_in(
        "",
        &[
            "--config",
            "work",
            "work/terraform.tfstate",
            "missing.tfstate",
        ],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_contains(&stdout, "~ pyasync_job.build\n");
    assert_contains(
        &stdout,
        "missing.tfstate: not checked (see the error below)\n",
    );
    assert_contains(&stderr, "error: missing.tfstate");
}

/// `--workspace GLOB` over the local backend's workspaces (the folders of `terraform.tfstate.d`,
/// as `terraform workspace list` lists them): the glob chooses the workspaces checked, in one run
/// and one report that names each one, the provider started once for all of them; a glob that
/// matches none is one line with the workspaces found; no state is written, none locked.
/// `drift --workspace GLOB --lock` keeps a local workspace's lock while its provider reads:
/// Terraform itself cannot lock that workspace meanwhile. Reading the locked file through a second
/// handle would have dropped the lock (POSIX drops it when any handle of the file closes).
#[test]
fn drift_holds_a_local_workspaces_lock_while_its_provider_reads() {
    let Some(stack) = Stack::apply() else { return };
    let work = stack.path().join("work");
    let state = work.join("terraform.tfstate.d/prod-a/terraform.tfstate");
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    std::fs::write(&state, stack.state("work").to_string()).unwrap();
    let before = std::fs::read(&state).unwrap();
    let remote = stack.path().join("remote.json").display().to_string();
    let (reading, go) = (
        PathBuf::from(format!("{remote}.reading")),
        PathBuf::from(format!("{remote}.go")),
    );
    stack
        .env
        .borrow_mut()
        .push(("PYASYNC_MISBEHAVE".into(), "read-wait".into()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
    command
        .args(["drift", "--config", ".", "--workspace", "prod-*", "--lock"])
        .current_dir(&work)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    stack.environment(&mut command);
    let drift = command.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !reading.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let taint = reading.exists().then(|| {
        let mut taint =
            stack.terraform_command("work", &["taint", "-no-color", "pyasync_job.build"]);
        taint.env("TF_WORKSPACE", "prod-a").output().unwrap()
    });
    std::fs::write(&go, "").unwrap();
    let drift = drift.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&drift.stdout),
        String::from_utf8_lossy(&drift.stderr),
    );
    let taint = taint.unwrap_or_else(|| panic!("the provider never read: {stdout}{stderr}"));
    let refused = String::from_utf8_lossy(&taint.stderr);
    assert!(
        !taint.status.success(),
        "Terraform locked the workspace statectl held: {refused}"
    );
    assert_contains(&refused, "Error acquiring the state lock");
    assert_eq!(drift.status.code(), Some(0), "{stdout}{stderr}");
    assert_contains(
        &stdout,
        "(workspace \"prod-a\"): 1 instance read; no drift\n",
    );
    assert_eq!(
        std::fs::read(&state).unwrap(),
        before,
        "nothing wrote the state"
    );
}

#[test]
fn drift_checks_the_workspaces_a_glob_chooses() {
    let Some(stack) = Stack::apply() else { return };
    let work = stack.path().join("work");
    for workspace in ["dev", "prod-a", "prod-b"] {
        let folder = work.join("terraform.tfstate.d").join(workspace);
        std::fs::create_dir_all(&folder).unwrap();
        let mut state = stack.state("work");
        if workspace == "prod-b" {
            // Stored otherwise than the remote object now is: this workspace drifted.
            state["resources"][0]["instances"][0]["attributes"]["name"] = "old-name".into();
        }
        std::fs::write(folder.join("terraform.tfstate"), state.to_string()).unwrap();
    }
    let listed = run(&mut stack.terraform_command("work", &["workspace", "list", "-no-color"]));
    let names: Vec<&str> = listed
        .lines()
        .map(|line| line.trim_start_matches('*').trim())
        .filter(|line| !line.is_empty())
        .collect();
    assert_eq!(names, ["default", "dev", "prod-a", "prod-b"], "{listed}");
    let states = [
        "terraform.tfstate",
        "terraform.tfstate.d/dev/terraform.tfstate",
        "terraform.tfstate.d/prod-a/terraform.tfstate",
        "terraform.tfstate.d/prod-b/terraform.tfstate",
    ];
    let untouched = || -> Vec<(Vec<u8>, std::time::SystemTime)> {
        states
            .iter()
            .map(|state| {
                let path = work.join(state);
                (
                    std::fs::read(&path).unwrap(),
                    std::fs::metadata(&path).unwrap().modified().unwrap(),
                )
            })
            .collect()
    };
    let before = untouched();

    let (code, stdout, stderr) = stack.drift("work", &["--workspace", "prod-*", "-vv"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_contains(
        &stdout,
        "terraform.tfstate.d/prod-a/terraform.tfstate (workspace \"prod-a\"): 1 instance read; no drift\n",
    );
    assert_contains(
        &stdout,
        "terraform.tfstate.d/prod-b/terraform.tfstate (workspace \"prod-b\"): 1 instance read; 1 changed, 0 gone\n",
    );
    assert!(
        !stdout.contains("dev") && !stdout.contains("old-name"),
        "{stdout}"
    );
    assert_eq!(
        stderr.matches("plugin started").count(),
        1,
        "one provider process for both workspaces: {stderr}"
    );

    let (code, stdout, stderr) = stack.drift("work", &["--workspace", "*", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["summary"]["states"], 4, "{stdout}");
    assert_eq!(report["summary"]["changed"], 1, "{stdout}");
    assert_eq!(
        crate::builder::strings_of(&report["resource_drift"], "state"),
        ["terraform.tfstate.d/prod-b/terraform.tfstate (workspace \"prod-b\")"]
    );
    // Each state and entry names its workspace apart, for tools.
    assert_eq!(report["resource_drift"][0]["workspace"], "prod-b");
    assert_eq!(
        crate::builder::strings_of(&report["states"], "workspace"),
        ["default", "dev", "prod-a", "prod-b"]
    );

    let (code, stdout, stderr) = stack.drift("work", &["--workspace", "stage-*"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(
        stderr,
        "error: `--workspace stage-*` matches no workspace of backend \"local\"\nhint: the workspaces there: default, dev, prod-a, prod-b\n"
    );

    // A name without a glob keeps its meaning: that workspace's state alone, named as before.
    let (code, stdout, stderr) = stack.drift("work", &["--workspace", "prod-b"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_contains(
        &stdout,
        "terraform.tfstate.d/prod-b/terraform.tfstate: 1 instance read; 1 changed, 0 gone\n",
    );

    assert_eq!(
        untouched(),
        before,
        "drift never writes a workspace's state"
    );
    assert!(!work.join(".terraform.tfstate.lock.info").exists());
    assert_eq!(stack.providers_running(), Vec::<String>::new());
}

/// `--workspace GLOB` over HCP Terraform's workspaces (`statectl-sim tfe`, a `cloud` block
/// selecting by tags): the tags choose two of three workspaces, each read through the one provider
/// process, one drifted; the report names each workspace, exit 1; no state version written, no
/// lock asked for, the token in no output.
#[test]
fn drift_checks_the_hcp_workspaces_a_glob_chooses() {
    use crate::hcp_backend::{TOKEN, Tfe};
    let Some(stack) = Stack::apply() else { return };
    let mut states = Vec::new();
    for workspace in ["app-a", "app-b", "db"] {
        let mut state = stack.state("work");
        if workspace == "app-b" {
            // Stored otherwise than the remote object now is: this workspace drifted.
            state["resources"][0]["instances"][0]["attributes"]["name"] = "old-name".into();
        }
        let file = stack.path().join(format!("{workspace}.tfstate"));
        std::fs::write(&file, state.to_string()).unwrap();
        states.push(format!("{workspace}={}", file.display()));
    }
    let tfe = Tfe::start(&[
        "--workspace",
        "app-a:app",
        "--workspace",
        "app-b:app",
        "--workspace",
        "db:db",
        "--state",
        &states[0],
        "--state",
        &states[1],
        "--state",
        &states[2],
    ]);
    // The token in the stack's CLI configuration (TF_CLI_CONFIG_FILE), the simulator's CA trusted.
    let cli_config = stack.path().join("cli.tfrc");
    let text = format!(
        "{}\ncredentials \"{}\" {{\n  token = \"{TOKEN}\"\n}}\n",
        std::fs::read_to_string(&cli_config).unwrap(),
        tfe.host()
    );
    std::fs::write(&cli_config, text).unwrap();
    stack
        .env
        .borrow_mut()
        .push(("SSL_CERT_FILE".to_owned(), tfe.ca().display().to_string()));
    std::fs::write(
        stack.path().join("work/.terraform/terraform.tfstate"),
        serde_json::json!({"version": 3, "backend": {"type": "cloud", "hash": 1, "config": {
            "hostname": tfe.host(), "organization": "acme", "token": null,
            "workspaces": {"name": null, "project": null, "tags": ["app"]}}}})
        .to_string(),
    )
    .unwrap();
    let at = |name: &str| {
        format!(
            "https://{}/app/acme/workspaces/{name} (workspace \"{name}\")",
            tfe.host()
        )
    };

    let (code, stdout, stderr) = stack.drift("work", &["--workspace", "*", "-vv"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_contains(
        &stdout,
        &format!("{}: 1 instance read; no drift\n", at("app-a")),
    );
    assert_contains(
        &stdout,
        &format!("{}: 1 instance read; 1 changed, 0 gone\n", at("app-b")),
    );
    assert!(!stdout.contains("workspaces/db"), "{stdout}");
    assert_eq!(
        stderr.matches("plugin started").count(),
        1,
        "one provider process for both workspaces: {stderr}"
    );
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));

    let (code, stdout, stderr) = stack.drift("work", &["--workspace", "app-*", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["summary"]["states"], 2, "{stdout}");
    assert_eq!(
        crate::builder::strings_of(&report["resource_drift"], "state"),
        [at("app-b")]
    );

    for workspace in ["app-a", "app-b", "db"] {
        assert_eq!(
            tfe.versions(workspace).len(),
            1,
            "drift never writes a state version"
        );
    }
    assert_eq!(tfe.count("POST", "actions/lock"), 0);
    assert_eq!(stack.providers_running(), Vec::<String>::new());
}
