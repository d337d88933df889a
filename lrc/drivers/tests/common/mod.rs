//! Shared helpers of the multi-process tests: where the public FOM files are, the lab harness,
//! the `rti-shell` driver, temporary directories, and the `hlamesh` command.
#![allow(dead_code)]

use std::path::PathBuf;

/// `$HLAMESH_FOM_DIR`, else the repository's `foms/` folder (origin and licence of each file in
/// `foms/README.md`).
pub fn fom_dir() -> PathBuf {
    if let Ok(d) = std::env::var("HLAMESH_FOM_DIR") {
        return PathBuf::from(d);
    }
    lab::repo_root().join("foms")
}

pub fn fom(name: &str) -> PathBuf {
    fom_dir().join(name)
}

pub const RESTAURANT: [&str; 4] = [
    "RestaurantProcesses.xml",
    "RestaurantFood.xml",
    "RestaurantDrinks.xml",
    "RestaurantSoup.xml",
];

/// Multi-process lab harness: the transport's, not a copy.
#[path = "../../../../transport/tests/common/mod.rs"]
pub mod lab;

pub mod shell;
pub mod temp_dir;

/// The `hlamesh` command, which the package `hlamesh-lrc` builds. Cargo gives a test the path of
/// its own package's binaries only (`CARGO_BIN_EXE_…`), so this looks beside this package's
/// drivers, where every binary of the workspace lands: `cargo test --workspace` builds it;
/// alone, build it first with `cargo build -p hlamesh-lrc --bin hlamesh` in the same profile.
/// Panics, naming that command, when it is not there or is older than the `hlamesh-lrc` library
/// built for these drivers (a test must not run yesterday's command against today's federates).
pub fn hlamesh() -> PathBuf {
    let driver = PathBuf::from(env!("CARGO_BIN_EXE_rti-probe"));
    let bin = driver.with_file_name(format!("hlamesh{}", std::env::consts::EXE_SUFFIX));
    let build = format!(
        "cargo build{} -p hlamesh-lrc --bin hlamesh",
        if cfg!(debug_assertions) {
            ""
        } else {
            " --release"
        }
    );
    let built = std::fs::metadata(&bin).and_then(|m| m.modified());
    let Ok(built) = built else {
        panic!(
            "{} is not built: run the tests with --workspace, or first `{build}`",
            bin.display()
        );
    };
    if let Some(lib) = newest_lrc_library(&driver) {
        assert!(
            built >= lib,
            "{} is older than the hlamesh-lrc library: run the tests with --workspace, or first \
             `{build}`",
            bin.display()
        );
    }
    bin
}

/// When the newest `libhlamesh_lrc-*.rlib` beside `driver` was written.
fn newest_lrc_library(driver: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::read_dir(driver.parent()?.join("deps"))
        .ok()?
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("libhlamesh_lrc-") && name.ends_with(".rlib")
        })
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .max()
}
