//! The README's refresh demo, run as written: the simulator block and the command block are read from
//! README.md and run by bash in the repository root, so the documented demo cannot drift from the
//! binary and the demo files. Only three things are substituted: `cargo run ... --` by the binaries
//! this test run built (the same code, without a nested build per line), the port by a free one, and
//! `/tmp/demo.tfstate` by a file in a temporary folder.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::builder::{root, sim_binary};

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

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_readme_refresh_demo_works_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let demo_state = folder.path().join("demo.tfstate");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let substitute = |text: &str| {
        text.replace(
            "cargo run -p statectl-sim --",
            &sim_binary().display().to_string(),
        )
        .replace(
            "cargo run --bin statectl --",
            env!("CARGO_BIN_EXE_statectl"),
        )
        .replace("127.0.0.1:8787", &format!("127.0.0.1:{port}"))
        .replace("/tmp/demo.tfstate", &demo_state.display().to_string())
    };

    let simulator = block_after(&readme, "<!-- readme-demo:simulator");
    assert_eq!(simulator.lines().count(), 1, "one command: {simulator}");
    assert!(simulator.contains("127.0.0.1:8787"), "{simulator}");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec {}", substitute(simulator.trim())))
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let sim = Killed(child);
    assert_eq!(line.trim(), format!("listening on http://127.0.0.1:{port}"));

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
    let orders_db = state["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|resource| resource["name"] == "orders_db")
        .unwrap();
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
