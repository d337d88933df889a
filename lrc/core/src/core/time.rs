//! Time management: one `hlamesh_timesync::TimeManager` per local federate, driven by the core.
//!
//! Member ids are federate handles. The data stream is per LRC, so a federate's "stream" is its
//! LRC's reliable stream: sequence numbers are the LRC's (monotone, with gaps where the LRC sent
//! for other federates), which the time manager accepts because it only compares them. Each
//! reliable data message is reported to every local manager in stream order — as TSO or RO when
//! it is delivered to that federate, as `Other` otherwise. A federate's broadcast time messages
//! (promises, i.e. null messages) travel as one [`DataMsg::Time`] multicast in its LRC's reliable
//! stream; the rare addressed ones as [`ControlMsg::Time`] over QUIC. Either way they bypass the
//! stream's gate (state transfer, admission) and the manager orders them behind the sender's
//! data itself. Time messages that arrive before the decision admitting their sender or
//! addressee is applied here are kept in a bounded backlog and replayed when it is.
//!
//! Stale statuses: a manager takes each status message from a peer (a promise, or a
//! regulation query, which makes the querier a stand-in regulator) as replacing the one
//! before, which holds only in the order sent, and the two paths keep no order between them.
//! What an addressed message must not overtake, the sender's TSO data, the manager itself
//! waits for (a promise's and a query's `hw`); what is left is a status message arriving
//! after a later one. So every time message a federate sends to other LRCs carries its place
//! in what that federate sent (`number`), and a promise older than the last status message
//! handed to a manager from the same federate is dropped: applied, it would replace the newer
//! status (a final "not regulating" promise overtaken by the next regulation query would
//! replace the stand-in the query made). (The last joiner of `rti_restore` once got a
//! regulator's "not regulating" status, made before the regulator's first promise, after that
//! promise; seeing no regulator, it was granted time 1 before the regulator's update at 1
//! arrived. The status should not have been sent at all, see `TimeManager::resend_status`.)
//!
//! Timed deletes from a regulating federate are time-stamp ordered like timed updates (the
//! order of `HLAprivilegeToDeleteObject`): a local federate with a manager gets the removal when
//! its manager delivers it and knows the instance until then; TSO reflections of an instance
//! the federate no longer knows (stamped after its delete) are dropped at delivery.
//!
//! The logical time implementation is the federation's (`HLAfloat64Time` by default,
//! `HLAinteger64Time` if its creator named it): one [`hlamesh_timesync::DynTime`] type carries
//! both, the managers run on it unchanged, the kind travels to joiners in the Welcome, every
//! time and interval a federate hands in is checked to be of that kind (`InvalidLogicalTime`,
//! `InvalidLookahead`), wire timestamps are encoded and decoded in it, and the kind-neutral
//! initial and final values the managers make are converted to it before they reach a
//! federate ([`FederationCore::time_out`]).
//!
//! A grant is issued (and the manager's time moves) when the manager grants it, but the federate
//! stays in the Time Advancing state until it receives the grant callback (8.2, 8.13): the
//! ambassador tells the manager before each time service whether a grant still waits in the
//! federate's callback queue (`CallbackQueue::grant_undelivered`, read under the LRC's lock),
//! so the services refused while advancing raise `InTimeAdvancingState` and
//! `queryLogicalTime` answers the time before the grant until then.
//!
//! Retraction (8.21, 6.23) is in [`super::retraction`]: a retracted message still queued in a
//! manager is removed there (`TimeManager::retract`, by its sender's stream number).
//!
//! Not yet: best-effort data is never TSO (it is delivered receive order with its time);
//! the MOM time reports do not exist.

use std::collections::VecDeque;

use hlamesh_timesync::{
    Action as TimeAction, Callback as TimeCallback, Delivery, DynInterval, DynTime, Incoming,
    MemberId, OrderType as TimeOrder, Seq, TimeError, TimeKind, TimeManager, TimeMessage,
    ViewNumber,
};

use crate::error::RtiError;
use crate::fom::OrderType;
use crate::handles::FederateHandle;

use super::wire::{ControlMsg, DataMsg, Request, Timestamp};
use super::{Action, Callback, FederationCore, Node};

