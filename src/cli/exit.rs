//! The exit codes, the same for every command (see README, "Exit codes").

/// Done; nothing found, nothing to change.
pub const SUCCESS: i32 = 0;
/// Findings, differences or pending changes.
pub const FINDINGS: i32 = 1;
/// Bad input, unreadable state, network failure, usage error (clap uses 2 too).
pub const ERROR: i32 = 2;
/// A lifecycle rule refused the change; nothing was written.
pub const BLOCKED: i32 = 3;
/// Interrupted; nothing half-written.
pub const INTERRUPTED: i32 = 130;
