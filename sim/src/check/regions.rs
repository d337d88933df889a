//! Region invariants (DDM, IEEE 1516-2010 clause 9; the unified simulator's region mode,
//! [`crate::Options::regions`]), about the one attribute with dimensions, `Vehicle.Position`,
//! whose values each owner counts 1, 2, 3, … per instance.
//!
//! The checker is shown, from the federates' model (not the cores): at every update, the
//! *update region* the sender had for that instance's `Position` when it sent it — the committed
//! ranges of the regions it had associated, or the default region when none; at every change,
//! each subscriber's *subscription region* for `Position` — the committed ranges of the regions
//! it subscribed with, or the default region when it subscribed without regions. It computes
//! overlap itself (not with the core's function, so the check is not circular): two regions
//! overlap when, on every dimension either specifies, their ranges `[lower, upper)` intersect,
//! an unspecified dimension taking the full range; the default region overlaps every region.
//!
//! # The rule (what the core guarantees, `hlamesh_core::core::regions`)
//!
//! An update's regions travel in the sender's reliable stream ahead of it, so a receiving core
//! judges it against exactly the update region the sender had when it sent it. The receiving
//! core filters when it *applies* the update (on arrival), against the subscription regions its
//! federate has committed at that moment; the reflection may reach the federate later (a
//! constrained federate takes receive-order messages only while advancing). The harness does
//! not see the moment of application, only the send and the delivery; the subscriber's region
//! may move in between (the race the standard leaves to the RTI). So:
//!
//! - **Safety, at every reflection** of value `n` of instance `o` to federate `f`: `f`
//!   reflected `(o, n)` at most once (exactly-once, with the objects check's order), and the
//!   update region of `(o, n)` at its send overlaps one of the subscription regions `f` held
//!   between the send and the delivery — the one in force at the send or any it committed
//!   after, up to the delivery. When `f`'s subscription did not change in that window (the
//!   usual case), that is exactly "the update region overlaps the subscription region".
//! - **Liveness, at the end** (after the liveness phase's last update of every live instance,
//!   sent when no region moves any more, reliable): every live subscriber whose subscription
//!   region overlaps the last update's region reflected that last value. Earlier updates are
//!   not required: a value sent while the subscriber's region was moving may rightly be
//!   filtered, and one lost to a fell-behind is gone by design.
//!
//! Two federates on the two sides of a partition may hand out the same instance handle, so an
//! `(instance, value)` may have several senders; a reflection passes if one of them satisfies
//! the rule (each subscriber sees only its side).

use std::collections::{BTreeMap, BTreeSet};

use hlamesh_core::handles::{DimensionHandle, ObjectInstanceHandle};

use crate::lrc::FedId;

/// A region as the checker takes it: `[lower, upper)` per dimension it specifies.
pub type Ranges = BTreeMap<DimensionHandle, (u64, u64)>;

/// Where an update is sent or a subscription listens: `None` is the default region (overlaps
/// everything), `Some` the union of regions.
pub type Where = Option<Vec<Ranges>>;

/// Whether two regions overlap (see the module docs); computed here, independently of the core.
pub fn overlap(a: &Ranges, b: &Ranges) -> bool {
    const FULL: (u64, u64) = (0, u64::MAX);
    a.keys().chain(b.keys()).all(|d| {
        let (x, y) = (
            a.get(d).copied().unwrap_or(FULL),
            b.get(d).copied().unwrap_or(FULL),
        );
        x.0 < y.1 && y.0 < x.1
    })
}

/// Whether an update sent in `update` can reach a subscription listening in `sub`.
pub fn overlaps(update: &Where, sub: &Where) -> bool {
    match (update, sub) {
        (None, _) | (_, None) => true,
        (Some(u), Some(s)) => u.iter().any(|a| s.iter().any(|b| overlap(a, b))),
    }
}

/// One update of `Position`.
#[derive(Clone, Debug)]
struct Sent {
    by: FedId,
    at: u64,
    region: Where,
}

