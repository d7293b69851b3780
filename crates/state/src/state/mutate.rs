//! The mutations statectl makes to a state (taint, untaint, forget an instance or one deposed object,
//! patch an object's fields after a refresh), resolved against a parsed state into a [`Plan`] that the
//! lifecycle rules inspect before anything is written, then rendered by splicing.
//!
//! Semantics follow Terraform's own commands: `taint` marks the current object (never a deposed
//! one), `forget` removes every object of the instances an address selects as `terraform state rm`
//! does (a resource left without instances goes too), and a write raises `serial` by one.

use crate::json::Span;
use crate::json::keys::folds_to_field;
use std::cell::{Cell, OnceCell};
use std::collections::HashMap;

use crate::state::address::{InstanceAddr, InstanceKey, Mode, ObjectAddr, ResourceAddr, Target};
use crate::state::error::{StateError, shorten};
use crate::state::model::{Instance, Resource, State, members};
use crate::state::order::{InstanceGroup, ObjectRef, instance_groups};
use crate::state::parse::parse_instance;
use crate::state::write::{Applied, Change, Splice};

/// One requested change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    Taint(InstanceAddr),
    Untaint(InstanceAddr),
    /// Every object of every instance the target selects, as `terraform state rm TARGET`.
    Forget(Target),
    /// One deposed object of an instance.
    ForgetDeposed {
        instance: InstanceAddr,
        key: String,
    },
    /// New values for fields of an instance's current object (what a refresh learned); `taint` when
    /// the remote object reports a failure, so the next apply replaces it; `untaint` when it reports
    /// the object healthy and the user asked to clear a taint then (`refresh --untaint-healthy`).
    Refresh {
        instance: InstanceAddr,
        changes: Vec<Change>,
        taint: bool,
        untaint: bool,
    },
}

/// What a planned step does to one object; the lifecycle rules judge by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Taint,
    Untaint,
    Forget,
    Refresh,
    /// A refresh that found the remote object failed: its new values, and the taint.
    RefreshTaint,
    /// A refresh that found a tainted instance's remote object healthy: its new values, and the
    /// taint cleared.
    RefreshUntaint,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Taint => "taint",
            Action::Untaint => "untaint",
            Action::Forget => "forget",
            Action::Refresh => "refresh",
            Action::RefreshTaint => "refresh and taint",
            Action::RefreshUntaint => "refresh and untaint",
        }
    }

    /// Whether the step marks the object for replacement.
    pub fn taints(self) -> bool {
        matches!(self, Action::Taint | Action::RefreshTaint)
    }
}

/// One object a plan changes or removes.
#[derive(Debug, Clone)]
pub struct Step {
    pub action: Action,
    pub address: ObjectAddr,
    pub object: ObjectRef,
    /// The field changes; empty for a removal.
    pub changes: Vec<Change>,
}

impl Step {
    pub fn removes(&self) -> bool {
        self.action == Action::Forget
    }
}

/// A mutation that asked for what the state already holds, so it changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unchanged {
    pub address: ObjectAddr,
    pub why: &'static str,
}

/// The resolved effect of a list of mutations on one state.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub unchanged: Vec<Unchanged>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// A write raises `serial`; one that cannot be raised refuses the write before anything is planned.
fn check_serial_can_rise(state: &State<'_>) -> Result<(), StateError> {
    if state.serial_span.is_none() {
        // Go reads a missing `serial` as 0, but a write must raise it, and inserting a member
        // would be a second kind of edit for one malformed file (found by fuzzing).
        return Err(StateError::new(
            "the state has no `serial`, so a write cannot raise it",
        )
        .with_hint("add `\"serial\": 0,` after `\"terraform_version\"` (every Terraform-written state has one)"));
    }
    if state.serial == u64::MAX {
        // Raising it would wrap to 0, and Terraform would take any older copy for the newer.
        return Err(StateError::new(format!(
            "the state's `serial` is {}, the largest there is, so a write cannot raise it",
            u64::MAX
        ))
        .with_hint("lower `serial` by hand in a copy of the state and write that back (`terraform state push -force` for a remote one)"));
    }
    Ok(())
}

