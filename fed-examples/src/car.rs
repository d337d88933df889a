//! The car: drives on the map, burns fuel, publishes position, velocity, fuel and the range it
//! can still drive with that fuel (the example the users described). Periodic, 20 Hz.
//!
//! Refuel interactions for this car add fuel; ChangeWeather sets a head wind that slows it and
//! raises consumption. Its state (position, heading, fuel, wind, update sequence) is what it
//! saves and restores.

use hlamesh_engine::management::Management;
use hlamesh_engine::reconstruction::Change;
use hlamesh_engine::{Ctx, EngineError, Simulation};
use hlamesh_lrc::encoding::DataElement;
use hlamesh_lrc::handles::ObjectInstanceHandle;
use serde::{Deserialize, Serialize};

use crate::federate::{Example, StatusObject};
use crate::fom::{Handles, Vector2D, decode, time_tag};
use crate::scenario::{CarSpec, Scenario};

/// Frame rate.
pub const HZ: u32 = 20;
/// Turn rate, rad/s (keeps cars on the map).
const TURN: f64 = 0.15;

/// What a car saves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CarState {
    /// Map position, m.
    pub x: f64,
    /// Map position, m.
    pub y: f64,
    /// Heading, rad.
    pub heading: f64,
    /// Cruise speed, m/s.
    pub speed: f64,
    /// Fuel, litres.
    pub fuel: f64,
    /// Consumption, litres per km.
    pub consumption: f64,
    /// Head wind, m/s.
    pub wind: f64,
    /// Updates sent so far (the next one is `seq + 1`).
    pub seq: i64,
}

impl CarState {
    fn from_spec(s: &CarSpec) -> Self {
        CarState {
            x: s.x,
            y: s.y,
            heading: s.heading_deg.to_radians(),
            speed: s.speed,
            fuel: s.fuel,
            consumption: s.consumption,
            wind: 0.0,
            seq: 0,
        }
    }

    /// Litres per metre now (head wind costs 5 % per m/s).
    pub fn litres_per_metre(&self) -> f64 {
        self.consumption / 1000.0 * (1.0 + 0.05 * self.wind)
    }

    /// Distance the car can still drive, m.
    pub fn range(&self) -> f64 {
        self.fuel / self.litres_per_metre().max(1e-12)
    }

    /// Ground speed now, m/s (zero without fuel).
    pub fn ground_speed(&self) -> f64 {
        if self.fuel <= 0.0 {
            0.0
        } else {
            (self.speed - 0.5 * self.wind).max(1.0)
        }
    }

    /// Advances `dt` seconds.
    pub fn step(&mut self, dt: f64) {
        let v = self.ground_speed();
        let dist = v * dt;
        self.fuel = (self.fuel - dist * self.litres_per_metre()).max(0.0);
        self.x += dist * self.heading.cos();
        self.y += dist * self.heading.sin();
        if v > 0.0 {
            self.heading = (self.heading + TURN * dt).rem_euclid(std::f64::consts::TAU);
        }
    }
}

/// Car options besides the common ones.
#[derive(Debug, Clone, Default)]
pub struct CarOptions {
    /// Save the engine state locally (no RTI) at this logical time.
    pub local_save_at: Option<f64>,
    /// Restore that local save at this logical time.
    pub local_restore_at: Option<f64>,
}

/// The car federate.
#[derive(Debug)]
pub struct Car {
    name: String,
    opts: CarOptions,
    h: Option<Handles>,
    object: Option<ObjectInstanceHandle>,
    status: StatusObject,
    state: Option<CarState>,
    refuels: u32,
    at_save: Option<CarState>,
    after_restore: Option<CarState>,
    local_saved: bool,
    local_restored: bool,
    bad_input: u64,
}

impl Car {
    /// A car named `name` (its spec comes from the scenario).
    pub fn new(name: &str, opts: CarOptions) -> Self {
        Car {
            name: name.to_string(),
            opts,
            h: None,
            object: None,
            status: StatusObject::default(),
            state: None,
            refuels: 0,
            at_save: None,
            after_restore: None,
            local_saved: false,
            local_restored: false,
            bad_input: 0,
        }
    }

    /// The car's current state.
    pub fn state(&self) -> Option<&CarState> {
        self.state.as_ref()
    }

    fn handles(&self) -> Result<Handles, EngineError> {
        self.h
            .ok_or_else(|| EngineError::App("handles not resolved".into()))
    }
}

fn rti(context: &str) -> impl FnOnce(hlamesh_lrc::error::RtiError) -> EngineError + '_ {
    move |source| EngineError::Rti {
        context: context.to_string(),
        source,
    }
}

impl Simulation for Car {
    type Command = ();

    fn on_join(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = Handles::resolve(ctx.rti())?;
        ctx.rti()
            .publish_object_class_attributes(
                h.car,
                &[h.position, h.velocity, h.sequence, h.fuel, h.range],
            )
            .map_err(rti("publish Car"))?;
        ctx.rti()
            .subscribe_interaction_class(h.refuel, true)
            .map_err(rti("subscribe Refuel"))?;
        ctx.rti()
            .subscribe_interaction_class(h.weather, true)
            .map_err(rti("subscribe ChangeWeather"))?;
        StatusObject::declare(ctx, &h)?;
        self.h = Some(h);
        Ok(())
    }

