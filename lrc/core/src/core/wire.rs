//! Wire messages of the federation core: what goes on the federation's multicast data stream
//! ([`DataMsg`]) and what goes over QUIC between LRCs ([`ControlMsg`]).
//!
//! Both are postcard behind a one-byte version ([`WIRE_VERSION`]); a message with another version
//! or that does not decode is a typed [`WireError`], never a panic. Postcard bounds every length
//! by the input size, so a hostile length field cannot make us allocate unboundedly. A compact
//! hand-rolled codec for the data stream can replace postcard later behind the same version byte.

use serde::{Deserialize, Serialize};

use crate::error::RtiError;
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, MessageRetractionHandle,
    ObjectClassHandle, ObjectInstanceHandle, ParameterHandle,
};

/// Version byte in front of every core message (15: the DDM messages `UpdateRegions`,
/// `InteractionInRegions`, `RequestUpdateInRegions` and `Declaration::UpdateRegions`, appended
/// after every earlier variant so no earlier encoding changed; an LRC of 14 could not decode
/// them, so the two refuse each other instead; 16: `Declaration::SubscribeObjectInRegions`,
/// appended likewise, which relevance advisories by region overlap need; 17: `after` in
/// `DataMsg::Update`, so that a best-effort update never overtakes the update-region
/// announcement it was sent after; 18: moves of best-effort update regions within their cells
/// (`DataMsg::MoveRegions`, `DataMsg::Update::regions`, `DataMsg::UpdateRegions::version`), so
/// that such a move reaches only the LRCs in those cells; reliable attributes' moves use the
/// same messages since, numbered in the stream, with no change to any encoding; 19: an LRC that
/// joins DDM cells asks the members for the regions moved there (`ControlMsg::RegionsQuery`,
/// `ControlMsg::MovedRegions`), appended).
pub const WIRE_VERSION: u8 = 19;

/// A message that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Empty payload.
    #[error("empty core message")]
    Empty,
    /// Another protocol version.
    #[error("core message version {0}, this LRC speaks {WIRE_VERSION}")]
    Version(u8),
    /// Malformed body.
    #[error("malformed core message: {0}")]
    Malformed(String),
}

/// Encoded logical time, carried as opaque bytes until time management is integrated.
pub type Timestamp = Vec<u8>;

/// What a resigning (or lost) federate's objects become. Mirrors the standard's ResignAction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResignAction {
    /// Owned attributes become unowned; instances stay.
    UnconditionallyDivestAttributes,
    /// Instances the federate may delete are deleted.
    DeleteObjects,
    /// Pending ownership acquisitions are cancelled (fails with `FederateOwnsAttributes` while
    /// the federate owns attributes).
    CancelPendingOwnershipAcquisitions,
    /// Delete, then divest the rest.
    DeleteObjectsThenDivest,
    /// Cancel, delete, divest (the standard's default automatic action).
    CancelThenDeleteThenDivest,
    /// Nothing.
    NoAction,
}

impl ResignAction {
    /// Whether instances the federate registered (and holds the delete privilege for) go.
    pub fn deletes_objects(self) -> bool {
        matches!(
            self,
            ResignAction::DeleteObjects
                | ResignAction::DeleteObjectsThenDivest
                | ResignAction::CancelThenDeleteThenDivest
        )
    }

    /// Parses the FDD switch value (`automaticResignAction`), e.g. `DeleteObjects`.
    pub fn from_switch(v: &str) -> Option<ResignAction> {
        Some(match v {
            "UnconditionallyDivestAttributes" => Self::UnconditionallyDivestAttributes,
            "DeleteObjects" => Self::DeleteObjects,
            "CancelPendingOwnershipAcquisitions" => Self::CancelPendingOwnershipAcquisitions,
            "DeleteObjectsThenDivest" => Self::DeleteObjectsThenDivest,
            "CancelThenDeleteThenDivest" => Self::CancelThenDeleteThenDivest,
            "NoAction" => Self::NoAction,
            _ => return None,
        })
    }
}

/// A federate's subscriptions and publications as other LRCs need them (relevance advisories).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Declaration {
    /// Active subscription set for a class (empty = unsubscribed).
    SubscribeObject(ObjectClassHandle, Vec<AttributeHandle>),
    /// Active subscription to an interaction class (false = unsubscribed).
    SubscribeInteraction(InteractionClassHandle, bool),
    /// The federate's automatic resign action (applied by every LRC if it is lost).
    AutomaticResign(ResignAction),
    /// The whole subscription set for a class, active and passive (empty = unsubscribed), with
    /// the shortest interval between deliveries the federate asked for (`None`: every update).
    /// The sender's LRC thins an attribute only when every subscriber of it asked for a rate
    /// (see `super::update_rate`).
    Subscription {
        /// Class.
        class: ObjectClassHandle,
        /// Subscribed attributes.
        attrs: Vec<AttributeHandle>,
        /// Interval of the rate, microseconds.
        interval_us: Option<u64>,
    },
    /// Last (postcard encodes a variant by its position): the update regions the federate
    /// associated with attributes of `object`, as [`DataMsg::UpdateRegions`] announces them;
    /// travels in state-transfer snapshots so a late joiner filters like the others (see
    /// `super::regions`).
    UpdateRegions {
        /// Instance.
        object: ObjectInstanceHandle,
        /// (attribute, extents of its update regions).
        attrs: Vec<(AttributeHandle, Vec<super::regions::Extent>)>,
    },
    /// Last (wire version 16): [`Declaration::SubscribeObject`] for a federate that subscribes
    /// to `class` with regions, in one message so that no receiver ever sees the set without
    /// its regions. The active set `attrs` replaces the federate's earlier one for the class,
    /// and `regions` replaces what was known of its regions there: an attribute listed is
    /// relevant only where an update region overlaps one of its extents (none listed: nowhere,
    /// the region part of the subscription being passive); an attribute not listed is
    /// subscribed in the default region, which overlaps everything. Relevance advisories use it
    /// (see `super::regions`).
    SubscribeObjectInRegions {
        /// Class.
        class: ObjectClassHandle,
        /// Actively subscribed attributes (empty: unsubscribed).
        attrs: Vec<AttributeHandle>,
        /// (attribute, committed extents of its subscription regions).
        regions: Vec<(AttributeHandle, Vec<super::regions::Extent>)>,
    },
}

