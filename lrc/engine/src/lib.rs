//! # hlamesh-engine
//!
//! The federate engine: the framework simulators are written on (`docs/DESIGN.md`, "The
//! federate engine"). It is an application of the RTI API (`hlamesh-lrc`), not part of the RTI,
//! so it is a crate above it: nothing in the LRC depends on it.
//!
//! Two threads per federate. The **HLA thread** is the LRC's callback thread: [`hla_side`]
//! decodes every callback into a typed event on the bounded [`reconstruction::HlaQueue`], or
//! into a [`management::Management`] command, and never waits on the simulation. The **engine
//! thread** is the one that calls [`Engine::run`]: it runs the state machine ([`state`]) and the
//! frame loop —
//!
//! 1. start of frame: apply the data swapped out at the end of the last frame to the mirrored
//!    objects, notifying the application once per change ([`Simulation::on_change`]); then apply
//!    the application's own asynchronous commands ([`Simulation::on_command`]);
//! 2. compute ([`Simulation::on_frame`]);
//! 3. end of frame: execute management commands (save, restore, stop), request the next time
//!    step (TAR for [`TimeScheme::Periodic`], NER to the next event for
//!    [`TimeScheme::EventDriven`]), wait for the grant, pace against the wall clock, and swap
//!    the HLA queue into the engine queue.
//!
//! States: Begin → JoinSynchronization → Load (3 frames) → Run → LeaveSynchronization → End,
//! any error → Fail(cause). The [`Role::Commander`] engine destroys a stale federation, creates
//! it, waits for the expected federates to join and registers the synchronization points
//! (`ReadyToLoad`; `ReadyToRun`, whose tag carries the scenario — the commander *shares* it in
//! load frame 0, the others *read* it in frame 1, everyone *loads* it in frame 2;
//! `ReadyToResign`); [`Role::Slave`] engines join, wait for the announcements and achieve them.
//! Everyone enters Run when `ReadyToRun` is synchronized. A slave that cannot join, or fails
//! while loading, ends in Fail and resigns; federation-wide points count it as failed, so the
//! others go on. An engine joining after `ReadyToLoad` synchronized waits for an announcement
//! that never comes and fails after `sync_timeout` (joining a running exercise is not part of
//! this protocol).
//!
//! Save/restore: [`EngineHandle::save_local`] / [`EngineHandle::restore_local`] save the engine's
//! own state (frame, time, mirror, application bytes from [`Simulation::on_save`]) with
//! [`snapshot`] at the end of a frame; the RTI-driven federation save/restore commands use the
//! same hooks and format in the RTI's per-federate state directory.

#![forbid(unsafe_code)]

pub mod hla_side;
pub mod management;
pub mod reconstruction;
pub mod scheme;
pub mod snapshot;
pub mod state;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use hlamesh_timesync::pacer::FramePacer;

use hla_side::{HlaCounters, HlaSide};
use hlamesh_lrc::ambassador::{CallbackModel, LogicalTimeInterval, RtiAmbassador, Time};
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::{
    AttributeHandle, InteractionClassHandle, ObjectInstanceHandle, ParameterHandle,
};
use hlamesh_lrc::node::Lrc;
use management::Management;
#[allow(unused_imports)]
use reconstruction::{Change, HlaEvent, HlaQueue, Mirror, QueueStats};
pub use scheme::{EventQueue, Pace, TimeScheme};
use snapshot::SnapshotHeader;
pub use state::{EngineState, StateMachine};

/// Prometheus metric names the engine records (labels `federation`, `federate`), through the
/// `metrics` facade: exported when the process installed a recorder (the LRC's `/metrics`),
/// free otherwise.
pub mod metric_names {
    /// Compute time of a Run frame (start of frame to the time advance request), seconds.
    pub const FRAME_DURATION: &str = "hlamesh_engine_frame_duration_seconds";
    /// Run frames.
    pub const FRAMES: &str = "hlamesh_engine_frames_total";
    /// Periodic frames that finished after the next one was due.
    pub const OVERRUNS: &str = "hlamesh_engine_frame_overruns_total";
    /// Events waiting in the HLA queue at the end of a frame.
    pub const QUEUE_DEPTH: &str = "hlamesh_engine_hla_queue_depth";
    /// Reflections merged into a pending one by the bounded HLA queue.
    pub const QUEUE_MERGED: &str = "hlamesh_engine_hla_queue_merged_total";
    /// Events dropped by the bounded HLA queue.
    pub const QUEUE_DROPPED: &str = "hlamesh_engine_hla_queue_dropped_total";
}

/// Synchronization point: every expected engine joined.
pub const READY_TO_LOAD: &str = "ReadyToLoad";
/// Synchronization point: the scenario is loaded everywhere (its tag is the scenario).
pub const READY_TO_RUN: &str = "ReadyToRun";
/// Synchronization point: every engine finished its run.
pub const READY_TO_RESIGN: &str = "ReadyToResign";

/// Why an engine stopped, or an application hook failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// An RTI service failed.
    #[error("{context}: {source}")]
    Rti {
        /// What the engine was doing.
        context: String,
        /// The RTI's exception.
        source: RtiError,
    },
    /// Something did not happen in time.
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(Duration, String),
    /// The application reported an error.
    #[error("application: {0}")]
    App(String),
    /// A save or restore failed.
    #[error("snapshot: {0}")]
    Snapshot(#[from] snapshot::SnapshotError),
    /// The LRC lost its connection.
    #[error("connection lost: {0}")]
    ConnectionLost(String),
    /// The federation refused a synchronization point.
    #[error("synchronization point {0}: {1}")]
    Sync(String, String),
}

fn rti_err(context: &str) -> impl FnOnce(RtiError) -> EngineError + '_ {
    move |source| EngineError::Rti {
        context: context.to_string(),
        source,
    }
}

/// The engine's role in the engine synchronization protocol.
#[derive(Debug, Clone)]
pub enum Role {
    /// (Re)creates the federation and drives the synchronization points.
    Commander {
        /// FOM modules (designator, XML text) to create the federation with.
        fom_modules: Vec<(String, String)>,
        /// Federate names to wait for before loading (at most `join_timeout`; missing ones are
        /// reported and the others go on).
        expected: Vec<String>,
    },
    /// Joins and follows the commander.
    Slave,
}

