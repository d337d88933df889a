//! Federation restore (IEEE 1516-2010 4.24–4.32), replicated through the coordinator's decision
//! log, in two phases so that a restore that cannot happen leaves the running federation as it
//! was.
//!
//! 1. `request_federation_restore(label)`: the requester's LRC reads its own save file of that
//!    label and sends the federation as saved ([`SavedMembership`]: federates, handles, reserved
//!    names, handle allocator, synchronization points). The coordinator matches the joined
//!    federates to the saved ones by type and count — same name and type first, then by handle
//!    order within a type — and decides [`Decision::RestoreInitiated`] with the mapping, or
//!    [`Decision::RestoreDenied`] (no such save, unreadable file, federates do not match, a save
//!    or restore in progress). The requester hears `request_federation_restore_succeeded` /
//!    `_failed`, every federate `federation_restore_begun`.
//! 2. **Prepare**: each LRC reads and checks the save file of every local federate
//!    ([`Action::LoadRestore`]; the shell does the I/O and answers with
//!    [`FederationCore::restore_loaded`]) and reports `Loaded` or `Unable(reason naming the
//!    file)`. One `Unable` ends the restore with `federation_not_restored(RTI_UNABLE_TO_RESTORE)`
//!    before anything changed; every federate gets the reason with the file named (a missing
//!    file as much as a corrupt or truncated one), not only the LRC's log.
//! 3. **Commit**: the decision that records the last `Loaded` is the commit point. Every LRC, at
//!    that same place in the log, replaces its state with the saved one: membership (every
//!    federate takes its saved handle and name, on the LRC where it runs now), reserved names,
//!    synchronization points, instances with owners and values, declarations, handle
//!    allocators, and each local federate's time manager (logical time, lookahead, regulation,
//!    constraint, queued TSO messages, the pending advance — see
//!    `hlamesh_timesync::TimeManager::restored`). The federation's handle allocator continues
//!    above both the saved and the current one, so new handles never collide. Then each federate
//!    gets `initiate_federate_restore(label, saved name, saved handle)` and restores its own
//!    state; when all reported, `federation_restored` or `federation_not_restored(reason)`.
//!
//! Data and time messages of the abandoned run must not leak into the restored one: each LRC
//! counts the restores it applied (its *epoch*). At the commit it sends [`DataMsg::Epoch`] on its
//! reliable stream before anything else; receivers drop a sender's data from before its marker
//! once they committed, and hold data after the marker until they committed too. Time messages
//! carry the epoch and are dropped or held the same way.
//!
//! Decided here: a federate that resigns or is lost during a restore fails it
//! (`FEDERATE_RESIGNED_DURING_RESTORE` / `RTI_DETECTED_FAILURE_DURING_RESTORE`); after the commit
//! the restored state stays (the standard leaves it undefined). `abort_federation_restore`
//! before the commit leaves the federation untouched. Joins are refused while a restore is in
//! progress. Synchronization points pending at the save are restored as they were (their
//! announcements are not repeated: the federate's own saved state knows them).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::RtiError;
use crate::handles::FederateHandle;

use super::advisory::Advice;
use super::declarations::{Declarations, ObjectSubscription};
use super::membership::FederateRecord;
use super::objects::Instance;
use super::save::{SavedFederateState, SavedInstance};
use super::sync_point::SyncPoint;
use super::wire::{DataMsg, Decision, Declaration, Reply, Request};
use super::{Action, Callback, FederationCore, LocalFederate, Node};

/// A federate as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMember {
    /// Handle at the save.
    pub handle: FederateHandle,
    /// Name at the save.
    pub name: String,
    /// Federate type.
    pub federate_type: String,
}

/// The federation-wide part of a save, the same in every federate's file of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMembership {
    /// Which save of the label: the log position that initiated it. A later save of the same
    /// label that failed may have rewritten some federates' files only; the restore then finds
    /// files of two saves and refuses them rather than mix them.
    pub save_id: u64,
    /// Joined federates.
    pub federates: Vec<SavedMember>,
    /// Reserved instance names.
    pub reserved: Vec<(String, FederateHandle)>,
    /// The federate handle allocator.
    pub next_handle: u32,
    /// Pending synchronization points.
    pub sync: Vec<(String, SyncPoint)>,
    /// The federation's Auto-Provide switch as `HLAsetSwitches` left it (`None`: the FDD's;
    /// see `super::mom`).
    pub auto_provide: Option<bool>,
}

/// A report on the restore in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RestoreReport {
    /// The LRC read and checked the federate's save file.
    Loaded,
    /// The LRC cannot restore the federate (the reason names the file).
    Unable(String),
    /// `federate_restore_complete`.
    Complete,
    /// `federate_restore_not_complete`.
    NotComplete,
}

/// Why a federation restore failed (4.29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RestoreFailureReason {
    /// An LRC could not read or use its part of the save.
    RtiUnableToRestore,
    /// A federate called `federate_restore_not_complete`.
    FederateReportedFailureDuringRestore,
    /// A federate resigned during the restore.
    FederateResignedDuringRestore,
    /// A federate's LRC was lost during the restore.
    RtiDetectedFailureDuringRestore,
    /// `abort_federation_restore` was called.
    RestoreAborted,
}

/// One federate's progress in a restore (4.32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RestoreStatus {
    /// No restore in progress.
    NoRestoreInProgress,
    /// The restore was requested, not decided yet.
    FederateRestoreRequestPending,
    /// Its LRC is reading the save.
    FederateWaitingForRestoreToBegin,
    /// Its LRC has the save and waits for the others.
    FederatePreparedToRestore,
    /// Told to restore its own state.
    FederateRestoring,
    /// Restored; waits for the others.
    FederateWaitingForFederationToRestore,
}

/// A federate taking part in a restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreMember {
    /// Handle before the restore.
    pub pre: FederateHandle,
    /// Handle after it (as saved).
    pub post: FederateHandle,
    /// Name after it.
    pub name: String,
    /// Type.
    pub federate_type: String,
    /// Progress.
    pub status: RestoreStatus,
}

/// The restore in progress, identical on every member.
#[derive(Debug, Clone, PartialEq)]
pub struct RestoreInProgress {
    /// Label.
    pub label: String,
    /// Requesting federate (handle before the restore).
    pub requester: FederateHandle,
    /// The federation as saved.
    pub saved: SavedMembership,
    /// Every joined federate.
    pub members: Vec<RestoreMember>,
    /// The state was replaced (handles are the saved ones from here on).
    pub committed: bool,
    /// Why it will fail, once a member reported a failure, with the words the federates get.
    pub failed: Option<(RestoreFailureReason, String)>,
    /// Data callbacks held at the save for local federates: delivered after
    /// `federation_restored`, as they were after `federation_saved`.
    pub held: BTreeMap<FederateHandle, Vec<Callback>>,
}

