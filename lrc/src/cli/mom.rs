//! The MOM monitor behind `hlamesh mom FEDERATION [--watch]`: it joins the federation as a
//! federate, subscribes to the MOM's `HLAmanager.HLAfederate` and `HLAmanager.HLAfederation`
//! instances and to the publication reports, and prints the federates, their time state and
//! their publications from MOM alone (`hlamesh status` keeps the transport-level view).
//!
//! Each report asks for the current values (`request_attribute_value_update` of the
//! `HLAfederate` class) and for every federate's publications (`HLArequestPublications`), then
//! waits for the answers; the monitor itself is one of the federates listed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use crate::core::ReceiveInfo;
use crate::core::mom::handle_value;
use crate::core::wire::ResignAction;
use crate::encoding::{DataElement, OpaqueData};
use crate::error::RtiError;
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};
use crate::node::Lrc;
use hlamesh_transport::TransportConfig;

const FEDERATE: &str = "HLAobjectRoot.HLAmanager.HLAfederate";
const FEDERATION: &str = "HLAobjectRoot.HLAmanager.HLAfederation";
const REQUEST_PUBLICATIONS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLArequest.HLArequestPublications";
const REPORT_OBJECTS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportObjectClassPublication";
const REPORT_INTERACTIONS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportInteractionPublication";

/// Why the monitor could not run.
#[derive(Debug, thiserror::Error)]
pub enum MomError {
    /// The RTI refused a service the monitor needs (join, subscribe, …).
    #[error("{0}")]
    Rti(#[from] RtiError),
}

/// One federate as its `HLAfederate` instance describes it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FederateView {
    /// `HLAfederateHandle`.
    pub handle: Option<u32>,
    /// `HLAfederateName`.
    pub name: String,
    /// `HLAfederateType`.
    pub federate_type: String,
    /// `HLAfederateHost`.
    pub host: String,
    /// `HLAfederateState` (1 active, 3 saving, 5 restoring).
    pub state: Option<i32>,
    /// `HLAtimeRegulating`.
    pub regulating: Option<bool>,
    /// `HLAtimeConstrained`.
    pub constrained: Option<bool>,
    /// `HLAtimeManagerState`: advancing.
    pub advancing: Option<bool>,
    /// `HLAlogicalTime`.
    pub time: Option<String>,
    /// `HLAlookahead`.
    pub lookahead: Option<String>,
    /// `HLAGALT`.
    pub galt: Option<String>,
    /// `HLAupdatesSent`.
    pub updates_sent: Option<i32>,
    /// `HLAreflectionsReceived`.
    pub reflections_received: Option<i32>,
    /// Published object classes (`HLAreportObjectClassPublication`): class → attributes.
    pub publishes: BTreeMap<String, Vec<String>>,
    /// Published interaction classes (`HLAreportInteractionPublication`).
    pub sends: Vec<String>,
}

/// What the monitor knows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MomReport {
    /// Federation name (`HLAfederationName`, else the one joined).
    pub federation: String,
    /// `HLAtimeImplementationName`.
    pub time_implementation: String,
    /// `HLAlastSaveName`.
    pub last_save: String,
    /// The federates, by handle.
    pub federates: Vec<FederateView>,
}

/// Raw MOM data gathered by the callbacks (decoded when a report is made).
#[derive(Debug, Default)]
struct Gathered {
    /// Instance → (attribute → value) of `HLAfederate` instances.
    federates: BTreeMap<ObjectInstanceHandle, BTreeMap<AttributeHandle, Vec<u8>>>,
    federation: BTreeMap<AttributeHandle, Vec<u8>>,
    federation_instance: Option<ObjectInstanceHandle>,
    /// Publication reports per reported federate: (object classes with attributes,
    /// interaction classes).
    publications: BTreeMap<u32, Publications>,
}

#[derive(Debug, Default, Clone)]
struct Publications {
    objects: BTreeMap<u32, Vec<u32>>,
    interactions: Vec<u32>,
}

