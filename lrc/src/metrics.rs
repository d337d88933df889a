//! HLA-level Prometheus metrics of one LRC: what its federates send and reflect (by federation
//! and class), reflection latency, time-advance waits and grants, GALT lag, null messages,
//! callback queue depth, federates joined/lost and coordinator changes. The transport's families
//! (datagrams, NACKs, repairs, QUIC RTT, …) live in `hlamesh_transport::metrics`; both end up in
//! the one process-wide exporter served on `/metrics`.
//!
//! **Cost on the hot path.** The shell ([`crate::node`]) records while it already holds its state
//! lock, so counters here are plain `u64` fields in a per-federation [`FedMetrics`], indexed by
//! the dense class handle: one branch, one bounds check and two adds per message. They reach the
//! `metrics` facade only at scrape time, when the collector registered by the shell calls
//! [`FedMetrics::collect`]. Histograms are `metrics` handles created once per class. An LRC whose
//! metrics are off (no `/metrics` address configured) records nothing at all.
//!
//! **Labels.** `federation` and `class` (a FOM class name) only — never instances, federates or
//! message values — so the number of series is bounded by the FOM.
//!
//! **What the reflection latency measures.** The core's data messages carry no send time (see
//! `docs/DESIGN.md`, "Metrics and operations"). Instead the sending LRC samples: at most every
//! [`MARK_INTERVAL`] it tells its peers over the control plane "my reliable message `seq` left at
//! wall-clock time `T`" (a *mark*, ordered behind that data). A receiving LRC remembers when it
//! delivered each recent reliable update or interaction to a federate callback queue; when a mark
//! arrives it records `delivered − (T − offset)`, with `offset` the sender's clock minus ours from
//! the NTP-style probes the LRCs exchange (`hlamesh_timesync::clock_offset`). Without an offset
//! estimate yet the plain wall-clock difference is recorded, correct only as far as the machines'
//! clocks agree (on one machine exactly). So the histogram is a *sample* of receive-order
//! reflections, from the sender's hand-off to the transport to the reflection being queued for the
//! federate; time-stamp ordered reflections wait for time advance and are left out (see the
//! time-advance wait instead).

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use metrics::{Histogram, Unit, counter, describe_counter, describe_gauge, describe_histogram};

use crate::core::{Callback, DataClass, FederationCore};
use crate::fom::OrderType;
use crate::handles::FederateHandle;

