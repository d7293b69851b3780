//! The edges of a write, tried as a careless or hostile user and a hostile server would: absurd
//! durations in every duration flag (no panic: accepted and saturated, or one line and exit 2), a
//! `--backup` path that is the state itself or its lock info (refused before anything is written),
//! a state whose `serial` cannot be raised (refused by every write), and lock infos of hundreds of
//! megabytes, beside a local state and in an http backend's 423 (read no further than their start,
//! and every field cut for display).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::builder::{Output, Test, assert_contains, assert_starts_with, root};
use crate::files::file_names;
use crate::http_backend::{PASSWORD, Server, USERNAME};
use crate::processes::spawn_statectl;

const ADDRESS: &str = "aws_security_group.db";

/// A folder holding `st.tfstate`, a copy of a small real state.
fn folder() -> (tempfile::TempDir, Vec<u8>) {
    let folder = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(root().join("testdata/scan/clean.tfstate")).unwrap();
    std::fs::write(folder.path().join("st.tfstate"), &bytes).unwrap();
    (folder, bytes)
}

fn run_in(folder: &Path, args: &[&str]) -> Output {
    Test::new().args(args).current_dir(folder).run()
}

/// `statectl lock st.tfstate -- sleep 60` in `folder`, in its own process group, once its lock info
/// is there.
fn hold_lock(folder: &Path) -> Child {
    let holder = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["lock", "st.tfstate", "--", "sleep", "60"])
        .current_dir(folder)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !folder.join(".st.tfstate.lock.info").exists() {
        assert!(Instant::now() < deadline, "the lock was never taken");
        std::thread::sleep(Duration::from_millis(20));
    }
    holder
}

/// Ends a [`hold_lock`] holder and its command.
fn release(mut holder: Child) {
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(&holder),
        rustix::process::Signal::TERM,
    );
    let _ = holder.wait();
}

