//! The API's value classes in C++: exceptions carry their message, `VariableLengthData` copies,
//! borrows or takes over its bytes, handles encode, compare, hash and refuse foreign bytes with
//! `CouldNotDecode`, the logical times do their arithmetic and refuse what the standard refuses,
//! the factories are found by name, and `std::wstring` ↔ UTF-8 is exact. Handles and times
//! encode to the bytes the Rust API's handles and times encode to.

mod common;

use hlamesh_lrc::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};
use hlamesh_timesync::time::{
    HLAfloat64Interval, HLAfloat64Time, HLAinteger64Interval, HLAinteger64Time, LogicalTime,
    LogicalTimeInterval,
};

#[test]
fn value_classes_behave_as_the_standard_says() {
    let exe = common::build_program("values", "c++17");
    assert_eq!(common::run_program(&exe, &["check"], "").trim(), "ok");
}

#[test]
fn handles_and_times_encode_like_the_rust_api() {
    let float = |v: f64| HLAfloat64Time::new(v).expect("not NaN");
    let rust: Vec<(&str, Vec<u8>)> = vec![
        ("federate_2", FederateHandle(2).encode().to_vec()),
        ("object_class_7", ObjectClassHandle(7).encode().to_vec()),
        ("attribute_70000", AttributeHandle(70_000).encode().to_vec()),
        (
            "interaction_class_3",
            InteractionClassHandle(3).encode().to_vec(),
        ),
        ("parameter_9", ParameterHandle(9).encode().to_vec()),
        ("dimension_1", DimensionHandle(1).encode().to_vec()),
        (
            "instance_3_17",
            ObjectInstanceHandle((3 << 32) | 17).encode().to_vec(),
        ),
        ("float_time_12_5", float(12.5).encode().to_vec()),
        ("float_time_final", HLAfloat64Time::FINAL.encode().to_vec()),
        ("float_time_negative_zero", float(-0.0).encode().to_vec()),
        (
            "float_interval_0_25",
            HLAfloat64Interval::new(0.25)
                .expect("not NaN")
                .encode()
                .to_vec(),
        ),
        ("integer_time_42", HLAinteger64Time(42).encode().to_vec()),
        (
            "integer_time_final",
            HLAinteger64Time::FINAL.encode().to_vec(),
        ),
        (
            "integer_interval_3",
            HLAinteger64Interval(3).encode().to_vec(),
        ),
    ];
    let exe = common::build_program("values", "c++20");
    let cpp = common::parse_lines(&common::run_program(&exe, &["vectors"], ""));
    assert_eq!(cpp.len(), rust.len());
    for (name, bytes) in &rust {
        let found = cpp
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name}: no C++ output"));
        assert_eq!(found.1, common::hex(bytes), "{name}");
    }
}
