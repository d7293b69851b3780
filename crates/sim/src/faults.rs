//! Fault injection: latency, 429 with `Retry-After`, 500, 503, connection resets, eventual-consistency
//! 404s and slow bodies, set for every path and overridden per path prefix.
//!
//! Runs must be reproducible, also when a client polls several objects concurrently. So the dice are
//! not one shared random stream (whose draws would go to whichever request came first) but a pure
//! function of the seed, the request target and how many requests that target has had: the third
//! request for `/v3/jobs/x` meets the same fault in every run, whatever else is in flight.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::Deserialize;

use crate::lifecycle::{LifecycleError, parse_duration};
use crate::scenario::ScenarioError;

/// The `[faults]` table and each `[[faults.path]]` entry: the same fields, so that a path rule can
/// override any of them. `seed` and `path` belong to the top level, `prefix` to a path rule.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FaultTable {
    pub seed: Option<u64>,
    pub prefix: Option<String>,
    #[serde(default)]
    pub path: Vec<FaultTable>,
    pub latency: Option<String>,
    pub rate_429: Option<f64>,
    pub retry_after: Option<u64>,
    pub retry_after_form: Option<RetryAfterForm>,
    pub rate_500: Option<f64>,
    pub rate_503: Option<f64>,
    pub rate_reset: Option<f64>,
    pub not_found_first: Option<u32>,
    pub slow_body: Option<String>,
}

/// How a `Retry-After` header is written; clients must read both (RFC 9110 section 10.2.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RetryAfterForm {
    /// `Retry-After: 2`
    #[default]
    Seconds,
    /// `Retry-After: Sun, 22 Nov 2026 08:00:02 GMT`
    HttpDate,
}

/// A `Retry-After` to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryAfter {
    pub seconds: u64,
    pub form: RetryAfterForm,
}

impl RetryAfter {
    /// The header value, for an answer sent at `now`.
    pub(crate) fn header_value(self, now: SystemTime) -> String {
        match self.form {
            RetryAfterForm::Seconds => self.seconds.to_string(),
            RetryAfterForm::HttpDate => {
                // An HTTP date ends with the year 9999; a later one (`retry_after = u64::MAX`, to
                // test a client's arithmetic) is written as the last second of that year.
                let latest = SystemTime::UNIX_EPOCH
                    .checked_add(Duration::from_secs(253_402_300_799))
                    .unwrap_or(now);
                let when = now
                    .checked_add(Duration::from_secs(self.seconds))
                    .map_or(latest, |when| when.min(latest));
                httpdate::fmt_http_date(when)
            }
        }
    }
}

/// The faults for one path, with every field resolved.
#[derive(Debug, Clone, PartialEq)]
struct Rule {
    latency: Duration,
    rate_429: f64,
    retry_after: RetryAfter,
    rate_500: f64,
    rate_503: f64,
    rate_reset: f64,
    not_found_first: u32,
    slow_body: Duration,
}

/// A `[faults]` table whose values do not make a rule; `context` names the table.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RuleError {
    #[error("{context}: {source}")]
    Duration {
        context: String,
        source: LifecycleError,
    },
    #[error("{context}: `{name} = {rate}` is not a probability between 0 and 1")]
    Rate {
        context: String,
        name: &'static str,
        rate: f64,
    },
    #[error(
        "{context}: the rates add up to {sum}, more than 1 (one request meets at most one of them)"
    )]
    Sum { context: String, sum: f64 },
}

impl Rule {
    /// `base` with the fields `table` sets replaced; `context` names the table in errors.
    fn resolve(base: &Rule, table: &FaultTable, context: &str) -> Result<Rule, RuleError> {
        let duration = |value: &Option<String>, default: Duration| {
            value.as_deref().map_or(Ok(default), |text| {
                parse_duration(text).map_err(|source| RuleError::Duration {
                    context: context.to_owned(),
                    source,
                })
            })
        };
        let rule = Rule {
            latency: duration(&table.latency, base.latency)?,
            rate_429: table.rate_429.unwrap_or(base.rate_429),
            retry_after: RetryAfter {
                seconds: table.retry_after.unwrap_or(base.retry_after.seconds),
                form: table.retry_after_form.unwrap_or(base.retry_after.form),
            },
            rate_500: table.rate_500.unwrap_or(base.rate_500),
            rate_503: table.rate_503.unwrap_or(base.rate_503),
            rate_reset: table.rate_reset.unwrap_or(base.rate_reset),
            not_found_first: table.not_found_first.unwrap_or(base.not_found_first),
            slow_body: duration(&table.slow_body, base.slow_body)?,
        };
        let rates = [
            ("rate_429", rule.rate_429),
            ("rate_500", rule.rate_500),
            ("rate_503", rule.rate_503),
            ("rate_reset", rule.rate_reset),
        ];
        for (name, rate) in rates {
            if !(0.0..=1.0).contains(&rate) {
                return Err(RuleError::Rate {
                    context: context.to_owned(),
                    name,
                    rate,
                });
            }
        }
        let sum: f64 = rates.iter().map(|(_, rate)| rate).sum();
        if sum > 1.0 {
            return Err(RuleError::Sum {
                context: context.to_owned(),
                sum,
            });
        }
        Ok(rule)
    }
}

