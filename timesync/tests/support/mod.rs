//! A deterministic in-process federation of `TimeManager`s over a seeded network, with the
//! invariant checker of `docs/TIME-ALGORITHM.md`, "Invariants", run after every event.
//!
//! Network model: per ordered pair of members there is a data channel and a control channel,
//! each FIFO (the real transport repairs loss, so loss shows up as extra delay), with independent
//! random delays — so data and control from one sender overtake each other freely. Membership
//! notices go through a per-member FIFO. A crash truncates each of the dead member's outgoing
//! channels at a random point (some members got more of its traffic than others) and the loss is
//! noticed by each member after its own delay.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};

use hlamesh_timesync::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub type T = HLAinteger64Time;
pub type L = HLAinteger64Interval;
pub type Tm = TimeManager<T, u64>;

#[derive(Debug, Clone)]
enum Ev {
    Data {
        from: usize,
        to: usize,
        seq: u64,
        sent_at: u64,
        kind: DataKind,
    },
    Ctrl {
        from: usize,
        to: usize,
        sent_at: u64,
        msg: CtrlMsg,
    },
    Member {
        to: usize,
        notice: Notice,
    },
    Wake {
        fed: usize,
    },
}

#[derive(Debug, Clone, Copy)]
enum DataKind {
    Tso { ts: i64, id: u64 },
    Ro { id: u64 },
    Other,
}

#[derive(Debug, Clone)]
enum CtrlMsg {
    Time(TimeMessage<T>),
    Left { view: u64 },
}

#[derive(Debug, Clone, Copy)]
enum Notice {
    Lost { who: usize, view: u64 },
}

/// What the random application of one federate wants.
#[derive(Debug, Clone)]
pub struct Profile {
    pub regulating: bool,
    pub constrained: bool,
    pub lookahead: i64,
    /// Weights for TAR, TARA, NER, NERA, FQR.
    pub weights: [u32; 5],
    /// Probability of sending TSO traffic per wake.
    pub traffic: f64,
    /// Leave (resign) at the end instead of staying as a non-regulator.
    pub resign_at_end: bool,
}

#[derive(Debug, Default, Clone)]
struct AppState {
    reg_wanted: bool,
    con_wanted: bool,
    reg_pending: bool,
    con_pending: bool,
    advancing: Option<(RequestKind, i64)>,
    delivered_this_advance: Vec<i64>,
    last_grant_strict: bool,
    /// The logical time as the federate has seen it from callbacks so far.
    time: i64,
    done: bool,
    requests: u64,
    grants: u64,
}

pub struct Fed {
    pub tm: Tm,
    pub alive: bool,
    pub member: bool,
    seq: u64,
    profile: Option<Profile>,
    app: AppState,
    undelivered: BTreeMap<(i64, u64), ()>,
    delivered: HashSet<u64>,
    last_galt: Option<Bound<T>>,
    last_u: Option<Bound<T>>,
    /// Everything handed to the federate, for the scripted tests.
    pub log: Vec<Out>,
}

/// What a federate saw, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    Tso(i64),
    Ro(Option<i64>),
    Grant(i64),
    RegulationEnabled(i64),
    ConstrainedEnabled(i64),
}

#[derive(Debug, Clone)]
pub struct Config {
    pub max_delay: u64,
    pub loss_prob: f64,
    pub t_end: i64,
    pub crash_prob: f64,
    pub join_prob: f64,
    pub max_feds: usize,
    pub step_budget: u64,
    /// Probability that a member's actions wait for later events before being drained.
    pub batch_prob: f64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_delay: 20,
            loss_prob: 0.05,
            t_end: 40,
            crash_prob: 0.0,
            join_prob: 0.0,
            max_feds: 16,
            step_budget: 400_000,
            batch_prob: 0.0,
        }
    }
}

