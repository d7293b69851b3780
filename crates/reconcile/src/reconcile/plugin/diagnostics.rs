//! What a provider says about a call besides its answer: errors and warnings, each with a summary,
//! an optional detail and an optional attribute path, for one line of a report. A call whose
//! diagnostics hold an error failed, whatever else came back (as in Terraform).

use std::fmt;

use crate::reconcile::plugin::proto::{tfplugin5, tfplugin6};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One step of an attribute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    Attribute(String),
    Key(String),
    Index(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    /// Empty when the diagnostic is about the whole object.
    pub path: Vec<PathStep>,
}

impl Diagnostic {
    /// The attribute path the way Terraform writes references: `tags["Name"]`,
    /// `ebs_block_device[0].volume_size`; empty for none.
    pub fn path_text(&self) -> String {
        let mut text = String::new();
        for step in &self.path {
            match step {
                PathStep::Attribute(name) if text.is_empty() => text.push_str(name),
                PathStep::Attribute(name) => {
                    text.push('.');
                    text.push_str(name);
                }
                PathStep::Key(key) => {
                    text.push_str("[\"");
                    for character in key.chars() {
                        match character {
                            '"' => text.push_str("\\\""),
                            '\\' => text.push_str("\\\\"),
                            _ => text.push(character),
                        }
                    }
                    text.push_str("\"]");
                }
                PathStep::Index(index) => {
                    text.push('[');
                    text.push_str(&index.to_string());
                    text.push(']');
                }
            }
        }
        text
    }
}

/// `Error: SUMMARY (at PATH): DETAIL` on one line: providers write multi-line details, a report line
/// must stay one line, and control characters never reach the terminal.
impl fmt::Display for Diagnostic {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        };
        write!(formatter, "{severity}: {}", one_line(&self.summary))?;
        let path = self.path_text();
        if !path.is_empty() {
            write!(formatter, " (at `{}`)", one_line(&path))?;
        }
        let detail = one_line(&self.detail);
        if !detail.is_empty() {
            write!(formatter, ": {detail}")?;
        }
        Ok(())
    }
}

/// Runs of whitespace become one space; other control characters are escaped.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for character in word.chars() {
            if character.is_control() {
                out.extend(character.escape_default());
            } else {
                out.push(character);
            }
        }
    }
    out
}

/// The errors among `diagnostics`, joined for one message; `None` when there are none.
pub fn errors(diagnostics: &[Diagnostic]) -> Option<String> {
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity == Severity::Error)
        .map(ToString::to_string)
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// Both protocols spell diagnostics the same way in different generated types.
macro_rules! from_protocol {
    ($protocol:ident) => {
        impl From<$protocol::Diagnostic> for Diagnostic {
            fn from(diagnostic: $protocol::Diagnostic) -> Diagnostic {
                use $protocol::attribute_path::step::Selector;
                // INVALID (0) and anything newer count as errors: an unknown severity must not
                // pass for success.
                let severity = if diagnostic.severity() == $protocol::diagnostic::Severity::Warning
                {
                    Severity::Warning
                } else {
                    Severity::Error
                };
                let path = diagnostic
                    .attribute
                    .map(|path| {
                        path.steps
                            .into_iter()
                            .filter_map(|step| {
                                Some(match step.selector? {
                                    Selector::AttributeName(name) => PathStep::Attribute(name),
                                    Selector::ElementKeyString(key) => PathStep::Key(key),
                                    Selector::ElementKeyInt(index) => PathStep::Index(index),
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Diagnostic {
                    severity,
                    summary: diagnostic.summary,
                    detail: diagnostic.detail,
                    path,
                }
            }
        }
    };
}

from_protocol!(tfplugin5);
from_protocol!(tfplugin6);

#[cfg(test)]
mod tests {
    use super::*;
    use tfplugin5::attribute_path::{Step, step::Selector};

    fn step(selector: Selector) -> Step {
        Step {
            selector: Some(selector),
        }
    }

    #[test]
    fn renders_paths_like_references() {
        let diagnostic = Diagnostic::from(tfplugin5::Diagnostic {
            severity: tfplugin5::diagnostic::Severity::Error.into(),
            summary: "Invalid value".into(),
            detail: "expected one of\n\t\"a\", \"b\"\n".into(),
            attribute: Some(tfplugin5::AttributePath {
                steps: vec![
                    step(Selector::AttributeName("ebs_block_device".into())),
                    step(Selector::ElementKeyInt(0)),
                    step(Selector::AttributeName("tags".into())),
                    step(Selector::ElementKeyString("a \"b\"".into())),
                ],
            }),
        });
        assert_eq!(
            diagnostic.to_string(),
            r#"Error: Invalid value (at `ebs_block_device[0].tags["a \"b\""]`): expected one of "a", "b""#
        );
    }

    #[test]
    fn warnings_are_not_errors_and_invalid_severities_are() {
        let warning = Diagnostic::from(tfplugin6::Diagnostic {
            severity: tfplugin6::diagnostic::Severity::Warning.into(),
            summary: "Deprecated\u{1b}[31m".into(),
            detail: String::new(),
            attribute: None,
        });
        assert_eq!(warning.to_string(), "Warning: Deprecated\\u{1b}[31m");
        assert_eq!(errors(std::slice::from_ref(&warning)), None);
        let invalid = Diagnostic::from(tfplugin6::Diagnostic {
            severity: 0,
            summary: "Boom".into(),
            detail: "it broke".into(),
            attribute: None,
        });
        assert_eq!(
            errors(&[warning, invalid.clone(), invalid]).as_deref(),
            Some("Error: Boom: it broke; Error: Boom: it broke")
        );
    }
}
