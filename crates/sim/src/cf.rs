//! Cloud Foundry's Cloud Controller v3: service instances with their `last_operation`, and the jobs
//! that asynchronous operations return, behind a bearer token, with CF's error bodies
//! (`{"errors": [{"code": 10010, "title": "CF-ResourceNotFound", "detail": ...}]}`).
//!
//! Each GET of a service instance or a job is one poll of its lifecycle. A deleted service instance
//! answers 404, as Cloud Controller does once a delete has finished: it never shows a delete that
//! succeeded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};

use crate::clock::rfc3339;
use crate::http::{Request, Response};
use crate::lifecycle::{GONE, Progress};
use crate::scenario::{CfJob, CfSection, CfServiceInstance};
use crate::scenario::{ScenarioError, insert_once};
use crate::server::{Context, Service};

const LAST_OPERATION_STATES: &[&str] = &["initial", "in progress", "succeeded", "failed"];
const LAST_OPERATION_TYPES: &[&str] = &["create", "update", "delete"];
const JOB_STATES: &[&str] = &["PROCESSING", "POLLING", "COMPLETE", "FAILED"];

#[derive(Debug)]
pub(crate) struct Cf {
    token: String,
    service_instances: HashMap<String, ServiceInstance>,
    jobs: HashMap<String, Job>,
}

#[derive(Debug)]
struct ServiceInstance {
    spec: CfServiceInstance,
    /// `None` for an instance deleted from the start.
    progress: Option<Mutex<Progress>>,
}

#[derive(Debug)]
struct Job {
    spec: CfJob,
    progress: Mutex<Progress>,
}

impl Cf {
    pub(crate) fn new(section: &CfSection) -> Result<Cf, ScenarioError> {
        let mut service_instances = HashMap::new();
        for spec in &section.service_instance {
            let context = format!("[[cf.service_instance]] `{}`", spec.guid);
            if !LAST_OPERATION_TYPES.contains(&spec.last_operation_type.as_str()) {
                return Err(format!(
                    "{context}: `last_operation_type = \"{}\"`: expected `create`, `update` or `delete`",
                    spec.last_operation_type
                ).into());
            }
            let progress = match (spec.deleted, spec.lifecycle.is_empty()) {
                (true, true) => None,
                (true, false) => {
                    return Err(format!(
                        "{context}: `deleted = true` answers 404 from the first GET, so it takes no lifecycle; for a delete that finishes later, end the lifecycle with `{GONE}`"
                    ).into());
                }
                (false, _) => Some(Progress::of(
                    &spec.lifecycle,
                    LAST_OPERATION_STATES,
                    &context,
                )?),
            };
            let instance = ServiceInstance {
                spec: spec.clone(),
                progress,
            };
            insert_once(
                &mut service_instances,
                &spec.guid,
                instance,
                &context,
                "guid",
            )?;
        }
        let mut jobs = HashMap::new();
        for spec in &section.job {
            let context = format!("[[cf.job]] `{}`", spec.guid);
            let job = Job {
                spec: spec.clone(),
                progress: Progress::of(&spec.lifecycle, JOB_STATES, &context)?,
            };
            insert_once(&mut jobs, &spec.guid, job, &context, "guid")?;
        }
        Ok(Cf {
            token: section.token.clone(),
            service_instances,
            jobs,
        })
    }

    fn get_service_instance(&self, guid: &str, request: &Request, context: &Context) -> Response {
        let not_found = || {
            cf_error(
                404,
                10010,
                "CF-ResourceNotFound",
                "Service instance not found",
            )
        };
        let Some(instance) = self.service_instances.get(guid) else {
            return not_found();
        };
        let Some(progress) = &instance.progress else {
            return not_found();
        };
        let (state, step_started) = poll(progress);
        if state == GONE {
            return not_found();
        }
        let spec = &instance.spec;
        let created_at = context.clock.started_rfc3339(false);
        let updated_at = rfc3339(context.clock.wall(step_started), false);
        let body = json!({
            "guid": spec.guid,
            "name": spec.name,
            "type": "managed",
            "created_at": created_at,
            "updated_at": updated_at,
            "last_operation": {
                "type": spec.last_operation_type,
                "state": state,
                "description": spec.description.as_deref().unwrap_or(""),
                "created_at": created_at,
                "updated_at": updated_at,
            },
            "links": {"self": {"href": self_link(request)}},
        });
        ok(&body)
    }

