//! # hlamesh-sim
//!
//! hlamesh's deterministic simulation: the seed, replay and trace convention every simulator
//! follows, and the **unified simulator**, which runs several whole LRCs — the transport
//! core's parts, the process's `Host` with its federation cores and their time managers —
//! on one seeded network model, through the same driver code the LRC shell runs. Dev-only:
//! nothing that ships depends on it.
//!
//! ## The convention
//!
//! The layer simulators (`transport/tests/data_sim.rs`, `timesync/tests/sim.rs`,
//! `lrc/core/tests/rti_sim.rs`) and the unified one read the same variables:
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
//! seed runs); [`Rng`] is the federation simulator's and the unified simulator's.
//!
//! ## The unified simulator
//!
//! One run ([`run`], [`World`]) composes, per simulated LRC ([`lrc::SimLrc`]):
//!
//! - the transport core ([`transport::SimTransport`]): `Mesh`, and per federation `Members`,
//!   `SendSide` and `ReceivePath` driven by `core::dispatch` as `transport/src/node.rs` drives
//!   them — the datagrams the real `DataSender` emits are what the network carries and what
//!   the real `DataReceiver` reads; NACKs and repairs are real frames;
//! - the `Host` with its `FederationCore`s (and their `TimeManager`s), joined to that transport
//!   by the shipped driver `hlamesh_lrc::driver` through [`lrc::Io`], the simulator's
//!   implementation of `DriverIo` (the shell implements it over sockets, callback queues and
//!   save files);
//!
//! on one network model ([`net`]: virtual clock, per-link delay and jitter, datagram loss,
//! duplication and reordering, reliable ordered control channels, partitions and heal, crashes
//! that cut channels at a random point), with federates that join, declare, register, update,
//! interact, synchronize, save, manage time and resign ([`federate`], `app.rs`), the faults and
//! features each seed turns on ([`Options::swarm`]), and the invariant checkers ([`check`]).
//! After the fault phase comes the liveness phase: the faults stop and the federation must
//! converge within [`Options::liveness_us`] (see [`world`]).
//!
//! Run it: `cargo test --release -p hlamesh-sim --test unified` (1,500 seeds and the
//! regression seeds, about a minute on two cores). One seed:
//! `HLAMESH_SIM_SEED=7 cargo test --release -p hlamesh-sim --test unified random`; a long
//! sweep: `HLAMESH_SIM_UNIFIED_SEEDS=20000 HLAMESH_SIM_FIRST_SEED=1501 cargo test --release
//! -p hlamesh-sim --test unified random`; traces: `HLAMESH_SIM_TRACE=` `actions` (the
//! federates' calls, faults), `net` (connections, losses noticed), `events` (transport events),
//! `ctl` (control messages between cores), `callbacks`, `feds` and `dump` (state at a failure).
//!
//! **Region mode** ([`Options::regions`], DDM): the federation's FOM gives `Vehicle.Position`
//! dimensions `X` and `Y` (`sim/foms/MovingObjectRegions.xml`); besides everything above, the
//! federates create regions over `X`, `Y` or both, move them (set range bounds, commit at once
//! or later), subscribe to `Position` with regions (two in three federates; the others without
//! regions, the default region), register instances with regions, associate and unassociate
//! regions for updates, and delete regions (`RegionInUseForUpdateOrSubscription` exactly when
//! the model has the region in use). The regions check ([`check::regions`]) then holds every
//! reflection of a position to an update whose region, as its sender had it, overlapped the
//! subscriber's, as the subscriber held it between the send and the delivery, exactly once;
//! and at the end every subscriber whose regions overlap the region of an instance's last
//! update holds that value. [`Options::swarm`] never turns it on (the named seeds keep their
//! runs); `random_federations_in_region_mode_converge` runs its own sweep
//! (`HLAMESH_SIM_REGION_SEEDS`, default 300, with each seed's swarm options).
//!
//! **Interactions with regions** ([`Options::region_interactions`], with region mode; on in the
//! region and cell sweeps): the FOM gains `Ping` over `X` and `Y` (`sim/foms/Pings.xml`, a
//! module of its own); every federate subscribes to it in the region it subscribes to
//! `Position` in (or without regions), subscribes with more of its regions and unsubscribes
//! some, and sends pings with one or two of its regions or without (time-stamped in runs with
//! [`Options::tso`]). The pings check
//! ([`check::pings`]) holds every receipt to a ping sent by another federate in regions that
//! overlapped the receiver's, as it held them between the send and the receipt, at most once;
//! after the liveness phase converged every live federate sends a final ping, which every other
//! live federate whose subscription overlaps it must receive.
//!
//! **Cell groups** ([`Options::cells`], with region mode): each federation has 16 DDM cell
//! groups on the network model ([`net::Net::multicast_to`]); what the core sends to cells goes
//! through the transport core's cell routing and chained reliable positions
//! ([`transport::SimTransport::send_to_cells`]) to the groups of those cells only, an LRC joins
//! and leaves groups as its core asks (`Action::SetCells`, [`transport::SimTransport::set_cells`])
//! and hears nothing of the others, passing over their reliable positions. The region checks
//! hold unchanged. `random_federations_on_ddm_cell_groups_converge` runs its own sweep
//! (`HLAMESH_SIM_CELL_SEEDS`, default 500).
//!
//! - **Add a fault**: a field in [`Options`] (drawn in [`Options::swarm`] — append new draws at
//!   the end, so the seeds already named keep their runs), its mechanism in [`net`] (the
//!   network) or in `World::random_action` (`app.rs`; a call or an LRC's fate), and a counter
//!   in [`Report`] that the CI sweep's coverage check asserts.
//! - **Add an invariant**: a module in [`check`] with a struct that records what it is shown
//!   and returns `Err` with a sentence; call it where the harness sees the event it is about
//!   (`World::settle` for transport events and callbacks, `World::check_step` at every tick,
//!   `World::converged` at the end).
//! - **Keep a failing seed**: a `regression_…` test in `tests/unified.rs` that runs it with the
//!   options it failed with.
#![forbid(unsafe_code)]

mod app;
pub mod check;
mod ddm;
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
            options: Box::new(options.clone()),
            at_us: 0,
            message,
        }),
    }
}
