//! The viewer: subscribes to everything and shows it — a small map of positions, the
//! federation's time and each federate's engine state, redrawn in place when stdout is a
//! terminal; one plain line per second of logical time otherwise.
//!
//! It also checks what it shows: every vehicle's `Sequence` must go up by exactly one per
//! update (counted as out of order otherwise), and it measures send → receive latency from the
//! wall-clock tag of each update (same-machine clocks). Its save keeps the last sequence seen
//! per vehicle, so a federation restore rewinds the check with the vehicles.
//!
//! A federation save keeps the timestamp-order messages that were queued at the save, and the
//! restore delivers them again: their tags are the wall-clock times of the original sends,
//! seconds before the restore. They are counted apart (`replayed`, with their largest age) and
//! left out of the latency percentiles, which describe live send → reflect latency only.

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};

use hlamesh_engine::reconstruction::Change;
use hlamesh_engine::{Ctx, EngineError, Simulation};
use hlamesh_lrc::handles::{FederateHandle, ObjectInstanceHandle};

use crate::federate::Example;
use crate::fom::{Handles, Vector2D, decode, tag_time, wall_ns};

/// Frame rate.
pub const HZ: u32 = 20;
const MAP_W: usize = 60;
const MAP_H: usize = 16;
const MAX_SAMPLES: usize = 1 << 20;

#[derive(Debug, Default, Clone)]
struct Track {
    name: String,
    aircraft: bool,
    producer: u64,
    pos: Option<(f64, f64)>,
    fuel: Option<f64>,
    range: Option<f64>,
    updates: u64,
    out_of_order: u64,
    /// The first out-of-order reflections: (sequence expected after the last one, sequence
    /// received, restores applied so far), so a summary says what went wrong.
    jumps: Vec<(i64, i64, u64)>,
    /// Deleted (its producer resigned): kept for the summary, not drawn.
    removed: bool,
}

/// The viewer federate.
#[derive(Debug)]
pub struct Viewer {
    h: Option<Handles>,
    tui: bool,
    tracks: HashMap<ObjectInstanceHandle, Track>,
    /// Saved state: last sequence seen per vehicle instance.
    last_seq: BTreeMap<u64, i64>,
    status: HashMap<FederateHandle, String>,
    names: HashMap<FederateHandle, String>,
    latencies_us: Vec<u64>,
    /// Wall-clock time of the last federation restore, ns since the epoch.
    restored_at_ns: Option<u64>,
    /// Reflections of updates sent before the last restore (replayed from the save).
    replayed: u64,
    /// The oldest of them at delivery, µs.
    replayed_max_age_us: u64,
    interactions: u64,
    bad_input: u64,
    restores: u64,
}

impl Default for Viewer {
    fn default() -> Self {
        Self::new(std::io::stdout().is_terminal())
    }
}

impl Viewer {
    /// A viewer; `tui` draws the terminal map instead of plain lines.
    pub fn new(tui: bool) -> Self {
        Viewer {
            h: None,
            tui,
            tracks: HashMap::new(),
            last_seq: BTreeMap::new(),
            status: HashMap::new(),
            names: HashMap::new(),
            latencies_us: Vec::new(),
            restored_at_ns: None,
            replayed: 0,
            replayed_max_age_us: 0,
            interactions: 0,
            bad_input: 0,
            restores: 0,
        }
    }

    fn resolve_names(&mut self, ctx: &Ctx<'_>) {
        let producers: Vec<FederateHandle> = self
            .status
            .keys()
            .copied()
            .chain(
                self.tracks
                    .values()
                    .map(|t| FederateHandle(t.producer as _)),
            )
            .collect();
        for f in producers {
            if !self.names.contains_key(&f)
                && let Ok(n) = ctx.rti().get_federate_name(f)
            {
                self.names.insert(f, n);
            }
        }
    }

