//! `hlamesh certs`: runs the built binary for `init` / `issue`, checks the files, their modes and
//! the refusals, then proves the certificates work on real QUIC with real TLS: two transports with
//! certificates from one `certs init` connect; a third whose certificate comes from another
//! `certs init` is refused by both.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::net::Ipv4Addr;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use hlamesh_transport::{NodeId, SecurityConfig, Transport, TransportConfig, TransportEvent};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn hlamesh(args: &[&str], env: &[(&str, &Path)]) -> Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hlamesh"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run hlamesh");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

static NEXT: AtomicU16 = AtomicU16::new(0);

/// A fresh directory per test, removed on drop.
struct TempDir(PathBuf);
impl TempDir {
    fn new(tag: &str) -> TempDir {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!(
            "hlamesh-cli-certs-{}-{tag}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn init(dir: &Path) {
    let o = hlamesh(&["certs", "init", "--dir", s(dir)], &[]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
}

/// Issues NAME and returns the security config from the snippet `issue` printed.
fn issue(dir: &Path, name: &str) -> SecurityConfig {
    let o = hlamesh(&["certs", "issue", name, "--dir", s(dir)], &[]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let snippet = &o.stdout[o.stdout.find("[security]").expect("snippet printed")..];
    TransportConfig::from_toml(snippet)
        .expect("the printed snippet is a valid configuration")
        .security
}

#[test]
fn init_writes_ca_with_modes_and_refuses_to_overwrite() {
    let t = TempDir::new("init");
    let dir = t.join("certs/lab"); // does not exist yet: created 0700
    init(&dir);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("ca.pem")), 0o644);
    assert_eq!(mode(&dir.join("ca.key")), 0o600);
    let cert = std::fs::read_to_string(dir.join("ca.pem")).unwrap();
    assert!(cert.starts_with("-----BEGIN CERTIFICATE-----"), "{cert}");
    let key = std::fs::read_to_string(dir.join("ca.key")).unwrap();
    assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"), "{key}");
    // No temporary files are left behind.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["ca.key", "ca.pem"]);

    let again = hlamesh(&["certs", "init", "--dir", s(&dir)], &[]);
    assert_ne!(again.code, 0);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("ca.pem")).unwrap(),
        cert,
        "a refused init must not touch the CA"
    );

    // Half a CA (only the key) also counts as existing.
    std::fs::remove_file(dir.join("ca.pem")).unwrap();
    let half = hlamesh(&["certs", "init", "--dir", s(&dir)], &[]);
    assert_ne!(half.code, 0, "{}", half.stdout);

