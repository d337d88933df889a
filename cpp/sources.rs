// The C++ sources of the two libraries, relative to the crate directory. Shared by build.rs
// (which compiles them) and the crate (tests rebuild them with sanitizers).

/// Sources of the RTI library (`rti1516e`).
pub const RTI_SOURCES: &[&str] = &[
    "src/api_values.cpp",
    "src/exception.cpp",
    "src/handle.cpp",
    "src/utf8.cpp",
    "src/variable_length_data.cpp",
    "src/encoding/arrays.cpp",
    "src/encoding/basic.cpp",
    "src/encoding/data_element.cpp",
    "src/encoding/octets.cpp",
    "src/encoding/opaque.cpp",
    "src/encoding/records.cpp",
    "src/time/factory_by_name.cpp",
    "src/time/float64.cpp",
    "src/time/integer64.cpp",
];

/// Sources of the logical time library (`fedtime1516e`): `LogicalTimeFactoryFactory`.
pub const FEDTIME_SOURCES: &[&str] = &["src/fedtime/logical_time_factory_factory.cpp"];

/// The C++ dialect the libraries are built in (federates may use C++17 or later).
pub const CXX_STD: &str = "c++17";
