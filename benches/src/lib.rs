//! `hlamesh-bench`: end-to-end latency, throughput, time advance and scaling of hlamesh, each
//! measured next to a raw UDP multicast baseline on the same path in the same run (alternating
//! blocks, A B A B), so the figures are ratios that survive a noisy shared machine. See
//! `benches/README.md`.
//!
//! Structure: the measured system is a [`sut::Sut`] — HLA update→reflect through the RTI API
//! ([`rti`]) or the transport's data channel — chosen by [`session::Level`]; [`placement`] starts
//! the peer processes on loopback, in a namespace lab or on other machines; [`latency`],
//! [`throughput`] (with [`fanin`]), [`time`], [`scale`] and [`ddm`] drive the runs; [`procstat`] reads CPU use from /proc;
//! [`report`] writes the table, the JSON and the plot ([`plot`]) as SVG ([`svg`]) and PNG ([`raster`]).
#![forbid(unsafe_code)]

pub mod api;
pub mod cpus;
pub mod ddm;
pub mod error;
pub mod fanin;
pub mod latency;
pub mod net;
pub mod peer;
pub mod placement;
pub mod plot;
pub mod procstat;
pub mod progress;
pub mod raster;
pub mod report;
pub mod rti;
pub mod scale;
pub mod serve;
pub mod session;
pub mod sut;
pub mod svg;
pub mod throughput;
pub mod time;
pub mod wire;

pub use error::BenchError;
