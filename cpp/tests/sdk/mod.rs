//! Harness of the SDK's multi-process tests: installs the SDK once per test binary with
//! `deploy/install-sdk.sh` into a temporary prefix, builds the C++ test federate
//! (`tests/federates/fedshell.cpp`) from it as a user would (pkg-config, or CMake's
//! `find_package`), and runs federates as separate processes — C++ ones and the Rust
//! `rust-fedshell` — on loopback multicast (TTL 0) with a development secret and ports,
//! groups and federation names unique to each test. Each process is driven by lines on stdin
//! and answers with JSON lines; every wait is bounded, and processes are killed on drop (so a
//! failing test leaves none behind).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

/// How long any one awaited event may take.
pub const T: Duration = Duration::from_secs(20);

/// The repository's root.
pub fn repo_root() -> PathBuf {
    hlamesh_cpp::crate_dir()
        .join("..")
        .canonicalize()
        .expect("repository root")
}

/// The demo federation's FOM module, which the tests use.
pub fn demo_fom() -> PathBuf {
    repo_root().join("fed-examples/foms/HlameshDemo.xml")
}

/// The installed SDK and the test federate built from it with pkg-config.
pub struct Sdk {
    pub prefix: PathBuf,
    pub fedshell: PathBuf,
    pub install_time: Duration,
}

static SDK: OnceLock<Result<Sdk, String>> = OnceLock::new();
static CMAKE_FEDSHELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();

fn run_checked(mut cmd: Command, what: &str, limit: Duration) -> Result<String, String> {
    let shown = format!("{cmd:?}");
    cmd.stdin(Stdio::null());
    let run = common::run_bounded(cmd, "", limit);
    if run.success {
        if std::env::var_os("HLAMESH_SDK_VERBOSE").is_some() {
            eprintln!("{what}:\n{}{}", run.stdout, run.stderr);
        }
        Ok(run.stdout)
    } else {
        Err(format!(
            "{what} failed: {shown}\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        ))
    }
}

fn install() -> Result<Sdk, String> {
    let prefix = common::work_dir("sdk-prefix");
    let start = Instant::now();
    let mut cmd = Command::new("bash");
    cmd.arg(repo_root().join("deploy/install-sdk.sh"))
        .arg(&prefix)
        .current_dir(repo_root());
    run_checked(cmd, "deploy/install-sdk.sh", Duration::from_secs(1800))?;
    let install_time = start.elapsed();
    eprintln!(
        "SDK installed into {} in {install_time:?}",
        prefix.display()
    );

    let dir = hlamesh_cpp::crate_dir().join("tests/federates");
    let out = pkg_config_build(
        &prefix,
        &dir.join("fedshell.cpp"),
        "sdk-fedshell",
        "fedshell",
    )?;
    Ok(Sdk {
        prefix,
        fedshell: out,
        install_time,
    })
}

/// Builds one C++ source against the SDK installed in `prefix` as the README tells a user to:
/// `c++ -std=c++17 fed.cpp $(pkg-config --cflags --libs rti1516e)` (warnings as errors).
/// Returns the program, `out` in the work dir `work`.
fn pkg_config_build(
    prefix: &Path,
    source: &Path,
    work: &str,
    out: &str,
) -> Result<PathBuf, String> {
    let mut pc = Command::new("pkg-config");
    pc.args(["--cflags", "--libs", "rti1516e"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"));
    let flags = run_checked(pc, "pkg-config", Duration::from_secs(60))?;
    let out = common::work_dir(work).join(out);
    let mut args: Vec<String> = vec![
        "-std=c++17".into(),
        "-O2".into(),
        "-Wall".into(),
        "-Wextra".into(),
        "-Werror".into(),
        source.display().to_string(),
    ];
    args.extend(flags.split_whitespace().map(str::to_string));
    args.extend(["-o".into(), out.display().to_string()]);
    common::compile(&args)?;
    Ok(out)
}

/// [`pkg_config_build`] against the test binary's installed SDK.
pub fn build_with_pkg_config(source: &Path, work: &str, out: &str) -> Result<PathBuf, String> {
    pkg_config_build(&sdk().prefix, source, work, out)
}

/// Whether `cmake` runs on this machine. The README's test command needs only the Rust
/// toolchain (and a C++ compiler with pkg-config for the C++ API), so without CMake a test that
/// builds with `find_package` says SKIP and builds with pkg-config instead; CI sets
/// `HLAMESH_REQUIRE_TOOLS=1` (`.ci/run`, which installs CMake), and there a missing CMake fails
/// the test, so the CMake path is always checked where it can be.
pub fn cmake_available(test: &str) -> bool {
    let ok = Command::new("cmake")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("HLAMESH_REQUIRE_TOOLS").is_none(),
            "{test}: cmake is required (HLAMESH_REQUIRE_TOOLS is set) but does not run"
        );
        eprintln!(
            "SKIP the CMake build in {test}: no `cmake` (Debian package `cmake`; .ci/run \
             installs it); building with pkg-config instead"
        );
    }
    ok
}

/// The SDK, installed on first use (once per test binary).
pub fn sdk() -> &'static Sdk {
    match SDK.get_or_init(install) {
        Ok(s) => s,
        Err(e) => panic!("installing the SDK failed:\n{e}"),
    }
}

/// Configures and builds the CMake project in `source` against the installed SDK (as its
/// user would: `-DCMAKE_PREFIX_PATH=<prefix>`); returns the build directory.
pub fn cmake_build(source: &Path, name: &str) -> Result<PathBuf, String> {
    let prefix = &sdk().prefix;
    let build = common::work_dir(name);
    // The work dir lives in the (possibly cached) target dir, which may have served a clone at
    // another path or been copied from another place, and CMake refuses a build dir configured
    // for another source or created elsewhere (its generated files name the old place even
    // after a failed reconfigure rewrote the cache). A user's first build starts from nothing,
    // and so does this one: the federate is small.
    if build.join("CMakeCache.txt").exists() {
        std::fs::remove_dir_all(&build)
            .map_err(|e| format!("clearing the old build dir {}: {e}", build.display()))?;
        std::fs::create_dir_all(&build)
            .map_err(|e| format!("creating the build dir {}: {e}", build.display()))?;
    }
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(source)
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
        .arg("-DCMAKE_BUILD_TYPE=Release")
        .arg(format!("-DCMAKE_CXX_COMPILER={}", common::compiler()));
    run_checked(configure, "cmake configure", Duration::from_secs(300))?;
    let mut make = Command::new("cmake");
    make.arg("--build").arg(&build);
    run_checked(make, "cmake --build", Duration::from_secs(600))?;
    Ok(build)
}

/// The test federate built with CMake (`find_package(RTI1516e)`, `tests/federates/CMakeLists.txt`).
pub fn cmake_fedshell() -> &'static Path {
    let built = CMAKE_FEDSHELL.get_or_init(|| {
        let dir = hlamesh_cpp::crate_dir().join("tests/federates");
        cmake_build(&dir, "sdk-cmake-build").map(|b| b.join("fedshell"))
    });
    match built {
        Ok(p) => p,
        Err(e) => panic!("building the test federate with CMake failed:\n{e}"),
    }
}

