//! # hlamesh-lrc
//!
//! The Local RTI Component: every federate process links one. There is no RTI server: the LRCs
//! of a federation find one another on the network and together provide IEEE 1516-2010 ("HLA
//! Evolved") to the federates of their processes, through the [`ambassador::RtiAmbassador`] /
//! [`ambassador::FederateAmbassador`] API.
//!
//! # Layers
//!
//! ```text
//!  hlamesh-engine        framework for simulators, on top of the API     (lrc/engine/)
//!  hlamesh-drivers       federate processes for the multi-process tests  (lrc/drivers/)
//! ─────────────────────────────────────────────────────────────────────────────────────
//!  ambassador            the API; callback_queue decides which thread delivers each callback
//!  node (Lrc)            the shell: owns the transport, runs the cores under one lock,
//!                        executes their actions
//! ─────────────────────────────────────────────────────────────────────────────────────
//!  hlamesh-core          deterministic, no I/O: fom, encoding, handles, error, core
//!                        (FederationCore) ──► hlamesh-timesync               (lrc/core/)
//! ─────────────────────────────────────────────────────────────────────────────────────
//!  hlamesh-transport     discovery, QUIC mesh, multicast data plane
//! ```
//!
//! This crate is the shell and the API. Everything an LRC *decides* is in `hlamesh-core`,
//! which this crate re-exports at the paths it always had ([`core`], [`fom`], [`encoding`],
//! [`handles`], [`error`] and the encoding macros), so an application needs only this crate:
//!
//! - [`node`] ([`node::Lrc`]) starts the transport, runs each federation's
//!   [`core::FederationCore`] on the transport's receive threads under one lock and executes the
//!   actions the cores queue, through [`driver`] (the sans-I/O translation between transport
//!   events, the host and its actions, which the unified simulator runs too);
//!   [`callback_queue`] holds each federate's callbacks and decides
//!   which thread delivers them; [`ambassador`] is the API (evoked or immediate callbacks,
//!   several federates per process).
//! - Around them: [`metrics`] (HLA-level Prometheus families, served with the transport's on
//!   `/metrics`), [`ops`] (status, clock probes and latency marks between LRCs), [`save_file`]
//!   (the RTI's part of a federation save on disk), [`cli`] (the `hlamesh` command's monitor and
//!   certificate tools; the binary is `src/bin/hlamesh.rs`).
//!
//! A federate that creates a federation, publishes a class and updates one instance:
//!
//! ```no_run
//! use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
//! use hlamesh_lrc::core::wire::ResignAction;
//! use hlamesh_lrc::encoding::{DataElement, Float64BE};
//! use hlamesh_lrc::error::RtiError;
//!
//! struct Callbacks;
//! impl FederateAmbassador for Callbacks {} // every callback has a no-op default
//!
//! fn main() -> Result<(), RtiError> {
//!     let mut rti = RtiAmbassador::new(); // on the process's LRC, started at connect
//!     rti.connect(Box::new(Callbacks), CallbackModel::Evoked)?;
//!     match rti.create_federation_execution("demo", &["fed-examples/foms/MovingObject.xml"]) {
//!         Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
//!         Err(e) => return Err(e),
//!     }
//!     rti.join_federation_execution(Some("car-1"), "Car", "demo")?;
//!     let vehicle = rti.get_object_class_handle("HLAobjectRoot.Vehicle")?;
//!     let heading = rti.get_attribute_handle(vehicle, "Heading")?;
//!     rti.publish_object_class_attributes(vehicle, &[heading])?;
//!     let car = rti.register_object_instance(vehicle)?;
//!     rti.update_attribute_values(car, vec![(heading, Float64BE(90.0).encode())], b"")?;
//!     rti.resign_federation_execution(ResignAction::DeleteObjectsThenDivest)?;
//!     Ok(())
//! }
//! ```
//!
//! The repository's `docs/ARCHITECTURE.md` is the map of how these parts work together: the
//! threads of a process and the lock order, the thread-locals, the path of one attribute update
//! and of one time grant through the files, the simulators, and what is known to be wrong with
//! the structure. `docs/DESIGN.md` says why it is built this way, and each module's docs hold the
//! detail of its service (`core::save`, `core::restore`, `core::ownership`, `core::coordinator`,
//! …). Operating it: `deploy/README.md`.
#![forbid(unsafe_code)]

pub mod ambassador;
pub mod callback_queue;
pub mod cli;
pub mod driver;
pub mod metrics;
pub mod node;
pub mod ops;
pub mod save_file;

pub use hlamesh_core::{
    core, create_race, encoding, error, fom, handles, hla_enumeration, hla_fixed_record,
    hla_variant_record, host,
};
