//! A simulated federate: what it asked the RTI for and what its callbacks told it — the state
//! it chooses its next call from (the checks keep their own record of what must hold).

use std::collections::{BTreeMap, BTreeSet};

use hlamesh_core::core::{Callback, Ticket};
use hlamesh_core::handles::{FederateHandle, ObjectInstanceHandle, RegionHandle};
use hlamesh_transport::NodeId;

use crate::check::objects::Subscription;
use crate::check::regions::{Ranges, Where};
use crate::check::time::Switch;
use crate::lrc::FedId;

/// Where a federate is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Life {
    /// Its LRC has not heard the federation announced by a connected LRC yet.
    Waiting,
    /// Its join is under way.
    Joining(Ticket),
    /// Joined.
    Joined,
    /// Its resignation is under way.
    Resigning(Ticket),
    /// Resigned, lost with its LRC, or evicted.
    Gone,
}

/// What a federate asked of time management and was granted, as it knows it.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// Regulation.
    pub regulation: Switch,
    /// Constraint.
    pub constraint: Switch,
    /// Its logical time.
    pub granted: f64,
    /// A request waiting for its grant: (NER?, time).
    pub pending: Option<(bool, f64)>,
}

impl Clock {
    /// Waiting for a grant or an enable.
    pub fn busy(&self) -> bool {
        self.pending.is_some()
            || self.regulation == Switch::Pending
            || self.constraint == Switch::Pending
    }

    /// Regulating or constrained.
    pub fn managed(&self) -> bool {
        self.regulation == Switch::On || self.constraint == Switch::On
    }
}

/// One region of a federate, as it set it: the template `set_range_bounds` changes, the ranges
/// `commit_region_modifications` made take effect.
#[derive(Clone, Debug, Default)]
pub struct RegionModel {
    /// As set.
    pub template: Ranges,
    /// As committed.
    pub committed: Ranges,
}

/// A federate's regions in the region mode ([`crate::Options::regions`]), as it knows them.
#[derive(Clone, Debug, Default)]
pub struct Ddm {
    /// Its regions.
    pub regions: BTreeMap<RegionHandle, RegionModel>,
    /// It subscribes to `Position` with these regions (`None`: without regions).
    pub sub: Option<BTreeSet<RegionHandle>>,
    /// The regions it associated with `Position` of its instances, for updates.
    pub assoc: BTreeMap<ObjectInstanceHandle, BTreeSet<RegionHandle>>,
    /// It subscribes to `Ping` with these regions (`None`: without regions, or not at all
    /// outside [`crate::Options::region_interactions`]).
    pub ping_sub: Option<BTreeSet<RegionHandle>>,
}

impl Ddm {
    fn extents<'a>(&self, rs: impl IntoIterator<Item = &'a RegionHandle>) -> Vec<Ranges> {
        rs.into_iter()
            .filter_map(|r| self.regions.get(r))
            .map(|r| r.committed.clone())
            .collect()
    }

    /// Where its `Position` subscription listens.
    pub fn sub_where(&self) -> Where {
        self.sub.as_ref().map(|rs| self.extents(rs))
    }

    /// Where its `Ping` subscription listens.
    pub fn ping_where(&self) -> Where {
        self.ping_sub.as_ref().map(|rs| self.extents(rs))
    }

    /// Where a ping sent with regions `rs` goes (none: the default region).
    pub fn sent_where(&self, rs: &[RegionHandle]) -> Where {
        (!rs.is_empty()).then(|| self.extents(rs))
    }

    /// Where an update of `Position` of `o` goes now: its associated regions, or the default
    /// region.
    pub fn update_where(&self, o: ObjectInstanceHandle) -> Where {
        self.assoc
            .get(&o)
            .filter(|rs| !rs.is_empty())
            .map(|rs| self.extents(rs))
    }

    /// Whether region `r` is associated for updates or used in its subscription.
    pub fn in_use(&self, r: RegionHandle) -> bool {
        self.sub.as_ref().is_some_and(|s| s.contains(&r))
            || self.ping_sub.as_ref().is_some_and(|s| s.contains(&r))
            || self.assoc.values().any(|s| s.contains(&r))
    }
}

/// One simulated federate.
#[derive(Clone, Debug)]
pub struct Federate {
    /// Its route.
    pub id: FedId,
    /// Its LRC.
    pub node: NodeId,
    /// Its name (and type).
    pub name: String,
    /// Where it is.
    pub life: Life,
    /// Its handle, once joined.
    pub handle: Option<FederateHandle>,
    /// What it subscribes to.
    pub sub: Subscription,
    /// It published and subscribed (a save or restore may refuse the declarations: it tries
    /// again later).
    pub declared: bool,
    /// Instances it registered, with the last position value it sent.
    pub owned: BTreeMap<ObjectInstanceHandle, u64>,
    /// Synchronization points announced to it and not synchronized yet.
    pub announced: BTreeSet<String>,
    /// Of those, the ones it achieved.
    pub achieved: BTreeSet<String>,
    /// A save it was told to begin: (label, reports made).
    pub saving: Option<(String, u8)>,
    /// Time management.
    pub clock: Clock,
    /// When its blocking call (join, resign) began (µs).
    pub call_since: u64,
    /// Its regions (region mode).
    pub ddm: Ddm,
    /// A call was refused because it is no member: its LRC was dropped and `connection_lost`
    /// is on its way. It calls nothing any more.
    pub dropped: bool,
}

impl Federate {
    /// A federate about to join on LRC `node`.
    pub fn new(id: FedId, node: NodeId, name: String, sub: Subscription) -> Federate {
        Federate {
            id,
            node,
            name,
            life: Life::Waiting,
            handle: None,
            sub,
            declared: false,
            owned: BTreeMap::new(),
            announced: BTreeSet::new(),
            achieved: BTreeSet::new(),
            saving: None,
            clock: Clock::default(),
            call_since: 0,
            ddm: Ddm::default(),
            dropped: false,
        }
    }

    /// Joined and not resigning: it may call the RTI.
    pub fn active(&self) -> bool {
        self.life == Life::Joined && !self.dropped
    }

    /// Joined, joining or resigning: its LRC must bring that to an end.
    pub fn present(&self) -> bool {
        !matches!(self.life, Life::Gone)
    }

    /// What its callback `cb` tells it.
    pub fn told(&mut self, cb: &Callback) {
        match cb {
            Callback::AnnounceSynchronizationPoint { label, .. } => {
                self.announced.insert(label.clone());
            }
            Callback::FederationSynchronized { label, .. } => {
                self.announced.remove(label);
                self.achieved.remove(label);
            }
            Callback::InitiateFederateSave { label, .. } => self.saving = Some((label.clone(), 0)),
            Callback::FederationSaved | Callback::FederationNotSaved(_) => self.saving = None,
            Callback::TimeRegulationEnabled(t) => {
                self.clock.regulation = Switch::On;
                self.clock.granted = self.clock.granted.max(t.value());
            }
            Callback::TimeConstrainedEnabled(t) => {
                self.clock.constraint = Switch::On;
                self.clock.granted = self.clock.granted.max(t.value());
            }
            Callback::TimeAdvanceGrant(t) => {
                self.clock.pending = None;
                self.clock.granted = t.value();
            }
            _ => {}
        }
    }
}
