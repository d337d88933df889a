//! Shared by the C++ tests: where the library is, how to build a C++ federate against it, and
//! child processes that are killed when the test ends (also on failure).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// The workspace's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `$CARGO_TARGET_DIR/release` (or `debug`): where cargo put `librti1516e.so` (the test
/// executable is in its `deps/`).
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target profile directory")
        .to_path_buf()
}

/// The shared library as cargo built it for this test run: `deps/librti1516e.so`. Cargo
/// copies it up to the profile directory only for `cargo build`; under `cargo test` the copy
/// there is whatever the last build left (a stale library after a change elsewhere).
pub fn library() -> PathBuf {
    let fresh = lib_dir().join("deps").join("librti1516e.so");
    if fresh.exists() {
        fresh
    } else {
        lib_dir().join("librti1516e.so")
    }
}

/// A directory holding `librti1516e.so.1` (the SONAME federates load), linked to the library.
/// Made once per test process; the link is replaced atomically (a new link renamed over it),
/// so tests and test processes running at the same time never see it missing.
pub fn runtime_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = lib_dir().join("capi-test-runtime");
        std::fs::create_dir_all(&dir).unwrap();
        let tmp = dir.join(format!("librti1516e.so.1.{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(library(), &tmp).unwrap();
        std::fs::rename(&tmp, dir.join("librti1516e.so.1")).unwrap();
        dir
    })
    .clone()
}

fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// Builds a C++ program as a federate would be built: `c++ -std=c++17` against the standard's
/// headers, linked with `-lrti1516e`. Returns the executable.
pub fn build_cpp(source: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out_dir = lib_dir().join("capi-test-bin");
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(name);
    let root = root();
    let status = Command::new(cxx())
        .arg("-std=c++17")
        .args(["-Wall", "-Wextra", "-Werror"])
        .arg("-o")
        .arg(&exe)
        .arg(source)
        .arg("-I")
        .arg(root.join("cpp/include"))
        .arg("-I")
        .arg(root.join("capi/include"))
        .args(extra)
        .arg("-L")
        .arg(library().parent().expect("library directory"))
        .arg("-lrti1516e")
        .status()
        .expect("a C++ compiler ($CXX or c++)");
    assert!(status.success(), "building {}", source.display());
    exe
}

/// A running child process whose stdout lines arrive on `lines`; killed on drop.
pub struct Proc {
    pub name: String,
    child: Child,
    pub lines: Receiver<String>,
}

impl Proc {
    pub fn spawn(name: &str, exe: &Path, args: &[&str], env: &[(String, String)]) -> Proc {
        let mut cmd = Command::new(exe);
        cmd.args(args)
            .env("LD_LIBRARY_PATH", runtime_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for k in [
            "HLAMESH_INTERFACE",
            "HLAMESH_TTL",
            "HLAMESH_SECRET",
            "HLAMESH_DISCOVERY_PORT",
            "HLAMESH_DATA_PORT",
            "HLAMESH_DISCOVERY_GROUP",
        ] {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn a C++ federate");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        let tag = name.to_string();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                eprintln!("[{tag}] {l}");
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Proc {
            name: name.to_string(),
            child,
            lines: rx,
        }
    }

    /// Every line up to and including the first that starts with `prefix`; panics on an
    /// `error` line, on exit, or after `timeout`.
    pub fn until(&self, prefix: &str, timeout: Duration) -> Vec<String> {
        let end = std::time::Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    assert!(
                        !l.starts_with("error"),
                        "[{}] {l}; before: {seen:?}",
                        self.name
                    );
                    let stop = l.starts_with(prefix);
                    seen.push(l);
                    if stop {
                        return seen;
                    }
                }
                Err(_) => panic!(
                    "[{}] no {prefix:?} within {timeout:?}; got {seen:?}",
                    self.name
                ),
            }
        }
    }

    /// SIGKILL (`kill -9`) now.
    pub fn kill(&mut self) {
        self.child.kill().expect("kill the child");
        let _ = self.child.wait();
    }

    /// Waits (bounded) for the process to exit and returns its status code.
    pub fn wait(&mut self, timeout: Duration) -> Option<i32> {
        let end = std::time::Instant::now() + timeout;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            if std::time::Instant::now() > end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Settings no other test shares: ports and group from the process id and a counter, a
/// development secret of its own, TTL 0 on loopback.
pub struct Net {
    pub discovery_port: u16,
    pub data_port: u16,
    pub group: String,
    pub secret: String,
}

impl Net {
    pub fn unique() -> Net {
        use std::sync::atomic::{AtomicU16, Ordering};
        static NEXT: AtomicU16 = AtomicU16::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        // Below the kernel's ephemeral range (32768–60999, where a QUIC socket's port could
        // take ours) and the transport and LRC tests' 20000–32000.
        let base = 10_000 + ((std::process::id() % 240) as u16) * 40 + (n % 10) * 4;
        Net {
            discovery_port: base,
            data_port: base + 1,
            group: format!(
                "239.255.{}.{}",
                150 + (n % 50),
                1 + (std::process::id() % 250)
            ),
            secret: format!("capi-test-{}-{n}", std::process::id()),
        }
    }

    /// The `HLAMESH_*` environment for a federate that takes its settings from it.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("HLAMESH_INTERFACE".into(), "127.0.0.1".into()),
            ("HLAMESH_TTL".into(), "0".into()),
            ("HLAMESH_SECRET".into(), self.secret.clone()),
            (
                "HLAMESH_DISCOVERY_PORT".into(),
                self.discovery_port.to_string(),
            ),
            ("HLAMESH_DATA_PORT".into(), self.data_port.to_string()),
            ("HLAMESH_DISCOVERY_GROUP".into(), self.group.clone()),
        ]
    }

    /// The same settings as a local settings designator (the environment then holds none).
    pub fn designator(&self) -> String {
        format!(
            "hlamesh:interface=127.0.0.1;ttl=0;secret={};discovery_port={};data_port={};discovery_group={}",
            self.secret, self.discovery_port, self.data_port, self.group
        )
    }
}
