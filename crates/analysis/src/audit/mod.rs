//! The pre-destroy audit: what a destroy would do to each managed object of a state (destroy it,
//! forget it, or fail on `prevent_destroy`), or, given a plan, what that plan does, and which of those
//! deletions remove something protected (by the policy, by `prevent_destroy`, by OpenTofu's
//! `skip_destroy`) or still mid-operation. Shares the lifecycle inputs of `policy`: the configuration's
//! lifecycle blocks and the policy file.

mod plan;
mod rules;

use statectl_state::state::address::{Mode, ObjectAddr};
use statectl_state::state::attr_path::Attributes;
use statectl_state::state::model::{Instance, Resource, State};
use statectl_state::state::mutate::Action;
use statectl_state::state::order::{find_group, instance_groups};
use statectl_tfconfig::{Config, ConfigResource};

use crate::policy::file::Policy;
use crate::scan::catalog::Catalog;
use crate::scan::hint;
use crate::scan::secrets::Secrets;
use crate::scan::status::{Operation, RemoteStatus, RulePathError, object_status};
use crate::scan::{Evidence, Finding};

pub use plan::{Plan, PlannedAction, PlannedChange};
pub use rules::Rule;

/// What the audit reads.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub state: &'a State<'a>,
    pub plan: Option<&'a Plan>,
    pub config: Option<&'a Config>,
    pub policy: &'a Policy,
    pub catalog: &'a Catalog,
}

/// What happens to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Destroyed (by a destroy, or by the plan).
    Destroy,
    /// Dropped from the state; the remote object stays.
    Forget,
    /// The destroy fails on `prevent_destroy`.
    Blocked,
    /// A replacement, as the plan orders it.
    Replace(PlannedAction),
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Destroy => "destroy",
            Outcome::Forget => "forget",
            Outcome::Blocked => "blocked",
            Outcome::Replace(PlannedAction::CreateThenDelete) => "replace (create first)",
            Outcome::Replace(PlannedAction::ReplaceForgetting) => "replace (forget old)",
            Outcome::Replace(_) => "replace",
        }
    }

    /// Whether the existing remote object is destroyed.
    pub fn deletes(self) -> bool {
        match self {
            Outcome::Destroy => true,
            Outcome::Forget | Outcome::Blocked => false,
            Outcome::Replace(action) => action.deletes(),
        }
    }
}

/// One object the destroy (or the plan) changes.
#[derive(Debug, Clone)]
pub struct Entry {
    pub address: ObjectAddr,
    pub type_name: String,
    pub outcome: Outcome,
    /// Why, when it is not a plain destroy (`skip_destroy`, `prevent_destroy` at main.tf:4, ...).
    pub why: Option<String>,
    pub rules: Vec<Rule>,
}

/// The audit's result.
#[derive(Debug, Clone, Default)]
pub struct Audit {
    pub entries: Vec<Entry>,
    /// Plan entries that change nothing existing (create, update, read, no-op).
    pub kept: usize,
    pub findings: Vec<Finding>,
}

impl Audit {
    pub fn violations(&self) -> usize {
        self.entries
            .iter()
            .flat_map(|entry| &entry.rules)
            .filter(|rule| rule.violation())
            .count()
    }

    pub fn count(&self, outcome: impl Fn(Outcome) -> bool) -> usize {
        self.entries
            .iter()
            .filter(|entry| outcome(entry.outcome))
            .count()
    }
}

