//! Update rate designators (IEEE 1516-2010 5.6, 10.13, 10.14): a subscriber that names one of
//! the FDD's `updateRates` in `subscribeObjectClassAttributes` receives each attribute of each
//! instance no faster than that rate.
//!
//! # What a subscriber with a rate gets
//!
//! A federate that subscribed a class's attributes at `r` Hz receives a given attribute of a
//! given instance at most once every `1/r` seconds of **wall time** (the shell's clock, handed
//! to the core as `now`). Inside one interval the newest value wins: an update that comes too
//! soon is **held, replacing any value held before**, and handed on when the interval opens
//! (a trailing-edge hold). So
//!
//! - the value delivered is always the latest one the RTI had when it delivered: a held value
//!   that a newer update of the same attribute reaches is dropped then, never delivered late
//!   after it ("never held past the next update of the same attribute");
//! - a value is held at most one interval;
//! - when the publisher stops, its last value still arrives (at most one interval late).
//!   Plain drop-if-too-soon would lose it for good, and a subscriber that sees values at 10 Hz
//!   of a 60 Hz publisher would keep whichever value came first in the interval, not the last.
//!
//! The interval counts from the last delivery, so two deliveries of one attribute are never
//! closer than `1/r`; a wake-up later than the deadline makes that gap a little longer.
//!
//! # Which updates are thinned
//!
//! Updates **sent in receive order** (reliable or best effort). An update sent in time-stamp
//! order is never thinned, at either end: it is an event of the receivers' logical-time
//! simulation, which time management promises to deliver exactly once in time-stamp order, so
//! thinning it by wall time would make what a time-constrained federate simulates depend on
//! machine speed, and thinning it by logical time cannot keep the latest value (a held TSO value
//! can only be delivered before the grant past its time stamp, and delivering it then is as fast
//! as not holding it). The FDD's rates are in Hz, so wall time is what they define for the
//! receive-order data they apply to.
//!
//! # Where the reduction happens
//!
//! - **At the receiving LRC**, for each local federate by its own rate (key: federate, instance,
//!   attribute). This alone is the guarantee.
//! - **At the sender's LRC**, which knows every subscriber's rate: every LRC replicates each
//!   federate's subscriptions with their rates (an active one without a rate by its
//!   [`super::wire::Declaration::SubscribeObject`], a passive or rated one also by a
//!   [`super::wire::Declaration::Subscription`]; in the data stream, in state transfer and after
//!   a restore). A multicast update reaches every
//!   LRC, so the sender may thin an attribute only when **every** subscriber of it (in any LRC,
//!   the producer excepted) asked for a rate, and then at the fastest of those rates (key:
//!   instance, attribute). One subscriber without a rate, or no subscriber known, and nothing is
//!   thinned at the sender. A subscriber the sender has not heard of yet (its declaration is in
//!   flight) may briefly get the thinned stream; its own LRC never delivers faster than its
//!   rate either way.
//!
//! # Timers
//!
//! Held values are released by deadlines, sans-I/O: [`FederationCore::poll_timeout`] says when
//! the next held value falls due and the shell calls [`FederationCore::handle_timeout`] then
//! (the LRC's pump thread waits for it). Each reduction is a [`Throttle`].
//!
//! # What a released value must still satisfy
//!
//! A released value goes only where an update at that moment could go: at the sender, the
//! producer must still be joined here, own and publish the attribute, and be outside a save or
//! restore (the value is dropped otherwise: divesting, resigning or saving discards what the
//! throttle held); at a receiver, the federate must still know the instance and subscribe the
//! attribute. Values held before a restore are dropped (they belong to the abandoned run). A
//! time-managed receiver gets a released value through its time manager as a receive-order
//! message ([`hlamesh_timesync::TimeManager::on_local_ro`]), so a constrained federate without
//! asynchronous delivery still gets it only while advancing.
//!
//! Rates are saved with the subscriptions (save format 7): a restored federate's subscriptions
//! have the rates they had at the save, at its own LRC and, through the declarations every
//! restored LRC sends again, at the senders' reductions.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::RtiError;
use crate::fom::Fdd;
use crate::handles::{AttributeHandle, FederateHandle, ObjectClassHandle, ObjectInstanceHandle};

use super::wire::{Declaration, Timestamp};
use super::{Callback, FederationCore, LocalFederate};

/// Microseconds in a second: `now` is in microseconds.
const US_PER_S: f64 = 1_000_000.0;

/// A rate a federate subscribed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscribedRate {
    /// The FDD's name for it (the designator the federate passed).
    pub designator: String,
    /// The shortest time between two deliveries of one attribute, microseconds.
    pub interval_us: u64,
}

/// The shortest interval between deliveries at `hz`, in microseconds; `None` for a rate that
/// limits nothing (zero, negative, not finite).
pub fn interval_us(hz: f64) -> Option<u64> {
    if !(hz.is_finite() && hz > 0.0) {
        return None;
    }
    // At least 1 µs: a rate above 1 MHz limits nothing measurable.
    Some(((US_PER_S / hz).round() as u64).max(1))
}

/// One key's state: when it was last handed on and the value held for the next interval.
#[derive(Debug, Clone)]
struct Slot<V> {
    last: u64,
    interval: u64,
    held: Option<(u64, V)>,
}

/// At most one value per key per interval, the newest held for the interval's end (see the
/// module docs). Times are the caller's `now`, microseconds.
#[derive(Debug, Clone)]
pub struct Throttle<K: Ord + Copy, V> {
    slots: BTreeMap<K, Slot<V>>,
    /// (deadline, key) of every held value.
    deadlines: BTreeSet<(u64, K)>,
    /// Slot count after the last prune (slots are pruned when they double).
    pruned_len: usize,
    /// Held values a newer one replaced or overtook (never handed on).
    superseded: u64,
}

