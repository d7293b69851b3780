//! The provider calls statectl makes, over either plugin protocol: the schema, configuring the
//! provider, upgrading a stored object (and its identity) to the current schema, reading it, and
//! stopping in-flight work.
//! Protocols 5 and 6 differ here only in names (and 6's nested attributes), so one enum serves both,
//! and a call whose messages the two name alike is written once (`on_either_protocol!`); clones
//! share the plugin's one connection and may call concurrently.
//!
//! A call fails when the transport fails or when the provider's diagnostics hold an error, whatever
//! else it answered (as in Terraform); warnings come back with the answer.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::reconcile::plugin::channel::chain;
use crate::reconcile::plugin::diagnostics::{self, Diagnostic};
use crate::reconcile::plugin::proto::{tfplugin5, tfplugin6};
use crate::reconcile::plugin::schema::{
    IdentitySchema, ProviderSchema, SchemaError, from_v5, from_v6,
};
use crate::reconcile::plugin::value::{self, Attribute, Block, Nesting};

/// Schemas of big providers run to tens of megabytes; Terraform allows 64 MiB too.
const MAX_MESSAGE_SIZE: usize = 64 << 20;

/// The Terraform version statectl announces to a provider it configures: the release whose protocol
/// (5.10 / 6.10) it speaks. Providers put it in their user agent and gate behavior on it.
pub const TERRAFORM_VERSION: &str = "1.15.0";

/// msgpack's nil: a null of any type.
const MSGPACK_NULL: [u8; 1] = [0xc0];

/// One call written once for both protocols: in `$body`, `$client` is the protocol's generated
/// client, `$pb` its generated module (`tfplugin5` or `tfplugin6`) and `$schema` its schema
/// converter (`from_v5` or `from_v6`). The two protocols share these messages' names and fields,
/// not their Rust types, so the body is compiled once per protocol.
macro_rules! on_either_protocol {
    ($provider:expr, |$client:ident, $pb:ident, $schema:ident| $body:block) => {
        match $provider {
            ProviderClient::V5($client) => {
                #[allow(unused_imports, reason = "not every body uses the schema converter")]
                use crate::reconcile::plugin::{
                    proto::tfplugin5 as $pb, schema::from_v5 as $schema,
                };
                $body
            }
            ProviderClient::V6($client) => {
                #[allow(unused_imports, reason = "not every body uses the schema converter")]
                use crate::reconcile::plugin::{
                    proto::tfplugin6 as $pb, schema::from_v6 as $schema,
                };
                $body
            }
        }
    };
}

/// A client for one running provider plugin.
#[derive(Debug, Clone)]
pub enum ProviderClient {
    V5(tfplugin5::provider_client::ProviderClient<Channel>),
    V6(tfplugin6::provider_client::ProviderClient<Channel>),
}

/// What an instance's read needs besides its type.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// The prior state in msgpack, as UpgradeResourceState returned it.
    pub current_state: Vec<u8>,
    /// The provider's private data stored with the object.
    pub private: Vec<u8>,
    /// The resource identity in msgpack, when the state has one.
    pub identity: Option<Vec<u8>>,
    /// Whether the provider declares a provider_meta schema (then a null meta value is sent, as
    /// Terraform does for a module without a provider_meta block).
    pub provider_meta: bool,
}

/// What ReadResource answered.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResult {
    /// The object's new state in msgpack; `None` when the provider says it no longer exists.
    pub new_state: Option<Vec<u8>>,
    pub private: Vec<u8>,
    /// The new resource identity in msgpack, if the provider sent one.
    pub identity: Option<Vec<u8>>,
    /// Warnings.
    pub diagnostics: Vec<Diagnostic>,
}

