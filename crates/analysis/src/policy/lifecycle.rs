//! The lifecycle rules: judged on a planned mutation before anything is written. Each rule says why a
//! change would hurt, so a blocked command can list every reason at once (exit 3) and `--force` can
//! name each rule it overrides.

use std::fmt;

use statectl_state::state::address::ObjectAddr;
use statectl_state::state::attr_path::Attributes;
use statectl_state::state::model::State;
use statectl_state::state::mutate::{Action, Plan, Step, object_of};
use statectl_state::state::write::Change;
use statectl_tfconfig::{Config, ConfigResource};

use crate::policy::file::Policy;
use crate::scan::catalog::Catalog;
use crate::scan::secrets::Secrets;
use crate::scan::status::{RemoteStatus, RulePathError, object_status};

/// What the rules read besides the state: the status catalog, the configuration's lifecycle blocks
/// (`--config`), and the policy's protections.
#[derive(Debug, Clone, Copy)]
pub struct Context<'c> {
    pub catalog: &'c Catalog,
    pub config: Option<&'c Config>,
    pub policy: &'c Policy,
}

/// The rules, with stable ids (shown, and usable in scripts that read the JSON output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Tainting an object OpenTofu must not destroy (`skip_destroy`, or `destroy = false` in config).
    SkipDestroy,
    /// Tainting an object whose create (or update) has not finished.
    MidOperation,
    /// Changing a Cloud Foundry service object while Cloud Controller runs an operation on it.
    OperationInProgress,
    /// Tainting or forgetting what the configuration marks `prevent_destroy`.
    PreventDestroy,
    /// A type or address the policy file protects.
    Protected,
}

impl Rule {
    pub fn id(self) -> &'static str {
        match self {
            Rule::SkipDestroy => "skip-destroy",
            Rule::MidOperation => "mid-operation",
            Rule::OperationInProgress => "operation-in-progress",
            Rule::PreventDestroy => "prevent-destroy",
            Rule::Protected => "protected",
        }
    }
}

/// One refused step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub action: Action,
    pub address: ObjectAddr,
    /// Why, in a sentence that names the evidence.
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{} `{}` [{}]: {}",
            self.action.as_str(),
            self.address,
            self.rule.id(),
            self.message
        )
    }
}

