//! The contract every backend's end-to-end test runs: a Terraform working folder whose state lives
//! in a remote backend, driven by both Terraform and statectl. The round trip each backend proves
//! the same way (the listing equals `terraform state list`, a taint Terraform plans from, a second
//! workspace, each tool refused or waiting while the other holds the lock) and the prefix scan are
//! here; a backend's test gives its server, its backend block (kind and settings), the environment
//! both tools get and what its lock looks like, and keeps only what is its own.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::builder::{Output, Test, assert_contains, assert_lacks};
use crate::processes::assert_success;

/// The resources of the round trips that need three instances, one of them alone: what
/// [`TerraformWorkdir::init_and_apply_resources`] takes.
pub(crate) const APP_AND_DBS: &str = r#"resource "terraform_data" "app" {
  input = "app"
}
resource "terraform_data" "db" {
  count = 2
  input = "db-${count.index}"
}
"#;

pub(crate) trait TerraformWorkdir {
    /// The working folder (`main.tf`, `.terraform/`).
    fn path(&self) -> &Path;

    /// The Terraform binary.
    fn terraform_binary(&self) -> &Path;

    /// The environment both tools get: the emulator's credentials, and a home of its own.
    fn environment(&self) -> Vec<(&'static str, String)>;

    /// Variables of the test's own environment that Terraform must not see (a developer's real
    /// credentials, say).
    fn hidden_from_terraform(&self) -> &'static [&'static str] {
        &[]
    }

