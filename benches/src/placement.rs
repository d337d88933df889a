//! Where the peer processes run: on loopback next to the driver (`--local`), or each in its own
//! network namespace of a `deploy/lab/lab.sh` lab (`--lab N`: the driver on host 1, peers on
//! hosts 2..N, multicast across a bridge). The bench spawns itself as the peer.
//!
//! In lab mode the outer process builds the lab, re-runs itself inside host 1 and tears the lab
//! down when that finishes, also on failure ([`LabGuard`]).
//!
//! Two machines (`--peer ADDR`): the other machine runs `hlamesh-bench serve`, which accepts one
//! TCP connection per peer process, reads the peer's arguments as one JSON line, starts
//! `hlamesh-bench peer` with them (its own `--interface` replacing the driver's guess), and bridges
//! the connection to the peer's stdin/stdout. The driver then talks to it exactly as to a local
//! peer; closing the connection ends the peer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use crate::BenchError;

/// The lab script shipped with the repository.
pub fn default_lab_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/lab/lab.sh")
}

/// Where peers run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Every process on 127.0.0.1.
    Local,
    /// Inside a lab that already exists (this process is on host 1).
    Lab {
        /// lab.sh prefix.
        prefix: String,
        /// Hosts in the lab.
        hosts: usize,
        /// Path of lab.sh.
        script: PathBuf,
        /// Percent of inbound datagrams dropped on the peer hosts' hlamesh data and raw UDP ports.
        loss: u8,
    },
    /// Peer hosts: other machines (or this one) running `hlamesh-bench serve`; peer k goes to
    /// `controls[k % len]`.
    Peer {
        /// The serve processes' TCP addresses.
        controls: Vec<SocketAddr>,
        /// This machine's interface address (the other machine must reach it by multicast).
        interface: Ipv4Addr,
    },
}

