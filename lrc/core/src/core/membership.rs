//! The replicated membership state of one federation execution: which LRCs are members (in join
//! order, which decides who coordinates), which federates are joined, which instance names are
//! reserved. It changes only by applying the coordinator's [`Decision`] log in order, so every
//! member that applied the same prefix holds the same [`View`].
//!
//! Beside it, this LRC's own standing in the federation, which is not replicated: its [`Phase`]
//! (joining, replaying the log it was admitted with, member, evicted).

use std::collections::{BTreeMap, BTreeSet};

use crate::handles::FederateHandle;

use super::wire::{Decision, ResignAction};

/// A joined federate as every member sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FederateRecord {
    /// Unique name in the federation.
    pub name: String,
    /// Federate type.
    pub federate_type: String,
    /// LRC it runs in.
    pub node: u64,
}

/// The replicated state: the decision log and what it implies.
///
/// The log is kept compacted (see [`super::compaction`]): decisions `1..=base` only as their
/// folded stand-in `folded`, the rest verbatim in `log`. Decision numbers are those of the
/// whole log: [`View::last`] counts both parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// Decisions `base + 1 ..= last()` (index 0 is decision `base + 1`).
    pub log: Vec<Decision>,
    /// The last folded decision (0: nothing folded).
    pub base: u64,
    /// The folded stand-in for decisions `1..=base`, each with its number, in order.
    pub folded: Vec<(u64, Decision)>,
    /// Member LRCs in join order; the first one not suspected is the coordinator.
    pub nodes: Vec<u64>,
    /// Joined federates.
    pub federates: BTreeMap<FederateHandle, FederateRecord>,
    /// Reserved instance names and the federate holding each.
    pub reserved: BTreeMap<String, FederateHandle>,
    /// Handle the next join gets.
    pub next_handle: u32,
    /// The LRC each federate ran on, joined or gone (restored federates: where they run now).
    pub ran_on: BTreeMap<FederateHandle, u64>,
    /// Removed LRCs whose [`Decision::LeftBehind`] is still to come (the coordinator that
    /// removed one may have been lost before deciding it: its successor does).
    pub left_behind_due: BTreeSet<u64>,
    /// Whether the execution was destroyed.
    pub destroyed: bool,
}

/// What applying one decision did, for the core to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Nothing beyond the view.
    Nothing,
    /// A node was added.
    NodeAdded(u64),
    /// These federates left (handle, their LRC, action to apply to their instances, name).
    Resigned(Vec<(FederateHandle, u64, ResignAction, String)>),
    /// A federate joined.
    Joined(FederateHandle),
}

/// How a decision changes the member LRCs, in join order: the one rule [`View::apply`] and a
/// joiner's check of a Welcome's log (`Phase::superseded`) share.
fn apply_to_nodes(nodes: &mut Vec<u64>, d: &Decision) {
    match d {
        Decision::NodeAdded(n) if !nodes.contains(n) => nodes.push(*n),
        Decision::NodeRemoved(n) | Decision::NodeLeft(n) => nodes.retain(|x| x != n),
        _ => {}
    }
}

impl View {
    /// Number of the last decision applied.
    pub fn last(&self) -> u64 {
        self.base + self.log.len() as u64
    }

    /// Decisions `after + 1 ..= last()`, or `None` when some of them are folded (no member
    /// needs those: a fold waits for every member to pass it).
    pub fn log_after(&self, after: u64) -> Option<Vec<Decision>> {
        let skip = usize::try_from(after.checked_sub(self.base)?).unwrap_or(usize::MAX);
        Some(self.log.iter().skip(skip).cloned().collect())
    }

    /// The whole log as a joiner or a save file takes it: the folded part, then the tail, each
    /// decision with its number.
    pub fn numbered(&self) -> impl Iterator<Item = (u64, &Decision)> {
        self.folded.iter().map(|(n, d)| (*n, d)).chain(
            self.log
                .iter()
                .enumerate()
                .map(|(i, d)| (self.base + i as u64 + 1, d)),
        )
    }

    /// Replaying a Welcome: the next decision applied is number `n` (the folded part skips
    /// numbers). Only before [`View::set_folded`].
    pub(crate) fn seek(&mut self, n: u64) {
        self.log.clear();
        self.base = n.saturating_sub(1);
    }

