//! ubft_sim: the cluster simulator for rhdl_ubft.
pub mod client;
pub mod cluster;
pub mod hbm;
pub mod network;
pub mod ports;
pub mod rusthdl;
pub mod bench;
