//! The mesh: the table of connected peers and the decisions about them — whom to dial, whom to
//! refuse, where a frame for a peer goes, which federations each peer has open, and when a
//! silent peer counts as lost — with no socket and no clock.
//!
//! - **Dialling** ([`Mesh::should_dial`]): exactly one connection per peer pair, so only the node
//!   with the lower id dials, and only a peer that is not connected and whose beacon was
//!   authenticated; then the bounds of [`crate::dial_limits`] (at most so many at a time and per
//!   second, back-off after a failure, a lost peer only once heard again).
//! - **Refusing** ([`Mesh::admit`]): an incoming hello of another protocol version, one that did
//!   not prove the federation secret, or a second connection from a connected peer.
//! - **Frames for a peer** ([`Mesh::route`]): sent on its link if it is connected; held, in order,
//!   if it is not yet (it is being dialled, it dials us, or its beacon has not been heard yet) and
//!   handed back at [`Mesh::register`] to go out before anything newer — bounded in count
//!   ([`MAX_HELD_FRAMES`]) and in age ([`Mesh::handle_timeout`]). A frame a federation sent
//!   ([`Mesh::route_for`]) is dropped if that federation closes here before the peer connects
//!   ([`Mesh::drop_held_of`]): a join request held for a member out of reach must not reach it
//!   after the LRC gave the federation up, or it admits an LRC that is not there.
//! - **Liveness** ([`Mesh::heard`], [`Mesh::handle_timeout`]): a peer not heard for the peer
//!   timeout is reported lost, once.
//! - **Federations of a peer** ([`Mesh::set_federation`]): from its `Joined` and `Left` frames, so
//!   a control message for one federation goes only to peers that have it open.
//!
//! The table is generic over the link `L` — what the shell needs to reach a peer (for
//! [`crate::node`], the QUIC connection and its writer's queue). The mesh stores it and hands it
//! back; it never uses it.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::config::PROTOCOL_VERSION;
use crate::dial_limits::{DialLimits, DialOutcome, DialStats};
use crate::id::{FederationTag, NodeId};

/// Most control frames held for one peer whose connection is not up yet.
pub const MAX_HELD_FRAMES: usize = 65_536;

/// One connected peer.
#[derive(Debug)]
pub struct Peer<L> {
    /// How the shell reaches it.
    pub link: L,
    /// Its address.
    pub addr: SocketAddr,
    /// The federations it told us it has open.
    pub federations: HashSet<FederationTag>,
    last_heard: Instant,
    /// Reported lost already (not again until heard).
    reported: bool,
}

/// Encoded frames for a peer that is not connected yet (each with the federation that sent it,
/// if one did), and when the first was held.
#[derive(Debug)]
struct Held {
    since: Instant,
    frames: Vec<(Option<FederationTag>, Vec<u8>)>,
}

/// Why an incoming connection is refused (see [`Mesh::admit`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// It speaks another protocol version.
    #[error("node {node} speaks protocol version {version}, we speak {PROTOCOL_VERSION}")]
    Version {
        /// The peer.
        node: NodeId,
        /// Its version.
        version: u16,
    },
    /// Its hello did not prove the federation secret (development mode).
    #[error("node {node} did not prove the federation secret")]
    Proof {
        /// The peer.
        node: NodeId,
    },
    /// It is connected already: exactly one connection per peer pair.
    #[error("duplicate connection from node {node}")]
    Duplicate {
        /// The peer.
        node: NodeId,
    },
}

/// A frame for a peer that is neither connected nor may be held any more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{MAX_HELD_FRAMES} frames are already held for node {0}, which is not connected")]
pub struct HeldFull(pub NodeId);

/// Where [`Mesh::route`] put a frame.
#[derive(Debug)]
pub enum Route<'a, L> {
    /// The peer is connected: send the bytes on its link.
    Send(&'a L, Vec<u8>),
    /// The peer is not connected yet: the bytes wait for [`Mesh::register`].
    Held,
}

/// What [`Mesh::handle_timeout`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Expired {
    /// Peers silent longer than the peer timeout (each reported once).
    pub lost: Vec<NodeId>,
    /// Peers that never connected, with how many frames held for them were dropped.
    pub dropped_held: Vec<(NodeId, usize)>,
}

