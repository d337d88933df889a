//! A federation's data channel as the application sees it ([`FederationChannel`]): sends on
//! the caller's thread, flow control's wait for room, and what the channel's parts report.

use super::*;

/// The cell groups a message goes to, with their chain group ids (see
/// [`crate::data::chain`]).
type CellTargets = (Vec<Ipv4Addr>, Vec<crate::data::chain::GroupId>);

/// A federation's data channel on this node: send reliable or best-effort messages on the
/// federation's multicast group from the caller's thread.
#[derive(Clone)]
pub struct FederationChannel {
    pub(super) fed: Arc<FedChannel>,
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for FederationChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FederationChannel")
            .field("name", &self.fed.name)
            .field("group", &self.fed.group)
            .finish()
    }
}

impl FederationChannel {
    /// Notes something about the federation for this node's beacons to announce beside its
    /// name ([`crate::discovery::Beacon::notes`]; the LRC notes the logical time
    /// implementation). A changed note goes out with the next beacon, soon.
    pub fn set_note(&self, note: &str) {
        let changed = {
            let mut n = lock(&self.fed.note);
            let changed = *n != note;
            if changed {
                *n = note.to_string();
            }
            changed
        };
        if changed {
            self.shared.beacon_now.notify_one();
        }
    }

    /// The federation's wire tag.
    pub fn tag(&self) -> FederationTag {
        self.fed.tag
    }

    /// The multicast group carrying its data.
    pub fn group(&self) -> SocketAddrV4 {
        self.fed.group
    }

    /// The federation key (to hand to a joining member over an authenticated channel).
    pub fn key(&self) -> &FederationKey {
        &self.fed.key
    }

    /// Sends one message; returns its sequence number if reliable. Runs on the caller's thread.
    ///
    /// Batching is automatic: a message after a pause leaves at once, in its own datagram; while
    /// the caller streams (sends back to back), small messages are packed into a pending datagram
    /// that leaves when full, on [`FederationChannel::flush`], before a control message tagged
    /// with this federation, or at the latest `max_batch_delay` (1 ms) later from the data
    /// thread. [`FederationChannel::set_batching`] turns it off.
    pub fn send(
        &self,
        reliability: Reliability,
        payload: &[u8],
    ) -> Result<Option<u64>, TransportError> {
        self.send_as(reliability, payload, false)
    }

    /// Sends one message that may wait for the next one: it goes into the pending datagram, and
    /// the next message this channel sends, of the same reliability and if it fits, leaves in
    /// the same datagram; the data thread sends it alone `max_batch_delay` (1 ms) later if no
    /// message follows. For a message the receivers gain nothing from before the next one
    /// (the LRC holds a regulating federate's timestamped update for the time-advance request
    /// that follows it). Sent at once, like [`FederationChannel::send`], when batching is off or
    /// when the data thread would not wake in time to send it.
    pub fn send_held(
        &self,
        reliability: Reliability,
        payload: &[u8],
    ) -> Result<Option<u64>, TransportError> {
        self.send_as(reliability, payload, true)
    }

    /// Sends one reliable message the caller numbered itself (`number`: the number the stream
    /// gives it, its last fragment's — see [`crate::data::DataConfig::reliable_numbers`]), like
    /// [`FederationChannel::send`] (or [`FederationChannel::send_held`] with `hold`). Nothing
    /// is sent, and [`crate::data::SendError::OutOfSequence`] returned and counted, if the
    /// stream would number it otherwise: a caller's count never drifts from the stream
    /// unnoticed.
    pub fn send_numbered(
        &self,
        number: u64,
        payload: &[u8],
        hold: bool,
    ) -> Result<u64, TransportError> {
        let seq = self.send_with(Reliability::Reliable, payload, hold, Some(Seq(number)))?;
        Ok(seq.unwrap_or(number))
    }

    /// How this channel numbers reliable messages: (largest payload sent whole, payload per
    /// fragment); see [`crate::data::DataConfig::reliable_numbers`].
    pub fn numbering(&self) -> (usize, usize) {
        let cfg = self.shared.data_config();
        (cfg.reliable_max_whole(), cfg.reliable_fragment())
    }

    fn send_as(
        &self,
        reliability: Reliability,
        payload: &[u8],
        hold: bool,
    ) -> Result<Option<u64>, TransportError> {
        self.send_with(reliability, payload, hold, None)
    }

