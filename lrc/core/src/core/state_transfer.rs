//! State transfer for late joiners, and the per-sender gate on the data stream.
//!
//! A joining LRC asks every LRC that was a member before it for a snapshot of the instances its
//! federates own (with current values) and of their declarations. The snapshot is taken
//! atomically with the sender's reliable-data high-water sequence number and sent as a causal
//! control message, so it is released only after the joiner has the data before it. Until that
//! sender's snapshot is applied, its data is held; then the state carried by held data up to the
//! high-water mark (registrations, deletions, declarations: already in the snapshot) is dropped,
//! its updates and interactions are still delivered, and the rest applied: no gap and no
//! duplicate. Data from an LRC not
//! yet in the view is held until the decision that admits it arrives; data from removed LRCs is
//! ignored.
//!
//! The stream of an LRC that joined after this one needs no snapshot when it reaches this LRC
//! from its first message. It does not when the two LRCs' connection came up only after that
//! LRC had sent (its federate joined, subscribed and registered while the connection between
//! the two was still being dialled): the transport starts a peer's stream where the peer stood
//! when the two became channel members ([`super::Event::ChannelPeer`] says where), and nothing
//! would ever bring what came before — a registration missed that way is never discovered, and
//! every update of the instance is lost. Such a stream waits for a snapshot too, once its
//! sender is in the view.

use crate::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};

use super::declarations::{RemoteInterest, RemoteSubscription};
use super::objects::Instance;
use super::wire::{ControlMsg, DataMsg, Declaration, InstanceState};
use super::{FederationCore, Node};

/// Largest number of messages held per sender before its snapshot or admission arrives.
pub const MAX_HELD: usize = 1 << 20;

/// Receive state of one sender's data stream.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    /// The sender was a member before this LRC: wait for its snapshot.
    pub needs_snapshot: bool,
    /// Snapshot asked for.
    pub requested: bool,
    /// Data is applied as it arrives.
    pub live: bool,
    /// Reliable data up to here is covered by the snapshot.
    pub skip_upto: u64,
    /// Held messages.
    pub held: Vec<(Option<u64>, DataMsg)>,
    /// After the transport lost this sender's data up to here, only a snapshot at least this
    /// recent can resynchronise us.
    pub resync_after: u64,
    /// The sender's restore epoch as its stream last said (`None`: not known yet, taken to be
    /// ours; see `super::restore`).
    pub epoch: Option<u32>,
    /// Data the sender sent after a restore this LRC has not applied yet: (seq, reliable, msg).
    pub future: Vec<(Option<u64>, bool, DataMsg)>,
    /// The transport passed over the sender's positions up to here while the stream was held
    /// (they went to DDM cells this LRC did not join): counted once the held data is applied.
    pub skipped_to: u64,
}

/// The transport restarted a held stream at `first` (the two LRCs' connection dropped and came
/// up again): if what was held before stops short of `first`, the positions between are lost
/// for good, and the held data before them is stale. Replayed behind the snapshot, its updates
/// would leave the federates with older values than the snapshot's, followed by a jump to the
/// live ones (unified simulator, joiner sweep, seeds 5342 and 6245: a joiner that listened
/// before a partition reflected an instance's first value, then its twelfth). The snapshot
/// covers their state; only what follows the gap is kept.
fn forget_held_before_gap(st: &mut Stream, first: u64) {
    let reached = st
        .held
        .iter()
        .filter_map(|(seq, _)| *seq)
        .max()
        .unwrap_or(0)
        .max(st.skipped_to);
    if reached + 1 >= first {
        return;
    }
    st.held.retain(|(seq, _)| seq.is_some_and(|s| s >= first));
    // Short of `first` too (it is part of `reached`).
    st.skipped_to = 0;
}

/// An instance as a snapshot (or a decision) carries it.
pub(crate) fn instance_state(
    object: crate::handles::ObjectInstanceHandle,
    i: &Instance,
) -> InstanceState {
    InstanceState {
        object,
        class: i.class,
        name: i.name.clone(),
        owners: i
            .versions
            .keys()
            .chain(i.owners.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|a| (*a, i.owner_of(*a), i.version(*a)))
            .collect(),
        values: i.values.iter().map(|(a, v)| (*a, v.clone())).collect(),
    }
}

