//! Percent-encoding of the names a backend puts into a request's path, in the two sets the
//! backends' Terraform SDKs use; every other byte (non-ASCII ones included) as `%XX`, upper case.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986's unreserved characters, `/` included.
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Go's `url.PathEscape`: the unreserved characters and `$&+:=@` stay.
const NOT_PATH_SEGMENT: &AsciiSet = &NOT_UNRESERVED
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b':')
    .remove(b'=')
    .remove(b'@');

/// `text` with everything but the unreserved characters escaped, `/` included: a gcs object name,
/// an OCI path parameter (the services take both spellings).
pub(crate) fn unreserved(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

/// `text` as one path segment, escaped as Go's `url.PathEscape` escapes it (HCP Terraform's
/// organization, workspace and version IDs).
pub(crate) fn path_segment(text: &str) -> String {
    utf8_percent_encode(text, NOT_PATH_SEGMENT).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_escape_as_go_does() {
        assert_eq!(path_segment("acme$&+:=@~"), "acme$&+:=@~");
        assert_eq!(path_segment("a b/c"), "a%20b%2Fc");
        assert_eq!(path_segment("app,eu"), "app%2Ceu");
    }
}
