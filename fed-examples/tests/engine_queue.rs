//! The data-reconstruction layer end to end, two engines over the real transport (loopback) in
//! this process: while the receiving engine is stuck in a long frame, its HLA thread keeps
//! taking a burst of 3 000 reflections (it never waits on the engine); the small bounded queue
//! merges what does not fit; at the next frame start the mirror holds the last value, and the
//! observer saw each applied change once, in order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::lab::{Ports, serial};
use hlamesh_engine::reconstruction::Change;
use hlamesh_engine::{Ctx, Engine, EngineConfig, EngineError, Pace, Role, Simulation, TimeScheme};
use hlamesh_lrc::handles::{AttributeHandle, ObjectInstanceHandle};
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::TransportConfig;

const FOM: &str = include_str!("../foms/MovingObject.xml");
const BURST: u64 = 3000;

fn lrc(p: &Ports) -> Lrc {
    Lrc::start(TransportConfig {
        discovery_port: p.discovery,
        data_port: p.data,
        discovery_group: p.group,
        ..TransportConfig::default()
    })
    .unwrap()
}

fn cfg(p: &Ports, fed: &str, name: &str, role: Role) -> EngineConfig {
    let mut c = EngineConfig::new(fed, name, "test");
    c.role = role;
    c.scheme = TimeScheme::Periodic {
        hz: 10,
        pace: Pace::AsFastAsPossible,
    };
    c.lookahead = None;
    c.constrained = true;
    c.queue_capacity = 64;
    c.join_timeout = Duration::from_secs(20);
    c.sync_timeout = Duration::from_secs(30);
    c.lrc = Some(lrc(p));
    c
}

/// Sends the burst in its first Run frame, values 1..=BURST.
struct Sender {
    object: Option<(ObjectInstanceHandle, AttributeHandle)>,
}

impl Simulation for Sender {
    type Command = ();
    fn on_load(&mut self, ctx: &mut Ctx<'_>, _: &[u8]) -> Result<(), EngineError> {
        let r = ctx.rti();
        let v = r.get_object_class_handle("Vehicle").unwrap();
        let pos = r.get_attribute_handle(v, "Position").unwrap();
        r.publish_object_class_attributes(v, &[pos]).unwrap();
        self.object = Some((r.register_object_instance(v).unwrap(), pos));
        ctx.set_end_time(1.0);
        Ok(())
    }
    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        if ctx.stats().run_frames == 0 {
            let (o, pos) = self.object.unwrap();
            for i in 1..=BURST {
                ctx.update(o, vec![(pos, i.to_be_bytes().to_vec())], b"")?;
            }
        }
        Ok(())
    }
}

#[derive(Default)]
struct Seen {
    /// (frames completed when the change was applied, value)
    values: Vec<(u64, u64)>,
    /// HLA-queue counters seen at the end of the long frame.
    during_long_frame: Option<u64>,
    long_frame: Option<u64>,
}

/// Subscribes; its first Run frame is "slow": it stays in it until the HLA thread took the
/// whole burst (at most 30 s).
struct Slow {
    seen: Arc<Mutex<Seen>>,
    frame: u64,
}

impl Simulation for Slow {
    type Command = ();
    fn on_join(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let r = ctx.rti();
        let v = r.get_object_class_handle("Vehicle").unwrap();
        let pos = r.get_attribute_handle(v, "Position").unwrap();
        r.subscribe_object_class_attributes(v, &[pos], true)
            .unwrap();
        Ok(())
    }
    fn on_load(&mut self, ctx: &mut Ctx<'_>, _: &[u8]) -> Result<(), EngineError> {
        ctx.set_end_time(1.0);
        Ok(())
    }
    fn on_change(&mut self, change: &Change<'_>) {
        if let Change::Updated { changed, .. } = change {
            let v = u64::from_be_bytes(changed[0].1.as_slice().try_into().unwrap());
            self.seen.lock().unwrap().values.push((self.frame, v));
        }
    }
    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        self.frame += 1;
        if ctx.stats().run_frames == 0 {
            let deadline = Instant::now() + Duration::from_secs(30);
            let taken = |c: &Ctx<'_>| {
                let q = c.queue_stats();
                q.pushed + q.merged + q.dropped
            };
            // +1: the discovery.
            while taken(ctx) < BURST + 1 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            let mut s = self.seen.lock().unwrap();
            s.during_long_frame = Some(taken(ctx));
            s.long_frame = Some(self.frame);
        }
        Ok(())
    }
}

#[test]
fn the_hla_thread_keeps_taking_data_while_the_engine_is_slow_and_the_mirror_ends_right() {
    let _g = serial();
    let p = Ports::unique();
    let fed = format!("engine-queue-{}", std::process::id());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let slow_cfg = cfg(&p, &fed, "slow", Role::Slave);
    let s2 = seen.clone();
    let slow = std::thread::spawn(move || {
        let mut e = Engine::new(slow_cfg, Slow { seen: s2, frame: 0 });
        e.run()
    });
    let mut sender = Engine::new(
        cfg(
            &p,
            &fed,
            "sender",
            Role::Commander {
                fom_modules: vec![("MovingObject.xml".into(), FOM.into())],
                expected: vec!["slow".into()],
            },
        ),
        Sender { object: None },
    );
    let sr = sender.run();
    let rr = slow.join().unwrap();
    assert_eq!(sr.state.name(), "End", "{:?}", sr.state);
    assert_eq!(rr.state.name(), "End", "{:?}", rr.state);
    let s = seen.lock().unwrap();
    // The HLA thread took the whole burst while the engine sat in one frame.
    assert_eq!(s.during_long_frame, Some(BURST + 1), "queue {:?}", rr.queue);
    // Bounded: at most 64 waited; the rest merged into the pending reflection, none dropped.
    assert!(rr.queue.high_water <= 64 + 1, "{:?}", rr.queue);
    assert!(rr.queue.merged > 0, "{:?}", rr.queue);
    assert_eq!(rr.queue.dropped, 0, "{:?}", rr.queue);
    // Applied only at frame starts after the long frame (changes applied at the start of the
    // frame after it carry its number), in order, once per change, ending with the last value.
    let long = s.long_frame.unwrap();
    assert!(
        s.values.iter().all(|(f, _)| *f >= long),
        "{:?}",
        &s.values[..5.min(s.values.len())]
    );
    assert!(s.values.windows(2).all(|w| w[0].1 < w[1].1), "in order");
    assert_eq!(s.values.last().map(|v| v.1), Some(BURST));
    assert_eq!(rr.stats.reflections_applied, s.values.len() as u64);
    assert_eq!(
        rr.queue.pushed - 1 + rr.queue.merged,
        BURST,
        "every reflection was either queued or merged: {:?}",
        rr.queue
    );
}
