//! Receive turns: how the layer above runs its own core on the transport's receive threads
//! without the transport ever calling up into it while holding a lock.
//!
//! Every piece of receive work that can hand events up — a data datagram of an open
//! federation, a receive path's due timer, a control frame that changes members or releases
//! data, a departed peer — becomes a [`Turn`]. The transport gives the turn to the installed
//! [`Driver`] with none of its locks held. The driver takes what orders its own work (the LRC
//! takes its state lock), *calls down* into the turn with [`Turn::run`] — the transport takes
//! the receive path's lock, runs the core, collects the events and releases the lock — and
//! then handles the events it got back, in order, still under its own lock. So the layer above
//! is the outer lock and the transport's locks nest inside it, and two threads' turns of one
//! federation reach the layer above in the order the receive path produced them.
//!
//! With no driver installed (the transport's own probe, transport-level benchmarks), the
//! transport is its own driver: it runs each turn under an ordering lock of its own (the
//! `turn_order` of the hook adapter, behind which there is no transport state) and hands the
//! events to the event hook ([`crate::Transport::set_event_hook`]) or the event channel, so that
//! they too reach the application in the order the receive paths produced them.
//!
//! Work that can never hand anything up (an acknowledgement, a NACK, a key request, our own
//! datagram looped back, a sender's timers) is done by the transport directly, outside any turn.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use super::{FedChannel, Shared, lock};
use crate::core::TransportEvent;
use crate::core::dispatch::{self, MemberFrame};
use crate::id::{FederationTag, NodeId};

/// The layer above's part of the transport's receive threads (see the module docs).
///
/// [`Driver::turn`] runs on a receive thread — the data thread, the control thread, or an
/// application thread lent the data socket ([`crate::Transport::receive_here`]) — with none
/// of the transport's locks held. It must call [`Turn::run`] exactly once (a turn dropped
/// unrun loses its input) and must not block on anything a receive thread provides.
pub trait Driver: Send + Sync {
    /// Runs one turn: take what orders this layer's work, [`Turn::run`] it, handle the events.
    fn turn(&self, turn: Turn<'_>);

    /// Called after each unit of a receive thread's work (a datagram with the timers of that
    /// loop, a control frame, a departure), with no transport lock held: work the turn
    /// deferred (the LRC delivers the callbacks its turns queued) is done here, on the same
    /// thread and before it waits again.
    fn idle(&self) {}
}

/// One unit of receive work, handed to the [`Driver`] (see the module docs).
pub struct Turn<'a> {
    pub(super) shared: &'a Shared,
    pub(super) work: Work,
}

impl std::fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.work {
            Work::Datagram { fed, .. } => format!("datagram of {}", fed.name),
            Work::ReceiveTimer { fed, .. } => format!("receive timer of {}", fed.name),
            Work::Member { tag, from, .. } => format!("frame from {from} for {tag:?}"),
            Work::Control { from, .. } => format!("control message from {from}"),
            Work::Gone { node, lost } => format!("peer {node} gone (lost: {lost})"),
        };
        f.debug_struct("Turn").field("work", &what).finish()
    }
}

pub(super) enum Work {
    /// A data datagram of an open federation, from another node.
    Datagram {
        fed: Arc<FedChannel>,
        now: Instant,
        dgram: Bytes,
    },
    /// A federation's receive path timers may be due.
    ReceiveTimer { fed: Arc<FedChannel>, now: Instant },
    /// A member frame that hands up ([`MemberFrame::hands_up`]).
    Member {
        tag: FederationTag,
        from: NodeId,
        frame: MemberFrame,
        now: Instant,
    },
    /// A control message ordered behind no federation's data.
    Control { from: NodeId, payload: Bytes },
    /// A peer left (`lost = false`) or was lost.
    Gone { node: NodeId, lost: bool },
}

impl Turn<'_> {
    /// Does the turn's work and appends the events it hands up to `events`, in order. The
    /// transport's locks are taken and released inside: none is held when this returns.
    pub fn run(self, events: &mut Vec<TransportEvent>) {
        let shared = self.shared;
        match self.work {
            Work::Datagram { fed, now, dgram } => {
                let mut side = lock(&fed.recv);
                side.handle_datagram(now, dgram);
                dispatch::drain(&mut side, &mut |o| shared.execute(Some(&fed), o, events));
            }
            Work::ReceiveTimer { fed, now } => {
                let mut side = lock(&fed.recv);
                if side.poll_timeout().is_some_and(|t| t <= now) {
                    side.handle_timeout(now);
                    dispatch::drain(&mut side, &mut |o| shared.execute(Some(&fed), o, events));
                }
            }
            Work::Member {
                tag,
                from,
                frame,
                now,
            } => shared.member_frame(now, tag, from, frame, events),
            Work::Control { from, payload } => events.push(TransportEvent::Control {
                tag: None,
                from,
                payload,
            }),
            Work::Gone { node, lost } => shared.peer_gone(node, lost, events),
        }
    }
}

thread_local! {
    /// The events of a turn run with no driver, reused so that a turn allocates nothing.
    static SCRATCH: RefCell<Vec<TransportEvent>> = const { RefCell::new(Vec::new()) };
}

impl Shared {
    /// Gives `work` to the driver, or runs it here and hands its events to the event hook (or
    /// the channel) when there is none. Called with no transport lock held.
    pub(super) fn turn(&self, work: Work) {
        let driver = self
            .driver
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let turn = Turn { shared: self, work };
        match driver {
            Some(d) => d.turn(turn),
            None => {
                // The hook adapter is the driver: its order lock keeps two threads' turns in
                // order up to the hook or the channel (the receive path's lock is released
                // inside `run`, before the events are handed on).
                let _order = lock(&self.turn_order);
                let mut events = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
                turn.run(&mut events);
                for ev in events.drain(..) {
                    self.hand_up(ev);
                }
                SCRATCH.with(|s| *s.borrow_mut() = events);
            }
        }
    }

    /// Runs the driver's (or the idle hook's) deferred work after a unit of receive work.
    pub(super) fn idle(&self) {
        let driver = self
            .driver
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(d) = driver {
            d.idle();
            return;
        }
        let hook = self
            .idle_hook
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(h) = hook {
            h();
        }
    }

    /// An event of a turn run with no driver: to the event hook, else (or if the hook passes
    /// it on) to the event channel. Only the hook adapter's order lock is held.
    fn hand_up(&self, ev: TransportEvent) {
        let hook = self.hook.read().unwrap_or_else(|e| e.into_inner()).clone();
        let ev = match hook {
            Some(h) => match h(ev) {
                Some(ev) => ev,
                None => return,
            },
            None => ev,
        };
        let _ = self.events.send(ev);
    }
}
