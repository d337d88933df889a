//! MOM requests (`HLAmanager.HLAfederate.HLArequest`, `HLAmanager.HLAfederation.HLArequest`)
//! and the reports that answer them.

use std::collections::BTreeMap;

use crate::encoding::typed::{DataElement, OpaqueData};
use crate::error::RtiError;
use crate::fom::STANDARD_MIM_XML;
use crate::handles::{AttributeHandle, FederateHandle, ObjectClassHandle, ObjectInstanceHandle};

use super::super::FederationCore;
use super::super::wire::DataMsg;
use super::dispatch::{MomArgs, MomFailure};
use super::{MomHandles, enc, federate_instance, handle_list, handle_value};

/// The transportation types reports are sent for (`HLAreportUpdatesSent` and the like: one
/// report per type), by handle.
const TRANSPORTATIONS: [(u32, &str); 2] = [(1, "HLAreliable"), (2, "HLAbestEffort")];

/// HLAobjectClassBasedCounts / HLAinteractionCounts: records {HLAhandle, HLAcount}, only those
/// with a positive count (the MIM's rule).
fn counts(records: impl IntoIterator<Item = (Vec<u8>, usize)>) -> Vec<u8> {
    let records: Vec<(Vec<u8>, i32)> = records
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(h, n)| (h, i32::try_from(n).unwrap_or(i32::MAX)))
        .collect();
    let mut e = crate::encoding::Encoder::new();
    e.write_count(records.len());
    for (h, n) in records {
        e.align(4);
        e.put(&OpaqueData(h));
        e.put(&n);
    }
    e.into_bytes()
}

/// HLAsynchPointStatus of a member of a pending point.
const MOVING_TO_SYNCH_POINT: i32 = 2;
const WAITING_FOR_REST_OF_FEDERATION: i32 = 3;

impl FederationCore {
    /// Sends MOM report `name` (below `HLAinteractionRoot.HLAmanager.`) about `target` (its
    /// `HLAfederate` parameter), with `target` as producer.
    pub(super) fn mom_report(
        &mut self,
        producer: FederateHandle,
        target: Option<FederateHandle>,
        name: &str,
        params: &[(&str, Vec<u8>)],
    ) {
        let Some(fdd) = self.fdd.clone() else { return };
        let Some(class) = self
            .mom_handles()
            .and_then(|m| m.interactions.get(name).copied())
        else {
            return;
        };
        let mut ps = Vec::new();
        if let Some(t) = target
            && let Some(p) = MomHandles::param(&fdd, class, "HLAfederate")
        {
            ps.push((p, handle_value(&t.encode())));
        }
        for (n, v) in params {
            if let Some(p) = MomHandles::param(&fdd, class, n) {
                ps.push((p, v.clone()));
            }
        }
        self.send_data(
            true,
            DataMsg::Interaction {
                class,
                producer,
                params: ps,
                tag: Vec::new(),
                time: None,
                tso: false,
                retraction: None,
            },
        );
    }

