//! The format-3 upgrade itself: reads a version-3 document (Terraform 0.8 to 0.11) with Go's reader
//! rules, and writes the version-4 document that Terraform 1.15.5 holds after its own upgrade
//! (`upgradeStateV3ToV4`, then `prepareStateV4`), in the exact form its writer gives it.
//!
//! The facts, from hashicorp/terraform `internal/states/statefile/version3_upgrade.go`:
//! - `modules[].path` `["root", "a", "b"]` is `module.a.module.b`; every name must be an identifier.
//! - a `resources` key is an instance: `TYPE.NAME`, `TYPE.NAME.INDEX`, `data.TYPE.NAME[.INDEX]`, the
//!   index read as Go's `strconv.ParseInt(s, 0, 0)` reads it; a counted resource gets `each`, which
//!   Terraform 1.x no longer writes.
//! - `primary` is the current object, each `deposed[i]` a deposed one with key `%08x` of `i + 1`;
//!   `tainted` becomes `status: "tainted"`; flat `attributes` stay flat (`attributes_flat`), with the
//!   first-class `id` copied in when the attributes lack one; `meta.schema_version` becomes
//!   `schema_version` and the rest of `meta` becomes `private` (its JSON, base64).
//! - `provider` `provider.aws.west` / `module.m.provider.aws` keeps its module, `aws.west` is taken in
//!   the resource's module, and an empty one is implied from the type (`aws_instance` -> `aws`); all
//!   become legacy provider addresses (`registry.terraform.io/-/aws`), except `provider.terraform`,
//!   the built-in `terraform.io/builtin/terraform`.
//! - `depends_on` is dropped; only the root module's outputs are kept, typed as cty infers them.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::go::{self, Out, Value};
use crate::json::Cursor;
use crate::state::address::{identifier_length, is_identifier};
use crate::state::error::StateError;
use crate::state::parse::canonical;
use crate::state::provider::after_quoted;

type Result<T> = std::result::Result<T, StateError>;

/// Upgrades the text of a format-3 state to the version-4 text Terraform 1.15.5 would write for it,
/// keeping its `terraform_version` and `serial` (a write by Terraform would set its own version and
/// raise the serial). Errors carry a byte offset of `source`.
pub fn upgrade(source: &str) -> Result<String> {
    let document = read(source)?;
    Ok(convert(&document)?.to_document())
}

// ---------------------------------------------------------------------------------------------
// Reading, as Go's `json.Unmarshal` fills `stateV3`: keys match ignoring case, `null` leaves a field
// as it was, a repeated map merges into the one before, a repeated array replaces it.

#[derive(Debug, Default)]
struct Document {
    terraform_version: String,
    serial: i64,
    serial_at: usize,
    lineage: String,
    modules: Vec<Module>,
}

#[derive(Debug, Default)]
struct Module {
    path: Vec<String>,
    at: usize,
    outputs: BTreeMap<String, OutputV3>,
    /// Keyed by the legacy address, with the key's offset.
    resources: BTreeMap<String, (usize, ResourceV3)>,
}

#[derive(Debug)]
struct OutputV3 {
    sensitive: bool,
    value: Value,
}

#[derive(Debug, Default)]
struct ResourceV3 {
    primary: Option<InstanceV3>,
    deposed: Vec<InstanceV3>,
    provider: String,
    provider_at: usize,
}

#[derive(Debug, Default)]
struct InstanceV3 {
    id: String,
    attributes: Option<BTreeMap<String, String>>,
    meta: Option<BTreeMap<String, Value>>,
    tainted: bool,
}

const TOP_KEYS: &[&str] = &[
    "version",
    "terraform_version",
    "serial",
    "lineage",
    "remote",
    "backend",
    "modules",
];
const MODULE_KEYS: &[&str] = &["path", "outputs", "resources", "depends_on"];
const RESOURCE_KEYS: &[&str] = &["type", "depends_on", "primary", "deposed", "provider"];
const INSTANCE_KEYS: &[&str] = &["id", "attributes", "meta", "tainted"];
const OUTPUT_KEYS: &[&str] = &["sensitive", "type", "value"];

fn read(source: &str) -> Result<Document> {
    let mut cursor = Cursor::new(source);
    let mut document = Document::default();
    cursor.object(|cursor, key, _| {
        cursor.skip_whitespace();
        match canonical(&key, TOP_KEYS) {
            Some("terraform_version") => {
                string_into(cursor, &mut document.terraform_version, "terraform_version")
            }
            Some("lineage") => string_into(cursor, &mut document.lineage, "lineage"),
            Some("serial") => {
                document.serial_at = cursor.position();
                if !cursor.null() {
                    document.serial = integer(cursor, "serial")?;
                }
                Ok(())
            }
            Some("modules") => {
                document.modules.clear();
                elements_of(
                    cursor,
                    "modules",
                    "a module in `modules` is null",
                    |cursor, at| {
                        let mut module = Module {
                            at,
                            ..Module::default()
                        };
                        read_module(cursor, &mut module)?;
                        document.modules.push(module);
                        Ok(())
                    },
                )
            }
            // `version` was read before the upgrade was chosen; `remote` and `backend` only say
            // where the state was kept, which the upgrade drops.
            _ => cursor.skip_value().map(|_| ()).map_err(StateError::from),
        }
    })?;
    cursor.finish()?;
    Ok(document)
}