/// The peer table and its policies (see the module docs).
#[derive(Debug)]
pub struct Mesh<L> {
    me: NodeId,
    peer_timeout: Duration,
    /// Frames held for a peer that does not connect are dropped after this long.
    held_max_age: Duration,
    peers: HashMap<NodeId, Peer<L>>,
    held: HashMap<NodeId, Held>,
    dials: DialLimits,
}

impl<L> Mesh<L> {
    /// The mesh of node `me`: a peer not heard for `peer_timeout` is lost.
    pub fn new(me: NodeId, peer_timeout: Duration) -> Mesh<L> {
        Mesh {
            me,
            peer_timeout,
            held_max_age: (peer_timeout * 5).max(Duration::from_secs(5)),
            peers: HashMap::new(),
            held: HashMap::new(),
            dials: DialLimits::new(),
        }
    }

    /// Whether to dial `node` now, whose latest authenticated beacon was heard at
    /// `beacon_heard` (`None`: no authenticated beacon of it is known). `true` records the dial
    /// as started: report its end with [`Mesh::dial_finished`].
    pub fn should_dial(
        &mut self,
        now: Instant,
        node: NodeId,
        beacon_heard: Option<Instant>,
    ) -> bool {
        if node <= self.me || self.peers.contains_key(&node) {
            return false; // the lower id dials, once
        }
        let Some(heard) = beacon_heard else {
            return false; // only authenticated beacons are in the discovery table
        };
        self.dials.start(now, node, heard).is_ok()
    }

    /// A dial started by [`Mesh::should_dial`] ended.
    pub fn dial_finished(&mut self, now: Instant, node: NodeId, outcome: DialOutcome) {
        self.dials.finished(now, node, outcome);
    }

    /// `node` expired from the discovery table: forget its dial history.
    pub fn forget(&mut self, node: NodeId) {
        self.dials.forget(node);
    }

    /// Dial counters, and how many dials are in flight now.
    pub fn dial_stats(&self) -> (DialStats, usize) {
        (self.dials.stats(), self.dials.in_flight())
    }

    /// Whether to accept `node`'s hello: its protocol `version`, whether its proof of the
    /// federation secret checked out, and whether it is connected already.
    pub fn admit(&self, node: NodeId, version: u16, proof_ok: bool) -> Result<(), Refusal> {
        if version != PROTOCOL_VERSION {
            Err(Refusal::Version { node, version })
        } else if !proof_ok {
            Err(Refusal::Proof { node })
        } else if self.peers.contains_key(&node) {
            Err(Refusal::Duplicate { node })
        } else {
            Ok(())
        }
    }

    /// `node` connected (its handshake is done) at `addr`, reached through `link`. Returns the
    /// frames held for it, oldest first, to send on `link` before any other (the caller does so
    /// before it lets go of the mesh, so nothing overtakes them); or gives `link` back when
    /// `node` is connected already.
    pub fn register(
        &mut self,
        now: Instant,
        node: NodeId,
        addr: SocketAddr,
        link: L,
    ) -> Result<Vec<Vec<u8>>, L> {
        if self.peers.contains_key(&node) {
            return Err(link);
        }
        self.peers.insert(
            node,
            Peer {
                link,
                addr,
                federations: HashSet::new(),
                last_heard: now,
                reported: false,
            },
        );
        Ok(self
            .held
            .remove(&node)
            .map(|h| h.frames.into_iter().map(|(_, f)| f).collect())
            .unwrap_or_default())
    }

    /// `node` is gone (it said goodbye, its connection ended, or it was lost): removed, and not
    /// dialled again before a beacon heard after `now` says it is alive.
    pub fn remove(&mut self, now: Instant, node: NodeId) -> Option<Peer<L>> {
        let peer = self.peers.remove(&node)?;
        self.dials.lost(now, node);
        Some(peer)
    }

