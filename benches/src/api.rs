//! `--api rust,cpp`: the RTI level through the Rust API next to the same work through the IEEE
//! 1516-2010 C++ API (`librti1516e`), blocks interleaved in one run (A B A B), for the ratios
//! C++/Rust.
//!
//! The C++ side is `benches/cpp/bench_fed.cpp`, a federate written only against the standard's
//! headers, built at run time from an SDK that `deploy/install-sdk.sh` installs under the output
//! directory (or the one `--sdk PREFIX` names). Both ends of a C++ measurement are C++
//! processes (the latency pinger and its echo, the throughput source and its sink, every `time`
//! federate): a Rust driver talking to a C++ echo would put half of each round trip through the
//! Rust API and dilute the ratio. The Rust side is the bench's own RTI path unchanged: the
//! driver process's `RtiSut` with a Rust echo or sink peer process, and Rust `time` federates.
//! Each API runs in its own federation on its own ports; the idle one only sends its heartbeats.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hlamesh_transport::data::Reliability;
use serde::Serialize;

use crate::BenchError;
use crate::cpus::Pinning;
use crate::latency::Driver;
use crate::net::NetParams;
use crate::peer::Role;
use crate::placement::{PeerProc, Placement};
use crate::report::{self, LatencySummary, Machine, median};
use crate::session::{Level, Session};
use crate::sut::Sut;
use crate::wire::{self, Header, Kind};

/// Which API a federate is written against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    /// `hlamesh_lrc::ambassador::RtiAmbassador`.
    Rust,
    /// The standard's C++ API (`librti1516e`).
    Cpp,
}

/// The built C++ bench federate.
#[derive(Clone, Debug)]
pub struct CppFederate {
    /// The executable.
    pub exe: PathBuf,
    /// The SDK prefix it was built against.
    pub sdk: PathBuf,
    /// Seconds spent installing the SDK (0 with `--sdk`).
    pub install_s: f64,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fom_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fom/Bench.xml")
}

fn run_checked(mut cmd: Command, what: &str) -> Result<(), BenchError> {
    let out = cmd.output().map_err(BenchError::io(what.to_string()))?;
    if out.status.success() {
        return Ok(());
    }
    Err(BenchError::Protocol(format!(
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )))
}

impl CppFederate {
    /// Installs the SDK under `dir/sdk` (unless `sdk` names one) and builds `dir/bench_fed` from
    /// `benches/cpp/bench_fed.cpp` with `$CXX` (default `c++`) and pkg-config.
    pub fn build(dir: &Path, sdk: Option<&Path>) -> Result<CppFederate, BenchError> {
        std::fs::create_dir_all(dir)
            .map_err(BenchError::io(format!("create {}", dir.display())))?;
        let t0 = Instant::now();
        let (sdk, install_s) = match sdk {
            Some(p) => (p.to_path_buf(), 0.0),
            None => {
                let prefix = dir.join("sdk");
                eprintln!(
                    "hlamesh-bench: installing the C++ SDK into {} (deploy/install-sdk.sh)",
                    prefix.display()
                );
                let mut c = Command::new("timeout");
                c.arg("1900")
                    .arg(repo_root().join("deploy/install-sdk.sh"))
                    .arg(&prefix);
                run_checked(c, "deploy/install-sdk.sh")?;
                (prefix, t0.elapsed().as_secs_f64())
            }
        };
        let sdk = sdk
            .canonicalize()
            .map_err(BenchError::io(format!("find the SDK at {}", sdk.display())))?;
        let pc = Command::new("pkg-config")
            .args(["--cflags", "--libs", "rti1516e"])
            .env("PKG_CONFIG_PATH", sdk.join("lib/pkgconfig"))
            .output()
            .map_err(BenchError::io("run pkg-config"))?;
        if !pc.status.success() {
            return Err(BenchError::Protocol(format!(
                "pkg-config rti1516e under {}: {}",
                sdk.display(),
                String::from_utf8_lossy(&pc.stderr)
            )));
        }
        let flags = String::from_utf8_lossy(&pc.stdout).to_string();
        let exe = dir.join("bench_fed");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        let mut c = Command::new("timeout");
        c.arg("300")
            .arg(cxx)
            .args(["-std=c++17", "-O2", "-pthread", "-o"])
            .arg(&exe)
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cpp/bench_fed.cpp"))
            .args(flags.split_whitespace())
            .arg(format!("-Wl,-rpath,{}", sdk.join("lib").display()));
        run_checked(c, "build benches/cpp/bench_fed.cpp")?;
        Ok(CppFederate {
            exe,
            sdk,
            install_s,
        })
    }

