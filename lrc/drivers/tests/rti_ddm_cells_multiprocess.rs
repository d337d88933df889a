//! DDM cell groups across processes (issue 23, "the network does the filtering"), with
//! `rti-shell` federates on three LRCs (network namespaces when run as root, loopback
//! otherwise): a publisher moves a vehicle whose best-effort `Position` (`foms/Cells.xml`) has
//! an update region across the four cells of the `X` axis (4 × 4 cells of 250 × 250 over
//! `X`, `Y` in `[0, 1000)`); subscriber A's region covers one cell, B's another. Each gets
//! exactly the reflections of the updates that overlap its region, and the kernel dropped the
//! rest: A and B each received only the datagrams of their own cell's group, while the
//! publisher's counters show it sent them to all four. Design: `docs/DDM.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{cells, cells_shell as shell, next_event, ok, reflected_until};

#[test]
fn subscribers_hear_only_the_cell_groups_their_regions_cover() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("cells{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut a, _) = shell(&lab, 2, &ports, &fed, "A");
    let (mut b, _) = shell(&lab, 3, &ports, &fed, "B");

    // A watches cell (0, 0), B cell (2, 0); neither region reaches a neighbouring cell. Both
    // hear the marker without regions.
    for (s, range) in [
        (&mut a, "X=0..100,Y=0..100"),
        (&mut b, "X=580..680,Y=0..100"),
    ] {
        ok(s, &format!("region mine {range}"));
        ok(s, "subscribe-regions Vehicle Position mine");
        ok(s, "subscribe-interaction Mark");
        // The join is done when the subscription returns: one cell group.
        let c = cells(s);
        assert_eq!(c["joined_now"], 1, "[{}] {c}", s.name);
        assert_eq!(c["join_failures"], 0, "[{}] {c}", s.name);
    }

    ok(&mut p, "publish Vehicle Position");
    ok(&mut p, "publish-interaction Mark");
    ok(&mut p, "region at X=10..30,Y=10..20");
    ok(&mut p, "region mark X=0..1000");
    ok(&mut p, "register-object-regions Vehicle Position at");
    let o = next_event(&mut p, "registered_object")["object"]
        .as_u64()
        .unwrap();

    // The vehicle crosses the four cells along X at Y in [10, 20): five updates in each.
    const PER_CELL: usize = 5;
    for (cell, x) in [(0, 10), (1, 300), (2, 600), (3, 900)] {
        ok(&mut p, &format!("move at X={x}..{},Y=10..20", x + 20));
        for k in 0..PER_CELL {
            ok(&mut p, &format!("update {o} Position c{cell}-{k}"));
        }
    }
    ok(&mut p, "send Mark end");

    let expect =
        |cell: usize| -> Vec<String> { (0..PER_CELL).map(|k| format!("c{cell}-{k}")).collect() };
    assert_eq!(reflected_until(&mut a, "end"), expect(0), "A's reflections");
    assert_eq!(reflected_until(&mut b, "end"), expect(2), "B's reflections");

    // The publisher sent each update once, to its cell's group: 4 groups × 5 datagrams; and
    // each of the three moves (best effort, `docs/DDM.md`, "Moves within the cells"; the first
    // commit changed nothing) to the cells the region left and entered: 0 and 1, 1 and 2, 2
    // and 3. A move that the next update followed within the fold window (1 ms: the next
    // command came that soon) went inside that update (`hlamesh_core::core::move_fold`),
    // which went to both cells: one message and one datagram less each.
    let pc = cells(&mut p);
    eprintln!("publisher cells: {pc}");
    assert_eq!(pc["moves_in_cells"], 3, "{pc}");
    let folded = pc["moves_folded"].as_u64().expect("moves_folded") as usize;
    assert!(folded <= 3, "{pc}");
    assert_eq!(pc["messages"], 4 * PER_CELL + 3 - folded, "{pc}");
    assert_eq!(pc["datagrams"], 4 * PER_CELL + 6 - folded, "{pc}");
    assert_eq!(pc["wide_fallbacks"], 0, "{pc}");
    // A and B received only their own cell's datagrams: the kernel dropped the other three
    // groups' (the marker is reliable, not counted here): A the move out of cell 0, B the
    // moves into and out of cell 2. A move inside the update after it reaches A as that
    // update (out of cell 0, into cell 1), so A's count is the same either way; the move into
    // cell 2 inside the first update there saves B a datagram.
    let mut before = Vec::new();
    for (s, moves) in [(&mut a, 1..=1), (&mut b, 1..=2)] {
        let c = cells(s);
        eprintln!("[{}] cells: {c}", s.name);
        let got = c["best_effort_received"].as_u64().expect("count") as usize;
        before.push(got);
        assert!(moves.contains(&(got - PER_CELL)), "[{}] {c}", s.name);
        match folded {
            0 => assert_eq!(got, PER_CELL + moves.end(), "[{}] {c}", s.name),
            3 => assert_eq!(got, PER_CELL + moves.start(), "[{}] {c}", s.name),
            _ => {}
        }
        assert_eq!(c["joined_now"], 1, "[{}] {c}", s.name);
    }

    // A moves its region to B's cell: it joins that group and leaves its own (the old cell is
    // more than half a cell behind), and hears the vehicle there.
    ok(&mut a, "move mine X=600..650,Y=0..100");
    let c = cells(&mut a);
    assert_eq!(
        (c["joined"].as_u64(), c["left"].as_u64()),
        (Some(2), Some(1)),
        "{c}"
    );
    ok(&mut p, "move at X=610..630,Y=10..20");
    ok(&mut p, &format!("update {o} Position moved"));
    ok(&mut p, "send Mark end2");
    assert_eq!(
        reflected_until(&mut a, "end2"),
        vec!["moved"],
        "A after its move"
    );
    assert_eq!(reflected_until(&mut b, "end2"), vec!["moved"], "B");
    // Both heard the last move (cells 3 and 2) and the update: two datagrams, or one if the
    // move went inside the update.
    let pc = cells(&mut p);
    let last_folded = pc["moves_folded"].as_u64().expect("moves_folded") as usize - folded;
    for (s, got) in [(&mut a, before[0]), (&mut b, before[1])] {
        let c = cells(s);
        let want = got + 2 - last_folded;
        assert_eq!(c["best_effort_received"], want, "[{}] {c}", s.name);
    }
}

