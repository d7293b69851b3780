//! The plugin reader: read chosen instances through their own provider plugins, as
//! `terraform apply -refresh-only` would, but only those instances. One plugin process per provider
//! configuration in the state (an alias is its own configuration, as in Terraform), configured once;
//! for each instance UpgradeResourceState (and UpgradeResourceIdentity for an identity stored under
//! an older identity schema) then ReadResource, many in flight at once over the
//! plugin's one connection, bounded by the run's parallelism.
//!
//! Each instance comes back as the shared [`Outcome`] plus, when the provider returned an object,
//! the fields Terraform would store after a refresh.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::duration::humanize;
use crate::reconcile::outcome::Outcome;
use crate::reconcile::plugin::client::{ClientError, ProviderClient, ReadRequest};
use crate::reconcile::plugin::diagnostics::Diagnostic;
use crate::reconcile::plugin::discover::{DiscoverError, ProviderSource, SearchPaths, find_binary};
use crate::reconcile::plugin::launch::{LaunchError, Plugin, START_TIMEOUT};
use crate::reconcile::plugin::schema::{IdentitySchema, ProviderSchema, SchemaError};
use crate::reconcile::plugin::value::{self, ValueError};
use crate::state::provider::ProviderConfig;

/// The `status` a reconciled outcome carries for a plugin read.
pub const REFRESHED: &str = "refreshed";

/// One instance to read, with what its state holds.
#[derive(Debug, Clone)]
pub struct ReadJob {
    /// The instance's address, for messages: `aws_instance.web[0]`.
    pub address: String,
    /// The managed resource type: `aws_instance`.
    pub resource_type: String,
    /// The resource's `provider` in state: `provider["registry.terraform.io/hashicorp/aws"]`.
    pub provider: String,
    /// The instance object's `schema_version`.
    pub schema_version: i64,
    /// The instance object's `attributes`, as raw JSON text (the provider upgrades it from there).
    pub attributes: String,
    /// The instance object's `private`: base64 as the state stores it.
    pub private: Option<String>,
    /// The instance object's `sensitive_attributes` paths: marks from the configuration are kept
    /// where their paths still lead somewhere, so a refresh never un-masks a value.
    pub sensitive_attributes: Vec<Value>,
    pub identity: Option<StoredIdentity>,
}

/// A resource identity as the state stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredIdentity {
    pub value: Value,
    pub schema_version: i64,
}

/// How to run the plugins.
#[derive(Clone)]
pub struct ReaderSettings {
    pub paths: SearchPaths,
    /// Provider configurations (`--provider-config NAME=FILE`), each an object of the provider's
    /// arguments, by the names [`config_names`] lists. A provider without one is configured empty,
    /// so its credentials come from its environment, as in Terraform with an empty provider block.
    pub configs: HashMap<String, Value>,
    /// Reads in flight at once, over all providers.
    pub parallelism: usize,
    /// The longest one instance's upgrade and read may take.
    pub timeout: Option<Duration>,
    /// The longest a provider may take to start: its handshake, and each of the calls before the
    /// first read (its schema, its identity schemas, its configuration), each on its own.
    pub start_timeout: Duration,
}

impl Default for ReaderSettings {
    fn default() -> ReaderSettings {
        ReaderSettings {
            paths: SearchPaths::default(),
            configs: HashMap::new(),
            parallelism: 1,
            timeout: None,
            start_timeout: START_TIMEOUT,
        }
    }
}

/// Provider configurations hold credentials: Debug names them and shows none of their values.
impl fmt::Debug for ReaderSettings {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.configs.keys().collect();
        names.sort();
        formatter
            .debug_struct("ReaderSettings")
            .field("paths", &self.paths)
            .field("configs", &names)
            .field("parallelism", &self.parallelism)
            .field("timeout", &self.timeout)
            .field("start_timeout", &self.start_timeout)
            .finish()
    }
}

