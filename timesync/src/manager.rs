//! The per-federate time manager: a sans-I/O state machine (`docs/HLA-SEMANTICS.md`, "Time
//! management"; `docs/TIME-ALGORITHM.md`).
//!
//! # Driving it (the LRC's side)
//! One [`TimeManager`] per joined federate, generic over the logical time type `T` (both
//! `HLAinteger64Time` and `HLAfloat64Time` run through the same code, no lossy internal form) and
//! the LRC's payload type `M`. Inputs:
//! - federate services: `enable_time_regulation`, `time_advance_request`, … (typed [`TimeError`]s);
//! - before every timestamped send, [`TimeManager::validate_send`] (the sending rules of
//!   `docs/HLA-SEMANTICS.md`; gives the order the message goes out with), then
//!   [`TimeManager::on_data_sent`] with its stream number;
//! - every reliable data message from a peer, in per-sender stream order after gap repair:
//!   [`TimeManager::on_data`] (TSO, RO, or [`Incoming::Other`] for traffic that only advances the
//!   sequence number — the sender's *whole* stream must be reported, subscribed or not);
//! - every control message from a peer, in per-sender order: [`TimeManager::on_message`];
//! - membership, in view order: [`TimeManager::on_member_joined`], [`TimeManager::on_member_left`]
//!   (after the leaver's last messages), [`TimeManager::on_member_lost`].
//!
//! Outputs: drain [`TimeManager::poll_action`] after each input and execute in order —
//! `Broadcast`/`SendTo` a [`TimeMessage`] over QUIC, `Deliver` a message, `Callback` (grants and
//! enable confirmations come *behind* the TSO deliveries that must precede them). No timers and no
//! wall-clock time: time management needs none, so no `now` is taken.
//!
//! The causal gate lives here: control messages from a sender wait in a per-sender FIFO until the
//! sender's data up to the promise's `hw` (its last TSO sequence number) has been reported with
//! [`TimeManager::on_data`]. The LRC need not gate time messages itself.
//!
//! # The algorithm, and where it departs from the first sketch
//! `docs/TIME-ALGORITHM.md` is the overview (its "Departures from the first sketch" summarises
//! this section); this is the detail.
//!
//! Each regulating member broadcasts a [`Promise`] `{U, C, hw, recv[], view}` when `U` or `C`
//! changes, when it sees a new TSO message while waiting in NER/NERA (so others learn it is
//! consistent), on a loss, and to each newcomer. A constrained member F takes GALT as the minimum
//! over the other regulators R of `C_R` when R's promise is *consistent* (R had received every TSO
//! message that F knows was sent before the promises F holds, F's own included) and `U_R`
//! otherwise. The simulator (tests/sim.rs) forced these corrections; each was confirmed by
//! removing it again and watching seeds fail:
//!
//! 1. **F's own conditional bound joins the minimum.** When any `C_R` is used, GALT_F is also
//!    capped by F's own `C_F`. Without it: F is granted at 3 (below C_R = 10), sends R a message
//!    at 4, R answers at 5, but F still believes GALT = 10 and is granted past 5. The consistent
//!    cut must include every regulator that can still start a causal chain — F too. Using `C_F`
//!    (strict after NER with zero lookahead) keeps the NER(10) worked example live.
//! 2. **GALT is kept monotone by a floor.** Once computed, a GALT value stays a valid lower bound
//!    for every message sent after the cut, so `GALT = max(floor, computed)`. Without the floor
//!    GALT drops back to `U_R` each time F's own send makes R's promise inconsistent. The floor is
//!    lowered only when F itself starts regulating (its own sends were not in the cut).
//! 3. **Regulation answers.** A member answers a regulation query with
//!    `max(T or (T, Excl) after a TAR/NER grant, pending target, GALT, floor)`: its own `U`
//!    already relied on GALT, and after a strict grant at T it can no longer accept T itself.
//!    Members that are leaving are not asked.
//! 4. **Departures and losses.** A regulator that stops regulating or leaves keeps its last `hw`
//!    as a consistency requirement (others may still be receiving its last TSO messages) until a
//!    promise shows it was received or was never expected. A *lost* member's promise is dropped at
//!    once (time never waits on the dead), its later data discarded, and every conditional bound
//!    made before the loss (promise view < loss view) is ignored until its sender re-promises:
//!    those bounds did not count messages the lost member sent to some members and not others
//!    (1 seed in 30 000 fails without this rule).
//! 5. **Enabling constraint is available-style** ("Enabling and disabling regulation and
//!    constraint"): after `time_constrained_enabled(T)` a TSO message at exactly T may still come,
//!    even if T was reached by a strict grant.
//!
//! Retraction: [`TimeManager::retract`] removes a still-queued TSO message by its sender's
//! stream number; the LRC decides the rest (retraction handles, `retract`'s checks,
//! `requestRetraction` for a message already delivered: `hlamesh_core::core::retraction`).
//!
//! Advance requests never raise `InvalidLogicalTime` (every value of the two time types is a
//! valid request). The departed-regulator requirements are not garbage-collected:
//! one small entry per regulator that sent TSO and left, which is bounded by the churn.
//! `disableTimeConstrained` during a pending advance grants it at its requested time.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::message::{MemberId, Promise, Seq, TimeMessage, ViewNumber};
use crate::time::{Bound, LogicalTime, LogicalTimeInterval};
use crate::tso_queue::TsoQueue;

/// HLA order type of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OrderType {
    /// Receive order.
    Receive,
    /// Time-stamp order.
    TimeStamp,
}

/// A time-advance request variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RequestKind {
    /// timeAdvanceRequest.
    Tar,
    /// timeAdvanceRequestAvailable.
    Tara,
    /// nextMessageRequest (NER).
    Ner,
    /// nextMessageRequestAvailable (NERA).
    Nera,
    /// flushQueueRequest.
    Fqr,
}

impl RequestKind {
    /// TAR and NER: with zero lookahead the bound after the grant is strict.
    pub fn is_strict(self) -> bool {
        matches!(self, Self::Tar | Self::Ner)
    }
    /// NER and NERA: grant at the next message time or the request.
    pub fn is_next_event(self) -> bool {
        matches!(self, Self::Ner | Self::Nera)
    }
}

/// The errors of the standard's time-management services.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// A request is pending (Time Advancing state).
    #[error("the federate is in the time advancing state")]
    InTimeAdvancingState,
    /// enableTimeRegulation is pending.
    #[error("a request for time regulation is pending")]
    RequestForTimeRegulationPending,
    /// enableTimeConstrained is pending.
    #[error("a request for time constrained is pending")]
    RequestForTimeConstrainedPending,
    /// Regulation is already enabled.
    #[error("time regulation is already enabled")]
    TimeRegulationAlreadyEnabled,
    /// Constraint is already enabled.
    #[error("time constrained is already enabled")]
    TimeConstrainedAlreadyEnabled,
    /// Regulation is not enabled.
    #[error("time regulation is not enabled")]
    TimeRegulationIsNotEnabled,
    /// Constraint is not enabled.
    #[error("time constrained is not enabled")]
    TimeConstrainedIsNotEnabled,
    /// The requested time is below the federate's logical time.
    #[error("the logical time has already passed")]
    LogicalTimeAlreadyPassed,
    /// A negative lookahead.
    #[error("invalid lookahead")]
    InvalidLookahead,
    /// A timestamp the federate may not use now (`docs/HLA-SEMANTICS.md`, "Sending rules").
    #[error("invalid logical time")]
    InvalidLogicalTime,
    /// Asynchronous delivery is already enabled.
    #[error("asynchronous delivery is already enabled")]
    AsynchronousDeliveryAlreadyEnabled,
    /// Asynchronous delivery is already disabled.
    #[error("asynchronous delivery is already disabled")]
    AsynchronousDeliveryAlreadyDisabled,
}

/// A data message arriving on a sender's reliable stream, as the LRC classified it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming<T, M> {
    /// Sent TSO by a regulating sender (the receiver still delivers it RO unless constrained).
    Tso {
        /// Its timestamp.
        time: T,
        /// What to deliver.
        payload: M,
    },
    /// Sent RO, possibly with a timestamp.
    Ro {
        /// The timestamp the sender gave, if any.
        time: Option<T>,
        /// What to deliver.
        payload: M,
    },
    /// Stream traffic that is not a message for this federate (registrations, unsubscribed data):
    /// it only advances the sender's received sequence number.
    Other,
}

