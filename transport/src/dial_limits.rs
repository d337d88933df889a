//! Which peers to dial, and when: the bounds on outgoing QUIC connection attempts.
//!
//! Every dial costs memory until it ends (a QUIC connection's state, TLS state, a task) and sends
//! datagrams to the address a beacon named. Beacons are authenticated
//! ([`crate::beacon_auth`]), so only nodes of the deployment are dialled at all; on top of that,
//! this module bounds what even a misbehaving or restarting deployment can cost:
//!
//! - at most [`MAX_IN_FLIGHT`] dials at a time;
//! - at most [`DIALS_PER_SEC`] new dials per second (a token bucket, burst the same);
//! - after a failed dial, the next attempt at that node waits a back-off that doubles per failure
//!   from [`BACKOFF_MIN`] up to [`BACKOFF_MAX`];
//! - a peer that was lost is not dialled again until a beacon heard *after* the loss says it is
//!   still there (a node that died keeps its last beacon in the table until it expires; dialling
//!   it would only time out);
//! - every entry is removed when the node connects or expires from the discovery table, and at
//!   most [`MAX_TRACKED`] nodes are tracked at all (the discovery table's own bound).
//!
//! A dial that was refused or timed out keeps nothing but its back-off entry: the shell drops the
//! connection attempt and its task when the dial ends (or at its timeout).
//!
//! Sans-I/O: the caller passes the time.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::discovery::MAX_PEERS;
use crate::id::NodeId;

/// Most dials in flight at once.
pub const MAX_IN_FLIGHT: usize = 8;
/// Most new dials per second (and burst).
pub const DIALS_PER_SEC: u32 = 20;
/// Back-off after the first failure.
pub const BACKOFF_MIN: Duration = Duration::from_secs(2);
/// Longest back-off.
pub const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// Most nodes with a back-off or loss entry.
pub const MAX_TRACKED: usize = MAX_PEERS;

/// How a dial ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialOutcome {
    /// Connected and registered.
    Connected,
    /// The peer refused us, or we refused it (authentication, version, duplicate).
    Refused,
    /// No answer, or the connection broke during the handshake.
    Unreachable,
}

/// Why a dial was not started now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deferred {
    /// Already being dialled.
    InFlight,
    /// In back-off after a failure.
    BackingOff,
    /// Lost, and not heard from since.
    LostSilent,
    /// [`MAX_IN_FLIGHT`] dials are running.
    Concurrency,
    /// The per-second budget is spent.
    Rate,
}

#[derive(Clone, Copy, Debug)]
struct Backoff {
    retry_at: Instant,
    failures: u32,
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DialStats {
    /// Dials started.
    pub started: u64,
    /// Dials that connected.
    pub connected: u64,
    /// Dials refused.
    pub refused: u64,
    /// Dials that found nobody (timed out, broke).
    pub unreachable: u64,
    /// Dials deferred by the concurrency cap or the rate limit.
    pub deferred: u64,
}

/// The dial bookkeeping of one node.
#[derive(Debug)]
pub struct DialLimits {
    in_flight: HashSet<NodeId>,
    backoff: HashMap<NodeId, Backoff>,
    lost: HashMap<NodeId, Instant>,
    tokens: f64,
    refilled: Option<Instant>,
    stats: DialStats,
}

impl Default for DialLimits {
    fn default() -> Self {
        Self::new()
    }
}

impl DialLimits {
    /// No dial yet, a full budget.
    pub fn new() -> Self {
        DialLimits {
            in_flight: HashSet::new(),
            backoff: HashMap::new(),
            lost: HashMap::new(),
            tokens: f64::from(DIALS_PER_SEC),
            refilled: None,
            stats: DialStats::default(),
        }
    }

    /// Whether to dial `node` now, whose latest beacon was heard at `last_heard`. `Ok` records
    /// the dial as started: report its end with [`DialLimits::finished`].
    pub fn start(
        &mut self,
        now: Instant,
        node: NodeId,
        last_heard: Instant,
    ) -> Result<(), Deferred> {
        if self.in_flight.contains(&node) {
            return Err(Deferred::InFlight);
        }
        if self.backoff.get(&node).is_some_and(|b| now < b.retry_at) {
            return Err(Deferred::BackingOff);
        }
        if self.lost.get(&node).is_some_and(|t| last_heard <= *t) {
            return Err(Deferred::LostSilent);
        }
        if self.in_flight.len() >= MAX_IN_FLIGHT {
            self.stats.deferred += 1;
            return Err(Deferred::Concurrency);
        }
        let cap = f64::from(DIALS_PER_SEC);
        if let Some(t) = self.refilled {
            self.tokens =
                (self.tokens + now.saturating_duration_since(t).as_secs_f64() * cap).min(cap);
        }
        self.refilled = Some(now);
        if self.tokens < 1.0 {
            self.stats.deferred += 1;
            return Err(Deferred::Rate);
        }
        self.tokens -= 1.0;
        self.in_flight.insert(node);
        self.lost.remove(&node);
        self.stats.started += 1;
        Ok(())
    }

