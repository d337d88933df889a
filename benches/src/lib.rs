//! `hlamesh-bench`: end-to-end latency and throughput of hlamesh, each measured next to the raw
//! UDP multicast baseline on the same path in the same run (alternating blocks, A B A B), so the
//! figures are ratios that survive a noisy shared machine. See `benches/README.md`.
//!
//! Structure: the measured system is a [`sut::Sut`] (a transport implementation now, an RTI
//! update→reflect implementation when the HLA API lands); [`placement`] starts the peer processes
//! on loopback or in a namespace lab; [`latency`] and [`throughput`] drive the runs; [`report`]
//! writes the table, the JSON and (with [`svg`]) the plot.
#![forbid(unsafe_code)]

pub mod error;
pub mod latency;
pub mod net;
pub mod peer;
pub mod placement;
pub mod procstat;
pub mod report;
pub mod rti;
pub mod scale;
pub mod session;
pub mod sut;
pub mod svg;
pub mod throughput;
pub mod time;
pub mod wire;

pub use error::BenchError;
