//! The coordinator: the member LRC with the oldest join serialises what needs one order (joins
//! and handle allocation, resignations, name reservation, destroy) into a numbered decision log
//! that it sends to every member.
//!
//! Requests are retried until answered and are idempotent (a join or reservation is recognised
//! by its (LRC, request id)), so a request the old coordinator never answered is simply answered
//! by the next one. Takeover: when the coordinator is lost, the next oldest member waits for every
//! surviving member's [`ControlMsg::Report`] of its last decision; because every member's log is
//! a prefix of the old coordinator's (one FIFO link each), the longest reported log is fetched and
//! re-sent to everyone, then lost LRCs are removed and queued requests served — no gap, no
//! conflicting handle. If the member holding the longest log is lost during the takeover, the
//! longest of the other reports is fetched instead: a survivor may hold more of the old
//! coordinator's tail than the new coordinator does.

use std::collections::BTreeSet;

use crate::error::RtiError;
use crate::handles::FederateHandle;

use super::membership::Applied;
use super::wire::{ControlMsg, Decision, Reply, Request};
use super::{Action, Callback, Completion, FederationCore, Node, Pending, RETRY_US, Ticket};

/// A reply waiting for every member's acknowledgement of the decisions before it.
#[derive(Debug, Clone)]
pub struct HeldReply {
    to: Node,
    id: u64,
    upto: u64,
    reply: Reply,
    welcome: bool,
}

/// A takeover in progress.
#[derive(Debug, Clone)]
pub struct Recovery {
    /// Members whose report is awaited.
    pub waiting: BTreeSet<Node>,
    /// Longest log reported and by whom.
    pub best: (u64, Node),
}

/// Refused joins remembered by the coordinator (oldest forgotten first).
const MAX_REFUSED: usize = 4096;

impl FederationCore {
    /// Sends a request to the coordinator (or handles it here if this LRC coordinates).
    pub(crate) fn request(&mut self, body: Request, ticket: Option<Ticket>, multiple: bool) {
        let id = self.next_req;
        self.next_req += 1;
        self.pending.insert(
            id,
            Pending {
                body: body.clone(),
                ticket,
                multiple,
                sent_at: self.now,
            },
        );
        self.send_request(id, body);
    }

    /// A joiner learnt of more LRCs that may coordinate (a redirect, or beacons the shell heard
    /// since): pending requests go to them too. Ignored once admitted.
    pub fn add_candidates(&mut self, nodes: impl IntoIterator<Item = Node>) {
        if self.phase.is_admitted() {
            return;
        }
        for n in nodes {
            if !self.phase.add_candidate(n, self.me, &self.gone) {
                continue;
            }
            let ids: Vec<(u64, Request)> = self
                .pending
                .iter()
                .map(|(i, p)| (*i, p.body.clone()))
                .collect();
            for (id, body) in ids {
                let epoch = self.restore.epoch();
                self.send_control(n, false, ControlMsg::Request { id, body, epoch });
            }
        }
    }

    fn send_request(&mut self, id: u64, body: Request) {
        if !self.phase.is_admitted() {
            for c in self.phase.candidates().to_vec() {
                self.send_control(
                    c,
                    false,
                    ControlMsg::Request {
                        id,
                        body: body.clone(),
                        epoch: self.restore.epoch(),
                    },
                );
            }
            return;
        }
        let epoch = self.restore.epoch();
        match self.coordinator() {
            Some(c) if c == self.me => self.on_request(self.me, id, body, epoch),
            Some(c) => self.send_control(c, false, ControlMsg::Request { id, body, epoch }),
            None => {}
        }
    }

    /// A held reply waits for every member's acknowledgement. If a member's copy of a decision
    /// (or the probe asking where it stands) never arrived and no later decision reveals the gap,
    /// nothing would ever move it: so the coordinator re-sends, at most once per `RETRY_US`, the
    /// decisions a lagging member has not acknowledged (members apply them idempotently) and
    /// re-probes members it has not heard from.
    /// A member tells the coordinator, once per `2 × RETRY_US`, the last decision it applied:
    /// if the copy of the last decision went missing (a control send that failed while a
    /// connection was being re-established), no later decision would reveal the gap, and the
    /// member would never see the outcome it waits for. The coordinator answers with the tail.
    fn report_progress(&mut self) {
        if !self.phase.is_admitted()
            || self.now.saturating_sub(self.last_progress_report) < 2 * RETRY_US
        {
            return;
        }
        let Some(c) = self.coordinator() else { return };
        if c == self.me {
            return;
        }
        self.last_progress_report = self.now;
        self.report_to(c);
    }

    /// Tells `to` (the coordinator, or a node acknowledged) how far this LRC applied the log,
    /// with its settled request mark (what a fold may drop, see `super::compaction`).
    fn report_to(&mut self, to: Node) {
        let last = self.view.last();
        self.send_control(
            to,
            false,
            ControlMsg::Report {
                last,
                to,
                settled: self.settled_mark(),
            },
        );
    }

    fn catch_up_laggards(&mut self) {
        if self.held.is_empty()
            || !self.is_active_coordinator()
            || self.now.saturating_sub(self.last_catch_up) < RETRY_US
        {
            return;
        }
        self.last_catch_up = self.now;
        let need = self.held.iter().map(|h| h.upto).max().unwrap_or(0);
        let members: Vec<Node> = self
            .view
            .nodes
            .iter()
            .copied()
            .filter(|m| {
                *m != self.me && !self.suspected.contains(m) && !self.unadmitted.contains(m)
            })
            .collect();
        for m in members {
            match self.reports.get(&m).copied() {
                Some(last) if last >= need => {}
                Some(last) => {
                    let list = self.log_after(last);
                    if !list.is_empty() {
                        self.send_control(
                            m,
                            false,
                            ControlMsg::Decisions {
                                first: last + 1,
                                list,
                            },
                        );
                    }
                }
                None => {
                    let after = self.view.last();
                    self.send_control(m, false, ControlMsg::Fetch { after });
                }
            }
        }
    }

    pub(crate) fn retry_requests(&mut self) {
        self.catch_up_laggards();
        self.maybe_fold();
        self.request_snapshots();
        self.report_progress();
        let due: Vec<(u64, Request)> = self
            .pending
            .iter()
            .filter(|(_, p)| self.now.saturating_sub(p.sent_at) >= RETRY_US)
            .map(|(id, p)| (*id, p.body.clone()))
            .collect();
        for (id, body) in due {
            if let Some(p) = self.pending.get_mut(&id) {
                p.sent_at = self.now;
            }
            // The coordinator's own requests are decided at once, except state requests that
            // wait for a save or restore to end.
            if !(self.phase.is_admitted() && self.coordinator() == Some(self.me))
                || body.follows_state()
            {
                self.send_request(id, body);
            }
        }
    }

    fn refuse_join(&mut self, from: Node, id: u64, e: RtiError) {
        self.reply(from, id, Reply::Failed(e));
    }

