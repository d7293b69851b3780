//! What a failed Blob request says to the user, in one line: the state's location, what statectl
//! was doing, the request and its answer (status and `x-ms-error-code`), what that means for this
//! backend (a missing container or account, refused credentials), and a hint naming the argument
//! to check. Never the key, the SAS token or a bearer token.

pub(super) use statectl_net::http::status_text;
use statectl_state::state::store::StoreError;

use super::client::{Answer, Failure};
use super::settings::{Credential, Identity, OidcToken};

/// What the messages need to know about the backend.
pub(super) struct Target<'a> {
    pub location: &'a str,
    pub account: &'a str,
    pub container: &'a str,
    pub service: &'a url::Url,
    pub credential: &'a Credential,
}

/// The error for a request that got no usable answer.
pub(super) fn failed(
    target: &Target<'_>,
    doing: &str,
    request: &str,
    failure: &Failure,
) -> StoreError {
    let location = target.location;
    match failure {
        Failure::Unreachable(problem) => StoreError::new(format!(
            "{location}: cannot {doing}: {request} got no answer from the Blob service at {}: {problem}",
            target.service
        ))
        .with_hint(
            "check `storage_account_name` (the account's endpoint must resolve) and the network; for an emulator, `--backend-config endpoint=URL`",
        ),
        Failure::Credential(problem) => StoreError::new(format!(
            "{location}: cannot {doing}: no credential for the Blob service: {problem}"
        ))
        .with_hint(no_token_hint(target.credential)),
        Failure::TooLarge => StoreError::new(format!(
            "{location}: cannot {doing}: the answer to {request} is larger than 1 GiB; statectl stops there"
        )),
    }
}

/// The error for an answer whose status the request does not take.
pub(super) fn refused(
    target: &Target<'_>,
    doing: &str,
    request: &str,
    answer: &Answer,
) -> StoreError {
    let location = target.location;
    let code = answer.code();
    let status = status_text(answer.status);
    let base = if code.is_empty() {
        format!("{location}: cannot {doing}: {request} answered {status}")
    } else {
        format!("{location}: cannot {doing}: {request} answered {status} ({code})")
    };
    match (answer.status, code) {
        (404, "ContainerNotFound") => StoreError::new(format!(
            "{base}: storage account `{}` has no container `{}`",
            target.account, target.container
        ))
        .with_hint("check `container_name`; Terraform does not create the container either"),
        (404, "ResourceNotFound" | "AccountNotFound") | (400, "InvalidUri") => {
            StoreError::new(format!(
                "{base}: no storage account `{}` answers there",
                target.account
            ))
            .with_hint("check `storage_account_name`")
        }
        (403, "AuthenticationFailed" | "InvalidAuthenticationInfo") | (401, _) => StoreError::new(
            format!("{base}: the storage account refused the credentials"),
        )
        .with_hint(credential_hint(target.credential)),
        // Azure's answer when the account's network rules refuse the caller; Azurite's for a
        // signature that does not verify.
        (403, "AuthorizationFailure") => StoreError::new(format!(
            "{base}: the storage account refused the request (the credentials, or its network rules)"
        ))
        .with_hint(credential_hint(target.credential)),
        (403, _) => StoreError::new(format!(
            "{base}: the credentials are not allowed to do this"
        ))
        .with_hint(permission_hint(target.credential)),
        _ => StoreError::new(base),
    }
}

/// What to do when no token (or listed key) could be had, by the identity that was tried.
fn no_token_hint(credential: &Credential) -> &'static str {
    let identity = match credential {
        Credential::AzureAd(identity) | Credential::LookedUpKey { identity, .. } => identity,
        Credential::SharedKey(_) | Credential::Sas(_) => &Identity::Missing,
    };
    match identity {
        Identity::Oidc {
            token: OidcToken::GitHub { .. },
            ..
        } => {
            "the workflow needs `permissions: id-token: write`, and the app registration a federated credential for this repository's subject"
        }
        Identity::Oidc { .. } => {
            "check the app registration's federated credential: its issuer, subject and audience (`api://AzureADTokenExchange`) must match the OIDC token"
        }
        Identity::Managed { .. } => {
            "run on an Azure machine with a managed identity (for a user-assigned one, set ARM_CLIENT_ID), or set `msi_endpoint` (ARM_MSI_ENDPOINT)"
        }
        Identity::ClientSecret { .. } => {
            "check ARM_TENANT_ID, ARM_CLIENT_ID and ARM_CLIENT_SECRET (or the `client_*` arguments)"
        }
        Identity::Cli { .. } | Identity::Missing => {
            "set `access_key` (ARM_ACCESS_KEY) or `sas_token` (ARM_SAS_TOKEN), or sign in with `az login`, or set ARM_CLIENT_ID and ARM_TENANT_ID with ARM_CLIENT_SECRET, ARM_USE_OIDC=true or ARM_USE_MSI=true"
        }
    }
}

fn credential_hint(credential: &Credential) -> &'static str {
    match credential {
        Credential::SharedKey(_) => {
            "check `access_key` (or ARM_ACCESS_KEY): it must be one of the storage account's two keys"
        }
        Credential::Sas(_) => {
            "check `sas_token` (or ARM_SAS_TOKEN): it may have expired, or be for another account"
        }
        Credential::AzureAd(_) => {
            "check the Azure AD identity's tenant (`tenant_id`) and that its token is for Storage"
        }
        Credential::LookedUpKey { .. } => {
            "the key listed through the management API was refused; set `access_key` to try another"
        }
    }
}

fn permission_hint(credential: &Credential) -> &'static str {
    match credential {
        Credential::Sas(_) => {
            "the SAS token needs read, add, create, write, delete and list permissions on the container (`sp=racwdl`)"
        }
        Credential::AzureAd(_) => {
            "the identity needs the `Storage Blob Data Contributor` role on the container (or the account)"
        }
        Credential::SharedKey(_) | Credential::LookedUpKey { .. } => {
            "the account may refuse Shared Key access (`allowSharedKeyAccess = false`): use `use_azuread_auth = true`"
        }
    }
}
