//! `hlamesh-bench`: see `benches/README.md`.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use hlamesh_benches::BenchError;
use hlamesh_benches::api::{self, Api, CppFederate};
use hlamesh_benches::cpus::Pinning;
use hlamesh_benches::ddm::{self, DdmOptions};
use hlamesh_benches::latency::{self, LatencyOptions};
use hlamesh_benches::net::NetParams;
use hlamesh_benches::peer::{self, Role};
use hlamesh_benches::placement::{LabGuard, Placement, default_lab_script};
use hlamesh_benches::report;
use hlamesh_benches::scale::{self, ScaleOptions};
use hlamesh_benches::session::Level;
use hlamesh_benches::throughput::{self, ThroughputOptions};
use hlamesh_benches::time::{self, TimeOptions};

#[derive(Parser, Debug)]
#[command(about = "hlamesh latency and throughput, each next to raw UDP multicast in the same run")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Ping-pong round trips (HDR percentiles), hlamesh vs raw UDP multicast.
    Latency {
        #[command(flatten)]
        place: Place,
        #[command(flatten)]
        api: ApiArgs,
        /// hlamesh level: rti (update → reflect through the RTI API) or transport.
        #[arg(long, value_enum, default_value = "rti")]
        level: Level,
        /// Payload sizes in bytes.
        #[arg(long, value_delimiter = ',', default_value = "100,1024,8192")]
        sizes: Vec<usize>,
        /// hlamesh reliabilities: reliable, best-effort.
        #[arg(long, value_delimiter = ',', default_value = "reliable,best-effort")]
        reliability: Vec<String>,
        /// Recorded round trips per path and configuration.
        #[arg(long, default_value_t = 5000)]
        samples: usize,
        /// Round trips per block (the paths alternate every block).
        #[arg(long, default_value_t = 250)]
        block: usize,
        /// Unrecorded warm-up round trips per path and configuration.
        #[arg(long, default_value_t = 250)]
        warmup: usize,
        /// hlamesh automatic batching (on, off); ping-pong should never trigger it.
        #[arg(long, default_value = "on")]
        batching: String,
        /// CPU placement on one machine: split (driver and peer on two CPUs), shared (one CPU)
        /// or free (unpinned; the scheduler's choice decides much of the round trip).
        #[arg(long, value_enum, default_value = "free")]
        pin: Pinning,
    },
    /// One-way messages/s and MB/s, 1→1, 1→N and N→1, batching on and off, vs raw UDP multicast.
    Throughput {
        #[command(flatten)]
        place: Place,
        #[command(flatten)]
        api: ApiArgs,
        /// hlamesh level: rti (update → reflect through the RTI API) or transport.
        #[arg(long, value_enum, default_value = "rti")]
        level: Level,
        /// Receiver counts of the 1→N fan-out (`--fanout` with no count: no fan-out run).
        #[arg(long, value_delimiter = ',', num_args = 0.., default_value = "1,2")]
        fanout: Vec<usize>,
        /// Sender counts of the N→1 fan-in: N sender processes, the driver receiving
        /// (`--fanin` with no count: no fan-in run).
        #[arg(long, value_delimiter = ',', num_args = 0.., default_value = "2")]
        fanin: Vec<usize>,
        /// hlamesh batching settings: on, off (transport level only; the RTI level always runs
        /// with the LRC's automatic batching).
        #[arg(long, value_delimiter = ',', default_value = "on,off")]
        batching: Vec<String>,
        /// hlamesh reliabilities: reliable, best-effort.
        #[arg(long, value_delimiter = ',', default_value = "reliable")]
        reliability: Vec<String>,
        /// Payload bytes.
        #[arg(long, default_value_t = 100)]
        size: usize,
        /// Messages per block (per sender in the N→1 fan-in).
        #[arg(long, default_value_t = 200_000)]
        messages: u64,
        /// Recorded blocks per path and configuration (after one warm-up block).
        #[arg(long, default_value_t = 3)]
        blocks: usize,
        /// CPU placement on one machine: split (the driver on the first CPU, peer k on the
        /// k + 1-th, round robin), shared (all on one CPU) or free (unpinned).
        #[arg(long, value_enum, default_value = "free")]
        pin: Pinning,
    },
    /// Lockstep TAR (with and without one timestamped update per step) and all-NER runs of N
    /// federate processes: grants/s and control messages per grant, vs raw UDP barrier rounds.
    Time {
        #[command(flatten)]
        place: Place,
        #[command(flatten)]
        api: ApiArgs,
        /// Federate counts.
        #[arg(long, value_delimiter = ',', default_value = "2,4")]
        federates: Vec<usize>,
        /// Steps per TAR phase (and rounds per raw barrier phase).
        #[arg(long, default_value_t = 2000)]
        steps: u64,
        /// Events per federate in the NER phase.
        #[arg(long, default_value_t = 300)]
        ner_events: u64,
        /// Logical time between consecutive events of the NER phase (lookahead is 1).
        #[arg(long, default_value_t = 10.0)]
        ner_gap: f64,
        /// Blocks (each runs raw, TAR, TAR + update, NER once).
        #[arg(long, default_value_t = 3)]
        blocks: usize,
        /// Federates' callback model: evoked (the federate's main thread waits for its grants
        /// in `evoke_callback`, receiving meanwhile) or immediate (grants arrive on the LRC's
        /// receive thread; the bench hands them to the main thread).
        #[arg(long, default_value = "evoked", value_parser = ["immediate", "evoked"])]
        callbacks: String,
        /// CPU placement on one machine: split (federate k on the k-th CPU, round robin),
        /// shared (all on one CPU) or free (unpinned).
        #[arg(long, value_enum, default_value = "free")]
        pin: Pinning,
    },
    /// Round trip to the slowest of N − 1 echoing peers and CPU per node as nodes are added,
    /// hlamesh vs raw UDP multicast with the same fan-out.
    Scale {
        #[command(flatten)]
        place: Place,
        /// hlamesh level: rti (update → reflect through the RTI API) or transport.
        #[arg(long, value_enum, default_value = "rti")]
        level: Level,
        /// Node counts (driver included); default 2, 3, 4 on loopback, 2..=N in a lab of N.
        #[arg(long, value_delimiter = ',')]
        nodes: Vec<usize>,
        /// Recorded round trips per path and node count.
        #[arg(long, default_value_t = 2000)]
        samples: usize,
        /// Round trips per block (the paths alternate every block).
        #[arg(long, default_value_t = 250)]
        block: usize,
        /// Unrecorded warm-up round trips per path and node count.
        #[arg(long, default_value_t = 200)]
        warmup: usize,
        /// Payload bytes (reliable updates).
        #[arg(long, default_value_t = 100)]
        size: usize,
        /// CPU placement on one machine: split (the driver on the first CPU, peer k on the
        /// k + 1-th, round robin), shared (all on one CPU) or free (unpinned).
        #[arg(long, value_enum, default_value = "free")]
        pin: Pinning,
    },
    /// DDM cell groups (issue 23): P publishers move E entities with update regions over the
    /// plane, one subscriber watches a fraction f of it; datagrams received, CPU per relevant
    /// update and update → reflect latency against the same run without regions, and the
    /// cell-group joins of a moving subscription region.
    Ddm {
        #[command(flatten)]
        place: Place,
        /// Publisher processes.
        #[arg(long, default_value_t = 2)]
        publishers: usize,
        /// Entities in all (spread over the publishers).
        #[arg(long, default_value_t = 64)]
        entities: usize,
        /// Updates per entity per second (best effort, evenly paced).
        #[arg(long, default_value_t = 20.0)]
        rate: f64,
        /// Measured seconds per run.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Unmeasured seconds of traffic before each run.
        #[arg(long, default_value_t = 1.0)]
        warmup: f64,
        /// Fraction of the plane the subscription region covers (a square).
        #[arg(long, default_value_t = 0.0625)]
        fraction: f64,
        /// Half the side of an entity's update region (the plane is 1000 × 1000).
        #[arg(long, default_value_t = 10)]
        radius: u64,
        /// Entity speed, units per second (its update region is committed again every
        /// radius / 2 it moves: announced to the cells it leaves and enters).
        #[arg(long, default_value_t = 10.0)]
        speed: f64,
        /// Seed of the entities' start positions and headings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the run with the subscription region half a cell off the grid.
        #[arg(long)]
        no_unaligned: bool,
        /// Run the baseline (no regions) first instead of last.
        #[arg(long)]
        baseline_first: bool,
        /// Seconds of the moving-subscription phase (0: none).
        #[arg(long, default_value_t = 4.0)]
        move_seconds: f64,
        /// Speed of the moving subscription region, units per second.
        #[arg(long, default_value_t = 250.0)]
        move_speed: f64,
        /// Region moves (commits) per second while moving.
        #[arg(long, default_value_t = 20.0)]
        move_hz: f64,
        /// Update the reliable `Track` (X, Y) instead of the best-effort `Position`: reliable
        /// updates on the cell groups, with the transport's chained positions.
        #[arg(long)]
        reliable: bool,
    },
    /// The other machine's side of `--peer`: starts a peer process for every driver connection.
    Serve {
        /// TCP address to accept drivers on.
        #[arg(long, default_value = "0.0.0.0:7400")]
        listen: std::net::SocketAddr,
        /// This machine's interface address on the network shared with the driver.
        #[arg(long)]
        interface: Ipv4Addr,
        /// At most this many peer processes at a time.
        #[arg(long, default_value_t = 16)]
        max_peers: usize,
    },
    /// Internal: a peer process started by the driver.
    #[command(hide = true)]
    Peer {
        #[arg(long, value_enum)]
        role: Role,
        #[arg(long, value_enum, default_value = "rti")]
        level: Level,
        #[arg(long)]
        interface: Ipv4Addr,
        #[arg(long)]
        ttl: u32,
        #[arg(long)]
        discovery_port: u16,
        #[arg(long)]
        data_port: u16,
        #[arg(long)]
        discovery_group: Ipv4Addr,
        #[arg(long)]
        raw_port: u16,
        #[arg(long)]
        raw_group: Ipv4Addr,
        #[arg(long)]
        federation: String,
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
        /// Time role: this federate's index (0 creates the federation).
        #[arg(long, default_value_t = 0)]
        index: u32,
        /// Time role: federates in the run.
        #[arg(long, default_value_t = 2)]
        federates: usize,
        /// Time role: only join (and resign), printing the join time.
        #[arg(long)]
        join_only: bool,
        /// Time role: callback model.
        #[arg(long, default_value = "immediate", value_parser = ["immediate", "evoked"])]
        callbacks: String,
        /// Pin this process to one CPU (the latency driver's `--pin`).
        #[arg(long)]
        cpu: Option<usize>,
    },
}

