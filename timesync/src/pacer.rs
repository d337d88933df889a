//! A drift-free real-time frame pacer, as pure arithmetic: the caller sleeps.
//!
//! Frame `k` is due at `anchor + k × period / scale`, computed exactly in integers from the
//! anchor — never by adding up sleeps, so rounding and oversleeping do not accumulate. A frame
//! that finishes after the next deadline is an *overrun*; the schedule is kept (the next frames
//! run back to back until they catch up) unless the caller re-anchors with [`FramePacer::resync`]
//! after a long stall. Changing the time scale re-anchors at the current frame, so the change
//! itself introduces no jump. "As fast as possible" mode never waits.

use std::time::Duration;

/// Invalid pacer parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PacerError {
    /// The frame period (or rate) is zero.
    #[error("frame period must be positive")]
    ZeroPeriod,
    /// The time-scale factor is not a positive finite number.
    #[error("time scale must be positive and finite")]
    InvalidScale,
}

/// How frames are paced against the wall clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// Real time times a scale factor (2.0 = twice as fast as real time).
    RealTime {
        /// Simulated seconds per wall-clock second.
        scale: f64,
    },
    /// Never wait.
    AsFastAsPossible,
}

/// What to do after a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameOutcome {
    /// Number of the frame that starts next.
    pub next_frame: u64,
    /// Sleep until this wall-clock time (ns) before starting it; `None` = start now.
    pub wait_until: Option<u64>,
    /// How late the finished frame was past the next frame's deadline (0 = on time).
    pub overrun_ns: u64,
}

const SCALE_ONE: u128 = 1_000_000; // scale factors are kept in parts per million

/// The pacer. Times are wall-clock nanoseconds (any fixed epoch) supplied by the caller.
#[derive(Debug, Clone)]
pub struct FramePacer {
    period_num_ns: u128,
    period_den: u128,
    scale_ppm: Option<u128>,
    anchor_ns: u64,
    anchor_frame: u64,
    frame: u64,
    overruns: u64,
    worst_overrun_ns: u64,
}

fn scale_ppm(pace: Pace) -> Result<Option<u128>, PacerError> {
    match pace {
        Pace::AsFastAsPossible => Ok(None),
        Pace::RealTime { scale } => {
            if !scale.is_finite() || scale <= 0.0 {
                return Err(PacerError::InvalidScale);
            }
            let ppm = (scale * SCALE_ONE as f64).round();
            if !(1.0..=1e15).contains(&ppm) {
                return Err(PacerError::InvalidScale);
            }
            Ok(Some(ppm as u128))
        }
    }
}

impl FramePacer {
    /// Frames of `period`, frame 0 starting at `start_ns`.
    pub fn with_period(start_ns: u64, period: Duration, pace: Pace) -> Result<Self, PacerError> {
        let ns = period.as_nanos();
        if ns == 0 {
            return Err(PacerError::ZeroPeriod);
        }
        Self::build(start_ns, ns, 1, pace)
    }

    /// `hz` frames per second exactly (a 60 Hz period is not a whole number of nanoseconds).
    pub fn with_rate(start_ns: u64, hz: u32, pace: Pace) -> Result<Self, PacerError> {
        if hz == 0 {
            return Err(PacerError::ZeroPeriod);
        }
        Self::build(start_ns, 1_000_000_000, u128::from(hz), pace)
    }

    fn build(start_ns: u64, num: u128, den: u128, pace: Pace) -> Result<Self, PacerError> {
        Ok(Self {
            period_num_ns: num,
            period_den: den,
            scale_ppm: scale_ppm(pace)?,
            anchor_ns: start_ns,
            anchor_frame: 0,
            frame: 0,
            overruns: 0,
            worst_overrun_ns: 0,
        })
    }

    /// Wall-clock deadline at which frame `k` may start (None when as fast as possible).
    pub fn deadline(&self, k: u64) -> Option<u64> {
        let ppm = self.scale_ppm?;
        let frames = u128::from(k.saturating_sub(self.anchor_frame));
        let offset = frames * self.period_num_ns * SCALE_ONE / (self.period_den * ppm);
        Some(u64::try_from(u128::from(self.anchor_ns) + offset).unwrap_or(u64::MAX))
    }

    /// The frame currently running.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Frames that finished after the next one was due.
    pub fn overruns(&self) -> u64 {
        self.overruns
    }

    /// The worst overrun seen, ns.
    pub fn worst_overrun_ns(&self) -> u64 {
        self.worst_overrun_ns
    }

    /// The running frame finished at `now_ns`: when may the next one start?
    pub fn frame_done(&mut self, now_ns: u64) -> FrameOutcome {
        self.frame += 1;
        let Some(due) = self.deadline(self.frame) else {
            return FrameOutcome {
                next_frame: self.frame,
                wait_until: None,
                overrun_ns: 0,
            };
        };
        if now_ns > due {
            let late = now_ns - due;
            self.overruns += 1;
            self.worst_overrun_ns = self.worst_overrun_ns.max(late);
            FrameOutcome {
                next_frame: self.frame,
                wait_until: None,
                overrun_ns: late,
            }
        } else if now_ns == due {
            FrameOutcome {
                next_frame: self.frame,
                wait_until: None,
                overrun_ns: 0,
            }
        } else {
            FrameOutcome {
                next_frame: self.frame,
                wait_until: Some(due),
                overrun_ns: 0,
            }
        }
    }

