//! `ddm` (issue 23): does DDM with per-cell multicast groups make the network do the filtering?
//! P publisher processes move E entities over the X, Y plane of `foms/Cells.xml` (`Vehicle`,
//! best-effort `Position`, both dimensions over `[0, 1000)`), each entity updated at a fixed rate
//! with a small update region around it; the driver is the one subscriber and watches a square
//! region covering a fraction f of the plane. The same scenario runs without regions (plain
//! subscription, no update regions) as the baseline, in the same invocation, each run in its own
//! federation with fresh publisher processes.
//!
//! Per run the subscriber reports the datagrams its data socket received (the transport's
//! counters, not an estimate), the updates it reflected and how many were relevant (the entity's
//! update region overlaps the subscription region; the payload carries the region, so the
//! baseline judges relevance exactly as the regions run does), its CPU time from /proc per
//! relevant update, the update → reflect latency of relevant updates (the publisher writes its
//! wall-clock send time into the payload; every process is on this machine and shares the
//! clock) and the cell groups it joined. A moving-subscription phase then moves the region at a
//! given speed and reports cell-group joins and leaves per second (the hysteresis of
//! `docs/DDM.md` "Moving regions and hysteresis"), next to the joins an exact, hysteresis-free
//! membership would make.
//!
//! Update regions: an entity's region is the square of side 2 × radius centred where the
//! entity was when the region was last committed; it is committed again (one reliable region
//! announcement to the federation) when the entity has moved more than radius / 2 from that
//! centre on an axis, so it always covers the entity and its surroundings.
//!
//! Publishers pace their updates evenly (one entity after the other, `1 / (rate × entities)`
//! apart), so automatic batching, which needs sends a few µs apart, does not pack the
//! baseline's updates into fewer datagrams than the regions run sends.

use std::io::BufRead;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RangeBounds, RtiAmbassador};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::handles::{
    AttributeHandle, DimensionHandle, ObjectClassHandle, ObjectInstanceHandle, RegionHandle,
};
use hlamesh_lrc::node::Lrc;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::BenchError;
use crate::net::NetParams;
use crate::peer::Role;
use crate::placement::{PeerProc, Placement};
use crate::procstat::ProcSample;
use crate::report::{self, LatencySummary, Machine};
use crate::rti::{ProcessCounters, join_federation};
use crate::session::Level;

/// The FOM: `foms/Cells.xml`.
pub const FOM: &str = include_str!("../../foms/Cells.xml");
/// Its moving class.
pub const CLASS: &str = "Vehicle";
/// The best-effort attribute with dimensions X and Y.
pub const ATTRIBUTE: &str = "Position";
/// The reliable attribute with dimensions X and Y (`--reliable`: its updates go to the cells
/// with the transport's chained positions).
pub const RELIABLE_ATTRIBUTE: &str = "Track";
/// Upper bound of X and Y in the FOM (normalised values `[0, SPACE)`).
pub const SPACE: u64 = 1000;
/// Bytes of an update's payload (see [`Sample`]).
pub const PAYLOAD: usize = 32;

/// What to measure.
#[derive(Clone, Debug, Serialize)]
pub struct DdmOptions {
    /// Publisher processes (P).
    pub publishers: usize,
    /// Entities in all (E), spread round robin over the publishers.
    pub entities: usize,
    /// Updates per entity per second.
    pub rate_hz: f64,
    /// Measured seconds per run.
    pub seconds: f64,
    /// Unmeasured seconds of the same traffic before each run (discoveries, joins, warm caches).
    pub warmup_s: f64,
    /// Fraction f of the plane the subscription region covers (a square of side √f × 1000).
    pub fraction: f64,
    /// Half the side of an entity's update region.
    pub radius: u64,
    /// Entity speed, units per second (straight lines, bouncing off the plane's edges).
    pub speed: f64,
    /// Seed of the entities' start positions and headings.
    pub seed: u64,
    /// Also run a subscription region placed half a cell off the grid (it covers four cells).
    pub unaligned: bool,
    /// Run the baseline first instead of last (to see whether the order matters).
    pub baseline_first: bool,
    /// Seconds of the moving-subscription phase (0: none).
    pub move_seconds: f64,
    /// Speed of the moving subscription region, units per second.
    pub move_speed: f64,
    /// Region moves (commits) per second in the moving phase.
    pub move_hz: f64,
    /// Update the reliable `Track` instead of the best-effort `Position`.
    pub reliable: bool,
}

/// A region's bounds on X and Y: `[x0, x1) × [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Square {
    /// X lower bound.
    pub x0: u64,
    /// X upper bound (exclusive).
    pub x1: u64,
    /// Y lower bound.
    pub y0: u64,
    /// Y upper bound (exclusive).
    pub y1: u64,
}

impl Square {
    /// Whether the two share a point.
    pub fn overlaps(&self, o: &Square) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// The square of side `side` with its lower corner at (`x`, `y`).
    fn at(x: u64, y: u64, side: u64) -> Square {
        Square {
            x0: x,
            x1: x + side,
            y0: y,
            y1: y + side,
        }
    }

    /// The grid cells (`x + y × per_dim`) it covers, `cell` units per cell.
    pub fn cells(&self, cell: u64, per_dim: u64) -> Vec<u64> {
        let span = |lo: u64, hi: u64| {
            let last = (hi.max(lo + 1) - 1) / cell;
            (lo / cell).min(per_dim - 1)..=last.min(per_dim - 1)
        };
        let mut v = Vec::new();
        for y in span(self.y0, self.y1) {
            for x in span(self.x0, self.x1) {
                v.push(x + y * per_dim);
            }
        }
        v
    }
}