/// Resolves `mutations` against `state`. An address that names nothing, or a mutation Terraform would
/// refuse (tainting a data source or an instance with no current object), is an error.
pub fn plan(state: &State<'_>, mutations: &[Mutation]) -> Result<Plan, StateError> {
    if !mutations.is_empty() {
        check_serial_can_rise(state)?;
    }
    let groups = instance_groups(state);
    let index = Index::new(state, &groups);
    let mut plan = Plan::default();
    for mutation in mutations {
        match mutation {
            Mutation::Taint(address) => {
                let (group, current) = current_object(&groups, &index, address, "taint")?;
                if current.tainted {
                    plan.unchanged.push(Unchanged {
                        address: object_address(address, None),
                        why: "already tainted",
                    });
                } else {
                    plan.steps.push(step(
                        &index,
                        group,
                        current,
                        Action::Taint,
                        vec![Change::set_string("status", "tainted")],
                    ));
                }
            }
            Mutation::Untaint(address) => {
                let (group, current) = current_object(&groups, &index, address, "untaint")?;
                if current.tainted {
                    plan.steps.push(step(
                        &index,
                        group,
                        current,
                        Action::Untaint,
                        vec![Change::Remove { field: "status" }],
                    ));
                } else {
                    plan.unchanged.push(Unchanged {
                        address: object_address(address, None),
                        why: "not tainted",
                    });
                }
            }
            Mutation::Refresh {
                instance,
                changes,
                taint,
                untaint,
            } => {
                let (group, current) = current_object(&groups, &index, instance, "refresh")?;
                let mut changes = changes.clone();
                let action = if *taint && !current.tainted {
                    changes.push(Change::set_string("status", "tainted"));
                    Action::RefreshTaint
                } else if *untaint && !*taint && current.tainted {
                    changes.push(Change::Remove { field: "status" });
                    Action::RefreshUntaint
                } else {
                    Action::Refresh
                };
                plan.steps
                    .push(step(&index, group, current, action, changes));
            }
            Mutation::Forget(target) => {
                let selected: Vec<&InstanceGroup<'_, '_>> = groups
                    .iter()
                    .filter(|group| target.matches(&group.address()))
                    .collect();
                if selected.is_empty() {
                    return Err(StateError::for_address(
                        target,
                        "no resource instance in the state matches this address",
                    )
                    .with_hint("`statectl list` prints every address the state holds"));
                }
                for group in selected {
                    let objects = group.current.iter().chain(group.deposed.iter());
                    for object in objects {
                        plan.steps
                            .push(step(&index, group, object, Action::Forget, Vec::new()));
                    }
                }
            }
            Mutation::ForgetDeposed { instance, key } => {
                let group = find_group(&groups, &index, instance)?;
                let object = deposed_object(group, instance, key)?;
                plan.steps
                    .push(step(&index, group, object, Action::Forget, Vec::new()));
            }
        }
    }
    forget_each_object_once(&mut plan);
    one_step_per_object(&plan)?;
    Ok(plan)
}

/// Addresses that overlap (`module.app` and `module.app.aws_instance.web`, or one given twice)
/// forget an object once, as `terraform state rm` takes them.
fn forget_each_object_once(plan: &mut Plan) {
    let mut forgotten = std::collections::HashSet::new();
    plan.steps
        .retain(|step| step.action != Action::Forget || forgotten.insert(step.object));
}

/// The deposed object `key` of `group`; when there is none, the error lists the keys there are.
fn deposed_object<'s, 'a>(
    group: &InstanceGroup<'s, 'a>,
    instance: &InstanceAddr,
    key: &str,
) -> Result<&'s Instance<'a>, StateError> {
    if let Some(object) = group
        .deposed
        .iter()
        .find(|object| object.deposed.as_deref() == Some(key))
    {
        return Ok(object);
    }
    let keys: Vec<&str> = group
        .deposed
        .iter()
        .filter_map(|object| object.deposed.as_deref())
        .collect();
    let hint = if keys.is_empty() {
        "this instance has no deposed objects".to_owned()
    } else {
        format!("its deposed objects: {}", keys.join(", "))
    };
    Err(
        StateError::for_address(instance, format!("no deposed object `{}`", shorten(key)))
            .with_hint(hint),
    )
}

/// One object, one step: a later mutation of the same object replaces nothing silently.
fn one_step_per_object(plan: &Plan) -> Result<(), StateError> {
    let mut first_step: HashMap<ObjectRef, usize> = HashMap::with_capacity(plan.steps.len());
    for (position, later) in plan.steps.iter().enumerate() {
        if let Some(&earlier) = first_step.get(&later.object) {
            let earlier = &plan.steps[earlier];
            return Err(StateError::for_address(
                &later.address,
                format!(
                    "asked to {} and to {} the same object",
                    earlier.action.as_str(),
                    later.action.as_str()
                ),
            ));
        }
        first_step.insert(later.object, position);
    }
    Ok(())
}

