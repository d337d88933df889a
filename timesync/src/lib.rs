//! # hlamesh-timesync
//!
//! Time management for hlamesh, with no I/O and no clock inside:
//!
//! - [`time`]: `HLAinteger64Time` / `HLAfloat64Time` with their intervals, the [`LogicalTime`]
//!   trait, and [`Bound`] — a time with an inclusive/exclusive flag (never an epsilon).
//! - [`dyn_time`]: [`DynTime`], either type chosen per federation at run time ([`TimeKind`]),
//!   for an RTI that serves both through one API.
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
//! ```
//! use hlamesh_timesync::*;
//! // Two federates, both regulating with zero lookahead and constrained; the "network" is a
//! // loop that hands every control message straight to the other side.
//! let mut a: TimeManager<HLAinteger64Time, ()> = TimeManager::new(MemberId(1), ViewNumber(1), []);
//! let mut b: TimeManager<HLAinteger64Time, ()> =
//!     TimeManager::new(MemberId(2), ViewNumber(2), [(MemberId(1), Seq(0))]);
//! a.on_member_joined(MemberId(2), ViewNumber(2));
//! type Tm = TimeManager<HLAinteger64Time, ()>;
//! // Executes one side's actions: control messages go to the other side, callbacks are kept.
//! fn drain(from: &mut Tm, to: &mut Tm, callbacks: &mut Vec<Callback<HLAinteger64Time>>) -> bool {
//!     let mut moved = false;
//!     while let Some(action) = from.poll_action() {
//!         moved = true;
//!         match action {
//!             Action::Broadcast(m) | Action::SendTo(_, m) => to.on_message(from.id(), m),
//!             Action::Callback(c) => callbacks.push(c),
//!             Action::Deliver(_) => {}
//!         }
//!     }
//!     moved
//! }
//! fn pump(a: &mut Tm, b: &mut Tm) -> Vec<Callback<HLAinteger64Time>> {
//!     let mut callbacks = Vec::new();
//!     while drain(a, b, &mut callbacks) | drain(b, a, &mut callbacks) {}
//!     callbacks
//! }
//! for tm in [&mut a, &mut b] {
//!     tm.enable_time_regulation(HLAinteger64Interval(0)).unwrap();
//!     tm.enable_time_constrained().unwrap();
//! }
//! pump(&mut a, &mut b);
//! a.time_advance_request(HLAinteger64Time(1)).unwrap();
//! b.time_advance_request(HLAinteger64Time(1)).unwrap();
//! let callbacks = pump(&mut a, &mut b);
//! assert_eq!(callbacks.iter().filter(|c| **c == Callback::TimeAdvanceGrant(HLAinteger64Time(1))).count(), 2);
//! ```
//!
//! It is not the transport: the LRC moves the messages, assigns data sequence numbers, repairs
//! gaps, and decides TSO vs RO from order types before handing data in.
//!
//! Testing: `tests/sim.rs` runs whole federations (2–16 members, seeded network with delay,
//! repair-as-delay and cross-channel reordering, joins, resigns, crashes) with an invariant
//! checker after every event; `HLAMESH_SIM_SEEDS=N` runs more seeds, `HLAMESH_SIM_SEED=s` replays
//! one (add `HLAMESH_SIM_TRACE=time` for an event trace). `tests/worked_examples.rs` holds the worked
//! examples and the rules of `docs/HLA-SEMANTICS.md`, "Time management", as named scenarios.
//! The algorithm is described in `docs/TIME-ALGORITHM.md`.
#![forbid(unsafe_code)]

pub mod clock_offset;
pub mod dyn_time;
pub mod manager;
pub mod message;
pub mod pacer;
pub mod time;
pub mod tso_queue;

pub use dyn_time::{DynInterval, DynTime, TimeKind};
pub use manager::{
    Action, Advance, Callback, ConstraintState, Delivery, Incoming, OrderType, RegulationState,
    RequestKind, TimeError, TimeManager, TimeSnapshot, TimeStats,
};
pub use message::{MemberId, Promise, Seq, TimeMessage, ViewNumber};
pub use time::{
    Bound, HLAfloat64Interval, HLAfloat64Time, HLAinteger64Interval, HLAinteger64Time, LogicalTime,
    LogicalTimeInterval, Strictness, TimeDecodeError,
};
