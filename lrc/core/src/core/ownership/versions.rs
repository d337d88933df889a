//! Versions and hand-overs: which owner each version of an attribute had, whether it handed it
//! over, and from that the verdict on each update a receiver gets (accept, hold until a hand-over
//! or transfer arrives, or drop); the updates held, released in arrival order; the hand-overs
//! this LRC puts in its own stream; and local new owners notified once every earlier owner
//! handed over. [`OwnershipState`] owns the version history and decides the verdicts; the
//! [`FederationCore`] methods here give it the instances and act on what it says.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::objects::Instance;
use crate::core::wire::DataMsg;
use crate::core::{Callback, FederationCore, Node};
use crate::handles::{AttributeHandle, FederateHandle};

use super::{
    Attr, MAX_HELD_UPDATES, MAX_SENT_HAND_OVERS, Obj, OwnershipState, SentHandOver, Starting,
    Verdict,
};

impl OwnershipState {
    /// Whether version `v` of `(object, a)` has ended: nobody owned it, its owner handed it over,
    /// or the owner was lost with its LRC (a resigning federate's LRC hands over before its
    /// resignation; a lost one's data stream is gone).
    fn version_over(&self, object: Obj, a: Attr, v: u32) -> bool {
        match self.history.get(&(object, a)).and_then(|h| h.get(&v)) {
            Some((None, _)) | None => true,
            Some((Some(o), done)) => *done || self.lost.contains(o),
        }
    }

    /// Whether every version of `(object, a)` before `v` has ended.
    fn all_over_before(&self, object: Obj, a: Attr, v: u32) -> bool {
        self.history
            .get(&(object, a))
            .is_none_or(|h| h.range(..v).all(|(w, _)| self.version_over(object, a, *w)))
    }

    /// Whether an update of `producer` carrying these versions may be delivered, against `inst`,
    /// the instance as this LRC has it (see the module docs of `ownership`).
    fn verdict(
        &self,
        inst: &Instance,
        object: Obj,
        producer: FederateHandle,
        values: &[(Attr, Vec<u8>)],
        versions: &[u32],
    ) -> Verdict {
        let mut verdict = Verdict::Accept;
        for (i, (a, _)) in values.iter().enumerate() {
            let w = versions.get(i).copied().unwrap_or(0);
            let cur = inst.version(*a);
            if w > cur {
                verdict = Verdict::Hold;
                continue;
            }
            let hist = self.history.get(&(object, *a));
            let owner_then = if w == cur {
                // A resigned owner's updates sent before its resignation still count.
                inst.owner_of(*a)
                    .or_else(|| hist.and_then(|h| h.get(&w)).and_then(|(o, _)| *o))
            } else {
                hist.and_then(|h| h.get(&w)).and_then(|(o, _)| *o)
            };
            if owner_then != Some(producer) {
                return Verdict::Drop;
            }
            if hist.and_then(|h| h.get(&w)).is_some_and(|(_, done)| *done) {
                return Verdict::Drop;
            }
            if !self.all_over_before(object, *a, w) {
                verdict = Verdict::Hold;
            }
        }
        verdict
    }

    /// Whether an update of `producer` about `object` from `from`'s stream is held.
    pub(crate) fn has_held(&self, from: Node, producer: FederateHandle, object: Obj) -> bool {
        self.held.iter().any(|(n, _, m)| {
            *n == from
                && match m {
                    DataMsg::Update {
                        object: o,
                        producer: p,
                        ..
                    }
                    | DataMsg::HandOver {
                        object: o,
                        owner: p,
                        ..
                    } => *o == object && *p == producer,
                    _ => false,
                }
        })
    }

    /// Holds an update until its hand-over or transfer arrived.
    pub(crate) fn hold_update(&mut self, from: Node, seq: u64, msg: DataMsg) {
        if self.held.len() >= MAX_HELD_UPDATES {
            self.dropped_updates += 1;
            return;
        }
        self.held_updates += 1;
        self.held.push((from, seq, msg));
    }