struct Handles {
    federate: ObjectClassHandle,
    federation: ObjectClassHandle,
    report_objects: InteractionClassHandle,
    report_interactions: InteractionClassHandle,
    p_federate: ParameterHandle,
    p_object_class: ParameterHandle,
    p_attribute_list: ParameterHandle,
    p_interaction_list: ParameterHandle,
}

struct Amb {
    data: Arc<Mutex<Gathered>>,
    handles: Arc<Mutex<Option<Handles>>>,
}

fn decode_handle(v: &[u8]) -> Option<u32> {
    let o = OpaqueData::decode(v).ok()?;
    let b: [u8; 4] = o.0.as_slice().try_into().ok()?;
    Some(u32::from_be_bytes(b))
}

fn decode_handle_list(v: &[u8]) -> Vec<u32> {
    Vec::<OpaqueData>::decode(v)
        .map(|l| {
            l.iter()
                .filter_map(|o| <[u8; 4]>::try_from(o.0.as_slice()).ok())
                .map(u32::from_be_bytes)
                .collect()
        })
        .unwrap_or_default()
}

impl FederateAmbassador for Amb {
    fn discover_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        class: ObjectClassHandle,
        _name: &str,
        _producer: FederateHandle,
    ) {
        let h = self.handles.lock().unwrap_or_else(PoisonError::into_inner);
        let mut d = self.data.lock().unwrap_or_else(PoisonError::into_inner);
        match h.as_ref() {
            Some(h) if class == h.federation => d.federation_instance = Some(object),
            Some(h) if class == h.federate => {
                d.federates.entry(object).or_default();
            }
            _ => {}
        }
    }

    fn reflect_attribute_values(
        &mut self,
        object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        let mut d = self.data.lock().unwrap_or_else(PoisonError::into_inner);
        let target = if d.federation_instance == Some(object) {
            &mut d.federation
        } else {
            d.federates.entry(object).or_default()
        };
        for (a, v) in values {
            target.insert(*a, v.clone());
        }
    }

    fn remove_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        _tag: &[u8],
        _producer: Option<FederateHandle>,
    ) {
        let mut d = self.data.lock().unwrap_or_else(PoisonError::into_inner);
        if d.federates.remove(&object).is_some() {
            d.publications.remove(&object.registrant().0);
        }
    }

    fn receive_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        let h = self.handles.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(h) = h.as_ref() else { return };
        let get = |p: ParameterHandle| params.iter().find(|(x, _)| *x == p).map(|(_, v)| v);
        let Some(who) = get(h.p_federate).and_then(|v| decode_handle(v)) else {
            return;
        };
        let mut d = self.data.lock().unwrap_or_else(PoisonError::into_inner);
        let p = d.publications.entry(who).or_default();
        if class == h.report_objects {
            if let Some(c) = get(h.p_object_class).and_then(|v| decode_handle(v)) {
                let attrs = get(h.p_attribute_list)
                    .map(|v| decode_handle_list(v))
                    .unwrap_or_default();
                p.objects.insert(c, attrs);
            }
        } else if class == h.report_interactions {
            p.interactions = get(h.p_interaction_list)
                .map(|v| decode_handle_list(v))
                .unwrap_or_default();
        }
    }
}

/// A federate joined to watch a federation through the MOM.
pub struct MomMonitor {
    rti: RtiAmbassador,
    federation: String,
    data: Arc<Mutex<Gathered>>,
    federate_attrs: BTreeMap<String, AttributeHandle>,
    federation_attrs: BTreeMap<String, AttributeHandle>,
    federate_class: ObjectClassHandle,
    request: InteractionClassHandle,
    request_target: ParameterHandle,
}

impl std::fmt::Debug for MomMonitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MomMonitor")
            .field("federation", &self.federation)
            .finish_non_exhaustive()
    }
}

fn text(v: Option<&Vec<u8>>) -> Option<String> {
    v.and_then(|v| String::decode(v).ok())
}

