//! The driver that runs one LRC's [`Host`] over an abstract transport and environment: what the
//! shell does with each [`TransportEvent`] (which core event it is, for which federation) and
//! with each [`HostAction`] (a send under its number, a flush, a causal control message, a
//! callback pushed to its federate's route, a save file read or written, a channel closed).
//!
//! It does no I/O and reads no clock itself: everything it needs from the outside goes through
//! [`DriverIo`], which the shell (`crate::node`) implements over its `FederationChannel`s, its
//! `Transport`, the callback queues and the save files, and which the unified simulator
//! (`hlamesh-sim`) implements over its simulated network, disk and federates. So the
//! translation both run is this one, not a copy of it.
//!
//! The host is generic over what the caller keeps beside each core (`F`: the shell's channel
//! and metrics) and over the route to a federate (`R`); the driver passes them back to
//! [`DriverIo`] untouched. The metrics hooks have empty defaults.

use std::sync::Arc;

use hlamesh_transport::{FederationTag, NodeId, TransportEvent};

use crate::core::save::SavedFederateState;
use crate::core::wire::Envelope;
use crate::core::{Callback, DataClass, Event, FederationCore, Node, OutgoingData};
use crate::handles::FederateHandle;
use crate::host::{Host, HostAction, HostedFederation};

/// The I/O one LRC's driver needs. `F` is what the caller keeps beside each federation's core
/// (its data channel), `R` the route to a local federate (its callback queue).
pub trait DriverIo<F, R> {
    /// Why a send failed (logged; the driver carries on, as the transport's repair and the
    /// core's retries make up for what can be made up for).
    type Error: std::fmt::Display;

    /// Now, in µs on the clock the cores are handed.
    fn now(&self) -> u64;

    /// The federation whose data channel has tag `tag`, if it is open here.
    fn federation_of(&self, tag: FederationTag) -> Option<Arc<str>>;

    /// Where member `node`'s reliable stream starts on `channel` (`None`: not a member).
    fn first_seq(&self, channel: &F, node: NodeId) -> Option<u64>;

    /// Sends a reliable message under the number the core gave it (`hold`: it may wait for the
    /// next one). Refused, with nothing sent, if the channel would number it otherwise.
    fn send_numbered(
        &mut self,
        channel: &F,
        seq: u64,
        bytes: &[u8],
        hold: bool,
    ) -> Result<u64, Self::Error>;

    /// Sends a message the core did not number: best effort, or reliable numbered by the
    /// channel (`held`: it may wait for the next one). Returns its number if reliable.
    fn send(
        &mut self,
        channel: &F,
        reliable: bool,
        bytes: &[u8],
        held: bool,
    ) -> Result<Option<u64>, Self::Error>;

    /// Sends the channel's pending datagram now.
    fn flush(&mut self, channel: &F);

    /// Sends a message on the DDM cell groups of `cells` (see [`crate::core::cell_route`]):
    /// best effort, or reliable with the number `seq` the core gave it. Returns the reliable
    /// number. By default, like [`DriverIo::send`] / [`DriverIo::send_numbered`]: on the
    /// federation's default group, which every member hears.
    fn send_to_cells(
        &mut self,
        channel: &F,
        bytes: &[u8],
        cells: &[u32],
        seq: Option<u64>,
    ) -> Result<Option<u64>, Self::Error> {
        let _ = cells;
        match seq {
            Some(seq) => self.send_numbered(channel, seq, bytes, false).map(Some),
            None => self.send(channel, false, bytes, false),
        }
    }

    /// This LRC's subscriptions want to hear the DDM cells `cells`: join their groups, leave the
    /// others. By default nothing (a shell without cell groups hears everything on the default
    /// group).
    fn set_cells(&mut self, _channel: &F, _cells: &[u32]) {}

    /// Sends a control message of the federation of `channel` to LRC `to`; with `causal`,
    /// released there only after this LRC's data on that channel sent so far. Held for a peer
    /// not connected yet, it must not go out once the federation is closed here (`close`).
    fn send_control(
        &mut self,
        to: Node,
        channel: &F,
        causal: bool,
        bytes: &[u8],
    ) -> Result<(), Self::Error>;

    /// The federation `federation` is closed here: release its channel (`core` is its core in
    /// its final state).
    fn close(&mut self, federation: &str, channel: F, core: Box<FederationCore>);

    /// Hands `callback` to local federate `federate` by its route.
    fn deliver(&mut self, route: R, federate: FederateHandle, callback: Callback);

