//! The process-level core: every federation this LRC has open and the decisions around the
//! [`FederationCore`]s that no single federation makes — which local federate a callback goes to
//! (holding those of a federate whose join has not completed yet), what a restore's renaming of
//! handles moves, which blocking calls have finished, which members of a view this process has
//! not been able to reach for too long, and which federations it lost its connection to.
//!
//! Like the cores it holds, a [`Host`] does no I/O and reads no clock: the shell
//! (`crate::node`) gives it the time with every input and executes the [`HostAction`]s it is
//! polled for. The simulator (`lrc/core/tests/rti_sim.rs`) drives the same type, so what it checks is
//! the routing the shell runs, not a copy of it.
//!
//! The host is generic over what the shell keeps beside each core (`F`: the transport channel
//! and the metrics in the shell, nothing in the simulator) and over the route to a federate
//! (`R`: the federate's callback queue in the shell), so the decisions stay here while the
//! shell's types stay in the shell.

// Keys are federation names and handles an authenticated federation chose (see `crate::node`).
use rustc_hash::FxHashMap as HashMap;

use crate::core::{Action, Callback, Completion, Event, FederationCore, Node, Ticket};
use crate::error::RtiError;
use crate::handles::FederateHandle;

/// Bound on callbacks held for federates whose join has not completed yet (all federations).
pub const EARLY_CALLBACKS_MAX: usize = 4096;

/// A member of a view that this LRC cannot reach for this long (µs) is reported gone to the
/// core: it died before this LRC connected to it, so the transport never reports it lost.
pub const UNREACHABLE_US: u64 = 2_000_000;

/// One open federation: its core, what the shell keeps beside it, and its routes.
#[derive(Debug)]
pub struct HostedFederation<F, R> {
    /// The federation's core.
    pub core: FederationCore,
    /// What the shell keeps beside the core (channel, metrics).
    pub io: F,
    /// Each local federate's route, from its completed join on.
    routes: HashMap<FederateHandle, R>,
    /// Routes of joins not completed yet, by ticket.
    join_routes: HashMap<Ticket, R>,
    /// Callbacks for a federate whose join is decided but not completed here (e.g. the
    /// announcement of a pending federation-wide synchronization point), in order.
    early: HashMap<FederateHandle, Vec<Callback>>,
    /// View members not reachable, since when (µs).
    unreachable_since: HashMap<Node, u64>,
    /// The core destroyed the federation or lost its connection: closed once its last action
    /// was polled.
    closing: bool,
}

impl<F, R> HostedFederation<F, R> {
    /// The route of local federate `federate`, once its join has completed here.
    pub fn route(&self, federate: FederateHandle) -> Option<&R> {
        self.routes.get(&federate)
    }

    /// Every local federate's route.
    pub fn routes(&self) -> impl Iterator<Item = (&FederateHandle, &R)> {
        self.routes.iter()
    }
}

/// A federate whose join completed on this LRC.
#[derive(Debug)]
pub struct JoinedHere<R> {
    /// Its handle.
    pub federate: FederateHandle,
    /// Its route from now on.
    pub route: R,
    /// Callbacks it was given before its join completed here, in order.
    pub held: Vec<Callback>,
}

