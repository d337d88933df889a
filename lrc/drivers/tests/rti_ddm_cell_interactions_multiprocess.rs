//! Best-effort interactions sent with regions on DDM cell groups (issue 23), with `rti-shell`
//! federates on three LRCs (network namespaces when run as root, loopback otherwise):
//! `foms/Cells.xml`'s `Chatter` (best effort over `X`, `Y`, 4 × 4 cells of 250 × 250) and its
//! subclass `Chatter.Ping` (best effort over `X` and `Channel`: other dimensions). A publisher
//! sends both along the four cells of the `X` axis; subscriber A listens to `Chatter` in a region
//! inside cell (0, 0), B in one inside cell (2, 0). Each hears exactly the interactions that
//! overlap its region (the subclass's delivered as `Chatter`), and its data socket received only
//! the datagrams of the cells it joined: by the group they came in on (`received_by_group`), its
//! cell groups' counts are those of its own cell's sends, and no best-effort datagram came in on
//! the default group. A region too wide for the per-send limit falls
//! back to the default group, which everyone hears. Unsubscribing leaves the groups. Design:
//! `docs/DDM.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, T, cells, cells_shell as shell, ok};

fn num(c: &serde_json::Value, k: &str) -> u64 {
    c[k].as_u64()
        .unwrap_or_else(|| panic!("no counter {k} in {c}"))
}

/// The datagrams the data socket received on each cell group, by slot (`received_by_group`
/// without its first entry, the default group, and its last, any other destination).
fn on_cells(c: &serde_json::Value) -> Vec<u64> {
    let v: Vec<u64> = c["received_by_group"]
        .as_array()
        .unwrap_or_else(|| panic!("no received_by_group in {c}"))
        .iter()
        .map(|x| x.as_u64().unwrap_or(0))
        .collect();
    assert!(v.len() >= 2, "{c}");
    v[1..v.len() - 1].to_vec()
}

/// Best-effort datagrams received on cell groups, and on the default group (the others: only
/// best-effort traffic travels on cell groups).
fn best_effort_split(c: &serde_json::Value) -> (u64, u64) {
    let cells: u64 = on_cells(c).iter().sum();
    (cells, num(c, "best_effort_received") - cells)
}

/// The interactions `s` received up to the one labelled `mark`, in order, as (label, class
/// handle); bounded by [`T`].
fn heard_until(s: &mut Shell, mark: &str) -> Vec<(String, u64)> {
    let end = Instant::now() + T;
    let mut got = Vec::new();
    loop {
        let l = match s.backlog.pop_front() {
            Some(l) => l,
            None => {
                s.p.lines
                    .recv_timeout(end.saturating_duration_since(Instant::now()))
                    .unwrap_or_else(|_| panic!("[{}] no interaction {mark}; got {got:?}", s.name))
            }
        };
        assert_ne!(l["event"], "error", "[{}] {l}", s.name);
        if l["event"] == "interaction" {
            let label = l["label"].as_str().unwrap_or_default().to_string();
            if label == mark {
                return got;
            }
            got.push((label, l["class"].as_u64().unwrap_or(0)));
        }
    }
}

