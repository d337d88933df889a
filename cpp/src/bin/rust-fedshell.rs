//! Test-only Rust federate for the C++ SDK's multi-process tests (`tests/sdk_federation.rs`):
//! the same line protocol as the C++ test federate `tests/federates/fedshell.cpp`, over the Rust
//! API, so the tests drive C++ and Rust federates of one federation alike and compare what each
//! side saw. Network settings come from the `HLAMESH_*` environment (like the C++ side).
//!
//! Commands (CLASS, ATTR, PARAM FOM names; OBJ 16 hex digits of the instance handle; HEX a
//! value's bytes; T a float64 time): `create FED FOMPATH`, `join FED NAME`, `resign`,
//! `destroy FED`, `publish CLASS ATTRS`, `subscribe CLASS ATTRS`, `publish-ia CLASS`,
//! `subscribe-ia CLASS PARAMS`, `register CLASS`, `update OBJ ATTR=HEX,… [T]`, `send CLASS
//! PARAM=HEX,… [T]`, `request-update OBJ ATTRS`, `delete OBJ`, `tso OBJ ATTRS` (timestamp order), `regulate LOOKAHEAD`,
//! `constrain`, `tar T`, `ner T`, `query-time`, `sync LABEL`, `achieve LABEL`, `save LABEL`,
//! `save-begun`, `save-complete`, `restore LABEL`, `restore-complete`, `exit`. Every command
//! answers `{"event":"ok","cmd":…}` or `{"event":"failed","cmd":…,"exception":…}`; callbacks
//! print one JSON line each (immediate callback model).

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::{Arc, Mutex};

use hlamesh_lrc::ambassador::{
    CallbackModel, FederateAmbassador, LogicalTimeInterval, RestoreFailureReason, RtiAmbassador,
    SaveFailureReason, Time,
};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::ResignAction;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::fom::OrderType;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};
use serde_json::{Value, json};

fn out(v: Value) {
    println!("{v}");
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Result<Vec<u8>, RtiError> {
    let bad = || RtiError::RtiInternalError(format!("bad hex {s:?}"));
    if !s.len().is_multiple_of(2) {
        return Err(bad());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect()
}

fn obj_hex(o: ObjectInstanceHandle) -> String {
    format!("{:016x}", o.0)
}

/// The standard exception class an error maps to: its message starts with the class name.
fn class_of(e: &RtiError) -> String {
    e.to_string()
        .split(':')
        .next()
        .unwrap_or_default()
        .to_string()
}

fn time_value(info: &ReceiveInfo) -> Value {
    match info.time.as_deref() {
        Some(b) if b.len() == 8 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            json!(f64::from_be_bytes(a))
        }
        _ => Value::Null,
    }
}

fn order(info: &ReceiveInfo) -> &'static str {
    match info.received_order {
        OrderType::TimeStamp => "TSO",
        OrderType::Receive => "RO",
    }
}

#[derive(Default)]
struct Names {
    classes: BTreeMap<ObjectClassHandle, String>,
    attrs: BTreeMap<AttributeHandle, String>,
    interactions: BTreeMap<InteractionClassHandle, String>,
    params: BTreeMap<ParameterHandle, String>,
    objects: BTreeMap<String, (ObjectInstanceHandle, ObjectClassHandle)>,
}

type Shared = Arc<Mutex<Names>>;

struct Amb(Shared);

impl Amb {
    fn names(&self) -> std::sync::MutexGuard<'_, Names> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn attr_map(&self, values: &[(AttributeHandle, Vec<u8>)]) -> Value {
        let n = self.names();
        let m: serde_json::Map<String, Value> = values
            .iter()
            .map(|(a, v)| {
                let name = n.attrs.get(a).cloned().unwrap_or_else(|| a.0.to_string());
                (name, json!(hex(v)))
            })
            .collect();
        Value::Object(m)
    }
    fn attr_list(&self, attrs: &[AttributeHandle]) -> Value {
        let n = self.names();
        json!(
            attrs
                .iter()
                .map(|a| n.attrs.get(a).cloned().unwrap_or_else(|| a.0.to_string()))
                .collect::<Vec<_>>()
        )
    }
}