/// A logical time: `HLAfloat64Time` or `HLAinteger64Time`, the federation's kind (see the
/// module docs).
pub type Time = DynTime;
/// Its interval (lookahead).
pub type Interval = DynInterval;
/// A local federate's time manager; payloads are the callbacks it releases.
pub type Manager = TimeManager<Time, Callback>;

/// Largest number of early time messages kept for federates not admitted here yet.
pub const MAX_BACKLOG: usize = 1 << 16;

/// A time message from another LRC as it is kept until it can be handed on: (from, to,
/// message, its number among `from`'s, see the module docs).
pub(crate) type Early = (
    FederateHandle,
    Option<FederateHandle>,
    TimeMessage<Time>,
    u64,
);

/// Whether time message number `number` of remote federate `from` goes to local manager `to`,
/// given `heard`, the number of the last status message each local manager was handed from
/// each sender (see the module docs, "stale statuses").
fn admit(
    heard: &mut std::collections::BTreeMap<(FederateHandle, FederateHandle), u64>,
    from: FederateHandle,
    to: FederateHandle,
    msg: &TimeMessage<Time>,
    number: u64,
) -> bool {
    match msg {
        TimeMessage::Promise(_) => {
            let last = heard.entry((from, to)).or_default();
            if number < *last {
                tracing::debug!(%from, %to, number, last = *last, "stale time status dropped");
                return false;
            }
            *last = number;
            true
        }
        // Always handed on: a query is answered whatever else arrived (the querier waits for
        // the answer), and it cannot be stale anyway (the querier's later promises follow the
        // answers).
        TimeMessage::RegulationQuery { .. } => {
            let last = heard.entry((from, to)).or_default();
            *last = (*last).max(number);
            true
        }
        TimeMessage::RegulationAnswer { .. } => true,
    }
}

pub(crate) fn member(h: FederateHandle) -> MemberId {
    MemberId(u64::from(h.0))
}

fn handle(m: MemberId) -> Option<FederateHandle> {
    u32::try_from(m.0).ok().map(FederateHandle)
}

fn fom_order(o: TimeOrder) -> OrderType {
    match o {
        TimeOrder::Receive => OrderType::Receive,
        TimeOrder::TimeStamp => OrderType::TimeStamp,
    }
}

/// Time-management state of one federation core.
#[derive(Debug, Default)]
pub struct TimeState {
    /// The federation's logical time implementation (chosen at create, handed to joiners).
    pub(crate) kind: TimeKind,
    pub(crate) managers: std::collections::BTreeMap<FederateHandle, Manager>,
    /// Early time messages, for local managers created later.
    pub(crate) backlog: VecDeque<Early>,
    /// Time messages from federates whose join this LRC had not applied yet, for the local
    /// managers that exist when it is applied.
    pub(crate) from_unknown: VecDeque<Early>,
    /// Last reliable sequence number applied per sending LRC.
    pub(crate) last_seq: std::collections::BTreeMap<Node, u64>,
    /// Time messages from LRCs that applied a restore this LRC has not applied yet:
    /// (node, message, epoch).
    pub(crate) future: Vec<(Node, Early, u32)>,
    /// Number of the next time message each local federate sends to other LRCs.
    pub(crate) sent: std::collections::BTreeMap<FederateHandle, u64>,
    /// Per (remote sender, local federate): number of the last status message its manager was
    /// handed from that sender (see the module docs, "stale statuses").
    pub(crate) heard: std::collections::BTreeMap<(FederateHandle, FederateHandle), u64>,
    /// Federates that resigned from another LRC, by LRC: the local managers may still wait
    /// for their last data and promises (see [`FederationCore::time_on_node_removed`]).
    pub(crate) departed_on: std::collections::BTreeMap<FederateHandle, Node>,
}

impl TimeState {
    /// The number of `f`'s next time message to other LRCs (1, 2, … in sending order).
    fn next_number(&mut self, f: FederateHandle) -> u64 {
        let n = self.sent.entry(f).or_default();
        *n += 1;
        *n
    }

