//! `time`: N federate processes (all regulating with lookahead 1 and constrained) advance in
//! phases the driver orders, each next to a raw UDP multicast "barrier round" among the same
//! processes (send my round number, wait until every other process has sent it; the floor any
//! lockstep protocol pays). Per block the phases run in order: raw barrier, the same barrier over
//! hlamesh's own data channel (reliable multicast, delivered in the transport's event hook — what
//! time messages would cost on the data plane), TAR, TAR + one timestamped update per step, and
//! all-NER with sparse events (A B A B over blocks).
//!
//! Figures per federate: grants/s and LRC control messages sent per grant. Time messages (null
//! messages, i.e. promises) travel as LRC control messages; the LRC exposes no separate counter
//! for them, so the figure is every LRC control message (`hlamesh_control_frames_sent_total
//! {kind="app"}`) — in a lockstep run nothing else is sent, so it is the null-message count.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use hlamesh_lrc::ambassador::{
    CallbackModel, FederateAmbassador, LogicalTimeInterval, RtiAmbassador, Time,
};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, ObjectClassHandle, ObjectInstanceHandle,
};
use hlamesh_lrc::node::Lrc;
use hlamesh_timesync::LogicalTime;
use hlamesh_transport::data::Reliability;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::BenchError;
use crate::net::NetParams;
use crate::peer::Role;
use crate::placement::{PeerProc, Placement};
use crate::procstat::ProcSample;
use crate::report::{self, Machine, median};
use crate::rti::{CLASS, ProcessCounters, join_federation};
use crate::session::Level;
use crate::sut::{RawUdpSut, Sut};

/// What to measure.
#[derive(Clone, Debug, Serialize)]
pub struct TimeOptions {
    /// Federate counts (one run each).
    pub federates: Vec<usize>,
    /// Steps (grants) per TAR phase, and rounds per raw phase.
    pub steps: u64,
    /// Events per federate in the NER phase.
    pub ner_events: u64,
    /// Logical time between two consecutive events of the NER phase (lookahead is 1).
    pub ner_gap: f64,
    /// Blocks (each: raw, TAR, TAR + update, NER).
    pub blocks: usize,
    /// Callback model of the federates: "immediate" (an LRC thread calls the ambassador) or
    /// "evoked" (the federate's own thread, in `evoke_callback`).
    pub callbacks: String,
}

/// What one federate reports for one phase.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PhaseReport {
    /// Grants received (rounds for raw).
    pub grants: u64,
    /// From the command to the last grant.
    pub secs: f64,
    /// LRC control messages this process sent.
    pub control_msgs: u64,
    /// Timestamped reflections received.
    pub reflects: u64,
    /// Broken expectations (wrong grant time, missing reflection), at most 10.
    pub violations: Vec<String>,
    /// CPU time and context switches of the whole federate process during the phase.
    #[serde(default)]
    pub process: ProcSample,
    /// The same per thread name.
    #[serde(default)]
    pub threads: BTreeMap<String, ProcSample>,
}

/// One phase's figures in one run.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseFigures {
    /// "raw-barrier", "transport-barrier", "tar", "tar-update" or "ner".
    pub phase: String,
    /// Per federate: median over blocks of grants/s (rounds/s for raw).
    pub grants_per_s_per_federate: Vec<f64>,
    /// Median over federates of the above.
    pub grants_per_s: f64,
    /// Slowest federate.
    pub grants_per_s_min: f64,
    /// `grants_per_s` ÷ the raw barrier's rounds/s (1 for raw itself).
    pub ratio_to_raw: f64,
    /// LRC control messages sent per grant, per federate, over all blocks (0 for raw).
    pub control_msgs_per_grant: f64,
    /// The same per block (the NER phase must not creep up).
    pub control_msgs_per_grant_per_block: Vec<f64>,
    /// Timestamped reflections per grant per federate (N − 1 for tar-update).
    pub reflects_per_grant: f64,
    /// CPU time of a federate process (all its threads) per grant, µs.
    pub cpu_us_per_grant: f64,
    /// Context switches of a federate process (all its threads) per grant.
    pub ctx_switches_per_grant: f64,
    /// Per thread name of a federate process: (CPU µs, context switches) per grant, averaged
    /// over federates — where the time of a grant goes.
    pub per_thread_per_grant: BTreeMap<String, (f64, f64)>,
    /// Violations reported by federates.
    pub violations: Vec<String>,
}

