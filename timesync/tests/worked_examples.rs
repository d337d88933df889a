//! The worked examples and the rules of `docs/HLA-SEMANTICS.md`, "Time management", each as a named
//! scenario run through the simulator (zero network delay, so every step is deterministic), with
//! the invariant checker on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use hlamesh_timesync::*;
use support::{Config, Out, Sim};

fn quiet() -> Config {
    Config {
        max_delay: 0,
        loss_prob: 0.0,
        ..Config::default()
    }
}

/// `n` federates, each regulating (lookahead `l`) and constrained, settled at T = 0.
fn federation(n: usize, l: i64) -> Sim {
    let mut sim = Sim::new(1, quiet());
    for _ in 0..n {
        sim.join(None);
    }
    for i in 0..n {
        sim.enable_regulation(i, l);
        sim.settle();
        sim.enable_constrained(i);
        sim.settle();
    }
    for f in &mut sim.feds {
        f.log.clear();
    }
    sim
}

fn t(v: i64) -> HLAinteger64Time {
    HLAinteger64Time(v)
}

fn assert_clean(sim: &Sim) {
    assert!(sim.violations.is_empty(), "{:#?}", sim.violations);
    for f in &sim.feds {
        assert_eq!(
            f.tm.stats().late_tso,
            0,
            "a TSO message arrived in a federate's past"
        );
    }
}

#[test]
fn tar_zero_lookahead_both_granted() {
    let mut sim = federation(2, 0);
    sim.request(0, RequestKind::Tar, 1).unwrap();
    sim.request(1, RequestKind::Tar, 1).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Grant(1)]);
    assert_eq!(sim.feds[1].log, vec![Out::Grant(1)]);
    // After a TAR grant with zero lookahead the bound is strict: nothing at 1 any more.
    assert_eq!(
        sim.feds[0]
            .tm
            .validate_send(Some(t(1)), OrderType::TimeStamp),
        Err(TimeError::InvalidLogicalTime)
    );
    assert_eq!(
        sim.feds[0]
            .tm
            .validate_send(Some(t(2)), OrderType::TimeStamp),
        Ok(OrderType::TimeStamp)
    );
    assert_clean(&sim);
}

#[test]
fn tar_waits_for_the_slowest_regulator() {
    let mut sim = federation(3, 0);
    sim.request(0, RequestKind::Tar, 5).unwrap();
    sim.request(1, RequestKind::Tar, 5).unwrap();
    sim.settle();
    assert!(
        sim.feds[0].log.is_empty(),
        "granted while fed 2 may still send at 0"
    );
    sim.request(2, RequestKind::Tar, 3).unwrap();
    sim.settle();
    assert!(
        sim.feds[0].log.is_empty(),
        "granted 5 while fed 2 (at 3, L=0) may still send at 4"
    );
    assert_eq!(sim.feds[2].log, vec![Out::Grant(3)]);
    sim.request(2, RequestKind::Tar, 5).unwrap();
    sim.settle();
    for i in 0..3 {
        assert_eq!(sim.feds[i].log.last(), Some(&Out::Grant(5)));
    }
    assert_clean(&sim);
}

#[test]
fn tara_zero_lookahead() {
    let mut sim = federation(2, 0);
    sim.request(0, RequestKind::Tara, 1).unwrap();
    sim.request(1, RequestKind::Tara, 1).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Grant(1)]);
    assert_eq!(sim.feds[1].log, vec![Out::Grant(1)]);
    // After an Available grant, equality is allowed: A may send at 1 and B receives it after
    // its own grant at 1, at its next advance.
    sim.send(0, Some(1), OrderType::TimeStamp).unwrap();
    sim.settle();
    assert_eq!(
        sim.feds[1].log,
        vec![Out::Grant(1)],
        "TSO held until B advances"
    );
    sim.request(1, RequestKind::Tar, 2).unwrap();
    sim.request(0, RequestKind::Tar, 2).unwrap();
    sim.settle();
    assert_eq!(
        sim.feds[1].log,
        vec![Out::Grant(1), Out::Tso(1), Out::Grant(2)]
    );
    assert_clean(&sim);
}