/// What the shell executes for a [`Host`], in the order polled.
#[derive(Debug)]
pub enum HostAction<F, R> {
    /// Multicast on the federation's data channel (see [`Action::SendData`]).
    SendData {
        /// Reliable (sequenced) or best effort.
        reliable: bool,
        /// Its number in this LRC's reliable stream (reliable messages).
        seq: Option<u64>,
        /// Encoded data message.
        bytes: Vec<u8>,
        /// What it is about, for per-class counters.
        class: Option<crate::core::DataClass>,
        /// May wait for the next message of this LRC's stream.
        hold: bool,
    },
    /// Multicast a message on DDM cell groups (see [`Action::SendToCells`]).
    SendToCells {
        /// Its number in the LRC's reliable stream; `None`: best effort.
        seq: Option<u64>,
        /// Encoded data message.
        bytes: Vec<u8>,
        /// Cell keys.
        cells: Vec<u32>,
        /// What it is about, for per-class counters.
        class: Option<crate::core::DataClass>,
    },
    /// Join the DDM cell groups of these cells, leave the others (see [`Action::SetCells`]).
    SetCells {
        /// Cell keys.
        cells: Vec<u32>,
    },
    /// Multicast a time message reliably and at once (see [`Action::SendTime`]).
    SendTime {
        /// Its number in this LRC's reliable stream.
        seq: u64,
        /// Encoded time message.
        bytes: Vec<u8>,
    },
    /// Send an envelope to one LRC (see [`Action::SendControl`]).
    SendControl {
        /// Destination.
        to: Node,
        /// Ordered after this LRC's data.
        causal: bool,
        /// Bytes.
        bytes: Vec<u8>,
    },
    /// Hand `callback` to local federate `federate` by its route.
    Deliver {
        /// The federate's route.
        route: R,
        /// The federate.
        federate: FederateHandle,
        /// What.
        callback: Callback,
    },
    /// A blocking call finished; its result waits in [`Host::take_done`].
    Completed {
        /// Which.
        ticket: Ticket,
        /// For a join, the federate that joined here, now routed, with the callbacks held for
        /// it until now (deliver them first, in order).
        joined: Option<JoinedHere<R>>,
    },
    /// A federate was resigned because its LRC was lost.
    FederateLost {
        /// Handle.
        federate: FederateHandle,
        /// Its name.
        name: String,
    },
    /// Read a save file and hand it to [`FederationCore::restore_loaded`].
    LoadRestore {
        /// Federate.
        federate: FederateHandle,
        /// Save label.
        label: String,
        /// Its name in the save.
        name: String,
    },
    /// Write a save file, then call [`FederationCore::save_written`].
    WriteSave {
        /// Federate.
        federate: FederateHandle,
        /// Its state.
        state: Box<crate::core::save::SavedFederateState>,
    },
    /// A restore gave local federates their saved handles (old, new), applied all at once;
    /// routes and held callbacks have moved already, handles the shell keeps must follow.
    Rehandled(Vec<(FederateHandle, FederateHandle)>),
    /// This LRC is no longer part of the federation: tell every route `connection_lost`.
    ConnectionLost {
        /// The routes of the federation's local federates.
        routes: Vec<R>,
        /// The fault description.
        reason: String,
    },
    /// The federation is closed here (destroyed, or the connection lost): release what the
    /// shell kept beside its core.
    Closed {
        /// What the shell kept beside the core.
        io: F,
        /// The core in its final state.
        core: Box<FederationCore>,
    },
}

/// Every federation open in this process, with the routing decisions around them.
#[derive(Debug)]
pub struct Host<F, R> {
    feds: HashMap<String, HostedFederation<F, R>>,
    /// Federations this LRC lost its connection to, with the reason: the members keep this
    /// node id in their removed sets, so it cannot join them again.
    lost: HashMap<String, String>,
    /// Finished blocking calls not yet taken by their caller, by federation (kept apart from
    /// the federation: a destroy completes as the federation closes).
    done: HashMap<(String, Ticket), Result<Completion, RtiError>>,
    /// Callbacks held in every federation's `early`.
    early_held: usize,
}

impl<F, R> Default for Host<F, R> {
    fn default() -> Self {
        Host {
            feds: HashMap::default(),
            lost: HashMap::default(),
            done: HashMap::default(),
            early_held: 0,
        }
    }
}

impl<F, R: Clone> Host<F, R> {
    /// No federation open.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens federation `name` with its core (created or joining) and the shell's part; an
    /// open one stays as it is.
    pub fn open(&mut self, name: &str, core: FederationCore, io: F) -> &mut HostedFederation<F, R> {
        self.feds
            .entry(name.to_string())
            .or_insert_with(|| HostedFederation {
                core,
                io,
                routes: HashMap::default(),
                join_routes: HashMap::default(),
                early: HashMap::default(),
                unreachable_since: HashMap::default(),
                closing: false,
            })
    }

