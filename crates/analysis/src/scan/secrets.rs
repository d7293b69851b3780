//! Which values of an instance a finding must not show: those its `sensitive_attributes` mark (the
//! whole top-level attribute a marked path starts in, so more is hidden, never less). Evidence and
//! messages say `(sensitive value)` for them instead, as Terraform does. Detection itself still
//! reads the real values: a masked status is still recognised as transitional.

use statectl_state::state::model::Instance;
use statectl_state::state::sensitive::{CtyStep, MASK, paths_to_mask, with_copies};

use crate::scan::finding::{Evidence, Finding};
use crate::scan::status::decoded_string;

/// The top-level attributes of one instance that hold secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Secrets {
    /// None marked.
    None,
    /// These attributes (or something inside them) are marked.
    Attributes(Vec<String>),
    /// `sensitive_attributes` could not be read: every value is treated as a secret.
    Unreadable,
}

impl Secrets {
    /// The secrets of `instance` (of a resource of `type_name`) in the state text `source`.
    pub(crate) fn of(instance: &Instance<'_>, type_name: &str, source: &str) -> Secrets {
        let Some(span) = instance.sensitive_attributes() else {
            return Secrets::None;
        };
        let mut names: Vec<String> = with_copies(type_name, paths_to_mask(span.of(source)))
            .into_iter()
            .map(|path| match path.into_iter().next() {
                Some(CtyStep::Attribute(name)) => name,
                // A path that does not start with an attribute name (or has no step at all: the
                // whole object, or text that does not read as paths) cannot be placed: all of it.
                _ => String::new(),
            })
            .collect();
        if names.iter().any(String::is_empty) {
            return Secrets::Unreadable;
        }
        names.sort();
        names.dedup();
        if names.is_empty() {
            Secrets::None
        } else {
            Secrets::Attributes(names)
        }
    }

    /// Whether the value at `path` (an attribute name, or a path written from one: `status.phase`,
    /// `nodes[0].state`, `$.state`) may hold a secret.
    pub(crate) fn covers(&self, path: &str) -> bool {
        match self {
            Secrets::None => false,
            Secrets::Unreadable => true,
            Secrets::Attributes(names) => {
                let path = path.strip_prefix("$.").unwrap_or(path);
                let first = path.split(['.', '[']).next().unwrap_or(path);
                names.iter().any(|name| name == first)
            }
        }
    }

    /// `evidence` as it may be shown: its value masked when `secrets` covers its path.
    pub(crate) fn evidence(&self, evidence: &Evidence) -> Evidence {
        Evidence {
            path: evidence.path.clone(),
            value: if self.covers(&evidence.path) {
                masked_value()
            } else {
                evidence.value.clone()
            },
        }
    }

    /// `finding` with the values it shows of secret attributes masked: in its evidence, and in its
    /// message wherever the message quotes that evidence (`path = value`, `` `path` = `value` ``).
    pub(crate) fn mask(&self, finding: &mut Finding) {
        if *self == Secrets::None {
            return;
        }
        let masked = masked_value();
        for evidence in &mut finding.evidence {
            if !self.covers(&evidence.path) || evidence.value == masked {
                continue;
            }
            let decoded = decoded_string(&evidence.value).unwrap_or_else(|| evidence.value.clone());
            finding.message = finding
                .message
                .replace(
                    &format!("{} = {}", evidence.path, evidence.value),
                    &format!("{} = {masked}", evidence.path),
                )
                .replace(
                    &format!("`{}` = `{decoded}`", evidence.path),
                    &format!("`{}` = `{MASK}`", evidence.path),
                );
            evidence.value.clone_from(&masked);
        }
    }
}

/// [`MASK`] as an evidence value (a JSON string, as evidence values are JSON).
fn masked_value() -> String {
    serde_json::Value::String(MASK.to_owned()).to_string()
}