fn read_module(cursor: &mut Cursor<'_>, module: &mut Module) -> Result<()> {
    object(cursor, "a module", |cursor, key| {
        match canonical(key, MODULE_KEYS) {
            Some("path") => {
                module.at = cursor.position();
                module.path = strings(cursor, "path")?;
            }
            Some("outputs") => map_into(cursor, "outputs", |cursor, name, at| {
                if cursor.null() {
                    return Err(StateError::at(at, format!("output {name:?} is null")));
                }
                // Go decodes each map entry into a new value: a repeated key replaces, never merges.
                let mut output = OutputV3 {
                    sensitive: false,
                    value: Value::Null,
                };
                object(cursor, "an output", |cursor, key| {
                    match canonical(key, OUTPUT_KEYS) {
                        Some("sensitive") => bool_into(cursor, &mut output.sensitive, "sensitive")?,
                        Some("type") => string_into(cursor, &mut String::new(), "type")?,
                        Some("value") => output.value = go::read_value(cursor)?,
                        _ => skip(cursor)?,
                    }
                    Ok(())
                })?;
                module.outputs.insert(name.to_owned(), output);
                Ok(())
            })?,
            Some("resources") => map_into(cursor, "resources", |cursor, name, at| {
                if cursor.null() {
                    return Err(StateError::at(at, format!("resource {name:?} is null")));
                }
                let mut resource = ResourceV3::default();
                read_resource(cursor, &mut resource)?;
                module.resources.insert(name.to_owned(), (at, resource));
                Ok(())
            })?,
            Some("depends_on") => {
                strings(cursor, "depends_on")?;
            }
            _ => skip(cursor)?,
        }
        Ok(())
    })
}

fn read_resource(cursor: &mut Cursor<'_>, resource: &mut ResourceV3) -> Result<()> {
    object(cursor, "a resource", |cursor, key| {
        match canonical(key, RESOURCE_KEYS) {
            Some("type") => string_into(cursor, &mut String::new(), "type")?,
            Some("depends_on") => {
                strings(cursor, "depends_on")?;
            }
            Some("primary") => {
                if cursor.null() {
                    resource.primary = None;
                } else {
                    read_instance(
                        cursor,
                        resource.primary.get_or_insert_with(Default::default),
                    )?;
                }
            }
            Some("deposed") => {
                resource.deposed.clear();
                elements_of(
                    cursor,
                    "deposed",
                    "a deposed object is null",
                    |cursor, _| {
                        let mut instance = InstanceV3::default();
                        read_instance(cursor, &mut instance)?;
                        resource.deposed.push(instance);
                        Ok(())
                    },
                )?;
            }
            Some("provider") => {
                resource.provider_at = cursor.position();
                string_into(cursor, &mut resource.provider, "provider")?;
            }
            _ => skip(cursor)?,
        }
        Ok(())
    })
}

fn read_instance(cursor: &mut Cursor<'_>, instance: &mut InstanceV3) -> Result<()> {
    object(cursor, "an instance object", |cursor, key| {
        match canonical(key, INSTANCE_KEYS) {
            Some("id") => string_into(cursor, &mut instance.id, "id")?,
            Some("tainted") => bool_into(cursor, &mut instance.tainted, "tainted")?,
            Some("attributes") => {
                optional_map_into(cursor, "attributes", &mut instance.attributes, |cursor| {
                    // Go leaves a map's string element empty for `null`.
                    if cursor.null() {
                        Ok(String::new())
                    } else {
                        string(cursor, "an attribute value")
                    }
                })?;
            }
            Some("meta") => optional_map_into(cursor, "meta", &mut instance.meta, go::read_value)?,
            _ => skip(cursor)?,
        }
        Ok(())
    })
}

fn skip(cursor: &mut Cursor<'_>) -> Result<()> {
    cursor.skip_value()?;
    Ok(())
}

