//! The GitHub Action (`action.yml`) run outside GitHub: its steps' scripts (`ci/github/*.sh`) with a
//! fake runner's environment (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_PATH`, `RUNNER_TEMP`
//! in a temporary folder), the real statectl on the PATH and a fake `cargo` that records how it was
//! asked to install. The upload step is GitHub's own action; what it uploads is checked against the
//! SARIF schema.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::builder::{assert_contains, assert_lacks, assert_starts_with, root};
use crate::files::write_script;

/// A fake runner: a folder for the files GitHub gives a step.
struct Runner {
    folder: tempfile::TempDir,
}

struct Step {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Runner {
    fn new() -> Runner {
        let folder = tempfile::tempdir().unwrap();
        for file in ["output", "summary", "path"] {
            std::fs::write(folder.path().join(file), "").unwrap();
        }
        Runner { folder }
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.folder.path().join(name)).unwrap()
    }

    /// Runs `ci/github/SCRIPT` as the action's step does: the inputs in the environment, the
    /// repository as the working directory, statectl (or a fake cargo) first on the PATH.
    /// [`Runner::step`] with the statectl this build made first on `PATH`.
    fn step_with_statectl(&self, script: &str, env: &[(&str, &str)]) -> Step {
        self.step(script, env, &statectl_folder())
    }

    fn step(&self, script: &str, env: &[(&str, &str)], path_first: &Path) -> Step {
        let path = format!(
            "{}:{}",
            path_first.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let output = Command::new("bash")
            .arg(root().join("ci/github").join(script))
            .current_dir(root())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.folder.path())
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", root())
            .env("GITHUB_OUTPUT", self.folder.path().join("output"))
            .env("GITHUB_STEP_SUMMARY", self.folder.path().join("summary"))
            .env("GITHUB_PATH", self.folder.path().join("path"))
            .env("RUNNER_TEMP", self.folder.path())
            .envs(env.iter().copied())
            .output()
            .unwrap();
        Step {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// The step's outputs, `name=value` lines.
    fn outputs(&self) -> Vec<(String, String)> {
        self.file("output")
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    }

    fn output(&self, name: &str) -> Option<String> {
        self.outputs()
            .into_iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }
}

fn statectl_folder() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_statectl"))
        .parent()
        .unwrap()
        .to_owned()
}

#[test]
fn the_scan_step_uploads_sarif_summarizes_annotates_and_reports_the_exit_code() {
    let runner = Runner::new();
    let step = runner.step_with_statectl(
        "scan.sh",
        &[
            (
                "STATECTL_STATES",
                "testdata/scan/oci-async-provisioning.tfstate\ntestdata/scan/clean.tfstate",
            ),
            ("STATECTL_FAIL_ON", "warning"),
            ("STATECTL_ARGS", ""),
            ("STATECTL_SUMMARY", "true"),
            ("STATECTL_ANNOTATIONS", "true"),
        ],
    );
    // The step itself succeeds, so the SARIF is uploaded; the exit code goes to the last step.
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(runner.output("exit-code").as_deref(), Some("1"));
    let sarif_file = runner.output("sarif-file").unwrap();
    assert_eq!(
        Path::new(&sarif_file),
        runner.folder.path().join("statectl.sarif")
    );
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_file).unwrap()).unwrap();
    assert_eq!(crate::sarif_schema::validate_sarif(&sarif), Ok(()));
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "testdata/scan/oci-async-provisioning.tfstate"
    );
    assert_eq!(
        sarif["runs"][0]["results"].as_array().unwrap().len(),
        2,
        "{sarif:#}"
    );
    // The job summary: the Markdown report, findings first, the clean state on one line.
    let summary = runner.file("summary");
    assert_starts_with(
        &summary,
        "## statectl scan\n\n**2 findings: 2 warnings, in 1 of 2 states (1 clean)**\n",
    );
    assert_contains(
        &summary,
        "**1 state with no findings**: `testdata/scan/clean.tfstate`",
    );
    // The log: one annotation per finding, on the state file's line.
    let annotations: Vec<&str> = step
        .stdout
        .lines()
        .filter(|line| line.starts_with("::"))
        .collect();
    assert_eq!(annotations.len(), 2, "{}", step.stdout);
    assert_starts_with(
        annotations[0],
        "::warning file=testdata/scan/oci-async-provisioning.tfstate,line=14,col=9,title=statectl transitional-state%3A oci_core_instance.app::",
    );

    // The last step fails the job on that exit code, and says why.
    let verdict = runner.step_with_statectl(
        "verdict.sh",
        &[("STATECTL_EXIT_CODE", "1"), ("STATECTL_FAIL_ON", "warning")],
    );
    assert_eq!(verdict.code, 1);
    assert_eq!(
        verdict.stdout,
        "::error title=statectl::findings reached --fail-on warning: see the job summary and code scanning\n"
    );
}

