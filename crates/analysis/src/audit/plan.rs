//! Reading a plan as `terraform show -json PLAN` (or `tofu show -json PLAN`) prints it: only what the
//! audit needs, every `resource_changes` entry's address, deposed key and actions.

use serde::Deserialize;
use statectl_state::json::LineColumn;
use statectl_state::state::address::{InstanceAddr, Mode, ObjectAddr};

/// What a plan does to one object, from its `change.actions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlannedAction {
    /// `no-op`, `read`, `create`, `update`: nothing existing is destroyed or dropped.
    Keep,
    Delete,
    Forget,
    /// `["delete", "create"]`: destroyed, then a new one created.
    DeleteThenCreate,
    /// `["create", "delete"]`: created first (create_before_destroy), then the old one destroyed.
    CreateThenDelete,
    /// `["create", "forget"]` or `["forget", "create"]`: the old object is forgotten, not destroyed,
    /// and stays in the cloud unmanaged.
    ReplaceForgetting,
}

impl PlannedAction {
    fn from_actions(actions: &[String]) -> Option<PlannedAction> {
        let actions: Vec<&str> = actions.iter().map(String::as_str).collect();
        Some(match actions[..] {
            ["no-op" | "read" | "create" | "update"] => PlannedAction::Keep,
            ["delete"] => PlannedAction::Delete,
            ["forget"] => PlannedAction::Forget,
            ["delete", "create"] => PlannedAction::DeleteThenCreate,
            ["create", "delete"] => PlannedAction::CreateThenDelete,
            ["create", "forget"] | ["forget", "create"] => PlannedAction::ReplaceForgetting,
            _ => return None,
        })
    }

    /// Whether the existing object is destroyed.
    pub fn deletes(self) -> bool {
        matches!(
            self,
            PlannedAction::Delete
                | PlannedAction::DeleteThenCreate
                | PlannedAction::CreateThenDelete
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PlannedAction::Keep => "keep",
            PlannedAction::Delete => "delete",
            PlannedAction::Forget => "forget",
            PlannedAction::DeleteThenCreate => "replace (delete, then create)",
            PlannedAction::CreateThenDelete => "replace (create, then delete)",
            PlannedAction::ReplaceForgetting => "replace (the old object forgotten)",
        }
    }
}

/// One `resource_changes` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedChange {
    pub address: ObjectAddr,
    pub type_name: String,
    pub action: PlannedAction,
    /// `action_reason`, when the plan gives one (`replace_because_tainted`, ...).
    pub reason: Option<String>,
}

/// The plan's changes, in its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub terraform_version: Option<String>,
    pub changes: Vec<PlannedChange>,
}

/// Why a plan cannot be read: what, where in the file when known, and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    pub at: Option<LineColumn>,
    pub message: String,
    pub hint: Option<String>,
}

impl PlanError {
    fn new(message: String) -> PlanError {
        PlanError {
            at: None,
            message,
            hint: None,
        }
    }

    fn with_hint(mut self, hint: &str) -> PlanError {
        self.hint = Some(hint.to_owned());
        self
    }
}

#[derive(Deserialize)]
struct PlanFile {
    format_version: Option<String>,
    terraform_version: Option<String>,
    /// Terraform 1.6+ (`format_version` 1.2): the plan stopped at an error and was saved anyway.
    errored: Option<bool>,
    resource_changes: Option<Vec<ChangeFile>>,
}

#[derive(Deserialize)]
struct ChangeFile {
    address: String,
    mode: Option<String>,
    #[serde(rename = "type")]
    type_name: String,
    deposed: Option<String>,
    change: ActionsFile,
    action_reason: Option<String>,
}

#[derive(Deserialize)]
struct ActionsFile {
    actions: Vec<String>,
}