fn step(
    index: &Index<'_, '_, '_>,
    group: &InstanceGroup<'_, '_>,
    object: &Instance<'_>,
    action: Action,
    changes: Vec<Change>,
) -> Step {
    Step {
        action,
        address: object_address(&group.address(), object.deposed.as_deref()),
        object: index.object(object),
        changes,
    }
}

fn object_address(instance: &InstanceAddr, deposed: Option<&str>) -> ObjectAddr {
    ObjectAddr {
        instance: instance.clone(),
        deposed: deposed.map(str::to_owned),
    }
}

/// How many lookups a plan answers by scanning before it builds maps: hashing every instance address
/// of a 100,000-instance state costs more than a few scans (a taint makes two lookups), while a
/// refresh or the forget of a module makes thousands.
const SCANS_BEFORE_MAPS: usize = 8;

/// Lookups by instance address and by object: scans for the first few, then maps built once. Both
/// find the same: the last group of an address (as a map collected from them keeps the last), and
/// the one object starting at a byte (no two objects start at the same byte).
struct Index<'g, 's, 'a> {
    state: &'s State<'a>,
    groups: &'g [InstanceGroup<'s, 'a>],
    scans: Cell<usize>,
    by_address: OnceCell<HashMap<(&'g ResourceAddr, Option<&'g InstanceKey>), usize>>,
    objects: OnceCell<HashMap<usize, ObjectRef>>,
}

impl<'g, 's, 'a> Index<'g, 's, 'a> {
    fn new(state: &'s State<'a>, groups: &'g [InstanceGroup<'s, 'a>]) -> Index<'g, 's, 'a> {
        Index {
            state,
            groups,
            scans: Cell::new(0),
            by_address: OnceCell::new(),
            objects: OnceCell::new(),
        }
    }

    /// Whether this lookup may scan (and counts it).
    fn scan(&self) -> bool {
        let scans = self.scans.get() + 1;
        self.scans.set(scans);
        scans <= SCANS_BEFORE_MAPS
    }

    fn object(&self, object: &Instance<'_>) -> ObjectRef {
        let state = self.state;
        let found = if self.scan() {
            state
                .order
                .iter()
                .find(|candidate| object_start(state, **candidate) == object.span.start)
                .copied()
        } else {
            self.objects
                .get_or_init(|| {
                    state
                        .order
                        .iter()
                        .map(|candidate| (object_start(state, *candidate), *candidate))
                        .collect()
                })
                .get(&object.span.start)
                .copied()
        };
        found.expect("every object of a group is in the state's order")
    }

    /// The position of the group of `address` in the groups the index was built from.
    fn group(&self, address: &InstanceAddr) -> Option<usize> {
        if self.scan() {
            return self.groups.iter().rposition(|group| {
                group.key == address.key.as_ref() && group.resource.address == address.resource
            });
        }
        self.by_address
            .get_or_init(|| {
                self.groups
                    .iter()
                    .enumerate()
                    .map(|(position, group)| ((&group.resource.address, group.key), position))
                    .collect()
            })
            .get(&(&address.resource, address.key.as_ref()))
            .copied()
    }
}

fn object_start(state: &State<'_>, object: ObjectRef) -> usize {
    state.resources[object.resource as usize].instances[object.instance as usize]
        .span
        .start
}

fn find_group<'g, 's, 'a>(
    groups: &'g [InstanceGroup<'s, 'a>],
    index: &Index<'_, '_, '_>,
    address: &InstanceAddr,
) -> Result<&'g InstanceGroup<'s, 'a>, StateError> {
    index
        .group(address)
        .map(|position| &groups[position])
        .ok_or_else(|| {
            let hint = if address.key.is_none()
                && groups
                    .iter()
                    .any(|group| group.resource.address == address.resource)
            {
                format!(
                    "`{}` has several instances; name one, e.g. `{}`",
                    address.resource,
                    groups
                        .iter()
                        .find(|group| group.resource.address == address.resource)
                        .map(InstanceGroup::address)
                        .expect("checked just above")
                )
            } else {
                "`statectl list` prints every address the state holds".to_owned()
            };
            StateError::for_address(address, "no such resource instance in the state")
                .with_hint(hint)
        })
}

