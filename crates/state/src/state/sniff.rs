//! Naming what a file is when it is not a state: encrypted files (age, PGP, SOPS, OpenTofu's
//! envelope), archives (gzip, a Terraform plan file), Terraform's JSON output, text in another
//! encoding, and text that is not JSON at all, each with the command that turns it into a state.
//!
//! Two entry points: [`bytes`] looks only at the first bytes, before any UTF-8 or JSON check (and so
//! also works on the first chunk of a pipe, before the rest is read); [`document`] looks at the
//! top-level keys of a JSON object, and runs only once parsing has failed, so a real state never
//! pays for it.

use crate::json::Cursor;
use crate::state::error::StateError;

type Result<T> = std::result::Result<T, StateError>;

/// How much of a file [`bytes`] needs to recognise what it is.
pub const PREFIX: usize = 4096;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const AGE_BINARY: &[u8] = b"age-encryption.org/v1\n";
const GZIP: &[u8] = b"\x1f\x8b";
const ZIP: &[u8] = b"PK\x03\x04";

/// Refusals from the first bytes alone. `whole` says whether `bytes` is the whole file: an empty
/// prefix of a longer file is not an empty file.
pub fn bytes(bytes: &[u8], whole: bool) -> Result<()> {
    let head = &bytes[..bytes.len().min(PREFIX)];
    if whole && bytes.trim_ascii().is_empty() {
        return Err(StateError::new("the state file is empty").with_hint(
            "Terraform leaves an empty file when there is no state yet; there is nothing to read",
        ));
    }
    encoding(head)?;
    binary(head)?;
    armour(head)?;
    if head.starts_with(b"tfstate") {
        return Err(StateError::new("this is a legacy binary state (format version 0, Terraform before 0.7)")
            .with_hint("upgrade it with Terraform 0.11 (`terraform refresh`), then with Terraform 0.12 or later"));
    }
    if head.iter().all(|&byte| byte == 0) && !head.is_empty() {
        return Err(StateError::at(0, "not JSON: it holds only NUL bytes").with_hint(
            "a crash in the middle of a write can leave this; restore the state from its backup",
        ));
    }
    let start = head.iter().position(|byte| !byte.is_ascii_whitespace());
    if let Some(start) = start
        && !can_start_json(head[start])
    {
        return Err(not_json_byte(head, start));
    }
    // Binary data that happens to start like JSON (`cat /dev/urandom | statectl list -`) is told
    // from the prefix too, rather than after reading gigabytes; a character cut by the prefix's end
    // is not an error.
    if let Err(error) = std::str::from_utf8(head)
        && error.error_len().is_some()
    {
        return Err(not_utf8(error.valid_up_to()));
    }
    Ok(())
}

/// Bytes that are not UTF-8, at `offset`.
pub fn not_utf8(offset: usize) -> StateError {
    StateError::at(offset, "the file is not valid UTF-8 text").with_hint(
        "a state is JSON written as UTF-8; was it saved in another encoding, or is it binary?",
    )
}

/// Byte-order marks and UTF-16/UTF-32 text without one (a `{` with NUL bytes beside it).
fn encoding(head: &[u8]) -> Result<()> {
    let other = |name: &str| {
        StateError::at(0, format!("the file is {name} text; a state is UTF-8 JSON"))
            .with_hint("convert it, for example `iconv -f UTF-16 -t UTF-8 FILE > state.tfstate` (PowerShell's `>` writes UTF-16; use `Out-File -Encoding utf8NoBOM`)")
    };
    if head.starts_with(b"\x00\x00\xFE\xFF") || head.starts_with(b"\xFF\xFE\x00\x00") {
        return Err(other("UTF-32"));
    }
    if head.starts_with(b"\xFE\xFF") || head.starts_with(b"\xFF\xFE") {
        return Err(other("UTF-16"));
    }
    if head.starts_with(b"{\x00") || head.starts_with(b"\x00{") {
        return Err(other("UTF-16"));
    }
    if head.starts_with(UTF8_BOM) {
        return Err(StateError::at(
            0,
            "the file starts with a UTF-8 byte-order mark, which Terraform cannot read either",
        )
        .with_hint(
            "remove the first three bytes, for example `sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`",
        ));
    }
    Ok(())
}

