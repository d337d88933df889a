//! The LRC's log for C++ federates: off unless `HLAMESH_LOG` is set, then written to stderr
//! with that filter (`HLAMESH_LOG=warn`, `HLAMESH_LOG=hlamesh_lrc=debug,info`; the syntax of
//! `tracing_subscriber::EnvFilter`), as the `hlamesh` CLI and the Rust examples do.
//!
//! Off by default because a library should not write to a federate's stderr unasked. Installed
//! once, at the first `connect`, and only if the process has no `tracing` subscriber of its own
//! (a federate that embeds Rust code with its own keeps it).

use std::sync::Once;

/// The variable naming the log filter.
pub const LOG_VARIABLE: &str = "HLAMESH_LOG";

/// Installs the stderr log if `HLAMESH_LOG` asks for one (once per process).
pub fn init_from_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env(LOG_VARIABLE) else {
            return;
        };
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .try_init();
    });
}