#[derive(Args, Debug, Clone)]
struct Place {
    /// Processes on loopback; the bench spawns itself as the peer(s) (the default).
    #[arg(long, conflicts_with = "lab")]
    local: bool,
    /// A lab of N network namespaces (deploy/lab/lab.sh, needs root): driver on host 1.
    #[arg(long, value_name = "N")]
    lab: Option<usize>,
    /// Path of lab.sh.
    #[arg(long)]
    lab_script: Option<PathBuf>,
    /// Real machines: peer processes run where `hlamesh-bench serve` listens at ADDR (ip:port;
    /// several, comma-separated: peer k goes to the k-th modulo their number); needs --interface.
    #[arg(long, value_name = "ADDR", value_delimiter = ',', conflicts_with_all = ["lab", "local"], requires = "interface")]
    peer: Vec<std::net::SocketAddr>,
    /// With --peer: this machine's interface address on the network shared with the peer.
    #[arg(long)]
    interface: Option<Ipv4Addr>,
    /// Output JSON file (the SVG and PNG plots go next to it); default `bench-out/<subcommand>.json`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Bound on the whole run, seconds.
    #[arg(long, default_value_t = 600)]
    timeout_s: u64,
    /// With --lab: drop this percent of the datagrams entering the peer hosts on the hlamesh
    /// data port and the raw UDP port (latency, throughput, scale; QUIC and discovery unaffected).
    #[arg(long, default_value_t = 0, requires = "lab", value_parser = clap::value_parser!(u8).range(0..=100))]
    loss: u8,
    /// Internal: already inside lab PREFIX (set by the outer process).
    #[arg(long, hide = true)]
    in_lab: Option<String>,
}

