//! The example federation's FOM module and the handles and types federates use with it.

use hlamesh_engine::EngineError;
use hlamesh_lrc::ambassador::RtiAmbassador;
use hlamesh_lrc::encoding::DataElement;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle,
};

/// `foms/HlameshDemo.xml`.
pub const FOM_XML: &str = include_str!("../foms/HlameshDemo.xml");
/// Its designator.
pub const FOM_NAME: &str = "HlameshDemo.xml";

hlamesh_lrc::hla_fixed_record! {
    /// `Vector2D`: a point or vector on the map (m, m/s).
    pub struct Vector2D { pub x: f64, pub y: f64 }
}

/// Every handle of the FOM the examples use.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct Handles {
    pub vehicle: ObjectClassHandle,
    pub car: ObjectClassHandle,
    pub aircraft: ObjectClassHandle,
    pub status: ObjectClassHandle,
    pub position: AttributeHandle,
    pub velocity: AttributeHandle,
    pub sequence: AttributeHandle,
    pub fuel: AttributeHandle,
    pub range: AttributeHandle,
    pub altitude: AttributeHandle,
    pub state: AttributeHandle,
    pub frames: AttributeHandle,
    pub refuel: InteractionClassHandle,
    pub refuel_car: ParameterHandle,
    pub refuel_litres: ParameterHandle,
    pub weather: InteractionClassHandle,
    pub weather_wind: ParameterHandle,
}

fn e(context: &'static str) -> impl Fn(RtiError) -> EngineError {
    move |source| EngineError::Rti {
        context: context.to_string(),
        source,
    }
}

impl Handles {
    /// Looks every handle up in the joined federation.
    pub fn resolve(rti: &RtiAmbassador) -> Result<Handles, EngineError> {
        let oc = |n: &str| rti.get_object_class_handle(n).map_err(e("object class"));
        let vehicle = oc("Vehicle")?;
        let car = oc("Vehicle.Car")?;
        let aircraft = oc("Vehicle.Aircraft")?;
        let status = oc("EngineStatus")?;
        let at = |c, n: &str| rti.get_attribute_handle(c, n).map_err(e("attribute"));
        let ic = |n: &str| {
            rti.get_interaction_class_handle(n)
                .map_err(e("interaction class"))
        };
        let refuel = ic("Refuel")?;
        let weather = ic("ChangeWeather")?;
        let par = |c, n: &str| rti.get_parameter_handle(c, n).map_err(e("parameter"));
        Ok(Handles {
            vehicle,
            car,
            aircraft,
            status,
            position: at(vehicle, "Position")?,
            velocity: at(vehicle, "Velocity")?,
            sequence: at(vehicle, "Sequence")?,
            fuel: at(car, "Fuel")?,
            range: at(car, "Range")?,
            altitude: at(aircraft, "Altitude")?,
            state: at(status, "State")?,
            frames: at(status, "Frames")?,
            refuel,
            refuel_car: par(refuel, "Car")?,
            refuel_litres: par(refuel, "Litres")?,
            weather,
            weather_wind: par(weather, "Wind")?,
        })
    }
}

/// Decodes one value, or says which attribute or parameter was bad.
pub fn decode<T: DataElement>(what: &str, bytes: &[u8]) -> Result<T, String> {
    T::decode(bytes).map_err(|err| format!("{what}: {err}"))
}

/// The tag every vehicle update carries: the wall-clock send time (ns since the Unix epoch),
/// so receivers on this machine can measure latency.
pub fn time_tag() -> Vec<u8> {
    wall_ns().to_be_bytes().to_vec()
}

/// Wall-clock nanoseconds since the Unix epoch.
pub fn wall_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Reads [`time_tag`] back.
pub fn tag_time(tag: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(tag.get(..8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_fom_module_loads() {
        hlamesh_lrc::fom::FomModule::parse(FOM_NAME, FOM_XML).unwrap();
    }

    #[test]
    fn a_vector_is_two_big_endian_doubles() {
        let v = Vector2D { x: 1.5, y: -2.0 };
        let b = v.encode();
        assert_eq!(b.len(), 16);
        assert_eq!(Vector2D::decode(&b).unwrap(), v);
    }
}
