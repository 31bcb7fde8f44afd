//! ubft_sim: the cluster simulator for rhdl_ubft.
//!
//! Laid out by role:
//! - [`cluster`]: n replicas, their models and the network, stepped cycle by
//!   cycle (on one thread or several), with the run's checks;
//! - [`models`]: what surrounds a kernel on its card: HBM, the RoCE network,
//!   the signer service, the client and the host;
//! - [`backend`]: what runs a kernel: Verilator on the exported Verilog,
//!   rust-hdl's own simulator, or both in lockstep; [`ports`] is the
//!   boundary they share;
//! - [`adversary`]: the Byzantine kinds, one file each;
//! - [`scenario`], [`bench`] and [`testbench`]: scenario files, the
//!   benchmark and the recorded Verilog testbenches;
//! - [`timeline`]: a run drawn as a message sequence chart (SVG).
pub mod adversary;
pub mod backend;
pub mod bench;
pub mod cluster;
pub mod models;
pub mod ports;
pub mod scenario;
pub mod testbench;
pub mod timeline;
