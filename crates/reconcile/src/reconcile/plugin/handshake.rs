//! The one line a go-plugin server prints on its standard output once it listens:
//! `CORE-VERSION|PROTOCOL-VERSION|NETWORK|ADDRESS|PROTOCOL|SERVER-CERT`, where the core version is
//! go-plugin's own (always 1), the protocol version is the Terraform plugin protocol the plugin chose
//! from those offered (5 or 6), the network is `unix` or `tcp`, the protocol must be `grpc`, and the
//! server certificate is the DER of the plugin's self-signed certificate in base64 (go-plugin writes
//! it without padding). A seventh field (broker multiplexing) appears only when asked for; it is
//! ignored.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};

/// The only go-plugin core protocol version there has ever been.
const CORE_VERSION: &str = "1";

/// The Terraform plugin protocol versions statectl speaks, offered in `PLUGIN_PROTOCOL_VERSIONS`.
pub const PROTOCOL_VERSIONS: [u32; 2] = [5, 6];

/// Where the plugin listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

impl fmt::Display for Address {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Unix(path) => write!(formatter, "unix:{}", path.display()),
            Address::Tcp(address) => write!(formatter, "tcp:{address}"),
        }
    }
}

/// What the handshake line says.
#[derive(Clone, PartialEq, Eq)]
pub struct Handshake {
    /// The Terraform plugin protocol the plugin speaks: 5 or 6.
    pub protocol_version: u32,
    pub address: Address,
    /// The DER of the plugin's TLS certificate, the only one statectl trusts for this plugin.
    pub server_certificate: Vec<u8>,
}

impl fmt::Debug for Handshake {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Handshake")
            .field("protocol_version", &self.protocol_version)
            .field("address", &self.address)
            .field(
                "server_certificate",
                &format_args!("{} bytes", self.server_certificate.len()),
            )
            .finish()
    }
}

/// Base64 with or without padding: go-plugin writes none, but a non-Go plugin may.
const LENIENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A go-plugin handshake line statectl cannot use, and why. Fields from the plugin are escaped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    #[error("expected `CORE|PROTOCOL|NETWORK|ADDRESS|grpc|CERTIFICATE`, got {0} field(s)")]
    Fields(usize),
    #[error("go-plugin core version `{0}` is not the supported `{CORE_VERSION}`")]
    CoreVersion(String),
    #[error("plugin protocol version `{0}` is not one statectl speaks (5 or 6)")]
    ProtocolVersion(String),
    #[error("`{0}` is not a TCP address")]
    TcpAddress(String),
    #[error("network `{0}` is not `unix` or `tcp`")]
    Network(String),
    #[error("the plugin speaks `{0}`, not `grpc` (a plugin built for Terraform before 0.12?)")]
    Protocol(String),
    #[error("the plugin sent no TLS certificate")]
    NoCertificate,
    #[error("the plugin's certificate is not base64: {0}")]
    Certificate(#[source] base64::DecodeError),
}

impl Handshake {
    /// Parses the handshake line, saying what is wrong with it when it is not one statectl can use.
    pub fn parse(line: &str) -> Result<Handshake, HandshakeError> {
        let line = line.trim();
        let fields: Vec<&str> = line.split('|').collect();
        if fields.len() < 6 {
            return Err(HandshakeError::Fields(fields.len()));
        }
        let escaped = |field: &str| field.escape_debug().to_string();
        if fields[0] != CORE_VERSION {
            return Err(HandshakeError::CoreVersion(escaped(fields[0])));
        }
        let protocol_version = fields[1]
            .parse::<u32>()
            .ok()
            .filter(|version| PROTOCOL_VERSIONS.contains(version))
            .ok_or_else(|| HandshakeError::ProtocolVersion(escaped(fields[1])))?;
        let address = match fields[2] {
            "unix" if !fields[3].is_empty() => Address::Unix(PathBuf::from(fields[3])),
            "tcp" => Address::Tcp(
                fields[3]
                    .parse()
                    .map_err(|_| HandshakeError::TcpAddress(escaped(fields[3])))?,
            ),
            network => return Err(HandshakeError::Network(escaped(network))),
        };
        if fields[4] != "grpc" {
            return Err(HandshakeError::Protocol(escaped(fields[4])));
        }
        // Without a certificate the plugin did not take up automatic mutual TLS, and statectl does not
        // talk to a plugin in the clear.
        if fields[5].is_empty() {
            return Err(HandshakeError::NoCertificate);
        }
        let server_certificate = LENIENT_BASE64
            .decode(fields[5])
            .map_err(HandshakeError::Certificate)?;
        Ok(Handshake {
            protocol_version,
            address,
            server_certificate,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERTIFICATE: &str = "MIIBkTCB+6ADAgECAgEBMA0GCSqGSIb3DQEBCwUAMA8xDTALBgNVBAMMBHRlc3Q";

    #[test]
    fn reads_a_unix_socket_handshake() {
        let handshake =
            Handshake::parse(&format!("1|5|unix|/tmp/plugin123|grpc|{CERTIFICATE}\n")).unwrap();
        assert_eq!(handshake.protocol_version, 5);
        assert_eq!(
            handshake.address,
            Address::Unix(PathBuf::from("/tmp/plugin123"))
        );
        assert_eq!(handshake.server_certificate[..2], [0x30, 0x82]);
    }

    #[test]
    fn reads_a_tcp_handshake_with_padding_and_a_seventh_field() {
        let handshake = Handshake::parse("1|6|tcp|127.0.0.1:10000|grpc|MIIBkQ==|true").unwrap();
        assert_eq!(handshake.protocol_version, 6);
        assert_eq!(
            handshake.address,
            Address::Tcp("127.0.0.1:10000".parse().unwrap())
        );
        assert_eq!(handshake.server_certificate, [0x30, 0x82, 0x01, 0x91]);
    }

    #[test]
    fn rejects_what_it_cannot_use() {
        let cases = [
            ("This binary is a plugin.", "got 1 field(s)"),
            ("2|5|unix|/tmp/p|grpc|AAAA", "core version `2`"),
            ("1|4|unix|/tmp/p|grpc|AAAA", "protocol version `4`"),
            ("1|x|unix|/tmp/p|grpc|AAAA", "protocol version `x`"),
            ("1|5|udp|/tmp/p|grpc|AAAA", "network `udp`"),
            (
                "1|5|tcp|nowhere|grpc|AAAA",
                "`nowhere` is not a TCP address",
            ),
            ("1|5|unix|/tmp/p|netrpc|AAAA", "speaks `netrpc`"),
            ("1|5|unix|/tmp/p|grpc|", "no TLS certificate"),
            ("1|5|unix|/tmp/p|grpc|!!!", "not base64"),
        ];
        for (line, expected) in cases {
            let error = Handshake::parse(line).unwrap_err().to_string();
            assert!(error.contains(expected), "{line}: {error}");
        }
    }

    #[test]
    fn debug_does_not_dump_the_certificate() {
        let handshake = Handshake::parse("1|5|unix|/tmp/p|grpc|MIIBkQ").unwrap();
        assert_eq!(
            format!("{handshake:?}"),
            "Handshake { protocol_version: 5, address: Unix(\"/tmp/p\"), server_certificate: 4 bytes }"
        );
    }
}
