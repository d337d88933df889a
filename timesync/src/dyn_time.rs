//! A logical time whose type is chosen at run time: [`DynTime`] is either an `HLAfloat64Time` or
//! an `HLAinteger64Time`, [`DynInterval`] either interval, and [`TimeKind`] names the choice.
//!
//! HLA picks the time implementation per federation execution (by name, at create), so an RTI
//! that serves both types without being generic all the way up to its API needs one value type
//! for both. One federation uses one kind only: its RTI checks every time a federate hands in
//! ([`TimeKind::check`]) and converts the few values the state machine makes itself
//! ([`LogicalTime::INITIAL`], [`LogicalTime::FINAL`]) with [`TimeKind::convert`] before handing
//! them out. Values of the two kinds still compare *numerically* (exactly, no rounding), so the
//! state machine stays correct on the boundary values it mixes in: `Float(0.0) == Integer(0)`,
//! `Float(+∞)` is above every integer.

use std::cmp::Ordering;

use crate::time::{
    HLAfloat64Interval, HLAfloat64Time, HLAinteger64Interval, HLAinteger64Time, LogicalTime,
    LogicalTimeInterval, TimeDecodeError,
};

/// The time implementation of a federation.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum TimeKind {
    /// `HLAfloat64Time` (the default).
    #[default]
    Float64,
    /// `HLAinteger64Time`.
    Integer64,
}

impl TimeKind {
    /// The kind of a 1516-2010 logical time implementation name (`None` for unknown names).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "HLAfloat64Time" => Some(Self::Float64),
            "HLAinteger64Time" => Some(Self::Integer64),
            _ => None,
        }
    }

    /// The standard name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Float64 => "HLAfloat64Time",
            Self::Integer64 => "HLAinteger64Time",
        }
    }

    /// True when `t` is of this kind.
    pub fn check(self, t: DynTime) -> bool {
        matches!(
            (self, t),
            (Self::Float64, DynTime::Float(_)) | (Self::Integer64, DynTime::Integer(_))
        )
    }

    /// True when `i` is of this kind.
    pub fn check_interval(self, i: DynInterval) -> bool {
        matches!(
            (self, i),
            (Self::Float64, DynInterval::Float(_)) | (Self::Integer64, DynInterval::Integer(_))
        )
    }

    /// `t` as this kind: exact for every value the state machine mixes in (0, integral floats);
    /// otherwise the nearest value (float → integer rounds down and saturates, +∞ → `i64::MAX`).
    pub fn convert(self, t: DynTime) -> DynTime {
        match (self, t) {
            (Self::Float64, DynTime::Integer(HLAinteger64Time(n))) => {
                DynTime::Float(HLAfloat64Time::new(n as f64).unwrap_or(HLAfloat64Time::INITIAL))
            }
            (Self::Integer64, DynTime::Float(x)) => {
                DynTime::Integer(HLAinteger64Time(float_to_int(x.value())))
            }
            _ => t,
        }
    }

    /// Decodes the HLA 8-byte encoding of a time of this kind.
    pub fn decode(self, bytes: &[u8]) -> Result<DynTime, TimeDecodeError> {
        match self {
            Self::Float64 => HLAfloat64Time::decode(bytes).map(DynTime::Float),
            Self::Integer64 => HLAinteger64Time::decode(bytes).map(DynTime::Integer),
        }
    }

    /// The zero interval of this kind.
    pub fn zero_interval(self) -> DynInterval {
        match self {
            Self::Float64 => DynInterval::Float(HLAfloat64Interval::ZERO),
            Self::Integer64 => DynInterval::Integer(HLAinteger64Interval::ZERO),
        }
    }

    /// `i` as this kind (see [`TimeKind::convert`]).
    pub fn convert_interval(self, i: DynInterval) -> DynInterval {
        match (self, i) {
            (Self::Float64, DynInterval::Integer(HLAinteger64Interval(n))) => DynInterval::Float(
                HLAfloat64Interval::new(n as f64).unwrap_or(HLAfloat64Interval::ZERO),
            ),
            (Self::Integer64, DynInterval::Float(x)) => {
                DynInterval::Integer(HLAinteger64Interval(float_to_int(x.value())))
            }
            _ => i,
        }
    }
}

/// Floor, saturating at the `i64` range (NaN cannot occur: the float types reject it).
fn float_to_int(x: f64) -> i64 {
    if x >= 9_223_372_036_854_775_807.0 {
        i64::MAX
    } else if x <= -9_223_372_036_854_775_808.0 {
        i64::MIN
    } else {
        x.floor() as i64
    }
}

/// Exact numeric comparison of an integer with a (non-NaN) float.
fn cmp_int_float(n: i64, x: f64) -> Ordering {
    if x >= 9_223_372_036_854_775_808.0 {
        return Ordering::Less;
    }
    if x < -9_223_372_036_854_775_808.0 {
        return Ordering::Greater;
    }
    // |x| < 2^63 here, so its floor is an exact i64.
    let f = x.floor();
    match n.cmp(&(f as i64)) {
        Ordering::Equal if x > f => Ordering::Less,
        o => o,
    }
}