/// Everything an engine needs to know before it starts.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Federation execution name.
    pub federation: String,
    /// This federate's (unique) name.
    pub federate_name: String,
    /// Its type.
    pub federate_type: String,
    /// Commander or slave.
    pub role: Role,
    /// How logical time advances.
    pub scheme: TimeScheme,
    /// Regulating (may send time-stamped messages) with this lookahead; `None` = not regulating.
    pub lookahead: Option<f64>,
    /// Time-constrained (receives time-stamped messages in order, never runs ahead).
    pub constrained: bool,
    /// Capacity of the HLA queue (see [`reconstruction`]).
    pub queue_capacity: usize,
    /// Slaves: how long to retry joining; commander: how long to wait for expected federates.
    pub join_timeout: Duration,
    /// How long to wait for a synchronization step.
    pub sync_timeout: Duration,
    /// How long to wait for a time advance grant.
    pub grant_timeout: Duration,
    /// Where local saves go.
    pub state_dir: PathBuf,
    /// The LRC to use (`None`: the process-wide one, configured from `HLAMESH_*`).
    pub lrc: Option<Lrc>,
}

impl EngineConfig {
    /// Defaults: slave, periodic 30 Hz real time, regulating with one frame of lookahead and
    /// constrained, 65 536 queued events, 10 s join, 30 s sync and grant waits.
    pub fn new(federation: &str, federate_name: &str, federate_type: &str) -> Self {
        EngineConfig {
            federation: federation.to_string(),
            federate_name: federate_name.to_string(),
            federate_type: federate_type.to_string(),
            role: Role::Slave,
            scheme: TimeScheme::Periodic {
                hz: 30,
                pace: Pace::RealTime { scale: 1.0 },
            },
            lookahead: Some(1.0 / 30.0),
            constrained: true,
            queue_capacity: 65_536,
            join_timeout: Duration::from_secs(10),
            sync_timeout: Duration::from_secs(30),
            grant_timeout: Duration::from_secs(30),
            state_dir: std::env::temp_dir().join("hlamesh-engine"),
            lrc: None,
        }
    }
}

/// Counters an engine reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineStats {
    /// Frames run (load frames included).
    pub frames: u64,
    /// Frames run in Run.
    pub run_frames: u64,
    /// Time advance grants received.
    pub grants: u64,
    /// Periodic frames that finished after the next one was due.
    pub overruns: u64,
    /// The worst overrun, ns.
    pub worst_overrun_ns: u64,
    /// Attribute updates sent through [`Ctx`].
    pub updates_sent: u64,
    /// Interactions sent through [`Ctx`].
    pub interactions_sent: u64,
    /// Reflections applied to the mirror.
    pub reflections_applied: u64,
    /// Interactions applied.
    pub interactions_applied: u64,
    /// Application commands applied.
    pub commands_applied: u64,
    /// Saves written (label list).
    pub saves: Vec<String>,
    /// Restores applied (label list).
    pub restores: Vec<String>,
    /// Expected federates that never joined (commander).
    pub missing: Vec<String>,
    /// Logical time at the end.
    pub final_time: f64,
    /// Logical time at which Run started (regulation/constraint may start above 0).
    pub run_start_time: f64,
    /// Wall clock (ms since the Unix epoch) at which each state after Begin was entered
    /// (`history[i + 1]`).
    pub entered_unix_ms: Vec<f64>,
}

/// What [`Engine::run`] returns.
#[derive(Debug, Clone)]
pub struct EngineReport {
    /// Every state entered.
    pub history: Vec<EngineState>,
    /// The final state (End or Fail).
    pub state: EngineState,
    /// Counters.
    pub stats: EngineStats,
    /// What the HLA queue had to merge or drop.
    pub queue: QueueStats,
}

/// The engine's view for the application during a hook.
#[derive(Debug)]
pub struct Ctx<'a> {
    rti: &'a RtiAmbassador,
    mirror: &'a Mirror,
    time: f64,
    frame: u64,
    lookahead: f64,
    state: &'a EngineState,
    stats: &'a mut EngineStats,
    end_time: &'a mut Option<f64>,
    stop: &'a mut bool,
    pending: &'a mut VecDeque<Management>,
    queue: &'a HlaQueue,
    deferred: &'a mut Vec<Deferred>,
}

/// A send the RTI refused because a federation save was in progress; sent again once the
/// federation saved (the save was not yet known on the engine thread when the frame ran). Part
/// of the engine's snapshot: the frame that made it ran before the save, so after a restore of
/// that save it is sent again, once the federation restored.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Deferred {
    /// `update_attribute_values`: instance, values, tag.
    Update(
        ObjectInstanceHandle,
        Vec<(AttributeHandle, Vec<u8>)>,
        Vec<u8>,
    ),
    /// `send_interaction`: class, parameters, tag, time.
    Interaction(
        InteractionClassHandle,
        Vec<(ParameterHandle, Vec<u8>)>,
        Vec<u8>,
        Option<Time>,
    ),
}

