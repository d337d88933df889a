//! DDM cell groups of a federation (see `docs/DDM.md`, "Cells: the network filters"): which
//! multicast groups a best-effort message sent with regions goes to, and which groups a
//! receiver joins and leaves. Sans-I/O: the shell (`node/channel.rs`) sends and calls
//! `IP_ADD_MEMBERSHIP` / `IP_DROP_MEMBERSHIP` as told.
//!
//! The layer above names a cell by a **cell key** ([`cell_key`]): a 16-bit routing-space id
//! (derived from the space's dimensions) and the cell's index in that space's grid. A federation
//! has a fixed number of **slots**, `max_joined_cells` (default 16): each key maps to one slot
//! ([`slot_of`]), each slot is one multicast group ([`crate::TransportConfig::cell_group_for`]).
//! So a receiver never needs more than `max_joined_cells` memberships for a federation,
//! whatever its regions cover: several cells sharing a slot only make the kernel's filtering
//! coarser (the receiving LRC filters exactly), never lose a message. The keys of one routing
//! space with at most `max_joined_cells` cells (4 × 4 by default) map to distinct slots.
//!
//! A message whose cells map to more than `max_cells_per_send` distinct groups goes to the
//! default group instead (one datagram rather than many; every member hears the default group).
//!
//! **A join the kernel refuses** (a host past `net.ipv4.igmp_max_memberships`, e.g. a node in
//! many federations) must not cost that receiver the cells it wanted: while any of its wanted
//! slots is not joined ([`CellGroups::missing`]), it tells every member of the federation
//! (`Frame::CellFallback { on: true }`), and a sender that knows of such a member sends its
//! cell messages on the default group instead ([`Fallback::MemberCannotJoin`]), which every
//! member hears; `on: false` when its joins succeed again, or it leaves. The federation falls
//! back to one large cell, the kernel filters nothing more for it, and the receiving LRCs
//! still filter exactly. A member learns this state when it joins (the frame follows the
//! answer to its `Joined`).

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use crate::data::chain::GroupId;
use crate::id::NodeId;

/// A cell key: routing space `space` (16 bits) and cell index `cell` (16 bits).
pub fn cell_key(space: u16, cell: u16) -> u32 {
    (u32::from(space) << 16) | u32::from(cell)
}

/// The slot (index of the federation's cell group) of cell key `key` among `slots`. Cells of
/// one space take consecutive slots from a space-dependent start, so a space's first `slots`
/// cells never share a group.
pub fn slot_of(key: u32, slots: u32) -> u32 {
    let slots = slots.max(1);
    let space = key >> 16;
    let cell = key & 0xFFFF;
    // A multiplicative hash of the space spreads different spaces' starts over the slots.
    let start = space.wrapping_mul(0x9E37_79B1) >> 16;
    (start.wrapping_add(cell)) % slots
}

/// Why a message with cells goes to the default group after all (counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Its cells map to more distinct groups than `max_cells_per_send`.
    WideRegion,
    /// A member cannot join some of the cell groups it wants (see the module docs).
    MemberCannotJoin,
}

/// Where one best-effort message sent with regions goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellRoute {
    /// To these groups, one datagram each (distinct, in slot order).
    Groups(Vec<Ipv4Addr>),
    /// To the default group: no cell at all (the message has no region, or there are no
    /// slots), or a [`Fallback`].
    Default {
        /// Why, when the message had cells to go to.
        fallback: Option<Fallback>,
    },
}

/// Groups to join and to leave after the wanted cells changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MembershipChange {
    /// Groups to join now.
    pub join: Vec<Ipv4Addr>,
    /// Groups to leave now.
    pub leave: Vec<Ipv4Addr>,
}

/// One federation's cell groups on this node: the slot addresses, the send limit and the
/// groups joined.
#[derive(Debug, Clone)]
pub struct CellGroups {
    /// The group of each slot.
    slots: Vec<Ipv4Addr>,
    /// The federation's default group (never joined or left here).
    default: Ipv4Addr,
    max_per_send: usize,
    /// Slots joined now.
    joined: BTreeSet<u32>,
    /// Slots this node's subscriptions want (a superset of `joined`: the rest were refused).
    wanted: BTreeSet<u32>,
    /// Members that said they cannot join some cell group they want.
    cannot_join: BTreeSet<NodeId>,
}

impl CellGroups {
    /// The cell groups `slots` (one address per slot) of a federation whose default group is
    /// `default`; a message goes to at most `max_per_send` of them.
    pub fn new(slots: Vec<Ipv4Addr>, default: Ipv4Addr, max_per_send: usize) -> CellGroups {
        CellGroups {
            slots,
            default,
            max_per_send,
            joined: BTreeSet::new(),
            wanted: BTreeSet::new(),
            cannot_join: BTreeSet::new(),
        }
    }

