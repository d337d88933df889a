//! The RtiAmbassador / FederateAmbassador API over the real transport (loopback), with several
//! LRCs and several federates in one process; and a table of misuse: each service called wrongly
//! returns the standard's exception.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::*;
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::TransportConfig;

const FOM: &str = include_str!("../../fed-examples/foms/MovingObject.xml");

#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Discover(ObjectInstanceHandle, ObjectClassHandle, String),
    Reflect(
        ObjectInstanceHandle,
        Vec<(AttributeHandle, Vec<u8>)>,
        FederateHandle,
    ),
    Interaction(InteractionClassHandle, Vec<(ParameterHandle, Vec<u8>)>),
    Remove(ObjectInstanceHandle),
    Provide(ObjectInstanceHandle, Vec<AttributeHandle>),
    Reserved(String, bool),
    StartRegistration(ObjectClassHandle),
    InteractionsOn(InteractionClassHandle),
    Report(Vec<String>),
    InScope(ObjectInstanceHandle, Vec<AttributeHandle>),
    OutOfScope(ObjectInstanceHandle, Vec<AttributeHandle>),
    UpdatesOn(ObjectInstanceHandle, Vec<AttributeHandle>),
    UpdatesOff(ObjectInstanceHandle, Vec<AttributeHandle>),
}

#[derive(Clone, Default)]
struct Rec(Arc<Mutex<Vec<Ev>>>);

impl Rec {
    fn take(&self) -> Vec<Ev> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
    fn push(&self, e: Ev) {
        self.0.lock().unwrap().push(e);
    }
}

impl FederateAmbassador for Rec {
    fn discover_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        c: ObjectClassHandle,
        name: &str,
        _p: FederateHandle,
    ) {
        self.push(Ev::Discover(o, c, name.to_string()));
    }
    fn reflect_attribute_values(
        &mut self,
        o: ObjectInstanceHandle,
        v: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        info: &ReceiveInfo,
    ) {
        self.push(Ev::Reflect(o, v.to_vec(), info.producer));
    }
    fn receive_interaction(
        &mut self,
        c: InteractionClassHandle,
        p: &[(ParameterHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        self.push(Ev::Interaction(c, p.to_vec()));
    }
    fn remove_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        _t: &[u8],
        _p: Option<FederateHandle>,
    ) {
        self.push(Ev::Remove(o));
    }
    fn provide_attribute_value_update(
        &mut self,
        o: ObjectInstanceHandle,
        a: &[AttributeHandle],
        _t: &[u8],
    ) {
        self.push(Ev::Provide(o, a.to_vec()));
    }
    fn object_instance_name_reservation_succeeded(&mut self, n: &str) {
        self.push(Ev::Reserved(n.to_string(), true));
    }
    fn object_instance_name_reservation_failed(&mut self, n: &str) {
        self.push(Ev::Reserved(n.to_string(), false));
    }
    fn start_registration_for_object_class(&mut self, c: ObjectClassHandle) {
        self.push(Ev::StartRegistration(c));
    }
    fn turn_interactions_on(&mut self, c: InteractionClassHandle) {
        self.push(Ev::InteractionsOn(c));
    }
    fn report_federation_executions(&mut self, e: &[(String, String)]) {
        self.push(Ev::Report(e.iter().map(|x| x.0.clone()).collect()));
    }
    fn attributes_in_scope(&mut self, o: ObjectInstanceHandle, a: &[AttributeHandle]) {
        self.push(Ev::InScope(o, a.to_vec()));
    }
    fn attributes_out_of_scope(&mut self, o: ObjectInstanceHandle, a: &[AttributeHandle]) {
        self.push(Ev::OutOfScope(o, a.to_vec()));
    }
    fn turn_updates_on_for_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        a: &[AttributeHandle],
    ) {
        self.push(Ev::UpdatesOn(o, a.to_vec()));
    }
    fn turn_updates_off_for_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        a: &[AttributeHandle],
    ) {
        self.push(Ev::UpdatesOff(o, a.to_vec()));
    }
}

fn lrc() -> Lrc {
    Lrc::start(TransportConfig::default()).unwrap()
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}-{}", std::process::id(), rand_suffix())
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
}

fn fom() -> Vec<(String, String)> {
    vec![("MovingObject.xml".into(), FOM.into())]
}

fn connect(lrc: &Lrc, model: CallbackModel) -> (RtiAmbassador, Rec) {
    let rec = Rec::default();
    let mut a = RtiAmbassador::with_lrc(lrc.clone());
    a.connect(Box::new(rec.clone()), model).unwrap();
    (a, rec)
}

