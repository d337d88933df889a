//! Data-plane micro-benchmarks: wire encode/decode of a 100-byte update datagram, datagram
//! authentication, the full send and receive paths, and receiving a 64 KiB fragmented message.
//!
//! Run: `cargo bench -p hlamesh-transport --bench data_wire`

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::wire::{DatagramKind, DatagramWriter, Frames};
use hlamesh_transport::data::{DataConfig, DataReceiver, DataSender, Reliability, peek};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

const TAG: FederationTag = FederationTag(0xabc);
const KEY: FederationKey = FederationKey([7; 32]);
const TX: NodeId = NodeId(1);
const RX: NodeId = NodeId(2);

fn update() -> Vec<u8> {
    (0..100u8).collect()
}

fn wire(c: &mut Criterion) {
    let payload = update();
    let auth = DatagramAuth::new(&KEY);
    let mut buf = Vec::with_capacity(1500);
    let mut g = c.benchmark_group("wire_100B");
    g.bench_function("encode_no_mac", |b| {
        let mut seq = 0u64;
        b.iter(|| {
            seq += 1;
            let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, seq);
            w.push_whole(black_box(&payload));
            black_box(w.len());
        })
    });
    let mut w = DatagramWriter::begin(&mut buf, DatagramKind::Reliable, TAG, TX, 1);
    w.push_whole(&payload);
    w.finish(&auth);
    let datagram = Bytes::copy_from_slice(&buf);
    g.bench_function("decode_no_mac", |b| {
        b.iter(|| {
            let d = black_box(&datagram);
            let h = peek(d).expect("header");
            Frames::validate(d, &h).expect("body");
            for f in Frames::new(d.clone(), &h) {
                black_box(f.expect("frame").payload);
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("auth");
    g.throughput(Throughput::Bytes(datagram.len() as u64));
    g.bench_function("mac_152B", |b| {
        b.iter(|| black_box(auth.mac(black_box(&datagram[..datagram.len() - 16]))))
    });
    g.bench_function("verify_152B", |b| {
        b.iter(|| assert!(auth.verify(black_box(&datagram))))
    });
    let full = vec![0x5au8; 1472];
    g.throughput(Throughput::Bytes(1472));
    g.bench_function("mac_1472B", |b| {
        b.iter(|| black_box(auth.mac(black_box(&full[..1456]))))
    });
    g.finish();
}

fn paths(c: &mut Criterion) {
    let payload = update();
    let cfg = DataConfig::default();
    let now = Instant::now();
    let mut g = c.benchmark_group("path_100B");
    for rel in [Reliability::BestEffort, Reliability::Reliable] {
        let name = format!("send_{rel:?}");
        g.bench_function(&name, |b| {
            let mut tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
            let mut sink = |d: &[u8]| {
                black_box(d.len());
            };
            b.iter(|| {
                tx.send(now, rel, black_box(&payload), &mut sink)
                    .expect("send")
            })
        });
    }
    g.bench_function("push_batched_reliable", |b| {
        let mut tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
        let mut sink = |d: &[u8]| {
            black_box(d.len());
        };
        b.iter(|| {
            tx.push(now, Reliability::Reliable, black_box(&payload), &mut sink)
                .expect("push")
        })
    });
    g.bench_function("receive_reliable", |b| {
        b.iter_custom(|iters| {
            let mut tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
            let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg.clone()).expect("cfg");
            rx.add_sender(TX);
            let mut ds = Vec::with_capacity(iters as usize);
            for _ in 0..iters {
                tx.send(now, Reliability::Reliable, &payload, &mut |d: &[u8]| {
                    ds.push(Bytes::copy_from_slice(d))
                })
                .expect("send");
            }
            let start = Instant::now();
            for d in ds {
                rx.on_datagram(now, d);
                black_box(rx.poll_event());
            }
            start.elapsed()
        })
    });
    g.finish();
}

fn reassembly(c: &mut Criterion) {
    let msg: Vec<u8> = (0..64 << 10).map(|i: u32| (i % 251) as u8).collect();
    let cfg = DataConfig::default();
    let now = Instant::now();
    let mut g = c.benchmark_group("reassembly_64KiB");
    g.throughput(Throughput::Bytes(msg.len() as u64));
    for (rel, reverse) in [
        (Reliability::Reliable, false),
        (Reliability::BestEffort, false),
        (Reliability::BestEffort, true),
    ] {
        let name = format!("{rel:?}{}", if reverse { "_reverse_order" } else { "" });
        g.bench_function(&name, |b| {
            b.iter_custom(|iters| {
                let mut tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
                let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg.clone()).expect("cfg");
                rx.add_sender(TX);
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut ds = Vec::with_capacity(48);
                    tx.send(now, rel, &msg, &mut |d: &[u8]| {
                        ds.push(Bytes::copy_from_slice(d))
                    })
                    .expect("send");
                    if reverse {
                        ds.reverse();
                    }
                    let start = Instant::now();
                    for d in ds {
                        rx.on_datagram(now, d);
                    }
                    let got = rx.poll_event();
                    total += start.elapsed();
                    assert!(got.is_some());
                }
                total
            })
        });
    }
    g.bench_function("send_fragmented_reliable", |b| {
        let mut tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
        let mut sink = |d: &[u8]| {
            black_box(d.len());
        };
        b.iter(|| {
            tx.send(now, Reliability::Reliable, black_box(&msg), &mut sink)
                .expect("send")
        })
    });
    g.finish();
}

criterion_group!(benches, wire, paths, reassembly);
criterion_main!(benches);