/// Metric names (units in the names; counters end in `_total`).
pub mod names {
    /// Attribute updates sent (labels `federation`, `class`).
    pub const UPDATES_SENT: &str = "hlamesh_hla_updates_sent_total";
    /// Encoded bytes of those updates.
    pub const UPDATE_BYTES_SENT: &str = "hlamesh_hla_update_bytes_sent_total";
    /// Interactions sent (labels `federation`, `class`).
    pub const INTERACTIONS_SENT: &str = "hlamesh_hla_interactions_sent_total";
    /// Encoded bytes of those interactions.
    pub const INTERACTION_BYTES_SENT: &str = "hlamesh_hla_interaction_bytes_sent_total";
    /// Reflections queued for local federates (labels `federation`, `class`).
    pub const REFLECTIONS: &str = "hlamesh_hla_reflections_total";
    /// Attribute value bytes of those reflections.
    pub const REFLECTION_BYTES: &str = "hlamesh_hla_reflection_bytes_total";
    /// Interactions queued for local federates (labels `federation`, `class`).
    pub const INTERACTIONS_RECEIVED: &str = "hlamesh_hla_interactions_received_total";
    /// Parameter value bytes of those interactions.
    pub const INTERACTION_BYTES_RECEIVED: &str = "hlamesh_hla_interaction_bytes_received_total";
    /// Sampled one-way latency, sender's send to local callback queue (labels `federation`,
    /// `class`).
    pub const REFLECTION_LATENCY: &str = "hlamesh_hla_reflection_latency_seconds";
    /// Time-advance request (TAR/TARA/NER/NERA/FQR) to grant (label `federation`).
    pub const TIME_ADVANCE_WAIT: &str = "hlamesh_time_advance_wait_seconds";
    /// Time-advance grants to local federates (label `federation`).
    pub const TIME_ADVANCE_GRANTS: &str = "hlamesh_time_advance_grants_total";
    /// Logical time minus GALT, largest over local constrained federates (label `federation`).
    pub const GALT_LAG: &str = "hlamesh_time_galt_lag";
    /// Smallest logical time of the local federates (label `federation`).
    pub const LOGICAL_TIME: &str = "hlamesh_time_logical_time";
    /// Null messages (time-management promises) sent by local federates (label `federation`).
    pub const NULL_MESSAGES_SENT: &str = "hlamesh_time_null_messages_sent_total";
    /// Null messages received from other LRCs (label `federation`).
    pub const NULL_MESSAGES_RECEIVED: &str = "hlamesh_time_null_messages_received_total";
    /// Callbacks waiting in local federates' queues (label `federation`).
    pub const CALLBACK_QUEUE_DEPTH: &str = "hlamesh_callback_queue_depth";
    /// Federates joined (label `federation`), as this LRC learns them from the decision log.
    pub const FEDERATES_JOINED: &str = "hlamesh_federates_joined_total";
    /// Federates that resigned (label `federation`).
    pub const FEDERATES_RESIGNED: &str = "hlamesh_federates_resigned_total";
    /// Federates resigned because their LRC was lost (label `federation`).
    pub const FEDERATES_LOST: &str = "hlamesh_federates_lost_total";
    /// Federates joined now (label `federation`).
    pub const FEDERATES: &str = "hlamesh_federates";
    /// Times the coordinator this LRC believes in changed (label `federation`).
    pub const COORDINATOR_CHANGES: &str = "hlamesh_coordinator_changes_total";
    /// Attribute values of this LRC's federates' updates that the sender's update-rate
    /// reduction never sent (a newer value came within the interval; label `federation`).
    pub const VALUES_THINNED_AT_SENDER: &str = "hlamesh_hla_values_thinned_at_sender_total";
    /// Reflected attribute values the receiver's update-rate reduction never delivered to a
    /// local federate that subscribed with a rate (label `federation`).
    pub const VALUES_THINNED_AT_RECEIVER: &str = "hlamesh_hla_values_thinned_at_receiver_total";
    /// MOM interactions this LRC answered with `HLAreportMOMexception` because a parameter was
    /// missing or undecodable or the federate named is not joined (label `federation`).
    pub const MOM_INTERACTIONS_MALFORMED: &str = "hlamesh_mom_interactions_malformed_total";
    /// `HLAreportMOMexception`s this LRC sent: malformed interactions and MOM services whose
    /// preconditions failed (label `federation`).
    pub const MOM_EXCEPTIONS_SENT: &str = "hlamesh_mom_exceptions_sent_total";
    /// Best-effort updates dropped because they arrived before the update-region announcement
    /// they were sent after (DDM, `docs/DDM.md`; label `federation`).
    pub const DDM_STALE_DROPS: &str = "hlamesh_ddm_stale_updates_dropped_total";
    /// Update-region commits this LRC sent to the cells the region stays in only (best effort,
    /// or in the reliable stream for a reliable attribute) instead of announcing them to every
    /// LRC (DDM, "Moves within the cells" in `docs/DDM.md`; label `federation`).
    pub const DDM_MOVES_IN_CELLS: &str = "hlamesh_ddm_region_moves_sent_to_cells_total";
    /// Of those, the moves that went inside the update that followed them instead of a message
    /// of their own (`hlamesh_core::core::move_fold`; label `federation`).
    pub const DDM_MOVES_FOLDED: &str = "hlamesh_ddm_region_moves_folded_total";
}

/// Every family this module exports.
pub const FAMILIES: &[&str] = &[
    names::UPDATES_SENT,
    names::UPDATE_BYTES_SENT,
    names::INTERACTIONS_SENT,
    names::INTERACTION_BYTES_SENT,
    names::REFLECTIONS,
    names::REFLECTION_BYTES,
    names::INTERACTIONS_RECEIVED,
    names::INTERACTION_BYTES_RECEIVED,
    names::REFLECTION_LATENCY,
    names::TIME_ADVANCE_WAIT,
    names::TIME_ADVANCE_GRANTS,
    names::GALT_LAG,
    names::LOGICAL_TIME,
    names::NULL_MESSAGES_SENT,
    names::NULL_MESSAGES_RECEIVED,
    names::CALLBACK_QUEUE_DEPTH,
    names::FEDERATES_JOINED,
    names::FEDERATES_RESIGNED,
    names::FEDERATES_LOST,
    names::FEDERATES,
    names::COORDINATOR_CHANGES,
    names::VALUES_THINNED_AT_SENDER,
    names::VALUES_THINNED_AT_RECEIVER,
    names::MOM_INTERACTIONS_MALFORMED,
    names::MOM_EXCEPTIONS_SENT,
    names::DDM_STALE_DROPS,
    names::DDM_MOVES_IN_CELLS,
    names::DDM_MOVES_FOLDED,
];

