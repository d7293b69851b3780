//! Terraform's order of resource instances, the order `terraform state list` prints them in, and the
//! grouping of a file's instance objects (current and deposed, possibly in two resource entries that
//! Go would merge) by instance address.
//!
//! The parser sorts once ([`sort_objects`]) and checks for duplicates on the way; everything that
//! walks instances in order reuses that.

use std::cmp::Ordering;
use std::ops::Range;

use crate::state::address::{InstanceAddr, InstanceKey, Mode, ModulePath, ResourceAddr};
use crate::state::model::{Instance, Resource, State};

/// One instance object: an index into `resources`, and into that resource's `instances`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    pub resource: u32,
    pub instance: u32,
}

/// Two objects with the same identity: two current objects for one instance, or one deposed key twice.
#[derive(Debug, Clone, Copy)]
pub struct Duplicate(pub ObjectRef);

/// What makes an object unique within a resource: its instance key, then its deposed key (the current
/// object, without one, first).
fn identity<'s>(instance: &'s Instance<'_>) -> (Option<&'s InstanceKey>, Option<&'s str>) {
    (instance.index_key.as_ref(), instance.deposed.as_deref())
}

/// Whether `instances` (one resource's) are in Terraform's order, no two with one identity: as
/// files Terraform wrote always are.
pub(crate) fn in_order(instances: &[Instance<'_>]) -> bool {
    instances.is_sorted_by(|left, right| identity(left) < identity(right))
}

/// How a resource's address stands to the address of the resource before it in the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Follows {
    /// Not known: the file's first resource (compared when asked).
    #[default]
    Unknown,
    /// The resource before is in another module.
    OtherModule,
    /// The resource before is in the same module; how its mode, type and name compare to these.
    SameModule(Ordering),
}

impl Follows {
    /// How `next`'s address stands to `previous`'s, the resource before it.
    pub(crate) fn of(previous: &Resource<'_>, next: &Resource<'_>) -> Follows {
        if previous.address.module == next.address.module {
            Follows::SameModule(in_module(previous).cmp(&in_module(next)))
        } else {
            Follows::OtherModule
        }
    }
}

/// A resource's place among its module's: mode, type, name (`AbsResource.Less` within a module).
fn in_module<'r>(resource: &'r Resource<'_>) -> (Mode, &'r str, &'r str) {
    let address = &resource.address;
    (address.mode, &address.type_name, &address.name)
}

/// What the order reads of one resource record, 8 bytes: taken by the parse as it reads each
/// resource, while its record and the one before are in cache. The order of a large state read
/// every record from memory again in each of its passes (and compared each address with its
/// neighbour's two and three times): 7 ms of `list`'s 130 at 252 MB, on one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) follows: Follows,
    instances_in_order: bool,
    instances: u32,
}

impl Summary {
    /// The summary of `resource`, the one after `previous` in the file.
    pub(crate) fn of(previous: Option<&Resource<'_>>, resource: &Resource<'_>) -> Summary {
        Summary {
            follows: previous.map_or(Follows::Unknown, |previous| Follows::of(previous, resource)),
            instances_in_order: resource.instances_in_order,
            instances: resource.instances.len() as u32,
        }
    }
}

