//! Helpers for multi-process tests (shared by the transport's and the RTI's: `lrc/drivers/tests`
//! includes this file): a lab of network namespaces (deploy/lab/lab.sh) when running
//! as root with iproute2 and nftables, loopback multicast otherwise (said clearly on stderr), and
//! probe processes whose JSON lines are collected by a reader thread. Everything is torn down on
//! drop, also when a test fails.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

/// The repository's root: the nearest folder above the including package's manifest that holds
/// the lab script (packages sit one or two levels below the root: `transport/`, `lrc/drivers/`).
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|d| d.join("deploy/lab/lab.sh").is_file())
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join(".."))
}

fn lab_script() -> PathBuf {
    repo_root().join("deploy/lab/lab.sh")
}

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {cmd} >/dev/null 2>&1"))
        .status()
        .is_ok_and(|s| s.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

static NEXT: AtomicU16 = AtomicU16::new(0);

/// Multi-process tests of one binary run one at a time: each already loads both cores, and
/// overlapping them only measures the machine's overload.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held for the duration of a multi-process test.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where the nodes of a test run.
pub enum Lab {
    /// Network namespaces on a bridge, from deploy/lab/lab.sh.
    Namespaces { prefix: String, hosts: usize },
    /// Every node on 127.0.0.1 (fallback when not root).
    Loopback,
}

static REAPED: std::sync::Once = std::sync::Once::new();

/// Takes down the labs of test processes that are gone: a test killed from outside (a timeout's
/// SIGTERM, SIGKILL) cannot run its own clean-up, so the next test process does it. A lab's
/// prefix is `t` + the creating process id modulo 100000 + a letter.
fn reap_stale_labs() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    let alive: std::collections::HashSet<u32> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .map(|pid| pid % 100_000)
        .collect();
    let mut stale = std::collections::BTreeSet::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let b = name.as_bytes();
        if b.len() >= 7
            && b[0] == b't'
            && b[1..6].iter().all(u8::is_ascii_digit)
            && b[6].is_ascii_lowercase()
            && let Ok(pid) = name[1..6].parse::<u32>()
            && !alive.contains(&pid)
        {
            stale.insert(name[..7].to_string());
        }
    }
    for prefix in stale {
        eprintln!("lab {prefix}: its test process is gone; taking it down");
        let _ = Command::new(lab_script())
            .args(["down", "--prefix", &prefix])
            .status();
    }
}

impl Lab {
    /// A lab of `hosts` namespaces, or loopback when that is impossible here.
    pub fn new(hosts: usize) -> Lab {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        if std::env::var("HLAMESH_TEST_LOOPBACK").is_ok() {
            eprintln!("NOTE: HLAMESH_TEST_LOOPBACK set: running on loopback multicast");
            return Lab::Loopback;
        }
        if !(is_root() && have("ip") && have("nft") && lab_script().exists()) {
            // CI (`.ci/run`, as root, with iproute2 and nftables installed) must never fall
            // back silently: there the namespaced variants always run.
            assert!(
                std::env::var_os("HLAMESH_REQUIRE_TOOLS").is_none(),
                "network namespaces are required (HLAMESH_REQUIRE_TOOLS is set) but this is not \
                 root or iproute2/nftables are missing"
            );
            eprintln!(
                "NOTE: not root or iproute2/nftables missing: running on loopback multicast \
                 instead of network namespaces (kernel-level loss injection skipped)"
            );
            return Lab::Loopback;
        }
        REAPED.call_once(reap_stale_labs);
        // Short, unique per process and test: lab.sh allows at most 10 characters.
        // Ends with a letter so that lab.sh host names (prefix + host number) never collide.
        let prefix = format!(
            "t{:05}{}",
            std::process::id() % 100_000,
            char::from(b'a' + (n % 26) as u8)
        );
        let ok = Command::new(lab_script())
            .args(["up", &hosts.to_string(), "--prefix", &prefix])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = Command::new(lab_script())
                .args(["down", "--prefix", &prefix])
                .status();
            panic!("deploy/lab/lab.sh up {hosts} --prefix {prefix} failed");
        }
        Lab::Namespaces { prefix, hosts }
    }

    pub fn is_namespaces(&self) -> bool {
        matches!(self, Lab::Namespaces { .. })
    }

    /// Interface address of host `i` (1-based).
    pub fn addr(&self, i: usize) -> Ipv4Addr {
        match self {
            Lab::Loopback => Ipv4Addr::LOCALHOST,
            Lab::Namespaces { prefix, .. } => {
                let o = Command::new(lab_script())
                    .args(["addr", &i.to_string(), "--prefix", prefix])
                    .output()
                    .expect("lab.sh addr");
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse()
                    .expect("lab.sh addr prints an IPv4 address")
            }
        }
    }

    /// TTL that reaches the other hosts.
    pub fn ttl(&self) -> u32 {
        match self {
            Lab::Loopback => 0,
            Lab::Namespaces { .. } => 1,
        }
    }

    /// Drops `percent` % of incoming UDP datagrams on `port` at host `i` (namespaces only).
    pub fn loss(&self, i: usize, percent: u32, port: u16) -> bool {
        match self {
            Lab::Loopback => false,
            Lab::Namespaces { prefix, .. } => Command::new(lab_script())
                .args([
                    "loss",
                    &i.to_string(),
                    &percent.to_string(),
                    "--port",
                    &port.to_string(),
                    "--prefix",
                    prefix,
                ])
                .status()
                .is_ok_and(|s| s.success()),
        }
    }

    /// Cuts host `i` off the network (every UDP datagram in and out dropped), or heals it
    /// (namespaces only).
    pub fn cut(&self, i: usize, cut: bool) -> bool {
        let Lab::Namespaces { prefix, .. } = self else {
            return false;
        };
        let pct = if cut { "100" } else { "0" };
        [&[][..], &["--out"][..]].iter().all(|extra| {
            Command::new(lab_script())
                .args(["loss", &i.to_string(), pct, "--all-udp", "--prefix", prefix])
                .args(*extra)
                .status()
                .is_ok_and(|s| s.success())
        })
    }

    /// A command that runs `program` on host `i`.
    pub fn command(&self, i: usize, program: &str) -> Command {
        match self {
            Lab::Loopback => Command::new(program),
            Lab::Namespaces { prefix, .. } => {
                // `ip netns exec` execs the program, so killing the child kills the node itself.
                let o = Command::new(lab_script())
                    .args(["ns", &i.to_string(), "--prefix", prefix])
                    .output()
                    .expect("lab.sh ns");
                let ns = String::from_utf8_lossy(&o.stdout).trim().to_string();
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &ns, program]);
                c
            }
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Lab::Namespaces { prefix, .. } = self {
            let _ = Command::new(lab_script())
                .args(["down", "--prefix", prefix])
                .status();
        }
    }
}

