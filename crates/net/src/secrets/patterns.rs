//! The pattern masks: what has the shape of a credential in a message is hidden whether or not it was
//! registered. A URL's userinfo (`http://***@host`); the value of a parameter, field or header named
//! like a credential (`sig=`, `X-Amz-Signature=`, `signature="..."`, `"access_token": "..."`,
//! `password=`, `x-amz-security-token: ...`); the credentials after `Bearer`, `Basic`, and `SharedKey
//! account:`; the body of a PEM private key. Applied to messages only, never to data: a state's own
//! values may look like this and are the user's.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::MASK;

/// Names whose value is a credential, as a query parameter, a JSON field, an HCL argument or a
/// form field (lower case; matched without regard to ASCII case).
const KEYS: &[&str] = &[
    "sig",
    "signature",
    "x-amz-signature",
    "x-amz-security-token",
    "x-goog-signature",
    "x-goog-credential-token",
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "client_assertion",
    "assertion",
    "password",
    "passwd",
    "passphrase",
    "secret",
    "secret_key",
    "secret_access_key",
    "aws_secret_access_key",
    "aws_session_token",
    "session_token",
    "security_token",
    "private_key",
    "token",
    "sas_token",
    "access_key",
    "api_key",
    "apikey",
    "encryption_key",
];

/// Header names whose value is a credential (`name: value`).
const HEADERS: &[&str] = &[
    "x-amz-security-token",
    "x-api-key",
    "x-auth-token",
    "private-token",
    "ocp-apim-subscription-key",
    "x-goog-encryption-key",
    "x-ms-encryption-key",
    "x-amz-server-side-encryption-customer-key",
];

/// Authorization schemes whose next word is the credential.
const SCHEMES: &[&str] = &["bearer", "basic"];

/// The start of a PEM private key.
const PEM_BEGIN: &str = "-----begin ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Key,
    Header,
    Scheme,
    SharedKey,
    Pem,
}

static NAMES: LazyLock<(AhoCorasick, Vec<Kind>)> = LazyLock::new(|| {
    let mut names: Vec<&str> = Vec::new();
    let mut kinds = Vec::new();
    // Headers first: a name in both lists takes a header's `: value` too.
    for (list, kind) in [
        (HEADERS, Kind::Header),
        (KEYS, Kind::Key),
        (SCHEMES, Kind::Scheme),
        (&["sharedkey", "sharedkeylite"][..], Kind::SharedKey),
        (&[PEM_BEGIN][..], Kind::Pem),
    ] {
        for name in list {
            if !names.contains(name) {
                names.push(name);
                kinds.push(kind);
            }
        }
    }
    // A contiguous NFA: it is built in microseconds, where the DFA the builder picks for so few
    // names took about a quarter of `statectl --version`'s own time (clap's message goes through
    // these masks), and the texts searched are messages, short enough that the DFA's faster
    // search never pays for its building.
    let matcher = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(&names)
        .expect("the names are a handful of literals");
    (matcher, kinds)
});

/// `text` with everything shaped like a credential replaced by [`MASK`]; borrowed when there is
/// nothing to hide.
pub fn mask_patterns(text: &str) -> Cow<'_, str> {
    let mut hidden: Vec<(usize, usize)> = Vec::new();
    userinfo(text, &mut hidden);
    named(text, &mut hidden);
    if hidden.is_empty() {
        return Cow::Borrowed(text);
    }
    hidden.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in hidden {
        if end <= last {
            continue;
        }
        let start = start.max(last);
        out.push_str(&text[last..start]);
        out.push_str(MASK);
        last = end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Ends a URL's authority, an unquoted value, or a credential word.
fn ends_value(byte: u8) -> bool {
    byte.is_ascii_whitespace()
        || matches!(
            byte,
            b'"' | b'\''
                | b'`'
                | b'<'
                | b'>'
                | b'\\'
                | b'('
                | b')'
                | b'{'
                | b'}'
                | b'['
                | b']'
                | b'|'
                | b','
                | b';'
                | b'&'
        )
}

/// The userinfo of every `scheme://user:password@host`.
fn userinfo(text: &str, hidden: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    for found in memchr::memmem::find_iter(bytes, b"://") {
        let start = found + 3;
        let end = bytes[start..]
            .iter()
            .position(|&byte| ends_value(byte) || matches!(byte, b'/' | b'?' | b'#'))
            .map_or(bytes.len(), |length| start + length);
        if let Some(at) = bytes[start..end].iter().rposition(|&byte| byte == b'@')
            && at > 0
        {
            hidden.push((start, start + at));
        }
    }
}

/// Values after a credential's name, scheme or PEM header.
fn named(text: &str, hidden: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let (matcher, kinds) = &*NAMES;
    for found in matcher.find_iter(text) {
        let (start, end) = (found.start(), found.end());
        let kind = kinds[found.pattern().as_usize()];
        let word_before = start > 0 && is_word(bytes[start - 1]);
        if word_before && kind != Kind::Pem {
            continue;
        }
        let range = match kind {
            Kind::Key => keyed_value(bytes, end, false),
            Kind::Header => keyed_value(bytes, end, true),
            Kind::Scheme => scheme_credentials(bytes, end),
            Kind::SharedKey => shared_key_signature(bytes, end),
            Kind::Pem => pem_body(text, end),
        };
        hidden.extend(range);
    }
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-')
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|&byte| byte == b' ' || byte == b'\t')
    {
        at += 1;
    }
    at
}