/// Audits `input`: the whole-state destroy, or the plan when there is one; an error when a rules
/// file's JSONPath needs more work than an object's attributes allow.
pub fn audit(input: &Input<'_>) -> Result<Audit, RulePathError> {
    let mut audit = Audit::default();
    let state = input.state;
    let groups = instance_groups(state);
    match input.plan {
        None => {
            for group in &groups {
                if group.resource.address.mode != Mode::Managed {
                    continue;
                }
                let address = group.address();
                if let Some(current) = group.current {
                    let object = ObjectAddr {
                        instance: address.clone(),
                        deposed: None,
                    };
                    let (outcome, why) = destroy_outcome(input, group.resource, current, &object);
                    judge(
                        input,
                        &mut audit,
                        group.resource,
                        current,
                        object,
                        outcome,
                        why,
                    )?;
                }
                for deposed in &group.deposed {
                    let object = ObjectAddr {
                        instance: address.clone(),
                        deposed: deposed.deposed.as_deref().map(str::to_owned),
                    };
                    judge(
                        input,
                        &mut audit,
                        group.resource,
                        deposed,
                        object,
                        Outcome::Destroy,
                        None,
                    )?;
                }
            }
        }
        Some(plan) => {
            for change in &plan.changes {
                let outcome = match change.action {
                    PlannedAction::Keep => {
                        audit.kept += 1;
                        continue;
                    }
                    PlannedAction::Delete => Outcome::Destroy,
                    PlannedAction::Forget => Outcome::Forget,
                    other => Outcome::Replace(other),
                };
                let found = find_group(&groups, &change.address.instance);
                let object = found.and_then(|group| match &change.address.deposed {
                    None => group.current,
                    Some(key) => group
                        .deposed
                        .iter()
                        .copied()
                        .find(|object| object.deposed.as_deref() == Some(key.as_str())),
                });
                match (found, object) {
                    (Some(group), Some(object)) => judge(
                        input,
                        &mut audit,
                        group.resource,
                        object,
                        change.address.clone(),
                        outcome,
                        change.reason.clone(),
                    )?,
                    // A plan made against another state: judge what the plan alone tells.
                    _ => audit.entries.push(Entry {
                        address: change.address.clone(),
                        type_name: change.type_name.clone(),
                        outcome,
                        why: Some("not in this state".to_owned()),
                        rules: Vec::new(),
                    }),
                }
            }
        }
    }
    if let Some(config) = input.config {
        not_in_config(config, &groups, &mut audit);
    }
    Ok(audit)
}

/// What destroying the whole configuration does to a current object, by the state's and the
/// configuration's lifecycle settings.
fn destroy_outcome(
    input: &Input<'_>,
    resource: &Resource<'_>,
    object: &Instance<'_>,
    address: &ObjectAddr,
) -> (Outcome, Option<String>) {
    if object.skip_destroy {
        return (
            Outcome::Forget,
            Some("`skip_destroy` in the state (OpenTofu's `destroy = false`)".to_owned()),
        );
    }
    let Some(config) = input.config else {
        return (Outcome::Destroy, None);
    };
    match config.resource(&resource.address) {
        Some(block) if block.destroy == Some(false) => (
            Outcome::Forget,
            Some(format!("`destroy = false` at {}", place(block))),
        ),
        Some(block) if block.prevent_destroy => (
            Outcome::Blocked,
            Some(format!("`prevent_destroy` at {}", place(block))),
        ),
        Some(_) => (Outcome::Destroy, None),
        None => match removed_block(config, address) {
            Some(removed) if removed.destroy == Some(false) => (
                Outcome::Forget,
                Some(format!(
                    "`removed` block with `destroy = false` in {}",
                    removed.file.display()
                )),
            ),
            _ => (Outcome::Destroy, None),
        },
    }
}

