//! `statectl audit`'s flags resolved: the state, the plan and policy files named, whether and
//! where the configuration's lifecycle rules are read, how the audit is printed and what fails it.

use std::path::Path;

use crate::cli::StateArg;
use crate::cli::audit::Args;
use crate::cli::findings::{FailOn, ReportFormat};
use crate::cli::lifecycle_inputs::ConfigChoice;

/// The resolved flags of `audit`.
#[derive(Debug)]
pub(crate) struct AuditSettings<'a> {
    pub state: &'a StateArg,
    /// `--version`: the earlier version to read instead of the current state.
    pub version: Option<&'a str>,
    /// `--plan`: what the plan does is audited instead of a destroy of everything.
    pub plan: Option<&'a Path>,
    /// `--policy`; `None`: the `[[protect]]` tables of `.statectl.toml`.
    pub policy: Option<&'a Path>,
    pub config: ConfigChoice<'a>,
    pub format: ReportFormat,
    pub fail_on: FailOn,
}

impl<'a> AuditSettings<'a> {
    pub(crate) fn resolve(args: &'a Args) -> AuditSettings<'a> {
        AuditSettings {
            state: &args.state,
            version: args.version.version.as_deref(),
            plan: args.plan.as_deref(),
            policy: args.policy.as_deref(),
            config: ConfigChoice::from_flags(args.state.config.config.as_deref(), args.no_config),
            format: args.format,
            fail_on: args.fail_on,
        }
    }
}