/// Every rule every step of `plan` breaks; an error when a rules file's JSONPath needs more work than
/// an object's attributes allow.
pub fn check(
    state: &State<'_>,
    plan: &Plan,
    context: &Context<'_>,
) -> Result<Vec<Violation>, RulePathError> {
    let mut violations = Vec::new();
    for step in &plan.steps {
        let (resource, object) = object_of(state, step.object);
        let type_name = resource.address.type_name.as_str();
        let mut refuse = |rule: Rule, message: String, hint: Option<String>| {
            violations.push(Violation {
                rule,
                action: step.action,
                address: step.address.clone(),
                message,
                hint,
            });
        };
        // Hints name the commands with this object's own address, ready to paste; built only for a
        // refusal (a refresh checks thousands of steps).
        let instance = || step.address.instance.to_string();
        let attributes = judged_attributes(step, object.attributes_json(state.source));
        let status = object_status(
            context.catalog,
            type_name,
            &step.address,
            attributes.as_ref(),
        )?;
        // Built only for a refusal, as the hints are.
        let secrets = || Secrets::of(object, type_name, state.source);
        let refresh = is_refresh(step.action);
        let cloud_foundry_service = type_name.starts_with("cloudfoundry_service_");
        if cloud_foundry_service && status.in_progress() && !refresh {
            refuse(
                Rule::OperationInProgress,
                format!(
                    "Cloud Foundry is still running an operation on it ({}); Cloud Controller refuses every other change meanwhile (\"Another operation for this service instance is in progress\")",
                    evidence(&status, &secrets())
                ),
                Some(format!(
                    "refresh it until the operation ends: `{}`",
                    crate::scan::hint::refresh_command(context.catalog, &instance(), type_name)
                )),
            );
        } else if step.action.taints() && status.in_progress() {
            refuse(
                Rule::MidOperation,
                // Names the operation the status shows, as scan, refresh and the audit do.
                format!(
                    "its remote object is {}; replacing an object whose operation has not finished can orphan it",
                    attributes.as_ref().map_or_else(
                        || format!("still mid-operation ({})", evidence(&status, &secrets())),
                        |attributes| status.describe_hiding(attributes, &secrets())
                    )
                ),
                Some(refresh_first(
                    context,
                    &instance(),
                    type_name,
                    object.tainted,
                )),
            );
        }
        let configured = context
            .config
            .and_then(|config| config.resource(&resource.address));
        if step.action.taints() {
            if object.skip_destroy {
                refuse(
                    Rule::SkipDestroy,
                    "the state marks it `skip_destroy` (OpenTofu's `lifecycle { destroy = false }`): OpenTofu would forget the tainted object instead of destroying it and create a second remote object beside the first".to_owned(),
                    Some("to replace it, remove `destroy = false` from its lifecycle block and apply first".to_owned()),
                );
            } else if let Some(block) = configured.filter(|block| block.destroy == Some(false)) {
                refuse(
                    Rule::SkipDestroy,
                    format!(
                        "its configuration ({}) sets `lifecycle {{ destroy = false }}`: the tainted object would be forgotten, not destroyed, and a second one created beside it",
                        place(block)
                    ),
                    None,
                );
            }
        }
        if let Some(block) = configured.filter(|block| block.prevent_destroy)
            && let Some(why) = prevent_destroy_breaks(step.action)
        {
            refuse(
                Rule::PreventDestroy,
                format!(
                    "its configuration ({}) sets `prevent_destroy = true`; {why}",
                    place(block)
                ),
                None,
            );
        }
        for message in protections(context, step, type_name) {
            refuse(Rule::Protected, message, None);
        }
    }
    Ok(violations)
}

/// Whether `action` is a refresh's (with or without a change of taint).
fn is_refresh(action: Action) -> bool {
    matches!(
        action,
        Action::Refresh | Action::RefreshTaint | Action::RefreshUntaint
    )
}

/// What to do instead of tainting an object mid-operation: refresh first; then only an object that
/// is tainted already has a taint to clear.
fn refresh_first(context: &Context<'_>, instance: &str, type_name: &str, tainted: bool) -> String {
    let refresh = crate::scan::hint::refresh_command(context.catalog, instance, type_name);
    if tainted {
        format!(
            "refresh it first (`{refresh}`); if the object turns out healthy, `{}` is the fix",
            crate::scan::hint::untaint_command(instance)
        )
    } else {
        format!(
            "refresh it first (`{refresh}`), and taint it only if the remote object turns out broken"
        )
    }
}

/// Why `prevent_destroy` forbids `action`, if it does.
fn prevent_destroy_breaks(action: Action) -> Option<&'static str> {
    match action {
        Action::Taint | Action::RefreshTaint => Some(
            "a tainted object must be destroyed to be replaced, and its configuration forbids that",
        ),
        Action::Forget => Some(
            "forgetting it drops the protection: Terraform would no longer know the object exists",
        ),
        Action::Untaint | Action::Refresh | Action::RefreshUntaint => None,
    }
}

/// The attributes `step` judges its object by: a refresh, by what it learned; everything else by
/// what the state holds (`stored`).
fn judged_attributes<'a>(step: &'a Step, stored: Option<&'a str>) -> Option<Attributes<'a>> {
    let learned = step.changes.iter().find_map(|change| match change {
        Change::Set {
            field: "attributes",
            json,
        } => Some(json.as_str()),
        _ => None,
    });
    learned.or(stored).map(Attributes::new)
}

