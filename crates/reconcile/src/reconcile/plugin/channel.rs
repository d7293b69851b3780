//! The gRPC channel to a plugin: a Unix socket or loopback TCP connection from the handshake, wrapped
//! in the plugin's mutual TLS, carrying HTTP/2. One connection serves every call to that plugin; tonic
//! multiplexes concurrent calls over it, so clones of the channel share it.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::TlsConnector;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::reconcile::plugin::handshake::Address;
use crate::reconcile::plugin::tls::SERVER_NAME;

/// How long connecting (socket and TLS handshake) may take: the plugin already listens when it
/// prints its handshake, so this only guards against a wedged plugin.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A byte stream of either kind, so one connector serves both networks.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A plugin that cannot be reached over mutual TLS, with the transport's causes.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("connecting to the plugin at {0} timed out")]
    TimedOut(Address),
    /// The transport's causes are spelled out: tonic's own message says little.
    #[error("cannot connect to the plugin at {address}: {}", chain(source))]
    Failed {
        address: Address,
        source: tonic::transport::Error,
    },
}

/// Connects to the plugin at `address` over mutual TLS.
pub async fn connect(address: &Address, tls: Arc<ClientConfig>) -> Result<Channel, ConnectError> {
    let connector = TlsConnector::from(tls);
    let target = address.clone();
    // The URI only names the authority HTTP/2 sends; the connector decides where bytes go.
    let endpoint = Endpoint::from_static("http://localhost")
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true);
    let connect = move |_: Uri| {
        let connector = connector.clone();
        let target = target.clone();
        async move {
            let stream: Box<dyn Io> = match &target {
                Address::Unix(path) => Box::new(UnixStream::connect(path).await?),
                Address::Tcp(address) => {
                    let stream = TcpStream::connect(address).await?;
                    stream.set_nodelay(true)?;
                    Box::new(stream)
                }
            };
            let name = ServerName::try_from(SERVER_NAME).map_err(std::io::Error::other)?;
            let stream = connector.connect(name, stream).await?;
            Ok::<_, std::io::Error>(TokioIo::new(stream))
        }
    };
    tokio::time::timeout(
        CONNECT_TIMEOUT,
        endpoint.connect_with_connector(tower::service_fn(connect)),
    )
    .await
    .map_err(|_| ConnectError::TimedOut(address.clone()))?
    .map_err(|source| ConnectError::Failed {
        address: address.clone(),
        source,
    })
}

/// An error with its causes, `: `-separated (tonic's transport errors say little on their own).
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
