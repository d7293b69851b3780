//! The loop that runs a [`Poller`]: wait, attempt, observe, until it is done or gives up. The attempt,
//! the clock and the sleep are injected, so the HTTP reader plugs in its request and `tokio`'s timer,
//! and the tests a scripted attempt and a clock that only moves when the loop sleeps.
//!
//! In production:
//! `run(&mut poller, Instant::now, |timeout| async move { ... }, tokio::time::sleep)`, where the
//! attempt sends with `HttpClient::send(&request, timeout)` and maps the result with
//! `observe_response` / `observe_transport`. The attempt owns its timeout; dropping the returned
//! future (Ctrl-C) stops the wait between two polls or inside one.

use std::future::Future;
use std::time::{Duration, Instant};

use super::decision::{Decision, Reason, Terminal};
use super::machine::Poller;
use super::observation::Observation;

/// Runs `poller` to its end: `Ok` when the remote object settled (target, failed, gone, never
/// found), `Err` when the wait stopped without an answer. `attempt` gets the per-request timeout.
pub async fn run<Attempt, Attempted, Sleep, Slept>(
    poller: &mut Poller,
    mut now: impl FnMut() -> Instant,
    mut attempt: Attempt,
    mut sleep: Sleep,
) -> Result<Terminal, Reason>
where
    Attempt: FnMut(Duration) -> Attempted,
    Attempted: Future<Output = Observation>,
    Sleep: FnMut(Duration) -> Slept,
    Slept: Future<Output = ()>,
{
    let timeout = poller.request_timeout(Instant::now());
    let mut wait = poller.first_wait();
    loop {
        if !wait.is_zero() {
            sleep(wait).await;
        }
        let observation = attempt(timeout).await;
        match poller.observe(now(), observation) {
            Decision::PollAfter(next) => wait = next,
            Decision::Done(terminal) => return Ok(terminal),
            Decision::GiveUp(reason) => return Err(reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::collections::VecDeque;
    use std::rc::Rc;

    use super::*;
    use crate::reconcile::poll::{Jitter, Operation, PollPolicy, StatusClass};

    fn secs(seconds: u64) -> Duration {
        Duration::from_secs(seconds)
    }

    /// A fake world: a clock that moves only when the loop sleeps (plus a fixed latency per request),
    /// a scripted series of observations, and a log of what the loop did.
    struct World {
        start: Instant,
        clock: Rc<Cell<Instant>>,
        script: Rc<RefCell<VecDeque<Observation>>>,
        log: Rc<RefCell<Vec<String>>>,
    }

    impl World {
        fn new(script: Vec<Observation>) -> World {
            // Only an origin: the fake clock moves by fixed amounts from here.
            let start = Instant::now();
            World {
                start,
                clock: Rc::new(Cell::new(start)),
                script: Rc::new(RefCell::new(script.into())),
                log: Rc::new(RefCell::new(Vec::new())),
            }
        }

        async fn run(&self, poller: &mut Poller) -> Result<Terminal, Reason> {
            let latency = Duration::from_millis(100);
            let attempt = |timeout: Duration| {
                let clock = Rc::clone(&self.clock);
                let script = Rc::clone(&self.script);
                let log = Rc::clone(&self.log);
                let start = self.start;
                async move {
                    log.borrow_mut().push(format!(
                        "poll at {:?} (timeout {timeout:?})",
                        clock.get() - start
                    ));
                    clock.set(clock.get() + latency);
                    script
                        .borrow_mut()
                        .pop_front()
                        .expect("the poller asked for more than the script has")
                }
            };
            let sleep = |wait: Duration| {
                self.log.borrow_mut().push(format!("sleep {wait:?}"));
                self.clock.set(self.clock.get() + wait);
                std::future::ready(())
            };
            run(poller, || self.clock.get(), attempt, sleep).await
        }

        fn log(&self) -> Vec<String> {
            self.log.borrow().clone()
        }
    }

    fn policy() -> PollPolicy {
        PollPolicy {
            initial_delay: secs(1),
            interval: secs(2),
            max_interval: secs(30),
            jitter: Jitter::None,
            request_timeout: secs(5),
            deadline: secs(60),
            ..PollPolicy::default()
        }
    }

    #[tokio::test]
    async fn polls_until_the_target_with_the_server_pacing() {
        let world = World::new(vec![
            Observation::status("PROVISIONING", StatusClass::Pending),
            Observation::transient("HTTP 503").with_retry_after(Some(secs(7))),
            Observation::status("RUNNING", StatusClass::Target),
        ]);
        let mut poller = Poller::new(policy(), Operation::Create, false, world.start);
        assert_eq!(
            world.run(&mut poller).await,
            Ok(Terminal::Target("RUNNING".into()))
        );
        assert_eq!(
            world.log(),
            [
                "sleep 1s",
                "poll at 1s (timeout 5s)",
                "sleep 2s",
                "poll at 3.1s (timeout 5s)",
                "sleep 7s",
                "poll at 10.2s (timeout 5s)",
            ]
        );
        assert_eq!(poller.polls(), 3);
        assert_eq!(poller.retries(), 1);
    }

    #[tokio::test]
    async fn gives_up_at_the_deadline_with_the_last_state() {
        let world = World::new(
            std::iter::repeat_n(Observation::status("in progress", StatusClass::Pending), 20)
                .collect(),
        );
        let mut poller = Poller::new(
            PollPolicy {
                deadline: secs(20),
                ..policy()
            },
            Operation::Update,
            true,
            world.start,
        );
        assert_eq!(
            world.run(&mut poller).await,
            Err(Reason::Deadline {
                last: "in progress".into()
            })
        );
        // 1 s delay, then 2, 4, 8, and what is left up to the deadline.
        let sleeps: Vec<_> = world
            .log()
            .into_iter()
            .filter(|line| line.starts_with("sleep"))
            .collect();
        assert_eq!(
            sleeps,
            ["sleep 1s", "sleep 2s", "sleep 4s", "sleep 8s", "sleep 4.6s"]
        );
        assert_eq!(
            world.clock.get() - world.start,
            Duration::from_millis(20_100)
        );
    }

    #[tokio::test]
    async fn a_zero_initial_delay_polls_at_once() {
        let world = World::new(vec![Observation::NotFound]);
        let mut poller = Poller::new(
            PollPolicy {
                initial_delay: Duration::ZERO,
                ..policy()
            },
            Operation::Delete,
            true,
            world.start,
        );
        assert_eq!(world.run(&mut poller).await, Ok(Terminal::Gone));
        assert_eq!(world.log(), ["poll at 0ns (timeout 5s)"]);
    }

    #[tokio::test]
    async fn an_unexpected_state_ends_the_loop() {
        let world = World::new(vec![Observation::status("STOPPED", StatusClass::Unknown)]);
        let mut poller = Poller::new(policy(), Operation::Create, false, world.start);
        assert_eq!(
            world.run(&mut poller).await,
            Err(Reason::UnexpectedState("STOPPED".into()))
        );
    }
}
