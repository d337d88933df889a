//! Wall-clock offset between two nodes, NTP style, without I/O.
//!
//! A probe carries four timestamps (nanoseconds on each node's own wall clock): `t1` local
//! send, `t2` remote receive, `t3` remote send, `t4` local receive. From one probe,
//! `offset = ((t2 − t1) + (t3 − t4)) / 2` (remote minus local) and
//! `rtt = (t4 − t1) − (t3 − t2)`. Whatever the split of the round trip between the two
//! directions, the true offset lies within `rtt / 2` of that estimate, so the probe with the
//! smallest round trip in a recent window gives the tightest bound. As the chosen probe ages,
//! the two clocks may drift apart; the bound grows by a configured drift allowance
//! (parts per million of the probe's age). Each probe costs O(window) — run it continuously.
//!
//! Used for cross-node one-way latency metrics; logical time never depends on it.

use std::collections::VecDeque;

/// A probe's timestamps do not describe a possible exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The local receive is before the local send, or the remote send before the remote receive.
    #[error("probe timestamps run backwards")]
    Backwards,
    /// The remote node held the probe longer than the whole round trip.
    #[error("probe round trip is negative")]
    NegativeRoundTrip,
}

/// One completed probe, in nanoseconds on the clock of the node that took each timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// Local send.
    pub t1: u64,
    /// Remote receive.
    pub t2: u64,
    /// Remote send.
    pub t3: u64,
    /// Local receive.
    pub t4: u64,
}

impl Probe {
    /// Remote minus local clock according to this probe, and its round trip.
    pub fn offset_and_rtt(&self) -> Result<(i64, u64), ProbeError> {
        if self.t4 < self.t1 || self.t3 < self.t2 {
            return Err(ProbeError::Backwards);
        }
        let rtt = i128::from(self.t4 - self.t1) - i128::from(self.t3 - self.t2);
        if rtt < 0 {
            return Err(ProbeError::NegativeRoundTrip);
        }
        let sum = (i128::from(self.t2) - i128::from(self.t1))
            + (i128::from(self.t3) - i128::from(self.t4));
        let offset = (sum / 2).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        Ok((offset, u64::try_from(rtt).unwrap_or(u64::MAX)))
    }
}

/// The current estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetEstimate {
    /// Remote clock minus local clock, nanoseconds.
    pub offset_ns: i64,
    /// The true offset lies within `offset_ns ± error_bound_ns` (given the drift allowance).
    pub error_bound_ns: u64,
    /// Round trip of the probe the estimate comes from.
    pub rtt_ns: u64,
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    taken_at: u64,
    offset: i64,
    rtt: u64,
}

/// Minimum-round-trip filter over the last `window` probes.
#[derive(Debug, Clone)]
pub struct ClockOffsetEstimator {
    window: usize,
    drift_ppm: u64,
    samples: VecDeque<Sample>,
    rejected: u64,
}

impl ClockOffsetEstimator {
    /// Keeps the last `window` probes (at least 1); `drift_ppm` bounds how fast the two clocks
    /// may drift apart (e.g. 100 for ordinary crystals under NTP discipline).
    pub fn new(window: usize, drift_ppm: u64) -> Self {
        Self {
            window: window.max(1),
            drift_ppm,
            samples: VecDeque::new(),
            rejected: 0,
        }
    }

    /// Adds a completed probe; an impossible one is rejected and counted.
    pub fn add_probe(&mut self, probe: Probe) -> Result<(), ProbeError> {
        let (offset, rtt) = probe.offset_and_rtt().inspect_err(|_| self.rejected += 1)?;
        if self.samples.len() == self.window {
            self.samples.pop_front();
        }
        self.samples.push_back(Sample {
            taken_at: probe.t4,
            offset,
            rtt,
        });
        Ok(())
    }

    /// Probes rejected so far.
    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// The estimate at local time `now_ns`: the sample with the smallest bound at that time.
    pub fn estimate(&self, now_ns: u64) -> Option<OffsetEstimate> {
        self.samples
            .iter()
            .map(|s| {
                let age = now_ns.saturating_sub(s.taken_at);
                let drift = u64::try_from(u128::from(age) * u128::from(self.drift_ppm) / 1_000_000)
                    .unwrap_or(u64::MAX);
                let bound = s.rtt.div_ceil(2).saturating_add(drift);
                OffsetEstimate {
                    offset_ns: s.offset,
                    error_bound_ns: bound,
                    rtt_ns: s.rtt,
                }
            })
            .min_by_key(|e| e.error_bound_ns)
    }

    /// Converts a remote timestamp into local clock time using the current estimate.
    pub fn remote_to_local(&self, remote_ns: u64, now_ns: u64) -> Option<u64> {
        let e = self.estimate(now_ns)?;
        let local = i128::from(remote_ns) - i128::from(e.offset_ns);
        u64::try_from(local.max(0)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_probe_gives_exact_offset() {
        // Remote is 1 ms ahead; 100 µs each way; remote holds it 10 µs.
        let p = Probe {
            t1: 1_000_000,
            t2: 2_100_000,
            t3: 2_110_000,
            t4: 1_210_000,
        };
        assert_eq!(p.offset_and_rtt(), Ok((1_000_000, 200_000)));
    }

    #[test]
    fn impossible_probes_are_rejected() {
        let mut e = ClockOffsetEstimator::new(8, 100);
        assert_eq!(
            e.add_probe(Probe {
                t1: 10,
                t2: 5,
                t3: 4,
                t4: 20
            }),
            Err(ProbeError::Backwards)
        );
        assert_eq!(
            e.add_probe(Probe {
                t1: 10,
                t2: 0,
                t3: 100,
                t4: 20
            }),
            Err(ProbeError::NegativeRoundTrip)
        );
        assert_eq!(
            e.add_probe(Probe {
                t1: 10,
                t2: 0,
                t3: 0,
                t4: 5
            }),
            Err(ProbeError::Backwards)
        );
        assert_eq!(e.rejected(), 3);
        assert_eq!(e.estimate(100), None);
    }

    #[test]
    fn bound_grows_with_age_by_the_drift_allowance() {
        let mut e = ClockOffsetEstimator::new(4, 100);
        e.add_probe(Probe {
            t1: 0,
            t2: 500,
            t3: 500,
            t4: 1_000,
        })
        .expect("valid");
        assert_eq!(e.estimate(1_000).map(|x| x.error_bound_ns), Some(500));
        // One second later: 100 ppm of 1 s = 100 µs more.
        assert_eq!(
            e.estimate(1_000_001_000).map(|x| x.error_bound_ns),
            Some(100_500)
        );
    }

    #[test]
    fn window_forgets_old_probes() {
        let mut e = ClockOffsetEstimator::new(2, 0);
        e.add_probe(Probe {
            t1: 0,
            t2: 10,
            t3: 10,
            t4: 20,
        })
        .expect("valid"); // rtt 20
        e.add_probe(Probe {
            t1: 100,
            t2: 200,
            t3: 200,
            t4: 300,
        })
        .expect("valid"); // rtt 200
        assert_eq!(e.estimate(300).map(|x| x.rtt_ns), Some(20));
        e.add_probe(Probe {
            t1: 400,
            t2: 500,
            t3: 500,
            t4: 600,
        })
        .expect("valid"); // rtt 200
        assert_eq!(e.estimate(600).map(|x| x.rtt_ns), Some(200));
    }
}
