//! Receiving on an application thread that waits for its callbacks ([`Transport::receive_here`]):
//! the shell around [`crate::recv_role`]. The borrower reads the data socket non-blocking and
//! waits in `epoll` (through `mio`) on the socket and on a waker, which other threads fire when
//! they queue something the borrower waits for ([`ReceiverWaker`]).

use std::cell::Cell;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use super::{RECEIVE_THREAD, Shared, Transport, lock, route};
use crate::recv_buf::RecvBuffer;
use crate::recv_role::{DataTurn, RecvRole};

const DATA: mio::Token = mio::Token(0);
const WAKE: mio::Token = mio::Token(1);
/// Consecutive receive errors (other than "would block") after which a borrower gives up for
/// this call and leaves the socket to the data thread.
const MAX_ERRORS: u32 = 3;

thread_local! {
    /// The calling thread is receiving in `receive_here` (it needs no waking).
    static BORROWING: Cell<bool> = const { Cell::new(false) };
}

/// The borrowing state of one transport.
pub(super) struct Borrowing {
    role: Mutex<RecvRole>,
    /// Tells a thread waiting for the role that it may be free (capacity 1: signals coalesce).
    ready_tx: Sender<()>,
    ready_rx: Receiver<()>,
    /// Whether a borrower receives, and how to wake it (shared with every [`ReceiverWaker`]).
    signal: Arc<Signal>,
    /// The borrowers' poller, made at the first borrow.
    poll: Mutex<Option<BorrowPoll>>,
    /// The data thread, to wake it from a long sleep (see [`RecvRole::data_sleep`]).
    data_thread: OnceLock<std::thread::Thread>,
}

/// What a thread that queued something for the borrower needs, readable without any lock.
#[derive(Default)]
struct Signal {
    /// A borrower is receiving now.
    receiving: AtomicBool,
    /// Fires the borrower's poll (made with the poller).
    waker: OnceLock<mio::Waker>,
}

impl Signal {
    fn wake(&self) {
        if let Some(w) = self.waker.get() {
            let _ = w.wake();
        }
    }
}

struct BorrowPoll {
    poll: mio::Poll,
    events: mio::Events,
    buf: RecvBuffer,
}

impl Borrowing {
    /// Borrowing allowed when `enabled` (not with the seeded fault layer, which lives on the
    /// data thread).
    pub(super) fn new(enabled: bool) -> Self {
        let (ready_tx, ready_rx) = crossbeam_channel::bounded(1);
        Borrowing {
            role: Mutex::new(RecvRole::new(enabled)),
            ready_tx,
            ready_rx,
            signal: Arc::default(),
            poll: Mutex::new(None),
            data_thread: OnceLock::new(),
        }
    }

    /// The data thread's turn (see [`RecvRole::data_turn`]); signals a waiter when it yields.
    pub(super) fn data_turn(&self, now: Instant) -> DataTurn {
        let turn = lock(&self.role).data_turn(now);
        if turn == DataTurn::Yielded {
            let _ = self.ready_tx.try_send(());
        }
        turn
    }

    /// The data thread, not holding the role, sleeps until it should look again (its next
    /// timer is `timer` away).
    pub(super) fn data_thread_sleep(&self, timer: Duration) {
        let _ = self.data_thread.set(std::thread::current());
        let sleep = lock(&self.role).data_sleep(Instant::now(), timer);
        std::thread::park_timeout(sleep);
    }

    /// Stops borrowing (shutdown) and wakes a borrower so it sees it.
    pub(super) fn disable(&self) {
        lock(&self.role).disable();
        self.signal.wake();
    }
}

/// What [`Transport::receive_here`] did.
#[derive(Debug)]
pub enum ReceiveHere {
    /// The caller's condition became true.
    Ready,
    /// The deadline passed, or the transport is stopping.
    TimedOut,
    /// Another thread reads the socket now. Wait for your callbacks as usual and also for
    /// [`RoleWait::ready`], which says the socket may be free; then call again.
    Busy(RoleWait),
    /// This transport cannot lend its socket (seeded fault layer configured, stopping, or the
    /// poller could not be made): wait for your callbacks as usual.
    Unavailable,
}

/// A thread's claim on the data socket while another thread reads it (dropping it withdraws
/// the claim).
pub struct RoleWait {
    shared: Arc<Shared>,
    ready: Receiver<()>,
}

impl std::fmt::Debug for RoleWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoleWait").finish_non_exhaustive()
    }
}

impl RoleWait {
    /// Receives a message when the socket may be free to borrow.
    pub fn ready(&self) -> &Receiver<()> {
        &self.ready
    }
}

impl Drop for RoleWait {
    fn drop(&mut self) {
        lock(&self.shared.borrowing.role).unwant();
    }
}

/// Wakes the thread receiving in [`Transport::receive_here`], if any, so that it looks at its
/// condition again. Call it after queueing, from another thread, something that thread waits
/// for. Cheap when nobody borrows (one atomic load).
#[derive(Clone)]
pub struct ReceiverWaker(Arc<Signal>);

impl std::fmt::Debug for ReceiverWaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReceiverWaker").finish_non_exhaustive()
    }
}

impl ReceiverWaker {
    /// See the type.
    pub fn wake(&self) {
        if BORROWING.with(Cell::get) {
            return;
        }
        // Pairs with the borrower's store before it checks its condition: either it sees what
        // was queued, or this sees it receiving and wakes it.
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.0.receiving.load(Ordering::SeqCst) {
            self.0.wake();
        }
    }
}

