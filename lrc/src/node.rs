//! The I/O shell around the process's [`Host`] (`crate::host`): one [`Lrc`] per process owns the
//! [`Transport`] and the host, which holds every open federation's [`FederationCore`] and decides
//! where callbacks go. Receive turns run the cores on the transport's receive thread that has the
//! work (see `LrcDriver`: the LRC's lock first, then the transport's part), one thread
//! (`hlamesh-lrc`) feeds timer ticks and the few events from other threads, and API calls from
//! any number of `RtiAmbassador`s run the same cores under the same lock. Every `HostAction` is
//! executed under that lock — sends, callback queue pushes, save files, wake-ups of blocked
//! callers — so a state-transfer snapshot and the data high-water mark it names are taken
//! atomically. What an event means and how an action is executed is the
//! sans-I/O driver's ([`crate::driver`]); this shell implements its I/O (`ShellIo`) over the
//! transport, the callback queues, the save files and the metrics.
//!
//! Also here: running the create race (`crate::create_race` decides it; the shell reads the wall
//! clock, publishes the claim and its acknowledgements in its beacons, and hands the race what
//! discovery heard whenever a beacon arrives) and finding the members of a federation to join.

// The LRC's maps are keyed by handles, tags and federation names that an authenticated
// federation chose, so a fast non-DoS-resistant hash is the right trade on the per-message path.
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::callback_queue::{self, CallbackQueue};
use hlamesh_transport::data::Reliability;
use hlamesh_transport::discovery::{Claim, ClaimAck};
use hlamesh_transport::{
    Driver, FederationChannel, FederationTag, KeySource, NodeId, Transport, TransportConfig,
    TransportEvent, Turn,
};

use crate::core::stream_numbering::StreamNumbering;
use crate::core::{Callback, Completion, Event, FederationCore, Ticket};
use crate::create_race::{CreateRace, RaceTiming, Verdict};
use crate::driver::{self, DriverIo};
use crate::error::{RtiError, RtiResult};
use crate::handles::FederateHandle;
use crate::host::{Host, HostedFederation};
use crate::metrics::FedMetrics;
use crate::ops::OpsMsg;

mod ops_plane;
mod race;

use race::RaceBeacon;

/// What the shell hands to an ambassador's callback queue.
#[derive(Debug, Clone)]
pub enum Delivery {
    /// A core callback.
    Core(Callback),
    /// `reportFederationExecutions`: (name, logical time implementation).
    Report(Vec<(String, String)>),
    /// `connectionLost`.
    ConnectionLost(String),
}

/// Period of core timer ticks.
const TICK: Duration = Duration::from_millis(50);
/// How long blocking calls wait for the coordinator.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What the shell keeps beside each federation's core.
struct Io {
    channel: FederationChannel,
    metrics: FedMetrics,
}

/// One open federation as the shell holds it.
type Fed = HostedFederation<Io, Arc<CallbackQueue>>;

#[derive(Default)]
struct State {
    /// The federations and the routing decisions around them (see [`crate::host`]).
    host: Host<Io, Arc<CallbackQueue>>,
    /// Federation names by channel tag (shared, so the per-message lookup copies no string).
    tags: HashMap<FederationTag, Arc<str>>,
    ops: ops_plane::OpsState,
    /// Each joined federate's handle as its `RtiAmbassador` reads it: a federation restore
    /// changes it (`HostAction::Rehandled`).
    cells: HashMap<(String, FederateHandle), Arc<AtomicU32>>,
    /// The events of the receive turn being handled (kept to reuse its allocation).
    turn_events: Vec<TransportEvent>,
}

struct Shared {
    transport: Transport,
    cfg: TransportConfig,
    epoch: Instant,
    state: Mutex<State>,
    cv: Condvar,
    /// Metrics are on (a `/metrics` address was configured): see [`crate::metrics`].
    metrics_on: bool,
    collector: OnceLock<hlamesh_transport::metrics::CollectorGuard>,
    /// Wakes the pump before the end of its wait: a core's deadline came sooner (see
    /// [`note_deadline`]).
    wake: (
        crossbeam_channel::Sender<()>,
        crossbeam_channel::Receiver<()>,
    ),
    /// Until when the pump waits (µs since `epoch`), written under the state lock.
    pump_until: AtomicU64,
}

/// The Local RTI Component of this process. Cheap to clone; all clones share one transport.
///
/// When the last clone is dropped, the transport leaves the mesh on that thread, before the drop
/// returns (`Holders`).
#[derive(Clone)]
pub struct Lrc {
    shared: Arc<Shared>,
    _holders: Arc<Holders>,
}

/// What the users' handles ([`Lrc`]) share, apart from the state the LRC's own threads share.
///
/// The LRC's threads (the pump, the receive turns of its driver) take the state for a moment now and then;
/// if a user's drop of the last handle happened during such a moment, the transport's goodbye
/// used to run later on that thread, which the process exit could kill first — and the peers
/// reported this process lost instead of left. Counting the users' handles apart ends the LRC on
/// the thread that drops the last of them: it says goodbye and waits (bounded) for the peers'
/// acknowledgements (`Transport::leave`) before the drop returns.
struct Holders {
    shared: Arc<Shared>,
}

impl Drop for Holders {
    fn drop(&mut self) {
        self.shared.transport.leave();
    }
}

impl Lrc {
    fn from_shared(shared: Arc<Shared>) -> Lrc {
        Lrc {
            _holders: Arc::new(Holders {
                shared: shared.clone(),
            }),
            shared,
        }
    }

    fn from_holders(holders: Arc<Holders>) -> Lrc {
        Lrc {
            shared: holders.shared.clone(),
            _holders: holders,
        }
    }
}

impl std::fmt::Debug for Lrc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lrc")
            .field("node", &self.shared.transport.node_id())
            .finish()
    }
}