impl FederationCore {
    /// Whether `from` is a member this LRC lost and has not heard again: its data is ignored
    /// until the log removes it or its connection comes back. A member that comes back while
    /// the log kept it (the coordinator never lost it) stays suspected — whom this LRC follows
    /// as coordinator is the log's to settle, not a reconnection's — but it is a member like
    /// any other whose data counts, and its restarted stream waits for a fresh snapshot
    /// (unified simulator, joiner sweep, seeds 7232 and 9410: ignored for good, its instances
    /// were never discovered here).
    fn lost_here(&self, from: Node) -> bool {
        self.suspected.contains(&from) && !self.channel_peers.contains(&from)
    }

    /// Data from another LRC: through the gate, then applied.
    pub(crate) fn on_data(&mut self, from: Node, seq: Option<u64>, msg: DataMsg) {
        if from == self.me || self.removed.contains(&from) || self.lost_here(from) {
            return;
        }
        if let DataMsg::Time {
            from: f,
            msg,
            epoch,
            number,
        } = &msg
        {
            // Not held behind a snapshot or an admission: the managers order it themselves,
            // and early ones wait in the time backlog. It still takes its place in the stream
            // below: save cuts and resignation gates wait until its sequence number is applied.
            self.on_time_message(from, *f, None, msg.clone(), *epoch, *number);
        }
        let st = self.streams.entry(from).or_default();
        if !st.live {
            if st.held.len() < MAX_HELD {
                st.held.push((seq, msg));
            }
            return;
        }
        if seq.is_some_and(|s| s <= st.skip_upto) {
            return;
        }
        self.apply_data(from, seq, true, msg);
    }

    /// The transport passed over `from`'s reliable positions up to `through`: they went to DDM
    /// cell groups this LRC did not join, so nothing of them comes (see `docs/DDM.md`,
    /// "Reliability across groups"). They count as applied, as a snapshot's coverage does:
    /// the time managers, resignation gates and save cuts that wait for the sender's data up
    /// to a position do not wait for them. Held behind the stream's own held data.
    pub(crate) fn on_skipped(&mut self, from: Node, through: u64) {
        if from == self.me || self.removed.contains(&from) || self.lost_here(from) {
            return;
        }
        let st = self.streams.entry(from).or_default();
        if !st.live {
            st.skipped_to = st.skipped_to.max(through);
            return;
        }
        self.time_skip(from, through);
        self.release_resignations(None);
    }

    /// What the transport passed over while `from`'s stream was held, counted now that its held
    /// data was applied.
    fn apply_held_skip(&mut self, from: Node) {
        let Some(st) = self.streams.get_mut(&from) else {
            return;
        };
        let to = std::mem::take(&mut st.skipped_to);
        if to > 0 && st.live {
            self.time_skip(from, to);
            self.release_resignations(None);
        }
    }

    /// A node was admitted by a decision.
    pub(crate) fn on_node_added(&mut self, n: Node) {
        if n == self.me {
            return;
        }
        // Back after leaving: a member like any newcomer.
        self.left.remove(&n);
        // A joiner this LRC lost before its admission (its connection dropped while it was
        // joining) is barred no more: the log admits it, so every member must serve it.
        self.removed.remove(&n);
        self.evicted_told.remove(&n);
        self.foreign.remove(&n);
        if self.gone.contains(&n) {
            self.suspected.insert(n);
        }
        let st = self.streams.entry(n).or_default();
        if !st.needs_snapshot && !st.live {
            st.live = true;
            let held = std::mem::take(&mut st.held);
            for (seq, m) in held {
                self.apply_data(n, seq, true, m);
            }
            self.apply_held_skip(n);
        }
        // A stream that started late here waited for this decision to ask for its snapshot
        // (a joiner replaying its Welcome asks once the whole log is applied).
        if !self.phase.is_replaying() {
            self.request_snapshots();
        }
    }

