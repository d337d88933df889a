//! The operator station: event-driven. It schedules the scenario's events and, at each event's
//! time, sends the interaction time-stamped (Refuel, ChangeWeather); between events it asks for
//! the next one (Next Message Request), so it advances in jumps, faster or slower than real
//! time.

use hlamesh_engine::{Ctx, EngineError, EventQueue, Simulation};
use hlamesh_lrc::encoding::DataElement;

use crate::federate::{Example, StatusObject};
use crate::fom::Handles;
use crate::scenario::{EventSpec, Scenario};

/// Lookahead, s.
pub const LOOKAHEAD: f64 = 0.05;

/// The operator federate.
#[derive(Debug, Default)]
pub struct Operator {
    h: Option<Handles>,
    status: StatusObject,
    /// Every scenario event, in scheduling order, and how many of them were sent (what a save
    /// keeps: a restore re-schedules the rest).
    all: Vec<(f64, EventSpec)>,
    done: usize,
    events: EventQueue<usize>,
    sent: Vec<serde_json::Value>,
    /// Events sent when the last federation save reached this federate. An untimed save finds
    /// each federate wherever it is; the events after it are lived again after a restore.
    done_at_save: Option<usize>,
}

impl Operator {
    /// An operator with nothing scheduled yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn reschedule(&mut self) {
        self.events = EventQueue::new();
        for (i, (t, _)) in self.all.iter().enumerate().skip(self.done) {
            self.events.schedule(*t, i);
        }
    }
}

fn rti(context: &str) -> impl FnOnce(hlamesh_lrc::error::RtiError) -> EngineError + '_ {
    move |source| EngineError::Rti {
        context: context.to_string(),
        source,
    }
}

impl Simulation for Operator {
    type Command = ();

    fn on_join(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = Handles::resolve(ctx.rti())?;
        ctx.rti()
            .publish_interaction_class(h.refuel)
            .map_err(rti("publish Refuel"))?;
        ctx.rti()
            .publish_interaction_class(h.weather)
            .map_err(rti("publish ChangeWeather"))?;
        StatusObject::declare(ctx, &h)?;
        self.h = Some(h);
        Ok(())
    }

    fn on_load(&mut self, ctx: &mut Ctx<'_>, scenario: &[u8]) -> Result<(), EngineError> {
        let h = self
            .h
            .ok_or_else(|| EngineError::App("handles not resolved".into()))?;
        let sc = Scenario::parse(&String::from_utf8_lossy(scenario)).map_err(EngineError::App)?;
        // Sent one lookahead early so it is stamped exactly at its time.
        self.all = sc
            .events
            .into_iter()
            .map(|e| ((e.at - LOOKAHEAD).max(0.0), e))
            .collect();
        self.all.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.reschedule();
        ctx.set_end_time(sc.run_seconds);
        self.status.register(ctx, &h)?;
        self.status.update(ctx, &h, true)
    }

    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = self
            .h
            .ok_or_else(|| EngineError::App("handles not resolved".into()))?;
        for (_, i) in self.events.due(ctx.time()) {
            let Some((_, e)) = self.all.get(i).cloned() else {
                continue;
            };
            self.done = self.done.max(i + 1);
            let at = e.at.max(ctx.earliest_send_time());
            match e.kind.as_str() {
                "refuel" => {
                    let car = e.car.clone().unwrap_or_default();
                    let litres = e.litres.unwrap_or(0.0);
                    ctx.send_interaction(
                        h.refuel,
                        vec![
                            (h.refuel_car, car.encode()),
                            (h.refuel_litres, litres.encode()),
                        ],
                        b"",
                        Some(at),
                    )?;
                }
                "weather" => {
                    let wind = e.wind.unwrap_or(0.0);
                    ctx.send_interaction(
                        h.weather,
                        vec![(h.weather_wind, wind.encode())],
                        b"",
                        Some(at),
                    )?;
                }
                other => {
                    return Err(EngineError::App(format!("unknown event kind {other}")));
                }
            }
            self.sent.push(serde_json::json!({
                "kind": e.kind, "at": at, "sent_at_time": ctx.time()
            }));
        }
        self.status.update(ctx, &h, false)
    }

    fn next_event(&self) -> Option<f64> {
        self.events.next_time()
    }

    fn on_save(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.done_at_save = Some(self.done);
        serde_json::to_writer(w, &self.done).map_err(std::io::Error::other)
    }

    fn on_restore(&mut self, r: &mut dyn std::io::Read) -> std::io::Result<()> {
        self.done = serde_json::from_reader(r).map_err(std::io::Error::other)?;
        self.reschedule();
        Ok(())
    }

    fn on_end(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(h) = self.h {
            let _ = self.status.update(ctx, &h, true);
        }
    }
}

impl Example for Operator {
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "operator",
            "sent": self.sent,
            "events": self.all.len(),
            "done_at_save": self.done_at_save,
        })
    }
}