    /// Starts one C++ federate with `role` in `federation` on `net`; it reports "ready" once it
    /// has discovered `members` other objects (and, for `time`, is regulating and constrained).
    #[allow(clippy::too_many_arguments)]
    fn spawn(
        &self,
        role: &str,
        net: &NetParams,
        federation: &str,
        create: bool,
        members: usize,
        cpu: Option<usize>,
        lifetime: Duration,
    ) -> Result<PeerProc, BenchError> {
        let designator = format!(
            "hlamesh:secret=hlamesh-bench;allow_non_loopback=true;interface={};ttl={};\
             discovery_port={};data_port={};discovery_group={}",
            net.interface, net.ttl, net.discovery_port, net.data_port, net.discovery_group
        );
        let mut c = Command::new(&self.exe);
        c.args(["--role", role, "--designator", &designator])
            .args(["--federation", federation, "--fom"])
            .arg(fom_path())
            .args(["--members", &members.to_string()])
            .args(["--timeout-s", &lifetime.as_secs().max(1).to_string()]);
        if create {
            c.arg("--create");
        }
        if let Some(cpu) = cpu {
            c.args(["--cpu", &cpu.to_string()]);
        }
        PeerProc::program(format!("C++ {role}"), c)
    }
}

/// The C++ federates' own ports and discovery group: the run's block of eight ports has the
/// Rust LRC at +0/+1, raw UDP at +2 and the `time` barrier's transport at +4/+5.
fn cpp_net(net: &NetParams) -> NetParams {
    let [a, b, c, d] = net.discovery_group.octets();
    NetParams {
        discovery_port: net.discovery_port + 6,
        data_port: net.discovery_port + 7,
        discovery_group: std::net::Ipv4Addr::new(a, b, c.wrapping_add(40), d),
        ..net.clone()
    }
}

fn local_only(placement: &Placement) -> Result<(), BenchError> {
    if placement.is_local() {
        Ok(())
    } else {
        Err(BenchError::Protocol(
            "--api cpp runs with --local only (the C++ federates are started on this machine)"
                .into(),
        ))
    }
}

/// C++ / Rust, where both ran (0 where one did not).
fn ratio(cpp: f64, rust: f64) -> f64 {
    if rust > 0.0 && cpp > 0.0 {
        cpp / rust
    } else {
        0.0
    }
}

/// What every `--api` report shares.
#[derive(Clone, Debug, Serialize)]
pub struct ApiRun {
    /// The command line.
    pub command: String,
    /// When it started.
    pub started_unix_ms: u64,
    /// Wall-clock duration.
    pub duration_s: f64,
    /// The machine (its load average included).
    pub machine: Machine,
    /// The APIs measured, in block order.
    pub apis: Vec<Api>,
    /// CPU placement.
    pub pin: Pinning,
    /// The SDK the C++ federate was built against.
    pub sdk: String,
    /// Seconds `deploy/install-sdk.sh` took in this run (0 with `--sdk`).
    pub sdk_install_s: f64,
    /// Which processes run each side.
    pub note: String,
}