    /// `from`'s reliable stream reaches this LRC from sequence number `first` on (see the module
    /// docs): if that is not its whole stream and no snapshot is awaited from it anyway (it was
    /// a member before this LRC), its stream is held from now on until a snapshot covers what
    /// this LRC never got. Requested once `from` is in the view (see [`Self::request_snapshots`]).
    pub(crate) fn on_stream_start(&mut self, from: Node, first: u64) {
        if first <= 1 || from == self.me || self.removed.contains(&from) {
            return;
        }
        let st = self.streams.entry(from).or_default();
        if !st.live {
            forget_held_before_gap(st, first);
        }
        if st.needs_snapshot && !st.live {
            // A snapshot asked for over the connection this one replaces may have been lost
            // with it: ask again (a second answer is ignored).
            st.requested = false;
            return;
        }
        // Data applied before this (it may overtake the peer event) stays applied: the
        // snapshot is newer, and only held data is replayed from it.
        st.live = false;
        st.needs_snapshot = true;
        st.requested = false;
    }

    /// The transport lost `from`'s reliable data up to `last` (it fell out of the sender's
    /// retransmit buffer): hold its stream and resynchronise from a fresh snapshot.
    pub(crate) fn on_fell_behind(&mut self, from: Node, last: u64) {
        if from == self.me || self.removed.contains(&from) {
            return;
        }
        let st = self.streams.entry(from).or_default();
        st.live = false;
        st.needs_snapshot = true;
        st.requested = false;
        st.resync_after = st.resync_after.max(last);
        st.held.retain(|(seq, _)| seq.is_some_and(|s| s > last));
        self.request_snapshots();
    }

    pub(crate) fn on_node_removed(&mut self, n: Node) {
        self.removed.insert(n);
        self.suspected.remove(&n);
        self.streams.remove(&n);
        self.channel_peers.remove(&n);
        // A reply still waiting for the members' acknowledgements (a joiner's Welcome and
        // `Joined`) is never due now: sent later, it told a federate it joined a federation
        // that had removed its LRC (unified simulator, joiner sweep, seed 4569).
        self.drop_held_replies_to(n);
    }

    /// Asks each member whose stream waits for a snapshot and whose channel is open for it.
    /// Only members: the snapshot of an LRC whose admission this LRC has not applied yet would
    /// let its data in before the decision that admits it.
    pub(crate) fn request_snapshots(&mut self) {
        if !self.phase.is_admitted() {
            return;
        }
        let ask: Vec<Node> = self
            .streams
            .iter()
            .filter(|(n, s)| {
                s.needs_snapshot
                    && !s.requested
                    && self.channel_peers.contains(n)
                    && self.view.nodes.contains(n)
            })
            .map(|(n, _)| *n)
            .collect();
        for n in ask {
            if let Some(s) = self.streams.get_mut(&n) {
                s.requested = true;
            }
            self.send_control(n, false, ControlMsg::SnapshotRequest);
        }
    }