impl Default for Rule {
    fn default() -> Rule {
        Rule {
            latency: Duration::ZERO,
            rate_429: 0.0,
            retry_after: RetryAfter {
                seconds: 1,
                form: RetryAfterForm::Seconds,
            },
            rate_500: 0.0,
            rate_503: 0.0,
            rate_reset: 0.0,
            not_found_first: 0,
            slow_body: Duration::ZERO,
        }
    }
}

/// What happens to a request instead of (or before) its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Injected {
    /// Close the connection without an answer.
    Reset,
    TooManyRequests(RetryAfter),
    InternalServerError,
    ServiceUnavailable,
    /// The object is not visible yet (eventual consistency): answer the API's 404.
    NotFound,
}

impl Injected {
    /// The name `/_sim/stats` counts it under.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Injected::Reset => "reset",
            Injected::TooManyRequests(_) => "429",
            Injected::InternalServerError => "500",
            Injected::ServiceUnavailable => "503",
            Injected::NotFound => "not_found",
        }
    }
}

/// The faults decided for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Waited before anything else.
    pub latency: Duration,
    pub injected: Option<Injected>,
    /// Over how long the answer's body is trickled after its headers.
    pub slow_body: Duration,
}

/// Every fault rule, and how many requests each target has had.
#[derive(Debug)]
pub(crate) struct Faults {
    seed: u64,
    global: Rule,
    /// Longest prefix first, so the first match is the most specific.
    by_prefix: Vec<(String, Rule)>,
    seen: Mutex<HashMap<String, u64>>,
}

impl Faults {
    pub(crate) fn new(table: &FaultTable) -> Result<Faults, ScenarioError> {
        if table.prefix.is_some() {
            return Err(ScenarioError::Invalid(
                "[faults]: `prefix` belongs in a `[[faults.path]]` entry".to_owned(),
            ));
        }
        let global = Rule::resolve(&Rule::default(), table, "[faults]")?;
        let mut by_prefix = Vec::new();
        for (index, path) in table.path.iter().enumerate() {
            let context = format!("[[faults.path]] #{}", index + 1);
            let Some(prefix) = path.prefix.clone().filter(|prefix| prefix.starts_with('/')) else {
                return Err(format!(
                    "{context}: needs a `prefix` starting with `/`, e.g. `prefix = \"/v3/\"`"
                )
                .into());
            };
            if path.seed.is_some() || !path.path.is_empty() {
                return Err(format!(
                    "{context}: `seed` and nested `path` belong to the top-level [faults]"
                )
                .into());
            }
            by_prefix.push((prefix, Rule::resolve(&global, path, &context)?));
        }
        by_prefix.sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        Ok(Faults {
            seed: table.seed.unwrap_or(0),
            global,
            by_prefix,
            seen: Mutex::new(HashMap::new()),
        })
    }

    /// Decides the faults for a request for `target` (path and query) on `path`, counting it.
    pub(crate) fn plan(&self, path: &str, target: &str) -> Plan {
        let rule = self
            .by_prefix
            .iter()
            .find(|(prefix, _)| path.starts_with(prefix.as_str()))
            .map_or(&self.global, |(_, rule)| rule);
        let nth = {
            let mut seen = self
                .seen
                .lock()
                .expect("the fault counters are never poisoned");
            let count = seen.entry(target.to_owned()).or_insert(0);
            *count += 1;
            *count - 1
        };
        let injected = if nth < u64::from(rule.not_found_first) {
            Some(Injected::NotFound)
        } else {
            pick(rule, self.draw(target, nth))
        };
        Plan {
            latency: rule.latency,
            injected,
            slow_body: rule.slow_body,
        }
    }

    /// A number in [0, 1) fixed by the seed, the target and its request count.
    fn draw(&self, target: &str, nth: u64) -> f64 {
        let hash = fnv1a(target.as_bytes());
        let seed = self.seed ^ hash.rotate_left(17) ^ nth.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        fastrand::Rng::with_seed(seed).f64()
    }
}

