//! The per-instance waiter: a state machine that takes what each poll saw and says what to do next.
//! It owns no clock and sleeps nowhere: the caller passes the time of each answer and does the
//! waiting, so every rule here is tested with plain values.
//!
//! The rules, against terraform-plugin-sdk v2's `retry.StateChangeConf` (`helper/retry/state.go`):
//! - a target state must be seen `target_hits` times in a row; a pending state or a "not found"
//!   resets the count (a failed request says nothing about the object, so it neither counts nor
//!   resets);
//! - a failed state ends the wait; a state in no set ends it too, as an unexpected state, instead of
//!   polling until the timeout;
//! - "not found" ends a delete (gone), and ends the wait for an object known to exist (gone); right
//!   after a create it is forgiven `not_found_checks` times in a row, since the object may not be
//!   visible yet;
//! - 410 ends a delete (OSB); during any other operation it keeps polling (OSB) and spends no retry
//!   budget;
//! - an invalid answer (a redirect, a 4xx that is not "not found", "gone", a conflict or "too many
//!   requests", a 501) ends the wait at once: asking again gets the same answer, and a CI job must not
//!   hang until the deadline on a misconfigured endpoint (OSB's "keep polling" on any other code is
//!   not followed for these);
//! - a transient failure spends one unit of the retry budget and waits the larger of its own
//!   backoff and the server's `Retry-After`;
//! - every wait is cut so that no poll is scheduled past the deadline (or past the end of the
//!   maximum polling duration); an answer that is not final, once the limit is reached, gives up.
//!   A final answer is taken even when it arrives after the deadline: it is the truth, and the
//!   request was sent in time; but no request may outlive the deadline ([`Poller::request_timeout`]),
//!   so a body that drips a byte a second ends with the wait.

use std::time::{Duration, Instant};

use super::backoff::Backoff;
use super::decision::{Decision, Reason, Terminal};
use super::observation::{Observation, Operation};
use super::policy::PollPolicy;
use super::status::StatusClass;
use crate::duration::Deadline;

#[derive(Debug)]
pub struct Poller {
    policy: PollPolicy,
    operation: Operation,
    known_to_exist: bool,
    backoff: Backoff,
    /// Never when the limit lies past what an `Instant` can hold: no limit, in practice.
    deadline_at: Deadline,
    /// The end of the maximum polling duration, counted from the first poll; `None` without one.
    polling_ends_at: Option<Deadline>,
    target_streak: u32,
    not_found_streak: u32,
    /// The step of the poll schedule: grows with every poll that needs another, for the whole wait.
    poll_step: u32,
    /// The step of the retry backoff: grows with consecutive transient failures, and starts over
    /// after any answer.
    retry_step: u32,
    retries: u32,
    polls: u32,
    last_state: Option<String>,
    finished: Option<Decision>,
}

impl Poller {
    /// A wait for one instance that starts at `start` (the deadline counts from here, the initial
    /// delay included). `known_to_exist` says whether a "not found" means gone (an object seen
    /// before) or maybe not yet visible (right after a create, or an OSB instance still
    /// provisioning, whose `GET` answers 404 until it is done).
    pub fn new(
        policy: PollPolicy,
        operation: Operation,
        known_to_exist: bool,
        start: Instant,
    ) -> Poller {
        let first_poll = Deadline::from(start, policy.initial_delay.min(policy.deadline));
        Poller {
            backoff: Backoff::new(&policy),
            operation,
            known_to_exist,
            deadline_at: Deadline::from(start, policy.deadline),
            polling_ends_at: policy
                .max_polling_duration
                .map(|limit| first_poll.later_by(limit)),
            policy,
            target_streak: 0,
            not_found_streak: 0,
            poll_step: 0,
            retry_step: 0,
            retries: 0,
            polls: 0,
            last_state: None,
            finished: None,
        }
    }

    /// Draws the jitter from `random` (numbers in `[0, 1)`) instead of `fastrand`.
    #[must_use]
    pub fn with_random(mut self, random: impl FnMut() -> f64 + Send + 'static) -> Poller {
        self.backoff = Backoff::with_random(&self.policy, random);
        self
    }

    /// The wait before the first poll.
    pub fn first_wait(&self) -> Duration {
        self.policy.initial_delay.min(self.policy.deadline)
    }

