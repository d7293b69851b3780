//! Bad input: each case gets one clear error line naming the file and a place, exit 2, no panic, and
//! nothing written. Files that are something other than a state (encrypted, compressed, a plan, the
//! backend cache) live in `testdata/not-states/`, each named in its README with the outcome it gets.

use std::path::Path;

use crate::builder::{Test, assert_contains, root};
use crate::files::{folder_with, folder_with_state};

fn minimal_with_instances(instances: &str) -> String {
    format!(
        r#"{{"version": 4, "serial": 1, "lineage": "x", "resources": [{{"mode": "managed", "type": "t", "name": "n", "provider": "provider[\"registry.terraform.io/hashicorp/t\"]", "instances": [{instances}]}}]}}"#
    )
}

/// Runs `statectl list` on `bytes` written to a file in a fresh folder; checks the refusal, pins
/// its whole output (a snapshot named after the test) and that the folder holds nothing new
/// afterwards.
#[track_caller]
fn refused(bytes: &[u8], expected: &str) -> String {
    refused_as(bytes, expected, true)
}

#[track_caller]
fn refused_as(bytes: &[u8], expected: &str, pinned: bool) -> String {
    let (folder, path) = folder_with_state(bytes);
    let list = Test::new().arg("list").current_dir(folder.path());
    let output = if pinned {
        statectl_snapshot!(list)
    } else {
        list.run()
    };
    let output = output.refused(expected);
    assert!(
        output.stderr.starts_with("error: terraform.tfstate"),
        "the error names the file: {}",
        output.stderr
    );
    let entries: Vec<_> = std::fs::read_dir(folder.path()).unwrap().collect();
    assert_eq!(entries.len(), 1, "nothing written beside the state");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the state is untouched"
    );
    output.stderr
}

/// A refusal whose stderr is exactly `error: terraform.tfstate<line>` and the hint, if any.
#[track_caller]
fn refused_exactly(bytes: &[u8], line: &str, hint: Option<&str>) {
    let stderr = refused_as(bytes, line, false);
    assert_eq!(stderr, expected_stderr("terraform.tfstate", line, hint));
}

fn expected_stderr(file: &str, line: &str, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("error: {file}{line}\nhint: {hint}\n"),
        None => format!("error: {file}{line}\n"),
    }
}

/// Runs `statectl taint t.n` on `bytes` as `terraform.tfstate`: refused, the file untouched, and no
/// backup, lock or sidecar left beside it.
#[track_caller]
fn mutation_refused(bytes: &[u8], expected: &str) {
    let (folder, path) = folder_with_state(bytes);
    Test::new()
        .args(["taint", "t.n"])
        .current_dir(folder.path())
        .run()
        .refused(expected);
    assert_only_the_state(folder.path(), &path, bytes);
}

#[track_caller]
fn assert_only_the_state(folder: &Path, path: &Path, bytes: &[u8]) {
    let entries: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(
        entries.len(),
        1,
        "nothing written beside the state: {entries:?}"
    );
    assert_eq!(
        std::fs::read(path).unwrap(),
        bytes,
        "the state is untouched"
    );
}

