//! The HLA level as a [`Sut`]: `update_attribute_values` → `reflect_attribute_values` through the
//! real LRC API ([`RtiAmbassador`], immediate callbacks), on the benchmark's own FOM
//! (`benches/fom/Bench.xml`). Reliability picks the attribute: `Reliable` (HLAreliable) or
//! `BestEffort` (HLAbestEffort), both receive order; `Stamped` (HLAreliable, TimeStamp) is for
//! the `time` subcommand.
//!
//! The LRC keeps its transport to itself, so this path's counters come from the process's
//! Prometheus series ([`ProcessCounters`]), which every transport in the process feeds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, ObjectClassHandle, ObjectInstanceHandle,
};
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::data::Reliability;

use crate::BenchError;
use crate::net::NetParams;
use crate::sut::{Counters, Handler, Sut};

/// The benchmark FOM.
pub const FOM: &str = include_str!("../fom/Bench.xml");
/// Its object class.
pub const CLASS: &str = "BenchObject";

impl From<RtiError> for BenchError {
    fn from(e: RtiError) -> BenchError {
        BenchError::Protocol(format!("RTI: {e}"))
    }
}

/// Callback-side events the joining code waits for.
enum Joined {
    Discovered,
}

struct BenchAmb {
    handler: Arc<OnceLock<Handler>>,
    events: Sender<Joined>,
}

impl FederateAmbassador for BenchAmb {
    fn discover_object_instance(
        &mut self,
        _object: ObjectInstanceHandle,
        _class: ObjectClassHandle,
        _name: &str,
        _producer: FederateHandle,
    ) {
        let _ = self.events.send(Joined::Discovered);
    }

    fn reflect_attribute_values(
        &mut self,
        _object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        if let (Some(h), Some((_, v))) = (self.handler.get(), values.first()) {
            h(v);
        }
    }
}

/// One federate joined to the benchmark federation, with one registered object.
pub struct RtiSut {
    rti: RtiAmbassador,
    object: ObjectInstanceHandle,
    reliable: AttributeHandle,
    best_effort: AttributeHandle,
    handler: Arc<OnceLock<Handler>>,
    sent: AtomicU64,
    _lrc: Lrc,
}

impl std::fmt::Debug for RtiSut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RtiSut")
            .field("object", &self.object)
            .finish()
    }
}

/// Creates `federation` from the FOM module `fom` (named `designator`); one that already exists
/// (another process of the run created it first) is fine.
pub fn create_federation(
    rti: &mut RtiAmbassador,
    federation: &str,
    designator: &str,
    fom: &str,
) -> Result<(), BenchError> {
    match rti.create_federation_execution_from_text(
        federation,
        vec![(designator.into(), fom.to_string())],
    ) {
        Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Joins `federation` (creating it first when `create`), retrying while its announcement has
/// not arrived, until `deadline`.
pub fn join_federation(
    rti: &mut RtiAmbassador,
    federation: &str,
    name: &str,
    create: bool,
    deadline: Instant,
) -> Result<FederateHandle, BenchError> {
    if create {
        create_federation(rti, federation, "Bench.xml", FOM)?;
    }
    loop {
        match rti.join_federation_execution(Some(name), "hlamesh-bench", federation) {
            Err(RtiError::FederationExecutionDoesNotExist(_)) if Instant::now() < deadline => {
                // The LRC answers at once when it has not heard of the federation yet; its
                // discovery beacons arrive every 100 ms.
                std::thread::sleep(Duration::from_millis(20));
            }
            r => return Ok(r?),
        }
    }
}

impl RtiSut {
    /// Starts an LRC on `net`, joins `federation` (creating it when `create`), publishes every
    /// attribute, subscribes to them when `subscribe` (an N→1 fan-in sender does not: only the
    /// receiver does), registers one object and waits until it has discovered the objects of
    /// `members` other federates (0 without subscribing).
    pub fn join(
        net: &NetParams,
        federation: &str,
        create: bool,
        subscribe: bool,
        members: usize,
        timeout: Duration,
    ) -> Result<RtiSut, BenchError> {
        let deadline = Instant::now() + timeout;
        let _ = hlamesh_transport::metrics::install();
        let lrc = Lrc::start(net.transport_config())?;
        let handler: Arc<OnceLock<Handler>> = Arc::default();
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut rti = RtiAmbassador::with_lrc(lrc.clone());
        rti.connect(
            Box::new(BenchAmb {
                handler: handler.clone(),
                events: tx,
            }),
            CallbackModel::Immediate,
        )?;
        let name = format!("bench-{}", std::process::id());
        join_federation(&mut rti, federation, &name, create, deadline)?;
        let class = rti.get_object_class_handle(CLASS)?;
        let reliable = rti.get_attribute_handle(class, "Reliable")?;
        let best_effort = rti.get_attribute_handle(class, "BestEffort")?;
        rti.publish_object_class_attributes(class, &[reliable, best_effort])?;
        if subscribe {
            rti.subscribe_object_class_attributes(class, &[reliable, best_effort], true)?;
        }
        let object = rti.register_object_instance(class)?;
        wait_discoveries(&rx, if subscribe { members } else { 0 }, deadline)?;
        Ok(RtiSut {
            rti,
            object,
            reliable,
            best_effort,
            handler,
            sent: AtomicU64::new(0),
            _lrc: lrc,
        })
    }
}

fn wait_discoveries(
    rx: &Receiver<Joined>,
    members: usize,
    deadline: Instant,
) -> Result<(), BenchError> {
    let mut seen = 0;
    while seen < members {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Joined::Discovered) => seen += 1,
            Err(_) => {
                return Err(BenchError::Protocol(format!(
                    "RTI: discovered {seen} of {members} peer objects in time"
                )));
            }
        }
    }
    Ok(())
}