/// LRCs whose discovery beacons announce federation `name`.
fn members_of(shared: &Shared, name: &str) -> Vec<u64> {
    shared
        .transport
        .discovered()
        .into_iter()
        .filter(|p| p.beacon.federations.iter().any(|f| f == name))
        .map(|p| p.beacon.node.0)
        .collect()
}

fn internal(e: impl std::fmt::Display) -> RtiError {
    RtiError::RtiInternalError(e.to_string())
}

impl Lrc {
    /// Starts an LRC on a transport with this configuration.
    pub fn start(cfg: TransportConfig) -> RtiResult<Lrc> {
        let began = Instant::now();
        let transport = Transport::start(cfg.clone())
            .map_err(|e| RtiError::ConnectionFailed(format!("transport: {e}")))?;
        let metrics_on = transport.metrics_addr().is_some();
        let shared = Arc::new(Shared {
            transport,
            cfg,
            epoch: Instant::now(),
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
            metrics_on,
            collector: OnceLock::new(),
            wake: crossbeam_channel::bounded(1),
            pump_until: AtomicU64::new(u64::MAX),
        });
        if metrics_on {
            let _ = shared.collector.set(ops_plane::register_collector(&shared));
        }
        install_driver(&shared);
        let weak = Arc::downgrade(&shared);
        std::thread::Builder::new()
            .name("hlamesh-lrc".into())
            .spawn(move || pump(weak))
            .map_err(internal)?;
        tracing::debug!(took_us = began.elapsed().as_micros() as u64, "LRC started");
        Ok(Lrc::from_shared(shared))
    }

    /// The process-wide LRC with the default configuration plus `HLAMESH_*` environment
    /// overrides (loopback, no configuration needed on one machine).
    ///
    /// It lives while something holds it (every connected `RtiAmbassador` does): when the last
    /// holder is dropped — a federate's normal end — its transport says goodbye to every peer,
    /// so they see this process leave rather than lose it a peer timeout later. A later call
    /// starts a new LRC.
    pub fn shared() -> RtiResult<Lrc> {
        static LRC: Mutex<std::sync::Weak<Holders>> = Mutex::new(std::sync::Weak::new());
        let mut slot = LRC.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(holders) = slot.upgrade() {
            return Ok(Lrc::from_holders(holders));
        }
        let mut cfg = TransportConfig::default();
        cfg.apply_env()
            .map_err(|e| RtiError::ConnectionFailed(e.to_string()))?;
        let l = Lrc::start(cfg)?;
        *slot = Arc::downgrade(&l._holders);
        Ok(l)
    }

    /// The URL of this process's Prometheus endpoint, if metrics are on (see [`crate::metrics`]).
    pub fn metrics_url(&self) -> Option<String> {
        let a = self.shared.transport.metrics_addr()?;
        Some(format!("http://{a}/metrics"))
    }

    /// This LRC's node id.
    pub fn node_id(&self) -> NodeId {
        self.shared.transport.node_id()
    }

