//! Randomised whole-federation simulation with the invariant checker (see tests/support).
//! Seeds as every hlamesh simulator takes them (`hlamesh-sim`): `HLAMESH_SIM_SEEDS=N` runs N
//! seeds (default 1000) from `HLAMESH_SIM_FIRST_SEED` (default 0); `HLAMESH_SIM_SEED=s` replays
//! one; `HLAMESH_SIM_TRACE=time` traces it.

mod support;

use hlamesh_sim::Seeds;

#[test]
fn random_federations_keep_every_invariant() {
    let seeds = Seeds::from_env(0, 1000, None);
    let (mut promises, mut grants) = (0, 0);
    let mut coverage = support::Coverage::default();
    let mut failed = Vec::new();
    for seed in seeds.iter() {
        let (v, p, g, c) = support::run_seed(seed);
        coverage.add(&c);
        promises += p;
        grants += g;
        if !v.is_empty() {
            eprintln!(
                "seed {seed} FAILED (replay: {}):",
                Seeds::rerun(
                    "hlamesh-timesync",
                    "sim",
                    "random_federations_keep_every_invariant",
                    seed
                )
            );
            for line in &v {
                eprintln!("  {line}");
            }
            failed.push(seed);
        }
    }
    println!(
        "{} seeds, {grants} grants, {promises} promises ({:.2} per grant)",
        seeds.len(),
        promises as f64 / grants.max(1) as f64
    );
    println!("exercised: {coverage:?}");
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
    if seeds.is_replay() {
        return;
    }
    assert!(coverage.crashes > 0 && coverage.joins_late > 0 && coverage.resigns > 0);
    assert!(coverage.grants_by_kind.iter().all(|g| *g > 0) && coverage.ner_grants_at_message > 0);
}
