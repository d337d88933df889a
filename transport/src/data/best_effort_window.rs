//! Duplicate suppression and loss counting for best-effort datagrams: a 1024-number sliding
//! window over the sender's best-effort counter (wide enough for the fragments of several 64 KiB
//! messages to arrive in any order). Numbers below the window are treated as duplicates
//! (dropped): at-most-once matters more than a very late best-effort datagram. A number that
//! leaves the window unseen is counted as lost.

/// What to do with a best-effort datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admit {
    /// First time seen: deliver.
    New,
    /// Seen before, or too old to tell: drop.
    Duplicate,
}

/// Window width in numbers.
pub(crate) const WIDTH: u64 = 1024;
const WORDS: usize = (WIDTH / 64) as usize;

#[derive(Debug)]
pub(crate) struct BestEffortWindow {
    /// Highest number seen or announced (0: nothing yet).
    highest: u64,
    /// Ring bitmap: bit `n % WIDTH` set if number `n` (within the window) was received.
    seen: [u64; WORDS],
    /// Loss is counted only from here on (numbers before we started listening are not lost).
    floor: u64,
}

impl Default for BestEffortWindow {
    fn default() -> Self {
        BestEffortWindow {
            highest: 0,
            seen: [0; WORDS],
            floor: 1,
        }
    }
}

fn slot(n: u64) -> (usize, u64) {
    let i = n % WIDTH;
    ((i / 64) as usize, 1u64 << (i % 64))
}

impl BestEffortWindow {
    /// Admit datagram number `n`; returns the decision and how many numbers were found lost.
    pub(crate) fn admit(&mut self, n: u64) -> (Admit, u64) {
        if n == 0 {
            return (Admit::Duplicate, 0);
        }
        let lost = if self.highest == 0 {
            self.start(n);
            0
        } else {
            self.advance(n)
        };
        if self.highest - n >= WIDTH {
            return (Admit::Duplicate, lost);
        }
        let (w, b) = slot(n);
        if self.seen[w] & b != 0 {
            return (Admit::Duplicate, lost);
        }
        self.seen[w] |= b;
        (Admit::New, lost)
    }

    /// A heartbeat says numbers up to `n` were sent; returns how many were found lost.
    pub(crate) fn announce(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        if self.highest == 0 {
            // Heard mid-stream: nothing up to the announcement is expected (but is accepted).
            self.start(n);
            // `n` comes from the wire: at 2^64 - 1 nothing can follow, and nothing is lost.
            self.floor = n.saturating_add(1);
            return 0;
        }
        self.advance(n)
    }

    fn start(&mut self, n: u64) {
        self.highest = n;
        self.floor = n;
    }

    /// Slide the window so that `n` is its top; count numbers that leave it unseen.
    fn advance(&mut self, n: u64) -> u64 {
        if n <= self.highest {
            return 0;
        }
        let mut lost = 0;
        let k = self.highest + 1;
        if n - self.highest >= WIDTH {
            // The whole old window leaves, and so do the numbers that never even enter the new
            // one (below its bottom).
            let bottom = n - WIDTH + 1;
            for old in self.highest.saturating_sub(WIDTH - 1).max(self.floor)..=self.highest {
                let (w, b) = slot(old);
                if self.seen[w] & b == 0 {
                    lost += 1;
                }
            }
            lost += bottom.saturating_sub(k.max(self.floor));
            self.seen = [0; WORDS];
            self.highest = n;
            return lost;
        }
        for k in k..=n {
            // Slot of k is reused: it held k - WIDTH.
            if let Some(old) = k.checked_sub(WIDTH).filter(|&o| o >= self.floor) {
                let (w, b) = slot(old);
                if self.seen[w] & b == 0 {
                    lost += 1;
                }
            }
            let (w, b) = slot(k);
            self.seen[w] &= !b;
        }
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
        for n in 4..=2000 {
            lost += w.admit(n).1;
        }
        assert_eq!(lost, 1);
        // A jump far ahead: everything skipped is lost (2001..=4000 never arrive; the new
        // window is 4977..=6000).
        let (_, l) = w.admit(6000);
        assert_eq!(l, (2001..=4976).count() as u64);
        // The ring was cleared: numbers in the new window are accepted once.
        assert_eq!(w.admit(5000).0, Admit::New);
        assert_eq!(w.admit(5000).0, Admit::Duplicate);
    }

