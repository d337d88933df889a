//! Properties of logical times and bounds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hlamesh_timesync::*;
use proptest::prelude::*;

fn bound() -> impl Strategy<Value = Bound<HLAinteger64Time>> {
    (0i64..20, any::<bool>()).prop_map(|(t, x)| {
        if x {
            Bound::excl(HLAinteger64Time(t))
        } else {
            Bound::incl(HLAinteger64Time(t))
        }
    })
}

proptest! {
    #[test]
    fn integer_encoding_round_trips(v in any::<i64>()) {
        let t = HLAinteger64Time(v);
        prop_assert_eq!(HLAinteger64Time::decode(&t.encode()), Ok(t));
        let i = HLAinteger64Interval(v);
        prop_assert_eq!(HLAinteger64Interval::decode(&i.encode()), Ok(i));
    }

    #[test]
    fn float_decoding_never_panics_and_round_trips(bytes in any::<[u8; 8]>()) {
        match HLAfloat64Time::decode(&bytes) {
            Ok(t) => prop_assert_eq!(HLAfloat64Time::decode(&t.encode()), Ok(t)),
            Err(e) => prop_assert_eq!(e, TimeDecodeError::NotANumber),
        }
    }

    #[test]
    fn any_length_other_than_eight_is_a_typed_error(bytes in proptest::collection::vec(any::<u8>(), 0..20)) {
        prop_assume!(bytes.len() != 8);
        prop_assert_eq!(HLAinteger64Time::decode(&bytes), Err(TimeDecodeError::WrongLength(bytes.len())));
        prop_assert_eq!(HLAfloat64Interval::decode(&bytes), Err(TimeDecodeError::WrongLength(bytes.len())));
    }

    /// The order on bounds is the inclusion order of what they admit: a larger bound admits less.
    #[test]
    fn bound_order_matches_admitted_sets(a in bound(), b in bound()) {
        let admitted = |x: Bound<HLAinteger64Time>| (0..22).filter(|t| x.admits(HLAinteger64Time(*t))).collect::<Vec<_>>();
        let (sa, sb) = (admitted(a), admitted(b));
        if a <= b {
            prop_assert!(sb.iter().all(|t| sa.contains(t)));
        } else {
            prop_assert!(sa.iter().all(|t| sb.contains(t)));
        }
    }

    #[test]
    fn float_order_is_total_and_matches_numbers(x in -1e9f64..1e9, y in -1e9f64..1e9) {
        let (a, b) = (HLAfloat64Time::new(x).unwrap(), HLAfloat64Time::new(y).unwrap());
        prop_assert_eq!(a.cmp(&b), x.partial_cmp(&y).unwrap());
    }
}