    fn mom_report_publications(&mut self, f: FederateHandle) {
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let objects: Vec<(ObjectClassHandle, Vec<AttributeHandle>)> = lf
            .decl
            .published_objects
            .iter()
            .map(|(c, a)| (*c, a.iter().copied().collect()))
            .collect();
        let interactions: Vec<Vec<u8>> = lf
            .decl
            .published_interactions
            .iter()
            .map(|i| i.encode().to_vec())
            .collect();
        let n = enc(i32::try_from(objects.len()).unwrap_or(i32::MAX));
        for (c, attrs) in objects {
            self.mom_report(
                f,
                Some(f),
                "HLAfederate.HLAreport.HLAreportObjectClassPublication",
                &[
                    ("HLAnumberOfClasses", n.clone()),
                    ("HLAobjectClass", handle_value(&c.encode())),
                    (
                        "HLAattributeList",
                        handle_list(attrs.iter().map(|a| a.encode().to_vec())),
                    ),
                ],
            );
        }
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportInteractionPublication",
            &[("HLAinteractionClassList", handle_list(interactions))],
        );
    }

    fn mom_report_subscriptions(&mut self, f: FederateHandle) {
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let objects: Vec<(ObjectClassHandle, bool, String, Vec<AttributeHandle>)> = lf
            .decl
            .subscribed_objects
            .iter()
            .map(|(c, s)| {
                let rate = lf
                    .decl
                    .rates
                    .get(c)
                    .map(|r| r.designator.clone())
                    .unwrap_or_default();
                (*c, s.active, rate, s.attrs.iter().copied().collect())
            })
            .collect();
        let mut subs = Vec::new();
        for (ic, active) in &lf.decl.subscribed_interactions {
            // HLAinteractionSubscription: {HLAhandle, HLAboolean}, each field aligned.
            let mut e = crate::encoding::Encoder::new();
            e.put(&OpaqueData(ic.encode().to_vec()));
            e.put(active);
            subs.push(e.into_bytes());
        }
        let n = enc(i32::try_from(objects.len()).unwrap_or(i32::MAX));
        for (c, active, rate, attrs) in objects {
            self.mom_report(
                f,
                Some(f),
                "HLAfederate.HLAreport.HLAreportObjectClassSubscription",
                &[
                    ("HLAnumberOfClasses", n.clone()),
                    ("HLAobjectClass", handle_value(&c.encode())),
                    ("HLAactive", enc(active)),
                    ("HLAmaxUpdateRate", enc(rate)),
                    (
                        "HLAattributeList",
                        handle_list(attrs.iter().map(|a| a.encode().to_vec())),
                    ),
                ],
            );
        }
        // HLAinteractionSubList: a variable array of those records (boundary 4).
        let mut e = crate::encoding::Encoder::new();
        e.write_count(subs.len());
        for s in subs {
            e.align(4);
            e.write_bytes(&s);
        }
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportInteractionSubscription",
            &[("HLAinteractionClassList", e.into_bytes())],
        );
    }

    fn mom_report_can_be_deleted(&mut self, f: FederateHandle) {
        let mut per: BTreeMap<ObjectClassHandle, usize> = BTreeMap::new();
        for i in self.objects.values() {
            if self.privilege_holder(i) == Some(f) {
                *per.entry(i.class).or_default() += 1;
            }
        }
        let records = counts(per.into_iter().map(|(c, n)| (c.encode().to_vec(), n)));
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportObjectInstancesThatCanBeDeleted",
            &[("HLAobjectInstanceCounts", records)],
        );
    }

    /// A federate was lost: the voice reports `HLAreportFederateLost`.
    pub(crate) fn mom_federate_lost(&mut self, h: FederateHandle) {
        // Its name from its join, else (a log folded before this LRC came) from its instance,
        // which goes only when the loss is applied after its last data.
        let name = self
            .mom
            .names
            .remove(&h)
            .or_else(|| {
                self.objects
                    .get(&federate_instance(h))
                    .and_then(|i| i.name.strip_prefix("HLAfederate.").map(str::to_string))
            })
            .unwrap_or_default();
        let Some((voice, node)) = self.mom_voice() else {
            return;
        };
        if node != self.me {
            return;
        }
        self.mom_report(
            voice,
            Some(h),
            "HLAfederate.HLAreport.HLAreportFederateLost",
            &[
                ("HLAfederateName", enc(name)),
                ("HLAtimeStamp", OpaqueData(Vec::new()).encode()),
                (
                    "HLAfaultDescription",
                    enc("its LRC was lost (no heartbeat or connection)".to_string()),
                ),
            ],
        );
    }

    /// One `report` per transportation type, its `param` the counts of `per` (transportation,
    /// encoded class handle, count) of that type.
    fn mom_report_per_transportation(
        &mut self,
        f: FederateHandle,
        report: &str,
        param: &str,
        per: Vec<(u32, Vec<u8>, u32)>,
    ) {
        for (t, tname) in TRANSPORTATIONS {
            let records = counts(
                per.iter()
                    .filter(|(x, _, _)| *x == t)
                    .map(|(_, k, n)| (k.clone(), *n as usize)),
            );
            self.mom_report(
                f,
                Some(f),
                report,
                &[
                    ("HLAtransportation", enc(tname.to_string())),
                    (param, records),
                ],
            );
        }
    }

    /// `HLAmanager.HLAfederate.HLArequest.*` about local federate `f`.
    pub(super) fn mom_federate_request(
        &mut self,
        f: FederateHandle,
        name: &str,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        match name {
            "HLArequestPublications" => self.mom_report_publications(f),
            "HLArequestSubscriptions" => self.mom_report_subscriptions(f),
            "HLArequestObjectInstancesThatCanBeDeleted" => self.mom_report_can_be_deleted(f),
            "HLArequestObjectInstancesUpdated" | "HLArequestObjectInstancesReflected" => {
                let updated = name == "HLArequestObjectInstancesUpdated";
                let c = self.mom.counters.get(&f).cloned().unwrap_or_default();
                let per = if updated { &c.updated } else { &c.reflected }.by_class();
                let report = if updated {
                    "HLAfederate.HLAreport.HLAreportObjectInstancesUpdated"
                } else {
                    "HLAfederate.HLAreport.HLAreportObjectInstancesReflected"
                };
                let records = counts(per.into_iter().map(|(k, n)| (k.encode().to_vec(), n)));
                self.mom_report(f, Some(f), report, &[("HLAobjectInstanceCounts", records)]);
            }
            "HLArequestUpdatesSent" | "HLArequestReflectionsReceived" => {
                let c = self.mom.counters.get(&f).cloned().unwrap_or_default();
                let (per, report, param) = if name == "HLArequestUpdatesSent" {
                    (
                        c.updates_by,
                        "HLAfederate.HLAreport.HLAreportUpdatesSent",
                        "HLAupdateCounts",
                    )
                } else {
                    (
                        c.reflections_by,
                        "HLAfederate.HLAreport.HLAreportReflectionsReceived",
                        "HLAreflectCounts",
                    )
                };
                let per = per
                    .into_iter()
                    .map(|((t, k), n)| (t, k.encode().to_vec(), n));
                self.mom_report_per_transportation(f, report, param, per.collect());
            }
            "HLArequestInteractionsSent" | "HLArequestInteractionsReceived" => {
                let c = self.mom.counters.get(&f).cloned().unwrap_or_default();
                let (per, report) = if name == "HLArequestInteractionsSent" {
                    (
                        c.interactions_sent_by,
                        "HLAfederate.HLAreport.HLAreportInteractionsSent",
                    )
                } else {
                    (
                        c.interactions_received_by,
                        "HLAfederate.HLAreport.HLAreportInteractionsReceived",
                    )
                };
                let per = per
                    .into_iter()
                    .map(|((t, k), n)| (t, k.encode().to_vec(), n));
                self.mom_report_per_transportation(
                    f,
                    report,
                    "HLAinteractionCounts",
                    per.collect(),
                );
            }
            "HLArequestObjectInstanceInformation" => {
                let o = args.handle("HLAobjectInstance", ObjectInstanceHandle::decode)?;
                self.mom_report_instance_information(f, o)?;
            }
            "HLArequestFOMmoduleData" => {
                let (i, text) = self.mom_module(Some(f), args)?;
                self.mom_report(
                    f,
                    Some(f),
                    "HLAfederate.HLAreport.HLAreportFOMmoduleData",
                    &[
                        ("HLAFOMmoduleIndicator", enc(i)),
                        ("HLAFOMmoduleData", enc(text)),
                    ],
                );
            }
            _ => {
                return Err(MomFailure::Service(RtiError::RtiInternalError(format!(
                    "HLAmanager.HLAfederate.HLArequest.{name} is not implemented by hlamesh"
                ))));
            }
        }
        Ok(())
    }

    /// The FOM module `HLAFOMmoduleIndicator` names: its index (from 0) in the
    /// `HLAFOMmoduleDesignatorList` of federate `f`'s `HLAfederate` (the modules it brought at
    /// its join) or, without `f`, of `HLAfederation`; and its text.
    fn mom_module(
        &self,
        f: Option<FederateHandle>,
        args: &MomArgs,
    ) -> Result<(i32, String), MomFailure> {
        let i: i32 = args.get("HLAFOMmoduleIndicator")?;
        let list: Vec<usize> = match f {
            Some(f) => self
                .mom
                .modules
                .get(&f)
                .map(|m| m.iter().map(|(_, j)| *j).collect())
                .unwrap_or_default(),
            None => (0..self.modules.len()).collect(),
        };
        let text = usize::try_from(i)
            .ok()
            .and_then(|i| list.get(i))
            .and_then(|j| self.modules.get(*j))
            .map(|(_, text)| text.clone())
            .ok_or_else(|| {
                MomFailure::Parameter(format!(
                    "parameter HLAFOMmoduleIndicator: no FOM module {i} (the list has {})",
                    list.len()
                ))
            })?;
        Ok((i, text))
    }

    /// `HLAreportObjectInstanceInformation`: what `f` knows of `o` (it must know it).
    fn mom_report_instance_information(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
    ) -> Result<(), MomFailure> {
        let known = self
            .locals
            .get(&f)
            .and_then(|l| l.known.get(&o).copied())
            .or_else(|| {
                // MOM instances are known to every federate that discovered them; the
                // federate's own instance is known to it.
                (super::is_mom_instance(o) && o.registrant() == f)
                    .then(|| self.objects.get(&o).map(|i| i.class))
                    .flatten()
            });
        let (Some(known), Some(inst)) = (known, self.objects.get(&o)) else {
            return Err(MomFailure::Parameter(format!(
                "parameter HLAobjectInstance: federate {f} does not know instance {o}"
            )));
        };
        let registered = inst.class;
        let owned: Vec<Vec<u8>> = inst
            .owned_by(f)
            .into_iter()
            .filter(|a| self.owns_now(f, o, *a))
            .map(|a| a.encode().to_vec())
            .collect();
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportObjectInstanceInformation",
            &[
                ("HLAobjectInstance", handle_value(&o.encode())),
                ("HLAownedInstanceAttributeList", handle_list(owned)),
                ("HLAregisteredClass", handle_value(&registered.encode())),
                ("HLAknownClass", handle_value(&known.encode())),
            ],
        );
        Ok(())
    }

    /// `HLAmanager.HLAfederation.*` (requests and `HLAadjust.HLAsetSwitches`), answered by the
    /// voice (`voice` is its federate here).
    pub(super) fn mom_federation_request(
        &mut self,
        voice: FederateHandle,
        name: &str,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        match name {
            "HLAfederation.HLArequest.HLArequestSynchronizationPoints" => {
                let labels: Vec<String> = self.sync.keys().cloned().collect();
                self.mom_report(
                    voice,
                    None,
                    "HLAfederation.HLAreport.HLAreportSynchronizationPoints",
                    &[("HLAsyncPoints", enc(labels))],
                );
            }
            "HLAfederation.HLArequest.HLArequestSynchronizationPointStatus" => {
                // The MIM gives this request no HLAsyncPointName: one report per pending point.
                let points: Vec<(String, Vec<(FederateHandle, i32)>)> = self
                    .sync
                    .iter()
                    .map(|(label, p)| {
                        let members = p
                            .members
                            .iter()
                            .map(|m| {
                                let s = if p.waiting.contains(m) {
                                    MOVING_TO_SYNCH_POINT
                                } else {
                                    WAITING_FOR_REST_OF_FEDERATION
                                };
                                (*m, s)
                            })
                            .collect();
                        (label.clone(), members)
                    })
                    .collect();
                for (label, members) in points {
                    // HLAsynchPointFederateList: records {HLAhandle, HLAsynchPointStatus}.
                    let mut e = crate::encoding::Encoder::new();
                    e.write_count(members.len());
                    for (m, s) in members {
                        e.align(4);
                        e.put(&OpaqueData(m.encode().to_vec()));
                        e.put(&s);
                    }
                    self.mom_report(
                        voice,
                        None,
                        "HLAfederation.HLAreport.HLAreportSynchronizationPointStatus",
                        &[
                            ("HLAsyncPointName", enc(label)),
                            ("HLAsyncPointFederates", e.into_bytes()),
                        ],
                    );
                }
            }
            "HLAfederation.HLArequest.HLArequestFOMmoduleData" => {
                let (i, text) = self.mom_module(None, args)?;
                self.mom_report(
                    voice,
                    None,
                    "HLAfederation.HLAreport.HLAreportFOMmoduleData",
                    &[
                        ("HLAFOMmoduleIndicator", enc(i)),
                        ("HLAFOMmoduleData", enc(text)),
                    ],
                );
            }
            "HLAfederation.HLArequest.HLArequestMIMdata" => {
                self.mom_report(
                    voice,
                    None,
                    "HLAfederation.HLAreport.HLAreportMIMdata",
                    &[("HLAMIMdata", enc(STANDARD_MIM_XML.to_string()))],
                );
            }
            _ => {
                return Err(MomFailure::Service(RtiError::RtiInternalError(format!(
                    "HLAmanager.{name} is not implemented by hlamesh"
                ))));
            }
        }
        Ok(())
    }
}
