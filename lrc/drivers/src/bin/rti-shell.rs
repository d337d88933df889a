//! Test-only interactive federate for the multi-process tests: joins a federation, then reads one
//! command per line on stdin and prints one JSON line per callback or command result on stdout,
//! so a test can drive several processes step by step and await each outcome instead of
//! sleeping.
//!
//! Commands:
//! - `register LABEL [NAME,NAME…]` — register a synchronization point (federation-wide without
//!   names; otherwise the named federates, resolved with `get_federate_handle`; an unknown name
//!   becomes a handle that is not joined).
//! - `achieve LABEL [false]` — achieve a point (unsuccessfully with `false`).
//! - `save LABEL`, `save-begun`, `save-complete`, `save-not-complete`, `abort-save`,
//!   `save-status` — federation save services; `write-state TEXT` writes TEXT to
//!   `state.txt` in the federate's state directory of the save in progress.
//! - `restore LABEL`, `restore-complete`, `restore-not-complete`, `abort-restore`,
//!   `restore-status` — federation restore services; `read-state` prints the `state.txt` the
//!   federate wrote in the save being restored (`{"event":"state","text":…}`).
//! - `reserve NAME` — reserve an object instance name (a service refused during a save); the
//!   outcome prints `reserved` / `not_reserved` with the name as label.
//! - Objects and ownership (CLASS and ATTR are names, ATTRS comma-separated names, OBJ the
//!   number printed by `register-object` / `discover`): `publish CLASS ATTRS`,
//!   `subscribe CLASS ATTRS`, `register-object CLASS` (prints `registered_object`),
//!   `update OBJ ATTR VALUE`, `divest OBJ ATTRS`, `negotiate OBJ ATTRS TAG`,
//!   `confirm OBJ ATTRS TAG`, `cancel-divest OBJ ATTRS`, `acquire OBJ ATTRS TAG`,
//!   `acquire-if OBJ ATTRS`, `cancel-acquire OBJ ATTRS`, `deny OBJ ATTRS`,
//!   `if-wanted OBJ ATTRS` (prints `divested`), `query OBJ ATTR`, `owned OBJ ATTR` (prints
//!   `owned`), `auto-resign ACTION`. Callbacks print `discover`, `reflect` (value as text,
//!   producer), `assume`, `confirm_request`, `acquired`, `unavailable`, `release_request`,
//!   `cancelled`, `owner` (owner 0: not owned), with `object` and `attrs` as numbers.
//! - Time management and retraction (TIME and LOOKAHEAD are `HLAfloat64Time` values, ICLASS an
//!   interaction class name, HANDLE a retraction handle as printed): `regulate LOOKAHEAD`
//!   (prints `regulating`), `constrain` (prints `constrained`), `tar TIME` (the grant prints
//!   `grant` with the time as label), `publish-interaction ICLASS`,
//!   `subscribe-interaction ICLASS`, `send ICLASS TAG` (prints `sent`), `send-at ICLASS TIME
//!   TAG`, `update-at OBJ ATTR VALUE TIME`,
//!   `delete-at OBJ TIME` (each prints `sent` with the retraction `handle`, labelled with TAG,
//!   VALUE or `delete`), `retract HANDLE`. Callbacks print `interaction` (TAG as label, `time`,
//!   `retraction`: the handle or 0), `reflect` (with `time` and `retraction` too), `remove`
//!   (`object`, `retraction`) and `request_retraction` (`handle`).
//! - MOM (values printed and given as hex): `attr-handles CLASS` prints `{"event":"attrs",
//!   "class":…,"map":{name: handle}}`, `param-handles ICLASS` likewise (`"event":"params"`),
//!   `request-class CLASS ATTRS` asks for the values of every instance of a class,
//!   `send-mom ICLASS FEDERATE [PARAM=HEX …]` sends an interaction whose `HLAfederate`
//!   parameter is FEDERATE's handle (HLAhandle), `send-mom-federation ICLASS [PARAM=HEX …]`
//!   one with exactly the parameters given (the federation-level `HLAmanager.HLAfederation`
//!   interactions, or a malformed federate-level one). `reflect` lines carry the value as `hex`,
//!   `discover` the `class`, `interaction` the `class` and `params` (handle → hex);
//!   `attribute_is_owned_by_rti` prints `owner` with `"owner":"rti"`.
//! - DDM (REGION is a name this shell gave a region, or `#N` for the raw handle N; REGIONS
//!   comma-separated; RANGES `DIM=LO..HI` comma-separated): `region NAME RANGES` creates a
//!   region over those dimensions with those ranges, committed (prints `region` with the name
//!   as label and the `region` handle), `move REGION RANGES` sets and commits,
//!   `move-update REGION RANGES OBJ ATTR VALUE` sets, commits and updates in one go (a moving
//!   entity's frame: the move can go inside the update, `hlamesh_core::core::move_fold`),
//!   `set-bounds REGION DIM LO HI` only sets, `commit REGIONS`, `bounds REGION DIM` (prints
//!   `bounds`), `delete-region REGION`, `scope-advisory` (turns attribute scope advisories on),
//!   `relevance-advisory` (turns attribute relevance advisories on),
//!   `subscribe-regions CLASS ATTRS REGIONS [passive]`, `unsubscribe-regions CLASS ATTRS
//!   REGIONS`, `register-object-regions CLASS ATTRS REGIONS` (prints `registered_object`),
//!   `associate OBJ ATTRS REGIONS`, `unassociate OBJ ATTRS REGIONS`,
//!   `subscribe-interaction-regions ICLASS REGIONS`, `unsubscribe-interaction-regions ICLASS
//!   REGIONS`, `send-regions ICLASS REGIONS TAG`, `send-regions-at ICLASS REGIONS TIME TAG`,
//!   `request-regions CLASS ATTRS REGIONS`. Callbacks print `in_scope` / `out_of_scope`
//!   and `updates_on` / `updates_off` (`object`, `attrs`) and `provide` (`object`, `attrs`).
//! - `handle` — prints this federate's current handle.
//! - `join` — joins the federation again (after `connection_lost`, printed as
//!   `{"event":"connection_lost","fault":…}`).
//! - `list` — `list_federation_executions`; the report prints `{"event":"executions",
//!   "list":[[name, time implementation], …]}` (`--time` names the one of a federation this
//!   shell creates).
//! - `cells` — prints this LRC's DDM cell-group counters of the federation
//!   (`{"event":"cells","joined_now":…,"joined":…,"left":…,"join_failures":…,
//!   "wide_fallbacks":…,"member_fallbacks":…,"cannot_join_now":…,"members_cannot_join_now":…,
//!   "messages":…,"datagrams":…,"best_effort_received":…,"received_by_group":[…],
//!   "moves_in_cells":…,"moves_folded":…,"stale_drops":…}`, the last three the federation
//!   core's; see
//!   `docs/DDM.md`).
//! - `drain-timeouts` — prints how many channel closes of this LRC gave up waiting for the
//!   members' acknowledgements (`{"event":"drain_timeouts","count":…}`).
//! - `lrcs` — prints the LRCs in this LRC's view of the federation (`{"event":"lrcs",
//!   "nodes":[…]}`, in join order); the `joined` line carries this LRC's `node`.
//! - `disconnect` — resign (DeleteObjects) and disconnect, staying up; `connect` connects
//!   again (then `join`).
//! - `resign` — resign (DeleteObjects) and exit.
//! - `exit` — exit without resigning (like a crash, but clean for the OS).
//!
//! Every command answers `{"event":"ok","cmd":…}` or `{"event":"failed","cmd":…,"error":…}`.