#[test]
fn ner_zero_lookahead_next_event() {
    let mut sim = federation(2, 0);
    // B sends A a message at 3 while both are at 0.
    sim.send(1, Some(3), OrderType::TimeStamp).unwrap();
    sim.settle();
    sim.request(0, RequestKind::Ner, 10).unwrap();
    sim.request(1, RequestKind::Ner, 10).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Tso(3), Out::Grant(3)]);
    assert!(
        sim.feds[1].log.is_empty(),
        "B must not be granted 3: A may still send in (3, 10]"
    );
    assert_eq!(sim.feds[0].tm.send_bound(), Some(Bound::excl(t(3))));
    sim.request(0, RequestKind::Ner, 10).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log.last(), Some(&Out::Grant(10)));
    assert_eq!(sim.feds[1].log, vec![Out::Grant(10)]);
    assert_clean(&sim);
}

#[test]
fn ner_reply_inside_the_window_is_honoured() {
    // A granted at 3 answers B at 4; B must get the message at 4 and be granted 4, not 10.
    let mut sim = federation(2, 0);
    sim.send(1, Some(3), OrderType::TimeStamp).unwrap();
    sim.settle();
    sim.request(0, RequestKind::Ner, 10).unwrap();
    sim.request(1, RequestKind::Ner, 10).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Tso(3), Out::Grant(3)]);
    sim.send(0, Some(4), OrderType::TimeStamp).unwrap();
    sim.request(0, RequestKind::Ner, 10).unwrap();
    sim.settle();
    assert_eq!(sim.feds[1].log, vec![Out::Tso(4), Out::Grant(4)]);
    assert_clean(&sim);
}

#[test]
fn nera_zero_lookahead() {
    let mut sim = federation(2, 0);
    sim.send(1, Some(3), OrderType::TimeStamp).unwrap();
    sim.settle();
    sim.request(0, RequestKind::Nera, 10).unwrap();
    sim.request(1, RequestKind::Nera, 10).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Tso(3), Out::Grant(3)]);
    // After NERA at 3 the bound is (3, Incl): A may still send at 3.
    assert_eq!(sim.feds[0].tm.send_bound(), Some(Bound::incl(t(3))));
    assert_clean(&sim);
}

#[test]
fn all_ner_jumps_without_creep() {
    // Lookahead 1, everyone in NER(100) with nothing queued: classic null messages would creep
    // 1 per round; conditional bounds jump straight to 100.
    let n = 4;
    let mut sim = federation(n, 1);
    let before = sim.total_promises();
    for i in 0..n {
        sim.request(i, RequestKind::Ner, 100).unwrap();
    }
    sim.settle();
    for i in 0..n {
        assert_eq!(sim.feds[i].log, vec![Out::Grant(100)]);
    }
    let promises = sim.total_promises() - before;
    assert!(
        promises <= (3 * n) as u64,
        "{promises} promises for one all-NER round"
    );
    assert_clean(&sim);
}

#[test]
fn tso_is_delivered_before_the_grant_and_in_order() {
    let mut sim = federation(2, 1);
    sim.send(1, Some(7), OrderType::TimeStamp).unwrap();
    sim.send(1, Some(3), OrderType::TimeStamp).unwrap();
    sim.send(1, Some(12), OrderType::TimeStamp).unwrap();
    sim.request(0, RequestKind::Tar, 10).unwrap();
    sim.request(1, RequestKind::Tar, 10).unwrap();
    sim.settle();
    assert_eq!(
        sim.feds[0].log,
        vec![Out::Tso(3), Out::Tso(7), Out::Grant(10)]
    );
    sim.request(0, RequestKind::Tar, 12).unwrap();
    sim.request(1, RequestKind::Tar, 12).unwrap();
    sim.settle();
    assert_eq!(&sim.feds[0].log[3..], &[Out::Tso(12), Out::Grant(12)]);
    assert_clean(&sim);
}

#[test]
fn ro_is_held_for_a_constrained_federate_unless_asynchronous() {
    let mut sim = federation(2, 1);
    sim.send(1, None, OrderType::Receive).unwrap();
    sim.settle();
    let ro = |log: &[Out]| log.iter().filter(|o| matches!(o, Out::Ro(_))).count();
    assert_eq!(
        ro(&sim.feds[0].log),
        0,
        "RO must wait for the advancing state"
    );
    sim.request(0, RequestKind::Tar, 0).unwrap();
    sim.settle();
    assert_eq!(ro(&sim.feds[0].log), 1);
    sim.call(0, |tm| tm.enable_asynchronous_delivery()).unwrap();
    assert_eq!(
        sim.call(0, |tm| tm.enable_asynchronous_delivery()),
        Err(TimeError::AsynchronousDeliveryAlreadyEnabled)
    );
    sim.send(1, None, OrderType::Receive).unwrap();
    sim.settle();
    assert_eq!(
        ro(&sim.feds[0].log),
        2,
        "asynchronous delivery hands RO over at once"
    );
    assert_clean(&sim);
}