    /// Tells a federate by its route that this LRC lost its connection to the federation.
    fn connection_lost(&mut self, route: R, reason: &str);

    /// A blocking call finished, or a federation closed: wake the callers waiting.
    fn calls_finished(&mut self);

    /// Reads the RTI's part of federate `name`'s save `label` in `federation`.
    fn read_save(
        &mut self,
        federation: &str,
        label: &str,
        name: &str,
    ) -> Result<SavedFederateState, String>;

    /// Writes the RTI's part of a federate's save in `federation`; whether it was written.
    fn write_save(&mut self, federation: &str, state: &SavedFederateState) -> bool;

    /// A restore gave local federates of `federation` new handles (old, new), all at once.
    fn rehandled(&mut self, federation: &str, renames: &[(FederateHandle, FederateHandle)]);

    /// The federation's core has its next deadline at `at` (µs), if any: run
    /// [`Host::handle_timeouts`] by then.
    fn note_deadline(&mut self, _at: Option<u64>) {}

    /// Metrics: an API call on `fed`'s core begins.
    fn call_begin(&mut self, _fed: &mut HostedFederation<F, R>) {}

    /// Metrics: the API call on `fed`'s core returned.
    fn call_end(&mut self, _fed: &mut HostedFederation<F, R>) {}

    /// Metrics: a data message from `from` is about to be handled.
    fn data_in(&mut self, _fed: &mut HostedFederation<F, R>, _from: NodeId, _seq: Option<u64>) {}

    /// Metrics: the data message announced by [`DriverIo::data_in`] was handled.
    fn data_done(&mut self, _fed: &mut HostedFederation<F, R>) {}

    /// Metrics: a data message of `class` and `len` bytes left under `seq` (if reliable).
    fn data_sent(
        &mut self,
        _fed: &mut HostedFederation<F, R>,
        _federation: &str,
        _class: Option<DataClass>,
        _len: usize,
        _seq: Option<u64>,
    ) {
    }

    /// Metrics: `callback` is handed to `federate`.
    fn callback_out(
        &mut self,
        _fed: &mut HostedFederation<F, R>,
        _federate: FederateHandle,
        _callback: &Callback,
    ) {
    }

    /// Metrics: a federate was resigned because its LRC was lost.
    fn federate_lost(&mut self, _fed: &mut HostedFederation<F, R>) {}

    /// Metrics: every queued action of `fed` was executed.
    fn actions_done(&mut self, _fed: &mut HostedFederation<F, R>) {}
}

/// The core event for `node`, a member of the federation's channel since its stream stood at
/// `first_seq` (see [`Event::ChannelPeer`]).
pub fn channel_peer<F, R, D: DriverIo<F, R>>(
    io: &D,
    fed: &HostedFederation<F, R>,
    node: NodeId,
) -> Option<Event<'static>> {
    io.first_seq(&fed.io, node)
        .map(|first_seq| Event::ChannelPeer {
            node: node.0,
            first_seq,
        })
}

/// Handles one transport event: the core events it means, fed to the federation it is for
/// (every federation for a peer that is gone), and the actions that follow executed.
pub fn on_event<F, R: Clone, D: DriverIo<F, R>>(
    host: &mut Host<F, R>,
    io: &mut D,
    ev: TransportEvent,
) {
    match ev {
        TransportEvent::Skipped { tag, from, through } => {
            if let Some(name) = io.federation_of(tag) {
                feed(
                    host,
                    io,
                    &name,
                    Event::Skipped {
                        from: from.0,
                        through,
                    },
                );
            }
        }
        TransportEvent::FellBehind {
            tag,
            from,
            first,
            last,
        } => {
            if let Some(name) = io.federation_of(tag) {
                tracing::warn!(
                    federation = %name,
                    "fell behind {from:?}: {first}..={last} lost; resynchronising by state transfer"
                );
                feed(host, io, &name, Event::FellBehind { from: from.0, last });
            }
        }
        TransportEvent::Data {
            tag,
            from,
            seq,
            payload,
        } => {
            if let Some(name) = io.federation_of(tag) {
                if let Some(f) = host.get_mut(&name) {
                    io.data_in(f, from, seq);
                }
                feed(
                    host,
                    io,
                    &name,
                    Event::Data {
                        from: from.0,
                        seq,
                        payload: &payload,
                    },
                );
                if let Some(f) = host.get_mut(&name) {
                    io.data_done(f);
                }
            }
        }
        TransportEvent::Control { from, payload, .. } => match Envelope::decode(&payload) {
            Ok(env) => {
                let name = env.federation.clone();
                feed(
                    host,
                    io,
                    &name,
                    Event::Control {
                        from: from.0,
                        msg: env.msg,
                    },
                )
            }
            Err(e) => tracing::debug!("bad control message from {from:?}: {e}"),
        },
        TransportEvent::FederationPeer { tag, node, joined } => {
            if let Some(name) = io.federation_of(tag) {
                let ev = if joined {
                    // No longer a member: the event saying so follows.
                    host.get(&name).and_then(|f| channel_peer(io, f, node))
                } else {
                    Some(Event::PeerGone(node.0))
                };
                if let Some(ev) = ev {
                    feed(host, io, &name, ev);
                }
            }
        }
        TransportEvent::PeerLost { node } | TransportEvent::PeerLeft { node } => {
            for n in host.names() {
                feed(host, io, &n, Event::PeerGone(node.0));
            }
        }
        TransportEvent::PeerConnected { .. } | TransportEvent::PeerRefused { .. } => {}
    }
}

