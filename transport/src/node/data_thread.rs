//! The data thread: blocking receive on the multicast data socket (or the seeded fault layer),
//! each datagram routed to its federation's receive path as a receive turn, and the data-plane
//! timers (NACKs, reassembly timeouts, heartbeats, batch flushes, releases of acknowledged
//! copies), waiting as [`crate::core::schedule`] says.

use super::*;

pub(super) fn data_loop(shared: Arc<Shared>, sock: UdpSocket) {
    RECEIVE_THREAD.with(|c| c.set(true));
    let mut fault = shared.cfg.fault.as_ref().map(|f| {
        FaultInjector::new(
            f.seed,
            FaultConfig {
                drop_per_mille: f.drop_per_mille.min(1000) as u16,
                dup_per_mille: f.dup_per_mille.min(1000) as u16,
                reorder_per_mille: f.reorder_per_mille.min(1000) as u16,
                delay_min: Duration::ZERO,
                delay_max: Duration::from_micros(f.max_delay_us / 4),
                reorder_delay: Duration::from_micros(f.max_delay_us),
            },
        )
    });
    let mut buf = RecvBuffer::new();
    let mut read_timeout = ReadTimeout::default();
    // The end of the previous turn: recent enough for the socket role's millisecond decisions,
    // and one clock read per datagram less.
    let mut turn_end = Instant::now();
    let mut feds: Vec<Arc<FedChannel>> = Vec::new();
    while !shared.shutdown.load(Ordering::Relaxed) {
        let receiving = match shared.borrowing.data_turn(turn_end) {
            DataTurn::Receive { restore_blocking } => {
                if restore_blocking && let Err(e) = sock.set_nonblocking(false) {
                    tracing::warn!("data socket back to blocking mode: {e}");
                }
                true
            }
            // An application thread reads the socket: run the timers only.
            DataTurn::Yielded | DataTurn::Timers => {
                shared.borrowing.data_thread_sleep(read_timeout.current());
                false
            }
        };
        // One clock read per turn: the datagram's arrival time serves its handling, the timers
        // (millisecond scale) and the next turn's socket-role decision; the microseconds the
        // handling takes do not matter to any of them.
        let got = receiving.then(|| buf.recv_datagram(&sock));
        let now = Instant::now();
        if let Some(got) = got {
            match got {
                Ok((dgram, dst)) => {
                    shared.datagram_in(dgram.len(), false);
                    match fault.as_mut() {
                        Some(f) => {
                            count_destination(&shared, &dgram, dst);
                            f.inject(now, dgram);
                        }
                        None => route(&shared, now, dgram, dst),
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => {
                    tracing::debug!("data socket receive error: {e}");
                }
            }
        }
        let mut next: Option<Instant> = None;
        if let Some(f) = fault.as_mut() {
            while let Some(d) = f.poll(now) {
                route(&shared, now, d, None);
            }
            next = f.next_deadline();
        }
        // A reused list (no allocation per turn), emptied after the turn so a federation left
        // meanwhile is not kept alive by it.
        feds.extend(
            shared
                .federations
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .values()
                .cloned(),
        );
        for fed in &feds {
            // A due receive timer may hand data up (a gap given up, a fell-behind): a turn.
            if lock(&fed.recv).poll_timeout().is_some_and(|t| t <= now) {
                shared.turn(Work::ReceiveTimer {
                    fed: fed.clone(),
                    now,
                });
            }
            next = earliest(next, lock(&fed.recv).poll_timeout());
            // A sender busy on another thread is sending anyway: its timers can wait a little.
            let Ok(mut side) = fed.sender.try_lock() else {
                next = earliest(next, Some(busy_sender_deadline(now)));
                continue;
            };
            if side.timeout_due(now) {
                // Off the send path, on the sender's timer: drop the retransmit copies every
                // receiver has acknowledged (the members lock nests inside the sender's here
                // only; nothing takes them the other way round).
                let acknowledged = if fed.flow.on {
                    lock(&fed.members).delivered_by_all()
                } else {
                    None
                };
                let group = fed.group;
                side.handle_timeout(now, acknowledged, &mut |d: &[u8]| {
                    // A flushed batch counts as data sent (before it leaves); heartbeats do not.
                    if data::peek(d).is_ok_and(|h| h.kind != data::DatagramKind::Heartbeat) {
                        shared.stats.datagrams_out.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = shared.data_send.send_to(d, group);
                });
            }
            // While the federation streams, this wakes often enough to flush batches in time
            // (and so lets `send` start batching at all).
            next = earliest(next, side.poll_timeout(now));
        }
        // Sleep in recv until the earliest timer (the bounds and slack: core::schedule).
        feds.clear();
        if let Some(t) = read_timeout.update(now, next) {
            let _ = sock.set_read_timeout(Some(t));
        }
        // Not receiving, the data thread sleeps at most until its timer too (recv_role).
        turn_end = now;
        shared.data_wake_by_ns.store(
            shared.ns_since_epoch(turn_end + read_timeout.current()),
            Ordering::Relaxed,
        );
        shared.idle();
    }
}

/// Counts a datagram by the group it was sent to (`dst`, when the kernel said) in its
/// federation's [`m::GroupCounters`], for a datagram that is not routed at once (the seeded
/// fault layer holds it first): what the socket received, before any simulated fault.
fn count_destination(shared: &Shared, dgram: &Bytes, dst: Option<Ipv4Addr>) {
    if let (Some(dst), Ok(h)) = (dst, data::peek(dgram))
        && let Some(fed) = shared.federation(h.tag)
    {
        fed.cell_counters.received.count(dst);
    }
}

/// Hands a received datagram to its federation's receive path. `dst`, the group it was sent to,
/// is counted there (`None`: not known, or counted already).
pub(super) fn route(shared: &Shared, now: Instant, dgram: Bytes, dst: Option<Ipv4Addr>) {
    let Ok((tag, sender)) = data::peek(&dgram).map(|h| (h.tag, h.sender)) else {
        shared
            .stats
            .datagrams_unrouted
            .fetch_add(1, Ordering::Relaxed);
        return;
    };
    let Some(fed) = shared.federation(tag) else {
        shared
            .stats
            .datagrams_unrouted
            .fetch_add(1, Ordering::Relaxed);
        return;
    };
    if let Some(dst) = dst {
        fed.cell_counters.received.count(dst);
    }
    if sender == shared.node {
        // Our own, looped back by the kernel: counted and dropped by the receive path, which
        // hands nothing up for it, so no turn of the layer above (whose lock a sender of this
        // process may hold) is needed.
        let mut side = lock(&fed.recv);
        side.handle_datagram(now, dgram);
        let mut events = Vec::new();
        dispatch::drain(&mut side, &mut |o| {
            shared.execute(Some(&fed), o, &mut events)
        });
        drop(side);
        for ev in events {
            shared.emit(ev);
        }
        return;
    }
    // Tells the batching decision that this node is answering, not streaming.
    fed.heard.fetch_add(1, Ordering::Relaxed);
    shared.turn(Work::Datagram { fed, now, dgram });
}
