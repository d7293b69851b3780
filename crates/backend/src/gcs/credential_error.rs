//! Why no Google access token could be had: reading a credentials file, running its subject
//! token's source, and each token exchange. Each message names the credential or the endpoint,
//! never a token or a key; an answer a server echoed is masked before it is kept here.

use statectl_state::state::source::problem;

use super::client::{Failure, MAX_TOKEN_BODY};

#[derive(Debug, thiserror::Error)]
pub(super) enum CredentialError {
    // The credentials JSON (`credentials`, GOOGLE_APPLICATION_CREDENTIALS, gcloud's file).
    #[error("cannot read GOOGLE_APPLICATION_CREDENTIALS ({path}): {}", problem(.source))]
    DefaultUnreadable {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{from} is not JSON: {source}")]
    NotJson {
        from: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("the credentials in {from} have no `{name}`")]
    Missing { from: String, name: String },
    #[error("the `private_key` in {from} is not an RSA key in PEM")]
    NotRsaKey { from: String },
    #[error(
        "the credentials in {from} have no `type` (a service account key has `\"type\": \"service_account\"`)"
    )]
    NoType { from: String },
    #[error(
        "the credentials in {from} are of type `{kind}`, which statectl does not read yet (it reads service account keys, gcloud's user credentials, impersonated service accounts and workload identity federation's external accounts)"
    )]
    UnknownType { from: String, kind: String },
    #[error("cannot sign with the service account key: {0}")]
    Sign(#[source] rsa::signature::Error),

    // A token endpoint (a key's or a user's `token_uri`, the metadata server, the IAM credentials API).
    #[error(
        "no credentials were given or found, and the metadata server at {url} gave none ({failure})"
    )]
    MetadataUnanswered {
        url: String,
        #[source]
        failure: Failure,
    },
    #[error("POST {url}: {failure}")]
    PostUnanswered {
        url: String,
        #[source]
        failure: Failure,
    },
    /// `said` is the endpoint's message, masked against what was sent.
    #[error("{url} answered {status}: {said}")]
    TokenRefused {
        url: String,
        status: String,
        said: String,
    },
    #[error("{url} answered without an access token")]
    NoAccessToken { url: String },
    #[error("no token is asked for an emulator")]
    Emulator,

    // An external account (workload identity federation): its file.
    #[error("the external account credentials in {from} have no `{name}`")]
    ExternalMissing { from: String, name: String },
    #[error(
        "`service_account_impersonation.token_lifetime_seconds` in {from} is not a positive whole number of seconds"
    )]
    ImpersonationLifetime { from: String },
    #[error(
        "the external account credentials in {from} set `workforce_pool_user_project`, which only a workforce pool's audience takes"
    )]
    UserProjectWithoutWorkforcePool { from: String },
    #[error("the external account credentials in {from} have no `credential_source`")]
    NoCredentialSource { from: String },
    #[error(
        "the external account credentials in {from} take their token from AWS (`environment_id`), which statectl does not read yet"
    )]
    FromAws { from: String },
    #[error(
        "the external account credentials in {from} authenticate with an X.509 certificate, which statectl does not read yet"
    )]
    Certificate { from: String },
    #[error("the `credential_source` in {from} names no `file`, `url` or `executable`")]
    NoSubjectSource { from: String },
    #[error("`credential_source.format` in {from} is JSON but names no `subject_token_field_name`")]
    FormatWithoutField { from: String },
    #[error(
        "`credential_source.format.type` in {from} is `{kind}`; Google's libraries take `text` or `json`"
    )]
    FormatType { from: String, kind: String },
    #[error("`credential_source.executable` in {from} has no `command`")]
    NoCommand { from: String },
    #[error(
        "`credential_source.executable.timeout_millis` in {from} must be between 5000 and 120000"
    )]
    ExecutableTimeout { from: String },

    // An external account: its subject token (`what` names the file, URL or command).
    #[error("GET {shown} (`credential_source.url`): {failure}")]
    SubjectUnanswered {
        shown: String,
        #[source]
        failure: Failure,
    },
    #[error("{what} answered {status}: {said}")]
    SubjectRefused {
        what: String,
        status: String,
        said: String,
    },
    #[error("cannot read {what}: {}", problem(.source))]
    SubjectUnreadable {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{what} is larger than {} KiB; a token is a few kilobytes", MAX_TOKEN_BODY >> 10)]
    SubjectTooLarge { what: String },
    #[error("{what} is not text")]
    SubjectNotText { what: String },
    #[error("{what} is not JSON, which `credential_source.format` says it is")]
    SubjectNotJson { what: String },
    #[error("{what} has no `{field}` (`subject_token_field_name`)")]
    SubjectWithoutField { what: String, field: String },
    #[error("{what}: its `{field}` is not a string")]
    SubjectFieldNotText { what: String, field: String },
    #[error("{what} holds no token (it is empty)")]
    SubjectEmpty { what: String },

    // An external account: the command that prints its subject token.
    #[error(
        "the external account credentials in {from} get their token by running `{program}`, which Google's libraries do only with GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1"
    )]
    ExecutablesNotAllowed { from: String, program: String },
    #[error("`{program}` could not be run")]
    NotRun { program: String },
    #[error("cannot run `{program}` (`credential_source.executable`): {}", problem(.source))]
    CannotRun {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("`{program}` (`credential_source.executable`) gave no answer within {seconds} s")]
    NoAnswerWithin { program: String, seconds: u64 },
    #[error("`{program}` (`credential_source.executable`) failed with exit code {code}")]
    ExitCode { program: String, code: i32 },
    #[error("`{program}` (`credential_source.executable`) was killed by a signal")]
    Killed { program: String },
    #[error("{what} is not JSON")]
    AnswerNotJson { what: String },
    #[error("{what} has no `{field}`")]
    AnswerWithout { what: String, field: String },
    #[error("{what} says it failed, without a `code` and a `message`")]
    AnswerFailedSilently { what: String },
    #[error("{what} says it failed: ({code}) {message}")]
    AnswerFailed {
        what: String,
        code: String,
        message: String,
    },
    #[error("{what} is of version {version}; Google's libraries read version 1")]
    AnswerVersion { what: String, version: i64 },
    #[error("{what}: the token has expired")]
    AnswerExpired { what: String },
    #[error("{what} has a token of type `{kind}`, which Google's libraries do not take")]
    AnswerTokenType { what: String, kind: String },

    // An external account: Google's STS and the impersonation of a service account.
    #[error("POST {url} (the STS token exchange): {failure}")]
    StsUnanswered {
        url: String,
        #[source]
        failure: Failure,
    },
    #[error("the Security Token Service at {url} refused the exchange ({status}: {said})")]
    StsRefused {
        url: String,
        status: String,
        said: String,
    },
    #[error("the Security Token Service at {url} answered {status} with no token (not JSON)")]
    StsNotJson { url: String, status: u16 },
    #[error("the Security Token Service at {url} answered without an `access_token`")]
    StsWithoutToken { url: String },
    #[error(
        "the Security Token Service at {url} answered without a valid `expires_in` (a positive whole number of seconds)"
    )]
    StsWithoutLifetime { url: String },
    #[error("POST {url} (the service account impersonation): {failure}")]
    ImpersonationUnanswered {
        url: String,
        #[source]
        failure: Failure,
    },
    #[error("{url} refused the impersonation ({status}: {said})")]
    ImpersonationRefused {
        url: String,
        status: String,
        said: String,
    },
    #[error("{url} answered without an `accessToken`")]
    ImpersonationWithoutToken { url: String },
    #[error("{url} answered without a valid `expireTime`")]
    ImpersonationWithoutExpiry { url: String },
    #[error("{url} answered a token that has already expired")]
    ImpersonationExpired { url: String },
}