/// What a planned delete breaks in the configuration or the state: `prevent_destroy`, OpenTofu's
/// `skip_destroy`, or a `removed` block that means to keep the object.
fn deleted_against_config(
    input: &Input<'_>,
    resource: &Resource<'_>,
    object: &Instance<'_>,
    address: &ObjectAddr,
    found: &mut Vec<(Rule, String, Vec<Evidence>)>,
) {
    if let Some(block) = input
        .config
        .and_then(|config| config.resource(&resource.address))
        .filter(|block| block.prevent_destroy)
    {
        found.push((
            Rule::DeletePreventDestroy,
            format!(
                "the plan deletes it, but its configuration ({}) sets `prevent_destroy = true`",
                place(block)
            ),
            Vec::new(),
        ));
    }
    if object.skip_destroy {
        found.push((
            Rule::DeleteSkipDestroy,
            "the plan deletes it, but the state marks it `skip_destroy`: OpenTofu would only forget it; this plan ignores the flag".to_owned(),
            vec![Evidence { path: "skip_destroy".into(), value: "true".into() }],
        ));
    } else if let Some(kept) = input
        .config
        .and_then(|config| kept_by_config(config, resource, address))
    {
        // Terraform plans a delete under `plan -destroy` even for what a `removed` block
        // with `destroy = false` means to keep (seen with 1.15.5: testdata/audit/removed-forget).
        found.push((
            Rule::DeleteSkipDestroy,
            format!("the plan deletes it, but {kept} means to keep the object"),
            Vec::new(),
        ));
    }
}

/// The first `[[protect]]` entry of the policy that covers the object, as a finding's message.
fn protected_by(policy: &Policy, type_name: &str, address: &ObjectAddr) -> Option<String> {
    let instance = address.instance.to_string();
    policy.protect.iter().find_map(|protection| {
        let pattern = protection.pattern_for(type_name, &instance)?;
        let reason = protection
            .reason
            .as_deref()
            .map_or_else(String::new, |reason| format!(": {reason}"));
        Some(format!("the policy protects `{pattern}`{reason}"))
    })
}

/// The risk of deleting an object while its remote operation runs.
fn mid_operation_risk(operation: Operation) -> &'static str {
    match operation {
        Operation::Create => "deleting it now can orphan what is being created",
        Operation::Update => {
            "deleting it before the update finishes can fail or leave it half-changed"
        }
        Operation::Delete => "a delete is already under way: the destroy can fail on it or race it",
        Operation::Read => "deleting it now can orphan what the operation leaves behind",
    }
}

/// What the rules say of the remote object from its attributes (nothing, without them), as the
/// audit may show it (never a sensitive attribute's value), with the operation in flight and the
/// words for it ("still being updated (`state` = `UPDATING`)", as scan and refresh map it); a rules
/// file's path too costly for them is an error.
fn status_of(
    input: &Input<'_>,
    type_name: &str,
    address: &ObjectAddr,
    object: &Instance<'_>,
) -> Result<(RemoteStatus, Operation, String), RulePathError> {
    let Some(attributes) = object
        .attributes_json(input.state.source)
        .map(Attributes::new)
    else {
        return Ok((RemoteStatus::default(), Operation::Read, String::new()));
    };
    let status = object_status(input.catalog, type_name, address, Some(&attributes))?;
    if !status.in_progress() {
        // Nothing of it is shown (only a transitional status names values).
        return Ok((status, Operation::Read, String::new()));
    }
    let secrets = Secrets::of(object, type_name, input.state.source);
    let shown = status.hiding(&secrets);
    let words = status.describe_hiding(&attributes, &secrets);
    Ok((shown, status.operation(&attributes), words))
}