/// `testdata/not-states/`: what each file is, the line after the file name, and the hint.
const NOT_STATES: &[(&str, &str, &str)] = &[
    (
        "age-binary.tfstate",
        ": this file is encrypted with age; statectl reads plain and OpenTofu-encrypted states only",
        "decrypt it first: `age -d -i KEY FILE > state.tfstate`",
    ),
    (
        "age-armour.tfstate",
        ": this file is encrypted with age (ASCII armour); statectl reads plain and OpenTofu-encrypted states only",
        "decrypt it first: `age -d -i KEY FILE > state.tfstate`",
    ),
    (
        "pgp-armour.tfstate",
        ": this file is encrypted with PGP (ASCII armour); statectl reads plain and OpenTofu-encrypted states only",
        "decrypt it first: `gpg -d FILE > state.tfstate`",
    ),
    (
        "sops.tfstate",
        ": this file is encrypted with SOPS; statectl reads plain and OpenTofu-encrypted states only",
        "decrypt it first: `sops -d FILE > state.tfstate`",
    ),
    (
        "opentofu-encrypted.tfstate",
        ": the state is encrypted by OpenTofu, and no state encryption is configured to open it",
        "give the encryption configuration: run in (or point --config at) the directory whose terraform { encryption { ... } } block wrote it, or set TF_ENCRYPTION",
    ),
    (
        "plan.tfplan",
        ": this is a Terraform plan file (`terraform plan -out`), not a state",
        "`terraform show -json PLAN > plan.json` turns it into JSON; `statectl audit --plan plan.json` reads that",
    ),
    (
        "plan.json",
        ": this is Terraform's JSON plan (`terraform show -json PLAN`), not a state",
        "`statectl audit --plan FILE` reads it, beside the state",
    ),
    (
        "show.json",
        ": this is Terraform's JSON output (`terraform show -json`), not a state",
        "use the state itself: `terraform state pull > state.tfstate`",
    ),
    (
        "backend-cache.tfstate",
        ": this is Terraform's backend cache (.terraform/terraform.tfstate), not a state",
        "the state lives where the backend points; for the local backend it is `terraform.tfstate` in the working directory",
    ),
    (
        "gzip.tfstate",
        ": this is a gzip-compressed file, not a state",
        "decompress it first: `gunzip -c FILE > state.tfstate`",
    ),
    (
        "utf16-bom.tfstate",
        ":1:1: the file is UTF-16 text; a state is UTF-8 JSON",
        UTF16_HINT,
    ),
    (
        "utf16le.tfstate",
        ":1:1: the file is UTF-16 text; a state is UTF-8 JSON",
        UTF16_HINT,
    ),
    (
        "empty.tfstate",
        ": the state file is empty",
        "Terraform leaves an empty file when there is no state yet; there is nothing to read",
    ),
    (
        "whitespace.tfstate",
        ": the state file is empty",
        "Terraform leaves an empty file when there is no state yet; there is nothing to read",
    ),
    (
        "not-json.tfstate",
        ":1:1: not JSON: unexpected character 't', expected a JSON value",
        "a state is a JSON object; is this the right file?",
    ),
];

const UTF16_HINT: &str = "convert it, for example `iconv -f UTF-16 -t UTF-8 FILE > state.tfstate` (PowerShell's `>` writes UTF-16; use `Out-File -Encoding utf8NoBOM`)";

#[test]
fn not_states_are_named() {
    let folder = root().join("testdata/not-states");
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    for entry in std::fs::read_dir(&folder).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name == "README.md" || name == "make.sh" {
            continue;
        }
        assert!(
            NOT_STATES.iter().any(|(file, _, _)| *file == name),
            "{name} has an expected outcome here"
        );
        assert!(
            readme.contains(&format!("`{name}`")),
            "the README names {name}"
        );
    }
    for (file, line, hint) in NOT_STATES {
        let bytes = std::fs::read(folder.join(file)).unwrap();
        refused_exactly(&bytes, line, Some(hint));
        mutation_refused(&bytes, line);
        // From a pipe too, where the first bytes are judged before the rest is read (an empty pipe
        // has its own line, in `empty_file`).
        if bytes.trim_ascii().is_empty() {
            continue;
        }
        let output = Test::new()
            .args(["list", "-"])
            .stdin(bytes)
            .run()
            .refused(line);
        assert_eq!(
            output.stderr,
            expected_stderr("<stdin>", line, Some(hint)),
            "{file}"
        );
    }
}