fn int(v: Option<&Vec<u8>>) -> Option<i32> {
    v.and_then(|v| i32::decode(v).ok())
}

fn boolean(v: Option<&Vec<u8>>) -> Option<bool> {
    int(v).map(|i| i != 0)
}

impl MomMonitor {
    /// Starts an LRC with `cfg`, joins `federation` as a federate named `name` and subscribes
    /// to the MOM.
    pub fn start(cfg: TransportConfig, federation: &str, name: &str) -> Result<Self, MomError> {
        let lrc = Lrc::start(cfg)?;
        let mut rti = RtiAmbassador::with_lrc(lrc);
        let data = Arc::new(Mutex::new(Gathered::default()));
        let handles = Arc::new(Mutex::new(None));
        rti.connect(
            Box::new(Amb {
                data: data.clone(),
                handles: handles.clone(),
            }),
            CallbackModel::Immediate,
        )?;
        rti.join_federation_execution(Some(name), "hlamesh-mom", federation)?;
        let federate_class = rti.get_object_class_handle(FEDERATE)?;
        let federation_class = rti.get_object_class_handle(FEDERATION)?;
        let report_objects = rti.get_interaction_class_handle(REPORT_OBJECTS)?;
        let report_interactions = rti.get_interaction_class_handle(REPORT_INTERACTIONS)?;
        let request = rti.get_interaction_class_handle(REQUEST_PUBLICATIONS)?;
        let fdd = rti.fdd_of_federation()?;
        let names = |c: ObjectClassHandle| -> BTreeMap<String, AttributeHandle> {
            fdd.available_attributes(c)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|a| Some((fdd.attribute_name(c, a).ok()?.to_string(), a)))
                .collect()
        };
        let federate_attrs = names(federate_class);
        let federation_attrs = names(federation_class);
        *handles.lock().unwrap_or_else(PoisonError::into_inner) = Some(Handles {
            federate: federate_class,
            federation: federation_class,
            report_objects,
            report_interactions,
            p_federate: rti.get_parameter_handle(report_objects, "HLAfederate")?,
            p_object_class: rti.get_parameter_handle(report_objects, "HLAobjectClass")?,
            p_attribute_list: rti.get_parameter_handle(report_objects, "HLAattributeList")?,
            p_interaction_list: rti
                .get_parameter_handle(report_interactions, "HLAinteractionClassList")?,
        });
        let fa: Vec<AttributeHandle> = federate_attrs.values().copied().collect();
        rti.subscribe_object_class_attributes(federate_class, &fa, true)?;
        let fe: Vec<AttributeHandle> = federation_attrs.values().copied().collect();
        rti.subscribe_object_class_attributes(federation_class, &fe, true)?;
        rti.subscribe_interaction_class(report_objects, true)?;
        rti.subscribe_interaction_class(report_interactions, true)?;
        rti.publish_interaction_class(request)?;
        let request_target = rti.get_parameter_handle(request, "HLAfederate")?;
        Ok(MomMonitor {
            rti,
            federation: federation.to_string(),
            data,
            federate_attrs,
            federation_attrs,
            federate_class,
            request,
            request_target,
        })
    }

    /// Asks for the current values and publications, waits `wait` for the answers, and
    /// reports what the MOM said.
    pub fn report(&mut self, wait: Duration) -> Result<MomReport, MomError> {
        let attrs: Vec<AttributeHandle> = self.federate_attrs.values().copied().collect();
        self.rti.request_class_attribute_value_update(
            self.federate_class,
            &attrs,
            b"hlamesh mom",
        )?;
        if let Ok(c) = self.rti.get_object_class_handle(FEDERATION) {
            let fa: Vec<AttributeHandle> = self.federation_attrs.values().copied().collect();
            self.rti
                .request_class_attribute_value_update(c, &fa, b"hlamesh mom")?;
        }
        // The federates known so far, then (after a first wait) those discovered meanwhile.
        let end = Instant::now() + wait;
        let mut asked = std::collections::BTreeSet::new();
        for _ in 0..2 {
            let known: Vec<u32> = self
                .data
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .federates
                .keys()
                .map(|o| o.registrant().0)
                .collect();
            for h in known {
                if asked.insert(h) {
                    let p = vec![(
                        self.request_target,
                        handle_value(&FederateHandle(h).encode()),
                    )];
                    self.rti.send_interaction(self.request, p, b"hlamesh mom")?;
                }
            }
            std::thread::sleep(
                end.saturating_duration_since(Instant::now()) / 2 + Duration::from_millis(1),
            );
        }
        std::thread::sleep(end.saturating_duration_since(Instant::now()));
        Ok(self.build())
    }

    fn build(&self) -> MomReport {
        let kind = self.rti.time_kind().ok();
        let time = |v: Option<&Vec<u8>>| -> Option<String> {
            let o = OpaqueData::decode(v?).ok()?;
            let b: [u8; 8] = o.0.as_slice().try_into().ok()?;
            Some(match kind.map(|k| k.name()) {
                Some("HLAinteger64Time") => i64::from_be_bytes(b).to_string(),
                _ => f64::from_be_bytes(b).to_string(),
            })
        };
        let d = self.data.lock().unwrap_or_else(PoisonError::into_inner);
        let fa = |n: &str| self.federate_attrs.get(n).copied();
        let ea = |n: &str| self.federation_attrs.get(n).copied();
        let mut federates = Vec::new();
        for (o, v) in &d.federates {
            let get = |n: &str| fa(n).and_then(|a| v.get(&a));
            let handle = get("HLAfederateHandle")
                .and_then(|x| decode_handle(x))
                .or(Some(o.registrant().0));
            let mut f = FederateView {
                handle,
                name: text(get("HLAfederateName")).unwrap_or_default(),
                federate_type: text(get("HLAfederateType")).unwrap_or_default(),
                host: text(get("HLAfederateHost")).unwrap_or_default(),
                state: int(get("HLAfederateState")),
                regulating: boolean(get("HLAtimeRegulating")),
                constrained: boolean(get("HLAtimeConstrained")),
                advancing: boolean(get("HLAtimeManagerState")),
                time: time(get("HLAlogicalTime")),
                lookahead: time(get("HLAlookahead")),
                galt: time(get("HLAGALT")),
                updates_sent: int(get("HLAupdatesSent")),
                reflections_received: int(get("HLAreflectionsReceived")),
                ..FederateView::default()
            };
            if let Some(p) = handle.and_then(|h| d.publications.get(&h)) {
                for (c, attrs) in &p.objects {
                    let class = ObjectClassHandle(*c);
                    let cname = self
                        .rti
                        .get_object_class_name(class)
                        .unwrap_or_else(|_| c.to_string());
                    let anames = attrs
                        .iter()
                        .map(|a| {
                            self.rti
                                .get_attribute_name(class, AttributeHandle(*a))
                                .unwrap_or_else(|_| a.to_string())
                        })
                        .collect();
                    f.publishes.insert(cname, anames);
                }
                f.sends = p
                    .interactions
                    .iter()
                    .map(|i| {
                        self.rti
                            .get_interaction_class_name(InteractionClassHandle(*i))
                            .unwrap_or_else(|_| i.to_string())
                    })
                    .collect();
            }
            federates.push(f);
        }
        federates.sort_by_key(|f| f.handle);
        let get = |n: &str| ea(n).and_then(|a| d.federation.get(&a));
        MomReport {
            federation: text(get("HLAfederationName")).unwrap_or_else(|| self.federation.clone()),
            time_implementation: text(get("HLAtimeImplementationName")).unwrap_or_default(),
            last_save: text(get("HLAlastSaveName")).unwrap_or_default(),
            federates,
        }
    }

    /// Resigns and disconnects.
    pub fn stop(mut self) -> Result<(), MomError> {
        self.rti
            .resign_federation_execution(ResignAction::NoAction)?;
        self.rti.disconnect()?;
        Ok(())
    }
}

