//! # hlamesh-timesync
//!
//! Time management for hlamesh, with no I/O and no clock inside:
//!
//! - [`time`]: `HLAinteger64Time` / `HLAfloat64Time` with their intervals, the [`LogicalTime`]
//!   trait, and [`Bound`] — a time with an inclusive/exclusive flag (never an epsilon).
//! - [`manager`]: [`TimeManager`], the per-federate state machine of HLA 1516-2010 clause 8
//!   (regulation, constraint, TAR/TARA/NER/NERA/FQR, TSO/RO delivery, GALT from promises). The
//!   LRC calls its methods (federate services, [`TimeManager::on_data`],
//!   [`TimeManager::on_message`], membership events) and executes the [`Action`]s it polls.
//!   The module docs describe the algorithm and the holes the simulator found in the sketch.
//! - [`message`]: the control messages time managers exchange (promises = null messages).
//! - [`tso_queue`]: received TSO messages in timestamp order.
//! - [`clock_offset`]: NTP-style wall-clock offset estimation between nodes.
//! - [`pacer`]: a drift-free real-time frame pacer.
//!
//! It is not the transport: the LRC moves the messages, assigns data sequence numbers, repairs
//! gaps, and decides TSO vs RO from order types before handing data in.
#![forbid(unsafe_code)]

pub mod clock_offset;
pub mod manager;
pub mod message;
pub mod pacer;
pub mod time;
pub mod tso_queue;

pub use manager::{
    Action, Advance, Callback, ConstraintState, Delivery, Incoming, OrderType, RegulationState,
    RequestKind, TimeError, TimeManager, TimeStats,
};
pub use message::{MemberId, Promise, Seq, TimeMessage, ViewNumber};
pub use time::{
    Bound, HLAfloat64Interval, HLAfloat64Time, HLAinteger64Interval, HLAinteger64Time, LogicalTime,
    LogicalTimeInterval, Strictness, TimeDecodeError,
};