impl<K: Ord + Copy, V> Default for Throttle<K, V> {
    fn default() -> Self {
        Throttle {
            slots: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            pruned_len: 0,
            superseded: 0,
        }
    }
}

impl<K: Ord + Copy, V> Throttle<K, V> {
    /// Offers `value` for `key` at `now` with at least `interval` µs between deliveries:
    /// `Some(value)` to hand on now (any value held for the key is older and dropped), or
    /// `None` when it is held for the interval's end instead, replacing what was held.
    pub fn offer(&mut self, key: K, now: u64, interval: u64, value: V) -> Option<V> {
        let Some(slot) = self.slots.get_mut(&key) else {
            self.slots.insert(
                key,
                Slot {
                    last: now,
                    interval,
                    held: None,
                },
            );
            self.maybe_prune(now);
            return Some(value);
        };
        let due = slot.last.saturating_add(interval);
        if now >= due {
            if let Some((deadline, _)) = slot.held.take() {
                self.deadlines.remove(&(deadline, key));
                self.superseded += 1;
            }
            slot.last = now;
            slot.interval = interval;
            return Some(value);
        }
        if let Some((deadline, _)) = slot.held.take() {
            self.deadlines.remove(&(deadline, key));
            self.superseded += 1;
        }
        slot.interval = interval;
        slot.held = Some((due, value));
        self.deadlines.insert((due, key));
        None
    }

    /// When the next held value falls due.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.deadlines.first().map(|(d, _)| *d)
    }

    /// The next held value due at `now`, which counts as handed on at `now`.
    pub fn poll_due(&mut self, now: u64) -> Option<(K, V)> {
        let &(deadline, key) = self.deadlines.first()?;
        if deadline > now {
            return None;
        }
        self.deadlines.remove(&(deadline, key));
        let slot = self.slots.get_mut(&key)?;
        let (_, value) = slot.held.take()?;
        slot.last = now;
        Some((key, value))
    }

    /// Forgets every key `keep` says no to, with what it held.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.slots.retain(|k, _| keep(k));
        self.deadlines.retain(|(_, k)| keep(k));
        self.pruned_len = self.slots.len();
    }

    /// Held values a newer value of their key replaced or overtook, since the start: values
    /// this throttle saved sending or delivering.
    pub fn superseded(&self) -> u64 {
        self.superseded
    }

    /// Values held now.
    pub fn held(&self) -> usize {
        self.deadlines.len()
    }

    /// Keys remembered (held or delivered within their interval, or not pruned yet).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Drops the slots that hold nothing and whose interval is over (an offer would pass
    /// anyway), whenever the slot count doubled since the last prune: memory stays within
    /// twice the keys active in one interval.
    fn maybe_prune(&mut self, now: u64) {
        if self.slots.len() < 2 * self.pruned_len.max(64) {
            return;
        }
        self.slots
            .retain(|_, s| s.held.is_some() || now < s.last.saturating_add(s.interval));
        self.pruned_len = self.slots.len();
    }
}

/// An attribute value a throttle holds, with what its update carried.
#[derive(Debug, Clone)]
pub(crate) struct HeldValue {
    /// Which update it came in (values of one update are released together).
    pub(crate) update: u64,
    pub(crate) producer: FederateHandle,
    pub(crate) value: Vec<u8>,
    pub(crate) tag: Vec<u8>,
    pub(crate) time: Option<Timestamp>,
    pub(crate) reliable: bool,
    /// The restore epoch it was held in.
    pub(crate) epoch: u32,
}

/// The two reductions of one federation core.
#[derive(Debug, Default)]
pub(crate) struct UpdateRates {
    /// At the sender: (instance, attribute) of this LRC's federates' updates.
    pub(crate) send: Throttle<(ObjectInstanceHandle, AttributeHandle), HeldValue>,
    /// At the receiver: (federate, instance, attribute) of local federates' reflections.
    pub(crate) receive:
        Throttle<(FederateHandle, ObjectInstanceHandle, AttributeHandle), HeldValue>,
    /// Numbers the updates values are held from.
    next_update: u64,
}

impl UpdateRates {
    pub(crate) fn next_update(&mut self) -> u64 {
        self.next_update += 1;
        self.next_update
    }
}

/// Whether a subscription needs a [`Declaration::Subscription`] besides its
/// [`Declaration::SubscribeObject`]: the latter alone says "these attributes, actively, with no
/// rate", so only a passive or rated one does (every other declaration stream stays as it was).
pub(crate) fn needs_subscription_declaration(active: bool, interval_us: Option<u64>) -> bool {
    !active || interval_us.is_some()
}

/// The subscription declarations of local federate `lf` that its `SubscribeObject`s do not
/// say (passive and rated ones), as other LRCs need them for the sender's reduction: sent after
/// a restore and in state transfer, after the `SubscribeObject`s.
pub(crate) fn subscription_declarations(lf: &LocalFederate) -> Vec<Declaration> {
    lf.decl
        .subscribed_objects
        .iter()
        .filter(|(c, s)| {
            !s.attrs.is_empty()
                && needs_subscription_declaration(
                    s.active,
                    lf.decl.rates.get(*c).map(|r| r.interval_us),
                )
        })
        .map(|(c, s)| Declaration::Subscription {
            class: *c,
            attrs: s.attrs.iter().copied().collect(),
            interval_us: lf.decl.rates.get(c).map(|r| r.interval_us),
        })
        .collect()
}

/// Values of one update released together: (key of the group) → attribute values.
type Released<G> = BTreeMap<G, (HeldValue, Vec<(AttributeHandle, Vec<u8>)>)>;

fn group<G: Ord>(released: &mut Released<G>, g: G, a: AttributeHandle, mut v: HeldValue) {
    let value = std::mem::take(&mut v.value);
    released
        .entry(g)
        .or_insert_with(|| (v, Vec::new()))
        .1
        .push((a, value));
}

