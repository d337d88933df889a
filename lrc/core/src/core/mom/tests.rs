//! Unit tests of the MOM (one LRC, its federates' callbacks).

use super::*;
use crate::core::wire::Decision;
use crate::core::wire::ResignAction;
use crate::core::{Action, Callback, Completion, Event};
use crate::error::RtiError;
use hlamesh_timesync::{DynInterval, HLAfloat64Interval};

const FOM: &str = include_str!("../../../../../foms/UpdateRates.xml");

type Params = Vec<(ParameterHandle, Vec<u8>)>;

/// One LRC (the coordinator) and the callbacks its federates got.
struct One {
    core: FederationCore,
    got: Vec<(FederateHandle, Callback)>,
    updates_sent: usize,
}

impl One {
    fn new() -> One {
        One::with_fom(FOM)
    }

    fn with_fom(fom: &str) -> One {
        let modules = vec![("UpdateRates.xml".to_string(), fom.to_string())];
        let core = FederationCore::create("F", 1, 0, modules).expect("create");
        One {
            core,
            got: Vec::new(),
            updates_sent: 0,
        }
    }

    fn drain(&mut self) -> Option<FederateHandle> {
        let mut joined = None;
        while let Some(a) = self.core.poll_action() {
            match a {
                Action::Complete {
                    result: Ok(Completion::Joined(h)),
                    ..
                } => joined = Some(h),
                Action::Callback { federate, callback } => self.got.push((federate, callback)),
                Action::SendData {
                    class: Some(crate::core::DataClass::Object(_)),
                    ..
                } => self.updates_sent += 1,
                _ => {}
            }
        }
        joined
    }

    fn join(&mut self, name: &str) -> FederateHandle {
        self.join_with(name, Vec::new())
    }

    fn join_with(&mut self, name: &str, modules: Vec<(String, String)>) -> FederateHandle {
        self.core
            .join_with_modules(Some(name.into()), "monitor", modules);
        for _ in 0..10 {
            if let Some(h) = self.drain() {
                return h;
            }
            self.core.handle(0, Event::Tick);
        }
        panic!("{name} never joined");
    }

    fn handles(&mut self) -> MomHandles {
        self.core.mom_handles().cloned().expect("the MIM")
    }

    fn attr(&mut self, n: &str) -> AttributeHandle {
        self.handles().federate_attrs[n]
    }

    /// The last value `f` had reflected of attribute `a` of `o`.
    fn reflected(
        &self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        a: AttributeHandle,
    ) -> Option<Vec<u8>> {
        self.got.iter().rev().find_map(|(g, cb)| match cb {
            Callback::ReflectAttributeValues { object, values, .. } if *g == f && *object == o => {
                values.iter().find(|(x, _)| *x == a).map(|(_, v)| v.clone())
            }
            _ => None,
        })
    }

    /// The interactions `f` received so far: (class, parameters).
    fn received(&self, f: FederateHandle) -> Vec<(InteractionClassHandle, Params)> {
        self.got
            .iter()
            .filter_map(|(g, cb)| match cb {
                Callback::ReceiveInteraction { class, params, .. } if *g == f => {
                    Some((*class, params.clone()))
                }
                _ => None,
            })
            .collect()
    }

    fn send_mom(
        &mut self,
        from: FederateHandle,
        name: &str,
        target: FederateHandle,
        params: &[(&str, Vec<u8>)],
    ) {
        let fdd = self.core.fdd_ref().expect("fdd");
        let ic = self.handles().interactions[name];
        self.core
            .publish_interaction_class(from, ic)
            .expect("publish");
        let mut ps = vec![(
            fdd.parameter_handle(ic, "HLAfederate")
                .expect("HLAfederate"),
            handle_value(&target.encode()),
        )];
        for (n, v) in params {
            ps.push((fdd.parameter_handle(ic, n).expect("parameter"), v.clone()));
        }
        self.core
            .send_interaction(from, ic, ps, Vec::new(), None)
            .expect("send");
        self.drain();
    }

    /// Sends MOM interaction `name` with exactly these parameters (none added).
    fn send_raw(&mut self, from: FederateHandle, name: &str, params: &[(&str, Vec<u8>)]) {
        let fdd = self.core.fdd_ref().expect("fdd");
        let ic = self.handles().interactions[name];
        self.core
            .publish_interaction_class(from, ic)
            .expect("publish");
        let ps = params
            .iter()
            .map(|(n, v)| (fdd.parameter_handle(ic, n).expect("parameter"), v.clone()))
            .collect();
        self.core
            .send_interaction(from, ic, ps, Vec::new(), None)
            .expect("send");
        self.drain();
    }

    /// `f` subscribes to MOM report `name`; returns its class.
    fn subscribe(&mut self, f: FederateHandle, name: &str) -> InteractionClassHandle {
        let ic = self.handles().interactions[name];
        self.core
            .subscribe_interaction_class(f, ic, true)
            .expect("subscribe");
        ic
    }

    /// The reports of class `ic` that `f` received, each as its parameters by name.
    fn reports(
        &self,
        f: FederateHandle,
        ic: InteractionClassHandle,
    ) -> Vec<BTreeMap<String, Vec<u8>>> {
        let fdd = self.core.fdd_ref().expect("fdd");
        self.received(f)
            .into_iter()
            .filter(|(c, _)| *c == ic)
            .map(|(_, ps)| {
                ps.into_iter()
                    .map(|(p, v)| {
                        let n = fdd.parameter_name(ic, p).expect("name").to_string();
                        (n, v)
                    })
                    .collect()
            })
            .collect()
    }
}

/// HLAobjectClassBasedCounts / HLAinteractionCounts as the MIM encodes them.
fn counts(records: &[(Vec<u8>, i32)]) -> Vec<u8> {
    let mut e = crate::encoding::Encoder::new();
    e.write_count(records.len());
    for (h, n) in records {
        e.align(4);
        e.put(&OpaqueData(h.clone()));
        e.put(n);
    }
    e.into_bytes()
}

fn unicode(s: &str) -> Vec<u8> {
    s.to_string().encode()
}

#[test]
fn every_federate_is_an_instance_its_subscribers_discover_with_the_mims_encodings() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let class = one.handles().federate;
    let attrs: Vec<AttributeHandle> = one.handles().federate_attrs.values().copied().collect();
    // The MIM's 32 and the inherited HLAprivilegeToDeleteObject.
    assert_eq!(attrs.len(), 33, "every HLAfederate attribute of the MIM");
    assert_eq!(
        one.core.mom_federate_values(a, None).len(),
        32,
        "a value for each of the MIM's attributes"
    );
    one.core
        .subscribe_object_class_attributes(m, class, &attrs, true)
        .expect("subscribe");
    one.drain();
    let discovered: Vec<(ObjectInstanceHandle, String)> = one
        .got
        .iter()
        .filter_map(|(f, cb)| match cb {
            Callback::DiscoverObjectInstance { object, name, .. } if *f == m => {
                Some((*object, name.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        discovered,
        vec![
            (federate_instance(a), "HLAfederate.A".to_string()),
            (federate_instance(m), "HLAfederate.M".to_string()),
        ],
        "its own instance too"
    );
    // A regulates with lookahead 2.5, then M asks for the values.
    let la = DynInterval::Float(HLAfloat64Interval::new(2.5).expect("interval"));
    one.core
        .time_change(a, "enableTimeRegulation", |t| t.enable_time_regulation(la))
        .expect("regulate");
    one.drain();
    one.core
        .request_attribute_value_update(m, None, Some(class), attrs.clone(), Vec::new())
        .expect("request");
    one.drain();
    let oa = federate_instance(a);
    let v = |one: &mut One, n: &str| {
        let at = one.attr(n);
        one.reflected(m, oa, at)
            .unwrap_or_else(|| panic!("{n} reflected"))
    };
    assert_eq!(
        v(&mut one, "HLAfederateHandle"),
        vec![0, 0, 0, 4, 0, 0, 0, a.0 as u8]
    );
    assert_eq!(v(&mut one, "HLAfederateName"), unicode("A"));
    assert_eq!(v(&mut one, "HLAfederateType"), unicode("monitor"));
    assert_eq!(v(&mut one, "HLAtimeRegulating"), vec![0, 0, 0, 1]);
    assert_eq!(v(&mut one, "HLAtimeConstrained"), vec![0, 0, 0, 0]);
    let mut lookahead = vec![0, 0, 0, 8];
    lookahead.extend_from_slice(&2.5f64.to_be_bytes());
    assert_eq!(v(&mut one, "HLAlookahead"), lookahead);
    let mut zero = vec![0, 0, 0, 8];
    zero.extend_from_slice(&0.0f64.to_be_bytes());
    assert_eq!(v(&mut one, "HLAlogicalTime"), zero);
    assert_eq!(v(&mut one, "HLAfederateState"), vec![0, 0, 0, 1]);
    assert_eq!(v(&mut one, "HLAtimeManagerState"), vec![0, 0, 0, 0]);
    // The modules A brought at its join: none (the federation's are `HLAfederation`'s).
    assert_eq!(v(&mut one, "HLAFOMmoduleDesignatorList"), vec![0, 0, 0, 0]);
    assert_eq!(v(&mut one, "HLAupdatesSent"), vec![0, 0, 0, 0]);
    assert_eq!(v(&mut one, "HLAconveyProducingFederate"), vec![0, 0, 0, 1]);
    // A resigns: M's view of it goes.
    one.core.resign(a, ResignAction::NoAction).expect("resign");
    one.drain();
    assert!(
        one.got.iter().any(|(f, cb)| *f == m
            && matches!(cb, Callback::RemoveObjectInstance { object, .. } if *object == oa)),
        "A's instance removed"
    );
}

#[test]
fn mom_instances_are_owned_by_the_rti() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let class = one.handles().federate;
    let name = one.attr("HLAfederateName");
    one.core
        .publish_object_class_attributes(m, class, &[name])
        .expect("publish");
    one.core
        .subscribe_object_class_attributes(m, class, &[name], true)
        .expect("subscribe");
    one.drain();
    let oa = federate_instance(a);
    assert_eq!(
        one.core.is_attribute_owned_by_federate(m, oa, name),
        Ok(false)
    );
    assert!(matches!(
        one.core
            .update_attribute_values(m, oa, vec![(name, unicode("X"))], Vec::new(), None),
        Err(RtiError::AttributeNotOwned(_))
    ));
    assert!(matches!(
        one.core.delete_object_instance(m, oa, Vec::new(), None),
        Err(RtiError::DeletePrivilegeNotHeld(_))
    ));
    assert!(matches!(
        one.core
            .attribute_ownership_acquisition_if_available(m, oa, &[name]),
        Err(RtiError::AttributeNotPublished(_))
    ));
    one.core
        .query_attribute_ownership(m, oa, name)
        .expect("query");
    one.drain();
    assert!(one.got.iter().any(|(f, cb)| *f == m
        && *cb
            == Callback::AttributeIsOwnedByRti {
                object: oa,
                attr: name
            }));
}

#[test]
fn periodic_updates_follow_set_timing_and_nothing_is_sent_without_it() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let class = one.handles().federate;
    let name = one.attr("HLAfederateName");
    one.core
        .subscribe_object_class_attributes(m, class, &[name], true)
        .expect("subscribe");
    one.drain();
    one.updates_sent = 0;
    for t in 1..=50 {
        one.core.handle(t * 100_000, Event::Tick);
        one.drain();
    }
    assert_eq!(
        one.updates_sent, 0,
        "no MOM update while nobody set a timing"
    );
    // Report period 2 s from t = 5 s: due at 7, 9, 11 s.
    one.core.set_clock(5_000_000);
    one.send_mom(
        a.max(m),
        "HLAfederate.HLAadjust.HLAsetTiming",
        a,
        &[("HLAreportPeriod", 2i32.encode())],
    );
    assert_eq!(one.core.mom_report_period(a), Some(2_000_000));
    let mut at = Vec::new();
    for t in 51..=115 {
        let before = one.updates_sent;
        one.core.handle(t * 100_000, Event::Tick);
        one.drain();
        if one.updates_sent > before {
            at.push(t * 100_000);
        }
    }
    assert_eq!(at, vec![7_000_000, 9_000_000, 11_000_000]);
    // Period 0 stops them.
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetTiming",
        a,
        &[("HLAreportPeriod", 0i32.encode())],
    );
    assert_eq!(one.core.mom_report_period(a), None);
}