impl Ctx<'_> {
    /// Queues a management command, executed at the end of this frame (e.g.
    /// [`Management::LocalSave`], [`Management::RequestFederationSave`]).
    pub fn management(&mut self, m: Management) {
        if m == Management::Stop {
            *self.stop = true;
        } else {
            self.pending.push_back(m);
        }
    }
    /// The RTI (for declarations, handles, registration).
    pub fn rti(&self) -> &RtiAmbassador {
        self.rti
    }
    /// The mirrored objects.
    pub fn mirror(&self) -> &Mirror {
        self.mirror
    }
    /// Current logical time.
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Frames run so far (this one excluded).
    pub fn frame(&self) -> u64 {
        self.frame
    }
    /// The engine state.
    pub fn state(&self) -> &EngineState {
        self.state
    }
    /// Counters so far.
    pub fn stats(&self) -> &EngineStats {
        self.stats
    }
    /// The HLA queue's counters now (what the HLA thread pushed, merged, dropped so far — it
    /// keeps going while this frame runs).
    pub fn queue_stats(&self) -> QueueStats {
        self.queue.stats()
    }
    /// The run ends when logical time reaches `t`.
    pub fn set_end_time(&mut self, t: f64) {
        *self.end_time = Some(t);
    }
    /// Leave the run at the end of this frame.
    pub fn stop(&mut self) {
        *self.stop = true;
    }
    /// The earliest time a time-stamped message may carry now.
    pub fn earliest_send_time(&self) -> f64 {
        self.time + self.lookahead
    }
    /// Sends attribute values in receive order.
    pub fn update(
        &mut self,
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: &[u8],
    ) -> Result<(), EngineError> {
        match self
            .rti
            .update_attribute_values(object, values.clone(), tag)
        {
            // Sent after the save; dropped by a restore (it belongs to the abandoned run).
            Err(RtiError::SaveInProgress(_) | RtiError::RestoreInProgress(_)) => {
                self.deferred
                    .push(Deferred::Update(object, values, tag.to_vec()));
                Ok(())
            }
            r => {
                r.map_err(rti_err("update attribute values"))?;
                self.stats.updates_sent += 1;
                Ok(())
            }
        }
    }
    /// Sends an interaction; time-stamped at `at` when given (at least
    /// [`Ctx::earliest_send_time`]).
    pub fn send_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        tag: &[u8],
        at: Option<f64>,
    ) -> Result<(), EngineError> {
        let at = match at {
            Some(t) => Some(
                Time::new(t.max(self.earliest_send_time()))
                    .ok_or_else(|| EngineError::App(format!("bad time {t}")))?,
            ),
            None => None,
        };
        let r = match at {
            Some(t) => self
                .rti
                .send_interaction_with_time(class, params.clone(), tag, t)
                .map(drop),
            None => self.rti.send_interaction(class, params.clone(), tag),
        };
        match r {
            Err(RtiError::SaveInProgress(_) | RtiError::RestoreInProgress(_)) => {
                self.deferred
                    .push(Deferred::Interaction(class, params, tag.to_vec(), at));
                Ok(())
            }
            r => {
                r.map_err(rti_err("send interaction"))?;
                self.stats.interactions_sent += 1;
                Ok(())
            }
        }
    }
}

/// What an application implements. Every hook runs on the engine thread.
#[allow(unused_variables)]
pub trait Simulation {
    /// Commands the application's other threads send through [`EngineHandle::command`].
    type Command: Send + 'static;

    /// After joining: publish, subscribe (these subscriptions are the per-class observers).
    fn on_join(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        Ok(())
    }
    /// Commander only: the scenario to share with every engine (the `ReadyToRun` tag).
    fn scenario(&mut self) -> Vec<u8> {
        Vec::new()
    }
    /// Load frame 2: load the shared scenario (register objects, initial state, end time).
    fn on_load(&mut self, ctx: &mut Ctx<'_>, scenario: &[u8]) -> Result<(), EngineError> {
        Ok(())
    }
    /// The observer: called once per applied change, at the start of a frame. Per-class
    /// observers: dispatch to a [`reconstruction::ClassObservers`] from here.
    fn on_change(&mut self, change: &Change<'_>) {}
    /// An application command, applied after the HLA data at the start of a frame.
    fn on_command(&mut self, ctx: &mut Ctx<'_>, cmd: Self::Command) -> Result<(), EngineError> {
        Ok(())
    }
    /// One frame of computation at `ctx.time()`.
    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError>;
    /// Event-driven scheme: the time of the next application event.
    fn next_event(&self) -> Option<f64> {
        None
    }
    /// Writes the application's state for a save.
    fn on_save(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        Ok(())
    }
    /// Reads back what [`Simulation::on_save`] wrote.
    fn on_restore(&mut self, r: &mut dyn std::io::Read) -> std::io::Result<()> {
        Ok(())
    }
    /// Management news the application may want to show (saves, restores, sync points).
    fn on_management(&mut self, m: &Management) {}
    /// Entering LeaveSynchronization.
    fn on_end(&mut self, ctx: &mut Ctx<'_>) {}
}

/// A cheap, cloneable handle to a running engine (any thread).
#[derive(Debug)]
pub struct EngineHandle<C> {
    mgmt: Sender<Management>,
    app: Sender<C>,
    state: Arc<Mutex<EngineState>>,
}

impl<C> Clone for EngineHandle<C> {
    fn clone(&self) -> Self {
        EngineHandle {
            mgmt: self.mgmt.clone(),
            app: self.app.clone(),
            state: self.state.clone(),
        }
    }
}

impl<C: Send + 'static> EngineHandle<C> {
    /// Queues an application command (applied at the start of the next frame).
    pub fn command(&self, c: C) {
        let _ = self.app.send(c);
    }
    /// Queues a management command.
    pub fn management(&self, m: Management) {
        let _ = self.mgmt.send(m);
    }
    /// Saves the engine's own state under `label` at the end of the current frame.
    pub fn save_local(&self, label: &str) {
        self.management(Management::LocalSave(label.to_string()));
    }
    /// Restores the state saved under `label` at the end of the current frame.
    pub fn restore_local(&self, label: &str) {
        self.management(Management::LocalRestore(label.to_string()));
    }
    /// Leaves the run at the end of the current frame.
    pub fn stop(&self) {
        self.management(Management::Stop);
    }
    /// The current engine state.
    pub fn state(&self) -> EngineState {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Engine-side record of management news (absorbed as commands arrive).
#[derive(Debug, Default)]
struct News {
    regulation: Option<f64>,
    constrained: Option<f64>,
    granted: Option<f64>,
    registered: HashSet<String>,
    registration_failed: HashMap<String, String>,
    announced: HashMap<String, Vec<u8>>,
    synchronized: HashSet<String>,
    lost: Option<String>,
    stop: bool,
    saved: Option<Result<(), String>>,
    restored: Option<Result<(), String>>,
    pending: VecDeque<Management>,
}

/// One federate's engine. See the module docs.
pub struct Engine<S: Simulation> {
    cfg: EngineConfig,
    sim: S,
    fsm: StateMachine,
    shared_state: Arc<Mutex<EngineState>>,
    mgmt_tx: Sender<Management>,
    mgmt_rx: Receiver<Management>,
    app_tx: Sender<S::Command>,
    app_rx: Receiver<S::Command>,
    queue: Arc<HlaQueue>,
    counters: Arc<HlaCounters>,
    engine_queue: VecDeque<HlaEvent>,
    mirror: Mirror,
    news: News,
    stats: EngineStats,
    time: f64,
    frame: u64,
    end_time: Option<f64>,
    rewound: bool,
    /// The frame at `time` has run (see [`snapshot::SnapshotHeader::frame_done`]).
    frame_done: bool,
    /// The advance requested and not yet granted (saved with the snapshot: a restore brings
    /// the request back in the RTI too).
    pending_advance: Option<f64>,
    deferred: Vec<Deferred>,
}

impl<S: Simulation> std::fmt::Debug for Engine<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("federate", &self.cfg.federate_name)
            .field("state", self.fsm.state())
            .finish()
    }
}

impl<S: Simulation> Engine<S> {
    /// An engine in Begin.
    pub fn new(cfg: EngineConfig, sim: S) -> Self {
        let (mgmt_tx, mgmt_rx) = crossbeam_channel::unbounded();
        let (app_tx, app_rx) = crossbeam_channel::unbounded();
        Engine {
            queue: Arc::new(HlaQueue::new(cfg.queue_capacity)),
            cfg,
            sim,
            fsm: StateMachine::new(),
            shared_state: Arc::new(Mutex::new(EngineState::Begin)),
            mgmt_tx,
            mgmt_rx,
            app_tx,
            app_rx,
            counters: Arc::new(HlaCounters::default()),
            engine_queue: VecDeque::new(),
            mirror: Mirror::new(),
            news: News::default(),
            stats: EngineStats::default(),
            time: 0.0,
            frame: 0,
            end_time: None,
            rewound: false,
            frame_done: false,
            pending_advance: None,
            deferred: Vec::new(),
        }
    }

