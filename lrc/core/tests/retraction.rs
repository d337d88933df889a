//! Message retraction (8.21 `retract`, 6.23 `requestRetraction`) in one federation core, in
//! virtual time: three federates on one LRC, which the core serves through the same paths as
//! federates on other LRCs (`core::retraction` has the semantics).
//!
//! - `S` sends, regulating with lookahead 1 (its messages go out in time-stamp order);
//! - `C` is constrained and not regulating: it gets a time-stamp-order message only when its
//!   advance passes the message's time, so a retraction before that removes it;
//! - `U` is neither: it gets every message at once in receive order (with its time and the
//!   retraction handle), so a retraction reaches it after delivery, as `request_retraction`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_core::core::{Action, Callback, Completion, FederationCore};
use hlamesh_core::error::RtiError;
use hlamesh_core::handles::*;
use hlamesh_timesync::{DynInterval, DynTime, LogicalTime, TimeKind};

const FOM: &str = include_str!("../../../fed-examples/foms/MovingObject.xml");

struct Fed {
    core: FederationCore,
    s: FederateHandle,
    c: FederateHandle,
    u: FederateHandle,
    seen: Vec<(FederateHandle, Callback)>,
}

fn t(v: i64) -> Vec<u8> {
    DynTime::integer(v).encode().to_vec()
}

impl Fed {
    fn new() -> Self {
        // Every class and attribute in time-stamp order.
        let fom = FOM.replace("<order>Receive</order>", "<order>TimeStamp</order>");
        let mut core =
            FederationCore::create("F", 1, 0, vec![("MovingObject.xml".into(), fom)]).unwrap();
        core.set_time_kind(TimeKind::Integer64);
        let mut fed = Fed {
            core,
            s: FederateHandle(0),
            c: FederateHandle(0),
            u: FederateHandle(0),
            seen: Vec::new(),
        };
        fed.s = fed.join("S");
        fed.c = fed.join("C");
        fed.u = fed.join("U");
        let (s, c, u) = (fed.s, fed.c, fed.u);
        let core = &mut fed.core;
        core.time_service(s, |m| m.enable_time_regulation(DynInterval::integer(1)))
            .unwrap();
        core.time_service(c, |m| m.enable_time_constrained())
            .unwrap();
        let (vehicle, position, command) = fed.classes();
        let core = &mut fed.core;
        core.publish_object_class_attributes(s, vehicle, &[position])
            .unwrap();
        core.publish_interaction_class(s, command).unwrap();
        for r in [c, u] {
            core.subscribe_object_class_attributes(r, vehicle, &[position], true)
                .unwrap();
            core.subscribe_interaction_class(r, command, true).unwrap();
        }
        fed.drain();
        fed.seen.clear();
        fed
    }

    fn classes(&self) -> (ObjectClassHandle, AttributeHandle, InteractionClassHandle) {
        let fdd = self.core.fdd_ref().unwrap();
        let vehicle = fdd.object_class_handle("Vehicle").unwrap();
        let position = fdd.attribute_handle(vehicle, "Position").unwrap();
        let command = fdd.interaction_class_handle("Command").unwrap();
        (vehicle, position, command)
    }

    fn join(&mut self, name: &str) -> FederateHandle {
        let ticket = self.core.join(Some(name.into()), "t");
        for _ in 0..10 {
            while let Some(a) = self.core.poll_action() {
                if let Action::Complete {
                    ticket: done,
                    result,
                } = a
                    && done == ticket
                {
                    match result {
                        Ok(Completion::Joined(h)) => return h,
                        other => panic!("join of {name}: {other:?}"),
                    }
                }
            }
            self.core.handle(0, hlamesh_core::core::Event::Tick);
        }
        panic!("join of {name} never completed");
    }

    /// Collects the callbacks queued so far (data to send goes nowhere: every federate is
    /// local).
    fn drain(&mut self) {
        while let Some(a) = self.core.poll_action() {
            if let Action::Callback { federate, callback } = a {
                self.seen.push((federate, callback));
            }
        }
    }

    /// What `f` got since the last call, drained.
    fn got(&mut self, f: FederateHandle) -> Vec<Callback> {
        self.drain();
        let (mine, rest) = std::mem::take(&mut self.seen)
            .into_iter()
            .partition(|(g, _)| *g == f);
        self.seen = rest;
        mine.into_iter().map(|(_, cb)| cb).collect()
    }

    fn interaction(&mut self, at: i64) -> MessageRetractionHandle {
        let (_, _, command) = self.classes();
        self.core
            .send_interaction(self.s, command, Vec::new(), b"x".to_vec(), Some(t(at)))
            .unwrap()
            .expect("a timestamped send returns a handle")
    }

    /// `S` and `C` ask to advance to `to` and are granted it.
    fn advance(&mut self, to: i64) {
        for f in [self.s, self.c] {
            self.core
                .time_service(f, |m| m.time_advance_request(DynTime::integer(to)))
                .unwrap();
        }
    }
}

