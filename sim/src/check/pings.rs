//! Interactions sent with regions (DDM, IEEE 1516-2010 9.10–9.12; the region mode with
//! [`crate::Options::region_interactions`]), about the reliable, receive-order interaction
//! `Ping` over `X` and `Y` (`sim/foms/Pings.xml`), each send named by its `Seq` parameter.
//!
//! The checker is shown, from the federates' model: at every send, the regions the sender sent
//! the ping with — the committed ranges of the regions it named, or the default region when it
//! sent without regions; at every change, each federate's subscription regions for `Ping` —
//! the committed ranges of the regions it subscribed with, or the default region when it
//! subscribed without regions. Overlap is computed here ([`super::regions::overlaps`]), not
//! with the core's function.
//!
//! # The rule
//!
//! A ping carries the extents of its sent regions; the receiving core judges it on arrival
//! against the subscription regions its federate has committed then, and the federate may be
//! told later (a constrained federate takes receive-order messages only while advancing). So,
//! as for reflections ([`super::regions`]):
//!
//! - **Safety, at every receipt** of ping `s` by federate `f`: `s` was sent, by another
//!   federate; `f` receives it at most once; and its sent regions overlap one of the
//!   subscription regions `f` held between the send and the receipt.
//! - **Liveness, at the end**: the *final* pings — one per live federate, sent after the
//!   federation converged, when no region moves any more — reach every other live federate
//!   whose subscription overlaps them. Earlier pings are not required: a partition, a crash or a
//!   fell-behind may rightly lose them.

use std::collections::{BTreeMap, BTreeSet};

use crate::check::regions::{SubscriptionLog, Where, overlaps};
use crate::lrc::FedId;

/// One ping as sent.
#[derive(Clone, Debug)]
struct Sent {
    by: FedId,
    at: u64,
    region: Where,
}

/// The pings check (see the module docs).
#[derive(Debug, Default)]
pub struct PingsCheck {
    /// Per federate: its subscription regions for `Ping` over time.
    subs: SubscriptionLog,
    /// Every ping sent, by its `Seq`.
    sent: BTreeMap<u64, Sent>,
    /// The final pings (liveness).
    finals: BTreeSet<u64>,
    /// What each federate received.
    received: BTreeSet<(FedId, u64)>,
    /// Pings received.
    pub receipts: u64,
    /// Of those, the ones sent with regions to a federate subscribed with regions.
    pub in_regions: u64,
    /// Pings sent in regions that some other federate's subscription did not overlap.
    pub disjoint: u64,
    /// Receipts whose subscriber's regions moved between the send and the receipt.
    pub raced: u64,
    /// Receipts in time-stamp order.
    pub in_time_order: u64,
}

impl PingsCheck {
    /// Federate `f`'s subscription region for `Ping` is now `w`.
    pub fn subscribed(&mut self, f: FedId, w: Where) {
        self.subs.set(f, w);
    }

    /// `f` sent ping `seq` in `w`; `last`: one of the final pings the liveness phase checks.
    pub fn sent(&mut self, f: FedId, seq: u64, w: Where, last: bool) {
        let (at, disjoint) = self.subs.send(f, &w);
        self.disjoint += u64::from(disjoint);
        if last {
            self.finals.insert(seq);
        }
        self.sent.insert(
            seq,
            Sent {
                by: f,
                at,
                region: w,
            },
        );
    }

    /// `f` is gone.
    pub fn gone(&mut self, f: FedId) {
        self.subs.remove(f);
    }

    /// `f` receives ping `seq` (`tso`: in time-stamp order).
    pub fn received(&mut self, f: FedId, seq: u64, tso: bool) -> Result<(), String> {
        self.subs.tick();
        self.receipts += 1;
        self.in_time_order += u64::from(tso);
        if !self.received.insert((f, seq)) {
            return Err(format!("{f:?} received ping {seq} twice"));
        }
        let s = self
            .sent
            .get(&seq)
            .ok_or_else(|| format!("{f:?} received ping {seq}, never sent"))?;
        if s.by == f {
            return Err(format!("{f:?} received its own ping {seq}"));
        }
        match self.subs.admits(f, s.at, &s.region) {
            Ok((in_regions, raced)) => {
                self.in_regions += u64::from(in_regions);
                self.raced += u64::from(raced);
                Ok(())
            }
            Err(held) => Err(format!(
                "{f:?} received ping {seq}, sent by {:?} in {:?}, outside the regions it \
                 subscribed in meanwhile: {held:?}",
                s.by, s.region
            )),
        }
    }

    /// At the end: every live federate in `live` whose subscription overlaps a final ping of
    /// another received it; `Err` says which did not.
    pub fn converged(&self, live: &BTreeSet<FedId>) -> Result<(), String> {
        for seq in &self.finals {
            let s = &self.sent[seq];
            for f in live.iter().filter(|f| **f != s.by) {
                let Some(sub) = self.subs.now(*f) else {
                    continue;
                };
                if overlaps(&s.region, sub) && !self.received.contains(&(*f, *seq)) {
                    return Err(format!(
                        "{f:?} (subscribed in {sub:?}) did not receive the final ping {seq} of \
                         {:?}, sent in {:?}",
                        s.by, s.region
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use hlamesh_core::handles::DimensionHandle;

    use super::*;
    use crate::check::regions::Ranges;

    fn r(lo: u64, hi: u64) -> Where {
        let x: Ranges = [(DimensionHandle(1), (lo, hi))].into();
        Some(vec![x])
    }

    #[test]
    fn a_ping_passes_only_in_overlapping_regions_once_and_from_another() {
        let (f, g) = (FedId(1), FedId(2));
        let mut c = PingsCheck::default();
        c.subscribed(f, r(0, 10));
        c.subscribed(g, None);
        c.sent(g, 1, r(5, 6), false);
        c.sent(g, 2, r(20, 30), false);
        c.sent(f, 3, r(40, 50), true);
        assert!(c.received(f, 1, false).is_ok());
        assert!(c.received(f, 1, false).is_err(), "twice");
        assert!(c.received(f, 2, false).is_err(), "outside its region");
        assert!(c.received(f, 3, false).is_err(), "its own");
        assert!(c.received(f, 9, false).is_err(), "never sent");
        assert_eq!(c.disjoint, 1);
        let live: BTreeSet<FedId> = [f, g].into();
        assert!(c.converged(&live).is_err(), "g did not receive the final 3");
        assert!(c.received(g, 3, false).is_ok());
        assert!(c.converged(&live).is_ok());
    }

    #[test]
    fn a_subscription_moved_after_the_send_still_admits_the_ping() {
        let (f, g) = (FedId(1), FedId(2));
        let mut c = PingsCheck::default();
        c.subscribed(f, r(0, 10));
        c.sent(g, 1, r(20, 30), false);
        c.subscribed(f, r(25, 26));
        assert!(c.received(f, 1, false).is_ok());
        assert_eq!(c.raced, 1);
    }
}
