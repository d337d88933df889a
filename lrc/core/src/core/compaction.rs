//! Compaction of the coordinator's decision log: a bounded, replay-equivalent stand-in for the
//! decisions every member already applied.
//!
//! The log ([`super::membership::View`]) used to grow by every decision for the life of the
//! federation execution, and a joiner's [`ControlMsg::Welcome`](super::wire::ControlMsg) and
//! every save file carried all of it. Now each member keeps the log in two parts: the
//! decisions `base + 1 ..= last` verbatim (the *tail*), and for `1 ..= base` a *folded* list,
//! a subsequence of those decisions (a few rewritten) that keeps each one's original number
//! and whose replay by a joiner yields the same replicated state as replaying all of them.
//!
//! **When.** The coordinator decides [`Decision::Fold`] once the tail is long
//! ([`FOLD_EVERY`] decisions) and every live member acknowledged decisions far enough past
//! `base` (it keeps [`KEEP`] acknowledged decisions verbatim as a margin). `upto` is at most
//! the lowest position any live member reported, so no member will ever need a folded
//! decision verbatim (gap repair, a takeover's fetch): every member, present and future, is
//! past it. Because the fold is itself a decision, every member folds at the same log
//! position with the same arguments, so their logs stay identical (the simulator compares
//! them), and any member that takes over can welcome joiners and serve tails as before.
//!
//! **Idempotency.** Requests are retried until answered and recognised by the decision that
//! answers them (`View::answered`). A folded decision must still be recognised while its
//! requester may retry it, so `Fold` carries each LRC's *settled* mark: the lowest request id
//! it still had pending when it last reported (`ControlMsg::Report`). Every request the LRC
//! sends later has an id at or above that mark, and a retry sent before the report reaches
//! the coordinator before it (one FIFO link), so a decision answering a request below the mark
//! will never be looked up again: only such decisions are dropped or rewritten. Decisions of an
//! LRC's earlier membership (before its [`Decision::NodeLeft`]) are never looked up either.
//!
//! **What folds** ([`compact`]), each checked against what a joiner's replay does with it:
//! - `ModulesAdded`: always (the Welcome carries the merged modules; a replay skips them).
//! - `Fold` itself: always (it changes no replicated state).
//! - `Transfer`: an attribute whose ownership a later transfer of the same instance attribute
//!   moved again (a replay only keeps the newest version of each); a transfer left with no
//!   attribute goes. A restore resets versions, so nothing folds across one.
//! - A federate that joined and resigned ([`Decision::FederateJoined`] … its
//!   [`Decision::FederateResigned`]) with no save or restore decision and no pending
//!   synchronization point in between: both go, with the names it reserved and released
//!   meanwhile; what stays of it (the LRC it ran on, which a later `LeftBehind` of that LRC
//!   settles, and the handle allocator) is one [`Decision::Retired`] per LRC, a list of handle
//!   ranges — 10,000 join/resign cycles of one LRC leave one range.
//!   Federates lost with their LRC (its `NodeRemoved` or `NodeLeft`) fold the same way: their
//!   join goes into the `Retired` of that LRC, the removal stays.
//! - Names reserved and later released (or released by their holder's resignation).
//! - A synchronization point that synchronized: its registration and achievements.
//! - `SyncAchieved` of no pending point, `RestoreDenied` (a callback only, to its requester).
//! - An LRC's `NodeAdded` once its membership ended and every federate that joined on it
//!   meanwhile folded (not when it had left once before: its admission marks it as back). Its
//!   `NodeRemoved` or `NodeLeft` stays: it bars a removed LRC, marks one that left, and makes
//!   its `LeftBehind` due.
//! - What a `LeftBehind` lists (federates and instances with their values, often the largest
//!   decisions of a long run with crashes): every member applied it, and a joiner's replay
//!   takes instances from the members' snapshots, so it stays as `LeftBehind { node }` alone.
//! - Requests of a removed LRC count as settled: a member refuses whatever it sends.
//! - A save that ended (all members finished their part, one failed, it was aborted or
//!   replaced, a member left): its `SaveInitiated`, `SaveReported`s and `SaveAborted` — except
//!   the last save that succeeded, whose replay sets the MOM's `HLAlastSaveName` /
//!   `HLAlastSaveTime`. A restore needs nothing of it from the log: the requester reads the
//!   saved membership from its save file. Reports and aborts that matched no save go too.
//!   With the save gone, the federates that lived across it can fold as well.
//! - A restore that ended without committing (a federate could not load, it was aborted, a
//!   member left before the commit): it changed nothing, so all its decisions go.
//!
//! **Across a restore.** The model runs through restores as the core applies them: at the
//! commit every member takes its saved handle (on the LRC it runs on), and the reserved names
//! and pending points are the saved ones — held by the restore itself (`RESTORED`), so they
//! never fold, nor does a federate that lived across the restore (the restore stays between
//! its join and its resignation). What happens after the commit folds by the same rules as
//! before it. Retirements are grouped per stretch between committed restores, which move
//! handles to other LRCs.
//!
//! **What stays**: the removal or departure of each LRC and its emptied `LeftBehind` (about 20
//! bytes, with its `Retired`, per LRC ever lost), the membership of live LRCs; joined
//! federates; pending names and points; the save in progress and the last that succeeded;
//! every restore that committed (with the federates and names that lived across it) and the
//! one in progress; `Destroyed`. So the folded list is bounded by the live state plus a few
//! bytes per LRC that ever left and per committed restore, not by the number of transfers,
//! reservations, sync points, saves, federate join/resign cycles or what lost LRCs left behind
//! (`tests::a_welcome_stays_bounded`: 2,000 periodic saves with a federate replaced after each
//! fold to about 20 decisions; `docs/ARCHITECTURE.md`).

use std::collections::{BTreeMap, BTreeSet};

use crate::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};

use super::restore::RestoreReport;
use super::save::SaveReport;
use super::wire::Decision;

/// The tail length (decisions after `base`) at which the coordinator folds.
pub const FOLD_EVERY: u64 = 512;

/// Acknowledged decisions the coordinator leaves verbatim behind the fold point.
pub const KEEP: u64 = 64;

/// How large the Welcome that admitted an LRC was: what a joiner can check is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WelcomeSize {
    /// Decisions it carried (folded and verbatim).
    pub decisions: usize,
    /// The encoded size of its log (folded part and tail), bytes.
    pub bytes: usize,
}

impl WelcomeSize {
    /// Measures a Welcome's log.
    pub fn of(base: u64, folded: &[Numbered], log: &[Decision]) -> WelcomeSize {
        WelcomeSize {
            decisions: folded.len() + log.len(),
            bytes: postcard::to_allocvec(&(base, folded, log)).map_or(0, |v| v.len()),
        }
    }
}

/// A decision with its number in the log.
pub type Numbered = (u64, Decision);

/// Which requests can no longer be retried: node → every request id below it is settled.
pub type Settled = BTreeMap<u64, u64>;