fn grants(cbs: &[Callback]) -> Vec<DynTime> {
    cbs.iter()
        .filter_map(|c| match c {
            Callback::TimeAdvanceGrant(t) => Some(*t),
            _ => None,
        })
        .collect()
}

fn interactions(cbs: &[Callback]) -> Vec<Option<MessageRetractionHandle>> {
    cbs.iter()
        .filter_map(|c| match c {
            Callback::ReceiveInteraction { info, .. } => Some(info.retraction),
            _ => None,
        })
        .collect()
}

fn retractions(cbs: &[Callback]) -> Vec<MessageRetractionHandle> {
    cbs.iter()
        .filter_map(|c| match c {
            Callback::RequestRetraction(h) => Some(*h),
            _ => None,
        })
        .collect()
}

#[test]
fn retracted_before_delivery_it_is_never_delivered_after_delivery_it_is_requested_back() {
    let mut fed = Fed::new();
    let (s, c, u) = (fed.s, fed.c, fed.u);
    let h = fed.interaction(10);
    assert_eq!(h.federate(), s);
    // U has it at once, with the handle; C holds it until its advance passes 10.
    assert_eq!(interactions(&fed.got(u)), vec![Some(h)]);
    assert!(fed.got(c).is_empty());

    fed.core.retract(s, h).unwrap();
    assert_eq!(
        retractions(&fed.got(u)),
        vec![h],
        "U received it: asked back"
    );
    assert!(fed.got(c).is_empty(), "C is told nothing");
    assert!(fed.got(s).is_empty(), "the sender is told nothing");

    fed.advance(20);
    let got = fed.got(c);
    assert!(
        interactions(&got).is_empty(),
        "retracted: never delivered: {got:?}"
    );
    assert_eq!(grants(&got), vec![DynTime::integer(20)]);

    // Without a retraction C gets the next one at its time, with its handle.
    let h2 = fed.interaction(25);
    assert_ne!(h2, h, "handles are unique");
    fed.advance(30);
    let got = fed.got(c);
    assert_eq!(interactions(&got), vec![Some(h2)]);
    assert!(matches!(got.last(), Some(Callback::TimeAdvanceGrant(_))));
    assert_eq!(interactions(&fed.got(u)), vec![Some(h2)]);
}

#[test]
fn retract_raises_the_standards_exceptions() {
    let mut fed = Fed::new();
    let (s, c, u) = (fed.s, fed.c, fed.u);
    let h = fed.interaction(10);
    // Only its sender may retract it; a handle it never got is invalid.
    assert!(matches!(
        fed.core.retract(c, h),
        Err(RtiError::InvalidMessageRetractionHandle(_))
    ));
    assert!(matches!(
        fed.core
            .retract(s, MessageRetractionHandle::new(s, h.serial() + 100)),
        Err(RtiError::InvalidMessageRetractionHandle(_))
    ));
    assert!(matches!(
        fed.core.retract(FederateHandle(99), h),
        Err(RtiError::FederateNotExecutionMember(_))
    ));
    fed.core.retract(s, h).unwrap();
    // Retracted once: the handle is forgotten.
    assert!(matches!(
        fed.core.retract(s, h),
        Err(RtiError::InvalidMessageRetractionHandle(_))
    ));

    // Once the sender's logical time reached the message's time it stays sent.
    let late = fed.interaction(15);
    fed.advance(15);
    assert_eq!(grants(&fed.got(s)), vec![DynTime::integer(15)]);
    assert!(matches!(
        fed.core.retract(s, late),
        Err(RtiError::MessageCanNoLongerBeRetracted(_))
    ));
    // Still ahead of it: retractable.
    let ahead = fed.interaction(17);
    fed.core.retract(s, ahead).unwrap();

    // A federate that does not regulate sends in receive order: a handle, not retractable.
    let (_, _, command) = fed.classes();
    fed.core.publish_interaction_class(u, command).unwrap();
    let ro = fed
        .core
        .send_interaction(u, command, Vec::new(), Vec::new(), Some(t(40)))
        .unwrap()
        .expect("a handle");
    assert_eq!(ro.federate(), u);
    assert!(matches!(
        fed.core.retract(u, ro),
        Err(RtiError::MessageCanNoLongerBeRetracted(_))
    ));
    // Untimed sends return none.
    assert_eq!(
        fed.core
            .send_interaction(s, command, Vec::new(), Vec::new(), None)
            .unwrap(),
        None
    );
    // U was asked back exactly the two retracted ones.
    let got = fed.got(u);
    assert_eq!(retractions(&got), vec![h, ahead], "{got:?}");
}

