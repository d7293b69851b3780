//! The accept loop and the path every request takes:
//!
//! 1. `GET /_sim/stats` answers the counters at once: no faults, no auth, not counted;
//! 2. the request is counted, and routed to the API that owns its path (else 404);
//! 3. the fault plan: latency is waited, then a reset, 429, 500 or 503 may answer instead, as a
//!    gateway in front of the service would, before any credential is looked at;
//! 4. the API checks the credentials (401s count as `auth_rejected`);
//! 5. an eventual-consistency 404 may answer instead (behind auth, as the service itself says it);
//! 6. the API answers, advancing the object's lifecycle by one poll; the body may be slow.
//!
//! Only answered requests reach step 6, so a fault never consumes a lifecycle step.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::json;
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};

use crate::cf::Cf;
use crate::clock::Clock;
use crate::faults::{Faults, Injected};
use crate::http::{ReadError, Request, Response, read_request, write_response};
use crate::oci::Oci;
use crate::osb::Osb;
use crate::scenario::Scenario;
use crate::scenario::ScenarioError;
use crate::stats::Stats;

/// What every request sees of the simulator.
#[derive(Debug)]
pub(crate) struct Context {
    pub clock: Clock,
    /// A counter for request ids (`opc-request-id`), unique within a run.
    request_ids: AtomicU64,
}

impl Context {
    pub(crate) fn next_request_id(&self) -> u64 {
        self.request_ids.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// One simulated API.
pub(crate) trait Service: Debug + Send + Sync {
    /// Whether requests for `path` are this API's.
    fn owns(&self, path: &str) -> bool;
    /// Checks the request's credentials (and, for OSB, its version header); the error is the
    /// answer.
    fn authenticate(
        &self,
        request: &Request,
        now: SystemTime,
        context: &Context,
    ) -> Result<(), Response>;
    /// Answers an authenticated GET.
    fn answer(&self, request: &Request, context: &Context) -> Response;
    /// This API's error answer with `status` (404, 429, 500 or 503), for injected faults.
    fn error(&self, status: u16, context: &Context) -> Response;
}

/// The whole simulator: its APIs, faults and counters.
#[derive(Debug)]
pub(crate) struct Sim {
    services: Vec<Box<dyn Service>>,
    faults: Faults,
    stats: Stats,
    context: Context,
    verbose: bool,
}

/// What to do with a request.
#[derive(Debug)]
enum Answer {
    Respond {
        response: Response,
        /// Over how long the body is trickled.
        slow_body: Duration,
        /// The fault that made the answer, for the log.
        injected: Option<&'static str>,
    },
    /// Close the connection with a reset, unanswered.
    Reset,
}

impl Sim {
    /// Builds the simulator, checking every part of `scenario`.
    pub(crate) fn new(scenario: &Scenario, verbose: bool) -> Result<Sim, ScenarioError> {
        let mut services: Vec<Box<dyn Service>> = Vec::new();
        if let Some(oci) = &scenario.oci {
            services.push(Box::new(Oci::new(oci)?));
        }
        if let Some(cf) = &scenario.cf {
            services.push(Box::new(Cf::new(cf)?));
        }
        if let Some(osb) = &scenario.osb {
            services.push(Box::new(Osb::new(osb)?));
        }
        Ok(Sim {
            services,
            faults: Faults::new(&scenario.faults)?,
            stats: Stats::default(),
            context: Context {
                clock: Clock::start(),
                request_ids: AtomicU64::new(0),
            },
            verbose,
        })
    }

    async fn handle(&self, request: &Request) -> Answer {
        if request.path == "/_sim/stats" {
            return Answer::Respond {
                response: Response::json(200, &self.stats.to_json()),
                slow_body: Duration::ZERO,
                injected: None,
            };
        }
        self.stats.request(&request.path);
        let Some(service) = self
            .services
            .iter()
            .find(|service| service.owns(&request.path))
        else {
            let message = format!("no simulated API serves `{}`", request.path);
            return self.respond(Response::json(404, &json!({ "error": message })));
        };
        if request.method != "GET" {
            let refused = Response::json(405, &json!({"error": "the simulator serves GET only"}))
                .with_header("allow", "GET");
            return self.respond(refused);
        }
        let plan = self.faults.plan(&request.path, &request.target);
        if !plan.latency.is_zero() {
            self.stats.fault("latency");
            tokio::time::sleep(plan.latency).await;
        }
        let now = SystemTime::now();
        let (response, applied) = match plan.injected {
            Some(fault @ Injected::Reset) => {
                self.stats.fault(fault.name());
                return Answer::Reset;
            }
            Some(fault @ Injected::TooManyRequests(retry_after)) => (
                service
                    .error(429, &self.context)
                    .with_header("retry-after", retry_after.header_value(now)),
                Some(fault),
            ),
            Some(fault @ Injected::InternalServerError) => {
                (service.error(500, &self.context), Some(fault))
            }
            Some(fault @ Injected::ServiceUnavailable) => {
                (service.error(503, &self.context), Some(fault))
            }
            eventual @ (Some(Injected::NotFound) | None) => {
                match service.authenticate(request, now, &self.context) {
                    Err(refused) => {
                        if refused.status == 401 {
                            self.stats.auth_rejected();
                        }
                        (refused, None)
                    }
                    Ok(()) => match eventual {
                        Some(fault) => (service.error(404, &self.context), Some(fault)),
                        None => (service.answer(request, &self.context), None),
                    },
                }
            }
        };
        if let Some(fault) = applied {
            self.stats.fault(fault.name());
        }
        if !plan.slow_body.is_zero() {
            self.stats.fault("slow_body");
        }
        self.stats.status(response.status);
        Answer::Respond {
            response,
            slow_body: plan.slow_body,
            injected: applied.map(Injected::name),
        }
    }

    /// An answer that no fault touched.
    fn respond(&self, response: Response) -> Answer {
        self.stats.status(response.status);
        Answer::Respond {
            response,
            slow_body: Duration::ZERO,
            injected: None,
        }
    }

    #[expect(
        clippy::print_stderr,
        reason = "with -v the simulator logs each request to stderr; stdout carries only the listening line"
    )]
    fn log(&self, request: &Request, answer: &Answer) {
        if self.verbose {
            // The target holds ids and the OSB operation only; no header (credentials) is logged.
            match answer {
                Answer::Respond {
                    response, injected, ..
                } => {
                    let injected =
                        injected.map_or(String::new(), |name| format!(" (fault {name})"));
                    eprintln!(
                        "{} {} -> {}{injected}",
                        request.method, request.target, response.status
                    );
                }
                Answer::Reset => eprintln!("{} {} -> reset", request.method, request.target),
            }
        }
    }
}

