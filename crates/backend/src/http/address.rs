//! The backend's URLs as statectl shows and changes them: the location every message names (no
//! userinfo, no query values: they carry passwords and tokens), the backup's file name, and the
//! `?ID=<lock id>` that Terraform puts on writes while it holds the lock.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use url::Url;

/// The address without its userinfo, and with every query value masked: which parameters are
/// secret is the server's business, so none is shown.
pub(super) fn redacted(address: &Url) -> String {
    let mut shown = address.clone();
    // Both fail only for URLs that cannot have userinfo, which then have none to hide.
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_fragment(None);
    if let Some(query) = address.query() {
        let masked: Vec<String> = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) => format!("{key}=***"),
                None => pair.to_owned(),
            })
            .collect();
        shown.set_query(Some(&masked.join("&")));
    }
    shown.to_string()
}

/// The name local backups take: the address path's last segment (`.../terraform/state/prod` gives
/// `prod`), else `terraform.tfstate`. A segment that would not make a plain file name (`..`, an
/// encoded slash) gives the default too.
pub(super) fn backup_name(address: &Url) -> String {
    let last = address
        .path_segments()
        .and_then(|mut segments| segments.next_back())
        .unwrap_or_default();
    let decoded = String::from_utf8(unescape(last.as_bytes())).unwrap_or_default();
    if decoded.is_empty()
        || decoded == "."
        || decoded == ".."
        || decoded.contains(['/', '\\', '\0'])
        || decoded.chars().any(char::is_control)
    {
        "terraform.tfstate".to_owned()
    } else {
        decoded
    }
}

/// `address` with the query parameter `ID` set to `lock_id`, as Terraform's client builds it: the
/// query is parsed as Go's `url.ParseQuery` parses it (pairs it cannot read are dropped), `ID` is
/// replaced, and the whole query is encoded again, keys sorted, as Go's `url.Values.Encode` does.
pub(super) fn with_lock_id(address: &Url, lock_id: &str) -> Url {
    let mut values: BTreeMap<Vec<u8>, Vec<Vec<u8>>> = BTreeMap::new();
    for pair in address.query().unwrap_or_default().split('&') {
        if pair.is_empty() || pair.contains(';') {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(key), Some(value)) = (
            strict_unescape(key.as_bytes()),
            strict_unescape(value.as_bytes()),
        ) else {
            continue;
        };
        values.entry(key).or_default().push(value);
    }
    values.insert(b"ID".to_vec(), vec![lock_id.as_bytes().to_vec()]);
    let mut query = String::new();
    for (key, list) in &values {
        for value in list {
            if !query.is_empty() {
                query.push('&');
            }
            query_escape(&mut query, key);
            query.push('=');
            query_escape(&mut query, value);
        }
    }
    let mut url = address.clone();
    url.set_query(Some(&query));
    url
}

/// Go's `url.QueryEscape`: unreserved bytes stay, a space becomes `+`, the rest `%XX`.
fn query_escape(out: &mut String, bytes: &[u8]) {
    for &byte in bytes {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
}

/// Go's `url.QueryUnescape`: `+` is a space, `%XX` a byte; a broken escape makes the pair unreadable.
fn strict_unescape(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'%' => {
                let high = hex(*bytes.get(index + 1)?)?;
                let low = hex(*bytes.get(index + 2)?)?;
                out.push(high << 4 | low);
                index += 3;
            }
            b'+' => {
                out.push(b' ');
                index += 1;
            }
            byte => {
                out.push(byte);
                index += 1;
            }
        }
    }
    Some(out)
}

/// Percent-decoding that keeps a broken escape as it is (for a path segment).
fn unescape(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        let escaped = (byte == b'%')
            .then(|| Some(hex(*bytes.get(index + 1)?)? << 4 | hex(*bytes.get(index + 2)?)?))
            .flatten();
        if let Some(decoded) = escaped {
            out.push(decoded);
            index += 3;
        } else {
            out.push(byte);
            index += 1;
        }
    }
    out
}

fn hex(digit: u8) -> Option<u8> {
    char::from(digit).to_digit(16).map(|value| value as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn the_lock_id_is_added_to_an_address_without_a_query() {
        assert_eq!(
            with_lock_id(
                &url("https://gitlab.example/api/v4/projects/1/terraform/state/prod"),
                "a-1"
            )
            .as_str(),
            "https://gitlab.example/api/v4/projects/1/terraform/state/prod?ID=a-1"
        );
    }

    #[test]
    fn an_existing_query_is_reencoded_sorted_with_the_id_replaced() {
        // Go's Values.Encode sorts the keys (uppercase first), decodes and re-escapes the values,
        // and drops a pair it cannot parse.
        assert_eq!(
            with_lock_id(
                &url("http://h/s?b=x%20y&a=1&ID=old&bad=%zz&a=0&c=p+q&semi=1;2&flag"),
                "new id"
            )
            .as_str(),
            "http://h/s?ID=new+id&a=1&a=0&b=x+y&c=p+q&flag="
        );
    }

    #[test]
    fn the_location_hides_userinfo_and_query_values() {
        assert_eq!(
            redacted(&url(
                "https://user:secret@h:8443/state/prod?token=abc&x=1#frag"
            )),
            "https://h:8443/state/prod?token=***&x=***"
        );
        assert_eq!(redacted(&url("http://h/state")), "http://h/state");
    }

    #[test]
    fn the_backup_name_is_the_last_segment_else_terraform_tfstate() {
        assert_eq!(
            backup_name(&url("https://h/api/terraform/state/prod")),
            "prod"
        );
        assert_eq!(
            backup_name(&url("https://h/states/my%20state?x=1")),
            "my state"
        );
        assert_eq!(backup_name(&url("https://h/")), "terraform.tfstate");
        assert_eq!(backup_name(&url("https://h/states/")), "terraform.tfstate");
        assert_eq!(
            backup_name(&url("https://h/a/..%2F..%2Fetc")),
            "terraform.tfstate"
        );
    }
}