/// What UpgradeResourceState answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Upgraded {
    /// The object in msgpack, under the current schema.
    pub state: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A provider call that failed or answered with errors, or a configuration it cannot take.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("plugin protocol {0} is not supported")]
    Protocol(u32),
    /// The call itself failed: its code, the plugin's message (cut short) and the transport's causes.
    #[error("{}", rpc_failure(rpc, status))]
    Rpc {
        rpc: &'static str,
        status: Box<Status>,
    },
    /// The provider answered with error diagnostics.
    #[error("{rpc}: {errors}")]
    Diagnostics { rpc: &'static str, errors: String },
    /// A schema the provider sent that statectl cannot use fails the call that fetched it.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Configuration(#[from] ConfigurationError),
    #[error("cannot encode the provider configuration: {0}")]
    EncodeConfiguration(#[source] value::ValueError),
    #[error("{0} returned no state")]
    NoState(&'static str),
    #[error("the provider could not stop: {0}")]
    Stop(String),
}

impl ProviderClient {
    /// A client over `channel` for the protocol the plugin chose in its handshake.
    pub fn new(channel: Channel, protocol_version: u32) -> Result<ProviderClient, ClientError> {
        match protocol_version {
            5 => Ok(ProviderClient::V5(
                tfplugin5::provider_client::ProviderClient::new(channel)
                    .max_decoding_message_size(MAX_MESSAGE_SIZE)
                    .max_encoding_message_size(MAX_MESSAGE_SIZE),
            )),
            6 => Ok(ProviderClient::V6(
                tfplugin6::provider_client::ProviderClient::new(channel)
                    .max_decoding_message_size(MAX_MESSAGE_SIZE)
                    .max_encoding_message_size(MAX_MESSAGE_SIZE),
            )),
            other => Err(ClientError::Protocol(other)),
        }
    }

    pub fn protocol_version(&self) -> u32 {
        match self {
            ProviderClient::V5(_) => 5,
            ProviderClient::V6(_) => 6,
        }
    }

    /// The provider's schema.
    pub async fn schema(&mut self) -> Result<ProviderSchema, ClientError> {
        let schema = match self {
            ProviderClient::V5(client) => {
                let response = client
                    .get_schema(tfplugin5::get_provider_schema::Request {})
                    .await
                    .map_err(|status| rpc_error("GetSchema", status))?;
                from_v5::provider_schema(response.into_inner())?
            }
            ProviderClient::V6(client) => {
                let response = client
                    .get_provider_schema(tfplugin6::get_provider_schema::Request {})
                    .await
                    .map_err(|status| rpc_error("GetProviderSchema", status))?;
                from_v6::provider_schema(response.into_inner())?
            }
        };
        check("GetProviderSchema", &schema.diagnostics)?;
        Ok(schema)
    }

    /// The resource identity schemas by resource type; empty for a provider that predates
    /// identities.
    pub async fn identity_schemas(
        &mut self,
    ) -> Result<HashMap<String, Result<IdentitySchema, Arc<SchemaError>>>, ClientError> {
        const RPC: &str = "GetResourceIdentitySchemas";
        let (schemas, diagnostics) = on_either_protocol!(self, |client, pb, schema| {
            match client
                .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
                .await
            {
                Ok(response) => {
                    let response = response.into_inner();
                    (
                        schema::identity_schemas(response.identity_schemas),
                        convert(response.diagnostics),
                    )
                }
                Err(status) if status.code() == Code::Unimplemented => {
                    return Ok(HashMap::new());
                }
                Err(status) => return Err(rpc_error(RPC, status)),
            }
        });
        check(RPC, &diagnostics)?;
        Ok(schemas)
    }

    /// Configures the provider with `config` (an object of its arguments, as JSON), checked against
    /// and completed to the provider's configuration block. Returns the warnings.
    pub async fn configure(
        &mut self,
        provider: &Block,
        config: &Value,
    ) -> Result<Vec<Diagnostic>, ClientError> {
        let complete = complete_config(config, provider, "")?;
        let msgpack = value::encode(&complete, &provider.implied_type())
            .map_err(ClientError::EncodeConfiguration)?;
        let diagnostics = match self {
            ProviderClient::V5(client) => convert(
                client
                    .configure(tfplugin5::configure::Request {
                        terraform_version: TERRAFORM_VERSION.into(),
                        config: Some(tfplugin5::DynamicValue {
                            msgpack,
                            json: Vec::new(),
                        }),
                        client_capabilities: Some(tfplugin5::ClientCapabilities::default()),
                    })
                    .await
                    .map_err(|status| rpc_error("Configure", status))?
                    .into_inner()
                    .diagnostics,
            ),
            ProviderClient::V6(client) => convert(
                client
                    .configure_provider(tfplugin6::configure_provider::Request {
                        terraform_version: TERRAFORM_VERSION.into(),
                        config: Some(tfplugin6::DynamicValue {
                            msgpack,
                            json: Vec::new(),
                        }),
                        client_capabilities: Some(tfplugin6::ClientCapabilities::default()),
                    })
                    .await
                    .map_err(|status| rpc_error("ConfigureProvider", status))?
                    .into_inner()
                    .diagnostics,
            ),
        };
        check("ConfigureProvider", &diagnostics)?;
        Ok(diagnostics)
    }

    /// Upgrades an object stored under `schema_version` (its attributes JSON, as the state holds
    /// them) to the current schema. Terraform does this before every read, even when the versions
    /// match, as it is also how the provider normalizes the stored JSON.
    pub async fn upgrade(
        &mut self,
        type_name: &str,
        schema_version: i64,
        raw_json: Vec<u8>,
    ) -> Result<Upgraded, ClientError> {
        const RPC: &str = "UpgradeResourceState";
        let (state, diagnostics) = on_either_protocol!(self, |client, pb, schema| {
            let response = client
                .upgrade_resource_state(pb::upgrade_resource_state::Request {
                    type_name: type_name.into(),
                    version: schema_version,
                    raw_state: Some(pb::RawState {
                        json: raw_json,
                        flatmap: HashMap::new(),
                    }),
                })
                .await
                .map_err(|status| rpc_error(RPC, status))?
                .into_inner();
            (
                response.upgraded_state.map(|state| state.msgpack),
                convert(response.diagnostics),
            )
        });
        check(RPC, &diagnostics)?;
        match state {
            Some(state) if !state.is_empty() => Ok(Upgraded { state, diagnostics }),
            _ => Err(ClientError::NoState(RPC)),
        }
    }

    /// Upgrades an identity stored under an older identity schema `version` (its JSON, as the state
    /// holds it) to the current identity schema; returns it in msgpack, with the warnings.
    pub async fn upgrade_identity(
        &mut self,
        type_name: &str,
        version: i64,
        raw_json: Vec<u8>,
    ) -> Result<Upgraded, ClientError> {
        const RPC: &str = "UpgradeResourceIdentity";
        let (identity, diagnostics) = on_either_protocol!(self, |client, pb, schema| {
            let response = client
                .upgrade_resource_identity(pb::upgrade_resource_identity::Request {
                    type_name: type_name.into(),
                    version,
                    raw_identity: Some(pb::RawState {
                        json: raw_json,
                        flatmap: HashMap::new(),
                    }),
                })
                .await
                .map_err(|status| rpc_error(RPC, status))?
                .into_inner();
            (
                response
                    .upgraded_identity
                    .and_then(|identity| identity.identity_data)
                    .map(|data| data.msgpack),
                convert(response.diagnostics),
            )
        });
        check(RPC, &diagnostics)?;
        match identity {
            Some(state) if !is_null(&state) => Ok(Upgraded { state, diagnostics }),
            _ => Err(ClientError::NoState(RPC)),
        }
    }

    /// Reads the current state of one object of type `type_name`.
    pub async fn read(
        &mut self,
        type_name: &str,
        request: ReadRequest,
    ) -> Result<ReadResult, ClientError> {
        const RPC: &str = "ReadResource";
        let meta = request.provider_meta.then(|| MSGPACK_NULL.to_vec());
        let (new_state, private, identity, diagnostics) =
            on_either_protocol!(self, |client, pb, schema| {
                let response = client
                    .read_resource(pb::read_resource::Request {
                        type_name: type_name.into(),
                        current_state: Some(pb::DynamicValue {
                            msgpack: request.current_state,
                            json: Vec::new(),
                        }),
                        private: request.private,
                        provider_meta: meta.map(|msgpack| pb::DynamicValue {
                            msgpack,
                            json: Vec::new(),
                        }),
                        client_capabilities: Some(pb::ClientCapabilities::default()),
                        current_identity: request.identity.map(|msgpack| {
                            pb::ResourceIdentityData {
                                identity_data: Some(pb::DynamicValue {
                                    msgpack,
                                    json: Vec::new(),
                                }),
                            }
                        }),
                    })
                    .await
                    .map_err(|status| rpc_error(RPC, status))?
                    .into_inner();
                (
                    response.new_state.map(|state| state.msgpack),
                    response.private,
                    response
                        .new_identity
                        .and_then(|identity| identity.identity_data)
                        .map(|data| data.msgpack),
                    convert(response.diagnostics),
                )
            });
        check(RPC, &diagnostics)?;
        Ok(ReadResult {
            new_state: new_state.filter(|state| !is_null(state)),
            private,
            identity: identity.filter(|identity| !is_null(identity)),
            diagnostics,
        })
    }

    /// Asks the provider to cancel its in-flight calls (Terraform's Ctrl-C); the process keeps
    /// running.
    pub async fn stop(&mut self) -> Result<(), ClientError> {
        let error = match self {
            ProviderClient::V5(client) => {
                client
                    .stop(tfplugin5::stop::Request {})
                    .await
                    .map_err(|status| rpc_error("Stop", status))?
                    .into_inner()
                    .error
            }
            ProviderClient::V6(client) => {
                client
                    .stop_provider(tfplugin6::stop_provider::Request {})
                    .await
                    .map_err(|status| rpc_error("StopProvider", status))?
                    .into_inner()
                    .error
            }
        };
        if error.is_empty() {
            Ok(())
        } else {
            Err(ClientError::Stop(error))
        }
    }
}

/// A missing value or msgpack nil: the provider's way of saying "no object".
fn is_null(msgpack: &[u8]) -> bool {
    msgpack.is_empty() || msgpack == MSGPACK_NULL
}

fn convert<D: Into<Diagnostic>>(diagnostics: Vec<D>) -> Vec<Diagnostic> {
    diagnostics.into_iter().map(Into::into).collect()
}

fn check(rpc: &'static str, diagnostics: &[Diagnostic]) -> Result<(), ClientError> {
    match diagnostics::errors(diagnostics) {
        Some(errors) => Err(ClientError::Diagnostics { rpc, errors }),
        None => Ok(()),
    }
}

fn rpc_error(rpc: &'static str, status: Status) -> ClientError {
    ClientError::Rpc {
        rpc,
        status: Box::new(status),
    }
}

/// A failed call's line, with the transport's causes when the plugin could not be reached.
fn rpc_failure(rpc: &str, status: &Status) -> String {
    let message = status.message();
    let mut text = format!("{rpc} failed ({}", code_name(status.code()));
    if !message.is_empty() {
        text.push_str(": ");
        text.push_str(&crate::reconcile::outcome::excerpt(message.as_bytes(), 500));
    }
    if let Some(source) = std::error::Error::source(status) {
        text.push_str(": ");
        text.push_str(&chain(source));
    }
    text.push(')');
    text
}

fn code_name(code: Code) -> &'static str {
    match code {
        Code::Unavailable => "plugin unavailable",
        Code::Unimplemented => "not implemented by this provider",
        Code::DeadlineExceeded => "deadline exceeded",
        Code::Cancelled => "cancelled",
        _ => code.description(),
    }
}

/// A provider configuration that does not fit the provider's schema. `at` is the nested block's
/// path (empty at the top); argument names are escaped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigurationError {
    #[error("the provider configuration{} must be an object", where_(at))]
    NotAnObject { at: String },
    #[error("the provider has no argument `{name}`{}", where_(at))]
    UnknownArgument { name: String, at: String },
    #[error("the provider configuration's `{path}` is a single block: give one, not several")]
    SeveralBlocks { path: String },
    #[error("the provider configuration's `{path}` must be a list of blocks")]
    NotBlocks { path: String },
}

