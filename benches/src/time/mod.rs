//! `time`: N federate processes (all regulating with lookahead 1 and constrained) advance in
//! phases the driver orders, each next to a raw UDP multicast "barrier round" among the same
//! processes (send my round number, wait until every other process has sent it; the floor any
//! lockstep protocol pays). Per block the phases run in order: raw barrier, the same barrier over
//! hlamesh's own data channel (reliable multicast, delivered in the transport's event hook — the
//! path time messages take), TAR, TAR + one timestamped update per step, and
//! all-NER with sparse events (A B A B over blocks).
//!
//! Figures per federate: grants/s and time messages (null messages, i.e. promises) sent per
//! grant, from `Lrc::null_messages_sent`. A broadcast time message is one multicast on the data
//! plane, whatever the number of LRCs.

mod federate;

pub use federate::federate;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::cpus::Pinning;
use crate::net::NetParams;
use crate::peer::Role;
use crate::placement::{PeerProc, Placement};
use crate::procstat::ProcSample;
use crate::report::{self, Machine, median};
use crate::session::Level;

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
    /// CPU placement of the federate processes (see [`crate::cpus`]): `split` puts federate `k`
    /// on the `k`-th CPU, round robin.
    pub pin: Pinning,
}

/// What one federate reports for one phase.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PhaseReport {
    /// Grants received (rounds for raw).
    pub grants: u64,
    /// From the command to the last grant.
    pub secs: f64,
    /// Time messages (null messages) this federate sent.
    pub null_msgs: u64,
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
    /// "raw-barrier", "transport-barrier", "tar", "tar-update", "ner" or "tar-callback".
    pub phase: String,
    /// Per federate: median over blocks of grants/s (rounds/s for raw).
    pub grants_per_s_per_federate: Vec<f64>,
    /// Median over federates of the above.
    pub grants_per_s: f64,
    /// Slowest federate.
    pub grants_per_s_min: f64,
    /// `grants_per_s` ÷ the raw barrier's rounds/s (1 for raw itself).
    pub ratio_to_raw: f64,
    /// Time messages (null messages) sent per grant, per federate, over all blocks (0 for
    /// raw). Each is one multicast, whatever N.
    pub null_msgs_per_grant: f64,
    /// The same per block (the NER phase must not creep up).
    pub null_msgs_per_grant_per_block: Vec<f64>,
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
    /// The pinning used (after falling back: split needs two CPUs, remote peers are not pinned).
    pub pinning: Pinning,
    /// The CPU of each federate (`null` when not pinned), then the late joiner's.
    pub federate_cpus: Vec<Option<usize>>,
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

const PHASES: [&str; 6] = [
    "raw-barrier",
    "transport-barrier",
    "tar",
    "tar-update",
    "ner",
    "tar-callback",
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
    let mut progress = crate::progress::Progress::new(
        "time",
        (opts.federates.len() * opts.blocks.max(1) * PHASES.len()) as u64,
    );
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
        let (pinning, cpus) = crate::cpus::for_processes(opts.pin, placement.is_local(), n + 1)?;
        let mut procs: Vec<PeerProc> = Vec::new();
        for (k, cpu) in cpus.iter().take(n).enumerate() {
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
            pin_arg(&mut args, *cpu);
            procs.push(placement.spawn_peer(k, &args)?);
        }
        // `--lab N --loss P`: the federates' hosts drop P % of the datagrams they receive.
        placement.inject_loss(n + 1, &[net.data_port, net.raw_port])?;
        let step = Duration::from_secs(60).min(left);
        let mut join_ms = Vec::new();
        for (p, cpu) in procs.iter().zip(&cpus) {
            let v = p.wait_event("ready", step)?;
            check_pinned(&v, *cpu)?;
            join_ms.push(v["join_ms"].as_f64().unwrap_or(0.0));
        }
        // reports[phase][block][federate]
        let mut reports: Vec<Vec<Vec<PhaseReport>>> = vec![Vec::new(); PHASES.len()];
        for _ in 0..opts.blocks.max(1) {
            for (i, phase) in PHASES.iter().enumerate() {
                progress.inc(1);
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
        pin_arg(&mut args, cpus[n]);
        let spawned = Instant::now();
        let late = placement.spawn_peer(0, &args)?;
        let v = late.wait_event("joined", step)?;
        check_pinned(&v, cpus[n])?;
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
            pinning,
            federate_cpus: cpus,
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
        null_message_note: "null_msgs_per_grant counts the time messages (promises, the null \
            messages) a federate sent (Lrc::null_messages_sent); each is one multicast that \
            reaches every other LRC"
            .into(),
        results,
    })
}

/// Adds `--cpu` to a federate's arguments when it is pinned.
fn pin_arg(args: &mut Vec<String>, cpu: Option<usize>) {
    if let Some(c) = cpu {
        args.extend(["--cpu".to_string(), c.to_string()]);
    }
}

/// A pinned federate reports exactly its CPU (in its "ready" or "joined" event).
fn check_pinned(event: &serde_json::Value, cpu: Option<usize>) -> Result<(), BenchError> {
    match cpu {
        Some(c) if event["cpus"] != serde_json::json!([c]) => Err(BenchError::Protocol(format!(
            "federate pinned to CPU {c} reports it may run on {}",
            event["cpus"]
        ))),
        _ => Ok(()),
    }
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
        null_msgs_per_grant: per_grant(&all, |r| r.null_msgs),
        null_msgs_per_grant_per_block: blocks
            .iter()
            .map(|b| per_grant(&b.iter().collect::<Vec<_>>(), |r| r.null_msgs))
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
        "time advance (grants/s per federate), {} callbacks — {} — CPUs {} — {} cores, {}\n",
        r.options.callbacks,
        r.placement,
        r.results
            .first()
            .map_or("-".to_string(), |x| match x.pinning {
                Pinning::Split => "split: federate k on the k-th CPU".to_string(),
                Pinning::Shared => "shared: all on one CPU".to_string(),
                Pinning::Free => "free: not pinned".to_string(),
            }),
        r.machine.cores,
        r.machine.cpu_model
    );
    s.push_str(&format!(
        "{:>4} {:<17} {:>11} {:>11} {:>8} {:>10} {:>10} {:>10} {:>10} {:>6}\n",
        "N",
        "phase",
        "grants/s",
        "slowest",
        "ratio",
        "null/grant",
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
                p.null_msgs_per_grant,
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
pub fn plot(r: &TimeReport) -> crate::plot::Plot {
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
    crate::plot::Plot::bars(
        "hlamesh-bench time: grants/s per federate (barriers: rounds/s)",
        "grants/s",
        &groups,
    )
}