    fn on_load(&mut self, ctx: &mut Ctx<'_>, scenario: &[u8]) -> Result<(), EngineError> {
        let h = self.handles()?;
        let sc = Scenario::parse(&String::from_utf8_lossy(scenario)).map_err(EngineError::App)?;
        let spec = sc
            .cars
            .iter()
            .find(|c| c.name == self.name)
            .ok_or_else(|| EngineError::App(format!("car {} is not in the scenario", self.name)))?;
        self.state = Some(CarState::from_spec(spec));
        ctx.set_end_time(sc.run_seconds);
        self.object = Some(
            ctx.rti()
                .register_object_instance(h.car)
                .map_err(rti("register Car"))?,
        );
        self.status.register(ctx, &h)?;
        self.status.update(ctx, &h, true)
    }

    fn on_change(&mut self, change: &Change<'_>) {
        let (Some(h), Some(st)) = (self.h, self.state.as_mut()) else {
            return;
        };
        let Change::Interaction { class, params, .. } = change else {
            return;
        };
        let param = |p| {
            params
                .iter()
                .find(|(ph, _)| *ph == p)
                .map(|(_, v)| v.as_slice())
        };
        if *class == h.refuel {
            let car = param(h.refuel_car).map(|b| decode::<String>("Car", b));
            let litres = param(h.refuel_litres).map(|b| decode::<f64>("Litres", b));
            match (car, litres) {
                (Some(Ok(car)), Some(Ok(l))) if l.is_finite() && l >= 0.0 => {
                    if car == self.name {
                        st.fuel += l;
                        self.refuels += 1;
                    }
                }
                _ => self.bad_input += 1,
            }
        } else if *class == h.weather {
            match param(h.weather_wind).map(|b| decode::<f64>("Wind", b)) {
                Some(Ok(w)) if w.is_finite() => st.wind = w,
                _ => self.bad_input += 1,
            }
        }
    }

    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = self.handles()?;
        let (Some(st), Some(o)) = (self.state.as_mut(), self.object) else {
            return Err(EngineError::App("car not loaded".into()));
        };
        st.step(1.0 / f64::from(HZ));
        st.seq += 1;
        let v = st.ground_speed();
        let values = vec![
            (h.position, Vector2D { x: st.x, y: st.y }.encode()),
            (
                h.velocity,
                Vector2D {
                    x: v * st.heading.cos(),
                    y: v * st.heading.sin(),
                }
                .encode(),
            ),
            (h.sequence, st.seq.encode()),
            (h.fuel, st.fuel.encode()),
            (h.range, st.range().encode()),
        ];
        ctx.update(o, values, &time_tag())?;
        let t = ctx.time();
        if let Some(at) = self.opts.local_save_at
            && !self.local_saved
            && t >= at
        {
            self.local_saved = true;
            ctx.management(Management::LocalSave("car-local".into()));
        }
        if let Some(at) = self.opts.local_restore_at
            && self.local_saved
            && !self.local_restored
            && t >= at
        {
            self.local_restored = true;
            ctx.management(Management::LocalRestore("car-local".into()));
        }
        let force = ctx.frame() % u64::from(HZ) == 0;
        self.status.update(ctx, &h, force)
    }

    fn on_save(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.at_save = self.state.clone();
        serde_json::to_writer(w, &self.state).map_err(std::io::Error::other)
    }

    fn on_restore(&mut self, r: &mut dyn std::io::Read) -> std::io::Result<()> {
        let st: Option<CarState> = serde_json::from_reader(r).map_err(std::io::Error::other)?;
        self.state = st;
        self.after_restore = self.state.clone();
        Ok(())
    }

    fn on_end(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(h) = self.h {
            let _ = self.status.update(ctx, &h, true);
        }
    }
}

impl Example for Car {
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "car",
            "state": self.state,
            "range_m": self.state.as_ref().map(CarState::range),
            "refuels": self.refuels,
            "at_save": self.at_save,
            "after_restore": self.after_restore,
            "bad_input": self.bad_input,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_is_fuel_over_consumption_and_wind_shortens_it() {
        let mut s = CarState::from_spec(&CarSpec {
            name: "c".into(),
            x: 0.0,
            y: 0.0,
            heading_deg: 0.0,
            speed: 10.0,
            fuel: 1.0,
            consumption: 1.0,
        });
        assert!((s.range() - 1000.0).abs() < 1e-9);
        s.wind = 10.0;
        assert!((s.range() - 1000.0 / 1.5).abs() < 1e-9);
        s.step(1.0);
        assert!(s.fuel < 1.0 && s.x > 0.0);
    }

    #[test]
    fn a_car_without_fuel_stops() {
        let mut s = CarState::from_spec(&CarSpec {
            name: "c".into(),
            x: 0.0,
            y: 0.0,
            heading_deg: 0.0,
            speed: 10.0,
            fuel: 0.001,
            consumption: 1.0,
        });
        for _ in 0..100 {
            s.step(1.0);
        }
        assert_eq!(s.fuel, 0.0);
        let x = s.x;
        s.step(1.0);
        assert_eq!(s.x, x);
    }
}
