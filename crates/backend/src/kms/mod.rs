//! OpenTofu's `aws_kms` key provider (`internal/encryption/keyprovider/aws_kms/`), as a
//! `statectl_encryption` [`KeyProvider`]: a write asks KMS `GenerateDataKey` for a fresh data key
//! and stores the encrypted copy in the envelope's metadata as OpenTofu does
//! (`{"ciphertext_blob":"<base64>","encryption_context":{...}}`); a read asks KMS `Decrypt` for
//! the stored copy. It lives with the backends because it talks to the network, and shares the
//! S3 backend's credential chain, endpoints and bounded retries.

mod options;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_sdk_kms::config::http::HttpResponse;
use aws_sdk_kms::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::DataKeySpec;
use serde_json::Value;
use statectl_encryption::config::KeyProviderConfig;
use statectl_encryption::gojson::{decode_base64, encode_base64, push_object, push_string};
use statectl_encryption::{Error, KeyProvider, Registry, Secret};

use crate::runtime::Runtime;
use crate::s3::clients::sdk_config;
use crate::s3::errors::{Failure, FailureKind};
use crate::s3::registered::RegisterSignature;

use self::options::Options;

/// The environment the provider reads its fallbacks from.
pub type Env = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A whole KMS call, retries included, is given up after this: a key provider must not hang a
/// command (the connect and read timeouts of the shared configuration bound each attempt).
const OPERATION_TIMEOUT: Duration = Duration::from_secs(30);

/// Registers `aws_kms` into `registry`, reading the process environment.
pub fn register(registry: &mut Registry) {
    register_with_env(registry, Arc::new(crate::config::env));
}

/// Registers `aws_kms` with `env` in place of the process environment (`AWS_REGION`,
/// `AWS_ENDPOINT_URL_KMS`...; tests and embedders pass their own). Credentials the AWS SDK
/// resolves itself (the profile files, `AWS_ACCESS_KEY_ID`) still come from the process.
pub fn register_with_env(registry: &mut Registry, env: Env) {
    registry.register(
        "aws_kms",
        Box::new(move |config| Ok(Box::new(AwsKms::from_config(config, env.as_ref())?))),
    );
}

/// A configured `aws_kms` key provider.
#[derive(Debug)]
pub struct AwsKms {
    at: String,
    options: Options,
    kms: aws_sdk_kms::Client,
    /// For `allowed_account_ids` / `forbidden_account_ids`, checked once before the first call.
    sts: aws_sdk_sts::Client,
    account_checked: OnceLock<()>,
    runtime: Runtime,
}

impl AwsKms {
    /// Reads the options and builds the client; nothing is requested until the first key.
    pub fn from_config(
        config: &KeyProviderConfig,
        env: &(dyn Fn(&str) -> Option<String> + Send + Sync),
    ) -> Result<AwsKms, Error> {
        let at = config.address();
        let options = options::read(&at, &config.body, env)?;
        let runtime = Runtime::new().map_err(|error| Error::KeyService {
            provider: at.clone(),
            detail: format!("cannot start the AWS client: {error}"),
            hint: None,
        })?;
        // The region is always given here, so the SDK's configuration always loads.
        let sdk = runtime
            .block_on(sdk_config(&options.aws))
            .ok_or_else(|| Error::Config {
                at: at.clone(),
                detail: "no region".into(),
            })?;
        let timeouts = aws_sdk_kms::config::timeout::TimeoutConfig::builder()
            .operation_timeout(OPERATION_TIMEOUT)
            .build();
        let mut kms = aws_sdk_kms::config::Builder::from(&sdk).interceptor(RegisterSignature);
        kms.set_timeout_config(Some(sdk.timeout_config().cloned().map_or(
            timeouts.clone(),
            |base| {
                let mut merged = base;
                merged.take_defaults_from(&timeouts);
                merged
            },
        )));
        if let Some(url) = &options.kms_endpoint {
            kms = kms.endpoint_url(url);
        }
        let mut sts = aws_sdk_sts::config::Builder::from(&sdk).interceptor(RegisterSignature);
        if let Some(url) = &options.aws.sts_endpoint {
            sts = sts.endpoint_url(url);
        }
        Ok(AwsKms {
            at,
            options,
            kms: aws_sdk_kms::Client::from_conf(kms.build()),
            sts: aws_sdk_sts::Client::from_conf(sts.build()),
            account_checked: OnceLock::new(),
            runtime,
        })
    }

