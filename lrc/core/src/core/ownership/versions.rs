//! Versions and hand-overs: which owner each version of an attribute had, whether it handed it
//! over, and from that the verdict on each update a receiver gets (accept, hold until a hand-over
//! or transfer arrives, or drop); the updates held, released in arrival order; the hand-overs
//! this LRC puts in its own stream; and local new owners notified once every earlier owner
//! handed over. [`OwnershipState`] owns the version history: it records transfers and resigned
//! owners' versions, takes hand-overs (or holds them behind their stream's held updates),
//! decides the verdicts and says which new owners may start; the [`FederationCore`] methods
//! here give it the instances and act on what it says.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::objects::Instance;
use crate::core::wire::DataMsg;
use crate::core::{Callback, FederationCore, Node};
use crate::handles::{AttributeHandle, FederateHandle};

use super::{
    Attr, MAX_HELD_UPDATES, MAX_SENT_HAND_OVERS, Obj, OwnershipState, ReadyOwner, SentHandOver,
    Starting, Verdict,
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
                    }
                    | DataMsg::MoveRegions {
                        object: o,
                        producer: p,
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

    /// What a receiver does with an update of `producer` about `object` arriving in `from`'s
    /// stream, against `inst`, the instance as this LRC has it: behind a held update or
    /// hand-over of the same stream, producer and instance it waits too (order); otherwise
    /// [`Self::verdict`] decides. An update of an instance this LRC does not know is accepted:
    /// there is nothing to reflect, and the caller drops it.
    pub(crate) fn judge(
        &self,
        from: Node,
        inst: Option<&Instance>,
        object: Obj,
        producer: FederateHandle,
        values: &[(Attr, Vec<u8>)],
        versions: &[u32],
    ) -> Verdict {
        if self.has_held(from, producer, object) {
            return Verdict::Hold;
        }
        inst.map_or(Verdict::Accept, |i| {
            self.verdict(i, object, producer, values, versions)
        })
    }

    /// An update was dropped: its producer did not own an attribute when it sent it.
    pub(crate) fn drop_update(&mut self) {
        self.dropped_updates += 1;
    }

    /// A transfer decision moves `(object, a)` to version `v` (one more than `inst` had it, or
    /// more if decisions were skipped): the version that ends was `ended_owner`'s and the new
    /// one is `to`'s, until their hand-overs. Versions already known keep what they say.
    pub(crate) fn record_transfer(
        &mut self,
        object: Obj,
        a: Attr,
        v: u32,
        ended_owner: Option<FederateHandle>,
        to: Option<FederateHandle>,
    ) {
        let h = self.history.entry((object, a)).or_default();
        h.entry(v.saturating_sub(1)).or_insert((ended_owner, false));
        h.entry(v).or_insert((to, false));
    }

    /// Before `h`'s attributes become unowned (it resigned or was lost): the versions it holds
    /// in `objects` are remembered as its, so its updates still in flight are accepted until its
    /// hand-over.
    pub(crate) fn remember_versions_of(
        &mut self,
        h: FederateHandle,
        objects: &BTreeMap<Obj, Instance>,
    ) {
        for (o, i) in objects {
            for (a, f) in &i.owners {
                if *f == h {
                    self.history
                        .entry((*o, *a))
                        .or_default()
                        .entry(i.version(*a))
                        .or_insert((Some(h), false));
                }
            }
        }
    }

    /// A hand-over of `owner`'s versions `attrs` of `object` in `from`'s stream, at `seq`; `inst`
    /// is the instance as this LRC has it. Behind a held update (or hand-over) of the same
    /// stream, owner and instance it is held too, in order (false); otherwise it takes effect
    /// now (true: held updates may move).
    pub(crate) fn hand_over(
        &mut self,
        from: Node,
        seq: u64,
        object: Obj,
        owner: FederateHandle,
        attrs: Vec<(Attr, u32)>,
        inst: Option<&Instance>,
    ) -> bool {
        if self.has_held(from, owner, object) {
            self.held.push((
                from,
                seq,
                DataMsg::HandOver {
                    object,
                    owner,
                    attrs,
                },
            ));
            return false;
        }
        self.mark_handed_over(object, owner, attrs, inst);
        true
    }

    /// Remembers a hand-over this LRC puts in its stream, for its snapshots (the latest
    /// [`MAX_SENT_HAND_OVERS`]).
    pub(crate) fn remember_sent(&mut self, record: SentHandOver) {
        if self.sent_hand_overs.len() >= MAX_SENT_HAND_OVERS {
            self.sent_hand_overs.pop_front();
        }
        self.sent_hand_overs.push_back(record);
    }

    /// Local new owners whose earlier owners all handed over (`version_of` gives each
    /// attribute's current version here): they stop waiting and are returned, grouped by
    /// (federate, instance, tag) for one notification each.
    pub(crate) fn take_ready_owners(
        &mut self,
        version_of: impl Fn(Obj, Attr) -> u32,
    ) -> BTreeMap<ReadyOwner, Vec<Attr>> {
        let ready: Vec<((Obj, Attr), Starting)> = self
            .starting
            .iter()
            .filter(|((o, a), _)| self.all_over_before(*o, *a, version_of(*o, *a)))
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let mut notify: BTreeMap<ReadyOwner, Vec<Attr>> = BTreeMap::new();
        for ((o, a), (f, tag)) in ready {
            self.starting.remove(&(o, a));
            notify.entry((f, o, tag)).or_default().push(a);
        }
        notify
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
        let objects = &self.objects;
        let notify = self
            .ownership
            .take_ready_owners(|o, a| objects.get(&o).map_or(0, |i| i.version(a)));
        for ((f, object, tag), attrs) in notify {
            // Its own update regions go with its updates from now on (see `regions`).
            self.regions_on_acquired(f, object, &attrs);
            // A transfer the MOM made is not notified (`HLAmodifyAttributeState`).
            let Some(tag) = tag else { continue };
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
        self.ownership.remember_sent((object, owner, attrs.clone()));
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
        if self
            .ownership
            .hand_over(from, seq, object, owner, attrs, self.objects.get(&object))
        {
            self.release_held();
        }
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
                    retraction: _,
                    after: _,
                    regions,
                } => {
                    let key = (from, producer, object);
                    let verdict = if blocked.contains(&key) {
                        Verdict::Hold
                    } else {
                        self.update_verdict(object, producer, &values, &versions)
                    };
                    match verdict {
                        // The regions it carries apply now, in its stream's order; sent in
                        // regions a newer move replaced meanwhile (a best-effort `MoveRegions`
                        // that overtook it before it was held: a move that comes after a held
                        // update waits behind it), it is stale (`super::regions`, "Moves within
                        // the cells").
                        Verdict::Accept
                            if regions.as_ref().is_some_and(|r| {
                                from != self.me
                                    && !self.apply_moved_regions(from, object, producer, &r.attrs)
                            }) =>
                        {
                            self.regions.stale_drops += 1;
                        }
                        Verdict::Accept => {
                            let mut served = Vec::new();
                            self.reflect_update(
                                object,
                                producer,
                                values,
                                tag,
                                time,
                                false,
                                None,
                                seq,
                                &mut served,
                                true,
                            );
                        }
                        Verdict::Drop => self.ownership.drop_update(),
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
                                    retraction: None,
                                    after: 0,
                                    regions,
                                },
                            ));
                        }
                    }
                }
                // A move held behind an update of its stream (see `on_move_regions`) applies
                // once that update was judged: the update keeps the regions it was sent in.
                msg @ DataMsg::MoveRegions {
                    object, producer, ..
                } if blocked.contains(&(from, producer, object)) => keep.push((from, seq, msg)),
                DataMsg::MoveRegions {
                    object,
                    producer,
                    version,
                    attrs,
                    ..
                } => {
                    let attrs = crate::core::regions::numbered(version, attrs);
                    self.apply_moved_regions(from, object, producer, &attrs);
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

#[cfg(test)]
mod tests {
    //! The version lifecycle of one attribute, driven without a federation: an owner registers
    //! it (version 0), a transfer moves it to another (version 1), hand-overs, losses and
    //! removed LRCs end versions, and the verdicts follow.

    use super::*;
    use crate::core::ownership::MAX_HELD_UPDATES;
    use crate::handles::{ObjectClassHandle, ObjectInstanceHandle};

    const O: Obj = ObjectInstanceHandle(1);
    const A: Attr = AttributeHandle(7);
    const OLD: FederateHandle = FederateHandle(1);
    const NEW: FederateHandle = FederateHandle(2);
    const OTHER: FederateHandle = FederateHandle(3);
    /// The LRCs the old and the new owner run on.
    const OLD_LRC: Node = 10;
    const NEW_LRC: Node = 20;

    fn owned_by(f: FederateHandle, version: u32) -> Instance {
        Instance {
            class: ObjectClassHandle(1),
            name: "o".into(),
            owners: [(A, f)].into(),
            versions: if version == 0 {
                BTreeMap::new()
            } else {
                [(A, version)].into()
            },
            values: BTreeMap::new(),
            origin: OLD_LRC,
        }
    }

    fn verdict(
        s: &OwnershipState,
        inst: &Instance,
        from: Node,
        f: FederateHandle,
        v: u32,
    ) -> Verdict {
        s.judge(from, Some(inst), O, f, &[(A, vec![1])], &[v])
    }

    fn update(f: FederateHandle, v: u32) -> DataMsg {
        DataMsg::Update {
            object: O,
            producer: f,
            values: vec![(A, vec![1])],
            tag: Vec::new(),
            time: None,
            tso: false,
            versions: vec![v],
            retraction: None,
            after: 0,
            regions: None,
        }
    }

    /// `OLD` owned version 0, the transfer decision gave version 1 to `NEW`.
    fn transferred() -> (OwnershipState, Instance) {
        let mut s = OwnershipState::default();
        s.record_transfer(O, A, 1, Some(OLD), Some(NEW));
        (s, owned_by(NEW, 1))
    }

    #[test]
    fn before_any_transfer_only_the_registrant_updates() {
        let s = OwnershipState::default();
        let inst = owned_by(OLD, 0);
        assert_eq!(verdict(&s, &inst, OLD_LRC, OLD, 0), Verdict::Accept);
        assert_eq!(verdict(&s, &inst, NEW_LRC, NEW, 0), Verdict::Drop);
        assert_eq!(
            verdict(&s, &inst, NEW_LRC, NEW, 1),
            Verdict::Hold,
            "a version this LRC has not seen decided yet"
        );
        assert_eq!(
            s.judge(OLD_LRC, None, O, OTHER, &[(A, vec![1])], &[0]),
            Verdict::Accept,
            "an unknown instance: nothing to reflect, the caller drops it"
        );
    }

    #[test]
    fn the_old_owner_counts_until_its_hand_over_and_the_new_one_waits_for_it() {
        let (mut s, inst) = transferred();
        assert_eq!(
            verdict(&s, &inst, OLD_LRC, OLD, 0),
            Verdict::Accept,
            "in flight"
        );
        assert_eq!(
            verdict(&s, &inst, NEW_LRC, NEW, 1),
            Verdict::Hold,
            "overtook the hand-over"
        );
        assert_eq!(verdict(&s, &inst, OLD_LRC, OTHER, 0), Verdict::Drop);
        assert!(s.hand_over(OLD_LRC, 5, O, OLD, vec![(A, 0)], Some(&inst)));
        assert_eq!(
            verdict(&s, &inst, OLD_LRC, OLD, 0),
            Verdict::Drop,
            "after its hand-over"
        );
        assert_eq!(verdict(&s, &inst, NEW_LRC, NEW, 1), Verdict::Accept);
        assert_eq!(
            s.history[&(O, A)].keys().copied().collect::<Vec<_>>(),
            vec![1],
            "only the current version is remembered: nothing in flight needs the ended one"
        );
    }

    #[test]
    fn a_lost_owner_ends_its_version_without_a_hand_over() {
        let (mut s, inst) = transferred();
        s.federate_lost(OLD);
        assert_eq!(verdict(&s, &inst, NEW_LRC, NEW, 1), Verdict::Accept);
    }

    #[test]
    fn an_owner_resigned_on_a_removed_lrc_ends_like_a_lost_one() {
        let (mut s, inst) = transferred();
        s.resigned_on(OLD, OLD_LRC);
        s.node_removed(NEW_LRC);
        assert_eq!(
            verdict(&s, &inst, NEW_LRC, NEW, 1),
            Verdict::Hold,
            "another LRC"
        );
        s.node_removed(OLD_LRC);
        assert_eq!(verdict(&s, &inst, NEW_LRC, NEW, 1), Verdict::Accept);
        assert!(s.resigned_on.is_empty());
    }

    #[test]
    fn a_resigned_owners_updates_in_flight_still_count() {
        let mut s = OwnershipState::default();
        let mut inst = owned_by(OLD, 0);
        let objects: BTreeMap<Obj, Instance> = [(O, inst.clone())].into();
        s.remember_versions_of(OLD, &objects);
        inst.owners.clear(); // its attributes became unowned
        assert_eq!(verdict(&s, &inst, OLD_LRC, OLD, 0), Verdict::Accept);
        assert_eq!(verdict(&s, &inst, NEW_LRC, NEW, 0), Verdict::Drop);
        assert!(s.hand_over(OLD_LRC, 9, O, OLD, vec![(A, 0)], Some(&inst)));
        assert_eq!(verdict(&s, &inst, OLD_LRC, OLD, 0), Verdict::Drop);
    }

    #[test]
    fn behind_a_held_update_its_streams_later_messages_wait_in_order() {
        let (mut s, inst) = transferred();
        s.hold_update(NEW_LRC, 3, update(NEW, 1));
        assert_eq!(s.held_updates, 1);
        // The new owner's LRC also carries an old-version update of the same producer: held
        // behind, whatever its own verdict.
        assert_eq!(verdict(&s, &inst, NEW_LRC, NEW, 1), Verdict::Hold);
        assert_eq!(
            verdict(&s, &inst, OLD_LRC, OLD, 0),
            Verdict::Accept,
            "another stream"
        );
        // A hand-over behind a held update of the same stream and owner waits too.
        s.hold_update(OLD_LRC, 4, update(OLD, 0));
        assert!(!s.hand_over(OLD_LRC, 5, O, OLD, vec![(A, 0)], Some(&inst)));
        assert_eq!(s.held.len(), 3);
        assert_eq!(
            verdict(&s, &inst, NEW_LRC, NEW, 1),
            Verdict::Hold,
            "not handed over yet"
        );
    }

    #[test]
    fn held_updates_are_bounded_and_the_excess_counted() {
        let mut s = OwnershipState::default();
        for i in 0..MAX_HELD_UPDATES as u64 + 2 {
            s.hold_update(NEW_LRC, i, update(NEW, 1));
        }
        assert_eq!(s.held.len(), MAX_HELD_UPDATES);
        assert_eq!(s.held_updates, MAX_HELD_UPDATES as u64);
        assert_eq!(s.dropped_updates, 2);
        s.drop_update();
        assert_eq!(s.dropped_updates, 3);
    }

    #[test]
    fn a_local_new_owner_starts_once_every_earlier_owner_handed_over() {
        let (mut s, inst) = transferred();
        s.starting.insert((O, A), (NEW, Some(b"t".to_vec())));
        let version = |_: Obj, _: Attr| 1;
        assert!(s.take_ready_owners(version).is_empty());
        assert!(s.hand_over(OLD_LRC, 5, O, OLD, vec![(A, 0)], Some(&inst)));
        let ready = s.take_ready_owners(version);
        assert_eq!(ready, [((NEW, O, Some(b"t".to_vec())), vec![A])].into());
        assert!(s.starting.is_empty(), "notified once");
    }

    #[test]
    fn a_transfer_keeps_what_the_history_already_says() {
        let mut s = OwnershipState::default();
        s.record_transfer(O, A, 1, Some(OLD), Some(NEW));
        // A later decision that skipped ahead names other owners: versions known stay.
        s.record_transfer(O, A, 2, Some(OTHER), Some(OTHER));
        let h = &s.history[&(O, A)];
        assert_eq!(h[&0], (Some(OLD), false));
        assert_eq!(h[&1], (Some(NEW), false));
        assert_eq!(h[&2], (Some(OTHER), false));
    }

    #[test]
    fn sent_hand_overs_keep_the_latest() {
        let mut s = OwnershipState::default();
        for i in 0..MAX_SENT_HAND_OVERS as u32 + 1 {
            s.remember_sent((O, OLD, vec![(A, i)]));
        }
        assert_eq!(s.sent_hand_overs.len(), MAX_SENT_HAND_OVERS);
        assert_eq!(s.sent_hand_overs.front(), Some(&(O, OLD, vec![(A, 1)])));
    }

    #[test]
    fn a_deleted_instance_takes_its_history_and_held_messages_along() {
        let (mut s, inst) = transferred();
        s.hold_update(NEW_LRC, 3, update(NEW, 1));
        s.starting.insert((O, A), (NEW, Some(Vec::new())));
        s.forget(O);
        assert!(s.history.is_empty() && s.held.is_empty() && s.starting.is_empty());
        assert_eq!(
            verdict(&s, &inst, OLD_LRC, OLD, 0),
            Verdict::Drop,
            "no history left"
        );
    }

    #[test]
    fn transfers_decided_before_the_instance_apply_when_it_arrives_if_newer() {
        let mut s = OwnershipState::default();
        s.early.insert(O, [(A, (Some(NEW), 2))].into());
        let mut inst = owned_by(OLD, 0);
        s.apply_early(O, Some(&mut inst));
        assert_eq!((inst.owner_of(A), inst.version(A)), (Some(NEW), 2));
        s.early.insert(O, [(A, (None, 1))].into());
        s.apply_early(O, Some(&mut inst));
        assert_eq!(
            (inst.owner_of(A), inst.version(A)),
            (Some(NEW), 2),
            "older: ignored"
        );
        assert!(s.early.is_empty());
    }
}
