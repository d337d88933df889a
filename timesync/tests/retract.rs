//! Retraction at the receiver: a still-queued TSO message removed by its sender's stream number
//! is never delivered, and a NER that was waiting for it advances to the next event instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_timesync::*;

type Tm = TimeManager<HLAinteger64Time, &'static str>;

/// Executes one side's actions: control messages to the other side; deliveries and callbacks
/// are kept.
fn drain(from: &mut Tm, to: &mut Tm, out: &mut Vec<String>) -> bool {
    let mut moved = false;
    while let Some(action) = from.poll_action() {
        moved = true;
        match action {
            Action::Broadcast(m) | Action::SendTo(_, m) => to.on_message(from.id(), m),
            Action::Callback(c) => out.push(format!("{:?}:{c:?}", from.id())),
            Action::Deliver(d) => out.push(format!("{:?}:deliver {}", from.id(), d.payload)),
        }
    }
    moved
}

fn pump(a: &mut Tm, b: &mut Tm) -> Vec<String> {
    let mut out = Vec::new();
    while drain(a, b, &mut out) | drain(b, a, &mut out) {}
    out
}

/// A and B regulating with zero lookahead and constrained at 0; A has sent B a TSO message at 3
/// (A's stream number 1), which B holds in its queue.
fn setup() -> (Tm, Tm) {
    let mut a = Tm::new(MemberId(1), ViewNumber(1), []);
    let mut b = Tm::new(MemberId(2), ViewNumber(2), [(MemberId(1), Seq(0))]);
    a.on_member_joined(MemberId(2), ViewNumber(2));
    for tm in [&mut a, &mut b] {
        tm.enable_time_regulation(HLAinteger64Interval(0)).unwrap();
        tm.enable_time_constrained().unwrap();
    }
    pump(&mut a, &mut b);
    assert_eq!(
        a.validate_send(Some(HLAinteger64Time(3)), OrderType::TimeStamp),
        Ok(OrderType::TimeStamp)
    );
    a.on_data_sent(Seq(1), OrderType::TimeStamp);
    b.on_data(
        MemberId(1),
        Seq(1),
        Incoming::Tso {
            time: HLAinteger64Time(3),
            payload: "m3",
        },
    );
    (a, b)
}

#[test]
fn a_retracted_queued_message_is_not_delivered_and_ner_goes_to_the_next_event() {
    let (mut a, mut b) = setup();
    assert_eq!(b.retract(MemberId(1), Seq(1)), Some("m3"));
    assert_eq!(b.retract(MemberId(1), Seq(1)), None, "only once");
    a.next_message_request(HLAinteger64Time(10)).unwrap();
    b.next_message_request(HLAinteger64Time(10)).unwrap();
    let out = pump(&mut a, &mut b);
    assert!(!out.iter().any(|e| e.contains("deliver")), "{out:?}");
    let grants: Vec<&String> = out.iter().filter(|e| e.contains("Grant")).collect();
    assert_eq!(grants.len(), 2, "both granted 10, nobody at 3: {out:?}");
    assert!(grants.iter().all(|g| g.contains("(10)")), "{out:?}");
}

#[test]
fn without_retraction_the_message_is_delivered_at_its_time() {
    // The control case of the test above (the NER(10) example of `docs/HLA-SEMANTICS.md`,
    // "Worked examples"): B gets the message and 3.
    let (mut a, mut b) = setup();
    a.next_message_request(HLAinteger64Time(10)).unwrap();
    b.next_message_request(HLAinteger64Time(10)).unwrap();
    let out = pump(&mut a, &mut b);
    let b_out: Vec<&String> = out
        .iter()
        .filter(|e| e.starts_with("MemberId(2)"))
        .collect();
    assert_eq!(b_out.len(), 2, "{out:?}");
    assert!(b_out[0].contains("deliver m3"), "{out:?}");
    assert!(
        b_out[1].contains("Grant") && b_out[1].contains("(3)"),
        "{out:?}"
    );
    // Delivered: no longer retractable here.
    assert_eq!(b.retract(MemberId(1), Seq(1)), None);
}

#[test]
fn a_pending_ner_waiting_on_the_message_advances_when_it_is_retracted() {
    let (mut a, mut b) = setup();
    // Both ask; B's promise, conditional on its queued message (3), reaches A before the
    // retraction does at B.
    b.next_message_request(HLAinteger64Time(10)).unwrap();
    a.next_message_request(HLAinteger64Time(10)).unwrap();
    let mut out = Vec::new();
    drain(&mut b, &mut a, &mut out);
    assert!(out.is_empty(), "nothing granted yet: {out:?}");
    assert_eq!(b.retract(MemberId(1), Seq(1)), Some("m3"));
    let out = pump(&mut a, &mut b);
    assert!(!out.iter().any(|e| e.contains("deliver")), "{out:?}");
    assert!(
        out.iter()
            .filter(|e| e.contains("Grant"))
            .all(|g| g.contains("(10)")),
        "{out:?}"
    );
}
