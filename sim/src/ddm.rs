//! The federates' region calls in region mode ([`crate::Options::regions`]; DDM, IEEE 1516-2010
//! clause 9): they create regions over `X`, `Y` or both with random ranges, move them (set
//! range bounds, then commit — or commit later, with others), subscribe to `Position` with
//! more regions and unsubscribe some, register instances with regions, associate and
//! unassociate regions with their instances' `Position`, and delete regions — where the model
//! says the region is in use, the core must refuse with `RegionInUseForUpdateOrSubscription`,
//! and must not where it is not. Every change of where a federate subscribes is shown to the
//! regions check ([`crate::check::regions`]), and every update with the region it goes to
//! (`World::update`).

use std::collections::BTreeSet;

use hlamesh_core::core::FederationCore;
use hlamesh_core::core::regions::RangeBounds;
use hlamesh_core::error::RtiError;
use hlamesh_core::handles::{DimensionHandle, FederateHandle, RegionHandle};
use hlamesh_transport::NodeId;

use crate::app::earliest_stamp;
use crate::check::regions::Ranges;
use crate::federate::RegionModel;
use crate::lrc::FedId;
use crate::world::{World, busy};

/// Creates a region of federate `h` with `ranges`, committed.
pub(crate) fn make_region(
    c: &mut FederationCore,
    h: FederateHandle,
    ranges: &Ranges,
) -> Result<RegionHandle, RtiError> {
    let dims: Vec<DimensionHandle> = ranges.keys().copied().collect();
    let r = c.create_region(h, &dims)?;
    for (d, (lo, hi)) in ranges {
        c.set_range_bounds(h, r, *d, RangeBounds::new(*lo, *hi))?;
    }
    c.commit_region_modifications(h, &[r])?;
    Ok(r)
}

impl World {
    /// A random range of a dimension (upper bound 1000): mostly narrow, so that regions
    /// overlap about as often as not.
    fn random_range(&mut self) -> (u64, u64) {
        let lo = self.rng.below(950) as u64;
        let width = 10 + self.rng.below(350) as u64;
        (lo, (lo + width).min(1000))
    }

    /// Random ranges over `X`, `Y` or both.
    pub(crate) fn random_ranges(&mut self) -> Ranges {
        let dims = self.fom.dims.clone();
        let pick: Vec<DimensionHandle> = match self.rng.below(4) {
            0 => vec![dims[0]],
            1 => vec![dims[1]],
            _ => dims,
        };
        pick.into_iter().map(|d| (d, self.random_range())).collect()
    }

    /// Shows the regions check (and, with pings, the pings check) where federate `fed`
    /// subscribes now.
    pub(crate) fn show_subscription(&mut self, fed: FedId) {
        if let Some(m) = self.feds.get(&fed) {
            let (w, p) = (m.ddm.sub_where(), m.ddm.ping_where());
            self.trace("regions", || format!("{fed:?} subscribes in {w:?}"));
            self.checks.regions.subscribed(fed, w);
            if self.fom.ping.is_some() {
                self.trace("regions", || format!("{fed:?} listens to pings in {p:?}"));
                self.checks.pings.subscribed(fed, p);
            }
        }
    }

