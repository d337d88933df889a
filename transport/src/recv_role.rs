//! Who reads the data socket: the data thread, or an application thread that waits for its
//! callbacks and receives for itself meanwhile ([`crate::Transport::receive_here`]).
//!
//! Why: on a 2-vCPU machine a thread hand-off costs about as much as the network itself
//! (`docs/LAB-NOTES.md`, "Thread wake-ups"). A federate waiting in `evoke_callback` for its grant
//! pays two wake-ups per step when the data thread receives (the data thread's, then its own), and
//! one when the waiting thread receives the datagram itself.
//!
//! The rules, as a state machine the shell drives with the time it reads (no clock in here):
//! - One holder at a time: the data thread ([`Holder::DataThread`]), a receiving borrower
//!   ([`Holder::Borrower`]), or nobody between two borrows ([`Holder::Away`]).
//! - A borrower that returns to its application keeps the role for [`GRACE`] (`Away`), so a
//!   lockstep loop (wait, handle, request, wait) does not hand the socket back and forth every
//!   step. Datagrams that arrive meanwhile wait in the socket buffer.
//! - The data thread takes the role back from a borrower away for [`GRACE`]. If a thread still
//!   waits for the role, it gives it [`STARVED`] (the waiter was signalled; on a loaded machine
//!   it may not run at once).
//! - A thread that wants the role while the data thread holds it registers ([`RecvRole::want`]);
//!   the data thread yields after the datagram it is handling (or its next receive timeout) and
//!   the shell signals the waiter. Until then the waiter is served as before: the data thread
//!   queues its callbacks and wakes it.
//! - A thread that finds another borrower receiving waits for its callbacks as before: the
//!   receiving thread handles every datagram, whoever it is for.
//! - While it does not hold the role, the data thread runs only its timers. It looks at the role
//!   again within [`GRACE`], except while a borrower has been receiving for longer than that (a
//!   federate waiting a long time in `evoke_callback`): then it sleeps until its next timer, and
//!   the borrower wakes it when it returns ([`GiveBack::wake_data_thread`]). A lockstep loop's
//!   short borrows thus cost the data thread no wake-up, and a long wait costs no polling.

use std::time::{Duration, Instant};

/// How long a borrower that returned to its application keeps the role.
pub const GRACE: Duration = Duration::from_millis(1);

/// How long the data thread leaves the role to a signalled waiter that has not taken it.
pub const STARVED: Duration = Duration::from_millis(10);

/// Who holds the role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// The data thread reads the socket (blocking, with its timer as the receive timeout).
    DataThread,
    /// An application thread reads the socket (non-blocking, waiting in `epoll`) since `since`.
    Borrower {
        /// When it took the role.
        since: Instant,
    },
    /// Nobody reads since `since`: the last borrower went back to its application.
    Away {
        /// When it went.
        since: Instant,
    },
}

/// What the data thread does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataTurn {
    /// Read the socket; first put it back in blocking mode if `restore_blocking`.
    Receive {
        /// A borrower left the socket non-blocking.
        restore_blocking: bool,
    },
    /// The data thread just gave the role up: signal the waiting thread, then run timers only.
    Yielded,
    /// Somebody else holds the role: run timers only, look again within [`GRACE`].
    Timers,
}

/// The role's state (kept under the shell's mutex).
#[derive(Debug)]
pub struct RecvRole {
    holder: Holder,
    /// Threads waiting for the role.
    wanted: u32,
    /// The socket was last left non-blocking (by a borrower).
    nonblocking: bool,
    /// Borrowing is possible at all (not with the seeded fault layer, which lives on the data
    /// thread; not after shutdown).
    enabled: bool,
    /// The data thread sleeps past [`GRACE`] and must be woken when the borrower returns.
    data_sleeps_long: bool,
}

/// What the shell does when a borrower returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GiveBack {
    /// Signal a thread waiting for the role.
    pub signal_waiter: bool,
    /// Unpark the data thread (it sleeps until its next timer).
    pub wake_data_thread: bool,
}

impl RecvRole {
    /// The data thread holds the role; `enabled` says whether borrowing is allowed.
    pub fn new(enabled: bool) -> Self {
        RecvRole {
            holder: Holder::DataThread,
            wanted: 0,
            nonblocking: false,
            enabled,
            data_sleeps_long: false,
        }
    }

    /// Who holds the role now.
    pub fn holder(&self) -> Holder {
        self.holder
    }

    /// Whether borrowing is allowed.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Forbids borrowing from now on (shutdown); a borrower receiving now finishes its call.
    pub fn disable(&mut self) {
        self.enabled = false;
    }

