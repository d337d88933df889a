//! Shared by the metrics tests: two in-process transports on loopback, a plain-HTTP scrape, and a
//! strict parser of the Prometheus text format.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use hlamesh_transport::{
    FederationChannel, KeySource, NodeId, Transport, TransportConfig, TransportEvent,
};

/// Ports and discovery group unique to this process and test binary (`slot` tells the metrics
/// test binaries apart): 20000–32099 like the other transport tests (below the kernel's
/// ephemeral range, where a QUIC endpoint's port 0 may land), in a block of ports
/// chosen from the process id, and a discovery group of its own.
pub fn config(slot: u16) -> TransportConfig {
    let pid = std::process::id();
    let base = 20_000 + ((pid % 120) as u16) * 100 + 90 + slot * 4;
    TransportConfig {
        interface: Ipv4Addr::LOCALHOST,
        multicast_ttl: 0,
        discovery_port: base,
        data_port: base + 1,
        discovery_group: Ipv4Addr::new(239, 255, 188 + slot as u8, (pid % 250) as u8 + 1),
        ..TransportConfig::default()
    }
}

pub const FEDERATION: &str = "MetricsTest";

/// Two connected transports with the federation open on both, and each seeing the other as a
/// member (so data flows both ways).
pub struct Pair {
    pub a: Transport,
    pub b: Transport,
    pub fa: FederationChannel,
    pub fb: FederationChannel,
}

pub fn wait_for(
    t: &Transport,
    what: &str,
    mut done: impl FnMut(&TransportEvent) -> bool,
) -> Vec<TransportEvent> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = t
            .events()
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
        let stop = done(&ev);
        seen.push(ev);
        if stop {
            return seen;
        }
    }
}

pub fn pair(slot: u16, metrics_a: Option<SocketAddr>, metrics_b: Option<SocketAddr>) -> Pair {
    let a = Transport::start(TransportConfig {
        metrics_addr: metrics_a,
        ..config(slot)
    })
    .expect("a starts");
    let b = Transport::start(TransportConfig {
        metrics_addr: metrics_b,
        ..config(slot)
    })
    .expect("b starts");
    let (ida, idb) = (a.node_id(), b.node_id());
    wait_for(
        &a,
        "a connects to b",
        |e| matches!(e, TransportEvent::PeerConnected { node, .. } if *node == idb),
    );
    wait_for(
        &b,
        "b connects to a",
        |e| matches!(e, TransportEvent::PeerConnected { node, .. } if *node == ida),
    );
    let fa = a
        .open_federation(FEDERATION, KeySource::Create)
        .expect("a opens");
    let fb = b
        .open_federation(FEDERATION, KeySource::FromPeers(Duration::from_secs(5)))
        .expect("b opens with a's key");
    let joined = |peer: NodeId| move |e: &TransportEvent| matches!(e, TransportEvent::FederationPeer { node, joined: true, .. } if *node == peer);
    wait_for(&a, "b joins at a", joined(idb));
    wait_for(&b, "a joins at b", joined(ida));
    Pair { a, b, fa, fb }
}

/// Waits until `t` delivered `n` reliable data messages from `from`.
pub fn await_data(t: &Transport, from: NodeId, n: usize) {
    let mut got = 0;
    if n == 0 {
        return;
    }
    wait_for(t, "data", |e| {
        if let TransportEvent::Data {
            from: f,
            seq: Some(_),
            ..
        } = e
            && *f == from
        {
            got += 1;
        }
        got == n
    });
}

/// One plain HTTP/1.1 GET; returns (status line, body).
pub fn get(addr: SocketAddr, path: &str) -> (String, String) {
    get_raw(addr, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"))
}

pub fn get_raw(addr: SocketAddr, request: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).expect("connect to /metrics");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s.write_all(request.as_bytes()).expect("send request");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("response");
    let (head, body) = text.split_once("\r\n\r\n").expect("header/body separator");
    let status = head.lines().next().unwrap_or("").to_string();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .expect("Content-Length")
        .parse()
        .expect("length");
    assert_eq!(len, body.len(), "Content-Length matches the body");
    (status, body.to_string())
}

/// A parsed scrape: every sample by (name, sorted labels), and the declared families.
#[derive(Debug, Default)]
pub struct Scrape {
    pub samples: HashMap<(String, BTreeMap<String, String>), f64>,
    pub types: HashMap<String, String>,
    pub helps: HashSet<String>,
}

