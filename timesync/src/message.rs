//! What time managers say to each other over the reliable control channel (QUIC).
//!
//! The LRC serialises these (they derive serde) and sends them to the members an [`Action`]
//! names; per sender they must arrive in the order sent, as QUIC streams guarantee.
//!
//! [`Action`]: crate::Action

use crate::time::Bound;

/// A member of the federation execution, as the time manager sees it (the LRC maps its federate
/// handles onto these).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct MemberId(pub u64);

/// A sequence number on a sender's reliable data stream (1 is the first message; 0 = none yet).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Seq(pub u64);

/// A membership view number; the LRC's membership layer increases it on every change and every
/// member sees the changes in the same order.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct ViewNumber(pub u64);

/// A member's time-management status, broadcast to every member (`docs/TIME-ALGORITHM.md`,
/// "Promises").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Promise<T> {
    /// `None` when the sender is not regulating (also its final word after disabling
    /// regulation). Otherwise `(U, C)`: the unconditional and the conditional bound.
    pub bounds: Option<(Bound<T>, Bound<T>)>,
    /// Sequence number of the last TSO message the sender sent. The receiver applies the promise
    /// only after it has received the sender's data up to here.
    pub hw: Seq,
    /// Highest contiguous sequence number the sender has received from every member it knows.
    pub recv: Vec<(MemberId, Seq)>,
    /// The sender's membership view when it made the promise.
    pub view: ViewNumber,
}

/// A time-management control message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TimeMessage<T> {
    /// Status and bounds (a "null message").
    Promise(Promise<T>),
    /// A federate enabling regulation asks for the earliest timestamp each member still accepts.
    RegulationQuery {
        /// Matches the answer to the query.
        query: u64,
        /// Sequence number of the last TSO message the querier sent (as a promise's `hw`). The
        /// receiver takes the query only after it has received the querier's data up to here:
        /// the query makes the querier a stand-in regulator at the bound the receiver answers,
        /// which its earlier TSO messages (sent while it regulated before) need not respect.
        hw: Seq,
    },
    /// The answer to a [`TimeMessage::RegulationQuery`].
    RegulationAnswer {
        /// The query being answered.
        query: u64,
        /// The sender accepts no TSO message below this bound.
        earliest: Bound<T>,
    },
}
