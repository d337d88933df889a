//! Leaving the mesh so that every peer sees this node leave, not lose it.
//!
//! A goodbye that is merely queued can lose the race with the process exit: the peers then hear
//! nothing and report this node lost a peer timeout later. So leaving waits, bounded in time, for
//! each peer's acknowledgement:
//!
//! 1. a [`Frame::Goodbye`] is queued behind whatever each peer's writer still has to send (the
//!    stream is ordered: the peer gets everything before it);
//! 2. a peer that reads the goodbye closes the connection with the clean close code
//!    ([`CLOSE_BYE`]) — that close reaching us is the acknowledgement;
//! 3. after every peer acknowledged, or after [`GOODBYE_WAIT`] at most, the remaining
//!    connections and the endpoint are closed cleanly (a peer that reads that close first also
//!    reports this node as having left), and the endpoint is given [`CLOSE_FLUSH`] to get those
//!    close packets out.
//!
//! Before the goodbye, each federation channel still open waits (bounded) until its members
//! acknowledged this node's stream, as closing it does (`drain`): the goodbye makes them drop
//! the stream.
//!
//! Idempotent; it runs on the thread that drops the transport (or calls
//! [`Transport::leave`]), never on a runtime thread.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{CLOSE_BYE, Frame, Shared, Transport, lock};

/// Longest a leaving node waits for its peers to acknowledge its goodbye.
pub const GOODBYE_WAIT: Duration = Duration::from_millis(800);
/// Longest it then waits for its close packets to leave the endpoint.
pub const CLOSE_FLUSH: Duration = Duration::from_millis(200);

impl Transport {
    /// Says goodbye to every peer and waits (at most about one second) until each has
    /// acknowledged it, so they report this node as left rather than lost. After this the
    /// transport takes part in nothing any more; dropping it (which calls this too) releases
    /// its threads. For a process about to end: call it (or drop the transport) before the
    /// process exits.
    pub fn leave(&self) {
        if self.shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        // Federations still open end like closed ones: their members get the end of this
        // node's streams before the goodbye (see `drain`). Before the shutdown flag, which
        // stops the threads that bring the acknowledgements in.
        if tokio::runtime::Handle::try_current().is_err() {
            for fed in self.shared.feds() {
                self.shared.drain_stream(&fed);
            }
        }
        if self.shared.shutdown.swap(true, Ordering::SeqCst) {
            return;
        }
        let Some(rt) = self.runtime.as_ref() else {
            return;
        };
        let shared = self.shared.clone();
        if tokio::runtime::Handle::try_current().is_ok() {
            // On a runtime thread nothing may block: queue the goodbyes and close.
            rt.spawn(async move { say_goodbye(&shared, Duration::ZERO).await });
            return;
        }
        rt.block_on(say_goodbye(&shared, GOODBYE_WAIT));
    }
}

async fn say_goodbye(shared: &Shared, wait: Duration) {
    let goodbye = Frame::Goodbye.encode();
    let conns: Vec<quinn::Connection> = {
        let peers = lock(&shared.peers);
        peers
            .values()
            .map(|link| {
                shared.metrics.frame_out(&Frame::Goodbye, 1);
                let _ = link.tx.send(goodbye.clone());
                link.conn.clone()
            })
            .collect()
    };
    let acknowledged = {
        let conns = conns.clone();
        async move {
            for c in conns {
                let _ = c.closed().await;
            }
        }
    };
    if tokio::time::timeout(wait, acknowledged).await.is_err() {
        let waiting = conns.iter().filter(|c| c.close_reason().is_none()).count();
        tracing::debug!(
            waiting,
            "leaving without every peer's acknowledgement after {wait:?}"
        );
    }
    for c in &conns {
        c.close(CLOSE_BYE.into(), b"goodbye");
    }
    shared.endpoint.close(CLOSE_BYE.into(), b"shutdown");
    let _ = tokio::time::timeout(CLOSE_FLUSH, shared.endpoint.wait_idle()).await;
}