pub struct Sim {
    pub rng: StdRng,
    pub cfg: Config,
    pub feds: Vec<Fed>,
    queue: BinaryHeap<Reverse<(u64, u64)>>,
    events: HashMap<u64, Ev>,
    next_ev: u64,
    pub now: u64,
    chan_last: HashMap<(usize, usize, u8), u64>,
    crash_cut: HashMap<(usize, usize, u8), u64>,
    view: u64,
    next_msg: u64,
    membership_in_flight: u64,
    pub steps: u64,
    /// Messages (ts) per TSO id, for the checker.
    tso_ts: HashMap<u64, (usize, i64)>,
    pub violations: Vec<String>,
    pub trace: bool,
    pending_drain: std::collections::BTreeSet<usize>,
    /// What the run exercised.
    pub coverage: Coverage,
}

/// Counts of what a run exercised, to show the scenario mix is not vacuous.
#[derive(Debug, Default, Clone, Copy)]
pub struct Coverage {
    pub joins_late: u64,
    pub crashes: u64,
    pub resigns: u64,
    pub regulation_enabled: u64,
    pub grants_by_kind: [u64; 5],
    pub ner_grants_at_message: u64,
    pub tso_delivered: u64,
}

impl Coverage {
    pub fn add(&mut self, o: &Coverage) {
        self.joins_late += o.joins_late;
        self.crashes += o.crashes;
        self.resigns += o.resigns;
        self.regulation_enabled += o.regulation_enabled;
        for k in 0..5 {
            self.grants_by_kind[k] += o.grants_by_kind[k];
        }
        self.ner_grants_at_message += o.ner_grants_at_message;
        self.tso_delivered += o.tso_delivered;
    }
}

fn kind_index(k: RequestKind) -> usize {
    match k {
        RequestKind::Tar => 0,
        RequestKind::Tara => 1,
        RequestKind::Ner => 2,
        RequestKind::Nera => 3,
        RequestKind::Fqr => 4,
    }
}

fn bound_ok(b: Bound<T>, ts: i64) -> bool {
    b.admits(HLAinteger64Time(ts))
}

impl Sim {
    pub fn new(seed: u64, cfg: Config) -> Self {
        Self {
            rng: StdRng::seed_from_u64(seed),
            cfg,
            feds: Vec::new(),
            queue: BinaryHeap::new(),
            events: HashMap::new(),
            next_ev: 0,
            now: 0,
            chan_last: HashMap::new(),
            crash_cut: HashMap::new(),
            view: 1,
            next_msg: 0,
            membership_in_flight: 0,
            steps: 0,
            tso_ts: HashMap::new(),
            violations: Vec::new(),
            trace: hlamesh_sim::trace("time"),
            pending_drain: Default::default(),
            coverage: Coverage::default(),
        }
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.next_ev += 1;
        self.queue.push(Reverse((at, self.next_ev)));
        self.events.insert(self.next_ev, ev);
    }

    fn delay(&mut self) -> u64 {
        let mut d = self.rng.random_range(0..=self.cfg.max_delay);
        if self.rng.random_bool(self.cfg.loss_prob) {
            d += self.rng.random_range(20..=120); // a repair round trip or two
        }
        d
    }

    fn send_on(&mut self, from: usize, to: usize, chan: u8, ev: Ev) {
        let d = self.delay();
        let last = self.chan_last.get(&(from, to, chan)).copied().unwrap_or(0);
        let at = (self.now + d).max(last);
        self.chan_last.insert((from, to, chan), at);
        self.push(at, ev);
    }

    fn members(&self) -> Vec<usize> {
        (0..self.feds.len())
            .filter(|&i| self.feds[i].alive && self.feds[i].member)
            .collect()
    }

    pub fn violate(&mut self, s: String) {
        if self.violations.len() < 20 {
            self.violations
                .push(format!("t={} step={}: {s}", self.now, self.steps));
        }
    }

