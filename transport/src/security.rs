//! TLS material and peer authentication for the QUIC mesh.
//!
//! Two modes (see [`SecurityConfig`]):
//! - **certificates**: mutual TLS against a lab CA. Both ends present a certificate chained to the
//!   CA; the server name checked is always [`SERVER_NAME`], which `hlamesh certs issue` puts in
//!   every node certificate, so certificates do not depend on IP addresses.
//! - **development**: each node makes an ephemeral self-signed certificate at start. TLS then only
//!   gives an encrypted channel to *some* peer, so both ends prove knowledge of the shared secret
//!   with an HMAC over the TLS exporter value of this very connection (so the proof cannot be
//!   replayed on another connection) in the first control message. A dialer also pins the
//!   certificate fingerprint it saw in the peer's beacon.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use ring::hmac;
use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

use crate::beacon_auth::BeaconAuth;
use crate::config::SecurityConfig;
use crate::error::TransportError;
use crate::id::NodeId;

/// The TLS server name every hlamesh node certificate carries.
pub const SERVER_NAME: &str = "hlamesh";
/// ALPN protocol identifier.
pub const ALPN: &[u8] = b"hlamesh/1";
const EXPORTER_LABEL: &[u8] = b"EXPORTER-hlamesh-dev-proof";
/// The RTT QUIC assumes before its first sample: it sets the handshake's retransmission timer
/// (3 × this, doubled on each loss). Quinn's default, 333 ms (RFC 9002's for an unknown
/// Internet path), retransmits a lost first flight only after 1 s and again after 3 s in all,
/// when the dialler gives up (`HANDSHAKE_TIMEOUT` in `node.rs`) and waits out its redial back-off:
/// two lost packets kept a joiner from the coordinator for 5.5 s, and its federate joined after
/// the others had left (issue 20 finding 13, the loss test of `rti_discovery_multiprocess`).
/// The mesh spans one multicast domain, whose RTT is well under a millisecond: 30 ms fits five
/// retransmissions into the handshake timeout, and on a slower path it costs at most a few
/// duplicate handshake packets until the first sample replaces it.
const INITIAL_RTT: Duration = Duration::from_millis(30);

/// Which end of a connection produces a proof (so a proof cannot be reflected back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The node that dialled.
    Dialer,
    /// The node that accepted.
    Acceptor,
}

/// This node's TLS identity and what it trusts.
#[derive(Debug)]
pub struct Security {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    fingerprint: [u8; 32],
    trust: Trust,
    provider: Arc<CryptoProvider>,
}

#[derive(Debug)]
enum Trust {
    Ca(Arc<rustls::RootCertStore>),
    Development {
        /// Key of the connection proof (the secret itself).
        proof: Box<hmac::Key>,
        /// Key of the beacon MAC, derived from the secret ([`crate::beacon_auth`]).
        beacon: Box<hmac::Key>,
    },
}

