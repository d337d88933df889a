//! The engine state machine: Begin → JoinSynchronization → Load → Run → LeaveSynchronization →
//! End, and Fail (with its cause) from any state but End.
//!
//! Kept as plain data so the frame loop, the tests and the example federates' summaries agree on
//! what a state is called and which moves are legal.

use std::fmt;

/// Where an engine is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineState {
    /// Not connected yet.
    Begin,
    /// Connecting, (re)creating or joining the federation, enabling time management, waiting for
    /// the other engines to join.
    JoinSynchronization,
    /// The three load frames (0: the commander shares the scenario, 1: the others read it,
    /// 2: everyone loads it); `frame` is 0, 1 or 2.
    Load {
        /// Load frame number.
        frame: u8,
    },
    /// The frame loop proper.
    Run,
    /// Waiting for every engine to finish before resigning.
    LeaveSynchronization,
    /// Resigned cleanly.
    End,
    /// Stopped on an error.
    Fail(String),
}

impl EngineState {
    /// Short name (for logs, summaries and tests).
    pub fn name(&self) -> &'static str {
        match self {
            EngineState::Begin => "Begin",
            EngineState::JoinSynchronization => "JoinSynchronization",
            EngineState::Load { .. } => "Load",
            EngineState::Run => "Run",
            EngineState::LeaveSynchronization => "LeaveSynchronization",
            EngineState::End => "End",
            EngineState::Fail(_) => "Fail",
        }
    }

    /// Whether `self → next` is a legal move.
    pub fn may_become(&self, next: &EngineState) -> bool {
        use EngineState::*;
        match (self, next) {
            (End, _) | (Fail(_), _) => false,
            (_, Fail(_)) => true,
            (Begin, JoinSynchronization) => true,
            (JoinSynchronization, Load { frame: 0 }) => true,
            (Load { frame: a }, Load { frame: b }) => *a < 2 && *b == *a + 1,
            (Load { frame: 2 }, Run) => true,
            (Run, LeaveSynchronization) => true,
            (LeaveSynchronization, End) => true,
            _ => false,
        }
    }

    /// True for End and Fail.
    pub fn is_final(&self) -> bool {
        matches!(self, EngineState::End | EngineState::Fail(_))
    }
}

impl fmt::Display for EngineState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineState::Load { frame } => write!(f, "Load({frame})"),
            EngineState::Fail(cause) => write!(f, "Fail({cause})"),
            other => f.write_str(other.name()),
        }
    }
}

/// The state plus the history of moves (what a summary reports).
#[derive(Debug, Clone)]
pub struct StateMachine {
    state: EngineState,
    history: Vec<EngineState>,
}

impl Default for StateMachine {
    fn default() -> Self {
        Self::new()
    }
}

impl StateMachine {
    /// In Begin.
    pub fn new() -> Self {
        StateMachine {
            state: EngineState::Begin,
            history: vec![EngineState::Begin],
        }
    }

    /// The current state.
    pub fn state(&self) -> &EngineState {
        &self.state
    }

    /// Every state entered, in order.
    pub fn history(&self) -> &[EngineState] {
        &self.history
    }

    /// Moves to `next`; an illegal move becomes Fail naming it (a bug in the caller, reported
    /// rather than panicking). Returns the state entered.
    pub fn go(&mut self, next: EngineState) -> &EngineState {
        let entered = if self.state.may_become(&next) {
            next
        } else if self.state.is_final() {
            return &self.state;
        } else {
            EngineState::Fail(format!("illegal engine transition {} → {next}", self.state))
        };
        self.state = entered.clone();
        self.history.push(entered);
        &self.state
    }

    /// Moves to Fail with `cause` (no effect once final).
    pub fn fail(&mut self, cause: impl Into<String>) -> &EngineState {
        self.go(EngineState::Fail(cause.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_normal_life_is_legal_and_recorded() {
        let mut m = StateMachine::new();
        for s in [
            EngineState::JoinSynchronization,
            EngineState::Load { frame: 0 },
            EngineState::Load { frame: 1 },
            EngineState::Load { frame: 2 },
            EngineState::Run,
            EngineState::LeaveSynchronization,
            EngineState::End,
        ] {
            assert_eq!(m.go(s.clone()), &s);
        }
        assert_eq!(m.history().len(), 8);
        // Final: nothing moves it any more.
        m.fail("late");
        assert_eq!(m.state(), &EngineState::End);
    }

    #[test]
    fn skipping_a_state_is_a_failure_naming_the_move() {
        let mut m = StateMachine::new();
        m.go(EngineState::JoinSynchronization);
        let s = m.go(EngineState::Run).clone();
        assert_eq!(
            s,
            EngineState::Fail("illegal engine transition JoinSynchronization → Run".into())
        );
        let mut m = StateMachine::new();
        m.go(EngineState::JoinSynchronization);
        m.go(EngineState::Load { frame: 0 });
        assert_eq!(m.go(EngineState::Load { frame: 2 }).name(), "Fail");
    }

    #[test]
    fn any_live_state_may_fail_with_its_cause() {
        let mut m = StateMachine::new();
        m.go(EngineState::JoinSynchronization);
        assert_eq!(
            m.fail("join: no federation").to_string(),
            "Fail(join: no federation)"
        );
        assert!(m.state().is_final());
    }
}
