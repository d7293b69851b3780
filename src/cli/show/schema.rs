//! The schema `show` lays an instance out by, as `terraform state show` does: the schemas of
//! Terraform's built-in provider (`terraform_data`, `terraform_remote_state`), which statectl knows
//! without running anything. For another provider there is none (Terraform asks the provider's
//! plugin), and the layout follows the values' own JSON types.

use statectl_reconcile::reconcile::plugin::value::{Attribute, AttributeKind, Block, Type};

use crate::state::address::Mode;

/// The provider address the built-in provider's resources carry in a state.
const BUILTIN: &str = "terraform.io/builtin/terraform";

/// The schema of `type_name` in `mode` from `provider` (a state's provider address, such as
/// `provider["terraform.io/builtin/terraform"]`), when statectl knows it.
pub(super) fn known(provider: &str, mode: Mode, type_name: &str) -> Option<Block> {
    if !provider.contains(&format!("\"{BUILTIN}\"")) {
        return None;
    }
    let attributes = match (mode, type_name) {
        (Mode::Managed, "terraform_data") => vec![
            attribute("id", Type::String),
            attribute("input", Type::Dynamic),
            attribute("output", Type::Dynamic),
            attribute("triggers_replace", Type::Dynamic),
        ],
        (Mode::Data, "terraform_remote_state") => vec![
            attribute("backend", Type::String),
            attribute("config", Type::Dynamic),
            attribute("defaults", Type::Dynamic),
            attribute("outputs", Type::Dynamic),
            attribute("workspace", Type::String),
        ],
        _ => return None,
    };
    Some(Block {
        attributes,
        blocks: Vec::new(),
    })
}

/// An optional attribute of type `ty`, as the built-in provider declares them.
pub(super) fn attribute(name: &str, ty: Type) -> Attribute {
    Attribute {
        name: name.to_owned(),
        kind: AttributeKind::Typed(ty),
        sensitive: false,
        optional: true,
        computed: false,
        required: false,
    }
}

/// A dynamic value as a state holds it, `{"value": V, "type": T}`: V, when `value` is that shape
/// (exactly those two members, `type` a cty type).
pub(super) fn unwrap_dynamic(value: &serde_json::Value) -> Option<&serde_json::Value> {
    let serde_json::Value::Object(members) = value else {
        return None;
    };
    if members.len() != 2 {
        return None;
    }
    let inner = members.get("value")?;
    Type::from_value(members.get("type")?).ok()?;
    Some(inner)
}
