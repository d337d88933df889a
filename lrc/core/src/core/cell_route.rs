//! DDM cell routing (issue 23, `docs/DDM.md`, "Cells: the network filters"): which grid cells a
//! best-effort update goes to, and which cells this LRC's subscriptions want to hear, as
//! **cell keys** the transport maps to multicast groups (`hlamesh_transport::core::cells`).
//! Sans-I/O: the shell sends with [`Action::SendToCells`] and joins with
//! [`Action::SetCells`].
//!
//! A **routing space** is the dimension set of a class attribute (as the FDD declares it, the
//! same at every LRC; an inherited attribute keeps its declaration's dimensions), cut by a
//! [`CellGrid`] of `cells_per_dimension` cells along its first two dimensions (by handle). A cell
//! key is the space's 16-bit id ([`space_id`]) and the cell's index.
//!
//! - **Sender**: a best-effort update of an instance goes to the cells its attributes' update
//!   regions cover, in each attribute's space, if *every* attribute it carries has update regions
//!   (an attribute in the default region makes it a default-group message, as does an update
//!   covering more than `MAX_KEYS_PER_SEND` cells). Reliable updates, interactions and everything
//!   else stay on the default group.
//! - **Receiver**: for each attribute a local federate subscribes to, the cells of its
//!   subscription regions for it (grown by [`CellMembership::JOIN_MARGIN`], none by default)
//!   and kept until they
//!   fall out of the regions grown by [`CellMembership::LEAVE_MARGIN`]; an attribute subscribed
//!   without regions (the default region) wants every cell of its space. The wanted set is
//!   recomputed after each service that changes subscriptions or regions
//!   ([`FederationCore::refresh_cells`]), and announced when it changed.
//!
//! Overlap implies a shared cell (on each grid axis the two ranges intersect, so they share a
//! cell index; a dimension a region leaves unspecified covers the whole axis), so a subscriber
//! joined to its cells hears every update that overlaps; the receiving LRC's exact filter
//! (`super::regions`) then decides the callbacks.

use std::collections::{BTreeMap, BTreeSet};

use super::regions::Extent;
use super::wire::DataMsg;
use super::{Action, FederationCore};
use crate::cells::{Cell, CellGrid, CellMembership, Span};
use crate::fom::Fdd;
use crate::handles::{AttributeHandle, DimensionHandle, ObjectClassHandle};

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

/// The dimensions of attribute `a` of `class` (empty if unknown).
fn attr_dims(fdd: &Fdd, class: ObjectClassHandle, a: AttributeHandle) -> Vec<DimensionHandle> {
    fdd.available_dimensions_for_class_attribute(class, a)
        .map(<[_]>::to_vec)
        .unwrap_or_default()
}

impl FederationCore {
    /// Sets the grid resolution (the transport's `cells_per_dimension`; 0 turns cell routing
    /// off). Every LRC of a federation must use the same.
    pub fn set_cells_per_dimension(&mut self, n: u32) {
        self.cells.cells_per_dimension = n;
    }

    /// The cell keys a best-effort `msg` goes to, `None` for the default group (see the module
    /// docs).
    pub(crate) fn cells_of_send(&self, msg: &DataMsg) -> Option<Vec<u32>> {
        let DataMsg::Update { object, values, .. } = msg else {
            return None;
        };
        let per_axis = self.cells.cells_per_dimension;
        if per_axis == 0 || values.is_empty() {
            return None;
        }
        let regions = self.regions.update_regions.get(object)?;
        let class = self.objects.get(object)?.class;
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

    /// Recomputes the cells this LRC's subscriptions want (with the join and leave margins)
    /// and queues [`Action::SetCells`] if they changed. Called after each service that changes
    /// subscriptions or regions.
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
                        let dims = attr_dims(&fdd, *class, *a);
                        // No dimensions: it can have no update region, so no update of it is
                        // ever sent to a cell; joining its space's group would be a wasted
                        // membership on every subscriber of a FOM without DDM.
                        if dims.is_empty() {
                            continue;
                        }
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
            self.cells.announced = wanted.clone();
            self.actions.push_back(Action::SetCells { cells: wanted });
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
            let (vehicle, position) = (self.vehicle, self.position);
            self.core
                .mom_reported(f, "subscribeObjectClassAttributesWithRegions", None, |c| {
                    c.subscribe_object_class_attributes_with_regions(
                        f,
                        vehicle,
                        &[(vec![position], vec![r])],
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
    }

    /// The key of cell (`cx`, `cy`) of Position's 4 × 4 grid (X and Y of [0, 1000)).
    fn key(f: &Fed, cx: u32, cy: u32) -> u32 {
        cell_key(space_id(&[f.x, f.y]), Cell(cx * 4 + cy))
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
        assert_eq!(drain(&mut f.core).0, vec![vec![key(&f, 2, 0)]]);

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

    /// A resigned subscriber's cells are left once its resignation is applied (the resign call
    /// itself leaves its subscriptions in place until then).
    #[test]
    fn a_resigned_subscribers_cells_are_left() {
        let mut f = Fed::new();
        let s = f.s;
        let watch = f.region(s, (0, 100), (0, 100));
        f.subscribe_in(s, watch);
        assert_eq!(drain(&mut f.core).2, Some(vec![key(&f, 0, 0)]));
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
