//! The system under test: what a benchmark sends through and receives from. The transport
//! ([`TransportSut`]), the HLA update→reflect path ([`crate::rti::RtiSut`]) and the raw UDP
//! multicast baseline ([`RawUdpSut`]) implement it; the drivers see only this trait.

use std::net::{SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hlamesh_transport::data::Reliability;
use hlamesh_transport::{FederationChannel, KeySource, Transport, TransportEvent, sockets};
use serde::Serialize;

use crate::BenchError;
use crate::net::NetParams;

/// Called on the receiving thread for every message from another process (no thread hand-off).
pub type Handler = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// Counters a path exposes (zero where a path has no such notion).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Counters {
    /// Messages sent.
    pub messages_out: u64,
    /// Datagrams sent.
    pub datagrams_out: u64,
    /// Datagrams received.
    pub datagrams_in: u64,
    /// NACKs this node sent (it missed something).
    pub nacks_sent: u64,
    /// NACKs this node answered.
    pub nacks_served: u64,
    /// Datagrams this node retransmitted in repairs.
    pub repaired_datagrams: u64,
    /// Repairs this node received.
    pub repairs_received: u64,
    /// Reliable messages lost for good (fell behind a retransmit buffer).
    pub fell_behind_messages: u64,
    /// Best-effort messages counted lost.
    pub best_effort_lost: u64,
}

/// A message path being measured.
pub trait Sut: Send + Sync + std::fmt::Debug {
    /// Short name used in tables and JSON ("hlamesh", "raw-udp").
    fn name(&self) -> &'static str;
    /// Sends one message to every peer.
    fn send(&self, rel: Reliability, payload: &[u8]) -> Result<(), BenchError>;
    /// Pushes out anything the path holds back (a pending batch).
    fn flush(&self) {}
    /// Turns automatic batching on or off where the path has it.
    fn set_batching(&self, _on: bool) {}
    /// Installs the receive handler.
    fn set_handler(&self, handler: Handler) -> Result<(), BenchError>;
    /// Current counters.
    fn counters(&self) -> Counters;
}

/// hlamesh's data channel, with immediate delivery through the transport's event hook.
#[derive(Debug)]
pub struct TransportSut {
    transport: Arc<Transport>,
    fed: FederationChannel,
}

impl TransportSut {
    /// Starts a transport and opens `federation` (creating it, or fetching the key from a peer),
    /// then waits until `members` peers accept its data.
    pub fn join(
        net: &NetParams,
        federation: &str,
        create: bool,
        members: usize,
        timeout: Duration,
    ) -> Result<TransportSut, BenchError> {
        let deadline = Instant::now() + timeout;
        let t = Arc::new(Transport::start(net.transport_config())?);
        let mut fed = if create {
            Some(t.open_federation(federation, KeySource::Create)?)
        } else {
            None
        };
        loop {
            if fed.is_none() && !t.peers().is_empty() {
                fed = t
                    .open_federation(federation, KeySource::FromPeers(Duration::from_millis(500)))
                    .ok();
            }
            if let Some(f) = &fed
                && f.members().len() >= members
            {
                break;
            }
            if Instant::now() > deadline {
                return Err(BenchError::Protocol(format!(
                    "hlamesh: {} of {members} members joined within {timeout:?}",
                    fed.as_ref().map_or(0, |f| f.members().len())
                )));
            }
            let _ = t.events().recv_timeout(Duration::from_millis(20));
        }
        let fed = fed.ok_or_else(|| BenchError::Protocol("federation not open".into()))?;
        Ok(TransportSut { transport: t, fed })
    }
}

impl Sut for TransportSut {
    fn name(&self) -> &'static str {
        "hlamesh"
    }

    fn send(&self, rel: Reliability, payload: &[u8]) -> Result<(), BenchError> {
        self.fed.send(rel, payload)?;
        Ok(())
    }

    fn flush(&self) {
        self.fed.flush();
    }

    fn set_batching(&self, on: bool) {
        self.fed.set_batching(on);
    }

    fn set_handler(&self, handler: Handler) -> Result<(), BenchError> {
        self.transport
            .set_event_hook(Some(Arc::new(move |ev| match ev {
                TransportEvent::Data { payload, .. } => {
                    handler(&payload);
                    None
                }
                other => Some(other),
            })));
        Ok(())
    }

    fn counters(&self) -> Counters {
        let shell = self.transport.stats();
        let rx = self.fed.stats();
        let tx = self.fed.send_stats();
        Counters {
            messages_out: tx.messages,
            datagrams_out: shell.datagrams_out.load(Ordering::Relaxed),
            datagrams_in: shell.datagrams_in.load(Ordering::Relaxed),
            nacks_sent: shell.nacks_sent.load(Ordering::Relaxed),
            nacks_served: shell.nacks_served.load(Ordering::Relaxed),
            repaired_datagrams: tx.repaired_datagrams,
            repairs_received: rx.repairs,
            fell_behind_messages: rx.fell_behind_seqs,
            best_effort_lost: rx.best_effort_lost,
        }
    }
}

/// Plain UDP multicast on the same interface: one `sendto` per message, a receive thread that
/// calls the handler directly (the floor hlamesh is compared with).
#[derive(Debug)]
pub struct RawUdpSut {
    net: NetParams,
    tx: UdpSocket,
    dest: SocketAddrV4,
    out: AtomicU64,
    received: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    receiver: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl RawUdpSut {
    /// A sender on `net`'s raw group (receiving starts with [`Sut::set_handler`]).
    pub fn new(net: &NetParams) -> Result<RawUdpSut, BenchError> {
        let tx = sockets::multicast_sender(net.interface, net.ttl)?;
        Ok(RawUdpSut {
            net: net.clone(),
            tx,
            dest: SocketAddrV4::new(net.raw_group, net.raw_port),
            out: AtomicU64::new(0),
            received: Arc::new(AtomicU64::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
            receiver: Mutex::new(None),
        })
    }
}

impl Sut for RawUdpSut {
    fn name(&self) -> &'static str {
        "raw-udp"
    }

    fn send(&self, _rel: Reliability, payload: &[u8]) -> Result<(), BenchError> {
        self.out.fetch_add(1, Ordering::Relaxed);
        // A full socket buffer is loss on this path, which its figures count.
        let _ = self.tx.send_to(payload, self.dest);
        Ok(())
    }

    fn set_handler(&self, handler: Handler) -> Result<(), BenchError> {
        let rx = sockets::multicast_receiver(self.net.raw_port, Some(Duration::from_millis(100)))?;
        sockets::join(&rx, self.net.raw_group, self.net.interface)?;
        let (stop, received) = (self.stop.clone(), self.received.clone());
        let h = std::thread::Builder::new()
            .name("raw-udp-recv".into())
            .spawn(move || {
                let mut buf = vec![0u8; 65_536];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((n, _)) = rx.recv_from(&mut buf) {
                        received.fetch_add(1, Ordering::Relaxed);
                        handler(&buf[..n]);
                    }
                }
            })
            .map_err(BenchError::io("spawn raw receive thread"))?;
        *self.receiver.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
        Ok(())
    }

    fn counters(&self) -> Counters {
        let out = self.out.load(Ordering::Relaxed);
        Counters {
            messages_out: out,
            datagrams_out: out,
            datagrams_in: self.received.load(Ordering::Relaxed),
            ..Counters::default()
        }
    }
}

impl Drop for RawUdpSut {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self
            .receiver
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            let _ = h.join();
        }
    }
}