/// The request a decision answers, if it answers one.
pub(crate) fn req_of(d: &Decision) -> Option<(u64, u64)> {
    match d {
        Decision::FederateJoined { req, .. }
        | Decision::NamesReserved { req, .. }
        | Decision::SyncRegistered { req, .. }
        | Decision::SyncAchieved { req, .. }
        | Decision::SaveInitiated { req, .. }
        | Decision::SaveReported { req, .. }
        | Decision::SaveAborted { req, .. }
        | Decision::RestoreDenied { req, .. }
        | Decision::RestoreInitiated { req, .. }
        | Decision::RestoreReported { req, .. }
        | Decision::RestoreAborted { req, .. }
        | Decision::Transfer { req, .. } => Some(*req),
        _ => None,
    }
}

fn is_restore(d: &Decision) -> bool {
    matches!(
        d,
        Decision::RestoreInitiated { .. }
            | Decision::RestoreReported { .. }
            | Decision::RestoreAborted { .. }
    )
}

/// A save in progress as the fold models it (the core's rule in `super::save`): its decisions
/// so far, each member with whether it finished its part, whether one reported a failure.
struct SaveModel {
    decisions: Vec<usize>,
    members: BTreeMap<FederateHandle, bool>,
    failed: bool,
}

/// The position the fold gives what a restore brought back (reserved names, pending points):
/// no decision of the log stands for it, so nothing of it is ever dropped.
const RESTORED: usize = usize::MAX;

/// A restore as the fold models it (the core's rule in `super::restore`): its decisions, each
/// member as (handle before, handle after), who loaded and who finished, whether it committed.
struct RestoreModel {
    decisions: Vec<usize>,
    members: Vec<(FederateHandle, FederateHandle)>,
    loaded: BTreeSet<FederateHandle>,
    done: BTreeSet<FederateHandle>,
    committed: bool,
}

impl RestoreModel {
    fn member(&self, h: FederateHandle) -> bool {
        self.members.iter().any(|(pre, post)| {
            if self.committed {
                *post == h
            } else {
                *pre == h
            }
        })
    }
}

/// A pending synchronization point as the fold models it (the core's rule in
/// `super::sync_point`): who it still waits for, whether joiners join it.
struct Point {
    /// Its registration ([`RESTORED`]: it came back with a restore).
    at: usize,
    /// Where it began pending here (its registration, or the restore's commit).
    since: usize,
    wide: bool,
    waiting: BTreeSet<FederateHandle>,
    achieved: Vec<usize>,
}

