//! # hlamesh-lrc
//!
//! The Local RTI Component: every federate process carries one. It loads FOM modules, encodes and
//! decodes HLA data, runs the federation core (membership, declarations, objects, ownership, sync
//! points, save/restore, time management) over the transport, and offers the IEEE 1516-2010
//! `RtiAmbassador` / `FederateAmbassador` API.
#![forbid(unsafe_code)]
