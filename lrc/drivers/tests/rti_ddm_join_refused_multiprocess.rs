//! A DDM cell-group join the kernel refuses (issue 23, "bound the number of groups per host …
//! and what happens beyond them"), with `rti-shell` federates on three LRCs in network
//! namespaces. Subscriber A's host allows one multicast membership per socket
//! (`net.ipv4.igmp_max_memberships = 1`, a per-namespace setting): its data socket holds the
//! federation's default group, so the kernel refuses every cell group A's region needs. A must
//! still get every update that overlaps its region: it tells the members
//! (`Frame::CellFallback`), and the publisher sends its cell traffic on the default group while
//! A cannot join. B, on a normal host, keeps its exact reflections. When A's host allows more
//! and A's region changes, A joins its cell, says so, and the publisher goes back to the cell
//! groups. Design: `docs/DDM.md`, "Resolution and limits"; `transport/src/core/cells.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, cells, cells_shell as shell, next_event, ok, reflected_until};

/// Asks `s` for its counters until `done` holds of them (the control frame that changes them
/// travels over QUIC from another process), at most 10 s.
fn cells_until(s: &mut Shell, what: &str, done: impl Fn(&serde_json::Value) -> bool) {
    let end = Instant::now() + Duration::from_secs(10);
    let mut polls = 0u32;
    loop {
        let c = cells(s);
        if done(&c) {
            return;
        }
        polls += 1;
        assert!(
            Instant::now() < end && polls < 2_000,
            "[{}] {what}: not after {polls} polls: {c}",
            s.name
        );
    }
}

fn max_memberships(lab: &Lab, host: usize, n: u32) {
    let st = lab
        .command(host, "sysctl")
        .args(["-q", "-w", &format!("net.ipv4.igmp_max_memberships={n}")])
        .status()
        .expect("sysctl");
    assert!(
        st.success(),
        "sysctl igmp_max_memberships={n} on host {host}"
    );
}

#[test]
fn a_subscriber_whose_cell_joins_are_refused_still_gets_every_overlapping_update() {
    let _g = serial();
    let lab = Lab::new(3);
    if !lab.is_namespaces() {
        // The limit is a per-namespace sysctl: never change the host's own.
        eprintln!("SKIP refused joins: needs root and network namespaces");
        return;
    }
    // Before A's LRC opens its data socket: the one membership goes to the default group.
    max_memberships(&lab, 2, 1);
    let ports = Ports::unique();
    let fed = format!("refused{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut a, _) = shell(&lab, 2, &ports, &fed, "A");
    let (mut b, _) = shell(&lab, 3, &ports, &fed, "B");

    // A watches cell (0, 0), B cell (2, 0).
    for (s, range) in [
        (&mut a, "X=0..100,Y=0..100"),
        (&mut b, "X=580..680,Y=0..100"),
    ] {
        ok(s, &format!("region mine {range}"));
        ok(s, "subscribe-regions Vehicle Position mine");
        ok(s, "subscribe-interaction Mark");
    }
    let ca = cells(&mut a);
    assert_eq!(ca["joined_now"], 0, "A's kernel refused the join: {ca}");
    assert!(ca["join_failures"].as_u64() >= Some(1), "{ca}");
    assert_eq!(ca["cannot_join_now"], true, "{ca}");
    let cb = cells(&mut b);
    assert_eq!(cb["joined_now"], 1, "{cb}");
    assert_eq!(cb["cannot_join_now"], false, "{cb}");

    ok(&mut p, "publish Vehicle Position");
    ok(&mut p, "publish-interaction Mark");
    // The publisher learns of A's refused join over QUIC.
    cells_until(&mut p, "A's fallback known", |c| {
        c["members_cannot_join_now"] == 1
    });
    ok(&mut p, "region at X=10..30,Y=10..20");
    ok(&mut p, "region mark X=0..1000");
    ok(&mut p, "register-object-regions Vehicle Position at");
    let o = next_event(&mut p, "registered_object")["object"]
        .as_u64()
        .unwrap();

    // Across the four cells along X, five updates in each.
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
    // Exactly the overlapping updates, at both: the receiving LRCs still filter exactly.
    assert_eq!(reflected_until(&mut a, "end"), expect(0), "A's reflections");
    assert_eq!(reflected_until(&mut b, "end"), expect(2), "B's reflections");
    let pc = cells(&mut p);
    eprintln!("publisher while A cannot join: {pc}");
    // The updates and the three moves across cell borders (which go to the cells the region
    // leaves and enters, `docs/DDM.md`, "Moves within the cells"), less those that went
    // inside the update after them (`hlamesh_core::core::move_fold`).
    let folded = pc["moves_folded"].as_u64().expect("moves_folded") as usize;
    assert!(folded <= 3, "{pc}");
    assert_eq!(pc["member_fallbacks"], 4 * PER_CELL + 3 - folded, "{pc}");
    assert_eq!(pc["datagrams"], 0, "nothing on the cell groups: {pc}");

    // A's host allows more memberships; A's region moves to cell (2, 0) beside B's region
    // (more than half a cell from its old one, so it wants only that cell), whose group it now
    // joins, and it says so.
    max_memberships(&lab, 2, 20);
    ok(&mut a, "move mine X=700..740,Y=0..100");
    let ca = cells(&mut a);
    assert_eq!(
        (ca["joined_now"].as_u64(), ca["cannot_join_now"].as_bool()),
        (Some(1), Some(false)),
        "{ca}"
    );
    cells_until(&mut p, "A's fallback over", |c| {
        c["members_cannot_join_now"] == 0
    });
    for k in 0..PER_CELL {
        ok(&mut p, "move at X=705..725,Y=10..20");
        ok(&mut p, &format!("update {o} Position back{k}"));
    }
    ok(&mut p, "send Mark end2");
    let back: Vec<String> = (0..PER_CELL).map(|k| format!("back{k}")).collect();
    assert_eq!(reflected_until(&mut a, "end2"), back, "A on its cell group");
    assert_eq!(reflected_until(&mut b, "end2"), Vec::<String>::new(), "B");
    let pc2 = cells(&mut p);
    eprintln!("publisher after: {pc2}");
    assert_eq!(
        pc2["member_fallbacks"],
        4 * PER_CELL + 3 - folded,
        "no more fallbacks: {pc2}"
    );
    // The updates, and the move from cell 3 into cell 2 to both (the later commits of the same
    // bounds change nothing), on its own or inside the first update (then one datagram less).
    let folded2 = pc2["moves_folded"].as_u64().expect("moves_folded") as usize - folded;
    assert!(folded2 <= 1, "{pc2}");
    assert_eq!(
        pc2["datagrams"],
        PER_CELL + 2 - folded2,
        "on the cell group again: {pc2}"
    );
    let ca = cells(&mut a);
    let by_group = ca["received_by_group"].as_array().expect("by group");
    let on_cells: u64 = by_group[1..by_group.len() - 1]
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        on_cells,
        (PER_CELL + 1 - folded2) as u64,
        "A heard them and the move on its cell: {ca}"
    );
}