#[test]
fn request_publications_is_answered_with_one_report_per_class() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let fdd = one.core.fdd_ref().expect("fdd");
    let track = fdd.object_class_handle("Track").expect("Track");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    one.core
        .publish_object_class_attributes(a, track, &[seq])
        .expect("publish");
    let h = one.handles();
    let report = h.interactions["HLAfederate.HLAreport.HLAreportObjectClassPublication"];
    let interactions = h.interactions["HLAfederate.HLAreport.HLAreportInteractionPublication"];
    one.core
        .subscribe_interaction_class(m, report, true)
        .expect("subscribe");
    one.core
        .subscribe_interaction_class(m, interactions, true)
        .expect("subscribe");
    one.send_mom(m, "HLAfederate.HLArequest.HLArequestPublications", a, &[]);
    let got = one.received(m);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, report);
    let p = |c: InteractionClassHandle, ps: &[(ParameterHandle, Vec<u8>)], n: &str| {
        let h = fdd.parameter_handle(c, n).expect("parameter");
        ps.iter().find(|(x, _)| *x == h).map(|(_, v)| v.clone())
    };
    assert_eq!(
        p(report, &got[0].1, "HLAnumberOfClasses"),
        Some(1i32.encode())
    );
    assert_eq!(
        p(report, &got[0].1, "HLAobjectClass"),
        Some(handle_value(&track.encode()))
    );
    assert_eq!(
        p(report, &got[0].1, "HLAattributeList"),
        Some(handle_list([seq.encode().to_vec()]))
    );
    assert_eq!(
        p(report, &got[0].1, "HLAfederate"),
        Some(handle_value(&a.encode()))
    );
    assert_eq!(got[1].0, interactions);
    assert_eq!(
        p(interactions, &got[1].1, "HLAinteractionClassList"),
        Some(vec![0, 0, 0, 0])
    );
}

#[test]
fn request_subscriptions_and_deletable_counts_are_reported_in_the_mims_records() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let fdd = one.core.fdd_ref().expect("fdd");
    let track = fdd.object_class_handle("Track").expect("Track");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    one.core
        .subscribe_object_class_attributes(a, track, &[seq], false)
        .expect("subscribe");
    one.core
        .publish_object_class_attributes(a, track, &[seq])
        .expect("publish");
    let o1 = one
        .core
        .register_object_instance(a, track, None)
        .expect("register");
    let _o2 = one
        .core
        .register_object_instance(a, track, None)
        .expect("register");
    one.drain();
    let h = one.handles();
    let subs = h.interactions["HLAfederate.HLAreport.HLAreportObjectClassSubscription"];
    let isubs = h.interactions["HLAfederate.HLAreport.HLAreportInteractionSubscription"];
    let counts = h.interactions["HLAfederate.HLAreport.HLAreportObjectInstancesThatCanBeDeleted"];
    for ic in [subs, isubs, counts] {
        one.core
            .subscribe_interaction_class(m, ic, true)
            .expect("subscribe");
    }
    one.got.clear();
    one.send_mom(m, "HLAfederate.HLArequest.HLArequestSubscriptions", a, &[]);
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestObjectInstancesThatCanBeDeleted",
        a,
        &[],
    );
    let got: BTreeMap<InteractionClassHandle, Params> = one.received(m).into_iter().collect();
    let p = |c: InteractionClassHandle, n: &str| {
        let ph = fdd.parameter_handle(c, n).expect("parameter");
        got[&c]
            .iter()
            .find(|(x, _)| *x == ph)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        p(subs, "HLAobjectClass"),
        Some(handle_value(&track.encode()))
    );
    assert_eq!(p(subs, "HLAactive"), Some(false.encode()), "passive");
    assert_eq!(p(subs, "HLAmaxUpdateRate"), Some(String::new().encode()));
    assert_eq!(p(subs, "HLAnumberOfClasses"), Some(1i32.encode()));
    assert_eq!(p(isubs, "HLAinteractionClassList"), Some(vec![0, 0, 0, 0]));
    // HLAobjectClassBasedCounts: one record {HLAhandle Track, HLAcount 2}.
    let mut want = vec![0, 0, 0, 1];
    want.extend(handle_value(&track.encode()));
    want.extend(2i32.to_be_bytes());
    assert_eq!(p(counts, "HLAobjectInstanceCounts"), Some(want));
    // The counters agree.
    let values = one.core.mom_federate_values(a, None);
    let at = one.attr("HLAobjectInstancesRegistered");
    assert_eq!(
        values
            .iter()
            .find(|(x, _)| *x == at)
            .map(|(_, v)| v.clone()),
        Some(2i32.encode())
    );
    let at = one.attr("HLAobjectInstancesThatCanBeDeleted");
    assert_eq!(
        values
            .iter()
            .find(|(x, _)| *x == at)
            .map(|(_, v)| v.clone()),
        Some(2i32.encode())
    );
    let _ = o1;
}

#[test]
fn the_federation_instance_names_the_federation_its_federates_and_time_implementation() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let h = one.handles();
    let attrs: Vec<AttributeHandle> = h.federation_attrs.values().copied().collect();
    assert_eq!(
        attrs.len(),
        13,
        "the MIM's 12 attributes and HLAprivilegeToDeleteObject"
    );
    one.core
        .subscribe_object_class_attributes(m, h.federation, &attrs, true)
        .expect("subscribe");
    one.drain();
    assert!(one.got.iter().any(|(f, cb)| *f == m
        && matches!(cb, Callback::DiscoverObjectInstance { object, name, .. }
            if *object == federation_instance() && name == FEDERATION_INSTANCE_NAME)));
    one.core
        .request_attribute_value_update(m, Some(federation_instance()), None, attrs, Vec::new())
        .expect("request");
    one.drain();
    let o = federation_instance();
    let v = |one: &One, n: &str| one.reflected(m, o, h.federation_attrs[n]);
    assert_eq!(v(&one, "HLAfederationName"), Some(unicode("F")));
    assert_eq!(
        v(&one, "HLAfederatesInFederation"),
        Some(handle_list([a.encode().to_vec(), m.encode().to_vec()]))
    );
    assert_eq!(
        v(&one, "HLAtimeImplementationName"),
        Some(unicode("HLAfloat64Time"))
    );
    assert_eq!(v(&one, "HLAMIMdesignator"), Some(unicode(MIM_DESIGNATOR)));
    assert_eq!(v(&one, "HLAlastSaveName"), Some(unicode("")));
    assert_eq!(
        v(&one, "HLAlastSaveTime"),
        Some(vec![0, 0, 0, 0]),
        "no save: empty"
    );
}