    /// A thread asks to receive at `now`. `Some(set_nonblocking)` when it holds the role now
    /// (and must first put the socket in non-blocking mode if `set_nonblocking`); `None` when
    /// the data thread or another borrower holds it.
    pub fn borrow(&mut self, now: Instant) -> Option<bool> {
        if !self.enabled || !matches!(self.holder, Holder::Away { .. }) {
            return None;
        }
        self.holder = Holder::Borrower { since: now };
        let switch = !self.nonblocking;
        self.nonblocking = true;
        Some(switch)
    }

    /// A thread starts waiting for the role.
    pub fn want(&mut self) {
        self.wanted += 1;
    }

    /// A thread stopped waiting for the role.
    pub fn unwant(&mut self) {
        self.wanted = self.wanted.saturating_sub(1);
    }

    /// Threads waiting for the role.
    pub fn wanted(&self) -> u32 {
        self.wanted
    }

    /// The borrower returns to its application at `now`.
    pub fn give_back(&mut self, now: Instant) -> GiveBack {
        if matches!(self.holder, Holder::Borrower { .. }) {
            self.holder = Holder::Away { since: now };
        }
        GiveBack {
            signal_waiter: self.wanted > 0,
            wake_data_thread: std::mem::take(&mut self.data_sleeps_long),
        }
    }

    /// How long the data thread, not holding the role at `now`, may sleep before it looks
    /// again, given its next timer is `timer` away.
    pub fn data_sleep(&mut self, now: Instant, timer: Duration) -> Duration {
        let sleep = match self.holder {
            Holder::Borrower { since } if now.saturating_duration_since(since) >= GRACE => timer,
            Holder::Away { since } => {
                // Past the grace, a signalled waiter keeps its claim until STARVED: sleep until
                // then, not in a loop of zero-length sleeps that would take the CPU it needs.
                let away = now.saturating_duration_since(since);
                let until = if self.wanted > 0 && away >= GRACE {
                    STARVED
                } else {
                    GRACE
                };
                until.saturating_sub(away)
            }
            _ => GRACE,
        };
        let sleep = sleep.min(timer);
        self.data_sleeps_long = sleep > GRACE;
        sleep
    }

