//! Sensitive values: reading `sensitive_attributes` paths and masking what they point at, so no output
//! of statectl shows a secret unless the user asks with `--show-sensitive`.

use serde_json::Value;

use crate::json::{Cursor, JsonError};
use crate::state::mask_paths;

/// What a masked value prints as, the same words Terraform uses.
pub const MASK: &str = "(sensitive value)";

/// One step of a path into an attributes object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CtyStep {
    Attribute(String),
    Key(String),
    Index(u64),
}

/// What is wrong with an instance's `sensitive_attributes`; the caller names the instance.
#[derive(Debug, thiserror::Error)]
pub enum SensitivePathsError {
    #[error("malformed `sensitive_attributes`: it must be an array of paths")]
    NotPaths,
    #[error("malformed `sensitive_attributes`: each path must be an array of steps")]
    PathNotSteps,
    #[error("malformed `sensitive_attributes`: each step must be an object")]
    StepNotObject,
    #[error(
        "malformed `sensitive_attributes`: a step must be {{\"type\": \"get_attr\", \"value\": NAME}} or {{\"type\": \"index\", \"value\": KEY}}"
    )]
    StepShape,
    #[error("malformed `sensitive_attributes`: {0}")]
    Json(#[source] serde_json::Error),
    #[error("`sensitive_attributes` must be an array of paths")]
    NotAnArray,
    #[error("each `sensitive_attributes` path must be an array of steps")]
    PathNotAnArray,
    /// The index as written.
    #[error("malformed `sensitive_attributes` index {0}")]
    Index(String),
    /// The step as written.
    #[error("malformed `sensitive_attributes` step {0}")]
    Step(String),
}

/// Checks that raw (already valid) `sensitive_attributes` JSON is a list of paths, as Terraform's reader
/// requires: each path a list of steps, each step `get_attr` with a string or `index` with a typed
/// key. It runs for every instance of every state, so it walks the text instead of decoding it.
pub fn check_paths(raw: &str) -> Result<(), SensitivePathsError> {
    let mut cursor = Cursor::new(raw);
    if cursor.null() {
        return Ok(());
    }
    let mut problem: Option<SensitivePathsError> = None;
    let walked = cursor.array(|cursor| {
        if cursor.peek() != Some(b'[') {
            problem.get_or_insert(SensitivePathsError::PathNotSteps);
            return cursor.skip_value().map(|_| ());
        }
        cursor
            .array(|cursor| {
                if cursor.peek() != Some(b'{') {
                    problem.get_or_insert(SensitivePathsError::StepNotObject);
                    return cursor.skip_value().map(|_| ());
                }
                let (mut kind, mut value) = (None, None);
                cursor.object(|cursor, key, _| {
                    match key.as_ref() {
                        "type" if cursor.peek() == Some(b'"') => kind = Some(cursor.string()?.0),
                        "value" => {
                            value = cursor.peek();
                            cursor.skip_value()?;
                        }
                        _ => {
                            cursor.skip_value()?;
                        }
                    }
                    Ok::<_, JsonError>(())
                })?;
                let valid = matches!(
                    (kind.as_deref(), value),
                    (Some("get_attr"), Some(b'"')) | (Some("index"), Some(b'{'))
                );
                if !valid {
                    problem.get_or_insert(SensitivePathsError::StepShape);
                }
                Ok(())
            })
            .map(|_| ())
    });
    if walked.is_err() {
        return Err(SensitivePathsError::NotPaths);
    }
    problem.map_or(Ok(()), Err)
}

/// Parses raw `sensitive_attributes` JSON into paths, strictly: for masking, use [`paths_to_mask`],
/// which never fails open.
pub fn parse_paths(raw: &str) -> Result<Vec<Vec<CtyStep>>, SensitivePathsError> {
    let value: Value = serde_json::from_str(raw).map_err(SensitivePathsError::Json)?;
    let Value::Array(paths) = value else {
        return if value.is_null() {
            Ok(Vec::new())
        } else {
            Err(SensitivePathsError::NotAnArray)
        };
    };
    paths
        .iter()
        .map(|path| {
            let Value::Array(steps) = path else {
                return Err(SensitivePathsError::PathNotAnArray);
            };
            steps.iter().map(step).collect()
        })
        .collect()
}

