//! `HLAmanager.HLAfederate.HLAadjust.HLAmodifyAttributeState`: the MOM changes the ownership
//! state of one instance attribute for the federate it names.
//!
//! The MIM: to give the attribute to the named federate, a federate that owns it is divested
//! first; neither federate is notified; the named federate must know the instance and publish
//! the attribute at the instance's known class, and the attribute must not be the RTI's (a
//! MOM instance's); otherwise nothing happens and `HLAreportMOMexception` says why.
//!
//! hlamesh changes ownership only through the coordinator's log (see
//! `super::super::ownership`), and this is no exception. `HLAattributeState` `Owned` (1): the
//! named federate's LRC asks the coordinator for a [`Request::Transfer`] from the owner it
//! sees (another federate, or none) at the version it sees, marked `silent`. The coordinator
//! decides it if that is still the owner and version (a concurrent transfer wins otherwise,
//! and this one has no effect), and every member applies it as any transfer: the owners
//! change at the decision, so the old owner's updates fail with `AttributeNotOwned` from then
//! on. Because the old owner did not give the attribute up, its LRC puts the hand-over in its
//! data stream when it applies the decision, behind every update the owner sent with the
//! attribute; receivers hold the new owner's updates until then, as after any transfer, so no
//! one reflects the two owners' values interleaved. `silent` keeps the callbacks the
//! ownership services would give out of it: no `attributeOwnershipAcquisitionNotification`
//! to the new owner, nothing to the old (the MIM's "no notification").
//!
//! `Unowned` (0) of an attribute the named federate owns divests it as
//! `unconditionalAttributeOwnershipDivestiture` (which notifies nobody either); of one it
//! does not own, nothing.
//!
//! [`Request::Transfer`]: super::super::wire::Request::Transfer

use crate::error::RtiError;
use crate::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};

use super::super::FederationCore;
use super::super::wire::Request;
use super::dispatch::{MomArgs, MomFailure};
use super::is_mom_instance;

impl FederationCore {
    /// `HLAmodifyAttributeState` for local federate `f` (see the module docs).
    pub(super) fn mom_modify_attribute_state(
        &mut self,
        f: FederateHandle,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        let o = args.handle("HLAobjectInstance", ObjectInstanceHandle::decode)?;
        let a = args.handle("HLAattribute", AttributeHandle::decode)?;
        let state: i32 = args.get("HLAattributeState")?;
        if !(0..=1).contains(&state) {
            return Err(MomFailure::Parameter(format!(
                "parameter HLAattributeState: {state} is not an HLAownership (0 or 1)"
            )));
        }
        self.refuse_during_save_or_restore(f, "HLAmodifyAttributeState")?;
        let known = self
            .locals
            .get(&f)
            .and_then(|l| l.known.get(&o).copied())
            .ok_or_else(|| {
                RtiError::ObjectInstanceNotKnown(format!("federate {f} does not know {o}"))
            })?;
        if is_mom_instance(o) {
            return Err(MomFailure::Service(RtiError::AttributeAlreadyOwned(
                format!("attribute {a} of {o} is the RTI's (a MOM instance)"),
            )));
        }
        let fdd = self.fdd_ref()?;
        fdd.attribute(known, a)
            .map_err(|e| RtiError::AttributeNotDefined(format!("{e}")))?;
        let Some(inst) = self.objects.get(&o) else {
            return Err(RtiError::ObjectInstanceNotKnown(format!("{o} is gone")).into());
        };
        let (owner, version) = (inst.owner_of(a), inst.version(a));
        if state == 0 {
            if owner == Some(f) {
                self.unconditional_attribute_ownership_divestiture(f, o, &[a])?;
            }
            return Ok(());
        }
        if owner == Some(f) {
            return Ok(());
        }
        let published = self
            .locals
            .get(&f)
            .and_then(|l| l.decl.published_objects.get(&known))
            .is_some_and(|p| p.contains(&a));
        if !published {
            return Err(RtiError::AttributeNotPublished(format!(
                "federate {f} does not publish attribute {a} at class {known}, the class it \
                 knows {o} as"
            ))
            .into());
        }
        self.request(
            Request::Transfer {
                object: o,
                attrs: vec![(a, version)],
                from: owner,
                to: Some(f),
                tag: Vec::new(),
                silent: true,
            },
            None,
            false,
        );
        Ok(())
    }
}
