//! Reading one `.tf.json` file in Terraform's JSON syntax.

use std::path::Path;

use serde_json::{Map, Value};
use statectl_state::state::address::Mode;

use super::arguments::{Lifecycle, managed_only, not_literal, string_bool};
use super::{Call, Declarations, Place, RemovedBlock};
use crate::ConfigError;

/// One `.tf.json` file in Terraform's JSON syntax, where every block level may be one object or an
/// array of them, and `"//"` properties are comments.
pub(super) fn read_json(
    file: &Path,
    root: &Value,
    module: &[String],
    found: &mut Declarations,
) -> Result<(), ConfigError> {
    let invalid = |message: &str| {
        ConfigError::new(format!(
            "{}: invalid configuration: {message}",
            file.display()
        ))
    };
    let Value::Object(root) = root else {
        return Err(invalid("the top level must be an object"));
    };
    let place = Place {
        file: file.to_owned(),
        line: 0,
        column: 0,
    };
    for (kind, value) in root.iter().filter(|(key, _)| *key != "//") {
        match kind.as_str() {
            "resource" | "data" => {
                let mode = if kind == "data" {
                    Mode::Data
                } else {
                    Mode::Managed
                };
                for (type_name, names) in json_labelled(value).ok_or_else(|| {
                    invalid(&format!("`{kind}` must be an object of resource types"))
                })? {
                    for (name, bodies) in json_labelled(names).ok_or_else(|| {
                        invalid(&format!("`{kind}.{type_name}` must be an object of names"))
                    })? {
                        let block = format!("{kind} \"{type_name}\" \"{name}\"");
                        for body in json_objects(bodies)
                            .ok_or_else(|| invalid(&format!("{block} must be an object")))?
                        {
                            let lifecycle = json_lifecycle(file, &block, body, mode == Mode::Data)?;
                            let resource =
                                lifecycle.resource(module, mode, type_name, name, &place);
                            found.resources.push((resource, place.clone()));
                        }
                    }
                }
            }
            "module" => {
                for (name, bodies) in json_labelled(value)
                    .ok_or_else(|| invalid("`module` must be an object of module calls"))?
                {
                    for body in json_objects(bodies)
                        .ok_or_else(|| invalid(&format!("module `{name}` must be an object")))?
                    {
                        let Some(Value::String(source)) = body.get("source") else {
                            return Err(invalid(&format!(
                                "module `{name}` needs a `source` string"
                            )));
                        };
                        found.calls.push(Call {
                            name: name.to_owned(),
                            source: source.clone(),
                            place: place.clone(),
                        });
                    }
                }
            }
            "removed" => {
                for body in json_objects(value)
                    .ok_or_else(|| invalid("`removed` must be an object or an array of objects"))?
                {
                    let Some(Value::String(from)) = body.get("from") else {
                        return Err(invalid(
                            "a `removed` block needs `from`, an address string such as \"aws_instance.a\"",
                        ));
                    };
                    let block = format!("removed block from `{from}`");
                    let lifecycle = json_lifecycle(file, &block, body, false)?;
                    found.removed.push(RemovedBlock {
                        module: module.to_vec(),
                        from: from.trim().to_owned(),
                        destroy: lifecycle.destroy,
                        file: file.to_owned(),
                        line: 0,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn json_objects(value: &Value) -> Option<Vec<&Map<String, Value>>> {
    match value {
        Value::Object(object) => Some(vec![object]),
        Value::Array(items) => items.iter().map(Value::as_object).collect(),
        _ => None,
    }
}

pub(super) fn json_labelled(value: &Value) -> Option<Vec<(&str, &Value)>> {
    Some(
        json_objects(value)?
            .into_iter()
            .flatten()
            .filter(|(key, _)| *key != "//")
            .map(|(key, value)| (key.as_str(), value))
            .collect(),
    )
}

pub(super) fn json_lifecycle(
    file: &Path,
    block: &str,
    body: &Map<String, Value>,
    data: bool,
) -> Result<Lifecycle, ConfigError> {
    let error =
        |message: String| ConfigError::new(format!("{}: {block}: {message}", file.display()));
    let mut lifecycle = Lifecycle::default();
    let Some(value) = body.get("lifecycle") else {
        return Ok(lifecycle);
    };
    let blocks =
        json_objects(value).ok_or_else(|| error("`lifecycle` must be an object".to_owned()))?;
    let block = match blocks.as_slice() {
        [] => return Ok(lifecycle),
        [block] => block,
        [..] => return Err(error("duplicate `lifecycle` block".to_owned())),
    };
    for (argument, value) in *block {
        let Some(setting) = lifecycle.setting(argument) else {
            continue;
        };
        if data {
            return Err(error(managed_only(argument)));
        }
        let literal = match value {
            Value::Bool(value) => Some(*value),
            Value::String(text) => string_bool(text),
            _ => None,
        };
        let Some(literal) = literal else {
            return Err(error(not_literal(argument)));
        };
        *setting = Some(literal);
    }
    Ok(lifecycle)
}