    /// A handle for other threads.
    pub fn handle(&self) -> EngineHandle<S::Command> {
        EngineHandle {
            mgmt: self.mgmt_tx.clone(),
            app: self.app_tx.clone(),
            state: self.shared_state.clone(),
        }
    }

    /// The application (e.g. to read its results after [`Engine::run`]).
    pub fn simulation(&self) -> &S {
        &self.sim
    }

    fn go(&mut self, s: EngineState) {
        let before = self.fsm.history().len();
        let entered = self.fsm.go(s).clone();
        if self.fsm.history().len() > before {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64() * 1e3);
            self.stats.entered_unix_ms.push(now);
        }
        tracing::info!(federate = %self.cfg.federate_name, state = %entered, "engine state");
        *self.shared_state.lock().unwrap_or_else(|e| e.into_inner()) = entered;
    }

    /// Runs the engine to End or Fail on the calling thread (the engine thread).
    pub fn run(&mut self) -> EngineReport {
        let mut rti = match &self.cfg.lrc {
            Some(l) => RtiAmbassador::with_lrc(l.clone()),
            None => RtiAmbassador::new(),
        };
        let result = self.life(&mut rti);
        if let Err(e) = result {
            self.go(EngineState::Fail(e.to_string()));
            // Best effort: leave the federation so nobody waits on us.
            let _ = rti.resign_federation_execution(ResignAction::CancelThenDeleteThenDivest);
        }
        let _ = rti.disconnect();
        self.stats.final_time = self.time;
        EngineReport {
            history: self.fsm.history().to_vec(),
            state: self.fsm.state().clone(),
            stats: self.stats.clone(),
            queue: self.queue.stats(),
        }
    }

    fn life(&mut self, rti: &mut RtiAmbassador) -> Result<(), EngineError> {
        self.go(EngineState::JoinSynchronization);
        self.join(rti)?;
        self.go(EngineState::Load { frame: 0 });
        self.load(rti)?;
        self.go(EngineState::Run);
        self.run_frames(rti)?;
        self.go(EngineState::LeaveSynchronization);
        self.leave(rti)?;
        self.go(EngineState::End);
        Ok(())
    }

    // ---- management news ----------------------------------------------------------------

    fn absorb(&mut self, m: Management) {
        match m {
            Management::RegulationEnabled(t) => self.news.regulation = Some(t.value()),
            Management::ConstrainedEnabled(t) => self.news.constrained = Some(t.value()),
            Management::TimeGrant(t) => self.news.granted = Some(t.value()),
            // Callbacks come in order: a grant before the restore's initiation belongs to the
            // abandoned run; one after it (a grant the save held, delivered again right after
            // `federation_restored`) answers the restored pending request and must stay.
            Management::InitiateRestore(label) => {
                self.news.granted = None;
                self.news
                    .pending
                    .push_back(Management::InitiateRestore(label));
            }
            Management::SyncRegistered(l) => {
                self.news.registered.insert(l);
            }
            Management::SyncRegistrationFailed(l, r) => {
                self.news.registration_failed.insert(l, r);
            }
            Management::SyncAnnounced(l, tag) => {
                self.news.announced.insert(l, tag);
            }
            Management::FederationSynchronized(l, _) => {
                self.news.synchronized.insert(l);
            }
            Management::ConnectionLost(r) => self.news.lost = Some(r),
            Management::Stop => self.news.stop = true,
            Management::FederationSaved(r) => {
                self.news.saved = Some(r.clone());
                self.news.pending.push_back(Management::FederationSaved(r));
            }
            Management::FederationRestored(r) => {
                self.news.restored = Some(r.clone());
                self.news
                    .pending
                    .push_back(Management::FederationRestored(r));
            }
            other => self.news.pending.push_back(other),
        }
    }

    fn drain_management(&mut self) {
        while let Ok(m) = self.mgmt_rx.try_recv() {
            self.absorb(m);
        }
    }

