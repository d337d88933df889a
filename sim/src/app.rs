//! What the simulated federates call: at random in the fault phase ([`World::random_action`]:
//! LRCs start, crash and split, federates join, declare, register, update, delete, interact,
//! synchronize, save, manage time and resign; in region mode also the region calls of
//! `ddm.rs`), and their duties in the liveness phase
//! ([`World::liveness`]: finish what they were asked, advance to a common time, update every
//! instance once more) until the federation has converged ([`World::converged`]).
//!
//! Every call goes through [`World::call`], the path of an `RtiAmbassador` call; a service the
//! core refuses for a save or restore in progress is tried again later, as a federate would.

use hlamesh_core::core::FederationCore;
use hlamesh_core::core::save::SaveReport;
use hlamesh_core::core::wire::ResignAction;
use hlamesh_core::fom::OrderType;
use hlamesh_core::handles::{FederateHandle, ObjectInstanceHandle};
use hlamesh_timesync::{DynInterval, DynTime, LogicalTime};
use hlamesh_transport::NodeId;

use crate::check::membership;
use crate::check::time::Switch;
use crate::federate::Life;
use crate::lrc::FedId;
use crate::world::{FED, TICK_US, World, busy};

/// Lookahead of every regulating federate.
const LOOKAHEAD: f64 = 1.0;

/// Most federates on one LRC.
const FEDS_PER_LRC: usize = 3;

/// Time-stamp order: the earliest time federate `h` may stamp a message with, encoded (`None`
/// when it is not regulating).
pub(crate) fn earliest_stamp(c: &FederationCore, h: FederateHandle) -> Option<Vec<u8>> {
    c.time_manager(h)
        .and_then(|m| m.send_bound())
        .and_then(|b| {
            let t = if b.admits(b.time) {
                Some(b.time)
            } else {
                DynTime::new(b.time.value() + 0.5)
            };
            t.map(|t| t.encode().to_vec())
        })
}

/// What a federate sends once the liveness phase has converged, for every subscriber to
/// receive.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Final {
    /// The last value of an instance it owns.
    Update(FedId, ObjectInstanceHandle),
    /// A last ping ([`crate::Options::region_interactions`]).
    Ping(FedId),
}