    fn send_with(
        &self,
        reliability: Reliability,
        payload: &[u8],
        hold: bool,
        number: Option<Seq>,
    ) -> Result<Option<u64>, TransportError> {
        if payload.len() > self.shared.cfg.max_message {
            return Err(TransportError::MessageTooLarge {
                size: payload.len(),
                max: self.shared.cfg.max_message,
            });
        }
        let now = Instant::now();
        let msg = Outgoing {
            reliability,
            payload,
            hold,
            heard: self.fed.heard.load(Ordering::Relaxed),
            timer_by: self.shared.data_wake_by(),
            number,
        };
        let mut side = lock(&self.fed.sender);
        let (seq, sent) = self
            .shared
            .emit_data(&self.fed, |mut out| side.send(now, msg, &mut out));
        side.sent(now, (sent > 0).then(Instant::now));
        drop(side);
        let seq = seq?;
        if let Some(s) = seq
            && self.fed.flow.on
        {
            lock(&self.fed.members).on_sent(s.0, payload.len());
        }
        self.fed.sent.sent(reliability);
        Ok(seq.map(|s| s.0))
    }

    /// Sends one best-effort message with DDM regions (an update, or an interaction sent with
    /// regions) whose regions cover the cells `cells` (cell keys, see [`crate::core::cells`]):
    /// one datagram to each distinct cell group they map to, every copy with the same number from
    /// this node's cell number space ([`crate::data::DatagramKind::CellBestEffort`]; a receiver
    /// in several of them delivers it once, and one in none of them sees no gap in this node's
    /// default-group best-effort numbers), never batched with other messages. With no cell, or
    /// more distinct groups than `max_cells_per_send` (counted as a fallback), it goes to the
    /// default group like [`FederationChannel::send`]. Runs on the caller's thread.
    pub fn send_to_cells(&self, payload: &[u8], cells: &[u32]) -> Result<(), TransportError> {
        let Some((groups, _)) = self.cell_route(payload, cells)? else {
            return self.send(Reliability::BestEffort, payload).map(|_| ());
        };
        let now = Instant::now();
        let mut side = lock(&self.fed.sender);
        // What is pending belongs to the default group: it leaves first, there.
        self.shared
            .emit_data(&self.fed, |mut out| side.flush(now, &mut out));
        let (r, sent) = self
            .shared
            .emit_data_to(&groups, |mut out| side.send_cells(now, payload, &mut out));
        side.sent(now, (sent > 0).then(Instant::now));
        drop(side);
        r?;
        self.fed.sent.sent(Reliability::BestEffort);
        let c = &self.fed.cell_counters;
        c.messages.fetch_add(1, Ordering::Relaxed);
        c.datagrams.fetch_add(sent, Ordering::Relaxed);
        Ok(())
    }

    /// Sends one reliable message with DDM regions whose regions cover the cells `cells` (cell
    /// keys, see [`crate::core::cells`]): one copy of each of its datagrams to each distinct
    /// cell group they map to, each with a chain header ([`crate::data::chain`]) that lets a
    /// receiver in some of the groups know which of this node's reliable positions it is due.
    /// It takes its position in this node's one reliable stream, is repaired on NACK like any
    /// reliable message, and counts in the flow window. With no cell, or more distinct groups
    /// than `max_cells_per_send`, or while a member cannot join its cell groups, it goes to the
    /// default group like [`FederationChannel::send_numbered`] (or `send` without `number`).
    /// Runs on the caller's thread; returns the message's sequence number.
    pub fn send_reliable_to_cells(
        &self,
        payload: &[u8],
        cells: &[u32],
        number: Option<u64>,
    ) -> Result<u64, TransportError> {
        let Some((groups, ids)) = self.cell_route(payload, cells)? else {
            let seq = self.send_with(Reliability::Reliable, payload, false, number.map(Seq))?;
            return Ok(seq.unwrap_or_default());
        };
        let now = Instant::now();
        let mut side = lock(&self.fed.sender);
        // What is pending belongs to the default group: it leaves first, there.
        self.shared
            .emit_data(&self.fed, |mut out| side.flush(now, &mut out));
        let (r, sent) = self.shared.emit_data_to(&groups, |mut out| {
            side.send_reliable_cells(now, &ids, payload, number.map(Seq), &mut out)
        });
        side.sent(now, (sent > 0).then(Instant::now));
        drop(side);
        let seq = r?;
        if self.fed.flow.on {
            lock(&self.fed.members).on_sent(seq.0, payload.len());
        }
        self.fed.sent.sent(Reliability::Reliable);
        let c = &self.fed.cell_counters;
        c.messages.fetch_add(1, Ordering::Relaxed);
        c.datagrams.fetch_add(sent, Ordering::Relaxed);
        Ok(seq.0)
    }

