//! CPU placement of the latency driver and its peer on one machine (`latency --pin`).
//!
//! Why: on one machine the scheduler decides whether the two ends of a ping-pong share a CPU,
//! and that decides the round trip more than anything the RTI does. Unpinned, raw UDP's threads
//! (which block again within a microsecond of sending) end up sharing a CPU almost always, while
//! hlamesh's threads (a few microseconds of work after each send) share one in some runs and not
//! in others; measured on a 2-vCPU VM, hlamesh's 100-byte round trip was 19 µs or 48 µs from one
//! configuration to the next, raw UDP 14.6 µs throughout (see `benches/README.md`). Pinning both
//! processes gives both paths the same placement, so the ratio compares the software alone:
//! - [`Pinning::Free`] (the default of every subcommand): no pinning, what an application
//!   sees; the figures users get. Report a pinned figure only next to this one.
//! - [`Pinning::Split`]: the driver on one CPU, the peer on another, every thread of each. Each
//!   end has its own CPU, as on two machines.
//! - [`Pinning::Shared`]: both processes on one CPU.
//!
//! Pinning sets the calling thread's affinity before the process starts its other threads, which
//! inherit it; the driver restores its own affinity when the run ends.

use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
use serde::Serialize;

use crate::BenchError;

/// Where the driver and its peer run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pinning {
    /// Driver and peer on two different CPUs.
    Split,
    /// Driver and peer on the same CPU.
    Shared,
    /// Not pinned.
    Free,
}

impl Pinning {
    /// Its command-line spelling.
    pub fn arg(self) -> &'static str {
        match self {
            Pinning::Split => "split",
            Pinning::Shared => "shared",
            Pinning::Free => "free",
        }
    }
}

/// The CPUs a pinning chose: `None` where a process is not pinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The pinning asked for, after falling back (split needs two CPUs; the `--peer` mode on
    /// other machines pins nothing).
    pub pinning: Pinning,
    /// The driver's CPU.
    pub driver_cpu: Option<usize>,
    /// The peer's CPU.
    pub peer_cpu: Option<usize>,
}

impl Placement {
    /// "split: driver on CPU 0, peer on CPU 1" and the like.
    pub fn describe(&self) -> String {
        match (self.driver_cpu, self.peer_cpu) {
            (Some(d), Some(p)) => {
                format!("{}: driver on CPU {d}, peer on CPU {p}", self.pinning.arg())
            }
            _ => "free: not pinned".into(),
        }
    }
}

/// CPUs for `n` processes: with `Split`, process `k` gets the `k`-th allowed CPU (round robin
/// when there are more processes than CPUs); with `Shared`, all get the first; `None` each with
/// `Free`, or when `local` is false (processes on other machines). Returns the pinning after
/// falling back (split needs two CPUs).
pub fn for_processes(
    want: Pinning,
    local: bool,
    n: usize,
) -> Result<(Pinning, Vec<Option<usize>>), BenchError> {
    let cpus = allowed()?;
    let pinning = match (want, local, cpus.len()) {
        (_, false, _) | (Pinning::Free, ..) | (_, _, 0) => Pinning::Free,
        (Pinning::Split, _, 1) => Pinning::Shared,
        (p, ..) => p,
    };
    let of = |k: usize| match pinning {
        Pinning::Free => None,
        Pinning::Shared => Some(cpus[0]),
        Pinning::Split => Some(cpus[k % cpus.len()]),
    };
    Ok((pinning, (0..n).map(of).collect()))
}

/// The CPUs the calling thread may run on, in increasing order.
pub fn allowed() -> Result<Vec<usize>, BenchError> {
    let set = sched_getaffinity(None)
        .map_err(|e| BenchError::Protocol(format!("sched_getaffinity: {e}")))?;
    Ok((0..CpuSet::MAX_CPU).filter(|c| set.is_set(*c)).collect())
}

/// The calling thread pinned to a CPU (or not); dropping it gives the thread its affinity back,
/// also when a run ends with an error.
#[derive(Debug)]
pub struct Pinned(Option<CpuSet>);

impl Pinned {
    /// Pins the calling thread to `cpu`, if any (see [`pin_to`]).
    pub fn to(cpu: Option<usize>) -> Result<Pinned, BenchError> {
        Ok(Pinned(cpu.map(pin_to).transpose()?))
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(before) = &self.0 {
            restore(before);
        }
    }
}

/// Pins the calling thread (and the threads it starts from now on) to `cpu`; returns what it
/// was allowed before ([`Pinned`] gives it back when dropped).
pub fn pin_to(cpu: usize) -> Result<CpuSet, BenchError> {
    let before = sched_getaffinity(None)
        .map_err(|e| BenchError::Protocol(format!("sched_getaffinity: {e}")))?;
    let mut set = CpuSet::new();
    set.set(cpu);
    sched_setaffinity(None, &set)
        .map_err(|e| BenchError::Protocol(format!("pin to CPU {cpu}: {e}")))?;
    Ok(before)
}

/// Gives the calling thread back the affinity [`pin_to`] returned.
fn restore(before: &CpuSet) {
    if let Err(e) = sched_setaffinity(None, before) {
        tracing::warn!("restoring the CPU affinity: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_takes_effect_for_new_threads_and_is_restored() {
        let cpus = allowed().expect("affinity");
        assert!(!cpus.is_empty());
        let target = *cpus.last().expect("a CPU");
        let before = pin_to(target).expect("pin");
        let seen = std::thread::spawn(|| allowed().expect("affinity"))
            .join()
            .expect("thread");
        assert_eq!(
            seen,
            vec![target],
            "a thread started after pinning inherits it"
        );
        restore(&before);
        assert_eq!(allowed().expect("affinity"), cpus);
        // The guard restores on drop.
        {
            let _g = Pinned::to(Some(target)).expect("pin");
            assert_eq!(allowed().expect("affinity"), vec![target]);
        }
        assert_eq!(allowed().expect("affinity"), cpus);
    }

    #[test]
    fn split_needs_two_cpus_and_remote_peers_are_never_pinned() {
        let cpus = allowed().expect("affinity");
        let (p, two) = for_processes(Pinning::Split, true, 2).expect("choose");
        if cpus.len() >= 2 {
            assert_eq!(p, Pinning::Split);
            assert_ne!(two[0], two[1]);
        } else {
            assert_eq!(p, Pinning::Shared);
        }
        let (p, remote) = for_processes(Pinning::Split, false, 2).expect("choose");
        assert_eq!(p, Pinning::Free);
        assert_eq!(remote, vec![None, None]);
        let (p, four) = for_processes(Pinning::Split, true, 4).expect("choose");
        if p == Pinning::Split {
            // Round robin over the allowed CPUs.
            assert_eq!(four[0], Some(cpus[0]));
            assert_eq!(four[1], Some(cpus[1]));
            assert_eq!(four[3], Some(cpus[3 % cpus.len()]));
        }
        let (_, shared) = for_processes(Pinning::Shared, true, 2).expect("choose");
        assert_eq!(shared[0], shared[1]);
        assert!(shared[0].is_some());
    }
}
