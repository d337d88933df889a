//! Which LRC answers a MOM interaction, the decoding of its parameters, the adjustments
//! (`HLAadjust`), and `HLAreportMOMexception` for what cannot be answered.

use crate::encoding::typed::{DataElement, OpaqueData};
use crate::error::RtiError;
use crate::fom::Fdd;
use crate::handles::{FederateHandle, InteractionClassHandle, ParameterHandle};

use super::super::FederationCore;
use super::{MomHandles, enc};

/// Why a MOM interaction was not answered or its service not performed: sent back as
/// `HLAreportMOMexception`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MomFailure {
    /// A parameter is missing or cannot be decoded (`HLAparameterError` true).
    #[error("{0}")]
    Parameter(String),
    /// The service's preconditions are not met (`HLAparameterError` false).
    #[error("{0}")]
    Service(#[from] RtiError),
}

/// The parameters of one MOM interaction, decoded on demand.
pub(crate) struct MomArgs<'a> {
    pub(crate) fdd: &'a Fdd,
    pub(crate) class: InteractionClassHandle,
    pub(crate) params: &'a [(ParameterHandle, Vec<u8>)],
}

impl MomArgs<'_> {
    /// The raw value of parameter `n`, if sent.
    pub(crate) fn raw(&self, n: &str) -> Option<&[u8]> {
        let p = MomHandles::param(self.fdd, self.class, n)?;
        self.params
            .iter()
            .find(|(h, _)| *h == p)
            .map(|(_, v)| v.as_slice())
    }

    /// Parameter `n` decoded as `T` (missing or undecodable: a parameter error).
    pub(crate) fn get<T: DataElement>(&self, n: &str) -> Result<T, MomFailure> {
        let v = self
            .raw(n)
            .ok_or_else(|| MomFailure::Parameter(format!("parameter {n} is missing")))?;
        T::decode(v).map_err(|e| MomFailure::Parameter(format!("parameter {n}: {e}")))
    }

    /// Parameter `n` decoded as `T`, or `None` if it was not sent.
    pub(crate) fn opt<T: DataElement>(&self, n: &str) -> Result<Option<T>, MomFailure> {
        match self.raw(n) {
            None => Ok(None),
            Some(_) => self.get(n).map(Some),
        }
    }

    /// An HLAhandle parameter, decoded by `decode`.
    pub(crate) fn handle<H, E: std::fmt::Display>(
        &self,
        n: &str,
        decode: impl Fn(&[u8]) -> Result<H, E>,
    ) -> Result<H, MomFailure> {
        let v: OpaqueData = self.get(n)?;
        decode(&v.0).map_err(|e| MomFailure::Parameter(format!("parameter {n}: {e}")))
    }

    /// An HLAhandleList parameter, each handle decoded by `decode`.
    pub(crate) fn handles<H, E: std::fmt::Display>(
        &self,
        n: &str,
        decode: impl Fn(&[u8]) -> Result<H, E>,
    ) -> Result<Vec<H>, MomFailure> {
        let v: Vec<OpaqueData> = self.get(n)?;
        v.iter()
            .map(|h| decode(&h.0).map_err(|e| MomFailure::Parameter(format!("parameter {n}: {e}"))))
            .collect()
    }

    /// Every parameter sent, as `name=hex` text (`HLAsuppliedArguments` of a reported service).
    pub(crate) fn described(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|(p, v)| {
                let n = self
                    .fdd
                    .parameter_name(self.class, *p)
                    .map_or_else(|_| format!("{p}"), str::to_string);
                let hex: String = v.iter().map(|b| format!("{b:02x}")).collect();
                format!("{n}={hex}")
            })
            .collect()
    }

    /// An HLAboolean parameter (0 or 1; anything else is a parameter error).
    pub(crate) fn flag(&self, n: &str) -> Result<bool, MomFailure> {
        self.get(n)
    }

    /// An HLAswitch parameter (`Enabled` 1, `Disabled` 0), `None` if not sent.
    pub(crate) fn switch(&self, n: &str) -> Result<Option<bool>, MomFailure> {
        match self.opt::<i32>(n)? {
            None => Ok(None),
            Some(0) => Ok(Some(false)),
            Some(1) => Ok(Some(true)),
            Some(v) => Err(MomFailure::Parameter(format!(
                "parameter {n}: {v} is not an HLAswitch (0 or 1)"
            ))),
        }
    }
}

