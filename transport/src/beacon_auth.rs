//! Authentication of discovery beacons, in both security modes.
//!
//! A beacon makes its receivers act: they dial the QUIC address it names, and the LRC's create
//! race and join read the federations and claims it lists. So a beacon is acted on only once it
//! is proven to come from a node of the same deployment:
//!
//! - **development mode**: an HMAC-SHA256 tag over the whole beacon, under a key derived (HKDF-SHA256)
//!   from the development secret for this purpose only — it is not the key of the connection
//!   proof ([`crate::security`]), so one cannot be turned into the other;
//! - **certificate mode**: the beacon carries the node's certificate chain and a signature over
//!   the beacon by the node's private key. The chain is checked against the lab CA with the same
//!   policy as the QUIC handshake; chains already checked are cached by fingerprint (bounded), and
//!   checks of chains not seen before are rate-limited, so a flood costs at most one hash per
//!   beacon plus a bounded number of chain checks and signature checks per second.
//!
//! What neither mode stops is a replay of a member's genuine beacon: the beacon carries a
//! per-node sequence number, and [`crate::discovery::PeerTable`] drops one that is not newer
//! than the last it accepted from that node.
//!
//! Sans-I/O: the caller passes the time; nothing here reads a clock except the wall clock that
//! certificate validity is judged by.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ring::{hkdf, hmac};
use rustls::SignatureScheme;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::ClientCertVerifier;
use rustls::sign::Signer;

use crate::error::TransportError;

/// Length of a development-mode tag.
pub const MAC_LEN: usize = 32;
/// Domain separation of the beacon key derived from the development secret.
const HKDF_SALT: &[u8] = b"hlamesh discovery beacon key";
const HKDF_INFO: &[u8] = b"hlamesh/beacon-mac/v1";
/// Which authentication a beacon carries (the byte after its header).
const SCHEME_MAC: u8 = 1;
const SCHEME_CERT: u8 = 2;
/// Most certificates in a beacon's chain.
const MAX_CHAIN: usize = 4;
/// Certificate chains whose check is remembered (positive and negative); at the bound the
/// oldest half is forgotten.
const CHAIN_CACHE: usize = 256;
/// A verified chain is checked again after this long (it may have expired meanwhile).
const CHAIN_RECHECK: Duration = Duration::from_secs(60);
/// Chain checks of certificates not in the cache: at most this many per second (burst the same).
const CHAIN_CHECKS_PER_SEC: u32 = 50;
/// Signature checks: at most this many per second (burst the same). A lab's members send a few
/// beacons per second each; a flood of forged signatures beyond this is dropped unchecked.
const SIGNATURE_CHECKS_PER_SEC: u32 = 2_000;

/// Why a beacon failed authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum AuthFailure {
    /// The authentication part is missing or does not parse.
    #[error("missing or malformed authentication")]
    Malformed,
    /// Authenticated for the other security mode (a development-mode beacon in certificate mode
    /// or the reverse).
    #[error("authenticated for the other security mode")]
    WrongMode,
    /// Development mode: the tag does not match (another secret, or a forgery).
    #[error("MAC does not match: another development secret, or forged")]
    BadMac,
    /// Certificate mode: the chain does not lead to the lab CA (or has expired).
    #[error("certificate not issued by the lab CA")]
    BadCertificate,
    /// Certificate mode: the signature does not verify under the beacon's certificate.
    #[error("signature does not verify")]
    BadSignature,
    /// Certificate mode: more unknown chains or signatures than the rate limit allows.
    #[error("verification rate limit reached")]
    RateLimited,
}

impl AuthFailure {
    /// Whether a node configured differently (another secret or CA) would fail this way, as
    /// opposed to a rate limit of ours.
    pub fn is_refusal(self) -> bool {
        !matches!(self, AuthFailure::RateLimited)
    }
}

/// A simple token bucket on the caller's clock.
#[derive(Debug)]
struct Bucket {
    per_sec: u32,
    tokens: f64,
    last: Option<Instant>,
}