/// `HLAfloat64Time` or `HLAinteger64Time`, chosen per federation at run time (module docs).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub enum DynTime {
    /// An `HLAfloat64Time`.
    Float(HLAfloat64Time),
    /// An `HLAinteger64Time`.
    Integer(HLAinteger64Time),
}

/// `HLAfloat64Interval` or `HLAinteger64Interval`.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub enum DynInterval {
    /// An `HLAfloat64Interval`.
    Float(HLAfloat64Interval),
    /// An `HLAinteger64Interval`.
    Integer(HLAinteger64Interval),
}

impl DynTime {
    /// A float time; `None` for NaN.
    pub fn new(v: f64) -> Option<Self> {
        HLAfloat64Time::new(v).map(Self::Float)
    }
    /// An integer time.
    pub fn integer(v: i64) -> Self {
        Self::Integer(HLAinteger64Time(v))
    }
    /// The value as a float (exact for floats and for integers up to 2^53).
    pub fn value(self) -> f64 {
        match self {
            Self::Float(x) => x.value(),
            Self::Integer(n) => n.0 as f64,
        }
    }
    /// The value of an integer time (`None` for a float one).
    pub fn as_integer(self) -> Option<i64> {
        match self {
            Self::Integer(n) => Some(n.0),
            Self::Float(_) => None,
        }
    }
}

impl DynInterval {
    /// A float interval; `None` for NaN.
    pub fn new(v: f64) -> Option<Self> {
        HLAfloat64Interval::new(v).map(Self::Float)
    }
    /// An integer interval.
    pub fn integer(v: i64) -> Self {
        Self::Integer(HLAinteger64Interval(v))
    }
    /// The value as a float.
    pub fn value(self) -> f64 {
        match self {
            Self::Float(x) => x.value(),
            Self::Integer(n) => n.0 as f64,
        }
    }
    /// The value of an integer interval.
    pub fn as_integer(self) -> Option<i64> {
        match self {
            Self::Integer(n) => Some(n.0),
            Self::Float(_) => None,
        }
    }
}

impl PartialEq for DynTime {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for DynTime {}
impl PartialOrd for DynTime {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for DynTime {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Float(a), Self::Float(b)) => a.cmp(b),
            (Self::Integer(a), Self::Integer(b)) => a.cmp(b),
            (Self::Integer(a), Self::Float(b)) => cmp_int_float(a.0, b.value()),
            (Self::Float(a), Self::Integer(b)) => cmp_int_float(b.0, a.value()).reverse(),
        }
    }
}
impl std::hash::Hash for DynTime {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // Equal values of the two kinds hash alike: integral floats hash as their integer.
        match self {
            Self::Integer(n) => n.0.hash(state),
            Self::Float(x)
                if x.value().fract() == 0.0
                    && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0)
                        .contains(&x.value()) =>
            {
                (x.value() as i64).hash(state)
            }
            Self::Float(x) => x.value().to_bits().hash(state),
        }
    }
}

impl PartialEq for DynInterval {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for DynInterval {}
impl PartialOrd for DynInterval {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for DynInterval {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Float(a), Self::Float(b)) => a.cmp(b),
            (Self::Integer(a), Self::Integer(b)) => a.cmp(b),
            (Self::Integer(a), Self::Float(b)) => cmp_int_float(a.0, b.value()),
            (Self::Float(a), Self::Integer(b)) => cmp_int_float(b.0, a.value()).reverse(),
        }
    }
}

impl LogicalTimeInterval for DynInterval {
    /// Compares equal to the zero of either kind.
    const ZERO: Self = Self::Float(HLAfloat64Interval::ZERO);
    fn encode(&self) -> [u8; 8] {
        match self {
            Self::Float(x) => x.encode(),
            Self::Integer(n) => n.encode(),
        }
    }
    /// Decodes a float interval (see [`LogicalTime::decode`] of [`DynTime`]).
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError> {
        HLAfloat64Interval::decode(bytes).map(Self::Float)
    }
}

/// The float form of an integer time or interval operand (mixed arithmetic only).
fn as_float_time(n: i64) -> HLAfloat64Time {
    HLAfloat64Time::new(n as f64).unwrap_or(HLAfloat64Time::INITIAL)
}

