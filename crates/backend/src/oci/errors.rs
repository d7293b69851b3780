//! Object Storage's refusals in one line each: the service's error body (`{"code": "BucketNotFound",
//! "message": "..."}`) read for its code and message, and a hint for the ones a user can mend (the
//! bucket or namespace, the API key, throttling, the endpoint).

use statectl_state::state::store::StoreError;

use super::client::{Answer, Failure};

/// The service's error code, or empty when the answer has none (a HEAD's 404).
pub(super) fn code(answer: &Answer) -> String {
    field(answer, "code")
}

fn field(answer: &Answer, name: &str) -> String {
    serde_json::from_slice::<serde_json::Value>(&answer.body)
        .ok()
        .and_then(|body| body.get(name)?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// What the backend is doing, for messages.
pub(super) struct Doing<'a> {
    /// `oci://ns/bucket/object`.
    pub location: &'a str,
    /// `read the state`.
    pub what: &'a str,
    /// `GET terraform.tfstate.lock`.
    pub request: String,
    /// How the key is named: `fingerprint 12:34 of profile DEFAULT in ...`.
    pub key: &'a str,
}

impl Doing<'_> {
    /// The error for an answer the operation does not take.
    pub(super) fn refused(&self, answer: &Answer) -> StoreError {
        let code = code(answer);
        let message = field(answer, "message");
        let mut said = format!("{}", answer.status);
        if !code.is_empty() {
            said.push(' ');
            said.push_str(&code);
        }
        if !message.is_empty() {
            // One line, whatever the service wrote.
            let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
            said = format!("{said} ({message})");
        }
        let base = format!(
            "{}: cannot {}: {} answered {said}",
            self.location, self.what, self.request
        );
        match (answer.status, code.as_str()) {
            (401, _) => StoreError::new(format!(
                "{base}: the service did not accept the signature of the API key with {}",
                self.key
            ))
            .with_hint("check the key's tenancy, user and fingerprint, that its public key is uploaded to that user, and the clock"),
            (404, "BucketNotFound" | "NamespaceNotFound") | (403, _) => StoreError::new(base)
                .with_hint("check `bucket` and `namespace` (`oci os ns get` prints the namespace) and that the key's user may use the bucket"),
            _ => StoreError::new(base),
        }
    }

    /// The error for a request that got no usable answer.
    pub(super) fn failed(&self, failure: Failure) -> StoreError {
        let Doing {
            location,
            what,
            request,
            ..
        } = self;
        match failure {
            Failure::GaveUp {
                status,
                code,
                attempts,
            } => {
                let code = if code.is_empty() { String::new() } else { format!(" {code}") };
                StoreError::new(format!(
                    "{location}: cannot {what}: {request} answered {status}{code} ({attempts} attempts)"
                ))
                .with_hint("the service is throttling or failing; try again later")
            }
            Failure::Unreachable(problem) => StoreError::new(format!(
                "{location}: cannot {what}: {request} got no answer: {problem}"
            ))
            .with_hint("check `region` (or OCI_CLIENT_HOST_OVERRIDES) and the network; OCI_HTTP_REQUEST_TIMEOUT sets how long statectl waits"),
            Failure::BodyBroken(problem) => StoreError::new(format!(
                "{location}: cannot {what}: the answer to {request} broke off: {problem}"
            )),
        }
    }
}
