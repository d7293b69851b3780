//! What went wrong talking to S3 or DynamoDB, said in one line that starts with the state's location:
//! a missing bucket or table, access denied (with the caller's identity when STS tells it), the wrong
//! region (the bucket's own, from S3's `x-amz-bucket-region` answer, as Terraform's wrong-region
//! middleware reads it), refused credentials, and an endpoint that cannot be reached.

use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use statectl_state::state::store::StoreError;

/// The facts of one failed request, taken out of the SDK's error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Failure {
    pub kind: FailureKind,
    pub status: Option<u16>,
    pub code: Option<String>,
    pub message: Option<String>,
    /// `x-amz-bucket-region` from the answer, when S3 sent one.
    pub bucket_region: Option<String>,
    /// The whole error chain, for anything not recognised.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum FailureKind {
    /// The service answered with an error.
    #[default]
    Service,
    /// No answer: connection refused, timed out, DNS.
    Network,
    /// No credentials could be found or used.
    Credentials,
    /// The request could not be built.
    Other,
}

impl Failure {
    pub(crate) fn from_sdk<E>(error: &SdkError<E, HttpResponse>) -> Failure
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let detail = causes(error);
        let response = error.raw_response();
        let status = response.map(|response| response.status().as_u16());
        let bucket_region = response
            .and_then(|response| response.headers().get("x-amz-bucket-region"))
            .map(str::to_owned);
        let kind = match error {
            SdkError::ServiceError(_) | SdkError::ResponseError(_) => FailureKind::Service,
            SdkError::TimeoutError(_) => FailureKind::Network,
            SdkError::DispatchFailure(dispatch) if dispatch.is_io() || dispatch.is_timeout() => {
                FailureKind::Network
            }
            _ if mentions_credentials(&detail) => FailureKind::Credentials,
            SdkError::DispatchFailure(_) => FailureKind::Network,
            _ => FailureKind::Other,
        };
        Failure {
            kind,
            status,
            code: error.code().map(str::to_owned),
            message: error.message().map(str::to_owned),
            bucket_region,
            detail,
        }
    }

    pub(crate) fn code_is(&self, code: &str) -> bool {
        self.code.as_deref() == Some(code)
    }

    /// `Code: message`, or the error chain when the service said nothing.
    pub(crate) fn said(&self) -> String {
        match (&self.code, &self.message) {
            (Some(code), Some(message)) => format!("{code}: {message}"),
            (Some(code), None) => code.clone(),
            _ => match self.status {
                Some(status) => format!("HTTP {status}: {}", self.detail),
                None => self.detail.clone(),
            },
        }
    }
}

/// The error and its sources, each once, joined with `: ` (the SDK's own context display ends with
/// a debug dump, too long for one line).
fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(current) = next {
        let text = current.to_string();
        if !text.is_empty() && !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        next = current.source();
    }
    parts.join(": ")
}

fn mentions_credentials(detail: &str) -> bool {
    let lower = detail.to_ascii_lowercase();
    lower.contains("credential") || lower.contains("identity")
}

/// Where a request went, for messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    /// `s3://bucket/key`.
    pub location: &'a str,
    /// `S3` or `DynamoDB`.
    pub service: &'a str,
    pub bucket: &'a str,
    /// The object key or the DynamoDB item the request was about.
    pub object: &'a str,
    /// `reading the state`, `writing the lock object`...
    pub doing: &'a str,
    /// The IAM action the request needs (`s3:GetObject`), for the access-denied hint.
    pub action: &'a str,
    /// The resource that action is on, for the same hint.
    pub resource: &'a str,
    /// The region requests go to.
    pub region: &'a str,
    /// The endpoint override, if any.
    pub endpoint: Option<&'a str>,
}

/// The one-line error for `failure`; `identity` is the caller's ARN when it could be had.
pub(crate) fn describe(
    failure: &Failure,
    target: &Target<'_>,
    identity: Option<&str>,
) -> StoreError {
    let Target {
        location,
        service,
        bucket,
        object,
        doing,
        ..
    } = *target;
    if let Some(error) = unanswered(failure, target) {
        return error;
    }
    if failure.code_is("NoSuchBucket") {
        return StoreError::new(format!(
            "{location}: the S3 bucket `{bucket}` does not exist"
        ))
        .with_hint(
            "check `bucket` (and `region`); a bucket made within the last minute may need a minute more",
        );
    }
    if failure.status == Some(301)
        || failure.code_is("PermanentRedirect")
        || failure.code_is("AuthorizationHeaderMalformed") && failure.bucket_region.is_some()
    {
        return match &failure.bucket_region {
            Some(actual) => StoreError::new(format!(
                "{location}: the bucket `{bucket}` is in region {actual}, not {}",
                target.region
            ))
            .with_hint(format!(
                "set the backend's `region = \"{actual}\"` (or `--backend-config region={actual}`)"
            )),
            None => StoreError::new(format!(
                "{location}: the bucket `{bucket}` is not in region {} (S3 answered {})",
                target.region,
                failure.said()
            ))
            .with_hint("set the backend's `region` to the bucket's region"),
        };
    }
    if failure.code_is("ResourceNotFoundException") && service == "DynamoDB" {
        return StoreError::new(format!(
            "{location}: the DynamoDB table `{object}` does not exist in region {} (while {doing})",
            target.region
        ))
        .with_hint("check `dynamodb_table` and `region`, or drop `dynamodb_table` and use `use_lockfile = true`");
    }
    if [
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "UnrecognizedClientException",
        "InvalidClientTokenId",
        "ExpiredTokenException",
    ]
    .iter()
    .any(|code| failure.code_is(code))
    {
        return StoreError::new(format!(
            "{location}: {service} refused the credentials while {doing} ({})",
            failure.said()
        ))
        .with_hint("check which credentials are in use (AWS_PROFILE, AWS_ACCESS_KEY_ID, the backend's `profile`), and renew them if they expired");
    }
    if failure.status == Some(403)
        || failure.code_is("AccessDenied")
        || failure.code_is("AccessDeniedException")
    {
        return access_denied(target, identity);
    }
    StoreError::new(format!(
        "{location}: {service} failed while {doing}: {}",
        failure.said()
    ))
}

