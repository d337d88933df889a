//! Chained positions: one sender's reliable stream spread over several multicast groups (the
//! federation's default group and DDM cells, see `docs/DDM.md`), so that a receiver in some of
//! the groups knows exactly which positions it is due, asks only for those, and knows up to
//! where it has everything it is due.
//!
//! The sender keeps one position space (its reliable sequence numbers). Each message carries a
//! [`ChainHeader`], the same in every copy of the message whatever group the copy goes to:
//!
//! - `targets`: for each group the message goes to, the position of the sender's previous
//!   frame to that group (0: none);
//! - `floor` and `others`: `others` lists, for every other group whose last position is above
//!   `floor`, that last position; every group not listed (and not a target) had no frame in
//!   `(floor, first)`. [`ChainWriter`] takes `floor` as the lowest `prev` of the targets, so
//!   `others` names exactly the groups used since the message's own groups were last used.
//!
//! A [`Tail`] (in heartbeats and beside control messages) says the same for the positions up to
//! the sender's high-water.
//!
//! [`Chains`] is one receiver's view of one sender: the groups it joined (each from a floor:
//! positions at or below it are not due there), what each header and tail told it, and which
//! positions arrived. A position is **due** when it is known to belong to a joined group above
//! that group's floor; it is **settled** for a group when it arrived or is known not to belong
//! to the group. [`Chains::complete_through`] is the highest position up to which every joined
//! group is settled: every due position up to it has arrived, in any group or by repair, so the
//! receiver may deliver what it holds up to there, in order, and skip the rest.
//! [`Chains::missing`] lists the due positions that have not arrived (to ask for them); it never
//! lists a position of a group the receiver did not join.
//!
//! Why this shape: the existing machinery (NACK and repair by position, acknowledgements, the
//! causal gate, the federation core's stream numbers) keeps working on one position space, and
//! with a single group (no regions) `prev` is always the position before and `others` is empty,
//! which is the plain contiguous stream.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A multicast group of a federation's channel, as the chain header names it: 0 is the
/// federation's own (default) group, which every member joins; others are DDM cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupId(pub u16);

impl GroupId {
    /// The federation's own group.
    pub const DEFAULT: GroupId = GroupId(0);
}

/// What a reliable message says about its sender's groups (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainHeader {
    /// Each group the message goes to, with the sender's previous position in it (0: none).
    pub targets: Vec<(GroupId, u64)>,
    /// Groups not listed in `others` (nor targets) had no frame in `(floor, first)`.
    pub floor: u64,
    /// Each other group whose last position before the message is above `floor`, with it.
    pub others: Vec<(GroupId, u64)>,
}

/// What a sender says about its stream up to its high-water `hw` (heartbeats, control messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The sender's last position.
    pub hw: u64,
    /// Groups not listed in `last` had no frame in `(floor, hw]`.
    pub floor: u64,
    /// Each group whose last position is above `floor`, with it.
    pub last: Vec<(GroupId, u64)>,
}

/// The sender's side: the last position sent to each group.
#[derive(Clone, Debug, Default)]
pub struct ChainWriter {
    last: BTreeMap<GroupId, u64>,
}

impl ChainWriter {
    /// A sender that has sent nothing.
    pub fn new() -> ChainWriter {
        ChainWriter::default()
    }

    /// The header of a message of positions `first..=last` going to `groups` (each once; an
    /// empty list means the default group), and records it as sent.
    pub fn send(&mut self, groups: &[GroupId], first: u64, last: u64) -> ChainHeader {
        let header = self.header(groups);
        debug_assert!(first <= last);
        self.record(&header, last);
        header
    }

    /// Whether a message to the default group alone starting at `first` needs a header: not
    /// when the position before it went to the default group too (or nothing was sent), the
    /// plain stream's rule.
    pub fn plain(&self, first: u64) -> bool {
        // Then `others` is empty too: no group's last position is above `first - 1`.
        self.prev(GroupId::DEFAULT).saturating_add(1) == first
    }

