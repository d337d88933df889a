//! The logic behind the `hlamesh` command-line tool, kept out of the binary so it has typed errors
//! and can be tested and reused; `src/bin/hlamesh.rs` only parses arguments and prints.
//!
//! - [`certs`]: a lab certificate authority on disk (`hlamesh certs init` / `hlamesh certs issue`).
//! - [`status`]: the federation monitor (`hlamesh status [--json] [--watch]`).
//! - [`mom`]: the MOM monitor (`hlamesh mom FEDERATION [--json] [--watch]`), a federate that
//!   watches a federation through the Management Object Model.

pub mod certs;
pub mod mom;
pub mod status;
