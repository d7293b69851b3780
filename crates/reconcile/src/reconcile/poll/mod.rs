//! The poller: how `statectl refresh` waits for a remote object to settle, as a pure, deterministic
//! policy that never touches the network or the clock itself.
//!
//! It follows terraform-plugin-sdk v2's waiter (`retry.StateChangeConf`) without the SDK quirks: explicit
//! pending/target/failed states (an unknown state fails at once instead of polling until the
//! timeout), consecutive target hits, eventual consistency after a create, OSB's 410 rule, jittered
//! exponential backoff, a retry budget for transient failures, `Retry-After` honoured, and an overall
//! deadline that no scheduled poll crosses.
//!
//! The pieces, one concept a file:
//! - [`policy`]: the knobs ([`PollPolicy`]) and their profile-file form;
//! - [`status`]: what a state string means ([`StatusClass`], [`States`]);
//! - [`observation`]: what one attempt saw, and the operation being waited on;
//! - [`retry`]: turning an HTTP answer or a transport failure into an [`Observation`];
//! - [`backoff`]: jittered exponential waits with an injectable random source;
//! - [`machine`]: the per-instance state machine ([`Poller`]) that turns observations into a
//!   [`Decision`];
//! - [`driver`]: an async loop that runs a [`Poller`] with an injected attempt, clock and sleep.

pub mod backoff;
pub mod decision;
pub mod driver;
pub mod machine;
pub mod observation;
pub mod policy;
pub mod retry;
pub mod status;

pub use backoff::Backoff;
pub use decision::{Decision, Reason, Terminal};
pub use driver::run;
pub use machine::{Poller, RequestTimeouts};
pub use observation::{Observation, Operation};
pub use policy::{Jitter, PollPolicy, PollPolicyError};
pub use retry::{Class, classify, observe_response, observe_transport, retry_after};
pub use status::{States, StatusClass};
