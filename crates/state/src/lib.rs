//! statectl's state engine: the JSON cursor and Go-compatible writer (`json`), and the state model,
//! parser, addresses, mutations and the store with Terraform's lock (`state`). It builds without any
//! network or async crate; the `statectl` package re-exports its modules under the same names. Also
//! the one duration parser (`duration`), which the lock timeout needs first.

pub mod duration;
pub mod json;
pub mod parts;
pub mod state;

// The store takes Terraform's lock with POSIX record locks and keeps a state's mode and owner: it is
// honest about where it runs (Linux and macOS, where statectl's users are) instead of building
// something that would lock nothing.
#[cfg(not(unix))]
compile_error!(
    "statectl runs on Unix (Linux, macOS): the state store needs POSIX file locks, modes and owners"
);