/// What one update carries: the publisher's wall-clock send time and the entity's committed
/// update region (the baseline's too, though it registers no region, so both runs judge
/// relevance the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Wall-clock nanoseconds at the send.
    pub sent_ns: u64,
    /// Publisher index.
    pub publisher: u32,
    /// Entity index.
    pub entity: u32,
    /// The entity's update region.
    pub region: Square,
}

impl Sample {
    /// The payload.
    pub fn encode(&self) -> [u8; PAYLOAD] {
        let mut m = [0u8; PAYLOAD];
        m[0..8].copy_from_slice(&self.sent_ns.to_be_bytes());
        m[8..12].copy_from_slice(&self.publisher.to_be_bytes());
        m[12..16].copy_from_slice(&self.entity.to_be_bytes());
        let r = self.region;
        for (i, v) in [r.x0, r.x1, r.y0, r.y1].into_iter().enumerate() {
            m[16 + 4 * i..20 + 4 * i].copy_from_slice(&(v as u32).to_be_bytes());
        }
        m
    }

    /// Reads a payload (`None`: not one of ours).
    pub fn decode(m: &[u8]) -> Option<Sample> {
        if m.len() < PAYLOAD {
            return None;
        }
        let u64_at = |i: usize| m.get(i..i + 8)?.try_into().ok().map(u64::from_be_bytes);
        let u32_at = |i: usize| m.get(i..i + 4)?.try_into().ok().map(u32::from_be_bytes);
        Some(Sample {
            sent_ns: u64_at(0)?,
            publisher: u32_at(8)?,
            entity: u32_at(12)?,
            region: Square {
                x0: u64::from(u32_at(16)?),
                x1: u64::from(u32_at(20)?),
                y0: u64::from(u32_at(24)?),
                y1: u64::from(u32_at(28)?),
            },
        })
    }
}

/// SplitMix64: the entities' deterministic start.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn unit(state: &mut u64) -> f64 {
    (splitmix(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// One moving entity: a straight line that bounces off the plane's edges.
#[derive(Clone, Debug)]
pub struct Entity {
    /// Its index.
    pub index: u32,
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
    /// Where its update region was last committed.
    centre: (f64, f64),
}

impl Entity {
    /// Entity `index` of a run seeded `seed` (the same whichever publisher owns it).
    pub fn new(seed: u64, index: u32, speed: f64) -> Entity {
        let mut s = seed ^ (u64::from(index) + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
        let (x, y) = (unit(&mut s) * SPACE as f64, unit(&mut s) * SPACE as f64);
        let a = unit(&mut s) * std::f64::consts::TAU;
        Entity {
            index,
            x,
            y,
            vx: speed * a.cos(),
            vy: speed * a.sin(),
            centre: (x, y),
        }
    }

    /// Moves by `dt` seconds.
    pub fn step(&mut self, dt: f64) {
        let top = SPACE as f64 - 1e-6;
        for (p, v) in [(&mut self.x, &mut self.vx), (&mut self.y, &mut self.vy)] {
            *p += *v * dt;
            if *p < 0.0 {
                *p = -*p;
                *v = -*v;
            }
            if *p > top {
                *p = (2.0 * top - *p).max(0.0);
                *v = -*v;
            }
        }
    }

    /// Re-centres the update region when the entity moved more than `radius / 2` from its
    /// centre on an axis; true when it did (the region must be committed again).
    pub fn recentre(&mut self, radius: u64) -> bool {
        let slack = radius as f64 / 2.0;
        if (self.x - self.centre.0).abs() > slack || (self.y - self.centre.1).abs() > slack {
            self.centre = (self.x, self.y);
            return true;
        }
        false
    }

    /// The update region: `[c − radius, c + radius)` on each axis, inside the plane.
    pub fn region(&self, radius: u64) -> Square {
        let span = |c: f64| {
            let c = c as u64;
            let lo = c.saturating_sub(radius);
            let hi = (c + radius).clamp(lo + 1, SPACE);
            (lo.min(SPACE - 1), hi)
        };
        let (x0, x1) = span(self.centre.0);
        let (y0, y1) = span(self.centre.1);
        Square { x0, x1, y0, y1 }
    }
}

/// What a publisher registers ([`PublisherCommand::Setup`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PublisherSetup {
    /// This publisher's index.
    pub index: usize,
    /// Publishers in the run.
    pub publishers: usize,
    /// Entities in the run.
    pub entities: usize,
    /// With update regions.
    pub regions: bool,
    /// Half the side of an update region.
    pub radius: u64,
    /// Entity speed, units/s.
    pub speed: f64,
    /// Seed.
    pub seed: u64,
    /// Update the reliable attribute ([`RELIABLE_ATTRIBUTE`]) instead of [`ATTRIBUTE`].
    #[serde(default)]
    pub reliable: bool,
}

/// Commands the driver sends a publisher (one JSON line each).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum PublisherCommand {
    /// Publish `Position` and register this publisher's entities.
    Setup(PublisherSetup),
    /// Update every entity `rate_hz` times a second for `seconds`; `watch` is the subscription
    /// region (to count the relevant updates sent).
    Run {
        /// Seconds.
        seconds: f64,
        /// Updates per entity per second.
        rate_hz: f64,
        /// The subscriber's region.
        watch: Square,
    },
}

/// A publisher's federate.
struct Publisher {
    rti: RtiAmbassador,
    lrc: Lrc,
    federation: String,
    /// The attribute the run updates (`Position`, or `Track` with `--reliable`).
    position: AttributeHandle,
    track: AttributeHandle,
    dims: (DimensionHandle, DimensionHandle),
    index: u32,
    radius: u64,
    /// Entities with their instance and, with regions, their update region.
    entities: Vec<(Entity, ObjectInstanceHandle, Option<RegionHandle>)>,
}

fn set_square(
    rti: &RtiAmbassador,
    r: RegionHandle,
    dims: (DimensionHandle, DimensionHandle),
    s: Square,
) -> Result<(), BenchError> {
    rti.set_range_bounds(r, dims.0, RangeBounds::new(s.x0, s.x1))?;
    rti.set_range_bounds(r, dims.1, RangeBounds::new(s.y0, s.y1))?;
    Ok(())
}

/// A joined federate with the handles both sides use.
struct Joined {
    rti: RtiAmbassador,
    lrc: Lrc,
    class: ObjectClassHandle,
    position: AttributeHandle,
    track: AttributeHandle,
    dims: (DimensionHandle, DimensionHandle),
}

/// Starts an LRC, joins `federation` (created with [`FOM`] when `create`) and looks up the
/// class, attribute and dimensions.
fn federate(
    net: &NetParams,
    federation: &str,
    create: bool,
    amb: Box<dyn FederateAmbassador>,
    deadline: Instant,
) -> Result<Joined, BenchError> {
    let _ = hlamesh_transport::metrics::install();
    let lrc = Lrc::start(net.transport_config())?;
    let mut rti = RtiAmbassador::with_lrc(lrc.clone());
    rti.connect(amb, CallbackModel::Immediate)?;
    if create {
        crate::rti::create_federation(&mut rti, federation, "Cells.xml", FOM)?;
    }
    let name = format!("ddm-{}", std::process::id());
    join_federation(&mut rti, federation, &name, false, deadline)?;
    let class = rti.get_object_class_handle(CLASS)?;
    let position = rti.get_attribute_handle(class, ATTRIBUTE)?;
    let track = rti.get_attribute_handle(class, RELIABLE_ATTRIBUTE)?;
    let dims = (
        rti.get_dimension_handle("X")?,
        rti.get_dimension_handle("Y")?,
    );
    Ok(Joined {
        rti,
        lrc,
        class,
        position,
        track,
        dims,
    })
}

struct Quiet;
impl FederateAmbassador for Quiet {}

fn say(v: serde_json::Value) {
    println!("{v}");
}

/// The publisher peer process (`peer --role ddm-publisher`): joins, then follows the driver's
/// [`PublisherCommand`]s on stdin until it closes or `timeout` passes.
pub fn publisher(net: &NetParams, federation: &str, timeout: Duration) -> Result<(), BenchError> {
    let deadline = Instant::now() + timeout;
    let Joined {
        rti,
        lrc,
        class,
        position,
        track,
        dims,
    } = federate(net, federation, false, Box::new(Quiet), deadline)?;
    rti.publish_object_class_attributes(class, &[position, track])?;
    let mut p = Publisher {
        rti,
        lrc,
        federation: federation.to_string(),
        position,
        track,
        dims,
        index: 0,
        radius: 0,
        entities: Vec::new(),
    };
    say(json!({"event": "ready"}));
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim() == "quit" {
            break;
        }
        let cmd: PublisherCommand = match serde_json::from_str(&line) {
            Ok(c) => c,
            Err(e) => {
                say(json!({"event": "error", "message": format!("bad command {line:?}: {e}")}));
                continue;
            }
        };
        let answer = match cmd {
            PublisherCommand::Setup(setup) => p
                .setup(class, &setup)
                .map(|n| json!({"event": "setup", "entities": n})),
            PublisherCommand::Run {
                seconds,
                rate_hz,
                watch,
            } => p.run(seconds, rate_hz, watch, deadline),
        };
        match answer {
            Ok(v) => say(v),
            Err(e) => say(json!({"event": "error", "message": e.to_string()})),
        }
        if Instant::now() > deadline {
            break;
        }
    }
    Ok(())
}

