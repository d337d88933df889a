//! Example federates and the demo launcher for hlamesh.
#![forbid(unsafe_code)]