    /// Sends a reply. A refusal (`Failed`, `SyncFailed`, `NotReserved`) is the whole answer,
    /// with no decision behind it that `View::answered` would find, so it is remembered for
    /// the copies of the request still in flight (the requester retries until answered): one
    /// arriving after the reason went away (a label or name freed meanwhile) must get the same
    /// answer, not a decision that gives the federate a second, contrary outcome (simulator
    /// seed 645 of the orphans sweep, folding every 3 decisions: a registration refused as not
    /// unique, then registered).
    fn reply(&mut self, to: Node, id: u64, reply: Reply) {
        if to == self.me {
            self.on_reply(id, reply);
            return;
        }
        if matches!(
            reply,
            Reply::Failed(_) | Reply::SyncFailed(_) | Reply::NotReserved(_)
        ) {
            if self.refused.len() >= MAX_REFUSED
                && let Some(k) = self.refused.keys().next().copied()
            {
                self.refused.remove(&k);
            }
            self.refused.insert((to, id), reply.clone());
        }
        self.send_control(to, false, ControlMsg::Reply { id, reply });
    }

    pub(crate) fn on_request(&mut self, from: Node, id: u64, body: Request, epoch: u32) {
        if !self.phase.is_admitted() || self.coordinator() != Some(self.me) {
            // Not ours. A member (it retries to whoever coordinates) needs nothing; a joiner may
            // not know the coordinator at all, so tell it.
            if let (true, Some(c)) = (self.phase.is_admitted(), self.coordinator())
                && !self.view.nodes.contains(&from)
            {
                self.send_control(from, false, ControlMsg::Redirect { coordinator: c });
            }
            // A joiner the log admitted whose Welcome died with the coordinator that sent it,
            // and which is next in line: everybody redirected its join to itself (simulator
            // seeds 2472 with orphans, 3306 without). Our log tells it it is a member, and the
            // coordinator; its recovery fetches whatever longer tail a survivor holds.
            if self.phase.is_admitted()
                && self.coordinator() == Some(from)
                && matches!(body, Request::Join { .. })
            {
                self.welcome_if_needed(from);
            }
            return;
        }
        if self.removed.contains(&from)
            || self.suspected.contains(&from)
            || self.foreign.contains(&from)
        {
            return; // a request that outlived its sender, or its membership here
        }
        if self.gone.contains(&from) && !self.view.nodes.contains(&from) {
            // A joiner whose channel is gone (it is not barred, see `on_peer_gone`): its
            // request, queued or late, must not admit it while nothing would notice its loss
            // again (federation simulator, late links, seeds 1 and 49: a crashed joiner was
            // admitted and every sync point waited for its federates). Back, it is no longer
            // gone (`Event::ChannelPeer`) and its retried request is answered.
            return;
        }
        if self.recovery.is_some() {
            if !self
                .queued
                .iter()
                .any(|(n, i, _, _)| *n == from && *i == id)
            {
                self.queued.push((from, id, body, epoch));
            }
            return;
        }
        if self.view.destroyed {
            let e = RtiError::FederationExecutionDoesNotExist(format!(
                "federation {} was destroyed",
                self.name
            ));
            self.reply(from, id, Reply::Failed(e));
            return;
        }
        if body.follows_state() {
            if epoch < self.restore.epoch() {
                // Made in the run a restore abandoned.
                self.reply(from, id, Reply::Done);
                return;
            }
            if self.save.current().is_some()
                && !matches!(body, Request::Save { .. } | Request::AbortSave(..))
                || self.restore.current().is_some()
            {
                // Decided once the save or restore ended (the requester retries): a save's
                // cut and a restore's state must not move under it.
                return;
            }
        }
        let req = (from, id);
        if let Some(d) = self.view.answered(req).cloned() {
            match d {
                Decision::FederateJoined { handle, .. } => {
                    self.reply_when_acked(from, id, Reply::Joined(handle), true);
                }
                Decision::NamesReserved { names, .. } => {
                    self.reply_when_acked(from, id, Reply::Reserved(names), false)
                }
                Decision::SyncRegistered { .. }
                | Decision::SyncAchieved { .. }
                | Decision::SaveInitiated { .. }
                | Decision::SaveReported { .. }
                | Decision::SaveAborted { .. }
                | Decision::RestoreDenied { .. }
                | Decision::RestoreInitiated { .. }
                | Decision::RestoreReported { .. }
                | Decision::RestoreAborted { .. }
                | Decision::Transfer { .. } => self.reply(from, id, Reply::Done),
                _ => {}
            }
            return;
        }
        // A refused request stays refused (see `reply`).
        if let Some(r) = self.refused.get(&req).cloned() {
            self.send_control(from, false, ControlMsg::Reply { id, reply: r });
            return;
        }
        match body {
            Request::Join {
                name,
                federate_type,
                modules,
            } => {
                // Both change every member's state at once; a joiner would be left out.
                let busy = match (self.restore.current(), self.save.current()) {
                    (Some(r), _) => Some(RtiError::RestoreInProgress(format!(
                        "federation {}: restore \"{}\" is in progress",
                        self.name, r.label
                    ))),
                    (None, Some(s)) => Some(RtiError::SaveInProgress(format!(
                        "federation {}: save \"{}\" is in progress",
                        self.name, s.label
                    ))),
                    _ => None,
                };
                if let Some(e) = busy {
                    self.refuse_join(from, id, e);
                    return;
                }
                let handle = FederateHandle(self.view.next_handle.max(1));
                let name = name.unwrap_or_else(|| format!("HLAfederate{}", handle.0));
                if self.view.federate_by_name(&name).is_some() {
                    let e = RtiError::FederateNameAlreadyInUse(format!(
                        "federation {}: a federate named {name} is already joined",
                        self.name
                    ));
                    self.refuse_join(from, id, e);
                    return;
                }
                // Identical modules count once, under the first designator (the MIM's rule for
                // `HLAFOMmoduleDesignatorList`).
                let mut added: Vec<(String, String)> = Vec::new();
                for (d, text) in modules {
                    if !self.modules.iter().chain(&added).any(|(_, t)| *t == text) {
                        added.push((d, text));
                    }
                }
                if !added.is_empty() {
                    let mut all = self.modules.clone();
                    all.extend(added.iter().cloned());
                    if let Err(e) = super::parse_modules(&all) {
                        self.refuse_join(from, id, e);
                        return;
                    }
                    self.decide(Decision::ModulesAdded(added));
                }
                let new_node = !self.view.nodes.contains(&from);
                if new_node {
                    self.unadmitted.insert(from);
                    self.decide(Decision::NodeAdded(from));
                }
                self.decide(Decision::FederateJoined {
                    handle,
                    name,
                    federate_type,
                    node: from,
                    req,
                });
                self.reply_when_acked(from, id, Reply::Joined(handle), true);
            }
            Request::Resign(h, action, hw) => {
                if self.view.federates.contains_key(&h) {
                    self.decide(Decision::FederateResigned {
                        handle: h,
                        action,
                        hw,
                    });
                }
                self.reply_when_acked(from, id, Reply::Done, false);
            }
            Request::Reserve(f, names) => {
                let taken = names.iter().any(|n| {
                    self.view.reserved.contains_key(n)
                        || self.objects.values().any(|o| o.name == *n)
                });
                let dup = names.iter().collect::<BTreeSet<_>>().len() != names.len();
                if taken || dup || !self.view.federates.contains_key(&f) {
                    self.reply(from, id, Reply::NotReserved(names));
                } else {
                    self.decide(Decision::NamesReserved {
                        federate: f,
                        names: names.clone(),
                        req,
                    });
                    self.reply_when_acked(from, id, Reply::Reserved(names), false);
                }
            }
            Request::Release(f, names) => {
                self.decide(Decision::NamesReleased { federate: f, names });
                self.reply_when_acked(from, id, Reply::Done, false);
            }
            sync @ (Request::RegisterSync { .. } | Request::AchieveSync { .. }) => {
                if let Some(r) = self.decide_sync(from, id, sync) {
                    self.reply(from, id, r);
                }
            }
            save @ (Request::Save { .. } | Request::SaveReport { .. } | Request::AbortSave(..)) => {
                if let Some(r) = self.decide_save(from, id, save) {
                    self.reply(from, id, r);
                }
            }
            restore @ (Request::Restore { .. }
            | Request::RestoreReport { .. }
            | Request::AbortRestore) => {
                if let Some(r) = self.decide_restore(from, id, restore) {
                    self.reply(from, id, r);
                }
            }
            Request::Transfer {
                object,
                attrs,
                from: owner,
                to,
                tag,
                silent,
            } => {
                if let Some(r) = self.decide_transfer(req, object, attrs, owner, to, tag, silent) {
                    self.reply(from, id, r);
                }
            }
            Request::Sync => self.reply(from, id, Reply::Done),
            Request::Leave => {
                let on_it: Vec<String> = self
                    .view
                    .federates
                    .values()
                    .filter(|r| r.node == from)
                    .map(|r| r.name.clone())
                    .collect();
                if !on_it.is_empty() {
                    let e = RtiError::FederateIsExecutionMember(format!(
                        "federation {}: LRC {from:x} still hosts {}",
                        self.name,
                        on_it.join(", ")
                    ));
                    self.reply(from, id, Reply::Failed(e));
                    return;
                }
                if self.view.nodes.contains(&from) {
                    self.decide(Decision::NodeLeft(from));
                    if from == self.me {
                        // A coordinator that leaves is one no more: the members acknowledge its
                        // departure to it directly (see `on_node_left`), and it completes
                        // once each did (`check_departure`).
                        self.departing = Some((id, self.view.last()));
                    }
                    self.decide_left_behind();
                }
                if from == self.me {
                    self.check_departure();
                } else {
                    self.reply_when_acked(from, id, Reply::Done, false);
                }
            }
            Request::Destroy => {
                if self.view.federates.is_empty() {
                    self.decide(Decision::Destroyed);
                    self.reply(from, id, Reply::Done);
                } else {
                    let names: Vec<String> = self
                        .view
                        .federates
                        .values()
                        .map(|r| r.name.clone())
                        .collect();
                    let e = RtiError::FederatesCurrentlyJoined(format!(
                        "federation {}: still joined: {}",
                        self.name,
                        names.join(", ")
                    ));
                    self.reply(from, id, Reply::Failed(e));
                }
            }
        }
    }

