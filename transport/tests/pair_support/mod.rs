//! Shared by the in-process transport tests (batching, receiving on the waiting thread): two
//! transports on loopback multicast in one federation, each accepting the other's data. The
//! test crate must also declare `mod common;` (ports unique to the test binary).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use hlamesh_transport::{FederationChannel, KeySource, Transport, TransportConfig};

use crate::common;

/// Two transports in one federation.
pub struct Pair {
    pub a: Transport,
    pub b: Transport,
    pub fa: FederationChannel,
    pub fb: FederationChannel,
}

/// A loopback configuration on `ports`.
pub fn config(ports: &common::Ports) -> TransportConfig {
    TransportConfig {
        discovery_port: ports.discovery,
        data_port: ports.data,
        discovery_group: ports.group,
        ..TransportConfig::default()
    }
}

/// Polls `cond` (setup only: membership and connections have no event to wait on here) for up to
/// 20 s.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Two transports in `federation`, connected and each a member of the other's channel, with the
/// setup events drained.
pub fn pair(federation: &str) -> Pair {
    pair_with(federation, |c| c)
}

/// [`pair`] with `b`'s configuration changed by `b_config` (a fault layer, say).
pub fn pair_with(
    federation: &str,
    b_config: impl FnOnce(TransportConfig) -> TransportConfig,
) -> Pair {
    let ports = common::Ports::unique();
    let a = Transport::start(config(&ports)).expect("start a");
    let b = Transport::start(b_config(config(&ports))).expect("start b");
    let fa = a
        .open_federation(federation, KeySource::Create)
        .expect("open a");
    wait_for("the QUIC connection", || {
        a.peers().contains(&b.node_id()) && b.peers().contains(&a.node_id())
    });
    let fb = b
        .open_federation(federation, KeySource::FromPeers(Duration::from_secs(5)))
        .expect("open b");
    wait_for("membership", || {
        fa.members().contains(&b.node_id()) && fb.members().contains(&a.node_id())
    });
    while a.events().try_recv().is_ok() {}
    while b.events().try_recv().is_ok() {}
    Pair { a, b, fa, fb }
}