/// Ports and groups unique to one test, so concurrently running tests never hear each other.
pub struct Ports {
    pub discovery: u16,
    pub data: u16,
    pub raw: u16,
    pub group: Ipv4Addr,
}

impl Ports {
    pub fn unique() -> Ports {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        // Below the kernel's ephemeral range (32768–60999): a QUIC socket's ephemeral port
        // once took a test's data port in the same namespace (bind: address in use).
        let base = 20_000 + ((std::process::id() % 120) as u16) * 100 + (n % 25) * 4;
        Ports {
            discovery: base,
            data: base + 1,
            raw: base + 2,
            group: Ipv4Addr::new(
                239,
                255,
                200 + (n % 50) as u8,
                (std::process::id() % 250) as u8 + 1,
            ),
        }
    }
}

/// A running probe process; killed on drop.
pub struct Probe {
    pub child: Child,
    /// Piped stdin of a probe started with [`Probe::spawn_interactive`].
    pub stdin: Option<std::process::ChildStdin>,
    pub lines: Receiver<serde_json::Value>,
    pub name: String,
}

impl Probe {
    /// Starts `program` (a test binary, e.g. `env!("CARGO_BIN_EXE_…")`) on host `host`.
    pub fn spawn(lab: &Lab, host: usize, program: &str, args: &[String], name: &str) -> Probe {
        Self::start(lab, host, program, args, name, false, &[])
    }

    /// Like [`Probe::spawn`], with stdin piped for [`Probe::send`].
    #[allow(dead_code)]
    pub fn spawn_interactive(
        lab: &Lab,
        host: usize,
        program: &str,
        args: &[String],
        name: &str,
    ) -> Probe {
        Self::start(lab, host, program, args, name, true, &[])
    }

    /// Like [`Probe::spawn_interactive`], with extra environment variables.
    #[allow(dead_code)]
    pub fn spawn_interactive_env(
        lab: &Lab,
        host: usize,
        program: &str,
        args: &[String],
        name: &str,
        envs: &[(&str, &str)],
    ) -> Probe {
        Self::start(lab, host, program, args, name, true, envs)
    }

    /// Writes one command line to an interactive probe.
    #[allow(dead_code)]
    pub fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("spawned with spawn_interactive");
        writeln!(stdin, "{line}").expect("write to probe");
        stdin.flush().expect("flush probe stdin");
    }

    fn start(
        lab: &Lab,
        host: usize,
        program: &str,
        args: &[String],
        name: &str,
        interactive: bool,
        envs: &[(&str, &str)],
    ) -> Probe {
        let mut cmd = lab.command(host, program);
        cmd.envs(envs.iter().copied());
        cmd.args(args)
            .stdin(if interactive {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("spawn probe");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = crossbeam_channel::unbounded();
        let n = name.to_string();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match serde_json::from_str::<serde_json::Value>(&line) {
                    Ok(v) => {
                        // A process's failure is shown when it happens, even while the test
                        // waits on another process (whose failure it may explain).
                        if v["event"] == "error" {
                            eprintln!("[{n}] {line}");
                        }
                        if tx.send(v).is_err() {
                            break;
                        }
                    }
                    Err(_) => eprintln!("[{n}] {line}"),
                }
            }
        });
        Probe {
            child,
            stdin,
            lines: rx,
            name: name.to_string(),
        }
    }

    /// The next line whose "event" is `event`, within `timeout`.
    pub fn wait_event(&self, event: &str, timeout: Duration) -> serde_json::Value {
        let end = Instant::now() + timeout;
        loop {
            let left = end
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| panic!("[{}] no {event:?} line within {timeout:?}", self.name));
            match self.lines.recv_timeout(left) {
                Ok(v) if v["event"] == event => return v,
                Ok(v) if v["event"] == "error" || v["event"] == "timeout" => {
                    panic!("[{}] failed while waiting for {event:?}: {v}", self.name)
                }
                Ok(_) => continue,
                Err(_) => panic!("[{}] no {event:?} line within {timeout:?}", self.name),
            }
        }
    }

    /// Waits for the process to exit and returns its status code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Common probe arguments for host `i` of `lab`.
pub fn base_args(lab: &Lab, i: usize, ports: &Ports, federation: &str) -> Vec<String> {
    vec![
        "--interface".into(),
        lab.addr(i).to_string(),
        "--ttl".into(),
        lab.ttl().to_string(),
        "--discovery-port".into(),
        ports.discovery.to_string(),
        "--data-port".into(),
        ports.data.to_string(),
        "--discovery-group".into(),
        ports.group.to_string(),
        "--federation".into(),
        federation.into(),
    ]
}

pub fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}
