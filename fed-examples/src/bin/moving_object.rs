//! A moving object over hlamesh, in two terminals on one machine (no configuration), or on two
//! machines with `HLAMESH_INTERFACE=<your LAN address> HLAMESH_TTL=1`:
//!
//! ```text
//! cargo run -p hlamesh-examples --bin moving_object -- publish
//! cargo run -p hlamesh-examples --bin moving_object -- subscribe
//! ```
//! The first one to start creates the federation `MovingObject` (FOM: fed-examples/foms).
use std::time::Duration;

use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, ObjectClassHandle, ObjectInstanceHandle,
};

const FOM: &str = include_str!("../../foms/MovingObject.xml");

struct Printer;
impl FederateAmbassador for Printer {
    fn discover_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        _c: ObjectClassHandle,
        name: &str,
        _p: FederateHandle,
    ) {
        println!("discovered {name} ({o})");
    }
    fn reflect_attribute_values(
        &mut self,
        o: ObjectInstanceHandle,
        v: &[(AttributeHandle, Vec<u8>)],
        _t: &[u8],
        _i: &ReceiveInfo,
    ) {
        for (_, bytes) in v {
            println!("{o}: {}", String::from_utf8_lossy(bytes));
        }
    }
    fn remove_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        _t: &[u8],
        _p: Option<FederateHandle>,
    ) {
        println!("{o} removed");
    }
}

fn main() -> Result<(), RtiError> {
    let publish = std::env::args().nth(1).as_deref() == Some("publish");
    let mut rti = RtiAmbassador::new();
    rti.connect(Box::new(Printer), CallbackModel::Evoked)?;
    let fom = vec![("MovingObject.xml".to_string(), FOM.to_string())];
    match rti.create_federation_execution_from_text("MovingObject", fom) {
        Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
        Err(e) => return Err(e),
    }
    rti.join_federation_execution(
        None,
        if publish { "publisher" } else { "subscriber" },
        "MovingObject",
    )?;
    let vehicle = rti.get_object_class_handle("Vehicle")?;
    let position = rti.get_attribute_handle(vehicle, "Position")?;
    if !publish {
        rti.subscribe_object_class_attributes(vehicle, &[position], true)?;
        loop {
            rti.evoke_callback(Duration::from_millis(500))?;
        }
    }
    rti.publish_object_class_attributes(vehicle, &[position])?;
    let me = rti.register_object_instance(vehicle)?;
    for step in 0u32.. {
        let (x, y) = (f64::from(step).cos() * 10.0, f64::from(step).sin() * 10.0);
        let text = format!("x={x:.2} y={y:.2}");
        println!("{text}");
        rti.update_attribute_values(me, vec![(position, text.into_bytes())], b"")?;
        rti.evoke_callback(Duration::from_millis(500))?;
    }
    Ok(())
}
