//! `viewer`: shows the federation live — a terminal map when stdout is a terminal, plain lines
//! otherwise (see `hlamesh_examples::viewer`).
use std::io::IsTerminal;

use clap::Parser;
use hlamesh_examples::federate::{CommonArgs, init_logging, run};
use hlamesh_examples::viewer::{HZ, Viewer};
use hlamesh_lrc::engine::TimeScheme;

#[derive(Parser, Debug)]
#[command(about = "A viewer federate: subscribes to everything and shows it")]
struct Args {
    #[command(flatten)]
    common: CommonArgs,
    /// Plain lines even on a terminal.
    #[arg(long)]
    plain: bool,
}

fn main() {
    init_logging();
    let a = Args::parse();
    let scheme = TimeScheme::Periodic {
        hz: HZ,
        pace: a.common.pace(),
    };
    // Constrained but not regulating: it sees everything in time and holds nobody back.
    let cfg = a.common.config("viewer", "Viewer", scheme, None, true);
    let tui = !a.plain && std::io::stdout().is_terminal();
    std::process::exit(run(&a.common, cfg, Viewer::new(tui)));
}
