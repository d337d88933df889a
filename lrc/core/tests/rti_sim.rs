//! Deterministic simulation of whole federations: several federation cores in one process joined
//! by a seeded in-memory network that mirrors the transport's guarantees (per-sender FIFO for
//! reliable data and for control; causal control messages released only after the sender's
//! earlier data; best-effort data dropped at random), with joins, resigns, crashes, registrations,
//! updates, interactions and deletions in random order.
//!
//! Invariants checked after every step: decision logs of live members are prefixes of one another
//! (so handles are unique and nobody disagrees about a decision), at most one live active
//! coordinator; on every callback: no discovery twice, no reflection/removal of an unknown
//! instance, reliable values reflected exactly once and in order, only subscribed attributes,
//! class promotion; synchronization points announced once, synchronized only after the federate
//! achieved, its failed-set membership matching how it achieved; a save initiated once per federate
//! and ended (saved or not) only after it began; a restore begun once, each federate told to
//! restore at most once with its own handle, ended only after it began — and after a restore
//! every invariant above holds against the federates' state as saved (their models are rewound
//! to what they held at the save): no reflection or discovery of the abandoned run leaks in.
//! Federate types are their names, so a restore is accepted only when exactly the saved
//! federates are joined (others are denied: that path is exercised too); `save_then_restore`
//! runs a completed save, traffic, and a restore request whose reports the random actions make
//! (or `finish_restores`), with crashes and resigns in between. Every federate of one save
//! (on an LRC still alive) sees the same outcome, saved or not saved with the same reason. At
//! quiescence: one coordinator, identical views, every subscriber knows exactly the live
//! instances and has their last values.
//!
//! Seeds: `HLAMESH_SIM_SEEDS` (default 400, from `HLAMESH_SIM_FIRST_SEED`), steps per seed
//! `HLAMESH_SIM_STEPS` (default 300). Opt-in modes (see [`Modes`]; the `regression_*` tests run
//! seeds that once failed in them): `HLAMESH_SIM_PARTIAL_CANDIDATES=1` lets joiners start from a
//! partial member list; `HLAMESH_SIM_FREQUENT_RESTORES=1` makes save-then-restore episodes three
//! times as frequent; `HLAMESH_SIM_ORPHANS=1` also resigns with UnconditionallyDivestAttributes
//! (`random_federations_with_orphans_converge` always does, over `HLAMESH_SIM_ORPHAN_SEEDS`).
//! `HLAMESH_SIM_PARTITIONS=1` adds partition episodes (`random_federations_with_partitions_converge`
//! always does, over `HLAMESH_SIM_PARTITION_SEEDS`, default 150): the LRCs split in two, each side
//! carries on alone, and after the heal the losing side must be evicted (`connection_lost`) and
//! the winners converge. `HLAMESH_SIM_TIME=1` adds time management
//! (`random_federations_with_time_management_converge`, with partitions, over
//! `HLAMESH_SIM_TIME_SEEDS`, default 150): federates enable regulation (lookahead 1) and
//! constraint and ask for TAR and NER among everything else; every grant must answer a pending
//! request (a TAR exactly at its time, an NER no later), and in the liveness phase every live
//! time-managed federate advances to the latest time asked for, so every request must be
//! granted. Restores rewind time, which the model does not follow: none in time mode.
//! `HLAMESH_SIM_TSO=1` (with time mode; the time sweep always, the swarm at random) has
//! regulating federates send their interactions in time-stamp order, stamped at the earliest
//! time allowed, and now and then turn regulation off (and on again later); every delivery is
//! checked against the receiver's time (`check_tso`: a constrained federate gets such a message
//! in time-stamp order, while advancing, never beyond its request and never at or before a
//! time it was granted). `late_joiners_in_a_lockstep_get_every_message_before_its_grant` runs
//! the shape of the multi-process timed-save test: three LRCs joining one after another while
//! the earlier ones enable and step (`HLAMESH_SIM_LOCKSTEP_SEEDS`, default 300).
//! `random_federations_with_swarm_options_converge` turns every option on or off at random per
//! seed (`HLAMESH_SIM_SWARM_SEEDS`, default 150).
//!
//! Every LRC is a real `Host` (`hlamesh_core::host`) around a real `FederationCore`, the types the
//! LRC shell runs; the simulator maps their actions onto the simulated network, disk and
//! federates. Each run ends with a liveness phase (`Sim::quiesce`, then the `finish_*` steps):
//! the faults stop, late links come up, and within a bounded number of rounds every join, sync
//! point, save and restore must end and every view agree, or the run fails. (Checked against a
//! deliberately broken core: without the request retries of `Event::Tick`, seed 3 of the default
//! sweep fails there, a federate still waiting on a synchronization point.)
//!
//! Seeds and traces follow `hlamesh-sim`'s convention: `HLAMESH_SIM_SEED=s` replays one seed
//! (name the test to pick the sweep), `HLAMESH_SIM_FIRST_SEED` and `HLAMESH_SIM_SEEDS` set a
//! sweep (the sweeps' own count variables above come first); `HLAMESH_SIM_TRACE=` `actions`
//! prints callbacks and actions, `ctl` control messages and non-update data, `updates` updates
//! too, `time` the addressed time messages too (with `ctl`) and the managers of federates still
//! waiting after the time liveness phase, `log` the core's trace log, `dump` every core at a failed quiescence (comma-separated, or
//! `1` for all). A failing seed is reported with the command that replays it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use common::Rng;
use hlamesh_core::core::stream_numbering::StreamNumbering;
use hlamesh_core::core::wire::{ControlMsg, Decision, Envelope, ResignAction};
use hlamesh_core::core::{Callback, Completion, Event, FederationCore, ReceiveInfo, Ticket};
use hlamesh_core::fom::{Fdd, OrderType};
use hlamesh_core::handles::*;
use hlamesh_core::host::{Host, HostAction};
use hlamesh_sim::Seeds;
use hlamesh_timesync::{DynInterval, DynTime, LogicalTime};

/// The one federation every simulated LRC hosts.
const FED: &str = "Sim";

const FOM: &str = include_str!("../../../fed-examples/foms/MovingObject.xml");

enum Msg {
    Data {
        seq: Option<u64>,
        bytes: Vec<u8>,
    },
    Ctl(ControlMsg),
    /// The sender opened the channel; its reliable data arrives from this number on.
    ChannelPeer(u64),
    Gone,
    FellBehind(u64),
}

struct SimNode {
    /// The LRC's process-level core, as the shell runs it, hosting [`FED`]. Routes are `()`:
    /// the simulator checks that a callback's federate belongs to this LRC.
    host: Host<(), ()>,
    /// The federation's core after the host closed it (destroyed), kept for the checks.
    closed: Option<Box<FederationCore>>,
    alive: bool,
    next_seq: u64,
    joins: BTreeMap<Ticket, String>,
    resigns: BTreeMap<Ticket, Vec<ObjectInstanceHandle>>,
    /// Instances its federates deleted (see `Sim::crash`).
    deleted: Vec<ObjectInstanceHandle>,
}

impl SimNode {
    fn core(&self) -> &FederationCore {
        match (self.host.get(FED), &self.closed) {
            (Some(f), _) => &f.core,
            (None, Some(c)) => c,
            (None, None) => unreachable!("a simulated LRC's federation is open or closed"),
        }
    }

    fn core_mut(&mut self) -> &mut FederationCore {
        match (self.host.get_mut(FED), &mut self.closed) {
            (Some(f), _) => &mut f.core,
            (None, Some(c)) => c,
            (None, None) => unreachable!("a simulated LRC's federation is open or closed"),
        }
    }

    /// Hands `ev` to the federation through the host, as the shell does.
    fn handle(&mut self, now: u64, ev: Event<'_>) {
        self.host.handle(now, FED, ev);
    }

    /// Joins federate `name` (its type is its name) through the host, as the shell does.
    fn join(&mut self, name: &str) -> Ticket {
        let t = self
            .host
            .join(FED, Some(name.to_string()), name, Vec::new(), ())
            .expect("the simulated federation is open");
        self.joins.insert(t, name.to_string());
        t
    }
}

#[derive(Default)]
struct FedModel {
    node: u64,
    known: BTreeMap<ObjectInstanceHandle, ObjectClassHandle>,
    last: BTreeMap<ObjectInstanceHandle, u64>,
    subscribes: Option<ObjectClassHandle>,
    owned: BTreeMap<ObjectInstanceHandle, u64>,
    resigning: bool,
    /// Synchronization points announced and not yet synchronized.
    announced: BTreeSet<String>,
    /// Of those, achieved (label → successfully).
    achieved: BTreeMap<String, bool>,
    /// Registrations awaiting their succeeded/failed callback.
    registering: Vec<String>,
    /// Save initiated for it and not ended: (label, reports made: 0 none, 1 begun, 2 done).
    saving: Option<(String, u8)>,
    /// Log position of the `SaveInitiated` of its current (or last) save: which save an
    /// outcome belongs to.
    save_at: u64,
    /// Restore begun and not ended: (told to restore, reported).
    restoring: Option<(bool, bool)>,
    /// Time management (time mode only).
    time: TimeModel,
}

/// What a federate asked of time management and was granted (time mode, see
/// `Sim::time_action`).
#[derive(Clone, Debug, Default)]
struct TimeModel {
    regulation: Switch,
    constraint: Switch,
    /// The logical time of its last grant (or of an enable).
    granted: f64,
    /// A request waiting for its grant: (next-message request?, time).
    pending: Option<(bool, f64)>,
    /// The last grant was a TAR or NER grant (strict): a time-stamp-ordered message at exactly
    /// `granted` is in the federate's past. An enabled constraint is available-style.
    strict: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Switch {
    #[default]
    Off,
    Pending,
    On,
}

/// Lookahead of every regulating federate in time mode.
const LOOKAHEAD: f64 = 1.0;

/// What a federate's own state holds, as it wrote it at a save (what a restore brings back).
#[derive(Clone, Debug)]
struct SavedModel {
    known: BTreeMap<ObjectInstanceHandle, ObjectClassHandle>,
    last: BTreeMap<ObjectInstanceHandle, u64>,
    owned: BTreeMap<ObjectInstanceHandle, u64>,
    announced: BTreeSet<String>,
    achieved: BTreeMap<String, bool>,
    registering: Vec<String>,
}

struct Sim {
    rng: Rng,
    now: u64,
    nodes: BTreeMap<u64, SimNode>,
    /// Per (from, to): data and causal control, FIFO.
    causal: BTreeMap<(u64, u64), VecDeque<Msg>>,
    /// Per (from, to): other control, FIFO.
    control: BTreeMap<(u64, u64), VecDeque<Msg>>,
    links: BTreeSet<(u64, u64)>,
    /// Pairs of LRCs (lower id first) whose link is not up yet (late links mode). As in the
    /// transport, data sent before a link comes up never reaches the other end (its stream
    /// starts there at the sender's next number), control messages wait for the link, and
    /// causal ones for the data before them.
    late: BTreeSet<(u64, u64)>,
    feds: BTreeMap<FederateHandle, FedModel>,
    _fdd: Fdd,
    next_node: u64,
    next_name: u64,
    vehicle: ObjectClassHandle,
    car: ObjectClassHandle,
    position: AttributeHandle,
    heading: AttributeHandle,
    colour: AttributeHandle,
    command: InteractionClassHandle,
    stop: InteractionClassHandle,
    text: ParameterHandle,
    reason: ParameterHandle,
    reflections: u64,
    discoveries: u64,
    interactions: u64,
    lost_reported: u64,
    /// (receiver LRC, sender LRC) pairs that lost data and resynchronised: gaps allowed.
    gappy: BTreeSet<(u64, u64)>,
    resyncs: u64,
    orphans: BTreeSet<ObjectInstanceHandle>,
    maybe_orphans: BTreeSet<ObjectInstanceHandle>,
    /// Federates whose declarations were refused (a save or restore in progress), by LRC.
    undeclared: BTreeMap<FederateHandle, u64>,
    /// Declarations refused that way (tried again later).
    declarations_refused: u64,
    synchronized: u64,
    /// Callbacks a host held for a federate until its join completed.
    held_until_joined: u64,
    saves_ended: u64,
    /// The save files (the RTI's part), by (label, federate name).
    disk: BTreeMap<(String, String), hlamesh_core::core::save::SavedFederateState>,
    /// The federates' own part, by (label, handle).
    app_disk: BTreeMap<(String, FederateHandle), SavedModel>,
    restores_ended: u64,
    restores_done: u64,
    restores_denied: u64,
    /// Outcomes of each save (by the log position of its `SaveInitiated`): (federate, its LRC,
    /// outcome). Every federate of one save must see the same outcome — every federate whose
    /// LRC is alive: a crashed LRC's federates died with it, and the decisions its coordinator
    /// applied but never sent are legitimately replaced by the survivors (see
    /// `coordinator_crash_mid_broadcast_recovers_decisions`).
    save_outcomes: BTreeMap<u64, Vec<(FederateHandle, u64, Callback)>>,
    save_outcomes_compared: u64,
    /// Every `SaveInitiated` each LRC's log held after one of its events, by LRC and position
    /// (label, members), and how far each LRC's log was scanned. Per LRC: a coordinator cut off
    /// may have decided a position the survivors decided otherwise (orphans mode, frequent
    /// restores, folding every 5 decisions, seed 421). Kept at all because folding drops a save that ended, and
    /// a federate may be told of its save only after that (orphans mode folding every 3
    /// decisions, seed 183: a member resigned at once and failed the save).
    saves_seen: BTreeMap<u64, BTreeMap<u64, (String, Vec<FederateHandle>)>>,
    saves_scanned: BTreeMap<u64, u64>,
    /// The last position value sent for an instance its owner deleted or resigned with
    /// DeleteObjects, and the owner's LRC: every subscriber that reflected it must have
    /// reflected this value before the removal (unless that LRC crashed or lost data).
    final_values: BTreeMap<ObjectInstanceHandle, (u64, u64)>,
    /// Ownership runs (see `ownership_transfers_keep_one_owner`): reflections and ownership
    /// callbacks go to `own_log` instead of the checks above.
    own_run: bool,
    own_log: Vec<(FederateHandle, Callback)>,
    /// Federates declare nothing when their join completes: the run does it step by step
    /// (see `ConcurrentJoins`).
    manual_declare: bool,
    /// Opt-in behaviours of this run (from the environment, or set by a regression test).
    modes: Modes,
    /// Which side of the last partition each LRC was on (0 unless on a losing side): decision
    /// logs agree only within a side until the losers learn they were evicted.
    side: BTreeMap<u64, u32>,
    /// Pairs of LRCs (lower id first) cut off from each other by the partition in progress.
    cut: BTreeSet<(u64, u64)>,
    /// Partitions healed, and LRCs that lost their connection (evicted) after one.
    partitions_healed: u64,
    evicted: u64,
    /// Time advance grants delivered (time mode).
    grants: u64,
    /// Messages delivered in time-stamp order (tso mode).
    tso_delivered: u64,
    /// How the simulated transport numbers reliable messages (one number per fragment), told
    /// to every core. Half the seeds use tiny datagrams, so that most messages take several
    /// numbers, as large updates do on the wire (its own generator: the run's choices stay
    /// those of the seed).
    numbering: StreamNumbering,
}

/// Opt-in behaviours of a run. Read from the environment for the sweeps; the regression tests
/// set them per run (threads share the environment).
#[derive(Clone, Copy, Debug, Default)]
struct Modes {
    /// `HLAMESH_SIM_FREQUENT_RESTORES`: three times as many save-then-restore episodes.
    frequent_restores: bool,
    /// `HLAMESH_SIM_PARTIAL_CANDIDATES`: joiners first know only some members.
    partial_candidates: bool,
    /// `HLAMESH_SIM_ORPHANS`: resigns also with UnconditionallyDivestAttributes.
    orphans: bool,
    /// `HLAMESH_SIM_OWN_RESIGNS`: ownership runs also resign federates.
    own_resigns: bool,
    /// `HLAMESH_SIM_OWN_FALL_BEHIND`: ownership runs also lose links' data beyond repair.
    own_fall_behind: bool,
    /// `HLAMESH_SIM_LATE_LINKS`: a joiner's link to another LRC may come up only later (see
    /// `Sim::late`), as a QUIC connection still being dialled when the joiner is admitted.
    late_links: bool,
    /// `HLAMESH_SIM_PARTITIONS`: partition episodes (see `Sim::partition_episode`).
    partitions: bool,
    /// `HLAMESH_SIM_TIME`: federates become regulating and constrained and advance in time
    /// (see `Sim::time_action`); no restores then (they rewind time, which the model does not
    /// follow).
    time: bool,
    /// `HLAMESH_SIM_TSO` (with `time`): federates send their interactions in time-stamp order,
    /// stamped at the earliest time they may use while regulating, so constrained federates
    /// must get them in time-stamp order and never in their past (see `Sim::check_tso`).
    tso: bool,
    /// `HLAMESH_SIM_FOLD=n`: the coordinator folds the decision log every `n` decisions
    /// (0: every 32).
    fold_every: u64,
}

impl Modes {
    fn from_env() -> Modes {
        let on = |v: &str| std::env::var(v).is_ok();
        Modes {
            frequent_restores: on("HLAMESH_SIM_FREQUENT_RESTORES"),
            partial_candidates: on("HLAMESH_SIM_PARTIAL_CANDIDATES"),
            orphans: on("HLAMESH_SIM_ORPHANS"),
            own_resigns: on("HLAMESH_SIM_OWN_RESIGNS"),
            own_fall_behind: on("HLAMESH_SIM_OWN_FALL_BEHIND"),
            late_links: on("HLAMESH_SIM_LATE_LINKS"),
            partitions: on("HLAMESH_SIM_PARTITIONS"),
            time: on("HLAMESH_SIM_TIME"),
            tso: on("HLAMESH_SIM_TSO"),
            fold_every: std::env::var("HLAMESH_SIM_FOLD")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        }
    }

    /// Swarm testing: every option on or off at random for one seed (its own generator, so
    /// the run's own choices stay those of the seed).
    fn swarm(seed: u64) -> Modes {
        let mut r = Rng::seeded(seed ^ 0x5eed_5a44);
        let mut coin = || r.below(2) == 0;
        Modes {
            frequent_restores: coin(),
            partial_candidates: coin(),
            orphans: coin(),
            own_resigns: false,
            own_fall_behind: false,
            late_links: coin(),
            partitions: coin(),
            time: coin(),
            tso: coin(),
            fold_every: 0,
        }
    }
}

impl Sim {
    fn new(seed: u64) -> Sim {
        Sim::with_modes(seed, Modes::from_env())
    }

    fn with_modes(seed: u64, modes: Modes) -> Sim {
        let fdd =
            Fdd::load(&[hlamesh_core::fom::FomModule::parse("MovingObject.xml", FOM).unwrap()])
                .unwrap();
        let vehicle = fdd.object_class_handle("Vehicle").unwrap();
        let car = fdd.object_class_handle("Vehicle.Car").unwrap();
        let command = fdd.interaction_class_handle("Command").unwrap();
        let stop = fdd.interaction_class_handle("Command.Stop").unwrap();
        Sim {
            rng: Rng::seeded(seed),
            now: 0,
            nodes: BTreeMap::new(),
            causal: BTreeMap::new(),
            control: BTreeMap::new(),
            links: BTreeSet::new(),
            late: BTreeSet::new(),
            feds: BTreeMap::new(),
            position: fdd.attribute_handle(vehicle, "Position").unwrap(),
            heading: fdd.attribute_handle(vehicle, "Heading").unwrap(),
            colour: fdd.attribute_handle(car, "Colour").unwrap(),
            text: fdd.parameter_handle(command, "Text").unwrap(),
            reason: fdd.parameter_handle(stop, "Reason").unwrap(),
            _fdd: fdd,
            next_node: 100,
            next_name: 1,
            vehicle,
            car,
            command,
            stop,
            reflections: 0,
            discoveries: 0,
            interactions: 0,
            lost_reported: 0,
            gappy: BTreeSet::new(),
            resyncs: 0,
            orphans: BTreeSet::new(),
            maybe_orphans: BTreeSet::new(),
            undeclared: BTreeMap::new(),
            declarations_refused: 0,
            synchronized: 0,
            held_until_joined: 0,
            saves_ended: 0,
            disk: BTreeMap::new(),
            app_disk: BTreeMap::new(),
            restores_ended: 0,
            restores_done: 0,
            restores_denied: 0,
            save_outcomes: BTreeMap::new(),
            save_outcomes_compared: 0,
            saves_seen: BTreeMap::new(),
            saves_scanned: BTreeMap::new(),
            final_values: BTreeMap::new(),
            own_run: false,
            own_log: Vec::new(),
            manual_declare: false,
            modes,
            side: BTreeMap::new(),
            cut: BTreeSet::new(),
            partitions_healed: 0,
            evicted: 0,
            grants: 0,
            tso_delivered: 0,
            numbering: {
                let mut r = Rng::seeded(seed ^ 0xf4a9_3e47);
                if r.below(2) == 0 {
                    StreamNumbering::default()
                } else {
                    let fragment = 8 + r.below(48);
                    StreamNumbering {
                        max_whole: fragment + r.below(4),
                        fragment,
                    }
                }
            },
        }
    }

