//! Why no Azure credential could be had for the Blob service: an Azure AD token (a client secret,
//! a CI's OIDC token, a managed identity, the Azure CLI) or the storage account's key listed
//! through the management API. Each message names the service asked, never a token or a key; an
//! answer a server echoed is masked before it is kept here.

use super::client::problem;
use super::credentials::AnswerError;

#[derive(Debug, thiserror::Error)]
pub(super) enum CredentialError {
    #[error(
        "no Azure AD credential is configured (a client secret, OIDC with `use_oidc`, a managed identity with `use_msi`, or `use_cli`)"
    )]
    NotConfigured,
    /// A request for a token or a key that got no whole answer.
    #[error("{}", unanswered(.asked, .failure))]
    Unanswered {
        asked: Asked,
        #[source]
        failure: Unanswered,
    },

    // Azure AD's token endpoint.
    #[error("Azure AD answered {status} with no token (not the JSON of a token answer)")]
    AzureAdNotJson { status: u16 },
    /// `code` and `description` (its first sentence, after `: `) are masked against the secret sent.
    #[error("Azure AD refused the token request ({status} {code}){description}")]
    AzureAdRefused {
        status: u16,
        code: String,
        description: String,
    },

    // A CI's OIDC token (`what` names the service: GitHub's or Azure DevOps').
    #[error("the URL of {what} is not an http(s) URL")]
    OidcUrl { what: &'static str },
    #[error("{what} at {shown} answered {status}: {said}")]
    OidcRefused {
        what: &'static str,
        shown: String,
        status: u16,
        said: String,
    },
    #[error("{what} at {shown} answered {status} without a token (no `{field}`)")]
    OidcWithoutToken {
        what: &'static str,
        shown: String,
        status: u16,
        field: &'static str,
    },

    // A managed identity's endpoint.
    /// `said` is `: code: description` (or less), cut to one short line.
    #[error("the managed identity endpoint {endpoint} answered {status}{said}")]
    ManagedRefused {
        endpoint: String,
        status: u16,
        said: String,
    },
    #[error("the managed identity endpoint {endpoint} answered {status} without an `access_token`")]
    ManagedWithoutToken { endpoint: String, status: u16 },

    // The Azure CLI.
    #[error(
        "the Azure CLI (`az`), the last way Terraform tries, is not installed, and no client secret or OIDC token is set"
    )]
    CliMissing,
    #[error("cannot run the Azure CLI (`az`): {0}")]
    CliUnrunnable(#[source] std::io::Error),
    #[error("the Azure CLI gave no token (`az account get-access-token` failed: {line})")]
    CliFailed { line: String },
    #[error("the Azure CLI's `az account get-access-token` printed no token")]
    CliWithoutToken,

    // The storage account's key, listed through the management API.
    #[error(
        "`subscription_id` is not set (nor ARM_SUBSCRIPTION_ID), which listing the account's key needs"
    )]
    NoSubscription,
    /// `code` is ` (TheCode)` when the answer names one.
    #[error(
        "listing the keys of storage account `{account}` in resource group `{resource_group}` answered {status}{code}"
    )]
    KeysRefused {
        account: String,
        resource_group: String,
        status: u16,
        code: String,
    },
    #[error("storage account `{account}` listed no key with full permissions")]
    NoFullKey { account: String },
    #[error("the key listed for storage account `{account}` is not base64")]
    KeyNotBase64 { account: String },
}

/// Who was asked for a token or a key, as the messages name them.
#[derive(Debug, Clone)]
pub(super) enum Asked {
    /// Azure AD's token endpoint, at the cloud's `login` host.
    AzureAd { login: String },
    /// A CI's OIDC token service (`what`), at `shown` (its URL without the query).
    Oidc { what: &'static str, shown: String },
    /// A managed identity's endpoint.
    Managed { endpoint: String },
    /// The management API, listing the keys of storage account `account`.
    Keys { management: String, account: String },
}

/// Why a request got no whole answer: none came, or it broke off or was too large.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unanswered {
    #[error("{}", problem(.0))]
    Unreachable(#[source] reqwest::Error),
    #[error("{0}")]
    Answer(#[source] AnswerError),
}

fn unanswered(asked: &Asked, failure: &Unanswered) -> String {
    match (asked, failure) {
        (Asked::AzureAd { login }, Unanswered::Unreachable(_)) => {
            format!("cannot reach Azure AD at {login}: {failure}")
        }
        (Asked::AzureAd { .. }, Unanswered::Answer(_)) => {
            format!("Azure AD's answer to the token request {failure}")
        }
        (Asked::Oidc { what, shown }, Unanswered::Unreachable(_)) => {
            format!("cannot fetch the OIDC token from {what} at {shown}: {failure}")
        }
        (Asked::Oidc { what, shown }, Unanswered::Answer(_)) => {
            format!("the answer of {what} at {shown} {failure}")
        }
        (Asked::Managed { endpoint }, Unanswered::Unreachable(_)) => format!(
            "the managed identity endpoint {endpoint} gave no token ({failure}); statectl is not on an Azure machine with a managed identity, or `msi_endpoint` is wrong"
        ),
        (Asked::Managed { endpoint }, Unanswered::Answer(_)) => {
            format!("the answer of the managed identity endpoint {endpoint} {failure}")
        }
        (Asked::Keys { management, .. }, Unanswered::Unreachable(_)) => {
            format!("cannot reach the management API at {management}: {failure}")
        }
        (Asked::Keys { account, .. }, Unanswered::Answer(_)) => {
            format!("the answer listing the keys of storage account `{account}` {failure}")
        }
    }
}