/// Least time between two latency marks of one federation from one LRC.
pub const MARK_INTERVAL: Duration = Duration::from_millis(10);
/// Recent deliveries remembered per sending LRC, waiting for their mark.
const RECENT: usize = 4096;

/// Registers help text and units with the installed recorder (idempotent).
pub fn describe() {
    // Not once-only: a description given before the recorder is installed is lost, and this runs
    // once per federation opened, which is rare.
    {
        use names::*;
        let c = |n: &'static str, u: Unit, h: &'static str| describe_counter!(n, u, h);
        let g = |n: &'static str, u: Unit, h: &'static str| describe_gauge!(n, u, h);
        c(
            UPDATES_SENT,
            Unit::Count,
            "Attribute updates sent, by registered object class.",
        );
        c(
            UPDATE_BYTES_SENT,
            Unit::Bytes,
            "Encoded bytes of attribute updates sent.",
        );
        c(
            INTERACTIONS_SENT,
            Unit::Count,
            "Interactions sent, by interaction class as sent.",
        );
        c(
            INTERACTION_BYTES_SENT,
            Unit::Bytes,
            "Encoded bytes of interactions sent.",
        );
        c(
            REFLECTIONS,
            Unit::Count,
            "Reflections queued for local federates, by registered object class (one per federate).",
        );
        c(
            REFLECTION_BYTES,
            Unit::Bytes,
            "Attribute value bytes of reflections queued.",
        );
        c(
            INTERACTIONS_RECEIVED,
            Unit::Count,
            "Interactions queued for local federates, by interaction class as received.",
        );
        c(
            INTERACTION_BYTES_RECEIVED,
            Unit::Bytes,
            "Parameter value bytes of interactions queued.",
        );
        describe_histogram!(
            REFLECTION_LATENCY,
            Unit::Seconds,
            "Sampled one-way latency of receive-order reflections and interactions: sender's \
             hand-off to the transport to the local callback queue, corrected by the estimated \
             clock offset between the two LRCs (plain wall clock until an estimate exists)."
        );
        describe_histogram!(
            TIME_ADVANCE_WAIT,
            Unit::Seconds,
            "Time from a time-advance request (TAR, TARA, NER, NERA, FQR) to its grant."
        );
        c(
            TIME_ADVANCE_GRANTS,
            Unit::Count,
            "Time-advance grants to local federates.",
        );
        g(
            GALT_LAG,
            Unit::Count,
            "Logical time minus GALT (logical time units), largest over local federates with a \
             defined GALT; positive when GALT lags behind logical time.",
        );
        g(
            LOGICAL_TIME,
            Unit::Count,
            "Smallest logical time of the local federates.",
        );
        c(
            NULL_MESSAGES_SENT,
            Unit::Count,
            "Null messages (time-management promises) sent by local federates.",
        );
        c(
            NULL_MESSAGES_RECEIVED,
            Unit::Count,
            "Null messages (time-management messages) received from other LRCs.",
        );
        g(
            CALLBACK_QUEUE_DEPTH,
            Unit::Count,
            "Callbacks waiting in the queues of local federates.",
        );
        c(
            FEDERATES_JOINED,
            Unit::Count,
            "Federates that joined the federation.",
        );
        c(
            FEDERATES_RESIGNED,
            Unit::Count,
            "Federates that resigned (including lost ones).",
        );
        c(
            FEDERATES_LOST,
            Unit::Count,
            "Federates resigned by the RTI because their LRC was lost.",
        );
        g(
            FEDERATES,
            Unit::Count,
            "Federates joined now, as this LRC's view has them.",
        );
        c(
            COORDINATOR_CHANGES,
            Unit::Count,
            "Times the coordinator this LRC believes in changed (takeovers).",
        );
        c(
            VALUES_THINNED_AT_SENDER,
            Unit::Count,
            "Attribute values the sender's update-rate reduction never sent.",
        );
        c(
            VALUES_THINNED_AT_RECEIVER,
            Unit::Count,
            "Reflected attribute values the receiver's update-rate reduction never delivered.",
        );
        c(
            MOM_INTERACTIONS_MALFORMED,
            Unit::Count,
            "MOM interactions answered with HLAreportMOMexception for a missing or undecodable \
             parameter or an unknown federate.",
        );
        c(
            MOM_EXCEPTIONS_SENT,
            Unit::Count,
            "HLAreportMOMexception interactions sent (malformed interactions, failed MOM services).",
        );
        c(
            DDM_STALE_DROPS,
            Unit::Count,
            "Best-effort updates dropped because they overtook the update-region announcement \
             they were sent after (the region they were sent in was not known here yet).",
        );
        c(
            DDM_MOVES_IN_CELLS,
            Unit::Count,
            "Update-region moves sent best effort to the cells the region stays in, instead of \
             being announced to every LRC in the reliable stream.",
        );
        c(
            DDM_MOVES_FOLDED,
            Unit::Count,
            "Update-region moves sent to the cells inside the update that followed them, not in \
             a message of their own.",
        );
    }
}

