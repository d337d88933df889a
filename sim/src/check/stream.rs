//! Transport invariant: each sender's reliable stream is delivered to each member exactly once,
//! in order and byte-identical, from where the sender's stream stood when the two became
//! members — except exactly the messages a `FellBehind` event reported lost (a message counts
//! as lost if any of its fragments' numbers is in a reported range).

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
    /// Per sender: last number of each reliable message → (numbers it takes, digest).
    sent: BTreeMap<NodeId, BTreeMap<u64, (u64, u64)>>,
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
    /// `sender` sent a reliable message under `seq` that takes `numbers` numbers.
    pub fn sent(
        &mut self,
        sender: NodeId,
        seq: u64,
        numbers: u64,
        bytes: &[u8],
    ) -> Result<(), String> {
        let s = self.sent.entry(sender).or_default();
        if let Some((&last, _)) = s.iter().next_back()
            && last + numbers != seq
        {
            return Err(format!(
                "{sender} sent reliable message {seq} ({numbers} numbers) after {last}"
            ));
        }
        s.insert(seq, (numbers, digest(bytes)));
        Ok(())
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
                    Some((_, d)) if *d == digest(payload) => {}
                    Some(_) => return Err(format!("{at} delivered {from}'s {seq} altered")),
                    None => return Err(format!("{at} delivered {from}'s {seq}, never sent")),
                }
                let lost = self.lost.get(&(at, *from));
                let skipped = sent
                    .into_iter()
                    .flat_map(|s| s.range(pos.after + 1..*seq))
                    .find(|(last, (numbers, _))| {
                        let first = *last + 1 - numbers;
                        !lost.is_some_and(|l| l.iter().any(|(a, b)| *a <= **last && first <= *b))
                    });
                if let Some((missed, _)) = skipped {
                    return Err(format!(
                        "{at} delivered {from}'s {seq} but never {missed} (after {}, none reported lost)",
                        pos.after
                    ));
                }
                pos.after = *seq;
                self.last.insert((at, *from), *seq);
            }
            _ => {}
        }
        Ok(())
    }
}
