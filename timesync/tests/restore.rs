//! A federation restore rebuilds each time manager from its snapshot: the restored managers
//! reach the same grants and deliver the same queued TSO messages as after the save, and a
//! restored manager grants nothing before it heard from its peers again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_timesync::*;

type T = HLAinteger64Time;
type M = TimeManager<T, &'static str>;

#[derive(Debug, PartialEq)]
enum Out {
    Grant(i64),
    Deliver(&'static str, i64),
}

/// Exchanges the two managers' messages until both are quiet; returns what each federate saw.
fn pump(ms: &mut [M; 2]) -> [Vec<Out>; 2] {
    let mut out = [Vec::new(), Vec::new()];
    for _ in 0..1000 {
        let mut moved = false;
        for i in 0..2 {
            while let Some(a) = ms[i].poll_action() {
                moved = true;
                let other = 1 - i;
                let from = ms[i].id();
                match a {
                    Action::Broadcast(msg) | Action::SendTo(_, msg) => {
                        ms[other].on_message(from, msg)
                    }
                    Action::Deliver(d) => out[i].push(Out::Deliver(d.payload, d.time.unwrap().0)),
                    Action::Callback(Callback::TimeAdvanceGrant(t)) => out[i].push(Out::Grant(t.0)),
                    Action::Callback(_) => {}
                }
            }
        }
        if !moved {
            return out;
        }
    }
    panic!("managers never went quiet");
}

fn pair() -> [M; 2] {
    let a = MemberId(1);
    let b = MemberId(2);
    let mut ms = [
        M::new(a, ViewNumber(1), [(b, Seq(0))]),
        M::new(b, ViewNumber(1), [(a, Seq(0))]),
    ];
    for i in 0..2 {
        ms[i]
            .enable_time_regulation(HLAinteger64Interval(1))
            .unwrap();
        pump(&mut ms);
        ms[i].enable_time_constrained().unwrap();
        pump(&mut ms);
    }
    ms
}

#[test]
fn restored_managers_replay_the_queued_message_and_the_same_grants() {
    let mut ms = pair();
    for m in ms.iter_mut() {
        m.time_advance_request(HLAinteger64Time(5)).unwrap();
    }
    let o = pump(&mut ms);
    assert_eq!(o, [vec![Out::Grant(5)], vec![Out::Grant(5)]]);
    // A sends a TSO message at 7; B queues it (not deliverable before B advances past 7).
    ms[0]
        .validate_send(Some(HLAinteger64Time(7)), OrderType::TimeStamp)
        .unwrap();
    ms[0].on_data_sent(Seq(1), OrderType::TimeStamp);
    ms[1].on_data(
        MemberId(1),
        Seq(1),
        Incoming::Tso {
            time: HLAinteger64Time(7),
            payload: "m7",
        },
    );
    pump(&mut ms);
    assert_eq!(ms[1].queued_tso(), 1);
    let snaps = [ms[0].snapshot(), ms[1].snapshot()];

    for m in ms.iter_mut() {
        m.time_advance_request(HLAinteger64Time(10)).unwrap();
    }
    let first = pump(&mut ms);

    // Restore: fresh managers from the snapshots, each peer's stream continuing at seq 1.
    let [sa, sb] = snaps;
    let mut rs = [
        M::restored(MemberId(1), ViewNumber(9), [(MemberId(2), Seq(0))], sa),
        M::restored(MemberId(2), ViewNumber(9), [(MemberId(1), Seq(1))], sb),
    ];
    assert_eq!(rs[0].logical_time(), HLAinteger64Time(5));
    assert_eq!(rs[1].queued_tso(), 1);
    // B alone asks for 10 and hears nothing from A yet: no grant, no delivery.
    rs[1].time_advance_request(HLAinteger64Time(10)).unwrap();
    while let Some(a) = rs[1].poll_action() {
        match a {
            Action::Broadcast(msg) | Action::SendTo(_, msg) => rs[0].on_message(MemberId(2), msg),
            a => panic!("restored manager acted before hearing its peer: {a:?}"),
        }
    }
    rs[0].time_advance_request(HLAinteger64Time(10)).unwrap();
    let second = pump(&mut rs);
    assert_eq!(first, second);
    assert_eq!(
        second[1],
        vec![Out::Deliver("m7", 7), Out::Grant(10)],
        "the queued message is delivered again, before the grant"
    );
}
