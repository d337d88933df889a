//! The unified simulator in CI (see `hlamesh_sim::world`): a bounded sweep of seeds with swarm
//! options, the seeds that failed while it was built (each a named regression test), the known
//! defects it found that are not fixed (ignored tests that fail until they are), and the proof
//! that its liveness phase fails a broken build.
//!
//! The region mode (DDM) has its own sweep, `random_federations_in_region_mode_converge`
//! (`HLAMESH_SIM_REGION_SEEDS`).
//!
//! Seeds as every hlamesh simulator takes them (`hlamesh-sim`): `HLAMESH_SIM_SEED=s` replays
//! one seed (name the test), `HLAMESH_SIM_UNIFIED_SEEDS=n` (or `HLAMESH_SIM_SEEDS`) and
//! `HLAMESH_SIM_FIRST_SEED=k` set the sweep, `HLAMESH_SIM_TRACE=` `actions`, `net`, `events`,
//! `ctl`, `callbacks`, `feds`, `dump` traces. A long sweep:
//! `HLAMESH_SIM_UNIFIED_SEEDS=20000 cargo test --release -p hlamesh-sim --test unified random`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_sim::{Options, Report, Seeds};

/// Seeds of the CI sweep (about 20 ms each in release).
const CI_SEEDS: u64 = 1500;

/// Runs `seeds` with `options(seed)`; panics with each failure's replay command. Returns the
/// sum of the runs' reports (the sweep's coverage).
fn sweep(test: &str, seeds: Seeds, options: impl Fn(u64) -> Options) -> Report {
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut total = Report::default();
    for seed in seeds.iter() {
        match hlamesh_sim::run(seed, &options(seed)) {
            Ok(r) => {
                if seeds.is_replay() {
                    eprintln!("seed {seed}: {r:?}");
                }
                total.absorb(&r);
            }
            Err(f) => {
                eprintln!(
                    "{f}\nreplay: {}",
                    Seeds::rerun("hlamesh-sim", "unified", test, seed)
                );
                failures.push(seed);
            }
        }
    }
    eprintln!("{} seeds in {:?}", seeds.len(), started.elapsed());
    assert!(failures.is_empty(), "failed seeds: {failures:?}");
    total
}

/// Runs the listed seeds of `test` (all, or the one `HLAMESH_SIM_SEED` names).
fn seeds_of(test: &str, seeds: &[u64], options: impl Fn(u64) -> Options) {
    let chosen = Seeds::from_env(0, 0, None);
    for &seed in seeds {
        if chosen.is_replay() && !chosen.iter().any(|s| s == seed) {
            continue;
        }
        sweep(test, Seeds::one(seed), &options);
    }
}

#[test]
fn random_federations_with_swarm_options_converge() {
    let seeds = Seeds::from_env(1, CI_SEEDS, Some("HLAMESH_SIM_UNIFIED_SEEDS"));
    let replay = seeds.is_replay() || seeds.len() < 200;
    let r = sweep(
        "random_federations_with_swarm_options_converge",
        seeds,
        Options::swarm,
    );
    if replay {
        return;
    }
    // The sweep exercised every fault and feature.
    let covered = [
        ("LRCs crashed", r.crashes),
        ("partitions healed", r.partitions),
        ("LRCs evicted after a heal", r.evicted),
        ("datagrams lost", r.lost),
        ("NACKs", r.nacks),
        ("fell-behind events", r.fell_behind),
        ("flow-control waits", r.flow_waits),
        ("resignations", r.resigned),
        ("reflections", r.reflections),
        ("interactions", r.interactions),
        ("time grants", r.grants),
        ("time-stamp-ordered deliveries", r.tso),
        ("synchronizations", r.synchronized),
        ("saves ended", r.saves_ended),
    ];
    for (what, n) in covered {
        assert!(n > 0, "the sweep had no {what}: {r:?}");
    }
}

/// Seeds of the region sweep in CI.
const REGION_SEEDS: u64 = 300;

/// Region mode (`Options::regions`) on top of each seed's swarm options.
fn with_regions(seed: u64) -> Options {
    Options {
        regions: true,
        ..Options::swarm(seed)
    }
}

