//! # hlamesh-lrc
//!
//! The Local RTI Component: every federate process carries one. It loads FOM modules, encodes and
//! decodes HLA data, runs the federation core (membership, declarations, objects, ownership, sync
//! points, save/restore, time management) over the transport, and offers the IEEE 1516-2010
//! `RtiAmbassador` / `FederateAmbassador` API.
//!
//! So far: [`fom`] (load and merge FOM modules into an [`fom::Fdd`] with deterministic handles
//! and a digest), [`encoding`] (the HLA data encoding rules, typed and FOM-driven), and
//! [`handles`] (the handle newtypes every other part reuses).
//!
//! The RTI itself, with no server: [`core`] is the deterministic, I/O-free federation core (one
//! [`core::FederationCore`] per federation per LRC: membership through a coordinator's replicated
//! decision log with takeover, declarations with class promotion, the object registry, updates,
//! interactions, deletion, state transfer for late joiners; messages in [`core::wire`]);
//! [`node`] is the shell ([`node::Lrc`]: owns the transport, runs the cores on the transport's
//! receive threads and executes their actions; the create race over beacon claims);
//! [`ambassador`] is the IEEE 1516-2010 API ([`ambassador::RtiAmbassador`],
//! [`ambassador::FederateAmbassador`], evoked or immediate callbacks, several federates per
//! process); [`callback_queue`] is where callbacks wait and which thread delivers them
//! (immediate ones on the receive thread that produced them, with no hand-off); [`error::RtiError`] mirrors the
//! standard's exceptions. Time management ([`core::time`]): each joined federate has an
//! `hlamesh-timesync` time manager (the federation's `HLAfloat64Time` or `HLAinteger64Time`)
//! fed with its LRC's data stream and membership;
//! regulation, constraint, TAR/TARA/NER/NERA/FQR and TSO delivery work across LRCs, the managers'
//! promises travelling as one multicast each in the sender's reliable data stream.
//!
//! Operations: [`metrics`] is the HLA-level Prometheus families (updates/interactions sent and
//! reflected by class, sampled reflection latency, time-advance waits, GALT lag, null messages,
//! callback queues, membership), served with the transport's on `/metrics` when the transport
//! configuration has a `metrics_addr` ([`node::Lrc::metrics_url`]); [`ops`] is the small
//! operations plane between LRCs (status records for `hlamesh status`, clock-offset probes,
//! latency marks); [`cli::status`] is the monitor. Deployment guide: `deploy/README.md`.
//!
//! Synchronization points ([`core::sync_point`]), federation save ([`core::save`]) and restore
//! ([`core::restore`]) are coordinator decisions too, so every LRC sees the same outcome at the
//! same point of the log:
//!
//! ```text
//! rti.register_federation_synchronization_point("ReadyToRun", b"")?;   // → announce_… to all
//! rti.synchronization_point_achieved("ReadyToRun", true)?;             // → federation_synchronized
//! rti.request_federation_save("t50")?;                                  // → initiate_federate_save
//! // in the federate, on initiate_federate_save:
//! rti.federate_save_begun()?;
//! std::fs::write(rti.federate_state_dir()?.join("app.bin"), my_state)?; // the federate's own state
//! rti.federate_save_complete()?;  // the LRC writes the RTI's state for it (save_file), then
//!                                 // → federation_saved / federation_not_saved(reason)
//! rti.request_federation_restore("t50")?;  // → request_federation_restore_succeeded/_failed,
//!                                          //   federation_restore_begun
//! // in the federate, on initiate_federate_restore(label, saved_name, saved_handle):
//! my_state = std::fs::read(rti.federate_state_dir()?.join("app.bin"))?;
//! rti.federate_restore_complete()?;        // → federation_restored / federation_not_restored
//! ```
//!
//! Saves go under `$HLAMESH_SAVE_DIR` (default `~/.local/share/hlamesh/saves`), see
//! [`save_file`]. `request_federation_save_with_time` saves every constrained federate right
//! after its grant to the save time. A restore needs the saved federates' types joined (in any
//! processes) and each machine's save files; it changes nothing until every LRC has read and
//! checked its files.
//!
//! Advisories ([`core::advisory`]): start/stop registration, turn interactions on/off, turn
//! updates on/off for an instance's attributes and attributes in/out of scope, each gated by its
//! switch (FDD defaults as in the standard MIM; `enable_…_advisory_switch` /
//! `disable_…_advisory_switch` per federate, saved and restored with it).
//!
//! Connection loss ([`core::eviction`]): a member the others removed (it was cut off, they
//! resigned its federates) gets `connection_lost` as soon as it hears them again; in a healed
//! partition the side with more LRCs keeps the federation. A stopped transport also reports
//! `connection_lost` to every federate of the process.
//!
//! Resignations ([`core::resignation`]): a remote federate's resignation removes or orphans
//! its instances only after its LRC's data up to the resignation was applied here, so its last
//! updates are reflected before the removal.
//!
//! Ownership management ([`core::ownership`], IEEE 1516-2010 clause 7): owners are per instance
//! attribute; every change of hands is a coordinator decision (asked for by the owner's LRC for
//! owned attributes, by the acquirer's LRC for unowned ones), so concurrent acquisitions end
//! with exactly one owner. The old owner's LRC stops it at once and marks the hand-over in its
//! data stream; receivers accept an update only from the owner of the version it was sent
//! with, holding the new owner's first updates until the hand-over arrived, so a third
//! federate never sees the two owners' updates interleaved:
//!
//! ```text
//! owner.negotiated_attribute_ownership_divestiture(o, &[pos], b"")?; // → request_attribute_ownership_assumption
//! taker.attribute_ownership_acquisition_if_available(o, &[pos])?;   // owner ← request_divestiture_confirmation
//! owner.confirm_divestiture(o, &[pos], b"")?;   // taker ← attribute_ownership_acquisition_notification
//! taker.attribute_ownership_acquisition(o, &[pos], b"")?;  // intrusive: owner ← request_attribute_ownership_release,
//! owner.attribute_ownership_divestiture_if_wanted(o, &[pos])?; // or …_release_denied → taker ← …_unavailable
//! ```
//!
//! A lost or resigned owner's attributes become unowned and go to a federate still waiting for
//! them; owners travel in late joiners' state transfer and in save files. MOM instances do not
//! exist, so `attribute_is_owned_by_rti` is never called.
//!
//! Coordinator takeover: the next member in join order fetches the longest log any survivor
//! reported before it decides anything (if the member with the longest report is lost too, the
//! longest of the remaining reports, not its own log). A joiner the dead coordinator added but
//! never welcomed is not a member until the next coordinator welcomes it; if every admitted
//! member it knew is gone, its join fails. The deterministic simulation checks this with
//! `HLAMESH_SIM_PARTIAL_CANDIDATES=1` and `HLAMESH_SIM_FREQUENT_RESTORES=1` (no failing seed in
//! 3,000 of each).
//!
//! Joining: a joiner sends its join to every LRC whose beacon announces the federation and keeps
//! adding announcers it hears later; a member that does not coordinate redirects it to the one
//! that does (a joiner that had not heard the coordinator's beacon yet used to wait forever).
#![forbid(unsafe_code)]

pub mod ambassador;
pub mod callback_queue;
pub mod cli;
pub mod core;
pub mod encoding;
pub mod engine;
pub mod error;
pub mod fom;
pub mod handles;
pub mod metrics;
pub mod node;
pub mod ops;
pub mod save_file;