impl RestoreInProgress {
    /// The member a decision about `h` refers to: pre-restore handles before the commit, saved
    /// handles after it.
    fn member_mut(&mut self, h: FederateHandle) -> Option<&mut RestoreMember> {
        let committed = self.committed;
        self.members
            .iter_mut()
            .find(|m| if committed { m.post == h } else { m.pre == h })
    }

    fn member(&self, h: FederateHandle) -> Option<&RestoreMember> {
        self.members.iter().find(|m| {
            if self.committed {
                m.post == h
            } else {
                m.pre == h
            }
        })
    }
}

impl RestoreInProgress {
    /// Applies a [`Decision::RestoreReported`] of `federate` (see the module docs): what the
    /// core must do next. Reports that do not fit the restore's stage (a load after the commit,
    /// a completion before it) or come from a non-member change nothing.
    pub(crate) fn record(
        &mut self,
        federate: FederateHandle,
        report: &RestoreReport,
    ) -> RestoreStep {
        let committed = self.committed;
        let Some(m) = self.member_mut(federate) else {
            return RestoreStep::Continue;
        };
        match report {
            RestoreReport::Loaded if !committed => {
                m.status = RestoreStatus::FederatePreparedToRestore;
                if self
                    .members
                    .iter()
                    .all(|m| m.status == RestoreStatus::FederatePreparedToRestore)
                {
                    RestoreStep::Commit
                } else {
                    RestoreStep::Continue
                }
            }
            RestoreReport::Unable(detail) if !committed => RestoreStep::End(Some((
                RestoreFailureReason::RtiUnableToRestore,
                detail.clone(),
            ))),
            RestoreReport::Complete | RestoreReport::NotComplete if committed => {
                m.status = RestoreStatus::FederateWaitingForFederationToRestore;
                if *report == RestoreReport::NotComplete {
                    let detail = format!("federate {} could not restore its state", m.name);
                    self.failed.get_or_insert((
                        RestoreFailureReason::FederateReportedFailureDuringRestore,
                        detail,
                    ));
                }
                if self
                    .members
                    .iter()
                    .all(|m| m.status == RestoreStatus::FederateWaitingForFederationToRestore)
                {
                    RestoreStep::End(self.failed.take())
                } else {
                    RestoreStep::Continue
                }
            }
            _ => RestoreStep::Continue,
        }
    }
}

/// What a report on the restore in progress calls for ([`RestoreInProgress::record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RestoreStep {
    /// Nothing beyond the member's new status.
    Continue,
    /// Every member's state was loaded: the commit point (module docs, step 3).
    Commit,
    /// The restore ends: `federation_restored` (`None`) or `federation_not_restored`.
    End(Option<(RestoreFailureReason, String)>),
}

/// What a restore's commit hands the core to install ([`RestoreState::commit`]).
#[derive(Debug)]
pub(crate) struct Commit {
    /// The restore, committed (every member restoring, handles the saved ones from here on).
    pub(crate) restore: RestoreInProgress,
    /// The epoch of the run the commit abandons.
    pub(crate) old_epoch: u32,
    /// The saved states of the local federates, by handle before the restore.
    pub(crate) loaded: BTreeMap<FederateHandle, SavedFederateState>,
}

/// Everything this LRC knows about federation restores: the replicated restore in progress,
/// the save files read for it, the reports local federates made before their decisions, and
/// the epoch (how many restores this LRC committed, which names the run its data belongs to).
///
/// Invariants, kept by its methods:
///
/// - Without a restore in progress nothing is loaded and no report is remembered:
///   [`Self::begin`] starts both empty, [`Self::end`] empties them with the restore.
/// - Saved states are loaded only before the commit, for members of the restore, and the
///   commit takes them all (they become the local federates): after it nothing is loaded.
/// - A local federate reports on the restore at most once, and only after the commit (when it
///   restores its own state).
/// - The epoch counts the commits: [`Self::commit`] raises it by one, once per restore (a
///   committed restore is not committed again), and nothing else changes it. It is kept here,
///   not by the concerns that read it (data streams, time messages, ownership and coordinator
///   requests compare against it), because a commit is the only thing that moves it.
#[derive(Debug, Default)]
pub(crate) struct RestoreState {
    /// The restore in progress (replicated: identical on every member).
    current: Option<RestoreInProgress>,
    /// Saved states of local federates read for the restore in progress (by current handle).
    loaded: BTreeMap<FederateHandle, SavedFederateState>,
    /// Local federates that reported on the restore in progress, before the decisions.
    reports_made: BTreeSet<FederateHandle>,
    /// Data and time callbacks of the restored run that reached local members after the commit
    /// (another LRC ended its restore and sent again), in order: delivered after
    /// `federation_restored` and after what the save held, never ahead of them.
    arrived: Vec<(FederateHandle, Callback)>,
    /// Number of federation restores committed here.
    epoch: u32,
}

impl RestoreState {
    /// The restore in progress, if any.
    pub(crate) fn current(&self) -> Option<&RestoreInProgress> {
        self.current.as_ref()
    }

    /// The restore in progress, to apply a decision to.
    pub(crate) fn current_mut(&mut self) -> Option<&mut RestoreInProgress> {
        self.current.as_mut()
    }

    /// Number of federation restores committed here (the epoch of this LRC's data).
    pub(crate) fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Begins `r` (loads, reports and held callbacks start empty).
    pub(crate) fn begin(&mut self, r: RestoreInProgress) {
        self.loaded.clear();
        self.reports_made.clear();
        self.arrived.clear();
        self.current = Some(r);
    }

    /// Holds a data or time callback for local federate `f` while a committed restore is in
    /// progress and `f` is one of its members (it is restoring its own state); gives it back
    /// otherwise (`Some`).
    pub(crate) fn hold(&mut self, f: FederateHandle, cb: Callback) -> Option<Callback> {
        if self
            .current
            .as_ref()
            .is_some_and(|r| r.committed && r.member(f).is_some())
        {
            self.arrived.push((f, cb));
            None
        } else {
            Some(cb)
        }
    }

