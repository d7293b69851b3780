//! An Open Service Broker (API v2.13 and later): the last operation of service instances, behind HTTP
//! basic auth and the `X-Broker-API-Version` header, checked in that order: 401 for missing or wrong
//! credentials, then 400 for a missing version header and 412 for a version other than 2.13 or a
//! later 2.x.
//!
//! `GET /v2/service_instances/:id/last_operation?service_id=&plan_id=&operation=`: `operation` must
//! be the one the broker returned (the scenario's, or none when the scenario has none), and
//! `service_id` and `plan_id`, when sent, must be the instance's; anything else is a 400. An unknown
//! instance is a 404. A lifecycle that reaches `gone` answers 410 `{}`: for a deprovision that is
//! success, while a broker that answers 410 to a provision or an update is broken (the spec says to
//! keep polling), which a scenario may script on purpose.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::faults::RetryAfter;
use crate::http::{Request, Response};
use crate::lifecycle::{GONE, Progress};
use crate::scenario::{OsbInstance, OsbKind, OsbSection};
use crate::scenario::{ScenarioError, insert_once};
use crate::server::{Context, Service};

const STATES: &[&str] = &["in progress", "succeeded", "failed"];
/// The oldest broker API version this broker speaks.
const MIN_MINOR_VERSION: u32 = 13;

#[derive(Debug)]
pub(crate) struct Osb {
    /// `username:password`, as basic auth carries it.
    credentials: String,
    instances: HashMap<String, Instance>,
}

#[derive(Debug)]
struct Instance {
    spec: OsbInstance,
    progress: Mutex<Progress>,
}

impl Osb {
    pub(crate) fn new(section: &OsbSection) -> Result<Osb, ScenarioError> {
        let mut instances = HashMap::new();
        for spec in &section.instance {
            let context = format!("[[osb.instance]] `{}`", spec.id);
            let progress = Progress::of(&spec.lifecycle, STATES, &context)?;
            // The spec sends these two only after a failed update (or, instance_usable, a failed
            // deprovision); a scenario that sets them elsewhere is a mistake worth naming.
            if spec.instance_usable.is_some() && spec.kind == OsbKind::Provision {
                return Err(format!(
                    "{context}: `instance_usable` is for a failed update or deprovision"
                )
                .into());
            }
            if spec.update_repeatable.is_some() && spec.kind != OsbKind::Update {
                return Err(
                    format!("{context}: `update_repeatable` is for a failed update").into(),
                );
            }
            let instance = Instance {
                spec: spec.clone(),
                progress,
            };
            insert_once(&mut instances, &spec.id, instance, &context, "id")?;
        }
        Ok(Osb {
            credentials: format!("{}:{}", section.username, section.password),
            instances,
        })
    }

    fn last_operation(&self, id: &str, request: &Request) -> Response {
        let Some(instance) = self.instances.get(id) else {
            return osb_error(
                404,
                None,
                &format!("service instance `{id}` does not exist"),
            );
        };
        let spec = &instance.spec;
        if request.query("operation") != spec.operation.as_deref() {
            let expected = spec
                .operation
                .as_deref()
                .map_or("none".to_owned(), |operation| format!("`{operation}`"));
            return osb_error(
                400,
                Some("InvalidOperation"),
                &format!("the operation does not match the one the broker returned ({expected})"),
            );
        }
        for (name, expected) in [("service_id", &spec.service_id), ("plan_id", &spec.plan_id)] {
            if request.query(name).is_some_and(|sent| sent != expected) {
                return osb_error(
                    400,
                    Some("InvalidParameter"),
                    &format!("`{name}` is not the service instance's"),
                );
            }
        }
        let state = instance
            .progress
            .lock()
            .expect("a lifecycle is never poisoned")
            .poll(Instant::now())
            .to_owned();
        if state == GONE {
            return Response::json(410, &json!({}));
        }
        let mut body = Map::new();
        let description = spec
            .description
            .clone()
            .unwrap_or_else(|| match state.as_str() {
                "succeeded" => "Operation succeeded".to_owned(),
                "failed" => "Operation failed".to_owned(),
                _ => "Operation in progress".to_owned(),
            });
        body.insert("state".to_owned(), json!(state));
        body.insert("description".to_owned(), json!(description));
        if state == "failed" {
            if let Some(usable) = spec.instance_usable {
                body.insert("instance_usable".to_owned(), json!(usable));
            }
            if let Some(repeatable) = spec.update_repeatable {
                body.insert("update_repeatable".to_owned(), json!(repeatable));
            }
        }
        let response = Response::json(200, &Value::Object(body));
        match spec.retry_after {
            Some(seconds) if state == "in progress" => {
                let retry_after = RetryAfter {
                    seconds,
                    form: spec.retry_after_form,
                };
                response.with_header("retry-after", retry_after.header_value(SystemTime::now()))
            }
            _ => response,
        }
    }
}

