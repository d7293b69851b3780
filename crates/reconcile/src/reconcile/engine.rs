//! The HTTP reader: for each selected instance, the profile's requests are rendered, authenticated
//! and sent, the status request's answer is fed to the poller, and once the remote object settles the
//! `when = "target"` requests run and the mappings give the new attributes. Many instances at once,
//! bounded by `parallelism` and the profile's per-host limit.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::duration::humanize;
use crate::reconcile::credentials::Credentials;
use crate::reconcile::http::{HttpClient, HttpResponse};
use crate::reconcile::outcome::{Outcome, excerpt};
use crate::reconcile::poll::{
    Decision, Jitter, Observation, PollPolicy, Poller, Reason, RequestTimeouts, StatusClass,
    Terminal, observe_response, observe_transport,
};
use crate::reconcile::profile::{
    Context, Endpoint, GoneAction, JitterAmount, ListedAs, Patch, Profile, RequestTemplate, When,
};
use crate::reconcile::progress::Progress;
use crate::reconcile::rate::RateLimit;
use crate::state::operation::Operation;

/// One instance to reconcile, with everything its requests need.
#[derive(Debug, Clone)]
pub struct Job {
    /// The instance's address, for logs.
    pub label: String,
    pub profile: Arc<Profile>,
    pub endpoint: Arc<Endpoint>,
    pub credentials: Arc<Credentials>,
    pub attributes: Value,
    pub operation: Operation,
}

/// Settings of a whole run.
#[derive(Debug, Clone, Copy)]
pub struct RunSettings {
    pub parallelism: usize,
    /// Overrides every profile's timeout (`--timeout`).
    pub deadline: Option<Duration>,
}

/// The poll policy a profile's settings ask for.
pub fn policy(profile: &Profile, deadline: Option<Duration>) -> PollPolicy {
    let settings = &profile.poll;
    let defaults = PollPolicy::default();
    let jitter = match settings.jitter {
        JitterAmount::Fraction(fraction) if fraction <= 0.0 => Jitter::None,
        JitterAmount::UpTo(duration) if duration.is_zero() => Jitter::None,
        _ => Jitter::Full,
    };
    PollPolicy {
        initial_delay: settings.initial_delay,
        interval: settings.interval,
        max_interval: settings.max_interval.max(settings.interval),
        multiplier: settings.multiplier.max(1.0),
        jitter,
        request_timeout: defaults.request_timeout,
        deadline: deadline.unwrap_or(settings.timeout),
        max_polling_duration: settings.max_polling_duration,
        target_hits: settings.consecutive_targets.max(1),
        not_found_checks: settings.not_found_checks,
        retry_budget: defaults.retry_budget,
    }
}

/// Reconciles every job, `parallelism` at a time, returning outcomes in the jobs' order; `progress`
/// learns of each as it comes (a run cut short still has them there).
pub async fn run_all(
    jobs: Vec<Job>,
    client: Arc<HttpClient>,
    settings: RunSettings,
    progress: Arc<Progress>,
) -> Vec<Outcome> {
    let started = Instant::now();
    let total = jobs.len();
    tracing::info!(
        instances = total,
        parallelism = settings.parallelism,
        "reconciling"
    );
    let gate = Arc::new(Semaphore::new(settings.parallelism.max(1)));
    // Each profile (provider) has its own cap and pace too, below the run's.
    let mut per_profile: HashMap<String, (Arc<Semaphore>, Option<Arc<RateLimit>>)> = HashMap::new();
    let mut handles = Vec::with_capacity(jobs.len());
    for (index, job) in jobs.into_iter().enumerate() {
        let (provider, rate) = per_profile
            .entry(job.profile.type_name.clone())
            .or_insert_with(|| {
                let limits = &job.profile.limits;
                (
                    Arc::new(Semaphore::new(limits.concurrency.max(1))),
                    limits
                        .rate_per_second
                        .and_then(RateLimit::new)
                        .map(Arc::new),
                )
            })
            .clone();
        let (gate, client, progress) = (gate.clone(), client.clone(), progress.clone());
        handles.push(tokio::spawn(async move {
            let _provider_slot = provider
                .acquire_owned()
                .await
                .expect("the gate is never closed");
            let _slot = gate
                .acquire_owned()
                .await
                .expect("the gate is never closed");
            progress.started();
            let pace = Pace {
                client: &client,
                rate: rate.as_deref(),
                progress: Some(&progress),
            };
            let outcome = reconcile_paced(&job, &pace, settings.deadline).await;
            tracing::info!(target: "statectl::refresh", instance = %job.label, outcome = %outcome, "done");
            progress.finished(index, outcome.clone());
            outcome
        }));
    }
    let mut outcomes = Vec::with_capacity(handles.len());
    for handle in handles {
        outcomes.push(handle.await.unwrap_or_else(|error| Outcome::Error {
            message: format!("the reconciler stopped: {error}"),
            status: None,
            excerpt: String::new(),
        }));
    }
    let snapshot = progress.snapshot();
    tracing::info!(
        instances = total,
        retries = snapshot.retries,
        elapsed_ms = started.elapsed().as_millis(),
        "reconciled"
    );
    outcomes
}

