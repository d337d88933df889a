//! A lab certificate authority kept in one directory, for the QUIC mesh's `certificates` security
//! mode: `hlamesh certs init` creates `ca.pem` / `ca.key`, `hlamesh certs issue NAME` writes
//! `NAME.pem` / `NAME.key` signed by it. The certificates themselves come from
//! [`hlamesh_transport::certs`] (every node certificate carries the DNS name `hlamesh`, which is what
//! nodes verify, so certificates do not depend on IP addresses).
//!
//! Why files are written the way they are: private keys are created with mode 0600 from the first
//! byte (never briefly world-readable), every file is written to a temporary name and renamed into
//! place (an interrupted run never leaves half a key), and an existing CA or node certificate is only
//! replaced when asked (`force`), because replacing a CA silently invalidates every certificate it
//! issued.

use std::ffi::OsString;
use std::fs::{self, DirBuilder, OpenOptions, Permissions};
use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use hlamesh_transport::certs::{self, PemPair};
use hlamesh_transport::security::SERVER_NAME;
use hlamesh_transport::{SecurityConfig, TransportError};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject as _;
use serde::Serialize;

/// File name of the CA certificate inside the certificate directory.
pub const CA_CERT_FILE: &str = "ca.pem";
/// File name of the CA private key inside the certificate directory.
pub const CA_KEY_FILE: &str = "ca.key";
/// Mode of certificates (public).
pub const CERT_MODE: u32 = 0o644;
/// Mode of private keys.
pub const KEY_MODE: u32 = 0o600;
/// Mode of a certificate directory this module creates.
pub const DIR_MODE: u32 = 0o700;
/// Longest node name (one DNS label).
pub const MAX_NAME_LEN: usize = 63;

