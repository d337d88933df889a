//! The DDM cell grid: how a region maps onto the multicast groups of a routing space (see
//! `docs/DDM.md`, "Cells: the network filters").
//!
//! A routing space's grid cuts its first [`MAX_GRID_AXES`] dimensions into `per_axis` equal
//! cells each (a dimension beyond them is filtered at the receiver only). A region covers the
//! cells its ranges intersect, a dimension it does not name covering the whole axis. A sender
//! sends to the cells its update region covers; a subscriber joins the cells its subscription
//! regions cover, with **hysteresis** ([`CellMembership`]): it joins a cell when its region grown
//! by `join_margin` cells reaches it, and leaves only when its region grown by the larger
//! `leave_margin` no longer does, so a region jittering at a border does not join and leave on
//! every move. Exact overlap is decided by the federation core afterwards; the grid only decides
//! what the kernel may drop, so it errs on the side of too much.
//!
//! Pure functions of the ranges: no clock, no I/O. The federation core uses them in
//! [`crate::core::cell_route`] (which cells an update goes to, which cells this LRC joins).

use std::collections::BTreeSet;

use crate::handles::DimensionHandle;

/// Dimensions of a routing space that the grid cuts; the rest are filtered at the receiver.
pub const MAX_GRID_AXES: usize = 2;

/// One cell of a routing space's grid: its index along each axis, flattened row by row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub u32);

/// A range over a dimension, half-open: `[lower, upper)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Inclusive lower bound.
    pub lower: u64,
    /// Exclusive upper bound.
    pub upper: u64,
}

/// The grid of one routing space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellGrid {
    /// The axes the grid cuts, with each dimension's upper bound.
    axes: Vec<(DimensionHandle, u64)>,
    per_axis: u32,
}

impl CellGrid {
    /// The grid over `dimensions` (each with its upper bound; the first [`MAX_GRID_AXES`] are
    /// cut, in the order given), `per_axis` cells along each (at least 1; an axis whose upper
    /// bound is smaller gets one cell per value).
    pub fn new(dimensions: &[(DimensionHandle, u64)], per_axis: u32) -> CellGrid {
        CellGrid {
            axes: dimensions.iter().take(MAX_GRID_AXES).copied().collect(),
            per_axis: per_axis.max(1),
        }
    }

    /// How many cells the grid has.
    pub fn cell_count(&self) -> u32 {
        self.axes
            .iter()
            .map(|(_, ub)| self.cells_along(*ub))
            .product::<u32>()
            .max(1)
    }

    /// The cells a region covers: its ranges `ranges` (a dimension it does not name covers the
    /// whole axis), each grown by `margin` cells on either side (0.0: exact).
    pub fn cells_of(&self, ranges: &[(DimensionHandle, Span)], margin: f64) -> BTreeSet<Cell> {
        // Per axis, the first and last cell index covered.
        let mut spans: Vec<(u32, u32)> = Vec::with_capacity(self.axes.len());
        for (dim, ub) in &self.axes {
            let n = self.cells_along(*ub);
            let (lo, hi) = match ranges.iter().find(|(d, _)| d == dim) {
                None => (0, n - 1),
                Some((_, s)) => {
                    let width = *ub as f64 / f64::from(n);
                    let grow = width * margin.max(0.0);
                    let lower = (s.lower as f64 - grow).max(0.0);
                    // The last value the range holds is `upper - 1`.
                    let upper = (s.upper.saturating_sub(1) as f64 + grow).min(*ub as f64 - 1.0);
                    if s.upper <= s.lower {
                        return BTreeSet::new();
                    }
                    (index(lower, width, n), index(upper, width, n))
                }
            };
            spans.push((lo, hi));
        }
        let mut out = BTreeSet::new();
        self.collect(&spans, 0, 0, &mut out);
        out
    }

    fn collect(&self, spans: &[(u32, u32)], axis: usize, base: u32, out: &mut BTreeSet<Cell>) {
        let Some((lo, hi)) = spans.get(axis) else {
            out.insert(Cell(base));
            return;
        };
        let stride: u32 = self.axes[axis + 1..]
            .iter()
            .map(|(_, ub)| self.cells_along(*ub))
            .product();
        for i in *lo..=*hi {
            self.collect(spans, axis + 1, base + i * stride, out);
        }
    }

    fn cells_along(&self, upper_bound: u64) -> u32 {
        u32::try_from(upper_bound)
            .unwrap_or(u32::MAX)
            .clamp(1, self.per_axis)
    }
}

fn index(value: f64, width: f64, n: u32) -> u32 {
    ((value / width) as u32).min(n - 1)
}

/// A subscriber's joined cells of one routing space, with hysteresis (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct CellMembership {
    joined: BTreeSet<Cell>,
}

/// The cells to join and to leave after a region moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellChange {
    /// Cells to join now.
    pub join: Vec<Cell>,
    /// Cells to leave now.
    pub leave: Vec<Cell>,
}

impl CellMembership {
    /// Margins (in cells) of the default hysteresis: join exactly the cells a region covers,
    /// leave one only once the region is half a cell away from it. No join margin: a join takes
    /// effect in the local kernel when the call returns, and a quarter-cell margin made a static
    /// region the size of one cell join the 3 × 3 cells around it (9/16 of the traffic of a
    /// 4 × 4 grid instead of 1/16). The leave margin alone keeps a region jittering at a border
    /// from joining and leaving on every move.
    pub const JOIN_MARGIN: f64 = 0.0;
    /// See [`CellMembership::JOIN_MARGIN`].
    pub const LEAVE_MARGIN: f64 = 0.5;

    /// No cell joined.
    pub fn new() -> CellMembership {
        CellMembership::default()
    }

