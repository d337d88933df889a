//! Message retraction (IEEE 1516.1-2010 8.21 `retract`, 6.23 `requestRetraction`).
//!
//! # Handles
//! Every timestamped update, interaction and delete returns a [`MessageRetractionHandle`]: the
//! sending federate's handle and a serial number its LRC counts over all its federates' timed
//! sends (never reset, not even by a restore), so a handle is unique in the federation
//! execution and a handle from before a restore never names a message sent after it. A
//! message that went out in time-stamp order carries the serial (`retraction` in
//! [`DataMsg::Update`], [`DataMsg::Interaction`], [`DataMsg::Delete`]), and every receiver gets
//! the handle with the reflection, interaction or removal (`ReceiveInfo::retraction`), so it can
//! tell which message a later `request_retraction` names.
//!
//! # What `retract` checks (the sender's LRC)
//! In the standard's order: `FederateNotExecutionMember`, `SaveInProgress`,
//! `RestoreInProgress` (the shell adds `NotConnected`), then:
//! - `InvalidMessageRetractionHandle` for a handle this federate was not given (another
//!   federate's, a made-up one, one issued before a restore, one already retracted: once
//!   retracted, the handle is forgotten);
//! - `MessageCanNoLongerBeRetracted` when the message was sent in receive order (only
//!   time-stamp-order messages may be retracted: a sender that is not regulating, or an
//!   attribute or class whose order is receive) or when its timestamp is no longer greater than
//!   the sender's logical time (8.21: a message may be retracted only while its timestamp is
//!   greater than the federate's current logical time, the time `queryLogicalTime` answers: the
//!   time before a grant the federate has not received yet). A timed delete whose undo record
//!   was dropped (more than [`MAX_DELETES`] later timed deletes of the same federate) is also
//!   `MessageCanNoLongerBeRetracted`.
//!
//! # How it travels
//! A retraction is a [`DataMsg::Retract`] in the sender's LRC's reliable stream, so every LRC
//! gets it after the message it names, and applies it (the sender's own LRC too, for its other
//! federates): for each local federate but the sender,
//! - the message still waits in the federate's time manager (a constrained federate whose
//!   GALT has not reached its time): it is removed there and never delivered
//!   (`TimeManager::retract`); a pending next-message request then goes to the next event;
//! - it was delivered (the federate is not constrained and got it in receive order at once, or
//!   its GALT passed the message's time because the sender asked to advance beyond it): the
//!   federate gets `request_retraction(handle)`, behind every callback queued before it;
//! - it never reached the federate (not subscribed, not known): nothing.
//!
//! Deliveries are remembered per federate for the last [`MAX_DELIVERED`] time-stamp-order
//! messages it received (an older one is no longer reported: a bounded cost for federations
//! that never retract).
//!
//! # Timed deletes
//! A delete sent in time-stamp order removes the instance from every LRC's registry when it
//! arrives; the federates that know it keep knowing it until their managers deliver the removal
//! (see `super::time`). Every LRC keeps what the delete removed (the instance, its owners,
//! values, and which local federates knew it as which class) for the last [`MAX_DELETES`] timed
//! deletes of each federate, in the order of its stream, which is the same on every LRC. A
//! retracted delete puts the instance back everywhere, for the deleting federate too, which
//! knows it and owns what it owned again; federates whose removal was still queued never hear
//! of it, and those that had received it get `request_retraction` and know the instance again.
//! (Ownership negotiations of the instance that the delete ended stay ended. An LRC that joined
//! after the delete has no record and keeps the instance deleted.)
//!
//! # Save and restore
//! Nothing here is saved. After a restore every handle issued before it is invalid
//! (`InvalidMessageRetractionHandle`): the messages it named belong to the abandoned run, and
//! the restored TSO queues keep no stream numbers to find them by. The state is dropped lazily
//! the first time it is used in a later restore epoch.

use std::collections::{BTreeMap, VecDeque};

use crate::error::RtiError;
use crate::handles::{
    FederateHandle, MessageRetractionHandle, ObjectClassHandle, ObjectInstanceHandle,
};

use super::objects::Instance;
use super::time::{Time, member};
use super::wire::DataMsg;
use super::{Callback, FederationCore};

/// Time-stamp-order deliveries remembered per local federate for `request_retraction`.
pub const MAX_DELIVERED: usize = 1 << 14;
/// Timed deletes per deleting federate whose removal every LRC can undo.
pub const MAX_DELETES: usize = 256;
/// Retractable messages remembered per local sender before those that can no longer be
/// retracted are dropped.
const MAX_OPEN: usize = 1 << 16;

/// A timestamped message a local federate sent and may still retract.
#[derive(Debug, Clone)]
struct Sent {
    /// Its number in this LRC's reliable stream; `None` when it went out in receive order.
    seq: Option<u64>,
    /// Its timestamp.
    time: Time,
    /// A delete (whose undo record must still exist).
    delete: bool,
}

