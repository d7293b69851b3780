//! Why a simulator cannot start once its arguments parse: a bad scenario, fault, key, state file or
//! certificate, or no address to listen on. One line each, which `statectl-sim` prints after
//! `error:`.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::oci_signature::SignatureError;
use crate::scenario::ScenarioError;

/// Why a simulator did not start once its arguments parsed, for the library's callers.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct SetupFailed(#[from] SetupError);

/// What stops a simulator from starting.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SetupError {
    #[error("--scenario is required")]
    NoScenario,
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The scenario at `path` does not make a simulator.
    #[error("`{}`: {source}", path.display())]
    Sim {
        path: PathBuf,
        source: ScenarioError,
    },
    /// `grammar` is the mode's fault syntax.
    #[error("`{spec}` is not a fault: {grammar}")]
    Fault { spec: String, grammar: &'static str },
    #[error("`{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{}`: {source}", path.display())]
    Key {
        path: PathBuf,
        source: SignatureError,
    },
    #[error("`{0}` is not WORKSPACE=FILE")]
    StateSpec(String),
    #[error("--state {0}=...: no workspace `{0}`")]
    NoWorkspace(String),
    #[error("cannot make a certificate: {0}")]
    Certificate(#[source] rcgen::Error),
    /// A PEM file that does not read.
    #[error("`{}`: {source}", path.display())]
    Pem {
        path: PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    /// A CA certificate the client verifier refuses.
    #[error("`{}`: {source}", path.display())]
    Ca {
        path: PathBuf,
        source: rustls::Error,
    },
    #[error(transparent)]
    Tls(#[from] rustls::Error),
    #[error(transparent)]
    Verifier(#[from] rustls::server::VerifierBuilderError),
    #[error("the certificate and key do not make a pair: {0}")]
    Pair(#[source] rustls::Error),
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot start the server's thread: {0}")]
    Thread(#[source] std::io::Error),
    #[error("cannot listen on `{at}`: {source}")]
    Listen {
        at: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot read the listening address: {0}")]
    Address(#[source] std::io::Error),
}