    /// A dial started by [`DialLimits::start`] ended.
    pub fn finished(&mut self, now: Instant, node: NodeId, outcome: DialOutcome) {
        self.in_flight.remove(&node);
        match outcome {
            DialOutcome::Connected => {
                self.stats.connected += 1;
                self.backoff.remove(&node);
            }
            DialOutcome::Refused | DialOutcome::Unreachable => {
                if outcome == DialOutcome::Refused {
                    self.stats.refused += 1;
                } else {
                    self.stats.unreachable += 1;
                }
                if self.backoff.len() >= MAX_TRACKED && !self.backoff.contains_key(&node) {
                    // Cannot happen with a bounded discovery table; stay bounded anyway: the
                    // expired back-offs go first.
                    self.backoff.retain(|_, b| b.retry_at > now);
                    if self.backoff.len() >= MAX_TRACKED {
                        return;
                    }
                }
                let failures = self.backoff.get(&node).map_or(0, |b| b.failures) + 1;
                let wait = BACKOFF_MIN
                    .saturating_mul(1 << (failures - 1).min(16))
                    .min(BACKOFF_MAX);
                self.backoff.insert(
                    node,
                    Backoff {
                        retry_at: now + wait,
                        failures,
                    },
                );
            }
        }
    }

    /// A connected peer was lost at `now`: do not dial it again before a newer beacon.
    pub fn lost(&mut self, now: Instant, node: NodeId) {
        if self.lost.len() < MAX_TRACKED || self.lost.contains_key(&node) {
            self.lost.insert(node, now);
        }
    }

    /// The node expired from the discovery table: forget everything about it (a dial in flight
    /// is still reported through [`DialLimits::finished`]).
    pub fn forget(&mut self, node: NodeId) {
        self.backoff.remove(&node);
        self.lost.remove(&node);
    }

    /// Dials in flight now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Nodes with bookkeeping (in flight, back-off or loss).
    pub fn tracked(&self) -> usize {
        self.in_flight.len() + self.backoff.len() + self.lost.len()
    }

    /// Counters.
    pub fn stats(&self) -> DialStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_and_rate_are_bounded() {
        let t0 = Instant::now();
        let mut d = DialLimits::new();
        for n in 0..MAX_IN_FLIGHT as u64 {
            assert_eq!(d.start(t0, NodeId(n), t0), Ok(()));
        }
        assert_eq!(d.start(t0, NodeId(100), t0), Err(Deferred::Concurrency));
        assert_eq!(d.start(t0, NodeId(0), t0), Err(Deferred::InFlight));
        for n in 0..MAX_IN_FLIGHT as u64 {
            d.finished(t0, NodeId(n), DialOutcome::Connected);
        }
        // The burst is spent after DIALS_PER_SEC starts within one instant.
        let mut started = MAX_IN_FLIGHT as u32;
        let mut n = 1000;
        while d.start(t0, NodeId(n), t0).is_ok() {
            d.finished(t0, NodeId(n), DialOutcome::Connected);
            started += 1;
            n += 1;
        }
        assert_eq!(started, DIALS_PER_SEC);
        assert_eq!(d.start(t0, NodeId(n), t0), Err(Deferred::Rate));
        // Refilled after a second.
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(d.start(t1, NodeId(n), t1), Ok(()));
        assert_eq!(d.tracked(), 1);
    }

    #[test]
    fn failures_back_off_exponentially_and_expiry_forgets() {
        let t0 = Instant::now();
        let mut d = DialLimits::new();
        let p = NodeId(7);
        let mut now = t0;
        let mut expected = BACKOFF_MIN;
        for _ in 0..7 {
            assert_eq!(d.start(now, p, now), Ok(()));
            d.finished(now, p, DialOutcome::Unreachable);
            let early = now + expected - Duration::from_millis(1);
            assert_eq!(d.start(early, p, early), Err(Deferred::BackingOff));
            now += expected;
            expected = (expected * 2).min(BACKOFF_MAX);
        }
        assert_eq!(expected, BACKOFF_MAX);
        assert_eq!(d.stats().unreachable, 7);
        d.forget(p);
        assert_eq!(d.tracked(), 0);
        assert_eq!(d.start(now, p, now), Ok(()), "forgotten: no back-off left");
    }

    #[test]
    fn a_lost_peer_is_redialled_only_after_a_newer_beacon() {
        let t0 = Instant::now();
        let mut d = DialLimits::new();
        let p = NodeId(3);
        let heard = t0;
        d.lost(t0 + Duration::from_millis(10), p);
        let later = t0 + Duration::from_secs(5);
        assert_eq!(d.start(later, p, heard), Err(Deferred::LostSilent));
        assert_eq!(d.start(later, p, later), Ok(()));
        d.finished(later, p, DialOutcome::Connected);
        assert_eq!(d.tracked(), 0);
    }
}