impl FederateAmbassador for Amb {
    fn connection_lost(&mut self, fault: &str) {
        out(json!({"event":"connection_lost","fault":fault}));
    }
    fn discover_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        class: ObjectClassHandle,
        name: &str,
        _producer: FederateHandle,
    ) {
        let cls = {
            let mut n = self.names();
            n.objects.insert(obj_hex(object), (object, class));
            n.classes.get(&class).cloned().unwrap_or_default()
        };
        out(json!({"event":"discover","object":obj_hex(object),"class":cls,"name":name}));
    }
    fn reflect_attribute_values(
        &mut self,
        object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
        out(
            json!({"event":"reflect","object":obj_hex(object),"values":self.attr_map(values),
            "tag":hex(tag),"time":time_value(info),"order":order(info)}),
        );
    }
    fn receive_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
        let (cls, p) = {
            let n = self.names();
            let p: serde_json::Map<String, Value> = params
                .iter()
                .map(|(h, v)| {
                    let name = n.params.get(h).cloned().unwrap_or_else(|| h.0.to_string());
                    (name, json!(hex(v)))
                })
                .collect();
            (n.interactions.get(&class).cloned().unwrap_or_default(), p)
        };
        out(
            json!({"event":"interaction","class":cls,"params":p,"tag":hex(tag),
            "time":time_value(info),"order":order(info)}),
        );
    }
    fn remove_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        tag: &[u8],
        _producer: Option<FederateHandle>,
    ) {
        out(json!({"event":"remove","object":obj_hex(object),"tag":hex(tag)}));
    }
    fn provide_attribute_value_update(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) {
        out(
            json!({"event":"provide","object":obj_hex(object),"attrs":self.attr_list(attrs),
            "tag":hex(tag)}),
        );
    }
    fn time_regulation_enabled(&mut self, time: Time) {
        out(json!({"event":"regulation_enabled","time":time.value()}));
    }
    fn time_constrained_enabled(&mut self, time: Time) {
        out(json!({"event":"constrained_enabled","time":time.value()}));
    }
    fn time_advance_grant(&mut self, time: Time) {
        out(json!({"event":"grant","time":time.value()}));
    }
    fn synchronization_point_registration_succeeded(&mut self, label: &str) {
        out(json!({"event":"sync_registered","label":label}));
    }
    fn announce_synchronization_point(&mut self, label: &str, tag: &[u8]) {
        out(json!({"event":"announce","label":label,"tag":hex(tag)}));
    }
    fn federation_synchronized(&mut self, label: &str, failed: &[FederateHandle]) {
        out(json!({"event":"synchronized","label":label,"failed":failed.len()}));
    }
    fn initiate_federate_save(&mut self, label: &str, _time: Option<Time>) {
        out(json!({"event":"initiate_save","label":label}));
    }
    fn federation_saved(&mut self) {
        out(json!({"event":"saved"}));
    }
    fn federation_not_saved(&mut self, reason: SaveFailureReason) {
        out(json!({"event":"not_saved","reason":format!("{reason:?}")}));
    }
    fn request_federation_restore_succeeded(&mut self, label: &str) {
        out(json!({"event":"restore_request_succeeded","label":label}));
    }
    fn request_federation_restore_failed(&mut self, label: &str, reason: &str) {
        out(json!({"event":"restore_request_failed","label":label,"reason":reason}));
    }
    fn federation_restore_begun(&mut self) {
        out(json!({"event":"restore_begun"}));
    }
    fn initiate_federate_restore(&mut self, label: &str, name: &str, _handle: FederateHandle) {
        out(json!({"event":"initiate_restore","label":label,"name":name}));
    }
    fn federation_restored(&mut self) {
        out(json!({"event":"restored"}));
    }
    fn federation_not_restored(&mut self, reason: RestoreFailureReason, detail: &str) {
        out(json!({"event":"not_restored","reason":format!("{reason:?}"),"detail":detail}));
    }
}

struct Shell {
    rti: RtiAmbassador,
    names: Shared,
}

fn time(s: &str) -> Result<Time, RtiError> {
    s.parse::<f64>()
        .ok()
        .and_then(Time::new)
        .ok_or_else(|| RtiError::InvalidLogicalTime(s.to_string()))
}

impl Shell {
    fn names(&self) -> std::sync::MutexGuard<'_, Names> {
        self.names.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn class(&self, name: &str) -> Result<ObjectClassHandle, RtiError> {
        let c = self.rti.get_object_class_handle(name)?;
        self.names().classes.insert(c, name.to_string());
        Ok(c)
    }

    fn attrs(&self, c: ObjectClassHandle, list: &str) -> Result<Vec<AttributeHandle>, RtiError> {
        list.split(',')
            .filter(|s| !s.is_empty())
            .map(|n| {
                let a = self.rti.get_attribute_handle(c, n)?;
                self.names().attrs.insert(a, n.to_string());
                Ok(a)
            })
            .collect()
    }

    fn object(&self, h: &str) -> Result<(ObjectInstanceHandle, ObjectClassHandle), RtiError> {
        self.names()
            .objects
            .get(h)
            .copied()
            .ok_or_else(|| RtiError::ObjectInstanceNotKnown(h.to_string()))
    }

    fn interaction(&self, name: &str) -> Result<InteractionClassHandle, RtiError> {
        let c = self.rti.get_interaction_class_handle(name)?;
        self.names().interactions.insert(c, name.to_string());
        Ok(c)
    }