#[derive(Args, Debug, Clone)]
struct ApiArgs {
    /// API of the RTI-level federates: rust, cpp, or rust,cpp (both, blocks interleaved, for
    /// the C++/Rust ratios; with cpp: --local, reliable updates, see benches/README.md).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "rust")]
    api: Vec<Api>,
    /// With --api cpp: an SDK installed by deploy/install-sdk.sh PREFIX, instead of installing
    /// one into `cpp-sdk/sdk` next to the output file.
    #[arg(long, value_name = "PREFIX")]
    sdk: Option<PathBuf>,
}

impl ApiArgs {
    /// True when the C++ API is measured (the `--api` comparison runs instead of the usual one).
    fn cpp(&self) -> bool {
        self.api.contains(&Api::Cpp)
    }

    /// Builds the C++ bench federate into `cpp-sdk/` next to `out`.
    fn build(&self, out: &std::path::Path) -> Result<CppFederate, BenchError> {
        let dir = out
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."))
            .join("cpp-sdk");
        CppFederate::build(&dir, self.sdk.as_deref())
    }
}

fn on_off(v: &[String]) -> Result<Vec<bool>, BenchError> {
    v.iter()
        .map(|s| match s.as_str() {
            "on" => Ok(true),
            "off" => Ok(false),
            other => Err(BenchError::Protocol(format!(
                "--batching {other:?}: use on or off"
            ))),
        })
        .collect()
}

