//! The same state machine over `HLAfloat64Time`, wired by a minimal in-order router (the shape
//! of what the LRC does), plus the control messages' postcard round trip.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;

use hlamesh_timesync::*;

type F = HLAfloat64Time;

fn f(v: f64) -> F {
    F::new(v).expect("not NaN")
}

/// A data message with its stream number, or a control message.
type Wire = Result<(Seq, Incoming<F, &'static str>), TimeMessage<F>>;

/// Everything in flight, delivered in send order; data and control share one FIFO per run.
struct Router {
    tms: Vec<TimeManager<F, &'static str>>,
    seq: Vec<u64>,
    wire: VecDeque<(usize, usize, Wire)>,
    seen: Vec<Vec<String>>,
}

impl Router {
    fn new(n: usize) -> Self {
        let mut tms = Vec::new();
        for i in 0..n {
            let others: Vec<_> = (0..i).map(|j| (MemberId(j as u64), Seq(0))).collect();
            tms.push(TimeManager::new(
                MemberId(i as u64),
                ViewNumber(i as u64 + 1),
                others,
            ));
            for tm in tms.iter_mut().take(i) {
                tm.on_member_joined(MemberId(i as u64), ViewNumber(i as u64 + 1));
            }
        }
        let mut r = Self {
            tms,
            seq: vec![0; n],
            wire: VecDeque::new(),
            seen: vec![Vec::new(); n],
        };
        r.pump();
        r
    }

    fn drain(&mut self, i: usize) {
        while let Some(a) = self.tms[i].poll_action() {
            match a {
                Action::Broadcast(m) => {
                    for to in 0..self.tms.len() {
                        if to != i {
                            self.wire.push_back((i, to, Err(m.clone())));
                        }
                    }
                }
                Action::SendTo(to, m) => self.wire.push_back((i, to.0 as usize, Err(m))),
                Action::Deliver(d) => {
                    self.seen[i].push(format!("{}@{:?}", d.payload, d.time.map(|t| t.value())))
                }
                Action::Callback(c) => self.seen[i].push(format!("{c:?}")),
            }
        }
    }

    fn pump(&mut self) {
        for i in 0..self.tms.len() {
            self.drain(i);
        }
        while let Some((from, to, m)) = self.wire.pop_front() {
            match m {
                Ok((seq, inc)) => self.tms[to].on_data(MemberId(from as u64), seq, inc),
                Err(msg) => {
                    // Through the wire format, as the LRC would send it.
                    let bytes = postcard::to_allocvec(&msg).expect("encode");
                    let back: TimeMessage<F> = postcard::from_bytes(&bytes).expect("decode");
                    assert_eq!(back, msg);
                    self.tms[to].on_message(MemberId(from as u64), back);
                }
            }
            self.drain(to);
        }
    }

    fn send_tso(&mut self, i: usize, t: f64, payload: &'static str) {
        let order = self.tms[i]
            .validate_send(Some(f(t)), OrderType::TimeStamp)
            .expect("valid");
        assert_eq!(order, OrderType::TimeStamp);
        self.seq[i] += 1;
        self.tms[i].on_data_sent(Seq(self.seq[i]), order);
        for to in 0..self.tms.len() {
            if to != i {
                let inc = Incoming::Tso {
                    time: f(t),
                    payload,
                };
                self.wire.push_back((i, to, Ok((Seq(self.seq[i]), inc))));
            }
        }
    }
}

#[test]
fn float_time_zero_lookahead_tar_and_ner() {
    let mut r = Router::new(2);
    for i in 0..2 {
        r.tms[i]
            .enable_time_regulation(HLAfloat64Interval::new(0.0).unwrap())
            .unwrap();
        r.pump();
        r.tms[i].enable_time_constrained().unwrap();
        r.pump();
    }
    for i in 0..2 {
        r.tms[i].time_advance_request(f(0.5)).unwrap();
    }
    r.pump();
    for i in 0..2 {
        assert_eq!(r.tms[i].logical_time(), f(0.5));
    }
    r.send_tso(1, 0.75, "m");
    r.pump();
    for i in 0..2 {
        r.tms[i].next_message_request(f(2.0)).unwrap();
    }
    r.pump();
    assert_eq!(r.tms[0].logical_time(), f(0.75));
    assert_eq!(
        r.seen[0].last().map(String::as_str),
        Some("TimeAdvanceGrant(HLAfloat64Time(0.75))")
    );
    assert!(r.seen[0].contains(&"m@Some(0.75)".to_string()));
    assert!(
        r.tms[1].pending_advance().is_some(),
        "B may still receive something in (0.75, 2]"
    );
    r.tms[0].next_message_request(f(2.0)).unwrap();
    r.pump();
    assert_eq!(r.tms[0].logical_time(), f(2.0));
    assert_eq!(r.tms[1].logical_time(), f(2.0));
}

#[test]
fn float_lookahead_bound_and_late_regulator() {
    let mut r = Router::new(2);
    r.tms[0].enable_time_constrained().unwrap();
    r.tms[0].time_advance_request(f(10.0)).unwrap();
    r.pump();
    r.tms[1]
        .enable_time_regulation(HLAfloat64Interval::new(0.25).unwrap())
        .unwrap();
    r.pump();
    // Fed 0 was granted 10 by TAR: fed 1 jumps to 9.75 with the strict bound (10, Excl).
    assert_eq!(r.tms[1].logical_time(), f(9.75));
    assert_eq!(
        r.tms[1].validate_send(Some(f(10.0)), OrderType::TimeStamp),
        Err(TimeError::InvalidLogicalTime)
    );
    assert_eq!(
        r.tms[1].validate_send(Some(f(10.0001)), OrderType::TimeStamp),
        Ok(OrderType::TimeStamp)
    );
    assert_eq!(
        r.tms[1].query_lookahead(),
        Ok(HLAfloat64Interval::new(0.25).unwrap())
    );
}