impl ApiRun {
    fn new(command: String, apis: &[Api], pin: Pinning, cpp: Option<&CppFederate>) -> ApiRun {
        ApiRun {
            command,
            started_unix_ms: report::unix_ms(),
            duration_s: 0.0,
            machine: Machine::describe(),
            apis: apis.to_vec(),
            pin,
            sdk: cpp.map_or(String::new(), |c| c.sdk.display().to_string()),
            sdk_install_s: cpp.map_or(0.0, |c| c.install_s),
            note: "rust: the driver's RtiSut with a Rust peer process (time: Rust federate \
                   processes); cpp: benches/cpp/bench_fed.cpp processes at both ends"
                .into(),
        }
    }
}

// ---- latency ---------------------------------------------------------------------------------

/// Options of `latency --api`.
#[derive(Clone, Debug, Serialize)]
pub struct ApiLatencyOptions {
    /// Payload sizes.
    pub sizes: Vec<usize>,
    /// Recorded round trips per API and size.
    pub samples: usize,
    /// Round trips per block.
    pub block: usize,
    /// Unrecorded warm-up round trips per API and size.
    pub warmup: usize,
    /// CPU placement.
    pub pin: Pinning,
}

/// One size's round trips per API (reliable updates, immediate callbacks).
#[derive(Clone, Debug, Serialize)]
pub struct ApiLatencyResult {
    /// Payload bytes.
    pub payload_bytes: usize,
    /// Rust API round trips.
    pub rust: Option<LatencySummary>,
    /// C++ API round trips.
    pub cpp: Option<LatencySummary>,
    /// C++ p50 / Rust p50.
    pub ratio_p50: f64,
    /// C++ p99 / Rust p99.
    pub ratio_p99: f64,
    /// Blocks that did not complete (timed out), both APIs.
    pub lost_blocks: u64,
}

/// `latency --api` report.
#[derive(Clone, Debug, Serialize)]
pub struct ApiLatencyReport {
    /// "latency --api".
    pub subcommand: String,
    /// Run description.
    pub run: ApiRun,
    /// Options.
    pub options: ApiLatencyOptions,
    /// One per size.
    pub results: Vec<ApiLatencyResult>,
}

/// The C++ pinger's side of a latency block.
fn cpp_block(
    pinger: &mut PeerProc,
    block: u32,
    n: usize,
    size: usize,
    timeout: Duration,
) -> Result<Option<Vec<u64>>, BenchError> {
    pinger.command(&format!("ping {block} {n} {size}"))?;
    let v = pinger.wait_event("rtts", timeout)?;
    if v["complete"] != true {
        return Ok(None);
    }
    Ok(Some(
        v["ns"]
            .as_array()
            .map(|a| a.iter().filter_map(serde_json::Value::as_u64).collect())
            .unwrap_or_default(),
    ))
}

