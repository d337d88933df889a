//! Callbacks, Rust → C: [`CAmbassador`] implements the Rust [`FederateAmbassador`] by turning
//! each callback into one [`HlmEvent`] and calling the C function registered at `connect`
//! (`hlm_event_fn`, the C++ shim's trampoline). One entry point with a tagged event keeps the
//! ABI small and lets callbacks be added without changing any signature.
//!
//! The event borrows everything from the Rust callback's arguments for the duration of the call.
//! The trampoline must not unwind; it reports an exception the federate's callback threw by its
//! return value, which is logged and counted here ([`CallbackStats`]).

use std::cell::Cell;
use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use hlamesh_lrc::ambassador::{
    FederateAmbassador, RestoreFailureReason, RestoreStatus, SaveFailureReason, SaveStatus,
    SynchronizationPointFailureReason, Time,
};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::fom::OrderType;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, MessageRetractionHandle,
    ObjectClassHandle, ObjectInstanceHandle, ParameterHandle,
};

use crate::abi::ffi::{HlmStr, HlmTime, HlmValue};

/// `hlm_event` (see `hlm.h` for which fields each kind uses).
#[repr(C)]
#[derive(Debug)]
pub struct HlmEvent {
    /// `hlm_event_kind`.
    pub kind: i32,
    /// Object instance.
    pub object: u64,
    /// Object or interaction class.
    pub class_handle: u32,
    /// Producing, owning or restored federate.
    pub federate: u32,
    /// Whether `federate` is set.
    pub has_federate: i32,
    /// One attribute.
    pub attribute: u32,
    /// A standard enum's value.
    pub reason: i32,
    /// Attribute or parameter values.
    pub values: *const HlmValue,
    /// Their count.
    pub values_len: usize,
    /// A handle set.
    pub handles: *const u32,
    /// Its count.
    pub handles_len: usize,
    /// A second handle list of `handles_len` entries.
    pub handles2: *const u32,
    /// Statuses, `handles_len` entries.
    pub statuses: *const i32,
    /// User-supplied tag.
    pub tag: *const u8,
    /// Its length.
    pub tag_len: usize,
    /// A name, label or description.
    pub text: *const c_char,
    /// Its length.
    pub text_len: usize,
    /// A second text.
    pub text2: *const c_char,
    /// Its length.
    pub text2_len: usize,
    /// A list of texts.
    pub texts: *const HlmStr,
    /// Its count.
    pub texts_len: usize,
    /// A second list of `texts_len` texts.
    pub texts2: *const HlmStr,
    /// Logical time (kind `HLM_TIME_NONE` when none).
    pub time: HlmTime,
    /// 1 RECEIVE, 2 TIMESTAMP.
    pub sent_order: i32,
    /// 1 RECEIVE, 2 TIMESTAMP.
    pub received_order: i32,
    /// 1 RELIABLE, 2 BEST_EFFORT.
    pub transportation: u32,
    /// The sender's message retraction handle (a message sent in time-stamp order; 0: none).
    pub retraction: u64,
    /// Whether `regions` is set: the sent regions of a reflection or received interaction
    /// (Convey Region Designator Sets, see `hlamesh_core::core::convey`).
    pub has_regions: i32,
    /// The conveyed region handles.
    pub regions: *const u64,
    /// Their count.
    pub regions_len: usize,
}

impl Default for HlmEvent {
    fn default() -> Self {
        HlmEvent {
            kind: 0,
            object: 0,
            class_handle: 0,
            federate: 0,
            has_federate: 0,
            attribute: 0,
            reason: 0,
            values: std::ptr::null(),
            values_len: 0,
            handles: std::ptr::null(),
            handles_len: 0,
            handles2: std::ptr::null(),
            statuses: std::ptr::null(),
            tag: std::ptr::null(),
            tag_len: 0,
            text: std::ptr::null(),
            text_len: 0,
            text2: std::ptr::null(),
            text2_len: 0,
            texts: std::ptr::null(),
            texts_len: 0,
            texts2: std::ptr::null(),
            time: HlmTime::NONE,
            sent_order: 1,
            received_order: 1,
            transportation: 1,
            retraction: 0,
            has_regions: 0,
            regions: std::ptr::null(),
            regions_len: 0,
        }
    }
}

