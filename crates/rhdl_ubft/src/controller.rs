//! The consensus controller: Protocol and the machines and blocks it holds.
pub mod cert_check;
pub mod counters;
pub mod encoder;
pub mod fast;
pub mod grants;
pub mod leader;
pub mod ledger;
pub mod literals;
pub mod protocol;
pub mod requests;
pub mod slot_records;
pub mod slow;
pub mod status;
pub mod tally;
pub mod timer;
pub mod view;
pub mod watch;