    /// Adds a federate; it joins now (atomically for everyone's view).
    pub fn join(&mut self, profile: Option<Profile>) -> usize {
        let idx = self.feds.len();
        self.view += 1;
        let existing: Vec<(MemberId, Seq)> = self
            .members()
            .into_iter()
            .map(|i| (MemberId(i as u64), Seq(self.feds[i].seq)))
            .collect();
        let tm = Tm::new(MemberId(idx as u64), ViewNumber(self.view), existing);
        let app = AppState {
            reg_wanted: profile.as_ref().is_some_and(|p| p.regulating),
            con_wanted: profile.as_ref().is_some_and(|p| p.constrained),
            ..Default::default()
        };
        self.feds.push(Fed {
            tm,
            alive: true,
            member: true,
            seq: 0,
            profile,
            app,
            undelivered: BTreeMap::new(),
            delivered: HashSet::new(),
            last_galt: None,
            last_u: None,
            log: Vec::new(),
        });
        let view = self.view;
        for i in self.members() {
            if i != idx {
                self.feds[i]
                    .tm
                    .on_member_joined(MemberId(idx as u64), ViewNumber(view));
                self.drain(i);
            }
        }
        if self.feds[idx].profile.is_some() {
            self.push(self.now, Ev::Wake { fed: idx });
        }
        idx
    }

    /// Runs a federate API call and executes the resulting actions.
    pub fn call<R>(&mut self, i: usize, f: impl FnOnce(&mut Tm) -> R) -> R {
        let r = f(&mut self.feds[i].tm);
        self.drain(i);
        r
    }

    /// Record the app-side state a scripted call implies (the random app does this itself).
    pub fn note_request(&mut self, i: usize, kind: RequestKind, t: i64) {
        self.feds[i].app.advancing = Some((kind, t));
        self.feds[i].app.delivered_this_advance.clear();
        self.feds[i].app.requests += 1;
    }

    pub fn request(&mut self, i: usize, kind: RequestKind, t: i64) -> Result<(), TimeError> {
        if self.trace {
            eprintln!(
                "    fed {i} calls {kind:?}({t}) at T={:?}",
                self.feds[i].tm.logical_time()
            );
        }
        let r = self.feds[i].tm.request(kind, HLAinteger64Time(t));
        if r.is_ok() {
            self.note_request(i, kind, t);
        }
        self.drain(i);
        r
    }

    pub fn enable_regulation(&mut self, i: usize, l: i64) {
        self.feds[i].app.reg_pending = true;
        self.call(i, |tm| tm.enable_time_regulation(HLAinteger64Interval(l)))
            .expect("enable regulation");
    }

    pub fn enable_constrained(&mut self, i: usize) {
        self.feds[i].app.con_pending = true;
        self.call(i, |tm| tm.enable_time_constrained())
            .expect("enable constrained");
    }

    /// Sends a data message from `i` to every member. Returns the TSO id if sent TSO.
    pub fn send(
        &mut self,
        i: usize,
        ts: Option<i64>,
        preferred: OrderType,
    ) -> Result<Option<u64>, TimeError> {
        let order = self.feds[i]
            .tm
            .validate_send(ts.map(HLAinteger64Time), preferred)?;
        if self.trace {
            eprintln!(
                "    fed {i} sends {ts:?} {order:?} seq {}",
                self.feds[i].seq + 1
            );
        }
        self.feds[i].seq += 1;
        let seq = self.feds[i].seq;
        self.feds[i].tm.on_data_sent(Seq(seq), order);
        self.next_msg += 1;
        let id = self.next_msg;
        let kind = match (order, ts) {
            (OrderType::TimeStamp, Some(ts)) => {
                self.tso_ts.insert(id, (i, ts));
                DataKind::Tso { ts, id }
            }
            _ => DataKind::Ro { id },
        };
        for to in self.members() {
            if to == i {
                continue;
            }
            if let DataKind::Tso { ts, id } = kind {
                self.feds[to].undelivered.insert((ts, id), ());
            }
            let ev = Ev::Data {
                from: i,
                to,
                seq,
                sent_at: self.now,
                kind,
            };
            self.send_on(i, to, 0, ev);
        }
        self.drain(i);
        Ok(match kind {
            DataKind::Tso { id, .. } => Some(id),
            _ => None,
        })
    }

