//! When the shell's threads wait: the two waiting decisions of the data plane, as values the
//! shell asks and then obeys, so that what the shell does around its sockets is only blocking.
//!
//! - [`ReadTimeout`] — how long the data thread may block in `recv` before a timer of the core
//!   is due: the earliest deadline of the federations' receive paths and senders (and of the
//!   fault layer), within `[MIN_READ_TIMEOUT, MAX_READ_TIMEOUT]`, changed on the socket only when
//!   it moved by more than [`DATA_TIMEOUT_SLACK`] (a `setsockopt` per turn would cost more than
//!   the precision buys). The upper bound lets a sender's first tail heartbeat, armed by a send
//!   on another thread, go out in time; the lower bound keeps a due-now timer from turning the
//!   thread into a busy loop.
//! - [`RoomWait`] — flow control's wait for room (`FederationChannel::wait_for_room`): at the
//!   first refusal ask the receivers to acknowledge now (after flushing the pending batch, which
//!   they must receive first), then sleep until the window's own deadline for the slowest
//!   receiver, and give up after [`MAX_FLOW_WAIT`] (the caller sends anyway: reliability does
//!   not depend on flow control).
//! - [`DrainWait`] — closing a federation's channel (or leaving the mesh) waits until every
//!   member acknowledged this node's reliable stream up to its last position, asking every
//!   [`DRAIN_ASK_EVERY`], for at most [`MAX_DRAIN_WAIT`]. Without it a member could read the
//!   `Left` frame (QUIC) before the last data datagrams (multicast, another socket and thread),
//!   drop the sender's stream with them, and release the control messages that waited for
//!   them: a federate's last update before it resigned was lost that way. While it waits the
//!   closing node still answers NACKs, so a lost tail is repaired too.

use std::time::{Duration, Instant};

use crate::core::batch::DATA_TIMEOUT_SLACK;
use crate::flow::{FlowWait, Room};

/// The shortest time the data thread blocks in `recv` (see [`ReadTimeout`]).
pub const MIN_READ_TIMEOUT: Duration = Duration::from_micros(500);
/// The longest time the data thread blocks in `recv` (see [`ReadTimeout`]).
pub const MAX_READ_TIMEOUT: Duration = Duration::from_millis(20);
/// The data socket's read timeout before the first turn.
pub const INITIAL_READ_TIMEOUT: Duration = Duration::from_millis(10);
/// How long a sender waits for room at most, whatever the receivers do (each stalls after
/// `flow_stall` anyway; this bounds the case of many receivers stalling one after another).
pub const MAX_FLOW_WAIT: Duration = Duration::from_secs(2);

/// How long closing a channel waits at most for its members to acknowledge its stream (see
/// [`DrainWait`]); a member that never answers (killed, not yet found lost) costs this once.
pub const MAX_DRAIN_WAIT: Duration = Duration::from_millis(800);
/// How often a closing channel asks its members again to acknowledge: an acknowledgement
/// request is answered with what the member has at once, and the tail may still be on its way.
pub const DRAIN_ASK_EVERY: Duration = Duration::from_millis(5);

/// The earlier of two optional deadlines.
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// When to look again at a sender whose lock another thread holds: that thread is sending, so
/// its timers can wait a little — but not a whole receive timeout, since it may leave a pending
/// batch behind.
pub fn busy_sender_deadline(now: Instant) -> Instant {
    now + DATA_TIMEOUT_SLACK * 2
}

/// The data thread's receive timeout (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct ReadTimeout {
    current: Duration,
}

impl Default for ReadTimeout {
    fn default() -> Self {
        ReadTimeout {
            current: INITIAL_READ_TIMEOUT,
        }
    }
}

impl ReadTimeout {
    /// The timeout the socket has now.
    pub fn current(&self) -> Duration {
        self.current
    }

    /// Given the earliest deadline of the turn (`None`: no timer pending), the timeout the
    /// socket should get — `Some` only when it differs from the current one by more than the
    /// slack; the shell sets it then.
    pub fn update(&mut self, now: Instant, next: Option<Instant>) -> Option<Duration> {
        let want = next
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or(MAX_READ_TIMEOUT)
            .clamp(MIN_READ_TIMEOUT, MAX_READ_TIMEOUT);
        if want.abs_diff(self.current) > DATA_TIMEOUT_SLACK {
            self.current = want;
            Some(want)
        } else {
            None
        }
    }
}

/// One sender's wait for room in the flow window (see the module docs). The shell asks
/// [`RoomWait::step`] with the window's answer each time it wakes, and does what it says.
#[derive(Clone, Copy, Debug)]
pub struct RoomWait {
    start: Instant,
    asked: bool,
}

