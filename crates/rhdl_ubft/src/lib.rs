//! rhdl_ubft: uBFT's consensus controller as an FPGA kernel, in rust-hdl.
pub mod broadcast;
pub mod choose;
pub mod control;
pub mod fetch;
pub mod guard;
pub mod kernel;
pub mod layout;
pub mod params;
pub mod protocol;
pub mod regs;
pub mod roce;
pub mod roce_adapter;
pub mod setup;
pub mod vitis;