/// What reading one instance came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Refreshed {
    /// `Reconciled` (with the new attributes when they differ), `Gone`, or `Error` naming the
    /// instance.
    pub outcome: Outcome,
    /// The object as Terraform would store it after the refresh; `None` unless reconciled.
    pub object: Option<RefreshedObject>,
    /// The provider's warnings about this instance.
    pub warnings: Vec<Diagnostic>,
}

/// The instance object's fields after a refresh.
#[derive(Debug, Clone, PartialEq)]
pub struct RefreshedObject {
    pub attributes: Value,
    /// The schema's current version (the object was upgraded to it).
    pub schema_version: i64,
    /// Base64 as the state stores it; `None` when the provider keeps no private data.
    pub private: Option<String>,
    /// The paths of sensitive values, in the state's `sensitive_attributes` form.
    pub sensitive_attributes: Vec<Value>,
    /// The identity ReadResource returned; `None` when it returned none (Terraform then stores none).
    pub identity: Option<StoredIdentity>,
    /// The provider's identity schema version for this type (0 without one), which Terraform
    /// writes as `identity_schema_version` whatever the identity.
    pub identity_schema_version: i64,
    /// The stored attributes as UpgradeResourceState returned them: what Terraform compares the
    /// read with when it reports drift (the stored JSON may predate the provider's normalising).
    pub prior: Value,
    /// The paths of the attributes only the provider sets in this resource type's schema.
    pub computed_only: Arc<Vec<Vec<value::PatternStep>>>,
}

/// The names a `--provider-config` may give a provider configuration, most specific first: the
/// address as the state writes it, the source with its alias (`registry.terraform.io/hashicorp/aws.west`),
/// then the type with its alias (`aws.west`), as a configuration would name it.
pub fn config_names(provider: &str) -> Vec<String> {
    let mut names = vec![provider.to_owned()];
    if let Ok(config) = ProviderConfig::parse(provider) {
        let source = ProviderSource::parse(&config.source);
        let alias = config
            .alias
            .map(|alias| format!(".{alias}"))
            .unwrap_or_default();
        names.push(format!("{source}{alias}"));
        names.push(format!("{}{alias}", source.type_name));
    }
    names
}

/// Reads every job through its provider, returning results in the jobs' order.
pub async fn read_all(jobs: Vec<ReadJob>, settings: &ReaderSettings) -> Vec<Refreshed> {
    let total = jobs.len();
    let mut by_provider: BTreeMap<String, Vec<(usize, ReadJob)>> = BTreeMap::new();
    for (index, job) in jobs.into_iter().enumerate() {
        by_provider
            .entry(job.provider.clone())
            .or_default()
            .push((index, job));
    }
    let gate = Arc::new(Semaphore::new(settings.parallelism.max(1)));
    let mut providers = JoinSet::new();
    for (provider, jobs) in by_provider {
        let config = config_names(&provider)
            .iter()
            .find_map(|name| settings.configs.get(name))
            .cloned()
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        let deadlines = Deadlines {
            read: settings.timeout,
            start: settings.start_timeout,
        };
        let (paths, gate) = (settings.paths.clone(), Arc::clone(&gate));
        providers.spawn(async move {
            read_provider(&provider, &config, jobs, &paths, deadlines, gate).await
        });
    }
    let mut results: Vec<Option<Refreshed>> = vec![None; total];
    while let Some(finished) = providers.join_next().await {
        // A provider task that panicked leaves its instances unanswered; they become errors below.
        if let Ok(finished) = finished {
            for (index, refreshed) in finished {
                results[index] = Some(refreshed);
            }
        }
    }
    results
        .into_iter()
        .map(|result| result.unwrap_or_else(|| failed("the plugin reader stopped unexpectedly")))
        .collect()
}

fn failed(message: impl Into<String>) -> Refreshed {
    Refreshed {
        outcome: Outcome::Error {
            message: message.into(),
            status: None,
            excerpt: String::new(),
        },
        object: None,
        warnings: Vec::new(),
    }
}

/// How long a provider's calls may take.
#[derive(Debug, Clone, Copy)]
struct Deadlines {
    /// One instance's upgrade and read, together.
    read: Option<Duration>,
    /// The handshake, and each start-up call on its own.
    start: Duration,
}