#[test]
fn time_in_the_granted_and_advancing_states_adds_up() {
    let mut t = TimeInStates {
        since: 1_000_000,
        ..TimeInStates::default()
    };
    assert_eq!(t.millis(3_500_000), (2_500, 0), "granted since the join");
    t.enter(true, 4_000_000);
    t.enter(true, 4_500_000); // no change
    assert_eq!(t.millis(4_750_000), (3_000, 750));
    t.enter(false, 5_000_000);
    assert_eq!(t.millis(6_000_000), (4_000, 1_000));
}

#[test]
fn an_advance_request_and_its_grant_move_the_federates_time_between_the_states() {
    let mut one = One::new();
    let a = one.join("A");
    one.core.set_clock(2_000_000);
    let t =
        hlamesh_timesync::DynTime::Float(hlamesh_timesync::HLAfloat64Time::new(5.0).expect("time"));
    one.core
        .time_change(a, "timeAdvanceRequest", |m| m.time_advance_request(t))
        .expect("TAR");
    one.drain();
    assert!(
        one.got
            .iter()
            .any(|(f, cb)| *f == a && matches!(cb, Callback::TimeAdvanceGrant(_))),
        "granted at once (not regulated by anyone)"
    );
    one.core.set_clock(3_000_000);
    let granted = one.attr("HLAtimeGrantedTime");
    let values = one.core.mom_federate_values(a, Some(&[granted]));
    assert_eq!(values, vec![(granted, 3_000i32.encode())]);
}

#[test]
fn a_removed_instance_stays_counted_but_is_no_longer_remembered() {
    let mut d = DistinctInstances::default();
    let (a, b) = (ObjectInstanceHandle(1), ObjectInstanceHandle(2));
    d.insert(a, ObjectClassHandle(1));
    d.insert(a, ObjectClassHandle(1));
    d.insert(b, ObjectClassHandle(2));
    assert_eq!(d.len(), 2);
    d.forget(a);
    d.forget(a);
    assert_eq!(d.len(), 2, "still counted, once");
    assert_eq!(d.live.len(), 1, "only b remembered");
    d.insert(a, ObjectClassHandle(1));
    assert_eq!(
        d.len(),
        3,
        "a handle seen again after its removal is a new instance"
    );
}

/// A federation of A (publishes Track, registers one instance, updates it reliably twice and
/// best-effort once) and M (subscribes Track).
fn tracks() -> (
    One,
    FederateHandle,
    FederateHandle,
    ObjectClassHandle,
    ObjectInstanceHandle,
) {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let fdd = one.core.fdd_ref().expect("fdd");
    let track = fdd.object_class_handle("Track").expect("Track");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let pos = fdd.attribute_handle(track, "Position").expect("Position");
    one.core
        .publish_object_class_attributes(a, track, &[seq, pos])
        .expect("publish");
    one.core
        .subscribe_object_class_attributes(m, track, &[seq, pos], true)
        .expect("subscribe");
    let o = one
        .core
        .register_object_instance(a, track, None)
        .expect("register");
    for v in [
        vec![(seq, 1i32.encode())],
        vec![(seq, 2i32.encode())],
        vec![(pos, 3i32.encode())],
    ] {
        one.core
            .update_attribute_values(a, o, v, Vec::new(), None)
            .expect("update");
    }
    one.drain();
    (one, a, m, track, o)
}

#[test]
fn counts_by_class_and_transportation_are_reported_one_report_per_transportation() {
    let (mut one, a, m, track, _) = tracks();
    let sent = one.subscribe(m, "HLAfederate.HLAreport.HLAreportUpdatesSent");
    let reflected = one.subscribe(m, "HLAfederate.HLAreport.HLAreportReflectionsReceived");
    let updated = one.subscribe(m, "HLAfederate.HLAreport.HLAreportObjectInstancesUpdated");
    let isent = one.subscribe(m, "HLAfederate.HLAreport.HLAreportInteractionsSent");
    one.send_mom(m, "HLAfederate.HLArequest.HLArequestUpdatesSent", a, &[]);
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestReflectionsReceived",
        m,
        &[],
    );
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestObjectInstancesUpdated",
        a,
        &[],
    );
    let t = handle_value(&track.encode())[4..].to_vec();
    let r = one.reports(m, sent);
    assert_eq!(r.len(), 2, "one per transportation: {r:?}");
    assert_eq!(r[0]["HLAtransportation"], unicode("HLAreliable"));
    assert_eq!(r[0]["HLAupdateCounts"], counts(&[(t.clone(), 2)]));
    assert_eq!(r[1]["HLAtransportation"], unicode("HLAbestEffort"));
    assert_eq!(r[1]["HLAupdateCounts"], counts(&[(t.clone(), 1)]));
    assert_eq!(r[0]["HLAfederate"], handle_value(&a.encode()));
    let r = one.reports(m, reflected);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["HLAreflectCounts"], counts(&[(t.clone(), 2)]));
    assert_eq!(r[1]["HLAreflectCounts"], counts(&[(t.clone(), 1)]));
    let r = one.reports(m, updated);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAobjectInstanceCounts"], counts(&[(t, 1)]));
    // M sent three requests (reliable MOM interactions) before asking about its own.
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestInteractionsSent",
        m,
        &[],
    );
    let r = one.reports(m, isent);
    assert_eq!(r.len(), 2);
    // Counted once sent: the request being answered is not in its own report yet.
    let h = one.handles();
    let want: BTreeMap<InteractionClassHandle, i32> = [
        "HLAfederate.HLArequest.HLArequestUpdatesSent",
        "HLAfederate.HLArequest.HLArequestObjectInstancesUpdated",
        "HLAfederate.HLArequest.HLArequestReflectionsReceived",
    ]
    .iter()
    .map(|n| (h.interactions[*n], 1))
    .collect();
    let want: Vec<(Vec<u8>, i32)> = want
        .into_iter()
        .map(|(c, n)| (c.encode().to_vec(), n))
        .collect();
    assert_eq!(r[0]["HLAinteractionCounts"], counts(&want));
    assert_eq!(
        r[1]["HLAinteractionCounts"],
        vec![0, 0, 0, 0],
        "none best-effort"
    );
}

#[test]
fn object_instance_information_names_owned_attributes_and_both_classes() {
    let (mut one, a, m, track, o) = tracks();
    let info = one.subscribe(
        m,
        "HLAfederate.HLAreport.HLAreportObjectInstanceInformation",
    );
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    let ov = handle_value(&o.encode());
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestObjectInstanceInformation",
        a,
        &[("HLAobjectInstance", ov.clone())],
    );
    let r = one.reports(m, info);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAobjectInstance"], ov);
    assert_eq!(r[0]["HLAregisteredClass"], handle_value(&track.encode()));
    assert_eq!(r[0]["HLAknownClass"], handle_value(&track.encode()));
    let fdd = one.core.fdd_ref().expect("fdd");
    let mut owned: Vec<AttributeHandle> = ["HLAprivilegeToDeleteObject", "Sequence", "Position"]
        .iter()
        .map(|n| fdd.attribute_handle(track, n).expect("attribute"))
        .collect();
    owned.sort();
    assert_eq!(
        r[0]["HLAownedInstanceAttributeList"],
        handle_list(owned.iter().map(|a| a.encode().to_vec()))
    );
    // M knows it but owns nothing of it.
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestObjectInstanceInformation",
        m,
        &[("HLAobjectInstance", ov)],
    );
    assert_eq!(
        one.reports(m, info)[1]["HLAownedInstanceAttributeList"],
        vec![0, 0, 0, 0]
    );
    // An instance nobody registered: HLAreportMOMexception with HLAparameterError.
    let nothing = handle_value(&ObjectInstanceHandle::new(a, 99).encode());
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestObjectInstanceInformation",
        a,
        &[("HLAobjectInstance", nothing)],
    );
    let r = one.reports(m, exc);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        r[0]["HLAservice"],
        unicode(
            "HLAinteractionRoot.HLAmanager.HLAfederate.HLArequest.HLArequestObjectInstanceInformation"
        )
    );
    assert_eq!(r[0]["HLAparameterError"], true.encode());
    assert_eq!(r[0]["HLAfederate"], handle_value(&a.encode()));
}