/// What every request of a run goes through: the sender, the provider's pace, the run's counters.
#[derive(Debug, Clone, Copy)]
pub struct Pace<'r> {
    pub client: &'r HttpClient,
    pub rate: Option<&'r RateLimit>,
    pub progress: Option<&'r Progress>,
}

/// Polls one instance, alone (no pace, no counters).
pub async fn reconcile(job: &Job, client: &HttpClient, deadline: Option<Duration>) -> Outcome {
    let pace = Pace {
        client,
        rate: None,
        progress: None,
    };
    reconcile_paced(job, &pace, deadline).await
}

/// What one answer to the status request says: refused credentials end the run, 404 and 410 follow
/// the profile's gone rules, and any other answer is read for its status. The flag is true when the
/// answer proves the object gone.
fn observe_status(
    job: &Job,
    context: &mut Context<'_>,
    status_request: &RequestTemplate,
    response: &HttpResponse,
) -> (Observation, bool) {
    if matches!(response.status, 401 | 403) {
        // Waiting does not fix refused credentials (OSB's "keep polling" is for answers a broker
        // may still change).
        let refused = format!("HTTP {}: the credentials were refused", response.status);
        return (Observation::Error(refused), false);
    }
    if matches!(response.status, 404 | 410) {
        return match job.profile.gone_action(response.status, job.operation) {
            Some(GoneAction::Gone) => (Observation::Gone, true),
            Some(GoneAction::Retry) => (Observation::NotFound, false),
            Some(GoneAction::Error) => (
                Observation::Error(format!("HTTP {}", response.status)),
                false,
            ),
            None => (
                Observation::Invalid {
                    status: response.status,
                },
                false,
            ),
        };
    }
    let mut gone = false;
    let observation = observe_response(response, SystemTime::now(), |answer| {
        if let Err(problem) = context.record(status_request, &answer.body) {
            return Observation::Error(problem.to_string());
        }
        let Some(status) = context.status() else {
            return Observation::Error("the status request's answer holds no status".to_owned());
        };
        let class = match status.class {
            ListedAs::Pending => StatusClass::Pending,
            ListedAs::Target => StatusClass::Target,
            ListedAs::Failed => StatusClass::Failed,
            ListedAs::Unknown => StatusClass::Unknown,
            ListedAs::Gone => {
                gone = true;
                StatusClass::Target
            }
        };
        Observation::status(status.value.clone(), class)
    });
    (observation, gone)
}

