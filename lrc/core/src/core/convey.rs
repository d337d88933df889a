//! Convey Region Designator Sets (IEEE 1516-2010 the switch of 4.1.1 / the MOM's
//! `HLAconveyRegionDesignatorSets`; the optional sent-region set of 6.7 Reflect Attribute Values
//! and 6.13 Receive Interaction, `SupplementalReflectInfo` / `SupplementalReceiveInfo`).
//!
//! With a receiving federate's switch on, a reflection or received interaction that was *sent
//! with regions* carries the set of those regions that overlap the receiver's subscription
//! regions for what it receives (all of them where it subscribes without regions): for a
//! reflection, the update regions of the reflected instance attributes as last announced in the
//! sender's stream (see [`super::regions`]); for an interaction, the regions it was sent with.
//! Sent without regions (the default region) it carries none ([`super::ReceiveInfo`]'s
//! `sent_regions` is `None`, the C++ API's `hasSentRegions` false), as it does with the switch
//! off.
//!
//! # What the handles are
//!
//! The receiver cannot use the sender's region handles: regions live at their creator's LRC,
//! and the wire carries only their committed ranges ([`super::regions::Extent`]). The standard
//! lets a federate use a conveyed region designator only with `getDimensionHandleSet` and
//! `getRangeBounds`, so hlamesh gives the receiver **receiver-local, read-only handles**: each
//! distinct set of ranges conveyed to a federate gets one handle of that federate
//! ([`RegionHandle::new`]`(receiver, counter)`, the counter in the upper half,
//! [`CONVEYED_BASE`] and above, which `create_region` never reaches), and the same ranges
//! conveyed again get the same handle. `get_dimension_handle_set` and `get_range_bounds`
//! answer for it with the ranges as they were sent (a conveyed handle is a snapshot: the
//! sender's later commits give new handles); every other region service refuses it with
//! `InvalidRegion`, as it does any handle the federate did not create.
//!
//! The table is bounded: a federate keeps its last [`MAX_CONVEYED`] conveyed handles (the
//! oldest go first, and a handle that went is `InvalidRegion` again); it is saved with the
//! federate, since reflections queued at a save carry handles.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::FederationCore;
use super::regions::{Extent, RangeBounds, overlap};
use crate::error::RtiError;
use crate::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, RegionHandle,
};

/// The first counter of a conveyed handle (the upper half of a federate's region counters).
pub const CONVEYED_BASE: u32 = 1 << 31;

/// How many conveyed handles a federate keeps.
pub const MAX_CONVEYED: usize = 1024;

/// A set of ranges as a table key.
type Key = Vec<(DimensionHandle, u64, u64)>;

fn key(e: &Extent) -> Key {
    e.0.iter().map(|(d, r)| (*d, r.lower, r.upper)).collect()
}

/// One federate's conveyed region handles.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conveyed {
    /// The counter of the last handle given (0: none yet; else at least [`CONVEYED_BASE`]).
    pub last: u32,
    /// The ranges of each handle, oldest first by counter.
    pub regions: BTreeMap<RegionHandle, Extent>,
    /// The handle of each set of ranges.
    #[serde(skip)]
    by_ranges: BTreeMap<Key, RegionHandle>,
}

impl Conveyed {
    /// The handle of federate `f` for `e`, given now if it has none.
    fn intern(&mut self, f: FederateHandle, e: &Extent) -> RegionHandle {
        let k = key(e);
        if self.by_ranges.is_empty() && !self.regions.is_empty() {
            self.reindex();
        }
        if let Some(h) = self.by_ranges.get(&k) {
            return *h;
        }
        self.last = if self.last < CONVEYED_BASE || self.last == u32::MAX {
            CONVEYED_BASE
        } else {
            self.last + 1
        };
        let h = RegionHandle::new(f, self.last);
        if let Some(old) = self.regions.insert(h, e.clone()) {
            // The counter wrapped onto a handle still kept.
            self.by_ranges.remove(&key(&old));
        }
        self.by_ranges.insert(k, h);
        while self.regions.len() > MAX_CONVEYED {
            // Oldest first: the next counter after `last`, wrapping.
            let oldest = self
                .regions
                .range(h..)
                .nth(1)
                .or_else(|| self.regions.iter().next())
                .map(|(h, e)| (*h, key(e)));
            let Some((o, ok)) = oldest else { break };
            self.regions.remove(&o);
            self.by_ranges.remove(&ok);
        }
        h
    }