impl Publisher {
    fn setup(
        &mut self,
        class: ObjectClassHandle,
        setup: &PublisherSetup,
    ) -> Result<usize, BenchError> {
        let PublisherSetup {
            index,
            publishers,
            entities,
            regions,
            radius,
            speed,
            seed,
            reliable,
        } = *setup;
        if reliable {
            std::mem::swap(&mut self.position, &mut self.track);
        }
        self.index = index as u32;
        self.radius = radius.max(1);
        let mine = (0..entities).filter(|e| e % publishers.max(1) == index);
        for e in mine {
            let entity = Entity::new(seed, e as u32, speed);
            let (object, region) = if regions {
                let r = self.rti.create_region(&[self.dims.0, self.dims.1])?;
                set_square(&self.rti, r, self.dims, entity.region(self.radius))?;
                self.rti.commit_region_modifications(&[r])?;
                let o = self.rti.register_object_instance_with_regions(
                    class,
                    &[(vec![self.position], vec![r])],
                )?;
                (o, Some(r))
            } else {
                (self.rti.register_object_instance(class)?, None)
            };
            self.entities.push((entity, object, region));
        }
        Ok(self.entities.len())
    }

    /// Updates the entities in turn, evenly paced, for `seconds`.
    fn run(
        &mut self,
        seconds: f64,
        rate_hz: f64,
        watch: Square,
        deadline: Instant,
    ) -> Result<serde_json::Value, BenchError> {
        let n = self.entities.len();
        if n == 0 || rate_hz <= 0.0 {
            return Ok(
                json!({"event": "sent", "updates": 0, "relevant": 0, "commits": 0,
                "cell_datagrams": 0, "elapsed_s": 0.0, "late": 0}),
            );
        }
        let before = self.lrc.cell_stats(&self.federation).unwrap_or_default();
        let total = (seconds * rate_hz).ceil() as u64 * n as u64;
        let gap = Duration::from_secs_f64(1.0 / (rate_hz * n as f64));
        let dt = 1.0 / rate_hz;
        // Bounded in time as well as in count: a stalled send cannot hold the run.
        let stop = (Instant::now() + Duration::from_secs_f64(seconds * 2.0 + 5.0)).min(deadline);
        let (mut updates, mut relevant, mut commits, mut late) = (0u64, 0u64, 0u64, 0u64);
        let t0 = Instant::now();
        for i in 0..total {
            let due = t0 + gap.mul_f64(i as f64);
            let now = Instant::now();
            if now > stop {
                break;
            }
            if due > now {
                std::thread::sleep(due - now);
            } else if now - due > Duration::from_millis(1) {
                late += 1;
            }
            let (entity, object, region) = &mut self.entities[(i % n as u64) as usize];
            entity.step(dt);
            if entity.recentre(self.radius)
                && let Some(r) = region
            {
                set_square(&self.rti, *r, self.dims, entity.region(self.radius))?;
                self.rti.commit_region_modifications(&[*r])?;
                commits += 1;
            }
            let s = Sample {
                sent_ns: crate::wire::wall_ns(),
                publisher: self.index,
                entity: entity.index,
                region: entity.region(self.radius),
            };
            if s.region.overlaps(&watch) {
                relevant += 1;
            }
            self.rti.update_attribute_values(
                *object,
                vec![(self.position, s.encode().to_vec())],
                b"",
            )?;
            updates += 1;
        }
        let after = self.lrc.cell_stats(&self.federation).unwrap_or_default();
        Ok(json!({
            "event": "sent", "updates": updates, "relevant": relevant, "commits": commits,
            "cell_datagrams": after.datagrams.saturating_sub(before.datagrams),
            "wide_fallbacks": after.wide_fallbacks.saturating_sub(before.wide_fallbacks),
            "elapsed_s": t0.elapsed().as_secs_f64(), "late": late,
        }))
    }
}