    /// Stream traffic that is not a message for anyone's federate (a registration, say).
    pub fn send_other(&mut self, i: usize) {
        self.feds[i].seq += 1;
        let seq = self.feds[i].seq;
        for to in self.members() {
            if to != i {
                let ev = Ev::Data {
                    from: i,
                    to,
                    seq,
                    sent_at: self.now,
                    kind: DataKind::Other,
                };
                self.send_on(i, to, 0, ev);
            }
        }
    }

    /// Executes the actions of federate `i` and checks the invariants they touch.
    pub fn drain(&mut self, i: usize) {
        while let Some(a) = self.feds[i].tm.poll_action() {
            if self.trace {
                eprintln!("    fed {i} -> {a:?}");
            }
            match a {
                Action::Broadcast(m) => {
                    for to in self.members() {
                        if to != i {
                            let ev = Ev::Ctrl {
                                from: i,
                                to,
                                sent_at: self.now,
                                msg: CtrlMsg::Time(m.clone()),
                            };
                            self.send_on(i, to, 1, ev);
                        }
                    }
                }
                Action::SendTo(to, m) => {
                    let to = to.0 as usize;
                    if self.feds[to].alive && self.feds[to].member {
                        let ev = Ev::Ctrl {
                            from: i,
                            to,
                            sent_at: self.now,
                            msg: CtrlMsg::Time(m),
                        };
                        self.send_on(i, to, 1, ev);
                    }
                }
                Action::Deliver(d) => self.check_delivery(i, d),
                Action::Callback(c) => self.check_callback(i, c),
            }
        }
        self.check_monotone(i);
    }

    fn check_delivery(&mut self, i: usize, d: Delivery<T, u64>) {
        let id = d.payload;
        let ts = d.time.map(|t| t.0);
        self.feds[i].delivered.insert(id);
        if let Some(ts) = ts {
            self.feds[i].undelivered.remove(&(ts, id));
        }
        if d.received_order == OrderType::TimeStamp {
            let ts = ts.expect("TSO has a time");
            let f = &self.feds[i];
            let t = f.app.time;
            let strict = f.app.last_grant_strict;
            let in_window = f.app.advancing.is_some() || f.app.reg_pending;
            if ts < t || (strict && ts == t) {
                let msg =
                    format!("fed {i}: TSO at {ts} delivered in its past (T={t}, strict={strict})");
                self.violate(msg);
            }
            if !in_window {
                self.violate(format!(
                    "fed {i}: TSO at {ts} delivered outside the advancing state"
                ));
            }
            self.feds[i].app.delivered_this_advance.push(ts);
            self.coverage.tso_delivered += 1;
            self.feds[i].log.push(Out::Tso(ts));
        } else {
            self.feds[i].log.push(Out::Ro(ts));
        }
    }

