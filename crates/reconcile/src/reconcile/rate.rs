//! A profile's `rate_per_second`: requests to one provider are spaced evenly, whatever the
//! parallelism, because APIs such as OCI's throttle per tenancy and answer bursts with 429s that
//! cost more time than the spacing does.

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

/// Hands out send times at most `rate` per second (no burst: the first request goes at once, each
/// later one a full interval after the one before).
#[derive(Debug)]
pub struct RateLimit {
    interval: Duration,
    next: Mutex<Option<Instant>>,
}

impl RateLimit {
    /// `None` when `per_second` sets no limit (zero, negative or not a number).
    pub fn new(per_second: f64) -> Option<RateLimit> {
        (per_second.is_finite() && per_second > 0.0).then(|| RateLimit {
            interval: Duration::from_secs_f64(1.0 / per_second),
            next: Mutex::new(None),
        })
    }

    /// Waits for this request's turn.
    pub async fn wait(&self) {
        let turn = {
            let mut next = self.next.lock().await;
            let now = Instant::now();
            let turn = next.map_or(now, |next| next.max(now));
            *next = Some(turn + self.interval);
            turn
        };
        tokio::time::sleep_until(turn).await;
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