    fn run(&mut self, w: &[&str]) -> Result<Value, RtiError> {
        let mut extra = json!({});
        match w {
            ["create", fed, fom] => self.rti.create_federation_execution(fed, &[fom])?,
            ["join", fed, name] => {
                let h = self
                    .rti
                    .join_federation_execution(Some(name), "rust", fed)?;
                extra = json!({"handle": format!("{:08x}", h.0)});
            }
            ["resign"] => self
                .rti
                .resign_federation_execution(ResignAction::CancelThenDeleteThenDivest)?,
            ["destroy", fed] => self.rti.destroy_federation_execution(fed)?,
            ["publish", class, attrs] => {
                let c = self.class(class)?;
                let a = self.attrs(c, attrs)?;
                self.rti.publish_object_class_attributes(c, &a)?;
            }
            ["subscribe", class, attrs] => {
                let c = self.class(class)?;
                let a = self.attrs(c, attrs)?;
                self.rti.subscribe_object_class_attributes(c, &a, true)?;
            }
            ["publish-ia", class] => {
                let c = self.interaction(class)?;
                self.rti.publish_interaction_class(c)?;
            }
            ["subscribe-ia", class, params] => {
                let c = self.interaction(class)?;
                for p in params.split(',') {
                    let h = self.rti.get_parameter_handle(c, p)?;
                    self.names().params.insert(h, p.to_string());
                }
                self.rti.subscribe_interaction_class(c, true)?;
            }
            ["register", class] => {
                let c = self.class(class)?;
                let o = self.rti.register_object_instance(c)?;
                self.names().objects.insert(obj_hex(o), (o, c));
                extra = json!({"object": obj_hex(o)});
            }
            ["update", o, values, rest @ ..] => {
                let (o, c) = self.object(o)?;
                let mut v = Vec::new();
                for kv in values.split(',') {
                    let (name, val) = kv.split_once('=').unwrap_or((kv, ""));
                    let a = self.rti.get_attribute_handle(c, name)?;
                    v.push((a, unhex(val)?));
                }
                match rest {
                    [t] => self
                        .rti
                        .update_attribute_values_with_time(o, v, b"rust", time(t)?)
                        .map(drop)?,
                    _ => self.rti.update_attribute_values(o, v, b"rust")?,
                }
            }
            ["send", class, values, rest @ ..] => {
                let c = self.interaction(class)?;
                let mut v = Vec::new();
                for kv in values.split(',') {
                    let (name, val) = kv.split_once('=').unwrap_or((kv, ""));
                    let p = self.rti.get_parameter_handle(c, name)?;
                    v.push((p, unhex(val)?));
                }
                match rest {
                    [t] => self
                        .rti
                        .send_interaction_with_time(c, v, b"rust", time(t)?)
                        .map(drop)?,
                    _ => self.rti.send_interaction(c, v, b"rust")?,
                }
            }
            ["request-update", o, attrs] => {
                let (o, c) = self.object(o)?;
                let a = self.attrs(c, attrs)?;
                self.rti.request_attribute_value_update(o, &a, b"please")?;
            }
            ["tso", o, attrs] => {
                let (o, c) = self.object(o)?;
                let a = self.attrs(c, attrs)?;
                self.rti
                    .change_attribute_order_type(o, &a, OrderType::TimeStamp)?;
            }
            ["delete", o] => {
                let (o, _) = self.object(o)?;
                self.rti.delete_object_instance(o, b"bye")?;
            }
            ["regulate", l] => {
                let l = l
                    .parse::<f64>()
                    .ok()
                    .and_then(LogicalTimeInterval::new)
                    .ok_or_else(|| RtiError::InvalidLookahead(l.to_string()))?;
                self.rti.enable_time_regulation(l)?;
            }
            ["constrain"] => self.rti.enable_time_constrained()?,
            ["tar", t] => self.rti.time_advance_request(time(t)?)?,
            ["ner", t] => self.rti.next_message_request(time(t)?)?,
            ["query-time"] => {
                extra = json!({"time": self.rti.query_logical_time()?.value()});
            }
            ["sync", label] => self
                .rti
                .register_federation_synchronization_point(label, b"s")?,
            ["achieve", label] => self.rti.synchronization_point_achieved(label, true)?,
            ["save", label] => self.rti.request_federation_save(label)?,
            ["save-begun"] => self.rti.federate_save_begun()?,
            ["save-complete"] => self.rti.federate_save_complete()?,
            ["restore", label] => self.rti.request_federation_restore(label)?,
            ["restore-complete"] => self.rti.federate_restore_complete()?,
            _ => {
                return Err(RtiError::RtiInternalError(format!("unknown command {w:?}")));
            }
        }
        Ok(extra)
    }
}

fn main() {
    let names: Shared = Arc::default();
    let mut rti = RtiAmbassador::new();
    if let Err(e) = rti.connect(Box::new(Amb(names.clone())), CallbackModel::Immediate) {
        out(json!({"event":"error","exception":class_of(&e),"message":e.to_string()}));
        std::process::exit(1);
    }
    out(json!({"event":"connected","model":"immediate"}));
    let mut shell = Shell { rti, names };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line == "exit" {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match shell.run(&words) {
            Ok(extra) => {
                let mut v = json!({"event":"ok","cmd":line});
                if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
                    m.extend(e);
                }
                out(v);
            }
            Err(e) => out(json!({"event":"failed","cmd":line,"exception":class_of(&e),
                "message":e.to_string()})),
        }
    }
}