    pub(crate) fn on_snapshot_request(&mut self, from: Node) {
        let coordinating = self.coordinator() == Some(self.me);
        let instances: Vec<InstanceState> = self
            .objects
            .iter()
            // Registered through our data stream (the authority on their existence, consistent
            // with the high-water mark below), or with attributes our federates own. Orphans
            // (no attribute owned) whose LRC hosts no federate any more (it may exit, or be gone
            // already): the coordinator hands them on too, so they outlive the process that
            // registered them (a joiner merges copies it gets twice).
            // The MOM's federation instance is every LRC's own (see `super::mom`).
            .filter(|(o, _)| **o != super::mom::federation_instance())
            .filter(|(_, i)| {
                i.origin == self.me
                    || i.owners.values().any(|o| self.locals.contains_key(o))
                    || (i.owners.is_empty()
                        && coordinating
                        && !self.view.federates.values().any(|r| r.node == i.origin))
            })
            .map(|(h, i)| instance_state(*h, i))
            .collect();
        let mut declarations = Vec::new();
        for (h, lf) in &self.locals {
            for (c, s) in &lf.decl.subscribed_objects {
                if s.active {
                    declarations.push((
                        *h,
                        self.subscribe_declaration(*h, *c, s.attrs.iter().copied().collect()),
                    ));
                }
            }
            for d in super::update_rate::subscription_declarations(lf) {
                declarations.push((*h, d));
            }
            declarations.push((*h, Declaration::AutomaticResign(lf.auto_resign)));
            declarations.extend(
                self.update_region_declarations(*h)
                    .into_iter()
                    .map(|d| (*h, d)),
            );
            for (ic, active) in &lf.decl.subscribed_interactions {
                if *active {
                    declarations.push((*h, Declaration::SubscribeInteraction(*ic, true)));
                }
            }
        }
        let high_water = self.data_hw;
        let epoch = self.restore.epoch();
        self.send_control(
            from,
            true,
            ControlMsg::Snapshot {
                high_water,
                instances,
                declarations,
                epoch,
                hand_overs: self.ownership.sent_hand_overs.iter().cloned().collect(),
            },
        );
        // What the requester lost of our stream may hold our federates' last promises (sent
        // only when they change): each of ours tells each of its federates again, behind the
        // snapshot's high-water mark (rti_sim, time mode, seed 440: a regulator's promise lost
        // to a fall-behind left a constrained federate waiting for good).
        let theirs = self.federates_on(from);
        if !theirs.is_empty() {
            for tm in self.time.managers.values_mut() {
                for g in &theirs {
                    tm.resend_status(super::time::member(*g));
                }
            }
            self.pump_time();
        }
    }