/// Runs `latency --api`.
pub fn latency(
    placement: &Placement,
    apis: &[Api],
    cpp: Option<&CppFederate>,
    opts: &ApiLatencyOptions,
    command: String,
    timeout: Duration,
) -> Result<ApiLatencyReport, BenchError> {
    local_only(placement)?;
    let started = Instant::now();
    let mut run = ApiRun::new(command, apis, opts.pin, cpp);
    let step = Duration::from_secs(60).min(timeout);
    let session = Session::start(
        placement,
        Role::Echo,
        Level::Rti,
        1,
        step,
        timeout,
        opts.pin,
    )?;
    let mut driver = Driver::new(session.hl.clone(), session.raw.clone() as Arc<dyn Sut>, 1)?;
    let mut pinger = match cpp.filter(|_| apis.contains(&Api::Cpp)) {
        Some(c) => {
            let net = cpp_net(&session.net);
            let federation = format!("bench-cpp-{}", std::process::id());
            let cpu = |i: usize| session.cpus.get(i).copied().flatten();
            let pinger = c.spawn("ping", &net, &federation, true, 1, cpu(0), timeout)?;
            let echo = c.spawn("echo", &net, &federation, false, 1, cpu(1), timeout)?;
            pinger.wait_event("ready", step)?;
            echo.wait_event("ready", step)?;
            Some((pinger, echo))
        }
        None => None,
    };
    let mut results = Vec::new();
    let mut cpp_block_no = 1u32;
    for &size in &opts.sizes {
        let size = size.max(wire::MIN_PAYLOAD);
        let mut rust_h = report::new_histogram()?;
        let mut cpp_h = report::new_histogram()?;
        let mut lost = 0u64;
        // Warm-up, then alternate blocks until each API has its samples.
        let mut record = |api: Api, n: usize, keep: bool| -> Result<(), BenchError> {
            let samples = match api {
                Api::Rust => driver.block(0, n, false, size),
                Api::Cpp => match pinger.as_mut() {
                    Some((p, _)) => {
                        cpp_block_no += 1;
                        cpp_block(p, cpp_block_no, n, size, step)?
                    }
                    None => return Ok(()),
                },
            };
            let _ = driver.take_probes();
            match samples {
                Some(s) if keep => {
                    let h = if api == Api::Rust {
                        &mut rust_h
                    } else {
                        &mut cpp_h
                    };
                    for x in s {
                        let _ = h.record(x.max(1));
                    }
                }
                Some(_) => {}
                None => lost += 1,
            }
            Ok(())
        };
        for &api in apis {
            record(api, opts.warmup.max(1), false)?;
        }
        let blocks = opts.samples.div_ceil(opts.block.max(1));
        for b in 0..blocks {
            if started.elapsed() > timeout {
                return Err(BenchError::Protocol(
                    "latency --api exceeded --timeout-s".into(),
                ));
            }
            let n = opts.block.max(1).min(opts.samples - b * opts.block.max(1));
            for &api in apis {
                record(api, n, true)?;
            }
        }
        let summary =
            |h: &hdrhistogram::Histogram<u64>| (!h.is_empty()).then(|| LatencySummary::of(h));
        let (rust, cpp) = (summary(&rust_h), summary(&cpp_h));
        let r = |f: fn(&LatencySummary) -> f64| match (&rust, &cpp) {
            (Some(a), Some(b)) => ratio(f(b), f(a)),
            _ => 0.0,
        };
        results.push(ApiLatencyResult {
            payload_bytes: size,
            ratio_p50: r(|s| s.p50_us),
            ratio_p99: r(|s| s.p99_us),
            rust,
            cpp,
            lost_blocks: lost,
        });
    }
    drop(pinger.take());
    drop(session);
    run.duration_s = started.elapsed().as_secs_f64();
    Ok(ApiLatencyReport {
        subcommand: "latency --api".into(),
        run,
        options: opts.clone(),
        results,
    })
}

/// Table of `latency --api`.
pub fn latency_table(r: &ApiLatencyReport) -> String {
    let mut s = format!(
        "update → reflect round trip, reliable, immediate callbacks (µs); load {}\n{:>7}  {:>9} {:>9}  {:>9} {:>9}  {:>9} {:>9}\n",
        r.run.machine.loadavg,
        "bytes",
        "rust p50",
        "rust p99",
        "c++ p50",
        "c++ p99",
        "c++/r p50",
        "c++/r p99"
    );
    let f = |x: Option<&LatencySummary>, p: fn(&LatencySummary) -> f64| x.map_or(0.0, p);
    for x in &r.results {
        s += &format!(
            "{:>7}  {:>9.1} {:>9.1}  {:>9.1} {:>9.1}  {:>9.3} {:>9.3}\n",
            x.payload_bytes,
            f(x.rust.as_ref(), |s| s.p50_us),
            f(x.rust.as_ref(), |s| s.p99_us),
            f(x.cpp.as_ref(), |s| s.p50_us),
            f(x.cpp.as_ref(), |s| s.p99_us),
            x.ratio_p50,
            x.ratio_p99
        );
    }
    s
}