/// One federate count's result.
#[derive(Clone, Debug, Serialize)]
pub struct TimeResult {
    /// Federates (processes).
    pub federates: usize,
    /// Raw UDP barrier rounds, TAR, TAR + update, NER.
    pub phases: Vec<PhaseFigures>,
    /// Process start to joined, per federate (ms); they all start together, so this includes
    /// creating the federation.
    pub join_ms: Vec<f64>,
    /// A federate process started once the federation runs: from its `main` to joined (ms).
    pub late_join_ms: f64,
    /// The same seen by the driver: from spawning the process to reading "joined" (ms).
    pub late_join_spawn_to_joined_ms: f64,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct TimeReport {
    /// "time".
    pub subcommand: String,
    /// The command line.
    pub command: String,
    /// When it started.
    pub started_unix_ms: u64,
    /// Wall-clock duration.
    pub duration_s: f64,
    /// Where the processes ran.
    pub placement: String,
    /// The machine.
    pub machine: Machine,
    /// The options.
    pub options: TimeOptions,
    /// Null messages: what is counted.
    pub null_message_note: String,
    /// One entry per federate count.
    pub results: Vec<TimeResult>,
}

const PHASES: [&str; 5] = [
    "raw-barrier",
    "transport-barrier",
    "tar",
    "tar-update",
    "ner",
];

/// Runs the `time` benchmark.
pub fn run(
    placement: &Placement,
    opts: &TimeOptions,
    command: String,
    timeout: Duration,
) -> Result<TimeReport, BenchError> {
    let started = Instant::now();
    let started_unix_ms = report::unix_ms();
    let machine = Machine::describe();
    let deadline = started + timeout;
    let mut results = Vec::new();
    for &n in &opts.federates {
        let n = n.max(2);
        if let Some(max) = placement.peer_hosts()
            && n > max
        {
            return Err(BenchError::Protocol(format!(
                "{n} federates wanted but the lab has only {max} peer hosts"
            )));
        }
        let net = NetParams::for_run(placement.addr(1)?, placement.ttl());
        let federation = format!("bench-time-{}-{n}", std::process::id());
        let left = deadline.saturating_duration_since(Instant::now());
        let mut procs: Vec<PeerProc> = Vec::new();
        for k in 0..n {
            let mut args = net.on(placement.addr(k + 2)?).to_args();
            args.extend(
                [
                    "--role",
                    Role::Time.arg(),
                    "--level",
                    Level::Rti.arg(),
                    "--federation",
                    &federation,
                    "--index",
                    &k.to_string(),
                    "--federates",
                    &n.to_string(),
                    "--callbacks",
                    &opts.callbacks,
                    "--timeout-s",
                    &left.as_secs().max(1).to_string(),
                ]
                .map(str::to_string),
            );
            procs.push(placement.spawn_peer(k, &args)?);
        }
        let step = Duration::from_secs(60).min(left);
        let mut join_ms = Vec::new();
        for p in &procs {
            let v = p.wait_event("ready", step)?;
            join_ms.push(v["join_ms"].as_f64().unwrap_or(0.0));
        }
        // reports[phase][block][federate]
        let mut reports: Vec<Vec<Vec<PhaseReport>>> = vec![Vec::new(); PHASES.len()];
        for _ in 0..opts.blocks.max(1) {
            for (i, phase) in PHASES.iter().enumerate() {
                if Instant::now() > deadline {
                    return Err(BenchError::Protocol(format!(
                        "time run exceeded its time bound of {timeout:?}"
                    )));
                }
                let count = if *phase == "ner" {
                    opts.ner_events
                } else {
                    opts.steps
                };
                let cmd = format!("{phase} {count} {}", opts.ner_gap);
                for p in &mut procs {
                    p.command(&cmd)?;
                }
                let mut block = Vec::new();
                for p in &procs {
                    let v = p.wait_event("phase", step)?;
                    block.push(
                        serde_json::from_value::<PhaseReport>(v["report"].clone())
                            .map_err(|e| BenchError::Protocol(format!("bad phase report: {e}")))?,
                    );
                }
                reports[i].push(block);
            }
        }
        // A late joiner: a fresh process joins the running federation and leaves.
        let mut args = net.on(placement.addr(2)?).to_args();
        args.extend(
            [
                "--role",
                Role::Time.arg(),
                "--level",
                Level::Rti.arg(),
                "--federation",
                &federation,
                "--index",
                &n.to_string(),
                "--federates",
                "1",
                "--join-only",
                "--timeout-s",
                "30",
            ]
            .map(str::to_string),
        );
        let spawned = Instant::now();
        let late = placement.spawn_peer(0, &args)?;
        let v = late.wait_event("joined", step)?;
        let late_join_spawn_to_joined_ms = spawned.elapsed().as_secs_f64() * 1e3;
        let late_join_ms = v["join_ms"].as_f64().unwrap_or(0.0);
        drop(late);
        drop(procs);
        let mut phases = Vec::new();
        let mut raw_rate = 0.0;
        for (i, phase) in PHASES.iter().enumerate() {
            let f = figures(phase, &reports[i], n, raw_rate);
            if i == 0 {
                raw_rate = f.grants_per_s;
            }
            phases.push(f);
        }
        results.push(TimeResult {
            federates: n,
            phases,
            join_ms,
            late_join_ms,
            late_join_spawn_to_joined_ms,
        });
    }
    Ok(TimeReport {
        subcommand: "time".into(),
        command,
        started_unix_ms,
        duration_s: started.elapsed().as_secs_f64(),
        placement: placement.describe(),
        machine,
        options: opts.clone(),
        null_message_note: "control_msgs_per_grant counts every LRC control message a federate's \
            process sent (hlamesh_control_frames_sent_total{kind=\"app\"}); time messages \
            (promises, the null messages) travel that way and the LRC has no separate counter \
            for them"
            .into(),
        results,
    })
}

fn figures(phase: &str, blocks: &[Vec<PhaseReport>], n: usize, raw_rate: f64) -> PhaseFigures {
    let rate = |r: &PhaseReport| {
        if r.secs > 0.0 {
            r.grants as f64 / r.secs
        } else {
            0.0
        }
    };
    let per_fed: Vec<f64> = (0..n)
        .map(|k| {
            let v: Vec<f64> = blocks.iter().filter_map(|b| b.get(k)).map(rate).collect();
            median(&v)
        })
        .collect();
    let med = median(&per_fed);
    let min = per_fed.iter().copied().fold(f64::INFINITY, f64::min);
    let per_grant = |rs: &[&PhaseReport], f: fn(&PhaseReport) -> u64| {
        let grants: u64 = rs.iter().map(|r| r.grants).sum();
        rs.iter().map(|r| f(r)).sum::<u64>() as f64 / grants.max(1) as f64
    };
    let all: Vec<&PhaseReport> = blocks.iter().flatten().collect();
    PhaseFigures {
        phase: phase.into(),
        grants_per_s_per_federate: per_fed,
        grants_per_s: med,
        grants_per_s_min: if min.is_finite() { min } else { 0.0 },
        ratio_to_raw: if phase == "raw-barrier" {
            1.0
        } else {
            med / raw_rate.max(f64::MIN_POSITIVE)
        },
        control_msgs_per_grant: per_grant(&all, |r| r.control_msgs),
        control_msgs_per_grant_per_block: blocks
            .iter()
            .map(|b| per_grant(&b.iter().collect::<Vec<_>>(), |r| r.control_msgs))
            .collect(),
        reflects_per_grant: per_grant(&all, |r| r.reflects),
        cpu_us_per_grant: per_grant(&all, |r| r.process.cpu_ns) / 1e3,
        ctx_switches_per_grant: per_grant(&all, |r| r.process.ctx_switches),
        per_thread_per_grant: per_thread(&all),
        violations: all
            .iter()
            .flat_map(|r| r.violations.iter().cloned())
            .take(10)
            .collect(),
    }
}

fn per_thread(all: &[&PhaseReport]) -> BTreeMap<String, (f64, f64)> {
    let grants: u64 = all.iter().map(|r| r.grants).sum();
    let mut m: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for r in all {
        for (name, s) in &r.threads {
            let e = m.entry(name.clone()).or_default();
            e.0 += s.cpu_ns as f64 / 1e3;
            e.1 += s.ctx_switches as f64;
        }
    }
    for v in m.values_mut() {
        v.0 /= grants.max(1) as f64;
        v.1 /= grants.max(1) as f64;
    }
    m
}

/// The table printed on stdout.
pub fn table(r: &TimeReport) -> String {
    let mut s = format!(
        "time advance (grants/s per federate), {} callbacks — {} — {} cores, {}\n",
        r.options.callbacks, r.placement, r.machine.cores, r.machine.cpu_model
    );
    s.push_str(&format!(
        "{:>4} {:<17} {:>11} {:>11} {:>8} {:>10} {:>10} {:>10} {:>10} {:>6}\n",
        "N",
        "phase",
        "grants/s",
        "slowest",
        "ratio",
        "ctl/grant",
        "refl/grant",
        "cpuµs/gr",
        "ctxsw/gr",
        "viol"
    ));
    for x in &r.results {
        for p in &x.phases {
            s.push_str(&format!(
                "{:>4} {:<17} {:>11.0} {:>11.0} {:>8.3} {:>10.2} {:>10.2} {:>10.1} {:>10.1} {:>6}\n",
                x.federates,
                p.phase,
                p.grants_per_s,
                p.grants_per_s_min,
                p.ratio_to_raw,
                p.control_msgs_per_grant,
                p.reflects_per_grant,
                p.cpu_us_per_grant,
                p.ctx_switches_per_grant,
                p.violations.len()
            ));
        }
        s.push_str(&format!(
            "{:>4} late joiner: {:.1} ms from main to joined ({:.1} ms from spawn)\n",
            x.federates, x.late_join_ms, x.late_join_spawn_to_joined_ms
        ));
    }
    s
}

/// Grants/s against N, one bar per phase.
pub fn plot(r: &TimeReport) -> String {
    let groups: Vec<(String, Vec<(String, f64)>)> = r
        .results
        .iter()
        .map(|x| {
            (
                format!("N = {}", x.federates),
                x.phases
                    .iter()
                    .map(|p| (p.phase.clone(), p.grants_per_s))
                    .collect(),
            )
        })
        .collect();
    crate::svg::bars(
        "hlamesh-bench time: grants/s per federate (barriers: rounds/s)",
        "grants/s",
        &groups,
    )
}

// ---------------------------------------------------------------------------------------------
// The federate process.

#[derive(Debug)]
enum Ev {
    Discovered,
    Enabled,
    Grant(f64),
    Reflect(Option<f64>),
}

struct TimeAmb {
    tx: Sender<Ev>,
}

impl FederateAmbassador for TimeAmb {
    fn discover_object_instance(
        &mut self,
        _o: ObjectInstanceHandle,
        _c: ObjectClassHandle,
        _n: &str,
        _p: FederateHandle,
    ) {
        let _ = self.tx.send(Ev::Discovered);
    }
    fn reflect_attribute_values(
        &mut self,
        _o: ObjectInstanceHandle,
        _v: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        info: &ReceiveInfo,
    ) {
        let t = info
            .time
            .as_deref()
            .and_then(|b| Time::decode(b).ok())
            .map(Time::value);
        let _ = self.tx.send(Ev::Reflect(t));
    }
    fn time_regulation_enabled(&mut self, _t: Time) {
        let _ = self.tx.send(Ev::Enabled);
    }
    fn time_constrained_enabled(&mut self, _t: Time) {
        let _ = self.tx.send(Ev::Enabled);
    }
    fn time_advance_grant(&mut self, t: Time) {
        let _ = self.tx.send(Ev::Grant(t.value()));
    }
}

/// A barrier over one path: the highest round heard from every other process.
#[derive(Default)]
struct Barrier {
    rounds: Mutex<HashMap<u32, u64>>,
    cv: Condvar,
}

/// One path barrier rounds run over, with its own round counter.
struct BarrierPath {
    sut: Arc<dyn Sut>,
    rel: Reliability,
    barrier: Arc<Barrier>,
    round: u64,
}

impl BarrierPath {
    /// Installs the handler that records rounds heard from the other processes.
    fn new(sut: Arc<dyn Sut>, rel: Reliability, me: u32) -> Result<BarrierPath, BenchError> {
        let barrier = Arc::new(Barrier::default());
        let b = barrier.clone();
        sut.set_handler(Arc::new(move |m: &[u8]| {
            if m.len() >= 16 && m[0] == b'R' {
                let mut from = [0u8; 4];
                from.copy_from_slice(&m[4..8]);
                let mut round = [0u8; 8];
                round.copy_from_slice(&m[8..16]);
                let (from, round) = (u32::from_be_bytes(from), u64::from_be_bytes(round));
                if from != me {
                    let mut g = b.rounds.lock().unwrap_or_else(|e| e.into_inner());
                    let r = g.entry(from).or_insert(0);
                    *r = (*r).max(round);
                    b.cv.notify_all();
                }
            }
        }))?;
        Ok(BarrierPath {
            sut,
            rel,
            barrier,
            round: 0,
        })
    }
}

struct Fed {
    rti: RtiAmbassador,
    evoked: bool,
    object: ObjectInstanceHandle,
    stamped: AttributeHandle,
    rx: Receiver<Ev>,
    now: f64,
    index: u32,
    others: usize,
    raw: BarrierPath,
    transport: BarrierPath,
}

const WAIT: Duration = Duration::from_secs(20);

fn t(v: f64) -> Result<Time, BenchError> {
    Time::new(v).ok_or_else(|| BenchError::Protocol(format!("bad logical time {v}")))
}

impl Fed {
    fn next(&self, what: &str) -> Result<Ev, BenchError> {
        let lost =
            || BenchError::Protocol(format!("federate {}: no callback for {what}", self.index));
        if !self.evoked {
            return self.rx.recv_timeout(WAIT).map_err(|_| lost());
        }
        // Evoked: the ambassador runs on this thread inside evoke_callback and queues to `rx`.
        let end = Instant::now() + WAIT;
        loop {
            if let Ok(ev) = self.rx.try_recv() {
                return Ok(ev);
            }
            if Instant::now() > end {
                return Err(lost());
            }
            self.rti.evoke_callback(Duration::from_millis(50))?;
        }
    }

