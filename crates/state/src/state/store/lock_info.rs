//! The lock's sidecar file, `.<state name>.lock.info` beside the state: who holds the lock, in the JSON
//! shape Terraform's local backend writes and reads, so each tool can name the other as the holder.
//!
//! A lock info comes from whoever holds the lock (a file beside the state, a server's 423, a lock
//! object): it is read only up to [`MAX_LOCK_INFO`] bytes, and each field shown to people is cut
//! at [`MAX_FIELD_SHOWN`] characters, so a hostile one of 300 MB costs neither memory nor a
//! terminal full of text.

use std::borrow::Cow;
use std::fmt::{self, Write};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The largest lock info read: Terraform's are a few hundred bytes.
pub const MAX_LOCK_INFO: usize = 64 << 10;

/// The most characters of one field a message shows.
pub const MAX_FIELD_SHOWN: usize = 200;

/// Terraform's `statemgr.LockInfo`, with Go's field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockInfo {
    #[serde(rename = "ID", default)]
    pub id: String,
    #[serde(rename = "Operation", default)]
    pub operation: String,
    #[serde(rename = "Info", default)]
    pub info: String,
    #[serde(rename = "Who", default)]
    pub who: String,
    #[serde(rename = "Version", default)]
    pub version: String,
    #[serde(rename = "Created", default)]
    pub created: String,
    #[serde(rename = "Path", default)]
    pub path: String,
}

impl LockInfo {
    /// A new lock's info: a random ID, `user@host`, statectl's version and the time now.
    pub fn new(operation: &str, state: &Path) -> LockInfo {
        LockInfo {
            id: random_uuid(),
            operation: operation.to_owned(),
            info: String::new(),
            who: who(),
            version: format!("statectl {}", env!("CARGO_PKG_VERSION")),
            created: rfc3339_utc(SystemTime::now()),
            path: state.display().to_string(),
        }
    }

    /// Compact JSON, as Go's `json.Marshal` writes it (Terraform writes the sidecar that way).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a LockInfo always serializes")
    }

    /// The lock info in `text`; `None` when it is not one, or larger than [`MAX_LOCK_INFO`].
    pub fn parse(text: &[u8]) -> Option<LockInfo> {
        if text.len() > MAX_LOCK_INFO {
            return None;
        }
        serde_json::from_slice(text).ok()
    }

    /// The lock info in the file at `path`, reading no more than [`MAX_LOCK_INFO`] bytes of it.
    pub fn read_file(path: &Path) -> Option<LockInfo> {
        let mut text = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(MAX_LOCK_INFO as u64 + 1)
            .read_to_end(&mut text)
            .ok()?;
        LockInfo::parse(&text)
    }
}

/// `text`, cut at [`MAX_FIELD_SHOWN`] characters with a note of how long it was.
fn shown(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_FIELD_SHOWN) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}... ({} bytes in all)", &text[..end], text.len())),
    }
}

impl fmt::Display for LockInfo {
    /// `user@host (Terraform 1.15.5, apply, since 2026-11-22T07:00:00Z, lock ID ...)`: what a user
    /// needs to find the holder.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = if self.who.is_empty() {
            Cow::Borrowed("an unknown process")
        } else {
            shown(&self.who)
        };
        write!(formatter, "`{who}`")?;
        let mut details = Vec::new();
        if !self.version.is_empty() {
            // Terraform writes a bare version number; statectl writes its name too.
            if self.version.starts_with(|c: char| c.is_ascii_digit()) {
                details.push(format!("Terraform {}", shown(&self.version)));
            } else {
                details.push(shown(&self.version).into_owned());
            }
        }
        if !self.operation.is_empty() {
            details.push(format!("operation `{}`", shown(&self.operation)));
        }
        if !self.created.is_empty() {
            details.push(format!("since {}", shown(&self.created)));
        }
        if !self.id.is_empty() {
            details.push(format!("lock ID {}", shown(&self.id)));
        }
        if !details.is_empty() {
            write!(formatter, " ({})", details.join(", "))?;
        }
        Ok(())
    }
}

/// `.terraform.tfstate.lock.info` for `terraform.tfstate`: Terraform's name for the sidecar, in the
/// state's own folder.
pub fn sidecar_path(state: &Path) -> PathBuf {
    let name = state
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    state.with_file_name(format!(".{name}.lock.info"))
}