/// The value after `name` (which ends at `at`): `=value`, `= "value"`, `="value"`, a JSON field's
/// `": "value"` (also escaped inside another JSON string), or for a header `: value`.
fn keyed_value(bytes: &[u8], at: usize, header: bool) -> Option<(usize, usize)> {
    let mut next = at;
    // The closing quote of a JSON key, perhaps escaped.
    if bytes.get(next) == Some(&b'\\') && bytes.get(next + 1) == Some(&b'"') {
        next += 2;
    } else if bytes.get(next) == Some(&b'"') {
        next += 1;
    }
    let quoted_key = next > at;
    next = skip_spaces(bytes, next);
    match bytes.get(next) {
        Some(b'=') if !quoted_key => {}
        Some(b':') if quoted_key || header => {}
        _ => return None,
    }
    next = skip_spaces(bytes, next + 1);
    value_at(bytes, next).filter(|&(start, end)| !is_placeholder(&bytes[start..end]))
}

/// A value that stands for one in a hint (`access_key=...`, `password=VALUE`, `token=***`).
fn is_placeholder(value: &[u8]) -> bool {
    value.iter().all(|&byte| matches!(byte, b'.' | b'*'))
        || value
            .iter()
            .all(|&byte| byte.is_ascii_uppercase() || byte == b'_')
        || (value.first() == Some(&b'<') && value.last() == Some(&b'>'))
}

/// A value starting at `at`: a quoted one (`"..."` or `\"...\"`) up to its closing quote, else up to
/// the next character that ends a value.
fn value_at(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let (start, quote): (usize, &[u8]) = match bytes.get(at..) {
        Some([b'\\', b'"', ..]) => (at + 2, b"\\\""),
        Some([b'"', ..]) => (at + 1, b"\""),
        Some([b'\'', ..]) => (at + 1, b"'"),
        _ => {
            let end = bytes[at..]
                .iter()
                .position(|&byte| ends_value(byte))
                .map_or(bytes.len(), |length| at + length);
            return (end > at).then_some((at, end));
        }
    };
    let rest = &bytes[start..];
    let mut end = start;
    let mut index = 0;
    while index < rest.len() {
        if rest[index..].starts_with(quote) {
            break;
        }
        // An escaped character inside a JSON string does not end it.
        index += if quote == b"\"" && rest[index] == b'\\' {
            2
        } else {
            1
        };
        end = (start + index).min(bytes.len());
    }
    (end > start).then_some((start, end))
}

/// The credentials after `Bearer` or `Basic`: one word of at least 8 characters that is not only
/// letters (so that "a bearer token" in a sentence stays as it is).
fn scheme_credentials(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let start = skip_spaces(bytes, at);
    if start == at {
        return None;
    }
    let end = bytes[start..]
        .iter()
        .position(|&byte| ends_value(byte))
        .map_or(bytes.len(), |length| start + length);
    let word = &bytes[start..end];
    (word.len() >= 8 && !word.iter().all(u8::is_ascii_alphabetic)).then_some((start, end))
}

/// Azure's `SharedKey account:signature`: the signature.
fn shared_key_signature(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let start = skip_spaces(bytes, at);
    let end = bytes[start..]
        .iter()
        .position(|&byte| ends_value(byte))
        .map_or(bytes.len(), |length| start + length);
    let colon = bytes[start..end].iter().position(|&byte| byte == b':')?;
    (start + colon + 1 < end).then_some((start + colon + 1, end))
}