impl FederationCore {
    /// 10.13: the rate in Hz of update rate designator `name`.
    pub fn get_update_rate_value(&self, name: &str) -> Result<f64, RtiError> {
        self.fdd_ref()?.update_rate_value(name).map_err(|_| {
            RtiError::InvalidUpdateRateDesignator(format!(
                "federation {}: no update rate named \"{name}\" in the FDD",
                self.name
            ))
        })
    }

    /// The rate of designator `name` as a subscription keeps it.
    pub(crate) fn subscribed_rate(&self, name: &str) -> Result<Option<SubscribedRate>, RtiError> {
        let hz = self.get_update_rate_value(name)?;
        Ok(interval_us(hz).map(|interval_us| SubscribedRate {
            designator: name.to_string(),
            interval_us,
        }))
    }

    /// 10.14: the rate in Hz at which federate `f` subscribed attribute `a` of the class it
    /// knows `object` as; 0 when it subscribed that attribute with no rate, or does not
    /// subscribe it. `ObjectInstanceNotKnown` and `AttributeNotDefined` as the standard says.
    pub fn get_update_rate_value_for_attribute(
        &self,
        f: FederateHandle,
        object: ObjectInstanceHandle,
        a: AttributeHandle,
    ) -> Result<f64, RtiError> {
        let lf = self.local(f)?;
        let fdd = self.fdd_ref()?;
        let Some(known) = lf.known.get(&object).copied() else {
            return Err(RtiError::ObjectInstanceNotKnown(format!(
                "federation {}: federate {f} does not know object instance {object}",
                self.name
            )));
        };
        fdd.attribute(known, a)
            .map_err(|e| RtiError::AttributeNotDefined(format!("federation {}: {e}", self.name)))?;
        if !lf
            .decl
            .subscribed_attrs(known)
            .is_some_and(|s| s.contains(&a))
        {
            return Ok(0.0);
        }
        match lf.decl.rates.get(&known) {
            Some(r) => Ok(fdd.update_rate_value(&r.designator).unwrap_or(0.0)),
            None => Ok(0.0),
        }
    }