    fn percentile(&self, p: f64) -> Option<f64> {
        if self.latencies_us.is_empty() {
            return None;
        }
        let mut v = self.latencies_us.clone();
        v.sort_unstable();
        let i = ((v.len() - 1) as f64 * p).round() as usize;
        Some(v[i.min(v.len() - 1)] as f64 / 1000.0)
    }

    fn name_of(&self, f: FederateHandle) -> String {
        self.names
            .get(&f)
            .cloned()
            .unwrap_or_else(|| format!("federate {f}"))
    }

    fn line(&self, time: f64) -> String {
        let mut tracks: Vec<&Track> = self.tracks.values().filter(|t| !t.removed).collect();
        tracks.sort_by(|a, b| a.name.cmp(&b.name));
        let mut s = format!("t={time:7.2}");
        for t in tracks {
            let (x, y) = t.pos.unwrap_or((0.0, 0.0));
            s.push_str(&format!(" | {} ({x:.0},{y:.0})", t.name));
            if let Some(f) = t.fuel {
                s.push_str(&format!(
                    " fuel {f:.2} l range {:.0} m",
                    t.range.unwrap_or(0.0)
                ));
            }
        }
        let mut st: Vec<(String, &String)> = self
            .status
            .iter()
            .map(|(f, s)| (self.name_of(*f), s))
            .collect();
        st.sort();
        if !st.is_empty() {
            s.push_str(" | engines:");
            for (n, state) in st {
                s.push_str(&format!(" {n}={state}"));
            }
        }
        s
    }

    fn draw(&self, time: f64) {
        let out = self.render(time);
        let mut so = std::io::stdout().lock();
        let _ = so.write_all(out.as_bytes());
        let _ = so.flush();
    }

    /// The terminal screen: clear, a map of the live vehicles (scaled to fit), a line per
    /// vehicle, the engines' states.
    pub fn render(&self, time: f64) -> String {
        let mut grid = vec![vec![' '; MAP_W]; MAP_H];
        let live: Vec<&Track> = self.tracks.values().filter(|t| !t.removed).collect();
        let pts: Vec<(f64, f64)> = live.iter().filter_map(|t| t.pos).collect();
        let (mut x0, mut x1, mut y0, mut y1) = (-500.0f64, 500.0f64, -500.0f64, 500.0f64);
        for (x, y) in &pts {
            x0 = x0.min(*x);
            x1 = x1.max(*x);
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
        let mut tracks = live;
        tracks.sort_by(|a, b| a.name.cmp(&b.name));
        for (i, t) in tracks.iter().enumerate() {
            if let Some((x, y)) = t.pos {
                let c = ((x - x0) / (x1 - x0).max(1.0) * (MAP_W - 1) as f64) as usize;
                let r = ((y1 - y) / (y1 - y0).max(1.0) * (MAP_H - 1) as f64) as usize;
                let mark = if t.aircraft {
                    'A'
                } else {
                    char::from_digit((i % 10) as u32, 10).unwrap_or('?')
                };
                grid[r.min(MAP_H - 1)][c.min(MAP_W - 1)] = mark;
            }
        }
        let mut out = String::from("\x1b[2J\x1b[H");
        out.push_str(&format!("hlamesh viewer — federation time {time:.2} s\n"));
        out.push('+');
        out.push_str(&"-".repeat(MAP_W));
        out.push_str("+\n");
        for row in grid {
            out.push('|');
            out.extend(row);
            out.push_str("|\n");
        }
        out.push('+');
        out.push_str(&"-".repeat(MAP_W));
        out.push_str("+\n");
        for (i, t) in tracks.iter().enumerate() {
            let mark = if t.aircraft {
                "A".to_string()
            } else {
                (i % 10).to_string()
            };
            let (x, y) = t.pos.unwrap_or((0.0, 0.0));
            out.push_str(&format!(
                "{mark} {:10} ({x:7.0},{y:7.0}) updates {:6}",
                t.name, t.updates
            ));
            if let Some(f) = t.fuel {
                out.push_str(&format!(
                    " fuel {f:6.2} l range {:7.0} m",
                    t.range.unwrap_or(0.0)
                ));
            }
            out.push('\n');
        }
        let mut st: Vec<(String, &String)> = self
            .status
            .iter()
            .map(|(f, s)| (self.name_of(*f), s))
            .collect();
        st.sort();
        out.push_str("engines: ");
        out.push_str(
            &st.iter()
                .map(|(n, s)| format!("{n}={s}"))
                .collect::<Vec<_>>()
                .join("  "),
        );
        out.push('\n');
        out
    }
}

fn rti(context: &str) -> impl FnOnce(hlamesh_lrc::error::RtiError) -> EngineError + '_ {
    move |source| EngineError::Rti {
        context: context.to_string(),
        source,
    }
}

