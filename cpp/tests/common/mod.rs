//! Builds and runs the C++ test programs under `tests/cpp/` against the standard's headers and
//! the archives this crate's build script made, the way a federate is built: with `$CXX` (or
//! `c++`), `-I include -L … -lfedtime1516e -lrti1516e`. Every compile and run is bounded in time.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The C++ compiler: `$CXX`, else `c++`.
pub fn compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".to_string())
}

/// The directory of the C++ test programs.
pub fn program_dir() -> PathBuf {
    hlamesh_cpp::crate_dir().join("tests").join("cpp")
}

/// A fresh directory for this test's build products.
pub fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hlamesh-cpp")
        .join(name);
    std::fs::create_dir_all(&dir).expect("create the test's build directory");
    dir
}

/// What a bounded run produced.
#[derive(Debug)]
pub struct Run {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with `stdin` as its input, killing it after `limit`.
pub fn run_bounded(mut cmd: Command, stdin: &str, limit: Duration) -> Run {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("start {cmd:?}: {e}"));
    let mut input = child.stdin.take().expect("child stdin");
    let stdin = stdin.to_string();
    let writer = std::thread::spawn(move || {
        // A program that exits early closes its end; that is not this test's failure.
        let _ = input.write_all(stdin.as_bytes());
    });
    let mut out = child.stdout.take().expect("child stdout");
    let mut err = child.stderr.take().expect("child stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait().expect("wait for the child") {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{cmd:?} did not finish within {limit:?}");
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let _ = writer.join();
    Run {
        success: status.success(),
        stdout: reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
}

/// Compiles (and links, unless `-c` or `-fsyntax-only` is among `flags`) with the given flags;
/// the compiler's messages on failure.
pub fn compile(args: &[String]) -> Result<(), String> {
    let mut cmd = Command::new(compiler());
    cmd.args(args);
    let run = run_bounded(cmd, "", Duration::from_secs(300));
    if run.success {
        Ok(())
    } else {
        Err(format!(
            "{} {}\n{}{}",
            compiler(),
            args.join(" "),
            run.stdout,
            run.stderr
        ))
    }
}

/// Builds `tests/cpp/<program>.cpp` in C++ dialect `std` (e.g. "c++17") against the headers
/// and the archives, with every warning an error, and returns the executable.
pub fn build_program(program: &str, std: &str) -> PathBuf {
    let exe = work_dir(program).join(format!("{program}-{std}"));
    let mut args: Vec<String> = vec![
        format!("-std={std}"),
        "-Wall".into(),
        "-Wextra".into(),
        "-Werror".into(),
        "-I".into(),
        hlamesh_cpp::include_dir().display().to_string(),
        // The library's internal headers, for tests that make handles from numbers.
        "-I".into(),
        hlamesh_cpp::crate_dir().join("src").display().to_string(),
        program_dir()
            .join(format!("{program}.cpp"))
            .display()
            .to_string(),
        "-o".into(),
        exe.display().to_string(),
    ];
    args.extend(link_args());
    compile(&args).unwrap_or_else(|e| panic!("building {program} failed:\n{e}"));
    exe
}

/// The link flags a federate uses.
pub fn link_args() -> Vec<String> {
    vec![
        "-L".into(),
        hlamesh_cpp::lib_dir().display().to_string(),
        format!("-l{}", hlamesh_cpp::FEDTIME_LIB),
        format!("-l{}", hlamesh_cpp::RTI_LIB),
    ]
}

/// Runs a built program with `args` and `stdin`; panics with its output unless it succeeds.
pub fn run_program(exe: &Path, args: &[&str], stdin: &str) -> String {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    let run = run_bounded(cmd, stdin, Duration::from_secs(120));
    assert!(
        run.success,
        "{} {args:?} failed\nstdout:\n{}\nstderr:\n{}",
        exe.display(),
        run.stdout,
        run.stderr
    );
    run.stdout
}

/// Lowercase hex, "-" for no bytes (the C++ programs' format).
pub fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// "name hex" lines into pairs.
pub fn parse_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.to_string()))
        })
        .collect()
}
