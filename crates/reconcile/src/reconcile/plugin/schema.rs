//! A provider's schema as statectl uses it: the provider's configuration block and, per managed
//! resource type, the current schema version and block, converted from either protocol's messages
//! into `value`'s types. A resource type whose schema does not convert is kept as an error for that
//! type alone, so one odd type does not stop reads of the others.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::reconcile::plugin::diagnostics::Diagnostic;
use crate::reconcile::plugin::proto::{tfplugin5, tfplugin6};
use crate::reconcile::plugin::value::{
    Attribute, AttributeKind, Block, NestedAttributes, NestedBlock, Nesting, Type, TypeError,
};

/// One resource type's schema.
#[derive(Debug, Clone)]
pub struct ResourceSchema {
    /// The schema version: what `schema_version` in state becomes after an upgrade.
    pub version: i64,
    pub block: Block,
    /// `block.implied_type()`, computed once.
    pub implied_type: Type,
}

impl ResourceSchema {
    fn new(version: i64, block: Block) -> ResourceSchema {
        let implied_type = block.implied_type();
        ResourceSchema {
            version,
            block,
            implied_type,
        }
    }
}

/// A resource type's identity schema (protocol 5.9 / 6.9 and later).
#[derive(Debug, Clone, PartialEq)]
pub struct IdentitySchema {
    pub version: i64,
    /// An object type of the identity attributes.
    pub ty: Type,
}

/// What GetProviderSchema answered.
#[derive(Debug, Clone)]
pub struct ProviderSchema {
    /// The provider's own configuration block.
    pub provider: Block,
    /// The provider_meta block, if the provider declares one.
    pub provider_meta: Option<Block>,
    resources: HashMap<String, Result<Arc<ResourceSchema>, Arc<SchemaError>>>,
    /// Warnings (errors make the call fail instead).
    pub diagnostics: Vec<Diagnostic>,
}

