//! A federate's callback queue: where callbacks wait between the federation core and the
//! federate ambassador, and which thread delivers them.
//!
//! The core produces callbacks under the LRC's lock and they enter the queue there, so the
//! queue holds them in the core's order whichever thread later delivers them.
//!
//! **Immediate model.** The thread that produced a callback delivers it, right after it released
//! the LRC's lock, when it can do so without re-entering the federate:
//! - a transport thread (data or control) delivers what the event it handled produced, in the
//!   LRC driver's idle call, before it waits for the next datagram or frame;
//! - a thread already delivering this queue's callbacks delivers what a callback produced by
//!   calling the RTI (e.g. an update sent from `reflect_attribute_values`).
//!
//! This costs no thread hand-off on the reflect and grant paths (about 13 µs each on a 2-vCPU
//! machine, see `benches/README.md`). Everything else wakes the queue's delivery thread
//! (`hlamesh-callbacks`), which delivers it: callbacks produced by an API call on the federate's
//! own thread (delivering them there would call the federate inside its own call), callbacks
//! queued while callbacks are disabled, and callbacks queued while another thread is
//! delivering. The ambassador's lock serialises delivery, and a deliverer takes callbacks off
//! the queue only while it holds that lock, so callbacks are never delivered concurrently or out
//! of order.
//!
//! What this means for a federate: an immediate callback may run on the LRC's receive thread,
//! which receives nothing while it runs. Return promptly and keep long work on the federate's
//! own threads, as with any RTI's immediate callbacks. A callback that panics on an LRC thread
//! loses that one callback (the panic is logged); the thread, the other federates of the process
//! and this federate's later callbacks go on. Evoked callbacks run on the federate's own thread,
//! so a panic there unwinds into the federate's `evoke_callback` call, as Rust code expects.
//! Joining and resigning from a callback are refused anyway (`CallNotAllowedFromWithinCallback`).
//! Destroying a federation from an immediate callback on a receive thread is refused the same
//! way unless its answer is already there: the answer could queue behind the datagrams the
//! waiting thread would receive.
//!
//! **Evoked model.** Callbacks wait in the queue until `evoke_callback(s)`. A thread waiting
//! there receives the LRC's data datagrams itself meanwhile (`Transport::receive_here`), so the
//! datagram that produces its callback wakes it directly; callbacks queued by other threads wake
//! it through the transport's [`ReceiverWaker`].

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use hlamesh_transport::ReceiverWaker;

use crate::ambassador::{FederateAmbassador, dispatch_to};
use crate::core::Callback;
use crate::node::Delivery;

/// The federate ambassador a queue delivers to.
pub(crate) type Amb = Arc<Mutex<Box<dyn FederateAmbassador>>>;

thread_local! {
    /// Callbacks queued on this thread now are delivered by this thread before it waits again
    /// (set while the LRC's driver runs a receive turn, and while this thread delivers).
    static DEFERRED: Cell<bool> = const { Cell::new(false) };
    /// Queues this thread still has to deliver.
    static PENDING: RefCell<Vec<Arc<CallbackQueue>>> = const { RefCell::new(Vec::new()) };
    /// This thread is running the LRC's share of a transport receive turn (the LRC driver's
    /// turn or idle call): a federate call made from a callback delivered here must not wait for an
    /// answer that only this thread's next turn can bring.
    static RECEIVE_TURN: Cell<bool> = const { Cell::new(false) };
}

/// Marks (or unmarks) the calling thread as inside a transport turn; returns the previous mark.
pub(crate) fn receive_turn(on: bool) -> bool {
    RECEIVE_TURN.with(|r| r.replace(on))
}

/// Whether the calling thread is inside a transport turn (see [`receive_turn`]).
pub(crate) fn in_receive_turn() -> bool {
    RECEIVE_TURN.with(Cell::get)
}

/// Marks (or unmarks) the calling thread as one that delivers the callbacks it queues before it
/// waits again; returns the previous mark.
pub(crate) fn defer(on: bool) -> bool {
    DEFERRED.with(|d| d.replace(on))
}

/// Delivers every queue the calling thread noted while it was marked (see [`defer`]).
pub(crate) fn deliver_pending() {
    while let Some(q) = PENDING.with(|p| p.borrow_mut().pop()) {
        q.deliver_here();
    }
}

fn is_grant(d: &Delivery) -> bool {
    matches!(d, Delivery::Core(Callback::TimeAdvanceGrant(_)))
}

/// One federate's queue of callbacks.
pub struct CallbackQueue {
    tx: Sender<Delivery>,
    rx: Receiver<Delivery>,
    target: Option<Target>,
    /// Evoked model: wakes the evoking thread if it is receiving for the LRC.
    waker: Option<ReceiverWaker>,
    /// Time advance grants queued and not yet handed to the federate: until it receives its
    /// grant the federate is still in the Time Advancing state (8.2), which the time services
    /// read from here (`TimeManager::set_grant_undelivered`). Raised under the LRC's lock as
    /// the grant is queued, lowered as it is dispatched.
    grants: AtomicUsize,
}

struct Target {
    amb: Amb,
    immediate: bool,
    enabled: Arc<AtomicBool>,
    /// Wakes the delivery thread (capacity 1: wake-ups coalesce).
    wake: Sender<()>,
}

impl std::fmt::Debug for CallbackQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackQueue")
            .field("queued", &self.rx.len())
            .field("immediate", &self.target.as_ref().map(|t| t.immediate))
            .finish()
    }
}