    /// Waits (absorbing management commands) until `cond` holds.
    fn wait(
        &mut self,
        what: &str,
        timeout: Duration,
        cond: impl Fn(&News) -> Result<bool, EngineError>,
    ) -> Result<(), EngineError> {
        let deadline = Instant::now() + timeout;
        loop {
            self.drain_management();
            if let Some(r) = &self.news.lost {
                return Err(EngineError::ConnectionLost(r.clone()));
            }
            if cond(&self.news)? {
                return Ok(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(EngineError::Timeout(timeout, what.to_string()));
            }
            if let Ok(m) = self.mgmt_rx.recv_timeout(left) {
                self.absorb(m);
            }
        }
    }

    fn wait_synchronized(&mut self, label: &str) -> Result<(), EngineError> {
        let l = label.to_string();
        self.wait(
            &format!("synchronization point {label}"),
            self.cfg.sync_timeout,
            move |n| Ok(n.synchronized.contains(&l)),
        )
    }

    fn wait_announced(&mut self, label: &str) -> Result<Vec<u8>, EngineError> {
        let l = label.to_string();
        self.wait(
            &format!("announcement of {label}"),
            self.cfg.sync_timeout,
            move |n| Ok(n.announced.contains_key(&l)),
        )?;
        Ok(self.news.announced.get(label).cloned().unwrap_or_default())
    }

    fn register(
        &mut self,
        rti: &RtiAmbassador,
        label: &str,
        tag: &[u8],
    ) -> Result<(), EngineError> {
        rti.register_federation_synchronization_point(label, tag)
            .map_err(rti_err(&format!("register synchronization point {label}")))?;
        let l = label.to_string();
        self.wait(
            &format!("registration of {label}"),
            self.cfg.sync_timeout,
            move |n| {
                if let Some(r) = n.registration_failed.get(&l) {
                    return Err(EngineError::Sync(l.clone(), r.clone()));
                }
                Ok(n.registered.contains(&l))
            },
        )
    }

    /// Waits for the announcement of `label`, achieves it and waits for the federation to be
    /// synchronized. Returns the announcement's tag.
    fn synchronize(&mut self, rti: &RtiAmbassador, label: &str) -> Result<Vec<u8>, EngineError> {
        let tag = self.wait_announced(label)?;
        // A federation save may come while this engine waits at the point: take part in it
        // (the federation cannot save without us), then achieve.
        loop {
            match rti.synchronization_point_achieved(label, true) {
                Err(RtiError::SaveInProgress(_)) => {
                    self.wait("the save in progress", self.cfg.sync_timeout, |n| {
                        Ok(n.pending
                            .iter()
                            .any(|m| matches!(m, Management::InitiateSave(..))))
                    })?;
                    self.execute_management(rti)?;
                }
                r => {
                    r.map_err(rti_err(&format!("achieve {label}")))?;
                    break;
                }
            }
        }
        let l = label.to_string();
        loop {
            self.wait(
                &format!("synchronization point {label}"),
                self.cfg.sync_timeout,
                |n| {
                    Ok(n.synchronized.contains(&l)
                        || n.pending
                            .iter()
                            .any(|m| matches!(m, Management::InitiateSave(..))))
                },
            )?;
            if self.news.synchronized.contains(&l) {
                return Ok(tag);
            }
            self.execute_management(rti)?;
        }
    }

    // ---- the states ----------------------------------------------------------------------

    /// Runs `f` with a [`Ctx`] on this engine.
    fn with_ctx<R>(&mut self, rti: &RtiAmbassador, f: impl FnOnce(&mut S, &mut Ctx<'_>) -> R) -> R {
        let state = self.fsm.state().clone();
        let mut ctx = Ctx {
            rti,
            mirror: &self.mirror,
            time: self.time,
            frame: self.frame,
            lookahead: self.cfg.lookahead.unwrap_or(0.0),
            state: &state,
            stats: &mut self.stats,
            end_time: &mut self.end_time,
            stop: &mut self.news.stop,
            pending: &mut self.news.pending,
            queue: &self.queue,
            deferred: &mut self.deferred,
        };
        f(&mut self.sim, &mut ctx)
    }

    fn join(&mut self, rti: &mut RtiAmbassador) -> Result<(), EngineError> {
        let side = HlaSide {
            queue: self.queue.clone(),
            mgmt: self.mgmt_tx.clone(),
            counters: self.counters.clone(),
        };
        rti.connect(Box::new(side), CallbackModel::Immediate)
            .map_err(rti_err("connect"))?;
        let fed = self.cfg.federation.clone();
        let deadline = Instant::now() + self.cfg.join_timeout;
        if let Role::Commander { fom_modules, .. } = &self.cfg.role {
            // A federation left over from a crashed run: destroy it (it fails, harmlessly, when
            // it does not exist or is really in use — then create says so).
            let _ = rti.destroy_federation_execution(&fed);
            rti.create_federation_execution_from_text(&fed, fom_modules.clone())
                .map_err(rti_err("create federation execution"))?;
        }
        loop {
            match rti.join_federation_execution(
                Some(&self.cfg.federate_name),
                &self.cfg.federate_type,
                &fed,
            ) {
                Ok(_) => break,
                Err(RtiError::FederationExecutionDoesNotExist(_)) if Instant::now() < deadline => {
                    // Polling a remote condition (the commander creating the federation);
                    // bounded by join_timeout.
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(rti_err("join federation execution")(e)),
            }
        }
        self.with_ctx(rti, |s, c| s.on_join(c))?;
        if let Some(la) = self.cfg.lookahead {
            let la = LogicalTimeInterval::new(la)
                .ok_or_else(|| EngineError::App(format!("bad lookahead {la}")))?;
            rti.enable_time_regulation(la)
                .map_err(rti_err("enable time regulation"))?;
            self.wait("time regulation", self.cfg.sync_timeout, |n| {
                Ok(n.regulation.is_some())
            })?;
        }
        if self.cfg.constrained {
            rti.enable_time_constrained()
                .map_err(rti_err("enable time constrained"))?;
            self.wait("time constraint", self.cfg.sync_timeout, |n| {
                Ok(n.constrained.is_some())
            })?;
            // Receive-order data is applied at frame start anyway: take it as it comes.
            rti.enable_asynchronous_delivery()
                .map_err(rti_err("enable asynchronous delivery"))?;
        }
        self.time = self
            .news
            .regulation
            .into_iter()
            .chain(self.news.constrained)
            .fold(0.0, f64::max);
        if let Role::Commander { expected, .. } = self.cfg.role.clone() {
            let mut missing: Vec<String> = expected.clone();
            while !missing.is_empty() && Instant::now() < deadline {
                missing.retain(|n| rti.get_federate_handle(n).is_err());
                if !missing.is_empty() {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            if !missing.is_empty() {
                tracing::warn!(
                    ?missing,
                    "expected federates did not join; going on without them"
                );
            }
            self.stats.missing = missing;
            self.register(rti, READY_TO_LOAD, b"")?;
        }
        self.synchronize(rti, READY_TO_LOAD)?;
        Ok(())
    }

    fn load(&mut self, rti: &mut RtiAmbassador) -> Result<(), EngineError> {
        // Frame 0: the commander shares the scenario.
        self.frame_start(rti)?;
        if matches!(self.cfg.role, Role::Commander { .. }) {
            let scenario = self.sim.scenario();
            self.register(rti, READY_TO_RUN, &scenario)?;
        }
        self.end_frame_swap();
        // Frame 1: everyone reads it.
        self.go(EngineState::Load { frame: 1 });
        self.frame_start(rti)?;
        let scenario = self.wait_announced(READY_TO_RUN)?;
        self.end_frame_swap();
        // Frame 2: everyone loads it.
        self.go(EngineState::Load { frame: 2 });
        self.frame_start(rti)?;
        self.with_ctx(rti, |s, c| s.on_load(c, &scenario))?;
        self.end_frame_swap();
        rti.synchronization_point_achieved(READY_TO_RUN, true)
            .map_err(rti_err("achieve ReadyToRun"))?;
        self.wait_synchronized(READY_TO_RUN)?;
        Ok(())
    }

    fn end_frame_swap(&mut self) {
        self.frame += 1;
        self.queue.swap(&mut self.engine_queue);
    }

    /// Start of frame: last frame's HLA data, then the application's commands.
    fn frame_start(&mut self, rti: &RtiAmbassador) -> Result<(), EngineError> {
        self.stats.frames += 1;
        self.apply_inputs(rti)
    }

    fn apply_inputs(&mut self, rti: &RtiAmbassador) -> Result<(), EngineError> {
        let events = std::mem::take(&mut self.engine_queue);
        let (mut refl, mut inter) = (0u64, 0u64);
        let sim = &mut self.sim;
        self.mirror.apply(events, |c| {
            match c {
                Change::Updated { .. } => refl += 1,
                Change::Interaction { .. } => inter += 1,
                _ => {}
            }
            sim.on_change(&c);
        });
        self.stats.reflections_applied += refl;
        self.stats.interactions_applied += inter;
        while let Ok(cmd) = self.app_rx.try_recv() {
            self.stats.commands_applied += 1;
            self.with_ctx(rti, |s, c| s.on_command(c, cmd))?;
        }
        Ok(())
    }

    fn run_frames(&mut self, rti: &mut RtiAmbassador) -> Result<(), EngineError> {
        let epoch = Instant::now();
        let now_ns = || u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let scheme = self.cfg.scheme;
        let start_time = self.time;
        self.stats.run_start_time = start_time;
        // Event-driven pacing origin: (wall, logical) — moved by a restore.
        let mut origin = (Duration::ZERO, start_time);
        let mut pacer = match scheme {
            TimeScheme::Periodic { hz, pace } => Some(
                FramePacer::with_rate(now_ns(), hz, pace)
                    .map_err(|e| EngineError::App(e.to_string()))?,
            ),
            TimeScheme::EventDriven { .. } => None,
        };
        let labels = [
            ("federation", self.cfg.federation.clone()),
            ("federate", self.cfg.federate_name.clone()),
        ];
        let frame_duration = metrics::histogram!(metric_names::FRAME_DURATION, &labels);
        let frames_total = metrics::counter!(metric_names::FRAMES, &labels);
        let overruns_total = metrics::counter!(metric_names::OVERRUNS, &labels);
        let queue_depth = metrics::gauge!(metric_names::QUEUE_DEPTH, &labels);
        let merged_total = metrics::counter!(metric_names::QUEUE_MERGED, &labels);
        let dropped_total = metrics::counter!(metric_names::QUEUE_DROPPED, &labels);
        let mut last_q = QueueStats::default();
        let mut k: u64 = 0;
        // Frames run at logical times in [start, end): the run stops when a grant reaches the
        // end time (or on Stop), so a periodic run of T seconds at f Hz is exactly T·f frames.
        const EPS: f64 = 1e-9;
        loop {
            let end = self.end_time.unwrap_or(f64::INFINITY);
            if self.news.stop || self.time >= end - EPS {
                break;
            }
            // After a restore of a save taken once the frame had run, resume after it.
            if !std::mem::take(&mut self.frame_done) {
                let frame_began = Instant::now();
                self.frame_start(rti)?;
                self.with_ctx(rti, |s, c| s.on_frame(c))?;
                self.stats.run_frames += 1;
                frame_duration.record(frame_began.elapsed().as_secs_f64());
                frames_total.increment(1);
                let q = self.queue.stats();
                queue_depth.set(self.queue.len() as f64);
                merged_total.increment(q.merged - last_q.merged);
                dropped_total.increment(q.dropped - last_q.dropped);
                last_q = q;
            }
            self.frame_done = true;
            // End of frame: management commands.
            self.drain_management();
            self.execute_management(rti)?;
            if std::mem::take(&mut self.rewound) {
                // A federation restore moved logical time back: re-anchor the schedule there.
                if let TimeScheme::Periodic { hz, .. } = scheme {
                    k = ((self.time - start_time) * f64::from(hz)).round().max(0.0) as u64;
                }
                if let Some(p) = &mut pacer {
                    p.resync(now_ns());
                }
                origin = (epoch.elapsed(), self.time);
                // Start over from the restored frame: a save taken at a grant, before its frame
                // ran, must run that frame now (going on to the next advance skipped it).
                continue;
            }
            if let Some(r) = &self.news.lost {
                return Err(EngineError::ConnectionLost(r.clone()));
            }
            if self.news.stop {
                break;
            }
            let end = self.end_time.unwrap_or(f64::INFINITY);
            let next = match scheme {
                TimeScheme::Periodic { .. } => {
                    (start_time + scheme.frame_time(k + 1).unwrap_or(0.0)).min(end)
                }
                TimeScheme::EventDriven { .. } => {
                    self.sim.next_event().unwrap_or(end).min(end).max(self.time)
                }
            };
            if !next.is_finite() {
                return Err(EngineError::App(
                    "event-driven engine with no next event and no end time".into(),
                ));
            }
            let target = Time::new(next).ok_or_else(|| EngineError::App(format!("time {next}")))?;
            // A restored save taken while an advance was pending brought that request back in
            // the RTI: wait for its grant (the save may have held it) instead of asking again.
            if self.pending_advance.is_none() && !self.request_advance(rti, scheme, target)? {
                continue;
            }
            // A federation restore cancels the pending advance; a save may happen while it is
            // pending: execute it and keep waiting.
            loop {
                self.wait("time advance grant", self.cfg.grant_timeout, |n| {
                    Ok(n.granted.is_some()
                        || n.pending.iter().any(|m| {
                            matches!(
                                m,
                                Management::InitiateRestore(_) | Management::InitiateSave(..)
                            )
                        }))
                })?;
                let restore = self
                    .news
                    .pending
                    .iter()
                    .any(|m| matches!(m, Management::InitiateRestore(_)));
                if self.news.granted.is_some() || restore {
                    break;
                }
                self.execute_management(rti)?;
            }
            let Some(granted) = self.news.granted.take() else {
                self.execute_management(rti)?;
                continue;
            };
            self.pending_advance = None;
            self.time = granted;
            self.frame_done = false;
            self.stats.grants += 1;
            k += 1;
            // Pace: not earlier than the wall clock allows.
            match (&mut pacer, scheme.pace()) {
                (Some(p), _) => {
                    let out = p.frame_done(now_ns());
                    if let Some(until) = out.wait_until {
                        std::thread::sleep(Duration::from_nanos(until.saturating_sub(now_ns())));
                    }
                    overruns_total.increment(p.overruns() - self.stats.overruns);
                    self.stats.overruns = p.overruns();
                    self.stats.worst_overrun_ns = p.worst_overrun_ns();
                }
                (None, Pace::RealTime { scale }) => {
                    let due = origin.0
                        + Duration::from_secs_f64(((self.time - origin.1) / scale).max(0.0));
                    let el = epoch.elapsed();
                    if due > el {
                        std::thread::sleep(due - el);
                    }
                }
                (None, Pace::AsFastAsPossible) => {}
            }
            // A save timed at this grant happens now, before the frame at the new time runs.
            self.drain_management();
            self.execute_management(rti)?;
            self.end_frame_swap();
        }
        Ok(())
    }

    fn leave(&mut self, rti: &mut RtiAmbassador) -> Result<(), EngineError> {
        self.with_ctx(rti, |s, c| s.on_end(c));
        if matches!(self.cfg.role, Role::Commander { .. }) {
            self.register(rti, READY_TO_RESIGN, b"")?;
        }
        self.synchronize(rti, READY_TO_RESIGN)?;
        // Apply what arrived meanwhile, so observers see every last update.
        self.apply_inputs(rti)?;
        self.queue.swap(&mut self.engine_queue);
        self.apply_inputs(rti)?;
        if let Role::Commander { expected, .. } = self.cfg.role.clone() {
            // The commander resigns last, so destroying the federation never races the others'
            // resignations.
            let mut left: Vec<String> = expected
                .into_iter()
                .filter(|n| !self.stats.missing.contains(n))
                .collect();
            let deadline = Instant::now() + self.cfg.sync_timeout;
            while !left.is_empty() && Instant::now() < deadline {
                left.retain(|n| rti.get_federate_handle(n).is_ok());
                if !left.is_empty() {
                    // Polling the membership view; bounded by sync_timeout.
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
        rti.resign_federation_execution(ResignAction::CancelThenDeleteThenDivest)
            .map_err(rti_err("resign"))?;
        if matches!(self.cfg.role, Role::Commander { .. }) {
            let deadline = Instant::now() + self.cfg.sync_timeout;
            loop {
                match rti.destroy_federation_execution(&self.cfg.federation) {
                    Ok(()) | Err(RtiError::FederationExecutionDoesNotExist(_)) => break,
                    Err(RtiError::FederatesCurrentlyJoined(_)) if Instant::now() < deadline => {
                        // The others resign right after the same synchronization.
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => return Err(rti_err("destroy federation execution")(e)),
                }
            }
        }
        Ok(())
    }

    // ---- save / restore -----------------------------------------------------------------

    fn header(&self, label: &str) -> SnapshotHeader {
        SnapshotHeader {
            label: label.to_string(),
            frame: self.frame,
            time: self.time,
            frame_done: self.frame_done,
            pending_advance: self.pending_advance,
            deferred: self.deferred.clone(),
            mirror: self.mirror.clone(),
        }
    }

    fn save_to(&mut self, path: &std::path::Path, label: &str) -> Result<(), EngineError> {
        let mut app = Vec::new();
        self.sim
            .on_save(&mut app)
            .map_err(|e| EngineError::App(format!("on_save: {e}")))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(snapshot::SnapshotError::from)?;
        }
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).map_err(snapshot::SnapshotError::from)?,
        );
        snapshot::write(&mut f, &self.header(label), &app)?;
        self.stats.saves.push(label.to_string());
        Ok(())
    }

    fn restore_from(&mut self, path: &std::path::Path, rewind: bool) -> Result<(), EngineError> {
        let mut f = std::io::BufReader::new(
            std::fs::File::open(path).map_err(snapshot::SnapshotError::from)?,
        );
        let (header, app) = snapshot::read(&mut f)?;
        self.sim
            .on_restore(&mut app.as_slice())
            .map_err(|e| EngineError::App(format!("on_restore: {e}")))?;
        self.mirror = header.mirror;
        if rewind {
            self.time = header.time;
            self.frame = header.frame;
            self.frame_done = header.frame_done;
            self.deferred = header.deferred;
            self.pending_advance = header.pending_advance;
            self.rewound = true;
        }
        self.stats.restores.push(header.label);
        Ok(())
    }

    /// TAR or NER; a request refused because a save is in progress waits for the save (which
    /// the engine executes) and is made again.
    /// Requests the advance to `target`. `Ok(false)`: a federation restore happened instead
    /// (the request was refused with `RestoreInProgress` and the engine restored; the frame loop
    /// starts over from the restored time). A restore that fails before the RTI state changed
    /// leaves the federation as it was, so the request is made again.
    fn request_advance(
        &mut self,
        rti: &RtiAmbassador,
        scheme: TimeScheme,
        target: Time,
    ) -> Result<bool, EngineError> {
        let deadline = Instant::now() + self.cfg.sync_timeout;
        loop {
            let r = match scheme {
                TimeScheme::Periodic { .. } => rti.time_advance_request(target),
                TimeScheme::EventDriven { .. } => rti.next_message_request(target),
            };
            match r {
                Err(RtiError::SaveInProgress(_)) if Instant::now() < deadline => {
                    self.news.saved = None;
                    self.wait("the save in progress", self.cfg.sync_timeout, |n| {
                        Ok(n.saved.is_some()
                            || n.pending
                                .iter()
                                .any(|m| matches!(m, Management::InitiateSave(..))))
                    })?;
                    self.execute_management(rti)?;
                }
                Err(RtiError::RestoreInProgress(_)) if Instant::now() < deadline => {
                    self.wait("the restore in progress", self.cfg.sync_timeout, |n| {
                        Ok(n.restored.is_some()
                            || n.pending
                                .iter()
                                .any(|m| matches!(m, Management::InitiateRestore(_))))
                    })?;
                    let restoring = self
                        .news
                        .pending
                        .iter()
                        .any(|m| matches!(m, Management::InitiateRestore(_)));
                    self.execute_management(rti)?;
                    self.news.restored = None;
                    if restoring {
                        return Ok(false);
                    }
                    // The restore failed before anything changed: what waited goes out now.
                    self.flush_deferred(rti)?;
                }
                r => {
                    r.map_err(rti_err("time advance"))?;
                    self.pending_advance = Some(target.value());
                    return Ok(true);
                }
            }
        }
    }

    /// Sends what the RTI refused during the save.
    fn flush_deferred(&mut self, rti: &RtiAmbassador) -> Result<(), EngineError> {
        for d in std::mem::take(&mut self.deferred) {
            match d {
                Deferred::Update(o, v, tag) => {
                    rti.update_attribute_values(o, v, &tag)
                        .map_err(rti_err("update attribute values"))?;
                    self.stats.updates_sent += 1;
                }
                Deferred::Interaction(c, p, tag, at) => {
                    match at {
                        Some(t) => rti.send_interaction_with_time(c, p, &tag, t).map(drop),
                        None => rti.send_interaction(c, p, &tag),
                    }
                    .map_err(rti_err("send interaction"))?;
                    self.stats.interactions_sent += 1;
                }
            }
        }
        Ok(())
    }

    /// Applies everything the HLA thread delivered so far, so a save includes it.
    fn absorb_delivered(&mut self, rti: &RtiAmbassador) -> Result<(), EngineError> {
        self.apply_inputs(rti)?;
        self.queue.swap(&mut self.engine_queue);
        self.apply_inputs(rti)
    }

    fn local_path(&self, label: &str) -> PathBuf {
        self.cfg
            .state_dir
            .join(format!("{}-{label}.snap", self.cfg.federate_name))
    }

    /// Executes the queued management commands (end of frame).
    fn execute_management(&mut self, rti: &RtiAmbassador) -> Result<(), EngineError> {
        while let Some(m) = self.news.pending.pop_front() {
            self.sim.on_management(&m);
            match m {
                Management::LocalSave(label) => {
                    self.absorb_delivered(rti)?;
                    let p = self.local_path(&label);
                    self.save_to(&p, &label)?;
                }
                Management::LocalRestore(label) => {
                    let p = self.local_path(&label);
                    // Logical time cannot go back without the RTI: local restore keeps it.
                    self.restore_from(&p, false)?;
                }
                Management::InitiateSave(label, _time) => {
                    self.absorb_delivered(rti)?;
                    self.news.saved = None;
                    rti.federate_save_begun()
                        .map_err(rti_err("federate save begun"))?;
                    let dir = rti
                        .federate_state_dir()
                        .map_err(rti_err("federate state dir"))?;
                    match self.save_to(&dir.join("engine.snap"), &label) {
                        Ok(()) => rti.federate_save_complete(),
                        Err(e) => {
                            tracing::warn!(error = %e, "federate save failed");
                            rti.federate_save_not_complete()
                        }
                    }
                    .map_err(rti_err("federate save complete"))?;
                    // No time advance or update until the whole federation saved.
                    self.wait("federation saved", self.cfg.sync_timeout, |n| {
                        Ok(n.saved.is_some())
                    })?;
                    self.flush_deferred(rti)?;
                }
                Management::InitiateRestore(_label) => {
                    // Data queued before the restore belongs to the abandoned future (the
                    // snapshot brings back what was deferred at the save).
                    self.deferred.clear();
                    self.engine_queue.clear();
                    let mut stale = VecDeque::new();
                    self.queue.swap(&mut stale);
                    let dir = rti
                        .federate_state_dir()
                        .map_err(rti_err("federate state dir"))?;
                    self.news.restored = None;
                    match self.restore_from(&dir.join("engine.snap"), true) {
                        Ok(()) => rti.federate_restore_complete(),
                        Err(e) => {
                            tracing::warn!(error = %e, "federate restore failed");
                            rti.federate_restore_not_complete()
                        }
                    }
                    .map_err(rti_err("federate restore complete"))?;
                    self.wait("federation restored", self.cfg.sync_timeout, |n| {
                        Ok(n.restored.is_some())
                    })?;
                    if matches!(self.news.restored, Some(Ok(()))) {
                        self.flush_deferred(rti)?;
                    }
                }
                // A refused request is news for the application, not a reason to stop the
                // engine (the federation goes on without the save).
                Management::RequestFederationSave(label, time) => {
                    let r = match time {
                        Some(t) => rti.request_federation_save_with_time(&label, t),
                        None => rti.request_federation_save(&label),
                    };
                    if let Err(e) = r {
                        self.sim
                            .on_management(&Management::FederationSaved(Err(e.to_string())));
                    }
                }
                Management::RequestFederationRestore(label) => {
                    if let Err(e) = rti.request_federation_restore(&label) {
                        self.sim
                            .on_management(&Management::FederationRestored(Err(e.to_string())));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Counters of the HLA side: (reflections, interactions) received on the HLA thread.
    pub fn hla_counts(&self) -> (u64, u64) {
        (
            self.counters.reflections.load(Ordering::Relaxed),
            self.counters.interactions.load(Ordering::Relaxed),
        )
    }
}
