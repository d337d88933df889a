//! A peer that completes the TLS handshake but has not proven anything yet (its `Hello` is not
//! checked) cannot make a node reserve memory by claiming a large control frame: over a real QUIC
//! connection, a length prefix of 32 MiB (the post-handshake limit) as the first frame is refused
//! at once — the connection is closed as refused, long before the handshake timeout, and counted
//! in `oversize_frames` — and the node goes on accepting real peers.
//!
//! Before the fix the node allocated the 32 MiB the prefix claimed and waited (up to the 3 s
//! handshake timeout) for bytes that never came.

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hlamesh_transport::discovery::Beacon;
use hlamesh_transport::frame::MAX_FRAME;
use hlamesh_transport::frame_reader::MAX_HELLO_FRAME;
use hlamesh_transport::security::{SERVER_NAME, Security};
use hlamesh_transport::{
    NodeId, SecurityConfig, Transport, TransportConfig, TransportEvent, sockets,
};

/// Well under the node's 3 s handshake timeout: a refusal must come at once, not by timing out.
const PROMPT: Duration = Duration::from_secs(1);

fn config(ports: &common::Ports) -> TransportConfig {
    TransportConfig {
        discovery_port: ports.discovery,
        data_port: ports.data,
        discovery_group: ports.group,
        ..TransportConfig::default()
    }
}

/// The QUIC address and certificate fingerprint `node` announces in its beacons.
fn announced(ports: &common::Ports, node: NodeId) -> (SocketAddr, [u8; 32]) {
    let recv = sockets::multicast_receiver(ports.discovery, Some(Duration::from_millis(50)))
        .expect("observer socket");
    sockets::join(&recv, ports.group, Ipv4Addr::LOCALHOST).expect("join discovery group");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut buf = vec![0u8; 65_536];
    while Instant::now() < deadline {
        let Ok((n, _)) = recv.recv_from(&mut buf) else {
            continue;
        };
        if let Ok(b) = Beacon::decode_unverified(&buf[..n])
            && b.node == node
        {
            return (b.quic_addrs[0], b.cert_fingerprint);
        }
    }
    panic!("no beacon of {node} within 10 s");
}

#[test]
fn a_huge_length_prefix_before_hello_is_refused_at_once_and_counted() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let a = Transport::start(config(&ports)).expect("start a");
    // Our own `Transport::start` answers the observer's query: at most a beacon period.
    a.announce_now();
    let (addr, fingerprint) = announced(&ports, a.node_id());

    // A client that completes TLS (development mode pins the server's fingerprint and sends
    // no client certificate) but knows no secret: the server cannot tell it from a member
    // until its Hello.
    let stranger = Security::from_config(
        &SecurityConfig::Development {
            secret: "not the federation's".into(),
            allow_non_loopback: false,
        },
        Ipv4Addr::LOCALHOST,
    )
    .expect("client identity");
    let client = stranger
        .client_config(fingerprint, Duration::from_secs(1), Duration::from_secs(10))
        .expect("client config");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (closed_after, reason) = rt.block_on(async {
        let ep = quinn::Endpoint::client(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
            .expect("client endpoint");
        let conn = ep
            .connect_with(client, addr, SERVER_NAME)
            .expect("connect")
            .await
            .expect("TLS handshake with the node");
        let (mut send, _recv) = conn.open_bi().await.expect("open stream");
        // The largest frame an authenticated peer may send, as the first frame, and then a
        // little of its body (a stream is only seen by the acceptor once it carries data).
        send.write_all(&(MAX_FRAME as u32).to_be_bytes())
            .await
            .expect("write prefix");
        send.write_all(&[0u8; 1000]).await.expect("write body");
        let sent = Instant::now();
        let reason = tokio::time::timeout(Duration::from_secs(10), conn.closed())
            .await
            .expect("the node closes the connection (it did not within 10 s)");
        (sent.elapsed(), reason)
    });
    eprintln!("closed {closed_after:?} after the prefix: {reason}");
    assert!(
        matches!(&reason, quinn::ConnectionError::ApplicationClosed(c)
            if c.error_code == quinn::VarInt::from_u32(1)),
        "closed as refused, got {reason}"
    );
    assert!(
        closed_after < PROMPT,
        "refused after {closed_after:?}: the node waited for the frame instead of refusing it \
         at the prefix (limit before Hello: {MAX_HELLO_FRAME} bytes)"
    );
    let stats = a.stats();
    assert_eq!(stats.oversize_frames.load(Ordering::Relaxed), 1);
    assert_eq!(stats.refused.load(Ordering::Relaxed), 1);

    // The node still accepts a real peer.
    let b = Transport::start(config(&ports)).expect("start b");
    let end = Instant::now() + Duration::from_secs(10);
    let connected = std::iter::from_fn(|| {
        a.events()
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .ok()
    })
    .any(|e| matches!(e, TransportEvent::PeerConnected { node, .. } if node == b.node_id()));
    assert!(connected, "b never connected to a");
}
