//! `flightsim`: the example federation's aircraft, 60 Hz real-time paced (see
//! `hlamesh_examples::flightsim`).
use clap::Parser;
use hlamesh_examples::federate::{CommonArgs, init_logging, run};
use hlamesh_examples::flightsim::{FlightSim, HZ};
use hlamesh_lrc::engine::TimeScheme;

#[derive(Parser, Debug)]
#[command(about = "A flight simulator federate at a fixed 60 Hz step")]
struct Args {
    #[command(flatten)]
    common: CommonArgs,
}

fn main() {
    init_logging();
    let a = Args::parse();
    let scheme = TimeScheme::Periodic {
        hz: HZ,
        pace: a.common.pace(),
    };
    let cfg = a.common.config(
        "flightsim",
        "FlightSimulator",
        scheme,
        Some(1.0 / f64::from(HZ)),
        true,
    );
    let sim = FlightSim::new(&cfg.federate_name);
    std::process::exit(run(&a.common, cfg, sim));
}