    /// Waits for the grant of the pending request; counts reflections before it and checks
    /// that each is stamped after the current time and no later than the grant.
    fn grant(
        &self,
        what: &str,
        reflects: &mut u64,
        violations: &mut Vec<String>,
    ) -> Result<f64, BenchError> {
        let mut stamps = Vec::new();
        loop {
            match self.next(what)? {
                Ev::Grant(g) => {
                    for s in stamps {
                        if !matches!(s, Some(s) if s > self.now && s <= g) {
                            violations.push(format!("reflection at {s:?} before grant {g}"));
                        }
                    }
                    violations.truncate(10);
                    return Ok(g);
                }
                Ev::Reflect(s) => {
                    *reflects += 1;
                    stamps.push(s);
                }
                _ => {}
            }
        }
    }

    fn tar(&mut self, steps: u64, update: bool) -> Result<PhaseReport, BenchError> {
        let c0 = control_sent();
        let t0 = Instant::now();
        let (mut reflects, mut violations) = (0u64, Vec::new());
        for _ in 0..steps {
            let next = self.now + 1.0;
            if update {
                self.rti.update_attribute_values_with_time(
                    self.object,
                    vec![(self.stamped, next.to_be_bytes().to_vec())],
                    b"",
                    t(next)?,
                )?;
            }
            self.rti.time_advance_request(t(next)?)?;
            let before = reflects;
            let g = self.grant("a TAR grant", &mut reflects, &mut violations)?;
            if g != next {
                violations.push(format!("TAR({next}) granted {g}"));
            }
            if update && reflects - before != self.others as u64 {
                violations.push(format!(
                    "step {next}: {} reflections, want {}",
                    reflects - before,
                    self.others
                ));
            }
            violations.truncate(10);
            self.now = g;
        }
        Ok(PhaseReport {
            grants: steps,
            secs: t0.elapsed().as_secs_f64(),
            control_msgs: control_sent() - c0,
            reflects,
            violations,
            process: ProcSample::default(),
            threads: BTreeMap::new(),
        })
    }

