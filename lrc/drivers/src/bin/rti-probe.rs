//! Test-only scripted federate for the multi-process tests
//! (`lrc/drivers/tests/rti_multiprocess.rs`): creates or joins a federation, publishes/subscribes
//! as told, registers and updates objects, sends interactions, and prints one JSON line per event
//! on stdout. Also a ping/echo pair for measuring the update→reflect round trip between processes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use hlamesh_drivers::lab_net::LabNetArgs;
use hlamesh_drivers::startup::out;
use hlamesh_lrc::ambassador::{
    CallbackModel, FederateAmbassador, LogicalTimeInterval, RtiAmbassador, Time,
};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::fom::OrderType;
use hlamesh_lrc::handles::*;
use hlamesh_lrc::node::Lrc;
use hlamesh_timesync::LogicalTime;

#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    net: LabNetArgs,
    #[arg(long)]
    federation: String,
    /// FOM module files (for --create).
    #[arg(long)]
    fom: Vec<String>,
    #[arg(long, default_value = "probe")]
    name: String,
    /// Try to create the federation first (prints created / exists).
    #[arg(long)]
    create: bool,
    /// Only create (or fail) and stay alive for --hold-ms; do not join.
    #[arg(long)]
    create_only: bool,
    /// CLASS:ATTR,ATTR to publish.
    #[arg(long)]
    publish: Option<String>,
    /// CLASS:ATTR,ATTR to subscribe.
    #[arg(long)]
    subscribe: Option<String>,
    /// Subscribe (--subscribe) with this update rate designator of the FDD.
    #[arg(long)]
    subscribe_rate: Option<String>,
    #[arg(long)]
    publish_interaction: Option<String>,
    #[arg(long)]
    subscribe_interaction: Option<String>,
    #[arg(long, default_value_t = 0)]
    objects: u32,
    #[arg(long, default_value_t = 0)]
    updates: u32,
    #[arg(long, default_value_t = 0)]
    interactions: u32,
    #[arg(long, default_value_t = 10)]
    interval_ms: u64,
    /// Pace the updates at this rate (update n at n / rate seconds after the first) instead of
    /// sleeping --interval-ms after each.
    #[arg(long)]
    update_hz: Option<f64>,
    /// Delete the objects after the updates.
    #[arg(long)]
    delete: bool,
    /// Keep updating one value per interval until killed (for crash tests).
    #[arg(long)]
    forever: bool,
    /// Stay this long after the script before resigning.
    #[arg(long, default_value_t = 0)]
    hold_ms: u64,
    /// Resign with UnconditionallyDivestAttributes (instances stay, unowned) instead of
    /// DeleteObjects.
    #[arg(long)]
    resign_divest: bool,
    /// Echo every reflected value of the subscribed class on our own object (latency partner).
    #[arg(long)]
    echo: bool,
    /// Measure this many update→reflect round trips against an --echo partner.
    #[arg(long, default_value_t = 0)]
    ping: u32,
    /// Payload bytes of ping updates.
    #[arg(long, default_value_t = 100)]
    ping_size: usize,
    /// Time-stepped run: regulating and constrained, this many TAR steps with one timestamped
    /// update of our (first) object per step; checks every reflection and reports grants/s.
    #[arg(long, default_value_t = 0)]
    lockstep: u32,
    /// Lockstep: federates taking part (we start once every other one is ready).
    #[arg(long, default_value_t = 2)]
    federates: u32,
    /// Retry joining for this long while the federation is not announced yet.
    #[arg(long, default_value_t = 0)]
    join_retry_ms: u64,
    /// Lockstep: lookahead.
    #[arg(long, default_value_t = 1.0)]
    lookahead: f64,
    /// Event-driven run: regulating and constrained (lookahead `--lookahead`, 0 for the real
    /// test), advancing only with NER; this many own events at sparse random times in
    /// [1, --ner-end), each sending one timestamped update, and reactions to received updates.
    #[arg(long, default_value_t = 0)]
    ner_events: u32,
    /// Event-driven run: the final logical time every federate advances to.
    #[arg(long, default_value_t = 400.0)]
    ner_end: f64,
    /// Report the wall-clock offset estimate of this federate's LRC (the first one, and the
    /// one `--clock-ms` later), then go on with the script.
    #[arg(long)]
    clock_of: Option<u32>,
    #[arg(long, default_value_t = 3000)]
    clock_ms: u64,
    /// Event-driven run: the seed of our event times and reactions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Evoked callbacks (the main thread evokes them while it waits) instead of immediate ones;
    /// only with --lockstep or --ner-events.
    #[arg(long)]
    evoked: bool,
    /// Create (--create, --create-only) at this wall-clock time, ms since the Unix epoch, after
    /// the LRC has started: processes started one after another then claim at one instant.
    #[arg(long)]
    create_at_unix_ms: Option<u64>,
}

