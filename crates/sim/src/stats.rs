//! What the simulator has seen, served as JSON at `GET /_sim/stats` so that tests can assert bounds
//! on a client's requests ("at most 6 polls", "backed off after the 429"). The control endpoint
//! itself is not counted.
//!
//! ```json
//! {"requests": 7,
//!  "paths": {"/20160918/instances/ocid1.instance.oc1..a": 4, "/v3/jobs/j": 3},
//!  "statuses": {"200": 5, "429": 1},
//!  "faults": {"latency": 0, "not_found": 0, "reset": 1, "429": 1, "500": 0, "503": 0, "slow_body": 0},
//!  "auth_rejected": 0}
//! ```
//! `requests` counts every request read, `paths` by path without the query, `statuses` the answers
//! sent (a reset sends none), `faults` every injection (`latency` and `slow_body` count the requests
//! they delayed), `auth_rejected` the 401s from a failed credential check.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Value, json};

/// Every fault kind, so that the JSON always has all of them.
const FAULT_KINDS: [&str; 7] = [
    "latency",
    "not_found",
    "reset",
    "429",
    "500",
    "503",
    "slow_body",
];

#[derive(Debug, Default)]
pub(crate) struct Stats {
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    requests: u64,
    paths: BTreeMap<String, u64>,
    statuses: BTreeMap<u16, u64>,
    faults: BTreeMap<&'static str, u64>,
    auth_rejected: u64,
}

impl Stats {
    fn with<T>(&self, change: impl FnOnce(&mut Counts) -> T) -> T {
        change(&mut self.counts.lock().expect("the counters are never poisoned"))
    }

    pub(crate) fn request(&self, path: &str) {
        self.with(|counts| {
            counts.requests += 1;
            *counts.paths.entry(path.to_owned()).or_default() += 1;
        });
    }

    pub(crate) fn status(&self, status: u16) {
        self.with(|counts| *counts.statuses.entry(status).or_default() += 1);
    }

    /// Counts one injection of `kind`, one of [`FAULT_KINDS`].
    pub(crate) fn fault(&self, kind: &'static str) {
        debug_assert!(FAULT_KINDS.contains(&kind), "{kind}");
        self.with(|counts| *counts.faults.entry(kind).or_default() += 1);
    }

    pub(crate) fn auth_rejected(&self) {
        self.with(|counts| counts.auth_rejected += 1);
    }

    pub(crate) fn to_json(&self) -> Value {
        self.with(|counts| {
            let faults: serde_json::Map<String, Value> = FAULT_KINDS
                .iter()
                .map(|&kind| {
                    let count = counts.faults.get(kind).copied().unwrap_or(0);
                    (kind.to_owned(), json!(count))
                })
                .collect();
            let statuses: serde_json::Map<String, Value> = counts
                .statuses
                .iter()
                .map(|(status, count)| (status.to_string(), json!(count)))
                .collect();
            json!({
                "requests": counts.requests,
                "paths": counts.paths,
                "statuses": statuses,
                "faults": faults,
                "auth_rejected": counts.auth_rejected,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_path_status_and_fault() {
        let stats = Stats::default();
        stats.request("/a");
        stats.request("/a");
        stats.request("/b");
        stats.status(200);
        stats.status(429);
        stats.status(200);
        stats.fault("429");
        stats.fault("reset");
        stats.auth_rejected();
        assert_eq!(
            stats.to_json(),
            json!({
                "requests": 3,
                "paths": {"/a": 2, "/b": 1},
                "statuses": {"200": 2, "429": 1},
                "faults": {"latency": 0, "not_found": 0, "reset": 1, "429": 1, "500": 0, "503": 0, "slow_body": 0},
                "auth_rejected": 1,
            })
        );
    }
}