    /// Replaying a Welcome: its folded part is applied; the log goes on after `base`.
    pub(crate) fn set_folded(&mut self, base: u64, folded: Vec<(u64, Decision)>) {
        self.log.clear();
        self.base = base;
        self.folded = folded;
    }

    /// Applies [`Decision::Fold`]: decisions up to `upto` join the folded part.
    fn fold(&mut self, upto: u64, settled: &[(u64, u64)]) {
        if upto <= self.base || upto >= self.last() {
            return;
        }
        let k = usize::try_from(upto - self.base).unwrap_or(usize::MAX);
        let mut input = std::mem::take(&mut self.folded);
        for (i, d) in self.log.drain(..k).enumerate() {
            input.push((self.base + i as u64 + 1, d));
        }
        let settled: super::compaction::Settled = settled.iter().copied().collect();
        self.folded = super::compaction::compact(&input, &settled);
        self.base = upto;
    }

    /// Applies the next decision. `auto` gives each federate's automatic resign action for
    /// federates removed with their node.
    pub fn apply(&mut self, d: Decision, auto: &dyn Fn(FederateHandle) -> ResignAction) -> Applied {
        let out = match &d {
            Decision::NodeAdded(n) => {
                apply_to_nodes(&mut self.nodes, &d);
                Applied::NodeAdded(*n)
            }
            Decision::NodeRemoved(n) | Decision::NodeLeft(n) => {
                apply_to_nodes(&mut self.nodes, &d);
                self.left_behind_due.insert(*n);
                let gone: Vec<FederateHandle> = self
                    .federates
                    .iter()
                    .filter(|(_, r)| r.node == *n)
                    .map(|(h, _)| *h)
                    .collect();
                let mut v = Vec::new();
                for h in gone {
                    let name = self
                        .federates
                        .remove(&h)
                        .map(|r| r.name)
                        .unwrap_or_default();
                    self.reserved.retain(|_, f| *f != h);
                    v.push((h, *n, auto(h), name));
                }
                Applied::Resigned(v)
            }
            Decision::FederateJoined {
                handle,
                name,
                federate_type,
                node,
                ..
            } => {
                self.federates.insert(
                    *handle,
                    FederateRecord {
                        name: name.clone(),
                        federate_type: federate_type.clone(),
                        node: *node,
                    },
                );
                self.next_handle = self.next_handle.max(handle.0 + 1);
                self.ran_on.insert(*handle, *node);
                Applied::Joined(*handle)
            }
            Decision::FederateResigned { handle, action, .. } => {
                match self.federates.remove(handle) {
                    Some(r) => {
                        self.reserved.retain(|_, f| f != handle);
                        Applied::Resigned(vec![(*handle, r.node, *action, r.name)])
                    }
                    None => Applied::Nothing,
                }
            }
            Decision::NamesReserved {
                federate, names, ..
            } => {
                for n in names {
                    self.reserved.insert(n.clone(), *federate);
                }
                Applied::Nothing
            }
            Decision::NamesReleased { federate, names } => {
                for n in names {
                    if self.reserved.get(n) == Some(federate) {
                        self.reserved.remove(n);
                    }
                }
                Applied::Nothing
            }
            Decision::Destroyed => {
                self.destroyed = true;
                Applied::Nothing
            }
            // The FDD is the core's: see `FederationCore::apply_decision`.
            Decision::ModulesAdded(_) => Applied::Nothing,
            // Synchronization points and saves are replicated by `super::sync_point` and
            // `super::save`.
            Decision::SyncRegistered { .. }
            | Decision::SyncAchieved { .. }
            | Decision::SaveInitiated { .. }
            | Decision::SaveReported { .. }
            | Decision::SaveAborted { .. } => Applied::Nothing,
            // Restores change the membership at their commit, done by `super::restore`.
            Decision::RestoreDenied { .. }
            | Decision::RestoreInitiated { .. }
            | Decision::RestoreReported { .. }
            | Decision::RestoreAborted { .. } => Applied::Nothing,
            // Ownership transfers are applied by `super::ownership`.
            Decision::Transfer { .. } => Applied::Nothing,
            Decision::Fold { .. } => Applied::Nothing,
            // The MOM's: see `super::mom`.
            Decision::FederationSwitches { .. } => Applied::Nothing,
            Decision::Retired { node, handles } => {
                for (a, b) in handles {
                    for h in *a..=*b {
                        self.ran_on.insert(FederateHandle(h), *node);
                    }
                    self.next_handle = self.next_handle.max(b.saturating_add(1));
                }
                Applied::Nothing
            }
            // The instances are the core's: see `super::left_behind`.
            Decision::LeftBehind { node, .. } => {
                self.left_behind_due.remove(node);
                Applied::Nothing
            }
        };
        self.next_handle = self.next_handle.max(1);
        let fold = match &d {
            Decision::Fold { upto, settled } => Some((*upto, settled.clone())),
            _ => None,
        };
        self.log.push(d);
        if let Some((upto, settled)) = fold {
            self.fold(upto, &settled);
        }
        out
    }

