//! Logical time: the two standard time representations, their intervals, and [`Bound`].
//!
//! HLA 1516-2010 defines `HLAinteger64Time` and `HLAfloat64Time` (plus their intervals); both encode
//! as 8 bytes big-endian. The time-management state machine is generic over [`LogicalTime`], so both
//! types run through the same code with no lossy internal representation.
//!
//! A [`Bound`] is a time plus an inclusive/exclusive flag, never an epsilon: with zero lookahead
//! "nothing at or before t" and "nothing before t" must stay distinct (`docs/HLA-SEMANTICS.md`,
//! "Sending rules" and "GALT without a server").

use std::cmp::Ordering;
use std::fmt::Debug;

/// Decoding a logical time or interval from its HLA byte form failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeDecodeError {
    /// The encoding is not exactly 8 bytes.
    #[error("logical time encoding must be 8 bytes, got {0}")]
    WrongLength(usize),
    /// A float time or interval decoded to NaN, which has no place in a total order.
    #[error("logical time encoding is NaN")]
    NotANumber,
}

/// An interval between two logical times (lookahead, frame period).
pub trait LogicalTimeInterval: Copy + Ord + Debug + Send + Sync + 'static {
    /// The zero interval.
    const ZERO: Self;
    /// True for the zero interval (zero lookahead needs strict bounds).
    fn is_zero(&self) -> bool {
        *self == Self::ZERO
    }
    /// True for a negative interval (an invalid lookahead).
    fn is_negative(&self) -> bool {
        *self < Self::ZERO
    }
    /// The HLA 8-byte big-endian encoding.
    fn encode(&self) -> [u8; 8];
    /// Decodes the HLA 8-byte big-endian encoding.
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError>;
}

/// A logical time: totally ordered, with an initial and a final value, and interval arithmetic
/// that saturates at the ends instead of wrapping or panicking.
pub trait LogicalTime: Copy + Ord + Debug + Send + Sync + 'static {
    /// The interval type that goes with this time.
    type Interval: LogicalTimeInterval;
    /// The initial time of every federate.
    const INITIAL: Self;
    /// The final time (nothing lies beyond it).
    const FINAL: Self;
    /// `self + i`, saturating at [`Self::INITIAL`] / [`Self::FINAL`].
    fn add(self, i: Self::Interval) -> Self;
    /// `self - i`, saturating at [`Self::INITIAL`] / [`Self::FINAL`].
    fn sub(self, i: Self::Interval) -> Self;
    /// `self - earlier` as an interval (zero if `earlier > self`).
    fn since(self, earlier: Self) -> Self::Interval;
    /// The HLA 8-byte big-endian encoding.
    fn encode(&self) -> [u8; 8];
    /// Decodes the HLA 8-byte big-endian encoding.
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError>;
}

fn eight(bytes: &[u8]) -> Result<[u8; 8], TimeDecodeError> {
    bytes
        .try_into()
        .map_err(|_| TimeDecodeError::WrongLength(bytes.len()))
}

/// `HLAinteger64Time`: a signed 64-bit count; initial 0, final `i64::MAX`.
#[allow(non_camel_case_types)]
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct HLAinteger64Time(pub i64);

/// `HLAinteger64Interval`: a signed 64-bit count.
#[allow(non_camel_case_types)]
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct HLAinteger64Interval(pub i64);

