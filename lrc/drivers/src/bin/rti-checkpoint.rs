//! Test-only federate for the save/restore multi-process test (`lrc/drivers/tests/rti_restore.rs`):
//! a time-managed lockstep in which every value a federate sends depends on everything it reflected
//! so far, so a restore that loses or invents a single message, time or handle shows up in the
//! values.
//!
//! Each step `k`: update our object with our accumulator at time `k`, TAR(`k`); every reflection
//! `(k, producer, value)` is recorded and folded into the accumulator (commutatively: the order
//! among equal timestamps is not part of the contract). Modes:
//! - default: join, regulate (lookahead 1) and constrain, meet the others, and (with
//!   `--request-save`) request a timed save at `--save-at`; run to `--steps`, saving our state
//!   (accumulator, step, object) when the timed save is initiated. With `--restore-after` the
//!   federates then meet at a synchronization point, `--request-save`'s federate requests the
//!   restore, and every federate restores and runs to `--steps` again.
//! - `--restore-only`: join a fresh federation (any name, the given type), and restore the
//!   save (the `--request-save` federate retries until every federate joined), then run.
//!
//! With `--integer-time` the federation is `HLAinteger64Time` and step `k` is at time
//! 2^53 + 1 + `k` (no `f64` holds these exactly: a time that went through a float shows).
//!
//! Prints JSON lines: `joined`, `ready`, `saved`, `run` (the recorded reflections and our
//! handle), `restored`, `error`; `run` and `restored` carry the logical time as the step it is
//! (`time`) and, with `--integer-time`, exactly (`itime`).

use std::time::Duration;

use clap::Parser;
use crossbeam_channel::{Receiver, Sender};
use hlamesh_drivers::lab_net::LabNetArgs;
use hlamesh_drivers::startup::out;
use hlamesh_lrc::ambassador::{
    CallbackModel, FederateAmbassador, LogicalTimeInterval, RestoreFailureReason, RtiAmbassador,
    SaveFailureReason, Time, TimeKind,
};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::*;
use hlamesh_lrc::node::Lrc;
use serde_json::json;

#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    net: LabNetArgs,
    #[arg(long)]
    federation: String,
    /// FOM module files (for --create).
    #[arg(long)]
    fom: Vec<String>,
    #[arg(long)]
    name: String,
    #[arg(long, default_value = "checkpoint")]
    federate_type: String,
    #[arg(long)]
    create: bool,
    /// Federates taking part.
    #[arg(long, default_value_t = 3)]
    federates: usize,
    #[arg(long, default_value_t = 100)]
    steps: u32,
    #[arg(long, default_value_t = 50)]
    save_at: u32,
    #[arg(long, default_value = "cp")]
    label: String,
    /// This federate requests the save (and the restore).
    #[arg(long)]
    request_save: bool,
    /// Restore after the run and run again.
    #[arg(long)]
    restore_after: bool,
    /// Only restore the save and run from it.
    #[arg(long)]
    restore_only: bool,
    /// Create (and expect) an `HLAinteger64Time` federation.
    #[arg(long)]
    integer_time: bool,
}

/// Where step 0 is in an `HLAinteger64Time` federation.
const INTEGER_BASE: i64 = (1 << 53) + 1;

/// The federation's time kind and how steps map onto it.
#[derive(Clone, Copy)]
struct Clock(TimeKind);

impl Clock {
    fn at(self, k: u32) -> Result<Time, RtiError> {
        match self.0 {
            TimeKind::Integer64 => Ok(Time::integer(INTEGER_BASE + i64::from(k))),
            TimeKind::Float64 => time(f64::from(k)),
        }
    }

    /// The step a time is at (as a number; a float time's value).
    fn step(self, t: Time) -> f64 {
        match t.as_integer() {
            Some(n) => (n - INTEGER_BASE) as f64,
            None => t.value(),
        }
    }