/// Evokes callbacks until `pred` holds on everything received so far, or panics after 5 s.
fn evoke_until(a: &RtiAmbassador, rec: &Rec, seen: &mut Vec<Ev>, pred: impl Fn(&[Ev]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pred(seen) {
        assert!(Instant::now() < deadline, "timed out; got {seen:?}");
        a.evoke_multiple_callbacks(Duration::ZERO, Duration::from_millis(20))
            .unwrap();
        seen.extend(rec.take());
    }
}

#[test]
fn two_lrcs_publish_subscribe_promote_reflect_interact_delete() {
    let name = unique("api");
    let (la, lb) = (lrc(), lrc());
    let (mut pa, _ra) = connect(&la, CallbackModel::Evoked);
    pa.create_federation_execution_from_text(&name, fom())
        .unwrap();
    let hp = pa
        .join_federation_execution(Some("publisher"), "test", &name)
        .unwrap();
    // Subscriber on another LRC, and a second federate on the publisher's LRC. A full
    // subscriber joins the other LRC first: an update there reaches two local federates with
    // different subscriptions, the first served with a copy and the last with the received
    // values themselves (`reflect_to_locals`).
    let (mut fb, rfb) = connect(&lb, CallbackModel::Evoked);
    let hfb = fb
        .join_federation_execution(Some("full"), "test", &name)
        .unwrap();
    let (mut sb, rb) = connect(&lb, CallbackModel::Evoked);
    let t0 = Instant::now();
    let hs = sb
        .join_federation_execution(Some("subscriber"), "test", &name)
        .unwrap();
    eprintln!("join of a second LRC took {:?}", t0.elapsed());
    let (mut sa, ra2) = connect(&la, CallbackModel::Immediate);
    let hs2 = sa
        .join_federation_execution(Some("local"), "test", &name)
        .unwrap();
    assert!(hp != hs && hs != hs2 && hp != hs2 && hfb != hs && hfb != hp);
    assert_eq!(sb.get_federate_name(hp).unwrap(), "publisher");
    assert_eq!(
        sb.join_federation_execution(None, "x", &name),
        Err(RtiError::FederateAlreadyExecutionMember(format!(
            "already joined to federation {name}"
        )))
    );

    let vehicle = pa.get_object_class_handle("Vehicle").unwrap();
    let car = pa.get_object_class_handle("Vehicle.Car").unwrap();
    let pos = pa.get_attribute_handle(car, "Position").unwrap();
    let colour = pa.get_attribute_handle(car, "Colour").unwrap();
    let command = pa.get_interaction_class_handle("Command").unwrap();
    let stop = pa.get_interaction_class_handle("Command.Stop").unwrap();
    let text = pa.get_parameter_handle(stop, "Text").unwrap();
    let reason = pa.get_parameter_handle(stop, "Reason").unwrap();

    // Subscribers to the superclass see a Car as a Vehicle with only Position.
    sb.subscribe_object_class_attributes(vehicle, &[pos], true)
        .unwrap();
    sb.subscribe_interaction_class(command, true).unwrap();
    sa.subscribe_object_class_attributes(car, &[pos, colour], true)
        .unwrap();
    fb.subscribe_object_class_attributes(car, &[pos, colour], true)
        .unwrap();
    pa.publish_object_class_attributes(car, &[pos, colour])
        .unwrap();
    pa.publish_interaction_class(stop).unwrap();
    let o = pa.register_object_instance(car).unwrap();
    pa.update_attribute_values(
        o,
        vec![(pos, b"p1".to_vec()), (colour, b"red".to_vec())],
        b"t",
    )
    .unwrap();
    pa.send_interaction(
        stop,
        vec![(text, b"halt".to_vec()), (reason, b"why".to_vec())],
        b"",
    )
    .unwrap();

    let mut seen = Vec::new();
    evoke_until(&sb, &rb, &mut seen, |s| {
        s.iter().any(|e| matches!(e, Ev::Interaction(..)))
    });
    let oname = format!("HLAobject_{}_1", hp.0);
    assert_eq!(
        seen,
        vec![
            Ev::Discover(o, vehicle, oname.clone()),
            Ev::Reflect(o, vec![(pos, b"p1".to_vec())], hp),
            Ev::Interaction(command, vec![(text, b"halt".to_vec())]),
        ]
    );
    let mut full = Vec::new();
    evoke_until(&fb, &rfb, &mut full, |s| {
        s.iter().any(|e| matches!(e, Ev::Reflect(..)))
    });
    assert_eq!(
        full,
        vec![
            Ev::Discover(o, car, oname.clone()),
            Ev::Reflect(
                o,
                vec![(pos, b"p1".to_vec()), (colour, b"red".to_vec())],
                hp
            ),
        ]
    );
    assert_eq!(sb.get_known_object_class_handle(o).unwrap(), vehicle);
    assert_eq!(sb.get_object_instance_handle(&oname).unwrap(), o);

    // The local federate (immediate callbacks) sees the Car as a Car with both attributes.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut local = Vec::new();
    while local.len() < 2 {
        assert!(Instant::now() < deadline, "{local:?}");
        local.extend(ra2.take());
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        local,
        vec![
            Ev::Discover(o, car, oname.clone()),
            Ev::Reflect(
                o,
                vec![(pos, b"p1".to_vec()), (colour, b"red".to_vec())],
                hp
            ),
        ]
    );

    // Request → provide at the owner.
    sb.request_attribute_value_update(o, &[pos], b"").unwrap();
    let mut pseen = Vec::new();
    evoke_until(&pa, &_ra, &mut pseen, |s| {
        s.iter().any(|e| matches!(e, Ev::Provide(..)))
    });
    assert!(pseen.contains(&Ev::Provide(o, vec![pos])));

    // Unsubscribe stops reflections; delete removes.
    sb.unsubscribe_object_class(vehicle).unwrap();
    pa.update_attribute_values(o, vec![(pos, b"p2".to_vec())], b"")
        .unwrap();
    pa.delete_object_instance(o, b"bye").unwrap();
    let mut seen = Vec::new();
    evoke_until(&sb, &rb, &mut seen, |s| s.contains(&Ev::Remove(o)));
    assert_eq!(seen, vec![Ev::Remove(o)], "no reflection after unsubscribe");
    let mut full = Vec::new();
    evoke_until(&fb, &rfb, &mut full, |s| s.contains(&Ev::Remove(o)));
    assert_eq!(
        full,
        vec![
            Ev::Reflect(o, vec![(pos, b"p2".to_vec())], hp),
            Ev::Remove(o)
        ]
    );

    // Destroy fails while joined, works after everyone resigned.
    assert!(matches!(
        pa.destroy_federation_execution(&name),
        Err(RtiError::FederatesCurrentlyJoined(_))
    ));
    sb.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    fb.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    sa.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    pa.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    sb.destroy_federation_execution(&name).unwrap();
}

#[test]
fn late_joiner_discovers_existing_instances_and_name_reservation() {
    let name = unique("late");
    let (la, lb) = (lrc(), lrc());
    let (mut pa, ra) = connect(&la, CallbackModel::Evoked);
    pa.create_federation_execution_from_text(&name, fom())
        .unwrap();
    pa.join_federation_execution(Some("pub"), "test", &name)
        .unwrap();
    let car = pa.get_object_class_handle("Car").unwrap();
    let pos = pa.get_attribute_handle(car, "Position").unwrap();
    pa.publish_object_class_attributes(car, &[pos]).unwrap();
    pa.reserve_object_instance_name("Herbie").unwrap();
    let mut seen = Vec::new();
    evoke_until(&pa, &ra, &mut seen, |s| !s.is_empty());
    assert_eq!(seen, vec![Ev::Reserved("Herbie".into(), true)]);
    let o = pa
        .register_object_instance_with_name(car, "Herbie")
        .unwrap();
    assert!(matches!(
        pa.register_object_instance_with_name(car, "Herbie"),
        Err(RtiError::ObjectInstanceNameInUse(_))
    ));
    for i in 0..50u32 {
        pa.update_attribute_values(o, vec![(pos, i.to_be_bytes().to_vec())], b"")
            .unwrap();
    }
    let (mut sb, rb) = connect(&lb, CallbackModel::Evoked);
    sb.join_federation_execution(Some("late"), "test", &name)
        .unwrap();
    sb.subscribe_object_class_attributes(car, &[pos], true)
        .unwrap();
    // A second reservation of the same name fails at the coordinator.
    sb.reserve_object_instance_name("Herbie").unwrap();
    // Discovered from the state transfer (its values are in the snapshot, not reflected); what
    // is sent from now on is reflected, each update once and in order.
    let mut seen = Vec::new();
    evoke_until(&sb, &rb, &mut seen, |s| {
        s.iter().any(|e| matches!(e, Ev::Discover(..)))
    });
    for i in 50..60u32 {
        pa.update_attribute_values(o, vec![(pos, i.to_be_bytes().to_vec())], b"")
            .unwrap();
    }
    evoke_until(&sb, &rb, &mut seen, |s| {
        s.iter()
            .any(|e| matches!(e, Ev::Reflect(_, v, _) if v[0].1 == 59u32.to_be_bytes()))
            && s.contains(&Ev::Reserved("Herbie".into(), false))
    });
    let objects: Vec<&Ev> = seen
        .iter()
        .filter(|e| !matches!(e, Ev::Reserved(..)))
        .collect();
    assert_eq!(*objects[0], Ev::Discover(o, car, "Herbie".into()));
    assert!(seen.contains(&Ev::Reserved("Herbie".into(), false)));
    let vals: Vec<u32> = seen
        .iter()
        .filter_map(|e| match e {
            Ev::Reflect(_, v, _) => Some(u32::from_be_bytes(v[0].1.clone().try_into().unwrap())),
            _ => None,
        })
        .collect();
    // No duplicate, no gap, in order, up to the last.
    let first = vals[0];
    assert_eq!(vals, (first..60).collect::<Vec<_>>());
}

fn must<T: std::fmt::Debug>(r: Result<T, RtiError>, want: fn(&RtiError) -> bool, what: &str) {
    match r {
        Err(e) if want(&e) => {
            // Every message names something concrete.
            assert!(!e.to_string().is_empty());
        }
        other => panic!("{what}: got {other:?}"),
    }
}

#[test]
fn misuse_returns_the_standard_exception() {
    use RtiError as E;
    let name = unique("misuse");
    let l = lrc();
    // Not connected.
    let mut nc = RtiAmbassador::with_lrc(l.clone());
    must(
        nc.create_federation_execution_from_text(&name, fom()),
        |e| matches!(e, E::NotConnected(_)),
        "create",
    );
    must(
        nc.join_federation_execution(None, "t", &name),
        |e| matches!(e, E::NotConnected(_)),
        "join",
    );
    must(
        nc.evoke_callback(Duration::ZERO),
        |e| matches!(e, E::NotConnected(_)),
        "evoke",
    );
    let (mut a, rec) = connect(&l, CallbackModel::Evoked);
    must(
        a.connect(Box::new(Rec::default()), CallbackModel::Evoked),
        |e| matches!(e, E::AlreadyConnected(_)),
        "connect twice",
    );
    // Not a member.
    must(
        a.publish_interaction_class(InteractionClassHandle(1)),
        |e| matches!(e, E::FederateNotExecutionMember(_)),
        "publish",
    );
    must(
        a.resign_federation_execution(ResignAction::NoAction),
        |e| matches!(e, E::FederateNotExecutionMember(_)),
        "resign",
    );
    must(
        a.get_object_class_handle("Car"),
        |e| matches!(e, E::FederateNotExecutionMember(_)),
        "lookup",
    );
    // FOM problems.
    must(
        a.create_federation_execution(&name, &["/nonexistent/fom.xml"]),
        |e| matches!(e, E::CouldNotOpenFdd(_)),
        "missing FOM",
    );
    must(
        a.create_federation_execution_from_text(
            &name,
            vec![("bad.xml".into(), "<objectModel".into())],
        ),
        |e| matches!(e, E::ErrorReadingFdd(_)),
        "bad FOM",
    );
    must(
        a.join_federation_execution(None, "t", &unique("nosuch")),
        |e| matches!(e, E::FederationExecutionDoesNotExist(_)),
        "join missing",
    );
    a.create_federation_execution_from_text(&name, fom())
        .unwrap();
    must(
        a.create_federation_execution_from_text(&name, fom()),
        |e| matches!(e, E::FederationExecutionAlreadyExists(_)),
        "create twice",
    );
    a.join_federation_execution(Some("one"), "t", &name)
        .unwrap();
    let (mut b, _rb) = connect(&l, CallbackModel::Evoked);
    must(
        b.join_federation_execution(Some("one"), "t", &name),
        |e| matches!(e, E::FederateNameAlreadyInUse(_)),
        "same name",
    );
    b.join_federation_execution(Some("two"), "t", &name)
        .unwrap();
    must(
        a.disconnect(),
        |e| matches!(e, E::FederateIsExecutionMember(_)),
        "disconnect joined",
    );
    must(
        a.destroy_federation_execution(&name),
        |e| matches!(e, E::FederatesCurrentlyJoined(_)),
        "destroy joined",
    );

    let car = a.get_object_class_handle("Car").unwrap();
    let vehicle = a.get_object_class_handle("Vehicle").unwrap();
    let pos = a.get_attribute_handle(car, "Position").unwrap();
    let colour = a.get_attribute_handle(car, "Colour").unwrap();
    let stop = a.get_interaction_class_handle("Stop").unwrap();
    let command = a.get_interaction_class_handle("Command").unwrap();
    let reason = a.get_parameter_handle(stop, "Reason").unwrap();
    must(
        a.get_object_class_handle("NoSuchClass"),
        |e| matches!(e, E::NameNotFound(_)),
        "class name",
    );
    must(
        a.get_attribute_handle(vehicle, "Colour"),
        |e| matches!(e, E::NameNotFound(_)),
        "attr name",
    );
    must(
        a.get_object_class_name(ObjectClassHandle(9999)),
        |e| matches!(e, E::InvalidObjectClassHandle(_)),
        "class handle",
    );
    must(
        a.publish_object_class_attributes(ObjectClassHandle(9999), &[pos]),
        |e| matches!(e, E::ObjectClassNotDefined(_)),
        "publish class",
    );
    must(
        a.publish_object_class_attributes(vehicle, &[colour]),
        |e| matches!(e, E::AttributeNotDefined(_)),
        "publish attr",
    );
    must(
        a.subscribe_object_class_attributes(vehicle, &[colour], true),
        |e| matches!(e, E::AttributeNotDefined(_)),
        "subscribe attr",
    );
    must(
        a.subscribe_interaction_class(InteractionClassHandle(9999), true),
        |e| matches!(e, E::InteractionClassNotDefined(_)),
        "subscribe ic",
    );
    must(
        a.register_object_instance(car),
        |e| matches!(e, E::ObjectClassNotPublished(_)),
        "register unpublished",
    );
    must(
        a.register_object_instance(ObjectClassHandle(9999)),
        |e| matches!(e, E::ObjectClassNotDefined(_)),
        "register undefined",
    );
    must(
        a.send_interaction(stop, vec![], b""),
        |e| matches!(e, E::InteractionClassNotPublished(_)),
        "send unpublished",
    );
    a.publish_interaction_class(command).unwrap();
    must(
        a.send_interaction(command, vec![(reason, vec![])], b""),
        |e| matches!(e, E::InteractionParameterNotDefined(_)),
        "param of subclass",
    );
    must(
        a.reserve_object_instance_name(""),
        |e| matches!(e, E::IllegalName(_)),
        "empty name",
    );
    must(
        a.reserve_object_instance_name("HLAthing"),
        |e| matches!(e, E::IllegalName(_)),
        "HLA name",
    );
    must(
        a.reserve_multiple_object_instance_name(&[]),
        |e| matches!(e, E::NameSetWasEmpty(_)),
        "empty set",
    );
    must(
        a.release_object_instance_name("never"),
        |e| matches!(e, E::ObjectInstanceNameNotReserved(_)),
        "release",
    );
    a.publish_object_class_attributes(car, &[pos]).unwrap();
    must(
        a.register_object_instance_with_name(car, "unreserved"),
        |e| matches!(e, E::ObjectInstanceNameNotReserved(_)),
        "register unreserved",
    );
    let o = a.register_object_instance(car).unwrap();
    must(
        a.update_attribute_values(o, vec![(colour, vec![])], b""),
        |e| matches!(e, E::AttributeNotOwned(_)),
        "update unpublished attr",
    );
    must(
        a.update_attribute_values(ObjectInstanceHandle(77), vec![], b""),
        |e| matches!(e, E::ObjectInstanceNotKnown(_)),
        "update unknown",
    );
    must(
        a.local_delete_object_instance(o),
        |e| matches!(e, E::FederateOwnsAttributes(_)),
        "local delete owned",
    );
    must(
        a.get_object_instance_name(ObjectInstanceHandle(77)),
        |e| matches!(e, E::ObjectInstanceNotKnown(_)),
        "instance name",
    );
    must(
        a.request_attribute_value_update(ObjectInstanceHandle(77), &[pos], b""),
        |e| matches!(e, E::ObjectInstanceNotKnown(_)),
        "request unknown",
    );
    // b knows the instance (subscribed) but may not update or delete it.
    b.subscribe_object_class_attributes(car, &[pos], true)
        .unwrap();
    let mut seen = Vec::new();
    evoke_until(&b, &_rb, &mut seen, |s| {
        s.iter().any(|e| matches!(e, Ev::Discover(..)))
    });
    must(
        b.delete_object_instance(o, b""),
        |e| matches!(e, E::DeletePrivilegeNotHeld(_)),
        "delete not owner",
    );
    b.publish_object_class_attributes(car, &[pos]).unwrap();
    must(
        b.update_attribute_values(o, vec![(pos, vec![])], b""),
        |e| matches!(e, E::AttributeNotOwned(_)),
        "update not owner",
    );
    // Relevance advisories: a publishes Car.Position and Command, b subscribes Car.Position.
    let mut seen = Vec::new();
    evoke_until(&a, &rec, &mut seen, |s| {
        s.contains(&Ev::StartRegistration(car))
    });
    b.subscribe_interaction_class(command, true).unwrap();
    evoke_until(&a, &rec, &mut seen, |s| {
        s.contains(&Ev::InteractionsOn(command))
    });
    a.list_federation_executions().unwrap();
    evoke_until(&a, &rec, &mut seen, |s| {
        s.iter()
            .any(|e| matches!(e, Ev::Report(v) if v.contains(&name)))
    });

    // Callbacks may not call blocking services.
    struct Nasty(
        Arc<Mutex<Option<RtiError>>>,
        Arc<Mutex<Option<RtiAmbassador>>>,
    );
    impl FederateAmbassador for Nasty {
        fn report_federation_executions(&mut self, _e: &[(String, String)]) {
            let g = self.1.lock().unwrap();
            let r = g.as_ref().unwrap().evoke_callback(Duration::ZERO);
            *self.0.lock().unwrap() = r.err();
        }
    }
    let got = Arc::new(Mutex::new(None));
    let slot = Arc::new(Mutex::new(None));
    let mut c = RtiAmbassador::with_lrc(l.clone());
    c.connect(
        Box::new(Nasty(got.clone(), slot.clone())),
        CallbackModel::Immediate,
    )
    .unwrap();
    c.list_federation_executions().unwrap();
    *slot.lock().unwrap() = Some(c);
    let deadline = Instant::now() + Duration::from_secs(5);
    while got.lock().unwrap().is_none() {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(matches!(
        *got.lock().unwrap(),
        Some(E::CallNotAllowedFromWithinCallback(_))
    ));

    b.resign_federation_execution(ResignAction::NoAction)
        .unwrap();
    a.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    must(
        a.resign_federation_execution(ResignAction::NoAction),
        |e| matches!(e, E::FederateNotExecutionMember(_)),
        "resign twice",
    );
    a.destroy_federation_execution(&name).unwrap();
    must(
        a.destroy_federation_execution(&name),
        |e| matches!(e, E::FederationExecutionDoesNotExist(_)),
        "destroy twice",
    );
    a.disconnect().unwrap();
}

/// The advisory switches (10.33–10.40) and the instance-level advisories they gate: turn
/// updates on/off for the owner, attributes in/out of scope for the subscriber, across two LRCs.
#[test]
fn advisory_switches_gate_relevance_and_scope_advisories() {
    use hlamesh_lrc::ambassador::AdvisorySwitch;
    let name = unique("advice");
    let (la, lb) = (lrc(), lrc());
    let (mut a, ra) = connect(&la, CallbackModel::Evoked);
    a.create_federation_execution_from_text(&name, fom())
        .unwrap();
    a.join_federation_execution(Some("owner"), "test", &name)
        .unwrap();
    let (mut b, rb) = connect(&lb, CallbackModel::Evoked);
    b.join_federation_execution(Some("subscriber"), "test", &name)
        .unwrap();
    let car = a.get_object_class_handle("Vehicle.Car").unwrap();
    let pos = a.get_attribute_handle(car, "Position").unwrap();
    let colour = a.get_attribute_handle(car, "Colour").unwrap();

    // The FOM (standard MIM values) has the class-level switches on, the instance-level off.
    assert!(
        a.advisory_switch(AdvisorySwitch::ObjectClassRelevance)
            .unwrap()
    );
    assert!(
        !a.advisory_switch(AdvisorySwitch::AttributeRelevance)
            .unwrap()
    );
    assert!(!b.advisory_switch(AdvisorySwitch::AttributeScope).unwrap());
    must(
        a.enable_object_class_relevance_advisory_switch(),
        |e| matches!(e, RtiError::ObjectClassRelevanceAdvisorySwitchIsOn(_)),
        "enable on",
    );
    must(
        a.disable_attribute_scope_advisory_switch(),
        |e| matches!(e, RtiError::AttributeScopeAdvisorySwitchIsOff(_)),
        "disable off",
    );
    a.disable_interaction_relevance_advisory_switch().unwrap();
    must(
        a.disable_interaction_relevance_advisory_switch(),
        |e| matches!(e, RtiError::InteractionRelevanceAdvisorySwitchIsOff(_)),
        "disable twice",
    );
    a.enable_attribute_relevance_advisory_switch().unwrap();
    must(
        a.enable_attribute_relevance_advisory_switch(),
        |e| matches!(e, RtiError::AttributeRelevanceAdvisorySwitchIsOn(_)),
        "enable twice",
    );
    b.enable_attribute_scope_advisory_switch().unwrap();

    // Nobody subscribes yet: registering turns nothing on.
    a.publish_object_class_attributes(car, &[pos, colour])
        .unwrap();
    let o = a.register_object_instance(car).unwrap();
    // b subscribes Position only: a is told to update Position of o; b discovers o, then hears
    // that Position is in scope (owned by a), never Colour.
    b.subscribe_object_class_attributes(car, &[pos], true)
        .unwrap();
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    evoke_until(&a, &ra, &mut sa, |s| {
        s.contains(&Ev::UpdatesOn(o, vec![pos]))
    });
    evoke_until(&b, &rb, &mut sb, |s| s.contains(&Ev::InScope(o, vec![pos])));
    let discover = sb
        .iter()
        .position(|e| matches!(e, Ev::Discover(x, ..) if *x == o));
    let scope = sb.iter().position(|e| *e == Ev::InScope(o, vec![pos]));
    assert!(discover < scope, "discovery comes first: {sb:?}");

    // Unsubscribing turns the owner's updates off and puts the attribute out of scope.
    b.unsubscribe_object_class(car).unwrap();
    evoke_until(&a, &ra, &mut sa, |s| {
        s.contains(&Ev::UpdatesOff(o, vec![pos]))
    });
    evoke_until(&b, &rb, &mut sb, |s| {
        s.contains(&Ev::OutOfScope(o, vec![pos]))
    });
    b.subscribe_object_class_attributes(car, &[pos, colour], true)
        .unwrap();
    evoke_until(&a, &ra, &mut sa, |s| {
        s.contains(&Ev::UpdatesOn(o, vec![pos, colour]))
    });
    evoke_until(&b, &rb, &mut sb, |s| {
        s.contains(&Ev::InScope(o, vec![pos, colour]))
    });

    // While a's switch is off, a second instance turns nothing on; enabling it reports what
    // changed meanwhile.
    a.disable_attribute_relevance_advisory_switch().unwrap();
    let o2 = a.register_object_instance(car).unwrap();
    evoke_until(&b, &rb, &mut sb, |s| {
        s.contains(&Ev::InScope(o2, vec![pos, colour]))
    });
    a.evoke_multiple_callbacks(Duration::ZERO, Duration::from_millis(20))
        .unwrap();
    sa.extend(ra.take());
    assert!(
        !sa.iter()
            .any(|e| matches!(e, Ev::UpdatesOn(x, _) if *x == o2)),
        "switch off, yet told: {sa:?}"
    );
    a.enable_attribute_relevance_advisory_switch().unwrap();
    evoke_until(&a, &ra, &mut sa, |s| {
        s.contains(&Ev::UpdatesOn(o2, vec![pos, colour]))
    });

    // A deleted instance is removed, not put out of scope.
    a.delete_object_instance(o2, b"").unwrap();
    evoke_until(&b, &rb, &mut sb, |s| s.contains(&Ev::Remove(o2)));
    assert!(
        !sb.iter()
            .any(|e| matches!(e, Ev::OutOfScope(x, _) if *x == o2)),
        "{sb:?}"
    );
    a.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    b.resign_federation_execution(ResignAction::NoAction)
        .unwrap();
    b.destroy_federation_execution(&name).unwrap();
}

fn extra_module(class: &str, attr: &str) -> (String, String) {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
    <modelIdentification><name>Extra{class}</name><type>FOM</type><version>1.0</version></modelIdentification>
    <objects>
        <objectClass>
            <name>HLAobjectRoot</name>
            <objectClass>
                <name>{class}</name>
                <sharing>PublishSubscribe</sharing>
                <attribute>
                    <name>{attr}</name>
                    <dataType>HLAopaqueData</dataType>
                    <updateType>Periodic</updateType>
                    <ownership>NoTransfer</ownership>
                    <sharing>PublishSubscribe</sharing>
                    <transportation>HLAreliable</transportation>
                    <order>Receive</order>
                </attribute>
            </objectClass>
        </objectClass>
    </objects>
</objectModel>
"#
    );
    (format!("Extra{class}.xml"), xml)
}

/// 4.9 with additional FOM modules: a federate on a second LRC brings a module; every LRC
/// merges it (existing handles unchanged) and both use the new class; a module that does not
/// merge or does not parse refuses the join and changes nothing.
#[test]
fn join_with_additional_fom_modules_extends_the_federation_fdd() {
    let name = unique("modules");
    let (la, lb) = (lrc(), lrc());
    let (mut a, ra) = connect(&la, CallbackModel::Evoked);
    a.create_federation_execution_from_text(&name, fom())
        .unwrap();
    a.join_federation_execution(Some("base"), "test", &name)
        .unwrap();
    let car = a.get_object_class_handle("Vehicle.Car").unwrap();
    let pos = a.get_attribute_handle(car, "Position").unwrap();
    let before = a.fdd_of_federation().unwrap().digest();

    // Broken XML: refused at the joiner, nothing asked of the federation.
    let (mut bad, _rbad) = connect(&lb, CallbackModel::Evoked);
    let broken = ("Broken.xml".to_string(), "<objectModel>".to_string());
    let e = bad
        .join_federation_execution_from_text(Some("bad"), "test", &name, vec![broken])
        .unwrap_err();
    assert!(matches!(e, RtiError::ErrorReadingFdd(_)), "{e}");
    // A module redefining Vehicle differently does not merge: the coordinator refuses.
    let clash = extra_module("Vehicle", "Speed");
    let e = bad
        .join_federation_execution_from_text(Some("bad"), "test", &name, vec![clash])
        .unwrap_err();
    assert!(matches!(e, RtiError::InconsistentFdd(_)), "{e}");
    assert!(
        a.get_federate_handle("bad").is_err(),
        "refused joins join nobody"
    );
    assert_eq!(a.fdd_of_federation().unwrap().digest(), before);

    let (mut b, rb) = connect(&lb, CallbackModel::Evoked);
    let extra = extra_module("Aircraft", "Altitude");
    b.join_federation_execution_from_text(Some("extra"), "test", &name, vec![extra.clone()])
        .unwrap();
    // Both LRCs merged it; what existed keeps its handles.
    let aircraft = b.get_object_class_handle("Aircraft").unwrap();
    let alt = b.get_attribute_handle(aircraft, "Altitude").unwrap();
    assert_eq!(a.get_object_class_handle("Aircraft").unwrap(), aircraft);
    assert_eq!(b.get_object_class_handle("Vehicle.Car").unwrap(), car);
    assert_eq!(b.get_attribute_handle(car, "Position").unwrap(), pos);
    assert_ne!(a.fdd_of_federation().unwrap().digest(), before);
    assert_eq!(
        a.fdd_of_federation().unwrap().digest(),
        b.fdd_of_federation().unwrap().digest()
    );

    // The new class works across the LRCs.
    a.subscribe_object_class_attributes(aircraft, &[alt], true)
        .unwrap();
    b.publish_object_class_attributes(aircraft, &[alt]).unwrap();
    let o = b.register_object_instance(aircraft).unwrap();
    b.update_attribute_values(o, vec![(alt, b"9000".to_vec())], b"")
        .unwrap();
    let mut seen = Vec::new();
    evoke_until(&a, &ra, &mut seen, |s| {
        s.iter()
            .any(|e| matches!(e, Ev::Reflect(x, v, _) if *x == o && v[0].1 == b"9000"))
    });
    assert!(
        seen.iter()
            .any(|e| *e == Ev::Discover(o, aircraft, format!("HLAobject_{}_1", o.registrant().0)))
    );

    // A third federate bringing the same module again changes nothing.
    let (mut c, _rc) = connect(&la, CallbackModel::Evoked);
    let d = a.fdd_of_federation().unwrap().digest();
    c.join_federation_execution_from_text(Some("again"), "test", &name, vec![extra])
        .unwrap();
    assert_eq!(c.fdd_of_federation().unwrap().digest(), d);
    let _ = rb;
    for x in [&mut a, &mut b, &mut c] {
        x.resign_federation_execution(ResignAction::DeleteObjects)
            .unwrap();
    }
    a.destroy_federation_execution(&name).unwrap();
}
