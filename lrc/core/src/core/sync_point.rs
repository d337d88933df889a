//! Synchronization points (IEEE 1516-2010 4.11–4.15), replicated through the coordinator's
//! decision log.
//!
//! Registration and every achievement are coordinator decisions ([`Decision::SyncRegistered`],
//! [`Decision::SyncAchieved`]); every member applies the same log in the same order, so every LRC
//! sees a point synchronize at the same position of the log and no LRC has to ask another one
//! whether a point is complete. Each LRC only emits the callbacks of its own federates.
//!
//! Semantics decided here (`docs/HLA-SEMANTICS.md`, "Synchronization points"):
//! - A point with no set (or an empty set) is federation-wide: its set is every federate joined
//!   when the registration is decided, and it grows with federates that join before it
//!   synchronizes (they are announced on join). An explicit set never grows; a registrant outside
//!   its own explicit set is not announced.
//! - A member that resigns or is lost while the point is pending does not block it: it is taken
//!   as having achieved **unsuccessfully** and appears in the failed set of
//!   `federation_synchronized`, so the survivors learn that not everyone reached the point (the
//!   OpenRTI reading; the other reading would hide the loss).
//! - After a point synchronizes its label may be registered again.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::RtiError;
use crate::handles::FederateHandle;

use super::wire::{Decision, Reply, Request, SynchronizationPointFailureReason};
use super::{Callback, FederationCore, Node};

/// One pending synchronization point, identical on every member.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SyncPoint {
    /// User tag given at registration.
    pub tag: Vec<u8>,
    /// Registering federate.
    pub registrant: FederateHandle,
    /// Whether joiners are added (no explicit set).
    pub federation_wide: bool,
    /// The synchronization set.
    pub members: BTreeSet<FederateHandle>,
    /// Members that have not achieved yet.
    pub waiting: BTreeSet<FederateHandle>,
    /// Members that achieved unsuccessfully, resigned or were lost.
    pub failed: BTreeSet<FederateHandle>,
}

/// The pending points of a federation, by label.
pub type SyncPoints = BTreeMap<String, SyncPoint>;

impl FederationCore {
    /// Pending synchronization points (replicated).
    pub fn sync_points(&self) -> &SyncPoints {
        &self.sync
    }

