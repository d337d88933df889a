//! One simulated LRC process: the node's transport ([`SimTransport`]) and the process's
//! [`Host`] with its federation cores, joined by the shipped driver
//! ([`hlamesh_lrc::driver`]) — the code the LRC shell runs — through [`Io`], this simulator's
//! implementation of [`DriverIo`] over the simulated network, an in-memory disk and an outbox
//! the harness hands to its federate models.
//!
//! The steps of the shell that are not the driver's are mirrored here, each with the shell
//! function it stands for: [`SimLrc::create`] (`Lrc::create_with_time` after the create race),
//! [`SimLrc::open_joining`] (`ensure_open`), [`SimLrc::join`] (`join_with_modules`),
//! [`SimLrc::call`] (`core_call`), [`SimLrc::resigned`] (the end of `Lrc::resign`),
//! [`SimLrc::tick`] (the pump's tick).

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use hlamesh_core::core::save::SavedFederateState;
use hlamesh_core::core::stream_numbering::StreamNumbering;
use hlamesh_core::core::{Callback, FederationCore, Node, Ticket};
use hlamesh_core::error::RtiError;
use hlamesh_core::handles::FederateHandle;
use hlamesh_core::host::{Host, HostedFederation};
use hlamesh_lrc::driver::{self, DriverIo};
use hlamesh_transport::core::{Output, TransportEvent};
use hlamesh_transport::data::{Reliability, SendError};
use hlamesh_transport::{FederationTag, NodeId};

use crate::net::Net;
use crate::transport::{Channel, SimTransport};

/// A simulated federate, as the harness numbers them: the route of its callbacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FedId(pub u32);

/// The save files of every simulated machine: (federation, label, federate name) → the RTI's
/// part of the save.
pub type Disk = BTreeMap<(String, String, String), SavedFederateState>;

/// What a driver run asked of the world outside the LRC, for the harness.
#[derive(Debug)]
pub enum Out {
    /// A callback for a federate, by its route.
    Deliver {
        /// The federate's route.
        fed: FedId,
        /// Its handle.
        federate: FederateHandle,
        /// The callback.
        callback: Callback,
    },
    /// A federate is told that its LRC lost the federation.
    ConnectionLost {
        /// The federate's route.
        fed: FedId,
        /// Why.
        reason: String,
    },
    /// A federation closed here (destroyed or lost).
    Closed {
        /// Its core in its final state.
        core: Box<FederationCore>,
    },
    /// A reliable message left under `seq`, taking `numbers` numbers.
    Sent {
        /// The sender.
        node: NodeId,
        /// Its number (its last fragment's).
        seq: u64,
        /// The numbers it takes.
        numbers: u64,
        /// The message.
        bytes: Vec<u8>,
        /// Whether it went to DDM cell groups (not the default group every member hears).
        to_cells: bool,
    },
}

/// A transport event as the driver was handed it, for the checks.
#[derive(Clone, Debug)]
pub struct Observed {
    /// The node whose transport emitted it.
    pub at: NodeId,
    /// The event.
    pub event: TransportEvent,
    /// For a `FederationPeer` event: where the peer's stream starts here.
    pub first_seq: Option<u64>,
}

/// What the driver of one LRC reaches through [`DriverIo`]: the node's transport on the
/// simulated network, the disk and the outbox.
#[derive(Debug)]
pub struct Io<'a> {
    now: u64,
    transport: &'a mut SimTransport,
    tags: &'a mut BTreeMap<FederationTag, Arc<str>>,
    net: &'a mut Net,
    disk: &'a mut Disk,
    out: &'a mut Vec<Out>,
}

impl Io<'_> {
    /// Records a reliable message sent (to cell groups: `to_cells`), for the stream check.
    fn sent(&mut self, seq: u64, bytes: &[u8], to_cells: bool) {
        let (max_whole, fragment) = self.transport.numbering();
        let numbers = StreamNumbering {
            max_whole,
            fragment,
        }
        .numbers(bytes.len());
        self.out.push(Out::Sent {
            node: self.transport.node(),
            seq,
            numbers,
            bytes: bytes.to_vec(),
            to_cells,
        });
    }
}