/// The paths to mask for raw `sensitive_attributes`, for every output that masks: it never fails,
/// because failing open would show the secrets and failing the command would refuse a state Terraform
/// reads. A step statectl cannot follow (an index that is not a whole number, a key of another type,
/// both of which Terraform's reader accepts) ends its path there, so the value the path reached so
/// far is masked whole; text that is not a list of paths masks everything (one empty path). More is
/// masked, never less.
pub fn paths_to_mask(raw: &str) -> Vec<Vec<CtyStep>> {
    mask_paths::plain_paths(raw).unwrap_or_else(|_| paths_to_mask_decoded(raw))
}

/// [`paths_to_mask`] by decoding the whole text: for what is not in the plain shape.
pub(crate) fn paths_to_mask_decoded(raw: &str) -> Vec<Vec<CtyStep>> {
    let whole = || vec![Vec::new()];
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Null) => Vec::new(),
        Ok(Value::Array(paths)) => paths
            .iter()
            .map(|path| match path {
                Value::Array(steps) => steps.iter().map_while(|raw| step(raw).ok()).collect(),
                _ => Vec::new(),
            })
            .collect(),
        _ => whole(),
    }
}

fn step(raw: &Value) -> Result<CtyStep, SensitivePathsError> {
    let kind = raw.get("type").and_then(Value::as_str);
    let value = raw.get("value");
    match (kind, value) {
        (Some("get_attr"), Some(Value::String(name))) => Ok(CtyStep::Attribute(name.clone())),
        (Some("index"), Some(index)) => match (
            index.get("type").and_then(Value::as_str),
            index.get("value"),
        ) {
            (Some("string"), Some(Value::String(key))) => Ok(CtyStep::Key(key.clone())),
            (Some("number"), Some(number)) => number
                .as_u64()
                .or_else(|| number.as_str().and_then(|text| text.parse().ok()))
                .map(CtyStep::Index)
                .ok_or_else(|| SensitivePathsError::Index(number.to_string())),
            _ => Err(SensitivePathsError::Index(index.to_string())),
        },
        _ => Err(SensitivePathsError::Step(raw.to_string())),
    }
}

/// The paths to mask in an instance of a resource of type `type_name`: its own
/// `sensitive_attributes` paths and, for Terraform's built-in `terraform_data`, each path under
/// `input` again under `output`. The provider copies `input` to `output` and Terraform marks only
/// `input` (its `state show` prints `output` in clear); statectl masks the copy too.
pub fn with_copies(type_name: &str, mut paths: Vec<Vec<CtyStep>>) -> Vec<Vec<CtyStep>> {
    if type_name != "terraform_data" {
        return paths;
    }
    let input = CtyStep::Attribute("input".to_owned());
    let copies: Vec<Vec<CtyStep>> = paths
        .iter()
        .filter(|path| path.first() == Some(&input))
        .map(|path| {
            let mut copy = path.clone();
            copy[0] = CtyStep::Attribute("output".to_owned());
            copy
        })
        .collect();
    paths.extend(copies);
    paths
}

/// Replaces every value that `paths` point at with [`MASK`]. A path that does not resolve masks
/// nothing. Dynamic-typed attributes (`terraform_data`'s `input`, for one) are written as
/// `{"value": V, "type": T}` while their sensitive paths step straight into V, so a path is followed
/// through such a wrapper too; an object that only looks like one is masked both ways: more, never
/// less.
pub fn mask(attributes: &mut Value, paths: &[Vec<CtyStep>]) {
    for path in paths {
        mask_path(attributes, path);
    }
}