    /// The cells joined now.
    pub fn joined(&self) -> &BTreeSet<Cell> {
        &self.joined
    }

    /// The subscription regions are now `regions` (each a list of ranges): the cells to join
    /// (reached by a region grown by `join_margin`) and to leave (no longer reached by any region
    /// grown by `leave_margin`, which must be at least `join_margin`).
    pub fn update(
        &mut self,
        grid: &CellGrid,
        regions: &[Vec<(DimensionHandle, Span)>],
        join_margin: f64,
        leave_margin: f64,
    ) -> CellChange {
        let leave_margin = leave_margin.max(join_margin);
        let want: BTreeSet<Cell> = regions
            .iter()
            .flat_map(|r| grid.cells_of(r, join_margin))
            .collect();
        let keep: BTreeSet<Cell> = regions
            .iter()
            .flat_map(|r| grid.cells_of(r, leave_margin))
            .collect();
        let join: Vec<Cell> = want.difference(&self.joined).copied().collect();
        let leave: Vec<Cell> = self
            .joined
            .iter()
            .filter(|c| !keep.contains(c))
            .copied()
            .collect();
        for c in &join {
            self.joined.insert(*c);
        }
        for c in &leave {
            self.joined.remove(c);
        }
        CellChange { join, leave }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: DimensionHandle = DimensionHandle(1);
    const Y: DimensionHandle = DimensionHandle(2);

    fn span(lower: u64, upper: u64) -> Span {
        Span { lower, upper }
    }

    fn grid() -> CellGrid {
        // 4 × 4 cells of 100 × 100 over [0, 400) × [0, 400).
        CellGrid::new(&[(X, 400), (Y, 400)], 4)
    }

    fn cells(v: &[u32]) -> BTreeSet<Cell> {
        v.iter().map(|c| Cell(*c)).collect()
    }

    #[test]
    fn a_region_covers_the_cells_its_ranges_intersect() {
        let g = grid();
        assert_eq!(g.cell_count(), 16);
        // One cell: x in [0,100), y in [0,100).
        assert_eq!(
            g.cells_of(&[(X, span(0, 100)), (Y, span(0, 100))], 0.0),
            cells(&[0])
        );
        // Across a border in x: cells (0,0) and (1,0).
        assert_eq!(
            g.cells_of(&[(X, span(50, 150)), (Y, span(10, 20))], 0.0),
            cells(&[0, 4])
        );
        // Y unnamed: the whole y axis.
        assert_eq!(
            g.cells_of(&[(X, span(300, 400))], 0.0),
            cells(&[12, 13, 14, 15])
        );
        // Nothing named: every cell (the default region).
        assert_eq!(g.cells_of(&[], 0.0).len(), 16);
        // An empty range covers nothing.
        assert!(g.cells_of(&[(X, span(5, 5))], 0.0).is_empty());
    }

    #[test]
    fn a_margin_grows_the_region_by_a_fraction_of_a_cell() {
        let g = grid();
        let r = [(X, span(80, 90)), (Y, span(40, 60))];
        assert_eq!(g.cells_of(&r, 0.0), cells(&[0]));
        // 0.25 cell = 25: x reaches 114, into cell 1 along x.
        assert_eq!(g.cells_of(&r, 0.25), cells(&[0, 4]));
    }

    #[test]
    fn an_axis_with_few_values_gets_one_cell_per_value_and_extra_axes_are_ignored() {
        let g = CellGrid::new(&[(X, 2), (Y, 400), (DimensionHandle(3), 10)], 4);
        assert_eq!(g.cell_count(), 8);
        assert_eq!(g.cells_of(&[(X, span(1, 2))], 0.0), cells(&[4, 5, 6, 7]));
    }

    #[test]
    fn a_region_jittering_at_a_border_does_not_join_and_leave_each_move() {
        let g = grid();
        let mut m = CellMembership::new();
        let at = |x: u64| vec![vec![(X, span(x, x + 20)), (Y, span(10, 20))]];
        let first = m.update(&g, &at(40), 0.25, 0.5);
        assert_eq!(first.join, vec![Cell(0)]);
        // Approaching the border at 100: joined a quarter cell ahead.
        let ahead = m.update(&g, &at(60), 0.25, 0.5);
        assert_eq!(ahead.join, vec![Cell(4)]);
        // Jitter back and forth across it: no change at all.
        let mut changes = 0;
        for i in 0..50u64 {
            let x = if i % 2 == 0 { 70 } else { 95 };
            let c = m.update(&g, &at(x), 0.25, 0.5);
            changes += c.join.len() + c.leave.len();
        }
        assert_eq!(changes, 0);
        // Moving well past it: the old cell is left once half a cell behind.
        // [155, 175): grown by half a cell it no longer reaches cell 0; grown by a quarter it
        // does not yet reach cell 8.
        let c = m.update(&g, &at(155), 0.25, 0.5);
        assert_eq!(c.leave, vec![Cell(0)]);
        assert!(c.join.is_empty());
        assert_eq!(m.joined(), &cells(&[4]));
    }

    #[test]
    fn without_margins_every_border_crossing_changes_groups() {
        let g = grid();
        let mut m = CellMembership::new();
        let at = |x: u64| vec![vec![(X, span(x, x + 5)), (Y, span(10, 20))]];
        m.update(&g, &at(90), 0.0, 0.0);
        let mut changes = 0;
        for i in 0..10u64 {
            let x = if i % 2 == 0 { 101 } else { 90 };
            let c = m.update(&g, &at(x), 0.0, 0.0);
            changes += c.join.len() + c.leave.len();
        }
        assert_eq!(changes, 20);
    }
}
