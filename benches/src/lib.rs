//! Benchmarks for hlamesh; see `benches/README.md`.
#![forbid(unsafe_code)]
