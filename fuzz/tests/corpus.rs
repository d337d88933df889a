//! Replays every committed input of every target on stable: the seed corpus
//! (`fuzz/corpus/<target>/`) and the inputs that once found a defect
//! (`fuzz/regressions/<target>/`). Runs in the normal `cargo test --workspace --release`.

use std::path::{Path, PathBuf};

use hlamesh_fuzz::{TARGETS, target};

fn dir(kind: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(kind).join(name)
}

fn files(d: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(d) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// Runs `name` on every file of its corpus and regression folders; returns how many.
fn replay(name: &str) -> usize {
    let t = target(name).expect("a target of that name");
    let mut n = 0;
    for kind in ["corpus", "regressions"] {
        for f in files(&dir(kind, name)) {
            let bytes = std::fs::read(&f).expect("committed input readable");
            // A failing input names itself before the panic message.
            eprintln!("replaying {}", f.display());
            t(&bytes);
            n += 1;
        }
    }
    n
}

macro_rules! corpus_test {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let n = replay(stringify!($name));
            assert!(n >= 3, "the {} corpus holds {n} inputs", stringify!($name));
        }
    )*};
}

mod corpus {
    use super::replay;
    corpus_test!(
        datagram,
        repair_nack,
        control_frame,
        beacon,
        lrc_wire,
        save_file,
        fom,
        dynamic,
        receiver,
    );
}

#[test]
fn every_target_has_a_test_and_a_libfuzzer_binary() {
    let src = include_str!("corpus.rs");
    let libfuzzer = Path::new(env!("CARGO_MANIFEST_DIR")).join("libfuzzer/fuzz_targets");
    for (name, _) in TARGETS {
        assert!(
            src.contains(&format!("        {name},\n")),
            "no replay test for {name}"
        );
        assert!(
            libfuzzer.join(format!("{name}.rs")).is_file(),
            "no libFuzzer binary for {name}"
        );
    }
}

/// The regression inputs named in `fuzz/README.md`, one test each.
mod regressions {
    use super::dir;

    fn run(target: &str, file: &str) {
        let path = dir("regressions", target).join(file);
        let bytes = std::fs::read(&path).expect("committed regression input");
        hlamesh_fuzz::target(target).expect("target")(&bytes);
    }

    /// Issue 20, finding 6a: a repair holding a datagram whose (unauthenticated) header says seq = 2^64 − 1
    /// overflowed `seq + frames − 1` in `DataReceiver::on_repair`.
    #[test]
    fn repair_with_a_forged_seq_at_the_top() {
        run("receiver", "repair-forged-seq-max");
    }

    /// Issue 20, finding 6b: repairs whose `first_available` is near 2^64 from two members overflowed the count
    /// of numbers lost (`fell_behind_seqs`).
    #[test]
    fn repairs_with_first_available_near_the_top() {
        run("repair_nack", "repair-first-available-near-max");
        run("receiver", "repairs-first-available-near-max");
    }

    /// Issue 20, finding 6c: a heartbeat announcing best-effort high-water 2^64 − 1 before any best-effort
    /// datagram overflowed `BestEffortWindow::announce`.
    #[test]
    fn heartbeat_with_best_effort_high_at_the_top() {
        run("receiver", "heartbeat-best-effort-max");
    }

    /// Found by the `receiver` target (libFuzzer, 4 minutes): best-effort numbers jumping
    /// towards 2^64, by datagram and by heartbeat, made the count of best-effort datagrams lost
    /// overflow (`best_effort_lost`, each jump counting almost 2^64 at once).
    #[test]
    fn best_effort_lost_count_near_the_top() {
        run("receiver", "best-effort-lost-count-overflow");
    }
}