impl Service for Osb {
    fn owns(&self, path: &str) -> bool {
        path.starts_with("/v2/")
    }

    fn authenticate(
        &self,
        request: &Request,
        _now: SystemTime,
        _context: &Context,
    ) -> Result<(), Response> {
        // The scheme is case-insensitive (RFC 9110 section 11.1), the credentials are not.
        let credentials = request
            .header("authorization")
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("basic"))
            .and_then(|(_, encoded)| STANDARD.decode(encoded.trim()).ok());
        if credentials.as_deref() != Some(self.credentials.as_bytes()) {
            return Err(osb_error(401, None, "basic authentication failed")
                .with_header("www-authenticate", "Basic realm=\"statectl-sim\""));
        }
        let Some(version) = request.header("x-broker-api-version") else {
            return Err(osb_error(
                400,
                Some("MissingBrokerAPIVersion"),
                "the X-Broker-API-Version header is required",
            ));
        };
        let supported = version
            .split_once('.')
            .and_then(|(major, minor)| {
                Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
            })
            .is_some_and(|(major, minor)| major == 2 && minor >= MIN_MINOR_VERSION);
        if !supported {
            return Err(osb_error(
                412,
                Some("UnsupportedBrokerAPIVersion"),
                &format!(
                    "X-Broker-API-Version `{version}` is not supported: use 2.{MIN_MINOR_VERSION} or a later 2.x"
                ),
            ));
        }
        Ok(())
    }

    fn answer(&self, request: &Request, context: &Context) -> Response {
        let segments: Vec<&str> = request.path["/v2/".len()..].split('/').collect();
        match segments.as_slice() {
            ["service_instances", id, "last_operation"] => self.last_operation(id, request),
            _ => self.error(404, context),
        }
    }

    fn error(&self, status: u16, _context: &Context) -> Response {
        let description = match status {
            404 => "not found",
            429 => "too many requests",
            503 => "the broker is unavailable",
            _ => "internal error",
        };
        osb_error(status, None, description)
    }
}

/// OSB's error body: `error` is a machine-readable word, `description` is for people.
fn osb_error(status: u16, error: Option<&str>, description: &str) -> Response {
    let body = match error {
        Some(error) => json!({"error": error, "description": description}),
        None => json!({"description": description}),
    };
    Response::json(status, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn osb(instance: &str) -> Result<Osb, ScenarioError> {
        Osb::new(
            &toml::from_str(&format!(
                "username = \"u\"\npassword = \"p\"\n[[instance]]\nid = \"i\"\nservice_id = \"s\"\nplan_id = \"p\"\n{instance}"
            ))
            .unwrap(),
        )
    }

    #[test]
    fn refuses_fields_the_spec_does_not_send_for_the_operation() {
        let refused = [
            (
                "kind = \"provision\"\nlifecycle = [\"failed\"]\ninstance_usable = false",
                "`instance_usable` is for a failed update or deprovision",
            ),
            (
                "kind = \"deprovision\"\nlifecycle = [\"failed\"]\nupdate_repeatable = true",
                "`update_repeatable` is for a failed update",
            ),
            (
                "kind = \"update\"\nlifecycle = [\"in_progress:1\", \"succeeded\"]",
                "`in_progress` is not a state here",
            ),
        ];
        for (instance, says) in refused {
            let error = osb(instance).unwrap_err().to_string();
            assert!(error.contains(says), "{instance}: {error}");
        }
        assert!(osb("kind = \"update\"\nlifecycle = [\"failed\"]\nupdate_repeatable = true\ninstance_usable = true").is_ok());
    }
}