impl Bucket {
    fn new(per_sec: u32) -> Bucket {
        Bucket {
            per_sec,
            tokens: f64::from(per_sec),
            last: None,
        }
    }

    fn take(&mut self, now: Instant) -> bool {
        let cap = f64::from(self.per_sec);
        if let Some(last) = self.last {
            let dt = now.saturating_duration_since(last).as_secs_f64();
            self.tokens = (self.tokens + dt * cap).min(cap);
        }
        self.last = Some(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// How this node seals its beacons and checks others'.
pub struct BeaconAuth {
    kind: Kind,
}

impl std::fmt::Debug for BeaconAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.kind {
            Kind::Mac(_) => "BeaconAuth(development)",
            Kind::Certificate(_) => "BeaconAuth(certificate)",
        })
    }
}

enum Kind {
    Mac(hmac::Key),
    Certificate(Box<CertAuth>),
}

struct CertAuth {
    /// This node's chain, end entity first (DER).
    chain: Vec<CertificateDer<'static>>,
    signer: Box<dyn Signer>,
    verifier: Arc<dyn ClientCertVerifier>,
    algorithms: WebPkiSupportedAlgorithms,
    /// Fingerprint of an end-entity certificate → (checked at, chain valid).
    checked: HashMap<[u8; 32], (Instant, bool)>,
    chain_checks: Bucket,
    signature_checks: Bucket,
}

/// Derives the beacon MAC key from the development secret.
pub(crate) fn beacon_mac_key(secret: &[u8]) -> hmac::Key {
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, HKDF_SALT).extract(secret);
    match prk.expand(&[HKDF_INFO], hmac::HMAC_SHA256) {
        Ok(okm) => hmac::Key::from(okm),
        // Expanding to one hash length cannot fail; a fixed fallback would still be secret-bound.
        Err(_) => hmac::Key::new(hmac::HMAC_SHA256, secret),
    }
}

impl BeaconAuth {
    /// Development mode: beacons carry an HMAC under a key derived from `secret`.
    pub fn development(secret: &[u8]) -> BeaconAuth {
        Self::from_mac_key(beacon_mac_key(secret))
    }

    pub(crate) fn from_mac_key(key: hmac::Key) -> BeaconAuth {
        BeaconAuth {
            kind: Kind::Mac(key),
        }
    }

    /// Certificate mode: beacons carry `chain` and a signature by `key`; others' chains are
    /// checked by `verifier` (the lab CA's client-certificate verifier).
    pub fn certificate(
        chain: Vec<CertificateDer<'static>>,
        key: &PrivateKeyDer<'static>,
        verifier: Arc<dyn ClientCertVerifier>,
        provider: &rustls::crypto::CryptoProvider,
    ) -> Result<BeaconAuth, TransportError> {
        let signing = provider
            .key_provider
            .load_private_key(key.clone_key())
            .map_err(|e| TransportError::Tls(format!("beacon signing key: {e}")))?;
        let signer = signing
            .choose_scheme(&[
                SignatureScheme::ECDSA_NISTP256_SHA256,
                SignatureScheme::ECDSA_NISTP384_SHA384,
                SignatureScheme::ED25519,
                SignatureScheme::RSA_PSS_SHA256,
            ])
            .ok_or_else(|| {
                TransportError::Tls("beacon signing key: no supported signature scheme".into())
            })?;
        Ok(BeaconAuth {
            kind: Kind::Certificate(Box::new(CertAuth {
                chain,
                signer,
                verifier,
                algorithms: provider.signature_verification_algorithms,
                checked: HashMap::new(),
                chain_checks: Bucket::new(CHAIN_CHECKS_PER_SEC),
                signature_checks: Bucket::new(SIGNATURE_CHECKS_PER_SEC),
            })),
        })
    }