/// One message on the federation's data stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DataMsg {
    /// A new instance (always before its updates in the registrant's stream).
    Register {
        /// Handle.
        object: ObjectInstanceHandle,
        /// Registered class.
        class: ObjectClassHandle,
        /// Instance name.
        name: String,
        /// Attributes the registrant owns.
        owned: Vec<AttributeHandle>,
    },
    /// Attribute values.
    Update {
        /// Instance.
        object: ObjectInstanceHandle,
        /// Producing federate.
        producer: FederateHandle,
        /// Values.
        #[serde(with = "handle_bytes")]
        values: Vec<(AttributeHandle, Vec<u8>)>,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
        /// Logical time, if timestamped.
        #[serde(with = "serde_bytes")]
        time: Option<Timestamp>,
        /// Sent in time-stamp order (a regulating sender, TSO in the FOM): the receiver's time
        /// manager orders it.
        tso: bool,
        /// Ownership version of each value's attribute when it was sent (aligned with `values`;
        /// receivers accept it only from the owner of that version, see `super::ownership`).
        /// Shorter than `values` (empty, usually) where the rest are version 0.
        versions: Vec<u32>,
        /// The producer's retraction serial (see [`MessageRetractionHandle`]) when `tso`: the
        /// receivers hand the handle to the federate with the reflection.
        retraction: Option<u32>,
        /// A best-effort update: the stream number of the sender's last update-region
        /// announcement for `object` (0: none). A receiver that has not applied the sender's
        /// stream that far drops it, since it would judge it against older update regions than
        /// those it was sent with (see `super::regions`). Reliable updates travel in that
        /// stream, in order, and carry 0.
        after: u64,
        /// An update of an instance whose update regions moved within their cells since the
        /// last announcement to every LRC ([`DataMsg::MoveRegions`], which a best-effort one
        /// may lose and which an LRC outside those cells never received): the regions of its
        /// attributes as it was sent, which the receiver applies if they are newer than what it
        /// holds, and judges it by.
        regions: Option<super::regions::InlineRegions>,
    },
    /// An interaction.
    Interaction {
        /// Class as sent.
        class: InteractionClassHandle,
        /// Producing federate.
        producer: FederateHandle,
        /// Parameters.
        #[serde(with = "handle_bytes")]
        params: Vec<(ParameterHandle, Vec<u8>)>,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
        /// Logical time, if timestamped.
        #[serde(with = "serde_bytes")]
        time: Option<Timestamp>,
        /// Sent in time-stamp order.
        tso: bool,
        /// The producer's retraction serial when `tso` (as for `Update`).
        retraction: Option<u32>,
    },
    /// Instance deleted.
    Delete {
        /// Instance.
        object: ObjectInstanceHandle,
        /// Deleting federate.
        producer: FederateHandle,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
        /// Logical time, if timestamped.
        #[serde(with = "serde_bytes")]
        time: Option<Timestamp>,
        /// Sent in time-stamp order (a regulating sender with a time): the receivers' time
        /// managers order it like a timed update.
        tso: bool,
        /// The producer's retraction serial when `tso` (as for `Update`).
        retraction: Option<u32>,
    },
    /// 8.21: the federate of `handle` retracts its time-stamp-order message sent as reliable
    /// message `seq` of this LRC's stream (so it follows that message in every receiver's
    /// stream). See `super::retraction`.
    Retract {
        /// The message's retraction handle (its sender is `handle.federate()`).
        handle: MessageRetractionHandle,
        /// The message's number in the sending LRC's reliable stream.
        seq: u64,
    },
    /// Request for current values, of one instance or of every instance of a class.
    RequestUpdate {
        /// Instance, or
        object: Option<ObjectInstanceHandle>,
        /// class (with subclasses).
        class: Option<ObjectClassHandle>,
        /// Attributes wanted.
        attrs: Vec<AttributeHandle>,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
    },
    /// The sender applied the `n`-th federation restore: what it sends from here on belongs to
    /// the restored federation (receivers hold it until they applied that restore too, and drop
    /// what the sender sent before it once they have).
    Epoch(u32),
    /// A declaration change of one federate.
    Declare {
        /// Federate.
        federate: FederateHandle,
        /// What changed.
        decl: Declaration,
    },
    /// The owner's LRC gave up these attributes of `owner` (versions as they were): every update
    /// of `owner` for them is before this in the stream, so receivers may now accept the next
    /// owner's updates (see `super::ownership`).
    HandOver {
        /// Instance.
        object: ObjectInstanceHandle,
        /// Federate that owned them.
        owner: FederateHandle,
        /// (attribute, ownership version it had while `owner` owned it).
        attrs: Vec<(AttributeHandle, u32)>,
    },
    /// A negotiated divestiture: federates that publish these attributes and know the instance
    /// are asked to assume ownership (7.4).
    OfferOwnership {
        /// Instance.
        object: ObjectInstanceHandle,
        /// Divesting federate.
        owner: FederateHandle,
        /// Attributes offered.
        attrs: Vec<AttributeHandle>,
        /// Ownership version of each (aligned with `attrs`): a receiver that has not applied
        /// the transfer that gave them to `owner` yet holds the offer until it has.
        versions: Vec<u32>,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
    },
    /// A time-management message of federate `from` for every federate of every other LRC: one
    /// multicast instead of one control message per LRC. It travels in the sender's reliable
    /// stream but is not gated by it (the managers order promises behind the sender's data
    /// themselves, see `super::time`).
    Time {
        /// Sending federate.
        from: FederateHandle,
        /// The time manager's message.
        msg: hlamesh_timesync::TimeMessage<super::time::Time>,
        /// Number of federation restores the sender had applied.
        epoch: u32,
        /// Its place among the time messages `from` sent to other LRCs, by either path (see
        /// `super::time`, "stale statuses").
        number: u64,
    },
    // DDM (see `super::regions`). New variants go last: postcard encodes a variant by its
    // position, so appending keeps the encoding of every message above.
    /// The update regions of attributes of `object`, as `producer` associated them: for each
    /// attribute listed, the committed ranges of every region (empty: the default region).
    /// Replaces what was announced for those attributes before.
    UpdateRegions {
        /// Instance.
        object: ObjectInstanceHandle,
        /// Associating federate.
        producer: FederateHandle,
        /// (attribute, extents of its update regions).
        attrs: Vec<(AttributeHandle, Vec<super::regions::Extent>)>,
        /// The sending LRC's announcement number for `object` (see
        /// [`super::regions::InlineRegions::attrs`]).
        version: u32,
    },
    /// An interaction sent with regions (9.12): as [`DataMsg::Interaction`], with the committed
    /// ranges of the regions it was sent with.
    InteractionInRegions {
        /// Class as sent.
        class: InteractionClassHandle,
        /// Producing federate.
        producer: FederateHandle,
        /// Parameters.
        #[serde(with = "handle_bytes")]
        params: Vec<(ParameterHandle, Vec<u8>)>,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
        /// Logical time, if timestamped.
        #[serde(with = "serde_bytes")]
        time: Option<Timestamp>,
        /// Sent in time-stamp order.
        tso: bool,
        /// The producer's retraction serial when `tso`.
        retraction: Option<u32>,
        /// Extents of the regions it was sent with.
        regions: Vec<super::regions::Extent>,
    },
    /// A value-update request with regions (9.13): instances of `class` (with subclasses)
    /// whose update regions for the paired attributes overlap one of the extents.
    RequestUpdateInRegions {
        /// Class.
        class: ObjectClassHandle,
        /// (attributes, extents of the request's regions).
        attrs: Vec<(Vec<AttributeHandle>, Vec<super::regions::Extent>)>,
        /// User tag.
        #[serde(with = "serde_bytes")]
        tag: Vec<u8>,
    },
    /// To the cells of the regions only: the update regions of attributes of `object` moved
    /// within the cells they cover (see `super::regions`, "Moves within the cells"); best
    /// effort, or numbered in the stream when an attribute listed is reliable. As
    /// [`DataMsg::UpdateRegions`], applied only if newer than what the receiver holds of that
    /// sender, and only after the sender's stream announcement `after`.
    MoveRegions {
        /// Instance.
        object: ObjectInstanceHandle,
        /// Associating federate (the owner of every attribute listed).
        producer: FederateHandle,
        /// The sending LRC's announcement number for `object`.
        version: u32,
        /// The stream number of the sender's last [`DataMsg::UpdateRegions`] for `object`.
        after: u64,
        /// (attribute, extents of its update regions).
        attrs: Vec<(AttributeHandle, Vec<super::regions::Extent>)>,
    },
}

