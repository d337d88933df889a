//! `commander`: loads the scenario and drives the federation (see
//! `hlamesh_examples::commander`).
//!
//! ```text
//! cargo run --release -p hlamesh-examples --bin commander -- --scenario my.toml
//! cargo run --release -p hlamesh-examples --bin commander -- --cars 2 --duration 10
//! ```
use clap::Parser;
use hlamesh_examples::commander::{Commander, HZ};
use hlamesh_examples::federate::{CommonArgs, init_logging, run};
use hlamesh_examples::fom::{FOM_NAME, FOM_XML};
use hlamesh_examples::scenario::Scenario;
use hlamesh_lrc::engine::{Role, TimeScheme};

#[derive(Parser, Debug)]
#[command(about = "The commander: scenario, federation creation, sync points, save/restore")]
struct Args {
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

fn main() {
    init_logging();
    let a = Args::parse();
    let mut scenario = match &a.scenario {
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| format!("{}: {e}", p.display()))
            .and_then(|t| Scenario::parse(&t))
        {
            Ok(s) => s,
            Err(e) => {
                eprintln!("commander: {e}");
                std::process::exit(2);
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
        hz: HZ,
        pace: a.common.pace(),
    };
    let mut cfg = a
        .common
        .config("commander", "Commander", scheme, None, true);
    cfg.role = Role::Commander {
        fom_modules: vec![(FOM_NAME.to_string(), FOM_XML.to_string())],
        expected: scenario.expected.clone(),
    };
    std::process::exit(run(&a.common, cfg, Commander::new(scenario)));
}