    fn lookahead(self) -> Result<LogicalTimeInterval, RtiError> {
        match self.0 {
            TimeKind::Integer64 => Ok(LogicalTimeInterval::integer(1)),
            TimeKind::Float64 => LogicalTimeInterval::new(1.0).ok_or_else(|| fail("lookahead")),
        }
    }

    /// The time fields of a JSON line.
    fn json(self, t: Time) -> serde_json::Value {
        json!({"time": self.step(t), "itime": t.as_integer()})
    }
}

#[derive(Debug)]
enum Ev {
    Discovered,
    Reflect {
        producer: FederateHandle,
        value: Vec<u8>,
        time: Option<Time>,
    },
    Enabled,
    Grant(Time),
    InitiateSave,
    Saved(Result<(), SaveFailureReason>),
    Announce(String),
    Synchronized(String),
    RestoreRequest(Result<(), String>),
    InitiateRestore(FederateHandle),
    Restored(Result<(), String>),
}

struct Amb(Sender<Ev>, TimeKind);

impl FederateAmbassador for Amb {
    fn discover_object_instance(
        &mut self,
        _o: ObjectInstanceHandle,
        _c: ObjectClassHandle,
        _n: &str,
        _p: FederateHandle,
    ) {
        let _ = self.0.send(Ev::Discovered);
    }
    fn reflect_attribute_values(
        &mut self,
        _o: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        info: &ReceiveInfo,
    ) {
        let value = values.first().map(|(_, v)| v.clone()).unwrap_or_default();
        let time = info.time.as_deref().and_then(|b| self.1.decode(b).ok());
        let _ = self.0.send(Ev::Reflect {
            producer: info.producer,
            value,
            time,
        });
    }
    fn time_regulation_enabled(&mut self, _t: Time) {
        let _ = self.0.send(Ev::Enabled);
    }
    fn time_constrained_enabled(&mut self, _t: Time) {
        let _ = self.0.send(Ev::Enabled);
    }
    fn time_advance_grant(&mut self, t: Time) {
        let _ = self.0.send(Ev::Grant(t));
    }
    fn initiate_federate_save(&mut self, _label: &str, _time: Option<Time>) {
        let _ = self.0.send(Ev::InitiateSave);
    }
    fn federation_saved(&mut self) {
        let _ = self.0.send(Ev::Saved(Ok(())));
    }
    fn federation_not_saved(&mut self, reason: SaveFailureReason) {
        let _ = self.0.send(Ev::Saved(Err(reason)));
    }
    fn announce_synchronization_point(&mut self, label: &str, _tag: &[u8]) {
        let _ = self.0.send(Ev::Announce(label.to_string()));
    }
    fn federation_synchronized(&mut self, label: &str, _failed: &[FederateHandle]) {
        let _ = self.0.send(Ev::Synchronized(label.to_string()));
    }
    fn request_federation_restore_succeeded(&mut self, _label: &str) {
        let _ = self.0.send(Ev::RestoreRequest(Ok(())));
    }
    fn request_federation_restore_failed(&mut self, _label: &str, reason: &str) {
        let _ = self.0.send(Ev::RestoreRequest(Err(reason.to_string())));
    }
    fn initiate_federate_restore(&mut self, _label: &str, _name: &str, handle: FederateHandle) {
        let _ = self.0.send(Ev::InitiateRestore(handle));
    }
    fn federation_restored(&mut self) {
        let _ = self.0.send(Ev::Restored(Ok(())));
    }
    fn federation_not_restored(&mut self, reason: RestoreFailureReason, detail: &str) {
        let _ = self
            .0
            .send(Ev::Restored(Err(format!("{reason:?}: {detail}"))));
    }
}

fn fail(what: impl std::fmt::Display) -> RtiError {
    RtiError::RtiInternalError(what.to_string())
}

fn time(v: f64) -> Result<Time, RtiError> {
    Time::new(v).ok_or_else(|| fail(format!("bad time {v}")))
}