    /// The data thread, between two datagrams, at `now`.
    pub fn data_turn(&mut self, now: Instant) -> DataTurn {
        match self.holder {
            Holder::DataThread if self.wanted > 0 && self.enabled => {
                self.holder = Holder::Away { since: now };
                DataTurn::Yielded
            }
            Holder::DataThread => DataTurn::Receive {
                restore_blocking: false,
            },
            Holder::Away { since } => {
                let away = now.saturating_duration_since(since);
                if !self.enabled || away >= STARVED || (away >= GRACE && self.wanted == 0) {
                    self.holder = Holder::DataThread;
                    let restore = self.nonblocking;
                    self.nonblocking = false;
                    DataTurn::Receive {
                        restore_blocking: restore,
                    }
                } else {
                    DataTurn::Timers
                }
            }
            Holder::Borrower { .. } => DataTurn::Timers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(base: Instant, us: u64) -> Instant {
        base + Duration::from_micros(us)
    }

    #[test]
    fn the_data_thread_holds_the_role_until_a_thread_wants_it() {
        let t0 = Instant::now();
        let mut r = RecvRole::new(true);
        assert_eq!(r.borrow(t0), None);
        assert_eq!(
            r.data_turn(t0),
            DataTurn::Receive {
                restore_blocking: false
            }
        );
        r.want();
        assert_eq!(r.data_turn(at(t0, 5)), DataTurn::Yielded);
        assert_eq!(r.data_turn(at(t0, 6)), DataTurn::Timers);
        assert_eq!(
            r.borrow(t0),
            Some(true),
            "the first borrower switches the mode"
        );
        r.unwant();
        assert_eq!(r.holder(), Holder::Borrower { since: t0 });
        assert_eq!(r.data_turn(at(t0, 50_000)), DataTurn::Timers);
    }

    #[test]
    fn a_borrower_keeps_the_role_for_the_grace_then_the_data_thread_takes_it_back() {
        let t0 = Instant::now();
        let mut r = RecvRole::new(true);
        r.want();
        r.data_turn(t0);
        r.borrow(t0);
        r.unwant();
        assert!(!r.give_back(at(t0, 10)).signal_waiter);
        // Back within the grace: the role is still ours, the mode is already right.
        assert_eq!(r.borrow(t0), Some(false));
        assert!(!r.give_back(at(t0, 20)).signal_waiter);
        assert_eq!(r.data_turn(at(t0, 500)), DataTurn::Timers);
        assert_eq!(
            r.data_turn(at(t0, 20) + GRACE),
            DataTurn::Receive {
                restore_blocking: true
            }
        );
        assert_eq!(r.holder(), Holder::DataThread);
        assert_eq!(r.borrow(t0), None);
    }

    #[test]
    fn a_second_thread_waits_while_one_receives_and_is_signalled_when_it_returns() {
        let t0 = Instant::now();
        let mut r = RecvRole::new(true);
        r.want();
        r.data_turn(t0);
        assert!(r.borrow(t0).is_some());
        r.unwant();
        assert_eq!(r.borrow(t0), None, "one borrower at a time");
        r.want();
        assert!(
            r.give_back(at(t0, 30)).signal_waiter,
            "the waiter is signalled"
        );
        // A signalled waiter keeps its claim past the grace, but not forever.
        assert_eq!(r.data_turn(at(t0, 30) + GRACE), DataTurn::Timers);
        assert_eq!(
            r.data_turn(at(t0, 30) + STARVED),
            DataTurn::Receive {
                restore_blocking: true
            }
        );
        // Still wanted: the data thread yields again at its next turn.
        assert_eq!(r.data_turn(at(t0, 30) + STARVED), DataTurn::Yielded);
        assert_eq!(r.borrow(t0), Some(true));
    }

    #[test]
    fn the_data_thread_sleeps_long_only_under_a_long_borrow_and_is_woken_after_it() {
        let t0 = Instant::now();
        let timer = Duration::from_millis(20);
        let mut r = RecvRole::new(true);
        r.want();
        r.data_turn(t0);
        // Away: look again when the grace ends.
        assert_eq!(r.data_sleep(at(t0, 400), timer), Duration::from_micros(600));
        r.borrow(at(t0, 500));
        r.unwant();
        // A short borrow (a lockstep step): sleep one grace, nobody needs to wake us.
        assert_eq!(r.data_sleep(at(t0, 600), timer), GRACE);
        assert_eq!(
            r.give_back(at(t0, 700)),
            GiveBack {
                signal_waiter: false,
                wake_data_thread: false
            }
        );
        // A long borrow: sleep until the timer, and be woken when it ends (once).
        r.borrow(at(t0, 800));
        assert_eq!(r.data_sleep(at(t0, 800) + GRACE, timer), timer);
        assert!(r.give_back(at(t0, 5_000)).wake_data_thread);
        assert!(!r.give_back(at(t0, 5_001)).wake_data_thread);
        // A near timer always bounds the sleep.
        r.borrow(at(t0, 6_000));
        let short = Duration::from_micros(100);
        assert_eq!(r.data_sleep(at(t0, 6_000) + GRACE, short), short);
        assert!(!r.give_back(at(t0, 9_000)).wake_data_thread);
    }

    #[test]
    fn past_the_grace_the_data_thread_sleeps_until_a_waiter_starves_not_zero() {
        let t0 = Instant::now();
        let timer = Duration::from_millis(20);
        let mut r = RecvRole::new(true);
        r.want();
        r.data_turn(t0);
        r.borrow(t0);
        r.unwant();
        r.want();
        assert!(r.give_back(at(t0, 100)).signal_waiter);
        // The waiter has not come yet, 2 ms after the give-back.
        let now = at(t0, 2_100);
        assert_eq!(r.data_turn(now), DataTurn::Timers);
        assert_eq!(r.data_sleep(now, timer), STARVED - Duration::from_millis(2));
        // Without a waiter the grace alone counts (and is over: look again at once).
        r.unwant();
        assert_eq!(r.data_sleep(now, timer), Duration::ZERO);
    }

    #[test]
    fn disabled_means_the_data_thread_only() {
        let t0 = Instant::now();
        let mut r = RecvRole::new(false);
        r.want();
        assert_eq!(
            r.data_turn(t0),
            DataTurn::Receive {
                restore_blocking: false
            }
        );
        assert_eq!(r.borrow(t0), None);
        // Disabled while a borrower is away: the data thread takes the role back at once.
        let mut r = RecvRole::new(true);
        r.want();
        r.data_turn(t0);
        r.borrow(t0);
        r.unwant();
        r.give_back(at(t0, 1));
        r.disable();
        assert_eq!(
            r.data_turn(at(t0, 2)),
            DataTurn::Receive {
                restore_blocking: true
            }
        );
    }
}