    /// `f` left: what its own manager was handed, and its own numbering, are done with. What
    /// others were handed from it stays: its last messages may still be on their way (one
    /// small entry per departed sender and local federate, bounded by the churn; a restore
    /// clears them all).
    fn forget_numbers(&mut self, f: FederateHandle) {
        self.sent.remove(&f);
        self.heard.retain(|(_, to), _| *to != f);
    }
}

impl FederationCore {
    fn time_context(&self, f: FederateHandle) -> String {
        format!("federation {}, federate {f}", self.name)
    }

    /// The federation's logical time implementation.
    pub fn time_kind(&self) -> TimeKind {
        self.time.kind
    }

    /// How the channel numbers this LRC's reliable messages: the shell sets it from the
    /// channel it opened, before the first send (see [`super::stream_numbering`]).
    pub fn set_stream_numbering(&mut self, numbering: super::stream_numbering::StreamNumbering) {
        self.numbering = numbering;
    }

    /// Sets the time implementation of a federation this LRC creates (before anyone joins).
    pub fn set_time_kind(&mut self, kind: TimeKind) {
        self.time.kind = kind;
    }

    /// Decodes a wire timestamp of the federation's kind (`None` if absent or malformed:
    /// delivered without a time).
    pub(crate) fn decode_time(&self, t: &Option<Timestamp>) -> Option<Time> {
        t.as_deref().and_then(|b| self.time.kind.decode(b).ok())
    }

    /// `InvalidLogicalTime` unless `t` is of the federation's kind.
    pub fn check_time(&self, t: Time) -> Result<Time, RtiError> {
        if self.time.kind.check(t) {
            Ok(t)
        } else {
            Err(RtiError::InvalidLogicalTime(format!(
                "federation {}: {t:?} is not an {}",
                self.name,
                self.time.kind.name()
            )))
        }
    }

    /// `InvalidLookahead` unless `i` is of the federation's kind.
    pub fn check_interval(&self, i: Interval) -> Result<Interval, RtiError> {
        if self.time.kind.check_interval(i) {
            Ok(i)
        } else {
            Err(RtiError::InvalidLookahead(format!(
                "federation {}: {i:?} is not an interval of {}",
                self.name,
                self.time.kind.name()
            )))
        }
    }

    /// A time the manager made, in the federation's kind (its initial and final values are
    /// kind-neutral).
    pub fn time_out(&self, t: Time) -> Time {
        self.time.kind.convert(t)
    }

    /// An interval the manager made, in the federation's kind.
    pub fn interval_out(&self, i: Interval) -> Interval {
        self.time.kind.convert_interval(i)
    }

    /// Runs a time service on a local federate's manager and executes what it queued.
    pub fn time_service<R>(
        &mut self,
        f: FederateHandle,
        op: impl FnOnce(&mut Manager) -> Result<R, TimeError>,
    ) -> Result<R, RtiError> {
        let ctx = self.time_context(f);
        let tm = self.time.managers.get_mut(&f).ok_or_else(|| {
            RtiError::FederateNotExecutionMember(format!("{ctx}: not joined on this LRC"))
        })?;
        let r = op(tm).map_err(|e| RtiError::from_time(e, &ctx));
        self.pump_time();
        r
    }

    /// A time service that changes federate `f`'s time state (8.2–8.12, 8.19): refused with
    /// `SaveInProgress` / `RestoreInProgress` while `f` takes part in a save or a restore, then
    /// run as [`Self::time_service`].
    pub fn time_change<R>(
        &mut self,
        f: FederateHandle,
        service: &str,
        op: impl FnOnce(&mut Manager) -> Result<R, TimeError>,
    ) -> Result<R, RtiError> {
        self.refuse_during_save_or_restore(f, service)?;
        let r = self.time_service(f, op);
        // The MOM's HLAtimeGrantedTime / HLAtimeAdvancingTime (see `super::mom`).
        if let Some(advancing) = self
            .time
            .managers
            .get(&f)
            .map(|m| m.in_time_advancing_state())
        {
            self.mom_time_state(f, advancing);
        }
        r
    }

    /// Read-only access to a local federate's manager.
    pub fn time_manager(&self, f: FederateHandle) -> Option<&Manager> {
        self.time.managers.get(&f)
    }