/// The application state a save keeps.
#[derive(serde::Serialize, serde::Deserialize)]
struct AppState {
    acc: u64,
    step: u32,
    object: u64,
}

struct Fed {
    rti: RtiAmbassador,
    clock: Clock,
    rx: Receiver<Ev>,
    attr: AttributeHandle,
    object: ObjectInstanceHandle,
    acc: u64,
    step: u32,
    /// Reflections recorded this run: (step, producer, value).
    record: Vec<(u32, u32, u64)>,
    /// Synchronization points announced (may come in the middle of a run).
    announced: Vec<String>,
}

/// Bounded wait for the next callback.
fn next(rx: &Receiver<Ev>, waiting: &str) -> Result<Ev, RtiError> {
    rx.recv_timeout(Duration::from_secs(30))
        .map_err(|_| fail(format!("no callback within 30 s waiting for {waiting}")))
}

fn fold(acc: u64, value: u64) -> u64 {
    // Commutative: reflections at the same time may arrive in either order.
    acc.wrapping_add(value.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17))
}

impl Fed {
    fn me(&self) -> u32 {
        self.rti.federate().map_or(0, |(_, h)| h.0)
    }

    fn save_state(&self) -> Result<(), RtiError> {
        let dir = self.rti.federate_state_dir()?;
        let st = AppState {
            acc: self.acc,
            step: self.step,
            object: self.object.0,
        };
        let bytes = serde_json::to_vec(&st).map_err(fail)?;
        std::fs::write(dir.join("app.json"), bytes).map_err(fail)
    }

    fn load_state(&mut self) -> Result<(), RtiError> {
        let dir = self.rti.federate_state_dir()?;
        let bytes = std::fs::read(dir.join("app.json")).map_err(fail)?;
        let st: AppState = serde_json::from_slice(&bytes).map_err(fail)?;
        self.acc = st.acc;
        self.step = st.step;
        self.object = ObjectInstanceHandle(st.object);
        Ok(())
    }

    /// The timed save was initiated (right after the grant to the save time): save our part.
    fn save(&mut self) -> Result<(), RtiError> {
        self.rti.federate_save_begun()?;
        self.save_state()?;
        self.rti.federate_save_complete()?;
        match next(&self.rx, "federation saved")? {
            Ev::Saved(Ok(())) => {}
            Ev::Saved(Err(r)) => return Err(fail(format!("save failed: {r:?}"))),
            other => return Err(fail(format!("during the save: {other:?}"))),
        }
        out(json!({"event":"saved","step":self.step}));
        Ok(())
    }

    /// Steps from the current one to `steps`, recording every reflection.
    fn run(&mut self, steps: u32, save_at: Option<u32>) -> Result<(), RtiError> {
        self.record.clear();
        while self.step < steps {
            let k = self.step + 1;
            let now = self.clock.at(k)?;
            self.rti.update_attribute_values_with_time(
                self.object,
                vec![(self.attr, self.acc.to_be_bytes().to_vec())],
                b"",
                now,
            )?;
            self.rti.time_advance_request(now)?;
            loop {
                match next(&self.rx, &format!("step {k}"))? {
                    Ev::Reflect {
                        producer,
                        value,
                        time,
                    } => {
                        if time != Some(now) {
                            return Err(fail(format!("step {k}: reflection at {time:?}")));
                        }
                        let v = u64::from_be_bytes(
                            value
                                .as_slice()
                                .try_into()
                                .map_err(|_| fail("value size"))?,
                        );
                        self.record.push((k, producer.0, v));
                        self.acc = fold(self.acc, v);
                    }
                    Ev::Grant(g) if g == now => break,
                    Ev::Announce(l) => self.announced.push(l),
                    other => return Err(fail(format!("step {k}: unexpected {other:?}"))),
                }
            }
            self.step = k;
            if save_at == Some(k) {
                match next(&self.rx, "the timed save")? {
                    Ev::InitiateSave => self.save()?,
                    other => return Err(fail(format!("expected the save, got {other:?}"))),
                }
            }
        }
        self.record.sort();
        let mut line = json!({"event":"run","handle":self.me(),
            "from":self.record.first().map(|r| r.0),"reflections":self.record,"acc":self.acc});
        merge(&mut line, self.clock.json(self.rti.query_logical_time()?));
        out(line);
        Ok(())
    }