use std::collections::BTreeMap;
use std::io::BufRead;

use clap::Parser;
use hlamesh_drivers::lab_net::LabNetArgs;
use hlamesh_drivers::startup::out;
use hlamesh_lrc::ambassador::{
    CallbackModel, FederateAmbassador, LogicalTimeInterval, RangeBounds, RestoreFailureReason,
    RestoreStatus, RtiAmbassador, SaveFailureReason, SaveStatus, SynchronizationPointFailureReason,
    Time,
};
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::fom::OrderType;
use hlamesh_lrc::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle,
    MessageRetractionHandle, ObjectClassHandle, ObjectInstanceHandle, ParameterHandle,
    RegionHandle,
};
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
    #[arg(long, default_value = "shell")]
    name: String,
    /// Create the federation first if it does not exist.
    #[arg(long)]
    create: bool,
    /// Logical time implementation of a federation it creates.
    #[arg(long, default_value = "HLAfloat64Time")]
    time: String,
    /// FOM module files the federate brings at its join.
    #[arg(long)]
    join_fom: Vec<String>,
}

struct Amb;

fn hex(v: &[u8]) -> String {
    v.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Result<Vec<u8>, RtiError> {
    let bad = || RtiError::RtiInternalError(format!("bad hex {s:?}"));
    if !s.len().is_multiple_of(2) {
        return Err(bad());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
                .ok_or_else(bad)
        })
        .collect()
}

fn nums(attrs: &[AttributeHandle]) -> Vec<u32> {
    attrs.iter().map(|a| a.0).collect()
}

/// A retraction handle as printed (0: none).
fn retraction(h: Option<MessageRetractionHandle>) -> u64 {
    h.map_or(0, |h| h.0)
}

/// An encoded `HLAfloat64Time` as printed (`null` if absent or not one).
fn time_of(bytes: Option<&[u8]>) -> serde_json::Value {
    bytes
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(serde_json::Value::Null, |b| json!(f64::from_be_bytes(b)))
}

/// The conveyed sent-region handles of a reflection or interaction (`null`: none conveyed).
fn sent_regions(info: &hlamesh_lrc::core::ReceiveInfo) -> serde_json::Value {
    info.sent_regions
        .as_ref()
        .map_or(serde_json::Value::Null, |hs| {
            json!(hs.iter().map(|h| h.0).collect::<Vec<_>>())
        })
}

fn float_time(s: &str) -> Result<Time, RtiError> {
    s.parse::<f64>()
        .ok()
        .and_then(Time::new)
        .ok_or_else(|| RtiError::InvalidLogicalTime(format!("bad time {s:?}")))
}