    /// Where an encoded frame for `node` goes: its link, or the held frames while it is not
    /// connected. Held even before discovery heard the peer: the layer above only addresses
    /// nodes it learned of from a federation, and a decision may outrun the peer's first beacon.
    pub fn route(
        &mut self,
        now: Instant,
        node: NodeId,
        bytes: Vec<u8>,
    ) -> Result<Route<'_, L>, HeldFull> {
        self.route_for(now, node, bytes, None)
    }

    /// As [`Mesh::route`], for a frame federation `federation` sent: held, it is dropped if that
    /// federation closes here first ([`Mesh::drop_held_of`]).
    pub fn route_for(
        &mut self,
        now: Instant,
        node: NodeId,
        bytes: Vec<u8>,
        federation: Option<FederationTag>,
    ) -> Result<Route<'_, L>, HeldFull> {
        if let Some(p) = self.peers.get(&node) {
            return Ok(Route::Send(&p.link, bytes));
        }
        let held = self.held.entry(node).or_insert_with(|| Held {
            since: now,
            frames: Vec::new(),
        });
        if held.frames.len() >= MAX_HELD_FRAMES {
            return Err(HeldFull(node));
        }
        held.frames.push((federation, bytes));
        Ok(Route::Held)
    }

    /// Federation `tag` closed here: the frames it sent that are still held for peers not
    /// connected yet are dropped (returns how many). Sent later, a request of a federation
    /// this node gave up would be answered as if it were still there.
    pub fn drop_held_of(&mut self, tag: FederationTag) -> usize {
        let mut dropped = 0;
        self.held.retain(|_, h| {
            let before = h.frames.len();
            h.frames.retain(|(f, _)| *f != Some(tag));
            dropped += before - h.frames.len();
            !h.frames.is_empty()
        });
        dropped
    }

    /// Something arrived from `node` at `now`.
    pub fn heard(&mut self, now: Instant, node: NodeId) {
        if let Some(p) = self.peers.get_mut(&node) {
            p.last_heard = p.last_heard.max(now);
            p.reported = false;
        }
    }

    /// `node` opened (`open = true`) or closed federation `tag`'s data channel.
    pub fn set_federation(&mut self, node: NodeId, tag: FederationTag, open: bool) {
        if let Some(p) = self.peers.get_mut(&node) {
            if open {
                p.federations.insert(tag);
            } else {
                p.federations.remove(&tag);
            }
        }
    }

    /// The liveness check: peers silent longer than the peer timeout (each reported once, not
    /// again until heard; the caller removes them), and frames held too long for peers that
    /// never connected (dropped).
    pub fn handle_timeout(&mut self, now: Instant) -> Expired {
        let mut out = Expired::default();
        let max_age = self.held_max_age;
        self.held.retain(|node, h| {
            let keep = now.saturating_duration_since(h.since) <= max_age;
            if !keep {
                out.dropped_held.push((*node, h.frames.len()));
            }
            keep
        });
        for (node, p) in &mut self.peers {
            if !p.reported && now.saturating_duration_since(p.last_heard) > self.peer_timeout {
                p.reported = true;
                out.lost.push(*node);
            }
        }
        out.lost.sort();
        out
    }

    /// Whether `node` is connected.
    pub fn contains_key(&self, node: &NodeId) -> bool {
        self.peers.contains_key(node)
    }

    /// The connected peers.
    pub fn iter(&self) -> impl Iterator<Item = (&NodeId, &Peer<L>)> {
        self.peers.iter()
    }

    /// The connected peers' ids.
    pub fn keys(&self) -> impl Iterator<Item = &NodeId> {
        self.peers.keys()
    }

    /// The connected peers' links.
    pub fn values(&self) -> impl Iterator<Item = &L> {
        self.peers.values().map(|p| &p.link)
    }

    /// Connected peers that have federation `tag` open (all of them for `None`), with their links.
    pub fn in_federation(&self, tag: Option<FederationTag>) -> impl Iterator<Item = &L> {
        self.peers
            .values()
            .filter(move |p| tag.is_none_or(|t| p.federations.contains(&t)))
            .map(|p| &p.link)
    }
}

#[cfg(test)]
mod tests {
    //! The mesh's decisions driven with node ids and time alone (the link is a plain label).

    use super::*;
    use crate::dial_limits::MAX_IN_FLIGHT;

    const ME: NodeId = NodeId(100);
    const TIMEOUT: Duration = Duration::from_secs(3);