/// A run still going after `wait` (a lock wait that did not end, nor panic) is killed; `true` if it
/// was still going.
fn still_waiting_after(mut child: Child, wait: Duration) -> bool {
    std::thread::sleep(wait);
    let going = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    assert!(
        going,
        "it ended: {:?} {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    going
}

/// Values a duration flag may be given, from the ordinary to the absurd.
const DURATIONS: &[&str] = &[
    "0",
    "0s",
    "1ns",
    "1us",
    "1ms",
    "2s",
    "18446744073709551615s",
    "18446744073709551616s",
    "3000000000000000h",
    "5124095576030432h",
    "99999999999999999999999999999999999999h",
    "-1s",
    "-0",
    "NaN",
    "nans",
    "inf",
    "infh",
    "1e999s",
    "0x10s",
    "1.5.5s",
    "",
    " 1s",
    "1d",
];

/// A refusal of a flag's value: exit 2, nothing on stdout, and one line naming the flag.
#[track_caller]
fn refused_value(output: &Output, flag: &str) {
    assert_eq!(output.code, 2, "{output:?}");
    assert_eq!(output.stdout, "");
    let lines: Vec<&str> = output.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{output:?}");
    assert!(
        lines[0].starts_with("error: invalid value `") && lines[0].contains(flag),
        "{output:?}"
    );
}

/// Was `overflow when adding duration to instant` (exit 101) for `--lock-timeout
/// 3000000000000000h`: every duration flag, through the real binary, given every value above,
/// either takes it (a wait too long for the clock lasts as long as the process) or refuses it with
/// one line and exit 2.
#[test]
fn every_duration_flag_takes_any_value_without_a_panic() {
    let (folder, original) = folder();
    let folder = folder.path();
    for value in DURATIONS {
        for (command, flag) in [
            (
                &["taint", ADDRESS, "st.tfstate", "--backup", "-"][..],
                "--lock-timeout",
            ),
            (
                &["untaint", ADDRESS, "st.tfstate", "--backup", "-"],
                "--lock-timeout",
            ),
            (&["lock", "st.tfstate"], "--lock-timeout"),
            (&["refresh", "st.tfstate", "--write"], "--lock-timeout"),
            (&["refresh", "st.tfstate"], "--timeout"),
            (&["refresh", "st.tfstate"], "--start-timeout"),
        ] {
            // `--flag=VALUE`: `-1s` is the value, not another flag.
            let flag_and_value = format!("{flag}={value}");
            let mut args: Vec<&str> = command.to_vec();
            args.push(&flag_and_value);
            if command[0] == "lock" {
                args.extend(["--", "true"]);
            }
            let output = run_in(folder, &args);
            assert!(!output.stderr.contains("panicked"), "{args:?}: {output:?}");
            if output.code == 2 && output.stderr.starts_with("error: invalid value") {
                refused_value(&output, flag);
            } else {
                // Taken: the command ran to its ordinary end (a taint's untaint pair leaves the
                // state as it was; a refresh of this state finds nothing to ask).
                assert!(matches!(output.code, 0 | 1), "{args:?}: {output:?}");
            }
        }
    }
    assert_eq!(
        std::fs::read(folder.join("st.tfstate")).unwrap().len(),
        original.len()
    );
    assert_eq!(file_names(folder), ["st.tfstate"]);
    // The first of each kind is taken, the absurd ones too.
    for value in ["1ns", "18446744073709551615s", "3000000000000000h"] {
        run_in(
            folder,
            &["lock", "st.tfstate", "--lock-timeout", value, "--", "true"],
        )
        .code(0);
    }
    for value in ["18446744073709551616s", "-1s", "NaN", "1e999s"] {
        let flag = format!("--lock-timeout={value}");
        refused_value(
            &run_in(folder, &["lock", "st.tfstate", &flag, "--", "true"]),
            "--lock-timeout",
        );
    }
}

/// The same values while another process holds the lock: a short wait ends naming the holder, a
/// wait past the clock's end goes on (it did panic at once).
#[test]
fn a_lock_wait_past_the_clocks_end_waits_on_a_local_state() {
    let (folder, original) = folder();
    let folder = folder.path();
    let holder = hold_lock(folder);
    for value in ["0", "1ns", "1ms"] {
        run_in(
            folder,
            &["taint", ADDRESS, "st.tfstate", "--lock-timeout", value],
        )
        .refused("the state is locked by `");
    }
    for value in ["18446744073709551615s", "3000000000000000h"] {
        let child = spawn_statectl(
            folder,
            &["taint", ADDRESS, "st.tfstate", "--lock-timeout", value],
        );
        assert!(still_waiting_after(child, Duration::from_millis(1500)));
    }
    release(holder);
    assert_eq!(std::fs::read(folder.join("st.tfstate")).unwrap(), original);
}

/// One request to `port`: `METHOD path` with `body` and the test server's credentials; the status.
fn request(port: u16, method: &str, path: &str, body: &str) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // `USERNAME:PASSWORD` in base64.
    assert_eq!(
        (USERNAME, PASSWORD),
        ("gitlab-ci-token", "glpat-e2e-s3cret")
    );
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic Z2l0bGFiLWNpLXRva2VuOmdscGF0LWUyZS1zM2NyZXQ=\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer[9..12].parse().unwrap()
}

