//! Wire codec and authentication: round trips, hostile bytes, and every drop reason.

use std::time::Instant;

use bytes::Bytes;
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::wire::{self, DatagramKind, DatagramWriter, Frames};
use hlamesh_transport::data::{
    DataConfig, DataReceiver, DataSender, DropCounts, RecvEvent, Reliability, Seq, peek,
};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};
use proptest::prelude::*;

const TAG: FederationTag = FederationTag(0xfeed);
const KEY: FederationKey = FederationKey([3; 32]);
const TX: NodeId = NodeId(11);
const RX: NodeId = NodeId(22);

fn pair(cfg: DataConfig) -> (DataSender, DataReceiver) {
    let tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("config");
    let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg).expect("config");
    rx.add_sender(TX);
    (tx, rx)
}

fn send(tx: &mut DataSender, rel: Reliability, payload: &[u8]) -> Vec<Bytes> {
    let mut out = Vec::new();
    tx.send(Instant::now(), rel, payload, &mut |d: &[u8]| {
        out.push(Bytes::copy_from_slice(d))
    })
    .expect("send");
    out
}

fn deliveries(rx: &mut DataReceiver) -> Vec<(Option<Seq>, Bytes)> {
    let mut v = Vec::new();
    while let Some(ev) = rx.poll_event() {
        if let RecvEvent::Deliver { seq, payload, .. } = ev {
            v.push((seq, payload));
        }
    }
    v
}

#[test]
fn header_layout_is_as_documented() {
    let (mut tx, _) = pair(DataConfig::default());
    let d = send(&mut tx, Reliability::Reliable, b"0123456789");
    assert_eq!(d.len(), 1);
    let d = &d[0];
    assert_eq!(d.len(), wire::HEADER_LEN + 4 + 10 + wire::MAC_LEN);
    assert_eq!(d[0], wire::VERSION);
    assert_eq!(d[1], 1, "reliable kind byte");
    assert_eq!(&d[2..4], &1u16.to_le_bytes());
    assert_eq!(&d[8..16], &TAG.0.to_le_bytes());
    assert_eq!(&d[16..24], &TX.0.to_le_bytes());
    assert_eq!(&d[24..32], &1u64.to_le_bytes());
    assert_eq!(&d[32..36], &[0, 0, 10, 0]);
    assert_eq!(&d[36..46], b"0123456789");
    let h = peek(d).expect("peek");
    assert_eq!(
        (h.kind, h.tag, h.sender, h.seq, h.frames),
        (DatagramKind::Reliable, TAG, TX, 1, 1)
    );
    let auth = DatagramAuth::new(&KEY);
    assert!(auth.verify(d));
    assert_eq!(&d[d.len() - 16..], &auth.mac(&d[..d.len() - 16]));
}

/// A DDM cell message: kind byte 4, numbered from the sender's cell counter (1 here, after a
/// default-group best-effort message took best-effort number 1 and a reliable one seq 1).
#[test]
fn cell_kind_byte_and_number() {
    let (mut tx, _) = pair(DataConfig::default());
    let _ = send(&mut tx, Reliability::Reliable, b"r");
    let _ = send(&mut tx, Reliability::BestEffort, b"b");
    let mut d = Vec::new();
    tx.send_cells(Instant::now(), b"c", &mut |x: &[u8]| d.push(x.to_vec()))
        .expect("send");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0][1], 4, "cell best-effort kind byte");
    assert_eq!(&d[0][24..32], &1u64.to_le_bytes());
    let h = peek(&d[0]).expect("peek");
    assert_eq!(h.kind, DatagramKind::CellBestEffort);
    assert_eq!(Frames::validate(&d[0], &h), Ok(()));
}

#[test]
fn unfragmented_delivery_is_zero_copy() {
    let (mut tx, mut rx) = pair(DataConfig::default());
    let d = send(&mut tx, Reliability::Reliable, b"zero copy please");
    let base = d[0].as_ptr() as usize;
    rx.on_datagram(Instant::now(), d[0].clone());
    let got = deliveries(&mut rx);
    assert_eq!(got.len(), 1);
    let p = got[0].1.as_ptr() as usize;
    assert!(
        p >= base && p < base + d[0].len(),
        "payload is a slice of the datagram"
    );
}

