//! `statectl-sim`: a provider simulator for `statectl refresh`'s tests and demos. It serves, on
//! loopback, an OCI-like Core Services API, a Cloud Foundry v3 Cloud Controller and an Open Service
//! Broker, whose objects move through scripted lifecycles while faults are injected, and it checks
//! credentials the way the real services do. See SCENARIO.md for the scenario file.
//!
//! `http-backend` serves Terraform states instead, as GitLab's managed state does, for the http
//! backend's tests (see `state_backend`); `tfe` serves HCP Terraform's state API over HTTPS (see
//! `tfe`); `object-storage` serves OCI Object Storage's object API for the oci backend's.
//!
//! The library's one entry is [`Server::start`]: the binary's arguments in, a server running on
//! its own threads out, stopped when dropped ([`echo_line`] is lent to the tests' own echoing
//! stand-in, so that both echo alike). The tests start it in-process; the binary
//! (`main.rs`) starts it, announces where it went and waits for Ctrl-C.

mod cf;
mod cli;
mod clock;
#[cfg(test)]
mod end_to_end;
mod faults;
mod http;
mod lifecycle;
mod object_storage;
mod oci;
mod oci_signature;
mod osb;
mod pki;
mod refusal;
mod scenario;
mod server;
mod setup;
mod state_backend;
mod state_server;
mod stats;
mod tfe;
mod wire_faults;

use std::ffi::OsString;
use std::net::SocketAddr;
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Parser;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use http::echo_line;
pub use pki::{Signed, TestCa};
pub use setup::SetupFailed;

/// Why a simulator did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The arguments do not parse (or ask for `--help` or `--version`): clap's own message.
    #[error("{0}")]
    Usage(#[from] clap::Error),
    /// The arguments parse but the server cannot start: a bad scenario, key or certificate, or
    /// no address to listen on.
    #[error(transparent)]
    Setup(#[from] SetupFailed),
}

/// A running simulator: its own runtime on a thread of its own, serving until dropped.
#[derive(Debug)]
pub struct Server {
    address: SocketAddr,
    scheme: &'static str,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts the simulator the binary's `args` describe (without the program name), e.g.
    /// `["--scenario", "demo.toml"]` or `["http-backend", "--username", "u", ...]`; `--listen`
    /// defaults to a free loopback port.
    pub fn start<I, S>(args: I) -> Result<Server, StartError>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let program = std::iter::once(OsString::from("statectl-sim"));
        let args = cli::Args::try_parse_from(program.chain(args.into_iter().map(Into::into)))?;
        let plan = cli::plan(&args).map_err(SetupFailed::from)?;
        Ok(Server::run(plan).map_err(SetupFailed::from)?)
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// `http://127.0.0.1:PORT` (`https://` for `tfe` and an http backend with a certificate).
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.address)
    }

    fn run(plan: cli::Plan) -> Result<Server, setup::SetupError> {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if let Some(workers) = plan.workers {
            builder.worker_threads(workers);
        }
        let runtime = builder
            .enable_all()
            .build()
            .map_err(setup::SetupError::Runtime)?;
        let (listener, address) = runtime.block_on(listen(plan.at))?;
        let (stop, stopped) = oneshot::channel::<()>();
        let serve = plan.serve;
        let thread = std::thread::Builder::new()
            .name(format!("statectl-sim {address}"))
            .spawn(move || {
                runtime.block_on(async {
                    tokio::select! {
                        () = serve(listener) => {}
                        _ = stopped => {}
                    }
                });
                // Connections still open (a hung answer, a slow body) end here, not with the test.
                runtime.shutdown_timeout(Duration::from_secs(1));
            })
            .map_err(setup::SetupError::Thread)?;
        Ok(Server {
            address,
            scheme: plan.scheme,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A listener on `at` (port 0: one the system picks) and the address it got.
async fn listen(at: SocketAddr) -> Result<(TcpListener, SocketAddr), setup::SetupError> {
    let listener = TcpListener::bind(at)
        .await
        .map_err(|source| setup::SetupError::Listen { at, source })?;
    let address = listener.local_addr().map_err(setup::SetupError::Address)?;
    Ok((listener, address))
}