/// `hlm_event_fn`.
pub type HlmEventFn = unsafe extern "C" fn(
    ctx: *mut c_void,
    event: *const HlmEvent,
    what: *mut c_char,
    what_cap: usize,
) -> i32;

/// `hlm_event_kind` values.
#[allow(missing_docs)]
pub mod kind {
    pub const CONNECTION_LOST: i32 = 1;
    pub const REPORT_FEDERATION_EXECUTIONS: i32 = 2;
    pub const START_REGISTRATION: i32 = 3;
    pub const STOP_REGISTRATION: i32 = 4;
    pub const TURN_INTERACTIONS_ON: i32 = 5;
    pub const TURN_INTERACTIONS_OFF: i32 = 6;
    pub const ATTRIBUTES_IN_SCOPE: i32 = 7;
    pub const ATTRIBUTES_OUT_OF_SCOPE: i32 = 8;
    pub const TURN_UPDATES_ON: i32 = 9;
    pub const TURN_UPDATES_OFF: i32 = 10;
    pub const NAME_RESERVATION_SUCCEEDED: i32 = 11;
    pub const NAME_RESERVATION_FAILED: i32 = 12;
    pub const MULTIPLE_NAME_RESERVATION_SUCCEEDED: i32 = 13;
    pub const MULTIPLE_NAME_RESERVATION_FAILED: i32 = 14;
    pub const DISCOVER_OBJECT_INSTANCE: i32 = 15;
    pub const REFLECT_ATTRIBUTE_VALUES: i32 = 16;
    pub const RECEIVE_INTERACTION: i32 = 17;
    pub const REMOVE_OBJECT_INSTANCE: i32 = 18;
    pub const PROVIDE_ATTRIBUTE_VALUE_UPDATE: i32 = 19;
    pub const REQUEST_ATTRIBUTE_OWNERSHIP_ASSUMPTION: i32 = 20;
    pub const REQUEST_DIVESTITURE_CONFIRMATION: i32 = 21;
    pub const ATTRIBUTE_OWNERSHIP_ACQUISITION_NOTIFICATION: i32 = 22;
    pub const ATTRIBUTE_OWNERSHIP_UNAVAILABLE: i32 = 23;
    pub const REQUEST_ATTRIBUTE_OWNERSHIP_RELEASE: i32 = 24;
    pub const CONFIRM_ATTRIBUTE_OWNERSHIP_ACQUISITION_CANCELLATION: i32 = 25;
    pub const INFORM_ATTRIBUTE_OWNERSHIP: i32 = 26;
    pub const ATTRIBUTE_IS_NOT_OWNED: i32 = 27;
    pub const ATTRIBUTE_IS_OWNED_BY_RTI: i32 = 28;
    pub const TIME_REGULATION_ENABLED: i32 = 29;
    pub const TIME_CONSTRAINED_ENABLED: i32 = 30;
    pub const TIME_ADVANCE_GRANT: i32 = 31;
    pub const SYNC_POINT_REGISTRATION_SUCCEEDED: i32 = 32;
    pub const SYNC_POINT_REGISTRATION_FAILED: i32 = 33;
    pub const ANNOUNCE_SYNC_POINT: i32 = 34;
    pub const FEDERATION_SYNCHRONIZED: i32 = 35;
    pub const INITIATE_FEDERATE_SAVE: i32 = 36;
    pub const FEDERATION_SAVED: i32 = 37;
    pub const FEDERATION_NOT_SAVED: i32 = 38;
    pub const FEDERATION_SAVE_STATUS_RESPONSE: i32 = 39;
    pub const REQUEST_FEDERATION_RESTORE_SUCCEEDED: i32 = 40;
    pub const REQUEST_FEDERATION_RESTORE_FAILED: i32 = 41;
    pub const FEDERATION_RESTORE_BEGUN: i32 = 42;
    pub const INITIATE_FEDERATE_RESTORE: i32 = 43;
    pub const FEDERATION_RESTORED: i32 = 44;
    pub const FEDERATION_NOT_RESTORED: i32 = 45;
    pub const FEDERATION_RESTORE_STATUS_RESPONSE: i32 = 46;
    pub const REQUEST_RETRACTION: i32 = 47;
}

