//! What a run reports: the machine it ran on, latency summaries from an HDR histogram, and the
//! JSON file (with the plot next to it, SVG and PNG).

use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::BenchError;

/// The machine a run was measured on (from /proc; "unknown" where unreadable).
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// CPU model name.
    pub cpu_model: String,
    /// Kernel release.
    pub kernel: String,
    /// Host name.
    pub hostname: String,
    /// Load averages (1, 5, 15 min) when the run started.
    pub loadavg: String,
}

fn read_trim(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

impl Machine {
    /// Describes this machine.
    pub fn describe() -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let loadavg = read_trim("/proc/loadavg")
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        Machine {
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            cpu_model,
            kernel: read_trim("/proc/sys/kernel/osrelease"),
            hostname: read_trim("/proc/sys/kernel/hostname"),
            loadavg,
        }
    }
}

/// Latency distribution of one path, in microseconds.
#[derive(Clone, Debug, Serialize)]
pub struct LatencySummary {
    /// Samples recorded.
    pub samples: u64,
    /// Smallest.
    pub min_us: f64,
    /// Mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// Largest.
    pub max_us: f64,
    /// (quantile, µs) points of the CDF, for plotting.
    pub cdf: Vec<(f64, f64)>,
}

/// A histogram for round trips in nanoseconds (1 ns – 60 s, 3 significant digits).
pub fn new_histogram() -> Result<Histogram<u64>, BenchError> {
    Histogram::new_with_bounds(1, 60_000_000_000, 3)
        .map_err(|e| BenchError::Protocol(format!("histogram: {e}")))
}

impl LatencySummary {
    /// Summarises a histogram of nanoseconds.
    pub fn of(h: &Histogram<u64>) -> LatencySummary {
        let us = |ns: u64| ns as f64 / 1000.0;
        let q = |x: f64| us(h.value_at_quantile(x));
        let mut cdf = Vec::new();
        for i in 0..=100 {
            let x = f64::from(i) / 100.0;
            cdf.push((x, q(x)));
        }
        for x in [0.995, 0.999, 0.9995, 0.9999] {
            cdf.push((x, q(x)));
        }
        cdf.sort_by(|a, b| a.0.total_cmp(&b.0));
        LatencySummary {
            samples: h.len(),
            min_us: us(h.min()),
            mean_us: h.mean() / 1000.0,
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            p999_us: q(0.999),
            max_us: us(h.max()),
            cdf,
        }
    }
}

/// The default output file of a subcommand: `bench-out/<subcommand>.json`.
pub fn default_out(subcommand: &str) -> PathBuf {
    PathBuf::from("bench-out").join(format!("{subcommand}.json"))
}

/// Writes the JSON report and the plot next to it (same name, `.svg` and `.png`); returns the
/// paths of the plot files.
pub fn write_outputs(
    out: &Path,
    report: &impl Serialize,
    plot: &crate::plot::Plot,
) -> Result<Plots, BenchError> {
    if let Some(dir) = out.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(BenchError::io(format!("create {}", dir.display())))?;
    }
    let json = serde_json::to_string_pretty(report)
        .map_err(|e| BenchError::Protocol(format!("serialise report: {e}")))?;
    std::fs::write(out, json).map_err(BenchError::io(format!("write {}", out.display())))?;
    let svg_path = out.with_extension("svg");
    std::fs::write(&svg_path, plot.svg())
        .map_err(BenchError::io(format!("write {}", svg_path.display())))?;
    let png_path = out.with_extension("png");
    std::fs::write(&png_path, plot.png()?)
        .map_err(BenchError::io(format!("write {}", png_path.display())))?;
    Ok(Plots {
        svg: svg_path,
        png: png_path,
    })
}

/// Where a run's plot went.
#[derive(Clone, Debug)]
pub struct Plots {
    /// The SVG.
    pub svg: PathBuf,
    /// The same plot as PNG.
    pub png: PathBuf,
}

impl std::fmt::Display for Plots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} and {}", self.svg.display(), self.png.display())
    }
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Median of a list (0 when empty).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}
