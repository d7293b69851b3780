//! Exponential waits with jitter: step `n` has the ceiling `min(max_interval, interval *
//! multiplier^n)`, and the jitter picks the wait under it. The random source is injected so that tests
//! pin every wait; production draws from `fastrand`.

use std::fmt;
use std::time::Duration;

use super::policy::{Jitter, PollPolicy};

/// A source of numbers in `[0, 1)`.
pub type Random = Box<dyn FnMut() -> f64 + Send>;

pub struct Backoff {
    interval: Duration,
    max_interval: Duration,
    multiplier: f64,
    jitter: Jitter,
    random: Random,
}

impl fmt::Debug for Backoff {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Backoff")
            .field("interval", &self.interval)
            .field("max_interval", &self.max_interval)
            .field("multiplier", &self.multiplier)
            .field("jitter", &self.jitter)
            .finish_non_exhaustive()
    }
}

impl Backoff {
    pub fn new(policy: &PollPolicy) -> Backoff {
        Backoff::with_random(policy, fastrand::f64)
    }

    pub fn with_random(
        policy: &PollPolicy,
        random: impl FnMut() -> f64 + Send + 'static,
    ) -> Backoff {
        Backoff {
            interval: policy.interval,
            max_interval: policy.max_interval,
            multiplier: policy.multiplier,
            jitter: policy.jitter,
            random: Box::new(random),
        }
    }

    /// The wait before jitter at step `step` (0 for the first).
    pub fn ceiling(&self, step: u32) -> Duration {
        let exponent = i32::try_from(step).unwrap_or(i32::MAX);
        let seconds = self.interval.as_secs_f64() * self.multiplier.powi(exponent);
        // An overflow to infinity (or a NaN from a broken policy) lands on the cap instead of
        // panicking in the conversion.
        match Duration::try_from_secs_f64(seconds) {
            Ok(wait) => wait.min(self.max_interval),
            Err(_) => self.max_interval,
        }
    }

    /// The wait at step `step`, jitter applied.
    pub fn delay(&mut self, step: u32) -> Duration {
        let ceiling = self.ceiling(step);
        match self.jitter {
            Jitter::None => ceiling,
            Jitter::Full => ceiling.mul_f64(self.draw()),
            Jitter::Equal => {
                let half = ceiling / 2;
                half + ceiling.saturating_sub(half).mul_f64(self.draw())
            }
        }
    }

    /// One number from the source, forced into `[0, 1]` so that a bad source cannot make a wait
    /// negative (a panic in `mul_f64`) or larger than its ceiling.
    fn draw(&mut self) -> f64 {
        let number = (self.random)();
        if number.is_nan() {
            0.0
        } else {
            number.clamp(0.0, 1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(jitter: Jitter) -> PollPolicy {
        PollPolicy {
            interval: Duration::from_secs(2),
            max_interval: Duration::from_secs(30),
            multiplier: 2.0,
            jitter,
            ..PollPolicy::default()
        }
    }

    fn seconds(waits: &[Duration]) -> Vec<f64> {
        waits.iter().map(Duration::as_secs_f64).collect()
    }

    #[test]
    fn ceilings_double_up_to_the_cap() {
        let backoff = Backoff::with_random(&policy(Jitter::None), || 0.5);
        let waits: Vec<_> = (0..7).map(|step| backoff.ceiling(step)).collect();
        assert_eq!(seconds(&waits), [2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]);
    }

    #[test]
    fn huge_steps_stay_at_the_cap() {
        let backoff = Backoff::with_random(&policy(Jitter::None), || 0.5);
        assert_eq!(backoff.ceiling(5000), Duration::from_secs(30));
        assert_eq!(backoff.ceiling(u32::MAX), Duration::from_secs(30));
    }

    #[test]
    fn no_jitter_is_the_ceiling() {
        let mut backoff = Backoff::with_random(&policy(Jitter::None), || 0.25);
        let waits: Vec<_> = (0..5).map(|step| backoff.delay(step)).collect();
        assert_eq!(seconds(&waits), [2.0, 4.0, 8.0, 16.0, 30.0]);
    }

    #[test]
    fn full_jitter_scales_the_ceiling() {
        let mut backoff = Backoff::with_random(&policy(Jitter::Full), || 0.25);
        let waits: Vec<_> = (0..6).map(|step| backoff.delay(step)).collect();
        assert_eq!(seconds(&waits), [0.5, 1.0, 2.0, 4.0, 7.5, 7.5]);
    }

    #[test]
    fn full_jitter_bounds() {
        let mut low = Backoff::with_random(&policy(Jitter::Full), || 0.0);
        assert_eq!(low.delay(3), Duration::ZERO);
        let mut high = Backoff::with_random(&policy(Jitter::Full), || 0.999_999);
        for step in 0..8 {
            let wait = high.delay(step);
            assert!(wait < high.ceiling(step), "step {step}: {wait:?}");
            assert!(wait <= Duration::from_secs(30));
        }
    }

    #[test]
    fn equal_jitter_keeps_half() {
        let mut low = Backoff::with_random(&policy(Jitter::Equal), || 0.0);
        assert_eq!(low.delay(2), Duration::from_secs(4));
        let mut middle = Backoff::with_random(&policy(Jitter::Equal), || 0.5);
        assert_eq!(middle.delay(2), Duration::from_secs(6));
        assert_eq!(middle.delay(9), Duration::from_millis(22_500));
    }

    #[test]
    fn a_broken_random_source_cannot_escape_the_ceiling() {
        for number in [-1.0, 7.0, f64::NAN, f64::INFINITY] {
            let mut backoff = Backoff::with_random(&policy(Jitter::Full), move || number);
            let wait = backoff.delay(1);
            assert!(wait <= Duration::from_secs(4), "{number}: {wait:?}");
        }
    }

    #[test]
    fn a_slower_multiplier() {
        let gentle = PollPolicy {
            multiplier: 1.5,
            jitter: Jitter::None,
            ..policy(Jitter::None)
        };
        let backoff = Backoff::with_random(&gentle, || 0.0);
        let waits: Vec<_> = (0..4).map(|step| backoff.ceiling(step)).collect();
        assert_eq!(seconds(&waits), [2.0, 3.0, 4.5, 6.75]);
    }

    #[test]
    fn the_production_source_stays_in_bounds() {
        let mut backoff = Backoff::new(&policy(Jitter::Full));
        for _ in 0..100 {
            assert!(backoff.delay(0) < Duration::from_secs(2));
        }
    }
}
