//! Seeded fault injection for datagrams: drop, duplicate, reorder and delay, deterministically
//! from a seed, so that every fault sequence can be replayed. Pure logic: the socket shell (in
//! tests) passes each datagram through [`FaultInjector::inject`] and releases what
//! [`FaultInjector::poll`] hands back when [`FaultInjector::next_deadline`] passes. The sans-I/O
//! simulations use it directly as their network.
//!
//! Used because the lab machines have no netem (`docs/LAB-NOTES.md`, "No netem: nftables loss and a
//! seeded fault layer"): loss can also come from nftables, but delay, reordering and duplication
//! come from here.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What to do to datagrams; probabilities are in per mille (0..=1000).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FaultConfig {
    /// Probability that a datagram is dropped.
    pub drop_per_mille: u16,
    /// Probability that a (surviving) datagram is delivered twice (the copy gets its own delay).
    pub dup_per_mille: u16,
    /// Probability that a datagram is held back an extra `reorder_delay`, letting later ones pass.
    pub reorder_per_mille: u16,
    /// Every datagram is delayed by a uniformly random time in `delay_min ..= delay_max`.
    pub delay_min: Duration,
    /// Upper bound of the random delay.
    pub delay_max: Duration,
    /// Extra delay of a reordered datagram.
    pub reorder_delay: Duration,
}

/// Counters of what the injector did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultStats {
    /// Datagrams handed to `inject`.
    pub injected: u64,
    /// Dropped.
    pub dropped: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Held back to be overtaken.
    pub reordered: u64,
    /// Released by `poll`.
    pub delivered: u64,
}

/// A deterministic faulty link. Datagrams due at the same instant leave in injection order.
#[derive(Debug)]
pub struct FaultInjector {
    cfg: FaultConfig,
    rng: StdRng,
    /// (deliver at, injection counter, datagram): the counter breaks ties deterministically.
    held: BinaryHeap<Reverse<(Instant, u64, Bytes)>>,
    counter: u64,
    stats: FaultStats,
}

impl FaultInjector {
    /// A link whose faults are fully determined by `seed` and the sequence of calls.
    pub fn new(seed: u64, cfg: FaultConfig) -> Self {
        FaultInjector {
            cfg,
            rng: StdRng::seed_from_u64(seed),
            held: BinaryHeap::new(),
            counter: 0,
            stats: FaultStats::default(),
        }
    }