    /// The order a timestamped send by `f` goes out with (the check of `docs/HLA-SEMANTICS.md`,
    /// "Sending rules"), given the FOM order.
    pub(crate) fn time_send_order(
        &self,
        f: FederateHandle,
        time: &Option<Timestamp>,
        preferred: OrderType,
    ) -> Result<bool, RtiError> {
        let Some(bytes) = time else { return Ok(false) };
        let t =
            self.time.kind.decode(bytes).map_err(|e| {
                RtiError::InvalidLogicalTime(format!("{}: {e}", self.time_context(f)))
            })?;
        let Some(tm) = self.time.managers.get(&f) else {
            return Ok(false);
        };
        let pref = match preferred {
            OrderType::TimeStamp => TimeOrder::TimeStamp,
            OrderType::Receive => TimeOrder::Receive,
        };
        tm.validate_send(Some(t), pref)
            .map(|o| o == TimeOrder::TimeStamp)
            .map_err(|e| RtiError::from_time(e, &self.time_context(f)))
    }

    /// `f` sent a reliable data message with this LRC's sequence number `seq`.
    pub(crate) fn time_data_sent(&mut self, f: FederateHandle, seq: u64, tso: bool) {
        if let Some(tm) = self.time.managers.get_mut(&f) {
            let order = if tso {
                TimeOrder::TimeStamp
            } else {
                TimeOrder::Receive
            };
            tm.on_data_sent(Seq(seq), order);
        }
    }

    /// The sequence number a data message from `from` counts under (best effort: the last
    /// reliable one, which leaves the manager's received count unchanged).
    pub(crate) fn time_seq(&mut self, from: Node, seq: Option<u64>) -> u64 {
        if from == self.me {
            return self.data_hw;
        }
        match seq {
            Some(s) => {
                let e = self.time.last_seq.entry(from).or_default();
                *e = (*e).max(s);
                s
            }
            None => self.time.last_seq.get(&from).copied().unwrap_or(0),
        }
    }

    /// Whether local managers know `producer` (it joined in the view they were built from).
    pub(crate) fn time_knows(&self, producer: FederateHandle) -> bool {
        self.view.federates.contains_key(&producer) || producer.0 < self.view.next_handle
    }

    /// Hands a data message for local federate `f` to its manager (or straight to the federate
    /// when time management cannot order it).
    pub(crate) fn time_deliver(
        &mut self,
        f: FederateHandle,
        producer: FederateHandle,
        seq: u64,
        time: Option<Time>,
        tso: bool,
        cb: Callback,
    ) {
        // A producer that resigned (its data can trail the decision) is still known to the
        // managers until its final promise's data arrived, which TSO data is part of; its
        // receive-order data may come after that and goes straight to the federate.
        let departed = !self.view.federates.contains_key(&producer);
        if !self.time_knows(producer) || producer == f {
            self.callback(f, cb);
            return;
        }
        if departed && !(tso && time.is_some()) {
            // Behind what the manager still holds of the producer's earlier receive-order
            // data (a constrained federate gets it only while advancing), so its updates stay
            // in order (rti_sim, time mode, seed 391).
            match self.time.managers.get_mut(&f) {
                Some(tm) => tm.on_local_ro(member(producer), cb),
                None => self.callback(f, cb),
            }
            return;
        }
        let Some(tm) = self.time.managers.get_mut(&f) else {
            self.callback(f, cb);
            return;
        };
        let incoming = match time {
            Some(time) if tso => Incoming::Tso { time, payload: cb },
            time => Incoming::Ro { time, payload: cb },
        };
        tm.on_data(member(producer), Seq(seq), incoming);
    }

    /// Delivers a receive-order callback for `f` that the LRC held (an update rate's released
    /// value, see `super::update_rate`): through `f`'s time manager as a local receive-order
    /// message when it has one and knows `producer` (so a constrained federate gets it only
    /// while advancing, behind what the manager holds), at once otherwise. Pump after.
    pub(crate) fn time_deliver_late(
        &mut self,
        f: FederateHandle,
        producer: FederateHandle,
        cb: Callback,
    ) {
        if producer != f
            && self.time_knows(producer)
            && let Some(tm) = self.time.managers.get_mut(&f)
        {
            tm.on_local_ro(member(producer), cb);
            return;
        }
        self.callback(f, cb);
    }