#[test]
fn unconstrained_federate_gets_tso_as_ro_at_once_and_is_granted_at_once() {
    let mut sim = Sim::new(1, quiet());
    sim.join(None);
    sim.join(None);
    sim.enable_regulation(0, 1);
    sim.settle();
    sim.send(0, Some(5), OrderType::TimeStamp).unwrap();
    sim.settle();
    assert_eq!(sim.feds[1].log, vec![Out::Ro(Some(5))]);
    sim.request(1, RequestKind::Ner, 50).unwrap();
    assert_eq!(sim.feds[1].log.last(), Some(&Out::Grant(50)));
    assert_clean(&sim);
}

#[test]
fn late_regulator_jumps_forward_past_constrained_federates() {
    let mut sim = Sim::new(1, quiet());
    sim.join(None);
    sim.join(None);
    sim.enable_constrained(0);
    sim.settle();
    sim.request(0, RequestKind::Tar, 10).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].log.last(), Some(&Out::Grant(10)));
    sim.enable_regulation(1, 2);
    sim.settle();
    // Fed 0 was granted 10 by TAR: it accepts only > 10, so fed 1 (L = 2) lands at 8 with a
    // strict bound (10, Excl).
    assert_eq!(sim.feds[1].log.last(), Some(&Out::RegulationEnabled(8)));
    assert_eq!(sim.feds[1].tm.send_bound(), Some(Bound::excl(t(10))));
    assert_eq!(
        sim.feds[1]
            .tm
            .validate_send(Some(t(10)), OrderType::TimeStamp),
        Err(TimeError::InvalidLogicalTime)
    );
    assert_clean(&sim);
}

#[test]
fn lost_regulator_no_longer_holds_anyone_back() {
    let mut sim = federation(2, 1);
    sim.request(0, RequestKind::Tar, 5).unwrap();
    sim.settle();
    assert!(sim.feds[0].log.is_empty());
    sim.crash(1);
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Grant(5)]);
    assert_eq!(sim.feds[0].tm.galt(), None);
    assert_clean(&sim);
}

#[test]
fn resigning_regulator_releases_others_after_its_last_messages() {
    let mut sim = federation(2, 1);
    sim.send(1, Some(4), OrderType::TimeStamp).unwrap();
    sim.request(0, RequestKind::Tar, 5).unwrap();
    sim.call(1, |tm| tm.disable_time_regulation()).unwrap();
    sim.resign(1);
    sim.settle();
    assert_eq!(sim.feds[0].log, vec![Out::Tso(4), Out::Grant(5)]);
    assert_clean(&sim);
}

#[test]
fn lookahead_decrease_takes_effect_only_as_time_advances() {
    let mut sim = federation(2, 5);
    let tm = &sim.feds[0].tm;
    assert_eq!(tm.query_lookahead(), Ok(HLAinteger64Interval(5)));
    sim.call(0, |tm| tm.modify_lookahead(HLAinteger64Interval(1)))
        .unwrap();
    let tm = &sim.feds[0].tm;
    assert_eq!(
        tm.query_lookahead(),
        Ok(HLAinteger64Interval(5)),
        "actual lookahead is max(L, B - T)"
    );
    assert_eq!(
        tm.validate_send(Some(t(4)), OrderType::TimeStamp),
        Err(TimeError::InvalidLogicalTime)
    );
    sim.request(0, RequestKind::Tar, 2).unwrap();
    sim.request(1, RequestKind::Tar, 2).unwrap();
    sim.settle();
    assert_eq!(
        sim.feds[0].tm.query_lookahead(),
        Ok(HLAinteger64Interval(3))
    );
    sim.request(0, RequestKind::Tar, 10).unwrap();
    sim.request(1, RequestKind::Tar, 10).unwrap();
    sim.settle();
    assert_eq!(
        sim.feds[0].tm.query_lookahead(),
        Ok(HLAinteger64Interval(1))
    );
    assert_eq!(
        sim.feds[0]
            .tm
            .validate_send(Some(t(11)), OrderType::TimeStamp),
        Ok(OrderType::TimeStamp)
    );
    // Increases take effect at once.
    sim.call(0, |tm| tm.modify_lookahead(HLAinteger64Interval(4)))
        .unwrap();
    assert_eq!(
        sim.feds[0]
            .tm
            .validate_send(Some(t(13)), OrderType::TimeStamp),
        Err(TimeError::InvalidLogicalTime)
    );
    assert_clean(&sim);
}

