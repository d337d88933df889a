//! Cost of the metrics recording the shell does on the data hot path: per message sent, one
//! relaxed atomic add into the federation's [`SendCounters`]; per datagram read, one into
//! [`ShellCounters`]. Measured alone against an empty baseline, and inside a full 100-byte
//! reliable send + receive through `DataSender`/`DataReceiver` with and without the recording
//! (the ratio of the two is the overhead; the two run interleaved so machine load hits both). Also the per-scrape cost of turning one transport's
//! totals into Prometheus series ([`Exporter::export`]), which nobody pays between scrapes.
//!
//! Run: `cargo bench -p hlamesh-transport --bench metrics_overhead`

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use hlamesh_transport::data::{DataConfig, DataReceiver, DataSender, Reliability};
use hlamesh_transport::metrics::{
    self, Exporter, FederationSample, PeerSample, SendCounters, ShellCounters, TransportSample,
};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

const TAG: FederationTag = FederationTag(0xabc);
const KEY: FederationKey = FederationKey([7; 32]);
const TX: NodeId = NodeId(1);
const RX: NodeId = NodeId(2);

fn recording_alone(c: &mut Criterion) {
    let sent = SendCounters::default();
    let shell = ShellCounters::default();
    let mut g = c.benchmark_group("metrics_record");
    g.bench_function("empty_baseline", |b| {
        b.iter(|| {
            black_box(&sent);
            black_box(&shell);
        })
    });
    g.bench_function("send_and_datagram_in", |b| {
        b.iter(|| {
            black_box(&sent).sent(black_box(Reliability::Reliable));
            black_box(&shell).datagram_in(black_box(152));
        })
    });
    g.finish();
}

/// One reliable 100-byte message sent and received; `record` adds the shell's hot-path counts.
fn round(
    tx: &mut DataSender,
    rx: &mut DataReceiver,
    payload: &[u8],
    now: Instant,
    record: Option<(&SendCounters, &ShellCounters)>,
) {
    let mut dgram = Bytes::new();
    tx.send(now, Reliability::Reliable, payload, &mut |d: &[u8]| {
        dgram = Bytes::copy_from_slice(d)
    })
    .expect("send");
    if let Some((sent, _)) = record {
        sent.sent(Reliability::Reliable);
    }
    if let Some((_, shell)) = record {
        shell.datagram_in(dgram.len());
    }
    rx.on_datagram(now, dgram);
    while let Some(ev) = rx.poll_event() {
        black_box(ev);
    }
}

/// Both variants run interleaved in chunks (only one of them timed per benchmark), so that load
/// from other work on a shared machine hits both alike.
fn send_receive(c: &mut Criterion) {
    const CHUNK: u64 = 256;
    let payload: Vec<u8> = (0..100u8).collect();
    let cfg = DataConfig::default();
    let now = Instant::now();
    let sent = SendCounters::default();
    let shell = ShellCounters::default();
    let mut g = c.benchmark_group("metrics_send_receive_100B");
    for recorded in [false, true] {
        let name = if recorded { "recorded" } else { "plain" };
        g.bench_function(name, |b| {
            let new = || {
                let tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
                let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg.clone()).expect("cfg");
                rx.add_sender(TX);
                (tx, rx)
            };
            let (mut tx, mut rx) = new();
            let (mut otx, mut orx) = new();
            let rec = Some((&sent, &shell));
            let (mine, other) = if recorded { (rec, None) } else { (None, rec) };
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let n = left.min(CHUNK);
                    let start = Instant::now();
                    for _ in 0..n {
                        round(&mut tx, &mut rx, black_box(&payload), now, mine);
                    }
                    timed += start.elapsed();
                    for _ in 0..n {
                        round(&mut otx, &mut orx, black_box(&payload), now, other);
                    }
                    left -= n;
                }
                timed
            })
        });
    }
    g.finish();
}

fn scrape_export(c: &mut Criterion) {
    metrics::install().expect("recorder");
    let mut g = c.benchmark_group("metrics_collect");
    g.bench_function("export_1_federation_3_peers", |b| {
        let mut exporter = Exporter::default();
        let mut n = 0u64;
        b.iter(|| {
            n += 1;
            let mut s = TransportSample {
                datagrams_in: n,
                peers: (0..3)
                    .map(|i| PeerSample {
                        node: NodeId(i),
                        rtt: Duration::from_micros(200),
                        lost_packets: n,
                    })
                    .collect(),
                ..Default::default()
            };
            let mut f = FederationSample {
                name: "Bench".into(),
                ..Default::default()
            };
            f.send.datagrams = n;
            f.recv.delivered_reliable = n;
            s.federations.push(f);
            exporter.export(black_box(s));
        })
    });
    g.finish();
}

criterion_group!(benches, recording_alone, send_receive, scrape_export);
criterion_main!(benches);
