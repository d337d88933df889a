//! Data Distribution Management regions (IEEE 1516-2010 clause 9, 10.28–10.30): regions, their
//! templates and committed ranges, update-region associations, region subscriptions, and the
//! exact overlap filter at the receiving LRC.
//!
//! # Regions
//!
//! A region belongs to the federate that created it ([`FederationCore::create_region`]) and lives
//! at that federate's LRC only, in its [`FederateRegions`]: a range ([`RangeBounds`], half-open
//! `[lower, upper)`, `lower < upper ≤` the dimension's upper bound) for each dimension of its
//! set. `set_range_bounds` changes the *template*; the ranges the federation uses are the
//! *committed* ones, which `commit_region_modifications` replaces by the template. A new region
//! starts, template and committed alike, with each dimension's default range from the FDD, or
//! the dimension's full range `[0, upper bound)` where the FDD says `Excluded`.
//! [`RegionHandle`]s are `(creator, counter)` like instance handles, so they are unique in the
//! federation execution and the creator is known from the handle alone.
//!
//! # How update regions reach the receivers (the design choice)
//!
//! Filtering is exact and happens at the receiving LRC (the reliable stream reaches every LRC;
//! best-effort updates with update regions and best-effort interactions sent with regions travel
//! on per-cell multicast groups, see [`super::cell_route`], so the kernel drops most of what a
//! receiver did not ask for, and this filter removes what the coarse grid lets through). For that each receiver must know, for every instance
//! attribute, the ranges of the update regions it is associated with, *in order with the
//! updates*. So the sender's LRC announces them in its own reliable data stream, as
//! [`DataMsg::UpdateRegions`] (the committed ranges of every region associated with each listed
//! attribute, as [`Extent`]s), whenever they change: at `register_object_instance_with_regions`
//! (before the registration, so a receiver decides discovery with the regions already known),
//! `associate_regions_for_updates`, `unassociate_regions_for_updates`, and at
//! `commit_region_modifications` of a region some instance is associated with. An update sent
//! after a commit is thus judged by every receiver against the committed ranges, and one sent
//! before against the old ones: a moving entity's regions take effect in stream order with its
//! updates. Every LRC keeps the last announcement per instance attribute
//! ([`RegionState::update_regions`]); an instance attribute never announced (or announced with no
//! region) is in the *default region*, which overlaps every region.
//!
//! # Best effort and region moves
//!
//! A best-effort update does not travel in the sender's reliable stream (it goes to the cell
//! groups, or the default group, at once), so under loss it can reach a receiver before the
//! announcement of the update-region move it was sent after, which waits there for a repair:
//! judged against the old regions it could be reflected by a subscriber whose region the
//! entity had already left (`lrc/drivers/tests/rti_ddm_moving_loss_multiprocess.rs` showed it
//! at every run with 10 % loss). So each best-effort update carries the stream number of its
//! sender's last announcement for the instance (`DataMsg::Update::after`), and a receiver that
//! has not applied that sender's stream that far drops it (best effort may be lost; counted in
//! [`FederationCore::ddm_stale_drops`]). Only the instance's own announcements count, so a
//! gap elsewhere in the stream drops nothing.
//!
//! # Moves within the cells
//!
//! A moving entity commits its update region often (the bench's vehicles several times a
//! second), and an announcement in the stream reaches every LRC of the federation: at one
//! subscriber watching 1/16 of the space, those announcements were more datagrams than all the
//! updates it received on its cell group (`hlamesh-bench ddm`). Only the LRCs in the cells the
//! region leaves or enters care (a subscription region that overlaps the region before or after
//! makes its LRC join one of those cells). So a move is announced outside the stream, best
//! effort to those cells only ([`DataMsg::MoveRegions`]), when every listed attribute had update
//! regions and keeps some (both in cells), every listed attribute is owned by the committing
//! federate, that federate owns every attribute of the instance with update regions, and this
//! LRC announced the instance to every LRC before. When a listed attribute is reliable, the move
//! is numbered in the stream (still on those cells only: the transport's chained positions keep
//! it in order with the attribute's updates there, `docs/DDM.md`). Anything else (a first
//! association, a region back to the default region, a split owner, too many cells) is
//! announced in the stream to every LRC as before. (The heading's name is from when only moves
//! that kept their cells went this way; a move across a cell border went to every LRC, which
//! at one subscriber was most of its datagrams for fast entities.) Every announcement of an instance
//! by an LRC, to every LRC or not, takes the next number of that LRC for it
//! ([`InlineRegions::attrs`]); until the next announcement to every LRC, the instance's
//! updates, reliable or not, carry their attributes' regions ([`DataMsg::Update::regions`]):
//! a best-effort move may be lost, and an LRC that joins the cells later never had it. A
//! receiver applies such regions only when they are newer than what it holds from the same
//! LRC, after the stream announcement they follow (`after`, as above), and only from the
//! attributes' owner; a best-effort update carrying regions older than those held is dropped
//! (counted with the stale drops). An update held for an ownership transfer
//! (`super::ownership`) keeps its regions and applies them when it is released, in its
//! stream's order, not when it arrived, and a move from the same stream, producer and instance
//! waits behind it (`on_move_regions`): applied at once, the move would have the held update
//! judged against regions it was not sent in, or found stale and lost. So a reflection is still
//! judged against the regions its update was sent in. An LRC outside those cells keeps the
//! regions of the last announcement it received (within the same cells, so they overlap none
//! of its subscription regions either way) until it joins one of the cells. When it joins cells
//! (`refresh_cells`), it asks every member for the regions its instances moved to since their
//! last announcement to every LRC ([`super::wire::ControlMsg::RegionsQuery`]); the answer
//! ([`super::wire::ControlMsg::MovedRegions`], `on_regions_query`) goes behind the member's
//! data and is applied as moves are, by their numbers, so an instance that moved into the
//! joined cells is discovered, and its scope advised, at once rather than at its next update
//! (test `a_subscriber_joining_the_cells_of_a_moved_instance_discovers_it_without_an_update`).
//! What it costs: one query to each member per change of cells that joins some (hysteresis
//! keeps those rare), and an answer listing the moved instances of that member; a lost
//! best-effort move with no update after it still leaves the scope advisories of LRCs in the
//! cells behind until the next one. A best-effort move that the federate follows with an
//! update of the instance goes inside that update ([`super::move_fold`]).
//!
//! Interactions sent with regions carry their regions' committed ranges in the message
//! ([`DataMsg::InteractionInRegions`]), and so does a region-scoped value-update request
//! ([`DataMsg::RequestUpdateInRegions`]). So a best-effort interaction sent with regions, which
//! travels on the cell groups too ([`super::cell_route`]), needs no such rule: a receiver judges
//! it by what it carries and by its own subscription regions, nothing it could overtake.
//!
//! # Update regions and ownership
//!
//! The update regions of an instance attribute are those its *owner* associated: a federate's
//! associate, unassociate and commit announce only the attributes it owns (a non-owner may
//! associate regions, which take effect when it acquires the attribute; an ex-owner's commit of
//! its old region moves nothing), and a federate that acquires attributes announces its own
//! associations for them at the acquisition, in its stream before its first update
//! (`regions_on_acquired`). An acquired attribute its new owner associated
//! nothing with keeps the regions announced before (a choice kept from the first version, see
//! the test `ownership_transfer_keeps_the_instance_regions`; the reading that the new owner
//! updates in the default region would announce an empty set there instead). A timed delete
//! that is retracted puts the instance back with its update regions and the associations made
//! for it (`super::retraction`), not in the default region.
//!
//! Left as it is, and why: the last announcement for an instance attribute wins, whichever
//! stream it came in. Within one sender's stream that is exact; an ownership transfer involves
//! two. An update the new owner sent is held at a receiver until the ex-owner's hand-over has
//! arrived (`super::ownership`) and judged when released, against the new owner's regions,
//! which it announced before that update: right. But an update the ex-owner sent just before
//! it handed over may reach a receiver *after* the new owner's announcement (another stream)
//! and is then judged against the new owner's regions instead of the ex-owner's. Exactness
//! there needs the announcement tied to the ownership version it belongs to (the version in
//! [`DataMsg::UpdateRegions`] and update regions kept per version, a wire change); the window is
//! the transfer itself, and the update was the ex-owner's last.
//!
//! # Subscriptions and overlap
//!
//! A federate's subscription to a class attribute is the union of its *default-region*
//! subscription (5.6 `subscribe_object_class_attributes`, which overlaps everything) and its
//! region subscriptions (9.8); 5.7 removes only the former and 9.9 only the latter. The
//! declarations ([`super::declarations`]) keep the union, so promotion, relevance advisories and
//! the other LRCs see every subscribed attribute; this module keeps which attributes are
//! subscribed with which regions ([`ClassRegionSub`]). Interactions likewise
//! ([`InteractionRegionSub`]).
//!
//! Two regions overlap when, on every dimension either specifies, their ranges intersect; a
//! dimension a region does not specify takes the FDD's default range for it, and a dimension
//! whose default is `Excluded` and that one of the two leaves unspecified does not constrain
//! ([`overlap`]). A receiving LRC then
//! - discovers an instance for a federate only once an update region of an attribute the
//!   federate subscribes overlaps one of its subscription regions for that attribute (or either
//!   side is the default region),
//! - reflects only the attributes for which that holds, and
//! - delivers an interaction only where one of the regions it was sent with overlaps one of the
//!   federate's subscription regions for the class it receives it as.
//!
//! A change of overlap (a committed move of either side, an association, a subscription) moves
//! the attribute in or out of the federate's scope: with attribute scope advisories on the
//! federate gets `attributes_in_scope` / `attributes_out_of_scope` ([`super::advisory`]), and an
//! instance that comes into overlap for the first time is discovered.
//!
//! # Relevance advisories (the decision)
//!
//! `turnUpdatesOnForObjectInstance` / `turnUpdatesOffForObjectInstance` follow overlap: an
//! owner's instance attribute is relevant while some *other* federate actively subscribes to it
//! (at the instance's class or a superclass) in the default region, or with a subscription
//! region that overlaps one of the attribute's update regions (an attribute without update
//! regions is in the default region, which overlaps every region). A passive subscription, with
//! regions or without, is never relevant. For that the owner's LRC must know the other
//! federates' subscription regions, which live at their creators' LRCs only: a federate that
//! subscribes to a class with regions declares its active set as
//! [`Declaration::SubscribeObjectInRegions`] instead of [`Declaration::SubscribeObject`], with
//! the committed extents of the subscription regions of each attribute it subscribes to with
//! regions only; set and regions travel in one message, so no LRC ever sees the set without its
//! regions (which would turn updates on for a moment). It is sent at 9.8, 9.9, 5.6 and 5.7 for a
//! class that has region subscriptions, at every `commit_region_modifications` of a region used
//! in one, in state-transfer snapshots and after a restore. Every LRC (the subscriber's own
//! too: declarations are applied from the stream) keeps them in
//! [`super::declarations::RemoteInterest::regions`]; the owner's update regions it knows from
//! [`DataMsg::UpdateRegions`]. So turn-updates-on and -off follow, in each LRC's stream order,
//! every committed move of either region, (un)association, and (un)subscription.
//!
//! `turnInteractionsOn` / `turnInteractionsOff` and `startRegistrationForObjectClass` /
//! `stopRegistrationForObjectClass` (5.10–5.13) stay based on class subscription, as
//! IEEE 1516-2010 bases them: an interaction's regions are chosen per send
//! (`sendInteractionWithRegions`), so a publisher has no standing region overlap could be judged
//! against before it sends; and registration advice is about a class before any instance (and
//! so any update region) exists. A region subscription, active, counts there as a
//! subscription to the class, wherever its regions are.
//!
//! `ConveyRegionDesignatorSets` (the sent regions with reflections and interactions) is in
//! [`super::convey`].
//!
//! Not here, and why: the update rate designator of a region subscription is that of the class
//! (as for 5.6): a designator given to 9.8 replaces the class's, for its default-region part
//! too (none keeps it). A rate per region would need a rate per (attribute, region) in the
//! federate's [`Declaration::Subscription`] and a reduction per region at the sender, whose
//! reduction thins an attribute for all its subscribers at once (see `super::update_rate`);
//! neither exists, so the class keeps one rate.
//!
//! Relevance, a precision left as it is: a federate subscribed at several classes of an
//! instance's ancestry (say without regions at a superclass and with regions at the class)
//! makes the attribute relevant if any of those subscriptions is, while its reflections follow
//! only the class it knows the instance as; the owner's LRC knows the subscribed classes but not
//! the class the subscriber discovered the instance as (fixed at discovery, at the subscriber's
//! LRC), so it errs on the side of turning updates on.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::wire::{DataMsg, Declaration};
use super::{Callback, FederationCore};
use crate::error::RtiError;
use crate::fom::{DefaultRange, Fdd};
use crate::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, RegionHandle,
};

/// A half-open range `[lower, upper)` of a dimension's normalised values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RangeBounds {
    /// Inclusive lower bound.
    pub lower: u64,
    /// Exclusive upper bound.
    pub upper: u64,
}

impl RangeBounds {
    /// `[lower, upper)`.
    pub fn new(lower: u64, upper: u64) -> Self {
        RangeBounds { lower, upper }
    }

    /// Whether the two ranges share a value.
    pub fn intersects(&self, other: &RangeBounds) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }
}

/// The ranges of one region, as they travel on the wire and as the overlap test takes them: a
/// dimension it does not list takes its default range.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extent(pub BTreeMap<DimensionHandle, RangeBounds>);

/// The range dimension `d` has in a region that does not specify it: the FDD's default range,
/// `None` for `Excluded` (or a dimension the FDD does not define).
pub(crate) fn default_range(fdd: &Fdd, d: DimensionHandle) -> Option<RangeBounds> {
    match fdd.dimension(d).ok()?.decl.default_range {
        DefaultRange::Excluded => None,
        DefaultRange::Range { lower, upper } => Some(RangeBounds { lower, upper }),
    }
}

/// Whether two regions overlap: on every dimension either of them specifies, the ranges
/// intersect, an unspecified dimension taking the FDD's default range; a dimension one of them
/// leaves unspecified with an `Excluded` default does not constrain.
pub fn overlap(fdd: &Fdd, a: &Extent, b: &Extent) -> bool {
    let dims = a.0.keys().chain(b.0.keys());
    for d in dims {
        let ra = a.0.get(d).copied().or_else(|| default_range(fdd, *d));
        let rb = b.0.get(d).copied().or_else(|| default_range(fdd, *d));
        if let (Some(x), Some(y)) = (ra, rb)
            && !x.intersects(&y)
        {
            return false;
        }
    }
    true
}

/// Whether an instance attribute with update regions `update` (`None`: the default region) is
/// relevant to a subscription whose regions are `sub` (`None`: the default region; empty: a
/// passive region subscription, relevant nowhere), for relevance advisories.
pub(crate) fn relevant_in_regions(
    fdd: &Fdd,
    sub: Option<&Vec<Extent>>,
    update: Option<&Vec<Extent>>,
) -> bool {
    match (sub, update) {
        (None, _) => true,
        (Some(s), None) => !s.is_empty(),
        (Some(s), Some(u)) => s.iter().any(|x| u.iter().any(|y| overlap(fdd, x, y))),
    }
}

/// One region at its creator's LRC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// The ranges `set_range_bounds` changed, not committed yet (one per dimension of the set).
    pub template: Extent,
    /// The ranges in force (one per dimension of the set).
    pub committed: Extent,
}

/// A federate's subscription to a class's attributes, where some use regions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassRegionSub {
    /// Attributes subscribed without regions (the default region: overlaps everything).
    pub default: BTreeSet<AttributeHandle>,
    /// Whether the subscription without regions is active.
    pub default_active: bool,
    /// Subscription regions per attribute.
    pub regions: BTreeMap<AttributeHandle, BTreeSet<RegionHandle>>,
    /// Whether the region subscription is active.
    pub active: bool,
}

impl ClassRegionSub {
    /// Every subscribed attribute (with or without regions).
    pub fn attrs(&self) -> BTreeSet<AttributeHandle> {
        self.default
            .iter()
            .chain(self.regions.keys())
            .copied()
            .collect()
    }

    /// Whether any part of the subscription is active.
    pub fn any_active(&self) -> bool {
        (self.default_active && !self.default.is_empty())
            || (self.active && !self.regions.is_empty())
    }
}

/// A federate's subscription to an interaction class, where it uses regions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InteractionRegionSub {
    /// Subscribed without regions too (value: active).
    pub default: Option<bool>,
    /// Subscription regions.
    pub regions: BTreeSet<RegionHandle>,
    /// Whether the region subscription is active.
    pub active: bool,
}

impl InteractionRegionSub {
    /// Whether any part of the subscription is active.
    fn any_active(&self) -> bool {
        self.default == Some(true) || (self.active && !self.regions.is_empty())
    }
}

/// The regions of one local federate, its update-region associations and region
/// subscriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FederateRegions {
    /// The counter of the last region created.
    pub last: u32,
    /// Its regions.
    pub regions: BTreeMap<RegionHandle, Region>,
    /// Update regions it associated, per instance and attribute.
    pub assoc: BTreeMap<ObjectInstanceHandle, BTreeMap<AttributeHandle, BTreeSet<RegionHandle>>>,
    /// Object class subscriptions that use regions.
    pub object_subs: BTreeMap<ObjectClassHandle, ClassRegionSub>,
    /// Interaction class subscriptions that use regions.
    pub interaction_subs: BTreeMap<InteractionClassHandle, InteractionRegionSub>,
}

