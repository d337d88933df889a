//! The federation core: deterministic, I/O-free state machines for one federation execution on
//! one LRC (`docs/DESIGN.md`, "Deterministic core, thin I/O shell").
//!
//! A [`FederationCore`] takes `(now, event)` — data from the federation's multicast stream,
//! control messages from other LRCs, peers joining or leaving the data channel, timer ticks —
//! and API calls of the federates hosted by this LRC, and queues [`Action`]s: data to multicast,
//! control messages to send, [`Callback`]s for local federates, completions of blocking calls.
//! The shell (`hlamesh_lrc::node`, in the crate above this one) or a simulator executes them.
//! No sockets, threads or clocks here.
//!
//! Parts: [`membership`] (the replicated view, applied from the coordinator's decision log),
//! [`coordinator`] (deciding requests, takeover when the coordinator goes), [`declarations`]
//! (publish/subscribe, promotion), [`objects`] (registry, updates, interactions, deletion),
//! [`ownership`] (instance attribute ownership and its transfers),
//! [`state_transfer`] (snapshots for late joiners), [`sync_point`] (synchronization points),
//! [`save`] (federation save), [`restore`] (federation restore), [`time`] (a time manager per local federate),
//! [`update_rate`] (update rate designators: the reductions at sender and receiver and their
//! deadlines), [`retraction`] (8.21 retract and 6.23 requestRetraction), [`mom`] (the Management
//! Object Model: who maintains which `HLAmanager` instance, its values, the MOM interactions),
//! [`regions`] (DDM: regions, update-region associations, region subscriptions and the overlap
//! filter), [`wire`] (messages).

pub mod advisory;
pub mod cell_route;
pub mod compaction;
pub mod convey;
pub mod coordinator;
pub mod declarations;
pub mod eviction;
pub mod left_behind;
pub mod membership;
pub mod mom;
pub mod move_fold;
pub mod objects;
pub mod order_type;
pub mod ownership;
pub mod regions;
pub mod resignation;
pub mod restore;
pub mod retraction;
pub mod save;
pub mod state_transfer;
pub mod stream_numbering;
pub mod sync_point;
pub mod time;
pub mod update_rate;
pub mod wire;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use crate::error::RtiError;
use crate::fom::{Fdd, FomModule, OrderType};
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, MessageRetractionHandle,
    ObjectClassHandle, ObjectInstanceHandle, ParameterHandle, TransportationTypeHandle,
};

use declarations::{Declarations, RemoteInterest};
use membership::{Phase, View};
use objects::Instance;
use state_transfer::Stream;
use wire::{ControlMsg, DataMsg, Decision, Envelope, Request, ResignAction, Timestamp};

/// An LRC's identity on the wire (the transport's `NodeId` value).
pub type Node = u64;

/// How often unanswered coordinator requests are re-sent, microseconds.
pub const RETRY_US: u64 = 500_000;

/// Identifies a blocking call (join, resign, destroy) until its [`Action::Complete`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub u64);

/// What the core learns from outside.
#[derive(Debug, Clone)]
pub enum Event<'a> {
    /// A message on the federation's data stream from another LRC (reliable ones carry their
    /// sequence number and arrive in per-sender order, exactly once).
    Data {
        /// Sender.
        from: Node,
        /// Reliable sequence number.
        seq: Option<u64>,
        /// Bytes.
        payload: &'a [u8],
    },
    /// A control message for this federation.
    Control {
        /// Sender.
        from: Node,
        /// Message.
        msg: ControlMsg,
    },
    /// `node` opened the federation's data channel: its reliable data arrives from sequence
    /// number `first_seq` on. What it sent before never arrives here (the transport starts a
    /// peer's stream where it stood when the two became channel members); state transfer
    /// makes up for it (see [`state_transfer`]).
    ChannelPeer {
        /// The peer.
        node: Node,
        /// The first reliable sequence number of its stream this LRC receives (1: all of it).
        first_seq: u64,
    },
    /// `node` crashed or left.
    PeerGone(Node),
    /// The transport could not recover `from`'s reliable data up to sequence `last`.
    FellBehind {
        /// Sender.
        from: Node,
        /// Last lost sequence number.
        last: u64,
    },
    /// The transport passed over `from`'s reliable positions up to `through`: they went to
    /// DDM cell groups this LRC did not join (see [`state_transfer`]'s `on_skipped`).
    Skipped {
        /// Sender.
        from: Node,
        /// Its stream is delivered or not due here up to this position.
        through: u64,
    },
    /// Time passes (retries).
    Tick,
}

/// Supplemental information of a reflection or received interaction.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReceiveInfo {
    /// Producing federate.
    pub producer: FederateHandle,
    /// Order the sender used.
    pub sent_order: OrderType,
    /// Order of delivery (time-stamp order when a constrained federate's time manager ordered it).
    pub received_order: OrderType,
    /// Transportation it came by.
    pub transportation: TransportationTypeHandle,
    /// Logical time, if the message was timestamped (encoded; interpreted by time management).
    pub time: Option<Timestamp>,
    /// The sender's retraction handle, when it sent the message in time-stamp order: a later
    /// `request_retraction` names it (see [`retraction`]).
    pub retraction: Option<MessageRetractionHandle>,
    /// With the receiver's Convey Region Designator Sets switch on, the regions the message was
    /// sent with that overlap the receiver's subscription regions, as receiver-local handles
    /// only `get_dimension_handle_set` and `get_range_bounds` take (see [`convey`]); `None`
    /// with the switch off or for a message sent without regions.
    /// (A boxed slice: every callback carries a `ReceiveInfo`, kept small.)
    pub sent_regions: Option<Box<[crate::handles::RegionHandle]>>,
}

