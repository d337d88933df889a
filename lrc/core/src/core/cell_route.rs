//! DDM cell routing (issue 23, `docs/DDM.md`, "Cells: the network filters"): which grid cells an
//! update or interaction with regions goes to (best effort or reliable: the transport keeps a
//! reliable stream exactly once and in order across groups with chained positions), and which cells this LRC's subscriptions want to
//! hear, as **cell keys** the transport maps to multicast groups
//! (`hlamesh_transport::core::cells`). Sans-I/O: the shell sends with [`Action::SendToCells`] and
//! joins with [`Action::SetCells`].
//!
//! A **routing space** is the dimension set of a class attribute (as the FDD declares it, the
//! same at every LRC; an inherited attribute keeps its declaration's dimensions) or of an
//! interaction class (each class its own: a subclass may have other dimensions than its
//! superclass), cut by a [`CellGrid`] of `cells_per_dimension` cells along its first two
//! dimensions (by handle). A cell key is the space's 16-bit id ([`space_id`]) and the cell's
//! index. Two classes over the same dimensions share a space.
//!
//! - **Sender, updates**: an update of an instance goes to the cells its attributes'
//!   update regions cover, in each attribute's space, if *every* attribute it carries has update
//!   regions (an attribute in the default region makes it a default-group message, as does an
//!   update covering more than `MAX_KEYS_PER_SEND` cells).
//! - **Sender, interactions**: an interaction sent with regions
//!   ([`DataMsg::InteractionInRegions`]) of a class with dimensions goes to the cells its sent
//!   regions cover in the space of the class as sent (same limit). A dimension of the space a
//!   region does not name takes the FDD's default range (the whole axis for `Excluded`), as the
//!   exact overlap test does. Interactions sent without regions and everything else (region
//!   announcements and region moves of reliable attributes included) stay on the default
//!   group.
//! - **Receiver, attributes**: for each attribute a local federate subscribes to, the cells of
//!   its subscription regions for it (grown by [`CellMembership::JOIN_MARGIN`], none by
//!   default) and kept until they fall out of the regions grown by
//!   [`CellMembership::LEAVE_MARGIN`]; an attribute subscribed without regions (the default
//!   region) wants every cell of its space. Only attributes with dimensions count (one without
//!   can have no update region, so nothing of it goes to a cell).
//! - **Receiver, interactions**: an interaction is delivered as the nearest class on its
//!   superclass chain the federate subscribes to, so a subscription to class `K` hears the
//!   interactions of `K` and of every subclass with no subscribed class between it and `K`
//!   (`received_as`). For each
//!   of those classes that has dimensions, it wants the cells its
//!   subscription regions (active or passive) cover in *that* class's space: a region dimension
//!   the class does not have is ignored, a class dimension the region does not name takes the
//!   default range (for `Excluded`, every cell along it). Subscribed without regions: every cell
//!   of each of those spaces.
//!
//! The wanted set is recomputed after each service that changes subscriptions or regions
//! ([`FederationCore::refresh_cells`]; `changes_cells` names them) and when modules a joiner
//! brought are merged (they may add subclasses), and announced when it changed.
//!
//! Overlap implies a shared cell (on each grid axis the two ranges, or the default ranges they
//! fall back to, intersect, so they share a cell index; a dimension a region leaves unspecified
//! with an `Excluded` default covers the whole axis), so a subscriber joined to its cells hears
//! every update or interaction that overlaps; the receiving LRC's exact filter
//! (`super::regions`) then decides the callbacks.
//!
//! Interactions need no ordering rule like an update's `after` (`super::regions`, "Best effort
//! and region moves"): an interaction carries the extents of the regions it was sent with, and
//! the receiver judges them against its own subscription regions, so nothing it needs travels in
//! another message that a cell datagram could overtake.

use std::collections::{BTreeMap, BTreeSet};

use super::declarations::Declarations;
use super::regions::{Extent, default_range};
use super::wire::DataMsg;
use super::{Action, FederationCore};
use crate::cells::{Cell, CellGrid, CellMembership, Span};
use crate::fom::Fdd;
use crate::handles::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle,
};

/// An update covering more cells than this goes to the default group (the transport applies its
/// own, smaller limit on distinct groups, `max_cells_per_send`): bounds the work per send.
pub const MAX_KEYS_PER_SEND: usize = 64;

/// The core's cell-routing state.
#[derive(Debug, Clone)]
pub struct CellRouting {
    /// Cells along each grid axis (the transport's `cells_per_dimension`); 0: cell routing off.
    pub cells_per_dimension: u32,
    /// The subscriber's joined cells per routing space, with hysteresis.
    membership: BTreeMap<u16, CellMembership>,
    /// The cell keys last announced with [`Action::SetCells`].
    announced: Vec<u32>,
}

impl Default for CellRouting {
    fn default() -> Self {
        CellRouting {
            cells_per_dimension: 4,
            membership: BTreeMap::new(),
            announced: Vec::new(),
        }
    }
}