/// Network settings and names unique to one test.
pub struct Net {
    pub federation: String,
    discovery_port: u16,
    data_port: u16,
    group: String,
    secret: String,
    save_dir: PathBuf,
}

static NEXT: AtomicU16 = AtomicU16::new(0);

impl Net {
    pub fn new(test: &str) -> Net {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let pid = std::process::id();
        // Below the kernel's ephemeral port range; distinct per process and per test.
        let base = 21_000 + ((pid % 110) as u16) * 100 + (n % 25) * 4;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let save_dir = common::work_dir(&format!("sdk-saves-{test}-{pid}"));
        Net {
            federation: format!("cppsdk-{test}-{pid}-{nanos}"),
            discovery_port: base,
            data_port: base + 1,
            group: format!("239.255.{}.{}", 150 + (n % 50), pid % 250 + 1),
            secret: format!("cppsdk-secret-{pid}-{nanos}"),
            save_dir,
        }
    }

    fn env(&self, cmd: &mut Command) {
        cmd.env("HLAMESH_INTERFACE", "127.0.0.1")
            .env("HLAMESH_TTL", "0")
            .env("HLAMESH_DISCOVERY_PORT", self.discovery_port.to_string())
            .env("HLAMESH_DATA_PORT", self.data_port.to_string())
            .env("HLAMESH_DISCOVERY_GROUP", &self.group)
            .env("HLAMESH_SECRET", &self.secret)
            .env("HLAMESH_SAVE_DIR", &self.save_dir)
            .env_remove("HLAMESH_METRICS_ADDR");
    }

    /// A C++ federate (the pkg-config build) with a callback model.
    pub fn cpp(&self, name: &str, model: Model) -> Fed {
        self.spawn(&sdk().fedshell, &["--model", model.arg()], name)
    }

    /// A C++ federate built with CMake.
    pub fn cpp_cmake(&self, name: &str, model: Model) -> Fed {
        self.spawn(cmake_fedshell(), &["--model", model.arg()], name)
    }

    /// The Rust federate.
    pub fn rust(&self, name: &str) -> Fed {
        self.spawn(Path::new(env!("CARGO_BIN_EXE_rust-fedshell")), &[], name)
    }