/// A message handed to the federate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery<T, M> {
    /// Sender.
    pub from: MemberId,
    /// The LRC's payload.
    pub payload: M,
    /// Timestamp, if the sender gave one.
    pub time: Option<T>,
    /// How it was sent.
    pub sent_order: OrderType,
    /// How it is delivered.
    pub received_order: OrderType,
}

/// A time-management callback to the federate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callback<T> {
    /// 8.3 timeRegulationEnabled.
    TimeRegulationEnabled(T),
    /// 8.6 timeConstrainedEnabled.
    TimeConstrainedEnabled(T),
    /// 8.13 timeAdvanceGrant.
    TimeAdvanceGrant(T),
}

/// What the LRC must do, in this order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action<T, M> {
    /// Send to every other member over the reliable control channel.
    Broadcast(TimeMessage<T>),
    /// Send to one member over the reliable control channel.
    SendTo(MemberId, TimeMessage<T>),
    /// Deliver a message to the federate.
    Deliver(Delivery<T, M>),
    /// Deliver a callback to the federate (queued behind the deliveries before it).
    Callback(Callback<T>),
}

/// Regulation state as the federate sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegulationState {
    /// Not regulating.
    Off,
    /// enableTimeRegulation pending.
    Pending,
    /// Regulating.
    On,
}

/// Constraint state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstraintState {
    /// Not constrained.
    Off,
    /// enableTimeConstrained pending.
    Pending,
    /// Constrained.
    On,
}

/// Counters (for metrics and the null-messages-per-grant figure).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeStats {
    /// Promises (null messages) broadcast or sent.
    pub promises_sent: u64,
    /// timeAdvanceGrant callbacks.
    pub grants: u64,
    /// Messages delivered TSO.
    pub tso_delivered: u64,
    /// Messages delivered RO.
    pub ro_delivered: u64,
    /// Data or control from members this manager does not know (lost, never joined): dropped.
    pub dropped_unknown: u64,
    /// TSO messages that arrived in the federate's past (a protocol fault, e.g. a peer that broke
    /// its promise): delivered RO rather than out of time-stamp order. Should stay 0.
    pub late_tso: u64,
}

/// A federate's time state as saved (see [`TimeManager::snapshot`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSnapshot<T: LogicalTime, M> {
    /// Logical time.
    pub time: T,
    /// Lookahead (meaningful when regulating).
    pub lookahead: T::Interval,
    /// Earliest timestamp the federate may still send (when regulating).
    pub bound: Bound<T>,
    /// Regulation enabled.
    pub regulating: bool,
    /// Constraint enabled.
    pub constrained: bool,
    /// Asynchronous delivery enabled.
    pub async_delivery: bool,
    /// The last grant was strict (TAR/NER): a TSO message at exactly `time` is no longer taken.
    pub last_grant_strict: bool,
    /// The advance request pending at the save.
    pub advance: Option<Advance<T>>,
    /// Queued TSO messages in delivery order.
    pub queued_tso: Vec<crate::tso_queue::QueuedTso<T, M>>,
    /// RO messages held for the constrained federate.
    pub held_ro: Vec<Delivery<T, M>>,
}

/// A pending advance request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Advance<T> {
    /// Which service.
    pub kind: RequestKind,
    /// Requested time.
    pub target: T,
}

#[derive(Debug, Clone)]
enum Regulation<T> {
    Off,
    Querying {
        query: u64,
        waiting: BTreeSet<MemberId>,
        max: Bound<T>,
    },
    Finishing {
        t_new: T,
    },
    On,
}

#[derive(Debug, Clone)]
enum Status<T> {
    /// Joined before us; we have not heard its status yet: it may be regulating at any bound.
    Unknown,
    Idle {
        hw: Seq,
    },
    StandIn {
        bound: Bound<T>,
        hw: Seq,
    },
    Regulating {
        u: Bound<T>,
        c: Bound<T>,
        hw: Seq,
        recv: Vec<(MemberId, Seq)>,
        view: ViewNumber,
    },
}

impl<T> Status<T> {
    fn hw(&self) -> Seq {
        match self {
            Status::Unknown => Seq(0),
            Status::Idle { hw } | Status::StandIn { hw, .. } | Status::Regulating { hw, .. } => *hw,
        }
    }
}

#[derive(Debug)]
struct Peer<T> {
    joined_view: ViewNumber,
    recv: Seq,
    status: Status<T>,
    inbox: VecDeque<TimeMessage<T>>,
    leaving: Option<ViewNumber>,
    /// `(requirements epoch, consistent?)` for the current promise.
    consistent: Option<(u64, bool)>,
}

fn min_opt<B: Ord>(a: Option<B>, b: B) -> Option<B> {
    Some(match a {
        Some(a) if a < b => a,
        _ => b,
    })
}

/// The time-management state machine of one federate. `T` is the logical time type, `M` the
/// LRC's payload for data messages (handed back unchanged in [`Delivery`]).
#[derive(Debug)]
pub struct TimeManager<T: LogicalTime, M> {
    me: MemberId,
    view: ViewNumber,
    cond_view: ViewNumber,
    time: T,
    lookahead: T::Interval,
    bound: Bound<T>,
    promised_u: Option<Bound<T>>,
    regulation: Regulation<T>,
    constraint: ConstraintState,
    advance: Option<Advance<T>>,
    /// The last grant came from TAR or NER: a TSO message at exactly T is no longer acceptable.
    last_grant_strict: bool,
    /// The driver says the federate has not received the last grant yet (see
    /// [`TimeManager::set_grant_undelivered`]).
    grant_undelivered: bool,
    /// The logical time before the last grant: the federate's time until it receives the grant.
    time_before_grant: T,
    async_delivery: bool,
    tso: TsoQueue<T, M>,
    held_ro: VecDeque<Delivery<T, M>>,
    peers: BTreeMap<MemberId, Peer<T>>,
    departed: BTreeMap<MemberId, (Seq, ViewNumber)>,
    my_tso_hw: Seq,
    /// Bumped whenever a consistency requirement (someone's TSO high-water) changes.
    req_epoch: u64,
    floor: Option<Bound<T>>,
    galt: Option<Bound<T>>,
    last_sent: Option<Option<(Bound<T>, Bound<T>)>>,
    force_promise: bool,
    tso_arrived: bool,
    next_query: u64,
    actions: VecDeque<Action<T, M>>,
    stats: TimeStats,
}

impl<T: LogicalTime, M> TimeManager<T, M> {
    /// A federate that has just joined. `existing` lists the members already there with the
    /// sequence number of their data stream at which this member starts receiving.
    pub fn new(
        me: MemberId,
        view: ViewNumber,
        existing: impl IntoIterator<Item = (MemberId, Seq)>,
    ) -> Self {
        let peers = existing
            .into_iter()
            .filter(|(id, _)| *id != me)
            .map(|(id, start)| {
                let peer = Peer {
                    joined_view: ViewNumber(0),
                    recv: start,
                    status: Status::Unknown,
                    inbox: VecDeque::new(),
                    leaving: None,
                    consistent: None,
                };
                (id, peer)
            })
            .collect();
        Self {
            me,
            view,
            cond_view: ViewNumber(0),
            time: T::INITIAL,
            lookahead: T::Interval::ZERO,
            bound: Bound::min_value(),
            promised_u: None,
            regulation: Regulation::Off,
            constraint: ConstraintState::Off,
            advance: None,
            last_grant_strict: false,
            grant_undelivered: false,
            time_before_grant: T::INITIAL,
            async_delivery: false,
            tso: TsoQueue::new(),
            held_ro: VecDeque::new(),
            peers,
            departed: BTreeMap::new(),
            my_tso_hw: Seq(0),
            req_epoch: 0,
            floor: None,
            galt: None,
            last_sent: None,
            force_promise: false,
            tso_arrived: false,
            next_query: 0,
            actions: VecDeque::new(),
            stats: TimeStats::default(),
        }
    }