    /// The callbacks held for local federate `f` while it restores its state: those its save
    /// held, then those the restored run sent it since the commit.
    pub(crate) fn held_for(&self, f: FederateHandle) -> impl Iterator<Item = &Callback> {
        self.current
            .iter()
            .flat_map(move |r| r.held.get(&f).into_iter().flatten())
            .chain(
                self.arrived
                    .iter()
                    .filter(move |(g, _)| *g == f)
                    .map(|(_, cb)| cb),
            )
    }

    /// The save file of local federate `f` was read and checked. Ignored unless `f` is a member
    /// of the restore in progress and it has not committed.
    pub(crate) fn load(&mut self, f: FederateHandle, st: SavedFederateState) {
        if self
            .current
            .as_ref()
            .is_some_and(|r| !r.committed && r.member(f).is_some())
        {
            self.loaded.insert(f, st);
        }
    }

    /// Whether local federate `f` may report `federate_restore_complete` / `_not_complete`:
    /// the restore committed, `f` is restoring, and it has not reported yet.
    pub(crate) fn may_report(&self, f: FederateHandle) -> bool {
        let status = self
            .current
            .as_ref()
            .filter(|r| r.committed)
            .and_then(|r| r.member(f))
            .map(|m| m.status);
        status == Some(RestoreStatus::FederateRestoring) && !self.reports_made.contains(&f)
    }

    /// Local federate `f` reported (before the decision): a second report is refused. Ignored
    /// unless `f` may report ([`Self::may_report`]).
    pub(crate) fn report_made(&mut self, f: FederateHandle) {
        if self.may_report(f) {
            self.reports_made.insert(f);
        }
    }

    /// The commit point: the restore in progress is committed (every member restoring), the
    /// epoch moves on and the loaded states are handed over. `None`, and nothing changes, with
    /// no restore in progress or one already committed.
    pub(crate) fn commit(&mut self) -> Option<Commit> {
        let r = self.current.as_mut().filter(|r| !r.committed)?;
        r.committed = true;
        for m in &mut r.members {
            m.status = RestoreStatus::FederateRestoring;
        }
        let restore = r.clone();
        let old_epoch = self.epoch;
        self.epoch += 1;
        Some(Commit {
            restore,
            old_epoch,
            loaded: std::mem::take(&mut self.loaded),
        })
    }

    /// Ends the restore in progress (`None` if none was), with the callbacks held since its
    /// commit: loads and reports are forgotten.
    pub(crate) fn end(&mut self) -> Option<(RestoreInProgress, Vec<(FederateHandle, Callback)>)> {
        self.loaded.clear();
        self.reports_made.clear();
        let arrived = std::mem::take(&mut self.arrived);
        self.current.take().map(|r| (r, arrived))
    }
}

/// Matches the joined federates to the saved ones by type and count (see the module docs).
/// Returns (handle now, saved handle) pairs, or why they do not match.
pub fn match_federates(
    joined: &BTreeMap<FederateHandle, FederateRecord>,
    saved: &SavedMembership,
) -> Result<Vec<(FederateHandle, FederateHandle)>, String> {
    fn count(types: Vec<&str>) -> BTreeMap<&str, usize> {
        let mut m: BTreeMap<&str, usize> = BTreeMap::new();
        for t in types {
            *m.entry(t).or_default() += 1;
        }
        m
    }
    let now = count(joined.values().map(|r| r.federate_type.as_str()).collect());
    let then = count(
        saved
            .federates
            .iter()
            .map(|m| m.federate_type.as_str())
            .collect(),
    );
    if now != then {
        return Err(format!(
            "the joined federates do not match the saved ones by type and count: saved {then:?}, joined {now:?}"
        ));
    }
    let mut free_now: BTreeSet<FederateHandle> = joined.keys().copied().collect();
    let mut free_saved: BTreeSet<FederateHandle> =
        saved.federates.iter().map(|m| m.handle).collect();
    let mut pairs = Vec::new();
    for m in &saved.federates {
        if let Some((h, _)) = joined.iter().find(|(h, r)| {
            free_now.contains(h) && r.name == m.name && r.federate_type == m.federate_type
        }) {
            free_now.remove(h);
            free_saved.remove(&m.handle);
            pairs.push((*h, m.handle));
        }
    }
    for s in free_saved {
        let Some(m) = saved.federates.iter().find(|m| m.handle == s) else {
            continue;
        };
        let Some(h) = free_now.iter().copied().find(|h| {
            joined
                .get(h)
                .is_some_and(|r| r.federate_type == m.federate_type)
        }) else {
            return Err(format!(
                "no joined federate of type {} left",
                m.federate_type
            ));
        };
        free_now.remove(&h);
        pairs.push((h, s));
    }
    pairs.sort();
    Ok(pairs)
}

/// A local federate as saved with its advisory switches (the advisories themselves are
/// recomputed after the restore).
fn local_from_saved(st: &SavedFederateState) -> LocalFederate {
    let mut decl = Declarations::default();
    for (c, attrs) in &st.published_objects {
        decl.published_objects
            .insert(*c, attrs.iter().copied().collect());
    }
    decl.published_interactions = st.published_interactions.iter().copied().collect();
    for (c, attrs, active) in &st.subscribed_objects {
        decl.subscribed_objects.insert(
            *c,
            ObjectSubscription {
                attrs: attrs.iter().copied().collect(),
                active: *active,
            },
        );
    }
    decl.subscribed_interactions = st.subscribed_interactions.iter().copied().collect();
    for (c, designator, interval_us) in &st.subscribed_rates {
        decl.rates.insert(
            *c,
            super::update_rate::SubscribedRate {
                designator: designator.clone(),
                interval_us: *interval_us,
            },
        );
    }
    LocalFederate {
        name: st.federate_name.clone(),
        decl,
        known: st
            .instances
            .iter()
            .filter_map(|i| i.known_as.map(|c| (i.object, c)))
            .collect(),
        next_counter: st.next_counter,
        auto_resign: st.auto_resign,
        orders: Default::default(),
        advice: Advice {
            switches: st.switches,
            ..Advice::default()
        },
    }
}

fn instance_from_saved(i: &SavedInstance, origin: Node) -> Instance {
    Instance {
        class: i.class,
        name: i.name.clone(),
        owners: i.owners.iter().copied().collect(),
        versions: i.versions.iter().copied().collect(),
        values: i.values.iter().cloned().collect(),
        origin,
    }
}

impl FederationCore {
    /// The restore in progress, if any (replicated).
    pub fn restore_in_progress(&self) -> Option<&RestoreInProgress> {
        self.restore.current()
    }

    /// Number of federation restores applied (the epoch of this LRC's data).
    pub fn restore_epoch(&self) -> u32 {
        self.restore.epoch()
    }