impl Plan {
    /// Parses the plan JSON `text`; errors are one line (with line:column for JSON errors) and a hint.
    pub fn parse(text: &str) -> Result<Plan, PlanError> {
        let file: PlanFile = serde_json::from_str(text).map_err(|error| PlanError {
            at: Some(LineColumn {
                line: error.line(),
                column: error.column(),
            }),
            message: format!("invalid plan JSON: {error}"),
            hint: None,
        })?;
        let Some(entries) = file.resource_changes else {
            let hint = if text.contains("\"lineage\"") {
                "this looks like a state; the plan is what `terraform show -json PLANFILE` prints"
            } else {
                "give what `terraform show -json PLANFILE` (or `tofu show -json PLANFILE`) prints"
            };
            return Err(PlanError {
                at: None,
                message: "not a plan: it has no `resource_changes`".to_owned(),
                hint: Some(hint.to_owned()),
            });
        };
        check_format_version(file.format_version.as_deref())?;
        if file.errored == Some(true) {
            // What such a plan lists is what Terraform had planned when it stopped: a `plan
            // -destroy` of a `prevent_destroy` resource still lists its delete. Terraform
            // refuses to apply it; auditing it as a plan would approve what cannot happen.
            return Err(PlanError::new(
                "the plan errored (`\"errored\": true`): Terraform stopped at an error and saved what it had planned so far, which is not a plan to apply or approve".to_owned(),
            )
            .with_hint("read the errors `terraform plan` printed, fix them and plan again; `statectl audit` without `--plan` shows what a destroy would meet (`prevent_destroy` included)"));
        }
        let mut changes = Vec::with_capacity(entries.len());
        for entry in entries {
            let instance = InstanceAddr::parse(&entry.address).map_err(|error| {
                PlanError::new(format!(
                    "resource change `{}`: invalid address: {error}",
                    entry.address
                ))
            })?;
            let expected_mode = if entry.mode.as_deref() == Some("data") {
                Mode::Data
            } else {
                Mode::Managed
            };
            if instance.resource.mode != expected_mode {
                return Err(PlanError::new(format!(
                    "resource change `{}`: its mode is `{}`",
                    entry.address,
                    entry.mode.unwrap_or_default()
                )));
            }
            let action = PlannedAction::from_actions(&entry.change.actions).ok_or_else(|| {
                PlanError {
                    at: None,
                    message: format!(
                        "resource change `{}`: unknown actions {:?}",
                        entry.address, entry.change.actions
                    ),
                    hint: Some("statectl knows the actions of Terraform and OpenTofu plans, `forget` included".to_owned()),
                }
            })?;
            changes.push(PlannedChange {
                address: ObjectAddr {
                    instance,
                    deposed: entry.deposed,
                },
                type_name: entry.type_name,
                action,
                reason: entry.action_reason,
            });
        }
        Ok(Plan {
            terraform_version: file.terraform_version,
            changes,
        })
    }
}