/// An object whose members `member` reads (it gets the decoded key).
fn object(
    cursor: &mut Cursor<'_>,
    what: &str,
    mut member: impl FnMut(&mut Cursor<'_>, &str) -> Result<()>,
) -> Result<()> {
    members(cursor, what, |cursor, key, _| member(cursor, key))
}

/// A map field (`null` empties it, as Go sets the map to nil); `entry` reads each value, given the
/// key and the key's offset.
fn map_into(
    cursor: &mut Cursor<'_>,
    field: &str,
    entry: impl FnMut(&mut Cursor<'_>, &str, usize) -> Result<()>,
) -> Result<()> {
    if cursor.null() {
        return Ok(());
    }
    members(cursor, &format!("`{field}`"), entry)
}

/// `field`'s map into `map`, each member's value read by `value`: `null` leaves no map (Go's nil
/// map), and a repeated `field` adds to the map already read.
fn optional_map_into<T>(
    cursor: &mut Cursor<'_>,
    field: &str,
    map: &mut Option<BTreeMap<String, T>>,
    mut value: impl FnMut(&mut Cursor<'_>) -> Result<T>,
) -> Result<()> {
    if cursor.null() {
        *map = None;
        return Ok(());
    }
    let map = map.get_or_insert_with(BTreeMap::new);
    map_into(cursor, field, |cursor, name, _| {
        map.insert(name.to_owned(), value(cursor)?);
        Ok(())
    })
}

/// An object (`what` names it in the error when it is something else) whose members `member`
/// reads, given the decoded key and the key's offset.
fn members(
    cursor: &mut Cursor<'_>,
    what: &str,
    mut member: impl FnMut(&mut Cursor<'_>, &str, usize) -> Result<()>,
) -> Result<()> {
    if cursor.peek() != Some(b'{') {
        return Err(StateError::at(
            cursor.position(),
            format!("{what} must be a JSON object"),
        ));
    }
    cursor.object(|cursor, key, key_span| {
        cursor.skip_whitespace();
        member(cursor, &key, key_span.start)
    })?;
    Ok(())
}

fn array_of(
    cursor: &mut Cursor<'_>,
    field: &str,
    mut element: impl FnMut(&mut Cursor<'_>) -> Result<()>,
) -> Result<()> {
    if cursor.null() {
        return Ok(());
    }
    if cursor.peek() != Some(b'[') {
        return Err(StateError::at(
            cursor.position(),
            format!("`{field}` must be an array"),
        ));
    }
    cursor.array(|cursor| {
        cursor.skip_whitespace();
        element(cursor)
    })?;
    Ok(())
}

/// `field`'s array of objects: each element read by `element` with its position, a null one
/// refused with `null` as the message.
fn elements_of(
    cursor: &mut Cursor<'_>,
    field: &str,
    null: &str,
    mut element: impl FnMut(&mut Cursor<'_>, usize) -> Result<()>,
) -> Result<()> {
    array_of(cursor, field, |cursor| {
        let at = cursor.position();
        if cursor.null() {
            return Err(StateError::at(at, null));
        }
        element(cursor, at)
    })
}

fn string(cursor: &mut Cursor<'_>, what: &str) -> Result<String> {
    cursor.skip_whitespace();
    if cursor.peek() != Some(b'"') {
        return Err(StateError::at(
            cursor.position(),
            format!("{what} must be a string"),
        ));
    }
    Ok(cursor.string()?.0.into_owned())
}

/// A string field; `null` leaves it as it was.
fn string_into(cursor: &mut Cursor<'_>, target: &mut String, field: &str) -> Result<()> {
    if !cursor.null() {
        *target = string(cursor, &format!("`{field}`"))?;
    }
    Ok(())
}

fn bool_into(cursor: &mut Cursor<'_>, target: &mut bool, field: &str) -> Result<()> {
    cursor.skip_whitespace();
    let at = cursor.position();
    if cursor.null() {
        return Ok(());
    }
    match cursor.peek() {
        Some(b't' | b'f') => {
            *target = {
                let span = cursor.skip_value()?;
                cursor.text(span)?
            } == "true";
            Ok(())
        }
        _ => Err(StateError::at(
            at,
            format!("`{field}` must be true or false"),
        )),
    }
}

/// An array of strings (`null` elements read as empty, as Go reads them).
fn strings(cursor: &mut Cursor<'_>, field: &str) -> Result<Vec<String>> {
    let mut items = Vec::new();
    array_of(cursor, field, |cursor| {
        let text = if cursor.null() {
            String::new()
        } else {
            string(cursor, &format!("each element of `{field}`"))?
        };
        items.push(text);
        Ok(())
    })?;
    Ok(items)
}

/// An integer as Go reads it into an `int64`: no fraction, no exponent, in range.
fn integer(cursor: &mut Cursor<'_>, field: &str) -> Result<i64> {
    let at = cursor.position();
    if !matches!(cursor.peek(), Some(b'-' | b'0'..=b'9')) {
        return Err(StateError::at(at, format!("`{field}` must be an integer")));
    }
    let span = cursor.number()?;
    let text = cursor.text(span)?;
    text.parse().map_err(|_| {
        StateError::at(
            at,
            format!("`{field}` must be a whole number that fits 64 bits, found {text}"),
        )
    })
}

// ---------------------------------------------------------------------------------------------
// The upgrade, and the version-4 document in Terraform 1.15.5's writer's form.

/// One version-4 resource being built, keyed by module, mode, type and name: the order Terraform's
/// writer sorts resources in.
type ResourceKey = (String, &'static str, String, String);

struct ResourceOut {
    provider: String,
    instances: Vec<InstanceOut>,
}

struct InstanceOut {
    index: Option<i64>,
    deposed: Option<String>,
    tainted: bool,
    schema_version: u64,
    attributes: Option<BTreeMap<String, String>>,
    private: Option<String>,
}

/// One format-4 resource: its address parts, provider and instances.
fn resource_json(
    ((module, mode, type_name, name), mut resource): (ResourceKey, ResourceOut),
) -> Out {
    // Instances in Terraform's order: no key first, then by key, then current before deposed.
    resource.instances.sort_by(|a, b| {
        a.index
            .cmp(&b.index)
            .then_with(|| a.deposed.cmp(&b.deposed))
    });
    let mut members = Vec::with_capacity(6);
    if !module.is_empty() {
        members.push(("module".to_owned(), Out::String(module)));
    }
    members.extend([
        ("mode".to_owned(), Out::String(mode.to_owned())),
        ("type".to_owned(), Out::String(type_name)),
        ("name".to_owned(), Out::String(name)),
        ("provider".to_owned(), Out::String(resource.provider)),
        (
            "instances".to_owned(),
            Out::Array(resource.instances.into_iter().map(instance_json).collect()),
        ),
    ]);
    Out::Object(members)
}

fn convert(document: &Document) -> Result<Out> {
    if document.serial < 0 {
        return Err(StateError::at(
            document.serial_at,
            format!(
                "`serial` is {}, but a serial is never negative",
                document.serial
            ),
        ));
    }
    let mut resources: BTreeMap<ResourceKey, ResourceOut> = BTreeMap::new();
    let mut outputs: BTreeMap<String, Out> = BTreeMap::new();
    for module in &document.modules {
        let names = module_names(module)?;
        let prefix = names.iter().fold(String::new(), |mut prefix, name| {
            prefix.push_str("module.");
            prefix.push_str(name);
            prefix.push('.');
            prefix
        });
        for (key, (at, resource)) in &module.resources {
            let legacy = LegacyKey::parse(key).map_err(|problem| {
                StateError::at(
                    *at,
                    format!("invalid resource key {key:?} in a format-3 state: {problem}"),
                )
            })?;
            let address = legacy.address(&prefix);
            let slot = (
                prefix.strip_suffix('.').unwrap_or_default().to_owned(),
                legacy.mode,
                legacy.type_name.to_owned(),
                legacy.name.to_owned(),
            );
            let out = match resources.entry(slot) {
                std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::btree_map::Entry::Vacant(entry) => {
                    // Terraform takes the provider of the first instance it meets for the resource.
                    let provider = provider_address(&resource.provider, &names, legacy.type_name)
                        .map_err(|problem| {
                        StateError::at(
                            resource.provider_at,
                            format!(
                                "invalid provider {:?} for {address}: {problem}",
                                resource.provider
                            ),
                        )
                    })?;
                    entry.insert(ResourceOut {
                        provider,
                        instances: Vec::new(),
                    })
                }
            };
            let objects = resource.primary.iter().map(|object| (object, None)).chain(
                resource
                    .deposed
                    .iter()
                    .enumerate()
                    .map(|(index, object)| (object, Some(format!("{:08x}", index + 1)))),
            );
            for (object, deposed) in objects {
                let instance = instance(object, legacy.index, deposed)
                    .map_err(|problem| StateError::at(*at, format!("{address}: {problem}")))?;
                out.instances.push(instance);
            }
        }
        if names.is_empty() {
            for (name, output) in &module.outputs {
                outputs.insert(name.clone(), output_json(output));
            }
        }
    }
    let resources = resources.into_iter().map(resource_json).collect();
    let terraform_version = if document.terraform_version.is_empty() {
        // Terraform requires a version since format 4 and stubs one "definitely older".
        "0.0.0".to_owned()
    } else {
        document.terraform_version.clone()
    };
    Ok(Out::Object(vec![
        ("version".to_owned(), Out::Number("4".to_owned())),
        (
            "terraform_version".to_owned(),
            Out::String(terraform_version),
        ),
        (
            "serial".to_owned(),
            Out::Number(document.serial.to_string()),
        ),
        ("lineage".to_owned(), Out::String(document.lineage.clone())),
        (
            "outputs".to_owned(),
            Out::Object(outputs.into_iter().collect()),
        ),
        ("resources".to_owned(), Out::Array(resources)),
        ("check_results".to_owned(), Out::Null),
    ]))
}

/// The module names of a module path `["root", "a", "b"]`, checked as Terraform checks them.
fn module_names(module: &Module) -> Result<Vec<String>> {
    let shown = format!("{:?}", module.path);
    match module.path.split_first() {
        Some((root, names)) if root == "root" => {
            if let Some(bad) = names.iter().find(|name| !is_identifier(name)) {
                return Err(StateError::at(
                    module.at,
                    format!("invalid module path {shown}: {bad:?} is not a valid identifier"),
                )
                .with_hint(
                    "rename the module with Terraform 0.11 (`terraform state mv`) before upgrading",
                ));
            }
            Ok(names.to_vec())
        }
        _ => Err(StateError::at(
            module.at,
            format!("invalid module path {shown}: a module path starts with \"root\""),
        )),
    }
}

/// A legacy resource key: `TYPE.NAME[.INDEX]` or `data.TYPE.NAME[.INDEX]`.
#[derive(Debug, PartialEq, Eq)]
struct LegacyKey<'k> {
    mode: &'static str,
    type_name: &'k str,
    name: &'k str,
    index: Option<i64>,
}

/// Why a format-3 resource key, provider or instance cannot be upgraded: the end of a sentence
/// that names it.
#[derive(Debug, thiserror::Error)]
enum UpgradeError {
    #[error("it must be TYPE.NAME, TYPE.NAME.INDEX or data.TYPE.NAME[.INDEX]")]
    KeyShape,
    #[error("the index {0:?} is not an integer")]
    KeyIndex(String),
    #[error(
        "an alias holding `${{...}}` was never valid (Terraform 0.11 did not check it); rename the provider alias in Terraform 0.11 and apply before upgrading"
    )]
    InterpolatedAlias,
    #[error("it is not a provider address")]
    NotProviderAddress,
    #[error("a provider address cannot hold module indexes")]
    ModuleIndex,
    #[error("`module.` must be followed by a module name")]
    NoModuleName,
    #[error("extra steps after the provider alias")]
    AfterAlias,
    #[error("`provider.` must be followed by a provider type and an optional alias")]
    NoProviderType,
    #[error("a provider address begins with `provider.`")]
    NotProvider,
    #[error("a provider type is followed by a dot and an alias")]
    AliasIndex,
    #[error("`meta.schema_version` {0} is out of range")]
    SchemaVersionRange(f64),
}

impl<'k> LegacyKey<'k> {
    fn parse(key: &'k str) -> std::result::Result<LegacyKey<'k>, UpgradeError> {
        let mut parts: Vec<&str> = key.split('.').collect();
        if !(2..=4).contains(&parts.len()) {
            return Err(UpgradeError::KeyShape);
        }
        let mut mode = "managed";
        if parts.len() > 2 && parts[0] == "data" {
            mode = "data";
            parts.remove(0);
        }
        if parts.len() > 3 {
            return Err(UpgradeError::KeyShape);
        }
        let index = match parts.get(2) {
            None => None,
            Some(text) => Some(
                go::parse_int(text).ok_or_else(|| UpgradeError::KeyIndex((*text).to_owned()))?,
            ),
        };
        Ok(LegacyKey {
            mode,
            type_name: parts[0],
            name: parts[1],
            index,
        })
    }

    /// The instance's address, for messages.
    fn address(&self, prefix: &str) -> String {
        let data = if self.mode == "data" { "data." } else { "" };
        let index = self
            .index
            .map(|index| format!("[{index}]"))
            .unwrap_or_default();
        format!("{prefix}{data}{}.{}{index}", self.type_name, self.name)
    }
}

/// One step of an HCL traversal, as far as provider addresses need it.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Name(String),
    Index,
}

/// Reads `text` as an absolute HCL traversal (`a.b["k"][0].c`), whitespace allowed between tokens.
fn traversal(text: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = text.trim_start();
    let name = |rest: &mut &str| {
        let length = identifier_length(rest);
        (length > 0).then(|| {
            let name = rest[..length].to_owned();
            *rest = rest[length..].trim_start();
            name
        })
    };
    steps.push(Step::Name(name(&mut rest)?));
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            rest = after.trim_start();
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                // The legacy `.0` index form.
                rest = rest[digits..].trim_start();
                steps.push(Step::Index);
            } else {
                steps.push(Step::Name(name(&mut rest)?));
            }
        } else if let Some(after) = rest.strip_prefix('[') {
            rest = skip_key(after.trim_start())?.trim_start();
            rest = rest.strip_prefix(']')?.trim_start();
            steps.push(Step::Index);
        } else {
            return None;
        }
    }
    Some(steps)
}

/// Skips a number or a quoted string inside `[...]`.
fn skip_key(text: &str) -> Option<&str> {
    if let Some(quoted) = text.strip_prefix('"') {
        return after_quoted(quoted);
    }
    let length = text
        .bytes()
        .take_while(|byte| byte.is_ascii_digit() || matches!(byte, b'.' | b'-'))
        .count();
    (length > 0).then(|| &text[length..])
}

/// The version-4 provider address of a format-3 resource, in Terraform 1.x's form
/// (`module.a.provider["registry.terraform.io/-/aws"].west`).
fn provider_address(
    text: &str,
    resource_module: &[String],
    type_name: &str,
) -> std::result::Result<String, UpgradeError> {
    let interpolated = || {
        if text.contains("${") {
            UpgradeError::InterpolatedAlias
        } else {
            UpgradeError::NotProviderAddress
        }
    };
    let (modules, provider, alias): (Vec<String>, String, Option<String>) = if text
        .contains("provider.")
    {
        let steps = traversal(text).ok_or_else(interpolated)?;
        let mut rest = &steps[..];
        let mut modules = Vec::new();
        while let Some(Step::Name(first)) = rest.first()
            && first == "module"
        {
            match &rest[1..] {
                [Step::Name(_), Step::Index, ..] => {
                    return Err(UpgradeError::ModuleIndex);
                }
                [Step::Name(name), ..] => modules.push(name.clone()),
                _ => return Err(UpgradeError::NoModuleName),
            }
            rest = &rest[2..];
        }
        match rest {
            [Step::Name(word), Step::Name(provider)] if word == "provider" => {
                (modules, provider.clone(), None)
            }
            [Step::Name(word), Step::Name(provider), Step::Name(alias)] if word == "provider" => {
                (modules, provider.clone(), Some(alias.clone()))
            }
            [Step::Name(word), _, _, _, ..] if word == "provider" => {
                return Err(UpgradeError::AfterAlias);
            }
            [Step::Name(word), _, ..] if word == "provider" => {
                return Err(UpgradeError::NoProviderType);
            }
            _ => return Err(UpgradeError::NotProvider),
        }
    } else if text.is_empty() {
        let implied = type_name.split('_').next().unwrap_or_default();
        (resource_module.to_vec(), implied.to_owned(), None)
    } else {
        // The module-local form `aws` or `aws.west`, taken in the resource's own module.
        let steps = traversal(text).ok_or_else(interpolated)?;
        let alias = match steps.get(1) {
            None => None,
            Some(Step::Name(alias)) => Some(alias.clone()),
            Some(Step::Index) => {
                return Err(UpgradeError::AliasIndex);
            }
        };
        let Some(Step::Name(local)) = steps.into_iter().next() else {
            return Err(interpolated());
        };
        (resource_module.to_vec(), local, alias)
    };
    // Only the full `provider.terraform` form names the built-in provider; the others are legacy.
    let source = if text.contains("provider.") && provider == "terraform" {
        "terraform.io/builtin/terraform".to_owned()
    } else {
        format!("registry.terraform.io/-/{provider}")
    };
    let mut parts: Vec<String> = modules
        .iter()
        .map(|name| format!("module.{name}"))
        .collect();
    parts.push(format!("provider[{}]", go::quote(&source)));
    parts.extend(alias);
    Ok(parts.join("."))
}

/// One instance object upgraded.
fn instance(
    old: &InstanceV3,
    index: Option<i64>,
    deposed: Option<String>,
) -> std::result::Result<InstanceOut, UpgradeError> {
    // The pre-0.12 SDK kept the schema version in `meta`, as a string; anything else unreadable
    // stays in `private` with the rest of `meta`.
    let mut schema_version = None;
    if let Some(raw) = old
        .meta
        .as_ref()
        .and_then(|meta| meta.get("schema_version"))
    {
        schema_version = match raw {
            Value::String(text)
                if !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()) =>
            {
                text.parse::<u64>().ok()
            }
            Value::Number(number) if *number >= 0.0 && *number < 18_446_744_073_709_551_616.0 =>
            {
                #[expect(
                    clippy::cast_sign_loss,
                    clippy::cast_possible_truncation,
                    reason = "the guard above keeps the number in u64's range and non-negative"
                )]
                Some(number.trunc() as u64)
            }
            Value::Number(number) => {
                return Err(UpgradeError::SchemaVersionRange(*number));
            }
            _ => None,
        };
    }
    let private: BTreeMap<String, Value> = old
        .meta
        .iter()
        .flatten()
        .filter(|(key, _)| !(key.as_str() == "schema_version" && schema_version.is_some()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let private = (!private.is_empty()).then(|| {
        let mut json = String::new();
        go::marshal(&Value::Object(private), &mut json);
        STANDARD.encode(json)
    });
    let mut attributes = old.attributes.clone();
    if !old.id.is_empty() {
        // A first-class id with no `id` attribute (hand-written states) is kept as the attribute.
        let attributes = attributes.get_or_insert_with(BTreeMap::new);
        if attributes.get("id").is_none_or(String::is_empty) {
            attributes.insert("id".to_owned(), old.id.clone());
        }
    }
    Ok(InstanceOut {
        index,
        deposed,
        tainted: old.tainted,
        schema_version: schema_version.unwrap_or(0),
        attributes,
        private,
    })
}

/// An instance object as Terraform 1.15.5 writes it.
fn instance_json(instance: InstanceOut) -> Out {
    let mut members = Vec::with_capacity(8);
    if let Some(index) = instance.index {
        members.push(("index_key".to_owned(), Out::Number(index.to_string())));
    }
    if instance.tainted {
        members.push(("status".to_owned(), Out::String("tainted".to_owned())));
    }
    if let Some(deposed) = instance.deposed {
        members.push(("deposed".to_owned(), Out::String(deposed)));
    }
    members.push((
        "schema_version".to_owned(),
        Out::Number(instance.schema_version.to_string()),
    ));
    match instance.attributes {
        // No attributes at all reads as an empty object, which Terraform then writes as such.
        None => members.push(("attributes".to_owned(), Out::Object(Vec::new()))),
        // Empty flat attributes are kept as such, and Go's `omitempty` leaves them out.
        Some(flat) if flat.is_empty() => {}
        Some(flat) => members.push((
            "attributes_flat".to_owned(),
            Out::Object(
                flat.into_iter()
                    .map(|(key, value)| (key, Out::String(value)))
                    .collect(),
            ),
        )),
    }
    members.push(("sensitive_attributes".to_owned(), Out::Array(Vec::new())));
    members.push((
        "identity_schema_version".to_owned(),
        Out::Number("0".to_owned()),
    ));
    if let Some(private) = instance.private {
        members.push(("private".to_owned(), Out::String(private)));
    }
    Out::Object(members)
}

/// A root output: its value re-read with the type cty infers for it (string, list or map of...).
fn output_json(output: &OutputV3) -> Out {
    let mut members = vec![
        ("value".to_owned(), go::cty_value(&output.value)),
        (
            "type".to_owned(),
            go::type_json(&go::simplify(go::implied_type(&output.value))),
        ),
    ];
    if output.sensitive {
        members.push(("sensitive".to_owned(), Out::Bool(true)));
    }
    Out::Object(members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::error::Location;
    use crate::state::parse::parse;

    /// A format-3 document with one module holding `resources` (a JSON object's members).
    fn with_resources(path: &str, resources: &str) -> String {
        format!(
            r#"{{"version": 3, "terraform_version": "0.11.14", "serial": 7, "lineage": "l-1",
  "modules": [{{"path": {path}, "outputs": {{}}, "resources": {{{resources}}}, "depends_on": []}}]}}"#
        )
    }

    fn object(id: &str) -> String {
        format!(
            r#"{{"id": "{id}", "attributes": {{"id": "{id}"}}, "meta": {{}}, "tainted": false}}"#
        )
    }

    fn resource(provider: &str) -> String {
        format!(
            r#"{{"type": "x", "depends_on": ["a.b"], "primary": {}, "deposed": [], "provider": "{provider}"}}"#,
            object("i-1")
        )
    }

    /// Upgrades and reads back with the version-4 parser: what every command sees.
    fn addresses(text: &str) -> Vec<String> {
        let upgraded = upgrade(text).unwrap();
        let state = parse(upgraded.as_bytes()).unwrap();
        state
            .order
            .iter()
            .map(|object| {
                let resource = &state.resources[object.resource as usize];
                let instance = &resource.instances[object.instance as usize];
                let mut address = instance.address(resource).to_string();
                if let Some(key) = &instance.deposed {
                    address.push_str(" deposed ");
                    address.push_str(key);
                }
                if instance.tainted {
                    address.push_str(" tainted");
                }
                address
            })
            .collect()
    }

    fn upgrade_error(text: &str) -> StateError {
        upgrade(text).unwrap_err().located_in(text.as_bytes())
    }

    #[test]
    fn module_paths_become_module_addresses() {
        let text = with_resources(
            r#"["root", "network", "dns-zone"]"#,
            &format!(r#""aws_route53_zone.this": {}"#, resource("")),
        );
        assert_eq!(
            addresses(&text),
            ["module.network.module.dns-zone.aws_route53_zone.this"]
        );
        let upgraded = upgrade(&text).unwrap();
        assert!(upgraded.contains(r#""module": "module.network.module.dns-zone","#));
    }

    #[test]
    fn legacy_keys_become_resources_and_index_keys() {
        let text = with_resources(
            r#"["root"]"#,
            &[
                format!(r#""aws_instance.web.10": {}"#, resource("")),
                format!(r#""aws_instance.web.2": {}"#, resource("")),
                format!(r#""aws_instance.web": {}"#, resource("")),
                format!(r#""data.aws_ami.ubuntu": {}"#, resource("")),
                format!(r#""data.aws_ami.counted.0": {}"#, resource("")),
                // Go's ParseInt with base 0: a leading 0 is octal, 0x is hexadecimal.
                format!(r#""null_resource.odd.010": {}"#, resource("")),
                format!(r#""null_resource.odd.0x1f": {}"#, resource("")),
            ]
            .join(","),
        );
        assert_eq!(
            addresses(&text),
            [
                "data.aws_ami.counted[0]",
                "data.aws_ami.ubuntu",
                "aws_instance.web",
                "aws_instance.web[2]",
                "aws_instance.web[10]",
                "null_resource.odd[8]",
                "null_resource.odd[31]",
            ]
        );
    }

    #[test]
    fn primary_and_deposed_become_objects_with_sequential_deposed_keys() {
        let tainted = object("i-3").replace(r#""tainted": false"#, r#""tainted": true"#);
        let text = with_resources(
            r#"["root"]"#,
            &format!(
                r#""aws_instance.web.0": {{"type": "aws_instance", "primary": {}, "deposed": [{}, {tainted}], "provider": "provider.aws"}},
                   "aws_instance.web.1": {{"type": "aws_instance", "primary": {tainted}, "deposed": null}}"#,
                object("i-1"),
                object("i-2"),
            ),
        );
        assert_eq!(
            addresses(&text),
            [
                "aws_instance.web[0]",
                "aws_instance.web[0] deposed 00000001",
                "aws_instance.web[0] deposed 00000002 tainted",
                "aws_instance.web[1] tainted",
            ]
        );
    }

    #[test]
    fn provider_strings_become_legacy_provider_addresses() {
        let cases = [
            ("", r#"provider["registry.terraform.io/-/aws"]"#),
            ("provider.aws", r#"provider["registry.terraform.io/-/aws"]"#),
            (
                "provider.aws.west",
                r#"provider["registry.terraform.io/-/aws"].west"#,
            ),
            (
                "provider. aws . west",
                r#"provider["registry.terraform.io/-/aws"].west"#,
            ),
            (
                "module.a.provider.aws",
                r#"module.a.provider["registry.terraform.io/-/aws"]"#,
            ),
            (
                "provider.terraform",
                r#"provider["terraform.io/builtin/terraform"]"#,
            ),
            // The module-local form is taken in the resource's module (here, the root).
            (
                "aws.east",
                r#"provider["registry.terraform.io/-/aws"].east"#,
            ),
            (
                "terraform",
                r#"provider["registry.terraform.io/-/terraform"]"#,
            ),
        ];
        for (old, new) in cases {
            let text = with_resources(
                r#"["root"]"#,
                &format!(r#""aws_instance.web": {}"#, resource(old)),
            );
            let upgraded = upgrade(&text).unwrap();
            let mut expected = String::new();
            crate::json::write_go_string(new, &mut expected);
            assert!(
                upgraded.contains(&format!(r#""provider": {expected},"#)),
                "{old:?} -> {new}: {upgraded}"
            );
        }
        let in_module = with_resources(
            r#"["root", "net"]"#,
            &format!(r#""aws_vpc.main": {}"#, resource("aws.east")),
        );
        assert!(upgrade(&in_module).unwrap().contains(
            r#""provider": "module.net.provider[\"registry.terraform.io/-/aws\"].east","#
        ));
    }

    #[test]
    fn flat_attributes_meta_and_outputs_are_kept_as_terraform_keeps_them() {
        let text = r#"{"version": 3, "serial": 1, "lineage": "l",
  "modules": [{"path": ["root"],
    "outputs": {"ids": {"sensitive": true, "type": "list", "value": ["a", "b"]}},
    "resources": {"aws_instance.web": {"primary": {"id": "i-1",
      "attributes": {"ami": "ami-1"},
      "meta": {"schema_version": "2", "e2bfb730": {"create": 600000000000}}}}}},
    {"path": ["root", "child"], "outputs": {"dropped": {"value": "x"}}, "resources": {}}]}"#;
        let upgraded = upgrade(text).unwrap();
        // No `terraform_version` was written: Terraform stubs one older than any.
        assert!(upgraded.contains(r#""terraform_version": "0.0.0","#));
        // The first-class id becomes the `id` attribute the flat attributes lacked.
        assert!(upgraded.contains(
            "\"attributes_flat\": {\n            \"ami\": \"ami-1\",\n            \"id\": \"i-1\"\n          },"
        ));
        assert!(upgraded.contains(r#""schema_version": 2,"#));
        // The rest of `meta` is `private`: its JSON, base64 ({"e2bfb730":{"create":600000000000}}).
        assert!(
            upgraded.contains(r#""private": "eyJlMmJmYjczMCI6eyJjcmVhdGUiOjYwMDAwMDAwMDAwMH19""#)
        );
        assert!(upgraded.contains(
            "\"ids\": {\n      \"value\": [\n        \"a\",\n        \"b\"\n      ],\n      \"type\": [\n        \"list\",\n        \"string\"\n      ],\n      \"sensitive\": true\n    }"
        ));
        assert!(!upgraded.contains("dropped"), "only root outputs are kept");
        assert!(!upgraded.contains("depends_on"));
        assert!(upgraded.ends_with("\"check_results\": null\n}\n"));
    }

    #[test]
    fn an_object_without_attributes_reads_as_an_empty_object() {
        let text = with_resources(
            r#"["root"]"#,
            r#""null_resource.none": {"primary": {"id": ""}},
               "null_resource.empty": {"primary": {"id": "", "attributes": {}}}"#,
        );
        let upgraded = upgrade(&text).unwrap();
        // Missing attributes become `{}`; empty flat attributes are left out by `omitempty`.
        assert_eq!(upgraded.matches(r#""attributes": {}"#).count(), 1);
        assert!(!upgraded.contains("attributes_flat"));
    }

    #[test]
    fn bad_shapes_give_one_error_with_its_position() {
        let cases: Vec<(String, &str, &str)> = vec![
            (
                with_resources(r#"["main"]"#, ""),
                "invalid module path [\"main\"]: a module path starts with \"root\"",
                r#"["main"]"#,
            ),
            (
                with_resources(r#"["root", "bad name"]"#, ""),
                "\"bad name\" is not a valid identifier",
                r#"["root", "bad name"]"#,
            ),
            (
                with_resources(
                    r#"["root"]"#,
                    &format!(r#""aws_instance": {}"#, resource("")),
                ),
                "invalid resource key \"aws_instance\" in a format-3 state",
                r#""aws_instance":"#,
            ),
            (
                with_resources(
                    r#"["root"]"#,
                    &format!(r#""aws_instance.web.x": {}"#, resource("")),
                ),
                "the index \"x\" is not an integer",
                r#""aws_instance.web.x""#,
            ),
            (
                with_resources(
                    r#"["root"]"#,
                    &format!(
                        r#""aws_instance.web": {}"#,
                        resource("provider.aws.${var.x}")
                    ),
                ),
                "was never valid",
                r#""provider.aws.${var.x}""#,
            ),
            (
                with_resources(
                    r#"["root"]"#,
                    &format!(
                        r#""aws_instance.web": {}"#,
                        resource("module.m[0].provider.aws")
                    ),
                ),
                "cannot hold module indexes",
                r#""module.m[0].provider.aws""#,
            ),
            (
                with_resources(
                    r#"["root"]"#,
                    r#""aws_instance.web": {"primary": {"tainted": "yes"}}"#,
                ),
                "`tainted` must be true or false",
                r#""yes""#,
            ),
            (
                with_resources(r#"["root"]"#, r#""aws_instance.web": {"deposed": [null]}"#),
                "a deposed object is null",
                "null]",
            ),
            (
                r#"{"version": 3, "serial": -1, "modules": []}"#.to_owned(),
                "`serial` is -1, but a serial is never negative",
                "-1",
            ),
            (
                r#"{"version": 3, "serial": 1.5, "modules": []}"#.to_owned(),
                "`serial` must be a whole number that fits 64 bits, found 1.5",
                "1.5",
            ),
            (
                r#"{"version": 3, "modules": {}}"#.to_owned(),
                "`modules` must be an array",
                "{}",
            ),
        ];
        for (text, message, needle) in cases {
            let error = upgrade_error(&text);
            // The error points at the first occurrence of `needle`.
            let at = crate::json::LineColumn::of(text.as_bytes(), text.find(needle).unwrap())
                .to_string();
            assert!(
                error.message.contains(message),
                "{message:?} in {:?}",
                error.message
            );
            let position = match &error.location {
                Location::At(position) => position.to_string(),
                other => format!("{other:?}"),
            };
            assert_eq!(position, at, "{message}");
        }
    }

    #[test]
    fn duplicate_instances_are_refused_by_the_version_4_reader() {
        // `web.0` and `web.00` are both index 0, as Terraform reads them: two current objects.
        let text = with_resources(
            r#"["root"]"#,
            &format!(
                r#""aws_instance.web.0": {}, "aws_instance.web.00": {}"#,
                resource(""),
                resource("")
            ),
        );
        let upgraded = upgrade(&text).unwrap();
        let error = parse(upgraded.as_bytes()).unwrap_err();
        assert_eq!(
            error.location,
            Location::Address("aws_instance.web[0]".to_owned())
        );
    }
}