/// The 16-bit id of the routing space over `dims` (FNV-1a of the sorted handles): the same at
/// every LRC. Two spaces with the same id share cell groups (coarser filtering, nothing lost).
pub fn space_id(dims: &[DimensionHandle]) -> u16 {
    let mut sorted: Vec<u32> = dims.iter().map(|d| d.0).collect();
    sorted.sort_unstable();
    let mut h: u32 = 0x811C_9DC5;
    for d in sorted {
        for b in d.to_le_bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    (h ^ (h >> 16)) as u16
}

/// The cell key of `cell` in space `space` (as `hlamesh_transport::core::cells::cell_key`).
pub fn cell_key(space: u16, cell: Cell) -> u32 {
    (u32::from(space) << 16) | (cell.0 & 0xFFFF)
}

/// The grid of the routing space over `dims` (sorted by handle), with each dimension's upper
/// bound from the FDD.
fn grid(fdd: &Fdd, dims: &[DimensionHandle], per_axis: u32) -> CellGrid {
    let mut sorted = dims.to_vec();
    sorted.sort_unstable();
    let axes: Vec<(DimensionHandle, u64)> = sorted
        .iter()
        .map(|d| (*d, fdd.dimension_upper_bound(*d).unwrap_or(u64::MAX)))
        .collect();
    CellGrid::new(&axes, per_axis)
}

/// A region as the grid takes it: a span per dimension it names.
type RegionSpans = Vec<(DimensionHandle, Span)>;

fn spans(e: &Extent) -> RegionSpans {
    e.0.iter()
        .map(|(d, r)| {
            (
                *d,
                Span {
                    lower: r.lower,
                    upper: r.upper,
                },
            )
        })
        .collect()
}

/// A region as the grid of the space over `dims` takes it (interactions): a span per dimension
/// of the space, the region's range or, where it names none, the dimension's default range (as
/// the exact overlap test takes it; none for `Excluded`, which the grid reads as the whole axis).
/// A dimension of the region the space does not have is left out (it does not cut the grid).
fn spans_in(fdd: &Fdd, e: &Extent, dims: &[DimensionHandle]) -> RegionSpans {
    dims.iter()
        .filter_map(|d| {
            let r = e.0.get(d).copied().or_else(|| default_range(fdd, *d))?;
            Some((
                *d,
                Span {
                    lower: r.lower,
                    upper: r.upper,
                },
            ))
        })
        .collect()
}

/// The dimensions of attribute `a` of `class` (empty if unknown).
fn attr_dims(fdd: &Fdd, class: ObjectClassHandle, a: AttributeHandle) -> Vec<DimensionHandle> {
    fdd.available_dimensions_for_class_attribute(class, a)
        .map(<[_]>::to_vec)
        .unwrap_or_default()
}

/// The routing space of attribute `a` of `class` if its updates may travel on cell groups: its
/// dimensions when it has some, reliable or best effort alike (reliable ones keep their
/// delivery promise across groups by the transport's chained positions); `None` otherwise
/// (unknown, or no dimensions).
fn routed_attribute_dims(
    fdd: &Fdd,
    class: ObjectClassHandle,
    a: AttributeHandle,
) -> Option<Vec<DimensionHandle>> {
    fdd.attribute(class, a).ok()?;
    let dims = attr_dims(fdd, class, a);
    (!dims.is_empty()).then_some(dims)
}

/// The routing space of interaction class `ic` if its interactions may travel on cell groups:
/// its dimensions when it has some, reliable or best effort alike; `None` otherwise (unknown,
/// or no dimensions, so no region).
fn routed_interaction_dims(fdd: &Fdd, ic: InteractionClassHandle) -> Option<&[DimensionHandle]> {
    let c = fdd.interaction_class(ic).ok()?;
    (!c.dimensions.is_empty()).then_some(c.dimensions.as_slice())
}

/// The classes whose interactions a federate with declarations `decl` receives as `k` (which it
/// subscribes to): `k` and every subclass with no subscribed class between it and `k` (an
/// interaction is delivered as the nearest subscribed class on its superclass chain).
pub(crate) fn received_as(
    fdd: &Fdd,
    decl: &Declarations,
    k: InteractionClassHandle,
) -> Vec<InteractionClassHandle> {
    let mut out = vec![k];
    let mut seen = BTreeSet::from([k]);
    let children = |c: InteractionClassHandle| {
        fdd.interaction_class(c)
            .map(|x| x.children.clone())
            .unwrap_or_default()
    };
    let mut stack = children(k);
    while let Some(c) = stack.pop() {
        // A subscribed subclass receives its own subtree; `seen` bounds the walk whatever the
        // FDD's shape.
        if decl.subscribed_interactions.contains_key(&c) || !seen.insert(c) {
            continue;
        }
        out.push(c);
        stack.extend(children(c));
    }
    out
}

impl FederationCore {
    /// Sets the grid resolution (the transport's `cells_per_dimension`; 0 turns cell routing
    /// off). Every LRC of a federation must use the same.
    pub fn set_cells_per_dimension(&mut self, n: u32) {
        self.cells.cells_per_dimension = n;
    }

    /// The cell keys `msg` goes to, `None` for the default group (see the module docs): an
    /// update of an instance with update regions, a move of update regions (to the cells it
    /// leaves and enters), or an interaction sent with regions.
    pub(crate) fn cells_of_send(&self, msg: &DataMsg) -> Option<Vec<u32>> {
        match msg {
            DataMsg::Update { object, values, .. } => self.cells_of_update(*object, values),
            DataMsg::MoveRegions { object, attrs, .. } => {
                // The cells the regions leave and those they enter: every LRC whose
                // subscriptions overlap them before or after joined one of those (it is sent
                // before it is applied here, so what is held is the old regions).
                let class = self.objects.get(object)?.class;
                let held = self.regions.update_regions.get(object);
                let mut keys = BTreeSet::new();
                for (a, extents) in attrs {
                    keys.extend(self.cells_of_extents(class, *a, extents)?);
                    if let Some(old) = held.and_then(|h| h.get(a)) {
                        keys.extend(self.cells_of_extents(class, *a, old)?);
                    }
                }
                (!keys.is_empty() && keys.len() <= MAX_KEYS_PER_SEND)
                    .then(|| keys.into_iter().collect())
            }
            DataMsg::InteractionInRegions { class, regions, .. } => {
                self.cells_of_interaction(*class, regions)
            }
            _ => None,
        }
    }

    /// The cells of a best-effort interaction of `class` sent with regions of extents
    /// `regions`: those the regions cover in the class's space (`None`: the default group, for
    /// a reliable class, a class without dimensions, no region, or too many cells).
    fn cells_of_interaction(
        &self,
        class: InteractionClassHandle,
        regions: &[Extent],
    ) -> Option<Vec<u32>> {
        let per_axis = self.cells.cells_per_dimension;
        if per_axis == 0 || regions.is_empty() {
            return None;
        }
        let fdd = self.fdd.as_ref()?;
        let dims = routed_interaction_dims(fdd, class)?;
        let g = grid(fdd, dims, per_axis);
        let space = space_id(dims);
        let mut keys = BTreeSet::new();
        for e in regions {
            keys.extend(
                g.cells_of(&spans_in(fdd, e, dims), 0.0)
                    .into_iter()
                    .map(|c| cell_key(space, c)),
            );
            if keys.len() > MAX_KEYS_PER_SEND {
                return None;
            }
        }
        (!keys.is_empty()).then(|| keys.into_iter().collect())
    }

    /// The cells of a best-effort update of `object` carrying `values` (see the module docs).
    fn cells_of_update(
        &self,
        object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
    ) -> Option<Vec<u32>> {
        let per_axis = self.cells.cells_per_dimension;
        if per_axis == 0 || values.is_empty() {
            return None;
        }
        let regions = self.regions.update_regions.get(&object)?;
        let class = self.objects.get(&object)?.class;
        let fdd = self.fdd.as_ref()?;
        let mut keys = BTreeSet::new();
        for (a, _) in values {
            let extents = regions.get(a).filter(|e| !e.is_empty())?;
            let dims = attr_dims(fdd, class, *a);
            let g = grid(fdd, &dims, per_axis);
            let space = space_id(&dims);
            for e in extents {
                keys.extend(
                    g.cells_of(&spans(e), 0.0)
                        .into_iter()
                        .map(|c| cell_key(space, c)),
                );
            }
            if keys.len() > MAX_KEYS_PER_SEND {
                return None;
            }
        }
        (!keys.is_empty()).then(|| keys.into_iter().collect())
    }

    /// The cell keys that `extents`, update regions of attribute `a` of `class`, cover
    /// (exact, no margin); `None` with cell routing off, no extents, or more keys than one send
    /// may name.
    pub(crate) fn cells_of_extents(
        &self,
        class: ObjectClassHandle,
        a: AttributeHandle,
        extents: &[Extent],
    ) -> Option<BTreeSet<u32>> {
        let per_axis = self.cells.cells_per_dimension;
        if per_axis == 0 || extents.is_empty() {
            return None;
        }
        let fdd = self.fdd.as_ref()?;
        let dims = attr_dims(fdd, class, a);
        let g = grid(fdd, &dims, per_axis);
        let space = space_id(&dims);
        let mut keys = BTreeSet::new();
        for e in extents {
            keys.extend(
                g.cells_of(&spans(e), 0.0)
                    .into_iter()
                    .map(|c| cell_key(space, c)),
            );
        }
        (keys.len() <= MAX_KEYS_PER_SEND).then_some(keys)
    }

    /// Recomputes the cells this LRC's subscriptions want (with the join and leave margins):
    /// those of its attribute subscriptions and of its interaction subscriptions (each in the
    /// spaces of the classes received as the subscribed one), and queues [`Action::SetCells`]
    /// if they changed. Called after each service that changes subscriptions or regions
    /// (`changes_cells`), a manager's `HLAservice` subscription change, an applied
    /// resignation, a committed restore and a merge of a joiner's modules.
    pub fn refresh_cells(&mut self) {
        let per_axis = self.cells.cells_per_dimension;
        let Some(fdd) = self.fdd.clone() else {
            return;
        };
        // Per space: its grid and the regions (lists of spans) that want it.
        let mut spaces: BTreeMap<u16, (CellGrid, Vec<RegionSpans>)> = BTreeMap::new();
        if per_axis > 0 {
            for (f, local) in &self.locals {
                let fr = self.regions.feds.get(f);
                for (class, sub) in &local.decl.subscribed_objects {
                    let rsub = fr.and_then(|r| r.object_subs.get(class));
                    for a in &sub.attrs {
                        // No dimensions: it can have no update region, so no update of it is
                        // ever sent to a cell; joining its space's group would be a wasted
                        // membership on every subscriber of a FOM without DDM. Reliable: its
                        // updates stay on the default group (a reliable stream across cells
                        // is not built), so its cells would carry nothing of it either.
                        let Some(dims) = routed_attribute_dims(&fdd, *class, *a) else {
                            continue;
                        };
                        let space = space_id(&dims);
                        let entry = spaces
                            .entry(space)
                            .or_insert_with(|| (grid(&fdd, &dims, per_axis), Vec::new()));
                        match rsub {
                            // Subscribed without regions: the default region, every cell.
                            None => entry.1.push(Vec::new()),
                            Some(rs) if rs.default.contains(a) => entry.1.push(Vec::new()),
                            Some(rs) => {
                                let regions = rs.regions.get(a).into_iter().flatten();
                                for r in regions {
                                    if let Some(reg) = fr.and_then(|x| x.regions.get(r)) {
                                        entry.1.push(spans(&reg.committed));
                                    }
                                }
                            }
                        }
                    }
                }
                // Interactions: each subscribed class, in the spaces of the classes received as
                // it (see the module docs).
                for k in local.decl.subscribed_interactions.keys() {
                    let rsub = fr.and_then(|r| r.interaction_subs.get(k));
                    // `None`: the default region, every cell.
                    let extents: Option<Vec<&Extent>> = match rsub {
                        None => None,
                        Some(rs) if rs.default.is_some() => None,
                        Some(rs) => Some(
                            rs.regions
                                .iter()
                                .filter_map(|r| fr.and_then(|x| x.regions.get(r)))
                                .map(|reg| &reg.committed)
                                .collect(),
                        ),
                    };
                    for c in received_as(&fdd, &local.decl, *k) {
                        let Some(dims) = routed_interaction_dims(&fdd, c) else {
                            continue;
                        };
                        let entry = spaces
                            .entry(space_id(dims))
                            .or_insert_with(|| (grid(&fdd, dims, per_axis), Vec::new()));
                        match &extents {
                            None => entry.1.push(Vec::new()),
                            Some(es) => entry.1.extend(es.iter().map(|e| spans_in(&fdd, e, dims))),
                        }
                    }
                }
            }
        }
        // Spaces no longer wanted are updated with no region, so their cells are left.
        let gone: Vec<u16> = self
            .cells
            .membership
            .keys()
            .filter(|s| !spaces.contains_key(s))
            .copied()
            .collect();
        let mut wanted = BTreeSet::new();
        for s in gone {
            self.cells.membership.remove(&s);
        }
        for (space, (g, regions)) in &spaces {
            let m = self.cells.membership.entry(*space).or_default();
            m.update(
                g,
                regions,
                CellMembership::JOIN_MARGIN,
                CellMembership::LEAVE_MARGIN,
            );
            wanted.extend(m.joined().iter().map(|c| cell_key(*space, *c)));
        }
        let wanted: Vec<u32> = wanted.into_iter().collect();
        if wanted != self.cells.announced {
            // Moves within cells this LRC did not join passed it by: ask the members for
            // those of the cells it joins now (see `super::regions`, "Moves within the
            // cells"). A joiner not admitted yet gets them with its snapshots.
            let joins = wanted.iter().any(|k| !self.cells.announced.contains(k));
            self.cells.announced = wanted.clone();
            self.actions.push_back(Action::SetCells { cells: wanted });
            if joins && self.phase.is_admitted() {
                let members: Vec<super::Node> = self
                    .view
                    .nodes
                    .iter()
                    .copied()
                    .filter(|n| *n != self.me)
                    .collect();
                for n in members {
                    self.send_control(n, false, super::wire::ControlMsg::RegionsQuery);
                }
            }
        }
    }

    /// The cell keys announced last (for tests).
    pub fn wanted_cells(&self) -> &[u32] {
        &self.cells.announced
    }
}

/// Whether `service` (its MOM name) may change what this LRC subscribes to or where.
pub(crate) fn changes_cells(service: &str) -> bool {
    matches!(
        service,
        "subscribeObjectClassAttributes"
            | "unsubscribeObjectClass"
            | "unsubscribeObjectClassAttributes"
            | "subscribeObjectClassAttributesWithRegions"
            | "unsubscribeObjectClassAttributesWithRegions"
            | "commitRegionModifications"
            | "deleteRegion"
            | "resignFederationExecution"
            | "subscribeInteractionClass"
            | "unsubscribeInteractionClass"
            | "subscribeInteractionClassWithRegions"
            | "unsubscribeInteractionClassWithRegions"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::regions::RangeBounds;
    use crate::core::wire::ResignAction;
    use crate::core::{Completion, Event};
    use crate::handles::{FederateHandle, ObjectInstanceHandle, RegionHandle};

    const FOM: &str = include_str!("../../../../foms/Cells.xml");

    fn join(core: &mut FederationCore, name: &str) -> FederateHandle {
        let t = core.join(Some(name.into()), "t");
        for _ in 0..10 {
            while let Some(a) = core.poll_action() {
                if let Action::Complete {
                    ticket,
                    result: Ok(Completion::Joined(h)),
                } = a
                    && ticket == t
                {
                    return h;
                }
            }
            core.handle(0, Event::Tick);
        }
        panic!("{name} never joined");
    }

    /// The cell actions queued since the last call: (cells of each send to cells, whether
    /// some best-effort data went to the default group, the last `SetCells`).
    fn drain(core: &mut FederationCore) -> (Vec<Vec<u32>>, bool, Option<Vec<u32>>) {
        let (mut sends, mut default, mut set) = (Vec::new(), false, None);
        while let Some(a) = core.poll_action() {
            match a {
                Action::SendToCells { cells, .. } => sends.push(cells),
                Action::SendData {
                    reliable: false, ..
                } => default = true,
                Action::SetCells { cells } => set = Some(cells),
                _ => {}
            }
        }
        (sends, default, set)
    }

    struct Fed {
        core: FederationCore,
        p: FederateHandle,
        s: FederateHandle,
        vehicle: ObjectClassHandle,
        position: AttributeHandle,
        x: DimensionHandle,
        y: DimensionHandle,
    }

    impl Fed {
        fn new() -> Fed {
            let modules = vec![("Cells.xml".to_string(), FOM.to_string())];
            let mut core = FederationCore::create("F", 1, 0, modules).expect("create");
            let p = join(&mut core, "pub");
            let s = join(&mut core, "sub");
            let fdd = core.fdd_ref().expect("fdd");
            let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
            let mut f = Fed {
                position: fdd.attribute_handle(vehicle, "Position").expect("Position"),
                x: fdd.dimension_handle("X").expect("X"),
                y: fdd.dimension_handle("Y").expect("Y"),
                vehicle,
                core,
                p,
                s,
            };
            drain(&mut f.core);
            f
        }

        /// A committed region of `f` over X and Y.
        fn region(&mut self, f: FederateHandle, x: (u64, u64), y: (u64, u64)) -> RegionHandle {
            let r = self
                .core
                .create_region(f, &[self.x, self.y])
                .expect("region");
            self.bounds(f, r, x, y);
            r
        }

        fn bounds(&mut self, f: FederateHandle, r: RegionHandle, x: (u64, u64), y: (u64, u64)) {
            let c = &mut self.core;
            c.set_range_bounds(f, r, self.x, RangeBounds::new(x.0, x.1))
                .expect("x");
            c.set_range_bounds(f, r, self.y, RangeBounds::new(y.0, y.1))
                .expect("y");
            c.mom_reported(f, "commitRegionModifications", None, |c| {
                c.commit_region_modifications(f, &[r])
            })
            .expect("commit");
        }

        /// `f` subscribes to Position in region `r`, through the service path the shell takes.
        fn subscribe_in(&mut self, f: FederateHandle, r: RegionHandle) {
            self.subscribe_attribute_in(f, self.position, r);
        }

        /// `f` subscribes to attribute `a` of Vehicle in region `r`, as `subscribe_in`.
        fn subscribe_attribute_in(
            &mut self,
            f: FederateHandle,
            a: AttributeHandle,
            r: RegionHandle,
        ) {
            let vehicle = self.vehicle;
            self.core
                .mom_reported(f, "subscribeObjectClassAttributesWithRegions", None, |c| {
                    c.subscribe_object_class_attributes_with_regions(
                        f,
                        vehicle,
                        &[(vec![a], vec![r])],
                        true,
                        None,
                    )
                })
                .expect("subscribe");
        }

        fn update(&mut self, o: ObjectInstanceHandle) {
            let v = vec![(self.position, vec![1u8])];
            self.core
                .update_attribute_values(self.p, o, v, Vec::new(), None)
                .expect("update");
        }

        /// The fold window of the move held last ends with no update (`super::move_fold`):
        /// it leaves on its own.
        fn window_ends(&mut self) {
            let due = self.core.poll_timeout().expect("a held move");
            self.core.handle_timeout(due);
        }
    }

    /// The key of cell (`cx`, `cy`) of Position's 4 × 4 grid (X and Y of [0, 1000)).
    fn key(f: &Fed, cx: u32, cy: u32) -> u32 {
        cell_key(space_id(&[f.x, f.y]), Cell(cx * 4 + cy))
    }

    /// What `core` sent since the last call, decoded: (to cells?, reliable?, message).
    fn sent(core: &mut FederationCore) -> Vec<(bool, bool, DataMsg)> {
        let mut out = Vec::new();
        while let Some(a) = core.poll_action() {
            match a {
                Action::SendToCells { seq, bytes, .. } => {
                    out.push((
                        true,
                        seq.is_some(),
                        DataMsg::decode(&bytes).expect("decode"),
                    ));
                }
                Action::SendData {
                    reliable, bytes, ..
                } => out.push((false, reliable, DataMsg::decode(&bytes).expect("decode"))),
                _ => {}
            }
        }
        out
    }

    /// Sends one update of `o` from the publisher, which must leave as one best-effort
    /// message to cells: the regions it carries.
    fn cell_update(
        f: &mut Fed,
        o: ObjectInstanceHandle,
    ) -> Option<crate::core::regions::InlineRegions> {
        f.update(o);
        let out = sent(&mut f.core);
        match <[_; 1]>::try_from(out) {
            Ok([(true, false, DataMsg::Update { regions, .. })]) => regions,
            other => panic!("one best-effort update to cells: {other:?}"),
        }
    }

    #[test]
    fn a_move_goes_to_the_cells_it_leaves_and_enters_and_the_updates_after_it_carry_their_regions()
    {
        let mut f = Fed::new();
        let (p, vehicle, position) = (f.p, f.vehicle, f.position);
        let status = f
            .core
            .fdd_ref()
            .expect("fdd")
            .attribute_handle(vehicle, "Status")
            .expect("Status");
        f.core
            .publish_object_class_attributes(p, vehicle, &[position, status])
            .expect("publish");
        let at = f.region(p, (10, 30), (10, 20));
        let o = f
            .core
            .register_object_instance_with_regions(p, vehicle, &[(vec![position], vec![at])], None)
            .expect("register");
        let first = sent(&mut f.core);
        assert!(
            first.iter().any(|(cells, rel, m)| !cells
                && *rel
                && matches!(m, DataMsg::UpdateRegions { .. })),
            "the first announcement is in the stream: {first:?}"
        );
        assert_eq!(cell_update(&mut f, o), None, "a plain cell update");

        // Within cell (0, 0): to that cell only, best effort, applied here at once, sent when
        // its fold window ends with no update.
        f.bounds(p, at, (40, 60), (10, 20));
        assert_eq!(
            sent(&mut f.core),
            vec![],
            "held for the update that follows"
        );
        f.window_ends();
        let moved = sent(&mut f.core);
        let [(true, false, DataMsg::MoveRegions { version, attrs, .. })] = &moved[..] else {
            panic!("a move to the cell: {moved:?}");
        };
        assert_eq!(*version, 2, "the registration's announcement was 1");
        assert_eq!(attrs[0].0, position);
        assert_eq!(f.core.ddm_moves_in_cells(), 1);
        let held = f.core.regions.update_regions[&o][&position].clone();
        assert_eq!(&held, &attrs[0].1, "applied here at once");
        // The update after it carries the regions it is sent in, with that number.
        let r = cell_update(&mut f, o).expect("an update with its regions");
        assert_eq!(r.attrs, vec![(position, 2, held.clone())]);

        // Another attribute's announcement in the stream (Status is reliable) does not cover
        // Position's move: its updates still carry their regions, with their own number.
        let atx = f.core.create_region(p, &[f.x]).expect("region");
        f.core
            .set_range_bounds(p, atx, f.x, RangeBounds::new(40, 60))
            .expect("x");
        f.core
            .commit_region_modifications(p, &[atx])
            .expect("commit");
        f.core
            .associate_regions_for_updates(p, o, &[(vec![status], vec![atx])])
            .expect("associate");
        let status_sent = sent(&mut f.core);
        assert!(
            matches!(
                &status_sent[..],
                [(false, true, DataMsg::UpdateRegions { version: 3, .. })]
            ),
            "{status_sent:?}"
        );
        let r = cell_update(&mut f, o).expect("an update with its regions");
        assert_eq!(r.attrs, vec![(position, 2, held.clone())]);

        // Into cell (1, 0): to the cell it leaves and the one it enters, and the updates
        // after it carry their regions.
        f.bounds(p, at, (240, 260), (10, 20));
        f.window_ends();
        assert_eq!(
            drain(&mut f.core).0,
            vec![vec![key(&f, 0, 0), key(&f, 1, 0)]],
            "one move to both cells"
        );
        let held = f.core.regions.update_regions[&o][&position].clone();
        let r = cell_update(&mut f, o).expect("an update with its regions");
        assert_eq!(r.attrs, vec![(position, 4, held)]);
        assert_eq!(f.core.ddm_moves_in_cells(), 2);
    }

    /// A reliable attribute (`Track`, over X and Y) moves the same way, with its move numbered
    /// in the stream on the cells (so it stays in order with the attribute's updates there),
    /// and its updates carry their regions too, for an LRC that joins the cells later.
    #[test]
    fn a_reliable_attributes_move_goes_to_its_cells_in_the_stream() {
        let mut f = Fed::new();
        let (p, vehicle) = (f.p, f.vehicle);
        let track = f
            .core
            .fdd_ref()
            .expect("fdd")
            .attribute_handle(vehicle, "Track")
            .expect("Track");
        f.core
            .publish_object_class_attributes(p, vehicle, &[track])
            .expect("publish");
        let at = f.region(p, (10, 30), (10, 20));
        let o = f
            .core
            .register_object_instance_with_regions(p, vehicle, &[(vec![track], vec![at])], None)
            .expect("register");
        sent(&mut f.core);
        let update = |f: &mut Fed| {
            f.core
                .update_attribute_values(p, o, vec![(track, vec![1u8])], Vec::new(), None)
                .expect("update");
            match <[_; 1]>::try_from(sent(&mut f.core)) {
                Ok([(true, true, DataMsg::Update { regions, .. })]) => regions,
                other => panic!("one reliable update to cells: {other:?}"),
            }
        };
        assert_eq!(update(&mut f), None, "a plain update");

        f.bounds(p, at, (40, 60), (10, 20));
        f.window_ends();
        let moved = sent(&mut f.core);
        let [
            (
                true,
                true,
                DataMsg::MoveRegions {
                    version: 2, attrs, ..
                },
            ),
        ] = &moved[..]
        else {
            panic!("a reliable move to the cell: {moved:?}");
        };
        let r = update(&mut f).expect("an update with its regions");
        assert_eq!(r.attrs, vec![(track, 2, attrs[0].1.clone())]);

        // Into cell (1, 0): to both cells, numbered in the stream when its fold window ends.
        f.bounds(p, at, (240, 260), (10, 20));
        f.window_ends();
        let crossed = sent(&mut f.core);
        assert!(
            matches!(
                &crossed[..],
                [(true, true, DataMsg::MoveRegions { version: 3, .. })]
            ),
            "{crossed:?}"
        );
        assert!(update(&mut f).is_some(), "the updates carry their regions");
        assert_eq!(f.core.ddm_moves_in_cells(), 2);
        // Into cell (2, 0) with an update right after: the move goes inside it (one reliable
        // message, to the cells the region leaves, 0 and 1 (it straddled their border), and
        // enters; `super::move_fold`).
        f.bounds(p, at, (540, 560), (10, 20));
        f.core
            .update_attribute_values(p, o, vec![(track, vec![2u8])], Vec::new(), None)
            .expect("update");
        assert_eq!(
            drain(&mut f.core).0,
            vec![vec![key(&f, 0, 0), key(&f, 1, 0), key(&f, 2, 0)]]
        );
        assert_eq!(f.core.ddm_moves_folded(), 1);
        assert_eq!(f.core.poll_timeout(), None, "nothing held");
        // Back to the default region (no update region): announced to every LRC, and the
        // updates carry nothing.
        f.core
            .unassociate_regions_for_updates(p, o, &[(vec![track], vec![at])])
            .expect("unassociate");
        let all = sent(&mut f.core);
        assert!(
            matches!(
                &all[..],
                [(false, true, DataMsg::UpdateRegions { version: 5, .. })]
            ),
            "{all:?}"
        );
    }

    #[test]
    fn updates_go_to_the_cells_of_their_update_regions_and_subscribers_join_theirs() {
        let mut f = Fed::new();
        let (s, p, vehicle, position) = (f.s, f.p, f.vehicle, f.position);
        // The subscriber's region: inside cell (0, 0).
        let watch = f.region(s, (0, 100), (0, 100));
        f.subscribe_in(s, watch);
        assert_eq!(drain(&mut f.core).2, Some(vec![key(&f, 0, 0)]));

        // The publisher's update region crosses from cell (0, 0) into (1, 0), then moves on.
        f.core
            .publish_object_class_attributes(p, vehicle, &[position])
            .expect("publish");
        let at = f.region(p, (240, 260), (10, 20));
        let o = f
            .core
            .register_object_instance_with_regions(p, vehicle, &[(vec![position], vec![at])], None)
            .expect("register");
        drain(&mut f.core);
        f.update(o);
        let (sends, default, set) = drain(&mut f.core);
        assert_eq!(sends, vec![vec![key(&f, 0, 0), key(&f, 1, 0)]]);
        assert!(!default && set.is_none());
        f.bounds(p, at, (600, 620), (10, 20));
        f.update(o);
        assert_eq!(
            drain(&mut f.core).0,
            // The update carries the move (`super::move_fold`): to the cells the region leaves
            // and enters.
            vec![vec![key(&f, 0, 0), key(&f, 1, 0), key(&f, 2, 0)]]
        );

        // The subscriber's region grows up to its border: no join ahead of need; across it it
        // joins the next cell; then it jitters back: hysteresis, no change; then it moves on:
        // it joins the new cell and leaves the old ones once half a cell behind.
        f.bounds(s, watch, (150, 250), (0, 100));
        assert_eq!(drain(&mut f.core).2, None, "no join ahead of need");
        f.bounds(s, watch, (150, 260), (0, 100));
        let (_, _, set) = drain(&mut f.core);
        assert_eq!(
            set,
            Some(vec![key(&f, 0, 0), key(&f, 1, 0)]),
            "joined on overlap"
        );
        f.bounds(s, watch, (100, 180), (0, 100));
        assert_eq!(drain(&mut f.core).2, None, "no churn at the border");
        f.bounds(s, watch, (630, 680), (0, 100));
        assert_eq!(drain(&mut f.core).2, Some(vec![key(&f, 2, 0)]));

        // Without update regions (unassociated: the default region) an update goes to the
        // default group; a subscriber without regions wants every cell of the space.
        f.core
            .unassociate_regions_for_updates(p, o, &[(vec![position], vec![at])])
            .expect("unassociate");
        drain(&mut f.core);
        f.update(o);
        let (sends, default, _) = drain(&mut f.core);
        assert!(sends.is_empty() && default);
        f.core
            .mom_reported(s, "subscribeObjectClassAttributes", None, |c| {
                c.subscribe_object_class_attributes(s, vehicle, &[position], true)
            })
            .expect("subscribe");
        assert_eq!(drain(&mut f.core).2.map(|c| c.len()), Some(16));
    }

    /// A reliable attribute with dimensions (`Status`, over X) is routed like a best-effort one:
    /// a subscriber joins the cells of its regions (every cell of the space without regions),
    /// and an update with update regions goes to their cells, numbered in the reliable stream
    /// (the transport keeps it exactly once and in order across groups).
    #[test]
    fn a_reliable_attribute_with_dimensions_is_routed_to_its_cells() {
        let mut f = Fed::new();
        let (s, p, vehicle, x) = (f.s, f.p, f.vehicle, f.x);
        let status = f
            .core
            .fdd_ref()
            .expect("fdd")
            .attribute_handle(vehicle, "Status")
            .expect("Status");
        let strip = f.region_over(s, &[(x, 0, 100)]);
        f.subscribe_attribute_in(s, status, strip);
        let one = drain(&mut f.core).2.expect("the strip's cell");
        assert_eq!(one.len(), 1, "a strip inside one cell of X: {one:?}");
        f.core
            .mom_reported(s, "subscribeObjectClassAttributes", None, |c| {
                c.subscribe_object_class_attributes(s, vehicle, &[status], true)
            })
            .expect("subscribe");
        let every = drain(&mut f.core).2.expect("every cell of X");
        assert_eq!(every.len(), 4, "without regions, every cell of its space");
        assert!(every.contains(&one[0]));

        // Its updates with update regions go to their cells, reliable.
        f.core
            .publish_object_class_attributes(p, vehicle, &[status])
            .expect("publish");
        let atx = f.region_over(p, &[(x, 10, 20)]);
        let o = f
            .core
            .register_object_instance_with_regions(p, vehicle, &[(vec![status], vec![atx])], None)
            .expect("register");
        drain(&mut f.core);
        f.core
            .update_attribute_values(p, o, vec![(status, vec![1u8])], Vec::new(), None)
            .expect("update");
        let mut to_cells = Vec::new();
        while let Some(a) = f.core.poll_action() {
            match a {
                Action::SendToCells {
                    seq, cells, bytes, ..
                } => {
                    assert!(matches!(
                        DataMsg::decode(&bytes),
                        Ok(DataMsg::Update { .. })
                    ));
                    to_cells.push((seq, cells));
                }
                Action::SendData { bytes, .. } => {
                    let m = DataMsg::decode(&bytes).expect("decode");
                    assert!(
                        !matches!(m, DataMsg::Update { .. }),
                        "{m:?} went to the default group"
                    );
                }
                _ => {}
            }
        }
        assert_eq!(to_cells.len(), 1);
        assert!(to_cells[0].0.is_some(), "numbered in the reliable stream");
        assert_eq!(to_cells[0].1, one, "the cell its update region covers");
    }

    /// A resigned subscriber's cells (of its attribute and its interaction subscriptions) are
    /// left once its resignation is applied (the resign call itself leaves its subscriptions in
    /// place until then).
    #[test]
    fn a_resigned_subscribers_cells_are_left() {
        let mut f = Fed::new();
        let s = f.s;
        let watch = f.region(s, (0, 100), (0, 100));
        f.subscribe_in(s, watch);
        assert_eq!(drain(&mut f.core).2, Some(vec![key(&f, 0, 0)]));
        // Its interaction subscription's cells too (Chatter's cell is Position's: one space).
        let talk = f.talk();
        f.subscribe_interaction(s, talk.chatter, &[watch]);
        let both = sorted(vec![key(&f, 0, 0), ping_key(&f, &talk, 0, 0)]);
        assert_eq!(drain(&mut f.core).2, Some(both));
        let t = f
            .core
            .mom_reported(s, "resignFederationExecution", None, |c| {
                c.resign(s, ResignAction::NoAction)
            })
            .expect("resign");
        let mut left = None;
        for _ in 0..10 {
            let mut done = false;
            while let Some(a) = f.core.poll_action() {
                match a {
                    Action::SetCells { cells } => left = Some(cells),
                    Action::Complete { ticket, .. } if ticket == t => done = true,
                    _ => {}
                }
            }
            if done {
                break;
            }
            f.core.handle(0, Event::Tick);
        }
        assert_eq!(left, Some(Vec::new()), "the cells were left");
        assert!(f.core.wanted_cells().is_empty());
    }

    /// The interaction classes of `Cells.xml`: `Chatter` (best effort over X, Y), its subclass
    /// `Chatter.Ping` (best effort over X, Channel) and `Radio` (reliable over X, Channel).
    struct Talk {
        chatter: InteractionClassHandle,
        ping: InteractionClassHandle,
        radio: InteractionClassHandle,
        channel: DimensionHandle,
    }

    impl Fed {
        fn talk(&self) -> Talk {
            let fdd = self.core.fdd_ref().expect("fdd");
            let ic = |n: &str| fdd.interaction_class_handle(n).expect(n);
            Talk {
                chatter: ic("Chatter"),
                ping: ic("Chatter.Ping"),
                radio: ic("Radio"),
                channel: fdd.dimension_handle("Channel").expect("Channel"),
            }
        }

        /// A committed region of `f` over the dimensions of `ranges`.
        fn region_over(
            &mut self,
            f: FederateHandle,
            ranges: &[(DimensionHandle, u64, u64)],
        ) -> RegionHandle {
            let dims: Vec<DimensionHandle> = ranges.iter().map(|(d, _, _)| *d).collect();
            let c = &mut self.core;
            let r = c.create_region(f, &dims).expect("region");
            for (d, lo, hi) in ranges {
                c.set_range_bounds(f, r, *d, RangeBounds::new(*lo, *hi))
                    .expect("bounds");
            }
            c.mom_reported(f, "commitRegionModifications", None, |c| {
                c.commit_region_modifications(f, &[r])
            })
            .expect("commit");
            r
        }

        /// `f` subscribes to interaction class `ic`, in `regions` (none: without regions),
        /// through the service path the shell takes.
        fn subscribe_interaction(
            &mut self,
            f: FederateHandle,
            ic: InteractionClassHandle,
            regions: &[RegionHandle],
        ) {
            let r = if regions.is_empty() {
                self.core
                    .mom_reported(f, "subscribeInteractionClass", None, |c| {
                        c.subscribe_interaction_class(f, ic, true)
                    })
            } else {
                self.core
                    .mom_reported(f, "subscribeInteractionClassWithRegions", None, |c| {
                        c.subscribe_interaction_class_with_regions(f, ic, regions, false)
                    })
            };
            r.expect("subscribe");
        }

        fn unsubscribe_interaction(
            &mut self,
            f: FederateHandle,
            ic: InteractionClassHandle,
            regions: &[RegionHandle],
        ) {
            let r = if regions.is_empty() {
                self.core
                    .mom_reported(f, "unsubscribeInteractionClass", None, |c| {
                        c.unsubscribe_interaction_class(f, ic)
                    })
            } else {
                self.core
                    .mom_reported(f, "unsubscribeInteractionClassWithRegions", None, |c| {
                        c.unsubscribe_interaction_class_with_regions(f, ic, regions)
                    })
            };
            r.expect("unsubscribe");
        }

        fn send(&mut self, ic: InteractionClassHandle, regions: &[RegionHandle]) {
            let p = self.p;
            let r = if regions.is_empty() {
                self.core
                    .send_interaction(p, ic, Vec::new(), Vec::new(), None)
            } else {
                self.core.send_interaction_with_regions(
                    p,
                    ic,
                    Vec::new(),
                    regions,
                    Vec::new(),
                    None,
                )
            };
            r.expect("send");
        }
    }

    /// The key of cell (`cx`, `cch`) of `Chatter.Ping`'s grid: 4 cells along X ([0, 1000)),
    /// 4 along Channel ([0, 8)), X first (the lower handle).
    fn ping_key(f: &Fed, t: &Talk, cx: u32, cch: u32) -> u32 {
        assert!(f.x < t.channel, "X is the grid's first axis");
        cell_key(space_id(&[f.x, t.channel]), Cell(cx * 4 + cch))
    }

    fn sorted(mut v: Vec<u32>) -> Vec<u32> {
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A best-effort interaction sent with regions goes to the cells its regions cover in its
    /// class's space (a dimension a region leaves out taking the default range); reliable ones,
    /// ones sent without regions and ones covering too many cells go to the default group.
    #[test]
    fn best_effort_interactions_with_regions_go_to_the_cells_of_their_regions() {
        let mut f = Fed::new();
        let t = f.talk();
        let (p, x, y, ch) = (f.p, f.x, f.y, t.channel);
        for ic in [t.chatter, t.ping, t.radio] {
            f.core.publish_interaction_class(p, ic).expect("publish");
        }
        // Across the border of cells (0, 0) and (1, 0) of Chatter's grid (that of X, Y, as
        // Position's: one space).
        let at = f.region_over(p, &[(x, 240, 260), (y, 10, 20)]);
        drain(&mut f.core);
        f.send(t.chatter, &[at]);
        let (sends, default, _) = drain(&mut f.core);
        assert_eq!(sends, vec![vec![key(&f, 0, 0), key(&f, 1, 0)]]);
        assert!(!default, "not on the default group too");

        // Two regions: the union of their cells, each once.
        let far = f.region_over(p, &[(x, 900, 950), (y, 900, 950)]);
        drain(&mut f.core);
        f.send(t.chatter, &[at, far]);
        assert_eq!(
            drain(&mut f.core).0,
            vec![sorted(vec![key(&f, 0, 0), key(&f, 1, 0), key(&f, 3, 3)])]
        );

        // The subclass in its own space (X, Channel): a region over X alone takes Channel's
        // default range [0, 1), cell 0; one naming Channel, its cells.
        let xs = f.region_over(p, &[(x, 600, 620)]);
        let xch = f.region_over(p, &[(x, 600, 620), (ch, 4, 8)]);
        drain(&mut f.core);
        f.send(t.ping, &[xs]);
        f.send(t.ping, &[xch]);
        assert_eq!(
            drain(&mut f.core).0,
            vec![
                vec![ping_key(&f, &t, 2, 0)],
                vec![ping_key(&f, &t, 2, 2), ping_key(&f, &t, 2, 3)]
            ]
        );

        // Without regions, best effort: the default group.
        f.send(t.chatter, &[]);
        let (sends, default, _) = drain(&mut f.core);
        assert!(sends.is_empty() && default);
        // Reliable with regions: to its cells too, numbered in the reliable stream.
        let radio_at = f.region_over(p, &[(x, 10, 20)]);
        drain(&mut f.core);
        f.send(t.radio, &[radio_at]);
        let mut numbered = Vec::new();
        while let Some(a) = f.core.poll_action() {
            match a {
                Action::SendToCells { seq, cells, .. } => numbered.push((seq, cells)),
                Action::SendData { bytes, .. } => assert!(
                    !matches!(
                        DataMsg::decode(&bytes),
                        Ok(DataMsg::InteractionInRegions { .. })
                    ),
                    "the reliable interaction went to the default group"
                ),
                _ => {}
            }
        }
        assert_eq!(numbered.len(), 1);
        assert!(numbered[0].0.is_some(), "numbered in the reliable stream");
        assert!(!numbered[0].1.is_empty());

        // More cells than a send may cover (a 16 × 16 grid, the whole plane): the default group.
        f.core.set_cells_per_dimension(16);
        let all = f.region_over(p, &[(x, 0, 1000), (y, 0, 1000)]);
        drain(&mut f.core);
        f.send(t.chatter, &[all]);
        let (sends, default, _) = drain(&mut f.core);
        assert!(sends.is_empty() && default, "too wide: the default group");
        // Cell routing off: the default group.
        f.core.set_cells_per_dimension(0);
        f.send(t.chatter, &[at]);
        let (sends, default, _) = drain(&mut f.core);
        assert!(sends.is_empty() && default, "cells off: the default group");
    }

    /// A subscriber to an interaction class joins the cells its regions cover in the space of
    /// the class and of each subclass it receives as that class, even where the subclass has
    /// other dimensions; a subclass it subscribes to itself is joined by that subscription; a
    /// reliable class joins its cells like a best-effort one; unsubscribing leaves the cells.
    #[test]
    fn interaction_subscribers_join_the_cells_of_the_classes_they_receive() {
        let mut f = Fed::new();
        let t = f.talk();
        let (s, x, y) = (f.s, f.x, f.y);
        // A reliable class: its cells, as a best-effort one's (X cell 0 along Channel's
        // default range), then none once unsubscribed.
        let ear = f.region_over(s, &[(x, 0, 100)]);
        f.subscribe_interaction(s, t.radio, &[ear]);
        let radio_cells = drain(&mut f.core).2.expect("Radio's cells");
        assert_eq!(radio_cells.len(), 1, "{radio_cells:?}");
        f.core
            .mom_reported(s, "unsubscribeInteractionClassWithRegions", None, |c| {
                c.unsubscribe_interaction_class_with_regions(s, t.radio, &[ear])
            })
            .expect("unsubscribe");
        assert_eq!(drain(&mut f.core).2, Some(Vec::new()));

        // Passively, in a region over X and Y inside cell (0, 0): that cell of Chatter's space,
        // and in Ping's (X, Channel) the X cell 0 along Channel's default range [0, 1) (Y, which
        // Ping does not have, is ignored).
        let watch = f.region_over(s, &[(x, 0, 100), (y, 0, 100)]);
        f.subscribe_interaction(s, t.chatter, &[watch]);
        let both = sorted(vec![key(&f, 0, 0), ping_key(&f, &t, 0, 0)]);
        assert_eq!(drain(&mut f.core).2, Some(both.clone()));

        // Ping subscribed by itself, without regions: every cell of its space; Chatter keeps its
        // one cell.
        f.subscribe_interaction(s, t.ping, &[]);
        let mut every_ping: Vec<u32> = (0..4)
            .flat_map(|cx| (0..4).map(move |cc| (cx, cc)))
            .map(|(cx, cc)| ping_key(&f, &t, cx, cc))
            .collect();
        every_ping.push(key(&f, 0, 0));
        assert_eq!(drain(&mut f.core).2, Some(sorted(every_ping)));
        // Ping unsubscribed: received as Chatter again, in Chatter's region.
        f.unsubscribe_interaction(s, t.ping, &[]);
        assert_eq!(drain(&mut f.core).2, Some(both.clone()));

        // The region moves along X: the new cells are joined in both spaces, the old ones left
        // once half a cell behind.
        let c = &mut f.core;
        c.set_range_bounds(s, watch, x, RangeBounds::new(600, 700))
            .expect("x");
        c.mom_reported(s, "commitRegionModifications", None, |c| {
            c.commit_region_modifications(s, &[watch])
        })
        .expect("commit");
        assert_eq!(
            drain(&mut f.core).2,
            Some(sorted(vec![key(&f, 2, 0), ping_key(&f, &t, 2, 0)]))
        );

        // A second region, over X alone: in Chatter's space Y's default is `Excluded`, every
        // cell along Y; in Ping's, Channel's default range, cell 0.
        let strip = f.region_over(s, &[(x, 0, 100)]);
        f.subscribe_interaction(s, t.chatter, &[strip]);
        let mut with_strip = vec![key(&f, 2, 0), ping_key(&f, &t, 2, 0)];
        with_strip.extend((0..4).map(|cy| key(&f, 0, cy)));
        with_strip.push(ping_key(&f, &t, 0, 0));
        assert_eq!(drain(&mut f.core).2, Some(sorted(with_strip)));

        // Unsubscribed from the regions: every cell left (Radio still joins none).
        f.unsubscribe_interaction(s, t.chatter, &[watch, strip]);
        assert_eq!(drain(&mut f.core).2, Some(Vec::new()));
        assert!(f.core.wanted_cells().is_empty());

        // Without regions: every cell of Chatter's space and of Ping's.
        f.subscribe_interaction(s, t.chatter, &[]);
        assert_eq!(drain(&mut f.core).2.map(|c| c.len()), Some(32));
        f.unsubscribe_interaction(s, t.chatter, &[]);
        assert_eq!(drain(&mut f.core).2, Some(Vec::new()));
    }

    #[test]
    fn space_ids_do_not_depend_on_the_order_of_the_dimensions() {
        let (x, y) = (DimensionHandle(1), DimensionHandle(2));
        assert_eq!(space_id(&[x, y]), space_id(&[y, x]));
        assert_ne!(space_id(&[x, y]), space_id(&[x]));
    }

    #[test]
    fn a_cell_key_is_the_space_and_the_cell() {
        assert_eq!(cell_key(3, Cell(5)), 0x0003_0005);
    }
}
