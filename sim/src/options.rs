//! What one run of the unified simulator turns on: the faults of its network, the features its
//! federates use, its sizes. [`Options::swarm`] draws them per seed (swarm testing: a fault
//! that hides another is off in some runs), from a generator of its own so that the run's other
//! choices stay those of the seed.

use std::time::Duration;

use hlamesh_transport::data::DataConfig;
use hlamesh_transport::flow::FlowConfig;

use crate::Rng;
use crate::net::LinkModel;
use crate::transport::TransportSettings;

/// The options of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Most LRCs alive at once (2–5).
    pub lrcs: usize,
    /// The network while faults are on.
    pub link: LinkModel,
    /// Partition episodes (cut, carry on, heal).
    pub partitions: bool,
    /// LRCs crash.
    pub crashes: bool,
    /// LRCs join late (while the others run) and federates resign.
    pub churn: bool,
    /// Federates enable time regulation and constraint and ask for TAR and NER.
    pub time: bool,
    /// With `time`: regulators send their interactions in time-stamp order.
    pub tso: bool,
    /// Synchronization points.
    pub sync_points: bool,
    /// Federation saves.
    pub saves: bool,
    /// Datagrams so small that most updates travel in fragments.
    pub tiny_datagrams: bool,
    /// A retransmit buffer so small that loss ends in fell-behind and state transfer.
    pub small_retransmit: bool,
    /// Sends are flow-controlled.
    pub flow_control: bool,
    /// The coordinator folds the decision log this often (0: the core's default).
    pub fold_every: u64,
    /// How long the faults last (virtual µs); then the liveness phase.
    pub fault_phase_us: u64,
    /// Within how long after the faults stop the federation must converge (virtual µs).
    pub liveness_us: u64,
    /// Partitions may also come while an LRC is joining or still connecting to the others.
    /// Off in the sweeps: such partitions meet the known defects kept as ignored regression
    /// tests in `tests/unified.rs` (a joiner cut off is barred for good; join requests held
    /// for a peer not connected yet reach it after the heal, and a node the other side
    /// admitted is admitted again). The regression tests of seeds found with it on set it.
    pub partition_joiners: bool,
    /// Region mode (DDM): the FOM gives `Position` dimensions; federates create, move
    /// (set and commit), and delete regions, subscribe to `Position` with regions (or without),
    /// register instances with regions and associate and unassociate them; the regions check
    /// ([`crate::check::regions`]) runs. Never drawn by [`Options::swarm`] (the seeds already
    /// named keep their runs): the region sweep sets it (`tests/unified.rs`).
    pub regions: bool,
    /// DDM cell groups (with [`Options::regions`]): each federation has 16 cell groups, updates
    /// and region moves go to the groups of their regions' cells and a node hears only the
    /// groups its subscriptions joined (reliable ones with the transport's chained positions);
    /// without it, what the core sends to cells goes to the default group. Never drawn by
    /// [`Options::swarm`]: the cell sweep sets it (`tests/unified.rs`).
    pub cells: bool,
    /// Interactions with regions (with [`Options::regions`]): the FOM gains `Ping`
    /// (`sim/foms/Pings.xml`, over `X` and `Y`); every federate subscribes to it with its first
    /// region (or without regions, as it subscribes to `Position`), subscribes with more regions
    /// and unsubscribes some, and sends pings with some of its regions or without (time-stamped
    /// with [`Options::tso`]); the pings
    /// check ([`crate::check::pings`]) runs, and in the liveness phase every live federate sends
    /// a final ping that must reach every overlapping subscriber. Never drawn by
    /// [`Options::swarm`]; the region and cell sweeps set it, and the region regressions named
    /// before it existed run without it, so their runs stay those that failed.
    pub region_interactions: bool,
    /// Test-only breakage: every `Repair` frame is dropped (see `Net::drop_repairs`), so the
    /// liveness phase must fail. Never set by [`Options::swarm`].
    pub break_repairs: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            lrcs: 3,
            link: LinkModel::default(),
            partitions: false,
            crashes: false,
            churn: true,
            time: false,
            tso: false,
            sync_points: true,
            saves: false,
            tiny_datagrams: false,
            small_retransmit: false,
            flow_control: true,
            fold_every: 0,
            fault_phase_us: 3_000_000,
            liveness_us: 60_000_000,
            partition_joiners: false,
            regions: false,
            cells: false,
            region_interactions: false,
            break_repairs: false,
        }
    }
}