#[test]
fn flush_queue_delivers_everything_and_grants_at_most_the_first_message() {
    let mut sim = federation(2, 1);
    sim.send(1, Some(5), OrderType::TimeStamp).unwrap();
    sim.send(1, Some(8), OrderType::TimeStamp).unwrap();
    sim.settle();
    sim.request(0, RequestKind::Fqr, 10).unwrap();
    // GALT is fed 1's bound, 1 (T = 0, L = 1): the grant is min(10, 5, 1).
    assert_eq!(
        sim.feds[0].log,
        vec![Out::Tso(5), Out::Tso(8), Out::Grant(1)]
    );
    assert_clean(&sim);
}

#[test]
fn time_management_errors_are_typed() {
    let mut sim = federation(2, 1);
    let tm = &mut sim.feds[0].tm;
    assert_eq!(
        tm.enable_time_regulation(HLAinteger64Interval(1)),
        Err(TimeError::TimeRegulationAlreadyEnabled)
    );
    assert_eq!(
        tm.enable_time_constrained(),
        Err(TimeError::TimeConstrainedAlreadyEnabled)
    );
    assert_eq!(
        tm.disable_asynchronous_delivery(),
        Err(TimeError::AsynchronousDeliveryAlreadyDisabled)
    );
    assert_eq!(
        tm.modify_lookahead(HLAinteger64Interval(-1)),
        Err(TimeError::InvalidLookahead)
    );
    tm.time_advance_request(t(5)).unwrap();
    assert_eq!(
        tm.next_message_request(t(6)),
        Err(TimeError::InTimeAdvancingState)
    );
    assert_eq!(
        tm.modify_lookahead(HLAinteger64Interval(2)),
        Err(TimeError::InTimeAdvancingState)
    );
    let tm = &mut sim.feds[1].tm;
    tm.disable_time_regulation().unwrap();
    assert_eq!(
        tm.disable_time_regulation(),
        Err(TimeError::TimeRegulationIsNotEnabled)
    );
    assert_eq!(
        tm.query_lookahead(),
        Err(TimeError::TimeRegulationIsNotEnabled)
    );
    tm.disable_time_constrained().unwrap();
    assert_eq!(
        tm.disable_time_constrained(),
        Err(TimeError::TimeConstrainedIsNotEnabled)
    );
    assert_eq!(
        tm.enable_time_regulation(HLAinteger64Interval(-1)),
        Err(TimeError::InvalidLookahead)
    );
    tm.enable_time_regulation(HLAinteger64Interval(0)).unwrap();
    assert_eq!(
        tm.enable_time_regulation(HLAinteger64Interval(0)),
        Err(TimeError::RequestForTimeRegulationPending)
    );
    assert_eq!(
        tm.time_advance_request(t(1)),
        Err(TimeError::RequestForTimeRegulationPending)
    );
    let mut sim = Sim::new(1, quiet());
    sim.join(None);
    sim.join(None);
    sim.request(0, RequestKind::Tar, 5).unwrap();
    sim.enable_regulation(1, 0);
    sim.settle();
    let tm = &mut sim.feds[0].tm;
    tm.enable_time_constrained().unwrap();
    assert_eq!(
        tm.enable_time_constrained(),
        Err(TimeError::RequestForTimeConstrainedPending)
    );
    assert_eq!(
        tm.time_advance_request(t(1)),
        Err(TimeError::RequestForTimeConstrainedPending)
    );
    let mut sim = federation(2, 1);
    sim.request(0, RequestKind::Tar, 3).unwrap();
    sim.request(1, RequestKind::Tar, 3).unwrap();
    sim.settle();
    assert_eq!(
        sim.feds[0].tm.time_advance_request(t(2)),
        Err(TimeError::LogicalTimeAlreadyPassed)
    );
}

#[test]
fn galt_and_lits_are_queried_as_the_standard_says() {
    let mut sim = Sim::new(1, quiet());
    sim.join(None);
    sim.join(None);
    sim.enable_constrained(0);
    sim.settle();
    assert_eq!(
        sim.feds[0].tm.galt(),
        None,
        "no other regulator: GALT undefined"
    );
    assert_eq!(sim.feds[0].tm.lits(), None);
    sim.enable_regulation(1, 3);
    sim.settle();
    assert_eq!(sim.feds[0].tm.galt(), Some(t(3)));
    sim.send(1, Some(7), OrderType::TimeStamp).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].tm.lits(), Some(t(3)));
    sim.request(1, RequestKind::Tar, 20).unwrap();
    sim.settle();
    assert_eq!(sim.feds[0].tm.galt(), Some(t(23)));
    assert_eq!(sim.feds[0].tm.lits(), Some(t(7)));
    assert_clean(&sim);
}