/// Binary formats that turn up where a state was expected.
fn binary(head: &[u8]) -> Result<()> {
    if head.starts_with(AGE_BINARY) {
        return Err(
            encrypted("age").with_hint("decrypt it first: `age -d -i KEY FILE > state.tfstate`")
        );
    }
    if head.starts_with(GZIP) {
        return Err(
            StateError::new("this is a gzip-compressed file, not a state")
                .with_hint("decompress it first: `gunzip -c FILE > state.tfstate`"),
        );
    }
    if head.starts_with(ZIP) {
        // A plan file's first entry is `tfplan`; its name follows the 30-byte local file header.
        let name = head.get(30..36);
        if name == Some(b"tfplan") || memchr::memmem::find(head, b"tfplan").is_some() {
            return Err(StateError::new("this is a Terraform plan file (`terraform plan -out`), not a state")
                .with_hint("`terraform show -json PLAN > plan.json` turns it into JSON; `statectl audit --plan plan.json` reads that"));
        }
        return Err(StateError::new("this is a zip archive, not a state")
            .with_hint("unzip it and name the state file inside"));
    }
    Ok(())
}

/// ASCII armour: age, PGP, and any other `-----BEGIN ...-----` block.
fn armour(head: &[u8]) -> Result<()> {
    let text = head.trim_ascii_start();
    let Some(rest) = text.strip_prefix(b"-----BEGIN ") else {
        return Ok(());
    };
    if rest.starts_with(b"AGE ENCRYPTED FILE-----") {
        return Err(encrypted("age (ASCII armour)")
            .with_hint("decrypt it first: `age -d -i KEY FILE > state.tfstate`"));
    }
    if rest.starts_with(b"PGP MESSAGE-----") {
        return Err(encrypted("PGP (ASCII armour)")
            .with_hint("decrypt it first: `gpg -d FILE > state.tfstate`"));
    }
    let label_end = memchr::memmem::find(rest, b"-----").unwrap_or(0);
    let label = String::from_utf8_lossy(&rest[..label_end.min(40)]).into_owned();
    Err(StateError::at(
        0,
        format!("not JSON: this is a PEM block (`-----BEGIN {label}-----`), not a state"),
    ))
}

fn encrypted(how: &str) -> StateError {
    StateError::new(format!(
        "this file is encrypted with {how}; statectl reads plain and OpenTofu-encrypted states only"
    ))
}

/// The bytes a JSON value can start with.
fn can_start_json(byte: u8) -> bool {
    matches!(
        byte,
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
    )
}

fn not_json_byte(head: &[u8], at: usize) -> StateError {
    let found = match std::str::from_utf8(&head[at..]) {
        Ok(text) => text.chars().next(),
        Err(error) if error.valid_up_to() > 0 => {
            std::str::from_utf8(&head[at..at + error.valid_up_to()])
                .ok()
                .and_then(|text| text.chars().next())
        }
        Err(_) => None,
    };
    let what = match found {
        Some(found) => format!("character '{}'", found.escape_debug()),
        None => format!("byte 0x{:02X}", head[at]),
    };
    let error = StateError::at(
        at,
        format!("not JSON: unexpected {what}, where a state starts with '{{'"),
    );
    if head[at] == b'<' {
        return error.with_hint(
            "this looks like HTML or XML: was an error page saved instead of the state?",
        );
    }
    if memchr::memmem::find(head, b"ENC[AES256_GCM,").is_some() {
        return sops();
    }
    error.with_hint("a state is a JSON object; is this the right file?")
}

fn sops() -> StateError {
    encrypted("SOPS").with_hint("decrypt it first: `sops -d FILE > state.tfstate`")
}

/// Text that is valid UTF-8 whose top level is not an object: either it is not JSON at all (named
/// with the place of the first bad byte), or it is JSON of the wrong kind.
pub fn not_an_object(source: &str) -> StateError {
    let mut cursor = Cursor::new(source);
    let found = match cursor.peek() {
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b'-' | b'0'..=b'9') => "a number",
        Some(b't' | b'f') => "a boolean",
        _ => "null",
    };
    if let Err(error) = cursor.skip_value().and_then(|_| cursor.finish()) {
        if source.contains("ENC[AES256_GCM,") {
            return sops();
        }
        return StateError::at(error.offset, format!("not JSON: {}", error.kind))
            .with_hint("a state is a JSON object; is this the right file?");
    }
    StateError::at(
        cursor_start(source),
        format!("the top level is {found}, but a state is a JSON object"),
    )
}

fn cursor_start(source: &str) -> usize {
    source.len() - source.trim_ascii_start().len()
}