impl LogicalTimeInterval for HLAinteger64Interval {
    const ZERO: Self = Self(0);
    fn encode(&self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError> {
        Ok(Self(i64::from_be_bytes(eight(bytes)?)))
    }
}

impl LogicalTime for HLAinteger64Time {
    type Interval = HLAinteger64Interval;
    const INITIAL: Self = Self(0);
    const FINAL: Self = Self(i64::MAX);
    fn add(self, i: HLAinteger64Interval) -> Self {
        Self(self.0.saturating_add(i.0).max(0))
    }
    fn sub(self, i: HLAinteger64Interval) -> Self {
        Self(self.0.saturating_sub(i.0).max(0))
    }
    fn since(self, earlier: Self) -> HLAinteger64Interval {
        HLAinteger64Interval(self.0.saturating_sub(earlier.0).max(0))
    }
    fn encode(&self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError> {
        Ok(Self(i64::from_be_bytes(eight(bytes)?)))
    }
}

/// Total order on non-NaN floats with -0.0 folded into +0.0 (constructors guarantee both).
fn float_cmp(a: f64, b: f64) -> Ordering {
    a.total_cmp(&b)
}

fn normalise(v: f64) -> Result<f64, TimeDecodeError> {
    if v.is_nan() {
        Err(TimeDecodeError::NotANumber)
    } else if v == 0.0 {
        Ok(0.0)
    } else {
        Ok(v)
    }
}

macro_rules! float_type {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
        pub struct $name(f64);

        impl $name {
            /// Wraps a value; `None` for NaN (it has no place in a total order).
            pub fn new(v: f64) -> Option<Self> {
                normalise(v).ok().map(Self)
            }
            /// The wrapped value.
            pub fn value(self) -> f64 {
                self.0
            }
        }
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                float_cmp(self.0, other.0) == Ordering::Equal
            }
        }
        impl Eq for $name {}
        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $name {
            fn cmp(&self, other: &Self) -> Ordering {
                float_cmp(self.0, other.0)
            }
        }
        impl std::hash::Hash for $name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.0.to_bits().hash(state)
            }
        }
    };
}

float_type!(
    HLAfloat64Time,
    "`HLAfloat64Time`: an IEEE double; initial 0.0, final +infinity. NaN is rejected."
);
float_type!(
    HLAfloat64Interval,
    "`HLAfloat64Interval`: an IEEE double. NaN is rejected."
);

impl LogicalTimeInterval for HLAfloat64Interval {
    const ZERO: Self = Self(0.0);
    fn encode(&self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError> {
        Ok(Self(normalise(f64::from_be_bytes(eight(bytes)?))?))
    }
}

impl HLAfloat64Time {
    fn clamp(v: f64) -> Self {
        // inf - inf is the only NaN source; it can only arise from FINAL - infinite interval.
        if v.is_nan() {
            Self::FINAL
        } else if v <= 0.0 {
            Self::INITIAL
        } else {
            Self(v)
        }
    }
}

impl LogicalTime for HLAfloat64Time {
    type Interval = HLAfloat64Interval;
    const INITIAL: Self = Self(0.0);
    const FINAL: Self = Self(f64::INFINITY);
    fn add(self, i: HLAfloat64Interval) -> Self {
        Self::clamp(self.0 + i.0)
    }
    fn sub(self, i: HLAfloat64Interval) -> Self {
        Self::clamp(self.0 - i.0)
    }
    fn since(self, earlier: Self) -> HLAfloat64Interval {
        let d = self.0 - earlier.0;
        if d.is_nan() || d <= 0.0 {
            HLAfloat64Interval(0.0)
        } else {
            HLAfloat64Interval(d)
        }
    }
    fn encode(&self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError> {
        Ok(Self(normalise(f64::from_be_bytes(eight(bytes)?))?))
    }
}

/// Whether a bound admits its own time: `Incl` = "≥ time", `Excl` = "> time".
/// Declared in this order so that `Incl < Excl` in the derived order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Strictness {
    /// Timestamps equal to the bound's time are allowed.
    Incl,
    /// Only timestamps strictly greater than the bound's time are allowed.
    Excl,
}

/// A lower bound on timestamps: `(t, Incl) < (t, Excl) < (t', _)` for `t < t'`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Bound<T> {
    /// The time of the bound.
    pub time: T,
    /// Whether `time` itself is admitted.
    pub strict: Strictness,
}

