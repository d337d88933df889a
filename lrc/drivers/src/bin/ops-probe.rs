//! Test-only federate for the operations tests (`lrc/drivers/tests/ops_*.rs`): a small simulation
//! that keeps the metrics moving. It serves `/metrics` (with `--metrics-addr`, printing the URL),
//! creates or joins a federation, publishes and subscribes one object class and one interaction
//! class, and then steps until `--run-ms` is over: each step updates its object (receive order) and
//! every tenth sends an interaction; with `--time` it is regulating and constrained and each step
//! is a time-advance request waited for. One JSON line per milestone on stdout.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use clap::Parser;
use crossbeam_channel::{Receiver, Sender};
use hlamesh_drivers::lab_net::LabNetArgs;
use hlamesh_drivers::startup::out;
use hlamesh_lrc::ambassador::{
    CallbackModel, FederateAmbassador, LogicalTimeInterval, RtiAmbassador, Time,
};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::*;
use hlamesh_lrc::node::Lrc;

#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    net: LabNetArgs,
    #[arg(long)]
    federation: String,
    /// FOM module files (for --create).
    #[arg(long)]
    fom: Vec<String>,
    #[arg(long, default_value = "ops")]
    name: String,
    #[arg(long, default_value = "ops-probe")]
    federate_type: String,
    /// Create the federation first (an existing one is fine).
    #[arg(long)]
    create: bool,
    /// Serve Prometheus metrics here (port 0: any free port).
    #[arg(long)]
    metrics_addr: Option<SocketAddr>,
    /// Object class to publish and subscribe, and the attribute updated.
    #[arg(long, default_value = "Food.Drink.Soda")]
    class: String,
    #[arg(long, default_value = "NumberCups")]
    attribute: String,
    /// Interaction class to publish and subscribe.
    #[arg(long, default_value = "CustomerTransactions.OrderTaken.FromKidsMenu")]
    interaction: String,
    /// Regulating and constrained, one time-advance request per step.
    #[arg(long)]
    time: bool,
    #[arg(long, default_value_t = 5)]
    interval_ms: u64,
    /// Stop (resign) after this long.
    #[arg(long, default_value_t = 60_000)]
    run_ms: u64,
    /// Retry joining for this long while the federation is not announced yet.
    #[arg(long, default_value_t = 10_000)]
    join_retry_ms: u64,
}

enum Cb {
    Enabled,
    Grant,
    Reflect,
}

struct Amb(Sender<Cb>);

impl FederateAmbassador for Amb {
    fn reflect_attribute_values(
        &mut self,
        _o: ObjectInstanceHandle,
        _v: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        let _ = self.0.send(Cb::Reflect);
    }
    fn time_regulation_enabled(&mut self, _t: Time) {
        let _ = self.0.send(Cb::Enabled);
    }
    fn time_constrained_enabled(&mut self, _t: Time) {
        let _ = self.0.send(Cb::Enabled);
    }
    fn time_advance_grant(&mut self, _t: Time) {
        let _ = self.0.send(Cb::Grant);
    }
}

fn main() {
    hlamesh_drivers::startup::main(run);
}

/// Waits for the next callback of `want`, counting reflections on the way.
fn wait(rx: &Receiver<Cb>, want: fn(&Cb) -> bool, reflected: &mut u64) -> Result<(), RtiError> {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Cb::Reflect) => *reflected += 1,
            Ok(c) if want(&c) => return Ok(()),
            Ok(_) => {}
            Err(_) => {
                return Err(RtiError::RtiInternalError(
                    "no awaited callback within 20 s".into(),
                ));
            }
        }
    }
}

fn run() -> Result<(), RtiError> {
    let a = Args::parse();
    let mut cfg = a.net.transport_config();
    cfg.metrics_addr = a.metrics_addr;
    let lrc = Lrc::start(cfg)?;
    out(serde_json::json!({"event":"started","node":lrc.node_id().0,"metrics":lrc.metrics_url()}));
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut rti = RtiAmbassador::with_lrc(lrc);
    rti.connect(Box::new(Amb(tx)), CallbackModel::Immediate)?;
    if a.create {
        match rti.create_federation_execution(&a.federation, &a.fom) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let join_deadline = Instant::now() + Duration::from_millis(a.join_retry_ms);
    let me = loop {
        match rti.join_federation_execution(Some(&a.name), &a.federate_type, &a.federation) {
            Err(RtiError::FederationExecutionDoesNotExist(_)) if Instant::now() < join_deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            r => break r?,
        }
    };
    out(serde_json::json!({"event":"joined","handle":me.0}));
    let class = rti.get_object_class_handle(&a.class)?;
    let attr = rti.get_attribute_handle(class, &a.attribute)?;
    rti.publish_object_class_attributes(class, &[attr])?;
    rti.subscribe_object_class_attributes(class, &[attr], true)?;
    let ic = rti.get_interaction_class_handle(&a.interaction)?;
    rti.publish_interaction_class(ic)?;
    rti.subscribe_interaction_class(ic, true)?;
    let obj = rti.register_object_instance(class)?;
    let mut reflected = 0u64;
    if a.time {
        rti.enable_asynchronous_delivery()?;
        let la = LogicalTimeInterval::new(1.0)
            .ok_or_else(|| RtiError::InvalidLookahead("1.0".into()))?;
        rti.enable_time_regulation(la)?;
        wait(&rx, |c| matches!(c, Cb::Enabled), &mut reflected)?;
        rti.enable_time_constrained()?;
        wait(&rx, |c| matches!(c, Cb::Enabled), &mut reflected)?;
    }
    // A late regulator starts at the federation's time, not at zero.
    let mut now = rti.query_logical_time()?.value();
    out(serde_json::json!({"event":"ready","logical_time":now}));
    let end = Instant::now() + Duration::from_millis(a.run_ms);
    let mut step = 0u64;
    while Instant::now() < end {
        step += 1;
        rti.update_attribute_values(obj, vec![(attr, step.to_be_bytes().to_vec())], b"")?;
        if step.is_multiple_of(10) {
            rti.send_interaction(ic, Vec::new(), b"")?;
        }
        if a.time {
            now += 1.0;
            let t = Time::new(now).ok_or_else(|| RtiError::InvalidLogicalTime(format!("{now}")))?;
            rti.time_advance_request(t)?;
            wait(&rx, |c| matches!(c, Cb::Grant), &mut reflected)?;
        }
        while let Ok(c) = rx.try_recv() {
            if let Cb::Reflect = c {
                reflected += 1;
            }
        }
        if step.is_multiple_of(200) {
            out(serde_json::json!({"event":"progress","step":step,"reflected":reflected}));
        }
        std::thread::sleep(Duration::from_millis(a.interval_ms));
    }
    rti.resign_federation_execution(ResignAction::DeleteObjects)?;
    out(serde_json::json!({"event":"done","steps":step,"reflected":reflected}));
    Ok(())
}