    /// Answers a request once every other live member has applied the log up to here. A
    /// decision becomes visible to the API only when all survivors of a coordinator crash hold
    /// it, so the next coordinator can never hand out the same handle or name again.
    fn reply_when_acked(&mut self, to: Node, id: u64, reply: Reply, welcome: bool) {
        if self.held.iter().any(|h| h.to == to && h.id == id) {
            return;
        }
        self.held.push(HeldReply {
            to,
            id,
            upto: self.view.last(),
            reply,
            welcome,
        });
        self.check_held_replies();
    }

    /// Forgets the replies held for `n` (it was removed: they are never due).
    pub(crate) fn drop_held_replies_to(&mut self, n: Node) {
        self.held.retain(|h| h.to != n);
    }

    /// Sends the held replies every other live member has acknowledged.
    pub(crate) fn check_held_replies(&mut self) {
        if !self.is_active_coordinator() {
            return;
        }
        // Members never heard from since this LRC coordinates (added by a predecessor) are
        // asked where they stand; unadmitted ones answer 0 and are not waited for.
        let silent: Vec<Node> = self
            .view
            .nodes
            .iter()
            .copied()
            .filter(|m| {
                *m != self.me
                    && !self.suspected.contains(m)
                    && !self.reports.contains_key(m)
                    && !self.probed.contains(m)
            })
            .collect();
        for m in silent {
            self.probed.insert(m);
            let after = self.view.last();
            self.send_control(m, false, ControlMsg::Fetch { after });
        }
        let held = std::mem::take(&mut self.held);
        for h in held {
            let acked = self.view.nodes.iter().all(|m| {
                *m == self.me
                    || (*m == h.to && h.welcome)
                    || self.unadmitted.contains(m)
                    || self.suspected.contains(m)
                    || self.reports.get(m).is_some_and(|l| *l >= h.upto)
            });
            if acked {
                if h.welcome {
                    self.unadmitted.remove(&h.to);
                    self.welcomed.insert(h.to);
                    self.welcome_if_needed(h.to);
                }
                self.reply(h.to, h.id, h.reply);
            } else {
                self.held.push(h);
            }
        }
    }

    /// A node admitted by a decision gets the whole log (it ignores what it already has).
    fn welcome_if_needed(&mut self, to: Node) {
        if to == self.me {
            return;
        }
        // Everything decided so far, not only what every member acknowledged: decisions made
        // while `to` was unadmitted were answered without its acknowledgement, and a newcomer
        // welcomed with less that then outlives this coordinator and every member holding them
        // would hand out their handles again (rti_sim, swarm seed 3478, late links). Carried in
        // the welcome itself, they reach the newcomer with its admission or not at all.
        // Compacted (see `super::compaction`): the folded stand-in for decisions every member
        // applied, then the rest verbatim.
        let log: Vec<Decision> = self.view.log.clone();
        let modules = self.modules.clone();
        let time_kind = self.time_kind();
        self.send_control(
            to,
            false,
            ControlMsg::Welcome {
                base: self.view.base,
                folded: self.view.folded.clone(),
                log,
                modules,
                time_kind,
            },
        );
    }

    /// Appends a decision, applies it here and sends it to every other member.
    pub(crate) fn decide(&mut self, d: Decision) {
        let first = self.view.last() + 1;
        self.apply_decision(d.clone());
        let members: Vec<Node> = self.view.nodes.clone();
        for n in members {
            if n != self.me && !self.suspected.contains(&n) {
                self.send_control(
                    n,
                    false,
                    ControlMsg::Decisions {
                        first,
                        list: vec![d.clone()],
                    },
                );
            }
        }
        // A removed node is no longer in `nodes`, nothing more to tell it.
    }

