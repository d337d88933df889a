//! The C types of `hlm.h` and their conversion to the Rust API's types.
//!
//! Arguments are copied into owned Rust values on entry ([`FromC`]): the Rust API takes owned
//! vectors for values anyway, and nothing borrowed from the caller outlives the call.

use std::ffi::c_char;

use hlamesh_lrc::ambassador::{LogicalTimeInterval, Time};
use hlamesh_lrc::error::{RtiError, RtiResult};

/// UTF-8 text borrowed from the caller (`hlm_str`). A NULL `ptr` is "absent".
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmStr {
    /// First byte (NULL: absent).
    pub ptr: *const c_char,
    /// Length in bytes.
    pub len: usize,
}

/// Bytes borrowed from the caller (`hlm_bytes`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmBytes {
    /// First byte (may be NULL when `len` is 0).
    pub ptr: *const u8,
    /// Length.
    pub len: usize,
}

/// 32-bit handles borrowed from the caller (`hlm_handles`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmHandles {
    /// First handle (may be NULL when `len` is 0).
    pub ptr: *const u32,
    /// Count.
    pub len: usize,
}

/// One attribute or parameter value (`hlm_value`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmValue {
    /// Attribute or parameter handle.
    pub handle: u32,
    /// First byte of the value.
    pub ptr: *const u8,
    /// Length of the value.
    pub len: usize,
}

/// Values borrowed from the caller (`hlm_values`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmValues {
    /// First entry.
    pub ptr: *const HlmValue,
    /// Count.
    pub len: usize,
}

/// Strings borrowed from the caller (`hlm_strs`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmStrs {
    /// First entry.
    pub ptr: *const HlmStr,
    /// Count.
    pub len: usize,
}

/// 64-bit region handles borrowed from the caller (`hlm_regions`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmRegions {
    /// First handle (may be NULL when `len` is 0).
    pub ptr: *const u64,
    /// Count.
    pub len: usize,
}

/// One (attributes, regions) pair (`hlm_region_pair`): the standard's
/// `AttributeHandleSetRegionHandleSetPair`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmRegionPair {
    /// Attribute handles.
    pub attributes: HlmHandles,
    /// Region handles.
    pub regions: HlmRegions,
}

/// Pairs borrowed from the caller (`hlm_region_pairs`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HlmRegionPairs {
    /// First pair.
    pub ptr: *const HlmRegionPair,
    /// Count.
    pub len: usize,
}

/// A region's range on one dimension (`hlm_range`), written to an `out` parameter.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HlmRange {
    /// Inclusive lower bound.
    pub lower: u64,
    /// Exclusive upper bound.
    pub upper: u64,
}

/// `hlm_time`: a logical time or interval of either standard kind, or none.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HlmTime {
    /// [`TIME_NONE`], [`TIME_FLOAT64`] or [`TIME_INTEGER64`].
    pub kind: i32,
    /// The value of an `HLAfloat64Time`/`Interval`.
    pub float_value: f64,
    /// The value of an `HLAinteger64Time`/`Interval`.
    pub integer_value: i64,
}

/// `HLM_TIME_NONE`.
pub const TIME_NONE: i32 = -1;
/// `HLM_TIME_FLOAT64`.
pub const TIME_FLOAT64: i32 = 0;
/// `HLM_TIME_INTEGER64`.
pub const TIME_INTEGER64: i32 = 1;

impl HlmTime {
    /// No time.
    pub const NONE: HlmTime = HlmTime {
        kind: TIME_NONE,
        float_value: 0.0,
        integer_value: 0,
    };

    /// The C form of a time.
    pub fn of_time(t: Time) -> HlmTime {
        match t.as_integer() {
            Some(i) => HlmTime {
                kind: TIME_INTEGER64,
                float_value: 0.0,
                integer_value: i,
            },
            None => HlmTime {
                kind: TIME_FLOAT64,
                float_value: t.value(),
                integer_value: 0,
            },
        }
    }

    /// The C form of an interval.
    pub fn of_interval(t: LogicalTimeInterval) -> HlmTime {
        match t.as_integer() {
            Some(i) => HlmTime {
                kind: TIME_INTEGER64,
                float_value: 0.0,
                integer_value: i,
            },
            None => HlmTime {
                kind: TIME_FLOAT64,
                float_value: t.value(),
                integer_value: 0,
            },
        }
    }

    /// The C form of a time as the core encodes it (8 bytes big endian, of `kind`).
    pub fn decode(kind: i32, bytes: &[u8]) -> HlmTime {
        let Ok(b) = <[u8; 8]>::try_from(bytes) else {
            return HlmTime::NONE;
        };
        match kind {
            TIME_INTEGER64 => HlmTime {
                kind,
                float_value: 0.0,
                integer_value: i64::from_be_bytes(b),
            },
            _ => HlmTime {
                kind: TIME_FLOAT64,
                float_value: f64::from_be_bytes(b),
                integer_value: 0,
            },
        }
    }