/// Hands `ev` to `federation`'s core (if it is open here) at the io's time, executes the
/// actions that follow and notes the core's next deadline.
pub fn feed<F, R: Clone, D: DriverIo<F, R>>(
    host: &mut Host<F, R>,
    io: &mut D,
    federation: &str,
    ev: Event<'_>,
) {
    if host.contains(federation) {
        host.handle(io.now(), federation, ev);
        run_actions(host, io, federation);
        io.note_deadline(host.get(federation).and_then(|f| f.core.poll_timeout()));
    }
}

/// Runs API call `f` on `federation`'s core at the io's time, as the shell's `RtiAmbassador`
/// calls are run: the data messages it queued go out at once, with the federation at hand;
/// `after_sends` looks at the federation then (the shell checks its flow window there); then
/// the other actions are executed and the core's next deadline is noted. `None` if the
/// federation is not open here.
pub fn call<F, R: Clone, D: DriverIo<F, R>, T, U>(
    host: &mut Host<F, R>,
    io: &mut D,
    federation: &str,
    f: impl FnOnce(&mut FederationCore) -> T,
    after_sends: impl FnOnce(&HostedFederation<F, R>) -> U,
) -> Option<(T, U)> {
    let fed = host.get_mut(federation)?;
    io.call_begin(fed);
    fed.core.set_clock(io.now());
    let r = f(&mut fed.core);
    io.call_end(fed);
    // The data messages an update or interaction queued go out with the federation at hand:
    // `run_actions` looks it up by name again for every action.
    while let Some(d) = fed.core.poll_send_data() {
        send_data(io, fed, federation, d);
    }
    let u = after_sends(fed);
    let deadline = fed.core.poll_timeout();
    if fed.core.actions_idle() {
        // All `run_actions` would do with nothing queued.
        io.actions_done(fed);
    } else {
        run_actions(host, io, federation);
    }
    io.note_deadline(deadline);
    Some((r, u))
}

/// Hands a data message of `federation` to its channel: under the core's number if it has one
/// (the channel refuses, and counts, any other, so the core's positions in its stream are the
/// channel's: see `hlamesh_core::core::stream_numbering`), else held or at once as the core
/// asked.
pub fn send_data<F, R, D: DriverIo<F, R>>(
    io: &mut D,
    fed: &mut HostedFederation<F, R>,
    federation: &str,
    d: OutgoingData,
) {
    let sent = match (d.seq, d.hold) {
        (Some(seq), hold) => io.send_numbered(&fed.io, seq, &d.bytes, hold).map(Some),
        (None, held) => io.send(&fed.io, d.reliable, &d.bytes, held),
    };
    match sent {
        Ok(seq) => io.data_sent(fed, federation, d.class, d.bytes.len(), seq),
        Err(e) => tracing::warn!(federation, "data send failed: {e}"),
    }
}