/// A subscriber whose LRC joins the cells an instance moved into (while it listened
/// elsewhere) discovers the instance at once, with no update after the move: its LRC asks the
/// members for the moves it passed over (`ControlMsg::RegionsQuery`, `docs/DDM.md`). The last
/// update, sent before the move and outside its region, is not reflected.
#[test]
fn a_subscriber_discovers_an_instance_that_moved_into_the_cells_it_joins_without_an_update() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("cjoin{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut a, _) = shell(&lab, 2, &ports, &fed, "A");
    ok(&mut a, "region mine X=0..100,Y=0..100");
    ok(&mut a, "subscribe-regions Vehicle Position mine");
    ok(&mut a, "subscribe-interaction Mark");

    ok(&mut p, "publish Vehicle Position");
    ok(&mut p, "publish-interaction Mark");
    ok(&mut p, "region at X=300..320,Y=10..20");
    ok(&mut p, "region mark X=0..1000");
    ok(&mut p, "register-object-regions Vehicle Position at");
    let o = next_event(&mut p, "registered_object")["object"]
        .as_u64()
        .unwrap();
    ok(&mut p, &format!("update {o} Position before"));
    // Within cell 1 of X, which A has not joined: the move goes to that cell only.
    ok(&mut p, "move at X=400..420,Y=10..20");
    assert_eq!(cells(&mut p)["moves_in_cells"], 1);

    // A's region moves over the instance's new region (cell 1): no update follows.
    ok(&mut a, "move mine X=390..450,Y=0..100");
    assert_eq!(next_event(&mut a, "discover")["object"], o);
    ok(&mut p, "send Mark end");
    assert_eq!(
        reflected_until(&mut a, "end"),
        Vec::<String>::new(),
        "the update was sent at X [300, 320)"
    );
}