thread_local! {
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside a federate callback delivered through this crate. Services
/// that need the ambassador exclusively (connect, disconnect, join, resign) are refused there
/// before they wait for it (the thread delivering the callback holds it shared).
pub fn in_callback() -> bool {
    IN_CALLBACK.with(Cell::get)
}

/// Restores the "inside a callback" mark when a delivery ends.
struct InCallback(bool);

impl Drop for InCallback {
    fn drop(&mut self) {
        IN_CALLBACK.with(|c| c.set(self.0));
    }
}

/// Exceptions thrown by federate callbacks of every ambassador of the process.
pub static CALLBACK_EXCEPTIONS: AtomicU64 = AtomicU64::new(0);

/// Counters shared by an `hlm_rti` and its [`CAmbassador`].
#[derive(Debug, Default)]
pub struct CallbackStats {
    /// Exceptions the federate's callbacks threw (caught by the trampoline).
    pub exceptions: AtomicU64,
    /// The joined federation's time kind (`HLM_TIME_*`), to decode timestamps in callbacks.
    pub time_kind: AtomicI32,
    /// Set when the `hlm_rti` is freed: no callback is delivered after that.
    pub closed: AtomicBool,
    /// Held shared while a callback runs; `close` takes it exclusively to wait for one in
    /// flight (the C++ object it calls is about to be destroyed).
    pub gate: RwLock<()>,
}

impl CallbackStats {
    /// No further callbacks; waits for one running on another thread to return.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        if !in_callback() {
            drop(self.gate.write().unwrap_or_else(PoisonError::into_inner));
        }
    }
}

/// The federate's C++ ambassador, seen from Rust.
pub struct CAmbassador {
    on_event: HlmEventFn,
    ctx: *mut c_void,
    stats: Arc<CallbackStats>,
}

impl std::fmt::Debug for CAmbassador {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CAmbassador").finish_non_exhaustive()
    }
}

// SAFETY: `ctx` is the C++ RTIambassador implementation; its destructor frees the `hlm_rti`,
// which closes `CallbackStats::gate` first (waiting for a callback in flight; none is delivered
// afterwards), so `ctx` is never used after it is destroyed. The LRC calls a federate's ambassador from one thread at a time (under its
// mutex), and the federate chose the model: HLA_IMMEDIATE means callbacks on an RTI thread.
unsafe impl Send for CAmbassador {}

fn order(o: OrderType) -> i32 {
    match o {
        OrderType::Receive => 1,
        OrderType::TimeStamp => 2,
    }
}

fn text(s: &str) -> (*const c_char, usize) {
    (s.as_ptr().cast::<c_char>(), s.len())
}

fn strs(v: &[String]) -> Vec<HlmStr> {
    v.iter()
        .map(|s| HlmStr {
            ptr: s.as_ptr().cast::<c_char>(),
            len: s.len(),
        })
        .collect()
}

fn values<H: Copy>(v: &[(H, Vec<u8>)], num: impl Fn(H) -> u32) -> Vec<HlmValue> {
    v.iter()
        .map(|(h, b)| HlmValue {
            handle: num(*h),
            ptr: b.as_ptr(),
            len: b.len(),
        })
        .collect()
}

fn attrs(v: &[AttributeHandle]) -> Vec<u32> {
    v.iter().map(|a| a.0).collect()
}

impl CAmbassador {
    /// The ambassador calling `on_event(ctx, …)`.
    pub fn new(on_event: HlmEventFn, ctx: *mut c_void, stats: Arc<CallbackStats>) -> Self {
        CAmbassador {
            on_event,
            ctx,
            stats,
        }
    }