    /// How many slots (groups) the federation has.
    pub fn slot_count(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Where a message for cells `keys` goes.
    pub fn route(&self, keys: &[u32]) -> CellRoute {
        if keys.is_empty() || self.slots.is_empty() {
            return CellRoute::Default { fallback: None };
        }
        if !self.cannot_join.is_empty() {
            return CellRoute::Default {
                fallback: Some(Fallback::MemberCannotJoin),
            };
        }
        let n = self.slot_count();
        let slots: BTreeSet<u32> = keys.iter().map(|k| slot_of(*k, n)).collect();
        if slots.len() > self.max_per_send {
            return CellRoute::Default {
                fallback: Some(Fallback::WideRegion),
            };
        }
        CellRoute::Groups(slots.iter().map(|s| self.slots[*s as usize]).collect())
    }

    /// The cells this node's subscriptions want are now `keys`: the groups to join and leave.
    /// A slot whose address is the default group is never joined (the default group is).
    pub fn want(&mut self, keys: &[u32]) -> MembershipChange {
        let n = self.slot_count();
        let want: BTreeSet<u32> = if n == 0 {
            BTreeSet::new()
        } else {
            keys.iter()
                .map(|k| slot_of(*k, n))
                .filter(|s| self.slots[*s as usize] != self.default)
                .collect()
        };
        let join: Vec<u32> = want.difference(&self.joined).copied().collect();
        let leave: Vec<u32> = self.joined.difference(&want).copied().collect();
        self.joined = want.clone();
        self.wanted = want;
        MembershipChange {
            join: join.iter().map(|s| self.slots[*s as usize]).collect(),
            leave: leave.iter().map(|s| self.slots[*s as usize]).collect(),
        }
    }

    /// A join the kernel refused: the slot of `group` counts as not joined (a later change
    /// tries again).
    pub fn join_failed(&mut self, group: Ipv4Addr) {
        self.joined.retain(|s| self.slots[*s as usize] != group);
    }

    /// Whether a group this node wants is not joined (the kernel refused it): then its peers
    /// must send it cell messages on the default group (see the module docs).
    pub fn missing(&self) -> bool {
        self.wanted.len() > self.joined.len()
    }

    /// Member `node` said it cannot (`on`) or can again (`!on`) join the cell groups it wants.
    pub fn set_member_cannot_join(&mut self, node: NodeId, on: bool) {
        if on {
            self.cannot_join.insert(node);
        } else {
            self.cannot_join.remove(&node);
        }
    }

    /// Member `node` left: whatever it could not join no longer matters.
    pub fn member_gone(&mut self, node: NodeId) {
        self.cannot_join.remove(&node);
    }

    /// Members that cannot join some cell group they want.
    pub fn members_cannot_join(&self) -> usize {
        self.cannot_join.len()
    }

    /// The chain group id of cell group `addr` (its slot + 1; 0 is the default group), as
    /// reliable datagrams name the groups they go to (see [`crate::data::chain`]).
    pub fn group_id(&self, addr: Ipv4Addr) -> Option<GroupId> {
        self.slots
            .iter()
            .position(|a| *a == addr)
            .and_then(|i| u16::try_from(i + 1).ok())
            .map(GroupId)
    }

    /// The chain group ids of the groups joined now.
    pub fn joined_ids(&self) -> Vec<GroupId> {
        self.joined
            .iter()
            .filter_map(|s| u16::try_from(*s + 1).ok())
            .map(GroupId)
            .collect()
    }

    /// The groups joined now.
    pub fn joined(&self) -> Vec<Ipv4Addr> {
        self.joined
            .iter()
            .map(|s| self.slots[*s as usize])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(n: u8) -> CellGroups {
        let slots = (0..n).map(|i| Ipv4Addr::new(239, 255, 1, 10 + i)).collect();
        CellGroups::new(slots, Ipv4Addr::new(239, 255, 1, 9), 4)
    }

    #[test]
    fn the_cells_of_one_space_take_distinct_slots() {
        for space in [0u16, 1, 77, 0xBEEF] {
            let slots: BTreeSet<u32> = (0..16).map(|c| slot_of(cell_key(space, c), 16)).collect();
            assert_eq!(slots.len(), 16, "space {space}");
        }
        // More cells than slots share them: filtering coarser, nothing lost.
        let slots: BTreeSet<u32> = (0..64).map(|c| slot_of(cell_key(3, c), 16)).collect();
        assert_eq!(slots.len(), 16);
    }

    #[test]
    fn a_message_goes_once_to_each_distinct_group_or_to_the_default_group_when_too_wide() {
        let g = groups(16);
        assert_eq!(g.route(&[]), CellRoute::Default { fallback: None });
        let CellRoute::Groups(one) = g.route(&[cell_key(5, 2), cell_key(5, 2)]) else {
            panic!("cells")
        };
        assert_eq!(one.len(), 1);
        let CellRoute::Groups(two) = g.route(&[cell_key(5, 2), cell_key(5, 3)]) else {
            panic!("cells")
        };
        assert_eq!(two.len(), 2);
        let wide: Vec<u32> = (0..5).map(|c| cell_key(5, c)).collect();
        assert_eq!(
            g.route(&wide),
            CellRoute::Default {
                fallback: Some(Fallback::WideRegion)
            }
        );
        // No slots configured: everything on the default group.
        assert_eq!(
            CellGroups::new(Vec::new(), Ipv4Addr::new(239, 255, 1, 9), 4).route(&[1]),
            CellRoute::Default { fallback: None }
        );
    }

    #[test]
    fn a_refused_join_is_missing_until_a_later_change_joins_it() {
        let mut g = groups(16);
        let a = g.want(&[cell_key(1, 0), cell_key(1, 1)]);
        assert!(!g.missing());
        g.join_failed(a.join[1]);
        assert!(g.missing(), "one wanted group is not joined");
        assert_eq!(g.joined(), vec![a.join[0]]);
        // The next change tries it again; this time the kernel takes it.
        let b = g.want(&[cell_key(1, 0), cell_key(1, 1), cell_key(1, 2)]);
        assert_eq!(b.join.len(), 2, "the refused one and the new one: {b:?}");
        assert!(!g.missing());
        // Wanting less than what was refused also ends it.
        let c = g.want(&[cell_key(1, 3)]);
        g.join_failed(c.join[0]);
        assert!(g.missing());
        g.want(&[]);
        assert!(!g.missing());
    }

    #[test]
    fn while_a_member_cannot_join_every_cell_message_goes_to_the_default_group() {
        let mut g = groups(16);
        let cells = [cell_key(5, 2)];
        assert!(matches!(g.route(&cells), CellRoute::Groups(_)));
        g.set_member_cannot_join(NodeId(7), true);
        g.set_member_cannot_join(NodeId(8), true);
        let fallback = CellRoute::Default {
            fallback: Some(Fallback::MemberCannotJoin),
        };
        assert_eq!(g.route(&cells), fallback);
        // A message without cells is no fallback.
        assert_eq!(g.route(&[]), CellRoute::Default { fallback: None });
        g.set_member_cannot_join(NodeId(7), false);
        assert_eq!(g.route(&cells), fallback, "8 still cannot");
        g.member_gone(NodeId(8));
        assert_eq!(g.members_cannot_join(), 0);
        assert!(matches!(g.route(&cells), CellRoute::Groups(_)));
    }

    #[test]
    fn a_receiver_joins_what_it_wants_leaves_what_it_no_longer_wants_and_never_exceeds_the_slots() {
        let mut g = groups(16);
        let a = g.want(&[cell_key(1, 0), cell_key(1, 1)]);
        assert_eq!((a.join.len(), a.leave.len()), (2, 0));
        // The same again: nothing to do.
        assert_eq!(
            g.want(&[cell_key(1, 1), cell_key(1, 0)]),
            MembershipChange::default()
        );
        let b = g.want(&[cell_key(1, 1), cell_key(1, 2)]);
        assert_eq!((b.join.len(), b.leave.len()), (1, 1));
        assert!(a.join.contains(&b.leave[0]) && !g.joined().contains(&b.leave[0]));
        // Every cell of many spaces: at most the slot count.
        let all: Vec<u32> = (0..8u16)
            .flat_map(|s| (0..16u16).map(move |c| cell_key(s, c)))
            .collect();
        g.want(&all);
        assert_eq!(g.joined().len(), 16);
        let none = g.want(&[]);
        assert_eq!(none.leave.len(), 16);
        assert!(g.joined().is_empty());
    }

    #[test]
    fn the_default_group_is_never_joined_or_left_as_a_cell_and_a_failed_join_is_retried() {
        // A slot that coincides with the default group (a fixed range that wrapped around).
        let slots: Vec<Ipv4Addr> = (0..4).map(|i| Ipv4Addr::new(239, 255, 1, 10 + i)).collect();
        let default = slots[0];
        let mut g = CellGroups::new(slots, default, 4);
        let keys: Vec<u32> = (0..4).map(|c| cell_key(0, c)).collect();
        let c = g.want(&keys);
        assert_eq!(c.join.len(), 3);
        assert!(!c.join.contains(&default));
        g.join_failed(c.join[0]);
        assert_eq!(g.want(&keys).join, vec![c.join[0]]);
    }
}
