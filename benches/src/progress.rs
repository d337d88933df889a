//! A progress bar on stderr for long runs, drawn only when stderr is a terminal (so logs, pipes
//! and CI output stay clean). One line, redrawn at most every 100 ms, cleared when done.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Progress of one subcommand towards `total` units.
#[derive(Debug)]
pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    drawn: Option<Instant>,
    visible: bool,
}

impl Progress {
    /// A bar for `total` units of work (drawn only on a terminal).
    pub fn new(label: &str, total: u64) -> Progress {
        Progress {
            label: label.to_string(),
            total: total.max(1),
            done: 0,
            drawn: None,
            visible: std::io::stderr().is_terminal(),
        }
    }

    /// `n` more units done.
    pub fn inc(&mut self, n: u64) {
        self.done = (self.done + n).min(self.total);
        if !self.visible
            || self
                .drawn
                .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.drawn = Some(Instant::now());
        let width = 30u64;
        let filled = self.done * width / self.total;
        let bar: String = (0..width)
            .map(|i| if i < filled { '#' } else { '-' })
            .collect();
        let mut e = std::io::stderr().lock();
        // A progress bar that cannot be drawn is not worth failing a benchmark for.
        let _ = write!(e, "\r{} [{bar}] {}/{} ", self.label, self.done, self.total);
        let _ = e.flush();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.visible && self.drawn.is_some() {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_saturate_at_the_total() {
        let mut p = Progress::new("t", 3);
        p.inc(2);
        p.inc(5);
        assert_eq!(p.done, 3);
        let mut z = Progress::new("z", 0);
        z.inc(1);
        assert_eq!((z.done, z.total), (1, 1));
    }
}
