//! The federate process of `time` (`hlamesh-bench peer --role time`): an LRC federate on the
//! bench FOM, regulating (lookahead 1) and constrained, plus a raw UDP socket and a second
//! transport for the barrier baselines. It runs the phases the driver writes on stdin and answers
//! each with a JSON `phase` line holding a [`PhaseReport`].

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
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
use serde_json::json;

use super::PhaseReport;
use crate::BenchError;
use crate::net::NetParams;
use crate::procstat::ProcSample;
use crate::rti::{CLASS, join_federation};
use crate::session::Level;
use crate::sut::{RawUdpSut, Sut};

#[derive(Debug)]
enum Ev {
    Discovered,
    Enabled,
    Grant(f64),
    Reflect(Option<f64>),
}

struct TimeAmb {
    tx: Sender<Ev>,
    chain: Arc<Chain>,
}

/// The `tar-callback` phase: the federate asks for its next step from inside the grant callback,
/// as an event-driven federate does, so no thread of its own sits on the path. Only the last
/// grant reaches the federate's main thread.
#[derive(Default)]
struct Chain {
    /// Grants still to chain (0: grants go to the main thread).
    remaining: AtomicU64,
    rti: OnceLock<Weak<RtiAmbassador>>,
    /// The first failed request, if any.
    error: Mutex<Option<String>>,
}

impl Chain {
    /// Called with each grant; true when the grant was consumed by the chain.
    fn on_grant(&self, t: Time) -> bool {
        let left = self.remaining.load(Ordering::Acquire);
        if left <= 1 {
            self.remaining.store(0, Ordering::Release);
            return false;
        }
        self.remaining.store(left - 1, Ordering::Release);
        let r = match (
            self.rti.get().and_then(Weak::upgrade),
            Time::new(t.value() + 1.0),
        ) {
            (Some(rti), Some(next)) => rti.time_advance_request(next).map_err(|e| e.to_string()),
            _ => Err("no RTI ambassador for the chained request".into()),
        };
        match r {
            Ok(()) => true,
            Err(e) => {
                if let Ok(mut slot) = self.error.lock() {
                    slot.get_or_insert(e);
                }
                self.remaining.store(0, Ordering::Release);
                false
            }
        }
    }
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
        if !self.chain.on_grant(t) {
            let _ = self.tx.send(Ev::Grant(t.value()));
        }
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
    rti: Arc<RtiAmbassador>,
    chain: Arc<Chain>,
    evoked: bool,
    object: ObjectInstanceHandle,
    stamped: AttributeHandle,
    rx: Receiver<Ev>,
    now: f64,
    index: u32,
    others: usize,
    raw: BarrierPath,
    transport: BarrierPath,
    lrc: Lrc,
    federation: String,
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

    /// Time messages (promises, the null messages) this federate sent so far.
    fn null_sent(&self) -> u64 {
        self.lrc.null_messages_sent(&self.federation)
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
        let c0 = self.null_sent();
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
            null_msgs: self.null_sent() - c0,
            reflects,
            violations,
            process: ProcSample::default(),
            threads: BTreeMap::new(),
        })
    }

    /// TAR(t+1) asked from inside each grant callback (see [`Chain`]); the main thread starts the
    /// chain and waits for its last grant.
    fn tar_callback(&mut self, steps: u64) -> Result<PhaseReport, BenchError> {
        let c0 = self.null_sent();
        let t0 = Instant::now();
        let (mut reflects, mut violations) = (0u64, Vec::new());
        let target = self.now + steps as f64;
        self.chain.remaining.store(steps, Ordering::Release);
        self.rti.time_advance_request(t(self.now + 1.0)?)?;
        let g = self.grant("the chain's last grant", &mut reflects, &mut violations)?;
        if let Some(e) = self.chain.error.lock().ok().and_then(|mut e| e.take()) {
            return Err(BenchError::Protocol(format!("chained TAR failed: {e}")));
        }
        if g != target {
            violations.push(format!("chain of {steps} TARs ended at {g}, want {target}"));
        }
        self.now = g;
        Ok(PhaseReport {
            grants: steps,
            secs: t0.elapsed().as_secs_f64(),
            null_msgs: self.null_sent() - c0,
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
        let c0 = self.null_sent();
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
            null_msgs: self.null_sent() - c0,
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
            null_msgs: 0,
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
    let mut rti = RtiAmbassador::with_lrc(lrc.clone());
    let model = if evoked {
        CallbackModel::Evoked
    } else {
        CallbackModel::Immediate
    };
    let chain = Arc::new(Chain::default());
    rti.connect(
        Box::new(TimeAmb {
            tx,
            chain: chain.clone(),
        }),
        model,
    )?;
    join_federation(
        &mut rti,
        federation,
        &format!("f{index}"),
        index == 0,
        process_start + Duration::from_secs(30),
    )?;
    let join_ms = process_start.elapsed().as_secs_f64() * 1e3;
    if join_only {
        println!(
            "{}",
            json!({"event": "joined", "join_ms": join_ms, "cpus": crate::cpus::allowed().unwrap_or_default()})
        );
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
            true,
            others,
            deadline.saturating_duration_since(Instant::now()),
        )?,
        Reliability::Reliable,
        index,
    )?;
    let rti = Arc::new(rti);
    let _ = chain.rti.set(Arc::downgrade(&rti));
    let mut fed = Fed {
        rti,
        chain,
        evoked,
        object,
        stamped,
        rx,
        now: 0.0,
        index,
        others,
        raw,
        transport,
        lrc,
        federation: federation.to_string(),
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
    println!(
        "{}",
        json!({"event": "ready", "join_ms": join_ms, "cpus": crate::cpus::allowed().unwrap_or_default()})
    );
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
            "tar-callback" => fed.tar_callback(count),
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
