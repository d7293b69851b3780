//! The audit's rules: stable ids, severities, titles and generic help (each finding's own hint, with
//! its address, is made in `audit`), for every report format. The
//! `delete-*` rules are violations (exit 3): a destroy would remove what something protects.

use crate::scan::{RuleInfo, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    DeleteProtected,
    DeletePreventDestroy,
    DeleteSkipDestroy,
    DeleteMidOperation,
    DestroyBlocked,
    NotInConfig,
    TaintedAfterTimeout,
    DeposedObject,
    Forget,
}

impl Rule {
    pub const ALL: [Rule; 9] = [
        Rule::DeleteProtected,
        Rule::DeletePreventDestroy,
        Rule::DeleteSkipDestroy,
        Rule::DeleteMidOperation,
        Rule::DestroyBlocked,
        Rule::NotInConfig,
        Rule::TaintedAfterTimeout,
        Rule::DeposedObject,
        Rule::Forget,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::DeleteProtected => "delete-protected",
            Rule::DeletePreventDestroy => "delete-prevent-destroy",
            Rule::DeleteSkipDestroy => "delete-skip-destroy",
            Rule::DeleteMidOperation => "delete-mid-operation",
            Rule::DestroyBlocked => "destroy-blocked",
            Rule::NotInConfig => "not-in-config",
            Rule::TaintedAfterTimeout => "tainted-after-timeout",
            Rule::DeposedObject => "deposed-object",
            Rule::Forget => "forget",
        }
    }

    /// A violation stops the destroy: exit 3.
    pub fn violation(self) -> bool {
        matches!(
            self,
            Rule::DeleteProtected
                | Rule::DeletePreventDestroy
                | Rule::DeleteSkipDestroy
                | Rule::DeleteMidOperation
        )
    }

    pub fn severity(self) -> Severity {
        match self {
            _ if self.violation() => Severity::Error,
            Rule::DestroyBlocked
            | Rule::NotInConfig
            | Rule::TaintedAfterTimeout
            | Rule::DeposedObject => Severity::Warning,
            _ => Severity::Note,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Rule::DeleteProtected => "The destroy deletes a type or address the policy protects",
            Rule::DeletePreventDestroy => {
                "The destroy deletes what the configuration marks prevent_destroy"
            }
            Rule::DeleteSkipDestroy => {
                "The plan deletes what skip_destroy or a `destroy = false` lifecycle means to keep"
            }
            Rule::DeleteMidOperation => {
                "The destroy deletes an object whose create, update or delete has not finished"
            }
            Rule::DestroyBlocked => "prevent_destroy makes the destroy fail",
            Rule::NotInConfig => {
                "The instance's resource block is gone from the configuration: nothing there protects it"
            }
            Rule::TaintedAfterTimeout => {
                "Tainted while still being created: the remote object may be healthy"
            }
            Rule::DeposedObject => "A deposed object is waiting to be destroyed",
            Rule::Forget => "Forgotten, not destroyed: the remote object stays, unmanaged",
        }
    }

    pub fn help(self) -> &'static str {
        match self {
            Rule::DeleteProtected => {
                "keep it out of the destroy (`-target` the rest), or change the policy if it is really to go"
            }
            Rule::DeletePreventDestroy => {
                "Terraform refuses to plan this delete while `prevent_destroy` is set, so this plan was made without it (before it was added, or with another configuration): plan again with this configuration, or remove `prevent_destroy` first if the object is really to go"
            }
            Rule::DeleteSkipDestroy => {
                "`statectl forget ADDRESS` first (or destroy with OpenTofu, which honours `skip_destroy`)"
            }
            Rule::DeleteMidOperation => {
                "wait for the operation to finish and refresh it first (`statectl refresh --target ADDRESS --write`, or `terraform apply -refresh-only -target=ADDRESS`), then plan the destroy again"
            }
            Rule::DestroyBlocked => {
                "remove `prevent_destroy` first if it is really to go, or keep it out of the destroy"
            }
            Rule::NotInConfig => {
                "the next plan deletes it; add a `removed` block with `lifecycle { destroy = false }` to keep the object"
            }
            Rule::TaintedAfterTimeout => {
                "refresh it first (`statectl refresh --target ADDRESS --write`, or `terraform apply -refresh-only -target=ADDRESS`); if it finished creating, `statectl untaint ADDRESS`"
            }
            Rule::DeposedObject => {
                "make sure nothing still uses the old object; if its remote object is already gone, or must stay, `statectl forget ADDRESS --deposed KEY` drops it from the state"
            }
            Rule::Forget => "delete the remote object by hand if it should go",
        }
    }

    pub fn info(self) -> RuleInfo {
        let texts = (self.id(), self.title(), self.help());
        RuleInfo::of(&Rule::ALL, &self, texts, self.severity())
    }
}
