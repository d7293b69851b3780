//! The plugin reader's side of `statectl refresh`: the read job for a selected instance, and what a
//! refreshed object changes in the state (attributes, `schema_version`, `private`,
//! `sensitive_attributes`, identity), compared field by field so that a read that learns nothing
//! new proposes nothing.

use serde_json::Value;
use statectl_analysis::scan::select::Selected;

use crate::reconcile::plugin::reader::{ReadJob, RefreshedObject, StoredIdentity};
use crate::state::write::Change;

/// The read job for `one`, whose provider configuration is `provider` (as the state writes it).
pub(super) fn read_job(one: &Selected, provider: &str, source: &str) -> ReadJob {
    let identity = one.identity.and_then(|span| {
        let value: Value = serde_json::from_str(span.of(source)).ok()?;
        (!value.is_null()).then(|| StoredIdentity {
            value,
            schema_version: i64::try_from(one.identity_schema_version.unwrap_or(0))
                .unwrap_or(i64::MAX),
        })
    });
    ReadJob {
        address: one.address.to_string(),
        resource_type: one.type_name.clone(),
        provider: provider.to_owned(),
        schema_version: i64::try_from(one.schema_version).unwrap_or(i64::MAX),
        attributes: one
            .attributes
            .map_or_else(|| "{}".to_owned(), |span| span.of(source).to_owned()),
        private: one.private.clone(),
        sensitive_attributes: one
            .sensitive_attributes
            .and_then(|span| serde_json::from_str::<Vec<Value>>(span.of(source)).ok())
            .unwrap_or_default(),
        identity,
    }
}

/// The changes that bring `one`'s object to what the provider read; empty when it already is.
pub(super) fn refreshed_changes(
    one: &Selected,
    source: &str,
    object: &RefreshedObject,
) -> Vec<Change> {
    let parsed = |span: Option<crate::json::Span>| {
        span.and_then(|span| serde_json::from_str::<Value>(span.of(source)).ok())
    };
    let mut changes = Vec::new();
    if parsed(one.attributes).as_ref() != Some(&object.attributes) {
        changes.push(Change::Set {
            field: "attributes",
            json: object.attributes.to_string(),
        });
    }
    if i64::try_from(one.schema_version).ok() != Some(object.schema_version) {
        changes.push(Change::Set {
            field: "schema_version",
            json: object.schema_version.to_string(),
        });
    }
    let sensitive = Value::Array(object.sensitive_attributes.clone());
    if parsed(one.sensitive_attributes).as_ref() != Some(&sensitive) {
        changes.push(Change::Set {
            field: "sensitive_attributes",
            json: sensitive.to_string(),
        });
    }
    match (&one.private, &object.private) {
        (before, Some(after)) if before.as_ref() != Some(after) => {
            changes.push(Change::set_string("private", after));
        }
        (Some(_), None) => changes.push(Change::Remove { field: "private" }),
        _ => {}
    }
    // The identity is what the provider read, as in Terraform: one it did not return is dropped.
    match &object.identity {
        Some(identity) if parsed(one.identity).as_ref() != Some(&identity.value) => {
            changes.push(Change::Set {
                field: "identity",
                json: identity.value.to_string(),
            });
        }
        None if one.identity.is_some() => changes.push(Change::Remove { field: "identity" }),
        _ => {}
    }
    // Terraform writes the provider's identity schema version; a state without the field (written
    // before identities) gets it only along with a change to the identity.
    let version = u64::try_from(object.identity_schema_version).ok();
    let identity_changed = changes.iter().any(|change| {
        matches!(
            change,
            Change::Set {
                field: "identity",
                ..
            } | Change::Remove { field: "identity" }
        )
    });
    if one.identity_schema_version != version
        && (one.identity_schema_version.is_some() || identity_changed)
    {
        changes.push(Change::Set {
            field: "identity_schema_version",
            json: object.identity_schema_version.to_string(),
        });
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Span;
    use crate::state::address::InstanceAddr;
    use statectl_analysis::scan::select::Operation;

    /// An instance whose object is `object` (its fields found by text search, as spans into it).
    fn selected(object: &str) -> Selected {
        let span = |key: &str| {
            let start = object.find(&format!("\"{key}\": "))? + key.len() + 4;
            let value: Value = serde_json::Deserializer::from_str(&object[start..])
                .into_iter::<Value>()
                .next()?
                .ok()?;
            Some(Span::new(start, start + value.to_string().len()))
        };
        Selected {
            address: InstanceAddr::parse("pyasync_job.build").unwrap(),
            type_name: "pyasync_job".into(),
            operation: Operation::Create,
            reasons: Vec::new(),
            attributes: span("attributes"),
            provider: None,
            schema_version: 1,
            private: None,
            sensitive_attributes: span("sensitive_attributes"),
            identity: span("identity"),
            identity_schema_version: Some(0),
        }
    }

    fn refreshed(identity: Option<Value>, version: i64) -> RefreshedObject {
        RefreshedObject {
            attributes: serde_json::json!({"id":"a"}),
            schema_version: 1,
            private: None,
            sensitive_attributes: Vec::new(),
            identity: identity.map(|value| StoredIdentity {
                value,
                schema_version: version,
            }),
            identity_schema_version: version,
            prior: serde_json::json!({"id":"a"}),
            computed_only: std::sync::Arc::default(),
        }
    }

    fn fields(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .map(|change| match change {
                Change::Set { field, json } => format!("{field}={json}"),
                Change::Remove { field } => format!("-{field}"),
            })
            .collect()
    }

    #[test]
    fn identities_change_as_terraform_writes_them() {
        let with =
            r#"{"attributes": {"id":"a"}, "sensitive_attributes": [], "identity": {"job":"a"}}"#;
        let without = r#"{"attributes": {"id":"a"}, "sensitive_attributes": []}"#;
        // The same identity: nothing to change.
        let same = refreshed(Some(serde_json::json!({"job": "a"})), 0);
        assert!(refreshed_changes(&selected(with), with, &same).is_empty());
        // Upgraded: the identity and its version.
        let upgraded = refreshed(Some(serde_json::json!({"id": "a"})), 1);
        assert_eq!(
            fields(&refreshed_changes(&selected(with), with, &upgraded)),
            [r#"identity={"id":"a"}"#, "identity_schema_version=1"]
        );
        // The first identity the provider returns.
        assert_eq!(
            fields(&refreshed_changes(&selected(without), without, &same)),
            [r#"identity={"job":"a"}"#]
        );
        // None returned: dropped, as Terraform drops it.
        assert_eq!(
            fields(&refreshed_changes(
                &selected(with),
                with,
                &refreshed(None, 0)
            )),
            ["-identity"]
        );
        assert!(refreshed_changes(&selected(without), without, &refreshed(None, 0)).is_empty());
    }
}
