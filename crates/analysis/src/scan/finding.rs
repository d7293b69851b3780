//! What a scan reports: findings, their rules (stable ids, default severities, help) and severities.

use std::fmt;

use serde::{Deserialize, Serialize};
use statectl_state::json::LineColumn;

/// How serious a finding is. Ordered: `Note < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// What a report needs to know of a rule, whichever command's rules it is (scan's detectors, the
/// audit's rules): the renderers of SARIF, JUnit, GitHub and Markdown take these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleInfo {
    /// The rule's place in its command's list: reports order rules by it.
    pub order: u8,
    pub id: &'static str,
    pub title: &'static str,
    pub help: &'static str,
    pub default_severity: Severity,
}

impl RuleInfo {
    /// The info of `rule`, whose place in `all` (its command's list, in report order) becomes its
    /// `order`. The texts are the rule's own.
    pub fn of<R: PartialEq>(
        all: &[R],
        rule: &R,
        (id, title, help): (&'static str, &'static str, &'static str),
        default_severity: Severity,
    ) -> RuleInfo {
        RuleInfo {
            order: all
                .iter()
                .position(|each| each == rule)
                .expect("every rule is in its command's list") as u8,
            id,
            title,
            help,
            default_severity,
        }
    }
}

/// The detectors. Their ids are part of statectl's interface (rules files, SARIF, ignores): never
/// rename one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    TransitionalState,
    TransitionalStateGeneric,
    FailedState,
    MissingComputedAttribute,
    Tainted,
    TaintedAfterTimeout,
    DeposedObject,
    MissingId,
    CheckFailed,
    SkipDestroyAtRisk,
}

impl Rule {
    pub const ALL: [Rule; 10] = [
        Rule::TransitionalState,
        Rule::TransitionalStateGeneric,
        Rule::FailedState,
        Rule::MissingComputedAttribute,
        Rule::Tainted,
        Rule::TaintedAfterTimeout,
        Rule::DeposedObject,
        Rule::MissingId,
        Rule::CheckFailed,
        Rule::SkipDestroyAtRisk,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::TransitionalState => "transitional-state",
            Rule::TransitionalStateGeneric => "transitional-state-generic",
            Rule::FailedState => "failed-state",
            Rule::MissingComputedAttribute => "missing-computed-attribute",
            Rule::Tainted => "tainted",
            Rule::TaintedAfterTimeout => "tainted-after-timeout",
            Rule::DeposedObject => "deposed-object",
            Rule::MissingId => "missing-id",
            Rule::CheckFailed => "check-failed",
            Rule::SkipDestroyAtRisk => "skip-destroy-at-risk",
        }
    }

    pub fn info(self) -> RuleInfo {
        let texts = (self.id(), self.title(), self.help());
        RuleInfo::of(&Rule::ALL, &self, texts, self.default_severity())
    }

    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|rule| rule.id() == id)
    }

    pub fn default_severity(self) -> Severity {
        match self {
            Rule::FailedState | Rule::TaintedAfterTimeout => Severity::Error,
            Rule::TransitionalStateGeneric => Severity::Note,
            _ => Severity::Warning,
        }
    }

    /// One line saying what the rule finds.
    pub fn title(self) -> &'static str {
        match self {
            Rule::TransitionalState => {
                "The remote object was still in a transitional state when Terraform saved it"
            }
            Rule::TransitionalStateGeneric => {
                "A status attribute holds a well-known transitional value"
            }
            Rule::FailedState => "The remote object reported a failed state",
            Rule::MissingComputedAttribute => {
                "An asynchronously created object lacks attributes a finished create fills"
            }
            Rule::Tainted => "The instance is tainted: the next apply replaces it",
            Rule::TaintedAfterTimeout => {
                "Tainted while still being created: the remote object may be healthy"
            }
            Rule::DeposedObject => "A deposed object is waiting to be destroyed",
            Rule::MissingId => "A managed instance has a null or empty id",
            Rule::CheckFailed => "A check, precondition or postcondition failed or errored",
            Rule::SkipDestroyAtRisk => {
                "OpenTofu's skip_destroy is in this state, and Terraform drops it"
            }
        }
    }

    /// What to do about it, with the commands that do it (ADDRESS stands for the finding's address;
    /// each finding's own hint names it, quoted for a shell).
    pub fn help(self) -> &'static str {
        match self {
            Rule::TransitionalState | Rule::TransitionalStateGeneric => {
                "refresh it to learn whether the operation finished: `statectl refresh --target ADDRESS --write` where a refresh profile covers the type, else `terraform apply -refresh-only -target=ADDRESS`"
            }
            Rule::FailedState => {
                "inspect the remote object; if it is broken, `statectl taint ADDRESS` and the next `terraform apply` replaces it"
            }
            Rule::MissingComputedAttribute => {
                "refresh it: a finished create fills these attributes (`statectl refresh --target ADDRESS --write`, or `terraform apply -refresh-only -target=ADDRESS`)"
            }
            Rule::Tainted => {
                "if the remote object is healthy, `statectl untaint ADDRESS`; otherwise the next `terraform apply` replaces it"
            }
            Rule::TaintedAfterTimeout => {
                "refresh first (`statectl refresh --target ADDRESS --write`, or `terraform apply -refresh-only -target=ADDRESS`): if the remote object finished creating, `statectl untaint ADDRESS` instead of letting `terraform apply` replace it"
            }
            Rule::DeposedObject => {
                "the next `terraform apply` destroys it; if its remote object is already gone, or must stay, `statectl forget ADDRESS --deposed KEY` drops it from the state"
            }
            Rule::MissingId => {
                "re-import the object (`terraform import ADDRESS ID`) or remove the instance (`statectl forget ADDRESS`)"
            }
            Rule::CheckFailed => {
                "read the failure messages: the infrastructure no longer meets the condition"
            }
            Rule::SkipDestroyAtRisk => {
                "keep writing this state with OpenTofu; a Terraform write loses the flag and a later destroy deletes the object"
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.id())
    }
}

/// An attribute path and the value found there, as JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub path: String,
    pub value: String,
}

impl fmt::Display for Evidence {
    /// `path = value`, the value as JSON.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{} = {}", self.path, self.value)
    }
}

/// One finding in one state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleInfo,
    pub severity: Severity,
    /// The instance address (with ` (deposed object KEY)`), or a check's address.
    pub address: String,
    pub resource_type: Option<String>,
    pub message: String,
    pub evidence: Vec<Evidence>,
    pub hint: String,
    /// Where the instance object starts in the file.
    pub location: Option<LineColumn>,
}