/// A callback for one local federate (the `FederateAmbassador` services). Serializable: queued
/// TSO messages are part of a save.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[allow(missing_docs)]
pub enum Callback {
    DiscoverObjectInstance {
        object: ObjectInstanceHandle,
        class: ObjectClassHandle,
        name: String,
        producer: FederateHandle,
    },
    ReflectAttributeValues {
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
        info: ReceiveInfo,
    },
    ReceiveInteraction {
        class: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        tag: Vec<u8>,
        info: ReceiveInfo,
    },
    RemoveObjectInstance {
        object: ObjectInstanceHandle,
        tag: Vec<u8>,
        producer: Option<FederateHandle>,
        time: Option<Timestamp>,
        /// Order the deleting federate sent it in, and the order it is delivered in
        /// (time-stamp order for a timed delete from a regulating federate to a constrained one).
        sent_order: OrderType,
        received_order: OrderType,
        /// The deleting federate's retraction handle, when it sent the delete in time-stamp
        /// order.
        retraction: Option<MessageRetractionHandle>,
    },
    ProvideAttributeValueUpdate {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
        tag: Vec<u8>,
    },
    ObjectInstanceNameReservationSucceeded(String),
    ObjectInstanceNameReservationFailed(String),
    MultipleObjectInstanceNameReservationSucceeded(Vec<String>),
    MultipleObjectInstanceNameReservationFailed(Vec<String>),
    StartRegistrationForObjectClass(ObjectClassHandle),
    StopRegistrationForObjectClass(ObjectClassHandle),
    TurnInteractionsOn(InteractionClassHandle),
    TurnInteractionsOff(InteractionClassHandle),
    /// 6.17.
    AttributesInScope {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 6.18.
    AttributesOutOfScope {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 6.21.
    TurnUpdatesOnForObjectInstance {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 6.22.
    TurnUpdatesOffForObjectInstance {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 8.3.
    TimeRegulationEnabled(time::Time),
    /// 8.6.
    TimeConstrainedEnabled(time::Time),
    /// 8.13.
    TimeAdvanceGrant(time::Time),
    /// 4.12.
    SynchronizationPointRegistrationSucceeded(String),
    /// 4.12.
    SynchronizationPointRegistrationFailed(String, wire::SynchronizationPointFailureReason),
    /// 4.13.
    AnnounceSynchronizationPoint {
        label: String,
        tag: Vec<u8>,
    },
    /// 4.15.
    FederationSynchronized {
        label: String,
        failed: Vec<FederateHandle>,
    },
    /// 4.17 (with the save time of a timed save).
    InitiateFederateSave {
        label: String,
        time: Option<time::Time>,
    },
    /// 4.20.
    FederationSaved,
    /// 4.20.
    FederationNotSaved(save::SaveFailureReason),
    /// 4.23.
    FederationSaveStatusResponse(Vec<(FederateHandle, save::SaveStatus)>),
    /// 4.25.
    RequestFederationRestoreSucceeded(String),
    /// 4.25 (with why, which the standard's callback does not carry).
    RequestFederationRestoreFailed {
        label: String,
        reason: String,
    },
    /// 4.26.
    FederationRestoreBegun,
    /// 4.27: become the saved federate `name` / `handle` and restore its state.
    InitiateFederateRestore {
        label: String,
        name: String,
        handle: FederateHandle,
    },
    /// 4.29.
    FederationRestored,
    /// 4.29, with what failed in words (which the standard's callback does not carry): for
    /// `RtiUnableToRestore` the save file that could not be used, named.
    FederationNotRestored {
        reason: restore::RestoreFailureReason,
        detail: String,
    },
    /// 4.33: (handle before the restore, handle after it, status) per federate.
    FederationRestoreStatusResponse(Vec<(FederateHandle, FederateHandle, restore::RestoreStatus)>),
    /// 7.4.
    RequestAttributeOwnershipAssumption {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
        tag: Vec<u8>,
    },
    /// 7.5.
    RequestDivestitureConfirmation {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 7.7.
    AttributeOwnershipAcquisitionNotification {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
        tag: Vec<u8>,
    },
    /// 7.10.
    AttributeOwnershipUnavailable {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 7.11.
    RequestAttributeOwnershipRelease {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
        tag: Vec<u8>,
    },
    /// 7.16.
    ConfirmAttributeOwnershipAcquisitionCancellation {
        object: ObjectInstanceHandle,
        attrs: Vec<AttributeHandle>,
    },
    /// 7.18.
    InformAttributeOwnership {
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
        owner: FederateHandle,
    },
    /// 7.18.
    AttributeIsNotOwned {
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
    },
    /// 6.23: the sender retracted this message after it was delivered here (see
    /// [`retraction`]).
    RequestRetraction(MessageRetractionHandle),
    /// 7.18: the attribute is owned by the RTI (a MOM instance's, see [`mom`]). Last, so that
    /// the encoding of every other variant is unchanged; never part of a save (it is neither a
    /// data nor a time callback, the only ones a save holds or queues).
    AttributeIsOwnedByRti {
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
    },
}

impl Callback {
    /// Callbacks that carry federation data (held while the federate saves).
    pub fn is_data(&self) -> bool {
        matches!(
            self,
            Callback::DiscoverObjectInstance { .. }
                | Callback::ReflectAttributeValues { .. }
                | Callback::ReceiveInteraction { .. }
                | Callback::RemoveObjectInstance { .. }
                | Callback::ProvideAttributeValueUpdate { .. }
                | Callback::AttributesInScope { .. }
                | Callback::AttributesOutOfScope { .. }
                | Callback::RequestRetraction(_)
        )
    }

    /// Time-management callbacks: a grant (or an enable) comes behind the time-stamp-ordered
    /// messages its manager delivered before it, so it is held with them while the federate
    /// saves.
    pub fn is_time(&self) -> bool {
        matches!(
            self,
            Callback::TimeAdvanceGrant(_)
                | Callback::TimeRegulationEnabled(_)
                | Callback::TimeConstrainedEnabled(_)
        )
    }
}

/// What a completed blocking call returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// Joined with this handle.
    Joined(FederateHandle),
    /// Done (resign, destroy).
    Done,
}

/// Something the shell must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Multicast on the federation's data channel.
    SendData {
        /// Reliable (sequenced) or best effort.
        reliable: bool,
        /// Its number in this LRC's reliable stream (reliable messages): the transport must
        /// send it under exactly this number (see [`stream_numbering`]).
        seq: Option<u64>,
        /// Encoded [`DataMsg`].
        bytes: Vec<u8>,
        /// What it is about, for the shell's per-class counters (updates and interactions).
        class: Option<DataClass>,
        /// May wait (at most the transport's batch delay, 1 ms) for the next message of this
        /// LRC's stream and leave in its datagram: a regulating federate's timestamp-order
        /// update or interaction, which a constrained receiver cannot deliver before the
        /// sender's next time message anyway, so the time-advance request that usually follows
        /// it carries it (one datagram a step instead of two in a lockstep loop). A receiver
        /// that is not constrained gets it that much later at worst. Only when two or more
        /// other LRCs receive it (see `send_data`).
        hold: bool,
    },
    /// Multicast a best-effort message with DDM regions on the groups of the grid cells
    /// `cells` (see [`cell_route`]; the transport sends it to the default group when they are
    /// too many). Updates whose every attribute has update regions, and interactions sent
    /// with regions of a class with dimensions; best effort, or reliable (`seq`): then it takes
    /// its place in this LRC's reliable stream, which the transport spreads over the default
    /// group and the cell groups with chained positions (`docs/DDM.md`).
    SendToCells {
        /// Its number in this LRC's reliable stream (see [`Action::SendData`]); `None`: best
        /// effort.
        seq: Option<u64>,
        /// Encoded [`DataMsg`].
        bytes: Vec<u8>,
        /// Cell keys ([`cell_route::cell_key`]).
        cells: Vec<u32>,
        /// What it is about, for the shell's per-class counters.
        class: Option<DataClass>,
    },
    /// The cells this LRC's subscriptions want to hear changed: the shell makes the transport
    /// join their groups and leave the others (see [`cell_route`]).
    SetCells {
        /// Cell keys ([`cell_route::cell_key`]), sorted.
        cells: Vec<u32>,
    },
    /// Multicast an encoded [`DataMsg::Time`] reliably and at once (never held for a batch: a
    /// time message is what the other LRCs wait for).
    SendTime {
        /// Its number in this LRC's reliable stream (see [`Action::SendData`]).
        seq: u64,
        /// Encoded [`DataMsg::Time`].
        bytes: Vec<u8>,
    },
    /// Send an encoded [`Envelope`] to one LRC over QUIC. With `causal`, the receiver must
    /// release it only after this LRC's data sent before it (state transfer needs this).
    SendControl {
        /// Destination.
        to: Node,
        /// Ordered after this LRC's data.
        causal: bool,
        /// Bytes.
        bytes: Vec<u8>,
    },
    /// Deliver a callback to a local federate.
    Callback {
        /// Federate.
        federate: FederateHandle,
        /// What.
        callback: Callback,
    },
    /// A blocking call finished.
    Complete {
        /// Which.
        ticket: Ticket,
        /// Result.
        result: Result<Completion, RtiError>,
    },
    /// A federate was resigned because its LRC was lost (for the log and MOM).
    FederateLost {
        /// Handle.
        federate: FederateHandle,
        /// Its name.
        name: String,
    },
    /// The federation execution was destroyed: close the channel and drop this core.
    Destroyed,
    /// This LRC is no longer part of the federation (see `eviction`): tell every local
    /// federate `connection_lost(reason)`, then close the channel and drop this core.
    ConnectionLost {
        /// The fault description.
        reason: String,
    },
    /// Read the save file of local federate `federate` for the restore in progress (saved
    /// under `name`) and hand it to [`FederationCore::restore_loaded`].
    LoadRestore {
        /// Federate (its handle now).
        federate: FederateHandle,
        /// Save label.
        label: String,
        /// Its name in the save.
        name: String,
    },
    /// A restore gave local federates their saved handles: (old, new), applied all at once.
    Rehandle(Vec<(FederateHandle, FederateHandle)>),
    /// Write the RTI's state of local federate `federate` for the save in progress (see
    /// `hlamesh_lrc::save_file`), then call [`FederationCore::save_written`].
    WriteSave {
        /// Federate.
        federate: FederateHandle,
        /// Its state.
        state: Box<save::SavedFederateState>,
    },
}

/// The class a data message is about: an update's instance's registered class or an
/// interaction's class. Carried beside the encoded bytes so that no shell reads the wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataClass {
    /// An attribute update of an instance of this class.
    Object(ObjectClassHandle),
    /// An interaction of this class.
    Interaction(InteractionClassHandle),
}

/// A data message to multicast, as the shell's fast path takes it
/// ([`FederationCore::poll_send_data`]; the fields of [`Action::SendData`]).
#[derive(Debug)]
pub struct OutgoingData {
    /// Reliable (sequenced) or best effort.
    pub reliable: bool,
    /// Its number in this LRC's reliable stream (reliable messages).
    pub seq: Option<u64>,
    /// Encoded data message.
    pub bytes: Vec<u8>,
    /// What it is about.
    pub class: Option<DataClass>,
    /// May wait for the next message of this LRC's stream.
    pub hold: bool,
}

/// A federate hosted by this LRC.
#[derive(Debug, Clone)]
pub struct LocalFederate {
    /// Name.
    pub name: String,
    /// Declarations.
    pub decl: Declarations,
    /// Instances it knows and the class it knows each as.
    pub known: BTreeMap<ObjectInstanceHandle, ObjectClassHandle>,
    /// Next instance counter.
    pub next_counter: u32,
    /// Automatic resign action.
    pub auto_resign: ResignAction,
    /// Advisory switches and what the advisories last told it.
    pub advice: advisory::Advice,
    /// Order types it chose instead of the FOM's (8.23, 8.24).
    pub orders: order_type::OrderOverrides,
}

/// A request sent to the coordinator and not yet answered.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) body: Request,
    pub(crate) ticket: Option<Ticket>,
    pub(crate) multiple: bool,
    pub(crate) sent_at: u64,
}

/// The core of one federation execution on one LRC. See the module docs.
#[derive(Debug)]
pub struct FederationCore {
    pub(crate) name: String,
    pub(crate) me: Node,
    pub(crate) now: u64,
    pub(crate) fdd: Option<Arc<Fdd>>,
    pub(crate) modules: Vec<(String, String)>,
    /// Joining, replaying the admission log, member or evicted (see [`Phase`]).
    pub(crate) phase: Phase,
    pub(crate) view: View,
    pub(crate) suspected: BTreeSet<Node>,
    pub(crate) removed: BTreeSet<Node>,
    /// Nodes that left ([`Decision::NodeLeft`]) and have not joined again: their channel
    /// closing is no loss, and they are not barred like removed ones.
    pub(crate) left: BTreeSet<Node>,
    /// This LRC coordinated and decided its own departure: (request id, log position of the
    /// decision), until every remaining member acknowledged it.
    pub(crate) departing: Option<(u64, u64)>,
    /// Remote resignations waiting for their LRC's last data (see `resignation`).
    pub(crate) resign_gate: Vec<resignation::Gated>,
    /// Removed LRCs told so since they were last heard from, with the view they were told (see
    /// `eviction`: their answer is judged against that view).
    pub(crate) evicted_told: BTreeMap<Node, Vec<Node>>,
    /// LRCs that told this one it is not in their view, which this LRC never admitted nor
    /// removed (see `eviction`): members of another view, whose join requests still in flight
    /// are not answered (they would admit them a second time).
    pub(crate) foreign: BTreeSet<Node>,
    pub(crate) current_coordinator: Option<Node>,
    pub(crate) recovery: Option<coordinator::Recovery>,
    pub(crate) reports: BTreeMap<Node, u64>,
    /// The Welcome that admitted this LRC, measured (`None`: it created the federation).
    pub(crate) welcome_size: Option<compaction::WelcomeSize>,
    /// When the coordinator folds: (tail length, decisions kept behind the fold point).
    pub(crate) fold_thresholds: (u64, u64),
    /// Each member's settled request mark from its last report (see `compaction`).
    pub(crate) settled_marks: BTreeMap<Node, u64>,
    pub(crate) queued: Vec<(Node, u64, Request, u32)>,
    /// Requests this coordinator refused, by request, with the refusal (see `coordinator`).
    pub(crate) refused: BTreeMap<(Node, u64), wire::Reply>,
    pub(crate) held: Vec<coordinator::HeldReply>,
    pub(crate) unadmitted: BTreeSet<Node>,
    pub(crate) gone: BTreeSet<Node>,
    pub(crate) probed: BTreeSet<Node>,
    /// When the coordinator last re-sent decisions to members holding up a reply.
    pub(crate) last_catch_up: u64,
    /// When this member last reported its progress to the coordinator.
    pub(crate) last_progress_report: u64,
    pub(crate) welcomed: BTreeSet<Node>,
    pub(crate) auto_resign: BTreeMap<FederateHandle, ResignAction>,
    pub(crate) resigned_with: BTreeMap<FederateHandle, ResignAction>,
    pub(crate) pending: BTreeMap<u64, Pending>,
    pub(crate) next_req: u64,
    pub(crate) next_ticket: u64,
    pub(crate) locals: BTreeMap<FederateHandle, LocalFederate>,
    pub(crate) objects: BTreeMap<ObjectInstanceHandle, Instance>,
    pub(crate) interest: BTreeMap<FederateHandle, RemoteInterest>,
    /// Whether any subscription in `interest` carries a rate (see
    /// `update_rate::FederationCore::rates_in_use`), kept with it.
    pub(crate) rated_interest: bool,
    pub(crate) streams: BTreeMap<Node, Stream>,
    pub(crate) channel_peers: BTreeSet<Node>,
    /// The last reliable number of this LRC's data stream (the transport's number: see
    /// [`stream_numbering`]).
    pub(crate) data_hw: u64,
    /// How the channel numbers reliable messages.
    pub(crate) numbering: stream_numbering::StreamNumbering,
    /// Scratch list of the local federates a received message was delivered to (see
    /// `apply_data`), kept to spare an allocation per message.
    pub(crate) served: Vec<FederateHandle>,
    pub(crate) time: time::TimeState,
    /// Retraction handles issued, deliveries and timed deletes that can still be retracted
    /// (see [`retraction`]).
    pub(crate) retraction: retraction::Retractions,
    pub(crate) sync: sync_point::SyncPoints,
    /// The save in progress and this LRC's bookkeeping around it (see [`save`]).
    pub(crate) save: save::SaveState,
    /// The restore in progress, this LRC's bookkeeping around it and the epoch (see
    /// [`restore`]).
    pub(crate) restore: restore::RestoreState,
    /// Ownership negotiations and hand-overs (see [`ownership`]).
    pub(crate) ownership: ownership::OwnershipState,
    pub(crate) actions: VecDeque<Action>,
    /// Time messages received from other LRCs (see [`Self::time_messages_received`]).
    pub(crate) time_messages_in: u64,
    /// The update-rate reductions and the values they hold (see [`update_rate`]).
    pub(crate) rates: update_rate::UpdateRates,
    /// The Management Object Model's state: counters, report periods, handles (see [`mom`]).
    pub(crate) mom: mom::MomState,
    /// DDM regions, associations and region subscriptions (see [`regions`]).
    pub(crate) regions: regions::RegionState,
    /// Each local federate's conveyed region handles (see [`convey`]).
    pub(crate) conveyed: BTreeMap<FederateHandle, convey::Conveyed>,
    /// DDM cell routing: where best-effort updates and interactions with regions go, which cells
    /// this LRC hears (see
    /// [`cell_route`]).
    pub(crate) cells: cell_route::CellRouting,
    /// Moves within the cells held for the update that follows them (see [`move_fold`]).
    pub(crate) move_fold: move_fold::MoveFold,
}

fn parse_modules(modules: &[(String, String)]) -> Result<Fdd, RtiError> {
    let parsed: Result<Vec<FomModule>, RtiError> = modules
        .iter()
        .map(|(d, x)| FomModule::parse(d, x).map_err(|e| RtiError::from_fom(&e)))
        .collect();
    Fdd::load(&parsed?).map_err(|e| RtiError::from_fom(&e))
}

impl FederationCore {
    fn blank(name: &str, me: Node, now: u64, phase: Phase) -> Self {
        FederationCore {
            name: name.to_string(),
            me,
            now,
            fdd: None,
            modules: Vec::new(),
            phase,
            view: View::default(),
            suspected: BTreeSet::new(),
            removed: BTreeSet::new(),
            left: BTreeSet::new(),
            departing: None,
            resign_gate: Vec::new(),
            evicted_told: BTreeMap::new(),
            foreign: BTreeSet::new(),
            current_coordinator: None,
            recovery: None,
            reports: BTreeMap::new(),
            settled_marks: BTreeMap::new(),
            welcome_size: None,
            fold_thresholds: (compaction::FOLD_EVERY, compaction::KEEP),
            queued: Vec::new(),
            refused: BTreeMap::new(),
            held: Vec::new(),
            unadmitted: BTreeSet::new(),
            gone: BTreeSet::new(),
            probed: BTreeSet::new(),
            last_catch_up: 0,
            last_progress_report: 0,
            welcomed: BTreeSet::new(),
            auto_resign: BTreeMap::new(),
            resigned_with: BTreeMap::new(),
            pending: BTreeMap::new(),
            next_req: 1,
            next_ticket: 1,
            locals: BTreeMap::new(),
            objects: BTreeMap::new(),
            interest: BTreeMap::new(),
            rated_interest: false,
            streams: BTreeMap::new(),
            channel_peers: BTreeSet::new(),
            data_hw: 0,
            numbering: stream_numbering::StreamNumbering::default(),
            served: Vec::new(),
            time: time::TimeState::default(),
            retraction: Default::default(),
            sync: Default::default(),
            save: Default::default(),
            restore: Default::default(),
            ownership: Default::default(),
            actions: VecDeque::new(),
            time_messages_in: 0,
            rates: Default::default(),
            mom: Default::default(),
            regions: Default::default(),
            conveyed: BTreeMap::new(),
            cells: Default::default(),
            move_fold: Default::default(),
        }
    }

    /// Creates the federation execution on this LRC, which becomes its first member and its
    /// coordinator. `modules` are (designator, XML text) in merge order; they are handed to every
    /// joining LRC so all merge the same FDD.
    pub fn create(
        name: &str,
        me: Node,
        now: u64,
        modules: Vec<(String, String)>,
    ) -> Result<Self, RtiError> {
        let fdd = parse_modules(&modules)?;
        let mut c = Self::blank(name, me, now, Phase::Member);
        c.fdd = Some(Arc::new(fdd));
        c.modules = modules;
        c.apply_decision(Decision::NodeAdded(me));
        c.current_coordinator = Some(me);
        Ok(c)
    }

    /// A core for a federation this LRC is joining; `candidates` are the LRCs that announce the
    /// federation (the coordinator is among them). Call [`Self::join`] next.
    pub fn joining(name: &str, me: Node, now: u64, candidates: Vec<Node>) -> Self {
        Self::blank(
            name,
            me,
            now,
            Phase::Joining {
                candidates,
                fetchers: Vec::new(),
            },
        )
    }

    /// Federation execution name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This LRC.
    pub fn node(&self) -> Node {
        self.me
    }

    /// The merged FDD, once admitted.
    pub fn fdd(&self) -> Option<&Arc<Fdd>> {
        self.fdd.as_ref()
    }

    /// The replicated view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// When this LRC, as coordinator, folds the log: once `every` decisions are unfolded,
    /// keeping `keep` acknowledged ones verbatim (defaults [`compaction::FOLD_EVERY`] and
    /// [`compaction::KEEP`]; simulators fold often to exercise it).
    pub fn set_fold_thresholds(&mut self, every: u64, keep: u64) {
        self.fold_thresholds = (every.max(2), keep);
    }

    /// The size of the Welcome that admitted this LRC (`None` if it created the federation):
    /// bounded by the live state, not by the federation's history (see [`compaction`]).
    pub fn welcome_size(&self) -> Option<compaction::WelcomeSize> {
        self.welcome_size
    }

    /// Whether this LRC was admitted: a member, or (briefly, until the shell drops the core) one
    /// the others evicted (see [`Phase`]).
    pub fn is_admitted(&self) -> bool {
        self.phase.is_admitted()
    }

    /// Where this LRC stands in the federation: joining, member or evicted.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The LRC this one believes coordinates.
    pub fn coordinator(&self) -> Option<Node> {
        self.view
            .nodes
            .iter()
            .copied()
            .find(|n| !self.suspected.contains(n))
    }

    /// Whether this LRC follows a coordinator other than itself that comes before `n` in the
    /// view: trusting `n` again then changes no LRC's choice of coordinator.
    fn follows_one_before(&self, n: Node) -> bool {
        let Some(c) = self.coordinator() else {
            return false;
        };
        let at = |x: Node| self.view.nodes.iter().position(|m| *m == x);
        c != self.me && at(c) < at(n)
    }

    /// Whether `n` comes before the coordinator this LRC sees (itself included) in the view.
    fn comes_before_coordinator(&self, n: Node) -> bool {
        let at = |x: Node| self.view.nodes.iter().position(|m| *m == x);
        match (at(n), self.coordinator().and_then(at)) {
            (Some(i), Some(c)) => i < c,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// Whether this LRC is the coordinator and not recovering.
    pub fn is_active_coordinator(&self) -> bool {
        self.phase.is_admitted() && self.coordinator() == Some(self.me) && self.recovery.is_none()
    }

    /// Federates hosted here.
    pub fn local_federates(&self) -> impl Iterator<Item = (&FederateHandle, &LocalFederate)> {
        self.locals.iter()
    }

    /// Whether `n`'s data channel is known to be open towards this LRC.
    pub fn has_channel_peer(&self, n: Node) -> bool {
        self.channel_peers.contains(&n)
    }

    /// Whether `f` is a federate hosted here.
    pub fn is_local(&self, f: FederateHandle) -> bool {
        self.locals.contains_key(&f)
    }

    /// All instances this LRC knows of.
    pub fn instances(&self) -> &BTreeMap<ObjectInstanceHandle, Instance> {
        &self.objects
    }

    /// Next queued action.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.before_poll();
        self.actions.pop_front()
    }

    /// The next queued action if it is a data message to send: (reliable, encoded message,
    /// hold; see [`Action::SendData`]). The shell's fast path after an update; anything else
    /// stays for [`Self::poll_action`].
    pub fn poll_send_data(&mut self) -> Option<OutgoingData> {
        self.before_poll();
        if !matches!(self.actions.front(), Some(Action::SendData { .. })) {
            return None;
        }
        match self.actions.pop_front() {
            Some(Action::SendData {
                reliable,
                seq,
                bytes,
                class,
                hold,
            }) => Some(OutgoingData {
                reliable,
                seq,
                bytes,
                class,
                hold,
            }),
            _ => None,
        }
    }

    /// Time-management messages (null messages) received from other LRCs so far, in the data
    /// stream and addressed (for the shell's counters).
    pub fn time_messages_received(&self) -> u64 {
        self.time_messages_in
    }

    /// Whether nothing is queued (after [`Self::poll_send_data`] ran the pre-steps, the same
    /// as [`Self::poll_action`] returning `None`).
    pub fn actions_idle(&self) -> bool {
        self.actions.is_empty()
    }

    /// Work every poll does first: a deferred save abort, the save capture at the cut.
    fn before_poll(&mut self) {
        self.abort_save_deferred();
        self.capture_at_cut();
        self.mom_flush();
    }

    /// Moves the core's clock to `now` (µs, never back) before an API call: the update-rate
    /// reductions time updates by it (see [`update_rate`]).
    pub fn set_clock(&mut self, now: u64) {
        self.now = self.now.max(now);
    }

    /// Feeds one event.
    pub fn handle(&mut self, now: u64, ev: Event<'_>) {
        self.now = now;
        if self.phase.connection_lost().is_some() {
            return;
        }
        match ev {
            Event::Data { from, seq, payload } => match DataMsg::decode(payload) {
                Ok(msg) => {
                    if matches!(msg, DataMsg::Time { .. }) {
                        self.time_messages_in += 1;
                    }
                    self.on_data(from, seq, msg)
                }
                Err(e) => {
                    tracing::debug!(federation = %self.name, "dropped data from {from:x}: {e}")
                }
            },
            Event::Control { from, msg } => {
                if matches!(msg, ControlMsg::Time { .. }) {
                    self.time_messages_in += 1;
                }
                if self.removed.contains(&from) && !matches!(msg, ControlMsg::Evicted { .. }) {
                    if matches!(msg, ControlMsg::Request { .. }) {
                        // Each request is answered (a requester retries at most once per
                        // retry period): a joiner the log removed gives up its join on it,
                        // and a new call of the same LRC must learn it too (see `eviction`).
                        self.evicted_told.remove(&from);
                    }
                    self.tell_evicted(from);
                    return;
                }
                self.on_control(from, msg)
            }
            Event::ChannelPeer { node, first_seq } => {
                self.channel_peers.insert(node);
                self.evicted_told.remove(&node);
                if !self.phase.is_admitted() || !self.view.nodes.contains(&node) {
                    // A joiner's peer that was lost came back (its connection dropped and
                    // came up again): it is not gone, so not suspected once a Welcome names
                    // it, and it may be a candidate again. Likewise a member's joiner that
                    // came back: not suspected once admitted (simulator seed 281: its
                    // coordinator admitted it suspected, so the members' acknowledgements of
                    // its admission were not waited for).
                    self.gone.remove(&node);
                } else if self.suspected.contains(&node) && self.follows_one_before(node) {
                    // A member this LRC lost and has back, while the coordinator it follows
                    // kept it: trusted again, or this LRC alone would pass it over when that
                    // coordinator dies and take over beside it (simulator seed 29). Not when it
                    // comes before that coordinator in the view: trusting it would change whom
                    // this LRC follows while the others moved on (swarm seed 571), and not on a
                    // coordinator, which waits for no suspected member's log while it recovers.
                    self.suspected.remove(&node);
                    self.gone.remove(&node);
                }
                if self.removed.contains(&node) {
                    self.tell_evicted(node);
                }
                self.tell_member(node);
                self.on_stream_start(node, first_seq);
                self.request_snapshots();
                self.time_resend_queries(node);
            }
            Event::PeerGone(n) => self.on_peer_gone(n),
            Event::FellBehind { from, last } => self.on_fell_behind(from, last),
            Event::Skipped { from, through } => self.on_skipped(from, through),
            Event::Tick => {
                self.release_resignations(None);
                self.retry_requests();
                self.mom_tick(now);
            }
        }
        self.pump_ownership();
    }

    /// The FDD, shared, or `FederateNotExecutionMember` while this LRC is not a member yet (the
    /// API's support services look names and handles up in it).
    pub fn fdd_ref(&self) -> Result<Arc<Fdd>, RtiError> {
        self.fdd.clone().ok_or_else(|| {
            RtiError::FederateNotExecutionMember(format!(
                "federation {}: this LRC is not a member yet",
                self.name
            ))
        })
    }

    pub(crate) fn send_control(&mut self, to: Node, causal: bool, msg: ControlMsg) {
        // A held move leaves before anything that follows its commit (`move_fold`).
        self.flush_held_moves();
        let bytes = Envelope {
            federation: self.name.clone(),
            msg,
        }
        .encode();
        self.actions
            .push_back(Action::SendControl { to, causal, bytes });
    }

    pub(crate) fn callback(&mut self, federate: FederateHandle, callback: Callback) {
        if callback.is_data() {
            self.note_delivered(federate, &callback);
            self.mom_note_delivered(federate, &callback);
        } else if matches!(callback, Callback::TimeAdvanceGrant(_)) {
            self.mom_time_state(federate, false);
        }
        // A federate saving its own state gets no new data until the save ends: what arrives
        // meanwhile is part of the saved state (undelivered) and is delivered afterwards. Time
        // callbacks too (an advance asked for before the save may be granted during it): a
        // grant that went ahead would reach the federate before the messages it covers
        // (`rti_sim`'s `regression_time_an_enable_during_a_save_stays_behind_the_data_held`),
        // and the saved state would lack it (restored, the federate would wait for it).
        // Likewise a federate restoring its state after the commit: the restored run's data
        // that other LRCs send once they ended their restore comes after `federation_restored`
        // and after the data the save held (the demo's viewer saw update 26 before the held
        // 25 when a car's LRC ended its restore first).
        let callback =
            if (callback.is_data() || callback.is_time()) && self.locals.contains_key(&federate) {
                match self
                    .save
                    .hold(federate, callback)
                    .and_then(|cb| self.restore.hold(federate, cb))
                {
                    None => return,
                    Some(callback) => callback,
                }
            } else {
                callback
            };
        // The MOM's switches (see `mom`): the producing federate as the receiver's Convey
        // Producing Federate switch has it; a discovery noted for Auto-Provide.
        let callback = self.mom_conveyed(federate, callback);
        // The MOM's service reporting (see `mom`): one map lookup while nobody reports.
        if !self.mom.service_reporting.is_empty() {
            self.mom_callback_invoked(federate, &callback);
        }
        self.actions
            .push_back(Action::Callback { federate, callback });
    }

    pub(crate) fn local(&self, f: FederateHandle) -> Result<&LocalFederate, RtiError> {
        self.locals.get(&f).ok_or_else(|| {
            RtiError::FederateNotExecutionMember(format!(
                "federate {f} is not joined to federation {} on this LRC",
                self.name
            ))
        })
    }

    pub(crate) fn local_mut(&mut self, f: FederateHandle) -> Result<&mut LocalFederate, RtiError> {
        let name = self.name.clone();
        self.locals.get_mut(&f).ok_or_else(|| {
            RtiError::FederateNotExecutionMember(format!(
                "federate {f} is not joined to federation {name} on this LRC"
            ))
        })
    }

    fn new_ticket(&mut self) -> Ticket {
        let t = Ticket(self.next_ticket);
        self.next_ticket += 1;
        t
    }

    /// Joins a federate (blocking call: completes with [`Completion::Joined`]).
    pub fn join(&mut self, name: Option<String>, federate_type: &str) -> Ticket {
        self.join_with_modules(name, federate_type, Vec::new())
    }

    /// Joins a local federate that brings additional FOM modules (designator, XML): the
    /// coordinator merges them after the federation's, or refuses the join with the merge
    /// error (`InconsistentFdd`, `ErrorReadingFdd`). Modules already in the federation (same
    /// text) are skipped.
    pub fn join_with_modules(
        &mut self,
        name: Option<String>,
        federate_type: &str,
        modules: Vec<(String, String)>,
    ) -> Ticket {
        let t = self.new_ticket();
        if let Some(n) = &name
            && n.is_empty()
        {
            {
                self.actions.push_back(Action::Complete {
                    ticket: t,
                    result: Err(RtiError::FederateNameAlreadyInUse(format!(
                        "federation {}: empty federate name",
                        self.name
                    ))),
                });
                return t;
            }
        }
        self.request(
            Request::Join {
                name,
                federate_type: federate_type.to_string(),
                modules,
            },
            Some(t),
            false,
        );
        t
    }

    /// Resigns a local federate (blocking call).
    pub fn resign(
        &mut self,
        federate: FederateHandle,
        action: ResignAction,
    ) -> Result<Ticket, RtiError> {
        self.local(federate)?;
        self.check_resign(federate, action)?;
        // Its updates end here in its data stream (see `ownership`).
        self.hand_over_all(federate);
        self.time_before_resign(federate);
        let t = self.new_ticket();
        self.request(
            Request::Resign(federate, action, self.data_hw),
            Some(t),
            false,
        );
        Ok(t)
    }

    /// Destroys the federation execution (blocking call); fails while federates are joined.
    pub fn destroy(&mut self) -> Ticket {
        let t = self.new_ticket();
        self.request(Request::Destroy, Some(t), false);
        t
    }

    /// Whether no federate of this LRC is joined, joining or resigning here, and no other
    /// request of it waits for the coordinator: what [`Self::leave`] needs.
    pub fn hosts_nobody(&self) -> bool {
        self.locals.is_empty()
            && self
                .pending
                .values()
                .all(|p| matches!(p.body, Request::Leave))
    }

    /// This LRC leaves the federation (`disconnect` after its federates resigned): the
    /// coordinator decides [`wire::Decision::NodeLeft`], and the ticket completes once every
    /// other member applied it (the shell then closes the channel: the others see it leave,
    /// not lose it). `FederateIsExecutionMember` while a federate of this LRC is joined.
    pub fn leave(&mut self) -> Result<Ticket, RtiError> {
        if !self.hosts_nobody() {
            return Err(RtiError::FederateIsExecutionMember(format!(
                "federation {}: a federate of this LRC is joined or joining",
                self.name
            )));
        }
        let t = self.new_ticket();
        self.request(Request::Leave, Some(t), false);
        Ok(t)
    }

    /// Sets a local federate's automatic resign action.
    pub fn set_automatic_resign_action(
        &mut self,
        federate: FederateHandle,
        action: ResignAction,
    ) -> Result<(), RtiError> {
        self.local_mut(federate)?.auto_resign = action;
        // Every LRC applies it if this LRC is lost, so every LRC must know it.
        self.send_data(
            true,
            DataMsg::Declare {
                federate,
                decl: wire::Declaration::AutomaticResign(action),
            },
        );
        Ok(())
    }

    /// The automatic resign action from the FDD switch (the standard's default otherwise).
    pub(crate) fn default_resign_action(&self) -> ResignAction {
        self.fdd
            .as_ref()
            .and_then(|f| f.switch("automaticResignAction"))
            .and_then(ResignAction::from_switch)
            .unwrap_or(ResignAction::CancelThenDeleteThenDivest)
    }
}

/// The key after `k` in `m`. Loops on the per-message path walk a map by key with this when
/// their body needs the core mutably, instead of collecting the keys first.
pub(crate) fn key_after<K: Ord + Copy, V>(m: &BTreeMap<K, V>, k: K) -> Option<K> {
    m.range((std::ops::Bound::Excluded(k), std::ops::Bound::Unbounded))
        .next()
        .map(|(k, _)| *k)
}
