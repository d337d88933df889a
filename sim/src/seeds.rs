//! Which seeds a sweep runs.

use std::ops::Range;

/// The seeds of one sweep: one seed replayed (`HLAMESH_SIM_SEED`), or `HLAMESH_SIM_SEEDS`
/// (or the sweep's own count variable) from `HLAMESH_SIM_FIRST_SEED`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeds {
    range: Range<u64>,
    replay: bool,
}

fn number(var: &str) -> Option<u64> {
    let v = std::env::var(var).ok()?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{var}={v:?} is not a number"),
    }
}

impl Seeds {
    /// The seeds from the environment, for a sweep that runs `count` seeds from `first` unless
    /// told otherwise. `count_var`, if given, is this sweep's own count variable, read before
    /// `HLAMESH_SIM_SEEDS`.
    pub fn from_env(first: u64, count: u64, count_var: Option<&str>) -> Seeds {
        Self::from_values(
            number("HLAMESH_SIM_SEED"),
            number("HLAMESH_SIM_FIRST_SEED"),
            count_var
                .and_then(number)
                .or_else(|| number("HLAMESH_SIM_SEEDS")),
            first,
            count,
        )
    }

    fn from_values(
        replay: Option<u64>,
        first_var: Option<u64>,
        count_var: Option<u64>,
        first: u64,
        count: u64,
    ) -> Seeds {
        match replay {
            Some(s) => Seeds {
                range: s..s.saturating_add(1),
                replay: true,
            },
            None => {
                let first = first_var.unwrap_or(first);
                let count = count_var.unwrap_or(count);
                Seeds {
                    range: first..first.saturating_add(count),
                    replay: false,
                }
            }
        }
    }

    /// Seed `seed` alone, as a named regression test runs it (not a replay).
    pub fn one(seed: u64) -> Seeds {
        Seeds {
            range: seed..seed.saturating_add(1),
            replay: false,
        }
    }

    /// The seeds, in order.
    pub fn iter(&self) -> Range<u64> {
        self.range.clone()
    }

    /// How many.
    pub fn len(&self) -> u64 {
        self.range.end - self.range.start
    }

    /// None at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One seed replayed (`HLAMESH_SIM_SEED`): coverage expectations of a sweep do not apply.
    pub fn is_replay(&self) -> bool {
        self.replay
    }

    /// How to replay `seed` of the test `test` of package `package`.
    pub fn rerun(package: &str, test_binary: &str, test: &str, seed: u64) -> String {
        format!(
            "HLAMESH_SIM_SEED={seed} cargo test --release -p {package} --test {test_binary} {test}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_runs_one_seed_and_a_sweep_its_range() {
        let r = Seeds::from_values(Some(7), Some(100), Some(5), 1, 400);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![7]);
        assert!(r.is_replay());
        let s = Seeds::from_values(None, Some(100), Some(5), 1, 400);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![100, 101, 102, 103, 104]);
        assert!(!s.is_replay());
        let d = Seeds::from_values(None, None, None, 1, 400);
        assert_eq!((d.iter().start, d.len()), (1, 400));
    }

    #[test]
    fn the_rerun_command_names_the_seed_and_the_test() {
        assert_eq!(
            Seeds::rerun("hlamesh-core", "rti_sim", "random_federations_converge", 3),
            "HLAMESH_SIM_SEED=3 cargo test --release -p hlamesh-core --test rti_sim \
             random_federations_converge"
        );
    }
}