impl<T: LogicalTime> Bound<T> {
    /// "≥ t".
    pub fn incl(time: T) -> Self {
        Self {
            time,
            strict: Strictness::Incl,
        }
    }
    /// "> t".
    pub fn excl(time: T) -> Self {
        Self {
            time,
            strict: Strictness::Excl,
        }
    }
    /// The smallest bound: admits everything.
    pub fn min_value() -> Self {
        Self::incl(T::INITIAL)
    }
    /// Does the bound admit a timestamp?
    pub fn admits(&self, ts: T) -> bool {
        match self.strict {
            Strictness::Incl => ts >= self.time,
            Strictness::Excl => ts > self.time,
        }
    }
    /// Shifts the bound by an interval, keeping the flag.
    pub fn plus(self, i: T::Interval) -> Self {
        Self {
            time: self.time.add(i),
            strict: self.strict,
        }
    }
    /// True when every timestamp `≤ t` is excluded: the bound is `> (t, Incl)`.
    pub fn above(&self, t: T) -> bool {
        *self > Self::incl(t)
    }
    /// True when every timestamp `< t` is excluded: the bound is `≥ (t, Incl)`.
    pub fn at_least(&self, t: T) -> bool {
        *self >= Self::incl(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_order_is_lexicographic_with_incl_below_excl() {
        let i = |t| Bound::incl(HLAinteger64Time(t));
        let e = |t| Bound::excl(HLAinteger64Time(t));
        assert!(i(1) < e(1));
        assert!(e(1) < i(2));
        assert!(e(1).above(HLAinteger64Time(1)));
        assert!(!i(1).above(HLAinteger64Time(1)));
        assert!(i(1).at_least(HLAinteger64Time(1)));
        assert!(!e(1).admits(HLAinteger64Time(1)));
        assert!(i(1).admits(HLAinteger64Time(1)));
    }

    #[test]
    fn float_time_rejects_nan_and_folds_negative_zero() {
        assert!(HLAfloat64Time::new(f64::NAN).is_none());
        let z = HLAfloat64Time::new(-0.0).expect("zero");
        assert_eq!(z, HLAfloat64Time::INITIAL);
        assert_eq!(z.encode(), 0.0f64.to_be_bytes());
        assert_eq!(
            HLAfloat64Time::decode(&f64::NAN.to_be_bytes()),
            Err(TimeDecodeError::NotANumber)
        );
    }

    #[test]
    fn encodings_round_trip_big_endian() {
        let t = HLAinteger64Time(0x0102_0304_0506_0708);
        assert_eq!(t.encode(), [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(HLAinteger64Time::decode(&t.encode()), Ok(t));
        assert_eq!(
            HLAinteger64Time::decode(&[1, 2, 3]),
            Err(TimeDecodeError::WrongLength(3))
        );
        let f = HLAfloat64Time::new(2.5).expect("finite");
        assert_eq!(f.encode(), 2.5f64.to_be_bytes());
        assert_eq!(HLAfloat64Time::decode(&f.encode()), Ok(f));
        let l = HLAfloat64Interval::new(0.25).expect("finite");
        assert_eq!(HLAfloat64Interval::decode(&l.encode()), Ok(l));
        assert_eq!(
            HLAinteger64Interval::decode(&[0; 9]),
            Err(TimeDecodeError::WrongLength(9))
        );
    }

    #[test]
    fn arithmetic_saturates() {
        let t = HLAinteger64Time(i64::MAX - 1);
        assert_eq!(t.add(HLAinteger64Interval(5)), HLAinteger64Time::FINAL);
        assert_eq!(
            HLAinteger64Time(3).sub(HLAinteger64Interval(5)),
            HLAinteger64Time(0)
        );
        assert_eq!(
            HLAinteger64Time(3).since(HLAinteger64Time(5)),
            HLAinteger64Interval(0)
        );
        let f = HLAfloat64Time::FINAL;
        assert_eq!(
            f.add(HLAfloat64Interval::new(1.0).expect("ok")),
            HLAfloat64Time::FINAL
        );
        assert_eq!(
            HLAfloat64Time::new(1.0)
                .expect("ok")
                .sub(HLAfloat64Interval::new(2.0).expect("ok")),
            HLAfloat64Time::INITIAL
        );
    }
}
