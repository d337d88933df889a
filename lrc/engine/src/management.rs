//! Management commands (command pattern): what the RTI or the application asks the engine to do
//! outside the data flow — time grants, sync-point news, save and restore, stop.
//!
//! They arrive from the HLA thread (callbacks) or from application threads on an unbounded
//! channel — sending never blocks, and the protocol bounds how many can be outstanding (one grant
//! per request, a handful per sync point or save) — and the engine thread executes them at the
//! end of a frame (or while it waits for a grant or a synchronization), so the HLA thread never
//! waits on a save, a restore or the simulation.

use hlamesh_lrc::ambassador::Time;
use hlamesh_lrc::handles::FederateHandle;

/// One management command.
#[derive(Debug, Clone, PartialEq)]
pub enum Management {
    /// Time regulation is on at this time.
    RegulationEnabled(Time),
    /// Time constraint is on at this time.
    ConstrainedEnabled(Time),
    /// The pending time advance is granted.
    TimeGrant(Time),
    /// A synchronization point this engine registered is registered.
    SyncRegistered(String),
    /// Registering a synchronization point failed (label, reason).
    SyncRegistrationFailed(String, String),
    /// A synchronization point was announced (label, tag).
    SyncAnnounced(String, Vec<u8>),
    /// The federation is synchronized at a point (label, federates that achieved it
    /// unsuccessfully).
    FederationSynchronized(String, Vec<FederateHandle>),
    /// The RTI asks this federate to save its state (label, at this time or now).
    InitiateSave(String, Option<Time>),
    /// The federation save finished (`Ok`) or failed with a reason.
    FederationSaved(Result<(), String>),
    /// A federation restore began (every federate stops advancing).
    RestoreBegun,
    /// The RTI asks this federate to restore its state saved under the label.
    InitiateRestore(String),
    /// The federation restore finished (`Ok`) or failed with a reason.
    FederationRestored(Result<(), String>),
    /// Application: save the engine's own state (mirror + application) under this label,
    /// without the RTI (see [`super::snapshot`]).
    LocalSave(String),
    /// Application: restore the engine state saved locally under this label.
    LocalRestore(String),
    /// Application (commander): ask the federation to save under this label at this time.
    RequestFederationSave(String, Option<Time>),
    /// Application (commander): ask the federation to restore the save under this label.
    RequestFederationRestore(String),
    /// Application: leave the run at the end of this frame.
    Stop,
    /// The LRC lost its connection.
    ConnectionLost(String),
}