    /// The header of the next message, going to `groups` (an empty list: the default group),
    /// without recording it as sent ([`ChainWriter::record`] does).
    pub fn header(&self, groups: &[GroupId]) -> ChainHeader {
        let mut targets: Vec<(GroupId, u64)> = if groups.is_empty() {
            vec![(GroupId::DEFAULT, self.prev(GroupId::DEFAULT))]
        } else {
            groups.iter().map(|g| (*g, self.prev(*g))).collect()
        };
        targets.sort_unstable();
        targets.dedup_by_key(|(g, _)| *g);
        let floor = targets.iter().map(|(_, p)| *p).min().unwrap_or(0);
        let others = self
            .last
            .iter()
            .filter(|(g, l)| **l > floor && targets.binary_search_by_key(*g, |(t, _)| *t).is_err())
            .map(|(g, l)| (*g, *l))
            .collect();
        ChainHeader {
            targets,
            floor,
            others,
        }
    }

    /// Records a message sent with `header` whose last position is `last`.
    pub fn record(&mut self, header: &ChainHeader, last: u64) {
        for (g, _) in &header.targets {
            self.last.insert(*g, last);
        }
    }

    /// Records that the default group's last frame is now `last` (a datagram of the plain
    /// stream left).
    pub fn record_default(&mut self, last: u64) {
        self.last.insert(GroupId::DEFAULT, last);
    }

    /// What a heartbeat or control message says at high-water `hw` (every group used, since
    /// the number of groups a sender uses is bounded by the federation's cells).
    pub fn tail(&self, hw: u64) -> Tail {
        Tail {
            hw,
            floor: 0,
            last: self.last.iter().map(|(g, l)| (*g, *l)).collect(),
        }
    }

    fn prev(&self, g: GroupId) -> u64 {
        self.last.get(&g).copied().unwrap_or(0)
    }
}

/// Disjoint closed intervals of positions, merged as they touch.
#[derive(Clone, Debug, Default)]
struct Intervals {
    /// start → end, both inclusive.
    spans: BTreeMap<u64, u64>,
}

impl Intervals {
    fn insert(&mut self, mut lo: u64, mut hi: u64) {
        if lo > hi {
            return;
        }
        // Merge with a span that starts before and reaches lo - 1 or beyond.
        if let Some((&s, &e)) = self.spans.range(..=lo).next_back()
            && e.saturating_add(1) >= lo
        {
            if e >= hi {
                return;
            }
            lo = s;
            self.spans.remove(&s);
        }
        // Swallow spans that start inside [lo, hi + 1].
        while let Some((&s, &e)) = self.spans.range(lo..=hi.saturating_add(1)).next() {
            hi = hi.max(e);
            self.spans.remove(&s);
        }
        self.spans.insert(lo, hi);
    }

    /// The end of the span holding `x`, if any.
    fn end_of(&self, x: u64) -> Option<u64> {
        self.spans
            .range(..=x)
            .next_back()
            .and_then(|(_, &e)| (e >= x).then_some(e))
    }

    fn contains(&self, x: u64) -> bool {
        self.end_of(x).is_some()
    }

    /// Drops everything at or below `x`.
    fn prune(&mut self, x: u64) {
        let keep = self.spans.split_off(&x.saturating_add(1));
        if let Some((_, &e)) = self.spans.iter().next_back()
            && e > x
        {
            let mut keep = keep;
            keep.insert(x + 1, e);
            self.spans = keep;
            return;
        }
        self.spans = keep;
    }
}

/// What this receiver knows of one joined group.
#[derive(Clone, Debug)]
struct Group {
    /// Everything up to here arrived, is known not to be in the group, or is at or below the
    /// floor the group was joined with (not due here).
    settled: u64,
    /// Positions known to be in the group (above `settled`).
    member: BTreeSet<u64>,
    /// Positions known not to be in the group (above `settled`).
    absent: Intervals,
    /// Every position up to here is in the group (what a plain stream told: all of it went to
    /// the default group), kept as one number whatever the span.
    prefix: u64,
}

impl Group {
    fn new(floor: u64) -> Group {
        Group {
            settled: floor,
            member: BTreeSet::new(),
            absent: Intervals::default(),
            prefix: 0,
        }
    }

    /// The highest position of the group above `settled` that has not arrived, if any.
    fn top_missing(&self, received: &Intervals) -> Option<u64> {
        let from_members = self
            .member
            .iter()
            .rev()
            .find(|p| !received.contains(**p))
            .copied();
        let mut p = self.prefix;
        let from_prefix = loop {
            if p <= self.settled {
                break None;
            }
            match received.spans.range(..=p).next_back() {
                Some((&s, &e)) if e >= p => p = s.saturating_sub(1),
                _ => break Some(p),
            }
        };
        from_members.max(from_prefix)
    }

