//! A profile's `rate_per_second`: requests to one provider are spaced evenly, whatever the
//! parallelism, because APIs such as OCI's throttle per tenancy and answer bursts with 429s that
//! cost more time than the spacing does.

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::duration::Deadline;

/// Hands out send times at most `rate` per second (no burst: the first request goes at once, each
/// later one a full interval after the one before).
#[derive(Debug)]
pub struct RateLimit {
    interval: Duration,
    /// When the next request may go: `None` before the first, [`Deadline::NEVER`] once a rate so
    /// low that its interval lies past the clock's end has let its one request go.
    next: Mutex<Option<Deadline>>,
}

impl RateLimit {
    /// `None` when `per_second` sets no limit (zero, negative or not a number).
    pub fn new(per_second: f64) -> Option<RateLimit> {
        (per_second.is_finite() && per_second > 0.0).then(|| RateLimit {
            // `1e-300` per second: an interval longer than any `Duration`, which is forever.
            interval: Duration::try_from_secs_f64(1.0 / per_second).unwrap_or(Duration::MAX),
            next: Mutex::new(None),
        })
    }

    /// Waits for this request's turn.
    pub async fn wait(&self) {
        let turn = {
            let mut next = self.next.lock().await;
            let now = Instant::now().into_std();
            // `None`: a turn that never comes.
            let turn = match *next {
                None => Some(now),
                Some(next) => next.instant().map(|at| at.max(now)),
            };
            *next = Some(turn.map_or(Deadline::NEVER, |turn| Deadline::from(turn, self.interval)));
            turn
        };
        match turn {
            Some(at) => tokio::time::sleep_until(Instant::from_std(at)).await,
            None => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn no_limit_without_a_positive_rate() {
        assert!(RateLimit::new(0.0).is_none());
        assert!(RateLimit::new(-1.0).is_none());
        assert!(RateLimit::new(f64::NAN).is_none());
    }

    /// Was a panic in the conversion to a `Duration`, then in `Instant + Duration`.
    #[tokio::test(start_paused = true)]
    async fn a_rate_too_low_for_the_clock_lets_one_request_go_then_waits_forever() {
        let limit = RateLimit::new(1e-300).unwrap();
        assert_eq!(limit.interval, Duration::MAX);
        limit.wait().await;
        let second = tokio::time::timeout(Duration::from_secs(3600), limit.wait()).await;
        assert!(second.is_err(), "the second request waits past an hour");
    }

    // Virtual time: the clock only moves when every task waits, so the spacing is exact.
    #[tokio::test(start_paused = true)]
    async fn spaces_requests_from_many_tasks_evenly() {
        let limit = Arc::new(RateLimit::new(4.0).unwrap());
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..9 {
            let limit = limit.clone();
            tasks.push(tokio::spawn(async move {
                limit.wait().await;
                Instant::now()
            }));
        }
        let mut times = Vec::new();
        for task in tasks {
            times.push(task.await.unwrap() - start);
        }
        times.sort();
        let expected: Vec<Duration> = (0..9).map(|n| Duration::from_millis(250 * n)).collect();
        assert_eq!(times, expected);
    }
}
