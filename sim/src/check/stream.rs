//! Transport invariant: each sender's reliable stream is delivered to each member exactly once,
//! in order and byte-identical, from where the sender's stream stood when the two became
//! members — except exactly the messages a `FellBehind` event reported lost (a message counts
//! as lost if any of its fragments' numbers is in a reported range), and messages sent to DDM
//! cell groups, which a receiver passes over when it did not join them (the transport says so
//! with `Skipped`, or by delivering what follows); what reaches a subscriber on the cells is
//! the regions check's to judge. A message on the default group is never passed over.

use std::collections::BTreeMap;

use hlamesh_transport::NodeId;
use hlamesh_transport::core::TransportEvent;

use super::digest;

/// Where a receiver stands in one sender's stream.
#[derive(Clone, Debug)]
struct Position {
    /// The last number delivered (or, before the first, the one before the stream's start).
    after: u64,
}

/// The stream check (see the module docs).
#[derive(Debug, Default)]
pub struct StreamCheck {
    /// Per sender: last number of each reliable message → (numbers it takes, digest, sent to
    /// cell groups).
    sent: BTreeMap<NodeId, BTreeMap<u64, (u64, u64, bool)>>,
    /// Per (receiver, sender) while the sender is a member at the receiver.
    positions: BTreeMap<(NodeId, NodeId), Position>,
    /// Per (receiver, sender): the ranges reported lost.
    lost: BTreeMap<(NodeId, NodeId), Vec<(u64, u64)>>,
    /// Per (receiver, sender): the last number delivered, kept when the two stop being
    /// members of each other (their connection dropped) so a restart can be compared with it.
    last: BTreeMap<(NodeId, NodeId), u64>,
    /// Reliable messages delivered.
    pub delivered: u64,
    /// Fell-behind events.
    pub fell_behind: u64,
}

impl StreamCheck {
    /// `sender` sent a reliable message under `seq` that takes `numbers` numbers (to DDM cell
    /// groups: `to_cells`).
    pub fn sent(
        &mut self,
        sender: NodeId,
        seq: u64,
        numbers: u64,
        bytes: &[u8],
        to_cells: bool,
    ) -> Result<(), String> {
        let s = self.sent.entry(sender).or_default();
        if let Some((&last, _)) = s.iter().next_back()
            && last + numbers != seq
        {
            return Err(format!(
                "{sender} sent reliable message {seq} ({numbers} numbers) after {last}"
            ));
        }
        s.insert(seq, (numbers, digest(bytes), to_cells));
        Ok(())
    }

    /// The first message of `from` after `after` and before `before` that receiver `at` must
    /// not have passed over: on the default group, and not reported lost.
    fn missed(&self, at: NodeId, from: NodeId, after: u64, before: u64) -> Option<u64> {
        let lost = self.lost.get(&(at, from));
        self.sent
            .get(&from)
            .into_iter()
            .flat_map(|s| s.range(after + 1..before))
            .find(|(last, (numbers, _, to_cells))| {
                let first = *last + 1 - numbers;
                !to_cells
                    && !lost.is_some_and(|l| l.iter().any(|(a, b)| *a <= **last && first <= *b))
            })
            .map(|(last, _)| *last)
    }

    /// Whether `node`'s stream, starting again at `at` from `first` after their connection
    /// dropped, skips numbers `at` never got: those messages are lost to it (the state
    /// transfer that follows brings the sender's instances up to date, not their history).
    pub fn restarts_past_a_gap(&self, at: NodeId, node: NodeId, first: u64) -> bool {
        self.last.get(&(at, node)).is_some_and(|l| first > l + 1)
    }

    /// Receiver `at`'s transport hands `ev` up; `first_seq` is where the peer an event names
    /// starts at `at` (for `FederationPeer`).
    pub fn event(
        &mut self,
        at: NodeId,
        ev: &TransportEvent,
        first_seq: Option<u64>,
    ) -> Result<(), String> {
        match ev {
            TransportEvent::FederationPeer { node, joined, .. } => {
                if *joined {
                    let first = first_seq
                        .ok_or_else(|| format!("{at}: member {node} without a stream start"))?;
                    self.positions.insert(
                        (at, *node),
                        Position {
                            after: first.saturating_sub(1),
                        },
                    );
                } else {
                    self.positions.remove(&(at, *node));
                }
            }
            TransportEvent::FellBehind {
                from, first, last, ..
            } => {
                self.fell_behind += 1;
                self.lost
                    .entry((at, *from))
                    .or_default()
                    .push((*first, *last));
            }
            TransportEvent::Skipped { from, through, .. } => {
                let Some(after) = self.positions.get(&(at, *from)).map(|p| p.after) else {
                    return Ok(());
                };
                if let Some(missed) = self.missed(at, *from, after, *through + 1) {
                    return Err(format!(
                        "{at} passed over {from}'s {missed} on the default group (after {after}, \
                         through {through})"
                    ));
                }
                if let Some(p) = self.positions.get_mut(&(at, *from)) {
                    p.after = p.after.max(*through);
                }
            }
            TransportEvent::Data {
                from,
                seq: Some(seq),
                payload,
                ..
            } => {
                self.delivered += 1;
                let pos = self
                    .positions
                    .get_mut(&(at, *from))
                    .ok_or_else(|| format!("{at} delivered {from}'s {seq}, not a member"))?;
                if *seq <= pos.after {
                    return Err(format!(
                        "{at} delivered {from}'s {seq} after {} (twice, or out of order)",
                        pos.after
                    ));
                }
                let sent = self.sent.get(from);
                match sent.and_then(|s| s.get(seq)) {
                    Some((_, d, _)) if *d == digest(payload) => {}
                    Some(_) => return Err(format!("{at} delivered {from}'s {seq} altered")),
                    None => return Err(format!("{at} delivered {from}'s {seq}, never sent")),
                }
                let after = pos.after;
                if let Some(missed) = self.missed(at, *from, after, *seq) {
                    return Err(format!(
                        "{at} delivered {from}'s {seq} but never {missed} (after {after}, none \
                         reported lost)"
                    ));
                }
                if let Some(pos) = self.positions.get_mut(&(at, *from)) {
                    pos.after = *seq;
                }
                self.last.insert((at, *from), *seq);
            }
            _ => {}
        }
        Ok(())
    }
}
