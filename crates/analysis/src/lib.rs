//! statectl's analyses of a state, pure functions over the state model: `scan` (findings), `diff`
//! (the semantic difference of two states), `policy` (the lifecycle rules a mutation is judged by),
//! `audit` (what a destroy or a plan would do to what is protected), `drift` (what a provider read
//! says changed outside Terraform, less the known noise) and `history` (what changed from one
//! version of a state to the next), with the one reader of
//! `.statectl.toml` they share (`settings_file`) and address globs (`glob`).
//!
//! No network, no async runtime, no provider: the compiler holds this crate to the state engine and
//! the configuration reader. Where a hint names `statectl refresh` only for the types a built-in
//! refresh profile covers, the CLI asks the profiles and hands the list in.

pub mod audit;
pub mod diff;
pub mod drift;
pub mod glob;
pub mod history;
pub mod policy;
pub mod scan;
pub mod settings_file;
#[cfg(test)]
mod test_support;
