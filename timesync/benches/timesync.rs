//! Micro-benchmarks: promise processing (GALT recomputation) with 64 peers, TSO queue churn.
//! Run: `cargo bench -p hlamesh-timesync`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hlamesh_timesync::tso_queue::TsoQueue;
use hlamesh_timesync::*;

type T = HLAinteger64Time;

/// A constrained, regulating member in NER with `n` regulating peers whose promises are all
/// applied and consistent, so every GALT computation checks every peer's recv vector.
fn federation(n: u64) -> (TimeManager<T, u64>, Vec<Promise<T>>) {
    let me = MemberId(0);
    let peers: Vec<(MemberId, Seq)> = (1..=n).map(|i| (MemberId(i), Seq(0))).collect();
    let mut tm: TimeManager<T, u64> = TimeManager::new(me, ViewNumber(1), peers.clone());
    let all: Vec<(MemberId, Seq)> = (0..=n).map(|i| (MemberId(i), Seq(1))).collect();
    let promise = |i: u64, c: i64| Promise {
        bounds: Some((
            Bound::incl(HLAinteger64Time(1)),
            Bound::incl(HLAinteger64Time(c)),
        )),
        hw: Seq(1),
        recv: all.iter().copied().filter(|(m, _)| m.0 != i).collect(),
        view: ViewNumber(1),
    };
    for i in 1..=n {
        tm.on_data(
            MemberId(i),
            Seq(1),
            Incoming::Tso {
                time: HLAinteger64Time(1000),
                payload: i,
            },
        );
        tm.on_message(MemberId(i), TimeMessage::Promise(promise(i, 100)));
    }
    tm.enable_time_constrained().expect("constrained");
    tm.next_message_request(HLAinteger64Time(5000))
        .expect("ner");
    while tm.poll_action().is_some() {}
    let updates = (1..=n).map(|i| promise(i, 100)).collect();
    (tm, updates)
}

fn bench_galt(c: &mut Criterion) {
    let (mut tm, updates) = federation(64);
    assert_eq!(
        tm.galt(),
        Some(HLAinteger64Time(100)),
        "conditional bounds in use"
    );
    let mut k = 0usize;
    c.bench_function("promise_apply_and_galt_64_peers", |b| {
        b.iter(|| {
            let p = updates[k % updates.len()].clone();
            tm.on_message(
                MemberId((k % updates.len()) as u64 + 1),
                TimeMessage::Promise(p),
            );
            k += 1;
            while let Some(a) = tm.poll_action() {
                black_box(a);
            }
            black_box(tm.galt())
        })
    });
}

fn bench_galt_all_invalidated(c: &mut Criterion) {
    // Worst case: each promise moves its sender's TSO high-water, which invalidates every cached
    // consistency verdict, and every peer's recv vector covers every requirement, so all 64
    // regulators are re-checked against all 64 requirements before GALT is taken.
    let n = 64u64;
    let (mut tm, _) = federation(n);
    let all: Vec<(MemberId, Seq)> = (0..=n).map(|i| (MemberId(i), Seq(1000))).collect();
    for i in 1..=n {
        tm.on_data(MemberId(i), Seq(1000), Incoming::Other);
    }
    while tm.poll_action().is_some() {}
    let promise = |i: u64, hw: u64| Promise {
        bounds: Some((
            Bound::incl(HLAinteger64Time(1)),
            Bound::incl(HLAinteger64Time(100)),
        )),
        hw: Seq(hw),
        recv: all
            .iter()
            .copied()
            .filter(|(m, _)| m.0 != i)
            .collect::<Vec<_>>(),
        view: ViewNumber(1),
    };
    let updates: Vec<_> = (1..=n)
        .flat_map(|i| [promise(i, 500), promise(i, 501)])
        .collect();
    let mut k = 0usize;
    c.bench_function("promise_apply_and_galt_64_peers_recheck_all", |b| {
        b.iter(|| {
            let p = updates[k % updates.len()].clone();
            tm.on_message(
                MemberId((k % updates.len()) as u64 / 2 + 1),
                TimeMessage::Promise(p),
            );
            k += 1;
            while let Some(a) = tm.poll_action() {
                black_box(a);
            }
            black_box(tm.galt())
        })
    });
}

fn bench_tso_queue(c: &mut Criterion) {
    let mut q: TsoQueue<T, u64> = TsoQueue::new();
    for i in 0..1024u64 {
        q.push(
            HLAinteger64Time((i * 7919 % 1024) as i64),
            MemberId(i % 8),
            i,
        );
    }
    let mut i = 0u64;
    c.bench_function("tso_queue_push_pop_1024_deep", |b| {
        b.iter(|| {
            i += 1;
            q.push(
                HLAinteger64Time((i * 7919 % 4096) as i64 + (i / 4) as i64),
                MemberId(i % 8),
                i,
            );
            black_box(q.pop_if(|_| true))
        })
    });
}

criterion_group!(
    benches,
    bench_galt,
    bench_galt_all_invalidated,
    bench_tso_queue
);
criterion_main!(benches);
