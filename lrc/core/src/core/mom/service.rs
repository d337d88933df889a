//! MOM services (`HLAmanager.HLAfederate.HLAservice`): actions performed on behalf of a
//! federate.

use crate::handles::FederateHandle;

use super::super::FederationCore;
use super::super::wire::ResignAction;

impl FederationCore {
    /// `HLAservice.HLAresignFederationExecution`: the target federate resigns with `action`
    /// (its application is not called back: its next call fails with
    /// `FederateNotExecutionMember`).
    pub(super) fn mom_resign(&mut self, f: FederateHandle, action: ResignAction) {
        match self.resign(f, action) {
            Ok(_) => {}
            Err(e) => tracing::debug!(federation = %self.name, %f, "MOM resign refused: {e}"),
        }
    }
}

/// HLAresignAction's values (1–6).
pub(super) fn resign_action(v: i32) -> Option<ResignAction> {
    Some(match v {
        1 => ResignAction::UnconditionallyDivestAttributes,
        2 => ResignAction::DeleteObjects,
        3 => ResignAction::CancelPendingOwnershipAcquisitions,
        4 => ResignAction::DeleteObjectsThenDivest,
        5 => ResignAction::CancelThenDeleteThenDivest,
        6 => ResignAction::NoAction,
        _ => return None,
    })
}
