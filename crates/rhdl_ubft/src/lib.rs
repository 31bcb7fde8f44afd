//! rhdl_ubft: uBFT's consensus controller as an FPGA kernel, in rust-hdl.
pub mod layout;
pub mod params;
pub mod roce;
pub mod broadcast;
pub mod fetch;
pub mod protocol;
pub mod kernel;
pub mod regs;
pub mod control;
pub mod vitis;
pub mod setup;
pub mod choose;
