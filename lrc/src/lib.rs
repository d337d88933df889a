//! # hlamesh-lrc
//!
//! The Local RTI Component: every federate process carries one. It loads FOM modules, encodes and
//! decodes HLA data, runs the federation core (membership, declarations, objects, ownership, sync
//! points, save/restore, time management) over the transport, and offers the IEEE 1516-2010
//! `RtiAmbassador` / `FederateAmbassador` API.
//!
//! So far: [`fom`] (load and merge FOM modules into an [`fom::Fdd`] with deterministic handles
//! and a digest), [`encoding`] (the HLA data encoding rules, typed and FOM-driven), and
//! [`handles`] (the handle newtypes every other part reuses).
#![forbid(unsafe_code)]

pub mod ambassador;
pub mod core;
pub mod encoding;
pub mod error;
pub mod fom;
pub mod handles;
pub mod node;