/// What can go wrong managing the lab CA.
#[derive(Debug, thiserror::Error)]
pub enum CertsError {
    /// Neither `--dir`, `XDG_CONFIG_HOME` nor `HOME` gives a directory.
    #[error("no certificate directory: pass --dir, or set XDG_CONFIG_HOME or HOME")]
    NoDefaultDir,
    /// `init` found a CA already there.
    #[error(
        "a CA already exists in {dir}; refusing to replace it (every certificate it issued would \
         stop being trusted). Use --force to replace it anyway"
    )]
    CaExists {
        /// The certificate directory.
        dir: PathBuf,
    },
    /// `issue` found no CA (or only half of one).
    #[error("no CA in {dir}: {missing} is missing. Run `hlamesh certs init --dir {dir}` first")]
    CaMissing {
        /// The certificate directory.
        dir: PathBuf,
        /// The file that is not there.
        missing: PathBuf,
    },
    /// The CA files are there but cannot be used to sign.
    #[error("the CA in {dir} cannot be used: {reason}")]
    CaUnusable {
        /// The certificate directory.
        dir: PathBuf,
        /// What the certificate library said.
        reason: String,
    },
    /// `issue` would overwrite a node's certificate or key.
    #[error("{path} already exists; use --force to issue a new certificate and key for {name}")]
    NodeExists {
        /// The node name.
        name: String,
        /// The existing file.
        path: PathBuf,
    },
    /// The node name is not usable as a DNS label / file name.
    #[error("invalid node name {name:?}: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// Generating or signing a certificate failed.
    #[error("certificate generation failed: {0}")]
    Generate(String),
    /// A path cannot be written into a TOML configuration.
    #[error("path {0} is not valid UTF-8 and cannot be put in a TOML configuration")]
    NonUtf8Path(PathBuf),
    /// A file system operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CertsError + '_ {
    move |source| CertsError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A node name: one lowercase DNS label (`a-z`, `0-9`, `-`, at most 63 characters, no hyphen at
/// either end), also used as the file stem, so it can never escape the directory. `ca` is reserved
/// for the CA's own files.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeName(String);

impl NodeName {
    /// Validates a node name.
    pub fn parse(name: &str) -> Result<NodeName, CertsError> {
        let bad = |reason| CertsError::InvalidName {
            name: name.to_string(),
            reason,
        };
        if name.is_empty() {
            return Err(bad("it is empty"));
        }
        if name.len() > MAX_NAME_LEN {
            return Err(bad("a DNS label has at most 63 characters"));
        }
        if !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(bad("use only lowercase letters a-z, digits and '-'"));
        }
        if name.starts_with('-') || name.ends_with('-') {
            return Err(bad("it may not start or end with '-'"));
        }
        if name == "ca" {
            return Err(bad("\"ca\" is reserved for the CA's own files"));
        }
        Ok(NodeName(name.to_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for NodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for NodeName {
    type Err = CertsError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NodeName::parse(s)
    }
}

/// The files of a lab CA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaFiles {
    /// The certificate directory (absolute).
    pub dir: PathBuf,
    /// `ca.pem`: give it to every node.
    pub cert: PathBuf,
    /// `ca.key`: keep it where certificates are issued, nowhere else.
    pub key: PathBuf,
    /// The CA's common name (it carries a random tag, to tell two lab CAs apart).
    pub common_name: String,
}

impl CaFiles {
    /// What `hlamesh certs init` prints.
    pub fn describe(&self) -> String {
        format!(
            "created lab CA \"{cn}\" in {dir}\n  \
             {cert}  (certificate, mode 0644: copy it to every node)\n  \
             {key}  (private key, mode 0600: keep it here, never on the nodes)\n\
             next: hlamesh certs issue NODE-NAME --dir {dir}",
            cn = self.common_name,
            dir = self.dir.display(),
            cert = self.cert.display(),
            key = self.key.display(),
        )
    }
}

/// The files of one node, and the CA that signed them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeFiles {
    /// The node name (also a DNS name in the certificate, next to `hlamesh`).
    pub name: NodeName,
    /// The CA certificate the node must trust.
    pub ca: PathBuf,
    /// `NAME.pem`.
    pub cert: PathBuf,
    /// `NAME.key`.
    pub key: PathBuf,
}

impl NodeFiles {
    /// The transport security setting that uses these files.
    pub fn security(&self) -> SecurityConfig {
        SecurityConfig::Certificates {
            ca: self.ca.clone(),
            cert: self.cert.clone(),
            key: self.key.clone(),
        }
    }

    /// What `hlamesh certs issue` prints: the files and the configuration snippet.
    pub fn describe(&self) -> Result<String, CertsError> {
        Ok(format!(
            "issued certificate for node {name} (DNS names: {dns}) signed by {ca}\n  \
             {cert}  (certificate, mode 0644)\n  \
             {key}  (private key, mode 0600: copy it only to node {name})\n\
             put this in {name}'s configuration (e.g. /etc/hlamesh/{name}.toml), with the paths \
             where the three files are on that node:\n\n{snippet}",
            name = self.name,
            dns = if self.name.as_str() == SERVER_NAME {
                SERVER_NAME.to_string()
            } else {
                format!("{SERVER_NAME}, {}", self.name)
            },
            ca = self.ca.display(),
            cert = self.cert.display(),
            key = self.key.display(),
            snippet = self.config_snippet()?,
        ))
    }

    /// The `[security]` table for the node's TOML configuration; it parses with
    /// `TransportConfig::from_toml`.
    pub fn config_snippet(&self) -> Result<String, CertsError> {
        #[derive(Serialize)]
        struct Snippet {
            security: SecurityConfig,
        }
        for p in [&self.ca, &self.cert, &self.key] {
            if p.to_str().is_none() {
                return Err(CertsError::NonUtf8Path(p.clone()));
            }
        }
        toml::to_string(&Snippet {
            security: self.security(),
        })
        .map_err(|e| CertsError::Generate(format!("cannot render the TOML snippet: {e}")))
    }
}

/// The default certificate directory: `$XDG_CONFIG_HOME/hlamesh/certs`, else
/// `$HOME/.config/hlamesh/certs`.
pub fn default_dir() -> Result<PathBuf, CertsError> {
    default_dir_from(
        std::env::var_os("XDG_CONFIG_HOME"),
        std::env::var_os("HOME"),
    )
    .ok_or(CertsError::NoDefaultDir)
}

/// [`default_dir`] from given variable values. Per the XDG base-directory spec a relative or empty
/// `XDG_CONFIG_HOME` is ignored.
pub fn default_dir_from(
    xdg_config_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let usable = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    usable(xdg_config_home)
        .or_else(|| usable(home).map(|h| h.join(".config")))
        .map(|base| base.join("hlamesh").join("certs"))
}

fn exists(path: &Path) -> bool {
    // symlink_metadata: a dangling symlink still counts as "something is there".
    fs::symlink_metadata(path).is_ok()
}

fn absolute(dir: &Path) -> Result<PathBuf, CertsError> {
    std::path::absolute(dir).map_err(io_err(dir))
}

fn ensure_dir(dir: &Path) -> Result<(), CertsError> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(io_err(dir))
}

/// Writes `contents` to `path` with exactly `mode`: into a fresh temporary file created with that
/// mode (so a key is never readable by others, whatever the umask), then renamed over `path`.
fn write_file(path: &Path, contents: &str, mode: u32) -> Result<(), CertsError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{file_name}.tmp{}", std::process::id()));
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&tmp)(e)),
    }
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        // The umask may have removed bits from `mode` (e.g. 0644 under umask 077): set it exactly.
        f.set_permissions(Permissions::from_mode(mode))?;
        f.write_all(contents.as_bytes())?;
        f.sync_all()
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(&tmp)(e));
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err(path)(e)
    })
}

fn write_pair(pair: &PemPair, cert: &Path, key: &Path) -> Result<(), CertsError> {
    // Key first: a certificate never sits next to a key that does not match it for long.
    write_file(key, &pair.key, KEY_MODE)?;
    write_file(cert, &pair.cert, CERT_MODE)
}