/// Records an entry for one object, with every rule its outcome breaks or risks.
fn judge(
    input: &Input<'_>,
    audit: &mut Audit,
    resource: &Resource<'_>,
    object: &Instance<'_>,
    address: ObjectAddr,
    outcome: Outcome,
    why: Option<String>,
) -> Result<(), RulePathError> {
    let type_name = resource.address.type_name.clone();
    let (status, operation, in_flight) = status_of(input, &type_name, &address, object)?;
    let text = address.to_string();
    let mut found: Vec<(Rule, String, Vec<Evidence>)> = Vec::new();
    if outcome.deletes() {
        if let Some(message) = protected_by(input.policy, &type_name, &address) {
            found.push((Rule::DeleteProtected, message, Vec::new()));
        }
        if input.plan.is_some() {
            deleted_against_config(input, resource, object, &address, &mut found);
        }
        if status.in_progress() {
            found.push((
                Rule::DeleteMidOperation,
                format!(
                    "its remote object is {in_flight}; {}",
                    mid_operation_risk(operation)
                ),
                status.transitional.clone(),
            ));
        }
    }
    if outcome == Outcome::Blocked {
        found.push((
            Rule::DestroyBlocked,
            format!(
                "a destroy fails here: {}",
                why.as_deref().unwrap_or("prevent_destroy")
            ),
            Vec::new(),
        ));
    }
    if matches!(
        outcome,
        Outcome::Forget | Outcome::Replace(PlannedAction::ReplaceForgetting)
    ) {
        found.push((
            Rule::Forget,
            format!(
                "forgotten, not destroyed{}",
                why.as_deref()
                    .map_or_else(String::new, |why| format!(" ({why})"))
            ),
            Vec::new(),
        ));
    }
    if object.tainted && status.in_progress() {
        found.push((
            Rule::TaintedAfterTimeout,
            format!(
                "tainted while {in_flight}: it may be healthy, and a destroy or replace removes it"
            ),
            status.transitional.clone(),
        ));
    }
    if let Some(key) = &address.deposed {
        found.push((
            Rule::DeposedObject,
            format!(
                "deposed object {key}, left by a create_before_destroy replacement, is destroyed"
            ),
            vec![Evidence {
                path: "deposed".into(),
                value: format!("\"{key}\""),
            }],
        ));
    }
    let rules = found.iter().map(|(rule, _, _)| *rule).collect();
    for (rule, message, evidence) in found {
        audit.findings.push(Finding {
            rule: rule.info(),
            severity: rule.severity(),
            address: text.clone(),
            resource_type: Some(type_name.clone()),
            message,
            evidence,
            hint: hint_for(input, rule, &address, &type_name),
            location: None,
        });
    }
    audit.entries.push(Entry {
        address,
        type_name,
        outcome,
        why,
        rules,
    });
    Ok(())
}

/// The hint for an audit finding on `address`, naming the commands that act on that object; never
/// `statectl forget` where the policy refuses it for this object.
fn hint_for(input: &Input<'_>, rule: Rule, address: &ObjectAddr, type_name: &str) -> String {
    let catalog = input.catalog;
    let instance = address.instance.to_string();
    let forget = hint::forget_command(&instance, address.deposed.as_deref());
    let forget_refused = forget_protected(input.policy, type_name, &instance);
    match rule {
        Rule::DeleteProtected if forget_refused => format!(
            "keep it out of the destroy (`-target` the rest); the policy refuses `{forget}` too, so change the policy{} if it is really to go",
            policy_file(input.policy)
        ),
        Rule::DeleteProtected => format!(
            "remove it from the destroy (`-target` the rest, or `{forget}` first), or change the policy{}",
            policy_file(input.policy)
        ),
        Rule::DeleteSkipDestroy if forget_refused => format!(
            "destroy with OpenTofu, which honours `skip_destroy` (the policy{} refuses `{forget}`)",
            policy_file(input.policy)
        ),
        Rule::DeleteSkipDestroy => {
            format!("`{forget}` first (or destroy with OpenTofu, which honours `skip_destroy`)")
        }
        Rule::DeleteMidOperation => format!(
            "wait for the operation to finish and refresh it first (`{}`), then plan the destroy again",
            hint::refresh_command(catalog, &instance, type_name)
        ),
        Rule::TaintedAfterTimeout => format!(
            "refresh it first (`{}`); if it finished creating, `{}`",
            hint::refresh_command(catalog, &instance, type_name),
            hint::untaint_command(&instance)
        ),
        Rule::DeposedObject if forget_refused => format!(
            "make sure nothing still uses the old object; the next apply destroys it (the policy{} refuses `{forget}`)",
            policy_file(input.policy)
        ),
        Rule::DeposedObject => format!(
            "make sure nothing still uses the old object; if its remote object is already gone, or must stay, `{forget}` drops it from the state"
        ),
        Rule::DeletePreventDestroy | Rule::DestroyBlocked | Rule::NotInConfig | Rule::Forget => {
            rule.help().to_owned()
        }
    }
}