    /// 4.11: registers a point; the outcome is a registration succeeded/failed callback to `f`.
    /// `set` `None` or empty means federation-wide.
    pub fn register_federation_synchronization_point(
        &mut self,
        f: FederateHandle,
        label: &str,
        tag: &[u8],
        set: Option<Vec<FederateHandle>>,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "registerFederationSynchronizationPoint")?;
        let set = set.filter(|s| !s.is_empty()).map(|mut s| {
            s.sort();
            s.dedup();
            s
        });
        self.request(
            Request::RegisterSync {
                federate: f,
                label: label.to_string(),
                tag: tag.to_vec(),
                set,
            },
            None,
            false,
        );
        Ok(())
    }

    /// 4.14: `f` achieved `label` (successfully or not). Fails with
    /// `SynchronizationPointLabelNotAnnounced` unless the point was announced to `f` and `f` has
    /// not achieved it yet.
    pub fn synchronization_point_achieved(
        &mut self,
        f: FederateHandle,
        label: &str,
        success: bool,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "synchronizationPointAchieved")?;
        let announced = self.sync.get(label).is_some_and(|p| p.waiting.contains(&f));
        let already = self.pending.values().any(|p| {
            matches!(&p.body, Request::AchieveSync { federate, label: l, .. }
                if *federate == f && l == label)
        });
        if !announced || already {
            return Err(RtiError::SynchronizationPointLabelNotAnnounced(format!(
                "federation {}: federate {f}: synchronization point \"{label}\" is not announced to it or already achieved",
                self.name
            )));
        }
        self.request(
            Request::AchieveSync {
                federate: f,
                label: label.to_string(),
                success,
            },
            None,
            false,
        );
        Ok(())
    }

    /// Coordinator side of [`Request::RegisterSync`] / [`Request::AchieveSync`].
    pub(crate) fn decide_sync(&mut self, from: Node, id: u64, body: Request) -> Option<Reply> {
        let req = (from, id);
        match body {
            Request::RegisterSync {
                federate,
                label,
                tag,
                set,
            } => {
                if self.sync.contains_key(&label) {
                    return Some(Reply::SyncFailed(
                        SynchronizationPointFailureReason::SynchronizationPointLabelNotUnique,
                    ));
                }
                if let Some(s) = &set
                    && s.iter().any(|h| !self.view.federates.contains_key(h))
                {
                    return Some(Reply::SyncFailed(
                        SynchronizationPointFailureReason::SynchronizationSetMemberNotJoined,
                    ));
                }
                self.decide(Decision::SyncRegistered {
                    label,
                    tag,
                    set,
                    registrant: federate,
                    req,
                });
                Some(Reply::Done)
            }
            Request::AchieveSync {
                federate,
                label,
                success,
            } => {
                if self
                    .sync
                    .get(&label)
                    .is_some_and(|p| p.waiting.contains(&federate))
                {
                    self.decide(Decision::SyncAchieved {
                        label,
                        federate,
                        success,
                        req,
                    });
                }
                Some(Reply::Done)
            }
            _ => None,
        }
    }

    /// Applies a synchronization decision on this member (every member does the same).
    pub(crate) fn apply_sync(&mut self, d: &Decision) {
        match d {
            Decision::SyncRegistered {
                label,
                tag,
                set,
                registrant,
                ..
            } => {
                let members: BTreeSet<FederateHandle> = match set {
                    Some(s) => s.iter().copied().collect(),
                    None => self.view.federates.keys().copied().collect(),
                };
                if self.locals.contains_key(registrant) {
                    self.callback(
                        *registrant,
                        Callback::SynchronizationPointRegistrationSucceeded(label.clone()),
                    );
                }
                for m in &members {
                    if self.locals.contains_key(m) {
                        self.callback(
                            *m,
                            Callback::AnnounceSynchronizationPoint {
                                label: label.clone(),
                                tag: tag.clone(),
                            },
                        );
                    }
                }
                self.sync.insert(
                    label.clone(),
                    SyncPoint {
                        tag: tag.clone(),
                        registrant: *registrant,
                        federation_wide: set.is_none(),
                        waiting: members.clone(),
                        members,
                        failed: BTreeSet::new(),
                    },
                );
                self.check_synchronized(label);
            }
            Decision::SyncAchieved {
                label,
                federate,
                success,
                ..
            } => {
                if let Some(p) = self.sync.get_mut(label)
                    && p.waiting.remove(federate)
                {
                    if !success {
                        p.failed.insert(*federate);
                    }
                    self.check_synchronized(label);
                }
            }
            _ => {}
        }
    }

    /// A federate joined: federation-wide points pending now wait for it too.
    pub(crate) fn sync_on_joined(&mut self, h: FederateHandle) {
        let mut announce = Vec::new();
        for (label, p) in self.sync.iter_mut().filter(|(_, p)| p.federation_wide) {
            if p.members.insert(h) {
                p.waiting.insert(h);
                announce.push((label.clone(), p.tag.clone()));
            }
        }
        if self.locals.contains_key(&h) {
            for (label, tag) in announce {
                self.callback(h, Callback::AnnounceSynchronizationPoint { label, tag });
            }
        }
    }

    /// A federate resigned or was lost: it no longer blocks any point (it counts as failed).
    pub(crate) fn sync_on_left(&mut self, h: FederateHandle) {
        let labels: Vec<String> = self
            .sync
            .iter_mut()
            .filter_map(|(l, p)| {
                if p.waiting.remove(&h) {
                    p.failed.insert(h);
                    Some(l.clone())
                } else {
                    None
                }
            })
            .collect();
        for l in labels {
            self.check_synchronized(&l);
        }
    }

    fn check_synchronized(&mut self, label: &str) {
        if !self.sync.get(label).is_some_and(|p| p.waiting.is_empty()) {
            return;
        }
        let Some(p) = self.sync.remove(label) else {
            return;
        };
        let failed: Vec<FederateHandle> = p.failed.iter().copied().collect();
        for m in p.members {
            if self.locals.contains_key(&m) {
                self.callback(
                    m,
                    Callback::FederationSynchronized {
                        label: label.to_string(),
                        failed: failed.clone(),
                    },
                );
            }
        }
    }
}
