//! Cost of the HLA-level metrics on the update → reflect hot path (`hlamesh_lrc::metrics`).
//!
//! Two federations run side by side in this process, each with a publisher on one LRC and a
//! subscriber on another (real transports on loopback): one on LRCs without a metrics address
//! (nothing recorded), one on LRCs serving `/metrics` (every send and reflection counted, latency
//! marks and clock probes on). An iteration is a burst of updates from the publisher until the
//! subscriber has reflected all of them; the time per burst of the two, measured one after the
//! other in the same run, is the comparison. The transport's own counters are on in both (they are one
//! relaxed add each; see the transport's `metrics_overhead` bench).
//!
//! Run: `cargo bench -p hlamesh-lrc --bench metrics_overhead`

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::handles::{AttributeHandle, ObjectInstanceHandle};
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::TransportConfig;

const FOM: &str = include_str!("../../fed-examples/foms/MovingObject.xml");

struct Count(Arc<AtomicU64>);

impl FederateAmbassador for Count {
    fn reflect_attribute_values(
        &mut self,
        _o: ObjectInstanceHandle,
        _v: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

struct Pair {
    publisher: RtiAmbassador,
    _subscriber: RtiAmbassador,
    object: ObjectInstanceHandle,
    attr: AttributeHandle,
    reflected: Arc<AtomicU64>,
    sent: u64,
}

fn pair(metrics: bool) -> Pair {
    let cfg = || TransportConfig {
        metrics_addr: metrics.then(|| "127.0.0.1:0".parse().expect("address")),
        ..TransportConfig::default()
    };
    let name = format!("bench-{}-{}", std::process::id(), metrics);
    let reflected = Arc::new(AtomicU64::new(0));
    let mut p = RtiAmbassador::with_lrc(Lrc::start(cfg()).expect("LRC"));
    p.connect(
        Box::new(Count(Arc::new(AtomicU64::new(0)))),
        CallbackModel::Immediate,
    )
    .expect("connect");
    p.create_federation_execution_from_text(&name, vec![("MovingObject.xml".into(), FOM.into())])
        .expect("create");
    p.join_federation_execution(Some("pub"), "bench", &name)
        .expect("join");
    let mut s = RtiAmbassador::with_lrc(Lrc::start(cfg()).expect("LRC"));
    s.connect(Box::new(Count(reflected.clone())), CallbackModel::Immediate)
        .expect("connect");
    s.join_federation_execution(Some("sub"), "bench", &name)
        .expect("join");
    let car = p.get_object_class_handle("Vehicle.Car").expect("class");
    let attr = p.get_attribute_handle(car, "Position").expect("attr");
    s.subscribe_object_class_attributes(car, &[attr], true)
        .expect("subscribe");
    p.publish_object_class_attributes(car, &[attr])
        .expect("publish");
    let object = p.register_object_instance(car).expect("register");
    let mut pair = Pair {
        publisher: p,
        _subscriber: s,
        object,
        attr,
        reflected,
        sent: 0,
    };
    // Warm up until reflections flow (the subscription reached the publisher's LRC).
    let end = Instant::now() + Duration::from_secs(10);
    while pair.reflected.load(Ordering::Acquire) == 0 {
        assert!(Instant::now() < end, "no reflection within 10 s");
        pair.burst(1);
        std::thread::sleep(Duration::from_millis(10));
    }
    pair
}

impl Pair {
    /// Sends `n` updates and waits until `n` more reflections arrived.
    fn burst(&mut self, n: u64) -> Duration {
        let start = Instant::now();
        let target = self.reflected.load(Ordering::Acquire) + n;
        for i in 0..n {
            let v = (self.sent + i).to_be_bytes().to_vec();
            self.publisher
                .update_attribute_values(self.object, vec![(self.attr, v)], b"")
                .expect("update");
        }
        self.sent += n;
        let end = Instant::now() + Duration::from_secs(10);
        while self.reflected.load(Ordering::Acquire) < target {
            if Instant::now() > end {
                break; // Counted as slow, not hung.
            }
            std::hint::spin_loop();
        }
        start.elapsed()
    }
}

fn update_reflect(c: &mut Criterion) {
    let mut off = pair(false);
    let mut on = pair(true);
    let mut g = c.benchmark_group("update_reflect_burst_of_100");
    g.sample_size(30);
    g.measurement_time(Duration::from_secs(8));
    for (label, p) in [("metrics_off", &mut off), ("metrics_on", &mut on)] {
        g.bench_function(label, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| p.burst(100)).sum())
        });
    }
    g.finish();
}

criterion_group!(benches, update_reflect);
criterion_main!(benches);
