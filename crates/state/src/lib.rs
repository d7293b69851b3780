//! statectl's state engine: the JSON cursor and Go-compatible writer (`json`), and the state model,
//! parser, addresses, mutations and the store with Terraform's lock (`state`). It builds without any
//! network or async crate; the `statectl` package re-exports its modules under the same names. Also
//! the one duration parser (`duration`), which the lock timeout needs first.

pub mod duration;
pub mod json;
pub mod state;