/// A request that got no answer from the service: the network, or no credentials to sign with.
fn unanswered(failure: &Failure, target: &Target<'_>) -> Option<StoreError> {
    let Target {
        location,
        service,
        doing,
        ..
    } = *target;
    match failure.kind {
        FailureKind::Network => {
            let endpoint = target.endpoint.map_or_else(
                || format!("the {service} endpoint of region {}", target.region),
                |url| format!("{service} at {url}"),
            );
            Some(StoreError::new(format!(
                "{location}: cannot reach {endpoint} while {doing}: {}",
                failure.detail
            ))
            .with_hint(
                "check the network and the backend's endpoint settings; statectl tried 3 times with short timeouts and wrote nothing",
            ))
        }
        FailureKind::Credentials => {
            Some(StoreError::new(format!(
                "{location}: no usable AWS credentials while {doing}: {}",
                failure.detail
            ))
            .with_hint(
                "set AWS_PROFILE (and run `aws sso login` for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as for Terraform",
            ))
        }
        FailureKind::Service | FailureKind::Other => None,
    }
}

/// Access denied, naming the object, the caller when known, and the permission it needs.
fn access_denied(target: &Target<'_>, identity: Option<&str>) -> StoreError {
    let Target {
        location,
        service,
        bucket,
        object,
        doing,
        ..
    } = *target;
    let who = identity.map_or_else(
        || "the configured credentials".to_owned(),
        |arn| format!("`{arn}`"),
    );
    let what = if service == "DynamoDB" {
        format!("item `{object}` in DynamoDB table")
    } else {
        format!("`{object}` in bucket `{bucket}`")
    };
    let table = if service == "DynamoDB" {
        format!(
            " `{}`",
            target.resource.rsplit('/').next().unwrap_or_default()
        )
    } else {
        String::new()
    };
    StoreError::new(format!(
        "{location}: access denied to {what}{table} for {who} while {doing}"
    ))
    .with_hint(format!(
        "that identity needs `{}` on `{}`",
        target.action, target.resource
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target<'static> {
        Target {
            location: "s3://b/k",
            service: "S3",
            bucket: "b",
            object: "k",
            doing: "reading the state",
            action: "s3:GetObject",
            resource: "arn:aws:s3:::b/k",
            region: "us-east-1",
            endpoint: None,
        }
    }

    fn service(status: u16, code: &str) -> Failure {
        Failure {
            kind: FailureKind::Service,
            status: Some(status),
            code: Some(code.to_owned()),
            message: Some("message".to_owned()),
            ..Failure::default()
        }
    }

    #[test]
    fn a_missing_bucket_is_named() {
        let error = describe(&service(404, "NoSuchBucket"), &target(), None);
        assert_eq!(error.message, "s3://b/k: the S3 bucket `b` does not exist");
        assert!(error.hint.is_some());
    }

    #[test]
    fn access_denied_names_bucket_key_identity_and_action() {
        let error = describe(
            &service(403, "AccessDenied"),
            &target(),
            Some("arn:aws:sts::123:assumed-role/ci/run"),
        );
        assert_eq!(
            error.message,
            "s3://b/k: access denied to `k` in bucket `b` for `arn:aws:sts::123:assumed-role/ci/run` while reading the state"
        );
        assert_eq!(
            error.hint.as_deref(),
            Some("that identity needs `s3:GetObject` on `arn:aws:s3:::b/k`")
        );
        let anonymous = describe(&service(403, "AccessDenied"), &target(), None);
        assert!(anonymous.message.contains("for the configured credentials"));
    }

    #[test]
    fn the_wrong_region_says_the_buckets_region() {
        let mut failure = service(301, "PermanentRedirect");
        failure.bucket_region = Some("eu-west-2".to_owned());
        let error = describe(&failure, &target(), None);
        assert_eq!(
            error.message,
            "s3://b/k: the bucket `b` is in region eu-west-2, not us-east-1"
        );
        assert_eq!(
            error.hint.as_deref(),
            Some(
                "set the backend's `region = \"eu-west-2\"` (or `--backend-config region=eu-west-2`)"
            )
        );
    }

    #[test]
    fn an_unreachable_endpoint_is_named() {
        let failure = Failure {
            kind: FailureKind::Network,
            detail: "dispatch failure: io error: Connection refused".to_owned(),
            ..Failure::default()
        };
        let mut target = target();
        target.endpoint = Some("http://127.0.0.1:9");
        let error = describe(&failure, &target, None);
        assert_eq!(
            error.message,
            "s3://b/k: cannot reach S3 at http://127.0.0.1:9 while reading the state: dispatch failure: io error: Connection refused"
        );
    }
}
