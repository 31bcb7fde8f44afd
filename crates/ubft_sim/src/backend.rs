//! Backends by name: which simulator runs the kernels of a cluster.

pub mod lockstep;
pub mod rust_hdl;
pub mod verilator;

use crate::backend::rust_hdl::RustHdlKernel;
use crate::backend::verilator::{Library, VerilatorKernel};
use crate::cluster::{Cluster, ClusterConfig, RunReport, SimError};
use crate::ports::KernelBackend;
use rhdl_ubft::params::N as BUILD_N;
use std::fmt;
use std::str::FromStr;

/// A kernel simulator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// rust-hdl's own simulator (`rusthdl.rs`).
    RustHdl,
    /// The exported Verilog under Verilator (`verilator.rs`).
    Verilator,
}

impl Backend {
    /// The CLI's and scenarios' default: the exported Verilog under
    /// Verilator, about 300 times faster than rust-hdl's simulator and equal
    /// to it cycle for cycle (tests/differential.rs).
    pub const DEFAULT: Backend = Backend::Verilator;

    pub fn name(self) -> &'static str {
        match self {
            Backend::RustHdl => "rust-hdl",
            Backend::Verilator => "verilator",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rust-hdl" | "rusthdl" => Ok(Backend::RustHdl),
            "verilator" => Ok(Backend::Verilator),
            _ => Err(format!(
                "unknown backend {s:?}: expected rust-hdl or verilator"
            )),
        }
    }
}

/// `n` kernels of the default build (`Kernel<BUILD_N>`) on `backend`.
pub fn kernels(backend: Backend, n: usize) -> Result<Vec<Box<dyn KernelBackend>>, String> {
    Ok(match backend {
        Backend::RustHdl => (0..n)
            .map(|_| Box::new(RustHdlKernel::<BUILD_N>::new()) as Box<dyn KernelBackend>)
            .collect(),
        Backend::Verilator => {
            let lib = Library::get()?;
            (0..n)
                .map(|_| {
                    Box::new(VerilatorKernel::with_library(lib.clone())) as Box<dyn KernelBackend>
                })
                .collect()
        }
    })
}

/// Why a run on a chosen backend could not be made.
#[derive(Debug)]
pub enum RunError {
    /// The configuration or the run.
    Sim(SimError),
    /// The backend could not be built or loaded.
    Backend(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Sim(e) => e.fmt(f),
            RunError::Backend(e) => write!(f, "backend: {e}"),
        }
    }
}

/// A cluster of `cfg` on `backend`.
pub fn cluster(cfg: &ClusterConfig, backend: Backend) -> Result<Cluster, RunError> {
    cfg.validate().map_err(RunError::Sim)?;
    let k = kernels(backend, cfg.replicas).map_err(RunError::Backend)?;
    Ok(Cluster::with_kernels(cfg.clone(), k))
}

/// Builds and runs a cluster on `backend`.
pub fn run(cfg: &ClusterConfig, backend: Backend) -> Result<RunReport, RunError> {
    cluster(cfg, backend)?.run().map_err(RunError::Sim)
}