/// What the subscriber counts while measuring: relevant updates for each of `watches` (the
/// baseline judges relevance for every placement a regions run used), the latency of those
/// relevant for the first.
struct Tally {
    measuring: bool,
    watches: Vec<Square>,
    reflected: u64,
    relevant: Vec<u64>,
    latency: Histogram<u64>,
}

struct SubAmb {
    tally: Arc<Mutex<Tally>>,
}

impl FederateAmbassador for SubAmb {
    fn reflect_attribute_values(
        &mut self,
        _object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        let now = crate::wire::wall_ns();
        let Some(s) = values.first().and_then(|(_, v)| Sample::decode(v)) else {
            return;
        };
        let mut t = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        if !t.measuring {
            return;
        }
        t.reflected += 1;
        let t = &mut *t;
        for (w, n) in t.watches.iter().zip(t.relevant.iter_mut()) {
            if s.region.overlaps(w) {
                *n += 1;
            }
        }
        if t.watches.first().is_some_and(|w| s.region.overlaps(w)) {
            let _ = t.latency.record(now.saturating_sub(s.sent_ns).max(1));
        }
    }
}

/// One run's figures (the subscriber's unless said otherwise).
#[derive(Clone, Debug, Serialize)]
pub struct DdmRun {
    /// `regions-aligned`, `regions-unaligned` or `no-regions`.
    pub name: String,
    /// Whether the publishers' updates and the subscription have regions.
    pub regions: bool,
    /// The subscription region (in the baseline: the region relevance is judged against).
    pub watch: Square,
    /// Grid cells the subscription region covers.
    pub cells_covered: usize,
    /// Measured wall time, seconds.
    pub wall_s: f64,
    /// Updates the publishers sent.
    pub updates_sent: u64,
    /// Of which relevant (the update region overlaps the subscription region).
    pub relevant_sent: u64,
    /// Update-region commits (region announcements) by the publishers.
    pub region_commits: u64,
    /// Datagrams the publishers sent on cell groups.
    pub cell_datagrams_sent: u64,
    /// Updates sent to the default group because their region covered too many groups.
    pub wide_fallbacks: u64,
    /// Publisher sends more than 1 ms behind their schedule.
    pub late_sends: u64,
    /// Datagrams the subscriber's data socket received (all kinds: best-effort and reliable
    /// data, heartbeats).
    pub datagrams_received: u64,
    /// Of which best-effort data datagrams (default and cell groups).
    pub best_effort_datagrams_received: u64,
    /// Updates reflected.
    pub reflected: u64,
    /// Relevant updates reflected.
    pub relevant_reflected: u64,
    /// Subscriber CPU time during the run, µs (all threads).
    pub cpu_us: f64,
    /// Subscriber CPU time per relevant update reflected, µs (0 when none was relevant).
    pub cpu_us_per_relevant: f64,
    /// The baseline only: relevant updates reflected and CPU per relevant update for the other
    /// regions runs' subscription regions.
    pub other_watches: Vec<OtherWatch>,
    /// Subscriber context switches during the run.
    pub ctx_switches: u64,
    /// Update → reflect latency of the relevant updates.
    pub latency: LatencySummary,
    /// Cell groups the subscriber had joined during the run.
    pub groups_joined_now: u64,
    /// Cell-group joins the kernel refused.
    pub join_failures: u64,
    /// Datagrams of the federation the subscriber's socket received during the run, by the
    /// group they came in on (`default`, `cell<slot>`; groups with none left out).
    pub received_by_group: Vec<(String, u64)>,
}

/// The baseline's figures for another run's subscription region.
#[derive(Clone, Debug, Serialize)]
pub struct OtherWatch {
    /// The region.
    pub watch: Square,
    /// Updates reflected that overlap it.
    pub relevant_reflected: u64,
    /// Subscriber CPU time per such update, µs (0 when none).
    pub cpu_us_per_relevant: f64,
}

/// A regions run against the baseline.
#[derive(Clone, Debug, Serialize)]
pub struct DdmRatios {
    /// The regions run.
    pub run: String,
    /// Datagrams received ÷ the baseline's (target ≤ 1/8 at f = 1/16).
    pub datagrams: f64,
    /// Best-effort datagrams received ÷ the baseline's.
    pub best_effort_datagrams: f64,
    /// CPU per relevant update ÷ the baseline's (target ≤ 1).
    pub cpu_per_relevant: f64,
    /// Relevant-update latency p50 ÷ the baseline's (target: 1 within noise).
    pub latency_p50: f64,
    /// Relevant-update latency p99 ÷ the baseline's.
    pub latency_p99: f64,
}

