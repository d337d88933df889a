//! An `rti-shell` federate process driven line by line (see lrc/drivers/src/bin/rti-shell.rs).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use super::lab::{Lab, Ports, Probe, args, base_args};

pub const T: Duration = Duration::from_secs(20);

/// An `rti-shell` process and the lines it printed before its join returned (callbacks for a
/// joining federate, e.g. the announcement of a pending point, may come first).
pub struct Shell {
    pub p: Probe,
    pub backlog: VecDeque<serde_json::Value>,
}

impl Deref for Shell {
    type Target = Probe;
    fn deref(&self) -> &Probe {
        &self.p
    }
}

impl DerefMut for Shell {
    fn deref_mut(&mut self) -> &mut Probe {
        &mut self.p
    }
}

pub fn shell(lab: &Lab, host: usize, ports: &Ports, fed: &str, name: &str) -> (Shell, u64) {
    shell_env(lab, host, ports, fed, name, &[])
}

/// [`shell`] with extra environment variables.
pub fn shell_env(
    lab: &Lab,
    host: usize,
    ports: &Ports,
    fed: &str,
    name: &str,
    envs: &[(&str, &str)],
) -> (Shell, u64) {
    shell_with(lab, host, ports, fed, name, envs, &[])
}

/// [`shell`] with extra environment variables and command-line arguments.
pub fn shell_with(
    lab: &Lab,
    host: usize,
    ports: &Ports,
    fed: &str,
    name: &str,
    envs: &[(&str, &str)],
    extra: &[&str],
) -> (Shell, u64) {
    let mut a = base_args(lab, host, ports, fed);
    a.extend(args(extra));
    a.extend(args(&["--name", name, "--create", "--fom"]));
    a.push(super::fom("RestaurantProcesses.xml").display().to_string());
    let p =
        Probe::spawn_interactive_env(lab, host, env!("CARGO_BIN_EXE_rti-shell"), &a, name, envs);
    let mut backlog = VecDeque::new();
    loop {
        let l = p.lines.recv_timeout(T).expect("joined in time");
        assert_ne!(l["event"], "error", "[{name}] {l}");
        if l["event"] == "joined" {
            let h = l["handle"].as_u64().unwrap();
            return (Shell { p, backlog }, h);
        }
        backlog.push_back(l);
    }
}

/// Lines up to and including the first `event` with `label`; panics on a timeout.
pub fn until(p: &mut Shell, event: &str, label: &str) -> Vec<serde_json::Value> {
    let end = Instant::now() + T;
    let mut v = Vec::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let next = match p.backlog.pop_front() {
            Some(l) => Ok(l),
            None => p.p.lines.recv_timeout(left),
        };
        match next {
            Ok(l) => {
                assert_ne!(l["event"], "error", "[{}] {l}", p.name);
                let hit = l["event"] == event && l["label"] == label;
                v.push(l);
                if hit {
                    return v;
                }
            }
            Err(_) => panic!("[{}] no {event} {label} within {T:?}; got {v:?}", p.name),
        }
    }
}

pub fn cmd(p: &mut Shell, line: &str) -> serde_json::Value {
    p.send(line);
    let end = Instant::now() + T;
    loop {
        let l =
            p.p.lines
                .recv_timeout(end.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("[{}] no answer to {line}", p.name));
        if (l["event"] == "ok" || l["event"] == "failed") && l["cmd"] == line {
            return l;
        }
        p.backlog.push_back(l);
    }
}

/// Runs `line` and asserts it succeeded.
pub fn ok(p: &mut Shell, line: &str) {
    let l = cmd(p, line);
    assert_eq!(l["event"], "ok", "[{}] {line}: {l}", p.name);
}

/// Runs `line`, asserts it failed, and returns the error.
pub fn failed(p: &mut Shell, line: &str) -> String {
    let l = cmd(p, line);
    assert_eq!(l["event"], "failed", "[{}] {line}: {l}", p.name);
    l["error"].as_str().unwrap_or_default().to_string()
}

/// The next line with `event` (whatever its label), looking at lines set aside by [`cmd`] and
/// [`shell`] first: a callback can be printed before the answer to the command that caused it.
pub fn next_event(p: &mut Shell, event: &str) -> serde_json::Value {
    if let Some(i) = p.backlog.iter().position(|l| l["event"] == event) {
        let l = p.backlog.remove(i).unwrap_or_default();
        return l;
    }
    let end = Instant::now() + T;
    let mut seen = Vec::new();
    loop {
        match p
            .p
            .lines
            .recv_timeout(end.saturating_duration_since(Instant::now()))
        {
            Ok(l) if l["event"] == event => return l,
            Ok(l) => {
                assert_ne!(l["event"], "error", "[{}] {l}", p.name);
                seen.push(l);
            }
            Err(_) => panic!(
                "[{}] no {event} within {T:?}; skipped {seen:?}; set aside {:?}",
                p.name, p.backlog
            ),
        }
    }
}

/// The values `s` reflected up to the interaction labelled `mark`, in order (bounded by [`T`]).
pub fn reflected_until(s: &mut Shell, mark: &str) -> Vec<String> {
    let end = Instant::now() + T;
    let mut got = Vec::new();
    loop {
        let l = match s.backlog.pop_front() {
            Some(l) => l,
            None => {
                s.p.lines
                    .recv_timeout(end.saturating_duration_since(Instant::now()))
                    .unwrap_or_else(|_| panic!("[{}] no interaction {mark}; got {got:?}", s.name))
            }
        };
        assert_ne!(l["event"], "error", "[{}] {l}", s.name);
        match l["event"].as_str() {
            Some("reflect") => got.push(l["value"].as_str().unwrap_or_default().to_string()),
            Some("interaction") if l["label"] == mark => return got,
            _ => {}
        }
    }
}

/// A federate of the DDM cell tests: `rti-shell` with `foms/Cells.xml`.
pub fn cells_shell(lab: &Lab, host: usize, ports: &Ports, fed: &str, name: &str) -> (Shell, u64) {
    let fom = super::fom("Cells.xml").display().to_string();
    shell_with(lab, host, ports, fed, name, &[], &["--fom", &fom])
}

/// The DDM cell-group counters `s` prints (its `cells` command).
pub fn cells(s: &mut Shell) -> serde_json::Value {
    ok(s, "cells");
    next_event(s, "cells")
}