/// A replicated decision of the coordinator. Every member applies the same log in the same order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// An LRC became a member (the creator is decision 1).
    NodeAdded(u64),
    /// An LRC left or was lost; its federates are resigned with their automatic action.
    NodeRemoved(u64),
    /// FOM modules a joining federate brought, merged after the federation's (handles of
    /// what existed do not change: they are assigned in merge order).
    ModulesAdded(Vec<(String, String)>),
    /// A federate joined.
    FederateJoined {
        /// Allocated handle.
        handle: FederateHandle,
        /// Unique name.
        name: String,
        /// Federate type.
        federate_type: String,
        /// Its LRC.
        node: u64,
        /// Request it answers (node, request id), for idempotent retries.
        req: (u64, u64),
    },
    /// A federate resigned.
    FederateResigned {
        /// Federate.
        handle: FederateHandle,
        /// Action applied.
        action: ResignAction,
        /// Its LRC's data high-water when it resigned.
        hw: u64,
    },
    /// Names reserved for a federate.
    NamesReserved {
        /// Federate.
        federate: FederateHandle,
        /// Names.
        names: Vec<String>,
        /// Request it answers.
        req: (u64, u64),
    },
    /// Names released.
    NamesReleased {
        /// Federate.
        federate: FederateHandle,
        /// Names.
        names: Vec<String>,
    },
    /// The federation execution was destroyed.
    Destroyed,
    /// A synchronization point was registered (4.11).
    SyncRegistered {
        /// Label.
        label: String,
        /// User tag.
        tag: Vec<u8>,
        /// Explicit set, or `None` for a federation-wide point (grows with joiners).
        set: Option<Vec<FederateHandle>>,
        /// Registering federate.
        registrant: FederateHandle,
        /// Request it answers.
        req: (u64, u64),
    },
    /// A federation save began (4.16): every federate joined now takes part.
    SaveInitiated {
        /// Label.
        label: String,
        /// Save time of a timed save (encoded `HLAfloat64Time`).
        time: Option<Timestamp>,
        /// Federates taking part.
        members: Vec<FederateHandle>,
        /// Request it answers.
        req: (u64, u64),
    },
    /// A federate reported on its save.
    SaveReported {
        /// Federate.
        federate: FederateHandle,
        /// Report.
        report: super::save::SaveReport,
        /// The reporting LRC's reliable data high-water mark.
        hw: u64,
        /// Request it answers.
        req: (u64, u64),
    },
    /// The save in progress was aborted (4.21), or a federate could not honour its time.
    SaveAborted {
        /// Why: `SaveAborted` or `SaveTimeCannotBeHonored`.
        reason: super::save::SaveFailureReason,
        /// Request it answers.
        req: (u64, u64),
    },
    /// A restore request was refused (no such save, federates do not match, restore or save in
    /// progress).
    RestoreDenied {
        /// Requesting federate.
        federate: FederateHandle,
        /// Label.
        label: String,
        /// Why, for the requester.
        reason: String,
        /// Request it answers.
        req: (u64, u64),
    },
    /// A federation restore begins: each joined federate becomes the saved federate it is
    /// mapped to.
    RestoreInitiated {
        /// Label.
        label: String,
        /// Requesting federate.
        requester: FederateHandle,
        /// The federation as saved.
        saved: super::restore::SavedMembership,
        /// (handle now, saved handle) for every joined federate.
        mapping: Vec<(FederateHandle, FederateHandle)>,
        /// Request it answers.
        req: (u64, u64),
    },
    /// A federate's (or its LRC's) report on the restore.
    RestoreReported {
        /// Federate (its handle when the report was made).
        federate: FederateHandle,
        /// Report.
        report: super::restore::RestoreReport,
        /// Request it answers.
        req: (u64, u64),
    },
    /// `abort_federation_restore`.
    RestoreAborted {
        /// Request it answers.
        req: (u64, u64),
    },
    /// Instance attributes changed hands (the only way ownership changes after registration,
    /// besides resignations): `to` owns them from the given version on.
    Transfer {
        /// Instance.
        object: ObjectInstanceHandle,
        /// (attribute, new ownership version).
        attrs: Vec<(AttributeHandle, u32)>,
        /// Previous owner (`None`: they were unowned).
        from: Option<FederateHandle>,
        /// New owner (`None`: unowned).
        to: Option<FederateHandle>,
        /// Tag forwarded to the new owner's acquisition notification.
        tag: Vec<u8>,
        /// Made by the MOM (`HLAmodifyAttributeState`, see `super::mom`): neither federate is
        /// notified, and the old owner's LRC hands the attribute over when it applies this
        /// (the owner did not give it up).
        silent: bool,
        /// Request it answers.
        req: (u64, u64),
    },
    /// A federate achieved a synchronization point (4.14).
    SyncAchieved {
        /// Label.
        label: String,
        /// Federate.
        federate: FederateHandle,
        /// Successfully or not.
        success: bool,
        /// Request it answers.
        req: (u64, u64),
    },
    /// What a removed LRC left behind, as the coordinator that removed it holds it: the
    /// instances its federates registered whose privilege to delete nobody else holds (see
    /// `super::left_behind`). Every member makes its own copy match.
    LeftBehind {
        /// The removed LRC.
        node: u64,
        /// Every federate that ran on it (whose registrations the list settles).
        federates: Vec<FederateHandle>,
        /// The instances that outlive it.
        instances: Vec<InstanceState>,
    },
    /// An LRC whose federates had all resigned left the federation (`disconnect`,
    /// [`Request::Leave`]): out of the view like [`Decision::NodeRemoved`], but it left rather
    /// than being lost — it is not barred, and may join again under the same node id (requests
    /// it made before this decision are not answered by decisions after it, see
    /// `super::membership::View::answered`).
    NodeLeft(u64),
    /// Every member applied decisions up to `upto`: each folds its log up to there into the
    /// compact stand-in of `super::compaction` (decided by the coordinator, so every member
    /// folds at the same position).
    Fold {
        /// Last decision folded.
        upto: u64,
        /// (LRC, request id): that LRC's requests below the id can no longer be retried.
        settled: Vec<(u64, u64)>,
    },
    /// Federates that joined on `node` and resigned, folded out of the log: what a replay
    /// still needs of them (the LRC they ran on, the handle allocator). Only compaction
    /// writes it (see `super::compaction`).
    Retired {
        /// Their LRC.
        node: u64,
        /// Their handles, as inclusive ranges.
        handles: Vec<(u32, u32)>,
    },
    /// The federation-wide switches `HLAmanager.HLAfederation.HLAadjust.HLAsetSwitches` set
    /// (decided by the coordinator when it applies the interaction, so every member, a joiner's
    /// replay and a new coordinator agree; see `super::mom`).
    FederationSwitches {
        /// The Auto-Provide switch.
        auto_provide: bool,
    },
}

