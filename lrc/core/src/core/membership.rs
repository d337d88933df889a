//! The replicated membership state of one federation execution: which LRCs are members (in join
//! order, which decides who coordinates), which federates are joined, which instance names are
//! reserved. It changes only by applying the coordinator's [`Decision`] log in order, so every
//! member that applied the same prefix holds the same [`View`].

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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// Decisions 1..=n (index 0 is decision 1).
    pub log: Vec<Decision>,
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
    /// These federates left (handle, their LRC, action to apply to their instances).
    Resigned(Vec<(FederateHandle, u64, ResignAction)>),
    /// A federate joined.
    Joined(FederateHandle),
}

impl View {
    /// Number of the last decision applied.
    pub fn last(&self) -> u64 {
        self.log.len() as u64
    }

    /// Applies the next decision. `auto` gives each federate's automatic resign action for
    /// federates removed with their node.
    pub fn apply(&mut self, d: Decision, auto: &dyn Fn(FederateHandle) -> ResignAction) -> Applied {
        let out = match &d {
            Decision::NodeAdded(n) => {
                if !self.nodes.contains(n) {
                    self.nodes.push(*n);
                }
                Applied::NodeAdded(*n)
            }
            Decision::NodeRemoved(n) => {
                self.nodes.retain(|x| x != n);
                self.left_behind_due.insert(*n);
                let gone: Vec<FederateHandle> = self
                    .federates
                    .iter()
                    .filter(|(_, r)| r.node == *n)
                    .map(|(h, _)| *h)
                    .collect();
                let mut v = Vec::new();
                for h in gone {
                    self.federates.remove(&h);
                    self.reserved.retain(|_, f| *f != h);
                    v.push((h, *n, auto(h)));
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
                        Applied::Resigned(vec![(*handle, r.node, *action)])
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
            // The instances are the core's: see `super::left_behind`.
            Decision::LeftBehind { node, .. } => {
                self.left_behind_due.remove(node);
                Applied::Nothing
            }
        };
        self.next_handle = self.next_handle.max(1);
        self.log.push(d);
        out
    }

    /// Handle of the federate with this name, if joined.
    pub fn federate_by_name(&self, name: &str) -> Option<FederateHandle> {
        self.federates
            .iter()
            .find(|(_, r)| r.name == name)
            .map(|(h, _)| *h)
    }

    /// The earlier decision answering request `req`, if any (requests are retried).
    pub fn answered(&self, req: (u64, u64)) -> Option<&Decision> {
        self.log.iter().rev().find(|d| match d {
            Decision::FederateJoined { req: r, .. }
            | Decision::NamesReserved { req: r, .. }
            | Decision::SyncRegistered { req: r, .. }
            | Decision::SyncAchieved { req: r, .. }
            | Decision::SaveInitiated { req: r, .. }
            | Decision::SaveReported { req: r, .. }
            | Decision::SaveAborted { req: r, .. }
            | Decision::RestoreDenied { req: r, .. }
            | Decision::RestoreInitiated { req: r, .. }
            | Decision::RestoreReported { req: r, .. }
            | Decision::RestoreAborted { req: r, .. }
            | Decision::Transfer { req: r, .. } => *r == req,
            _ => false,
        })
    }
}