    fn get_job(&self, guid: &str, request: &Request, context: &Context) -> Response {
        let not_found = || cf_error(404, 10010, "CF-ResourceNotFound", "Job not found");
        let Some(job) = self.jobs.get(guid) else {
            return not_found();
        };
        let (state, step_started) = poll(&job.progress);
        if state == GONE {
            return not_found();
        }
        let errors = if state == "FAILED" {
            let detail = job
                .spec
                .error
                .as_deref()
                .unwrap_or("The simulated job failed");
            json!([{"code": 10008, "title": "CF-UnprocessableEntity", "detail": detail}])
        } else {
            json!([])
        };
        let body = json!({
            "guid": job.spec.guid,
            "operation": job.spec.operation.as_deref().unwrap_or("service_instance.create"),
            "state": state,
            "errors": errors,
            "warnings": [],
            "created_at": context.clock.started_rfc3339(false),
            "updated_at": rfc3339(context.clock.wall(step_started), false),
            "links": {"self": {"href": self_link(request)}},
        });
        ok(&body)
    }
}

impl Service for Cf {
    fn owns(&self, path: &str) -> bool {
        path.starts_with("/v3/")
    }

    fn authenticate(
        &self,
        request: &Request,
        _now: SystemTime,
        _context: &Context,
    ) -> Result<(), Response> {
        let Some(authorization) = request.header("authorization") else {
            return Err(cf_error(
                401,
                10002,
                "CF-NotAuthenticated",
                "Authentication error",
            ));
        };
        // The scheme is case-insensitive (RFC 9110 section 11.1), the token is not.
        let token = authorization
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        if token == Some(self.token.as_str()) {
            Ok(())
        } else {
            Err(cf_error(
                401,
                1000,
                "CF-InvalidAuthToken",
                "Invalid Auth Token",
            ))
        }
    }

    fn answer(&self, request: &Request, context: &Context) -> Response {
        let segments: Vec<&str> = request.path["/v3/".len()..].split('/').collect();
        match segments.as_slice() {
            ["service_instances", guid] => self.get_service_instance(guid, request, context),
            ["jobs", guid] => self.get_job(guid, request, context),
            _ => self.error(404, context),
        }
    }

    fn error(&self, status: u16, _context: &Context) -> Response {
        match status {
            404 => cf_error(404, 10000, "CF-NotFound", "Unknown request"),
            429 => cf_error(429, 10013, "CF-RateLimitExceeded", "Rate Limit Exceeded"),
            503 => cf_error(
                503,
                10015,
                "CF-ServiceUnavailable",
                "The service is unavailable",
            ),
            _ => cf_error(status, 10001, "UnknownError", "An unknown error occurred."),
        }
    }
}

/// Polls `progress` once: the state, and when its step began.
fn poll(progress: &Mutex<Progress>) -> (String, Instant) {
    let mut progress = progress.lock().expect("a lifecycle is never poisoned");
    let state = progress.poll(Instant::now()).to_owned();
    let started = progress
        .step_started()
        .expect("a poll starts the lifecycle's clock");
    (state, started)
}

fn ok(body: &Value) -> Response {
    Response::json(200, body)
}

fn cf_error(status: u16, code: u32, title: &str, detail: &str) -> Response {
    Response::json(
        status,
        &json!({"errors": [{"code": code, "title": title, "detail": detail}]}),
    )
}

fn self_link(request: &Request) -> String {
    format!(
        "http://{}{}",
        request.header("host").unwrap_or("127.0.0.1"),
        request.path
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cf(text: &str) -> Result<Cf, ScenarioError> {
        Cf::new(&toml::from_str(&format!("token = \"t\"\n{text}")).unwrap())
    }

    #[test]
    fn refuses_bad_scenarios_with_the_object_named() {
        let error = cf("[[service_instance]]\nguid = \"g\"\nname = \"db\"\nlifecycle = [\"in_progress:1\", \"succeeded\"]").unwrap_err().to_string();
        assert!(
            error.starts_with("[[cf.service_instance]] `g`: step `in_progress:1`"),
            "{error}"
        );
        let error = cf("[[service_instance]]\nguid = \"g\"\nname = \"db\"\nlast_operation_type = \"destroy\"\nlifecycle = [\"succeeded\"]").unwrap_err().to_string();
        assert!(
            error.contains("expected `create`, `update` or `delete`"),
            "{error}"
        );
        let error = cf("[[service_instance]]\nguid = \"g\"\nname = \"db\"\ndeleted = true\nlifecycle = [\"succeeded\"]").unwrap_err().to_string();
        assert!(error.contains("takes no lifecycle"), "{error}");
        let error = cf("[[job]]\nguid = \"j\"\nlifecycle = [\"DONE\"]")
            .unwrap_err()
            .to_string();
        assert!(error.contains("`DONE` is not a state here"), "{error}");
        assert!(cf("[[service_instance]]\nguid = \"g\"\nname = \"db\"\ndeleted = true").is_ok());
    }
}
