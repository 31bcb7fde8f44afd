//! ubft_sim: the cluster simulator for rhdl_ubft.
pub mod client;
pub mod cluster;
pub mod hbm;
pub mod network;
pub mod ports;
pub mod rusthdl;
pub mod bench;
pub mod backend;
pub mod lockstep;
pub mod testbench;
pub mod verilator;
pub mod signer;
pub mod adversary;
pub mod scenario;
