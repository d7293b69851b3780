//! OCI Core Services, API version 20160918: instances, their VNIC attachments and VNICs, their boot
//! volume attachments, and work requests, with OCI's field names, `etag` and `opc-request-id` headers, and error bodies
//! (`{"code": "NotAuthorizedOrNotFound", "message": ...}`).
//!
//! Each GET of an instance or a work request is one poll of its lifecycle. The VNIC reads only look:
//! an instance's primary VNIC is attached while the instance is RUNNING, STARTING, STOPPING, STOPPED
//! or CREATING_IMAGE as of its last poll, which is where a client finds the IPs that an async create
//! left unset in the state.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use serde_json::{Map, Value, json};

use crate::faults::fnv1a;
use crate::http::{Request, Response};
use crate::lifecycle::{GONE, Progress};
use crate::oci_signature::OciKey;
use crate::scenario::{OciInstance, OciSection, OciWorkRequest};
use crate::scenario::{ScenarioError, insert_once};
use crate::server::{Context, Service};

const PREFIX: &str = "/20160918/";

const INSTANCE_STATES: &[&str] = &[
    "MOVING",
    "PROVISIONING",
    "RUNNING",
    "STARTING",
    "STOPPING",
    "STOPPED",
    "CREATING_IMAGE",
    "TERMINATING",
    "TERMINATED",
];

const WORK_REQUEST_STATES: &[&str] = &[
    "ACCEPTED",
    "IN_PROGRESS",
    "FAILED",
    "SUCCEEDED",
    "CANCELING",
    "CANCELED",
];

/// The instance states in which the primary VNIC is attached.
const ATTACHED_STATES: &[&str] = &[
    "RUNNING",
    "STARTING",
    "STOPPING",
    "STOPPED",
    "CREATING_IMAGE",
];

#[derive(Debug)]
pub(crate) struct Oci {
    key: OciKey,
    instances: Vec<Instance>,
    work_requests: HashMap<String, WorkRequest>,
}

#[derive(Debug)]
struct Instance {
    spec: OciInstance,
    vnic_id: String,
    attachment_id: String,
    boot_volume_id: String,
    boot_attachment_id: String,
    progress: Mutex<Progress>,
}

#[derive(Debug)]
struct WorkRequest {
    spec: OciWorkRequest,
    /// The instances that name this work request.
    instance_ids: Vec<String>,
    progress: Mutex<Progress>,
}

impl Oci {
    pub(crate) fn new(section: &OciSection) -> Result<Oci, ScenarioError> {
        let pem = section
            .public_key_pem
            .as_deref()
            .expect("the scenario loader resolves the key file");
        let key = OciKey::from_pem(section.key_id.clone(), pem)
            .map_err(|error| format!("[oci]: {error}"))?;
        let mut work_requests = HashMap::new();
        for spec in &section.work_request {
            let context = format!("[[oci.work_request]] `{}`", spec.id);
            let work_request = WorkRequest {
                spec: spec.clone(),
                instance_ids: Vec::new(),
                progress: Progress::of(&spec.lifecycle, WORK_REQUEST_STATES, &context)?,
            };
            insert_once(&mut work_requests, &spec.id, work_request, &context, "id")?;
        }
        let mut instances: Vec<Instance> = Vec::new();
        for spec in &section.instance {
            let context = format!("[[oci.instance]] `{}`", spec.id);
            let progress = Progress::of(&spec.lifecycle, INSTANCE_STATES, &context)?;
            if instances.iter().any(|instance| instance.spec.id == spec.id) {
                return Err(format!("{context}: the id is used twice").into());
            }
            if let Some(id) = &spec.work_request {
                let work_request = work_requests.get_mut(id).ok_or_else(|| {
                    format!("{context}: no [[oci.work_request]] has the id `{id}`")
                })?;
                work_request.instance_ids.push(spec.id.clone());
            }
            instances.push(Instance {
                vnic_id: derived_id(&spec.id, "vnic"),
                attachment_id: derived_id(&spec.id, "vnicattachment"),
                boot_volume_id: derived_id(&spec.id, "bootvolume"),
                boot_attachment_id: derived_id(&spec.id, "bootvolumeattachment"),
                spec: spec.clone(),
                progress,
            });
        }
        Ok(Oci {
            key,
            instances,
            work_requests,
        })
    }

