//! Sorting one HTTP attempt into what the poller does with it: an answer to read, "not found", 410, a
//! transient failure worth a retry, or an answer the protocol does not allow. Also the server's own
//! pacing: `Retry-After` (delta-seconds or an HTTP-date) and AWS's `x-amz-retry-after` (milliseconds).
//! The poller, not this file, caps an honoured wait at the deadline.

use std::time::{Duration, SystemTime};

use statectl_net::http::retry_after;

use super::observation::Observation;
use crate::reconcile::http::{HttpResponse, TransportError, TransportKind};

/// What an HTTP status code means to the poller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// 2xx: the body holds the state.
    Answer,
    /// 404.
    NotFound,
    /// 410.
    Gone,
    /// 408, 409, 429, and 5xx except 501: the server may answer if asked again (the OCI SDK's and
    /// AWS's retry set for reads; OCI answers 409 while another operation holds the object).
    Transient,
    /// 3xx: a redirect, never followed (it could carry a signed request or a token to another host).
    Redirect,
    /// Anything else, 501 included: asking again will not change the answer.
    Invalid,
}

pub fn classify(status: u16) -> Class {
    match status {
        200..=299 => Class::Answer,
        404 => Class::NotFound,
        410 => Class::Gone,
        // 501 means the server does not do this at all: retrying would only spend the budget.
        408 | 409 | 429 | 500 | 502..=599 => Class::Transient,
        300..=399 => Class::Redirect,
        _ => Class::Invalid,
    }
}

/// Whether a failure to get any answer is worth a retry. `Other` (an oversized body, a request that
/// cannot be built) will fail the same way again.
pub fn is_transient(kind: TransportKind) -> bool {
    match kind {
        TransportKind::Connect | TransportKind::Reset | TransportKind::Timeout => true,
        TransportKind::Other => false,
    }
}

/// The wait a server asked for, if any and readable. `x-amz-retry-after` wins when both are sent: it
/// is the more precise. A date in the past means "now"; anything unreadable is ignored, as if absent.
pub fn retry_after(headers: &[(String, String)], now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.trim())
    };
    if let Some(millis) = header("x-amz-retry-after").and_then(retry_after::delta_seconds) {
        return Some(Duration::from_millis(millis));
    }
    retry_after::parse(header("retry-after")?, now)
}

/// Turns an HTTP answer into an observation; `read` maps a 2xx body to a state (or to whatever the
/// profile decides an unreadable body is). The server's pacing is attached to what `read` returns.
pub fn observe_response(
    response: &HttpResponse,
    now: SystemTime,
    read: impl FnOnce(&HttpResponse) -> Observation,
) -> Observation {
    let pacing = retry_after(&response.headers, now);
    match classify(response.status) {
        Class::Answer => read(response).with_retry_after(pacing),
        Class::NotFound => Observation::NotFound,
        Class::Gone => Observation::Gone,
        Class::Transient => Observation::Transient {
            retry_after: pacing,
            detail: format!("HTTP {}", response.status),
        },
        Class::Redirect => Observation::Error(redirect_message(response)),
        Class::Invalid => Observation::Invalid {
            status: response.status,
        },
    }
}

/// `HTTP 302: the endpoint redirects to `https://other.example/v3`...`: where to, without the query
/// (it may carry a token), so the user can fix the endpoint.
fn redirect_message(response: &HttpResponse) -> String {
    let target = response.header("location").map(|location| {
        let location = location.split(['?', '#']).next().unwrap_or_default();
        // Masked before the cut: a cut through a URL's userinfo would leave half a password.
        let location = statectl_net::secrets::mask_message(location);
        let shown: String = location.chars().take(200).collect();
        format!(" to `{}`", shown.escape_default())
    });
    format!(
        "HTTP {}: the endpoint redirects{}, and statectl does not follow redirects; point `--endpoint` at the final address",
        response.status,
        target.unwrap_or_default()
    )
}

