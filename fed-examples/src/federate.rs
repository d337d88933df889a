//! What every example federate shares: command-line options, the engine configuration built
//! from them, the engine-status object, and the summary printed at the end (one JSON line with
//! `"event": "summary"`).

use std::path::PathBuf;
use std::time::Duration;

use hlamesh_engine::{
    Ctx, Engine, EngineConfig, EngineError, EngineReport, Pace, Role, Simulation, TimeScheme,
};
use hlamesh_lrc::encoding::DataElement;
use hlamesh_lrc::handles::ObjectInstanceHandle;
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::TransportConfig;

use crate::fom::Handles;

/// Options every federate binary takes.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Federation execution name.
    #[arg(long, default_value = "hlamesh-demo")]
    pub federation: String,
    /// Federate name (unique in the federation).
    #[arg(long)]
    pub name: Option<String>,
    /// Run as fast as possible instead of real time.
    #[arg(long)]
    pub afap: bool,
    /// Real-time scale factor (2.0 = twice as fast as the wall clock).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// How long to retry joining (slaves) or wait for the expected federates (commander).
    #[arg(long, default_value_t = 15_000)]
    pub join_timeout_ms: u64,
    /// How long to wait for a synchronization point or a grant.
    #[arg(long, default_value_t = 60_000)]
    pub sync_timeout_ms: u64,
    /// Where local saves go.
    #[arg(long)]
    pub state_dir: Option<PathBuf>,
    /// Network interface address (default: HLAMESH_INTERFACE, else loopback).
    #[arg(long)]
    pub interface: Option<std::net::Ipv4Addr>,
    /// Multicast TTL (0 = this machine, 1 = the LAN).
    #[arg(long)]
    pub ttl: Option<u32>,
    /// Discovery port.
    #[arg(long)]
    pub discovery_port: Option<u16>,
    /// Data port.
    #[arg(long)]
    pub data_port: Option<u16>,
    /// Discovery multicast group.
    #[arg(long)]
    pub discovery_group: Option<std::net::Ipv4Addr>,
}

impl CommonArgs {
    /// The pace the options ask for.
    pub fn pace(&self) -> Pace {
        if self.afap {
            Pace::AsFastAsPossible
        } else {
            Pace::RealTime { scale: self.scale }
        }
    }

    /// An engine configuration: `lookahead` = regulating with it.
    pub fn config(
        &self,
        default_name: &str,
        federate_type: &str,
        scheme: TimeScheme,
        lookahead: Option<f64>,
        constrained: bool,
    ) -> EngineConfig {
        let name = self.name.as_deref().unwrap_or(default_name);
        let mut cfg = EngineConfig::new(&self.federation, name, federate_type);
        cfg.role = Role::Slave;
        cfg.scheme = scheme;
        cfg.lookahead = lookahead;
        cfg.constrained = constrained;
        cfg.join_timeout = Duration::from_millis(self.join_timeout_ms);
        cfg.sync_timeout = Duration::from_millis(self.sync_timeout_ms);
        cfg.grant_timeout = Duration::from_millis(self.sync_timeout_ms);
        if let Some(d) = &self.state_dir {
            cfg.state_dir = d.clone();
        }
        cfg
    }

    /// The LRC these options describe: `None` when no network option was given (the engine
    /// then uses the process-wide LRC configured from `HLAMESH_*`).
    pub fn lrc(&self) -> Result<Option<Lrc>, String> {
        if self.interface.is_none()
            && self.ttl.is_none()
            && self.discovery_port.is_none()
            && self.data_port.is_none()
            && self.discovery_group.is_none()
        {
            return Ok(None);
        }
        let mut cfg = TransportConfig::default();
        cfg.apply_env().map_err(|e| e.to_string())?;
        if let Some(i) = self.interface {
            cfg.interface = i;
            // Development security off loopback is for a trusted lab network only.
            if let hlamesh_transport::SecurityConfig::Development {
                allow_non_loopback, ..
            } = &mut cfg.security
            {
                *allow_non_loopback = !i.is_loopback();
            }
        }
        if let Some(t) = self.ttl {
            cfg.multicast_ttl = t;
        }
        if let Some(p) = self.discovery_port {
            cfg.discovery_port = p;
        }
        if let Some(p) = self.data_port {
            cfg.data_port = p;
        }
        if let Some(g) = self.discovery_group {
            cfg.discovery_group = g;
        }
        Lrc::start(cfg).map(Some).map_err(|e| e.to_string())
    }
}