/// Why a synchronization point registration failed (4.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SynchronizationPointFailureReason {
    /// A point with this label has not synchronized yet.
    SynchronizationPointLabelNotUnique,
    /// The explicit set names a federate that is not joined.
    SynchronizationSetMemberNotJoined,
}

/// A request to the coordinator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Join a federate.
    Join {
        /// Requested name.
        name: Option<String>,
        /// Type.
        federate_type: String,
        /// Additional FOM modules (designator, XML) to merge into the federation's FDD.
        modules: Vec<(String, String)>,
    },
    /// Resign a federate; the last field is its LRC's data high-water when it resigned (its
    /// resignation takes effect elsewhere only after that data, see `super::resignation`).
    Resign(FederateHandle, ResignAction, u64),
    /// Reserve names (all or none).
    Reserve(FederateHandle, Vec<String>),
    /// Release names.
    Release(FederateHandle, Vec<String>),
    /// Destroy the federation execution.
    Destroy,
    /// Register a synchronization point.
    RegisterSync {
        /// Registering federate.
        federate: FederateHandle,
        /// Label.
        label: String,
        /// Tag.
        tag: Vec<u8>,
        /// Explicit set (`None`: federation-wide).
        set: Option<Vec<FederateHandle>>,
    },
    /// Request a federation save.
    Save {
        /// Requesting federate.
        federate: FederateHandle,
        /// Label.
        label: String,
        /// Save time of a timed save.
        time: Option<Timestamp>,
    },
    /// A federate's report on the save in progress.
    SaveReport {
        /// Federate.
        federate: FederateHandle,
        /// Report.
        report: super::save::SaveReport,
        /// The reporting LRC's reliable data high-water mark (see `super::save`, the cut).
        hw: u64,
        /// The save it reports on (the log position of its `SaveInitiated`): a report of an
        /// earlier save still in flight must not count for the next one, even of the same label.
        save: u64,
    },
    /// Abort the save in progress (`SaveAborted`, or `SaveTimeCannotBeHonored` from an LRC whose
    /// federate is already past the save time); the second field identifies that save as in
    /// `SaveReport`.
    AbortSave(super::save::SaveFailureReason, u64),
    /// Achieve a synchronization point.
    AchieveSync {
        /// Federate.
        federate: FederateHandle,
        /// Label.
        label: String,
        /// Successfully or not.
        success: bool,
    },
    /// Request a federation restore; `saved` is the federation as the requester's save file
    /// describes it (`None`: the requester has no usable file, with the reason).
    Restore {
        /// Requesting federate.
        federate: FederateHandle,
        /// Label.
        label: String,
        /// The saved federation, or why it could not be read.
        saved: Result<super::restore::SavedMembership, String>,
    },
    /// A federate's (or its LRC's) report on the restore in progress.
    RestoreReport {
        /// Federate (its handle when the report was made).
        federate: FederateHandle,
        /// Report.
        report: super::restore::RestoreReport,
    },
    /// Abort the restore in progress.
    AbortRestore,
    /// Move instance attributes from `from` to `to`, if each still has the ownership version
    /// given (else nothing happens: the requester's view was stale). Made by the owner's LRC for
    /// owned attributes, by an acquirer's LRC for unowned ones.
    Transfer {
        /// Instance.
        object: ObjectInstanceHandle,
        /// (attribute, ownership version the requester saw).
        attrs: Vec<(AttributeHandle, u32)>,
        /// Current owner as the requester saw it.
        from: Option<FederateHandle>,
        /// New owner.
        to: Option<FederateHandle>,
        /// Tag for the acquisition notification.
        tag: Vec<u8>,
        /// For the MOM (see [`Decision::Transfer`]).
        silent: bool,
    },
    /// Nothing to decide: answered at once. The reply travels behind every decision the
    /// coordinator made before it (one FIFO link), so when it arrives the requester has applied
    /// them: a read barrier (ownership queries are answered behind one).
    Sync,
    /// This LRC, whose federates all resigned, leaves the federation ([`Decision::NodeLeft`]);
    /// refused with `FederateIsExecutionMember` while the view still has a federate on it.
    Leave,
}

