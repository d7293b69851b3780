//! `--format gitlab`: GitLab's Code Quality report, a JSON array of issues (`description`,
//! `check_name`, `fingerprint`, `severity`, `location.path`, `location.lines.begin`), so that findings
//! show in merge requests (`artifacts:reports:codequality`). Checked against GitLab's documented
//! format by a test. A fingerprint hashes the rule, the state's repository path and the address (and
//! which repeat of the same three it is), never a line or an absolute path: the same finding has the
//! same fingerprint on every run and every machine, and GitLab tells new findings from fixed ones.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::PathBuf;

use serde_json::{Value, json};
use statectl_analysis::scan::Severity;

use crate::cli::error::sanitize;
use crate::cli::findings::paths::{fingerprint_path, repository_path};
use crate::cli::findings::{Render, Report, Tool};

/// The `check_name` of a state that could not be read.
const UNREADABLE: &str = "unreadable-state";

#[derive(Debug)]
pub(crate) struct Gitlab {
    command: &'static str,
    cwd: Option<PathBuf>,
    issues: usize,
}

impl Gitlab {
    pub(crate) fn new(tool: &Tool) -> Gitlab {
        Gitlab {
            command: tool.command,
            cwd: std::env::current_dir().ok(),
            issues: 0,
        }
    }

    fn push(&mut self, issue: &Value, out: &mut String) {
        out.push_str(if self.issues == 0 { "\n  " } else { ",\n  " });
        let text = serde_json::to_string(issue).expect("JSON values always serialize");
        out.push_str(&text);
        self.issues += 1;
    }
}

impl Render for Gitlab {
    fn start(&mut self, out: &mut String) {
        out.push('[');
    }

    fn state(&mut self, report: &Report, out: &mut String) {
        let path = repository_path(&report.name, self.cwd.as_deref());
        let hashed = fingerprint_path(&path);
        if let Some(error) = &report.error {
            let issue = json!({
                "description": format!("statectl {}: the state cannot be read: {}", self.command, sanitize(&error.message)),
                "check_name": UNREADABLE,
                "fingerprint": fingerprint(&[UNREADABLE, hashed]),
                "severity": "blocker",
                "location": { "path": path, "lines": { "begin": 1 } },
            });
            self.push(&issue, out);
        }
        // Which repeat of (rule, address) a finding is: a state may hold two findings of one rule on
        // one address (two deposed objects), and GitLab shows only one issue per fingerprint.
        let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
        for finding in &report.findings {
            let repeat = seen
                .entry((finding.rule.id, finding.address.as_str()))
                .or_insert(0);
            let repeat_text = repeat.to_string();
            *repeat += 1;
            let issue = json!({
                "description": format!("{}: {}", sanitize(&finding.address), sanitize(&finding.message)),
                "check_name": finding.rule.id,
                "fingerprint": fingerprint(&[finding.rule.id, hashed, &finding.address, &repeat_text]),
                "severity": severity(finding.severity),
                "location": {
                    "path": path,
                    "lines": { "begin": finding.location.map_or(1, |location| location.line) },
                },
            });
            self.push(&issue, out);
        }
    }

    fn finish(&mut self, out: &mut String) {
        out.push_str(if self.issues == 0 { "]\n" } else { "\n]\n" });
    }
}

/// GitLab's vocabulary: `info`, `minor`, `major`, `critical`, `blocker`. A finding that fails the
/// job by default (an error) is critical, a warning major, a note information; only a state that
/// cannot be read at all blocks.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "critical",
        Severity::Warning => "major",
        Severity::Note => "info",
    }
}

/// 32 hex digits: FNV-1a (128 bits) over the parts, each ended by a NUL so that `ab`+`c` and
/// `a`+`bc` differ. Written out here, not a library's hash, so that it never changes under us.
fn fingerprint(parts: &[&str]) -> String {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut hash = OFFSET;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash ^= u128::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    let mut text = String::with_capacity(32);
    let _ = write!(text, "{hash:032x}");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_fixed_and_separate_their_parts() {
        // Pinned: a change here would make GitLab see every finding as new.
        assert_eq!(
            fingerprint(&["tainted", "states/prod.tfstate", "aws_instance.web", "0"]),
            "f8866db465f0105fc8514b4017316956"
        );
        assert_eq!(fingerprint(&[]), "6c62272e07bb014262b821756295c58d");
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
        assert_eq!(fingerprint(&["a"]).len(), 32);
    }
}