impl Simulation for Viewer {
    type Command = ();

    fn on_join(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        let h = Handles::resolve(ctx.rti())?;
        let r = ctx.rti();
        r.subscribe_object_class_attributes(
            h.car,
            &[h.position, h.velocity, h.sequence, h.fuel, h.range],
            true,
        )
        .map_err(rti("subscribe Car"))?;
        r.subscribe_object_class_attributes(
            h.aircraft,
            &[h.position, h.velocity, h.sequence, h.altitude],
            true,
        )
        .map_err(rti("subscribe Aircraft"))?;
        r.subscribe_object_class_attributes(h.status, &[h.state, h.frames], true)
            .map_err(rti("subscribe EngineStatus"))?;
        r.subscribe_interaction_class(h.refuel, true)
            .map_err(rti("subscribe Refuel"))?;
        r.subscribe_interaction_class(h.weather, true)
            .map_err(rti("subscribe ChangeWeather"))?;
        self.h = Some(h);
        Ok(())
    }

    fn on_load(&mut self, ctx: &mut Ctx<'_>, scenario: &[u8]) -> Result<(), EngineError> {
        let sc = crate::scenario::Scenario::parse(&String::from_utf8_lossy(scenario))
            .map_err(EngineError::App)?;
        ctx.set_end_time(sc.run_seconds);
        Ok(())
    }