/// The region mode (DDM, `hlamesh_sim::check::regions`): federates create, move, delete regions,
/// subscribe with and without them, register with them, associate and unassociate; every
/// reflection of a position is of an update whose region overlapped the subscriber's, once, and
/// at the end every overlapping subscriber holds the last values. Its own seeds
/// (`HLAMESH_SIM_REGION_SEEDS`, default 300), with every fault the swarm draws.
#[test]
fn random_federations_in_region_mode_converge() {
    let seeds = Seeds::from_env(1, REGION_SEEDS, Some("HLAMESH_SIM_REGION_SEEDS"));
    let replay = seeds.is_replay() || seeds.len() < 100;
    let r = sweep(
        "random_federations_in_region_mode_converge",
        seeds,
        with_regions,
    );
    if replay {
        return;
    }
    eprintln!("region sweep coverage: {r:?}");
    let covered = [
        ("reflections in regions", r.region_reflections),
        (
            "updates outside some subscriber's regions",
            r.region_disjoint,
        ),
        ("moves racing an update", r.region_races),
        ("partitions healed", r.partitions),
        ("LRCs crashed", r.crashes),
        ("fell-behind events", r.fell_behind),
    ];
    for (what, n) in covered {
        assert!(n > 0, "the region sweep had no {what}: {r:?}");
    }
}

/// Seeds 71 and 92 of the region sweep: an LRC whose join took long (a coordinator crashed
/// meanwhile) held the data of a member's stream from when it connected; after the snapshot it
/// replays the held updates, and judged them against the update regions as at the snapshot's
/// high-water mark instead of those in force when each was sent, so its federate reflected
/// values sent outside its subscription region. Fixed in the core (`on_snapshot`: until the
/// replay reaches a held announcement of an attribute's regions, that attribute overlaps no
/// subscription region; `state_transfer` test
/// `held_updates_are_judged_against_the_regions_they_were_sent_in`).
#[test]
fn regression_71_92_a_joiner_replays_held_updates_in_the_regions_they_were_sent_in() {
    seeds_of(
        "regression_71_92_a_joiner_replays_held_updates_in_the_regions_they_were_sent_in",
        &[71, 92],
        with_regions,
    );
}

/// Seed 1860 of a long region sweep: an LRC fell behind a member and lost the announcement
/// that put an instance back in the default region; the snapshot lists no update region for
/// it, and the LRC kept the stale one, so a subscriber whose region overlapped the default but
/// not the stale region never reflected it again. Fixed in the core (`on_snapshot`: the
/// snapshot's update regions are all there are of the attributes the sender's federates own;
/// the second half of the `regions` test
/// `held_updates_are_judged_against_the_regions_they_were_sent_in`).
#[test]
fn regression_1860_a_resynchronised_lrc_forgets_update_regions_the_snapshot_does_not_list() {
    seeds_of(
        "regression_1860_a_resynchronised_lrc_forgets_update_regions_the_snapshot_does_not_list",
        &[1860],
        with_regions,
    );
}

/// A partition that cut an LRC still joining (`Options::partition_joiners`), as the sweeps ran
/// while the simulator was built.
fn partitioning_joiners(seed: u64) -> Options {
    Options {
        partition_joiners: true,
        ..Options::swarm(seed)
    }
}

/// Seeds of the sweep with partitions that cut joiners in CI.
const JOINER_SEEDS: u64 = 1000;

/// The swarm with partitions that may cut an LRC still joining (`partitioning_joiners`), its
/// own seeds (`HLAMESH_SIM_JOINER_SEEDS`, default 1000): a joiner cut off from the members, or
/// admitted by one side while the other still holds its join request.
#[test]
fn random_federations_with_partitioned_joiners_converge() {
    let seeds = Seeds::from_env(1, JOINER_SEEDS, Some("HLAMESH_SIM_JOINER_SEEDS"));
    sweep(
        "random_federations_with_partitioned_joiners_converge",
        seeds,
        partitioning_joiners,
    );
}

/// Seed 58: a newcomer cut off from one member during its join was admitted by the coordinator;
/// that member kept it barred (ignored its snapshot request) and the newcomer itself suspected
/// the member, so it never got the member's instances' values. Fixed in the core: a node the
/// log admits is not barred, a joiner forgets the loss of a peer that came back
/// (`hlamesh_core::core::eviction` tests).
#[test]
fn regression_58_a_joiner_cut_off_from_a_member_gets_its_state_once_admitted() {
    seeds_of(
        "regression_58_a_joiner_cut_off_from_a_member_gets_its_state_once_admitted",
        &[58],
        partitioning_joiners,
    );
}

/// Harness seeds: partitions labelled the two sides, and the labels were dropped too early
/// (at the heal, before the losers were evicted; a new partition or LRC before the last one's
/// sides were one again; a joiner forgotten), so logs of different sides were compared, or an
/// eviction taken for one outside a partition; federate handles were taken as unique across the
/// two sides of a partition.
#[test]
fn regression_partition_sides_of_the_harness() {
    seeds_of(
        "regression_partition_sides_of_the_harness",
        &[
            1, 6, 11, 13, 15, 18, 110, 121, 138, 161, 167, 187, 274, 281, 285, 327, 328, 344, 359,
            383, 387, 1048,
        ],
        partitioning_joiners,
    );
}