impl Transport {
    /// Receives and handles data datagrams on the calling thread until `ready()` returns true
    /// or `deadline` passes, instead of waiting for the data thread to hand them over. Meant for
    /// a thread that would otherwise sleep until its callbacks arrive (`evoke_callback`): the
    /// datagram that produces the callback wakes this thread directly, which saves one thread
    /// wake-up per message on the path (see [`crate::recv_role`]).
    ///
    /// Everything the data thread does with a datagram happens here (sequencing, repair
    /// requests, the driver's receive turn and its idle call), so this thread handles datagrams for every
    /// federation and federate of this transport while it borrows; its own condition is checked
    /// after each. The data thread keeps running the data-plane timers meanwhile, and takes the
    /// socket back once the caller has been away for [`crate::recv_role::GRACE`].
    ///
    /// `ready` must be cheap and must not call into the transport. Other threads that make it
    /// true must call [`ReceiverWaker::wake`] (see [`Transport::receiver_waker`]).
    pub fn receive_here(&self, deadline: Instant, ready: &mut dyn FnMut() -> bool) -> ReceiveHere {
        let s = &self.shared;
        let b = &s.borrowing;
        let set_nonblocking = {
            let mut role = lock(&b.role);
            if !role.enabled() {
                return ReceiveHere::Unavailable;
            }
            match role.borrow(Instant::now()) {
                Some(switch) => switch,
                None => {
                    role.want();
                    return ReceiveHere::Busy(RoleWait {
                        shared: s.clone(),
                        ready: b.ready_rx.clone(),
                    });
                }
            }
        };
        b.signal.receiving.store(true, Ordering::SeqCst);
        std::sync::atomic::fence(Ordering::SeqCst);
        let _back = GiveBackOnDrop(b);
        s.receive_borrowed(deadline, ready, set_nonblocking)
    }

    /// A handle that wakes this transport's borrower (see [`Transport::receive_here`]).
    pub fn receiver_waker(&self) -> ReceiverWaker {
        ReceiverWaker(self.shared.borrowing.signal.clone())
    }
}

/// Returns the role when the borrow ends, also when a callback run on the borrowing thread
/// (an immediate one of another federate) panics: the socket must not stay lent to nobody.
struct GiveBackOnDrop<'a>(&'a Borrowing);

impl Drop for GiveBackOnDrop<'_> {
    fn drop(&mut self) {
        let b = self.0;
        b.signal.receiving.store(false, Ordering::SeqCst);
        let back = lock(&b.role).give_back(Instant::now());
        if back.signal_waiter {
            let _ = b.ready_tx.try_send(());
        }
        if back.wake_data_thread
            && let Some(t) = b.data_thread.get()
        {
            t.unpark();
        }
    }
}

/// Restores the borrowing thread's marks, also on unwinding.
struct ThreadMarks {
    receive_was: bool,
    borrowing_was: bool,
}

impl ThreadMarks {
    fn set() -> Self {
        ThreadMarks {
            receive_was: RECEIVE_THREAD.with(|c| c.replace(true)),
            borrowing_was: BORROWING.with(|c| c.replace(true)),
        }
    }
}

impl Drop for ThreadMarks {
    fn drop(&mut self) {
        BORROWING.with(|c| c.set(self.borrowing_was));
        RECEIVE_THREAD.with(|c| c.set(self.receive_was));
    }
}

impl Shared {
    fn receive_borrowed(
        &self,
        deadline: Instant,
        ready: &mut dyn FnMut() -> bool,
        set_nonblocking: bool,
    ) -> ReceiveHere {
        let mut slot = lock(&self.borrowing.poll);
        if slot.is_none() {
            match self.make_poll() {
                Ok(p) => *slot = Some(p),
                Err(e) => {
                    tracing::warn!("cannot receive on application threads: {e}");
                    lock(&self.borrowing.role).disable();
                    return ReceiveHere::Unavailable;
                }
            }
        }
        let Some(bp) = slot.as_mut() else {
            return ReceiveHere::Unavailable;
        };
        if set_nonblocking && let Err(e) = self.data_recv.set_nonblocking(true) {
            tracing::warn!("cannot receive on application threads: {e}");
            lock(&self.borrowing.role).disable();
            return ReceiveHere::Unavailable;
        }
        let _marks = ThreadMarks::set();
        let mut errors = 0;
        loop {
            if ready() {
                break ReceiveHere::Ready;
            }
            match bp.buf.recv_datagram(&self.data_recv) {
                Ok((dgram, dst)) => {
                    errors = 0;
                    self.datagram_in(dgram.len(), true);
                    route(self, Instant::now(), dgram, dst);
                    self.idle();
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => {
                    tracing::debug!("data socket receive error: {e}");
                    errors += 1;
                    if errors >= MAX_ERRORS {
                        break ReceiveHere::Unavailable;
                    }
                    continue;
                }
            }
            // Drained: a datagram arriving from here on wakes the (edge-triggered) poll.
            if ready() {
                break ReceiveHere::Ready;
            }
            let now = Instant::now();
            if now >= deadline || self.shutdown.load(Ordering::Relaxed) {
                break ReceiveHere::TimedOut;
            }
            match bp.poll.poll(&mut bp.events, Some(deadline - now)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    tracing::debug!("poll on the data socket failed: {e}");
                    break ReceiveHere::Unavailable;
                }
            }
        }
    }

    fn make_poll(&self) -> std::io::Result<BorrowPoll> {
        let poll = mio::Poll::new()?;
        let fd = self.data_recv.as_raw_fd();
        poll.registry()
            .register(&mut mio::unix::SourceFd(&fd), DATA, mio::Interest::READABLE)?;
        let waker = mio::Waker::new(poll.registry(), WAKE)?;
        let _ = self.borrowing.signal.waker.set(waker);
        Ok(BorrowPoll {
            poll,
            events: mio::Events::with_capacity(4),
            buf: RecvBuffer::new(),
        })
    }
}