    /// Rebuilds the index (after a restore, which does not save it).
    fn reindex(&mut self) {
        self.by_ranges = self.regions.iter().map(|(h, e)| (key(e), *h)).collect();
    }
}

/// Whether `r` is a conveyed handle (of whichever federate).
pub fn is_conveyed(r: RegionHandle) -> bool {
    r.counter() >= CONVEYED_BASE
}

impl FederationCore {
    /// Handles for `extents` in federate `f`'s conveyed table (deduplicated, sorted).
    fn convey(&mut self, f: FederateHandle, extents: Vec<&Extent>) -> Box<[RegionHandle]> {
        let table = self.conveyed.entry(f).or_default();
        let mut hs: Vec<RegionHandle> = extents.into_iter().map(|e| table.intern(f, e)).collect();
        hs.sort_unstable();
        hs.dedup();
        hs.into_boxed_slice()
    }

    /// The sent-region set of a reflection of `attrs` of `o` (known as `known`) to federate
    /// `f` (see the module docs): `None` with its switch off or when none of the attributes
    /// has update regions.
    pub(crate) fn convey_for_reflection(
        &mut self,
        f: FederateHandle,
        known: ObjectClassHandle,
        o: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> Option<Box<[RegionHandle]>> {
        let ur = self.regions.update_regions.get(&o)?;
        if !attrs.iter().any(|a| ur.contains_key(a)) || !self.mom_convey_regions(f) {
            return None;
        }
        let fdd = self.fdd.clone()?;
        let sub = self
            .regions
            .feds
            .get(&f)
            .and_then(|fr| fr.object_subs.get(&known).map(|s| (fr, s)));
        let mut sent: Vec<Extent> = Vec::new();
        for a in attrs {
            let Some(ext) = ur.get(a) else { continue };
            for e in ext {
                let overlaps = match sub {
                    None => true,
                    Some((_, s)) if s.default.contains(a) => true,
                    Some((fr, s)) => s.regions.get(a).is_some_and(|rs| {
                        rs.iter()
                            .filter_map(|r| fr.regions.get(r))
                            .any(|reg| overlap(&fdd, &reg.committed, e))
                    }),
                };
                if overlaps && !sent.contains(e) {
                    sent.push(e.clone());
                }
            }
        }
        Some(self.convey(f, sent.iter().collect()))
    }

    /// The sent-region set of an interaction sent with `regions` (`None`: without) and received
    /// by federate `f` as `known` (see the module docs).
    pub(crate) fn convey_for_interaction(
        &mut self,
        f: FederateHandle,
        known: InteractionClassHandle,
        regions: Option<&[Extent]>,
    ) -> Option<Box<[RegionHandle]>> {
        let regions = regions.filter(|r| !r.is_empty())?;
        if !self.mom_convey_regions(f) {
            return None;
        }
        let fdd = self.fdd.clone()?;
        let sub = self
            .regions
            .feds
            .get(&f)
            .and_then(|fr| fr.interaction_subs.get(&known).map(|s| (fr, s)));
        let sent: Vec<&Extent> = regions
            .iter()
            .filter(|e| match sub {
                None => true,
                Some((_, s)) if s.default.is_some() => true,
                Some((fr, s)) => s
                    .regions
                    .iter()
                    .filter_map(|r| fr.regions.get(r))
                    .any(|reg| overlap(&fdd, &reg.committed, e)),
            })
            .collect();
        Some(self.convey(f, sent))
    }

    /// The ranges of federate `f`'s conveyed handle `r`, or `InvalidRegion` when it has none
    /// (any more).
    pub(crate) fn conveyed_region(
        &self,
        f: FederateHandle,
        r: RegionHandle,
    ) -> Result<&Extent, RtiError> {
        self.conveyed
            .get(&f)
            .and_then(|t| t.regions.get(&r))
            .filter(|_| r.creator() == f)
            .ok_or_else(|| {
                RtiError::InvalidRegion(format!(
                    "federation {}: federate {f} has no region {r} (a conveyed region \
                     designator it was not given, or one it has forgotten)",
                    self.name
                ))
            })
    }

    /// 10.28 for a conveyed handle.
    pub(crate) fn conveyed_dimensions(
        &self,
        f: FederateHandle,
        r: RegionHandle,
    ) -> Result<Vec<DimensionHandle>, RtiError> {
        Ok(self.conveyed_region(f, r)?.0.keys().copied().collect())
    }

    /// 10.29 for a conveyed handle.
    pub(crate) fn conveyed_range_bounds(
        &self,
        f: FederateHandle,
        r: RegionHandle,
        d: DimensionHandle,
    ) -> Result<RangeBounds, RtiError> {
        self.conveyed_region(f, r)?
            .0
            .get(&d)
            .copied()
            .ok_or_else(|| {
                RtiError::RegionDoesNotContainSpecifiedDimension(format!(
                    "federation {}: conveyed region {r} does not specify dimension {d}",
                    self.name
                ))
            })
    }

    /// Federate `f`'s conveyed handles, for its save.
    pub(crate) fn conveyed_capture(&self, f: FederateHandle) -> Conveyed {
        self.conveyed.get(&f).cloned().unwrap_or_default()
    }

    /// Restores federate `f`'s conveyed handles from its save.
    pub(crate) fn conveyed_restore(&mut self, f: FederateHandle, saved: &Conveyed) {
        let mut c = saved.clone();
        c.reindex();
        self.conveyed.insert(f, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Action, Callback, Completion, Event};
    use crate::handles::ParameterHandle;

    const FOM: &str = include_str!("../../../../foms/Regions.xml");

    /// One LRC, a publisher `p` and a subscriber `s`, over `foms/Regions.xml`.
    struct Fed {
        core: FederationCore,
        p: FederateHandle,
        s: FederateHandle,
        vehicle: ObjectClassHandle,
        position: AttributeHandle,
        radio: InteractionClassHandle,
        text: ParameterHandle,
        x: DimensionHandle,
    }

    fn join(core: &mut FederationCore, name: &str) -> FederateHandle {
        let t = core.join(Some(name.into()), "t");
        for _ in 0..10 {
            while let Some(a) = core.poll_action() {
                if let Action::Complete {
                    ticket,
                    result: Ok(Completion::Joined(h)),
                } = a
                    && ticket == t
                {
                    return h;
                }
            }
            core.handle(0, Event::Tick);
        }
        panic!("{name} never joined");
    }

    impl Fed {
        fn new() -> Fed {
            let modules = vec![("Regions.xml".to_string(), FOM.to_string())];
            let mut core = FederationCore::create("F", 1, 0, modules).expect("create");
            let p = join(&mut core, "pub");
            let s = join(&mut core, "sub");
            let fdd = core.fdd_ref().expect("fdd");
            let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
            let radio = fdd.interaction_class_handle("Radio").expect("Radio");
            let mut f = Fed {
                p,
                s,
                vehicle,
                position: fdd.attribute_handle(vehicle, "Position").expect("Position"),
                radio,
                text: fdd.parameter_handle(radio, "Text").expect("Text"),
                x: fdd.dimension_handle("X").expect("X"),
                core,
            };
            f.core
                .publish_object_class_attributes(p, vehicle, &[f.position])
                .expect("publish");
            f.core
                .publish_interaction_class(p, radio)
                .expect("publish interaction");
            f.sent();
            f
        }

        fn switch(&mut self, on: bool) {
            self.core
                .mom
                .switches
                .entry(self.s)
                .or_default()
                .convey_region_designator_sets = Some(on);
        }

        fn region_x(&mut self, f: FederateHandle, lo: u64, hi: u64) -> RegionHandle {
            let r = self.core.create_region(f, &[self.x]).expect("create");
            self.move_x(f, r, lo, hi);
            r
        }

        fn move_x(&mut self, f: FederateHandle, r: RegionHandle, lo: u64, hi: u64) {
            self.core
                .set_range_bounds(f, r, self.x, RangeBounds::new(lo, hi))
                .expect("set");
            self.core
                .commit_region_modifications(f, &[r])
                .expect("commit");
        }

        /// The sent-region sets of the subscriber's reflections and interactions since the
        /// last call, each as the ranges on X its handles name (`None`: no set).
        fn sent(&mut self) -> Vec<Option<Vec<(u64, u64)>>> {
            let mut infos = Vec::new();
            while let Some(a) = self.core.poll_action() {
                let Action::Callback { federate, callback } = a else {
                    continue;
                };
                if federate != self.s {
                    continue;
                }
                let info = match callback {
                    Callback::ReflectAttributeValues { object, info, .. }
                        if !crate::core::mom::is_mom_instance(object) =>
                    {
                        info
                    }
                    Callback::ReceiveInteraction { class, info, .. } if class == self.radio => info,
                    _ => continue,
                };
                infos.push(info.sent_regions.map(|hs| {
                    hs.iter()
                        .map(|h| {
                            assert_eq!(
                                self.core.get_dimension_handle_set(self.s, *h),
                                Ok(vec![self.x])
                            );
                            let b = self
                                .core
                                .get_range_bounds(self.s, *h, self.x)
                                .expect("bounds of a conveyed region");
                            (b.lower, b.upper)
                        })
                        .collect()
                }));
            }
            infos
        }

        fn update(&mut self, o: ObjectInstanceHandle, v: u8) {
            self.core
                .update_attribute_values(
                    self.p,
                    o,
                    vec![(self.position, vec![v])],
                    Vec::new(),
                    None,
                )
                .expect("update");
        }

        fn send(&mut self, regions: &[RegionHandle]) {
            let params = vec![(self.text, b"hi".to_vec())];
            if regions.is_empty() {
                self.core
                    .send_interaction(self.p, self.radio, params, Vec::new(), None)
                    .expect("send");
            } else {
                self.core
                    .send_interaction_with_regions(
                        self.p,
                        self.radio,
                        params,
                        regions,
                        Vec::new(),
                        None,
                    )
                    .expect("send");
            }
        }
    }

    #[test]
    fn reflections_carry_the_overlapping_update_regions_only_with_the_switch_on() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        let watch = f.region_x(s, 0, 100);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![f.position], vec![watch])],
                true,
                None,
            )
            .expect("subscribe");
        let near = f.region_x(p, 90, 110);
        let far = f.region_x(p, 500, 510);
        let o = f
            .core
            .register_object_instance_with_regions(
                p,
                f.vehicle,
                &[(vec![f.position], vec![near, far])],
                None,
            )
            .expect("register");
        f.sent();
        // Off (the FDD's default): no set.
        f.update(o, 1);
        assert_eq!(f.sent(), vec![None]);
        // On: only the update region that overlaps the subscription region.
        f.switch(true);
        f.update(o, 2);
        assert_eq!(f.sent(), vec![Some(vec![(90, 110)])]);
        // The same ranges again: the same handle.
        f.update(o, 3);
        let h = |f: &mut Fed| {
            f.update(o, 4);
            let mut hs = Vec::new();
            while let Some(a) = f.core.poll_action() {
                if let Action::Callback {
                    callback: Callback::ReflectAttributeValues { info, .. },
                    federate,
                } = a
                    && federate == f.s
                {
                    hs.extend(info.sent_regions.unwrap_or_default());
                }
            }
            hs
        };
        f.sent();
        let first = h(&mut f);
        assert_eq!(first, h(&mut f), "the same ranges keep their handle");
        // A conveyed handle is the receiver's, read-only: every other service refuses it, and
        // no other federate may read it.
        let c = first[0];
        assert_eq!(c.creator(), s);
        assert!(matches!(
            f.core.set_range_bounds(s, c, f.x, RangeBounds::new(0, 1)),
            Err(RtiError::InvalidRegion(_))
        ));
        assert!(matches!(
            f.core.delete_region(s, c),
            Err(RtiError::InvalidRegion(_))
        ));
        assert!(f.core.get_range_bounds(p, c, f.x).is_err());
        // The update region moves: a new handle, with the new ranges; the old one keeps its own.
        f.move_x(p, near, 10, 20);
        f.sent();
        f.update(o, 5);
        assert_eq!(f.sent(), vec![Some(vec![(10, 20)])]);
        assert_eq!(
            f.core.get_range_bounds(s, c, f.x),
            Ok(RangeBounds::new(90, 110)),
            "a conveyed handle is a snapshot of the ranges sent"
        );
        // Unassociated: the default region, no set.
        f.core
            .unassociate_regions_for_updates(p, o, &[(vec![f.position], vec![near, far])])
            .expect("unassociate");
        f.sent();
        f.update(o, 6);
        assert_eq!(f.sent(), vec![None]);
        // Off again: no set.
        f.core
            .associate_regions_for_updates(p, o, &[(vec![f.position], vec![near])])
            .expect("associate");
        f.switch(false);
        f.sent();
        f.update(o, 7);
        assert_eq!(f.sent(), vec![None]);
    }

    #[test]
    fn a_subscriber_without_regions_is_conveyed_every_update_region() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        f.core
            .subscribe_object_class_attributes(s, f.vehicle, &[f.position], true)
            .expect("subscribe");
        let a = f.region_x(p, 90, 110);
        let b = f.region_x(p, 500, 510);
        let o = f
            .core
            .register_object_instance_with_regions(
                p,
                f.vehicle,
                &[(vec![f.position], vec![a, b])],
                None,
            )
            .expect("register");
        f.switch(true);
        f.sent();
        f.update(o, 1);
        let got = f.sent();
        let mut set = got[0].clone().expect("a set");
        set.sort_unstable();
        assert_eq!(set, vec![(90, 110), (500, 510)]);
    }

    #[test]
    fn interactions_carry_the_overlapping_sent_regions() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        let ear = f.region_x(s, 0, 100);
        f.core
            .subscribe_interaction_class_with_regions(s, f.radio, &[ear], true)
            .expect("subscribe");
        let near = f.region_x(p, 50, 51);
        let far = f.region_x(p, 900, 901);
        f.sent();
        f.send(&[near, far]);
        assert_eq!(f.sent(), vec![None], "switch off");
        f.switch(true);
        f.send(&[near, far]);
        f.send(&[far]);
        f.send(&[near]);
        assert_eq!(
            f.sent(),
            vec![Some(vec![(50, 51)]), Some(vec![(50, 51)])],
            "only the overlapping regions; `far` alone is not delivered"
        );
        // Subscribed without regions too: every sent region; sent without: none.
        f.core
            .subscribe_interaction_class(s, f.radio, true)
            .expect("subscribe");
        f.send(&[near, far]);
        f.send(&[]);
        assert_eq!(f.sent(), vec![Some(vec![(50, 51), (900, 901)]), None]);
    }

    #[test]
    fn the_conveyed_table_is_bounded_and_forgets_the_oldest() {
        let mut t = Conveyed::default();
        let f = FederateHandle(3);
        let e = |i: u64| Extent([(DimensionHandle(1), RangeBounds::new(i, i + 1))].into());
        let first = t.intern(f, &e(0));
        assert!(is_conveyed(first));
        assert_eq!(first.counter(), CONVEYED_BASE);
        for i in 1..=MAX_CONVEYED as u64 {
            t.intern(f, &e(i));
        }
        assert_eq!(t.regions.len(), MAX_CONVEYED);
        assert!(!t.regions.contains_key(&first), "the oldest went");
        assert_eq!(t.intern(f, &e(5)), RegionHandle::new(f, CONVEYED_BASE + 5));
        // Restored from a save (the index is not saved): the same handles.
        let bytes = postcard::to_allocvec(&t).expect("encode");
        let mut back: Conveyed = postcard::from_bytes(&bytes).expect("decode");
        assert_eq!(
            back.intern(f, &e(7)),
            RegionHandle::new(f, CONVEYED_BASE + 7)
        );
    }
}