impl FederationCore {
    /// An interaction of class `class` was applied here: a MOM request, adjustment or service
    /// about a local federate (or, at the voice, about the federation) is answered; what
    /// cannot be is answered with `HLAreportMOMexception`.
    pub(crate) fn mom_on_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
    ) {
        let Some(fdd) = self.fdd.clone() else { return };
        let Some(name) = self
            .mom_handles()
            .and_then(|m| m.interaction_names.get(&class).cloned())
        else {
            return;
        };
        // Reports are the RTI's answers; the abstract classes (`HLAfederate.HLArequest`, …)
        // ask for nothing.
        if name.contains(".HLAreport") || name.matches('.').count() < 2 {
            return;
        }
        let args = MomArgs {
            fdd: &fdd,
            class,
            params,
        };
        let voice = self
            .mom_voice()
            .filter(|(_, n)| *n == self.me)
            .map(|(v, _)| v);
        if name == "HLAfederation.HLAadjust.HLAsetSwitches" {
            // Federation-wide state, decided in the coordinator's log (`switches.rs`).
            self.mom_set_federation_switches(voice, &name, &args);
            return;
        }
        if name.starts_with("HLAfederation.") {
            let Some(voice) = voice else { return };
            if let Err(e) = self.mom_federation_request(voice, &name, &args) {
                self.mom_exception(voice, None, &name, &e);
            }
            return;
        }
        // A federate-level interaction: its target's LRC answers; the voice answers one whose
        // target cannot be read or is not in the federation (no other LRC would).
        let target = args.handle("HLAfederate", FederateHandle::decode);
        let target = match target {
            Ok(t) if self.locals.contains_key(&t) => t,
            Ok(t) if self.view.federates.contains_key(&t) => return,
            Ok(t) => {
                if let Some(voice) = voice {
                    let e = MomFailure::Parameter(format!(
                        "federate {t} is not joined to federation {}",
                        self.name
                    ));
                    self.mom_exception(voice, Some(t), &name, &e);
                }
                return;
            }
            Err(e) => {
                if let Some(voice) = voice {
                    self.mom_exception(voice, None, &name, &e);
                }
                return;
            }
        };
        let r = if let Some(action) = name.strip_prefix("HLAfederate.HLAservice.") {
            self.mom_service(target, action, &args)
        } else if let Some(adjust) = name.strip_prefix("HLAfederate.HLAadjust.") {
            self.mom_adjust(target, adjust, &args)
        } else if let Some(request) = name.strip_prefix("HLAfederate.HLArequest.") {
            self.mom_federate_request(target, request, &args)
        } else {
            Ok(())
        };
        if let Err(e) = r {
            self.mom_exception(target, Some(target), &name, &e);
        }
    }

    /// Sends `HLAreportMOMexception` about `target` (its `HLAfederate` parameter, left out when
    /// unknown) for interaction `name` (below `HLAinteractionRoot.HLAmanager.`); counts it.
    pub(crate) fn mom_exception(
        &mut self,
        producer: FederateHandle,
        target: Option<FederateHandle>,
        name: &str,
        e: &MomFailure,
    ) {
        let parameter = matches!(e, MomFailure::Parameter(_));
        if parameter {
            self.mom.malformed = self.mom.malformed.saturating_add(1);
        }
        self.mom.exceptions_sent = self.mom.exceptions_sent.saturating_add(1);
        tracing::debug!(federation = %self.name, "MOM {name}: {e}");
        self.mom_report(
            producer,
            target,
            "HLAfederate.HLAreport.HLAreportMOMexception",
            &[
                (
                    "HLAservice",
                    enc(format!("HLAinteractionRoot.HLAmanager.{name}")),
                ),
                ("HLAexception", enc(e.to_string())),
                ("HLAparameterError", enc(parameter)),
            ],
        );
    }

    /// (malformed MOM interactions answered with `HLAreportMOMexception` here, every
    /// `HLAreportMOMexception` sent here) — for the metrics.
    pub fn mom_exception_counters(&self) -> (u64, u64) {
        (self.mom.malformed, self.mom.exceptions_sent)
    }

    /// `HLAmanager.HLAfederate.HLAadjust.*` for local federate `f`.
    fn mom_adjust(
        &mut self,
        f: FederateHandle,
        name: &str,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        match name {
            "HLAsetTiming" => {
                let secs: i32 = args.get("HLAreportPeriod")?;
                if secs <= 0 {
                    self.mom.timing.remove(&f);
                } else {
                    let period = u64::try_from(secs).unwrap_or(0).saturating_mul(1_000_000);
                    self.mom
                        .timing
                        .insert(f, (period, self.now.saturating_add(period)));
                }
            }
            "HLAsetServiceReporting" => {
                if args.flag("HLAreportingState")? {
                    self.mom_enable_service_reporting(f)?;
                } else {
                    self.mom.service_reporting.remove(&f);
                }
            }
            "HLAsetExceptionReporting" => {
                if args.flag("HLAreportingState")? {
                    self.mom.exception_reporting.insert(f);
                } else {
                    self.mom.exception_reporting.remove(&f);
                }
            }
            "HLAsetSwitches" => self.mom_set_federate_switches(f, args)?,
            "HLAmodifyAttributeState" => self.mom_modify_attribute_state(f, args)?,
            _ => {
                return Err(MomFailure::Service(RtiError::RtiInternalError(format!(
                    "HLAmanager.HLAfederate.HLAadjust.{name} is not implemented by hlamesh"
                ))));
            }
        }
        Ok(())
    }
}