    fn check_callback(&mut self, i: usize, c: Callback<T>) {
        match c {
            Callback::TimeAdvanceGrant(t) => {
                let t = t.0;
                self.feds[i].log.push(Out::Grant(t));
                let Some((kind, target)) = self.feds[i].app.advancing.take() else {
                    self.violate(format!("fed {i}: grant {t} without a request"));
                    return;
                };
                self.feds[i].app.grants += 1;
                self.coverage.grants_by_kind[kind_index(kind)] += 1;
                if kind.is_next_event() && t != target {
                    self.coverage.ner_grants_at_message += 1;
                }
                if t > target {
                    self.violate(format!(
                        "fed {i}: grant {t} exceeds request {kind:?}({target})"
                    ));
                }
                if kind.is_next_event()
                    && t != target
                    && !self.feds[i].app.delivered_this_advance.contains(&t)
                {
                    self.violate(format!("fed {i}: {kind:?}({target}) granted at {t}, neither a message time nor the request"));
                }
                if self.feds[i].tm.constraint() == ConstraintState::On {
                    let f = &self.feds[i];
                    let missing = if kind.is_strict() {
                        f.undelivered
                            .range(..=(t, u64::MAX))
                            .next()
                            .map(|(k, _)| *k)
                    } else {
                        f.undelivered.range(..(t, 0)).next().map(|(k, _)| *k)
                    };
                    if let Some((ts, id)) = missing {
                        let from = self.tso_ts.get(&id).map(|x| x.0);
                        self.violate(format!(
                            "fed {i}: {kind:?}({target}) granted {t} while TSO {id} at {ts} from {from:?} is undelivered"
                        ));
                    }
                }
                if t < self.feds[i].app.time {
                    self.violate(format!(
                        "fed {i}: grant {t} below its time {}",
                        self.feds[i].app.time
                    ));
                }
                self.feds[i].app.time = t;
                self.feds[i].app.last_grant_strict = kind.is_strict();
                self.feds[i].app.delivered_this_advance.clear();
                self.wake_later(i);
            }
            Callback::TimeRegulationEnabled(t) => {
                self.feds[i].log.push(Out::RegulationEnabled(t.0));
                self.feds[i].app.reg_pending = false;
                self.coverage.regulation_enabled += 1;
                // Its own regulation start may lower its GALT: it now sends TSO itself.
                self.feds[i].last_galt = None;
                self.feds[i].app.last_grant_strict = false;
                self.feds[i].app.time = t.0;
                self.wake_later(i);
            }
            Callback::TimeConstrainedEnabled(t) => {
                self.feds[i].log.push(Out::ConstrainedEnabled(t.0));
                self.feds[i].app.con_pending = false;
                self.feds[i].app.time = t.0;
                self.feds[i].app.last_grant_strict = false;
                // Messages still in flight must not lie in the past of the constrained federate.
                let f = &self.feds[i];
                if let Some(((ts, id), _)) = f.undelivered.range(..(t.0, 0)).next() {
                    let (ts, id) = (*ts, *id);
                    self.violate(format!(
                        "fed {i}: constrained at {} with TSO {id} at {ts} still in flight",
                        t.0
                    ));
                }
                self.wake_later(i);
            }
        }
    }

    fn check_monotone(&mut self, i: usize) {
        // GALT only means something to a constrained federate (an unconstrained one answers
        // regulation queries with "anything", which legitimately lowers it).
        let g = self.feds[i]
            .tm
            .galt_bound()
            .filter(|_| self.feds[i].tm.constraint() == ConstraintState::On);
        if let (Some(old), Some(new)) = (self.feds[i].last_galt, g)
            && new < old
        {
            self.violate(format!("fed {i}: GALT decreased {old:?} -> {new:?}"));
        }
        self.feds[i].last_galt = g;
        let u = self.feds[i].tm.promised_bound();
        if let (Some(old), Some(new)) = (self.feds[i].last_u, u)
            && new < old
        {
            self.violate(format!("fed {i}: U decreased {old:?} -> {new:?}"));
        }
        self.feds[i].last_u = u;
    }

    fn wake_later(&mut self, i: usize) {
        if self.feds[i].profile.is_some() {
            let d = self.rng.random_range(0..=5);
            self.push(self.now + d, Ev::Wake { fed: i });
        }
    }

    /// Crash federate `i` now.
    pub fn crash(&mut self, i: usize) {
        self.coverage.crashes += 1;
        self.feds[i].alive = false;
        self.view += 1;
        let view = self.view;
        for to in 0..self.feds.len() {
            for chan in 0..2u8 {
                let back = self.rng.random_range(0..=30);
                self.crash_cut
                    .insert((i, to, chan), self.now.saturating_sub(back));
            }
        }
        // Its TSO messages may or may not arrive anywhere now.
        let dead: Vec<u64> = self
            .tso_ts
            .iter()
            .filter(|(_, (s, _))| *s == i)
            .map(|(id, _)| *id)
            .collect();
        for f in &mut self.feds {
            for id in &dead {
                let ts = self.tso_ts[id].1;
                f.undelivered.remove(&(ts, *id));
            }
        }
        for to in self.members() {
            self.membership_in_flight += 1;
            let d = self.rng.random_range(30..=200);
            let last = self
                .chan_last
                .get(&(usize::MAX, to, 2))
                .copied()
                .unwrap_or(0);
            let at = (self.now + d).max(last);
            self.chan_last.insert((usize::MAX, to, 2), at);
            self.push(
                at,
                Ev::Member {
                    to,
                    notice: Notice::Lost { who: i, view },
                },
            );
        }
    }

