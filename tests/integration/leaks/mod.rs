//! No secret a run sends ever shows (issue 24, "Secrets that leak"): each command path that sends
//! credentials runs with marker secrets in every credential setting against a loopback server that
//! echoes everything it receives (`echo`), at `-v` and `-vv`, in every `--format`, with `--write`
//! or `-o -` where something is written; no marker, and no credential the server received (a
//! token, a signature), may appear in stdout, stderr or any file the run wrote, whole or in part
//! (any 16 characters of it). Refresh through the HTTP profiles (`refresh`), every remote backend
//! (`backends`), and state encryption (`encryption`).

mod backends;
pub(crate) mod echo;
mod encryption;
mod federated;
mod refresh;

use std::path::Path;

use crate::builder::Test;

/// The shortest piece of a secret that counts as shown.
const WINDOW: usize = 16;

/// A distinctive secret of `length` characters (letters and digits), named for where it goes.
pub(crate) fn marker(name: &str, length: usize) -> String {
    let mut state = name.bytes().fold(0x9e37_79b9_7f4a_7c15_u64, |state, byte| {
        (state ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
    });
    let mut text = format!("{name}Z");
    while text.len() < length {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
        text.push(char::from(
            alphabet[(state >> 33) as usize % alphabet.len()],
        ));
    }
    text
}

/// What one run showed and wrote.
pub(crate) struct Run {
    pub label: String,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// Every file in the run's folder afterwards, but the inputs the test wrote itself.
    pub files: Vec<(String, String)>,
}

/// Runs `statectl args` in `folder` with `env` (and nothing else of the environment but `PATH`,
/// `HOME` set to `folder`), and collects what it showed and wrote; `inputs` are the files the test
/// put there with secrets in them.
pub(crate) fn run(folder: &Path, args: &[&str], env: &[(&str, &str)], inputs: &[&str]) -> Run {
    let mut test = Test::new()
        .current_dir(folder)
        .args(args)
        .env("HOME", folder)
        .env("AWS_EC2_METADATA_DISABLED", "true");
    for (name, value) in env {
        test = test.env(name, value);
    }
    let output = test.run();
    let mut files = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(folder).unwrap().display().to_string();
            if path.is_dir() {
                pending.push(path);
            } else if !inputs.contains(&name.as_str()) {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                files.push((name, text));
            }
        }
    }
    Run {
        label: args.join(" "),
        code: output.code,
        stdout: output.stdout,
        stderr: output.stderr,
        files,
    }
}

/// Fails naming every place any piece of `secrets` shows in `runs`.
#[track_caller]
pub(crate) fn assert_nothing_shown(runs: &[Run], secrets: &[String]) {
    let mut leaks = Vec::new();
    for secret in secrets.iter().filter(|secret| !secret.is_empty()) {
        let pieces: Vec<&str> = if secret.len() <= WINDOW {
            vec![secret.as_str()]
        } else {
            (0..=secret.len() - WINDOW)
                .filter_map(|start| secret.get(start..start + WINDOW))
                .collect()
        };
        for run in runs {
            let places = [("stdout", &run.stdout), ("stderr", &run.stderr)]
                .into_iter()
                .chain(run.files.iter().map(|(name, text)| (name.as_str(), text)));
            for (place, text) in places {
                if let Some(piece) = pieces.iter().find(|piece| text.contains(**piece)) {
                    leaks.push(format!(
                        "`{}` shows {piece:?} (of a secret) in {place}:\n{text}\n",
                        run.label
                    ));
                }
            }
        }
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}