impl MomReport {
    /// The report as a table.
    pub fn to_text(&self) -> String {
        let yn = |b: Option<bool>| match b {
            Some(true) => "yes",
            Some(false) => "no",
            None => "?",
        };
        let dash = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
        let mut out = format!(
            "federation {} ({}), {} federate(s) (from the MOM){}\n",
            self.federation,
            if self.time_implementation.is_empty() {
                "?"
            } else {
                &self.time_implementation
            },
            self.federates.len(),
            if self.last_save.is_empty() {
                String::new()
            } else {
                format!(", last save {}", self.last_save)
            }
        );
        out.push_str(&format!(
            "  {:>6} {:<20} {:<14} {:<8} {:<10} {:<11} {:<10} {:>10} {:>9} {:>10}\n",
            "handle",
            "name",
            "type",
            "state",
            "regulating",
            "constrained",
            "time state",
            "time",
            "lookahead",
            "GALT"
        ));
        for f in &self.federates {
            let state = match f.state {
                Some(1) => "active",
                Some(3) => "saving",
                Some(5) => "restoring",
                _ => "?",
            };
            let ts = match f.advancing {
                Some(true) => "advancing",
                Some(false) => "granted",
                None => "?",
            };
            out.push_str(&format!(
                "  {:>6} {:<20} {:<14} {:<8} {:<10} {:<11} {:<10} {:>10} {:>9} {:>10}\n",
                f.handle.map_or("?".into(), |h| h.to_string()),
                f.name,
                f.federate_type,
                state,
                yn(f.regulating),
                yn(f.constrained),
                ts,
                dash(&f.time),
                dash(&f.lookahead),
                dash(&f.galt)
            ));
            if !f.host.is_empty() {
                out.push_str(&format!(
                    "         host {}, updates sent {}, reflections received {}\n",
                    f.host,
                    f.updates_sent.unwrap_or(0),
                    f.reflections_received.unwrap_or(0)
                ));
            }
            for (c, attrs) in &f.publishes {
                out.push_str(&format!("         publishes {c} ({})\n", attrs.join(", ")));
            }
            if !f.sends.is_empty() {
                out.push_str(&format!("         sends {}\n", f.sends.join(", ")));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_each_federates_time_state_and_publications() {
        let r = MomReport {
            federation: "Demo".into(),
            time_implementation: "HLAfloat64Time".into(),
            last_save: "t50".into(),
            federates: vec![FederateView {
                handle: Some(2),
                name: "car-1".into(),
                federate_type: "car".into(),
                host: "lab-1".into(),
                state: Some(1),
                regulating: Some(true),
                constrained: Some(false),
                advancing: Some(true),
                time: Some("4.5".into()),
                lookahead: Some("0.5".into()),
                galt: None,
                updates_sent: Some(7),
                reflections_received: Some(0),
                publishes: [(
                    "HLAobjectRoot.Car".to_string(),
                    vec!["Position".to_string()],
                )]
                .into_iter()
                .collect(),
                sends: vec!["HLAinteractionRoot.Refuel".into()],
            }],
        };
        let t = r.to_text();
        assert!(
            t.starts_with(
                "federation Demo (HLAfloat64Time), 1 federate(s) (from the MOM), last save t50\n"
            ),
            "{t}"
        );
        let row = t.lines().nth(2).unwrap_or_default();
        for cell in [
            "2",
            "car-1",
            "car",
            "active",
            "yes",
            "no",
            "advancing",
            "4.5",
            "0.5",
            "-",
        ] {
            assert!(
                row.split_whitespace().any(|w| w == cell),
                "{cell} in {row:?}"
            );
        }
        assert!(
            t.contains("host lab-1, updates sent 7, reflections received 0"),
            "{t}"
        );
        assert!(t.contains("publishes HLAobjectRoot.Car (Position)"), "{t}");
        assert!(t.contains("sends HLAinteractionRoot.Refuel"), "{t}");
    }
}
