//! `/metrics` end to end: two in-process transports on loopback, the first serving metrics on a
//! free port and the second naming the same address (one endpoint per process, no failure).
//! Messages flow both ways between two scrapes; the scrapes parse strictly as the Prometheus text
//! format, every family is described, and the counters moved by exactly what was sent.

#[path = "metrics_support/mod.rs"]
mod support;

use hlamesh_transport::data::Reliability;
use hlamesh_transport::metrics::{FAMILIES, names};
use support::{FEDERATION, await_data, get, get_raw, pair, parse};

#[test]
fn scrape_parses_and_counters_follow_the_traffic() {
    let p = pair(0, Some("127.0.0.1:0".parse().expect("addr")), None);
    let addr = p.a.metrics_addr().expect("a serves metrics");
    assert_ne!(addr.port(), 0, "the bound port is reported");
    assert_eq!(
        p.b.metrics_addr(),
        None,
        "metrics stay off unless configured"
    );
    // A third transport of the same process asking for the same address shares the endpoint.
    let c = hlamesh_transport::Transport::start(hlamesh_transport::TransportConfig {
        metrics_addr: Some(addr),
        ..support::config(0)
    })
    .expect("a second recorder install does not fail the transport");
    assert_eq!(c.metrics_addr(), Some(addr));
    drop(c);

    let (status, body) = get(addr, "/metrics");
    assert!(status.contains("200"), "{status}");
    let before = parse(&body);
    for fam in FAMILIES {
        assert!(before.types.contains_key(*fam), "# TYPE of {fam} missing");
        assert!(before.helps.contains(*fam), "# HELP of {fam} missing");
    }

    let (ida, idb) = (p.a.node_id(), p.b.node_id());
    let payload = vec![7u8; 100];
    for _ in 0..50 {
        p.fa.send(Reliability::Reliable, &payload).expect("send");
    }
    for _ in 0..20 {
        p.fa.send(Reliability::BestEffort, &payload).expect("send");
    }
    for _ in 0..30 {
        p.fb.send(Reliability::Reliable, &payload).expect("send");
    }
    // A big one: fragments.
    p.fa.send(Reliability::Reliable, &vec![1u8; 10_000])
        .expect("send");
    await_data(&p.b, ida, 51);
    await_data(&p.a, idb, 30);

    let (_, body) = get(addr, "/metrics");
    let after = parse(&body);
    let fed = ("federation", FEDERATION);
    let delta = |name: &str, labels: &[(&str, &str)]| {
        after
            .get(name, labels)
            .unwrap_or_else(|| panic!("{name} {labels:?} missing"))
            - before.get(name, labels).unwrap_or(0.0)
    };
    // Both transports of this process export into the same series: their counts add up.
    assert_eq!(
        delta(names::MESSAGES_SENT, &[fed, ("kind", "reliable")]),
        81.0
    );
    assert_eq!(
        delta(names::MESSAGES_SENT, &[fed, ("kind", "best_effort")]),
        20.0
    );
    assert_eq!(
        delta(names::MESSAGES_DELIVERED, &[fed, ("kind", "reliable")]),
        81.0
    );
    let be = delta(names::MESSAGES_DELIVERED, &[fed, ("kind", "best_effort")]);
    assert!((0.0..=20.0).contains(&be), "{be}");
    let dgrams = delta(names::MULTICAST_DATAGRAMS_SENT, &[fed]);
    assert!(
        dgrams >= 8.0,
        "10 kB take at least 7 datagrams, plus others: {dgrams}"
    );
    let bytes = delta(names::MULTICAST_BYTES_SENT, &[fed]);
    assert!(bytes >= 10_000.0 + 100.0 * 100.0, "{bytes}");
    // Each node reads the peer's datagrams; its own never reach its socket (the kernel filter
    // of `sockets::drop_own_datagrams`), so none is read back and discarded.
    let read = after.sum(names::MULTICAST_DATAGRAMS_RECEIVED)
        - before.sum(names::MULTICAST_DATAGRAMS_RECEIVED);
    assert!(read >= dgrams, "{read} < {dgrams}");
    assert!(
        after.sum(names::MULTICAST_BYTES_RECEIVED) - before.sum(names::MULTICAST_BYTES_RECEIVED)
            >= bytes
    );
    // No cells here: every datagram of the federation came in on its default group.
    let by_default = delta(
        names::DATAGRAMS_RECEIVED_BY_GROUP,
        &[fed, ("group", "default")],
    );
    assert!(by_default >= dgrams, "{by_default} < {dgrams}");
    assert_eq!(
        delta(
            names::DATAGRAMS_RECEIVED_BY_GROUP,
            &[fed, ("group", "other")]
        ),
        0.0
    );
    assert_eq!(
        delta(names::DATAGRAMS_DROPPED, &[fed, ("reason", "own")]),
        0.0,
        "own datagrams were read back"
    );
    assert_eq!(
        delta(names::DATAGRAMS_DROPPED, &[fed, ("reason", "bad_auth")]),
        0.0
    );
    assert!(
        delta(names::CONTROL_FRAMES_RECEIVED, &[("kind", "heartbeat")]) >= 0.0,
        "present"
    );
    assert!(
        after.sum(names::CONTROL_FRAMES_RECEIVED) >= 4.0,
        "handshake-time frames"
    );
    // Gauges: both transports have one peer each; the third one took its share back.
    assert_eq!(after.get(names::PEERS_CONNECTED, &[]), Some(2.0));
    for id in [ida, idb] {
        let peer = id.to_string();
        let rtt = after
            .get(names::QUIC_RTT, &[("peer", &peer)])
            .unwrap_or_else(|| panic!("rtt of {peer}"));
        assert!(rtt > 0.0 && rtt < 1.0, "{rtt}");
        assert!(
            after
                .get(names::QUIC_LOST_PACKETS, &[("peer", &peer)])
                .is_some()
        );
    }
    assert!(after.get(names::EVENT_QUEUE_DEPTH, &[]).is_some());
    // Every label is one of the bounded ones.
    for (_, labels) in after.samples.keys() {
        for k in labels.keys() {
            assert!(
                ["federation", "reason", "peer", "kind", "outcome", "group"].contains(&k.as_str()),
                "unexpected label {k}"
            );
        }
    }

    // Clean leave of b: a counts it, and the peer gauge follows.
    p.b.shutdown();
    support::wait_for(
        &p.a,
        "b leaves",
        |e| matches!(e, hlamesh_transport::TransportEvent::PeerLeft { node } if *node == idb),
    );
    let (_, body) = get(addr, "/metrics");
    let gone = parse(&body);
    assert_eq!(
        gone.get(names::PEERS_LEFT, &[]).unwrap_or(0.0)
            - before.get(names::PEERS_LEFT, &[]).unwrap_or(0.0),
        1.0
    );
    assert_eq!(gone.get(names::PEERS_CONNECTED, &[]), Some(0.0));

    // Other paths and methods are answered, not served.
    assert!(get(addr, "/").0.contains("404"));
    assert!(
        get_raw(addr, "POST /metrics HTTP/1.1\r\n\r\n")
            .0
            .contains("405")
    );
}