    fn instance(&self, id: &str) -> Option<&Instance> {
        self.instances
            .iter()
            .find(|instance| instance.spec.id == id)
    }

    fn get_instance(&self, id: &str, context: &Context) -> Response {
        let Some(instance) = self.instance(id) else {
            return self.error(404, context);
        };
        let state = lock(&instance.progress).poll(Instant::now()).to_owned();
        if state == GONE {
            return self.error(404, context);
        }
        let spec = &instance.spec;
        let body = json!({
            "id": spec.id,
            "compartmentId": spec.compartment_id,
            "lifecycleState": state,
            "displayName": spec.display_name.clone().unwrap_or_else(|| format!("instance-{}", short(&spec.id))),
            "availabilityDomain": availability_domain(spec),
            "shape": spec.shape.as_deref().unwrap_or("VM.Standard.E4.Flex"),
            "timeCreated": context.clock.started_rfc3339(true),
        });
        // The etag changes with the state, as OCI's does with any change to the resource.
        let etag = format!("{:016x}", fnv1a(format!("{}/{state}", spec.id).as_bytes()));
        ok(&body, context).with_header("etag", etag)
    }

    /// The instances `place` accepts (and the one `instanceId` names, when given) whose attachments
    /// exist now: the rows of both attachment listings.
    fn attached_instances<'s>(
        &'s self,
        request: &'s Request,
        place: impl Fn(&OciInstance) -> bool + 's,
    ) -> impl Iterator<Item = &'s Instance> + 's {
        let now = Instant::now();
        self.instances.iter().filter(move |instance| {
            place(&instance.spec)
                && request
                    .query("instanceId")
                    .is_none_or(|id| id == instance.spec.id)
                && attached(instance, now)
        })
    }

    /// The attachments of the instances in `compartmentId` (and `instanceId`, when given).
    fn list_attachments(&self, request: &Request, context: &Context) -> Response {
        let Some(compartment) = request.query("compartmentId") else {
            return oci_error(
                400,
                "MissingParameter",
                "compartmentId is required",
                context,
            );
        };
        let attachments: Vec<Value> = self
            .attached_instances(request, |spec| spec.compartment_id == compartment)
            .map(|instance| {
                json!({
                    "id": instance.attachment_id,
                    "instanceId": instance.spec.id,
                    "vnicId": instance.vnic_id,
                    "compartmentId": instance.spec.compartment_id,
                    "availabilityDomain": availability_domain(&instance.spec),
                    "subnetId": instance.spec.subnet_id,
                    "lifecycleState": "ATTACHED",
                })
            })
            .collect();
        ok(&Value::Array(attachments), context)
    }

    /// The boot volume attachments in `availabilityDomain` and `compartmentId` (both required, as
    /// ListBootVolumeAttachments has them), and of `instanceId` when given. A boot volume is
    /// attached while the primary VNIC is.
    fn list_boot_attachments(&self, request: &Request, context: &Context) -> Response {
        let (Some(domain), Some(compartment)) = (
            request.query("availabilityDomain"),
            request.query("compartmentId"),
        ) else {
            return oci_error(
                400,
                "MissingParameter",
                "availabilityDomain and compartmentId are required",
                context,
            );
        };
        let attachments: Vec<Value> = self
            .attached_instances(request, |spec| {
                spec.compartment_id == compartment && availability_domain(spec) == domain
            })
            .map(|instance| {
                json!({
                    "id": instance.boot_attachment_id,
                    "instanceId": instance.spec.id,
                    "bootVolumeId": instance.boot_volume_id,
                    "compartmentId": instance.spec.compartment_id,
                    "availabilityDomain": availability_domain(&instance.spec),
                    "displayName": format!("Remote boot attachment for instance {}", short(&instance.spec.id)),
                    "lifecycleState": "ATTACHED",
                    "timeCreated": context.clock.started_rfc3339(true),
                })
            })
            .collect();
        ok(&Value::Array(attachments), context)
    }

    fn get_vnic(&self, id: &str, context: &Context) -> Response {
        let now = Instant::now();
        let Some(instance) = self
            .instances
            .iter()
            .find(|instance| instance.vnic_id == id && attached(instance, now))
        else {
            return self.error(404, context);
        };
        let spec = &instance.spec;
        let mut body = Map::new();
        body.insert("id".to_owned(), json!(instance.vnic_id));
        body.insert("compartmentId".to_owned(), json!(spec.compartment_id));
        body.insert(
            "availabilityDomain".to_owned(),
            json!(availability_domain(spec)),
        );
        body.insert("isPrimary".to_owned(), json!(true));
        body.insert("lifecycleState".to_owned(), json!("AVAILABLE"));
        // OCI leaves out what a VNIC does not have (a public IP, most often) rather than send null.
        for (name, value) in [
            ("privateIp", &spec.private_ip),
            ("publicIp", &spec.public_ip),
            ("subnetId", &spec.subnet_id),
            ("hostnameLabel", &spec.hostname_label),
        ] {
            if let Some(value) = value {
                body.insert(name.to_owned(), json!(value));
            }
        }
        let etag = format!("{:016x}", fnv1a(instance.vnic_id.as_bytes()));
        ok(&Value::Object(body), context).with_header("etag", etag)
    }

    fn get_work_request(&self, id: &str, errors: bool, context: &Context) -> Response {
        let Some(work_request) = self.work_requests.get(id) else {
            return self.error(404, context);
        };
        let spec = &work_request.spec;
        let status = {
            let mut progress = lock(&work_request.progress);
            // The errors of a work request are a look at it, not a poll.
            if errors {
                progress.peek(Instant::now()).to_owned()
            } else {
                progress.poll(Instant::now()).to_owned()
            }
        };
        if status == GONE {
            return self.error(404, context);
        }
        if errors {
            let message = spec
                .error_message
                .as_deref()
                .unwrap_or("the simulated work request failed");
            let list = if status == "FAILED" {
                json!([{"code": "InternalError", "message": message, "timestamp": context.clock.started_rfc3339(true)}])
            } else {
                json!([])
            };
            return ok(&list, context);
        }
        let operation_type = spec.operation_type.as_deref().unwrap_or("LaunchInstance");
        let action_type = match (status.as_str(), operation_type) {
            ("SUCCEEDED", "LaunchInstance") => "CREATED",
            ("SUCCEEDED", "TerminateInstance") => "DELETED",
            ("SUCCEEDED", _) => "UPDATED",
            ("FAILED", _) => "FAILED",
            _ => "IN_PROGRESS",
        };
        let resources: Vec<Value> = work_request
            .instance_ids
            .iter()
            .map(|id| {
                json!({
                    "entityType": "instance",
                    "actionType": action_type,
                    "identifier": id,
                    "entityUri": format!("{PREFIX}instances/{id}"),
                })
            })
            .collect();
        let percent_complete = match status.as_str() {
            "ACCEPTED" => 0.0,
            "IN_PROGRESS" | "CANCELING" => 50.0,
            _ => 100.0,
        };
        let compartment = spec.compartment_id.clone().or_else(|| {
            let first = work_request.instance_ids.first()?;
            Some(self.instance(first)?.spec.compartment_id.clone())
        });
        let body = json!({
            "id": spec.id,
            "operationType": operation_type,
            "status": status,
            "compartmentId": compartment,
            "percentComplete": percent_complete,
            "resources": resources,
            "timeAccepted": context.clock.started_rfc3339(true),
        });
        ok(&body, context)
    }
}