/// What a timed delete removed, kept so a retraction can put it back.
#[derive(Debug, Clone)]
struct Removed {
    serial: u32,
    object: ObjectInstanceHandle,
    instance: Instance,
    /// Local federates that knew it, and as which class.
    knew: Vec<(FederateHandle, ObjectClassHandle)>,
    /// Its update regions and associations (see `super::regions`).
    regions: super::regions::RemovedRegions,
}

/// The retraction state of one federation core (see the module docs).
#[derive(Debug, Default)]
pub struct Retractions {
    /// The restore epoch the state below belongs to.
    epoch: u32,
    /// The serial of the last handle this LRC issued.
    last_serial: u32,
    /// Per local sender: its retractable messages by serial.
    open: BTreeMap<FederateHandle, BTreeMap<u32, Sent>>,
    /// Per local federate: handles of the time-stamp-order messages delivered to it, oldest
    /// first.
    delivered: BTreeMap<FederateHandle, VecDeque<MessageRetractionHandle>>,
    /// Per deleting federate: its last timed deletes applied here, oldest first.
    removed: BTreeMap<FederateHandle, VecDeque<Removed>>,
}

impl Retractions {
    /// Drops everything from before restore epoch `epoch` (the serial counter stays).
    fn at_epoch(&mut self, epoch: u32) -> &mut Self {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.open.clear();
            self.delivered.clear();
            self.removed.clear();
        }
        self
    }

    /// The next serial (1, 2, …; after 2³²−1 it starts again at 1).
    fn next_serial(&mut self) -> u32 {
        self.last_serial = self.last_serial.checked_add(1).unwrap_or(1);
        self.last_serial
    }
}

impl FederationCore {
    fn retractions(&mut self) -> &mut Retractions {
        let epoch = self.restore.epoch();
        self.retraction.at_epoch(epoch)
    }

    /// A handle for a timed send by local federate `f` about to go out (after its checks).
    pub(crate) fn issue_retraction_handle(&mut self, f: FederateHandle) -> MessageRetractionHandle {
        MessageRetractionHandle::new(f, self.retractions().next_serial())
    }

    /// Local federate `f` sent the message of `handle` with timestamp `time`, as reliable
    /// message `seq` in time-stamp order (`None`: in receive order).
    pub(crate) fn note_retractable(
        &mut self,
        handle: MessageRetractionHandle,
        seq: Option<u64>,
        time: Option<Time>,
        delete: bool,
    ) {
        let Some(time) = time else { return };
        let f = handle.federate();
        let now = self
            .time
            .managers
            .get(&f)
            .map(|tm| tm.federate_logical_time());
        let open = self.retractions().open.entry(f).or_default();
        if open.len() >= MAX_OPEN {
            // Those it can no longer retract first, then the oldest.
            if let Some(now) = now {
                open.retain(|_, s| s.time > now);
            }
            while open.len() >= MAX_OPEN / 2 {
                open.pop_first();
            }
        }
        open.insert(handle.serial(), Sent { seq, time, delete });
    }