/// Turns a failure to get an answer into an observation.
pub fn observe_transport(error: &TransportError) -> Observation {
    if is_transient(error.kind) {
        Observation::transient(error.message.clone())
    } else {
        Observation::Error(error.message.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::poll::StatusClass;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|&(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    }

    /// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
    fn rfc_example() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)
    }

    #[test]
    fn classification_table() {
        let table = [
            (200, Class::Answer),
            (202, Class::Answer),
            (204, Class::Answer),
            (301, Class::Redirect),
            (302, Class::Redirect),
            (308, Class::Redirect),
            (400, Class::Invalid),
            (401, Class::Invalid),
            (403, Class::Invalid),
            (404, Class::NotFound),
            (408, Class::Transient),
            (409, Class::Transient),
            (410, Class::Gone),
            (412, Class::Invalid),
            (422, Class::Invalid),
            (429, Class::Transient),
            (500, Class::Transient),
            (501, Class::Invalid),
            (502, Class::Transient),
            (503, Class::Transient),
            (504, Class::Transient),
            (599, Class::Transient),
            (100, Class::Invalid),
            (600, Class::Invalid),
        ];
        for (status, class) in table {
            assert_eq!(classify(status), class, "{status}");
        }
    }

    #[test]
    fn transport_failures_worth_a_retry() {
        assert!(is_transient(TransportKind::Connect));
        assert!(is_transient(TransportKind::Reset));
        assert!(is_transient(TransportKind::Timeout));
        assert!(!is_transient(TransportKind::Other));
    }

    #[test]
    fn retry_after_reads_seconds_http_dates_and_aws_milliseconds_and_ignores_garbage() {
        // Each case: the headers, the wait they ask for.
        type Case = (&'static [(&'static str, &'static str)], Option<Duration>);
        let secs = |n| Some(Duration::from_secs(n));
        let cases: &[Case] = &[
            // In seconds.
            (&[("retry-after", "120")], secs(120)),
            (&[("Retry-After", " 0 ")], Some(Duration::ZERO)),
            // As an HTTP date, and the obsolete forms HTTP still requires readers to accept.
            (
                &[("retry-after", "Sun, 06 Nov 1994 08:50:37 GMT")],
                secs(60),
            ),
            (
                &[("retry-after", "Sunday, 06-Nov-94 08:49:47 GMT")],
                secs(10),
            ),
            (&[("retry-after", "Sun Nov  6 08:49:39 1994")], secs(2)),
            // A date in the past means now.
            (
                &[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")],
                Some(Duration::ZERO),
            ),
            // x-amz-retry-after is milliseconds and wins; an unreadable one falls back to the
            // standard header.
            (
                &[("x-amz-retry-after", "1500")],
                Some(Duration::from_millis(1500)),
            ),
            (
                &[("retry-after", "10"), ("X-Amz-Retry-After", "250")],
                Some(Duration::from_millis(250)),
            ),
            (
                &[("x-amz-retry-after", "soon"), ("retry-after", "3")],
                secs(3),
            ),
            // Garbage is ignored.
            (&[("retry-after", "")], None),
            (&[("retry-after", "soon")], None),
            (&[("retry-after", "-5")], None),
            (&[("retry-after", "+5")], None),
            (&[("retry-after", "1.5")], None),
            (&[("retry-after", "5s")], None),
            (&[("retry-after", "99999999999999999999999")], None),
            (&[("retry-after", "Sun, 32 Nov 1994 08:49:37 GMT")], None),
            (&[("x-amz-retry-after", "-1")], None),
            (&[], None),
        ];
        for &(pairs, expected) in cases {
            assert_eq!(
                retry_after(&headers(pairs), rfc_example()),
                expected,
                "{pairs:?}"
            );
        }
    }

    fn response(status: u16, pairs: &[(&str, &str)]) -> HttpResponse {
        HttpResponse {
            status,
            headers: headers(pairs),
            body: b"{\"state\":\"in progress\"}".to_vec(),
        }
    }

    fn read_state(_: &HttpResponse) -> Observation {
        Observation::status("in progress", StatusClass::Pending)
    }

    #[test]
    fn a_redirect_is_an_error_naming_where_to_but_not_the_query() {
        let found = response(
            302,
            &[(
                "location",
                "https://elsewhere.example/v3/x?token=s3cret#frag",
            )],
        );
        let Observation::Error(message) = observe_response(&found, rfc_example(), read_state)
        else {
            panic!("a redirect is an error")
        };
        assert_eq!(
            message,
            "HTTP 302: the endpoint redirects to `https://elsewhere.example/v3/x`, and statectl does not follow redirects; point `--endpoint` at the final address"
        );
        assert!(!message.contains("s3cret"));
        let Observation::Error(message) =
            observe_response(&response(301, &[]), rfc_example(), read_state)
        else {
            panic!("a redirect is an error")
        };
        assert!(
            message.starts_with("HTTP 301: the endpoint redirects, and"),
            "{message}"
        );
    }

    #[test]
    fn responses_become_observations() {
        let now = rfc_example();
        let in_progress =
            observe_response(&response(200, &[("retry-after", "7")]), now, read_state);
        assert_eq!(
            in_progress,
            Observation::Status {
                state: "in progress".into(),
                class: StatusClass::Pending,
                retry_after: Some(Duration::from_secs(7)),
            }
        );
        assert_eq!(
            observe_response(&response(503, &[("retry-after", "4")]), now, read_state),
            Observation::Transient {
                retry_after: Some(Duration::from_secs(4)),
                detail: "HTTP 503".into(),
            }
        );
        assert_eq!(
            observe_response(&response(404, &[]), now, read_state),
            Observation::NotFound
        );
        assert_eq!(
            observe_response(&response(410, &[]), now, read_state),
            Observation::Gone
        );
        assert_eq!(
            observe_response(&response(501, &[]), now, read_state),
            Observation::Invalid { status: 501 }
        );
    }

    #[test]
    fn transport_failures_become_observations() {
        let reset = TransportError {
            kind: TransportKind::Reset,
            message: "the connection was closed before an answer".into(),
        };
        assert_eq!(
            observe_transport(&reset),
            Observation::transient("the connection was closed before an answer")
        );
        let too_big = TransportError {
            kind: TransportKind::Other,
            message: "the response body is larger than 4 MB".into(),
        };
        assert_eq!(
            observe_transport(&too_big),
            Observation::Error("the response body is larger than 4 MB".into())
        );
    }
}