#[test]
fn fom_module_and_mim_data_and_synchronization_points_are_answered_by_the_voice() {
    let mut one = One::new();
    // A brings the federation's module again: its own list has it (the federation's once).
    let a = one.join_with("A", vec![("UpdateRates.xml".to_string(), FOM.to_string())]);
    let m = one.join("M");
    let fed_module = one.subscribe(m, "HLAfederation.HLAreport.HLAreportFOMmoduleData");
    let own_module = one.subscribe(m, "HLAfederate.HLAreport.HLAreportFOMmoduleData");
    let mim = one.subscribe(m, "HLAfederation.HLAreport.HLAreportMIMdata");
    let points = one.subscribe(m, "HLAfederation.HLAreport.HLAreportSynchronizationPoints");
    let status = one.subscribe(
        m,
        "HLAfederation.HLAreport.HLAreportSynchronizationPointStatus",
    );
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    one.send_raw(
        m,
        "HLAfederation.HLArequest.HLArequestFOMmoduleData",
        &[("HLAFOMmoduleIndicator", 0i32.encode())],
    );
    let r = one.reports(m, fed_module);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAFOMmoduleIndicator"], 0i32.encode());
    assert_eq!(r[0]["HLAFOMmoduleData"], unicode(FOM));
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestFOMmoduleData",
        a,
        &[("HLAFOMmoduleIndicator", 0i32.encode())],
    );
    assert_eq!(
        one.reports(m, own_module)[0]["HLAFOMmoduleData"],
        unicode(FOM)
    );
    one.send_raw(
        m,
        "HLAfederation.HLArequest.HLArequestFOMmoduleData",
        &[("HLAFOMmoduleIndicator", 1i32.encode())],
    );
    assert_eq!(one.reports(m, exc).len(), 1, "no module 1: an exception");
    assert_eq!(one.reports(m, fed_module).len(), 1);
    one.send_raw(m, "HLAfederation.HLArequest.HLArequestMIMdata", &[]);
    assert_eq!(
        one.reports(m, mim)[0]["HLAMIMdata"],
        unicode(crate::fom::STANDARD_MIM_XML)
    );
    // A point for A and M; A achieves it.
    one.core
        .register_federation_synchronization_point(a, "ready", b"", None)
        .expect("register");
    one.drain();
    one.core
        .synchronization_point_achieved(a, "ready", true)
        .expect("achieve");
    one.drain();
    one.send_raw(
        m,
        "HLAfederation.HLArequest.HLArequestSynchronizationPoints",
        &[],
    );
    assert_eq!(
        one.reports(m, points)[0]["HLAsyncPoints"],
        vec!["ready".to_string()].encode()
    );
    one.send_raw(
        m,
        "HLAfederation.HLArequest.HLArequestSynchronizationPointStatus",
        &[],
    );
    let r = one.reports(m, status);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAsyncPointName"], unicode("ready"));
    let mut want = vec![0, 0, 0, 2];
    want.extend(handle_value(&a.encode()));
    want.extend(3i32.to_be_bytes()); // WaitingForRestOfFederation
    want.extend(handle_value(&m.encode()));
    want.extend(2i32.to_be_bytes()); // MovingToSynchPoint
    assert_eq!(r[0]["HLAsyncPointFederates"], want);
}

#[test]
fn service_actions_take_the_federates_own_paths_and_failures_are_mom_exceptions() {
    let (mut one, a, m, track, o) = tracks();
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let b = one.join("B");
    one.drain();
    // B subscribes to Track through the MOM: it discovers A's instance, as if it had called.
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAsubscribeObjectClassAttributes",
        b,
        &[
            ("HLAobjectClass", handle_value(&track.encode())),
            ("HLAattributeList", handle_list([seq.encode().to_vec()])),
            ("HLAactive", true.encode()),
        ],
    );
    assert!(
        one.got.iter().any(|(f, cb)| *f == b
            && matches!(cb, Callback::DiscoverObjectInstance { object, .. } if *object == o)),
        "B discovered the instance"
    );
    // B publishes Track through the MOM and may register an instance itself.
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLApublishObjectClassAttributes",
        b,
        &[
            ("HLAobjectClass", handle_value(&track.encode())),
            ("HLAattributeList", handle_list([seq.encode().to_vec()])),
        ],
    );
    assert!(one.core.register_object_instance(b, track, None).is_ok());
    // Time: B becomes regulating (its callback comes) and advances.
    let mut la = vec![0, 0, 0, 8];
    la.extend(1.0f64.to_be_bytes());
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAenableTimeRegulation",
        b,
        &[("HLAlookahead", la)],
    );
    assert!(
        one.got
            .iter()
            .any(|(f, cb)| *f == b && matches!(cb, Callback::TimeRegulationEnabled(_)))
    );
    let mut t = vec![0, 0, 0, 8];
    t.extend(4.0f64.to_be_bytes());
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAtimeAdvanceRequest",
        b,
        &[("HLAtimeStamp", t.clone())],
    );
    assert!(one.got.iter().any(|(f, cb)| *f == b
        && matches!(cb, Callback::TimeAdvanceGrant(x) if format!("{x:?}").contains('4'))));
    assert!(one.reports(m, exc).is_empty(), "{:?}", one.reports(m, exc));
    // A precondition fails: A deletes an instance it does not know.
    let mine = one
        .core
        .register_object_instance(b, track, None)
        .expect("register");
    one.drain();
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAdeleteObjectInstance",
        a,
        &[("HLAobjectInstance", handle_value(&mine.encode()))],
    );
    let r = one.reports(m, exc);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAparameterError"], false.encode());
    let text = String::decode(&r[0]["HLAexception"]).expect("text");
    assert!(text.starts_with("ObjectInstanceNotKnown"), "{text}");
    // A deletes its own instance through the MOM: M gets the removal.
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAdeleteObjectInstance",
        a,
        &[("HLAobjectInstance", handle_value(&o.encode()))],
    );
    assert!(one.got.iter().any(|(f, cb)| *f == m
        && matches!(cb, Callback::RemoveObjectInstance { object, .. } if *object == o)));
    // Synchronization point achieved on B's behalf.
    one.core
        .register_federation_synchronization_point(a, "go", b"", None)
        .expect("register");
    one.drain();
    for f in [a, m] {
        one.core
            .synchronization_point_achieved(f, "go", true)
            .expect("achieve");
    }
    one.drain();
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAsynchronizationPointAchieved",
        b,
        &[("HLAlabel", unicode("go"))],
    );
    assert!(one.got.iter().any(|(f, cb)| *f == a
        && matches!(cb, Callback::FederationSynchronized { label, .. } if label == "go")));
}

#[test]
fn malformed_mom_interactions_are_answered_with_exceptions_and_counted() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    assert_eq!(one.core.mom_exception_counters(), (0, 0));
    // No HLAfederate at all: the voice answers, without one.
    one.send_raw(m, "HLAfederate.HLArequest.HLArequestPublications", &[]);
    // An undecodable handle.
    one.send_raw(
        m,
        "HLAfederate.HLArequest.HLArequestPublications",
        &[("HLAfederate", vec![0, 0, 0, 9, 1])],
    );
    // A federate that is not joined.
    one.send_mom(
        m,
        "HLAfederate.HLArequest.HLArequestPublications",
        FederateHandle(77),
        &[],
    );
    // A missing, then an undecodable, then an out-of-range parameter.
    one.send_mom(m, "HLAfederate.HLAadjust.HLAsetTiming", a, &[]);
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetTiming",
        a,
        &[("HLAreportPeriod", vec![1])],
    );
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAresignFederationExecution",
        a,
        &[("HLAresignAction", 9i32.encode())],
    );
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAtimeAdvanceRequest",
        a,
        &[("HLAtimeStamp", vec![0, 0, 0, 3, 1, 2, 3])],
    );
    let r = one.reports(m, exc);
    assert_eq!(r.len(), 7, "{r:?}");
    assert!(!r[0].contains_key("HLAfederate"));
    assert!(!r[1].contains_key("HLAfederate"));
    assert_eq!(
        r[2]["HLAfederate"],
        handle_value(&FederateHandle(77).encode())
    );
    assert!(r.iter().all(|x| x["HLAparameterError"] == true.encode()));
    assert_eq!(one.core.mom_exception_counters(), (7, 7));
    assert!(
        one.core.is_local(a),
        "A was not resigned by an invalid action"
    );
    assert_eq!(one.core.mom_report_period(a), None);
}

#[test]
fn service_reporting_reports_each_invocation_and_never_a_subscriber_of_the_reports() {
    let (mut one, a, m, track, o) = tracks();
    let inv = one.subscribe(m, "HLAfederate.HLAreport.HLAreportServiceInvocation");
    let exc_report = one.subscribe(m, "HLAfederate.HLAreport.HLAreportException");
    let mom_exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetServiceReporting",
        a,
        &[("HLAreportingState", true.encode())],
    );
    assert!(one.core.mom_service_reporting(a));
    // A calls a service as the ambassador does.
    let values = vec![(seq, 5i32.encode())];
    let args = one
        .core
        .mom_supplied(a, || vec![format!("{o:?}"), format!("{values:?}")]);
    one.core
        .mom_reported(a, "updateAttributeValues", args, |c| {
            c.update_attribute_values(a, o, values, Vec::new(), None)
        })
        .expect("update");
    one.drain();
    let r = one.reports(m, inv);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["HLAservice"], unicode("updateAttributeValues"));
    assert_eq!(r[0]["HLAsuccessIndicator"], true.encode());
    assert_eq!(r[0]["HLAserialNumber"], 0i32.encode());
    assert_eq!(r[0]["HLAfederate"], handle_value(&a.encode()));
    let supplied: Vec<String> = Vec::decode(&r[0]["HLAsuppliedArguments"]).expect("args");
    assert_eq!(supplied.len(), 2);
    // A failing call: reported with its exception; exception reporting adds HLAreportException.
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetExceptionReporting",
        a,
        &[("HLAreportingState", true.encode())],
    );
    let r = one
        .core
        .mom_reported(a, "deleteObjectInstance", Some(Vec::new()), |c| {
            c.delete_object_instance(a, ObjectInstanceHandle::new(a, 50), Vec::new(), None)
        });
    assert!(r.is_err());
    one.drain();
    let r = one.reports(m, inv);
    assert_eq!(r.len(), 2);
    assert_eq!(r[1]["HLAsuccessIndicator"], false.encode());
    assert_eq!(r[1]["HLAserialNumber"], 1i32.encode());
    let e = one.reports(m, exc_report);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0]["HLAservice"], unicode("deleteObjectInstance"));
    // The RTI's callbacks at A are reported too: A is given a provide request.
    one.core
        .request_attribute_value_update(m, Some(o), None, vec![seq], Vec::new())
        .expect("request");
    one.drain();
    let r = one.reports(m, inv);
    assert!(
        r.iter()
            .any(|x| x["HLAservice"] == unicode("provideAttributeValueUpdate")),
        "{:?}",
        r.iter()
            .map(|x| String::decode(&x["HLAservice"]))
            .collect::<Vec<_>>()
    );
    // Off: nothing more.
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetServiceReporting",
        a,
        &[("HLAreportingState", false.encode())],
    );
    let n = one.reports(m, inv).len();
    one.core
        .request_attribute_value_update(m, Some(o), None, vec![seq], Vec::new())
        .expect("request");
    one.drain();
    assert_eq!(one.reports(m, inv).len(), n);
    // M subscribes to the reports: its own reporting cannot be enabled.
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetServiceReporting",
        m,
        &[("HLAreportingState", true.encode())],
    );
    assert!(!one.core.mom_service_reporting(m));
    let r = one.reports(m, mom_exc);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAparameterError"], false.encode());
}