#[test]
fn default_datagrams_fit_a_1500_byte_mtu() {
    let (mut tx, mut rx) = pair(DataConfig::default());
    let msg: Vec<u8> = (0..(1 << 20) + 17).map(|i| (i % 251) as u8).collect();
    let ds = send(&mut tx, Reliability::Reliable, &msg);
    assert!(ds.iter().all(|d| d.len() <= 1472));
    assert_eq!(
        ds.len(),
        msg.len().div_ceil(DataConfig::default().fragment_payload())
    );
    for d in ds {
        rx.on_datagram(Instant::now(), d);
    }
    let got = deliveries(&mut rx);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, msg);
    assert_eq!(got[0].0, Some(tx.high_water()));
}

#[test]
fn oversized_message_is_refused() {
    let cfg = DataConfig {
        max_message: 1000,
        ..DataConfig::default()
    };
    let (mut tx, _) = pair(cfg);
    let r = tx.send(
        Instant::now(),
        Reliability::Reliable,
        &[0; 1001],
        &mut |_: &[u8]| {},
    );
    assert!(r.is_err());
    assert_eq!(tx.high_water(), Seq(0));
}

#[test]
fn every_drop_reason_is_counted() {
    let (mut tx, mut rx) = pair(DataConfig::default());
    let now = Instant::now();
    let good = send(&mut tx, Reliability::Reliable, b"payload").remove(0);
    let mut expect = DropCounts::default();

    // Tampered byte anywhere (header, payload or MAC): bad_auth (or a header check first).
    for i in 0..good.len() {
        let mut t = good.to_vec();
        t[i] ^= 0x40;
        rx.on_datagram(now, Bytes::from(t));
        match i {
            0 => expect.bad_version += 1,
            1 => expect.malformed += 1, // kind byte 0x41 is unknown
            8..=15 => expect.wrong_federation += 1,
            _ => expect.bad_auth += 1,
        }
    }
    assert_eq!(rx.stats().dropped, expect);

    // Wrong key.
    let mut other =
        DataSender::new(TX, TAG, &FederationKey([4; 32]), DataConfig::default()).expect("cfg");
    rx.on_datagram(now, send(&mut other, Reliability::Reliable, b"x").remove(0));
    expect.bad_auth += 1;
    // Right key, not a member.
    let mut stranger = DataSender::new(NodeId(99), TAG, &KEY, DataConfig::default()).expect("cfg");
    rx.on_datagram(
        now,
        send(&mut stranger, Reliability::Reliable, b"x").remove(0),
    );
    expect.not_member += 1;
    // Our own datagram looped back.
    let mut me = DataSender::new(RX, TAG, &KEY, DataConfig::default()).expect("cfg");
    rx.on_datagram(now, send(&mut me, Reliability::Reliable, b"x").remove(0));
    expect.own += 1;
    // Truncated.
    rx.on_datagram(now, good.slice(..20));
    expect.malformed += 1;
    // Removed member.
    rx.remove_sender(TX);
    rx.on_datagram(now, good.clone());
    expect.not_member += 1;
    assert_eq!(rx.stats().dropped, expect);
    assert!(deliveries(&mut rx).is_empty());

    // Back as a member, the untampered datagram is delivered.
    rx.add_sender(TX);
    rx.on_datagram(now, good);
    assert_eq!(deliveries(&mut rx).len(), 1);
}