    /// The next action to execute, in order. The promise (if any changed) is computed only when
    /// everything else was taken, so a burst of inputs handled before draining costs one promise.
    pub fn poll_action(&mut self) -> Option<Action<T, M>> {
        if self.actions.is_empty() {
            self.maybe_send_promise();
        }
        self.actions.pop_front()
    }

    // ---------------------------------------------------------------- save / restore

    /// The federate's time state for a federation save (`docs/HLA-SEMANTICS.md`, "What the RTI
    /// saves"): logical time, lookahead and send bound, regulation, constraint, asynchronous
    /// delivery, the pending advance, and every queued TSO and held RO message. Peers' promises are
    /// not part of it: a restored federation re-promises from the restored times.
    pub fn snapshot(&self) -> TimeSnapshot<T, M>
    where
        M: Clone,
    {
        TimeSnapshot {
            time: self.time,
            lookahead: self.lookahead,
            bound: self.bound,
            regulating: matches!(self.regulation, Regulation::On),
            constrained: self.constraint == ConstraintState::On,
            async_delivery: self.async_delivery,
            last_grant_strict: self.last_grant_strict,
            advance: self.advance,
            queued_tso: self.tso.items().collect(),
            held_ro: self.held_ro.iter().cloned().collect(),
        }
    }

    /// A manager restored from `snap` (federation restore). Like [`Self::new`] it knows the
    /// members in `existing` but has heard from none of them, so it waits for every peer's first
    /// promise of the restored federation before granting anything. A regulation or constraint
    /// that was pending at the save is not restored (the federate asks again); a pending advance
    /// is re-requested.
    pub fn restored(
        me: MemberId,
        view: ViewNumber,
        existing: impl IntoIterator<Item = (MemberId, Seq)>,
        snap: TimeSnapshot<T, M>,
    ) -> Self {
        let mut m = Self::new(me, view, existing);
        m.time = snap.time;
        m.time_before_grant = snap.time;
        m.lookahead = snap.lookahead;
        m.last_grant_strict = snap.last_grant_strict;
        m.async_delivery = snap.async_delivery;
        if snap.regulating {
            m.regulation = Regulation::On;
            m.bound = snap.bound;
        }
        if snap.constrained {
            m.constraint = ConstraintState::On;
        }
        for q in snap.queued_tso {
            m.tso.push(q.time, q.from, q.payload);
        }
        m.held_ro = snap.held_ro.into();
        m.force_promise = true;
        if let Some(a) = snap.advance {
            // Valid by construction: it was accepted in the same state before the save.
            let _ = m.request(a.kind, a.target);
        }
        m.run();
        m
    }

    // ---------------------------------------------------------------- queries

    /// This member.
    pub fn id(&self) -> MemberId {
        self.me
    }
    /// The logical time the manager has reached: the last grant's time as soon as it is issued
    /// (what ordering and the sending rules go by).
    pub fn logical_time(&self) -> T {
        self.time
    }
    /// 8.17 queryLogicalTime, as the federate sees it: the time before the last grant while the
    /// driver says the federate has not received that grant yet (8.13: the federate's logical
    /// time advances with the grant callback), else [`TimeManager::logical_time`].
    pub fn federate_logical_time(&self) -> T {
        if self.grant_undelivered {
            self.time_before_grant
        } else {
            self.time
        }
    }
    /// Whether the federate is in the Time Advancing state of 8.2: an advance request is
    /// pending, or its grant was issued but the federate has not received it yet.
    pub fn in_time_advancing_state(&self) -> bool {
        self.advance.is_some() || self.grant_undelivered
    }
    /// 8.16 queryGALT: `None` when no other member is regulating (undefined).
    pub fn galt(&self) -> Option<T> {
        self.galt.map(|b| b.time)
    }
    /// GALT with its strictness flag.
    pub fn galt_bound(&self) -> Option<Bound<T>> {
        self.galt
    }
    /// 8.18 queryLITS: min(GALT, earliest queued TSO); `None` when both are undefined.
    pub fn lits(&self) -> Option<T> {
        match (self.galt(), self.tso.first_time()) {
            (Some(g), Some(q)) => Some(g.min(q)),
            (g, q) => g.or(q),
        }
    }
    /// 8.20 queryLookahead: the *actual* lookahead, max(L, B − T) (`docs/HLA-SEMANTICS.md`,
    /// "Sending rules").
    pub fn query_lookahead(&self) -> Result<T::Interval, TimeError> {
        if !matches!(self.regulation, Regulation::On) {
            return Err(TimeError::TimeRegulationIsNotEnabled);
        }
        Ok(self.lookahead.max(self.bound.time.since(self.time)))
    }
    /// Regulation state.
    pub fn regulation(&self) -> RegulationState {
        match self.regulation {
            Regulation::Off => RegulationState::Off,
            Regulation::Querying { .. } | Regulation::Finishing { .. } => RegulationState::Pending,
            Regulation::On => RegulationState::On,
        }
    }
    /// Constraint state.
    pub fn constraint(&self) -> ConstraintState {
        self.constraint
    }
    /// The pending advance request (not yet granted).
    pub fn pending_advance(&self) -> Option<Advance<T>> {
        self.advance
    }
    /// Whether asynchronous delivery is on.
    pub fn asynchronous_delivery(&self) -> bool {
        self.async_delivery
    }
    /// The last unconditional bound this member promised (None when not regulating).
    pub fn promised_bound(&self) -> Option<Bound<T>> {
        self.promised_u
    }
    /// The bound every TSO message sent now must satisfy (None when not regulating).
    pub fn send_bound(&self) -> Option<Bound<T>> {
        if !matches!(self.regulation, Regulation::On) {
            return None;
        }
        Some(match self.advance {
            Some(a) if a.kind != RequestKind::Fqr => {
                self.bound.max(self.grant_bound(a.target, a.kind))
            }
            _ => self.bound,
        })
    }
    /// Number of queued TSO messages.
    pub fn queued_tso(&self) -> usize {
        self.tso.len()
    }
    /// Number of receive-order messages held back (a constrained federate without
    /// asynchronous delivery gets them only while in the Time Advancing state).
    pub fn queued_ro(&self) -> usize {
        self.held_ro.len()
    }
    /// Counters.
    pub fn stats(&self) -> TimeStats {
        self.stats
    }

    /// The driver's word on the last grant: `true` while the `TimeAdvanceGrant` callback it
    /// took from [`TimeManager::poll_action`] waits for the federate (e.g. in an evoked callback
    /// queue). The federate stays in the Time Advancing state until it receives the grant
    /// (8.2's state diagram, 8.13), so meanwhile the services refused in that state raise
    /// `InTimeAdvancingState` and [`TimeManager::federate_logical_time`] answers the time before
    /// the grant. A driver that delivers grants synchronously never sets it. Only what the
    /// federate sees depends on it: ordering, GALT and promises go by the issued grant.
    pub fn set_grant_undelivered(&mut self, undelivered: bool) {
        self.grant_undelivered = undelivered;
    }

    // ---------------------------------------------------------------- federate calls