/// What the lockstep driver hears from the callbacks, in callback order.
#[derive(Debug)]
enum Step {
    Discovered,
    Reflect {
        producer: FederateHandle,
        value: Vec<u8>,
        time: Option<Time>,
        received: OrderType,
    },
    Enabled,
    Grant(Time),
    /// An instance was removed (its federate resigned or was lost with its process).
    Removed(ObjectInstanceHandle),
}

type Echo = Arc<
    std::sync::OnceLock<(
        Arc<RtiAmbassador>,
        ObjectInstanceHandle,
        Vec<AttributeHandle>,
    )>,
>;

struct Amb {
    /// Echo mode: update our object with every reflected value, from within the callback.
    echo: Echo,
    /// Ping mode: reflected values go here.
    pings: crossbeam_channel::Sender<Vec<u8>>,
    names: Arc<Mutex<HashMap<String, String>>>,
    start: Instant,
    quiet: bool,
    /// Lockstep mode: callbacks go here instead of stdout.
    steps: Option<crossbeam_channel::Sender<Step>>,
}

fn key<T: std::fmt::Debug>(t: T) -> String {
    format!("{t:?}")
}

impl FederateAmbassador for Amb {
    fn discover_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        c: ObjectClassHandle,
        name: &str,
        p: FederateHandle,
    ) {
        if let Some(tx) = &self.steps {
            let _ = tx.send(Step::Discovered);
            return;
        }
        let cname = self
            .names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key(c))
            .cloned();
        out(
            serde_json::json!({"event":"discover","object":o.0,"class":cname,"name":name,"producer":p.0,"ms":self.start.elapsed().as_millis() as u64}),
        );
    }
    fn reflect_attribute_values(
        &mut self,
        o: ObjectInstanceHandle,
        v: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        info: &ReceiveInfo,
    ) {
        if let Some(tx) = &self.steps {
            let _ = tx.send(Step::Reflect {
                producer: info.producer,
                value: v.first().map(|x| x.1.clone()).unwrap_or_default(),
                time: info.time.as_deref().and_then(|b| Time::decode(b).ok()),
                received: info.received_order,
            });
            return;
        }
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        let attrs: Vec<String> = v
            .iter()
            .map(|(a, _)| names.get(&key(a)).cloned().unwrap_or_default())
            .collect();
        drop(names);
        let seq = v
            .first()
            .and_then(|(_, b)| b.get(..8))
            .map(|b| u64::from_be_bytes(b.try_into().unwrap_or([0; 8])));
        if let Some((_, b)) = v.first() {
            if let Some((rti, mine, attrs)) = self.echo.get() {
                let vals = attrs.iter().map(|a| (*a, b.clone())).collect();
                if let Err(e) = rti.update_attribute_values(*mine, vals, b"") {
                    out(serde_json::json!({"event":"error","error":e.to_string()}));
                }
                return;
            }
            if self.quiet {
                let _ = self.pings.send(b.clone());
                return;
            }
        }
        if !self.quiet {
            out(
                serde_json::json!({"event":"reflect","object":o.0,"attrs":attrs,"seq":seq,"producer":info.producer.0,"ms":self.start.elapsed().as_millis() as u64}),
            );
        }
    }
    fn receive_interaction(
        &mut self,
        c: InteractionClassHandle,
        p: &[(ParameterHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        let params: Vec<String> = p
            .iter()
            .map(|(x, _)| names.get(&key(x)).cloned().unwrap_or_default())
            .collect();
        out(serde_json::json!({"event":"interaction","class":names.get(&key(c)),"params":params}));
    }
    fn time_regulation_enabled(&mut self, _t: Time) {
        if let Some(tx) = &self.steps {
            let _ = tx.send(Step::Enabled);
        }
    }
    fn time_constrained_enabled(&mut self, _t: Time) {
        if let Some(tx) = &self.steps {
            let _ = tx.send(Step::Enabled);
        }
    }
    fn time_advance_grant(&mut self, t: Time) {
        if let Some(tx) = &self.steps {
            let _ = tx.send(Step::Grant(t));
        }
    }
    fn remove_object_instance(
        &mut self,
        o: ObjectInstanceHandle,
        _t: &[u8],
        _p: Option<FederateHandle>,
    ) {
        if let Some(s) = &self.steps {
            let _ = s.send(Step::Removed(o));
            return;
        }
        out(
            serde_json::json!({"event":"remove","object":o.0,"ms":self.start.elapsed().as_millis() as u64}),
        );
    }
}

fn parse_spec(spec: &str) -> (String, Vec<String>) {
    let (c, a) = spec.split_once(':').unwrap_or((spec, ""));
    (
        c.to_string(),
        a.split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

fn main() {
    hlamesh_drivers::startup::main(run);
}

fn run() -> Result<(), RtiError> {
    let a = Args::parse();
    let start = Instant::now();
    let cfg = a.net.transport_config();
    let lrc = Lrc::start(cfg)?;
    if a.evoked && a.lockstep == 0 && a.ner_events == 0 {
        return Err(RtiError::RtiInternalError(
            "--evoked needs --lockstep or --ner-events".into(),
        ));
    }
    let lrc_stats = lrc.clone();
    let names = Arc::new(Mutex::new(HashMap::new()));
    let echo: Echo = Arc::new(std::sync::OnceLock::new());
    let (ping_tx, ping_rx) = crossbeam_channel::unbounded();
    let (step_tx, step_rx) = crossbeam_channel::unbounded();
    let mut rti = RtiAmbassador::with_lrc(lrc);
    rti.connect(
        Box::new(Amb {
            echo: echo.clone(),
            pings: ping_tx,
            names: names.clone(),
            start,
            quiet: a.ping > 0 || a.echo,
            steps: (a.lockstep > 0 || a.ner_events > 0).then_some(step_tx),
        }),
        if a.evoked {
            CallbackModel::Evoked
        } else {
            CallbackModel::Immediate
        },
    )?;
    if a.create || a.create_only {
        if let Some(at) = a.create_at_unix_ms {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            std::thread::sleep(Duration::from_millis(at.saturating_sub(now)));
        }
        let t = Instant::now();
        let outcome = match rti.create_federation_execution(&a.federation, &a.fom) {
            Ok(()) => "created",
            Err(RtiError::FederationExecutionAlreadyExists(_)) => "exists",
            Err(e) => return Err(e),
        };
        out(serde_json::json!({
            "event": outcome,
            "create_ms": t.elapsed().as_secs_f64() * 1e3,
            "since_start_ms": start.elapsed().as_secs_f64() * 1e3,
        }));
    }
    if a.create_only {
        std::thread::sleep(Duration::from_millis(a.hold_ms));
        return Ok(());
    }
    let t = Instant::now();
    // Retry while the federation's announcement has not reached us (a loaded machine).
    let join_deadline = Instant::now() + Duration::from_millis(a.join_retry_ms);
    let me = loop {
        match rti.join_federation_execution(Some(&a.name), "probe", &a.federation) {
            Err(RtiError::FederationExecutionDoesNotExist(_)) if Instant::now() < join_deadline => {
            }
            r => break r?,
        }
    };
    out(
        serde_json::json!({"event":"joined","handle":me.0,"join_ms":t.elapsed().as_secs_f64()*1e3,"since_start_ms":start.elapsed().as_secs_f64()*1e3}),
    );

    if let Some(h) = a.clock_of {
        clock_report(&rti, FederateHandle(h), Duration::from_millis(a.clock_ms))?;
    }
    let mut pub_class = None;
    let mut pub_attrs = Vec::new();
    if let Some(spec) = &a.publish {
        let (c, attrs) = parse_spec(spec);
        let ch = rti.get_object_class_handle(&c)?;
        pub_attrs = attrs
            .iter()
            .map(|n| rti.get_attribute_handle(ch, n))
            .collect::<Result<Vec<_>, _>>()?;
        rti.publish_object_class_attributes(ch, &pub_attrs)?;
        pub_class = Some(ch);
    }
    if let Some(spec) = &a.subscribe {
        let (c, attrs) = parse_spec(spec);
        let ch = rti.get_object_class_handle(&c)?;
        let hs = attrs
            .iter()
            .map(|n| rti.get_attribute_handle(ch, n))
            .collect::<Result<Vec<_>, _>>()?;
        let mut n = names.lock().unwrap_or_else(|e| e.into_inner());
        n.insert(key(ch), rti.get_object_class_name(ch)?);
        for (h, name) in hs.iter().zip(&attrs) {
            n.insert(key(h), name.clone());
        }
        drop(n);
        match &a.subscribe_rate {
            Some(rate) => {
                rti.subscribe_object_class_attributes_with_rate(ch, &hs, true, rate)?;
                let hz = rti.get_update_rate_value(rate)?;
                out(serde_json::json!({"event":"rate","designator":rate,"hz":hz}));
            }
            None => rti.subscribe_object_class_attributes(ch, &hs, true)?,
        }
    }
    let mut pub_ic = None;
    if let Some(ic) = &a.publish_interaction {
        let h = rti.get_interaction_class_handle(ic)?;
        rti.publish_interaction_class(h)?;
        pub_ic = Some(h);
    }
    if let Some(ic) = &a.subscribe_interaction {
        let h = rti.get_interaction_class_handle(ic)?;
        let fdd = rti.fdd_of_federation()?;
        let mut n = names.lock().unwrap_or_else(|e| e.into_inner());
        n.insert(key(h), rti.get_interaction_class_name(h)?);
        for p in fdd.parameters() {
            n.insert(key(p.handle), p.name.clone());
        }
        drop(n);
        rti.subscribe_interaction_class(h, true)?;
    }
    out(serde_json::json!({"event":"declared"}));

    let mut objs = Vec::new();
    if let Some(c) = pub_class {
        for _ in 0..a.objects.max(u32::from(
            a.echo || a.ping > 0 || a.lockstep > 0 || a.ner_events > 0,
        )) {
            objs.push(rti.register_object_instance(c)?);
        }
        out(
            serde_json::json!({"event":"registered","objects":objs.iter().map(|o| o.0).collect::<Vec<_>>()}),
        );
    }
    let value = |n: u64| {
        let mut v = n.to_be_bytes().to_vec();
        v.resize(a.ping_size.max(8), 0);
        v
    };
    if a.lockstep > 0 {
        let Some(obj) = objs.first().copied() else {
            return Err(RtiError::ObjectClassNotPublished(
                "--lockstep needs --publish".into(),
            ));
        };
        let steps = Steps::new(&step_rx, &rti, a.evoked);
        lockstep(&rti, &a, obj, &pub_attrs, &steps, &lrc_stats)?;
        // One more step without updates before resigning: its grant needs every other
        // federate's request for it, i.e. every other federate was granted the last step and so
        // has received our last update. Resigning earlier races the resignation (decided by the
        // coordinator) against our last data at the others — a known gap of the RTI, see the
        // crate docs — and the test would measure that race instead of time management.
        let last = time(f64::from(a.lockstep) + 1.0)?;
        rti.time_advance_request(last)?;
        while !matches!(steps.next("the closing grant")?, Step::Grant(_)) {}
        rti.resign_federation_execution(ResignAction::DeleteObjects)?;
        out(serde_json::json!({"event":"done"}));
        return Ok(());
    }
    if a.ner_events > 0 {
        let Some(obj) = objs.first().copied() else {
            return Err(RtiError::ObjectClassNotPublished(
                "--ner-events needs --publish".into(),
            ));
        };
        let steps = Steps::new(&step_rx, &rti, a.evoked);
        ner_run(&rti, &a, obj, &pub_attrs, &steps)?;
        // Closing TAR past the end, as for the lockstep: its grant means every other federate
        // reached the end too, so resigning cannot race anyone's last deliveries.
        rti.time_advance_request(time(a.ner_end + 1.0)?)?;
        while !matches!(steps.next("the closing grant")?, Step::Grant(_)) {}
        rti.resign_federation_execution(ResignAction::DeleteObjects)?;
        out(serde_json::json!({"event":"done"}));
        return Ok(());
    }
    if a.echo {
        // Every reflected value is echoed from within the callback; nothing else to do.
        let rti = Arc::new(rti);
        let _ = echo.set((rti, objs[0], pub_attrs));
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    if a.ping > 0 {
        let mut rtts = Vec::new();
        let mut n = 1u64;
        let deadline = Instant::now() + Duration::from_secs(20);
        while rtts.len() < a.ping as usize && Instant::now() < deadline {
            let vals = pub_attrs.iter().map(|h| (*h, value(n))).collect();
            let t0 = Instant::now();
            rti.update_attribute_values(objs[0], vals, b"")?;
            while let Ok(v) = ping_rx.recv_timeout(Duration::from_millis(200)) {
                if v.get(..8) == Some(&n.to_be_bytes()[..]) {
                    rtts.push(t0.elapsed().as_secs_f64() * 1e6);
                    break;
                }
            }
            n += 1;
        }
        rtts.sort_by(f64::total_cmp);
        let pct = |p: f64| rtts.get(((rtts.len() as f64 - 1.0) * p) as usize).copied();
        out(
            serde_json::json!({"event":"rtt","payload_bytes":a.ping_size,"n":rtts.len(),"p50_us":pct(0.5),"p99_us":pct(0.99),"min_us":rtts.first()}),
        );
        return Ok(());
    }
    let fdd = rti.fdd_of_federation()?;
    let mut n = 0u64;
    let paced_from = Instant::now();
    while n < u64::from(a.updates) || a.forever {
        n += 1;
        for o in &objs {
            let vals = pub_attrs.iter().map(|h| (*h, value(n))).collect();
            rti.update_attribute_values(*o, vals, b"")?;
        }
        match a.update_hz.filter(|hz| *hz > 0.0) {
            Some(hz) => {
                let next = paced_from + Duration::from_secs_f64(n as f64 / hz);
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
            None if a.interval_ms > 0 => {
                std::thread::sleep(Duration::from_millis(a.interval_ms));
            }
            None => {}
        }
    }
    out(
        serde_json::json!({"event":"updated","count":n,"datagrams_sent":lrc_stats.datagrams_sent()}),
    );
    if let Some(ic) = pub_ic {
        let params: Vec<(ParameterHandle, Vec<u8>)> = fdd
            .available_parameters(ic)
            .map_err(|e| RtiError::InteractionClassNotDefined(e.to_string()))?
            .into_iter()
            .map(|p| (p, vec![0, 0, 0, 1]))
            .collect();
        for _ in 0..a.interactions {
            rti.send_interaction(ic, params.clone(), b"")?;
        }
        out(serde_json::json!({"event":"sent_interactions","count":a.interactions}));
    }
    if a.delete {
        for o in &objs {
            rti.delete_object_instance(*o, b"")?;
        }
        out(serde_json::json!({"event":"deleted"}));
    }
    std::thread::sleep(Duration::from_millis(a.hold_ms));
    rti.resign_federation_execution(if a.resign_divest {
        ResignAction::UnconditionallyDivestAttributes
    } else {
        ResignAction::DeleteObjects
    })?;
    out(serde_json::json!({"event":"done","since_start_ms":start.elapsed().as_secs_f64()*1e3}));
    Ok(())
}

/// Where the time-managed runs take their callbacks from: the channel the ambassador feeds,
/// after evoking callbacks on this thread with `--evoked`.
struct Steps<'a> {
    rx: &'a crossbeam_channel::Receiver<Step>,
    evoke: Option<&'a RtiAmbassador>,
}

impl<'a> Steps<'a> {
    fn new(
        rx: &'a crossbeam_channel::Receiver<Step>,
        rti: &'a RtiAmbassador,
        evoked: bool,
    ) -> Self {
        Steps {
            rx,
            evoke: evoked.then_some(rti),
        }
    }

    fn next(&self, waiting: &str) -> Result<Step, RtiError> {
        let lost = || {
            RtiError::RtiInternalError(format!(
                "lockstep: no callback within 20 s waiting for {waiting}"
            ))
        };
        let Some(rti) = self.evoke else {
            return self
                .rx
                .recv_timeout(Duration::from_secs(20))
                .map_err(|_| lost());
        };
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(s) = self.rx.try_recv() {
                return Ok(s);
            }
            if Instant::now() > end {
                return Err(lost());
            }
            rti.evoke_callback(Duration::from_millis(100))?;
        }
    }
}

fn time(v: f64) -> Result<Time, RtiError> {
    Time::new(v).ok_or_else(|| RtiError::InvalidLogicalTime(format!("{v}")))
}

/// Common start of the time-managed runs: waits for the other federates' instances, becomes
/// regulating (lookahead `--lookahead`) and constrained with asynchronous delivery, then a ready
/// barrier. Returns the other federates that are ready.
fn time_setup(
    rti: &RtiAmbassador,
    a: &Args,
    obj: ObjectInstanceHandle,
    attrs: &[AttributeHandle],
    rx: &Steps,
) -> Result<std::collections::BTreeSet<FederateHandle>, RtiError> {
    let others = a.federates.saturating_sub(1) as usize;
    // Others' ready messages may come at any point before we wait for them — even while we
    // still wait for the last discovery: a federate that discovered every instance and got
    // through its enables sends "ready" that can reach us before a third federate's
    // registration does (no order between senders). Dropping it there stalled the barrier
    // (~1 run in 10 under CPU load): keep every "ready" from the first callback on.
    let mut ready = std::collections::BTreeSet::new();
    let mut wait_for = |what: &str, enabled: bool| -> Result<(), RtiError> {
        loop {
            match rx.next(what)? {
                Step::Enabled if enabled => return Ok(()),
                Step::Discovered if !enabled => return Ok(()),
                Step::Reflect {
                    producer, value, ..
                } if value == b"ready" => {
                    ready.insert(producer);
                }
                _ => {}
            }
        }
    };
    for _ in 0..others {
        wait_for("discoveries", false)?;
    }
    // RO messages reach a constrained federate outside advances only with async delivery.
    rti.enable_asynchronous_delivery()?;
    let lookahead = LogicalTimeInterval::new(a.lookahead)
        .ok_or_else(|| RtiError::InvalidLookahead(format!("{}", a.lookahead)))?;
    rti.enable_time_regulation(lookahead)?;
    wait_for("regulation", true)?;
    rti.enable_time_constrained()?;
    wait_for("constraint", true)?;
    // Ready barrier: a receive-order update once regulating and constrained; everyone answered
    // our regulation query before it, so their managers already bound their advances by ours.
    let vals = |v: &[u8]| attrs.iter().map(|h| (*h, v.to_vec())).collect::<Vec<_>>();
    rti.update_attribute_values(obj, vals(b"ready"), b"")?;
    while ready.len() < others {
        if let Step::Reflect {
            producer, value, ..
        } = rx.next(&format!("ready from others, have {ready:?}"))?
            && value == b"ready"
        {
            ready.insert(producer);
        }
    }
    out(serde_json::json!({"event":"ready"}));
    Ok(ready)
}

/// The lockstep run (see `--lockstep`). Prints one `lockstep` line: grants, reflections and the
/// first violations found (a reflection with the wrong time, order or step, or a missing one).
fn lockstep(
    rti: &RtiAmbassador,
    a: &Args,
    obj: ObjectInstanceHandle,
    attrs: &[AttributeHandle],
    rx: &Steps,
    lrc: &Lrc,
) -> Result<(), RtiError> {
    let me = rti.federate().map(|(_, h)| h);
    let ready = time_setup(rti, a, obj, attrs, rx)?;
    let vals = |v: &[u8]| attrs.iter().map(|h| (*h, v.to_vec())).collect::<Vec<_>>();
    // Federates still running: a lost one's instance is removed and it is no longer awaited.
    let mut alive = ready.clone();
    let mut violations: Vec<String> = Vec::new();
    let mut reflects = 0u64;
    let mut grants = 0u64;
    let started = Instant::now();
    let sent0 = lrc.datagrams_sent();
    for step in 1..=a.lockstep {
        let now = time(f64::from(step))?;
        rti.update_attribute_values_with_time(obj, vals(&step.to_be_bytes()), b"", now)?;
        rti.time_advance_request(now)?;
        let mut from = std::collections::BTreeSet::new();
        loop {
            match rx.next(&format!("step {step}, reflections from {from:?}"))? {
                Step::Grant(g) => {
                    grants += 1;
                    if g != now {
                        violations.push(format!("step {step}: granted {g:?}"));
                    }
                    break;
                }
                Step::Reflect {
                    producer,
                    value,
                    time,
                    received,
                } => {
                    reflects += 1;
                    let ok = time == Some(now)
                        && received == OrderType::TimeStamp
                        && value == step.to_be_bytes()
                        && Some(producer) != me
                        && from.insert(producer);
                    if !ok {
                        violations.push(format!(
                            "step {step}: reflect from {producer} at {time:?} ({received:?}) value {value:?}"
                        ));
                    }
                }
                Step::Removed(o) => {
                    alive.remove(&o.registrant());
                }
                other => violations.push(format!("step {step}: unexpected {other:?}")),
            }
        }
        if !alive.is_subset(&from) {
            violations.push(format!(
                "step {step}: reflections from {from:?} only, expected {alive:?}"
            ));
        }
        if step % 50 == 0 {
            out(serde_json::json!({"event":"step","step":step}));
        }
        violations.truncate(10);
    }
    let secs = started.elapsed().as_secs_f64();
    out(serde_json::json!({
        "event": "lockstep",
        "steps": a.lockstep,
        "grants": grants,
        "reflects": reflects,
        "violations": violations,
        "secs": secs,
        "grants_per_s": f64::from(a.lockstep) / secs,
        "logical_time": rti.query_logical_time()?.value(),
        "datagrams_by_caller": lrc.datagrams_received_by_callers(),
        "datagrams_sent": lrc.datagrams_sent() - sent0,
    }));
    Ok(())
}

/// splitmix64: the event-driven run's own small seeded generator (no dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The event-driven run (see `--ner-events`): every advance is a NER to our next own event (or
/// to the end). Each own event sends one timestamped update just after it (a regulating
/// federate with zero lookahead may send only strictly after a NER grant); each received update
/// is answered with probability 1/5 the same way, so chains of events arise that nobody could
/// know when requesting. Times are multiples of 0.5 (ties between federates happen).
///
/// Checks per advance: every delivery is time-stamp order at one time t' ≤ the request, the
/// grant is at t' when something was delivered and at the request otherwise (a NER grants only
/// at a message time or at its request), and grants never go back. Prints one `ner` line with
/// every update sent and received, for the test to check that each federate received every
/// other's updates exactly once, each in the advance granted at its time (so none was granted
/// past).
fn ner_run(
    rti: &RtiAmbassador,
    a: &Args,
    obj: ObjectInstanceHandle,
    attrs: &[AttributeHandle],
    rx: &Steps,
) -> Result<(), RtiError> {
    let me = rti.federate().map(|(_, h)| h);
    time_setup(rti, a, obj, attrs, rx)?;
    let end = a.ner_end;
    // Half-units in [2, 2·end): own events at sparse random times.
    let half_end = (end * 2.0) as u64;
    let mut rng = Rng(a.seed);
    let mut wakeups: std::collections::BTreeSet<u64> = std::collections::BTreeSet::new();
    while wakeups.len() < a.ner_events as usize && (wakeups.len() as u64) < half_end - 2 {
        wakeups.insert(2 + rng.below(half_end - 2));
    }
    let vals = |v: &[u8]| attrs.iter().map(|h| (*h, v.to_vec())).collect::<Vec<_>>();
    let mut sent: Vec<f64> = Vec::new();
    // (producer, time, grant index it was delivered in)
    let mut received: Vec<(u32, f64, u64)> = Vec::new();
    let mut grants: Vec<f64> = Vec::new();
    let mut violations: Vec<String> = Vec::new();
    let mut now = 0u64; // logical time in half-units
    let started = Instant::now();
    loop {
        let request = wakeups.first().copied().unwrap_or(half_end);
        let target = time(request as f64 / 2.0)?;
        rti.next_message_request(target)?;
        let mut delivered: Vec<f64> = Vec::new();
        let g = loop {
            match rx.next(&format!("NER({target:?}), delivered {delivered:?}"))? {
                Step::Grant(g) => break g,
                Step::Reflect {
                    producer,
                    time,
                    received: order,
                    ..
                } => {
                    let t = time.map(|t| t.value());
                    if order != OrderType::TimeStamp || Some(producer) == me {
                        violations.push(format!(
                            "NER({request}): reflect from {producer} at {t:?} in {order:?}"
                        ));
                    }
                    let t = t.unwrap_or(f64::NAN);
                    received.push((producer.0, t, grants.len() as u64));
                    delivered.push(t);
                }
                other => violations.push(format!("NER({request}): unexpected {other:?}")),
            }
        };
        let gv = g.value();
        let req = request as f64 / 2.0;
        if delivered.is_empty() {
            if gv != req {
                violations.push(format!("NER({req}) granted {gv} with nothing delivered"));
            }
        } else if delivered.iter().any(|t| *t != gv) || gv > req {
            violations.push(format!(
                "NER({req}) granted {gv} after delivering {delivered:?}"
            ));
        }
        // Every request is past our time, so a grant at or below it (and any delivery there)
        // would mean a message at that time came after we were granted it.
        if gv * 2.0 <= now as f64 {
            violations.push(format!(
                "grant {gv} not past the previous one {}",
                now as f64 / 2.0
            ));
        }
        grants.push(gv);
        now = (gv * 2.0) as u64;
        if now >= half_end {
            break;
        }
        // Our events due now, and reactions to what was delivered: one update each, strictly
        // after now (0.5 to 5 later), while before the end.
        let mut sends = 0;
        while wakeups.first() == Some(&now) {
            wakeups.pop_first();
            sends += 1;
        }
        for _ in &delivered {
            if rng.below(5) == 0 {
                sends += 1;
            }
        }
        for _ in 0..sends {
            let at = now + 1 + rng.below(10);
            if at < half_end {
                let t = at as f64 / 2.0;
                rti.update_attribute_values_with_time(obj, vals(&at.to_be_bytes()), b"", time(t)?)?;
                sent.push(t);
            }
        }
        violations.truncate(10);
        if grants.len() > 100_000 {
            violations.push("more than 100000 grants: creeping".into());
            break;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    out(serde_json::json!({
        "event": "ner",
        "handle": me.map(|h| h.0),
        "grants": grants.len(),
        "sent": sent,
        "received": received,
        "violations": violations,
        "secs": secs,
        "grants_per_s": grants.len() as f64 / secs,
        "logical_time": rti.query_logical_time()?.value(),
    }));
    Ok(())
}

/// Polls `rti.clock_offset(of)` (bounded: 20 s) and prints the first estimate and the one
/// `settle` later as one `clock` line.
fn clock_report(rti: &RtiAmbassador, of: FederateHandle, settle: Duration) -> Result<(), RtiError> {
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(20) + settle;
    let mut first = None;
    loop {
        if let Some(e) = rti.clock_offset(of)? {
            let (f, at) = *first.get_or_insert((e, t0.elapsed()));
            if t0.elapsed() >= at + settle {
                out(serde_json::json!({
                    "event": "clock",
                    "first_after_ms": at.as_secs_f64() * 1e3,
                    "first": {"offset_ns": f.offset_ns, "error_bound_ns": f.error_bound_ns, "rtt_ns": f.rtt_ns},
                    "offset_ns": e.offset_ns,
                    "error_bound_ns": e.error_bound_ns,
                    "rtt_ns": e.rtt_ns,
                }));
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            return Err(RtiError::RtiInternalError(format!(
                "no clock offset estimate for {of} within 20 s"
            )));
        }
        // No event announces a new estimate: poll at the probe rate's 1/20.
        std::thread::sleep(Duration::from_millis(50));
    }
}
