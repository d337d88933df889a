//! The engine's HLA thread side: a [`FederateAmbassador`] that decodes callbacks into
//! [`HlaEvent`]s on the bounded [`HlaQueue`] and time/sync/save callbacks into [`Management`]
//! commands. It never waits on the engine thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::Sender;
use hlamesh_timesync::LogicalTime;

use super::management::Management;
use super::reconstruction::{HlaEvent, HlaQueue};
use hlamesh_lrc::ambassador::{FederateAmbassador, RestoreFailureReason, SaveFailureReason, Time};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::core::wire::SynchronizationPointFailureReason;
use hlamesh_lrc::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};

/// Counters kept by the HLA side (readable from any thread).
#[derive(Debug, Default)]
pub struct HlaCounters {
    /// Reflections received.
    pub reflections: AtomicU64,
    /// Interactions received.
    pub interactions: AtomicU64,
    /// Time stamps that did not decode (the message is kept, without a time).
    pub bad_timestamps: AtomicU64,
}

/// The HLA-thread half of an engine.
#[derive(Debug)]
pub struct HlaSide {
    pub(crate) queue: Arc<HlaQueue>,
    pub(crate) mgmt: Sender<Management>,
    pub(crate) counters: Arc<HlaCounters>,
}

impl HlaSide {
    fn time(&self, info: &ReceiveInfo) -> Option<Time> {
        let bytes = info.time.as_deref()?;
        match Time::decode(bytes) {
            Ok(t) => Some(t),
            Err(_) => {
                self.counters.bad_timestamps.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    fn command(&self, m: Management) {
        // The engine holds the receiver for its whole life; after it ended nobody listens.
        let _ = self.mgmt.send(m);
    }
}

impl FederateAmbassador for HlaSide {
    fn connection_lost(&mut self, fault: &str) {
        self.command(Management::ConnectionLost(fault.to_string()));
    }

    fn discover_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        class: ObjectClassHandle,
        name: &str,
        producer: FederateHandle,
    ) {
        self.queue.push(HlaEvent::Discovered {
            object,
            class,
            name: name.to_string(),
            producer,
        });
    }

    fn reflect_attribute_values(
        &mut self,
        object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
        self.counters.reflections.fetch_add(1, Ordering::Relaxed);
        let time = self.time(info);
        self.queue.push(HlaEvent::Reflected {
            object,
            values: values.to_vec(),
            tag: tag.to_vec(),
            time,
            producer: info.producer,
            received: std::time::Instant::now(),
        });
    }

    fn receive_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
        self.counters.interactions.fetch_add(1, Ordering::Relaxed);
        let time = self.time(info);
        self.queue.push(HlaEvent::Interaction {
            class,
            params: params.to_vec(),
            tag: tag.to_vec(),
            time,
            producer: info.producer,
        });
    }

    fn remove_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        _tag: &[u8],
        _producer: Option<FederateHandle>,
    ) {
        self.queue.push(HlaEvent::Removed { object });
    }

    fn time_regulation_enabled(&mut self, time: Time) {
        self.command(Management::RegulationEnabled(time));
    }

    fn time_constrained_enabled(&mut self, time: Time) {
        self.command(Management::ConstrainedEnabled(time));
    }

    fn time_advance_grant(&mut self, time: Time) {
        self.command(Management::TimeGrant(time));
    }

    fn synchronization_point_registration_succeeded(&mut self, label: &str) {
        self.command(Management::SyncRegistered(label.to_string()));
    }

    fn synchronization_point_registration_failed(
        &mut self,
        label: &str,
        reason: SynchronizationPointFailureReason,
    ) {
        self.command(Management::SyncRegistrationFailed(
            label.to_string(),
            format!("{reason:?}"),
        ));
    }

    fn announce_synchronization_point(&mut self, label: &str, tag: &[u8]) {
        self.command(Management::SyncAnnounced(label.to_string(), tag.to_vec()));
    }

    fn initiate_federate_save(&mut self, label: &str, time: Option<Time>) {
        self.command(Management::InitiateSave(label.to_string(), time));
    }

    fn federation_saved(&mut self) {
        self.command(Management::FederationSaved(Ok(())));
    }

    fn federation_not_saved(&mut self, reason: SaveFailureReason) {
        self.command(Management::FederationSaved(Err(format!("{reason:?}"))));
    }

    fn federation_synchronized(&mut self, label: &str, failed: &[FederateHandle]) {
        self.command(Management::FederationSynchronized(
            label.to_string(),
            failed.to_vec(),
        ));
    }

    fn request_federation_restore_failed(&mut self, label: &str, reason: &str) {
        self.command(Management::FederationRestored(Err(format!(
            "restore {label} refused: {reason}"
        ))));
    }

    fn federation_restore_begun(&mut self) {
        self.command(Management::RestoreBegun);
    }

    fn initiate_federate_restore(&mut self, label: &str, _name: &str, _handle: FederateHandle) {
        self.command(Management::InitiateRestore(label.to_string()));
    }

    fn federation_restored(&mut self) {
        self.command(Management::FederationRestored(Ok(())));
    }

    fn federation_not_restored(&mut self, reason: RestoreFailureReason, detail: &str) {
        self.command(Management::FederationRestored(Err(format!(
            "{reason:?}: {detail}"
        ))));
    }
}
