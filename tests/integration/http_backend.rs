//! The http backend end to end, with real Terraform 1.15.5 as the other client: a `backend "http"`
//! configured as GitLab's managed state is (POST to lock, DELETE to unlock, basic auth with the
//! password in TF_HTTP_PASSWORD) against `statectl-sim http-backend` on loopback. Terraform writes
//! the state, statectl lists it as `terraform state list` does (in the directory and by URL), taints
//! through the backend so that Terraform sees the taint, and each tool is refused, naming the other,
//! while the other holds the lock.

use std::io::Write;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::builder::Test;
use crate::oracle::terraform;
use crate::simulator;
use crate::workdir::{assert_refused_by_statectl_lock, cancel_statectl_lock};

pub(crate) const USERNAME: &str = "gitlab-ci-token";
pub(crate) const PASSWORD: &str = "glpat-e2e-s3cret";

/// A running `statectl-sim http-backend` with basic auth, stopped on drop.
pub(crate) struct Server {
    server: simulator::Server,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// Starts the server with `extra` arguments (`--state FILE` to serve one from the start).
    pub(crate) fn start_with(extra: &[&std::ffi::OsStr]) -> Server {
        let args = [
            "http-backend",
            "--username",
            USERNAME,
            "--password",
            PASSWORD,
        ];
        let args = args
            .iter()
            .map(std::ffi::OsStr::new)
            .chain(extra.iter().copied());
        Server {
            server: simulator::start(args),
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("{}/state", self.server.url())
    }

    /// The lock info the server holds for the state, if any (`/_sim/lock`, no auth).
    pub(crate) fn lock(&self) -> Option<String> {
        let port = self.server.address().port();
        let (status, body) = simulator::control(port, "GET", "/_sim/lock?path=/state", b"");
        (status == 200).then(|| String::from_utf8(body).unwrap())
    }

    /// Waits until the lock is taken (`true`) or free (`false`).
    fn wait_for_lock(&self, taken: bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.lock().is_some() != taken {
            assert!(
                Instant::now() < deadline,
                "the lock was never {}",
                if taken { "taken" } else { "released" }
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A directory with a `backend "http"` block for `server` (no password: it comes from
/// TF_HTTP_PASSWORD), initialised and applied by Terraform.
fn applied(terraform: &Path, server: &Server) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let url = server.url();
    std::fs::write(
        folder.path().join("main.tf"),
        format!(
            r#"terraform {{
  backend "http" {{
    address        = "{url}"
    lock_address   = "{url}/lock"
    unlock_address = "{url}/lock"
    lock_method    = "POST"
    unlock_method  = "DELETE"
    username       = "{USERNAME}"
  }}
}}
resource "terraform_data" "app" {{
  input = "app"
}}
resource "terraform_data" "db" {{
  count = 2
  input = "db-${{count.index}}"
}}
"#
        ),
    )
    .unwrap();
    for args in [
        &["init", "-input=false"][..],
        &["apply", "-auto-approve", "-input=false"],
    ] {
        let output = run_terraform(terraform, folder.path(), args);
        assert!(
            output.status.success(),
            "terraform {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    folder
}

fn terraform_command(terraform: &Path, folder: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(terraform);
    command
        .args(args)
        .current_dir(folder)
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .env("CHECKPOINT_DISABLE", "1")
        .env("TF_IN_AUTOMATION", "1")
        .env_remove("TF_WORKSPACE")
        .env_remove("TF_DATA_DIR");
    command
}

fn run_terraform(terraform: &Path, folder: &Path, args: &[&str]) -> Output {
    terraform_command(terraform, folder, args)
        .stdin(Stdio::null())
        .output()
        .expect("terraform runs")
}

fn statectl(folder: &Path) -> Test {
    Test::new()
        .current_dir(folder)
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .env("USER", "statectl-e2e")
}

fn state_list(terraform: &Path, folder: &Path) -> String {
    let output = run_terraform(terraform, folder, &["state", "list"]);
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

fn state_show(terraform: &Path, folder: &Path, address: &str) -> String {
    let output = run_terraform(terraform, folder, &["state", "show", "-no-color", address]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// `terraform apply` with a change to make, stopped at its approval prompt: it holds the lock until
/// its stdin says something.
fn apply_waiting_at_the_prompt(terraform: &Path, folder: &Path) -> (Child, ChildStdin) {
    let mut child = terraform_command(
        terraform,
        folder,
        &["apply", "-no-color", "-replace=terraform_data.db[1]"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .expect("terraform runs");
    let stdin = child.stdin.take().unwrap();
    (child, stdin)
}

#[test]
fn terraform_writes_and_statectl_lists_and_taints_through_the_http_backend() {
    let Some(terraform) = terraform() else { return };
    let server = Server::start();
    let folder = applied(&terraform, &server);
    let folder = folder.path();
    let expected = state_list(&terraform, folder);
    assert_eq!(
        expected,
        "terraform_data.app\nterraform_data.db[0]\nterraform_data.db[1]\n"
    );

    // In the initialised directory: the backend Terraform recorded, the password from the
    // environment, and a note naming the state without it.
    let listed = statectl(folder).arg("list").run().code(0).stdout(&expected);
    assert!(listed.stderr.contains(&server.url()), "{}", listed.stderr);
    assert!(!listed.stderr.contains(PASSWORD));

    // By URL, with the credentials from TF_HTTP_*.
    Test::new()
        .args(["list", &server.url()])
        .env("TF_HTTP_USERNAME", USERNAME)
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .run()
        .code(0)
        .stdout(&expected);

    statectl(folder)
        .args(["taint", "terraform_data.app"])
        .run()
        .code(0);
    assert!(
        state_show(&terraform, folder, "terraform_data.app")
            .starts_with("# terraform_data.app: (tainted)"),
    );
    assert!(!state_show(&terraform, folder, "terraform_data.db[0]").contains("(tainted)"));
    assert_eq!(server.lock(), None, "statectl released the lock");
    let backups: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("state.") && name.ends_with(".backup"))
        .collect();
    assert_eq!(
        backups.len(),
        1,
        "one local backup of the old state: {backups:?}"
    );
    let plan = run_terraform(&terraform, folder, &["plan", "-no-color", "-input=false"]);
    assert!(
        String::from_utf8_lossy(&plan.stdout)
            .contains("terraform_data.app is tainted, so must be replaced"),
        "{}",
        String::from_utf8_lossy(&plan.stdout)
    );
}

#[test]
fn statectl_names_terraforms_lock_and_waits_for_it_with_lock_timeout() {
    let Some(terraform) = terraform() else { return };
    let server = Server::start();
    let folder = applied(&terraform, &server);
    let folder = folder.path();
    let (mut apply, mut answer) = apply_waiting_at_the_prompt(&terraform, folder);
    server.wait_for_lock(true);

    let refused = statectl(folder)
        .args(["taint", "terraform_data.app"])
        .run()
        .code(2);
    assert!(
        refused
            .stderr
            .contains(&format!("{}: the state is locked by `", server.url()))
            && refused
                .stderr
                .contains("(Terraform 1.15.5, operation `OperationTypeApply`, since "),
        "{}",
        refused.stderr
    );
    assert!(!state_show(&terraform, folder, "terraform_data.app").contains("(tainted)"));

    // Waiting: the taint goes through once the apply is answered `no` and lets the lock go.
    let waiting = std::thread::spawn({
        let folder = folder.to_owned();
        move || {
            statectl(&folder)
                .args(["taint", "terraform_data.app", "--lock-timeout", "30s"])
                .run()
        }
    });
    std::thread::sleep(Duration::from_millis(700));
    answer.write_all(b"no\n").unwrap();
    drop(answer);
    let _ = apply.wait();
    waiting.join().unwrap().code(0);
    assert!(
        state_show(&terraform, folder, "terraform_data.app")
            .starts_with("# terraform_data.app: (tainted)")
    );
    assert_eq!(server.lock(), None);
}

#[test]
fn terraform_is_refused_naming_statectl_while_statectl_lock_holds_it() {
    let Some(terraform) = terraform() else { return };
    let server = Server::start();
    let folder = applied(&terraform, &server);
    let folder = folder.path();
    let holder = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["lock", "--", "sleep", "30"])
        // Its own process group, as a CI job is: the cancel reaches the command too.
        .process_group(0)
        .current_dir(folder)
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .env("USER", "statectl-e2e")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("statectl starts");
    server.wait_for_lock(true);

    let output = run_terraform(
        &terraform,
        folder,
        &[
            "apply",
            "-auto-approve",
            "-input=false",
            "-no-color",
            "-lock-timeout=0s",
            "-replace=terraform_data.app",
        ],
    );
    assert_refused_by_statectl_lock(&output);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("Version:   statectl "),
        "{output:?}"
    );

    // Interrupted, `statectl lock` lets the lock go before it ends.
    cancel_statectl_lock(holder);
    server.wait_for_lock(false);
}