/// FNV-1a: a hash that, unlike std's, is specified and so the same across Rust releases and runs.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Which fault (if any) a draw lands on: the rates are consecutive slices of [0, 1).
fn pick(rule: &Rule, draw: f64) -> Option<Injected> {
    let slices = [
        (rule.rate_reset, Injected::Reset),
        (rule.rate_429, Injected::TooManyRequests(rule.retry_after)),
        (rule.rate_500, Injected::InternalServerError),
        (rule.rate_503, Injected::ServiceUnavailable),
    ];
    let mut floor = 0.0;
    for (rate, injected) in slices {
        if draw < floor + rate {
            return Some(injected);
        }
        floor += rate;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(text: &str) -> Faults {
        #[derive(Deserialize)]
        struct Wrapper {
            faults: FaultTable,
        }
        let wrapper: Wrapper = toml::from_str(text).unwrap();
        Faults::new(&wrapper.faults).unwrap()
    }

    fn error(text: &str) -> String {
        #[derive(Deserialize)]
        struct Wrapper {
            faults: FaultTable,
        }
        let wrapper: Wrapper = toml::from_str(text).unwrap();
        Faults::new(&wrapper.faults).unwrap_err().to_string()
    }

    fn names(faults: &Faults, path: &str, count: usize) -> Vec<&'static str> {
        (0..count)
            .map(|_| faults.plan(path, path).injected.map_or("-", Injected::name))
            .collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_faults() {
        let text =
            "[faults]\nseed = 42\nrate_429 = 0.2\nrate_500 = 0.1\nrate_503 = 0.1\nrate_reset = 0.1";
        let first = names(&faults(text), "/v3/jobs/a", 40);
        assert_eq!(first, names(&faults(text), "/v3/jobs/a", 40));
        let other_seed = names(
            &faults(&text.replace("seed = 42", "seed = 43")),
            "/v3/jobs/a",
            40,
        );
        assert_ne!(first, other_seed);
        for name in ["429", "500", "503", "reset", "-"] {
            assert!(first.contains(&name), "{name} never drawn in {first:?}");
        }
    }

    #[test]
    fn a_target_meets_its_faults_whatever_else_is_in_flight() {
        let text = "[faults]\nseed = 7\nrate_503 = 0.5";
        let alone = faults(text);
        let busy = faults(text);
        let mut interleaved = Vec::new();
        for _ in 0..20 {
            busy.plan("/v3/jobs/other", "/v3/jobs/other");
            interleaved.push(busy.plan("/v3/jobs/a", "/v3/jobs/a").injected);
        }
        let lone: Vec<_> = (0..20)
            .map(|_| alone.plan("/v3/jobs/a", "/v3/jobs/a").injected)
            .collect();
        assert_eq!(interleaved, lone);
    }

    #[test]
    fn rates_match_their_share_of_requests() {
        let faults = faults("[faults]\nseed = 1\nrate_429 = 0.25");
        let hits = (0..2000)
            .filter(|index| {
                let target = format!("/x/{index}");
                faults.plan("/x/", &target).injected.is_some()
            })
            .count();
        assert!((400..600).contains(&hits), "{hits} of 2000");
    }

    #[test]
    fn the_first_gets_of_a_target_are_not_found() {
        let faults = faults("[faults]\nnot_found_first = 2");
        assert_eq!(
            names(&faults, "/v3/jobs/a", 3),
            ["not_found", "not_found", "-"]
        );
        assert_eq!(names(&faults, "/v3/jobs/b", 1), ["not_found"]);
    }

    #[test]
    fn the_longest_prefix_overrides_the_global_fields_it_sets() {
        let faults = faults(
            "[faults]\nlatency = \"20ms\"\nretry_after = 3\n\
             [[faults.path]]\nprefix = \"/v2/\"\nrate_429 = 1.0\nretry_after_form = \"http-date\"\n\
             [[faults.path]]\nprefix = \"/v2/service_instances/slow\"\nslow_body = \"200ms\"",
        );
        let plain = faults.plan("/v3/jobs/a", "/v3/jobs/a");
        assert_eq!(plain.latency, Duration::from_millis(20));
        assert_eq!(plain.injected, None);
        let throttled = faults.plan("/v2/service_instances/a", "/v2/service_instances/a");
        assert_eq!(
            throttled.injected,
            Some(Injected::TooManyRequests(RetryAfter {
                seconds: 3,
                form: RetryAfterForm::HttpDate
            }))
        );
        let slow = faults.plan("/v2/service_instances/slow", "/v2/service_instances/slow");
        assert_eq!(slow.slow_body, Duration::from_millis(200));
        assert_eq!(slow.latency, Duration::from_millis(20));
        assert_eq!(
            slow.injected, None,
            "a path rule builds on [faults], not on a shorter prefix"
        );
    }

    #[test]
    fn retry_after_has_both_forms() {
        let at = httpdate::parse_http_date("Sun, 22 Nov 2026 08:00:00 GMT").unwrap();
        let seconds = RetryAfter {
            seconds: 2,
            form: RetryAfterForm::Seconds,
        };
        assert_eq!(seconds.header_value(at), "2");
        let date = RetryAfter {
            form: RetryAfterForm::HttpDate,
            ..seconds
        };
        assert_eq!(date.header_value(at), "Sun, 22 Nov 2026 08:00:02 GMT");
    }

    #[test]
    fn bad_tables_say_what_is_wrong() {
        assert!(error("[faults]\nrate_429 = 1.5").contains("not a probability"));
        assert!(error("[faults]\nrate_429 = 0.6\nrate_503 = 0.6").contains("add up to"));
        assert!(error("[faults]\nlatency = \"fast\"").contains("invalid duration `fast`"));
        assert!(error("[faults]\nprefix = \"/v2/\"").contains("belongs in a `[[faults.path]]`"));
        assert!(error("[faults]\n[[faults.path]]\nrate_500 = 0.1").contains("needs a `prefix`"));
        assert!(
            error("[faults]\n[[faults.path]]\nprefix = \"/a\"\nseed = 1").contains("top-level")
        );
    }
}