/// The summaries of `resources`, in file order.
pub(crate) fn summaries_of(resources: &[Resource<'_>]) -> Vec<Summary> {
    let mut previous = None;
    resources
        .iter()
        .map(|resource| {
            let summary = Summary::of(previous, resource);
            previous = Some(resource);
            summary
        })
        .collect()
}

/// What the parse found of resource `right` against resource `left` (indexes): known only when
/// `right` follows `left` in the file.
fn hint(summaries: &[Summary], left: u32, right: u32) -> Follows {
    if left.checked_add(1) == Some(right) {
        summaries[right as usize].follows
    } else {
        Follows::Unknown
    }
}

/// Every instance object of `resources` in Terraform's order (resource address as `AbsResource.Less`
/// orders it, then instance key, then deposed key), refusing duplicates as Go's reader does.
pub fn sort_objects(resources: &[Resource<'_>]) -> Result<Vec<ObjectRef>, Duplicate> {
    sort_summarized(resources, &summaries_of(resources))
}

/// [`sort_objects`], given the resources' summaries (`summaries_of`, or the parse's: one for
/// each resource, else they are taken again here).
pub(crate) fn sort_summarized(
    resources: &[Resource<'_>],
    summaries: &[Summary],
) -> Result<Vec<ObjectRef>, Duplicate> {
    if summaries.len() != resources.len() {
        return sort_objects(resources);
    }
    // A resource's place in the order, compared with integers where they decide: comparing module
    // paths step by step was most of this function's time on large states.
    let ranks = module_ranks(resources, summaries);
    let key = |resource: u32| {
        (
            ranks[resource as usize],
            in_module(&resources[resource as usize]),
        )
    };
    let by_address = in_address_order(resources, summaries, &ranks);
    let mut order = Vec::with_capacity(
        summaries
            .iter()
            .map(|summary| summary.instances as usize)
            .sum(),
    );
    let same_address = |left: u32, right: u32| match hint(summaries, left, right) {
        Follows::SameModule(ordering) => ordering.is_eq(),
        Follows::OtherModule => false,
        Follows::Unknown => key(left) == key(right),
    };
    for same_address in by_address.chunk_by(|&left, &right| same_address(left, right)) {
        let start = order.len();
        for &resource in same_address {
            let count = summaries[resource as usize].instances;
            order.extend((0..count).map(|instance| ObjectRef { resource, instance }));
        }
        // Files Terraform wrote are in order already, without duplicates: the parse told it of
        // each resource (`Resource::instances_in_order`); else one look at each pair tells both.
        if let [resource] = same_address
            && summaries[*resource as usize].instances_in_order
        {
            continue;
        }
        let objects = &mut order[start..];
        let instance = |object: &ObjectRef| {
            &resources[object.resource as usize].instances[object.instance as usize]
        };
        if objects.is_sorted_by(|left, right| identity(instance(left)) < identity(instance(right)))
        {
            continue;
        }
        if !objects
            .is_sorted_by(|left, right| identity(instance(left)) <= identity(instance(right)))
        {
            objects.sort_by(|left, right| identity(instance(left)).cmp(&identity(instance(right))));
        }
        if let Some(pair) = objects
            .windows(2)
            .find(|pair| identity(instance(&pair[0])) == identity(instance(&pair[1])))
        {
            return Err(Duplicate(pair[1]));
        }
    }
    Ok(order)
}

/// The indexes of `resources` ordered by (module rank, mode, type, name), entries with equal keys in
/// file order: what a stable sort by that key gives, without sorting the whole state. A file holds
/// each module's resources together, in the order of their module address's text, which is not
/// `ModuleInstance.Less` (`[10]` before `[2]`): a general sort merged thousands of such runs on
/// every large state. Here the runs are put in rank order (stably, so a module whose resources a
/// file splits keeps the split parts in file order), and only a module whose resources are out of
/// order among themselves is sorted.
fn in_address_order(resources: &[Resource<'_>], summaries: &[Summary], ranks: &[u32]) -> Vec<u32> {
    let mut runs: Vec<Range<u32>> = Vec::new();
    for (index, rank) in ranks.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if ranks[run.start as usize] == *rank => run.end = index as u32 + 1,
            _ => runs.push(index as u32..index as u32 + 1),
        }
    }
    let rank_of = |run: &Range<u32>| ranks[run.start as usize];
    runs.sort_by_key(rank_of);
    let key = |resource: u32| in_module(&resources[resource as usize]);
    // Within one module: a neighbour in the file is compared by the parse's hint.
    let in_order = |left: u32, right: u32| match hint(summaries, left, right) {
        Follows::SameModule(ordering) => ordering.is_le(),
        Follows::OtherModule | Follows::Unknown => key(left) <= key(right),
    };
    let mut by_address = Vec::with_capacity(resources.len());
    for same_module in runs.chunk_by(|left, right| rank_of(left) == rank_of(right)) {
        let start = by_address.len();
        for run in same_module {
            by_address.extend(run.clone());
        }
        let module = &mut by_address[start..];
        if !module.is_sorted_by(|&left, &right| in_order(left, right)) {
            module.sort_by(|&left, &right| key(left).cmp(&key(right)));
        }
    }
    by_address
}

/// For each resource, the rank of its module path among the state's module paths in
/// `ModuleInstance.Less` order (equal paths, equal ranks). The resources of one module stand
/// together in a file, so each run is looked at once and only the runs' paths are sorted.
fn module_ranks(resources: &[Resource<'_>], summaries: &[Summary]) -> Vec<u32> {
    let mut runs: Vec<&ModulePath> = Vec::new();
    let mut run_of: Vec<u32> = Vec::with_capacity(resources.len());
    for (resource, summary) in resources.iter().zip(summaries) {
        // `runs` ends with the module of the resource before (when there is one); the record is
        // read only where a run starts, or where the parse did not compare.
        let same_module = match summary.follows {
            Follows::SameModule(_) => !runs.is_empty(),
            Follows::OtherModule => false,
            Follows::Unknown => runs.last() == Some(&&resource.address.module),
        };
        if !same_module {
            runs.push(&resource.address.module);
        }
        run_of.push(runs.len() as u32 - 1);
    }
    let mut by_path: Vec<u32> = (0..runs.len() as u32).collect();
    by_path.sort_unstable_by(|&left, &right| runs[left as usize].cmp(runs[right as usize]));
    let mut rank_of_run = vec![0; runs.len()];
    let mut rank = 0;
    for pair in by_path.windows(2) {
        if runs[pair[0] as usize] != runs[pair[1] as usize] {
            rank += 1;
        }
        rank_of_run[pair[1] as usize] = rank;
    }
    run_of
        .into_iter()
        .map(|run| rank_of_run[run as usize])
        .collect()
}

/// All objects of one resource instance: its current object (if any) and its deposed ones.
#[derive(Debug)]
pub struct InstanceGroup<'s, 'a> {
    pub resource: &'s Resource<'a>,
    pub key: Option<&'s InstanceKey>,
    pub current: Option<&'s Instance<'a>>,
    pub deposed: Vec<&'s Instance<'a>>,
}

impl InstanceGroup<'_, '_> {
    pub fn address(&self) -> InstanceAddr {
        InstanceAddr {
            resource: self.resource.address.clone(),
            key: self.key.cloned(),
        }
    }

    /// Whether this is the instance `address` names, told without building an address.
    pub fn is(&self, address: &InstanceAddr) -> bool {
        self.key == address.key.as_ref() && same_address(&self.resource.address, &address.resource)
    }

    pub fn tainted(&self) -> bool {
        self.current.is_some_and(|current| current.tainted)
    }
}

/// Every resource instance in Terraform's order, with its objects.
pub fn instance_groups<'s, 'a>(state: &'s State<'a>) -> Vec<InstanceGroup<'s, 'a>> {
    let mut groups = Vec::with_capacity(state.order.len());
    groups.extend(each_instance_group(state));
    groups
}

/// The group of `groups` (as [`instance_groups`] gives them, in Terraform's order) that `address`
/// names: found by halves, where looking at each group in turn made a plan's audit take the
/// state's size times the plan's.
pub fn find_group<'g, 's, 'a>(
    groups: &'g [InstanceGroup<'s, 'a>],
    address: &InstanceAddr,
) -> Option<&'g InstanceGroup<'s, 'a>> {
    groups
        .binary_search_by(|group| {
            group
                .resource
                .address
                .cmp(&address.resource)
                .then_with(|| group.key.cmp(&address.key.as_ref()))
        })
        .ok()
        .map(|at| &groups[at])
}

/// [`instance_groups`] one at a time, for a caller that looks at each once: a large state's groups
/// together were tens of megabytes written only to be read back.
pub fn each_instance_group<'s, 'a>(state: &'s State<'a>) -> EachInstanceGroup<'s, 'a> {
    each_instance_group_in(state, 0..state.order.len())
}

/// The groups of the objects `objects` of `state.order`, whose bounds are where groups start (see
/// [`group_start_from`]): parts of [`each_instance_group`] that can be walked side by side.
pub fn each_instance_group_in<'s, 'a>(
    state: &'s State<'a>,
    objects: Range<usize>,
) -> EachInstanceGroup<'s, 'a> {
    EachInstanceGroup {
        state,
        next: objects.start,
        end: objects.end.min(state.order.len()),
    }
}

/// The first index of `state.order`, from `at` on, where a group starts (the length when none does).
pub fn group_start_from(state: &State<'_>, at: usize) -> usize {
    let object = |at: usize| {
        let object = state.order[at];
        let resource = &state.resources[object.resource as usize];
        (resource, &resource.instances[object.instance as usize])
    };
    let mut at = at;
    while at > 0 && at < state.order.len() {
        let ((before, previous), (resource, instance)) = (object(at - 1), object(at));
        if !same_instance(before, previous, resource, instance) {
            return at;
        }
        at += 1;
    }
    at.min(state.order.len())
}

/// `state.order` cut into about `parts` ranges of nearly equal length, each starting where a group
/// does: for [`each_instance_group_in`] on as many threads.
pub fn group_ranges(state: &State<'_>, parts: usize) -> Vec<Range<usize>> {
    let objects = state.order.len();
    let parts = parts.max(1);
    let mut starts: Vec<usize> = (0..parts)
        .map(|part| group_start_from(state, objects / parts * part))
        .collect();
    starts.push(objects);
    starts.dedup();
    starts.windows(2).map(|pair| pair[0]..pair[1]).collect()
}

/// Whether two objects next to each other in the order are of the same resource instance.
fn same_instance(
    resource: &Resource<'_>,
    instance: &Instance<'_>,
    other_resource: &Resource<'_>,
    other: &Instance<'_>,
) -> bool {
    instance.index_key == other.index_key
        && (std::ptr::eq(resource, other_resource)
            || same_address(&resource.address, &other_resource.address))
}

/// `left == right`, names first: two resources next to each other nearly always differ in name,
/// where comparing the module paths first compared every step of two equal paths.
fn same_address(left: &ResourceAddr, right: &ResourceAddr) -> bool {
    left.name == right.name
        && left.type_name == right.type_name
        && left.mode == right.mode
        && left.module == right.module
}

/// The iterator of [`each_instance_group`].
#[derive(Debug)]
pub struct EachInstanceGroup<'s, 'a> {
    state: &'s State<'a>,
    /// The index in `state.order` of the next group's first object.
    next: usize,
    /// Where this walk of `state.order` ends.
    end: usize,
}

impl<'s, 'a> Iterator for EachInstanceGroup<'s, 'a> {
    type Item = InstanceGroup<'s, 'a>;

    fn next(&mut self) -> Option<InstanceGroup<'s, 'a>> {
        let object = |at: usize| {
            self.state.order[..self.end].get(at).map(|object| {
                let resource = &self.state.resources[object.resource as usize];
                (resource, &resource.instances[object.instance as usize])
            })
        };
        let (resource, first) = object(self.next)?;
        let mut group = InstanceGroup {
            resource,
            key: first.index_key.as_ref(),
            current: None,
            deposed: Vec::new(),
        };
        while let Some((resource, instance)) = object(self.next) {
            if !same_instance(group.resource, first, resource, instance) {
                break;
            }
            if instance.deposed.is_some() {
                group.deposed.push(instance);
            } else {
                group.current = Some(instance);
            }
            self.next += 1;
        }
        Some(group)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next);
        (left.min(1), Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::address::ResourceAddr;
    use crate::state::parse;

    /// Module paths whose text order and `ModuleInstance.Less` order differ (integer keys, a
    /// nested module beside its parent, a name that is a prefix of another).
    const MODULES: [&str; 9] = [
        "",
        "module.a",
        "module.a[2]",
        "module.a[10]",
        "module.a[\"x\"]",
        "module.a[2].module.b",
        "module.a_b",
        "module.b",
        "module.b.module.a",
    ];

    /// A state of `count` resource entries in a scrambled order; entries may repeat an address
    /// (Go merges them), never an object.
    fn scrambled_state(count: usize, seed: u64) -> String {
        state_of(
            scrambled_entries(count, seed)
                .into_iter()
                .map(|(_, entry)| entry),
        )
    }

    /// The resource entries of [`scrambled_state`], each with its module, mode, type and name.
    fn scrambled_entries(count: usize, mut seed: u64) -> Vec<([&'static str; 4], String)> {
        let mut next = |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        let mut taken = std::collections::HashSet::new();
        let mut entries = Vec::new();
        while entries.len() < count {
            let module = MODULES[next(MODULES.len())];
            let mode = ["managed", "data"][next(2)];
            let type_name = ["aws_instance", "aws_s3_bucket", "null_resource"][next(3)];
            let name = ["web", "db", "a"][next(3)];
            let mut instances = Vec::new();
            for _ in 0..next(4) {
                let key = match next(3) {
                    0 => "null".to_string(),
                    1 => next(12).to_string(),
                    _ => format!("\"k{}\"", next(12)),
                };
                let deposed = [None, Some("00000001"), Some("0000000a")][next(3)];
                if !taken.insert((module, mode, type_name, name, key.clone(), deposed)) {
                    continue;
                }
                let deposed = deposed.map_or(String::new(), |key| format!(r#""deposed":"{key}","#));
                instances.push(format!(
                    r#"{{"index_key":{key},{deposed}"schema_version":0,"attributes":{{}}}}"#
                ));
            }
            let module_member = if module.is_empty() {
                String::new()
            } else {
                format!(r#""module":{},"#, serde_json::to_string(module).unwrap())
            };
            let text = format!(
                r#"{{{module_member}"mode":"{mode}","type":"{type_name}","name":"{name}","provider":"provider[\"registry.terraform.io/hashicorp/aws\"]","instances":[{}]}}"#,
                instances.join(",")
            );
            entries.push(([module, mode, type_name, name], text));
        }
        entries
    }

    /// A state of these resource entries.
    fn state_of(entries: impl Iterator<Item = String>) -> String {
        // One entry a line, as Terraform lays them out, so a parse in parts can cut between them.
        format!(
            "{{\"version\":4,\"terraform_version\":\"1.15.5\",\"serial\":1,\"lineage\":\"l\",\"outputs\":{{}},\"resources\":[\n    {}\n  ],\"check_results\":null}}",
            entries.collect::<Vec<_>>().join(",\n    ")
        )
    }

    /// The order by the addresses themselves: a stable sort of every object by resource address
    /// (Terraform's `AbsResource.Less`), then instance key, then deposed key.
    fn by_whole_addresses(resources: &[Resource<'_>]) -> Vec<ObjectRef> {
        let mut objects: Vec<(&ResourceAddr, ObjectRef)> = Vec::new();
        for (resource_index, resource) in resources.iter().enumerate() {
            for instance in 0..resource.instances.len() {
                let object = ObjectRef {
                    resource: resource_index as u32,
                    instance: instance as u32,
                };
                objects.push((&resource.address, object));
            }
        }
        let identity_of = |object: &ObjectRef| {
            identity(&resources[object.resource as usize].instances[object.instance as usize])
        };
        objects.sort_by(|left, right| {
            left.0
                .cmp(right.0)
                .then_with(|| identity_of(&left.1).cmp(&identity_of(&right.1)))
        });
        objects.into_iter().map(|(_, object)| object).collect()
    }

    #[test]
    fn objects_are_in_terraforms_order_whatever_the_file_order() {
        for seed in 1..=40 {
            let text = scrambled_state(60, seed * 7919);
            // Read in parts too: the neighbours' hints at the parts' joins are set by the join.
            for parts in [1, 2, 5] {
                let state = crate::parts::forced(parts, || parse(text.as_bytes()).unwrap());
                assert_eq!(
                    state.order,
                    by_whole_addresses(&state.resources),
                    "seed {seed}, {parts} parts"
                );
            }
        }
    }

    #[test]
    fn objects_are_in_terraforms_order_from_the_order_terraform_writes() {
        // Terraform's writer sorts entries by the module address's text, then mode, type and name
        // as text: each module's entries stand together, data before managed, and `[10]` before
        // `[2]`. Some modules split in two, as a hand-merged file might have them.
        for seed in 1..=20 {
            let mut entries = scrambled_entries(120, seed * 65_537);
            entries.sort_by(|left, right| left.0.cmp(&right.0));
            let split = entries.len() / 3;
            entries[split..].rotate_left(seed as usize % 7 + 1);
            let text = state_of(entries.into_iter().map(|(_, entry)| entry));
            for parts in [1, 3] {
                let joined = crate::state::parse_split::joined();
                let state = crate::parts::forced(parts, || parse(text.as_bytes()).unwrap());
                assert_eq!(crate::state::parse_split::joined() > joined, parts > 1);
                assert_eq!(
                    state.order,
                    by_whole_addresses(&state.resources),
                    "seed {seed}, {parts} parts"
                );
            }
        }
    }

    #[test]
    fn a_file_in_order_keeps_its_order() {
        let text = scrambled_state(200, 12345);
        let state = parse(text.as_bytes()).unwrap();
        let addresses: Vec<String> = each_instance_group(&state)
            .map(|group| group.address().to_string())
            .collect();
        let mut sorted = addresses.clone();
        sorted.sort_by_key(|text| text.parse::<InstanceAddr>().unwrap());
        assert_eq!(addresses, sorted);
        assert!(addresses.windows(2).all(|pair| pair[0] != pair[1]));
    }

    #[test]
    fn an_object_twice_is_refused_wherever_its_entries_stand() {
        let entry = |key: &str| {
            format!(
                r#"{{"module":"module.a[2]","mode":"managed","type":"t","name":"n","provider":"provider[\"registry.terraform.io/hashicorp/t\"]","instances":[{{"index_key":{key},"schema_version":0,"attributes":{{}}}}]}}"#
            )
        };
        let other = r#"{"mode":"managed","type":"t","name":"n","provider":"provider[\"registry.terraform.io/hashicorp/t\"]","instances":[]}"#;
        let text = format!(
            r#"{{"version":4,"serial":1,"lineage":"l","resources":[{},{other},{},{}]}}"#,
            entry("1"),
            entry("2"),
            entry("1")
        );
        let error = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(
            error.contains("module.a[2].t.n[1]") && error.contains("two current objects"),
            "{error}"
        );
    }

    #[test]
    fn groups_gather_an_instances_current_and_deposed_objects() {
        for seed in 1..=20 {
            let text = scrambled_state(80, seed * 104_729);
            let state = parse(text.as_bytes()).unwrap();
            let groups = instance_groups(&state);
            let mut seen = 0;
            for pair in groups.windows(2) {
                assert!(pair[0].address() < pair[1].address(), "seed {seed}");
            }
            for group in &groups {
                let objects = group.current.iter().count() + group.deposed.len();
                assert!(objects > 0);
                seen += objects;
                for instance in group.current.iter().chain(&group.deposed) {
                    assert_eq!(instance.address(group.resource), group.address());
                }
                assert!(
                    group
                        .current
                        .is_none_or(|current| current.deposed.is_none())
                );
                assert!(group.deposed.iter().all(|object| object.deposed.is_some()));
                assert!(
                    group
                        .deposed
                        .windows(2)
                        .all(|pair| pair[0].deposed < pair[1].deposed)
                );
            }
            assert_eq!(seen, state.order.len(), "seed {seed}");
        }
    }

    #[test]
    fn a_large_states_flavour_and_order_are_the_same_without_a_second_thread() {
        // Enough resources for the flavour to be told on its own thread, in reverse order, and one
        // instance with OpenTofu's `skip_destroy` (evidence for OpenTofu).
        let count = 20_001;
        let entries: Vec<String> = (0..count)
            .rev()
            .map(|index| {
                let skip = if index == 7 { r#""skip_destroy":true,"# } else { "" };
                format!(
                    r#"{{"mode":"managed","type":"t","name":"r{index}","provider":"provider[\"registry.terraform.io/hashicorp/t\"]","instances":[{{{skip}"schema_version":0,"attributes":{{}}}}]}}"#
                )
            })
            .collect();
        let text = format!(
            r#"{{"version":4,"serial":1,"lineage":"l","resources":[{}]}}"#,
            entries.join(",")
        );
        let threaded = parse(text.as_bytes()).unwrap();
        let alone = crate::parts::without_threads(|| parse(text.as_bytes()).unwrap());
        assert_eq!(
            threaded.style.flavour,
            crate::state::layout::Flavour::OpenTofu
        );
        assert_eq!(alone.style.flavour, threaded.style.flavour);
        assert_eq!(alone.order, threaded.order);
        assert_eq!(threaded.order, by_whole_addresses(&threaded.resources));
    }

    #[test]
    fn groups_walked_in_two_parts_are_the_groups_walked_in_one() {
        let describe = |group: InstanceGroup<'_, '_>| {
            let deposed: Vec<String> = group
                .deposed
                .iter()
                .filter_map(|object| object.deposed.as_deref().map(str::to_owned))
                .collect();
            (group.address(), group.current.is_some(), deposed)
        };
        for seed in 1..=10 {
            let text = scrambled_state(40, seed * 15_485_863);
            let state = parse(text.as_bytes()).unwrap();
            let whole: Vec<_> = each_instance_group(&state).map(describe).collect();
            let objects = state.order.len();
            // Where each group starts, by counting the whole walk's objects.
            let mut starts = vec![0];
            for group in each_instance_group(&state) {
                let count = group.current.iter().count() + group.deposed.len();
                starts.push(starts.last().unwrap() + count);
            }
            for at in 0..=objects + 1 {
                let start = group_start_from(&state, at);
                let first = starts
                    .iter()
                    .copied()
                    .find(|&start| start >= at)
                    .unwrap_or(objects);
                assert_eq!(start, first, "seed {seed} at {at}");
                let mut parts: Vec<_> = each_instance_group_in(&state, 0..start)
                    .map(describe)
                    .collect();
                parts.extend(each_instance_group_in(&state, start..objects).map(describe));
                assert_eq!(parts, whole, "seed {seed}, split at {start} (from {at})");
            }
            for count in 1..=objects + 2 {
                let ranges = group_ranges(&state, count);
                let walked: Vec<_> = ranges
                    .iter()
                    .flat_map(|range| each_instance_group_in(&state, range.clone()).map(describe))
                    .collect();
                assert_eq!(walked, whole, "seed {seed}, {count} parts: {ranges:?}");
                assert!(ranges.iter().all(|range| starts.contains(&range.start)));
                assert!(ranges.len() <= count && ranges.iter().all(|range| !range.is_empty()));
            }
        }
    }

    #[test]
    fn a_group_is_the_instance_its_address_names_and_no_other() {
        let text = scrambled_state(60, 271_828);
        let state = parse(text.as_bytes()).unwrap();
        let groups = instance_groups(&state);
        let addresses: Vec<InstanceAddr> = groups.iter().map(InstanceGroup::address).collect();
        for group in &groups {
            let named: Vec<&InstanceAddr> = addresses
                .iter()
                .filter(|address| group.is(address))
                .collect();
            assert_eq!(named, [&group.address()]);
        }
    }

    #[test]
    fn a_group_is_found_by_halves_as_by_looking_at_each() {
        for seed in 1..=10 {
            let text = scrambled_state(60, seed * 31_337);
            let state = parse(text.as_bytes()).unwrap();
            let groups = instance_groups(&state);
            let mut addresses: Vec<InstanceAddr> =
                groups.iter().map(InstanceGroup::address).collect();
            // And addresses the state does not hold: other keys, another name, another module.
            for text in [
                "aws_instance.web[99]",
                "aws_instance.nothing",
                "module.zz.aws_instance.web",
                "data.null_resource.a[\"k99\"]",
            ] {
                addresses.push(text.parse().unwrap());
            }
            for address in &addresses {
                let by_halves = find_group(&groups, address).map(InstanceGroup::address);
                let by_each = groups
                    .iter()
                    .find(|group| group.is(address))
                    .map(InstanceGroup::address);
                assert_eq!(by_halves, by_each, "seed {seed}: {address}");
            }
        }
    }
}
