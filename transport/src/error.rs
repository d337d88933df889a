//! Typed errors of the transport.

use crate::data::{ConfigError, SendError};
use crate::id::{FederationTag, NodeId};

/// Everything that can go wrong in the transport, as seen by the layer above.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// A configuration value is invalid.
    #[error("invalid transport configuration: {0}")]
    Config(String),
    /// A configuration file does not parse (unknown key, wrong type, bad TOML).
    #[error("invalid transport configuration: {0}")]
    ConfigFile(#[from] toml::de::Error),
    /// The data plane's settings cannot work (see [`crate::data::DataConfig::validate`]).
    #[error("invalid transport configuration: {0}")]
    DataConfig(#[from] ConfigError),
    /// The data plane refused a message (see [`crate::data::SendError`]).
    #[error("cannot send: {0}")]
    Send(#[from] SendError),
    /// A socket could not be created, bound or configured.
    #[error("socket error ({what}): {source}")]
    Socket {
        /// What was being done.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// TLS material could not be loaded or is unusable (rustls, rcgen, PEM and webpki errors,
    /// kept as their text: they come from four crates' error types).
    #[error("TLS configuration error: {0}")]
    Tls(String),
    /// The peer is not (or no longer) connected.
    #[error("peer {0} is not connected")]
    PeerNotConnected(NodeId),
    /// The federation channel is not open on this node.
    #[error("federation {0:?} is not open on this node")]
    FederationNotOpen(FederationTag),
    /// No member could give us the federation's key.
    #[error("could not obtain the key of federation {0:?} from any member")]
    FederationKeyUnavailable(FederationTag),
    /// A message exceeds the configured maximum size.
    #[error("message of {size} bytes exceeds the maximum of {max}")]
    MessageTooLarge {
        /// Size of the message.
        size: usize,
        /// The configured maximum.
        max: usize,
    },
    /// The transport has shut down.
    #[error("transport is shut down")]
    Shutdown,
    /// This node already claims as many federation names as a beacon can carry.
    #[error("this node already claims {0} federation names for creation")]
    TooManyClaims(usize),
}

impl TransportError {
    /// Wraps an OS error from socket work, saying what was being done.
    pub fn socket(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TransportError {
        let what = what.into();
        move |source| TransportError::Socket { what, source }
    }
}