impl Sut for RtiSut {
    fn name(&self) -> &'static str {
        "hlamesh-rti"
    }

    fn send(&self, rel: Reliability, payload: &[u8]) -> Result<(), BenchError> {
        let attr = match rel {
            Reliability::Reliable => self.reliable,
            Reliability::BestEffort => self.best_effort,
        };
        self.sent.fetch_add(1, Ordering::Relaxed);
        self.rti
            .update_attribute_values(self.object, vec![(attr, payload.to_vec())], b"")?;
        Ok(())
    }

    fn set_handler(&self, handler: Handler) -> Result<(), BenchError> {
        self.handler
            .set(handler)
            .map_err(|_| BenchError::Protocol("RTI path: handler set twice".into()))
    }

    fn counters(&self) -> Counters {
        let p = ProcessCounters::now();
        Counters {
            messages_out: self.sent.load(Ordering::Relaxed),
            datagrams_out: p.get("hlamesh_multicast_datagrams_sent_total"),
            datagrams_in: p.get("hlamesh_multicast_datagrams_received_total"),
            nacks_sent: p.get("hlamesh_data_nacks_sent_total"),
            nacks_served: p.get("hlamesh_data_nacks_received_total"),
            repaired_datagrams: p.get("hlamesh_data_repaired_datagrams_sent_total"),
            repairs_received: p.get("hlamesh_data_repairs_received_total"),
            fell_behind_messages: p.get("hlamesh_data_fell_behind_messages_total"),
            best_effort_lost: p.get("hlamesh_data_best_effort_lost_total"),
        }
    }
}

/// A snapshot of this process's Prometheus series (empty when no recorder is installed).
#[derive(Debug, Default)]
pub struct ProcessCounters {
    text: String,
}

impl ProcessCounters {
    /// Collects and renders the series now.
    pub fn now() -> ProcessCounters {
        ProcessCounters {
            text: hlamesh_transport::metrics::render().unwrap_or_default(),
        }
    }

    /// Sum over every series of family `name` whose labels contain `label` (e.g. `kind="app"`;
    /// empty: all series).
    pub fn sum(&self, name: &str, label: &str) -> u64 {
        self.text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let (series, value) = l.rsplit_once(' ')?;
                let (family, labels) = series.split_once('{').unwrap_or((series, ""));
                (family == name && labels.contains(label)).then_some(value)
            })
            .filter_map(|v| v.parse::<f64>().ok())
            .map(|v| v as u64)
            .sum()
    }

    /// Sum over every series of family `name`.
    pub fn get(&self, name: &str) -> u64 {
        self.sum(name, "")
    }
}