/// Plot of `latency --api`: p50 and p99 per size and API.
pub fn latency_plot(r: &ApiLatencyReport) -> crate::plot::Plot {
    let groups: Vec<(String, Vec<(String, f64)>)> = r
        .results
        .iter()
        .map(|x| {
            let mut bars = Vec::new();
            for (name, s) in [("rust", &x.rust), ("c++", &x.cpp)] {
                if let Some(s) = s {
                    bars.push((format!("{name} p50"), s.p50_us));
                    bars.push((format!("{name} p99"), s.p99_us));
                }
            }
            (format!("{} B", x.payload_bytes), bars)
        })
        .collect();
    crate::plot::Plot::bars(
        "hlamesh-bench latency --api: update → reflect round trip",
        "µs",
        &groups,
    )
}

// ---- throughput ------------------------------------------------------------------------------

/// Options of `throughput --api`.
#[derive(Clone, Debug, Serialize)]
pub struct ApiThroughputOptions {
    /// Payload bytes.
    pub size: usize,
    /// Messages per block.
    pub messages: u64,
    /// Recorded blocks per API (after one warm-up block each).
    pub blocks: usize,
    /// CPU placement.
    pub pin: Pinning,
}

/// One API's one-way throughput, 1→1, reliable.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ApiRate {
    /// Receiver's messages/s per recorded block (first to last message).
    pub msgs_per_s_blocks: Vec<f64>,
    /// Their median.
    pub msgs_per_s: f64,
    /// Sender's messages/s (median).
    pub sender_msgs_per_s: f64,
    /// Fewest messages received in a block (of `messages`).
    pub received_min: u64,
}

/// `throughput --api` report.
#[derive(Clone, Debug, Serialize)]
pub struct ApiThroughputReport {
    /// "throughput --api".
    pub subcommand: String,
    /// Run description.
    pub run: ApiRun,
    /// Options.
    pub options: ApiThroughputOptions,
    /// Rust API.
    pub rust: Option<ApiRate>,
    /// C++ API.
    pub cpp: Option<ApiRate>,
    /// C++ / Rust receiver messages/s.
    pub ratio: f64,
}

fn receiver_rate(v: &serde_json::Value) -> (f64, u64) {
    let received = v["received"].as_u64().unwrap_or(0);
    let elapsed = v["elapsed_ns"].as_u64().unwrap_or(0) as f64 / 1e9;
    let rate = if elapsed > 0.0 && received > 1 {
        (received - 1) as f64 / elapsed
    } else {
        0.0
    };
    (rate, received)
}

fn rate_of(blocks: &[(f64, f64, u64)]) -> ApiRate {
    let recv: Vec<f64> = blocks.iter().map(|b| b.0).collect();
    let send: Vec<f64> = blocks.iter().map(|b| b.1).collect();
    ApiRate {
        msgs_per_s: median(&recv),
        sender_msgs_per_s: median(&send),
        received_min: blocks.iter().map(|b| b.2).min().unwrap_or(0),
        msgs_per_s_blocks: recv,
    }
}

