//! The scenario file: which objects the simulator serves, how each one's state moves, which
//! credentials it accepts, and which faults it injects. SCENARIO.md beside this file is the long form
//! with a full example; this is the reference.
//!
//! ```toml
//! [oci]                                   # OCI Core Services, API 20160918
//! key_id = "ocid1.tenancy.oc1..t/ocid1.user.oc1..u/36:62:75:44"  # the signature's keyId
//! public_key_file = "key.pub.pem"         # relative to this file; or public_key_pem = """-----BEGIN..."""
//!
//! [[oci.instance]]
//! id = "ocid1.instance.oc1..a"
//! compartment_id = "ocid1.compartment.oc1..c"
//! lifecycle = ["PROVISIONING:3", "RUNNING"]   # every GET of the instance is one poll
//! private_ip = "10.0.0.5"                 # these four appear on the VNIC once the instance runs
//! public_ip = "129.146.0.5"
//! subnet_id = "ocid1.subnet.oc1..s"
//! hostname_label = "web-1"
//! # optional: display_name, availability_domain, shape, work_request (an [[oci.work_request]] id,
//! # which then lists this instance among its resources)
//!
//! [[oci.work_request]]
//! id = "ocid1.workrequest.oc1..w"
//! operation_type = "LaunchInstance"       # optional; also compartment_id, error_message (FAILED)
//! lifecycle = ["ACCEPTED:1", "IN_PROGRESS:2", "SUCCEEDED"]
//!
//! [cf]                                    # Cloud Foundry Cloud Controller v3
//! token = "t0ken"                         # the bearer token it accepts
//!
//! [[cf.service_instance]]
//! guid = "5d3e..."
//! name = "db"
//! last_operation_type = "create"          # create | update | delete
//! lifecycle = ["initial:1", "in progress:2", "succeeded"]
//! # or deleted = true (every GET answers 404); optional description
//!
//! [[cf.job]]
//! guid = "b1c2..."
//! operation = "service_instance.create"   # optional; also error (the detail of FAILED)
//! lifecycle = ["PROCESSING:1", "POLLING:2", "COMPLETE"]
//!
//! [osb]                                   # Open Service Broker v2 (2.13 and later)
//! username = "broker"
//! password = "secret"
//!
//! [[osb.instance]]
//! id = "i-1"
//! service_id = "svc"
//! plan_id = "plan"
//! operation = "op-123"                    # optional; when set, a poll must echo it
//! kind = "deprovision"                    # provision | update | deprovision
//! lifecycle = ["in progress:2", "gone"]   # gone answers 410
//! # optional: description, retry_after (seconds, sent while in progress), retry_after_form,
//! # instance_usable and update_repeatable (sent with failed)
//!
//! [faults]                                # every field optional
//! seed = 42                               # the same seed, the same faults (default 0)
//! latency = "20ms"                        # before every answer
//! rate_429 = 0.05                         # share of requests answered 429 ...
//! retry_after = 1                         # ... with Retry-After: 1 (default 1)
//! retry_after_form = "seconds"            # or "http-date"
//! rate_500 = 0.0
//! rate_503 = 0.0
//! rate_reset = 0.0                        # closed with a TCP reset, no answer
//! not_found_first = 2                     # eventual consistency: first N requests of a target 404
//! slow_body = "200ms"                     # headers at once, body trickled over this long
//!
//! [[faults.path]]                         # overrides [faults] for paths under a prefix
//! prefix = "/v2/"
//! rate_503 = 0.2
//! ```
//!
//! Lifecycle steps are `STATE:N` (answered for N polls), `STATE@DURATION` (answered for that long,
//! timed from the first poll) and, last, a plain `STATE` that lasts forever. `gone` ends any
//! lifecycle: the object is deleted (OCI and CF answer 404, OSB 410).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::faults::{FaultTable, RetryAfterForm};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    pub oci: Option<OciSection>,
    pub cf: Option<CfSection>,
    pub osb: Option<OsbSection>,
    #[serde(default)]
    pub faults: FaultTable,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OciSection {
    pub key_id: String,
    pub public_key_pem: Option<String>,
    pub public_key_file: Option<PathBuf>,
    #[serde(default)]
    pub instance: Vec<OciInstance>,
    #[serde(default)]
    pub work_request: Vec<OciWorkRequest>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OciInstance {
    pub id: String,
    pub compartment_id: String,
    pub lifecycle: Vec<String>,
    pub display_name: Option<String>,
    pub availability_domain: Option<String>,
    pub shape: Option<String>,
    pub private_ip: Option<String>,
    pub public_ip: Option<String>,
    pub subnet_id: Option<String>,
    pub hostname_label: Option<String>,
    pub work_request: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OciWorkRequest {
    pub id: String,
    pub lifecycle: Vec<String>,
    pub compartment_id: Option<String>,
    pub operation_type: Option<String>,
    pub error_message: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CfSection {
    pub token: String,
    #[serde(default)]
    pub service_instance: Vec<CfServiceInstance>,
    #[serde(default)]
    pub job: Vec<CfJob>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CfServiceInstance {
    pub guid: String,
    pub name: String,
    #[serde(default = "default_cf_operation_type")]
    pub last_operation_type: String,
    #[serde(default)]
    pub lifecycle: Vec<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub deleted: bool,
}

fn default_cf_operation_type() -> String {
    "create".to_owned()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CfJob {
    pub guid: String,
    pub lifecycle: Vec<String>,
    pub operation: Option<String>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OsbSection {
    pub username: String,
    pub password: String,
    #[serde(default)]
    pub instance: Vec<OsbInstance>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OsbInstance {
    pub id: String,
    pub service_id: String,
    pub plan_id: String,
    pub operation: Option<String>,
    pub kind: OsbKind,
    pub lifecycle: Vec<String>,
    pub description: Option<String>,
    pub retry_after: Option<u64>,
    #[serde(default)]
    pub retry_after_form: RetryAfterForm,
    pub instance_usable: Option<bool>,
    pub update_repeatable: Option<bool>,
}

/// The asynchronous operation an OSB instance is in; it decides what a 410 means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum OsbKind {
    Provision,
    Update,
    Deprovision,
}

/// A scenario that cannot be used: unreadable, not TOML of the right shape, or a section that does not
/// validate (which names its table).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScenarioError {
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A problem inside the file at `path`.
    #[error("`{}`: {source}", path.display())]
    In {
        path: PathBuf,
        source: Box<ScenarioError>,
    },
    #[error("{0}")]
    Toml(#[from] toml::de::Error),
    #[error("[oci] public_key_file `{}`: {source}", file.display())]
    KeyFile {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("[oci] needs exactly one of `public_key_pem` and `public_key_file`")]
    KeyChoice,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Faults(#[from] crate::faults::RuleError),
}

impl From<String> for ScenarioError {
    fn from(message: String) -> ScenarioError {
        ScenarioError::Invalid(message)
    }
}

/// Files `value` under `key`, refusing a key `context` (the object) already used: `what` names
/// the key (`id`, `guid`).
pub(crate) fn insert_once<V>(
    map: &mut std::collections::HashMap<String, V>,
    key: &str,
    value: V,
    context: &str,
    what: &str,
) -> Result<(), ScenarioError> {
    if map.insert(key.to_owned(), value).is_some() {
        return Err(format!("{context}: the {what} is used twice").into());
    }
    Ok(())
}

impl Scenario {
    /// Reads the scenario at `path`; a relative `public_key_file` is read from beside it.
    pub(crate) fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_owned(),
            source,
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Scenario::parse(&text, base).map_err(|source| ScenarioError::In {
            path: path.to_owned(),
            source: Box::new(source),
        })
    }

    /// Parses scenario `text`, reading key files relative to `base`.
    pub(crate) fn parse(text: &str, base: &Path) -> Result<Scenario, ScenarioError> {
        let mut scenario: Scenario = toml::from_str(text)?;
        if let Some(oci) = &mut scenario.oci {
            match (&oci.public_key_pem, &oci.public_key_file) {
                (Some(_), None) => {}
                (None, Some(file)) => {
                    let file = base.join(file);
                    let pem = std::fs::read_to_string(&file)
                        .map_err(|source| ScenarioError::KeyFile { file, source })?;
                    oci.public_key_pem = Some(pem);
                }
                _ => {
                    return Err(ScenarioError::KeyChoice);
                }
            }
        }
        Ok(scenario)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/sim")
    }

    #[test]
    fn reads_the_key_file_beside_the_scenario() {
        let scenario = Scenario::load(&sim_dir().join("demo.toml")).unwrap();
        let oci = scenario.oci.unwrap();
        assert!(
            oci.public_key_pem
                .unwrap()
                .starts_with("-----BEGIN PUBLIC KEY-----")
        );
        assert_eq!(scenario.osb.unwrap().instance[0].kind, OsbKind::Provision);
    }

    #[test]
    fn errors_name_the_file_and_the_line() {
        let error = Scenario::parse("[oci]\nkey_id = 1\n", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(error.contains("line 2"), "{error}");
        let error = Scenario::parse("[cf]\ntoken = \"t\"\ntypo = 1\n", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown field `typo`"), "{error}");
        let error = Scenario::parse("[oci]\nkey_id = \"k\"\n", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(error.contains("exactly one of"), "{error}");
        let error = Scenario::parse(
            "[oci]\nkey_id = \"k\"\npublic_key_file = \"missing.pem\"\n",
            &sim_dir(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("missing.pem"), "{error}");
        let error = Scenario::load(Path::new("no/such.toml"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("cannot read `no/such.toml`"), "{error}");
    }
}
