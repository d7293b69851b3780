//! `statectl-sim`: a provider simulator for `statectl refresh`'s tests and demos. It serves, on
//! loopback, an OCI-like Core Services API, a Cloud Foundry v3 Cloud Controller and an Open Service
//! Broker, whose objects move through scripted lifecycles while faults are injected, and it checks
//! credentials the way the real services do. See SCENARIO.md for the scenario file.
//!
//! On start it prints one line on stdout, `listening on http://127.0.0.1:PORT`, so that a test can
//! start it on port 0 and read where it went; it then serves until it is killed (or interrupted).
//! With `-v` it logs one line a request on stderr. A bad scenario is one `error:` line and exit 2.

mod cf;
mod clock;
#[cfg(test)]
mod end_to_end;
mod faults;
mod http;
mod lifecycle;
mod oci;
mod oci_signature;
mod osb;
mod scenario;
mod server;
mod stats;

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use tokio::net::TcpListener;

use crate::scenario::Scenario;
use crate::server::Sim;

/// Simulate the provider APIs that `statectl refresh` polls: OCI, Cloud Foundry v3 and an Open
/// Service Broker, with scripted lifecycles and injected faults.
#[derive(Debug, Parser)]
#[command(name = "statectl-sim", version)]
struct Args {
    /// The scenario: objects, lifecycles, credentials and faults (TOML; see SCENARIO.md).
    #[arg(long, value_name = "FILE")]
    scenario: PathBuf,
    /// The address to listen on; port 0 takes a free port.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Log each request (method, target, status) to stderr.
    #[arg(short, long)]
    verbose: bool,
}

#[expect(
    clippy::print_stderr,
    reason = "the binary's one error line; there is no printer outside the library's CLI"
)]
fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let scenario = Scenario::load(&args.scenario).map_err(|error| error.to_string())?;
    let sim = Sim::new(&scenario, args.verbose)
        .map_err(|error| format!("`{}`: {error}", args.scenario.display()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    runtime.block_on(async {
        let listener = TcpListener::bind(args.listen)
            .await
            .map_err(|error| format!("cannot listen on `{}`: {error}", args.listen))?;
        let address = listener
            .local_addr()
            .map_err(|error| format!("cannot read the listening address: {error}"))?;
        announce(address).map_err(|error| format!("cannot write to stdout: {error}"))?;
        tokio::select! {
            () = server::serve(listener, Arc::new(sim)) => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(())
    })
}

#[expect(
    clippy::print_stdout,
    reason = "the one line a test reads to find the port; flushed, since stdout is a pipe there"
)]
fn announce(address: SocketAddr) -> std::io::Result<()> {
    println!("listening on http://{address}");
    std::io::stdout().flush()
}