/// The provider configuration the way Terraform sends it: every attribute of the schema present
/// (null when not set), absent list, set and map blocks empty, absent single blocks null; an argument
/// the schema does not know is an error, as in Terraform.
pub fn complete_config(
    config: &Value,
    block: &Block,
    at: &str,
) -> Result<Value, ConfigurationError> {
    let Value::Object(given) = config else {
        return Err(ConfigurationError::NotAnObject { at: at.to_owned() });
    };
    let known = |name: &str| {
        block
            .attributes
            .iter()
            .any(|attribute| attribute.name == name)
            || block.blocks.iter().any(|nested| nested.name == name)
    };
    if let Some(unknown) = given.keys().find(|name| !known(name)) {
        return Err(ConfigurationError::UnknownArgument {
            name: unknown.escape_debug().to_string(),
            at: at.to_owned(),
        });
    }
    let mut out = Map::new();
    for Attribute { name, .. } in &block.attributes {
        out.insert(
            name.clone(),
            given.get(name).cloned().unwrap_or(Value::Null),
        );
    }
    for nested in &block.blocks {
        let path = if at.is_empty() {
            nested.name.clone()
        } else {
            format!("{at}.{}", nested.name)
        };
        let value = match (given.get(&nested.name), nested.nesting) {
            (None | Some(Value::Null), Nesting::List | Nesting::Set) => Value::Array(Vec::new()),
            (None | Some(Value::Null), Nesting::Map) => Value::Object(Map::new()),
            (None | Some(Value::Null), Nesting::Single) => Value::Null,
            (None | Some(Value::Null), Nesting::Group) => {
                complete_config(&Value::Object(Map::new()), &nested.block, &path)?
            }
            (Some(Value::Array(items)), Nesting::List | Nesting::Set) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        complete_config(item, &nested.block, &format!("{path}[{index}]"))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            // One block given where a list is expected, as HCL's JSON syntax allows.
            (Some(item @ Value::Object(_)), Nesting::List | Nesting::Set) => {
                Value::Array(vec![complete_config(item, &nested.block, &path)?])
            }
            (Some(Value::Object(items)), Nesting::Map) => Value::Object(
                items
                    .iter()
                    .map(|(key, item)| {
                        let item =
                            complete_config(item, &nested.block, &format!("{path}[\"{key}\"]"))?;
                        Ok((key.clone(), item))
                    })
                    .collect::<Result<_, ConfigurationError>>()?,
            ),
            // A block read from a `provider` block in the configuration comes as a list of one.
            (Some(Value::Array(items)), Nesting::Single | Nesting::Group) if items.len() <= 1 => {
                match items.first() {
                    Some(item) => complete_config(item, &nested.block, &path)?,
                    None if nested.nesting == Nesting::Group => {
                        complete_config(&Value::Object(Map::new()), &nested.block, &path)?
                    }
                    None => Value::Null,
                }
            }
            (Some(Value::Array(_)), Nesting::Single | Nesting::Group) => {
                return Err(ConfigurationError::SeveralBlocks { path });
            }
            (Some(item), Nesting::Single | Nesting::Group) => {
                complete_config(item, &nested.block, &path)?
            }
            (Some(_), _) => {
                return Err(ConfigurationError::NotBlocks { path });
            }
        };
        out.insert(nested.name.clone(), value);
    }
    Ok(Value::Object(out))
}