    /// 8.2 enableTimeRegulation: the answer comes as `TimeRegulationEnabled`.
    pub fn enable_time_regulation(&mut self, lookahead: T::Interval) -> Result<(), TimeError> {
        match self.regulation {
            Regulation::On | Regulation::Finishing { .. } => {
                return Err(TimeError::TimeRegulationAlreadyEnabled);
            }
            Regulation::Querying { .. } => return Err(TimeError::RequestForTimeRegulationPending),
            Regulation::Off => {}
        }
        if self.in_time_advancing_state() {
            return Err(TimeError::InTimeAdvancingState);
        }
        if lookahead.is_negative() {
            return Err(TimeError::InvalidLookahead);
        }
        self.lookahead = lookahead;
        self.next_query += 1;
        let query = self.next_query;
        let waiting: BTreeSet<MemberId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.leaving.is_none())
            .map(|(id, _)| *id)
            .collect();
        for id in &waiting {
            self.actions.push_back(Action::SendTo(
                *id,
                TimeMessage::RegulationQuery {
                    query,
                    hw: self.my_tso_hw,
                },
            ));
        }
        self.regulation = Regulation::Querying {
            query,
            waiting,
            max: Bound::incl(self.time.add(lookahead)),
        };
        self.maybe_finish_query();
        self.run();
        Ok(())
    }

    /// 8.4 disableTimeRegulation: immediate; a final status goes to every member.
    pub fn disable_time_regulation(&mut self) -> Result<(), TimeError> {
        if !matches!(self.regulation, Regulation::On) {
            return Err(TimeError::TimeRegulationIsNotEnabled);
        }
        self.regulation = Regulation::Off;
        self.promised_u = None;
        self.force_promise = true;
        self.run();
        Ok(())
    }

    /// 8.5 enableTimeConstrained: the answer comes as `TimeConstrainedEnabled`.
    pub fn enable_time_constrained(&mut self) -> Result<(), TimeError> {
        match self.constraint {
            ConstraintState::On => return Err(TimeError::TimeConstrainedAlreadyEnabled),
            ConstraintState::Pending => return Err(TimeError::RequestForTimeConstrainedPending),
            ConstraintState::Off => {}
        }
        if self.in_time_advancing_state() {
            return Err(TimeError::InTimeAdvancingState);
        }
        self.constraint = ConstraintState::Pending;
        self.run();
        Ok(())
    }

    /// 8.7 disableTimeConstrained: immediate; queued TSO messages are delivered RO, and a
    /// pending advance is granted at its requested time.
    pub fn disable_time_constrained(&mut self) -> Result<(), TimeError> {
        if self.constraint != ConstraintState::On {
            return Err(TimeError::TimeConstrainedIsNotEnabled);
        }
        self.constraint = ConstraintState::Off;
        while let Some(m) = self.tso.pop_if(|_| true) {
            self.deliver(Delivery {
                from: m.from,
                payload: m.payload,
                time: Some(m.time),
                sent_order: OrderType::TimeStamp,
                received_order: OrderType::Receive,
            });
        }
        self.flush_held_ro();
        self.run();
        Ok(())
    }

    /// 8.8 timeAdvanceRequest.
    pub fn time_advance_request(&mut self, t: T) -> Result<(), TimeError> {
        self.request(RequestKind::Tar, t)
    }
    /// 8.9 timeAdvanceRequestAvailable.
    pub fn time_advance_request_available(&mut self, t: T) -> Result<(), TimeError> {
        self.request(RequestKind::Tara, t)
    }
    /// 8.10 nextMessageRequest.
    pub fn next_message_request(&mut self, t: T) -> Result<(), TimeError> {
        self.request(RequestKind::Ner, t)
    }
    /// 8.11 nextMessageRequestAvailable.
    pub fn next_message_request_available(&mut self, t: T) -> Result<(), TimeError> {
        self.request(RequestKind::Nera, t)
    }
    /// 8.12 flushQueueRequest.
    pub fn flush_queue_request(&mut self, t: T) -> Result<(), TimeError> {
        self.request(RequestKind::Fqr, t)
    }

    /// Any of the five advance services.
    pub fn request(&mut self, kind: RequestKind, t: T) -> Result<(), TimeError> {
        if self.in_time_advancing_state() {
            return Err(TimeError::InTimeAdvancingState);
        }
        if !matches!(self.regulation, Regulation::Off | Regulation::On) {
            return Err(TimeError::RequestForTimeRegulationPending);
        }
        if self.constraint == ConstraintState::Pending {
            return Err(TimeError::RequestForTimeConstrainedPending);
        }
        if t < self.time {
            return Err(TimeError::LogicalTimeAlreadyPassed);
        }
        self.advance = Some(Advance { kind, target: t });
        self.flush_held_ro();
        if kind == RequestKind::Fqr && self.constraint == ConstraintState::On {
            self.flush_queue(t);
        }
        self.run();
        Ok(())
    }

    /// 8.14 enableAsynchronousDelivery.
    pub fn enable_asynchronous_delivery(&mut self) -> Result<(), TimeError> {
        if self.async_delivery {
            return Err(TimeError::AsynchronousDeliveryAlreadyEnabled);
        }
        self.async_delivery = true;
        self.flush_held_ro();
        Ok(())
    }
    /// 8.15 disableAsynchronousDelivery.
    pub fn disable_asynchronous_delivery(&mut self) -> Result<(), TimeError> {
        if !self.async_delivery {
            return Err(TimeError::AsynchronousDeliveryAlreadyDisabled);
        }
        self.async_delivery = false;
        Ok(())
    }

    /// 8.19 modifyLookahead. An increase takes effect at once; a decrease only as time advances
    /// (the promised bound never drops, so the actual lookahead is max(L, B − T)).
    pub fn modify_lookahead(&mut self, lookahead: T::Interval) -> Result<(), TimeError> {
        if !matches!(self.regulation, Regulation::On) {
            return Err(TimeError::TimeRegulationIsNotEnabled);
        }
        if self.in_time_advancing_state() {
            return Err(TimeError::InTimeAdvancingState);
        }
        if lookahead.is_negative() {
            return Err(TimeError::InvalidLookahead);
        }
        self.lookahead = lookahead;
        self.bound = self.bound.max(Bound::incl(self.time.add(lookahead)));
        self.run();
        Ok(())
    }

    /// The send-time check (`docs/HLA-SEMANTICS.md`, "Sending rules"): the order the message
    /// goes out with, or `InvalidLogicalTime`.
    /// Timed sends from a non-regulating federate, or with a Receive preferred order, go RO.
    pub fn validate_send(
        &self,
        time: Option<T>,
        preferred: OrderType,
    ) -> Result<OrderType, TimeError> {
        let Some(ts) = time else {
            return Ok(OrderType::Receive);
        };
        if preferred == OrderType::Receive {
            return Ok(OrderType::Receive);
        }
        match self.send_bound() {
            None => Ok(OrderType::Receive),
            Some(b) if b.admits(ts) => Ok(OrderType::TimeStamp),
            Some(_) => Err(TimeError::InvalidLogicalTime),
        }
    }

    /// The LRC sent a data message with this sequence number and order (after [`Self::validate_send`]).
    pub fn on_data_sent(&mut self, seq: Seq, order: OrderType) {
        if order == OrderType::TimeStamp && seq > self.my_tso_hw {
            self.my_tso_hw = seq;
            self.req_epoch += 1;
        }
    }

    // ---------------------------------------------------------------- network and membership

    /// A data message arrived from `from` with stream sequence number `seq`. The LRC must report
    /// every sender's stream in order (after gap repair).
    pub fn on_data(&mut self, from: MemberId, seq: Seq, incoming: Incoming<T, M>) {
        let Some(peer) = self.peers.get_mut(&from) else {
            self.stats.dropped_unknown += 1;
            return;
        };
        peer.recv = peer.recv.max(seq);
        match incoming {
            Incoming::Tso { time, payload } => {
                self.tso_arrived = true;
                let late = time < self.time || (time == self.time && self.last_grant_strict);
                if late && self.constraint == ConstraintState::On {
                    self.stats.late_tso += 1;
                }
                if self.constraint == ConstraintState::On && !late {
                    self.tso.push_seq(time, from, seq, payload);
                } else {
                    self.deliver(Delivery {
                        from,
                        payload,
                        time: Some(time),
                        sent_order: OrderType::TimeStamp,
                        received_order: OrderType::Receive,
                    });
                }
            }
            Incoming::Ro { time, payload } => {
                let d = Delivery {
                    from,
                    payload,
                    time,
                    sent_order: OrderType::Receive,
                    received_order: OrderType::Receive,
                };
                if self.ro_deliverable_now() {
                    self.deliver(d);
                } else {
                    self.held_ro.push_back(d);
                }
            }
            Incoming::Other => {}
        }
        self.process_inbox(from);
        self.run();
    }

    /// Sends this member's current status (its promise) to `to` again: a member that lost part
    /// of this one's stream (it fell behind and resynchronised by state transfer) may have
    /// missed the last promise, and promises are sent only when they change.
    ///
    /// Not while this member's regulation query is out: its status then says "not
    /// regulating", which would replace the stand-in bound `to` keeps for it since it answered
    /// the query (the bound it promised to accept), and `to` could be granted past it before
    /// this member's first promise; that promise follows the answers anyway.
    /// While the query is out, the query is sent again instead, if `to` has not answered it
    /// ([`Self::resend_query`]).
    pub fn resend_status(&mut self, to: MemberId) {
        if to == self.me || !self.peers.contains_key(&to) {
            return;
        }
        if matches!(self.regulation, Regulation::Querying { .. }) {
            self.resend_query(to);
            return;
        }
        let bounds = self.own_bounds(self.galt);
        if let Some((u, _)) = bounds {
            self.promised_u = Some(u);
        }
        let status = self.current_promise(bounds);
        self.actions
            .push_back(Action::SendTo(to, TimeMessage::Promise(status)));
    }

    /// Sends this member's regulation query to `to` again if `to` has not answered it: the
    /// connection to `to` broke and came back, and the query or the answer may have been lost
    /// with it (sent between two members that stay in each other's view, neither is sent
    /// again otherwise, and `enableTimeRegulation` waited for good: unified simulator, cell
    /// groups, seed 443 with reliable region moves held). A member answers every query it gets
    /// (its stand-in bound only rises), and the querier takes the answers to its current query
    /// while it waits, so a second copy changes nothing. Nothing while no query is out.
    pub fn resend_query(&mut self, to: MemberId) {
        let Regulation::Querying { query, waiting, .. } = &self.regulation else {
            return;
        };
        if !waiting.contains(&to) {
            return;
        }
        let query = *query;
        self.actions.push_back(Action::SendTo(
            to,
            TimeMessage::RegulationQuery {
                query,
                hw: self.my_tso_hw,
            },
        ));
    }

    /// A receive-order callback the LRC makes itself rather than receiving it from a peer (the
    /// removal of an instance whose owner deleted it in receive order or resigned, `from` naming
    /// whoever caused it): delivered now if receive-order messages are deliverable, otherwise
    /// queued behind the ones held, so the federate gets everything in the order it arrived.
    pub fn on_local_ro(&mut self, from: MemberId, payload: M) {
        let d = Delivery {
            from,
            payload,
            time: None,
            sent_order: OrderType::Receive,
            received_order: OrderType::Receive,
        };
        if self.ro_deliverable_now() && self.held_ro.is_empty() {
            self.deliver(d);
        } else {
            self.held_ro.push_back(d);
        }
    }

    /// Retraction at a receiver (8.21): removes TSO message `seq` of `from` if it is still
    /// queued here and returns it (the LRC drops it); a pending NER/NERA then advances to the
    /// next event, and the next promise reflects it. `None` when it is not queued: already
    /// delivered (the LRC then asks the federate with `requestRetraction`), delivered at once
    /// (not constrained, or late), or restored from a save (a restored queue keeps no stream
    /// numbers).
    pub fn retract(&mut self, from: MemberId, seq: Seq) -> Option<M> {
        let q = self.tso.remove(from, seq)?;
        self.run();
        Some(q.payload)
    }

    /// A control message arrived from `from` (per sender in the order sent).
    pub fn on_message(&mut self, from: MemberId, msg: TimeMessage<T>) {
        let Some(peer) = self.peers.get_mut(&from) else {
            self.stats.dropped_unknown += 1;
            return;
        };
        peer.inbox.push_back(msg);
        self.process_inbox(from);
        self.run();
    }

    /// A member joined after this one (its stream starts at sequence 1).
    pub fn on_member_joined(&mut self, id: MemberId, view: ViewNumber) {
        self.view = self.view.max(view);
        if id == self.me {
            return;
        }
        self.req_epoch += 1;
        self.departed.remove(&id);
        self.peers.insert(
            id,
            Peer {
                joined_view: view,
                recv: Seq(0),
                status: Status::Idle { hw: Seq(0) },
                inbox: VecDeque::new(),
                leaving: None,
                consistent: None,
            },
        );
        // Status first, query second: the newcomer must not overwrite its stand-in for us.
        let bounds = self.own_bounds(self.galt);
        if let Some((u, _)) = bounds {
            self.promised_u = Some(u);
        }
        let status = self.current_promise(bounds);
        self.actions
            .push_back(Action::SendTo(id, TimeMessage::Promise(status)));
        self.stats.promises_sent += 1;
        if let Regulation::Querying { query, waiting, .. } = &mut self.regulation {
            waiting.insert(id);
            let query = *query;
            self.actions.push_back(Action::SendTo(
                id,
                TimeMessage::RegulationQuery {
                    query,
                    hw: self.my_tso_hw,
                },
            ));
        }
        self.run();
    }

    /// A member resigned. Call after its final control messages and data were handed in; its
    /// queued control messages are still processed first. A resigning regulator should call
    /// [`Self::disable_time_regulation`] before leaving, so its final status carries its last
    /// TSO high-water.
    pub fn on_member_left(&mut self, id: MemberId, view: ViewNumber) {
        self.view = self.view.max(view);
        if let Some(peer) = self.peers.get_mut(&id) {
            peer.leaving = Some(view);
        }
        if let Regulation::Querying { waiting, .. } = &mut self.regulation {
            waiting.remove(&id);
        }
        self.process_inbox(id);
        self.maybe_finish_query();
        self.run();
    }

    /// A member was declared lost: its promise is dropped at once and its later data ignored.
    pub fn on_member_lost(&mut self, id: MemberId, view: ViewNumber) {
        self.view = self.view.max(view);
        self.cond_view = self.cond_view.max(view);
        self.req_epoch += 1;
        self.peers.remove(&id);
        self.departed.remove(&id);
        if let Regulation::Querying { waiting, .. } = &mut self.regulation {
            waiting.remove(&id);
        }
        if self.regulating() {
            self.force_promise = true;
        }
        self.maybe_finish_query();
        self.run();
    }

    // ---------------------------------------------------------------- internals

    fn regulating(&self) -> bool {
        matches!(
            self.regulation,
            Regulation::On | Regulation::Finishing { .. }
        )
    }

    fn advancing(&self) -> bool {
        self.advance.is_some() || matches!(self.regulation, Regulation::Finishing { .. })
    }

    fn ro_deliverable_now(&self) -> bool {
        self.constraint != ConstraintState::On || self.async_delivery || self.advancing()
    }

    fn deliver(&mut self, d: Delivery<T, M>) {
        if d.received_order == OrderType::TimeStamp {
            self.stats.tso_delivered += 1;
        } else {
            self.stats.ro_delivered += 1;
        }
        self.actions.push_back(Action::Deliver(d));
    }

    fn flush_held_ro(&mut self) {
        if self.ro_deliverable_now() {
            while let Some(d) = self.held_ro.pop_front() {
                self.deliver(d);
            }
        }
    }

    fn deliver_tso_head(&mut self, ready: impl FnOnce(T) -> bool) -> bool {
        match self.tso.pop_if(ready) {
            Some(m) => {
                self.deliver(Delivery {
                    from: m.from,
                    payload: m.payload,
                    time: Some(m.time),
                    sent_order: OrderType::TimeStamp,
                    received_order: OrderType::TimeStamp,
                });
                true
            }
            None => false,
        }
    }

    fn grant_bound(&self, t: T, kind: RequestKind) -> Bound<T> {
        let time = t.add(self.lookahead);
        if self.lookahead.is_zero() && kind.is_strict() {
            Bound::excl(time)
        } else {
            Bound::incl(time)
        }
    }

    fn flush_queue(&mut self, t: T) {
        let galt = self.compute_galt();
        let first = self.tso.first_time();
        while self.deliver_tso_head(|_| true) {}
        let mut g = t;
        if let Some(f) = first {
            g = g.min(f);
        }
        if let Some(b) = galt {
            g = g.min(b.time);
        }
        self.grant(g.max(self.time), RequestKind::Fqr);
    }

    fn grant(&mut self, t: T, kind: RequestKind) {
        self.time_before_grant = self.time;
        self.time = t;
        self.advance = None;
        self.last_grant_strict = kind.is_strict();
        if matches!(self.regulation, Regulation::On) {
            self.bound = self.bound.max(self.grant_bound(t, kind));
        }
        self.stats.grants += 1;
        self.actions
            .push_back(Action::Callback(Callback::TimeAdvanceGrant(t)));
    }

    fn maybe_finish_query(&mut self) {
        let Regulation::Querying { waiting, max, .. } = &self.regulation else {
            return;
        };
        if !waiting.is_empty() {
            return;
        }
        let max = *max;
        let t_new = self.time.max(max.time.sub(self.lookahead));
        self.bound = max.max(Bound::incl(t_new.add(self.lookahead)));
        // The floor assumed this member sends no TSO; from now on it may send at `bound`.
        self.floor = self.floor.map(|f| f.min(self.bound));
        self.promised_u = None;
        self.force_promise = true;
        self.regulation = Regulation::Finishing { t_new };
        self.flush_held_ro();
    }

    fn process_inbox(&mut self, from: MemberId) {
        loop {
            let Some(peer) = self.peers.get_mut(&from) else {
                return;
            };
            let ready = match peer.inbox.front() {
                None => false,
                Some(TimeMessage::Promise(p)) => p.hw <= peer.recv,
                Some(TimeMessage::RegulationQuery { hw, .. }) => *hw <= peer.recv,
                Some(TimeMessage::RegulationAnswer { .. }) => true,
            };
            if !ready {
                break;
            }
            let Some(msg) = peer.inbox.pop_front() else {
                break;
            };
            self.apply(from, msg);
        }
        if let Some(peer) = self.peers.get(&from)
            && let Some(left) = peer.leaving
            && peer.inbox.is_empty()
        {
            let hw = peer.status.hw();
            self.peers.remove(&from);
            self.req_epoch += 1;
            if hw > Seq(0) {
                self.departed.insert(from, (hw, left));
            }
            if let Regulation::Querying { waiting, .. } = &mut self.regulation {
                waiting.remove(&from);
            }
            self.maybe_finish_query();
        }
    }

    fn apply(&mut self, from: MemberId, msg: TimeMessage<T>) {
        match msg {
            TimeMessage::Promise(mut p) => {
                // Consistency checks merge-walk `recv`: sort it, and keep the lowest number
                // for a member listed twice (a faulty peer must not look more caught up).
                p.recv.sort_unstable();
                p.recv.dedup_by_key(|(m, _)| *m);
                let status = match p.bounds {
                    Some((u, c)) => Status::Regulating {
                        u,
                        c,
                        hw: p.hw,
                        recv: p.recv,
                        view: p.view,
                    },
                    None => Status::Idle { hw: p.hw },
                };
                if let Some(peer) = self.peers.get_mut(&from) {
                    if peer.status.hw() != status.hw() {
                        self.req_epoch += 1;
                    }
                    peer.status = status;
                    peer.consistent = None;
                }
            }
            TimeMessage::RegulationQuery { query, hw: sent } => {
                let earliest = self.answer_bound();
                self.floor = self.floor.map(|f| f.min(earliest));
                if let Some(peer) = self.peers.get_mut(&from) {
                    // Its TSO messages up to `sent` were received (the query waited for them):
                    // a consistency requirement, even if the promise that said so is lost or
                    // comes later (and is dropped as older than this query).
                    let hw = peer.status.hw().max(sent);
                    if hw != peer.status.hw() {
                        self.req_epoch += 1;
                    }
                    peer.consistent = None;
                    peer.status = Status::StandIn {
                        bound: earliest,
                        hw,
                    };
                }
                self.actions.push_back(Action::SendTo(
                    from,
                    TimeMessage::RegulationAnswer { query, earliest },
                ));
            }
            TimeMessage::RegulationAnswer { query, earliest } => {
                if let Regulation::Querying {
                    query: q,
                    waiting,
                    max,
                } = &mut self.regulation
                    && *q == query
                {
                    waiting.remove(&from);
                    *max = (*max).max(earliest);
                    self.maybe_finish_query();
                }
            }
        }
    }

    /// The earliest TSO timestamp this member can still accept (answer to a regulation query).
    fn answer_bound(&mut self) -> Bound<T> {
        if self.constraint == ConstraintState::Off {
            return Bound::min_value();
        }
        let mut b = if self.last_grant_strict {
            Bound::excl(self.time)
        } else {
            Bound::incl(self.time)
        };
        if let Some(a) = self.advance {
            b = b.max(Bound::incl(a.target));
        }
        if let Regulation::Finishing { t_new } = self.regulation {
            b = b.max(Bound::incl(t_new));
        }
        if let Some(g) = self.compute_galt() {
            b = b.max(g);
        }
        // Through an undefined GALT (every regulator gone) the floor still holds: answering with
        // it keeps queryGALT monotone for a constrained federate.
        if let Some(f) = self.floor {
            b = b.max(f);
        }
        b
    }

    /// Everything this member knows was sent as TSO before the promises it holds: per sender,
    /// the TSO high-water a consistent promise must have received (sorted by member; departed
    /// members carry the view at which they left).
    fn requirements(&self) -> Vec<(MemberId, Seq, Option<ViewNumber>)> {
        let mut reqs: Vec<_> = self
            .peers
            .iter()
            .map(|(id, p)| (*id, p.status.hw(), None))
            .chain(
                self.departed
                    .iter()
                    .map(|(id, (hw, left))| (*id, *hw, Some(*left))),
            )
            .chain(std::iter::once((self.me, self.my_tso_hw, None)))
            .filter(|(_, hw, _)| *hw > Seq(0))
            .collect();
        reqs.sort_unstable_by_key(|(id, _, _)| *id);
        reqs
    }

    /// Is R's promise a consistent cut with `reqs`? `recv` is sorted (see `apply`): one merge walk.
    fn consistent(
        reqs: &[(MemberId, Seq, Option<ViewNumber>)],
        r: MemberId,
        joined_view: ViewNumber,
        recv: &[(MemberId, Seq)],
        view: ViewNumber,
    ) -> bool {
        let mut j = 0;
        for (s, hw, left) in reqs {
            if *s == r {
                continue;
            }
            while j < recv.len() && recv[j].0 < *s {
                j += 1;
            }
            let got = recv.get(j).filter(|(m, _)| m == s).map(|(_, x)| *x);
            let ok = match (got, left) {
                (Some(x), _) => x >= *hw,
                // A departed member R never heard of, or whose leave R had processed (so R had
                // all its data): nothing R still waits for.
                (None, Some(left)) => joined_view > *left || view >= *left,
                (None, None) => false,
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// This member's own conditional bound (None when not regulating).
    fn own_conditional(&self) -> Option<Bound<T>> {
        if !self.regulating() {
            return None;
        }
        Some(match (&self.regulation, self.advance) {
            (Regulation::On, Some(a)) if a.kind != RequestKind::Fqr => {
                let t = match (a.kind.is_next_event(), self.tso.first_time()) {
                    (true, Some(q)) => a.target.min(q),
                    _ => a.target,
                };
                self.bound.max(self.grant_bound(t, a.kind))
            }
            _ => self.bound,
        })
    }

    /// (U, C) this member promises now (None when not regulating).
    fn own_bounds(&self, galt: Option<Bound<T>>) -> Option<(Bound<T>, Bound<T>)> {
        let c = self.own_conditional()?;
        let mut u = match (&self.regulation, self.advance) {
            (Regulation::On, Some(a)) if a.kind.is_next_event() => {
                let mut t = a.target;
                if let Some(q) = self.tso.first_time() {
                    t = t.min(q);
                }
                if let Some(g) = galt {
                    t = t.min(g.time);
                }
                self.bound.max(self.grant_bound(t, a.kind))
            }
            _ => c,
        };
        if let Some(p) = self.promised_u {
            u = u.max(p);
        }
        Some((u, c.max(u)))
    }

    fn compute_galt(&mut self) -> Option<Bound<T>> {
        // Refresh the consistency cache of every regulator whose promise or requirements changed.
        let epoch = self.req_epoch;
        let needs_check = self.peers.values().any(|p| {
            matches!(p.status, Status::Regulating { .. })
                && p.consistent.is_none_or(|(e, _)| e != epoch)
        });
        let reqs = if needs_check {
            self.requirements()
        } else {
            Vec::new()
        };
        let stale: Vec<(MemberId, bool)> = self
            .peers
            .iter()
            .filter_map(|(id, p)| match &p.status {
                Status::Regulating { recv, view, .. }
                    if p.consistent.is_none_or(|(e, _)| e != epoch) =>
                {
                    Some((
                        *id,
                        Self::consistent(&reqs, *id, p.joined_view, recv, *view),
                    ))
                }
                _ => None,
            })
            .collect();
        for (id, ok) in stale {
            if let Some(p) = self.peers.get_mut(&id) {
                p.consistent = Some((epoch, ok));
            }
        }
        let mut any = false;
        let mut u_min: Option<Bound<T>> = None;
        let mut c_min: Option<Bound<T>> = None;
        for p in self.peers.values() {
            match &p.status {
                Status::Idle { .. } => {}
                Status::Unknown => {
                    any = true;
                    u_min = min_opt(u_min, Bound::min_value());
                }
                Status::StandIn { bound, .. } => {
                    any = true;
                    u_min = min_opt(u_min, *bound);
                }
                Status::Regulating { u, c, view, .. } => {
                    any = true;
                    if c > u && *view >= self.cond_view && p.consistent.is_some_and(|(_, ok)| ok) {
                        c_min = min_opt(c_min, *c);
                    } else {
                        u_min = min_opt(u_min, *u);
                    }
                }
            }
        }
        if !any {
            self.galt = None;
            return None;
        }
        let mut g = match (u_min, c_min) {
            (Some(u), Some(c)) => u.min(c),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => Bound::min_value(),
        };
        if c_min.is_some()
            && let Some(own) = self.own_conditional()
        {
            g = g.min(own);
        }
        if let Some(f) = self.floor {
            g = g.max(f);
        }
        self.floor = Some(g);
        self.galt = Some(g);
        Some(g)
    }

    /// Deliver, grant and enable whatever the current GALT allows, then promise if needed.
    fn run(&mut self) {
        loop {
            let galt = self.compute_galt();
            let at_least = |t: T| galt.is_none_or(|g| g.at_least(t));
            let above = |t: T| galt.is_none_or(|g| g.above(t));
            let mut progressed = false;

            if self.constraint == ConstraintState::Pending && at_least(self.time) {
                self.constraint = ConstraintState::On;
                // Available-style (`docs/HLA-SEMANTICS.md`, "Enabling and disabling regulation
                // and constraint"): TSO at exactly T may still be delivered.
                self.last_grant_strict = false;
                self.actions
                    .push_back(Action::Callback(Callback::TimeConstrainedEnabled(
                        self.time,
                    )));
                progressed = true;
            }

            if let Regulation::Finishing { t_new } = self.regulation {
                let constrained = self.constraint == ConstraintState::On;
                while constrained && self.deliver_tso_head(|ts| ts <= t_new && at_least(ts)) {}
                let clear = self.tso.first_time().is_none_or(|q| q > t_new);
                if !constrained || (at_least(t_new) && clear) {
                    if t_new > self.time {
                        self.last_grant_strict = false;
                    }
                    self.time = self.time.max(t_new);
                    self.regulation = Regulation::On;
                    self.actions
                        .push_back(Action::Callback(Callback::TimeRegulationEnabled(self.time)));
                    progressed = true;
                }
            }

            if let Some(a) = self.advance {
                if self.constraint != ConstraintState::On {
                    self.grant(a.target, a.kind);
                    progressed = true;
                } else {
                    match a.kind {
                        RequestKind::Tar | RequestKind::Tara => {
                            while self.deliver_tso_head(|ts| ts <= a.target && at_least(ts)) {}
                            let clear = self.tso.first_time().is_none_or(|q| q > a.target);
                            let ok = if a.kind == RequestKind::Tar {
                                above(a.target)
                            } else {
                                at_least(a.target)
                            };
                            if ok && clear {
                                self.grant(a.target, a.kind);
                                progressed = true;
                            }
                        }
                        RequestKind::Ner | RequestKind::Nera => {
                            let t = self.tso.first_time().map_or(a.target, |q| q.min(a.target));
                            let ok = if a.kind == RequestKind::Ner {
                                above(t)
                            } else {
                                at_least(t)
                            };
                            if ok {
                                while self.deliver_tso_head(|ts| ts <= t) {}
                                self.grant(t, a.kind);
                                progressed = true;
                            }
                        }
                        RequestKind::Fqr => {
                            // Granted within the request itself unless constrained was enabled
                            // meanwhile, which the request checks forbid; grant defensively.
                            self.flush_queue(a.target);
                            progressed = true;
                        }
                    }
                }
            }
            if !progressed {
                break;
            }
        }
    }

    fn current_promise(&self, bounds: Option<(Bound<T>, Bound<T>)>) -> Promise<T> {
        let recv = self.peers.iter().map(|(id, p)| (*id, p.recv)).collect();
        Promise {
            bounds,
            hw: self.my_tso_hw,
            recv,
            view: self.view,
        }
    }

    fn maybe_send_promise(&mut self) {
        let bounds = self.own_bounds(self.galt);
        if let Some((u, _)) = bounds {
            self.promised_u = Some(u);
        }
        let waiting_on_next_event =
            self.regulating() && self.advance.is_some_and(|a| a.kind.is_next_event());
        let changed = self.last_sent != Some(bounds)
            || self.force_promise
            || (waiting_on_next_event && self.tso_arrived);
        if changed && (bounds.is_some() || self.last_sent.is_some() || self.force_promise) {
            let p = self.current_promise(bounds);
            self.actions
                .push_back(Action::Broadcast(TimeMessage::Promise(p)));
            self.stats.promises_sent += 1;
            self.last_sent = Some(bounds);
            self.force_promise = false;
            self.tso_arrived = false;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::time::{HLAinteger64Interval, HLAinteger64Time};

    type Tm = TimeManager<HLAinteger64Time, ()>;

    fn callbacks(tm: &mut Tm) -> Vec<Callback<HLAinteger64Time>> {
        let mut out = Vec::new();
        while let Some(a) = tm.poll_action() {
            if let Action::Callback(c) = a {
                out.push(c);
            }
        }
        out
    }

    /// A lone member regulating (lookahead 1) and constrained at time 0.
    fn lone() -> Tm {
        let mut tm = Tm::new(MemberId(1), ViewNumber(1), []);
        tm.enable_time_regulation(HLAinteger64Interval(1)).unwrap();
        tm.enable_time_constrained().unwrap();
        callbacks(&mut tm);
        assert_eq!(tm.regulation(), RegulationState::On);
        assert_eq!(tm.constraint(), ConstraintState::On);
        tm
    }

    #[test]
    fn a_grant_the_federate_has_not_received_keeps_it_in_the_time_advancing_state() {
        let mut tm = lone();
        tm.time_advance_request(HLAinteger64Time(5)).unwrap();
        assert_eq!(
            callbacks(&mut tm),
            vec![Callback::TimeAdvanceGrant(HLAinteger64Time(5))]
        );
        assert_eq!(tm.pending_advance(), None);
        // The driver still holds the grant for the federate.
        tm.set_grant_undelivered(true);
        assert!(tm.in_time_advancing_state());
        let t6 = HLAinteger64Time(6);
        for kind in [
            RequestKind::Tar,
            RequestKind::Tara,
            RequestKind::Ner,
            RequestKind::Nera,
            RequestKind::Fqr,
        ] {
            assert_eq!(tm.request(kind, t6), Err(TimeError::InTimeAdvancingState));
        }
        assert_eq!(
            tm.modify_lookahead(HLAinteger64Interval(2)),
            Err(TimeError::InTimeAdvancingState)
        );
        // The federate's time moves with the grant it receives; ordering already went on.
        assert_eq!(tm.federate_logical_time(), HLAinteger64Time(0));
        assert_eq!(tm.logical_time(), HLAinteger64Time(5));
        assert!(callbacks(&mut tm).is_empty());
        // Delivered: Time Granted, and the next request is accepted.
        tm.set_grant_undelivered(false);
        assert!(!tm.in_time_advancing_state());
        assert_eq!(tm.federate_logical_time(), HLAinteger64Time(5));
        tm.time_advance_request(t6).unwrap();
        assert_eq!(callbacks(&mut tm), vec![Callback::TimeAdvanceGrant(t6)]);
    }

    fn deliveries(tm: &mut TimeManager<HLAinteger64Time, u32>) -> Vec<u32> {
        let mut out = Vec::new();
        while let Some(a) = tm.poll_action() {
            if let Action::Deliver(d) = a {
                out.push(d.payload);
            }
        }
        out
    }

    #[test]
    fn a_local_receive_order_callback_waits_behind_the_held_ones() {
        let mut tm = TimeManager::<HLAinteger64Time, u32>::new(
            MemberId(1),
            ViewNumber(1),
            [(MemberId(2), Seq(0))],
        );
        tm.enable_time_constrained().unwrap();
        while tm.poll_action().is_some() {}
        assert_eq!(tm.constraint(), ConstraintState::On);
        // Constrained and not advancing: receive-order data waits for an advance.
        let ro = |payload| Incoming::Ro {
            time: None,
            payload,
        };
        tm.on_data(MemberId(2), Seq(1), ro(1));
        tm.on_local_ro(MemberId(2), 2);
        tm.on_data(MemberId(2), Seq(2), ro(3));
        assert!(deliveries(&mut tm).is_empty(), "held until an advance");
        tm.time_advance_request(HLAinteger64Time(1)).unwrap();
        assert_eq!(deliveries(&mut tm), vec![1, 2, 3], "in arrival order");
        // Not constrained: delivered at once.
        tm.disable_time_constrained().unwrap();
        assert!(deliveries(&mut tm).is_empty());
        tm.on_local_ro(MemberId(2), 4);
        assert_eq!(deliveries(&mut tm), vec![4]);
    }

    #[test]
    fn a_status_is_sent_again_to_a_known_member_only() {
        let mut tm = Tm::new(MemberId(1), ViewNumber(1), [(MemberId(2), Seq(0))]);
        tm.enable_time_regulation(HLAinteger64Interval(1)).unwrap();
        // The regulation query to 2, answered.
        while tm.poll_action().is_some() {}
        tm.on_message(
            MemberId(2),
            TimeMessage::RegulationAnswer {
                query: 1,
                earliest: Bound::incl(HLAinteger64Time(0)),
            },
        );
        while tm.poll_action().is_some() {}
        assert_eq!(tm.regulation(), RegulationState::On);
        tm.resend_status(MemberId(2));
        let sent: Vec<_> = std::iter::from_fn(|| tm.poll_action()).collect();
        assert!(
            matches!(
                sent.as_slice(),
                [Action::SendTo(MemberId(2), TimeMessage::Promise(p))] if p.bounds.is_some()
            ),
            "{sent:?}"
        );
        tm.resend_status(MemberId(9));
        tm.resend_status(MemberId(1));
        assert!(
            tm.poll_action().is_none(),
            "not to strangers, not to itself"
        );
    }

    #[test]
    fn no_status_is_sent_again_while_the_regulation_query_is_out() {
        let mut tm = Tm::new(MemberId(1), ViewNumber(1), [(MemberId(2), Seq(0))]);
        tm.enable_time_regulation(HLAinteger64Interval(1)).unwrap();
        while tm.poll_action().is_some() {}
        // 2 answered the query (and keeps a stand-in bound for 1) but 1 has not heard yet: a
        // "not regulating" status now would replace that bound at 2. The query goes again
        // instead (2 answers it again, which changes nothing there).
        tm.resend_status(MemberId(2));
        let sent: Vec<_> = std::iter::from_fn(|| tm.poll_action()).collect();
        assert!(
            !sent
                .iter()
                .any(|a| matches!(a, Action::SendTo(_, TimeMessage::Promise(_)))),
            "{sent:?}"
        );
        assert!(
            matches!(
                sent.as_slice(),
                [Action::SendTo(
                    MemberId(2),
                    TimeMessage::RegulationQuery { query: 1, .. }
                )]
            ),
            "{sent:?}"
        );
        tm.on_message(
            MemberId(2),
            TimeMessage::RegulationAnswer {
                query: 1,
                earliest: Bound::incl(HLAinteger64Time(0)),
            },
        );
        let sent: Vec<_> = std::iter::from_fn(|| tm.poll_action()).collect();
        assert!(
            sent.iter().any(|a| matches!(
                a,
                Action::Broadcast(TimeMessage::Promise(p)) if p.bounds.is_some()
            )),
            "its first promise once the answers are in: {sent:?}"
        );
    }

    /// A query or its answer lost with a connection that broke and came back (the members stay
    /// in each other's view): the query goes again to whoever has not answered, and the
    /// regulation completes with the answer to the copy.
    #[test]
    fn a_regulation_query_lost_with_a_connection_is_sent_again_until_answered() {
        let mut tm = Tm::new(
            MemberId(1),
            ViewNumber(1),
            [(MemberId(2), Seq(0)), (MemberId(3), Seq(0))],
        );
        tm.enable_time_regulation(HLAinteger64Interval(1)).unwrap();
        while tm.poll_action().is_some() {}
        let answer = |tm: &mut Tm, from: u64| {
            tm.on_message(
                MemberId(from),
                TimeMessage::RegulationAnswer {
                    query: 1,
                    earliest: Bound::incl(HLAinteger64Time(0)),
                },
            )
        };
        answer(&mut tm, 2);
        while tm.poll_action().is_some() {}
        // 3's copy (or its answer) was lost: without a copy the query waits for good.
        assert_eq!(tm.regulation(), RegulationState::Pending);
        tm.resend_query(MemberId(2));
        assert!(tm.poll_action().is_none(), "2 answered");
        tm.resend_query(MemberId(3));
        let sent: Vec<_> = std::iter::from_fn(|| tm.poll_action()).collect();
        assert!(
            matches!(
                sent.as_slice(),
                [Action::SendTo(
                    MemberId(3),
                    TimeMessage::RegulationQuery { query: 1, .. }
                )]
            ),
            "{sent:?}"
        );
        answer(&mut tm, 3);
        while tm.poll_action().is_some() {}
        assert_eq!(tm.regulation(), RegulationState::On);
        tm.resend_query(MemberId(3));
        assert!(tm.poll_action().is_none(), "no query out any more");
    }

    #[test]
    fn a_regulation_query_waits_for_the_queriers_earlier_tso_messages() {
        let mut tm = TimeManager::<HLAinteger64Time, u32>::new(
            MemberId(1),
            ViewNumber(1),
            [(MemberId(2), Seq(0))],
        );
        tm.enable_time_constrained().unwrap();
        while tm.poll_action().is_some() {}
        // 2 regulated before and sent a TSO message as number 3 of its stream, which is still
        // on its way when its next regulation query arrives by the other path.
        tm.on_message(
            MemberId(2),
            TimeMessage::RegulationQuery {
                query: 1,
                hw: Seq(3),
            },
        );
        let answered = |tm: &mut TimeManager<HLAinteger64Time, u32>| {
            std::iter::from_fn(|| tm.poll_action())
                .any(|a| matches!(a, Action::SendTo(_, TimeMessage::RegulationAnswer { .. })))
        };
        assert!(!answered(&mut tm), "the query waits for 2's data up to 3");
        tm.on_data(MemberId(2), Seq(2), Incoming::Other);
        assert!(!answered(&mut tm));
        tm.on_data(
            MemberId(2),
            Seq(3),
            Incoming::Tso {
                time: HLAinteger64Time(1),
                payload: 7,
            },
        );
        assert!(answered(&mut tm), "answered once that message is in");
        assert_eq!(
            tm.queued_tso(),
            1,
            "queued before the stand-in takes effect"
        );
    }

    #[test]
    fn enabling_is_refused_while_a_grant_is_undelivered() {
        let mut tm = Tm::new(MemberId(1), ViewNumber(1), []);
        tm.time_advance_request(HLAinteger64Time(3)).unwrap();
        assert_eq!(
            callbacks(&mut tm),
            vec![Callback::TimeAdvanceGrant(HLAinteger64Time(3))]
        );
        tm.set_grant_undelivered(true);
        assert_eq!(
            tm.enable_time_regulation(HLAinteger64Interval(1)),
            Err(TimeError::InTimeAdvancingState)
        );
        assert_eq!(
            tm.enable_time_constrained(),
            Err(TimeError::InTimeAdvancingState)
        );
        tm.set_grant_undelivered(false);
        tm.enable_time_regulation(HLAinteger64Interval(1)).unwrap();
        tm.enable_time_constrained().unwrap();
    }
}