    fn terraform_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(self.terraform_binary());
        command
            .args(args)
            .current_dir(self.path())
            .env_remove("TF_WORKSPACE");
        for name in self.hidden_from_terraform() {
            command.env_remove(name);
        }
        command.envs(self.environment());
        command
    }

    /// Writes `main.tf` (the backend block given, then two `terraform_data` instances), and has
    /// Terraform init and apply it.
    fn init_and_apply(&self, backend_block: &str) {
        self.init_and_apply_resources(
            backend_block,
            "resource \"terraform_data\" \"web\" {\n  count = 2\n  input = \"v${count.index}\"\n}\n",
        );
    }

    /// [`TerraformWorkdir::init_and_apply_resources`] with [`APP_AND_DBS`] and a `backend "KIND"`
    /// block whose settings (name, then value) are all strings: a backend's whole description.
    fn init_and_apply_backend(&self, kind: &str, settings: &[[&str; 2]]) {
        use std::fmt::Write as _;
        let mut block = format!("  backend \"{kind}\" {{\n");
        for [name, value] in settings {
            writeln!(block, "    {name} = \"{value}\"").unwrap();
        }
        block.push_str("  }\n");
        self.init_and_apply_resources(&block, APP_AND_DBS);
    }

    /// [`TerraformWorkdir::init_and_apply`] with `resources` of the test's own.
    fn init_and_apply_resources(&self, backend_block: &str, resources: &str) {
        std::fs::write(
            self.path().join("main.tf"),
            format!("terraform {{\n{backend_block}}}\n\n{resources}"),
        )
        .unwrap();
        self.terraform(&["init", "-input=false", "-no-color"]);
        self.terraform(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    }

    /// Runs Terraform; it must succeed. Returns stdout and stderr.
    fn terraform(&self, args: &[&str]) -> String {
        crate::oracle::run(&mut self.terraform_command(args))
    }

    /// Runs Terraform with no input, whatever its status.
    fn terraform_output(&self, args: &[&str]) -> std::process::Output {
        self.terraform_command(args)
            .stdin(Stdio::null())
            .output()
            .expect("terraform runs")
    }

    /// Runs Terraform with no input; it must succeed. Returns its stdout alone.
    fn terraform_stdout(&self, args: &[&str]) -> String {
        let output = self.terraform_output(args);
        assert!(
            output.status.success(),
            "terraform {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    fn statectl(&self, args: &[&str]) -> Output {
        let mut test = Test::new().args(args).current_dir(self.path());
        for (name, value) in self.environment() {
            test = test.env(name, value);
        }
        test.run()
    }

    /// statectl here with the environment both tools get, as user `statectl-e2e`.
    fn statectl_test(&self) -> Test {
        let mut test = Test::new().current_dir(self.path());
        for (name, value) in self.environment() {
            test = test.env(name, value);
        }
        test.env("USER", "statectl-e2e")
    }

    /// `statectl lock -- sleep 30` here as user `statectl-e2e`, in its own process group as a CI
    /// job is (the cancel reaches the command too), its stderr kept for [`cancel_statectl_lock`].
    fn statectl_lock_holder(&self) -> Child {
        self.statectl_command(&["lock", "--", "sleep", "30"])
            .process_group(0)
            .env("USER", "statectl-e2e")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("statectl starts")
    }

    /// `terraform apply -replace=ADDRESS` without waiting for the lock, which statectl holds: it is
    /// refused naming statectl ([`assert_refused_by_statectl_lock`]). Returns what it printed.
    fn terraform_refused_by_statectl_lock(&self, address: &str) -> std::process::Output {
        let output = self.terraform_output(&[
            "apply",
            "-auto-approve",
            "-input=false",
            "-no-color",
            "-lock-timeout=0s",
            &format!("-replace={address}"),
        ]);
        assert_refused_by_statectl_lock(&output);
        output
    }

    fn statectl_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
        command
            .args(args)
            .current_dir(self.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(self.environment());
        command
    }

    /// `statectl list` here equals `terraform state list`; a taint is seen by Terraform, which
    /// then plans the replacement from the state.
    fn list_taint_plan(&self, address: &str) {
        let listed = self.statectl(&["list"]).code(0);
        assert_eq!(listed.stdout, self.terraform(&["state", "list"]));
        self.statectl(&["taint", address]).code(0);
        let shown = self.terraform(&["state", "show", "-no-color", address]);
        assert_contains(&shown, &format!("# {address}: (tainted)"));
        let plan = self.terraform(&["plan", "-input=false", "-no-color"]);
        assert_contains(&plan, "must be replaced");
    }

    /// `terraform apply -replace=ADDRESS`, stopped at its approval prompt: it holds the lock until
    /// its stdin says something.
    fn apply_waiting_at_the_prompt(&self, address: &str) -> (Child, ChildStdin) {
        let mut child = self
            .terraform_command(&["apply", "-no-color", &format!("-replace={address}")])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("terraform runs");
        let stdin = child.stdin.take().unwrap();
        (child, stdin)
    }

    /// While Terraform waits at its approval prompt holding the lock, statectl's write is refused
    /// naming Terraform; with `--lock-timeout` it waits, and succeeds once Terraform lets go.
    /// Returns the refusal, for what a backend adds to it (the lock ID's form).
    fn waits_for_terraforms_lock(&self, address: &str) -> Output {
        let (refused, output) = self.write_against_terraforms_lock(&[], &["taint", address]);
        assert_success(&output);
        let shown = self.terraform(&["state", "show", "-no-color", address]);
        assert_contains(&shown, "(tainted)");
        refused
    }

    /// Runs `terraform apply APPLY…` to its approval prompt (where it holds the lock), and statectl's
    /// write `ARGS` meanwhile: refused at once naming Terraform, then with `--lock-timeout 60s`
    /// waiting while Terraform is told no. Returns the refusal and what the waiting write did.
    fn write_against_terraforms_lock(
        &self,
        apply: &[&str],
        args: &[&str],
    ) -> (Output, std::process::Output) {
        let mut apply = self
            .terraform_command(&[&["apply", "-no-color"], apply].concat())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = apply.stdin.take().unwrap();
        wait_for_text(&mut apply, "Enter a value");
        let refused = self
            .statectl(args)
            .code(2)
            .stderr_contains("the state is locked by")
            .stderr_contains("Terraform 1.15.5, operation `OperationTypeApply`");
        let waiting = self
            .statectl_command(&[args, &["--lock-timeout", "60s"]].concat())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        stdin.write_all(b"no\n").unwrap();
        drop(stdin);
        let _ = apply.wait();
        (refused, waiting.wait_with_output().unwrap())
    }

    /// A second workspace `dev`, applied by Terraform into its own state (which `dev_state_exists`
    /// finds on the server): statectl follows `.terraform/environment` to it for the list, taint
    /// and plan round trip, and the default workspace's state is untouched by the dev one's taint
    /// (after [`TerraformWorkdir::list_taint_plan`] tainted `terraform_data.web[0]` there).
    fn second_workspace_round_trip(&self, dev_state_exists: impl FnOnce() -> bool) {
        self.terraform(&["workspace", "new", "-no-color", "dev"]);
        self.terraform(&["apply", "-auto-approve", "-input=false", "-no-color"]);
        assert!(
            dev_state_exists(),
            "Terraform wrote the dev workspace's state"
        );
        self.list_taint_plan("terraform_data.web[1]");
        self.statectl(&["list", "--workspace", "default"])
            .code(0)
            .stdout("terraform_data.web[0]\nterraform_data.web[1]\n");
    }

    /// While `statectl lock` holds the lock, Terraform cannot take it and names statectl; the lock
    /// is released when the command ends.
    fn terraform_is_refused_while_statectl_holds_it(&self) {
        let mut held = self
            .statectl_command(&["lock", "--", "sh", "-c", "echo locked; sleep 4"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_text(&mut held, "locked");
        let output = self
            .terraform_command(&[
                "apply",
                "-auto-approve",
                "-input=false",
                "-no-color",
                "-lock-timeout=0s",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success());
        assert_contains(&text, "Error acquiring the state lock");
        assert_contains(&text, "statectl lock");
        assert!(held.wait().unwrap().success());
    }
}

/// A backend's working folder with the harness given as values: Terraform, the environment both
/// tools get, the variables of the test's own environment Terraform must not see. A backend whose
/// emulator owns no folder needs nothing more than this and its backend block.
pub(crate) struct Workdir {
    folder: tempfile::TempDir,
    /// A home of the folder's own, where the environment points into one; kept as long as it is.
    _home: Option<tempfile::TempDir>,
    terraform: PathBuf,
    environment: Vec<(&'static str, String)>,
    hidden: &'static [&'static str],
}

impl Workdir {
    /// An empty folder; `environment` is told its path, for the variables that point into it.
    pub(crate) fn new(
        terraform: &Path,
        environment: impl FnOnce(&Path) -> Vec<(&'static str, String)>,
        hidden: &'static [&'static str],
    ) -> Workdir {
        let folder = tempfile::tempdir().unwrap();
        Workdir {
            environment: environment(folder.path()),
            folder,
            _home: None,
            terraform: terraform.to_owned(),
            hidden,
        }
    }

    /// [`Workdir::new`] with a home folder apart from the working folder (the tools' own files,
    /// outside what they read as configuration): `environment` is told its path.
    pub(crate) fn with_home(
        terraform: &Path,
        hidden: &'static [&'static str],
        environment: impl FnOnce(&Path) -> Vec<(&'static str, String)>,
    ) -> Workdir {
        let home = tempfile::tempdir().unwrap();
        let workdir = Workdir::new(terraform, |_| environment(home.path()), hidden);
        Workdir {
            _home: Some(home),
            ..workdir
        }
    }
}

impl TerraformWorkdir for Workdir {
    fn path(&self) -> &Path {
        self.folder.path()
    }

    fn terraform_binary(&self) -> &Path {
        &self.terraform
    }

    fn environment(&self) -> Vec<(&'static str, String)> {
        self.environment.clone()
    }

    fn hidden_from_terraform(&self) -> &'static [&'static str] {
        self.hidden
    }
}

/// A backend's [`Workdir`] beside the server its state lives on (an emulator, the simulator):
/// both tools reach `server`, which is stopped when this goes. Derefs to the workdir, so a test
/// calls the round trips of [`TerraformWorkdir`] on it directly.
pub(crate) struct Served<S> {
    pub(crate) server: S,
    workdir: Workdir,
}

impl<S> Served<S> {
    pub(crate) fn new(server: S, workdir: Workdir) -> Served<S> {
        Served { server, workdir }
    }
}

impl<S> std::ops::Deref for Served<S> {
    type Target = Workdir;

    fn deref(&self) -> &Workdir {
        &self.workdir
    }
}

/// The `path` of each state a `scan --format json` report lists, in its order: what a prefix
/// scan of each backend is checked by.
pub(crate) fn scanned_states(report: &str) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_str(report).unwrap();
    report["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|state| state["path"].as_str().unwrap().to_owned())
        .collect()
}

/// The prefix scan every backend gives. `all`, a scan of a prefix with one object in it that is
/// not a state, exits 2, names `names` in order and its stderr starts with `header`; `chosen`, the
/// scan narrowed by `--include`/`--exclude` to one state (at `chosen_path`, where given), exits 1
/// and reports that state's `tainted-after-timeout` finding.
pub(crate) fn assert_prefix_scan(
    all: &Output,
    names: &[&str],
    header: &str,
    chosen: &Output,
    chosen_path: Option<&str>,
) {
    assert_eq!(all.code, 2, "an object that is not a state: {}", all.stderr);
    assert_eq!(scanned_states(&all.stdout), names);
    crate::builder::assert_starts_with(&all.stderr, header);
    assert_eq!(chosen.code, 1, "{}", chosen.stderr);
    let report: serde_json::Value = serde_json::from_str(&chosen.stdout).unwrap();
    assert_eq!(report["summary"]["states"], 1);
    if let Some(path) = chosen_path {
        assert_eq!(report["states"][0]["path"], path);
    }
    crate::builder::find_by(
        &report["states"][0]["findings"],
        "rule",
        "tainted-after-timeout",
    );
}

/// Reads `child`'s stdout until it holds `text` (within 60 s); the rest is left unread.
pub(crate) fn wait_for_text(child: &mut Child, text: &str) {
    let stdout = child.stdout.take().unwrap();
    let seen = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut stdout = stdout;
        let mut chunk = [0u8; 4096];
        // Whatever has arrived, line or not: the prompt has no newline after it.
        while let Ok(read @ 1..) = stdout.read(&mut chunk) {
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..read]));
        }
    });
    let started = Instant::now();
    while !seen.lock().unwrap().contains(text) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no {text:?} in {}",
            seen.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The name a lock info gives the user running the tests: the account of the uid, as Go's
/// `user.Current()` and `id -un` read it, whatever `$USER` says.
pub(crate) fn account_name() -> String {
    let id = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&id.stdout).trim().to_owned()
}

/// Terraform's refusal while `statectl lock` holds the lock: its lock info names statectl and the
/// user who ran it, as Go's `user.Current()` names the account (`id -un`), whatever `$USER` says.
pub(crate) fn assert_refused_by_statectl_lock(output: &std::process::Output) {
    let account = account_name();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_contains(&stderr, "Error acquiring the state lock");
    assert_contains(&stderr, "Operation: statectl lock");
    assert_contains(&stderr, &format!("Who:       {account}@"));
}

/// Cancels `statectl lock -- COMMAND` as a CI job's cancel does (SIGTERM to its process group) and
/// waits for it to end; it must not have left the lock held.
pub(crate) fn cancel_statectl_lock(mut holder: Child) {
    rustix::process::kill_process_group(
        rustix::process::Pid::from_child(&holder),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let _ = holder.wait();
    let mut stderr = String::new();
    holder
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_lacks(&stderr, "still held");
}