    fn alive_members(&self) -> Vec<u64> {
        self.nodes
            .iter()
            .filter(|(_, n)| n.alive && n.core().is_admitted())
            .map(|(id, _)| *id)
            .collect()
    }

    fn open_links(&mut self, j: u64) {
        // Nodes that died before this one started: the shell reports members it cannot reach
        // as gone (it never connects to them).
        let dead: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(_, n)| !n.alive)
            .map(|(i, _)| *i)
            .collect();
        for d in dead {
            self.control.entry((d, j)).or_default().push_back(Msg::Gone);
        }
        let others: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(id, n)| n.alive && **id != j)
            .map(|(id, _)| *id)
            .collect();
        for m in others {
            if self.modes.late_links && self.rng.below(2) == 0 {
                self.late.insert((m.min(j), m.max(j)));
            } else {
                self.link_up(m, j);
            }
        }
    }

    /// The link between `a` and `b` comes up: each one's data reaches the other from now on,
    /// and each one's transport tells its core the other opened the channel.
    fn link_up(&mut self, a: u64, b: u64) {
        self.late.remove(&(a.min(b), a.max(b)));
        for (from, to) in [(a, b), (b, a)] {
            self.links.insert((from, to));
            // What `from` sent so far never crosses this link.
            let first_seq = self.nodes[&from].next_seq;
            self.causal
                .entry((from, to))
                .or_default()
                .push_back(Msg::ChannelPeer(first_seq));
        }
    }

    /// Brings up one late link (or all of them), if any.
    fn late_link_up(&mut self, all: bool) {
        while !self.late.is_empty() {
            let pairs: Vec<(u64, u64)> = self.late.iter().copied().collect();
            let (a, b) = pairs[self.rng.below(pairs.len())];
            self.link_up(a, b);
            if !all {
                return;
            }
        }
    }

    fn add_node_and_join(&mut self) {
        let name = format!("fed{}", self.next_name);
        self.next_name += 1;
        self.add_node_and_join_as(&name);
    }

    /// A new LRC whose federate joins with `name` (its type too: the federate saved under that
    /// name matches it in a restore).
    fn add_node_and_join_as(&mut self, name: &str) {
        let id = self.next_node;
        self.next_node += 1;
        let members = self.alive_members();
        let core = if members.is_empty() {
            if self.nodes.values().any(|n| n.alive && !n.joins.is_empty()) {
                return; // a join is in flight; it may still be admitted or fail
            }
            // Everybody died: this is a new federation execution with new handles.
            self.feds.clear();
            self.orphans.clear();
            self.maybe_orphans.clear();
            FederationCore::create(
                "Sim",
                id,
                self.now,
                vec![("MovingObject.xml".into(), FOM.into())],
            )
            .unwrap()
        } else {
            // A joiner knows the members whose beacons it heard so far: maybe not the
            // coordinator (a member then redirects it).
            let mut heard: Vec<u64> = members
                .iter()
                .copied()
                .filter(|_| !self.modes.partial_candidates || self.rng.below(2) == 0)
                .collect();
            if heard.is_empty() {
                heard.push(members[self.rng.below(members.len())]);
            }
            FederationCore::joining("Sim", id, self.now, heard)
        };
        let mut core = core;
        core.set_stream_numbering(self.numbering);
        // Fold the decision log often, so that joiners, takeovers and saves meet compacted
        // logs (`hlamesh_core::core::compaction`).
        // `HLAMESH_SIM_FOLD=n` (`Modes::fold_every`) folds every n decisions instead.
        let every = match self.modes.fold_every {
            0 => 32,
            n => n,
        };
        core.set_fold_thresholds(every, 2);
        let mut host = Host::new();
        host.open(FED, core, ());
        let mut node = SimNode {
            host,
            closed: None,
            alive: true,
            next_seq: 1,
            joins: BTreeMap::new(),
            resigns: BTreeMap::new(),
            deleted: Vec::new(),
        };
        // The type is the name: a restore matches only the very federates saved.
        node.join(name);
        self.nodes.insert(id, node);
        self.open_links(id);
        self.drain(id);
    }

    fn join_more(&mut self, node: u64) {
        let name = format!("fed{}", self.next_name);
        self.next_name += 1;
        self.nodes.get_mut(&node).unwrap().join(&name);
        self.drain(node);
    }

    fn crash(&mut self, node: u64) {
        self.nodes.get_mut(&node).unwrap().alive = false;
        self.lose_federates(node);
        let keys: Vec<(u64, u64)> = self
            .causal
            .keys()
            .chain(self.control.keys())
            .copied()
            .filter(|(f, _)| *f == node)
            .collect();
        for k in keys {
            // Some of what it sent before dying still arrives.
            for q in [self.causal.get_mut(&k), self.control.get_mut(&k)]
                .into_iter()
                .flatten()
            {
                let keep = self.rng.below(q.len() + 1);
                q.truncate(keep);
            }
            // The departure travels on the control queue, the link's announcement on the
            // causal one, and the two are delivered in any order; in the shell both come from
            // the peer's control stream, in order, so an announcement never follows the
            // departure. A link that came up just before the crash is taken as lost with it.
            if let Some(q) = self.causal.get_mut(&k)
                && let Some(at) = q.iter().position(|m| matches!(m, Msg::ChannelPeer(_)))
            {
                q.truncate(at);
            }
        }
        self.causal.retain(|(_, t), _| *t != node);
        self.control.retain(|(_, t), _| *t != node);
        let others: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.alive)
            .map(|(i, _)| *i)
            .collect();
        for o in others {
            self.control
                .entry((node, o))
                .or_default()
                .push_back(Msg::Gone);
        }
        self.links.retain(|(a, b)| *a != node && *b != node);
        self.late.retain(|(a, b)| *a != node && *b != node);
    }

    /// The model's side of losing LRC `node` (a crash, or the losing side of a partition):
    /// its federates are gone for everyone else.
    fn lose_federates(&mut self, node: u64) {
        let n = self.nodes.get_mut(&node).unwrap();
        // A resign in flight may or may not have been decided: either outcome is fine, as long
        // as every survivor agrees (checked at the end).
        for (_, objs) in std::mem::take(&mut n.resigns) {
            self.maybe_orphans.extend(objs);
        }
        // A deletion whose message the crash cut off reached nobody, and with resign actions
        // that divest (orphans mode) the lost registrant leaves the instance behind: it may or
        // may not exist, as long as every survivor agrees. (With the default DeleteObjects the
        // lost federate's instances go anyway.)
        if self.modes.orphans {
            self.maybe_orphans.extend(std::mem::take(&mut n.deleted));
        }
        for f in self.feds.values_mut() {
            if f.node == node {
                f.resigning = true;
            }
        }
    }

    /// Executes what LRC `id`'s host asks for, as the shell's `run_actions` does, with the
    /// simulated network, disk and federates in place of the transport, save files and
    /// callback queues.
    fn drain(&mut self, id: u64) {
        self.note_saves(id);
        loop {
            let Some(node) = self.nodes.get_mut(&id) else {
                return;
            };
            if !node.alive {
                return;
            }
            let Some(a) = node.host.poll_action(FED) else {
                return;
            };
            // A time message is reliable data sent at once (the simulated links do not batch).
            let a = match a {
                HostAction::SendTime { seq, bytes } => HostAction::SendData {
                    reliable: true,
                    seq: Some(seq),
                    bytes,
                    class: None,
                    hold: false,
                },
                // The simulated links have no groups: a cell-group message reaches every link
                // like any best-effort one (the receiver filters), and joins change nothing.
                HostAction::SendToCells {
                    seq, bytes, class, ..
                } => HostAction::SendData {
                    reliable: seq.is_some(),
                    seq,
                    bytes,
                    class,
                    hold: false,
                },
                HostAction::SetCells { .. } => return,
                a => a,
            };
            match a {
                HostAction::SendData {
                    reliable,
                    seq: numbered,
                    bytes,
                    ..
                } => {
                    // The transport numbers each fragment; the message goes under the last
                    // number, which must be the one the core gave it (the shell's transport
                    // refuses any other).
                    let seq = if reliable {
                        node.next_seq += self.numbering.numbers(bytes.len());
                        Some(node.next_seq - 1)
                    } else {
                        None
                    };
                    assert_eq!(
                        numbered, seq,
                        "node {id} numbered a message otherwise than its transport"
                    );
                    let dests: Vec<u64> = self
                        .links
                        .iter()
                        .filter(|(f, _)| *f == id)
                        .map(|(_, t)| *t)
                        .collect();
                    for d in dests {
                        if seq.is_none() && self.rng.below(5) == 0 {
                            continue; // best effort lost
                        }
                        self.causal
                            .entry((id, d))
                            .or_default()
                            .push_back(Msg::Data {
                                seq,
                                bytes: bytes.clone(),
                            });
                    }
                }
                HostAction::SendControl { to, causal, bytes } => {
                    let env = Envelope::decode(&bytes).unwrap();
                    assert_eq!(env.federation, FED);
                    if !self.nodes.get(&to).is_some_and(|n| n.alive)
                        || self.cut.contains(&(id.min(to), id.max(to)))
                    {
                        // Dead, or across a partition: the connection is gone.
                        continue;
                    }
                    let q = if causal {
                        &mut self.causal
                    } else {
                        &mut self.control
                    };
                    q.entry((id, to)).or_default().push_back(Msg::Ctl(env.msg));
                }
                HostAction::Deliver {
                    federate, callback, ..
                } => {
                    if hlamesh_sim::trace("actions") {
                        eprintln!("action at {id}: {federate} {callback:?}");
                    }
                    // The host routes only to federates whose join completed on its LRC.
                    assert!(
                        self.feds.get(&federate).is_some_and(|m| m.node == id),
                        "node {id} routed a callback to federate {federate}, not one of its own"
                    );
                    self.on_callback(federate, callback)
                }
                HostAction::Completed { ticket, joined } => {
                    let result = node
                        .host
                        .take_done(FED, ticket)
                        .expect("a completed call's result");
                    let name = node.joins.remove(&ticket);
                    match (name, result) {
                        (Some(_), Ok(Completion::Joined(h))) => {
                            if self.feds.contains_key(&h) {
                                for (id, n) in &self.nodes {
                                    eprintln!(
                                        "node {id} alive={} log={:?}",
                                        n.alive,
                                        n.core().view().log
                                    );
                                }
                                eprintln!("dup at node {id}: prev {:?}", self.feds[&h].node);
                            }
                            assert!(!self.feds.contains_key(&h), "handle {h} given twice");
                            self.feds.insert(
                                h,
                                FedModel {
                                    node: id,
                                    ..Default::default()
                                },
                            );
                            let joined = joined.expect("a join completes with its route");
                            assert_eq!(joined.federate, h);
                            self.held_until_joined += joined.held.len() as u64;
                            for cb in joined.held {
                                self.on_callback(h, cb);
                            }
                            if !self.manual_declare {
                                self.declare(id, h);
                            }
                        }
                        (
                            Some(_),
                            Err(hlamesh_core::error::RtiError::FederationExecutionDoesNotExist(_)),
                        ) if !node.core().is_admitted() => {
                            // Every member died while it was joining: this process gives up.
                            self.crash(id);
                            return;
                        }
                        (
                            Some(_),
                            Err(
                                hlamesh_core::error::RtiError::SaveInProgress(_)
                                | hlamesh_core::error::RtiError::RestoreInProgress(_),
                            ),
                        ) => {
                            // Joins wait for no save or restore: a process that is not a
                            // member yet gives up (a member's other federates stay).
                            if !node.core().is_admitted() {
                                self.crash(id);
                                return;
                            }
                        }
                        (Some(n), Err(e)) => panic!("join of {n} failed: {e}"),
                        (None, Ok(Completion::Done)) => {
                            if let Some(objs) = node.resigns.remove(&ticket) {
                                self.orphans.extend(objs);
                            }
                        }
                        (a, b) => panic!("unexpected completion {a:?} {b:?}"),
                    }
                }
                HostAction::SendTime { .. }
                | HostAction::SendToCells { .. }
                | HostAction::SetCells { .. } => unreachable!("mapped above"),
                HostAction::FederateLost { .. } => self.lost_reported += 1,
                HostAction::Closed { core, .. } => node.closed = Some(core),
                HostAction::ConnectionLost { reason, .. } => {
                    // The others removed it while it lived (a false suspicion, or the losing
                    // side of a partition): it is out, like a crashed node.
                    if self.side.get(&id).is_some_and(|s| *s != 0) {
                        self.evicted += 1;
                    } else {
                        eprintln!("node {id:x}: connection lost: {reason}");
                    }
                    node.alive = false;
                    return;
                }
                HostAction::Rehandled(renames) => {
                    // Types are names here, so every federate keeps its handle.
                    assert!(renames.iter().all(|(a, b)| a == b), "{renames:?}");
                }
                HostAction::LoadRestore {
                    federate,
                    label,
                    name,
                } => {
                    let st = self
                        .disk
                        .get(&(label.clone(), name.clone()))
                        .cloned()
                        .ok_or_else(|| format!("no save file {label}/{name}"));
                    self.nodes
                        .get_mut(&id)
                        .unwrap()
                        .core_mut()
                        .restore_loaded(federate, st);
                }
                HostAction::WriteSave { federate, state } => {
                    // The federate's own part was written when it was told to save; the RTI
                    // holds its data since, so its model is still that state.
                    let m = &self.feds[&federate];
                    self.app_disk.insert(
                        (state.label.clone(), federate),
                        SavedModel {
                            known: m.known.clone(),
                            last: m.last.clone(),
                            owned: m.owned.clone(),
                            announced: m.announced.clone(),
                            achieved: m.achieved.clone(),
                            registering: m.registering.clone(),
                        },
                    );
                    self.disk
                        .insert((state.label.clone(), state.federate_name.clone()), *state);
                    self.nodes
                        .get_mut(&id)
                        .unwrap()
                        .core_mut()
                        .save_written(federate, true);
                }
            }
        }
    }

    fn declare(&mut self, node: u64, h: FederateHandle) {
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        let (class, attrs) = match self.rng.below(3) {
            0 => (self.vehicle, vec![self.position]),
            1 => (self.car, vec![self.position, self.colour]),
            _ => (self.vehicle, vec![self.position, self.heading]),
        };
        match core.subscribe_object_class_attributes(h, class, &attrs, true) {
            Ok(()) => {}
            Err(e) if busy(&e) => {
                // Joined during a restore (or a save it takes part in): the federate declares
                // once that is over, as a real one retrying would.
                self.undeclared.insert(h, node);
                self.declarations_refused += 1;
                return;
            }
            Err(e) => panic!("subscribe: {e}"),
        }
        core.subscribe_interaction_class(h, self.command, true)
            .unwrap();
        core.publish_object_class_attributes(
            h,
            self.car,
            &[self.position, self.heading, self.colour],
        )
        .unwrap();
        core.publish_interaction_class(h, self.stop).unwrap();
        if self.modes.time && self.modes.tso {
            // Timestamped interactions of a regulating federate then travel in time-stamp
            // order (the FOM says Receive).
            core.change_interaction_order_type(h, self.stop, OrderType::TimeStamp)
                .unwrap();
        }
        core.set_automatic_resign_action(h, ResignAction::DeleteObjects)
            .unwrap();
        self.feds.get_mut(&h).unwrap().subscribes = Some(class);
        self.undeclared.remove(&h);
        self.drain(node);
    }

    /// Federates whose declaration was refused (busy) try again.
    fn retry_declarations(&mut self) {
        let todo: Vec<(FederateHandle, u64)> = self
            .undeclared
            .iter()
            .map(|(h, n)| (*h, *n))
            .filter(|(h, n)| self.nodes[n].alive && self.feds.get(h).is_some_and(|m| !m.resigning))
            .collect();
        self.undeclared.clear();
        for (h, node) in todo {
            self.declare(node, h);
        }
    }

    /// Records the `SaveInitiated` decisions LRC `id`'s log gained (see `saves_seen`).
    fn note_saves(&mut self, id: u64) {
        let Some(node) = self.nodes.get(&id).filter(|n| n.alive) else {
            return;
        };
        let view = node.core().view();
        let mark = self.saves_scanned.entry(id).or_insert(0);
        if view.last() < *mark {
            // A new federation execution numbers from 1 again.
            *mark = 0;
            self.saves_seen.remove(&id);
        }
        let seen = self.saves_seen.entry(id).or_default();
        for (n, d) in view.numbered().filter(|(n, _)| *n > *mark) {
            if let Decision::SaveInitiated { label, members, .. } = d {
                seen.insert(n, (label.clone(), members.clone()));
            }
        }
        *mark = view.last();
    }

    /// Which save `f` was just told to begin: the first `SaveInitiated` of that label naming
    /// it after its previous save, in its LRC's log (one decision batch may hold several saves;
    /// untimed saves instruct every member as their decision is applied).
    fn save_initiated_at(&mut self, f: FederateHandle, label: &str) {
        let Some(m) = self.feds.get(&f) else {
            return;
        };
        let view = self.nodes[&m.node].core().view();
        let after = m.save_at;
        // The log may have folded it since (it ended before its member heard of it, and a
        // later save of the same label may be in the log now): the first of those the log holds
        // and those it held.
        let in_log = view
            .numbered()
            .filter(|(n, _)| *n > after)
            .find(|(_, d)| {
                matches!(d, Decision::SaveInitiated { label: l, members, .. }
                    if l == label && members.contains(&f))
            })
            .map(|(n, _)| n);
        let seen = self.saves_seen.get(&m.node).and_then(|s| {
            s.range(after + 1..)
                .find(|(_, (l, members))| l == label && members.contains(&f))
                .map(|(n, _)| *n)
        });
        let at = in_log.into_iter().chain(seen).min().unwrap_or_else(|| {
            panic!("{f}: save {label} initiated without a decision after {after}")
        });
        self.feds.get_mut(&f).unwrap().save_at = at;
    }

    fn on_callback(&mut self, f: FederateHandle, cb: Callback) {
        let position = self.position;
        let (vehicle, car) = (self.vehicle, self.car);
        let gappy = match &cb {
            Callback::ReflectAttributeValues { object, .. }
            | Callback::RemoveObjectInstance { object, .. } => {
                let here = self.feds.get(&f).map(|m| m.node);
                let there = self.feds.get(&object.registrant()).map(|m| m.node);
                matches!((here, there), (Some(a), Some(b)) if self.gappy.contains(&(a, b)))
            }
            _ => false,
        };
        if hlamesh_sim::trace("actions") {
            eprintln!("cb {f}: {cb:?}");
        }
        if self.own_run
            && matches!(
                cb,
                Callback::ReflectAttributeValues { .. }
                    | Callback::RequestAttributeOwnershipAssumption { .. }
                    | Callback::RequestDivestitureConfirmation { .. }
                    | Callback::AttributeOwnershipAcquisitionNotification { .. }
                    | Callback::AttributeOwnershipUnavailable { .. }
                    | Callback::RequestAttributeOwnershipRelease { .. }
                    | Callback::ConfirmAttributeOwnershipAcquisitionCancellation { .. }
            )
        {
            self.own_log.push((f, cb));
            return;
        }
        if let Callback::InitiateFederateSave { label, .. } = &cb {
            self.save_initiated_at(f, label);
        }
        let Some(m) = self.feds.get_mut(&f) else {
            panic!("callback for unknown federate {f}: {cb:?}")
        };
        match cb {
            Callback::DiscoverObjectInstance { object, class, .. } => {
                assert!(
                    m.known.insert(object, class).is_none(),
                    "{f} discovered {object} twice"
                );
                // Every instance in the sim is a Car: promotion gives the subscribed class.
                let expect = if m.subscribes == Some(car) {
                    car
                } else {
                    vehicle
                };
                assert_eq!(class, expect, "promotion");
                self.discoveries += 1;
            }
            Callback::ReflectAttributeValues {
                object,
                values,
                info,
                ..
            } => {
                if check_tso(f, m, &info) {
                    self.tso_delivered += 1;
                }
                let k = *m
                    .known
                    .get(&object)
                    .unwrap_or_else(|| panic!("{f} reflects unknown {object}"));
                let _ = k;
                for (a, v) in values {
                    assert!(
                        a == position || a == self.heading || a == self.colour,
                        "attribute {a}"
                    );
                    if m.subscribes == Some(car) {
                        assert_ne!(a, self.heading, "{f} reflects an unsubscribed attribute");
                    }
                    if a == position {
                        let n = u64::from_be_bytes(v.try_into().unwrap());
                        if let Some(prev) = m.last.get(&object) {
                            if gappy {
                                assert!(n > *prev, "{f}: {object} reflected {n} after {prev}");
                            } else {
                                assert_eq!(n, prev + 1, "{f}: {object} reflected {n} after {prev}");
                            }
                        }
                        m.last.insert(object, n);
                        self.reflections += 1;
                    }
                }
            }
            Callback::RemoveObjectInstance { object, .. } => {
                assert!(
                    m.known.remove(&object).is_some(),
                    "{f} removes unknown {object}"
                );
                let last = m.last.remove(&object);
                if let (Some(prev), Some((n, owner_node)), false) =
                    (last, self.final_values.get(&object), gappy)
                {
                    let owner_alive = self.nodes.get(owner_node).is_some_and(|x| x.alive);
                    assert!(
                        !owner_alive || prev == *n,
                        "{f}: {object} removed after value {prev}, its owner's last was {n}"
                    );
                }
            }
            Callback::SynchronizationPointRegistrationSucceeded(label)
            | Callback::SynchronizationPointRegistrationFailed(label, _) => {
                let i = m
                    .registering
                    .iter()
                    .position(|l| *l == label)
                    .unwrap_or_else(|| {
                        panic!("{f}: registration outcome for {label} it did not ask")
                    });
                m.registering.remove(i);
            }
            Callback::AnnounceSynchronizationPoint { label, .. } => {
                assert!(
                    m.announced.insert(label.clone()),
                    "{f}: {label} announced twice"
                );
            }
            Callback::FederationSynchronized { label, failed } => {
                assert!(
                    m.announced.remove(&label),
                    "{f}: {label} synchronized unannounced"
                );
                let ok = m
                    .achieved
                    .remove(&label)
                    .unwrap_or_else(|| panic!("{f}: {label} synchronized before it achieved"));
                assert_eq!(
                    failed.contains(&f),
                    !ok,
                    "{f}: failed set {failed:?} of {label}, achieved successfully: {ok}"
                );
                self.synchronized += 1;
            }
            Callback::InitiateFederateSave { label, .. } => {
                assert!(m.saving.is_none(), "{f}: save {label} while {:?}", m.saving);
                m.saving = Some((label, 0));
            }
            Callback::FederationSaved | Callback::FederationNotSaved(_) => {
                assert!(
                    m.saving.take().is_some(),
                    "{f}: save ended that never began"
                );
                self.saves_ended += 1;
                // Every federate of one save sees the same outcome.
                let (at, node) = (m.save_at, m.node);
                let seen = self.save_outcomes.entry(at).or_default();
                for (g, n, other) in seen.iter() {
                    if self.nodes.get(n).is_some_and(|x| x.alive) {
                        self.save_outcomes_compared += 1;
                        assert_eq!(
                            *other, cb,
                            "save initiated at log position {at}: {g} saw {other:?}, {f} saw {cb:?}"
                        );
                    }
                }
                seen.push((f, node, cb));
            }
            Callback::RequestFederationRestoreSucceeded(_) => {}
            Callback::RequestFederationRestoreFailed { .. } => self.restores_denied += 1,
            Callback::FederationRestoreBegun => {
                assert!(m.restoring.is_none(), "{f}: restore begun twice");
                assert!(m.saving.is_none(), "{f}: restore during a save");
                m.restoring = Some((false, false));
            }
            Callback::InitiateFederateRestore { label, handle, .. } => {
                assert_eq!(handle, f);
                assert_eq!(m.restoring, Some((false, false)), "{f}: initiate restore");
                m.restoring = Some((true, false));
                // The federation rewinds: values sent before are history.
                self.final_values.clear();
                let saved = self
                    .app_disk
                    .get(&(label.clone(), f))
                    .unwrap_or_else(|| panic!("{f}: restore of {label} it never saved"))
                    .clone();
                m.known = saved.known;
                m.last = saved.last;
                m.owned = saved.owned;
                m.announced = saved.announced;
                m.achieved = saved.achieved;
                m.registering = saved.registering;
            }
            Callback::FederationRestored | Callback::FederationNotRestored { .. } => {
                assert!(
                    m.restoring.take().is_some(),
                    "{f}: restore ended that never began"
                );
                self.restores_ended += 1;
                if cb == Callback::FederationRestored {
                    self.restores_done += 1;
                }
            }
            Callback::ReceiveInteraction {
                class,
                params,
                info,
                ..
            } => {
                if check_tso(f, m, &info) {
                    self.tso_delivered += 1;
                }
                assert_eq!(class, self.command, "promoted to the subscribed class");
                assert!(
                    params.iter().all(|(p, _)| *p == self.text),
                    "Reason filtered out"
                );
                self.interactions += 1;
            }
            Callback::TimeRegulationEnabled(t) => {
                let t = t.value();
                assert_eq!(
                    m.time.regulation,
                    Switch::Pending,
                    "{f}: regulation enabled unasked"
                );
                assert!(
                    t >= m.time.granted,
                    "{f}: regulation enabled at {t} before its time"
                );
                m.time.regulation = Switch::On;
                if t > m.time.granted {
                    // Moved to a new time available-style: a message at exactly t may come.
                    m.time.strict = false;
                }
                m.time.granted = t;
            }
            Callback::TimeConstrainedEnabled(t) => {
                let t = t.value();
                assert_eq!(
                    m.time.constraint,
                    Switch::Pending,
                    "{f}: constraint enabled unasked"
                );
                assert!(
                    t >= m.time.granted,
                    "{f}: constraint enabled at {t} before its time"
                );
                m.time.constraint = Switch::On;
                m.time.granted = t;
                m.time.strict = false;
            }
            Callback::TimeAdvanceGrant(t) => {
                let t = t.value();
                let Some((next, at)) = m.time.pending.take() else {
                    panic!("{f}: grant to {t} with no request");
                };
                if next {
                    // No timestamped message is ever sent: the grant may stop short of the
                    // request only at a time no earlier than the federate's.
                    assert!(t <= at && t >= m.time.granted, "{f}: NER({at}) granted {t}");
                } else {
                    assert_eq!(t, at, "{f}: TAR({at}) granted {t}");
                }
                m.time.granted = t;
                m.time.strict = true;
                self.grants += 1;
            }
            _ => {}
        }
    }

    /// A random step of time management (time mode): a federate enables regulation or
    /// constraint, or asks to advance (TAR or NER) by a random step; in tso mode a regulator
    /// also disables regulation now and then. Refused while a save is under way (the federate
    /// tries again later).
    fn time_action(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let tm = self.feds[&h].time.clone();
        if tm.regulation == Switch::Pending
            || tm.constraint == Switch::Pending
            || tm.pending.is_some()
        {
            return;
        }
        let choice = self.rng.below(10);
        let step = [0.5, 1.0, 2.0][self.rng.below(3)];
        let target = DynTime::new(tm.granted + step).unwrap();
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        let (r, what) = if self.modes.tso
            && tm.regulation == Switch::On
            && choice == 0
            && self.rng.below(3) == 0
        {
            // Regulation off and, later, on again (tso mode only: the other modes keep their
            // seeds' runs): its final promise and its next regulation query travel by
            // different paths, and the query may come first.
            (
                core.time_change(h, "disableTimeRegulation", |m| m.disable_time_regulation()),
                4,
            )
        } else if tm.regulation == Switch::Off && choice < 3 {
            let l = DynInterval::new(LOOKAHEAD).unwrap();
            (
                core.time_change(h, "enableTimeRegulation", |m| m.enable_time_regulation(l)),
                0,
            )
        } else if tm.constraint == Switch::Off && choice < 6 {
            (
                core.time_change(h, "enableTimeConstrained", |m| m.enable_time_constrained()),
                1,
            )
        } else if choice < 9 {
            (
                core.time_change(h, "timeAdvanceRequest", |m| m.time_advance_request(target)),
                2,
            )
        } else {
            (
                core.time_change(h, "nextMessageRequest", |m| m.next_message_request(target)),
                3,
            )
        };
        if hlamesh_sim::trace("actions") {
            eprintln!("time service {what} by {h} on {node} (target {target:?}): {r:?}");
        }
        match r {
            Ok(()) => {}
            Err(e) if busy(&e) => return,
            Err(e) => panic!("{h}: time service {what} refused: {e} (model {tm:?})"),
        }
        let m = &mut self.feds.get_mut(&h).unwrap().time;
        match what {
            0 => m.regulation = Switch::Pending,
            1 => m.constraint = Switch::Pending,
            2 => m.pending = Some((false, target.value())),
            3 => m.pending = Some((true, target.value())),
            _ => m.regulation = Switch::Off,
        }
        self.drain(node);
    }

    /// The liveness phase of time management: every live time-managed federate advances to the
    /// latest time any of them asked for (each that waits for nothing asks for it), so every
    /// request must be granted, however the federation changed meanwhile.
    fn finish_time(&mut self) {
        // How far past the latest time asked for the federation is pushed: an enable waits
        // until the others are past the time its answers named (a constrained federate
        // enabling regulation is granted no earlier than the regulators' promises), which may
        // lie beyond every time asked for so far; each round without news pushes further.
        let live_now = |sim: &Sim| -> Vec<(FederateHandle, u64)> {
            sim.feds
                .iter()
                .filter(|(_, m)| !m.resigning && sim.nodes[&m.node].alive)
                .map(|(h, m)| (*h, m.node))
                .collect()
        };
        // The goal: the latest time any live federate asked for or was granted (taken once,
        // so requests made here do not move it).
        let goal = live_now(self)
            .iter()
            .map(|(h, _)| {
                let t = &self.feds[h].time;
                t.pending.map_or(t.granted, |(_, at)| at.max(t.granted))
            })
            .fold(0.0_f64, f64::max);
        let mut beyond = 0.0;
        let mut last_grants = self.grants;
        for _ in 0..20 {
            let live = live_now(self);
            let waiting = live.iter().any(|(h, _)| {
                let t = &self.feds[h].time;
                t.pending.is_some()
                    || t.regulation == Switch::Pending
                    || t.constraint == Switch::Pending
            });
            let target = goal + beyond;
            let behind = live.iter().any(|(h, _)| {
                let t = &self.feds[h].time;
                t.pending.is_none()
                    && t.granted < target
                    && t.regulation != Switch::Pending
                    && t.constraint != Switch::Pending
                    && (t.regulation == Switch::On || t.constraint == Switch::On)
            });
            if !waiting && !behind {
                break;
            }
            if waiting && !behind && self.grants == last_grants {
                beyond += 5.0;
            }
            last_grants = self.grants;
            for (h, node) in live {
                let t = self.feds[&h].time.clone();
                if t.pending.is_some()
                    || t.granted >= target
                    || t.regulation == Switch::Pending
                    || t.constraint == Switch::Pending
                {
                    continue;
                }
                if t.regulation != Switch::On && t.constraint != Switch::On {
                    continue;
                }
                let at = DynTime::new(target).unwrap();
                let core = self.nodes.get_mut(&node).unwrap().core_mut();
                core.time_change(h, "timeAdvanceRequest", |m| m.time_advance_request(at))
                    .unwrap_or_else(|e| panic!("{h}: TAR({target}) in the liveness phase: {e}"));
                self.feds.get_mut(&h).unwrap().time.pending = Some((false, target));
                self.drain(node);
            }
            self.quiesce();
        }
        if hlamesh_sim::trace("actions") {
            for (h, m) in &self.feds {
                eprintln!(
                    "time of {h} on {} (alive {}, resigning {}): {:?}; manager {:?}",
                    m.node,
                    self.nodes[&m.node].alive,
                    m.resigning,
                    m.time,
                    self.nodes[&m.node]
                        .core()
                        .time_manager(*h)
                        .map(|t| (t.logical_time(), t.galt()))
                );
            }
        }
        self.trace_waiting_managers();
        for (h, m) in self.feds.iter().filter(|(_, m)| !m.resigning) {
            if self.nodes[&m.node].alive {
                assert!(
                    m.time.pending.is_none()
                        && m.time.regulation != Switch::Pending
                        && m.time.constraint != Switch::Pending,
                    "{h} still waits after the liveness phase: {:?}",
                    m.time
                );
            }
        }
        // Constrained federates get receive-order messages only while advancing; from here on
        // (the final checks) they take them at once, and what they hold comes now.
        let constrained: Vec<(FederateHandle, u64)> = self
            .feds
            .iter()
            .filter(|(_, m)| {
                !m.resigning && self.nodes[&m.node].alive && m.time.constraint == Switch::On
            })
            .map(|(h, m)| (*h, m.node))
            .collect();
        for (h, node) in constrained {
            let core = self.nodes.get_mut(&node).unwrap().core_mut();
            core.time_service(h, |m| m.enable_asynchronous_delivery())
                .unwrap_or_else(|e| panic!("{h}: enable asynchronous delivery: {e}"));
            self.drain(node);
        }
        self.quiesce();
    }

    /// With `HLAMESH_SIM_TRACE=time`: the whole time manager of every live federate that still
    /// waits for a grant or an enable (its peers' statuses and held promises say what for).
    fn trace_waiting_managers(&self) {
        if !hlamesh_sim::trace("time") {
            return;
        }
        for (h, m) in self.feds.iter().filter(|(_, m)| !m.resigning) {
            let t = &m.time;
            let waits = t.pending.is_some()
                || t.regulation == Switch::Pending
                || t.constraint == Switch::Pending;
            if waits && self.nodes[&m.node].alive {
                eprintln!(
                    "manager of waiting {h}: {:#?}",
                    self.nodes[&m.node].core().time_manager(*h)
                );
            }
        }
    }

    /// Delivers one message from a random non-empty queue. Returns false when all are empty.
    fn deliver_one(&mut self) -> bool {
        self.deliver_one_if(&|_, _, _| true)
    }

    /// Delivers one message from a random non-empty queue `keep(causal, from, to)` allows.
    /// Returns false when all those queues are empty.
    fn deliver_one_if(&mut self, keep: &dyn Fn(bool, u64, u64) -> bool) -> bool {
        let keys: Vec<(bool, (u64, u64))> = self
            .causal
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(k, _)| (true, *k))
            .chain(
                self.control
                    .iter()
                    .filter(|(_, q)| !q.is_empty())
                    .map(|(k, _)| (false, *k)),
            )
            .filter(|(c, (f, t))| keep(*c, *f, *t))
            // Nothing crosses a link that is not up yet.
            .filter(|(_, (f, t))| !self.late.contains(&(*f.min(t), *f.max(t))))
            .collect();
        if keys.is_empty() {
            return false;
        }
        let (c, (from, to)) = keys[self.rng.below(keys.len())];
        let q = if c {
            &mut self.causal
        } else {
            &mut self.control
        };
        let msg = q.get_mut(&(from, to)).unwrap().pop_front().unwrap();
        let now = self.now;
        let Some(node) = self.nodes.get_mut(&to) else {
            return true;
        };
        if !node.alive {
            return true;
        }
        if hlamesh_sim::trace("ctl")
            && let Msg::Ctl(m) = &msg
            && (!matches!(m, ControlMsg::Time { .. }) || hlamesh_sim::trace("time"))
        {
            eprintln!("ctl {from}->{to}: {m:?}");
        }
        if hlamesh_sim::trace("ctl")
            && let Msg::Data { seq, bytes } = &msg
            && let Ok(m) = hlamesh_core::core::wire::DataMsg::decode(bytes)
            && (hlamesh_sim::trace("updates")
                || !matches!(m, hlamesh_core::core::wire::DataMsg::Update { .. }))
        {
            eprintln!("data {from}->{to} #{seq:?}: {m:?}");
        }
        if hlamesh_sim::trace("ctl") && matches!(msg, Msg::Gone) {
            eprintln!("gone {from}->{to}");
        }
        match msg {
            Msg::Data { seq, bytes } => node.handle(
                now,
                Event::Data {
                    from,
                    seq,
                    payload: &bytes,
                },
            ),
            Msg::Ctl(msg) => node.handle(now, Event::Control { from, msg }),
            Msg::ChannelPeer(first_seq) => node.handle(
                now,
                Event::ChannelPeer {
                    node: from,
                    first_seq,
                },
            ),
            Msg::Gone => node.handle(now, Event::PeerGone(from)),
            Msg::FellBehind(last) => node.handle(now, Event::FellBehind { from, last }),
        }
        self.drain(to);
        true
    }

    fn tick(&mut self) {
        self.retry_declarations();
        // Joiners hear more beacons as time passes (the shell feeds them in as candidates).
        let members = self.alive_members();
        let joiners: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.alive && !n.core().is_admitted())
            .map(|(i, _)| *i)
            .collect();
        for j in joiners {
            if self.rng.below(3) == 0 {
                let heard = members[..].to_vec();
                self.nodes
                    .get_mut(&j)
                    .unwrap()
                    .core_mut()
                    .add_candidates(heard);
                self.drain(j);
            }
        }
        self.now += 50_000;
        let ids: Vec<u64> = self.nodes.keys().copied().collect();
        for id in ids {
            if self.nodes[&id].alive {
                let now = self.now;
                // The host's tick, as the shell's pump runs it. Candidates were fed above (at
                // random, as beacons are heard); the simulated transport reports every crash
                // (`Msg::Gone`), so no member is suspected for being unreachable.
                self.nodes
                    .get_mut(&id)
                    .unwrap()
                    .host
                    .tick(now, FED, Vec::new, |_| true);
                self.drain(id);
            }
        }
    }

    /// The transport loses everything queued on one link beyond repair and says so.
    fn fall_behind(&mut self) {
        let keys: Vec<(u64, u64)> = self
            .causal
            .iter()
            .filter(|(_, q)| {
                q.iter()
                    .any(|m| matches!(m, Msg::Data { seq: Some(_), .. }))
            })
            .map(|(k, _)| *k)
            .collect();
        if keys.is_empty() {
            return;
        }
        let k = keys[self.rng.below(keys.len())];
        let q = self.causal.get_mut(&k).unwrap();
        let mut kept = VecDeque::new();
        let mut last = 0;
        let mut marker_at = None;
        for m in q.drain(..) {
            match m {
                Msg::Data { seq, .. } => {
                    last = last.max(seq.unwrap_or(0));
                    marker_at.get_or_insert(kept.len());
                }
                other => kept.push_back(other),
            }
        }
        kept.insert(marker_at.unwrap_or(0), Msg::FellBehind(last));
        *q = kept;
        self.gappy.insert((k.1, k.0));
        self.resyncs += 1;
    }

    fn random_federate(&mut self) -> Option<(FederateHandle, u64)> {
        let live: Vec<(FederateHandle, u64)> = self
            .feds
            .iter()
            .filter(|(h, m)| !m.resigning && !self.undeclared.contains_key(h))
            .map(|(h, m)| (*h, m.node))
            .collect();
        (!live.is_empty()).then(|| live[self.rng.below(live.len())])
    }

    fn update(&mut self, h: FederateHandle, node: u64, o: ObjectInstanceHandle) {
        let n = {
            let m = self.feds.get_mut(&h).unwrap();
            let c = m.owned.get_mut(&o).unwrap();
            *c += 1;
            *c
        };
        let vals = vec![
            (self.position, n.to_be_bytes().to_vec()),
            (self.heading, vec![1]),
        ];
        let r = self
            .nodes
            .get_mut(&node)
            .unwrap()
            .core_mut()
            .update_attribute_values(h, o, vals, b"u".to_vec(), None);
        match r {
            Ok(_) => {}
            // Refused while saving or restoring: the value was not sent.
            Err(e) if busy(&e) => {
                if let Some(n) = self.feds.get_mut(&h).and_then(|m| m.owned.get_mut(&o)) {
                    *n -= 1;
                }
            }
            Err(e) => panic!("{h}: update {o}: {e}"),
        }
        self.drain(node);
    }

    fn random_action(&mut self) {
        if self.modes.partitions && self.rng.below(40) == 0 {
            self.partition_episode();
            return;
        }
        if self.modes.time && self.rng.below(4) == 0 {
            self.time_action();
            return;
        }
        match self.rng.below(100) {
            0..=7 => {
                if self.nodes.values().filter(|n| n.alive).count() < 5 {
                    self.add_node_and_join();
                }
            }
            8..=10 => {
                let m = self.alive_members();
                if !m.is_empty() {
                    let n = m[self.rng.below(m.len())];
                    self.join_more(n);
                }
            }
            11..=12 => {
                let m: Vec<u64> = self
                    .nodes
                    .iter()
                    .filter(|(_, n)| n.alive)
                    .map(|(i, _)| *i)
                    .collect();
                if m.len() > 1 {
                    let n = m[self.rng.below(m.len())];
                    self.crash(n);
                }
            }
            13..=14 => {
                if let Some((h, node)) = self.random_federate() {
                    let keep = self.modes.orphans && self.rng.below(3) == 0;
                    let m = self.feds.get_mut(&h).unwrap();
                    m.resigning = true;
                    let objs: Vec<ObjectInstanceHandle> = m.owned.keys().copied().collect();
                    let finals: Vec<(ObjectInstanceHandle, u64)> =
                        m.owned.iter().map(|(o, n)| (*o, *n)).collect();
                    if !keep {
                        for (o, n) in finals {
                            self.final_values.insert(o, (n, node));
                        }
                    }
                    let action = if keep {
                        ResignAction::UnconditionallyDivestAttributes
                    } else {
                        ResignAction::DeleteObjects
                    };
                    let n = self.nodes.get_mut(&node).unwrap();
                    let t = n.core_mut().resign(h, action).unwrap();
                    if keep {
                        // Once the resign returns its instances stay, unowned: every live
                        // subscriber must still know them.
                        n.resigns.insert(t, objs);
                    }
                    self.drain(node);
                }
            }
            15..=24 => {
                if let Some((h, node)) = self.random_federate() {
                    let car = self.car;
                    let r = self
                        .nodes
                        .get_mut(&node)
                        .unwrap()
                        .core_mut()
                        .register_object_instance(h, car, None);
                    let o = match r {
                        Ok(o) => o,
                        Err(e) if busy(&e) => return,
                        Err(e) => panic!("{h}: register: {e}"),
                    };
                    if hlamesh_sim::trace("actions") {
                        eprintln!("register {h} {o} on {node}");
                    }
                    self.feds.get_mut(&h).unwrap().owned.insert(o, 0);
                    self.drain(node);
                }
            }
            25..=29 => {
                if let Some((h, node)) = self.random_federate() {
                    let owned: Vec<ObjectInstanceHandle> =
                        self.feds[&h].owned.keys().copied().collect();
                    if !owned.is_empty() {
                        let o = owned[self.rng.below(owned.len())];
                        let r = self
                            .nodes
                            .get_mut(&node)
                            .unwrap()
                            .core_mut()
                            .delete_object_instance(h, o, vec![], None);
                        match r {
                            Ok(_) => {
                                if let Some(n) = self.feds.get_mut(&h).unwrap().owned.remove(&o) {
                                    self.final_values.insert(o, (n, node));
                                }
                                self.nodes.get_mut(&node).unwrap().deleted.push(o);
                            }
                            Err(e) if busy(&e) => {}
                            Err(e) => panic!("{h}: delete {o}: {e}"),
                        }
                        self.drain(node);
                    }
                }
            }
            30..=34 => {
                if let Some((h, node)) = self.random_federate() {
                    let params = vec![(self.text, b"go".to_vec()), (self.reason, b"r".to_vec())];
                    let stop = self.stop;
                    let core = self.nodes.get_mut(&node).unwrap().core_mut();
                    // Time-stamp order (tso mode): stamped at the earliest time the sender may
                    // use, which the others' grants must wait for (no random choice, so the
                    // run's other choices stay those of the seed).
                    let time = if self.modes.time && self.modes.tso {
                        core.time_manager(h).and_then(|m| m.send_bound()).map(|b| {
                            let t = if b.admits(b.time) {
                                b.time
                            } else {
                                DynTime::new(b.time.value() + 0.5).unwrap()
                            };
                            t.encode().to_vec()
                        })
                    } else {
                        None
                    };
                    core.send_interaction(h, stop, params, vec![], time)
                        .or_else(|e| if busy(&e) { Ok(None) } else { Err(e) })
                        .unwrap();
                    self.drain(node);
                }
            }
            35..=59 => {
                if let Some((h, node)) = self.random_federate() {
                    let owned: Vec<ObjectInstanceHandle> =
                        self.feds[&h].owned.keys().copied().collect();
                    if !owned.is_empty() {
                        let o = owned[self.rng.below(owned.len())];
                        self.update(h, node, o);
                    }
                }
            }
            60 => self.fall_behind(),
            65..=67 => self.register_sync(),
            68..=71 => self.achieve_sync(),
            72 => self.request_save(),
            73..=75 => self.report_save(),
            77 if !self.modes.time => self.request_restore(),
            78..=79 => self.report_restore(),
            // HLAMESH_SIM_FREQUENT_RESTORES=1: three times as many save-then-restore episodes.
            80 if !self.modes.time && (self.modes.frequent_restores || self.rng.below(3) == 0) => {
                self.save_then_restore()
            }
            81 if !self.modes.time && self.modes.frequent_restores => self.save_then_restore(),
            82 if self.modes.late_links => self.late_link_up(false),
            76 if self.rng.below(4) == 0 => {
                if let Some((h, node)) = self.random_federate() {
                    let core = self.nodes.get_mut(&node).unwrap().core_mut();
                    let _ = core.abort_federation_save(h);
                    self.drain(node);
                }
            }
            61..=64 => self.tick(),
            _ => {
                for _ in 0..3 {
                    self.deliver_one();
                }
            }
        }
    }

    fn register_sync(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let label = format!("L{}", self.rng.below(3));
        let set = match self.rng.below(3) {
            0 => None,
            1 => {
                // A random subset of live federates, sometimes with a federate that is gone.
                let live: Vec<FederateHandle> = self
                    .feds
                    .iter()
                    .filter(|(_, m)| !m.resigning)
                    .map(|(h, _)| *h)
                    .collect();
                let mut set: Vec<FederateHandle> = live
                    .into_iter()
                    .filter(|_| self.rng.below(2) == 0)
                    .collect();
                if self.rng.below(6) == 0 {
                    set.push(FederateHandle(9_999));
                }
                Some(set)
            }
            _ => Some(vec![h]),
        };
        match self
            .nodes
            .get_mut(&node)
            .unwrap()
            .core_mut()
            .register_federation_synchronization_point(h, &label, b"tag", set)
        {
            Ok(()) => {}
            Err(e) if busy(&e) => return,
            Err(e) => panic!("register {label}: {e}"),
        }
        self.feds
            .get_mut(&h)
            .unwrap()
            .registering
            .push(label.clone());
        self.drain(node);
    }

    fn achieve_sync(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let m = &self.feds[&h];
        let todo: Vec<String> = m
            .announced
            .iter()
            .filter(|l| !m.achieved.contains_key(*l))
            .cloned()
            .collect();
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        if todo.is_empty() {
            // Achieving a point never announced is an error and changes nothing.
            let e = core.synchronization_point_achieved(h, "never-registered", true);
            assert!(
                matches!(
                    e,
                    Err(hlamesh_core::error::RtiError::SynchronizationPointLabelNotAnnounced(_))
                ) || e.as_ref().is_err_and(busy),
                "{e:?}"
            );
            return;
        }
        let label = todo[self.rng.below(todo.len())].clone();
        let ok = self.rng.below(4) != 0;
        if let Err(e) = core.synchronization_point_achieved(h, &label, ok) {
            if busy(&e) {
                return;
            }
            panic!(
                "{h} on {node}: log {:?}\n{e}; model announced {:?} achieved {:?}; core points {:?}",
                core.view().log,
                self.feds[&h].announced,
                self.feds[&h].achieved,
                core.sync_points()
            );
        }
        // A second achievement of the same point is refused.
        assert!(core.synchronization_point_achieved(h, &label, ok).is_err());
        self.feds.get_mut(&h).unwrap().achieved.insert(label, ok);
        self.drain(node);
    }

    fn request_save(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let label = format!("S{}", self.rng.below(3));
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        match core.request_federation_save(h, &label, None) {
            Ok(()) => {}
            Err(hlamesh_core::error::RtiError::SaveInProgress(_)) => {
                assert!(core.save_in_progress().is_some())
            }
            Err(hlamesh_core::error::RtiError::RestoreInProgress(_)) => {
                assert!(core.restore_in_progress().is_some())
            }
            Err(e) => panic!("{h}: {e}"),
        }
        self.drain(node);
    }

    fn request_restore(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let label = format!("S{}", self.rng.below(3));
        // What the requester's LRC reads from its save files of the label.
        let saved = self
            .disk
            .iter()
            .find(|((l, _), _)| *l == label)
            .map(|(_, st)| st.membership.clone())
            .ok_or_else(|| format!("no save {label}"));
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        match core.request_federation_restore(h, &label, saved) {
            Ok(()) => {}
            Err(
                hlamesh_core::error::RtiError::SaveInProgress(_)
                | hlamesh_core::error::RtiError::RestoreInProgress(_),
            ) => {
                assert!(core.save_in_progress().is_some() || core.restore_in_progress().is_some())
            }
            Err(e) => panic!("{h}: {e}"),
        }
        self.drain(node);
    }

    /// A save everyone completes, some data traffic (no joins or crashes), then a restore of it
    /// whose reports come later from the random actions (or `finish_restores`).
    fn save_then_restore(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        self.quiesce();
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        if core.request_federation_save(h, "R", None).is_err() {
            return;
        }
        self.drain(node);
        self.quiesce();
        for _ in 0..2 {
            self.complete_saves();
            self.quiesce();
        }
        for _ in 0..30 {
            match self.rng.below(10) {
                0 => self.register_sync(),
                1 => self.achieve_sync(),
                _ => {
                    if let Some((h, node)) = self.random_federate() {
                        let owned: Vec<ObjectInstanceHandle> =
                            self.feds[&h].owned.keys().copied().collect();
                        if owned.is_empty() || self.rng.below(4) == 0 {
                            let car = self.car;
                            let core = self.nodes.get_mut(&node).unwrap().core_mut();
                            if let Ok(o) = core.register_object_instance(h, car, None) {
                                if hlamesh_sim::trace("actions") {
                                    eprintln!("register {h} {o} on {node} (episode)");
                                }
                                self.feds.get_mut(&h).unwrap().owned.insert(o, 0);
                            }
                            self.drain(node);
                        } else {
                            let o = owned[self.rng.below(owned.len())];
                            self.update(h, node, o);
                        }
                    }
                }
            }
            self.deliver_one();
        }
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let saved = self
            .disk
            .iter()
            .find(|((l, _), _)| l == "R")
            .map(|(_, st)| st.membership.clone())
            .ok_or_else(|| "no save R".to_string());
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        let _ = core.request_federation_restore(h, "R", saved);
        self.drain(node);
    }

    /// A partition episode: the LRCs split into two sides that cannot hear each other. Each
    /// side's transport reports the other side lost (what was in flight arrives or not, as at a
    /// crash), and each side carries on alone — its own coordinator, its own decisions — while
    /// the larger side (on a tie, the one with the smallest node id) streams updates. Then the
    /// partition heals: the links come back, every LRC tells the ones it removed that they are
    /// out, and the losing side must lose its connection (`connection_lost`) while the winners
    /// converge as after a crash. Runs only when every LRC is a member and no join, save or
    /// restore is under way, so which side loses is known in advance (the core's rule,
    /// `core::eviction`).
    fn partition_episode(&mut self) {
        self.quiesce();
        let alive: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.alive)
            .map(|(i, _)| *i)
            .collect();
        let settled = self.nodes.values().filter(|n| n.alive).all(|n| {
            let c = n.core();
            c.is_admitted()
                && n.joins.is_empty()
                && c.save_in_progress().is_none()
                && c.restore_in_progress().is_none()
        });
        if alive.len() < 2 || !settled {
            return;
        }
        let mut a: Vec<u64> = Vec::new();
        let mut b: Vec<u64> = Vec::new();
        for n in &alive {
            if self.rng.below(2) == 0 {
                &mut a
            } else {
                &mut b
            }
            .push(*n);
        }
        if a.is_empty() || b.is_empty() {
            return;
        }
        let min = alive.iter().copied().min().unwrap();
        let a_loses = a.len() < b.len() || (a.len() == b.len() && !a.contains(&min));
        let losers = if a_loses { a.clone() } else { b.clone() };
        if hlamesh_sim::trace("actions") {
            eprintln!("partition {a:?} | {b:?}; losers {losers:?}");
        }
        let label = self.side.values().copied().max().unwrap_or(0) + 1;
        for l in &losers {
            self.side.insert(*l, label);
            self.lose_federates(*l);
        }
        for &x in &a {
            for &y in &b {
                self.cut.insert((x.min(y), x.max(y)));
                self.late.remove(&(x.min(y), x.max(y)));
                for (from, to) in [(x, y), (y, x)] {
                    self.links.remove(&(from, to));
                    for q in [
                        self.causal.get_mut(&(from, to)),
                        self.control.get_mut(&(from, to)),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        let keep = self.rng.below(q.len() + 1);
                        q.truncate(keep);
                    }
                    // Its transport stops hearing `from` and reports it lost.
                    self.control
                        .entry((from, to))
                        .or_default()
                        .push_back(Msg::Gone);
                }
            }
        }
        // The winners stream while cut off (the losers' federates are gone for the model).
        for _ in 0..30 {
            if let Some((h, node)) = self.random_federate() {
                let owned: Vec<ObjectInstanceHandle> =
                    self.feds[&h].owned.keys().copied().collect();
                if owned.is_empty() {
                    let car = self.car;
                    let core = self.nodes.get_mut(&node).unwrap().core_mut();
                    if let Ok(o) = core.register_object_instance(h, car, None) {
                        self.feds.get_mut(&h).unwrap().owned.insert(o, 0);
                    }
                    self.drain(node);
                } else {
                    let o = owned[self.rng.below(owned.len())];
                    self.update(h, node, o);
                }
            }
            self.deliver_one();
            if self.rng.below(5) == 0 {
                self.tick();
            }
            self.check_step();
        }
        self.quiesce();
        self.check_step();
        // Heal: the links come back; streams start where each sender stands now.
        for (x, y) in std::mem::take(&mut self.cut) {
            if self.nodes[&x].alive && self.nodes[&y].alive {
                self.link_up(x, y);
            }
        }
        self.partitions_healed += 1;
        self.quiesce();
        for l in &losers {
            assert!(
                !self.nodes[l].alive,
                "LRC {l} of the losing side ({losers:?}) kept its connection after the heal"
            );
        }
        self.check_step();
    }

    fn report_restore(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        if self.feds[&h].restoring != Some((true, false)) {
            return;
        }
        let complete = self.rng.below(6) != 0;
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        core.report_federate_restore(h, complete).unwrap();
        assert!(core.report_federate_restore(h, complete).is_err());
        self.feds.get_mut(&h).unwrap().restoring = Some((true, true));
        self.drain(node);
    }

    /// Every live federate finishes its part of a restore in progress: every restore must then
    /// have ended everywhere, with nobody left blocked.
    fn finish_restores(&mut self) {
        for _ in 0..10 {
            let todo: Vec<(FederateHandle, u64)> = self
                .feds
                .iter()
                .filter(|(_, m)| !m.resigning && m.restoring == Some((true, false)))
                .map(|(h, m)| (*h, m.node))
                .collect();
            self.quiesce();
            for (h, node) in todo {
                let core = self.nodes.get_mut(&node).unwrap().core_mut();
                core.report_federate_restore(h, true).unwrap();
                self.feds.get_mut(&h).unwrap().restoring = Some((true, true));
                self.drain(node);
            }
            self.quiesce();
        }
        for (h, m) in self.feds.iter().filter(|(_, m)| !m.resigning) {
            assert!(
                m.restoring.is_none(),
                "{h} still restoring {:?}",
                m.restoring
            );
        }
        for id in self.alive_members() {
            let r = self.nodes[&id].core().restore_in_progress();
            assert!(r.is_none(), "node {id} still has restore {r:?}");
        }
    }

    fn report_save(&mut self) {
        let Some((h, node)) = self.random_federate() else {
            return;
        };
        let Some((_, step)) = self.feds[&h].saving.clone() else {
            return;
        };
        use hlamesh_core::core::save::SaveReport;
        let report = match (step, self.rng.below(5)) {
            (0, _) => SaveReport::Begun,
            (1, 0) => SaveReport::NotComplete,
            (1, _) => SaveReport::Complete,
            _ => return,
        };
        let core = self.nodes.get_mut(&node).unwrap().core_mut();
        core.report_federate_save(h, report).unwrap();
        // The same report twice is refused.
        assert!(core.report_federate_save(h, report).is_err());
        if let Some((_, s)) = self.feds.get_mut(&h).unwrap().saving.as_mut() {
            *s += 1;
        }
        self.drain(node);
    }

    /// Every live federate told to save reports begun (if it has not) and complete. Returns
    /// whether any had something to report.
    fn complete_saves(&mut self) -> bool {
        use hlamesh_core::core::save::SaveReport;
        let todo: Vec<(FederateHandle, u64, u8)> = self
            .feds
            .iter()
            .filter(|(_, m)| !m.resigning)
            .filter_map(|(h, m)| m.saving.as_ref().map(|(_, s)| (*h, m.node, *s)))
            .filter(|(_, _, s)| *s < 2)
            .collect();
        let any = !todo.is_empty();
        for (h, node, step) in todo {
            let core = self.nodes.get_mut(&node).unwrap().core_mut();
            if step == 0 {
                core.report_federate_save(h, SaveReport::Begun).unwrap();
            }
            core.report_federate_save(h, SaveReport::Complete).unwrap();
            if let Some((_, s)) = self.feds.get_mut(&h).unwrap().saving.as_mut() {
                *s = 2;
            }
            self.drain(node);
        }
        any
    }

    /// Every live federate finishes its part of a save in progress: every save must then have
    /// ended everywhere (saved or not), with nobody left blocked.
    fn finish_saves(&mut self) {
        for _ in 0..10 {
            if !self.complete_saves() {
                break;
            }
            self.quiesce();
        }
        for (h, m) in self.feds.iter().filter(|(_, m)| !m.resigning) {
            assert!(m.saving.is_none(), "{h} still saving {:?}", m.saving);
        }
        for id in self.alive_members() {
            let s = self.nodes[&id].core().save_in_progress();
            assert!(s.is_none(), "node {id} still has save {s:?}");
        }
    }

    /// Every live federate achieves what it was announced until nothing is pending: every point
    /// must then have synchronized everywhere and every registration have had its answer.
    fn finish_sync_points(&mut self) {
        for _ in 0..20 {
            let todo: Vec<(FederateHandle, u64, String)> = self
                .feds
                .iter()
                .filter(|(_, m)| !m.resigning)
                .flat_map(|(h, m)| {
                    m.announced
                        .iter()
                        .filter(|l| !m.achieved.contains_key(*l))
                        .map(|l| (*h, m.node, l.clone()))
                        .collect::<Vec<_>>()
                })
                .collect();
            if todo.is_empty() {
                break;
            }
            for (h, node, label) in todo {
                self.nodes
                    .get_mut(&node)
                    .unwrap()
                    .core_mut()
                    .synchronization_point_achieved(h, &label, true)
                    .unwrap();
                self.feds.get_mut(&h).unwrap().achieved.insert(label, true);
                self.drain(node);
            }
            self.quiesce();
        }
        if hlamesh_sim::trace("actions") {
            for (id, n) in &self.nodes {
                if n.alive {
                    eprintln!(
                        "node {id} points {:?} save {:?}",
                        n.core().sync_points(),
                        n.core().save_in_progress()
                    );
                }
            }
        }
        for (h, m) in self.feds.iter().filter(|(_, m)| !m.resigning) {
            assert!(
                m.announced.is_empty(),
                "{h} still waits on {:?}",
                m.announced
            );
            assert!(
                m.registering.is_empty(),
                "{h} never heard about {:?}",
                m.registering
            );
        }
        for id in self.alive_members() {
            let pending = self.nodes[&id].core().sync_points();
            assert!(pending.is_empty(), "node {id} still has points {pending:?}");
        }
    }

    fn check_step(&self) {
        let side = |id: &u64| self.side.get(id).copied().unwrap_or(0);
        // Logs are compacted (`hlamesh_core::core::compaction`): compare the decisions both
        // still hold verbatim, by number, and the folded parts of logs folded as far.
        let logs: Vec<(u64, &hlamesh_core::core::membership::View)> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.alive && n.core().is_admitted())
            .map(|(id, n)| (*id, n.core().view()))
            .collect();
        for (a, la) in &logs {
            for (b, lb) in &logs {
                if side(a) != side(b) || a >= b {
                    // A partition: each side carries on alone until they hear each other.
                    continue;
                }
                let from = la.base.max(lb.base);
                let to = la.last().min(lb.last());
                let tail = |v: &hlamesh_core::core::membership::View| -> Vec<Decision> {
                    v.numbered()
                        .filter(|(n, _)| *n > from && *n <= to && *n > v.base)
                        .map(|(_, d)| d.clone())
                        .collect()
                };
                assert_eq!(tail(la), tail(lb), "logs of {a} and {b} diverge");
                if la.base == lb.base {
                    assert_eq!(la.folded, lb.folded, "folded logs of {a} and {b} diverge");
                }
            }
        }
        let mut coords: BTreeMap<u32, usize> = BTreeMap::new();
        for (id, n) in &self.nodes {
            if n.alive && n.core().is_active_coordinator() {
                *coords.entry(side(id)).or_default() += 1;
            }
        }
        assert!(
            coords.values().all(|c| *c <= 1),
            "more than one active coordinator on one side: {coords:?}"
        );
    }

    fn quiesce(&mut self) {
        // Every link comes up in the end.
        self.late_link_up(true);
        for _ in 0..200 {
            while self.deliver_one() {}
            self.tick();
            let pending = self.nodes.values().any(|n| n.alive && !n.joins.is_empty());
            let busy = self
                .causal
                .values()
                .chain(self.control.values())
                .any(|q| !q.is_empty());
            if !pending && !busy {
                // A few more ticks for retries to settle.
                for _ in 0..12 {
                    self.tick();
                    while self.deliver_one() {}
                }
                return;
            }
        }
        for (id, n) in &self.nodes {
            let c = &n.core();
            eprintln!(
                "node {id} alive={} admitted={} joins={} coord={:?} active={} nodes={:?} last={}",
                n.alive,
                c.is_admitted(),
                n.joins.len(),
                c.coordinator(),
                c.is_active_coordinator(),
                c.view().nodes,
                c.view().last()
            );
            if hlamesh_sim::trace("dump") && n.alive {
                eprintln!("{c:#?}");
            }
        }
        panic!("did not quiesce");
    }

    fn check_final(&mut self) {
        let alive: Vec<u64> = self.alive_members();
        let first = &self.nodes[&alive[0]].core();
        let coordinator = first.coordinator();
        let log = first.view().log.clone();
        let folded = first.view().folded.clone();
        for id in &alive {
            let c = &self.nodes[id].core();
            assert_eq!(c.view().log, log, "node {id} has another log");
            assert_eq!(c.view().folded, folded, "node {id} has another folded log");
            assert_eq!(c.view().last(), first.view().last(), "node {id}");
            assert_eq!(c.coordinator(), coordinator);
        }
        assert!(alive.contains(&coordinator.unwrap()));
        let mut handles = BTreeSet::new();
        for d in &log {
            if let Decision::FederateJoined { handle, .. } = d {
                assert!(handles.insert(*handle), "handle {handle} allocated twice");
            }
        }
        // Federates of dead nodes are resigned everywhere.
        let view_feds: BTreeSet<FederateHandle> = first.view().federates.keys().copied().collect();
        let live_feds: BTreeSet<FederateHandle> = self
            .feds
            .iter()
            .filter(|(_, m)| !m.resigning)
            .map(|(h, _)| *h)
            .collect();
        if view_feds != live_feds {
            for (id, n) in &self.nodes {
                eprintln!("node {id} alive={} log={:?}", n.alive, n.core().view().log);
            }
            for (h, m) in &self.feds {
                eprintln!("fed {h} node {} resigning {}", m.node, m.resigning);
            }
        }
        assert_eq!(view_feds, live_feds, "joined federates");
        // Live instances = those owned by live federates.
        let mut instances: BTreeSet<ObjectInstanceHandle> = self
            .feds
            .iter()
            .filter(|(_, m)| !m.resigning)
            .flat_map(|(_, m)| m.owned.keys().copied())
            .collect();
        // Orphans live on while some live LRC holds them (if every LRC that knew one died, the
        // federation forgot it; then no subscriber may know it either).
        let held: BTreeSet<ObjectInstanceHandle> = self
            .nodes
            .values()
            .filter(|n| n.alive && n.core().is_admitted())
            .flat_map(|n| n.core().instances().keys().copied())
            .collect();
        instances.extend(self.orphans.intersection(&held).copied());
        let mut maybe_known: Option<BTreeSet<ObjectInstanceHandle>> = None;
        for (h, m) in &self.feds {
            if m.resigning {
                continue;
            }
            let expect: BTreeSet<ObjectInstanceHandle> = instances
                .iter()
                .copied()
                .filter(|o| !m.owned.contains_key(o))
                .collect();
            let known: BTreeSet<ObjectInstanceHandle> = m.known.keys().copied().collect();
            let maybe: BTreeSet<ObjectInstanceHandle> =
                known.intersection(&self.maybe_orphans).copied().collect();
            let agreed = maybe_known.get_or_insert_with(|| maybe.clone());
            assert_eq!(
                *agreed, maybe,
                "federate {h}: survivors disagree on undecided resigns"
            );
            let known: BTreeSet<ObjectInstanceHandle> = known.difference(&maybe).copied().collect();
            let expect: BTreeSet<ObjectInstanceHandle> =
                expect.difference(&self.maybe_orphans).copied().collect();
            if known != expect {
                for (id, n) in &self.nodes {
                    eprintln!(
                        "node {id} alive={} nodes={:?} instances={:?} locals={:?}",
                        n.alive,
                        n.core().view().nodes,
                        n.core().instances().keys().collect::<Vec<_>>(),
                        n.core()
                            .local_federates()
                            .map(|(h, l)| (h, l.decl.subscribed_objects.clone()))
                            .collect::<Vec<_>>()
                    );
                }
                for (h, m) in &self.feds {
                    eprintln!(
                        "fed {h} node {} resigning {} subs {:?}",
                        m.node, m.resigning, m.subscribes
                    );
                }
            }
            assert_eq!(known, expect, "federate {h} knows the wrong instances");
        }
        // One more update of everything: every subscriber sees exactly the final value.
        let owners: Vec<(FederateHandle, u64, Vec<ObjectInstanceHandle>)> = self
            .feds
            .iter()
            .filter(|(_, m)| !m.resigning)
            .map(|(h, m)| (*h, m.node, m.owned.keys().copied().collect()))
            .collect();
        for (h, node, objs) in owners {
            for o in objs {
                self.update(h, node, o);
            }
        }
        self.quiesce();
        let finals: BTreeMap<ObjectInstanceHandle, u64> = self
            .feds
            .values()
            .filter(|m| !m.resigning)
            .flat_map(|m| m.owned.iter().map(|(o, n)| (*o, *n)))
            .collect();
        for (h, m) in &self.feds {
            if m.resigning {
                continue;
            }
            for o in m
                .known
                .keys()
                .filter(|o| !self.orphans.contains(o) && !self.maybe_orphans.contains(o))
            {
                assert_eq!(
                    m.last.get(o),
                    finals.get(o),
                    "federate {h}: last value of {o}"
                );
            }
        }
    }
}