impl Scrape {
    /// Value of the sample with exactly these labels.
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let l: BTreeMap<String, String> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.samples.get(&(name.to_string(), l)).copied()
    }
    /// Sum over every sample of `name` (all label values).
    pub fn sum(&self, name: &str) -> f64 {
        self.samples
            .iter()
            .filter(|((n, _), _)| n == name)
            .map(|(_, v)| v)
            .sum()
    }
    /// Series names present.
    pub fn names(&self) -> HashSet<String> {
        self.samples.keys().map(|(n, _)| n.clone()).collect()
    }
}

fn valid_name(n: &str) -> bool {
    let mut c = n.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == ':')
}

/// The family a sample belongs to (histogram and summary suffixes stripped if declared).
fn family<'a>(name: &'a str, types: &HashMap<String, String>) -> &'a str {
    for suf in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suf)
            && types.contains_key(base)
        {
            return base;
        }
    }
    name
}

/// Strict parser of the Prometheus text exposition format (0.0.4): `# HELP`, `# TYPE` before the
/// family's samples, `name{label="value",...} value`. Panics with the offending line.
pub fn parse(text: &str) -> Scrape {
    let mut out = Scrape::default();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "ends with a newline"
    );
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# ") {
            let mut parts = rest.splitn(3, ' ');
            let (kw, name, arg) = (parts.next(), parts.next(), parts.next());
            let name = name.unwrap_or_else(|| panic!("comment without name: {line:?}"));
            assert!(valid_name(name), "bad name in {line:?}");
            match kw {
                Some("HELP") => {
                    assert!(arg.is_some_and(|a| !a.is_empty()), "empty help: {line:?}");
                    assert!(out.helps.insert(name.to_string()), "HELP twice: {line:?}");
                }
                Some("TYPE") => {
                    let t = arg.unwrap_or_else(|| panic!("TYPE without type: {line:?}"));
                    assert!(
                        ["counter", "gauge", "histogram", "summary", "untyped"].contains(&t),
                        "bad type: {line:?}"
                    );
                    assert!(
                        out.types.insert(name.to_string(), t.to_string()).is_none(),
                        "TYPE twice: {line:?}"
                    );
                }
                _ => {} // other comments are allowed
            }
            continue;
        }
        assert!(!line.starts_with('#'), "comment without space: {line:?}");
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("no value: {line:?}"));
        let value: f64 = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v.parse().unwrap_or_else(|_| panic!("bad value: {line:?}")),
        };
        let (name, labels) = match series.split_once('{') {
            None => (series, BTreeMap::new()),
            Some((n, rest)) => {
                let body = rest
                    .strip_suffix('}')
                    .unwrap_or_else(|| panic!("unclosed labels: {line:?}"));
                (n, parse_labels(body, line))
            }
        };
        assert!(valid_name(name), "bad metric name: {line:?}");
        let fam = family(name, &out.types);
        assert!(
            out.types.contains_key(fam),
            "sample before its # TYPE: {line:?}"
        );
        let key = (name.to_string(), labels);
        assert!(
            out.samples.insert(key, value).is_none(),
            "duplicate series: {line:?}"
        );
    }
    out
}

fn parse_labels(body: &str, line: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut chars = body.chars().peekable();
    while chars.peek().is_some() {
        let name: String = chars.by_ref().take_while(|c| *c != '=').collect();
        assert!(valid_name(&name), "bad label name {name:?}: {line:?}");
        assert_eq!(chars.next(), Some('"'), "label value not quoted: {line:?}");
        let mut value = String::new();
        loop {
            match chars.next() {
                Some('\\') => match chars.next() {
                    Some('\\') => value.push('\\'),
                    Some('"') => value.push('"'),
                    Some('n') => value.push('\n'),
                    other => panic!("bad escape {other:?}: {line:?}"),
                },
                Some('"') => break,
                Some(c) => value.push(c),
                None => panic!("unterminated label value: {line:?}"),
            }
        }
        assert!(out.insert(name, value).is_none(), "label twice: {line:?}");
        match chars.next() {
            Some(',') | None => {}
            Some(c) => panic!("unexpected {c:?} after label value: {line:?}"),
        }
    }
    out
}