/// Null messages (promises) per grant in the two reference workloads; printed for the report.
#[test]
fn null_messages_per_grant_lockstep_tar_and_all_ner() {
    for (kind, l) in [
        (RequestKind::Tar, 1),
        (RequestKind::Tar, 0),
        (RequestKind::Ner, 1),
        (RequestKind::Ner, 0),
    ] {
        let n = 8;
        let mut sim = federation(n, l);
        let (p0, g0) = (sim.total_promises(), sim.total_grants());
        let rounds = 50;
        for r in 1..=rounds {
            if kind == RequestKind::Ner {
                // One event per round, so NER has something to stop at.
                sim.send(r as usize % n, Some(r * 10 + 5 + l), OrderType::TimeStamp)
                    .unwrap();
            }
            // Every federate keeps asking until it reaches the round's end time.
            loop {
                let mut asked = false;
                for i in 0..n {
                    let tm = &sim.feds[i].tm;
                    if tm.pending_advance().is_none() && tm.logical_time() < t(r * 10) {
                        sim.request(i, kind, r * 10).unwrap();
                        asked = true;
                    }
                }
                sim.settle();
                if !asked {
                    break;
                }
            }
        }
        let promises = sim.total_promises() - p0;
        let grants = sim.total_grants() - g0;
        let per_grant = promises as f64 / grants as f64;
        println!(
            "{kind:?} L={l}, {n} federates: {grants} grants, {promises} promise broadcasts, {per_grant:.2} per grant ({:.1} unicast messages per grant)",
            per_grant * (n - 1) as f64
        );
        assert!(grants >= (rounds as u64) * n as u64);
        assert!(
            per_grant <= 4.0,
            "{kind:?} L={l}: {per_grant} promises per grant"
        );
        assert_clean(&sim);
    }
}

#[test]
fn promises_are_sent_only_on_change_and_coalesced_per_drain() {
    type Tm = TimeManager<HLAinteger64Time, u64>;
    let promises = |tm: &mut Tm| {
        let mut n = 0;
        while let Some(a) = tm.poll_action() {
            if matches!(a, Action::Broadcast(TimeMessage::Promise(_))) {
                n += 1;
            }
        }
        n
    };
    let mut tm: Tm = TimeManager::new(MemberId(1), ViewNumber(2), [(MemberId(0), Seq(0))]);
    // The peer regulates with bound 5 and has not promised anything conditional.
    let five = Bound::incl(HLAinteger64Time(5));
    let peer = Promise {
        bounds: Some((five, five)),
        hw: Seq(0),
        recv: vec![(MemberId(1), Seq(0))],
        view: ViewNumber(2),
    };
    tm.on_message(MemberId(0), TimeMessage::Promise(peer));
    tm.enable_time_regulation(HLAinteger64Interval(1)).unwrap();
    let earliest = Bound::min_value();
    tm.on_message(
        MemberId(0),
        TimeMessage::RegulationAnswer { query: 1, earliest },
    );
    assert_eq!(promises(&mut tm), 1, "the first promise");
    assert_eq!(tm.regulation(), RegulationState::On);
    tm.enable_time_constrained().unwrap();
    assert_eq!(promises(&mut tm), 0, "nothing changed for others");
    for seq in 1..=5 {
        tm.on_data(
            MemberId(0),
            Seq(seq),
            Incoming::Ro {
                time: None,
                payload: seq,
            },
        );
    }
    assert_eq!(
        promises(&mut tm),
        0,
        "RO traffic while idle changes no bound"
    );
    tm.next_message_request(HLAinteger64Time(20)).unwrap();
    assert_eq!(
        promises(&mut tm),
        1,
        "the request raises C to 21: one promise"
    );
    assert!(
        tm.pending_advance().is_some(),
        "blocked by the peer's bound 5"
    );
    // Ten TSO arrivals above C, handled before the LRC drains: U and C stay, but the peer must
    // learn they were received (consistency) — with one promise, not ten.
    for seq in 6..=15 {
        let time = HLAinteger64Time(30 + seq as i64);
        tm.on_data(MemberId(0), Seq(seq), Incoming::Tso { time, payload: seq });
    }
    assert_eq!(promises(&mut tm), 1);
    assert_eq!(promises(&mut tm), 0);
}
