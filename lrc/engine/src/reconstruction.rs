//! The data-reconstruction layer: typed events from the HLA thread, the bounded HLA queue they
//! wait in, and the engine's mirrored objects they are applied to.
//!
//! The HLA thread turns every reflection, discovery, removal and interaction into an
//! [`HlaEvent`] and pushes it on the [`HlaQueue`] — a short mutex-protected append, never a wait
//! on the simulation. At the end of a frame the engine *swaps* the queue's contents out (the
//! "engine queue"); at the start of the next frame it applies them, in arrival order, to its
//! [`Mirror`], notifying the observer once per applied change.
//!
//! Bounded queue behaviour (when the engine thread is slower than the data): the queue holds at
//! most `capacity` events. When it is full, a reflection of an object that already has a pending
//! reflection is *merged* into that pending one (its attributes overwrite, later values win —
//! exactly what applying both would leave in the mirror; the intermediate value is not observed),
//! and the merge is counted. Discoveries and removals are always accepted (they are bounded by
//! the number of instances and the mirror must stay consistent). An interaction, or a reflection
//! that cannot be merged, arriving at a full queue is dropped and counted. The HLA thread never
//! blocks and memory stays bounded; [`QueueStats`] says what was merged or dropped.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use hlamesh_lrc::ambassador::Time;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};

/// One received piece of federation data, decoded on the HLA thread.
#[derive(Debug, Clone, PartialEq)]
pub enum HlaEvent {
    /// A new instance became known.
    Discovered {
        /// The instance.
        object: ObjectInstanceHandle,
        /// Its (promoted) class.
        class: ObjectClassHandle,
        /// Its instance name.
        name: String,
        /// Its registering federate.
        producer: FederateHandle,
    },
    /// New attribute values of an instance.
    Reflected {
        /// The instance.
        object: ObjectInstanceHandle,
        /// Attribute values, in the order received.
        values: Vec<(AttributeHandle, Vec<u8>)>,
        /// The user-supplied tag.
        tag: Vec<u8>,
        /// Logical time, when time-stamped.
        time: Option<Time>,
        /// The producing federate.
        producer: FederateHandle,
        /// When the HLA thread received it (for latency measurements).
        received: Instant,
    },
    /// An instance was deleted (or is out of scope).
    Removed {
        /// The instance.
        object: ObjectInstanceHandle,
    },
    /// An interaction.
    Interaction {
        /// Its (promoted) class.
        class: InteractionClassHandle,
        /// Parameter values.
        params: Vec<(ParameterHandle, Vec<u8>)>,
        /// The user-supplied tag.
        tag: Vec<u8>,
        /// Logical time, when time-stamped.
        time: Option<Time>,
        /// The sending federate.
        producer: FederateHandle,
    },
}

/// What the HLA queue had to do because the engine did not keep up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Events accepted.
    pub pushed: u64,
    /// Reflections merged into a pending reflection of the same object because the queue was full.
    pub merged: u64,
    /// Events dropped because the queue was full and they could not be merged.
    pub dropped: u64,
    /// The most events ever waiting.
    pub high_water: usize,
}

#[derive(Debug, Default)]
struct Inner {
    events: VecDeque<HlaEvent>,
    stats: QueueStats,
}

/// The bounded queue between the HLA thread and the engine thread (see the module docs).
#[derive(Debug)]
pub struct HlaQueue {
    capacity: usize,
    inner: Mutex<Inner>,
}

