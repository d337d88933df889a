//! Beacon solicitation on real sockets (loopback multicast): a node started after another learns
//! it, and connects, long before the other's next periodic beacon; a bare query is answered with a
//! beacon; a storm of queries costs a member at most one beacon per `beacon_min_gap`; and queries
//! that fail authentication (unsealed, or sealed under another secret: what a host without the
//! secret can send) are counted and make no member beacon at all.
//!
//! The beacon interval is 5 s in every test, so only an answer can explain a beacon heard within
//! the bounds below (which are far above the milliseconds an answer takes, and far below 5 s).

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use hlamesh_transport::beacon_auth::BeaconAuth;
use hlamesh_transport::discovery::{Beacon, Solicit};
use hlamesh_transport::{KeySource, NodeId, Transport, TransportConfig, TransportEvent, sockets};

const INTERVAL: Duration = Duration::from_secs(5);
/// Far below `INTERVAL`: what "at once" must mean even on a loaded machine.
const PROMPT: Duration = Duration::from_secs(1);

/// The development secret of `TransportConfig::default()`.
const DEFAULT_SECRET: &[u8] = b"hlamesh-development";

fn config(ports: &common::Ports) -> TransportConfig {
    TransportConfig {
        discovery_port: ports.discovery,
        data_port: ports.data,
        discovery_group: ports.group,
        beacon_interval: INTERVAL,
        beacon_expiry: INTERVAL * 4,
        ..TransportConfig::default()
    }
}

/// A plain socket on the discovery group: hears every beacon and query, and sends queries.
struct Observer {
    recv: UdpSocket,
    send: UdpSocket,
    dest: SocketAddr,
}

impl Observer {
    fn new(ports: &common::Ports) -> Observer {
        let lo = std::net::Ipv4Addr::LOCALHOST;
        let recv = sockets::multicast_receiver(ports.discovery, Some(Duration::from_millis(20)))
            .expect("observer socket");
        sockets::join(&recv, ports.group, lo).expect("join discovery group");
        let send = sockets::multicast_sender(lo, 0).expect("query socket");
        Observer {
            recv,
            send,
            dest: SocketAddr::from((ports.group, ports.discovery)),
        }
    }

    /// The next beacon of `node` before `deadline`, with when it arrived.
    fn beacon_of(&self, node: NodeId, deadline: Instant) -> Option<(Instant, Beacon)> {
        let mut buf = vec![0u8; 65_536];
        while Instant::now() < deadline {
            let Ok((n, _)) = self.recv.recv_from(&mut buf) else {
                continue;
            };
            if let Ok(b) = Beacon::decode_unverified(&buf[..n])
                && b.node == node
            {
                return Some((Instant::now(), b));
            }
        }
        None
    }

    /// A query authenticated under the federation's development secret (the default one).
    fn solicit(&self, from: NodeId) {
        let auth = BeaconAuth::development(DEFAULT_SECRET);
        self.send
            .send_to(&Solicit { node: from }.seal(&auth), self.dest)
            .expect("send query");
    }

    /// Sends raw bytes to the discovery group.
    fn send_raw(&self, bytes: &[u8]) {
        self.send.send_to(bytes, self.dest).expect("send datagram");
    }
}

#[test]
fn a_starting_node_learns_a_member_and_connects_without_waiting_a_beacon_period() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let observer = Observer::new(&ports);
    let a = Transport::start(config(&ports)).expect("start a");
    let _fa = a
        .open_federation("Solicited", KeySource::Create)
        .expect("open a");
    // A's beacon naming the federation is out (an announcement, before B exists): from now on A
    // sends no periodic beacon for 5 s.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, b) = observer
            .beacon_of(a.node_id(), deadline)
            .expect("a announces its federation");
        if b.federations.iter().any(|f| f == "Solicited") {
            break;
        }
    }

    let started = Instant::now();
    let b = Transport::start(config(&ports)).expect("start b");
    let deadline = started + PROMPT;
    // Waits on the discovery epoch, as the LRC does before a join: each wait ends at the change
    // (a beacon heard, a peer connected), not at a poll period. An epoch that did not move would
    // leave the loop waiting until the deadline.
    let mut epoch = 0;
    loop {
        let connected = b.peers().contains(&a.node_id());
        let knows_federation = b.discovered().iter().any(|p| {
            p.beacon.node == a.node_id() && p.beacon.federations.iter().any(|f| f == "Solicited")
        });
        if connected && knows_federation {
            break;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "b did not learn a within {PROMPT:?} (connected {connected}, heard its beacon \
             {knows_federation}); a's next periodic beacon is {INTERVAL:?} away"
        );
        epoch = b.wait_discovery_change(epoch, left);
    }
    eprintln!(
        "b heard a's beacon and connected {:?} after its start (discovery epoch {epoch})",
        started.elapsed()
    );
    assert!(
        epoch >= 2,
        "a beacon heard and a peer connected: two changes at least"
    );
    // The peer table can show the connection a moment before its event is queued: wait for the
    // event (bounded), do not just look.
    let end = Instant::now() + Duration::from_secs(5);
    let reported = std::iter::from_fn(|| {
        b.events()
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .ok()
    })
    .any(|e| matches!(e, TransportEvent::PeerConnected { node, .. } if node == a.node_id()));
    assert!(reported, "no PeerConnected event for a");
}

