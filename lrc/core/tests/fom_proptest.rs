//! Mutates the real FOM files at random and checks that loading never panics: every outcome
//! is an FDD or a typed error with a sensible location.
#![allow(clippy::unwrap_used)]

mod common;

use common::{Rng, cases, text};
use hlamesh_core::fom::{Fdd, FomModule};
use proptest::prelude::*;

const FILES: [&str; 6] = [
    "RestaurantProcesses.xml",
    "RestaurantFood.xml",
    "RestaurantDrinks.xml",
    "RestaurantSoup.xml",
    "RPR-Foundation_v2.0.xml",
    "RPR-Base_v2.0.xml",
];

/// Tokens that make structural damage likely to reach the loader's semantic checks.
const TOKENS: [&str; 16] = [
    "<",
    ">",
    "</",
    "/>",
    "name",
    "dataType",
    "objectClass",
    "attribute",
    "HLAobjectRoot",
    "..",
    "[1..3]",
    "Dynamic",
    "HLAfixedArray",
    "HLAother",
    "-1",
    "\u{e9}",
];

/// Byte ranges of non-blank text between `>` and `<` (element text content).
fn text_ranges(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'>' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'<' {
                j += 1;
            }
            if j < b.len() && !s[start..j].trim().is_empty() && j - start < 200 {
                out.push((start, j));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut s = src.to_string();
    for _ in 0..1 + rng.below(4) {
        match rng.below(5) {
            // Swap the text of two elements: names, data types, cardinalities, enumerators.
            0 | 1 => {
                let ranges = text_ranges(&s);
                if ranges.len() >= 2 {
                    let (a0, a1) = ranges[rng.below(ranges.len())];
                    let (b0, b1) = ranges[rng.below(ranges.len())];
                    let replacement = s[b0..b1].to_string();
                    s.replace_range(a0..a1, &replacement);
                }
            }
            2 => {
                let mut bytes = s.into_bytes();
                let at = rng.below(bytes.len());
                let len = rng.below(64).min(bytes.len() - at);
                bytes.drain(at..at + len);
                s = String::from_utf8_lossy(&bytes).into_owned();
            }
            3 => {
                let mut bytes = s.into_bytes();
                let at = rng.below(bytes.len() + 1);
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                bytes.splice(at..at, token.iter().copied());
                s = String::from_utf8_lossy(&bytes).into_owned();
            }
            _ => {
                let mut bytes = s.into_bytes();
                let at = rng.below(bytes.len());
                let len = rng.below(256).min(bytes.len() - at);
                let chunk = bytes[at..at + len].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, chunk);
                s = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
    }
    s
}

fn originals() -> &'static [String] {
    static T: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    T.get_or_init(|| FILES.iter().map(|f| text(f)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), failure_persistence: None,
        ..ProptestConfig::default() })]

    #[test]
    fn mutated_foms_never_panic(seed in any::<u64>(), file in 0..FILES.len()) {
        let mut rng = Rng::seeded(seed);
        let originals = originals();
        let mutated = mutate(&originals[file], &mut rng);
        // Load the mutated module together with its unmutated companions, so merge and
        // cross-module resolution run too.
        let companions: &[usize] = if file < 4 { &[0, 1, 2, 3] } else { &[4, 5] };
        let mut modules = Vec::new();
        let mut parse_error = None;
        for &i in companions {
            let (name, t) = if i == file { ("Mutated.xml", mutated.as_str()) } else { (FILES[i], originals[i].as_str()) };
            match FomModule::parse(name, t) {
                Ok(m) => modules.push(m),
                Err(e) => parse_error = Some(e),
            }
        }
        let outcome = match parse_error {
            Some(e) => Err(e),
            None => Fdd::load(&modules),
        };
        if let Err(e) = outcome {
            let msg = e.to_string();
            prop_assert!(!msg.is_empty());
            if let Some(at) = e.location() {
                prop_assert!(at.line >= 1 && at.col >= 1, "{msg}");
                prop_assert!(msg.starts_with(&at.to_string()), "{msg}");
            }
        }
    }
}

#[test]
fn mutation_reaches_semantic_errors() {
    // The mutator is not just breaking XML: some mutants must parse and fail later, or load.
    let originals = originals();
    let (mut parsed, mut malformed) = (0, 0);
    for seed in 0..200u64 {
        let mut rng = Rng::seeded(seed + 1);
        let m = mutate(&originals[0], &mut rng);
        match FomModule::parse("M.xml", &m) {
            Ok(_) => parsed += 1,
            Err(_) => malformed += 1,
        }
    }
    assert!(
        parsed > 20 && malformed > 20,
        "parsed {parsed}, malformed {malformed}"
    );
}
