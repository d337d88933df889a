//! One run of the unified simulator: the simulated LRCs ([`SimLrc`]: transport core, host,
//! federation cores and time managers, joined by the shipped driver) on one network model
//! ([`Net`]), the federates that call them ([`Federate`]), the faults, the checks — and the
//! liveness phase, in which the faults stop and the federation must converge.
//!
//! A run is a discrete-event loop over virtual time (`World::step`): each step moves the clock
//! to the next thing due — an arrival of the network, a node's transport timer, a node's pump
//! tick (every 50 ms), a federate's next call — and handles everything due then, in a fixed
//! order, so a seed always replays the same run. After every driver run the harness settles
//! what it produced (`World::settle`): transport events and sends to the stream check,
//! callbacks to the federate models and the object and time checks, finished calls to their
//! federates. The membership check runs at every tick.
//!
//! The run: LRCs start (the first creates the federation), federates join, declare, register,
//! update, interact, synchronize, save, manage time and resign at random while the network
//! loses, duplicates and reorders datagrams, partitions and crashes happen (each as
//! [`Options`] turns them on). Then `World::liveness`: partitions heal, loss stops, no more
//! crashes or churn; the federates finish what they were asked (achieve the points announced,
//! report their saves, advance to a common time) and within [`Options::liveness_us`] every
//! federate must have converged — joins done, points synchronized, saves ended, requests
//! granted, the members' views identical, every stream delivered, and after one last update of
//! every instance every subscriber holding its last value. A run that does not is a failure
//! like any broken invariant.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use hlamesh_core::core::{Callback, Completion, FederationCore};
use hlamesh_core::error::RtiError;
use hlamesh_core::fom::{Fdd, FomModule, OrderType};
use hlamesh_core::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};
use hlamesh_transport::NodeId;
use hlamesh_transport::core::TransportEvent;

use crate::Rng;
use crate::check::membership;
use crate::check::objects::{ObjectsCheck, Subscription};
use crate::check::pings::PingsCheck;
use crate::check::regions::RegionsCheck;
use crate::check::stream::StreamCheck;
use crate::check::time::TimeCheck;
use crate::federate::{Federate, Life};
use crate::lrc::{Disk, FedId, Observed, Out, SimLrc};
use crate::net::{Arrival, Net};
use crate::options::Options;
use crate::transport::{SimTransport, TransportSettings};

/// The one federation every simulated LRC takes part in.
pub const FED: &str = "Unified";

/// The FOM of the simulated federation.
pub const FOM: &str = include_str!("../../fed-examples/foms/MovingObject.xml");

/// The FOM in region mode ([`Options::regions`]): [`FOM`] with dimensions `X` and `Y` on
/// `Vehicle.Position`.
pub const REGIONS_FOM: &str = include_str!("../foms/MovingObjectRegions.xml");

/// The module [`Options::region_interactions`] adds: `Ping` over `X` and `Y`.
pub const PINGS_FOM: &str = include_str!("../foms/Pings.xml");

/// The names and texts of the FOM modules of a run with `opts`.
fn fom_modules(opts: &Options) -> Vec<(&'static str, &'static str)> {
    match (opts.regions, opts.region_interactions) {
        (false, _) => vec![("MovingObject.xml", FOM)],
        (true, false) => vec![("MovingObjectRegions.xml", REGIONS_FOM)],
        (true, true) => vec![
            ("MovingObjectRegions.xml", REGIONS_FOM),
            ("Pings.xml", PINGS_FOM),
        ],
    }
}

/// The pump's period.
pub const TICK_US: u64 = 50_000;

/// The longest a flow-controlled sender waits for room (`MAX_FLOW_WAIT`).
const MAX_FLOW_WAIT_US: u64 = 2_000_000;

/// How long a blocking call (join, resign) waits for the coordinator (`CALL_TIMEOUT`).
const CALL_TIMEOUT_US: u64 = 10_000_000;

/// Most steps of one run (a bound on the loop; a run takes far fewer).
const MAX_STEPS: u64 = 20_000_000;

/// The handles of the FOM's classes the federates use.
#[derive(Clone, Debug)]
pub struct Fom {
    /// `Vehicle`.
    pub vehicle: ObjectClassHandle,
    /// `Vehicle.Car` (every instance is one).
    pub car: ObjectClassHandle,
    /// `Position`: each owner counts it up per instance.
    pub position: AttributeHandle,
    /// `Heading`.
    pub heading: AttributeHandle,
    /// `Colour` (of `Car`).
    pub colour: AttributeHandle,
    /// `Command` (subscribed).
    pub command: InteractionClassHandle,
    /// `Command.Stop` (sent).
    pub stop: InteractionClassHandle,
    /// `Text` of `Command`.
    pub text: ParameterHandle,
    /// `Reason` of `Stop`.
    pub reason: ParameterHandle,
    /// The dimensions of `Position` (`X`, `Y`; none outside region mode).
    pub dims: Vec<DimensionHandle>,
    /// `Ping` and its `Seq` ([`Options::region_interactions`] only).
    pub ping: Option<(InteractionClassHandle, ParameterHandle)>,
}

impl Fom {
    fn load(opts: &Options) -> Result<Fom, String> {
        fn e(e: impl std::fmt::Display) -> String {
            e.to_string()
        }
        let modules = fom_modules(opts)
            .into_iter()
            .map(|(name, text)| FomModule::parse(name, text).map_err(e))
            .collect::<Result<Vec<_>, _>>()?;
        let fdd = Fdd::load(&modules).map_err(e)?;
        let ping = match opts.region_interactions {
            true => {
                let c = fdd.interaction_class_handle("Ping").map_err(e)?;
                Some((c, fdd.parameter_handle(c, "Seq").map_err(e)?))
            }
            false => None,
        };
        let dims = if opts.regions {
            vec![
                fdd.dimension_handle("X").map_err(e)?,
                fdd.dimension_handle("Y").map_err(e)?,
            ]
        } else {
            Vec::new()
        };
        let vehicle = fdd.object_class_handle("Vehicle").map_err(e)?;
        let car = fdd.object_class_handle("Vehicle.Car").map_err(e)?;
        let command = fdd.interaction_class_handle("Command").map_err(e)?;
        let stop = fdd.interaction_class_handle("Command.Stop").map_err(e)?;
        Ok(Fom {
            vehicle,
            car,
            position: fdd.attribute_handle(vehicle, "Position").map_err(e)?,
            heading: fdd.attribute_handle(vehicle, "Heading").map_err(e)?,
            colour: fdd.attribute_handle(car, "Colour").map_err(e)?,
            command,
            stop,
            text: fdd.parameter_handle(command, "Text").map_err(e)?,
            reason: fdd.parameter_handle(stop, "Reason").map_err(e)?,
            dims,
            ping,
        })
    }
}