/// The current object of a managed instance, as `terraform taint` requires one.
fn current_object<'g, 's, 'a>(
    groups: &'g [InstanceGroup<'s, 'a>],
    index: &Index<'_, '_, '_>,
    address: &InstanceAddr,
    verb: &str,
) -> Result<(&'g InstanceGroup<'s, 'a>, &'s Instance<'a>), StateError> {
    let group = find_group(groups, index, address)?;
    if group.resource.address.mode == Mode::Data {
        return Err(StateError::for_address(
            address,
            format!(
                "cannot {verb} a data source: only managed resources have remote objects to replace"
            ),
        ));
    }
    match group.current {
        Some(current) => Ok((group, current)),
        None => Err(StateError::for_address(
            address,
            format!("cannot {verb}: the instance has no current object, only deposed ones (a create_before_destroy replacement is part-way through)"),
        )
        .with_hint("run `terraform apply` to finish the replacement first")),
    }
}

/// The new state text: every step spliced in, resources left without instances removed, `serial`
/// raised by one. An empty plan gives back the input.
pub fn render(state: &State<'_>, plan: &Plan) -> String {
    render_tracked(state, plan).to_text()
}

/// [`render`] as the pieces of the new text (the original's untouched runs borrowed, never copied),
/// also saying where each changed instance is (see [`Applied::rendered_text`]).
pub fn render_tracked<'s>(state: &'s State<'s>, plan: &'s Plan) -> Applied<'s> {
    if plan.is_empty() {
        return Applied::unchanged(state.source);
    }
    let mut splice = Splice::new(state.source);
    let mut removed: Vec<Vec<bool>> = state
        .resources
        .iter()
        .map(|resource| vec![false; resource.instances.len()])
        .collect();
    for step in &plan.steps {
        let (resource, instance) = (step.object.resource as usize, step.object.instance as usize);
        if step.removes() {
            removed[resource][instance] = true;
        } else {
            let object = &state.resources[resource].instances[instance];
            splice.render_when_applied(state, object, &step.changes);
        }
    }
    let mut resource_removed = vec![false; state.resources.len()];
    for (index, resource) in state.resources.iter().enumerate() {
        let gone = &removed[index];
        if !gone.iter().any(|&gone| gone) {
            continue;
        }
        if gone.iter().all(|&gone| gone) {
            resource_removed[index] = true;
        } else if let Some(array) = array_member(state.source, resource.span, "instances") {
            let spans: Vec<Span> = resource
                .instances
                .iter()
                .map(|object| object.span)
                .collect();
            remove_elements(&mut splice, array, &spans, gone);
        }
    }
    if resource_removed.iter().any(|&gone| gone)
        && let Some(array) = array_member(state.source, state.span, "resources")
    {
        let spans: Vec<Span> = state
            .resources
            .iter()
            .map(|resource| resource.span)
            .collect();
        remove_elements(&mut splice, array, &spans, &resource_removed);
    }
    splice.set_serial(state, state.serial + 1);
    splice.apply_tracked()
}

/// Proves the spliced new text holds what the plan says, before any byte is written, without
/// parsing it whole. The splice is checked by construction: every byte it did not replace is a
/// borrowed run of the original, which parsed (and which the commit proves is still the file's);
/// removals cut at the element boundaries the parser itself found (whole elements, with the
/// separator on one side; an emptied array becomes `[]`); the serial is a number written here; the
/// lineage and every other member are untouched bytes. What remains is each re-rendered object, and
/// each is parsed here as the state parser parses an instance: it must be one, with the same index
/// key and deposed key as before, and the status the step set. That is the only part a rendering bug
/// could break, so the check is as strong as parsing the whole new state again, at the cost of the
/// changed objects only (`tests/integration/splice_check.rs` proves the two agree). Returns each
/// step's new object text (`None` when removed), or what is wrong.
pub fn check_splice<'t>(
    before: &State<'_>,
    plan: &Plan,
    applied: &'t Applied<'_>,
) -> Result<Vec<Option<&'t str>>, SpliceError> {
    if before.serial_span.is_none() {
        return Err(SpliceError::new("has no serial to raise"));
    }
    let mut objects = Vec::with_capacity(plan.steps.len());
    for step in &plan.steps {
        if step.action == Action::Forget {
            objects.push(None);
            continue;
        }
        let (_, old) = object_of(before, step.object);
        let name = step.address.to_string();
        let text = applied
            .rendered_text(old.span)
            .ok_or_else(|| SpliceError::new(format!("lost `{name}`")))?;
        let new = parse_instance(text).map_err(|error: StateError| {
            SpliceError::new(format!(
                "has an object `{name}` that does not parse: {}",
                error.describe("object")
            ))
        })?;
        if new.index_key != old.index_key
            || new.deposed != old.deposed
            || new.tainted != tainted_after(old.tainted, &step.changes)
        {
            return Err(SpliceError::new(format!(
                "has `{name}` with another key or status"
            )));
        }
        objects.push(Some(text));
    }
    Ok(objects)
}

