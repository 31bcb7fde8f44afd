//! ubft_model: the uBFT controller as an executable model at the level of its
//! mailboxes, checked over every interleaving with stateright.
//!
//! A replica never sends a message: it writes records into the same mailbox
//! address of every replica's HBM and polls its own. So the model's state is
//! each replica's controller state, the mailbox words that matter in each
//! replica's HBM, and the writes in flight on each queue pair (FIFO per
//! src → dst). Its actions: a replica's step (one atomic poll of its own HBM
//! and the decision the kernel makes on it), a write landing, a Byzantine
//! replica's write into its own entries, a replica falling silent, a timeout,
//! and the point after which the network is synchronous (GST).
//!
//! The protocol itself is a [`Design`], selected by name ([`DESIGNS`]):
//! `kernel` (the design the RTL builds: docs/recovery.md with D11.9's
//! departures, [`recovery::Variant::Kernel`]), `recovery` (docs/recovery.md,
//! design v3, [`recovery::Recovery`]), with its variants `recovery:no_bridge`,
//! `recovery:cert_f`, `recovery:decide_f` and `recovery:no_cross_check`, each
//! of which removes one safety rule, and `current` (the all-n design, kept as
//! the documented counterexample: every path waits for all n replicas,
//! [`current::Current`]). The harness ([`model`], [`check`]) is shared:
//! the properties and their names, the synchrony rule, the bounds, the JSON
//! report and the counterexample text. docs/model.md has the full account.

pub mod check;
pub mod current;
pub mod model;
pub mod recovery;

pub use check::{find, run, run_named, CheckReport, PropertyReport, RunOpts};
pub use model::{Config, Design, UbftModel};

/// The designs the checker knows, by name.
pub const DESIGNS: [&str; 9] = [
    "kernel",
    "current",
    "current:no_requests",
    "current:no_r26",
    "recovery",
    "recovery:no_bridge",
    "recovery:cert_f",
    "recovery:decide_f",
    "recovery:no_cross_check",
];

/// `cargo xtask model`'s defaults: xtask takes them from here, and
/// `tests/harness.rs` checks that the design name parses (and, ignored,
/// that the defaults complete). The default run is the kernel's design at
/// n = 3, one slot, views 0..=1, up to f = 1 replica falling silent at any
/// point and one write the network holds back at any point: run (iii) of
/// docs/model.md, which completes in minutes within a few GB ("Running
/// it" there gives the bigger configurations and their cost).
pub mod defaults {
    pub const DESIGN: &str = "kernel";
    pub const REPLICAS: usize = 3;
    pub const SLOTS: usize = 1;
    pub const VIEWS: u8 = 1;
    pub const WINDOW: usize = 1;
    pub const DELAYS: u8 = 1;
    pub const EARLY_TIMEOUTS: u8 = 0;
    /// The bridge's reach, the RTL's (`rhdl_ubft::params::BRIDGE_REACH`).
    pub const REACH: usize = rhdl_ubft::params::BRIDGE_REACH;
    pub const THREADS: usize = 2;
    /// The memory cap, in GB of resident memory (0: none).
    pub const MAX_MEMORY_GB: f64 = 8.0;
    /// Seconds between progress lines on stderr.
    pub const PROGRESS_SECONDS: u64 = 5;
}