/// Authentic datagrams with bodies that lie about their layout are malformed, not trusted.
#[test]
fn authentic_but_malformed_bodies_are_dropped() {
    let auth = DatagramAuth::new(&KEY);
    let (_, mut rx) = pair(DataConfig::default());
    let now = Instant::now();
    let mut buf = Vec::new();
    let mut cases: Vec<Vec<u8>> = Vec::new();
    // Frame count says 2, body has 1.
    let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, 1);
    w.push_whole(b"abc");
    w.finish(&auth);
    buf[2] = 2;
    let l = buf.len() - 16;
    let mac = auth.mac(&buf[..l]);
    buf[l..].copy_from_slice(&mac);
    cases.push(buf.clone());
    // No frames at all.
    let w = DatagramWriter::begin(&mut buf, DatagramKind::BestEffort, TAG, TX, 1);
    w.finish(&auth);
    cases.push(buf.clone());
    // A fragment sharing its datagram with another frame.
    let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, 1);
    w.push_whole(b"a");
    w.push_fragment(0, 2, 0, 10, b"abcde");
    w.finish(&auth);
    cases.push(buf.clone());
    // Fragment past its message end.
    let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, 1);
    w.push_fragment(1, 2, 8, 10, b"abcde");
    w.finish(&auth);
    cases.push(buf.clone());
    // Index beyond count.
    let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, 1);
    w.push_fragment(2, 2, 0, 10, b"abcde");
    w.finish(&auth);
    cases.push(buf.clone());
    // Reliable sequence number 0, and one that overflows.
    for seq in [0, u64::MAX] {
        let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, seq);
        w.push_whole(b"a");
        w.finish(&auth);
        cases.push(buf.clone());
    }
    // Heartbeat with a short body.
    let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Heartbeat, TAG, TX, 5);
    w.push_raw(&[1, 2, 3]);
    w.finish(&auth);
    cases.push(buf.clone());
    let n = cases.len() as u64;
    for c in cases {
        rx.on_datagram(now, Bytes::from(c));
    }
    assert_eq!(rx.stats().dropped.malformed, n);
    assert!(rx.poll_event().is_none());
    assert_eq!(rx.delivered(TX), Seq(0));
}

fn arb_payloads() -> impl Strategy<Value = Vec<(bool, Vec<u8>)>> {
    proptest::collection::vec(
        (
            any::<bool>(),
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..200),
                proptest::collection::vec(any::<u8>(), 1300..5000),
            ],
        ),
        1..12,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("HLAMESH_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128)))]

    /// Whatever mix of sizes and reliabilities, sent one by one or batched, the receiver gets
    /// back exactly the payloads, with consecutive reliable numbers.
    #[test]
    fn round_trip(msgs in arb_payloads(), batched in any::<bool>(), max_datagram in 200usize..1500) {
        let cfg = DataConfig { max_datagram, ..DataConfig::default() };
        let (mut tx, mut rx) = pair(cfg);
        let now = Instant::now();
        let mut wire_out = Vec::new();
        let mut sink = |d: &[u8]| wire_out.push(Bytes::copy_from_slice(d));
        let mut seqs = Vec::new();
        for (reliable, p) in &msgs {
            let rel = if *reliable { Reliability::Reliable } else { Reliability::BestEffort };
            let s = if batched {
                tx.push(now, rel, p, &mut sink).expect("push")
            } else {
                tx.send(now, rel, p, &mut sink).expect("send")
            };
            prop_assert_eq!(s.is_some(), *reliable);
            seqs.push(s);
        }
        tx.flush(now, &mut sink);
        prop_assert_eq!(tx.pending_bytes(), 0);
        for d in &wire_out {
            prop_assert!(d.len() <= max_datagram);
            rx.on_datagram(now, d.clone());
        }
        let got = deliveries(&mut rx);
        // Reliable ones in order; best-effort ones all present (order across kinds may differ
        // with batching, since a kind switch flushes).
        let sent_rel: Vec<_> = msgs.iter().zip(&seqs).filter(|((r, _), _)| *r)
            .map(|((_, p), s)| (*s, p.clone())).collect();
        let got_rel: Vec<_> = got.iter().filter(|(s, _)| s.is_some())
            .map(|(s, p)| (*s, p.to_vec())).collect();
        prop_assert_eq!(sent_rel, got_rel);
        let mut sent_be: Vec<_> = msgs.iter().filter(|(r, _)| !*r).map(|(_, p)| p.clone()).collect();
        let mut got_be: Vec<_> = got.iter().filter(|(s, _)| s.is_none()).map(|(_, p)| p.to_vec()).collect();
        sent_be.sort();
        got_be.sort();
        prop_assert_eq!(sent_be, got_be);
        prop_assert_eq!(rx.stats().dropped, DropCounts::default());
    }

    /// Random bytes never panic and are always dropped with a reason.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let (_, mut rx) = pair(DataConfig::default());
        let _ = peek(&bytes);
        if let Ok(h) = peek(&bytes) {
            let b = Bytes::from(bytes.clone());
            if Frames::validate(&b, &h).is_ok() {
                for f in Frames::new(b, &h) {
                    prop_assert!(f.is_ok());
                }
            }
        }
        rx.on_datagram(Instant::now(), Bytes::from(bytes));
        let d = rx.stats().dropped;
        prop_assert_eq!(d.malformed + d.bad_version + d.wrong_federation + d.bad_auth, 1);
        prop_assert!(rx.poll_event().is_none());
    }

    /// Random bodies under a *valid* header and MAC (the worst case: an insider with the key)
    /// never panic, and never allocate more than the configured bounds.
    #[test]
    fn authentic_random_bodies_never_panic(
        kind in 1u8..=4, frames in any::<u16>(), seq in any::<u64>(),
        body in proptest::collection::vec(any::<u8>(), 0..1500),
    ) {
        let auth = DatagramAuth::new(&KEY);
        let mut d = Vec::new();
        d.push(wire::VERSION);
        d.push(kind);
        d.extend_from_slice(&frames.to_le_bytes());
        d.extend_from_slice(&[0; 4]);
        d.extend_from_slice(&TAG.0.to_le_bytes());
        d.extend_from_slice(&TX.0.to_le_bytes());
        d.extend_from_slice(&seq.to_le_bytes());
        d.extend_from_slice(&body);
        let mac = auth.mac(&d);
        d.extend_from_slice(&mac);
        let cfg = DataConfig { reassembly_capacity_bytes: 1 << 20, max_message: 1 << 20, ..DataConfig::default() };
        let (_, mut rx) = pair(cfg);
        rx.on_datagram(Instant::now(), Bytes::from(d));
        while rx.poll_event().is_some() {}
        prop_assert!(rx.memory_bytes() <= (2 << 20));
    }
}

