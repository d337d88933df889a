//! Randomised whole-federation simulation with the invariant checker (see tests/support).
//! `TIMESYNC_SEEDS=N` runs N seeds (default 1000) from `TIMESYNC_SEED_START` (default 0); `TIMESYNC_SEED=s` replays one seed.

mod support;

#[test]
fn random_federations_keep_every_invariant() {
    if let Ok(s) = std::env::var("TIMESYNC_SEED") {
        let seed: u64 = s.parse().expect("TIMESYNC_SEED is a number");
        let (v, p, g, _) = support::run_seed(seed);
        assert!(v.is_empty(), "seed {seed}: {v:#?}");
        println!("seed {seed}: {p} promises, {g} grants");
        return;
    }
    let n: u64 = std::env::var("TIMESYNC_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let (mut promises, mut grants) = (0, 0);
    let mut coverage = support::Coverage::default();
    let mut failed = Vec::new();
    let start: u64 = std::env::var("TIMESYNC_SEED_START")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for seed in start..start + n {
        let (v, p, g, c) = support::run_seed(seed);
        coverage.add(&c);
        promises += p;
        grants += g;
        if !v.is_empty() {
            eprintln!("seed {seed} FAILED (replay: TIMESYNC_SEED={seed}):");
            for line in &v {
                eprintln!("  {line}");
            }
            failed.push(seed);
        }
    }
    println!(
        "{n} seeds, {grants} grants, {promises} promises ({:.2} per grant)",
        promises as f64 / grants.max(1) as f64
    );
    println!("exercised: {coverage:?}");
    assert!(coverage.crashes > 0 && coverage.joins_late > 0 && coverage.resigns > 0);
    assert!(coverage.grants_by_kind.iter().all(|g| *g > 0) && coverage.ner_grants_at_message > 0);
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
}