/// The moving-subscription phase.
#[derive(Clone, Debug, Serialize)]
pub struct MovePhase {
    /// Seconds it lasted.
    pub wall_s: f64,
    /// Region speed, units/s.
    pub speed: f64,
    /// Region commits.
    pub commits: u64,
    /// Cell-group joins measured (`cell_stats`).
    pub joins: u64,
    /// Cell-group leaves measured.
    pub leaves: u64,
    /// Joins per second.
    pub joins_per_s: f64,
    /// Leaves per second.
    pub leaves_per_s: f64,
    /// Joins an exact membership without hysteresis would make (cells newly covered at each
    /// commit), per second.
    pub exact_joins_per_s: f64,
    /// Most cell groups joined at once, sampled after each commit.
    pub max_joined_now: u64,
    /// Join failures during the phase.
    pub join_failures: u64,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct DdmReport {
    /// "ddm".
    pub subcommand: String,
    /// The command line.
    pub command: String,
    /// When it started.
    pub started_unix_ms: u64,
    /// Wall-clock duration.
    pub duration_s: f64,
    /// Where the processes ran.
    pub placement: String,
    /// The machine.
    pub machine: Machine,
    /// The options.
    pub options: DdmOptions,
    /// The transport's `cells_per_dimension` (the grid is that many cells per axis).
    pub cells_per_dimension: u32,
    /// The transport's `max_joined_cells` (cell groups per federation).
    pub max_joined_cells: u32,
    /// Grid cells of the X × Y routing space.
    pub cells: u64,
    /// The runs in the order they ran; `no-regions` is the baseline.
    pub runs: Vec<DdmRun>,
    /// Each regions run against the baseline.
    pub ratios: Vec<DdmRatios>,
    /// The moving-subscription phase (after the aligned run), if any.
    pub moving: Option<MovePhase>,
    /// The aligned run meets the datagram target (≤ 1/8 of the baseline's).
    pub datagram_target_met: bool,
    /// The aligned run meets the CPU target (CPU per relevant update ≤ the baseline's).
    pub cpu_target_met: bool,
}

/// The subscriber (the driver) of one run.
struct Subscriber {
    rti: RtiAmbassador,
    lrc: Lrc,
    federation: String,
    dims: (DimensionHandle, DimensionHandle),
    region: Option<RegionHandle>,
    tally: Arc<Mutex<Tally>>,
}

impl Subscriber {
    fn join(
        net: &NetParams,
        federation: &str,
        watches: &[Square],
        regions: bool,
        reliable: bool,
        deadline: Instant,
    ) -> Result<Subscriber, BenchError> {
        let watch = *watches
            .first()
            .ok_or_else(|| BenchError::Protocol("no subscription region".into()))?;
        let tally = Arc::new(Mutex::new(Tally {
            measuring: false,
            watches: watches.to_vec(),
            reflected: 0,
            relevant: vec![0; watches.len()],
            latency: report::new_histogram()?,
        }));
        let amb = Box::new(SubAmb {
            tally: tally.clone(),
        });
        let Joined {
            rti,
            lrc,
            class,
            position,
            track,
            dims,
        } = federate(net, federation, true, amb, deadline)?;
        let position = if reliable { track } else { position };
        let region = if regions {
            let r = rti.create_region(&[dims.0, dims.1])?;
            set_square(&rti, r, dims, watch)?;
            rti.commit_region_modifications(&[r])?;
            rti.subscribe_object_class_attributes_with_regions(
                class,
                &[(vec![position], vec![r])],
                true,
            )?;
            Some(r)
        } else {
            rti.subscribe_object_class_attributes(class, &[position], true)?;
            None
        };
        Ok(Subscriber {
            rti,
            lrc,
            federation: federation.to_string(),
            dims,
            region,
            tally,
        })
    }