#[test]
fn text_that_is_not_json_is_named_with_the_place_of_the_first_bad_byte() {
    let hint = Some("a state is a JSON object; is this the right file?");
    refused_exactly(
        b"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
        ":1:1: not JSON: this is a PEM block (`-----BEGIN RSA PRIVATE KEY-----`), not a state",
        None,
    );
    refused_exactly(
        b"<html><body>502 Bad Gateway</body></html>",
        ":1:1: not JSON: unexpected character '<', where a state starts with '{'",
        Some("this looks like HTML or XML: was an error page saved instead of the state?"),
    );
    refused_exactly(
        b"\n  4 5\n",
        ":2:5: not JSON: unexpected character '5' after the end of the JSON document",
        hint,
    );
    refused_exactly(
        b"nul",
        ":1:4: not JSON: the JSON ends early, expected null (is the file truncated?)",
        hint,
    );
    refused_exactly(
        b"\xC3\x28",
        ":1:1: not JSON: unexpected byte 0xC3, where a state starts with '{'",
        hint,
    );
    refused_exactly(
        b"version: ENC[AES256_GCM,data:Lg==,type:float]\nsops:\n    mac: x\n",
        ": this file is encrypted with SOPS; statectl reads plain and OpenTofu-encrypted states only",
        Some("decrypt it first: `sops -d FILE > state.tfstate`"),
    );
    refused_exactly(
        &[0; 10_000],
        ":1:1: not JSON: it holds only NUL bytes",
        Some("a crash in the middle of a write can leave this; restore the state from its backup"),
    );
    // Valid JSON of the wrong kind is named as such.
    refused_exactly(
        b"42",
        ":1:1: the top level is a number, but a state is a JSON object",
        None,
    );
}

#[test]
fn empty_file() {
    refused(b"", "the state file is empty");
    refused(b"  \n", "the state file is empty");
    for input in [&b""[..], b" \n"] {
        Test::new()
            .args(["list", "-"])
            .stdin(input)
            .run()
            .stderr_is("error: <stdin>: standard input is empty\nhint: `terraform state pull` prints nothing when there is no state yet; is the pipe's other end in the right folder?\n");
    }
}

#[test]
fn truncated_json() {
    let stderr = refused(
        br#"{"version": 4, "resources": [{"mode": "#,
        "the JSON ends early",
    );
    assert!(
        stderr.contains("terraform.tfstate:1:39:"),
        "line and column of the end: {stderr}"
    );
}

#[test]
fn byte_order_mark_is_named() {
    refused(b"\xEF\xBB\xBF{\"version\": 4}", "byte-order mark");
}

#[test]
fn invalid_utf8() {
    let stderr = refused(
        b"{\"version\": 4,\n \"lineage\": \"\xff\"}",
        "not valid UTF-8",
    );
    assert_contains(&stderr, ":2:14:");
}

#[test]
fn top_level_array_or_string() {
    refused(
        b"[]",
        "the top level is an array, but a state is a JSON object",
    );
    refused(b"\"state\"", "the top level is a string");
}

