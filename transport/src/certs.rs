//! A small lab certificate authority: create a CA and issue node certificates signed by it, in PEM.
//! Used by `hlamesh certs init` / `hlamesh certs issue NAME` and by the tests of the certificate
//! security mode. Node certificates carry the DNS name [`crate::security::SERVER_NAME`] (what every
//! node checks) plus the node's own name.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

use crate::error::TransportError;
use crate::security::SERVER_NAME;

/// A certificate and its private key, both PEM.
#[derive(Clone, Debug)]
pub struct PemPair {
    /// The certificate (PEM).
    pub cert: String,
    /// The private key (PKCS#8 PEM).
    pub key: String,
}

fn err(e: rcgen::Error) -> TransportError {
    TransportError::Tls(e.to_string())
}

/// Creates a self-signed lab CA named `common_name`.
pub fn create_ca(common_name: &str) -> Result<PemPair, TransportError> {
    let mut params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    params.distinguished_name = dn;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let key = KeyPair::generate().map_err(err)?;
    let cert = params.self_signed(&key).map_err(err)?;
    Ok(PemPair {
        cert: cert.pem(),
        key: key.serialize_pem(),
    })
}

/// Issues a node certificate for `name`, signed by the CA given in PEM.
pub fn issue(ca: &PemPair, name: &str) -> Result<PemPair, TransportError> {
    let ca_key = KeyPair::from_pem(&ca.key).map_err(err)?;
    let issuer = Issuer::from_ca_cert_pem(&ca.cert, ca_key).map_err(err)?;
    let mut sans = vec![SERVER_NAME.to_string()];
    if name != SERVER_NAME {
        sans.push(name.to_string());
    }
    let mut params = CertificateParams::new(sans).map_err(err)?;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name);
    params.distinguished_name = dn;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let key = KeyPair::generate().map_err(err)?;
    let cert = params.signed_by(&key, &issuer).map_err(err)?;
    Ok(PemPair {
        cert: cert.pem(),
        key: key.serialize_pem(),
    })
}