/// The checks of one run (see [`crate::check`]).
#[derive(Debug)]
pub struct Checks {
    /// Reliable streams.
    pub stream: StreamCheck,
    /// Discoveries, reflections, removals.
    pub objects: ObjectsCheck,
    /// Time management.
    pub time: TimeCheck,
    /// Regions (region mode).
    pub regions: RegionsCheck,
    /// Interactions with regions (region mode with pings).
    pub pings: PingsCheck,
}

/// A partition in progress.
#[derive(Clone, Debug)]
struct Partition {
    a: Vec<NodeId>,
    b: Vec<NodeId>,
    heal_at: u64,
}

/// What a run did: the coverage a sweep checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// LRCs started.
    pub lrcs: u64,
    /// Federates that joined.
    pub joined: u64,
    /// Federates that resigned.
    pub resigned: u64,
    /// LRCs crashed.
    pub crashes: u64,
    /// Partitions (healed).
    pub partitions: u64,
    /// LRCs evicted after a heal.
    pub evicted: u64,
    /// Updates sent.
    pub updates: u64,
    /// Reflections of a position.
    pub reflections: u64,
    /// Discoveries.
    pub discoveries: u64,
    /// Interactions received.
    pub interactions: u64,
    /// Time grants.
    pub grants: u64,
    /// Messages delivered in time-stamp order.
    pub tso: u64,
    /// Points synchronized (per federate).
    pub synchronized: u64,
    /// Saves ended (per federate).
    pub saves_ended: u64,
    /// Reliable messages delivered by the transports.
    pub delivered: u64,
    /// Fell-behind events.
    pub fell_behind: u64,
    /// Datagrams the links lost.
    pub lost: u64,
    /// NACKs sent (frames).
    pub nacks: u64,
    /// Times a sender waited for room.
    pub flow_waits: u64,
    /// Region mode: reflections of an update sent in regions to a subscriber with regions.
    pub region_reflections: u64,
    /// Region mode: updates sent in a region that some subscriber's regions did not overlap.
    pub region_disjoint: u64,
    /// Region mode: reflections whose subscriber's regions moved between send and delivery.
    pub region_races: u64,
    /// Region mode with pings: pings sent in regions received by a federate subscribed with
    /// regions.
    pub ping_receipts_in_regions: u64,
    /// Region mode with pings: pings sent in regions some other federate's subscription did
    /// not overlap.
    pub ping_disjoint: u64,
    /// Region mode with pings: pings received in time-stamp order.
    pub ping_tso: u64,
    /// Cell groups ([`Options::cells`]): datagrams multicast to DDM cell groups.
    pub cell_datagrams: u64,
    /// Channel closes that waited for the members to acknowledge the closing LRC's stream.
    pub closes_waited: u64,
    /// Region moves that went inside the update after them (`hlamesh_core::core::move_fold`),
    /// counted at the LRCs alive at the end.
    pub moves_folded: u64,
    /// Virtual time the run took (µs).
    pub virtual_us: u64,
    /// Virtual time the liveness phase took to converge (µs).
    pub converged_after_us: u64,
}

impl Report {
    /// Adds `other`'s counts to this one's (a sweep's coverage).
    pub fn absorb(&mut self, other: &Report) {
        let Report {
            lrcs,
            joined,
            resigned,
            crashes,
            partitions,
            evicted,
            updates,
            reflections,
            discoveries,
            interactions,
            grants,
            tso,
            synchronized,
            saves_ended,
            delivered,
            fell_behind,
            lost,
            nacks,
            flow_waits,
            region_reflections,
            region_disjoint,
            region_races,
            ping_receipts_in_regions,
            ping_disjoint,
            ping_tso,
            cell_datagrams,
            closes_waited,
            moves_folded,
            virtual_us,
            converged_after_us,
        } = other;
        self.lrcs += lrcs;
        self.joined += joined;
        self.resigned += resigned;
        self.crashes += crashes;
        self.partitions += partitions;
        self.evicted += evicted;
        self.updates += updates;
        self.reflections += reflections;
        self.discoveries += discoveries;
        self.interactions += interactions;
        self.grants += grants;
        self.tso += tso;
        self.synchronized += synchronized;
        self.saves_ended += saves_ended;
        self.delivered += delivered;
        self.fell_behind += fell_behind;
        self.lost += lost;
        self.nacks += nacks;
        self.flow_waits += flow_waits;
        self.region_reflections += region_reflections;
        self.region_disjoint += region_disjoint;
        self.region_races += region_races;
        self.ping_receipts_in_regions += ping_receipts_in_regions;
        self.ping_disjoint += ping_disjoint;
        self.ping_tso += ping_tso;
        self.cell_datagrams += cell_datagrams;
        self.closes_waited += closes_waited;
        self.moves_folded += moves_folded;
        self.virtual_us += virtual_us;
        self.converged_after_us = self.converged_after_us.max(*converged_after_us);
    }
}

/// A failed run: the seed, its options, when and what.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The seed.
    pub seed: u64,
    /// Its options.
    pub options: Box<Options>,
    /// Virtual time of the failure (µs).
    pub at_us: u64,
    /// What broke.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seed {} at {:.3} s: {}\n(options: {})",
            self.seed,
            self.at_us as f64 / 1e6,
            self.message,
            self.options.summary()
        )
    }
}