    /// The time a request sent at `now` may take: the policy's, cut at the deadline (a request in
    /// flight must not outlive the wait it belongs to).
    pub fn request_timeout(&self, now: Instant) -> Duration {
        self.request_timeouts().at(now)
    }

    /// The same rule as [`Poller::request_timeout`], as a value to carry across an `.await` (the
    /// poller itself holds its random source, which is not `Sync`).
    pub fn request_timeouts(&self) -> RequestTimeouts {
        RequestTimeouts {
            limit: self.policy.request_timeout,
            deadline_at: self.deadline_at,
        }
    }

    pub fn policy(&self) -> &PollPolicy {
        &self.policy
    }

    /// The time left at `now` before the deadline (`None`: no deadline an `Instant` can hold).
    pub fn time_left(&self, now: Instant) -> Option<Duration> {
        self.deadline_at
            .instant()
            .map(|deadline| deadline.saturating_duration_since(now))
    }

    /// Whether every observation so far was a transient failure (an error status, a reset, a
    /// timeout): then the wait never heard anything of the object itself.
    pub fn only_failures(&self) -> bool {
        self.polls > 0 && self.retries == self.polls
    }

    /// How many observations were taken.
    pub fn polls(&self) -> u32 {
        self.polls
    }

    /// How much of the retry budget was spent.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The last state an answer carried, for "still pending (PROVISIONING)" after a give-up that the
    /// last observation (a 503, say) does not explain.
    pub fn last_state(&self) -> Option<&str> {
        self.last_state.as_deref()
    }

    /// Takes what a poll saw at `now` (when its answer came) and says what to do next. Once the wait
    /// has ended, every later call returns the same decision.
    pub fn observe(&mut self, now: Instant, observation: Observation) -> Decision {
        if let Some(finished) = &self.finished {
            return finished.clone();
        }
        self.polls = self.polls.saturating_add(1);
        let last = observation.describe();
        let decision = match observation {
            Observation::Status {
                state,
                class,
                retry_after,
            } => {
                self.retry_step = 0;
                self.not_found_streak = 0;
                self.last_state = Some(state.clone());
                self.status(now, state, class, retry_after)
            }
            Observation::NotFound => {
                self.retry_step = 0;
                self.target_streak = 0;
                self.not_found(now, last)
            }
            Observation::Gone if self.operation == Operation::Delete => {
                Decision::Done(Terminal::Gone)
            }
            // OSB: 410 during a create or an update is an invalid answer; keep polling.
            Observation::Gone => {
                self.retry_step = 0;
                let wait = self.next_poll_wait();
                self.poll_again(now, wait, last)
            }
            Observation::Invalid { .. } => Decision::GiveUp(Reason::Error(last)),
            Observation::Transient {
                retry_after,
                detail,
            } => self.transient(now, retry_after, detail),
            Observation::Error(message) => Decision::GiveUp(Reason::Error(message)),
        };
        if !matches!(decision, Decision::PollAfter(_)) {
            self.finished = Some(decision.clone());
        }
        decision
    }

    fn status(
        &mut self,
        now: Instant,
        state: String,
        class: StatusClass,
        retry_after: Option<Duration>,
    ) -> Decision {
        match class {
            StatusClass::Target => {
                self.target_streak = self.target_streak.saturating_add(1);
                if self.target_streak >= self.policy.target_hits {
                    return Decision::Done(Terminal::Target(state));
                }
                // Confirming a target is not waiting for progress: the shortest wait, not the
                // grown one.
                let wait = paced(self.backoff.delay(0), retry_after);
                self.poll_again(now, wait, state)
            }
            StatusClass::Pending => {
                self.target_streak = 0;
                let wait = paced(self.next_poll_wait(), retry_after);
                self.poll_again(now, wait, state)
            }
            StatusClass::Failed => Decision::Done(Terminal::Failed(state)),
            StatusClass::Unknown => Decision::GiveUp(Reason::UnexpectedState(state)),
        }
    }

    fn not_found(&mut self, now: Instant, last: String) -> Decision {
        if self.operation == Operation::Delete || self.known_to_exist {
            return Decision::Done(Terminal::Gone);
        }
        self.not_found_streak = self.not_found_streak.saturating_add(1);
        // As the SDK: `not_found_checks` misses are forgiven, the next one is final.
        if self.not_found_streak > self.policy.not_found_checks {
            return Decision::Done(Terminal::NotFound);
        }
        let wait = self.next_poll_wait();
        self.poll_again(now, wait, last)
    }

