//! Attribute mappings: a value a response holds (by JSONPath) written to a state attribute path,
//! coerced to the type the state already holds there, because the state must keep the provider
//! schema's types (OCI answers numbers where a schema says string; brokers answer `"3"` for numbers).
//!
//! Mappings only replace what is there. They never add an attribute or a nested member the state does
//! not have: an attribute the schema lacks makes Terraform refuse the state. For the same reason an
//! object from a response is merged member by member over the members the state holds, not swapped in
//! whole; a list is replaced whole, each element coerced like the state's.

use super::query::first;
use serde_json::{Number, Value};

use crate::json::Decimal;
use crate::reconcile::profile::path;
use crate::state::attr_path::Step;

/// One `[[profile.map]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub request: String,
    /// JSONPath into the response (its first value).
    pub from: String,
    /// The state attribute path, as written.
    pub to: String,
    pub steps: Vec<Step>,
}

/// The result of applying the mappings to one instance's attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    /// The new attributes object (the old one when nothing changed).
    pub attributes: Value,
    /// What changed, in mapping order.
    pub changes: Vec<AttributeChange>,
    /// Mappings that could not be applied, and why; the rest still apply.
    pub skipped: Vec<Skipped>,
}

impl Patch {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AttributeChange {
    pub path: String,
    pub old: Value,
    pub new: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// Applies `mappings` to `attributes`. `response` gives a request's decoded response, or `None` when
/// that request did not run this time (a `when = "target"` request before the target): its mappings
/// are left out without a note.
pub fn apply<'r>(
    mappings: &[Mapping],
    attributes: &Value,
    response: impl Fn(&str) -> Option<&'r Value>,
) -> Patch {
    let mut patched = attributes.clone();
    let mut changes = Vec::new();
    let mut skipped = Vec::new();
    for mapping in mappings {
        let Some(document) = response(&mapping.request) else {
            continue;
        };
        let Some(found) = first(document, &mapping.from) else {
            skipped.push(Skipped {
                path: mapping.to.clone(),
                reason: format!(
                    "`{}` selects nothing in the response of `{}`",
                    mapping.from, mapping.request
                ),
            });
            continue;
        };
        let Some(place) = path::get_mut(&mut patched, &mapping.steps) else {
            skipped.push(Skipped {
                path: mapping.to.clone(),
                reason: "the state holds nothing at this path (a mapping replaces attributes, it never adds one)"
                    .to_owned(),
            });
            continue;
        };
        let Some(new) = coerce(place, found, &mapping.to, &mut skipped) else {
            continue;
        };
        if *place != new {
            changes.push(AttributeChange {
                path: mapping.to.clone(),
                old: std::mem::replace(place, new.clone()),
                new,
            });
        }
    }
    Patch {
        attributes: patched,
        changes,
        skipped,
    }
}

/// `new` in the type `old` has. `None` (with a note in `skipped`) when the types cannot meet.
fn coerce(old: &Value, new: &Value, at: &str, skipped: &mut Vec<Skipped>) -> Option<Value> {
    let noted = skipped.len();
    let coerced = match (old, new) {
        (Value::Null, _) => Some(new.clone()),
        // SDKv2 providers store an unset string as "", never null: write what they would.
        (Value::String(_), Value::Null) => Some(Value::String(String::new())),
        (_, Value::Null) => Some(Value::Null),
        (Value::String(_), Value::String(_)) | (Value::Bool(_), Value::Bool(_)) => {
            Some(new.clone())
        }
        (Value::String(_), Value::Number(number)) => Some(Value::String(number.to_string())),
        (Value::String(_), Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        (Value::Number(before), Value::Number(after)) => Some(if same_number(before, after) {
            // Keep the state's spelling (`1.0` stays `1.0`): a no-op must stay byte-identical.
            old.clone()
        } else {
            new.clone()
        }),
        (Value::Number(before), Value::String(text)) => {
            text.trim().parse::<Number>().ok().map(|after| {
                if same_number(before, &after) {
                    old.clone()
                } else {
                    Value::Number(after)
                }
            })
        }
        (Value::Bool(_), Value::String(text)) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        (Value::Object(before), Value::Object(after)) => {
            let mut merged = before.clone();
            for (key, value) in &mut merged {
                if let Some(incoming) = after.get(key)
                    && let Some(coerced) = coerce(value, incoming, &format!("{at}.{key}"), skipped)
                {
                    *value = coerced;
                }
            }
            Some(Value::Object(merged))
        }
        // A nested block that an SDKv2 provider stores as a one-element list.
        (Value::Array(before), Value::Object(_)) => {
            let first = before.first().unwrap_or(&Value::Null);
            coerce(first, new, &format!("{at}[0]"), skipped).map(|one| Value::Array(vec![one]))
        }
        (Value::Array(before), Value::Array(after)) => {
            let mut items = Vec::with_capacity(after.len());
            for (index, incoming) in after.iter().enumerate() {
                let like = before.get(index).or(before.first()).unwrap_or(&Value::Null);
                items.push(coerce(like, incoming, &format!("{at}[{index}]"), skipped)?);
            }
            Some(Value::Array(items))
        }
        _ => None,
    };
    // A list element that could not meet has already said why.
    if coerced.is_none() && skipped.len() == noted {
        skipped.push(Skipped {
            path: at.to_owned(),
            reason: format!(
                "the state holds {} here and the response {}",
                kind(old),
                kind(new)
            ),
        });
    }
    coerced
}

/// Equal as numbers (`1`, `1.0` and `1e0` are one number), exactly: two integers past 2^53 that
/// one `f64` holds alike are still two numbers.
fn same_number(left: &Number, right: &Number) -> bool {
    let (left, right) = (left.to_string(), right.to_string());
    left == right
        || matches!((Decimal::parse(&left), Decimal::parse(&right)), (Some(left), Some(right)) if left == right)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::*;

    /// The paths a patch changes, in its order.
    pub(crate) fn changed(patch: &Patch) -> Vec<&str> {
        patch
            .changes
            .iter()
            .map(|change| change.path.as_str())
            .collect()
    }

    fn mapping(request: &str, from: &str, to: &str) -> Mapping {
        Mapping {
            request: request.into(),
            from: from.into(),
            to: to.into(),
            steps: path::parse(to).unwrap(),
        }
    }

    /// `GET /20160918/vnics/{vnicId}`, as OCI answers it.
    fn vnic() -> Value {
        json!({
            "availabilityDomain": "Uocm:PHX-AD-1",
            "compartmentId": "ocid1.compartment.oc1..aaaa",
            "hostnameLabel": "web-0",
            "id": "ocid1.vnic.oc1.phx.abcd",
            "isPrimary": true,
            "lifecycleState": "AVAILABLE",
            "privateIp": "10.0.0.12",
            "publicIp": "129.146.10.7",
            "subnetId": "ocid1.subnet.oc1.phx.efgh"
        })
    }

    #[test]
    fn fills_the_ips_an_async_create_left_unset() {
        let attributes = json!({
            "id": "ocid1.instance.oc1.phx.xyz",
            "state": "PROVISIONING",
            "private_ip": "",
            "public_ip": null,
            "create_vnic_details": [{"subnet_id": "ocid1.subnet.oc1.phx.efgh", "private_ip": ""}]
        });
        let instance = json!({"lifecycleState": "RUNNING"});
        let vnic = vnic();
        let responses = HashMap::from([("instance", &instance), ("vnic", &vnic)]);
        let mappings = [
            mapping("instance", "$.lifecycleState", "state"),
            mapping("vnic", "$.privateIp", "private_ip"),
            mapping("vnic", "$.publicIp", "public_ip"),
            mapping("vnic", "$.subnetId", "create_vnic_details[0].subnet_id"),
            mapping("vnic", "$.privateIp", "create_vnic_details.private_ip"),
        ];
        let patch = apply(&mappings, &attributes, |name| responses.get(name).copied());
        assert_eq!(
            patch.attributes,
            json!({
                "id": "ocid1.instance.oc1.phx.xyz",
                "state": "RUNNING",
                "private_ip": "10.0.0.12",
                "public_ip": "129.146.10.7",
                "create_vnic_details": [{"subnet_id": "ocid1.subnet.oc1.phx.efgh", "private_ip": "10.0.0.12"}]
            })
        );
        assert_eq!(
            changed(&patch),
            [
                "state",
                "private_ip",
                "public_ip",
                "create_vnic_details.private_ip"
            ]
        );
        assert_eq!(patch.changes[0].old, json!("PROVISIONING"));
        assert!(patch.skipped.is_empty());
    }

    #[test]
    fn coerces_to_the_type_the_state_holds() {
        let (patched, changes) = each_top_level_mapped(
            r#"{"port": 80, "name": "x", "enabled": false, "size": 1.0, "new": null}"#,
            r#"{"port": "8080", "name": 12, "enabled": "TRUE", "size": 1, "new": [1]}"#,
        );
        assert_eq!(
            patched,
            r#"{"port":8080,"name":"12","enabled":true,"size":1.0,"new":[1]}"#
        );
        assert_eq!(changes, 4, "size keeps its spelling");
    }

    #[test]
    fn a_number_is_kept_in_its_spelling_only_when_it_is_exactly_the_same() {
        let (patched, changes) = each_top_level_mapped(
            r#"{"same": 100.00, "big": 9007199254740993, "text": 0.10}"#,
            r#"{"same": 100, "big": 9007199254740992, "text": "0.1"}"#,
        );
        // 2^53 + 1 and 2^53 are one f64, but not one number: the answer's is taken.
        assert_eq!(
            patched,
            r#"{"same":100.00,"big":9007199254740992,"text":0.10}"#
        );
        assert_eq!(changes, 1);
    }

    /// The state's `attributes` (JSON text: spellings count) patched from `response` by a mapping
    /// of each of its top-level members to the same name, and how many changed.
    fn each_top_level_mapped(attributes: &str, response: &str) -> (String, usize) {
        let attributes: Value = serde_json::from_str(attributes).unwrap();
        let response: Value = serde_json::from_str(response).unwrap();
        let mappings: Vec<Mapping> = attributes
            .as_object()
            .unwrap()
            .keys()
            .map(|name| mapping("r", &format!("$.{name}"), name))
            .collect();
        let patch = apply(&mappings, &attributes, |_| Some(&response));
        (
            serde_json::to_string(&patch.attributes).unwrap(),
            patch.changes.len(),
        )
    }

    #[test]
    fn skips_what_cannot_meet_and_never_adds_attributes() {
        let attributes = json!({"port": 80, "last_operation": null});
        let response =
            json!({"port": "eighty", "other": 1, "last_operation": {"state": "succeeded"}});
        let mappings = [
            mapping("r", "$.port", "port"),
            mapping("r", "$.other", "other"),
            mapping("r", "$.absent", "port"),
            mapping("r", "$.last_operation.state", "last_operation.state"),
        ];
        let patch = apply(&mappings, &attributes, |_| Some(&response));
        assert_eq!(patch.attributes, attributes);
        assert!(patch.is_empty());
        let reasons: Vec<String> = patch
            .skipped
            .iter()
            .map(|skip| format!("{}: {}", skip.path, skip.reason))
            .collect();
        assert_eq!(
            reasons,
            [
                "port: the state holds a number here and the response a string",
                "other: the state holds nothing at this path (a mapping replaces attributes, it never adds one)",
                "port: `$.absent` selects nothing in the response of `r`",
                "last_operation.state: the state holds nothing at this path (a mapping replaces attributes, it never adds one)",
            ]
        );
    }

    #[test]
    fn merges_objects_member_by_member_and_wraps_them_for_block_lists() {
        // Cloud Foundry's `last_operation`, and a state holding it as an SDKv2 block list.
        let response = json!({"last_operation": {
            "type": "create", "state": "succeeded", "description": "done",
            "created_at": "2020-03-10T15:49:29Z", "updated_at": "2020-03-10T15:51:00Z", "extra": 1
        }});
        let attributes = json!({"last_operation": [{"type": "create", "state": "in progress", "description": ""}]});
        let mappings = [mapping("r", "$.last_operation", "last_operation")];
        let patch = apply(&mappings, &attributes, |_| Some(&response));
        assert_eq!(
            patch.attributes,
            json!({"last_operation": [{"type": "create", "state": "succeeded", "description": "done"}]})
        );
        let framework = json!({"last_operation": {"type": "create", "state": "in progress"}});
        let patch = apply(&mappings, &framework, |_| Some(&response));
        assert_eq!(
            patch.attributes,
            json!({"last_operation": {"type": "create", "state": "succeeded"}})
        );
    }

    #[test]
    fn a_request_that_did_not_run_leaves_its_mappings_out_quietly() {
        let attributes = json!({"private_ip": ""});
        let patch = apply(
            &[mapping("vnic", "$.privateIp", "private_ip")],
            &attributes,
            |_| None,
        );
        assert!(patch.is_empty() && patch.skipped.is_empty());
    }
}