    /// Appends the authentication of `signed` (header and body) to it.
    pub fn seal(&self, mut signed: Vec<u8>) -> Vec<u8> {
        match &self.kind {
            Kind::Mac(key) => {
                signed.push(SCHEME_MAC);
                let tag = hmac::sign(key, &signed);
                signed.extend_from_slice(tag.as_ref());
            }
            Kind::Certificate(c) => {
                signed.push(SCHEME_CERT);
                // A signing failure (a hardware key gone, say) leaves the beacon unsigned: its
                // receivers drop it and count it, which is what an unsigned beacon deserves.
                let sig = c.signer.sign(&signed).unwrap_or_default();
                put_u16(&mut signed, u16::from(c.signer.scheme()));
                put_bytes(&mut signed, &sig);
                let n = c.chain.len().min(MAX_CHAIN);
                signed.push(n as u8);
                for cert in &c.chain[..n] {
                    put_bytes(&mut signed, cert.as_ref());
                }
            }
        }
        signed
    }

    /// Checks the authentication that follows `signed_len` bytes of `datagram`. On success,
    /// returns the fingerprint of the certificate that signed it (certificate mode), to be
    /// compared with the one the beacon announces.
    pub fn open(
        &mut self,
        now: Instant,
        datagram: &[u8],
        signed_len: usize,
    ) -> Result<Option<[u8; 32]>, AuthFailure> {
        let Some((&scheme, rest)) = datagram
            .get(signed_len..)
            .and_then(|tail| tail.split_first())
        else {
            return Err(AuthFailure::Malformed);
        };
        // The scheme byte is covered by the tag or signature too.
        let signed = &datagram[..signed_len + 1];
        match (&mut self.kind, scheme) {
            (Kind::Mac(key), SCHEME_MAC) => {
                if rest.len() != MAC_LEN {
                    return Err(AuthFailure::Malformed);
                }
                hmac::verify(key, signed, rest).map_err(|_| AuthFailure::BadMac)?;
                Ok(None)
            }
            (Kind::Certificate(c), SCHEME_CERT) => c.open(now, signed, rest).map(Some),
            (_, SCHEME_MAC | SCHEME_CERT) => Err(AuthFailure::WrongMode),
            _ => Err(AuthFailure::Malformed),
        }
    }
}

impl CertAuth {
    fn open(&mut self, now: Instant, signed: &[u8], auth: &[u8]) -> Result<[u8; 32], AuthFailure> {
        let mut r = Reader(auth);
        let scheme = SignatureScheme::from(r.u16()?);
        let sig = r.bytes()?;
        let n = usize::from(r.u8()?);
        if n == 0 || n > MAX_CHAIN {
            return Err(AuthFailure::Malformed);
        }
        let mut chain = Vec::with_capacity(n);
        for _ in 0..n {
            chain.push(CertificateDer::from(r.bytes()?));
        }
        if !r.0.is_empty() {
            return Err(AuthFailure::Malformed);
        }
        let fingerprint = crate::security::fingerprint(&chain[0]);
        self.check_chain(now, fingerprint, &chain)?;
        if !self.signature_checks.take(now) {
            return Err(AuthFailure::RateLimited);
        }
        let ee =
            webpki::EndEntityCert::try_from(&chain[0]).map_err(|_| AuthFailure::BadCertificate)?;
        let algs = self
            .algorithms
            .mapping
            .iter()
            .find(|(s, _)| *s == scheme)
            .map(|(_, a)| *a)
            .ok_or(AuthFailure::BadSignature)?;
        if algs
            .iter()
            .any(|alg| ee.verify_signature(*alg, signed, sig).is_ok())
        {
            Ok(fingerprint)
        } else {
            Err(AuthFailure::BadSignature)
        }
    }

