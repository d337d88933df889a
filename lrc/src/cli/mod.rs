//! The logic behind the `hlamesh` command-line tool, kept out of the binary so it has typed errors
//! and can be tested and reused; `src/bin/hlamesh.rs` only parses arguments and prints.
//!
//! - [`certs`]: a lab certificate authority on disk (`hlamesh certs init` / `hlamesh certs issue`).
//! - [`status`]: the federation monitor (`hlamesh status [--json] [--watch]`).

pub mod certs;
pub mod status;