    /// Applies the next decision of the log to the replicated view and to local state.
    pub(crate) fn apply_decision(&mut self, d: Decision) {
        let default = self.default_resign_action();
        let autos: Vec<(FederateHandle, super::wire::ResignAction)> =
            self.auto_resign.iter().map(|(h, a)| (*h, *a)).collect();
        let auto = move |h: FederateHandle| {
            autos
                .iter()
                .find(|(x, _)| *x == h)
                .map_or(default, |(_, a)| *a)
        };
        let is_destroy = d == Decision::Destroyed;
        // The Welcome's modules already include those of the log it replays.
        if let (Decision::ModulesAdded(m), false) = (&d, self.phase.is_replaying()) {
            self.add_modules(m.clone());
        }
        self.apply_sync(&d);
        self.apply_save(&d);
        self.apply_restore(&d);
        self.apply_transfer(&d);
        self.apply_federation_switches(&d);
        self.apply_left_behind(&d);
        match self.view.apply(d.clone(), &auto) {
            Applied::Nothing => {}
            Applied::NodeAdded(n) => self.on_node_added(n),
            Applied::Joined(h) => {
                if let Decision::FederateJoined { node, name, .. } = &d
                    && *node == self.me
                {
                    {
                        self.locals.insert(
                            h,
                            super::LocalFederate {
                                name: name.clone(),
                                decl: Default::default(),
                                known: Default::default(),
                                next_counter: 1,
                                auto_resign: default,
                                advice: super::advisory::Advice::new(self.fdd.as_deref()),
                                orders: Default::default(),
                            },
                        );
                    }
                }
                if let Decision::FederateJoined { node, req, .. } = &d {
                    self.time_on_joined(h, *node);
                    if *node == self.me {
                        self.mom_note_join_modules(h, req.1);
                    }
                    self.mom_on_joined(h, *node);
                }
                self.sync_on_joined(h);
            }
            Applied::Resigned(list) => {
                let lost = matches!(d, Decision::NodeRemoved(_));
                if let Decision::NodeLeft(n) = d {
                    self.on_node_left(n);
                    self.ownership_on_node_removed(n);
                    self.time_on_node_removed(n);
                }
                if let Decision::NodeRemoved(n) = d {
                    self.on_node_removed(n);
                    self.release_resignations(Some(n));
                    self.ownership_on_node_removed(n);
                    self.time_on_node_removed(n);
                }
                let hw = match d {
                    Decision::FederateResigned { hw, .. } => hw,
                    _ => 0,
                };
                for (h, node, action, name) in list {
                    // A newcomer replaying the log learns of losses that happened before it
                    // came: the members reported and acted on them then; reporting them again
                    // here would log (and count) old losses as new.
                    if lost && !self.phase.is_replaying() {
                        // The name the view had (a remote federate is not in `locals`).
                        let name = if name.is_empty() {
                            format!("federate {h}")
                        } else {
                            name
                        };
                        self.actions
                            .push_back(Action::FederateLost { federate: h, name });
                        self.mom_federate_lost(h);
                    }
                    if lost {
                        // Its data stream is gone: its versions end without a hand-over.
                        self.ownership.federate_lost(h);
                    } else if node != self.me {
                        self.ownership.resigned_on(h, node);
                    }
                    self.resign_after_data(h, node, hw, action);
                    self.time_on_left(h, node, lost);
                    self.sync_on_left(h);
                    self.save_on_left(h, lost);
                    self.restore_on_left(h, lost);
                }
                self.advise();
            }
        }
        if is_destroy {
            // Answer pending calls before the shell drops this core.
            for (_, p) in std::mem::take(&mut self.pending) {
                if let Some(ticket) = p.ticket {
                    // A resignation decided before the destruction succeeded: only its reply
                    // (held for acknowledgements) was still on its way.
                    let resigned = matches!(&p.body, Request::Resign(h, ..)
                        if !self.view.federates.contains_key(h));
                    let result = if p.body == Request::Destroy || resigned {
                        Ok(Completion::Done)
                    } else {
                        Err(RtiError::FederationExecutionDoesNotExist(format!(
                            "federation {} was destroyed",
                            self.name
                        )))
                    };
                    self.actions.push_back(Action::Complete { ticket, result });
                }
            }
            self.actions.push_back(Action::Destroyed);
        }
        self.check_coordinator();
    }

    pub(crate) fn on_reply(&mut self, id: u64, reply: Reply) {
        // A coordinator sends its Welcome before the reply that admits (one FIFO link), so a
        // joiner that gets `Joined` still unadmitted ignored that Welcome as stale (see
        // `Phase::superseded`): the join stays pending, retried, until the successor admits it.
        if !self.phase.is_admitted() && matches!(reply, Reply::Joined(_)) {
            return;
        }
        let Some(p) = self.pending.remove(&id) else {
            return;
        };
        if let Request::Transfer { .. } = &p.body {
            self.transfer_answered(id, &p.body);
        }
        if let Request::Sync = &p.body {
            self.ownership_synced(id);
        }
        let result = match (&p.body, reply) {
            (_, Reply::Failed(e)) => Err(e),
            (_, Reply::Joined(h)) => Ok(Completion::Joined(h)),
            (
                Request::RegisterSync {
                    federate, label, ..
                },
                Reply::SyncFailed(reason),
            ) => {
                self.callback(
                    *federate,
                    Callback::SynchronizationPointRegistrationFailed(label.clone(), reason),
                );
                Ok(Completion::Done)
            }
            (Request::Reserve(f, _), Reply::Reserved(names)) => {
                let cb = if p.multiple {
                    Callback::MultipleObjectInstanceNameReservationSucceeded(names)
                } else {
                    Callback::ObjectInstanceNameReservationSucceeded(
                        names.into_iter().next().unwrap_or_default(),
                    )
                };
                self.callback(*f, cb);
                Ok(Completion::Done)
            }
            (Request::Reserve(f, _), Reply::NotReserved(names)) => {
                let cb = if p.multiple {
                    Callback::MultipleObjectInstanceNameReservationFailed(names)
                } else {
                    Callback::ObjectInstanceNameReservationFailed(
                        names.into_iter().next().unwrap_or_default(),
                    )
                };
                self.callback(*f, cb);
                Ok(Completion::Done)
            }
            _ => Ok(Completion::Done),
        };
        if let Some(ticket) = p.ticket {
            self.actions.push_back(Action::Complete { ticket, result });
        }
    }

