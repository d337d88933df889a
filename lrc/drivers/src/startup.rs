//! What every driver does the same way, so that a test can read any of them alike: its log goes
//! to stderr, filtered by `HLAMESH_LOG` (default `warn`); its output is one JSON object per line
//! on stdout; a failure is the line `{"event":"error","error":…}` and exit status 1.

use std::fmt::Display;

/// Prints one output line: `v` as JSON.
pub fn out(v: serde_json::Value) {
    println!("{v}");
}

/// Runs a driver: sets up the log, calls `run`, and on its error prints the error line and
/// exits with status 1.
pub fn main<E: Display>(run: impl FnOnce() -> Result<(), E>) {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HLAMESH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    if let Err(e) = run() {
        out(serde_json::json!({"event":"error","error":e.to_string()}));
        std::process::exit(1);
    }
}
