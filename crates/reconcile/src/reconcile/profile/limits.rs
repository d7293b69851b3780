//! How hard a profile may press on its provider: instances reconciled at once, requests in flight to
//! one host, and requests per second. Providers throttle (OCI answers 429, Cloud Controller queues),
//! and a refresh of thousands of stale instances must not be the reason.

/// A profile's limits; the HTTP client and the scheduler enforce them.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Instances of this profile's provider polled at the same time.
    pub concurrency: usize,
    /// Requests in flight to one host.
    pub per_host: usize,
    /// Requests per second to the provider; `None` is no cap beyond the two above.
    pub rate_per_second: Option<f64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            concurrency: 10,
            per_host: 8,
            rate_per_second: None,
        }
    }
}