/// A provider schema statectl cannot use, or a resource type it does not have.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// `what` names the block or attribute.
    #[error("{what} has nesting mode {mode}, which is not valid")]
    Nesting { what: String, mode: i32 },
    #[error("attribute `{name}` has a bad type: {source}")]
    AttributeType { name: String, source: TypeError },
    /// A problem inside a nested block or attribute, which `what` names.
    #[error("in {what}: {source}")]
    In {
        what: String,
        source: Box<SchemaError>,
    },
    #[error("the provider's configuration schema: {0}")]
    Provider(#[source] Box<SchemaError>),
    #[error("the provider_meta schema: {0}")]
    ProviderMeta(#[source] Box<SchemaError>),
    /// The resource type's schema did not convert when the provider's schema was read (the schema
    /// keeps that error for every lookup of the type).
    #[error("the schema of `{type_name}`: {source}")]
    Resource {
        type_name: String,
        source: Arc<SchemaError>,
    },
    #[error("the provider has no managed resource type `{type_name}`")]
    NoResource { type_name: String },
}

impl ProviderSchema {
    /// The schema of a managed resource type.
    pub fn resource(&self, type_name: &str) -> Result<Arc<ResourceSchema>, SchemaError> {
        match self.resources.get(type_name) {
            Some(Ok(schema)) => Ok(Arc::clone(schema)),
            Some(Err(error)) => Err(SchemaError::Resource {
                type_name: type_name.to_owned(),
                source: Arc::clone(error),
            }),
            None => Err(SchemaError::NoResource {
                type_name: type_name.to_owned(),
            }),
        }
    }

    /// The managed resource types the provider declares, in name order.
    pub fn resource_types(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.resources.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

fn nesting(mode: i32, what: &str) -> Result<Nesting, SchemaError> {
    // Both protocols number the modes alike: SINGLE 1, LIST 2, SET 3, MAP 4, GROUP 5.
    match mode {
        1 => Ok(Nesting::Single),
        2 => Ok(Nesting::List),
        3 => Ok(Nesting::Set),
        4 => Ok(Nesting::Map),
        5 => Ok(Nesting::Group),
        other => Err(SchemaError::Nesting {
            what: what.to_owned(),
            mode: other,
        }),
    }
}

fn attribute_type(bytes: &[u8], name: &str) -> Result<Type, SchemaError> {
    Type::from_json(bytes).map_err(|source| SchemaError::AttributeType {
        name: name.to_owned(),
        source,
    })
}

/// The protocol-independent parts of converting a schema, for each protocol's generated types.
macro_rules! convert_protocol {
    ($module:ident, $protocol:ident, $attribute:ident) => {
        pub(crate) mod $module {
            use super::*;
            use crate::reconcile::plugin::proto::$protocol::{Schema, get_provider_schema};

            pub(crate) fn block(schema: $protocol::schema::Block) -> Result<Block, SchemaError> {
                let attributes = schema
                    .attributes
                    .into_iter()
                    .map($attribute)
                    .collect::<Result<Vec<_>, _>>()?;
                let blocks = schema
                    .block_types
                    .into_iter()
                    .map(|nested| {
                        let what = format!("block `{}`", nested.type_name);
                        Ok(NestedBlock {
                            nesting: nesting(nested.nesting, &what)?,
                            block: block(nested.block.unwrap_or_default()).map_err(|error| {
                                SchemaError::In {
                                    what: what.clone(),
                                    source: Box::new(error),
                                }
                            })?,
                            name: nested.type_name,
                            min_items: nested.min_items,
                            max_items: nested.max_items,
                        })
                    })
                    .collect::<Result<Vec<_>, SchemaError>>()?;
                Ok(Block { attributes, blocks })
            }

            fn resource(schema: Schema) -> Result<Arc<ResourceSchema>, SchemaError> {
                let version = schema.version;
                let block = block(schema.block.unwrap_or_default())?;
                Ok(Arc::new(ResourceSchema::new(version, block)))
            }

            pub(crate) fn provider_schema(
                response: get_provider_schema::Response,
            ) -> Result<ProviderSchema, SchemaError> {
                let provider = block(
                    response
                        .provider
                        .and_then(|schema| schema.block)
                        .unwrap_or_default(),
                )
                .map_err(|error| SchemaError::Provider(Box::new(error)))?;
                let provider_meta = response
                    .provider_meta
                    .and_then(|schema| schema.block)
                    .map(block)
                    .transpose()
                    .map_err(|error| SchemaError::ProviderMeta(Box::new(error)))?;
                let resources = response
                    .resource_schemas
                    .into_iter()
                    .map(|(name, schema)| (name, resource(schema).map_err(Arc::new)))
                    .collect();
                Ok(ProviderSchema {
                    provider,
                    provider_meta,
                    resources,
                    diagnostics: response
                        .diagnostics
                        .into_iter()
                        .map(Diagnostic::from)
                        .collect(),
                })
            }

            pub(crate) fn identity_schemas(
                schemas: std::collections::HashMap<String, $protocol::ResourceIdentitySchema>,
            ) -> HashMap<String, Result<IdentitySchema, Arc<SchemaError>>> {
                schemas
                    .into_iter()
                    .map(|(name, schema)| {
                        let fields: Result<BTreeMap<String, Type>, SchemaError> = schema
                            .identity_attributes
                            .into_iter()
                            .map(|attribute| {
                                let ty = attribute_type(&attribute.r#type, &attribute.name)?;
                                Ok((attribute.name, ty))
                            })
                            .collect();
                        // The reader reports it with each instance of the type.
                        let identity = fields
                            .map(|fields| IdentitySchema {
                                version: schema.version,
                                ty: Type::Object(fields),
                            })
                            .map_err(Arc::new);
                        (name, identity)
                    })
                    .collect()
            }
        }
    };
}

fn attribute_v5(attribute: tfplugin5::schema::Attribute) -> Result<Attribute, SchemaError> {
    let ty = attribute_type(&attribute.r#type, &attribute.name)?;
    Ok(Attribute {
        kind: AttributeKind::Typed(ty),
        name: attribute.name,
        sensitive: attribute.sensitive,
        optional: attribute.optional,
        computed: attribute.computed,
        required: attribute.required,
    })
}

/// Protocol 6 attributes have either a type or nested attributes.
fn attribute_v6(attribute: tfplugin6::schema::Attribute) -> Result<Attribute, SchemaError> {
    let kind = match attribute.nested_type {
        Some(object) => {
            let what = format!("attribute `{}`", attribute.name);
            AttributeKind::Nested(NestedAttributes {
                nesting: nesting(object.nesting, &what)?,
                attributes: object
                    .attributes
                    .into_iter()
                    .map(attribute_v6)
                    .collect::<Result<_, _>>()
                    .map_err(|error| SchemaError::In {
                        what: what.clone(),
                        source: Box::new(error),
                    })?,
            })
        }
        None => AttributeKind::Typed(attribute_type(&attribute.r#type, &attribute.name)?),
    };
    Ok(Attribute {
        kind,
        name: attribute.name,
        sensitive: attribute.sensitive,
        optional: attribute.optional,
        computed: attribute.computed,
        required: attribute.required,
    })
}

convert_protocol!(from_v5, tfplugin5, attribute_v5);
convert_protocol!(from_v6, tfplugin6, attribute_v6);
