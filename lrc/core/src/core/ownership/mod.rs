//! Ownership management (IEEE 1516-2010 clause 7): per instance attribute, at most one owner.
//!
//! Model. Every instance attribute has an owner (or none) and an ownership *version*, the number
//! of times it changed hands. After registration (version 0, the registrant owns what it
//! publishes plus `HLAprivilegeToDeleteObject`) ownership changes only by a
//! [`Decision::Transfer`] in the coordinator's replicated log, which moves an attribute from
//! version `v` to `v + 1` only if the requester's view (`from`, `v`) is still current. So
//! concurrent acquisitions from several LRCs resolve to exactly one new owner, every member
//! applies the same transfers in the same order, and a log replayed by a new coordinator after a
//! crash cannot grant an attribute twice (the log survives a coordinator takeover; a dead LRC's
//! data stream does not, which is why the transfer itself is not a data message).
//!
//! Who decides. Only the owner's LRC ever asks to move an *owned* attribute (unconditional
//! divestiture, `confirm_divestiture`, divestiture if wanted, unpublishing): acquirers' LRCs send
//! their requests to it ([`OwnershipMsg::Acquire`]) and it asks its federate
//! (`request_attribute_ownership_release`, `request_divestiture_confirmation`). For *unowned*
//! attributes the acquirer's LRC asks the coordinator directly, which grants the first request
//! and refuses the others (their version is stale; they re-route when their view catches up).
//!
//! Old owner before new owner. When the owner's LRC gives attributes up it stops its federate
//! at once (updates fail with `AttributeNotOwned`) and puts a [`DataMsg::HandOver`] in its
//! reliable data stream, behind every update its federate sent with the old version. Updates
//! carry the version of each attribute they were sent with. A receiver accepts an update only
//! if the producer owned every attribute at that version, that version has not been handed over,
//! and every earlier version was handed over (or its owner resigned / was lost). The new owner's
//! first update can overtake the hand-over (another sender's stream, or the decision arriving
//! late): such updates are *held* (bounded) and released in order once the hand-over and the
//! decision arrived, so a third federate reflects all of the old owner's updates, then the new
//! owner's: no interleaving. Updates that can never be accepted are dropped and counted
//! ([`OwnershipState::dropped_updates`]). Released updates are delivered in receive order.
//!
//! Queries. Ownership changes hands at the transfer decision; the old owner stops before it (when
//! it gives the attribute up) and the new owner starts after it (its acquisition notification,
//! once the old owner's updates are in). `query_attribute_ownership` answers by callback, so it
//! is answered behind a read barrier: the LRC sends the coordinator a request with nothing to
//! decide ([`Request::Sync`]) and answers when the reply arrives, which on the coordinator's
//! FIFO link comes after every decision made before the query reached it. If a transfer of
//! that attribute involving a local federate is still under way there (given up and not
//! decided, or decided for a local federate not yet notified), the answer waits for its end.
//! Hence a query made anywhere after the acquirer's notification names the acquirer, a query
//! made after the owner gave the attribute up never names it, and no answer names a local
//! federate whose own updates are refused at that moment (`is_attribute_owned_by_federate`
//! answers at once, from the same state that refuses updates with `AttributeNotOwned`). The
//! cost is one round trip to the coordinator per query.
//!
//! Release denied. When the owner calls `attribute_ownership_release_denied`, the intrusive
//! acquirer gets `attribute_ownership_unavailable` and its request ends (the standard leaves
//! what the acquirer sees open; ending the request means every request ends with a
//! notification, unavailable or a cancellation confirmation).
//!
//! Lost owners. A resigned or lost federate's attributes become unowned (its instances are
//! deleted first if its resign action deletes objects); a federate still waiting for one of
//! them re-routes its request to the coordinator, which grants it. MOM instances
//! (`crate::core::mom`) have no federate owner: the RTI owns them, a query answers
//! `attribute_is_owned_by_rti`, and acquisitions of them are refused.
//!
//! Save/restore: owners and versions are saved with the instances; negotiations in progress are
//! not (a restore ends them without callbacks, like the run they belonged to).
//!
//! Parts, one concern each, all `impl FederationCore` blocks over [`OwnershipState`]:
//! `services` (the clause 7 services a local federate calls, and the ownership checks of a
//! resignation), `negotiation` (acquisition requests between LRCs and to the coordinator, offers,
//! and the transfer decisions every member applies), `versions` (versions and hand-overs, the
//! verdict on each update and the updates held for it) and `lifecycle` (what instances arriving
//! or going and federates or LRCs leaving do to ownership). [`OwnershipState`] owns the version
//! history and everything that writes or reads it — transfers and resigned owners recorded,
//! hand-overs (taking effect or held in order), lost owners and removed LRCs ending versions,
//! the verdicts, held updates, new owners ready to start, deleted instances forgotten — with
//! unit tests driven by instances alone; the `FederationCore` methods hand it the instances
//! and act on what it answers (callbacks, reflections, data to send). What stays on the core
//! reaches beyond ownership: releasing held updates reflects each accepted one to the local
//! federates before judging the next, and the negotiations send requests and messages.
//!
//! [`Decision::Transfer`]: super::wire::Decision::Transfer
//! [`Request::Sync`]: super::wire::Request::Sync

mod lifecycle;
mod negotiation;
mod services;
mod versions;

use std::collections::{BTreeMap, BTreeSet};

use crate::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};

use super::Node;
use super::wire::{DataMsg, OwnershipMsg};

