//! What the AWS SDK resolves and signs, registered with the run's masks (`statectl_net::secrets`):
//! the secret access key and session token of whichever credentials the chain gives (static keys,
//! a profile, `credential_process`, SSO, web identity, `assume_role`, instance metadata), the moment
//! they are resolved; and each request's SigV4 signature, once it is signed (good for that request
//! only: kept among the last ones). Used by the S3 backend's clients and the `aws_kms` key provider's.

use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider, future};
use aws_sdk_s3::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_s3::config::{ConfigBag, Intercept, RuntimeComponents};
use statectl_net::secrets;

/// A credential provider that registers what the one it wraps provides.
#[derive(Debug)]
pub(crate) struct RegisteringProvider(pub SharedCredentialsProvider);

impl ProvideCredentials for RegisteringProvider {
    fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        future::ProvideCredentials::new(async move {
            let credentials = self.0.provide_credentials().await?;
            secrets::register(credentials.secret_access_key());
            if let Some(token) = credentials.session_token() {
                secrets::register(token);
            }
            Ok(credentials)
        })
    }
}

/// Registers each signed request's signature (`Authorization: AWS4-HMAC-SHA256 ...,
/// Signature=<hex>`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RegisterSignature;

impl Intercept for RegisterSignature {
    fn name(&self) -> &'static str {
        "RegisterSignature"
    }

    fn read_after_signing(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        if let Some((_, signature)) = context
            .request()
            .headers()
            .get("authorization")
            .and_then(|value| value.rsplit_once("Signature="))
        {
            secrets::register_ephemeral(signature.split(',').next().unwrap_or(signature));
        }
        Ok(())
    }
}