    fn cells(&self) -> hlamesh_transport::metrics::CellStats {
        self.lrc.cell_stats(&self.federation).unwrap_or_default()
    }
}

/// Sends `cmd` to every publisher and collects their `event` answers.
fn all(
    pubs: &mut [PeerProc],
    cmd: impl Fn(usize) -> PublisherCommand,
    event: &str,
    timeout: Duration,
) -> Result<Vec<serde_json::Value>, BenchError> {
    for (k, p) in pubs.iter_mut().enumerate() {
        let line = serde_json::to_string(&cmd(k))
            .map_err(|e| BenchError::Protocol(format!("encode command: {e}")))?;
        p.command(&line)?;
    }
    pubs.iter().map(|p| p.wait_event(event, timeout)).collect()
}

fn sum(v: &[serde_json::Value], key: &str) -> u64 {
    v.iter().filter_map(|x| x[key].as_u64()).sum()
}

/// Runs the ddm benchmark.
pub fn run(
    placement: &Placement,
    opts: &DdmOptions,
    command: String,
    timeout: Duration,
) -> Result<DdmReport, BenchError> {
    if opts.publishers == 0 || opts.entities == 0 {
        return Err(BenchError::Protocol(
            "ddm needs at least one publisher and one entity".into(),
        ));
    }
    if !(opts.fraction > 0.0 && opts.fraction <= 1.0) {
        return Err(BenchError::Protocol(format!(
            "--fraction {}: use a value in (0, 1]",
            opts.fraction
        )));
    }
    if let Some(max) = placement.peer_hosts()
        && opts.publishers > max
    {
        return Err(BenchError::Protocol(format!(
            "{} publishers wanted but the lab has only {max} peer hosts",
            opts.publishers
        )));
    }
    let started = Instant::now();
    let started_unix_ms = report::unix_ms();
    let machine = Machine::describe();
    let deadline = started + timeout;
    let cfg = NetParams::for_run(placement.addr(1)?, placement.ttl()).transport_config();
    let per_dim = u64::from(cfg.cells_per_dimension.max(1));
    let cell = SPACE / per_dim;
    // The subscription square: side √f × SPACE, its corner on the grid (the cell right of and
    // above the plane's centre when it is one cell), or half a cell further for the unaligned
    // placement.
    let side = ((opts.fraction.sqrt() * SPACE as f64).round() as u64).clamp(1, SPACE);
    let corner = ((SPACE / 2).min(SPACE - side) / cell) * cell;
    let aligned = Square::at(corner, corner, side);
    let off = (corner + cell / 2).min(SPACE - side);
    let unaligned = Square::at(off, off, side);
    let mut plan = vec![("regions-aligned", true, vec![aligned])];
    if opts.unaligned {
        plan.push(("regions-unaligned", true, vec![unaligned]));
    }
    let all_watches: Vec<Square> = plan.iter().map(|p| p.2[0]).collect();
    if opts.baseline_first {
        plan.insert(0, ("no-regions", false, all_watches));
    } else {
        plan.push(("no-regions", false, all_watches));
    }
    let mut runs = Vec::new();
    let mut moving = None;
    for (i, (name, regions, watches)) in plan.into_iter().enumerate() {
        let (r, m) = one_run(
            placement,
            opts,
            i,
            name,
            regions,
            &watches,
            (cell, per_dim),
            deadline,
        )?;
        runs.push(r);
        if m.is_some() {
            moving = m;
        }
    }
    let ratio = |a: f64, b: f64| a / b.max(f64::MIN_POSITIVE);
    let ratios: Vec<DdmRatios> = match runs.iter().find(|r| !r.regions) {
        Some(base) => runs
            .iter()
            .filter(|r| r.regions)
            .map(|r| DdmRatios {
                run: r.name.clone(),
                datagrams: ratio(r.datagrams_received as f64, base.datagrams_received as f64),
                best_effort_datagrams: ratio(
                    r.best_effort_datagrams_received as f64,
                    base.best_effort_datagrams_received as f64,
                ),
                cpu_per_relevant: ratio(
                    r.cpu_us_per_relevant,
                    std::iter::once((base.watch, base.cpu_us_per_relevant))
                        .chain(
                            base.other_watches
                                .iter()
                                .map(|o| (o.watch, o.cpu_us_per_relevant)),
                        )
                        .find(|(w, _)| *w == r.watch)
                        .map_or(0.0, |(_, c)| c),
                ),
                latency_p50: ratio(r.latency.p50_us, base.latency.p50_us),
                latency_p99: ratio(r.latency.p99_us, base.latency.p99_us),
            })
            .collect(),
        None => Vec::new(),
    };
    let first = ratios.first();
    Ok(DdmReport {
        subcommand: "ddm".into(),
        command,
        started_unix_ms,
        duration_s: started.elapsed().as_secs_f64(),
        placement: placement.describe(),
        machine,
        options: opts.clone(),
        cells_per_dimension: cfg.cells_per_dimension,
        max_joined_cells: cfg.max_joined_cells,
        cells: per_dim.min(SPACE) * per_dim.min(SPACE),
        datagram_target_met: first.is_some_and(|r| r.datagrams <= 0.125),
        cpu_target_met: first.is_some_and(|r| r.cpu_per_relevant <= 1.0),
        runs,
        ratios,
        moving,
    })
}

/// One run in its own federation with fresh publishers; the aligned one (the first) also runs
/// the moving phase.
#[allow(clippy::too_many_arguments)]
fn one_run(
    placement: &Placement,
    opts: &DdmOptions,
    index: usize,
    name: &str,
    regions: bool,
    watches: &[Square],
    (cell, per_dim): (u64, u64),
    deadline: Instant,
) -> Result<(DdmRun, Option<MovePhase>), BenchError> {
    let watch = *watches
        .first()
        .ok_or_else(|| BenchError::Protocol("no subscription region".into()))?;
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(BenchError::Protocol(
            "ddm run exceeded its time bound".into(),
        ));
    }
    let step = Duration::from_secs(60).min(left);
    let net = NetParams::for_run(placement.addr(1)?, placement.ttl());
    let federation = format!("bench-ddm-{}-{index}", std::process::id());
    let sub = Subscriber::join(
        &net,
        &federation,
        watches,
        regions,
        opts.reliable,
        Instant::now() + step,
    )?;
    let mut pubs = Vec::new();
    for k in 0..opts.publishers {
        let mut args = net.on(placement.addr(k + 2)?).to_args();
        args.extend([
            "--role".to_string(),
            Role::DdmPublisher.arg().to_string(),
            "--level".to_string(),
            Level::Rti.arg().to_string(),
            "--federation".to_string(),
            federation.clone(),
            "--timeout-s".to_string(),
            (left + step).as_secs().max(1).to_string(),
        ]);
        pubs.push(placement.spawn_peer(k, &args)?);
    }
    for p in &pubs {
        p.wait_event("ready", step)?;
    }
    let setup = all(
        &mut pubs,
        |k| {
            PublisherCommand::Setup(PublisherSetup {
                index: k,
                publishers: opts.publishers,
                entities: opts.entities,
                regions,
                radius: opts.radius,
                speed: opts.speed,
                seed: opts.seed,
                reliable: opts.reliable,
            })
        },
        "setup",
        step,
    )?;
    if sum(&setup, "entities") != opts.entities as u64 {
        return Err(BenchError::Protocol(format!(
            "publishers registered {} of {} entities",
            sum(&setup, "entities"),
            opts.entities
        )));
    }
    let run_cmd = |secs: f64| {
        move |_k: usize| PublisherCommand::Run {
            seconds: secs,
            rate_hz: opts.rate_hz,
            watch,
        }
    };
    let answer_within = |secs: f64| Duration::from_secs_f64(secs * 2.0 + 10.0).min(step);
    // Warm-up: the same traffic, unmeasured.
    if opts.warmup_s > 0.0 {
        all(
            &mut pubs,
            run_cmd(opts.warmup_s),
            "sent",
            answer_within(opts.warmup_s),
        )?;
    }
    let drain = Duration::from_millis(200);
    std::thread::sleep(drain);
    let counters = ProcessCounters::now();
    let dg0 = counters.get("hlamesh_multicast_datagrams_received_total");
    let cells0 = sub.cells();
    let cpu0 = ProcSample::now();
    {
        let mut t = sub.tally.lock().unwrap_or_else(|e| e.into_inner());
        t.measuring = true;
    }
    let t0 = Instant::now();
    let sent = all(
        &mut pubs,
        run_cmd(opts.seconds),
        "sent",
        answer_within(opts.seconds),
    )?;
    // Late datagrams still count: what was sent in the run arrives within the drain.
    std::thread::sleep(drain);
    let (reflected, relevant, latency) = {
        let mut t = sub.tally.lock().unwrap_or_else(|e| e.into_inner());
        t.measuring = false;
        (
            t.reflected,
            t.relevant.clone(),
            LatencySummary::of(&t.latency),
        )
    };
    let wall = t0.elapsed();
    let cpu = ProcSample::now().since(cpu0);
    let cells1 = sub.cells();
    let dg1 = ProcessCounters::now().get("hlamesh_multicast_datagrams_received_total");
    let cpu_us = cpu.cpu_ns as f64 / 1e3;
    let per = |n: u64| if n == 0 { 0.0 } else { cpu_us / n as f64 };
    let first = relevant.first().copied().unwrap_or(0);
    let run = DdmRun {
        name: name.to_string(),
        regions,
        watch,
        cells_covered: watch.cells(cell, per_dim).len(),
        wall_s: wall.as_secs_f64(),
        updates_sent: sum(&sent, "updates"),
        relevant_sent: sum(&sent, "relevant"),
        region_commits: sum(&sent, "commits"),
        cell_datagrams_sent: sum(&sent, "cell_datagrams"),
        wide_fallbacks: sum(&sent, "wide_fallbacks"),
        late_sends: sum(&sent, "late"),
        datagrams_received: dg1.saturating_sub(dg0),
        best_effort_datagrams_received: cells1
            .best_effort_received
            .saturating_sub(cells0.best_effort_received),
        reflected,
        relevant_reflected: first,
        cpu_us,
        cpu_us_per_relevant: per(first),
        other_watches: watches
            .iter()
            .zip(&relevant)
            .skip(1)
            .map(|(w, n)| OtherWatch {
                watch: *w,
                relevant_reflected: *n,
                cpu_us_per_relevant: per(*n),
            })
            .collect(),
        ctx_switches: cpu.ctx_switches,
        latency,
        groups_joined_now: cells1.joined_now,
        join_failures: cells1.join_failures,
        received_by_group: by_group(&cells0.received_by_group, &cells1.received_by_group),
    };
    let moving = match (index, opts.move_seconds > 0.0) {
        (_, true) if name == "regions-aligned" => {
            Some(move_phase(&sub, opts, watch, (cell, per_dim), deadline)?)
        }
        _ => None,
    };
    drop(pubs);
    drop(sub);
    Ok((run, moving))
}