impl DriverIo<Rc<Channel>, FedId> for Io<'_> {
    type Error = SendError;

    fn now(&self) -> u64 {
        self.now
    }

    fn federation_of(&self, tag: FederationTag) -> Option<Arc<str>> {
        self.tags.get(&tag).cloned()
    }

    fn first_seq(&self, channel: &Rc<Channel>, node: NodeId) -> Option<u64> {
        channel.first_seq(node)
    }

    fn send_numbered(
        &mut self,
        channel: &Rc<Channel>,
        seq: u64,
        bytes: &[u8],
        hold: bool,
    ) -> Result<u64, SendError> {
        let seq = self
            .transport
            .send(
                self.net,
                channel,
                Reliability::Reliable,
                bytes,
                hold,
                Some(seq),
            )?
            .unwrap_or(seq);
        self.sent(seq, bytes, false);
        Ok(seq)
    }

    fn send(
        &mut self,
        channel: &Rc<Channel>,
        reliable: bool,
        bytes: &[u8],
        held: bool,
    ) -> Result<Option<u64>, SendError> {
        let r = if reliable {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        };
        let seq = self
            .transport
            .send(self.net, channel, r, bytes, held, None)?;
        if let Some(s) = seq {
            self.sent(s, bytes, false);
        }
        Ok(seq)
    }

    fn flush(&mut self, channel: &Rc<Channel>) {
        self.transport.flush(self.net, channel);
    }

    fn send_to_cells(
        &mut self,
        channel: &Rc<Channel>,
        bytes: &[u8],
        cells: &[u32],
        seq: Option<u64>,
    ) -> Result<Option<u64>, SendError> {
        let (sent, to_cells) = self
            .transport
            .send_to_cells(self.net, channel, bytes, cells, seq)?;
        if let Some(s) = sent {
            self.sent(s, bytes, to_cells);
        }
        Ok(sent)
    }

    fn set_cells(&mut self, channel: &Rc<Channel>, cells: &[u32]) {
        self.transport.set_cells(self.net, channel, cells);
    }

    fn send_control(
        &mut self,
        to: Node,
        channel: &Rc<Channel>,
        causal: bool,
        bytes: &[u8],
    ) -> Result<(), SendError> {
        self.transport
            .send_control(self.net, NodeId(to), channel, causal, bytes);
        Ok(())
    }

    fn close(&mut self, _federation: &str, channel: Rc<Channel>, core: Box<FederationCore>) {
        self.tags.remove(&channel.tag());
        self.transport.close_federation(self.net, channel.tag());
        self.out.push(Out::Closed { core });
    }

    fn deliver(&mut self, fed: FedId, federate: FederateHandle, callback: Callback) {
        self.out.push(Out::Deliver {
            fed,
            federate,
            callback,
        });
    }

    fn connection_lost(&mut self, fed: FedId, reason: &str) {
        self.out.push(Out::ConnectionLost {
            fed,
            reason: reason.to_string(),
        });
    }

    fn calls_finished(&mut self) {
        // The harness asks the host for its callers' results after every run (`take_done`).
    }

    fn read_save(
        &mut self,
        federation: &str,
        label: &str,
        name: &str,
    ) -> Result<SavedFederateState, String> {
        self.disk
            .get(&(federation.to_string(), label.to_string(), name.to_string()))
            .cloned()
            .ok_or_else(|| format!("no save file {federation}/{label}/{name}"))
    }

    fn write_save(&mut self, federation: &str, state: &SavedFederateState) -> bool {
        self.disk.insert(
            (
                federation.to_string(),
                state.label.clone(),
                state.federate_name.clone(),
            ),
            state.clone(),
        );
        true
    }

    fn rehandled(&mut self, _federation: &str, _renames: &[(FederateHandle, FederateHandle)]) {}
}

/// The simulated federation's host, with the simulator's channel and routes.
pub type SimHost = Host<Rc<Channel>, FedId>;

