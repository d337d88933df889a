//! Object invariants, per subscribing federate (as the harness numbers them: two federates on
//! the two sides of a partition may hold the same handle until one side is evicted): an instance is discovered once (as the class it
//! subscribed: every instance is a `Car`, so promotion gives `Car` or `Vehicle`), reflected and
//! removed only while known, with only the attributes subscribed; its `Position` values (each
//! owner counts 1, 2, 3, … per instance) arrive exactly once and in order — strictly increasing
//! always, and without a gap unless the subscriber's LRC fell behind the owner's. At the end
//! ([`ObjectsCheck::converged`]) every subscriber knows exactly the instances alive and holds
//! their last values.
//!
//! In region mode ([`crate::Options::regions`]) a subscriber to `Position` with regions rightly
//! misses the values sent outside them: its values only increase (still exactly once), and at
//! the end it knows no instance that is not alive; which values it must hold is the regions
//! check's ([`super::regions`]), and so is which instances it must have discovered. A
//! subscriber without regions is checked as outside region mode, except on DDM cell groups
//! ([`crate::Options::cells`]): there an LRC receives nothing of the cells it did not join, so
//! a subscriber without regions on it misses the values sent before its LRC joined them (and a
//! snapshot served by an LRC outside them is behind there), and is checked as one with
//! regions; the regions check still holds it to every instance's last value.

use std::collections::{BTreeMap, BTreeSet};

use hlamesh_core::core::Callback;
use hlamesh_core::handles::{AttributeHandle, ObjectClassHandle, ObjectInstanceHandle};
use hlamesh_transport::NodeId;

use crate::lrc::FedId;

/// What a subscriber subscribed to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    /// The class (the instances are discovered as it).
    pub class: ObjectClassHandle,
    /// Its attributes.
    pub attrs: BTreeSet<AttributeHandle>,
}

/// The objects check (see the module docs).
#[derive(Debug)]
pub struct ObjectsCheck {
    position: AttributeHandle,
    /// Per subscriber: what it subscribed.
    subs: BTreeMap<FedId, Subscription>,
    /// Per subscriber and instance known: the last position value reflected.
    known: BTreeMap<(FedId, ObjectInstanceHandle), Option<u64>>,
    /// (receiving LRC, sending LRC) pairs that fell behind: values may jump there.
    gappy: BTreeSet<(NodeId, NodeId)>,
    /// Region mode: subscribers to `Position` with regions, whose values may jump and whose
    /// instances and values at the end are checked only for staleness.
    filtered: BTreeSet<FedId>,
    /// Discoveries.
    pub discoveries: u64,
    /// Reflections of a position value.
    pub reflections: u64,
    /// Removals.
    pub removals: u64,
}

impl ObjectsCheck {
    /// A check in which `position` is the attribute whose values count up.
    pub fn new(position: AttributeHandle) -> ObjectsCheck {
        ObjectsCheck {
            position,
            subs: BTreeMap::new(),
            known: BTreeMap::new(),
            gappy: BTreeSet::new(),
            filtered: BTreeSet::new(),
            discoveries: 0,
            reflections: 0,
            removals: 0,
        }
    }

    /// `f` subscribed (and was told nothing yet of what it subscribed).
    pub fn subscribed(&mut self, f: FedId, s: Subscription) {
        self.subs.insert(f, s);
    }

    /// `f` subscribes to `Position` with regions (region mode).
    pub fn filtered(&mut self, f: FedId) {
        self.filtered.insert(f);
    }

    /// LRC `at` fell behind LRC `from`, or `from`'s stream restarted there past a gap after
    /// their connection dropped: values from there may jump.
    pub fn fell_behind(&mut self, at: NodeId, from: NodeId) {
        self.gappy.insert((at, from));
    }