/// The per-group received counts between two samples, labelled, groups with none left out.
fn by_group(before: &[u64], after: &[u64]) -> Vec<(String, u64)> {
    after
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let d = n.saturating_sub(before.get(i).copied().unwrap_or(0));
            (
                hlamesh_transport::metrics::GroupCounters::label(i, after.len()),
                d,
            )
        })
        .filter(|(_, d)| *d > 0)
        .collect()
}

/// Moves the subscription region along a straight line that bounces off the plane's edges,
/// `move_hz` commits a second, and counts the cell-group joins and leaves.
fn move_phase(
    sub: &Subscriber,
    opts: &DdmOptions,
    start: Square,
    (cell, per_dim): (u64, u64),
    deadline: Instant,
) -> Result<MovePhase, BenchError> {
    let Some(region) = sub.region else {
        return Err(BenchError::Protocol(
            "the moving phase needs a region".into(),
        ));
    };
    let side = start.x1 - start.x0;
    let room = (SPACE - side) as f64;
    let hz = opts.move_hz.clamp(1.0, 1000.0);
    let steps = (opts.move_seconds * hz).ceil() as u64;
    let dt = 1.0 / hz;
    // A heading that is not along an axis, so that it crosses cell borders on both.
    let (mut vx, mut vy) = (opts.move_speed * 0.8, opts.move_speed * 0.6);
    let (mut x, mut y) = (start.x0 as f64, start.y0 as f64);
    let before = sub.cells();
    let mut covered: std::collections::BTreeSet<u64> =
        start.cells(cell, per_dim).into_iter().collect();
    let (mut exact_joins, mut max_now, mut commits) = (0u64, before.joined_now, 0u64);
    let t0 = Instant::now();
    for i in 0..steps {
        if Instant::now() > deadline {
            break;
        }
        let due = t0 + Duration::from_secs_f64(i as f64 * dt);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        for (p, v) in [(&mut x, &mut vx), (&mut y, &mut vy)] {
            *p += *v * dt;
            if *p < 0.0 {
                *p = -*p;
                *v = -*v;
            }
            if *p > room {
                *p = (2.0 * room - *p).max(0.0);
                *v = -*v;
            }
        }
        let sq = Square::at(x as u64, y as u64, side);
        set_square(&sub.rti, region, sub.dims, sq)?;
        sub.rti.commit_region_modifications(&[region])?;
        commits += 1;
        let now: std::collections::BTreeSet<u64> = sq.cells(cell, per_dim).into_iter().collect();
        exact_joins += now.difference(&covered).count() as u64;
        covered = now;
        max_now = max_now.max(sub.cells().joined_now);
    }
    let wall = t0.elapsed().as_secs_f64().max(1e-9);
    let after = sub.cells();
    let joins = after.joined.saturating_sub(before.joined);
    let leaves = after.left.saturating_sub(before.left);
    Ok(MovePhase {
        wall_s: wall,
        speed: opts.move_speed,
        commits,
        joins,
        leaves,
        joins_per_s: joins as f64 / wall,
        leaves_per_s: leaves as f64 / wall,
        exact_joins_per_s: exact_joins as f64 / wall,
        max_joined_now: max_now,
        join_failures: after.join_failures.saturating_sub(before.join_failures),
    })
}