    fn advance(&mut self, received: &Intervals) {
        loop {
            let next = self.settled.saturating_add(1);
            let end = if let Some(e) = received.end_of(next) {
                e
            } else if next > self.prefix
                && !self.member.contains(&next)
                && let Some(e) = self.absent.end_of(next)
            {
                e
            } else {
                break;
            };
            self.settled = end;
        }
        let settled = self.settled;
        self.member = self.member.split_off(&settled.saturating_add(1));
        self.absent.prune(settled);
    }
}

/// One receiver's view of one sender's chained stream (see the module docs).
#[derive(Clone, Debug)]
pub struct Chains {
    groups: HashMap<GroupId, Group>,
    /// Positions that arrived (above the lowest `settled` of the groups, kept merged).
    received: Intervals,
    /// The highest position any header or tail named.
    highest: u64,
}

impl Default for Chains {
    fn default() -> Self {
        Chains::new()
    }
}

impl Chains {
    /// A receiver in the default group only, from the sender's first position.
    pub fn new() -> Chains {
        let mut groups = HashMap::new();
        groups.insert(GroupId::DEFAULT, Group::new(0));
        Chains {
            groups,
            received: Intervals::default(),
            highest: 0,
        }
    }

    /// The highest position of the sender that this receiver has heard of: the floor a group
    /// joined now should take (what the sender sent there before may not reach this receiver).
    pub fn highest_known(&self) -> u64 {
        self.highest
    }

    /// Joins `group`: positions of it above `floor` are due from now on. Joining a group
    /// joined already keeps its state.
    pub fn join(&mut self, group: GroupId, floor: u64) {
        self.groups
            .entry(group)
            .or_insert_with(|| Group::new(floor));
        self.settle();
    }

    /// Leaves `group`: nothing of it is due any more (the default group cannot be left).
    pub fn leave(&mut self, group: GroupId) {
        if group != GroupId::DEFAULT {
            self.groups.remove(&group);
            self.settle();
        }
    }

    /// Whether `group` is joined.
    pub fn joined(&self, group: GroupId) -> bool {
        self.groups.contains_key(&group)
    }

    /// A copy of the message of positions `first..=last` arrived (in any group, or by repair)
    /// with `header`. Call it for every copy, duplicates included: each may say something new.
    pub fn on_message(&mut self, first: u64, last: u64, header: &ChainHeader) {
        if first == 0 || first > last {
            return;
        }
        self.received.insert(first, last);
        self.learn(first, last, header);
        self.settle();
    }

    fn learn(&mut self, first: u64, last: u64, header: &ChainHeader) {
        self.highest = self.highest.max(last);
        for (g, prev) in &header.targets {
            if let Some(st) = self.groups.get_mut(g) {
                note_member(st, *prev);
                for p in first.max(st.settled + 1)..=last {
                    st.member.insert(p);
                }
                st.absent.insert(prev.saturating_add(1), first - 1);
            }
        }
        for (g, l) in &header.others {
            if let Some(st) = self.groups.get_mut(g) {
                note_member(st, *l);
                st.absent.insert(l.saturating_add(1), first - 1);
            }
        }
        for (g, st) in self.groups.iter_mut() {
            let named = header.targets.iter().any(|(t, _)| t == g)
                || header.others.iter().any(|(o, _)| o == g);
            if !named {
                st.absent.insert(header.floor.saturating_add(1), first - 1);
            }
        }
    }

    /// A receiver in the default group only whose stream from this sender was delivered (or
    /// skipped) up to `settled`, and that knows of positions up to `known` (everything it knew
    /// came from the plain stream: all of it the default group's).
    pub fn starting_at(settled: u64, known: u64) -> Chains {
        let mut c = Chains::new();
        if let Some(g) = c.groups.get_mut(&GroupId::DEFAULT) {
            g.settled = settled;
            g.prefix = known;
        }
        c.highest = settled.max(known);
        c
    }

    /// A plain heartbeat (the sender had sent nothing to a cell group yet) said its stream
    /// reached `hw`: every position up to it is the default group's.
    pub fn default_through(&mut self, hw: u64) {
        if let Some(g) = self.groups.get_mut(&GroupId::DEFAULT) {
            g.prefix = g.prefix.max(hw);
        }
        self.highest = self.highest.max(hw);
        self.settle();
    }

    /// What a copy of the message of positions `first..=last` says with `header`, without
    /// counting the message as arrived ([`Chains::arrived`] does, for what the receiver kept).
    pub fn on_header(&mut self, first: u64, last: u64, header: &ChainHeader) {
        if first == 0 || first > last {
            return;
        }
        self.learn(first, last, header);
        self.settle();
    }

