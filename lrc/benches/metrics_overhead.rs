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
//! Also the recording alone (`metrics_record_send_and_receive`): the calls the shell makes for
//! one message sent and one received, with metrics on and off.
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
    let pair = Pair {
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
        pair.publisher
            .update_attribute_values(object, vec![(attr, vec![0; 8])], b"")
            .expect("update");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Let the warm-up's stragglers land before bursts count reflections.
    std::thread::sleep(Duration::from_millis(200));
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
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HLAMESH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
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

/// The recording alone: one interaction sent and one received (the calls the shell makes per
/// message), on a federation with metrics on and one with them off.
fn recording_alone(c: &mut Criterion) {
    use hlamesh_lrc::core::wire::DataMsg;
    use hlamesh_lrc::core::{Callback, DataClass, FederationCore};
    use hlamesh_lrc::fom::OrderType;
    use hlamesh_lrc::handles::{FederateHandle, ParameterHandle, TransportationTypeHandle};
    use hlamesh_lrc::metrics::FedMetrics;

    let core =
        FederationCore::create("F", 1, 0, vec![("MO.xml".into(), FOM.into())]).expect("core");
    let class = core
        .fdd()
        .expect("fdd")
        .interaction_class_handle("Command")
        .expect("class");
    let bytes = DataMsg::Interaction {
        class,
        producer: FederateHandle(1),
        params: vec![(ParameterHandle(1), vec![0; 100])],
        tag: vec![],
        time: None,
        tso: false,
        retraction: None,
    }
    .encode();
    let cb = Callback::ReceiveInteraction {
        class,
        params: vec![(ParameterHandle(1), vec![0; 100])],
        tag: vec![],
        info: ReceiveInfo {
            producer: FederateHandle(2),
            sent_order: OrderType::Receive,
            received_order: OrderType::Receive,
            transportation: TransportationTypeHandle(1),
            time: None,
            retraction: None,
            sent_regions: None,
        },
    };
    let mut g = c.benchmark_group("metrics_record_send_and_receive");
    for (label, on) in [("off", false), ("on", true)] {
        let mut m = FedMetrics::new("F", on);
        let mut seq = 0u64;
        g.bench_function(label, |b| {
            b.iter(|| {
                seq += 1;
                std::hint::black_box(m.data_sent(
                    &core,
                    Some(DataClass::Interaction(class)),
                    bytes.len(),
                    None,
                ));
                m.data_in(2, Some(seq));
                m.callback(&core, FederateHandle(1), std::hint::black_box(&cb));
                m.data_done();
            })
        });
    }
    g.finish();
}

criterion_group!(benches, recording_alone, update_reflect);
criterion_main!(benches);