fn where_(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!(" in `{at}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::plugin::value::{AttributeKind, NestedBlock, Type};
    use serde_json::json;

    fn attribute(name: &str, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            kind: AttributeKind::Typed(ty),
            sensitive: false,
            optional: true,
            computed: false,
            required: false,
        }
    }

    fn aws_like() -> Block {
        Block {
            attributes: vec![
                attribute("region", Type::String),
                attribute("skip_metadata_api_check", Type::Bool),
            ],
            blocks: vec![
                NestedBlock {
                    name: "endpoints".into(),
                    nesting: Nesting::Set,
                    block: Block {
                        attributes: vec![
                            attribute("ec2", Type::String),
                            attribute("s3", Type::String),
                        ],
                        blocks: Vec::new(),
                    },
                    min_items: 0,
                    max_items: 0,
                },
                NestedBlock {
                    name: "assume_role".into(),
                    nesting: Nesting::List,
                    block: Block {
                        attributes: vec![attribute("role_arn", Type::String)],
                        blocks: Vec::new(),
                    },
                    min_items: 0,
                    max_items: 1,
                },
            ],
        }
    }

    #[test]
    fn a_single_block_may_come_as_a_list_of_one_as_configuration_blocks_are_read() {
        let mut block = aws_like();
        block.blocks[0].nesting = Nesting::Single;
        let complete = complete_config(
            &json!({"endpoints": [{"ec2": "http://127.0.0.1:1"}]}),
            &block,
            "",
        )
        .unwrap();
        assert_eq!(
            complete["endpoints"],
            json!({"ec2": "http://127.0.0.1:1", "s3": null})
        );
        let error = complete_config(&json!({"endpoints": [{}, {}]}), &block, "").unwrap_err();
        assert!(
            error.to_string().contains("`endpoints` is a single block"),
            "{error}"
        );
    }

    #[test]
    fn completes_a_configuration_as_terraform_sends_it() {
        let complete = complete_config(
            &json!({"region": "us-east-1", "endpoints": {"ec2": "http://127.0.0.1:1"}}),
            &aws_like(),
            "",
        )
        .unwrap();
        assert_eq!(
            complete,
            json!({
                "region": "us-east-1",
                "skip_metadata_api_check": null,
                "endpoints": [{"ec2": "http://127.0.0.1:1", "s3": null}],
                "assume_role": []
            })
        );
    }

    #[test]
    fn refuses_unknown_arguments_and_bad_shapes() {
        assert_eq!(
            complete_config(&json!({"regoin": "x"}), &aws_like(), "")
                .unwrap_err()
                .to_string(),
            "the provider has no argument `regoin`"
        );
        assert_eq!(
            complete_config(&json!({"endpoints": [{"ec3": "x"}]}), &aws_like(), "")
                .unwrap_err()
                .to_string(),
            "the provider has no argument `ec3` in `endpoints[0]`"
        );
        assert_eq!(
            complete_config(&json!({"endpoints": "x"}), &aws_like(), "")
                .unwrap_err()
                .to_string(),
            "the provider configuration's `endpoints` must be a list of blocks"
        );
        assert_eq!(
            complete_config(&json!([]), &aws_like(), ""),
            Err(ConfigurationError::NotAnObject { at: String::new() })
        );
    }

    #[test]
    fn nil_is_no_object() {
        assert!(is_null(&[0xc0]));
        assert!(is_null(&[]));
        assert!(!is_null(&[0x80]));
    }
}
