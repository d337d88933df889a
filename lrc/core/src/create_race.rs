//! The create race: with no server, two LRCs may create the same federation execution at about
//! the same time, and only one may succeed (the other gets `FederationExecutionAlreadyExists`).
//!
//! # The rule
//!
//! A creator claims the name in its discovery beacons with the wall-clock time of its claim, and
//! its beacons *acknowledge* the claims of the other creators of that name it has heard (an
//! acknowledgement names the node, the federation and the claim time). Then:
//!
//! 1. A beacon that lists the federation as open beats every claim: [`Verdict::Exists`] at once.
//! 2. A claim lower than ours in `(claim time, node id)` beats ours: [`Verdict::Exists`] at once
//!    (deciding `Exists` is never unsafe; the lower claimant decides for itself).
//! 3. [`Verdict::Won`] on the fast path needs all of:
//!    - the **barrier**: our claim's first beacon came back to us on the multicast loopback (at
//!      `e`, as we observed it), then a beacon of ours built at least `min_settle` after `e`
//!      came back too. The discovery socket is first-in first-out and one thread reads it, so
//!      every beacon that reached our socket before that one has been read, however long the
//!      discovery or LRC threads were kept off the CPU;
//!    - every other claimant we know of acknowledges our claim, or no longer claims (it decided
//!      `Exists`, or gave up). Claimants are remembered, so one whose beacons stop reaching us
//!      (or whose table entry expires) is still waited for.
//! 4. A known claimant that neither acknowledges nor withdraws is waited for up to `max_settle`
//!    (three beacon periods and a margin: the settle interval of the rule before this one);
//!    then the old rule decides: no open federation heard and our claim the lowest known →
//!    `Won`. A node whose own beacons never come back (multicast loopback off, or its
//!    certificate fails its own check) decides the same way at `max_settle`.
//!
//! While it waits, a claimant announces its claim at once and again a few times a gap apart
//! (against the loss of one announcement), solicits beacons, and later announces and solicits
//! again every few gaps while a known claimant has not answered. Acknowledgements are published
//! whenever the set of claimants heard changes; a published acknowledgement is only ever of a
//! claim this race remembers, so whatever it acknowledged counts in its own verdict.
//!
//! # Why two claimants never both win
//!
//! Let X and Y both decide `Won` for the same name; claims never change, so `(time, node)`
//! orders them the same way on both.
//!
//! - **One knew the other** (say Y's claim was in X's memory when X decided). X decided on the
//!   fast path, so Y had acknowledged X's claim before X decided, or X decided at `max_settle` by
//!   the old rule. An acknowledgement is published only while the race runs, from the race's
//!   memory, so Y knew X's claim when it decided and compared the same two claims: only the
//!   lower one can have decided `Won`. If X decided by the old rule without Y's
//!   acknowledgement, X's claim is lower than Y's; Y then decided `Won` only if it never knew
//!   X's claim, which needs every beacon of X's to have missed Y for the whole fast path (X
//!   announces several times, and answers Y's solicits) and then, for Y's `Won` to stand
//!   unseen, Y's open federation to miss X through `max_settle`, while X keeps soliciting: a
//!   partition, in which the rule before this one failed the same way.
//! - **Neither knew the other**. Let `δ` bound the time a multicast beacon takes to reach the
//!   other's socket after reaching its sender's own (network latency, not CPU). Y never read
//!   X's claim before its barrier beacon came back, and the socket is FIFO, so X's first claim
//!   reached Y's socket after Y's barrier beacon did: `e_X + δ > b_Y ≥ e_Y + min_settle`, where
//!   `b` is when the barrier beacon was built. Likewise `e_Y + δ > e_X + min_settle`. Adding
//!   both: `δ > min_settle`. So with network latency below `min_settle` (tens of ms against
//!   a LAN's sub-millisecond), one of them knew the other — whatever the CPU load, clock skew
//!   (claim times only order known claims; nothing here compares them with a clock) or how late
//!   in the other's settle window one started. Losing every announcement of one node to the
//!   other during the fast path breaks this, as losing every beacon for 650 ms broke the rule
//!   before this one.
//!
//! What neither this nor the old rule can know about is a node never heard at all: a node that
//! already has the federation open, or decided its race, before our socket opened, is heard
//! only when it answers our solicit or announcement (or at its next periodic beacon). The fast
//! path assumes it answers within `min_settle`; the old rule assumed within three beacon
//! periods. A deployment that expects LRCs to be kept off the CPU longer sets a longer
//! `create_settle` (transport configuration); `max_settle` always bounds it.
//!
//! Beacons are authenticated before they get here (`hlamesh_transport::beacon_auth`), including
//! their claims and acknowledgements, so nobody without the deployment's secret or certificate
//! can make a create fail or win.
//!
//! Sans-I/O: the shell reads the wall clock for the claim, publishes the claim and the
//! acknowledgements ([`CreateRace::acks`]) in its beacons when [`Step::publish`] says so and
//! reports the number of the last beacon built before ([`CreateRace::published`]); it hands
//! over the beacons it holds and the newest number of its own beacons heard back
//! ([`CreateRace::step`]), and sleeps until [`Step::wake_at`] or the next beacon.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::core::Node;