/// Whether a `[[protect]]` entry of the policy refuses `statectl forget` of the object.
fn forget_protected(policy: &Policy, type_name: &str, instance: &str) -> bool {
    policy.protect.iter().any(|protection| {
        protection.actions.contains(&Action::Forget)
            && protection.pattern_for(type_name, instance).is_some()
    })
}

/// ` (FILE)`: where the policy is, to change it.
fn policy_file(policy: &Policy) -> String {
    policy
        .source
        .as_ref()
        .map_or_else(String::new, |path| format!(" (`{}`)", path.display()))
}

/// Managed instances whose resource block is gone from the configuration: nothing there protects them
/// any more (a `removed` block with `destroy = false` aside, which keeps them).
fn not_in_config(
    config: &Config,
    groups: &[statectl_state::state::order::InstanceGroup<'_, '_>],
    audit: &mut Audit,
) {
    for group in groups {
        let resource = group.resource;
        if resource.address.mode != Mode::Managed || config.resource(&resource.address).is_some() {
            continue;
        }
        let address = ObjectAddr {
            instance: group.address(),
            deposed: None,
        };
        if removed_block(config, &address).is_some_and(|removed| removed.destroy == Some(false)) {
            continue;
        }
        let text = address.to_string();
        let rule = Rule::NotInConfig;
        audit.findings.push(Finding {
            rule: rule.info(),
            severity: rule.severity(),
            address: text.clone(),
            resource_type: Some(resource.address.type_name.clone()),
            message: "its resource block is gone from the configuration: no `prevent_destroy` protects it, and the next plan deletes it".to_owned(),
            evidence: Vec::new(),
            hint: rule.help().to_owned(),
            location: None,
        });
        if let Some(entry) = audit
            .entries
            .iter_mut()
            .find(|entry| entry.address == address)
        {
            entry.rules.push(rule);
        }
    }
}

/// The `removed` block whose `from` names the object's resource or one of its modules.
fn removed_block<'c>(
    config: &'c Config,
    address: &ObjectAddr,
) -> Option<&'c statectl_tfconfig::RemovedBlock> {
    let resource = &address.instance.resource;
    let modules: Vec<&str> = resource
        .module
        .0
        .iter()
        .map(|step| step.name.as_str())
        .collect();
    config.removed.iter().find(|removed| {
        let mut names: Vec<&str> = removed.module.iter().map(String::as_str).collect();
        let mut rest = removed.from.as_str();
        while let Some(after) = rest.strip_prefix("module.") {
            let (name, tail) = after.split_once('.').unwrap_or((after, ""));
            names.push(name);
            rest = tail;
        }
        if rest.is_empty() {
            // A whole module: everything below it.
            return modules.starts_with(&names);
        }
        let target = format!("{}.{}", resource.type_name, resource.name);
        modules == names && rest == target
    })
}

/// The configuration's word that the object is to be kept, not destroyed: `destroy = false` on its
/// resource block, or a `removed` block with `destroy = false`.
fn kept_by_config(
    config: &Config,
    resource: &Resource<'_>,
    address: &ObjectAddr,
) -> Option<String> {
    match config.resource(&resource.address) {
        Some(block) if block.destroy == Some(false) => Some(format!(
            "`lifecycle {{ destroy = false }}` at {}",
            place(block)
        )),
        Some(_) => None,
        None => removed_block(config, address)
            .filter(|removed| removed.destroy == Some(false))
            .map(|removed| {
                format!(
                    "the `removed` block with `destroy = false` in {}",
                    removed.file.display()
                )
            }),
    }
}

/// `main.tf:12`, or the file alone for a block from the JSON syntax.
fn place(block: &ConfigResource) -> String {
    if block.line == 0 {
        block.file.display().to_string()
    } else {
        format!("{}:{}", block.file.display(), block.line)
    }
}
