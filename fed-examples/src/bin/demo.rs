//! `demo`: the whole example federation on this machine, as separate processes, with no
//! configuration — a commander, N cars, a flight simulator, an operator station and a viewer —
//! running a bounded scenario (10 s of simulated time by default, real time), then a summary:
//! frames per federate, grants, updates sent/reflected, overruns, the save and restore that
//! happened, latency percentiles, and the checks (everyone reached End, the viewer saw every
//! car's updates in order, one save and one restore).
//!
//! ```text
//! cargo run --release -p hlamesh-examples --bin demo
//! cargo run --release -p hlamesh-examples --bin demo -- --duration 5 --cars 3 --afap
//! cargo run --release -p hlamesh-examples --bin demo -- --lan     # commands for one federate per machine
//! ```
//! Exit code 0 when every check passed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Parser;
use hlamesh_examples::roles::Role;
use serde_json::Value;

#[derive(Parser, Debug)]
#[command(about = "Run the hlamesh example federation on this machine and print a summary")]
struct Args {
    /// Simulated seconds to run.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Number of cars.
    #[arg(long, default_value_t = 2)]
    cars: usize,
    /// As fast as possible instead of real time.
    #[arg(long)]
    afap: bool,
    /// Real-time scale factor.
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// No federation save/restore.
    #[arg(long)]
    no_save: bool,
    /// Federation name (default: unique per run).
    #[arg(long)]
    federation: Option<String>,
    /// Give up (and kill everything) after this many seconds.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Do not start anything: print the command to run on each machine of a LAN instead.
    #[arg(long)]
    lan: bool,
    /// Forward the viewer's live lines.
    #[arg(long)]
    live: bool,
    /// Do not serve Prometheus metrics (by default every federate serves `/metrics` on a free
    /// loopback port and the demo prints the URLs).
    #[arg(long)]
    no_metrics: bool,
}

/// A free loopback address for a federate's `/metrics` (the port is released just before the
/// federate binds it; on the rare collision that federate runs without metrics).
fn free_metrics_addr() -> Option<std::net::SocketAddr> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .ok()
}

struct Spawned {
    name: String,
    child: Child,
}

fn main() {
    // `demo role <role> [options]`: one federate of the demo, started by the demo itself (the
    // same options as the federate's own binary).
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == "role") {
        let name = argv.get(2).map(|r| r.to_string_lossy().into_owned());
        let Some(role) = name.as_deref().and_then(Role::from_name) else {
            eprintln!(
                "demo role: expected one of commander, car, flightsim, operator, viewer; got {}",
                name.as_deref().unwrap_or("nothing")
            );
            std::process::exit(2);
        };
        std::process::exit(role.main(&argv[2..]));
    }
    let a = Args::parse();
    std::process::exit(launch(&a));
}

fn plan(a: &Args, federation: &str) -> Vec<(String, Role, Vec<String>)> {
    let mut common = vec!["--federation".to_string(), federation.to_string()];
    if a.afap {
        common.push("--afap".into());
    } else {
        common.extend(["--scale".into(), a.scale.to_string()]);
    }
    let mut out = Vec::new();
    let mut cmd = common.clone();
    cmd.extend([
        "--cars".into(),
        a.cars.to_string(),
        "--duration".into(),
        a.duration.to_string(),
    ]);
    if a.no_save {
        cmd.push("--no-save".into());
    }
    out.push(("commander".to_string(), Role::Commander, cmd));
    for i in 1..=a.cars {
        let mut c = common.clone();
        c.extend(["--name".into(), format!("car-{i}")]);
        out.push((format!("car-{i}"), Role::Car, c));
    }
    out.push(("flightsim".into(), Role::Flightsim, common.clone()));
    out.push(("operator".into(), Role::Operator, common.clone()));
    let mut v = common;
    v.push("--plain".into());
    out.push(("viewer".into(), Role::Viewer, v));
    out
}

