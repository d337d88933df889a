//! Folding an update-region move into the update that follows it.
//!
//! A moving entity commits its update region and then updates its attributes, in the same
//! frame of the federate's loop. A move within the cells ([`super::regions`], "Moves within the
//! cells") goes to the cells the region leaves and enters, and the update after it to the cells
//! it is in, carrying the moved attributes' regions ([`super::regions::InlineRegions`]): a
//! subscriber in those cells received two datagrams where one says everything. At one
//! subscriber watching 1/16 of the plane, with fast entities (`hlamesh-bench ddm --speed 50`),
//! the moves were a quarter of its datagrams and kept the ratio to the run without regions
//! above the 1/8 target (issue 23).
//!
//! So a move within the cells is applied here at once (local federates see it at the commit)
//! but held, for at most [`FOLD_WINDOW_US`]:
//!
//! - If the next data message this LRC sends for the instance is a receive-order update by the
//!   same federate that carries every moved attribute's regions under the move's number, the
//!   move goes no further: the update goes to the cells the move would have gone to as well as
//!   its own. A receiver in a cell the region left gets the update instead of the move, applies
//!   its regions (newer by their number) and judges it by them, so it advises the attributes
//!   out of scope and reflects nothing, exactly as after the move.
//! - Any other data message and any control message send every held move first, so what this
//!   LRC sends leaves in the order it was done. A second move of the same instance sends the
//!   first.
//! - At the end of the window the core's deadline ([`super::FederationCore::poll_timeout`])
//!   sends it as it was.
//!
//! A reliable attribute's move is numbered in the stream when it leaves (on its own), or takes
//! no number (inside a reliable update); it folds only into a reliable update. A time-stamped
//! update folds nothing (it is delivered in time order, later than a move applies). What it
//! costs: a receiver learns of a move that no update follows up to a millisecond later, and
//! scope advisories wait that long.
//!
//! The unified simulator's region and cell sweeps fold reliable moves (its FOM has no
//! best-effort attribute with regions) and require some folds in their coverage.
//!
//! (A first version, which also sent held moves before every time message and before every
//! reading of the stream position, lost liveness in the unified simulator's cell sweep at seed
//! 443: three federates' `enableTimeRegulation` never completed; their queries had not reached
//! two LRCs whose connections broke and came back. Such a query is now sent again when a
//! connection comes back, `hlamesh_timesync::TimeManager::resend_query`. This version passes
//! that seed and the sweeps with or without that fix, so the sweep does not pin the cause.)

use std::collections::BTreeMap;

use super::wire::DataMsg;
use super::{FederationCore, ObjectInstanceHandle};

/// Longest a move is held for the update that follows it (µs of the shell's clock).
pub const FOLD_WINDOW_US: u64 = 1_000;

/// A move applied here and not sent yet.
#[derive(Debug, Clone)]
pub(crate) struct HeldMove {
    /// The [`DataMsg::MoveRegions`].
    msg: DataMsg,
    /// Numbered in the stream when it leaves (a reliable attribute moved).
    reliable: bool,
    /// The cells the regions leave and enter (computed before the move applied here).
    cells: Vec<u32>,
    /// When it leaves on its own.
    due: u64,
}

/// Moves held for the update that follows them, by instance.
#[derive(Debug, Clone, Default)]
pub(crate) struct MoveFold {
    held: BTreeMap<ObjectInstanceHandle, HeldMove>,
    /// Moves that went inside an update.
    pub folded: u64,
}