/// One simulated LRC (see the module docs).
#[derive(Debug)]
pub struct SimLrc {
    /// The node.
    pub id: NodeId,
    /// Its transport.
    pub transport: SimTransport,
    /// Its host, with every federation's core.
    pub host: SimHost,
    tags: BTreeMap<FederationTag, Arc<str>>,
    /// The process runs (not crashed).
    pub alive: bool,
    /// The core of the federation after the host closed it.
    pub closed: Option<Box<FederationCore>>,
    /// A flow-controlled federate waits for room since this time (µs).
    pub waiting_room: Option<u64>,
    /// The pump's next tick (µs).
    pub next_tick: u64,
}

impl SimLrc {
    /// A new LRC on node `id` with transport `transport`; its pump ticks from `first_tick`.
    pub fn new(id: NodeId, transport: SimTransport, first_tick: u64) -> SimLrc {
        SimLrc {
            id,
            transport,
            host: Host::new(),
            tags: BTreeMap::new(),
            alive: true,
            closed: None,
            waiting_room: None,
            next_tick: first_tick,
        }
    }

    /// The host and the driver's I/O, borrowed apart.
    pub fn parts<'a>(
        &'a mut self,
        net: &'a mut Net,
        disk: &'a mut Disk,
        out: &'a mut Vec<Out>,
    ) -> (&'a mut SimHost, Io<'a>) {
        let now = net.now();
        (
            &mut self.host,
            Io {
                now,
                transport: &mut self.transport,
                tags: &mut self.tags,
                net,
                disk,
                out,
            },
        )
    }

    fn numbering(&self) -> StreamNumbering {
        let (max_whole, fragment) = self.transport.numbering();
        StreamNumbering {
            max_whole,
            fragment,
        }
    }

    /// Opens federation `name` with `core` and its channel (`Lrc::create_with_time` once the
    /// race is won, `ensure_open` for a joiner): the channel is announced, the core numbers its
    /// messages by the channel's rule, and the channel's members so far are fed in.
    fn open(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        mut core: FederationCore,
    ) {
        let name = core.name().to_string();
        let channel = self.transport.open_federation(net, &name);
        self.tags.insert(channel.tag(), Arc::from(name.as_str()));
        core.set_stream_numbering(self.numbering());
        core.set_mom_host("sim");
        let members = channel.members();
        let now = net.now();
        let fed = self.host.open(&name, core, channel);
        for n in members {
            if let Some(first_seq) = fed.io.first_seq(n) {
                fed.core.handle(
                    now,
                    hlamesh_core::core::Event::ChannelPeer {
                        node: n.0,
                        first_seq,
                    },
                );
            }
        }
        let (host, mut io) = self.parts(net, disk, out);
        driver::run_actions(host, &mut io, &name);
    }

    /// Creates federation `name` from `modules` (this LRC won its create race).
    pub fn create(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        name: &str,
        modules: Vec<(String, String)>,
        tune: impl FnOnce(&mut FederationCore),
    ) -> Result<(), RtiError> {
        let mut core = FederationCore::create(name, self.id.0, net.now(), modules)?;
        tune(&mut core);
        self.open(net, disk, out, core);
        Ok(())
    }

    /// Opens federation `name` as a joiner that heard `announcers` announce it
    /// (`ensure_open`); refused if this LRC lost the federation before.
    pub fn open_joining(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        name: &str,
        announcers: Vec<Node>,
        tune: impl FnOnce(&mut FederationCore),
    ) -> Result<(), RtiError> {
        if self.host.contains(name) {
            return Ok(());
        }
        if let Some(reason) = self.host.lost_reason(name) {
            return Err(RtiError::ConnectionFailed(reason.to_string()));
        }
        let mut core = FederationCore::joining(name, self.id.0, net.now(), announcers);
        tune(&mut core);
        self.open(net, disk, out, core);
        Ok(())
    }

    /// Joins a federate named `name` (its type too) whose callbacks go to `fed`
    /// (`join_with_modules` after `ensure_open`); its result comes through
    /// [`Host::take_done`].
    pub fn join(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        federation: &str,
        name: &str,
        fed: FedId,
    ) -> Result<Ticket, RtiError> {
        let t = self
            .host
            .join(federation, Some(name.to_string()), name, Vec::new(), fed)?;
        let (host, mut io) = self.parts(net, disk, out);
        driver::run_actions(host, &mut io, federation);
        Ok(t)
    }

    /// Runs API call `f` on `federation`'s core (`core_call`, through [`driver::call`]);
    /// returns its result and whether the flow window is full after it.
    pub fn call<T>(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        federation: &str,
        f: impl FnOnce(&mut FederationCore) -> Result<T, RtiError>,
    ) -> (Result<T, RtiError>, bool) {
        let at = net.instant(net.now());
        let full = |fed: &HostedFederation<Rc<Channel>, FedId>| !fed.io.has_room(at);
        // The ambassador's `mom_reported` refreshes the cells this LRC joins after each
        // service that may change them; the simulated federates call the core's services
        // directly, so every call refreshes them (a refresh with nothing changed announces
        // nothing). Only with cell groups: the runs without them stay as they were.
        let cells = self.transport.has_cell_groups();
        let f = |c: &mut FederationCore| {
            let r = f(c);
            if cells {
                c.refresh_cells();
            }
            r
        };
        let (host, mut io) = self.parts(net, disk, out);
        match driver::call(host, &mut io, federation, f, full) {
            Some(r) => r,
            None => (
                Err(RtiError::FederateNotExecutionMember(format!(
                    "federation {federation} is not open on this LRC"
                ))),
                false,
            ),
        }
    }

    /// A resignation finished: the federate's route goes (the end of `Lrc::resign`).
    pub fn resigned(&mut self, federation: &str, f: FederateHandle) {
        self.host.resigned(federation, f);
    }

    /// Executes transport outputs of this node, in order, as `Shared::execute` does: frames
    /// go out, events go to the driver (each noted in `observed` first), an opened flow window
    /// ends a wait for room.
    pub fn execute(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        observed: &mut Vec<Observed>,
        outputs: Vec<Output>,
    ) {
        for o in outputs {
            match o {
                Output::Transmit { to, frame } => self.transport.transmit(net, to, &frame),
                Output::FlowOpened { .. } => self.waiting_room = None,
                Output::Event(ev) => {
                    let first_seq = match &ev {
                        TransportEvent::FederationPeer {
                            tag,
                            node,
                            joined: true,
                        } => self
                            .transport
                            .channel(*tag)
                            .and_then(|c| c.first_seq(*node)),
                        _ => None,
                    };
                    observed.push(Observed {
                        at: self.id,
                        event: ev.clone(),
                        first_seq,
                    });
                    let (host, mut io) = self.parts(net, disk, out);
                    driver::on_event(host, &mut io, ev);
                }
            }
        }
    }

    /// The pump's tick (`pump`): the channels' members whose events raced with the opening of
    /// a core, [`Host::tick`] with the announcers heard (`announcers`) and the peers connected,
    /// then the cores' deadlines due.
    pub fn tick(
        &mut self,
        net: &mut Net,
        disk: &mut Disk,
        out: &mut Vec<Out>,
        announcers: &dyn Fn(&str) -> Vec<Node>,
    ) {
        self.transport.housekeeping(net);
        let peers = self.transport.peers();
        let (host, mut io) = self.parts(net, disk, out);
        driver::tick(
            host,
            &mut io,
            |c| c.members(),
            announcers,
            |m| peers.contains(&NodeId(m)),
        );
        driver::handle_timeouts(host, &mut io);
    }

    /// The cores' deadlines due now (the pump's wait ends early for them).
    pub fn handle_timeouts(&mut self, net: &mut Net, disk: &mut Disk, out: &mut Vec<Out>) {
        let (host, mut io) = self.parts(net, disk, out);
        driver::handle_timeouts(host, &mut io);
    }

    /// The core of `federation`, open or closed.
    pub fn core(&self, federation: &str) -> Option<&FederationCore> {
        self.host
            .get(federation)
            .map(|f| &f.core)
            .or(self.closed.as_deref())
    }

    /// The channel of `federation`, if open.
    pub fn channel(&self, federation: &str) -> Option<&Rc<Channel>> {
        self.host.get(federation).map(|f| &f.io)
    }
}
