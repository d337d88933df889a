//! The example federates as roles of any binary: each role parses its own command line and runs
//! its federate to the end, returning the process exit code.
//!
//! Every federate binary (`car`, `commander`, …) is one call into this module, and so is
//! `demo role <role> …`: the demo starts each federate as a role of its own executable. That is
//! what makes `cargo run --release -p hlamesh-examples --bin demo` work on a fresh clone — cargo
//! builds only the binary it runs, so a demo that started its sibling binaries would find them
//! missing. The separate binaries stay for users who run one federate per machine.

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::Parser;
use hlamesh_engine::{Role as EngineRole, TimeScheme};

use crate::car::{Car, CarOptions};
use crate::commander::Commander;
use crate::federate::{CommonArgs, init_logging, run};
use crate::flightsim::FlightSim;
use crate::fom::{FOM_NAME, FOM_XML};
use crate::operator::{LOOKAHEAD, Operator};
use crate::scenario::Scenario;
use crate::viewer::Viewer;

/// One of the example federates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// Loads the scenario, creates the federation, drives sync points, save and restore.
    Commander,
    /// A car: position, velocity, fuel and range.
    Car,
    /// An aircraft at a fixed 60 Hz step.
    Flightsim,
    /// The event-driven operator station.
    Operator,
    /// Subscribes to everything and shows it.
    Viewer,
}

impl Role {
    /// The name of the role's own binary (also its `demo role` argument).
    pub fn name(self) -> &'static str {
        match self {
            Role::Commander => "commander",
            Role::Car => "car",
            Role::Flightsim => "flightsim",
            Role::Operator => "operator",
            Role::Viewer => "viewer",
        }
    }

    /// The role named `name`, if any.
    pub fn from_name(name: &str) -> Option<Role> {
        <Role as clap::ValueEnum>::from_str(name, false).ok()
    }

    /// Runs the role's federate with `args` (`args[0]` is the program name, as in
    /// `std::env::args_os`); returns the exit code. Prints clap's help or error and returns its
    /// code for a bad command line.
    pub fn main<I, T>(self, args: I) -> i32
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        init_logging();
        let parsed = match self {
            Role::Commander => CommanderArgs::try_parse_from(args).map(commander),
            Role::Car => CarArgs::try_parse_from(args).map(car),
            Role::Flightsim => FlightsimArgs::try_parse_from(args).map(flightsim),
            Role::Operator => OperatorArgs::try_parse_from(args).map(operator),
            Role::Viewer => ViewerArgs::try_parse_from(args).map(viewer),
        };
        parsed.unwrap_or_else(|e| {
            let _ = e.print();
            e.exit_code()
        })
    }
}

#[derive(Parser, Debug)]
#[command(about = "A car federate: publishes position, velocity, fuel and range")]
struct CarArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Save the engine state locally (without the RTI) at this logical time.
    #[arg(long)]
    local_save_at: Option<f64>,
    /// Restore that local save at this logical time.
    #[arg(long)]
    local_restore_at: Option<f64>,
}

fn car(a: CarArgs) -> i32 {
    let scheme = TimeScheme::Periodic {
        hz: crate::car::HZ,
        pace: a.common.pace(),
    };
    let cfg = a.common.config(
        "car-1",
        "Car",
        scheme,
        Some(1.0 / f64::from(crate::car::HZ)),
        true,
    );
    let car = Car::new(
        &cfg.federate_name,
        CarOptions {
            local_save_at: a.local_save_at,
            local_restore_at: a.local_restore_at,
        },
    );
    run(&a.common, cfg, car)
}

#[derive(Parser, Debug)]
#[command(about = "The commander: scenario, federation creation, sync points, save/restore")]
struct CommanderArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Scenario file (TOML); without it, the demo scenario from --cars and --duration.
    #[arg(long)]
    scenario: Option<std::path::PathBuf>,
    /// Cars in the built-in scenario.
    #[arg(long, default_value_t = 2)]
    cars: usize,
    /// Logical run length of the built-in scenario, s.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// No save and restore in the built-in scenario.
    #[arg(long)]
    no_save: bool,
    /// Federates to wait for (overrides the scenario's list; comma-separated).
    #[arg(long, value_delimiter = ',')]
    expected: Option<Vec<String>>,
}

fn commander(a: CommanderArgs) -> i32 {
    let mut scenario = match &a.scenario {
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| format!("{}: {e}", p.display()))
            .and_then(|t| Scenario::parse(&t))
        {
            Ok(s) => s,
            Err(e) => {
                eprintln!("commander: {e}");
                return 2;
            }
        },
        None => Scenario::demo(a.cars, a.duration),
    };
    if a.no_save {
        scenario.save_at = None;
        scenario.restore_at = None;
    }
    if let Some(e) = a.expected {
        scenario.expected = e.into_iter().filter(|s| !s.is_empty()).collect();
    }
    let scheme = TimeScheme::Periodic {
        hz: crate::commander::HZ,
        pace: a.common.pace(),
    };
    let mut cfg = a
        .common
        .config("commander", "Commander", scheme, None, true);
    cfg.role = EngineRole::Commander {
        fom_modules: vec![(FOM_NAME.to_string(), FOM_XML.to_string())],
        expected: scenario.expected.clone(),
    };
    run(&a.common, cfg, Commander::new(scenario))
}

#[derive(Parser, Debug)]
#[command(about = "A flight simulator federate at a fixed 60 Hz step")]
struct FlightsimArgs {
    #[command(flatten)]
    common: CommonArgs,
}

fn flightsim(a: FlightsimArgs) -> i32 {
    let hz = crate::flightsim::HZ;
    let scheme = TimeScheme::Periodic {
        hz,
        pace: a.common.pace(),
    };
    let cfg = a.common.config(
        "flightsim",
        "FlightSimulator",
        scheme,
        Some(1.0 / f64::from(hz)),
        true,
    );
    let sim = FlightSim::new(&cfg.federate_name);
    run(&a.common, cfg, sim)
}

#[derive(Parser, Debug)]
#[command(about = "An event-driven operator station sending the scenario's interactions")]
struct OperatorArgs {
    #[command(flatten)]
    common: CommonArgs,
}

fn operator(a: OperatorArgs) -> i32 {
    let scheme = TimeScheme::EventDriven {
        pace: a.common.pace(),
    };
    let cfg = a
        .common
        .config("operator", "OperatorStation", scheme, Some(LOOKAHEAD), true);
    run(&a.common, cfg, Operator::new())
}

#[derive(Parser, Debug)]
#[command(about = "A viewer federate: subscribes to everything and shows it")]
struct ViewerArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Plain lines even on a terminal.
    #[arg(long)]
    plain: bool,
}

fn viewer(a: ViewerArgs) -> i32 {
    let scheme = TimeScheme::Periodic {
        hz: crate::viewer::HZ,
        pace: a.common.pace(),
    };
    // Constrained but not regulating: it sees everything in time and holds nobody back.
    let cfg = a.common.config("viewer", "Viewer", scheme, None, true);
    let tui = !a.plain && std::io::stdout().is_terminal();
    run(&a.common, cfg, Viewer::new(tui))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_is_found_by_its_binary_name() {
        for r in [
            Role::Commander,
            Role::Car,
            Role::Flightsim,
            Role::Operator,
            Role::Viewer,
        ] {
            assert_eq!(Role::from_name(r.name()), Some(r));
        }
        assert_eq!(Role::from_name("demo"), None);
    }

    #[test]
    fn a_bad_command_line_is_a_usage_error_not_a_run() {
        assert_eq!(Role::Car.main(["car", "--no-such-option"]), 2);
    }
}