/// A service refused because a save or restore is in progress (the federate tries later).
/// The time-stamp-order invariants of one delivery to `f` (whose time model is `tm`): a message
/// sent in time-stamp order reaches a constrained federate in time-stamp order, only while it
/// advances (or finishes enabling regulation), never beyond the time it asked for and never in
/// its past (below its time, nor at it after a TAR or NER grant). A grant to `t` means every
/// such message stamped at or before `t` was delivered before it, so one arriving later breaks
/// the grant (as a regulator's promise overwritten by its own stale status once did: the last
/// joiner saw nobody regulating, was granted at once, and got the reflections of the time it
/// had passed afterwards). Not for a federate that asked to resign: the others may have applied
/// its resignation already and no longer wait for it (a regulator then enables without its
/// answer). Returns whether it was delivered in time-stamp order.
fn check_tso(f: FederateHandle, m: &FedModel, info: &ReceiveInfo) -> bool {
    let Some(t) = info.time.as_deref().and_then(|b| DynTime::decode(b).ok()) else {
        return false;
    };
    if m.resigning {
        return info.received_order == OrderType::TimeStamp;
    }
    let tm = &m.time;
    let t = t.value();
    if info.received_order == OrderType::TimeStamp {
        assert_eq!(
            info.sent_order,
            OrderType::TimeStamp,
            "{f}: a receive-order message delivered in time-stamp order"
        );
        assert!(
            tm.pending.is_some() || tm.regulation == Switch::Pending,
            "{f}: time-stamp-ordered message at {t} while not advancing ({tm:?})"
        );
        if let Some((_, at)) = tm.pending {
            assert!(
                t <= at,
                "{f}: time-stamp-ordered message at {t} beyond its request ({tm:?})"
            );
        }
    }
    if info.sent_order == OrderType::TimeStamp && tm.constraint == Switch::On {
        let past = t < tm.granted || (t == tm.granted && tm.strict);
        assert!(
            !past && info.received_order == OrderType::TimeStamp,
            "{f}: time-stamp-ordered message from {} at {t} delivered in its past or in \
             receive order ({:?}; {tm:?})",
            info.producer,
            info.received_order
        );
    }
    info.received_order == OrderType::TimeStamp
}