/// `user@host`, as Terraform fills `Who`: the user's name as Go's `user.Current()` finds it, empty when
/// it finds none (Terraform then writes `@host`).
fn who() -> String {
    let passwd = std::fs::File::open("/etc/passwd").and_then(|file| {
        let mut bytes = Vec::new();
        file.take(crate::state::bytes::MAX_TEXT_BYTES)
            .read_to_end(&mut bytes)
            .map(|_| bytes)
    });
    let user = user_name(
        passwd.as_deref().unwrap_or_default(),
        rustix::process::getuid().as_raw(),
        |name| std::env::var(name).ok(),
    );
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    format!("{user}@{host}")
}

/// The user's name as Go's cgo-free `user.Current()` finds it (Terraform's release binaries are built
/// without cgo): the `/etc/passwd` entry of the real uid, else `$USER` when `$HOME` is set too, else
/// none. Not the uid's number: a container's root, with no `$USER`, is `root`.
fn user_name(passwd: &[u8], uid: u32, env: impl Fn(&str) -> Option<String>) -> String {
    if let Some(name) = passwd_name(passwd, uid) {
        return name;
    }
    let set = |name: &str| env(name).filter(|value| !value.is_empty());
    match (set("USER"), set("HOME")) {
        (Some(user), Some(_)) => user,
        _ => String::new(),
    }
}

/// The name on the first `/etc/passwd` line for `uid`, read as Go reads the file: lines trimmed,
/// blank ones and `#` comments skipped, at least seven fields, a name that is not empty and does not
/// start with `+` or `-` (NIS), numeric uid and gid fields.
fn passwd_name(passwd: &[u8], uid: u32) -> Option<String> {
    let uid = uid.to_string();
    String::from_utf8_lossy(passwd).lines().find_map(|line| {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.matches(':').count() < 6 {
            return None;
        }
        let fields: Vec<&str> = line.splitn(7, ':').collect();
        let (name, line_uid, gid) = (fields[0], fields[2], fields[3]);
        let numeric = |field: &str| field.parse::<i64>().is_ok();
        (line_uid == uid
            && !name.is_empty()
            && !name.starts_with(['+', '-'])
            && numeric(line_uid)
            && numeric(gid))
        .then(|| name.to_owned())
    })
}

/// A version-4 UUID from the kernel's random source, as Terraform's lock IDs are.
fn random_uuid() -> String {
    let mut bytes = [0u8; 16];
    if rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty()).is_err() {
        // Uniqueness, not secrecy, is what the ID needs: time and pid will do.
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        bytes[..12].copy_from_slice(&nanos.to_le_bytes()[..12]);
        bytes[12..].copy_from_slice(&std::process::id().to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes
        .iter()
        .fold(String::with_capacity(32), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        });
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Go's `time.Time` JSON form for a UTC time: RFC 3339 with nanoseconds, trailing zeros trimmed.
pub fn rfc3339_utc(time: SystemTime) -> String {
    let elapsed = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = elapsed.as_secs();
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    let mut text = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    );
    let nanos = elapsed.subsec_nanos();
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    text.push('Z');
    text
}