/// What [`check_splice`] found wrong with a new text: the end of a sentence that begins "the
/// rewritten state" (it may name an address as the state spells it, so a caller that prints it
/// sanitizes it first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpliceError {
    pub what: String,
}

impl SpliceError {
    fn new(what: impl Into<String>) -> SpliceError {
        SpliceError { what: what.into() }
    }
}

/// Whether an object is tainted once `changes` are made to it: the status is the one field that
/// says so.
fn tainted_after(tainted: bool, changes: &[Change]) -> bool {
    changes
        .iter()
        .fold(tainted, |tainted, change| match change {
            Change::Set {
                field: "status",
                json,
            } => json == "\"tainted\"",
            Change::Remove { field: "status" } => false,
            _ => tainted,
        })
}

/// The span of the array value of member `name` of the object at `object` (the last such member, as
/// Go's reader keeps the last of duplicates; keys match folding case as Go's do).
fn array_member(source: &str, object: Span, name: &str) -> Option<Span> {
    members(source, object)
        .into_iter()
        .rev()
        .find(|member| folds_to_field(&member.key, name))
        .map(|member| member.value)
}

/// Removes the marked elements of the array at `array`, keeping the layout of what stays: a removed
/// element takes the separator before it with it (the one after it, when it is first); an array left
/// empty becomes `[]`, as Go writes an empty array.
fn remove_elements(splice: &mut Splice<'_>, array: Span, elements: &[Span], removed: &[bool]) {
    if removed.iter().all(|&gone| gone) {
        splice.replace(array, "[]".to_owned());
        return;
    }
    let mut index = 0;
    while index < elements.len() {
        if !removed[index] {
            index += 1;
            continue;
        }
        let run_start = index;
        while index < elements.len() && removed[index] {
            index += 1;
        }
        let run_end = index; // first kept element after the run, or the end
        let span = if run_start == 0 {
            Span::new(elements[0].start, elements[run_end].start)
        } else {
            Span::new(elements[run_start - 1].end, elements[run_end - 1].end)
        };
        splice.replace(span, String::new());
    }
}

/// The resource and object a step names.
pub fn object_of<'s, 'a>(
    state: &'s State<'a>,
    object: ObjectRef,
) -> (&'s Resource<'a>, &'s Instance<'a>) {
    let resource = &state.resources[object.resource as usize];
    (resource, &resource.instances[object.instance as usize])
}

#[cfg(test)]
mod tests {
    /// Found by the property tests: a state without `serial` parsed as serial 0, and a taint wrote it
    /// back with serial 0 (the CLI's self-check then stopped it as an internal error).
    #[test]
    fn a_state_without_serial_cannot_be_mutated() {
        let text = br#"{"version": 4, "lineage": "x", "resources": [{"mode": "managed", "type": "a", "name": "b", "provider": "provider[\"registry.terraform.io/hashicorp/a\"]", "instances": [{"attributes": {}}]}]}"#;
        let state = crate::state::parse(text).unwrap();
        let error =
            super::plan(&state, &[super::Mutation::Taint("a.b".parse().unwrap())]).unwrap_err();
        assert_eq!(
            error.message,
            "the state has no `serial`, so a write cannot raise it"
        );
    }

    /// Was a taint that wrote serial 0 (release builds wrap) or panicked (debug builds).
    #[test]
    fn a_serial_that_cannot_be_raised_refuses_every_mutation() {
        let text = br#"{"version": 4, "serial": 18446744073709551615, "lineage": "x", "resources": [{"mode": "managed", "type": "a", "name": "b", "provider": "provider[\"registry.terraform.io/hashicorp/a\"]", "instances": [{"attributes": {}, "status": "tainted"}]}]}"#;
        let state = crate::state::parse(text).unwrap();
        for mutation in ["taint", "untaint", "forget"] {
            let address = "a.b".parse().unwrap();
            let mutation = match mutation {
                "taint" => super::Mutation::Taint(address),
                "untaint" => super::Mutation::Untaint(address),
                _ => super::Mutation::Forget("a.b".parse().unwrap()),
            };
            let error = super::plan(&state, &[mutation]).unwrap_err();
            assert_eq!(
                error.message,
                "the state's `serial` is 18446744073709551615, the largest there is, so a write cannot raise it"
            );
        }
        assert!(super::plan(&state, &[]).unwrap().is_empty());
    }
}
