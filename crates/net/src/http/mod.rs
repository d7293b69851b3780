//! The pieces of an HTTP exchange that every client of statectl shares: the client's defaults
//! (`client`), reading an answer within a size limit (`body`), the status line (`status_text`),
//! what a failed request says (`error_text`), and the server's own pacing (`retry_after`).

pub mod body;
pub mod client;
pub mod error_text;
pub mod retry_after;

/// `404 Not Found`; the bare code when the status has no reason phrase.
pub fn status_text(status: u16) -> String {
    match reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|status| status.canonical_reason())
    {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_status_has_its_reason_phrase_when_it_has_one() {
        assert_eq!(super::status_text(412), "412 Precondition Failed");
        assert_eq!(super::status_text(599), "599");
    }
}