    pub(crate) fn on_snapshot(
        &mut self,
        from: Node,
        high_water: u64,
        instances: Vec<InstanceState>,
        declarations: Vec<(FederateHandle, Declaration)>,
        hand_overs: Vec<super::ownership::SentHandOver>,
    ) {
        let Some(st) = self.streams.get_mut(&from) else {
            return;
        };
        if st.live {
            // A second answer (asked again after falling behind): the first one settled it.
            return;
        }
        if high_water < st.resync_after {
            // Taken before the data we lost: ask again.
            st.requested = false;
            self.request_snapshots();
            return;
        }
        st.live = true;
        st.skip_upto = high_water;
        // The epoch the held data starts in (it may begin before a restore's marker).
        let held_epoch = st.epoch;
        // Only a snapshot of our own restore epoch is applied (see `on_control`): the sender is
        // in it, even if its marker was in data we lost.
        st.epoch = Some(self.restore.epoch());
        let held = std::mem::take(&mut st.held);
        // Hand-overs sent before the snapshot may be in data this LRC never got.
        self.hand_overs_from_snapshot(hand_overs);
        // The snapshot is the truth about the sender's federates' instances: what we hold of
        // theirs and it lacks was deleted in data we never got (resynchronisation).
        let in_snapshot: std::collections::BTreeSet<_> =
            instances.iter().map(|i| i.object).collect();
        // Not an orphan the sender only handed on (it came from the coordinator, its registrant's
        // LRC being another): the coordinator stops handing an orphan on once that LRC hosts a
        // federate again, which says nothing about the orphan (rti_sim, orphans, frequent
        // restores, folding every 5 decisions, seed 1426: a federate lost an instance every
        // other federate kept).
        let stale: Vec<_> = self
            .objects
            .iter()
            .filter(|(o, i)| {
                !in_snapshot.contains(o)
                    && i.origin == from
                    && !(i.owners.is_empty()
                        && self
                            .view
                            .ran_on
                            .get(&o.registrant())
                            .is_some_and(|n| *n != from))
            })
            .map(|(o, _)| *o)
            .collect();
        for o in stale {
            self.remove_instance(o, Vec::new(), None, None);
        }
        // The snapshot's update regions are all there are of the attributes the sender's
        // federates own: one it lists none for is in the default region, whatever this LRC
        // held before (after a fell-behind, the announcement that unassociated them may be in
        // the data lost; unified simulator, region mode, seed 1860: a resynchronised LRC kept
        // the stale region and filtered every later update out of a subscription region).
        for i in &instances {
            let theirs: Vec<AttributeHandle> = i
                .owners
                .iter()
                .filter(|(_, owner, _)| {
                    owner.is_some_and(|o| {
                        self.view.federates.get(&o).is_some_and(|r| r.node == from)
                    })
                })
                .map(|(a, _, _)| *a)
                .collect();
            if let Some(m) = self.regions.update_regions.get_mut(&i.object) {
                for a in theirs {
                    m.remove(&a);
                }
                if m.is_empty() {
                    self.regions.update_regions.remove(&i.object);
                }
            }
        }
        // Update regions first, so that no instance is discovered before its regions are known
        // (see `super::regions`).
        for (_, d) in &declarations {
            if let Declaration::UpdateRegions { object, attrs } = d {
                self.apply_update_regions(*object, attrs.clone());
            }
        }
        for i in instances {
            if let Some(known) = self.objects.get_mut(&i.object) {
                known.values.extend(i.values);
                // Ownership: the higher version is the later state.
                for (a, owner, v) in i.owners {
                    if v > known.version(a) {
                        match owner {
                            Some(o) => known.owners.insert(a, o),
                            None => known.owners.remove(&a),
                        };
                        known.versions.insert(a, v);
                    }
                }
                self.ownership_on_new_instance(i.object);
                continue;
            }
            // The registrant's LRC is the authority on the instance's existence (any LRC whose
            // federates own some of its attributes also sends it). The snapshot may predate a
            // resignation this LRC already applied: `adopt_instance` settles that.
            let origin = self
                .view
                .federates
                .get(&i.object.registrant())
                .map_or(from, |r| r.node);
            self.adopt_instance(i, origin);
        }
        let theirs: Vec<FederateHandle> = self
            .view
            .federates
            .iter()
            .filter(|(_, r)| r.node == from)
            .map(|(h, _)| *h)
            .collect();
        for f in theirs {
            self.interest.remove(&f);
        }
        self.interest_changed();
        for (f, d) in declarations {
            self.apply_declaration(f, d);
        }
        // Held data the snapshot covers: its state (registrations, deletions, declarations) is in
        // the snapshot, but updates and interactions sent since this LRC listened are events its
        // federates are entitled to — reflect them, in order (the values end where the snapshot
        // has them). Dropping them lost e.g. a timestamped update sent just as a federate joined.
        let (covered, rest): (Vec<_>, Vec<_>) = held
            .into_iter()
            .partition(|(seq, _)| seq.is_some_and(|s| s <= high_water));
        // Covered data sent before the sender's restore marker belongs to the abandoned run,
        // like it would have live (see `apply_data`): its updates must not be reflected now.
        // A restore marker `Epoch(n)` among the held data says that what came before it belongs
        // to an earlier epoch, whatever this LRC assumed: a joiner that began listening before a
        // restore and learnt of the restore by replaying the decision log takes every stream to
        // be in the new epoch, and must still not reflect the abandoned run's values (rti_sim,
        // orphans mode folding every 3 decisions, seed 444: a late joiner reflected 1, 2, 3 of
        // the abandoned run, then 1 again). `None`: an epoch before the first marker.
        let mine = self.restore.epoch();
        let first_marker = covered.iter().find_map(|(_, m)| match m {
            DataMsg::Epoch(n) => Some(*n),
            _ => None,
        });
        let mut epoch = match (held_epoch, first_marker) {
            (Some(e), Some(n)) if e < n => Some(e),
            (_, Some(_)) => None,
            (e, None) => Some(e.unwrap_or(mine)),
        };
        // Update regions: the snapshot has them as at its high-water mark, but a held update
        // must be judged against those in force when it was sent (see `super::regions`). Where
        // a held announcement changes an instance attribute's regions, those before it are
        // unknown here: until the replay reaches that announcement the attribute overlaps no
        // subscription region (a subscriber without regions still gets it), and after the
        // replay the snapshot's regions are back. Judged against the snapshot's, a joiner's
        // federate reflected updates sent outside its regions (unified simulator, region mode,
        // seeds 71 and 92). A reliable attribute's move to its cells is such an announcement
        // too (`DataMsg::MoveRegions`, numbered in the stream), and so is a reliable update that
        // carries its attributes' regions (a best-effort attribute's move folded into it,
        // `super::move_fold`).
        //
        // On cell groups a move may also hide in a position this LRC passed over (sent to cells
        // it had not joined), so it is not among the held data. A held update that carries no
        // regions was sent in those of the sender's last announcement to every LRC (after a
        // move, updates carry their regions until the next such announcement); the snapshot's
        // may be a later move's. So a held update without regions that a passed-over position
        // follows is judged with its attributes' update regions overlapping no subscription
        // region (a subscriber without regions still gets it); after a passed-over position,
        // every move is held. Judged against the snapshot's, a joiner's federate reflected a
        // value sent before the instance moved into its region (unified simulator, cell groups
        // with interactions, seeds 1043, 1057, 1747 and 1892).
        let announced: std::collections::BTreeSet<(ObjectInstanceHandle, AttributeHandle)> =
            covered
                .iter()
                .flat_map(|(_, m)| match m {
                    DataMsg::UpdateRegions { object, attrs, .. }
                    | DataMsg::MoveRegions { object, attrs, .. } => {
                        attrs.iter().map(|(a, _)| (*object, *a)).collect()
                    }
                    // A move folded into the update after it (`super::move_fold`) is announced
                    // by the regions the update carries.
                    DataMsg::Update {
                        object,
                        regions: Some(r),
                        ..
                    } => r.attrs.iter().map(|(a, _, _)| (*object, *a)).collect(),
                    _ => Vec::new(),
                })
                .collect();
        let at_high_water: Vec<_> = announced
            .iter()
            .map(|(o, a)| {
                let ext = self
                    .regions
                    .update_regions
                    .get(o)
                    .and_then(|m| m.get(a))
                    .cloned();
                (*o, *a, ext.unwrap_or_default())
            })
            .collect();
        for (o, a) in &announced {
            self.regions
                .update_regions
                .entry(*o)
                .or_default()
                .insert(*a, Vec::new());
        }
        let last_gap = last_passed_over(&covered, high_water);
        for (seq, m) in covered {
            if let DataMsg::Epoch(n) = m {
                epoch = Some(n);
                continue;
            }
            if epoch != Some(mine) {
                continue;
            }
            let masked = match (&m, seq) {
                (
                    DataMsg::Update {
                        object,
                        values,
                        regions: None,
                        ..
                    },
                    Some(s),
                ) if last_gap.is_some_and(|g| g > s) => {
                    self.mask_update_regions(*object, values.iter().map(|(a, _)| *a))
                }
                _ => Vec::new(),
            };
            if let (DataMsg::Update { object, .. }, false) = (&m, masked.is_empty()) {
                let object = *object;
                self.apply_data(from, seq, true, m);
                self.apply_update_regions(object, masked);
                continue;
            }
            if matches!(
                m,
                DataMsg::Update { .. }
                    | DataMsg::Interaction { .. }
                    | DataMsg::RequestUpdate { .. }
                    | DataMsg::HandOver { .. }
                    | DataMsg::InteractionInRegions { .. }
                    | DataMsg::RequestUpdateInRegions { .. }
                    | DataMsg::UpdateRegions { .. }
                    | DataMsg::MoveRegions { .. }
            ) {
                self.apply_data(from, seq, true, m);
            }
        }
        for (o, a, ext) in at_high_water {
            self.apply_update_regions(o, vec![(a, ext)]);
        }
        self.time_skip(from, high_water);
        for (seq, m) in rest {
            match seq {
                None => {} // best effort sent before the snapshot: at most once allows dropping
                Some(_) => self.apply_data(from, seq, true, m),
            }
        }
        self.apply_held_skip(from);
        self.advise();
    }

