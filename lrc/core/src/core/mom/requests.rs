//! MOM requests (`HLAmanager.HLAfederate.HLArequest`) and the reports that answer them.

use std::collections::BTreeMap;

use crate::encoding::typed::{DataElement, OpaqueData};
use crate::handles::{AttributeHandle, FederateHandle, ObjectClassHandle};

use super::super::FederationCore;
use super::super::wire::DataMsg;
use super::{MomHandles, enc, federate_instance, handle_list, handle_value};

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

    pub(super) fn mom_report_publications(&mut self, f: FederateHandle) {
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

    pub(super) fn mom_report_subscriptions(&mut self, f: FederateHandle) {
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

    pub(super) fn mom_report_can_be_deleted(&mut self, f: FederateHandle) {
        let mut per: BTreeMap<ObjectClassHandle, i32> = BTreeMap::new();
        for i in self.objects.values() {
            if self.privilege_holder(i) == Some(f) {
                *per.entry(i.class).or_default() += 1;
            }
        }
        // HLAobjectClassBasedCounts: records {HLAhandle class, HLAcount}.
        let mut e = crate::encoding::Encoder::new();
        e.write_count(per.len());
        for (c, n) in per {
            e.align(4);
            e.put(&OpaqueData(c.encode().to_vec()));
            e.put(&n);
        }
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportObjectInstancesThatCanBeDeleted",
            &[("HLAobjectInstanceCounts", e.into_bytes())],
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
}