    /// Federate `i` resigns: after its final messages, every member learns it left.
    pub fn resign(&mut self, i: usize) {
        self.coverage.resigns += 1;
        self.view += 1;
        let view = self.view;
        for to in self.members() {
            if to != i {
                self.membership_in_flight += 1;
                let ev = Ev::Ctrl {
                    from: i,
                    to,
                    sent_at: self.now,
                    msg: CtrlMsg::Left { view },
                };
                self.send_on(i, to, 1, ev);
            }
        }
        self.feds[i].member = false;
        self.feds[i].app.done = true;
    }

    /// Processes one event; false when nothing is left.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((at, id))) = self.queue.pop() else {
            return false;
        };
        let ev = self.events.remove(&id).expect("event");
        self.now = at;
        self.steps += 1;
        if self.trace {
            eprintln!("[{at}] {ev:?}");
        }
        match ev {
            Ev::Data {
                from,
                to,
                seq,
                sent_at,
                kind,
            } => {
                if !self.feds[to].alive || !self.feds[to].member || self.cut(from, to, 0, sent_at) {
                    return true;
                }
                let incoming = match kind {
                    DataKind::Tso { ts, id } => Incoming::Tso {
                        time: HLAinteger64Time(ts),
                        payload: id,
                    },
                    DataKind::Ro { id } => Incoming::Ro {
                        time: None,
                        payload: id,
                    },
                    DataKind::Other => Incoming::Other,
                };
                self.feds[to]
                    .tm
                    .on_data(MemberId(from as u64), Seq(seq), incoming);
                self.maybe_drain(to);
            }
            Ev::Ctrl {
                from,
                to,
                sent_at,
                msg,
            } => {
                if let CtrlMsg::Left { .. } = msg {
                    self.membership_in_flight -= 1;
                }
                if !self.feds[to].alive || !self.feds[to].member || self.cut(from, to, 1, sent_at) {
                    return true;
                }
                match msg {
                    CtrlMsg::Time(m) => self.feds[to].tm.on_message(MemberId(from as u64), m),
                    CtrlMsg::Left { view } => self.feds[to]
                        .tm
                        .on_member_left(MemberId(from as u64), ViewNumber(view)),
                }
                self.maybe_drain(to);
            }
            Ev::Member { to, notice } => {
                self.membership_in_flight -= 1;
                if !self.feds[to].alive || !self.feds[to].member {
                    return true;
                }
                match notice {
                    Notice::Lost { who, view } => self.feds[to]
                        .tm
                        .on_member_lost(MemberId(who as u64), ViewNumber(view)),
                }
                self.maybe_drain(to);
            }
            Ev::Wake { fed } => {
                self.drain_pending();
                self.wake(fed)
            }
        }
        true
    }

    fn cut(&self, from: usize, to: usize, chan: u8, sent_at: u64) -> bool {
        !self.feds[from].alive
            && self
                .crash_cut
                .get(&(from, to, chan))
                .is_some_and(|c| sent_at > *c)
    }

    /// Runs until nothing is left to do or the step budget is spent.
    pub fn settle(&mut self) {
        loop {
            while self.steps < self.cfg.step_budget && self.step() {}
            if self.pending_drain.is_empty() || self.steps >= self.cfg.step_budget {
                break;
            }
            self.drain_pending();
        }
    }

    /// Like an LRC handling a burst of input before draining: actions may wait a few events.
    fn maybe_drain(&mut self, i: usize) {
        if self.cfg.batch_prob > 0.0 && self.rng.random_bool(self.cfg.batch_prob) {
            self.pending_drain.insert(i);
        } else {
            self.pending_drain.remove(&i);
            self.drain(i);
        }
    }

    fn drain_pending(&mut self) {
        for i in std::mem::take(&mut self.pending_drain) {
            self.drain(i);
        }
    }

    // ------------------------------------------------------------------ random application

    fn wake(&mut self, i: usize) {
        if !self.feds[i].alive || !self.feds[i].member || self.feds[i].app.done {
            return;
        }
        let Some(p) = self.feds[i].profile.clone() else {
            return;
        };
        // Random churn: crashes and joins happen at wake-ups.
        if self.cfg.crash_prob > 0.0
            && self.rng.random_bool(self.cfg.crash_prob)
            && self.members().len() > 2
        {
            self.crash(i);
            return;
        }
        if self.cfg.join_prob > 0.0
            && self.membership_in_flight == 0
            && self.feds.len() < self.cfg.max_feds
            && self.rng.random_bool(self.cfg.join_prob)
        {
            let prof = random_profile(&mut self.rng);
            self.join(Some(prof));
            self.coverage.joins_late += 1;
        }
        let app = self.feds[i].app.clone();
        if app.reg_pending || app.con_pending {
            return;
        }
        let reg = self.feds[i].tm.regulation();
        let con = self.feds[i].tm.constraint();
        let time = self.feds[i].tm.logical_time().0;
        if app.advancing.is_some() {
            // Sends are allowed while advancing, at or after the request bound.
            if reg == RegulationState::On && self.rng.random_bool(p.traffic / 3.0) {
                self.send_random_tso(i);
            }
            return;
        }
        if time >= self.cfg.t_end {
            if reg == RegulationState::On {
                self.call(i, |tm| tm.disable_time_regulation())
                    .expect("disable regulation");
            }
            if p.resign_at_end {
                self.resign(i);
            } else {
                self.feds[i].app.done = true;
            }
            return;
        }
        if app.reg_wanted && reg == RegulationState::Off {
            self.enable_regulation(i, p.lookahead);
            return;
        }
        if app.con_wanted && con == ConstraintState::Off {
            self.enable_constrained(i);
            return;
        }
        // Occasional mode changes.
        let r: f64 = self.rng.random();
        if r < 0.01 && reg == RegulationState::On {
            self.call(i, |tm| tm.disable_time_regulation())
                .expect("disable");
            self.push(self.now + 1, Ev::Wake { fed: i });
            return;
        }
        if r < 0.02 && con == ConstraintState::On {
            self.call(i, |tm| tm.disable_time_constrained())
                .expect("disable");
            self.push(self.now + 1, Ev::Wake { fed: i });
            return;
        }
        if r < 0.04 && reg == RegulationState::On {
            let l = self.rng.random_range(0..=3);
            self.call(i, |tm| tm.modify_lookahead(HLAinteger64Interval(l)))
                .expect("modify lookahead");
        }
        if r > 0.97 {
            let on = self.feds[i].tm.asynchronous_delivery();
            if on {
                self.call(i, |tm| tm.disable_asynchronous_delivery())
                    .expect("async off");
            } else {
                self.call(i, |tm| tm.enable_asynchronous_delivery())
                    .expect("async on");
            }
        }
        if reg == RegulationState::On && self.rng.random_bool(p.traffic) {
            for _ in 0..self.rng.random_range(1..=3) {
                self.send_random_tso(i);
            }
        }
        if self.rng.random_bool(0.2) {
            self.send(i, None, OrderType::Receive).expect("ro send");
        }
        if self.rng.random_bool(0.1) {
            self.send_other(i);
        }
        let kinds = [
            RequestKind::Tar,
            RequestKind::Tara,
            RequestKind::Ner,
            RequestKind::Nera,
            RequestKind::Fqr,
        ];
        let total: u32 = p.weights.iter().sum();
        let mut pick = self.rng.random_range(0..total);
        let mut kind = RequestKind::Tar;
        for (k, w) in kinds.iter().zip(p.weights) {
            if pick < w {
                kind = *k;
                break;
            }
            pick -= w;
        }
        let target = time + self.rng.random_range(0..=6);
        self.request(i, kind, target).expect("request");
    }

    fn send_random_tso(&mut self, i: usize) {
        let Some(b) = self.feds[i].tm.send_bound() else {
            return;
        };
        let base = b.time.0 + i64::from(b.strict == Strictness::Excl);
        let ts = base + self.rng.random_range(0..=5);
        // Check the send rule both ways: just below the bound must be refused.
        if b.time.0 > 0 {
            let below = if b.strict == Strictness::Excl {
                b.time.0
            } else {
                b.time.0 - 1
            };
            let r = self.feds[i]
                .tm
                .validate_send(Some(HLAinteger64Time(below)), OrderType::TimeStamp);
            if r != Err(TimeError::InvalidLogicalTime) {
                self.violate(format!(
                    "fed {i}: send at {below} below bound {b:?} was not refused: {r:?}"
                ));
            }
        }
        self.send(i, Some(ts), OrderType::TimeStamp)
            .expect("tso send within bound");
    }

    /// The end-of-run progress check: every live member finished, no request left pending.
    pub fn check_progress(&mut self) {
        for i in 0..self.feds.len() {
            let late = self.feds[i].tm.stats().late_tso;
            if late > 0 {
                self.violate(format!("fed {i}: {late} TSO messages arrived in its past"));
            }
        }
        if self.steps >= self.cfg.step_budget {
            self.violate(format!(
                "step budget {} exhausted (livelock or creep)",
                self.cfg.step_budget
            ));
            return;
        }
        for i in 0..self.feds.len() {
            let f = &self.feds[i];
            if f.alive && f.member && f.profile.is_some() && !f.app.done {
                let msg = format!(
                    "fed {i} stuck: T={:?} advancing={:?} reg={:?} con={:?} galt={:?} queued={}",
                    f.tm.logical_time(),
                    f.app.advancing,
                    f.tm.regulation(),
                    f.tm.constraint(),
                    f.tm.galt_bound(),
                    f.tm.queued_tso()
                );
                self.violate(msg);
            }
        }
    }

    pub fn total_promises(&self) -> u64 {
        self.feds.iter().map(|f| f.tm.stats().promises_sent).sum()
    }

    pub fn total_grants(&self) -> u64 {
        self.feds.iter().map(|f| f.tm.stats().grants).sum()
    }
}