    /// The Rust time (`InvalidLogicalTime` for no time or NaN).
    pub fn time(self) -> RtiResult<Time> {
        match self.kind {
            TIME_FLOAT64 => Time::new(self.float_value)
                .ok_or_else(|| RtiError::InvalidLogicalTime("NaN is no logical time".into())),
            TIME_INTEGER64 => Ok(Time::integer(self.integer_value)),
            k => Err(RtiError::InvalidLogicalTime(format!(
                "time of unknown kind {k}"
            ))),
        }
    }

    /// The Rust interval (`InvalidLookahead` for no interval or NaN).
    pub fn interval(self) -> RtiResult<LogicalTimeInterval> {
        match self.kind {
            TIME_FLOAT64 => LogicalTimeInterval::new(self.float_value)
                .ok_or_else(|| RtiError::InvalidLookahead("NaN is no interval".into())),
            TIME_INTEGER64 => Ok(LogicalTimeInterval::integer(self.integer_value)),
            k => Err(RtiError::InvalidLookahead(format!(
                "interval of unknown kind {k}"
            ))),
        }
    }
}

/// Text owned by whoever received it (`hlm_text`); `ptr[len]` is a NUL. Freed with
/// `hlm_text_free`.
#[repr(C)]
#[derive(Debug)]
pub struct HlmText {
    /// First byte (NULL for the empty value written nowhere).
    pub ptr: *mut c_char,
    /// Length without the NUL.
    pub len: usize,
}

impl HlmText {
    /// Hands `s` over to C (with a NUL after it; NULs inside are kept, C++ uses the length).
    pub fn new(s: &str) -> HlmText {
        let mut v = Vec::with_capacity(s.len() + 1);
        v.extend_from_slice(s.as_bytes());
        v.push(0);
        let len = s.len();
        let b: Box<[u8]> = v.into_boxed_slice();
        HlmText {
            ptr: Box::into_raw(b).cast::<c_char>(),
            len,
        }
    }

    /// Takes back text made by [`HlmText::new`].
    ///
    /// # Safety
    /// `self` came from [`HlmText::new`] and was not freed before.
    pub unsafe fn free(self) {
        if self.ptr.is_null() {
            return;
        }
        let slice = std::ptr::slice_from_raw_parts_mut(self.ptr.cast::<u8>(), self.len + 1);
        // SAFETY: per the contract, `ptr`/`len + 1` is exactly the boxed slice `new` leaked.
        drop(unsafe { Box::from_raw(slice) });
    }
}

/// Handles owned by whoever received them (`hlm_handle_list`), freed with
/// `hlm_handle_list_free`.
#[repr(C)]
#[derive(Debug)]
pub struct HlmHandleList {
    /// First handle.
    pub ptr: *mut u32,
    /// Count.
    pub len: usize,
}

impl HlmHandleList {
    /// Hands `v` over to C.
    pub fn new(v: Vec<u32>) -> HlmHandleList {
        let b = v.into_boxed_slice();
        let len = b.len();
        HlmHandleList {
            ptr: Box::into_raw(b).cast::<u32>(),
            len,
        }
    }

    /// Takes back a list made by [`HlmHandleList::new`].
    ///
    /// # Safety
    /// `self` came from [`HlmHandleList::new`] and was not freed before.
    pub unsafe fn free(self) {
        if self.ptr.is_null() {
            return;
        }
        let slice = std::ptr::slice_from_raw_parts_mut(self.ptr, self.len);
        // SAFETY: per the contract, this is exactly the boxed slice `new` leaked.
        drop(unsafe { Box::from_raw(slice) });
    }
}

/// `len` items at `ptr` (none when `len` is 0, whatever `ptr` is).
///
/// # Safety
/// When `len > 0`, `ptr` points to `len` initialised items that stay valid and unchanged for
/// `'a`.
unsafe fn items<'a, T>(ptr: *const T, len: usize) -> RtiResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(RtiError::RtiInternalError(
            "a NULL pointer with a non-zero length crossed the C ABI".into(),
        ));
    }
    // SAFETY: non-null and, per the contract, `len` valid items.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An argument of an `hlm_*` function and what it becomes in Rust.
pub trait FromC: Sized {
    /// The Rust value.
    type Out;
    /// The C type, as `hlm.h` spells it (checked by `tests/abi.rs`).
    const C: &'static str;
    /// Copies the argument into a Rust value.
    ///
    /// # Safety
    /// Pointers inside the argument satisfy `hlm.h`'s contract: each points to as many valid
    /// items as its length says, for the duration of the call.
    unsafe fn to_rust(self) -> RtiResult<Self::Out>;
}