impl FederateRegions {
    fn in_use(&self, r: RegionHandle) -> bool {
        self.assoc
            .values()
            .any(|m| m.values().any(|s| s.contains(&r)))
            || self
                .object_subs
                .values()
                .any(|s| s.regions.values().any(|x| x.contains(&r)))
            || self
                .interaction_subs
                .values()
                .any(|s| s.regions.contains(&r))
    }

    fn used_in_subscription(&self, rs: &BTreeSet<RegionHandle>) -> bool {
        self.object_subs
            .values()
            .any(|s| s.regions.values().any(|x| !x.is_disjoint(rs)))
            || self
                .interaction_subs
                .values()
                .any(|s| !s.regions.is_disjoint(rs))
    }

    /// The committed extents of `rs` (regions that exist).
    fn extents<'a>(&self, rs: impl IntoIterator<Item = &'a RegionHandle>) -> Vec<Extent> {
        rs.into_iter()
            .filter_map(|r| self.regions.get(r))
            .map(|r| r.committed.clone())
            .collect()
    }
}

/// The update regions a best-effort update carries after a move within the cells (see the
/// module docs, "Moves within the cells").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InlineRegions {
    /// (attribute, number, extents of its update regions) of the attributes the update
    /// carries. The number is that of the sending LRC's last announcement listing the
    /// attribute: an LRC numbers its announcements of an instance's update regions 1, 2, …, in
    /// its stream or not.
    pub attrs: Vec<(AttributeHandle, u32, Vec<Extent>)>,
}

/// The attributes' regions of a move, each with the move's announcement number (as
/// [`InlineRegions::attrs`] has them).
pub(crate) fn numbered(
    version: u32,
    attrs: AttrExtents,
) -> Vec<(AttributeHandle, u32, Vec<Extent>)> {
    attrs.into_iter().map(|(a, e)| (a, version, e)).collect()
}

/// The core's DDM state (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct RegionState {
    /// Per local federate.
    pub feds: BTreeMap<FederateHandle, FederateRegions>,
    /// The update regions of every instance attribute as last announced in its sender's stream
    /// (an attribute that is absent is in the default region).
    pub update_regions: BTreeMap<ObjectInstanceHandle, BTreeMap<AttributeHandle, Vec<Extent>>>,
    /// Sender side: the stream number of this LRC's last update-region announcement per
    /// instance, which its best-effort updates carry (`DataMsg::Update::after`).
    pub announced_at: BTreeMap<ObjectInstanceHandle, u64>,
    /// Receiver side: best-effort updates dropped because they arrived before the
    /// update-region announcement they were sent after had been applied here.
    pub stale_drops: u64,
    /// Sender side: this LRC's last announcement number per instance (see
    /// [`InlineRegions::attrs`]).
    pub versions_sent: BTreeMap<ObjectInstanceHandle, u32>,
    /// Sender side: per instance attribute, the number of this LRC's last announcement that
    /// listed it.
    pub attr_versions: BTreeMap<(ObjectInstanceHandle, AttributeHandle), u32>,
    /// Sender side: instance attributes whose update regions moved within their cells since
    /// this LRC last announced them in its stream; their best-effort updates carry them.
    pub moved_in_cells: BTreeSet<(ObjectInstanceHandle, AttributeHandle)>,
    /// Receiver side: per instance attribute, the LRC whose announcement of its update regions
    /// was applied last and that announcement's number.
    pub versions_applied: BTreeMap<(ObjectInstanceHandle, AttributeHandle), (super::Node, u32)>,
    /// Sender side: moves announced to the cells only ([`DataMsg::MoveRegions`]).
    pub moves_in_cells: u64,
}

/// What a save keeps of the DDM state for one federate (see `super::save`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRegions {
    /// The federate's regions, associations and region subscriptions.
    pub federate: FederateRegions,
    /// The update regions of every instance its LRC knew.
    pub update_regions: Vec<(ObjectInstanceHandle, AttrExtents)>,
}

/// What the DDM state held of an instance a timed delete removed, kept with it so that a
/// retraction puts it back where it was (see `super::retraction`).
#[derive(Debug, Clone, Default)]
pub(crate) struct RemovedRegions {
    /// Its update regions as announced.
    update: Option<BTreeMap<AttributeHandle, Vec<Extent>>>,
    /// The stream number of this LRC's last announcement for it.
    announced_at: Option<u64>,
    /// The associations local federates had made for it.
    assoc: Vec<(
        FederateHandle,
        BTreeMap<AttributeHandle, BTreeSet<RegionHandle>>,
    )>,
}

/// The update regions of an instance's attributes: (attribute, extents of its regions).
pub type AttrExtents = Vec<(AttributeHandle, Vec<Extent>)>;

/// `(attributes, regions)` pairs of the region services (the standard's
/// `AttributeHandleSetRegionHandleSetPairVector`).
pub type AttrRegionPairs = [(Vec<AttributeHandle>, Vec<RegionHandle>)];

impl FederationCore {
    /// The region `r` of federate `f`, or the standard's exception: `InvalidRegion` if no
    /// region `r` exists, `RegionNotCreatedByThisFederate` if another federate created it.
    fn own_region(&self, f: FederateHandle, r: RegionHandle) -> Result<&Region, RtiError> {
        if let Some(reg) = self.regions.feds.get(&f).and_then(|x| x.regions.get(&r)) {
            return Ok(reg);
        }
        let c = r.creator();
        let elsewhere = if self.locals.contains_key(&c) {
            self.regions
                .feds
                .get(&c)
                .is_some_and(|x| x.regions.contains_key(&r))
        } else {
            // A region of a federate on another LRC: known to exist only by its creator; a
            // handle naming a joined federate and a counter it can have issued counts as one.
            c != f && self.view.federates.contains_key(&c) && r.counter() > 0
        };
        if elsewhere {
            Err(RtiError::RegionNotCreatedByThisFederate(format!(
                "federation {}: region {r} was created by federate {c}, not {f}",
                self.name
            )))
        } else {
            Err(RtiError::InvalidRegion(format!(
                "federation {}: federate {f} has no region {r}",
                self.name
            )))
        }
    }

    fn region_dims(
        &self,
        f: FederateHandle,
        r: RegionHandle,
    ) -> Result<Vec<DimensionHandle>, RtiError> {
        Ok(self.own_region(f, r)?.template.0.keys().copied().collect())
    }

    /// `InvalidRegionContext` unless every dimension of each region is available in `avail`.
    fn check_context(
        &self,
        f: FederateHandle,
        regions: &[RegionHandle],
        avail: &[DimensionHandle],
        what: &dyn Fn() -> String,
    ) -> Result<(), RtiError> {
        for r in regions {
            for d in self.region_dims(f, *r)? {
                if !avail.contains(&d) {
                    return Err(RtiError::InvalidRegionContext(format!(
                        "federation {}: region {r} specifies dimension {d}, which {} cannot use",
                        self.name,
                        what()
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks `(attributes, regions)` pairs for class `class`: attributes defined, regions
    /// this federate's, dimensions available for each attribute.
    fn check_pairs(
        &self,
        f: FederateHandle,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
    ) -> Result<(), RtiError> {
        let fdd = self.fdd_ref()?;
        for (attrs, regions) in pairs {
            for r in regions {
                self.own_region(f, *r)?;
            }
            for a in attrs {
                let avail = fdd
                    .available_dimensions_for_class_attribute(class, *a)
                    .map_err(|e| {
                        RtiError::AttributeNotDefined(format!("federation {}: {e}", self.name))
                    })?;
                self.check_context(f, regions, avail, &|| {
                    format!("attribute {a} of class {class}")
                })?;
            }
        }
        Ok(())
    }

    fn check_dimension(&self, d: DimensionHandle) -> Result<u64, RtiError> {
        self.fdd_ref()?.dimension_upper_bound(d).map_err(|_| {
            RtiError::InvalidDimensionHandle(format!(
                "federation {}: dimension handle {d}",
                self.name
            ))
        })
    }

    /// 9.2: creates a region over `dims` (`InvalidDimensionHandle` for a handle the FDD does not
    /// define). Each dimension starts at its default range, or its full range where the default
    /// is `Excluded`; the ranges are committed at once.
    pub fn create_region(
        &mut self,
        f: FederateHandle,
        dims: &[DimensionHandle],
    ) -> Result<RegionHandle, RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "createRegion")?;
        let fdd = self.fdd_ref()?;
        let mut ext = Extent::default();
        for d in dims {
            let ub = self.check_dimension(*d)?;
            let range = default_range(&fdd, *d).unwrap_or(RangeBounds::new(0, ub));
            ext.0.insert(*d, range);
        }
        let fr = self.regions.feds.entry(f).or_default();
        fr.last = fr.last.saturating_add(1);
        let r = RegionHandle::new(f, fr.last);
        fr.regions.insert(
            r,
            Region {
                template: ext.clone(),
                committed: ext,
            },
        );
        Ok(r)
    }

    /// 10.28: the dimensions of region `r`.
    pub fn get_dimension_handle_set(
        &self,
        f: FederateHandle,
        r: RegionHandle,
    ) -> Result<Vec<DimensionHandle>, RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "getDimensionHandleSet")?;
        if r.creator() == f && super::convey::is_conveyed(r) {
            return self.conveyed_dimensions(f, r);
        }
        self.region_dims(f, r)
    }

    /// 10.29: the range of region `r` on dimension `d`, as set (the template: what
    /// `set_range_bounds` last set, committed or not).
    pub fn get_range_bounds(
        &self,
        f: FederateHandle,
        r: RegionHandle,
        d: DimensionHandle,
    ) -> Result<RangeBounds, RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "getRangeBounds")?;
        self.check_dimension(d)?;
        if r.creator() == f && super::convey::is_conveyed(r) {
            return self.conveyed_range_bounds(f, r, d);
        }
        let reg = self.own_region(f, r)?;
        reg.template.0.get(&d).copied().ok_or_else(|| {
            RtiError::RegionDoesNotContainSpecifiedDimension(format!(
                "federation {}: region {r} does not specify dimension {d}",
                self.name
            ))
        })
    }

    /// 10.30: sets the template range of region `r` on dimension `d`; it takes effect at
    /// [`Self::commit_region_modifications`]. `InvalidRangeBound` unless `lower < upper ≤` the
    /// dimension's upper bound.
    pub fn set_range_bounds(
        &mut self,
        f: FederateHandle,
        r: RegionHandle,
        d: DimensionHandle,
        bounds: RangeBounds,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "setRangeBounds")?;
        let ub = self.check_dimension(d)?;
        let reg = self.own_region(f, r)?;
        if !reg.template.0.contains_key(&d) {
            return Err(RtiError::RegionDoesNotContainSpecifiedDimension(format!(
                "federation {}: region {r} does not specify dimension {d}",
                self.name
            )));
        }
        if bounds.lower >= bounds.upper || bounds.upper > ub {
            return Err(RtiError::InvalidRangeBound(format!(
                "federation {}: [{}, {}) on dimension {d} (upper bound {ub}): the lower bound \
                 must be below the upper, and the upper at most the dimension's",
                self.name, bounds.lower, bounds.upper
            )));
        }
        if let Some(reg) = self
            .regions
            .feds
            .get_mut(&f)
            .and_then(|x| x.regions.get_mut(&r))
        {
            reg.template.0.insert(d, bounds);
        }
        Ok(())
    }