    /// 8.21 retract, for local federate `f` (see the module docs for the checks and their order).
    pub fn retract(
        &mut self,
        f: FederateHandle,
        handle: MessageRetractionHandle,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "retract")?;
        let name = self.name.clone();
        let invalid = || {
            RtiError::InvalidMessageRetractionHandle(format!(
                "federation {name}: federate {f} sent no message with retraction handle {handle} \
                 that it has not retracted since (handles from before a restore are void)"
            ))
        };
        if handle.federate() != f {
            return Err(invalid());
        }
        let now = self
            .time
            .managers
            .get(&f)
            .map(|tm| tm.federate_logical_time());
        let Some(sent) = self
            .retractions()
            .open
            .get(&f)
            .and_then(|o| o.get(&handle.serial()))
            .cloned()
        else {
            return Err(invalid());
        };
        let too_late = |why: String| {
            RtiError::MessageCanNoLongerBeRetracted(format!(
                "federation {name}: federate {f}, retraction handle {handle}: {why}"
            ))
        };
        let Some(seq) = sent.seq else {
            return Err(too_late(
                "the message was sent in receive order (only time-stamp-order messages can be \
                 retracted)"
                    .into(),
            ));
        };
        if let Some(now) = now
            && sent.time <= now
        {
            if let Some(o) = self.retractions().open.get_mut(&f) {
                o.remove(&handle.serial());
            }
            return Err(too_late(format!(
                "its time {:?} is not greater than the federate's logical time {:?}",
                self.time_out(sent.time),
                self.time_out(now)
            )));
        }
        if sent.delete
            && !self
                .retractions()
                .removed
                .get(&f)
                .is_some_and(|r| r.iter().any(|d| d.serial == handle.serial()))
        {
            return Err(too_late(format!(
                "the delete is older than the federate's last {MAX_DELETES} timed deletes"
            )));
        }
        if let Some(o) = self.retractions().open.get_mut(&f) {
            o.remove(&handle.serial());
        }
        self.send_data(true, DataMsg::Retract { handle, seq });
        self.pump_time();
        Ok(())
    }

    /// The core queues `cb` for local federate `f`: a time-stamp-order message is remembered
    /// as delivered.
    pub(crate) fn note_delivered(&mut self, f: FederateHandle, cb: &Callback) {
        let handle = match cb {
            Callback::ReflectAttributeValues { info, .. }
            | Callback::ReceiveInteraction { info, .. } => info.retraction,
            Callback::RemoveObjectInstance { retraction, .. } => *retraction,
            _ => None,
        };
        let Some(handle) = handle else { return };
        let ring = self.retractions().delivered.entry(f).or_default();
        if ring.len() >= MAX_DELIVERED {
            ring.pop_front();
        }
        ring.push_back(handle);
    }

    /// A timed delete of `object` by `producer` (its serial `serial`) removed `instance` here;
    /// `knew` are the local federates that knew it, `regions` its DDM state.
    pub(crate) fn note_removed(
        &mut self,
        producer: FederateHandle,
        serial: u32,
        object: ObjectInstanceHandle,
        instance: Instance,
        knew: Vec<(FederateHandle, ObjectClassHandle)>,
        regions: super::regions::RemovedRegions,
    ) {
        let removed = self.retractions().removed.entry(producer).or_default();
        if removed.len() >= MAX_DELETES {
            removed.pop_front();
        }
        removed.push_back(Removed {
            serial,
            object,
            instance,
            knew,
            regions,
        });
    }

    /// A federate left: what was kept for it as a sender and a receiver goes (what other LRCs'
    /// federates may still retract from it stays, bounded).
    pub(crate) fn retraction_on_left(&mut self, f: FederateHandle) {
        let r = self.retractions();
        r.open.remove(&f);
        r.delivered.remove(&f);
    }

    /// Applies a [`DataMsg::Retract`] (from any LRC, this one included).
    pub(crate) fn apply_retract(&mut self, handle: MessageRetractionHandle, seq: u64) {
        let producer = handle.federate();
        self.undo_delete(producer, handle.serial());
        let locals: Vec<FederateHandle> = self
            .locals
            .keys()
            .copied()
            .filter(|f| *f != producer)
            .collect();
        for f in locals {
            let queued = self
                .time
                .managers
                .get_mut(&f)
                .and_then(|tm| tm.retract(member(producer), hlamesh_timesync::Seq(seq)));
            if queued.is_some() {
                tracing::debug!(federate = %f, %handle, "queued message retracted");
                continue;
            }
            let delivered = self.retractions().delivered.get_mut(&f).and_then(|ring| {
                let at = ring.iter().rposition(|h| *h == handle)?;
                ring.remove(at)
            });
            if delivered.is_some() {
                self.callback(f, Callback::RequestRetraction(handle));
            }
        }
    }

    /// Puts back the instance a retracted timed delete removed, if this LRC kept it.
    fn undo_delete(&mut self, producer: FederateHandle, serial: u32) {
        let Some(removed) = self.retractions().removed.get_mut(&producer) else {
            return;
        };
        let Some(at) = removed.iter().position(|d| d.serial == serial) else {
            return;
        };
        let Some(d) = removed.remove(at) else { return };
        if self.objects.contains_key(&d.object) {
            return;
        }
        self.objects.insert(d.object, d.instance);
        self.regions_instance_restored(d.object, d.regions);
        for (f, k) in d.knew {
            if let Some(lf) = self.locals.get_mut(&f) {
                lf.known.insert(d.object, k);
            }
        }
        self.advise_instance(d.object);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restore_epoch_forgets_everything_but_the_serials() {
        let mut r = Retractions::default();
        let first = r.at_epoch(0).next_serial();
        r.open.entry(FederateHandle(1)).or_default().insert(
            first,
            Sent {
                seq: Some(7),
                time: Time::integer(5),
                delete: false,
            },
        );
        r.delivered
            .entry(FederateHandle(2))
            .or_default()
            .push_back(MessageRetractionHandle::new(FederateHandle(1), first));
        // Same epoch: kept.
        assert_eq!(r.at_epoch(0).open.len(), 1);
        // After a restore: gone, and the next handle is not the old one again.
        let r = r.at_epoch(1);
        assert!(r.open.is_empty() && r.delivered.is_empty() && r.removed.is_empty());
        assert_ne!(r.next_serial(), first);
    }

    #[test]
    fn serials_skip_zero_when_they_wrap() {
        let mut r = Retractions {
            last_serial: u32::MAX - 1,
            ..Default::default()
        };
        assert_eq!(r.next_serial(), u32::MAX);
        assert_eq!(r.next_serial(), 1);
    }
}
