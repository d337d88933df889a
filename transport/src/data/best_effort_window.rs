//! Duplicate suppression and loss counting for best-effort datagrams: a 64-number sliding window
//! over the sender's best-effort counter. Numbers below the window are treated as duplicates
//! (dropped): at-most-once matters more than a very late best-effort datagram.

/// What to do with a best-effort datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admit {
    /// First time seen: deliver.
    New,
    /// Seen before, or too old to tell: drop.
    Duplicate,
}

#[derive(Debug, Default)]
pub(crate) struct BestEffortWindow {
    /// Highest number seen or announced (0: nothing yet).
    highest: u64,
    /// Bit i set: number `highest - i` has been received.
    seen: u64,
    /// Loss is counted only from here on (numbers before we started listening are not lost).
    floor: u64,
}

const WIDTH: u64 = 64;

impl BestEffortWindow {
    /// Admit datagram number `n`; returns the decision and how many numbers were found lost.
    pub(crate) fn admit(&mut self, n: u64) -> (Admit, u64) {
        if n == 0 {
            return (Admit::Duplicate, 0);
        }
        if self.highest == 0 {
            self.highest = n;
            self.seen = 1;
            self.floor = n;
            return (Admit::New, 0);
        }
        let lost = self.advance(n);
        let back = self.highest - n;
        if back >= WIDTH {
            return (Admit::Duplicate, lost);
        }
        let bit = 1u64 << back;
        if self.seen & bit != 0 {
            return (Admit::Duplicate, lost);
        }
        self.seen |= bit;
        (Admit::New, lost)
    }

    /// A heartbeat says numbers up to `n` were sent; returns how many were found lost.
    pub(crate) fn announce(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        if self.highest == 0 {
            // Heard mid-stream: nothing before the announcement is expected.
            self.highest = n;
            self.seen = u64::MAX;
            self.floor = n + 1;
            return 0;
        }
        self.advance(n)
    }

    /// Slide the window so that `n` is inside it; count numbers that leave it unseen.
    fn advance(&mut self, n: u64) -> u64 {
        if n <= self.highest {
            return 0;
        }
        let shift = n - self.highest;
        // Old window position i holds number highest - i; it counts only if >= floor.
        let valid = if self.highest < self.floor {
            0
        } else {
            let span = self.highest - self.floor + 1;
            if span >= WIDTH {
                u64::MAX
            } else {
                (1u64 << span) - 1
            }
        };
        let lost = if shift >= WIDTH {
            let fresh_unseen =
                (shift - WIDTH).saturating_sub(self.floor.saturating_sub(self.highest + 1));
            u64::from((!self.seen & valid).count_ones()) + fresh_unseen
        } else {
            let leaving = u64::MAX << (WIDTH - shift);
            u64::from((!self.seen & valid & leaving).count_ones())
        };
        self.seen = if shift >= WIDTH {
            0
        } else {
            self.seen << shift
        };
        self.highest = n;
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_dropped_and_reorder_accepted() {
        let mut w = BestEffortWindow::default();
        assert_eq!(w.admit(5).0, Admit::New);
        assert_eq!(w.admit(5).0, Admit::Duplicate);
        assert_eq!(w.admit(7).0, Admit::New);
        assert_eq!(w.admit(6).0, Admit::New);
        assert_eq!(w.admit(6).0, Admit::Duplicate);
        // Before the first seen number but within the window: accepted once.
        assert_eq!(w.admit(4).0, Admit::New);
        assert_eq!(w.admit(4).0, Admit::Duplicate);
    }

    #[test]
    fn loss_counted_once_when_leaving_window() {
        let mut w = BestEffortWindow::default();
        w.admit(1);
        w.admit(3); // 2 missing, still inside the window
        let mut lost = 0;
        for n in 4..=100 {
            lost += w.admit(n).1;
        }
        assert_eq!(lost, 1);
        // A jump far ahead: everything skipped is lost (101..=199 never arrive).
        let (_, l) = w.admit(300);
        assert_eq!(l, (101..=236).count() as u64);
    }

    #[test]
    fn too_old_is_duplicate() {
        let mut w = BestEffortWindow::default();
        w.admit(1000);
        assert_eq!(w.admit(900).0, Admit::Duplicate);
        assert_eq!(w.admit(0).0, Admit::Duplicate);
    }

    #[test]
    fn announce_counts_tail_loss() {
        let mut w = BestEffortWindow::default();
        w.admit(1);
        w.admit(2);
        // 3 and 4 lost; the heartbeat says 4 was sent, then time passes (70 more numbers).
        assert_eq!(w.announce(4), 0);
        let lost = w.announce(4 + 64);
        assert_eq!(lost, 2);
    }

    #[test]
    fn announce_first_expects_nothing_before() {
        let mut w = BestEffortWindow::default();
        w.announce(50);
        let mut lost = 0;
        for n in 51..=200 {
            lost += w.admit(n).1;
        }
        assert_eq!(lost, 0);
    }
}