    /// Reports a reliable data message of `producer` to every local manager not in `served`.
    pub(crate) fn time_other(
        &mut self,
        producer: FederateHandle,
        seq: u64,
        served: &[FederateHandle],
    ) {
        if !self.time_knows(producer) {
            return;
        }
        for (h, tm) in self.time.managers.iter_mut() {
            if *h != producer && !served.contains(h) {
                tm.on_data(member(producer), Seq(seq), Incoming::Other);
            }
        }
    }

    /// The connection to LRC `node` came (back) up: every local manager whose regulation
    /// query is out sends it again to the federates there that have not answered, since the
    /// query or its answer may have been lost with the connection
    /// (`TimeManager::resend_query`).
    pub(crate) fn time_resend_queries(&mut self, node: Node) {
        if !self.phase.is_admitted() || !self.view.nodes.contains(&node) {
            return;
        }
        let theirs = self.federates_on(node);
        if theirs.is_empty() {
            return;
        }
        for tm in self.time.managers.values_mut() {
            for g in &theirs {
                tm.resend_query(member(*g));
            }
        }
        self.pump_time();
    }

    /// The federates of LRC `node` in the view.
    pub(crate) fn federates_on(&self, node: Node) -> Vec<FederateHandle> {
        self.view
            .federates
            .iter()
            .filter(|(_, r)| r.node == node)
            .map(|(h, _)| *h)
            .collect()
    }

    /// A snapshot from `from` covers its stream up to `high_water`: local managers count it as
    /// received, so promises referring to that data do not wait for it.
    pub(crate) fn time_skip(&mut self, from: Node, high_water: u64) {
        let e = self.time.last_seq.entry(from).or_default();
        *e = (*e).max(high_water);
        // Its federates, and those that resigned from it: a leaver's final promise waits for
        // its data up to that promise's high-water, which the snapshot may cover (the leaver
        // sends nothing more, and a federate that joined after it waited for that promise for
        // good: `rti_sim`'s `regression_time_a_snapshot_covers_a_leavers_last_data`).
        let theirs: Vec<FederateHandle> = self
            .view
            .federates
            .iter()
            .filter(|(_, r)| r.node == from)
            .map(|(h, _)| *h)
            .chain(
                self.time
                    .departed_on
                    .iter()
                    .filter(|(_, n)| **n == from)
                    .map(|(h, _)| *h),
            )
            .collect();
        for p in theirs {
            for tm in self.time.managers.values_mut() {
                tm.on_data(member(p), Seq(high_water), Incoming::Other);
            }
        }
        // What that releases (a promise that waited for the data the snapshot covers, and
        // the grant or enable it allows) goes out now: nothing else is sure to follow and pump
        // the managers (the last joiner of a lockstep, whose others all wait for it, stayed
        // stuck: `rti_sim`'s `regression_lockstep_52_a_snapshot_runs_the_time_managers`).
        self.pump_time();
    }

    /// Federate `h` on `node` joined (decision applied): a manager for it if it is local, and
    /// every other local manager learns of it.
    pub(crate) fn time_on_joined(&mut self, h: FederateHandle, node: Node) {
        let view = ViewNumber(self.view.last());
        for tm in self.time.managers.values_mut() {
            tm.on_member_joined(member(h), view);
        }
        // What the newcomer sent before its join was applied here (its query when it enabled
        // regulation at once, say: the decision and its messages come by different paths) goes
        // to the local managers now, in arrival order; dropped, its query would never be
        // answered (rti_sim, time mode, seed 154).
        if self.time.from_unknown.iter().any(|(from, ..)| *from == h) {
            let early: Vec<_> = self
                .time
                .from_unknown
                .iter()
                .filter(|(from, ..)| *from == h)
                .cloned()
                .collect();
            self.time.from_unknown.retain(|(from, ..)| *from != h);
            let TimeState {
                managers, heard, ..
            } = &mut self.time;
            for (from, to, msg, number) in early {
                for (g, tm) in managers.iter_mut() {
                    if *g != from
                        && to.is_none_or(|t| t == *g)
                        && admit(heard, from, *g, &msg, number)
                    {
                        tm.on_message(member(from), msg.clone());
                    }
                }
            }
        }
        if node == self.me {
            let existing: Vec<(MemberId, Seq)> = self
                .view
                .federates
                .iter()
                .filter(|(g, _)| **g != h)
                .map(|(g, r)| {
                    let start = if r.node == self.me {
                        self.data_hw
                    } else {
                        self.time.last_seq.get(&r.node).copied().unwrap_or(0)
                    };
                    (member(*g), Seq(start))
                })
                .collect();
            self.time
                .managers
                .insert(h, Manager::new(member(h), view, existing));
            // Replay what arrived for it before it existed, in arrival order.
            let backlog: Vec<_> = self.time.backlog.iter().cloned().collect();
            let TimeState {
                managers, heard, ..
            } = &mut self.time;
            if let Some(tm) = managers.get_mut(&h) {
                for (from, to, msg, number) in backlog {
                    if from != h && to.is_none_or(|t| t == h) && admit(heard, from, h, &msg, number)
                    {
                        tm.on_message(member(from), msg);
                    }
                }
            }
            self.time.backlog.retain(|(_, to, ..)| *to != Some(h));
        }
        self.trim_backlog();
        self.pump_time();
    }