    /// Handle of the federate with this name, if joined.
    pub fn federate_by_name(&self, name: &str) -> Option<FederateHandle> {
        self.federates
            .iter()
            .find(|(_, r)| r.name == name)
            .map(|(h, _)| *h)
    }

    /// The earlier decision answering request `req`, if any (requests are retried). Only
    /// decisions since the requester last left ([`Decision::NodeLeft`]) count: an LRC that
    /// joins again numbers its requests afresh.
    pub fn answered(&self, req: (u64, u64)) -> Option<&Decision> {
        let mut found = None;
        for (_, d) in self.numbered() {
            if *d == Decision::NodeLeft(req.0) {
                found = None;
            } else if super::compaction::req_of(d) == Some(req) {
                found = Some(d);
            }
        }
        found
    }
}

/// This LRC's phase in the federation execution: where it stands, and the state that exists only
/// there. Each LRC has its own (it is not part of the replicated [`View`]).
///
/// ```text
///  FederationCore::joining(.., candidates)            FederationCore::create
///        │                                                    │
///        ▼                                                    │
///  Joining { candidates } ── a Welcome whose FOM modules      │
///        │                   merge (coordinator, on_welcome)  │
///        ▼                                                    │
///  Replaying ── the Welcome's log applied (same call) ──► Member ◄┘
///                                                             │ told Evicted by a member, and this
///                                                             │ side loses (eviction, on_evicted)
///                                                             ▼
///                                                  Evicted { reason }   (final)
/// ```
///
/// Nothing moves a phase back: a joiner whose candidates all left stays [`Phase::Joining`] (its
/// join failed; the shell drops the core), and an evicted LRC needs a new core (and node id) to
/// join again. A Welcome whose modules do not merge fails the join and leaves the phase as it
/// was.
///
/// What is not here, on purpose: the coordinator's bookkeeping (`recovery`, `reports`, held
/// replies, `unadmitted`, `welcomed`, refused joins) is about the coordinator role, which moves
/// between members, and an evicted core keeps it as it was (see [`Phase::Evicted`]); `gone` is
/// filled while joining and read as a member; the FDD arrives with the Welcome but is read by
/// services whatever the phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Asking to be admitted: join requests (and any other request made meanwhile) go to every
    /// candidate, since the joiner may not know which of them coordinates.
    Joining {
        /// LRCs that announce the federation (the coordinator among them), in the order they
        /// were learnt; never this LRC, never one seen gone. Members that do not coordinate
        /// redirect, which adds the coordinator here.
        candidates: Vec<u64>,
        /// LRCs that fetched this joiner's log (`ControlMsg::Fetch`): each coordinates, or is
        /// taking over, a log in which this joiner is a member. A Welcome from an LRC that one
        /// of them succeeded is stale (see `Phase::superseded`).
        fetchers: Vec<u64>,
    },
    /// Admitted, and applying the decision log the Welcome carried: decisions change state but
    /// start no I/O (no snapshot requests, no save-file loads, no lost-federate reports) — the
    /// members did that when the decisions were new. Lasts only inside the call that handles the
    /// Welcome; counts as admitted.
    Replaying,
    /// A member: requests go to the coordinator, decisions arrive in log order.
    Member,
    /// The other members removed this LRC while they could not hear it (see
    /// `super::eviction`); the core ignores every event from here on, and the shell, told by
    /// `Action::ConnectionLost`, closes the federation once the actions already queued are out.
    /// Until then the rest of the state is a member's as it was (it counts as admitted), so what
    /// the call that evicted it still does runs as before.
    Evicted {
        /// The fault description every local federate gets in `connection_lost`.
        reason: String,
    },
}

