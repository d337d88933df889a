//! CPU time and context switches of a process, summed over its threads, from
//! `/proc/<pid>/task/*/schedstat` (nanoseconds on a CPU) and `.../status` (voluntary and
//! involuntary context switches). Threads that already exited are not counted; the bench's
//! processes keep theirs for the whole run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcSample {
    /// Nanoseconds spent on a CPU.
    pub cpu_ns: u64,
    /// Context switches (voluntary + involuntary).
    pub ctx_switches: u64,
}

impl ProcSample {
    /// Reads process `pid` (this process when `None`); zeros where /proc is unreadable.
    pub fn of(pid: Option<u32>) -> ProcSample {
        let mut s = ProcSample::default();
        for t in ProcSample::threads(pid).values() {
            s.cpu_ns += t.cpu_ns;
            s.ctx_switches += t.ctx_switches;
        }
        s
    }

    /// Per thread name (threads of one name summed), for process `pid` (this one when `None`).
    pub fn threads(pid: Option<u32>) -> BTreeMap<String, ProcSample> {
        let dir = match pid {
            Some(p) => format!("/proc/{p}/task"),
            None => "/proc/self/task".to_string(),
        };
        let mut out = BTreeMap::new();
        let Ok(tasks) = std::fs::read_dir(&dir) else {
            return out;
        };
        for t in tasks.flatten() {
            let p = t.path();
            let name = std::fs::read_to_string(p.join("comm"))
                .map(|c| c.trim().to_string())
                .unwrap_or_default();
            let s: &mut ProcSample = out.entry(name).or_default();
            if let Ok(text) = std::fs::read_to_string(p.join("schedstat")) {
                s.cpu_ns += text
                    .split_whitespace()
                    .next()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0);
            }
            if let Ok(text) = std::fs::read_to_string(p.join("status")) {
                s.ctx_switches += text
                    .lines()
                    .filter(|l| l.contains("ctxt_switches:"))
                    .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                    .sum::<u64>();
            }
        }
        out
    }

    /// Per-thread differences since `earlier` (threads that appeared count from zero).
    pub fn threads_since(
        now: &BTreeMap<String, ProcSample>,
        earlier: &BTreeMap<String, ProcSample>,
    ) -> BTreeMap<String, ProcSample> {
        now.iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.since(earlier.get(k).copied().unwrap_or_default()),
                )
            })
            .collect()
    }

    /// This process now.
    pub fn now() -> ProcSample {
        ProcSample::of(None)
    }

    /// What happened since `earlier`.
    pub fn since(self, earlier: ProcSample) -> ProcSample {
        ProcSample {
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            ctx_switches: self.ctx_switches.saturating_sub(earlier.ctx_switches),
        }
    }
}
