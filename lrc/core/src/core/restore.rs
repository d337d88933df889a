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
        self.restore.as_ref()
    }

    /// Number of federation restores applied (the epoch of this LRC's data).
    pub fn restore_epoch(&self) -> u32 {
        self.epoch
    }

    /// Refuses `service` with `RestoreInProgress` while a restore is in progress (every joined
    /// federate takes part in it).
    pub(crate) fn refuse_while_restoring(
        &self,
        f: FederateHandle,
        service: &str,
    ) -> Result<(), RtiError> {
        match &self.restore {
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
            save_id: self.save.as_ref().map_or(0, |s| s.initiated_at),
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
        let Some(r) = &self.restore else { return };
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
        let Some(r) = &self.restore else { return };
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
            Ok(st) if st.modules != self.modules => RestoreReport::Unable(format!(
                "save {} of {} was made with other FOM modules than this federation's",
                r.label, m.name
            )),
            Ok(st) if st.membership != r.saved => RestoreReport::Unable(format!(
                "save file of {} belongs to another save of label {} (save {} here, {} requested)",
                m.name, r.label, st.membership.save_id, r.saved.save_id
            )),
            Ok(st) => {
                self.restore_loaded.insert(f, st);
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
        let status = self
            .restore
            .as_ref()
            .filter(|r| r.committed)
            .and_then(|r| r.member(f))
            .map(|m| m.status);
        if status != Some(RestoreStatus::FederateRestoring)
            || self.restore_reports_made.contains(&f)
        {
            return Err(RtiError::RestoreNotRequested(format!(
                "federation {}: federate {f}: no restore was initiated for it (or it already reported)",
                self.name
            )));
        }
        // Locally at once, so a second report in a row is refused before the decision; the
        // replicated statuses change only by decisions (the outcome is derived from them).
        self.restore_reports_made.insert(f);
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
        if self.restore.is_none() {
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
        let list: Vec<(FederateHandle, FederateHandle, RestoreStatus)> = match &self.restore {
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
                let denied = if let Some(s) = &self.save {
                    Err(format!("save \"{}\" is in progress", s.label))
                } else if let Some(r) = &self.restore {
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
                    .as_ref()
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
                if self.restore.is_some() {
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
                self.restore_loaded.clear();
                self.restore_reports_made.clear();
                self.restore = Some(RestoreInProgress {
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
                    if !self.replaying {
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
                let Some(r) = self.restore.as_mut() else {
                    return;
                };
                let committed = r.committed;
                let Some(m) = r.member_mut(*federate) else {
                    return;
                };
                match report {
                    RestoreReport::Loaded if !committed => {
                        m.status = RestoreStatus::FederatePreparedToRestore;
                        if r.members
                            .iter()
                            .all(|m| m.status == RestoreStatus::FederatePreparedToRestore)
                        {
                            self.commit_restore();
                        }
                    }
                    RestoreReport::Unable(detail) if !committed => {
                        tracing::warn!(federation = %self.name, "restore not possible: {detail}");
                        self.end_restore(Some((
                            RestoreFailureReason::RtiUnableToRestore,
                            detail.clone(),
                        )));
                    }
                    RestoreReport::Complete | RestoreReport::NotComplete if committed => {
                        m.status = RestoreStatus::FederateWaitingForFederationToRestore;
                        if *report == RestoreReport::NotComplete {
                            let detail = format!("federate {} could not restore its state", m.name);
                            r.failed.get_or_insert((
                                RestoreFailureReason::FederateReportedFailureDuringRestore,
                                detail,
                            ));
                        }
                        if r.members.iter().all(|m| {
                            m.status == RestoreStatus::FederateWaitingForFederationToRestore
                        }) {
                            let failed = r.failed.take();
                            self.end_restore(failed);
                        }
                    }
                    _ => {}
                }
            }
            Decision::RestoreAborted { .. } if self.restore.is_some() => {
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
        let Some(m) = self.restore.as_ref().and_then(|r| r.member(h)) else {
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
        self.restore_loaded.clear();
        self.restore_reports_made.clear();
        let Some(r) = self.restore.take() else { return };
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
        if failure.is_none() {
            for (h, cbs) in r.held {
                for cb in cbs {
                    self.callback(h, cb);
                }
            }
        }
    }

    /// Replaces this LRC's state with the saved one (see the module docs, step 3).
    fn commit_restore(&mut self) {
        let Some(r) = self.restore.as_mut() else {
            return;
        };
        r.committed = true;
        for m in &mut r.members {
            m.status = RestoreStatus::FederateRestoring;
        }
        let r = r.clone();
        let old_epoch = self.epoch;
        self.epoch += 1;

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
        self.timed_save_wait.clear();
        self.save_cannot_honor = false;
        self.save_held.clear();
        self.save_capture.clear();

        // Local federates, instances, declarations from the files.
        let old_locals = std::mem::take(&mut self.locals);
        let mut loaded = std::mem::take(&mut self.restore_loaded);
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
        // Resignations of the abandoned run that were waiting for data: the saved state rules.
        self.resign_gate.clear();
        // Negotiations belonged to the abandoned run; owners come back with the instances.
        self.ownership.reset();
        self.interest.clear();
        self.auto_resign.clear();
        self.resigned_with.clear();
        let mut held = BTreeMap::new();
        for (h, st) in &states {
            held.insert(*h, st.held.clone());
            self.locals.insert(*h, local_from_saved(st));
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
        if states.is_empty() && !self.replaying {
            for st in self.streams.values_mut() {
                st.live = false;
                st.needs_snapshot = true;
                st.requested = false;
                st.held.clear();
            }
        }
        // Streams: data from before a sender's marker is dropped from now on.
        for st in self.streams.values_mut() {
            if self.replaying {
                st.epoch = Some(self.epoch);
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

        if let Some(r) = self.restore.as_mut() {
            r.held = held;
        }
        // Requests of the abandoned run are dropped; those pending at the save are made again.
        self.pending.retain(|_, p| !p.body.follows_state());
        if !self.replaying {
            for (_, st) in &states {
                for (body, multiple) in &st.requests {
                    self.request(body.clone(), None, *multiple);
                }
            }
        }
        if !self.replaying {
            self.actions.push_back(Action::Rehandle(renames));
            self.send_data(true, DataMsg::Epoch(self.epoch));
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
            .map(|(c, s)| Declaration::SubscribeObject(*c, s.attrs.iter().copied().collect()))
            .collect();
        decls.extend(
            lf.decl
                .subscribed_interactions
                .iter()
                .filter(|(_, active)| **active)
                .map(|(c, _)| Declaration::SubscribeInteraction(*c, true)),
        );
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
            if st.epoch != Some(self.epoch) {
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