impl Phase {
    /// Whether this LRC was admitted: every phase after [`Phase::Joining`].
    pub fn is_admitted(&self) -> bool {
        !matches!(self, Phase::Joining { .. })
    }

    /// Whether the log received on admission is being applied (see [`Phase::Replaying`]).
    pub fn is_replaying(&self) -> bool {
        matches!(self, Phase::Replaying)
    }

    /// Why this LRC lost its connection, once evicted.
    pub fn connection_lost(&self) -> Option<&str> {
        match self {
            Phase::Evicted { reason } => Some(reason),
            _ => None,
        }
    }

    /// The LRCs join requests go to (none once admitted).
    pub fn candidates(&self) -> &[u64] {
        match self {
            Phase::Joining { candidates, .. } => candidates,
            _ => &[],
        }
    }

    /// A joiner learnt of `n`: whether it is a new candidate (requests must go to it too).
    /// `me` and nodes in `gone` are never candidates; once admitted nothing is added.
    pub(crate) fn add_candidate(&mut self, n: u64, me: u64, gone: &BTreeSet<u64>) -> bool {
        match self {
            Phase::Joining { candidates, .. }
                if n != me && !candidates.contains(&n) && !gone.contains(&n) =>
            {
                candidates.push(n);
                true
            }
            _ => false,
        }
    }

    /// Candidate `n` is gone. `Some(true)` when that was the last one (the joiner's requests
    /// can go nowhere: its join fails), `Some(false)` while others remain, `None` once admitted.
    pub(crate) fn candidate_gone(&mut self, n: u64) -> Option<bool> {
        match self {
            Phase::Joining {
                candidates,
                fetchers,
            } => {
                candidates.retain(|c| *c != n);
                fetchers.retain(|c| *c != n);
                Some(candidates.is_empty())
            }
            _ => None,
        }
    }

    /// A joiner answered `n`'s `Fetch` (nothing changes once admitted).
    pub(crate) fn fetched_by(&mut self, n: u64) {
        if let Phase::Joining { fetchers, .. } = self
            && !fetchers.contains(&n)
        {
            fetchers.push(n);
        }
    }