    /// A restore gave local federate `h` its saved time state (`None`: it had no time state):
    /// a fresh manager that knows every other federate of the restored view.
    pub(crate) fn time_restore_manager(
        &mut self,
        h: FederateHandle,
        saved: Option<super::save::SavedTime>,
    ) {
        let view = ViewNumber(self.view.last());
        let existing: Vec<(MemberId, Seq)> = self
            .view
            .federates
            .iter()
            .filter(|(g, _)| **g != h)
            .map(|(g, r)| {
                let start = if r.node == self.me {
                    self.data_hw
                } else {
                    self.time.last_seq.get(&r.node).copied().unwrap_or(0)
                };
                (member(*g), Seq(start))
            })
            .collect();
        let tm = match saved {
            Some(s) => Manager::restored(member(h), view, existing, s.into_snapshot()),
            None => Manager::new(member(h), view, existing),
        };
        self.time.managers.insert(h, tm);
    }

    /// Federate `h` on LRC `node` left (`lost`: with its LRC).
    pub(crate) fn time_on_left(&mut self, h: FederateHandle, node: Node, lost: bool) {
        let view = ViewNumber(self.view.last());
        self.time.managers.remove(&h);
        self.time.forget_numbers(h);
        self.retraction_on_left(h);
        if !lost && node != self.me {
            self.time.departed_on.insert(h, node);
        }
        for tm in self.time.managers.values_mut() {
            if lost {
                tm.on_member_lost(member(h), view);
            } else {
                tm.on_member_left(member(h), view);
            }
        }
        self.pump_time();
    }

    /// LRC `n` was removed: the federates that resigned from it earlier are lost to the local
    /// managers still waiting for their last messages. A leaver's final promise waits until
    /// its data up to that promise's high-water has arrived, and once its LRC is gone what did
    /// not arrive never will: the manager kept it as a regulator at its last known bound (or
    /// the lowest one, never heard from) and its constrained federate waited for good
    /// (`rti_sim`'s `regression_time_a_leaver_lost_with_its_lrc_before_its_snapshot_does_not_stall_time`).
    /// Lost, its promise is dropped, as for a federate lost with its LRC.
    pub(crate) fn time_on_node_removed(&mut self, n: Node) {
        let gone: Vec<FederateHandle> = self
            .time
            .departed_on
            .iter()
            .filter(|(_, node)| **node == n)
            .map(|(h, _)| *h)
            .collect();
        if gone.is_empty() {
            return;
        }
        let view = ViewNumber(self.view.last());
        for h in gone {
            self.time.departed_on.remove(&h);
            for tm in self.time.managers.values_mut() {
                tm.on_member_lost(member(h), view);
            }
        }
        self.pump_time();
    }

    /// A local federate is about to resign: a regulator sends its final status first.
    pub(crate) fn time_before_resign(&mut self, f: FederateHandle) {
        if let Some(tm) = self.time.managers.get_mut(&f) {
            let _ = tm.disable_time_regulation();
        }
        self.pump_time();
    }