    fn addr() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 4433))
    }

    fn mesh() -> (Instant, Mesh<&'static str>) {
        (Instant::now(), Mesh::new(ME, TIMEOUT))
    }

    fn ms(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn only_the_lower_id_dials_an_authenticated_unconnected_peer_once() {
        let (t0, mut m) = mesh();
        // A higher id dials us, not we it.
        assert!(!m.should_dial(t0, NodeId(50), Some(t0)));
        assert!(!m.should_dial(t0, ME, Some(t0)));
        // No authenticated beacon: never dialled.
        assert!(!m.should_dial(t0, NodeId(200), None));
        assert!(m.should_dial(t0, NodeId(200), Some(t0)));
        // In flight: not again.
        assert!(!m.should_dial(t0, NodeId(200), Some(t0)));
        m.dial_finished(ms(t0, 10), NodeId(200), DialOutcome::Connected);
        m.register(ms(t0, 10), NodeId(200), addr(), "l200")
            .expect("first registration");
        // Connected: not dialled.
        assert!(!m.should_dial(ms(t0, 20), NodeId(200), Some(ms(t0, 20))));
        assert_eq!(m.dial_stats().0.connected, 1);
    }

    #[test]
    fn dials_are_bounded_in_flight_and_a_refused_peer_backs_off() {
        let (t0, mut m) = mesh();
        let started = (1..=20u64)
            .filter(|i| m.should_dial(t0, NodeId(ME.0 + i), Some(t0)))
            .count();
        assert_eq!(started, MAX_IN_FLIGHT);
        assert_eq!(m.dial_stats().1, MAX_IN_FLIGHT);
        m.dial_finished(ms(t0, 5), NodeId(ME.0 + 1), DialOutcome::Refused);
        // Backing off: a fresh beacon does not bring a dial at once.
        assert!(!m.should_dial(ms(t0, 10), NodeId(ME.0 + 1), Some(ms(t0, 10))));
        assert!(m.should_dial(ms(t0, 60_000), NodeId(ME.0 + 1), Some(ms(t0, 60_000))));
    }

    #[test]
    fn a_lost_peer_is_dialled_again_only_once_heard_after_the_loss() {
        let (t0, mut m) = mesh();
        let p = NodeId(300);
        assert!(m.should_dial(t0, p, Some(t0)));
        m.dial_finished(t0, p, DialOutcome::Connected);
        m.register(t0, p, addr(), "l300").expect("registered");
        assert!(m.remove(ms(t0, 1_000), p).is_some());
        // Its last beacon is older than the loss.
        assert!(!m.should_dial(ms(t0, 2_000), p, Some(ms(t0, 500))));
        assert!(m.should_dial(ms(t0, 2_000), p, Some(ms(t0, 1_500))));
    }

    #[test]
    fn hellos_are_refused_for_version_proof_and_duplicates() {
        let (t0, mut m) = mesh();
        let p = NodeId(7);
        assert_eq!(
            m.admit(p, PROTOCOL_VERSION + 1, true),
            Err(Refusal::Version {
                node: p,
                version: PROTOCOL_VERSION + 1
            })
        );
        assert_eq!(
            m.admit(p, PROTOCOL_VERSION, false),
            Err(Refusal::Proof { node: p })
        );
        assert_eq!(m.admit(p, PROTOCOL_VERSION, true), Ok(()));
        m.register(t0, p, addr(), "first").expect("registered");
        assert_eq!(
            m.admit(p, PROTOCOL_VERSION, true),
            Err(Refusal::Duplicate { node: p })
        );
        // A second registration (a race past the hello check) gives its link back.
        assert_eq!(m.register(t0, p, addr(), "second"), Err("second"));
        assert!(
            Refusal::Duplicate { node: p }
                .to_string()
                .contains("duplicate connection")
        );
    }

    #[test]
    fn frames_for_an_unconnected_peer_are_held_in_order_and_flushed_at_registration() {
        let (t0, mut m) = mesh();
        let p = NodeId(9);
        for b in [b"one", b"two"] {
            assert!(matches!(m.route(t0, p, b.to_vec()), Ok(Route::Held)));
        }
        let held = m
            .register(ms(t0, 5), p, addr(), "link")
            .expect("registered");
        assert_eq!(held, vec![b"one".to_vec(), b"two".to_vec()]);
        match m.route(ms(t0, 6), p, b"three".to_vec()) {
            Ok(Route::Send(link, bytes)) => {
                assert_eq!(*link, "link");
                assert_eq!(bytes, b"three");
            }
            other => panic!("expected a send, got {other:?}"),
        }
    }

    /// Unified simulator, joiner sweep, seed 4546: an LRC's join request held for a member out
    /// of reach (a partition) went out when the connection came up, after the LRC had been
    /// evicted and had closed the federation; the member admitted it, and its federate stayed
    /// in the view for good. What a closed federation sent is dropped; the rest stays, in order.
    #[test]
    fn frames_a_closed_federation_sent_are_not_held_any_more() {
        let (t0, mut m) = mesh();
        let (p, q) = (NodeId(9), NodeId(10));
        let (a, b) = (FederationTag(1), FederationTag(2));
        for (node, fed, bytes) in [
            (p, Some(a), b"a1"),
            (p, None, b"n1"),
            (p, Some(b), b"b1"),
            (q, Some(a), b"a2"),
            (p, Some(a), b"a3"),
        ] {
            assert!(matches!(
                m.route_for(t0, node, bytes.to_vec(), fed),
                Ok(Route::Held)
            ));
        }
        assert_eq!(m.drop_held_of(a), 3);
        assert_eq!(m.drop_held_of(a), 0, "nothing of it is left");
        let held = m
            .register(ms(t0, 5), p, addr(), "link")
            .expect("registered");
        assert_eq!(held, vec![b"n1".to_vec(), b"b1".to_vec()]);
        let held = m
            .register(ms(t0, 5), q, addr(), "link")
            .expect("registered");
        assert!(held.is_empty(), "{held:?}");
    }

    #[test]
    fn held_frames_are_bounded_in_count_and_in_age() {
        let (t0, mut m) = mesh();
        let p = NodeId(11);
        for _ in 0..MAX_HELD_FRAMES {
            assert!(m.route(t0, p, vec![0]).is_ok());
        }
        assert!(matches!(m.route(t0, p, vec![0]), Err(HeldFull(n)) if n == p));
        let young = m.handle_timeout(ms(t0, 1_000));
        assert!(young.dropped_held.is_empty());
        let old = m.handle_timeout(t0 + TIMEOUT * 5 + Duration::from_millis(1));
        assert_eq!(old.dropped_held, vec![(p, MAX_HELD_FRAMES)]);
        // Nothing is handed over once dropped.
        assert_eq!(
            m.register(t0 + TIMEOUT * 6, p, addr(), "late"),
            Ok(Vec::new())
        );
    }

    #[test]
    fn a_silent_peer_is_reported_lost_once_until_heard_again() {
        let (t0, mut m) = mesh();
        let (a, b) = (NodeId(21), NodeId(22));
        m.register(t0, a, addr(), "a").expect("a");
        m.register(t0, b, addr(), "b").expect("b");
        m.heard(ms(t0, 2_000), b);
        assert_eq!(m.handle_timeout(ms(t0, 3_000)).lost, Vec::<NodeId>::new());
        assert_eq!(m.handle_timeout(ms(t0, 3_001)).lost, vec![a]);
        assert_eq!(m.handle_timeout(ms(t0, 3_500)).lost, Vec::<NodeId>::new());
        assert_eq!(m.handle_timeout(ms(t0, 5_001)).lost, vec![b]);
        m.heard(ms(t0, 6_000), a);
        assert_eq!(m.handle_timeout(ms(t0, 9_001)).lost, vec![a]);
    }

    #[test]
    fn control_messages_of_a_federation_go_to_the_peers_that_have_it_open() {
        let (t0, mut m) = mesh();
        let fed = FederationTag::from_name("F");
        m.register(t0, NodeId(31), addr(), "in").expect("31");
        m.register(t0, NodeId(32), addr(), "out").expect("32");
        m.set_federation(NodeId(31), fed, true);
        m.set_federation(NodeId(32), fed, true);
        m.set_federation(NodeId(32), fed, false);
        assert_eq!(m.in_federation(Some(fed)).collect::<Vec<_>>(), vec![&"in"]);
        assert_eq!(m.in_federation(None).count(), 2);
    }
}