/// One run (see the module docs).
#[derive(Debug)]
pub struct World {
    pub(crate) seed: u64,
    pub(crate) opts: Options,
    pub(crate) rng: Rng,
    pub(crate) net: Net,
    pub(crate) lrcs: BTreeMap<NodeId, SimLrc>,
    pub(crate) feds: BTreeMap<FedId, Federate>,
    pub(crate) disk: Disk,
    out: Vec<Out>,
    observed: Vec<Observed>,
    pub(crate) checks: Checks,
    pub(crate) fom: Fom,
    /// Which side of the last partition each LRC was on (0: none, or it healed).
    side: BTreeMap<NodeId, u32>,
    /// LRCs labelled while still joining: their side is the one that admits them (see
    /// `check_step`).
    joiners: BTreeSet<NodeId>,
    partition: Option<Partition>,
    next_node: u64,
    next_fed: u32,
    pub(crate) next_action: u64,
    /// The `Seq` of the next ping ([`Options::region_interactions`]).
    pub(crate) next_ping: u64,
    pub(crate) faults_on: bool,
    /// The federation was created (by the first LRC with a federate to join).
    created: bool,
    pub(crate) report: Report,
    settings: TransportSettings,
    trace: bool,
}

/// Whether `e` refuses a service for a save or restore in progress (the federate tries later).
pub fn busy(e: &RtiError) -> bool {
    matches!(
        e,
        RtiError::SaveInProgress(_) | RtiError::RestoreInProgress(_)
    )
}

impl World {
    /// A world for `seed` with `opts`, nothing started yet.
    pub fn new(seed: u64, opts: Options, origin: Instant) -> Result<World, String> {
        let mut net = Net::new(seed, opts.network(), origin);
        net.set_max_datagram(opts.transport().data.max_datagram);
        if opts.break_repairs {
            net.drop_repairs();
        }
        let fom = Fom::load(&opts)?;
        Ok(World {
            seed,
            rng: Rng::seeded(seed),
            net,
            lrcs: BTreeMap::new(),
            feds: BTreeMap::new(),
            disk: Disk::new(),
            out: Vec::new(),
            observed: Vec::new(),
            checks: Checks {
                stream: StreamCheck::default(),
                objects: ObjectsCheck::new(fom.position),
                time: TimeCheck::default(),
                regions: RegionsCheck::default(),
                pings: PingsCheck::default(),
            },
            fom,
            side: BTreeMap::new(),
            joiners: BTreeSet::new(),
            partition: None,
            next_node: 100,
            next_fed: 1,
            next_action: 0,
            next_ping: 1,
            faults_on: true,
            created: false,
            report: Report::default(),
            settings: opts.transport(),
            opts,
            trace: crate::tracing_any(),
        })
    }

    /// The virtual time (µs).
    pub fn now(&self) -> u64 {
        self.net.now()
    }

    pub(crate) fn trace(&self, topic: &str, what: impl FnOnce() -> String) {
        if self.trace && crate::trace(topic) {
            eprintln!("[{:>10.3} ms] {}", self.now() as f64 / 1000.0, what());
        }
    }

    /// Runs the whole seed: the fault phase, then the liveness phase.
    pub fn run(mut self) -> Result<Report, Failure> {
        let r = self.run_phases();
        match r {
            Ok(()) => {
                self.report.virtual_us = self.now();
                self.report.reflections = self.checks.objects.reflections;
                self.report.discoveries = self.checks.objects.discoveries;
                self.report.grants = self.checks.time.grants;
                self.report.tso = self.checks.time.tso_delivered;
                self.report.delivered = self.checks.stream.delivered;
                self.report.fell_behind = self.checks.stream.fell_behind;
                self.report.lost = self.net.stats.lost;
                self.report.nacks = self.net.stats.nacks;
                self.report.cell_datagrams = self.net.stats.cell_datagrams;
                self.report.closes_waited = self.net.stats.closes_waited;
                self.report.moves_folded = self
                    .lrcs
                    .values()
                    .filter(|l| l.alive)
                    .filter_map(|l| l.core(FED).map(|c| c.ddm_moves_folded()))
                    .sum();
                self.report.region_reflections = self.checks.regions.in_regions;
                self.report.region_disjoint = self.checks.regions.disjoint;
                self.report.region_races = self.checks.regions.raced;
                self.report.ping_receipts_in_regions = self.checks.pings.in_regions;
                self.report.ping_disjoint = self.checks.pings.disjoint;
                self.report.ping_tso = self.checks.pings.in_time_order;
                Ok(self.report)
            }
            Err(message) => {
                self.dump();
                Err(Failure {
                    seed: self.seed,
                    options: Box::new(self.opts.clone()),
                    at_us: self.now(),
                    message,
                })
            }
        }
    }

    /// With `HLAMESH_SIM_TRACE=feds` (`dump`): the federates and the LRCs' state (cores) when a
    /// run fails.
    fn dump(&self) {
        if crate::trace("feds") {
            for m in self.feds.values().filter(|m| m.present()) {
                eprintln!("{m:?}");
            }
            for l in self.lrcs.values().filter(|l| l.alive) {
                if let Some(c) = l.core(FED) {
                    eprintln!(
                        "LRC {}: admitted {} view {:?} save {:?} points {:?}",
                        l.id,
                        c.is_admitted(),
                        c.view().nodes,
                        c.save_in_progress(),
                        c.sync_points()
                    );
                }
            }
        }
        if crate::trace("dump") {
            for l in self.lrcs.values().filter(|l| l.alive) {
                eprintln!(
                    "LRC {} peers {:?}: {:#?}",
                    l.id,
                    l.transport.peers(),
                    l.core(FED)
                );
            }
        }
    }