fn launch(a: &Args) -> i32 {
    let federation = a
        .federation
        .clone()
        .unwrap_or_else(|| format!("hlamesh-demo-{}", std::process::id()));
    let plan = plan(a, &federation);
    if a.lan {
        println!(
            "Run one line per machine (same LAN, multicast allowed), commander last or first:"
        );
        for (_, role, args) in &plan {
            println!(
                "  HLAMESH_INTERFACE=<this machine's LAN address> HLAMESH_TTL=1 {} {}",
                role.name(),
                args.join(" ")
            );
        }
        return 0;
    }
    println!(
        "hlamesh demo: federation {federation}: commander, {} car(s), flightsim, operator, viewer; {} s of simulated time, {}",
        a.cars,
        a.duration,
        if a.afap {
            "as fast as possible".to_string()
        } else {
            format!("real time x{}", a.scale)
        }
    );
    // Federation saves go to a directory of this run (unless HLAMESH_SAVE_DIR says otherwise),
    // removed at the end.
    let save_dir = std::env::var_os("HLAMESH_SAVE_DIR")
        .is_none()
        .then(|| std::env::temp_dir().join(format!("hlamesh-demo-saves-{}", std::process::id())));
    let (tx, rx) = mpsc::channel::<(String, String)>();
    let mut children: Vec<Spawned> = Vec::new();
    // Every federate is a role of this executable (see `hlamesh_examples::roles`).
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("demo: cannot find my own executable to start the federates: {e}");
            return 2;
        }
    };
    for (name, role, args) in &plan {
        let mut role_args = vec!["role".to_string(), role.name().to_string()];
        role_args.extend(args.iter().cloned());
        let metrics = if a.no_metrics {
            None
        } else {
            free_metrics_addr()
        };
        if let Some(m) = metrics {
            println!("  {name}: metrics at http://{m}/metrics");
        }
        match spawn(
            &exe,
            &role_args,
            name,
            tx.clone(),
            save_dir.as_deref(),
            metrics,
        ) {
            Ok(c) => children.push(c),
            Err(e) => {
                eprintln!("demo: cannot start {name}: {e}");
                kill_all(&mut children);
                return 2;
            }
        }
    }
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(a.timeout);
    let mut summaries: HashMap<String, Value> = HashMap::new();
    let started = Instant::now();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left.min(Duration::from_millis(200))) {
            Ok((name, line)) => {
                let summary = line
                    .starts_with('{')
                    .then(|| serde_json::from_str::<Value>(&line).ok())
                    .flatten()
                    .filter(|v| v["event"] == "summary");
                if let Some(v) = summary {
                    summaries.insert(name, v);
                } else if a.live {
                    println!("[{name}] {line}");
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if Instant::now() >= deadline {
                    eprintln!(
                        "demo: timed out after {} s; stopping every federate",
                        a.timeout
                    );
                    kill_all(&mut children);
                    break;
                }
            }
        }
    }
    for c in &mut children {
        let _ = c.child.wait();
    }
    let wall = started.elapsed();
    if let Some(d) = &save_dir {
        let _ = std::fs::remove_dir_all(d);
    }
    report(a, &plan, &summaries, wall)
}

fn spawn(
    exe: &Path,
    args: &[String],
    name: &str,
    tx: mpsc::Sender<(String, String)>,
    save_dir: Option<&Path>,
    metrics: Option<std::net::SocketAddr>,
) -> std::io::Result<Spawned> {
    let mut cmd = Command::new(exe);
    if let Some(m) = metrics {
        cmd.env("HLAMESH_METRICS_ADDR", m.to_string());
    }
    if let Some(d) = save_dir {
        cmd.env("HLAMESH_SAVE_DIR", d);
    }
    if std::env::var_os("HLAMESH_LOG").is_none() {
        // Peers leaving at the end are expected; keep the children's stderr for real errors.
        cmd.env("HLAMESH_LOG", "error");
    }
    let mut child = cmd
        .args(args)
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()?;
    if let Some(out) = child.stdout.take() {
        let n = name.to_string();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send((n.clone(), line)).is_err() {
                    break;
                }
            }
        });
    }
    Ok(Spawned {
        name: name.to_string(),
        child,
    })
}

fn kill_all(children: &mut [Spawned]) {
    for c in children.iter_mut() {
        if let Ok(None) = c.child.try_wait() {
            eprintln!("demo: stopping {}", c.name);
            let _ = c.child.kill();
        }
        let _ = c.child.wait();
    }
}

