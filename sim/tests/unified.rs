//! The unified simulator in CI (see `hlamesh_sim::world`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_sim::{Options, Seeds};

fn sweep(test: &str, seeds: Seeds, options: impl Fn(u64) -> Options) {
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    for seed in seeds.iter() {
        let o = options(seed);
        match hlamesh_sim::run(seed, &o) {
            Ok(r) => {
                if hlamesh_sim::tracing_any() || seeds.is_replay() {
                    eprintln!("seed {seed}: {r:?}");
                }
            }
            Err(f) => {
                eprintln!(
                    "{f}\nreplay: {}",
                    Seeds::rerun("hlamesh-sim", "unified", test, seed)
                );
                failures.push(seed);
            }
        }
    }
    eprintln!("{} seeds in {:?}", seeds.len(), started.elapsed());
    assert!(failures.is_empty(), "failed seeds: {failures:?}");
}

#[test]
fn random_federations_with_swarm_options_converge() {
    sweep(
        "random_federations_with_swarm_options_converge",
        Seeds::from_env(1, 20, Some("HLAMESH_SIM_UNIFIED_SEEDS")),
        Options::swarm,
    );
}

#[test]
fn broken_repairs_probe() {
    for seed in 1..40 {
        let mut o = Options::swarm(seed);
        if o.link.loss_per_mille == 0 {
            continue;
        }
        o.break_repairs = true;
        match hlamesh_sim::run(seed, &o) {
            Ok(r) => eprintln!("seed {seed} PASSED despite broken repairs: {r:?}"),
            Err(f) => eprintln!("seed {seed}: {}", f.message),
        }
    }
}