impl World {
    /// A call of federate `fed` was refused with `e`: a save or restore in progress is tried
    /// again later; "not a member" means the members dropped its LRC meanwhile (a
    /// `connection_lost` must follow, see [`World::converged`]); anything else breaks the run.
    pub(crate) fn refused(
        &mut self,
        fed: FedId,
        e: &hlamesh_core::error::RtiError,
        what: impl FnOnce() -> String,
    ) -> Result<(), String> {
        match e {
            e if busy(e) => Ok(()),
            hlamesh_core::error::RtiError::FederateNotExecutionMember(_) => {
                self.trace("actions", || format!("{fed:?} dropped: {}", what()));
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.dropped = true;
                }
                Ok(())
            }
            _ => Err(what()),
        }
    }

    /// A random federate that may call the RTI: joined, declared, on a running LRC.
    pub(crate) fn random_active(&mut self) -> Option<(FedId, FederateHandle, NodeId)> {
        let live: Vec<(FedId, FederateHandle, NodeId)> = self
            .feds
            .values()
            .filter(|m| m.active() && m.declared)
            .filter_map(|m| m.handle.map(|h| (m.id, h, m.node)))
            .collect();
        (!live.is_empty()).then(|| live[self.rng.below(live.len())])
    }

    /// Running LRCs, and of those the admitted members.
    fn running(&self) -> (Vec<NodeId>, Vec<NodeId>) {
        let alive: Vec<NodeId> = self
            .lrcs
            .values()
            .filter(|l| l.alive)
            .map(|l| l.id)
            .collect();
        let members = self
            .lrcs
            .values()
            .filter(|l| l.alive && l.host.get(FED).is_some_and(|f| f.core.is_admitted()))
            .map(|l| l.id)
            .collect();
        (alive, members)
    }

    /// One random step of the fault phase.
    pub(crate) fn random_action(&mut self) -> Result<(), String> {
        // Region mode draws first, so runs without it are those of before.
        if self.opts.regions && self.rng.below(4) == 0 {
            return self.region_action();
        }
        let roll = self.rng.below(1000);
        let (alive, members) = self.running();
        match roll {
            0..40
                if alive.len() < self.opts.lrcs
                    && self.sides_settled()
                    && (self.opts.churn || self.report.lrcs < self.opts.lrcs as u64) =>
            {
                let n = self.start_lrc();
                self.add_federate(n);
            }
            40..60 if self.opts.churn && !members.is_empty() => {
                let n = members[self.rng.below(members.len())];
                let here = self
                    .feds
                    .values()
                    .filter(|m| m.node == n && m.present())
                    .count();
                if here < FEDS_PER_LRC {
                    self.add_federate(n);
                }
            }
            60..70 if self.opts.crashes && members.len() > 2 && !self.partitioned() => {
                let n = alive[self.rng.below(alive.len())];
                self.crash(n);
            }
            70..85 if self.opts.churn => self.resign()?,
            85..92
                if self.opts.partitions
                    && self.sides_settled()
                    && members.len() >= 2
                    && (self.opts.partition_joiners || self.membership_at_rest()) =>
            {
                self.partition()
            }
            92..190 => self.register()?,
            190..500 => self.update_random()?,
            500..530 => self.delete()?,
            530..600 => self.interact()?,
            600..630 if self.opts.sync_points => self.register_sync()?,
            630..680 if self.opts.sync_points => self.achieve_sync()?,
            680..690 if self.opts.saves => self.request_save()?,
            690..730 if self.opts.saves => self.report_save()?,
            730..900 if self.opts.time => self.time_action()?,
            _ => self.retry_declarations()?,
        }
        Ok(())
    }

    /// A federate that just joined publishes and subscribes (tried again later if a save or
    /// restore refuses it).
    pub(crate) fn declare(&mut self, fed: FedId) -> Result<(), String> {
        let Some(m) = self.feds.get(&fed) else {
            return Ok(());
        };
        let (Some(h), node, sub) = (m.handle, m.node, m.sub.clone()) else {
            return Ok(());
        };
        let with_regions = m.ddm.sub.is_some();
        let f = self.fom.clone();
        let tso = self.opts.time && self.opts.tso;
        // Region mode: a federate subscribing to `Position` with regions starts with one.
        let region = with_regions.then(|| self.random_ranges());
        let attrs: Vec<_> = sub
            .attrs
            .iter()
            .copied()
            .filter(|a| region.is_none() || *a != f.position)
            .collect();
        let r = self.call(node, |c| {
            if !attrs.is_empty() {
                c.subscribe_object_class_attributes(h, sub.class, &attrs, true)?;
            }
            let made = match &region {
                Some(ranges) => {
                    let r = crate::ddm::make_region(c, h, ranges)?;
                    c.subscribe_object_class_attributes_with_regions(
                        h,
                        sub.class,
                        &[(vec![f.position], vec![r])],
                        true,
                        None,
                    )?;
                    Some(r)
                }
                None => None,
            };
            c.subscribe_interaction_class(h, f.command, true)?;
            // With pings: subscribed in the same region as `Position`, or without regions.
            if let Some((ping, _)) = f.ping {
                match made {
                    Some(r) => c.subscribe_interaction_class_with_regions(h, ping, &[r], true)?,
                    None => c.subscribe_interaction_class(h, ping, true)?,
                }
                c.publish_interaction_class(h, ping)?;
                if tso {
                    c.change_interaction_order_type(h, ping, OrderType::TimeStamp)?;
                }
            }
            c.publish_object_class_attributes(h, f.car, &[f.position, f.heading, f.colour])?;
            c.publish_interaction_class(h, f.stop)?;
            if tso {
                c.change_interaction_order_type(h, f.stop, OrderType::TimeStamp)?;
            }
            c.set_automatic_resign_action(h, ResignAction::DeleteObjects)?;
            Ok(made)
        });
        match r {
            Ok(made) => {
                self.checks.objects.subscribed(fed, sub);
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.declared = true;
                    if let (Some(r), Some(ranges)) = (made, region) {
                        m.ddm.sub = Some([r].into());
                        if f.ping.is_some() {
                            m.ddm.ping_sub = Some([r].into());
                        }
                        m.ddm.regions.insert(
                            r,
                            crate::federate::RegionModel {
                                template: ranges.clone(),
                                committed: ranges,
                            },
                        );
                    }
                }
                if self.opts.regions {
                    // On cell groups, an LRC holds no values of what went to cells it did not
                    // join: a subscriber without regions rightly misses the values sent before
                    // its LRC joined them (a snapshot served by such an LRC is behind there).
                    if with_regions || self.opts.cells {
                        self.checks.objects.filtered(fed);
                    }
                    self.show_subscription(fed);
                }
            }
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: declarations refused: {e}"))?,
        }
        self.settle(node)
    }

    /// Federates whose declarations were refused try again.
    fn retry_declarations(&mut self) -> Result<(), String> {
        let todo: Vec<FedId> = self
            .feds
            .values()
            .filter(|m| m.active() && !m.declared)
            .map(|m| m.id)
            .collect();
        for f in todo {
            self.declare(f)?;
        }
        Ok(())
    }

    fn resign(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let r = self.call(node, |c| c.resign(h, ResignAction::DeleteObjects));
        match r {
            Ok(t) => {
                self.checks.time.resigning(fed);
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.life = Life::Resigning(t);
                    m.call_since = self.net.now();
                }
                self.trace("actions", || format!("{fed:?} ({h}) on {node} resigns"));
            }
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: resign refused: {e}"))?,
        }
        self.settle(node)
    }

    fn register(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let car = self.fom.car;
        match self.call(node, |c| c.register_object_instance(h, car, None)) {
            Ok(o) => {
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.owned.insert(o, 0);
                }
                self.trace("actions", || format!("{h} registers {o}"));
            }
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: register refused: {e}"))?,
        }
        self.settle(node)
    }

    fn update_random(&mut self) -> Result<(), String> {
        let Some((fed, _, node)) = self.random_active() else {
            return Ok(());
        };
        if !self.may_send(node) {
            return Ok(());
        }
        let owned: Vec<ObjectInstanceHandle> = self.feds[&fed].owned.keys().copied().collect();
        if owned.is_empty() {
            return Ok(());
        }
        let o = owned[self.rng.below(owned.len())];
        self.update(fed, o).map(|_| ())
    }

    /// Federate `fed` updates `o` with its next position value; whether it was sent.
    fn update(&mut self, fed: FedId, o: ObjectInstanceHandle) -> Result<bool, String> {
        let Some(m) = self.feds.get(&fed) else {
            return Ok(false);
        };
        let (Some(h), node) = (m.handle, m.node) else {
            return Ok(false);
        };
        let Some(n) = m.owned.get(&o).map(|n| n + 1) else {
            return Ok(false);
        };
        let f = &self.fom;
        let mut values = vec![(f.position, n.to_be_bytes().to_vec()), (f.heading, vec![1])];
        if self.rng.below(3) == 0 {
            values.push((f.colour, vec![2; 3]));
        }
        // Now and then a long tag: fragments with tiny datagrams.
        let tag = vec![b'u'; if self.rng.below(4) == 0 { 160 } else { 1 }];
        let sent = match self.call(node, |c| c.update_attribute_values(h, o, values, tag, None)) {
            Ok(_) => {
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.owned.insert(o, n);
                    if self.opts.regions {
                        let w = m.ddm.update_where(o);
                        self.trace("regions", || format!("{fed:?} sends {o} = {n} in {w:?}"));
                        self.checks.regions.sent(fed, o, n, w);
                    }
                }
                self.report.updates += 1;
                true
            }
            Err(e) if busy(&e) => false,
            Err(e) => {
                self.refused(fed, &e, || format!("{h}: update of {o} refused: {e}"))?;
                false
            }
        };
        self.settle(node)?;
        Ok(sent)
    }

    fn delete(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let owned: Vec<ObjectInstanceHandle> = self.feds[&fed].owned.keys().copied().collect();
        if owned.is_empty() {
            return Ok(());
        }
        let o = owned[self.rng.below(owned.len())];
        match self.call(node, |c| {
            c.delete_object_instance(h, o, b"d".to_vec(), None)
        }) {
            Ok(_) => {
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.owned.remove(&o);
                    m.ddm.assoc.remove(&o);
                }
                self.trace("actions", || format!("{h} deletes {o}"));
            }
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: delete of {o} refused: {e}"))?,
        }
        self.settle(node)
    }

    fn interact(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        if !self.may_send(node) {
            return Ok(());
        }
        let f = self.fom.clone();
        let params = vec![(f.text, b"go".to_vec()), (f.reason, b"r".to_vec())];
        let tso = self.opts.time && self.opts.tso;
        let r = self.call(node, |c| {
            let time = if tso { earliest_stamp(c, h) } else { None };
            c.send_interaction(h, f.stop, params, vec![], time)
        });
        match r {
            Ok(_) => {}
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: interaction refused: {e}"))?,
        }
        self.settle(node)
    }

    fn register_sync(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let label = format!("P{}", self.rng.below(3));
        let set = match self.rng.below(3) {
            0 => None,
            1 => Some(vec![h]),
            _ => {
                let live: Vec<FederateHandle> = self.live_handles().into_iter().collect();
                Some(
                    live.into_iter()
                        .filter(|_| self.rng.below(2) == 0)
                        .collect(),
                )
            }
        };
        let r = self.call(node, |c| {
            c.register_federation_synchronization_point(h, &label, b"tag", set)
        });
        match r {
            Ok(()) => self.trace("actions", || format!("{h} registers point {label}")),
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || {
                format!("{h}: registration of {label} refused: {e}")
            })?,
        }
        self.settle(node)
    }

    fn achieve_sync(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let m = &self.feds[&fed];
        let todo: Vec<String> = m.announced.difference(&m.achieved).cloned().collect();
        if todo.is_empty() {
            return Ok(());
        }
        let label = todo[self.rng.below(todo.len())].clone();
        let ok = self.rng.below(4) != 0;
        self.achieve(fed, h, node, label, ok)
    }

    fn achieve(
        &mut self,
        fed: FedId,
        h: FederateHandle,
        node: NodeId,
        label: String,
        ok: bool,
    ) -> Result<(), String> {
        match self.call(node, |c| c.synchronization_point_achieved(h, &label, ok)) {
            Ok(()) => {
                if let Some(m) = self.feds.get_mut(&fed) {
                    m.achieved.insert(label);
                }
            }
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: achieving {label} refused: {e}"))?,
        }
        self.settle(node)
    }

    fn request_save(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let label = format!("S{}", self.rng.below(3));
        match self.call(node, |c| c.request_federation_save(h, &label, None)) {
            Ok(()) => self.trace("actions", || format!("{h} asks for save {label}")),
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || format!("{h}: save {label} refused: {e}"))?,
        }
        self.settle(node)
    }

    fn report_save(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let complete = self.rng.below(5) != 0;
        self.save_step(fed, h, node, complete)
    }

    /// Federate `fed`, told to save, reports its next step: begun, then complete (or not).
    fn save_step(
        &mut self,
        fed: FedId,
        h: FederateHandle,
        node: NodeId,
        complete: bool,
    ) -> Result<(), String> {
        let Some((_, step)) = self.feds[&fed].saving.clone() else {
            return Ok(());
        };
        let report = match step {
            0 => SaveReport::Begun,
            1 if complete => SaveReport::Complete,
            1 => SaveReport::NotComplete,
            _ => return Ok(()),
        };
        match self.call(node, |c| c.report_federate_save(h, report)) {
            Ok(()) => {
                if let Some((_, s)) = self.feds.get_mut(&fed).and_then(|m| m.saving.as_mut()) {
                    *s += 1;
                }
            }
            Err(e) => self.refused(fed, &e, || {
                format!("{h}: save report {report:?} refused: {e}")
            })?,
        }
        self.settle(node)
    }

    /// A random step of time management: enable regulation or constraint, advance (TAR or
    /// NER) by a random step, or (with time-stamp order) turn regulation off.
    fn time_action(&mut self) -> Result<(), String> {
        let Some((fed, h, node)) = self.random_active() else {
            return Ok(());
        };
        let clock = self.feds[&fed].clock.clone();
        if clock.busy() {
            return Ok(());
        }
        let choice = self.rng.below(10);
        let step = [0.5, 1.0, 2.0][self.rng.below(3)];
        let target = clock.granted + step;
        enum Ask {
            Regulation,
            Constraint,
            Advance(bool),
            Unregulate,
        }
        let ask = if self.opts.tso
            && clock.regulation == Switch::On
            && choice == 0
            && self.rng.below(3) == 0
        {
            Ask::Unregulate
        } else if clock.regulation == Switch::Off && choice < 3 {
            Ask::Regulation
        } else if clock.constraint == Switch::Off && choice < 6 {
            Ask::Constraint
        } else {
            Ask::Advance(choice == 9)
        };
        let r = match ask {
            Ask::Regulation => self.call(node, |c| {
                let l = DynInterval::new(LOOKAHEAD).ok_or_else(|| {
                    hlamesh_core::error::RtiError::RtiInternalError("lookahead".into())
                })?;
                c.time_change(h, "enableTimeRegulation", |m| m.enable_time_regulation(l))
            }),
            Ask::Constraint => self.call(node, |c| {
                c.time_change(h, "enableTimeConstrained", |m| m.enable_time_constrained())
            }),
            Ask::Unregulate => self.call(node, |c| {
                c.time_change(h, "disableTimeRegulation", |m| m.disable_time_regulation())
            }),
            Ask::Advance(next) => self.advance(h, node, next, target),
        };
        match r {
            Ok(()) => {
                let m = &mut self.feds.get_mut(&fed).ok_or("a federate vanished")?.clock;
                match ask {
                    Ask::Regulation => {
                        m.regulation = Switch::Pending;
                        self.checks.time.asked_regulation(fed);
                    }
                    Ask::Constraint => {
                        m.constraint = Switch::Pending;
                        self.checks.time.asked_constraint(fed);
                    }
                    Ask::Unregulate => {
                        m.regulation = Switch::Off;
                        self.checks.time.disabled_regulation(fed);
                    }
                    Ask::Advance(next) => {
                        m.pending = Some((next, target));
                        self.checks.time.asked_advance(fed, next, target);
                    }
                }
            }
            Err(e) if busy(&e) => {}
            Err(e) => self.refused(fed, &e, || {
                format!("{h}: time service refused: {e} ({clock:?})")
            })?,
        }
        self.settle(node)
    }

    fn advance(
        &mut self,
        h: FederateHandle,
        node: NodeId,
        next: bool,
        target: f64,
    ) -> Result<(), hlamesh_core::error::RtiError> {
        self.call(node, |c| {
            let t = DynTime::new(target).ok_or_else(|| {
                hlamesh_core::error::RtiError::RtiInternalError(format!("time {target}"))
            })?;
            if next {
                c.time_change(h, "nextMessageRequest", |m| m.next_message_request(t))
            } else {
                c.time_change(h, "timeAdvanceRequest", |m| m.time_advance_request(t))
            }
        })
    }

    /// The liveness phase (see the module docs of [`crate::world`]).
    pub(crate) fn liveness(&mut self) -> Result<(), String> {
        let start = self.now();
        let deadline = start + self.opts.liveness_us;
        self.faults_on = false;
        self.net.model = self.opts.link_without_faults();
        self.heal();
        self.trace("actions", || "the faults stop".into());
        // The time every managed federate must reach: the latest asked for or granted; pushed
        // further while some enable waits and nothing is granted (an enable may wait until the
        // others passed a time beyond every request so far).
        let goal = self
            .feds
            .values()
            .filter(|m| m.present())
            .map(|m| {
                m.clock
                    .pending
                    .map_or(m.clock.granted, |(_, at)| at.max(m.clock.granted))
            })
            .fold(0.0_f64, f64::max);
        let mut beyond = 0.0;
        let mut last_grants = self.checks.time.grants;
        let mut finals: Option<Vec<Final>> = None;
        let mut why = String::new();
        for _ in 0..(self.opts.liveness_us / TICK_US + 1) {
            if self.now() >= deadline {
                break;
            }
            self.run_until(self.now() + TICK_US)?;
            let waiting = self.feds.values().any(|m| m.present() && m.clock.busy());
            if waiting && self.checks.time.grants == last_grants && self.rng.below(10) == 0 {
                beyond += 5.0;
            }
            last_grants = self.checks.time.grants;
            self.duties(goal + beyond)?;
            if let Some(todo) = finals.as_mut() {
                let mut left = Vec::new();
                for last in std::mem::take(todo) {
                    let (Final::Update(fed, _) | Final::Ping(fed)) = last;
                    let m = &self.feds[&fed];
                    let (node, handle) = (m.node, m.handle);
                    let Some(h) = handle.filter(|_| m.active()) else {
                        continue;
                    };
                    let sent = match last {
                        Final::Update(_, o) => self.may_send(node) && self.update(fed, o)?,
                        Final::Ping(_) => self.ping(fed, h, node, true)?,
                    };
                    if !sent {
                        left.push(last);
                    }
                }
                *todo = left;
            }
            match self.converged(goal + beyond, finals.as_deref()) {
                Ok(()) if finals.is_none() => {
                    // Constrained federates take receive-order messages only while advancing;
                    // from here on they take them at once.
                    self.asynchronous_delivery()?;
                    let pings = self.fom.ping.is_some();
                    let todo: Vec<Final> = self
                        .feds
                        .values()
                        .filter(|m| m.active())
                        .flat_map(|m| {
                            let updates = m.owned.keys().map(move |o| Final::Update(m.id, *o));
                            updates.chain(pings.then_some(Final::Ping(m.id)))
                        })
                        .collect();
                    self.trace("actions", || {
                        format!("converged; {} final updates and pings", todo.len())
                    });
                    finals = Some(todo);
                }
                Ok(()) => {
                    self.report.converged_after_us = self.now() - start;
                    return Ok(());
                }
                Err(w) => why = w,
            }
        }
        Err(format!(
            "liveness: not converged {:.1} s after the faults stopped: {why}",
            (self.now() - start) as f64 / 1e6
        ))
    }

    /// What the federates still owe in the liveness phase: their declarations, the points
    /// announced to them, their save reports, and a request to advance to `target`.
    fn duties(&mut self, target: f64) -> Result<(), String> {
        self.retry_declarations()?;
        // Not only the declared: a federate that joined during a save is told to save before
        // it may declare.
        let todo: Vec<(FedId, FederateHandle, NodeId)> = self
            .feds
            .values()
            .filter(|m| m.active())
            .filter_map(|m| m.handle.map(|h| (m.id, h, m.node)))
            .collect();
        for (fed, h, node) in todo {
            let Some(m) = self.feds.get(&fed) else {
                continue;
            };
            let points: Vec<String> = m.announced.difference(&m.achieved).cloned().collect();
            for label in points {
                self.achieve(fed, h, node, label, true)?;
            }
            for _ in 0..2 {
                self.save_step(fed, h, node, true)?;
            }
            let clock = self.feds[&fed].clock.clone();
            if clock.managed() && !clock.busy() && clock.granted < target {
                match self.advance(h, node, false, target) {
                    Ok(()) => {
                        if let Some(m) = self.feds.get_mut(&fed) {
                            m.clock.pending = Some((false, target));
                        }
                        self.checks.time.asked_advance(fed, false, target);
                    }
                    Err(e) if busy(&e) => {}
                    Err(e) => self.refused(fed, &e, || {
                        format!("{h}: TAR({target}) in the liveness phase: {e}")
                    })?,
                }
                self.settle(node)?;
            }
        }
        Ok(())
    }

    /// Every constrained federate takes receive-order messages at once from now on.
    fn asynchronous_delivery(&mut self) -> Result<(), String> {
        let todo: Vec<(FederateHandle, NodeId)> = self
            .feds
            .values()
            .filter(|m| m.active() && m.clock.constraint == Switch::On)
            .filter_map(|m| m.handle.map(|h| (h, m.node)))
            .collect();
        for (h, node) in todo {
            self.call(node, |c| {
                c.time_service(h, |m| m.enable_asynchronous_delivery())
            })
            .map_err(|e| format!("{h}: enabling asynchronous delivery: {e}"))?;
            self.settle(node)?;
        }
        Ok(())
    }

    /// Whether the federation has converged (with `finals`: after the last updates, which
    /// every subscriber must hold); `Err` says what has not.
    pub(crate) fn converged(&self, target: f64, finals: Option<&[Final]>) -> Result<(), String> {
        if self.partitioned() {
            return Err("a partition is not healed".into());
        }
        for m in self.feds.values() {
            let running = self.lrcs.get(&m.node).is_some_and(|l| l.alive);
            if !running || !m.present() {
                continue;
            }
            if m.life != Life::Joined {
                return Err(format!("{:?} ({}) is still {:?}", m.id, m.name, m.life));
            }
            if m.dropped {
                return Err(format!(
                    "{:?} ({}) was refused as no member but never told connection_lost",
                    m.id, m.name
                ));
            }
            let h = m.handle.map_or_else(|| "?".to_string(), |h| h.to_string());
            if !m.declared {
                return Err(format!("{h} has not declared"));
            }
            if !m.announced.is_empty() {
                return Err(format!("{h} waits on points {:?}", m.announced));
            }
            if let Some(s) = &m.saving {
                return Err(format!("{h} is still saving {s:?}"));
            }
            if m.clock.busy() {
                return Err(format!("{h} still waits for time: {:?}", m.clock));
            }
            if m.clock.managed() && m.clock.granted < target {
                return Err(format!("{h} is at time {}, not {target}", m.clock.granted));
            }
        }
        for l in self.lrcs.values().filter(|l| l.alive) {
            if let Some(f) = l.host.get(FED)
                && !f.core.is_admitted()
            {
                return Err(format!("LRC {} is not admitted", l.id));
            }
        }
        let cores = self.member_cores();
        membership::converged(&cores, &self.live_handles())?;
        for (n, c) in &cores {
            if !c.sync_points().is_empty() {
                return Err(format!(
                    "LRC {n} still has points {:?}",
                    c.sync_points().keys()
                ));
            }
            if let Some(s) = c.save_in_progress() {
                return Err(format!("LRC {n} still has a save in progress: {s:?}"));
            }
        }
        for (r, _) in &cores {
            for (s, _) in &cores {
                if r == s {
                    continue;
                }
                let (Some(rc), Some(sc)) = (
                    self.lrcs.get(r).and_then(|l| l.channel(FED)),
                    self.lrcs.get(s).and_then(|l| l.channel(FED)),
                ) else {
                    continue;
                };
                let (got, sent) = (rc.delivered(*s), sc.high_water());
                if got < sent {
                    return Err(format!(
                        "LRC {r} delivered LRC {s}'s stream up to {got} of {sent} (members there: {:?})",
                        rc.members()
                    ));
                }
            }
        }
        if let Some(todo) = finals {
            if !todo.is_empty() {
                return Err(format!(
                    "{} final updates or pings not sent yet",
                    todo.len()
                ));
            }
            self.checks
                .objects
                .converged(&self.live_feds(), &self.alive_instances())?;
            if self.opts.regions {
                self.checks
                    .regions
                    .converged(&self.live_feds(), &self.alive_instances())?;
                self.checks.pings.converged(&self.live_feds())?;
            }
        }
        Ok(())
    }
}