    fn now(&self) -> u64 {
        now_us(&self.shared)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on a federation's core and executes the actions it queued.
    pub(crate) fn with_core<T>(
        &self,
        federation: &str,
        f: impl FnOnce(&mut FederationCore) -> RtiResult<T>,
    ) -> RtiResult<T> {
        self.core_call(federation, f, false).0
    }

    /// [`Lrc::with_core`] for an update or interaction: afterwards, with no lock held, waits
    /// while this LRC's slowest receiver is a flow-control window behind its reliable stream
    /// (`hlamesh_transport::flow`). The wait follows the send rather than preceding it, so the
    /// common case (room) costs one check under the lock and no second lock.
    pub(crate) fn with_core_paced<T>(
        &self,
        federation: &str,
        f: impl FnOnce(&mut FederationCore) -> RtiResult<T>,
    ) -> RtiResult<T> {
        let (r, full) = self.core_call(federation, f, true);
        if let Some(channel) = full {
            channel.wait_for_room();
        }
        r
    }

    fn core_call<T>(
        &self,
        federation: &str,
        f: impl FnOnce(&mut FederationCore) -> RtiResult<T>,
        pace: bool,
    ) -> (RtiResult<T>, Option<FederationChannel>) {
        let mut st = self.lock();
        let State {
            host, tags, cells, ..
        } = &mut *st;
        let mut io = ShellIo {
            shared: &self.shared,
            tags,
            cells,
        };
        let full = |fed: &Fed| (pace && !fed.io.channel.has_room()).then(|| fed.io.channel.clone());
        match driver::call(host, &mut io, federation, f, full) {
            Some((r, full)) => (r, full),
            None => {
                let e = RtiError::FederateNotExecutionMember(format!(
                    "federation {federation} is not open on this LRC"
                ));
                (Err(e), None)
            }
        }
    }

    /// Receives this LRC's data datagrams on the calling thread until `ready()` or `deadline`
    /// (see [`Transport::receive_here`]); the evoked callback model waits this way.
    pub fn receive_here(
        &self,
        deadline: Instant,
        ready: &mut dyn FnMut() -> bool,
    ) -> hlamesh_transport::ReceiveHere {
        self.shared.transport.receive_here(deadline, ready)
    }

    /// Wakes a thread receiving in [`Lrc::receive_here`] (see [`Transport::receiver_waker`]).
    pub fn receiver_waker(&self) -> hlamesh_transport::ReceiverWaker {
        self.shared.transport.receiver_waker()
    }

    /// Federation channel closes (and departures) that gave up waiting for every member's
    /// acknowledgement of this LRC's reliable stream (`hlamesh_close_drain_timeouts_total`;
    /// see "Leaving" in `docs/ARCHITECTURE.md`).
    pub fn close_drain_timeouts(&self) -> u64 {
        self.shared
            .transport
            .stats()
            .drain_timeouts
            .load(Ordering::Relaxed)
    }

    /// Data datagrams this LRC sent (all federations; heartbeats and repairs excluded).
    pub fn datagrams_sent(&self) -> u64 {
        self.shared
            .transport
            .stats()
            .datagrams_out
            .load(Ordering::Relaxed)
    }

    /// Data datagrams received by threads waiting for evoked callbacks, not by the data thread.
    pub fn datagrams_received_by_callers(&self) -> u64 {
        self.shared
            .transport
            .stats()
            .datagrams_in_caller
            .load(Ordering::Relaxed)
    }

    /// The DDM cell-group counters of `federation` on this LRC (groups joined and left,
    /// fallbacks, datagrams sent on cell groups, best-effort datagrams received; see
    /// `docs/DDM.md`), `None` if it is not open here. The same figures feed the
    /// `hlamesh_ddm_*` metrics.
    pub fn cell_stats(&self, federation: &str) -> Option<hlamesh_transport::metrics::CellStats> {
        let st = self.lock();
        st.host.get(federation).map(|f| f.io.channel.cell_stats())
    }

    /// The federation core's DDM region counters of `federation` on this LRC; zeros if it is
    /// not open here. The same figures feed `hlamesh_ddm_region_moves_sent_to_cells_total`,
    /// `hlamesh_ddm_region_moves_folded_total` and `hlamesh_ddm_stale_updates_dropped_total`
    /// (see `docs/DDM.md`).
    pub fn ddm_region_counters(&self, federation: &str) -> DdmRegionCounters {
        self.with_core(federation, |c| {
            Ok(DdmRegionCounters {
                moves_in_cells: c.ddm_moves_in_cells(),
                moves_folded: c.ddm_moves_folded(),
                stale_drops: c.ddm_stale_drops(),
            })
        })
        .unwrap_or_default()
    }

    /// Time messages (promises, i.e. null messages) the federates of this LRC sent so far in
    /// `federation`: one per broadcast, however many LRCs receive it (0 if it is not open
    /// here). The same figure feeds `hlamesh_time_null_messages_sent_total`.
    pub fn null_messages_sent(&self, federation: &str) -> u64 {
        self.with_core(federation, |c| {
            Ok(c.local_federates()
                .filter_map(|(h, _)| c.time_manager(*h))
                .map(|m| m.stats().promises_sent)
                .sum())
        })
        .unwrap_or(0)
    }

    /// How this LRC holds the federation's decision log: (last decision, folded up to, decisions
    /// kept, and the Welcome that admitted it, if one did) — see `hlamesh_core::core::compaction`.
    pub fn decision_log(
        &self,
        federation: &str,
    ) -> RtiResult<(
        u64,
        u64,
        usize,
        Option<crate::core::compaction::WelcomeSize>,
    )> {
        self.with_core(federation, |c| {
            let v = c.view();
            Ok((
                v.last(),
                v.base,
                v.folded.len() + v.log.len(),
                c.welcome_size(),
            ))
        })
    }

    /// The LRCs that are members of `federation` as this LRC's view has them, in join order
    /// (the first coordinates); `FederateNotExecutionMember` if it is not open here.
    pub fn member_lrcs(&self, federation: &str) -> RtiResult<Vec<NodeId>> {
        self.with_core(federation, |c| {
            Ok(c.view().nodes.iter().map(|n| NodeId(*n)).collect())
        })
    }

    /// Every federation execution seen on the network or open here, with its logical time
    /// implementation: the core's for a federation this LRC is a member of, else what the
    /// announcing LRCs' beacons note (`HLAfloat64Time` if none does yet — a federation
    /// announced only by a joiner not yet admitted).
    pub fn federation_executions(&self) -> Vec<(String, hlamesh_timesync::TimeKind)> {
        let heard = self.shared.transport.discovered();
        self.federation_names()
            .into_iter()
            .map(|n| {
                let local = self
                    .with_core(&n, |c| Ok(c.is_admitted().then(|| c.time_kind())))
                    .ok()
                    .flatten();
                let noted = || {
                    heard
                        .iter()
                        .flat_map(|p| &p.beacon.notes)
                        .find_map(|(f, note)| {
                            (*f == n)
                                .then(|| hlamesh_timesync::TimeKind::from_name(note))
                                .flatten()
                        })
                };
                let kind = local.or_else(noted).unwrap_or_default();
                (n, kind)
            })
            .collect()
    }

    /// Names of the federation executions seen on the network or open here.
    pub fn federation_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .shared
            .transport
            .discovered()
            .into_iter()
            .flat_map(|p| p.beacon.federations)
            .collect();
        v.extend(self.lock().host.names());
        v.sort();
        v.dedup();
        v
    }

    fn members_of(&self, name: &str) -> Vec<u64> {
        members_of(&self.shared, name)
    }

    /// Creates a federation execution from FOM modules given as (designator, XML text).
    pub fn create(&self, name: &str, modules: Vec<(String, String)>) -> RtiResult<()> {
        self.create_with_time(name, modules, hlamesh_timesync::TimeKind::Float64)
    }