    fn send(&self, ev: &HlmEvent) {
        if self.stats.closed.load(Ordering::Acquire) {
            return;
        }
        let _running = self
            .stats
            .gate
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if self.stats.closed.load(Ordering::Acquire) {
            return;
        }
        let _mark = InCallback(IN_CALLBACK.with(|c| c.replace(true)));
        let mut what = [0u8; 512];
        // SAFETY: `on_event` and `ctx` were registered together at connect and stay valid (see
        // the `Send` impl); `ev` and `what` outlive the call, and `what_cap` is `what`'s size.
        let r = unsafe {
            (self.on_event)(self.ctx, ev, what.as_mut_ptr().cast::<c_char>(), what.len())
        };
        if r != 0 {
            let n = self.stats.exceptions.fetch_add(1, Ordering::Relaxed) + 1;
            CALLBACK_EXCEPTIONS.fetch_add(1, Ordering::Relaxed);
            let end = what.iter().position(|b| *b == 0).unwrap_or(what.len());
            let msg = String::from_utf8_lossy(&what[..end]);
            eprintln!(
                "hlamesh: the federate ambassador's callback (event {}) threw: {msg} \
                 (caught; {n} so far)",
                ev.kind
            );
        }
    }

    fn time_kind(&self) -> i32 {
        self.stats.time_kind.load(Ordering::Relaxed)
    }

    fn object_attrs(
        &self,
        k: i32,
        object: ObjectInstanceHandle,
        a: &[AttributeHandle],
        tag: &[u8],
    ) {
        let hs = attrs(a);
        self.send(&HlmEvent {
            kind: k,
            object: object.0,
            handles: hs.as_ptr(),
            handles_len: hs.len(),
            tag: tag.as_ptr(),
            tag_len: tag.len(),
            ..Default::default()
        });
    }

    fn class(&self, k: i32, c: u32) {
        self.send(&HlmEvent {
            kind: k,
            class_handle: c,
            ..Default::default()
        });
    }

    fn label(&self, k: i32, s: &str) {
        let (t, n) = text(s);
        self.send(&HlmEvent {
            kind: k,
            text: t,
            text_len: n,
            ..Default::default()
        });
    }

    fn names(&self, k: i32, v: &[String]) {
        let ss = strs(v);
        self.send(&HlmEvent {
            kind: k,
            texts: ss.as_ptr(),
            texts_len: ss.len(),
            ..Default::default()
        });
    }

    fn at(&self, k: i32, t: Time) {
        self.send(&HlmEvent {
            kind: k,
            time: HlmTime::of_time(t),
            ..Default::default()
        });
    }

    fn plain(&self, k: i32) {
        self.send(&HlmEvent {
            kind: k,
            ..Default::default()
        });
    }

    fn received(&self, info: &ReceiveInfo, ev: HlmEvent) -> HlmEvent {
        HlmEvent {
            // Handle 0: the receiver's Convey Producing Federate switch is off.
            federate: info.producer.0,
            has_federate: i32::from(info.producer.0 != 0),
            sent_order: order(info.sent_order),
            received_order: order(info.received_order),
            transportation: info.transportation.0,
            retraction: info.retraction.map_or(0, |h| h.0),
            time: match &info.time {
                Some(t) => HlmTime::decode(self.time_kind(), t),
                None => HlmTime::NONE,
            },
            ..ev
        }
    }
}

