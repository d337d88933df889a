//! Shared test helpers: where the public FOM files are.
#![allow(dead_code)]

use std::path::PathBuf;

/// `$HLAMESH_FOM_DIR`, else the repository's `foms/` folder (origin and licence of each file in
/// `foms/README.md`).
pub fn fom_dir() -> PathBuf {
    if let Ok(d) = std::env::var("HLAMESH_FOM_DIR") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../foms")
}

pub fn fom(name: &str) -> PathBuf {
    fom_dir().join(name)
}

pub fn module(name: &str) -> hlamesh_core::fom::FomModule {
    hlamesh_core::fom::FomModule::from_file(fom(name)).expect("FOM file parses")
}

pub fn text(name: &str) -> String {
    std::fs::read_to_string(fom(name)).expect("FOM file readable")
}

pub const RESTAURANT: [&str; 4] = [
    "RestaurantProcesses.xml",
    "RestaurantFood.xml",
    "RestaurantDrinks.xml",
    "RestaurantSoup.xml",
];

pub mod types;

pub const RPR: [&str; 3] = [
    "RPR-Foundation_v2.0.xml",
    "RPR-Enumerations_v2.0.xml",
    "RPR-Base_v2.0.xml",
];

/// Proptest case count: `HLAMESH_PROPTEST_CASES`, else `default` (kept modest for CI).
pub fn cases(default: u32) -> u32 {
    std::env::var("HLAMESH_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small deterministic generator for tests that derive many values from one seed (the
/// federation simulator's, shared through `hlamesh-sim`).
#[allow(unused_imports)] // not every test binary that includes this module draws numbers
pub use hlamesh_sim::Rng;