impl Service for Oci {
    fn owns(&self, path: &str) -> bool {
        path.starts_with(PREFIX)
    }

    fn authenticate(
        &self,
        request: &Request,
        now: SystemTime,
        context: &Context,
    ) -> Result<(), Response> {
        self.key
            .verify(request, now)
            .map_err(|message| oci_error(401, "NotAuthenticated", &message.to_string(), context))
    }

    fn answer(&self, request: &Request, context: &Context) -> Response {
        let rest = &request.path[PREFIX.len()..];
        let segments: Vec<&str> = rest.split('/').collect();
        match segments.as_slice() {
            ["instances", id] => self.get_instance(id, context),
            ["vnicAttachments"] => self.list_attachments(request, context),
            ["bootVolumeAttachments"] => self.list_boot_attachments(request, context),
            ["vnics", id] => self.get_vnic(id, context),
            ["workRequests", id] => self.get_work_request(id, false, context),
            ["workRequests", id, "errors"] => self.get_work_request(id, true, context),
            _ => self.error(404, context),
        }
    }

    fn error(&self, status: u16, context: &Context) -> Response {
        let (code, message) = match status {
            404 => (
                "NotAuthorizedOrNotFound",
                "Authorization failed or requested resource not found.",
            ),
            429 => ("TooManyRequests", "Too many requests for the user."),
            503 => ("ServiceUnavailable", "The service is unavailable."),
            _ => ("InternalServerError", "Internal error."),
        };
        oci_error(status, code, message, context)
    }
}

