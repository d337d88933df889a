//! Where the peer processes run: on loopback next to the driver (`--local`), or each in its own
//! network namespace of a `deploy/lab/lab.sh` lab (`--lab N`: the driver on host 1, peers on
//! hosts 2..N, multicast across a bridge). The bench spawns itself as the peer.
//!
//! In lab mode the outer process builds the lab, re-runs itself inside host 1 and tears the lab
//! down when that finishes, also on failure ([`LabGuard`]). A two-machine mode (`--peer ADDR`)
//! is not implemented yet.

use std::io::{BufRead, BufReader, Write};
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
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
        }
    }

    /// Multicast TTL that reaches the peers.
    pub fn ttl(&self) -> u32 {
        match self {
            Placement::Local => 0,
            Placement::Lab { .. } => 1,
        }
    }

    /// Human-readable description for the report.
    pub fn describe(&self) -> String {
        match self {
            Placement::Local => "local (processes on loopback multicast)".into(),
            Placement::Lab { hosts, .. } => {
                format!("lab ({hosts} network namespaces on a bridge, deploy/lab/lab.sh)")
            }
        }
    }

    /// How many peer hosts are available (None: as many as wanted).
    pub fn peer_hosts(&self) -> Option<usize> {
        match self {
            Placement::Local => None,
            Placement::Lab { hosts, .. } => Some(hosts.saturating_sub(1)),
        }
    }

    /// Starts `hlamesh-bench peer ARGS` as peer number `k` (0-based; host k + 2 in a lab).
    pub fn spawn_peer(&self, k: usize, args: &[String]) -> Result<PeerProc, BenchError> {
        let exe = std::env::current_exe().map_err(BenchError::io("find own executable"))?;
        let mut cmd = match self {
            Placement::Local => Command::new(&exe),
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
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
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
        Ok(PeerProc {
            name: format!("peer {k}"),
            child,
            stdin,
            lines: rx,
        })
    }
}

/// A running peer process; killed on drop.
#[derive(Debug)]
pub struct PeerProc {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<serde_json::Value>,
}

impl PeerProc {
    /// The process id (in a lab too: `ip netns exec` execs the bench in place).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one command line.
    pub fn command(&mut self, line: &str) -> Result<(), BenchError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| BenchError::Protocol(format!("{}: stdin closed", self.name)))?;
        let r = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        r.map_err(|e| {
            let status = self.child.try_wait().ok().flatten();
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
        // Closing stdin asks it to leave cleanly; kill it if it does not.
        self.stdin.take();
        let end = Instant::now() + Duration::from_millis(500);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
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