fn busy(e: &hlamesh_core::error::RtiError) -> bool {
    matches!(
        e,
        hlamesh_core::error::RtiError::SaveInProgress(_)
            | hlamesh_core::error::RtiError::RestoreInProgress(_)
    )
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run_with(seed: u64, steps: u64, modes: Modes) -> Sim {
    if hlamesh_sim::trace("log") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("hlamesh_core=trace"))
            .with_writer(std::io::stderr)
            .try_init();
    }
    let mut sim = Sim::with_modes(seed, modes);
    sim.add_node_and_join();
    for _ in 0..steps {
        sim.random_action();
        sim.check_step();
    }
    // Make sure somebody is alive and joined at the end.
    if sim.alive_members().is_empty() || sim.feds.values().all(|m| m.resigning) {
        sim.quiesce();
        sim.add_node_and_join();
    }
    sim.quiesce();
    sim.check_step();
    sim.finish_restores();
    sim.finish_saves();
    sim.finish_sync_points();
    sim.finish_time();
    sim.check_final();
    sim
}

#[test]
fn random_federations_converge() {
    sweep(
        "random_federations_converge",
        seeds(None, 400),
        Modes::from_env(),
    );
}

/// Partitions and their heal (see `Sim::partition_episode`): the losing side is evicted, the
/// winners converge. `HLAMESH_SIM_PARTITION_SEEDS` seeds (default 150).
#[test]
fn random_federations_with_partitions_converge() {
    let modes = Modes {
        partitions: true,
        ..Modes::from_env()
    };
    sweep(
        "random_federations_with_partitions_converge",
        seeds(Some("HLAMESH_SIM_PARTITION_SEEDS"), 150),
        modes,
    );
}