    /// Refuses `service` with `RestoreInProgress` while a restore is in progress (every joined
    /// federate takes part in it).
    pub(crate) fn refuse_while_restoring(
        &self,
        f: FederateHandle,
        service: &str,
    ) -> Result<(), RtiError> {
        match self.restore.current() {
            Some(r) => Err(RtiError::RestoreInProgress(format!(
                "federation {}: federate {f}: {service} while restore \"{}\" is in progress",
                self.name, r.label
            ))),
            None => Ok(()),
        }
    }

    /// The federation-wide part of the RTI state, for a save.
    pub(crate) fn capture_membership(&self) -> SavedMembership {
        SavedMembership {
            save_id: self.save.id(),
            federates: self
                .view
                .federates
                .iter()
                .map(|(h, r)| SavedMember {
                    handle: *h,
                    name: r.name.clone(),
                    federate_type: r.federate_type.clone(),
                })
                .collect(),
            reserved: self
                .view
                .reserved
                .iter()
                .map(|(n, h)| (n.clone(), *h))
                .collect(),
            next_handle: self.view.next_handle,
            sync: self
                .sync
                .iter()
                .map(|(l, p)| (l.clone(), p.clone()))
                .collect(),
            auto_provide: self.mom.auto_provide,
        }
    }

    /// 4.24: asks the federation to restore the save `label`; `saved` is what the requester's
    /// save file says about the federation (or why it could not be read).
    pub fn request_federation_restore(
        &mut self,
        f: FederateHandle,
        label: &str,
        saved: Result<SavedMembership, String>,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "requestFederationRestore")?;
        self.refuse_while_restoring(f, "requestFederationRestore")?;
        self.request(
            Request::Restore {
                federate: f,
                label: label.to_string(),
                saved,
            },
            None,
            false,
        );
        Ok(())
    }

    /// The Welcome's log was replayed: a restore it initiated and did not end yet takes this
    /// LRC's federates too. Replaying does not read save files (most restores in a log ended
    /// long ago), so those of the local members are read now. Without this, a federate whose
    /// join and the restore that includes it came in one Welcome (the restore was requested as
    /// soon as the coordinator had every saved federate joined) never reported its file loaded,
    /// and the restore waited for it for good (`rti_restore`, new processes restoring a save:
    /// one run in a few dozen under load).
    pub(crate) fn restore_after_replay(&mut self) {
        let Some(r) = self.restore.current() else {
            return;
        };
        if r.committed {
            return;
        }
        let label = r.label.clone();
        let load: Vec<(FederateHandle, String)> = r
            .members
            .iter()
            .filter(|m| self.locals.contains_key(&m.pre))
            .map(|m| (m.pre, m.name.clone()))
            .collect();
        for (federate, name) in load {
            self.actions.push_back(Action::LoadRestore {
                federate,
                label: label.clone(),
                name,
            });
        }
    }

    /// The shell read (or failed to read) the save file of local federate `f` for the restore
    /// in progress ([`Action::LoadRestore`]).
    pub fn restore_loaded(
        &mut self,
        f: FederateHandle,
        loaded: Result<SavedFederateState, String>,
    ) {
        let Some(r) = self.restore.current() else {
            return;
        };
        if r.committed {
            return;
        }
        let Some(m) = r.member(f) else { return };
        let report = match loaded {
            // `e` names the file (missing, unreadable, corrupt or truncated).
            Err(e) => RestoreReport::Unable(format!("save of {}: {e}", m.name)),
            Ok(st) if st.federation != self.name || st.label != r.label => {
                RestoreReport::Unable(format!(
                    "save file of {} is for federation {} label {}, not {} label {}",
                    m.name, st.federation, st.label, self.name, r.label
                ))
            }
            Ok(st) if st.federate != m.post || st.federate_name != m.name => {
                RestoreReport::Unable(format!(
                    "save file of {} holds federate {} ({}), expected {} ({})",
                    m.name, st.federate_name, st.federate, m.name, m.post
                ))
            }
            Ok(st) if st.time_kind != self.time.kind => RestoreReport::Unable(format!(
                "save {} of {} was made in a federation of {}, this one uses {}",
                r.label,
                m.name,
                st.time_kind.name(),
                self.time.kind.name()
            )),
            Ok(st) if st.modules != self.modules => RestoreReport::Unable(format!(
                "save {} of {} was made with other FOM modules than this federation's",
                r.label, m.name
            )),
            Ok(st) if st.membership != r.saved => RestoreReport::Unable(format!(
                "save file of {} belongs to another save of label {} (save {} here, {} requested)",
                m.name, r.label, st.membership.save_id, r.saved.save_id
            )),
            Ok(st) => {
                self.restore.load(f, st);
                RestoreReport::Loaded
            }
        };
        if let RestoreReport::Unable(e) = &report {
            tracing::error!(federation = %self.name, "restore: {e}");
        }
        self.request(
            Request::RestoreReport {
                federate: f,
                report,
            },
            None,
            false,
        );
    }

    /// 4.30 / 4.31: `f` finished restoring its own state (or could not).
    pub fn report_federate_restore(
        &mut self,
        f: FederateHandle,
        complete: bool,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        if !self.restore.may_report(f) {
            return Err(RtiError::RestoreNotRequested(format!(
                "federation {}: federate {f}: no restore was initiated for it (or it already reported)",
                self.name
            )));
        }
        // Locally at once, so a second report in a row is refused before the decision; the
        // replicated statuses change only by decisions (the outcome is derived from them).
        self.restore.report_made(f);
        let report = if complete {
            RestoreReport::Complete
        } else {
            RestoreReport::NotComplete
        };
        self.request(
            Request::RestoreReport {
                federate: f,
                report,
            },
            None,
            false,
        );
        Ok(())
    }

    /// 4.33 (abortFederationRestore).
    pub fn abort_federation_restore(&mut self, f: FederateHandle) -> Result<(), RtiError> {
        self.local(f)?;
        if self.restore.current().is_none() {
            return Err(RtiError::RestoreNotInProgress(format!(
                "federation {}: federate {f}: no restore in progress",
                self.name
            )));
        }
        self.request(Request::AbortRestore, None, false);
        Ok(())
    }

    /// 4.35: every federate's status (answered as a callback): (handle before the restore,
    /// handle after it, status).
    pub fn query_federation_restore_status(&mut self, f: FederateHandle) -> Result<(), RtiError> {
        self.local(f)?;
        let list: Vec<(FederateHandle, FederateHandle, RestoreStatus)> =
            match self.restore.current() {
                Some(r) => r
                    .members
                    .iter()
                    .map(|m| (m.pre, m.post, m.status))
                    .collect(),
                None => self
                    .view
                    .federates
                    .keys()
                    .map(|h| (*h, *h, RestoreStatus::NoRestoreInProgress))
                    .collect(),
            };
        self.callback(f, Callback::FederationRestoreStatusResponse(list));
        Ok(())
    }

    /// Coordinator side of the restore requests.
    pub(crate) fn decide_restore(&mut self, from: Node, id: u64, body: Request) -> Option<Reply> {
        let req = (from, id);
        match body {
            Request::Restore {
                federate,
                label,
                saved,
            } => {
                let denied = if let Some(s) = self.save.current() {
                    Err(format!("save \"{}\" is in progress", s.label))
                } else if let Some(r) = self.restore.current() {
                    Err(format!("restore \"{}\" is in progress", r.label))
                } else {
                    saved.and_then(|s| match_federates(&self.view.federates, &s).map(|m| (s, m)))
                };
                match denied {
                    Ok((saved, mapping)) => self.decide(Decision::RestoreInitiated {
                        label,
                        requester: federate,
                        saved,
                        mapping,
                        req,
                    }),
                    Err(reason) => self.decide(Decision::RestoreDenied {
                        federate,
                        label,
                        reason,
                        req,
                    }),
                }
                Some(Reply::Done)
            }
            Request::RestoreReport { federate, report } => {
                if self
                    .restore
                    .current()
                    .is_some_and(|r| r.member(federate).is_some())
                {
                    self.decide(Decision::RestoreReported {
                        federate,
                        report,
                        req,
                    });
                }
                Some(Reply::Done)
            }
            Request::AbortRestore => {
                if self.restore.current().is_some() {
                    self.decide(Decision::RestoreAborted { req });
                }
                Some(Reply::Done)
            }
            _ => None,
        }
    }

    /// Applies a restore decision on this member (every member does the same).
    pub(crate) fn apply_restore(&mut self, d: &Decision) {
        match d {
            Decision::RestoreDenied {
                federate,
                label,
                reason,
                ..
            } if self.locals.contains_key(federate) => {
                self.callback(
                    *federate,
                    Callback::RequestFederationRestoreFailed {
                        label: label.clone(),
                        reason: reason.clone(),
                    },
                );
            }
            Decision::RestoreInitiated {
                label,
                requester,
                saved,
                mapping,
                ..
            } => {
                let members: Vec<RestoreMember> = mapping
                    .iter()
                    .filter(|(pre, _)| self.view.federates.contains_key(pre))
                    .filter_map(|(pre, post)| {
                        let m = saved.federates.iter().find(|m| m.handle == *post)?;
                        Some(RestoreMember {
                            pre: *pre,
                            post: *post,
                            name: m.name.clone(),
                            federate_type: m.federate_type.clone(),
                            status: RestoreStatus::FederateWaitingForRestoreToBegin,
                        })
                    })
                    .collect();
                self.restore.begin(RestoreInProgress {
                    label: label.clone(),
                    requester: *requester,
                    saved: saved.clone(),
                    members: members.clone(),
                    committed: false,
                    failed: None,
                    held: BTreeMap::new(),
                });
                if self.locals.contains_key(requester) {
                    self.callback(
                        *requester,
                        Callback::RequestFederationRestoreSucceeded(label.clone()),
                    );
                }
                let local: Vec<&RestoreMember> = members
                    .iter()
                    .filter(|m| self.locals.contains_key(&m.pre))
                    .collect();
                for m in local {
                    self.callback(m.pre, Callback::FederationRestoreBegun);
                    if !self.phase.is_replaying() {
                        self.actions.push_back(Action::LoadRestore {
                            federate: m.pre,
                            label: label.clone(),
                            name: m.name.clone(),
                        });
                    }
                }
            }
            Decision::RestoreReported {
                federate, report, ..
            } => {
                let Some(r) = self.restore.current_mut() else {
                    return;
                };
                match r.record(*federate, report) {
                    RestoreStep::Continue => {}
                    RestoreStep::Commit => self.commit_restore(),
                    RestoreStep::End(failure) => {
                        if let RestoreReport::Unable(detail) = report {
                            tracing::warn!(federation = %self.name, "restore not possible: {detail}");
                        }
                        self.end_restore(failure);
                    }
                }
            }
            Decision::RestoreAborted { .. } if self.restore.current().is_some() => {
                self.end_restore(Some((
                    RestoreFailureReason::RestoreAborted,
                    "a federate aborted the restore".to_string(),
                )));
            }
            _ => {}
        }
    }

    /// A federate left while a restore involving it was in progress: the restore fails.
    pub(crate) fn restore_on_left(&mut self, h: FederateHandle, lost: bool) {
        let Some(m) = self.restore.current().and_then(|r| r.member(h)) else {
            return;
        };
        let failure = if lost {
            (
                RestoreFailureReason::RtiDetectedFailureDuringRestore,
                format!("federate {} was lost with its LRC", m.name),
            )
        } else {
            (
                RestoreFailureReason::FederateResignedDuringRestore,
                format!("federate {} resigned", m.name),
            )
        };
        self.end_restore(Some(failure));
    }

    /// Ends the restore in progress: `federation_restored`, or `federation_not_restored` with
    /// the reason and what failed in words (a save file that could not be used is named).
    fn end_restore(&mut self, failure: Option<(RestoreFailureReason, String)>) {
        let Some((r, arrived)) = self.restore.end() else {
            return;
        };
        for m in &r.members {
            let h = if r.committed { m.post } else { m.pre };
            if self.locals.contains_key(&h) {
                let cb = match &failure {
                    None => Callback::FederationRestored,
                    Some((reason, detail)) => Callback::FederationNotRestored {
                        reason: *reason,
                        detail: detail.clone(),
                    },
                };
                self.callback(h, cb);
            }
        }
        // What the save held, then the restored run's own data. A restore that failed after its
        // commit keeps the restored state, and both belong to it: the save's state counts the
        // held discoveries as made (partition sweep seed 1375: a discovery held at the save and
        // dropped with a failed restore left the federate told to remove an instance it never
        // discovered). Before the commit nothing is held.
        for (h, cbs) in r.held {
            for cb in cbs {
                self.callback(h, cb);
            }
        }
        for (h, cb) in arrived {
            self.callback(h, cb);
        }
    }

    /// Replaces this LRC's state with the saved one (see the module docs, step 3).
    fn commit_restore(&mut self) {
        let Some(Commit {
            restore: r,
            old_epoch,
            mut loaded,
        }) = self.restore.commit()
        else {
            return;
        };

        // Membership: saved handles and names, on the LRC each federate runs on now.
        let mut federates = BTreeMap::new();
        for m in &r.members {
            let Some(node) = self.view.federates.get(&m.pre).map(|x| x.node) else {
                continue;
            };
            federates.insert(
                m.post,
                FederateRecord {
                    name: m.name.clone(),
                    federate_type: m.federate_type.clone(),
                    node,
                },
            );
        }
        for (h, r) in &federates {
            self.view.ran_on.insert(*h, r.node);
        }
        self.view.federates = federates;
        self.view.reserved = r.saved.reserved.iter().cloned().collect();
        self.view.next_handle = self.view.next_handle.max(r.saved.next_handle).max(1);
        self.sync = r.saved.sync.iter().cloned().collect();
        self.save.restored();

        // Local federates, instances, declarations from the files.
        let old_locals = std::mem::take(&mut self.locals);
        let mut renames = Vec::new();
        let mut states: Vec<(FederateHandle, SavedFederateState)> = Vec::new();
        for m in &r.members {
            if !old_locals.contains_key(&m.pre) {
                continue;
            }
            let Some(st) = loaded.remove(&m.pre) else {
                tracing::error!(federation = %self.name, "restore: no saved state for {}", m.name);
                continue;
            };
            renames.push((m.pre, m.post));
            states.push((m.post, st));
        }
        self.objects.clear();
        // Regions come back with the federates that created them (see `super::regions`).
        self.regions = Default::default();
        // Resignations of the abandoned run that were waiting for data: the saved state rules.
        self.resign_gate.clear();
        // Negotiations belonged to the abandoned run; owners come back with the instances.
        self.ownership.reset();
        self.interest.clear();
        self.interest_changed();
        self.auto_resign.clear();
        self.resigned_with.clear();
        // The MOM's state of the abandoned run goes; the saved one comes back per federate.
        self.mom_restore_begin(&renames);
        self.mom.auto_provide = r.saved.auto_provide;
        let mut held = BTreeMap::new();
        for (h, st) in &states {
            held.insert(*h, st.held.clone());
            self.locals.insert(*h, local_from_saved(st));
            self.mom_restore(*h, &st.mom);
            self.regions_restore(*h, &st.regions);
            self.conveyed_restore(*h, &st.conveyed);
            for i in &st.instances {
                let origin = self
                    .view
                    .federates
                    .get(&i.object.registrant())
                    .map_or(self.me, |x| x.node);
                self.objects
                    .entry(i.object)
                    .or_insert_with(|| instance_from_saved(i, origin));
            }
        }

        // An LRC none of whose federates was restored loaded no instances (each federate's file
        // holds every instance its LRC knew): it takes the federation's state from the other
        // LRCs' snapshots of the new run, like a joiner (simulator seed 38 with frequent
        // restores: a federate joining such an LRC later never discovered the restored
        // instances).
        if states.is_empty() && !self.phase.is_replaying() {
            for st in self.streams.values_mut() {
                st.live = false;
                st.needs_snapshot = true;
                st.requested = false;
                st.held.clear();
            }
        }
        // Streams: data from before a sender's marker is dropped from now on.
        for st in self.streams.values_mut() {
            if self.phase.is_replaying() {
                st.epoch = Some(self.restore.epoch());
            } else {
                st.epoch.get_or_insert(old_epoch);
            }
        }

        // Time: a fresh manager per local federate, restored from its snapshot.
        self.time.managers.clear();
        self.time.backlog.clear();
        self.time.from_unknown.clear();
        // Handles are given out anew: numbering starts over with the restored managers.
        self.time.sent.clear();
        self.time.heard.clear();
        self.time.departed_on.clear();
        for (h, st) in &states {
            self.time_restore_manager(*h, st.time_state.clone());
        }

        if let Some(r) = self.restore.current_mut() {
            r.held = held;
        }
        // Requests of the abandoned run are dropped; those pending at the save are made again.
        self.pending.retain(|_, p| !p.body.follows_state());
        if !self.phase.is_replaying() {
            for (_, st) in &states {
                for (body, multiple) in &st.requests {
                    self.request(body.clone(), None, *multiple);
                }
            }
        }
        if !self.phase.is_replaying() {
            self.actions.push_back(Action::Rehandle(renames));
            self.send_data(true, DataMsg::Epoch(self.restore.epoch()));
            for (h, _) in &states {
                self.announce_declarations(*h);
            }
        }
        for m in &r.members {
            if self.locals.contains_key(&m.post) {
                self.callback(
                    m.post,
                    Callback::InitiateFederateRestore {
                        label: r.label.clone(),
                        name: m.name.clone(),
                        handle: m.post,
                    },
                );
            }
        }
        self.release_future();
        self.request_snapshots();
        self.advise();
        self.pump_time();
        // The restored subscriptions and regions decide the cells this LRC joins, not the
        // abandoned run's.
        self.refresh_cells();
    }

    /// Sends local federate `f`'s active subscriptions and resign action, which other LRCs learn
    /// only from the data stream.
    fn announce_declarations(&mut self, f: FederateHandle) {
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let mut decls: Vec<Declaration> = lf
            .decl
            .subscribed_objects
            .iter()
            .filter(|(_, s)| s.active && !s.attrs.is_empty())
            .map(|(c, s)| self.subscribe_declaration(f, *c, s.attrs.iter().copied().collect()))
            .collect();
        decls.extend(
            lf.decl
                .subscribed_interactions
                .iter()
                .filter(|(_, active)| **active)
                .map(|(c, _)| Declaration::SubscribeInteraction(*c, true)),
        );
        decls.extend(super::update_rate::subscription_declarations(lf));
        decls.push(Declaration::AutomaticResign(lf.auto_resign));
        for decl in decls {
            self.send_data(true, DataMsg::Declare { federate: f, decl });
        }
    }

    /// Data and time messages that waited for this LRC to reach the sender's epoch.
    fn release_future(&mut self) {
        let nodes: Vec<Node> = self.streams.keys().copied().collect();
        for n in nodes {
            let Some(st) = self.streams.get_mut(&n) else {
                continue;
            };
            if st.epoch != Some(self.restore.epoch()) {
                continue;
            }
            let future = std::mem::take(&mut st.future);
            for (seq, reliable, msg) in future {
                self.apply_data(n, seq, reliable, msg);
            }
        }
        let future = std::mem::take(&mut self.time.future);
        for (node, (from, to, msg, number), epoch) in future {
            self.on_time_message(node, from, to, msg, epoch, number);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(n: u32) -> FederateHandle {
        FederateHandle(n)
    }

    fn saved() -> SavedMembership {
        SavedMembership {
            save_id: 1,
            federates: Vec::new(),
            reserved: Vec::new(),
            next_handle: 1,
            sync: Vec::new(),
            auto_provide: None,
        }
    }

    /// Federates 1 and 2 become 11 and 12.
    fn restore() -> RestoreInProgress {
        let member = |pre: u32, post: u32| RestoreMember {
            pre: f(pre),
            post: f(post),
            name: format!("fed{post}"),
            federate_type: "t".into(),
            status: RestoreStatus::FederateWaitingForRestoreToBegin,
        };
        RestoreInProgress {
            label: "r".into(),
            requester: f(1),
            saved: saved(),
            members: vec![member(1, 11), member(2, 12)],
            committed: false,
            failed: None,
            held: BTreeMap::new(),
        }
    }

    fn state(h: u32) -> SavedFederateState {
        SavedFederateState {
            federation: "F".into(),
            label: "r".into(),
            federate: f(h),
            federate_name: format!("fed{h}"),
            federate_type: "t".into(),
            log: Vec::new(),
            modules: Vec::new(),
            instances: Vec::new(),
            published_objects: Vec::new(),
            published_interactions: Vec::new(),
            subscribed_objects: Vec::new(),
            subscribed_interactions: Vec::new(),
            subscribed_rates: Vec::new(),
            next_counter: 1,
            auto_resign: super::super::wire::ResignAction::NoAction,
            switches: Default::default(),
            time_kind: Default::default(),
            logical_time: None,
            lookahead: None,
            regulating: false,
            constrained: false,
            membership: saved(),
            time_state: None,
            held: Vec::new(),
            requests: Vec::new(),
            mom: Default::default(),
            regions: Default::default(),
            conveyed: Default::default(),
        }
    }

    /// One LRC of an `HLAinteger64Time` federation, driven through its actions.
    mod integer_time {
        use super::super::super::save::SaveReport;
        use super::super::super::{Action, Callback, Completion, FederationCore};
        use crate::handles::FederateHandle;
        use hlamesh_timesync::{DynInterval, DynTime, TimeKind};

        /// 2^53 + 1: the first integer an `f64` cannot hold.
        const BIG: i64 = (1 << 53) + 1;

        fn actions(c: &mut FederationCore) -> Vec<Action> {
            std::iter::from_fn(|| c.poll_action()).collect()
        }

        fn callbacks(c: &mut FederationCore) -> Vec<Callback> {
            actions(c)
                .into_iter()
                .filter_map(|a| match a {
                    Action::Callback { callback, .. } => Some(callback),
                    _ => None,
                })
                .collect()
        }

        fn federation(kind: TimeKind) -> (FederationCore, FederateHandle) {
            let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
            c.set_time_kind(kind);
            c.join(Some("a".into()), "t");
            let h = actions(&mut c)
                .into_iter()
                .find_map(|a| match a {
                    Action::Complete {
                        result: Ok(Completion::Joined(h)),
                        ..
                    } => Some(h),
                    _ => None,
                })
                .expect("joined");
            (c, h)
        }

        fn advance(c: &mut FederationCore, h: FederateHandle, t: i64) {
            c.time_change(h, "timeAdvanceRequest", |m| {
                m.time_advance_request(DynTime::integer(t))
            })
            .expect("TAR");
            assert!(
                callbacks(c).contains(&Callback::TimeAdvanceGrant(DynTime::integer(t))),
                "granted {t}"
            );
        }

        /// Saves at `BIG` and returns the RTI's state for the federate, through its encoding.
        fn save(c: &mut FederationCore, h: FederateHandle) -> super::SavedFederateState {
            c.request_federation_save(h, "s", None).expect("save");
            assert!(
                callbacks(c)
                    .iter()
                    .any(|cb| matches!(cb, Callback::InitiateFederateSave { .. }))
            );
            c.report_federate_save(h, SaveReport::Begun).expect("begun");
            c.report_federate_save(h, SaveReport::Complete)
                .expect("complete");
            let state = actions(c)
                .into_iter()
                .find_map(|a| match a {
                    Action::WriteSave { state, .. } => Some(state),
                    _ => None,
                })
                .expect("the RTI's state to write");
            c.save_written(h, true);
            assert!(callbacks(c).contains(&Callback::FederationSaved));
            let bytes = postcard::to_allocvec(&*state).expect("encodes");
            postcard::from_bytes(&bytes).expect("decodes")
        }

        /// Requests the restore and hands the LRC `state` when it asks for the file.
        fn restore(
            c: &mut FederationCore,
            h: FederateHandle,
            state: &super::SavedFederateState,
        ) -> Vec<Callback> {
            c.request_federation_restore(h, "s", Ok(state.membership.clone()))
                .expect("request");
            let mut seen = Vec::new();
            for _ in 0..8 {
                let mut progressed = false;
                for a in actions(c) {
                    match a {
                        Action::LoadRestore { federate, .. } => {
                            c.restore_loaded(federate, Ok(state.clone()));
                            progressed = true;
                        }
                        Action::Callback { callback, .. } => {
                            if matches!(callback, Callback::InitiateFederateRestore { .. }) {
                                c.report_federate_restore(h, true).expect("restored");
                                progressed = true;
                            }
                            seen.push(callback);
                        }
                        _ => {}
                    }
                }
                if !progressed {
                    break;
                }
            }
            seen
        }

        #[test]
        fn an_integer_time_federation_is_saved_and_restored_exactly() {
            let (mut c, h) = federation(TimeKind::Integer64);
            let one = DynInterval::integer(1);
            c.time_change(h, "enableTimeRegulation", |m| m.enable_time_regulation(one))
                .expect("regulate");
            c.time_change(h, "enableTimeConstrained", |m| m.enable_time_constrained())
                .expect("constrain");
            actions(&mut c);
            advance(&mut c, h, BIG);
            let state = save(&mut c, h);
            assert_eq!(state.time_kind, TimeKind::Integer64);
            assert_eq!(state.logical_time.and_then(DynTime::as_integer), Some(BIG));
            assert_eq!(state.lookahead.and_then(DynInterval::as_integer), Some(1));
            let saved = state.time_state.as_ref().expect("time state");
            assert_eq!(saved.time.as_integer(), Some(BIG));

            advance(&mut c, h, BIG + 5);
            let seen = restore(&mut c, h, &state);
            assert!(seen.contains(&Callback::FederationRestored), "{seen:?}");
            let m = c.time_manager(h).expect("restored manager");
            assert_eq!(m.logical_time().as_integer(), Some(BIG), "back at the save");
            assert_eq!(
                m.query_lookahead().ok().and_then(|l| l.as_integer()),
                Some(1)
            );
            // And it runs on in integers: the next grant is exact too.
            advance(&mut c, h, BIG + 1);
        }

        #[test]
        fn a_save_of_the_other_time_kind_is_not_restored() {
            let (mut c, h) = federation(TimeKind::Integer64);
            let state = save(&mut c, h);
            let (mut f, h) = federation(TimeKind::Float64);
            let seen = restore(&mut f, h, &state);
            let why = seen
                .iter()
                .find_map(|cb| match cb {
                    Callback::FederationNotRestored { detail, .. } => Some(detail.clone()),
                    Callback::RequestFederationRestoreFailed { reason, .. } => Some(reason.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("restored a save of the other kind: {seen:?}"));
            assert!(why.contains("HLAinteger64Time"), "{why}");
        }
    }

    #[test]
    fn nothing_is_loaded_or_reported_without_a_restore() {
        let mut s = RestoreState::default();
        s.load(f(1), state(11));
        assert!(!s.may_report(f(1)));
        assert!(s.commit().is_none());
        assert!(s.end().is_none());
        assert_eq!(s.epoch(), 0);
    }

    #[test]
    fn loads_are_for_members_before_the_commit_and_the_commit_takes_them() {
        let mut s = RestoreState::default();
        s.begin(restore());
        s.load(f(1), state(11));
        s.load(f(3), state(13));
        assert!(!s.may_report(f(1)), "not committed");
        let c = s.commit().expect("in progress");
        assert_eq!(c.old_epoch, 0);
        assert_eq!(s.epoch(), 1);
        assert_eq!(c.loaded.keys().copied().collect::<Vec<_>>(), vec![f(1)]);
        assert!(c.restore.committed);
        assert!(
            c.restore
                .members
                .iter()
                .all(|m| m.status == RestoreStatus::FederateRestoring)
        );
        // After the commit: nothing more is loaded, and it is not committed twice.
        s.load(f(1), state(11));
        assert!(s.commit().is_none());
        assert_eq!(s.epoch(), 1, "one epoch per restore");
        // A fresh restore starts with nothing loaded.
        s.end();
        s.begin(restore());
        let c = s.commit().expect("in progress");
        assert!(c.loaded.is_empty());
        assert_eq!((c.old_epoch, s.epoch()), (1, 2));
    }

    #[test]
    fn callbacks_are_held_for_restoring_members_after_the_commit_only() {
        let cb = |n: u8| Callback::ProvideAttributeValueUpdate {
            object: crate::handles::ObjectInstanceHandle(1),
            attrs: Vec::new(),
            tag: vec![n],
        };
        let mut s = RestoreState::default();
        assert!(s.hold(f(11), cb(0)).is_some(), "no restore");
        s.begin(restore());
        assert!(
            s.hold(f(1), cb(1)).is_some(),
            "not committed: the old run goes on"
        );
        s.commit();
        assert!(
            s.hold(f(1), cb(2)).is_some(),
            "a pre-restore handle is no member now"
        );
        assert!(s.hold(f(13), cb(3)).is_some(), "not a member");
        assert!(s.hold(f(11), cb(4)).is_none(), "held");
        assert!(s.hold(f(12), cb(5)).is_none(), "held");
        assert!(s.hold(f(11), cb(6)).is_none(), "held");
        let (_, arrived) = s.end().expect("in progress");
        assert_eq!(
            arrived,
            vec![(f(11), cb(4)), (f(12), cb(5)), (f(11), cb(6))],
            "in arrival order"
        );
        s.begin(restore());
        s.commit();
        assert!(
            s.end().expect("in progress").1.is_empty(),
            "a new restore starts empty"
        );
    }

    #[test]
    fn a_federate_reports_once_after_the_commit() {
        let mut s = RestoreState::default();
        s.begin(restore());
        s.commit();
        assert!(s.may_report(f(11)), "saved handles after the commit");
        assert!(!s.may_report(f(1)));
        s.report_made(f(11));
        assert!(!s.may_report(f(11)), "reported already");
        assert!(s.may_report(f(12)));
        let (ended, _) = s.end().expect("in progress");
        assert_eq!(ended.label, "r");
        s.begin(restore());
        s.commit();
        assert!(s.may_report(f(11)), "the next restore forgets the reports");
    }

    #[test]
    fn every_load_commits_and_one_unable_ends_it_before_the_commit() {
        let mut r = restore();
        assert_eq!(
            r.record(f(11), &RestoreReport::Loaded),
            RestoreStep::Continue,
            "pre handles"
        );
        assert_eq!(
            r.record(f(1), &RestoreReport::Loaded),
            RestoreStep::Continue
        );
        assert_eq!(
            r.record(f(1), &RestoreReport::Complete),
            RestoreStep::Continue,
            "too early"
        );
        assert_eq!(r.record(f(2), &RestoreReport::Loaded), RestoreStep::Commit);
        let mut r = restore();
        assert_eq!(
            r.record(f(2), &RestoreReport::Unable("file".into())),
            RestoreStep::End(Some((
                RestoreFailureReason::RtiUnableToRestore,
                "file".to_string()
            )))
        );
    }

    #[test]
    fn after_the_commit_the_last_report_ends_it_with_the_first_failure() {
        let mut s = RestoreState::default();
        s.begin(restore());
        s.commit();
        let r = s.current_mut().expect("in progress");
        assert_eq!(
            r.record(f(11), &RestoreReport::Loaded),
            RestoreStep::Continue,
            "too late"
        );
        assert_eq!(
            r.record(f(1), &RestoreReport::Complete),
            RestoreStep::Continue,
            "old handle"
        );
        assert_eq!(
            r.record(f(12), &RestoreReport::NotComplete),
            RestoreStep::Continue
        );
        assert_eq!(
            r.record(f(11), &RestoreReport::Complete),
            RestoreStep::End(Some((
                RestoreFailureReason::FederateReportedFailureDuringRestore,
                "federate fed12 could not restore its state".to_string()
            )))
        );
        let mut s = RestoreState::default();
        s.begin(restore());
        s.commit();
        let r = s.current_mut().expect("in progress");
        r.record(f(11), &RestoreReport::Complete);
        assert_eq!(
            r.record(f(12), &RestoreReport::Complete),
            RestoreStep::End(None)
        );
    }
}
