//! The invariants the unified simulator checks, one module each. A checker sees only what it
//! is shown — transport events as the LRC's driver receives them, callbacks as a federate
//! receives them, the cores' replicated state — and keeps its own record of what it expects,
//! so a broken model of the federates cannot hide a broken core. Each returns what broke as an
//! `Err` with a sentence; the harness adds the seed and the command that replays it.
//!
//! - [`stream`]: every sender's reliable stream reaches every member exactly once, in order,
//!   byte for byte, except exactly what a `FellBehind` reported lost;
//! - [`objects`]: discoveries once, reflections exactly once and in order per instance and
//!   subscriber (gaps only after a fell-behind), removals of known instances, only subscribed
//!   attributes; at the end every subscriber knows exactly the live instances with their last
//!   values;
//! - [`time`]: grants answer requests and are monotone, time-stamp-ordered messages arrive in
//!   time-stamp order, while advancing, never beyond the request nor in the federate's past;
//! - [`regions`] (region mode): a reflection of a position only where the update's region (as
//!   its sender had it) overlapped the subscriber's (as it held it between send and delivery),
//!   exactly once; at the end every overlapping subscriber holds each instance's last value;
//! - [`pings`] (region mode with interactions): a ping sent with regions is received only
//!   where its sent regions overlapped the receiver's subscription (as it held it between send
//!   and receipt), at most once, never by its sender; at the end the final pings reach every
//!   overlapping subscriber;
//! - [`membership`]: at most one coordinator per side of a partition, decision logs that are
//!   prefixes of one another, identical views at the end.
//!
//! To add an invariant: a module here with a struct that records what it is shown and returns
//! `Err` on a violation, a field in the harness's `Checks` and a call where the harness sees
//! the event it is about (`world.rs`).

pub mod membership;
pub mod objects;
pub mod pings;
pub mod regions;
pub mod stream;
pub mod time;

/// A simple, fixed digest of a message (FNV-1a), so the stream check need not keep payloads.
pub fn digest(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
