//! # hlamesh-examples
//!
//! An example federation built on the engine framework (`hlamesh_engine`), and the
//! one-command `demo` that runs it on this machine as separate processes.
//!
//! Federates (one binary each, all thin wrappers over [`roles`], which `demo` also runs as roles of
//! its own executable):
//! - [`car`]: publishes position, velocity and fuel; computes the range it can still drive.
//! - [`flightsim`]: a simple aircraft model at a fixed 60 Hz step, real-time paced.
//! - [`operator`]: an event-driven station sending time-stamped Refuel / ChangeWeather
//!   interactions at the scenario's times.
//! - [`viewer`]: subscribes to everything; a small terminal map when attached to a terminal,
//!   plain periodic lines otherwise; checks that every vehicle's updates arrive in order.
//! - [`commander`]: loads the scenario (TOML, [`scenario`]), (re)creates the federation, drives
//!   the engine synchronization points, requests a save at the scenario's save time and a
//!   restore at its restore time.
//!
//! The FOM module is `foms/HlameshDemo.xml` ([`fom`]). Every federate prints one
//! JSON summary line (`"event": "summary"`) when it ends ([`federate`]); `demo` collects and prints them.
#![forbid(unsafe_code)]

pub mod car;
pub mod commander;
pub mod federate;
pub mod flightsim;
pub mod fom;
pub mod operator;
pub mod roles;
pub mod scenario;
pub mod viewer;
