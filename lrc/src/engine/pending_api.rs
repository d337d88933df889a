//! Stand-ins for RTI services the engine is written against but this LRC does not offer yet
//! (federation restore). Each returns `RtiInternalError`, so an
//! engine that reaches one fails with a clear cause. The real `RtiAmbassador` methods, once they
//! exist, take precedence over these (inherent methods shadow trait methods); then this module
//! goes.

use crate::ambassador::RtiAmbassador;
use crate::error::{RtiError, RtiResult};

fn missing(what: &str) -> RtiError {
    RtiError::RtiInternalError(format!("{what} is not available in this LRC yet"))
}

/// The services still to come.
#[allow(dead_code)]
pub(crate) trait PendingApi {
    fn request_federation_restore(&self, _l: &str) -> RtiResult<()> {
        Err(missing("federation restore"))
    }
    fn federate_restore_complete(&self) -> RtiResult<()> {
        Err(missing("federation restore"))
    }
    fn federate_restore_not_complete(&self) -> RtiResult<()> {
        Err(missing("federation restore"))
    }
}

impl PendingApi for RtiAmbassador {}