/// Per subscriber, its subscription regions of one class over time: each `Where` with the
/// moment it took effect on the log's clock, which also orders the sends and deliveries its
/// check is shown. Shared by the checks that judge a delivery against what the subscriber held
/// between the send and the delivery.
#[derive(Debug, Default)]
pub struct SubscriptionLog {
    clock: u64,
    subs: BTreeMap<FedId, Vec<(u64, Where)>>,
}

impl SubscriptionLog {
    /// The next moment.
    pub fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Subscriber `f` listens in `w` from now on (a repeat of the last one is not recorded).
    pub fn set(&mut self, f: FedId, w: Where) {
        let at = self.tick();
        let v = self.subs.entry(f).or_default();
        if v.last().is_none_or(|(_, last)| *last != w) {
            v.push((at, w));
        }
    }

    /// A send by `f` in `w` happens now: the moment, and whether some other subscriber listens
    /// where `w` does not reach.
    pub fn send(&mut self, f: FedId, w: &Where) -> (u64, bool) {
        let disjoint = self.all_now().any(|(s, x)| s != f && !overlaps(w, x));
        (self.tick(), disjoint)
    }

    /// Where `f` listens now (`None`: it is not shown as subscribed).
    pub fn now(&self, f: FedId) -> Option<&Where> {
        self.subs.get(&f).and_then(|v| v.last()).map(|(_, w)| w)
    }

    /// Every subscriber with where it listens now.
    pub fn all_now(&self) -> impl Iterator<Item = (FedId, &Where)> {
        self.subs
            .iter()
            .filter_map(|(f, v)| v.last().map(|(_, w)| (*f, w)))
    }

    /// `f` is gone.
    pub fn remove(&mut self, f: FedId) {
        self.subs.remove(&f);
    }

    /// Whether something sent at `at` in `region` may reach `f` now: `Ok((in_regions, raced))`
    /// when one of the subscription regions `f` held since `at` overlaps it (`in_regions`: both
    /// are regions, not the default; `raced`: `f`'s regions changed meanwhile), else `Err`
    /// with the regions it held.
    pub fn admits(&self, f: FedId, at: u64, region: &Where) -> Result<(bool, bool), Vec<&Where>> {
        let held = self.held_since(f, at);
        match held.iter().find(|w| overlaps(region, w)) {
            Some(w) => Ok((region.is_some() && w.is_some(), held.len() > 1)),
            None => Err(held),
        }
    }

    /// The subscription regions `f` held at some moment from `from` to now.
    pub fn held_since(&self, f: FedId, from: u64) -> Vec<&Where> {
        let Some(v) = self.subs.get(&f) else {
            return Vec::new();
        };
        let first = v.iter().rposition(|(at, _)| *at <= from).unwrap_or(0);
        v[first..].iter().map(|(_, w)| w).collect()
    }
}

/// The regions check (see the module docs).
#[derive(Debug, Default)]
pub struct RegionsCheck {
    /// Per subscriber: its subscription regions for `Position` over time.
    subs: SubscriptionLog,
    /// Per (instance, value): who sent it, when, in what update region.
    sent: BTreeMap<(ObjectInstanceHandle, u64), Vec<Sent>>,
    /// What each subscriber reflected.
    reflected: BTreeSet<(FedId, ObjectInstanceHandle, u64)>,
    /// Reflections checked.
    pub reflections: u64,
    /// Of those, the ones whose update and subscription regions were both not the default.
    pub in_regions: u64,
    /// Updates sent in a region that did not overlap some subscriber's (filtered out for it).
    pub disjoint: u64,
    /// Reflections whose subscriber's region moved between the send and the delivery.
    pub raced: u64,
}

impl RegionsCheck {
    /// Subscriber `f`'s subscription region for `Position` is now `w`.
    pub fn subscribed(&mut self, f: FedId, w: Where) {
        self.subs.set(f, w);
    }

    /// `f` sent value `n` of `o` in update region `w`.
    pub fn sent(&mut self, f: FedId, o: ObjectInstanceHandle, n: u64, w: Where) {
        let (at, disjoint) = self.subs.send(f, &w);
        self.disjoint += u64::from(disjoint);
        self.sent.entry((o, n)).or_default().push(Sent {
            by: f,
            at,
            region: w,
        });
    }