    /// One random region call of a random federate.
    pub(crate) fn region_action(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let m = &self.feds[&fed];
        let regions: Vec<RegionHandle> = m.ddm.regions.keys().copied().collect();
        let owned: Vec<_> = m.owned.keys().copied().collect();
        let subscribing = m.ddm.sub.clone();
        let class = m.sub.class;
        let (car, position) = (self.fom.car, self.fom.position);
        let pick = |w: &mut World, v: &[RegionHandle]| v[w.rng.below(v.len())];
        // Pings draw from more choices, so runs without them are those of before.
        let choices = if self.fom.ping.is_some() { 13 } else { 10 };
        match self.rng.below(choices) {
            0 => {
                let ranges = self.random_ranges();
                let r = self.call(node, |c| make_region(c, h, &ranges));
                self.region_outcome(fed, r, "createRegion".into(), |w, r| {
                    w.model(fed).ddm.regions.insert(
                        r,
                        RegionModel {
                            template: ranges.clone(),
                            committed: ranges,
                        },
                    );
                })?;
            }
            1..=3 if !regions.is_empty() => {
                // A move: new bounds on one of its dimensions, committed at once or later.
                let r = pick(self, &regions);
                let dims: Vec<DimensionHandle> = self.feds[&fed].ddm.regions[&r]
                    .template
                    .keys()
                    .copied()
                    .collect();
                let d = dims[self.rng.below(dims.len())];
                let (lo, hi) = self.random_range();
                let commit: Vec<RegionHandle> = match self.rng.below(4) {
                    0 => Vec::new(),
                    1 => regions.clone(),
                    _ => vec![r],
                };
                let res = self.call(node, |c| {
                    c.set_range_bounds(h, r, d, RangeBounds::new(lo, hi))?;
                    if !commit.is_empty() {
                        c.commit_region_modifications(h, &commit)?;
                    }
                    Ok(())
                });
                self.region_outcome(
                    fed,
                    res,
                    format!("move {r} {d} to [{lo}, {hi}), commit {commit:?}"),
                    |w, ()| {
                        let ddm = &mut w.model(fed).ddm;
                        if let Some(x) = ddm.regions.get_mut(&r) {
                            x.template.insert(d, (lo, hi));
                        }
                        for c in &commit {
                            if let Some(x) = ddm.regions.get_mut(c) {
                                x.committed = x.template.clone();
                            }
                        }
                        w.show_subscription(fed);
                    },
                )?;
            }
            4 if subscribing.is_some() && !regions.is_empty() => {
                let r = pick(self, &regions);
                let res = self.call(node, |c| {
                    c.subscribe_object_class_attributes_with_regions(
                        h,
                        class,
                        &[(vec![position], vec![r])],
                        true,
                        None,
                    )
                });
                self.region_outcome(fed, res, format!("subscribe with {r}"), |w, ()| {
                    if let Some(s) = w.model(fed).ddm.sub.as_mut() {
                        s.insert(r);
                    }
                    w.show_subscription(fed);
                })?;
            }
            5 if subscribing.as_ref().is_some_and(|s| s.len() > 1) => {
                // Never the last region: `Position` stays subscribed.
                let subs: Vec<RegionHandle> = subscribing.into_iter().flatten().collect();
                let r = pick(self, &subs);
                let res = self.call(node, |c| {
                    c.unsubscribe_object_class_attributes_with_regions(
                        h,
                        class,
                        &[(vec![position], vec![r])],
                    )
                });
                self.region_outcome(fed, res, format!("unsubscribe with {r}"), |w, ()| {
                    if let Some(s) = w.model(fed).ddm.sub.as_mut() {
                        s.remove(&r);
                    }
                    w.show_subscription(fed);
                })?;
            }
            6 if !regions.is_empty() => {
                let mut rs: BTreeSet<RegionHandle> = [pick(self, &regions)].into();
                if self.rng.below(3) == 0 {
                    rs.insert(pick(self, &regions));
                }
                let list: Vec<RegionHandle> = rs.iter().copied().collect();
                let res = self.call(node, |c| {
                    c.register_object_instance_with_regions(h, car, &[(vec![position], list)], None)
                });
                self.region_outcome(fed, res, format!("register with {rs:?}"), |w, o| {
                    w.trace("actions", || format!("{fed:?} registered {o}"));
                    let m = w.model(fed);
                    m.owned.insert(o, 0);
                    m.ddm.assoc.insert(o, rs);
                })?;
            }
            7 if !regions.is_empty() && !owned.is_empty() => {
                let r = pick(self, &regions);
                let o = owned[self.rng.below(owned.len())];
                let res = self.call(node, |c| {
                    c.associate_regions_for_updates(h, o, &[(vec![position], vec![r])])
                });
                self.region_outcome(fed, res, format!("associate {o} with {r}"), |w, ()| {
                    w.model(fed).ddm.assoc.entry(o).or_default().insert(r);
                })?;
            }
            8 if !owned.is_empty() => {
                let o = owned[self.rng.below(owned.len())];
                let assoc: Vec<RegionHandle> = self.feds[&fed]
                    .ddm
                    .assoc
                    .get(&o)
                    .map(|s| s.iter().copied().collect())
                    .unwrap_or_default();
                if assoc.is_empty() {
                    return Ok(());
                }
                let r = pick(self, &assoc);
                let res = self.call(node, |c| {
                    c.unassociate_regions_for_updates(h, o, &[(vec![position], vec![r])])
                });
                self.region_outcome(fed, res, format!("unassociate {o} from {r}"), |w, ()| {
                    let ddm = &mut w.model(fed).ddm;
                    if let Some(s) = ddm.assoc.get_mut(&o) {
                        s.remove(&r);
                        if s.is_empty() {
                            ddm.assoc.remove(&o);
                        }
                    }
                })?;
            }
            9 if !regions.is_empty() => {
                let r = pick(self, &regions);
                let in_use = self.feds[&fed].ddm.in_use(r);
                match self.call(node, |c| c.delete_region(h, r)) {
                    Ok(()) if in_use => {
                        return Err(format!("{h}: deleted region {r}, which is in use"));
                    }
                    Ok(()) => {
                        self.model(fed).ddm.regions.remove(&r);
                    }
                    Err(RtiError::RegionInUseForUpdateOrSubscription(_)) if in_use => {}
                    Err(e) if busy(&e) => {}
                    Err(e) => self.refused(fed, &e, || format!("{h}: deleteRegion {r}: {e}"))?,
                }
                self.trace("actions", || {
                    format!("{h} deletes region {r} (in use: {in_use})")
                });
            }
            10 | 11 => return self.ping(fed, h, node, false).map(|_| ()),
            12 if !regions.is_empty() => return self.move_ping_subscription(fed, h, node),
            _ => {}
        }
        self.settle(node)
    }

