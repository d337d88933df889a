//! `operator`: the event-driven operator station (see `hlamesh_examples::operator`).
use clap::Parser;
use hlamesh_examples::federate::{CommonArgs, init_logging, run};
use hlamesh_examples::operator::{LOOKAHEAD, Operator};
use hlamesh_lrc::engine::TimeScheme;

#[derive(Parser, Debug)]
#[command(about = "An event-driven operator station sending the scenario's interactions")]
struct Args {
    #[command(flatten)]
    common: CommonArgs,
}

fn main() {
    init_logging();
    let a = Args::parse();
    let scheme = TimeScheme::EventDriven {
        pace: a.common.pace(),
    };
    let cfg = a
        .common
        .config("operator", "OperatorStation", scheme, Some(LOOKAHEAD), true);
    std::process::exit(run(&a.common, cfg, Operator::new()));
}