    /// Whether a Welcome from `from` carrying `log` comes from a coordinator that was
    /// succeeded: an LRC that fetched this joiner's log is a member after `from` in that very
    /// log, so it took over from `from` (the coordinator is the earliest member alive), and
    /// `from`'s Welcome was sent before it died or was cut off, delivered late. Taking it would
    /// admit this joiner with decisions the successor never had (simulator seed 2463 with time
    /// management: the old coordinator's last two joins reached only the joiner, whose report
    /// to the successor said it had nothing yet, and the logs diverged). The successor's own
    /// Welcome admits it instead (its join is retried to every candidate).
    pub(crate) fn superseded<'a>(
        &self,
        from: u64,
        log: impl IntoIterator<Item = &'a Decision>,
    ) -> bool {
        let Phase::Joining { fetchers, .. } = self else {
            return false;
        };
        if fetchers.iter().all(|f| *f == from) {
            return false;
        }
        let mut members: Vec<u64> = Vec::new();
        for d in log {
            apply_to_nodes(&mut members, d);
        }
        let Some(at) = members.iter().position(|m| *m == from) else {
            return false;
        };
        fetchers
            .iter()
            .any(|f| *f != from && members.iter().position(|m| m == f) > Some(at))
    }

    /// A Welcome admitted this LRC: [`Phase::Joining`] → [`Phase::Replaying`] (its candidates
    /// are no longer needed). False, and nothing changes, in any other phase.
    pub(crate) fn admit(&mut self) -> bool {
        if !matches!(self, Phase::Joining { .. }) {
            return false;
        }
        *self = Phase::Replaying;
        true
    }

    /// The Welcome's log is applied: [`Phase::Replaying`] → [`Phase::Member`].
    pub(crate) fn replayed(&mut self) {
        if self.is_replaying() {
            *self = Phase::Member;
        }
    }

    /// This side lost a partition's heal: [`Phase::Member`] → [`Phase::Evicted`]. False, and
    /// nothing changes, in any other phase (a joiner cannot be evicted, an evicted LRC stays
    /// evicted with its first reason).
    pub(crate) fn evict(&mut self, reason: String) -> bool {
        if !matches!(self, Phase::Member) {
            return false;
        }
        *self = Phase::Evicted { reason };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joining(c: &[u64]) -> Phase {
        Phase::Joining {
            candidates: c.to_vec(),
            fetchers: Vec::new(),
        }
    }

    #[test]
    fn a_welcome_from_a_coordinator_whose_successor_fetched_the_joiner_is_stale() {
        let log = vec![
            Decision::NodeAdded(1),
            Decision::NodeAdded(2),
            Decision::NodeAdded(3),
        ];
        let mut p = joining(&[1, 2]);
        // A probe by the coordinator itself says nothing.
        p.fetched_by(1);
        assert!(!p.superseded(1, &log));
        // LRC 2 took over (it fetched us): 1's Welcome is stale, 2's is not.
        p.fetched_by(2);
        assert!(p.superseded(1, &log));
        assert!(!p.superseded(2, &log));
        // A log in which the fetcher is gone again (removed by `from`) is not superseded by it.
        let mut removed = log.clone();
        removed.push(Decision::NodeRemoved(2));
        assert!(!p.superseded(1, &removed));
        // A fetcher that is gone no longer counts.
        assert_eq!(p.candidate_gone(2), Some(false));
        assert!(!p.superseded(1, &log));
        // Once admitted nothing is superseded.
        assert!(p.admit());
        assert!(!p.superseded(1, &log));
    }

    #[test]
    fn a_joiner_adds_only_new_candidates_that_are_neither_itself_nor_gone() {
        let mut p = joining(&[2]);
        let gone: BTreeSet<u64> = [4].into();
        assert!(!p.add_candidate(1, 1, &gone), "itself");
        assert!(!p.add_candidate(2, 1, &gone), "known");
        assert!(!p.add_candidate(4, 1, &gone), "gone");
        assert!(p.add_candidate(3, 1, &gone));
        assert_eq!(p.candidates(), &[2, 3]);
        assert!(!p.is_admitted());
    }

    #[test]
    fn the_join_fails_when_the_last_candidate_goes() {
        let mut p = joining(&[2, 3]);
        assert_eq!(p.candidate_gone(2), Some(false));
        assert_eq!(p.candidate_gone(9), Some(false), "not a candidate");
        assert_eq!(p.candidate_gone(3), Some(true));
        assert_eq!(p.candidate_gone(3), Some(true), "still none");
        assert!(p.candidates().is_empty());
        assert_eq!(Phase::Member.candidate_gone(3), None);
    }

    #[test]
    fn admission_replays_then_makes_a_member_and_drops_the_candidates() {
        let mut p = joining(&[2]);
        assert!(p.admit());
        assert_eq!(p, Phase::Replaying);
        assert!(p.is_admitted() && p.is_replaying());
        assert!(p.candidates().is_empty());
        assert!(!p.add_candidate(3, 1, &BTreeSet::new()), "admitted");
        assert!(!p.admit(), "admitted once");
        assert!(!p.evict("x".into()), "only a member is evicted");
        p.replayed();
        assert_eq!(p, Phase::Member);
        p.replayed();
        assert_eq!(p, Phase::Member);
    }

    #[test]
    fn eviction_is_final_and_keeps_its_first_reason() {
        assert!(!joining(&[2]).evict("x".into()), "a joiner is not evicted");
        let mut p = Phase::Member;
        assert!(p.connection_lost().is_none());
        assert!(p.evict("cut off".into()));
        assert_eq!(p.connection_lost(), Some("cut off"));
        assert!(p.is_admitted(), "its state is a member's until dropped");
        assert!(!p.is_replaying());
        assert!(!p.evict("again".into()));
        assert!(!p.admit());
        p.replayed();
        assert_eq!(p.connection_lost(), Some("cut off"));
    }
}