impl HlaQueue {
    /// A queue holding at most `capacity` events (at least 1).
    pub fn new(capacity: usize) -> Self {
        HlaQueue {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called on the HLA thread: appends, or merges/drops when full. Never waits on the engine
    /// (the lock is only ever held for an append or a swap).
    pub fn push(&self, ev: HlaEvent) {
        let mut g = self.lock();
        let always = matches!(ev, HlaEvent::Discovered { .. } | HlaEvent::Removed { .. });
        if g.events.len() < self.capacity || always {
            g.events.push_back(ev);
            g.stats.pushed += 1;
            g.stats.high_water = g.stats.high_water.max(g.events.len());
            return;
        }
        if let HlaEvent::Reflected {
            object,
            values,
            tag,
            time,
            producer,
            received,
        } = ev
        {
            // Merge into the newest pending reflection of the same object, unless a removal of
            // that object came after it (then the new values belong to a re-discovery).
            for pending in g.events.iter_mut().rev() {
                match pending {
                    HlaEvent::Removed { object: o } | HlaEvent::Discovered { object: o, .. }
                        if *o == object =>
                    {
                        break;
                    }
                    HlaEvent::Reflected {
                        object: o,
                        values: pv,
                        tag: pt,
                        time: ptime,
                        producer: pp,
                        received: pr,
                    } if *o == object => {
                        for (a, v) in values {
                            match pv.iter_mut().find(|(pa, _)| *pa == a) {
                                Some(slot) => slot.1 = v,
                                None => pv.push((a, v)),
                            }
                        }
                        *pt = tag;
                        *ptime = time;
                        *pp = producer;
                        *pr = received;
                        g.stats.merged += 1;
                        return;
                    }
                    _ => {}
                }
            }
        }
        g.stats.dropped += 1;
    }

    /// Called on the engine thread at the end of a frame: takes everything queued so far
    /// (appended to `into`; the queue keeps `into`'s old allocation when it was empty).
    pub fn swap(&self, into: &mut VecDeque<HlaEvent>) {
        let mut g = self.lock();
        if into.is_empty() {
            std::mem::swap(&mut g.events, into);
        } else {
            into.append(&mut g.events);
        }
    }

    /// Events waiting now.
    pub fn len(&self) -> usize {
        self.lock().events.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counters so far.
    pub fn stats(&self) -> QueueStats {
        self.lock().stats
    }
}

/// The engine's copy of one remote object instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MirroredObject {
    /// Its class.
    pub class: ObjectClassHandle,
    /// Its instance name.
    pub name: String,
    /// The federate that registered it.
    pub producer: FederateHandle,
    /// Latest value of every attribute reflected so far.
    pub attributes: BTreeMap<AttributeHandle, Vec<u8>>,
    /// How many reflections were applied.
    pub updates: u64,
}

/// One change applied to the engine's state, as observers see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Change<'a> {
    /// A new mirrored object.
    Discovered {
        /// The instance.
        object: ObjectInstanceHandle,
        /// Its state (no attributes yet).
        state: &'a MirroredObject,
    },
    /// Attributes of a mirrored object were overwritten.
    Updated {
        /// The instance.
        object: ObjectInstanceHandle,
        /// Its state after the update.
        state: &'a MirroredObject,
        /// Which attributes this update carried.
        changed: &'a [(AttributeHandle, Vec<u8>)],
        /// The tag.
        tag: &'a [u8],
        /// The logical time, if time-stamped.
        time: Option<Time>,
        /// When the HLA thread received it.
        received: Instant,
    },
    /// A mirrored object is gone (its last state).
    Removed {
        /// The instance.
        object: ObjectInstanceHandle,
        /// Its last state.
        state: &'a MirroredObject,
    },
    /// An interaction was received.
    Interaction {
        /// Its class.
        class: InteractionClassHandle,
        /// Parameters.
        params: &'a [(ParameterHandle, Vec<u8>)],
        /// The tag.
        tag: &'a [u8],
        /// The logical time, if time-stamped.
        time: Option<Time>,
        /// The sender.
        producer: FederateHandle,
    },
}

/// The mirrored objects of the engine: the last known state of every discovered instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mirror {
    objects: HashMap<ObjectInstanceHandle, MirroredObject>,
}

impl Mirror {
    /// An empty mirror.
    pub fn new() -> Self {
        Self::default()
    }

    /// One mirrored object.
    pub fn get(&self, o: ObjectInstanceHandle) -> Option<&MirroredObject> {
        self.objects.get(&o)
    }

    /// All mirrored objects.
    pub fn iter(&self) -> impl Iterator<Item = (&ObjectInstanceHandle, &MirroredObject)> {
        self.objects.iter()
    }

