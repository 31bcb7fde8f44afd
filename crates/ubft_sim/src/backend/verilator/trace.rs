//! Waveforms: one VCD per replica of a cluster run on Verilator.
//!
//! The kernels of a traced run come from [`Library::traced`], the kernel's
//! Verilog built with Verilator's `--trace` and cached apart from the
//! normal library (`trace-<hash>` in the cache directory), so a run without
//! waveforms loads the normal one and keeps its speed. Each model writes
//! its own VCD (`VerilatedVcdC`) with every signal of the design: the
//! shell's `i_*`/`o_*` ports, and under `ubft_shell.kernel` every kernel
//! port and every register and wire of the flattened design, each
//! machine's `state` register among them.
//!
//! Time: cycle c (as the cluster counts them, from 0) is dumped at time
//! 10c, the clock's rising edge with cycle c's inputs settled (what the
//! models see in cycle c: a decision whose `cycle` is c shows
//! `m_axis_dec_tvalid` high from 10c), and at 10c + 5, the clock low. Only
//! the cycles of the window are dumped (`from..=to`); a window keeps a long
//! run's files small.
//!
//! rust-hdl's simulator has no per-kernel waveform writer behind the
//! cluster's `KernelBackend` interface (its VCD probe runs with its own
//! testbench loop), so `--waves` needs the Verilator backend.

use super::{Library, VerilatorKernel};
use crate::cluster::Cluster;
use crate::ports::KernelBackend;
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// Cycles to dump, both ends included: the timeline's window type.
pub use crate::timeline::Window;

impl VerilatorKernel {
    /// Writes this model's VCD to `path`, the cycles of `window` (counted
    /// from its first `eval`). Needs a kernel of the traced library.
    pub fn trace(&mut self, path: &Path, window: Window) -> Result<(), String> {
        let Some((open, _)) = self.lib.trace else {
            return Err(
                "a kernel of the normal library cannot trace: use Library::traced()".into(),
            );
        };
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| format!("{}: a path with a NUL", path.display()))?;
        // SAFETY: the model is this value's; the harness copies the path.
        match unsafe { open(self.model, c.as_ptr(), window.from, window.to) } {
            0 => Ok(()),
            _ => Err(format!("{}: could not open the VCD", path.display())),
        }
    }

    /// Flushes and closes the VCD (dropping the kernel does too).
    pub fn close_trace(&mut self) {
        if let Some((_, close)) = self.lib.trace {
            // SAFETY: as `trace`.
            unsafe { close(self.model) }
        }
    }
}

/// The VCD of replica r in `dir`.
pub fn wave_path(dir: &Path, r: usize) -> PathBuf {
    dir.join(format!("replica{r}.vcd"))
}

/// Gives `cluster`, not yet stepped, traced Verilator kernels in place of
/// its own, each writing `dir/replica<r>.vcd` for the cycles of `window`;
/// returns the files. They are complete once the cluster is dropped.
pub fn trace_cluster(
    cluster: &mut Cluster,
    dir: &Path,
    window: Window,
) -> Result<Vec<PathBuf>, String> {
    if cluster.cycle != 0 {
        return Err("waveforms start with the run: the cluster has already stepped".into());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let lib = Library::traced()?;
    let mut paths = vec![];
    for (r, k) in cluster.kernels.iter_mut().enumerate() {
        let mut traced = VerilatorKernel::with_library(lib.clone());
        let path = wave_path(dir, r);
        traced.trace(&path, window)?;
        *k = Box::new(traced) as Box<dyn KernelBackend>;
        paths.push(path);
    }
    Ok(paths)
}
