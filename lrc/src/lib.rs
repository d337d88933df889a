//! # hlamesh-lrc
//!
//! The Local RTI Component: every federate process links one. There is no RTI server: the LRCs
//! of a federation find one another on the network and together provide IEEE 1516-2010 ("HLA
//! Evolved") to the federates of their processes — FOM modules, data encoding, federation
//! management, declarations, objects, ownership, synchronization points, save and restore, time
//! management — through the `RtiAmbassador` / `FederateAmbassador` API.
//!
//! # Layers
//!
//! ```text
//!  engine                         framework for simulators, on top of the API
//!  ambassador · callback_queue    the IEEE 1516-2010 API; which thread delivers each callback
//!  node (Lrc)                     the shell: one lock, runs the cores, executes their actions
//!  core (FederationCore)          deterministic federation core ──► hlamesh-timesync (TimeManager)
//!  fom · encoding · handles       the FOM model, the HLA encoding rules, handle types
//! ─────────────────────────────── hlamesh-transport: discovery, QUIC mesh, multicast data plane
//! ```
//!
//! - **Deterministic, no I/O**: [`fom`] loads and merges FOM modules into an [`fom::Fdd`] with
//!   handles every LRC derives alike; [`encoding`] is the HLA data encoding, typed and
//!   FOM-driven; [`handles`] the handle types; [`core`] the federation core — one
//!   [`core::FederationCore`] per federation per LRC, fed with `handle(now, event)` and the
//!   federates' API calls, answering with the [`core::Action`]s it queues (its messages in
//!   [`core::wire`], one time manager per joined federate in [`core::time`]). No sockets,
//!   threads or clocks: the simulator `lrc/tests/rti_sim.rs` runs whole federations of cores.
//! - **Shell**: [`node`] ([`node::Lrc`]) owns the transport, runs the cores on the transport's
//!   receive threads under one lock and executes their actions; [`callback_queue`] holds each
//!   federate's callbacks and decides which thread delivers them; [`ambassador`] is the API
//!   ([`ambassador::RtiAmbassador`], [`ambassador::FederateAmbassador`], evoked or immediate
//!   callbacks, several federates per process); [`error::RtiError`] mirrors the standard's
//!   exceptions.
//! - **Around them**: [`engine`] (the federate engine), [`metrics`] (HLA-level Prometheus
//!   families, served with the transport's on `/metrics`), [`ops`] (status, clock probes and
//!   latency marks between LRCs), [`save_file`] (the RTI's part of a federation save), [`cli`]
//!   (the `hlamesh` command's monitor and certificate tools).
//!
//! The repository's `docs/ARCHITECTURE.md` is the map of how these parts work together: the
//! threads of a process and the lock order, the thread-locals, the path of one attribute update
//! and of one time grant through the files, the simulators and how to extend them, and what is
//! known to be wrong with the structure. `docs/DESIGN.md` says why it is built this way, and each
//! module's docs hold the detail of its service (`core::save`, `core::restore`,
//! `core::ownership`, `core::coordinator`, …). Operating it: `deploy/README.md`.
#![forbid(unsafe_code)]

pub mod ambassador;
pub mod callback_queue;
pub mod cli;
pub mod core;
pub mod create_race;
pub mod encoding;
pub mod engine;
pub mod error;
pub mod fom;
pub mod handles;
pub mod host;
pub mod metrics;
pub mod node;
pub mod ops;
pub mod save_file;
