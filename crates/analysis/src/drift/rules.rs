//! What `statectl drift` reports, as rules for the shared report formats (SARIF, GitHub
//! annotations, GitLab Code Quality, JUnit, Markdown): an instance changed outside Terraform, an
//! instance deleted outside Terraform, an instance that could not be read. Their ids are part of
//! statectl's interface: never rename one.

use crate::scan::{RuleInfo, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriftRule {
    Changed,
    Gone,
    NotRead,
}

impl DriftRule {
    pub const ALL: [DriftRule; 3] = [DriftRule::Changed, DriftRule::Gone, DriftRule::NotRead];

    pub fn id(self) -> &'static str {
        match self {
            DriftRule::Changed => "drift-changed",
            DriftRule::Gone => "drift-gone",
            DriftRule::NotRead => "drift-not-read",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            DriftRule::Changed => Severity::Warning,
            DriftRule::Gone | DriftRule::NotRead => Severity::Error,
        }
    }

    pub fn info(self) -> RuleInfo {
        let texts = match self {
            DriftRule::Changed => (
                self.id(),
                "The remote object changed outside Terraform",
                "Restore it with `terraform apply`, or accept the change into the state with `terraform apply -refresh-only`; known noise: `--ignore TYPE.PATH` or `[[drift.ignore]]`",
            ),
            DriftRule::Gone => (
                self.id(),
                "The remote object was deleted outside Terraform",
                "`terraform apply` creates it again; `terraform apply -refresh-only` forgets it",
            ),
            DriftRule::NotRead => (
                self.id(),
                "The provider could not read the instance, so whether it drifted is unknown",
                "Fix what the error says (credentials, the provider's configuration, `terraform init`) and run drift again",
            ),
        };
        RuleInfo::of(&DriftRule::ALL, &self, texts, self.severity())
    }
}
