//! The DDM support services (IEEE 1516-2010 10.26–10.32) through the public API, in a real
//! federation on one LRC over the loopback transport: dimension handles, names and upper bounds,
//! the attributes' and interaction classes' dimension sets from the Restaurant FOMs, the
//! normalization of federate handles and service groups, and each service's exceptions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador, ServiceGroup};
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::*;
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::TransportConfig;

struct Quiet;
impl FederateAmbassador for Quiet {}

fn restaurant() -> Vec<(String, String)> {
    [
        (
            "RestaurantProcesses.xml",
            include_str!("../../foms/RestaurantProcesses.xml"),
        ),
        (
            "RestaurantFood.xml",
            include_str!("../../foms/RestaurantFood.xml"),
        ),
        (
            "RestaurantDrinks.xml",
            include_str!("../../foms/RestaurantDrinks.xml"),
        ),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), t.to_string()))
    .collect()
}

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

fn connect(lrc: &Lrc) -> RtiAmbassador {
    let mut a = RtiAmbassador::with_lrc(lrc.clone());
    a.connect(Box::new(Quiet), CallbackModel::Evoked).unwrap();
    a
}

#[test]
fn dimension_support_services() {
    use RtiError as E;
    let name = unique("ddm-support");
    let lrc = Lrc::start(TransportConfig::default()).unwrap();
    let mut a = connect(&lrc);

    // Before joining: FederateNotExecutionMember; before connecting: NotConnected.
    let nc = RtiAmbassador::with_lrc(lrc.clone());
    assert!(matches!(
        nc.get_dimension_handle("WaiterId"),
        Err(E::NotConnected(_))
    ));
    assert!(matches!(
        a.get_dimension_handle("WaiterId"),
        Err(E::FederateNotExecutionMember(_))
    ));
    assert!(matches!(
        a.normalize_service_group(ServiceGroup::SupportServices),
        Err(E::FederateNotExecutionMember(_))
    ));
    assert!(matches!(
        a.normalize_federate_handle(FederateHandle(1)),
        Err(E::FederateNotExecutionMember(_))
    ));

    a.create_federation_execution_from_text(&name, restaurant())
        .unwrap();
    let ha = a
        .join_federation_execution(Some("waiter"), "test", &name)
        .unwrap();
    let mut b = connect(&lrc);
    let hb = b
        .join_federation_execution(Some("cook"), "test", &name)
        .unwrap();

    // Handles, names, upper bounds: the MIM's two dimensions, then the FOM's.
    let federate = a.get_dimension_handle("HLAfederate").unwrap();
    let group = a.get_dimension_handle("HLAserviceGroup").unwrap();
    let flavor = a.get_dimension_handle("SodaFlavor").unwrap();
    let quantity = a.get_dimension_handle("BarQuantity").unwrap();
    let waiter = a.get_dimension_handle("WaiterId").unwrap();
    assert_eq!(b.get_dimension_handle("WaiterId").unwrap(), waiter);
    assert_eq!(a.get_dimension_name(flavor).unwrap(), "SodaFlavor");
    assert_eq!(a.get_dimension_name(federate).unwrap(), "HLAfederate");
    assert_eq!(a.get_dimension_upper_bound(flavor).unwrap(), 3);
    assert_eq!(a.get_dimension_upper_bound(quantity).unwrap(), 25);
    assert_eq!(a.get_dimension_upper_bound(waiter).unwrap(), 20);
    assert_eq!(a.get_dimension_upper_bound(group).unwrap(), 7);
    assert_eq!(a.get_dimension_upper_bound(federate).unwrap(), u64::MAX);
    assert!(matches!(
        a.get_dimension_handle("Altitude"),
        Err(E::NameNotFound(_))
    ));
    assert!(matches!(
        a.get_dimension_name(DimensionHandle(999)),
        Err(E::InvalidDimensionHandle(_))
    ));
    assert!(matches!(
        a.get_dimension_upper_bound(DimensionHandle(999)),
        Err(E::InvalidDimensionHandle(_))
    ));

    // Dimension sets.
    let soda = a.get_object_class_handle("Soda").unwrap();
    let flavor_attr = a.get_attribute_handle(soda, "Flavor").unwrap();
    let cups = a.get_attribute_handle(soda, "NumberCups").unwrap();
    assert_eq!(
        a.get_available_dimensions_for_class_attribute(soda, flavor_attr)
            .unwrap(),
        vec![flavor, quantity]
    );
    assert_eq!(
        a.get_available_dimensions_for_class_attribute(soda, cups)
            .unwrap(),
        vec![quantity]
    );
    let privilege = a
        .get_attribute_handle(soda, "HLAprivilegeToDeleteObject")
        .unwrap();
    assert_eq!(
        a.get_available_dimensions_for_class_attribute(soda, privilege)
            .unwrap(),
        vec![]
    );
    let served = a.get_interaction_class_handle("MainCourseServed").unwrap();
    assert_eq!(
        a.get_available_dimensions_for_interaction_class(served)
            .unwrap(),
        vec![waiter]
    );
    let drink = a.get_object_class_handle("Drink").unwrap();
    assert!(matches!(
        a.get_available_dimensions_for_class_attribute(drink, flavor_attr),
        Err(E::AttributeNotDefined(_))
    ));
    assert!(matches!(
        a.get_available_dimensions_for_class_attribute(soda, AttributeHandle(9999)),
        Err(E::InvalidAttributeHandle(_))
    ));
    assert!(matches!(
        a.get_available_dimensions_for_class_attribute(ObjectClassHandle(9999), cups),
        Err(E::InvalidObjectClassHandle(_))
    ));
    assert!(matches!(
        a.get_available_dimensions_for_interaction_class(InteractionClassHandle(9999)),
        Err(E::InvalidInteractionClassHandle(_))
    ));

    // Normalization: federate handles to their number, service groups to 0..=6.
    assert_eq!(a.normalize_federate_handle(ha).unwrap(), u64::from(ha.0));
    assert_eq!(a.normalize_federate_handle(hb).unwrap(), u64::from(hb.0));
    assert_ne!(
        a.normalize_federate_handle(ha).unwrap(),
        a.normalize_federate_handle(hb).unwrap()
    );
    assert!(matches!(
        a.normalize_federate_handle(FederateHandle(9999)),
        Err(E::InvalidFederateHandle(_))
    ));
    let bound = a.get_dimension_upper_bound(group).unwrap();
    let mut seen = Vec::new();
    for code in 0..7 {
        let g = ServiceGroup::from_code(code).unwrap();
        let v = a.normalize_service_group(g).unwrap();
        assert!(v < bound);
        seen.push(v);
    }
    assert_eq!(seen, (0..7).collect::<Vec<u64>>());
    assert_eq!(
        a.normalize_service_group(ServiceGroup::FederationManagement)
            .unwrap(),
        0
    );
    assert!(matches!(
        ServiceGroup::from_code(7),
        Err(E::InvalidServiceGroup(_))
    ));

    b.resign_federation_execution(ResignAction::NoAction)
        .unwrap();
    a.resign_federation_execution(ResignAction::NoAction)
        .unwrap();
    a.destroy_federation_execution(&name).unwrap();
}
