//! The commander: loads the scenario, (re)creates the federation, drives the engine
//! synchronization points (its engine runs in [`hlamesh_engine::Role::Commander`]),
//! requests a federation save at the scenario's save time (untimed, at the first frame at
//! or after it) and, once that save succeeded, a
//! restore of it at the scenario's restore time. Periodic at 10 Hz, time-constrained only (it
//! never holds the others back).

use hlamesh_engine::management::Management;
use hlamesh_engine::{Ctx, EngineError, Simulation};

use crate::federate::Example;
use crate::scenario::Scenario;

/// Frame rate.
pub const HZ: u32 = 10;
/// The label of the scenario's save.
pub const SAVE_LABEL: &str = "scenario-save";

/// The commander federate.
#[derive(Debug)]
pub struct Commander {
    scenario: Scenario,
    save_requested: bool,
    restore_requested: bool,
    log: Vec<String>,
    saved: Option<bool>,
    restored: Option<bool>,
    save_error: Option<String>,
    restore_error: Option<String>,
}

impl Commander {
    /// A commander for `scenario`.
    pub fn new(scenario: Scenario) -> Self {
        Commander {
            scenario,
            save_requested: false,
            restore_requested: false,
            log: Vec::new(),
            saved: None,
            restored: None,
            save_error: None,
            restore_error: None,
        }
    }
}

impl Simulation for Commander {
    type Command = ();

    fn scenario(&mut self) -> Vec<u8> {
        self.scenario.to_toml().into_bytes()
    }

    fn on_load(&mut self, ctx: &mut Ctx<'_>, _scenario: &[u8]) -> Result<(), EngineError> {
        ctx.set_end_time(self.scenario.run_seconds);
        Ok(())
    }

    fn on_frame(&mut self, ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        // Untimed save, requested by the first frame at or after the save time; every engine
        // saves at the end of its current frame, wherever the save finds it. Not a timed save:
        // the event-driven operator's next-event request may be granted past the save time,
        // which makes a timed save fail (SaveTimeCannotBeHonored).
        if let Some(at) = self.scenario.save_at
            && !self.save_requested
            && ctx.time() >= at
        {
            self.save_requested = true;
            self.log
                .push(format!("t={:.2} request save {SAVE_LABEL}", ctx.time()));
            ctx.management(Management::RequestFederationSave(SAVE_LABEL.into(), None));
        }
        if let Some(at) = self.scenario.restore_at
            && self.saved == Some(true)
            && !self.restore_requested
            && ctx.time() >= at
        {
            self.restore_requested = true;
            self.log
                .push(format!("t={:.2} request restore {SAVE_LABEL}", ctx.time()));
            ctx.management(Management::RequestFederationRestore(SAVE_LABEL.into()));
        }
        Ok(())
    }

    fn on_management(&mut self, m: &Management) {
        match m {
            Management::FederationSaved(r) => {
                self.saved = Some(r.is_ok());
                self.save_error = r.as_ref().err().cloned();
                self.log.push(format!("federation saved: {r:?}"));
            }
            Management::FederationRestored(r) => {
                self.restored = Some(r.is_ok());
                self.restore_error = r.as_ref().err().cloned();
                self.log.push(format!("federation restored: {r:?}"));
            }
            _ => {}
        }
    }
}

impl Example for Commander {
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "commander",
            "federation_saved": self.saved,
            "federation_restored": self.restored,
            "save_error": self.save_error,
            "restore_error": self.restore_error,
            "log": self.log,
        })
    }
}
