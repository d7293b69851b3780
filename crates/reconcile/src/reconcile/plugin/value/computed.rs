//! The attributes of a schema that only the provider sets (computed, neither optional nor
//! required): no configuration can set them, so a change in one is the provider's bookkeeping, not
//! something a plan would undo. `statectl drift` counts such changes as noise by default.

use super::schema::{Attribute, AttributeKind, Block, Nesting};

/// One step of a computed-only attribute's path: an attribute or block name, or any element of a
/// list, set or map (`None`).
pub type PatternStep = Option<String>;

/// The paths, from the resource's attributes object, of every computed-only attribute in `block`,
/// nested blocks and nested attributes included (a list, set or map element is any element).
pub fn computed_only_paths(block: &Block) -> Vec<Vec<PatternStep>> {
    let mut paths = Vec::new();
    walk_block(block, &mut Vec::new(), &mut paths);
    paths
}

fn walk_block(block: &Block, prefix: &mut Vec<PatternStep>, paths: &mut Vec<Vec<PatternStep>>) {
    walk_attributes(&block.attributes, prefix, paths);
    for nested in &block.blocks {
        prefix.push(Some(nested.name.clone()));
        into_elements(nested.nesting, prefix, |prefix| {
            walk_block(&nested.block, prefix, paths);
        });
        prefix.pop();
    }
}

fn walk_attributes(
    attributes: &[Attribute],
    prefix: &mut Vec<PatternStep>,
    paths: &mut Vec<Vec<PatternStep>>,
) {
    for attribute in attributes {
        prefix.push(Some(attribute.name.clone()));
        if attribute.computed && !attribute.optional && !attribute.required {
            paths.push(prefix.clone());
        } else if let AttributeKind::Nested(nested) = &attribute.kind {
            into_elements(nested.nesting, prefix, |prefix| {
                walk_attributes(&nested.attributes, prefix, paths);
            });
        }
        prefix.pop();
    }
}

/// Runs `walk` with `prefix` one step deeper (any element, `None`) when `nesting` is a list, set or
/// map of its children; a single or group nesting holds them directly.
fn into_elements(
    nesting: Nesting,
    prefix: &mut Vec<PatternStep>,
    walk: impl FnOnce(&mut Vec<PatternStep>),
) {
    let element = !matches!(nesting, Nesting::Single | Nesting::Group);
    if element {
        prefix.push(None);
    }
    walk(prefix);
    if element {
        prefix.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::plugin::value::schema::tests::{attribute, nested_attribute};
    use crate::reconcile::plugin::value::{NestedBlock, Type};

    fn computed(name: &str, optional: bool) -> Attribute {
        Attribute {
            computed: true,
            optional,
            ..attribute(name, Type::String, false)
        }
    }

    #[test]
    fn lists_the_attributes_only_the_provider_sets_at_any_depth() {
        let block = Block {
            attributes: vec![
                computed("arn", false),
                computed("tags_all", true),
                attribute("name", Type::String, false),
                nested_attribute(
                    "rules",
                    Nesting::Set,
                    vec![computed("rule_id", false), computed("port", true)],
                ),
            ],
            blocks: vec![NestedBlock {
                name: "root_block_device".into(),
                nesting: Nesting::List,
                block: Block {
                    attributes: vec![computed("volume_id", false)],
                    blocks: Vec::new(),
                },
                min_items: 0,
                max_items: 1,
            }],
        };
        let name = |text: &str| Some(text.to_owned());
        assert_eq!(
            computed_only_paths(&block),
            [
                vec![name("arn")],
                vec![name("rules"), None, name("rule_id")],
                vec![name("root_block_device"), None, name("volume_id")],
            ]
        );
    }
}
