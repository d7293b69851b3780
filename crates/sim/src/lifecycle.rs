//! Scripted lifecycles: a list of steps (`"PROVISIONING:3"`, `"IN_PROGRESS@2s"`, `"RUNNING"`) and
//! the progress of one object through them. A step lasts a number of polls or a length of time; the
//! last step lasts forever. `gone` is the one state every API knows: the object no longer exists.
//!
//! The clock of an object starts at its first poll, not at the simulator's start, so a scenario plays
//! the same however long the client took to come round to that object.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::scenario::ScenarioError;

/// The state that means "this object no longer exists" (404 or, for an OSB deprovision, 410).
pub(crate) const GONE: &str = "gone";

/// How long a step lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// This many polls answer the step's state.
    Polls(u32),
    /// The step's state is answered for this long after the step began.
    Elapsed(Duration),
    /// The last step.
    Forever,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub state: String,
    pub until: Until,
}

/// A validated list of steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lifecycle {
    steps: Vec<Step>,
}

/// A lifecycle (or one of its durations) that does not parse; names the step.
pub(crate) type LifecycleError = crate::refusal::Refusal;

impl Lifecycle {
    /// Parses `steps`, each `STATE`, `STATE:POLLS` or `STATE@DURATION`, where every state is one of
    /// `allowed` or `gone`. Only the last step may (and must) be unbounded: a bound on it would leave
    /// nothing to move on to, and an unbounded step before it would make the rest unreachable.
    pub(crate) fn parse(steps: &[String], allowed: &[&str]) -> Result<Lifecycle, LifecycleError> {
        if steps.is_empty() {
            return Err("the lifecycle is empty: give at least one state".into());
        }
        let last = steps.len() - 1;
        let mut parsed = Vec::with_capacity(steps.len());
        for (index, text) in steps.iter().enumerate() {
            let step = parse_step(text).map_err(|error| format!("step `{text}`: {error}"))?;
            if step.state != GONE && !allowed.contains(&step.state.as_str()) {
                return Err(format!(
                    "step `{text}`: `{}` is not a state here; expected one of {}, or `{GONE}`",
                    step.state,
                    allowed
                        .iter()
                        .map(|state| format!("`{state}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .into());
            }
            if index < last && step.until == Until::Forever {
                return Err(format!(
                    "step `{text}` never ends, so the steps after it are unreachable: add `:POLLS` or `@DURATION` (e.g. `{}:3`)",
                    step.state
                ).into());
            }
            if index == last && step.until != Until::Forever {
                return Err(format!(
                    "the last step `{text}` lasts forever: write it as `{}`",
                    step.state
                )
                .into());
            }
            if step.state == GONE && index < last {
                return Err(format!(
                    "step `{text}`: `{GONE}` must be the last step (a gone object does not come back)"
                ).into());
            }
            parsed.push(step);
        }
        Ok(Lifecycle { steps: parsed })
    }
}

fn parse_step(text: &str) -> Result<Step, LifecycleError> {
    let (state, until) = if let Some((state, duration)) = text.rsplit_once('@') {
        let duration = parse_duration(duration)?;
        if duration.is_zero() {
            return Err("a step must last longer than zero".into());
        }
        (state, Until::Elapsed(duration))
    } else if let Some((state, polls)) = text.rsplit_once(':')
        && !polls.is_empty()
        && polls.bytes().all(|byte| byte.is_ascii_digit())
    {
        let polls: u32 = polls
            .parse()
            .map_err(|_| format!("`{polls}` polls is too many"))?;
        if polls == 0 {
            return Err("a step must last at least one poll".into());
        }
        (state, Until::Polls(polls))
    } else {
        (text, Until::Forever)
    };
    if state.trim().is_empty() {
        return Err("the state is empty".into());
    }
    Ok(Step {
        state: state.to_owned(),
        until,
    })
}

/// A scenario's duration (`20ms`, `2s`, `1.5s`, `1m`): statectl's own parser, the value named in the
/// error.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, LifecycleError> {
    statectl_state::duration::parse_duration(text)
        .map_err(|problem| format!("invalid duration `{text}`: {problem}").into())
}

/// One object's way through its lifecycle.
#[derive(Debug, Clone)]
pub(crate) struct Progress {
    lifecycle: Lifecycle,
    index: usize,
    polls_in_step: u32,
    /// When the current step began; `None` until the first poll starts the clock.
    step_started: Option<Instant>,
}

impl Progress {
    /// A scenario object's progress through `steps` (of the `allowed` states), shared by the
    /// requests that poll it; an error starts with `context`, which names the object.
    pub(crate) fn of(
        steps: &[String],
        allowed: &[&str],
        context: &str,
    ) -> Result<Mutex<Progress>, ScenarioError> {
        let lifecycle =
            Lifecycle::parse(steps, allowed).map_err(|error| format!("{context}: {error}"))?;
        Ok(Mutex::new(Progress::new(lifecycle)))
    }

    pub(crate) fn new(lifecycle: Lifecycle) -> Progress {
        Progress {
            lifecycle,
            index: 0,
            polls_in_step: 0,
            step_started: None,
        }
    }

    /// Answers one poll at `now`: moves past the steps that are over, then counts the poll against
    /// the step it lands on.
    pub(crate) fn poll(&mut self, now: Instant) -> &str {
        self.step_started.get_or_insert(now);
        self.settle(now, true);
        self.polls_in_step += 1;
        &self.lifecycle.steps[self.index].state
    }

    /// The state at `now` without counting a poll, for the reads that show one object through
    /// another (an instance's VNIC attachments). A step counted in polls lasts until the next poll,
    /// so a peek agrees with what the last poll said; timed steps still run out.
    pub(crate) fn peek(&self, now: Instant) -> &str {
        let mut copy = self.clone();
        copy.settle(now, false);
        &self.lifecycle.steps[copy.index].state
    }

    /// When the current step began (the first poll, for a fresh object), for `updated_at` fields.
    pub(crate) fn step_started(&self) -> Option<Instant> {
        self.step_started
    }

    fn settle(&mut self, now: Instant, polling: bool) {
        let Some(mut started) = self.step_started else {
            return;
        };
        loop {
            match self.lifecycle.steps[self.index].until {
                Until::Polls(polls) if polling && self.polls_in_step >= polls => started = now,
                // The next step begins when this one ran out, not at this poll: a client that polls
                // rarely sees the same timeline as one that polls often.
                Until::Elapsed(duration) if now.duration_since(started) >= duration => {
                    started += duration;
                }
                _ => break,
            }
            self.index += 1;
            self.polls_in_step = 0;
        }
        self.step_started = Some(started);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATES: &[&str] = &["PROVISIONING", "RUNNING", "in progress", "succeeded"];

    fn lifecycle(steps: &[&str]) -> Lifecycle {
        let steps: Vec<String> = steps.iter().map(|&step| step.to_owned()).collect();
        Lifecycle::parse(&steps, STATES).unwrap()
    }

    fn parse_error(steps: &[&str]) -> String {
        let steps: Vec<String> = steps.iter().map(|&step| step.to_owned()).collect();
        Lifecycle::parse(&steps, STATES).unwrap_err().to_string()
    }

    #[test]
    fn poll_steps_last_their_count() {
        let mut progress = Progress::new(lifecycle(&["PROVISIONING:3", "RUNNING"]));
        let now = Instant::now();
        let seen: Vec<String> = (0..5).map(|_| progress.poll(now).to_owned()).collect();
        assert_eq!(
            seen,
            [
                "PROVISIONING",
                "PROVISIONING",
                "PROVISIONING",
                "RUNNING",
                "RUNNING"
            ]
        );
    }

    #[test]
    fn timed_steps_run_from_the_first_poll_and_chain_without_drift() {
        let mut progress = Progress::new(lifecycle(&[
            "in progress@2s",
            "PROVISIONING@1s",
            "succeeded",
        ]));
        let start = Instant::now();
        // The clock has not started: time before the first poll does not count.
        assert_eq!(
            progress.peek(start + Duration::from_secs(60)),
            "in progress"
        );
        assert_eq!(progress.poll(start), "in progress");
        assert_eq!(
            progress.poll(start + Duration::from_millis(1999)),
            "in progress"
        );
        // Polled late: the second step began at 2 s, so at 2.9 s it is still running.
        assert_eq!(
            progress.poll(start + Duration::from_millis(2900)),
            "PROVISIONING"
        );
        assert_eq!(progress.poll(start + Duration::from_secs(3)), "succeeded");
    }

    #[test]
    fn a_long_pause_skips_every_finished_step() {
        let mut progress = Progress::new(lifecycle(&["in progress@1s", "RUNNING@1s", "succeeded"]));
        let start = Instant::now();
        progress.poll(start);
        assert_eq!(progress.poll(start + Duration::from_secs(10)), "succeeded");
    }

    #[test]
    fn a_peek_agrees_with_the_last_poll_and_counts_nothing() {
        let mut progress = Progress::new(lifecycle(&["PROVISIONING:1", "RUNNING"]));
        let now = Instant::now();
        assert_eq!(progress.peek(now), "PROVISIONING");
        assert_eq!(progress.poll(now), "PROVISIONING");
        assert_eq!(progress.peek(now), "PROVISIONING");
        assert_eq!(progress.peek(now), "PROVISIONING");
        assert_eq!(progress.poll(now), "RUNNING");
        assert_eq!(progress.peek(now), "RUNNING");
    }

    #[test]
    fn mixed_steps_start_the_timer_at_the_poll_that_enters_them() {
        let mut progress = Progress::new(lifecycle(&["PROVISIONING:1", "RUNNING@1s", "gone"]));
        let start = Instant::now();
        progress.poll(start);
        let entered = start + Duration::from_secs(5);
        assert_eq!(progress.poll(entered), "RUNNING");
        assert_eq!(
            progress.poll(entered + Duration::from_millis(900)),
            "RUNNING"
        );
        assert_eq!(progress.poll(entered + Duration::from_secs(1)), GONE);
    }

    #[test]
    fn states_keep_their_spaces() {
        let mut progress = Progress::new(lifecycle(&["in progress:2", "succeeded"]));
        assert_eq!(progress.poll(Instant::now()), "in progress");
    }

    #[test]
    fn bad_lifecycles_say_what_is_wrong() {
        assert!(parse_error(&[]).contains("empty"));
        assert!(parse_error(&["RUNING"]).contains("`RUNING` is not a state here"));
        assert!(parse_error(&["PROVISIONING", "RUNNING"]).contains("never ends"));
        assert!(parse_error(&["RUNNING:2"]).contains("lasts forever: write it as `RUNNING`"));
        assert!(parse_error(&["PROVISIONING:0", "RUNNING"]).contains("at least one poll"));
        assert!(parse_error(&["PROVISIONING@0s", "RUNNING"]).contains("longer than zero"));
        assert!(parse_error(&["PROVISIONING@2", "RUNNING"]).contains("invalid duration `2`"));
        assert!(parse_error(&["gone:1", "RUNNING"]).contains("must be the last step"));
    }

    #[test]
    fn durations_are_statectls() {
        assert_eq!(parse_duration("20ms"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        for bad in ["", "2", "s", "2d", "-1s", "1..5s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