#[test]
fn set_switches_change_what_the_instances_report() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let producer = one.attr("HLAconveyProducingFederate");
    let regions = one.attr("HLAconveyRegionDesignatorSets");
    let values = |one: &mut One| one.core.mom_federate_values(a, Some(&[producer, regions]));
    assert_eq!(
        values(&mut one),
        vec![(producer, 1i32.encode()), (regions, 0i32.encode())]
    );
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetSwitches",
        a,
        &[("HLAconveyProducingFederate", 0i32.encode())],
    );
    assert_eq!(
        values(&mut one),
        vec![(producer, 0i32.encode()), (regions, 0i32.encode())],
        "only the parameter sent changes"
    );
    let auto = one.handles().federation_attrs["HLAautoProvide"];
    assert_eq!(
        one.core.mom_federation_values(Some(&[auto])),
        vec![(auto, 0i32.encode())]
    );
    one.send_raw(
        m,
        "HLAfederation.HLAadjust.HLAsetSwitches",
        &[("HLAautoProvide", 1i32.encode())],
    );
    assert_eq!(
        one.core.mom_federation_values(Some(&[auto])),
        vec![(auto, 1i32.encode())]
    );
}

#[test]
fn modify_attribute_state_divests_and_acquires_an_unowned_attribute() {
    let (mut one, a, m, track, o) = tracks();
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let state = |one: &mut One, f: FederateHandle, v: i32| {
        one.send_mom(
            m,
            "HLAfederate.HLAadjust.HLAmodifyAttributeState",
            f,
            &[
                ("HLAobjectInstance", handle_value(&o.encode())),
                ("HLAattribute", handle_value(&seq.encode())),
                ("HLAattributeState", v.encode()),
            ],
        );
    };
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    state(&mut one, a, 0);
    assert_eq!(
        one.core.is_attribute_owned_by_federate(a, o, seq),
        Ok(false)
    );
    state(&mut one, a, 1);
    for t in 1..20 {
        one.core.handle(t, Event::Tick);
        one.drain();
    }
    assert_eq!(one.core.is_attribute_owned_by_federate(a, o, seq), Ok(true));
    // M does not publish Track: refused.
    state(&mut one, m, 1);
    assert_eq!(one.reports(m, exc).len(), 1);
}

#[test]
fn a_reported_federate_that_subscribes_to_its_reports_later_starts_no_loop() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let inv = one.subscribe(m, "HLAfederate.HLAreport.HLAreportServiceInvocation");
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetServiceReporting",
        a,
        &[("HLAreportingState", true.encode())],
    );
    // Enabled first, A subscribes afterwards (the MIM only refuses the other order).
    let args = one.core.mom_supplied(a, || vec![format!("{inv:?}")]);
    one.core
        .mom_reported(a, "subscribeInteractionClass", args, |c| {
            c.subscribe_interaction_class(a, inv, true)
        })
        .expect("subscribe");
    // Bounded: a loop (each receipt reported, each report received) would never end.
    let mut actions = 0;
    while let Some(x) = one.core.poll_action() {
        if let Action::Callback { federate, callback } = x {
            one.got.push((federate, callback));
        }
        actions += 1;
        assert!(actions < 1_000, "the reports feed themselves");
    }
    let r = one.reports(m, inv);
    assert_eq!(r.len(), 1, "the subscription only: {r:?}");
    assert_eq!(
        one.reports(a, inv).len(),
        1,
        "A gets the report about itself"
    );
}

/// A callback queue as the shell lends it (see `queues.rs`), set by hand.
#[derive(Debug, Default)]
struct FakeQueue {
    waiting: std::sync::atomic::AtomicUsize,
    grant: std::sync::atomic::AtomicBool,
}

impl CallbackQueueView for FakeQueue {
    fn waiting(&self) -> usize {
        self.waiting.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn grant_waiting(&self) -> bool {
        self.grant.load(std::sync::atomic::Ordering::SeqCst)
    }
}

fn float_time(t: f64) -> hlamesh_timesync::DynTime {
    hlamesh_timesync::DynTime::Float(hlamesh_timesync::HLAfloat64Time::new(t).expect("time"))
}

/// An HLAlogicalTime parameter of an HLAfloat64Time.
fn time_param(t: f64) -> Vec<u8> {
    OpaqueData(t.to_be_bytes().to_vec()).encode()
}

#[test]
fn ro_and_tso_lengths_count_what_waits_for_the_federate_here_and_in_its_queue() {
    let (mut one, a, m, track, o) = tracks();
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let (ro, tso) = (one.attr("HLAROlength"), one.attr("HLATSOlength"));
    let lengths = |one: &mut One| one.core.mom_federate_values(m, Some(&[ro, tso]));
    assert_eq!(
        lengths(&mut one),
        vec![(ro, 0i32.encode()), (tso, 0i32.encode())]
    );
    // Constrained without asynchronous delivery: receive-order messages wait for an advance.
    one.core
        .time_change(m, "enableTimeConstrained", |t| t.enable_time_constrained())
        .expect("constrained");
    one.drain();
    for v in [7i32, 8] {
        one.core
            .update_attribute_values(a, o, vec![(seq, v.encode())], Vec::new(), None)
            .expect("update");
    }
    one.drain();
    assert_eq!(
        lengths(&mut one),
        vec![(ro, 2i32.encode()), (tso, 0i32.encode())],
        "two updates held by M's time manager"
    );
    // Three callbacks wait in M's queue in the shell: they count too.
    let q = std::sync::Arc::new(FakeQueue::default());
    q.waiting.store(3, std::sync::atomic::Ordering::SeqCst);
    one.core.set_callback_queue(m, q.clone());
    assert_eq!(
        lengths(&mut one),
        vec![(ro, 5i32.encode()), (tso, 0i32.encode())]
    );
    // An advance releases the held ones.
    one.core
        .time_change(m, "timeAdvanceRequest", |t| {
            t.time_advance_request(float_time(1.0))
        })
        .expect("TAR");
    one.drain();
    q.waiting.store(0, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(
        lengths(&mut one),
        vec![(ro, 0i32.encode()), (tso, 0i32.encode())]
    );
}

#[test]
fn a_mom_time_service_sees_a_grant_the_federate_has_not_received() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    let advancing = one.attr("HLAtimeManagerState");
    // Granted at once (nobody regulates), but the grant is still in the core's actions.
    one.core
        .time_change(a, "timeAdvanceRequest", |t| {
            t.time_advance_request(float_time(5.0))
        })
        .expect("TAR");
    assert!(one.core.grant_undelivered(a));
    assert_eq!(
        one.core.mom_federate_values(a, Some(&[advancing])),
        vec![(advancing, 1i32.encode())],
        "advancing until it receives the grant"
    );
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAtimeAdvanceRequest",
        a,
        &[("HLAtimeStamp", time_param(6.0))],
    );
    let r = one.reports(m, exc);
    assert_eq!(r.len(), 1, "refused as A's own call would be");
    let text = String::decode(&r[0]["HLAexception"]).expect("text");
    assert!(text.starts_with("InTimeAdvancingState"), "{text}");
    // Now the grant waits in A's queue in the shell: still refused.
    let q = std::sync::Arc::new(FakeQueue::default());
    q.grant.store(true, std::sync::atomic::Ordering::SeqCst);
    one.core.set_callback_queue(a, q.clone());
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAtimeAdvanceRequest",
        a,
        &[("HLAtimeStamp", time_param(6.0))],
    );
    assert_eq!(one.reports(m, exc).len(), 2);
    // A received it: the MOM's request is A's next advance.
    q.grant.store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(
        one.core.mom_federate_values(a, Some(&[advancing])),
        vec![(advancing, 0i32.encode())]
    );
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAtimeAdvanceRequest",
        a,
        &[("HLAtimeStamp", time_param(6.0))],
    );
    assert_eq!(one.reports(m, exc).len(), 2, "no new exception");
    assert!(
        one.got.iter().any(|(f, cb)| *f == a
            && matches!(cb, Callback::TimeAdvanceGrant(t) if *t == float_time(6.0))),
        "granted 6"
    );
}

