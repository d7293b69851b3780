//! The defaults of every HTTP client statectl builds: its `User-Agent`, the timeouts its caller
//! chooses, and no redirect followed (a redirect would carry a signature, a token or a password to
//! a host the user did not name); a client that must follow some sets its own policy after.

use std::time::Duration;

/// `statectl/<version>`, the `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("statectl/", env!("CARGO_PKG_VERSION"));

/// How long a client waits: to connect, for each read, and for a whole attempt (body included).
#[derive(Debug, Clone, Copy, Default)]
pub struct Timeouts {
    pub connect: Option<Duration>,
    pub read: Option<Duration>,
    pub attempt: Option<Duration>,
}

/// A client builder with statectl's defaults and `timeouts`; redirects are not followed.
pub fn builder(timeouts: Timeouts) -> reqwest::ClientBuilder {
    let mut builder = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .redirect(reqwest::redirect::Policy::none());
    if let Some(connect) = timeouts.connect {
        builder = builder.connect_timeout(connect);
    }
    if let Some(read) = timeouts.read {
        builder = builder.read_timeout(read);
    }
    if let Some(attempt) = timeouts.attempt {
        builder = builder.timeout(attempt);
    }
    builder
}