type Obj = ObjectInstanceHandle;
type Attr = AttributeHandle;
/// Owner of each version of one attribute that may still have updates in flight, and whether
/// its hand-over arrived.
type VersionOwners = BTreeMap<u32, (Option<FederateHandle>, bool)>;
/// (owner, acquirer, instance, if available).
type OwnerRoute = (FederateHandle, FederateHandle, Obj, bool);
/// A hand-over an LRC sent: (instance, owner, attributes with versions).
pub type SentHandOver = super::wire::HandOverRecord;
/// Hand-overs an LRC remembers for its snapshots.
pub const MAX_SENT_HAND_OVERS: usize = 4096;
/// A new owner waiting for earlier hand-overs: the tag of its acquisition notification
/// (`None`: not notified, a transfer the MOM made).
type Starting = (FederateHandle, Option<Vec<u8>>);
/// A new owner ready to start: (federate, instance, its notification's tag if notified).
pub(crate) type ReadyOwner = (FederateHandle, Obj, Option<Vec<u8>>);

/// Most updates held waiting for a hand-over; more are dropped and counted.
pub const MAX_HELD_UPDATES: usize = 1 << 16;

/// What a receiver does with an update (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Deliver now.
    Accept,
    /// Wait for a hand-over or a transfer decision.
    Hold,
    /// Never acceptable: the producer did not own an attribute when it sent it.
    Drop,
}

/// An acquisition a local federate made.
#[derive(Debug, Clone)]
pub(crate) struct Acquisition {
    pub(crate) if_available: bool,
    pub(crate) tag: Vec<u8>,
    /// (owner, version) the request was last sent for, and when.
    pub(crate) sent: Option<(Option<FederateHandle>, u32, u64)>,
    /// A coordinator request in flight for it.
    pub(crate) req: Option<u64>,
    /// Cancelled, waiting for the confirmation.
    pub(crate) cancel: bool,
}

/// A federate waiting for an attribute a local federate owns.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) requester: FederateHandle,
    pub(crate) node: Node,
    pub(crate) if_available: bool,
    /// Ownership version the request was made for.
    pub(crate) version: u32,
}

/// Ownership state of one LRC beyond the owners and versions kept with each instance.
#[derive(Debug, Clone, Default)]
pub struct OwnershipState {
    /// Negotiated divestitures of local owners: tag.
    pub(crate) divesting: BTreeMap<(Obj, Attr), Vec<u8>>,
    /// Acquirers waiting for attributes local federates own, in arrival order.
    pub(crate) candidates: BTreeMap<(Obj, Attr), Vec<Candidate>>,
    /// Attributes local federates gave up whose transfer is not decided yet: (new owner,
    /// request id).
    pub(crate) in_flight: BTreeMap<(Obj, Attr), (Option<FederateHandle>, u64)>,
    /// Acquisitions of local federates.
    pub(crate) acquiring: BTreeMap<(FederateHandle, Obj, Attr), Acquisition>,
    /// Owners of versions that may still have updates in flight: version -> (owner, handed
    /// over).
    pub(crate) history: BTreeMap<(Obj, Attr), VersionOwners>,
    /// Transfers decided for instances this LRC does not know yet: (owner, version).
    pub(crate) early: BTreeMap<Obj, BTreeMap<Attr, (Option<FederateHandle>, u32)>>,
    /// Attributes transferred to a local federate whose earlier owners' hand-overs have not
    /// all arrived: it is notified (and may update) once they have: (new owner, tag).
    pub(crate) starting: BTreeMap<(Obj, Attr), Starting>,
    /// Federates lost with their LRC (their versions end without a hand-over).
    pub(crate) lost: BTreeSet<FederateHandle>,
    /// Remote federates that resigned, by LRC: if that LRC is lost before its hand-overs
    /// arrived, they never will, and the resigned federate's versions end as if it was lost.
    pub(crate) resigned_on: BTreeMap<FederateHandle, Node>,
    /// This LRC's latest hand-overs, oldest first (carried in its snapshots).
    pub(crate) sent_hand_overs: std::collections::VecDeque<SentHandOver>,
    /// Acquisition requests made for a version this LRC has not applied yet (the requester saw
    /// the transfer first): handled again after the next transfer or registration.
    pub(crate) early_acquires: Vec<(Node, OwnershipMsg)>,
    /// Updates held for a hand-over: (sender LRC, sequence, message).
    pub(crate) held: Vec<(Node, u64, DataMsg)>,
    /// Offers (7.4) that arrived before the transfer giving their owner those attributes was
    /// applied here (the offer travels in the owner's data, the transfer in the decision log):
    /// asked once the transfer is in. Bounded by [`MAX_HELD_OFFERS`].
    pub(crate) held_offers: Vec<HeldOffer>,
    /// `query_attribute_ownership` calls behind their read barrier: request id -> (federate,
    /// instance, attribute).
    pub(crate) queries: BTreeMap<u64, (FederateHandle, Obj, Attr)>,
    /// Queries past their barrier whose attribute a local transfer still moves; answered when
    /// it ended.
    pub(crate) answerable: Vec<(FederateHandle, Obj, Attr)>,
    /// Updates dropped because their producer did not own an attribute when it sent them.
    pub dropped_updates: u64,
    /// Updates held at least once.
    pub held_updates: u64,
}

/// Largest number of offers held for their transfer.
pub const MAX_HELD_OFFERS: usize = 4096;

/// An offer waiting for the transfer that made its sender the owner.
#[derive(Debug, Clone)]
pub(crate) struct HeldOffer {
    object: Obj,
    owner: FederateHandle,
    attrs: Vec<Attr>,
    versions: Vec<u32>,
    tag: Vec<u8>,
}

impl OwnershipState {
    /// Forgets negotiations in progress (a restore).
    pub(crate) fn reset(&mut self) {
        *self = OwnershipState {
            dropped_updates: self.dropped_updates,
            held_updates: self.held_updates,
            ..Default::default()
        };
    }
}
