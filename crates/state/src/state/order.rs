//! Terraform's order of resource instances, the order `terraform state list` prints them in, and the
//! grouping of a file's instance objects (current and deposed, possibly in two resource entries that
//! Go would merge) by instance address.
//!
//! The parser sorts once ([`sort_objects`]) and checks for duplicates on the way; everything that
//! walks instances in order reuses that.

use std::cmp::Ordering;

use crate::state::address::{InstanceAddr, InstanceKey};
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

/// Every instance object of `resources` in Terraform's order (resource address as `AbsResourceInstance.Less`
/// orders it, then instance key, then deposed key), refusing duplicates as Go's reader does.
pub fn sort_objects(resources: &[Resource<'_>]) -> Result<Vec<ObjectRef>, Duplicate> {
    let mut by_address: Vec<u32> = (0..resources.len() as u32).collect();
    // Terraform writes resources in the text order of their module addresses, where a nested
    // module's resources stand beside their parent's; this order puts shallower modules first. Put
    // them apart by depth first (a cheap key), and the sort below finds long runs already in order
    // instead of merging thousands of short ones.
    by_address.sort_by_key(|&resource| resources[resource as usize].address.module.0.len());
    // Stable, so entries that Go would merge keep their file order.
    by_address.sort_by(|&left, &right| {
        resources[left as usize]
            .address
            .cmp(&resources[right as usize].address)
    });
    let mut order = Vec::with_capacity(
        resources
            .iter()
            .map(|resource| resource.instances.len())
            .sum(),
    );
    for same_address in by_address.chunk_by(|&left, &right| {
        resources[left as usize].address == resources[right as usize].address
    }) {
        let start = order.len();
        for &resource in same_address {
            let count = resources[resource as usize].instances.len() as u32;
            order.extend((0..count).map(|instance| ObjectRef { resource, instance }));
        }
        let objects = &mut order[start..];
        let instance = |object: &ObjectRef| {
            &resources[object.resource as usize].instances[object.instance as usize]
        };
        // Files Terraform wrote are sorted already; checking is cheaper than sorting.
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

    pub fn tainted(&self) -> bool {
        self.current.is_some_and(|current| current.tainted)
    }
}

/// Every resource instance in Terraform's order, with its objects.
pub fn instance_groups<'s, 'a>(state: &'s State<'a>) -> Vec<InstanceGroup<'s, 'a>> {
    let mut groups: Vec<InstanceGroup<'s, 'a>> = Vec::with_capacity(state.order.len());
    for object in &state.order {
        let resource = &state.resources[object.resource as usize];
        let instance = &resource.instances[object.instance as usize];
        let key = instance.index_key.as_ref();
        let same = groups.last().is_some_and(|group| {
            group.key == key
                && (std::ptr::eq(group.resource, resource)
                    || group.resource.address.cmp(&resource.address) == Ordering::Equal)
        });
        if !same {
            groups.push(InstanceGroup {
                resource,
                key,
                current: None,
                deposed: Vec::new(),
            });
        }
        let group = groups.last_mut().expect("a group was just pushed");
        if instance.deposed.is_some() {
            group.deposed.push(instance);
        } else {
            group.current = Some(instance);
        }
    }
    groups
}