    /// [`Lrc::create`] with the federation's logical time implementation.
    pub fn create_with_time(
        &self,
        name: &str,
        modules: Vec<(String, String)>,
        time_kind: hlamesh_timesync::TimeKind,
    ) -> RtiResult<()> {
        let exists = || {
            RtiError::FederationExecutionAlreadyExists(format!("federation {name} already exists"))
        };
        // Check the FOM first: a bad FOM is the caller's error whatever the network says. The
        // core is kept for the federation if this LRC wins (the FOM is parsed once).
        let me = self.node_id();
        let core = FederationCore::create(name, me.0, self.now(), modules)?;
        if self.lock().host.contains(name) || !self.members_of(name).is_empty() {
            return Err(exists());
        }
        let claim_time_us = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        let cfg = &self.shared.cfg;
        let timing = RaceTiming::new(cfg.beacon_interval, cfg.beacon_min_gap, cfg.create_settle);
        let started = self.now();
        let mut race = CreateRace::start(started, name, me.0, claim_time_us, timing);
        tracing::debug!(
            federation = name,
            claim_time_us,
            deadline_in_us = race.deadline().saturating_sub(self.now()),
            "create race started"
        );
        let transport = &self.shared.transport;
        // Bounded: the race decides by its deadline at the latest.
        let verdict = loop {
            let epoch = transport.discovery_epoch();
            let (heard, echo) = transport.discovery_snapshot();
            let read: Vec<RaceBeacon> = heard.iter().map(RaceBeacon::of).collect();
            let now = self.now();
            let step = race.step(now, echo, heard.iter().zip(&read).map(|(p, r)| r.heard(p)));
            if let Some(v) = step.verdict {
                break v;
            }
            if step.publish {
                let acks = race
                    .acks()
                    .into_iter()
                    .map(|(node, claim_time_us)| ClaimAck {
                        node: NodeId(node),
                        name: name.to_string(),
                        claim_time_us,
                    })
                    .collect();
                let claim = Claim {
                    name: name.to_string(),
                    claim_time_us,
                };
                match transport.set_claim(claim, acks) {
                    Ok(last) => {
                        race.published(now, last);
                        if step.urgent {
                            transport.announce_urgently();
                        }
                    }
                    Err(e) => {
                        transport.withdraw_claim(name);
                        return Err(internal(e));
                    }
                }
            }
            if step.solicit {
                transport.solicit_beacons();
            }
            let wait = step.wake_at.saturating_sub(self.now());
            if wait > 0 {
                // Woken by any beacon heard (or our own heard back), not by a poll period.
                transport.wait_discovery_change(epoch, Duration::from_micros(wait));
            }
        };
        tracing::debug!(
            federation = name,
            ?verdict,
            claim_heard_back_after_us = race.echo_at().map(|e| e.saturating_sub(started)),
            after_us = self.now().saturating_sub(started),
            "create race decided"
        );
        if verdict == Verdict::Exists || self.lock().host.contains(name) {
            transport.withdraw_claim(name);
            return Err(exists());
        }
        // Beacons that fail authentication never stop a create (anyone could send them), but a
        // node with the wrong secret would otherwise create a federation of its own unawares.
        let refusals = self.shared.transport.refusals();
        if refusals.federations.iter().any(|f| f == name)
            && let Some(why) = refusals.explain()
        {
            tracing::warn!(
                federation = name,
                "creating federation {name} although unauthenticated nodes announce one of that \
                 name: {why}"
            );
        }
        let opened = self.open_created(name, core, time_kind);
        // Withdrawn only now that the beacons list the federation as open (or it failed).
        transport.withdraw_claim(name);
        opened?;
        // Joiners wait for this beacon: within the least gap after the race's last beacon too.
        transport.announce_urgently();
        tracing::debug!(federation = name, "federation created");
        Ok(())
    }

    /// Opens the federation this LRC won the create race for.
    fn open_created(
        &self,
        name: &str,
        mut core: FederationCore,
        time_kind: hlamesh_timesync::TimeKind,
    ) -> RtiResult<()> {
        core.set_time_kind(time_kind);
        core.set_mom_host(&host_name());
        // The channel opens under the LRC's lock: from the moment it opens, this node's beacons
        // announce the federation and its transport hands out the key, so a joiner's request
        // can arrive at once — and a control message for a federation with no core here is
        // dropped (the joiner then retried only after its 500 ms `RETRY_US`). The receive turn that
        // delivers it waits for this lock instead. Opening a created channel takes only locks
        // below this one (the federation table, the mesh, the new channel's send side) and
        // waits for nothing on the network.
        let mut st = self.lock();
        let channel = self
            .shared
            .transport
            .open_federation(name, KeySource::Create)
            .map_err(internal)?;
        // The beacons announce the federation's time implementation beside its name, for
        // `list_federation_executions` on LRCs outside it.
        channel.set_note(time_kind.name());
        st.tags.insert(channel.tag(), Arc::from(name));
        core.set_stream_numbering(numbering(&channel));
        core.set_cells_per_dimension(channel.cells_per_dimension());
        let metrics = FedMetrics::new(name, self.shared.metrics_on);
        st.host.open(name, core, Io { channel, metrics });
        drop(st);
        Ok(())
    }

    /// Why a join found no member of `name` to talk to: nobody announces it, or (the likely
    /// mistake) nodes were heard whose beacons fail authentication — another development secret
    /// or a certificate from another CA. With authenticated discovery such a node never sees
    /// the others at all, so the refused beacons are the only trace of them.
    fn not_announced(&self, name: &str, announcers: &[u64]) -> RtiError {
        let refusals = self.shared.transport.refusals();
        match refusals.explain() {
            // The join's own exception, so callers that retry on it keep working; the text says
            // what to fix.
            Some(why) => RtiError::FederationExecutionDoesNotExist(format!(
                "no LRC of this deployment announces federation {name}; {why}; check \
                 HLAMESH_SECRET (development mode) or the lab CA and certificate"
            )),
            None if !announcers.is_empty() => RtiError::FederationExecutionDoesNotExist(format!(
                "federation {name} is announced but no announcing LRC could be reached"
            )),
            None => RtiError::FederationExecutionDoesNotExist(format!(
                "no LRC announces federation {name}"
            )),
        }
    }