    fn transient(
        &mut self,
        now: Instant,
        retry_after: Option<Duration>,
        detail: String,
    ) -> Decision {
        if self.retries >= self.policy.retry_budget {
            return Decision::GiveUp(Reason::RetryBudget { last: detail });
        }
        self.retries += 1;
        let wait = paced(self.backoff.delay(self.retry_step), retry_after);
        self.retry_step = self.retry_step.saturating_add(1);
        self.poll_again(now, wait, detail)
    }

    fn next_poll_wait(&mut self) -> Duration {
        let wait = self.backoff.delay(self.poll_step);
        self.poll_step = self.poll_step.saturating_add(1);
        wait
    }

    /// Schedules the next poll, cut at the nearer limit; at or past that limit, gives up with its
    /// reason.
    fn poll_again(&self, now: Instant, wait: Duration, last: String) -> Decision {
        let (limit, reason) = match (
            self.polling_ends_at.and_then(Deadline::instant),
            self.deadline_at.instant(),
        ) {
            (Some(ends), Some(deadline)) if ends <= deadline => {
                (Some(ends), Reason::MaxPollingDuration)
            }
            (Some(ends), None) => (Some(ends), Reason::MaxPollingDuration),
            (_, deadline) => (deadline, Reason::Deadline { last }),
        };
        let Some(limit) = limit else {
            return Decision::PollAfter(wait);
        };
        match limit.checked_duration_since(now) {
            Some(left) if !left.is_zero() => Decision::PollAfter(wait.min(left)),
            _ => Decision::GiveUp(reason),
        }
    }
}

/// How long a request may take, by when it is sent: the policy's limit, cut at the deadline.
#[derive(Debug, Clone, Copy)]
pub struct RequestTimeouts {
    limit: Duration,
    deadline_at: Deadline,
}

impl RequestTimeouts {
    pub fn at(self, now: Instant) -> Duration {
        let left = self.deadline_at.left(now);
        // A request sent right at the deadline still gets a moment to be answered.
        self.limit.min(left.max(Duration::from_millis(100)))
    }
}