fn mask_path(value: &mut Value, path: &[CtyStep]) {
    let Some((first, rest)) = path.split_first() else {
        *value = Value::String(MASK.to_owned());
        return;
    };
    if let Value::Object(members) = value
        && members.len() == 2
        && members.contains_key("type")
        && let Some(inner) = members.get_mut("value")
    {
        mask_path(inner, path);
    }
    let next = match first {
        CtyStep::Attribute(name) | CtyStep::Key(name) => value.get_mut(name.as_str()),
        CtyStep::Index(index) => usize::try_from(*index)
            .ok()
            .and_then(|index| value.get_mut(index)),
    };
    if let Some(next) = next {
        mask_path(next, rest);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn masks_attribute_key_and_index_paths() {
        let mut attributes = serde_json::json!({"password": "p", "tags": {"secret": "s", "open": "o"}, "list": ["a", "b"]});
        let paths = parse_paths(
            r#"[[{"type":"get_attr","value":"password"}],
                [{"type":"get_attr","value":"tags"},{"type":"index","value":{"value":"secret","type":"string"}}],
                [{"type":"get_attr","value":"list"},{"type":"index","value":{"value":1,"type":"number"}}],
                [{"type":"get_attr","value":"missing"}]]"#,
        )
        .unwrap();
        mask(&mut attributes, &paths);
        assert_eq!(
            attributes,
            serde_json::json!({"password": MASK, "tags": {"secret": MASK, "open": "o"}, "list": ["a", MASK]})
        );
    }

    /// Regression: `terraform_data.input` holding a secret object printed in clear, because the
    /// state wraps dynamic values as `{"value", "type"}` and the sensitive path skips the wrapper.
    #[test]
    fn masks_through_dynamic_value_wrappers() {
        let mut attributes = serde_json::json!({"input": {"value": {"user": "admin", "password": "hunter2"}, "type": ["object", {"user": "string", "password": "string"}]}});
        let paths = parse_paths(
            r#"[[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"password"}]]"#,
        )
        .unwrap();
        mask(&mut attributes, &paths);
        assert_eq!(attributes["input"]["value"]["password"], MASK);
        assert_eq!(attributes["input"]["value"]["user"], "admin");
    }

    #[test]
    fn refuses_malformed_paths() {
        assert!(check_paths(r#"[{"type":"get_attr"}]"#).is_err());
        assert!(check_paths(r#"[[{"type":"teleport","value":"x"}]]"#).is_err());
        assert!(check_paths(r#"[[{"type":"get_attr","value":1}]]"#).is_err());
        assert!(check_paths(r#"[[{"type":"index","value":"k"}]]"#).is_err());
        assert!(check_paths(r#"{"type":"get_attr"}"#).is_err());
        assert!(check_paths("[]").is_ok());
        assert!(check_paths(r#"[[{"type":"get_attr","value":"a"},{"value":{"value":1,"type":"number"},"type":"index"}]]"#).is_ok());
    }

    /// Each of these read as "mask nothing" where a caller took a parse error for no paths.
    #[test]
    fn a_path_statectl_cannot_follow_masks_what_it_reached_and_unreadable_text_masks_all() {
        let attributes = || json!({"password": "hunter2", "tags": ["a", "b"], "id": "x"});
        let cases = [
            (
                r#"[[{"type":"get_attr","value":"password"}],[{"type":"get_attr","value":"tags"},{"type":"index","value":{"value":1.5,"type":"number"}}]]"#,
                json!({"password": MASK, "tags": MASK, "id": "x"}),
            ),
            (
                r#"[[{"type":"get_attr","value":"tags"},{"type":"index","value":{"value":true,"type":"bool"}}]]"#,
                json!({"password": "hunter2", "tags": MASK, "id": "x"}),
            ),
            (
                r#"[[{"type":"index","value":{"value":-1,"type":"number"}}]]"#,
                json!(MASK),
            ),
            ("[[]]", json!(MASK)),
            (r#"[{"type":"get_attr","value":"password"}]"#, json!(MASK)),
            (r#"{"password": true}"#, json!(MASK)),
            ("not json", json!(MASK)),
            ("null", attributes()),
            ("[]", attributes()),
        ];
        for (raw, expected) in cases {
            let mut masked = attributes();
            mask(&mut masked, &paths_to_mask(raw));
            assert_eq!(masked, expected, "{raw}");
        }
    }

    #[test]
    fn terraform_data_masks_its_output_where_its_input_is_sensitive() {
        let paths = parse_paths(
            r#"[[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"password"}],[{"type":"get_attr","value":"triggers_replace"}]]"#,
        )
        .unwrap();
        let copied = with_copies("terraform_data", paths.clone());
        assert_eq!(copied.len(), 3);
        assert_eq!(
            copied[2],
            [
                CtyStep::Attribute("output".to_owned()),
                CtyStep::Attribute("password".to_owned())
            ]
        );
        assert_eq!(with_copies("aws_instance", paths.clone()), paths);
    }
}