    fn join_pending(&self) -> bool {
        self.pending
            .values()
            .any(|p| matches!(p.body, Request::Join { .. }))
    }

    fn trim_backlog(&mut self) {
        if !self.join_pending() {
            let next = self.view.next_handle;
            self.time
                .backlog
                .retain(|(from, to, ..)| from.0 >= next || to.is_some_and(|t| t.0 >= next));
            self.time.from_unknown.retain(|(from, ..)| from.0 >= next);
        }
    }

    /// A time message from federate `from` on LRC `node`, sent in restore epoch `epoch`, its
    /// `number`th to other LRCs.
    pub(crate) fn on_time_message(
        &mut self,
        node: Node,
        from: FederateHandle,
        to: Option<FederateHandle>,
        msg: TimeMessage<Time>,
        epoch: u32,
        number: u64,
    ) {
        if epoch < self.restore.epoch() {
            // From the run a restore abandoned.
            return;
        }
        if epoch > self.restore.epoch() {
            if self.time.future.len() < MAX_BACKLOG {
                self.time
                    .future
                    .push((node, (from, to, msg, number), epoch));
            }
            return;
        }
        let known_from = self.view.federates.get(&from).map(|r| r.node);
        let early = known_from.is_none() && from.0 >= self.view.next_handle
            || to.is_some_and(|t| t.0 >= self.view.next_handle)
            || (to.is_none() && self.join_pending());
        if early && self.time.backlog.len() < MAX_BACKLOG {
            self.time.backlog.push_back((from, to, msg.clone(), number));
        }
        if known_from.is_none()
            && from.0 >= self.view.next_handle
            && self.time.from_unknown.len() < MAX_BACKLOG
        {
            self.time
                .from_unknown
                .push_back((from, to, msg.clone(), number));
        }
        if known_from != Some(node) {
            return;
        }
        let TimeState {
            managers, heard, ..
        } = &mut self.time;
        match to {
            Some(t) => {
                if let Some(tm) = managers.get_mut(&t)
                    && admit(heard, from, t, &msg, number)
                {
                    tm.on_message(member(from), msg);
                }
            }
            None => {
                for (h, tm) in managers.iter_mut() {
                    if *h != from && admit(heard, from, *h, &msg, number) {
                        tm.on_message(member(from), msg.clone());
                    }
                }
            }
        }
        self.pump_time();
    }

    /// Executes every local manager's actions until none has any (local managers talk to each
    /// other directly).
    pub(crate) fn pump_time(&mut self) {
        // Runs on every data message: walks the managers by key instead of copying the key
        // list, since an action may add or remove managers.
        loop {
            let mut moved = false;
            let mut next = self.time.managers.keys().next().copied();
            while let Some(h) = next {
                while let Some(a) = self.time.managers.get_mut(&h).and_then(|t| t.poll_action()) {
                    moved = true;
                    self.exec_time_action(h, a);
                }
                next = super::key_after(&self.time.managers, h);
            }
            if !moved {
                break;
            }
        }
    }