    fn check_chain(
        &mut self,
        now: Instant,
        fingerprint: [u8; 32],
        chain: &[CertificateDer<'_>],
    ) -> Result<(), AuthFailure> {
        if let Some(&(at, ok)) = self.checked.get(&fingerprint)
            && now.saturating_duration_since(at) < CHAIN_RECHECK
        {
            return if ok {
                Ok(())
            } else {
                Err(AuthFailure::BadCertificate)
            };
        }
        if !self.chain_checks.take(now) {
            return Err(AuthFailure::RateLimited);
        }
        let ok = self
            .verifier
            .verify_client_cert(&chain[0], &chain[1..], UnixTime::now())
            .is_ok();
        if self.checked.len() >= CHAIN_CACHE {
            // Forget the older half: the cache stays bounded and recent members stay in it.
            let mut ages: Vec<Instant> = self.checked.values().map(|(t, _)| *t).collect();
            ages.sort_unstable();
            let cut = ages[ages.len() / 2];
            self.checked.retain(|_, (t, _)| *t > cut);
        }
        self.checked.insert(fingerprint, (now, ok));
        if ok {
            Ok(())
        } else {
            Err(AuthFailure::BadCertificate)
        }
    }
}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    // Certificates and signatures are far below 64 KiB; a longer one is cut and then fails
    // verification at the receiver rather than corrupting the framing.
    let n = b.len().min(usize::from(u16::MAX));
    put_u16(out, n as u16);
    out.extend_from_slice(&b[..n]);
}