/// What a waiting sender does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomStep {
    /// Stop waiting: the result for the caller.
    Done(FlowWait),
    /// Flush the pending batch and ask the members to acknowledge now, then ask again at once
    /// (their regular acknowledgements follow their own window, which may be wider).
    AskForAcks,
    /// Sleep this long at most (or until the window opens), then ask again.
    Sleep(Duration),
}

impl RoomWait {
    /// A wait that began at `start`.
    pub fn new(start: Instant) -> RoomWait {
        RoomWait {
            start,
            asked: false,
        }
    }

    /// The next step, given the window's answer `room` at `now`.
    pub fn step(&mut self, now: Instant, room: Room) -> RoomStep {
        let until = match room {
            Room::Open if !self.asked => return RoomStep::Done(FlowWait::Open),
            Room::Open => {
                return RoomStep::Done(FlowWait::Waited(now.saturating_duration_since(self.start)));
            }
            Room::Wait { until } => until,
        };
        let give_up = self.start + MAX_FLOW_WAIT;
        if now >= give_up {
            return RoomStep::Done(FlowWait::TimedOut);
        }
        if !self.asked {
            self.asked = true;
            return RoomStep::AskForAcks;
        }
        RoomStep::Sleep(until.min(give_up).saturating_duration_since(now))
    }

    /// Whether the wait went past its first look (it asked for acknowledgements), so the shell
    /// counts it as a wait.
    pub fn waited(&self) -> bool {
        self.asked
    }
}

/// How a [`DrainWait`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drained {
    /// Every member acknowledged the stream up to its last position.
    Acknowledged,
    /// Flow control is off: acknowledgements are not tracked, so nothing was waited for.
    Untracked,
    /// Some member had not acknowledged after [`MAX_DRAIN_WAIT`].
    TimedOut,
}

/// What a closing channel does next (see [`DrainWait`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrainStep {
    /// Stop waiting.
    Done(Drained),
    /// Ask every member to acknowledge now, then ask for the next step.
    AskForAcks,
    /// Sleep this long at most (or until an acknowledgement arrives).
    Sleep(Duration),
}

/// A closing channel's wait for its members to acknowledge its stream up to `high` (see the
/// module docs). The shell asks [`DrainWait::step`] with the position every member has
/// acknowledged each time it wakes, and does what it says.
#[derive(Clone, Copy, Debug)]
pub struct DrainWait {
    start: Instant,
    high: u64,
    next_ask: Instant,
}

impl DrainWait {
    /// A wait that began at `start` for the stream's last position `high`.
    pub fn new(start: Instant, high: u64) -> DrainWait {
        DrainWait {
            start,
            high,
            next_ask: start,
        }
    }

    /// The next step, given the position every member acknowledged at `now` (`None`: flow
    /// control off, nothing tracked).
    pub fn step(&mut self, now: Instant, acknowledged: Option<u64>) -> DrainStep {
        let Some(acked) = acknowledged else {
            return DrainStep::Done(Drained::Untracked);
        };
        if acked >= self.high {
            return DrainStep::Done(Drained::Acknowledged);
        }
        let give_up = self.start + MAX_DRAIN_WAIT;
        if now >= give_up {
            return DrainStep::Done(Drained::TimedOut);
        }
        if now >= self.next_ask {
            self.next_ask = now + DRAIN_ASK_EVERY;
            return DrainStep::AskForAcks;
        }
        DrainStep::Sleep(self.next_ask.min(give_up).saturating_duration_since(now))
    }