    pub(crate) fn on_control(&mut self, from: Node, msg: ControlMsg) {
        if !matches!(msg, ControlMsg::Time { .. }) {
            tracing::trace!(federation = %self.name, "control from {from:x}: {msg:?}");
        }
        match msg {
            ControlMsg::Request { id, body, epoch } => self.on_request(from, id, body, epoch),
            ControlMsg::Reply { id, reply } => self.on_reply(id, reply),
            ControlMsg::Welcome {
                base,
                folded,
                log,
                modules,
                time_kind,
            } => {
                if self
                    .phase
                    .superseded(from, folded.iter().map(|(_, d)| d).chain(&log))
                {
                    tracing::debug!(
                        federation = %self.name,
                        "welcome from {from:x} is stale: its successor fetched this joiner"
                    );
                    return;
                }
                if !self.phase.is_admitted() {
                    self.set_time_kind(time_kind);
                }
                self.on_welcome(from, base, folded, log, modules)
            }
            ControlMsg::Decisions { first, list } => self.on_decisions(from, first, list),
            ControlMsg::Report { last, to, settled } => self.on_report(from, last, to, settled),
            ControlMsg::Fetch { after } => {
                if self.phase.is_admitted()
                    && !self.view.nodes.contains(&from)
                    && !self.left.contains(&from)
                {
                    // A coordinator of another history taking over, whose log admitted this LRC
                    // (a join request held across a heal): it is no member of ours, and the
                    // majority rule settles which history keeps this LRC (joiner sweep seed
                    // 16436: else it waited for our report for good, both histories alive).
                    self.tell_evicted(from);
                    return;
                }
                if self.phase.is_admitted()
                    && self.suspected.contains(&from)
                    && self.channel_peers.contains(&from)
                    && self.comes_before_coordinator(from)
                {
                    // A member this LRC lost and has back takes over: it is alive, and the
                    // others follow it. Passing it over, this LRC took over beside it, each
                    // waited for the other's report, and neither decided again (joiner sweep
                    // seed 2661). This LRC decided nothing while recovering, so it follows it.
                    self.suspected.remove(&from);
                    self.gone.remove(&from);
                    self.recovery = None;
                    self.check_coordinator();
                }
                // Answer only once everything the old coordinator sent us has arrived, i.e. once
                // we too see `from` as coordinator; our own Report follows then.
                if self.phase.is_admitted() && self.coordinator() != Some(from) {
                    return;
                }
                let last = if self.phase.is_admitted() {
                    self.view.last()
                } else {
                    self.phase.fetched_by(from);
                    0
                };
                self.send_control(
                    from,
                    false,
                    ControlMsg::Report {
                        last,
                        to: from,
                        settled: self.settled_mark(),
                    },
                );
                let tail = self.log_after(after);
                if !tail.is_empty() {
                    self.send_control(
                        from,
                        false,
                        ControlMsg::Decisions {
                            first: after + 1,
                            list: tail,
                        },
                    );
                }
            }
            ControlMsg::Redirect { coordinator } => self.add_candidates([coordinator]),
            ControlMsg::SnapshotRequest => self.on_snapshot_request(from),
            ControlMsg::Evicted { nodes } => self.on_evicted(from, nodes),
            ControlMsg::Member { nodes } => self.on_member(from, nodes),
            ControlMsg::RegionsQuery => self.on_regions_query(from),
            ControlMsg::MovedRegions { moved } => self.on_moved_regions(from, moved),
            ControlMsg::Ownership { msg, epoch } => {
                if epoch == self.restore.epoch() {
                    self.on_ownership_msg(from, msg);
                }
            }
            ControlMsg::Time {
                from: f,
                to,
                msg,
                epoch,
                number,
            } => self.on_time_message(from, f, to, msg, epoch, number),
            ControlMsg::Snapshot {
                high_water,
                instances,
                declarations,
                epoch,
                hand_overs,
            } => {
                if epoch == self.restore.epoch() {
                    self.on_snapshot(from, high_water, instances, declarations, hand_overs)
                } else if let Some(st) = self.streams.get_mut(&from) {
                    // Taken in another run: asked again at the next tick (the sender is
                    // behind) or at our commit (we are).
                    st.requested = false;
                }
            }
        }
    }

    /// Decisions after `after`, for a member that has only those. Empty (and logged) when some
    /// are folded: a fold waits for every member to pass it, so none should ask.
    fn log_after(&self, after: u64) -> Vec<super::wire::Decision> {
        self.view.log_after(after).unwrap_or_else(|| {
            tracing::warn!(
                federation = %self.name,
                "decisions after {after} asked for, but the log is folded up to {}",
                self.view.base
            );
            Vec::new()
        })
    }

    /// The lowest request id this LRC still has pending (its next id if none): it sends no
    /// request below it any more (see `super::compaction`).
    pub(crate) fn settled_mark(&self) -> u64 {
        self.pending.keys().next().copied().unwrap_or(self.next_req)
    }

    /// The coordinator folds its log once the tail is long and every member has gone far
    /// enough past the last fold (see `super::compaction`). Called after reports and on ticks.
    pub(crate) fn maybe_fold(&mut self) {
        let (every, keep) = self.fold_thresholds;
        if !self.is_active_coordinator()
            || self.view.destroyed
            || (self.view.log.len() as u64) < every
        {
            return;
        }
        let mut stable = self.view.last();
        for m in &self.view.nodes {
            if *m == self.me || self.suspected.contains(m) {
                continue;
            }
            if self.unadmitted.contains(m) {
                return;
            }
            match self.reports.get(m) {
                Some(l) => stable = stable.min(*l),
                None => return,
            }
        }
        let upto = stable.saturating_sub(keep);
        if upto <= self.view.base + every / 2 {
            return;
        }
        let mut settled: Vec<(u64, u64)> = self
            .view
            .nodes
            .iter()
            .filter_map(|m| self.settled_marks.get(m).map(|s| (*m, *s)))
            .filter(|(m, _)| *m != self.me)
            .collect();
        settled.push((self.me, self.settled_mark()));
        settled.sort_unstable();
        self.decide(Decision::Fold { upto, settled });
    }

    /// Merges modules a joiner brought (the coordinator checked they merge).
    fn add_modules(&mut self, m: Vec<(String, String)>) {
        let mut all = self.modules.clone();
        all.extend(m);
        match super::parse_modules(&all) {
            Ok(fdd) => {
                self.fdd = Some(std::sync::Arc::new(fdd));
                self.modules = all;
                // A new subclass of an interaction class a local federate subscribes to is
                // received as that class, in the subclass's own routing space: join its cells.
                self.refresh_cells();
            }
            Err(e) => tracing::error!(
                federation = %self.name,
                "FOM modules the coordinator accepted do not merge here: {e}"
            ),
        }
    }

