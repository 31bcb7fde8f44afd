//! rhdl_ubft: uBFT's consensus controller as an FPGA kernel, in rust-hdl.
//!
//! The crate is laid out by role (docs/architecture.md):
//! - [`kernel`]: the Vitis RTL kernel's top, wiring only;
//! - [`controller`]: the consensus controller: [`controller::protocol`]
//!   coordinates the four machines (LEADER, FAST, SLOW, VIEW) and the
//!   blocks they share;
//! - [`io`]: the kernel's ports to the host, HBM, the RoCE v2 stack and the
//!   signer service;
//! - [`guard`]: the slot guard on the receive path, and [`local_guard`]
//!   its rule on the kernel's own HBM writes;
//! - [`layout`]: the HBM mailbox and its records, and the seed's v1 table;
//! - [`params`] and [`regs`]: the numbers and the register table;
//! - [`vitis`]: the card flow's kernel description.
/// A block's constructor: the fields given with a value get it, and the
/// fields listed after `defaults:` (ports, locals, registers, child blocks)
/// get `Default::default()`. The compiler still checks that every field
/// is given exactly once.
macro_rules! block {
    ($ty:ident { $($f:ident: $v:expr),* $(,)? ; defaults: $($d:ident),* $(,)? }) => {
        $ty { $($f: $v,)* $($d: Default::default(),)* }
    };
}

pub mod controller;
pub mod guard;
pub mod io;
pub mod kernel;
pub mod layout;
pub mod local_guard;
pub mod params;
pub mod regs;
pub mod vitis;
