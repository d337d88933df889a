//! What of the MOM survives a federation restore, and what a late joiner or a new voice knows.
//!
//! The standard has the RTI save everything it holds for the federation so that after
//! `federationRestored` the federation is as it was at the save (4.16–4.31); the MOM state
//! and switches are part of it. hlamesh decides, attribute by attribute:
//!
//! - **Saved with each federate** (its `.rti` file, [`SavedMom`]) and put back at the commit of
//!   a restore of it, under its saved handle, on whichever LRC (process) it runs on now: the
//!   FOM modules it brought at its join, its counters (updates, reflections, interactions
//!   sent and received, by class and transportation; instances registered, discovered,
//!   deleted, removed, updated, reflected), the time it spent granted and advancing, its
//!   `HLAsetTiming` period, whether its service reporting (with the next
//!   `HLAserialNumber`) and exception reporting are on, and its `HLAsetSwitches` values. They
//!   describe the run up to the save, which the restore brings back; what the abandoned run
//!   did after the save is gone with it. Reports not sent yet are not saved (they belong to
//!   the abandoned run).
//! - **Federation-wide, saved in the saved membership** (the same in every file, and carried
//!   by the restore's decision, so a joiner that replays the restore gets it too): the
//!   Auto-Provide switch.
//! - **Not saved**: what describes the present rather than the saved run: the host, queue
//!   lengths, time state (restored with the time managers themselves), `HLAlastSaveName`
//!   (the save just restored stays the last that succeeded), the malformed-interaction and
//!   exception counters of the LRC (metrics of the process).
//!
//! Late joiners and takeover: each `HLAfederate`'s state lives on its own federate's LRC,
//! which maintains the instance and answers its interactions, so neither a late joiner nor a
//! new coordinator needs it (a late joiner gets the instance and its last values by state
//! transfer, and asks the maintainer for current ones). The federation's state is replicated:
//! the Auto-Provide switch is a decision of the coordinator's log
//! ([`Decision::FederationSwitches`](super::super::wire::Decision)), the view, modules,
//! time implementation and saves are replicated already, so a new voice answers as the old.

use serde::{Deserialize, Serialize};

use crate::handles::FederateHandle;

use super::super::FederationCore;
use super::{Counters, FederateSwitches, TimeInStates};

/// A local federate's MOM state in a save (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMom {
    /// The FOM modules it brought at its join: designator, index in the federation's list.
    pub modules: Vec<(String, usize)>,
    /// Its counters.
    pub counters: Counters,
    /// µs spent in the Time Granted and Time Advancing states up to the save.
    pub granted_us: u64,
    /// See `granted_us`.
    pub advancing_us: u64,
    /// In the Time Advancing state at the save.
    pub advancing: bool,
    /// `HLAsetTiming` period (µs), if set.
    pub report_period_us: Option<u64>,
    /// Service reporting on, with the next `HLAserialNumber`.
    pub service_reporting: Option<i32>,
    /// Exception reporting on.
    pub exception_reporting: bool,
    /// Its `HLAsetSwitches` values.
    pub switches: FederateSwitches,
}

impl TimeInStates {
    /// (granted, advancing) µs up to `now`.
    fn totals(&self, now: u64) -> (u64, u64) {
        let spent = now.saturating_sub(self.since);
        if self.advancing {
            (self.granted_us, self.advancing_us.saturating_add(spent))
        } else {
            (self.granted_us.saturating_add(spent), self.advancing_us)
        }
    }
}

impl FederationCore {
    /// Local federate `f`'s MOM state for a save.
    pub(crate) fn mom_capture(&self, f: FederateHandle) -> SavedMom {
        let times = self.mom.time_in_states.get(&f).copied().unwrap_or_default();
        let (granted_us, advancing_us) = times.totals(self.now);
        SavedMom {
            modules: self.mom.modules.get(&f).cloned().unwrap_or_default(),
            counters: self.mom.counters.get(&f).cloned().unwrap_or_default(),
            granted_us,
            advancing_us,
            advancing: times.advancing,
            report_period_us: self.mom.timing.get(&f).map(|(p, _)| *p),
            service_reporting: self.mom.service_reporting.get(&f).copied(),
            exception_reporting: self.mom.exception_reporting.contains(&f),
            switches: self.mom.switches.get(&f).copied().unwrap_or_default(),
        }
    }

    /// A restore committed: the MOM state of the federates this LRC hosted goes (it belongs to
    /// the abandoned run), the callback queues move to the federates' saved handles
    /// (`renames`: old → saved), and the names follow the restored view.
    pub(crate) fn mom_restore_begin(&mut self, renames: &[(FederateHandle, FederateHandle)]) {
        let m = &mut self.mom;
        m.counters.clear();
        m.timing.clear();
        m.time_in_states.clear();
        m.service_reporting.clear();
        m.exception_reporting.clear();
        m.switches.clear();
        m.modules.clear();
        m.producer_hidden.clear();
        m.invocations.clear();
        m.auto_requests.clear();
        let mut queues = std::mem::take(&mut m.queues);
        for (old, new) in renames {
            if let Some(q) = queues.remove(old) {
                m.queues.insert(*new, q);
            }
        }
        for (h, r) in &self.view.federates {
            self.mom.names.insert(*h, r.name.clone());
        }
    }

    /// Puts back restored local federate `f`'s MOM state from its save.
    pub(crate) fn mom_restore(&mut self, f: FederateHandle, saved: &SavedMom) {
        let now = self.now;
        let m = &mut self.mom;
        m.modules.insert(f, saved.modules.clone());
        m.counters.insert(f, saved.counters.clone());
        m.time_in_states.insert(
            f,
            TimeInStates {
                advancing: saved.advancing,
                since: now,
                granted_us: saved.granted_us,
                advancing_us: saved.advancing_us,
            },
        );
        if let Some(p) = saved.report_period_us {
            m.timing.insert(f, (p, now.saturating_add(p)));
        }
        if let Some(serial) = saved.service_reporting {
            m.service_reporting.insert(f, serial);
        }
        if saved.exception_reporting {
            m.exception_reporting.insert(f);
        }
        if saved.switches != FederateSwitches::default() {
            m.switches.insert(f, saved.switches);
        }
        self.mom_switches_changed(f);
    }
}