impl FederateAmbassador for CAmbassador {
    fn connection_lost(&mut self, fault: &str) {
        self.label(kind::CONNECTION_LOST, fault);
    }
    fn report_federation_executions(&mut self, executions: &[(String, String)]) {
        let names: Vec<String> = executions.iter().map(|e| e.0.clone()).collect();
        let times: Vec<String> = executions.iter().map(|e| e.1.clone()).collect();
        let (n, t) = (strs(&names), strs(&times));
        self.send(&HlmEvent {
            kind: kind::REPORT_FEDERATION_EXECUTIONS,
            texts: n.as_ptr(),
            texts_len: n.len(),
            texts2: t.as_ptr(),
            ..Default::default()
        });
    }
    fn start_registration_for_object_class(&mut self, class: ObjectClassHandle) {
        self.class(kind::START_REGISTRATION, class.0);
    }
    fn stop_registration_for_object_class(&mut self, class: ObjectClassHandle) {
        self.class(kind::STOP_REGISTRATION, class.0);
    }
    fn turn_interactions_on(&mut self, class: InteractionClassHandle) {
        self.class(kind::TURN_INTERACTIONS_ON, class.0);
    }
    fn turn_interactions_off(&mut self, class: InteractionClassHandle) {
        self.class(kind::TURN_INTERACTIONS_OFF, class.0);
    }
    fn attributes_in_scope(&mut self, object: ObjectInstanceHandle, a: &[AttributeHandle]) {
        self.object_attrs(kind::ATTRIBUTES_IN_SCOPE, object, a, &[]);
    }
    fn attributes_out_of_scope(&mut self, object: ObjectInstanceHandle, a: &[AttributeHandle]) {
        self.object_attrs(kind::ATTRIBUTES_OUT_OF_SCOPE, object, a, &[]);
    }
    fn turn_updates_on_for_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        a: &[AttributeHandle],
    ) {
        self.object_attrs(kind::TURN_UPDATES_ON, object, a, &[]);
    }
    fn turn_updates_off_for_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        a: &[AttributeHandle],
    ) {
        self.object_attrs(kind::TURN_UPDATES_OFF, object, a, &[]);
    }
    fn object_instance_name_reservation_succeeded(&mut self, name: &str) {
        self.label(kind::NAME_RESERVATION_SUCCEEDED, name);
    }
    fn object_instance_name_reservation_failed(&mut self, name: &str) {
        self.label(kind::NAME_RESERVATION_FAILED, name);
    }
    fn multiple_object_instance_name_reservation_succeeded(&mut self, names: &[String]) {
        self.names(kind::MULTIPLE_NAME_RESERVATION_SUCCEEDED, names);
    }
    fn multiple_object_instance_name_reservation_failed(&mut self, names: &[String]) {
        self.names(kind::MULTIPLE_NAME_RESERVATION_FAILED, names);
    }
    fn discover_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        class: ObjectClassHandle,
        name: &str,
        producer: FederateHandle,
    ) {
        let (t, n) = text(name);
        self.send(&HlmEvent {
            kind: kind::DISCOVER_OBJECT_INSTANCE,
            object: object.0,
            class_handle: class.0,
            text: t,
            text_len: n,
            federate: producer.0,
            has_federate: i32::from(producer.0 != 0),
            ..Default::default()
        });
    }
    fn reflect_attribute_values(
        &mut self,
        object: ObjectInstanceHandle,
        vals: &[(AttributeHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
        let vs = values(vals, |a| a.0);
        let ev = self.received(
            info,
            HlmEvent {
                kind: kind::REFLECT_ATTRIBUTE_VALUES,
                object: object.0,
                values: vs.as_ptr(),
                values_len: vs.len(),
                tag: tag.as_ptr(),
                tag_len: tag.len(),
                ..Default::default()
            },
        );
        let rs = sent_regions(info);
        let ev = HlmEvent {
            has_regions: i32::from(info.sent_regions.is_some()),
            regions: rs.as_ptr(),
            regions_len: rs.len(),
            ..ev
        };
        self.send(&ev);
    }
    fn receive_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
        let vs = values(params, |p| p.0);
        let ev = self.received(
            info,
            HlmEvent {
                kind: kind::RECEIVE_INTERACTION,
                class_handle: class.0,
                values: vs.as_ptr(),
                values_len: vs.len(),
                tag: tag.as_ptr(),
                tag_len: tag.len(),
                ..Default::default()
            },
        );
        let rs = sent_regions(info);
        let ev = HlmEvent {
            has_regions: i32::from(info.sent_regions.is_some()),
            regions: rs.as_ptr(),
            regions_len: rs.len(),
            ..ev
        };
        self.send(&ev);
    }
    fn remove_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        tag: &[u8],
        producer: Option<FederateHandle>,
    ) {
        self.send(&HlmEvent {
            kind: kind::REMOVE_OBJECT_INSTANCE,
            object: object.0,
            tag: tag.as_ptr(),
            tag_len: tag.len(),
            federate: producer.map_or(0, |p| p.0),
            has_federate: i32::from(producer.is_some()),
            ..Default::default()
        });
    }
    fn remove_object_instance_with_time(
        &mut self,
        object: ObjectInstanceHandle,
        tag: &[u8],
        producer: Option<FederateHandle>,
        time: &[u8],
        sent_order: OrderType,
        received_order: OrderType,
        retraction: Option<MessageRetractionHandle>,
    ) {
        self.send(&HlmEvent {
            kind: kind::REMOVE_OBJECT_INSTANCE,
            object: object.0,
            tag: tag.as_ptr(),
            tag_len: tag.len(),
            federate: producer.map_or(0, |p| p.0),
            has_federate: i32::from(producer.is_some()),
            time: HlmTime::decode(self.time_kind(), time),
            sent_order: order(sent_order),
            received_order: order(received_order),
            retraction: retraction.map_or(0, |h| h.0),
            ..Default::default()
        });
    }
    fn request_retraction(&mut self, handle: MessageRetractionHandle) {
        self.send(&HlmEvent {
            kind: kind::REQUEST_RETRACTION,
            retraction: handle.0,
            ..Default::default()
        });
    }
    fn provide_attribute_value_update(
        &mut self,
        object: ObjectInstanceHandle,
        a: &[AttributeHandle],
        tag: &[u8],
    ) {
        self.object_attrs(kind::PROVIDE_ATTRIBUTE_VALUE_UPDATE, object, a, tag);
    }
    fn request_attribute_ownership_assumption(
        &mut self,
        object: ObjectInstanceHandle,
        offered: &[AttributeHandle],
        tag: &[u8],
    ) {
        self.object_attrs(
            kind::REQUEST_ATTRIBUTE_OWNERSHIP_ASSUMPTION,
            object,
            offered,
            tag,
        );
    }
    fn request_divestiture_confirmation(
        &mut self,
        object: ObjectInstanceHandle,
        released: &[AttributeHandle],
    ) {
        self.object_attrs(
            kind::REQUEST_DIVESTITURE_CONFIRMATION,
            object,
            released,
            &[],
        );
    }
    fn attribute_ownership_acquisition_notification(
        &mut self,
        object: ObjectInstanceHandle,
        secured: &[AttributeHandle],
        tag: &[u8],
    ) {
        self.object_attrs(
            kind::ATTRIBUTE_OWNERSHIP_ACQUISITION_NOTIFICATION,
            object,
            secured,
            tag,
        );
    }
    fn attribute_ownership_unavailable(
        &mut self,
        object: ObjectInstanceHandle,
        a: &[AttributeHandle],
    ) {
        self.object_attrs(kind::ATTRIBUTE_OWNERSHIP_UNAVAILABLE, object, a, &[]);
    }
    fn request_attribute_ownership_release(
        &mut self,
        object: ObjectInstanceHandle,
        candidates: &[AttributeHandle],
        tag: &[u8],
    ) {
        self.object_attrs(
            kind::REQUEST_ATTRIBUTE_OWNERSHIP_RELEASE,
            object,
            candidates,
            tag,
        );
    }
    fn confirm_attribute_ownership_acquisition_cancellation(
        &mut self,
        object: ObjectInstanceHandle,
        a: &[AttributeHandle],
    ) {
        self.object_attrs(
            kind::CONFIRM_ATTRIBUTE_OWNERSHIP_ACQUISITION_CANCELLATION,
            object,
            a,
            &[],
        );
    }
    fn inform_attribute_ownership(
        &mut self,
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
        owner: FederateHandle,
    ) {
        self.send(&HlmEvent {
            kind: kind::INFORM_ATTRIBUTE_OWNERSHIP,
            object: object.0,
            attribute: attr.0,
            federate: owner.0,
            has_federate: 1,
            ..Default::default()
        });
    }
    fn attribute_is_not_owned(&mut self, object: ObjectInstanceHandle, attr: AttributeHandle) {
        self.send(&HlmEvent {
            kind: kind::ATTRIBUTE_IS_NOT_OWNED,
            object: object.0,
            attribute: attr.0,
            ..Default::default()
        });
    }
    fn attribute_is_owned_by_rti(&mut self, object: ObjectInstanceHandle, attr: AttributeHandle) {
        self.send(&HlmEvent {
            kind: kind::ATTRIBUTE_IS_OWNED_BY_RTI,
            object: object.0,
            attribute: attr.0,
            ..Default::default()
        });
    }
    fn time_regulation_enabled(&mut self, time: Time) {
        self.at(kind::TIME_REGULATION_ENABLED, time);
    }
    fn time_constrained_enabled(&mut self, time: Time) {
        self.at(kind::TIME_CONSTRAINED_ENABLED, time);
    }
    fn time_advance_grant(&mut self, time: Time) {
        self.at(kind::TIME_ADVANCE_GRANT, time);
    }
    fn synchronization_point_registration_succeeded(&mut self, label: &str) {
        self.label(kind::SYNC_POINT_REGISTRATION_SUCCEEDED, label);
    }
    fn synchronization_point_registration_failed(
        &mut self,
        label: &str,
        reason: SynchronizationPointFailureReason,
    ) {
        let (t, n) = text(label);
        self.send(&HlmEvent {
            kind: kind::SYNC_POINT_REGISTRATION_FAILED,
            text: t,
            text_len: n,
            reason: match reason {
                SynchronizationPointFailureReason::SynchronizationPointLabelNotUnique => 0,
                SynchronizationPointFailureReason::SynchronizationSetMemberNotJoined => 1,
            },
            ..Default::default()
        });
    }
    fn announce_synchronization_point(&mut self, label: &str, tag: &[u8]) {
        let (t, n) = text(label);
        self.send(&HlmEvent {
            kind: kind::ANNOUNCE_SYNC_POINT,
            text: t,
            text_len: n,
            tag: tag.as_ptr(),
            tag_len: tag.len(),
            ..Default::default()
        });
    }
    fn federation_synchronized(&mut self, label: &str, failed: &[FederateHandle]) {
        let (t, n) = text(label);
        let hs: Vec<u32> = failed.iter().map(|h| h.0).collect();
        self.send(&HlmEvent {
            kind: kind::FEDERATION_SYNCHRONIZED,
            text: t,
            text_len: n,
            handles: hs.as_ptr(),
            handles_len: hs.len(),
            ..Default::default()
        });
    }
    fn initiate_federate_save(&mut self, label: &str, time: Option<Time>) {
        let (t, n) = text(label);
        self.send(&HlmEvent {
            kind: kind::INITIATE_FEDERATE_SAVE,
            text: t,
            text_len: n,
            time: time.map_or(HlmTime::NONE, HlmTime::of_time),
            ..Default::default()
        });
    }
    fn federation_saved(&mut self) {
        self.plain(kind::FEDERATION_SAVED);
    }
    fn federation_not_saved(&mut self, reason: SaveFailureReason) {
        self.send(&HlmEvent {
            kind: kind::FEDERATION_NOT_SAVED,
            reason: save_failure(reason),
            ..Default::default()
        });
    }
    fn federation_save_status_response(&mut self, status: &[(FederateHandle, SaveStatus)]) {
        let hs: Vec<u32> = status.iter().map(|s| s.0.0).collect();
        let st: Vec<i32> = status.iter().map(|s| save_status(s.1)).collect();
        self.send(&HlmEvent {
            kind: kind::FEDERATION_SAVE_STATUS_RESPONSE,
            handles: hs.as_ptr(),
            handles_len: hs.len(),
            statuses: st.as_ptr(),
            ..Default::default()
        });
    }
    fn request_federation_restore_succeeded(&mut self, label: &str) {
        self.label(kind::REQUEST_FEDERATION_RESTORE_SUCCEEDED, label);
    }
    fn request_federation_restore_failed(&mut self, label: &str, reason: &str) {
        let (t, n) = text(label);
        let (t2, n2) = text(reason);
        self.send(&HlmEvent {
            kind: kind::REQUEST_FEDERATION_RESTORE_FAILED,
            text: t,
            text_len: n,
            text2: t2,
            text2_len: n2,
            ..Default::default()
        });
    }
    fn federation_restore_begun(&mut self) {
        self.plain(kind::FEDERATION_RESTORE_BEGUN);
    }
    fn initiate_federate_restore(&mut self, label: &str, name: &str, handle: FederateHandle) {
        let (t, n) = text(label);
        let (t2, n2) = text(name);
        self.send(&HlmEvent {
            kind: kind::INITIATE_FEDERATE_RESTORE,
            text: t,
            text_len: n,
            text2: t2,
            text2_len: n2,
            federate: handle.0,
            has_federate: 1,
            ..Default::default()
        });
    }
    fn federation_restored(&mut self) {
        self.plain(kind::FEDERATION_RESTORED);
    }
    fn federation_not_restored(&mut self, reason: RestoreFailureReason, detail: &str) {
        let (t2, n2) = text(detail);
        self.send(&HlmEvent {
            kind: kind::FEDERATION_NOT_RESTORED,
            reason: restore_failure(reason),
            text2: t2,
            text2_len: n2,
            ..Default::default()
        });
    }
    fn federation_restore_status_response(
        &mut self,
        status: &[(FederateHandle, FederateHandle, RestoreStatus)],
    ) {
        let pre: Vec<u32> = status.iter().map(|s| s.0.0).collect();
        let post: Vec<u32> = status.iter().map(|s| s.1.0).collect();
        let st: Vec<i32> = status.iter().map(|s| restore_status(s.2)).collect();
        self.send(&HlmEvent {
            kind: kind::FEDERATION_RESTORE_STATUS_RESPONSE,
            handles: pre.as_ptr(),
            handles_len: pre.len(),
            handles2: post.as_ptr(),
            statuses: st.as_ptr(),
            ..Default::default()
        });
    }
}