    /// Federate i's own events are at base + (k·N + i + 1)·gap; it sends one timestamped update
    /// per own event and requests NER to its next one, so every event in the federation is a
    /// grant for everyone.
    fn ner(&mut self, events: u64, gap: f64) -> Result<PhaseReport, BenchError> {
        let c0 = control_sent();
        let t0 = Instant::now();
        let n = (self.others + 1) as f64;
        let base = self.now;
        let end = base + events as f64 * n * gap;
        let own = |k: u64| base + (k as f64 * n + f64::from(self.index) + 1.0) * gap;
        let (mut k, mut grants, mut reflects, mut violations) = (0u64, 0u64, 0u64, Vec::new());
        let mut sent_for = None;
        while self.now < end {
            let e = own(k);
            let target = if e <= end { e } else { end };
            if e <= end && sent_for != Some(k) {
                self.rti.update_attribute_values_with_time(
                    self.object,
                    vec![(self.stamped, e.to_be_bytes().to_vec())],
                    b"",
                    t(e)?,
                )?;
                sent_for = Some(k);
            }
            self.rti.next_message_request(t(target)?)?;
            let g = self.grant("a NER grant", &mut reflects, &mut violations)?;
            grants += 1;
            if g > target || g <= self.now {
                violations.push(format!("NER({target}) at {} granted {g}", self.now));
                violations.truncate(10);
            }
            self.now = g;
            if g >= e {
                k += 1;
            }
        }
        Ok(PhaseReport {
            grants,
            secs: t0.elapsed().as_secs_f64(),
            control_msgs: control_sent() - c0,
            reflects,
            violations,
            process: ProcSample::default(),
            threads: BTreeMap::new(),
        })
    }