/// The table printed on stdout.
pub fn table(r: &DdmReport) -> String {
    let o = &r.options;
    let mut s = format!(
        "ddm: {} publishers, {} entities at {} Hz, f = {:.4}, {} s per run — grid {} × {} cells, {} cell groups — {} — {} cores, {}\n",
        o.publishers,
        o.entities,
        o.rate_hz,
        o.fraction,
        o.seconds,
        r.cells_per_dimension,
        r.cells_per_dimension,
        r.max_joined_cells,
        r.placement,
        r.machine.cores,
        r.machine.cpu_model
    );
    s.push_str(&format!(
        "{:<18} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>6}\n",
        "run",
        "sent",
        "commits",
        "dgrams in",
        "BE in",
        "reflected",
        "relevant",
        "cpu/rel",
        "p50 µs",
        "p99 µs",
        "groups"
    ));
    for x in &r.runs {
        s.push_str(&format!(
            "{:<18} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9.1} {:>8.1} {:>8.1} {:>6}\n",
            x.name,
            x.updates_sent,
            x.region_commits,
            x.datagrams_received,
            x.best_effort_datagrams_received,
            x.reflected,
            x.relevant_reflected,
            x.cpu_us_per_relevant,
            x.latency.p50_us,
            x.latency.p99_us,
            x.groups_joined_now
        ));
    }
    for x in &r.runs {
        let groups: Vec<String> = x
            .received_by_group
            .iter()
            .map(|(g, n)| format!("{g} {n}"))
            .collect();
        s.push_str(&format!(
            "{} received by group: {}\n",
            x.name,
            groups.join(", ")
        ));
    }
    for x in &r.ratios {
        s.push_str(&format!(
            "{} ÷ no-regions: datagrams {:.3} (best effort {:.3}), CPU per relevant update {:.2}, latency p50 {:.2} p99 {:.2}\n",
            x.run,
            x.datagrams,
            x.best_effort_datagrams,
            x.cpu_per_relevant,
            x.latency_p50,
            x.latency_p99
        ));
    }
    if let Some(m) = &r.moving {
        s.push_str(&format!(
            "moving region at {} units/s for {:.1} s ({} commits): {:.2} joins/s, {:.2} leaves/s (exact membership without hysteresis: {:.2} joins/s), at most {} groups joined\n",
            m.speed,
            m.wall_s,
            m.commits,
            m.joins_per_s,
            m.leaves_per_s,
            m.exact_joins_per_s,
            m.max_joined_now
        ));
    }
    s.push_str(&format!(
        "targets (aligned): datagrams ≤ 1/8 {}, CPU per relevant update ≤ baseline {}\n",
        if r.datagram_target_met {
            "met"
        } else {
            "NOT met"
        },
        if r.cpu_target_met { "met" } else { "NOT met" }
    ));
    s
}

/// Relevant-update latency CDFs of every run.
pub fn plot(r: &DdmReport) -> crate::plot::Plot {
    let series: Vec<(String, Vec<(f64, f64)>)> = r
        .runs
        .iter()
        .map(|x| (x.name.clone(), x.latency.cdf.clone()))
        .collect();
    crate::plot::Plot::latency_cdf(
        "hlamesh-bench ddm: update → reflect latency of relevant updates",
        &series,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_round_trips_and_relevance_is_overlap() {
        let s = Sample {
            sent_ns: 123_456_789,
            publisher: 1,
            entity: 42,
            region: Square {
                x0: 240,
                x1: 260,
                y0: 10,
                y1: 30,
            },
        };
        assert_eq!(Sample::decode(&s.encode()), Some(s));
        assert!(Sample::decode(&[0; 8]).is_none());
        let cell = Square::at(250, 0, 250);
        assert!(s.region.overlaps(&cell));
        assert!(!s.region.overlaps(&Square::at(260, 0, 250)));
        assert_eq!(cell.cells(250, 4), vec![1]);
        assert_eq!(Square::at(375, 375, 250).cells(250, 4), vec![5, 6, 9, 10]);
    }

    #[test]
    fn entities_stay_on_the_plane_and_their_regions_cover_them() {
        let mut e = Entity::new(7, 3, 400.0);
        for _ in 0..10_000 {
            e.step(0.01);
            e.recentre(20);
            let r = e.region(20);
            assert!(r.x1 <= SPACE && r.y1 <= SPACE && r.x0 < r.x1 && r.y0 < r.y1);
            assert!(
                (r.x0 as f64) <= e.x + 1.0 && e.x < r.x1 as f64 + 1.0,
                "{r:?} {e:?}"
            );
        }
        let (a, b) = (Entity::new(7, 3, 1.0), Entity::new(7, 3, 1.0));
        assert_eq!((a.x, a.y), (b.x, b.y));
    }
}
