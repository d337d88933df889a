//! A moving entity crossing cell boundaries with loss injected (issue 23, test 3), with
//! `rti-shell` federates on three LRCs in network namespaces: a publisher moves a vehicle of
//! `foms/Cells.xml` along `X` through all four cells of the grid, updating its reliable `Status`
//! (dimension `X`) and its best-effort `Position` (dimensions `X`, `Y`), both sent on the cell
//! groups of their update regions (the reliable ones with chained positions, `docs/DDM.md`), at
//! each step; nftables drops 10 % of the datagrams entering subscriber A's data port. A's
//! region covers parts of three cells. A reflects every reliable update whose update region
//! overlapped its region when it was sent exactly once and in order, and nothing else; of the
//! best-effort updates, only overlapping ones, each at most once. B, without regions, reflects
//! every reliable update. Semantics: `hlamesh_core::core::regions`; cells: `docs/DDM.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{cells, cells_shell as shell, next_event, ok, reflected_until};

/// Steps of the vehicle: its update region is `[x, x + WIDTH)` on `X` at step `i`.
const STEPS: u64 = 120;
const STRIDE: u64 = 8;
const WIDTH: u64 = 20;
/// A's region on `X` (all of `Y`): parts of cells 0 and 2, all of cell 1.
const WATCH: (u64, u64) = (200, 600);

fn x_of(i: u64) -> u64 {
    20 + i * STRIDE
}

fn overlaps(i: u64) -> bool {
    let x = x_of(i);
    x < WATCH.1 && x + WIDTH > WATCH.0
}

#[test]
fn a_moving_entity_is_reflected_exactly_where_it_overlaps_despite_loss() {
    let _g = serial();
    let lab = Lab::new(3);
    if !lab.is_namespaces() {
        eprintln!("SKIP loss injection: needs root and nftables (network namespaces)");
        return;
    }
    let ports = Ports::unique();
    let fed = format!("ddmloss{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut a, _) = shell(&lab, 2, &ports, &fed, "A");
    let (mut b, _) = shell(&lab, 3, &ports, &fed, "B");
    assert!(lab.loss(2, 10, ports.data), "nftables loss rule");

    ok(
        &mut a,
        &format!("region mine X={}..{},Y=0..1000", WATCH.0, WATCH.1),
    );
    ok(&mut a, "subscribe-regions Vehicle Position mine");
    // Status has only the X dimension: its regions must not name Y.
    ok(&mut a, &format!("region minex X={}..{}", WATCH.0, WATCH.1));
    ok(&mut a, "subscribe-regions Vehicle Status minex");
    ok(&mut b, "subscribe Vehicle Position,Status");
    for s in [&mut a, &mut b] {
        ok(s, "subscribe-interaction Mark");
    }
    ok(&mut p, "publish Vehicle Position,Status");
    ok(&mut p, "publish-interaction Mark");
    let x0 = x_of(0);
    ok(
        &mut p,
        &format!("region at X={x0}..{},Y=10..20", x0 + WIDTH),
    );
    ok(&mut p, &format!("region atx X={x0}..{}", x0 + WIDTH));
    ok(&mut p, "region mark X=0..1000");
    ok(&mut p, "register-object-regions Vehicle Position at");
    let o = next_event(&mut p, "registered_object")["object"]
        .as_u64()
        .unwrap();
    ok(&mut p, &format!("associate {o} Status atx"));

    for i in 0..STEPS {
        let x = x_of(i);
        if i > 0 {
            ok(&mut p, &format!("move atx X={x}..{}", x + WIDTH));
            // Position's move and update in one frame: the move goes inside the update
            // (`hlamesh_core::core::move_fold`), to the cells it leaves as well.
            ok(
                &mut p,
                &format!(
                    "move-update at X={x}..{},Y=10..20 {o} Position p{i}",
                    x + WIDTH
                ),
            );
        } else {
            ok(&mut p, &format!("update {o} Position p{i}"));
        }
        ok(&mut p, &format!("update {o} Status s{i}"));
    }
    ok(&mut p, "send Mark end");

    let got = reflected_until(&mut a, "end");
    let (status, position): (Vec<&String>, Vec<&String>) =
        got.iter().partition(|v| v.starts_with('s'));
    let want: Vec<String> = (0..STEPS)
        .filter(|i| overlaps(*i))
        .map(|i| format!("s{i}"))
        .collect();
    assert!(want.len() > 40, "the test moves through the region");
    let status: Vec<String> = status.into_iter().cloned().collect();
    assert_eq!(
        status, want,
        "A: every overlapping reliable update once, in order, nothing else"
    );
    let mut seen = std::collections::BTreeSet::new();
    for v in &position {
        let i: u64 = v[1..].parse().expect("p<step>");
        assert!(overlaps(i), "A reflected {v}, sent while not overlapping");
        assert!(seen.insert(i), "A reflected {v} twice");
    }
    eprintln!(
        "A: {} reliable, {} of {} overlapping best-effort updates through 10 % loss",
        status.len(),
        position.len(),
        want.len()
    );

    // Both regions moved within their cells at most steps (a cell is 250 wide, a step 8):
    // those moves went to the cells only (Position's best effort, Status's numbered in the
    // reliable stream on the cells); the crossings went to every LRC. The publisher counts
    // the former.
    let pc = cells(&mut p);
    let moves = pc["moves_in_cells"].as_u64().expect("moves_in_cells");
    let folded = pc["moves_folded"].as_u64().expect("moves_folded");
    // Every update went to cells, the reliable ones too, and the moves within the cells that
    // did not go inside an update.
    let to_cells = pc["messages"].as_u64().expect("messages");
    assert_eq!(
        to_cells,
        2 * STEPS + moves - folded,
        "P: Status and Position updates and the moves on cell groups: {pc}"
    );
    assert!(
        (STEPS..2 * STEPS).contains(&moves),
        "P sent {moves} of 2 × {STEPS} moves to the cells"
    );
    // Position's moves within the cells went inside its updates (at most one a step:
    // Status's move, held first, leaves when Position's is held, one held move per instance).
    assert!(
        folded > STEPS / 2 && folded < STEPS,
        "P folded {folded} of {moves} moves into the updates after them"
    );
    let stale = cells(&mut a)["stale_drops"].as_u64().expect("stale_drops");
    eprintln!(
        "P: {moves} moves within the cells, {folded} inside updates; A: {stale} stale \
         best-effort updates dropped"
    );

    let all = reflected_until(&mut b, "end");
    let status_b: Vec<&String> = all.iter().filter(|v| v.starts_with('s')).collect();
    assert_eq!(
        status_b.len() as u64,
        STEPS,
        "B (no regions): every reliable update"
    );
}