impl Request {
    /// Requests about the federation's state as a federate saw it (synchronization points,
    /// names, saves): not decided while a save or restore is in progress (they wait for it: the
    /// requester retries), and dropped when made before a restore (the restored federate's
    /// pending ones are saved with it and made again).
    pub fn follows_state(&self) -> bool {
        matches!(
            self,
            Request::RegisterSync { .. }
                | Request::AchieveSync { .. }
                | Request::Reserve(..)
                | Request::Release(..)
                | Request::Save { .. }
                | Request::AbortSave(..)
                | Request::Transfer { .. }
        )
    }

    /// The local federate a state request is for.
    pub fn federate(&self) -> Option<FederateHandle> {
        match self {
            Request::RegisterSync { federate, .. }
            | Request::AchieveSync { federate, .. }
            | Request::Save { federate, .. }
            | Request::SaveReport { federate, .. }
            | Request::Restore { federate, .. }
            | Request::RestoreReport { federate, .. }
            | Request::Reserve(federate, _)
            | Request::Release(federate, _)
            | Request::Resign(federate, ..) => Some(*federate),
            _ => None,
        }
    }
}

/// The coordinator's answer to a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// Joined with this handle.
    Joined(FederateHandle),
    /// Done.
    Done,
    /// Names reserved.
    Reserved(Vec<String>),
    /// Names not reserved.
    NotReserved(Vec<String>),
    /// Refused.
    Failed(RtiError),
    /// A synchronization point registration failed.
    SyncFailed(SynchronizationPointFailureReason),
}

/// One instance in a state-transfer snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceState {
    /// Handle.
    pub object: ObjectInstanceHandle,
    /// Registered class.
    pub class: ObjectClassHandle,
    /// Name.
    pub name: String,
    /// Attribute owners as the sender knows them: (attribute, owner, ownership version).
    pub owners: Vec<(AttributeHandle, Option<FederateHandle>, u32)>,
    /// Current values.
    #[serde(with = "handle_bytes")]
    pub values: Vec<(AttributeHandle, Vec<u8>)>,
}