    /// When the next held value or held move (`super::move_fold`) falls due (µs, the shell's clock): the shell calls
    /// [`Self::handle_timeout`] then.
    pub fn poll_timeout(&self) -> Option<u64> {
        [
            self.rates.send.poll_timeout(),
            self.rates.receive.poll_timeout(),
            self.held_moves_due(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Releases the held values due at `now`: sends the sender's, reflects the receivers'.
    pub fn handle_timeout(&mut self, now: u64) {
        self.now = self.now.max(now);
        if self.phase.connection_lost().is_some() {
            // Nothing goes out or in any more; dropping what was held also ends the deadlines
            // (a deadline left due would have the shell call again at once, for ever).
            self.rates.send.retain(|_| false);
            self.rates.receive.retain(|_| false);
            self.drop_held_moves();
            return;
        }
        let now = self.now;
        self.flush_held_moves_due(now);
        let mut sends: Released<(u64, ObjectInstanceHandle)> = BTreeMap::new();
        while let Some(((o, a), v)) = self.rates.send.poll_due(now) {
            group(&mut sends, (v.update, o), a, v);
        }
        let mut reflections: Released<(u64, FederateHandle, ObjectInstanceHandle)> =
            BTreeMap::new();
        while let Some(((f, o, a), v)) = self.rates.receive.poll_due(now) {
            group(&mut reflections, (v.update, f, o), a, v);
        }
        let sent = !sends.is_empty();
        for ((_, o), (v, values)) in sends {
            self.release_send(o, v, values);
        }
        let reflected = !reflections.is_empty();
        for ((_, f, o), (v, values)) in reflections {
            self.release_reflection(f, o, v, values);
        }
        if sent || reflected {
            self.pump_time();
        }
    }

    /// The interval at which this LRC may send attribute `a` of an instance of `class` that
    /// `producer` updates: the shortest interval every subscriber asked for, or `None` (send
    /// every update) when some subscriber asked for no rate or none is known.
    pub(crate) fn send_interval(
        &self,
        fdd: &Fdd,
        class: ObjectClassHandle,
        producer: FederateHandle,
        a: AttributeHandle,
    ) -> Option<u64> {
        let mut shortest: Option<u64> = None;
        for (g, ri) in &self.interest {
            if *g == producer || ri.subscriptions.is_empty() {
                continue;
            }
            // The subscription it knows instances of `class` by (promotion).
            let mut cur = Some(class);
            while let Some(c) = cur {
                if let Some(s) = ri.subscriptions.get(&c).filter(|s| !s.attrs.is_empty()) {
                    if s.attrs.contains(&a) {
                        let i = s.interval_us?;
                        shortest = Some(shortest.map_or(i, |x| x.min(i)));
                    }
                    break;
                }
                cur = fdd.object_class(c).ok().and_then(|oc| oc.parent);
            }
        }
        shortest
    }

    /// Whether any federate's subscription known here carries a rate (the sender's reduction
    /// costs nothing otherwise). Asked on every update, so it reads a flag that every change of
    /// `interest` refreshes ([`Self::interest_changed`]) instead of walking the subscriptions.
    pub(crate) fn rates_in_use(&self) -> bool {
        debug_assert_eq!(self.rated_interest, self.rates_in_interest());
        self.rated_interest
    }

    fn rates_in_interest(&self) -> bool {
        self.interest
            .values()
            .any(|ri| ri.subscriptions.values().any(|s| s.interval_us.is_some()))
    }

    /// To be called after every change of `interest`.
    pub(crate) fn interest_changed(&mut self) {
        self.rated_interest = self.rates_in_interest();
        self.mom_interest_changed();
    }

    /// Attribute values the reductions dropped because a newer value of the same attribute
    /// came within the interval (sender, receiver): what a rate saved (`/metrics`).
    pub fn values_thinned(&self) -> (u64, u64) {
        (
            self.rates.send.superseded(),
            self.rates.receive.superseded(),
        )
    }

    /// Splits the values of a receive-order update `producer` sends for `object` into those
    /// to send now (returned) and those the sender's reduction holds.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn thin_send(
        &mut self,
        fdd: &Fdd,
        class: ObjectClassHandle,
        producer: FederateHandle,
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: &[u8],
        time: &Option<Timestamp>,
        reliable: bool,
    ) -> Vec<(AttributeHandle, Vec<u8>)> {
        let intervals: Vec<Option<u64>> = values
            .iter()
            .map(|(a, _)| self.send_interval(fdd, class, producer, *a))
            .collect();
        if intervals.iter().all(Option::is_none) {
            return values;
        }
        let update = self.rates.next_update();
        let (now, epoch) = (self.now, self.restore.epoch());
        let mut now_values = Vec::with_capacity(values.len());
        for ((a, value), interval) in values.into_iter().zip(intervals) {
            let Some(interval) = interval else {
                now_values.push((a, value));
                continue;
            };
            let held = HeldValue {
                update,
                producer,
                value,
                tag: tag.to_vec(),
                time: time.clone(),
                reliable,
                epoch,
            };
            if let Some(v) = self.rates.send.offer((object, a), now, interval, held) {
                now_values.push((a, v.value));
            }
        }
        now_values
    }

    /// Sends the values of one update the sender's reduction held, as far as `producer` may
    /// still send them (see the module docs).
    fn release_send(
        &mut self,
        object: ObjectInstanceHandle,
        v: HeldValue,
        values: Vec<(AttributeHandle, Vec<u8>)>,
    ) {
        let p = v.producer;
        if v.epoch != self.restore.epoch()
            || self
                .refuse_during_save_or_restore(p, "updateAttributeValues")
                .is_err()
        {
            return;
        }
        let Some((class, lf)) = self
            .objects
            .get(&object)
            .map(|i| i.class)
            .zip(self.locals.get(&p))
        else {
            return;
        };
        let publishes = |a: &AttributeHandle| lf.decl.publishes(class, *a);
        let values: Vec<_> = values
            .into_iter()
            .filter(|(a, _)| publishes(a) && self.owns_now(p, object, *a))
            .collect();
        if values.is_empty() {
            return;
        }
        let versions = match self.objects.get(&object) {
            Some(i) if !i.versions.is_empty() => {
                values.iter().map(|(a, _)| i.version(*a)).collect()
            }
            _ => Vec::new(),
        };
        // Receive order only: nothing here can be retracted.
        self.send_update(
            v.reliable, false, p, object, values, v.tag, v.time, versions, None,
        );
    }

    /// Splits the values a receive-order update brings local federate `f` (knowing the
    /// instance as `known`) into those to reflect now (returned) and those its rate holds.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn thin_reflection(
        &mut self,
        f: FederateHandle,
        known: ObjectClassHandle,
        object: ObjectInstanceHandle,
        producer: FederateHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: &[u8],
        time: &Option<Timestamp>,
        reliable: bool,
    ) -> Vec<(AttributeHandle, Vec<u8>)> {
        let Some(interval) = self
            .locals
            .get(&f)
            .and_then(|lf| lf.decl.rates.get(&known))
            .map(|r| r.interval_us)
        else {
            return values;
        };
        let update = self.rates.next_update();
        let (now, epoch) = (self.now, self.restore.epoch());
        let mut now_values = Vec::with_capacity(values.len());
        for (a, value) in values {
            let held = HeldValue {
                update,
                producer,
                value,
                tag: tag.to_vec(),
                time: time.clone(),
                reliable,
                epoch,
            };
            if let Some(v) = self
                .rates
                .receive
                .offer((f, object, a), now, interval, held)
            {
                now_values.push((a, v.value));
            }
        }
        now_values
    }

    /// Reflects the values of one update `f`'s rate held, those it still subscribes.
    fn release_reflection(
        &mut self,
        f: FederateHandle,
        object: ObjectInstanceHandle,
        v: HeldValue,
        values: Vec<(AttributeHandle, Vec<u8>)>,
    ) {
        if v.epoch != self.restore.epoch() || !self.objects.contains_key(&object) {
            return;
        }
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let Some((known, subs)) = lf
            .known
            .get(&object)
            .and_then(|k| lf.decl.subscribed_attrs(*k).map(|s| (*k, s)))
        else {
            return;
        };
        let values: Vec<_> = values
            .into_iter()
            .filter(|(a, _)| subs.contains(a))
            .collect();
        if values.is_empty() {
            return;
        }
        let mut info = super::objects::received(v.producer, &v.time, v.reliable, None);
        let attrs: Vec<AttributeHandle> = values.iter().map(|(a, _)| *a).collect();
        info.sent_regions = self.convey_for_reflection(f, known, object, &attrs);
        let cb = Callback::ReflectAttributeValues {
            object,
            values,
            tag: v.tag,
            info,
        };
        self.time_deliver_late(f, v.producer, cb);
    }
}

#[cfg(test)]
mod tests {
    use super::super::save::SavedFederateState;
    use super::*;

    const MS: u64 = 1_000;

    #[test]
    fn intervals_of_rates() {
        assert_eq!(interval_us(10.0), Some(100 * MS));
        assert_eq!(interval_us(60.0), Some(16_667));
        assert_eq!(interval_us(0.0), None);
        assert_eq!(interval_us(-1.0), None);
        assert_eq!(interval_us(f64::NAN), None);
        assert_eq!(interval_us(f64::INFINITY), None);
        assert_eq!(interval_us(1e9), Some(1));
    }

