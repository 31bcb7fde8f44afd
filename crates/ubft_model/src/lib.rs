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
//! `current` (what the kernel does today, [`current::Current`]) and
//! `recovery` (docs/recovery.md, design v3, [`recovery::Recovery`]), with its
//! variants `recovery:no_bridge`, `recovery:cert_f`, `recovery:decide_f` and
//! `recovery:no_cross_check`, each of which removes one safety rule. The harness ([`model`], [`check`]) is shared:
//! the properties and their names, the synchrony rule, the bounds, the JSON
//! report and the counterexample text. docs/model.md has the full account.

pub mod check;
pub mod current;
pub mod model;
pub mod recovery;

pub use check::{find, run, run_named, CheckReport, PropertyReport, RunOpts};
pub use model::{Config, Design, UbftModel};

/// The designs the checker knows, by name.
pub const DESIGNS: [&str; 8] = [
    "current",
    "current:no_requests",
    "current:no_r26",
    "recovery",
    "recovery:no_bridge",
    "recovery:cert_f",
    "recovery:decide_f",
    "recovery:no_cross_check",
];