    let forced = hlamesh(&["certs", "init", "--dir", s(&dir), "--force"], &[]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_ne!(
        std::fs::read_to_string(dir.join("ca.pem")).unwrap(),
        cert,
        "--force makes a new CA"
    );
    assert_eq!(mode(&dir.join("ca.key")), 0o600);
}

#[test]
fn init_defaults_to_xdg_config_home_then_home() {
    let t = TempDir::new("xdg");
    let xdg = t.join("xdg");
    let o = hlamesh(&["certs", "init"], &[("XDG_CONFIG_HOME", &xdg)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(xdg.join("hlamesh/certs/ca.pem").exists());
    assert!(
        o.stdout.contains(s(&xdg.join("hlamesh/certs"))),
        "{}",
        o.stdout
    );

    let home = t.join("home");
    let o = hlamesh(
        &["certs", "init"],
        &[("XDG_CONFIG_HOME", Path::new("")), ("HOME", &home)],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(home.join(".config/hlamesh/certs/ca.key").exists());
}

#[test]
fn issue_writes_node_pair_and_a_snippet_that_parses() {
    let t = TempDir::new("issue");
    let dir = t.join("ca");
    init(&dir);
    let security = issue(&dir, "alpha");
    assert_eq!(mode(&dir.join("alpha.pem")), 0o644);
    assert_eq!(mode(&dir.join("alpha.key")), 0o600);
    assert_eq!(
        security,
        SecurityConfig::Certificates {
            ca: dir.join("ca.pem"),
            cert: dir.join("alpha.pem"),
            key: dir.join("alpha.key"),
        }
    );
    // The transport accepts the files (chain, key format).
    hlamesh_transport::security::Security::from_config(&security, Ipv4Addr::LOCALHOST)
        .expect("transport loads the issued files");

    let again = hlamesh(&["certs", "issue", "alpha", "--dir", s(&dir)], &[]);
    assert_ne!(again.code, 0);
    assert!(
        again.stderr.contains("alpha.pem already exists"),
        "{}",
        again.stderr
    );
    let before = std::fs::read_to_string(dir.join("alpha.key")).unwrap();
    let forced = hlamesh(
        &["certs", "issue", "alpha", "--dir", s(&dir), "--force"],
        &[],
    );
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_ne!(
        std::fs::read_to_string(dir.join("alpha.key")).unwrap(),
        before
    );
}

#[test]
fn issue_without_ca_and_bad_names_fail_clearly() {
    let t = TempDir::new("noca");
    let dir = t.join("empty");
    let o = hlamesh(&["certs", "issue", "alpha", "--dir", s(&dir)], &[]);
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("no CA in"), "{}", o.stderr);
    assert!(
        o.stderr.contains("hlamesh certs init --dir"),
        "{}",
        o.stderr
    );
    assert!(!dir.join("alpha.key").exists());

    init(&dir);
    for bad in ["Alpha", "a.b", "../escape", "-x", "ca", ""] {
        // `--` so that "-x" reaches the name check instead of being taken for an option.
        let o = hlamesh(&["certs", "issue", "--dir", s(&dir), "--", bad], &[]);
        assert_ne!(o.code, 0, "{bad:?} accepted: {}", o.stdout);
        assert!(
            o.stderr.contains("invalid node name"),
            "{bad:?}: {}",
            o.stderr
        );
    }
    // Nothing but the CA was written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
}

#[test]
fn issue_refuses_a_ca_key_that_does_not_match_its_certificate() {
    let t = TempDir::new("mismatch");
    let (one, two) = (t.join("one"), t.join("two"));
    init(&one);
    init(&two);
    std::fs::copy(two.join("ca.key"), one.join("ca.key")).unwrap();
    let o = hlamesh(&["certs", "issue", "alpha", "--dir", s(&one)], &[]);
    assert_ne!(o.code, 0, "{}", o.stdout);
    assert!(
        o.stderr.contains("is not the key of ca.pem"),
        "{}",
        o.stderr
    );
    assert!(!one.join("alpha.pem").exists());

    std::fs::write(two.join("ca.pem"), "not a certificate").unwrap();
    let o = hlamesh(&["certs", "issue", "alpha", "--dir", s(&two)], &[]);
    assert_ne!(o.code, 0, "{}", o.stdout);
    assert!(o.stderr.contains("cannot be used"), "{}", o.stderr);
}

// ---------------------------------------------------------------------------------------------
// The certificates on a real mesh.

/// Ports and a discovery group unique to this process and test. Above the Linux ephemeral range
/// (32768–60999) and away from the transport tests' 20000–60000 range, so concurrently running
/// test binaries do not hear each other.
fn mesh_config(security: SecurityConfig, slot: u16) -> TransportConfig {
    let pid = std::process::id();
    let base = 61_000 + ((pid % 180) as u16) * 20 + slot * 4;
    TransportConfig {
        interface: Ipv4Addr::LOCALHOST,
        multicast_ttl: 0,
        discovery_port: base,
        data_port: base + 1,
        discovery_group: Ipv4Addr::new(239, 255, 190 + slot as u8, (pid % 250) as u8 + 1),
        security,
        ..TransportConfig::default()
    }
}

#[derive(Default)]
struct Seen {
    connected: HashSet<NodeId>,
    refused: usize,
    /// Refusals whose reason is the peer's certificate (not, say, a timeout).
    refused_for_certificate: usize,
}

#[test]
fn issued_certificates_connect_and_another_ca_is_refused() {
    let t = TempDir::new("mesh");
    let lab = t.join("lab");
    let other = t.join("other");
    init(&lab);
    init(&other);
    let alpha = issue(&lab, "alpha");
    let bravo = issue(&lab, "bravo");
    let intruder = issue(&other, "intruder");

    let slot = 0;
    let a = Transport::start(mesh_config(alpha, slot)).expect("alpha starts");
    let b = Transport::start(mesh_config(bravo, slot)).expect("bravo starts");
    let c = Transport::start(mesh_config(intruder, slot)).expect("intruder starts");
    let nodes = [&a, &b, &c];
    let mut seen: [Seen; 3] = Default::default();

    // Until alpha and bravo are connected to each other and each has refused the intruder's
    // beacons, bounded. Beacons are signed by the node's certificate and checked against the lab
    // CA before anything else, so a node of another CA is never dialled and never dials: the
    // refusal shows in the discovery counters, not as a failed handshake.
    let done = |seen: &[Seen; 3]| {
        seen[0].connected.contains(&b.node_id())
            && seen[1].connected.contains(&a.node_id())
            && a.discovery_stats().auth_failures() > 0
            && b.discovery_stats().auth_failures() > 0
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(&seen) {
        let mut sel = crossbeam_channel::Select::new();
        for n in &nodes {
            sel.recv(n.events());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            panic!(
                "timed out: alpha connected {:?}, beacons refused {}; bravo connected {:?}, beacons refused {}",
                seen[0].connected,
                a.discovery_stats().auth_failures(),
                seen[1].connected,
                b.discovery_stats().auth_failures()
            );
        }
        // The counters change without an event: look again at least every 100 ms.
        let Ok(op) = sel.select_timeout(left.min(Duration::from_millis(100))) else {
            continue;
        };
        let i = op.index();
        let ev = op.recv(nodes[i].events()).expect("transport alive");
        match ev {
            TransportEvent::PeerConnected { node, .. } => {
                seen[i].connected.insert(node);
            }
            TransportEvent::PeerRefused { addr, reason } => {
                eprintln!("node {i} refused {addr}: {reason}");
                seen[i].refused += 1;
                if reason.contains("certificate") {
                    seen[i].refused_for_certificate += 1;
                }
            }
            _ => {}
        }
    }
    // Whatever arrived in the meantime too.
    for (i, n) in nodes.iter().enumerate() {
        while let Ok(ev) = n.events().try_recv() {
            if let TransportEvent::PeerConnected { node, .. } = ev {
                seen[i].connected.insert(node);
            }
        }
    }
    assert!(
        !seen[0].connected.contains(&c.node_id()),
        "alpha accepted the intruder"
    );
    assert!(
        !seen[1].connected.contains(&c.node_id()),
        "bravo accepted the intruder"
    );
    assert!(
        seen[2].connected.is_empty(),
        "the intruder connected to {:?}",
        seen[2].connected
    );
    assert_eq!(a.peers(), vec![b.node_id()]);
    assert_eq!(b.peers(), vec![a.node_id()]);
    assert!(c.peers().is_empty());
    assert!(a.discovery_stats().auth_failures() > 0);
    assert!(b.discovery_stats().auth_failures() > 0);
    assert_eq!(
        seen[0].refused + seen[1].refused,
        0,
        "a good node dialled or accepted a handshake with the intruder"
    );
    drop(c);
    b.shutdown();
    a.shutdown();
}