    /// Opens `name` as a joining member if it is not open here yet.
    fn ensure_open(&self, name: &str) -> RtiResult<()> {
        {
            let st = self.lock();
            if st.host.contains(name) {
                return Ok(());
            }
            if let Some(reason) = st.host.lost_reason(name) {
                return Err(RtiError::ConnectionFailed(format!(
                    "this LRC lost its connection to federation {name} ({reason}); join it \
                     from a new LRC (a new process or Lrc::start)"
                )));
            }
        }
        let began = Instant::now();
        let deadline = began + Duration::from_millis(1500);
        let mut epoch = self.shared.transport.discovery_epoch();
        let members = loop {
            let m = self.members_of(name);
            let peers = self.shared.transport.peers();
            if !m.is_empty() && m.iter().any(|n| peers.contains(&NodeId(*n))) {
                break m;
            }
            if Instant::now() > deadline {
                return Err(self.not_announced(name, &m));
            }
            // Woken by the next beacon or connected peer (the transport solicits beacons when
            // it starts), not by a poll period.
            epoch = self
                .shared
                .transport
                .wait_discovery_change(epoch, Duration::from_millis(20));
        };
        tracing::debug!(
            federation = name,
            waited_us = began.elapsed().as_micros() as u64,
            "federation announced by a connected LRC"
        );
        let channel = self
            .shared
            .transport
            .open_federation(name, KeySource::FromPeers(Duration::from_secs(3)))
            .map_err(|e| {
                RtiError::FederationExecutionDoesNotExist(format!("federation {name}: {e}"))
            })?;
        let mut core = FederationCore::joining(name, self.node_id().0, self.now(), members);
        core.set_stream_numbering(numbering(&channel));
        core.set_cells_per_dimension(channel.cells_per_dimension());
        core.set_mom_host(&host_name());
        let mut st = self.lock();
        st.tags.insert(channel.tag(), Arc::from(name));
        let ch_members = channel.members();
        let metrics = FedMetrics::new(name, self.shared.metrics_on);
        let fed = st.host.open(name, core, Io { channel, metrics });
        // Peers whose data channel opened before the core existed.
        for n in ch_members {
            if let Some(ev) = channel_peer(fed, n) {
                fed.core.handle(now_us(&self.shared), ev);
            }
        }
        run_actions(&self.shared, &mut st, name);
        tracing::debug!(
            federation = name,
            since_us = began.elapsed().as_micros() as u64,
            "federation channel open (key fetched)"
        );
        Ok(())
    }

