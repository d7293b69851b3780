//! What a failed HTTP request says, for every client's one-line errors: the innermost cause
//! (`connection refused`, `invalid peer certificate: UnknownIssuer`), never the URL reqwest's own
//! text repeats (it may carry a SAS token, a password or a signed query), nor a secret an endpoint
//! echoes back in its error: an excerpt of an answer is masked (`crate::secrets`) before
//! it is cut, so that a cut never leaves a piece of a secret the masks can no longer recognise.

/// What went wrong, from the innermost cause (`connection refused`, `invalid peer certificate:
/// UnknownIssuer`), without the URL the outer errors repeat (it may hold credentials).
pub fn problem(error: &reqwest::Error) -> String {
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
pub fn chain(error: &reqwest::Error) -> String {
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
pub fn without_secrets(text: String, secrets: &[&str]) -> String {
    secrets
        .iter()
        .filter(|secret| !secret.is_empty())
        .fold(text, |text, secret| text.replace(secret, "<redacted>"))
}

/// The first line of a server's answer, masked against the run's secrets and the credential
/// patterns, then cut at `limit` characters (`...` marking the cut). Masking first matters: the
/// cut may split an echoed token, and half a token is no longer one the masks know.
pub fn excerpt(text: &str, limit: usize) -> String {
    let text = crate::secrets::mask_message(text);
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() > limit {
        format!("{}...", line.chars().take(limit).collect::<String>())
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn an_excerpt_is_masked_before_it_is_cut() {
        let token = "excerpt-test-token-0123456789abcdefghijklmnopqrstuvwxyz";
        crate::secrets::register(token);
        let answer = format!("{} echoed: {token}\nsecond line", "x".repeat(20));
        // Cut inside the token: what is left of it would no longer match the registered value.
        let shown = excerpt(&answer, 50);
        assert_eq!(shown, format!("{} echoed: ***", "x".repeat(20)));
        let cut = excerpt(&format!("{}{token}", "y".repeat(40)), 50);
        assert_eq!(cut, format!("{}***", "y".repeat(40)));
        assert_eq!(excerpt("short\nmore", 50), "short");
        assert_eq!(
            excerpt(&"z".repeat(60), 50),
            format!("{}...", "z".repeat(50))
        );
    }
}