/// SHA-256 of a DER certificate.
pub fn fingerprint(cert: &[u8]) -> [u8; 32] {
    let d = ring::digest::digest(&ring::digest::SHA256, cert);
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

fn tls(e: impl std::fmt::Display) -> TransportError {
    TransportError::Tls(e.to_string())
}

impl Security {
    /// Builds the identity for a security mode. Development mode on a non-loopback interface is
    /// refused unless explicitly allowed (then it warns).
    pub fn from_config(cfg: &SecurityConfig, interface: Ipv4Addr) -> Result<Self, TransportError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        match cfg {
            SecurityConfig::Certificates { ca, cert, key } => {
                let mut roots = rustls::RootCertStore::empty();
                let ca_certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(ca)
                    .map_err(|e| tls(format!("{}: {e}", ca.display())))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| tls(format!("{}: {e}", ca.display())))?;
                if ca_certs.is_empty() {
                    return Err(tls(format!("{}: no certificate found", ca.display())));
                }
                for c in ca_certs {
                    roots
                        .add(c)
                        .map_err(|e| tls(format!("{}: {e}", ca.display())))?;
                }
                let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
                    .map_err(|e| tls(format!("{}: {e}", cert.display())))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| tls(format!("{}: {e}", cert.display())))?;
                let Some(first) = chain.first() else {
                    return Err(tls(format!("{}: no certificate found", cert.display())));
                };
                let fingerprint = fingerprint(first);
                let key = PrivateKeyDer::from_pem_file(key)
                    .map_err(|e| tls(format!("{}: {e}", key.display())))?;
                Ok(Security {
                    chain,
                    key,
                    fingerprint,
                    trust: Trust::Ca(Arc::new(roots)),
                    provider,
                })
            }
            SecurityConfig::Development {
                secret,
                allow_non_loopback,
            } => {
                if !interface.is_loopback() {
                    if !allow_non_loopback {
                        return Err(TransportError::Config(format!(
                            "development security mode on non-loopback interface {interface} \
                             needs `allow_non_loopback = true` (or use certificates)"
                        )));
                    }
                    tracing::warn!(
                        %interface,
                        "development security mode on a non-loopback interface: peers are \
                         authenticated only by the shared secret"
                    );
                }
                let ck = rcgen::generate_simple_self_signed(vec![SERVER_NAME.to_string()])
                    .map_err(tls)?;
                let der = ck.cert.der().clone();
                let fingerprint = fingerprint(&der);
                let key = PrivateKeyDer::Pkcs8(ck.signing_key.serialize_der().into());
                Ok(Security {
                    chain: vec![der],
                    key,
                    fingerprint,
                    trust: Trust::Development {
                        proof: Box::new(hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes())),
                        beacon: Box::new(crate::beacon_auth::beacon_mac_key(secret.as_bytes())),
                    },
                    provider,
                })
            }
        }
    }

    /// SHA-256 of this node's certificate, announced in beacons.
    pub fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    /// True in development mode (a secret proof is required on every connection).
    pub fn needs_proof(&self) -> bool {
        matches!(self.trust, Trust::Development { .. })
    }

    /// How this node authenticates its discovery beacons and checks others' (see
    /// [`crate::beacon_auth`]): a MAC under a key derived from the development secret, or a
    /// signature with this node's key checked against the lab CA like a TLS client certificate.
    pub fn beacon_auth(&self) -> Result<BeaconAuth, TransportError> {
        match &self.trust {
            Trust::Development { beacon, .. } => {
                Ok(BeaconAuth::from_mac_key(beacon.as_ref().clone()))
            }
            Trust::Ca(roots) => {
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    roots.clone(),
                    self.provider.clone(),
                )
                .build()
                .map_err(tls)?;
                BeaconAuth::certificate(self.chain.clone(), &self.key, verifier, &self.provider)
            }
        }
    }

    fn transport_config(keep_alive: Duration, idle: Duration) -> Arc<quinn::TransportConfig> {
        let mut t = quinn::TransportConfig::default();
        t.initial_rtt(INITIAL_RTT);
        t.keep_alive_interval(Some(keep_alive));
        if let Ok(idle) = quinn::IdleTimeout::try_from(idle) {
            t.max_idle_timeout(Some(idle));
        }
        Arc::new(t)
    }

    /// The QUIC server configuration.
    pub fn server_config(
        &self,
        keep_alive: Duration,
        idle: Duration,
    ) -> Result<quinn::ServerConfig, TransportError> {
        let builder = rustls::ServerConfig::builder_with_provider(self.provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(tls)?;
        let builder = match &self.trust {
            Trust::Ca(roots) => {
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    roots.clone(),
                    self.provider.clone(),
                )
                .build()
                .map_err(tls)?;
                builder.with_client_cert_verifier(verifier)
            }
            Trust::Development { .. } => builder.with_no_client_auth(),
        };
        let mut cfg = builder
            .with_single_cert(self.chain.clone(), self.key.clone_key())
            .map_err(tls)?;
        cfg.alpn_protocols = vec![ALPN.to_vec()];
        let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(cfg).map_err(tls)?;
        let mut server = quinn::ServerConfig::with_crypto(Arc::new(crypto));
        server.transport_config(Self::transport_config(keep_alive, idle));
        Ok(server)
    }

    /// The QUIC client configuration for dialling a peer whose beacon announced
    /// `expected_fingerprint` (pinned in development mode).
    pub fn client_config(
        &self,
        expected_fingerprint: [u8; 32],
        keep_alive: Duration,
        idle: Duration,
    ) -> Result<quinn::ClientConfig, TransportError> {
        let builder = rustls::ClientConfig::builder_with_provider(self.provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(tls)?;
        let mut cfg = match &self.trust {
            Trust::Ca(roots) => builder
                .with_root_certificates(roots.clone())
                .with_client_auth_cert(self.chain.clone(), self.key.clone_key())
                .map_err(tls)?,
            Trust::Development { .. } => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(PinnedVerifier {
                    fingerprint: expected_fingerprint,
                    provider: self.provider.clone(),
                }))
                .with_no_client_auth(),
        };
        cfg.alpn_protocols = vec![ALPN.to_vec()];
        let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(cfg).map_err(tls)?;
        let mut client = quinn::ClientConfig::new(Arc::new(crypto));
        client.transport_config(Self::transport_config(keep_alive, idle));
        Ok(client)
    }

    /// The development-mode proof this end sends on `conn`; `None` in certificate mode.
    pub fn proof(&self, conn: &quinn::Connection, role: Role, node: NodeId) -> Option<[u8; 32]> {
        let Trust::Development { proof: key, .. } = &self.trust else {
            return None;
        };
        let msg = proof_message(conn, role, node)?;
        let tag = hmac::sign(key, &msg);
        let mut out = [0u8; 32];
        out.copy_from_slice(tag.as_ref());
        Some(out)
    }

    /// Checks the proof the peer (playing `role`, claiming to be `node`) sent on `conn`.
    /// Always true in certificate mode, where TLS already authenticated the peer.
    pub fn verify_proof(
        &self,
        conn: &quinn::Connection,
        role: Role,
        node: NodeId,
        proof: Option<&[u8; 32]>,
    ) -> bool {
        let Trust::Development { proof: key, .. } = &self.trust else {
            return true;
        };
        let (Some(proof), Some(msg)) = (proof, proof_message(conn, role, node)) else {
            return false;
        };
        hmac::verify(key, &msg, proof).is_ok()
    }
}