    /// A 60 Hz stream through a 10 Hz throttle, virtual time, deadlines served on time: ten
    /// values a second, each the newest offered by then, gaps never under the interval.
    #[test]
    fn sixty_hertz_through_ten_hertz_gives_ten_latest_values_a_second() {
        let mut t: Throttle<u8, u64> = Throttle::default();
        let interval = interval_us(10.0).expect("a rate");
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut newest = 0;
        // 3 s of 60 Hz updates; value = its index.
        let updates: Vec<u64> = (0..180).map(|i| i * 1_000_000 / 60).collect();
        let mut next = 0;
        let mut now = 0;
        while now <= 3_100_000 {
            // Whichever comes first: the next update or the next deadline.
            let deadline = t.poll_timeout();
            let upd = updates.get(next).copied();
            match (upd, deadline) {
                (Some(u), Some(d)) if d < u => now = d,
                (Some(u), _) => now = u,
                (None, Some(d)) => now = d,
                (None, None) => break,
            }
            while let Some((_, v)) = t.poll_due(now) {
                out.push((now, v));
                assert_eq!(v, newest, "a released value is the newest offered");
            }
            if updates.get(next) == Some(&now) {
                newest = next as u64;
                if let Some(v) = t.offer(0, now, interval, newest) {
                    out.push((now, v));
                }
                next += 1;
            }
        }
        for w in out.windows(2) {
            assert!(
                w[1].0 - w[0].0 >= interval,
                "{w:?} closer than the interval"
            );
        }
        for s in 0..3 {
            let n = out
                .iter()
                .filter(|(at, _)| *at >= s * 1_000_000 && *at < (s + 1) * 1_000_000)
                .count();
            assert!((9..=11).contains(&n), "second {s}: {n} values");
        }
        // The publisher's last value arrives (one interval after the previous delivery at most).
        let last = out.last().expect("values came");
        assert_eq!(last.1, 179);
        assert!(last.0 <= updates[179] + interval);
        assert_eq!(t.held(), 0);
    }

    #[test]
    fn a_newer_value_replaces_the_held_one_and_an_open_interval_drops_it() {
        let mut t: Throttle<u8, &str> = Throttle::default();
        assert_eq!(t.offer(1, 0, 100, "a"), Some("a"));
        assert_eq!(t.offer(1, 10, 100, "b"), None);
        assert_eq!(t.offer(1, 20, 100, "c"), None);
        assert_eq!(t.held(), 1);
        assert_eq!(t.poll_timeout(), Some(100));
        assert_eq!(t.poll_due(99), None);
        assert_eq!(t.poll_due(100), Some((1, "c")));
        assert_eq!(t.poll_due(1_000), None);
        // Held, then an update after the deadline before the timer ran: the new one goes, the
        // held one is dropped (never delivered after a newer value).
        assert_eq!(t.offer(1, 150, 100, "d"), None);
        assert_eq!(t.offer(1, 205, 100, "e"), Some("e"));
        assert_eq!(t.held(), 0);
        assert_eq!(t.poll_timeout(), None);
    }

    #[test]
    fn keys_are_independent_and_retain_forgets_held_values() {
        let mut t: Throttle<(u8, u8), u32> = Throttle::default();
        assert_eq!(t.offer((1, 1), 0, 100, 1), Some(1));
        assert_eq!(t.offer((1, 2), 5, 100, 2), Some(2));
        assert_eq!(t.offer((1, 1), 6, 100, 3), None);
        assert_eq!(t.offer((1, 2), 7, 50, 4), None);
        assert_eq!(t.poll_timeout(), Some(55));
        t.retain(|k| k.1 != 2);
        assert_eq!(t.poll_timeout(), Some(100));
        assert_eq!(t.len(), 1);
        assert_eq!(t.poll_due(100), Some(((1, 1), 3)));
    }

    #[test]
    fn a_changed_interval_moves_the_deadline() {
        let mut t: Throttle<u8, u8> = Throttle::default();
        t.offer(0, 0, 100, 0);
        assert_eq!(t.offer(0, 10, 100, 1), None);
        assert_eq!(t.poll_timeout(), Some(100));
        assert_eq!(t.offer(0, 20, 500, 2), None);
        assert_eq!(t.poll_timeout(), Some(500));
        assert_eq!(t.held(), 1);
    }

    #[test]
    fn slots_past_their_interval_are_pruned() {
        let mut t: Throttle<u32, ()> = Throttle::default();
        for k in 0..1_000 {
            t.offer(k, u64::from(k) * 10, 5, ());
        }
        assert!(t.len() < 200, "{} slots kept", t.len());
    }

    // ---- The reductions inside a federation core, on virtual time. ----

    use crate::core::{Action, Completion};

    const FOM: &str = include_str!("../../../../foms/UpdateRates.xml");

    struct Fed {
        core: FederationCore,
        track: ObjectClassHandle,
        sequence: AttributeHandle,
        position: AttributeHandle,
        /// Reflections per federate: (time µs, value).
        got: BTreeMap<FederateHandle, Vec<(u64, u64)>>,
        /// Update messages multicast: (time µs).
        sent: Vec<u64>,
    }

    impl Fed {
        fn new() -> Fed {
            let modules = vec![("UpdateRates.xml".to_string(), FOM.to_string())];
            let core = FederationCore::create("F", 1, 0, modules).expect("create");
            let fdd = core.fdd_ref().expect("fdd");
            let track = fdd.object_class_handle("Track").expect("Track");
            let sequence = fdd.attribute_handle(track, "Sequence").expect("Sequence");
            let position = fdd.attribute_handle(track, "Position").expect("Position");
            Fed {
                core,
                track,
                sequence,
                position,
                got: BTreeMap::new(),
                sent: Vec::new(),
            }
        }