/// Year, month and day of the proleptic Gregorian calendar, `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`). Public so that every RFC 3339 writer (the simulator's clock too) shares it.
#[must_use]
pub fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Issue 25, item 15: with no `$USER` (root in a container) the holder showed as `0@vm`, where
    /// Terraform shows `root@vm`.
    #[test]
    fn the_user_is_named_as_gos_user_current_names_it() {
        let passwd = b"# comment\n\n  root:x:0:0:root:/root:/bin/bash  \n+nis:x:1000:1000::/:/bin/sh\nbad:x:1000:x::/:/bin/sh\nshort:x:1000:1000:/home\nkevin:x:1000:1000:Kevin,,,:/home/kevin:/usr/bin/zsh\n";
        let none = |_: &str| None;
        assert_eq!(user_name(passwd, 0, none), "root");
        assert_eq!(user_name(passwd, 1000, none), "kevin");
        // Not in /etc/passwd: `$USER`, with `$HOME` set; else nothing, never the uid's number.
        let env = |user: Option<&'static str>, home: Option<&'static str>| {
            move |name: &str| match name {
                "USER" => user.map(str::to_owned),
                "HOME" => home.map(str::to_owned),
                _ => None,
            }
        };
        assert_eq!(
            user_name(passwd, 4242, env(Some("ci"), Some("/home/ci"))),
            "ci"
        );
        assert_eq!(user_name(passwd, 4242, env(Some("ci"), None)), "");
        assert_eq!(user_name(passwd, 4242, env(None, Some("/root"))), "");
        // /etc/passwd wins over `$USER`, as in Go.
        assert_eq!(
            user_name(passwd, 0, env(Some("someone"), Some("/x"))),
            "root"
        );
    }

    #[test]
    fn days_after_the_epoch_are_gregorian_dates() {
        for (days, date) in [
            (0, (1970, 1, 1)),
            (59, (1970, 3, 1)),
            (11_016, (2000, 2, 29)),
            (11_017, (2000, 3, 1)),
            (20_414, (2025, 11, 22)),
            (47_540, (2100, 2, 28)),
            (47_541, (2100, 3, 1)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
        }
    }

    #[test]
    fn formats_times_as_go_marshals_them() {
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let time = UNIX_EPOCH + Duration::new(1_795_332_600, 123_400_000);
        assert_eq!(rfc3339_utc(time), "2026-11-22T07:30:00.1234Z");
        // A leap day, and the end of a century that is a leap year.
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339_utc(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn reads_terraforms_sidecar_and_names_the_holder() {
        let written_by_terraform = br#"{"ID":"6b1d2a3e-0000-4000-8000-000000000001","Operation":"OperationTypeApply","Info":"","Who":"ana@ci-7","Version":"1.15.5","Created":"2026-11-22T07:00:00.5Z","Path":"terraform.tfstate"}"#;
        let info = LockInfo::parse(written_by_terraform).unwrap();
        assert_eq!(
            info.to_string(),
            "`ana@ci-7` (Terraform 1.15.5, operation `OperationTypeApply`, since 2026-11-22T07:00:00.5Z, lock ID 6b1d2a3e-0000-4000-8000-000000000001)"
        );
        // Written back with Go's field names and order.
        assert_eq!(info.to_json().as_bytes(), written_by_terraform);
    }

    /// Was 300 MB of `Who` on stderr: every field is cut for display, and a lock info larger than
    /// [`MAX_LOCK_INFO`] is not read at all.
    #[test]
    fn a_hostile_lock_info_is_cut_for_display_and_refused_when_huge() {
        let long = "é".repeat(2000);
        let info = LockInfo {
            id: long.clone(),
            operation: long.clone(),
            info: long.clone(),
            who: long.clone(),
            version: long.clone(),
            created: long.clone(),
            path: long.clone(),
        };
        let shown = info.to_string();
        assert!(
            shown.len() < 6 * (2 * MAX_FIELD_SHOWN + 40),
            "{}",
            shown.len()
        );
        assert!(shown.starts_with(&format!("`{}... (4000 bytes in all)`", "é".repeat(200))));
        let json = info.to_json();
        assert!(json.len() < MAX_LOCK_INFO);
        assert_eq!(LockInfo::parse(json.as_bytes()), Some(info));
        let huge = format!(r#"{{"ID":"x","Who":"{}"}}"#, "w".repeat(MAX_LOCK_INFO));
        assert_eq!(LockInfo::parse(huge.as_bytes()), None);
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(".terraform.tfstate.lock.info");
        std::fs::write(&path, &huge).unwrap();
        assert_eq!(LockInfo::read_file(&path), None);
        std::fs::write(&path, &json).unwrap();
        assert!(LockInfo::read_file(&path).is_some());
    }

    #[test]
    fn new_locks_get_distinct_version_4_ids() {
        let (first, second) = (
            LockInfo::new("taint", Path::new("a")),
            LockInfo::new("taint", Path::new("a")),
        );
        assert_ne!(first.id, second.id);
        assert_eq!(first.id.len(), 36);
        assert_eq!(&first.id[14..15], "4");
        assert!(first.who.contains('@'));
    }

    #[test]
    fn the_sidecar_sits_beside_the_state() {
        assert_eq!(
            sidecar_path(Path::new("envs/prod/terraform.tfstate")),
            Path::new("envs/prod/.terraform.tfstate.lock.info")
        );
        assert_eq!(
            sidecar_path(Path::new("terraform.tfstate")),
            Path::new(".terraform.tfstate.lock.info")
        );
    }
}