    #[test]
    fn extreme_numbers_do_not_overflow() {
        let mut w = BestEffortWindow::default();
        assert_eq!(w.admit(u64::MAX - 3).0, Admit::New);
        assert_eq!(w.admit(u64::MAX).0, Admit::New);
        assert_eq!(w.admit(u64::MAX).0, Admit::Duplicate);
        assert_eq!(w.announce(u64::MAX), 0);
        let mut w = BestEffortWindow::default();
        w.admit(1);
        // 2 ..= MAX - WIDTH never arrived.
        assert_eq!(w.admit(u64::MAX).1, u64::MAX - WIDTH - 1);
    }

    /// Issue 20, finding 6c: a first heartbeat announcing 2^64 − 1 overflowed
    /// `floor = n + 1` (a panic with overflow checks, a wrapped floor of 0 without).
    #[test]
    fn first_announcement_at_the_top_does_not_overflow() {
        let mut w = BestEffortWindow::default();
        assert_eq!(w.announce(u64::MAX), 0);
        assert_eq!(w.floor, u64::MAX);
        assert_eq!(w.admit(u64::MAX), (Admit::New, 0));
        assert_eq!(w.admit(u64::MAX - 5).0, Admit::New);
        assert_eq!(w.announce(u64::MAX), 0);
    }

    #[test]
    fn too_old_is_duplicate() {
        let mut w = BestEffortWindow::default();
        w.admit(5000);
        assert_eq!(w.admit(5000 - WIDTH).0, Admit::Duplicate);
        assert_eq!(w.admit(5001 - WIDTH).0, Admit::New);
        assert_eq!(w.admit(0).0, Admit::Duplicate);
    }

    #[test]
    fn announce_counts_tail_loss() {
        let mut w = BestEffortWindow::default();
        w.admit(1);
        w.admit(2);
        // 3 and 4 lost; the heartbeat says 4 was sent, then a window's worth later they leave.
        assert_eq!(w.announce(4), 0);
        assert_eq!(w.announce(3 + WIDTH - 1), 0);
        assert_eq!(w.announce(4 + WIDTH), 2);
    }

    #[test]
    fn announce_first_expects_nothing_before() {
        let mut w = BestEffortWindow::default();
        w.announce(50);
        let mut lost = 0;
        for n in 51..=3000 {
            lost += w.admit(n).1;
        }
        assert_eq!(lost, 0);
    }

    #[test]
    fn matches_a_naive_model() {
        // Pseudo-random arrival pattern vs a set-based model of the same rules.
        let mut w = BestEffortWindow::default();
        let mut seen = std::collections::BTreeSet::new();
        let (mut highest, mut lost_model, mut lost) = (0u64, 0u64, 0u64);
        let mut x = 12345u64;
        let mut first = None;
        for _ in 0..5_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = 1 + (x >> 33) % 2500 + highest.saturating_sub(2000);
            first.get_or_insert(n);
            let model_new = n + WIDTH > highest.max(n) && !seen.contains(&n);
            let (a, l) = w.admit(n);
            lost += l;
            assert_eq!(a == Admit::New, model_new, "n {n} highest {highest}");
            if model_new {
                seen.insert(n);
            }
            highest = highest.max(n);
        }
        // Every number from the first one up to the window bottom is either seen or lost.
        let first = first.unwrap_or(1);
        let bottom = highest + 1 - WIDTH;
        lost_model += (first..bottom).filter(|n| !seen.contains(n)).count() as u64;
        assert_eq!(lost, lost_model);
    }
}