    fn context(&self) -> Option<HashMap<String, String>> {
        (!self.options.encryption_context.is_empty()).then(|| {
            self.options
                .encryption_context
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
    }

    /// `allowed_account_ids` / `forbidden_account_ids`, as OpenTofu's AWS base enforces them:
    /// the caller's account (from STS) before any key is asked for.
    fn check_account(&self) -> Result<(), Error> {
        let options = &self.options;
        if options.allowed_account_ids.is_empty() && options.forbidden_account_ids.is_empty() {
            return Ok(());
        }
        if self.account_checked.get().is_some() {
            return Ok(());
        }
        let identity = self
            .runtime
            .block_on(self.sts.get_caller_identity().send())
            .map_err(|error| {
                self.failure(
                    "asking STS for the caller's account",
                    "sts:GetCallerIdentity",
                    &error,
                )
            })?;
        let account = identity.account().unwrap_or_default().to_owned();
        if !options.allowed_account_ids.is_empty()
            && !options.allowed_account_ids.contains(&account)
        {
            return Err(self.refused(format!(
                "the AWS account {account} is not in allowed_account_ids ({})",
                options.allowed_account_ids.join(", ")
            )));
        }
        if options.forbidden_account_ids.contains(&account) {
            return Err(self.refused(format!(
                "the AWS account {account} is in forbidden_account_ids"
            )));
        }
        let _ = self.account_checked.set(());
        Ok(())
    }

    fn refused(&self, detail: String) -> Error {
        Error::KeyService {
            provider: self.at.clone(),
            detail,
            hint: Some(
                "use credentials of an allowed account (profile, access_key or assume_role)".into(),
            ),
        }
    }

    /// One line for a failed KMS (or STS) call: what failed, where, and the fix when known.
    fn failure<E>(&self, doing: &str, action: &str, error: &SdkError<E, HttpResponse>) -> Error
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let failure = Failure::from_sdk(error);
        let key = &self.options.key_id;
        let region = self.options.region();
        let endpoint = self
            .options
            .kms_endpoint
            .clone()
            .unwrap_or_else(|| format!("kms.{region}.amazonaws.com"));
        let said = one_line(&failure.said());
        let (detail, hint) = match failure.kind {
            FailureKind::Network => (
                format!("cannot reach AWS KMS at {endpoint} while {doing}: {said}"),
                Some("check the network and the region (and AWS_ENDPOINT_URL_KMS when it is set)".to_owned()),
            ),
            FailureKind::Credentials => (
                format!("no usable AWS credentials while {doing}: {said}"),
                Some("set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the key provider's profile / access_key / assume_role".to_owned()),
            ),
            FailureKind::Service | FailureKind::Other => match failure.code.as_deref() {
                Some("NotFoundException") => (
                    format!("the KMS key {key} does not exist in {region} ({said})"),
                    Some("check kms_key_id (a key ID, key ARN, alias/NAME or alias ARN) and the region".to_owned()),
                ),
                Some("AccessDeniedException" | "AccessDenied") => (
                    format!("access denied while {doing} with the KMS key {key} ({said})"),
                    Some(format!("the caller needs {action} on the key, in its key policy or an IAM policy")),
                ),
                Some(
                    "UnrecognizedClientException"
                    | "InvalidClientTokenId"
                    | "InvalidSignatureException"
                    | "SignatureDoesNotMatch"
                    | "ExpiredTokenException"
                    | "ExpiredToken",
                ) => (
                    format!("AWS refused the credentials while {doing} ({said})"),
                    Some("check the AWS credentials (expired session, wrong secret key, or another partition)".to_owned()),
                ),
                Some("InvalidCiphertextException" | "IncorrectKeyException") => (
                    format!("KMS cannot decrypt the data key stored in the state with {key} ({said})"),
                    Some("the state was encrypted with another KMS key or encryption_context; configure that one (a fallback keeps the old key readable)".to_owned()),
                ),
                Some("DisabledException" | "KMSInvalidStateException") => (
                    format!("the KMS key {key} cannot be used ({said})"),
                    Some("enable the key, or cancel its scheduled deletion".to_owned()),
                ),
                _ => (format!("{doing} failed: {said}"), None),
            },
        };
        Error::KeyService {
            provider: self.at.clone(),
            detail,
            hint,
        }
    }

    /// The answer to the KMS `request`, which is `doing` something `action` allows.
    fn ask<T, E>(
        &self,
        request: impl Future<Output = Result<T, SdkError<E, HttpResponse>>> + Send,
        doing: &str,
        action: &str,
    ) -> Result<T, Error>
    where
        T: Send,
        E: ProvideErrorMetadata + std::error::Error + Send + 'static,
    {
        self.runtime
            .block_on(request)
            .map_err(|error| self.failure(doing, action, &error))
    }

    /// The plaintext data key an answer holds.
    fn data_key(&self, plaintext: Option<Blob>) -> Result<Secret, Error> {
        let plaintext = plaintext.ok_or_else(|| self.missing("the data key"))?;
        Ok(Secret::key(plaintext.into_inner()))
    }

    fn missing(&self, what: &str) -> Error {
        Error::KeyService {
            provider: self.at.clone(),
            detail: format!("KMS answered without {what}"),
            hint: None,
        }
    }
}

/// The service's words on one line (an SDK cause may hold line breaks).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Go's `json.Marshal(keyMeta{...})`: `ciphertext_blob` as padded base64, `encryption_context`
/// left out when empty (`omitempty`), its keys sorted.
fn marshal_meta(ciphertext: &[u8], context: &BTreeMap<String, String>) -> Vec<u8> {
    let mut out = String::from("{\"ciphertext_blob\":\"");
    encode_base64(ciphertext, &mut out);
    out.push('"');
    if !context.is_empty() {
        out.push_str(",\"encryption_context\":");
        let members = context
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()));
        push_object(&mut out, members, push_string);
    }
    out.push('}');
    out.into_bytes()
}