fn port_of(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// `statectl ARGS... URL` with the http backend's settings for `url` in the environment.
fn remote(url: &str, args: &[&str]) -> Command {
    let mut command = crate::http_backend::statectl_for(url);
    command
        .args(args)
        .arg(url)
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

#[test]
fn a_lock_wait_past_the_clocks_end_waits_on_a_remote_state() {
    let (folder, _) = folder();
    let state = folder.path().join("st.tfstate");
    let server = Server::start_with(&["--state".as_ref(), state.as_os_str()]);
    let url = server.url();
    let port = port_of(&url);
    assert_eq!(
        request(
            port,
            "LOCK",
            "/state/lock",
            r#"{"ID":"held-by-the-test","Who":"test@host"}"#
        ),
        200
    );
    for value in ["0", "1ns", "1ms"] {
        let output = remote(&url, &["taint", ADDRESS, "--lock-timeout", value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_contains(&stderr, "the state is locked by `test@host`");
    }
    for value in ["18446744073709551615s", "3000000000000000h"] {
        let child = remote(&url, &["taint", ADDRESS, "--lock-timeout", value])
            .spawn()
            .unwrap();
        assert!(still_waiting_after(child, Duration::from_millis(1500)));
    }
    assert!(server.lock().unwrap().contains("held-by-the-test"));
}

#[test]
fn a_backup_path_that_is_the_state_its_lock_info_or_a_temporary_file_is_refused() {
    let (folder, original) = folder();
    let dir = folder.path();
    std::os::unix::fs::symlink("st.tfstate", dir.join("link.tfstate")).unwrap();
    std::fs::hard_link(dir.join("st.tfstate"), dir.join("hard.tfstate")).unwrap();
    let absolute = dir.join("st.tfstate").display().to_string();
    let before = file_names(dir);
    for (backup, what) in [
        ("st.tfstate", "is the state itself"),
        ("./st.tfstate", "is the state itself"),
        (absolute.as_str(), "is the state itself"),
        ("link.tfstate", "is the state itself"),
        ("hard.tfstate", "is the state itself"),
        (".st.tfstate.lock.info", "is the state's lock info file"),
        ("./.st.tfstate.lock.info", "is the state's lock info file"),
        (
            ".st.tfstate.statectl-4242.tmp",
            "is a temporary file statectl writes",
        ),
    ] {
        for command in ["taint", "forget"] {
            run_in(dir, &[command, ADDRESS, "st.tfstate", "--backup", backup])
                .refused(&format!("`--backup {backup}` {what}"));
            assert_eq!(
                std::fs::read(dir.join("st.tfstate")).unwrap(),
                original,
                "{backup}"
            );
            assert_eq!(file_names(dir), before, "{backup}");
        }
    }
    // Named through the link, the state's file is the state too.
    run_in(
        dir,
        &["taint", ADDRESS, "link.tfstate", "--backup", "st.tfstate"],
    )
    .refused("`--backup st.tfstate` is the state itself");
    // Any other path is a backup.
    run_in(
        dir,
        &["taint", ADDRESS, "st.tfstate", "--backup", "old.tfstate"],
    )
    .code(0);
    assert_eq!(std::fs::read(dir.join("old.tfstate")).unwrap(), original);
}

/// Was a taint that wrote serial 0 (and Terraform took any older copy for the newer one).
#[test]
fn a_serial_that_cannot_be_raised_is_refused_by_every_write() {
    let (folder, original) = folder();
    let dir = folder.path();
    let text = String::from_utf8(original).unwrap();
    let at = text.find("\"serial\": ").unwrap() + "\"serial\": ".len();
    let end = at + text[at..].find(',').unwrap();
    for (serial, expected) in [
        (
            "18446744073709551615",
            "the state's `serial` is 18446744073709551615, the largest there is, so a write cannot raise it",
        ),
        (
            "18446744073709551616",
            "`serial` must be a non-negative integer, found 18446744073709551616",
        ),
    ] {
        let state = format!("{}{serial}{}", &text[..at], &text[end..]);
        std::fs::write(dir.join("st.tfstate"), &state).unwrap();
        for args in [
            &["taint", ADDRESS, "st.tfstate"][..],
            &["untaint", "terraform_data.release", "st.tfstate"],
            &["forget", ADDRESS, "st.tfstate"],
            &["taint", ADDRESS, "st.tfstate", "-o", "-"],
        ] {
            run_in(dir, args).refused(expected);
            assert_eq!(
                std::fs::read_to_string(dir.join("st.tfstate")).unwrap(),
                state
            );
            assert_eq!(file_names(dir), ["st.tfstate"]);
        }
    }
}

/// Was 314 MB of `Who` on stderr and about 935 MB of memory.
#[test]
fn a_hostile_lock_info_beside_a_local_state_is_read_no_further_than_its_start() {
    let (folder, original) = folder();
    let dir = folder.path();
    let holder = hold_lock(dir);
    let lock_info = dir.join(".st.tfstate.lock.info");
    // 300 MB: a start of JSON, then (sparse, so the test writes little) zeros.
    let mut file = std::fs::File::create(&lock_info).unwrap();
    file.write_all(br#"{"ID":"x","Who":""#).unwrap();
    file.set_len(300 << 20).unwrap();
    drop(file);
    let output = run_in(dir, &["taint", ADDRESS, "st.tfstate"]).refused(
        "st.tfstate: the state is locked by another process (its lock info could not be read)",
    );
    assert!(output.stderr.len() < 1000, "{}", output.stderr.len());
    // Under the limit, but long: every field shown is cut.
    let who = "w".repeat(60_000);
    std::fs::write(
        &lock_info,
        format!(r#"{{"ID":"x","Who":"{who}","Operation":"apply"}}"#),
    )
    .unwrap();
    let output = run_in(dir, &["taint", ADDRESS, "st.tfstate"]).refused(&format!(
        "the state is locked by `{}... (60000 bytes in all)` (operation `apply`, lock ID x)",
        "w".repeat(200)
    ));
    assert!(output.stderr.len() < 1000, "{}", output.stderr.len());
    release(holder);
    assert_eq!(std::fs::read(dir.join("st.tfstate")).unwrap(), original);
}

/// A loopback server answering every request 423 with a lock info whose `Who` is `who_bytes` long
/// (sent as it is written, never held whole), for `requests` requests; how many body bytes it sent.
fn hostile_423(who_bytes: usize, requests: usize) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/state", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let (head, tail) = (r#"{"ID":"hostile","Who":""#, r#"","Operation":"apply"}"#);
            let total = head.len() + who_bytes + tail.len();
            let _ = write!(
                stream,
                "HTTP/1.1 423 Locked\r\nContent-Type: application/json\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n{head}"
            );
            let chunk = vec![b'w'; 64 << 10];
            let mut left = who_bytes;
            while left > 0 {
                let part = left.min(chunk.len());
                if stream.write_all(&chunk[..part]).is_err() {
                    break;
                }
                counter.fetch_add(part, Ordering::SeqCst);
                left -= part;
            }
            let _ = stream.write_all(tail.as_bytes());
        }
    });
    (url, sent)
}

/// `statectl taint ADDRESS URL`, which must be refused (exit 2): its stderr.
fn refused_taint(url: &str) -> String {
    let output = remote(url, &["taint", ADDRESS]).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    stderr
}

/// The same from an http backend: its 423 is read no further than 64 KiB.
#[test]
fn a_hostile_423_from_an_http_backend_is_read_no_further_than_its_start() {
    let (url, sent) = hostile_423(300 << 20, 1);
    let started = Instant::now();
    let stderr = refused_taint(&url);
    assert_starts_with(
        &stderr,
        &format!(
            "error: {url}: the state is locked by another process (its lock info could not be read)"
        ),
    );
    assert!(stderr.len() < 1000, "{}", stderr.len());
    // What the kernel's buffers took before statectl hung up, not 300 MB.
    let taken = sent.load(Ordering::SeqCst);
    assert!(taken < 32 << 20, "{taken} bytes sent");
    assert!(started.elapsed() < Duration::from_secs(30));

    // Under the limit, but long: every field shown is cut.
    let (url, _) = hostile_423(60_000, 1);
    let stderr = refused_taint(&url);
    assert_contains(
        &stderr,
        &format!(
            "the state is locked by `{}... (60000 bytes in all)` (operation `apply`, lock ID hostile)",
            "w".repeat(200)
        ),
    );
    assert!(stderr.len() < 1000, "{}", stderr.len());
}