/// The body of a PEM private key, from after its `-----BEGIN ... PRIVATE KEY-----` line to its
/// `-----END` (or the end of the text, when it was cut).
fn pem_body(text: &str, at: usize) -> Option<(usize, usize)> {
    const CLOSE: &str = "-----";
    let label_end = at + text[at..].find(CLOSE)?;
    let label = &text[at..label_end];
    if !label.to_ascii_uppercase().ends_with("PRIVATE KEY") || label.len() > 40 {
        return None;
    }
    let start = label_end + CLOSE.len();
    // A body follows (base64 after a line break, or an escaped one), not just the header quoted.
    let body = text[start..]
        .trim_start_matches(|character: char| character.is_ascii_whitespace())
        .trim_start_matches("\\r")
        .trim_start_matches("\\n");
    let base64 = body
        .bytes()
        .take_while(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'='))
        .count();
    if base64 < 16 {
        return None;
    }
    let end = text[start..]
        .find("-----END")
        .map_or(text.len(), |length| start + length);
    (end > start).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(text: &str) -> String {
        mask_patterns(text).into_owned()
    }

    #[test]
    fn userinfo_in_any_url_is_hidden() {
        assert_eq!(
            masked("cannot reach S3 at http://u:PW@127.0.0.1:1 while reading"),
            "cannot reach S3 at http://***@127.0.0.1:1 while reading"
        );
        assert_eq!(
            masked("`https://tok@h/p?a=b@c` and ftp://x@y"),
            "`https://***@h/p?a=b@c` and ftp://***@y"
        );
        assert!(matches!(
            mask_patterns("http://127.0.0.1:1/a@b plain"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn credential_parameters_fields_and_headers_are_hidden() {
        assert_eq!(
            masked("GET /c/b?sv=2021&sig=ab%2Bc%3D&se=1 refused"),
            "GET /c/b?sv=2021&sig=***&se=1 refused"
        );
        assert_eq!(
            masked(r#"keyId="t/u/f",algorithm="rsa-sha256",signature="QUJD+/=" x"#),
            r#"keyId="t/u/f",algorithm="rsa-sha256",signature="***" x"#
        );
        assert_eq!(
            masked("Credential=AKID/x, SignedHeaders=host, Signature=0123abcd"),
            "Credential=AKID/x, SignedHeaders=host, Signature=***"
        );
        assert_eq!(
            masked(r#"{"access_token": "ya29.x\"y", "expires_in": 3599}"#),
            r#"{"access_token": "***", "expires_in": 3599}"#
        );
        assert_eq!(
            masked(r#"{\"password\":\"hunter2\"}"#),
            r#"{\"password\":\"***\"}"#
        );
        assert_eq!(
            masked("x-amz-security-token: FwoGZX\r\nhost: h"),
            "x-amz-security-token: ***\r\nhost: h"
        );
        assert_eq!(
            masked(r#"passphrase = "correct horse""#),
            r#"passphrase = "***""#
        );
    }

    #[test]
    fn names_inside_other_words_and_prose_are_left_alone() {
        for text in [
            "continuation_token=abc next",
            "the password is wrong",
            "`sig` is missing",
            "x-signature-version=1",
            "needs a bearer token from `cf oauth-token`",
            "Basic authentication failed",
            "password: the argument is empty",
            "for example `--backend-config access_key=...` or set ARM_ACCESS_KEY",
            "give `token=VALUE`, `password=<password>` or `sig=***`",
        ] {
            assert_eq!(masked(text), text);
        }
    }

    #[test]
    fn authorization_credentials_are_hidden() {
        assert_eq!(
            masked("Invalid Auth Token: Bearer eyJhbGc.eyJzdWIi.c2ln"),
            "Invalid Auth Token: Bearer ***"
        );
        assert_eq!(
            masked("authorization: Basic YWRtaW46cHc="),
            "authorization: Basic ***"
        );
        assert_eq!(
            masked("Authorization: SharedKey acct:c2lnbmF0dXJl\n"),
            "Authorization: SharedKey acct:***\n"
        );
    }

    #[test]
    fn a_pem_private_key_body_is_hidden_even_when_cut() {
        assert_eq!(
            masked(
                "k: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----\n"
            ),
            "k: -----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\n"
        );
        assert_eq!(
            masked(r"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B..."),
            "-----BEGIN PRIVATE KEY-----***"
        );
        let certificate = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(masked(certificate), certificate);
        // Only the header, named in a message: nothing to hide.
        let named = "this is a PEM block (`-----BEGIN RSA PRIVATE KEY-----`), not a state";
        assert_eq!(masked(named), named);
    }
}