fn proof_message(conn: &quinn::Connection, role: Role, node: NodeId) -> Option<Vec<u8>> {
    let mut exporter = [0u8; 32];
    conn.export_keying_material(&mut exporter, EXPORTER_LABEL, &[])
        .ok()?;
    let mut msg = exporter.to_vec();
    msg.push(match role {
        Role::Dialer => b'D',
        Role::Acceptor => b'A',
    });
    msg.extend_from_slice(&node.0.to_be_bytes());
    Some(msg)
}

/// Development-mode server verifier: accepts exactly the certificate whose fingerprint the peer
/// announced, and checks the handshake signatures with it.
#[derive(Debug)]
struct PinnedVerifier {
    fingerprint: [u8; 32],
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for PinnedVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if fingerprint(end_entity) == self.fingerprint {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "certificate does not match the fingerprint announced in the beacon".into(),
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(
            "TLS 1.2 is not used by hlamesh".into(),
        ))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn development_mode_off_loopback_needs_explicit_permission() {
        let dev = |allow| SecurityConfig::Development {
            secret: "s".into(),
            allow_non_loopback: allow,
        };
        let lan = Ipv4Addr::new(192, 168, 1, 20);
        let err = Security::from_config(&dev(false), lan).expect_err("refused");
        assert!(err.to_string().contains("allow_non_loopback"), "{err}");
        assert!(Security::from_config(&dev(true), lan).is_ok());
        assert!(Security::from_config(&dev(false), Ipv4Addr::LOCALHOST).is_ok());
    }

    #[test]
    fn missing_certificate_files_are_a_clear_error() {
        let cfg = SecurityConfig::Certificates {
            ca: "/nonexistent/ca.pem".into(),
            cert: "/nonexistent/node.pem".into(),
            key: "/nonexistent/node.key".into(),
        };
        let err = Security::from_config(&cfg, Ipv4Addr::LOCALHOST).expect_err("no files");
        assert!(err.to_string().contains("/nonexistent/ca.pem"), "{err}");
    }
}
