//! ubft_sim: the cluster simulator for rhdl_ubft.
pub mod cluster;
pub mod ports;
pub mod rusthdl;