/// A hand-over an LRC sent: (instance, owner, attributes with the versions they had).
pub type HandOverRecord = (
    ObjectInstanceHandle,
    FederateHandle,
    Vec<(AttributeHandle, u32)>,
);

/// Ownership negotiation between an acquirer's LRC and the owner's LRC (see `super::ownership`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum OwnershipMsg {
    /// To the owner's LRC: `requester` wants these attributes (7.8 / 7.9).
    Acquire {
        /// Acquiring federate.
        requester: FederateHandle,
        /// Instance.
        object: ObjectInstanceHandle,
        /// Attributes, with the ownership version the requester saw (a request for another
        /// version than the owner's is ignored: the requester re-routes when its view changes).
        attrs: Vec<(AttributeHandle, u32)>,
        /// Only if available (7.9).
        if_available: bool,
        /// Tag for `request_attribute_ownership_release`.
        tag: Vec<u8>,
    },
    /// To the owner's LRC: the acquisition is cancelled (7.15).
    Cancel {
        /// Acquiring federate.
        requester: FederateHandle,
        /// Instance.
        object: ObjectInstanceHandle,
        /// Attributes, with the version of the request cancelled.
        attrs: Vec<(AttributeHandle, u32)>,
    },
    /// To the acquirer's LRC: not available (7.10; also the answer to a release denial).
    Unavailable {
        /// Acquiring federate.
        requester: FederateHandle,
        /// Instance.
        object: ObjectInstanceHandle,
        /// Attributes, with the version of the request answered (an answer to a request the
        /// requester has since re-routed is ignored).
        attrs: Vec<(AttributeHandle, u32)>,
    },
    /// To the acquirer's LRC: the cancellation took effect (7.16).
    CancelConfirmed {
        /// Acquiring federate.
        requester: FederateHandle,
        /// Instance.
        object: ObjectInstanceHandle,
        /// Attributes, with the version echoed from the cancellation (a confirmation of an
        /// earlier request does not end a later one).
        attrs: Vec<(AttributeHandle, u32)>,
    },
}

/// A message between LRCs over QUIC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ControlMsg {
    /// To the coordinator (retried until answered).
    Request {
        /// Requester's id for it.
        id: u64,
        /// What.
        body: Request,
        /// Federation restores the requester had applied when it sent it (see
        /// `Request::follows_state`).
        epoch: u32,
    },
    /// From the coordinator to the requester.
    Reply {
        /// Request id.
        id: u64,
        /// Answer.
        reply: Reply,
    },
    /// To a newly added member: the decision log so far, compacted (see
    /// `super::compaction`), and the federation's FOM modules.
    Welcome {
        /// Decisions `1..=base` are folded into `folded`.
        base: u64,
        /// The folded stand-in for decisions `1..=base`, each with its number.
        folded: Vec<(u64, Decision)>,
        /// Decisions `base + 1 ..= n`, verbatim.
        log: Vec<Decision>,
        /// FOM modules (designator, XML text) in merge order.
        modules: Vec<(String, String)>,
        /// The federation's logical time implementation.
        time_kind: hlamesh_timesync::TimeKind,
    },
    /// Decisions numbered from `first`.
    Decisions {
        /// Number of the first.
        first: u64,
        /// Decisions.
        list: Vec<Decision>,
    },
    /// A member's last applied decision, to the coordinator it believes in (gap repair and
    /// coordinator takeover).
    Report {
        /// Last decision number applied.
        last: u64,
        /// The coordinator addressed.
        to: u64,
        /// The lowest request id the sender still has pending (its next id if none): it
        /// retries no request below it, so decisions answering those may be folded.
        settled: u64,
    },
    /// The new coordinator asks for decisions after `after`.
    Fetch {
        /// Last decision the coordinator has.
        after: u64,
    },
    /// A time-management message of federate `from` (hosted by the sending LRC) for `to`, or
    /// for every federate of the receiving LRC but `from`.
    Time {
        /// Sending federate.
        from: FederateHandle,
        /// Addressee; `None` for a broadcast.
        to: Option<FederateHandle>,
        /// The time manager's message.
        msg: hlamesh_timesync::TimeMessage<super::time::Time>,
        /// Number of federation restores the sender had applied (older messages are dropped,
        /// newer ones wait until this LRC applied the same restore).
        epoch: u32,
        /// Its place among the time messages `from` sent to other LRCs, by either path (see
        /// `super::time`, "stale statuses").
        number: u64,
    },
    /// From a member that does not coordinate to a requester that is not a member yet: ask
    /// this LRC instead. A joiner picks its candidates from the discovery beacons it has heard so
    /// far, which may not include the coordinator yet.
    Redirect {
        /// The coordinator the sender believes in.
        coordinator: u64,
    },
    /// A member that joined later asks for this LRC's instances.
    SnapshotRequest,
    /// "You are not a member of my view": sent to a removed LRC that is heard from again (a
    /// healed partition). `nodes` is the sender's view; see `super::eviction`.
    Evicted {
        /// The sender's view (coordinator first).
        nodes: Vec<u64>,
    },
    /// Ownership negotiation.
    Ownership {
        /// What.
        msg: OwnershipMsg,
        /// Federation restores the sender had applied (messages of another run are dropped).
        epoch: u32,
    },
    /// This LRC's instances; the receiver skips this sender's reliable data up to `high_water`.
    Snapshot {
        /// Sender's reliable data sequence number when the snapshot was taken.
        high_water: u64,
        /// Instances owned by the sender's federates.
        instances: Vec<InstanceState>,
        /// Current declarations of the sender's federates.
        declarations: Vec<(FederateHandle, Declaration)>,
        /// The sender's latest hand-overs (object, owner, attributes with versions), all sent
        /// before `high_water`: a receiver that lost them in the data it resynchronises over
        /// still learns that those owners stopped (see `super::ownership`).
        hand_overs: Vec<HandOverRecord>,
        /// Federation restores the sender had applied (a snapshot of another run than the
        /// receiver's is asked for again).
        epoch: u32,
    },
    /// A member to an LRC whose channel came up and that is not in its view: its view. A
    /// joiner ignores it; a member of another history (the two met after a partition, each
    /// admitted by its own side, with no node either removed) answers it like [`Self::Evicted`]
    /// (see `super::eviction`).
    Member {
        /// The sender's view (coordinator first).
        nodes: Vec<u64>,
    },
    /// An LRC that joined DDM cells asks a member for the update regions its instances moved
    /// to within their cells since it last announced them to every LRC: it heard none of
    /// those moves (see `super::regions`, "Moves within the cells").
    RegionsQuery,
    /// The answer to [`Self::RegionsQuery`], sent behind the sender's data (causal): per
    /// instance, the owning federate and its moved attributes, each with the number of its
    /// last announcement and the extents of its update regions.
    MovedRegions {
        /// (instance, owner, [(attribute, announcement number, extents)]).
        moved: Vec<MovedInstance>,
    },
}

