//! The `lifecycle` arguments that say something about destroying, and how their values are read.

use statectl_state::state::address::Mode;

use super::{ConfigResource, Place};

/// The lifecycle arguments this module reads. Others (`ignore_changes`, `replace_triggered_by`,
/// conditions) say nothing about destroying.
#[derive(Debug, Default)]
pub(super) struct Lifecycle {
    pub(super) prevent_destroy: Option<bool>,
    pub(super) create_before_destroy: Option<bool>,
    pub(super) destroy: Option<bool>,
}

impl Lifecycle {
    pub(super) fn setting(&mut self, argument: &str) -> Option<&mut Option<bool>> {
        match argument {
            "prevent_destroy" => Some(&mut self.prevent_destroy),
            "create_before_destroy" => Some(&mut self.create_before_destroy),
            "destroy" => Some(&mut self.destroy),
            _ => None,
        }
    }

    pub(super) fn resource(
        self,
        module: &[String],
        mode: Mode,
        type_name: &str,
        name: &str,
        place: &Place,
    ) -> ConfigResource {
        ConfigResource {
            module: module.to_vec(),
            mode,
            type_name: type_name.to_owned(),
            name: name.to_owned(),
            prevent_destroy: self.prevent_destroy.unwrap_or(false),
            create_before_destroy: self.create_before_destroy.unwrap_or(false),
            destroy: self.destroy,
            file: place.file.clone(),
            line: place.line,
        }
    }
}

pub(super) fn not_literal(argument: &str) -> String {
    format!("lifecycle argument `{argument}` must be a literal true or false")
}

/// Terraform rejects these for data resources rather than ignoring them.
pub(super) fn managed_only(argument: &str) -> String {
    format!(
        "lifecycle argument `{argument}` is defined only for managed resources (`resource` blocks), not for `data` blocks"
    )
}

/// Terraform converts a quoted value to a bool as cty does, which takes these four strings.
pub(super) fn string_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}