impl FederationCore {
    /// Holds the move `msg` (a [`DataMsg::MoveRegions`] within the cells) for the update that
    /// follows it, after applying it here. Sends it at once instead when its cells are not
    /// known (it then goes as any message).
    pub(crate) fn hold_move(&mut self, reliable: bool, msg: DataMsg) {
        let DataMsg::MoveRegions { object, .. } = &msg else {
            self.send_data(reliable, msg);
            return;
        };
        let object = *object;
        // Computed before the move applies here: the cells it leaves are those of the
        // regions held now.
        let Some(cells) = self.cells_of_send(&msg) else {
            self.send_data(reliable, msg);
            return;
        };
        if let Some(earlier) = self.move_fold.held.remove(&object) {
            self.emit_held(earlier);
        }
        let me = self.me;
        self.apply_data(me, None, reliable, msg.clone());
        let due = self.now.saturating_add(FOLD_WINDOW_US);
        self.move_fold.held.insert(
            object,
            HeldMove {
                msg,
                reliable,
                cells,
                due,
            },
        );
    }

    /// If `msg` is an update that a held move folds into (see the module docs), takes that
    /// move and returns the cells the update goes to: its own and the move's.
    pub(crate) fn fold_held_move(&mut self, reliable: bool, msg: &DataMsg) -> Option<Vec<u32>> {
        let DataMsg::Update {
            object,
            producer,
            tso: false,
            regions: Some(inline),
            ..
        } = msg
        else {
            return None;
        };
        let held = self.move_fold.held.get(object)?;
        let DataMsg::MoveRegions {
            producer: mover,
            version,
            attrs,
            ..
        } = &held.msg
        else {
            return None;
        };
        let carried = attrs
            .iter()
            .all(|(a, _)| inline.attrs.iter().any(|(b, v, _)| a == b && v == version));
        if mover != producer || !carried || (held.reliable && !reliable) {
            return None;
        }
        let mut cells = self.cells_of_send(msg)?;
        cells.extend(held.cells.iter().copied());
        cells.sort_unstable();
        cells.dedup();
        if cells.len() > super::cell_route::MAX_KEYS_PER_SEND {
            return None;
        }
        self.move_fold.held.remove(object);
        self.move_fold.folded += 1;
        Some(cells)
    }

    /// Sends every held move now, in the order they were held in.
    pub(crate) fn flush_held_moves(&mut self) {
        if self.move_fold.held.is_empty() {
            return;
        }
        let mut held: Vec<HeldMove> = std::mem::take(&mut self.move_fold.held)
            .into_values()
            .collect();
        held.sort_by_key(|h| h.due);
        for h in held {
            self.emit_held(h);
        }
    }

    /// Sends held move `h` on its own, numbered now when reliable: the local time managers
    /// count it under that number, as they count every reliable message of its producer
    /// (applied here unnumbered, it counted under the number before).
    fn emit_held(&mut self, h: HeldMove) {
        let seq = self.emit_data(h.reliable, &h.msg, Some(h.cells));
        if let (true, DataMsg::MoveRegions { producer, .. }) = (h.reliable, &h.msg) {
            self.time_other(*producer, seq, &[]);
            self.pump_time();
        }
    }

    /// Sends the held moves whose window ended at `now` (those held earlier than the others).
    pub(crate) fn flush_held_moves_due(&mut self, now: u64) {
        if !self.move_fold.held.values().any(|h| h.due <= now) {
            return;
        }
        let mut due: Vec<HeldMove> = Vec::new();
        self.move_fold.held.retain(|_, h| {
            let leaves = h.due <= now;
            if leaves {
                due.push(h.clone());
            }
            !leaves
        });
        due.sort_by_key(|h| h.due);
        for h in due {
            self.emit_held(h);
        }
    }

    /// When the first held move leaves on its own.
    pub(crate) fn held_moves_due(&self) -> Option<u64> {
        self.move_fold.held.values().map(|h| h.due).min()
    }

    /// Forgets the held moves (the connection is lost: nothing goes out any more).
    pub(crate) fn drop_held_moves(&mut self) {
        self.move_fold.held.clear();
    }

    /// Moves that went inside the update that followed them (see the module docs).
    pub fn ddm_moves_folded(&self) -> u64 {
        self.move_fold.folded
    }
}
