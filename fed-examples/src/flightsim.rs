//! The flight simulator: a simple aircraft flying circles at a fixed 60 Hz step, real-time
//! paced (the pacer's overruns are its health figure). Head wind slows it down.

use hlamesh_engine::reconstruction::Change;
use hlamesh_engine::{Ctx, EngineError, Simulation};
use hlamesh_lrc::encoding::DataElement;
use hlamesh_lrc::handles::ObjectInstanceHandle;
use serde::{Deserialize, Serialize};

use crate::federate::{Example, StatusObject};
use crate::fom::{Handles, Vector2D, decode, time_tag};
use crate::scenario::Scenario;

/// Frame rate.
pub const HZ: u32 = 60;

/// What the aircraft saves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct AircraftState {
    pub x: f64,
    pub y: f64,
    pub altitude: f64,
    pub heading: f64,
    pub speed: f64,
    pub turn_rate: f64,
    pub wind: f64,
    pub seq: i64,
}

impl AircraftState {
    /// Advances `dt` seconds.
    pub fn step(&mut self, dt: f64) {
        let v = (self.speed - self.wind).max(20.0);
        self.heading = (self.heading + self.turn_rate * dt).rem_euclid(std::f64::consts::TAU);
        self.x += v * dt * self.heading.cos();
        self.y += v * dt * self.heading.sin();
    }
}

/// The flight simulator federate.
#[derive(Debug)]
pub struct FlightSim {
    name: String,
    h: Option<Handles>,
    object: Option<ObjectInstanceHandle>,
    status: StatusObject,
    state: Option<AircraftState>,
}

impl FlightSim {
    /// An aircraft named `name` (its spec comes from the scenario).
    pub fn new(name: &str) -> Self {
        FlightSim {
            name: name.to_string(),
            h: None,
            object: None,
            status: StatusObject::default(),
            state: None,
        }
    }
}

fn rti(context: &str) -> impl FnOnce(hlamesh_lrc::error::RtiError) -> EngineError + '_ {
    move |source| EngineError::Rti {
        context: context.to_string(),
        source,
    }
}

impl Simulation for FlightSim {
    type Command = ();

    fn on_join(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = Handles::resolve(ctx.rti())?;
        ctx.rti()
            .publish_object_class_attributes(
                h.aircraft,
                &[h.position, h.velocity, h.sequence, h.altitude],
            )
            .map_err(rti("publish Aircraft"))?;
        ctx.rti()
            .subscribe_interaction_class(h.weather, true)
            .map_err(rti("subscribe ChangeWeather"))?;
        StatusObject::declare(ctx, &h)?;
        self.h = Some(h);
        Ok(())
    }

    fn on_load(&mut self, ctx: &mut Ctx<'_>, scenario: &[u8]) -> Result<(), EngineError> {
        let h = self
            .h
            .ok_or_else(|| EngineError::App("handles not resolved".into()))?;
        let sc = Scenario::parse(&String::from_utf8_lossy(scenario)).map_err(EngineError::App)?;
        let a = sc
            .aircraft
            .iter()
            .find(|a| a.name == self.name)
            .ok_or_else(|| {
                EngineError::App(format!("aircraft {} is not in the scenario", self.name))
            })?;
        self.state = Some(AircraftState {
            x: a.x,
            y: a.y,
            altitude: a.altitude,
            heading: 0.0,
            speed: a.speed,
            turn_rate: a.turn_rate_deg.to_radians(),
            wind: 0.0,
            seq: 0,
        });
        ctx.set_end_time(sc.run_seconds);
        self.object = Some(
            ctx.rti()
                .register_object_instance(h.aircraft)
                .map_err(rti("register Aircraft"))?,
        );
        self.status.register(ctx, &h)?;
        self.status.update(ctx, &h, true)
    }

    fn on_change(&mut self, change: &Change<'_>) {
        let (Some(h), Some(st)) = (self.h, self.state.as_mut()) else {
            return;
        };
        if let Change::Interaction { class, params, .. } = change
            && *class == h.weather
            && let Some((_, b)) = params.iter().find(|(p, _)| *p == h.weather_wind)
            && let Ok(w) = decode::<f64>("Wind", b)
            && w.is_finite()
        {
            st.wind = w;
        }
    }

    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = self
            .h
            .ok_or_else(|| EngineError::App("handles not resolved".into()))?;
        let (Some(st), Some(o)) = (self.state.as_mut(), self.object) else {
            return Err(EngineError::App("aircraft not loaded".into()));
        };
        st.step(1.0 / f64::from(HZ));
        st.seq += 1;
        let v = (st.speed - st.wind).max(20.0);
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
            (h.altitude, st.altitude.encode()),
        ];
        ctx.update(o, values, &time_tag())?;
        let force = ctx.frame() % u64::from(HZ) == 0;
        self.status.update(ctx, &h, force)
    }

    fn on_save(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer(w, &self.state).map_err(std::io::Error::other)
    }

    fn on_restore(&mut self, r: &mut dyn std::io::Read) -> std::io::Result<()> {
        self.state = serde_json::from_reader(r).map_err(std::io::Error::other)?;
        Ok(())
    }

    fn on_end(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(h) = self.h {
            let _ = self.status.update(ctx, &h, true);
        }
    }
}

impl Example for FlightSim {
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "kind": "aircraft", "state": self.state })
    }
}
