//! Service and exception reporting (`HLAsetServiceReporting` → `HLAreportServiceInvocation`,
//! `HLAsetExceptionReporting` → `HLAreportException`).
//!
//! The LRC of a federate with reporting on reports each service its federate invokes (the
//! ambassador wraps its calls in [`FederationCore::mom_reported`]), each service the MOM
//! invokes on its behalf (`HLAservice`), and each callback the RTI invokes at it. Reports are
//! queued where the invocation happens and sent when the shell next polls the core's actions
//! ([`FederationCore::mom_flush`]): a callback may be issued deep inside message handling, and a
//! report is itself a message this LRC applies at once.
//!
//! No loops: enabling service reporting for a federate that is subscribed to
//! `HLAreportServiceInvocation` fails (the MIM's rule, `HLAreportMOMexception`), and the receipt
//! of an `HLAreportServiceInvocation` or `HLAreportException` is never itself reported.

use std::fmt::Debug;

use crate::error::RtiError;
use crate::handles::FederateHandle;

use super::super::{Callback, FederationCore};
use super::dispatch::MomFailure;
use super::{Invocation, enc};

/// The longest argument text a report carries (a callback's values can be large).
const MAX_ARGUMENT_CHARS: usize = 1024;

fn truncated(mut s: String) -> String {
    if s.len() > MAX_ARGUMENT_CHARS {
        let mut end = MAX_ARGUMENT_CHARS;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

/// A value a service returned, as HLAargumentList text (none for `()`).
fn returned<R: Debug>(v: &R) -> Vec<String> {
    let s = format!("{v:?}");
    if s == "()" {
        Vec::new()
    } else {
        vec![truncated(s)]
    }
}

/// A callback's service name (`ReflectAttributeValues` is `reflectAttributeValues`) and its
/// arguments as text.
fn callback_invocation(cb: &Callback) -> (String, String) {
    let text = format!("{cb:?}");
    let ident: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let mut cs = ident.chars();
    let name = match cs.next() {
        Some(c) => c.to_lowercase().chain(cs).collect(),
        None => String::new(),
    };
    (name, truncated(text))
}

impl FederationCore {
    /// The supplied arguments of a service local federate `f` invokes, described by `args`,
    /// when its service reporting is on (`None` otherwise: nothing is formatted).
    pub fn mom_supplied(
        &self,
        f: FederateHandle,
        args: impl FnOnce() -> Vec<String>,
    ) -> Option<Vec<String>> {
        self.mom
            .service_reporting
            .contains_key(&f)
            .then(|| args().into_iter().map(truncated).collect())
    }

    /// Runs service `service` that local federate `f` invoked (`supplied`: from
    /// [`Self::mom_supplied`]) and reports it if `f`'s service or exception reporting is on.
    pub fn mom_reported<R: Debug>(
        &mut self,
        f: FederateHandle,
        service: &str,
        supplied: Option<Vec<String>>,
        op: impl FnOnce(&mut Self) -> Result<R, RtiError>,
    ) -> Result<R, RtiError> {
        let r = op(self);
        if r.is_ok() && super::super::cell_route::changes_cells(service) {
            self.refresh_cells();
        }
        if supplied.is_some() || (r.is_err() && self.mom.exception_reporting.contains(&f)) {
            let outcome = match &r {
                Ok(v) => Ok(returned(v)),
                Err(e) => Err(e.to_string()),
            };
            self.mom_invoked(f, service, supplied, outcome);
        }
        r
    }

    /// Queues the reports of one invocation of `service` at `f`.
    pub(crate) fn mom_invoked(
        &mut self,
        f: FederateHandle,
        service: &str,
        supplied: Option<Vec<String>>,
        outcome: Result<Vec<String>, String>,
    ) {
        let exception = outcome.is_err() && self.mom.exception_reporting.contains(&f);
        if supplied.is_none() && !exception {
            return;
        }
        self.mom.invocations.push(Invocation {
            federate: f,
            service: service.to_string(),
            supplied,
            outcome,
        });
    }

    /// A callback is being given to local federate `f`: reported if its service reporting is
    /// on (the receipt of a reporting report excepted, see the module docs).
    pub(crate) fn mom_callback_invoked(&mut self, f: FederateHandle, cb: &Callback) {
        if !self.mom.service_reporting.contains_key(&f) {
            return;
        }
        if let Callback::ReceiveInteraction { class, .. } = cb
            && self
                .mom
                .handles
                .as_ref()
                .and_then(|m| m.interaction_names.get(class))
                .is_some_and(|n| {
                    n.ends_with(".HLAreportServiceInvocation") || n.ends_with(".HLAreportException")
                })
        {
            return;
        }
        let (service, text) = callback_invocation(cb);
        self.mom.invocations.push(Invocation {
            federate: f,
            service,
            supplied: Some(vec![text]),
            outcome: Ok(Vec::new()),
        });
    }

    /// Sends the queued reports (the shell's next poll of the actions; see the module docs).
    pub(crate) fn mom_flush(&mut self) {
        self.mom_send_auto_requests();
        self.mom_send_conditional();
        if self.mom.invocations.is_empty() {
            return;
        }
        for i in std::mem::take(&mut self.mom.invocations) {
            // Gone meanwhile (resigned): nothing to say about it.
            if !self.locals.contains_key(&i.federate) {
                continue;
            }
            let f = i.federate;
            if let Some(supplied) = i.supplied
                && let Some(serial) = self.mom.service_reporting.get_mut(&f)
            {
                let n = *serial;
                *serial = serial.wrapping_add(1);
                let (ok, returned, exception) = match &i.outcome {
                    Ok(r) => (true, r.clone(), String::new()),
                    Err(e) => (false, Vec::new(), e.clone()),
                };
                self.mom_report(
                    f,
                    Some(f),
                    "HLAfederate.HLAreport.HLAreportServiceInvocation",
                    &[
                        ("HLAservice", enc(i.service.clone())),
                        ("HLAsuccessIndicator", enc(ok)),
                        ("HLAsuppliedArguments", enc(supplied)),
                        ("HLAreturnedArguments", enc(returned)),
                        ("HLAexception", enc(exception)),
                        ("HLAserialNumber", enc(n)),
                    ],
                );
            }
            if let Err(e) = i.outcome
                && self.mom.exception_reporting.contains(&f)
            {
                self.mom_report(
                    f,
                    Some(f),
                    "HLAfederate.HLAreport.HLAreportException",
                    &[("HLAservice", enc(i.service)), ("HLAexception", enc(e))],
                );
            }
        }
    }

    /// `HLAsetServiceReporting` on for `f`: refused while `f` subscribes to
    /// `HLAreportServiceInvocation` (the MIM's rule).
    pub(super) fn mom_enable_service_reporting(
        &mut self,
        f: FederateHandle,
    ) -> Result<(), MomFailure> {
        let Some(fdd) = self.fdd.clone() else {
            return Ok(());
        };
        let class = self.mom_handles().and_then(|m| {
            m.interactions
                .get("HLAfederate.HLAreport.HLAreportServiceInvocation")
                .copied()
        });
        let subscribed = class.is_some_and(|c| {
            self.locals
                .get(&f)
                .is_some_and(|l| l.decl.promoted_interaction_class(&fdd, c).is_some())
        });
        if subscribed {
            return Err(MomFailure::Service(RtiError::RtiInternalError(format!(
                "federate {f} subscribes to HLAreportServiceInvocation: its service reporting \
                 cannot be enabled"
            ))));
        }
        self.mom.service_reporting.entry(f).or_insert(0);
        Ok(())
    }

    /// Whether local federate `f`'s service reporting is on.
    pub fn mom_service_reporting(&self, f: FederateHandle) -> bool {
        self.mom.service_reporting.contains_key(&f)
    }
}