#[test]
fn a_query_alone_is_answered_with_a_beacon() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let observer = Observer::new(&ports);
    let a = Transport::start(config(&ports)).expect("start a");
    // A's first beacon, at its start.
    observer
        .beacon_of(a.node_id(), Instant::now() + Duration::from_secs(10))
        .expect("a's first beacon");
    // A query from a node that sends no beacon: only the query can make A beacon now.
    let asker = NodeId(0x5011_c170);
    let asked = Instant::now();
    observer.solicit(asker);
    let (heard, _) = observer
        .beacon_of(a.node_id(), asked + PROMPT)
        .unwrap_or_else(|| panic!("no answer to the query within {PROMPT:?}"));
    eprintln!("a answered a query in {:?}", heard - asked);
    // A query makes nobody a peer.
    assert!(a.discovered().iter().all(|p| p.beacon.node != asker));
}

#[test]
fn a_storm_of_queries_costs_at_most_one_beacon_per_gap() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let gap = Duration::from_millis(50);
    let observer = Observer::new(&ports);
    let a = Transport::start(TransportConfig {
        beacon_min_gap: gap,
        // The create race's settle wait may not be shorter than the gap (TransportConfig).
        create_settle: gap,
        ..config(&ports)
    })
    .expect("start a");
    observer
        .beacon_of(a.node_id(), Instant::now() + Duration::from_secs(10))
        .expect("a's first beacon");

    // 400 queries from 400 "nodes" over about 200 ms, then 300 ms of quiet.
    let storm_start = Instant::now();
    for i in 0..400u64 {
        observer.solicit(NodeId(0xbad0_0000 + i));
        if i % 4 == 3 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let window_end = Instant::now() + Duration::from_millis(300);
    let mut answers = 0u32;
    while let Some((at, _)) = observer.beacon_of(a.node_id(), window_end) {
        assert!(at >= storm_start);
        answers += 1;
    }
    let window = window_end - storm_start;
    // One beacon may be due at the storm's start, then one per gap at most.
    let bound = (window.as_millis() / gap.as_millis()) as u32 + 1;
    eprintln!("{answers} beacons answered 400 queries in {window:?} (bound {bound})");
    assert!(answers >= 1, "the storm was not answered at all");
    assert!(
        answers <= bound,
        "{answers} beacons in {window:?}: more than one per {gap:?}"
    );
}

#[test]
fn forged_queries_are_refused_counted_and_answered_by_no_beacon() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let observer = Observer::new(&ports);
    let a = Transport::start(config(&ports)).expect("start a");
    observer
        .beacon_of(a.node_id(), Instant::now() + Duration::from_secs(10))
        .expect("a's first beacon");
    let accepted_before = a.discovery_stats().solicits;

    // 300 queries a host without the secret can send: unsealed ones (the old wire format), ones
    // sealed under another secret, and a genuine one whose node id was changed.
    let wrong = BeaconAuth::development(b"not the federation's secret");
    let genuine = Solicit {
        node: NodeId(0x600d),
    }
    .seal(&BeaconAuth::development(DEFAULT_SECRET));
    let sent = Instant::now();
    for i in 0..100u64 {
        let node = NodeId(0xf0_0000 + i);
        observer.send_raw(&Solicit { node }.encode());
        observer.send_raw(&Solicit { node }.seal(&wrong));
        let mut altered = genuine.clone();
        altered[13] ^= (i as u8) | 1;
        observer.send_raw(&altered);
    }
    // Not one answer within PROMPT (an answer takes milliseconds; the next periodic beacon is
    // INTERVAL away).
    let answer = observer.beacon_of(a.node_id(), sent + PROMPT);
    let st = a.discovery_stats();
    eprintln!(
        "300 forged queries: {} refused, {} answered, beacon heard: {}",
        st.solicits_refused,
        st.solicits - accepted_before,
        answer.is_some()
    );
    assert!(
        answer.is_none(),
        "a answered a forged query with a beacon {:?} after the first",
        answer.map(|(t, _)| t - sent)
    );
    assert_eq!(st.solicits, accepted_before, "no forged query was accepted");
    assert_eq!(st.solicits_refused, 300, "every forged query counted");

    // A genuine query is still answered at once.
    let asked = Instant::now();
    observer.send_raw(&genuine);
    observer
        .beacon_of(a.node_id(), asked + PROMPT)
        .unwrap_or_else(|| panic!("no answer to a genuine query within {PROMPT:?}"));
}