    fn on_welcome(
        &mut self,
        from: Node,
        base: u64,
        folded: Vec<(u64, Decision)>,
        log: Vec<Decision>,
        modules: Vec<(String, String)>,
    ) {
        if self.phase.is_admitted() {
            // Already a member: treat as a log repair (a member is always past any fold).
            self.on_decisions(from, base + 1, log);
            return;
        }
        // Numbers as the log has them: increasing, and the folded part up to `base`.
        if folded.windows(2).any(|w| w[0].0 >= w[1].0)
            || folded.last().is_some_and(|(n, _)| *n > base)
        {
            tracing::warn!(federation = %self.name, "welcome from {from:x} with a malformed log");
            return;
        }
        let fdd = match super::parse_modules(&modules) {
            Ok(f) => f,
            Err(e) => {
                let tickets: Vec<Ticket> = self.pending.values().filter_map(|p| p.ticket).collect();
                self.pending.clear();
                for ticket in tickets {
                    self.actions.push_back(Action::Complete {
                        ticket,
                        result: Err(e.clone()),
                    });
                }
                return;
            }
        };
        self.fdd = Some(std::sync::Arc::new(fdd));
        self.modules = modules;
        self.phase.admit();
        self.welcome_size = Some(super::compaction::WelcomeSize::of(base, &folded, &log));
        // Everyone already in the log joined before this LRC: their streams need a snapshot.
        for d in folded.iter().map(|(_, d)| d).chain(&log) {
            if let Decision::NodeAdded(n) = d
                && *n != self.me
            {
                {
                    self.streams.entry(*n).or_default().needs_snapshot = true;
                }
            }
        }
        // The folded part with its own numbers (what reads the position while applying, such
        // as a save's id, sees the number the decision had), then the rest.
        for (n, d) in &folded {
            self.view.seek(*n);
            self.apply_decision(d.clone());
        }
        self.view.set_folded(base, folded);
        for d in log {
            self.apply_decision(d);
        }
        self.phase.replayed();
        self.restore_after_replay();
        // Members that went before we were admitted are suspected now that we know them.
        let gone: Vec<Node> = self
            .view
            .nodes
            .iter()
            .copied()
            .filter(|n| self.gone.contains(n))
            .collect();
        for n in gone {
            self.suspected.insert(n);
        }
        self.check_coordinator();
        if self.coordinator() == Some(self.me) && from != self.me && self.view.nodes.contains(&from)
        {
            // Welcomed by a member, not by a coordinator: ours died before its Welcome reached
            // us, and we are next in line (see `on_request`). Take over like any successor.
            self.start_recovery();
        } else if self.is_active_coordinator() {
            self.remove_suspected();
        }
        self.request_snapshots();
        if let Some(c) = self.coordinator()
            && c != self.me
        {
            self.report_to(c);
        }
        // Requests sent to all candidates now go to the coordinator only.
        let ids: Vec<(u64, Request)> = self
            .pending
            .iter()
            .map(|(i, p)| (*i, p.body.clone()))
            .collect();
        for (id, body) in ids {
            if !matches!(body, Request::Join { .. }) {
                self.send_request(id, body);
            }
        }
    }

    fn on_decisions(&mut self, from: Node, first: u64, list: Vec<Decision>) {
        if !self.phase.is_admitted() {
            return;
        }
        if from != self.me && !self.view.nodes.contains(&from) && !self.left.contains(&from) {
            // Decisions (or a Welcome) of another history: the other side of a partition
            // admitted this LRC again (a join request held across the heal, simulator seeds
            // 1087, 281). Not applied: this LRC tells it that it is no member of ours, and the
            // majority rule decides which history keeps it (`super::eviction`).
            self.tell_evicted(from);
            return;
        }
        let last = self.view.last();
        if first > last + 1 {
            self.report_to(from);
            return;
        }
        for (i, d) in list.into_iter().enumerate() {
            let n = first + i as u64;
            if n == self.view.last() + 1 {
                self.apply_decision(d);
            }
        }
        if let Some(c) = self.coordinator()
            && c != self.me
        {
            self.report_to(c);
        }
        self.progress_recovery();
    }

    fn on_report(&mut self, from: Node, last: u64, to: Node, settled: u64) {
        if to != self.me {
            return;
        }
        if self.view.nodes.contains(&from) {
            self.settled_marks.insert(from, settled);
            // Requests below the mark are never sent again (see `compaction`).
            self.refused
                .retain(|(node, id), _| *node != from || *id >= settled);
        }
        if last == 0 {
            // A probe answered before our welcome reached it says nothing new.
            if !self.welcomed.contains(&from) {
                self.unadmitted.insert(from);
            }
        } else {
            self.unadmitted.remove(&from);
        }
        let e = self.reports.entry(from).or_insert(last);
        *e = (*e).max(last);
        if self.recovery.is_none() && self.coordinator() == Some(self.me) && last < self.view.last()
        {
            let tail = self.log_after(last);
            self.send_control(
                from,
                false,
                ControlMsg::Decisions {
                    first: last + 1,
                    list: tail,
                },
            );
        }
        self.progress_recovery();
        self.check_held_replies();
        self.check_departure();
        self.maybe_fold();
    }

    /// Called after any change of view or suspicion: notices a new coordinator.
    /// Taking over: every other member reports how far its log goes (a longer tail is
    /// fetched) before this LRC decides anything.
    fn start_recovery(&mut self) {
        let waiting: BTreeSet<Node> = self
            .view
            .nodes
            .iter()
            .copied()
            .filter(|n| *n != self.me && !self.suspected.contains(n))
            .collect();
        for n in &waiting {
            let after = self.view.last();
            self.send_control(*n, false, ControlMsg::Fetch { after });
        }
        self.recovery = Some(Recovery {
            waiting,
            best: (self.view.last(), self.me),
        });
        self.progress_recovery();
    }

    /// Not while a Welcome replays: halfway through its log the coordinator may look like
    /// this LRC (the members ahead of it lost here), and taking over there would decide in the
    /// middle of a history that goes on (simulator seed 15985). `on_welcome` checks once the
    /// whole log is applied.
    pub(crate) fn check_coordinator(&mut self) {
        if !self.phase.is_admitted() || self.phase.is_replaying() {
            return;
        }
        let c = self.coordinator();
        if c == self.current_coordinator {
            return;
        }
        let first_time = self.current_coordinator.is_none();
        self.current_coordinator = c;
        let Some(c) = c else { return };
        if first_time {
            return; // joining: the log just told us who coordinates
        }
        if c == self.me {
            self.start_recovery();
        } else {
            self.report_to(c);
            let ids: Vec<(u64, Request)> = self
                .pending
                .iter()
                .map(|(i, p)| (*i, p.body.clone()))
                .collect();
            for (id, body) in ids {
                self.send_request(id, body);
            }
        }
    }

