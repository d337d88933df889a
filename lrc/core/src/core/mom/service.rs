//! MOM services (`HLAmanager.HLAfederate.HLAservice`): actions performed on behalf of a local
//! federate. A refusal is sent back as `HLAreportMOMexception`.

use crate::error::RtiError;
use crate::handles::FederateHandle;

use super::super::FederationCore;
use super::super::wire::ResignAction;
use super::dispatch::{MomArgs, MomFailure};

impl FederationCore {
    /// `HLAmanager.HLAfederate.HLAservice.<name>` on behalf of local federate `f`.
    pub(super) fn mom_service(
        &mut self,
        f: FederateHandle,
        name: &str,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        match name {
            // Its application is not called back: its next call fails with
            // `FederateNotExecutionMember`.
            "HLAresignFederationExecution" => {
                let v: i32 = args.get("HLAresignAction")?;
                let action = resign_action(v).ok_or_else(|| {
                    MomFailure::Parameter(format!(
                        "parameter HLAresignAction: {v} is not an HLAresignAction (1-6)"
                    ))
                })?;
                self.resign(f, action)?;
            }
            _ => {
                return Err(MomFailure::Service(RtiError::RtiInternalError(format!(
                    "HLAmanager.HLAfederate.HLAservice.{name} is not implemented by hlamesh"
                ))));
            }
        }
        Ok(())
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