    fn spawn(&self, program: &Path, args: &[&str], name: &str) -> Fed {
        let mut fed = self.spawn_plain(program, args, name);
        fed.next("connected");
        fed
    }

    /// Any program with this test's network settings; its stdout lines that are not JSON
    /// arrive as JSON strings.
    pub fn spawn_plain(&self, program: &Path, args: &[&str], name: &str) -> Fed {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.env(&mut cmd);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        let stdin = child.stdin.take().expect("child stdin");
        let stdout = child.stdout.take().expect("child stdout");
        let mut stderr = child.stderr.take().expect("child stderr");
        let (tx, rx) = channel();
        let who = name.to_string();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if tx.send(v).is_err() {
                    break;
                }
            }
            let _ = who;
        });
        let log = Arc::new(Mutex::new(String::new()));
        let log2 = log.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut l) = log2.lock() {
                    l.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        Fed {
            name: name.to_string(),
            child,
            stdin,
            lines: rx,
            backlog: VecDeque::new(),
            stderr: log,
        }
    }
}

/// The standard's callback models.
#[derive(Clone, Copy, Debug)]
pub enum Model {
    Evoked,
    Immediate,
}

impl Model {
    fn arg(self) -> &'static str {
        match self {
            Model::Evoked => "evoked",
            Model::Immediate => "immediate",
        }
    }
}

/// A federate process driven line by line.
pub struct Fed {
    pub name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    backlog: VecDeque<Value>,
    stderr: Arc<Mutex<String>>,
}

impl Drop for Fed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Fed {
    fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn recv(&mut self, deadline: Instant, what: &str) -> Value {
        match self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!(
                "[{}] no {what} within {T:?}; unconsumed: {:?}\nstderr:\n{}",
                self.name,
                self.backlog,
                self.stderr()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "[{}] exited while waiting for {what}; unconsumed: {:?}\nstderr:\n{}",
                self.name,
                self.backlog,
                self.stderr()
            ),
        }
    }

    /// Sends one command line.
    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .unwrap_or_else(|e| panic!("[{}] write {line:?}: {e}", self.name));
    }

    /// The answer to `line` (callbacks printed meanwhile are kept for later).
    pub fn cmd(&mut self, line: &str) -> Value {
        self.send(line);
        let deadline = Instant::now() + T;
        loop {
            let v = self.recv(deadline, &format!("answer to {line:?}"));
            if (v["event"] == "ok" || v["event"] == "failed") && v["cmd"] == line {
                return v;
            }
            self.backlog.push_back(v);
        }
    }

    /// Runs `line`, which must succeed.
    pub fn ok(&mut self, line: &str) -> Value {
        let v = self.cmd(line);
        assert_eq!(
            v["event"],
            "ok",
            "[{}] {line} failed: {v}\nstderr:\n{}",
            self.name,
            self.stderr()
        );
        v
    }

    /// Runs `line`, which must fail with the standard exception class `class`.
    pub fn fails_with(&mut self, line: &str, class: &str) -> Value {
        let v = self.cmd(line);
        assert_eq!(
            v["event"], "failed",
            "[{}] {line} should fail: {v}",
            self.name
        );
        assert_eq!(v["exception"], class, "[{}] {line}: {v}", self.name);
        v
    }

    /// The first event matching `pred`, set-aside lines first; the others stay set aside.
    pub fn next_where(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).unwrap_or_default();
        }
        let deadline = Instant::now() + T;
        loop {
            let v = self.recv(deadline, what);
            assert_ne!(v["event"], "error", "[{}] {v}", self.name);
            if pred(&v) {
                return v;
            }
            self.backlog.push_back(v);
        }
    }

    /// The first event called `event`.
    pub fn next(&mut self, event: &str) -> Value {
        self.next_where(event, |v| v["event"] == event)
    }

    /// Every line in order (set-aside ones first) up to and including the first matching
    /// `pred`; these are consumed.
    pub fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        while let Some(v) = self.backlog.pop_front() {
            let hit = pred(&v);
            seen.push(v);
            if hit {
                return seen;
            }
        }
        let deadline = Instant::now() + T;
        loop {
            let v = self.recv(deadline, what);
            let hit = pred(&v);
            seen.push(v);
            if hit {
                return seen;
            }
        }
    }

    /// The grant to exactly `t` (no other grant first).
    pub fn granted(&mut self, t: f64) {
        let g = self.next("grant");
        assert_eq!(g["time"].as_f64(), Some(t), "[{}] grant {g}", self.name);
    }

    /// Every set-aside line whose event is `event` (for checks that none came).
    pub fn set_aside(&self, event: &str) -> Vec<Value> {
        self.backlog
            .iter()
            .filter(|v| v["event"] == event)
            .cloned()
            .collect()
    }

    /// `kill -9`.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The bytes as the federates print them.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