    fn run_phases(&mut self) -> Result<(), String> {
        let first = self.start_lrc();
        self.add_federate(first);
        let initial = if self.opts.churn { 1 } else { self.opts.lrcs };
        for _ in 1..initial {
            let n = self.start_lrc();
            self.add_federate(n);
        }
        let end = self.opts.fault_phase_us;
        self.run_until(end)?;
        self.liveness()?;
        let s = &self.net.stats;
        if s.oversized > 0 {
            return Err(format!(
                "{} data datagrams were longer than max_datagram {} (longest {})",
                s.oversized,
                self.opts.transport().data.max_datagram,
                s.longest
            ));
        }
        Ok(())
    }

    /// Steps until the clock reaches `t`.
    pub(crate) fn run_until(&mut self, t: u64) -> Result<(), String> {
        for _ in 0..MAX_STEPS {
            if self.now() >= t {
                return Ok(());
            }
            self.step(t)?;
        }
        Err(format!("the run took more than {MAX_STEPS} steps"))
    }

    /// When the next thing is due (no later than `limit`).
    fn next_time(&self, limit: u64) -> u64 {
        let mut next = limit;
        let mut consider = |t: Option<u64>| {
            if let Some(t) = t {
                next = next.min(t);
            }
        };
        consider(self.net.next_at());
        for l in self.lrcs.values().filter(|l| l.alive) {
            consider(l.transport.next_timer(&self.net));
            consider(Some(l.next_tick));
            consider(l.host.poll_timeout());
        }
        if self.faults_on {
            consider(Some(self.next_action));
        }
        consider(self.partition.as_ref().map(|p| p.heal_at));
        next.max(self.now())
    }

    /// One step: the clock moves to the next thing due (at most `limit`), and everything due
    /// then is handled.
    pub(crate) fn step(&mut self, limit: u64) -> Result<(), String> {
        let t = self.next_time(limit);
        self.net.advance(t);
        let now = self.now();
        // 1. What the network delivers now.
        let mut n = 0;
        while let Some(a) = self.net.pop_due() {
            self.arrive(a)?;
            n += 1;
            if n > 1_000_000 {
                return Err("a million arrivals at one instant".into());
            }
        }
        // 2. The transports' timers.
        let ids: Vec<NodeId> = self.lrcs.keys().copied().collect();
        for &id in &ids {
            let due = self.lrcs.get(&id).is_some_and(|l| {
                l.alive && l.transport.next_timer(&self.net).is_some_and(|t| t <= now)
            });
            if due {
                self.with_lrc(id, |l, net, disk, out, obs| {
                    let outs = l.transport.run_timers(net);
                    l.execute(net, disk, out, obs, outs);
                });
                self.settle(id)?;
            }
            let deadline = self
                .lrcs
                .get(&id)
                .is_some_and(|l| l.alive && l.host.poll_timeout().is_some_and(|t| t <= now));
            if deadline {
                self.with_lrc(id, |l, net, disk, out, _| l.handle_timeouts(net, disk, out));
                self.settle(id)?;
            }
        }
        // 3. The pumps' ticks.
        let mut ticked = false;
        for &id in &ids {
            if self
                .lrcs
                .get(&id)
                .is_some_and(|l| l.alive && l.next_tick <= now)
            {
                self.tick(id)?;
                ticked = true;
            }
        }
        if ticked {
            self.check_step()?;
        }
        // 4. A partition's heal.
        if self.partition.as_ref().is_some_and(|p| p.heal_at <= now) {
            self.heal();
        }
        // 5. The federates: joins that can start, calls that time out, and (in the fault phase)
        // a random call.
        self.try_joins()?;
        self.call_timeouts()?;
        if self.faults_on && self.next_action <= now {
            self.next_action = now + 500 + self.rng.below(4_000) as u64;
            self.random_action()?;
        }
        Ok(())
    }