#[test]
fn a_retracted_timed_delete_leaves_the_instance() {
    let mut fed = Fed::new();
    let (s, c, u) = (fed.s, fed.c, fed.u);
    let (vehicle, position, _) = fed.classes();
    let o = fed.core.register_object_instance(s, vehicle, None).unwrap();
    for r in [c, u] {
        assert!(fed.got(r).iter().any(
            |cb| matches!(cb, Callback::DiscoverObjectInstance { object, .. } if *object == o)
        ));
    }
    let h = fed
        .core
        .delete_object_instance(s, o, b"bye".to_vec(), Some(t(10)))
        .unwrap()
        .expect("a handle");
    let removal = |cbs: &[Callback]| {
        cbs.iter()
            .filter_map(|cb| match cb {
                Callback::RemoveObjectInstance {
                    object, retraction, ..
                } if *object == o => Some(*retraction),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(removal(&fed.got(u)), vec![Some(h)], "U: removed at once");
    assert!(fed.got(c).is_empty(), "C: waits for 10");
    assert!(!fed.core.instances().contains_key(&o));

    fed.core.retract(s, h).unwrap();
    assert!(fed.core.instances().contains_key(&o), "put back");
    assert_eq!(retractions(&fed.got(u)), vec![h]);
    fed.advance(20);
    let got = fed.got(c);
    assert!(removal(&got).is_empty(), "C never hears of it: {got:?}");
    // The sender owns it again: its next update reaches both, U knowing it again too.
    fed.core
        .update_attribute_values(s, o, vec![(position, vec![7])], Vec::new(), Some(t(25)))
        .unwrap();
    let reflected = |cbs: &[Callback]| {
        cbs.iter()
            .any(|cb| matches!(cb, Callback::ReflectAttributeValues { object, .. } if *object == o))
    };
    let got = fed.got(u);
    assert!(reflected(&got), "{got:?}");
    assert!(
        !got.iter()
            .any(|cb| matches!(cb, Callback::DiscoverObjectInstance { .. })),
        "U knows it again without a new discovery: {got:?}"
    );
    fed.advance(30);
    assert!(reflected(&fed.got(c)));

    // A delete that is not retracted reaches C at its time.
    let h2 = fed
        .core
        .delete_object_instance(s, o, Vec::new(), Some(t(35)))
        .unwrap()
        .expect("a handle");
    fed.advance(40);
    assert_eq!(removal(&fed.got(c)), vec![Some(h2)]);
    assert!(matches!(
        fed.core.retract(s, h2),
        Err(RtiError::MessageCanNoLongerBeRetracted(_))
    ));
    assert!(!fed.core.instances().contains_key(&o));
}

#[test]
fn a_retracted_update_is_not_reflected_to_a_constrained_federate() {
    let mut fed = Fed::new();
    let (s, c, u) = (fed.s, fed.c, fed.u);
    let (vehicle, position, _) = fed.classes();
    let o = fed.core.register_object_instance(s, vehicle, None).unwrap();
    fed.drain();
    fed.seen.clear();
    let h = fed
        .core
        .update_attribute_values(s, o, vec![(position, vec![1])], Vec::new(), Some(t(10)))
        .unwrap()
        .expect("a handle");
    let reflections = |cbs: &[Callback]| {
        cbs.iter()
            .filter_map(|cb| match cb {
                Callback::ReflectAttributeValues { info, .. } => Some(info.retraction),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(reflections(&fed.got(u)), vec![Some(h)]);
    fed.core.retract(s, h).unwrap();
    assert_eq!(retractions(&fed.got(u)), vec![h]);
    fed.advance(20);
    assert!(reflections(&fed.got(c)).is_empty());
}

/// A flush queue request (8.12) hands C every time-stamp-order message it holds at once: a
/// retraction before the flush removes one (never delivered), after it C is asked to retract
/// what the flush delivered; and the flush's grant stays at or below what S's lookahead allows.
#[test]
fn a_flush_queue_request_delivers_what_is_not_retracted_and_later_retractions_are_requested() {
    let mut fed = Fed::new();
    let (s, c) = (fed.s, fed.c);
    let kept = fed.interaction(10);
    let gone = fed.interaction(12);
    let late = fed.interaction(14);
    assert!(fed.got(c).is_empty(), "held for C's advance");
    fed.core.retract(s, gone).unwrap();
    assert!(
        fed.got(c).is_empty(),
        "a retraction of a held message says nothing"
    );

    fed.core
        .time_service(c, |m| m.flush_queue_request(DynTime::integer(50)))
        .unwrap();
    let got = fed.got(c);
    assert_eq!(
        interactions(&got),
        vec![Some(kept), Some(late)],
        "the flush delivers every held message but the retracted one, in time-stamp order"
    );
    let granted = grants(&got);
    assert_eq!(granted.len(), 1, "{got:?}");
    assert!(
        granted[0] <= DynTime::integer(10),
        "granted {:?}: at most the least delivered time stamp",
        granted[0]
    );

    // Delivered by the flush: now a retraction asks C to retract it.
    fed.core.retract(s, late).unwrap();
    assert_eq!(retractions(&fed.got(c)), vec![late]);
    // And a retraction of the retracted one is refused as the standard says.
    assert!(matches!(
        fed.core.retract(s, gone),
        Err(RtiError::InvalidMessageRetractionHandle(_))
    ));
}