/// Time management among the joins, crashes, resigns, saves and sync points (see
/// `Sim::time_action`), with partitions and time-stamp-ordered interactions (`check_tso`);
/// every request granted in the liveness phase. `HLAMESH_SIM_TIME_SEEDS` seeds (default 150).
#[test]
fn random_federations_with_time_management_converge() {
    let modes = Modes {
        time: true,
        tso: true,
        partitions: true,
        ..Modes::from_env()
    };
    sweep(
        "random_federations_with_time_management_converge",
        seeds(Some("HLAMESH_SIM_TIME_SEEDS"), 150),
        modes,
    );
}

fn time_mode() -> Modes {
    Modes {
        time: true,
        ..Modes::default()
    }
}

/// Time mode, seed 11: a receive-order removal (the owner resigned) overtook the reflections a
/// constrained federate's manager still held, so its last value was never reflected.
#[test]
fn regression_time_removal_waits_behind_held_reflections() {
    run_with(11, 300, time_mode());
}

/// Time mode, seed 154: the regulation query of a federate whose join another LRC had not
/// applied yet was dropped there, and its `enableTimeRegulation` never completed.
#[test]
fn regression_time_query_of_an_unknown_joiner_is_answered() {
    run_with(154, 300, time_mode());
}

/// Time mode, seed 391: receive-order updates of a producer that had resigned went straight to
/// a constrained federate, ahead of its earlier updates still held by the manager.
#[test]
fn regression_time_updates_of_a_resigned_producer_stay_in_order() {
    run_with(391, 300, time_mode());
}

/// Time mode, seed 440: a regulator's promise lost in a fall-behind (promises are sent only
/// when they change) left a constrained federate waiting for good; the snapshot's sender now
/// repeats its federates' promises.
#[test]
fn regression_time_promises_are_repeated_after_a_fall_behind() {
    run_with(440, 300, time_mode());
}

/// Time mode with partitions, seed 197: every federate left between a save request and its
/// decision, and the save initiated with nobody in it never ended (every later join refused).
#[test]
fn regression_a_save_of_nobody_is_not_begun() {
    run_with(
        197,
        300,
        Modes {
            partitions: true,
            ..time_mode()
        },
    );
}

/// The time sweep's modes: time management with time-stamp-ordered interactions and
/// partitions.
fn tso_mode() -> Modes {
    Modes {
        time: true,
        tso: true,
        partitions: true,
        ..Modes::default()
    }
}

/// Time-stamp order, seed 119: an enable of regulation asked for before a save completed
/// during it, and its callback went to the federate while the time-stamp-ordered messages
/// delivered before it were held until the save ended; they reached it in its past. Time
/// callbacks (grants too) are held with the data now.
#[test]
fn regression_time_an_enable_during_a_save_stays_behind_the_data_held() {
    run_with(119, 300, tso_mode());
}

/// Time-stamp order, seed 54: a regulator resigned, and a federate that joined after its
/// last message held its final promise until its data up to that promise had arrived; the
/// snapshot of its LRC covered that data but moved only the stream of the federates still
/// joined there, so the promise waited for good, and the joiner's time (and the time of the
/// federates its promises held back) with it.
#[test]
fn regression_time_a_snapshot_covers_a_leavers_last_data() {
    run_with(54, 300, tso_mode());
}

/// Time-stamp order, seed 3652: a federate's time-stamp-ordered send was counted under the
/// sequence number of a promise that another federate of the same LRC sent while the message
/// was applied locally; the sender then promised a message nobody ever got, and every promise
/// it made waited for it.
#[test]
fn regression_time_a_send_counts_under_its_own_sequence_number() {
    run_with(3652, 300, tso_mode());
}

/// Time-stamp order, seed 1322: a regulator turned regulation off and on again; its regulation
/// query (QUIC) overtook its final promise and its last time-stamp-ordered message (data
/// stream), so a peer took it for a stand-in at the bound it answered, above that message,
/// and got the message in its past. A query now waits for the querier's data up to its last
/// time-stamp-ordered message, as a promise does.
#[test]
fn regression_time_a_regulation_query_waits_behind_the_queriers_data() {
    run_with(1322, 300, tso_mode());
}

/// Lockstep seed 250 (the multi-process timed-save test's federation, in its order: links up,
/// the barrier): the last joiner got a regulator's "not regulating" status, repeated while the
/// regulator's query was out, just before its first promise; seeing nobody regulate it was
/// granted time 1 at once, and the regulator's update at 1 came afterwards (`rti_restore`'s
/// `step 2: reflection at Some(1.0)`, about one run in seven under load).
#[test]
fn regression_lockstep_250_the_last_joiner_is_not_granted_before_an_update() {
    lockstep_joins(250, false, true);
}

/// Lockstep seed 52 (links up, no barrier): the last joiner's regulation waited for an earlier
/// member's promise, which waited for that member's data; the member's snapshot covered it,
/// and nothing came after the snapshot to run the managers, so the enable (and the whole
/// lockstep, the others waiting for the joiner) stayed stuck.
#[test]
fn regression_lockstep_52_a_snapshot_runs_the_time_managers() {
    lockstep_joins(52, false, false);
}

/// Lockstep seed 893 (late links, no barrier): the status a regulator addressed to a newcomer
/// (QUIC) arrived after the promises it broadcast later (data stream) and replaced them; the
/// regulator had taken its last step and promised nothing more, so the newcomer waited for
/// good below a bound long passed. An older promise than the last status handed on is dropped.
#[test]
fn regression_lockstep_893_an_older_promise_does_not_replace_a_newer_status() {
    lockstep_joins(893, true, false);
}

/// Swarm seed 161 (time, late links, partial candidates): a constrained federate enabling
/// regulation waits until the others pass the time its answers named, beyond every time asked
/// for; the liveness phase pushes the federation on until it is granted.
#[test]
fn regression_swarm_161_regulation_enabled_beyond_every_request() {
    // As the seed ran when it failed (before the swarm drew time-stamp order).
    let modes = Modes {
        tso: false,
        ..Modes::swarm(161)
    };
    run_with(161, 300, modes);
}

/// Swarm seed 3478 (late links): decisions answered while a joiner was still unadmitted were
/// missing from its welcome (it carried only the acknowledged prefix); the joiner outlived the
/// coordinator and every member that held them, and handed out a federate handle twice.
/// Orphans seed 645, 600 steps, folding every 3 decisions: a synchronization point
/// registration refused as not unique (the label was taken), whose retry reached the
/// coordinator after the point had synchronized, was then decided as registered, and the
/// federate got both outcomes. The coordinator now remembers its refusals for the copies of a
/// request still in flight.
#[test]
fn regression_orphans_645_a_refused_registration_stays_refused() {
    let modes = Modes {
        orphans: true,
        fold_every: 3,
        ..Modes::default()
    };
    run_with(645, 600, modes);
}

/// Orphans mode folding every 3 decisions, seed 444 (also 796 on an earlier build): a federate
/// updated an instance, the federation restored a save older than those updates, and an LRC
/// that had begun listening before the restore joined after it. Replaying the decision log
/// applied the restore and took every stream to be in the new epoch, so state transfer
/// reflected the held updates of the abandoned run (values 1, 2, 3) before the new run's 1.
/// A restore marker among the held data now says that what precedes it is of an earlier epoch.
#[test]
fn regression_orphans_444_a_joiner_does_not_reflect_the_abandoned_run() {
    let modes = Modes {
        orphans: true,
        fold_every: 3,
        ..Modes::default()
    };
    run_with(444, 600, modes);
}

/// Folding every 3 decisions, seed 183: a save failed at once (a member resigned right after
/// it was initiated) and, once saves that ended fold, its `SaveInitiated` was folded before a
/// member's LRC delivered `initiate_federate_save`; the checker found no decision for it. It
/// now also remembers every `SaveInitiated` a log held (`Sim::saves_seen`).
#[test]
fn regression_fold_183_a_save_folded_before_its_member_heard_of_it() {
    let modes = Modes {
        fold_every: 3,
        ..Modes::default()
    };
    run_with(183, 300, modes);
}

/// Partitions, seed 1196: the coordinator was cut off during a save; its successor decided a
/// member's not-complete report before the retry of the same member's begun report, which put
/// the member back to saving, and the save never ended ("11 still saving"). A finished part
/// now stays finished.
#[test]
fn regression_partitions_1196_a_late_begun_report_does_not_reopen_a_members_save() {
    let modes = Modes {
        partitions: true,
        ..Modes::default()
    };
    run_with(1196, 300, modes);
}

/// Partitions, seed 1375: a discovery arrived during a save and was held until
/// `federation_saved`, so the save's RTI state counted it as made while the federate's saved
/// state did not know it; a restore of that save failed after its commit (a federate resigned)
/// and dropped the held discovery with it, keeping the rest of the restored state, so the
/// federate was later told to remove an instance it had never discovered. A restore that fails
/// after its commit now delivers what the save held, like the restored run's own data.
#[test]
fn regression_partitions_1375_a_failed_restore_still_delivers_what_its_save_held() {
    let modes = Modes {
        partitions: true,
        ..Modes::default()
    };
    run_with(1375, 300, modes);
}

/// Orphans with frequent restores, folding every 5 decisions, seed 1426: a joiner got an
/// orphan (its registrant resigned with `UnconditionallyDivestAttributes`) from the
/// coordinator, which hands orphans on while their registrant's LRC hosts no federate; once that
/// LRC hosted one again, the coordinator's next snapshot (a resynchronisation) lacked the orphan
/// and the joiner deleted it as if it had been deleted in data it lost — alone of all LRCs. An
/// orphan the sender only handed on is not deleted for missing from its snapshot.
#[test]
fn regression_orphans_1426_an_orphan_handed_on_survives_the_coordinators_next_snapshot() {
    let modes = Modes {
        orphans: true,
        frequent_restores: true,
        fold_every: 5,
        ..Modes::default()
    };
    run_with(1426, 600, modes);
}

#[test]
fn regression_swarm_3478_welcome_carries_every_decision() {
    // As the seed ran when it failed (before the swarm drew time-stamp order).
    let modes = Modes {
        tso: false,
        ..Modes::swarm(3478)
    };
    run_with(3478, 300, modes);
}

/// Seed 5 numbers with tiny datagrams (`Sim::numbering`): when the core counted one number
/// per message, a resigner's last update went out as several fragments, its resignation named a
/// position short of the transport's, and another LRC removed the instance before that update
/// ("removed after value 5, its owner's last was 6"). The simulated transport now also checks
/// every message goes under the number the core gave it.
#[test]
fn regression_5_a_fragmented_message_counts_as_many_numbers_as_fragments() {
    let sim = run_with(5, 300, Modes::default());
    assert!(
        sim.numbering.max_whole < 100,
        "seed 5 no longer draws tiny datagrams; pick a seed that does"
    );
}

