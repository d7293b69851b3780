//! What a failed HTTP request says, for every backend's one-line errors: the innermost cause
//! (`connection refused`, `invalid peer certificate: UnknownIssuer`), never the URL reqwest's own
//! text repeats (it may carry a SAS token, a password or a signed query), nor a secret an endpoint
//! echoes back in its error.

/// What went wrong, from the innermost cause (`connection refused`, `invalid peer certificate:
/// UnknownIssuer`), without the URL the outer errors repeat (it may hold credentials).
pub(crate) fn problem(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return "no answer in time (timed out)".to_owned();
    }
    let mut innermost: &dyn std::error::Error = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    if std::ptr::addr_eq(innermost, error) {
        // reqwest's own text names the URL; say what kind of failure it was instead.
        return if error.is_connect() {
            "cannot connect"
        } else if error.is_body() || error.is_decode() {
            "the answer broke off"
        } else {
            "the request failed"
        }
        .to_owned();
    }
    let text = innermost.to_string();
    let text = match text.find(" (os error") {
        Some(end) => text[..end].to_owned(),
        None => text,
    };
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

/// Every cause's text, for classifying an error.
pub(crate) fn chain(error: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut next: Option<&dyn std::error::Error> = Some(error);
    while let Some(cause) = next {
        text.push_str(&cause.to_string());
        text.push('\n');
        next = cause.source();
    }
    text
}

/// `text` with every occurrence of each non-empty secret replaced: a token endpoint that echoes the
/// assertion, token or client secret it was sent must not put it in a message.
pub(crate) fn without_secrets(text: String, secrets: &[&str]) -> String {
    secrets
        .iter()
        .filter(|secret| !secret.is_empty())
        .fold(text, |text, secret| text.replace(secret, "<redacted>"))
}
