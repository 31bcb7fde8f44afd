//! ubft_sim: the cluster simulator for rhdl_ubft.
pub mod adversary;
pub mod backend;
pub mod bench;
pub mod client;
pub mod cluster;
pub mod equivocate3;
pub mod hbm;
pub mod host;
pub mod lie_vc3;
pub mod lockstep;
pub mod network;
mod parallel;
pub mod ports;
pub mod rusthdl;
pub mod scenario;
pub mod signer;
pub mod testbench;
pub mod verilator;