#[test]
fn version_zero_five_and_missing() {
    refused(br#"{"version": 0}"#, "unsupported state version 0");
    refused(
        br#"{"version": 5, "resources": []}"#,
        "unsupported state version 5",
    );
    refused(br#"{"serial": 1, "resources": []}"#, "no `version` field");
    refused(br#"{"version": "4"}"#, "`version` must be an integer");
}

#[test]
fn deep_nesting() {
    let deep = format!(
        r#"{{"version": 4, "x": {}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    refused(deep.as_bytes(), "nested deeper than 10000 levels");
}

#[test]
fn two_current_objects_for_one_instance() {
    let state = minimal_with_instances(
        r#"{"index_key": 0, "attributes": {}}, {"index_key": 0, "attributes": {}}"#,
    );
    let stderr = refused(state.as_bytes(), "two current objects for one instance");
    assert!(stderr.contains("t.n[0]"), "names the address: {stderr}");
}

#[test]
fn deposed_key_not_eight_characters() {
    let state =
        minimal_with_instances(r#"{"attributes": {}}, {"deposed": "abc", "attributes": {}}"#);
    refused(
        state.as_bytes(),
        "invalid `deposed` key \"abc\": it must be 8 hexadecimal digits",
    );
}

#[test]
fn status_other_than_tainted() {
    let state = minimal_with_instances(r#"{"status": "broken", "attributes": {}}"#);
    let stderr = refused(state.as_bytes(), "invalid instance `status` \"broken\"");
    assert_contains(&stderr, "terraform.tfstate:1:");
}

#[test]
fn other_structural_problems() {
    refused(
        br#"{"version": 4, "resources": [{"mode": "manged", "type": "t", "name": "n"}]}"#,
        "invalid resource `mode`",
    );
    refused(
        minimal_with_instances(r#"{"index_key": 1.5}"#).as_bytes(),
        "`index_key` 1.5 is not an integer",
    );
    refused(
        minimal_with_instances(r#"{"sensitive_attributes": [{"type": "x"}]}"#).as_bytes(),
        "sensitive_attributes",
    );
    refused(br#"{"version": 4} {"#, "after the end of the JSON document");
    refused(
        b"{\"version\": 4, \"lineage\": \"a\tb\"}",
        "raw control character U+0009",
    );
}

#[test]
fn control_characters_in_input_never_reach_the_terminal_raw() {
    let state = minimal_with_instances(r#"{"status": "\u001b[31mred", "attributes": {}}"#);
    let stderr = refused(state.as_bytes(), "invalid instance `status`");
    assert!(!stderr.contains('\u{1b}'), "escaped: {stderr:?}");
}

#[test]
fn missing_default_state_has_a_hint() {
    let folder = tempfile::tempdir().unwrap();
    Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .refused("terraform.tfstate: cannot read the state: no such file")
        .stderr_contains("hint: name a state file, or `-`");
}

#[test]
fn json_cut_right_after_a_key_or_inside_a_value_is_named_as_truncated() {
    let truncated = |at: &str, expected: &str| {
        format!(
            ":{at}: invalid JSON: the JSON ends early, expected {expected} (is the file truncated?)"
        )
    };
    for (bytes, at, expected) in [
        (&br#"{"version": 4, "serial": "#[..], "1:26", "a JSON value"),
        (br#"{"version": 4, "serial":"#, "1:25", "a JSON value"),
        (
            br#"{"version": 4, "serial": 1."#,
            "1:28",
            "the digits of a number",
        ),
        (
            br#"{"version": 4, "serial": -"#,
            "1:27",
            "the digits of a number",
        ),
        (br#"{"version": 4, "lineage": nu"#, "1:29", "null"),
        (
            br#"{"version": 4, "resources": [{"instances": [{"schema_version": "#,
            "1:64",
            "a JSON value",
        ),
        (
            br#"{"version": 4, "resources": [{"instances": [{"attributes": "#,
            "1:60",
            "a JSON value",
        ),
        (
            br#"{"version": 4, "resources": [{"instances": [{"status": t"#,
            "1:57",
            "true",
        ),
    ] {
        refused_exactly(bytes, &truncated(at, expected), None);
    }
    // A file cut right after a complete number names the end too, not the number.
    refused_exactly(
        br#"{"version": 4, "serial": 1"#,
        &truncated("1:27", "',' or '}' in an object"),
        None,
    );
}

#[test]
fn devices_sockets_directories_and_symlink_loops_are_refused_at_once() {
    Test::new().args(["list", "/dev/zero"]).run().stderr_is(
        "error: /dev/zero: cannot read the state: it is a character device, not a regular file\n",
    );
    // A mutation too, before any lock file could be written beside the device.
    Test::new()
        .args(["taint", "t.n", "/dev/null"])
        .run()
        .stderr_is(
            "error: /dev/null: cannot read the state: it is a character device, not a regular file\n",
        );
    assert!(!Path::new("/dev/.null.lock.info").exists());
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("state.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    Test::new()
        .args(["list", "state.sock"])
        .current_dir(folder.path())
        .run()
        .stderr_is(
            "error: state.sock: cannot read the state: it is a socket, not a regular file\n",
        );
    std::fs::create_dir(folder.path().join("dir.tfstate")).unwrap();
    Test::new()
        .args(["list", "dir.tfstate"])
        .current_dir(folder.path())
        .run()
        .stderr_is("error: dir.tfstate: cannot read the state: it is a directory, not a file\n");
    std::os::unix::fs::symlink("loop-b", folder.path().join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", folder.path().join("loop-b")).unwrap();
    for command in [&["list", "loop-a"][..], &["taint", "t.n", "loop-a"]] {
        Test::new()
            .args(command)
            .current_dir(folder.path())
            .run()
            .refused("too many levels of symbolic links (a symlink loop?)");
    }
}

/// A file that says it holds nothing but does (`/proc`'s) is read to its end, as any file: it is
/// judged by what it holds, not called empty.
#[test]
fn a_file_whose_size_says_zero_is_read_for_what_it_holds() {
    Test::new()
        .args(["list", "/proc/self/status"])
        .run()
        .refused("/proc/self/status:1:1: not JSON: unexpected character 'N', where a state starts with '{'");
}

#[test]
fn an_endless_pipe_is_judged_by_its_first_bytes() {
    // 64 MB of zeros: refused from the first 4 KiB, not after reading (or holding) them all.
    Test::new()
        .args(["list", "-"])
        .stdin(vec![0; 64 << 20])
        .run()
        .stderr_is("error: <stdin>:1:1: not JSON: it holds only NUL bytes\nhint: a crash in the middle of a write can leave this; restore the state from its backup\n");
}

#[test]
fn binary_that_starts_like_json_is_refused_from_its_first_bytes() {
    let mut binary = vec![0xFF_u8; 64 << 20];
    binary[..2].copy_from_slice(b"{\"");
    Test::new()
        .args(["list", "-"])
        .stdin(binary)
        .run()
        .stderr_is("error: <stdin>:1:3: the file is not valid UTF-8 text\nhint: a state is JSON written as UTF-8; was it saved in another encoding, or is it binary?\n");
}

#[test]
fn a_shells_process_substitution_is_read_as_a_stream() {
    // `statectl list <(terraform state pull)`: bash hands the pipe over as `/dev/fd/63`.
    let state = root().join("testdata/states/lifecycle.tfstate");
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#""$0" list <(cat "$1")"#)
        .arg(env!("CARGO_BIN_EXE_statectl"))
        .arg(&state)
        .env_clear()
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("terraform_data.cbd"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Item 19 of issue 24: `statectl scan fifo` waited forever for a writer that never came. A named
/// pipe is refused before it is opened, by every command that reads a state, a plan or a rules file.
#[test]
fn a_named_pipe_is_refused_not_waited_on() {
    let folder = tempfile::tempdir().unwrap();
    let fifo = folder.path().join("state.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let refusal = "error: state.fifo: cannot read the state: it is a named pipe (FIFO), not a regular file\nhint: read a pipe through standard input (`-`, as in `statectl list - < PIPE`) or a shell's `<(command)`\n";
    // Run on a thread so that the old behaviour (blocking in `open`) fails the test instead of hanging it.
    let (done, finished) = std::sync::mpsc::channel();
    let cwd = folder.path().to_owned();
    std::thread::spawn(move || {
        let mut outputs = Vec::new();
        for args in [
            &["list", "state.fifo"][..],
            &["show", "terraform_data.cbd", "state.fifo"],
            &["query", "$.serial", "state.fifo"],
            &["summary", "state.fifo"],
            &["diff", "state.fifo", "state.fifo"],
            &["audit", "state.fifo"],
            // A mutation refuses it before taking any lock.
            &["taint", "terraform_data.cbd", "state.fifo"],
        ] {
            outputs.push((
                args.join(" "),
                Test::new().args(args).current_dir(&cwd).run(),
            ));
        }
        outputs.push((
            "scan".to_owned(),
            Test::new()
                .args(["scan", "state.fifo"])
                .current_dir(&cwd)
                .run(),
        ));
        outputs.push((
            "audit --plan".to_owned(),
            Test::new()
                .args(["audit", "--plan", "state.fifo", "-"])
                .stdin(std::fs::read(root().join("testdata/states/lifecycle.tfstate")).unwrap())
                .current_dir(&cwd)
                .run(),
        ));
        done.send(outputs).unwrap();
    });
    let outputs = finished
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("a command waited on the named pipe");
    for (command, output) in outputs {
        match command.as_str() {
            "scan" => {
                let output = output.code(2);
                assert!(
                    output.stderr.contains(refusal),
                    "{command}: {}",
                    output.stderr
                );
            }
            // A mutation writes the state back, which a pipe cannot take: no hint to read it.
            "taint terraform_data.cbd state.fifo" => {
                output.stderr_is("error: state.fifo: cannot read the state: it is a named pipe (FIFO), not a regular file\n");
            }
            "audit --plan" => {
                output.stderr_is("error: state.fifo: cannot read the plan: it is a named pipe (FIFO), not a regular file\nhint: hand a plan over as a file or through a shell's `--plan <(terraform show -json PLAN)`\n");
            }
            _ => {
                assert_eq!(output.code, 2, "{command}: {}", output.stderr);
                assert_eq!(output.stderr, refusal, "{command}");
            }
        }
    }
    assert_eq!(
        std::fs::read_dir(folder.path()).unwrap().count(),
        1,
        "no lock sidecar"
    );
}

#[test]
fn an_unreadable_file_is_named() {
    if rustix::process::geteuid().is_root() {
        crate::skip::not_here("root reads files whatever their mode");
        return;
    }
    let (folder, path) = folder_with_state("{}");
    std::fs::set_permissions(
        &path,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o000),
    )
    .unwrap();
    Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .stderr_is("error: terraform.tfstate: cannot read the state: permission denied\n");
}

#[test]
fn a_url_of_a_backend_statectl_does_not_read_yet_is_not_a_path() {
    Test::new()
        .args(["list", "cos://bucket/prod/default.tfstate"])
        .run()
        .stderr_is("error: cos://bucket/prod/default.tfstate: cannot read the state: no such file\nhint: statectl reads `s3://`, `gs://`, `azurerm://`, `oci://` and `http(s)://` URLs; for another backend, run it where `terraform init` ran, or `terraform state pull | statectl list -`\n");
}

#[test]
fn jsonpath_errors_are_one_line_with_the_column() {
    let state = root().join("testdata/states/empty.tfstate");
    Test::new()
        .arg("query")
        .arg("$.[")
        .arg(&state)
        .run()
        .stderr_is("error: invalid JSONPath `$.[` at column 3: expected wildcard selector or ALPHA\nhint: JSONPath follows RFC 9535 and starts at `$`, e.g. `$.resources[*].type` or `$..instances[?@.status=='tainted']`\n");
    Test::new()
        .arg("query")
        .arg("$..instances[?@.status==")
        .arg(&state)
        .run()
        .refused("invalid JSONPath `$..instances[?@.status==` at column 25: expected comparable");
}

/// Ten thousand characters of address (or key, or duration) come back as the first hundred and `...`.
#[test]
fn long_arguments_are_echoed_shortened() {
    let long = "a".repeat(10_000);
    let shown = format!("{}...", &long[..100]);
    let state = root().join("testdata/states/lifecycle.tfstate");
    let folder = tempfile::tempdir().unwrap();
    let copy = folder.path().join("terraform.tfstate");
    std::fs::copy(&state, &copy).unwrap();
    let bytes = std::fs::read(&copy).unwrap();
    let instance = format!("terraform_data.{long}");
    let shown_instance = format!("terraform_data.{}...", &long[..85]);
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["taint".into(), instance.clone()],
            format!("terraform.tfstate: {shown_instance}: no such resource instance in the state"),
        ),
        (
            vec!["untaint".into(), format!("{instance}!")],
            format!("invalid address `{shown_instance}`"),
        ),
        (
            vec!["forget".into(), format!("{long}!")],
            format!("invalid address `{shown}`"),
        ),
        (
            vec![
                "forget".into(),
                "terraform_data.cbd".into(),
                "--deposed".into(),
                long.clone(),
            ],
            format!("terraform.tfstate: terraform_data.cbd: no deposed object `{shown}`"),
        ),
        (
            vec!["show".into(), instance.clone()],
            format!("terraform.tfstate: no resource instance `{shown_instance}` in the state"),
        ),
        (
            vec![
                "list".into(),
                "terraform.tfstate".into(),
                format!("{long}!"),
            ],
            format!("invalid address `{shown}`"),
        ),
        (
            vec!["refresh".into(), "--target".into(), format!("{long}!")],
            format!("invalid --target `{shown}`"),
        ),
        (
            vec!["query".into(), format!("$.{long}[")],
            format!("invalid JSONPath `$.{}...` at column 10004", &long[..98]),
        ),
        (
            vec![
                "taint".into(),
                "t.n".into(),
                "--lock-timeout".into(),
                long.clone(),
            ],
            format!(
                "invalid value `{shown}` for `--lock-timeout`: use a number and a unit (`ms`, `s`, `m`, `h`), e.g. `2s`, `500ms`, `10m`"
            ),
        ),
    ];
    for (args, expected) in cases {
        let output = Test::new()
            .args(&args)
            .current_dir(folder.path())
            .run()
            .refused(&expected);
        let first = output.stderr.lines().next().unwrap();
        assert!(
            first.len() < 300,
            "{} echoes {} bytes",
            args[0],
            first.len()
        );
    }
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        bytes,
        "the state is untouched"
    );
    let entries = std::fs::read_dir(folder.path()).unwrap().count();
    assert_eq!(entries, 1, "no backup or lock left");
}

#[test]
fn huge_numbers_are_refused_without_echoing_them_whole() {
    let digits = "9".repeat(10_000);
    let shown = format!("{}...", &digits[..100]);
    refused_exactly(
        format!(r#"{{"version": 4, "serial": {digits}, "lineage": "x"}}"#).as_bytes(),
        &format!(":1:26: `serial` must be a non-negative integer, found {shown}"),
        None,
    );
    refused(
        format!(r#"{{"version": {digits}}}"#).as_bytes(),
        &format!("`version` must be an integer, found `{shown}`"),
    );
    refused(
        minimal_with_instances(&format!(r#"{{"index_key": {digits}}}"#)).as_bytes(),
        &format!("`index_key` {shown} is not an integer"),
    );
    refused_exactly(
        br#"{"version": 4, "serial": 1e400, "lineage": "x"}"#,
        ":1:26: `serial` must be a non-negative integer, found 1e400",
        None,
    );
}

#[test]
fn duplicate_keys_follow_go_where_the_last_wins() {
    refused(
        br#"{"version": 4, "version": 5, "resources": []}"#,
        "unsupported state version 5",
    );
}

/// An instance object of 60,000 keys, some repeated: a write keeps the last of each, where the last
/// stands (as Go reads them and Terraform writes them back), in time that grows with the keys, not
/// with their square (it took 4 s for this 1 MB state; a test that waits that long fails CI's
/// patience before it fails an assertion, but the result is checked exactly).
#[test]
fn an_instance_of_many_repeated_keys_is_rewritten_with_the_last_of_each() {
    let extra: Vec<String> = (0..60_000)
        .map(|index| format!(r#""x{index}": {index}"#))
        .collect();
    let text = format!(
        r#"{{"version": 4, "serial": 1, "lineage": "l", "resources": [{{"mode": "managed", "type": "t", "name": "n", "provider": "provider[\"registry.terraform.io/hashicorp/t\"]", "instances": [{{"schema_version": 0, "attributes": {{"id": "a"}}, {}, "x5": "again", "schema_version": 1}}]}}]}}"#,
        extra.join(", ")
    );
    let (_folder, state) = crate::files::file_with("many-keys.tfstate", &text);
    Test::new()
        .args(["taint", "t.n", "--backup", "-"])
        .arg(&state)
        .run()
        .code(0);
    let written = std::fs::read_to_string(&state).unwrap();
    let document: serde_json::Value = serde_json::from_str(&written).unwrap();
    let instance = &document["resources"][0]["instances"][0];
    assert_eq!(instance["status"], "tainted");
    assert_eq!(instance["schema_version"], 1);
    assert_eq!(instance["x5"], "again");
    assert_eq!(instance["x59999"], 59_999);
    assert_eq!(
        written.matches(r#""x5":"#).count(),
        1,
        "the earlier x5 is gone"
    );
    assert!(
        written.find(r#""x59999":"#) < written.find(r#""x5":"#),
        "x5 stands where its last was"
    );
    assert_eq!(written.matches(r#""schema_version":"#).count(), 1);
}

#[test]
fn nul_bytes_and_invalid_utf8_are_placed() {
    refused_exactly(
        b"{\"version\": 4, \"serial\": 1, \"lineage\": \"x\"}\n\0\0\0",
        ":2:1: invalid JSON: unexpected character '\\0' after the end of the JSON document",
        None,
    );
    refused_exactly(
        b"{\"version\": 4, \"lin\xffeage\": \"x\"}",
        ":1:20: the file is not valid UTF-8 text",
        Some(
            "a state is JSON written as UTF-8; was it saved in another encoding, or is it binary?",
        ),
    );
}

#[test]
fn mutations_of_bad_input_leave_nothing_behind() {
    mutation_refused(br#"{"version": 4, "serial": "#, "the JSON ends early");
    mutation_refused(b"test", "not JSON");
    mutation_refused(&[0; 100], "only NUL bytes");
}

#[test]
fn audit_names_a_binary_plan_and_refuses_a_device() {
    let state = root().join("testdata/states/lifecycle.tfstate");
    let plan = root().join("testdata/not-states/plan.tfplan");
    Test::new()
        .arg("audit")
        .arg(&state)
        .arg("--plan")
        .arg(&plan)
        .run()
        .refused("plan.tfplan: cannot read the plan: it is a binary plan file (`terraform plan -out`); audit reads the plan as JSON")
        .stderr_contains("hint: `terraform show -json PLAN > plan.json`, then `--plan plan.json`");
    Test::new()
        .arg("audit")
        .arg(&state)
        .args(["--plan", "/dev/zero"])
        .run()
        .stderr_is("error: /dev/zero: cannot read the plan: it is a character device, not a regular file\n");
}

#[test]
fn a_file_name_with_control_characters_is_escaped() {
    let folder = folder_with("e\u{1b}[31m.tfstate", "test");
    Test::new()
        .args(["list", "e\u{1b}[31m.tfstate"])
        .current_dir(folder.path())
        .run()
        .stderr_is("error: e\\u{1b}[31m.tfstate:1:1: not JSON: unexpected character 't', expected a JSON value\nhint: a state is a JSON object; is this the right file?\n");
}

/// Values nested past serde_json's 128 levels are diffed like any other (the one nesting limit is
/// Go's 10,000): the taint's dry run shows its line, and writes nothing.
#[test]
fn deep_objects_get_a_diff_line() {
    let deep = minimal_with_instances(&format!(
        r#"{{"attributes": {{"a": {}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    ));
    let (folder, path) = folder_with_state(&deep);
    Test::new()
        .args(["taint", "t.n", "--dry-run"])
        .current_dir(folder.path())
        .run()
        .code(1)
        .stdout_contains("--- t.n\n+++ t.n\n@@ ")
        .stdout_contains("\n+  \"status\": \"tainted\",\n");
    assert_only_the_state(folder.path(), &path, deep.as_bytes());
}

/// Rules, policy and provider configuration files are read with the same care as a state: a device is
/// refused at once rather than read without end.
#[test]
fn side_files_that_are_devices_are_refused_at_once() {
    let state = root().join("testdata/states/lifecycle.tfstate");
    Test::new()
        .arg("scan")
        .arg(&state)
        .args(["--rules", "/dev/zero"])
        .run()
        .refused("error: /dev/zero: cannot read the rules file: it is a character device, not a regular file");
    Test::new()
        .args(["taint", "terraform_data.cbd", "--dry-run", "--policy", "/dev/zero"])
        .arg(&state)
        .run()
        .refused("error: /dev/zero: cannot read the policy: it is a character device, not a regular file");
    let gzip = root().join("testdata/not-states/gzip.tfstate");
    Test::new()
        .arg("scan")
        .arg(&state)
        .arg("--rules")
        .arg(&gzip)
        .run()
        .refused("gzip.tfstate: cannot read the rules file: it is not UTF-8 text (byte 1)");
}

#[test]
fn long_values_from_the_state_are_echoed_shortened() {
    let long = "m".repeat(10_000);
    let shown = format!("\"{}...\"", &long[..100]);
    refused(
        format!(
            r#"{{"version": 4, "resources": [{{"mode": "{long}", "type": "t", "name": "n"}}]}}"#
        )
        .as_bytes(),
        &format!("invalid resource `mode` {shown}: it must be"),
    );
    refused(
        minimal_with_instances(&format!(r#"{{"status": "{long}"}}"#)).as_bytes(),
        &format!("invalid instance `status` {shown}:"),
    );
    refused(
        minimal_with_instances(&format!(r#"{{"deposed": "{long}"}}"#)).as_bytes(),
        &format!("invalid `deposed` key {shown}:"),
    );
    refused(
        format!(r#"{{"version": 4, "resources": [{{"mode": "managed", "type": "t", "name": "n", "provider": "{long}"}}]}}"#).as_bytes(),
        &format!("invalid provider address {shown}:"),
    );
}