    /// 9.3: the template ranges of `regions` take effect. The instances whose update regions
    /// changed are announced in this LRC's stream (see the module docs); the federate's own
    /// subscriptions are re-evaluated at once (discoveries, scope advisories).
    pub fn commit_region_modifications(
        &mut self,
        f: FederateHandle,
        regions: &[RegionHandle],
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "commitRegionModifications")?;
        for r in regions {
            self.own_region(f, *r)?;
        }
        let set: BTreeSet<RegionHandle> = regions.iter().copied().collect();
        let Some(fr) = self.regions.feds.get_mut(&f) else {
            return Ok(());
        };
        let mut changed = false;
        for r in &set {
            if let Some(reg) = fr.regions.get_mut(r)
                && reg.committed != reg.template
            {
                reg.committed = reg.template.clone();
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
        let announce: Vec<(ObjectInstanceHandle, Vec<AttributeHandle>)> = fr
            .assoc
            .iter()
            .filter_map(|(o, m)| {
                let attrs: Vec<AttributeHandle> = m
                    .iter()
                    .filter(|(_, rs)| !rs.is_disjoint(&set))
                    .map(|(a, _)| *a)
                    .collect();
                (!attrs.is_empty()).then_some((*o, attrs))
            })
            .collect();
        let subscribed = fr.used_in_subscription(&set);
        let classes: Vec<ObjectClassHandle> = fr
            .object_subs
            .iter()
            .filter(|(_, s)| s.regions.values().any(|x| !x.is_disjoint(&set)))
            .map(|(c, _)| *c)
            .collect();
        for (o, attrs) in announce {
            // Only what it owns: an ex-owner's associations no longer say where the instance
            // updates (see "Update regions and ownership" in the module docs).
            let attrs = self.owned_of(f, o, attrs);
            if !attrs.is_empty() {
                self.announce_update_regions(f, o, &attrs);
            }
        }
        // The owners' relevance advisories follow the moved subscription regions.
        for c in classes {
            let active: Vec<AttributeHandle> = self
                .local(f)?
                .decl
                .subscribed_objects
                .get(&c)
                .filter(|s| s.active)
                .map(|s| s.attrs.iter().copied().collect())
                .unwrap_or_default();
            let decl = self.subscribe_declaration(f, c, active);
            self.send_data(true, DataMsg::Declare { federate: f, decl });
        }
        if subscribed {
            self.subscriptions_moved(f);
        }
        Ok(())
    }

    /// The declaration of federate `f`'s active subscription set `attrs` to `class`:
    /// [`Declaration::SubscribeObjectInRegions`] with the committed extents of its subscription
    /// regions when it subscribes to the class with regions, else
    /// [`Declaration::SubscribeObject`]. An attribute subscribed actively without regions is
    /// not listed (the default region); one subscribed with regions only is listed with their
    /// extents, or with none where its region part is passive.
    pub(crate) fn subscribe_declaration(
        &self,
        f: FederateHandle,
        class: ObjectClassHandle,
        attrs: Vec<AttributeHandle>,
    ) -> Declaration {
        let Some((fr, sub)) = self
            .regions
            .feds
            .get(&f)
            .and_then(|fr| fr.object_subs.get(&class).map(|s| (fr, s)))
        else {
            return Declaration::SubscribeObject(class, attrs);
        };
        let regions = sub
            .attrs()
            .into_iter()
            .filter(|a| !(sub.default_active && sub.default.contains(a)))
            .map(|a| {
                let ext = match sub.regions.get(&a) {
                    Some(rs) if sub.active => fr.extents(rs),
                    _ => Vec::new(),
                };
                (a, ext)
            })
            .collect();
        Declaration::SubscribeObjectInRegions {
            class,
            attrs,
            regions,
        }
    }

    /// 9.4: deletes region `r` (`RegionInUseForUpdateOrSubscription` while it is associated
    /// for updates or used in a subscription).
    pub fn delete_region(&mut self, f: FederateHandle, r: RegionHandle) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "deleteRegion")?;
        self.own_region(f, r)?;
        if let Some(fr) = self.regions.feds.get_mut(&f) {
            if fr.in_use(r) {
                return Err(RtiError::RegionInUseForUpdateOrSubscription(format!(
                    "federation {}: region {r} is associated for updates or used in a \
                     subscription",
                    self.name
                )));
            }
            fr.regions.remove(&r);
        }
        Ok(())
    }

    /// Announces the update regions of instance `o`'s attributes `attrs` as federate `f`
    /// associated them (the committed ranges; none: the default region), in this LRC's stream.
    pub(crate) fn announce_update_regions(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
        let Some(fr) = self.regions.feds.get(&f) else {
            return;
        };
        let m = fr.assoc.get(&o);
        let list: Vec<(AttributeHandle, Vec<Extent>)> = attrs
            .iter()
            .map(|a| {
                let ext = m
                    .and_then(|m| m.get(a))
                    .map(|rs| fr.extents(rs))
                    .unwrap_or_default();
                (*a, ext)
            })
            .collect();
        let version = {
            let v = self.regions.versions_sent.entry(o).or_default();
            *v = v.wrapping_add(1).max(1);
            *v
        };
        for (a, _) in &list {
            self.regions.attr_versions.insert((o, *a), version);
        }
        if self.moves_on_cells(f, o, &list) {
            // Only the LRCs in those cells need it (see the module docs, "Moves within the
            // cells"); it is applied here at once, by `send_data`. A reliable attribute's move
            // is numbered in the stream (on the cells only), so it stays in order with that
            // attribute's updates.
            let after = self.regions.announced_at.get(&o).copied().unwrap_or(0);
            let class = self.objects.get(&o).map(|i| i.class);
            let reliable =
                class.is_some_and(|k| list.iter().any(|(a, _)| self.is_reliable_attr(k, *a)));
            self.regions
                .moved_in_cells
                .extend(list.iter().map(|(a, _)| (o, *a)));
            self.regions.moves_in_cells += 1;
            // Held for the update that usually follows it (`super::move_fold`).
            self.hold_move(
                reliable,
                DataMsg::MoveRegions {
                    object: o,
                    producer: f,
                    version,
                    after,
                    attrs: list,
                },
            );
            return;
        }
        let listed: Vec<AttributeHandle> = list.iter().map(|(a, _)| *a).collect();
        let seq = self.send_data(
            true,
            DataMsg::UpdateRegions {
                object: o,
                producer: f,
                attrs: list,
                version,
            },
        );
        self.regions.announced_at.insert(o, seq);
        for a in listed {
            self.regions.moved_in_cells.remove(&(o, a));
        }
    }

    /// Whether the new update regions `list` of instance `o`, as federate `f` associated them,
    /// may be announced to the cells they leave and enter only ([`DataMsg::MoveRegions`]):
    /// cell routing is on, this LRC announced the instance to every LRC before, every attribute
    /// listed is owned by `f` and had update regions, both its old and its new ones in cells
    /// (not the default region, not too many cells), and `f` owns every attribute of `o` with
    /// update regions (one LRC numbers the announcements of the instance).
    fn moves_on_cells(
        &self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        list: &AttrExtents,
    ) -> bool {
        if self.cells.cells_per_dimension == 0
            || list.is_empty()
            || !self.regions.announced_at.contains_key(&o)
        {
            return false;
        }
        let Some(inst) = self.objects.get(&o) else {
            return false;
        };
        let Some(old) = self.regions.update_regions.get(&o) else {
            return false;
        };
        if old.keys().any(|a| inst.owner_of(*a) != Some(f)) {
            return false;
        }
        list.iter().all(|(a, new)| {
            inst.owner_of(*a) == Some(f)
                && !new.is_empty()
                && old.get(a).is_some_and(|old| {
                    self.cells_of_extents(inst.class, *a, old).is_some()
                        && self.cells_of_extents(inst.class, *a, new).is_some()
                })
        })
    }

    /// LRC `from` joined cells and asks for the regions this LRC's instances moved to within
    /// their cells since it last announced them to every LRC (it heard none of those moves):
    /// the answer goes behind this LRC's data, so `from` has applied every announcement sent
    /// before it, and its numbers order it against the moves still on their way.
    pub(crate) fn on_regions_query(&mut self, from: super::Node) {
        let mut moved: BTreeMap<ObjectInstanceHandle, super::wire::MovedInstance> = BTreeMap::new();
        for (o, a) in &self.regions.moved_in_cells {
            let owner = self.objects.get(o).and_then(|i| i.owner_of(*a));
            let (Some(owner), Some(v), Some(ext)) = (
                owner.filter(|f| self.locals.contains_key(f)),
                self.regions.attr_versions.get(&(*o, *a)),
                self.regions.update_regions.get(o).and_then(|m| m.get(a)),
            ) else {
                continue;
            };
            let entry = moved.entry(*o).or_insert_with(|| (*o, owner, Vec::new()));
            if entry.1 == owner {
                entry.2.push((*a, *v, ext.clone()));
            }
        }
        if !moved.is_empty() {
            let moved = moved.into_values().collect();
            self.send_control(from, true, super::wire::ControlMsg::MovedRegions { moved });
        }
    }

    /// The answer to this LRC's [`super::wire::ControlMsg::RegionsQuery`]: applied as moves
    /// (numbers decide against what is held), so an instance that moved into the cells joined
    /// is discovered and its scope advised now rather than at its next update.
    pub(crate) fn on_moved_regions(
        &mut self,
        from: super::Node,
        moved: Vec<super::wire::MovedInstance>,
    ) {
        for (object, producer, attrs) in moved {
            self.apply_moved_regions(from, object, producer, &attrs);
        }
    }

    /// Regions that an update of `attrs` of `o` carries: those of the attributes that moved
    /// within their cells since this LRC last announced them to every LRC.
    pub(crate) fn inline_regions(
        &self,
        o: ObjectInstanceHandle,
        attrs: impl IntoIterator<Item = AttributeHandle>,
    ) -> Option<InlineRegions> {
        if self.regions.moved_in_cells.is_empty() {
            return None;
        }
        let m = self.regions.update_regions.get(&o)?;
        let attrs: Vec<(AttributeHandle, u32, Vec<Extent>)> = attrs
            .into_iter()
            .filter(|a| self.regions.moved_in_cells.contains(&(o, *a)))
            .filter_map(|a| {
                let v = self.regions.attr_versions.get(&(o, a))?;
                Some((a, *v, m.get(&a).cloned().unwrap_or_default()))
            })
            .collect();
        (!attrs.is_empty()).then_some(InlineRegions { attrs })
    }

    /// Applies regions that came outside the stream (a [`DataMsg::MoveRegions`] or an update's
    /// [`InlineRegions`]) from LRC `from` as `producer` announced them, each attribute's with
    /// its announcement number: only if `producer` owns every attribute listed, and for each
    /// attribute only if the last announcement of it applied here is an older one of the same
    /// LRC (or none). Returns `false` if one of them is older than what is held (the message
    /// was sent in regions since replaced), `true` otherwise.
    pub(crate) fn apply_moved_regions(
        &mut self,
        from: super::Node,
        object: ObjectInstanceHandle,
        producer: FederateHandle,
        attrs: &[(AttributeHandle, u32, Vec<Extent>)],
    ) -> bool {
        let Some(inst) = self.objects.get(&object) else {
            return true;
        };
        if attrs
            .iter()
            .any(|(a, _, _)| inst.owner_of(*a) != Some(producer))
        {
            // An ex-owner's: what the new owner announced stands.
            return true;
        }
        let mut newer = Vec::new();
        for (a, version, ext) in attrs {
            match self.regions.versions_applied.get(&(object, *a)) {
                Some((n, v)) if *n == from && version < v => return false,
                Some((n, v)) if *n != from || version == v => {}
                _ => newer.push((*a, *version, ext)),
            }
        }
        if newer.is_empty() {
            return true;
        }
        for (a, version, _) in &newer {
            self.regions
                .versions_applied
                .insert((object, *a), (from, *version));
        }
        let newer = newer.into_iter().map(|(a, _, e)| (a, e.clone())).collect();
        self.apply_update_regions(object, newer);
        true
    }

    /// A move of `object`'s update regions within their cells from LRC `from` (position `seq`
    /// of its stream when reliable): not before the stream announcement it follows (as a
    /// best-effort update), and behind an update of the same stream, producer and instance
    /// held for a hand-over (that update is judged by the regions it was sent in, and a
    /// reliable one must not be found stale and lost); applied otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_move_regions(
        &mut self,
        from: super::Node,
        seq: u64,
        object: ObjectInstanceHandle,
        producer: FederateHandle,
        version: u32,
        after: u64,
        attrs: AttrExtents,
    ) {
        if from != self.me && after > self.applied_upto(from) {
            self.regions.stale_drops += 1;
            return;
        }
        // (Bounded as the held updates; past the bound it applies now.)
        if self.ownership.has_held(from, producer, object)
            && self.ownership.held.len() < super::ownership::MAX_HELD_UPDATES
        {
            let msg = DataMsg::MoveRegions {
                object,
                producer,
                version,
                after,
                attrs,
            };
            self.ownership.held.push((from, seq, msg));
            return;
        }
        self.apply_moved_regions(from, object, producer, &numbered(version, attrs));
    }

    /// Applies an announcement of update regions from LRC `from`'s stream (this one's too),
    /// number `version` of that LRC for the instance.
    pub(crate) fn apply_announced_regions(
        &mut self,
        from: super::Node,
        object: ObjectInstanceHandle,
        version: u32,
        attrs: AttrExtents,
    ) {
        for (a, _) in &attrs {
            self.regions
                .versions_applied
                .insert((object, *a), (from, version));
        }
        self.apply_update_regions(object, attrs);
    }

    /// Moves announced to the cells only (see the module docs, "Moves within the cells").
    pub fn ddm_moves_in_cells(&self) -> u64 {
        self.regions.moves_in_cells
    }

    /// Best-effort updates dropped here because they overtook the update-region announcement
    /// they were sent after (see the module docs, "Best effort and region moves").
    pub fn ddm_stale_drops(&self) -> u64 {
        self.regions.stale_drops
    }

    /// Those of `attrs` of instance `o` that federate `f` owns.
    fn owned_of(
        &self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        attrs: impl IntoIterator<Item = AttributeHandle>,
    ) -> Vec<AttributeHandle> {
        let inst = self.objects.get(&o);
        attrs
            .into_iter()
            .filter(|a| inst.and_then(|i| i.owner_of(*a)) == Some(f))
            .collect()
    }

    /// Local federate `f` now owns `attrs` of `o` (the acquisition notification is next): the
    /// update regions it associated with them become the instance's, announced in its stream
    /// before any update it sends (attributes it associated nothing with keep those announced
    /// before).
    pub(crate) fn regions_on_acquired(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
        let Some(m) = self.regions.feds.get(&f).and_then(|fr| fr.assoc.get(&o)) else {
            return;
        };
        let mine: Vec<AttributeHandle> = attrs
            .iter()
            .filter(|a| m.contains_key(a))
            .copied()
            .collect();
        if !mine.is_empty() {
            self.announce_update_regions(f, o, &mine);
        }
    }

    /// Applies an announcement of update regions (from any LRC's stream, this one's too).
    pub(crate) fn apply_update_regions(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: Vec<(AttributeHandle, Vec<Extent>)>,
    ) {
        let m = self.regions.update_regions.entry(object).or_default();
        for (a, ext) in attrs {
            if ext.is_empty() {
                m.remove(&a);
            } else {
                m.insert(a, ext);
            }
        }
        if m.is_empty() {
            self.regions.update_regions.remove(&object);
        }
        if self.objects.contains_key(&object) {
            self.discover_for_subscribers(object);
            self.advise_instance(object);
        }
    }

    /// Federate `f`'s subscription regions changed: what it discovers and what is in its scope
    /// may have changed with them.
    fn subscriptions_moved(&mut self, f: FederateHandle) {
        let objs: Vec<ObjectInstanceHandle> = self.objects.keys().copied().collect();
        for o in objs {
            self.discover_for(f, o);
        }
        self.advise();
    }

    /// Whether federate `f`, which knows instance `o` as `known` and subscribes to attribute
    /// `a` there, has it in its regions: subscribed without regions, or the attribute is in
    /// the default region, or one of its update regions overlaps one of the subscription
    /// regions.
    pub(crate) fn attr_in_region(
        &self,
        fdd: &Fdd,
        f: FederateHandle,
        known: ObjectClassHandle,
        o: ObjectInstanceHandle,
        a: AttributeHandle,
    ) -> bool {
        let Some(fr) = self.regions.feds.get(&f) else {
            return true;
        };
        let Some(sub) = fr.object_subs.get(&known) else {
            return true;
        };
        if sub.default.contains(&a) {
            return true;
        }
        let Some(rs) = sub.regions.get(&a) else {
            return false;
        };
        let Some(ext) = self.regions.update_regions.get(&o).and_then(|m| m.get(&a)) else {
            return true;
        };
        rs.iter()
            .filter_map(|r| fr.regions.get(r))
            .any(|reg| ext.iter().any(|e| overlap(fdd, &reg.committed, e)))
    }

    /// Whether federate `f` may discover `o` as `known`: some attribute it subscribes to there
    /// is in its regions (see [`Self::attr_in_region`]).
    pub(crate) fn discoverable_in_regions(
        &self,
        fdd: &Fdd,
        f: FederateHandle,
        known: ObjectClassHandle,
        o: ObjectInstanceHandle,
    ) -> bool {
        let Some(sub) = self
            .regions
            .feds
            .get(&f)
            .and_then(|fr| fr.object_subs.get(&known))
        else {
            return true;
        };
        !sub.default.is_empty()
            || sub
                .regions
                .keys()
                .any(|a| self.attr_in_region(fdd, f, known, o, *a))
    }

    /// Whether federate `f` receives an interaction it knows as `known`, sent with regions
    /// `sent` (`None`: the default region).
    pub(crate) fn interaction_in_region(
        &self,
        fdd: &Fdd,
        f: FederateHandle,
        known: InteractionClassHandle,
        sent: Option<&[Extent]>,
    ) -> bool {
        let Some(fr) = self.regions.feds.get(&f) else {
            return true;
        };
        let Some(sub) = fr.interaction_subs.get(&known) else {
            return true;
        };
        let Some(sent) = sent.filter(|s| !s.is_empty()) else {
            return true;
        };
        sub.default.is_some()
            || sub
                .regions
                .iter()
                .filter_map(|r| fr.regions.get(r))
                .any(|reg| sent.iter().any(|e| overlap(fdd, &reg.committed, e)))
    }

    /// The subscription set 5.6 / 5.7 leave for `class` when the federate also subscribes
    /// with regions there: `attrs` become its default-region part; `None` when it does not.
    pub(crate) fn region_sub_with_default(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        attrs: BTreeSet<AttributeHandle>,
        active: bool,
    ) -> Option<(BTreeSet<AttributeHandle>, bool)> {
        let sub = self.regions.feds.get_mut(&f)?.object_subs.get_mut(&class)?;
        sub.default = attrs;
        sub.default_active = active;
        Some((sub.attrs(), sub.any_active()))
    }

    /// 5.8 / 5.9 when the federate also subscribes to `ic` with regions: the default part
    /// becomes `default`; returns whether the class stays subscribed and is active (`None`:
    /// no region subscription to `ic`).
    pub(crate) fn region_interaction_with_default(
        &mut self,
        f: FederateHandle,
        ic: InteractionClassHandle,
        default: Option<bool>,
    ) -> Option<bool> {
        let sub = self
            .regions
            .feds
            .get_mut(&f)?
            .interaction_subs
            .get_mut(&ic)?;
        sub.default = default;
        Some(sub.any_active())
    }

    /// 9.8: subscribes to attributes of `class` with regions (`active = false`: passive),
    /// adding to what the federate subscribed before; `rate` as in 5.6.
    pub fn subscribe_object_class_attributes_with_regions(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        active: bool,
        rate: Option<&str>,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "subscribeObjectClassAttributesWithRegions")?;
        self.check_class(class)?;
        self.check_pairs(f, class, pairs)?;
        let rate = match rate {
            Some(name) => self.subscribed_rate(name)?,
            None => self.local(f)?.decl.rates.get(&class).cloned(),
        };
        let current = self
            .local(f)?
            .decl
            .subscribed_objects
            .get(&class)
            .cloned()
            .unwrap_or_default();
        let fr = self.regions.feds.entry(f).or_default();
        let sub = fr
            .object_subs
            .entry(class)
            .or_insert_with(|| ClassRegionSub {
                default: current.attrs,
                default_active: current.active,
                ..Default::default()
            });
        for (attrs, regions) in pairs {
            if regions.is_empty() {
                continue;
            }
            for a in attrs {
                sub.regions
                    .entry(*a)
                    .or_default()
                    .extend(regions.iter().copied());
            }
        }
        sub.active = active;
        let (set, any_active) = (sub.attrs(), sub.any_active());
        self.apply_object_subscription(f, class, set, any_active, rate)?;
        self.subscriptions_moved(f);
        Ok(())
    }

    /// 9.9: removes the regions from the subscriptions of the attributes they are paired with;
    /// an attribute left with no region (and not subscribed without regions) is unsubscribed.
    pub fn unsubscribe_object_class_attributes_with_regions(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "unsubscribeObjectClassAttributesWithRegions")?;
        self.check_class(class)?;
        self.check_pairs(f, class, pairs)?;
        let rate = self.local(f)?.decl.rates.get(&class).cloned();
        let Some(fr) = self.regions.feds.get_mut(&f) else {
            return Ok(());
        };
        let Some(sub) = fr.object_subs.get_mut(&class) else {
            return Ok(());
        };
        for (attrs, regions) in pairs {
            for a in attrs {
                if let Some(rs) = sub.regions.get_mut(a) {
                    for r in regions {
                        rs.remove(r);
                    }
                    if rs.is_empty() {
                        sub.regions.remove(a);
                    }
                }
            }
        }
        let (set, any_active) = (sub.attrs(), sub.any_active());
        if sub.regions.is_empty() {
            fr.object_subs.remove(&class);
        }
        self.apply_object_subscription(f, class, set, any_active, rate)?;
        self.advise();
        Ok(())
    }

    /// 9.10: subscribes to interaction class `ic` with regions (`active = false`: passive).
    pub fn subscribe_interaction_class_with_regions(
        &mut self,
        f: FederateHandle,
        ic: InteractionClassHandle,
        regions: &[RegionHandle],
        active: bool,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "subscribeInteractionClassWithRegions")?;
        let fdd = self.fdd_ref()?;
        let avail = fdd
            .available_dimensions_for_interaction_class(ic)
            .map_err(|e| {
                RtiError::InteractionClassNotDefined(format!("federation {}: {e}", self.name))
            })?;
        for r in regions {
            self.own_region(f, *r)?;
        }
        self.check_context(f, regions, avail, &|| format!("interaction class {ic}"))?;
        let current = self
            .local(f)?
            .decl
            .subscribed_interactions
            .get(&ic)
            .copied();
        let fr = self.regions.feds.entry(f).or_default();
        let sub = fr
            .interaction_subs
            .entry(ic)
            .or_insert_with(|| InteractionRegionSub {
                default: current,
                ..Default::default()
            });
        sub.regions.extend(regions.iter().copied());
        sub.active = active;
        let any_active = sub.any_active();
        self.set_interaction_subscription(f, ic, Some(any_active))
    }

    /// 9.11: removes the regions from the federate's subscription to `ic`; with none left (and
    /// no subscription without regions) the class is unsubscribed.
    pub fn unsubscribe_interaction_class_with_regions(
        &mut self,
        f: FederateHandle,
        ic: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "unsubscribeInteractionClassWithRegions")?;
        let fdd = self.fdd_ref()?;
        fdd.interaction_class(ic).map_err(|e| {
            RtiError::InteractionClassNotDefined(format!("federation {}: {e}", self.name))
        })?;
        for r in regions {
            self.own_region(f, *r)?;
        }
        let Some(fr) = self.regions.feds.get_mut(&f) else {
            return Ok(());
        };
        let Some(sub) = fr.interaction_subs.get_mut(&ic) else {
            return Ok(());
        };
        for r in regions {
            sub.regions.remove(r);
        }
        let state = if sub.regions.is_empty() {
            let d = sub.default;
            fr.interaction_subs.remove(&ic);
            d
        } else {
            Some(sub.any_active())
        };
        self.set_interaction_subscription(f, ic, state)
    }

    /// 9.5: registers an instance with update regions for some of its attributes. The
    /// regions are announced before the registration (see the module docs), so no receiver
    /// discovers the instance before it knows where it is.
    pub fn register_object_instance_with_regions(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        name: Option<&str>,
    ) -> Result<ObjectInstanceHandle, RtiError> {
        self.refuse_during_save_or_restore(f, "registerObjectInstanceWithRegions")?;
        self.local(f)?;
        self.check_class(class)?;
        self.check_pairs(f, class, pairs)?;
        let lf = self.local(f)?;
        for (attrs, _) in pairs {
            for a in attrs {
                if !lf.decl.publishes(class, *a) {
                    return Err(RtiError::AttributeNotPublished(format!(
                        "federation {}: federate {f} does not publish attribute {a} of class \
                         {class}",
                        self.name
                    )));
                }
            }
        }
        let mut assoc: BTreeMap<AttributeHandle, BTreeSet<RegionHandle>> = BTreeMap::new();
        for (attrs, regions) in pairs {
            for a in attrs {
                assoc.entry(*a).or_default().extend(regions.iter().copied());
            }
        }
        assoc.retain(|_, rs| !rs.is_empty());
        self.register_object_instance_in(f, class, name, assoc)
    }

    /// Records federate `f`'s associations for a new instance `o` and announces them (called by
    /// the registration just before it sends the registration).
    pub(crate) fn associate_new_instance(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        assoc: BTreeMap<AttributeHandle, BTreeSet<RegionHandle>>,
    ) {
        if assoc.is_empty() {
            return;
        }
        let attrs: Vec<AttributeHandle> = assoc.keys().copied().collect();
        self.regions
            .feds
            .entry(f)
            .or_default()
            .assoc
            .insert(o, assoc);
        self.announce_update_regions(f, o, &attrs);
    }

    fn check_known(
        &self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
    ) -> Result<ObjectClassHandle, RtiError> {
        let known = self.local(f)?.known.contains_key(&o);
        match self.objects.get(&o) {
            Some(i) if known => Ok(i.class),
            _ => Err(RtiError::ObjectInstanceNotKnown(format!(
                "federation {}: federate {f} does not know object instance {o}",
                self.name
            ))),
        }
    }

    /// 9.6: associates regions with attributes of instance `o` for updates (added to those
    /// associated before).
    pub fn associate_regions_for_updates(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        pairs: &AttrRegionPairs,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "associateRegionsForUpdates")?;
        let class = self.check_known(f, o)?;
        self.check_pairs(f, class, pairs)?;
        let fr = self.regions.feds.entry(f).or_default();
        let m = fr.assoc.entry(o).or_default();
        let mut touched = BTreeSet::new();
        for (attrs, regions) in pairs {
            if regions.is_empty() {
                continue;
            }
            for a in attrs {
                m.entry(*a).or_default().extend(regions.iter().copied());
                touched.insert(*a);
            }
        }
        if m.is_empty() {
            fr.assoc.remove(&o);
        }
        let touched = self.owned_of(f, o, touched);
        if !touched.is_empty() {
            self.announce_update_regions(f, o, &touched);
        }
        Ok(())
    }

    /// 9.7: removes the associations of regions with attributes of instance `o`; an attribute
    /// left with none is in the default region again.
    pub fn unassociate_regions_for_updates(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        pairs: &AttrRegionPairs,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "unassociateRegionsForUpdates")?;
        let class = self.check_known(f, o)?;
        self.check_pairs(f, class, pairs)?;
        let Some(fr) = self.regions.feds.get_mut(&f) else {
            return Ok(());
        };
        let Some(m) = fr.assoc.get_mut(&o) else {
            return Ok(());
        };
        let mut touched = BTreeSet::new();
        for (attrs, regions) in pairs {
            for a in attrs {
                if let Some(rs) = m.get_mut(a) {
                    let before = rs.len();
                    for r in regions {
                        rs.remove(r);
                    }
                    if rs.len() != before {
                        touched.insert(*a);
                    }
                    if rs.is_empty() {
                        m.remove(a);
                    }
                }
            }
        }
        if m.is_empty() {
            fr.assoc.remove(&o);
        }
        let touched = self.owned_of(f, o, touched);
        if !touched.is_empty() {
            self.announce_update_regions(f, o, &touched);
        }
        Ok(())
    }

    /// The committed extents of federate `f`'s regions `rs`, after checking them against
    /// interaction class `ic`'s available dimensions.
    pub(crate) fn interaction_extents(
        &self,
        f: FederateHandle,
        ic: InteractionClassHandle,
        rs: &[RegionHandle],
    ) -> Result<Vec<Extent>, RtiError> {
        let fdd = self.fdd_ref()?;
        let avail = fdd
            .available_dimensions_for_interaction_class(ic)
            .map_err(|e| {
                RtiError::InteractionClassNotDefined(format!("federation {}: {e}", self.name))
            })?;
        for r in rs {
            self.own_region(f, *r)?;
        }
        self.check_context(f, rs, avail, &|| format!("interaction class {ic}"))?;
        Ok(self
            .regions
            .feds
            .get(&f)
            .map(|fr| fr.extents(rs))
            .unwrap_or_default())
    }

    /// 9.13: asks the owners of the instances of `class` (with subclasses) for the values of
    /// the attributes paired with regions, where the instance attribute's update regions overlap
    /// one of those regions.
    pub fn request_attribute_value_update_with_regions(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        tag: Vec<u8>,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "requestAttributeValueUpdateWithRegions")?;
        self.check_class(class)?;
        self.check_pairs(f, class, pairs)?;
        let fr = self.regions.feds.get(&f);
        let attrs: Vec<(Vec<AttributeHandle>, Vec<Extent>)> = pairs
            .iter()
            .map(|(a, rs)| (a.clone(), fr.map(|fr| fr.extents(rs)).unwrap_or_default()))
            .collect();
        self.send_data(true, DataMsg::RequestUpdateInRegions { class, attrs, tag });
        Ok(())
    }

    /// Applies a region-scoped value-update request: the local owners of matching instance
    /// attributes are asked to provide them.
    pub(crate) fn apply_request_in_regions(
        &mut self,
        class: ObjectClassHandle,
        attrs: Vec<(Vec<AttributeHandle>, Vec<Extent>)>,
        tag: Vec<u8>,
    ) {
        let Some(fdd) = self.fdd.clone() else { return };
        let mut per: BTreeMap<(ObjectInstanceHandle, FederateHandle), BTreeSet<AttributeHandle>> =
            BTreeMap::new();
        for (o, i) in &self.objects {
            if !super::declarations::object_class_is_a(&fdd, i.class, class) {
                continue;
            }
            let ur = self.regions.update_regions.get(o);
            for (attrs, ext) in &attrs {
                for a in attrs {
                    let Some(owner) = i.owner_of(*a) else {
                        continue;
                    };
                    if !self.locals.contains_key(&owner) {
                        continue;
                    }
                    let inside = match ur.and_then(|m| m.get(a)) {
                        None => true,
                        Some(u) => {
                            ext.is_empty()
                                || u.iter().any(|x| ext.iter().any(|y| overlap(&fdd, x, y)))
                        }
                    };
                    if inside {
                        per.entry((*o, owner)).or_default().insert(*a);
                    }
                }
            }
        }
        for ((o, owner), a) in per {
            self.callback(
                owner,
                Callback::ProvideAttributeValueUpdate {
                    object: o,
                    attrs: a.into_iter().collect(),
                    tag: tag.clone(),
                },
            );
        }
    }

    /// The update regions federate `f` associated, one declaration per instance, for a
    /// state-transfer snapshot.
    pub(crate) fn update_region_declarations(
        &self,
        f: FederateHandle,
    ) -> Vec<super::wire::Declaration> {
        let Some(fr) = self.regions.feds.get(&f) else {
            return Vec::new();
        };
        fr.assoc
            .iter()
            .map(|(o, m)| super::wire::Declaration::UpdateRegions {
                object: *o,
                attrs: m.iter().map(|(a, rs)| (*a, fr.extents(rs))).collect(),
            })
            .collect()
    }

    /// Federate `f`'s DDM state for its save file.
    pub(crate) fn regions_capture(&self, f: FederateHandle) -> SavedRegions {
        SavedRegions {
            federate: self.regions.feds.get(&f).cloned().unwrap_or_default(),
            update_regions: self
                .regions
                .update_regions
                .iter()
                .map(|(o, m)| (*o, m.iter().map(|(a, e)| (*a, e.clone())).collect()))
                .collect(),
        }
    }

    /// Restores federate `f`'s DDM state from its save file (its handle is the saved one, so
    /// its region handles are too).
    pub(crate) fn regions_restore(&mut self, f: FederateHandle, saved: &SavedRegions) {
        if saved.federate != FederateRegions::default() {
            self.regions.feds.insert(f, saved.federate.clone());
        }
        for (o, attrs) in &saved.update_regions {
            let m = self.regions.update_regions.entry(*o).or_default();
            for (a, e) in attrs {
                m.insert(*a, e.clone());
            }
        }
    }

    /// Forgets what this module knows of a removed instance, and returns it (a retracted
    /// timed delete puts it back: [`Self::regions_instance_restored`]).
    pub(crate) fn regions_instance_removed(&mut self, o: ObjectInstanceHandle) -> RemovedRegions {
        RemovedRegions {
            update: self.regions.update_regions.remove(&o),
            announced_at: {
                self.regions.moved_in_cells.retain(|(x, _)| *x != o);
                self.regions.attr_versions.retain(|(x, _), _| *x != o);
                self.regions.versions_applied.retain(|(x, _), _| *x != o);
                self.regions.announced_at.remove(&o)
            },
            assoc: self
                .regions
                .feds
                .iter_mut()
                .filter_map(|(f, fr)| fr.assoc.remove(&o).map(|m| (*f, m)))
                .collect(),
        }
    }

    /// Puts back what [`Self::regions_instance_removed`] took of instance `o`, which a
    /// retraction restored: it returns where it was, not in the default region.
    pub(crate) fn regions_instance_restored(
        &mut self,
        o: ObjectInstanceHandle,
        kept: RemovedRegions,
    ) {
        if let Some(m) = kept.update {
            self.regions.update_regions.insert(o, m);
        }
        if let Some(seq) = kept.announced_at {
            self.regions.announced_at.insert(o, seq);
        }
        for (f, m) in kept.assoc {
            if let Some(fr) = self.regions.feds.get_mut(&f) {
                fr.assoc.insert(o, m);
            }
        }
    }

    /// The regions of federate `f` (for tests and the save).
    pub fn federate_regions(&self, f: FederateHandle) -> Option<&FederateRegions> {
        self.regions.feds.get(&f)
    }

    /// The update regions announced for instance `o` (for tests).
    pub fn update_regions_of(
        &self,
        o: ObjectInstanceHandle,
    ) -> Option<&BTreeMap<AttributeHandle, Vec<Extent>>> {
        self.regions.update_regions.get(&o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::advisory::AdvisorySwitch;
    use crate::core::{Action, Completion, Event};
    use crate::handles::ParameterHandle;

    const FOM: &str = include_str!("../../../../foms/Regions.xml");

    /// One LRC with a publisher and a subscriber federate: the subscriber's filter is the
    /// receiving LRC's, which the local apply of the publisher's stream goes through.
    struct Fed {
        core: FederationCore,
        vehicle: ObjectClassHandle,
        position: AttributeHandle,
        status: AttributeHandle,
        radio: InteractionClassHandle,
        text: ParameterHandle,
        x: DimensionHandle,
        y: DimensionHandle,
        channel: DimensionHandle,
        p: FederateHandle,
        s: FederateHandle,
    }

    /// A callback as the tests compare them.
    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Got {
        Discover(ObjectInstanceHandle),
        Reflect(ObjectInstanceHandle, Vec<AttributeHandle>, u64),
        InScope(ObjectInstanceHandle, Vec<AttributeHandle>),
        OutOfScope(ObjectInstanceHandle, Vec<AttributeHandle>),
        Interaction(u64),
        Provide(ObjectInstanceHandle, Vec<AttributeHandle>),
        /// The publisher's `turnUpdatesOnForObjectInstance`.
        UpdatesOn(ObjectInstanceHandle, Vec<AttributeHandle>),
        /// The publisher's `turnUpdatesOffForObjectInstance`.
        UpdatesOff(ObjectInstanceHandle, Vec<AttributeHandle>),
    }

    fn n(v: u64) -> Vec<u8> {
        v.to_be_bytes().to_vec()
    }

    fn num(v: &[u8]) -> u64 {
        u64::from_be_bytes(v.try_into().unwrap_or([0; 8]))
    }

    impl Fed {
        fn new() -> Fed {
            Fed::over("Regions.xml", FOM)
        }

        /// Over another module with the same classes and dimensions (`Cells.xml`: `Position`
        /// best effort, so it travels on cell groups).
        fn over(name: &str, fom: &str) -> Fed {
            let modules = vec![(name.to_string(), fom.to_string())];
            let mut core = FederationCore::create("F", 1, 0, modules).expect("create");
            let p = Self::join(&mut core, "pub");
            let s = Self::join(&mut core, "sub");
            let fdd = core.fdd_ref().expect("fdd");
            let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
            let radio = fdd.interaction_class_handle("Radio").expect("Radio");
            let mut fed = Fed {
                vehicle,
                position: fdd.attribute_handle(vehicle, "Position").expect("Position"),
                status: fdd.attribute_handle(vehicle, "Status").expect("Status"),
                radio,
                text: fdd.parameter_handle(radio, "Text").expect("Text"),
                x: fdd.dimension_handle("X").expect("X"),
                y: fdd.dimension_handle("Y").expect("Y"),
                channel: fdd.dimension_handle("Channel").expect("Channel"),
                core,
                p,
                s,
            };
            fed.drain();
            fed
        }

        fn join(core: &mut FederationCore, name: &str) -> FederateHandle {
            let t = core.join(Some(name.into()), "t");
            for _ in 0..10 {
                while let Some(a) = core.poll_action() {
                    if let Action::Complete {
                        ticket,
                        result: Ok(Completion::Joined(h)),
                    } = a
                        && ticket == t
                    {
                        return h;
                    }
                }
                core.handle(0, Event::Tick);
            }
            panic!("{name} never joined");
        }

        /// The subscriber's callbacks queued since the last call (the MOM's left out).
        fn drain(&mut self) -> Vec<Got> {
            let mut out = Vec::new();
            while let Some(a) = self.core.poll_action() {
                let Action::Callback { federate, callback } = a else {
                    continue;
                };
                let got = match callback {
                    Callback::DiscoverObjectInstance { object, class, .. }
                        if class == self.vehicle =>
                    {
                        Got::Discover(object)
                    }
                    Callback::ReflectAttributeValues { object, values, .. }
                        if !crate::core::mom::is_mom_instance(object) =>
                    {
                        let v = values.first().map(|(_, v)| num(v)).unwrap_or(0);
                        Got::Reflect(object, values.iter().map(|(a, _)| *a).collect(), v)
                    }
                    Callback::AttributesInScope { object, attrs } => Got::InScope(object, attrs),
                    Callback::AttributesOutOfScope { object, attrs } => {
                        Got::OutOfScope(object, attrs)
                    }
                    Callback::ReceiveInteraction { class, params, .. } if class == self.radio => {
                        Got::Interaction(params.first().map(|(_, v)| num(v)).unwrap_or(0))
                    }
                    Callback::ProvideAttributeValueUpdate { object, attrs, .. }
                        if federate == self.p =>
                    {
                        Got::Provide(object, attrs)
                    }
                    Callback::TurnUpdatesOnForObjectInstance { object, attrs }
                        if federate == self.p =>
                    {
                        Got::UpdatesOn(object, attrs)
                    }
                    Callback::TurnUpdatesOffForObjectInstance { object, attrs }
                        if federate == self.p =>
                    {
                        Got::UpdatesOff(object, attrs)
                    }
                    _ => continue,
                };
                if federate == self.s
                    || matches!(
                        got,
                        Got::Provide(..) | Got::UpdatesOn(..) | Got::UpdatesOff(..)
                    )
                {
                    out.push(got);
                }
            }
            out
        }

        /// A region of `f` over X = [lo, hi), committed.
        fn region_x(&mut self, f: FederateHandle, lo: u64, hi: u64) -> RegionHandle {
            let r = self.core.create_region(f, &[self.x]).expect("create");
            self.move_x(f, r, lo, hi);
            r
        }

        fn move_x(&mut self, f: FederateHandle, r: RegionHandle, lo: u64, hi: u64) {
            self.core
                .set_range_bounds(f, r, self.x, RangeBounds::new(lo, hi))
                .expect("set");
            self.core
                .commit_region_modifications(f, &[r])
                .expect("commit");
        }

        fn update(&mut self, o: ObjectInstanceHandle, v: u64) {
            self.core
                .update_attribute_values(self.p, o, vec![(self.position, n(v))], Vec::new(), None)
                .expect("update");
        }
    }

    fn ext(v: &[(DimensionHandle, u64, u64)]) -> Extent {
        Extent(
            v.iter()
                .map(|(d, l, u)| (*d, RangeBounds::new(*l, *u)))
                .collect(),
        )
    }

    #[test]
    fn overlap_uses_default_ranges_for_unspecified_dimensions() {
        let f = Fed::new();
        let fdd = f.core.fdd_ref().expect("fdd");
        let (x, y, ch) = (f.x, f.y, f.channel);
        // Both specify X: they overlap where the ranges do; half-open.
        assert!(overlap(&fdd, &ext(&[(x, 0, 10)]), &ext(&[(x, 9, 20)])));
        assert!(!overlap(&fdd, &ext(&[(x, 0, 10)]), &ext(&[(x, 10, 20)])));
        // Y (Excluded) unspecified on one side does not constrain.
        assert!(overlap(
            &fdd,
            &ext(&[(x, 0, 10), (y, 5, 6)]),
            &ext(&[(x, 0, 10)])
        ));
        assert!(!overlap(
            &fdd,
            &ext(&[(x, 0, 10), (y, 5, 6)]),
            &ext(&[(x, 0, 10), (y, 6, 7)])
        ));
        // X unspecified takes [0..1000): everything in range overlaps it.
        assert!(overlap(&fdd, &ext(&[(x, 999, 1000)]), &ext(&[(y, 0, 1)])));
        // Channel unspecified takes [0) = [0..1): channel 0 overlaps, channel 3 does not.
        assert!(overlap(&fdd, &ext(&[(ch, 0, 1)]), &ext(&[(x, 0, 1000)])));
        assert!(!overlap(&fdd, &ext(&[(ch, 3, 4)]), &ext(&[(x, 0, 1000)])));
        // Two empty extents (no dimension at all) overlap.
        assert!(overlap(&fdd, &Extent::default(), &Extent::default()));
    }

    #[test]
    fn region_services_and_their_exceptions() {
        use RtiError as E;
        let mut f = Fed::new();
        let (p, s, x, y, ch) = (f.p, f.s, f.x, f.y, f.channel);
        assert!(matches!(
            f.core.create_region(p, &[DimensionHandle(99)]),
            Err(E::InvalidDimensionHandle(_))
        ));
        assert!(matches!(
            f.core.create_region(FederateHandle(77), &[x]),
            Err(E::FederateNotExecutionMember(_))
        ));
        let r = f.core.create_region(p, &[x, ch]).expect("create");
        assert_eq!(r.creator(), p);
        assert_eq!(
            f.core.get_dimension_handle_set(p, r).expect("dims"),
            vec![x, ch]
        );
        // Initial ranges: the defaults ([0..1000), [0)), the full range where Excluded.
        assert_eq!(
            f.core.get_range_bounds(p, r, x).expect("x"),
            RangeBounds::new(0, 1000)
        );
        assert_eq!(
            f.core.get_range_bounds(p, r, ch).expect("ch"),
            RangeBounds::new(0, 1)
        );
        let ry = f.core.create_region(p, &[y]).expect("create");
        assert_eq!(
            f.core.get_range_bounds(p, ry, y).expect("y"),
            RangeBounds::new(0, 1000)
        );
        assert!(matches!(
            f.core.get_range_bounds(p, r, y),
            Err(E::RegionDoesNotContainSpecifiedDimension(_))
        ));
        assert!(matches!(
            f.core.get_range_bounds(p, r, DimensionHandle(99)),
            Err(E::InvalidDimensionHandle(_))
        ));
        for (lo, hi) in [(5, 5), (6, 5), (0, 1001)] {
            assert!(matches!(
                f.core.set_range_bounds(p, r, x, RangeBounds::new(lo, hi)),
                Err(E::InvalidRangeBound(_))
            ));
        }
        assert!(matches!(
            f.core.set_range_bounds(p, r, y, RangeBounds::new(0, 1)),
            Err(E::RegionDoesNotContainSpecifiedDimension(_))
        ));
        // Template until commit.
        f.core
            .set_range_bounds(p, r, x, RangeBounds::new(10, 20))
            .expect("set");
        assert_eq!(
            f.core.get_range_bounds(p, r, x).expect("x"),
            RangeBounds::new(10, 20)
        );
        let committed = |f: &Fed| {
            f.core.federate_regions(p).expect("regions").regions[&r]
                .committed
                .0[&x]
        };
        assert_eq!(committed(&f), RangeBounds::new(0, 1000));
        f.core.commit_region_modifications(p, &[r]).expect("commit");
        assert_eq!(committed(&f), RangeBounds::new(10, 20));
        // Another federate's region; a region that never existed.
        assert!(matches!(
            f.core.get_range_bounds(s, r, x),
            Err(E::RegionNotCreatedByThisFederate(_))
        ));
        assert!(matches!(
            f.core.commit_region_modifications(s, &[r]),
            Err(E::RegionNotCreatedByThisFederate(_))
        ));
        assert!(matches!(
            f.core.delete_region(s, r),
            Err(E::RegionNotCreatedByThisFederate(_))
        ));
        let never = RegionHandle::new(p, 40);
        assert!(matches!(
            f.core.get_dimension_handle_set(p, never),
            Err(E::InvalidRegion(_))
        ));
        // Context: Channel is not a dimension of Vehicle.Position.
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position, f.status])
            .expect("publish");
        let pairs = vec![(vec![f.position], vec![r])];
        assert!(matches!(
            f.core
                .register_object_instance_with_regions(p, f.vehicle, &pairs, None),
            Err(E::InvalidRegionContext(_))
        ));
        assert!(matches!(
            f.core
                .subscribe_object_class_attributes_with_regions(p, f.vehicle, &pairs, true, None),
            Err(E::InvalidRegionContext(_))
        ));
        // Y is not a dimension of Radio; X and Channel are.
        f.core
            .publish_interaction_class(p, f.radio)
            .expect("publish");
        assert!(matches!(
            f.core
                .send_interaction_with_regions(p, f.radio, Vec::new(), &[ry], Vec::new(), None),
            Err(E::InvalidRegionContext(_))
        ));
        f.core
            .send_interaction_with_regions(p, f.radio, Vec::new(), &[r], Vec::new(), None)
            .expect("send");
        // Not published.
        let rx = f.region_x(p, 0, 10);
        let sub_pairs = vec![(vec![f.position], vec![rx])];
        let o = f
            .core
            .register_object_instance_with_regions(p, f.vehicle, &sub_pairs, None)
            .expect("register");
        assert!(matches!(
            f.core.register_object_instance_with_regions(
                s,
                f.vehicle,
                &[(vec![f.position], vec![])],
                None
            ),
            Err(E::AttributeNotPublished(_))
        ));
        // In use: associated for updates; then used in a subscription.
        assert!(matches!(
            f.core.delete_region(p, rx),
            Err(E::RegionInUseForUpdateOrSubscription(_))
        ));
        f.core
            .unassociate_regions_for_updates(p, o, &sub_pairs)
            .expect("unassociate");
        f.core
            .subscribe_object_class_attributes_with_regions(p, f.vehicle, &sub_pairs, true, None)
            .expect("subscribe");
        assert!(matches!(
            f.core.delete_region(p, rx),
            Err(E::RegionInUseForUpdateOrSubscription(_))
        ));
        f.core
            .unsubscribe_object_class_attributes_with_regions(p, f.vehicle, &sub_pairs)
            .expect("unsubscribe");
        f.core.delete_region(p, rx).expect("delete");
        assert!(matches!(
            f.core.get_dimension_handle_set(p, rx),
            Err(E::InvalidRegion(_))
        ));
        assert!(matches!(
            f.core.associate_regions_for_updates(p, o, &sub_pairs),
            Err(E::InvalidRegion(_))
        ));
        // An instance the federate does not know.
        assert!(matches!(
            f.core
                .associate_regions_for_updates(p, ObjectInstanceHandle::new(s, 9), &pairs),
            Err(E::ObjectInstanceNotKnown(_))
        ));
    }

    /// The subscriber sees a moving vehicle only while its update region overlaps the
    /// subscription region: discovery at the first overlap, in and out of scope as it moves,
    /// reflections only inside.
    #[test]
    fn a_moving_vehicle_comes_into_and_goes_out_of_scope() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position, f.status])
            .expect("publish");
        f.core
            .set_advisory_switch(s, AdvisorySwitch::AttributeScope, true)
            .expect("scope on");
        let watch = f.region_x(s, 0, 100);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![f.position], vec![watch])],
                true,
                None,
            )
            .expect("subscribe");
        let at = f.region_x(p, 500, 510);
        let o = f
            .core
            .register_object_instance_with_regions(
                p,
                f.vehicle,
                &[(vec![f.position, f.status], vec![at])],
                None,
            )
            .expect("register");
        assert_eq!(f.drain(), vec![], "registered far away: not discovered");
        f.update(o, 1);
        assert_eq!(f.drain(), vec![], "far away: not reflected");
        // Moves into the subscription region: discovered, in scope, then reflected.
        f.move_x(p, at, 95, 105);
        assert_eq!(
            f.drain(),
            vec![Got::Discover(o), Got::InScope(o, vec![f.position])]
        );
        f.update(o, 2);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![f.position], 2)]);
        // A template change alone does nothing until committed.
        f.core
            .set_range_bounds(p, at, f.x, RangeBounds::new(300, 310))
            .expect("set");
        f.update(o, 3);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![f.position], 3)]);
        f.core
            .commit_region_modifications(p, &[at])
            .expect("commit");
        assert_eq!(f.drain(), vec![Got::OutOfScope(o, vec![f.position])]);
        f.update(o, 4);
        assert_eq!(f.drain(), vec![], "out of scope: not reflected");
        // Back in: in scope again (no second discovery), reflected.
        f.move_x(p, at, 0, 10);
        assert_eq!(f.drain(), vec![Got::InScope(o, vec![f.position])]);
        f.update(o, 5);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![f.position], 5)]);
        // The subscriber's region moves away: out of scope.
        f.move_x(s, watch, 600, 700);
        assert_eq!(f.drain(), vec![Got::OutOfScope(o, vec![f.position])]);
        f.update(o, 6);
        assert_eq!(f.drain(), vec![]);
        // Unassociated: the default region overlaps everything.
        f.core
            .unassociate_regions_for_updates(p, o, &[(vec![f.position], vec![at])])
            .expect("unassociate");
        assert_eq!(f.drain(), vec![Got::InScope(o, vec![f.position])]);
        f.update(o, 7);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![f.position], 7)]);
        // Associated again, far away; a subscription without regions overlaps everything.
        f.core
            .associate_regions_for_updates(p, o, &[(vec![f.position], vec![at])])
            .expect("associate");
        assert_eq!(f.drain(), vec![Got::OutOfScope(o, vec![f.position])]);
        f.core
            .subscribe_object_class_attributes(s, f.vehicle, &[f.position], true)
            .expect("subscribe");
        assert_eq!(f.drain(), vec![Got::InScope(o, vec![f.position])]);
        f.update(o, 8);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![f.position], 8)]);
        // Without it again (5.7 leaves the region subscription): out of scope.
        f.core
            .unsubscribe_object_class_attributes(s, f.vehicle, None)
            .expect("unsubscribe");
        assert_eq!(f.drain(), vec![Got::OutOfScope(o, vec![f.position])]);
        f.update(o, 9);
        assert_eq!(f.drain(), vec![]);
    }

    /// The owner's updates of an instance attribute are turned on while another federate's
    /// active subscription region overlaps one of its update regions (or either side is the
    /// default region) and off when no overlap remains: either region moved and committed,
    /// the subscription changed, the association changed.
    #[test]
    fn relevance_advisories_follow_region_overlap() {
        let mut f = Fed::new();
        let (p, s, pos) = (f.p, f.s, f.position);
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[pos, f.status])
            .expect("publish");
        f.core
            .set_advisory_switch(p, AdvisorySwitch::AttributeRelevance, true)
            .expect("relevance on");
        let watch = f.region_x(s, 0, 100);
        let sub = |f: &mut Fed, active: bool| {
            f.core
                .subscribe_object_class_attributes_with_regions(
                    s,
                    f.vehicle,
                    &[(vec![pos], vec![watch])],
                    active,
                    None,
                )
                .expect("subscribe");
        };
        sub(&mut f, true);
        let at = f.region_x(p, 500, 510);
        let o = f
            .core
            .register_object_instance_with_regions(
                p,
                f.vehicle,
                &[(vec![pos, f.status], vec![at])],
                None,
            )
            .expect("register");
        assert_eq!(f.drain(), vec![], "far away: not relevant");
        // The update region moves over the subscription region.
        f.move_x(p, at, 95, 105);
        assert_eq!(
            f.drain(),
            vec![Got::Discover(o), Got::UpdatesOn(o, vec![pos])]
        );
        // A template change alone changes nothing; its commit does.
        f.core
            .set_range_bounds(p, at, f.x, RangeBounds::new(300, 310))
            .expect("set");
        assert_eq!(f.drain(), vec![]);
        f.core
            .commit_region_modifications(p, &[at])
            .expect("commit");
        assert_eq!(f.drain(), vec![Got::UpdatesOff(o, vec![pos])]);
        // The subscription region moves over the update region, then away.
        f.move_x(s, watch, 250, 350);
        assert_eq!(f.drain(), vec![Got::UpdatesOn(o, vec![pos])]);
        f.move_x(s, watch, 0, 100);
        assert_eq!(f.drain(), vec![Got::UpdatesOff(o, vec![pos])]);
        f.move_x(s, watch, 250, 350);
        assert_eq!(f.drain(), vec![Got::UpdatesOn(o, vec![pos])]);
        // Unsubscribed with regions: off.
        f.core
            .unsubscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![pos], vec![watch])],
            )
            .expect("unsubscribe");
        assert_eq!(f.drain(), vec![Got::UpdatesOff(o, vec![pos])]);
        // A passive region subscription is not relevant; an active one without regions (the
        // default region) is, whatever the update region; 5.7 leaves the passive part only.
        sub(&mut f, false);
        assert_eq!(f.drain(), vec![]);
        f.core
            .subscribe_object_class_attributes(s, f.vehicle, &[pos], true)
            .expect("subscribe");
        assert_eq!(f.drain(), vec![Got::UpdatesOn(o, vec![pos])]);
        f.core
            .unsubscribe_object_class_attributes(s, f.vehicle, None)
            .expect("unsubscribe");
        assert_eq!(f.drain(), vec![Got::UpdatesOff(o, vec![pos])]);
        // Active again (watch at [250, 350) overlaps at [300, 310)).
        sub(&mut f, true);
        assert_eq!(f.drain(), vec![Got::UpdatesOn(o, vec![pos])]);
        // Unassociated: the default region overlaps everything, still on; associated far
        // away: off.
        f.core
            .unassociate_regions_for_updates(p, o, &[(vec![pos], vec![at])])
            .expect("unassociate");
        assert_eq!(f.drain(), vec![]);
        let far = f.region_x(p, 900, 901);
        f.core
            .associate_regions_for_updates(p, o, &[(vec![pos], vec![far])])
            .expect("associate");
        assert_eq!(f.drain(), vec![Got::UpdatesOff(o, vec![pos])]);
        // A second update region that overlaps: on.
        f.core
            .associate_regions_for_updates(p, o, &[(vec![pos], vec![at])])
            .expect("associate");
        assert_eq!(f.drain(), vec![Got::UpdatesOn(o, vec![pos])]);
    }

    /// An instance registered without regions is in the default region: a region subscriber
    /// discovers it at once.
    #[test]
    fn the_default_region_overlaps_every_subscription() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position])
            .expect("publish");
        let watch = f.region_x(s, 0, 1);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![f.position], vec![watch])],
                false,
                None,
            )
            .expect("subscribe");
        let o = f
            .core
            .register_object_instance(p, f.vehicle, None)
            .expect("register");
        f.update(o, 1);
        assert_eq!(
            f.drain(),
            vec![Got::Discover(o), Got::Reflect(o, vec![f.position], 1)]
        );
    }

    #[test]
    fn interactions_reach_only_overlapping_subscribers() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        f.core
            .publish_interaction_class(p, f.radio)
            .expect("publish");
        let ear = f.region_x(s, 0, 100);
        f.core
            .subscribe_interaction_class_with_regions(s, f.radio, &[ear], true)
            .expect("subscribe");
        let near = f.region_x(p, 50, 60);
        let far = f.region_x(p, 200, 300);
        let send = |f: &mut Fed, rs: &[RegionHandle], v: u64| {
            f.core
                .send_interaction_with_regions(
                    p,
                    f.radio,
                    vec![(f.text, n(v))],
                    rs,
                    Vec::new(),
                    None,
                )
                .expect("send");
        };
        send(&mut f, &[far], 1);
        send(&mut f, &[near], 2);
        send(&mut f, &[far, near], 3);
        f.core
            .send_interaction(p, f.radio, vec![(f.text, n(4))], Vec::new(), None)
            .expect("send");
        // Channel 3 does not overlap the subscriber's default channel 0.
        let ch3 = f.core.create_region(p, &[f.channel]).expect("create");
        f.core
            .set_range_bounds(p, ch3, f.channel, RangeBounds::new(3, 4))
            .expect("set");
        f.core
            .commit_region_modifications(p, &[ch3])
            .expect("commit");
        send(&mut f, &[ch3], 5);
        assert_eq!(
            f.drain(),
            vec![
                Got::Interaction(2),
                Got::Interaction(3),
                Got::Interaction(4)
            ]
        );
        // Unsubscribed from the region: nothing; subscribed without regions: everything.
        f.core
            .unsubscribe_interaction_class_with_regions(s, f.radio, &[ear])
            .expect("unsubscribe");
        send(&mut f, &[near], 6);
        assert_eq!(f.drain(), vec![]);
        f.core
            .subscribe_interaction_class(s, f.radio, true)
            .expect("subscribe");
        f.core
            .subscribe_interaction_class_with_regions(s, f.radio, &[ear], true)
            .expect("subscribe");
        send(&mut f, &[far], 7);
        assert_eq!(f.drain(), vec![Got::Interaction(7)]);
        // 5.9 leaves the region subscription.
        f.core
            .unsubscribe_interaction_class(s, f.radio)
            .expect("unsubscribe");
        send(&mut f, &[far], 8);
        send(&mut f, &[near], 9);
        assert_eq!(f.drain(), vec![Got::Interaction(9)]);
    }

    #[test]
    fn value_update_requests_with_regions_reach_owners_of_overlapping_instances() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position, f.status])
            .expect("publish");
        let a = f.region_x(p, 0, 10);
        let b = f.region_x(p, 500, 510);
        let pos = f.position;
        let oa = f
            .core
            .register_object_instance_with_regions(p, f.vehicle, &[(vec![pos], vec![a])], None)
            .expect("register");
        let ob = f
            .core
            .register_object_instance_with_regions(p, f.vehicle, &[(vec![pos], vec![b])], None)
            .expect("register");
        f.drain();
        let q = f.region_x(s, 5, 6);
        f.core
            .request_attribute_value_update_with_regions(
                s,
                f.vehicle,
                &[(vec![pos], vec![q])],
                Vec::new(),
            )
            .expect("request");
        // oa overlaps; ob does not; neither's Status has regions (default: overlaps).
        assert_eq!(f.drain(), vec![Got::Provide(oa, vec![pos])]);
        f.core
            .request_attribute_value_update_with_regions(
                s,
                f.vehicle,
                &[(vec![f.status], vec![q])],
                Vec::new(),
            )
            .expect("request");
        assert_eq!(
            f.drain(),
            vec![
                Got::Provide(oa, vec![f.status]),
                Got::Provide(ob, vec![f.status])
            ]
        );
    }

    /// A deleted instance takes its update regions with it.
    #[test]
    fn deletion_forgets_update_regions() {
        let mut f = Fed::new();
        let p = f.p;
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position])
            .expect("publish");
        let a = f.region_x(p, 0, 10);
        let pos = f.position;
        let o = f
            .core
            .register_object_instance_with_regions(p, f.vehicle, &[(vec![pos], vec![a])], None)
            .expect("register");
        assert!(f.core.update_regions_of(o).is_some());
        f.core
            .delete_object_instance(p, o, Vec::new(), None)
            .expect("delete");
        assert!(f.core.update_regions_of(o).is_none());
        f.core.delete_region(p, a).expect("no longer in use");
    }

    /// A save keeps the regions, associations, region subscriptions and the update regions;
    /// a restore brings them back, so what was in scope at the save is again.
    #[test]
    fn save_and_restore_carry_regions() {
        use crate::core::save::{SaveReport, SavedFederateState};
        // Position best effort: only such attributes join cell groups (`super::cell_route`).
        let mut f = Fed::over("Cells.xml", include_str!("../../../../foms/Cells.xml"));
        let (p, s) = (f.p, f.s);
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position])
            .expect("publish");
        let watch = f.region_x(s, 0, 100);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![f.position], vec![watch])],
                true,
                None,
            )
            .expect("subscribe");
        let at = f.region_x(p, 95, 105);
        let o = f
            .core
            .register_object_instance_with_regions(
                p,
                f.vehicle,
                &[(vec![f.position], vec![at])],
                None,
            )
            .expect("register");
        assert_eq!(f.drain(), vec![Got::Discover(o)]);
        f.core.refresh_cells();
        let cells_at_save = f.core.wanted_cells().to_vec();
        assert!(!cells_at_save.is_empty());

        // Save both federates, through the save file's encoding.
        f.core.request_federation_save(p, "s", None).expect("save");
        for h in [p, s] {
            f.core
                .report_federate_save(h, SaveReport::Begun)
                .expect("begun");
            f.core
                .report_federate_save(h, SaveReport::Complete)
                .expect("complete");
        }
        let mut states: BTreeMap<FederateHandle, SavedFederateState> = BTreeMap::new();
        while let Some(a) = f.core.poll_action() {
            if let Action::WriteSave { federate, state } = a {
                let bytes = postcard::to_allocvec(&*state).expect("encodes");
                states.insert(federate, postcard::from_bytes(&bytes).expect("decodes"));
            }
        }
        for h in [p, s] {
            f.core.save_written(h, true);
        }
        f.drain();
        assert_eq!(states.len(), 2);
        assert_eq!(
            states[&p].regions.federate.regions[&at].committed.0[&f.x],
            RangeBounds::new(95, 105)
        );
        assert!(
            states[&s]
                .regions
                .federate
                .object_subs
                .contains_key(&f.vehicle)
        );
        assert_eq!(states[&s].regions.update_regions.len(), 1);

        // Everything moves away, then the federation is restored.
        f.move_x(p, at, 300, 310);
        f.move_x(s, watch, 600, 700);
        f.update(o, 1);
        assert_eq!(f.drain(), vec![]);
        f.core.refresh_cells();
        assert_ne!(
            f.core.wanted_cells(),
            cells_at_save,
            "s's region moved cells"
        );
        let membership = states[&p].membership.clone();
        f.core
            .request_federation_restore(p, "s", Ok(membership))
            .expect("restore");
        for _ in 0..8 {
            let mut progressed = false;
            while let Some(a) = f.core.poll_action() {
                match a {
                    Action::LoadRestore { federate, .. } => {
                        let st = states.get(&federate).cloned().expect("a saved state");
                        f.core.restore_loaded(federate, Ok(st));
                        progressed = true;
                    }
                    Action::Callback {
                        federate,
                        callback: Callback::InitiateFederateRestore { .. },
                    } => {
                        f.core
                            .report_federate_restore(federate, true)
                            .expect("restored");
                        progressed = true;
                    }
                    _ => {}
                }
            }
            if !progressed {
                break;
            }
        }
        let fr = f.core.federate_regions(p).expect("p's regions");
        assert_eq!(fr.regions[&at].committed.0[&f.x], RangeBounds::new(95, 105));
        assert!(fr.assoc.contains_key(&o));
        let fs = f.core.federate_regions(s).expect("s's regions");
        assert_eq!(
            fs.regions[&watch].committed.0[&f.x],
            RangeBounds::new(0, 100)
        );
        assert!(f.core.update_regions_of(o).is_some());
        // The restore recomputed the cells this LRC joins from the restored subscription.
        assert_eq!(f.core.wanted_cells(), cells_at_save);
        // Overlapping again, as at the save.
        f.update(o, 2);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![f.position], 2)]);
        // And the regions work on: p moves away.
        f.move_x(p, at, 300, 310);
        f.update(o, 3);
        assert_eq!(f.drain(), vec![]);
    }

    /// The instance's update regions stay with it when its attribute changes hands: the new
    /// owner's updates are filtered by them until it associates regions of its own.
    #[test]
    fn ownership_transfer_keeps_the_instance_regions() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        let q = Fed::join(&mut f.core, "q");
        let pos = f.position;
        for h in [p, q] {
            f.core
                .publish_object_class_attributes(h, f.vehicle, &[pos])
                .expect("publish");
        }
        f.core
            .subscribe_object_class_attributes(q, f.vehicle, &[pos], true)
            .expect("subscribe");
        let watch = f.region_x(s, 0, 100);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![pos], vec![watch])],
                true,
                None,
            )
            .expect("subscribe");
        let at = f.region_x(p, 95, 105);
        let o = f
            .core
            .register_object_instance_with_regions(p, f.vehicle, &[(vec![pos], vec![at])], None)
            .expect("register");
        assert_eq!(f.drain(), vec![Got::Discover(o)]);
        f.core
            .unconditional_attribute_ownership_divestiture(p, o, &[pos])
            .expect("divest");
        f.core
            .attribute_ownership_acquisition_if_available(q, o, &[pos])
            .expect("acquire");
        for _ in 0..10 {
            if f.core
                .is_attribute_owned_by_federate(q, o, pos)
                .unwrap_or(false)
            {
                break;
            }
            f.core.handle(0, Event::Tick);
            f.drain();
        }
        assert!(
            f.core
                .is_attribute_owned_by_federate(q, o, pos)
                .expect("query")
        );
        f.drain();
        let update = |f: &mut Fed, v: u64| {
            f.core
                .update_attribute_values(q, o, vec![(pos, n(v))], Vec::new(), None)
                .expect("update");
        };
        update(&mut f, 1);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![pos], 1)]);
        // The new owner's own region replaces them.
        let far = f.region_x(q, 500, 510);
        f.core
            .associate_regions_for_updates(q, o, &[(vec![pos], vec![far])])
            .expect("associate");
        update(&mut f, 2);
        assert_eq!(f.drain(), vec![]);
    }

    #[test]
    fn update_regions_are_the_owners_not_an_ex_owners_or_a_non_owners() {
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        let q = Fed::join(&mut f.core, "q");
        let pos = f.position;
        for h in [p, q] {
            f.core
                .publish_object_class_attributes(h, f.vehicle, &[pos])
                .expect("publish");
        }
        f.core
            .subscribe_object_class_attributes(q, f.vehicle, &[pos], true)
            .expect("subscribe");
        let watch = f.region_x(s, 0, 100);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![pos], vec![watch])],
                true,
                None,
            )
            .expect("subscribe");
        let at = f.region_x(p, 95, 105);
        let o = f
            .core
            .register_object_instance_with_regions(p, f.vehicle, &[(vec![pos], vec![at])], None)
            .expect("register");
        assert_eq!(f.drain(), vec![Got::Discover(o)]);
        // Q, not the owner, associates a far region: P's updates still go where P's region is.
        let qr = f.region_x(q, 500, 510);
        f.core
            .associate_regions_for_updates(q, o, &[(vec![pos], vec![qr])])
            .expect("associate");
        f.update(o, 1);
        assert_eq!(f.drain(), vec![Got::Reflect(o, vec![pos], 1)], "P's region");
        // Q acquires: its own association becomes the instance's, before its first update.
        f.core
            .unconditional_attribute_ownership_divestiture(p, o, &[pos])
            .expect("divest");
        f.core
            .attribute_ownership_acquisition_if_available(q, o, &[pos])
            .expect("acquire");
        for _ in 0..10 {
            if f.core
                .is_attribute_owned_by_federate(q, o, pos)
                .unwrap_or(false)
            {
                break;
            }
            f.core.handle(0, Event::Tick);
        }
        f.drain();
        let update = |f: &mut Fed, v: u64| {
            f.core
                .update_attribute_values(q, o, vec![(pos, n(v))], Vec::new(), None)
                .expect("update");
        };
        update(&mut f, 2);
        assert_eq!(f.drain(), vec![], "Q's region is far away");
        // The ex-owner's commit of its old region does not move the instance.
        f.move_x(p, at, 10, 20);
        update(&mut f, 3);
        assert_eq!(f.drain(), vec![], "still Q's region");
        // The owner's does.
        f.move_x(q, qr, 50, 60);
        update(&mut f, 4);
        assert_eq!(
            f.drain(),
            vec![Got::Reflect(o, vec![pos], 4)],
            "Q's region moved in"
        );
    }

    #[test]
    fn a_retracted_delete_puts_the_instance_back_in_its_regions() {
        use hlamesh_timesync::{DynInterval, DynTime, LogicalTime};
        let mut f = Fed::new();
        let (p, s) = (f.p, f.s);
        let t = |v: f64| DynTime::new(v).map(|t| t.encode().to_vec());
        f.core
            .time_service(p, |m| {
                m.enable_time_regulation(DynInterval::new(1.0).expect("interval"))
            })
            .expect("regulate");
        f.core
            .publish_object_class_attributes(p, f.vehicle, &[f.position])
            .expect("publish");
        let watch = f.region_x(s, 0, 100);
        f.core
            .subscribe_object_class_attributes_with_regions(
                s,
                f.vehicle,
                &[(vec![f.position], vec![watch])],
                true,
                None,
            )
            .expect("subscribe");
        let at = f.region_x(p, 500, 510);
        let o = f
            .core
            .register_object_instance_with_regions(
                p,
                f.vehicle,
                &[(vec![f.position], vec![at])],
                None,
            )
            .expect("register");
        f.drain();
        let regions = f.core.update_regions_of(o).cloned();
        assert!(regions.is_some());
        let h = f
            .core
            .delete_object_instance(p, o, Vec::new(), t(10.0))
            .expect("delete")
            .expect("a retraction handle");
        assert!(f.core.update_regions_of(o).is_none(), "deleted: forgotten");
        f.core.retract(p, h).expect("retract");
        assert_eq!(
            f.core.update_regions_of(o).cloned(),
            regions,
            "back where it was, not in the default region"
        );
        // Far away still: S neither discovers nor reflects it.
        f.update(o, 1);
        assert_eq!(f.drain(), vec![]);
        // P's association came back too: its commit moves the instance into S's region.
        f.move_x(p, at, 50, 60);
        f.update(o, 2);
        assert_eq!(
            f.drain(),
            vec![Got::Discover(o), Got::Reflect(o, vec![f.position], 2)]
        );
    }

    /// The first value of each reflection of `o` among `got`, in order.
    fn reflections_of(got: &[Callback], o: ObjectInstanceHandle) -> Vec<u64> {
        got.iter()
            .filter_map(|cb| match cb {
                Callback::ReflectAttributeValues { object, values, .. } if *object == o => {
                    values.first().map(|(_, v)| num(v))
                }
                _ => None,
            })
            .collect()
    }

    /// Two LRCs for the state-transfer test: `a` runs the publisher, `b` joins late; data and
    /// control go straight across, except the snapshots `b` gets, which wait in `snapshots`.
    struct Pair {
        a: FederationCore,
        b: FederationCore,
        /// Callbacks of `b`'s federates.
        got: Vec<Callback>,
        snapshots: Vec<super::super::wire::ControlMsg>,
        /// `a`'s last reliable sequence number.
        a_seq: u64,
        /// `b` listens to `a`'s data (from `ChannelPeer` on).
        listening: bool,
        done: Vec<(crate::core::Ticket, Completion)>,
    }

    impl Pair {
        /// `a`, with a joining LRC `b` (node 2) beside it that does not listen yet.
        fn new(a: FederationCore) -> Pair {
            Pair {
                a,
                b: FederationCore::joining("F", 2, 0, vec![1]),
                got: Vec::new(),
                snapshots: Vec::new(),
                a_seq: 0,
                listening: false,
                done: Vec::new(),
            }
        }

        /// A federate joins at `b` (its join runs until answered, at most 20 rounds): the
        /// join's ticket.
        fn join_late(&mut self) -> crate::core::Ticket {
            let t = self.b.join(Some("late".into()), "t");
            for _ in 0..20 {
                self.run();
                self.a.handle(0, Event::Tick);
                self.b.handle(0, Event::Tick);
                if self.done.iter().any(|(d, _)| *d == t) {
                    break;
                }
            }
            t
        }

        /// A federate joins at `b` and, before the snapshot comes, subscribes to `position`
        /// with a region at X [0, 20); then the snapshot is served.
        fn join_late_subscribed_near(
            &mut self,
            vehicle: ObjectClassHandle,
            position: AttributeHandle,
            x: DimensionHandle,
        ) {
            let t = self.join_late();
            let Some((_, Completion::Joined(s))) = self.done.iter().find(|(d, _)| *d == t).cloned()
            else {
                panic!("the late federate never joined: {:?}", self.done);
            };
            let near = self.b.create_region(s, &[x]).expect("create");
            self.b
                .set_range_bounds(s, near, x, RangeBounds::new(0, 20))
                .expect("set");
            self.b
                .commit_region_modifications(s, &[near])
                .expect("commit");
            self.b
                .subscribe_object_class_attributes_with_regions(
                    s,
                    vehicle,
                    &[(vec![position], vec![near])],
                    true,
                    None,
                )
                .expect("subscribe");
            self.run();
            assert!(!self.snapshots.is_empty(), "a snapshot was asked for");
            for msg in std::mem::take(&mut self.snapshots) {
                self.b.handle(0, Event::Control { from: 1, msg });
            }
            self.run();
        }

        /// `b` hears `a`'s stream from here on, and the two are channel peers.
        fn listen(&mut self) {
            self.listening = true;
            let first_seq = self.a_seq + 1;
            self.b.handle(0, Event::ChannelPeer { node: 1, first_seq });
            self.a.handle(
                0,
                Event::ChannelPeer {
                    node: 2,
                    first_seq: 1,
                },
            );
        }

        /// The first value of each reflection of `o` at `b`, in order.
        fn reflected(&self, o: ObjectInstanceHandle) -> Vec<u64> {
            reflections_of(&self.got, o)
        }

        fn run(&mut self) {
            use super::super::wire::{ControlMsg, Envelope};
            for _ in 0..100 {
                let mut moved = false;
                while let Some(x) = self.a.poll_action() {
                    match x {
                        // The pair has no groups: a cell message reaches `b` like any other.
                        Action::SendData { seq, bytes, .. }
                        | Action::SendToCells { seq, bytes, .. } => {
                            self.a_seq = seq.unwrap_or(self.a_seq);
                            if self.listening {
                                self.b.handle(
                                    0,
                                    Event::Data {
                                        from: 1,
                                        seq,
                                        payload: &bytes,
                                    },
                                );
                            }
                        }
                        Action::SendTime { seq, bytes } => {
                            self.a_seq = seq;
                            if self.listening {
                                let seq = Some(seq);
                                self.b.handle(
                                    0,
                                    Event::Data {
                                        from: 1,
                                        seq,
                                        payload: &bytes,
                                    },
                                );
                            }
                        }
                        Action::SendControl { to: 2, bytes, .. } => {
                            let msg = Envelope::decode(&bytes).expect("control").msg;
                            if matches!(msg, ControlMsg::Snapshot { .. }) {
                                self.snapshots.push(msg);
                            } else {
                                self.b.handle(0, Event::Control { from: 1, msg });
                            }
                        }
                        _ => {}
                    }
                    moved = true;
                }
                while let Some(x) = self.b.poll_action() {
                    match x {
                        Action::SendControl { to: 1, bytes, .. } => {
                            let msg = Envelope::decode(&bytes).expect("control").msg;
                            self.a.handle(0, Event::Control { from: 2, msg });
                        }
                        Action::Callback { callback, .. } => self.got.push(callback),
                        Action::Complete {
                            ticket,
                            result: Ok(c),
                        } => self.done.push((ticket, c)),
                        _ => {}
                    }
                    moved = true;
                }
                if !moved {
                    return;
                }
            }
        }
    }

    /// Positions the transport passed over (they went to DDM cells this LRC did not join) count
    /// as applied data of their sender: at once while its stream is live, and once its held data
    /// is applied while it waits for a snapshot (then the snapshot's own coverage does not
    /// hide a skip beyond it).
    #[test]
    fn positions_passed_over_count_as_applied_live_or_after_the_held_data() {
        let mut f = Fed::new();
        let (p, position, vehicle) = (f.p, f.position, f.vehicle);
        f.core
            .publish_object_class_attributes(p, vehicle, &[position])
            .expect("publish");
        let mut pair = Pair::new(f.core);
        pair.run();
        pair.listen();
        let t = pair.join_late();
        assert!(pair.done.iter().any(|(d, _)| *d == t), "joined");
        // Held for the snapshot: the skip waits.
        let held_skip = pair.a_seq + 7;
        pair.b.handle(
            0,
            Event::Skipped {
                from: 1,
                through: held_skip,
            },
        );
        assert!(
            pair.b.applied_upto(1) < held_skip,
            "held behind the snapshot"
        );
        pair.run();
        assert!(!pair.snapshots.is_empty(), "a snapshot was asked for");
        for msg in std::mem::take(&mut pair.snapshots) {
            pair.b.handle(0, Event::Control { from: 1, msg });
        }
        pair.run();
        assert_eq!(
            pair.b.applied_upto(1),
            held_skip,
            "counted after the held data"
        );
        // Live: at once.
        pair.b.handle(
            0,
            Event::Skipped {
                from: 1,
                through: held_skip + 5,
            },
        );
        assert_eq!(pair.b.applied_upto(1), held_skip + 5);
    }

    /// Unified simulator, region mode, seeds 71 and 92: an LRC joining late holds the data of
    /// a member's stream from when it began listening, and after the snapshot replays the held
    /// updates. It judged them against the update regions of the snapshot (the latest), so its
    /// federate reflected an update sent in a region far from its subscription region; a held
    /// update is judged against the regions it was sent in, and where those are from before
    /// the held data it is not reflected in regions.
    #[test]
    fn held_updates_are_judged_against_the_regions_they_were_sent_in() {
        let mut f = Fed::new();
        let (p, x, position, vehicle) = (f.p, f.x, f.position, f.vehicle);
        f.core
            .publish_object_class_attributes(p, vehicle, &[position])
            .expect("publish");
        let far = f.region_x(p, 500, 510);
        let o = f
            .core
            .register_object_instance_with_regions(p, vehicle, &[(vec![position], vec![far])], None)
            .expect("register");
        let mut pair = Pair::new(f.core);
        pair.run();
        // `b` listens from here on: the region's announcement came before.
        pair.listen();
        let update = |c: &mut FederationCore, v: u64| {
            c.update_attribute_values(p, o, vec![(position, n(v))], Vec::new(), None)
                .expect("update");
        };
        update(&mut pair.a, 1); // at X [500, 510)
        pair.a
            .set_range_bounds(p, far, x, RangeBounds::new(0, 10))
            .expect("set");
        pair.a
            .commit_region_modifications(p, &[far])
            .expect("commit");
        update(&mut pair.a, 2); // at X [0, 10)
        pair.run();
        // It subscribes with a region around X [0, 10) before the snapshot comes.
        pair.join_late_subscribed_near(vehicle, position, x);
        let reflected = pair.reflected(o);
        assert_eq!(reflected, vec![2], "only the update sent at X [0, 10)");

        // Unified simulator, region mode, seed 1860: `b` falls behind and loses the
        // announcement that put the instance back in the default region (the region had moved
        // away from the subscriber's first); the snapshot lists no update region for it, and
        // `b` kept the stale one, filtering every later update out.
        pair.a
            .set_range_bounds(p, far, x, RangeBounds::new(500, 510))
            .expect("set");
        pair.a
            .commit_region_modifications(p, &[far])
            .expect("commit");
        pair.run();
        pair.listening = false;
        pair.a
            .unassociate_regions_for_updates(p, o, &[(vec![position], vec![far])])
            .expect("unassociate");
        pair.run();
        pair.listening = true;
        let last = pair.a_seq;
        pair.b.handle(0, Event::FellBehind { from: 1, last });
        for _ in 0..5 {
            pair.run();
            pair.b.handle(0, Event::Tick);
        }
        assert!(!pair.snapshots.is_empty(), "a snapshot was asked for again");
        for msg in std::mem::take(&mut pair.snapshots) {
            pair.b.handle(0, Event::Control { from: 1, msg });
        }
        pair.run();
        pair.got.clear();
        update(&mut pair.a, 3); // in the default region
        pair.run();
        let reflected = pair.reflected(o);
        assert_eq!(
            reflected,
            vec![3],
            "the default region overlaps every region"
        );
    }

    /// Unified simulator, cell groups with interactions, seeds 1043, 1057, 1747 and 1892: a
    /// joining LRC held an update sent without regions (in those of the registration), then
    /// passed over the instance's move within its cells (sent to cells it had not joined), and
    /// judged the held update against the snapshot's regions (the move's), so its federate
    /// reflected a value sent far from its subscription region. A held update without regions
    /// that a passed-over position follows is not reflected in regions; one after the last
    /// passed-over position is.
    #[test]
    fn a_held_update_followed_by_a_passed_over_move_is_not_judged_by_the_snapshots_regions() {
        let mut f = Fed::new();
        let (p, x, position, vehicle) = (f.p, f.x, f.position, f.vehicle);
        f.core
            .publish_object_class_attributes(p, vehicle, &[position])
            .expect("publish");
        let far = f.region_x(p, 500, 510);
        let close = f.region_x(p, 12, 14);
        let register = |c: &mut FederationCore, r: RegionHandle| {
            c.register_object_instance_with_regions(p, vehicle, &[(vec![position], vec![r])], None)
                .expect("register")
        };
        let o = register(&mut f.core, far);
        let still = register(&mut f.core, close);
        let mut pair = Pair::new(f.core);
        pair.run();
        pair.listen();
        let update = |c: &mut FederationCore, o: ObjectInstanceHandle, v: u64| {
            c.update_attribute_values(p, o, vec![(position, n(v))], Vec::new(), None)
                .expect("update");
        };
        update(&mut pair.a, o, 1); // at X [500, 510), held
        pair.run();
        // The move to X [0, 10) goes to the cells `far` leaves and enters, which `b` has not
        // joined: it passes over that position.
        pair.listening = false;
        pair.a
            .set_range_bounds(p, far, x, RangeBounds::new(0, 10))
            .expect("set");
        pair.a
            .commit_region_modifications(p, &[far])
            .expect("commit");
        pair.run();
        assert!(
            pair.a.ddm_moves_in_cells() > 0,
            "the move went to its cells"
        );
        pair.b.handle(
            0,
            Event::Skipped {
                from: 1,
                through: pair.a_seq,
            },
        );
        pair.listening = true;
        update(&mut pair.a, still, 1); // at X [12, 14), held, after the passed-over move
        pair.run();
        pair.join_late_subscribed_near(vehicle, position, x);
        assert_eq!(pair.reflected(o), Vec::<u64>::new(), "sent at X [500, 510)");
        assert_eq!(pair.reflected(still), vec![1], "after the passed-over move");
        update(&mut pair.a, o, 2); // at X [0, 10): carries its regions
        pair.run();
        assert_eq!(pair.reflected(o), vec![2]);
    }

    /// Unified simulator, joiner sweep, seeds 5342 and 6245: a joining LRC held a member's
    /// stream, then their connection dropped (a partition) and came up again with the stream
    /// restarted far ahead. The snapshot replayed the held updates from before the gap, so the
    /// federate reflected the first value and then, live, the twelfth. Held data that stops
    /// short of the restart is forgotten: the snapshot covers it, and what is reflected moves
    /// on from the latest value only.
    #[test]
    fn a_held_stream_restarted_past_a_gap_replays_only_what_follows_it() {
        let mut f = Fed::new();
        let (p, position, vehicle) = (f.p, f.position, f.vehicle);
        f.core
            .publish_object_class_attributes(p, vehicle, &[position])
            .expect("publish");
        let o = f
            .core
            .register_object_instance(p, vehicle, None)
            .expect("register");
        let mut pair = Pair::new(f.core);
        pair.run();
        pair.listen();
        let update = |c: &mut FederationCore, v: u64| {
            c.update_attribute_values(p, o, vec![(position, n(v))], Vec::new(), None)
                .expect("update");
        };
        update(&mut pair.a, 1);
        pair.run();
        // The connection drops: `b` hears nothing of 2..=11.
        pair.listening = false;
        for v in 2..=11 {
            update(&mut pair.a, v);
        }
        pair.run();
        // It comes up again: the stream restarts after 11.
        pair.listen();
        let t = pair.join_late();
        let Some((_, Completion::Joined(s))) = pair.done.iter().find(|(d, _)| *d == t).cloned()
        else {
            panic!("the late federate never joined: {:?}", pair.done);
        };
        pair.b
            .subscribe_object_class_attributes(s, vehicle, &[position], true)
            .expect("subscribe");
        pair.run();
        assert!(!pair.snapshots.is_empty(), "a snapshot was asked for");
        for msg in std::mem::take(&mut pair.snapshots) {
            pair.b.handle(0, Event::Control { from: 1, msg });
        }
        update(&mut pair.a, 12);
        pair.run();
        assert_eq!(
            pair.reflected(o),
            vec![12],
            "nothing from before the gap is reflected"
        );
    }

    /// Three LRCs (nodes 1, 2, 3), one federate each, over `Cells.xml`: control and data go
    /// across at once, cell traffic to the LRCs that joined one of its cells (the others pass
    /// over its position), except what node 1 sends node 3 while `hold_1_to_3` is set (queued
    /// in order, delivered when it is cleared; its data only, with `hold_data_only`).
    struct Trio {
        cores: Vec<FederationCore>,
        feds: Vec<FederateHandle>,
        /// Callbacks of node 3's federate.
        got3: Vec<Callback>,
        hold_1_to_3: bool,
        hold_data_only: bool,
        held_1_to_3: Vec<Sent>,
        last_seq: [u64; 3],
        /// Data messages each node sent (to every LRC or to cells).
        data_sends: [u64; 3],
        done: Vec<(Node, crate::core::Ticket, Completion)>,
        now: u64,
    }

    type Node = super::super::Node;

    /// What one LRC sent another, as it is handed over.
    enum Sent {
        Data(Option<u64>, Vec<u8>),
        /// Data sent to DDM cells (keys): delivered to an LRC that wants one of them, passed
        /// over (`Event::Skipped`, when numbered) by the others, as the transport does.
        ToCells(Option<u64>, Vec<u8>, Vec<u32>),
        Control(super::super::wire::ControlMsg),
    }

    impl Trio {
        fn new() -> Trio {
            let fom = include_str!("../../../../foms/Cells.xml");
            let modules = vec![("Cells.xml".to_string(), fom.to_string())];
            let mut t = Trio {
                cores: vec![FederationCore::create("F", 1, 0, modules).expect("create")],
                feds: Vec::new(),
                got3: Vec::new(),
                hold_1_to_3: false,
                hold_data_only: false,
                held_1_to_3: Vec::new(),
                last_seq: [0; 3],
                data_sends: [0; 3],
                done: Vec::new(),
                now: 0,
            };
            for node in 1..=3u64 {
                if node > 1 {
                    let members: Vec<Node> = (1..node).collect();
                    let mut c = FederationCore::joining("F", node, t.now, members.clone());
                    for &m in &members {
                        let first_seq = t.last_seq[(m - 1) as usize] + 1;
                        c.handle(t.now, Event::ChannelPeer { node: m, first_seq });
                        t.cores[(m - 1) as usize]
                            .handle(t.now, Event::ChannelPeer { node, first_seq: 1 });
                    }
                    t.cores.push(c);
                }
                let ticket = t.cores[(node - 1) as usize].join(Some(format!("f{node}")), "t");
                let mut joined = None;
                for _ in 0..40 {
                    t.run();
                    if let Some(i) = t
                        .done
                        .iter()
                        .position(|(n, k, _)| *n == node && *k == ticket)
                    {
                        joined = Some(t.done.remove(i).2);
                        break;
                    }
                    t.tick();
                }
                let Some(Completion::Joined(h)) = joined else {
                    panic!("node {node}'s federate never joined: {joined:?}");
                };
                t.feds.push(h);
            }
            t
        }

        fn core(&mut self, node: Node) -> &mut FederationCore {
            &mut self.cores[(node - 1) as usize]
        }

        fn tick(&mut self) {
            self.now += super::super::RETRY_US;
            for c in &mut self.cores {
                c.handle(self.now, Event::Tick);
            }
        }

        fn deliver(&mut self, from: Node, to: Node, sent: Sent) {
            if (to as usize) > self.cores.len() {
                return;
            }
            let control = matches!(sent, Sent::Control(_));
            if from == 1 && to == 3 && self.hold_1_to_3 && !(control && self.hold_data_only) {
                self.held_1_to_3.push(sent);
                return;
            }
            let c = &mut self.cores[(to - 1) as usize];
            match sent {
                Sent::Data(seq, bytes) => c.handle(
                    self.now,
                    Event::Data {
                        from,
                        seq,
                        payload: &bytes,
                    },
                ),
                Sent::ToCells(seq, bytes, cells) => {
                    if c.wanted_cells().iter().any(|k| cells.contains(k)) {
                        let payload = &bytes;
                        c.handle(self.now, Event::Data { from, seq, payload });
                    } else if let Some(through) = seq {
                        c.handle(self.now, Event::Skipped { from, through });
                    }
                }
                Sent::Control(msg) => c.handle(self.now, Event::Control { from, msg }),
            }
        }

        /// Delivers until nothing moves (bounded).
        fn run(&mut self) {
            use super::super::wire::Envelope;
            // The shell refreshes the cells an LRC joins after each service that changes its
            // subscriptions or regions (`mom_reported`); the tests call services directly.
            for c in &mut self.cores {
                c.refresh_cells();
            }
            for _ in 0..200 {
                if !self.hold_1_to_3 && !self.held_1_to_3.is_empty() {
                    for sent in std::mem::take(&mut self.held_1_to_3) {
                        self.deliver(1, 3, sent);
                    }
                }
                let mut out: Vec<(Node, Node, Sent)> = Vec::new();
                for (i, c) in self.cores.iter_mut().enumerate() {
                    let from = (i + 1) as Node;
                    let others = |out: &mut Vec<_>, payload: Vec<u8>, seq: Option<u64>| {
                        for to in (1..=3u64).filter(|t| *t != from) {
                            out.push((from, to, Sent::Data(seq, payload.clone())));
                        }
                    };
                    while let Some(a) = c.poll_action() {
                        if matches!(a, Action::SendData { .. } | Action::SendToCells { .. }) {
                            self.data_sends[i] += 1;
                        }
                        match a {
                            Action::SendData { seq, bytes, .. } => {
                                if let Some(s) = seq {
                                    self.last_seq[i] = s;
                                }
                                others(&mut out, bytes, seq);
                            }
                            Action::SendTime { seq, bytes } => {
                                self.last_seq[i] = seq;
                                others(&mut out, bytes, Some(seq));
                            }
                            Action::SendToCells {
                                seq, bytes, cells, ..
                            } => {
                                if let Some(s) = seq {
                                    self.last_seq[i] = s;
                                }
                                for to in (1..=3u64).filter(|t| *t != from) {
                                    let sent = Sent::ToCells(seq, bytes.clone(), cells.clone());
                                    out.push((from, to, sent));
                                }
                            }
                            Action::SendControl { to, bytes, .. } => {
                                let msg = Envelope::decode(&bytes).expect("control").msg;
                                out.push((from, to, Sent::Control(msg)));
                            }
                            Action::Callback { callback, .. } if from == 3 => {
                                self.got3.push(callback)
                            }
                            Action::Complete {
                                ticket,
                                result: Ok(c),
                            } => self.done.push((from, ticket, c)),
                            _ => {}
                        }
                    }
                }
                if out.is_empty() {
                    return;
                }
                for (from, to, sent) in out {
                    self.deliver(from, to, sent);
                }
            }
            panic!("the three LRCs never settled");
        }

        /// The fold window of the moves held now ends (`super::super::move_fold`): the cores'
        /// deadlines run, and what they send is delivered.
        fn fold_window_ends(&mut self) {
            self.now += super::super::move_fold::FOLD_WINDOW_US;
            let now = self.now;
            for c in &mut self.cores {
                if c.poll_timeout().is_some_and(|d| d <= now) {
                    c.handle_timeout(now);
                }
            }
            self.run();
        }

        /// The first value of each reflection of `o` at node 3, in order.
        fn reflected(&self, o: ObjectInstanceHandle) -> Vec<u64> {
            reflections_of(&self.got3, o)
        }

        fn region_at(&mut self, node: Node, x: (u64, u64)) -> RegionHandle {
            let f = self.feds[(node - 1) as usize];
            let (dx, dy) = self.dims();
            let c = self.core(node);
            let r = c.create_region(f, &[dx, dy]).expect("create");
            c.set_range_bounds(f, r, dy, RangeBounds::new(30, 40))
                .expect("set");
            self.move_to(node, r, x);
            r
        }

        fn move_to(&mut self, node: Node, r: RegionHandle, x: (u64, u64)) {
            let f = self.feds[(node - 1) as usize];
            let (dx, _) = self.dims();
            let c = self.core(node);
            c.set_range_bounds(f, r, dx, RangeBounds::new(x.0, x.1))
                .expect("set");
            c.commit_region_modifications(f, &[r]).expect("commit");
        }

        /// Node 3 subscribes to the reliable `Track` with a region at X [0, 100) (cell 0 of
        /// X; cells are 250 wide); node 1 registers a vehicle with `Track` in a region at
        /// X [300, 310), in cell 1, which node 3 did not join: (vehicle, `Track`, node 3's
        /// region, node 1's region).
        fn track_in_cell_1(
            &mut self,
        ) -> (
            ObjectInstanceHandle,
            AttributeHandle,
            RegionHandle,
            RegionHandle,
        ) {
            let p = self.feds[0];
            let fdd = self.cores[0].fdd_ref().expect("fdd");
            let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
            let track = fdd.attribute_handle(vehicle, "Track").expect("Track");
            self.core(1)
                .publish_object_class_attributes(p, vehicle, &[track])
                .expect("publish");
            let (o, watch, at) = self.watched_vehicle(vehicle, track, (300, 310));
            (o, track, watch, at)
        }

        /// Node 3 subscribes to `attr` of `vehicle` with a region at X [0, 100); node 1
        /// (which publishes it) registers a vehicle with `attr` in a region at `x`, and it all
        /// settles: (vehicle, node 3's region, node 1's region).
        fn watched_vehicle(
            &mut self,
            vehicle: ObjectClassHandle,
            attr: AttributeHandle,
            x: (u64, u64),
        ) -> (ObjectInstanceHandle, RegionHandle, RegionHandle) {
            let [p, s] = [self.feds[0], self.feds[2]];
            let watch = self.region_at(3, (0, 100));
            self.core(3)
                .subscribe_object_class_attributes_with_regions(
                    s,
                    vehicle,
                    &[(vec![attr], vec![watch])],
                    true,
                    None,
                )
                .expect("subscribe");
            let at = self.region_at(1, x);
            let o = self
                .core(1)
                .register_object_instance_with_regions(p, vehicle, &[(vec![attr], vec![at])], None)
                .expect("register");
            self.run();
            (o, watch, at)
        }

        fn dims(&self) -> (DimensionHandle, DimensionHandle) {
            let fdd = self.cores[0].fdd_ref().expect("fdd");
            (
                fdd.dimension_handle("X").expect("X"),
                fdd.dimension_handle("Y").expect("Y"),
            )
        }
    }

    /// A reliable attribute's move within its cells goes, numbered in the stream, to those
    /// cells only: an LRC that did not join them passes over it and keeps the older regions.
    /// When its subscription region comes into those cells, the next reliable update carries
    /// the regions it was sent in and is judged by them: reflected where they overlap the
    /// subscription, not where only the older regions would have.
    #[test]
    fn a_reliable_update_carries_the_regions_it_moved_to_where_a_subscriber_was_not() {
        let mut t = Trio::new();
        let p = t.feds[0];
        let (o, track, watch, at) = t.track_in_cell_1();
        let update = |t: &mut Trio, v: u64| {
            t.core(1)
                .update_attribute_values(p, o, vec![(track, n(v))], Vec::new(), None)
                .expect("update");
            t.run();
        };
        update(&mut t, 1);
        let moves = t.cores[0].ddm_moves_in_cells();
        t.move_to(1, at, (400, 410));
        t.run();
        assert_eq!(t.cores[0].ddm_moves_in_cells(), moves + 1, "within cell 1");
        let held = |t: &Trio, node: usize| t.cores[node].regions.update_regions[&o][&track].clone();
        assert_ne!(held(&t, 2), held(&t, 0), "node 3 passed over the move");

        // Over the moved region, not the old one: the next update is reflected.
        t.move_to(3, watch, (390, 420));
        t.run();
        update(&mut t, 2);
        assert_eq!(held(&t, 2), held(&t, 0), "the update carried the move");
        // Over the old region only: not reflected.
        t.move_to(3, watch, (295, 315));
        t.run();
        update(&mut t, 3);
        assert_eq!(t.reflected(o), vec![2]);
    }

    /// An LRC that joins the cells an instance moved into asks the members for the moves it
    /// passed over, and its federate discovers the instance there at once, with no update of
    /// it: the last update was sent before the move, where the subscriber did not listen.
    /// Before, it judged the instance by the regions it held from before the move until the
    /// instance's next update.
    /// A regulation query lost with a connection that broke and came back, between LRCs that
    /// stay in each other's view, is sent again when the connection is up
    /// (`Event::ChannelPeer`, `TimeManager::resend_query`), and the regulation completes.
    /// Nothing else sends it again: `enableTimeRegulation` waited for good. (A time test on
    /// this module's three-core harness.)
    #[test]
    fn a_regulation_query_lost_with_a_connection_is_sent_again_when_it_comes_back() {
        use hlamesh_timesync::{DynInterval, RegulationState};
        let mut t = Trio::new();
        let p = t.feds[0];
        t.hold_1_to_3 = true;
        t.core(1)
            .time_service(p, |m| {
                m.enable_time_regulation(DynInterval::new(1.0).expect("interval"))
            })
            .expect("regulate");
        t.run();
        let state = |t: &Trio| t.cores[0].time_manager(p).map(|m| m.regulation());
        assert_eq!(state(&t), Some(RegulationState::Pending), "3 has no query");
        // The connection from 1 to 3 broke: what was on its way is lost. It comes back.
        t.held_1_to_3.clear();
        t.hold_1_to_3 = false;
        t.run();
        t.tick();
        t.run();
        assert_eq!(
            state(&t),
            Some(RegulationState::Pending),
            "nothing sends the query again by itself"
        );
        let (now, first_seq) = (t.now, t.last_seq[2] + 1);
        t.core(1)
            .handle(now, Event::ChannelPeer { node: 3, first_seq });
        t.run();
        assert_eq!(state(&t), Some(RegulationState::On));
    }

    /// A move within the cells and the update that follows it leave as one message, the
    /// update (`super::super::move_fold`), sent to the cells the region leaves as well as
    /// those it enters: the subscriber in the cell it left advises the attribute out of scope
    /// and reflects nothing, as after the move itself; back in, it is in scope and reflects.
    /// A move that no update follows leaves on its own when its window ends.
    #[test]
    fn a_move_folded_into_the_update_after_it_tells_the_cells_it_left() {
        let mut t = Trio::new();
        let [p, s] = [t.feds[0], t.feds[2]];
        let fdd = t.cores[0].fdd_ref().expect("fdd");
        let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
        let position = fdd.attribute_handle(vehicle, "Position").expect("Position");
        t.core(1)
            .publish_object_class_attributes(p, vehicle, &[position])
            .expect("publish");
        t.core(3)
            .set_advisory_switch(s, AdvisorySwitch::AttributeScope, true)
            .expect("scope on");
        // Node 3 watches X [0, 100) (cell 0); the vehicle starts at X [50, 60).
        let (o, _, at) = t.watched_vehicle(vehicle, position, (50, 60));
        let update = |t: &mut Trio, v: u64| {
            t.core(1)
                .update_attribute_values(p, o, vec![(position, n(v))], Vec::new(), None)
                .expect("update");
            t.run();
        };
        let scope = |t: &Trio| -> Vec<bool> {
            t.got3
                .iter()
                .filter_map(|cb| match cb {
                    Callback::AttributesInScope { object, .. } if *object == o => Some(true),
                    Callback::AttributesOutOfScope { object, .. } if *object == o => Some(false),
                    _ => None,
                })
                .collect()
        };
        update(&mut t, 1);
        assert_eq!(t.reflected(o), vec![1]);
        assert_eq!(scope(&t), vec![true]);
        t.got3.clear();

        // Out to X [300, 310) (cell 1), then an update: one message.
        let before = t.data_sends[0];
        t.move_to(1, at, (300, 310));
        update(&mut t, 2);
        assert_eq!(
            t.data_sends[0] - before,
            1,
            "the move went inside the update"
        );
        assert_eq!(t.cores[0].ddm_moves_folded(), 1);
        assert_eq!(scope(&t), vec![false], "out of scope where it left");
        assert_eq!(
            t.reflected(o),
            Vec::<u64>::new(),
            "2 was sent at X [300, 310)"
        );

        // Back in, then an update: one message, in scope, reflected.
        let before = t.data_sends[0];
        t.move_to(1, at, (40, 50));
        update(&mut t, 3);
        assert_eq!(t.data_sends[0] - before, 1);
        assert_eq!(scope(&t), vec![false, true]);
        assert_eq!(t.reflected(o), vec![3]);
        assert_eq!(t.cores[0].ddm_moves_folded(), 2);

        // Out again with no update after it: held, then sent when its window ends.
        let before = t.data_sends[0];
        t.move_to(1, at, (300, 310));
        t.run();
        assert_eq!(t.data_sends[0], before, "held for an update");
        assert_eq!(scope(&t), vec![false, true]);
        t.fold_window_ends();
        assert_eq!(t.data_sends[0] - before, 1, "the move on its own");
        assert_eq!(scope(&t), vec![false, true, false]);
        assert_eq!(t.cores[0].ddm_moves_folded(), 2);
        assert_eq!(t.cores[0].poll_timeout(), None, "nothing held any more");
    }

    #[test]
    fn a_subscriber_joining_the_cells_of_a_moved_instance_discovers_it_without_an_update() {
        let mut t = Trio::new();
        let p = t.feds[0];
        let (o, track, watch, at) = t.track_in_cell_1();
        t.core(1)
            .update_attribute_values(p, o, vec![(track, n(1))], Vec::new(), None)
            .expect("update");
        t.move_to(1, at, (400, 410));
        t.run();
        let discovered = |t: &Trio| {
            t.got3.iter().any(
                |cb| matches!(cb, Callback::DiscoverObjectInstance { object, .. } if *object == o),
            )
        };
        assert!(!discovered(&t), "not in node 3's region yet");
        // Node 3 now listens over the moved region only (cell 1): no update follows.
        t.move_to(3, watch, (390, 420));
        t.run();
        assert!(discovered(&t), "discovered where the instance moved to");
        assert_eq!(
            t.reflected(o),
            Vec::<u64>::new(),
            "1 was sent at X [300, 310)"
        );
        let held = |t: &Trio, node: usize| t.cores[node].regions.update_regions[&o][&track].clone();
        assert_eq!(held(&t, 2), held(&t, 0), "node 3 holds the moved regions");
    }

    /// An update held for an ownership transfer carries the regions it was sent in (it moved
    /// within its cells, so they came with it), and is judged against them when the hand-over
    /// releases it: the new owner's first update, sent inside the subscriber's region, is
    /// reflected; its second, sent after a move out of that region (same cell), is not. The
    /// hold used to drop those regions, so both were judged against the older ones.
    #[test]
    fn an_update_held_for_a_hand_over_keeps_the_regions_it_moved_to() {
        assert_eq!(
            hand_over_then_move("Position", true, false),
            vec![1, 2],
            "2 was sent at X [50, 60), in the region; 3 at X [150, 160), outside it"
        );
    }

    /// A move within the cells waits behind an update of its stream held for a hand-over, so
    /// that update is judged by the regions it was sent in. Here node 3 knows of the transfer
    /// (the coordinator's decisions reach it) but not yet the old owner's hand-over, so it
    /// holds the new owner's updates and takes its moves. Applied at once, the move had the
    /// held update judged outside the subscriber's region (when that update carried no regions
    /// of its own: sent right after the new owner's announcement in the stream), or found it
    /// stale (when it carried older ones) — lost, even for the reliable `Track`, whose moves
    /// and updates go in the stream on the cells.
    #[test]
    fn a_move_waits_behind_an_update_of_its_stream_held_for_a_hand_over() {
        for attr in ["Position", "Track"] {
            for move_first in [false, true] {
                assert_eq!(
                    hand_over_then_move(attr, move_first, true),
                    vec![1, 2],
                    "{attr}, move first {move_first}: 2 was sent at X [50, 60), in the region; \
                     3 at X [150, 160), outside it"
                );
            }
        }
    }

    /// Node 1 registers a vehicle whose `attr` is in node 3's region and updates it (1), then
    /// hands it to node 2, whose hand-over reaches node 3 last. Node 2 announces its own region
    /// at X [30, 40) (or, without `move_first`, [50, 60)), moves it to [50, 60) (with
    /// `move_first`), updates (2), moves it to [150, 160) (the same cell, outside node 3's
    /// region) and updates (3). With `decisions_first`, node 3 hears node 1's control messages
    /// (the transfer's decision) at once, and only its data (the hand-over) last. Returns what
    /// node 3 reflected.
    fn hand_over_then_move(attr: &str, move_first: bool, decisions_first: bool) -> Vec<u64> {
        let mut t = Trio::new();
        let [p, q] = [t.feds[0], t.feds[1]];
        let fdd = t.cores[0].fdd_ref().expect("fdd");
        let vehicle = fdd.object_class_handle("Vehicle").expect("Vehicle");
        let pos = fdd.attribute_handle(vehicle, attr).expect("attribute");
        for (node, h) in [(1, p), (2, q)] {
            t.core(node)
                .publish_object_class_attributes(h, vehicle, &[pos])
                .expect("publish");
        }
        // q must know the instance to acquire it.
        t.core(2)
            .subscribe_object_class_attributes(q, vehicle, &[pos], true)
            .expect("subscribe");
        let (o, _, _) = t.watched_vehicle(vehicle, pos, (30, 40));
        t.core(1)
            .update_attribute_values(p, o, vec![(pos, n(1))], Vec::new(), None)
            .expect("update");
        t.run();
        assert_eq!(t.reflected(o), vec![1], "in the subscriber's region");

        // Node 3 hears nothing of node 1 from here: the hand-over reaches it last.
        t.hold_1_to_3 = true;
        t.hold_data_only = decisions_first;
        t.core(1)
            .unconditional_attribute_ownership_divestiture(p, o, &[pos])
            .expect("divest");
        t.core(2)
            .attribute_ownership_acquisition_if_available(q, o, &[pos])
            .expect("acquire");
        t.run();
        assert_eq!(
            t.cores[1].is_attribute_owned_by_federate(q, o, pos),
            Ok(true),
            "q owns it"
        );
        // q's own region, announced in node 2's stream, then moved within its cell.
        let mine = t.region_at(2, if move_first { (30, 40) } else { (50, 60) });
        t.core(2)
            .associate_regions_for_updates(q, o, &[(vec![pos], vec![mine])])
            .expect("associate");
        t.run();
        let moves = t.cores[1].ddm_moves_in_cells();
        if move_first {
            t.move_to(2, mine, (50, 60));
            t.run();
        }
        t.core(2)
            .update_attribute_values(q, o, vec![(pos, n(2))], Vec::new(), None)
            .expect("update");
        t.run();
        t.move_to(2, mine, (150, 160));
        t.run();
        t.core(2)
            .update_attribute_values(q, o, vec![(pos, n(3))], Vec::new(), None)
            .expect("update");
        t.run();
        assert_eq!(
            t.cores[1].ddm_moves_in_cells(),
            moves + 1 + u64::from(move_first),
            "every move stayed within the cell"
        );
        assert_eq!(t.reflected(o), vec![1], "held until the hand-over");

        t.hold_1_to_3 = false;
        t.run();
        t.reflected(o)
    }
}