/// Runs `throughput --api`.
pub fn throughput(
    placement: &Placement,
    apis: &[Api],
    cpp: Option<&CppFederate>,
    opts: &ApiThroughputOptions,
    command: String,
    timeout: Duration,
) -> Result<ApiThroughputReport, BenchError> {
    local_only(placement)?;
    let started = Instant::now();
    let mut run = ApiRun::new(command, apis, opts.pin, cpp);
    let step = Duration::from_secs(120).min(timeout);
    let mut session = Session::start(
        placement,
        Role::Sink,
        Level::Rti,
        1,
        step,
        timeout,
        opts.pin,
    )?;
    let mut pair = match cpp.filter(|_| apis.contains(&Api::Cpp)) {
        Some(c) => {
            let net = cpp_net(&session.net);
            let federation = format!("bench-cpp-{}", std::process::id());
            let cpu = |i: usize| session.cpus.get(i).copied().flatten();
            let sink = c.spawn("sink", &net, &federation, true, 1, cpu(1), timeout)?;
            let source = c.spawn("source", &net, &federation, false, 1, cpu(0), timeout)?;
            sink.wait_event("ready", step)?;
            source.wait_event("ready", step)?;
            Some((source, sink))
        }
        None => None,
    };
    let size = opts.size.max(wire::MIN_PAYLOAD);
    let (mut rust_b, mut cpp_b) = (Vec::new(), Vec::new());
    let mut block_no = 0u32;
    for round in 0..=opts.blocks {
        for &api in apis {
            if started.elapsed() > timeout {
                return Err(BenchError::Protocol(
                    "throughput --api exceeded --timeout-s".into(),
                ));
            }
            block_no += 1;
            let fig = match api {
                Api::Rust => {
                    let mut m = wire::message(
                        Header {
                            kind: Kind::Stream,
                            path: 0,
                            best_effort: false,
                            block: block_no,
                            index: 0,
                            sender: 0,
                        },
                        size,
                    );
                    let t0 = Instant::now();
                    for i in 0..opts.messages {
                        m[8..16].copy_from_slice(&i.to_be_bytes());
                        session.hl.send(Reliability::Reliable, &m)?;
                    }
                    session.hl.flush();
                    let send_rate = opts.messages as f64 / t0.elapsed().as_secs_f64().max(1e-9);
                    let peer = &mut session.peers[0];
                    peer.command(&format!("end 0 {block_no} {}", opts.messages))?;
                    let (rate, got) = receiver_rate(&peer.wait_event("block", step)?);
                    (rate, send_rate, got)
                }
                Api::Cpp => {
                    let Some((source, sink)) = pair.as_mut() else {
                        continue;
                    };
                    source.command(&format!(
                        "stream 0 {block_no} {} reliable {size} 0",
                        opts.messages
                    ))?;
                    let sent = source.wait_event("sent", step)?;
                    let ns = sent["elapsed_ns"].as_u64().unwrap_or(0) as f64 / 1e9;
                    let send_rate = opts.messages as f64 / ns.max(1e-9);
                    sink.command(&format!("end 0 {block_no} {}", opts.messages))?;
                    let (rate, got) = receiver_rate(&sink.wait_event("block", step)?);
                    (rate, send_rate, got)
                }
            };
            // Round 0 is the warm-up.
            if round > 0 {
                match api {
                    Api::Rust => rust_b.push(fig),
                    Api::Cpp => cpp_b.push(fig),
                }
            }
        }
    }
    drop(pair.take());
    drop(session);
    let rust = (!rust_b.is_empty()).then(|| rate_of(&rust_b));
    let cpp = (!cpp_b.is_empty()).then(|| rate_of(&cpp_b));
    let r = match (&rust, &cpp) {
        (Some(a), Some(b)) => ratio(b.msgs_per_s, a.msgs_per_s),
        _ => 0.0,
    };
    run.duration_s = started.elapsed().as_secs_f64();
    Ok(ApiThroughputReport {
        subcommand: "throughput --api".into(),
        run,
        options: opts.clone(),
        rust,
        cpp,
        ratio: r,
    })
}

/// Table of `throughput --api`.
pub fn throughput_table(r: &ApiThroughputReport) -> String {
    let mut s = format!(
        "one-way 1→1 reliable updates, {} B, {} per block; load {}\n{:>5}  {:>12} {:>12} {:>9}\n",
        r.options.size,
        r.options.messages,
        r.run.machine.loadavg,
        "api",
        "recv msg/s",
        "send msg/s",
        "recv min"
    );
    for (name, x) in [("rust", &r.rust), ("c++", &r.cpp)] {
        if let Some(x) = x {
            s += &format!(
                "{name:>5}  {:>12.0} {:>12.0} {:>9}\n",
                x.msgs_per_s, x.sender_msgs_per_s, x.received_min
            );
        }
    }
    s += &format!("c++/rust receiver msg/s: {:.3}\n", r.ratio);
    s
}