    /// `f` is gone.
    pub fn gone(&mut self, f: FedId) {
        self.subs.remove(f);
    }

    /// `f` reflects value `n` of `o`.
    pub fn reflected(&mut self, f: FedId, o: ObjectInstanceHandle, n: u64) -> Result<(), String> {
        self.subs.tick();
        self.reflections += 1;
        if !self.reflected.insert((f, o, n)) {
            return Err(format!("{f:?} reflected {o}'s position {n} twice"));
        }
        let sends = self
            .sent
            .get(&(o, n))
            .ok_or_else(|| format!("{f:?} reflected {o}'s position {n}, never sent"))?;
        let mut why = Vec::new();
        for s in sends.iter().filter(|s| s.by != f) {
            let held = match self.subs.admits(f, s.at, &s.region) {
                Ok((in_regions, raced)) => {
                    self.in_regions += u64::from(in_regions);
                    self.raced += u64::from(raced);
                    return Ok(());
                }
                Err(held) => held,
            };
            why.push(format!(
                "sent by {:?} in {:?}, subscribed meanwhile in {held:?}",
                s.by, s.region
            ));
        }
        Err(format!(
            "{f:?} reflected {o}'s position {n} outside its subscription regions: {why:?}"
        ))
    }

    /// At the end: every live subscriber in `live` whose subscription region overlaps the
    /// update region of the last value its owner sent of each instance of `alive` reflected it
    /// (see the module docs); `Err` says which did not.
    pub fn converged(
        &self,
        live: &BTreeSet<FedId>,
        alive: &BTreeMap<ObjectInstanceHandle, (FedId, u64)>,
    ) -> Result<(), String> {
        for f in live {
            let Some(sub) = self.subs.now(*f) else {
                continue;
            };
            for (o, (owner, n)) in alive {
                if owner == f || *n == 0 {
                    continue;
                }
                let Some(s) = self
                    .sent
                    .get(&(*o, *n))
                    .and_then(|v| v.iter().rev().find(|s| s.by == *owner))
                else {
                    return Err(format!("{o}'s last position {n} was never sent"));
                };
                if overlaps(&s.region, sub) && !self.reflected.contains(&(*f, *o, *n)) {
                    return Err(format!(
                        "{f:?} (subscribed in {sub:?}) did not reflect {o}'s last position {n}, sent in {:?}",
                        s.region
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: &[(u32, u64, u64)]) -> Ranges {
        v.iter()
            .map(|(d, l, u)| (DimensionHandle(*d), (*l, *u)))
            .collect()
    }

    #[test]
    fn overlap_takes_unspecified_dimensions_as_full() {
        assert!(overlap(&r(&[(1, 0, 10)]), &r(&[(1, 9, 20)])));
        assert!(!overlap(&r(&[(1, 0, 10)]), &r(&[(1, 10, 20)])));
        assert!(overlap(&r(&[(1, 0, 10)]), &r(&[(2, 500, 501)])));
        assert!(!overlap(
            &r(&[(1, 0, 10), (2, 0, 5)]),
            &r(&[(1, 5, 6), (2, 5, 6)])
        ));
        assert!(overlaps(&None, &Some(vec![r(&[(1, 0, 1)])])));
        assert!(overlaps(
            &Some(vec![r(&[(1, 0, 1)]), r(&[(1, 7, 8)])]),
            &Some(vec![r(&[(1, 7, 9)])])
        ));
    }

    #[test]
    fn a_reflection_passes_with_any_subscription_held_since_the_send() {
        let (f, g, o) = (FedId(1), FedId(2), ObjectInstanceHandle(5));
        let mut c = RegionsCheck::default();
        c.subscribed(f, Some(vec![r(&[(1, 0, 10)])]));
        c.sent(g, o, 1, Some(vec![r(&[(1, 20, 30)])]));
        c.subscribed(f, Some(vec![r(&[(1, 25, 26)])]));
        c.sent(g, o, 2, Some(vec![r(&[(1, 0, 5)])]));
        assert!(c.reflected(f, o, 1).is_ok());
        assert!(c.reflected(f, o, 1).is_err());
        assert!(c.reflected(f, o, 2).is_err());
    }
}