fn require_rti(level: Level) -> Result<(), BenchError> {
    match level {
        Level::Rti => Ok(()),
        Level::Transport => Err(BenchError::Protocol(
            "--api cpp measures the RTI level (the C++ API has no transport level)".into(),
        )),
    }
}

fn check_rel(v: &[String]) -> Result<(), BenchError> {
    match v.iter().find(|r| *r != "reliable" && *r != "best-effort") {
        Some(r) => Err(BenchError::Protocol(format!(
            "--reliability {r:?}: use reliable or best-effort"
        ))),
        None => Ok(()),
    }
}

/// In lab mode without `--in-lab`: build the lab, re-run this command on host 1, tear down.
fn run_in_lab(place: &Place, hosts: usize) -> Result<ExitCode, BenchError> {
    let script = place.lab_script.clone().unwrap_or_else(default_lab_script);
    let lab = LabGuard::up(script, hosts)?;
    let exe = std::env::current_exe().map_err(BenchError::io("find own executable"))?;
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    args.extend(["--in-lab".to_string(), lab.prefix.clone()]);
    if place.lab_script.is_none() {
        args.extend(["--lab-script".to_string(), lab.script.display().to_string()]);
    }
    let status = lab
        .command(1, &exe)?
        .args(&args)
        .status()
        .map_err(BenchError::io("run the driver in the lab"))?;
    drop(lab);
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn placement(place: &Place) -> Placement {
    if let (false, Some(interface)) = (place.peer.is_empty(), place.interface) {
        return Placement::Peer {
            controls: place.peer.clone(),
            interface,
        };
    }
    match (&place.in_lab, place.lab) {
        (Some(prefix), Some(hosts)) => Placement::Lab {
            loss: place.loss,
            prefix: prefix.clone(),
            hosts,
            script: place.lab_script.clone().unwrap_or_else(default_lab_script),
        },
        _ => Placement::Local,
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HLAMESH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hlamesh-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, BenchError> {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    match cli.cmd {
        Cmd::Peer {
            role,
            level,
            interface,
            ttl,
            discovery_port,
            data_port,
            discovery_group,
            raw_port,
            raw_group,
            federation,
            timeout_s,
            index,
            federates,
            callbacks,
            join_only,
            cpu,
        } => {
            // Before anything starts a thread: they all inherit it.
            if let Some(cpu) = cpu {
                hlamesh_benches::cpus::pin_to(cpu)?;
            }
            let net = NetParams {
                interface,
                ttl,
                discovery_port,
                data_port,
                discovery_group,
                raw_port,
                raw_group,
            };
            let timeout = Duration::from_secs(timeout_s);
            if role == Role::DdmPublisher {
                hlamesh_benches::ddm::publisher(&net, &federation, timeout)?;
            } else if role == Role::Time {
                time::federate(
                    &net,
                    &federation,
                    index,
                    federates,
                    callbacks == "evoked",
                    join_only,
                    timeout,
                )?;
            } else {
                peer::run(role, level, &net, &federation, timeout)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Latency {
            place,
            api,
            level,
            sizes,
            reliability,
            samples,
            block,
            warmup,
            batching,
            pin,
        } => {
            check_rel(&reliability)?;
            let batching = on_off(std::slice::from_ref(&batching))?[0];
            if api.cpp() {
                require_rti(level)?;
                let out = place
                    .out
                    .clone()
                    .unwrap_or_else(|| report::default_out("latency-api"));
                let cpp = api.build(&out)?;
                let opts = api::ApiLatencyOptions {
                    sizes,
                    samples,
                    block,
                    warmup,
                    pin,
                };
                let r = api::latency(
                    &placement(&place),
                    &api.api,
                    Some(&cpp),
                    &opts,
                    command,
                    Duration::from_secs(place.timeout_s),
                )?;
                print!("{}", api::latency_table(&r));
                let plots = report::write_outputs(&out, &r, &api::latency_plot(&r))?;
                println!("wrote {}, {plots}", out.display());
                return Ok(ExitCode::SUCCESS);
            }
            if let (Some(hosts), None) = (place.lab, &place.in_lab) {
                return run_in_lab(&place, hosts);
            }
            let opts = LatencyOptions {
                level,
                sizes,
                reliabilities: reliability,
                samples,
                block,
                warmup,
                batching,
                pin,
            };
            let r = latency::run(
                &placement(&place),
                &opts,
                command,
                Duration::from_secs(place.timeout_s),
            )?;
            print!("{}", latency::table(&r));
            let out = place.out.unwrap_or_else(|| report::default_out("latency"));
            let plots = report::write_outputs(&out, &r, &latency::plot(&r))?;
            println!("wrote {}, {plots}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Ddm {
            place,
            publishers,
            entities,
            rate,
            seconds,
            warmup,
            fraction,
            radius,
            speed,
            seed,
            no_unaligned,
            baseline_first,
            move_seconds,
            move_speed,
            move_hz,
            reliable,
        } => {
            if let (Some(hosts), None) = (place.lab, &place.in_lab) {
                return run_in_lab(&place, hosts);
            }
            let opts = DdmOptions {
                publishers,
                entities,
                rate_hz: rate,
                seconds,
                warmup_s: warmup,
                fraction,
                radius,
                speed,
                seed,
                unaligned: !no_unaligned,
                baseline_first,
                move_seconds,
                move_speed,
                move_hz,
                reliable,
            };
            let r = ddm::run(
                &placement(&place),
                &opts,
                command,
                Duration::from_secs(place.timeout_s),
            )?;
            print!("{}", ddm::table(&r));
            let out = place.out.unwrap_or_else(|| report::default_out("ddm"));
            let plots = report::write_outputs(&out, &r, &ddm::plot(&r))?;
            println!("wrote {}, {plots}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Serve {
            listen,
            interface,
            max_peers,
        } => {
            hlamesh_benches::serve::serve(listen, interface, max_peers)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Scale {
            place,
            level,
            nodes,
            samples,
            block,
            warmup,
            size,
            pin,
        } => {
            if let (Some(hosts), None) = (place.lab, &place.in_lab) {
                return run_in_lab(&place, hosts);
            }
            let nodes = if nodes.is_empty() {
                match place.lab {
                    Some(hosts) => (2..=hosts.max(2)).collect(),
                    None => vec![2, 3, 4],
                }
            } else {
                nodes
            };
            let opts = ScaleOptions {
                level,
                nodes,
                samples,
                block,
                warmup,
                size,
                pin,
            };
            let r = scale::run(
                &placement(&place),
                &opts,
                command,
                Duration::from_secs(place.timeout_s),
            )?;
            print!("{}", scale::table(&r));
            let out = place.out.unwrap_or_else(|| report::default_out("scale"));
            let plots = report::write_outputs(&out, &r, &scale::plot(&r))?;
            println!("wrote {}, {plots}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Time {
            place,
            api,
            federates,
            steps,
            ner_events,
            ner_gap,
            blocks,
            callbacks,
            pin,
        } => {
            if let (Some(hosts), None) = (place.lab, &place.in_lab) {
                return run_in_lab(&place, hosts);
            }
            if api.cpp() {
                let out = place
                    .out
                    .clone()
                    .unwrap_or_else(|| report::default_out("time-api"));
                let cpp = api.build(&out)?;
                let opts = api::ApiTimeOptions {
                    federates,
                    steps,
                    blocks,
                    pin,
                };
                let r = api::time(
                    &placement(&place),
                    &api.api,
                    Some(&cpp),
                    &opts,
                    command,
                    Duration::from_secs(place.timeout_s),
                )?;
                print!("{}", api::time_table(&r));
                let plots = report::write_outputs(&out, &r, &api::time_plot(&r))?;
                println!("wrote {}, {plots}", out.display());
                return Ok(ExitCode::SUCCESS);
            }
            let opts = TimeOptions {
                federates,
                steps,
                ner_events,
                ner_gap,
                blocks,
                callbacks,
                pin,
            };
            let r = time::run(
                &placement(&place),
                &opts,
                command,
                Duration::from_secs(place.timeout_s),
            )?;
            print!("{}", time::table(&r));
            let out = place.out.unwrap_or_else(|| report::default_out("time"));
            let plots = report::write_outputs(&out, &r, &time::plot(&r))?;
            println!("wrote {}, {plots}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Throughput {
            place,
            api,
            level,
            fanout,
            fanin,
            batching,
            reliability,
            size,
            messages,
            blocks,
            pin,
        } => {
            check_rel(&reliability)?;
            let mut batching = on_off(&batching)?;
            if level == Level::Rti {
                // The RTI API has no batching switch: the LRC batches automatically under load.
                batching = vec![true];
            }
            if let (Some(hosts), None) = (place.lab, &place.in_lab) {
                return run_in_lab(&place, hosts);
            }
            if api.cpp() {
                require_rti(level)?;
                let out = place
                    .out
                    .clone()
                    .unwrap_or_else(|| report::default_out("throughput-api"));
                let cpp = api.build(&out)?;
                let opts = api::ApiThroughputOptions {
                    size: size.max(hlamesh_benches::wire::MIN_PAYLOAD),
                    messages,
                    blocks,
                    pin,
                };
                let r = api::throughput(
                    &placement(&place),
                    &api.api,
                    Some(&cpp),
                    &opts,
                    command,
                    Duration::from_secs(place.timeout_s),
                )?;
                print!("{}", api::throughput_table(&r));
                let plots = report::write_outputs(&out, &r, &api::throughput_plot(&r))?;
                println!("wrote {}, {plots}", out.display());
                return Ok(ExitCode::SUCCESS);
            }
            let opts = ThroughputOptions {
                level,
                fanouts: fanout,
                fanins: fanin,
                batching,
                reliabilities: reliability,
                size: size.max(hlamesh_benches::wire::MIN_PAYLOAD),
                messages,
                blocks,
                pin,
            };
            let r = throughput::run(
                &placement(&place),
                &opts,
                command,
                Duration::from_secs(place.timeout_s),
            )?;
            print!("{}", throughput::table(&r));
            let out = place
                .out
                .unwrap_or_else(|| report::default_out("throughput"));
            let plots = report::write_outputs(&out, &r, &throughput::plot(&r))?;
            println!("wrote {}, {plots}", out.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}