/// Plot of `throughput --api`.
pub fn throughput_plot(r: &ApiThroughputReport) -> crate::plot::Plot {
    let bars: Vec<(String, f64)> = [("rust", &r.rust), ("c++", &r.cpp)]
        .into_iter()
        .filter_map(|(n, x)| x.as_ref().map(|x| (n.to_string(), x.msgs_per_s)))
        .collect();
    crate::plot::Plot::bars(
        "hlamesh-bench throughput --api: one-way reliable updates",
        "msg/s",
        &[(format!("{} B", r.options.size), bars)],
    )
}

// ---- time ------------------------------------------------------------------------------------

/// Options of `time --api`.
#[derive(Clone, Debug, Serialize)]
pub struct ApiTimeOptions {
    /// Federate counts.
    pub federates: Vec<usize>,
    /// TAR steps per block.
    pub steps: u64,
    /// Recorded blocks per API.
    pub blocks: usize,
    /// CPU placement.
    pub pin: Pinning,
}

/// One federate count's lockstep TAR grants/s per federate.
#[derive(Clone, Debug, Serialize)]
pub struct ApiTimeResult {
    /// Federates.
    pub federates: usize,
    /// Rust: per block, the median over federates of grants/s.
    pub rust_blocks: Vec<f64>,
    /// C++: the same.
    pub cpp_blocks: Vec<f64>,
    /// Median over blocks, Rust.
    pub rust_grants_per_s: f64,
    /// Median over blocks, C++.
    pub cpp_grants_per_s: f64,
    /// C++ / Rust.
    pub ratio: f64,
    /// Grants at a time other than the one requested (must be 0).
    pub wrong_grants: u64,
}

/// `time --api` report.
#[derive(Clone, Debug, Serialize)]
pub struct ApiTimeReport {
    /// "time --api".
    pub subcommand: String,
    /// Run description.
    pub run: ApiRun,
    /// Options.
    pub options: ApiTimeOptions,
    /// One per federate count.
    pub results: Vec<ApiTimeResult>,
}

/// Sends `cmd` to every federate and returns the median over them of grants/s.
fn tar_block(procs: &mut [PeerProc], cmd: &str, step: Duration) -> Result<(f64, u64), BenchError> {
    for p in procs.iter_mut() {
        p.command(cmd)?;
    }
    let mut rates = Vec::new();
    let mut wrong = 0;
    for p in procs.iter() {
        let v = p.wait_event("phase", step)?;
        // Rust federates answer with a PhaseReport under "report", C++ ones inline.
        let r = if v["report"].is_object() {
            &v["report"]
        } else {
            &v
        };
        let grants = r["grants"].as_f64().unwrap_or(0.0);
        let secs = r["secs"].as_f64().unwrap_or(0.0);
        wrong += r["wrong_grants"].as_u64().unwrap_or(0)
            + r["violations"].as_array().map_or(0, |a| a.len() as u64);
        rates.push(if secs > 0.0 { grants / secs } else { 0.0 });
    }
    Ok((median(&rates), wrong))
}