/// Seed 2463 of the time sweep: the coordinator crashed after deciding two more joins, whose
/// copies reached only a joiner still waiting for its Welcome; the joiner's report to the
/// successor said it had nothing, so the successor decided on from its shorter log, and the
/// old coordinator's Welcome, delivered late, admitted the joiner with the other log ("logs of
/// 101 and 103 diverge"). A joiner now drops a Welcome (and the `Joined` reply after it) from
/// a coordinator whose successor fetched it (`Phase::superseded`).
#[test]
fn regression_time_2463_a_late_welcome_from_a_succeeded_coordinator_is_dropped() {
    run_with(2463, 300, tso_mode());
}

/// Swarm testing: each seed turns every option on or off at random (`Modes::swarm`).
/// `HLAMESH_SIM_SWARM_SEEDS` seeds (default 150) from `HLAMESH_SIM_FIRST_SEED`.
#[test]
fn random_federations_with_swarm_options_converge() {
    let steps = env("HLAMESH_SIM_STEPS", 300);
    for seed in seeds(Some("HLAMESH_SIM_SWARM_SEEDS"), 150).iter() {
        let modes = Modes::swarm(seed);
        if std::panic::catch_unwind(|| run_with(seed, steps, modes)).is_err() {
            panic!(
                "seed {seed} failed with swarm options {modes:?} (HLAMESH_SIM_FIRST_SEED={seed} HLAMESH_SIM_SWARM_SEEDS=1 to rerun)"
            );
        }
    }
}

/// The same sweep with resigns that leave orphans behind (`HLAMESH_SIM_ORPHANS`), over fewer
/// seeds by default (`HLAMESH_SIM_ORPHAN_SEEDS`, 200: about 4 s).
#[test]
fn random_federations_with_orphans_converge() {
    let modes = Modes {
        orphans: true,
        ..Modes::from_env()
    };
    sweep(
        "random_federations_with_orphans_converge",
        seeds(Some("HLAMESH_SIM_ORPHAN_SEEDS"), 200),
        modes,
    );
}

/// The seeds of a sweep (`hlamesh_sim::Seeds`): `count` from 1 unless the environment says
/// otherwise, `count_var` being the sweep's own count variable.
fn seeds(count_var: Option<&str>, count: u64) -> Seeds {
    Seeds::from_env(1, count, count_var)
}

/// How to replay `seed` of `test`.
fn rerun(test: &str, seed: u64) -> String {
    Seeds::rerun("hlamesh-core", "rti_sim", test, seed)
}

/// Runs the seeds of test `test` and checks they exercised what they check.
fn sweep(test: &str, seeds: Seeds, modes: Modes) {
    let steps = env("HLAMESH_SIM_STEPS", 300);
    let (mut refl, mut disc, mut inter, mut lost, mut resyncs) = (0, 0, 0, 0, 0);
    let mut synced = 0;
    let mut held = 0;
    let mut refused = 0;
    let (mut healed, mut evicted, mut grants, mut tso) = (0, 0, 0, 0);
    let mut saves = 0;
    let mut compared = 0;
    let (mut restores, mut restored, mut denied) = (0, 0, 0);
    for seed in seeds.iter() {
        let sim = std::panic::catch_unwind(|| run_with(seed, steps, modes)).unwrap_or_else(|_| {
            panic!(
                "seed {seed} failed ({modes:?}); replay: {}",
                rerun(test, seed)
            )
        });
        refl += sim.reflections;
        disc += sim.discoveries;
        inter += sim.interactions;
        lost += sim.lost_reported;
        resyncs += sim.resyncs;
        synced += sim.synchronized;
        held += sim.held_until_joined;
        refused += sim.declarations_refused;
        healed += sim.partitions_healed;
        grants += sim.grants;
        tso += sim.tso_delivered;
        evicted += sim.evicted;
        saves += sim.saves_ended;
        compared += sim.save_outcomes_compared;
        restores += sim.restores_ended;
        restored += sim.restores_done;
        denied += sim.restores_denied;
    }
    eprintln!(
        "{refl} reflections, {disc} discoveries, {inter} interactions, {lost} lost federates, {resyncs} resynchronisations, {synced} synchronizations"
    );
    eprintln!("{saves} save outcomes, {compared} compared with another federate's");
    eprintln!("{restores} restore outcomes, {restored} restored, {denied} requests denied");
    assert!(seeds.len() < 10 || synced > 20, "{synced} synchronizations");
    eprintln!("{held} callbacks held by a host until their federate's join completed");
    eprintln!("{refused} declarations refused during a save or restore (tried again)");
    eprintln!("{healed} partitions healed, {evicted} LRCs of losing sides evicted");
    eprintln!("{grants} time advance grants, {tso} time-stamp-ordered deliveries");
    assert!(
        seeds.len() < 10 || !modes.time || grants > 100,
        "time mode exercised too little: {grants} grants"
    );
    assert!(
        seeds.len() < 10 || !(modes.time && modes.tso) || tso > 100,
        "time-stamp order exercised too little: {tso} deliveries"
    );
    assert!(
        seeds.len() < 10 || !modes.partitions || healed > 5 && evicted > 5,
        "partition mode exercised too little: {healed} healed, {evicted} evicted"
    );
    assert!(
        seeds.len() < 10 || held > 0,
        "no callback was ever held for a joining federate: the host's early routing went unexercised"
    );
    assert!(
        seeds.len() < 10 || saves > 20 && compared > 10,
        "{saves} save outcomes, {compared} compared"
    );
    assert!(
        seeds.len() < 10 || modes.time || restores > 10 && restored > 2 && denied > 5,
        "{restores} restore outcomes, {restored} restored, {denied} denied"
    );
    // The runs must have exercised what they claim to check.
    assert!(
        seeds.len() < 10 || refl > 100 && disc > 20 && inter > 10 && lost > 0 && resyncs > 0,
        "{refl} {disc} {inter} {lost}"
    );
}

#[test]
fn coordinator_crash_mid_broadcast_recovers_decisions() {
    // Node A creates, B and C join; A decides a join for D but only C hears of it before A dies.
    // The new coordinator (B) must fetch it from C: D keeps its handle, nobody reuses it.
    for seed in 1..=20 {
        let mut sim = Sim::new(seed);
        sim.add_node_and_join();
        sim.quiesce();
        sim.add_node_and_join();
        sim.quiesce();
        sim.add_node_and_join();
        sim.quiesce();
        sim.add_node_and_join();
        // Deliver a random part, then kill the creator.
        for _ in 0..sim.rng.below(12) {
            sim.deliver_one();
        }
        let creator = *sim.nodes.keys().next().unwrap();
        sim.crash(creator);
        sim.add_node_and_join();
        sim.quiesce();
        sim.check_step();
        sim.check_final();
        assert!(sim.feds.values().filter(|m| !m.resigning).count() >= 3);
    }
}

#[test]
fn destroy_right_after_resignations_does_not_fail_them() {
    // B's federate resigns; the coordinator A decides it but holds the reply until B acknowledges.
    // A's own federate resigns and A destroys the (now empty) execution before B heard anything.
    // Both resignations were decided before the destruction: both must complete without error
    // (the simulator panics on an unexpected error completion).
    let mut sim = Sim::new(7);
    sim.add_node_and_join();
    sim.quiesce();
    sim.add_node_and_join();
    sim.quiesce();
    let ids: Vec<u64> = sim.nodes.keys().copied().collect();
    let (a, b) = (ids[0], ids[1]);
    let fed_of = |sim: &Sim, n: u64| {
        *sim.feds
            .iter()
            .find(|(_, m)| m.node == n)
            .map(|(h, _)| h)
            .unwrap()
    };
    let (fa, fb) = (fed_of(&sim, a), fed_of(&sim, b));
    for (n, f) in [(b, fb), (a, fa)] {
        sim.feds.get_mut(&f).unwrap().resigning = true;
        sim.nodes
            .get_mut(&n)
            .unwrap()
            .core_mut()
            .resign(f, ResignAction::DeleteObjects)
            .unwrap();
        sim.drain(n);
        if n == b {
            // Only B's request reaches A.
            while let Some(Msg::Ctl(m)) = sim.control.get_mut(&(b, a)).and_then(|q| q.pop_front()) {
                sim.nodes
                    .get_mut(&a)
                    .unwrap()
                    .handle(sim.now, Event::Control { from: b, msg: m });
                sim.drain(a);
            }
        }
    }
    let t = sim.nodes.get_mut(&a).unwrap().core_mut().destroy();
    let _ = t;
    sim.drain(a);
    assert!(sim.nodes[&a].core().view().destroyed);
    sim.quiesce();
    assert!(sim.nodes[&b].core().view().destroyed);
}

// ----- Ownership management: random transfers among 2–8 federates with crashes -----

/// What one federate of an ownership run asked for and was asked.
#[derive(Default)]
struct OwnModel {
    /// Acquisitions pending: object → (intrusive, cancelling).
    acquiring: BTreeMap<ObjectInstanceHandle, (bool, bool)>,
    /// Release requests received and not answered.
    release_asked: BTreeSet<ObjectInstanceHandle>,
    /// Divestiture confirmations asked for.
    confirm_asked: BTreeSet<ObjectInstanceHandle>,
    /// Negotiated divestitures in progress.
    divesting: BTreeSet<ObjectInstanceHandle>,
    /// Last position value seen (reflected, or sent itself).
    last: BTreeMap<ObjectInstanceHandle, u64>,
}

/// An ownership run: the simulator's network and cores, a few instances whose Position changes
/// hands at random. Position values are one counter per instance, whoever owns it: a receiver
/// must see them strictly increasing (consecutive while nothing crashed), each from the
/// federate that sent it.
struct OwnRun {
    sim: Sim,
    objs: Vec<ObjectInstanceHandle>,
    seq: BTreeMap<ObjectInstanceHandle, u64>,
    sent_by: BTreeMap<(ObjectInstanceHandle, u64), FederateHandle>,
    models: BTreeMap<FederateHandle, OwnModel>,
    gaps: bool,
    transfers: u64,
    ended_unavailable: u64,
    ended_cancelled: u64,
    updates: u64,
}

impl OwnRun {
    fn new(seed: u64, modes: Modes) -> OwnRun {
        let mut sim = Sim::with_modes(seed, modes);
        sim.own_run = true;
        let nodes = 2 + sim.rng.below(3);
        for _ in 0..nodes {
            sim.add_node_and_join();
            sim.quiesce();
        }
        for _ in 0..sim.rng.below(5) {
            let m = sim.alive_members();
            let n = m[sim.rng.below(m.len())];
            sim.join_more(n);
            sim.quiesce();
        }
        let mut run = OwnRun {
            sim,
            objs: Vec::new(),
            seq: BTreeMap::new(),
            sent_by: BTreeMap::new(),
            models: BTreeMap::new(),
            gaps: false,
            transfers: 0,
            ended_unavailable: 0,
            ended_cancelled: 0,
            updates: 0,
        };
        // Acquirers must publish the class they know an instance as (Vehicle for some).
        let (vehicle, pos, heading) = (run.sim.vehicle, run.sim.position, run.sim.heading);
        for (h, node) in run.live() {
            run.models.insert(h, OwnModel::default());
            run.core(node)
                .publish_object_class_attributes(h, vehicle, &[pos, heading])
                .unwrap();
            run.sim.drain(node);
        }
        for _ in 0..1 + run.sim.rng.below(3) {
            let (h, node) = run.sim.random_federate().unwrap();
            let car = run.sim.car;
            let o = run
                .core(node)
                .register_object_instance(h, car, None)
                .unwrap();
            run.sim.feds.get_mut(&h).unwrap().owned.insert(o, 0);
            run.sim.drain(node);
            run.objs.push(o);
        }
        run.sim.quiesce();
        run.process();
        run
    }

    fn core(&mut self, node: u64) -> &mut FederationCore {
        self.sim.nodes.get_mut(&node).unwrap().core_mut()
    }

    fn live(&self) -> Vec<(FederateHandle, u64)> {
        self.sim
            .feds
            .iter()
            .filter(|(_, m)| !m.resigning)
            .map(|(h, m)| (*h, m.node))
            .collect()
    }

    /// The live federate whose LRC says it owns Position of `o`.
    fn owner(&self, o: ObjectInstanceHandle) -> Option<(FederateHandle, u64)> {
        let pos = self.sim.position;
        self.live().into_iter().find(|(h, node)| {
            self.sim.nodes[node]
                .core()
                .is_attribute_owned_by_federate(*h, o, pos)
                .unwrap_or(false)
        })
    }

    /// Handles the ownership callbacks and reflections delivered since the last call.
    fn process(&mut self) {
        let pos = self.sim.position;
        for (f, cb) in std::mem::take(&mut self.sim.own_log) {
            let Some(m) = self.models.get_mut(&f) else {
                continue;
            };
            match cb {
                Callback::ReflectAttributeValues {
                    object,
                    values,
                    info,
                    ..
                } => {
                    for (a, v) in values {
                        if a != pos {
                            continue;
                        }
                        let n = u64::from_be_bytes(v.try_into().unwrap());
                        assert_eq!(
                            self.sent_by.get(&(object, n)),
                            Some(&info.producer),
                            "{f}: value {n} of {object} from {} who did not send it",
                            info.producer
                        );
                        if let Some(prev) = m.last.get(&object) {
                            if self.gaps {
                                assert!(n > *prev, "{f}: {object} reflected {n} after {prev}");
                            } else {
                                assert_eq!(n, prev + 1, "{f}: {object} reflected {n} after {prev}");
                            }
                        }
                        m.last.insert(object, n);
                    }
                }
                Callback::RequestDivestitureConfirmation { object, .. } => {
                    m.confirm_asked.insert(object);
                }
                Callback::RequestAttributeOwnershipRelease { object, .. } => {
                    m.release_asked.insert(object);
                }
                Callback::AttributeOwnershipAcquisitionNotification { object, attrs, .. } => {
                    assert_eq!(attrs, vec![pos]);
                    assert!(
                        m.acquiring.remove(&object).is_some(),
                        "{f}: acquired {object} it did not ask for"
                    );
                    self.transfers += 1;
                }
                Callback::AttributeOwnershipUnavailable { object, .. } => {
                    assert!(
                        m.acquiring.remove(&object).is_some(),
                        "{f}: unavailable for {object} it did not ask for"
                    );
                    self.ended_unavailable += 1;
                }
                Callback::ConfirmAttributeOwnershipAcquisitionCancellation { object, .. } => {
                    let a = m.acquiring.remove(&object);
                    assert!(
                        a.is_some_and(|(_, c)| c),
                        "{f}: cancellation of {object} it did not cancel: {a:?}"
                    );
                    self.ended_cancelled += 1;
                }
                _ => {}
            }
        }
        // A deleted instance ends everything about it.
        for (h, node) in self.live() {
            let core = &self.sim.nodes[&node].core();
            let gone: Vec<ObjectInstanceHandle> = self
                .objs
                .iter()
                .copied()
                .filter(|o| !core.instances().contains_key(o))
                .collect();
            if let Some(m) = self.models.get_mut(&h) {
                for o in gone {
                    m.acquiring.remove(&o);
                    m.release_asked.remove(&o);
                    m.confirm_asked.remove(&o);
                    m.divesting.remove(&o);
                }
            }
        }
    }

    /// Never two LRCs each believing their own federate owns the same instance attribute.
    fn check_one_owner(&self) {
        let pos = self.sim.position;
        for o in &self.objs {
            let owners: Vec<(FederateHandle, u64)> = self
                .live()
                .into_iter()
                .filter(|(h, node)| {
                    self.sim.nodes[node]
                        .core()
                        .is_attribute_owned_by_federate(*h, *o, pos)
                        .unwrap_or(false)
                })
                .collect();
            assert!(owners.len() <= 1, "{o}: owners {owners:?}");
        }
    }

    fn step(&mut self) {
        if self.live().is_empty() {
            // Every federate resigned or was lost with its LRC: nothing left to ask for.
            self.sim.tick();
            return;
        }
        let pos = self.sim.position;
        let objs = self.objs.clone();
        let o = objs[self.sim.rng.below(objs.len())];
        let owner = self.owner(o);
        match self.sim.rng.below(100) {
            0..=29 => {
                if let Some((h, node)) = owner {
                    let n = self.seq.get(&o).copied().unwrap_or(0) + 1;
                    let r = self.core(node).update_attribute_values(
                        h,
                        o,
                        vec![(pos, n.to_be_bytes().to_vec())],
                        vec![],
                        None,
                    );
                    r.unwrap();
                    if hlamesh_sim::trace("actions") {
                        eprintln!("own update {h} {o} = {n} on {node}");
                    }
                    self.seq.insert(o, n);
                    self.sent_by.insert((o, n), h);
                    self.models.get_mut(&h).unwrap().last.insert(o, n);
                    self.updates += 1;
                    self.sim.drain(node);
                }
            }
            30..=35 => {
                if let Some((h, node)) = owner {
                    self.core(node)
                        .unconditional_attribute_ownership_divestiture(h, o, &[pos])
                        .unwrap();
                    let m = self.models.get_mut(&h).unwrap();
                    m.divesting.remove(&o);
                    self.sim.drain(node);
                }
            }
            36..=43 => {
                if let Some((h, node)) = owner
                    && !self.models[&h].divesting.contains(&o)
                {
                    self.core(node)
                        .negotiated_attribute_ownership_divestiture(h, o, &[pos], b"n")
                        .unwrap();
                    self.models.get_mut(&h).unwrap().divesting.insert(o);
                    self.sim.drain(node);
                }
            }
            44..=51 => {
                if let Some((h, node)) = owner
                    && self.models[&h].confirm_asked.contains(&o)
                {
                    let r = self.core(node).confirm_divestiture(h, o, &[pos], b"c");
                    match r {
                        Ok(()) => {
                            let m = self.models.get_mut(&h).unwrap();
                            m.divesting.remove(&o);
                            m.confirm_asked.remove(&o);
                        }
                        // Every acquirer cancelled meanwhile, or the divestiture was cancelled.
                        Err(
                            hlamesh_core::error::RtiError::NoAcquisitionPending(_)
                            | hlamesh_core::error::RtiError::AttributeDivestitureWasNotRequested(_),
                        ) => {
                            self.models.get_mut(&h).unwrap().confirm_asked.remove(&o);
                        }
                        Err(e) => panic!("{h}: confirm {o}: {e}"),
                    }
                    self.sim.drain(node);
                }
            }
            52..=59 => {
                if let Some((h, node)) = owner
                    && self.models[&h].release_asked.contains(&o)
                {
                    self.models.get_mut(&h).unwrap().release_asked.remove(&o);
                    let pick = self.sim.rng.below(3);
                    let core = self.core(node);
                    let gave_up = match pick {
                        0 => !core
                            .attribute_ownership_divestiture_if_wanted(h, o, &[pos])
                            .unwrap()
                            .is_empty(),
                        1 => {
                            core.attribute_ownership_release_denied(h, o, &[pos])
                                .unwrap();
                            false
                        }
                        _ => {
                            core.unconditional_attribute_ownership_divestiture(h, o, &[pos])
                                .unwrap();
                            true
                        }
                    };
                    if gave_up {
                        let m = self.models.get_mut(&h).unwrap();
                        m.divesting.remove(&o);
                        m.confirm_asked.remove(&o);
                    }
                    self.sim.drain(node);
                }
            }
            60..=71 => {
                let live = self.live();
                let (h, node) = live[self.sim.rng.below(live.len())];
                if Some((h, node)) == owner
                    || self.models[&h].acquiring.contains_key(&o)
                    || self.sim.nodes[&node]
                        .core()
                        .known_object_class(h, o)
                        .is_err()
                {
                    return;
                }
                let intrusive = self.sim.rng.below(2) == 0;
                let core = self.core(node);
                let r = if intrusive {
                    core.attribute_ownership_acquisition(h, o, &[pos], b"a")
                } else {
                    core.attribute_ownership_acquisition_if_available(h, o, &[pos])
                };
                match r {
                    Ok(()) => {
                        self.models
                            .get_mut(&h)
                            .unwrap()
                            .acquiring
                            .insert(o, (intrusive, false));
                    }
                    // Its LRC gave the attribute to it but the notification is still queued.
                    Err(hlamesh_core::error::RtiError::FederateOwnsAttributes(_)) => {}
                    Err(e) => panic!("{h}: acquire {o}: {e}"),
                }
                self.sim.drain(node);
            }
            72..=77 => {
                let live = self.live();
                let (h, node) = live[self.sim.rng.below(live.len())];
                if self.models[&h].acquiring.get(&o) != Some(&(true, false)) {
                    return;
                }
                match self
                    .core(node)
                    .cancel_attribute_ownership_acquisition(h, o, &[pos])
                {
                    Ok(()) => {
                        self.models
                            .get_mut(&h)
                            .unwrap()
                            .acquiring
                            .insert(o, (true, true));
                    }
                    // Acquired meanwhile: the notification is on its way.
                    Err(hlamesh_core::error::RtiError::AttributeAlreadyOwned(_)) => {}
                    Err(e) => panic!("{h}: cancel {o}: {e}"),
                }
                self.sim.drain(node);
            }
            78..=80 => {
                if let Some((h, node)) = owner
                    && self.models[&h].divesting.contains(&o)
                {
                    self.core(node)
                        .cancel_negotiated_attribute_ownership_divestiture(h, o, &[pos])
                        .unwrap();
                    let m = self.models.get_mut(&h).unwrap();
                    m.divesting.remove(&o);
                    m.confirm_asked.remove(&o);
                    self.sim.drain(node);
                }
            }
            81 => {
                let alive: Vec<u64> = self
                    .sim
                    .nodes
                    .iter()
                    .filter(|(_, n)| n.alive)
                    .map(|(i, _)| *i)
                    .collect();
                if alive.len() > 1 && self.sim.rng.below(4) == 0 {
                    let n = alive[self.sim.rng.below(alive.len())];
                    self.sim.crash(n);
                    self.gaps = true;
                    let dead: Vec<FederateHandle> = self
                        .sim
                        .feds
                        .iter()
                        .filter(|(_, m)| m.node == n)
                        .map(|(h, _)| *h)
                        .collect();
                    for h in dead {
                        self.models.remove(&h);
                    }
                }
            }
            82 if self.sim.modes.own_resigns && self.sim.rng.below(3) == 0 => {
                // A federate resigns with an action that divests (instances it may delete go
                // first with the Delete… actions).
                let live = self.live();
                if live.len() > 2 {
                    let (h, node) = live[self.sim.rng.below(live.len())];
                    let action = [
                        ResignAction::UnconditionallyDivestAttributes,
                        ResignAction::DeleteObjectsThenDivest,
                        ResignAction::CancelThenDeleteThenDivest,
                    ][self.sim.rng.below(3)];
                    match self.core(node).resign(h, action) {
                        Ok(_) => {
                            self.sim.feds.get_mut(&h).unwrap().resigning = true;
                            self.models.remove(&h);
                        }
                        Err(hlamesh_core::error::RtiError::OwnershipAcquisitionPending(_)) => {
                            assert_ne!(action, ResignAction::CancelThenDeleteThenDivest);
                        }
                        Err(e) => panic!("{h}: resign {action:?}: {e}"),
                    }
                    self.sim.drain(node);
                }
            }
            83 if self.sim.modes.own_fall_behind && self.sim.rng.below(3) == 0 => {
                // The transport loses a link's data beyond repair: resynchronised by snapshot.
                self.sim.fall_behind();
                self.gaps = true;
            }
            82..=87 => self.sim.tick(),
            _ => {
                for _ in 0..3 {
                    self.sim.deliver_one();
                }
            }
        }
    }

