//! The error every address parser returns: a one-line message saying why the
//! text is not an address, and the byte offset where the problem was found.

use std::fmt;

/// Why an address was rejected and the byte of the input where the problem
/// was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressError {
    pub message: String,
    pub offset: usize,
}

impl AddressError {
    pub(super) fn new(message: impl Into<String>, offset: usize) -> Self {
        AddressError {
            message: message.into(),
            offset,
        }
    }
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid address: {} (at byte {})",
            self.message, self.offset
        )
    }
}

impl std::error::Error for AddressError {}

#[cfg(test)]
mod tests {
    use super::super::test_support::target_err;

    #[test]
    fn error_display_is_one_line_with_the_offset() {
        let e = target_err("aws_x.y[1.5]");
        assert_eq!(
            e.to_string(),
            "invalid address: resource instance key 1.5 is not a whole number (at byte 8)"
        );
        let e = target_err("aws_x.y\n!");
        assert_eq!(
            e.to_string(),
            "invalid address: expected \".\", \"[\" or the end of the address, found \"!\" (at byte 8)"
        );
        let e = target_err("aws_x.y\n\u{1}");
        assert!(!e.to_string().contains(['\n', '\u{1}']), "{e}");
    }
}
