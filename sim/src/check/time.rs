//! Time-management invariants, per federate: an enable (regulation, constraint) comes only when
//! asked for and never before the federate's time; a grant answers a pending request — a TAR
//! exactly at its time, an NER no later than asked and no earlier than the federate's time — so
//! grants are monotone; a message sent in time-stamp order reaches a constrained federate in
//! time-stamp order, only while it advances (or enables regulation), never beyond its request
//! and never in its past (before its time, nor at it after a TAR or NER grant): a grant to `t`
//! means every such message at or before `t` came before it.

use std::collections::BTreeMap;

use hlamesh_core::core::{Callback, ReceiveInfo};
use hlamesh_core::fom::OrderType;
use hlamesh_timesync::{DynTime, LogicalTime};

use crate::lrc::FedId;

/// A switch of a federate as asked and granted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Switch {
    /// Off.
    #[default]
    Off,
    /// Asked for, not enabled yet.
    Pending,
    /// On.
    On,
}

/// What one federate asked of time management and was granted.
#[derive(Clone, Debug, Default)]
pub struct TimeState {
    /// Regulation.
    pub regulation: Switch,
    /// Constraint.
    pub constraint: Switch,
    /// The time of its last grant or enable.
    pub granted: f64,
    /// A request waiting for its grant: (next-message request?, time).
    pub pending: Option<(bool, f64)>,
    /// The last grant was a TAR or NER grant: a time-stamp-ordered message at exactly
    /// `granted` is in the federate's past.
    pub strict: bool,
    /// The federate asked to resign: the others may stop waiting for it.
    pub resigning: bool,
}

/// The time check (see the module docs).
#[derive(Debug, Default)]
pub struct TimeCheck {
    feds: BTreeMap<FedId, TimeState>,
    /// Grants seen.
    pub grants: u64,
    /// Messages delivered in time-stamp order.
    pub tso_delivered: u64,
}

impl TimeCheck {
    /// What `f` asked and was granted so far.
    pub fn state(&self, f: FedId) -> TimeState {
        self.feds.get(&f).cloned().unwrap_or_default()
    }

    /// `f` asked to enable regulation.
    pub fn asked_regulation(&mut self, f: FedId) {
        self.feds.entry(f).or_default().regulation = Switch::Pending;
    }

    /// `f` disabled regulation.
    pub fn disabled_regulation(&mut self, f: FedId) {
        self.feds.entry(f).or_default().regulation = Switch::Off;
    }

    /// `f` asked to enable constraint.
    pub fn asked_constraint(&mut self, f: FedId) {
        self.feds.entry(f).or_default().constraint = Switch::Pending;
    }

    /// `f` asked to advance to `at` (`next`: NER).
    pub fn asked_advance(&mut self, f: FedId, next: bool, at: f64) {
        self.feds.entry(f).or_default().pending = Some((next, at));
    }

    /// `f` asked to resign.
    pub fn resigning(&mut self, f: FedId) {
        self.feds.entry(f).or_default().resigning = true;
    }

    /// `f` is gone.
    pub fn gone(&mut self, f: FedId) {
        self.feds.remove(&f);
    }

    /// `f` gets `cb`.
    pub fn callback(&mut self, f: FedId, cb: &Callback) -> Result<(), String> {
        let m = self.feds.entry(f).or_default();
        match cb {
            Callback::TimeRegulationEnabled(t) => {
                let t = t.value();
                if m.regulation != Switch::Pending {
                    return Err(format!("{f:?}: regulation enabled unasked"));
                }
                if t < m.granted {
                    return Err(format!(
                        "{f:?}: regulation enabled at {t}, before its time {}",
                        m.granted
                    ));
                }
                m.regulation = Switch::On;
                if t > m.granted {
                    m.strict = false;
                }
                m.granted = t;
            }
            Callback::TimeConstrainedEnabled(t) => {
                let t = t.value();
                if m.constraint != Switch::Pending {
                    return Err(format!("{f:?}: constraint enabled unasked"));
                }
                if t < m.granted {
                    return Err(format!(
                        "{f:?}: constraint enabled at {t}, before its time {}",
                        m.granted
                    ));
                }
                m.constraint = Switch::On;
                m.granted = t;
                m.strict = false;
            }
            Callback::TimeAdvanceGrant(t) => {
                let t = t.value();
                let Some((next, at)) = m.pending.take() else {
                    return Err(format!("{f:?}: grant to {t} with no request"));
                };
                let ok = if next {
                    t <= at && t >= m.granted
                } else {
                    t == at
                };
                if !ok {
                    return Err(format!(
                        "{f:?}: {}({at}) granted {t} (its time was {})",
                        if next { "NER" } else { "TAR" },
                        m.granted
                    ));
                }
                m.granted = t;
                m.strict = true;
                self.grants += 1;
            }
            Callback::ReflectAttributeValues { info, .. }
            | Callback::ReceiveInteraction { info, .. } => {
                let ordered = tso(f, m, info)?;
                self.tso_delivered += u64::from(ordered);
            }
            _ => {}
        }
        Ok(())
    }
}

/// The time-stamp-order rules of one delivery to `f` (see the module docs); whether it was
/// delivered in time-stamp order.
fn tso(f: FedId, m: &TimeState, info: &ReceiveInfo) -> Result<bool, String> {
    let Some(t) = info.time.as_deref().and_then(|b| DynTime::decode(b).ok()) else {
        return Ok(false);
    };
    let tso = info.received_order == OrderType::TimeStamp;
    if m.resigning {
        return Ok(tso);
    }
    let t = t.value();
    if tso {
        if info.sent_order != OrderType::TimeStamp {
            return Err(format!(
                "{f:?}: a receive-order message delivered in time-stamp order"
            ));
        }
        if m.pending.is_none() && m.regulation != Switch::Pending {
            return Err(format!(
                "{f:?}: time-stamp-ordered message at {t} while not advancing ({m:?})"
            ));
        }
        if let Some((_, at)) = m.pending
            && t > at
        {
            return Err(format!(
                "{f:?}: time-stamp-ordered message at {t} beyond its request ({m:?})"
            ));
        }
    }
    if info.sent_order == OrderType::TimeStamp && m.constraint == Switch::On {
        let past = t < m.granted || (t == m.granted && m.strict);
        if past || !tso {
            return Err(format!(
                "{f:?}: time-stamp-ordered message from {} at {t} delivered in its past or in receive order ({:?}; {m:?})",
                info.producer, info.received_order
            ));
        }
    }
    Ok(tso)
}