    /// Pass a datagram into the link at `now`. It is dropped, or scheduled (possibly twice) for
    /// delivery; the schedule is returned (empty if dropped) and the datagrams come out of
    /// [`FaultInjector::poll`].
    pub fn inject(&mut self, now: Instant, datagram: Bytes) -> Vec<Instant> {
        self.stats.injected += 1;
        let mut scheduled = Vec::new();
        if self.chance(self.cfg.drop_per_mille) {
            self.stats.dropped += 1;
            return scheduled;
        }
        let copies = if self.chance(self.cfg.dup_per_mille) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut at = now + self.delay();
            if self.chance(self.cfg.reorder_per_mille) {
                self.stats.reordered += 1;
                at += self.cfg.reorder_delay;
            }
            self.held
                .push(Reverse((at, self.counter, datagram.clone())));
            self.counter += 1;
            scheduled.push(at);
        }
        scheduled
    }

    /// Change the faults from now on (e.g. a partition: `drop_per_mille: 1000`); datagrams
    /// already in flight keep their schedule.
    pub fn set_config(&mut self, cfg: FaultConfig) {
        self.cfg = cfg;
    }

    /// The next datagram due at or before `now`, in deadline order.
    pub fn poll(&mut self, now: Instant) -> Option<Bytes> {
        if self.held.peek().is_some_and(|Reverse((at, ..))| *at <= now) {
            self.stats.delivered += 1;
            return self.held.pop().map(|Reverse((_, _, d))| d);
        }
        None
    }

    /// When the next held datagram is due.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.held.peek().map(|Reverse((at, ..))| *at)
    }

    /// Datagrams in flight.
    pub fn in_flight(&self) -> usize {
        self.held.len()
    }

    /// Counters.
    pub fn stats(&self) -> &FaultStats {
        &self.stats
    }

    fn chance(&mut self, per_mille: u16) -> bool {
        per_mille > 0 && self.rng.random_range(0..1000u16) < per_mille
    }

    fn delay(&mut self) -> Duration {
        let (lo, hi) = (
            self.cfg.delay_min,
            self.cfg.delay_max.max(self.cfg.delay_min),
        );
        if hi == lo {
            return lo;
        }
        let span = (hi - lo).as_nanos().min(u128::from(u64::MAX)) as u64;
        lo + Duration::from_nanos(self.rng.random_range(0..=span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(seed: u64, cfg: &FaultConfig) -> Vec<(Duration, u8)> {
        let t0 = Instant::now();
        let mut f = FaultInjector::new(seed, cfg.clone());
        let mut out = Vec::new();
        for i in 0..200u8 {
            let now = t0 + Duration::from_micros(u64::from(i) * 10);
            f.inject(now, Bytes::from(vec![i]));
        }
        while let Some(at) = f.next_deadline() {
            while let Some(d) = f.poll(at) {
                out.push((at - t0, d[0]));
            }
        }
        out
    }

    fn cfg() -> FaultConfig {
        FaultConfig {
            drop_per_mille: 100,
            dup_per_mille: 100,
            reorder_per_mille: 100,
            delay_min: Duration::from_micros(5),
            delay_max: Duration::from_micros(50),
            reorder_delay: Duration::from_micros(500),
        }
    }

    #[test]
    fn same_seed_same_faults_other_seed_other_faults() {
        assert_eq!(run(42, &cfg()), run(42, &cfg()));
        assert_ne!(run(42, &cfg()), run(43, &cfg()));
    }

    #[test]
    fn faults_happen_at_roughly_the_configured_rates_and_deadlines_are_ordered() {
        let out = run(7, &cfg());
        let mut f = FaultInjector::new(7, cfg());
        let t0 = Instant::now();
        for i in 0..200u8 {
            f.inject(t0, Bytes::from(vec![i]));
        }
        let s = f.stats().clone();
        assert!((5..=40).contains(&s.dropped), "{s:?}");
        assert!((5..=40).contains(&s.duplicated), "{s:?}");
        assert!(s.reordered > 0, "{s:?}");
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0));
        // Reordering happened: some datagram came out after a later-injected one.
        assert!(out.windows(2).any(|w| w[0].1 > w[1].1));
        // Duplicates: some value appears twice.
        let mut vals: Vec<u8> = out.iter().map(|x| x.1).collect();
        let n = vals.len();
        vals.sort_unstable();
        vals.dedup();
        assert!(vals.len() < n);
    }

    #[test]
    fn partition_drops_everything_until_healed() {
        let t0 = Instant::now();
        let mut f = FaultInjector::new(3, FaultConfig::default());
        f.set_config(FaultConfig {
            drop_per_mille: 1000,
            ..FaultConfig::default()
        });
        assert!(f.inject(t0, Bytes::from_static(b"x")).is_empty());
        f.set_config(FaultConfig::default());
        assert_eq!(f.inject(t0, Bytes::from_static(b"y")).len(), 1);
        assert_eq!(f.poll(t0).as_deref(), Some(&b"y"[..]));
        assert_eq!(f.stats().dropped, 1);
    }

    #[test]
    fn perfect_link_delivers_everything_in_order_at_once() {
        let t0 = Instant::now();
        let mut f = FaultInjector::new(1, FaultConfig::default());
        for i in 0..10u8 {
            assert_eq!(f.inject(t0, Bytes::from(vec![i])), vec![t0]);
        }
        let got: Vec<u8> = std::iter::from_fn(|| f.poll(t0)).map(|d| d[0]).collect();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        assert_eq!(f.in_flight(), 0);
    }
}