/// A FOM module with one interaction class of its own, to bring at a join.
const EXTRA: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
    <modelIdentification><name>Extra</name><type>FOM</type><version>1</version></modelIdentification>
    <interactions>
        <interactionClass>
            <name>HLAinteractionRoot</name>
            <interactionClass>
                <name>Ping</name>
                <sharing>PublishSubscribe</sharing>
                <transportation>HLAreliable</transportation>
                <order>Receive</order>
            </interactionClass>
        </interactionClass>
    </interactions>
</objectModel>
"#;

#[test]
fn each_federate_lists_the_fom_modules_it_brought_and_the_federation_all() {
    let mut one = One::new();
    let a = one.join("A");
    let b = one.join_with(
        "B",
        vec![
            ("Extra.xml".to_string(), EXTRA.to_string()),
            ("Copy.xml".to_string(), EXTRA.to_string()),
            ("UpdateRates.xml".to_string(), FOM.to_string()),
        ],
    );
    let list = one.attr("HLAFOMmoduleDesignatorList");
    let modules = |one: &mut One, f| {
        let v = one.core.mom_federate_values(f, Some(&[list]));
        Vec::<String>::decode(&v[0].1).expect("designators")
    };
    assert!(modules(&mut one, a).is_empty(), "A brought none");
    assert_eq!(
        modules(&mut one, b),
        vec!["Extra.xml".to_string(), "UpdateRates.xml".to_string()],
        "the first of identical modules only"
    );
    let fed_list = one.handles().federation_attrs["HLAFOMmoduleDesignatorList"];
    let v = one.core.mom_federation_values(Some(&[fed_list]));
    assert_eq!(
        Vec::<String>::decode(&v[0].1).expect("designators"),
        vec!["UpdateRates.xml".to_string(), "Extra.xml".to_string()]
    );
    // B's module 0 is Extra.xml; A has none.
    let data = one.subscribe(a, "HLAfederate.HLAreport.HLAreportFOMmoduleData");
    let exc = one.subscribe(a, "HLAfederate.HLAreport.HLAreportMOMexception");
    for f in [b, a] {
        one.send_mom(
            a,
            "HLAfederate.HLArequest.HLArequestFOMmoduleData",
            f,
            &[("HLAFOMmoduleIndicator", 0i32.encode())],
        );
    }
    let r = one.reports(a, data);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["HLAFOMmoduleData"], EXTRA.to_string().encode());
    assert_eq!(one.reports(a, exc).len(), 1, "A has no module 0");
}

#[test]
fn fdd_switches_are_read_as_the_omt_writes_them() {
    let fom = FOM.replace(
        "<updateRates>",
        r#"<switches>
        <autoProvide isEnabled="true"/>
        <conveyRegionDesignatorSets isEnabled="true"/>
        <conveyProducingFederate isEnabled="false"/>
        <exceptionReporting isEnabled="true"/>
        <serviceReporting isEnabled="false"/>
    </switches>
    <updateRates>"#,
    );
    let mut one = One::with_fom(&fom);
    let a = one.join("A");
    assert!(
        one.core.mom.exception_reporting.contains(&a),
        "from the FDD"
    );
    assert!(!one.core.mom_service_reporting(a));
    let regions = one.attr("HLAconveyRegionDesignatorSets");
    let producer = one.attr("HLAconveyProducingFederate");
    // The values in force: the FDD's regions switch (reported only); the producer is
    // conveyed and Auto-Provide off until HLAsetSwitches (see `switches.rs`).
    assert_eq!(
        one.core.mom_federate_values(a, Some(&[producer, regions])),
        vec![(producer, 1i32.encode()), (regions, 1i32.encode())]
    );
    let auto = one.handles().federation_attrs["HLAautoProvide"];
    assert_eq!(
        one.core.mom_federation_values(Some(&[auto])),
        vec![(auto, 0i32.encode())]
    );
    assert!(one.core.mom.producer_hidden.is_empty());
}

#[test]
fn convey_producing_federate_off_hides_the_producer_from_that_receiver_only() {
    let (mut one, a, m, track, o) = tracks();
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let b = one.join("B");
    one.core
        .subscribe_object_class_attributes(b, track, &[seq], true)
        .expect("subscribe");
    one.drain();
    one.send_mom(
        b,
        "HLAfederate.HLAadjust.HLAsetSwitches",
        m,
        &[("HLAconveyProducingFederate", 0i32.encode())],
    );
    one.got.clear();
    one.core
        .update_attribute_values(a, o, vec![(seq, 9i32.encode())], Vec::new(), None)
        .expect("update");
    one.drain();
    let producer_at = |one: &One, f| {
        one.got.iter().find_map(|(g, cb)| match cb {
            Callback::ReflectAttributeValues { info, .. } if *g == f => Some(info.producer),
            _ => None,
        })
    };
    assert_eq!(producer_at(&one, m), Some(NO_PRODUCER), "M's switch is off");
    assert_eq!(producer_at(&one, b), Some(a), "B's is on");
    // M's counters still know who sent it.
    assert_eq!(one.core.mom.counters[&m].reflections_received, 4);
    // The change was sent as an update of M's HLAfederate (the MIM's update condition).
    let attr = one.attr("HLAconveyProducingFederate");
    let mi = federate_instance(m);
    let federate_class = one.handles().federate;
    one.core
        .subscribe_object_class_attributes(b, federate_class, &[attr], true)
        .expect("subscribe");
    one.drain();
    one.send_mom(
        b,
        "HLAfederate.HLAadjust.HLAsetSwitches",
        m,
        &[("HLAconveyProducingFederate", 1i32.encode())],
    );
    assert_eq!(one.reflected(b, mi, attr), Some(1i32.encode()));
    one.core
        .update_attribute_values(a, o, vec![(seq, 10i32.encode())], Vec::new(), None)
        .expect("update");
    one.drain();
    assert_eq!(
        one.got.iter().rev().find_map(|(g, cb)| match cb {
            Callback::ReflectAttributeValues { info, .. } if *g == m => Some(info.producer),
            _ => None,
        }),
        Some(a),
        "on again"
    );
}

#[test]
fn auto_provide_asks_the_owners_for_a_discovered_instances_values() {
    let (mut one, a, m, track, o) = tracks();
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let provide = |one: &One| {
        one.got
            .iter()
            .filter(|(f, cb)| {
                *f == a
                    && matches!(cb, Callback::ProvideAttributeValueUpdate { object, .. } if *object == o)
            })
            .count()
    };
    let b = one.join("B");
    one.core
        .subscribe_object_class_attributes(b, track, &[seq], true)
        .expect("subscribe");
    one.drain();
    assert_eq!(provide(&one), 0, "off by default");
    one.send_raw(
        m,
        "HLAfederation.HLAadjust.HLAsetSwitches",
        &[("HLAautoProvide", 1i32.encode())],
    );
    assert!(one.core.mom_auto_provide());
    assert!(
        one.core
            .view()
            .numbered()
            .any(|(_, d)| matches!(d, Decision::FederationSwitches { auto_provide: true })),
        "decided in the log"
    );
    let c = one.join("C");
    one.core
        .subscribe_object_class_attributes(c, track, &[seq], true)
        .expect("subscribe");
    one.drain();
    assert_eq!(provide(&one), 1, "C's discovery asked A for Sequence");
    assert!(one.got.iter().any(|(f, cb)| *f == a
        && matches!(cb, Callback::ProvideAttributeValueUpdate { attrs, .. } if attrs == &vec![seq])));
}

#[test]
fn modify_attribute_state_takes_an_attribute_from_its_owner_without_notifying_either() {
    let (mut one, a, m, track, o) = tracks();
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    let exc = one.subscribe(m, "HLAfederate.HLAreport.HLAreportMOMexception");
    let b = one.join("B");
    one.core
        .publish_object_class_attributes(b, track, &[seq])
        .expect("publish");
    one.core
        .subscribe_object_class_attributes(b, track, &[seq], true)
        .expect("subscribe");
    one.drain();
    one.got.clear();
    let modify = |one: &mut One, f, o: ObjectInstanceHandle, attr: AttributeHandle| {
        one.send_mom(
            m,
            "HLAfederate.HLAadjust.HLAmodifyAttributeState",
            f,
            &[
                ("HLAobjectInstance", handle_value(&o.encode())),
                ("HLAattribute", handle_value(&attr.encode())),
                ("HLAattributeState", 1i32.encode()),
            ],
        );
        for t in 1..20 {
            one.core.handle(t, Event::Tick);
            one.drain();
        }
    };
    modify(&mut one, b, o, seq);
    assert!(one.reports(m, exc).is_empty(), "{:?}", one.reports(m, exc));
    assert_eq!(one.core.is_attribute_owned_by_federate(b, o, seq), Ok(true));
    assert_eq!(
        one.core.is_attribute_owned_by_federate(a, o, seq),
        Ok(false)
    );
    let ownership_callbacks: Vec<_> = one
        .got
        .iter()
        .filter(|(_, cb)| format!("{cb:?}").contains("Ownership"))
        .collect();
    assert!(
        ownership_callbacks.is_empty(),
        "no notification to either: {ownership_callbacks:?}"
    );
    assert!(matches!(
        one.core
            .update_attribute_values(a, o, vec![(seq, 1i32.encode())], Vec::new(), None),
        Err(RtiError::AttributeNotOwned(_))
    ));
    one.core
        .update_attribute_values(b, o, vec![(seq, 42i32.encode())], Vec::new(), None)
        .expect("B updates it now");
    one.drain();
    assert_eq!(one.reflected(m, o, seq), Some(42i32.encode()));
    // And back to A, which publishes it: taken from B the same way.
    modify(&mut one, a, o, seq);
    assert_eq!(one.core.is_attribute_owned_by_federate(a, o, seq), Ok(true));
    // Refused: M does not publish Track; an attribute of a MOM instance is the RTI's.
    modify(&mut one, m, o, seq);
    let name = one.attr("HLAfederateName");
    let federate_class = one.handles().federate;
    one.core
        .subscribe_object_class_attributes(m, federate_class, &[name], true)
        .expect("subscribe");
    one.drain();
    modify(&mut one, m, federate_instance(a), name);
    let r = one.reports(m, exc);
    assert_eq!(r.len(), 2, "{r:?}");
    for (x, want) in r
        .iter()
        .zip(["AttributeNotPublished", "AttributeAlreadyOwned"])
    {
        let text = String::decode(&x["HLAexception"]).expect("text");
        assert!(text.starts_with(want), "{text}");
    }
    assert_eq!(one.core.is_attribute_owned_by_federate(a, o, seq), Ok(true));
}