/// An insider (right key) sending numbers near u64::MAX cannot make the receiver overflow.
#[test]
fn extreme_sequence_numbers_from_an_insider_do_not_panic() {
    let auth = DatagramAuth::new(&KEY);
    let (_, mut rx) = pair(DataConfig::default());
    let now = Instant::now();
    let mut buf = Vec::new();
    let mut feed = |kind, seq, frag: Option<(u32, u32)>, rx: &mut DataReceiver| {
        let mut w = DatagramWriter::begin(&mut buf, kind, TAG, TX, seq);
        match frag {
            Some((index, count)) => w.push_fragment(index, count, 0, 100, b"abc"),
            None => w.push_whole(b"abc"),
        }
        w.finish(&auth);
        rx.on_datagram(now, Bytes::copy_from_slice(&buf));
    };
    rx.start_sender_at(TX, Seq(u64::MAX - 2));
    feed(DatagramKind::Reliable, u64::MAX - 2, Some((0, 5)), &mut rx);
    feed(
        DatagramKind::Reliable,
        u64::MAX - 1,
        Some((u32::MAX - 1, u32::MAX)),
        &mut rx,
    );
    feed(DatagramKind::Reliable, u64::MAX, None, &mut rx);
    feed(DatagramKind::BestEffort, 1, None, &mut rx);
    feed(DatagramKind::BestEffort, u64::MAX, None, &mut rx);
    feed(DatagramKind::BestEffort, u64::MAX, Some((7, 9)), &mut rx);
    rx.on_timeout(now + std::time::Duration::from_secs(10));
    let s = rx.stats();
    assert_eq!(s.inconsistent_messages, 1, "{s:?}");
    assert_eq!(s.dropped.malformed, 1, "seq MAX + 1 frame overflows: {s:?}");
    assert_eq!(s.delivered_best_effort, 2, "{s:?}");
    assert_eq!(rx.delivered(TX), Seq(u64::MAX - 1));
}