impl FederateAmbassador for Amb {
    fn report_federation_executions(&mut self, executions: &[(String, String)]) {
        out(json!({"event":"executions","list":executions}));
    }
    fn connection_lost(&mut self, fault: &str) {
        out(json!({"event":"connection_lost","fault":fault}));
    }
    fn discover_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        _class: ObjectClassHandle,
        name: &str,
        _producer: FederateHandle,
    ) {
        out(json!({"event":"discover","object":object.0,"label":name,"class":_class.0}));
    }
    fn reflect_attribute_values(
        &mut self,
        object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        info: &hlamesh_lrc::core::ReceiveInfo,
    ) {
        for (a, v) in values {
            out(json!({"event":"reflect","object":object.0,"attr":a.0,
                "value":String::from_utf8_lossy(v),"hex":hex(v),"producer":info.producer.0,
                "time":time_of(info.time.as_deref()),"retraction":retraction(info.retraction),
                "sent":sent_regions(info)}));
        }
    }
    fn receive_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
        tag: &[u8],
        info: &hlamesh_lrc::core::ReceiveInfo,
    ) {
        let ps: serde_json::Map<String, serde_json::Value> = params
            .iter()
            .map(|(p, v)| (p.0.to_string(), json!(hex(v))))
            .collect();
        out(
            json!({"event":"interaction","label":String::from_utf8_lossy(tag),
            "class":class.0,"params":ps,"producer":info.producer.0,
            "time":time_of(info.time.as_deref()),"retraction":retraction(info.retraction),
            "received":format!("{:?}", info.received_order),"sent":sent_regions(info)}),
        );
    }
    fn remove_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        _tag: &[u8],
        _producer: Option<FederateHandle>,
    ) {
        out(json!({"event":"remove","object":object.0,"retraction":0}));
    }
    fn remove_object_instance_with_time(
        &mut self,
        object: ObjectInstanceHandle,
        _tag: &[u8],
        _producer: Option<FederateHandle>,
        time: &[u8],
        _sent_order: OrderType,
        received_order: OrderType,
        handle: Option<MessageRetractionHandle>,
    ) {
        out(
            json!({"event":"remove","object":object.0,"time":time_of(Some(time)),
            "retraction":retraction(handle),"received":format!("{received_order:?}")}),
        );
    }
    fn attributes_in_scope(&mut self, object: ObjectInstanceHandle, attrs: &[AttributeHandle]) {
        out(json!({"event":"in_scope","object":object.0,"attrs":nums(attrs)}));
    }
    fn attributes_out_of_scope(&mut self, object: ObjectInstanceHandle, attrs: &[AttributeHandle]) {
        out(json!({"event":"out_of_scope","object":object.0,"attrs":nums(attrs)}));
    }
    fn turn_updates_on_for_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
        out(json!({"event":"updates_on","object":object.0,"attrs":nums(attrs)}));
    }
    fn turn_updates_off_for_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
        out(json!({"event":"updates_off","object":object.0,"attrs":nums(attrs)}));
    }
    fn provide_attribute_value_update(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        _tag: &[u8],
    ) {
        out(json!({"event":"provide","object":object.0,"attrs":nums(attrs)}));
    }
    fn request_retraction(&mut self, handle: MessageRetractionHandle) {
        out(json!({"event":"request_retraction","handle":handle.0}));
    }
    fn time_regulation_enabled(&mut self, time: Time) {
        out(json!({"event":"regulating","label":time.value().to_string()}));
    }
    fn time_constrained_enabled(&mut self, time: Time) {
        out(json!({"event":"constrained","label":time.value().to_string()}));
    }
    fn time_advance_grant(&mut self, time: Time) {
        out(json!({"event":"grant","label":time.value().to_string()}));
    }
    fn request_attribute_ownership_assumption(
        &mut self,
        object: ObjectInstanceHandle,
        offered: &[AttributeHandle],
        tag: &[u8],
    ) {
        out(
            json!({"event":"assume","object":object.0,"attrs":nums(offered),
            "label":String::from_utf8_lossy(tag)}),
        );
    }
    fn request_divestiture_confirmation(
        &mut self,
        object: ObjectInstanceHandle,
        released: &[AttributeHandle],
    ) {
        out(json!({"event":"confirm_request","object":object.0,"attrs":nums(released)}));
    }
    fn attribute_ownership_acquisition_notification(
        &mut self,
        object: ObjectInstanceHandle,
        secured: &[AttributeHandle],
        tag: &[u8],
    ) {
        out(
            json!({"event":"acquired","object":object.0,"attrs":nums(secured),
            "label":String::from_utf8_lossy(tag)}),
        );
    }
    fn attribute_ownership_unavailable(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
        out(json!({"event":"unavailable","object":object.0,"attrs":nums(attrs)}));
    }
    fn request_attribute_ownership_release(
        &mut self,
        object: ObjectInstanceHandle,
        candidates: &[AttributeHandle],
        tag: &[u8],
    ) {
        out(
            json!({"event":"release_request","object":object.0,"attrs":nums(candidates),
            "label":String::from_utf8_lossy(tag)}),
        );
    }
    fn confirm_attribute_ownership_acquisition_cancellation(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
        out(json!({"event":"cancelled","object":object.0,"attrs":nums(attrs)}));
    }
    fn inform_attribute_ownership(
        &mut self,
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
        owner: FederateHandle,
    ) {
        out(json!({"event":"owner","object":object.0,"attr":attr.0,"owner":owner.0}));
    }
    fn attribute_is_not_owned(&mut self, object: ObjectInstanceHandle, attr: AttributeHandle) {
        out(json!({"event":"owner","object":object.0,"attr":attr.0,"owner":0}));
    }
    fn attribute_is_owned_by_rti(&mut self, object: ObjectInstanceHandle, attr: AttributeHandle) {
        out(json!({"event":"owner","object":object.0,"attr":attr.0,"owner":"rti"}));
    }
    fn synchronization_point_registration_succeeded(&mut self, label: &str) {
        out(json!({"event":"registered","label":label}));
    }
    fn synchronization_point_registration_failed(
        &mut self,
        label: &str,
        reason: SynchronizationPointFailureReason,
    ) {
        out(json!({"event":"register_failed","label":label,"reason":format!("{reason:?}")}));
    }
    fn announce_synchronization_point(&mut self, label: &str, tag: &[u8]) {
        out(json!({"event":"announce","label":label,"tag":String::from_utf8_lossy(tag)}));
    }
    fn federation_synchronized(&mut self, label: &str, failed: &[FederateHandle]) {
        let failed: Vec<u32> = failed.iter().map(|h| h.0).collect();
        out(json!({"event":"synchronized","label":label,"failed":failed}));
    }
    fn initiate_federate_save(
        &mut self,
        label: &str,
        _time: Option<hlamesh_lrc::ambassador::Time>,
    ) {
        out(json!({"event":"initiate_save","label":label}));
    }
    fn federation_saved(&mut self) {
        out(json!({"event":"saved"}));
    }
    fn federation_not_saved(&mut self, reason: SaveFailureReason) {
        out(json!({"event":"not_saved","reason":format!("{reason:?}")}));
    }
    fn federation_save_status_response(&mut self, status: &[(FederateHandle, SaveStatus)]) {
        let v: Vec<(u32, String)> = status
            .iter()
            .map(|(h, s)| (h.0, format!("{s:?}")))
            .collect();
        out(json!({"event":"save_status","status":v}));
    }
    fn object_instance_name_reservation_succeeded(&mut self, name: &str) {
        out(json!({"event":"reserved","label":name}));
    }
    fn object_instance_name_reservation_failed(&mut self, name: &str) {
        out(json!({"event":"not_reserved","label":name}));
    }
    fn request_federation_restore_succeeded(&mut self, label: &str) {
        out(json!({"event":"restore_request_ok","label":label}));
    }
    fn request_federation_restore_failed(&mut self, label: &str, reason: &str) {
        out(json!({"event":"restore_request_failed","label":label,"reason":reason}));
    }
    fn federation_restore_begun(&mut self) {
        out(json!({"event":"restore_begun"}));
    }
    fn initiate_federate_restore(&mut self, label: &str, name: &str, handle: FederateHandle) {
        out(json!({"event":"initiate_restore","label":label,"name":name,"handle":handle.0}));
    }
    fn federation_restored(&mut self) {
        out(json!({"event":"restored"}));
    }
    fn federation_not_restored(&mut self, reason: RestoreFailureReason, detail: &str) {
        out(json!({"event":"not_restored","reason":format!("{reason:?}"),"detail":detail}));
    }
    fn federation_restore_status_response(
        &mut self,
        status: &[(FederateHandle, FederateHandle, RestoreStatus)],
    ) {
        let v: Vec<(u32, u32, String)> = status
            .iter()
            .map(|(a, b, s)| (a.0, b.0, format!("{s:?}")))
            .collect();
        out(json!({"event":"restore_status","status":v}));
    }
}