    /// Owners answer every request, acquirers cancel what is left: every request must end.
    fn settle(&mut self) {
        let pos = self.sim.position;
        for _ in 0..20 {
            self.sim.quiesce();
            self.process();
            if self.models.values().all(|m| m.acquiring.is_empty()) {
                break;
            }
            for (h, node) in self.live() {
                let Some(m) = self.models.get(&h) else {
                    continue;
                };
                let asked: Vec<ObjectInstanceHandle> = m
                    .release_asked
                    .iter()
                    .chain(&m.confirm_asked)
                    .copied()
                    .collect();
                let divesting: Vec<ObjectInstanceHandle> = m.divesting.iter().copied().collect();
                let cancel: Vec<ObjectInstanceHandle> = m
                    .acquiring
                    .iter()
                    .filter(|(_, (intrusive, c))| *intrusive && !c)
                    .map(|(o, _)| *o)
                    .collect();
                let core = self.sim.nodes.get_mut(&node).unwrap().core_mut();
                for o in asked {
                    let _ = core.attribute_ownership_divestiture_if_wanted(h, o, &[pos]);
                }
                for o in divesting {
                    let _ = core.cancel_negotiated_attribute_ownership_divestiture(h, o, &[pos]);
                }
                for o in &cancel {
                    if core
                        .cancel_attribute_ownership_acquisition(h, *o, &[pos])
                        .is_ok()
                    {
                        self.models
                            .get_mut(&h)
                            .unwrap()
                            .acquiring
                            .insert(*o, (true, true));
                    }
                }
                let m = self.models.get_mut(&h).unwrap();
                m.release_asked.clear();
                m.confirm_asked.clear();
                m.divesting.clear();
                self.sim.drain(node);
            }
        }
        for (h, m) in &self.models {
            assert!(
                m.acquiring.is_empty(),
                "{h}: requests never ended: {:?}",
                m.acquiring
            );
        }
        for id in self.sim.alive_members() {
            assert_eq!(
                self.sim.nodes[&id].core().pending_acquisitions(),
                0,
                "node {id}"
            );
        }
        // Every LRC agrees on every owner.
        for o in &self.objs {
            let views: BTreeSet<Option<FederateHandle>> = self
                .sim
                .alive_members()
                .iter()
                .filter_map(|id| self.sim.nodes[id].core().instances().get(o))
                .map(|i| i.owner_of(pos))
                .collect();
            assert!(views.len() <= 1, "{o}: LRCs disagree: {views:?}");
        }
    }
}

/// One ownership run. `Modes::own_resigns` (`HLAMESH_SIM_OWN_RESIGNS=1`) also resigns federates;
/// `Modes::own_fall_behind` (`HLAMESH_SIM_OWN_FALL_BEHIND=1`) also loses links' data beyond
/// repair (resynchronised by snapshot).
fn own_run(seed: u64, steps: u64, modes: Modes) -> OwnRun {
    let mut run = OwnRun::new(seed, modes);
    for _ in 0..steps {
        run.step();
        run.process();
        run.check_one_owner();
        run.sim.check_step();
    }
    run.settle();
    run.check_one_owner();
    run
}

#[test]
fn ownership_transfers_keep_one_owner() {
    let seeds = seeds(Some("HLAMESH_SIM_OWN_SEEDS"), 150);
    let steps = env("HLAMESH_SIM_STEPS", 300);
    let (mut transfers, mut unavailable, mut cancelled, mut updates) = (0, 0, 0, 0);
    for seed in seeds.iter() {
        let run = std::panic::catch_unwind(|| own_run(seed, steps, Modes::from_env()))
            .unwrap_or_else(|_| {
                panic!(
                    "ownership seed {seed} failed; replay: {}",
                    rerun("ownership_transfers_keep_one_owner", seed)
                )
            });
        transfers += run.transfers;
        unavailable += run.ended_unavailable;
        cancelled += run.ended_cancelled;
        updates += run.updates;
    }
    eprintln!(
        "{transfers} acquisitions, {unavailable} unavailable, {cancelled} cancellations, {updates} updates"
    );
    assert!(
        seeds.len() < 10 || transfers > 50 && unavailable > 10 && cancelled > 10 && updates > 500,
        "{transfers} {unavailable} {cancelled} {updates}"
    );
}

// ----- Regressions: seeds of opt-in modes that once failed, run alone (cheap) -----

/// Frequent restores, seed 1009 (numbered 1008 while `Rng::seeded` folded each even seed onto
/// the odd one above it: the same run): the coordinator and the next in line crashed together; the new
/// coordinator's recovery took the longest report (the next in line's) and, when that one was
/// lost too, fell back to its own shorter log although a survivor had reported the old
/// coordinator's full tail — two decisions at the same log position.
#[test]
fn regression_takeover_keeps_survivors_longer_tail() {
    let modes = Modes {
        frequent_restores: true,
        ..Modes::default()
    };
    run_with(1009, 300, modes);
}

/// Frequent restores, seed 1431 (formerly 1430, the same run): an LRC resynchronising from a snapshot held another LRC's data
/// from both sides of a restore; the covered updates were all reflected, the abandoned run's
/// first (a stale value after a newer one).
#[test]
fn regression_snapshot_skips_abandoned_runs_held_data() {
    let modes = Modes {
        frequent_restores: true,
        ..Modes::default()
    };
    run_with(1431, 300, modes);
}

/// Ownership with links falling behind (seeds formerly numbered 1272 and 2258: the same runs).
/// Seed 1273: the acquirer's cancellation reached the
/// owner's LRC before the transfer that took the attribute away from the acquirer itself; that
/// LRC, still seeing the acquirer as owner, took the cancellation as granted and never
/// confirmed it. Seed 2259: a snapshot showed the owner's LRC a transfer its own hand-over
/// started before the decision arrived; an acquisition made for the new version was dropped
/// as if the hand-over were still pending, and never answered.
#[test]
fn regression_fall_behind_requests_end() {
    let modes = Modes {
        own_fall_behind: true,
        ..Modes::default()
    };
    for seed in [1273, 2259] {
        own_run(seed, 300, modes);
    }
}

/// Ownership with resignations, seeds 205 and 329 (formerly 204 and 328, the same runs): an attribute transferred to a federate whose
/// LRC applied the transfer only after the federate asked to resign was never handed over (the
/// resignation's hand-overs were sent before), so the next acquirer waited for that version's
/// end forever and was never notified. (205 was the seed first reported; it no longer
/// reached this case when the resignation gate changed.)
#[test]
fn regression_acquirer_of_resigned_owner_is_notified() {
    let modes = Modes {
        own_resigns: true,
        ..Modes::default()
    };
    for seed in [205, 329] {
        own_run(seed, 300, modes);
    }
}

/// Ownership with resignations, seeds 1341 and 1567 (formerly 1340 and 1566, the same runs): a resigner's last updates were dropped
/// where a transfer decided after the resignation was applied while the resignation still
/// waited for those updates (1341); a resigner whose LRC was lost before its hand-overs
/// arrived kept its version open forever, so the next acquirer was never notified (1567).
#[test]
fn regression_resigned_owner_versions_end() {
    let modes = Modes {
        own_resigns: true,
        ..Modes::default()
    };
    for seed in [1341, 1567] {
        own_run(seed, 300, modes);
    }
}

/// Orphans mode (seeds formerly numbered 290 and 466: the same runs). Seed 291: a deletion cut off by its LRC's crash reached nobody, and the lost
/// registrant's divesting resign action left the instance behind everywhere — consistent, but
/// the model took the deletion as done (the check was wrong, see `Sim::crash`). Seed 467: an LRC
/// that never got the snapshot of a crashed LRC did not know the orphans it registered; it takes
/// them from the coordinator's `Decision::LeftBehind` now (`core::left_behind`).
#[test]
fn regression_orphans_survive_their_lrc() {
    let modes = Modes {
        orphans: true,
        ..Modes::default()
    };
    for seed in [291, 467] {
        run_with(seed, 300, modes);
    }
}

/// Orphans mode, seed 837 (836 and 837 were one run while `Rng::seeded` folded even seeds onto
/// odd ones): the coordinator applied a divesting resignation, put it
/// into a snapshot for the next LRC and died before sending the decision; the registrant's
/// automatic action (delete) then applied where its instances were already unowned, so they
/// stayed as orphans there. LRCs that joined later dropped the same orphans from their
/// snapshots: they judged by the registrant's resign action instead of by who held the
/// privilege to delete, as the resignation itself does. Seed 195 (formerly 194) covers the other side: an
/// instance in a snapshot whose owner's resignation still waits for its LRC's data keeps that
/// owner until the resignation applies (and deletes it).
#[test]
fn regression_late_instances_follow_the_resignation() {
    let modes = Modes {
        orphans: true,
        ..Modes::default()
    };
    for seed in [195, 837] {
        run_with(seed, 300, modes);
    }
}

/// Orphans mode, seed 1929 (1928 and 1929 were one run while `Rng::seeded` folded even seeds
/// onto odd ones): an LRC crashed right after its federate's divesting
/// resignation was decided; its last data reached each survivor up to a different point (one
/// missed two registrations, the coordinator missed a deletion the others applied), so the
/// survivors kept different orphans for good. The coordinator now decides what a removed LRC
/// left behind (`Decision::LeftBehind`) and every member takes that.
#[test]
fn regression_crashed_lrcs_orphans_agree() {
    let modes = Modes {
        orphans: true,
        ..Modes::default()
    };
    run_with(1929, 300, modes);
}

/// A late transfer to a resigning federate: LRC A (the coordinator) holds an instance its
/// federate `fa` registered and then divested (privilege to delete and Position); `fb` on LRC
/// B publishes them.
struct LateTransfer {
    sim: Sim,
    a: u64,
    b: u64,
    fb: FederateHandle,
    o: ObjectInstanceHandle,
    privilege: AttributeHandle,
}

impl LateTransfer {
    fn new(seed: u64) -> LateTransfer {
        let mut sim = Sim::with_modes(seed, Modes::default());
        sim.own_run = true;
        sim.add_node_and_join();
        sim.quiesce();
        sim.add_node_and_join();
        sim.quiesce();
        let a = sim.alive_members()[0];
        let b = sim.alive_members()[1];
        assert_eq!(sim.nodes[&b].core().coordinator(), Some(a));
        let fa = *sim.feds.iter().find(|(_, m)| m.node == a).unwrap().0;
        let fb = *sim.feds.iter().find(|(_, m)| m.node == b).unwrap().0;
        let (car, position) = (sim.car, sim.position);
        let privilege = sim
            ._fdd
            .attribute_handle(car, hlamesh_core::fom::PRIVILEGE_TO_DELETE)
            .unwrap();
        let core = sim.nodes.get_mut(&a).unwrap().core_mut();
        let o = core.register_object_instance(fa, car, None).unwrap();
        sim.drain(a);
        sim.quiesce();
        let core = sim.nodes.get_mut(&a).unwrap().core_mut();
        core.unconditional_attribute_ownership_divestiture(fa, o, &[privilege, position])
            .unwrap();
        // The registrant still knows the instance: its deletion reaches it.
        let m = sim.feds.get_mut(&fa).unwrap();
        m.owned.remove(&o);
        m.known.insert(o, car);
        sim.drain(a);
        // It may know the instance as a Vehicle (its subscription).
        let vehicle = sim.vehicle;
        let core = sim.nodes.get_mut(&b).unwrap().core_mut();
        for class in [vehicle, car] {
            core.publish_object_class_attributes(fb, class, &[privilege, position])
                .unwrap();
        }
        sim.drain(b);
        sim.quiesce();
        LateTransfer {
            sim,
            a,
            b,
            fb,
            o,
            privilege,
        }
    }

    /// `fb` asks for both attributes; only the messages `keep` allows that go to A are
    /// delivered until A decided the transfer, which B has not applied then.
    fn acquire(&mut self, keep: &dyn Fn(bool, u64, u64) -> bool) {
        let (a, b, fb, o) = (self.a, self.b, self.fb, self.o);
        let attrs = [self.privilege, self.sim.position];
        let core = self.sim.nodes.get_mut(&b).unwrap().core_mut();
        core.attribute_ownership_acquisition(fb, o, &attrs, b"t")
            .unwrap();
        self.sim.drain(b);
        let decided = |sim: &Sim| {
            sim.nodes[&a]
                .core()
                .view()
                .log
                .iter()
                .any(|d| matches!(d, Decision::Transfer { to: Some(t), .. } if *t == fb))
        };
        for _ in 0..1000 {
            if decided(&self.sim) {
                break;
            }
            self.sim
                .deliver_one_if(&|c, from, to| to == a && keep(c, from, to));
        }
        assert!(decided(&self.sim), "the transfer to {fb} was not decided");
        assert!(
            !self.sim.nodes[&b].core().instances()[&o].owned_by_any(fb),
            "the transfer reached {fb}'s LRC before its resignation"
        );
    }

    fn resign(&mut self, action: ResignAction) {
        let (b, fb) = (self.b, self.fb);
        let core = self.sim.nodes.get_mut(&b).unwrap().core_mut();
        core.resign(fb, action).unwrap();
        self.sim.feds.get_mut(&fb).unwrap().resigning = true;
        self.sim.drain(b);
    }

    /// Every live LRC deleted the instance (`deleted`), or keeps it with its privilege to
    /// delete unowned.
    fn check(&self, deleted: bool, what: &str) {
        for n in self.sim.alive_members() {
            let core = &self.sim.nodes[&n].core();
            assert!(!core.view().federates.contains_key(&self.fb));
            let i = core.instances().get(&self.o);
            if deleted {
                assert!(i.is_none(), "{what}: LRC {n} kept {}: {i:?}", self.o);
            } else {
                let i = i.unwrap_or_else(|| panic!("{what}: LRC {n} lost {}", self.o));
                assert_eq!(i.owner_of(self.privilege), None, "{what}: LRC {n}");
            }
        }
    }
}

/// A transfer decided before a federate's resignation but applied by its LRC after the federate
/// asked to resign (its pending acquisition won the race with the cancellation its resign
/// action made; the LRC hands it over at once): the resign action applies to what the transfer
/// gave it, on every LRC — with CancelThenDeleteThenDivest the instance is deleted everywhere,
/// with CancelPendingOwnershipAcquisitions (which deletes nothing) it stays, unowned.
#[test]
fn late_transfer_to_a_resigning_federate_follows_its_resign_action() {
    for seed in 1..=6 {
        for action in [
            ResignAction::CancelThenDeleteThenDivest,
            ResignAction::CancelPendingOwnershipAcquisitions,
        ] {
            let mut t = LateTransfer::new(seed);
            t.acquire(&|_, _, _| true);
            t.resign(action);
            t.sim.quiesce();
            t.check(
                action.deletes_objects(),
                &format!("seed {seed}, {action:?}"),
            );
        }
    }
}

/// The same, seen by an LRC C that joined before the transfer but got the instance (in A's
/// snapshot, taken before the transfer) only after the transfer and the resignation: the
/// transfer waits for the instance, and then the resignation deletes it there too. (C took
/// the resigned acquirer's attributes as unowned and kept an orphan the others had deleted.)
#[test]
fn late_transfer_to_a_resigning_federate_reaches_late_instances() {
    for seed in 1..=6 {
        let mut t = LateTransfer::new(seed);
        let a = t.a;
        let c = t.sim.next_node;
        t.sim.add_node_and_join();
        // A's snapshot (and any data after it) waits once A's channel to C is open; everything
        // else flows.
        let hold = move |causal: bool, from: u64, to: u64| !(causal && from == a && to == c);
        let holding = move |sim: &Sim| {
            sim.causal
                .get(&(a, c))
                .and_then(|q| q.front())
                .is_some_and(|m| !matches!(m, Msg::ChannelPeer(_)))
        };
        let idle = |sim: &mut Sim| {
            for _ in 0..50 {
                while if holding(sim) {
                    sim.deliver_one_if(&hold)
                } else {
                    sim.deliver_one()
                } {}
                sim.tick();
            }
        };
        idle(&mut t.sim);
        assert!(
            t.sim.nodes[&c].core().is_admitted(),
            "seed {seed}: C not admitted"
        );
        assert!(
            matches!(
                t.sim.causal[&(a, c)].front(),
                Some(Msg::Ctl(ControlMsg::Snapshot { .. }))
            ),
            "seed {seed}: no snapshot from A held"
        );
        assert!(!t.sim.nodes[&c].core().instances().contains_key(&t.o));
        t.acquire(&hold);
        t.resign(ResignAction::CancelThenDeleteThenDivest);
        idle(&mut t.sim);
        t.sim.quiesce();
        t.check(true, &format!("seed {seed}"));
    }
}

/// Seeds 3306 (default mode) and 2472 (orphans mode): the coordinator admitted an LRC, crashed
/// before its Welcome arrived, and that LRC was next in line. Every member redirected its join
/// to itself and waited for it to coordinate: nothing moved again. A member now welcomes it
/// with its own log, and it takes over with a recovery like any successor.
#[test]
fn regression_unwelcomed_successor_takes_over() {
    run_with(3306, 300, Modes::default());
    let modes = Modes {
        orphans: true,
        ..Modes::default()
    };
    run_with(2472, 300, modes);
}

// ----- Concurrent joins: join, subscribe and register at about the same time -----

/// What a federate of a [`ConcurrentJoins`] run does once joined, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JoinStep {
    Publish,
    Subscribe,
    Register,
}

/// Three LRCs start at once: the first creates the federation, the two others join it. Each
/// one's federate, once joined, publishes, subscribes and registers one instance, in a random
/// order (registration after publication) and at random moments, while the other joins — and,
/// in late links mode, the links between the LRCs — are still settling. Every federate must
/// then know every instance the others registered (none is deleted): a missed discovery would
/// lose every update of that instance without a word.
struct ConcurrentJoins {
    sim: Sim,
    /// Steps left per LRC, for its federate (once joined).
    todo: BTreeMap<u64, Vec<JoinStep>>,
}