/// A started and configured provider, shared by its instances' reads.
struct Session {
    client: ProviderClient,
    schema: ProviderSchema,
    identities: HashMap<String, Result<IdentitySchema, Arc<SchemaError>>>,
    /// Each resource type's computed-only paths, worked out at its first read.
    computed_only: std::sync::Mutex<HashMap<String, Arc<Vec<Vec<value::PatternStep>>>>>,
}

impl Session {
    fn computed_only(
        &self,
        resource_type: &str,
        block: &value::Block,
    ) -> Arc<Vec<Vec<value::PatternStep>>> {
        let mut known = self
            .computed_only
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(
            known
                .entry(resource_type.to_owned())
                .or_insert_with(|| Arc::new(value::computed_only_paths(block))),
        )
    }
}

/// Why a provider's plugin could not be started and configured; every instance it reads reports it.
#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error(transparent)]
    Source(DiscoverError),
    #[error("provider {provider}: {source}")]
    Find {
        provider: String,
        source: DiscoverError,
    },
    #[error("provider {provider}: {source}")]
    Launch {
        provider: String,
        source: LaunchError,
    },
    #[error("provider {provider}: {source}")]
    Client {
        provider: String,
        source: ClientError,
    },
    #[error("provider {provider}: configuring it: {source}")]
    Configure {
        provider: String,
        source: ClientError,
    },
    #[error(
        "provider {provider}: plugin `{plugin}` did not answer {call} within {} (--start-timeout)",
        humanize(*limit)
    )]
    Timeout {
        provider: String,
        plugin: String,
        call: &'static str,
        limit: Duration,
    },
}

