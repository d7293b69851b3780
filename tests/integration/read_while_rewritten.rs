//! A local state rewritten in place while a reading command reads it (Terraform's local backend
//! truncates and writes its state, during an apply too): the command cannot vouch for what it read,
//! so it ends with one error and exit 2, and writes nothing. Here the rewrite keeps the length (no
//! truncation, so no SIGBUS for the mapping's guard to catch): only the file's times tell.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::rewrite_crash::generated_state;

#[test]
fn a_state_rewritten_in_place_while_listed_ends_with_one_error_and_exit_2() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    // About 21 MB: mapped (past 4 MiB), and a debug build lists it in about a second.
    let old = generated_state(40_000);
    std::fs::write(&path, &old).unwrap();
    let stderr_path = folder.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .arg("list")
        .arg(&path)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    // Once statectl has the file mapped, it has taken its stamp: rewrite it in place then.
    let maps = format!("/proc/{}/maps", child.id());
    let deadline = Instant::now() + Duration::from_secs(20);
    let shown = path.display().to_string();
    while !std::fs::read_to_string(&maps).is_ok_and(|text| text.contains(&shown)) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "statectl ended before it mapped the state"
        );
        assert!(Instant::now() < deadline, "statectl never mapped the state");
        std::thread::sleep(Duration::from_millis(1));
    }
    let new = old.replacen("\"serial\": 1", "\"serial\": 2", 1);
    let at = old.find("\"serial\": 1").unwrap() + "\"serial\": ".len();
    std::os::unix::fs::FileExt::write_at(
        &std::fs::OpenOptions::new().write(true).open(&path).unwrap(),
        b"2",
        at as u64,
    )
    .unwrap();
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: {shown}: the state file was rewritten while statectl read it"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: run the command again once the other process is done"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), new);
}