    /// Positions that arrived and that the receiver kept (it delivers them, in order).
    pub fn arrived(&mut self, positions: impl IntoIterator<Item = u64>) {
        for p in positions {
            if p > 0 {
                self.received.insert(p, p);
            }
        }
        self.settle();
    }

    /// Everything up to `p` counts as settled (state transfer, or a gap the sender can no
    /// longer repair).
    pub fn settle_through(&mut self, p: u64) {
        for g in self.groups.values_mut() {
            if g.settled < p {
                g.settled = p;
            }
        }
        self.highest = self.highest.max(p);
        self.settle();
    }

    /// The highest due position that has not arrived, if any.
    pub fn highest_missing(&self) -> Option<u64> {
        self.groups
            .values()
            .filter_map(|g| g.top_missing(&self.received))
            .max()
    }

    /// What to ask the sender for: for each group with a due position missing, everything not
    /// arrived between what is settled there and that position (what lies between may belong
    /// to the group too: asking for it at once takes one round trip where following the
    /// chain back would take one per lost message), from `from` on, as at most `limit`
    /// inclusive ranges, lowest first. It may name positions of groups this receiver did not
    /// join; their repairs are delivered like any message.
    pub fn nack_ranges(&self, from: u64, limit: usize) -> Vec<(u64, u64)> {
        let mut wanted = Intervals::default();
        for g in self.groups.values() {
            if let Some(top) = g.top_missing(&self.received) {
                wanted.insert(g.settled.saturating_add(1).max(from), top);
            }
        }
        let mut out = Vec::new();
        for (&lo, &hi) in &wanted.spans {
            let mut cursor = lo;
            while cursor <= hi && out.len() < limit {
                match self.received.end_of(cursor) {
                    Some(e) => cursor = e.saturating_add(1),
                    None => {
                        let next_in = self
                            .received
                            .spans
                            .range(cursor..=hi)
                            .next()
                            .map_or(hi, |(s, _)| s - 1);
                        out.push((cursor, next_in));
                        cursor = next_in.saturating_add(1);
                    }
                }
                if cursor == 0 {
                    break;
                }
            }
            if out.len() >= limit {
                break;
            }
        }
        out
    }

    /// The sender's tail arrived (a heartbeat, or beside a control message).
    pub fn on_tail(&mut self, tail: &Tail) {
        self.highest = self.highest.max(tail.hw);
        for (g, st) in self.groups.iter_mut() {
            match tail.last.iter().find(|(o, _)| o == g) {
                Some((_, l)) => {
                    note_member(st, *l);
                    st.absent.insert(l.saturating_add(1), tail.hw);
                }
                None => st.absent.insert(tail.floor.saturating_add(1), tail.hw),
            }
        }
        self.settle();
    }

    /// Every due position up to this one has arrived: deliver what arrived up to here, in
    /// order, and skip the rest.
    pub fn complete_through(&self) -> u64 {
        self.groups.values().map(|g| g.settled).min().unwrap_or(0)
    }

    /// The due positions that have not arrived, lowest first, at most `limit` of them.
    pub fn missing(&self, limit: usize) -> Vec<u64> {
        let mut due: BTreeSet<u64> = BTreeSet::new();
        for g in self.groups.values() {
            due.extend(
                (g.settled.saturating_add(1)..=g.prefix)
                    .filter(|p| !self.received.contains(*p))
                    .take(limit),
            );
            due.extend(
                g.member
                    .iter()
                    .copied()
                    .filter(|p| !self.received.contains(*p)),
            );
        }
        due.into_iter().take(limit).collect()
    }

    fn settle(&mut self) {
        for g in self.groups.values_mut() {
            g.advance(&self.received);
        }
        let low = self.complete_through();
        self.received.prune(low);
    }
}