// The standard enums' values (RTI/Enums.h).
fn save_failure(r: SaveFailureReason) -> i32 {
    match r {
        SaveFailureReason::RtiUnableToSave => 0,
        SaveFailureReason::FederateReportedFailureDuringSave => 1,
        SaveFailureReason::FederateResignedDuringSave => 2,
        SaveFailureReason::RtiDetectedFailureDuringSave => 3,
        SaveFailureReason::SaveTimeCannotBeHonored => 4,
        SaveFailureReason::SaveAborted => 5,
    }
}

fn save_status(s: SaveStatus) -> i32 {
    match s {
        SaveStatus::NoSaveInProgress => 0,
        SaveStatus::FederateInstructedToSave => 1,
        SaveStatus::FederateSaving => 2,
        SaveStatus::FederateWaitingForFederationToSave => 3,
    }
}

fn restore_failure(r: RestoreFailureReason) -> i32 {
    match r {
        RestoreFailureReason::RtiUnableToRestore => 0,
        RestoreFailureReason::FederateReportedFailureDuringRestore => 1,
        RestoreFailureReason::FederateResignedDuringRestore => 2,
        RestoreFailureReason::RtiDetectedFailureDuringRestore => 3,
        RestoreFailureReason::RestoreAborted => 4,
    }
}

fn restore_status(s: RestoreStatus) -> i32 {
    match s {
        RestoreStatus::NoRestoreInProgress => 0,
        RestoreStatus::FederateRestoreRequestPending => 1,
        RestoreStatus::FederateWaitingForRestoreToBegin => 2,
        RestoreStatus::FederatePreparedToRestore => 3,
        RestoreStatus::FederateRestoring => 4,
        RestoreStatus::FederateWaitingForFederationToRestore => 5,
    }
}

/// The conveyed sent-region handles of a reflection or interaction, as the C API passes them.
fn sent_regions(info: &ReceiveInfo) -> Vec<u64> {
    info.sent_regions
        .as_ref()
        .map(|hs| hs.iter().map(|h| h.0).collect())
        .unwrap_or_default()
}