/// Harness seeds: a federate that joined during a save is told to save before it may declare,
/// and must report its save in the liveness phase (128); a federate whose LRC the others
/// dropped right after its join is refused as no member and then told `connection_lost` (920);
/// early joins and resignations that waited on a crashed coordinator (49, 264).
#[test]
fn regression_federate_duties_of_the_harness() {
    seeds_of(
        "regression_federate_duties_of_the_harness",
        &[49, 128, 264, 920],
        partitioning_joiners,
    );
}

/// Seeds 368 and 29: an LRC cut off from every member while its join was pending was barred
/// by them for good. The members put a node they lost before its admission into their
/// `removed` set and ignored its requests (answering `Evicted` once), while a joiner ignores
/// `Evicted`: its join never completed (in the shell, the 10 s call timeout, then the same
/// again). Fixed in the core: a member bars only nodes of a log (a joiner lost before its
/// admission is not barred, and a joiner that comes back is not suspected once admitted);
/// a node admitted meanwhile by the other side of a partition is never admitted a second
/// time, and which history keeps it is decided like any eviction; a joiner the log admitted
/// and removed before its Welcome reached it gives up its join when told `Evicted`
/// (`hlamesh_core::core::eviction` tests).
#[test]
fn regression_368_29_a_joiner_cut_off_while_joining_is_barred_for_good() {
    seeds_of(
        "regression_368_29_a_joiner_cut_off_while_joining_is_barred_for_good",
        &[368, 29],
        partitioning_joiners,
    );
}

/// Seeds 1087, 1817 and 1440: a partition while an LRC joins, before its connections to every
/// member are up. The transport holds its join requests for the members it has not reached
/// (`Mesh::route`) and delivers them after the heal, although the other side admitted it
/// meanwhile: the coordinator admitted it again, and its `Evicted` answer (the coordinator is
/// not in its view) made the coordinator of the winning side evict itself (1087: then a
/// resignation was never answered), or the views never agreed again (1817), or a member never
/// served its values (1440). Fixed in the core (`hlamesh_core::core::eviction`): a node the
/// other side admitted is never admitted a second time once it said so, a coordinator that
/// admitted one anyway removes it instead of evicting itself, and the winners of a healed
/// partition bar every member of the losing view they never admitted, as soon as one of its
/// members tells them its view (1087, 1817, and 1585, where synchronization points waited for
/// such a node's federates for good).
#[test]
fn regression_1087_1817_1440_a_node_the_other_side_admitted_is_admitted_again() {
    seeds_of(
        "regression_1087_1817_1440_a_node_the_other_side_admitted_is_admitted_again",
        &[1087, 1817, 1440, 1585],
        partitioning_joiners,
    );
}

/// Seed 4569 of the joiner sweep past 3000: a joiner admitted just before a partition cut it
/// off, whose Welcome waited for another member's acknowledgement, was removed during the
/// partition; after the heal the coordinator still sent it the held Welcome and `Joined`, so
/// its federate was told it joined, then its LRC lost its connection. Fixed in the core: a
/// removed node's held replies are dropped (`hlamesh_core::core::eviction` tests).
#[test]
fn regression_4569_a_held_welcome_reaches_a_joiner_removed_meanwhile() {
    seeds_of(
        "regression_4569_a_held_welcome_reaches_a_joiner_removed_meanwhile",
        &[4569],
        partitioning_joiners,
    );
}

/// Seeds 5342 and 6245 of the joiner sweep past 3000: a joiner held a member's stream from
/// before a partition; the partition dropped their connection, which came up again after the
/// heal with the stream restarted far ahead. The snapshot replayed the held updates from before
/// the gap, so a federate reflected an instance's first value and then, live, its twelfth.
/// Fixed in the core: held data that stops short of a restarted stream is forgotten
/// (`hlamesh_core::core::regions` tests, `a_held_stream_restarted_past_a_gap_…`).
#[test]
fn regression_5342_6245_held_data_from_before_a_restarted_stream_is_replayed() {
    seeds_of(
        "regression_5342_6245_held_data_from_before_a_restarted_stream_is_replayed",
        &[5342, 6245],
        partitioning_joiners,
    );
}

/// Seeds 7232 and 9410 of the joiner sweep past 3000: a member lost its connection to another
/// member that the coordinator never lost, and suspected it for good, so it ignored that
/// member's data and never asked for its state again (9410: the snapshot request it had sent
/// was lost with the connection). Its federate never discovered the member's instances.
/// Fixed in the core: the data of a member that comes back while the log kept it counts
/// again, and its restarted stream is asked for a snapshot again (`hlamesh_core::core::eviction`
/// tests). It stays suspected: letting a reconnection change whom an LRC follows as
/// coordinator split the members of swarm seed 571 between two coordinators.
#[test]
fn regression_7232_9410_a_member_lost_and_back_while_the_log_kept_it_is_ignored() {
    seeds_of(
        "regression_7232_9410_a_member_lost_and_back_while_the_log_kept_it_is_ignored",
        &[7232, 9410],
        partitioning_joiners,
    );
}