#[test]
fn interaction_subscribers_hear_only_the_cell_groups_their_regions_cover() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("celli{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut a, _) = shell(&lab, 2, &ports, &fed, "A");
    let (mut b, _) = shell(&lab, 3, &ports, &fed, "B");

    // A listens in cell (0, 0), B in cell (2, 0), passively or not alike; neither region
    // reaches a neighbouring cell. Subscribed to Chatter, each also hears Chatter.Ping (as
    // Chatter), in Ping's own space: X's cell of its region, Channel's default range [0, 1), Y
    // ignored. Mark, the end marker, is reliable without dimensions: the default group.
    for (s, range) in [
        (&mut a, "X=0..100,Y=0..100"),
        (&mut b, "X=580..680,Y=0..100"),
    ] {
        ok(s, &format!("region mine {range}"));
        ok(s, "subscribe-interaction-regions Chatter mine");
        ok(s, "subscribe-interaction Mark");
        // The joins are done when the subscription returns: Chatter's cell and Ping's.
        let c = cells(s);
        assert_eq!(num(&c, "joined_now"), 2, "[{}] {c}", s.name);
        assert_eq!(num(&c, "join_failures"), 0, "[{}] {c}", s.name);
    }

    ok(&mut p, "publish-interaction Chatter");
    ok(&mut p, "publish-interaction Chatter.Ping");
    ok(&mut p, "publish-interaction Mark");
    ok(&mut p, "region at X=10..30,Y=10..20");
    ok(&mut p, "region pat X=10..30");
    ok(&mut p, "region mark X=0..1000");

    // Along X through the four cells, at Y in [10, 20) (Ping: Channel's default): in each cell
    // PER_CELL Chatter and PER_CELL Ping interactions.
    const PER_CELL: usize = 5;
    for (cell, x) in [(0, 10), (1, 300), (2, 600), (3, 900)] {
        ok(&mut p, &format!("move at X={x}..{},Y=10..20", x + 20));
        ok(&mut p, &format!("move pat X={x}..{}", x + 20));
        for k in 0..PER_CELL {
            ok(&mut p, &format!("send-regions Chatter at c{cell}-{k}"));
            ok(
                &mut p,
                &format!("send-regions Chatter.Ping pat p{cell}-{k}"),
            );
        }
    }
    ok(&mut p, "send Mark end");

    let expect = |cell: usize| -> Vec<String> {
        (0..PER_CELL)
            .flat_map(|k| [format!("c{cell}-{k}"), format!("p{cell}-{k}")])
            .collect()
    };
    for (s, cell) in [(&mut a, 0), (&mut b, 2)] {
        let heard = heard_until(s, "end");
        let labels: Vec<String> = heard.iter().map(|(l, _)| l.clone()).collect();
        assert_eq!(labels, expect(cell), "[{}] interactions", s.name);
        // All as Chatter (the subclass promoted to the subscribed class).
        let chatter = heard[0].1;
        assert!(
            heard.iter().all(|(_, c)| *c == chatter),
            "[{}] every one received as Chatter: {heard:?}",
            s.name
        );
    }

    // The publisher sent each interaction once, to its cell's group: 2 classes × 4 cells × 5.
    let pc = cells(&mut p);
    eprintln!("publisher cells: {pc}");
    assert_eq!(num(&pc, "messages"), (2 * 4 * PER_CELL) as u64, "{pc}");
    assert_eq!(num(&pc, "datagrams"), (2 * 4 * PER_CELL) as u64, "{pc}");
    assert_eq!(num(&pc, "wide_fallbacks"), 0, "{pc}");
    // A and B received only their own cell's datagrams, PER_CELL on each of the two groups
    // they joined (the kernel dropped the other cells' groups), and no best-effort datagram on
    // the default group (the marker is reliable).
    for s in [&mut a, &mut b] {
        let c = cells(s);
        eprintln!("[{}] cells: {c}", s.name);
        let mut heard: Vec<u64> = on_cells(&c).into_iter().filter(|n| *n > 0).collect();
        heard.sort_unstable();
        assert_eq!(
            heard,
            vec![PER_CELL as u64; 2],
            "[{}] per cell group: {c}",
            s.name
        );
        assert_eq!(
            best_effort_split(&c),
            ((2 * PER_CELL) as u64, 0),
            "[{}] on cells, on the default group: {c}",
            s.name
        );
    }

    // A region over the whole plane covers 16 cells, more groups than a send may take
    // (`max_cells_per_send`, 8): one datagram on the default group, heard by both.
    ok(&mut p, "region wide X=0..1000,Y=0..1000");
    ok(&mut p, "send-regions Chatter wide w");
    ok(&mut p, "send Mark end2");
    for s in [&mut a, &mut b] {
        let labels: Vec<String> = heard_until(s, "end2").into_iter().map(|(l, _)| l).collect();
        assert_eq!(labels, vec!["w"], "[{}]", s.name);
        let c = cells(s);
        assert_eq!(
            best_effort_split(&c),
            ((2 * PER_CELL) as u64, 1),
            "[{}] the wide one on the default group: {c}",
            s.name
        );
    }
    let pc = cells(&mut p);
    assert_eq!(num(&pc, "wide_fallbacks"), 1, "{pc}");
    assert_eq!(num(&pc, "messages"), (2 * 4 * PER_CELL) as u64, "{pc}");

    // A unsubscribes: it leaves both groups and its socket no longer receives cell (0, 0)'s
    // datagrams; B, in cell (2, 0), still hears its own.
    ok(&mut a, "unsubscribe-interaction-regions Chatter mine");
    let c = cells(&mut a);
    assert_eq!(
        (num(&c, "joined_now"), num(&c, "left")),
        (0, 2),
        "[A] left: {c}"
    );
    ok(&mut p, "move at X=10..30,Y=10..20");
    ok(&mut p, "send-regions Chatter at gone");
    ok(&mut p, "move at X=610..630,Y=10..20");
    ok(&mut p, "send-regions Chatter at kept");
    ok(&mut p, "send Mark end3");
    assert!(heard_until(&mut a, "end3").is_empty(), "[A] unsubscribed");
    let labels: Vec<String> = heard_until(&mut b, "end3")
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    assert_eq!(labels, vec!["kept"], "[B]");
    let c = cells(&mut a);
    assert_eq!(
        best_effort_split(&c),
        ((2 * PER_CELL) as u64, 1),
        "[A] the kernel dropped cell (0, 0)'s datagram after the leave: {c}"
    );
    let c = cells(&mut b);
    assert_eq!(
        best_effort_split(&c),
        ((2 * PER_CELL + 1) as u64, 1),
        "[B] {c}"
    );
}