/// Serves `sim` on `listener` until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, sim: Arc<Sim>) {
    crate::wire_faults::accept_each(listener, |stream| connection(stream, Arc::clone(&sim))).await;
}

/// Serves `sim` on a free loopback port in the background, for tests.
#[cfg(test)]
pub(crate) async fn start(sim: Sim) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    (address, tokio::spawn(serve(listener, Arc::new(sim))))
}

async fn connection(stream: TcpStream, sim: Arc<Sim>) {
    let mut stream = BufReader::new(stream);
    loop {
        let request = match read_request(&mut stream).await {
            Ok(request) => request,
            Err(ReadError::Closed | ReadError::Io) => return,
            Err(ReadError::Malformed(status, message)) => {
                let response = Response::json(status, &json!({ "error": message }));
                let _ = write_response(&mut stream, &response, false, Duration::ZERO).await;
                return;
            }
        };
        let answer = sim.handle(&request).await;
        sim.log(&request, &answer);
        match answer {
            Answer::Respond {
                response,
                slow_body,
                ..
            } => {
                let written =
                    write_response(&mut stream, &response, request.keep_alive, slow_body).await;
                if written.is_err() || !request.keep_alive {
                    return;
                }
            }
            Answer::Reset => {
                // A zero linger makes the close a reset (RST) rather than an orderly FIN, which is
                // what a crashed proxy or an overloaded load balancer looks like to a client.
                let _ = stream.get_ref().set_zero_linger();
                return;
            }
        }
    }
}