        fn join(&mut self, name: &str) -> FederateHandle {
            let t = self.core.join(Some(name.into()), "t");
            for _ in 0..10 {
                if let Some(h) = self.drain(0, Some(t)) {
                    return h;
                }
                self.core.handle(0, crate::core::Event::Tick);
            }
            panic!("{name} never joined");
        }

        /// Runs the queued actions at `now`; the handle a join of `ticket` completed with.
        fn drain(
            &mut self,
            now: u64,
            ticket: Option<crate::core::Ticket>,
        ) -> Option<FederateHandle> {
            let mut joined = None;
            while let Some(a) = self.core.poll_action() {
                match a {
                    Action::Complete {
                        ticket: t,
                        result: Ok(Completion::Joined(h)),
                    } if Some(t) == ticket => joined = Some(h),
                    Action::Callback {
                        federate,
                        callback: Callback::ReflectAttributeValues { values, .. },
                    } => {
                        for (_, v) in values {
                            let n = u64::from_be_bytes(v[..8].try_into().expect("8 bytes"));
                            self.got.entry(federate).or_default().push((now, n));
                        }
                    }
                    // Updates of the test's class (the MOM's registrations at join are not
                    // the publisher's).
                    Action::SendData {
                        class: Some(super::super::DataClass::Object(c)),
                        ..
                    } if c == self.track => self.sent.push(now),
                    _ => {}
                }
            }
            joined
        }

        /// `p` updates `o` at 60 Hz for `secs` seconds of virtual time from `from`, the core's
        /// deadlines served on time; then the deadlines after the last update.
        fn run_60hz(&mut self, p: FederateHandle, o: ObjectInstanceHandle, from: u64, secs: u64) {
            let updates: Vec<u64> = (0..60 * secs).map(|i| from + i * 1_000_000 / 60).collect();
            for (i, at) in updates.iter().enumerate() {
                while let Some(d) = self.core.poll_timeout().filter(|d| d < at) {
                    self.core.handle_timeout(d);
                    self.drain(d, None);
                }
                self.core.set_clock(*at);
                let v = (i as u64 + 1).to_be_bytes().to_vec();
                self.core
                    .update_attribute_values(p, o, vec![(self.sequence, v)], Vec::new(), None)
                    .expect("update");
                self.drain(*at, None);
            }
            while let Some(d) = self.core.poll_timeout() {
                self.core.handle_timeout(d);
                self.drain(d, None);
            }
        }
    }

    /// Per second from `from`: how many of `times` fall in it.
    fn per_second(times: &[u64], from: u64, secs: u64) -> Vec<usize> {
        (0..secs)
            .map(|s| {
                let (a, b) = (from + s * 1_000_000, from + (s + 1) * 1_000_000);
                times.iter().filter(|t| **t >= a && **t < b).count()
            })
            .collect()
    }

    fn publisher(f: &mut Fed) -> (FederateHandle, ObjectInstanceHandle) {
        let p = f.join("pub");
        let (track, seq, pos) = (f.track, f.sequence, f.position);
        f.core
            .publish_object_class_attributes(p, track, &[seq, pos])
            .expect("publish");
        let o = f
            .core
            .register_object_instance(p, track, None)
            .expect("register");
        f.drain(0, None);
        (p, o)
    }

    /// A federate subscribed to the track's sequence at ten hertz, then a publisher of one
    /// track: (subscriber, publisher, instance).
    fn ten_hertz_subscriber_and_publisher(
        f: &mut Fed,
    ) -> (FederateHandle, FederateHandle, ObjectInstanceHandle) {
        let s = f.join("slow");
        let (track, seq) = (f.track, f.sequence);
        f.core
            .subscribe_object_class_attributes_with_rate(s, track, &[seq], true, Some("TenHz"))
            .expect("subscribe");
        let (p, o) = publisher(f);
        (s, p, o)
    }

    /// 9 to 11 of `times` in each of the 3 seconds from 1 s.
    fn ten_a_second(times: &[u64], what: &str) {
        for n in per_second(times, 1_000_000, 3) {
            assert!((9..=11).contains(&n), "{n} {what} a second");
        }
    }

    #[test]
    fn a_ten_hertz_subscriber_of_a_sixty_hertz_publisher_gets_ten_latest_values_a_second() {
        let mut f = Fed::new();
        let (s, p, o) = ten_hertz_subscriber_and_publisher(&mut f);
        let seq = f.sequence;
        f.run_60hz(p, o, 1_000_000, 3);
        let got = f.got.get(&s).cloned().unwrap_or_default();
        let times: Vec<u64> = got.iter().map(|g| g.0).collect();
        ten_a_second(&times, "reflections");
        for w in got.windows(2) {
            assert!(w[1].0 - w[0].0 >= 100_000, "closer than 100 ms: {w:?}");
            assert!(w[1].1 > w[0].1, "not the latest: {w:?}");
        }
        // Each value is the newest one updated by then: update i goes at from + (i-1)/60 s.
        for (at, n) in &got {
            let newest = (at - 1_000_000) * 60 / 1_000_000 + 1;
            assert_eq!(*n, newest.min(180), "at {at}");
        }
        assert_eq!(got.last().map(|g| g.1), Some(180), "the last value arrives");
        // The only subscriber has a rate: the sender thinned the multicast to it too.
        ten_a_second(&f.sent, "update messages");
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(s, o, seq),
            Ok(10.0)
        );
        // What the sender never sent is counted (`/metrics`); what it sent all arrived.
        let (at_sender, at_receiver) = f.core.values_thinned();
        assert_eq!(at_sender, 180 - f.sent.len() as u64);
        assert_eq!(at_receiver, f.sent.len() as u64 - got.len() as u64);
    }