#[test]
fn a_restore_brings_back_each_federates_mom_state_as_saved() {
    let (mut one, a, m, track, o) = tracks();
    let fdd = one.core.fdd_ref().expect("fdd");
    let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
    // State worth keeping: a report period, reporting, a switch, the federation's Auto-Provide.
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetTiming",
        a,
        &[("HLAreportPeriod", 5i32.encode())],
    );
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetExceptionReporting",
        a,
        &[("HLAreportingState", true.encode())],
    );
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetSwitches",
        a,
        &[("HLAconveyProducingFederate", 0i32.encode())],
    );
    one.send_raw(
        m,
        "HLAfederation.HLAadjust.HLAsetSwitches",
        &[("HLAautoProvide", 1i32.encode())],
    );
    let counters = [
        one.attr("HLAupdatesSent"),
        one.attr("HLAobjectInstancesRegistered"),
        one.attr("HLAconveyProducingFederate"),
    ];
    let at_save = one.core.mom_federate_values(a, Some(&counters));
    let saved_m = one.core.mom.counters[&m].clone();

    // Save (both federates on this LRC).
    one.core
        .request_federation_save(a, "s", None)
        .expect("save");
    one.drain();
    for f in [a, m] {
        one.core
            .report_federate_save(f, crate::core::save::SaveReport::Begun)
            .expect("begun");
        one.core
            .report_federate_save(f, crate::core::save::SaveReport::Complete)
            .expect("complete");
    }
    let mut states = BTreeMap::new();
    while let Some(x) = one.core.poll_action() {
        if let Action::WriteSave { federate, state } = x {
            // Through the encoding, as a file.
            let bytes = postcard::to_allocvec(&*state).expect("encodes");
            let st: crate::core::save::SavedFederateState =
                postcard::from_bytes(&bytes).expect("decodes");
            states.insert(federate, st);
        }
    }
    assert_eq!(states.len(), 2);
    assert_eq!(states[&a].mom.report_period_us, Some(5_000_000));
    assert_eq!(states[&a].membership.auto_provide, Some(true));
    for f in [a, m] {
        one.core.save_written(f, true);
    }
    one.drain();

    // The run goes on and changes everything.
    for v in [5i32, 6, 7] {
        one.core
            .update_attribute_values(a, o, vec![(seq, v.encode())], Vec::new(), None)
            .expect("update");
    }
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetTiming",
        a,
        &[("HLAreportPeriod", 0i32.encode())],
    );
    one.send_mom(
        m,
        "HLAfederate.HLAadjust.HLAsetSwitches",
        a,
        &[("HLAconveyProducingFederate", 1i32.encode())],
    );
    one.send_raw(
        m,
        "HLAfederation.HLAadjust.HLAsetSwitches",
        &[("HLAautoProvide", 0i32.encode())],
    );
    assert_ne!(one.core.mom_federate_values(a, Some(&counters)), at_save);

    // Restore.
    let membership = states[&a].membership.clone();
    one.core
        .request_federation_restore(a, "s", Ok(membership))
        .expect("restore");
    let mut restored = false;
    for _ in 0..10 {
        let mut progressed = false;
        while let Some(x) = one.core.poll_action() {
            match x {
                Action::LoadRestore { federate, .. } => {
                    let st = states[&federate].clone();
                    one.core.restore_loaded(federate, Ok(st));
                    progressed = true;
                }
                Action::Callback {
                    federate,
                    callback: Callback::InitiateFederateRestore { .. },
                } => {
                    one.core
                        .report_federate_restore(federate, true)
                        .expect("restored");
                    progressed = true;
                }
                Action::Callback {
                    callback: Callback::FederationRestored,
                    ..
                } => restored = true,
                _ => {}
            }
        }
        if !progressed {
            break;
        }
    }
    assert!(restored, "the federation restored");
    assert_eq!(
        one.core.mom_federate_values(a, Some(&counters)),
        at_save,
        "A's counters and switch as saved"
    );
    assert_eq!(one.core.mom.counters[&m], saved_m);
    assert_eq!(one.core.mom_report_period(a), Some(5_000_000));
    assert!(one.core.mom.exception_reporting.contains(&a));
    assert!(
        one.core.mom_auto_provide(),
        "the federation's switch as saved"
    );
    assert!(one.core.mom.producer_hidden.contains(&a));
}

/// A manager's `HLAservice` subscription changes move the DDM cell groups this LRC joins, as the
/// federate's own calls do; attributes without dimensions (the MIM's) join no cell group.
#[test]
fn a_managers_subscription_changes_move_the_cells_and_dimensionless_attributes_join_none() {
    let mut one = One::with_fom(include_str!("../../../../../foms/Cells.xml"));
    let m = one.join("M");
    let b = one.join("B");
    one.drain();
    let fdd = one.core.fdd_ref().expect("fdd");
    let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
    let pos = fdd.attribute_handle(vehicle, "Position").expect("Position");
    let privilege = fdd
        .attribute_handle(vehicle, "HLAprivilegeToDeleteObject")
        .expect("privilege");
    assert!(
        fdd.available_dimensions_for_class_attribute(vehicle, privilege)
            .expect("dimensions")
            .is_empty()
    );
    one.core
        .mom_reported(m, "subscribeObjectClassAttributes", None, |c| {
            c.subscribe_object_class_attributes(m, vehicle, &[privilege], true)
        })
        .expect("subscribe");
    assert!(
        one.core.wanted_cells().is_empty(),
        "no dimensions, no cell group"
    );
    let params = [
        ("HLAobjectClass", handle_value(&vehicle.encode())),
        ("HLAattributeList", handle_list([pos.encode().to_vec()])),
        ("HLAactive", true.encode()),
    ];
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAsubscribeObjectClassAttributes",
        b,
        &params,
    );
    // Without regions: every cell of Position's 4 × 4 grid.
    assert_eq!(one.core.wanted_cells().len(), 16);
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAunsubscribeObjectClassAttributes",
        b,
        &params[..2],
    );
    assert!(one.core.wanted_cells().is_empty());
}

/// A manager's `HLAservice` interaction subscription changes move the DDM cell groups too: a
/// subscription to a best-effort interaction class with dimensions (without regions) wants every
/// cell of its space and of its subclasses' (`Cells.xml`: `Chatter` over X, Y and its subclass
/// `Chatter.Ping` over X, Channel, 16 cells each); a reliable class (`Radio`, over X and
/// Channel) wants its cells too.
#[test]
fn a_managers_interaction_subscription_changes_move_the_cells() {
    let mut one = One::with_fom(include_str!("../../../../../foms/Cells.xml"));
    let m = one.join("M");
    let b = one.join("B");
    one.drain();
    let fdd = one.core.fdd_ref().expect("fdd");
    let chatter = fdd.interaction_class_handle("Chatter").expect("Chatter");
    let radio = fdd.interaction_class_handle("Radio").expect("Radio");
    let subscribe = |ic: InteractionClassHandle| {
        [
            ("HLAinteractionClass", handle_value(&ic.encode())),
            ("HLAactive", true.encode()),
        ]
    };
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAsubscribeInteractionClass",
        b,
        &subscribe(radio),
    );
    assert_eq!(
        one.core.wanted_cells().len(),
        16,
        "every cell of Radio's space"
    );
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAunsubscribeInteractionClass",
        b,
        &subscribe(radio)[..1],
    );
    assert!(one.core.wanted_cells().is_empty());
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAsubscribeInteractionClass",
        b,
        &subscribe(chatter),
    );
    assert_eq!(one.core.wanted_cells().len(), 32);
    one.send_mom(
        m,
        "HLAfederate.HLAservice.HLAunsubscribeInteractionClass",
        b,
        &subscribe(chatter)[..1],
    );
    assert!(one.core.wanted_cells().is_empty());
}