/// Wall-clock nanoseconds since the UNIX epoch (what marks and clock probes carry).
pub fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Sent-side counts of one class.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    sent: u64,
    sent_bytes: u64,
    received: u64,
    received_bytes: u64,
}

impl Counts {
    fn minus(self, o: Counts) -> Counts {
        Counts {
            sent: self.sent.saturating_sub(o.sent),
            sent_bytes: self.sent_bytes.saturating_sub(o.sent_bytes),
            received: self.received.saturating_sub(o.received),
            received_bytes: self.received_bytes.saturating_sub(o.received_bytes),
        }
    }
}

#[derive(Debug, Default)]
struct ClassStats {
    now: Counts,
    exported: Counts,
    latency: Option<Histogram>,
}

/// Object or interaction class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Object class (updates, reflections).
    Object,
    /// Interaction class.
    Interaction,
}

/// What a reliable delivery waits for in [`FedMetrics`]: its sender's mark.
#[derive(Debug, Clone, Copy)]
struct Delivered {
    seq: u64,
    at_ns: u64,
    kind: Kind,
    class: u32,
}

/// Scalar counters (current and last exported).
#[derive(Debug, Default, Clone, Copy)]
struct Scalars {
    grants: u64,
    null_in: u64,
    null_out: u64,
    joined: u64,
    resigned: u64,
    lost: u64,
    coordinator_changes: u64,
    thinned_send: u64,
    thinned_receive: u64,
    mom_malformed: u64,
    mom_exceptions: u64,
    ddm_stale_drops: u64,
    ddm_moves_in_cells: u64,
    ddm_moves_folded: u64,
}

/// Metrics of one federation on one LRC. Owned by the shell next to the core, mutated under the
/// shell's state lock. See the module docs.
#[derive(Debug)]
pub struct FedMetrics {
    on: bool,
    federation: String,
    objects: Vec<ClassStats>,
    interactions: Vec<ClassStats>,
    /// Data message being fed to the core now: (sending LRC, reliable seq), with receive time.
    current: Option<(u64, u64)>,
    recent: HashMap<u64, VecDeque<Delivered>>,
    last_mark: Option<Instant>,
    advancing_since: HashMap<FederateHandle, Instant>,
    call_start: Option<Instant>,
    wait: Option<Histogram>,
    log_seen: u64,
    coordinator: Option<u64>,
    now: Scalars,
    exported: Scalars,
    /// Promises per local federate at the last collection (its manager's running total).
    promises: HashMap<FederateHandle, u64>,
}

/// A mark to send to every peer of the federation: reliable `seq` left at `sent_wall_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Reliable sequence number of the message.
    pub seq: u64,
    /// Wall-clock time it was handed to the transport.
    pub sent_wall_ns: u64,
}

fn class_name(core: &FederationCore, kind: Kind, class: u32) -> String {
    let name = core.fdd().and_then(|f| match kind {
        Kind::Object => f
            .object_class_name(crate::handles::ObjectClassHandle(class))
            .ok()
            .map(str::to_string),
        Kind::Interaction => f
            .interaction_class_name(crate::handles::InteractionClassHandle(class))
            .ok()
            .map(str::to_string),
    });
    name.unwrap_or_else(|| "unknown".to_string())
}

impl FedMetrics {
    /// Metrics of federation `name`; `on = false` records nothing.
    pub fn new(name: &str, on: bool) -> Self {
        if on {
            describe();
        }
        FedMetrics {
            on,
            federation: name.to_string(),
            objects: Vec::new(),
            interactions: Vec::new(),
            current: None,
            recent: HashMap::new(),
            last_mark: None,
            advancing_since: HashMap::new(),
            call_start: None,
            wait: None,
            log_seen: 0,
            coordinator: None,
            now: Scalars::default(),
            exported: Scalars::default(),
            promises: HashMap::new(),
        }
    }

