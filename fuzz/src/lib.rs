//! Fuzz targets for every hlamesh decoder that takes bytes from the network or from the disk.
//!
//! Each target is a plain function from the fuzzer's bytes to one exercise of a decoder (or of
//! a receiving state machine), asserting the invariants that must hold for *any* input: no
//! panic, a typed error for what does not decode, a round trip for what does, and memory within
//! the configured limits. The same functions are driven two ways:
//!
//! - by libFuzzer (`fuzz/libfuzzer`, nightly, `cargo fuzz`), which searches for inputs that
//!   break them, see `fuzz/README.md`;
//! - by this crate's tests on stable, which replay every committed seed (`fuzz/corpus/<target>`)
//!   and every input that once found a defect (`fuzz/regressions/<target>`) in the normal
//!   `cargo test --workspace --release` run.
//!
//! [`TARGETS`] lists them by the name their corpus directory and libFuzzer binary carry.

pub mod input;
pub mod targets;

pub use input::Input;

/// A fuzz target: any bytes in, panics only on a broken invariant.
pub type Target = fn(&[u8]);

/// Every target, by name (the corpus directory and the libFuzzer binary are called the same).
pub const TARGETS: &[(&str, Target)] = &[
    ("datagram", targets::datagram::run),
    ("repair_nack", targets::repair_nack::run),
    ("control_frame", targets::control_frame::run),
    ("beacon", targets::beacon::run),
    ("lrc_wire", targets::lrc_wire::run),
    ("save_file", targets::save_file::run),
    ("fom", targets::fom::run),
    ("dynamic", targets::dynamic::run),
    ("receiver", targets::receiver::run),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