    /// Sets the update regions of `attrs` of `object` that have some to "overlaps no
    /// subscription region" (an empty list; absent would be the default region), and returns
    /// them as they were, for [`FederationCore::apply_update_regions`] to put back.
    fn mask_update_regions(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: impl Iterator<Item = AttributeHandle>,
    ) -> super::regions::AttrExtents {
        let Some(m) = self.regions.update_regions.get_mut(&object) else {
            return Vec::new();
        };
        attrs
            .filter_map(|a| {
                let ext = m.get_mut(&a).filter(|e| !e.is_empty())?;
                Some((a, std::mem::take(ext)))
            })
            .collect()
    }

    /// Takes an instance this LRC did not know from a snapshot, with `origin` as the LRC that
    /// hands it on, and tells its subscribers — unless a resignation applied here deleted it
    /// (see `settle_new_instance`).
    pub(crate) fn adopt_instance(&mut self, i: InstanceState, origin: Node) {
        let mut owners = std::collections::BTreeMap::new();
        let mut versions = std::collections::BTreeMap::new();
        for (a, owner, v) in i.owners {
            if let Some(o) = owner {
                owners.insert(a, o);
            }
            if v > 0 {
                versions.insert(a, v);
            }
        }
        self.objects.insert(
            i.object,
            Instance {
                class: i.class,
                name: i.name,
                owners,
                versions,
                values: i.values.into_iter().collect(),
                origin,
            },
        );
        // Decisions seen first apply; owners that resigned meanwhile own nothing, or deleted it.
        if self.settle_new_instance(i.object) {
            self.discover_for_subscribers(i.object);
        }
    }

