//! `car`: one car of the example federation (see `hlamesh_examples::car`).
//!
//! ```text
//! cargo run --release -p hlamesh-examples --bin car -- --name car-1
//! ```
use clap::Parser;
use hlamesh_examples::car::{Car, CarOptions, HZ};
use hlamesh_examples::federate::{CommonArgs, init_logging, run};
use hlamesh_lrc::engine::TimeScheme;

#[derive(Parser, Debug)]
#[command(about = "A car federate: publishes position, velocity, fuel and range")]
struct Args {
    #[command(flatten)]
    common: CommonArgs,
    /// Save the engine state locally (without the RTI) at this logical time.
    #[arg(long)]
    local_save_at: Option<f64>,
    /// Restore that local save at this logical time.
    #[arg(long)]
    local_restore_at: Option<f64>,
}

fn main() {
    init_logging();
    let a = Args::parse();
    let scheme = TimeScheme::Periodic {
        hz: HZ,
        pace: a.common.pace(),
    };
    let cfg = a
        .common
        .config("car-1", "Car", scheme, Some(1.0 / f64::from(HZ)), true);
    let car = Car::new(
        &cfg.federate_name,
        CarOptions {
            local_save_at: a.local_save_at,
            local_restore_at: a.local_restore_at,
        },
    );
    std::process::exit(run(&a.common, cfg, car));
}
