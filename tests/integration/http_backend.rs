//! The http backend end to end, with real Terraform 1.15.5 as the other client: a `backend "http"`
//! configured as GitLab's managed state is (POST to lock, DELETE to unlock, basic auth with the
//! password in TF_HTTP_PASSWORD) against `statectl-sim http-backend` on loopback. Terraform writes
//! the state, statectl lists it as `terraform state list` does (in the directory and by URL), taints
//! through the backend so that Terraform sees the taint, and each tool is refused, naming the other,
//! while the other holds the lock.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::builder::{Test, assert_contains};
use crate::files::file_names;
use crate::oracle::terraform;
use crate::simulator;
use crate::workdir::{Served, TerraformWorkdir, Workdir, cancel_statectl_lock};

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

/// The statectl binary with nothing of the user's environment but `PATH`, and the http backend's
/// settings for the state at `url` (credentials, lock and unlock addresses) as TF_HTTP_* variables.
pub(crate) fn statectl_for(url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TF_HTTP_USERNAME", USERNAME)
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .env("TF_HTTP_LOCK_ADDRESS", format!("{url}/lock"))
        .env("TF_HTTP_UNLOCK_ADDRESS", format!("{url}/lock"));
    command
}

/// A working folder with a `backend "http"` block for the server (no password: it comes from
/// TF_HTTP_PASSWORD, for both tools; statectl's lock names user `statectl-e2e`), initialised and
/// applied by Terraform.
fn applied() -> Option<Served<Server>> {
    let terraform = terraform()?;
    let server = Server::start();
    let workdir = Workdir::new(
        &terraform,
        |_| {
            vec![
                ("TF_HTTP_PASSWORD", PASSWORD.to_owned()),
                ("USER", "statectl-e2e".to_owned()),
                ("CHECKPOINT_DISABLE", "1".to_owned()),
                ("TF_IN_AUTOMATION", "1".to_owned()),
            ]
        },
        &["TF_DATA_DIR"],
    );
    let url = server.url();
    let lock = format!("{url}/lock");
    workdir.init_and_apply_backend(
        "http",
        &[
            ["address", &url],
            ["lock_address", &lock],
            ["unlock_address", &lock],
            ["lock_method", "POST"],
            ["unlock_method", "DELETE"],
            ["username", USERNAME],
        ],
    );
    Some(Served::new(server, workdir))
}

fn state_show(workdir: &Workdir, address: &str) -> String {
    workdir.terraform(&["state", "show", "-no-color", address])
}

fn statectl(folder: &Path) -> Test {
    Test::new()
        .current_dir(folder)
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .env("USER", "statectl-e2e")
}

#[test]
fn terraform_writes_and_statectl_lists_and_taints_through_the_http_backend() {
    let Some(workdir) = applied() else { return };
    let (server, folder) = (&workdir.server, workdir.path());
    let expected = workdir.terraform(&["state", "list"]);
    assert_eq!(
        expected,
        "terraform_data.app\nterraform_data.db[0]\nterraform_data.db[1]\n"
    );

    // In the initialised directory: the backend Terraform recorded, the password from the
    // environment, and a note naming the state without it.
    let listed = statectl(folder).arg("list").run().code(0).stdout(&expected);
    assert_contains(&listed.stderr, &server.url());
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
        state_show(&workdir, "terraform_data.app").starts_with("# terraform_data.app: (tainted)"),
    );
    assert!(!state_show(&workdir, "terraform_data.db[0]").contains("(tainted)"));
    assert_eq!(server.lock(), None, "statectl released the lock");
    let backups: Vec<String> = file_names(folder)
        .into_iter()
        .filter(|name| name.starts_with("state.") && name.ends_with(".backup"))
        .collect();
    assert_eq!(
        backups.len(),
        1,
        "one local backup of the old state: {backups:?}"
    );
    let plan = workdir.terraform(&["plan", "-no-color", "-input=false"]);
    assert_contains(&plan, "terraform_data.app is tainted, so must be replaced");
}

#[test]
fn statectl_names_terraforms_lock_and_waits_for_it_with_lock_timeout() {
    let Some(workdir) = applied() else { return };
    let (server, folder) = (&workdir.server, workdir.path());
    let (mut apply, mut answer) = workdir.apply_waiting_at_the_prompt("terraform_data.db[1]");
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
    assert!(!state_show(&workdir, "terraform_data.app").contains("(tainted)"));

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
        state_show(&workdir, "terraform_data.app").starts_with("# terraform_data.app: (tainted)")
    );
    assert_eq!(server.lock(), None);
}

#[test]
fn terraform_is_refused_naming_statectl_while_statectl_lock_holds_it() {
    let Some(workdir) = applied() else { return };
    let server = &workdir.server;
    let holder = workdir.statectl_lock_holder();
    server.wait_for_lock(true);

    let output = workdir.terraform_refused_by_statectl_lock("terraform_data.app");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("Version:   statectl "),
        "{output:?}"
    );

    // Interrupted, `statectl lock` lets the lock go before it ends.
    cancel_statectl_lock(holder);
    server.wait_for_lock(false);
}