/// Reads the certificate-mode authentication; every length is checked against what is left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], AuthFailure> {
        if self.0.len() < n {
            return Err(AuthFailure::Malformed);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, AuthFailure> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, AuthFailure> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn bytes(&mut self) -> Result<&'a [u8], AuthFailure> {
        let n = usize::from(self.u16()?);
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn development_tag_verifies_only_under_the_same_secret() {
        let now = Instant::now();
        let a = BeaconAuth::development(b"secret");
        let mut b = BeaconAuth::development(b"secret");
        let mut other = BeaconAuth::development(b"other");
        let sealed = a.seal(b"header and body".to_vec());
        assert_eq!(b.open(now, &sealed, 15), Ok(None));
        assert_eq!(other.open(now, &sealed, 15), Err(AuthFailure::BadMac));
        // The key is not the secret itself (the connection proof's key).
        let raw = hmac::Key::new(hmac::HMAC_SHA256, b"secret");
        let mut forged = b"header and body".to_vec();
        forged.push(SCHEME_MAC);
        let tag = hmac::sign(&raw, &forged);
        forged.extend_from_slice(tag.as_ref());
        assert_eq!(b.open(now, &forged, 15), Err(AuthFailure::BadMac));
    }

    #[test]
    fn development_tag_rejects_every_single_bit_flip_and_truncation() {
        let now = Instant::now();
        let a = BeaconAuth::development(b"s");
        let mut b = BeaconAuth::development(b"s");
        let sealed = a.seal(vec![7u8; 40]);
        for i in 0..sealed.len() {
            let mut t = sealed.clone();
            t[i] ^= 1;
            assert!(b.open(now, &t, 40).is_err(), "flip at {i} accepted");
        }
        for n in 0..sealed.len() {
            assert!(
                b.open(now, &sealed[..n], 40).is_err(),
                "cut at {n} accepted"
            );
        }
        assert!(b.open(now, &sealed, 40).is_ok());
    }

    mod certificate_mode {
        use super::*;
        use crate::certs::{PemPair, create_ca, issue};
        use crate::discovery::{Beacon, BeaconError};
        use crate::id::NodeId;
        use rustls::pki_types::pem::PemObject;

        fn auth(ca: &PemPair, node: &PemPair) -> (BeaconAuth, [u8; 32]) {
            let provider = rustls::crypto::ring::default_provider();
            let mut roots = rustls::RootCertStore::empty();
            roots
                .add(CertificateDer::from_pem_slice(ca.cert.as_bytes()).expect("ca pem"))
                .expect("root");
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                Arc::new(provider.clone()),
            )
            .build()
            .expect("verifier");
            let chain = vec![CertificateDer::from_pem_slice(node.cert.as_bytes()).expect("pem")];
            let fp = crate::security::fingerprint(&chain[0]);
            let key = PrivateKeyDer::from_pem_slice(node.key.as_bytes()).expect("key");
            let a = BeaconAuth::certificate(chain, &key, verifier, &provider).expect("auth");
            (a, fp)
        }

        fn beacon(node: u64, fp: [u8; 32], seq: u64) -> Beacon {
            Beacon {
                node: NodeId(node),
                quic_addrs: vec!["127.0.0.1:4433".parse().expect("addr")],
                federations: vec!["Lab".into()],
                cert_fingerprint: fp,
                claims: vec![],
                seq,
                notes: Vec::new(),
                acks: Vec::new(),
            }
        }

        #[test]
        fn lab_certificates_verify_foreign_and_tampered_ones_do_not() {
            let now = Instant::now();
            let lab = create_ca("lab").expect("ca");
            let other = create_ca("other").expect("ca");
            let (a, fa) = auth(&lab, &issue(&lab, "a").expect("a"));
            let (mut b, _) = auth(&lab, &issue(&lab, "b").expect("b"));
            let (x, fx) = auth(&lab, &issue(&other, "x").expect("x"));

            let good = beacon(2, fa, 1).seal(&a);
            assert_eq!(Beacon::open(&good, &mut b, now), Ok(beacon(2, fa, 1)));

            // Signed by a node whose certificate another CA issued.
            let foreign = beacon(3, fx, 1).seal(&x);
            assert_eq!(
                Beacon::open(&foreign, &mut b, now),
                Err(BeaconError::Unauthenticated {
                    node: NodeId(3),
                    reason: AuthFailure::BadCertificate
                })
            );
            // A lab member's genuine certificate with a body it did not sign.
            let mut forged = good.clone();
            forged[20] ^= 1;
            assert!(Beacon::open(&forged, &mut b, now).is_err());
            // A genuine signature announcing another certificate's fingerprint.
            let lying = beacon(2, [9; 32], 1).seal(&a);
            assert_eq!(
                Beacon::open(&lying, &mut b, now),
                Err(BeaconError::Unauthenticated {
                    node: NodeId(2),
                    reason: AuthFailure::BadSignature
                })
            );
            // A development-mode beacon.
            let dev = beacon(4, fa, 1).seal(&BeaconAuth::development(b"s"));
            assert_eq!(
                Beacon::open(&dev, &mut b, now),
                Err(BeaconError::Unauthenticated {
                    node: NodeId(4),
                    reason: AuthFailure::WrongMode
                })
            );
            for n in 0..good.len() {
                assert!(Beacon::open(&good[..n], &mut b, now).is_err(), "cut at {n}");
            }
        }

        #[test]
        fn a_known_chain_is_checked_once_and_unknown_ones_are_rate_limited() {
            let now = Instant::now();
            let lab = create_ca("lab").expect("ca");
            let (a, fa) = auth(&lab, &issue(&lab, "a").expect("a"));
            let (mut b, _) = auth(&lab, &issue(&lab, "b").expect("b"));
            // Far more beacons of one member than the chain-check budget: all pass (cached).
            for seq in 1..=(CHAIN_CHECKS_PER_SEC as u64 * 3) {
                let sealed = beacon(2, fa, seq).seal(&a);
                assert!(Beacon::open(&sealed, &mut b, now).is_ok(), "beacon {seq}");
            }
            // Distinct unknown certificates within one instant: checked up to the budget, then
            // dropped unchecked.
            let other = create_ca("other").expect("ca");
            let mut limited = 0;
            for i in 0..CHAIN_CHECKS_PER_SEC + 5 {
                let (x, fx) = auth(&lab, &issue(&other, &format!("x{i}")).expect("x"));
                match Beacon::open(&beacon(10, fx, 1).seal(&x), &mut b, now) {
                    Err(BeaconError::Unauthenticated {
                        reason: AuthFailure::RateLimited,
                        ..
                    }) => limited += 1,
                    Err(BeaconError::Unauthenticated {
                        reason: AuthFailure::BadCertificate,
                        ..
                    }) => {}
                    other => panic!("unexpected {other:?}"),
                }
            }
            // The budget was 50 checks, one of which went to member a's chain.
            assert_eq!(limited, 6);
            if let Kind::Certificate(c) = &b.kind {
                assert!(c.checked.len() <= CHAIN_CACHE);
            }
        }
    }
}
