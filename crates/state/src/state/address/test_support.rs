//! Helpers shared by the unit tests of the address modules: parsing that
//! panics with the input on failure, and short constructors for expected
//! values.

use super::{
    AddressError, InstanceAddr, InstanceKey, Mode, ModulePath, ModuleStep, ResourceAddr, Target,
};

pub(super) fn instance(s: &str) -> InstanceAddr {
    InstanceAddr::parse(s).unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
}

pub(super) fn target(s: &str) -> Target {
    Target::parse(s).unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
}

pub(super) fn target_err(s: &str) -> AddressError {
    match Target::parse(s) {
        Ok(t) => panic!("{s:?} should be rejected, parsed as {t:?}"),
        Err(e) => e,
    }
}

/// Checks that `parse` refuses `text` with `message`, at `offset` when one is given.
pub(super) fn rejects<T: std::fmt::Debug>(
    parse: fn(&str) -> Result<T, AddressError>,
    text: &str,
    message: &str,
    offset: Option<usize>,
) {
    let error = match parse(text) {
        Ok(parsed) => panic!("{text:?} should be rejected, parsed as {parsed:?}"),
        Err(error) => error,
    };
    assert_eq!(error.message, message, "{text:?}");
    if let Some(offset) = offset {
        assert_eq!(error.offset, offset, "{text:?}");
    }
}

pub(super) fn str_key(s: &str) -> InstanceKey {
    InstanceKey::Str(s.to_string())
}

pub(super) fn res(module: ModulePath, mode: Mode, type_name: &str, name: &str) -> ResourceAddr {
    ResourceAddr {
        module,
        mode,
        type_name: type_name.to_string(),
        name: name.to_string(),
    }
}

pub(super) fn step(name: &str, key: Option<InstanceKey>) -> ModuleStep {
    ModuleStep {
        name: name.to_string(),
        key,
    }
}

/// Parses, prints the result and checks the text comes back unchanged
/// and reparses to the same value.
pub(super) fn assert_round_trip_instance(s: &str) -> InstanceAddr {
    let parsed = instance(s);
    assert_eq!(parsed.to_string(), s);
    assert_eq!(instance(&parsed.to_string()), parsed);
    parsed
}