    fn wait(&self, federation: &str, t: Ticket) -> RtiResult<Completion> {
        let deadline = Instant::now() + CALL_TIMEOUT;
        let mut st = self.lock();
        if callback_queue::in_receive_turn() && !st.host.is_done(federation, t) {
            // An immediate callback on a receive thread asked for something the coordinator must
            // answer: the answer may need this very thread (it receives the data the answer is
            // ordered behind, or the answer itself), so waiting could only time out.
            return Err(RtiError::CallNotAllowedFromWithinCallback(format!(
                "federation {federation}: a call that waits for the coordinator cannot be made                  from an immediate callback on an LRC receive thread; make it from the                  federate's own thread"
            )));
        }
        loop {
            if let Some(r) = st.host.take_done(federation, t) {
                return r;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(RtiError::RtiInternalError(format!(
                    "federation {federation}: no answer from the coordinator within {CALL_TIMEOUT:?}"
                )));
            }
            st = self
                .shared
                .cv
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Joins a federate; its callbacks go to `queue` (e.g. [`CallbackQueue::detached`]).
    pub fn join(
        &self,
        federation: &str,
        name: Option<&str>,
        federate_type: &str,
        queue: Arc<CallbackQueue>,
    ) -> RtiResult<FederateHandle> {
        self.join_with_modules(federation, name, federate_type, Vec::new(), queue)
    }

    /// Joins a federate that brings additional FOM modules (designator, XML).
    pub fn join_with_modules(
        &self,
        federation: &str,
        name: Option<&str>,
        federate_type: &str,
        modules: Vec<(String, String)>,
        queue: Arc<CallbackQueue>,
    ) -> RtiResult<FederateHandle> {
        self.ensure_open(federation)?;
        let t = {
            let mut st = self.lock();
            let t = st.host.join(
                federation,
                name.map(str::to_string),
                federate_type,
                modules,
                queue,
            )?;
            run_actions(&self.shared, &mut st, federation);
            t
        };
        tracing::debug!(federation, "join requested");
        let r = self.wait(federation, t);
        tracing::debug!(federation, ok = r.is_ok(), "join answered");
        self.lock().host.forget_join(federation, t);
        match r? {
            Completion::Joined(h) => {
                // Admitted: this LRC announces the federation's time implementation too (the
                // creator may leave).
                let mut st = self.lock();
                if let Some(f) = st.host.get_mut(federation) {
                    f.io.channel.set_note(f.core.time_kind().name());
                }
                Ok(h)
            }
            Completion::Done => Err(internal("join completed without a handle")),
        }
    }

    /// The cell holding joined federate `h`'s current handle (a federation restore may change
    /// it).
    pub(crate) fn handle_cell(&self, federation: &str, h: FederateHandle) -> Arc<AtomicU32> {
        self.lock()
            .cells
            .entry((federation.to_string(), h))
            .or_insert_with(|| Arc::new(AtomicU32::new(h.0)))
            .clone()
    }

    /// Resigns a federate.
    pub fn resign(
        &self,
        federation: &str,
        federate: FederateHandle,
        action: crate::core::wire::ResignAction,
    ) -> RtiResult<()> {
        let t = self.with_core(federation, |c| c.resign(federate, action))?;
        self.wait(federation, t)?;
        let mut st = self.lock();
        st.host.resigned(federation, federate);
        st.cells.remove(&(federation.to_string(), federate));
        Ok(())
    }

    /// Destroys a federation execution (from a member or from any LRC that sees it).
    pub fn destroy(&self, federation: &str) -> RtiResult<()> {
        let was_open = self.lock().host.contains(federation);
        self.ensure_open(federation)?;
        let t = self.with_core(federation, |c| Ok(c.destroy()))?;
        let r = self.wait(federation, t);
        if r.is_ok() || !was_open {
            self.close(federation);
        }
        r.map(|_| ())
    }

    /// Leaves every federation open here that no federate of this LRC is joined to, joining
    /// or resigning from (`disconnect` after the last resignation): the coordinator decides the
    /// departure, and once the other members applied it the channel closes. The others stop
    /// counting this LRC at once (a time-managed federation, a synchronization point, a joiner's
    /// state transfer and the coordinator's acknowledgements no longer wait for it) and see it
    /// leave, not lose it; this LRC may join again later. A federation whose coordinator does
    /// not answer within the call timeout is closed all the same (the others then see the
    /// channel close, as when the process exits).
    pub fn leave_idle(&self) {
        let names = self.lock().host.names();
        for name in names {
            let asked = self.with_core(&name, |c| {
                if !c.hosts_nobody() {
                    return Ok(None);
                }
                if !c.is_admitted() {
                    return Ok(Some(None));
                }
                c.leave().map(|t| Some(Some(t)))
            });
            let t = match asked {
                Ok(Some(t)) => t,
                Ok(None) | Err(_) => continue,
            };
            if let Some(t) = t {
                match self.wait(&name, t) {
                    Ok(_) => {}
                    // A federate of this process joined meanwhile: it stays a member.
                    Err(RtiError::FederateIsExecutionMember(_)) => continue,
                    Err(e) => tracing::warn!(federation = %name, "leaving: {e}; closing anyway"),
                }
            }
            // A join another ambassador of this process started meanwhile keeps it open.
            let idle = self
                .with_core(&name, |c| Ok(c.hosts_nobody()))
                .unwrap_or(false);
            if idle {
                self.close(&name);
                tracing::debug!(federation = %name, "left the federation");
            }
        }
    }

    fn close(&self, federation: &str) {
        let mut st = self.lock();
        if let Some(io) = st.host.close(federation) {
            st.tags.remove(&io.channel.tag());
            self.shared.transport.close_federation(io.channel.tag());
        }
    }
}

/// The core's event for `node`, which opened `fed`'s data channel, with where its stream
/// starts here (a peer connected after it sent has its earlier data missing here, which the
/// core makes up for by state transfer); `None` if it is no longer a member.
fn channel_peer(fed: &Fed, node: NodeId) -> Option<Event<'static>> {
    fed.io
        .channel
        .first_seq(node)
        .map(|first_seq| Event::ChannelPeer {
            node: node.0,
            first_seq,
        })
}

/// A federation core's DDM region counters ([`Lrc::ddm_region_counters`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DdmRegionCounters {
    /// Update-region moves sent to the cells the region leaves and enters only, not announced
    /// to every LRC (`docs/DDM.md`, "Moves within the cells").
    pub moves_in_cells: u64,
    /// Of those, the moves that went inside the update that followed them
    /// (`hlamesh_core::core::move_fold`).
    pub moves_folded: u64,
    /// Best-effort updates dropped because they overtook the update-region announcement they
    /// were sent after.
    pub stale_drops: u64,
}

/// The channel's rule for numbering reliable messages, for the core (see
/// `hlamesh_core::core::stream_numbering`).
fn numbering(channel: &FederationChannel) -> StreamNumbering {
    let (max_whole, fragment) = channel.numbering();
    StreamNumbering {
        max_whole,
        fragment,
    }
}

fn now_us(s: &Shared) -> u64 {
    s.epoch.elapsed().as_micros() as u64
}

/// Executes every action the federation's host queued (see [`driver::run_actions`]).
fn run_actions(shared: &Shared, st: &mut State, federation: &str) {
    let State {
        host, tags, cells, ..
    } = st;
    let mut io = ShellIo {
        shared,
        tags,
        cells,
    };
    driver::run_actions(host, &mut io, federation);
}

/// What the driver ([`crate::driver`]) does through this shell: the transport's channels,
/// the callback queues, the save files, the metrics and the pump's wake-ups, with the parts of
/// the LRC's state the actions touch besides the host: the tag table and the handle cells.
struct ShellIo<'a> {
    shared: &'a Shared,
    tags: &'a mut HashMap<FederationTag, Arc<str>>,
    cells: &'a mut HashMap<(String, FederateHandle), Arc<AtomicU32>>,
}