    pub(crate) fn apply_declaration(&mut self, f: FederateHandle, d: Declaration) {
        if let Declaration::UpdateRegions { object, attrs } = d {
            self.apply_update_regions(object, attrs);
            return;
        }
        let ri: &mut RemoteInterest = self.interest.entry(f).or_default();
        match d {
            Declaration::SubscribeObject(c, attrs) => {
                // Also the whole subscription, active with no rate, unless a
                // `Subscription` that follows says otherwise (see `super::update_rate`).
                ri.regions.remove(&c);
                if attrs.is_empty() {
                    ri.objects.remove(&c);
                    ri.subscriptions.remove(&c);
                } else {
                    let set: std::collections::BTreeSet<_> = attrs.into_iter().collect();
                    ri.subscriptions.insert(
                        c,
                        RemoteSubscription {
                            attrs: set.clone(),
                            interval_us: None,
                        },
                    );
                    ri.objects.insert(c, set);
                }
            }
            Declaration::SubscribeInteraction(ic, on) => {
                if on {
                    ri.interactions.insert(ic);
                } else {
                    ri.interactions.remove(&ic);
                }
            }
            Declaration::AutomaticResign(a) => {
                self.auto_resign.insert(f, a);
            }
            Declaration::Subscription {
                class,
                attrs,
                interval_us,
            } => {
                if attrs.is_empty() {
                    ri.subscriptions.remove(&class);
                } else {
                    let attrs = attrs.into_iter().collect();
                    ri.subscriptions
                        .insert(class, RemoteSubscription { attrs, interval_us });
                }
            }
            Declaration::SubscribeObjectInRegions {
                class,
                attrs,
                regions,
            } => {
                // As `SubscribeObject`, with the regions (see `super::regions`).
                if attrs.is_empty() {
                    ri.objects.remove(&class);
                    ri.subscriptions.remove(&class);
                    ri.regions.remove(&class);
                } else {
                    let set: std::collections::BTreeSet<_> = attrs.into_iter().collect();
                    ri.subscriptions.insert(
                        class,
                        RemoteSubscription {
                            attrs: set.clone(),
                            interval_us: None,
                        },
                    );
                    ri.objects.insert(class, set);
                    ri.regions.insert(class, regions.into_iter().collect());
                }
            }
            // Applied above.
            Declaration::UpdateRegions { .. } => {}
        }
        self.interest_changed();
    }
}

/// The highest position up to `high_water` after the first held one that is not among the
/// held data `covered`: one this LRC passed over (see the cell groups in `on_snapshot`).
fn last_passed_over(covered: &[(Option<u64>, DataMsg)], high_water: u64) -> Option<u64> {
    let held: std::collections::BTreeSet<u64> = covered.iter().filter_map(|(s, _)| *s).collect();
    let first = *held.first()?;
    (first + 1..=high_water).rev().find(|p| !held.contains(p))
}