impl LogicalTime for DynTime {
    type Interval = DynInterval;
    /// Compares equal to the initial time of either kind.
    const INITIAL: Self = Self::Float(HLAfloat64Time::INITIAL);
    /// Above every time of either kind.
    const FINAL: Self = Self::Float(HLAfloat64Time::FINAL);
    /// Same kinds: that kind's arithmetic. Mixed (only the boundary values above meet the
    /// other kind): the result takes the kind of the non-boundary operand — an integer time
    /// stays integer when a float zero is added, `INITIAL + integer` is an integer, and
    /// `FINAL` stays final.
    fn add(self, i: DynInterval) -> Self {
        match (self, i) {
            (Self::Float(a), DynInterval::Float(b)) => Self::Float(a.add(b)),
            (Self::Integer(a), DynInterval::Integer(b)) => Self::Integer(a.add(b)),
            (Self::Integer(a), DynInterval::Float(b)) => {
                if b.value() == 0.0 {
                    self
                } else {
                    Self::Float(as_float_time(a.0).add(b))
                }
            }
            (Self::Float(a), DynInterval::Integer(b)) => match a.value() {
                v if v.is_infinite() => self,
                v => Self::Integer(HLAinteger64Time(float_to_int(v)).add(b)),
            },
        }
    }
    fn sub(self, i: DynInterval) -> Self {
        match (self, i) {
            (Self::Float(a), DynInterval::Float(b)) => Self::Float(a.sub(b)),
            (Self::Integer(a), DynInterval::Integer(b)) => Self::Integer(a.sub(b)),
            (Self::Integer(a), DynInterval::Float(b)) => {
                if b.value() == 0.0 {
                    self
                } else {
                    Self::Float(as_float_time(a.0).sub(b))
                }
            }
            (Self::Float(a), DynInterval::Integer(b)) => match a.value() {
                v if v.is_infinite() => self,
                v => Self::Integer(HLAinteger64Time(float_to_int(v)).sub(b)),
            },
        }
    }
    fn since(self, earlier: Self) -> DynInterval {
        match (self, earlier) {
            (Self::Float(a), Self::Float(b)) => DynInterval::Float(a.since(b)),
            (Self::Integer(a), Self::Integer(b)) => DynInterval::Integer(a.since(b)),
            (Self::Integer(a), Self::Float(b)) => match b.value() {
                v if v.is_infinite() => DynInterval::Integer(HLAinteger64Interval(0)),
                v => DynInterval::Integer(a.since(HLAinteger64Time(float_to_int(v)))),
            },
            (Self::Float(a), Self::Integer(b)) => DynInterval::Float(a.since(as_float_time(b.0))),
        }
    }
    /// The HLA 8-byte big-endian encoding of the value's own kind.
    fn encode(&self) -> [u8; 8] {
        match self {
            Self::Float(x) => x.encode(),
            Self::Integer(n) => n.encode(),
        }
    }
    /// Decodes a *float* time (the default implementation's encoding: 8 bytes do not say
    /// their kind); a federation's own kind decodes with [`TimeKind::decode`].
    fn decode(bytes: &[u8]) -> Result<Self, TimeDecodeError> {
        HLAfloat64Time::decode(bytes).map(Self::Float)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn f(v: f64) -> DynTime {
        DynTime::new(v).unwrap()
    }
    fn i(v: i64) -> DynTime {
        DynTime::integer(v)
    }

    #[test]
    fn kinds_compare_numerically_and_exactly() {
        assert_eq!(f(0.0), i(0));
        assert_eq!(DynTime::INITIAL, i(0));
        assert!(f(0.5) > i(0) && f(0.5) < i(1));
        assert!(f(-0.5) < i(0) && f(-0.5) > i(-1));
        assert!(DynTime::FINAL > i(i64::MAX));
        // 2^53 + 1 is not a float: the comparison must not round it.
        let big = (1i64 << 53) + 1;
        assert!(i(big) > f((1i64 << 53) as f64));
        assert_eq!(f(9.3e18).cmp(&i(i64::MAX)), Ordering::Greater);
    }

    #[test]
    fn boundary_values_take_the_operands_kind() {
        let one = DynInterval::integer(1);
        assert_eq!(DynTime::INITIAL.add(one).as_integer(), Some(1));
        assert_eq!(i(5).add(DynInterval::ZERO).as_integer(), Some(5));
        assert_eq!(DynTime::FINAL.add(one), DynTime::FINAL);
        assert_eq!(i(7).since(DynTime::INITIAL).as_integer(), Some(7));
        assert_eq!(i(i64::MAX).add(one).as_integer(), Some(i64::MAX));
        assert_eq!(f(1.5).add(DynInterval::new(1.0).unwrap()), f(2.5));
    }

    #[test]
    fn kind_names_conversion_and_decoding() {
        assert_eq!(
            TimeKind::from_name("HLAinteger64Time"),
            Some(TimeKind::Integer64)
        );
        assert_eq!(
            TimeKind::from_name("HLAfloat64Time"),
            Some(TimeKind::Float64)
        );
        assert_eq!(TimeKind::from_name("HLAfloat32Time"), None);
        let k = TimeKind::Integer64;
        assert!(k.check(i(3)) && !k.check(f(3.0)));
        assert_eq!(k.convert(DynTime::FINAL).as_integer(), Some(i64::MAX));
        assert_eq!(k.convert(DynTime::INITIAL).as_integer(), Some(0));
        assert_eq!(k.decode(&i(42).encode()).unwrap().as_integer(), Some(42));
        assert_eq!(TimeKind::Float64.decode(&f(4.5).encode()).unwrap(), f(4.5));
        assert_eq!(TimeKind::Float64.convert(i(3)), f(3.0));
        assert!(TimeKind::Float64.check(TimeKind::Float64.convert(i(3))));
    }
}