impl DriverIo<Io, Arc<CallbackQueue>> for ShellIo<'_> {
    type Error = hlamesh_transport::TransportError;

    fn now(&self) -> u64 {
        now_us(self.shared)
    }

    fn federation_of(&self, tag: FederationTag) -> Option<Arc<str>> {
        self.tags.get(&tag).cloned()
    }

    fn first_seq(&self, channel: &Io, node: NodeId) -> Option<u64> {
        channel.channel.first_seq(node)
    }

    fn send_numbered(
        &mut self,
        channel: &Io,
        seq: u64,
        bytes: &[u8],
        hold: bool,
    ) -> Result<u64, Self::Error> {
        channel.channel.send_numbered(seq, bytes, hold)
    }

    fn send(
        &mut self,
        channel: &Io,
        reliable: bool,
        bytes: &[u8],
        held: bool,
    ) -> Result<Option<u64>, Self::Error> {
        let r = if reliable {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        };
        if held {
            channel.channel.send_held(r, bytes)
        } else {
            channel.channel.send(r, bytes)
        }
    }

    fn flush(&mut self, channel: &Io) {
        channel.channel.flush();
    }

    fn send_to_cells(
        &mut self,
        channel: &Io,
        bytes: &[u8],
        cells: &[u32],
        seq: Option<u64>,
    ) -> Result<Option<u64>, Self::Error> {
        match seq {
            Some(seq) => channel
                .channel
                .send_reliable_to_cells(bytes, cells, Some(seq))
                .map(Some),
            None => channel.channel.send_to_cells(bytes, cells).map(|()| None),
        }
    }

    fn set_cells(&mut self, channel: &Io, cells: &[u32]) {
        channel.channel.set_cells(cells);
    }

    fn send_control(
        &mut self,
        to: u64,
        channel: &Io,
        causal: bool,
        bytes: &[u8],
    ) -> Result<(), Self::Error> {
        self.shared.transport.send_federation_control(
            NodeId(to),
            channel.channel.tag(),
            causal,
            bytes,
        )
    }

    fn close(&mut self, _federation: &str, channel: Io, _core: Box<FederationCore>) {
        self.tags.remove(&channel.channel.tag());
        self.shared
            .transport
            .close_federation(channel.channel.tag());
    }

    fn deliver(&mut self, route: Arc<CallbackQueue>, _federate: FederateHandle, cb: Callback) {
        route.push(Delivery::Core(cb));
    }

    fn connection_lost(&mut self, route: Arc<CallbackQueue>, reason: &str) {
        route.push(Delivery::ConnectionLost(reason.to_string()));
    }

    fn calls_finished(&mut self) {
        self.shared.cv.notify_all();
    }

    fn read_save(
        &mut self,
        federation: &str,
        label: &str,
        name: &str,
    ) -> Result<crate::core::save::SavedFederateState, String> {
        let path =
            crate::save_file::rti_file(&crate::save_file::save_root(), federation, label, name);
        crate::save_file::read(&path).map_err(|e| e.to_string())
    }

    fn write_save(
        &mut self,
        federation: &str,
        state: &crate::core::save::SavedFederateState,
    ) -> bool {
        let path = crate::save_file::rti_file(
            &crate::save_file::save_root(),
            federation,
            &state.label,
            &state.federate_name,
        );
        match crate::save_file::write(&path, state) {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(federation, "{e}");
                false
            }
        }
    }

    fn rehandled(&mut self, federation: &str, renames: &[(FederateHandle, FederateHandle)]) {
        rehandle_cells(self.cells, federation, renames);
    }

    fn note_deadline(&mut self, at: Option<u64>) {
        note_deadline(self.shared, at);
    }

    fn call_begin(&mut self, fed: &mut Fed) {
        fed.io.metrics.call_begin();
    }

    fn call_end(&mut self, fed: &mut Fed) {
        fed.io.metrics.call_end(&fed.core);
    }

    fn data_in(&mut self, fed: &mut Fed, from: NodeId, seq: Option<u64>) {
        if self.shared.metrics_on {
            fed.io.metrics.data_in(from.0, seq);
        }
    }

    fn data_done(&mut self, fed: &mut Fed) {
        if self.shared.metrics_on {
            fed.io.metrics.data_done();
        }
    }

    fn data_sent(
        &mut self,
        fed: &mut Fed,
        federation: &str,
        class: Option<crate::core::DataClass>,
        len: usize,
        seq: Option<u64>,
    ) {
        if let Some(m) = fed.io.metrics.data_sent(&fed.core, class, len, seq) {
            ops_plane::send_mark(self.shared, &fed.io.channel, federation, m);
        }
    }

    fn callback_out(&mut self, fed: &mut Fed, federate: FederateHandle, callback: &Callback) {
        if self.shared.metrics_on {
            fed.io.metrics.callback(&fed.core, federate, callback);
        }
    }

    fn federate_lost(&mut self, fed: &mut Fed) {
        fed.io.metrics.federate_lost();
    }

    fn actions_done(&mut self, fed: &mut Fed) {
        fed.io.metrics.actions_done();
    }
}

/// A restore renamed local federates: the handles their ambassadors read follow, all at once
/// (two federates may swap handles). Their routes moved in the host.
fn rehandle_cells(
    cells: &mut HashMap<(String, FederateHandle), Arc<AtomicU32>>,
    federation: &str,
    renames: &[(FederateHandle, FederateHandle)],
) {
    let key = |h: FederateHandle| (federation.to_string(), h);
    let moved: Vec<_> = renames
        .iter()
        .map(|(old, new)| (*new, cells.remove(&key(*old))))
        .collect();
    for (new, cell) in moved {
        if let Some(c) = cell {
            c.store(new.0, Ordering::SeqCst);
            cells.insert(key(new), c);
        }
    }
}

fn feed(shared: &Shared, st: &mut State, federation: &str, ev: Event<'_>) {
    let State {
        host, tags, cells, ..
    } = st;
    let mut io = ShellIo {
        shared,
        tags,
        cells,
    };
    driver::feed(host, &mut io, federation, ev);
}

/// Wakes the pump when a core's next deadline (`deadline`, µs) comes before the end of the
/// pump's wait. Called under the state lock, as the pump writes `pump_until`.
fn note_deadline(shared: &Shared, deadline: Option<u64>) {
    if deadline.is_some_and(|d| d < shared.pump_until.load(Ordering::SeqCst)) {
        // Full: a wake is pending already.
        let _ = shared.wake.0.try_send(());
    }
}

/// Handles one transport event: on the receive thread of its turn (the transport driver
/// installed by [`Lrc::start`]) or on the pump thread (events from other threads). Operations
/// plane messages are this shell's; everything else is translated by [`driver::on_event`].
fn on_event(shared: &Shared, st: &mut State, ev: TransportEvent) {
    if let TransportEvent::Control { from, payload, .. } = &ev
        && OpsMsg::is_ops(payload)
    {
        ops_plane::handle(shared, st, *from, payload);
        return;
    }
    let State {
        host, tags, cells, ..
    } = st;
    let mut io = ShellIo {
        shared,
        tags,
        cells,
    };
    driver::on_event(host, &mut io, ev);
}

