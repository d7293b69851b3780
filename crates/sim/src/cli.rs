//! The simulator's command line (`statectl-sim [MODE] ...`), which the library's [`crate::Server`]
//! takes as well, so that a test and a demo start a simulator with the same words: each mode's
//! arguments become a [`Plan`], a listener address and the server to run on it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use clap::Parser;
use tokio::net::TcpListener;

use crate::scenario::Scenario;
use crate::server::Sim;
use crate::setup::SetupError;
use crate::{object_storage, oci_signature, server, state_backend, tfe, wire_faults};

/// What to serve: where to listen, the scheme to announce, the runtime's worker threads (or one
/// per CPU), and the server, ready to run on the listener.
pub(crate) struct Plan {
    pub(crate) at: SocketAddr,
    pub(crate) scheme: &'static str,
    pub(crate) workers: Option<usize>,
    pub(crate) serve: Serve,
}

/// A server, given its listener: the future it runs until stopped.
pub(crate) type Serve = Box<dyn FnOnce(TcpListener) -> Pin<Box<dyn Future<Output = ()>>> + Send>;

impl Plan {
    fn new<F, Fut>(at: SocketAddr, scheme: &'static str, workers: Option<usize>, serve: F) -> Plan
    where
        F: FnOnce(TcpListener) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        Plan {
            at,
            scheme,
            workers,
            serve: Box::new(move |listener| Box::pin(serve(listener))),
        }
    }
}

/// The plan for these arguments (the mode's setup done: scenario read, keys and certificates
/// loaded), or the one line that says what is wrong with them.
pub(crate) fn plan(args: &Args) -> Result<Plan, SetupError> {
    match &args.mode {
        Some(Mode::HttpBackend(backend)) => serve_http_backend(backend),
        Some(Mode::Tfe(tfe)) => serve_tfe(tfe),
        Some(Mode::ObjectStorage(storage)) => serve_object_storage(storage),
        None => serve_scenario(args),
    }
}

/// Simulate the provider APIs that `statectl refresh` polls: OCI, Cloud Foundry v3 and an Open
/// Service Broker, with scripted lifecycles and injected faults.
#[derive(Debug, Parser)]
#[command(
    name = "statectl-sim",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub(crate) struct Args {
    #[command(subcommand)]
    mode: Option<Mode>,
    /// The scenario: objects, lifecycles, credentials and faults (TOML; see SCENARIO.md).
    #[arg(long, value_name = "FILE", required = true)]
    scenario: Option<PathBuf>,
    /// The address to listen on; port 0 takes a free port.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Log each request (method, target, status) to stderr.
    #[arg(short, long)]
    verbose: bool,
}

fn serve_scenario(args: &Args) -> Result<Plan, SetupError> {
    let path = args.scenario.as_deref().ok_or(SetupError::NoScenario)?;
    let scenario = Scenario::load(path)?;
    let sim = Sim::new(&scenario, args.verbose).map_err(|source| SetupError::Sim {
        path: path.to_owned(),
        source,
    })?;
    Ok(Plan::new(args.listen, "http", None, move |listener| {
        server::serve(listener, Arc::new(sim))
    }))
}

/// The other servers.
#[derive(Debug, clap::Subcommand)]
enum Mode {
    /// Serve Terraform states over the http backend's protocol, as GitLab's managed state does.
    HttpBackend(HttpBackendArgs),
    /// Serve HCP Terraform's state API (discovery, workspaces, locks, state versions) over HTTPS.
    Tfe(TfeArgs),
    /// Serve OCI Object Storage's object API, signed requests only, for the oci backend.
    ObjectStorage(ObjectStorageArgs),
}