#[test]
fn fail_on_never_passes_and_options_reach_statectl() {
    let runner = Runner::new();
    let step = runner.step_with_statectl(
        "scan.sh",
        &[
            ("STATECTL_STATES", "testdata/scan"),
            ("STATECTL_FAIL_ON", "never"),
            ("STATECTL_ARGS", "--include **/real/* --jobs 2"),
            ("STATECTL_SUMMARY", "false"),
            ("STATECTL_ANNOTATIONS", "false"),
        ],
    );
    // `--include` is for prefix URLs only: statectl refuses it for a folder, and the step reports
    // exit 2 (an argument statectl could not use), proving the arguments reached it.
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(runner.output("exit-code").as_deref(), Some("2"));
    assert_contains(
        &step.stderr,
        "`--include` and `--exclude` choose keys below a prefix URL",
    );
    assert_eq!(runner.file("summary"), "", "no summary when it is off");
    assert_lacks(&step.stdout, "::warning");

    let runner = Runner::new();
    let step = runner.step_with_statectl(
        "scan.sh",
        &[
            ("STATECTL_STATES", "testdata/scan"),
            ("STATECTL_FAIL_ON", "never"),
            ("STATECTL_ARGS", "--jobs 2"),
        ],
    );
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(runner.output("exit-code").as_deref(), Some("0"));
    let verdict = runner.step_with_statectl(
        "verdict.sh",
        &[("STATECTL_EXIT_CODE", "0"), ("STATECTL_FAIL_ON", "never")],
    );
    assert_eq!(
        (verdict.code, verdict.stdout.as_str()),
        (0, "statectl: no finding reached --fail-on never\n")
    );
}

#[test]
fn a_bad_input_fails_the_step_with_one_annotation() {
    let runner = Runner::new();
    let step =
        runner.step_with_statectl("scan.sh", &[("STATECTL_FAIL_ON", "sometimes%0A::error::x")]);
    assert_eq!(step.code, 2);
    assert_eq!(
        step.stdout,
        "::error title=statectl::fail-on must be error, warning, note or never, not `sometimes%250A::error::x`\n"
    );
    assert!(runner.outputs().is_empty());
    let verdict = runner.step_with_statectl("verdict.sh", &[]);
    assert_eq!(verdict.code, 2, "no exit code: the scan did not finish");
}

/// A `cargo` that records its arguments instead of building, and installs a stand-in statectl.
fn fake_cargo(folder: &Path) -> PathBuf {
    let bin = folder.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let cargo = bin.join("cargo");
    write_script(
        &cargo,
        "#!/usr/bin/env bash\necho \"$@\" >>\"$HOME/cargo-calls\"\nmkdir -p \"$HOME/.cargo/bin\"\nprintf '#!/bin/sh\\necho statectl 9.9.9\\n' >\"$HOME/.cargo/bin/statectl\"\nchmod +x \"$HOME/.cargo/bin/statectl\"\n",
    );
    bin
}

#[test]
fn the_install_step_builds_the_checkout_or_the_version_asked_for() {
    let runner = Runner::new();
    let bin = fake_cargo(runner.folder.path());
    let step = runner.step("install.sh", &[("STATECTL_VERSION", "")], &bin);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    let step = runner.step("install.sh", &[("STATECTL_VERSION", "0.1.0")], &bin);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.stdout, "statectl 9.9.9\n");
    assert_eq!(
        runner.file("cargo-calls"),
        format!(
            "install --locked --path {}\ninstall --locked statectl --version 0.1.0\n",
            root().display()
        )
    );
    let cargo_bin = runner.folder.path().join(".cargo/bin");
    assert_eq!(
        runner.file("path"),
        format!("{0}\n{0}\n", cargo_bin.display())
    );
    // A version that is not one is refused before cargo runs.
    let step = runner.step(
        "install.sh",
        &[("STATECTL_VERSION", "1.0 --git https://evil")],
        &bin,
    );
    assert_eq!(step.code, 2);
    assert!(
        step.stdout
            .starts_with("::error title=statectl::version must be a version number")
    );
    assert_eq!(runner.file("cargo-calls").lines().count(), 2);
}

/// The action's text: every step runs a script that exists and is executable, every input it
/// uses is declared, and the scripts read exactly the variables the action sets.
#[test]
fn the_action_runs_the_tested_scripts_with_its_declared_inputs() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    assert!(action.contains("\n  using: composite\n"));
    let declared = crate::ci_gitlab::keys_at(section(&action, "inputs:"), "  ");
    assert_eq!(
        declared,
        [
            "states",
            "fail-on",
            "args",
            "version",
            "upload-sarif",
            "sarif-category",
            "summary",
            "annotations"
        ]
    );
    for used in action.split("inputs.").skip(1) {
        let name: String = used
            .chars()
            .take_while(|character| character.is_alphanumeric() || *character == '-')
            .collect();
        assert!(declared.contains(&name.as_str()), "undeclared input {name}");
    }
    let scripts: Vec<&str> = action
        .split("\"$GITHUB_ACTION_PATH/")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(
        scripts,
        [
            "ci/github/install.sh",
            "ci/github/scan.sh",
            "ci/github/verdict.sh"
        ]
    );
    for script in scripts {
        let path = root().join(script);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert!(mode & 0o111 != 0, "{script} is not executable");
        let text = std::fs::read_to_string(&path).unwrap();
        for variable in text.split("STATECTL_").skip(1) {
            let name: String = variable
                .chars()
                .take_while(|character| character.is_ascii_uppercase() || *character == '_')
                .collect();
            if name == "BIN" {
                continue; // the tests' own override
            }
            assert!(
                action.contains(&format!("STATECTL_{name}: ${{{{ ")),
                "{script} reads STATECTL_{name}, which the action does not set"
            );
        }
    }
    assert!(action.contains("uses: github/codeql-action/upload-sarif@"));
}

/// The lines of `text` after the line `heading` up to the next line that is not indented.
fn section<'t>(text: &'t str, heading: &str) -> &'t str {
    let start = text.find(&format!("\n{heading}\n")).unwrap() + heading.len() + 2;
    let rest = &text[start..];
    let end = rest.find("\n\n").map_or(rest.len(), |end| end + 1);
    &rest[..end]
}
