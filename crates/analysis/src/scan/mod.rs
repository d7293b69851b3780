//! `scan`: finding what a state says is unfinished or risky (transitional and failed remote states,
//! async creates with missing computed attributes, tainted-after-timeout instances, deposed objects,
//! missing ids, failed checks, OpenTofu's `skip_destroy` at risk), as findings with a stable rule id,
//! a severity, evidence and a hint naming the command that fixes it.

pub(crate) mod catalog;
pub(crate) mod checks;
pub(crate) mod detect;
pub mod discover;
pub(crate) mod finding;
pub mod hint;
pub mod rules;
pub(crate) mod secrets;
pub mod select;
pub mod status;

pub use catalog::Catalog;
pub use detect::{Detected, noting, scan};
pub use finding::{Evidence, Finding, Rule, RuleInfo, Severity};
pub use rules::Rules;
