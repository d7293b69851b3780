//! The AWS clients of one S3 backend (S3, DynamoDB, STS), and the SDK configuration the `aws_kms`
//! key provider shares with it, configured as Terraform's S3 backend
//! configures its own: the SDK's credential chain (environment, shared files with `profile`, SSO and
//! `credential_process` through the profile, web identity, ECS container and instance metadata) with
//! the backend's settings over it (static keys, `assume_role`, `assume_role_with_web_identity`,
//! `skip_metadata_api_check`), the endpoints, path-style addressing, and bounded retries and timeouts
//! so that an endpoint that does not answer fails within seconds.

use std::time::Duration;

use aws_config::default_provider::credentials::DefaultCredentialsChain;
use aws_config::ecs::EcsCredentialsProvider;
use aws_config::environment::credentials::EnvironmentVariableCredentialsProvider;
use aws_config::imds::credentials::ImdsCredentialsProvider;
use aws_config::meta::credentials::CredentialsProviderChain;
use aws_config::profile::ProfileFileCredentialsProvider;
use aws_config::provider_config::ProviderConfig;
use aws_config::retry::RetryConfig;
use aws_config::sts::AssumeRoleProvider;
use aws_config::timeout::TimeoutConfig;
use aws_config::web_identity_token::{StaticConfiguration, WebIdentityTokenCredentialsProvider};
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_credential_types::Credentials;
use aws_credential_types::provider::SharedCredentialsProvider;
use aws_runtime::env_config::file::{EnvConfigFileKind, EnvConfigFiles};
use statectl_state::state::store::StoreError;

use super::registered::{RegisterSignature, RegisteringProvider};
use statectl_net::aws::AssumeRole;

use super::settings::{CredentialSettings, Settings};

/// How many times a request is tried in all (Terraform's default `max_retries` is 5; statectl keeps
/// a dead endpoint's failure short).
const MAX_ATTEMPTS: u32 = 3;
/// A connection that is not made within this is given up (a blackholed endpoint).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// A response that stops for this long is given up: an endpoint that takes the connection and then
/// says nothing fails after 3 × 5 s. The limit is on silence, not on the whole transfer, so a large
/// state on a slow link still arrives.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The clients one backend uses.
#[derive(Debug, Clone)]
pub(crate) struct Clients {
    pub s3: aws_sdk_s3::Client,
    pub dynamodb: aws_sdk_dynamodb::Client,
    pub sts: aws_sdk_sts::Client,
    /// The region requests go to, for messages.
    pub region: String,
}

impl Clients {
    /// Builds the clients. No request is made here: credentials are resolved on the first call.
    pub(crate) async fn new(settings: &Settings, location: &str) -> Result<Clients, StoreError> {
        let aws = AwsSettings {
            region: settings.region.clone(),
            credentials: settings.credentials.clone(),
            sts_endpoint: settings.endpoints.sts.clone(),
            ..AwsSettings::default()
        };
        let Some(config) = sdk_config(&aws).await else {
            return Err(StoreError::new(format!(
                "{location}: the S3 backend has no region: `region` is not set, nor AWS_REGION or AWS_DEFAULT_REGION, nor a region in the profile"
            ))
            .with_hint("add `--backend-config region=REGION` (the bucket's region)"));
        };
        let region = config.region().map(ToString::to_string).unwrap_or_default();

        let mut s3 = aws_sdk_s3::config::Builder::from(&config)
            .interceptor(RegisterSignature)
            .force_path_style(settings.path_style)
            // Terraform asks for a SHA-256 checksum unless `skip_s3_checksum`; no other checksum is
            // added (S3-compatible stores refuse the ones they do not know).
            .request_checksum_calculation(
                aws_sdk_s3::config::RequestChecksumCalculation::WhenRequired,
            )
            .response_checksum_validation(
                aws_sdk_s3::config::ResponseChecksumValidation::WhenRequired,
            );
        if let Some(url) = &settings.endpoints.s3 {
            s3 = s3.endpoint_url(url);
        }
        let mut dynamodb =
            aws_sdk_dynamodb::config::Builder::from(&config).interceptor(RegisterSignature);
        if let Some(url) = &settings.endpoints.dynamodb {
            dynamodb = dynamodb.endpoint_url(url);
        }
        let mut sts = aws_sdk_sts::config::Builder::from(&config).interceptor(RegisterSignature);
        if let Some(url) = &settings.endpoints.sts {
            sts = sts.endpoint_url(url);
        }
        Ok(Clients {
            s3: aws_sdk_s3::Client::from_conf(s3.build()),
            dynamodb: aws_sdk_dynamodb::Client::from_conf(dynamodb.build()),
            sts: aws_sdk_sts::Client::from_conf(sts.build()),
            region,
        })
    }