    /// Whether this federation records.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.on
    }

    fn stats(&mut self, core: &FederationCore, kind: Kind, class: u32) -> Option<&mut ClassStats> {
        let limit = core.fdd().map_or(0, |f| match kind {
            Kind::Object => f.object_classes().len(),
            Kind::Interaction => f.interaction_classes().len(),
        });
        let i = (class as usize).checked_sub(1)?;
        if i >= limit {
            return None;
        }
        let v = match kind {
            Kind::Object => &mut self.objects,
            Kind::Interaction => &mut self.interactions,
        };
        if v.len() <= i {
            v.resize_with(i + 1, ClassStats::default);
        }
        Some(&mut v[i])
    }

    /// The shell multicast an encoded data message of `len` bytes about `class` (as the core
    /// said: [`crate::core::Action::SendData`]; reliable ones with their `seq`). Returns a mark
    /// to send to the federation's peers when one is due.
    #[inline]
    pub fn data_sent(
        &mut self,
        core: &FederationCore,
        class: Option<DataClass>,
        len: usize,
        seq: Option<u64>,
    ) -> Option<Mark> {
        if !self.on {
            return None;
        }
        let (kind, class) = match class? {
            DataClass::Object(c) => (Kind::Object, c.0),
            DataClass::Interaction(c) => (Kind::Interaction, c.0),
        };
        let s = self.stats(core, kind, class)?;
        s.now.sent += 1;
        s.now.sent_bytes += len as u64;
        let seq = seq?;
        let due = self.last_mark.is_none_or(|t| t.elapsed() >= MARK_INTERVAL);
        if !due {
            return None;
        }
        self.last_mark = Some(Instant::now());
        Some(Mark {
            seq,
            sent_wall_ns: wall_ns(),
        })
    }

    /// The shell is about to feed a data message from `from` to the core.
    #[inline]
    pub fn data_in(&mut self, from: u64, seq: Option<u64>) {
        if self.on {
            self.current = seq.map(|s| (from, s));
        }
    }

    /// The shell finished feeding that message.
    #[inline]
    pub fn data_done(&mut self) {
        self.current = None;
    }

    /// An API call is about to run on the core.
    #[inline]
    pub fn call_begin(&mut self) {
        if self.on {
            self.call_start = Some(Instant::now());
        }
    }

    /// An API call ran on the core: notes federates that entered the Time Advancing state.
    pub fn call_end(&mut self, core: &FederationCore) {
        if !self.on {
            return;
        }
        for (h, _) in core.local_federates() {
            let advancing = core
                .time_manager(*h)
                .is_some_and(|m| m.pending_advance().is_some());
            if advancing {
                self.advancing_since.entry(*h).or_insert_with(Instant::now);
            }
        }
    }

    /// The shell runs its queued actions after the call; clears the call marker.
    #[inline]
    pub fn actions_done(&mut self) {
        self.call_start = None;
    }

    /// A callback is queued for local federate `federate`.
    #[inline]
    pub fn callback(&mut self, core: &FederationCore, federate: FederateHandle, cb: &Callback) {
        if !self.on {
            return;
        }
        match cb {
            Callback::ReflectAttributeValues {
                object,
                values,
                info,
                ..
            } => {
                let Some(class) = core.instances().get(object).map(|i| i.class.0) else {
                    return;
                };
                let bytes: usize = values.iter().map(|(_, v)| v.len()).sum();
                self.received(core, Kind::Object, class, bytes, info.received_order);
            }
            Callback::ReceiveInteraction {
                class,
                params,
                info,
                ..
            } => {
                let bytes: usize = params.iter().map(|(_, v)| v.len()).sum();
                self.received(core, Kind::Interaction, class.0, bytes, info.received_order);
            }
            Callback::TimeAdvanceGrant(_) => {
                self.now.grants += 1;
                let since = self.advancing_since.remove(&federate).or(self.call_start);
                if let Some(t) = since {
                    let h = self.wait.get_or_insert_with(|| {
                        metrics::histogram!(
                            names::TIME_ADVANCE_WAIT,
                            "federation" => self.federation.clone()
                        )
                    });
                    h.record(t.elapsed().as_secs_f64());
                }
            }
            _ => {}
        }
    }

    fn received(
        &mut self,
        core: &FederationCore,
        kind: Kind,
        class: u32,
        bytes: usize,
        order: OrderType,
    ) {
        let Some(s) = self.stats(core, kind, class) else {
            return;
        };
        s.now.received += 1;
        s.now.received_bytes += bytes as u64;
        if order != OrderType::Receive {
            return;
        }
        let Some((from, seq)) = self.current else {
            return;
        };
        let q = self.recent.entry(from).or_default();
        if q.back().is_some_and(|d| d.seq >= seq) {
            return; // Several local federates reflected the same message: one sample.
        }
        if q.len() == RECENT {
            q.pop_front();
        }
        q.push_back(Delivered {
            seq,
            at_ns: wall_ns(),
            kind,
            class,
        });
    }

    /// A mark from LRC `from` arrived; `offset_ns` is its clock minus ours, if estimated.
    pub fn mark(&mut self, core: &FederationCore, from: u64, mark: Mark, offset_ns: Option<i64>) {
        if !self.on {
            return;
        }
        let Some(q) = self.recent.get_mut(&from) else {
            return;
        };
        // Everything up to the mark was delivered before it (marks are ordered behind the data).
        let found = q.iter().position(|d| d.seq >= mark.seq).map(|i| (i, q[i]));
        let Some((i, d)) = found else {
            q.clear();
            return;
        };
        q.drain(..=i);
        if d.seq != mark.seq {
            return; // Not reflected here (no subscriber): no sample.
        }
        let sent_local = i128::from(mark.sent_wall_ns) - i128::from(offset_ns.unwrap_or(0));
        let latency_ns = (i128::from(d.at_ns) - sent_local).max(0);
        let secs = latency_ns as f64 / 1e9;
        let (fed, kind, class) = (self.federation.clone(), d.kind, d.class);
        let name = class_name(core, kind, class);
        if let Some(s) = self.stats(core, kind, class) {
            let h = s.latency.get_or_insert_with(|| {
                metrics::histogram!(
                    names::REFLECTION_LATENCY,
                    "federation" => fed,
                    "class" => name
                )
            });
            h.record(secs);
        }
    }

    /// A federate of this federation was lost with its LRC.
    pub fn federate_lost(&mut self) {
        self.now.lost += 1;
    }

    /// Follows the decision log and the coordinator (called on the shell's tick and at scrape).
    pub fn follow(&mut self, core: &FederationCore) {
        if !self.on {
            return;
        }
        // By decision number: the log's tail is what was not folded yet (decisions folded
        // before this saw them are not counted; a fold keeps hundreds behind).
        let view = core.view();
        for (n, d) in view.numbered().skip(view.folded.len()) {
            if n <= self.log_seen {
                continue;
            }
            match d {
                crate::core::wire::Decision::FederateJoined { .. } => self.now.joined += 1,
                crate::core::wire::Decision::FederateResigned { .. } => self.now.resigned += 1,
                _ => {}
            }
        }
        self.log_seen = self.log_seen.max(view.last());
        let c = core.coordinator();
        if c != self.coordinator {
            if self.coordinator.is_some() && c.is_some() {
                self.now.coordinator_changes += 1;
            }
            if c.is_some() {
                self.coordinator = c;
            }
        }
    }

    /// Copies everything since the last collection into the `metrics` facade (scrape time).
    /// `queue_depth` is the callbacks waiting in the local federates' queues now.
    pub fn collect(&mut self, core: &FederationCore, queue_depth: usize) {
        if !self.on {
            return;
        }
        self.follow(core);
        // Null messages received: the core counts the time messages it is handed.
        self.now.null_in = core.time_messages_received();
        let fed = self.federation.clone();
        let one = [("federation", fed.clone())];
        // Promises: each local manager keeps a running total.
        let mut promises = HashMap::new();
        let (mut lag, mut lt): (Option<f64>, Option<f64>) = (None, None);
        for (h, _) in core.local_federates() {
            if let Some(m) = core.time_manager(*h) {
                let total = m.stats().promises_sent;
                let before = self.promises.get(h).copied().unwrap_or(0);
                self.now.null_out += total.saturating_sub(before);
                promises.insert(*h, total);
                let t = m.logical_time().value();
                lt = Some(lt.map_or(t, |x: f64| x.min(t)));
                if let Some(g) = m.galt() {
                    let l = t - g.value();
                    if l.is_finite() {
                        lag = Some(lag.map_or(l, |x: f64| x.max(l)));
                    }
                }
            }
        }
        self.promises = promises;
        (self.now.thinned_send, self.now.thinned_receive) = core.values_thinned();
        (self.now.mom_malformed, self.now.mom_exceptions) = core.mom_exception_counters();
        self.now.ddm_stale_drops = core.ddm_stale_drops();
        self.now.ddm_moves_in_cells = core.ddm_moves_in_cells();
        self.now.ddm_moves_folded = core.ddm_moves_folded();
        let (n, e) = (self.now, self.exported);
        for (name, now, before) in [
            (names::TIME_ADVANCE_GRANTS, n.grants, e.grants),
            (names::NULL_MESSAGES_SENT, n.null_out, e.null_out),
            (names::NULL_MESSAGES_RECEIVED, n.null_in, e.null_in),
            (names::FEDERATES_JOINED, n.joined, e.joined),
            (names::FEDERATES_RESIGNED, n.resigned, e.resigned),
            (names::FEDERATES_LOST, n.lost, e.lost),
            (
                names::COORDINATOR_CHANGES,
                n.coordinator_changes,
                e.coordinator_changes,
            ),
            (
                names::VALUES_THINNED_AT_SENDER,
                n.thinned_send,
                e.thinned_send,
            ),
            (
                names::VALUES_THINNED_AT_RECEIVER,
                n.thinned_receive,
                e.thinned_receive,
            ),
            (
                names::MOM_INTERACTIONS_MALFORMED,
                n.mom_malformed,
                e.mom_malformed,
            ),
            (
                names::MOM_EXCEPTIONS_SENT,
                n.mom_exceptions,
                e.mom_exceptions,
            ),
            (names::DDM_STALE_DROPS, n.ddm_stale_drops, e.ddm_stale_drops),
            (
                names::DDM_MOVES_IN_CELLS,
                n.ddm_moves_in_cells,
                e.ddm_moves_in_cells,
            ),
            (
                names::DDM_MOVES_FOLDED,
                n.ddm_moves_folded,
                e.ddm_moves_folded,
            ),
        ] {
            counter!(name, &one).increment(now.saturating_sub(before));
        }
        self.exported = n;
        metrics::gauge!(names::CALLBACK_QUEUE_DEPTH, &one).set(queue_depth as f64);
        metrics::gauge!(names::FEDERATES, &one).set(core.view().federates.len() as f64);
        if let Some(l) = lag {
            metrics::gauge!(names::GALT_LAG, &one).set(l);
        }
        if let Some(t) = lt.filter(|t| t.is_finite()) {
            metrics::gauge!(names::LOGICAL_TIME, &one).set(t);
        }
        for kind in [Kind::Object, Kind::Interaction] {
            let len = match kind {
                Kind::Object => self.objects.len(),
                Kind::Interaction => self.interactions.len(),
            };
            for i in 0..len {
                let s = match kind {
                    Kind::Object => &mut self.objects[i],
                    Kind::Interaction => &mut self.interactions[i],
                };
                let d = s.now.minus(s.exported);
                if s.now == Counts::default() {
                    continue;
                }
                s.exported = s.now;
                let class = u32::try_from(i + 1).unwrap_or(u32::MAX);
                let labels = [
                    ("federation", fed.clone()),
                    ("class", class_name(core, kind, class)),
                ];
                let (sent, sent_b, recv, recv_b) = match kind {
                    Kind::Object => (
                        names::UPDATES_SENT,
                        names::UPDATE_BYTES_SENT,
                        names::REFLECTIONS,
                        names::REFLECTION_BYTES,
                    ),
                    Kind::Interaction => (
                        names::INTERACTIONS_SENT,
                        names::INTERACTION_BYTES_SENT,
                        names::INTERACTIONS_RECEIVED,
                        names::INTERACTION_BYTES_RECEIVED,
                    ),
                };
                counter!(sent, &labels).increment(d.sent);
                counter!(sent_b, &labels).increment(d.sent_bytes);
                counter!(recv, &labels).increment(d.received);
                counter!(recv_b, &labels).increment(d.received_bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ReceiveInfo;
    use crate::handles::{InteractionClassHandle, TransportationTypeHandle};
    use metrics_exporter_prometheus::PrometheusBuilder;

    const FOM: &str = include_str!("../../fed-examples/foms/MovingObject.xml");

    fn interaction(class: InteractionClassHandle, order: OrderType) -> Callback {
        Callback::ReceiveInteraction {
            class,
            params: vec![(crate::handles::ParameterHandle(1), vec![0; 10])],
            tag: vec![],
            info: ReceiveInfo {
                producer: FederateHandle(2),
                sent_order: order,
                received_order: order,
                transportation: TransportationTypeHandle(1),
                time: None,
                retraction: None,
                sent_regions: None,
            },
        }
    }

    /// The sampled latency is delivery time minus the sender's time moved onto our clock; only
    /// receive-order deliveries of the marked message count; counters reach the exporter.
    #[test]
    fn marks_give_offset_corrected_latency_and_counts_are_collected() {
        let core =
            FederationCore::create("F", 1, 0, vec![("MO.xml".into(), FOM.into())]).expect("core");
        let class = core
            .fdd()
            .expect("fdd")
            .interaction_class_handle("Command")
            .expect("class");
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                metrics_exporter_prometheus::Matcher::Suffix("_seconds".into()),
                &[0.001, 0.01, 0.1, 1.0],
            )
            .expect("buckets")
            .build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            let mut m = FedMetrics::new("F", true);
            let me = FederateHandle(1);
            // Message 7 from node 9: reflected in receive order. Message 8: time-stamp order.
            for (seq, order) in [(7, OrderType::Receive), (8, OrderType::TimeStamp)] {
                m.data_in(9, Some(seq));
                m.callback(&core, me, &interaction(class, order));
                m.data_done();
            }
            // Not inside a data message (e.g. released later by a time manager): no sample.
            m.callback(&core, me, &interaction(class, OrderType::Receive));
            // Sent: counted by the class the core gave with the message, not by its bytes.
            for _ in 0..2 {
                m.data_sent(&core, Some(DataClass::Interaction(class)), 40, Some(1));
            }
            m.data_sent(&core, None, 1000, Some(2));
            let delivered = m.recent[&9].back().expect("remembered").at_ns;
            // Node 9's clock is 1 s ahead of ours; the message left 50 ms (our time) before.
            let offset = 1_000_000_000i64;
            let sent_remote = delivered - 50_000_000 + offset as u64;
            for seq in [7, 8] {
                let mark = Mark {
                    seq,
                    sent_wall_ns: sent_remote,
                };
                m.mark(&core, 9, mark, Some(offset));
            }
            m.collect(&core, 3);
            let text = handle.render();
            let value = |series: &str| {
                text.lines().find_map(|l| {
                    l.strip_prefix(series)?
                        .strip_prefix(' ')?
                        .parse::<f64>()
                        .ok()
                })
            };
            let cls = "federation=\"F\",class=\"HLAinteractionRoot.Command\"";
            let lat = names::REFLECTION_LATENCY;
            assert_eq!(value(&format!("{lat}_count{{{cls}}}")), Some(1.0), "{text}");
            assert_eq!(
                value(&format!("{lat}_bucket{{{cls},le=\"0.01\"}}")),
                Some(0.0),
                "{text}"
            );
            assert_eq!(
                value(&format!("{lat}_bucket{{{cls},le=\"0.1\"}}")),
                Some(1.0),
                "{text}"
            );
            let sum = value(&format!("{lat}_sum{{{cls}}}")).expect("sum");
            assert!((sum - 0.05).abs() < 1e-6, "{sum}");
            let rec = names::INTERACTIONS_RECEIVED;
            assert_eq!(value(&format!("{rec}{{{cls}}}")), Some(3.0), "{text}");
            let bytes = names::INTERACTION_BYTES_RECEIVED;
            assert_eq!(value(&format!("{bytes}{{{cls}}}")), Some(30.0), "{text}");
            let sent = names::INTERACTIONS_SENT;
            assert_eq!(value(&format!("{sent}{{{cls}}}")), Some(2.0), "{text}");
            let sent_bytes = names::INTERACTION_BYTES_SENT;
            assert_eq!(
                value(&format!("{sent_bytes}{{{cls}}}")),
                Some(80.0),
                "{text}"
            );
            let depth = names::CALLBACK_QUEUE_DEPTH;
            assert_eq!(
                value(&format!("{depth}{{federation=\"F\"}}")),
                Some(3.0),
                "{text}"
            );
            // Collected again without news: counters stay (differences only).
            m.collect(&core, 0);
            let text = handle.render();
            let again = text.lines().find_map(|l| {
                l.strip_prefix(&format!("{rec}{{{cls}}} "))?
                    .parse::<f64>()
                    .ok()
            });
            assert_eq!(again, Some(3.0));
        });
    }

    #[test]
    fn an_lrc_without_metrics_records_nothing() {
        let core =
            FederationCore::create("F", 1, 0, vec![("MO.xml".into(), FOM.into())]).expect("core");
        let class = core
            .fdd()
            .expect("fdd")
            .interaction_class_handle("Command")
            .expect("class");
        let mut m = FedMetrics::new("F", false);
        m.data_in(9, Some(1));
        m.callback(
            &core,
            FederateHandle(1),
            &interaction(class, OrderType::Receive),
        );
        assert!(m.recent.is_empty() && m.interactions.is_empty());
    }
}
