//! Criterion micro-benchmarks of the hot pieces under an update and a grant: the wire form of an
//! attribute update, datagram authentication, one message through the sans-I/O data plane
//! (fragmentation and reassembly at 8 KiB), the data thread's receive buffer, GALT with 64 regulating peers, the TSO queue, the
//! engine's data-reconstruction queue (a frame's reflections pushed by the HLA thread, swapped
//! out by the engine thread), and loading the RPR FOM set. `cargo bench -p hlamesh-benches --bench micro` (not built by
//! `cargo test`). FOMs come from `$HLAMESH_FOM_DIR` or the repository's `foms/`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hlamesh_lrc::core::wire::DataMsg;
use hlamesh_lrc::fom::{Fdd, FomModule};
use hlamesh_lrc::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};
use hlamesh_timesync::tso_queue::TsoQueue;
use hlamesh_timesync::*;
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::{DataConfig, DataReceiver, DataSender, RecvEvent, Reliability};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

fn update(payload: usize, time: bool) -> DataMsg {
    DataMsg::Update {
        object: ObjectInstanceHandle(42),
        producer: FederateHandle(3),
        values: vec![(AttributeHandle(7), vec![0x5a; payload])],
        tag: Vec::new(),
        time: time.then(|| HLAfloat64Time::new(12.5).expect("time").encode().to_vec()),
        tso: time,
        versions: vec![0],
        retraction: time.then_some(1),
        after: 0,
        regions: None,
    }
}

fn bench_wire(c: &mut Criterion) {
    let mut g = c.benchmark_group("wire");
    for (size, time) in [(100, false), (100, true), (1024, false), (8192, false)] {
        let m = update(size, time);
        let bytes = m.encode();
        let name = format!("{size}B{}", if time { "_timestamped" } else { "" });
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("encode_update_{name}"), |b| {
            b.iter(|| black_box(&m).encode())
        });
        g.bench_function(format!("decode_update_{name}"), |b| {
            b.iter(|| DataMsg::decode(black_box(&bytes)).expect("decodes"))
        });
    }
    g.finish();
}

fn bench_auth(c: &mut Criterion) {
    let auth = DatagramAuth::new(&FederationKey([7; 32]));
    let mut g = c.benchmark_group("datagram_auth");
    for len in [128usize, 1472] {
        let body = vec![0xa5u8; len - 16];
        let mut dgram = body.clone();
        dgram.extend_from_slice(&auth.mac(&body));
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(format!("mac_{len}B"), |b| {
            b.iter(|| auth.mac(black_box(&body)))
        });
        g.bench_function(format!("verify_{len}B"), |b| {
            b.iter(|| assert!(auth.verify(black_box(&dgram))))
        });
    }
    g.finish();
}

/// One reliable message through the sans-I/O data plane: the sender fragments and signs it, the
/// receiver verifies, orders and (for 8 KiB: six fragments) reassembles it.
fn bench_data_plane(c: &mut Criterion) {
    let key = FederationKey([9; 32]);
    let tag = FederationTag::from_name("bench");
    let mut tx = DataSender::new(NodeId(1), tag, &key, DataConfig::default()).expect("sender");
    let mut rx = DataReceiver::new(NodeId(2), tag, &key, DataConfig::default()).expect("receiver");
    rx.add_sender(NodeId(1));
    let mut g = c.benchmark_group("data_plane");
    for size in [100usize, 8192] {
        let payload = vec![0x3cu8; size];
        let mut dgrams: Vec<bytes::Bytes> = Vec::new();
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("send_receive_reliable_{size}B"), |b| {
            b.iter(|| {
                let now = std::time::Instant::now();
                dgrams.clear();
                tx.send(now, Reliability::Reliable, &payload, &mut |d: &[u8]| {
                    dgrams.push(bytes::Bytes::copy_from_slice(d))
                })
                .expect("send");
                for d in dgrams.drain(..) {
                    rx.on_datagram(now, d);
                }
                let mut delivered = 0;
                while let Some(ev) = rx.poll_event() {
                    if let RecvEvent::Deliver { payload, .. } = ev {
                        delivered += payload.len();
                    }
                }
                assert_eq!(delivered, size, "one whole message delivered");
            })
        });
    }
    g.finish();
}

/// The data thread's receive buffer per datagram, the kernel's copy simulated by a `memcpy` of
/// the datagram: zero-filling a 64 KiB `BytesMut` before each receive (the old way, kept here as
/// the baseline) against `RecvBuffer` (a scratch buffer zeroed once, the received bytes copied
/// into an arena).
fn bench_recv_buffer(c: &mut Criterion) {
    use bytes::BytesMut;
    use hlamesh_transport::recv_buf::RecvBuffer;
    let mut g = c.benchmark_group("recv_buffer");
    for size in [100usize, 1472] {
        let src = vec![0x11u8; size];
        g.throughput(Throughput::Bytes(size as u64));
        let mut buf = BytesMut::with_capacity(256 << 10);
        g.bench_function(format!("zero_fill_64k_then_split_{size}B"), |b| {
            b.iter(|| {
                if buf.capacity() < 65_536 {
                    buf = BytesMut::with_capacity(256 << 10);
                }
                buf.resize(65_536, 0);
                buf[..size].copy_from_slice(black_box(&src));
                buf.truncate(size);
                black_box(buf.split().freeze())
            })
        });
        let mut rb = RecvBuffer::new();
        g.bench_function(format!("scratch_then_copy_{size}B"), |b| {
            b.iter(|| {
                let (d, ()) = rb
                    .recv_with(|s| {
                        s[..size].copy_from_slice(black_box(&src));
                        Ok::<_, ()>((size, ()))
                    })
                    .expect("recv");
                black_box(d)
            })
        });
    }
    g.finish();
}