/// One instance in [`ControlMsg::MovedRegions`]: (instance, owning federate, its moved
/// attributes with their announcement numbers and update regions).
pub type MovedInstance = (
    ObjectInstanceHandle,
    FederateHandle,
    Vec<(AttributeHandle, u32, Vec<super::regions::Extent>)>,
);

/// `Vec<(handle, value bytes)>` with each value as a byte string (`serde_bytes`): postcard lays
/// it out exactly like a `Vec<u8>` (length, then the bytes) but copies it in one piece instead of
/// visiting it byte by byte.
mod handle_bytes {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_bytes::{ByteBuf, Bytes};

    pub fn serialize<H: Serialize, S: Serializer>(
        v: &[(H, Vec<u8>)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for (h, bytes) in v {
            seq.serialize_element(&(h, Bytes::new(bytes)))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, H: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(H, Vec<u8>)>, D::Error> {
        let v: Vec<(H, ByteBuf)> = Vec::deserialize(d)?;
        Ok(v.into_iter().map(|(h, b)| (h, b.into_vec())).collect())
    }
}

/// Version byte + postcard, written straight behind the version byte into a buffer of
/// `capacity` (no second copy of the body).
fn encode<T: Serialize>(m: &T, capacity: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity);
    out.push(WIRE_VERSION);
    // Serialising our own in-memory enums to a Vec cannot fail; an error would leave the
    // version byte alone, which no receiver accepts as a message.
    postcard::to_io(m, out).unwrap_or_else(|_| vec![WIRE_VERSION])
}

fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, WireError> {
    let (&v, body) = bytes.split_first().ok_or(WireError::Empty)?;
    if v != WIRE_VERSION {
        return Err(WireError::Version(v));
    }
    postcard::from_bytes(body).map_err(|e| WireError::Malformed(e.to_string()))
}

impl DataMsg {
    /// Version byte + postcard.
    pub fn encode(&self) -> Vec<u8> {
        encode(self, self.size_hint())
    }

    /// A buffer size that holds the encoding of the messages sent on every update and
    /// interaction without growing (a growing buffer reallocates several times).
    fn size_hint(&self) -> usize {
        fn values<H>(v: &[(H, Vec<u8>)]) -> usize {
            v.iter().map(|(_, x)| x.len() + 10).sum()
        }
        let payload = match self {
            DataMsg::Update {
                values: v,
                tag,
                time,
                versions,
                ..
            } => {
                values(v) + tag.len() + time.as_ref().map_or(0, Vec::len) + 5 * versions.len() + 10
            }
            DataMsg::Interaction {
                params, tag, time, ..
            } => values(params) + tag.len() + time.as_ref().map_or(0, Vec::len),
            _ => 0,
        };
        payload + 48
    }

    /// Inverse of [`Self::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Self, WireError> {
        decode(bytes)
    }
}

/// A control message with the federation it concerns (one QUIC mesh carries all federations).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Federation execution name.
    pub federation: String,
    /// Message.
    pub msg: ControlMsg,
}