    /// Federate `fed` sends a ping with one or two of its regions, or (a time in four, or
    /// when it has none) without regions; in time-stamp order when the run has it
    /// ([`crate::Options::tso`]); `last`: one of the liveness phase's final pings (receive
    /// order: no advance follows it). Whether it was sent.
    pub(crate) fn ping(
        &mut self,
        fed: FedId,
        h: FederateHandle,
        node: NodeId,
        last: bool,
    ) -> Result<bool, String> {
        let Some((class, seq_param)) = self.fom.ping else {
            return Ok(false);
        };
        if !self.may_send(node) {
            return Ok(false);
        }
        let regions: Vec<RegionHandle> = self.feds[&fed].ddm.regions.keys().copied().collect();
        let mut rs = BTreeSet::new();
        if !regions.is_empty() && self.rng.below(4) != 0 {
            for _ in 0..1 + usize::from(self.rng.below(3) == 0) {
                rs.insert(regions[self.rng.below(regions.len())]);
            }
        }
        let rs: Vec<RegionHandle> = rs.into_iter().collect();
        let seq = self.next_ping;
        let params = vec![(seq_param, seq.to_be_bytes().to_vec())];
        let w = self.feds[&fed].ddm.sent_where(&rs);
        let tso = self.opts.time && self.opts.tso && !last;
        let r = self.call(node, |c| {
            let time = if tso { earliest_stamp(c, h) } else { None };
            match rs.is_empty() {
                true => c.send_interaction(h, class, params, vec![], time),
                false => c.send_interaction_with_regions(h, class, params, &rs, vec![], time),
            }
        });
        let sent = match r {
            Ok(_) => {
                self.next_ping += 1;
                self.trace("regions", || format!("{fed:?} pings {seq} in {w:?}"));
                self.checks.pings.sent(fed, seq, w, last);
                true
            }
            Err(e) => {
                self.refused(fed, &e, || format!("{h}: ping with {rs:?} refused: {e}"))?;
                false
            }
        };
        self.settle(node)?;
        Ok(sent)
    }

    /// Federate `fed` subscribes to `Ping` with one more of its regions, or unsubscribes one
    /// (never the last, so `Ping` stays subscribed); a federate subscribed without regions
    /// keeps that.
    fn move_ping_subscription(
        &mut self,
        fed: FedId,
        h: FederateHandle,
        node: NodeId,
    ) -> Result<(), String> {
        let (Some((class, _)), Some(subs)) = (self.fom.ping, self.feds[&fed].ddm.ping_sub.clone())
        else {
            return Ok(());
        };
        let regions: Vec<RegionHandle> = self.feds[&fed].ddm.regions.keys().copied().collect();
        let add = subs.len() < 2 || self.rng.below(2) == 0;
        let (r, what) = if add {
            let r = regions[self.rng.below(regions.len())];
            let res = self.call(node, |c| {
                c.subscribe_interaction_class_with_regions(h, class, &[r], true)
            });
            (res.map(|()| r), "subscribe to pings with")
        } else {
            let subs: Vec<RegionHandle> = subs.into_iter().collect();
            let r = subs[self.rng.below(subs.len())];
            let res = self.call(node, |c| {
                c.unsubscribe_interaction_class_with_regions(h, class, &[r])
            });
            (res.map(|()| r), "unsubscribe from pings with")
        };
        let shown = r
            .as_ref()
            .map_or_else(|e| format!("{e}"), |r| format!("{r}"));
        self.region_outcome(fed, r, format!("{what} {shown}"), |w, r| {
            if let Some(s) = w.model(fed).ddm.ping_sub.as_mut() {
                match add {
                    true => s.insert(r),
                    false => s.remove(&r),
                };
            }
            w.show_subscription(fed);
        })?;
        self.settle(node)
    }

    /// The federate model of `fed` (it exists: it was just chosen).
    fn model(&mut self, fed: FedId) -> &mut crate::federate::Federate {
        self.feds.get_mut(&fed).expect("a chosen federate")
    }

    /// What a region call of `fed` returned: `ok` updates the model; a save in progress skips
    /// it; any other refusal breaks the run (or drops the federate, see `World::refused`).
    fn region_outcome<T>(
        &mut self,
        fed: FedId,
        r: Result<T, RtiError>,
        what: String,
        ok: impl FnOnce(&mut World, T),
    ) -> Result<(), String> {
        let h = self.feds[&fed].handle;
        match r {
            Ok(v) => {
                ok(self, v);
                self.trace("actions", || format!("{h:?}: {what}"));
                Ok(())
            }
            Err(e) if busy(&e) => Ok(()),
            Err(e) => self.refused(fed, &e, || format!("{h:?}: {what} refused: {e}")),
        }
    }
}