    fn progress_recovery(&mut self) {
        let Some(mut r) = self.recovery.take() else {
            return;
        };
        let reports: Vec<(Node, u64)> = self.reports.iter().map(|(n, l)| (*n, *l)).collect();
        for (n, last) in reports {
            if r.waiting.remove(&n) && last > r.best.0 {
                r.best = (last, n);
                self.send_control(
                    n,
                    false,
                    ControlMsg::Fetch {
                        after: self.view.last(),
                    },
                );
            }
        }
        r.waiting.retain(|n| !self.suspected.contains(n));
        if self.suspected.contains(&r.best.1) && self.view.last() < r.best.0 {
            // Whoever had the longest log is gone too; take the longest of the rest, which may
            // still be longer than ours: a survivor that got more of the old coordinator's tail
            // than we did must not have it overwritten by what we decide next.
            r.best = (self.view.last(), self.me);
            for (n, last) in &self.reports {
                if *last > r.best.0 && self.view.nodes.contains(n) && !self.suspected.contains(n) {
                    r.best = (*last, *n);
                }
            }
            if r.best.1 != self.me {
                let after = self.view.last();
                self.send_control(r.best.1, false, ControlMsg::Fetch { after });
            }
        }
        if !r.waiting.is_empty() || self.view.last() < r.best.0 {
            self.recovery = Some(r);
            return;
        }
        // Recovered: bring every member up to date, remove the lost, serve queued requests.
        let reports: Vec<(Node, u64)> = self.reports.iter().map(|(n, l)| (*n, *l)).collect();
        for (n, last) in reports {
            if self.view.nodes.contains(&n) && last < self.view.last() {
                let tail = self.log_after(last);
                self.send_control(
                    n,
                    false,
                    ControlMsg::Decisions {
                        first: last + 1,
                        list: tail,
                    },
                );
            }
        }
        self.remove_suspected();
        for (from, id, body, epoch) in std::mem::take(&mut self.queued) {
            self.on_request(from, id, body, epoch);
        }
        let epoch = self.restore.epoch();
        for (id, p) in self.pending.clone() {
            self.on_request(self.me, id, p.body, epoch);
        }
        self.check_held_replies();
    }

    /// Applies [`Decision::NodeLeft`]: `n` is no member any more, but not lost. Its data stream
    /// stays until its channel closes (a resignation may still wait for its last data), and
    /// the coordinator forgets what it knew of it, so that it can join again as a newcomer.
    fn on_node_left(&mut self, n: Node) {
        if n == self.me {
            return;
        }
        if !self.phase.is_replaying() {
            // Its departure acknowledged to it: a coordinator that leaves waits for this.
            self.report_to(n);
        }
        self.left.insert(n);
        self.suspected.remove(&n);
        self.gone.remove(&n);
        self.unadmitted.remove(&n);
        self.welcomed.remove(&n);
        self.probed.remove(&n);
        self.reports.remove(&n);
        self.settled_marks.remove(&n);
        self.evicted_told.remove(&n);
        self.foreign.remove(&n);
        self.refused.retain(|(from, _), _| *from != n);
        self.held.retain(|h| h.to != n);
        self.queued.retain(|(from, ..)| *from != n);
    }

    /// A coordinator that decided its own departure completes it once every remaining member
    /// acknowledged the decision (or is suspected): only then may its channel close, so its
    /// last decisions cannot be cut off with it.
    fn check_departure(&mut self) {
        let Some((id, upto)) = self.departing else {
            return;
        };
        let acked = self.view.nodes.iter().all(|m| {
            *m == self.me
                || self.suspected.contains(m)
                || self.unadmitted.contains(m)
                || self.reports.get(m).is_some_and(|l| *l >= upto)
        });
        if acked {
            self.departing = None;
            self.on_reply(id, Reply::Done);
        }
    }

    pub(crate) fn remove_suspected(&mut self) {
        let gone: Vec<Node> = self
            .view
            .nodes
            .iter()
            .copied()
            .filter(|n| self.suspected.contains(n))
            .collect();
        for n in gone {
            self.decide(Decision::NodeRemoved(n));
        }
        self.decide_left_behind();
    }

