//! Legacy state formats: format 3 (Terraform 0.7 to 0.11) is upgraded in memory to the version-4 text
//! Terraform 1.15.5 holds after its own upgrade, then read by the version-4 parser like any state, so
//! every command sees what Terraform sees; formats 1 and 2 are refused with the way to upgrade them.
//!
//! The upgraded text is exactly what Terraform 1.15.5 writes for the state (`terraform state pull`
//! prints it), but for `terraform_version`, which keeps the one in the file until something writes
//! it; [`TERRAFORM_VERSION`] is the one a write by Terraform would put there.

mod go;
mod v3;

use std::ops::Deref;
use std::sync::OnceLock;

use crate::json::{Span, write_go_string};
use crate::state::bytes::Bytes;
use crate::state::error::{Location, StateError};
use crate::state::model::{State, members};
use crate::state::notes::Noting;
use crate::state::parse::{parse, parse_giving_back, parse_noting};

pub use v3::upgrade as upgrade_v3;

/// The Terraform whose upgrade and writer the upgraded text follows.
pub const TERRAFORM_VERSION: &str = "1.15.5";

/// How to upgrade a legacy state with Terraform itself, for every refusal that needs it.
pub const UPGRADE_HINT: &str = "upgrade it with Terraform 0.12 or later, in the state's folder: `terraform state pull > upgraded.tfstate` writes the format-4 state (`terraform state pull | terraform state push -` replaces it in place)";

/// The error `parse` gives for a format-3 state; [`StateBytes::parse`] upgrades instead.
pub(crate) fn upgradable(offset: usize) -> StateError {
    let mut error = StateError::at(
        offset,
        "this is a format-3 state (Terraform 0.7 to 0.11), which must be upgraded before it is read",
    )
    .with_hint(UPGRADE_HINT);
    error.upgradable_from = Some(3);
    error
}

/// The error for formats 1 and 2, which statectl does not upgrade.
pub(crate) fn too_old(version: u64, offset: usize) -> StateError {
    StateError::at(
        offset,
        format!("this is a format-{version} state, from before Terraform 0.7; statectl reads formats 3 and 4"),
    )
    .with_hint(UPGRADE_HINT)
}

/// A rewritten upgraded state as Terraform 1.15.5 writes it: the same text, with its own version as
/// `terraform_version` (every Terraform write sets it; the upgraded text kept the file's until now).
pub fn as_terraform_writes(text: &str) -> String {
    let member = members(text, Span::new(0, text.len()))
        .into_iter()
        .rev()
        .find(|member| member.key == "terraform_version");
    match member {
        Some(member) => {
            let mut version = String::new();
            write_go_string(TERRAFORM_VERSION, &mut version);
            let value = member.value;
            format!("{}{version}{}", &text[..value.start], &text[value.end..])
        }
        None => text.to_owned(),
    }
}

/// A state file's bytes, with room for the version-4 text a format-3 state upgrades to: the parsed
/// state borrows from one or the other, and lives as long as this.
#[derive(Debug)]
pub struct StateBytes {
    bytes: Bytes,
    upgraded: OnceLock<String>,
}

impl StateBytes {
    pub fn new(bytes: Bytes) -> StateBytes {
        StateBytes {
            bytes,
            upgraded: OnceLock::new(),
        }
    }

    /// Parses the state; a format-3 one is upgraded first. Errors locate in the file's own bytes.
    pub fn parse(&self) -> Result<State<'_>, StateError> {
        self.parse_with(None)
    }

    /// [`StateBytes::parse`], taking the notes `noting` asks for (`parse_noting`).
    pub fn parse_noting(&self, noting: &Noting) -> Result<State<'_>, StateError> {
        self.parse_with(Some(noting))
    }

    /// [`StateBytes::parse`] for a command that reads little of the text after the parse (`list`,
    /// `summary`, `show`): the pages of a mapped file are given back as the parse passes them, so
    /// the process holds the model and not the file (a page read again is mapped again from the
    /// page cache). A command that reads every instance again after the parse (`query`, `diff`)
    /// would map every page twice: it uses [`StateBytes::parse`].
    pub fn parse_reading_once(&self) -> Result<State<'_>, StateError> {
        self.parse_reading_once_with(None)
    }

    /// [`StateBytes::parse_reading_once`], taking the notes `noting` asks for: for `scan`, whose
    /// detectors read the noted values from their copies in the notes, not from the text.
    pub fn parse_noting_reading_once(&self, noting: &Noting) -> Result<State<'_>, StateError> {
        self.parse_reading_once_with(Some(noting))
    }

    fn parse_reading_once_with(&self, noting: Option<&Noting>) -> Result<State<'_>, StateError> {
        match self.bytes.give_back() {
            Some(give_back) => match parse_giving_back(&self.bytes, noting, give_back) {
                Err(error) if error.upgradable_from == Some(3) => self.parse_with(noting),
                other => other,
            },
            None => self.parse_with(noting),
        }
    }

    fn parse_with(&self, noting: Option<&Noting>) -> Result<State<'_>, StateError> {
        let read = |bytes| match noting {
            Some(noting) => parse_noting(bytes, noting),
            None => parse(bytes),
        };
        match read(&self.bytes) {
            Err(error) if error.upgradable_from == Some(3) => {
                let text = self.upgraded_text()?;
                read(text.as_bytes()).map_err(|error| {
                    // A position in text the user never saw would mislead; the message still says
                    // what is wrong, and addresses are the same in both formats.
                    let location = match error.location {
                        Location::Address(address) => Location::Address(address),
                        _ => Location::Nowhere,
                    };
                    StateError {
                        message: format!("after the upgrade from format 3: {}", error.message),
                        location,
                        ..error
                    }
                })
            }
            other => other,
        }
    }

    /// The version-4 text of a format-3 state (upgraded once, on first use).
    fn upgraded_text(&self) -> Result<&str, StateError> {
        if let Some(text) = self.upgraded.get() {
            return Ok(text);
        }
        // `parse` only says "upgradable" for UTF-8 text.
        let source = std::str::from_utf8(&self.bytes)
            .map_err(|_| StateError::new("the file is not valid UTF-8 text"))?;
        let text = upgrade_v3(source).map_err(|error| error.located_in(&self.bytes))?;
        Ok(self.upgraded.get_or_init(|| text))
    }

    /// Whether the parsed state is an upgraded format-3 state (known once [`parse`](Self::parse) ran).
    pub fn is_upgraded(&self) -> bool {
        self.upgraded.get().is_some()
    }

    /// The file's own bytes.
    pub fn raw(&self) -> &[u8] {
        &self.bytes
    }
}