    /// Runs `f` on LRC `id` (if it is alive) with the network, the disk, the outbox and the
    /// observed events. Settle afterwards.
    pub(crate) fn with_lrc<T>(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut SimLrc, &mut Net, &mut Disk, &mut Vec<Out>, &mut Vec<Observed>) -> T,
    ) -> Option<T> {
        let World {
            lrcs,
            net,
            disk,
            out,
            observed,
            ..
        } = self;
        let l = lrcs.get_mut(&id).filter(|l| l.alive)?;
        Some(f(l, net, disk, out, observed))
    }

    /// Runs API call `f` on LRC `id`'s federation core, as a federate's ambassador does; a
    /// full flow window makes the LRC's federates wait for room. Settle afterwards.
    pub(crate) fn call<T>(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut FederationCore) -> Result<T, RtiError>,
    ) -> Result<T, RtiError> {
        let now = self.now();
        let r = self.with_lrc(id, |l, net, disk, out, obs| {
            let (r, full) = l.call(net, disk, out, FED, f);
            let waits = full && l.waiting_room.is_none();
            if waits {
                // `wait_for_room`: flush, then ask every member for an acknowledgement.
                l.waiting_room = Some(now);
                if let Some(c) = l.channel(FED).cloned() {
                    let asks = l.transport.ask_for_room(net, &c);
                    l.execute(net, disk, out, obs, asks);
                }
            }
            (r, waits)
        });
        match r {
            Some((r, waits)) => {
                if waits {
                    self.report.flow_waits += 1;
                }
                r
            }
            None => Err(RtiError::RtiInternalError(format!(
                "LRC {id} is not running"
            ))),
        }
    }

    /// Whether the federates of LRC `id` may send now (not waiting for room in the flow
    /// window, or waited the longest `wait_for_room` waits).
    pub(crate) fn may_send(&mut self, id: NodeId) -> bool {
        let now = self.now();
        let Some(l) = self.lrcs.get_mut(&id) else {
            return false;
        };
        let Some(since) = l.waiting_room else {
            return true;
        };
        let room = l
            .channel(FED)
            .is_some_and(|c| c.has_room(self.net.instant(now)));
        if room || now >= since + MAX_FLOW_WAIT_US {
            l.waiting_room = None;
            return true;
        }
        false
    }

    /// What a network arrival does.
    fn arrive(&mut self, a: Arrival) -> Result<(), String> {
        match a {
            Arrival::Datagram { to, bytes } => {
                self.with_lrc(to, |l, net, disk, out, obs| {
                    let outs = l.transport.on_datagram(net, bytes);
                    l.execute(net, disk, out, obs, outs);
                });
                self.settle(to)
            }
            Arrival::Frame { from, to, bytes } => {
                // A frame from a peer this node does not count as connected (its loss was
                // noticed) never reaches it: that connection is gone.
                if !self
                    .lrcs
                    .get(&to)
                    .is_some_and(|l| l.transport.is_connected(from))
                {
                    return Ok(());
                }
                self.with_lrc(to, |l, net, disk, out, obs| {
                    let (outs, goodbye) = l.transport.on_frame(net, from, &bytes);
                    let outs = if goodbye {
                        l.transport.peer_gone(net, from, false)
                    } else {
                        outs
                    };
                    l.execute(net, disk, out, obs, outs);
                });
                self.settle(to)
            }
            Arrival::Lost { at, peer } => {
                self.trace("net", || format!("{at} notices {peer} lost"));
                if self.net.connected(at, peer) {
                    // Reconnected meanwhile: this notice is stale.
                    return Ok(());
                }
                self.with_lrc(at, |l, net, disk, out, obs| {
                    let outs = l.transport.peer_gone(net, peer, true);
                    l.execute(net, disk, out, obs, outs);
                });
                self.settle(at)
            }
            Arrival::Connected { a, b } => {
                let stale = |w: &World, x: NodeId, y: NodeId| {
                    w.lrcs.get(&x).is_some_and(|l| l.transport.is_connected(y))
                };
                if stale(self, a, b) || stale(self, b, a) {
                    // One end has not noticed the old connection's loss yet: dial again later.
                    self.net.redial(a, b, 100_000);
                    return Ok(());
                }
                if !self.net.connected_now(a, b) {
                    return Ok(());
                }
                self.trace("net", || format!("{a} and {b} connected"));
                for (x, y) in [(a, b), (b, a)] {
                    self.with_lrc(x, |l, net, _, _, _| l.transport.on_connected(net, y));
                }
                Ok(())
            }
        }
    }

    /// LRC `id`'s pump tick.
    fn tick(&mut self, id: NodeId) -> Result<(), String> {
        let announcers = self.announcers(id);
        self.with_lrc(id, |l, net, disk, out, _| {
            l.next_tick += TICK_US;
            l.tick(net, disk, out, &|_| announcers.clone());
        });
        self.settle(id)
    }

    /// The LRCs whose beacons LRC `id` hears announce the federation: alive, with the channel
    /// open, not cut off from it.
    pub(crate) fn announcers(&self, id: NodeId) -> Vec<u64> {
        self.lrcs
            .values()
            .filter(|l| l.alive && l.id != id && l.host.contains(FED) && !self.net.is_cut(id, l.id))
            .map(|l| l.id.0)
            .collect()
    }

    /// Hands what the last driver runs of LRC `id` produced to the checks and the federates,
    /// and finishes the calls that finished, until nothing is left.
    pub(crate) fn settle(&mut self, id: NodeId) -> Result<(), String> {
        for _ in 0..64 {
            let observed = std::mem::take(&mut self.observed);
            for o in &observed {
                self.observe(o)?;
            }
            let out = std::mem::take(&mut self.out);
            for o in out {
                self.outcome(id, o)?;
            }
            self.finished_calls(id)?;
            if self.observed.is_empty() && self.out.is_empty() {
                return Ok(());
            }
        }
        Err(format!("LRC {id}: its driver runs never settle"))
    }

    fn observe(&mut self, o: &Observed) -> Result<(), String> {
        if self.trace
            && crate::trace("ctl")
            && let TransportEvent::Control { from, payload, .. } = &o.event
            && let Ok(env) = hlamesh_core::core::wire::Envelope::decode(payload)
        {
            self.trace("ctl", || format!("ctl {from} -> {}: {:?}", o.at, env.msg));
        }
        if self.trace && crate::trace("events") {
            let what = match &o.event {
                TransportEvent::Data {
                    from, seq, payload, ..
                } => {
                    format!("data from {from} #{seq:?} ({} bytes)", payload.len())
                }
                e => format!("{e:?}"),
            };
            self.trace("events", || format!("{}: {what}", o.at));
        }
        if let TransportEvent::FederationPeer {
            node, joined: true, ..
        } = &o.event
            && let Some(first) = o.first_seq
            && self.checks.stream.restarts_past_a_gap(o.at, *node, first)
        {
            self.checks.objects.fell_behind(o.at, *node);
        }
        self.checks.stream.event(o.at, &o.event, o.first_seq)?;
        if let TransportEvent::FellBehind { from, .. } = &o.event {
            self.checks.objects.fell_behind(o.at, *from);
        }
        Ok(())
    }

    fn outcome(&mut self, id: NodeId, o: Out) -> Result<(), String> {
        match o {
            Out::Sent {
                node,
                seq,
                numbers,
                bytes,
                to_cells,
            } => self
                .checks
                .stream
                .sent(node, seq, numbers, &bytes, to_cells),
            Out::Closed { core } => {
                if let Some(l) = self.lrcs.get_mut(&id) {
                    l.closed = Some(core);
                }
                Ok(())
            }
            Out::ConnectionLost { fed, reason } => {
                self.trace("callbacks", || {
                    format!("{fed:?} on {id}: connection lost: {reason}")
                });
                if self.side.get(&id).is_none_or(|s| *s == 0) && self.partition.is_none() {
                    return Err(format!(
                        "LRC {id} lost its connection outside a partition: {reason}"
                    ));
                }
                self.report.evicted += 1;
                self.gone(fed);
                Ok(())
            }
            Out::Deliver {
                fed,
                federate,
                callback,
            } => self.deliver(id, fed, federate, callback),
        }
    }

    fn deliver(
        &mut self,
        id: NodeId,
        fed: FedId,
        federate: FederateHandle,
        cb: Callback,
    ) -> Result<(), String> {
        self.trace("callbacks", || format!("{federate} on {id}: {cb:?}"));
        let m = self
            .feds
            .get_mut(&fed)
            .ok_or_else(|| format!("LRC {id} routed {cb:?} to an unknown federate"))?;
        if m.node != id {
            return Err(format!(
                "LRC {id} routed a callback to federate {federate} of LRC {}",
                m.node
            ));
        }
        match m.handle {
            None => m.handle = Some(federate),
            Some(h) if h != federate => {
                return Err(format!("a callback for {federate} went to {h}'s route"));
            }
            Some(_) => {}
        }
        if !m.present() {
            return Ok(());
        }
        m.told(&cb);
        match &cb {
            Callback::ReceiveInteraction {
                class,
                params,
                info,
                ..
            } => {
                self.report.interactions += 1;
                match self.fom.ping {
                    Some((ping, seq)) if *class == ping => {
                        let n = params
                            .iter()
                            .find(|(p, _)| *p == seq)
                            .and_then(|(_, v)| v.as_slice().try_into().ok())
                            .map(u64::from_be_bytes)
                            .ok_or_else(|| format!("{federate} received a ping without Seq"))?;
                        let tso = info.received_order == OrderType::TimeStamp;
                        self.checks.pings.received(fed, n, tso)?;
                    }
                    _ if *class != self.fom.command => {
                        return Err(format!(
                            "{federate} received class {class}, not the one subscribed"
                        ));
                    }
                    _ => {}
                }
            }
            Callback::FederationSynchronized { .. } => self.report.synchronized += 1,
            Callback::FederationSaved | Callback::FederationNotSaved(_) => {
                self.report.saves_ended += 1
            }
            _ => {}
        }
        // The registrant's LRC as this LRC's view has it (handles are unique on one side of a
        // partition only).
        let registrant = match &cb {
            Callback::ReflectAttributeValues { object, .. } => self
                .lrcs
                .get(&id)
                .and_then(|l| l.core(FED))
                .and_then(|c| c.view().ran_on.get(&object.registrant()).copied())
                .map(NodeId),
            _ => None,
        };
        self.checks.objects.callback(fed, id, &cb, registrant)?;
        if self.opts.regions
            && let Callback::ReflectAttributeValues { object, values, .. } = &cb
        {
            for (a, v) in values {
                if *a == self.fom.position
                    && let Ok(b) = v.as_slice().try_into()
                {
                    self.checks
                        .regions
                        .reflected(fed, *object, u64::from_be_bytes(b))?;
                }
            }
        }
        self.checks.time.callback(fed, &cb)
    }

    /// Federate `fed` is gone (resigned, lost with its LRC, evicted).
    pub(crate) fn gone(&mut self, fed: FedId) {
        if let Some(m) = self.feds.get_mut(&fed) {
            m.life = Life::Gone;
            self.checks.objects.gone(fed);
            self.checks.time.gone(fed);
            self.checks.regions.gone(fed);
            self.checks.pings.gone(fed);
        }
    }

    /// The blocking calls of LRC `id`'s federates that finished: joins and resignations.
    fn finished_calls(&mut self, id: NodeId) -> Result<(), String> {
        let waiting: Vec<(FedId, Life)> = self
            .feds
            .values()
            .filter(|m| m.node == id && matches!(m.life, Life::Joining(_) | Life::Resigning(_)))
            .map(|m| (m.id, m.life))
            .collect();
        for (fed, life) in waiting {
            let (Life::Joining(t) | Life::Resigning(t)) = life else {
                continue;
            };
            let Some(done) = self
                .lrcs
                .get_mut(&id)
                .and_then(|l| l.host.take_done(FED, t))
            else {
                continue;
            };
            match (life, done) {
                (Life::Joining(_), Ok(Completion::Joined(h))) => {
                    if let Some(l) = self.lrcs.get_mut(&id) {
                        l.host.forget_join(FED, t);
                    }
                    let m = self.feds.get_mut(&fed).ok_or("a joiner vanished")?;
                    if m.handle.is_some_and(|x| x != h) {
                        return Err(format!(
                            "{} joined as {h}, routed as {:?}",
                            m.name, m.handle
                        ));
                    }
                    m.handle = Some(h);
                    m.life = Life::Joined;
                    self.report.joined += 1;
                    self.trace("actions", || format!("{fed:?} joined as {h} on {id}"));
                    self.declare(fed)?;
                }
                (Life::Joining(_), Err(e)) => {
                    self.trace("actions", || format!("{fed:?}'s join on {id} failed: {e}"));
                    if let Some(l) = self.lrcs.get_mut(&id) {
                        l.host.forget_join(FED, t);
                    }
                    self.gone(fed);
                    let admitted = self
                        .lrcs
                        .get(&id)
                        .and_then(|l| l.core(FED))
                        .is_some_and(|c| c.is_admitted());
                    let others = self.feds.values().any(|m| m.node == id && m.present());
                    if !admitted && !others {
                        // Nobody to join through any more: this process gives up.
                        self.crash(id);
                    }
                }
                (Life::Resigning(_), r) => {
                    let h = self.feds.get(&fed).and_then(|m| m.handle);
                    if let (Some(h), Some(l)) = (h, self.lrcs.get_mut(&id)) {
                        l.resigned(FED, h);
                    }
                    if let Err(e) = r {
                        self.trace("actions", || format!("{fed:?}'s resignation failed: {e}"));
                    }
                    self.report.resigned += 1;
                    self.gone(fed);
                }
                (_, r) => return Err(format!("{fed:?}: unexpected completion {r:?}")),
            }
        }
        Ok(())
    }

    /// A blocking call (join, resign) that waited longer than `Lrc::wait` waits fails the run:
    /// the shell would give its caller a timeout error, and nothing in a healed network should
    /// take that long.
    fn call_timeouts(&self) -> Result<(), String> {
        let now = self.now();
        let late = self
            .feds
            .values()
            .filter(|m| matches!(m.life, Life::Joining(_) | Life::Resigning(_)))
            .filter(|m| now > m.call_since + CALL_TIMEOUT_US)
            .find(|m| self.lrcs.get(&m.node).is_some_and(|l| l.alive));
        match late {
            Some(m) => Err(format!(
                "{:?}'s {:?} got no answer within {} s (LRC {})",
                m.id,
                m.life,
                CALL_TIMEOUT_US / 1_000_000,
                m.node
            )),
            None => Ok(()),
        }
    }

    /// Every running LRC is connected to every other and admitted (or has nothing to join):
    /// no join is under way that a partition could cut in two (see
    /// [`Options::partition_joiners`]).
    pub(crate) fn membership_at_rest(&self) -> bool {
        let alive: Vec<&SimLrc> = self.lrcs.values().filter(|l| l.alive).collect();
        let joined = alive.iter().all(|l| {
            let joining = self
                .feds
                .values()
                .any(|m| m.node == l.id && matches!(m.life, Life::Waiting | Life::Joining(_)));
            !joining && l.host.get(FED).is_none_or(|f| f.core.is_admitted())
        });
        let connected = alive.iter().all(|a| {
            alive
                .iter()
                .all(|b| a.id == b.id || a.transport.is_connected(b.id))
        });
        joined && connected
    }

    /// A new LRC: on the network, connecting to every LRC it can reach.
    pub(crate) fn start_lrc(&mut self) -> NodeId {
        let id = NodeId(self.next_node);
        self.next_node += 1;
        self.net.add_node(id);
        let first_tick = self.now() + 1 + self.rng.below(TICK_US as usize) as u64;
        let transport = SimTransport::new(id, self.settings.clone());
        self.lrcs.insert(id, SimLrc::new(id, transport, first_tick));
        let others: Vec<NodeId> = self
            .lrcs
            .values()
            .filter(|l| l.alive && l.id != id)
            .map(|l| l.id)
            .collect();
        for o in others {
            self.net.connect(id, o);
        }
        self.report.lrcs += 1;
        self.trace("actions", || format!("LRC {id} starts"));
        id
    }

    /// A new federate on LRC `node`, which joins as soon as its LRC can.
    pub(crate) fn add_federate(&mut self, node: NodeId) -> FedId {
        let id = FedId(self.next_fed);
        self.next_fed += 1;
        let f = &self.fom;
        let sub = match self.rng.below(3) {
            0 => Subscription {
                class: f.vehicle,
                attrs: [f.position].into(),
            },
            1 => Subscription {
                class: f.car,
                attrs: [f.position, f.colour].into(),
            },
            _ => Subscription {
                class: f.vehicle,
                attrs: [f.position, f.heading].into(),
            },
        };
        let name = format!("fed{}", id.0);
        let mut m = Federate::new(id, node, name, sub);
        // Region mode: two in three federates subscribe to `Position` with regions.
        if self.opts.regions && self.rng.below(3) != 0 {
            m.ddm.sub = Some(Default::default());
        }
        self.feds.insert(id, m);
        id
    }

    /// Federates waiting for their LRC to hear the federation start their joins: the first
    /// LRC of all creates it (it won the create race alone), the others open it as joiners
    /// once an LRC announcing it is connected (`ensure_open`).
    fn try_joins(&mut self) -> Result<(), String> {
        let waiting: Vec<(FedId, NodeId)> = self
            .feds
            .values()
            .filter(|m| m.life == Life::Waiting)
            .map(|m| (m.id, m.node))
            .collect();
        for (fed, node) in waiting {
            if !self.lrcs.get(&node).is_some_and(|l| l.alive) {
                self.gone(fed);
                continue;
            }
            let open = self.lrcs.get(&node).is_some_and(|l| l.host.contains(FED));
            if !open {
                let announcers = self.announcers(node);
                // The create race's winner: the first LRC with a federate to join.
                let first = !self.created;
                let heard = announcers.iter().any(|a| {
                    self.lrcs
                        .get(&node)
                        .is_some_and(|l| l.transport.is_connected(NodeId(*a)))
                });
                let fold = self.opts.fold_every;
                let tune = move |c: &mut FederationCore| {
                    if fold > 0 {
                        c.set_fold_thresholds(fold, 2);
                    }
                };
                let modules: Vec<(String, String)> = fom_modules(&self.opts)
                    .into_iter()
                    .map(|(n, t)| (n.into(), t.into()))
                    .collect();
                let r = if first {
                    self.with_lrc(node, |l, net, disk, out, _| {
                        l.create(net, disk, out, FED, modules, tune)
                    })
                } else if heard {
                    self.with_lrc(node, |l, net, disk, out, _| {
                        l.open_joining(net, disk, out, FED, announcers, tune)
                    })
                } else {
                    continue;
                };
                self.created = true;
                if let Some(Err(e)) = r {
                    self.trace("actions", || {
                        format!("{fed:?} cannot open the federation: {e}")
                    });
                    self.gone(fed);
                    continue;
                }
                self.settle(node)?;
            }
            let name = self.feds[&fed].name.clone();
            let r = self.with_lrc(node, |l, net, disk, out, _| {
                l.join(net, disk, out, FED, &name, fed)
            });
            match r {
                Some(Ok(t)) => {
                    if let Some(m) = self.feds.get_mut(&fed) {
                        m.life = Life::Joining(t);
                        m.call_since = self.net.now();
                    }
                    self.trace("actions", || format!("{fed:?} ({name}) joins on {node}"));
                }
                _ => self.gone(fed),
            }
            self.settle(node)?;
        }
        Ok(())
    }

    /// LRC `id` crashes: its federates die with it.
    pub(crate) fn crash(&mut self, id: NodeId) {
        let Some(l) = self.lrcs.get_mut(&id) else {
            return;
        };
        if !l.alive {
            return;
        }
        l.alive = false;
        let others: Vec<NodeId> = self
            .lrcs
            .values()
            .filter(|l| l.alive)
            .map(|l| l.id)
            .collect();
        self.net.crash(id, &others);
        let feds: Vec<FedId> = self
            .feds
            .values()
            .filter(|m| m.node == id)
            .map(|m| m.id)
            .collect();
        for f in feds {
            self.gone(f);
        }
        self.report.crashes += 1;
        self.trace("actions", || format!("LRC {id} crashes"));
    }

    /// The admitted live members of the federation: (node, side, core).
    fn members(&self) -> Vec<(NodeId, u32, &FederationCore)> {
        self.lrcs
            .values()
            .filter(|l| l.alive)
            .filter_map(|l| l.host.get(FED).map(|f| (l.id, &f.core)))
            .filter(|(_, c)| c.is_admitted())
            .map(|(n, c)| (n, self.side.get(&n).copied().unwrap_or(0), c))
            .collect()
    }

    /// The membership invariants, at every tick.
    fn check_step(&mut self) -> Result<(), String> {
        // A joiner cut off with one side may be admitted by the other once the partition
        // heals (its join is retried to every member it reaches): it is of the side whose
        // coordinator admitted it, the one its view names. Admitted during the partition (by
        // a Welcome that crossed the cut, seed 1101 of the joiner sweep), it hears only its
        // own side from then on, and stays of it.
        let admitted: Vec<(NodeId, Option<u32>)> = self
            .members()
            .into_iter()
            .filter(|(n, ..)| self.joiners.contains(n))
            .map(|(n, _, c)| {
                let by = c.coordinator().filter(|c| *c != n.0).map(NodeId);
                (n, by.and_then(|c| self.side.get(&c).copied()))
            })
            .collect();
        let healed = self.partition.is_none();
        for (n, side) in admitted {
            self.joiners.remove(&n);
            if let Some(s) = side.filter(|s| *s != 0 && healed) {
                self.side.insert(n, s);
            }
        }
        let members = self.members();
        membership::check_step(&members)?;
        // After a heal, once the members left are all of one side (the others were evicted),
        // the sides are one again.
        if self.partition.is_none() && self.side.values().any(|s| *s != 0) {
            // Every LRC with the federation open counts, joiners too (one cut off while joining
            // is evicted when its Welcome comes).
            let sides: BTreeSet<u32> = self
                .lrcs
                .values()
                .filter(|l| l.alive && l.host.contains(FED))
                .map(|l| self.side.get(&l.id).copied().unwrap_or(0))
                .collect();
            if sides.len() <= 1 {
                self.side.clear();
                self.joiners.clear();
            }
        }
        Ok(())
    }

    /// A partition: the LRCs split in two at random, each side carries on alone until the
    /// heal.
    pub(crate) fn partition(&mut self) {
        let alive: Vec<NodeId> = self
            .lrcs
            .values()
            .filter(|l| l.alive)
            .map(|l| l.id)
            .collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for n in alive {
            if self.rng.below(2) == 0 {
                a.push(n);
            } else {
                b.push(n);
            }
        }
        if a.is_empty() || b.is_empty() {
            return;
        }
        let label = self.side.values().copied().max().unwrap_or(0) + 1;
        for n in &a {
            self.side.insert(*n, label);
        }
        for n in &b {
            self.side.insert(*n, label + 1);
        }
        self.joiners = a
            .iter()
            .chain(&b)
            .copied()
            .filter(|n| {
                self.lrcs
                    .get(n)
                    .and_then(|l| l.host.get(FED))
                    .is_none_or(|f| !f.core.is_admitted())
            })
            .collect();
        self.net.cut(&a, &b);
        let heal_at = self.now() + 1_500_000 + self.rng.below(1_500_000) as u64;
        self.trace("actions", || {
            format!("partition {a:?} | {b:?} until {heal_at} µs")
        });
        self.partition = Some(Partition { a, b, heal_at });
    }

    /// The partition heals: the two sides reconnect.
    pub(crate) fn heal(&mut self) {
        let Some(p) = self.partition.take() else {
            return;
        };
        self.net.heal();
        for &x in &p.a {
            for &y in &p.b {
                let up = |n: NodeId| self.lrcs.get(&n).is_some_and(|l| l.alive);
                if up(x) && up(y) {
                    self.net.connect(x, y);
                }
            }
        }
        self.report.partitions += 1;
        self.trace("actions", || "the partition heals".into());
    }

    /// Whether a partition is in progress.
    pub(crate) fn partitioned(&self) -> bool {
        self.partition.is_some()
    }

    /// No partition in progress, and the last one's losers are gone: a new partition (or a
    /// new LRC, which would hear both sides) may come.
    pub(crate) fn sides_settled(&self) -> bool {
        self.partition.is_none() && self.side.values().all(|s| *s == 0)
    }

    /// The live members' cores (admitted, alive), for the convergence checks.
    pub(crate) fn member_cores(&self) -> Vec<(NodeId, &FederationCore)> {
        self.members().into_iter().map(|(n, _, c)| (n, c)).collect()
    }

    /// The live federates (joined and not gone) by handle.
    pub(crate) fn live_handles(&self) -> BTreeSet<FederateHandle> {
        self.feds
            .values()
            .filter(|m| matches!(m.life, Life::Joined | Life::Resigning(_)))
            .filter_map(|m| m.handle)
            .collect()
    }

    /// The live federates (joined and not gone).
    pub(crate) fn live_feds(&self) -> BTreeSet<FedId> {
        self.feds
            .values()
            .filter(|m| matches!(m.life, Life::Joined | Life::Resigning(_)))
            .map(|m| m.id)
            .collect()
    }

    /// The instances alive: owned by live federates, with their owner and last value sent.
    pub(crate) fn alive_instances(&self) -> BTreeMap<ObjectInstanceHandle, (FedId, u64)> {
        self.feds
            .values()
            .filter(|m| m.life == Life::Joined)
            .flat_map(|m| m.owned.iter().map(move |(o, n)| (*o, (m.id, *n))))
            .collect()
    }
}