/// The policy's `[[protect]]` entries that cover `step`, each as its refusal's message.
fn protections(context: &Context<'_>, step: &Step, type_name: &str) -> Vec<String> {
    let address = step.address.instance.to_string();
    let mut messages = Vec::new();
    for protection in &context.policy.protect {
        let covered = protection.actions.contains(&step.action)
            || (step.action == Action::RefreshTaint && protection.actions.contains(&Action::Taint))
            || (step.action == Action::RefreshUntaint
                && protection.actions.contains(&Action::Untaint));
        if !covered {
            continue;
        }
        if let Some(pattern) = protection.pattern_for(type_name, &address) {
            let source = context.policy.source.as_ref().map_or_else(
                || "the policy".to_owned(),
                |path| path.display().to_string(),
            );
            let reason = protection
                .reason
                .as_deref()
                .map_or_else(String::new, |reason| format!(": {reason}"));
            messages.push(format!("{source} protects `{pattern}`{reason}"));
        }
    }
    messages
}

/// The transitional values a refusal quotes, `path = value, ...`: never the value of an attribute
/// `secrets` covers.
fn evidence(status: &RemoteStatus, secrets: &Secrets) -> String {
    status
        .hiding(secrets)
        .transitional
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `main.tf:12`, or the file alone for a block from the JSON syntax (which keeps no lines).
fn place(block: &ConfigResource) -> String {
    if block.line == 0 {
        block.file.display().to_string()
    } else {
        format!("{}:{}", block.file.display(), block.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::scan_fixture as fixture;
    use statectl_state::state::mutate::{Mutation, plan};

    /// A refresh that learned the object failed proposes a taint: judged by the new status (no
    /// longer mid-operation), and by every rule a taint answers to.
    #[test]
    fn a_refresh_that_taints_is_judged_by_what_it_learned_and_as_a_taint() {
        let catalog = Catalog::builtin();
        let policy = Policy::default();
        let context = Context {
            catalog: &catalog,
            config: None,
            policy: &policy,
        };
        let bytes = fixture("oci-async-provisioning.tfstate");
        let state = statectl_state::state::parse(&bytes).unwrap();
        let (_, instance) = state
            .instances()
            .find(|(resource, _)| resource.address.type_name == "oci_core_instance")
            .unwrap();
        let old = instance.attributes_json(state.source).unwrap();
        let failed = old.replace("\"PROVISIONING\"", "\"TERMINATED\"");
        let address: statectl_state::state::address::InstanceAddr =
            "oci_core_instance.app".parse().unwrap();
        let refresh = |attributes: &str, taint: bool| {
            plan(
                &state,
                &[Mutation::Refresh {
                    instance: address.clone(),
                    changes: vec![Change::Set {
                        field: "attributes",
                        json: attributes.to_owned(),
                    }],
                    taint,
                    untaint: false,
                }],
            )
            .unwrap()
        };
        let tainting = refresh(&failed, true);
        assert_eq!(tainting.steps[0].action, Action::RefreshTaint);
        assert_eq!(check(&state, &tainting, &context).unwrap(), Vec::new());
        // The same taint on what the state still says (PROVISIONING) is refused.
        let taint = plan(&state, &[Mutation::Taint(address.clone())]).unwrap();
        assert_eq!(
            check(&state, &taint, &context).unwrap()[0].rule,
            Rule::MidOperation
        );
        // A tainting refresh of an OpenTofu skip_destroy object is refused like a taint.
        let bytes = fixture("opentofu-skip-destroy.tfstate");
        let state = statectl_state::state::parse(&bytes).unwrap();
        let bucket: statectl_state::state::address::InstanceAddr =
            "aws_s3_bucket.audit_logs".parse().unwrap();
        let plan = plan(
            &state,
            &[Mutation::Refresh {
                instance: bucket,
                changes: Vec::new(),
                taint: true,
                untaint: false,
            }],
        )
        .unwrap();
        let violations = check(&state, &plan, &context).unwrap();
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].rule, Rule::SkipDestroy);
        assert_eq!(violations[0].action, Action::RefreshTaint);
    }
}
