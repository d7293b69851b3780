//! How the input was written: indentation, what follows the last brace, and which program's key order
//! (Terraform's or OpenTofu's) a re-rendered instance must follow.

use crate::json::{Layout, Span};

/// Instance fields in Terraform's writer order (`instanceObjectStateV4`). Fields Terraform never writes
/// (OpenTofu's) come last so a Terraform-flavoured file that somehow holds them keeps them.
pub const TERRAFORM_INSTANCE_ORDER: &[&str] = &[
    "index_key",
    "status",
    "deposed",
    "schema_version",
    "attributes",
    "attributes_flat",
    "sensitive_attributes",
    "identity_schema_version",
    "identity",
    "private",
    "dependencies",
    "depends_on",
    "create_before_destroy",
    "provider",
    "skip_destroy",
];

/// Instance fields in OpenTofu's writer order (1.12 and main): every field either program writes, so
/// also the set of fields the parser knows.
pub const OPENTOFU_INSTANCE_ORDER: &[&str] = &[
    "index_key",
    "status",
    "deposed",
    "provider",
    "schema_version",
    "attributes",
    "attributes_flat",
    "sensitive_attributes",
    "private",
    "dependencies",
    "depends_on",
    "create_before_destroy",
    "skip_destroy",
    "identity",
    "identity_schema_version",
];

/// Which writer's conventions to follow when rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Terraform,
    OpenTofu,
}

/// The input's layout, detected once and kept for every rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    pub layout: Layout,
    /// The bytes after the closing brace: Terraform's `\n`, OpenTofu 1.12's `\n\n`, or nothing.
    pub trailer: String,
    pub flavour: Flavour,
}

impl Style {
    /// Reads the layout from the whitespace between the top-level `{` and its first key.
    pub fn detect(source: &str, document: Span, flavour: Flavour) -> Style {
        let after_brace = &source[document.start + 1..];
        let gap = &after_brace[..after_brace.len() - after_brace.trim_start().len()];
        let layout = match gap.rfind('\n') {
            Some(newline) if newline + 1 < gap.len() => Layout::indented(&gap[newline + 1..]),
            _ => Layout::compact(),
        };
        Style {
            layout,
            trailer: source[document.end..].to_owned(),
            flavour,
        }
    }
}

/// The whitespace that starts the line on which `at` stands, when only whitespace precedes `at` on
/// that line: the indentation a re-rendered value must keep.
pub fn line_indent(source: &str, at: usize) -> Option<&str> {
    let line_start = source[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let prefix = &source[line_start..at];
    prefix
        .bytes()
        .all(|byte| byte == b' ' || byte == b'\t')
        .then_some(prefix)
}
