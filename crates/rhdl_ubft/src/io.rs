//! The kernel's I/O blocks: the host's control port, HBM reads and writes,
//! the RoCE v2 stack's commands and the signer service's streams.
pub mod broadcast;
pub mod compose;
pub mod control;
pub mod fetch;
pub mod rdmux;
pub mod roce;
pub mod rx_status;
pub mod scoreboard;
pub mod signer;
pub mod stage;