    /// `owner`'s versions `attrs` of `object` were handed over; `inst` is the instance as this
    /// LRC has it (its current versions bound what is still needed).
    fn mark_handed_over(
        &mut self,
        object: Obj,
        owner: FederateHandle,
        attrs: Vec<(Attr, u32)>,
        inst: Option<&Instance>,
    ) {
        for (a, v) in attrs {
            let h = self.history.entry((object, a)).or_default();
            let e = h.entry(v).or_insert((Some(owner), true));
            e.1 = true;
        }
        self.prune_history(object, inst);
    }

    /// Forgets the versions of `object` no update in flight can need any more, against the
    /// current versions of `inst`.
    pub(super) fn prune_history(&mut self, object: Obj, inst: Option<&Instance>) {
        let keys: Vec<(Obj, Attr)> = self
            .history
            .range((object, AttributeHandle(0))..)
            .take_while(|((o, _), _)| *o == object)
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            let cur = inst.map_or(0, |i| i.version(k.1));
            if let Some(h) = self.history.get_mut(&k) {
                // Versions before the current one that ended need no memory; the first one
                // still open keeps itself and everything after it.
                let open = h
                    .iter()
                    .find(|(v, (o, done))| **v < cur && !*done && o.is_some())
                    .map(|(v, _)| *v);
                let keep_from = open.unwrap_or(cur);
                h.retain(|v, _| *v >= keep_from);
                if h.is_empty() {
                    self.history.remove(&k);
                }
            }
        }
    }
}

impl FederationCore {
    /// Notifies local new owners whose earlier owners all handed over.
    fn start_owners(&mut self) {
        if self.ownership.starting.is_empty() {
            return;
        }
        let ready: Vec<((Obj, Attr), Starting)> = self
            .ownership
            .starting
            .iter()
            .filter(|((o, a), _)| {
                let v = self.objects.get(o).map_or(0, |i| i.version(*a));
                self.ownership.all_over_before(*o, *a, v)
            })
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let mut notify: BTreeMap<(FederateHandle, Obj, Vec<u8>), Vec<Attr>> = BTreeMap::new();
        for ((o, a), (f, tag)) in ready {
            self.ownership.starting.remove(&(o, a));
            notify.entry((f, o, tag)).or_default().push(a);
        }
        for ((f, object, tag), attrs) in notify {
            self.callback(
                f,
                Callback::AttributeOwnershipAcquisitionNotification { object, attrs, tag },
            );
        }
    }

    /// Hands over everything `f` owns, in the data stream before its resignation request.
    pub(crate) fn hand_over_all(&mut self, f: FederateHandle) {
        let list: Vec<(Obj, Vec<(Attr, u32)>)> = self
            .objects
            .iter()
            .filter_map(|(o, i)| {
                let a: Vec<(Attr, u32)> = i
                    .owned_by(f)
                    .into_iter()
                    .map(|a| (a, i.version(a)))
                    .collect();
                (!a.is_empty()).then_some((*o, a))
            })
            .collect();
        for (object, attrs) in list {
            self.send_hand_over(object, f, attrs);
        }
    }

    /// Puts a hand-over in this LRC's reliable stream and remembers it for snapshots.
    pub(super) fn send_hand_over(
        &mut self,
        object: Obj,
        owner: FederateHandle,
        attrs: Vec<(Attr, u32)>,
    ) {
        if self.ownership.sent_hand_overs.len() >= MAX_SENT_HAND_OVERS {
            self.ownership.sent_hand_overs.pop_front();
        }
        self.ownership
            .sent_hand_overs
            .push_back((object, owner, attrs.clone()));
        self.send_data(
            true,
            DataMsg::HandOver {
                object,
                owner,
                attrs,
            },
        );
    }