    fn on_change(&mut self, change: &Change<'_>) {
        let Some(h) = self.h else {
            return;
        };
        match change {
            Change::Updated {
                object,
                state,
                changed,
                tag,
                received,
                ..
            } => {
                if state.class == h.status {
                    if let Some(Ok(s)) = state
                        .attributes
                        .get(&h.state)
                        .map(|b| decode::<String>("State", b))
                    {
                        self.status.insert(state.producer, s);
                    }
                    return;
                }
                let t = self.tracks.entry(*object).or_insert_with(|| Track {
                    name: state.name.clone(),
                    aircraft: state.class == h.aircraft,
                    producer: u64::from(state.producer.0),
                    ..Track::default()
                });
                t.updates += 1;
                for (a, b) in changed.iter() {
                    let ok = if *a == h.position {
                        decode::<Vector2D>("Position", b)
                            .map(|v| t.pos = Some((v.x, v.y)))
                            .is_ok()
                    } else if *a == h.fuel {
                        decode::<f64>("Fuel", b).map(|v| t.fuel = Some(v)).is_ok()
                    } else if *a == h.range {
                        decode::<f64>("Range", b).map(|v| t.range = Some(v)).is_ok()
                    } else if *a == h.sequence {
                        match decode::<i64>("Sequence", b) {
                            Ok(seq) => {
                                let last = self.last_seq.entry(object.0).or_insert(0);
                                if seq != *last + 1 {
                                    t.out_of_order += 1;
                                    if t.jumps.len() < 8 {
                                        t.jumps.push((*last + 1, seq, self.restores));
                                    }
                                }
                                *last = seq;
                                true
                            }
                            Err(_) => false,
                        }
                    } else {
                        true
                    };
                    if !ok {
                        self.bad_input += 1;
                    }
                }
                if let Some(sent) = tag_time(tag) {
                    let recv = wall_ns().saturating_sub(
                        u64::try_from(received.elapsed().as_nanos()).unwrap_or(u64::MAX),
                    );
                    let age_us = recv.saturating_sub(sent) / 1000;
                    if self.restored_at_ns.is_some_and(|r| sent < r) {
                        self.replayed += 1;
                        self.replayed_max_age_us = self.replayed_max_age_us.max(age_us);
                    } else if self.latencies_us.len() < MAX_SAMPLES {
                        self.latencies_us.push(age_us);
                    }
                }
            }
            Change::Removed { object, .. } => {
                if let Some(t) = self.tracks.get_mut(object) {
                    t.removed = true;
                }
            }
            Change::Interaction { .. } => self.interactions += 1,
            Change::Discovered { .. } => {}
        }
    }

    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        self.resolve_names(ctx);
        if self.tui {
            if ctx.frame() % 4 == 0 {
                self.draw(ctx.time());
            }
        } else if ctx.frame() % u64::from(HZ) == 0 {
            println!("{}", self.line(ctx.time()));
        }
        Ok(())
    }

    fn on_end(&mut self, ctx: &mut Ctx<'_>) {
        self.resolve_names(ctx);
    }

    fn on_save(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer(w, &self.last_seq).map_err(std::io::Error::other)
    }

    fn on_restore(&mut self, r: &mut dyn std::io::Read) -> std::io::Result<()> {
        self.last_seq = serde_json::from_reader(r).map_err(std::io::Error::other)?;
        self.restores += 1;
        self.restored_at_ns = Some(wall_ns());
        Ok(())
    }
}

impl Example for Viewer {
    fn summary(&self) -> serde_json::Value {
        let mut vehicles: Vec<serde_json::Value> = self
            .tracks
            .iter()
            .map(|(o, t)| {
                serde_json::json!({
                    "name": t.name,
                    "federate": self.name_of(FederateHandle(t.producer as _)),
                    "aircraft": t.aircraft,
                    "producer": t.producer,
                    "updates": t.updates,
                    "last_seq": self.last_seq.get(&o.0),
                    "out_of_order": t.out_of_order,
                    "jumps": t.jumps,
                    "removed": t.removed,
                })
            })
            .collect();
        vehicles.sort_by_key(|v| v["federate"].as_str().unwrap_or_default().to_string());
        serde_json::json!({
            "kind": "viewer",
            "vehicles": vehicles,
            "interactions": self.interactions,
            "latency_samples": self.latencies_us.len(),
            "replayed_after_restore": self.replayed,
            "replayed_max_age_ms": self.replayed_max_age_us as f64 / 1000.0,
            "latency_ms": {
                "p50": self.percentile(0.5), "p90": self.percentile(0.9),
                "p99": self.percentile(0.99), "max": self.percentile(1.0),
            },
            "bad_input": self.bad_input,
            "restores": self.restores,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_places_every_live_vehicle_inside_its_frame() {
        let mut v = Viewer::new(true);
        for (i, (x, y)) in [(-1e6, 0.0), (0.0, 0.0), (1e6, 1e6), (f64::MAX, -f64::MAX)]
            .into_iter()
            .enumerate()
        {
            v.tracks.insert(
                ObjectInstanceHandle(i as u64),
                Track {
                    name: format!("v{i}"),
                    pos: Some((x, y)),
                    ..Track::default()
                },
            );
        }
        let screen = v.render(1.5);
        assert!(screen.contains("federation time 1.50 s"));
        let rows: Vec<&str> = screen.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(rows.len(), MAP_H);
        assert!(rows.iter().all(|r| r.chars().count() == MAP_W + 2));
        assert_eq!(
            screen.lines().filter(|l| l.contains(" updates ")).count(),
            4
        );
    }
}