    /// `f` is gone: what it knew no longer matters.
    pub fn gone(&mut self, f: FedId) {
        self.subs.remove(&f);
        self.filtered.remove(&f);
        let keys: Vec<_> = self
            .known
            .range((f, ObjectInstanceHandle(0))..)
            .take_while(|(k, _)| k.0 == f)
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            self.known.remove(&k);
        }
    }

    /// `f`, on LRC `at`, gets `cb`; `registrant` is the LRC of the registrant of the instance
    /// a reflection is about.
    pub fn callback(
        &mut self,
        f: FedId,
        at: NodeId,
        cb: &Callback,
        registrant: Option<NodeId>,
    ) -> Result<(), String> {
        match cb {
            Callback::DiscoverObjectInstance { object, class, .. } => {
                self.discoveries += 1;
                let sub = self
                    .subs
                    .get(&f)
                    .ok_or_else(|| format!("{f:?} discovered {object} without subscribing"))?;
                if *class != sub.class {
                    return Err(format!(
                        "{f:?} discovered {object} as class {class}, subscribed {}",
                        sub.class
                    ));
                }
                if self.known.insert((f, *object), None).is_some() {
                    return Err(format!("{f:?} discovered {object} twice"));
                }
            }
            Callback::ReflectAttributeValues { object, values, .. } => {
                let sub = self
                    .subs
                    .get(&f)
                    .ok_or_else(|| format!("{f:?} reflects {object} without subscribing"))?;
                for (a, _) in values {
                    if !sub.attrs.contains(a) {
                        return Err(format!(
                            "{f:?} reflects attribute {a} of {object}, not subscribed"
                        ));
                    }
                }
                let gappy = self.filtered.contains(&f)
                    || registrant.is_some_and(|o| self.gappy.contains(&(at, o)));
                let last = self
                    .known
                    .get_mut(&(f, *object))
                    .ok_or_else(|| format!("{f:?} reflects {object}, unknown to it"))?;
                for (a, v) in values {
                    if *a != self.position {
                        continue;
                    }
                    let n = v
                        .as_slice()
                        .try_into()
                        .map(u64::from_be_bytes)
                        .map_err(|_| format!("{f:?}: a position of {} bytes", v.len()))?;
                    if let Some(prev) = *last {
                        let ok = if gappy { n > prev } else { n == prev + 1 };
                        if !ok {
                            return Err(format!("{f:?}: {object} reflected {n} after {prev}"));
                        }
                    }
                    *last = Some(n);
                    self.reflections += 1;
                }
            }
            Callback::RemoveObjectInstance { object, .. } => {
                self.removals += 1;
                if self.known.remove(&(f, *object)).is_none() {
                    return Err(format!("{f:?} removes {object}, unknown to it"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether every live subscriber in `live` knows exactly the instances of `alive` it does
    /// not own (`owner`), each with the last value its owner sent; `Err` says what differs.
    pub fn converged(
        &self,
        live: &BTreeSet<FedId>,
        alive: &BTreeMap<ObjectInstanceHandle, (FedId, u64)>,
    ) -> Result<(), String> {
        for f in live {
            if !self.subs.contains_key(f) {
                continue;
            }
            let known: BTreeMap<ObjectInstanceHandle, Option<u64>> = self
                .known
                .range((*f, ObjectInstanceHandle(0))..)
                .take_while(|(k, _)| k.0 == *f)
                .map(|(k, v)| (k.1, *v))
                .collect();
            let expect: BTreeMap<ObjectInstanceHandle, Option<u64>> = alive
                .iter()
                .filter(|(_, (owner, _))| owner != f)
                .map(|(o, (_, n))| (*o, (*n > 0).then_some(*n)))
                .collect();
            if self.filtered.contains(f) {
                let stale: Vec<_> = known.keys().filter(|o| !expect.contains_key(o)).collect();
                if !stale.is_empty() {
                    return Err(format!(
                        "{f:?} knows instances that are not alive: {stale:?}"
                    ));
                }
                continue;
            }
            if known != expect {
                let missing: Vec<_> = expect
                    .iter()
                    .filter(|(o, v)| known.get(o) != Some(v))
                    .collect();
                let extra: Vec<_> = known
                    .iter()
                    .filter(|(o, v)| expect.get(o) != Some(v))
                    .collect();
                return Err(format!(
                    "{f:?} holds the wrong instances or values: expected but not held {missing:?}, held but not expected {extra:?}"
                ));
            }
        }
        Ok(())
    }
}