    /// The caller's identity (`arn:aws:sts::1234:assumed-role/ci/...`), for an access-denied
    /// message; `None` when STS cannot tell within a few seconds.
    pub(crate) async fn caller_identity(&self) -> Option<String> {
        let request = self.sts.get_caller_identity().send();
        match tokio::time::timeout(Duration::from_secs(5), request).await {
            Ok(Ok(identity)) => identity.arn().map(str::to_owned),
            _ => None,
        }
    }
}

/// What the SDK's configuration is built from: the S3 backend's settings, or the same settings of
/// an `aws_kms` key provider (OpenTofu mirrors the S3 backend's there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AwsSettings {
    /// `None`: the SDK's region chain (environment, then the profile).
    pub region: Option<String>,
    pub credentials: CredentialSettings,
    pub sts_endpoint: Option<String>,
    /// The region `assume_role` asks STS in, when not the requests' own (`sts_region`).
    pub sts_region: Option<String>,
    /// How many times a request is tried in all.
    pub max_attempts: u32,
    /// `retry_mode = "adaptive"`: the SDK's client-side rate limiting on top of the retries.
    pub adaptive_retry: bool,
    pub use_fips: bool,
    pub use_dual_stack: bool,
}

impl Default for AwsSettings {
    /// statectl's bounded retries, the standard endpoints, nothing else set.
    fn default() -> Self {
        AwsSettings {
            region: None,
            credentials: CredentialSettings::default(),
            sts_endpoint: None,
            sts_region: None,
            max_attempts: MAX_ATTEMPTS,
            adaptive_retry: false,
            use_fips: false,
            use_dual_stack: false,
        }
    }
}

/// The SDK's configuration with the credential chain over it; `None` when no region is found. No
/// request is made here.
pub(crate) async fn sdk_config(aws: &AwsSettings) -> Option<SdkConfig> {
    let files = profile_files(&aws.credentials);
    // The region first (the credential providers need it), with no credentials yet.
    let base = loader(aws, files.as_ref()).no_credentials().load().await;
    let region = base.region().cloned()?;
    let sts_region = aws
        .sts_region
        .as_ref()
        .map_or_else(|| region.clone(), |name| Region::new(name.clone()));
    let sts_config = with_endpoint(&base, aws.sts_endpoint.as_deref());
    let credentials = credentials(aws, &region, &sts_region, files.as_ref(), &sts_config).await;
    Some(
        loader(aws, files.as_ref())
            .region(region)
            .credentials_provider(credentials)
            .load()
            .await,
    )
}

/// The SDK's configuration loader with the retries, timeouts, profile, region and endpoint
/// variants asked for.
fn loader(aws: &AwsSettings, files: Option<&EnvConfigFiles>) -> aws_config::ConfigLoader {
    let retry = if aws.adaptive_retry {
        RetryConfig::adaptive()
    } else {
        RetryConfig::standard()
    };
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        .retry_config(retry.with_max_attempts(aws.max_attempts))
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(CONNECT_TIMEOUT)
                .read_timeout(READ_TIMEOUT)
                .build(),
        );
    if aws.use_fips {
        loader = loader.use_fips(true);
    }
    if aws.use_dual_stack {
        loader = loader.use_dual_stack(true);
    }
    if let Some(files) = files {
        loader = loader.profile_files(files.clone());
    }
    if let Some(profile) = &aws.credentials.profile {
        loader = loader.profile_name(profile);
    }
    if let Some(region) = &aws.region {
        loader = loader.region(Region::new(region.clone()));
    }
    loader
}

/// `shared_config_files` / `shared_credentials_files` replace the default files of their kind; the
/// other kind keeps its default (as the Go SDK does).
fn profile_files(settings: &CredentialSettings) -> Option<EnvConfigFiles> {
    if settings.shared_config_files.is_empty() && settings.shared_credentials_files.is_empty() {
        return None;
    }
    let mut builder = EnvConfigFiles::builder()
        .include_default_config_file(settings.shared_config_files.is_empty())
        .include_default_credentials_file(settings.shared_credentials_files.is_empty());
    for file in &settings.shared_config_files {
        builder = builder.with_file(EnvConfigFileKind::Config, expand_home(file));
    }
    for file in &settings.shared_credentials_files {
        builder = builder.with_file(EnvConfigFileKind::Credentials, expand_home(file));
    }
    Some(builder.build())
}

/// `~/...` as Terraform expands it in file settings.
fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_owned(),
    }
}

