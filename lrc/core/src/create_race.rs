//! The create race: with no server, two LRCs may create the same federation execution at about
//! the same time, and only one may succeed (the other gets `FederationExecutionAlreadyExists`).
//!
//! Each creator claims the name in its discovery beacons with the wall-clock time of its claim
//! and waits a settle interval — three beacon periods and a margin, so that every concurrent
//! claimant has heard every other's beacon. Then a beacon that lists the federation as open
//! beats every claim, and among the claims the lowest `(claim time, node id)` wins. Beacons are
//! authenticated before they get here (`hlamesh_transport::beacon_auth`), so nobody without the
//! deployment's secret or certificate can make a create fail.
//!
//! Sans-I/O: the shell reads the wall clock for the claim, publishes it in its beacons, sleeps
//! until [`CreateRace::decide_at`] and hands over what it heard.

use std::time::Duration;

use crate::core::Node;

/// Margin added to three beacon periods before the race is decided.
const SETTLE_MARGIN: Duration = Duration::from_millis(50);

/// One node's beacon as the race reads it.
#[derive(Clone, Copy, Debug)]
pub struct Heard<'a> {
    /// The node.
    pub node: Node,
    /// Federations it has open.
    pub federations: &'a [String],
    /// Its claims: (federation name, claim time in µs since the Unix epoch).
    pub claims: &'a [(String, u64)],
}

/// How a create race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nobody else has it open or claimed it earlier: create it.
    Won,
    /// Another node has it open, or claimed it first.
    Exists,
}

/// One create in progress.
#[derive(Clone, Debug)]
pub struct CreateRace {
    name: String,
    me: Node,
    claim_time_us: u64,
    decide_at: u64,
}

impl CreateRace {
    /// Starts the race for `name` at `now` (µs, the shell's clock) with this node's claim made
    /// at `claim_time_us` (wall clock, µs since the Unix epoch), for nodes beaconing every
    /// `beacon_interval`.
    pub fn start(
        now: u64,
        name: &str,
        me: Node,
        claim_time_us: u64,
        beacon_interval: Duration,
    ) -> CreateRace {
        let settle = beacon_interval * 3 + SETTLE_MARGIN;
        CreateRace {
            name: name.to_string(),
            me,
            claim_time_us,
            decide_at: now + u64::try_from(settle.as_micros()).unwrap_or(u64::MAX),
        }
    }

    /// The claim this node puts in its beacons while the race runs: (name, claim time).
    pub fn claim(&self) -> (&str, u64) {
        (&self.name, self.claim_time_us)
    }

    /// When (µs, the shell's clock) the race can be decided.
    pub fn decide_at(&self) -> u64 {
        self.decide_at
    }

    /// The verdict at `now` from the beacons heard, or `None` before [`CreateRace::decide_at`].
    pub fn verdict<'a>(
        &self,
        now: u64,
        heard: impl IntoIterator<Item = Heard<'a>>,
    ) -> Option<Verdict> {
        if now < self.decide_at {
            return None;
        }
        let mine = (self.claim_time_us, self.me);
        let beaten = heard.into_iter().filter(|h| h.node != self.me).any(|h| {
            h.federations.contains(&self.name)
                || h.claims
                    .iter()
                    .any(|(n, t)| *n == self.name && (*t, h.node) < mine)
        });
        Some(if beaten {
            Verdict::Exists
        } else {
            Verdict::Won
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERIOD: Duration = Duration::from_millis(200);

    fn race(me: Node, at: u64) -> CreateRace {
        CreateRace::start(1_000, "F", me, at, PERIOD)
    }

    fn claims(name: &str, at: u64) -> Vec<(String, u64)> {
        vec![(name.to_string(), at)]
    }

    #[test]
    fn the_race_is_decided_after_three_beacon_periods() {
        let r = race(5, 100);
        assert_eq!(r.decide_at(), 1_000 + 650_000);
        assert_eq!(r.verdict(r.decide_at() - 1, []), None);
        assert_eq!(r.verdict(r.decide_at(), []), Some(Verdict::Won));
        assert_eq!(r.claim(), ("F", 100));
    }

    #[test]
    fn the_earlier_claim_wins_and_equal_times_go_to_the_lower_node() {
        let r = race(5, 100);
        let t = r.decide_at();
        let earlier = claims("F", 99);
        let later = claims("F", 101);
        let same = claims("F", 100);
        let verdict = |node, c: &Vec<(String, u64)>| {
            r.verdict(
                t,
                [Heard {
                    node,
                    federations: &[],
                    claims: c,
                }],
            )
        };
        assert_eq!(verdict(9, &earlier), Some(Verdict::Exists));
        assert_eq!(verdict(9, &later), Some(Verdict::Won));
        assert_eq!(verdict(4, &same), Some(Verdict::Exists));
        assert_eq!(verdict(6, &same), Some(Verdict::Won));
        // Claims for another name, and this node's own beacon, do not count.
        assert_eq!(verdict(9, &claims("G", 1)), Some(Verdict::Won));
        assert_eq!(verdict(5, &earlier), Some(Verdict::Won));
    }

    #[test]
    fn a_federation_already_open_beats_every_claim() {
        let r = race(1, 0);
        let open = vec!["F".to_string()];
        let v = r.verdict(
            r.decide_at(),
            [Heard {
                node: 9,
                federations: &open,
                claims: &[],
            }],
        );
        assert_eq!(v, Some(Verdict::Exists));
    }
}