fn main() {
    hlamesh_drivers::startup::main(run);
}

fn run() -> Result<(), RtiError> {
    let a = Args::parse();
    let cfg = a.net.transport_config();
    let lrc = Lrc::start(cfg)?;
    let mut rti = RtiAmbassador::with_lrc(lrc.clone());
    rti.connect(Box::new(Amb), CallbackModel::Immediate)?;
    if a.create {
        let mut modules = Vec::new();
        for p in &a.fom {
            let text = std::fs::read_to_string(p)
                .map_err(|e| RtiError::CouldNotOpenFdd(format!("{p}: {e}")))?;
            modules.push((p.clone(), text));
        }
        match rti.create_federation_execution_with_time(&a.federation, modules, &a.time) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let h = rti.join_federation_execution_with_modules(
        Some(&a.name),
        "shell",
        &a.federation,
        &a.join_fom,
    )?;
    out(json!({"event":"joined","handle":h.0,"node":lrc.node_id().0}));
    let mut regions: BTreeMap<String, RegionHandle> = BTreeMap::new();
    let obj = |s: &str| -> Result<ObjectInstanceHandle, RtiError> {
        s.parse()
            .map(ObjectInstanceHandle)
            .map_err(|_| RtiError::RtiInternalError(format!("bad object {s:?}")))
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(r) = ddm(&rti, &mut regions, &words) {
            match r {
                Ok(()) => out(json!({"event":"ok","cmd":line})),
                Err(e) => out(json!({"event":"failed","cmd":line,"error":e.to_string()})),
            }
            continue;
        }
        let r = match words.as_slice() {
            ["register", label] => rti.register_federation_synchronization_point(label, b"tag"),
            ["register", label, names] => {
                let set: Vec<FederateHandle> = names
                    .split(',')
                    .map(|n| {
                        rti.get_federate_handle(n)
                            .unwrap_or(FederateHandle(u32::MAX - 1))
                    })
                    .collect();
                rti.register_federation_synchronization_point_with_set(label, b"tag", &set)
            }
            ["achieve", label] => rti.synchronization_point_achieved(label, true),
            ["achieve", label, "false"] => rti.synchronization_point_achieved(label, false),
            ["save", label] => rti.request_federation_save(label),
            ["save-begun"] => rti.federate_save_begun(),
            ["save-complete"] => rti.federate_save_complete(),
            ["save-not-complete"] => rti.federate_save_not_complete(),
            ["abort-save"] => rti.abort_federation_save(),
            ["save-status"] => rti.query_federation_save_status(),
            ["write-state", text] => rti.federate_state_dir().and_then(|d| {
                std::fs::write(d.join("state.txt"), text)
                    .map_err(|e| RtiError::RtiInternalError(e.to_string()))
            }),
            ["restore", label] => rti.request_federation_restore(label),
            ["restore-complete"] => rti.federate_restore_complete(),
            ["restore-not-complete"] => rti.federate_restore_not_complete(),
            ["abort-restore"] => rti.abort_federation_restore(),
            ["restore-status"] => rti.query_federation_restore_status(),
            ["read-state"] => rti.federate_state_dir().and_then(|d| {
                let text = std::fs::read_to_string(d.join("state.txt"))
                    .map_err(|e| RtiError::RtiInternalError(e.to_string()))?;
                out(json!({"event":"state","text":text}));
                Ok(())
            }),
            ["attr-handles", class] => rti.get_object_class_handle(class).and_then(|c| {
                let fdd = rti.fdd_of_federation()?;
                let map: serde_json::Map<String, serde_json::Value> = fdd
                    .available_attributes(c)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|a| Some((fdd.attribute_name(c, a).ok()?.to_string(), json!(a.0))))
                    .collect();
                out(json!({"event":"attrs","class":c.0,"map":map}));
                Ok(())
            }),
            ["param-handles", class] => rti.get_interaction_class_handle(class).and_then(|c| {
                let fdd = rti.fdd_of_federation()?;
                let map: serde_json::Map<String, serde_json::Value> = fdd
                    .available_parameters(c)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|p| Some((fdd.parameter_name(c, p).ok()?.to_string(), json!(p.0))))
                    .collect();
                out(json!({"event":"params","class":c.0,"map":map}));
                Ok(())
            }),
            ["request-class", class, attrs] => class_attrs(&rti, class, attrs)
                .and_then(|(c, a)| rti.request_class_attribute_value_update(c, &a, b"mom")),
            ["send-mom", class, target, params @ ..] => {
                rti.get_interaction_class_handle(class).and_then(|c| {
                    let t: u32 = target.parse().map_err(|_| {
                        RtiError::RtiInternalError(format!("bad handle {target:?}"))
                    })?;
                    let mut ps = vec![(
                        rti.get_parameter_handle(c, "HLAfederate")?,
                        hlamesh_lrc::core::mom::handle_value(&FederateHandle(t).encode()),
                    )];
                    for kv in params {
                        let (k, v) = kv.split_once('=').ok_or_else(|| {
                            RtiError::RtiInternalError(format!("bad parameter {kv:?}"))
                        })?;
                        ps.push((rti.get_parameter_handle(c, k)?, unhex(v)?));
                    }
                    rti.send_interaction(c, ps, b"mom")
                })
            }
            ["send-mom-federation", class, params @ ..] => {
                rti.get_interaction_class_handle(class).and_then(|c| {
                    let mut ps = Vec::new();
                    for kv in params {
                        let (k, v) = kv.split_once('=').ok_or_else(|| {
                            RtiError::RtiInternalError(format!("bad parameter {kv:?}"))
                        })?;
                        ps.push((rti.get_parameter_handle(c, k)?, unhex(v)?));
                    }
                    rti.send_interaction(c, ps, b"mom")
                })
            }
            ["handle"] => {
                let h = rti.federate().map_or(0, |(_, h)| h.0);
                out(json!({"event":"handle","handle":h}));
                Ok(())
            }
            ["reserve", name] => rti.reserve_object_instance_name(name),
            ["join"] => rti
                .join_federation_execution(Some(&a.name), "shell", &a.federation)
                .map(|h| out(json!({"event":"joined","handle":h.0,"node":lrc.node_id().0}))),
            ["list"] => rti.list_federation_executions(),
            ["decision-log"] => lrc
                .decision_log(&a.federation)
                .map(|(last, base, kept, w)| {
                    out(json!({
                        "event": "decision_log",
                        "last": last,
                        "base": base,
                        "kept": kept,
                        "welcome_decisions": w.map(|w| w.decisions),
                        "welcome_bytes": w.map(|w| w.bytes),
                    }));
                }),
            ["cells"] => {
                let c = lrc.cell_stats(&a.federation).unwrap_or_default();
                let d = lrc.ddm_region_counters(&a.federation);
                out(
                    json!({"event":"cells","joined_now":c.joined_now,"joined":c.joined,
                    "left":c.left,"join_failures":c.join_failures,
                    "wide_fallbacks":c.wide_fallbacks,"member_fallbacks":c.member_fallbacks,
                    "cannot_join_now":c.cannot_join_now,
                    "members_cannot_join_now":c.members_cannot_join_now,"messages":c.messages,
                    "datagrams":c.datagrams,"best_effort_received":c.best_effort_received,
                    "received_by_group":c.received_by_group,
                    "moves_in_cells":d.moves_in_cells,"moves_folded":d.moves_folded,
                    "stale_drops":d.stale_drops}),
                );
                Ok(())
            }
            ["drain-timeouts"] => {
                let n = lrc.close_drain_timeouts();
                out(json!({"event":"drain_timeouts","count":n}));
                Ok(())
            }
            ["lrcs"] => lrc.member_lrcs(&a.federation).map(|v| {
                let nodes: Vec<u64> = v.iter().map(|n| n.0).collect();
                out(json!({"event":"lrcs","nodes":nodes}));
            }),
            ["disconnect"] => rti
                .resign_federation_execution(ResignAction::DeleteObjects)
                .and_then(|()| rti.disconnect()),
            ["connect"] => rti.connect(Box::new(Amb), CallbackModel::Immediate),
            ["publish", class, attrs] => class_attrs(&rti, class, attrs)
                .and_then(|(c, a)| rti.publish_object_class_attributes(c, &a)),
            ["subscribe", class, attrs] => class_attrs(&rti, class, attrs)
                .and_then(|(c, a)| rti.subscribe_object_class_attributes(c, &a, true)),
            ["register-object", class] => rti
                .get_object_class_handle(class)
                .and_then(|c| rti.register_object_instance(c))
                .map(|o| out(json!({"event":"registered_object","object":o.0}))),
            ["update", o, attr, value] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attr)?;
                rti.update_attribute_values(o, vec![(a[0], value.as_bytes().to_vec())], b"")
            }),
            // `count` updates (at most 100,000), one every `period_ms`: a steady stream of
            // traffic for tests that measure what something else adds to it.
            ["stream", o, attr, count, period_ms] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attr)?;
                let bad = |v: &str| RtiError::RtiInternalError(format!("bad number {v:?}"));
                let count: u32 = count.parse().map_err(|_| bad(count))?;
                let period: u64 = period_ms.parse().map_err(|_| bad(period_ms))?;
                let period = std::time::Duration::from_millis(period.min(10_000));
                let start = std::time::Instant::now();
                for i in 0..count.min(100_000) {
                    rti.update_attribute_values(o, vec![(a[0], i.to_string().into_bytes())], b"")?;
                    // Paced against the start, so a late wake-up does not slow the stream.
                    let next = start + period * (i + 1);
                    std::thread::sleep(next.saturating_duration_since(std::time::Instant::now()));
                }
                out(json!({"event":"streamed","count":count.min(100_000)}));
                Ok(())
            }),
            ["divest", o, attrs] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.unconditional_attribute_ownership_divestiture(o, &a)
            }),
            ["negotiate", o, attrs, tag] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.negotiated_attribute_ownership_divestiture(o, &a, tag.as_bytes())
            }),
            ["confirm", o, attrs, tag] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.confirm_divestiture(o, &a, tag.as_bytes())
            }),
            ["cancel-divest", o, attrs] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.cancel_negotiated_attribute_ownership_divestiture(o, &a)
            }),
            ["acquire", o, attrs, tag] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.attribute_ownership_acquisition(o, &a, tag.as_bytes())
            }),
            ["acquire-if", o, attrs] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.attribute_ownership_acquisition_if_available(o, &a)
            }),
            ["cancel-acquire", o, attrs] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.cancel_attribute_ownership_acquisition(o, &a)
            }),
            ["deny", o, attrs] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                rti.attribute_ownership_release_denied(o, &a)
            }),
            ["if-wanted", o, attrs] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attrs)?;
                let d = rti.attribute_ownership_divestiture_if_wanted(o, &a)?;
                out(json!({"event":"divested","object":o.0,"attrs":nums(&d)}));
                Ok(())
            }),
            ["query", o, attr] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attr)?;
                rti.query_attribute_ownership(o, a[0])
            }),
            ["owned", o, attr] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attr)?;
                let owned = rti.is_attribute_owned_by_federate(o, a[0])?;
                out(json!({"event":"owned","object":o.0,"owned":owned}));
                Ok(())
            }),
            ["regulate", lookahead] => lookahead
                .parse::<f64>()
                .ok()
                .and_then(LogicalTimeInterval::new)
                .ok_or_else(|| RtiError::InvalidLookahead(format!("bad lookahead {lookahead:?}")))
                .and_then(|l| rti.enable_time_regulation(l)),
            ["constrain"] => rti.enable_time_constrained(),
            ["tar", t] => float_time(t).and_then(|t| rti.time_advance_request(t)),
            ["publish-interaction", class] => rti
                .get_interaction_class_handle(class)
                .and_then(|c| rti.publish_interaction_class(c)),
            ["subscribe-interaction", class] => rti
                .get_interaction_class_handle(class)
                .and_then(|c| rti.subscribe_interaction_class(c, true)),
            ["send", class, tag] => rti.get_interaction_class_handle(class).and_then(|c| {
                rti.send_interaction(c, Vec::new(), tag.as_bytes())?;
                out(json!({"event":"sent","label":tag}));
                Ok(())
            }),
            ["send-at", class, t, tag] => rti.get_interaction_class_handle(class).and_then(|c| {
                let h =
                    rti.send_interaction_with_time(c, Vec::new(), tag.as_bytes(), float_time(t)?)?;
                out(json!({"event":"sent","label":tag,"handle":h.0}));
                Ok(())
            }),
            ["update-at", o, attr, value, t] => obj(o).and_then(|o| {
                let a = object_attrs(&rti, o, attr)?;
                let v = vec![(a[0], value.as_bytes().to_vec())];
                let h = rti.update_attribute_values_with_time(o, v, b"", float_time(t)?)?;
                out(json!({"event":"sent","label":value,"handle":h.0}));
                Ok(())
            }),
            ["delete-at", o, t] => obj(o).and_then(|o| {
                let h = rti.delete_object_instance_with_time(o, b"", float_time(t)?)?;
                out(json!({"event":"sent","label":"delete","handle":h.0}));
                Ok(())
            }),
            ["retract", h] => h
                .parse()
                .map(MessageRetractionHandle)
                .map_err(|_| RtiError::InvalidMessageRetractionHandle(format!("bad handle {h:?}")))
                .and_then(|h| rti.retract(h)),
            ["auto-resign", action] => ResignAction::from_switch(action)
                .ok_or_else(|| RtiError::RtiInternalError(format!("bad action {action:?}")))
                .and_then(|a| rti.set_automatic_resign_directive(a)),
            ["resign"] => {
                let r = rti.resign_federation_execution(ResignAction::DeleteObjects);
                out(json!({"event":"resigned","ok":r.is_ok()}));
                return r;
            }
            ["exit"] => return Ok(()),
            _ => Err(RtiError::RtiInternalError(format!(
                "unknown command {line:?}"
            ))),
        };
        match r {
            Ok(()) => out(json!({"event":"ok","cmd":line})),
            Err(e) => out(json!({"event":"failed","cmd":line,"error":e.to_string()})),
        }
    }
    Ok(())
}