impl ConcurrentJoins {
    fn new(seed: u64, late_links: bool) -> ConcurrentJoins {
        let modes = Modes {
            late_links,
            ..Modes::default()
        };
        let mut sim = Sim::with_modes(seed, modes);
        sim.manual_declare = true;
        let mut todo = BTreeMap::new();
        for _ in 0..3 {
            let id = sim.next_node;
            sim.add_node_and_join();
            let steps = match sim.rng.below(3) {
                0 => vec![JoinStep::Publish, JoinStep::Subscribe, JoinStep::Register],
                1 => vec![JoinStep::Publish, JoinStep::Register, JoinStep::Subscribe],
                _ => vec![JoinStep::Subscribe, JoinStep::Publish, JoinStep::Register],
            };
            todo.insert(id, steps);
        }
        ConcurrentJoins { sim, todo }
    }

    /// The federate of LRC `node`, once its join completed.
    fn federate(&self, node: u64) -> Option<FederateHandle> {
        self.sim
            .feds
            .iter()
            .find(|(_, m)| m.node == node)
            .map(|(h, _)| *h)
    }

    /// The next step of a random joined federate that has steps left; false if none can move.
    fn step(&mut self) -> bool {
        let ready: Vec<(u64, FederateHandle)> = self
            .todo
            .iter()
            .filter(|(_, steps)| !steps.is_empty())
            .filter_map(|(n, _)| self.federate(*n).map(|h| (*n, h)))
            .collect();
        if ready.is_empty() {
            return false;
        }
        let (node, h) = ready[self.sim.rng.below(ready.len())];
        let step = self.todo.get_mut(&node).unwrap().remove(0);
        let (vehicle, car) = (self.sim.vehicle, self.sim.car);
        let (position, heading, colour) = (self.sim.position, self.sim.heading, self.sim.colour);
        let class = if self.sim.rng.below(2) == 0 {
            vehicle
        } else {
            car
        };
        let core = self.sim.nodes.get_mut(&node).unwrap().core_mut();
        match step {
            JoinStep::Publish => core
                .publish_object_class_attributes(h, car, &[position, heading, colour])
                .unwrap(),
            JoinStep::Subscribe => {
                core.subscribe_object_class_attributes(h, class, &[position], true)
                    .unwrap();
                self.sim.feds.get_mut(&h).unwrap().subscribes = Some(class);
            }
            JoinStep::Register => {
                let o = core.register_object_instance(h, car, None).unwrap();
                self.sim.feds.get_mut(&h).unwrap().owned.insert(o, 0);
            }
        }
        self.sim.drain(node);
        true
    }

    /// Runs until every federate did its steps (then settles), checking the discoveries.
    fn run(mut self, seed: u64) -> Sim {
        for _ in 0..5_000 {
            if self.todo.values().all(Vec::is_empty) {
                break;
            }
            match self.sim.rng.below(10) {
                0..=4 => {
                    self.sim.deliver_one();
                }
                5 => self.sim.tick(),
                // Connections come up slowly next to a join (a few round trips).
                6 if self.sim.modes.late_links && self.sim.rng.below(8) == 0 => {
                    self.sim.late_link_up(false)
                }
                _ => {
                    if !self.step() {
                        self.sim.deliver_one();
                    }
                }
            }
            self.sim.check_step();
        }
        // Joins that needed every link finish now.
        self.sim.quiesce();
        while self.step() {}
        assert!(
            self.todo.values().all(Vec::is_empty),
            "seed {seed}: a federate never joined"
        );
        self.sim.quiesce();
        self.sim.check_step();
        let registered: Vec<(FederateHandle, ObjectInstanceHandle)> = self
            .sim
            .feds
            .iter()
            .flat_map(|(h, m)| m.owned.keys().map(move |o| (*h, *o)))
            .collect();
        assert_eq!(registered.len(), 3, "seed {seed}: three instances");
        for (h, m) in &self.sim.feds {
            for (g, o) in &registered {
                assert!(
                    g == h || m.known.contains_key(o),
                    "seed {seed}: federate {h} (LRC {}) never discovered {o}, registered by \
                     {g} (LRC {})",
                    m.node,
                    self.sim.feds[g].node
                );
            }
        }
        self.sim.check_final();
        self.sim
    }
}

fn concurrent_joins(seed: u64, late_links: bool) -> Sim {
    ConcurrentJoins::new(seed, late_links).run(seed)
}

/// The concurrent joins over `HLAMESH_SIM_JOIN_SEEDS` seeds (default 300) from
/// `HLAMESH_SIM_FIRST_SEED`, with links up from the start and with late links.
#[test]
fn concurrent_join_subscribe_register_discovers_every_instance() {
    let mut discoveries = 0;
    let mut failed = Vec::new();
    for late_links in [false, true] {
        for seed in seeds(Some("HLAMESH_SIM_JOIN_SEEDS"), 300).iter() {
            match std::panic::catch_unwind(|| concurrent_joins(seed, late_links)) {
                Ok(sim) => discoveries += sim.discoveries,
                Err(_) => failed.push((seed, late_links)),
            }
        }
    }
    eprintln!("{discoveries} discoveries");
    assert!(
        failed.is_empty(),
        "failed (seed, late links): {failed:?}; replay one: HLAMESH_SIM_SEED=<seed> cargo test \
         --release -p hlamesh-core --test rti_sim concurrent_join"
    );
}

/// Concurrent joins with late links, seeds 1 and 67 (two of the 56 of 300 that failed): LRC 102
/// (seed 1; 101 in seed 67) was admitted first; the other LRC's connection to it came up only
/// after that LRC's federate had joined and registered, so its stream started there after the
/// registration and the first federate never discovered the instance. The stream now waits for
/// a snapshot (`core::state_transfer`).
#[test]
fn regression_registration_before_the_connection_is_discovered() {
    for seed in [1, 67] {
        concurrent_joins(seed, true);
    }
}

/// The random federations with late links (`HLAMESH_SIM_LATE_LINKS`), over
/// `HLAMESH_SIM_LATE_LINK_SEEDS` seeds (default 200).
#[test]
fn random_federations_with_late_links_converge() {
    let modes = Modes {
        late_links: true,
        ..Modes::from_env()
    };
    sweep(
        "random_federations_with_late_links_converge",
        seeds(Some("HLAMESH_SIM_LATE_LINK_SEEDS"), 200),
        modes,
    );
}

// ----- Late joiners in a lockstep: the shape of the multi-process timed-save test -----

/// Steps each federate of a [`LockstepJoins`] run takes.
const LOCKSTEP_STEPS: f64 = 8.0;

/// Three LRCs start one after another, each at a random moment while the earlier ones already
/// run (as `rti_restore`'s federates A, B and C do). Each one's federate, once joined and
/// declared, enables regulation (lookahead 1), then constraint, then steps: a
/// time-stamp-ordered interaction at the earliest time it may stamp, then TAR to it; one step
/// at a time, at random moments, while joins, state transfers and the others' enables are
/// still in flight. With `barrier`, as in that test, nobody steps before all three regulate and
/// are constrained. Every delivery is checked by `check_tso`: a grant is never followed by a
/// time-stamp-ordered message at or before its time. Then the liveness phase and the final
/// checks.
struct LockstepJoins {
    sim: Sim,
    /// LRCs still to start.
    to_start: u32,
    barrier: bool,
}

impl LockstepJoins {
    fn new(seed: u64, late_links: bool, barrier: bool) -> LockstepJoins {
        let modes = Modes {
            time: true,
            tso: true,
            late_links,
            ..Modes::default()
        };
        let mut sim = Sim::with_modes(seed, modes);
        sim.add_node_and_join();
        LockstepJoins {
            sim,
            to_start: 2,
            barrier,
        }
    }

    /// The next time service of a random federate that can ask for one; false if none can.
    fn step(&mut self) -> bool {
        let ready: Vec<(FederateHandle, u64, TimeModel)> = self
            .sim
            .feds
            .iter()
            .filter(|(h, _)| !self.sim.undeclared.contains_key(h))
            .filter(|(_, m)| {
                let t = &m.time;
                t.pending.is_none()
                    && t.regulation != Switch::Pending
                    && t.constraint != Switch::Pending
                    && t.granted < LOCKSTEP_STEPS
            })
            .map(|(h, m)| (*h, m.node, m.time.clone()))
            .collect();
        if ready.is_empty() {
            return false;
        }
        let (h, node, tm) = ready[self.sim.rng.below(ready.len())].clone();
        let all_ready = self.sim.feds.len() == 3
            && self
                .sim
                .feds
                .values()
                .all(|m| m.time.regulation == Switch::On && m.time.constraint == Switch::On);
        let stepping = tm.regulation == Switch::On && tm.constraint == Switch::On;
        if stepping && self.barrier && !all_ready {
            return false;
        }
        let stop = self.sim.stop;
        let (text, reason) = (self.sim.text, self.sim.reason);
        let core = self.sim.nodes.get_mut(&node).unwrap().core_mut();
        let r = if tm.regulation == Switch::Off {
            let l = DynInterval::new(LOOKAHEAD).unwrap();
            let r = core.time_change(h, "enableTimeRegulation", |m| m.enable_time_regulation(l));
            self.sim.feds.get_mut(&h).unwrap().time.regulation = Switch::Pending;
            r
        } else if tm.constraint == Switch::Off {
            let r = core.time_change(h, "enableTimeConstrained", |m| m.enable_time_constrained());
            self.sim.feds.get_mut(&h).unwrap().time.constraint = Switch::Pending;
            r
        } else {
            // The step's update, stamped at the earliest time allowed (T + lookahead, or past
            // what the others accepted when regulation was enabled), and TAR to it.
            let bound = core
                .time_manager(h)
                .and_then(|m| m.send_bound())
                .expect("a regulating federate has a send bound");
            let at = if bound.admits(bound.time) {
                bound.time.value()
            } else {
                bound.time.value() + 0.5
            };
            let time = DynTime::new(at).unwrap().encode().to_vec();
            let params = vec![(text, b"go".to_vec()), (reason, b"r".to_vec())];
            core.send_interaction(h, stop, params, vec![], Some(time))
                .unwrap_or_else(|e| panic!("{h}: interaction at {at}: {e}"));
            let target = DynTime::new(at).unwrap();
            let r = core.time_change(h, "timeAdvanceRequest", |m| m.time_advance_request(target));
            self.sim.feds.get_mut(&h).unwrap().time.pending = Some((false, at));
            r
        };
        r.unwrap_or_else(|e| panic!("{h}: time service refused: {e} ({tm:?})"));
        self.sim.drain(node);
        true
    }

    fn run(mut self) -> Sim {
        for _ in 0..20_000 {
            let done = self.to_start == 0
                && self.sim.feds.len() == 3
                && self
                    .sim
                    .feds
                    .values()
                    .all(|m| m.time.granted >= LOCKSTEP_STEPS);
            if done {
                break;
            }
            match self.sim.rng.below(12) {
                0..=5 => {
                    if !self.sim.deliver_one() {
                        self.step();
                    }
                }
                6 => self.sim.tick(),
                7 if self.to_start > 0 => {
                    self.to_start -= 1;
                    self.sim.add_node_and_join();
                }
                8 if self.sim.modes.late_links && self.sim.rng.below(4) == 0 => {
                    self.sim.late_link_up(false)
                }
                _ => {
                    if !self.step() {
                        self.sim.deliver_one();
                    }
                }
            }
            self.sim.check_step();
        }
        self.sim.trace_waiting_managers();
        assert!(
            self.to_start == 0
                && self.sim.feds.len() == 3
                && self
                    .sim
                    .feds
                    .values()
                    .all(|m| m.time.granted >= LOCKSTEP_STEPS),
            "the lockstep did not finish: {:?}",
            self.sim
                .feds
                .iter()
                .map(|(h, m)| (*h, m.time.clone()))
                .collect::<Vec<_>>()
        );
        // Stepping together, each one's messages reach the others ahead of their time.
        assert!(
            !self.barrier || self.sim.tso_delivered > 0,
            "no time-stamp-ordered delivery"
        );
        self.sim.quiesce();
        self.sim.check_step();
        self.sim.finish_time();
        self.sim.check_final();
        self.sim
    }
}

fn lockstep_joins(seed: u64, late_links: bool, barrier: bool) -> Sim {
    LockstepJoins::new(seed, late_links, barrier).run()
}

/// The lockstep over `HLAMESH_SIM_LOCKSTEP_SEEDS` seeds (default 300) from
/// `HLAMESH_SIM_FIRST_SEED`, with links up from the start and with late links, with and
/// without the barrier before the first step.
#[test]
fn late_joiners_in_a_lockstep_get_every_message_before_its_grant() {
    let mut delivered = 0;
    let mut failed = Vec::new();
    let seeds = seeds(Some("HLAMESH_SIM_LOCKSTEP_SEEDS"), 300);
    for (late_links, barrier) in [(false, true), (true, true), (false, false), (true, false)] {
        for seed in seeds.iter() {
            match std::panic::catch_unwind(|| lockstep_joins(seed, late_links, barrier)) {
                Ok(sim) => delivered += sim.tso_delivered,
                Err(_) => failed.push((seed, late_links, barrier)),
            }
        }
    }
    eprintln!("{delivered} time-stamp-ordered deliveries");
    assert!(
        failed.is_empty(),
        "failed (seed, late links, barrier): {failed:?}; replay one: HLAMESH_SIM_SEED=<seed> \
         cargo test --release -p hlamesh-core --test rti_sim late_joiners_in_a_lockstep"
    );
    assert!(
        seeds.len() < 10 || delivered > 1000,
        "{delivered} time-stamp-ordered deliveries"
    );
}

/// A regulator that resigned and whose LRC was then lost before a joiner got that LRC's
/// snapshot: the joiner's manager holds the leaver's final promise until the leaver's data up
/// to it has arrived, which the joiner's stream gate keeps until the snapshot, which never
/// comes. Once the LRC is removed the leaver must count as lost, or the joiner (constrained)
/// waits for it for good.
#[test]
fn regression_time_a_leaver_lost_with_its_lrc_before_its_snapshot_does_not_stall_time() {
    let modes = Modes {
        time: true,
        tso: true,
        ..Modes::default()
    };
    let mut sim = Sim::with_modes(1, modes);
    let federate_of = |sim: &Sim, node: u64| {
        sim.feds
            .iter()
            .find(|(_, m)| m.node == node && !m.resigning)
            .map(|(h, _)| *h)
            .unwrap()
    };
    let b = sim.next_node + 1;
    sim.add_node_and_join();
    sim.quiesce();
    sim.add_node_and_join();
    sim.quiesce();
    // B's federate regulates and sends one time-stamp-ordered interaction.
    let fb = federate_of(&sim, b);
    let l = DynInterval::new(LOOKAHEAD).unwrap();
    let core = sim.nodes.get_mut(&b).unwrap().core_mut();
    core.time_change(fb, "enableTimeRegulation", |m| m.enable_time_regulation(l))
        .unwrap();
    sim.feds.get_mut(&fb).unwrap().time.regulation = Switch::Pending;
    sim.drain(b);
    sim.quiesce();
    assert_eq!(sim.feds[&fb].time.regulation, Switch::On);
    let (stop, text) = (sim.stop, sim.text);
    let core = sim.nodes.get_mut(&b).unwrap().core_mut();
    let at = core.time_manager(fb).and_then(|m| m.send_bound()).unwrap();
    core.send_interaction(
        fb,
        stop,
        vec![(text, b"go".to_vec())],
        vec![],
        Some(at.time.encode().to_vec()),
    )
    .unwrap();
    sim.drain(b);
    sim.quiesce();
    // C joins; its snapshot request to B is held back (B is slow to answer), everything else
    // flows, and B's federate resigns meanwhile: its final promise reaches C, its data is
    // held there until B's snapshot.
    let c = sim.next_node;
    sim.add_node_and_join();
    let settle = |sim: &mut Sim| {
        for _ in 0..20 {
            loop {
                let blocked = sim
                    .control
                    .get(&(c, b))
                    .and_then(|q| q.front())
                    .is_some_and(|m| matches!(m, Msg::Ctl(ControlMsg::SnapshotRequest)));
                let keep = |causal: bool, from: u64, to: u64| {
                    !(blocked && !causal && from == c && to == b)
                };
                if !sim.deliver_one_if(&keep) {
                    break;
                }
            }
            sim.tick();
        }
    };
    settle(&mut sim);
    let fc = federate_of(&sim, c);
    sim.feds.get_mut(&fb).unwrap().resigning = true;
    let core = sim.nodes.get_mut(&b).unwrap().core_mut();
    core.resign(fb, ResignAction::DeleteObjects).unwrap();
    sim.drain(b);
    // Its final promise (in B's stream) before the decision of its resignation.
    while sim.deliver_one_if(&|causal, from, to| causal && from == b && to == c) {}
    settle(&mut sim);
    assert!(
        sim.control.get(&(c, b)).is_some_and(
            |q| !q.is_empty() && !sim.nodes[&c].core().view().federates.contains_key(&fb)
        ),
        "C's snapshot request waits and C applied the resignation"
    );
    // Constrained, C asks for time 1.
    let core = sim.nodes.get_mut(&c).unwrap().core_mut();
    core.time_change(fc, "enableTimeConstrained", |m| m.enable_time_constrained())
        .unwrap();
    sim.feds.get_mut(&fc).unwrap().time.constraint = Switch::Pending;
    sim.drain(c);
    settle(&mut sim);
    assert_eq!(sim.feds[&fc].time.constraint, Switch::On);
    let one = DynTime::new(1.0).unwrap();
    let core = sim.nodes.get_mut(&c).unwrap().core_mut();
    core.time_change(fc, "timeAdvanceRequest", |m| m.time_advance_request(one))
        .unwrap();
    sim.feds.get_mut(&fc).unwrap().time.pending = Some((false, 1.0));
    sim.drain(c);
    settle(&mut sim);
    assert!(
        sim.feds[&fc].time.pending.is_some(),
        "C waits for the leaver's final promise"
    );
    // B is lost: its snapshot never comes.
    sim.crash(b);
    sim.quiesce();
    assert!(
        sim.feds[&fc].time.pending.is_none() && sim.feds[&fc].time.granted == 1.0,
        "C still waits for a federate of a lost LRC: {:?}",
        sim.feds[&fc].time
    );
    sim.finish_time();
    sim.check_final();
}

/// A save restored by a new federation execution (new LRCs, the same federate names and
/// types, as `rti_restore` does with new processes): the restore is requested as soon as the
/// coordinator has every saved federate joined, while the last one's Welcome (with its join
/// reply) still waits for the other members to acknowledge that join, so the Welcome's log
/// carries the restore after the join. Replaying a log reads no save files; the last joiner's
/// was never read, its `Loaded` report never came, and the restore (every federate in it)
/// waited for good. The file is read once the log is replayed.
#[test]
fn regression_a_restore_in_the_welcome_of_its_last_federate_is_loaded() {
    let mut sim = Sim::with_modes(1, Modes::default());
    let first = sim.next_node;
    for name in ["fed1", "fed2", "fed3"] {
        sim.add_node_and_join_as(name);
        sim.quiesce();
    }
    let federate_of = |sim: &Sim, node: u64| {
        sim.feds
            .iter()
            .find(|(_, m)| m.node == node && !m.resigning)
            .map(|(h, _)| *h)
            .unwrap()
    };
    let h1 = federate_of(&sim, first);
    let core = sim.nodes.get_mut(&first).unwrap().core_mut();
    core.request_federation_save(h1, "R", None).unwrap();
    sim.drain(first);
    sim.quiesce();
    while sim.complete_saves() {
        sim.quiesce();
    }
    assert!(
        sim.disk.keys().any(|(l, n)| l == "R" && n == "fed3"),
        "saved"
    );
    // The execution ends with its LRCs; a new one starts with the same federates.
    for n in first..first + 3 {
        sim.crash(n);
    }
    sim.quiesce();
    let (c, e) = (sim.next_node, sim.next_node + 2);
    sim.add_node_and_join_as("fed1");
    sim.quiesce();
    sim.add_node_and_join_as("fed2");
    sim.quiesce();
    sim.add_node_and_join_as("fed3");
    // Until C (the coordinator) has decided E's join, only E's traffic to C flows; D's
    // acknowledgements wait, and with them E's Welcome.
    while !sim.nodes[&c]
        .core()
        .view()
        .federates
        .values()
        .any(|r| r.node == e)
    {
        assert!(
            sim.deliver_one_if(&|_, from, to| from == e && to == c),
            "E's join reached C"
        );
    }
    let h1 = federate_of(&sim, c);
    let saved = sim
        .disk
        .iter()
        .find(|((l, n), _)| l == "R" && n == "fed1")
        .map(|(_, st)| st.membership.clone())
        .ok_or_else(|| "no save R".to_string());
    let core = sim.nodes.get_mut(&c).unwrap().core_mut();
    core.request_federation_restore(h1, "R", saved).unwrap();
    sim.drain(c);
    assert!(
        !sim.nodes[&e].core().is_admitted(),
        "E not welcomed before the restore was decided"
    );
    sim.quiesce();
    sim.finish_restores();
    assert_eq!(sim.restores_done, 3, "every federate restored");
    sim.check_final();
}
