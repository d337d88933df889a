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
/// Panics, naming that command, when it is not there or is older than a source file it is built
/// from (a test must not run yesterday's command against today's federates; cargo itself
/// rebuilds by the same modification times).
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
    if let Some((source, changed)) = newest_source() {
        assert!(
            built >= changed,
            "{} is older than {}: run the tests with --workspace, or first `{build}`",
            bin.display(),
            source.display()
        );
    }
    bin
}

/// The most recently modified source file `hlamesh` is built from, and when: its own, and those
/// of the libraries it links from this workspace (`hlamesh-lrc`, `hlamesh-core`,
/// `hlamesh-transport`, `hlamesh-timesync`; not their other binaries, which cargo does not
/// rebuild it for).
fn newest_source() -> Option<(PathBuf, std::time::SystemTime)> {
    let root = lab::repo_root();
    let mut files = vec![root.join("lrc/src/bin/hlamesh.rs")];
    let mut stack: Vec<PathBuf> = ["lrc/src", "lrc/core/src", "transport/src", "timesync/src"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if entry.file_name() != "bin" {
                    stack.push(path);
                }
            } else {
                files.push(path);
            }
        }
    }
    let mut newest: Option<(PathBuf, std::time::SystemTime)> = None;
    for f in files {
        if let Ok(t) = std::fs::metadata(&f).and_then(|m| m.modified())
            && newest.as_ref().is_none_or(|(_, n)| t > *n)
        {
            newest = Some((f, t));
        }
    }
    newest
}