fn with_endpoint(config: &SdkConfig, endpoint: Option<&str>) -> SdkConfig {
    let mut builder = config.clone().into_builder();
    if let Some(url) = endpoint {
        builder.set_endpoint_url(Some(url.to_owned()));
    }
    builder.build()
}

/// The credential chain: the backend's own keys when given; else the SDK's chain, with an explicit
/// profile first (the Go SDK lets a named profile win over the environment's keys) and instance
/// metadata left out under `skip_metadata_api_check`; web identity from the backend's block in place
/// of the chain; then `assume_role` over whichever it is.
async fn credentials(
    aws: &AwsSettings,
    region: &Region,
    sts_region: &Region,
    files: Option<&EnvConfigFiles>,
    sts_config: &SdkConfig,
) -> SharedCredentialsProvider {
    let base = base_credentials(&aws.credentials, region, files).await;
    let chosen = match &aws.credentials.assume_role {
        Some(role) => assumed_role(role, sts_region, sts_config, base).await,
        None => base,
    };
    SharedCredentialsProvider::new(RegisteringProvider(chosen))
}

/// The credentials before any `assume_role`.
async fn base_credentials(
    credentials: &CredentialSettings,
    region: &Region,
    files: Option<&EnvConfigFiles>,
) -> SharedCredentialsProvider {
    let provider_config = ProviderConfig::default().with_region(Some(region.clone()));
    if let Some(keys) = &credentials.static_keys {
        SharedCredentialsProvider::new(Credentials::new(
            keys.access_key.clone(),
            keys.secret_key.clone(),
            keys.token.clone(),
            None,
            "static keys in the settings",
        ))
    } else if let Some(web) = &credentials.web_identity {
        let provider = WebIdentityTokenCredentialsProvider::builder()
            .configure(&provider_config)
            .static_configuration(StaticConfiguration {
                web_identity_token_file: web.token_file.clone().into(),
                role_arn: web.session.role_arn.clone(),
                session_name: web.session.name(),
            })
            .policy_arns(web.session.policy_arns.clone());
        let provider = match &web.session.policy {
            Some(policy) => provider.policy(policy.clone()),
            None => provider,
        };
        SharedCredentialsProvider::new(provider.build())
    } else if files.is_none()
        && credentials.profile.is_none()
        && !credentials.skip_metadata_api_check
    {
        // Nothing to change: the SDK's own default chain, exactly.
        SharedCredentialsProvider::new(
            DefaultCredentialsChain::builder()
                .region(region.clone())
                .build()
                .await,
        )
    } else {
        let mut profile = ProfileFileCredentialsProvider::builder().configure(&provider_config);
        if let Some(files) = files {
            profile = profile.profile_files(files.clone());
        }
        if let Some(name) = &credentials.profile {
            profile = profile.profile_name(name);
        }
        let profile = profile.build();
        let environment = EnvironmentVariableCredentialsProvider::new();
        let chain = if credentials.profile.is_some() {
            CredentialsProviderChain::first_try("Profile", profile)
                .or_else("Environment", environment)
        } else {
            CredentialsProviderChain::first_try("Environment", environment)
                .or_else("Profile", profile)
        };
        let mut chain = chain
            .or_else(
                "WebIdentityToken",
                WebIdentityTokenCredentialsProvider::builder()
                    .configure(&provider_config)
                    .build(),
            )
            .or_else(
                "EcsContainer",
                EcsCredentialsProvider::builder()
                    .configure(&provider_config)
                    .build(),
            );
        if !credentials.skip_metadata_api_check {
            chain = chain.or_else(
                "Ec2InstanceMetadata",
                ImdsCredentialsProvider::builder()
                    .configure(&provider_config)
                    .build(),
            );
        }
        SharedCredentialsProvider::new(chain)
    }
}

/// `assume_role` over the base credentials.
async fn assumed_role(
    role: &AssumeRole,
    region: &Region,
    sts_config: &SdkConfig,
    base: SharedCredentialsProvider,
) -> SharedCredentialsProvider {
    let session = &role.session;
    let mut builder = AssumeRoleProvider::builder(session.role_arn.clone())
        .region(region.clone())
        .configure(sts_config)
        .session_name(session.name());
    if let Some(id) = &role.external_id {
        builder = builder.external_id(id.clone());
    }
    if let Some(policy) = &session.policy {
        builder = builder.policy(policy.clone());
    }
    if !session.policy_arns.is_empty() {
        builder = builder.policy_arns(session.policy_arns.clone());
    }
    if let Some(duration) = session.duration {
        builder = builder.session_length(duration);
    }
    if !role.tags.is_empty() {
        builder = builder.tags(role.tags.clone());
    }
    SharedCredentialsProvider::new(builder.build_from_provider(base).await)
}