/// Runs `time --api`: TAR lockstep (regulating with lookahead 1 and constrained, evoked
/// callbacks, no updates) of N federates per API.
pub fn time(
    placement: &Placement,
    apis: &[Api],
    cpp: Option<&CppFederate>,
    opts: &ApiTimeOptions,
    command: String,
    timeout: Duration,
) -> Result<ApiTimeReport, BenchError> {
    local_only(placement)?;
    let started = Instant::now();
    let mut run = ApiRun::new(command, apis, opts.pin, cpp);
    let step = Duration::from_secs(120).min(timeout);
    let mut results = Vec::new();
    for &n in &opts.federates {
        let n = n.max(2);
        let net = NetParams::for_run(placement.addr(1)?, placement.ttl());
        let (_, cpus) = crate::cpus::for_processes(opts.pin, true, n)?;
        let mut rust_procs = Vec::new();
        if apis.contains(&Api::Rust) {
            let federation = format!("bench-time-{}-{n}", std::process::id());
            for (k, cpu) in cpus.iter().enumerate() {
                let mut args = net.to_args();
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
                        "evoked",
                        "--timeout-s",
                        &timeout.as_secs().max(1).to_string(),
                    ]
                    .map(str::to_string),
                );
                if let Some(cpu) = cpu {
                    args.extend(["--cpu".to_string(), cpu.to_string()]);
                }
                rust_procs.push(placement.spawn_peer(k, &args)?);
            }
        }
        let mut cpp_procs = Vec::new();
        if let Some(c) = cpp.filter(|_| apis.contains(&Api::Cpp)) {
            let cnet = cpp_net(&net);
            let federation = format!("bench-cpp-time-{}-{n}", std::process::id());
            for (k, cpu) in cpus.iter().enumerate() {
                cpp_procs.push(c.spawn(
                    "time",
                    &cnet,
                    &federation,
                    k == 0,
                    n - 1,
                    *cpu,
                    timeout,
                )?);
            }
        }
        for p in rust_procs.iter().chain(&cpp_procs) {
            p.wait_event("ready", step)?;
        }
        let (mut rust_blocks, mut cpp_blocks, mut wrong) = (Vec::new(), Vec::new(), 0);
        for round in 0..=opts.blocks {
            for &api in apis {
                if started.elapsed() > timeout {
                    return Err(BenchError::Protocol(
                        "time --api exceeded --timeout-s".into(),
                    ));
                }
                let (procs, cmd) = match api {
                    Api::Rust => (&mut rust_procs, format!("tar {} 10", opts.steps)),
                    Api::Cpp => (&mut cpp_procs, format!("tar {}", opts.steps)),
                };
                if procs.is_empty() {
                    continue;
                }
                let (rate, w) = tar_block(procs, &cmd, step)?;
                wrong += w;
                // Round 0 is the warm-up.
                if round > 0 {
                    match api {
                        Api::Rust => rust_blocks.push(rate),
                        Api::Cpp => cpp_blocks.push(rate),
                    }
                }
            }
        }
        drop(cpp_procs);
        drop(rust_procs);
        let (r, c) = (median(&rust_blocks), median(&cpp_blocks));
        results.push(ApiTimeResult {
            federates: n,
            rust_grants_per_s: r,
            cpp_grants_per_s: c,
            ratio: ratio(c, r),
            rust_blocks,
            cpp_blocks,
            wrong_grants: wrong,
        });
    }
    run.duration_s = started.elapsed().as_secs_f64();
    Ok(ApiTimeReport {
        subcommand: "time --api".into(),
        run,
        options: opts.clone(),
        results,
    })
}

/// Table of `time --api`.
pub fn time_table(r: &ApiTimeReport) -> String {
    let mut s = format!(
        "lockstep TAR grants/s per federate (evoked callbacks, lookahead 1); load {}\n{:>3}  {:>10} {:>10} {:>9} {:>6}\n",
        r.run.machine.loadavg, "N", "rust", "c++", "c++/rust", "wrong"
    );
    for x in &r.results {
        s += &format!(
            "{:>3}  {:>10.0} {:>10.0} {:>9.3} {:>6}\n",
            x.federates, x.rust_grants_per_s, x.cpp_grants_per_s, x.ratio, x.wrong_grants
        );
    }
    s
}

/// Plot of `time --api`.
pub fn time_plot(r: &ApiTimeReport) -> crate::plot::Plot {
    let groups: Vec<(String, Vec<(String, f64)>)> = r
        .results
        .iter()
        .map(|x| {
            (
                format!("N = {}", x.federates),
                vec![
                    ("rust".to_string(), x.rust_grants_per_s),
                    ("c++".to_string(), x.cpp_grants_per_s),
                ],
            )
        })
        .collect();
    crate::plot::Plot::bars(
        "hlamesh-bench time --api: lockstep TAR grants/s per federate",
        "grants/s",
        &groups,
    )
}