/// Executes every action `federation`'s host queued, in order.
pub fn run_actions<F, R: Clone, D: DriverIo<F, R>>(
    host: &mut Host<F, R>,
    io: &mut D,
    federation: &str,
) {
    while let Some(a) = host.poll_action(federation) {
        match a {
            HostAction::SendData {
                reliable,
                seq,
                bytes,
                class,
                hold,
            } => {
                if let Some(fed) = host.get_mut(federation) {
                    let d = OutgoingData {
                        reliable,
                        seq,
                        bytes,
                        class,
                        hold,
                    };
                    send_data(io, fed, federation, d);
                }
            }
            HostAction::SendToCells {
                seq,
                bytes,
                cells,
                class,
            } => {
                if let Some(fed) = host.get_mut(federation) {
                    match io.send_to_cells(&fed.io, &bytes, &cells, seq) {
                        Ok(sent) => io.data_sent(fed, federation, class, bytes.len(), sent),
                        Err(e) => tracing::warn!(federation, "data send failed: {e}"),
                    }
                }
            }
            HostAction::SetCells { cells } => {
                if let Some(fed) = host.get(federation) {
                    io.set_cells(&fed.io, &cells);
                }
            }
            HostAction::SendTime { seq, bytes } => {
                if let Some(fed) = host.get_mut(federation) {
                    if let Err(e) = io.send_numbered(&fed.io, seq, &bytes, false) {
                        tracing::warn!(federation, "time message send failed: {e}");
                    }
                    io.flush(&fed.io);
                }
            }
            HostAction::SendControl { to, causal, bytes } => {
                // Actions come only from a federation the host holds (it is removed with the
                // last one, `Closed`).
                if let Some(fed) = host.get(federation)
                    && let Err(e) = io.send_control(to, &fed.io, causal, &bytes)
                {
                    tracing::debug!(federation, "control to {to:x} failed: {e}");
                }
            }
            HostAction::Deliver {
                route,
                federate,
                callback,
            } => {
                if let Some(fed) = host.get_mut(federation) {
                    io.callback_out(fed, federate, &callback);
                }
                io.deliver(route, federate, callback);
            }
            HostAction::Completed { joined, .. } => {
                if let Some(j) = joined {
                    for cb in j.held {
                        if let Some(fed) = host.get_mut(federation) {
                            io.callback_out(fed, j.federate, &cb);
                        }
                        io.deliver(j.route.clone(), j.federate, cb);
                    }
                }
                io.calls_finished();
            }
            HostAction::FederateLost { federate, name } => {
                if let Some(fed) = host.get_mut(federation) {
                    io.federate_lost(fed);
                }
                tracing::warn!(
                    federation,
                    "federate {name} (handle {federate}) lost with its LRC: resigned with its automatic resign action"
                );
            }
            HostAction::ConnectionLost { routes, reason } => {
                for q in routes {
                    io.connection_lost(q, &reason);
                }
            }
            HostAction::LoadRestore {
                federate,
                label,
                name,
            } => {
                let loaded = io.read_save(federation, &label, &name);
                if let Some(fed) = host.get_mut(federation) {
                    fed.core.restore_loaded(federate, loaded);
                }
            }
            HostAction::WriteSave { federate, state } => {
                let ok = io.write_save(federation, &state);
                if let Some(fed) = host.get_mut(federation) {
                    fed.core.save_written(federate, ok);
                }
            }
            HostAction::Rehandled(renames) => io.rehandled(federation, &renames),
            HostAction::Closed { io: channel, core } => {
                io.close(federation, channel, core);
                io.calls_finished();
            }
        }
    }
    if let Some(fed) = host.get_mut(federation) {
        io.actions_done(fed);
    }
}

/// The periodic work the shell's pump does for every open federation at `now` (µs): members
/// of each channel whose `FederationPeer` event raced with the opening of the core are fed in,
/// then [`Host::tick`] with the LRCs that announce the federation (`announcers`) and the peers
/// connected (`reachable`), and the actions that follow. `members` lists a channel's members.
pub fn tick<F, R: Clone, D: DriverIo<F, R>>(
    host: &mut Host<F, R>,
    io: &mut D,
    members: impl Fn(&F) -> Vec<NodeId>,
    announcers: impl Fn(&str) -> Vec<Node>,
    reachable: impl Fn(Node) -> bool,
) {
    let mut names = host.names();
    names.sort();
    for n in names {
        let open = host.get(&n).map(|f| members(&f.io)).unwrap_or_default();
        for m in open {
            let ev = host
                .get(&n)
                .filter(|f| !f.core.has_channel_peer(m.0))
                .and_then(|f| channel_peer(io, f, m));
            if let Some(ev) = ev {
                feed(host, io, &n, ev);
            }
        }
        host.tick(io.now(), &n, || announcers(&n), &reachable);
        run_actions(host, io, &n);
    }
}

/// Runs the cores' deadlines due now (values an update rate held) and the actions that follow.
pub fn handle_timeouts<F, R: Clone, D: DriverIo<F, R>>(host: &mut Host<F, R>, io: &mut D) {
    let mut names = host.handle_timeouts(io.now());
    names.sort();
    for n in names {
        run_actions(host, io, &n);
    }
}