impl Envelope {
    /// Version byte + postcard.
    pub fn encode(&self) -> Vec<u8> {
        encode(self, 64)
    }
    /// Inverse of [`Self::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Self, WireError> {
        decode(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buffer sized from `size_hint` holds exactly version byte + postcard, whatever the
    /// sizes (it was a separate presized encoder once).
    #[test]
    fn encoding_is_the_version_byte_then_postcard_at_any_size() {
        use crate::handles::{FederateHandle, ObjectInstanceHandle, ParameterHandle};
        let big = vec![7u8; 3000];
        for (values, tag, time) in [
            (vec![], vec![], None),
            (
                vec![(AttributeHandle(3), vec![1u8; 100])],
                b"t".to_vec(),
                None,
            ),
            (
                vec![
                    (AttributeHandle(300), big.clone()),
                    (AttributeHandle(4), vec![]),
                ],
                vec![9u8; 200],
                Some(vec![0u8; 8]),
            ),
        ] {
            let params: Vec<(ParameterHandle, Vec<u8>)> = values
                .iter()
                .map(|(a, v)| (ParameterHandle(a.0), v.clone()))
                .collect();
            let msgs = [
                DataMsg::Update {
                    object: ObjectInstanceHandle(1 << 40 | 77),
                    producer: FederateHandle(5),
                    versions: (0..values.len() as u32).collect(),
                    values,
                    tag: tag.clone(),
                    time: time.clone(),
                    tso: time.is_some(),
                    retraction: time.is_some().then_some(300),
                    after: if time.is_some() { 0 } else { 1 << 33 },
                    regions: None,
                },
                DataMsg::Interaction {
                    class: InteractionClassHandle(12),
                    producer: FederateHandle(2),
                    params,
                    tag,
                    time,
                    tso: false,
                    retraction: None,
                },
                DataMsg::Retract {
                    handle: MessageRetractionHandle::new(FederateHandle(2), 9),
                    seq: 1 << 40,
                },
                DataMsg::Epoch(3),
            ];
            for m in msgs {
                let mut want = vec![WIRE_VERSION];
                want.extend(postcard::to_allocvec(&m).expect("postcard"));
                assert_eq!(m.encode(), want, "{m:?}");
                assert_eq!(DataMsg::decode(&m.encode()).ok(), Some(m));
            }
        }
    }

    #[test]
    fn region_subscription_declarations_round_trip() {
        let mut e = super::super::regions::Extent::default();
        e.0.insert(
            crate::handles::DimensionHandle(2),
            super::super::regions::RangeBounds::new(3, 9),
        );
        let m = DataMsg::Declare {
            federate: FederateHandle(3),
            decl: Declaration::SubscribeObjectInRegions {
                class: ObjectClassHandle(7),
                attrs: vec![AttributeHandle(1), AttributeHandle(2)],
                regions: vec![(AttributeHandle(1), vec![e]), (AttributeHandle(2), vec![])],
            },
        };
        assert_eq!(DataMsg::decode(&m.encode()), Ok(m));
    }

    #[test]
    fn subscription_declarations_round_trip() {
        for interval_us in [None, Some(100_000)] {
            let m = DataMsg::Declare {
                federate: FederateHandle(3),
                decl: Declaration::Subscription {
                    class: ObjectClassHandle(7),
                    attrs: vec![AttributeHandle(1), AttributeHandle(2)],
                    interval_us,
                },
            };
            assert_eq!(DataMsg::decode(&m.encode()), Ok(m));
        }
    }

    #[test]
    fn round_trip_and_rejects_garbage() {
        let m = DataMsg::Delete {
            object: ObjectInstanceHandle(5),
            producer: FederateHandle(1),
            tag: b"t".to_vec(),
            time: None,
            tso: false,
            retraction: None,
        };
        assert_eq!(DataMsg::decode(&m.encode()), Ok(m));
        assert_eq!(DataMsg::decode(&[]), Err(WireError::Empty));
        let other = WIRE_VERSION + 1;
        assert_eq!(DataMsg::decode(&[other, 0]), Err(WireError::Version(other)));
        assert!(matches!(
            DataMsg::decode(&[WIRE_VERSION, 0xff, 0xff, 0xff]),
            Err(WireError::Malformed(_))
        ));
        // A huge length prefix must not allocate: postcard bounds it by the input.
        assert!(Envelope::decode(&[WIRE_VERSION, 0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
    }

    /// Messages with every byte field filled, for the layout test below.
    fn byte_fields() -> Vec<DataMsg> {
        vec![
            DataMsg::Update {
                object: ObjectInstanceHandle(300),
                producer: FederateHandle(2),
                values: vec![
                    (AttributeHandle(7), vec![1, 2, 3]),
                    (AttributeHandle(200), (0..=255).collect()),
                    (AttributeHandle(9), Vec::new()),
                ],
                tag: b"tag".to_vec(),
                time: Some(vec![0x40, 0x29, 0, 0, 0, 0, 0, 0]),
                tso: true,
                versions: vec![0, 1, 2],
                retraction: Some(5),
                after: 0,
                regions: None,
            },
            DataMsg::Interaction {
                class: InteractionClassHandle(4),
                producer: FederateHandle(1),
                params: vec![(ParameterHandle(5), vec![0xff; 130])],
                tag: Vec::new(),
                time: None,
                tso: false,
                retraction: None,
            },
        ]
    }

    /// The byte fields are written as byte strings (`serde_bytes`, one copy) but postcard lays a
    /// byte string out exactly as it laid out the `Vec<u8>` sequence (length, then one byte per
    /// element), so the wire form did not change with them. This pins that layout.
    #[test]
    fn byte_fields_keep_their_layout_and_round_trip() {
        let mut update = vec![WIRE_VERSION, 1, 0xac, 0x02, 2];
        update.extend_from_slice(&[3, 7, 3, 1, 2, 3, 0xc8, 0x01, 0x80, 0x02]);
        update.extend(0..=255u8);
        update.extend_from_slice(&[9, 0]);
        update.extend_from_slice(&[3, b't', b'a', b'g']);
        update.extend_from_slice(&[1, 8, 0x40, 0x29, 0, 0, 0, 0, 0, 0]);
        update.extend_from_slice(&[1, 3, 0, 1, 2, 1, 5]);
        // `after` (wire version 17): a varint, 0; `regions` (18): `None`, one byte.
        update.extend_from_slice(&[0, 0]);
        let mut interaction = vec![WIRE_VERSION, 2, 4, 1, 1, 5, 0x82, 0x01];
        interaction.extend_from_slice(&[0xff; 130]);
        interaction.extend_from_slice(&[0, 0, 0, 0]);
        for (m, expected) in byte_fields().into_iter().zip([update, interaction]) {
            assert_eq!(m.encode(), expected, "{m:?}");
            assert_eq!(DataMsg::decode(&expected), Ok(m));
        }
    }
}