impl Options {
    /// The options of seed `seed`: every fault and feature on or off at random, rates and sizes
    /// drawn.
    pub fn swarm(seed: u64) -> Options {
        let mut r = Rng::seeded(seed ^ 0x5377_6172_6d21);
        let loss = [0, 0, 5, 20, 60][r.below(5)];
        let lrcs = 2 + r.below(4);
        let mut coin = |per_cent: usize| r.below(100) < per_cent;
        let mut o = Options {
            lrcs,
            partitions: coin(35),
            crashes: coin(40),
            churn: coin(70),
            time: coin(50),
            tso: false,
            sync_points: coin(60),
            saves: coin(35),
            tiny_datagrams: coin(30),
            small_retransmit: coin(15),
            flow_control: coin(80),
            ..Options::default()
        };
        o.fold_every = [0, 0, 8, 32][r.below(4)];
        o.tso = o.time && r.below(2) == 0;
        o.link.loss_per_mille = loss;
        o.link.dup_per_mille = [0, 0, 10, 50][r.below(4)];
        o.link.reorder_per_mille = [0, 0, 20, 100][r.below(4)];
        o.link.datagram_delay_us = 20 + r.below(200) as u64;
        o.link.frame_delay_us = 50 + r.below(500) as u64;
        o.fault_phase_us = 2_000_000 + 500_000 * r.below(5) as u64;
        o
    }

    /// The transport settings of every node.
    pub fn transport(&self) -> TransportSettings {
        let cell_groups = if self.cells { 16 } else { 0 };
        let mut data = DataConfig {
            max_message: 1 << 20,
            heartbeat_interval: Duration::from_millis(100),
            // As the node shell keeps it (`TransportConfig::chain_reserve`).
            chain_reserve: hlamesh_transport::data::wire::chain_header_max_len(cell_groups + 1),
            ..DataConfig::default()
        };
        if self.tiny_datagrams {
            data.max_datagram =
                hlamesh_transport::data::wire::MIN_DATAGRAM + 16 + data.chain_reserve;
        }
        if self.small_retransmit {
            data.retransmit_capacity_msgs = 6;
            data.retransmit_min_keep = Duration::from_millis(1);
        }
        TransportSettings {
            data,
            flow: FlowConfig {
                window_bytes: 64 << 10,
                window_messages: 256,
                stall_after: Duration::from_millis(200),
            },
            flow_control: self.flow_control,
            cell_groups: cell_groups as u32,
        }
    }

    /// The network of the fault phase: [`Options::link`], with a small retransmit buffer also
    /// slow control frames and some loss (the repairs come after the buffer moved on).
    pub fn network(&self) -> LinkModel {
        let mut l = self.link.clone();
        if self.small_retransmit {
            l.frame_delay_us += 8_000;
            l.loss_per_mille = l.loss_per_mille.max(50);
        }
        l
    }

    /// The network without the faults: what the liveness phase runs with.
    pub fn link_without_faults(&self) -> LinkModel {
        LinkModel {
            loss_per_mille: 0,
            dup_per_mille: 0,
            reorder_per_mille: 0,
            ..self.network()
        }
    }

    /// One line for a failure report.
    pub fn summary(&self) -> String {
        let on = |b: bool, s: &str| if b { format!(" {s}") } else { String::new() };
        format!(
            "{} LRCs, loss {}‰ dup {}‰ reorder {}‰{}{}{}{}{}{}{}{}{}{}{}{}{}, fold {}, faults {} ms",
            self.lrcs,
            self.link.loss_per_mille,
            self.link.dup_per_mille,
            self.link.reorder_per_mille,
            on(self.partitions, "partitions"),
            on(self.crashes, "crashes"),
            on(self.churn, "churn"),
            on(self.time, "time"),
            on(self.tso, "tso"),
            on(self.sync_points, "sync"),
            on(self.saves, "saves"),
            on(self.tiny_datagrams, "tiny-datagrams"),
            on(self.small_retransmit, "small-retransmit"),
            on(self.flow_control, "flow-control"),
            on(self.regions, "regions"),
            on(self.cells, "cells"),
            on(self.region_interactions, "pings"),
            self.fold_every,
            self.fault_phase_us / 1000,
        )
    }
}