/// The plan formats statectl reads: major version 1 (Terraform 1.1 and later, OpenTofu) and 0 (the
/// format of Terraform 0.12 to 1.0), whose minor versions only add. Another major version changes
/// what the fields mean; a plan without one is not what `terraform show -json` prints.
fn check_format_version(version: Option<&str>) -> Result<(), PlanError> {
    let hint =
        "make the plan JSON with `terraform show -json PLANFILE` (or `tofu show -json PLANFILE`)";
    let Some(version) = version else {
        return Err(PlanError {
            at: None,
            message: "not a plan: it has no `format_version`".to_owned(),
            hint: Some(hint.to_owned()),
        });
    };
    let major = version.split('.').next().unwrap_or_default();
    if matches!(major, "0" | "1") && version.split('.').all(|part| part.parse::<u32>().is_ok()) {
        return Ok(());
    }
    Err(PlanError {
        at: None,
        message: format!(
            "the plan's format version `{}` is not one statectl reads (it reads 0.x and 1.x, what Terraform 0.12 and later and OpenTofu write)",
            // The CLI escapes control characters; a version is short, a hostile one is cut.
            version.chars().take(40).collect::<String>()
        ),
        hint: Some(hint.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_every_action_list_terraform_and_opentofu_write() {
        let cases: &[(&[&str], PlannedAction)] = &[
            (&["no-op"], PlannedAction::Keep),
            (&["create"], PlannedAction::Keep),
            (&["update"], PlannedAction::Keep),
            (&["read"], PlannedAction::Keep),
            (&["delete"], PlannedAction::Delete),
            (&["forget"], PlannedAction::Forget),
            (&["delete", "create"], PlannedAction::DeleteThenCreate),
            (&["create", "delete"], PlannedAction::CreateThenDelete),
            (&["create", "forget"], PlannedAction::ReplaceForgetting),
            (&["forget", "create"], PlannedAction::ReplaceForgetting),
        ];
        for (actions, expected) in cases {
            let actions: Vec<String> = actions.iter().map(|action| (*action).to_owned()).collect();
            assert_eq!(
                PlannedAction::from_actions(&actions),
                Some(*expected),
                "{actions:?}"
            );
        }
        assert_eq!(PlannedAction::from_actions(&["explode".to_owned()]), None);
        assert!(PlannedAction::CreateThenDelete.deletes());
        assert!(!PlannedAction::Forget.deletes());
        assert!(!PlannedAction::ReplaceForgetting.deletes());
    }

    #[test]
    fn reads_deposed_entries_and_reasons() {
        let plan = Plan::parse(
            r#"{"format_version":"1.2","terraform_version":"1.15.5","resource_changes":[
              {"address":"module.a[\"k\"].x.y[0]","mode":"managed","type":"x","name":"y","change":{"actions":["create","delete"]},"action_reason":"replace_because_tainted"},
              {"address":"x.z","mode":"managed","type":"x","name":"z","deposed":"0badcafe","change":{"actions":["delete"]}}]}"#,
        )
        .unwrap();
        assert_eq!(
            plan.changes[0].address.to_string(),
            "module.a[\"k\"].x.y[0]"
        );
        assert_eq!(
            plan.changes[0].reason.as_deref(),
            Some("replace_because_tainted")
        );
        assert_eq!(
            plan.changes[1].address.to_string(),
            "x.z (deposed object 0badcafe)"
        );
    }

    #[test]
    fn refuses_states_and_broken_json_with_a_place_or_a_hint() {
        let error = Plan::parse(r#"{"version":4,"lineage":"x","resources":[]}"#).unwrap_err();
        assert_eq!(error.message, "not a plan: it has no `resource_changes`");
        assert!(error.hint.unwrap().contains("looks like a state"));
        let error = Plan::parse("{\n  \"resource_changes\": [,\n").unwrap_err();
        assert_eq!(error.at.map(|at| at.line), Some(2), "{error:?}");
    }

    /// Terraform 1.15.5 saves the plan of a `plan -destroy` that a `prevent_destroy` stopped,
    /// marked errored, with the delete it refused still listed.
    #[test]
    fn refuses_a_plan_terraform_marked_errored() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../testdata/audit/prevent-destroy/plan-destroy.json"),
        )
        .unwrap();
        let error = Plan::parse(&text).unwrap_err();
        assert!(
            error
                .message
                .starts_with("the plan errored (`\"errored\": true`)"),
            "{error:?}"
        );
        assert!(error.hint.unwrap().contains("without `--plan`"));
        let finished = text.replace("\"errored\": true", "\"errored\": false");
        assert_eq!(Plan::parse(&finished).unwrap().changes.len(), 2);
    }

    /// Issue 24, item 22: a plan with `format_version` "99", or none, was read as if it were 1.x.
    #[test]
    fn refuses_a_format_version_it_does_not_know() {
        let plan = |version: &str| format!(r#"{{{version}"resource_changes":[]}}"#);
        for known in ["0.1", "0.2", "1.0", "1.2", "1.9"] {
            assert!(
                Plan::parse(&plan(&format!(r#""format_version":"{known}","#))).is_ok(),
                "{known}"
            );
        }
        for unknown in ["99", "2.0", "", "1.x", "v1"] {
            let error =
                Plan::parse(&plan(&format!(r#""format_version":"{unknown}","#))).unwrap_err();
            assert_eq!(
                error.message,
                format!(
                    "the plan's format version `{unknown}` is not one statectl reads (it reads 0.x and 1.x, what Terraform 0.12 and later and OpenTofu write)"
                )
            );
        }
        let error = Plan::parse(&plan("")).unwrap_err();
        assert_eq!(error.message, "not a plan: it has no `format_version`");
    }
}