/// Runs the cores on the transport's own receive threads: each receive turn — a datagram on
/// the data thread (or on an application thread lent the socket), a control frame or a peer's
/// departure on the control thread — is handed to this driver, which takes the LRC's lock,
/// runs the transport's part of the turn under it ([`Turn::run`], which takes and releases the
/// receive path's lock) and feeds the events it returns to the cores, in order. The callbacks
/// they produced are delivered on the same thread once the lock is released
/// ([`Driver::idle`], see [`crate::callback_queue`]). That saves two thread hand-offs per
/// message against handing events to the pump thread and callbacks to a delivery thread.
/// Events from other threads (a peer connected, on the QUIC runtime) still go through the
/// event channel to the pump thread.
///
/// Calls go one way: the LRC's state lock is taken first and the transport's locks only inside
/// it; the transport calls the driver with none of its locks held and never calls up into the
/// LRC otherwise.
struct LrcDriver(std::sync::Weak<Shared>);

impl Driver for LrcDriver {
    fn turn(&self, turn: Turn<'_>) {
        let Some(shared) = self.0.upgrade() else {
            // The LRC is going away: the transport's part still runs (nothing is left unread
            // half-way), its events have nobody to go to.
            turn.run(&mut Vec::new());
            return;
        };
        let receive_turn = callback_queue::receive_turn(true);
        let was = callback_queue::defer(true);
        {
            let mut st = shared.state.lock().unwrap_or_else(|e| e.into_inner());
            // Reused: a turn allocates no event list.
            let mut events = std::mem::take(&mut st.turn_events);
            turn.run(&mut events);
            for ev in events.drain(..) {
                on_event(&shared, &mut st, ev);
            }
            st.turn_events = events;
        }
        callback_queue::defer(was);
        callback_queue::receive_turn(receive_turn);
    }

    fn idle(&self) {
        let receive_turn = callback_queue::receive_turn(true);
        callback_queue::deliver_pending();
        callback_queue::receive_turn(receive_turn);
    }
}

fn install_driver(shared: &Arc<Shared>) {
    shared
        .transport
        .set_driver(Some(Arc::new(LrcDriver(Arc::downgrade(shared)))));
}

fn pump(weak: std::sync::Weak<Shared>) {
    let mut last_tick = Instant::now();
    // A clone of the event channel: the wait below must not hold the LRC alive, or the last
    // user's drop would leave the transport's shutdown (and its goodbyes) to this thread, which
    // a process exit kills first.
    let (events, wake) = match weak.upgrade() {
        Some(s) => (s.transport.events().clone(), s.wake.1.clone()),
        None => return,
    };
    let mut wait = TICK;
    loop {
        // Until the next event, the next tick or the cores' next deadline (update rates), or a
        // wake-up when a core's deadline came sooner (`note_deadline`).
        let ev = crossbeam_channel::select! {
            recv(events) -> ev => ev.map_err(|_| crossbeam_channel::RecvTimeoutError::Disconnected),
            recv(wake) -> _ => Err(crossbeam_channel::RecvTimeoutError::Timeout),
            default(wait) => Err(crossbeam_channel::RecvTimeoutError::Timeout),
        };
        let Some(shared) = weak.upgrade() else { return };
        let mut st = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        match ev {
            Ok(ev) => on_event(&shared, &mut st, ev),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                // The transport stopped: every federate here lost its connection.
                let reason = "the transport of this LRC stopped".to_string();
                tracing::error!("{reason}");
                for (routes, io) in st.host.transport_stopped(&reason) {
                    for q in routes {
                        q.push(Delivery::ConnectionLost(reason.clone()));
                    }
                    shared.transport.close_federation(io.channel.tag());
                }
                shared.cv.notify_all();
                return;
            }
        }
        if last_tick.elapsed() >= TICK {
            last_tick = Instant::now();
            ops_plane::tick(&shared, &mut st);
            let peers = shared.transport.peers();
            for n in st.host.names() {
                // FederationPeer events that raced with opening the channel.
                let open = st
                    .host
                    .get(&n)
                    .map(|f| f.io.channel.members())
                    .unwrap_or_default();
                for m in open {
                    let ev = st
                        .host
                        .get(&n)
                        .filter(|f| !f.core.has_channel_peer(m.0))
                        .and_then(|f| channel_peer(f, m));
                    if let Some(ev) = ev {
                        feed(&shared, &mut st, &n, ev);
                    }
                }
                // Candidates for a joiner, suspicion of unreachable members, the core's tick.
                st.host.tick(
                    now_us(&shared),
                    &n,
                    || members_of(&shared, &n),
                    |m| peers.contains(&NodeId(m)),
                );
                run_actions(&shared, &mut st, &n);
            }
        }
        // The cores' deadlines due (held values of update rates, `core::update_rate`).
        let now = now_us(&shared);
        for n in st.host.handle_timeouts(now) {
            run_actions(&shared, &mut st, &n);
        }
        let tick_left = TICK.saturating_sub(last_tick.elapsed());
        let now = now_us(&shared);
        wait = match st.host.poll_timeout() {
            Some(d) => tick_left.min(Duration::from_micros(d.saturating_sub(now))),
            None => tick_left,
        };
        shared.pump_until.store(
            now.saturating_add(wait.as_micros() as u64),
            Ordering::SeqCst,
        );
    }
}

/// This machine's host name, for the MOM's `HLAfederateHost` (the kernel's, else `$HOSTNAME`,
/// else `localhost`).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_string())
}