#[derive(Debug, clap::Args)]
struct TfeArgs {
    /// The address to listen on; port 0 takes a free port.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Writes a CA (`ca.pem`) and the server's certificate for `localhost` here.
    #[arg(long, value_name = "DIR")]
    tls_dir: PathBuf,
    /// The API token every API request must carry.
    #[arg(long)]
    token: String,
    /// The user the token belongs to (who holds the locks it takes).
    #[arg(long, default_value = "sim-user")]
    user: String,
    #[arg(long, default_value = "acme")]
    organization: String,
    /// A workspace, `NAME`, `NAME:TAG,TAG` or `NAME:TAG,TAG:PROJECT`. Repeatable.
    #[arg(long, value_name = "SPEC")]
    workspace: Vec<String>,
    /// `WORKSPACE=FILE`: its first state version. Repeatable.
    #[arg(long, value_name = "SPEC")]
    state: Vec<String>,
    /// Answer as Terraform Enterprise v202306-1 and before: state versions take `state` inline.
    #[arg(long)]
    no_upload: bool,
    /// `METHOD:PATH-FRAGMENT=STATUS|hang[*COUNT]`. Repeatable.
    #[arg(long, value_name = "SPEC")]
    fault: Vec<String>,
    /// A hostile workspaces list: every page repeats the first and offers another, up to
    /// page N (0: for ever).
    #[arg(long, value_name = "N")]
    tag_pages_repeat: Option<usize>,
    /// An injected fault's error echoes the whole request (its headers, credentials included,
    /// and body), as a careless or hostile server might: for the tests that no secret is shown.
    #[arg(long)]
    echo_faults: bool,
    /// Log each request (method, target, status) to stderr.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Debug, clap::Args)]
struct ObjectStorageArgs {
    /// The address to listen on; port 0 takes a free port.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// The tenancy's Object Storage namespace.
    #[arg(long, default_value = "statectl")]
    namespace: String,
    /// A bucket that exists (repeatable); any other is `BucketNotFound`.
    #[arg(long = "bucket", value_name = "NAME")]
    buckets: Vec<String>,
    /// The API key's `keyId` (`<tenancy>/<user>/<fingerprint>`) and its public key (PEM).
    #[arg(long, value_name = "KEY_ID")]
    key_id: String,
    #[arg(long, value_name = "FILE")]
    public_key: PathBuf,
    /// The most objects a ListObjects page holds (the client's `limit` may ask for fewer).
    #[arg(long, default_value_t = 1000)]
    page_size: usize,
    /// `METHOD[:PATH-SUFFIX]=STATUS|reset|silent|slow:MS`, with an optional `*COUNT`. Repeatable.
    #[arg(long, value_name = "SPEC")]
    fault: Vec<String>,
    /// Log each request (method, target, status) to stderr.
    #[arg(short, long)]
    verbose: bool,
}

fn serve_tfe(args: &TfeArgs) -> Result<Plan, SetupError> {
    let faults = wire_faults::parse_all(&args.fault, tfe::Fault::parse)?;
    let tls = tfe::self_signed(&args.tls_dir)?;
    let server = tfe::Tfe::new(tfe::Options {
        token: args.token.clone(),
        user: args.user.clone(),
        organization: args.organization.clone(),
        workspaces: args.workspace.clone(),
        states: tfe::read_states(&args.state)?,
        upload_flow: !args.no_upload,
        faults,
        tag_pages_repeat: args.tag_pages_repeat,
        echo_faults: args.echo_faults,
        verbose: args.verbose,
    })?;
    Ok(Plan::new(args.listen, "https", Some(2), move |listener| {
        tfe::serve(listener, Arc::new(server), tls)
    }))
}

fn serve_object_storage(args: &ObjectStorageArgs) -> Result<Plan, SetupError> {
    let faults = wire_faults::parse_all(&args.fault, object_storage::Fault::parse)?;
    let path = &args.public_key;
    let pem = std::fs::read_to_string(path).map_err(|source| SetupError::Read {
        path: path.clone(),
        source,
    })?;
    let key = oci_signature::OciKey::from_pem(args.key_id.clone(), &pem).map_err(|source| {
        SetupError::Key {
            path: path.clone(),
            source,
        }
    })?;
    let store = object_storage::Store::new(object_storage::Options {
        namespace: args.namespace.clone(),
        buckets: args.buckets.clone(),
        key,
        faults,
        page_size: args.page_size,
        verbose: args.verbose,
    });
    Ok(Plan::new(args.listen, "http", Some(2), move |listener| {
        object_storage::serve(listener, Arc::new(store))
    }))
}

#[derive(Debug, clap::Args)]
struct HttpBackendArgs {
    /// The address to listen on; port 0 takes a free port.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Require basic auth with this username (and `--password`).
    #[arg(long, requires = "password")]
    username: Option<String>,
    #[arg(long, requires = "username")]
    password: Option<String>,
    /// A state to serve at `/state` from the start.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// `METHOD=STATUS` or `METHOD=reset`, with an optional `*COUNT`: answer that status, or drop
    /// the connection, for requests with that method. Repeatable.
    #[arg(long, value_name = "SPEC")]
    fault: Vec<String>,
    /// The status of a LOCK refused because another holds the lock (409 as GitLab, or 423).
    #[arg(long, value_name = "STATUS", default_value_t = 409, value_parser = clap::value_parser!(u16).range(409..=423))]
    conflict_status: u16,
    /// Serve HTTPS with this certificate (PEM, the chain) and `--tls-key`.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Require a client certificate signed by this CA (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    client_ca: Option<PathBuf>,
    /// Log each request (method, target, status) to stderr.
    #[arg(short, long)]
    verbose: bool,
}

fn serve_http_backend(args: &HttpBackendArgs) -> Result<Plan, SetupError> {
    let faults = wire_faults::parse_all(&args.fault, state_backend::Fault::parse)?;
    let initial = args
        .state
        .as_deref()
        .map(|path| {
            std::fs::read(path).map_err(|source| SetupError::Read {
                path: path.to_owned(),
                source,
            })
        })
        .transpose()?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(certificate), Some(key)) => Some(state_backend::tls_acceptor(
            certificate,
            key,
            args.client_ca.as_deref(),
        )?),
        _ => None,
    };
    let backend = state_backend::Backend::new(state_backend::Options {
        credentials: args.username.clone().zip(args.password.clone()),
        faults,
        initial,
        conflict_status: args.conflict_status,
        verbose: args.verbose,
    });
    let scheme = if tls.is_some() { "https" } else { "http" };
    Ok(Plan::new(args.listen, scheme, Some(2), move |listener| {
        state_backend::serve(listener, Arc::new(backend), tls)
    }))
}