macro_rules! plain {
    ($t:ty, $c:literal) => {
        impl FromC for $t {
            type Out = $t;
            const C: &'static str = $c;
            unsafe fn to_rust(self) -> RtiResult<$t> {
                Ok(self)
            }
        }
    };
}
plain!(u32, "uint32_t");
plain!(u64, "uint64_t");
plain!(i32, "int32_t");
plain!(f64, "double");
plain!(HlmTime, "hlm_time");

impl FromC for HlmStr {
    /// `None` when absent (NULL pointer).
    type Out = Option<String>;
    const C: &'static str = "hlm_str";
    unsafe fn to_rust(self) -> RtiResult<Option<String>> {
        if self.ptr.is_null() {
            return Ok(None);
        }
        // SAFETY: forwarded contract of `to_rust`.
        let b = unsafe { items(self.ptr.cast::<u8>(), self.len) }?;
        Ok(Some(String::from_utf8_lossy(b).into_owned()))
    }
}

impl FromC for HlmBytes {
    type Out = Vec<u8>;
    const C: &'static str = "hlm_bytes";
    unsafe fn to_rust(self) -> RtiResult<Vec<u8>> {
        // SAFETY: forwarded contract of `to_rust`.
        Ok(unsafe { items(self.ptr, self.len) }?.to_vec())
    }
}

impl FromC for HlmHandles {
    type Out = Vec<u32>;
    const C: &'static str = "hlm_handles";
    unsafe fn to_rust(self) -> RtiResult<Vec<u32>> {
        // SAFETY: forwarded contract of `to_rust`.
        Ok(unsafe { items(self.ptr, self.len) }?.to_vec())
    }
}

impl FromC for HlmRegions {
    type Out = Vec<u64>;
    const C: &'static str = "hlm_regions";
    unsafe fn to_rust(self) -> RtiResult<Vec<u64>> {
        // SAFETY: forwarded contract of `to_rust`.
        Ok(unsafe { items(self.ptr, self.len) }?.to_vec())
    }
}

impl FromC for HlmRegionPairs {
    type Out = Vec<(Vec<u32>, Vec<u64>)>;
    const C: &'static str = "hlm_region_pairs";
    unsafe fn to_rust(self) -> RtiResult<Vec<(Vec<u32>, Vec<u64>)>> {
        // SAFETY: forwarded contract of `to_rust`.
        let ps = unsafe { items(self.ptr, self.len) }?;
        let mut out = Vec::with_capacity(ps.len());
        for p in ps {
            // SAFETY: forwarded contract of `to_rust` (each pair's two lists).
            out.push(unsafe { (p.attributes.to_rust()?, p.regions.to_rust()?) });
        }
        Ok(out)
    }
}

impl FromC for HlmValues {
    type Out = Vec<(u32, Vec<u8>)>;
    const C: &'static str = "hlm_values";
    unsafe fn to_rust(self) -> RtiResult<Vec<(u32, Vec<u8>)>> {
        // SAFETY: forwarded contract of `to_rust`.
        let vs = unsafe { items(self.ptr, self.len) }?;
        let mut out = Vec::with_capacity(vs.len());
        for v in vs {
            // SAFETY: forwarded contract of `to_rust` (each value's pointer and length).
            out.push((v.handle, unsafe { items(v.ptr, v.len) }?.to_vec()));
        }
        Ok(out)
    }
}

impl FromC for HlmStrs {
    type Out = Vec<String>;
    const C: &'static str = "hlm_strs";
    unsafe fn to_rust(self) -> RtiResult<Vec<String>> {
        // SAFETY: forwarded contract of `to_rust`.
        let ss = unsafe { items(self.ptr, self.len) }?;
        let mut out = Vec::with_capacity(ss.len());
        for s in ss {
            // SAFETY: forwarded contract of `to_rust` (each string's pointer and length).
            out.push(unsafe { s.to_rust() }?.unwrap_or_default());
        }
        Ok(out)
    }
}

/// A value an `hlm_*` function writes to its `out` parameter.
pub trait ToC {
    /// The C type, as `hlm.h` spells it.
    const C: &'static str;
}
impl ToC for u32 {
    const C: &'static str = "uint32_t";
}
impl ToC for u64 {
    const C: &'static str = "uint64_t";
}
impl ToC for i32 {
    const C: &'static str = "int32_t";
}
impl ToC for f64 {
    const C: &'static str = "double";
}
impl ToC for HlmTime {
    const C: &'static str = "hlm_time";
}
impl ToC for HlmText {
    const C: &'static str = "hlm_text";
}
impl ToC for HlmRange {
    const C: &'static str = "hlm_range";
}
impl ToC for HlmHandleList {
    const C: &'static str = "hlm_handle_list";
}