/// Polls one instance until it settles, the deadline passes, or something polling cannot fix.
async fn reconcile_paced(job: &Job, pace: &Pace<'_>, deadline: Option<Duration>) -> Outcome {
    let profile = &job.profile;
    let operation = job.operation;
    // Right after a create a "not found" may only mean "not visible yet".
    let known_to_exist = job.operation != Operation::Create;
    let mut poller = Poller::new(
        policy(profile, deadline),
        operation,
        known_to_exist,
        Instant::now(),
    );
    let env = |name: &str| std::env::var(name).ok();
    let Some(status_request) = profile.request(&profile.status.request) else {
        return error(
            format!("profile `{}` has no status request", profile.type_name),
            None,
            &[],
        );
    };
    let round = Round {
        job,
        pace,
        status_request,
        timeouts: poller.request_timeouts(),
    };
    let mut last_response: Option<HttpResponse> = None;
    tokio::time::sleep(poller.first_wait()).await;
    loop {
        let mut context = profile.context(&job.attributes, &job.endpoint, &env);
        let observation = match round.poll_once(&mut context, &mut last_response).await {
            Ok(observation) => observation,
            Err(outcome) => return outcome,
        };
        if matches!(observation, Observation::Transient { .. })
            && let Some(progress) = pace.progress
        {
            progress.retried();
        }
        let asked = observation.retry_after();
        let now = Instant::now();
        let decision = poller.observe(now, observation);
        log_a_wait_past_the_deadline(job, &poller, now, asked, &decision);
        match decision {
            Decision::PollAfter(wait) => tokio::time::sleep(wait).await,
            Decision::Done(Terminal::Target(state)) => {
                if let Err(outcome) = round.side_requests(&mut context, When::Target).await {
                    return outcome;
                }
                return settled_with(context.patch(), |attributes| Outcome::Reconciled {
                    status: state,
                    attributes,
                });
            }
            Decision::Done(Terminal::Failed(state)) => {
                let message = context
                    .status()
                    .and_then(|status| status.message.clone())
                    .unwrap_or_default();
                // The state keeps what the remote says of the failure; the taint comes on top.
                return settled_with(context.patch(), |attributes| Outcome::Failed {
                    status: state,
                    message,
                    attributes,
                });
            }
            Decision::Done(Terminal::Gone | Terminal::NotFound) => return Outcome::Gone,
            // Every answer an error (a 500, a reset, a timeout) until the deadline: no sign of an
            // operation in progress, nothing learned of the object. An error, not "still pending".
            Decision::GiveUp(Reason::Deadline { last }) if poller.only_failures() => {
                return only_failures(&last, last_response.as_ref());
            }
            Decision::GiveUp(Reason::Deadline { last }) => {
                return Outcome::Pending { last_status: last };
            }
            Decision::GiveUp(Reason::MaxPollingDuration) => {
                return Outcome::Failed {
                    status: poller.last_state().unwrap_or("unknown").to_owned(),
                    message: "the maximum polling duration passed".to_owned(),
                    attributes: None,
                };
            }
            Decision::GiveUp(reason) => {
                let (status, body) = last_response.as_ref().map_or((None, &[][..]), |response| {
                    (Some(response.status), response.body.as_slice())
                });
                return error(reason.to_string(), status, body);
            }
        }
    }
}

/// `-v`: the server asked (`Retry-After`) for a longer wait than the deadline leaves, so the wait is
/// cut; said when a wait is cut, not again when the deadline ends it.
fn log_a_wait_past_the_deadline(
    job: &Job,
    poller: &Poller,
    now: Instant,
    asked: Option<Duration>,
    decision: &Decision,
) {
    if let (Some(asked), Some(left), Decision::PollAfter(_)) =
        (asked, poller.time_left(now), decision)
        && asked > left
    {
        tracing::info!(
            target: "statectl::refresh",
            instance = %job.label,
            retry_after = %humanize(asked),
            left = %humanize(left),
            "the server asks to wait longer (Retry-After) than the deadline leaves: the wait ends at the deadline"
        );
    }
}

/// The outcome of a wait whose every answer was an error until the deadline (`last` the last one).
fn only_failures(last: &str, last_response: Option<&HttpResponse>) -> Outcome {
    let (status, body) = last_response.map_or((None, &[][..]), |response| {
        (Some(response.status), response.body.as_slice())
    });
    let message = if status.is_some() {
        "every answer until the deadline was an error".to_owned()
    } else {
        format!("every answer until the deadline was an error (last: {last})")
    };
    error(message, status, body)
}

/// What every request of one instance's wait shares: the job, its pace, the status request, and the
/// request timeouts its deadline allows.
struct Round<'a, 'r> {
    job: &'a Job,
    pace: &'a Pace<'r>,
    status_request: &'a RequestTemplate,
    timeouts: RequestTimeouts,
}

impl Round<'_, '_> {
    /// One round of polling: the requests before the status one (none in the built-ins), in order,
    /// then the status request. What it observed, or the outcome when the round settles the instance
    /// by itself (the instance is gone, or a request before the status one failed).
    async fn poll_once(
        &self,
        context: &mut Context<'_>,
        last_response: &mut Option<HttpResponse>,
    ) -> Result<Observation, Outcome> {
        self.side_requests(context, When::Always).await?;
        match send(
            self.job,
            self.pace,
            context,
            self.status_request,
            self.timeouts.at(Instant::now()),
        )
        .await
        {
            Err(observation) => Ok(observation),
            Ok(response) => {
                let (observation, gone) =
                    observe_status(self.job, context, self.status_request, &response);
                *last_response = Some(response);
                if gone {
                    return Err(Outcome::Gone);
                }
                Ok(observation)
            }
        }
    }