/// Region names (or `#N`) to handles.
fn region_list(
    names: &BTreeMap<String, RegionHandle>,
    list: &str,
) -> Result<Vec<RegionHandle>, RtiError> {
    list.split(',')
        .filter(|n| !n.is_empty())
        .map(|n| match n.strip_prefix('#') {
            Some(raw) => raw
                .parse()
                .map(RegionHandle)
                .map_err(|_| RtiError::RtiInternalError(format!("bad region {n:?}"))),
            None => names
                .get(n)
                .copied()
                .ok_or_else(|| RtiError::RtiInternalError(format!("no region named {n:?}"))),
        })
        .collect()
}

/// `DIM=LO..HI,…` to (dimension, bounds).
fn ranges(
    rti: &RtiAmbassador,
    list: &str,
) -> Result<Vec<(DimensionHandle, RangeBounds)>, RtiError> {
    let bad = || RtiError::RtiInternalError(format!("bad ranges {list:?}"));
    list.split(',')
        .map(|r| {
            let (d, range) = r.split_once('=').ok_or_else(bad)?;
            let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
            let lo = lo.parse().map_err(|_| bad())?;
            let hi = hi.parse().map_err(|_| bad())?;
            Ok((rti.get_dimension_handle(d)?, RangeBounds::new(lo, hi)))
        })
        .collect()
}