type T = HLAinteger64Time;

/// A constrained member in NER with 64 regulating peers whose promises are applied, so a new
/// promise makes the manager recompute GALT over every peer.
fn galt_manager(n: u64) -> (TimeManager<T, u64>, Vec<Promise<T>>) {
    let peers: Vec<(MemberId, Seq)> = (1..=n).map(|i| (MemberId(i), Seq(0))).collect();
    let mut tm: TimeManager<T, u64> = TimeManager::new(MemberId(0), ViewNumber(1), peers);
    let everyone: Vec<(MemberId, Seq)> = (0..=n).map(|i| (MemberId(i), Seq(1))).collect();
    let promise = |i: u64, upto: i64| Promise {
        bounds: Some((
            Bound::incl(HLAinteger64Time(1)),
            Bound::incl(HLAinteger64Time(upto)),
        )),
        hw: Seq(1),
        recv: everyone.iter().copied().filter(|(m, _)| m.0 != i).collect(),
        view: ViewNumber(1),
    };
    for i in 1..=n {
        tm.on_data(
            MemberId(i),
            Seq(1),
            Incoming::Tso {
                time: HLAinteger64Time(10_000),
                payload: i,
            },
        );
        tm.on_message(MemberId(i), TimeMessage::Promise(promise(i, 100)));
    }
    tm.enable_time_constrained().expect("constrained");
    tm.next_message_request(HLAinteger64Time(50_000))
        .expect("NER");
    while tm.poll_action().is_some() {}
    let promises = (1..=n).map(|i| promise(i, 100)).collect();
    (tm, promises)
}

fn bench_galt(c: &mut Criterion) {
    let (mut tm, promises) = galt_manager(64);
    assert!(tm.galt().is_some(), "GALT defined with 64 regulating peers");
    let mut k = 0usize;
    c.bench_function("galt/promise_then_galt_64_peers", |b| {
        b.iter(|| {
            let i = k % promises.len();
            k += 1;
            tm.on_message(
                MemberId(i as u64 + 1),
                TimeMessage::Promise(promises[i].clone()),
            );
            while let Some(a) = tm.poll_action() {
                black_box(a);
            }
            black_box(tm.galt())
        })
    });
}

fn bench_tso(c: &mut Criterion) {
    let mut g = c.benchmark_group("tso_queue");
    for depth in [16u64, 4096] {
        g.bench_function(format!("64_push_pop_at_depth_{depth}"), |b| {
            b.iter_batched_ref(
                || {
                    let mut q: TsoQueue<T, u64> = TsoQueue::new();
                    for i in 0..depth {
                        q.push(
                            HLAinteger64Time((i * 7919 % depth) as i64),
                            MemberId(i % 8),
                            i,
                        );
                    }
                    q
                },
                |q| {
                    for i in 0..64u64 {
                        q.push(HLAinteger64Time((i * 31 % 97) as i64), MemberId(i % 8), i);
                        black_box(q.pop_if(|_| true));
                    }
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

fn fom_dir() -> PathBuf {
    std::env::var("HLAMESH_FOM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../foms"))
}

fn bench_fom(c: &mut Criterion) {
    let texts: Vec<(String, String)> = [
        "RPR-Foundation_v2.0.xml",
        "RPR-Enumerations_v2.0.xml",
        "RPR-Base_v2.0.xml",
    ]
    .iter()
    .filter_map(|f| {
        Some((
            f.to_string(),
            std::fs::read_to_string(fom_dir().join(f)).ok()?,
        ))
    })
    .collect();
    if texts.len() < 3 {
        eprintln!(
            "fom/load_rpr: skipped, RPR FOMs not found in {}",
            fom_dir().display()
        );
        return;
    }
    let mut g = c.benchmark_group("fom");
    g.sample_size(20);
    g.bench_function("load_rpr_set", |b| {
        b.iter(|| {
            let modules: Vec<FomModule> = texts
                .iter()
                .map(|(n, t)| FomModule::parse(n, t).expect("parses"))
                .collect();
            Fdd::load(&modules).expect("merges")
        })
    });
    g.finish();
}

/// One frame's worth of reflections (100 instances) pushed into the HLA queue, then swapped into
/// the engine's queue at the end of the frame: the per-frame cost of the reconstruction layer.
fn bench_reconstruction_swap(c: &mut Criterion) {
    use hlamesh_engine::reconstruction::{HlaEvent, HlaQueue};
    use std::collections::VecDeque;
    let mut g = c.benchmark_group("reconstruction");
    g.throughput(Throughput::Elements(100));
    g.bench_function("push 100 reflections + swap", |b| {
        let q = HlaQueue::new(4096);
        let mut into = VecDeque::with_capacity(4096);
        let now = std::time::Instant::now();
        b.iter(|| {
            for i in 0..100u32 {
                q.push(HlaEvent::Reflected {
                    object: ObjectInstanceHandle(u64::from(i)),
                    values: vec![(AttributeHandle(1), vec![0x5a; 24])],
                    tag: Vec::new(),
                    time: None,
                    producer: FederateHandle(2),
                    received: now,
                });
            }
            q.swap(&mut into);
            black_box(into.len());
            into.clear();
        })
    });
    g.finish();
}

criterion_group!(
    micro,
    bench_reconstruction_swap,
    bench_wire,
    bench_auth,
    bench_data_plane,
    bench_recv_buffer,
    bench_galt,
    bench_tso,
    bench_fom
);
criterion_main!(micro);
