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
        ("closes waiting for acknowledgements", r.closes_waited),
        ("resignations", r.resigned),
        ("reflections", r.reflections),
        ("interactions", r.interactions),
        ("time grants", r.grants),
        ("time-stamp-ordered deliveries", r.tso),
        ("synchronizations", r.synchronized),
        ("saves ended", r.saves_ended),
    ];
    for (what, n) in covered {
        eprintln!("{what}: {n}");
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

/// Region mode with interactions sent with regions (`Options::region_interactions`), what the
/// region and cell sweeps run (the regressions named before pings existed run without them).
fn with_pings(seed: u64) -> Options {
    Options {
        region_interactions: true,
        ..with_regions(seed)
    }
}

/// The region mode (DDM, `hlamesh_sim::check::regions` and `hlamesh_sim::check::pings`):
/// federates create, move, delete regions, subscribe to `Position` and `Ping` with and without
/// them, register with them, associate and unassociate, send pings with and without regions;
/// every reflection of a position is of an update whose region overlapped the subscriber's,
/// once, every ping is received only where its regions overlapped the receiver's, once, and at
/// the end every overlapping subscriber holds the last values and received the last pings. Its
/// own seeds (`HLAMESH_SIM_REGION_SEEDS`, default 300), with every fault the swarm draws.
#[test]
fn random_federations_in_region_mode_converge() {
    let seeds = Seeds::from_env(1, REGION_SEEDS, Some("HLAMESH_SIM_REGION_SEEDS"));
    let replay = seeds.is_replay() || seeds.len() < 100;
    let r = sweep(
        "random_federations_in_region_mode_converge",
        seeds,
        with_pings,
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
        ("pings received in regions", r.ping_receipts_in_regions),
        ("pings outside some subscriber's regions", r.ping_disjoint),
        ("pings in time-stamp order", r.ping_tso),
        ("moves folded into the update after them", r.moves_folded),
        ("partitions healed", r.partitions),
        ("LRCs crashed", r.crashes),
        ("fell-behind events", r.fell_behind),
    ];
    for (what, n) in covered {
        assert!(n > 0, "the region sweep had no {what}: {r:?}");
    }
}

/// Region mode on DDM cell groups (`Options::cells`) on top of each seed's swarm options.
fn with_cells(seed: u64) -> Options {
    Options {
        cells: true,
        ..with_pings(seed)
    }
}

/// Default number of seeds of [`random_federations_on_ddm_cell_groups_converge`] in CI.
const CELL_SEEDS: u64 = 500;

/// The region mode with DDM cell groups (`Options::cells`): what the core sends to cells goes
/// to those cells' groups only, reliable messages with the transport's chained positions, and
/// each LRC hears the groups its subscriptions joined, passing over the positions that went
/// elsewhere; the region invariants hold as in the region mode. Its own seeds
/// (`HLAMESH_SIM_CELL_SEEDS`, default 500).
#[test]
fn random_federations_on_ddm_cell_groups_converge() {
    let seeds = Seeds::from_env(1, CELL_SEEDS, Some("HLAMESH_SIM_CELL_SEEDS"));
    let replay = seeds.is_replay() || seeds.len() < 100;
    let r = sweep(
        "random_federations_on_ddm_cell_groups_converge",
        seeds,
        with_cells,
    );
    if replay {
        return;
    }
    eprintln!("cell sweep coverage: {r:?}");
    let covered = [
        ("datagrams on cell groups", r.cell_datagrams),
        ("reflections in regions", r.region_reflections),
        (
            "updates outside some subscriber's regions",
            r.region_disjoint,
        ),
        ("pings received in regions", r.ping_receipts_in_regions),
        ("pings outside some subscriber's regions", r.ping_disjoint),
        ("moves folded into the update after them", r.moves_folded),
        ("partitions healed", r.partitions),
        ("LRCs crashed", r.crashes),
    ];
    for (what, n) in covered {
        assert!(n > 0, "the cell sweep had no {what}: {r:?}");
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

/// Seeds 1043, 1057, 1747 and 1892 of the cell sweep, found once it sent interactions with
/// regions (which changed its runs): a joining LRC held an update of a member's stream sent
/// without regions, then passed over that instance's move within its cells (sent to cells it
/// had not joined); replaying the held update after the snapshot, it judged it against the
/// snapshot's regions (the move's) and its federate reflected a value sent outside its
/// subscription region. Fixed in the core (`on_snapshot`: a held update without regions that a
/// passed-over position follows overlaps no subscription region; `regions` test
/// `a_held_update_followed_by_a_passed_over_move_is_not_judged_by_the_snapshots_regions`).
#[test]
fn regression_1043_1057_1747_1892_a_joiner_does_not_judge_held_updates_by_a_move_it_passed_over() {
    seeds_of(
        "regression_1043_1057_1747_1892_a_joiner_does_not_judge_held_updates_by_a_move_it_passed_over",
        &[1043, 1057, 1747, 1892],
        with_cells,
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
/// (`hlamesh_core::core::eviction` tests). Seed 29 later found a second defect once the fix
/// of 15985 moved its run: a member lost a member behind the coordinator and had it back
/// while the coordinator kept it; still suspecting it, it took over beside it when the
/// coordinator died. Such a member is trusted again (`ChannelPeer`, `follows_one_before`).
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

/// Seed 15985 of the joiner sweep past 10000: a joiner lost its connection to the members
/// ahead of it in the log before a member (not the coordinator) welcomed it. Replaying the
/// Welcome it found itself first of the unsuspected nodes halfway through the log, took over
/// there and decided a removal in the middle of the history it replayed: its log and the
/// federation's differed from that position on (a safety violation the per-step membership
/// check caught). Fixed in the core: no coordinator change is acted on while a Welcome replays
/// (`hlamesh_core::core::coordinator` tests).
#[test]
fn regression_15985_a_joiner_takes_over_in_the_middle_of_the_log_it_replays() {
    seeds_of(
        "regression_15985_a_joiner_takes_over_in_the_middle_of_the_log_it_replays",
        &[15985],
        partitioning_joiners,
    );
}

/// Seeds 6193, 6526 and 14221 of the joiner sweep: an LRC told `Evicted` before it had told
/// the sender anything judged against its view of now and told a later view, so the two of a
/// pair judged different views and both won: in 6193 the winner judged while a node of the
/// other side was still in its view, then removed it and told the smaller view; in 6526 a
/// coordinator counted a node both sides had admitted for neither and won, while that node,
/// told the view without it, won too. Fixed in the core: the view judged is told at once, and
/// the sender counts for its own side (`hlamesh_core::core::eviction` tests).
#[test]
fn regression_6193_6526_14221_a_pair_judges_the_views_it_told_each_other() {
    seeds_of(
        "regression_6193_6526_14221_a_pair_judges_the_views_it_told_each_other",
        &[6193, 6526, 14221],
        partitioning_joiners,
    );
}

/// Seed 16436 of the joiner sweep: the coordinator of a history that admitted an LRC of the
/// other through a join request held across the heal lost; its successor fetched that LRC's
/// log, which, not its coordinator, ignored the fetch, and both histories stayed alive. A
/// fetch from outside the view is answered with `Evicted` (`hlamesh_core::core::eviction`
/// tests).
#[test]
fn regression_16436_a_fetch_from_another_history_is_answered() {
    seeds_of(
        "regression_16436_a_fetch_from_another_history_is_answered",
        &[16436],
        partitioning_joiners,
    );
}

/// Seeds 2661 and 19676 of the joiner sweep (found once the fixes above moved their runs): a
/// member lost the coordinator and the member after it and took over; that member was back
/// and took over too, and the others followed it. Each ignored the other's fetch, and neither
/// decided again: a resignation waited for good. A fetch from a member ahead of this LRC, lost
/// and back, makes it follow that member (`hlamesh_core::core::eviction` tests). 2661 then
/// showed the harness's object check too strict: a stream that restarts past a gap after a
/// dropped connection loses the messages in between like a fell-behind, so values from there
/// may jump (`StreamCheck::restarts_past_a_gap`).
#[test]
fn regression_2661_19676_a_member_taking_over_ahead_is_followed_again() {
    seeds_of(
        "regression_2661_19676_a_member_taking_over_ahead_is_followed_again",
        &[2661, 19676],
        partitioning_joiners,
    );
}

/// Seed 19057 of the joiner sweep: each side of a partition admitted a joiner, and those two
/// outlived every LRC both histories knew. Neither was in the other's view nor removed there,
/// so nothing made them tell each other their views: two logs for good. Fixed in the core: a
/// member whose channel to a node that is no member of its view comes up tells it its view
/// (`ControlMsg::Member`), which a joiner ignores and a member of another history judges like
/// `Evicted` (`hlamesh_core::core::eviction` tests).
#[test]
fn regression_19057_two_histories_that_never_met_tell_each_other_their_views() {
    seeds_of(
        "regression_19057_two_histories_that_never_met_tell_each_other_their_views",
        &[19057],
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