/// Margin added to three beacon periods for [`RaceTiming::max_settle`].
const SETTLE_MARGIN: Duration = Duration::from_millis(50);
/// Announcements of a new claim after the first, a gap apart.
const START_REPEATS: u32 = 2;
/// While a known claimant has not answered, announce and solicit every this many gaps.
const WAITING_GAPS: u32 = 4;

/// One node's beacon as the race reads it.
#[derive(Clone, Copy, Debug)]
pub struct Heard<'a> {
    /// The node.
    pub node: Node,
    /// Federations it has open.
    pub federations: &'a [String],
    /// Its claims: (federation name, claim time in µs since the Unix epoch).
    pub claims: &'a [(String, u64)],
    /// Claims of other nodes it acknowledges having heard: (node, federation name, claim time).
    pub acks: &'a [(Node, String, u64)],
}

/// How a create race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nobody else has it open or claimed it earlier: create it.
    Won,
    /// Another node has it open, or claimed it first.
    Exists,
}

/// The race's time constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceTiming {
    /// Least time from our claim's first beacon heard back to the barrier beacon's building.
    pub min_settle: Duration,
    /// Longest wait for a known claimant's answer; then the old rule decides.
    pub max_settle: Duration,
    /// Time between repeated announcements (the transport's least gap between two beacons).
    pub gap: Duration,
}

impl RaceTiming {
    /// The timing for nodes beaconing every `beacon_interval`, at most one beacon per `min_gap`,
    /// with a fast path of `min_settle` (capped at `max_settle`).
    pub fn new(beacon_interval: Duration, min_gap: Duration, min_settle: Duration) -> RaceTiming {
        let max_settle = beacon_interval * 3 + SETTLE_MARGIN;
        RaceTiming {
            min_settle: min_settle.min(max_settle),
            max_settle,
            gap: min_gap.max(Duration::from_millis(1)),
        }
    }
}

/// What the shell does after [`CreateRace::step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The race is over.
    pub verdict: Option<Verdict>,
    /// Put the claim and [`CreateRace::acks`] in this node's beacons, send a beacon now, and
    /// report the number of the last beacon built before them with [`CreateRace::published`].
    pub publish: bool,
    /// Send that beacon within the transport's least gap between beacons too: the claim's first
    /// announcement and the barrier beacon, so at most twice a race.
    pub urgent: bool,
    /// Multicast a query for beacons.
    pub solicit: bool,
    /// Call [`CreateRace::step`] again at this time (µs, the shell's clock) at the latest, or
    /// when a beacon arrives.
    pub wake_at: u64,
}

/// Another claimant as this race remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rival {
    claim_time_us: u64,
    acked_us: bool,
}

/// One create in progress.
#[derive(Clone, Debug)]
pub struct CreateRace {
    name: String,
    me: Node,
    claim_time_us: u64,
    started: u64,
    min_settle_us: u64,
    max_settle_us: u64,
    gap_us: u64,
    /// Beacons numbered above this carry the claim (known once published).
    claim_seq: Option<u64>,
    /// When our claim's first beacon was seen heard back.
    echo_at: Option<u64>,
    /// Beacons numbered above this were built at least `min_settle` after `echo_at`.
    barrier_seq: Option<u64>,
    barrier_heard: bool,
    rivals: BTreeMap<Node, Rival>,
    /// The acknowledgements the last publication carried.
    published_acks: Vec<(Node, u64)>,
    repeats_left: u32,
    next_nudge: u64,
    verdict: Option<Verdict>,
}

fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl CreateRace {
    /// Starts the race for `name` at `now` (µs, the shell's clock) with this node's claim made
    /// at `claim_time_us` (wall clock, µs since the Unix epoch).
    pub fn start(
        now: u64,
        name: &str,
        me: Node,
        claim_time_us: u64,
        timing: RaceTiming,
    ) -> CreateRace {
        CreateRace {
            name: name.to_string(),
            me,
            claim_time_us,
            started: now,
            min_settle_us: us(timing.min_settle),
            max_settle_us: us(timing.max_settle),
            gap_us: us(timing.gap).max(1),
            claim_seq: None,
            echo_at: None,
            barrier_seq: None,
            barrier_heard: false,
            rivals: BTreeMap::new(),
            published_acks: Vec::new(),
            repeats_left: START_REPEATS,
            next_nudge: now,
            verdict: None,
        }
    }

    /// The claim this node puts in its beacons while the race runs: (name, claim time).
    pub fn claim(&self) -> (&str, u64) {
        (&self.name, self.claim_time_us)
    }

    /// The claims of other nodes to acknowledge in this node's beacons: (node, claim time), for
    /// this race's federation.
    pub fn acks(&self) -> Vec<(Node, u64)> {
        self.rivals
            .iter()
            .map(|(n, r)| (*n, r.claim_time_us))
            .collect()
    }

    /// When (µs, the shell's clock) this race first saw its claim's beacon heard back.
    pub fn echo_at(&self) -> Option<u64> {
        self.echo_at
    }

    /// When the old rule decides at the latest (µs, the shell's clock).
    pub fn deadline(&self) -> u64 {
        self.started.saturating_add(self.max_settle_us)
    }

    /// The shell published the claim and [`CreateRace::acks`] at `now`; `last_seq` is the number
    /// of the last beacon built before, so every beacon numbered above it carries them.
    pub fn published(&mut self, now: u64, last_seq: u64) {
        self.published_acks = self.acks();
        if self.claim_seq.is_none() {
            self.claim_seq = Some(last_seq);
        } else if self.barrier_seq.is_none()
            && self
                .echo_at
                .is_some_and(|e| now >= e.saturating_add(self.min_settle_us))
        {
            self.barrier_seq = Some(last_seq);
        }
    }

    /// One turn at `now`: `own_echo` is the highest number of this node's own beacons heard
    /// back (0: none), `heard` the beacons of the other nodes, read together with it.
    pub fn step<'a>(
        &mut self,
        now: u64,
        own_echo: u64,
        heard: impl IntoIterator<Item = Heard<'a>>,
    ) -> Step {
        if let Some(v) = self.verdict {
            return self.done(now, v);
        }
        if self.read(heard) {
            return self.decide(now, Verdict::Exists);
        }
        let mine = (self.claim_time_us, self.me);
        if self
            .rivals
            .iter()
            .any(|(n, r)| (r.claim_time_us, *n) < mine)
        {
            return self.decide(now, Verdict::Exists);
        }
        if self.claim_seq.is_some_and(|s| own_echo > s) && self.echo_at.is_none() {
            self.echo_at = Some(now);
        }
        if self.barrier_seq.is_some_and(|b| own_echo > b) {
            self.barrier_heard = true;
        }
        let answered = self.rivals.values().all(|r| r.acked_us);
        if (self.barrier_heard && answered) || now >= self.deadline() {
            // Fast path, or the old rule at the deadline: nothing open heard, ours the lowest.
            return self.decide(now, Verdict::Won);
        }
        let barrier_due = self.echo_at.map(|e| e.saturating_add(self.min_settle_us));
        let mut step = Step {
            verdict: None,
            publish: self.claim_seq.is_none() || self.published_acks != self.acks(),
            urgent: self.claim_seq.is_none(),
            solicit: self.claim_seq.is_none(),
            wake_at: self.deadline(),
        };
        if self.barrier_seq.is_none()
            && let Some(due) = barrier_due
        {
            if now >= due {
                step.publish = true;
                step.urgent = true;
            } else {
                step.wake_at = step.wake_at.min(due);
            }
        }
        // Repeats against a lost announcement, then nudges while a known claimant is silent.
        let waiting = barrier_due.is_some_and(|d| now >= d) && !answered;
        if self.barrier_seq.is_none() && barrier_due.is_some_and(|d| now + self.gap_us > d) {
            // The barrier beacon (which carries the claim too) is the next announcement: a
            // repeat now would only push it a gap later (one beacon per gap).
            self.repeats_left = 0;
        }
        let nudging = self.repeats_left > 0 || waiting;
        if now >= self.next_nudge && nudging {
            step.publish = true;
            if self.claim_seq.is_some() && self.repeats_left > 0 {
                self.repeats_left -= 1;
            }
            step.solicit |= waiting;
            let gaps = if waiting { WAITING_GAPS } else { 1 };
            self.next_nudge = now.saturating_add(self.gap_us * u64::from(gaps));
        }
        if nudging {
            step.wake_at = step.wake_at.min(self.next_nudge.max(now));
        }
        step
    }

    /// Reads the beacons into the race's memory; true when one lists the federation as open.
    fn read<'a>(&mut self, heard: impl IntoIterator<Item = Heard<'a>>) -> bool {
        let me = self.me;
        let mine = self.claim_time_us;
        for h in heard.into_iter().filter(|h| h.node != me) {
            if h.federations.contains(&self.name) {
                return true;
            }
            let claim = h
                .claims
                .iter()
                .find(|(n, _)| *n == self.name)
                .map(|(_, t)| *t);
            let Some(t) = claim else {
                // No claim (any more): it decided `Exists` or gave up, and will not create.
                self.rivals.remove(&h.node);
                continue;
            };
            let acks = h
                .acks
                .iter()
                .any(|(n, f, at)| *n == me && *at == mine && *f == self.name);
            let r = self.rivals.entry(h.node).or_insert(Rival {
                claim_time_us: t,
                acked_us: false,
            });
            if r.claim_time_us != t {
                // A new claim of that node (a later create): its answer must be to this one.
                *r = Rival {
                    claim_time_us: t,
                    acked_us: false,
                };
            }
            r.acked_us |= acks;
        }
        false
    }

    fn decide(&mut self, now: u64, v: Verdict) -> Step {
        self.verdict = Some(v);
        self.done(now, v)
    }

    fn done(&self, now: u64, v: Verdict) -> Step {
        Step {
            verdict: Some(v),
            publish: false,
            urgent: false,
            solicit: false,
            wake_at: now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000;
    const T0: u64 = 1_000_000;

    fn timing() -> RaceTiming {
        RaceTiming::new(
            Duration::from_millis(200),
            Duration::from_millis(10),
            Duration::from_millis(20),
        )
    }

    fn race(me: Node, at: u64) -> CreateRace {
        CreateRace::start(T0, "F", me, at, timing())
    }

    /// One beacon as a shell holds it.
    #[derive(Clone, Default)]
    struct B {
        node: Node,
        federations: Vec<String>,
        claims: Vec<(String, u64)>,
        acks: Vec<(Node, String, u64)>,
    }

    impl B {
        fn new(node: Node) -> B {
            B {
                node,
                ..B::default()
            }
        }
        fn claim(mut self, at: u64) -> B {
            self.claims.push(("F".into(), at));
            self
        }
        fn ack(mut self, node: Node, at: u64) -> B {
            self.acks.push((node, "F".into(), at));
            self
        }
        fn open(mut self) -> B {
            self.federations.push("F".into());
            self
        }
        fn heard(&self) -> Heard<'_> {
            Heard {
                node: self.node,
                federations: &self.federations,
                claims: &self.claims,
                acks: &self.acks,
            }
        }
    }

    /// One step; checks that an undecided race that asks for nothing sleeps (no busy loop).
    fn step(r: &mut CreateRace, now: u64, echo: u64, bs: &[B]) -> Step {
        let s = r.step(now, echo, bs.iter().map(B::heard));
        assert!(
            s.verdict.is_some() || s.publish || s.wake_at > now,
            "{s:?} at {now}"
        );
        s
    }

    /// Runs the start of a race alone: published as beacon 11 (last built: 10), heard back at
    /// T0 + 1 ms, the barrier published at T0 + 21 ms as beacon 13 (last built: 12).
    fn to_barrier(r: &mut CreateRace, bs: &[B]) -> Step {
        let s = step(r, T0, 0, bs);
        assert!(
            s.publish && s.urgent && s.solicit,
            "the claim is announced at once"
        );
        r.published(T0, 10);
        let s = step(r, T0 + MS, 11, bs);
        assert_eq!(s.verdict, None);
        assert!(!s.urgent);
        assert!(s.wake_at <= T0 + 21 * MS);
        let s = step(r, T0 + 21 * MS, 12, bs);
        assert_eq!(s.verdict, None, "the barrier is not heard yet");
        assert!(s.publish && s.urgent, "the barrier beacon is asked for");
        r.published(T0 + 21 * MS, 12);
        s
    }

    #[test]
    fn alone_the_race_is_won_once_the_barrier_beacon_comes_back() {
        let mut r = race(5, 100);
        to_barrier(&mut r, &[]);
        assert_eq!(step(&mut r, T0 + 22 * MS, 12, &[]).verdict, None);
        assert_eq!(
            step(&mut r, T0 + 22 * MS, 13, &[]).verdict,
            Some(Verdict::Won)
        );
        assert_eq!(r.claim(), ("F", 100));
        // A decided race stays decided.
        let s = step(&mut r, T0 + 30 * MS, 13, &[B::new(9).open()]);
        assert_eq!(s.verdict, Some(Verdict::Won));
        assert!(!s.publish);
    }

    #[test]
    fn the_settle_time_counts_from_the_claims_echo_not_from_the_start() {
        let mut r = race(5, 100);
        step(&mut r, T0, 0, &[]);
        r.published(T0, 10);
        // Our beacon thread or discovery thread was starved: the claim comes back 15 ms late.
        let s = step(&mut r, T0 + 15 * MS, 11, &[]);
        assert_eq!(s.verdict, None);
        assert!(s.wake_at <= T0 + 35 * MS);
        // A beacon built 21 ms after the start but 6 ms after the echo is no barrier.
        r.published(T0 + 21 * MS, 11);
        assert_eq!(r.barrier_seq, None);
        assert_eq!(step(&mut r, T0 + 25 * MS, 12, &[]).verdict, None);
        let s = step(&mut r, T0 + 35 * MS, 12, &[]);
        assert!(s.publish, "the barrier is asked for 20 ms after the echo");
        r.published(T0 + 35 * MS, 12);
        assert_eq!(
            step(&mut r, T0 + 36 * MS, 13, &[]).verdict,
            Some(Verdict::Won)
        );
    }

    #[test]
    fn a_claim_announced_before_the_barrier_is_read_before_deciding() {
        // The other claim arrived before our barrier beacon: with a FIFO socket it is in the
        // table when the barrier's echo is; it has not acknowledged us, so we wait.
        let mut r = race(5, 100);
        let other = [B::new(9).claim(200)];
        to_barrier(&mut r, &other);
        let s = step(&mut r, T0 + 22 * MS, 13, &other);
        assert_eq!(s.verdict, None, "a known claimant has not acknowledged");
        // Its acknowledgement arrives: ours is the lower claim, so we win.
        let acked = [B::new(9).claim(200).ack(5, 100)];
        assert_eq!(
            step(&mut r, T0 + 23 * MS, 13, &acked).verdict,
            Some(Verdict::Won)
        );
    }

    #[test]
    fn a_lower_claim_or_an_open_federation_beats_ours_at_once() {
        let mut r = race(5, 100);
        let s = step(&mut r, T0, 0, &[B::new(9).claim(99)]);
        assert_eq!(s.verdict, Some(Verdict::Exists), "earlier claim");
        let mut r = race(5, 100);
        let s = step(&mut r, T0, 0, &[B::new(4).claim(100)]);
        assert_eq!(s.verdict, Some(Verdict::Exists), "same time, lower node");
        let mut r = race(5, 100);
        // An open federation beats even a later claim of ours that everyone acknowledged.
        let s = step(&mut r, T0, 0, &[B::new(9).open()]);
        assert_eq!(s.verdict, Some(Verdict::Exists));
        // Claims for another name, and this node's own beacon, do not count.
        let mut r = race(5, 100);
        let other_name = B {
            node: 9,
            claims: vec![("G".into(), 1)],
            federations: vec!["G".into()],
            ..B::default()
        };
        let own = B::new(5).claim(1);
        to_barrier(&mut r, &[other_name.clone(), own.clone()]);
        assert_eq!(
            step(&mut r, T0 + 22 * MS, 13, &[other_name, own]).verdict,
            Some(Verdict::Won)
        );
    }

    #[test]
    fn acknowledgements_are_published_for_every_claimant_heard() {
        let mut r = race(5, 100);
        let s = step(&mut r, T0, 0, &[B::new(9).claim(200)]);
        assert!(s.publish);
        assert_eq!(r.acks(), vec![(9, 200)]);
        r.published(T0, 10);
        // Nothing new: no publication beyond the start's repeats.
        let s = step(&mut r, T0 + MS, 0, &[B::new(9).claim(200)]);
        assert!(!s.publish);
        // Another claimant: published at once.
        let s = step(
            &mut r,
            T0 + 2 * MS,
            0,
            &[B::new(9).claim(200), B::new(7).claim(300)],
        );
        assert!(s.publish);
        assert_eq!(r.acks(), vec![(7, 300), (9, 200)]);
    }

    #[test]
    fn an_acknowledgement_of_another_claim_or_time_does_not_count() {
        let mut r = race(5, 100);
        let wrong = [B::new(9).claim(200).ack(5, 99).ack(6, 100)];
        to_barrier(&mut r, &wrong);
        assert_eq!(step(&mut r, T0 + 22 * MS, 13, &wrong).verdict, None);
        let other_name = [B {
            node: 9,
            claims: vec![("F".into(), 200)],
            acks: vec![(5, "G".into(), 100)],
            ..B::default()
        }];
        assert_eq!(step(&mut r, T0 + 23 * MS, 13, &other_name).verdict, None);
        // A new claim of the node needs a new acknowledgement.
        let mut r = race(5, 100);
        let acked = [B::new(9).claim(200).ack(5, 100)];
        step(&mut r, T0, 0, &acked);
        let renewed = [B::new(9).claim(250)];
        to_barrier(&mut r, &renewed);
        assert_eq!(step(&mut r, T0 + 22 * MS, 13, &renewed).verdict, None);
    }

    #[test]
    fn a_claimant_that_withdraws_is_no_longer_waited_for() {
        let mut r = race(5, 100);
        to_barrier(&mut r, &[B::new(9).claim(200)]);
        assert_eq!(
            step(&mut r, T0 + 22 * MS, 13, &[B::new(9).claim(200)]).verdict,
            None
        );
        // Its next beacon no longer claims: it decided Exists.
        assert_eq!(
            step(&mut r, T0 + 23 * MS, 13, &[B::new(9)]).verdict,
            Some(Verdict::Won)
        );
    }

    #[test]
    fn a_claimant_whose_beacons_stop_is_remembered_and_waited_for() {
        let mut r = race(5, 100);
        step(&mut r, T0, 0, &[B::new(9).claim(200)]);
        // Its entry left the table (expired, or the shell lost it): still waited for.
        to_barrier(&mut r, &[]);
        let s = step(&mut r, T0 + 22 * MS, 13, &[]);
        assert_eq!(s.verdict, None);
        assert_eq!(r.acks(), vec![(9, 200)]);
    }

    #[test]
    fn a_silent_claimant_is_waited_for_until_the_old_rule_decides() {
        let timing = timing();
        let deadline = T0 + us(timing.max_settle);
        assert_eq!(timing.max_settle, Duration::from_millis(650));
        // Higher and silent: the old rule lets the lower claim win at the deadline.
        let mut r = race(5, 100);
        let silent = [B::new(9).claim(200)];
        to_barrier(&mut r, &silent);
        let mut nudges = 0;
        let mut now = T0 + 22 * MS;
        // Bounded: the wake-ups lead to the deadline.
        for _ in 0..1_000 {
            let s = step(&mut r, now, 13, &silent);
            if let Some(v) = s.verdict {
                assert_eq!(v, Verdict::Won);
                break;
            }
            assert!(s.wake_at > now && s.wake_at <= deadline, "{s:?} at {now}");
            if s.solicit {
                nudges += 1;
                r.published(now, 20);
            }
            now = s.wake_at;
        }
        assert_eq!(r.verdict, Some(Verdict::Won));
        assert_eq!(now, deadline, "not before the deadline");
        // It was asked again and again, a few gaps apart.
        assert!((10..=20).contains(&nudges), "{nudges} nudges");
        // An open federation heard at any time still beats it.
        let mut r = race(5, 100);
        to_barrier(&mut r, &silent);
        let late = [B::new(9).claim(200), B::new(3).open()];
        assert_eq!(
            step(&mut r, deadline, 13, &late).verdict,
            Some(Verdict::Exists)
        );
    }

    #[test]
    fn without_our_own_echo_the_old_rule_decides_at_the_deadline() {
        // Multicast loopback off, or our certificate fails our own check: no barrier.
        let mut r = race(5, 100);
        step(&mut r, T0, 0, &[]);
        r.published(T0, 10);
        let deadline = r.deadline();
        let s = step(&mut r, T0 + 100 * MS, 0, &[]);
        assert_eq!(s.verdict, None);
        assert!(s.wake_at <= deadline);
        assert_eq!(step(&mut r, deadline - 1, 0, &[]).verdict, None);
        assert_eq!(step(&mut r, deadline, 0, &[]).verdict, Some(Verdict::Won));
    }

    #[test]
    fn the_claim_is_repeated_against_loss_then_only_while_waiting() {
        let mut r = race(5, 100);
        let s = step(&mut r, T0, 0, &[]);
        assert!(s.publish);
        r.published(T0, 10);
        let s = step(&mut r, T0, 0, &[]);
        assert!(!s.publish);
        assert_eq!(s.wake_at, T0 + 10 * MS);
        // (No echo: no barrier is asked for in between.)
        let mut repeats = 0;
        for t in [10, 20, 30, 40] {
            let s = step(&mut r, T0 + t * MS, 0, &[]);
            if s.publish {
                repeats += 1;
            }
        }
        assert_eq!(repeats, START_REPEATS);
    }

    /// A node of [`two_claimants`]' simulated network.
    #[derive(Clone)]
    struct SimNode {
        race: CreateRace,
        start: u64,
        seq: u64,
        echo: u64,
        /// The other node's latest beacon as read from the socket.
        table: Option<B>,
        /// Datagrams in the socket: (arrival, own?, seq, beacon).
        inbox: Vec<(u64, bool, u64, B)>,
        /// This node's first `lose` datagrams are lost on the way to the other node.
        lose: usize,
        sent: usize,
        verdict: Option<Verdict>,
    }

    impl SimNode {
        /// What this node's beacons say now.
        fn beacon(&self) -> B {
            let b = B::new(self.race.me);
            match self.verdict {
                Some(Verdict::Won) => b.open(),
                Some(Verdict::Exists) => b,
                None => self
                    .race
                    .published_acks
                    .iter()
                    .fold(b.claim(self.race.claim().1), |b, (n, at)| b.ack(*n, *at)),
            }
        }
    }

    /// Two claimants on a simulated network: a datagram reaches the other node's socket `delay`
    /// after its sender's own (dropped if that socket is not open yet, or lost), each node
    /// reads its socket in order, answers the other's solicits with its current beacon,
    /// announces its federation when it wins and withdraws its claim when it loses. The
    /// second node starts `offset` after the first, and its wall clock is a second behind, so
    /// its claim is the lower one. With `lose_verdicts`, the announcement of each verdict is lost
    /// (the other node learns it only from an answer to its solicits). With `starve`, each
    /// node's discovery thread reads its socket only every `starve` µs (kept off the CPU) while
    /// its race goes on. Returns the verdicts.
    fn two_claimants(
        starve: u64,
        offset: u64,
        delay: u64,
        lose: [usize; 2],
        lose_verdicts: bool,
    ) -> [Verdict; 2] {
        let t = timing();
        let mk = |id: Node, start: u64, claim: u64, lose: usize| SimNode {
            race: CreateRace::start(start, "F", id, claim, t),
            start,
            seq: 0,
            echo: 0,
            table: None,
            inbox: Vec::new(),
            lose,
            sent: 0,
            verdict: None,
        };
        let mut nodes = [
            mk(1, T0, 5_000_000, lose[0]),
            mk(2, T0 + offset, 4_000_000, lose[1]),
        ];
        fn send(
            nodes: &mut [SimNode; 2],
            from: usize,
            now: u64,
            delay: u64,
            own: bool,
            lost: bool,
        ) {
            let b = nodes[from].beacon();
            nodes[from].seq += 1;
            let seq = nodes[from].seq;
            if own {
                nodes[from].inbox.push((now, true, seq, b.clone()));
            }
            nodes[from].sent += 1;
            let to = 1 - from;
            let arrival = now + delay;
            if !lost && nodes[from].sent > nodes[from].lose && arrival >= nodes[to].start {
                nodes[to].inbox.push((arrival, false, seq, b));
            }
        }
        let mut now = T0;
        // Bounded: two simulated seconds in half-millisecond ticks.
        while now < T0 + 2_000 * MS && nodes.iter().any(|n| n.verdict.is_none()) {
            for i in 0..2 {
                if now < nodes[i].start {
                    continue;
                }
                let n = &mut nodes[i];
                n.inbox.sort_by_key(|d| d.0);
                let reads = starve == 0 || (now - n.start).is_multiple_of(starve);
                let k = n.inbox.iter().take_while(|d| reads && d.0 <= now).count();
                for (_, own, seq, b) in n.inbox.drain(..k).collect::<Vec<_>>() {
                    if own {
                        n.echo = n.echo.max(seq);
                    } else {
                        n.table = Some(b);
                    }
                }
                if n.verdict.is_some() {
                    continue;
                }
                let table: Vec<B> = n.table.iter().cloned().collect();
                let echo = n.echo;
                let s = step(&mut n.race, now, echo, &table);
                if let Some(v) = s.verdict {
                    n.verdict = Some(v);
                    // Opened, or withdrawn: announced at once.
                    send(&mut nodes, i, now, delay, false, lose_verdicts);
                    continue;
                }
                if s.publish {
                    let last = n.seq;
                    n.race.published(now, last);
                    send(&mut nodes, i, now, delay, true, false);
                }
                if s.solicit && now + delay >= nodes[1 - i].start {
                    // The other node answers at once; its answer takes `delay` back.
                    send(&mut nodes, 1 - i, now + delay, delay, false, false);
                }
            }
            now += MS / 2;
        }
        [
            nodes[0].verdict.expect("decided"),
            nodes[1].verdict.expect("decided"),
        ]
    }

    #[test]
    fn two_claimants_never_both_win_whatever_the_start_offset_skew_or_first_loss() {
        // Every start offset through and past the first node's settle window, for network
        // delays whose round trip stays below the settle time, with and without the first
        // announcement of either node lost, with the verdicts' announcements lost, and with
        // discovery threads that read their sockets only every 30 ms.
        for delay in [0, MS / 2, 4 * MS, 9 * MS] {
            for offset in (0..160).map(|o| o * MS / 2) {
                for lose in [[0, 0], [1, 0], [0, 1], [1, 1]] {
                    for (lose_verdicts, starve) in [(false, 0), (true, 0), (false, 30 * MS)] {
                        let v = two_claimants(starve, offset, delay, lose, lose_verdicts);
                        let won = v.iter().filter(|v| **v == Verdict::Won).count();
                        assert_eq!(
                            won, 1,
                            "offset {offset} µs, delay {delay} µs, lost {lose:?} \
                             {lose_verdicts}, starved {starve} µs: {v:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn timing_follows_the_beacon_settings() {
        let t = RaceTiming::new(
            Duration::from_millis(100),
            Duration::from_millis(10),
            Duration::from_secs(5),
        );
        assert_eq!(t.max_settle, Duration::from_millis(350));
        assert_eq!(t.min_settle, t.max_settle, "capped");
        assert_eq!(t.gap, Duration::from_millis(10));
    }
}
