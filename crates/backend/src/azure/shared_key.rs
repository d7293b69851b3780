//! Azure Storage's Shared Key signature for the Blob service: the string to sign (the verb, the
//! standard headers, the `x-ms-` headers, the canonical resource) signed with HMAC-SHA256 under the
//! account key, as the `Authorization: SharedKey <account>:<signature>` header carries it.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use url::Url;

/// The standard headers in the order the string to sign lists them.
const SIGNED_HEADERS: [&str; 11] = [
    "content-encoding",
    "content-language",
    "content-length",
    "content-md5",
    "content-type",
    "date",
    "if-modified-since",
    "if-match",
    "if-none-match",
    "if-unmodified-since",
    "range",
];

/// The `Authorization` header's value for a request of `method` to `url` with `headers` (names in
/// lower case; every `x-ms-` header the request will carry, `x-ms-date` among them).
pub(super) fn authorization(
    account: &str,
    key: &[u8],
    method: &str,
    url: &Url,
    headers: &[(String, String)],
) -> String {
    let text = string_to_sign(account, method, url, headers);
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    let signature = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    // Good for this request only: kept among the last ones masked.
    statectl_net::secrets::register_ephemeral(&signature);
    format!("SharedKey {account}:{signature}")
}

fn string_to_sign(account: &str, method: &str, url: &Url, headers: &[(String, String)]) -> String {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map_or("", |(_, value)| value.as_str())
    };
    let mut text = String::new();
    text.push_str(method);
    text.push('\n');
    for name in SIGNED_HEADERS {
        let value = header(name);
        // Since version 2015-02-21 a zero length is signed as the empty string.
        if !(name == "content-length" && value == "0") {
            text.push_str(value);
        }
        text.push('\n');
    }
    let mut ms: Vec<(String, String)> = headers
        .iter()
        .filter(|(name, _)| name.starts_with("x-ms-"))
        .map(|(name, value)| (name.clone(), value.trim().to_owned()))
        .collect();
    ms.sort();
    for (name, value) in ms {
        text.push_str(&name);
        text.push(':');
        text.push_str(&value);
        text.push('\n');
    }
    text.push_str(&canonical_resource(account, url));
    text
}

/// `/<account><path>` and each query parameter on a line of its own, names in lower case and sorted,
/// values decoded and joined by commas.
fn canonical_resource(account: &str, url: &Url) -> String {
    let mut text = format!("/{account}{}", url.path());
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    for (name, value) in url.query_pairs() {
        let name = name.to_ascii_lowercase();
        match params.iter_mut().find(|(known, _)| *known == name) {
            Some((_, values)) => values.push(value.into_owned()),
            None => params.push((name, vec![value.into_owned()])),
        }
    }
    params.sort();
    for (name, mut values) in params {
        values.sort();
        text.push('\n');
        text.push_str(&name);
        text.push(':');
        text.push_str(&values.join(","));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn the_string_to_sign_follows_the_documented_layout() {
        let url = Url::parse(
            "https://acct.blob.core.windows.net/tfstate?restype=container&comp=list&prefix=a%2Fb",
        )
        .unwrap();
        let text = string_to_sign(
            "acct",
            "GET",
            &url,
            &headers(&[
                ("x-ms-version", "2023-11-03"),
                ("x-ms-date", "Fri, 26 Jun 2015 23:39:12 GMT"),
                ("content-length", "0"),
            ]),
        );
        assert_eq!(
            text,
            "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Fri, 26 Jun 2015 23:39:12 GMT\nx-ms-version:2023-11-03\n/acct/tfstate\ncomp:list\nprefix:a/b\nrestype:container"
        );
    }

    #[test]
    fn a_put_signs_its_length_type_and_metadata() {
        let url = Url::parse("http://127.0.0.1:10000/devstoreaccount1/c/k.tfstate").unwrap();
        let text = string_to_sign(
            "devstoreaccount1",
            "PUT",
            &url,
            &headers(&[
                ("content-length", "12"),
                ("content-type", "application/json"),
                ("x-ms-meta-terraformlockid", "e30="),
                ("x-ms-blob-type", "BlockBlob"),
            ]),
        );
        assert_eq!(
            text,
            "PUT\n\n\n12\n\napplication/json\n\n\n\n\n\n\nx-ms-blob-type:BlockBlob\nx-ms-meta-terraformlockid:e30=\n/devstoreaccount1/devstoreaccount1/c/k.tfstate"
        );
    }

    /// Azurite's well-known development key signs to a signature checked with an independent
    /// HMAC-SHA256 (`openssl dgst -sha256 -hmac`), so a slip in the MAC or the encoding shows.
    #[test]
    fn the_signature_is_hmac_sha256_of_the_string_in_base64() {
        let key = base64::engine::general_purpose::STANDARD
            .decode("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
            .unwrap();
        let url = Url::parse("http://127.0.0.1:10000/devstoreaccount1/c").unwrap();
        let auth = authorization(
            "devstoreaccount1",
            &key,
            "GET",
            &url,
            &headers(&[("x-ms-date", "Mon, 01 Jan 2024 00:00:00 GMT")]),
        );
        assert_eq!(
            auth,
            "SharedKey devstoreaccount1:JzzFh/mYBtKgRr96t8cx5HK2Sph5wHI/YpR3Mibw3Rg="
        );
    }
}