/// The stored metadata as Go's `json.Unmarshal` reads it into `keyMeta`: field names matched
/// without regard to case, unknown fields ignored, `null` as absent.
fn unmarshal_meta(at: &str, stored: &[u8]) -> Result<(Vec<u8>, BTreeMap<String, String>), Error> {
    let invalid = |detail: &str| Error::InvalidMetadata {
        provider: at.to_owned(),
        detail: detail.to_owned(),
    };
    let value: Value = serde_json::from_slice(stored).map_err(|_| invalid("not JSON"))?;
    let object = match &value {
        Value::Null => return Ok((Vec::new(), BTreeMap::new())),
        Value::Object(object) => object,
        _ => return Err(invalid("expected an object with ciphertext_blob")),
    };
    let mut blob = Vec::new();
    let mut context = BTreeMap::new();
    for (key, value) in object {
        if key.eq_ignore_ascii_case("ciphertext_blob") {
            blob = match value {
                Value::Null => Vec::new(),
                Value::String(text) => decode_base64(text.as_bytes())
                    .map_err(|_| invalid("ciphertext_blob is not valid base64"))?,
                _ => return Err(invalid("ciphertext_blob is not a string")),
            };
        } else if key.eq_ignore_ascii_case("encryption_context") {
            context = match value {
                Value::Null => BTreeMap::new(),
                Value::Object(map) => map
                    .iter()
                    .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect::<Option<_>>()
                    .ok_or_else(|| {
                        invalid("encryption_context holds a value that is not a string")
                    })?,
                _ => return Err(invalid("encryption_context is not an object")),
            };
        }
    }
    Ok((blob, context))
}

impl KeyProvider for AwsKms {
    fn encryption_key(&self, _upstream: Option<&Secret>) -> Result<(Secret, Vec<u8>), Error> {
        self.check_account()?;
        let request = self
            .kms
            .generate_data_key()
            .key_id(&self.options.key_id)
            .key_spec(DataKeySpec::from(self.options.key_spec.as_str()))
            .set_encryption_context(self.context())
            .send();
        let output = self.ask(request, "generating a data key", "kms:GenerateDataKey")?;
        let ciphertext = output
            .ciphertext_blob
            .ok_or_else(|| self.missing("the encrypted data key"))?;
        let meta = marshal_meta(ciphertext.as_ref(), &self.options.encryption_context);
        Ok((self.data_key(output.plaintext)?, meta))
    }

    fn decryption_key(
        &self,
        stored: &[u8],
        _upstream: Option<&Secret>,
    ) -> Result<Option<Secret>, Error> {
        let (blob, context) = unmarshal_meta(&self.at, stored)?;
        if blob.is_empty() {
            // OpenTofu asks KMS only when the metadata holds a data key.
            return Ok(None);
        }
        self.check_account()?;
        // The context stored with the key, not the configured one: the key was sealed with it.
        let context: Option<HashMap<String, String>> =
            (!context.is_empty()).then(|| context.into_iter().collect());
        let request = self
            .kms
            .decrypt()
            .key_id(&self.options.key_id)
            .ciphertext_blob(Blob::new(blob))
            .set_encryption_context(context)
            .send();
        let output = self.ask(request, "decrypting the stored data key", "kms:Decrypt")?;
        self.data_key(output.plaintext).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_written_as_go_marshals_opentofus_key_meta() {
        let mut context = BTreeMap::new();
        assert_eq!(
            String::from_utf8(marshal_meta(&[0xff, 0x00, 0x10], &context)).unwrap(),
            r#"{"ciphertext_blob":"/wAQ"}"#
        );
        context.insert("z".to_owned(), "<1>".to_owned());
        context.insert("a".to_owned(), "b".to_owned());
        assert_eq!(
            String::from_utf8(marshal_meta(b"k", &context)).unwrap(),
            r#"{"ciphertext_blob":"aw==","encryption_context":{"a":"b","z":"\u003c1\u003e"}}"#
        );
    }

    #[test]
    fn metadata_is_read_as_go_unmarshals_it() {
        let (blob, context) = unmarshal_meta(
            "p",
            br#"{"Ciphertext_Blob":"aw==","encryption_context":{"a":"b"},"extra":1}"#,
        )
        .unwrap();
        assert_eq!(blob, b"k");
        assert_eq!(context.get("a").map(String::as_str), Some("b"));
        assert!(unmarshal_meta("p", b"null").unwrap().0.is_empty());
        assert!(
            unmarshal_meta("p", br#"{"ciphertext_blob":null}"#)
                .unwrap()
                .0
                .is_empty()
        );
        let bad = unmarshal_meta("key_provider.aws_kms.k", br#"{"ciphertext_blob":"%%"}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            bad,
            "key_provider.aws_kms.k: the metadata stored in the encrypted state is invalid: ciphertext_blob is not valid base64"
        );
    }
}
