//! The offset estimate converges to within its own error bound under an injected offset, clock
//! drift and random asymmetric delays.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_timesync::clock_offset::{ClockOffsetEstimator, Probe};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn estimate_stays_within_its_bound_and_converges() {
    for seed in 0..50u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let offset: i64 = rng.random_range(-5_000_000_000..5_000_000_000); // ±5 s
        let drift_ppm: f64 = rng.random_range(-20.0..20.0); // remote runs fast or slow
        let mut est = ClockOffsetEstimator::new(32, 50);
        let base: u64 = 1_700_000_000_000_000_000;
        let mut true_now: u64 = 0; // ns since start, "true" time = local clock
        let remote = |t: u64| -> u64 {
            (base as i128 + offset as i128 + (t as f64 * (1.0 + drift_ppm * 1e-6)) as i128) as u64
        };
        let mut last_bound = u64::MAX;
        for i in 0..400 {
            true_now += rng.random_range(5_000_000..20_000_000); // a probe every 5-20 ms
            // Asymmetric: a floor of 50 µs each way, plus independent jitter and rare spikes.
            let mut out = 50_000 + rng.random_range(0..300_000);
            let mut back = 50_000 + rng.random_range(0..300_000);
            if rng.random_bool(0.1) {
                out += rng.random_range(0..5_000_000);
            }
            if rng.random_bool(0.1) {
                back += rng.random_range(0..5_000_000);
            }
            let hold = rng.random_range(1_000..30_000);
            let t1 = base + true_now;
            let t2 = remote(true_now + out);
            let t3 = remote(true_now + out + hold);
            let t4 = base + true_now + out + hold + back;
            est.add_probe(Probe { t1, t2, t3, t4 })
                .expect("valid probe");
            let now_local = t4;
            let e = est.estimate(now_local).expect("an estimate");
            // True offset at this moment (remote minus local).
            let truth = remote(true_now + out + hold + back) as i128 - now_local as i128;
            let err = (e.offset_ns as i128 - truth).unsigned_abs();
            assert!(
                err <= u128::from(e.error_bound_ns),
                "seed {seed} probe {i}: error {err} > bound {}",
                e.error_bound_ns
            );
            last_bound = e.error_bound_ns;
        }
        // Converged: the best probe in the window is close to the 50 µs floor each way.
        assert!(
            last_bound < 200_000,
            "seed {seed}: bound {last_bound} ns did not converge"
        );
    }
}
