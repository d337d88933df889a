//! The scenario file (TOML) the commander loads and shares with every engine.
//!
//! ```toml
//! run_seconds = 10.0          # logical run length
//! save_at = 4.0               # the commander requests a federation save at this time
//! restore_at = 7.0            # ... and a restore of that save at this time
//! expected = ["car-1", "flightsim", "operator", "viewer"]
//!
//! [[cars]]
//! name = "car-1"
//! x = 0.0
//! y = 0.0
//! heading_deg = 0.0
//! speed = 15.0                # m/s
//! fuel = 40.0                 # litres
//! consumption = 0.08          # litres per km
//!
//! [[aircraft]]
//! name = "flightsim"
//! x = 0.0
//! y = -500.0
//! altitude = 1000.0
//! speed = 80.0
//! turn_rate_deg = 6.0         # degrees per second
//!
//! [[events]]                  # sent by the operator, time-stamped
//! at = 3.0
//! kind = "refuel"             # or "weather" (with `wind`, m/s of head wind)
//! car = "car-1"
//! litres = 10.0
//! ```

use serde::{Deserialize, Serialize};

/// A car's initial state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct CarSpec {
    pub name: String,
    pub x: f64,
    pub y: f64,
    pub heading_deg: f64,
    pub speed: f64,
    pub fuel: f64,
    pub consumption: f64,
}

/// An aircraft's initial state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct AircraftSpec {
    pub name: String,
    pub x: f64,
    pub y: f64,
    pub altitude: f64,
    pub speed: f64,
    pub turn_rate_deg: f64,
}

/// One operator event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventSpec {
    /// Logical time.
    pub at: f64,
    /// "refuel" or "weather".
    pub kind: String,
    /// Refuel: which car.
    #[serde(default)]
    pub car: Option<String>,
    /// Refuel: how much.
    #[serde(default)]
    pub litres: Option<f64>,
    /// Weather: head wind, m/s.
    #[serde(default)]
    pub wind: Option<f64>,
}

/// A whole scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Logical run length, s.
    pub run_seconds: f64,
    /// Federation save time.
    #[serde(default)]
    pub save_at: Option<f64>,
    /// Restore (of the save) time.
    #[serde(default)]
    pub restore_at: Option<f64>,
    /// Federates the commander waits for.
    #[serde(default)]
    pub expected: Vec<String>,
    /// Cars.
    #[serde(default)]
    pub cars: Vec<CarSpec>,
    /// Aircraft.
    #[serde(default)]
    pub aircraft: Vec<AircraftSpec>,
    /// Operator events.
    #[serde(default)]
    pub events: Vec<EventSpec>,
}

impl Scenario {
    /// Parses and checks a scenario.
    pub fn parse(text: &str) -> Result<Scenario, String> {
        let s: Scenario = toml::from_str(text).map_err(|e| format!("scenario: {e}"))?;
        if !(s.run_seconds.is_finite() && s.run_seconds > 0.0) {
            return Err("scenario: run_seconds must be positive".into());
        }
        for t in [s.save_at, s.restore_at].into_iter().flatten() {
            if !(t > 0.0 && t < s.run_seconds) {
                return Err(format!("scenario: save/restore time {t} outside the run"));
            }
        }
        if let (Some(sv), Some(rs)) = (s.save_at, s.restore_at)
            && rs <= sv
        {
            return Err("scenario: restore_at must come after save_at".into());
        }
        Ok(s)
    }

    /// As TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// The demo's scenario: `cars` cars, one aircraft, an operator refuelling car-1 and
    /// changing the weather, a viewer; a save at 40 % and a restore at 70 % of the run.
    pub fn demo(cars: usize, run_seconds: f64) -> Scenario {
        let cars: Vec<CarSpec> = (1..=cars)
            .map(|i| CarSpec {
                name: format!("car-{i}"),
                x: 100.0 * i as f64,
                y: 0.0,
                heading_deg: 30.0 * i as f64,
                speed: 10.0 + 2.0 * i as f64,
                fuel: 5.0 + i as f64,
                consumption: 0.9,
            })
            .collect();
        let mut expected: Vec<String> = cars.iter().map(|c| c.name.clone()).collect();
        expected.extend(["flightsim", "operator", "viewer"].map(String::from));
        let t = |f: f64| (run_seconds * f * 10.0).round() / 10.0;
        Scenario {
            run_seconds,
            save_at: Some(t(0.4)),
            restore_at: Some(t(0.7)),
            expected,
            aircraft: vec![AircraftSpec {
                name: "flightsim".into(),
                x: 0.0,
                y: -500.0,
                altitude: 1000.0,
                speed: 80.0,
                turn_rate_deg: 6.0,
            }],
            events: vec![
                EventSpec {
                    at: t(0.25),
                    kind: "refuel".into(),
                    car: cars.first().map(|c| c.name.clone()),
                    litres: Some(10.0),
                    wind: None,
                },
                EventSpec {
                    at: t(0.5),
                    kind: "weather".into(),
                    car: None,
                    litres: None,
                    wind: Some(8.0),
                },
            ],
            cars,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_demo_scenario_round_trips_through_toml() {
        let s = Scenario::demo(2, 10.0);
        let back = Scenario::parse(&s.to_toml()).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.save_at, Some(4.0));
        assert_eq!(back.expected.len(), 5);
    }

    #[test]
    fn bad_scenarios_are_errors() {
        assert!(Scenario::parse("run_seconds = -1.0").is_err());
        assert!(Scenario::parse("run_seconds = 5.0\nsave_at = 9.0").is_err());
        assert!(Scenario::parse("run_seconds = 5.0\nsave_at = 3.0\nrestore_at = 2.0").is_err());
        assert!(Scenario::parse("nonsense").is_err());
    }
}
