//! # hlamesh-core
//!
//! The deterministic part of the hlamesh RTI: everything an LRC decides, with nothing that does
//! I/O. It has no sockets, threads, clocks, TLS or command line, and it names no transport type:
//! an LRC is a [`core::Node`] number here, time is the `now` its caller passes in, and every
//! effect is an [`core::Action`] the caller executes. That is what lets a simulator
//! (`lrc/core/tests/rti_sim.rs`) run whole federations of cores in one thread, seeded and
//! repeatable, and what keeps the protocol out of the shell (`hlamesh-lrc`, which owns the
//! transport and the threads and re-exports these modules at its old paths).
//!
//! - [`fom`]: reads FOM modules and merges them with the MIM into an [`fom::Fdd`] whose handles
//!   and digest every LRC derives alike.
//! - [`encoding`]: the HLA data encoding rules, typed ([`encoding::DataElement`] and the
//!   [`hla_enumeration!`] / [`hla_fixed_record!`] / [`hla_variant_record!`] macros) and
//!   FOM-driven ([`encoding::dynamic`]).
//! - [`handles`]: the handle types of the API.
//! - [`error`]: [`error::RtiError`], the standard's exceptions as one typed error.
//! - [`core`]: the federation core, one [`core::FederationCore`] per federation per LRC, fed with
//!   `handle(now, event)` and the federates' calls; its messages are in [`core::wire`], its time
//!   managers (one per joined federate, from `hlamesh-timesync`) in [`core::time`].
//! - [`host`]: every federation of one LRC ([`host::Host`]) and the decisions around their cores
//!   (callback routing, callbacks held until a join completes, finished calls, suspicion of
//!   unreachable members); the shell and the simulator both drive it.
//! - [`create_race`]: who wins when two LRCs create the same federation.
//!
//! Log records are emitted under the target `hlamesh_core` (for example
//! `HLAMESH_LOG=hlamesh_core::core::coordinator=trace`).
//!
//! ```
//! use hlamesh_core::encoding::{DataElement, Integer32BE};
//! use hlamesh_core::fom::Fdd;
//!
//! // The MIM alone; a federation adds its FOM modules with `Fdd::load`.
//! let fdd = Fdd::standard();
//! assert!(fdd.object_class_handle("HLAobjectRoot.HLAmanager.HLAfederate").is_ok());
//! assert_eq!(Integer32BE(42).encode(), vec![0, 0, 0, 42]);
//! ```
#![forbid(unsafe_code)]

pub mod cells;
pub mod core;
pub mod create_race;
pub mod encoding;
pub mod error;
pub mod fom;
pub mod handles;
pub mod host;