/// Folds `log` (numbered, in order: an earlier folded list followed by tail decisions) into a
/// shorter list whose replay yields the same replicated state (see the module docs for the
/// rules). `settled` names the requests that can no longer be retried; decisions answering
/// other requests are kept as they are.
pub fn compact(log: &[Numbered], settled: &Settled) -> Vec<Numbered> {
    let n = log.len();
    // Decisions of an LRC before its last `NodeLeft` here are never looked up again, nor any
    // of one removed (it is barred: a member refuses what it sends, so it retries nothing).
    let mut left_at: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, (_, d)) in log.iter().enumerate() {
        if let Decision::NodeLeft(x) | Decision::NodeRemoved(x) = d {
            left_at.insert(*x, i);
        }
    }
    let settled_at = |i: usize, d: &Decision| match req_of(d) {
        None => true,
        Some((node, id)) => {
            left_at.get(&node).is_some_and(|l| *l > i)
                || settled.get(&node).is_some_and(|s| id < *s)
        }
    };
    let settled_v: Vec<bool> = log
        .iter()
        .enumerate()
        .map(|(i, (_, d))| settled_at(i, d))
        .collect();
    let mut drop = vec![false; n];
    // Attributes a transfer keeps (None: untouched).
    let mut trimmed: Vec<Option<Vec<(AttributeHandle, u32)>>> = vec![None; n];

    // Pass 1: transfers superseded by a later one of the same instance attribute, within one
    // restore segment (scanned backwards).
    let mut later: BTreeSet<(ObjectInstanceHandle, AttributeHandle)> = BTreeSet::new();
    for i in (0..n).rev() {
        let d = &log[i].1;
        if is_restore(d) {
            later.clear();
            continue;
        }
        if let Decision::Transfer { object, attrs, .. } = d {
            let keep: Vec<(AttributeHandle, u32)> = attrs
                .iter()
                .filter(|(a, _)| !later.contains(&(*object, *a)))
                .copied()
                .collect();
            for (a, _) in attrs {
                later.insert((*object, *a));
            }
            if settled_v[i] {
                if keep.is_empty() {
                    drop[i] = true;
                } else if keep.len() != attrs.len() {
                    trimmed[i] = Some(keep);
                }
            }
        }
    }

    // Pass 2: a model of membership, names and sync points, forwards.
    let mut federates: BTreeMap<FederateHandle, (u64, usize)> = BTreeMap::new();
    let mut points: BTreeMap<String, Point> = BTreeMap::new();
    // Synchronized points: (registration, achievements).
    let mut finished: Vec<(usize, Vec<usize>)> = Vec::new();
    // Reservations: index → names still live.
    let mut live_names: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let mut holder: BTreeMap<String, (FederateHandle, usize)> = BTreeMap::new();
    // Releases: index → reservations whose names it released.
    let mut releases: Vec<(usize, BTreeSet<usize>)> = Vec::new();
    // Federates that left: (handle, node, join index, index of their resignation or of their
    // LRC's removal, whether it was the removal).
    let mut resigned: Vec<(FederateHandle, u64, usize, usize, bool)> = Vec::new();
    // Each LRC's current membership: where it was added, and where its federates joined.
    let mut member_since: BTreeMap<u64, (usize, Vec<usize>)> = BTreeMap::new();
    // Ended memberships: (node, where it was added, where its federates joined, where it ended).
    let mut memberships: Vec<(u64, usize, Vec<usize>, usize)> = Vec::new();
    // Decisions naming each federate (reservations, releases), for folding them with it.
    let mut names_of: BTreeMap<FederateHandle, Vec<usize>> = BTreeMap::new();
    // Where each point was pending: intervals [at, end] (end: n when still pending).
    let mut pending_spans: Vec<(usize, usize, usize)> = Vec::new(); // (registration, from, to)
    // Saves, as `super::save` applies them: the one in progress, and those that ended.
    let mut open_save: Option<SaveModel> = None;
    let mut ended_saves: Vec<(Vec<usize>, bool)> = Vec::new();

    fn leave_points(
        points: &mut BTreeMap<String, Point>,
        finished: &mut Vec<(usize, Vec<usize>)>,
        spans: &mut Vec<(usize, usize, usize)>,
        h: FederateHandle,
        i: usize,
    ) {
        let done: Vec<String> = points
            .iter_mut()
            .filter_map(|(l, p)| (p.waiting.remove(&h) && p.waiting.is_empty()).then(|| l.clone()))
            .collect();
        for l in done {
            if let Some(p) = points.remove(&l) {
                spans.push((p.at, p.since, i));
                finished.push((p.at, p.achieved));
            }
        }
    }

    /// Ends the save in progress (if any) with `success`.
    fn end_save(open: &mut Option<SaveModel>, ended: &mut Vec<(Vec<usize>, bool)>, success: bool) {
        if let Some(s) = open.take() {
            ended.push((s.decisions, success && !s.failed));
        }
    }

    /// A federate left: a save it was a member of fails.
    fn save_left(
        open: &mut Option<SaveModel>,
        ended: &mut Vec<(Vec<usize>, bool)>,
        h: FederateHandle,
    ) {
        if open.as_ref().is_some_and(|s| s.members.contains_key(&h)) {
            end_save(open, ended, false);
        }
    }

    fn release_of(
        holder: &mut BTreeMap<String, (FederateHandle, usize)>,
        live_names: &mut BTreeMap<usize, BTreeSet<String>>,
        h: FederateHandle,
    ) -> BTreeSet<usize> {
        let mut from = BTreeSet::new();
        holder.retain(|name, (f, r)| {
            if *f != h {
                return true;
            }
            if let Some(s) = live_names.get_mut(r) {
                s.remove(name);
            }
            from.insert(*r);
            false
        });
        from
    }

    for i in 0..n {
        match &log[i].1 {
            Decision::ModulesAdded(_) | Decision::Fold { .. } => drop[i] = true,
            // Only the last of the federation's switches counts (a replay applies them in
            // order, and a restore sets them from its saved membership).
            Decision::FederationSwitches { .. } => {
                drop[i] = log[i + 1..]
                    .iter()
                    .any(|(_, d)| matches!(d, Decision::FederationSwitches { .. }));
            }
            Decision::RestoreDenied { .. } => drop[i] = settled_v[i],
            _ => {}
        }
    }
    // Restores, as `super::restore` applies them: the one in progress, and those that ended
    // (decisions, whether they committed).
    let mut open_restore: Option<RestoreModel> = None;
    let mut ended_restores: Vec<(Vec<usize>, bool)> = Vec::new();
    fn end_restore(open: &mut Option<RestoreModel>, ended: &mut Vec<(Vec<usize>, bool)>) {
        if let Some(r) = open.take() {
            ended.push((r.decisions, r.committed));
        }
    }
    for i in 0..n {
        let d = &log[i].1;
        match d {
            Decision::RestoreInitiated { saved, mapping, .. } => {
                // The coordinator decides none while another is in progress.
                end_restore(&mut open_restore, &mut ended_restores);
                open_restore = Some(RestoreModel {
                    decisions: vec![i],
                    members: mapping
                        .iter()
                        .filter(|(pre, post)| {
                            federates.contains_key(pre)
                                && saved.federates.iter().any(|m| m.handle == *post)
                        })
                        .copied()
                        .collect(),
                    loaded: BTreeSet::new(),
                    done: BTreeSet::new(),
                    committed: false,
                });
            }
            Decision::RestoreReported {
                federate, report, ..
            } => {
                let Some(r) = open_restore.as_mut() else {
                    ended_restores.push((vec![i], false));
                    continue;
                };
                r.decisions.push(i);
                if !r.member(*federate) {
                    continue;
                }
                match (report, r.committed) {
                    (RestoreReport::Loaded, false) => {
                        r.loaded.insert(*federate);
                        if r.members.iter().all(|(pre, _)| r.loaded.contains(pre)) {
                            // The commit: every federate takes its saved handle on the LRC it
                            // runs on; names and points are the saved ones.
                            r.committed = true;
                            let mut renamed = BTreeMap::new();
                            for (pre, post) in &r.members {
                                if let Some(x) = federates.get(pre) {
                                    renamed.insert(*post, *x);
                                }
                            }
                            federates = renamed;
                            let saved = log[r.decisions[0]].1.clone();
                            if let Decision::RestoreInitiated { saved, .. } = saved {
                                holder.clear();
                                for (name, f) in &saved.reserved {
                                    holder.insert(name.clone(), (*f, RESTORED));
                                }
                                for p in std::mem::take(&mut points).into_values() {
                                    pending_spans.push((p.at, p.since, i));
                                }
                                for (label, sp) in &saved.sync {
                                    points.insert(
                                        label.clone(),
                                        Point {
                                            at: RESTORED,
                                            since: i,
                                            wide: sp.federation_wide,
                                            waiting: sp.waiting.clone(),
                                            achieved: Vec::new(),
                                        },
                                    );
                                }
                            }
                        }
                    }
                    (RestoreReport::Unable(_), false) => {
                        end_restore(&mut open_restore, &mut ended_restores);
                    }
                    (RestoreReport::Complete | RestoreReport::NotComplete, true) => {
                        r.done.insert(*federate);
                        if r.members.iter().all(|(_, post)| r.done.contains(post)) {
                            end_restore(&mut open_restore, &mut ended_restores);
                        }
                    }
                    _ => {}
                }
            }
            Decision::RestoreAborted { .. } => match open_restore.as_mut() {
                Some(r) => {
                    r.decisions.push(i);
                    end_restore(&mut open_restore, &mut ended_restores);
                }
                None => ended_restores.push((vec![i], false)),
            },
            _ => {}
        }
        match d {
            Decision::SaveInitiated { members, .. } => {
                let members: BTreeMap<FederateHandle, bool> = members
                    .iter()
                    .filter(|h| federates.contains_key(h))
                    .map(|h| (*h, false))
                    .collect();
                if members.is_empty() {
                    // Begins nothing, and leaves a save in progress as it was.
                    ended_saves.push((vec![i], false));
                } else {
                    // A new save replaces one in progress (a timed save nobody reported on).
                    end_save(&mut open_save, &mut ended_saves, false);
                    open_save = Some(SaveModel {
                        decisions: vec![i],
                        members,
                        failed: false,
                    });
                }
            }
            Decision::SaveReported {
                federate, report, ..
            } => match open_save.as_mut() {
                Some(s) if s.members.contains_key(federate) => {
                    s.decisions.push(i);
                    if *report != SaveReport::Begun {
                        // Finished stays finished (`SaveInProgress::record`).
                        s.members.insert(*federate, true);
                    }
                    if matches!(
                        report,
                        SaveReport::NotComplete | SaveReport::RtiUnableToSave
                    ) {
                        s.failed = true;
                    }
                    if s.members.values().all(|done| *done) {
                        end_save(&mut open_save, &mut ended_saves, true);
                    }
                }
                _ => ended_saves.push((vec![i], false)),
            },
            Decision::SaveAborted { .. } => match open_save.as_mut() {
                Some(s) => {
                    s.decisions.push(i);
                    end_save(&mut open_save, &mut ended_saves, false);
                }
                None => ended_saves.push((vec![i], false)),
            },
            _ => {}
        }
        match d {
            Decision::NodeAdded(x) => {
                member_since.entry(*x).or_insert((i, Vec::new()));
            }
            Decision::FederateJoined { handle, node, .. } => {
                federates.insert(*handle, (*node, i));
                if let Some((_, joins)) = member_since.get_mut(node) {
                    joins.push(i);
                }
                for p in points.values_mut().filter(|p| p.wide) {
                    p.waiting.insert(*handle);
                }
            }
            Decision::FederateResigned { handle, .. } => {
                save_left(&mut open_save, &mut ended_saves, *handle);
                if open_restore.as_ref().is_some_and(|r| r.member(*handle)) {
                    end_restore(&mut open_restore, &mut ended_restores);
                }
                if let Some((node, j)) = federates.remove(handle) {
                    resigned.push((*handle, node, j, i, false));
                    release_of(&mut holder, &mut live_names, *handle);
                    leave_points(&mut points, &mut finished, &mut pending_spans, *handle, i);
                }
            }
            Decision::NodeRemoved(x) | Decision::NodeLeft(x) => {
                let gone: Vec<FederateHandle> = federates
                    .iter()
                    .filter(|(_, (node, _))| node == x)
                    .map(|(h, _)| *h)
                    .collect();
                for h in gone {
                    save_left(&mut open_save, &mut ended_saves, h);
                    if open_restore.as_ref().is_some_and(|r| r.member(h)) {
                        end_restore(&mut open_restore, &mut ended_restores);
                    }
                    if let Some((node, j)) = federates.remove(&h) {
                        resigned.push((h, node, j, i, true));
                    }
                    release_of(&mut holder, &mut live_names, h);
                    leave_points(&mut points, &mut finished, &mut pending_spans, h, i);
                }
                if let Some((a, joins)) = member_since.remove(x) {
                    memberships.push((*x, a, joins, i));
                }
            }
            Decision::NamesReserved {
                federate, names, ..
            } => {
                let mut set = BTreeSet::new();
                for name in names {
                    if let Some((_, r)) = holder.insert(name.clone(), (*federate, i))
                        && let Some(s) = live_names.get_mut(&r)
                    {
                        s.remove(name);
                    }
                    set.insert(name.clone());
                }
                live_names.insert(i, set);
                names_of.entry(*federate).or_default().push(i);
            }
            Decision::NamesReleased { federate, names } => {
                let mut from = BTreeSet::new();
                for name in names {
                    if let Some((f, r)) = holder.get(name).copied()
                        && f == *federate
                    {
                        holder.remove(name);
                        if let Some(s) = live_names.get_mut(&r) {
                            s.remove(name);
                        }
                        from.insert(r);
                    }
                }
                releases.push((i, from));
                names_of.entry(*federate).or_default().push(i);
            }
            Decision::SyncRegistered { label, set, .. } => {
                let waiting: BTreeSet<FederateHandle> = match set {
                    Some(s) => s.iter().copied().collect(),
                    None => federates.keys().copied().collect(),
                };
                if waiting.is_empty() {
                    pending_spans.push((i, i, i));
                    finished.push((i, Vec::new()));
                } else {
                    points.insert(
                        label.clone(),
                        Point {
                            at: i,
                            since: i,
                            wide: set.is_none(),
                            waiting,
                            achieved: Vec::new(),
                        },
                    );
                }
            }
            Decision::SyncAchieved {
                label, federate, ..
            } => match points.get_mut(label) {
                Some(p) => {
                    p.achieved.push(i);
                    if p.waiting.remove(federate)
                        && p.waiting.is_empty()
                        && let Some(p) = points.remove(label)
                    {
                        pending_spans.push((p.at, p.since, i));
                        finished.push((p.at, p.achieved));
                    }
                }
                None => drop[i] = settled_v[i],
            },
            _ => {}
        }
    }
    for p in points.values() {
        pending_spans.push((p.at, p.since, n));
    }

    // Saves that ended fold, all their decisions settled, except the last that succeeded (it
    // is `HLAlastSaveName` / `HLAlastSaveTime` of the MOM). What a save leaves behind is in
    // the save files, not in the log: a restore reads the membership it needs from them. A
    // save that stays (in progress, the last success, not settled) keeps the federates that
    // were joined across it from folding (`last_save_or_restore`), so its replay sees the
    // same members.
    let mut last_save_or_restore: Vec<usize> = Vec::new();
    let last_success = ended_saves.iter().rposition(|(_, ok)| *ok);
    for (k, (decisions, _)) in ended_saves.iter().enumerate() {
        if Some(k) != last_success && decisions.iter().all(|i| settled_v[*i]) {
            for i in decisions {
                drop[*i] = true;
            }
        } else {
            last_save_or_restore.extend(decisions.iter().copied());
        }
    }
    if let Some(s) = &open_save {
        last_save_or_restore.extend(s.decisions.iter().copied());
    }
    // Restores that ended without committing changed nothing and fold, their decisions all
    // settled; one that committed (it renamed the federates and replaced names and points) or
    // is in progress stays, and splits the federates' retirements into segments.
    let mut kept_restores: Vec<usize> = Vec::new();
    if let Some(r) = &open_restore {
        kept_restores.extend(r.decisions.iter().copied());
    }
    for (decisions, committed) in &ended_restores {
        if !committed && decisions.iter().all(|i| settled_v[*i]) {
            for i in decisions {
                drop[*i] = true;
            }
        } else {
            kept_restores.extend(decisions.iter().copied());
        }
    }
    kept_restores.sort_unstable();
    last_save_or_restore.extend(kept_restores.iter().copied());

    // Synchronized points whose decisions are all settled fold; the others stay and count as
    // pending for the federates that joined while they were.
    let mut kept_spans: Vec<(usize, usize)> = Vec::new();
    let mut folded_points: BTreeSet<usize> = BTreeSet::new();
    for (at, achieved) in &finished {
        if *at != RESTORED && settled_v[*at] && achieved.iter().all(|j| settled_v[*j]) {
            drop[*at] = true;
            for j in achieved {
                drop[*j] = true;
            }
            folded_points.insert(*at);
        }
    }
    for (at, from, to) in &pending_spans {
        if !folded_points.contains(at) {
            kept_spans.push((*from, *to));
        }
    }

    // Federates that joined and resigned with nothing in between that remembers them. What
    // stays of them is one `Retired` per LRC and restore segment (a restore moves handles to
    // other LRCs), at the place of the last decision it stands for.
    let mut restores: Vec<usize> = kept_restores.clone();
    restores.push(n);
    let segment = |i: usize| restores.iter().copied().find(|x| *x > i).unwrap_or(n);
    // (segment, node) → (handles, position).
    let mut retired: BTreeMap<(usize, u64), (BTreeSet<u32>, usize)> = BTreeMap::new();
    for (h, node, j, r, by_removal) in &resigned {
        let (j, r) = (*j, *r);
        let quiet = !last_save_or_restore.iter().any(|k| *k > j && *k < r)
            && !kept_spans.iter().any(|(a, b)| *a <= r && *b >= j);
        let mine: &[usize] = names_of.get(h).map_or(&[], |v| v.as_slice());
        let names_settled = mine.iter().all(|k| settled_v[*k] && *k > j && *k < r);
        if !(quiet && settled_v[j] && names_settled) {
            continue;
        }
        drop[j] = true;
        // The removal of its LRC stays (below); a resignation is this federate's alone.
        let at = if *by_removal { j } else { r };
        drop[at] = true;
        for k in mine {
            drop[*k] = true;
        }
        let e = retired.entry((segment(r), *node)).or_default();
        e.0.insert(h.0);
        e.1 = e.1.max(at);
    }
    // `Retired` lists already in the input merge into their segment's.
    for (i, (_, d)) in log.iter().enumerate() {
        if let Decision::Retired { node, handles } = d {
            let e = retired.entry((segment(i), *node)).or_default();
            for (a, b) in handles {
                e.0.extend(*a..=*b);
            }
            e.1 = e.1.max(i);
            drop[i] = true;
        }
    }
    let mut retired_at: BTreeMap<usize, Decision> = BTreeMap::new();
    for ((_, node), (handles, at)) in retired {
        retired_at.insert(
            at,
            Decision::Retired {
                node,
                handles: ranges(&handles),
            },
        );
    }

    // An LRC's admission goes with its membership once that ended and every federate that
    // joined on it meanwhile folded: its removal (or departure) stays, which bars it (or marks
    // it as having left) and settles what it left behind. Not when it had left once before:
    // its admission is what marks it as back.
    let mut first_left: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, (_, d)) in log.iter().enumerate() {
        if let Decision::NodeLeft(x) = d {
            first_left.entry(*x).or_insert(i);
        }
    }
    for (x, a, joins, _end) in &memberships {
        if first_left.get(x).is_none_or(|l| *l >= *a) && joins.iter().all(|j| drop[*j]) {
            drop[*a] = true;
        }
    }

    // Reservations whose names all died, and releases of only such reservations.
    for (r, names) in &live_names {
        if names.is_empty() && settled_v[*r] {
            drop[*r] = true;
        }
    }
    for (i, from) in &releases {
        if from.iter().all(|r| drop.get(*r).copied().unwrap_or(false)) {
            drop[*i] = true;
        }
    }

    let mut out: Vec<Numbered> = Vec::new();
    for i in 0..n {
        if let Some(d) = retired_at.remove(&i) {
            out.push((log[i].0, d));
            continue;
        }
        if drop[i] {
            continue;
        }
        let (num, d) = &log[i];
        let d = match (&trimmed[i], d) {
            (
                Some(keep),
                Decision::Transfer {
                    object,
                    from,
                    to,
                    tag,
                    silent,
                    req,
                    ..
                },
            ) => Decision::Transfer {
                object: *object,
                attrs: keep.clone(),
                from: *from,
                to: *to,
                tag: tag.clone(),
                silent: *silent,
                req: *req,
            },
            // What it left behind was for the members of its day, which all applied it; a
            // joiner's replay takes instances from the members' snapshots instead.
            (_, Decision::LeftBehind { node, .. }) => Decision::LeftBehind {
                node: *node,
                federates: Vec::new(),
                instances: Vec::new(),
            },
            _ => d.clone(),
        };
        out.push((*num, d));
    }
    out
}

