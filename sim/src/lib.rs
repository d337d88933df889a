//! # hlamesh-sim
//!
//! What hlamesh's deterministic simulators share, so that each is run, replayed and traced the
//! same way: the federation simulator (`lrc/core/tests/rti_sim.rs`), the time-management
//! simulator (`timesync/tests/sim.rs`) and the data-plane simulator
//! (`transport/tests/data_sim.rs`). Dev-only: nothing that ships depends on it.
//!
//! The convention, read from the environment:
//!
//! | variable | meaning |
//! |---|---|
//! | `HLAMESH_SIM_SEED=s` | replay seed `s` alone (in every sweep of the test binary; pick the test with its name) |
//! | `HLAMESH_SIM_SEEDS=n` | how many seeds a sweep runs (each sweep has its default; some also read their own count variable, named in their docs) |
//! | `HLAMESH_SIM_FIRST_SEED=k` | the first seed of a sweep |
//! | `HLAMESH_SIM_TRACE=topics` | trace output: `1` or `all` for everything, or a comma-separated list of the topics a simulator names |
//!
//! A failing seed is reported with the command that replays it ([`Seeds::rerun`]). Each
//! simulator keeps its own generator (changing one would change what every named regression
//! seed runs); [`Rng`] is the federation simulator's.
#![forbid(unsafe_code)]

mod app;
pub mod check;
pub mod federate;
pub mod lrc;
pub mod net;
pub mod options;
mod rng;
mod seeds;
mod trace;
pub mod transport;
pub mod world;

pub use options::Options;
pub use rng::Rng;
pub use seeds::Seeds;
pub use trace::{trace, tracing_any};
pub use world::{Failure, Report, World};

/// Runs seed `seed` of the unified simulator with `options` (see [`world`]).
pub fn run(seed: u64, options: &Options) -> Result<Report, Failure> {
    // The one reading of a clock: the origin virtual time is counted from (the transport
    // core takes `Instant`s, and only ever compares and subtracts them).
    let origin = std::time::Instant::now();
    match World::new(seed, options.clone(), origin) {
        Ok(w) => w.run(),
        Err(message) => Err(Failure {
            seed,
            options: options.clone(),
            at_us: 0,
            message,
        }),
    }
}
