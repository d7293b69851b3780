//! The README's refresh demo, run as written: the simulator block and the command block are read from
//! README.md and run by bash in the repository root, so the documented demo cannot drift from the
//! binary and the demo files. The simulator's line is started in-process with the arguments it
//! gives (`cargo run -p statectl-sim --` is the library's binary, the same code); in the commands,
//! `cargo run ... --` becomes the statectl this test run built, the port the one the simulator got,
//! and `/tmp/demo.tfstate` a file in a temporary folder.

use std::path::Path;
use std::process::Command;

use crate::builder::{find_by, root};
use crate::simulator;

/// The first ```sh block after the line holding `marker`.
fn block_after(readme: &str, marker: &str) -> String {
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("README.md has no `{marker}`"));
    let rest = &readme[start..];
    let open = rest
        .find("```sh\n")
        .expect("a ```sh block follows the marker")
        + "```sh\n".len();
    let close = rest[open..].find("```").expect("the block closes");
    rest[open..open + close].to_owned()
}

#[test]
fn the_readme_refresh_demo_works_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let demo_state = folder.path().join("demo.tfstate");

    let simulator = block_after(&readme, "<!-- readme-demo:simulator");
    assert_eq!(simulator.lines().count(), 1, "one command: {simulator}");
    let args = simulator
        .trim()
        .strip_prefix("cargo run -p statectl-sim -- ")
        .unwrap_or_else(|| panic!("the simulator is run by cargo: {simulator}"));
    assert!(args.contains("--listen 127.0.0.1:8787"), "{simulator}");
    // Any free port instead of 8787, which another program may hold.
    let args = args.replace("127.0.0.1:8787", "127.0.0.1:0");
    // The README's paths are relative to the repository root, where the commands run.
    let sim = simulator::start(args.split_whitespace().map(|arg| {
        if arg.contains('/') {
            root().join(arg).into_os_string()
        } else {
            arg.into()
        }
    }));
    let port = sim.address().port();
    let substitute = |text: &str| {
        text.replace(
            "cargo run --bin statectl --",
            env!("CARGO_BIN_EXE_statectl"),
        )
        .replace("127.0.0.1:8787", &format!("127.0.0.1:{port}"))
        .replace("/tmp/demo.tfstate", &demo_state.display().to_string())
    };

    // Each command line is followed by a marker line on stderr with its exit code; the comment
    // `# exit N` on a line is what the README promises.
    let commands = block_after(&readme, "<!-- readme-demo:commands");
    let mut script = String::from("cd \"$1\"\n");
    let mut promised = Vec::new();
    for line in commands.lines().filter(|line| !line.trim().is_empty()) {
        script.push_str(&substitute(line));
        script.push_str("\necho \"demo-exit $?\" >&2\n");
        let code = line
            .split_once("# exit ")
            .map(|(_, rest)| rest[..1].parse::<i32>().expect("a digit after `# exit `"));
        promised.push((line.to_owned(), code));
    }
    let output = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .arg("demo")
        .arg(root())
        .env_remove("CF_ACCESS_TOKEN")
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let codes: Vec<i32> = stderr
        .lines()
        .filter_map(|line| line.strip_prefix("demo-exit "))
        .map(|code| code.parse().unwrap())
        .collect();
    assert_eq!(codes.len(), promised.len(), "{stderr}");
    for ((line, promise), code) in promised.iter().zip(&codes) {
        match promise {
            Some(promise) => assert_eq!(code, promise, "`{line}`\n{stdout}\n{stderr}"),
            None => assert_eq!(*code, 0, "`{line}`\n{stdout}\n{stderr}"),
        }
    }
    assert!(
        promised.iter().filter(|(_, code)| code.is_some()).count() >= 3,
        "the README says what its commands exit with"
    );

    // What the demo claims: the plan showed the reconciled instance, and the state now says the
    // operation succeeded, untainted.
    let row = [
        "cloudfoundry_service_instance.orders_db",
        "reconciled (succeeded)",
    ];
    assert!(crate::builder::has_row(&stdout, &row), "{stdout}");
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&demo_state).unwrap()).unwrap();
    let orders_db = find_by(&state["resources"], "name", "orders_db");
    let instance = &orders_db["instances"][0];
    assert_eq!(
        instance["attributes"]["last_operation"]["state"],
        "succeeded"
    );
    assert!(instance.get("status").is_none(), "untainted: {instance}");
    assert_eq!(state["serial"], 5, "two writes on serial 3");
    drop(sim);
    assert!(Path::new(&demo_state).is_file());
}