/// A module that adds a best-effort subclass of `Cells.xml`'s `Chatter` over `Y` alone (its
/// own routing space), to bring at a join.
const SHOUT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
    <modelIdentification><name>Shout</name><type>FOM</type><version>1</version></modelIdentification>
    <interactions>
        <interactionClass>
            <name>HLAinteractionRoot</name>
            <interactionClass>
                <name>Chatter</name>
                <interactionClass>
                    <name>Shout</name>
                    <sharing>PublishSubscribe</sharing>
                    <dimensions><dimension>Y</dimension></dimensions>
                    <transportation>HLAbestEffort</transportation>
                    <order>Receive</order>
                </interactionClass>
            </interactionClass>
        </interactionClass>
    </interactions>
    <dimensions>
        <dimension>
            <name>Y</name>
            <dataType>HLAinteger64BE</dataType>
            <upperBound>1000</upperBound>
            <normalization>linear (Y, 0, 1000)</normalization>
            <value>Excluded</value>
        </dimension>
    </dimensions>
</objectModel>
"#;

/// A joiner's module that adds a subclass of an interaction class a local federate subscribes
/// to moves the cells: the subclass's interactions are received as the subscribed class, in
/// the subclass's own routing space.
#[test]
fn a_joiners_module_with_a_subclass_of_a_subscribed_interaction_class_adds_its_cells() {
    let mut one = One::with_fom(include_str!("../../../../../foms/Cells.xml"));
    let s = one.join("S");
    one.drain();
    let chatter = one
        .core
        .fdd_ref()
        .expect("fdd")
        .interaction_class_handle("Chatter")
        .expect("Chatter");
    one.core
        .mom_reported(s, "subscribeInteractionClass", None, |c| {
            c.subscribe_interaction_class(s, chatter, true)
        })
        .expect("subscribe");
    // Chatter's space (X, Y) and Ping's (X, Channel): 16 cells each.
    assert_eq!(one.core.wanted_cells().len(), 32);
    one.join_with("B", vec![("Shout.xml".to_string(), SHOUT.to_string())]);
    assert!(
        one.core
            .fdd_ref()
            .expect("fdd")
            .interaction_class_handle("Chatter.Shout")
            .is_ok(),
        "the module merged"
    );
    // And Shout's (Y): 4 cells.
    assert_eq!(one.core.wanted_cells().len(), 36);
}

/// Values of attribute `a` of `o` that `f` had reflected, in order.
fn reflections_of(
    one: &One,
    f: FederateHandle,
    o: ObjectInstanceHandle,
    a: AttributeHandle,
) -> Vec<Vec<u8>> {
    one.got
        .iter()
        .filter_map(|(g, cb)| match cb {
            Callback::ReflectAttributeValues { object, values, .. } if *g == f && *object == o => {
                values.iter().find(|(x, _)| *x == a).map(|(_, v)| v.clone())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn conditional_attributes_go_when_they_change_and_only_while_someone_subscribes() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let class = one.handles().federate;
    let (regulating, name) = (one.attr("HLAtimeRegulating"), one.attr("HLAfederateName"));
    let oa = federate_instance(a);
    let la = DynInterval::Float(HLAfloat64Interval::new(1.0).expect("interval"));
    // Nobody subscribes: A's change sends nothing.
    one.updates_sent = 0;
    one.core
        .time_change(a, "enableTimeRegulation", |t| t.enable_time_regulation(la))
        .expect("regulate");
    one.drain();
    assert_eq!(one.updates_sent, 0, "an unwatched MOM sends nothing");
    // M subscribes: A's regulating changed since its join's values, so it goes once.
    one.core
        .subscribe_object_class_attributes(m, class, &[regulating, name], true)
        .expect("subscribe");
    one.drain();
    assert_eq!(
        one.updates_sent, 1,
        "only what changed since it was last sent"
    );
    assert_eq!(reflections_of(&one, m, oa, regulating), vec![1i32.encode()]);
    for t in 1..=10 {
        one.core.handle(t * 100_000, Event::Tick);
        one.drain();
    }
    assert_eq!(one.updates_sent, 1, "no change, no update");
    // A stops regulating: one update, with that attribute only.
    one.core
        .time_change(a, "disableTimeRegulation", |t| t.disable_time_regulation())
        .expect("disable");
    one.drain();
    assert_eq!(one.updates_sent, 2);
    assert_eq!(
        reflections_of(&one, m, oa, regulating),
        vec![1i32.encode(), 0i32.encode()]
    );
    let last = one.got.iter().rev().find_map(|(g, cb)| match cb {
        Callback::ReflectAttributeValues { object, values, .. } if *g == m && *object == oa => {
            Some(values.iter().map(|(x, _)| *x).collect::<Vec<_>>())
        }
        _ => None,
    });
    assert_eq!(last, Some(vec![regulating]), "the changed attribute only");
    // Unsubscribed: changes go unsent again.
    one.core
        .unsubscribe_object_class_attributes(m, class, None)
        .expect("unsubscribe");
    one.drain();
    one.core
        .time_change(a, "enableTimeRegulation", |t| t.enable_time_regulation(la))
        .expect("regulate");
    one.drain();
    assert_eq!(one.updates_sent, 2, "nobody watches any more");
}

#[test]
fn a_watched_time_manager_state_shows_the_advance_and_the_grant() {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let class = one.handles().federate;
    let state = one.attr("HLAtimeManagerState");
    let oa = federate_instance(a);
    one.core
        .subscribe_object_class_attributes(m, class, &[state], true)
        .expect("subscribe");
    one.drain();
    assert!(
        reflections_of(&one, m, oa, state).is_empty(),
        "unchanged since the join"
    );
    // M regulates with lookahead 1 at 0 and A is constrained: A's request to 5 waits.
    let la = DynInterval::Float(HLAfloat64Interval::new(1.0).expect("interval"));
    one.core
        .time_change(m, "enableTimeRegulation", |t| t.enable_time_regulation(la))
        .expect("regulate");
    one.core
        .time_change(a, "enableTimeConstrained", |t| t.enable_time_constrained())
        .expect("constrained");
    one.drain();
    one.core
        .time_change(a, "timeAdvanceRequest", |t| {
            t.time_advance_request(float_time(5.0))
        })
        .expect("TAR");
    one.drain();
    assert_eq!(
        reflections_of(&one, m, oa, state),
        vec![1i32.encode()],
        "advancing"
    );
    one.core
        .time_change(m, "timeAdvanceRequest", |t| {
            t.time_advance_request(float_time(10.0))
        })
        .expect("TAR");
    one.drain();
    assert!(
        one.got.iter().any(|(f, cb)| *f == a
            && matches!(cb, Callback::TimeAdvanceGrant(t) if *t == float_time(5.0))),
        "A granted 5"
    );
    assert_eq!(
        reflections_of(&one, m, oa, state),
        vec![1i32.encode(), 0i32.encode()],
        "then granted"
    );
    // M's own advance to 10 was granted at once (A does not regulate): it still shows both
    // states, since the grant waited in the core's actions across a poll.
    let om = federate_instance(m);
    assert_eq!(
        reflections_of(&one, m, om, state),
        vec![1i32.encode(), 0i32.encode()]
    );
}

#[test]
fn the_voice_sends_the_federations_conditional_attributes_as_federates_come_and_go_and_saves_are_asked()
 {
    let mut one = One::new();
    let a = one.join("A");
    let m = one.join("M");
    let h = one.handles();
    let (federates, next_save) = (
        h.federation_attrs["HLAfederatesInFederation"],
        h.federation_attrs["HLAnextSaveName"],
    );
    let o = federation_instance();
    one.core
        .subscribe_object_class_attributes(m, h.federation, &[federates, next_save], true)
        .expect("subscribe");
    one.drain();
    // Nothing was ever sent of the federation's instance here: the voice sends both once.
    assert_eq!(
        reflections_of(&one, m, o, federates),
        vec![handle_list([a.encode().to_vec(), m.encode().to_vec()])]
    );
    assert_eq!(reflections_of(&one, m, o, next_save), vec![unicode("")]);
    let b = one.join("B");
    one.drain();
    assert_eq!(
        reflections_of(&one, m, o, federates).last(),
        Some(&handle_list([
            a.encode().to_vec(),
            m.encode().to_vec(),
            b.encode().to_vec()
        ])),
        "B joined"
    );
    one.core.resign(b, ResignAction::NoAction).expect("resign");
    one.drain();
    assert_eq!(
        reflections_of(&one, m, o, federates),
        vec![
            handle_list([a.encode().to_vec(), m.encode().to_vec()]),
            handle_list([
                a.encode().to_vec(),
                m.encode().to_vec(),
                b.encode().to_vec()
            ]),
            handle_list([a.encode().to_vec(), m.encode().to_vec()]),
        ],
        "B resigned"
    );
    one.core
        .request_federation_save(a, "before-lunch", None)
        .expect("save");
    for t in 1..=5 {
        one.core.handle(t * 1_000, Event::Tick);
        one.drain();
    }
    assert_eq!(
        reflections_of(&one, m, o, next_save),
        vec![unicode("")],
        "sent, but M saves too: no reflection while it saves (the MIM's rule)"
    );
    one.core.abort_federation_save(a).expect("abort");
    for t in 6..=10 {
        one.core.handle(t * 1_000, Event::Tick);
        one.drain();
    }
    assert_eq!(
        reflections_of(&one, m, o, next_save),
        vec![unicode(""), unicode("before-lunch"), unicode("")],
        "the save asked for, then none once it was aborted"
    );
    assert_eq!(
        reflections_of(&one, m, o, federates).len(),
        3,
        "the federates did not change"
    );
}