impl CallbackQueue {
    /// A queue nobody delivers: the caller takes the deliveries from the receiver.
    pub fn detached() -> (Arc<CallbackQueue>, Receiver<Delivery>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let q = Arc::new(CallbackQueue {
            tx,
            rx: rx.clone(),
            target: None,
            waker: None,
            grants: AtomicUsize::new(0),
        });
        (q, rx)
    }

    /// A queue delivering to `amb`. With `immediate`, the returned receiver is the delivery
    /// thread's wake-up (see [`CallbackQueue::serve`]); without, `waker` wakes the evoking
    /// thread while it receives for the LRC.
    pub(crate) fn new(
        amb: Amb,
        immediate: bool,
        enabled: Arc<AtomicBool>,
        waker: Option<ReceiverWaker>,
    ) -> (Arc<CallbackQueue>, Receiver<()>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let (wake, woken) = crossbeam_channel::bounded(1);
        let q = Arc::new(CallbackQueue {
            tx,
            rx,
            target: Some(Target {
                amb,
                immediate,
                enabled,
                wake,
            }),
            waker: waker.filter(|_| !immediate),
            grants: AtomicUsize::new(0),
        });
        (q, woken)
    }

    /// How many deliveries wait.
    pub fn len(&self) -> usize {
        self.rx.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }

    /// The queued deliveries (the evoked model takes them from here; it hands each to
    /// [`CallbackQueue::dispatch`]).
    pub(crate) fn receiver(&self) -> &Receiver<Delivery> {
        &self.rx
    }

    /// Whether a time advance grant waits in this queue (the federate has not received it).
    /// Read under the LRC's lock, it agrees with the time manager: the grant was queued in the
    /// same critical section that issued it. Always `false` for a [`CallbackQueue::detached`]
    /// queue (its owner takes deliveries without the queue seeing them).
    pub fn grant_undelivered(&self) -> bool {
        self.target.is_some() && self.grants.load(Ordering::Acquire) > 0
    }

    /// Hands `d`, taken from this queue, to the federate.
    pub(crate) fn dispatch(&self, amb: &mut dyn FederateAmbassador, d: Delivery) {
        if is_grant(&d) {
            // Before the callback runs: the federate may ask for its next advance in it.
            self.grants.fetch_sub(1, Ordering::AcqRel);
        }
        dispatch_to(amb, d);
    }

    /// The ambassador, locked (for the evoked model).
    pub(crate) fn ambassador(&self) -> Option<MutexGuard<'_, Box<dyn FederateAmbassador>>> {
        let t = self.target.as_ref()?;
        Some(t.amb.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Queues `d`; called under the LRC's lock, in the core's order.
    pub(crate) fn push(self: &Arc<Self>, d: Delivery) {
        if is_grant(&d) {
            // Before it can be taken, so the count never drops below the grants queued.
            self.grants.fetch_add(1, Ordering::AcqRel);
        }
        let _ = self.tx.send(d);
        if let Some(w) = &self.waker {
            w.wake();
        }
        let Some(t) = self.target.as_ref().filter(|t| t.immediate) else {
            return;
        };
        if DEFERRED.with(Cell::get) {
            PENDING.with(|p| {
                let mut p = p.borrow_mut();
                if !p.iter().any(|q| Arc::ptr_eq(q, self)) {
                    p.push(self.clone());
                }
            });
        } else {
            let _ = t.wake.try_send(());
        }
    }

    /// Wakes the delivery thread (callbacks were enabled again).
    pub(crate) fn wake(&self) {
        if let Some(t) = &self.target {
            let _ = t.wake.try_send(());
        }
    }

    /// Delivers what is queued on the calling thread if no other thread is delivering; else
    /// leaves it to the delivery thread.
    fn deliver_here(&self) {
        let Some(t) = self.target.as_ref().filter(|t| t.immediate) else {
            return;
        };
        if !t.enabled.load(Ordering::Acquire) {
            return;
        }
        let amb = match t.amb.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                // The other deliverer may be past its last look at the queue.
                let _ = t.wake.try_send(());
                return;
            }
        };
        self.deliver_locked(amb, t);
    }

    fn deliver_locked(&self, mut amb: MutexGuard<'_, Box<dyn FederateAmbassador>>, t: &Target) {
        let was = defer(true);
        while t.enabled.load(Ordering::Acquire) {
            match self.rx.try_recv() {
                Ok(d) => {
                    // An LRC thread must survive the federate's panic: it receives for everyone.
                    let run = std::panic::AssertUnwindSafe(|| self.dispatch(&mut **amb, d));
                    if std::panic::catch_unwind(run).is_err() {
                        tracing::error!(
                            "a federate ambassador callback panicked on an LRC thread; \
                             that callback is lost, the LRC goes on"
                        );
                    }
                }
                Err(_) => break,
            }
        }
        defer(was);
        drop(amb);
        deliver_pending();
    }

    /// The delivery thread of an immediate queue: delivers whenever woken, until `stop`.
    pub(crate) fn serve(self: Arc<Self>, woken: Receiver<()>, stop: Arc<AtomicBool>) {
        let Some(t) = self.target.as_ref() else {
            return;
        };
        while !stop.load(Ordering::Acquire) {
            // The timeout only bounds how late `stop` is seen; every queued callback wakes us.
            let _ = woken.recv_timeout(Duration::from_millis(100));
            if stop.load(Ordering::Acquire) || !t.enabled.load(Ordering::Acquire) {
                continue;
            }
            if self.rx.is_empty() {
                continue;
            }
            let amb = t.amb.lock().unwrap_or_else(|e| e.into_inner());
            self.deliver_locked(amb, t);
        }
    }
}