fn n(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

fn report(
    a: &Args,
    plan: &[(String, Role, Vec<String>)],
    s: &HashMap<String, Value>,
    wall: Duration,
) -> i32 {
    println!();
    println!(
        "{:<10} {:<6} {:>7} {:>7} {:>8} {:>10} {:>13} {:>9} {:>10} {:>6} {:>8}",
        "federate",
        "state",
        "frames",
        "grants",
        "updates",
        "reflected",
        "interactions",
        "overruns",
        "worst(ms)",
        "saves",
        "restores"
    );
    let mut all_end = true;
    for (name, _, _) in plan {
        match s.get(name) {
            Some(v) => {
                let state = v["state"].as_str().unwrap_or("?");
                all_end &= state == "End";
                println!(
                    "{:<10} {:<6} {:>7} {:>7} {:>8} {:>10} {:>13} {:>9} {:>10.1} {:>6} {:>8}",
                    name,
                    state,
                    n(v, "frames"),
                    n(v, "grants"),
                    n(v, "updates_sent"),
                    n(v, "reflections_applied"),
                    format!(
                        "{}/{}",
                        n(v, "interactions_sent"),
                        n(v, "interactions_applied")
                    ),
                    n(v, "overruns"),
                    v["worst_overrun_ms"].as_f64().unwrap_or(0.0),
                    v["saves"].as_array().map_or(0, Vec::len),
                    v["restores"].as_array().map_or(0, Vec::len),
                );
                if state != "End" {
                    println!(
                        "           cause: {}",
                        v["final_state"].as_str().unwrap_or("?")
                    );
                }
            }
            None => {
                all_end = false;
                println!("{name:<10} (no summary: the process died or was killed)");
            }
        }
    }
    println!(
        "(updates: attribute updates sent; reflected: reflections received; interactions: sent/received; \
         overruns: frames that ended after their real-time deadline, worst(ms) the longest of them)"
    );
    // The viewer saw every car's updates, in order.
    let viewer = s.get("viewer").map(|v| &v["extra"]);
    let mut in_order = viewer.is_some();
    if let Some(v) = viewer {
        println!();
        for i in 1..=a.cars {
            let car = format!("car-{i}");
            let sent_seq = s
                .get(&car)
                .and_then(|c| c["extra"]["state"]["seq"].as_i64());
            let seen = v["vehicles"]
                .as_array()
                .and_then(|vs| vs.iter().find(|x| x["federate"].as_str() == Some(&car)));
            let last = seen.and_then(|x| x["last_seq"].as_i64());
            let ooo = seen.map_or(u64::MAX, |x| n(x, "out_of_order"));
            let ok = sent_seq.is_some() && last == sent_seq && ooo == 0;
            if let Some(c) = s.get(&car) {
                let e = &c["extra"];
                println!(
                    "{car}: fuel {:.2} l, range {:.0} m, refuels {}",
                    e["state"]["fuel"].as_f64().unwrap_or(f64::NAN),
                    e["range_m"].as_f64().unwrap_or(f64::NAN),
                    n(e, "refuels")
                );
            }
            in_order &= ok;
            println!(
                "viewer: {car}: last update {:?} of {:?} sent, {} reflections, {} out of order -> {}",
                last,
                sent_seq,
                seen.map_or(0, |x| n(x, "updates")),
                if ooo == u64::MAX { 0 } else { ooo },
                if ok {
                    "complete, in order"
                } else {
                    "MISSING OR OUT OF ORDER"
                }
            );
        }
        if !in_order {
            println!("viewer's vehicles: {}", v["vehicles"]);
        }
        let l = &v["latency_ms"];
        println!(
            "latency send -> reflect at the viewer ({} samples): p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            n(v, "latency_samples"),
            l["p50"].as_f64().unwrap_or(f64::NAN),
            l["p90"].as_f64().unwrap_or(f64::NAN),
            l["p99"].as_f64().unwrap_or(f64::NAN),
            l["max"].as_f64().unwrap_or(f64::NAN),
        );
        let replayed = n(v, "replayed_after_restore");
        if replayed > 0 {
            println!(
                "  not in those figures: {replayed} updates queued at the save and delivered again after the restore \
                 (sent before the rewind, up to {:.0} ms earlier)",
                v["replayed_max_age_ms"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
    if let Some(o) = s.get("operator").map(|o| &o["extra"]) {
        let sent: Vec<String> = o["sent"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                format!(
                    "{}@{}",
                    e["kind"].as_str().unwrap_or("?"),
                    e["at"].as_f64().unwrap_or(f64::NAN)
                )
            })
            .collect();
        // An untimed save finds each federate where it is (as fast as possible, the operator
        // may be before or after an event): what it sent after its save it sends again.
        println!(
            "operator: {} of {} events sent when the save reached it; sent {} in all: {}",
            o["done_at_save"]
                .as_u64()
                .map_or("none".into(), |d| d.to_string()),
            n(o, "events"),
            sent.len(),
            sent.join(", ")
        );
    }
    let cmd = s.get("commander").map(|c| &c["extra"]);
    let saved = cmd.and_then(|c| c["federation_saved"].as_bool());
    let restored = cmd.and_then(|c| c["federation_restored"].as_bool());
    if let Some(c) = cmd {
        for l in c["log"].as_array().into_iter().flatten() {
            println!("commander: {}", l.as_str().unwrap_or_default());
        }
    }
    // An LRC without federation save or restore yet: reported, not a failure of the demo.
    let missing = |k: &str| {
        cmd.and_then(|c| c[k].as_str())
            .is_some_and(|e| e.contains("not available in this LRC"))
    };
    let (save_na, restore_na) = (missing("save_error"), missing("restore_error"));
    let save_ok =
        a.no_save || ((save_na || saved == Some(true)) && (restore_na || restored == Some(true)));
    let show = |na: bool, v: Option<bool>| {
        if na {
            "unavailable".to_string()
        } else {
            v.map_or("none".into(), |b| b.to_string())
        }
    };
    let (saved, restored) = (show(save_na, saved), show(restore_na, restored));
    println!();
    println!(
        "RESULT all_end={all_end} viewer_in_order={in_order} save={} restore={} wall={:.1}s",
        saved,
        restored,
        wall.as_secs_f64()
    );
    if all_end && in_order && save_ok { 0 } else { 1 }
}