    /// Number of mirrored objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// True when nothing is mirrored.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Applies events in order, calling `observe` exactly once per change. Returns how many
    /// changes were applied. A reflection of an unknown instance (its discovery was dropped by a
    /// resubscription race, or it was removed) is ignored: there is nothing to mirror it into.
    pub fn apply(
        &mut self,
        events: impl IntoIterator<Item = HlaEvent>,
        mut observe: impl FnMut(Change<'_>),
    ) -> usize {
        let mut n = 0;
        for ev in events {
            match ev {
                HlaEvent::Discovered {
                    object,
                    class,
                    name,
                    producer,
                } => {
                    let st = self.objects.entry(object).or_insert(MirroredObject {
                        class,
                        name,
                        producer,
                        attributes: BTreeMap::new(),
                        updates: 0,
                    });
                    observe(Change::Discovered { object, state: st });
                    n += 1;
                }
                HlaEvent::Reflected {
                    object,
                    values,
                    tag,
                    time,
                    received,
                    ..
                } => {
                    let Some(st) = self.objects.get_mut(&object) else {
                        continue;
                    };
                    for (a, v) in &values {
                        st.attributes.insert(*a, v.clone());
                    }
                    st.updates += 1;
                    observe(Change::Updated {
                        object,
                        state: st,
                        changed: &values,
                        tag: &tag,
                        time,
                        received,
                    });
                    n += 1;
                }
                HlaEvent::Removed { object } => {
                    if let Some(st) = self.objects.remove(&object) {
                        observe(Change::Removed { object, state: &st });
                        n += 1;
                    }
                }
                HlaEvent::Interaction {
                    class,
                    params,
                    tag,
                    time,
                    producer,
                } => {
                    observe(Change::Interaction {
                        class,
                        params: &params,
                        tag: &tag,
                        time,
                        producer,
                    });
                    n += 1;
                }
            }
        }
        n
    }
}

/// An observer of one object class: called with the application and the change.
pub type ClassObserver<S> = Box<dyn FnMut(&mut S, &Change<'_>)>;

/// Observers per object class, for applications that prefer registering them to matching on
/// the class in `Simulation::on_change`: call [`ClassObservers::dispatch`] from there.
/// Interactions go to the observers registered with [`ClassObservers::on_interaction`].
pub struct ClassObservers<S> {
    by_class: HashMap<ObjectClassHandle, Vec<ClassObserver<S>>>,
    interactions: HashMap<InteractionClassHandle, Vec<ClassObserver<S>>>,
}

impl<S> std::fmt::Debug for ClassObservers<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassObservers")
            .field("classes", &self.by_class.len())
            .field("interaction_classes", &self.interactions.len())
            .finish()
    }
}

impl<S> Default for ClassObservers<S> {
    fn default() -> Self {
        ClassObservers {
            by_class: HashMap::new(),
            interactions: HashMap::new(),
        }
    }
}

impl<S> ClassObservers<S> {
    /// None registered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Observes discoveries, updates and removals of instances of `class`.
    pub fn on_class(&mut self, class: ObjectClassHandle, f: ClassObserver<S>) {
        self.by_class.entry(class).or_default().push(f);
    }

    /// Observes interactions of `class`.
    pub fn on_interaction(&mut self, class: InteractionClassHandle, f: ClassObserver<S>) {
        self.interactions.entry(class).or_default().push(f);
    }

