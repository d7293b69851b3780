//! `refresh --write` of a remote state: the state is read from an http backend (the simulator, as
//! GitLab serves it), the provider is asked without the lock, then the backend's lock is taken, the
//! state re-read and compared, the refreshed state written with `?ID=`, and the lock released.

use std::ffi::OsStr;

use serde_json::Value;

use crate::builder::{Test, assert_contains, root};
use crate::files::file_names;
use crate::http_backend::{PASSWORD, Server, USERNAME};
use crate::refresh::{CF_SCENARIO, Sim};

fn served_state(server: &Server) -> Value {
    let output = Test::new()
        .args([
            "show",
            "cloudfoundry_service_instance.orders_db",
            "--format",
            "json",
        ])
        .arg(server.url())
        .backend_config(format!("username={USERNAME}"))
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .run()
        .code(0);
    serde_json::from_str(&output.stdout).unwrap()
}

#[test]
fn refresh_write_reads_asks_then_locks_compares_and_writes_through_the_backend() {
    let folder = tempfile::tempdir().unwrap();
    let fixture = root().join("testdata/scan/cf-tainted-in-progress.tfstate");
    let server = Server::start_with(&[OsStr::new("--state"), fixture.as_os_str()]);
    let sim = Sim::start(folder.path(), CF_SCENARIO);
    assert_eq!(
        served_state(&server)["attributes"]["last_operation"]["state"],
        "in progress"
    );
    let lock_address = format!("lock_address={}/lock", server.url());
    let unlock_address = format!("unlock_address={}/lock", server.url());
    let output = Test::new()
        .current_dir(folder.path())
        .args(["refresh", "--write", "--timeout", "30s"])
        .args(["--endpoint", &format!("cf={}", sim.url())])
        .arg(server.url())
        .backend_config(format!("username={USERNAME}"))
        .backend_config(&lock_address)
        .backend_config(&unlock_address)
        .backend_config("lock_method=POST")
        .backend_config("unlock_method=DELETE")
        .env("TF_HTTP_PASSWORD", PASSWORD)
        .env("CF_ACCESS_TOKEN", "bearer t0ken")
        .run()
        .code(0);
    assert!(
        crate::builder::has_row(
            &output.stdout,
            &[
                "cloudfoundry_service_instance.orders_db",
                "reconciled (succeeded)"
            ]
        ),
        "{}",
        output.stdout
    );
    assert!(!output.stderr.contains(PASSWORD) && !output.stdout.contains(PASSWORD));
    let before: Value = serde_json::from_slice(&std::fs::read(&fixture).unwrap()).unwrap();
    let serial = before["serial"].as_u64().unwrap();
    assert_contains(
        &output.stderr,
        &format!("serial {serial} -> {}", serial + 1),
    );
    assert_eq!(
        served_state(&server)["attributes"]["last_operation"]["state"],
        "succeeded"
    );
    assert_eq!(server.lock(), None, "the lock is released");
    // The old remote bytes, in the working directory, named after the address's last segment.
    let backups: Vec<_> = file_names(folder.path())
        .into_iter()
        .filter(|name| name.starts_with("state.") && name.ends_with(".backup"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(
        std::fs::read(folder.path().join(&backups[0])).unwrap(),
        std::fs::read(&fixture).unwrap()
    );
}
