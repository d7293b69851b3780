//! Terraform's order of resource instances, the order `terraform state list` prints them in, and the
//! grouping of a file's instance objects (current and deposed, possibly in two resource entries that
//! Go would merge) by instance address.

use std::cmp::Ordering;

use crate::state::address::{InstanceAddr, InstanceKey, ResourceAddr};
use crate::state::model::{Instance, Resource, State};

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

/// Compares two instances as Terraform sorts them; the address module's `Ord` is Terraform's order.
fn compare(
    left: (&ResourceAddr, Option<&InstanceKey>),
    right: (&ResourceAddr, Option<&InstanceKey>),
) -> Ordering {
    left.0.cmp(right.0).then_with(|| match (left.1, right.1) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(left), Some(right)) => left.cmp(right),
    })
}

/// Every resource instance in Terraform's order, with its objects.
pub fn instance_groups<'s, 'a>(state: &'s State<'a>) -> Vec<InstanceGroup<'s, 'a>> {
    let mut objects: Vec<(&'s Resource<'a>, &'s Instance<'a>)> = state.instances().collect();
    objects.sort_by(|left, right| {
        compare(
            (&left.0.address, left.1.index_key.as_ref()),
            (&right.0.address, right.1.index_key.as_ref()),
        )
        .then_with(|| left.1.deposed.cmp(&right.1.deposed))
    });
    let mut groups: Vec<InstanceGroup<'s, 'a>> = Vec::new();
    for (resource, instance) in objects {
        let key = instance.index_key.as_ref();
        let same = groups.last().is_some_and(|group| {
            compare(
                (&group.resource.address, group.key),
                (&resource.address, key),
            ) == Ordering::Equal
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
