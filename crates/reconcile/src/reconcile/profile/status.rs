//! Reading a remote object's status from a response: one JSONPath, and the values that mean still
//! pending, done (target), failed, or gone (OCI keeps a `TERMINATED` instance visible for a while; it
//! no longer exists all the same). Values compare ignoring ASCII case and surrounding space, as the
//! scan catalog compares them, because providers are not consistent about either.

use super::query::first;
use serde_json::Value;

use crate::state::attr_path::listed;

/// Where a profile reads the status, and what its values mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusRule {
    /// The request whose response holds the status.
    pub request: String,
    /// JSONPath to the status value (the first value it selects).
    pub path: String,
    pub pending: Vec<String>,
    pub target: Vec<String>,
    pub failed: Vec<String>,
    pub gone: Vec<String>,
    /// JSONPath to a human-readable explanation (OSB's and CF's `description`), for failures.
    pub message: Option<String>,
}

/// What a status value means. For a delete in flight, `Target` and `Gone` both mean the object is
/// gone; the poller decides with the operation at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListedAs {
    Pending,
    Target,
    Failed,
    Gone,
    /// A value none of the lists name (terraform-plugin-sdk's `UnexpectedStateError`).
    Unknown,
}

/// The status one response reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The value as the provider wrote it (a number or boolean as its JSON text).
    pub value: String,
    pub class: ListedAs,
    /// The text at the rule's `message` path, when there is one.
    pub message: Option<String>,
}

/// A status that cannot be read from its request's response: the rule's path and request named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatusError {
    #[error("`{path}` selects no status in the response of `{request}`")]
    Missing { path: String, request: String },
    #[error("`{path}` is null in the response of `{request}`")]
    Null { path: String, request: String },
    #[error(
        "`{path}` selects a list or an object in the response of `{request}`, not a status value"
    )]
    NotAValue { path: String, request: String },
}

impl StatusRule {
    pub fn classify(&self, value: &str) -> ListedAs {
        if listed(&self.pending, value) {
            ListedAs::Pending
        } else if listed(&self.target, value) {
            ListedAs::Target
        } else if listed(&self.failed, value) {
            ListedAs::Failed
        } else if listed(&self.gone, value) {
            ListedAs::Gone
        } else {
            ListedAs::Unknown
        }
    }

    /// The status in `response` (the decoded body of the rule's request).
    pub fn read(&self, response: &Value) -> Result<Status, StatusError> {
        let at = || (self.path.clone(), self.request.clone());
        let value = first(response, &self.path).ok_or_else(|| {
            let (path, request) = at();
            StatusError::Missing { path, request }
        })?;
        let value = match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            Value::Null => {
                let (path, request) = at();
                return Err(StatusError::Null { path, request });
            }
            Value::Array(_) | Value::Object(_) => {
                let (path, request) = at();
                return Err(StatusError::NotAValue { path, request });
            }
        };
        let message = self
            .message
            .as_deref()
            .and_then(|path| first(response, path))
            .and_then(|value| match value {
                Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
                _ => None,
            });
        Ok(Status {
            class: self.classify(&value),
            value,
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn cloud_foundry() -> StatusRule {
        StatusRule {
            request: "instance".into(),
            path: "$.last_operation.state".into(),
            pending: vec!["initial".into(), "in progress".into()],
            target: vec!["succeeded".into()],
            failed: vec!["failed".into()],
            gone: Vec::new(),
            message: Some("$.last_operation.description".into()),
        }
    }

    #[test]
    fn classifies_cloud_foundry_last_operation_ignoring_case() {
        let rule = cloud_foundry();
        let response = json!({
            "guid": "c89b3280-fe8d-4aa0-a42e-44465bb1c61c",
            "name": "my_service_instance",
            "type": "managed",
            "last_operation": {
                "type": "create",
                "state": "In Progress",
                "description": "",
                "created_at": "2020-03-10T15:49:29Z",
                "updated_at": "2020-03-10T15:49:29Z"
            }
        });
        let status = rule.read(&response).unwrap();
        assert_eq!(status.class, ListedAs::Pending);
        assert_eq!(status.value, "In Progress");
        assert_eq!(status.message, None);
        let failed =
            json!({"last_operation": {"state": "failed", "description": "quota exceeded"}});
        let status = rule.read(&failed).unwrap();
        assert_eq!(status.class, ListedAs::Failed);
        assert_eq!(status.message.as_deref(), Some("quota exceeded"));
        assert_eq!(rule.classify("paused"), ListedAs::Unknown);
    }

    #[test]
    fn a_missing_or_null_status_is_an_error_naming_path_and_request() {
        let rule = cloud_foundry();
        assert_eq!(
            rule.read(&json!({"guid": "x"})).unwrap_err().to_string(),
            "`$.last_operation.state` selects no status in the response of `instance`"
        );
        assert!(matches!(
            rule.read(&json!({"last_operation": {"state": null}})),
            Err(StatusError::Null { .. })
        ));
    }

    #[test]
    fn oci_terminated_is_gone() {
        let rule = StatusRule {
            request: "instance".into(),
            path: "$.lifecycleState".into(),
            pending: vec!["PROVISIONING".into()],
            target: vec!["RUNNING".into()],
            failed: Vec::new(),
            gone: vec!["TERMINATED".into()],
            message: None,
        };
        let status =
            rule.read(&json!({"id": "ocid1.instance.oc1..x", "lifecycleState": "TERMINATED"}));
        assert_eq!(status.unwrap().class, ListedAs::Gone);
    }
}