fn lab_output(script: &PathBuf, args: &[&str]) -> Result<String, BenchError> {
    let o = Command::new(script)
        .args(args)
        .output()
        .map_err(BenchError::io(format!("run {}", script.display())))?;
    if !o.status.success() {
        return Err(BenchError::Protocol(format!(
            "lab.sh {args:?} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

impl Placement {
    /// Interface address of host `i` (1 = the driver).
    pub fn addr(&self, i: usize) -> Result<Ipv4Addr, BenchError> {
        match self {
            Placement::Local => Ok(Ipv4Addr::LOCALHOST),
            Placement::Lab { prefix, script, .. } => {
                let s = lab_output(script, &["addr", &i.to_string(), "--prefix", prefix])?;
                s.parse()
                    .map_err(|_| BenchError::Protocol(format!("lab.sh addr printed {s:?}")))
            }
            Placement::Peer { interface, .. } if i == 1 => Ok(*interface),
            // The serve side substitutes its own interface; this is only a placeholder.
            Placement::Peer { controls, .. } => {
                let control = controls
                    .get(i.saturating_sub(2) % controls.len().max(1))
                    .ok_or_else(|| BenchError::Protocol("--peer needs an address".into()))?;
                match control.ip() {
                    std::net::IpAddr::V4(a) => Ok(a),
                    std::net::IpAddr::V6(_) => Err(BenchError::Protocol(
                        "--peer needs IPv4 addresses (the multicast data plane is IPv4)".into(),
                    )),
                }
            }
        }
    }

    /// Multicast TTL that reaches the peers.
    pub fn ttl(&self) -> u32 {
        match self {
            Placement::Local => 0,
            Placement::Lab { .. } | Placement::Peer { .. } => 1,
        }
    }

    /// Whether every process runs on this machine (so it can be pinned to a CPU).
    pub fn is_local(&self) -> bool {
        !matches!(self, Placement::Peer { .. })
    }

    /// Human-readable description for the report.
    pub fn describe(&self) -> String {
        match self {
            Placement::Local => "local (processes on loopback multicast)".into(),
            Placement::Lab { hosts, loss, .. } => {
                let loss = if *loss > 0 {
                    format!(", {loss} % inbound data loss on the peers")
                } else {
                    String::new()
                };
                format!("lab ({hosts} network namespaces on a bridge, deploy/lab/lab.sh{loss})")
            }
            Placement::Peer {
                controls,
                interface,
            } => {
                format!("machines (driver on {interface}, peers via serve at {controls:?})")
            }
        }
    }

    /// In a lab with `loss`: drops that percent of the datagrams entering peer hosts 2..=`last`
    /// on `ports` (`lab.sh loss`; nftables rules that vanish with the lab). Elsewhere nothing.
    pub fn inject_loss(&self, last: usize, ports: &[u16]) -> Result<(), BenchError> {
        self.inject_loss_on(2..=last, ports)
    }

    /// [`Placement::inject_loss`] on the given hosts (1 = the driver).
    pub fn inject_loss_on(
        &self,
        hosts: std::ops::RangeInclusive<usize>,
        ports: &[u16],
    ) -> Result<(), BenchError> {
        let Placement::Lab {
            prefix,
            script,
            loss,
            ..
        } = self
        else {
            return Ok(());
        };
        if *loss == 0 {
            return Ok(());
        }
        for host in hosts {
            for port in ports {
                lab_output(
                    script,
                    &[
                        "loss",
                        &host.to_string(),
                        &loss.to_string(),
                        "--port",
                        &port.to_string(),
                        "--prefix",
                        prefix,
                    ],
                )?;
            }
        }
        Ok(())
    }

    /// How many peer hosts are available (None: as many as wanted).
    pub fn peer_hosts(&self) -> Option<usize> {
        match self {
            Placement::Local => None,
            Placement::Lab { hosts, .. } => Some(hosts.saturating_sub(1)),
            Placement::Peer { .. } => None,
        }
    }

    /// Starts `hlamesh-bench peer ARGS` as peer number `k` (0-based; host k + 2 in a lab).
    pub fn spawn_peer(&self, k: usize, args: &[String]) -> Result<PeerProc, BenchError> {
        if let Placement::Peer { controls, .. } = self {
            let control = controls
                .get(k % controls.len().max(1))
                .ok_or_else(|| BenchError::Protocol("--peer needs an address".into()))?;
            return PeerProc::remote(k, *control, args);
        }
        let exe = std::env::current_exe().map_err(BenchError::io("find own executable"))?;
        let mut cmd = match self {
            Placement::Peer { .. } | Placement::Local => Command::new(&exe),
            Placement::Lab { prefix, script, .. } => {
                let ns = lab_output(script, &["ns", &(k + 2).to_string(), "--prefix", prefix])?;
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &ns]).arg(&exe);
                c
            }
        };
        cmd.arg("peer")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().map_err(BenchError::io("spawn peer"))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Protocol("peer has no stdout".into()))?;
        Ok(PeerProc {
            name: format!("peer {k}"),
            child: Some(child),
            stdin: stdin.map(|s| Box::new(s) as Box<dyn Write + Send>),
            lines: read_lines(k, stdout),
        })
    }
}

/// A thread that parses the peer's JSON lines (other lines go to stderr).
fn read_lines(k: usize, from: impl Read + Send + 'static) -> Receiver<serde_json::Value> {
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(v) => {
                    if tx.send(v).is_err() {
                        break;
                    }
                }
                Err(_) => eprintln!("[peer {k}] {line}"),
            }
        }
    });
    rx
}

/// A running peer process (killed on drop), or a connection to one on another machine.
pub struct PeerProc {
    name: String,
    child: Option<Child>,
    stdin: Option<Box<dyn Write + Send>>,
    lines: Receiver<serde_json::Value>,
}

impl std::fmt::Debug for PeerProc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerProc")
            .field("name", &self.name)
            .finish()
    }
}