/// An example federate: a simulation that can describe its results.
pub trait Example: Simulation {
    /// Federate-specific results for the summary line.
    fn summary(&self) -> serde_json::Value;
}

/// Logs go to stderr (`HLAMESH_LOG`, default `warn`), so stdout stays the summary channel.
pub fn init_logging() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HLAMESH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
}

/// The summary of one engine's run as JSON.
pub fn summary_json(
    name: &str,
    report: &EngineReport,
    extra: serde_json::Value,
) -> serde_json::Value {
    let s = &report.stats;
    serde_json::json!({
        "event": "summary",
        "name": name,
        "state": report.state.name(),
        "final_state": report.state.to_string(),
        "history": report.history.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
        "frames": s.frames,
        "run_frames": s.run_frames,
        "grants": s.grants,
        "overruns": s.overruns,
        "worst_overrun_ms": s.worst_overrun_ns as f64 / 1e6,
        "updates_sent": s.updates_sent,
        "interactions_sent": s.interactions_sent,
        "reflections_applied": s.reflections_applied,
        "interactions_applied": s.interactions_applied,
        "saves": s.saves,
        "restores": s.restores,
        "missing": s.missing,
        "final_time": s.final_time,
        "run_start_time": s.run_start_time,
        "entered_unix_ms": s.entered_unix_ms,
        "queue_merged": report.queue.merged,
        "queue_dropped": report.queue.dropped,
        "queue_high_water": report.queue.high_water,
        "extra": extra,
    })
}

/// Runs an example to End or Fail, prints its summary line, returns the exit code. `args`
/// supply the LRC (network options).
pub fn run<S: Example>(args: &CommonArgs, mut cfg: EngineConfig, sim: S) -> i32 {
    let name = cfg.federate_name.clone();
    match args.lrc() {
        Ok(l) => cfg.lrc = l,
        Err(e) => {
            let json = serde_json::json!({"event": "summary", "name": name, "state": "Fail",
                "final_state": format!("Fail(LRC: {e})")});
            println!("{json}");
            return 1;
        }
    }
    let mut engine = Engine::new(cfg, sim);
    let report = engine.run();
    let json = summary_json(&name, &report, engine.simulation().summary());
    println!("{json}");
    if report.state.name() == "End" {
        0
    } else {
        eprintln!("{name}: {}", report.state);
        1
    }
}

/// The federate's `EngineStatus` object, updated when its state changes and every `every`
/// frames.
#[derive(Debug, Default)]
pub struct StatusObject {
    object: Option<ObjectInstanceHandle>,
    last: String,
}

impl StatusObject {
    /// Publishes the class (call in `on_join`).
    pub fn declare(ctx: &mut Ctx<'_>, h: &Handles) -> Result<(), EngineError> {
        ctx.rti()
            .publish_object_class_attributes(h.status, &[h.state, h.frames])
            .map_err(|source| EngineError::Rti {
                context: "publish EngineStatus".into(),
                source,
            })
    }

    /// Registers the object (call in `on_load`).
    pub fn register(&mut self, ctx: &mut Ctx<'_>, h: &Handles) -> Result<(), EngineError> {
        self.object = Some(
            ctx.rti()
                .register_object_instance(h.status)
                .map_err(|source| EngineError::Rti {
                    context: "register EngineStatus".into(),
                    source,
                })?,
        );
        Ok(())
    }

    /// Sends the state when it changed, or when `force`.
    pub fn update(
        &mut self,
        ctx: &mut Ctx<'_>,
        h: &Handles,
        force: bool,
    ) -> Result<(), EngineError> {
        let Some(o) = self.object else {
            return Ok(());
        };
        let state = ctx.state().name().to_string();
        if !force && state == self.last {
            return Ok(());
        }
        let frames = i64::try_from(ctx.stats().frames).unwrap_or(i64::MAX);
        ctx.rti()
            .update_attribute_values(
                o,
                vec![(h.state, state.encode()), (h.frames, frames.encode())],
                b"",
            )
            .map_err(|source| EngineError::Rti {
                context: "update EngineStatus".into(),
                source,
            })?;
        self.last = state;
        Ok(())
    }
}
