//! The repair messages that travel over QUIC (the integrator wraps them in his control envelope,
//! encoded with postcard): a receiver's [`Nack`] to a sender, the sender's [`Repair`] back.

use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// Missing reliable sequence numbers, as inclusive ranges `(first, last)` in increasing order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nack {
    /// Inclusive ranges of missing sequence numbers.
    pub ranges: Vec<(u64, u64)>,
}

/// A sender's answer to a [`Nack`].
///
/// `datagrams` are the original authenticated datagrams (as sent on multicast) that cover the
/// requested sequence numbers still in the retransmit buffer; the receiver runs them through the
/// same checks as multicast datagrams. `first_available` is the oldest sequence number the sender
/// can still repair: a receiver whose next expected number is below it has fell behind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repair {
    /// Oldest sequence number still in the sender's retransmit buffer (the sender's next sequence
    /// number if the buffer is empty).
    pub first_available: u64,
    /// Original datagrams, oldest first.
    pub datagrams: Vec<ByteBuf>,
}

impl Repair {
    /// True if the sender could not repair something because it is gone from its buffer, as seen
    /// by a receiver whose next expected sequence number is `next`.
    pub fn too_old_for(&self, next: u64) -> bool {
        next < self.first_available
    }
}
