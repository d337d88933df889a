//! # hlamesh-timesync
//!
//! Logical time types, the sans-I/O time-management state machine (regulation, constraint,
//! TAR/TARA/NER/NERA/FQR, TSO queue, GALT from promises), wall-clock offset estimation between
//! nodes, and a drift-free real-time frame pacer.
#![forbid(unsafe_code)]