fn ok(body: &Value, context: &Context) -> Response {
    Response::json(200, body).with_header("opc-request-id", request_id(context))
}

fn oci_error(status: u16, code: &str, message: &str, context: &Context) -> Response {
    Response::json(status, &json!({"code": code, "message": message}))
        .with_header("opc-request-id", request_id(context))
}

/// A request id, unique within a run, to match a client's log line with `-v` output.
fn request_id(context: &Context) -> String {
    format!("sim/{:08}", context.next_request_id())
}

fn attached(instance: &Instance, now: Instant) -> bool {
    ATTACHED_STATES.contains(&lock(&instance.progress).peek(now))
}

fn availability_domain(spec: &OciInstance) -> &str {
    spec.availability_domain
        .as_deref()
        .unwrap_or("Uocm:PHX-AD-1")
}

/// The id of an instance's VNIC or attachment: `ocid1.instance.oc1..a` gives `ocid1.vnic.oc1..a`.
fn derived_id(instance_id: &str, kind: &str) -> String {
    match instance_id.strip_prefix("ocid1.instance.") {
        Some(rest) => format!("ocid1.{kind}.{rest}"),
        None => format!("{instance_id}-{kind}"),
    }
}

/// The tail of an OCID, for default display names.
fn short(id: &str) -> &str {
    id.rsplit('.').next().unwrap_or(id)
}

fn lock(progress: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    progress.lock().expect("a lifecycle is never poisoned")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oci_signature::tests::{KEY_ID, PUBLIC_KEY};

    fn section(instances: &str) -> OciSection {
        let text =
            format!("key_id = \"{KEY_ID}\"\npublic_key_pem = '''{PUBLIC_KEY}'''\n{instances}");
        toml::from_str(&text).unwrap()
    }

    #[test]
    fn vnic_ids_follow_the_instance_id() {
        assert_eq!(
            derived_id("ocid1.instance.oc1.phx.abc", "vnic"),
            "ocid1.vnic.oc1.phx.abc"
        );
        assert_eq!(derived_id("i-1", "vnicattachment"), "i-1-vnicattachment");
    }

    #[test]
    fn refuses_bad_scenarios_with_the_object_named() {
        let error = Oci::new(&section(
            "[[instance]]\nid = \"a\"\ncompartment_id = \"c\"\nlifecycle = [\"RUNING\"]",
        ))
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("[[oci.instance]] `a`: step `RUNING`"),
            "{error}"
        );
        let error = Oci::new(&section(
            "[[instance]]\nid = \"a\"\ncompartment_id = \"c\"\nlifecycle = [\"RUNNING\"]\nwork_request = \"w\"",
        ))
        .unwrap_err().to_string();
        assert!(
            error.contains("no [[oci.work_request]] has the id `w`"),
            "{error}"
        );
        let twice = "[[instance]]\nid = \"a\"\ncompartment_id = \"c\"\nlifecycle = [\"RUNNING\"]\n";
        let error = Oci::new(&section(&twice.repeat(2)))
            .unwrap_err()
            .to_string();
        assert!(error.contains("used twice"), "{error}");
    }
}
