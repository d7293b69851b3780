//! The spellings one secret takes in text: as it is, percent-encoded (a token put in a query),
//! percent-decoded (a SAS token is given encoded and a server may echo it decoded), JSON-escaped
//! (serde's escapes and Go's, which also escapes `<`, `>` and `&`); binary keys as base64,
//! base64url and hex. Each spelling shorter than [`SHORTEST`](super::SHORTEST) is left out.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

use super::SHORTEST;

/// The spellings of a text secret, the secret first; empty when it is too short.
pub(super) fn of_text(secret: &str) -> Vec<String> {
    let mut spellings: Vec<String> = Vec::new();
    let mut add = |spelling: String| {
        if spelling.chars().count() >= SHORTEST && !spellings.contains(&spelling) {
            spellings.push(spelling);
        }
    };
    if secret.chars().count() < SHORTEST {
        return Vec::new();
    }
    add(secret.to_owned());
    add(percent_encoded(secret));
    if let Some(decoded) = percent_decoded(secret) {
        add(json_escaped(&decoded, false));
        add(decoded);
    }
    add(json_escaped(secret, false));
    add(json_escaped(secret, true));
    spellings
}

/// The spellings of binary key material: base64 (padded or not, standard or URL alphabet), hex in
/// either case, and the bytes themselves when they are UTF-8 text.
pub(super) fn of_bytes(key: &[u8]) -> Vec<String> {
    let mut spellings = Vec::new();
    if let Ok(text) = std::str::from_utf8(key) {
        spellings.extend(of_text(text));
    }
    let mut lower = String::with_capacity(key.len() * 2);
    for byte in key {
        let _ = write!(lower, "{byte:02x}");
    }
    let upper = lower.to_ascii_uppercase();
    for spelling in [
        STANDARD.encode(key),
        STANDARD_NO_PAD.encode(key),
        URL_SAFE.encode(key),
        URL_SAFE_NO_PAD.encode(key),
        lower,
        upper,
    ] {
        if spelling.len() >= SHORTEST && !spellings.contains(&spelling) {
            spellings.push(spelling);
        }
    }
    spellings
}

/// The password and the `user:password` pair in `url`'s userinfo (also decoded), or a userinfo
/// without a password (a token used as the user name); empty when there is none.
pub(super) fn userinfo(url: &str) -> Vec<String> {
    let Some((_, rest)) = url.split_once("://") else {
        return Vec::new();
    };
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let Some((userinfo, _)) = authority.rsplit_once('@') else {
        return Vec::new();
    };
    let mut found = vec![userinfo.to_owned()];
    if let Some((_, password)) = userinfo.split_once(':') {
        found.push(password.to_owned());
    }
    // HTTP clients send a URL's userinfo as Basic authentication: the pair, decoded, in base64.
    let decoded = percent_decoded(userinfo).unwrap_or_else(|| userinfo.to_owned());
    found.push(STANDARD.encode(decoded));
    found
}

/// `%XX` for every byte but RFC 3986's unreserved ones.
fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// `text` with its `%XX` escapes decoded; `None` when it has none, or they do not decode to UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    let mut decoded_any = false;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| {
                let high = char::from(*bytes.get(index + 1)?).to_digit(16)?;
                let low = char::from(*bytes.get(index + 2)?).to_digit(16)?;
                Some((high << 4 | low) as u8)
            })
            .flatten();
        if let Some(byte) = escaped {
            out.push(byte);
            index += 3;
            decoded_any = true;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    decoded_any.then(|| String::from_utf8(out).ok()).flatten()
}

/// The inside of a JSON string holding `text`: serde's escapes, or with `html` Go's, which also
/// escape `<`, `>` and `&`.
fn json_escaped(text: &str, html: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if html => {
                let _ = write!(out, "\\u{:04x}", u32::from(character));
            }
            control if control.is_control() && u32::from(control) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(control));
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_secret_is_registered_with_its_escaped_spellings() {
        assert_eq!(
            of_text("p@ss/w\"rd<1>"),
            vec![
                "p@ss/w\"rd<1>",
                "p%40ss%2Fw%22rd%3C1%3E",
                "p@ss/w\\\"rd<1>",
                "p@ss/w\\\"rd\\u003c1\\u003e",
            ]
        );
        assert_eq!(of_text("plain-token-1"), vec!["plain-token-1"]);
    }

    #[test]
    fn an_encoded_sas_signature_is_registered_decoded_too() {
        let spellings = of_text("sig=ab%2Bcd%3D%3D");
        assert!(
            spellings.contains(&"sig=ab+cd==".to_owned()),
            "{spellings:?}"
        );
        assert!(spellings.contains(&"sig%3Dab%252Bcd%253D%253D".to_owned()));
    }

    #[test]
    fn too_short_values_are_not_registered() {
        assert!(of_text("1234567").is_empty());
        assert!(of_bytes(&[1, 2, 3]).is_empty());
        assert_eq!(of_text("12345678"), vec!["12345678"]);
    }

    #[test]
    fn binary_keys_are_registered_as_base64_and_hex() {
        let spellings = of_bytes(&[0xfb, 0xff, 0x00, 0x10, 0x20, 0x30]);
        for expected in ["+/8AECAw", "-_8AECAw", "fbff00102030", "FBFF00102030"] {
            assert!(
                spellings.contains(&expected.to_owned()),
                "{expected} in {spellings:?}"
            );
        }
    }

    #[test]
    fn userinfo_gives_the_pair_and_the_password() {
        assert_eq!(
            userinfo("http://admin:PW@127.0.0.1:9000/x?y=a@b"),
            vec!["admin:PW", "PW", "YWRtaW46UFc="]
        );
        assert_eq!(userinfo("https://tok3n@h/"), vec!["tok3n", "dG9rM24="]);
        assert!(userinfo("http://h/a@b").is_empty());
        assert!(userinfo("h:9000").is_empty());
    }
}