impl Deref for StateBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl From<Bytes> for StateBytes {
    fn from(bytes: Bytes) -> StateBytes {
        StateBytes::new(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V3: &str = r#"{"version": 3, "terraform_version": "0.11.14", "serial": 4, "lineage": "l",
  "modules": [{"path": ["root"], "resources": {
    "null_resource.a.0": {"primary": {"id": "1", "attributes": {"id": "1"}}},
    "null_resource.a.1": {"primary": {"id": "2", "attributes": {"id": "2"}}}}}]}"#;

    fn bytes(text: &str) -> StateBytes {
        StateBytes::new(Bytes::from(text.as_bytes().to_vec()))
    }

    #[test]
    fn a_version_4_state_is_read_in_place() {
        let text = r#"{"version": 4, "serial": 1, "lineage": "l", "resources": []}"#;
        let bytes = bytes(text);
        let state = bytes.parse().unwrap();
        assert!(std::ptr::eq(state.source.as_ptr(), bytes.raw().as_ptr()));
        assert!(!bytes.is_upgraded());
    }

    #[test]
    fn a_format_3_state_is_read_through_its_upgrade() {
        let bytes = bytes(V3);
        let state = bytes.parse().unwrap();
        assert!(bytes.is_upgraded());
        assert_eq!(state.version, 4);
        assert_eq!(state.serial, 4);
        assert_eq!(state.terraform_version.as_deref(), Some("0.11.14"));
        assert_eq!(state.order.len(), 2);
        // The file's own bytes are still what the store compares and backs up.
        assert_eq!(bytes.raw(), V3.as_bytes());
        // Parsing again reuses the upgrade.
        assert_eq!(bytes.parse().unwrap().source, state.source);
    }

    #[test]
    fn what_terraform_writes_carries_its_own_version() {
        let upgraded = upgrade_v3(V3).unwrap();
        let written = as_terraform_writes(&upgraded);
        assert_eq!(
            written,
            upgraded.replacen("\"0.11.14\"", "\"1.15.5\"", 1),
            "only terraform_version changes"
        );
    }

    #[test]
    fn errors_of_the_upgraded_text_name_the_address_not_a_position_in_it() {
        // `a.0` and `a.00` are one instance to Terraform's reader: two current objects.
        let text = V3.replace("null_resource.a.1", "null_resource.a.00");
        let error = bytes(&text).parse().unwrap_err();
        assert!(
            error
                .message
                .starts_with("after the upgrade from format 3: two current objects"),
            "{}",
            error.message
        );
        assert_eq!(
            error.location,
            Location::Address("null_resource.a[0]".to_owned())
        );
    }

    #[test]
    fn upgrade_errors_locate_in_the_file() {
        let text = V3.replace(r#"["root"]"#, r#"["base"]"#);
        let error = bytes(&text).parse().unwrap_err();
        assert!(error.message.starts_with("invalid module path"));
        assert_eq!(error.describe("f"), format!("f:2:24: {}", error.message));
    }

    #[test]
    fn formats_1_and_2_are_refused_with_the_way_to_upgrade() {
        for version in [1, 2] {
            let error = bytes(&format!(r#"{{"version": {version}, "modules": []}}"#))
                .parse()
                .unwrap_err();
            assert!(error.message.contains(&format!("format-{version} state")));
            assert_eq!(error.hint.as_deref(), Some(UPGRADE_HINT));
            assert_eq!(error.upgradable_from, None);
        }
    }
}