fn number<T: std::str::FromStr>(s: &str) -> Result<T, RtiError> {
    s.parse()
        .map_err(|_| RtiError::RtiInternalError(format!("bad number {s:?}")))
}

/// The DDM commands (see the module docs); `None` for another command.
fn ddm(
    rti: &RtiAmbassador,
    names: &mut BTreeMap<String, RegionHandle>,
    words: &[&str],
) -> Option<Result<(), RtiError>> {
    let obj = |s: &str| number(s).map(ObjectInstanceHandle);
    let pairs = |c: ObjectClassHandle, attrs: &str, rs: &str| -> Result<_, RtiError> {
        let a = attrs
            .split(',')
            .map(|n| rti.get_attribute_handle(c, n))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(vec![(a, region_list(names, rs)?)])
    };
    let set_all = |r: RegionHandle, list: &str| -> Result<(), RtiError> {
        for (d, b) in ranges(rti, list)? {
            rti.set_range_bounds(r, d, b)?;
        }
        Ok(())
    };
    Some(match words {
        ["region", name, list] => (|| {
            let dims: Vec<DimensionHandle> = ranges(rti, list)?.into_iter().map(|x| x.0).collect();
            let r = rti.create_region(&dims)?;
            set_all(r, list)?;
            rti.commit_region_modifications(&[r])?;
            names.insert(name.to_string(), r);
            out(json!({"event":"region","label":name,"region":r.0}));
            Ok(())
        })(),
        ["move", r, list] => region_list(names, r).and_then(|rs| {
            for r in &rs {
                set_all(*r, list)?;
            }
            rti.commit_region_modifications(&rs)
        }),
        ["move-update", r, list, o, attr, value] => region_list(names, r).and_then(|rs| {
            for r in &rs {
                set_all(*r, list)?;
            }
            rti.commit_region_modifications(&rs)?;
            let o = obj(o)?;
            let a = object_attrs(rti, o, attr)?;
            rti.update_attribute_values(o, vec![(a[0], value.as_bytes().to_vec())], b"")
        }),
        ["set-bounds", r, d, lo, hi] => region_list(names, r).and_then(|rs| {
            let d = rti.get_dimension_handle(d)?;
            let b = RangeBounds::new(number(lo)?, number(hi)?);
            rs.iter().try_for_each(|r| rti.set_range_bounds(*r, d, b))
        }),
        ["commit", rs] => {
            region_list(names, rs).and_then(|rs| rti.commit_region_modifications(&rs))
        }
        ["bounds", r, d] => region_list(names, r).and_then(|rs| {
            let d = rti.get_dimension_handle(d)?;
            let b = rti.get_range_bounds(rs[0], d)?;
            out(json!({"event":"bounds","lower":b.lower,"upper":b.upper}));
            Ok(())
        }),
        ["delete-region", r] => {
            region_list(names, r).and_then(|rs| rs.iter().try_for_each(|r| rti.delete_region(*r)))
        }
        ["scope-advisory"] => rti.enable_attribute_scope_advisory_switch(),
        ["relevance-advisory"] => rti.enable_attribute_relevance_advisory_switch(),
        ["subscribe-regions", class, attrs, rs, mode @ ..] => {
            rti.get_object_class_handle(class).and_then(|c| {
                let active = mode.first() != Some(&"passive");
                rti.subscribe_object_class_attributes_with_regions(c, &pairs(c, attrs, rs)?, active)
            })
        }
        ["unsubscribe-regions", class, attrs, rs] => {
            rti.get_object_class_handle(class).and_then(|c| {
                rti.unsubscribe_object_class_attributes_with_regions(c, &pairs(c, attrs, rs)?)
            })
        }
        ["register-object-regions", class, attrs, rs] => {
            rti.get_object_class_handle(class).and_then(|c| {
                let o = rti.register_object_instance_with_regions(c, &pairs(c, attrs, rs)?)?;
                out(json!({"event":"registered_object","object":o.0}));
                Ok(())
            })
        }
        ["associate", o, attrs, rs] => obj(o).and_then(|o| {
            let c = rti.get_known_object_class_handle(o)?;
            rti.associate_regions_for_updates(o, &pairs(c, attrs, rs)?)
        }),
        ["unassociate", o, attrs, rs] => obj(o).and_then(|o| {
            let c = rti.get_known_object_class_handle(o)?;
            rti.unassociate_regions_for_updates(o, &pairs(c, attrs, rs)?)
        }),
        ["subscribe-interaction-regions", class, rs] => {
            rti.get_interaction_class_handle(class).and_then(|c| {
                rti.subscribe_interaction_class_with_regions(c, &region_list(names, rs)?, true)
            })
        }
        ["unsubscribe-interaction-regions", class, rs] => {
            rti.get_interaction_class_handle(class).and_then(|c| {
                rti.unsubscribe_interaction_class_with_regions(c, &region_list(names, rs)?)
            })
        }
        ["send-regions", class, rs, tag] => rti.get_interaction_class_handle(class).and_then(|c| {
            rti.send_interaction_with_regions(
                c,
                Vec::new(),
                &region_list(names, rs)?,
                tag.as_bytes(),
            )
        }),
        ["send-regions-at", class, rs, t, tag] => {
            rti.get_interaction_class_handle(class).and_then(|c| {
                let rs = region_list(names, rs)?;
                let h = rti.send_interaction_with_regions_and_time(
                    c,
                    Vec::new(),
                    &rs,
                    tag.as_bytes(),
                    float_time(t)?,
                )?;
                out(json!({"event":"sent","label":tag,"handle":h.0}));
                Ok(())
            })
        }
        ["request-regions", class, attrs, rs] => rti.get_object_class_handle(class).and_then(|c| {
            rti.request_attribute_value_update_with_regions(c, &pairs(c, attrs, rs)?, b"regions")
        }),
        _ => return None,
    })
}

fn class_attrs(
    rti: &RtiAmbassador,
    class: &str,
    attrs: &str,
) -> Result<(ObjectClassHandle, Vec<AttributeHandle>), RtiError> {
    let c = rti.get_object_class_handle(class)?;
    let a = attrs
        .split(',')
        .map(|n| rti.get_attribute_handle(c, n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((c, a))
}

/// Attribute names of `o`'s known class (a registered instance's own class for its registrant).
fn object_attrs(
    rti: &RtiAmbassador,
    o: ObjectInstanceHandle,
    attrs: &str,
) -> Result<Vec<AttributeHandle>, RtiError> {
    let c = rti.get_known_object_class_handle(o)?;
    attrs
        .split(',')
        .map(|n| rti.get_attribute_handle(c, n))
        .collect()
}
