//! Typed errors of the bench harness.

/// Why a benchmark run failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The transport failed.
    #[error("transport: {0}")]
    Transport(#[from] hlamesh_transport::TransportError),
    /// A file, socket or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A peer process misbehaved or a step did not finish in time.
    #[error("{0}")]
    Protocol(String),
}

impl BenchError {
    /// Wraps an I/O error, saying what was being done.
    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BenchError {
        let what = what.into();
        move |source| BenchError::Io { what, source }
    }
}
