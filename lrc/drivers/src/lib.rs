//! # hlamesh-drivers
//!
//! Federate processes that hlamesh's multi-process tests start and steer, and those tests. Each
//! binary is a real federate (an `hlamesh_lrc::node::Lrc` and an `RtiAmbassador` in its own
//! process) that prints one JSON object per line, so a test in `tests/` can run several of them
//! on loopback or in a lab of network namespaces and assert on what each one saw:
//!
//! - `rti-probe`: a scripted federate (create or join, publish and subscribe, register, update,
//!   interact, ping/echo, time-managed lockstep);
//! - `rti-shell`: an interactive federate that takes one command per line on stdin;
//! - `rti-checkpoint`: a time-managed lockstep whose values depend on every reflection, for the
//!   save/restore test;
//! - `ops-probe`: a small simulation that keeps the metrics moving, for the operations tests.
//!
//! They live in their own crate so that the library crates do not depend on what only test
//! processes need (a logging subscriber, JSON output), and because Cargo hands a test the path
//! of a binary (`CARGO_BIN_EXE_…`) only inside the binary's own package. The transport's probe
//! (`hlamesh-transport-probe`) stays in `hlamesh-transport`, whose own tests run it.
//!
//! The library part is what every driver shares: [`lab_net`] (the network options of a lab) and
//! [`startup`] (logging, output and exit status).
#![forbid(unsafe_code)]

pub mod lab_net;
pub mod startup;