impl PeerProc {
    /// A peer on another machine, started by its `hlamesh-bench serve` at `control`.
    pub fn remote(k: usize, control: SocketAddr, args: &[String]) -> Result<PeerProc, BenchError> {
        let mut s = TcpStream::connect_timeout(&control, Duration::from_secs(5)).map_err(
            BenchError::io(format!("connect to hlamesh-bench serve at {control}")),
        )?;
        let _ = s.set_nodelay(true);
        let line = serde_json::to_string(args)
            .map_err(|e| BenchError::Protocol(format!("encode peer arguments: {e}")))?;
        writeln!(s, "{line}").map_err(BenchError::io("send peer arguments"))?;
        let reader = s
            .try_clone()
            .map_err(BenchError::io("clone the serve connection"))?;
        Ok(PeerProc {
            name: format!("remote peer {k} at {control}"),
            child: None,
            stdin: Some(Box::new(s)),
            lines: read_lines(k, reader),
        })
    }

    /// Another local program speaking the peer protocol (JSON lines on stdout, commands on
    /// stdin): the C++ bench federate of `--api cpp`.
    pub fn program(name: String, mut cmd: Command) -> Result<PeerProc, BenchError> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd
            .spawn()
            .map_err(BenchError::io(format!("spawn {name}")))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Protocol(format!("{name} has no stdout")))?;
        Ok(PeerProc {
            name,
            child: Some(child),
            stdin: stdin.map(|s| Box::new(s) as Box<dyn Write + Send>),
            lines: read_lines(0, stdout),
        })
    }

    /// The local process id (in a lab too: `ip netns exec` execs the bench in place); `None` for
    /// a peer on another machine.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Sends one command line.
    pub fn command(&mut self, line: &str) -> Result<(), BenchError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| BenchError::Protocol(format!("{}: stdin closed", self.name)))?;
        let r = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        r.map_err(|e| {
            let status = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            BenchError::Io {
                what: format!("write to {} (exit status {status:?})", self.name),
                source: e,
            }
        })
    }

    /// The next line whose "event" is `event`, within `timeout`.
    pub fn wait_event(
        &self,
        event: &str,
        timeout: Duration,
    ) -> Result<serde_json::Value, BenchError> {
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if v["event"] == event => return Ok(v),
                Ok(v) if v["event"] == "error" => {
                    return Err(BenchError::Protocol(format!("{}: {}", self.name, v)));
                }
                Ok(_) => continue,
                Err(_) => {
                    return Err(BenchError::Protocol(format!(
                        "{}: no {event:?} within {timeout:?}",
                        self.name
                    )));
                }
            }
        }
    }
}

impl Drop for PeerProc {
    fn drop(&mut self) {
        // Closing stdin (or the connection) asks it to leave cleanly; kill it if it does not.
        self.stdin.take();
        let Some(child) = self.child.as_mut() else {
            return;
        };
        let end = Instant::now() + Duration::from_millis(500);
        while Instant::now() < end {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// A lab built for this run; removed on drop (also when the run fails).
#[derive(Debug)]
pub struct LabGuard {
    /// lab.sh prefix.
    pub prefix: String,
    /// Path of lab.sh.
    pub script: PathBuf,
}

impl LabGuard {
    /// `lab.sh up hosts --prefix bNNNN`.
    pub fn up(script: PathBuf, hosts: usize) -> Result<LabGuard, BenchError> {
        let prefix = format!("b{:05}", std::process::id() % 100_000);
        let guard = LabGuard {
            prefix: prefix.clone(),
            script: script.clone(),
        };
        lab_output(&script, &["up", &hosts.to_string(), "--prefix", &prefix])?;
        Ok(guard)
    }

    /// The command that runs `program` on host `i`.
    pub fn command(&self, i: usize, program: &std::path::Path) -> Result<Command, BenchError> {
        let ns = lab_output(
            &self.script,
            &["ns", &i.to_string(), "--prefix", &self.prefix],
        )?;
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &ns]).arg(program);
        Ok(c)
    }
}

impl Drop for LabGuard {
    fn drop(&mut self) {
        let _ = Command::new(&self.script)
            .args(["down", "--prefix", &self.prefix])
            .status();
    }
}