    /// When the wait next has something to do if no acknowledgement comes: ask again, or give
    /// up (a simulated shell schedules its timer by it).
    pub fn wake_at(&self) -> Instant {
        self.next_ask.min(self.start + MAX_DRAIN_WAIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drain_asks_at_once_then_at_its_pace_until_acknowledged() {
        let t0 = Instant::now();
        let mut d = DrainWait::new(t0, 10);
        assert_eq!(d.step(t0, Some(4)), DrainStep::AskForAcks);
        assert_eq!(d.step(t0, Some(4)), DrainStep::Sleep(DRAIN_ASK_EVERY));
        assert_eq!(d.wake_at(), t0 + DRAIN_ASK_EVERY);
        let t1 = t0 + ms(2);
        assert_eq!(
            d.step(t1, Some(9)),
            DrainStep::Sleep(DRAIN_ASK_EVERY - ms(2))
        );
        assert_eq!(d.step(t0 + DRAIN_ASK_EVERY, Some(9)), DrainStep::AskForAcks);
        assert_eq!(
            d.step(t0 + DRAIN_ASK_EVERY, Some(10)),
            DrainStep::Done(Drained::Acknowledged)
        );
    }

    #[test]
    fn a_drain_with_nothing_unacknowledged_or_untracked_does_not_wait() {
        let t0 = Instant::now();
        assert_eq!(
            DrainWait::new(t0, 7).step(t0, Some(7)),
            DrainStep::Done(Drained::Acknowledged)
        );
        assert_eq!(
            DrainWait::new(t0, 7).step(t0, None),
            DrainStep::Done(Drained::Untracked)
        );
    }

    #[test]
    fn a_drain_gives_up_after_its_bound() {
        let t0 = Instant::now();
        let mut d = DrainWait::new(t0, 3);
        assert_eq!(d.step(t0, Some(0)), DrainStep::AskForAcks);
        let near = t0 + MAX_DRAIN_WAIT - ms(1);
        assert_eq!(d.step(near, Some(2)), DrainStep::AskForAcks);
        assert_eq!(d.step(near, Some(2)), DrainStep::Sleep(ms(1)));
        assert_eq!(
            d.step(t0 + MAX_DRAIN_WAIT, Some(2)),
            DrainStep::Done(Drained::TimedOut)
        );
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn read_timeout_follows_the_earliest_deadline_within_its_bounds() {
        let t0 = Instant::now();
        let mut r = ReadTimeout::default();
        assert_eq!(r.current(), INITIAL_READ_TIMEOUT);
        // Nothing pending: the upper bound.
        assert_eq!(r.update(t0, None), Some(MAX_READ_TIMEOUT));
        // A deadline 3 ms away.
        assert_eq!(r.update(t0, Some(t0 + ms(3))), Some(ms(3)));
        // Due now or overdue: the lower bound, never zero (a zero timeout means "block").
        assert_eq!(r.update(t0 + ms(5), Some(t0)), Some(MIN_READ_TIMEOUT));
        // Far away: the upper bound.
        assert_eq!(r.update(t0, Some(t0 + ms(500))), Some(MAX_READ_TIMEOUT));
        assert_eq!(r.current(), MAX_READ_TIMEOUT);
    }

    #[test]
    fn read_timeout_changes_only_beyond_the_slack() {
        let t0 = Instant::now();
        let mut r = ReadTimeout::default();
        assert_eq!(r.update(t0, Some(t0 + ms(4))), Some(ms(4)));
        // Within the slack of the socket's timeout: no setsockopt.
        let near = t0 + ms(4) + DATA_TIMEOUT_SLACK;
        assert_eq!(r.update(t0, Some(near)), None);
        assert_eq!(r.current(), ms(4));
        // Just beyond it: changed.
        let beyond = near + Duration::from_micros(1);
        assert_eq!(
            r.update(t0, Some(beyond)),
            Some(ms(4) + DATA_TIMEOUT_SLACK + Duration::from_micros(1))
        );
    }

    #[test]
    fn earliest_prefers_any_deadline_to_none() {
        let t0 = Instant::now();
        assert_eq!(earliest(None, None), None);
        assert_eq!(earliest(Some(t0), None), Some(t0));
        assert_eq!(earliest(None, Some(t0)), Some(t0));
        assert_eq!(earliest(Some(t0 + ms(1)), Some(t0)), Some(t0));
        assert!(busy_sender_deadline(t0) > t0);
        assert!(busy_sender_deadline(t0) - t0 < MAX_READ_TIMEOUT);
    }

    #[test]
    fn room_open_at_once_is_no_wait() {
        let t0 = Instant::now();
        let mut w = RoomWait::new(t0);
        assert_eq!(w.step(t0, Room::Open), RoomStep::Done(FlowWait::Open));
        assert!(!w.waited());
    }

    #[test]
    fn a_refused_sender_asks_once_then_sleeps_until_the_window_deadline() {
        let t0 = Instant::now();
        let mut w = RoomWait::new(t0);
        let closed = Room::Wait { until: t0 + ms(30) };
        assert_eq!(w.step(t0, closed), RoomStep::AskForAcks);
        assert!(w.waited());
        // Asked already: sleep until the window's own deadline, never ask again.
        assert_eq!(w.step(t0 + ms(1), closed), RoomStep::Sleep(ms(29)));
        assert_eq!(w.step(t0 + ms(10), closed), RoomStep::Sleep(ms(20)));
        // The window opened: the time waited since the start.
        assert_eq!(
            w.step(t0 + ms(12), Room::Open),
            RoomStep::Done(FlowWait::Waited(ms(12)))
        );
    }

    #[test]
    fn a_sender_gives_up_after_the_bound() {
        let t0 = Instant::now();
        let mut w = RoomWait::new(t0);
        let far = Room::Wait {
            until: t0 + ms(10_000),
        };
        assert_eq!(w.step(t0, far), RoomStep::AskForAcks);
        // The sleep never reaches past the bound.
        assert_eq!(
            w.step(t0 + ms(500), far),
            RoomStep::Sleep(MAX_FLOW_WAIT - ms(500))
        );
        assert_eq!(
            w.step(t0 + MAX_FLOW_WAIT, far),
            RoomStep::Done(FlowWait::TimedOut)
        );
    }
}