/// `p` is in the group (if above what is settled and above its floor).
fn note_member(st: &mut Group, p: u64) {
    if p > st.settled {
        st.member.insert(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const D: GroupId = GroupId::DEFAULT;
    const A: GroupId = GroupId(1);
    const B: GroupId = GroupId(2);

    #[test]
    fn one_group_is_the_plain_contiguous_stream() {
        let mut w = ChainWriter::new();
        let mut r = Chains::new();
        let h1 = w.send(&[], 1, 1);
        assert_eq!(
            h1,
            ChainHeader {
                targets: vec![(D, 0)],
                floor: 0,
                others: vec![]
            }
        );
        let h2 = w.send(&[], 2, 4);
        assert_eq!(h2.targets, vec![(D, 1)]);
        let h3 = w.send(&[], 5, 5);
        r.on_message(1, 1, &h1);
        assert_eq!(r.complete_through(), 1);
        // 2..=4 lost: 5 says its predecessor is 4, which is due.
        r.on_message(5, 5, &h3);
        assert_eq!(r.complete_through(), 1);
        assert_eq!(r.missing(10), vec![4]);
        // The repair of 2..=4 completes the stream.
        r.on_message(2, 4, &h2);
        assert_eq!(r.complete_through(), 5);
        assert!(r.missing(10).is_empty());
    }

    #[test]
    fn a_receiver_skips_cells_it_did_not_join_and_asks_only_for_its_own() {
        let mut w = ChainWriter::new();
        let msgs = [
            (vec![A], w.send(&[A], 1, 1)),
            (vec![B], w.send(&[B], 2, 2)),
            (vec![A], w.send(&[A], 3, 3)),
            (vec![B], w.send(&[B], 4, 4)),
            (vec![D], w.send(&[D], 5, 5)),
        ];
        // In the default group and A. A's 3 is lost; B's never arrive (not joined).
        let mut r = Chains::new();
        r.join(A, 0);
        r.on_message(1, 1, &msgs[0].1);
        r.on_message(5, 5, &msgs[4].1);
        assert_eq!(r.missing(10), vec![3], "only A's lost position is due");
        assert_eq!(r.complete_through(), 1);
        r.on_message(3, 3, &msgs[2].1);
        assert_eq!(r.complete_through(), 5);
        assert!(r.missing(10).is_empty());
    }

    #[test]
    fn a_tail_settles_what_went_elsewhere_after_the_last_message() {
        let mut w = ChainWriter::new();
        let h1 = w.send(&[A], 1, 1);
        let _h2 = w.send(&[B], 2, 3);
        let mut r = Chains::new();
        r.join(A, 0);
        r.on_message(1, 1, &h1);
        // Positions 2 and 3 went to B; without more, the receiver cannot know.
        assert_eq!(r.complete_through(), 1);
        r.on_tail(&w.tail(3));
        assert_eq!(r.complete_through(), 3);
        // A tail naming a position of a joined group that did not arrive makes it due.
        let _h4 = w.send(&[A], 4, 4);
        r.on_tail(&w.tail(4));
        assert_eq!(r.missing(10), vec![4]);
        assert_eq!(r.complete_through(), 3);
    }

    #[test]
    fn a_cell_joined_late_is_due_only_above_its_floor() {
        let mut w = ChainWriter::new();
        let h1 = w.send(&[A], 1, 1);
        let h2 = w.send(&[D], 2, 2);
        let mut r = Chains::new();
        r.on_message(2, 2, &h2);
        assert_eq!(r.complete_through(), 2);
        r.join(A, r.highest_known());
        let h3 = w.send(&[A], 3, 3);
        let h4 = w.send(&[A, D], 4, 4);
        r.on_message(4, 4, &h4);
        // 3 is A's and above the floor: due; 1 is A's but below it: not asked for.
        assert_eq!(r.missing(10), vec![3]);
        r.on_message(3, 3, &h3);
        assert_eq!(r.complete_through(), 4);
        let _ = h1;
    }

    #[test]
    fn intervals_merge_and_prune() {
        let mut i = Intervals::default();
        i.insert(5, 7);
        i.insert(1, 2);
        i.insert(3, 4);
        assert_eq!(i.end_of(1), Some(7));
        i.insert(10, 12);
        assert!(!i.contains(9));
        i.insert(8, 9);
        assert_eq!(i.end_of(2), Some(12));
        i.prune(6);
        assert!(!i.contains(6));
        assert_eq!(i.end_of(7), Some(12));
        i.insert(20, 19);
        assert!(!i.contains(19));
    }

    /// One message of the model: its positions and the groups it went to.
    #[derive(Clone, Debug)]
    struct Sent {
        first: u64,
        last: u64,
        groups: Vec<GroupId>,
        header: ChainHeader,
    }

    fn stream(spec: &[(u8, u8)]) -> (ChainWriter, Vec<Sent>) {
        let mut w = ChainWriter::new();
        let mut pos = 0;
        let mut out = Vec::new();
        for (mask, len) in spec {
            let groups: Vec<GroupId> = (0..4)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| GroupId(b as u16))
                .collect();
            let first = pos + 1;
            let last = pos + 1 + u64::from(*len % 3);
            pos = last;
            let header = w.send(&groups, first, last);
            let groups = if groups.is_empty() { vec![D] } else { groups };
            out.push(Sent {
                first,
                last,
                groups,
                header,
            });
        }
        (w, out)
    }

    proptest! {
        /// Whatever is lost, duplicated or reordered: the receiver never calls complete a
        /// position it is due and lacks, never asks for a position it is not due, and once the
        /// tail and the repairs of what it asks for arrive, it is complete through the end.
        #[test]
        fn chains_are_safe_and_live(
            spec in proptest::collection::vec((0u8..16, 0u8..3), 1..40),
            joined in 0u8..8,
            late in proptest::option::of(0usize..40),
            fate in proptest::collection::vec(0u8..4, 40),
            order in proptest::collection::vec(0usize..40, 0..20),
        ) {
            let (w, sent) = stream(&spec);
            let hw = sent.last().map_or(0, |s| s.last);
            let cells: Vec<GroupId> = (1..4).filter(|b| joined & (1 << (b - 1)) != 0).map(GroupId).collect();
            // Floors: cells joined from the start, or the last one joined late.
            let mut floors: HashMap<GroupId, u64> = HashMap::new();
            floors.insert(D, 0);
            let mut r = Chains::new();
            let late_cell = late.and_then(|_| cells.last().copied());
            for c in &cells {
                if Some(*c) != late_cell {
                    r.join(*c, 0);
                    floors.insert(*c, 0);
                }
            }
            let due = |floors: &HashMap<GroupId, u64>, s: &Sent, p: u64| {
                s.groups.iter().any(|g| floors.get(g).is_some_and(|f| p > *f))
            };
            // Arrival order: the stream, with some messages swapped later.
            let mut idx: Vec<usize> = (0..sent.len()).collect();
            for (i, o) in order.iter().enumerate() {
                if i < idx.len() && *o < idx.len() {
                    idx.swap(i, *o);
                }
            }
            let check = |r: &Chains, floors: &HashMap<GroupId, u64>, got: &BTreeSet<u64>| {
                let done = r.complete_through();
                for s in &sent {
                    for p in s.first..=s.last {
                        if p <= done && due(floors, s, p) {
                            prop_assert!(got.contains(&p), "complete through {done} but due {p} missing");
                        }
                    }
                }
                for p in r.missing(usize::MAX) {
                    let s = sent.iter().find(|s| s.first <= p && p <= s.last);
                    prop_assert!(s.is_some_and(|s| due(floors, s, p)), "asked for {p}, not due");
                }
                Ok(())
            };
            let mut got = BTreeSet::new();
            for (n, i) in idx.iter().enumerate() {
                if late == Some(n) && let Some(c) = late_cell {
                    let f = r.highest_known();
                    r.join(c, f);
                    floors.insert(c, f);
                }
                let s = &sent[*i];
                // Copies go to each target group this receiver joined; fate 0 loses them all,
                // 1 delivers them twice.
                let reaches = s.groups.iter().filter(|g| r.joined(**g)).count();
                let f = fate[*i % fate.len()];
                if f != 0 {
                    for _ in 0..reaches * if f == 1 { 2 } else { 1 } {
                        r.on_message(s.first, s.last, &s.header);
                        got.extend(s.first..=s.last);
                    }
                }
                check(&r, &floors, &got)?;
            }
            if late.is_some() && let Some(c) = late_cell && !r.joined(c) {
                let f = r.highest_known();
                r.join(c, f);
                floors.insert(c, f);
            }
            // The tail, then repairs of whatever is asked for, until nothing is.
            r.on_tail(&w.tail(hw));
            check(&r, &floors, &got)?;
            for _ in 0..sent.len() + 1 {
                let ask = r.missing(usize::MAX);
                if ask.is_empty() {
                    break;
                }
                for p in ask {
                    if let Some(s) = sent.iter().find(|s| s.first <= p && p <= s.last) {
                        r.on_message(s.first, s.last, &s.header);
                        got.extend(s.first..=s.last);
                    }
                }
                check(&r, &floors, &got)?;
            }
            prop_assert_eq!(r.complete_through(), hw);
            prop_assert!(r.missing(usize::MAX).is_empty());
        }
    }
}
