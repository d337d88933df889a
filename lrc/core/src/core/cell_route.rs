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
//!   subscription regions for it, grown by [`CellMembership::JOIN_MARGIN`] and kept until they
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