fn random_tag() -> Result<String, CertsError> {
    use ring::rand::SecureRandom as _;
    let mut b = [0u8; 4];
    ring::rand::SystemRandom::new()
        .fill(&mut b)
        .map_err(|_| CertsError::Generate("no system randomness".into()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Creates a lab CA in `dir` (created with mode 0700 if missing): `ca.pem` (0644) and `ca.key`
/// (0600). Refuses if either file exists, unless `force`.
pub fn init(dir: &Path, force: bool) -> Result<CaFiles, CertsError> {
    let dir = absolute(dir)?;
    let cert = dir.join(CA_CERT_FILE);
    let key = dir.join(CA_KEY_FILE);
    if !force && (exists(&cert) || exists(&key)) {
        return Err(CertsError::CaExists { dir });
    }
    ensure_dir(&dir)?;
    let common_name = format!("hlamesh lab CA {}", random_tag()?);
    let pair = certs::create_ca(&common_name).map_err(|e| match e {
        TransportError::Tls(s) => CertsError::Generate(s),
        other => CertsError::Generate(other.to_string()),
    })?;
    write_pair(&pair, &cert, &key)?;
    Ok(CaFiles {
        dir,
        cert,
        key,
        common_name,
    })
}

fn read_ca_file(dir: &Path, path: &Path) -> Result<String, CertsError> {
    fs::read_to_string(path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            CertsError::CaMissing {
                dir: dir.to_path_buf(),
                missing: path.to_path_buf(),
            }
        } else {
            io_err(path)(e)
        }
    })
}

/// Checks that `ca.key` is the key of `ca.pem`. Signing does not check it, and a mismatched pair
/// (one file replaced by hand, or from another `init`) would yield certificates every node refuses
/// at run time with a far less helpful message.
fn check_ca_pair(dir: &Path, ca: &PemPair) -> Result<(), CertsError> {
    let unusable = |reason: String| CertsError::CaUnusable {
        dir: dir.to_path_buf(),
        reason,
    };
    let key =
        rcgen::KeyPair::from_pem(&ca.key).map_err(|e| unusable(format!("{CA_KEY_FILE}: {e}")))?;
    let cert = CertificateDer::from_pem_slice(ca.cert.as_bytes())
        .map_err(|e| unusable(format!("{CA_CERT_FILE}: {e}")))?;
    // The certificate embeds its subject public key verbatim (in SubjectPublicKeyInfo).
    let public = key.public_key_raw();
    if public.is_empty() || !cert.windows(public.len()).any(|w| w == public) {
        return Err(unusable(format!(
            "{CA_KEY_FILE} is not the key of {CA_CERT_FILE} (files from different CAs?)"
        )));
    }
    Ok(())
}

/// Issues a certificate for node `name` signed by the CA in `dir`: `NAME.pem` (0644) and
/// `NAME.key` (0600). Refuses to overwrite an existing pair unless `force`.
pub fn issue(dir: &Path, name: &NodeName, force: bool) -> Result<NodeFiles, CertsError> {
    let dir = absolute(dir)?;
    let ca_cert = dir.join(CA_CERT_FILE);
    let ca_key = dir.join(CA_KEY_FILE);
    let ca = PemPair {
        cert: read_ca_file(&dir, &ca_cert)?,
        key: read_ca_file(&dir, &ca_key)?,
    };
    check_ca_pair(&dir, &ca)?;
    let cert = dir.join(format!("{name}.pem"));
    let key = dir.join(format!("{name}.key"));
    if !force {
        for p in [&cert, &key] {
            if exists(p) {
                return Err(CertsError::NodeExists {
                    name: name.to_string(),
                    path: p.clone(),
                });
            }
        }
    }
    let pair = certs::issue(&ca, name.as_str()).map_err(|e| CertsError::CaUnusable {
        dir: dir.clone(),
        reason: match e {
            TransportError::Tls(s) => s,
            other => other.to_string(),
        },
    })?;
    write_pair(&pair, &cert, &key)?;
    Ok(NodeFiles {
        name: name.clone(),
        ca: ca_cert,
        cert,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_dns_labels() {
        for ok in ["alpha", "node-7", "a", "0", &"x".repeat(63)] {
            assert_eq!(NodeName::parse(ok).expect(ok).as_str(), ok);
        }
        for bad in [
            "",
            "Alpha",
            "-a",
            "a-",
            "a.b",
            "a/b",
            "..",
            "a b",
            "ca",
            "é",
            &"x".repeat(64),
        ] {
            assert!(
                matches!(NodeName::parse(bad), Err(CertsError::InvalidName { .. })),
                "{bad:?} accepted"
            );
        }
    }

    #[test]
    fn default_dir_follows_xdg_then_home() {
        let d = default_dir_from(Some("/x/cfg".into()), Some("/home/u".into()));
        assert_eq!(d, Some(PathBuf::from("/x/cfg/hlamesh/certs")));
        let d = default_dir_from(Some("relative".into()), Some("/home/u".into()));
        assert_eq!(d, Some(PathBuf::from("/home/u/.config/hlamesh/certs")));
        let d = default_dir_from(None, Some("/home/u".into()));
        assert_eq!(d, Some(PathBuf::from("/home/u/.config/hlamesh/certs")));
        assert_eq!(default_dir_from(None, None), None);
        assert_eq!(default_dir_from(Some("".into()), Some("".into())), None);
    }
}
