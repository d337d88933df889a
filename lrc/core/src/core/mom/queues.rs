//! What is queued for a local federate: the `HLAROlength` and `HLATSOlength` of its
//! `HLAfederate`, and whether its last time advance grant still waits for it (which a time
//! service the MOM performs on its behalf must see, as its own call does).
//!
//! Messages for a federate wait in three places, two of them in the core:
//!
//! - its time manager: TSO messages not yet deliverable (`TimeManager::queued_tso`), and
//!   receive-order messages held back while it is constrained, not advancing, and without
//!   asynchronous delivery (`TimeManager::queued_ro`);
//! - the save or restore in progress, which holds what reaches a federate saving or restoring
//!   its state (counted by the order each message is delivered in);
//! - the shell's callback queue (`CallbackQueue` in `hlamesh-lrc`): everything the core handed
//!   over for delivery and the federate has not received yet (in the evoked model, until it
//!   evokes). The core holds no I/O and no thread, so the shell lends it a read-only view of
//!   that queue ([`CallbackQueueView`], set by [`FederationCore::set_callback_queue`] when the
//!   federate's join completes); without one (the simulator, unit tests) the queue counts as
//!   empty.
//!
//! `HLATSOlength` is the first two's TSO messages. `HLAROlength` is the first two's
//! receive-order messages plus every callback waiting in the shell's queue: those are
//! delivered in the queue's order whatever order they were sent in (TSO messages the manager
//! released are in time order already), and the queue cannot be read without taking from it,
//! so its length is counted whole.
//!
//! A grant is still waiting (the federate is in the Time Advancing state, 8.2) while it is in
//! the core's actions not yet polled, held by a save, or in the shell's queue
//! ([`FederationCore::grant_undelivered`]).

use std::sync::Arc;

use crate::handles::FederateHandle;

use super::super::{Action, Callback, FederationCore};
use crate::fom::OrderType;

/// A read-only view of a local federate's callback queue in the shell (see the module docs).
pub trait CallbackQueueView: Send + Sync + std::fmt::Debug {
    /// Callbacks waiting for the federate.
    fn waiting(&self) -> usize;
    /// Whether a time advance grant is among them.
    fn grant_waiting(&self) -> bool;
}

/// The order a message callback is delivered in (`None`: not a message).
fn delivered_order(cb: &Callback) -> Option<OrderType> {
    match cb {
        Callback::ReflectAttributeValues { info, .. }
        | Callback::ReceiveInteraction { info, .. } => Some(info.received_order),
        Callback::RemoveObjectInstance { received_order, .. } => Some(*received_order),
        Callback::DiscoverObjectInstance { .. } => Some(OrderType::Receive),
        _ => None,
    }
}

impl FederationCore {
    /// Lends the core a view of local federate `f`'s callback queue (the shell's; see the
    /// module docs). Replaces an earlier one.
    pub fn set_callback_queue(&mut self, f: FederateHandle, queue: Arc<dyn CallbackQueueView>) {
        if self.locals.contains_key(&f) {
            self.mom.queues.insert(f, queue);
        }
    }

    /// (receive-order, time-stamp-order) messages queued for local federate `f`.
    pub fn queued_messages(&self, f: FederateHandle) -> (usize, usize) {
        let (mut ro, mut tso) = self
            .time
            .managers
            .get(&f)
            .map_or((0, 0), |m| (m.queued_ro(), m.queued_tso()));
        let held = self.save.held_for(f).iter().chain(self.restore.held_for(f));
        for cb in held {
            match delivered_order(cb) {
                Some(OrderType::TimeStamp) => tso += 1,
                Some(OrderType::Receive) => ro += 1,
                None => {}
            }
        }
        if let Some(q) = self.mom.queues.get(&f) {
            ro = ro.saturating_add(q.waiting());
        }
        (ro, tso)
    }

    /// Whether local federate `f`'s last time advance grant has not reached it yet: in the
    /// core's actions not yet polled, held by a save, or waiting in the shell's queue.
    pub fn grant_undelivered(&self, f: FederateHandle) -> bool {
        self.grant_held(f)
            || self.actions.iter().any(|a| {
                matches!(a, Action::Callback {
                    federate,
                    callback: Callback::TimeAdvanceGrant(_),
                } if *federate == f)
            })
            || self.mom.queues.get(&f).is_some_and(|q| q.grant_waiting())
    }
}