/// Why one instance could not be read; the reader prefixes its address.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error("its `private` is not base64: {0}")]
    Private(#[source] base64::DecodeError),
    #[error("the identity schema: {0}")]
    IdentitySchema(#[source] Arc<SchemaError>),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("cannot decode the provider's answer: {0}")]
    DecodeState(#[source] ValueError),
    #[error("cannot decode the provider's upgraded object: {0}")]
    DecodeUpgraded(#[source] ValueError),
    #[error("cannot decode the provider's identity: {0}")]
    DecodeIdentity(#[source] ValueError),
    #[error("the provider returned an identity for a resource type without an identity schema")]
    UnexpectedIdentity,
    #[error("cannot encode its identity: {0}")]
    EncodeIdentity(#[source] ValueError),
    #[error(
        "its identity was stored by a newer provider version (identity schema version {stored}, this provider's is {current})"
    )]
    NewerIdentity { stored: i64, current: i64 },
    #[error("the provider's upgraded identity does not fit its schema: {0}")]
    UpgradedIdentity(#[source] ValueError),
    #[error("no answer within {}", humanize(*.0))]
    Timeout(Duration),
}

/// Everything for one provider configuration: start, configure, read its instances, stop.
async fn read_provider(
    provider: &str,
    config: &Value,
    jobs: Vec<(usize, ReadJob)>,
    paths: &SearchPaths,
    deadlines: Deadlines,
    gate: Arc<Semaphore>,
) -> Vec<(usize, Refreshed)> {
    let (plugin, session) = match start(provider, config, paths, deadlines.start).await {
        Ok(started) => started,
        Err(error) => {
            return jobs
                .into_iter()
                .map(|(index, job)| (index, failed(format!("{}: {error}", job.address))))
                .collect();
        }
    };
    let session = Arc::new(session);
    let mut reads = JoinSet::new();
    for (index, job) in jobs {
        let (session, gate) = (Arc::clone(&session), Arc::clone(&gate));
        reads.spawn(async move {
            let Ok(_slot) = gate.acquire_owned().await else {
                return (
                    index,
                    failed(format!("{}: the reader was stopped", job.address)),
                );
            };
            let read = read_one(&session, &job);
            let refreshed = match deadlines.read {
                Some(limit) => tokio::time::timeout(limit, read)
                    .await
                    .unwrap_or(Err(ReadError::Timeout(limit))),
                None => read.await,
            };
            let refreshed =
                refreshed.unwrap_or_else(|error| failed(format!("{}: {error}", job.address)));
            (index, refreshed)
        });
    }
    let mut results = Vec::new();
    while let Some(finished) = reads.join_next().await {
        if let Ok(finished) = finished {
            results.push(finished);
        }
    }
    drop(session);
    if let Err(error) = plugin.shutdown().await {
        tracing::debug!(target: "statectl::plugin", "{error}");
    }
    results
}

/// Finds, launches and configures the plugin for `provider`.
async fn start(
    provider: &str,
    config: &Value,
    paths: &SearchPaths,
    limit: Duration,
) -> Result<(Plugin, Session), StartError> {
    let source = ProviderSource::from_state(provider).map_err(StartError::Source)?;
    let binary = find_binary(&source, paths).map_err(|source| StartError::Find {
        provider: provider.to_owned(),
        source,
    })?;
    let plugin = Plugin::launch_within(&binary, limit)
        .await
        .map_err(|source| StartError::Launch {
            provider: provider.to_owned(),
            source,
        })?;
    match prepare(provider, config, &plugin, limit).await {
        Ok(session) => Ok((plugin, session)),
        Err(error) => {
            // Killed and waited for: the run ends with no plugin process left behind.
            plugin.kill().await;
            Err(error)
        }
    }
}

/// Registers with the run's masks every value the provider's schema marks sensitive in the
/// configuration statectl sends it (`secret_key`, `token`...): the plugin may echo them in a
/// diagnostic.
fn register_sensitive_arguments(config: &Value, block: &value::Block) {
    fn strings(value: &Value) {
        match value {
            Value::String(text) => statectl_net::secrets::register(text),
            Value::Array(items) => items.iter().for_each(strings),
            Value::Object(fields) => fields.values().for_each(strings),
            _ => {}
        }
    }
    for path in value::sensitive_paths(config, block) {
        let mut at = Some(config);
        // Steps as the state spells them: `get_attr` a name, `index` a key or a position.
        for step in path.as_array().into_iter().flatten() {
            let key = &step["value"];
            at = at.and_then(|here| match (step["type"].as_str(), here) {
                (Some("get_attr"), Value::Object(fields)) => fields.get(key.as_str()?),
                (Some("index"), Value::Object(fields)) => fields.get(key["value"].as_str()?),
                (Some("index"), Value::Array(items)) => {
                    items.get(usize::try_from(key["value"].as_u64()?).ok()?)
                }
                _ => None,
            });
        }
        if let Some(found) = at {
            strings(found);
        }
    }
}

/// The calls before the first read: the schema, the identity schemas, the configuration. A
/// provider that hangs here would hold the whole run, so each has the start deadline.
async fn prepare(
    provider: &str,
    config: &Value,
    plugin: &Plugin,
    limit: Duration,
) -> Result<Session, StartError> {
    let in_provider = |source: ClientError| StartError::Client {
        provider: provider.to_owned(),
        source,
    };
    let within = |call: &'static str| StartError::Timeout {
        provider: provider.to_owned(),
        plugin: plugin.name.clone(),
        call,
        limit,
    };
    let mut client = ProviderClient::new(plugin.channel.clone(), plugin.protocol_version)
        .map_err(in_provider)?;
    let schema = tokio::time::timeout(limit, client.schema())
        .await
        .map_err(|_| within("GetProviderSchema"))?
        .map_err(in_provider)?;
    for warning in &schema.diagnostics {
        tracing::debug!(target: "statectl::plugin", "{provider}: {warning}");
    }
    // Fetched even when no stored object has an identity: ReadResource may return the first one.
    let identities = tokio::time::timeout(limit, client.identity_schemas())
        .await
        .map_err(|_| within("GetResourceIdentitySchemas"))?
        .map_err(in_provider)?;
    register_sensitive_arguments(config, &schema.provider);
    let warnings = tokio::time::timeout(limit, client.configure(&schema.provider, config))
        .await
        .map_err(|_| within("ConfigureProvider"))?
        .map_err(|source| StartError::Configure {
            provider: provider.to_owned(),
            source,
        })?;
    for warning in &warnings {
        tracing::debug!(target: "statectl::plugin", "{provider}: {warning}");
    }
    Ok(Session {
        client,
        schema,
        identities,
        computed_only: std::sync::Mutex::default(),
    })
}

/// Upgrades and reads one instance, and decodes what came back.
async fn read_one(session: &Session, job: &ReadJob) -> Result<Refreshed, ReadError> {
    let resource = session.schema.resource(&job.resource_type)?;
    let private = match &job.private {
        Some(text) if !text.is_empty() => STANDARD.decode(text).map_err(ReadError::Private)?,
        _ => Vec::new(),
    };
    let identity_schema = match session.identities.get(&job.resource_type) {
        Some(Ok(schema)) => Some(schema),
        Some(Err(error)) => return Err(ReadError::IdentitySchema(Arc::clone(error))),
        None => None,
    };
    let computed_only = session.computed_only(&job.resource_type, &resource.block);
    let mut client = session.client.clone();
    let (identity, mut warnings) = current_identity(&mut client, job, identity_schema).await?;
    let upgraded = client
        .upgrade(
            &job.resource_type,
            job.schema_version,
            job.attributes.as_bytes().to_vec(),
        )
        .await?;
    let prior = value::decode(&upgraded.state, &resource.implied_type)
        .map_err(ReadError::DecodeUpgraded)?;
    let read = client
        .read(
            &job.resource_type,
            ReadRequest {
                current_state: upgraded.state,
                private,
                identity,
                provider_meta: session.schema.provider_meta.is_some(),
            },
        )
        .await?;
    warnings.extend(upgraded.diagnostics);
    warnings.extend(read.diagnostics);
    let Some(new_state) = read.new_state else {
        return Ok(Refreshed {
            outcome: Outcome::Gone,
            object: None,
            warnings,
        });
    };
    let attributes =
        value::decode(&new_state, &resource.implied_type).map_err(ReadError::DecodeState)?;
    // What ReadResource returned is the identity, as in Terraform: none when it returned none.
    let identity = match (read.identity, identity_schema) {
        (Some(msgpack), Some(schema)) => Some(StoredIdentity {
            value: value::decode(&msgpack, &schema.ty).map_err(ReadError::DecodeIdentity)?,
            schema_version: schema.version,
        }),
        (Some(_), None) => return Err(ReadError::UnexpectedIdentity),
        (None, _) => None,
    };
    let sensitive_attributes = value::sensitive_paths_after_refresh(
        &attributes,
        &resource.block,
        &job.sensitive_attributes,
    );
    let changed =
        serde_json::from_str::<Value>(&job.attributes).map_or(true, |before| before != attributes);
    Ok(Refreshed {
        outcome: Outcome::Reconciled {
            status: REFRESHED.to_owned(),
            attributes: changed.then(|| attributes.clone()),
        },
        object: Some(RefreshedObject {
            attributes,
            schema_version: resource.version,
            private: (!read.private.is_empty()).then(|| STANDARD.encode(&read.private)),
            sensitive_attributes,
            identity,
            identity_schema_version: identity_schema.map_or(0, |schema| schema.version),
            prior,
            computed_only,
        }),
        warnings,
    })
}

/// The identity to send with the read, in msgpack: the stored one, upgraded first through
/// UpgradeResourceIdentity when it was stored under an older identity schema version (as Terraform
/// does before every read). An identity from a newer version than the provider's is refused.
async fn current_identity(
    client: &mut ProviderClient,
    job: &ReadJob,
    schema: Option<&IdentitySchema>,
) -> Result<(Option<Vec<u8>>, Vec<Diagnostic>), ReadError> {
    let (Some(stored), Some(schema)) = (&job.identity, schema) else {
        return Ok((None, Vec::new()));
    };
    match stored.schema_version.cmp(&schema.version) {
        std::cmp::Ordering::Equal => {
            let msgpack =
                value::encode(&stored.value, &schema.ty).map_err(ReadError::EncodeIdentity)?;
            Ok((Some(msgpack), Vec::new()))
        }
        std::cmp::Ordering::Greater => Err(ReadError::NewerIdentity {
            stored: stored.schema_version,
            current: schema.version,
        }),
        std::cmp::Ordering::Less => {
            let upgraded = client
                .upgrade_identity(
                    &job.resource_type,
                    stored.schema_version,
                    stored.value.to_string().into_bytes(),
                )
                .await?;
            // An identity that does not fit the current schema is the provider's bug; say so here
            // rather than send it on.
            value::decode(&upgraded.state, &schema.ty).map_err(ReadError::UpgradedIdentity)?;
            Ok((Some(upgraded.state), upgraded.diagnostics))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_configuration_by_address_source_or_type() {
        assert_eq!(
            config_names(r#"provider["registry.terraform.io/hashicorp/aws"].west"#),
            [
                r#"provider["registry.terraform.io/hashicorp/aws"].west"#,
                "registry.terraform.io/hashicorp/aws.west",
                "aws.west"
            ]
        );
        assert_eq!(
            config_names(r#"module.net.provider["registry.opentofu.org/oracle/oci"]"#)[1..],
            ["registry.opentofu.org/oracle/oci", "oci"]
        );
    }

    #[test]
    fn the_arguments_the_schema_marks_sensitive_are_masked_from_then_on() {
        let attribute = |name: &str, sensitive: bool| value::Attribute {
            name: name.to_owned(),
            kind: value::AttributeKind::Typed(value::Type::String),
            sensitive,
            optional: true,
            computed: false,
            required: false,
        };
        let block = value::Block {
            attributes: vec![attribute("region", false), attribute("secret_key", true)],
            blocks: Vec::new(),
        };
        register_sensitive_arguments(
            &serde_json::json!({"region": "eu-central-1", "secret_key": "provider-secret-marker"}),
            &block,
        );
        assert_eq!(
            statectl_net::secrets::mask("eu-central-1 provider-secret-marker"),
            "eu-central-1 ***"
        );
    }

    #[test]
    fn debug_shows_no_configuration_values() {
        let settings = ReaderSettings {
            configs: [(
                "aws".to_owned(),
                serde_json::json!({"secret_key": "hunter2"}),
            )]
            .into(),
            ..ReaderSettings::default()
        };
        let debug = format!("{settings:?}");
        assert!(debug.contains("configs: [\"aws\"]"), "{debug}");
        assert!(!debug.contains("hunter2"), "{debug}");
    }

    #[tokio::test]
    async fn every_instance_of_a_provider_that_cannot_start_says_so() {
        let empty = tempfile::tempdir().unwrap();
        let job = |address: &str| ReadJob {
            address: address.into(),
            resource_type: "aws_instance".into(),
            provider: r#"provider["registry.terraform.io/hashicorp/aws"]"#.into(),
            schema_version: 1,
            attributes: "{}".into(),
            private: None,
            sensitive_attributes: Vec::new(),
            identity: None,
        };
        let settings = ReaderSettings {
            paths: SearchPaths {
                plugin_dirs: Vec::new(),
                config_dir: empty.path().to_owned(),
                ..SearchPaths::default()
            },
            parallelism: 2,
            ..ReaderSettings::default()
        };
        let results = read_all(
            vec![job("aws_instance.a"), job("aws_instance.b")],
            &settings,
        )
        .await;
        assert_eq!(results.len(), 2);
        for (result, address) in results.iter().zip(["aws_instance.a", "aws_instance.b"]) {
            let Outcome::Error { message, .. } = &result.outcome else {
                panic!("expected an error, got {:?}", result.outcome);
            };
            assert!(
                message.starts_with(&format!(
                    "{address}: provider provider[\"registry.terraform.io/hashicorp/aws\"]: no `terraform-provider-aws` binary"
                )),
                "{message}"
            );
        }
    }
}
