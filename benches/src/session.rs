//! A measurement session: the driver's two paths (hlamesh and raw UDP) and its peer processes,
//! all joined and ready.

use std::sync::Arc;
use std::time::Duration;

use crate::BenchError;
use crate::cpus::{Pinned, Pinning};
use crate::net::NetParams;
use crate::peer::Role;
use crate::placement::{PeerProc, Placement};
use crate::rti::RtiSut;
use crate::sut::{RawUdpSut, Sut, TransportSut};

/// Which hlamesh level is measured against raw UDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// HLA update → reflect through the RTI API (the LRC, immediate callbacks).
    Rti,
    /// The transport's data channel (the transport's event hook).
    Transport,
}

impl Level {
    /// Its command-line spelling.
    pub fn arg(self) -> &'static str {
        match self {
            Level::Rti => "rti",
            Level::Transport => "transport",
        }
    }

    /// How a message reaches the application on this level.
    pub fn delivery(self) -> &'static str {
        match self {
            Level::Rti => {
                "reflectAttributeValues, immediate callbacks (on the LRC's receive thread)"
            }
            Level::Transport => "immediate (transport event hook on the data thread)",
        }
    }

    /// Joins this level's path: creates the federation when `create`, and waits for `members`
    /// other processes. `receive: false` (an N→1 fan-in sender) does not subscribe on the RTI
    /// level; the transport level always hears the federation's multicast.
    pub fn join(
        self,
        net: &NetParams,
        federation: &str,
        create: bool,
        receive: bool,
        members: usize,
        timeout: Duration,
    ) -> Result<Arc<dyn Sut>, BenchError> {
        Ok(match self {
            Level::Rti => Arc::new(RtiSut::join(
                net, federation, create, receive, members, timeout,
            )?),
            Level::Transport => Arc::new(TransportSut::join(
                net, federation, create, members, timeout,
            )?),
        })
    }
}

/// The driver's side of a run.
#[derive(Debug)]
pub struct Session {
    /// hlamesh path.
    pub hl: Arc<dyn Sut>,
    /// Raw UDP multicast baseline path.
    pub raw: Arc<RawUdpSut>,
    /// Peer processes.
    pub peers: Vec<PeerProc>,
    /// Network parameters of the driver.
    pub net: NetParams,
    /// The pinning used (after falling back; see [`crate::cpus::for_processes`]).
    pub pinning: Pinning,
    /// The driver's CPU, then each peer's (`None` where not pinned).
    pub cpus: Vec<Option<usize>>,
    /// Keeps the driver's thread pinned while the session lasts (its threads inherit it).
    _pinned: Pinned,
}

impl Session {
    /// Starts `peers` peer processes with `role` and waits (at most `timeout`) until everyone is
    /// joined. The peers stay at most `lifetime`, which must cover the whole run. With `pin`,
    /// the driver (the calling thread, until the session is dropped, and the threads the
    /// session starts) and each peer are pinned to CPUs (see [`crate::cpus`]); each peer
    /// reports the CPUs it may use when ready, and a peer not pinned as asked fails the start.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        placement: &Placement,
        role: Role,
        level: Level,
        peers: usize,
        timeout: Duration,
        lifetime: Duration,
        pin: Pinning,
    ) -> Result<Session, BenchError> {
        if let Some(max) = placement.peer_hosts()
            && peers > max
        {
            return Err(BenchError::Protocol(format!(
                "{peers} peers wanted but the lab has only {max} peer hosts"
            )));
        }
        let (pinning, cpus) = crate::cpus::for_processes(pin, placement.is_local(), peers + 1)?;
        let pinned = Pinned::to(cpus[0])?;
        let peer_cpus = &cpus[1..];
        let net = NetParams::for_run(placement.addr(1)?, placement.ttl());
        let federation = format!("bench-{}", std::process::id());
        let role_arg = role.arg();
        let mut procs = Vec::new();
        for k in 0..peers {
            let mut args = net.on(placement.addr(k + 2)?).to_args();
            args.extend([
                "--role".to_string(),
                role_arg.to_string(),
                "--level".to_string(),
                level.arg().to_string(),
                "--federation".to_string(),
                federation.clone(),
                "--timeout-s".to_string(),
                lifetime.as_secs().max(1).to_string(),
            ]);
            if let Some(cpu) = peer_cpus.get(k).copied().flatten() {
                args.extend(["--cpu".to_string(), cpu.to_string()]);
            }
            procs.push(placement.spawn_peer(k, &args)?);
        }
        let ports = [net.data_port, net.raw_port];
        if role == Role::Source {
            // N→1: the driver is the receiver, so the loss goes where it receives.
            placement.inject_loss_on(1..=1, &ports)?;
        } else {
            placement.inject_loss_on(2..=peers + 1, &ports)?;
        }
        let hl = level.join(&net, &federation, true, true, peers, timeout)?;
        let raw = Arc::new(RawUdpSut::new(&net)?);
        for (k, p) in procs.iter().enumerate() {
            let ready = p.wait_event("ready", timeout)?;
            if let Some(cpu) = peer_cpus.get(k).copied().flatten() {
                let cpus = &ready["cpus"];
                if *cpus != serde_json::json!([cpu]) {
                    return Err(BenchError::Protocol(format!(
                        "peer pinned to CPU {cpu} reports it may run on {cpus}"
                    )));
                }
            }
        }
        Ok(Session {
            hl,
            raw,
            peers: procs,
            net,
            pinning,
            cpus,
            _pinned: pinned,
        })
    }
}