    #[test]
    fn a_subscriber_without_a_rate_keeps_every_update_and_the_sender_thins_nothing() {
        let mut f = Fed::new();
        let slow = f.join("slow");
        let all = f.join("all");
        let (track, seq) = (f.track, f.sequence);
        f.core
            .subscribe_object_class_attributes_with_rate(slow, track, &[seq], true, Some("TenHz"))
            .expect("subscribe");
        f.core
            .subscribe_object_class_attributes(all, track, &[seq], false)
            .expect("subscribe");
        let (p, o) = publisher(&mut f);
        f.run_60hz(p, o, 1_000_000, 3);
        assert_eq!(f.sent.len(), 180, "every update multicast");
        let every: Vec<u64> = f.got[&all].iter().map(|g| g.1).collect();
        assert_eq!(every, (1..=180).collect::<Vec<_>>());
        let times: Vec<u64> = f.got[&slow].iter().map(|g| g.0).collect();
        for n in per_second(&times, 1_000_000, 3) {
            assert!((9..=11).contains(&n), "{n} a second");
        }
        assert_eq!(f.got[&slow].last().map(|g| g.1), Some(180));
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(all, o, seq),
            Ok(0.0)
        );
        // The slow subscriber's LRC dropped what it did not deliver to it; the sender nothing.
        assert_eq!(
            f.core.values_thinned(),
            (0, 180 - f.got[&slow].len() as u64)
        );
    }

    #[test]
    fn the_sender_thins_at_the_fastest_subscribers_rate() {
        let mut f = Fed::new();
        let ten = f.join("ten");
        let twenty = f.join("twenty");
        let (track, seq) = (f.track, f.sequence);
        for (g, r) in [(ten, "TenHz"), (twenty, "TwentyHz")] {
            f.core
                .subscribe_object_class_attributes_with_rate(g, track, &[seq], true, Some(r))
                .expect("subscribe");
        }
        let (p, o) = publisher(&mut f);
        f.run_60hz(p, o, 1_000_000, 2);
        for n in per_second(&f.sent, 1_000_000, 2) {
            assert!((19..=21).contains(&n), "{n} update messages a second");
        }
        let times: Vec<u64> = f.got[&ten].iter().map(|g| g.0).collect();
        for n in per_second(&times, 1_000_000, 2) {
            assert!((9..=11).contains(&n), "{n} a second at 10 Hz");
        }
        let times: Vec<u64> = f.got[&twenty].iter().map(|g| g.0).collect();
        for n in per_second(&times, 1_000_000, 2) {
            assert!((19..=21).contains(&n), "{n} a second at 20 Hz");
        }
        // Resubscribing without a rate ends the reduction at both ends.
        f.core
            .subscribe_object_class_attributes(ten, track, &[seq], true)
            .expect("subscribe");
        f.core
            .subscribe_object_class_attributes(twenty, track, &[seq], true)
            .expect("subscribe");
        f.sent.clear();
        f.got.clear();
        f.run_60hz(p, o, 4_000_000, 1);
        assert_eq!(f.sent.len(), 60);
        assert_eq!(f.got[&ten].len(), 60);
    }

    #[test]
    fn an_unknown_designator_is_refused_and_changes_nothing() {
        let mut f = Fed::new();
        let s = f.join("s");
        let (track, seq, pos) = (f.track, f.sequence, f.position);
        f.core
            .subscribe_object_class_attributes(s, track, &[seq], true)
            .expect("subscribe");
        let r = f.core.subscribe_object_class_attributes_with_rate(
            s,
            track,
            &[seq, pos],
            true,
            Some("Fast"),
        );
        assert!(
            matches!(r, Err(RtiError::InvalidUpdateRateDesignator(_))),
            "{r:?}"
        );
        assert_eq!(
            f.core.locals[&s]
                .decl
                .subscribed_attrs(track)
                .map(|a| a.len()),
            Some(1),
            "the earlier subscription stays"
        );
        assert!(matches!(
            f.core.get_update_rate_value("Fast"),
            Err(RtiError::InvalidUpdateRateDesignator(_))
        ));
        assert_eq!(f.core.get_update_rate_value("TenHz"), Ok(10.0));
        assert_eq!(f.core.get_update_rate_value("Unlimited"), Ok(0.0));
    }

    #[test]
    fn the_rate_for_an_attribute_is_zero_when_not_subscribed_with_one() {
        let mut f = Fed::new();
        let s = f.join("s");
        let (track, seq, pos) = (f.track, f.sequence, f.position);
        let (_, o) = publisher(&mut f);
        // Not subscribed at all: the instance is not known.
        assert!(matches!(
            f.core.get_update_rate_value_for_attribute(s, o, seq),
            Err(RtiError::ObjectInstanceNotKnown(_))
        ));
        f.core
            .subscribe_object_class_attributes_with_rate(s, track, &[seq], true, Some("TwentyHz"))
            .expect("subscribe");
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(s, o, seq),
            Ok(20.0)
        );
        // Position is an attribute of the class this federate does not subscribe.
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(s, o, pos),
            Ok(0.0)
        );
        assert!(matches!(
            f.core
                .get_update_rate_value_for_attribute(s, o, AttributeHandle(999)),
            Err(RtiError::AttributeNotDefined(_))
        ));
        // A rate of 0 Hz limits nothing and reads back as 0... from the FDD: 0.
        f.core
            .subscribe_object_class_attributes_with_rate(s, track, &[seq], true, Some("Unlimited"))
            .expect("subscribe");
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(s, o, seq),
            Ok(0.0)
        );
        assert!(!f.core.rates_in_use());
        // Unsubscribing forgets the rate.
        f.core
            .subscribe_object_class_attributes_with_rate(s, track, &[seq], true, Some("TenHz"))
            .expect("subscribe");
        f.core
            .unsubscribe_object_class_attributes(s, track, None)
            .expect("unsubscribe");
        assert!(f.core.locals[&s].decl.rates.is_empty());
        assert!(!f.core.rates_in_use());
    }

    #[test]
    fn a_lost_connection_ends_the_deadlines() {
        let mut f = Fed::new();
        let s = f.join("s");
        let (track, seq) = (f.track, f.sequence);
        f.core
            .subscribe_object_class_attributes_with_rate(s, track, &[seq], true, Some("TenHz"))
            .expect("subscribe");
        let (p, o) = publisher(&mut f);
        for at in [1_000_000u64, 1_010_000] {
            f.core.set_clock(at);
            f.core
                .update_attribute_values(p, o, vec![(seq, vec![0; 8])], Vec::new(), None)
                .expect("update");
        }
        assert!(f.core.poll_timeout().is_some());
        f.core.phase = crate::core::membership::Phase::Evicted {
            reason: "test".into(),
        };
        f.core.handle_timeout(2_000_000);
        assert_eq!(f.core.poll_timeout(), None);
    }

    #[test]
    fn a_held_value_of_a_deleted_instance_is_never_reflected() {
        let mut f = Fed::new();
        let s = f.join("s");
        let (track, seq) = (f.track, f.sequence);
        f.core
            .subscribe_object_class_attributes_with_rate(s, track, &[seq], true, Some("TenHz"))
            .expect("subscribe");
        let (p, o) = publisher(&mut f);
        for (at, n) in [(1_000_000u64, 1u64), (1_010_000, 2)] {
            f.core.set_clock(at);
            f.core
                .update_attribute_values(
                    p,
                    o,
                    vec![(seq, n.to_be_bytes().to_vec())],
                    Vec::new(),
                    None,
                )
                .expect("update");
            f.drain(at, None);
        }
        assert!(f.core.poll_timeout().is_some(), "the second update is held");
        f.core
            .delete_object_instance(p, o, Vec::new(), None)
            .expect("delete");
        f.drain(1_020_000, None);
        while let Some(d) = f.core.poll_timeout() {
            f.core.handle_timeout(d);
            f.drain(d, None);
        }
        let values: Vec<u64> = f.got[&s].iter().map(|g| g.1).collect();
        assert_eq!(values, vec![1]);
    }

    /// Saves the federation of `f` (every federate reports) and returns each federate's
    /// state, through its encoding as a save file holds it.
    fn save_all(f: &mut Fed, by: FederateHandle) -> BTreeMap<FederateHandle, SavedFederateState> {
        f.core.request_federation_save(by, "s", None).expect("save");
        let mut states = BTreeMap::new();
        for _ in 0..8 {
            let mut to_report = Vec::new();
            while let Some(a) = f.core.poll_action() {
                match a {
                    crate::core::Action::Callback {
                        federate,
                        callback: Callback::InitiateFederateSave { .. },
                    } => to_report.push(federate),
                    crate::core::Action::WriteSave {
                        federate, state, ..
                    } => {
                        let bytes = postcard::to_allocvec(&*state).expect("encodes");
                        states.insert(federate, postcard::from_bytes(&bytes).expect("decodes"));
                        f.core.save_written(federate, true);
                    }
                    _ => {}
                }
            }
            for h in to_report {
                f.core
                    .report_federate_save(h, super::super::save::SaveReport::Begun)
                    .expect("begun");
                f.core
                    .report_federate_save(h, super::super::save::SaveReport::Complete)
                    .expect("complete");
            }
            f.core.handle(0, crate::core::Event::Tick);
        }
        states
    }

    /// Restores `states` (every federate loads its own and reports).
    fn restore_all(
        f: &mut Fed,
        by: FederateHandle,
        states: &BTreeMap<FederateHandle, SavedFederateState>,
    ) {
        let membership = states.values().next().expect("a state").membership.clone();
        f.core
            .request_federation_restore(by, "s", Ok(membership))
            .expect("restore");
        let mut restored = false;
        for _ in 0..8 {
            let mut to_report = Vec::new();
            while let Some(a) = f.core.poll_action() {
                match a {
                    crate::core::Action::LoadRestore { federate, .. } => {
                        let st = states.get(&federate).cloned().ok_or("no state".to_string());
                        f.core.restore_loaded(federate, st);
                    }
                    crate::core::Action::Callback { federate, callback } => match callback {
                        Callback::InitiateFederateRestore { .. } => to_report.push(federate),
                        Callback::FederationRestored => restored = true,
                        _ => {}
                    },
                    _ => {}
                }
            }
            for h in to_report {
                f.core.report_federate_restore(h, true).expect("restored");
            }
            f.core.handle(0, crate::core::Event::Tick);
        }
        assert!(restored, "the federation was restored");
    }

    #[test]
    fn a_restore_brings_back_the_rates_of_the_save() {
        let mut f = Fed::new();
        let (s, p, o) = ten_hertz_subscriber_and_publisher(&mut f);
        let (track, seq) = (f.track, f.sequence);
        let states = save_all(&mut f, s);
        assert_eq!(
            states[&s].subscribed_rates,
            vec![(track, "TenHz".to_string(), 100_000)]
        );
        // After the save the subscriber drops its rate; the restore brings it back.
        f.core
            .subscribe_object_class_attributes(s, track, &[seq], true)
            .expect("subscribe without a rate");
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(s, o, seq),
            Ok(0.0)
        );
        restore_all(&mut f, s, &states);
        assert_eq!(
            f.core.get_update_rate_value_for_attribute(s, o, seq),
            Ok(10.0)
        );
        f.got.clear();
        f.sent.clear();
        f.run_60hz(p, o, 1_000_000, 3);
        let times: Vec<u64> = f.got[&s].iter().map(|g| g.0).collect();
        ten_a_second(&times, "reflections after the restore");
        // And the sender thins again: the restored subscription told it the rate.
        ten_a_second(&f.sent, "update messages after the restore");
    }
}