    /// `rounds` barrier rounds on the raw path or the transport; a round's message is re-sent
    /// every 20 ms until the round completes (loopback multicast rarely drops, but a best-effort
    /// barrier must not hang on one loss).
    fn barrier_rounds(&mut self, rounds: u64, transport: bool) -> Result<PhaseReport, BenchError> {
        let (index, others) = (self.index, self.others);
        let p = if transport {
            &mut self.transport
        } else {
            &mut self.raw
        };
        let t0 = Instant::now();
        for _ in 0..rounds {
            p.round += 1;
            let mut m = vec![0u8; 16];
            m[0] = b'R';
            m[4..8].copy_from_slice(&index.to_be_bytes());
            m[8..16].copy_from_slice(&p.round.to_be_bytes());
            let end = Instant::now() + WAIT;
            let mut g = p.barrier.rounds.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                drop(g);
                p.sut.send(p.rel, &m)?;
                g = p.barrier.rounds.lock().unwrap_or_else(|e| e.into_inner());
                let resend = Instant::now() + Duration::from_millis(20);
                while !complete(&g, others, p.round) && Instant::now() < resend {
                    let left = resend.saturating_duration_since(Instant::now());
                    g = p
                        .barrier
                        .cv
                        .wait_timeout(g, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                if complete(&g, others, p.round) {
                    break;
                }
                if Instant::now() > end {
                    return Err(BenchError::Protocol(format!(
                        "{} barrier round {} incomplete: {:?}",
                        p.sut.name(),
                        p.round,
                        *g
                    )));
                }
            }
        }
        Ok(PhaseReport {
            grants: rounds,
            secs: t0.elapsed().as_secs_f64(),
            control_msgs: 0,
            reflects: 0,
            violations: Vec::new(),
            process: ProcSample::default(),
            threads: BTreeMap::new(),
        })
    }
}

fn complete(g: &HashMap<u32, u64>, others: usize, round: u64) -> bool {
    g.values().filter(|r| **r >= round).count() >= others
}

fn control_sent() -> u64 {
    ProcessCounters::now().sum("hlamesh_control_frames_sent_total", "kind=\"app\"")
}

/// The federate process (`hlamesh-bench peer --role time`): joins, becomes regulating and
/// constrained, prints `ready`, then runs the phases it is told on stdin until stdin closes.
pub fn federate(
    net: &NetParams,
    federation: &str,
    index: u32,
    federates: usize,
    evoked: bool,
    join_only: bool,
    timeout: Duration,
) -> Result<(), BenchError> {
    let process_start = Instant::now();
    let deadline = process_start + timeout;
    let _ = hlamesh_transport::metrics::install();
    let lrc = Lrc::start(net.transport_config())?;
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut rti = RtiAmbassador::with_lrc(lrc);
    let model = if evoked {
        CallbackModel::Evoked
    } else {
        CallbackModel::Immediate
    };
    rti.connect(Box::new(TimeAmb { tx }), model)?;
    join_federation(
        &mut rti,
        federation,
        &format!("f{index}"),
        index == 0,
        process_start + Duration::from_secs(30),
    )?;
    let join_ms = process_start.elapsed().as_secs_f64() * 1e3;
    if join_only {
        println!("{}", json!({"event": "joined", "join_ms": join_ms}));
        rti.resign_federation_execution(ResignAction::DeleteObjects)?;
        return Ok(());
    }
    let class = rti.get_object_class_handle(CLASS)?;
    let stamped = rti.get_attribute_handle(class, "Stamped")?;
    rti.publish_object_class_attributes(class, &[stamped])?;
    rti.subscribe_object_class_attributes(class, &[stamped], true)?;
    let object = rti.register_object_instance(class)?;
    let others = federates.saturating_sub(1);
    let raw = BarrierPath::new(
        Arc::new(RawUdpSut::new(net)?),
        Reliability::BestEffort,
        index,
    )?;
    // A second transport, on its own ports, for the transport barrier.
    let transport = BarrierPath::new(
        Level::Transport.join(
            &net.alt(),
            &format!("{federation}-barrier"),
            index == 0,
            others,
            deadline.saturating_duration_since(Instant::now()),
        )?,
        Reliability::Reliable,
        index,
    )?;
    let mut fed = Fed {
        rti,
        evoked,
        object,
        stamped,
        rx,
        now: 0.0,
        index,
        others,
        raw,
        transport,
    };
    let mut discovered = 0;
    while discovered < fed.others {
        if let Ev::Discovered = fed.next("discoveries")? {
            discovered += 1;
        }
    }
    let la = LogicalTimeInterval::new(1.0)
        .ok_or_else(|| BenchError::Protocol("lookahead 1 rejected".into()))?;
    fed.rti.enable_time_regulation(la)?;
    while !matches!(fed.next("regulation enabled")?, Ev::Enabled) {}
    fed.rti.enable_time_constrained()?;
    while !matches!(fed.next("constraint enabled")?, Ev::Enabled) {}
    println!("{}", json!({"event": "ready", "join_ms": join_ms}));
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let (Some(phase), Some(Ok(count)), gap) = (
            words.first(),
            words.get(1).map(|c| c.parse::<u64>()),
            words
                .get(2)
                .and_then(|g| g.parse::<f64>().ok())
                .unwrap_or(10.0),
        ) else {
            println!(
                "{}",
                json!({"event": "error", "message": format!("bad command {line:?}")})
            );
            continue;
        };
        let t0 = ProcSample::threads(None);
        let r = match *phase {
            "raw-barrier" => fed.barrier_rounds(count, false),
            "transport-barrier" => fed.barrier_rounds(count, true),
            "tar" => fed.tar(count, false),
            "tar-update" => fed.tar(count, true),
            "ner" => fed.ner(count, gap.max(1.0)),
            other => Err(BenchError::Protocol(format!("unknown phase {other:?}"))),
        };
        let threads = ProcSample::threads_since(&ProcSample::threads(None), &t0);
        let process = threads
            .values()
            .fold(ProcSample::default(), |a, s| ProcSample {
                cpu_ns: a.cpu_ns + s.cpu_ns,
                ctx_switches: a.ctx_switches + s.ctx_switches,
            });
        match r.map(|r| PhaseReport {
            process,
            threads,
            ..r
        }) {
            Ok(r) => println!("{}", json!({"event": "phase", "report": r})),
            Err(e) => {
                println!("{}", json!({"event": "error", "message": e.to_string()}));
                return Err(e);
            }
        }
        if Instant::now() > deadline {
            break;
        }
    }
    Ok(())
}