    /// Where a message for cells `cells` goes: the cell groups and their chain group ids, or
    /// `None` for the default group (counted as a fallback when it had cells). A message too
    /// large is refused.
    fn cell_route(
        &self,
        payload: &[u8],
        cells: &[u32],
    ) -> Result<Option<CellTargets>, TransportError> {
        if payload.len() > self.shared.cfg.max_message {
            return Err(TransportError::MessageTooLarge {
                size: payload.len(),
                max: self.shared.cfg.max_message,
            });
        }
        let c = lock(&self.fed.cells);
        match c.route(cells) {
            CellRoute::Groups(g) => {
                let ids = g.iter().filter_map(|a| c.group_id(*a)).collect();
                Ok(Some((g, ids)))
            }
            CellRoute::Default { fallback } => {
                let counters = &self.fed.cell_counters;
                match fallback {
                    Some(Fallback::WideRegion) => {
                        counters.wide_fallbacks.fetch_add(1, Ordering::Relaxed)
                    }
                    Some(Fallback::MemberCannotJoin) => {
                        counters.member_fallbacks.fetch_add(1, Ordering::Relaxed)
                    }
                    None => 0,
                };
                Ok(None)
            }
        }
    }

    /// The cells this node's region subscriptions want are now `cells` (cell keys, see
    /// [`crate::core::cells`]; the layer above applies the join and leave margins): joins the
    /// cell groups newly needed, then leaves those no longer needed. A join the kernel refuses
    /// is counted and logged (see `docs/DDM.md`, "Resolution and limits") and tried again at
    /// the next change.
    pub fn set_cells(&self, cells: &[u32]) {
        let (change, was_missing) = {
            let mut c = lock(&self.fed.cells);
            let was = c.missing();
            (c.want(cells), was)
        };
        let (sock, iface) = (&self.shared.data_recv, self.shared.interface);
        let c = &self.fed.cell_counters;
        for g in change.join {
            match sockets::join(sock, g, iface) {
                Ok(()) => {
                    c.joined.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => {
                    lock(&self.fed.cells).join_failed(g);
                    c.join_failures.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(
                        federation = %self.fed.name,
                        "cannot join DDM cell group {g}: {e}; raise net.ipv4.igmp_max_memberships \
                         or lower max_joined_cells"
                    );
                }
            }
        }
        for g in change.leave {
            match sockets::leave(sock, g, iface) {
                Ok(()) => {
                    c.left.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => tracing::debug!(federation = %self.fed.name, "leave {g}: {e}"),
            }
        }
        // Reliable positions of the groups joined now are due from here on; those of the
        // groups left are not any more.
        let ids = lock(&self.fed.cells).joined_ids();
        lock(&self.fed.recv).set_groups(Instant::now(), &ids);
        // A receiver never gets less than it asked for: while a wanted group is not joined, the
        // members send cell messages on the default group (`crate::core::cells`). Members that
        // join later learn it from the answer to their `Joined`.
        let missing = lock(&self.fed.cells).missing();
        if missing != was_missing {
            if missing {
                tracing::warn!(
                    federation = %self.fed.name,
                    "asking the members for DDM cell traffic on the default group until the \
                     refused joins succeed"
                );
            } else {
                tracing::info!(federation = %self.fed.name, "every wanted DDM cell group joined");
            }
            let frame = Frame::CellFallback {
                tag: self.fed.tag,
                on: missing,
            };
            let members = lock(&self.fed.members).members();
            for p in members {
                let _ = self.shared.send_frame(p, &frame);
            }
        }
    }

    /// The DDM grid's cells per dimension (`cells_per_dimension`), 0 when this federation has
    /// no cell groups (`max_joined_cells` 0, or a fixed `data_group`): then the layer above
    /// need not compute cells at all.
    pub fn cells_per_dimension(&self) -> u32 {
        if lock(&self.fed.cells).slot_count() == 0 {
            0
        } else {
            self.shared.cfg.cells_per_dimension
        }
    }

    /// The DDM cell-group counters of this federation on this node.
    pub fn cell_stats(&self) -> crate::metrics::CellStats {
        self.fed.cell_stats()
    }

    /// Flow control: whether a reliable message may be sent now without waiting (always, with
    /// flow control off). Cheap: for a check under another lock, before
    /// [`FederationChannel::wait_for_room`].
    pub fn has_room(&self) -> bool {
        !self.fed.flow.on || lock(&self.fed.members).room(Instant::now()) == Room::Open
    }

    /// Flow control: waits while this node's slowest receiver in the federation is more than
    /// the window behind its reliable stream (see [`crate::flow`]). Returns at once when there
    /// is room, when flow control is off, or on the transport's own threads (they must never
    /// wait: acknowledgements arrive through them). Call it with no lock held that a receive
    /// thread may need, before or after a send (`send` itself never waits).
    pub fn wait_for_room(&self) -> FlowWait {
        let flow = &self.fed.flow;
        if !flow.on || on_receive_thread() {
            return FlowWait::Open;
        }
        let start = Instant::now();
        let mut plan = RoomWait::new(start);
        let mut w = lock(&self.fed.members);
        let result = loop {
            let now = Instant::now();
            let room = w.room(now);
            match plan.step(now, room) {
                RoomStep::Done(result) => break result,
                RoomStep::AskForAcks => {
                    drop(w);
                    self.flush();
                    self.shared.ask_for_acks(&self.fed);
                    w = lock(&self.fed.members);
                }
                RoomStep::Sleep(dur) => {
                    w = flow
                        .room
                        .wait_timeout(w, dur)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        };
        drop(w);
        if plan.waited() || result == FlowWait::TimedOut {
            flow.count_wait(start.elapsed());
        }
        result
    }

    /// Sends the pending batch now, if any.
    pub fn flush(&self) {
        let mut side = lock(&self.fed.sender);
        let now = Instant::now();
        self.shared
            .emit_data(&self.fed, |mut out| side.flush(now, &mut out));
    }

    /// Turns automatic batching on (the default) or off (every message in its own datagram at
    /// once, as for measuring the unbatched path). Turning it off flushes the pending batch.
    pub fn set_batching(&self, on: bool) {
        lock(&self.fed.sender).set_batching(on);
        if !on {
            self.flush();
        }
    }

    /// Bytes waiting in the pending batch (0: none).
    pub fn pending_bytes(&self) -> usize {
        lock(&self.fed.sender).pending_bytes()
    }

    /// Whether automatic batching is on.
    pub fn batching(&self) -> bool {
        lock(&self.fed.sender).batching()
    }

    /// The sequence number of the last reliable message sent.
    pub fn high_water(&self) -> u64 {
        lock(&self.fed.sender).high_water()
    }

    /// Peers whose data this node currently accepts in this federation.
    pub fn members(&self) -> Vec<NodeId> {
        lock(&self.fed.members).members()
    }

    /// The first reliable sequence number of member `node`'s stream this node receives, `None`
    /// if `node` is not a member. A peer's stream starts where the peer stood when the two
    /// became channel members (1 if it had sent nothing yet): what it sent before never arrives
    /// here, and the layer above must get that state another way (state transfer).
    pub fn first_seq(&self, node: NodeId) -> Option<u64> {
        lock(&self.fed.members).first_seq(node)
    }

    /// The data plane's receive counters.
    pub fn stats(&self) -> data::RecvStats {
        lock(&self.fed.recv).stats()
    }

    /// Flow-control counters (see [`crate::flow`]).
    pub fn flow_stats(&self) -> crate::metrics::FlowStats {
        self.fed.flow_stats()
    }

    /// The data plane's send counters.
    pub fn send_stats(&self) -> data::SendStats {
        lock(&self.fed.sender).sender().stats()
    }

    /// How many reliable messages from `node` were delivered in order so far.
    pub fn delivered(&self, node: NodeId) -> u64 {
        lock(&self.fed.recv).delivered(node)
    }
}