    /// A hand-over in `owner`'s LRC's stream (held behind that stream's held updates).
    pub(crate) fn on_hand_over(
        &mut self,
        from: Node,
        seq: u64,
        object: Obj,
        owner: FederateHandle,
        attrs: Vec<(Attr, u32)>,
    ) {
        if self.ownership.has_held(from, owner, object) {
            self.ownership.held.push((
                from,
                seq,
                DataMsg::HandOver {
                    object,
                    owner,
                    attrs,
                },
            ));
            return;
        }
        self.ownership
            .mark_handed_over(object, owner, attrs, self.objects.get(&object));
        self.release_held();
    }

    /// Hand-overs carried by a snapshot (all before its high-water mark).
    pub(crate) fn hand_overs_from_snapshot(&mut self, list: Vec<SentHandOver>) {
        for (object, owner, attrs) in list {
            self.ownership
                .mark_handed_over(object, owner, attrs, self.objects.get(&object));
        }
        self.release_held();
    }

    /// Whether an update of `producer` carrying these versions may be delivered.
    pub(crate) fn update_verdict(
        &self,
        object: Obj,
        producer: FederateHandle,
        values: &[(Attr, Vec<u8>)],
        versions: &[u32],
    ) -> Verdict {
        let Some(inst) = self.objects.get(&object) else {
            return Verdict::Accept; // nothing to reflect: dropped by the caller
        };
        self.ownership
            .verdict(inst, object, producer, values, versions)
    }

    /// Delivers held updates that became acceptable, in arrival order (hand-overs held behind
    /// them take effect when reached), until nothing more moves.
    pub(crate) fn release_held(&mut self) {
        self.start_owners();
        let mut passes = 0;
        while !self.ownership.held.is_empty() && passes < 64 {
            passes += 1;
            if !self.release_pass() {
                break;
            }
            self.start_owners();
        }
    }

    /// One pass over the held messages; whether any left the queue.
    fn release_pass(&mut self) -> bool {
        let held = std::mem::take(&mut self.ownership.held);
        let before = held.len();
        let mut keep = Vec::new();
        // Once one message of a stream stays held, its later ones about the same instance and
        // producer stay too (order).
        let mut blocked: BTreeSet<(Node, FederateHandle, Obj)> = BTreeSet::new();
        for (from, seq, msg) in held {
            match msg {
                DataMsg::HandOver {
                    object,
                    owner,
                    attrs,
                } => {
                    if blocked.contains(&(from, owner, object)) {
                        keep.push((
                            from,
                            seq,
                            DataMsg::HandOver {
                                object,
                                owner,
                                attrs,
                            },
                        ));
                    } else {
                        self.ownership.mark_handed_over(
                            object,
                            owner,
                            attrs,
                            self.objects.get(&object),
                        );
                    }
                }
                DataMsg::Update {
                    object,
                    producer,
                    values,
                    tag,
                    time,
                    tso: _,
                    versions,
                } => {
                    let key = (from, producer, object);
                    let verdict = if blocked.contains(&key) {
                        Verdict::Hold
                    } else {
                        self.update_verdict(object, producer, &values, &versions)
                    };
                    match verdict {
                        Verdict::Accept => {
                            let mut served = Vec::new();
                            self.reflect_update(
                                object,
                                producer,
                                values,
                                tag,
                                time,
                                false,
                                seq,
                                &mut served,
                                true,
                            );
                        }
                        Verdict::Drop => self.ownership.dropped_updates += 1,
                        Verdict::Hold => {
                            blocked.insert(key);
                            keep.push((
                                from,
                                seq,
                                DataMsg::Update {
                                    object,
                                    producer,
                                    values,
                                    tag,
                                    time,
                                    tso: false,
                                    versions,
                                },
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        let moved = keep.len() < before;
        // Anything that arrived while delivering stays behind what was held before.
        keep.append(&mut self.ownership.held);
        self.ownership.held = keep;
        moved
    }
}
