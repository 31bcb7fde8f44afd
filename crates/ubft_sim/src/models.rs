//! The models of what surrounds a kernel on its card.
pub mod client;
pub mod hbm;
pub mod host;
pub mod network;
pub mod signer;