    /// Is `name` open here?
    pub fn contains(&self, name: &str) -> bool {
        self.feds.contains_key(name)
    }

    /// Federation `name`, if open.
    pub fn get(&self, name: &str) -> Option<&HostedFederation<F, R>> {
        self.feds.get(name)
    }

    /// Federation `name`, if open.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut HostedFederation<F, R>> {
        self.feds.get_mut(name)
    }

    /// Every open federation.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &HostedFederation<F, R>)> {
        self.feds.iter()
    }

    /// Every open federation.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut HostedFederation<F, R>)> {
        self.feds.iter_mut()
    }

    /// Names of the open federations.
    pub fn names(&self) -> Vec<String> {
        self.feds.keys().cloned().collect()
    }

    /// Why this LRC lost its connection to `name`, if it did.
    pub fn lost_reason(&self, name: &str) -> Option<&str> {
        self.lost.get(name).map(String::as_str)
    }

    /// Closes `name` here (without telling the federation) and returns the shell's part.
    pub fn close(&mut self, name: &str) -> Option<F> {
        let f = self.feds.remove(name)?;
        self.early_held -= f.early.values().map(Vec::len).sum::<usize>();
        Some(f.io)
    }

    /// Joins a federate to `name` (see [`FederationCore::join_with_modules`]); its callbacks go
    /// by `route` once the join completes, and those that come before are held until then.
    pub fn join(
        &mut self,
        name: &str,
        federate_name: Option<String>,
        federate_type: &str,
        modules: Vec<(String, String)>,
        route: R,
    ) -> Result<Ticket, RtiError> {
        let fed = self
            .feds
            .get_mut(name)
            .ok_or_else(|| RtiError::FederationExecutionDoesNotExist(name.to_string()))?;
        let t = fed
            .core
            .join_with_modules(federate_name, federate_type, modules);
        fed.join_routes.insert(t, route);
        Ok(t)
    }

    /// The result of blocking call `ticket` of `name`, once it finished (taken once).
    pub fn take_done(
        &mut self,
        name: &str,
        ticket: Ticket,
    ) -> Option<Result<Completion, RtiError>> {
        self.done.remove(&(name.to_string(), ticket))
    }

    /// Has blocking call `ticket` of `name` finished (and its result not been taken)?
    pub fn is_done(&self, name: &str, ticket: Ticket) -> bool {
        self.done.contains_key(&(name.to_string(), ticket))
    }

    /// Forgets what was kept for join `ticket` (its caller stopped waiting for it).
    pub fn forget_join(&mut self, name: &str, ticket: Ticket) {
        if let Some(f) = self.feds.get_mut(name) {
            f.join_routes.remove(&ticket);
        }
        self.done.remove(&(name.to_string(), ticket));
    }

    /// Local federate `federate` resigned: its route and held callbacks go.
    pub fn resigned(&mut self, name: &str, federate: FederateHandle) {
        if let Some(f) = self.feds.get_mut(name) {
            f.routes.remove(&federate);
            if let Some(held) = f.early.remove(&federate) {
                self.early_held -= held.len();
            }
        }
    }

    /// Hands `ev` to `name`'s core at `now` (µs); poll [`Host::poll_action`] after.
    pub fn handle(&mut self, now: u64, name: &str, ev: Event<'_>) {
        if let Some(f) = self.feds.get_mut(name) {
            f.core.handle(now, ev);
        }
    }

    /// When the next deadline of any federation's core falls due (µs; update rates' held
    /// values, see [`crate::core::update_rate`]): the shell calls [`Host::handle_timeouts`]
    /// then.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.feds
            .values()
            .filter_map(|f| f.core.poll_timeout())
            .min()
    }

    /// Runs the deadlines due at `now` (µs) and returns the federations that ran some; poll
    /// each after.
    pub fn handle_timeouts(&mut self, now: u64) -> Vec<String> {
        let mut ran = Vec::new();
        for (name, f) in self.feds.iter_mut() {
            if f.core.poll_timeout().is_some_and(|d| d <= now) {
                f.core.handle_timeout(now);
                ran.push(name.clone());
            }
        }
        ran
    }

    /// The periodic work of federation `name` at `now` (µs): a joiner learns the LRCs that
    /// announce the federation (`announcers`); a view member that `reachable` has said no to for
    /// [`UNREACHABLE_US`] is reported gone; then the core's own tick. Poll after.
    pub fn tick(
        &mut self,
        now: u64,
        name: &str,
        announcers: impl FnOnce() -> Vec<Node>,
        reachable: impl Fn(Node) -> bool,
    ) {
        let Some(f) = self.feds.get_mut(name) else {
            return;
        };
        if !f.core.is_admitted() {
            // Its first candidates may be gone.
            f.core.add_candidates(announcers());
        }
        let me = f.core.me;
        let view = &f.core.view().nodes;
        f.unreachable_since.retain(|k, _| view.contains(k));
        let mut gone = Vec::new();
        for &m in view {
            if m == me || reachable(m) {
                f.unreachable_since.remove(&m);
            } else {
                let since = *f.unreachable_since.entry(m).or_insert(now);
                if now.saturating_sub(since) > UNREACHABLE_US {
                    gone.push(m);
                }
            }
        }
        for m in gone {
            f.core.handle(now, Event::PeerGone(m));
        }
        f.core.handle(now, Event::Tick);
    }

    /// The next action of `name` for the shell, with the routing decisions applied: callbacks
    /// come out addressed to their federate's route (or are held until its join completes),
    /// finished calls are kept for [`Host::take_done`], renamed federates' routes move, and a
    /// destroyed or lost federation ends with [`HostAction::Closed`].
    pub fn poll_action(&mut self, name: &str) -> Option<HostAction<F, R>> {
        loop {
            let fed = self.feds.get_mut(name)?;
            let Some(a) = fed.core.poll_action() else {
                if fed.closing {
                    let f = self.feds.remove(name)?;
                    self.early_held -= f.early.values().map(Vec::len).sum::<usize>();
                    return Some(HostAction::Closed {
                        io: f.io,
                        core: Box::new(f.core),
                    });
                }
                return None;
            };
            match a {
                Action::SendData {
                    reliable,
                    seq,
                    bytes,
                    class,
                    hold,
                } => {
                    return Some(HostAction::SendData {
                        reliable,
                        seq,
                        bytes,
                        class,
                        hold,
                    });
                }
                Action::SendToCells {
                    seq,
                    bytes,
                    cells,
                    class,
                } => {
                    return Some(HostAction::SendToCells {
                        seq,
                        bytes,
                        cells,
                        class,
                    });
                }
                Action::SetCells { cells } => {
                    return Some(HostAction::SetCells { cells });
                }
                Action::SendTime { seq, bytes } => {
                    return Some(HostAction::SendTime { seq, bytes });
                }
                Action::SendControl { to, causal, bytes } => {
                    return Some(HostAction::SendControl { to, causal, bytes });
                }
                Action::Callback { federate, callback } => {
                    if let Some(route) = fed.routes.get(&federate) {
                        return Some(HostAction::Deliver {
                            route: route.clone(),
                            federate,
                            callback,
                        });
                    }
                    if self.early_held < EARLY_CALLBACKS_MAX {
                        fed.early.entry(federate).or_default().push(callback);
                        self.early_held += 1;
                    } else {
                        tracing::warn!(
                            federation = name,
                            "dropped a callback for federate {federate}: it has no route"
                        );
                    }
                }
                Action::Complete { ticket, result } => {
                    let mut joined = None;
                    if let Ok(Completion::Joined(h)) = &result
                        && let Some(route) = fed.join_routes.remove(&ticket)
                    {
                        let held = fed.early.remove(h).unwrap_or_default();
                        self.early_held -= held.len();
                        fed.routes.insert(*h, route.clone());
                        joined = Some(JoinedHere {
                            federate: *h,
                            route,
                            held,
                        });
                    }
                    self.done.insert((name.to_string(), ticket), result);
                    return Some(HostAction::Completed { ticket, joined });
                }
                Action::FederateLost { federate, name } => {
                    return Some(HostAction::FederateLost { federate, name });
                }
                Action::Destroyed => fed.closing = true,
                Action::ConnectionLost { reason } => {
                    fed.closing = true;
                    let routes = fed.routes.values().cloned().collect();
                    self.lost.insert(name.to_string(), reason.clone());
                    return Some(HostAction::ConnectionLost { routes, reason });
                }
                Action::LoadRestore {
                    federate,
                    label,
                    name,
                } => {
                    return Some(HostAction::LoadRestore {
                        federate,
                        label,
                        name,
                    });
                }
                Action::WriteSave { federate, state } => {
                    return Some(HostAction::WriteSave { federate, state });
                }
                Action::Rehandle(renames) => {
                    let mut moved = Vec::new();
                    for (old, new) in &renames {
                        moved.push((*new, fed.routes.remove(old), fed.early.remove(old)));
                    }
                    for (new, route, early) in moved {
                        if let Some(r) = route {
                            fed.routes.insert(new, r);
                        }
                        if let Some(e) = early {
                            fed.early.insert(new, e);
                        }
                    }
                    return Some(HostAction::Rehandled(renames));
                }
            }
        }
    }

    /// The transport under every federation stopped: each is closed with `reason`, every
    /// route told. Returns, per federation, its routes and the shell's part.
    pub fn transport_stopped(&mut self, reason: &str) -> Vec<(Vec<R>, F)> {
        let mut out = Vec::new();
        for (name, f) in self.feds.drain() {
            self.lost.insert(name, reason.to_string());
            out.push((f.routes.into_values().collect(), f.io));
        }
        self.early_held = 0;
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::core::wire::{Envelope, ResignAction};

    const FOM: &str = include_str!("../../../fed-examples/foms/MovingObject.xml");
    const FED: &str = "HostTest";

    /// Routes in these tests are names, so a test can see where a callback went.
    type TestHost = Host<&'static str, &'static str>;

    fn created(me: Node) -> TestHost {
        let mut h = TestHost::new();
        let core = FederationCore::create(FED, me, 0, vec![("MO.xml".into(), FOM.into())])
            .expect("FOM loads");
        h.open(FED, core, "io");
        h
    }

    /// Polls every action, passing control messages to `other` (by node id), and returns the
    /// rest in order.
    fn drain(
        h: &mut TestHost,
        me: Node,
        now: u64,
        mut other: Option<(&mut TestHost, Node)>,
    ) -> Vec<HostAction<&'static str, &'static str>> {
        let mut out = Vec::new();
        while let Some(a) = h.poll_action(FED) {
            match a {
                HostAction::SendControl { to, bytes, .. } => {
                    if let Some((o, id)) = other.as_mut()
                        && *id == to
                    {
                        let env = Envelope::decode(&bytes).unwrap();
                        o.handle(
                            now,
                            FED,
                            Event::Control {
                                from: me,
                                msg: env.msg,
                            },
                        );
                    }
                }
                a => out.push(a),
            }
        }
        out
    }

    fn join(h: &mut TestHost, name: &'static str) -> FederateHandle {
        let t = h
            .join(FED, Some(name.into()), "t", Vec::new(), name)
            .unwrap();
        let out = drain(h, 1, 0, None);
        let joined = out.iter().find_map(|a| match a {
            HostAction::Completed {
                ticket,
                joined: Some(j),
            } if *ticket == t => Some(j.federate),
            _ => None,
        });
        let f = joined.expect("a lone coordinator completes a join at once");
        assert!(matches!(
            h.take_done(FED, t),
            Some(Ok(Completion::Joined(x))) if x == f
        ));
        assert!(h.take_done(FED, t).is_none(), "a result is taken once");
        f
    }

    #[test]
    fn callbacks_go_by_the_route_of_the_federate_they_are_for() {
        let mut h = created(1);
        let a = join(&mut h, "a");
        let b = join(&mut h, "b");
        h.get_mut(FED)
            .unwrap()
            .core
            .register_federation_synchronization_point(a, "P", b"", None)
            .unwrap();
        let mut to = Vec::new();
        for x in drain(&mut h, 1, 0, None) {
            if let HostAction::Deliver {
                route,
                federate,
                callback: Callback::AnnounceSynchronizationPoint { .. },
            } = x
            {
                to.push((route, federate));
            }
        }
        to.sort();
        let mut want = vec![("a", a), ("b", b)];
        want.sort();
        assert_eq!(to, want, "each federate's announcement by its own route");
    }

    #[test]
    fn a_resigned_federate_has_no_route_and_a_destroy_closes_with_its_result_kept() {
        let mut h = created(1);
        let a = join(&mut h, "a");
        assert_eq!(h.get(FED).unwrap().route(a), Some(&"a"));
        let t = h
            .get_mut(FED)
            .unwrap()
            .core
            .resign(a, ResignAction::NoAction)
            .unwrap();
        let _ = drain(&mut h, 1, 0, None);
        assert!(matches!(h.take_done(FED, t), Some(Ok(Completion::Done))));
        h.resigned(FED, a);
        assert!(h.get(FED).unwrap().route(a).is_none());

        let t = h.get_mut(FED).unwrap().core.destroy();
        let out = drain(&mut h, 1, 0, None);
        assert!(
            matches!(out.last(), Some(HostAction::Closed { io: "io", core }) if core.view().destroyed),
            "the federation closes last, with what the shell kept: {out:?}"
        );
        assert!(!h.contains(FED));
        assert!(
            matches!(h.take_done(FED, t), Some(Ok(Completion::Done))),
            "the destroy's result outlives the federation"
        );
    }

    #[test]
    fn a_view_member_unreachable_for_two_seconds_is_reported_gone() {
        // Node 1 coordinates; node 2 joins through it.
        let mut h1 = created(1);
        let _a = join(&mut h1, "a");
        let mut h2 = TestHost::new();
        h2.open(FED, FederationCore::joining(FED, 2, 0, vec![1]), "io");
        let t = h2
            .join(FED, Some("b".into()), "t", Vec::new(), "b")
            .unwrap();
        // Exchange control messages until the join completes (bounded).
        let mut joined = false;
        for _ in 0..20 {
            for a in drain(&mut h2, 2, 0, Some((&mut h1, 1))) {
                joined |= matches!(a, HostAction::Completed { ticket, .. } if ticket == t);
            }
            let _ = drain(&mut h1, 1, 0, Some((&mut h2, 2)));
            if joined {
                break;
            }
        }
        assert!(joined, "node 2 joined through node 1");
        assert!(h1.get(FED).unwrap().core.view().nodes.contains(&2));

        let reach = |n: Node| n != 2;
        let lost = |h: &mut TestHost, now: u64| {
            h.tick(now, FED, Vec::new, reach);
            drain(h, 1, now, None)
                .into_iter()
                .any(|a| matches!(a, HostAction::FederateLost { .. }))
        };
        assert!(!lost(&mut h1, 1_000_000), "first seen unreachable");
        assert!(!lost(&mut h1, 2_900_000), "1.9 s later: still a member");
        assert!(
            lost(&mut h1, 3_100_000),
            "2.1 s later: gone, its federate lost"
        );
        assert!(!h1.get(FED).unwrap().core.view().nodes.contains(&2));
    }
}