/// A JSON object that is something other than a state, named from its top-level keys. Called only
/// when parsing it as a state failed; `None` when it looks like no other known format.
pub fn document(source: &str) -> Option<StateError> {
    let mut cursor = Cursor::new(source);
    let mut keys = Keys::default();
    cursor
        .object(|cursor, key, _| {
            match key.as_ref() {
                "encryption_version" => keys.encryption_version = true,
                "encrypted_data" => keys.encrypted_data = true,
                "meta" => keys.meta = true,
                "format_version" => keys.format_version = true,
                "planned_values" | "resource_changes" => keys.planned_values = true,
                "values" => keys.values = true,
                "sops" if cursor.peek() == Some(b'{') => {
                    cursor.object(|cursor, key, _| {
                        keys.sops_mac |= key == "mac";
                        keys.sops_version |= key == "version";
                        cursor.skip_value().map(|_| ())
                    })?;
                    return Ok(());
                }
                _ => {}
            }
            cursor.skip_value().map(|_| ())
        })
        .ok()?;
    if keys.encryption_version && (keys.encrypted_data || keys.meta) {
        return Some(
            StateError::new("this is an OpenTofu encrypted state, and it was not decrypted")
                .with_hint("statectl decrypts it given the key configuration: the configuration directory (`--config DIR`, its `encryption` block) or `TF_ENCRYPTION`"),
        );
    }
    if keys.sops_mac && keys.sops_version {
        return Some(sops());
    }
    if keys.format_version && keys.planned_values {
        return Some(
            StateError::new(
                "this is Terraform's JSON plan (`terraform show -json PLAN`), not a state",
            )
            .with_hint("`statectl audit --plan FILE` reads it, beside the state"),
        );
    }
    if keys.format_version && keys.values {
        return Some(
            StateError::new(
                "this is Terraform's JSON output (`terraform show -json`), not a state",
            )
            .with_hint("use the state itself: `terraform state pull > state.tfstate`"),
        );
    }
    None
}

#[derive(Default)]
struct Keys {
    encryption_version: bool,
    encrypted_data: bool,
    meta: bool,
    format_version: bool,
    planned_values: bool,
    values: bool,
    sops_mac: bool,
    sops_version: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(head: &[u8], whole: bool) -> Option<String> {
        bytes(head, whole).err().map(|error| error.message)
    }

    #[test]
    fn a_prefix_of_blanks_is_not_an_empty_file() {
        // The first 4 KiB of a state indented by a very long run of blanks judge nothing.
        assert_eq!(refusal(&[b' '; PREFIX], false), None);
        assert_eq!(
            refusal(b" \n", true).as_deref(),
            Some("the state file is empty")
        );
        assert_eq!(refusal(b"  {\"version\": 4", false), None);
    }

    #[test]
    fn binary_that_starts_like_json_is_told_from_the_prefix() {
        assert_eq!(
            refusal(b"{\"a\": \"\xff\xfe\"}", false).as_deref(),
            Some("the file is not valid UTF-8 text")
        );
        // A character cut by the end of the prefix is for the full read to judge.
        assert_eq!(
            refusal("{\"a\": \"é".as_bytes().split_last().unwrap().1, false),
            None
        );
    }

    #[test]
    fn only_what_cannot_start_json_is_refused_from_the_first_bytes() {
        for start in [&b"{"[..], b"[", b"\"", b"-1", b"7", b"true", b"null"] {
            assert_eq!(refusal(start, false), None, "{start:?}");
        }
        assert_eq!(
            refusal(b"\n\n  x", false).as_deref(),
            Some("not JSON: unexpected character 'x', where a state starts with '{'")
        );
        let error = bytes(b"\n\n  x", false).unwrap_err().located_in(b"\n\n  x");
        assert_eq!(
            error.describe("f"),
            "f:3:3: not JSON: unexpected character 'x', where a state starts with '{'"
        );
    }

    #[test]
    fn a_zip_without_tfplan_is_only_a_zip() {
        assert_eq!(
            refusal(b"PK\x03\x04\x14\x00\x00\x00other", false).as_deref(),
            Some("this is a zip archive, not a state")
        );
    }

    #[test]
    fn documents_are_named_from_their_keys_only_when_they_match() {
        let named = |text: &str| document(text).map(|error| error.message);
        assert_eq!(named(r#"{"version": 4}"#), None);
        // `encryption_version` alone is not enough: a state could carry an unknown key of that name.
        assert_eq!(named(r#"{"encryption_version": "v0"}"#), None);
        assert!(named(r#"{"encryption_version": "v0", "encrypted_data": ""}"#).is_some());
        assert_eq!(named(r#"{"sops": {"version": "3"}}"#), None);
        assert!(named(r#"{"sops": {"mac": "x", "version": "3"}}"#).is_some());
        assert_eq!(named(r#"{"format_version": "1.0"}"#), None);
        assert_eq!(named("{"), None);
    }

    #[test]
    fn an_envelope_with_a_version_is_still_refused() {
        let envelope = r#"{"version": 4, "serial": 1, "lineage": "x", "meta": {}, "encrypted_data": "AA==", "encryption_version": "v0"}"#;
        let error = crate::state::parse(envelope.as_bytes()).unwrap_err();
        assert_eq!(
            error.message,
            "this is an OpenTofu encrypted state, and it was not decrypted"
        );
    }
}