/// The server's pacing wins when it asks for more than the backoff would wait.
fn paced(wait: Duration, retry_after: Option<Duration>) -> Duration {
    retry_after.map_or(wait, |asked| asked.max(wait))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::poll::Jitter;

    fn secs(seconds: u64) -> Duration {
        Duration::from_secs(seconds)
    }

    /// No jitter, so that every wait is the plain 2, 4, 8, 16, 30 s schedule.
    fn plain() -> PollPolicy {
        PollPolicy {
            interval: secs(2),
            max_interval: secs(30),
            multiplier: 2.0,
            jitter: Jitter::None,
            deadline: secs(600),
            ..PollPolicy::default()
        }
    }

    /// A poller and a clock that the test moves by hand.
    struct Run {
        poller: Poller,
        start: Instant,
        now: Instant,
    }

    impl Run {
        fn new(policy: PollPolicy, operation: Operation, known_to_exist: bool) -> Run {
            // Only an origin: every time in these tests is this plus a fixed offset.
            let start = Instant::now();
            Run {
                poller: Poller::new(policy, operation, known_to_exist, start).with_random(|| 0.5),
                start,
                now: start,
            }
        }

        fn create(policy: PollPolicy) -> Run {
            Run::new(policy, Operation::Create, false)
        }

        /// Observes at the current time; when the answer is a wait, moves the clock past it.
        #[track_caller]
        fn see(&mut self, observation: Observation) -> Decision {
            let decision = self.poller.observe(self.now, observation);
            if let Decision::PollAfter(wait) = decision {
                self.now += wait;
            }
            decision
        }

        /// Sees each observation in turn and expects its decision; a mismatch names the step.
        #[track_caller]
        fn plays<const STEPS: usize>(&mut self, script: [(Observation, Decision); STEPS]) {
            for (step, (observation, expected)) in script.into_iter().enumerate() {
                let seen = format!("{observation:?}");
                assert_eq!(self.see(observation), expected, "step {step}: {seen}");
            }
        }

        fn at(&mut self, offset: Duration) -> &mut Run {
            self.now = self.start + offset;
            self
        }

        fn elapsed(&self) -> Duration {
            self.now - self.start
        }
    }

    fn pending(state: &str) -> Observation {
        Observation::status(state, StatusClass::Pending)
    }

    fn target(state: &str) -> Observation {
        Observation::status(state, StatusClass::Target)
    }

    fn wait(seconds: u64) -> Decision {
        Decision::PollAfter(secs(seconds))
    }

    fn reached(state: &str) -> Decision {
        Decision::Done(Terminal::Target(state.into()))
    }

    fn deadline(last: &str) -> Decision {
        Decision::GiveUp(Reason::Deadline { last: last.into() })
    }

    fn retries_spent(last: &str) -> Decision {
        Decision::GiveUp(Reason::RetryBudget { last: last.into() })
    }

    #[test]
    fn provisioning_then_running() {
        let mut run = Run::create(plain());
        assert_eq!(run.poller.first_wait(), Duration::ZERO);
        run.plays([
            (pending("PROVISIONING"), wait(2)),
            (pending("PROVISIONING"), wait(4)),
            (pending("STARTING"), wait(8)),
            (target("RUNNING"), reached("RUNNING")),
        ]);
        assert_eq!(run.elapsed(), secs(14));
        assert_eq!(run.poller.polls(), 4);
        assert_eq!(run.poller.last_state(), Some("RUNNING"));
    }

    #[test]
    fn the_schedule_grows_to_the_cap() {
        let mut run = Run::create(plain());
        let waits: Vec<_> = (0..7).map(|_| run.see(pending("PROVISIONING"))).collect();
        assert_eq!(
            waits,
            [
                wait(2),
                wait(4),
                wait(8),
                wait(16),
                wait(30),
                wait(30),
                wait(30)
            ]
        );
    }

    #[test]
    fn two_target_hits_and_a_pending_in_between_starts_over() {
        let mut run = Run::create(PollPolicy {
            target_hits: 2,
            ..plain()
        });
        run.plays([
            (pending("PROVISIONING"), wait(2)),
            // The first hit is confirmed after the shortest wait, not the grown one.
            (target("RUNNING"), wait(2)),
            (pending("STARTING"), wait(4)),
            (target("RUNNING"), wait(2)),
            (target("RUNNING"), reached("RUNNING")),
        ]);
    }

    #[test]
    fn a_failed_request_neither_counts_nor_breaks_the_target_streak() {
        let mut run = Run::create(PollPolicy {
            target_hits: 2,
            ..plain()
        });
        run.plays([
            (target("RUNNING"), wait(2)),
            (Observation::transient("HTTP 503"), wait(2)),
            (target("RUNNING"), reached("RUNNING")),
        ]);
    }

    #[test]
    fn a_failed_state_is_final() {
        let mut run = Run::create(plain());
        assert_eq!(run.see(pending("PROVISIONING")), wait(2));
        assert_eq!(
            run.see(Observation::status("TERMINATED", StatusClass::Failed)),
            Decision::Done(Terminal::Failed("TERMINATED".into()))
        );
    }

    #[test]
    fn an_unknown_state_fails_at_once_instead_of_polling_until_the_timeout() {
        let mut run = Run::create(plain());
        assert_eq!(run.see(pending("PROVISIONING")), wait(2));
        assert_eq!(
            run.see(Observation::status("STOPPED", StatusClass::Unknown)),
            Decision::GiveUp(Reason::UnexpectedState("STOPPED".into()))
        );
        assert_eq!(run.elapsed(), secs(2));
    }

    #[test]
    fn not_found_after_a_create_is_forgiven_then_final() {
        let mut run = Run::create(PollPolicy {
            not_found_checks: 3,
            ..plain()
        });
        run.plays([
            (Observation::NotFound, wait(2)),
            (Observation::NotFound, wait(4)),
            (Observation::NotFound, wait(8)),
            (Observation::NotFound, Decision::Done(Terminal::NotFound)),
        ]);
    }

    #[test]
    fn the_not_found_count_is_in_a_row() {
        let mut run = Run::create(PollPolicy {
            not_found_checks: 1,
            ..plain()
        });
        assert!(matches!(
            run.see(Observation::NotFound),
            Decision::PollAfter(_)
        ));
        // Visible for a moment: the misses before it no longer count.
        assert!(matches!(
            run.see(pending("PROVISIONING")),
            Decision::PollAfter(_)
        ));
        assert!(matches!(
            run.see(Observation::NotFound),
            Decision::PollAfter(_)
        ));
        assert_eq!(
            run.see(Observation::NotFound),
            Decision::Done(Terminal::NotFound)
        );
    }

    #[test]
    fn zero_not_found_checks_forgives_nothing() {
        let mut run = Run::create(PollPolicy {
            not_found_checks: 0,
            ..plain()
        });
        assert_eq!(
            run.see(Observation::NotFound),
            Decision::Done(Terminal::NotFound)
        );
    }

    #[test]
    fn not_found_for_an_object_known_to_exist_is_gone() {
        for operation in [Operation::Read, Operation::Update, Operation::Create] {
            let mut run = Run::new(plain(), operation, true);
            assert_eq!(
                run.see(Observation::NotFound),
                Decision::Done(Terminal::Gone),
                "{operation:?}"
            );
        }
    }

    #[test]
    fn not_found_ends_a_delete() {
        let mut run = Run::new(plain(), Operation::Delete, false);
        assert_eq!(run.see(pending("TERMINATING")), wait(2));
        assert_eq!(
            run.see(Observation::NotFound),
            Decision::Done(Terminal::Gone)
        );
    }

    #[test]
    fn gone_410_ends_a_delete() {
        let mut run = Run::new(plain(), Operation::Delete, true);
        assert_eq!(run.see(pending("in progress")), wait(2));
        assert_eq!(run.see(Observation::Gone), Decision::Done(Terminal::Gone));
    }

    #[test]
    fn gone_410_during_a_create_or_update_keeps_polling() {
        for operation in [Operation::Create, Operation::Update] {
            let mut run = Run::new(
                PollPolicy {
                    retry_budget: 0,
                    ..plain()
                },
                operation,
                false,
            );
            assert_eq!(run.see(Observation::Gone), wait(2), "{operation:?}");
            assert_eq!(run.see(Observation::Gone), wait(4), "{operation:?}");
            assert_eq!(
                run.see(Observation::status("succeeded", StatusClass::Target)),
                reached("succeeded")
            );
            assert_eq!(run.poller.retries(), 0);
        }
    }

    #[test]
    fn gone_410_during_a_create_ends_only_at_the_deadline() {
        let mut run = Run::create(PollPolicy {
            deadline: secs(10),
            ..plain()
        });
        let mut decision = run.see(Observation::Gone);
        while let Decision::PollAfter(_) = decision {
            decision = run.see(Observation::Gone);
        }
        assert_eq!(decision, deadline("gone (HTTP 410)"));
        assert_eq!(run.elapsed(), secs(10));
    }

    #[test]
    fn invalid_answers_end_the_wait_at_once() {
        for status in [301, 302, 400, 412, 422, 501] {
            let mut run = Run::create(plain());
            assert_eq!(
                run.see(Observation::Invalid { status }),
                Decision::GiveUp(Reason::Error(format!("unexpected HTTP {status}"))),
                "{status}"
            );
            assert_eq!(run.poller.retries(), 0);
        }
    }

    #[test]
    fn no_request_outlives_the_deadline() {
        let run = Run::create(plain());
        let start = run.now;
        let policy_timeout = run.poller.policy().request_timeout;
        assert_eq!(
            run.poller.request_timeout(start),
            policy_timeout.min(secs(600))
        );
        let near_the_end = start + secs(597);
        assert_eq!(
            run.poller.request_timeout(near_the_end),
            secs(3).min(policy_timeout)
        );
        assert_eq!(
            run.poller.request_timeout(start + secs(700)),
            Duration::from_millis(100),
            "a request sent at the deadline gets a moment, not a new timeout"
        );
    }

    #[test]
    fn transient_failures_exhaust_the_budget() {
        let mut run = Run::create(PollPolicy {
            retry_budget: 3,
            ..plain()
        });
        run.plays([
            (Observation::transient("HTTP 503"), wait(2)),
            (Observation::transient("HTTP 429"), wait(4)),
            (Observation::transient("cannot connect"), wait(8)),
            (
                Observation::transient("HTTP 502"),
                retries_spent("HTTP 502"),
            ),
        ]);
        assert_eq!(run.poller.retries(), 3);
    }

    #[test]
    fn the_budget_is_per_instance_but_the_retry_backoff_starts_over_after_an_answer() {
        let mut run = Run::create(PollPolicy {
            retry_budget: 3,
            ..plain()
        });
        run.plays([
            (Observation::transient("HTTP 503"), wait(2)),
            (Observation::transient("HTTP 503"), wait(4)),
            (pending("PROVISIONING"), wait(2)),
            (Observation::transient("HTTP 503"), wait(2)),
            (
                Observation::transient("HTTP 503"),
                retries_spent("HTTP 503"),
            ),
        ]);
    }

    #[test]
    fn the_deadline_reports_the_last_state() {
        let mut run = Run::create(PollPolicy {
            deadline: secs(10),
            ..plain()
        });
        run.plays([
            (pending("PROVISIONING"), wait(2)),
            (pending("PROVISIONING"), wait(4)),
            // 8 s would cross the deadline: the last poll is at the deadline itself.
            (pending("PROVISIONING"), wait(4)),
        ]);
        assert_eq!(run.elapsed(), secs(10));
        assert_eq!(run.see(pending("PROVISIONING")), deadline("PROVISIONING"));
    }

    #[test]
    fn after_a_transient_failure_at_the_deadline_the_last_state_is_still_known() {
        let mut run = Run::create(PollPolicy {
            deadline: secs(3),
            ..plain()
        });
        run.plays([
            (pending("PROVISIONING"), wait(2)),
            (Observation::transient("HTTP 503"), wait(1)),
            (Observation::transient("HTTP 503"), deadline("HTTP 503")),
        ]);
        assert_eq!(run.poller.last_state(), Some("PROVISIONING"));
    }

    #[test]
    fn a_final_answer_after_the_deadline_still_counts() {
        let mut run = Run::create(PollPolicy {
            deadline: secs(10),
            ..plain()
        });
        run.at(secs(12));
        assert_eq!(run.see(target("RUNNING")), reached("RUNNING"));
    }

    #[test]
    fn retry_after_larger_than_the_backoff_is_honoured() {
        let mut run = Run::create(plain());
        let slow_down = Observation::Transient {
            retry_after: Some(secs(20)),
            detail: "HTTP 429".into(),
        };
        assert_eq!(run.see(slow_down), wait(20));
        // Smaller than the backoff: the backoff wins.
        let hurry = Observation::Transient {
            retry_after: Some(secs(1)),
            detail: "HTTP 503".into(),
        };
        assert_eq!(run.see(hurry), wait(4));
        // OSB: a pending answer may pace the platform too.
        let paced = pending("in progress").with_retry_after(Some(secs(45)));
        assert_eq!(run.see(paced), wait(45));
    }

    #[test]
    fn retry_after_past_the_deadline_is_cut_at_the_deadline() {
        let mut run = Run::create(PollPolicy {
            deadline: secs(60),
            ..plain()
        });
        run.at(secs(50));
        let later = Observation::Transient {
            retry_after: Some(secs(3600)),
            detail: "HTTP 503".into(),
        };
        assert_eq!(run.see(later), wait(10));
    }

    #[test]
    fn waits_never_cross_the_deadline() {
        let deadline = Duration::from_millis(97_300);
        let mut run = Run::create(PollPolicy {
            deadline,
            jitter: Jitter::Full,
            retry_budget: u32::MAX,
            not_found_checks: u32::MAX,
            ..plain()
        });
        // A fixed, varied script: every kind of non-final answer, some with long Retry-After.
        let script = [
            pending("PROVISIONING"),
            Observation::transient("HTTP 503"),
            Observation::NotFound,
            pending("STARTING").with_retry_after(Some(secs(40))),
            Observation::Gone,
            Observation::Transient {
                retry_after: Some(secs(1000)),
                detail: "HTTP 429".into(),
            },
        ];
        let mut polls = 0;
        for observation in script.iter().cycle() {
            polls += 1;
            match run.see(observation.clone()) {
                Decision::PollAfter(_) => assert!(run.elapsed() <= deadline, "{:?}", run.elapsed()),
                Decision::GiveUp(Reason::Deadline { .. }) => break,
                other => panic!("unexpected {other:?}"),
            }
            assert!(polls < 1000, "the poller never gave up");
        }
        assert_eq!(run.elapsed(), deadline);
    }

    /// Deadlines past the clock's end (`--timeout 3000000000000000h`, a profile's) and a server's
    /// `Retry-After` of `u64::MAX` seconds: no panic, and every wait is cut at the deadline.
    #[test]
    fn durations_past_the_clocks_end_never_panic() {
        let huge = Duration::MAX;
        let mut run = Run::create(PollPolicy {
            deadline: huge,
            initial_delay: huge,
            max_polling_duration: Some(huge),
            request_timeout: huge,
            ..plain()
        });
        assert_eq!(run.poller.first_wait(), huge);
        assert_eq!(run.poller.request_timeout(run.now), huge);
        let decision = run
            .poller
            .observe(run.now, pending("BUILDING").with_retry_after(Some(huge)));
        assert_eq!(decision, Decision::PollAfter(huge));
        let mut run = Run::create(plain());
        let decision = run
            .poller
            .observe(run.now, pending("BUILDING").with_retry_after(Some(huge)));
        assert_eq!(decision, Decision::PollAfter(secs(600)));
    }

    #[test]
    fn max_polling_duration_counts_from_the_first_poll() {
        let mut run = Run::create(PollPolicy {
            initial_delay: secs(5),
            max_polling_duration: Some(secs(20)),
            ..plain()
        });
        assert_eq!(run.poller.first_wait(), secs(5));
        run.at(secs(5));
        run.plays([
            (pending("in progress"), wait(2)),
            (pending("in progress"), wait(4)),
            (pending("in progress"), wait(8)),
            // The limit is at 25 s: 16 s would cross it.
            (pending("in progress"), wait(6)),
        ]);
        assert_eq!(run.elapsed(), secs(25));
        assert_eq!(
            run.see(pending("in progress")),
            Decision::GiveUp(Reason::MaxPollingDuration)
        );
    }

    #[test]
    fn the_nearer_limit_gives_its_reason() {
        let mut run = Run::create(PollPolicy {
            deadline: secs(10),
            max_polling_duration: Some(secs(60)),
            ..plain()
        });
        run.at(secs(10));
        assert_eq!(run.see(pending("in progress")), deadline("in progress"));
    }

    #[test]
    fn the_initial_delay_never_exceeds_the_deadline() {
        let run = Run::create(PollPolicy {
            initial_delay: secs(900),
            ..plain()
        });
        assert_eq!(run.poller.first_wait(), secs(600));
        assert_eq!(run.poller.request_timeout(run.now), secs(30));
    }

    #[test]
    fn an_error_stops_at_once() {
        let mut run = Run::create(plain());
        assert_eq!(
            run.see(Observation::Error(
                "the response body is larger than 4 MB".into()
            )),
            Decision::GiveUp(Reason::Error(
                "the response body is larger than 4 MB".into()
            ))
        );
    }

    #[test]
    fn a_finished_wait_stays_finished() {
        let mut run = Run::create(plain());
        let done = run.see(target("RUNNING"));
        assert_eq!(run.see(pending("PROVISIONING")), done);
        assert_eq!(run.see(Observation::NotFound), done);
        assert_eq!(run.poller.polls(), 1);
    }

    #[test]
    fn full_jitter_comes_from_the_injected_source() {
        let start = Instant::now();
        let mut numbers = [0.5, 0.25, 0.0].into_iter().cycle();
        let mut poller = Poller::new(
            PollPolicy {
                jitter: Jitter::Full,
                ..plain()
            },
            Operation::Create,
            false,
            start,
        )
        .with_random(move || numbers.next().unwrap());
        let pending = || pending("PROVISIONING");
        assert_eq!(poller.observe(start, pending()), wait(1));
        assert_eq!(poller.observe(start, pending()), wait(1));
        assert_eq!(poller.observe(start, pending()), wait(0));
        assert_eq!(poller.observe(start, pending()), wait(8));
    }

    #[test]
    fn osb_last_operation_in_progress_then_succeeded() {
        let mut run = Run::new(
            PollPolicy {
                interval: secs(60),
                max_interval: secs(60),
                ..plain()
            },
            Operation::Update,
            true,
        );
        run.plays([
            (pending("in progress"), wait(60)),
            (
                Observation::transient("HTTP 502").with_retry_after(Some(secs(90))),
                wait(90),
            ),
            (
                Observation::status("succeeded", StatusClass::Target),
                reached("succeeded"),
            ),
        ]);
        assert_eq!(run.elapsed(), secs(150));
    }
}