    fn exec_time_action(&mut self, h: FederateHandle, a: TimeAction<Time, Callback>) {
        match a {
            TimeAction::Broadcast(msg) => {
                for (g, tm) in self.time.managers.iter_mut() {
                    if *g != h {
                        tm.on_message(member(h), msg.clone());
                    }
                }
                let remote = self
                    .view
                    .nodes
                    .iter()
                    .any(|n| *n != self.me && !self.suspected.contains(n));
                if remote {
                    // One multicast on the data plane reaches every LRC: N−1 QUIC sends and
                    // two thread hand-offs per receiver less than the control plane.
                    let number = self.time.next_number(h);
                    let bytes = DataMsg::Time {
                        from: h,
                        msg,
                        epoch: self.restore.epoch(),
                        number,
                    }
                    .encode();
                    self.data_hw += self.numbering.numbers(bytes.len());
                    self.actions.push_back(Action::SendTime {
                        seq: self.data_hw,
                        bytes,
                    });
                }
            }
            TimeAction::SendTo(to, msg) => {
                let Some(to) = handle(to) else { return };
                if let Some(tm) = self.time.managers.get_mut(&to) {
                    tm.on_message(member(h), msg);
                } else if let Some(r) = self.view.federates.get(&to) {
                    let n = r.node;
                    let number = self.time.next_number(h);
                    self.send_control(
                        n,
                        false,
                        ControlMsg::Time {
                            from: h,
                            to: Some(to),
                            msg,
                            epoch: self.restore.epoch(),
                            number,
                        },
                    );
                }
            }
            TimeAction::Deliver(d) => self.time_delivered(h, d),
            TimeAction::Callback(c) => {
                let k = self.time.kind;
                let cb = match c {
                    TimeCallback::TimeRegulationEnabled(t) => {
                        Callback::TimeRegulationEnabled(k.convert(t))
                    }
                    TimeCallback::TimeConstrainedEnabled(t) => {
                        Callback::TimeConstrainedEnabled(k.convert(t))
                    }
                    TimeCallback::TimeAdvanceGrant(t) => Callback::TimeAdvanceGrant(k.convert(t)),
                };
                let granted = match &cb {
                    Callback::TimeAdvanceGrant(t) => Some(*t),
                    _ => None,
                };
                self.callback(h, cb);
                if let Some(t) = granted {
                    self.timed_save_on_grant(h, t);
                }
            }
        }
    }

    fn time_delivered(&mut self, h: FederateHandle, d: Delivery<Time, Callback>) {
        let mut cb = d.payload;
        if let Callback::ReflectAttributeValues { object, .. } = &cb
            && !self
                .locals
                .get(&h)
                .is_some_and(|lf| lf.known.contains_key(object))
            && self.discover_for(h, *object).is_none()
        {
            // Stamped after the instance's timed delete (or its owner left meanwhile): the
            // instance is gone and must not be reflected. (One the federate only forgot with a
            // local delete was rediscovered just above, as for any update.)
            tracing::debug!(federate = %h, %object, "TSO reflection of a removed instance dropped");
            return;
        }
        match &mut cb {
            Callback::ReflectAttributeValues { info, .. }
            | Callback::ReceiveInteraction { info, .. } => {
                info.sent_order = fom_order(d.sent_order);
                info.received_order = fom_order(d.received_order);
            }
            Callback::RemoveObjectInstance {
                object,
                sent_order,
                received_order,
                ..
            } => {
                // A timed delete: the federate knew the instance until now.
                *sent_order = fom_order(d.sent_order);
                *received_order = fom_order(d.received_order);
                if let Some(lf) = self.locals.get_mut(&h) {
                    lf.known.remove(object);
                }
            }
            _ => {}
        }
        self.callback(h, cb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn promise() -> TimeMessage<Time> {
        TimeMessage::Promise(hlamesh_timesync::Promise {
            bounds: None,
            hw: Seq(0),
            recv: Vec::new(),
            view: ViewNumber(0),
        })
    }

    #[test]
    fn a_promise_older_than_the_last_status_handed_on_is_dropped() {
        let mut heard = std::collections::BTreeMap::new();
        let (r, f, g) = (FederateHandle(1), FederateHandle(2), FederateHandle(3));
        // A broadcast promise (number 5) overtook the status addressed to f before it (4).
        assert!(admit(&mut heard, r, f, &promise(), 5));
        assert!(!admit(&mut heard, r, f, &promise(), 4), "stale for f");
        // Another local federate that never got number 5 still takes 4.
        assert!(admit(&mut heard, r, g, &promise(), 4));
        // A regulation query is always handed on and replaces what came before it.
        let query = TimeMessage::RegulationQuery {
            query: 1,
            hw: Seq(0),
        };
        assert!(admit(&mut heard, r, f, &query, 7));
        assert!(
            !admit(&mut heard, r, f, &promise(), 6),
            "older than the query"
        );
        assert!(
            admit(&mut heard, r, f, &query, 3),
            "a query is always answered"
        );
        assert!(admit(&mut heard, r, f, &promise(), 8));
        // Answers carry no status.
        let answer = TimeMessage::RegulationAnswer {
            query: 1,
            earliest: hlamesh_timesync::Bound::min_value(),
        };
        assert!(admit(&mut heard, r, f, &answer, 1));
    }
}