    /// Calls the observers of the change's class, in registration order. Returns how many.
    pub fn dispatch(&mut self, app: &mut S, change: &Change<'_>) -> usize {
        let list = match change {
            Change::Discovered { state, .. }
            | Change::Updated { state, .. }
            | Change::Removed { state, .. } => self.by_class.get_mut(&state.class),
            Change::Interaction { class, .. } => self.interactions.get_mut(class),
        };
        let Some(list) = list else {
            return 0;
        };
        for f in list.iter_mut() {
            f(app, change);
        }
        list.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn obj(n: u64) -> ObjectInstanceHandle {
        ObjectInstanceHandle(n)
    }
    fn disc(n: u64) -> HlaEvent {
        HlaEvent::Discovered {
            object: obj(n),
            class: ObjectClassHandle(1),
            name: format!("o{n}"),
            producer: FederateHandle(1),
        }
    }
    fn refl(n: u64, a: u32, v: u8) -> HlaEvent {
        HlaEvent::Reflected {
            object: obj(n),
            values: vec![(AttributeHandle(a), vec![v])],
            tag: vec![v],
            time: None,
            producer: FederateHandle(1),
            received: Instant::now(),
        }
    }

    #[test]
    fn nothing_is_applied_until_the_engine_swaps_and_applies() {
        let q = HlaQueue::new(16);
        let mut mirror = Mirror::new();
        q.push(disc(1));
        q.push(refl(1, 1, 7));
        assert!(mirror.is_empty(), "pushing alone must not touch the mirror");
        let mut engine_q = VecDeque::new();
        q.swap(&mut engine_q);
        assert!(q.is_empty());
        // Data arriving after the swap waits for the next frame.
        q.push(refl(1, 1, 8));
        let mut seen = Vec::new();
        mirror.apply(engine_q.drain(..), |c| {
            if let Change::Updated { state, .. } = c {
                seen.push(state.attributes[&AttributeHandle(1)].clone());
            }
        });
        assert_eq!(seen, vec![vec![7]]);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn changes_are_applied_in_order_with_one_notification_each() {
        let mut mirror = Mirror::new();
        let mut notes = Vec::new();
        let n = mirror.apply(
            vec![
                disc(1),
                refl(1, 1, 1),
                refl(1, 2, 2),
                refl(1, 1, 3),
                HlaEvent::Removed { object: obj(1) },
            ],
            |c| {
                notes.push(match c {
                    Change::Discovered { .. } => "d".to_string(),
                    Change::Updated { state, changed, .. } => {
                        format!(
                            "u{}:{:?}:{}",
                            state.updates,
                            changed[0].1,
                            state.attributes.len()
                        )
                    }
                    Change::Removed { state, .. } => format!("r{}", state.updates),
                    Change::Interaction { .. } => "i".into(),
                })
            },
        );
        assert_eq!(n, 5);
        assert_eq!(notes, ["d", "u1:[1]:1", "u2:[2]:2", "u3:[3]:2", "r3"]);
        assert!(mirror.is_empty());
    }

    #[test]
    fn class_observers_see_only_their_class_once_per_change() {
        let mut obs: ClassObservers<Vec<String>> = ClassObservers::new();
        obs.on_class(
            ObjectClassHandle(1),
            Box::new(|log, c| log.push(format!("one:{c:?}").chars().take(12).collect())),
        );
        obs.on_class(
            ObjectClassHandle(2),
            Box::new(|log, _| log.push("two".into())),
        );
        let mut mirror = Mirror::new();
        let mut log = Vec::new();
        let mut other = disc(2);
        if let HlaEvent::Discovered { class, .. } = &mut other {
            *class = ObjectClassHandle(2);
        }
        mirror.apply(vec![disc(1), refl(1, 1, 1), other], |c| {
            obs.dispatch(&mut log, &c);
        });
        assert_eq!(log.len(), 3);
        assert_eq!(log.iter().filter(|l| l.starts_with("one")).count(), 2);
        assert_eq!(log[2], "two");
    }

    #[test]
    fn reflections_of_unknown_objects_are_ignored_not_invented() {
        let mut mirror = Mirror::new();
        let mut calls = 0;
        assert_eq!(mirror.apply(vec![refl(9, 1, 1)], |_| calls += 1), 0);
        assert_eq!(calls, 0);
        assert!(mirror.is_empty());
    }

    #[test]
    fn a_full_queue_merges_reflections_keeps_discoveries_and_drops_interactions() {
        let q = HlaQueue::new(3);
        q.push(disc(1));
        q.push(refl(1, 1, 1));
        q.push(refl(1, 2, 2));
        // Full: these merge into the newest pending reflection of object 1.
        q.push(refl(1, 1, 10));
        q.push(refl(1, 3, 30));
        // Discoveries are always accepted; a reflection of the new object cannot merge.
        q.push(disc(2));
        q.push(refl(2, 1, 5));
        q.push(HlaEvent::Interaction {
            class: InteractionClassHandle(1),
            params: vec![],
            tag: vec![],
            time: None,
            producer: FederateHandle(2),
        });
        let s = q.stats();
        assert_eq!(s.merged, 2);
        assert_eq!(s.dropped, 2);
        assert_eq!(s.pushed, 4);
        let mut engine_q = VecDeque::new();
        q.swap(&mut engine_q);
        let mut mirror = Mirror::new();
        mirror.apply(engine_q, |_| {});
        let o1 = mirror.get(obj(1)).unwrap();
        // The final state equals applying every reflection: 10, 2, 30.
        assert_eq!(o1.attributes[&AttributeHandle(1)], vec![10]);
        assert_eq!(o1.attributes[&AttributeHandle(2)], vec![2]);
        assert_eq!(o1.attributes[&AttributeHandle(3)], vec![30]);
        assert!(mirror.get(obj(2)).unwrap().attributes.is_empty());
    }

    #[test]
    fn a_reflection_never_merges_across_a_removal() {
        let q = HlaQueue::new(2);
        q.push(disc(1));
        q.push(refl(1, 1, 1));
        q.push(HlaEvent::Removed { object: obj(1) });
        q.push(refl(1, 1, 2));
        assert_eq!(q.stats().dropped, 1);
        assert_eq!(q.stats().merged, 0);
    }

    #[test]
    fn the_hla_thread_never_blocks_while_the_engine_is_slow() {
        // The engine thread holds its (swapped-out) queue for a long "frame"; a producer thread
        // pushes 100 000 events meanwhile and must finish without waiting for the frame.
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let q = Arc::new(HlaQueue::new(1000));
        q.push(disc(1));
        let done = Arc::new(AtomicBool::new(false));
        let (q2, done2) = (q.clone(), done.clone());
        let producer = std::thread::spawn(move || {
            for i in 0..100_000u64 {
                q2.push(refl(1 + i % 4, 1, (i % 251) as u8));
            }
            done2.store(true, Ordering::Release);
        });
        // The "slow engine": never swaps until the producer is done (bounded wait).
        let start = std::time::Instant::now();
        while !done.load(Ordering::Acquire) {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "producer blocked"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        producer.join().unwrap();
        let s = q.stats();
        assert!(q.len() <= 1000, "bounded: {}", q.len());
        assert_eq!(s.pushed + s.merged + s.dropped, 100_001);
        assert_eq!(s.high_water, 1000);
    }
}