    pub(crate) fn on_peer_gone(&mut self, n: Node) {
        self.channel_peers.remove(&n);
        if n == self.me {
            return;
        }
        if self.left.contains(&n) && !self.view.nodes.contains(&n) {
            // It left (its channel closing follows the decision): neither lost nor barred.
            self.streams.remove(&n);
            self.release_resignations(Some(n));
            return;
        }
        self.gone.insert(n);
        self.release_resignations(Some(n));
        if let Some(none_left) = self.phase.candidate_gone(n) {
            if none_left {
                let tickets: Vec<Ticket> = self.pending.values().filter_map(|p| p.ticket).collect();
                self.pending.clear();
                for ticket in tickets {
                    let e = RtiError::FederationExecutionDoesNotExist(format!(
                        "federation {}: every member left before this LRC was admitted",
                        self.name
                    ));
                    self.actions.push_back(Action::Complete {
                        ticket,
                        result: Err(e),
                    });
                }
            }
            return;
        }
        if !self.view.nodes.contains(&n) {
            // A joiner lost before its admission (or a node already removed). Not barred: a
            // joiner has nothing here to keep apart, and it ignores `Evicted` (its join would
            // never be answered: simulator seeds 368, 29). It may come back and join. Should
            // the other side of a partition have admitted it meanwhile, the views settle when
            // they meet like any two sides (`super::eviction`).
            self.streams.remove(&n);
            return;
        }
        self.suspected.insert(n);
        self.check_coordinator();
        if self.is_active_coordinator() {
            self.remove_suspected();
            self.check_held_replies();
        } else {
            self.progress_recovery();
        }
        self.check_departure();
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::ResignAction;
    use super::super::{Completion, Event};
    use super::*;

    /// Node 3 joined with a federate and was lost; then node 2 is welcomed.
    fn history() -> Vec<Decision> {
        vec![
            Decision::NodeAdded(1),
            Decision::NodeAdded(3),
            Decision::FederateJoined {
                handle: FederateHandle(1),
                name: "gone".into(),
                federate_type: "t".into(),
                node: 3,
                req: (3, 1),
            },
            Decision::NodeRemoved(3),
            Decision::NodeAdded(2),
        ]
    }

    fn lost_reports(c: &mut FederationCore) -> usize {
        std::iter::from_fn(|| c.poll_action())
            .filter(|a| matches!(a, Action::FederateLost { .. }))
            .count()
    }

    /// LRCs whose control messages arrive at once and in order; data is dropped (membership
    /// needs none). Time moves by a retry period per round.
    struct Net {
        cores: Vec<FederationCore>,
        now: u64,
        done: Vec<(Node, Ticket, Result<Completion, RtiError>)>,
        lost: usize,
    }

    impl Net {
        fn core(&mut self, n: Node) -> &mut FederationCore {
            self.cores
                .iter_mut()
                .find(|c| c.node() == n)
                .expect("a core of that node")
        }

        /// Runs until `ticket` of `node` completed (at most 40 rounds).
        fn until(&mut self, node: Node, ticket: Ticket) -> Result<Completion, RtiError> {
            for _ in 0..40 {
                self.round();
                if let Some(i) = self
                    .done
                    .iter()
                    .position(|(n, t, _)| *n == node && *t == ticket)
                {
                    return self.done.remove(i).2;
                }
            }
            panic!("ticket {ticket:?} of {node} never completed");
        }

        fn round(&mut self) {
            self.now += RETRY_US;
            let now = self.now;
            for c in &mut self.cores {
                c.handle(now, Event::Tick);
            }
            // Bounded: a handful of message exchanges settle membership.
            for _ in 0..1000 {
                let mut sent = Vec::new();
                for c in &mut self.cores {
                    while let Some(a) = c.poll_action() {
                        match a {
                            Action::SendControl { to, bytes, .. } => {
                                sent.push((c.node(), to, bytes))
                            }
                            Action::Complete { ticket, result } => {
                                self.done.push((c.node(), ticket, result))
                            }
                            Action::FederateLost { .. } => self.lost += 1,
                            _ => {}
                        }
                    }
                }
                if sent.is_empty() {
                    return;
                }
                for (from, to, bytes) in sent {
                    let msg = super::super::wire::Envelope::decode(&bytes)
                        .expect("a control message")
                        .msg;
                    if let Some(c) = self.cores.iter_mut().find(|c| c.node() == to) {
                        c.handle(now, Event::Control { from, msg });
                    }
                }
            }
            panic!("control messages never settled");
        }

        /// `node` joins a federate `name` (opening a fresh core if it has none).
        fn join(&mut self, node: Node, name: &str) -> FederateHandle {
            if !self.cores.iter().any(|c| c.node() == node) {
                let members = self.cores.iter().map(|c| c.node()).collect();
                self.cores
                    .push(FederationCore::joining("F", node, self.now, members));
            }
            let t = self.core(node).join(Some(name.into()), "t");
            match self.until(node, t) {
                Ok(Completion::Joined(h)) => h,
                other => panic!("join of {name}: {other:?}"),
            }
        }

        fn resign(&mut self, node: Node, h: FederateHandle) {
            let t = self
                .core(node)
                .resign(h, ResignAction::DeleteObjects)
                .expect("resign");
            self.until(node, t).expect("resigned");
        }

        /// `node` leaves as `disconnect` makes it: the decision, then its channel closes.
        fn leave(&mut self, node: Node) {
            let t = self.core(node).leave().expect("nothing joined");
            self.until(node, t).expect("left");
            self.cores.retain(|c| c.node() != node);
            for c in &mut self.cores {
                c.handle(self.now, Event::PeerGone(node));
            }
            self.round();
        }
    }

    fn net() -> Net {
        let a = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        Net {
            cores: vec![a],
            now: 0,
            done: Vec::new(),
            lost: 0,
        }
    }

    #[test]
    fn an_lrc_that_leaves_is_no_member_any_more_and_may_join_again() {
        let mut net = net();
        net.join(1, "a");
        let b = net.join(2, "b");
        net.join(3, "c");
        assert!(
            net.core(2).leave().is_err(),
            "refused while its federate is joined"
        );
        net.resign(2, b);
        net.leave(2);
        for n in [1, 3] {
            let c = net.core(n);
            assert_eq!(c.view().nodes, vec![1, 3], "at {n}");
            assert!(
                !c.removed.contains(&2) && !c.suspected.contains(&2),
                "at {n}"
            );
        }
        assert_eq!(net.lost, 0, "nobody was lost");
        // Acknowledgements no longer wait for it: a new federate joins at once.
        net.join(3, "c2");
        // It joins again under the same node id, with request ids numbered afresh.
        let b2 = net.join(2, "b");
        assert_ne!(b2, b, "a new federate, not the old join answered again");
        assert_eq!(net.core(1).view().nodes, vec![1, 3, 2]);
        assert!(net.core(2).is_admitted());
        assert_eq!(net.lost, 0);
    }

    #[test]
    fn a_coordinator_that_leaves_hands_over_to_the_next_member() {
        let mut net = net();
        let a = net.join(1, "a");
        net.join(2, "b");
        net.join(3, "c");
        net.resign(1, a);
        net.leave(1);
        for n in [2, 3] {
            let c = net.core(n);
            assert_eq!(c.view().nodes, vec![2, 3], "at {n}");
            assert_eq!(c.coordinator(), Some(2), "at {n}");
        }
        // The new coordinator decides: a join from a newcomer completes.
        net.join(4, "d");
        assert_eq!(net.core(3).view().nodes, vec![2, 3, 4]);
        assert_eq!(net.lost, 0);
    }

    #[test]
    fn a_loss_is_reported_when_it_happens() {
        let mut a = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        for d in history().into_iter().skip(1) {
            a.apply_decision(d);
        }
        // Named as it joined, though it ran on another LRC.
        let names: Vec<String> = std::iter::from_fn(|| a.poll_action())
            .filter_map(|x| match x {
                Action::FederateLost { name, .. } => Some(name),
                _ => None,
            })
            .collect();
        assert_eq!(names, vec!["gone".to_string()]);
    }

    #[test]
    fn a_newcomer_replaying_the_log_does_not_report_old_losses_again() {
        let mut b = FederationCore::joining("F", 2, 0, vec![1]);
        b.handle(
            0,
            Event::Control {
                from: 1,
                msg: ControlMsg::Welcome {
                    base: 0,
                    folded: Vec::new(),
                    log: history(),
                    modules: Vec::new(),
                    time_kind: Default::default(),
                },
            },
        );
        assert!(b.is_admitted());
        assert!(b.view().federates.is_empty(), "the lost federate is gone");
        assert_eq!(b.view().nodes, vec![1, 2]);
        assert_eq!(lost_reports(&mut b), 0, "an old loss reported as new");
    }

    /// Unified simulator seed 15985: a joiner lost its connection to the members ahead of it
    /// in the log before its Welcome came, from a member, not the coordinator. While it
    /// replayed the log it found itself first of the unsuspected nodes halfway through, took
    /// over there and decided their removal in the middle of the history it was replaying:
    /// its log and the federation's differed from that position on.
    #[test]
    fn a_joiner_replaying_its_welcome_takes_over_only_after_the_whole_log() {
        let mut c = FederationCore::joining("F", 3, 0, vec![1, 2, 4]);
        c.handle(0, Event::PeerGone(2));
        // Halfway through, 1 is removed and 2 (lost here) is ahead of this LRC; 4 comes later.
        let log = vec![
            Decision::NodeAdded(1),
            Decision::NodeAdded(2),
            Decision::NodeAdded(3),
            Decision::NodeRemoved(1),
            Decision::NodeAdded(4),
        ];
        c.handle(
            1,
            Event::Control {
                from: 4,
                msg: ControlMsg::Welcome {
                    base: 0,
                    folded: Vec::new(),
                    log: log.clone(),
                    modules: Vec::new(),
                    time_kind: Default::default(),
                },
            },
        );
        assert!(c.is_admitted());
        assert_eq!(c.view().log, log, "the Welcome's history, as it was sent");
        // It takes over after the replay: it asks the member that welcomed it how far its log
        // goes before it decides anything.
        let fetched = std::iter::from_fn(|| c.poll_action()).any(|a| {
            matches!(&a, Action::SendControl { to: 4, bytes, .. }
            if matches!(
                super::super::wire::Envelope::decode(bytes).map(|e| e.msg),
                Ok(ControlMsg::Fetch { after: 5 })
            ))
        });
        assert!(fetched, "the new coordinator fetches 4's tail");
    }
}