    /// Takes part in a restore (requested by us with `request`), up to `federation_restored`.
    fn restore(&mut self, label: &str, request: bool) -> Result<(), RtiError> {
        if request {
            // Until every federate joined, the federates do not match the saved ones.
            let mut tries = 0;
            loop {
                self.rti.request_federation_restore(label)?;
                match next(&self.rx, "restore request answer")? {
                    Ev::RestoreRequest(Ok(())) => break,
                    Ev::RestoreRequest(Err(e)) if tries < 200 && e.contains("do not match") => {
                        tries += 1;
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    other => return Err(fail(format!("restore request: {other:?}"))),
                }
            }
        }
        let handle = match next(&self.rx, "initiate restore")? {
            Ev::InitiateRestore(h) => h,
            other => return Err(fail(format!("waiting for the restore: {other:?}"))),
        };
        if self.rti.federate().map(|(_, h)| h) != Some(handle) {
            return Err(fail(format!("handle after restore is not {handle}")));
        }
        self.load_state()?;
        self.rti.federate_restore_complete()?;
        match next(&self.rx, "federation restored")? {
            Ev::Restored(Ok(())) => {}
            other => return Err(fail(format!("restore: {other:?}"))),
        }
        let mut line = json!({"event":"restored","handle":handle.0,"step":self.step});
        merge(&mut line, self.clock.json(self.rti.query_logical_time()?));
        out(line);
        Ok(())
    }
}

fn merge(line: &mut serde_json::Value, more: serde_json::Value) {
    if let (Some(l), serde_json::Value::Object(m)) = (line.as_object_mut(), more) {
        l.extend(m);
    }
}

fn main() {
    hlamesh_drivers::startup::main(run);
}

fn run() -> Result<(), RtiError> {
    let a = Args::parse();
    let lrc = Lrc::start(a.net.transport_config())?;
    let (tx, rx) = crossbeam_channel::unbounded();
    let kind = if a.integer_time {
        TimeKind::Integer64
    } else {
        TimeKind::Float64
    };
    let clock = Clock(kind);
    let mut rti = RtiAmbassador::with_lrc(lrc);
    rti.connect(Box::new(Amb(tx, kind)), CallbackModel::Immediate)?;
    if a.create {
        let mut modules = Vec::new();
        for p in &a.fom {
            let text = std::fs::read_to_string(p).map_err(|e| fail(format!("{p}: {e}")))?;
            modules.push((p.clone(), text));
        }
        match rti.create_federation_execution_with_time(&a.federation, modules, kind.name()) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let h = loop {
        match rti.join_federation_execution(Some(&a.name), &a.federate_type, &a.federation) {
            Err(RtiError::FederationExecutionDoesNotExist(_))
                if std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(50));
            }
            r => break r?,
        }
    };
    out(json!({"event":"joined","handle":h.0}));
    let class = rti.get_object_class_handle("Vehicle")?;
    let attr = rti.get_attribute_handle(class, "Position")?;
    let mut f = Fed {
        rti,
        clock,
        rx,
        attr,
        object: ObjectInstanceHandle(0),
        acc: 0,
        step: 0,
        record: Vec::new(),
        announced: Vec::new(),
    };
    if a.restore_only {
        f.restore(&a.label, a.request_save)?;
        f.run(a.steps, None)?;
        barrier(&mut f, "finished", a.request_save)?;
        return resign(f);
    }
    f.rti.publish_object_class_attributes(class, &[attr])?;
    f.rti
        .subscribe_object_class_attributes(class, &[attr], true)?;
    f.object = f.rti.register_object_instance(class)?;
    f.acc = u64::from(h.0);
    // The others' "ready" updates (receive order) may arrive at any point from here on: a
    // federate that discovered everything sends its own while this one may still wait for a
    // discovery. Each is counted wherever it arrives (once dropped here, a lost "ready" left
    // this federate waiting at the barrier until its 30 s timeout).
    let mut ready = std::collections::BTreeSet::new();
    let mut early = 0;
    let mut discovered = 0;
    while discovered + 1 < a.federates {
        match next(&f.rx, "discoveries")? {
            Ev::Discovered => discovered += 1,
            Ev::Reflect { producer, .. } => {
                early += 1;
                ready.insert(producer);
            }
            other => return Err(fail(format!("discovering: {other:?}"))),
        }
    }
    f.rti.enable_asynchronous_delivery()?;
    let lookahead = f.clock.lookahead()?;
    let mut wait_enabled = |f: &Fed| -> Result<(), RtiError> {
        loop {
            match next(&f.rx, "enabled")? {
                Ev::Enabled => return Ok(()),
                Ev::Reflect { producer, .. } => {
                    ready.insert(producer);
                }
                other => return Err(fail(format!("enabling: {other:?}"))),
            }
        }
    };
    f.rti.enable_time_regulation(lookahead)?;
    wait_enabled(&f)?;
    f.rti.enable_time_constrained()?;
    wait_enabled(&f)?;
    // Ready barrier (receive order): everyone regulates and constrains before step 1.
    f.rti
        .update_attribute_values(f.object, vec![(attr, b"ready".to_vec())], b"")?;
    while ready.len() + 1 < a.federates {
        match next(&f.rx, &format!("ready (have {ready:?})"))? {
            Ev::Reflect { producer, .. } => {
                ready.insert(producer);
            }
            other => return Err(fail(format!("ready barrier: {other:?}"))),
        }
    }
    if a.request_save {
        f.rti
            .request_federation_save_with_time(&a.label, f.clock.at(a.save_at)?)?;
    }
    // `early`: "ready" updates that arrived before this federate had discovered everyone.
    out(json!({"event":"ready","early":early}));
    f.run(a.steps, Some(a.save_at))?;
    if a.restore_after {
        barrier(&mut f, "run-done", a.request_save)?;
        f.restore(&a.label, a.request_save)?;
        f.run(a.steps, None)?;
        barrier(&mut f, "finished", a.request_save)?;
    }
    resign(f)
}

/// A federation-wide synchronization point that `register` registers: every federate waits at
/// it. After the last step it keeps a federate from resigning while the others still wait for
/// their last grant: its resignation deletes its object (receive order), and a time-stamped
/// reflection of that object still queued elsewhere would then be dropped, as HLA has it.
fn barrier(f: &mut Fed, label: &str, register: bool) -> Result<(), RtiError> {
    if register {
        f.rti
            .register_federation_synchronization_point(label, b"")?;
    }
    while !f.announced.iter().any(|l| l == label) {
        match next(&f.rx, &format!("{label} announcement"))? {
            Ev::Announce(l) => f.announced.push(l),
            other => return Err(fail(format!("before {label}: {other:?}"))),
        }
    }
    f.rti.synchronization_point_achieved(label, true)?;
    match next(&f.rx, label)? {
        Ev::Synchronized(l) if l == label => Ok(()),
        other => Err(fail(format!("waiting for {label}: {other:?}"))),
    }
}

fn resign(f: Fed) -> Result<(), RtiError> {
    let mut rti = f.rti;
    rti.resign_federation_execution(ResignAction::DeleteObjects)?;
    out(json!({"event":"resigned"}));
    Ok(())
}