/// Consecutive runs of `handles`, as inclusive ranges.
fn ranges(handles: &BTreeSet<u32>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for h in handles {
        match out.last_mut() {
            Some((_, b)) if b.checked_add(1) == Some(*h) => *b = *h,
            _ => out.push((*h, *h)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::wire::{ControlMsg, ResignAction};
    use super::super::{Event, FederationCore};
    use super::*;
    use proptest::prelude::*;

    /// A coordinator's choices, modelled: every decision it emits is one the real coordinator
    /// could decide at that point (joins name unique federates, transfers follow versions,
    /// points are achieved by members still waiting, ...).
    #[derive(Default)]
    struct Model {
        nodes: Vec<u64>,
        federates: BTreeMap<FederateHandle, u64>,
        next: u32,
        reserved: BTreeMap<String, FederateHandle>,
        points: BTreeMap<String, BTreeSet<FederateHandle>>,
        versions: BTreeMap<(u64, u32), (u32, Option<FederateHandle>)>,
        reqs: BTreeMap<u64, u64>,
        barred: BTreeSet<u64>,
        /// The save in progress: each member with whether it finished its part.
        save: Option<BTreeMap<FederateHandle, bool>>,
        saves: u32,
        out: Vec<Decision>,
    }

    impl Model {
        fn req(&mut self, node: u64) -> (u64, u64) {
            let c = self.reqs.entry(node).or_insert(0);
            *c += 1;
            (node, *c)
        }

        fn settled(&self) -> Vec<(u64, u64)> {
            self.reqs.iter().map(|(n, c)| (*n, c + 1)).collect()
        }

        /// A member of the save in progress left: the save fails.
        fn left_save(&mut self, h: FederateHandle) {
            if self.save.as_ref().is_some_and(|s| s.contains_key(&h)) {
                self.save = None;
            }
        }

        fn pick<T: Clone>(v: &[T], r: u32) -> Option<T> {
            (!v.is_empty()).then(|| v[r as usize % v.len()].clone())
        }

        /// One step: `op` chooses what, `r` with what.
        fn step(&mut self, op: u8, r: u32) {
            let feds: Vec<FederateHandle> = self.federates.keys().copied().collect();
            let d = match op % 17 {
                0 => {
                    let n = 2 + u64::from(r % 6);
                    if self.nodes.contains(&n) || self.barred.contains(&n) {
                        return;
                    }
                    self.nodes.push(n);
                    Decision::NodeAdded(n)
                }
                1 => {
                    let Some(n) = Self::pick(&self.nodes[1..], r) else {
                        return;
                    };
                    if self.federates.values().any(|x| *x == n) {
                        return;
                    }
                    self.nodes.retain(|x| *x != n);
                    self.reqs.remove(&n);
                    self.out.push(Decision::NodeLeft(n));
                    Decision::LeftBehind {
                        node: n,
                        federates: Vec::new(),
                        instances: Vec::new(),
                    }
                }
                13 => {
                    // An LRC lost with its federates, and what it left behind settled.
                    let Some(n) = Self::pick(&self.nodes[1..], r) else {
                        return;
                    };
                    let lost: Vec<FederateHandle> = self
                        .federates
                        .iter()
                        .filter(|(_, x)| **x == n)
                        .map(|(h, _)| *h)
                        .collect();
                    for h in &lost {
                        self.federates.remove(h);
                        self.left_save(*h);
                        self.reserved.retain(|_, f| f != h);
                        for w in self.points.values_mut() {
                            w.remove(h);
                        }
                    }
                    self.points.retain(|_, w| !w.is_empty());
                    self.nodes.retain(|x| *x != n);
                    self.barred.insert(n);
                    self.out.push(Decision::NodeRemoved(n));
                    Decision::LeftBehind {
                        node: n,
                        federates: lost,
                        instances: Vec::new(),
                    }
                }
                2..=4 => {
                    let Some(node) = Self::pick(&self.nodes, r) else {
                        return;
                    };
                    self.next += 1;
                    let handle = FederateHandle(self.next);
                    self.federates.insert(handle, node);
                    for w in self.points.values_mut() {
                        w.insert(handle);
                    }
                    let req = self.req(node);
                    Decision::FederateJoined {
                        handle,
                        name: format!("f{}", handle.0),
                        federate_type: "t".into(),
                        node,
                        req,
                    }
                }
                5 | 6 => {
                    let Some(h) = Self::pick(&feds, r) else {
                        return;
                    };
                    self.federates.remove(&h);
                    self.left_save(h);
                    self.reserved.retain(|_, f| *f != h);
                    for w in self.points.values_mut() {
                        w.remove(&h);
                    }
                    self.points.retain(|_, w| !w.is_empty());
                    Decision::FederateResigned {
                        handle: h,
                        action: ResignAction::DeleteObjects,
                        hw: 0,
                    }
                }
                7 => {
                    let Some(h) = Self::pick(&feds, r) else {
                        return;
                    };
                    let name = format!("n{}", r % 5);
                    if self.reserved.contains_key(&name) {
                        return;
                    }
                    self.reserved.insert(name.clone(), h);
                    let req = self.req(self.federates[&h]);
                    Decision::NamesReserved {
                        federate: h,
                        names: vec![name],
                        req,
                    }
                }
                8 => {
                    let held: Vec<(String, FederateHandle)> =
                        self.reserved.iter().map(|(n, f)| (n.clone(), *f)).collect();
                    let Some((name, f)) = Self::pick(&held, r) else {
                        return;
                    };
                    self.reserved.remove(&name);
                    Decision::NamesReleased {
                        federate: f,
                        names: vec![name],
                    }
                }
                9 => {
                    let Some(h) = Self::pick(&feds, r) else {
                        return;
                    };
                    let label = format!("p{}", r % 3);
                    if self.points.contains_key(&label) {
                        return;
                    }
                    self.points
                        .insert(label.clone(), feds.iter().copied().collect());
                    let req = self.req(self.federates[&h]);
                    Decision::SyncRegistered {
                        label,
                        tag: Vec::new(),
                        set: None,
                        registrant: h,
                        req,
                    }
                }
                10 => {
                    let open: Vec<(String, FederateHandle)> = self
                        .points
                        .iter()
                        .flat_map(|(l, w)| w.iter().map(move |f| (l.clone(), *f)))
                        .collect();
                    let Some((label, f)) = Self::pick(&open, r) else {
                        return;
                    };
                    if let Some(w) = self.points.get_mut(&label) {
                        w.remove(&f);
                        if w.is_empty() {
                            self.points.remove(&label);
                        }
                    }
                    let req = self.req(self.federates[&f]);
                    Decision::SyncAchieved {
                        label,
                        federate: f,
                        success: true,
                        req,
                    }
                }
                14 => {
                    // A save of every joined federate (the coordinator decides one only when
                    // none is in progress).
                    if self.save.is_some() {
                        return;
                    }
                    let node = Self::pick(&self.nodes, r).unwrap_or(1);
                    let members: Vec<FederateHandle> = feds.clone();
                    if !members.is_empty() {
                        self.save = Some(members.iter().map(|h| (*h, false)).collect());
                    }
                    self.saves += 1;
                    let req = self.req(node);
                    Decision::SaveInitiated {
                        label: format!("s{}", self.saves % 4),
                        time: None,
                        members,
                        req,
                    }
                }
                15 => {
                    // A member reports: begun, complete, or (1 in 8) not complete.
                    let Some(save) = self.save.as_mut() else {
                        return;
                    };
                    let members: Vec<FederateHandle> = save.keys().copied().collect();
                    let Some(f) = Self::pick(&members, r) else {
                        return;
                    };
                    let report = match (r / 7) % 8 {
                        0 => SaveReport::NotComplete,
                        1..=3 => SaveReport::Begun,
                        _ => SaveReport::Complete,
                    };
                    if report != SaveReport::Begun {
                        save.insert(f, true);
                    }
                    if save.values().all(|done| *done) {
                        self.save = None;
                    }
                    let req = self.req(self.federates[&f]);
                    Decision::SaveReported {
                        federate: f,
                        report,
                        hw: u64::from(r),
                        req,
                    }
                }
                16 => {
                    if self.save.take().is_none() {
                        return;
                    }
                    let node = Self::pick(&self.nodes, r).unwrap_or(1);
                    let req = self.req(node);
                    Decision::SaveAborted {
                        reason:
                            super::super::save::SaveFailureReason::FederateReportedFailureDuringSave,
                        req,
                    }
                }
                _ => {
                    let (o, a) = (u64::from(r % 3), (r / 3) % 3);
                    let e = self.versions.entry((o, a)).or_insert((0, None));
                    let from = e.1;
                    let to = Self::pick(&feds, r / 9).filter(|_| !r.is_multiple_of(7));
                    if from.is_none() && to.is_none() {
                        return;
                    }
                    e.0 += 1;
                    e.1 = to;
                    let v = e.0;
                    let req = self.req(1);
                    Decision::Transfer {
                        object: ObjectInstanceHandle(o),
                        attrs: vec![(AttributeHandle(a), v)],
                        from,
                        to,
                        tag: Vec::new(),
                        silent: false,
                        req,
                    }
                }
            };
            self.out.push(d);
        }
    }

    /// Everything a joiner derives from the log, as text (the replicated state).
    fn replicated(c: &FederationCore) -> String {
        let v = c.view();
        format!(
            "nodes {:?}\nfederates {:?}\nreserved {:?}\nnext {}\nran_on {:?}\ndue {:?}\n\
             destroyed {}\nlast {}\nsync {:?}\nsave {:?}\nrestore {:?} {}\nearly {:?}\n\
             removed {:?}\nleft {:?}\nlocals {:?}\nlast save {:?}",
            v.nodes,
            v.federates,
            v.reserved,
            v.next_handle,
            v.ran_on,
            v.left_behind_due,
            v.destroyed,
            v.last(),
            c.sync,
            c.save.current(),
            c.restore.current(),
            c.restore.epoch(),
            c.ownership.early,
            c.removed,
            c.left,
            c.locals.keys().collect::<Vec<_>>(),
            c.mom.last_save,
        )
    }

    /// The member's replicated state, without what only a joiner's snapshots bring.
    fn member_view(c: &FederationCore) -> String {
        let v = c.view();
        format!(
            "{:?} {:?} {:?} {} {:?} {:?} {} {} {:?}",
            v.nodes,
            v.federates,
            v.reserved,
            v.next_handle,
            v.ran_on,
            v.left_behind_due,
            v.destroyed,
            v.last(),
            c.sync,
        )
    }

    fn welcome(base: u64, folded: Vec<Numbered>, log: Vec<Decision>) -> FederationCore {
        let mut j = FederationCore::joining("F", 99, 0, vec![1]);
        j.handle(
            0,
            Event::Control {
                from: 1,
                msg: ControlMsg::Welcome {
                    base,
                    folded,
                    log,
                    modules: Vec::new(),
                    time_kind: Default::default(),
                },
            },
        );
        assert!(j.is_admitted());
        j
    }

    /// Runs `ops` on a member (folding every `fold` steps when non-zero), then admits one
    /// joiner with the member's compacted log and one with the whole log.
    fn run(ops: &[(u8, u32)], fold: usize) -> (FederationCore, FederationCore, FederationCore) {
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        let mut model = Model {
            nodes: vec![1],
            ..Model::default()
        };
        let mut full: Vec<Decision> = m.view().log.clone();
        for (i, (op, r)) in ops.iter().enumerate() {
            model.step(*op, *r);
            if fold != 0 && i % fold == fold - 1 && m.view().last() > 2 {
                model.out.push(Decision::Fold {
                    upto: m.view().last() - 1,
                    settled: model.settled(),
                });
            }
            for d in model.out.drain(..) {
                full.push(d.clone());
                m.apply_decision(d);
            }
        }
        m.apply_decision(Decision::NodeAdded(99));
        full.push(Decision::NodeAdded(99));
        let v = m.view().clone();
        let compacted = welcome(v.base, v.folded.clone(), v.log.clone());
        let whole = welcome(0, Vec::new(), full);
        (m, compacted, whole)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// A joiner admitted with the compacted log holds what one admitted with every
        /// decision holds, and what the member that applied every decision holds.
        #[test]
        fn a_compacted_log_replays_to_the_same_state(
            ops in proptest::collection::vec((any::<u8>(), any::<u32>()), 0..300),
            fold in 0usize..40,
        ) {
            let (m, compacted, whole) = run(&ops, fold);
            prop_assert_eq!(replicated(&compacted), replicated(&whole));
            prop_assert_eq!(member_view(&compacted), member_view(&m));
            prop_assert_eq!(compacted.view().last(), m.view().last());
        }

        /// Folding everything at once and folding in steps give replay-equivalent logs, and
        /// folding a folded log again changes nothing.
        #[test]
        fn folding_again_changes_nothing(
            ops in proptest::collection::vec((any::<u8>(), any::<u32>()), 0..200),
        ) {
            let (m, _, _) = run(&ops, 0);
            let all: Vec<Numbered> = m.view().numbered().map(|(n, d)| (n, d.clone())).collect();
            let settled: Settled = all.iter().filter_map(|(_, d)| req_of(d)).map(|(n, _)| (n, u64::MAX)).collect();
            let once = compact(&all, &settled);
            let twice = compact(&once, &settled);
            prop_assert_eq!(&once, &twice);
            let base = m.view().last();
            let a = welcome(base, once, Vec::new());
            let b = welcome(0, Vec::new(), m.view().log.clone());
            prop_assert_eq!(replicated(&a), replicated(&b));
        }
    }

    #[test]
    fn unsettled_requests_are_still_answered_after_a_fold() {
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        m.apply_decision(Decision::NodeAdded(2));
        let join = |h: u32, id: u64| Decision::FederateJoined {
            handle: FederateHandle(h),
            name: format!("f{h}"),
            federate_type: "t".into(),
            node: 2,
            req: (2, id),
        };
        let resign = |h: u32| Decision::FederateResigned {
            handle: FederateHandle(h),
            action: ResignAction::DeleteObjects,
            hw: 0,
        };
        m.apply_decision(join(1, 1));
        m.apply_decision(resign(1));
        m.apply_decision(join(2, 2));
        m.apply_decision(resign(2));
        // LRC 2 still retries request 2: its join stays, request 1's folds.
        m.apply_decision(Decision::Fold {
            upto: m.view().last(),
            settled: vec![(2, 2)],
        });
        m.apply_decision(Decision::Fold {
            upto: m.view().last() - 1,
            settled: vec![(2, 2)],
        });
        assert!(m.view().answered((2, 1)).is_none(), "folded");
        assert!(
            matches!(
                m.view().answered((2, 2)),
                Some(Decision::FederateJoined { .. })
            ),
            "{:?}",
            m.view().folded
        );
        assert_eq!(m.view().ran_on.len(), 2);
        assert_eq!(m.view().next_handle, 3);
    }

    /// The documented bounds (`docs/ARCHITECTURE.md`, "Decision log compaction").
    #[test]
    fn a_welcome_stays_bounded() {
        // 100,000 ownership transfers of one attribute between two federates, folded as the
        // coordinator folds.
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        let mut unfolded = 0usize;
        m.apply_decision(fed_req(1, 1));
        m.apply_decision(fed_req(2, 2));
        let mut id = 10;
        let mut owner = Some(FederateHandle(1));
        for v in 1..=100_000u32 {
            let to = Some(FederateHandle(if v % 2 == 0 { 1 } else { 2 }));
            id += 1;
            let d = Decision::Transfer {
                object: ObjectInstanceHandle(7),
                attrs: vec![(AttributeHandle(3), v)],
                from: owner,
                to,
                tag: b"tag".to_vec(),
                silent: false,
                req: (1, id),
            };
            unfolded += postcard::to_allocvec(&d).map_or(0, |b| b.len());
            m.apply_decision(d);
            owner = to;
            fold_like_a_coordinator(&mut m, id + 1);
        }
        let v = m.view();
        let size = WelcomeSize::of(v.base, &v.folded, &v.log);
        eprintln!("100,000 transfers: log {unfolded} B unfolded, welcome {size:?}");
        assert!(size.bytes < 16 * 1024, "{size:?}");

        // 10,000 join/resign cycles of one LRC.
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        let unfolded = join_resign_cycles(&mut m, 1..=10_000);
        let v = m.view();
        let size = WelcomeSize::of(v.base, &v.folded, &v.log);
        eprintln!("10,000 join/resign cycles: log {unfolded} B unfolded, welcome {size:?}");
        assert!(size.bytes < 16 * 1024, "{size:?}");
        assert_eq!(v.next_handle, 10_001);
        assert_eq!(v.ran_on.len(), 10_000);

        // 1,000 LRCs that each joined with a federate, registered 5 instances of 100-byte
        // values and were lost (a kill -9 soak's churn): what stays of each is its removal,
        // an empty `LeftBehind` and its federate's handle in a `Retired`.
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        let mut unfolded = 0usize;
        for k in 1..=1_000u32 {
            let node = 100 + u64::from(k);
            let h = FederateHandle(k);
            let instances = (0..5u64)
                .map(|i| super::super::wire::InstanceState {
                    object: ObjectInstanceHandle((u64::from(k) << 32) | i),
                    class: crate::handles::ObjectClassHandle(4),
                    name: format!("HLAobject{k}_{i}"),
                    owners: vec![(AttributeHandle(3), Some(h), 1)],
                    values: vec![(AttributeHandle(3), vec![7; 100])],
                })
                .collect();
            let cycle = [
                Decision::NodeAdded(node),
                Decision::FederateJoined {
                    handle: h,
                    name: format!("car{k}"),
                    federate_type: "car".into(),
                    node,
                    req: (node, 1),
                },
                Decision::NodeRemoved(node),
                Decision::LeftBehind {
                    node,
                    federates: vec![h],
                    instances,
                },
            ];
            for d in cycle {
                unfolded += postcard::to_allocvec(&d).map_or(0, |b| b.len());
                m.apply_decision(d);
            }
            fold_like_a_coordinator(&mut m, 1);
        }
        let v = m.view();
        let size = WelcomeSize::of(v.base, &v.folded, &v.log);
        eprintln!(
            "1,000 lost LRCs: log {unfolded} B unfolded, welcome {size:?}, folded {} B",
            WelcomeSize::of(v.base, &v.folded, &[]).bytes
        );
        // At most about 20 bytes of each lost LRC stay, beside up to FOLD_EVERY verbatim
        // decisions of the tail (about 180 cycles of 700 B).
        let tail: usize = v
            .log
            .iter()
            .map(|d| postcard::to_allocvec(d).map_or(0, |b| b.len()))
            .sum();
        assert!(size.bytes - tail < 1_000 * 24, "{size:?}, tail {tail} B");
        assert!(m.removed.len() == 1_000 && v.left_behind_due.is_empty());
        assert_eq!(v.ran_on.len(), 1_000);
        assert!(
            v.folded
                .iter()
                .all(|(_, d)| !matches!(d, Decision::NodeAdded(n) if *n > 100))
        );

        // 2,000 periodic saves of 4 federates, one of which is replaced after every save (a
        // federate that lives across saves), every fourth save failing: what stays is the
        // federates joined now and the last save that succeeded.
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        let mut unfolded = 0usize;
        let mut id = 0u64;
        let mut next = 1u32;
        let mut joined: Vec<u32> = Vec::new();
        let apply = |m: &mut FederationCore, d: Decision, unfolded: &mut usize| {
            *unfolded += postcard::to_allocvec(&d).map_or(0, |b| b.len());
            m.apply_decision(d);
        };
        for k in 1..=2_000u32 {
            while joined.len() < 4 {
                id += 1;
                apply(&mut m, fed_req(next, id), &mut unfolded);
                joined.push(next);
                next += 1;
            }
            id += 1;
            apply(
                &mut m,
                Decision::SaveInitiated {
                    label: format!("every-minute-{k}"),
                    time: None,
                    members: joined.iter().map(|h| FederateHandle(*h)).collect(),
                    req: (1, id),
                },
                &mut unfolded,
            );
            for (i, h) in joined.clone().into_iter().enumerate() {
                for report in [SaveReport::Begun, SaveReport::Complete] {
                    let report = if k % 4 == 0 && i == 0 && report == SaveReport::Complete {
                        SaveReport::NotComplete
                    } else {
                        report
                    };
                    id += 1;
                    apply(
                        &mut m,
                        Decision::SaveReported {
                            federate: FederateHandle(h),
                            report,
                            hw: u64::from(k),
                            req: (1, id),
                        },
                        &mut unfolded,
                    );
                }
            }
            let gone = joined.remove(0);
            apply(
                &mut m,
                Decision::FederateResigned {
                    handle: FederateHandle(gone),
                    action: ResignAction::DeleteObjects,
                    hw: 0,
                },
                &mut unfolded,
            );
            fold_like_a_coordinator(&mut m, id + 1);
        }
        let v = m.view();
        let size = WelcomeSize::of(v.base, &v.folded, &v.log);
        let folded = WelcomeSize::of(v.base, &v.folded, &[]);
        eprintln!("2,000 saves: log {unfolded} B unfolded, welcome {size:?}, folded {folded:?}");
        assert!(folded.bytes < 2 * 1024, "{folded:?}");
        assert_eq!(
            m.mom.last_save,
            Some(("every-minute-1999".to_string(), None))
        );
        assert!(m.save.current().is_none());

        // A restore that committed (federate 1 takes its saved handle 7), one that failed,
        // then 10,000 join/resign cycles: what follows a restore folds as before it.
        use super::super::restore::{RestoreReport, SavedMember, SavedMembership};
        let mut m = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        m.apply_decision(fed_req(1, 1));
        let restore = |label: &str, pre: u32, req: u64| Decision::RestoreInitiated {
            label: label.into(),
            requester: FederateHandle(1),
            saved: SavedMembership {
                save_id: 2,
                federates: vec![SavedMember {
                    handle: FederateHandle(7),
                    name: "f1".into(),
                    federate_type: "t".into(),
                }],
                reserved: vec![("kept".into(), FederateHandle(7))],
                next_handle: 8,
                sync: Vec::new(),
                auto_provide: None,
            },
            mapping: vec![(FederateHandle(pre), FederateHandle(7))],
            req: (1, req),
        };
        let report = |f: u32, report: RestoreReport, req: u64| Decision::RestoreReported {
            federate: FederateHandle(f),
            report,
            req: (1, req),
        };
        for d in [
            restore("R", 1, 2),
            report(1, RestoreReport::Loaded, 3),
            report(7, RestoreReport::Complete, 4),
            restore("R", 7, 5),
            report(7, RestoreReport::Unable("no file".into()), 6),
        ] {
            m.apply_decision(d);
        }
        assert!(m.view().federates.contains_key(&FederateHandle(7)));
        let unfolded = join_resign_cycles(&mut m, 8..=10_007);
        let v = m.view();
        let folded = WelcomeSize::of(v.base, &v.folded, &[]);
        eprintln!(
            "a restore, then 10,000 join/resign cycles: log {unfolded} B unfolded, folded {folded:?}"
        );
        assert!(folded.bytes < 2 * 1024, "{folded:?}");
        // The committed restore stays, the failed one went.
        let restores = v
            .folded
            .iter()
            .filter(|(_, d)| matches!(d, Decision::RestoreInitiated { .. }))
            .count();
        assert_eq!(restores, 1);
        assert!(v.reserved.contains_key("kept"));
        assert_eq!(m.restore.epoch(), 1);
        // A joiner welcomed with the compacted log holds what the member holds.
        let v = m.view().clone();
        m.apply_decision(Decision::NodeAdded(99));
        let joiner = welcome(v.base, v.folded.clone(), {
            let mut log = v.log.clone();
            log.push(Decision::NodeAdded(99));
            log
        });
        assert_eq!(member_view(&joiner), member_view(&m));
        assert_eq!(joiner.restore.epoch(), 1);
    }

    /// Joins and resigns each federate of `handles` on LRC 1, folding as the coordinator does;
    /// returns the encoded size of those decisions.
    fn join_resign_cycles(m: &mut FederationCore, handles: std::ops::RangeInclusive<u32>) -> usize {
        let mut unfolded = 0;
        for h in handles {
            let j = fed_req(h, u64::from(h));
            let r = Decision::FederateResigned {
                handle: FederateHandle(h),
                action: ResignAction::DeleteObjects,
                hw: 0,
            };
            unfolded += postcard::to_allocvec(&j).map_or(0, |b| b.len())
                + postcard::to_allocvec(&r).map_or(0, |b| b.len());
            m.apply_decision(j);
            m.apply_decision(r);
            fold_like_a_coordinator(m, u64::from(h) + 1);
        }
        unfolded
    }

    fn fed_req(h: u32, id: u64) -> Decision {
        Decision::FederateJoined {
            handle: FederateHandle(h),
            name: format!("f{h}"),
            federate_type: "t".into(),
            node: 1,
            req: (1, id),
        }
    }

    /// What [`FederationCore::maybe_fold`] decides, for a member alone.
    fn fold_like_a_coordinator(m: &mut FederationCore, settled: u64) {
        let v = m.view();
        if (v.log.len() as u64) < FOLD_EVERY {
            return;
        }
        let upto = v.last() - KEEP;
        m.apply_decision(Decision::Fold {
            upto,
            settled: vec![(1, settled)],
        });
    }

    #[test]
    fn only_the_last_federation_switches_stay() {
        let log: Vec<Numbered> = vec![
            (1, Decision::NodeAdded(1)),
            (2, Decision::FederationSwitches { auto_provide: true }),
            (
                3,
                Decision::FederationSwitches {
                    auto_provide: false,
                },
            ),
            (4, Decision::FederationSwitches { auto_provide: true }),
        ];
        let folded = compact(&log, &Settled::new());
        let switches: Vec<&Numbered> = folded
            .iter()
            .filter(|(_, d)| matches!(d, Decision::FederationSwitches { .. }))
            .collect();
        assert_eq!(
            switches,
            vec![&(4, Decision::FederationSwitches { auto_provide: true })],
            "a replay ends with the last one's value"
        );
    }
}