    /// Re-anchors the schedule so the current frame is due at `now_ns` (after a pause or a stall
    /// the caller does not want to catch up on).
    pub fn resync(&mut self, now_ns: u64) {
        self.anchor_ns = now_ns;
        self.anchor_frame = self.frame;
    }

    /// Changes the pace; the current frame keeps its deadline and later ones follow the new scale.
    pub fn set_pace(&mut self, pace: Pace, now_ns: u64) -> Result<(), PacerError> {
        let new = scale_ppm(pace)?;
        let anchor = self.deadline(self.frame).unwrap_or(now_ns);
        self.scale_ppm = new;
        self.anchor_ns = anchor;
        self.anchor_frame = self.frame;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: u64 = 1_000_000_000;

    #[test]
    fn deadlines_are_exact_multiples_with_no_accumulated_rounding() {
        let p = FramePacer::with_rate(START, 60, Pace::RealTime { scale: 1.0 }).expect("valid");
        assert_eq!(p.deadline(0), Some(START));
        assert_eq!(p.deadline(1), Some(START + 16_666_666));
        assert_eq!(p.deadline(60), Some(START + 1_000_000_000));
        // One hour of 60 Hz frames lands exactly on the hour.
        assert_eq!(p.deadline(216_000), Some(START + 3_600_000_000_000));
    }

    #[test]
    fn oversleeping_does_not_shift_the_schedule() {
        let mut p = FramePacer::with_period(
            START,
            Duration::from_millis(10),
            Pace::RealTime { scale: 1.0 },
        )
        .expect("ok");
        // Each frame computes 2 ms, then the caller oversleeps by 1 ms (less than the slack).
        let mut now = START;
        for k in 1..=1000u64 {
            now += 2_000_000;
            let o = p.frame_done(now);
            assert_eq!(o.next_frame, k);
            assert_eq!(o.wait_until, Some(START + k * 10_000_000));
            now = o.wait_until.expect("wait") + 1_000_000;
        }
        assert_eq!(p.overruns(), 0);
        assert_eq!(p.deadline(1000), Some(START + 10_000_000_000));
    }

    #[test]
    fn overruns_are_reported_and_the_schedule_catches_up() {
        let mut p = FramePacer::with_period(
            START,
            Duration::from_millis(10),
            Pace::RealTime { scale: 1.0 },
        )
        .expect("ok");
        let o = p.frame_done(START + 25_000_000); // frame 0 took 25 ms
        assert_eq!(
            o,
            FrameOutcome {
                next_frame: 1,
                wait_until: None,
                overrun_ns: 15_000_000
            }
        );
        let o = p.frame_done(START + 26_000_000); // frame 1 quick, but frame 2 was due at 20 ms
        assert_eq!(o.overrun_ns, 6_000_000);
        let o = p.frame_done(START + 27_000_000); // frame 3 due at 30 ms: wait
        assert_eq!(o.wait_until, Some(START + 30_000_000));
        assert_eq!(p.overruns(), 2);
        assert_eq!(p.worst_overrun_ns(), 15_000_000);
    }

    #[test]
    fn resync_drops_the_backlog() {
        let mut p = FramePacer::with_period(
            START,
            Duration::from_millis(10),
            Pace::RealTime { scale: 1.0 },
        )
        .expect("ok");
        p.frame_done(START + 1_000_000_000); // a one-second stall
        p.resync(START + 1_000_000_000);
        let o = p.frame_done(START + 1_001_000_000);
        assert_eq!(o.wait_until, Some(START + 1_010_000_000));
    }

    #[test]
    fn time_scale_and_as_fast_as_possible() {
        let p = FramePacer::with_period(
            START,
            Duration::from_millis(10),
            Pace::RealTime { scale: 2.0 },
        )
        .expect("ok");
        assert_eq!(p.deadline(4), Some(START + 20_000_000));
        let mut p =
            FramePacer::with_period(START, Duration::from_millis(10), Pace::AsFastAsPossible)
                .expect("ok");
        assert_eq!(
            p.frame_done(START),
            FrameOutcome {
                next_frame: 1,
                wait_until: None,
                overrun_ns: 0
            }
        );
        assert_eq!(p.deadline(5), None);
        p.set_pace(Pace::RealTime { scale: 0.5 }, START + 7)
            .expect("ok");
        assert_eq!(p.deadline(1), Some(START + 7));
        assert_eq!(p.deadline(2), Some(START + 7 + 20_000_000));
    }

    #[test]
    fn changing_scale_keeps_the_current_deadline() {
        let mut p = FramePacer::with_period(
            START,
            Duration::from_millis(10),
            Pace::RealTime { scale: 1.0 },
        )
        .expect("ok");
        for _ in 0..5 {
            p.frame_done(START);
        }
        assert_eq!(p.deadline(5), Some(START + 50_000_000));
        p.set_pace(Pace::RealTime { scale: 4.0 }, START)
            .expect("ok");
        assert_eq!(p.deadline(5), Some(START + 50_000_000));
        assert_eq!(p.deadline(9), Some(START + 60_000_000));
    }

    #[test]
    fn invalid_parameters_are_typed_errors() {
        assert_eq!(
            FramePacer::with_period(0, Duration::ZERO, Pace::AsFastAsPossible).err(),
            Some(PacerError::ZeroPeriod)
        );
        assert_eq!(
            FramePacer::with_rate(0, 0, Pace::AsFastAsPossible).err(),
            Some(PacerError::ZeroPeriod)
        );
        for scale in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                FramePacer::with_rate(0, 60, Pace::RealTime { scale }).err(),
                Some(PacerError::InvalidScale)
            );
        }
    }
}