    /// The profile's requests other than the status one, for one phase: with `When::Always` those
    /// before the status request, in order; with `When::Target` those that run once a target is
    /// seen (and whose inputs the answers so far provide).
    async fn side_requests(&self, context: &mut Context<'_>, phase: When) -> Result<(), Outcome> {
        let requests = &self.job.profile.requests;
        let before_status = requests
            .iter()
            .position(|request| request.name == self.status_request.name)
            .unwrap_or(requests.len());
        for (position, request) in requests.iter().enumerate() {
            let runs = match phase {
                When::Always => position < before_status && request.when == When::Always,
                When::Target => {
                    request.name != self.status_request.name
                        && request.when == When::Target
                        && context.runs(request)
                }
            };
            if runs {
                side_request(
                    self.job,
                    self.pace,
                    context,
                    request,
                    self.timeouts.at(Instant::now()),
                )
                .await?;
            }
        }
        Ok(())
    }
}

/// Sends `request` with the job's credentials: the answer, or the observation of a failure to get one.
async fn send(
    job: &Job,
    pace: &Pace<'_>,
    context: &Context<'_>,
    request: &RequestTemplate,
    timeout: Duration,
) -> Result<HttpResponse, Observation> {
    let mut http = context
        .render(request)
        .map_err(|problem| Observation::Error(problem.to_string()))?;
    if let Some(rate) = pace.rate {
        rate.wait().await;
    }
    // Signed after the wait: OCI refuses a signature whose date is more than 5 minutes old.
    job.credentials.apply(&mut http, SystemTime::now());
    pace.client
        .send(&http, timeout)
        .await
        .map_err(|failure| observe_transport(&failure))
}

/// A request whose answer only feeds mappings (the VNIC of an instance): it must answer 2xx.
async fn side_request(
    job: &Job,
    pace: &Pace<'_>,
    context: &mut Context<'_>,
    request: &RequestTemplate,
    timeout: Duration,
) -> Result<(), Outcome> {
    // Transient failures get a few quick retries; these requests are not polled.
    let mut attempt = 0;
    loop {
        attempt += 1;
        if attempt > 1
            && let Some(progress) = pace.progress
        {
            progress.retried();
        }
        match send(job, pace, context, request, timeout).await {
            Ok(response) if (200..300).contains(&response.status) => {
                return context.record(request, &response.body).map_err(|problem| {
                    error(problem.to_string(), Some(response.status), &response.body)
                });
            }
            Ok(response)
                if attempt < 4 && matches!(response.status, 408 | 429 | 500 | 502..=504) => {}
            Ok(response) => {
                return Err(error(
                    format!("request `{}` failed", request.name),
                    Some(response.status),
                    &response.body,
                ));
            }
            Err(Observation::Transient { .. }) if attempt < 4 => {}
            Err(observation) => return Err(error(observation.describe(), None, &[])),
        }
        tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
    }
}

/// What an instance settled with (`settled` given the patched attributes, if any changed), but an
/// error outcome when a value the mappings would put into the state holds a credential this run
/// sent (a server that echoes the token into a field it maps). Refused rather than masked: a masked
/// value would be a wrong value in the state, and the diff would show it as a change; nothing of such
/// an answer is trusted.
fn settled_with(patch: Patch, settled: impl FnOnce(Option<Value>) -> Outcome) -> Outcome {
    let echoed = patch.changes.iter().find(|change| {
        serde_json::to_string(&change.new)
            .is_ok_and(|text| statectl_net::secrets::holds_secret(&text))
    });
    if let Some(change) = echoed {
        return Outcome::Error {
            message: format!(
                "the answer's value for `{}` holds a credential this run sent; nothing from it is taken",
                change.path
            ),
            status: None,
            excerpt: String::new(),
        };
    }
    settled((!patch.is_empty()).then_some(patch.attributes))
}

fn error(message: String, status: Option<u16>, body: &[u8]) -> Outcome {
    Outcome::Error {
        message,
        status,
        excerpt: excerpt(body, 120),
    }
}