pub fn random_profile(rng: &mut StdRng) -> Profile {
    let regulating = rng.random_bool(0.7);
    let constrained = rng.random_bool(0.7);
    let lookahead = if rng.random_bool(0.5) {
        0
    } else {
        rng.random_range(1..=3)
    };
    let mut weights = [0u32; 5];
    for w in &mut weights {
        *w = rng.random_range(0..=4);
    }
    if weights.iter().sum::<u32>() == 0 {
        weights[0] = 1;
    }
    Profile {
        regulating,
        constrained,
        lookahead,
        weights,
        traffic: rng.random_range(0.0..0.8),
        resign_at_end: rng.random_bool(0.5),
    }
}

/// One random scenario; returns the violations found.
pub fn run_seed(seed: u64) -> (Vec<String>, u64, u64, Coverage) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    // Mostly small federations (they reach the interesting interleavings fastest), some up to 16.
    let n = if rng.random_bool(0.8) {
        rng.random_range(2..=6usize)
    } else {
        rng.random_range(7..=16usize)
    };
    let churn = rng.random_bool(0.4);
    let cfg = Config {
        max_delay: rng.random_range(1..=30),
        loss_prob: rng.random_range(0.0..0.2),
        t_end: rng.random_range(10..=40),
        crash_prob: if churn { 0.01 } else { 0.0 },
        join_prob: if churn { 0.02 } else { 0.0 },
        max_feds: 16,
        batch_prob: if rng.random_bool(0.3) { 0.5 } else { 0.0 },
        ..Config::default()
    };
    let mut sim = Sim::new(seed, cfg);
    for _ in 0..n {
        let p = random_profile(&mut rng);
        sim.join(Some(p));
    }
    sim.settle();
    sim.check_progress();
    let (p, g) = (sim.total_promises(), sim.total_grants());
    (sim.violations, p, g, sim.coverage)
}