/// Seed 4546 of the joiner sweep past 3000: an LRC joined on the smaller side of a partition
/// while its join request to a member on the other side waited in its transport for the
/// connection. After the heal the larger side evicted the LRC, which closed the federation;
/// then the connection came up and the held request went out, so the larger side admitted the
/// LRC again, and its federate (told its connection was lost) stayed in the view for good.
/// Fixed in the transport: the control frames a federation sent that still wait for a peer
/// are dropped when it closes (`hlamesh_transport::core::mesh` tests).
#[test]
fn regression_4546_a_request_held_for_a_peer_goes_out_after_its_federation_closed() {
    seeds_of(
        "regression_4546_a_request_held_for_a_peer_goes_out_after_its_federation_closed",
        &[4546],
        partitioning_joiners,
    );
}

/// Seed 6937 of the joiner sweep past 3000: after a heal the lone coordinator told a member of
/// the other side its view {1 LRC}; then a join request held across the heal admitted, on its
/// side too, a joiner the other side had admitted. Judging the other side's view against its
/// view of now (the joiner counting for neither), it won the tie, while the other side,
/// judging the view it was told, won as well: two logs for good. Fixed in the core: each side
/// judges against the view it told (`hlamesh_core::core::eviction` tests).
#[test]
fn regression_6937_both_sides_of_a_heal_win_when_one_view_grew_meanwhile() {
    seeds_of(
        "regression_6937_both_sides_of_a_heal_win_when_one_view_grew_meanwhile",
        &[6937],
        partitioning_joiners,
    );
}

/// Known defects, not fixed: seeds past the CI sweep's 1000 that fail the joiner-partition
/// sweep (checked on 2026-12-07 over seeds 1–20000: 3 of 20,000).
/// - 6193: two logs after a heal. The winning coordinator judged the other side's view while
///   a node of that side was still in its own view (counting for neither), then removed it and
///   told the other side its smaller view, against which the other side won too. Telling the
///   view judged against does not settle it: that view names the node it is sent to, which
///   then takes itself to be a member.
/// - 14221: two logs after a heal (not investigated).
/// - 15985: the per-step membership check finds two members' decision logs diverging at one
///   position (`NodeRemoved` against `LeftBehind`), a safety violation (not investigated; it fails
///   the same with the fixes above for 4546, 5342, 6245, 6937, 7232 and 9410 undone).
#[test]
#[ignore = "known defects of the joiner-partition sweep, not investigated yet"]
fn known_defects_of_the_joiner_partition_sweep_past_3000() {
    seeds_of(
        "known_defects_of_the_joiner_partition_sweep_past_3000",
        &[6193, 14221, 15985],
        partitioning_joiners,
    );
}

/// Seed 1579 (found again after the MOM's wire changes moved this seed's run): the coordinator
/// crashes while an LRC joins, and its successor is then cut off alone by a partition and
/// hands out a federate handle the larger side hands out too; after the heal the joiner's
/// pending join was never answered: a member that lost it before its admission barred it.
/// Fixed with seeds 368 and 29 (a member bars only nodes of a log).
#[test]
fn regression_1579_a_join_pending_across_a_takeover_and_a_partition_is_never_answered() {
    seeds_of(
        "regression_1579_a_join_pending_across_a_takeover_and_a_partition_is_never_answered",
        &[1579],
        partitioning_joiners,
    );
}

/// The liveness phase fails a broken build: with every `Repair` frame dropped by the network
/// (`Options::break_repairs`, a test-only switch of the harness), lost datagrams are never
/// recovered and each of these runs fails its liveness phase — while the same seeds pass
/// unbroken, having lost and repaired about a hundred datagrams each.
#[test]
fn liveness_phase_fails_when_repairs_are_dropped() {
    for seed in 1..=4 {
        let mut o = Options {
            lrcs: 3,
            time: true,
            ..Options::default()
        };
        o.link.loss_per_mille = 30;
        let r = hlamesh_sim::run(seed, &o).unwrap_or_else(|f| panic!("unbroken: {f}"));
        assert!(r.lost > 0 && r.nacks > 0, "seed {seed}: {r:?}");
        o.break_repairs = true;
        match hlamesh_sim::run(seed, &o) {
            Ok(r) => panic!("seed {seed} converged without repairs: {r:?}"),
            Err(f) => assert!(
                f.message.starts_with("liveness:"),
                "seed {seed} failed otherwise: {f}"
            ),
        }
    }
}
