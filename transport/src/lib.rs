//! # hlamesh-transport
//!
//! Sockets and wire for hlamesh: discovery beacons on a multicast group, a QUIC mesh (one connection
//! per peer pair) for everything that must be reliable, and a sequenced, authenticated UDP multicast
//! data channel with NACK repair over QUIC and fragmentation of large messages.
//!
//! The protocol logic is sans-I/O (state machines taking `(now, event)` and returning actions); the
//! tokio/quinn/socket2 shell moves bytes and time in and out of it.
#![forbid(unsafe_code)]

pub mod data;
pub mod fault;
pub mod id;

pub use id::{FederationKey, FederationTag, NodeId};
