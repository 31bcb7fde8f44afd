//! The Verilator backend: the exported `rhdl_ubft` Verilog, compiled by
//! Verilator into a shared library and driven through the same
//! [`KernelBackend`] interface as rust-hdl's simulator.
//!
//! On first use in a process, [`Library::get`] takes the Verilog of the
//! current Rust design (`rhdl_ubft::kernel::verilog`, renamed as
//! `cargo xtask verilog` does), reads its ports, generates a C++ harness
//! (`harness.rs`), runs `verilator --cc`, `make` and `g++ -shared`, and loads
//! the result with `libloading`. The build is cached under
//! `<target>/verilator/<hash>/`, the hash covering the Verilog, the harness,
//! the flags and Verilator's version, so a changed design is rebuilt and an
//! unchanged one loads at once. `UBFT_VERILATOR_DIR` overrides the cache
//! directory.
//!
//! Semantics match `rusthdl.rs`: `eval` drives the clock low with this
//! cycle's inputs and settles; `tick` is the rising edge. Ports map to
//! `KernelIn`/`KernelOut` fields by name (`portmap.rs`).

pub mod harness;
pub mod portmap;

use crate::ports::{KernelBackend, KernelIn, KernelOut};
use harness::{Port, TOP};
use portmap::PortMap;
use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// Verilator's flags (part of the cache key).
pub const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
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
/// C++ optimisation of the model (part of the cache key). -O3 and -O2
/// measured within noise of each other on the 3-replica cluster (446 k and
/// 429 k cycles/s).
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
type SetFn = unsafe extern "C" fn(*mut c_void, u32, *const u32);
type GetFn = unsafe extern "C" fn(*mut c_void, u32, *mut u32);
type SettleFn = unsafe extern "C" fn(*mut c_void);
type EvalFn = unsafe extern "C" fn(*mut c_void, *const u32, *mut u32);
type TickFn = unsafe extern "C" fn(*mut c_void);

/// A built and loaded model library, with its port table.
pub struct Library {
    _lib: libloading::Library,
    create: CreateFn,
    destroy: DestroyFn,
    set: SetFn,
    get: GetFn,
    settle: SettleFn,
    eval: EvalFn,
    tick: TickFn,
    /// The ports, in header order (the index `set`/`get` take).
    pub ports: Vec<Port>,
    pub map: PortMap,
    /// The shared library file.
    pub path: PathBuf,
}

// The library's functions are plain C functions over separate models.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

static LIBRARY: OnceLock<Result<Arc<Library>, String>> = OnceLock::new();
static BUILD_LOCK: Mutex<()> = Mutex::new(());

impl Library {
    /// The current design's library, built on first use (cached on disk).
    pub fn get() -> Result<Arc<Library>, String> {
        LIBRARY
            .get_or_init(|| Library::build(&kernel_verilog()).map(Arc::new))
            .clone()
    }

    /// Builds (or finds in the cache) and loads the library for `verilog`.
    pub fn build(verilog: &str) -> Result<Library, String> {
        let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let ports = harness::parse_ports(verilog, TOP)?;
        let map = PortMap::new(&ports)?;
        let cpp = harness::harness_cpp(&ports, TOP);
        let version = tool_output("verilator", &["--version"])?;
        let key = fnv1a(&[verilog, &cpp, &VERILATOR_FLAGS.join(" "), OPT, &version]);
        let dir = cache_dir().join(format!("{key:016x}"));
        let so = dir.join("libubft_model.so");
        if !so.exists() {
            compile(&dir, verilog, &cpp)?;
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
            // The library must describe the same ports (it is keyed by them,
            // but a stale or foreign file would show here).
            let n = count() as usize;
            let same = n == ports.len()
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
                settle: sym!(SettleFn, b"ubft_settle\0"),
                eval: sym!(EvalFn, b"ubft_eval\0"),
                tick: sym!(TickFn, b"ubft_tick\0"),
                _lib: lib,
                ports,
                map,
                path: so,
            })
        }
    }
}

/// FNV-1a over the parts (stable across Rust versions, unlike `Hash`).
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0xff]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// `$UBFT_VERILATOR_DIR`, else `<target dir>/verilator`: `$CARGO_TARGET_DIR`,
/// or the cargo target directory holding this executable (it has a
/// `CACHEDIR.TAG`), or the workspace's `target/`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("UBFT_VERILATOR_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return Path::new(&d).join("verilator");
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(t) = exe.ancestors().find(|a| a.join("CACHEDIR.TAG").exists()) {
            return t.join("verilator");
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/verilator")
}

fn tool_output(tool: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| missing(tool, e))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn missing(tool: &str, e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        format!(
            "`{tool}` not found: the Verilator backend needs Debian's verilator, g++ and make \
             (apt-get install verilator g++ make; .ci/run does it)"
        )
    } else {
        format!("{tool}: {e}")
    }
}

fn run(dir: &Path, tool: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| missing(tool, e))?;
    if !out.status.success() {
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::fs::write(dir.join("build-error.log"), &log);
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "`{tool} {}` failed in {}:\n{}",
            args.join(" "),
            dir.display(),
            tail.join("\n")
        ));
    }
    Ok(())
}

/// verilator --cc, make (the model and Verilator's runtime, -fPIC), then
/// g++ -shared with the harness; built in a scratch directory and renamed
/// into place, so concurrent builds cannot see half a library.
fn compile(dir: &Path, verilog: &str, cpp: &str) -> Result<(), String> {
    let parent = dir.parent().unwrap();
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let tmp = parent.join(format!(
        "{}.tmp{}",
        dir.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let w = |name: &str, text: &str| {
        std::fs::write(tmp.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    w("rhdl_ubft.v", verilog)?;
    w("harness.cpp", cpp)?;
    let prefix = format!("V{TOP}");
    let mut args: Vec<&str> = VERILATOR_FLAGS.to_vec();
    args.extend([
        "--top-module",
        TOP,
        "--prefix",
        &prefix,
        "-Mdir",
        "obj",
        "rhdl_ubft.v",
    ]);
    run(&tmp, "verilator", &args)?;
    let jobs = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .to_string();
    let cxx = format!("CXXFLAGS=-fPIC {OPT}");
    let opt = format!("OPT_FAST={OPT}");
    let mk = format!("{prefix}.mk");
    let all = format!("{prefix}__ALL.a");
    run(
        &tmp,
        "make",
        &[
            "-s",
            "-C",
            "obj",
            "-j",
            &jobs,
            "-f",
            &mk,
            &cxx,
            &opt,
            "OPT_SLOW=-O1",
            "OPT_GLOBAL=-O2",
            &all,
            "verilated.o",
            "verilated_threads.o",
        ],
    )?;
    let include = tool_output("verilator", &["--getenv", "VERILATOR_ROOT"])? + "/include";
    let vltstd = format!("{include}/vltstd");
    let inc1 = format!("-I{include}");
    let inc2 = format!("-I{vltstd}");
    let all_path = format!("obj/{all}");
    run(
        &tmp,
        "g++",
        &[
            "-shared",
            "-fPIC",
            OPT,
            "-std=c++17",
            &inc1,
            &inc2,
            "-Iobj",
            "-o",
            "libubft_model.so",
            "harness.cpp",
            "-Wl,--whole-archive",
            &all_path,
            "-Wl,--no-whole-archive",
            "obj/verilated.o",
            "obj/verilated_threads.o",
            "-pthread",
            "-latomic",
        ],
    )?;
    match std::fs::rename(&tmp, dir) {
        Ok(()) => Ok(()),
        // Another process finished the same build first.
        Err(_) if dir.join("libubft_model.so").exists() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        }
        Err(e) => Err(format!("{} -> {}: {e}", tmp.display(), dir.display())),
    }
}

/// One kernel: a Verilated `rhdl_ubft` model.
pub struct VerilatorKernel {
    lib: Arc<Library>,
    model: *mut c_void,
    inbuf: Vec<u32>,
    outbuf: Vec<u32>,
}

impl VerilatorKernel {
    /// A kernel of the current design (builds the library on first use).
    pub fn new() -> Result<VerilatorKernel, String> {
        Ok(Self::with_library(Library::get()?))
    }

    pub fn with_library(lib: Arc<Library>) -> VerilatorKernel {
        // SAFETY: `ubft_create` allocates a model owned by this value.
        let model = unsafe { (lib.create)() };
        let inbuf = vec![0; lib.map.in_words.max(1)];
        let outbuf = vec![0; lib.map.out_words.max(1)];
        VerilatorKernel {
            lib,
            model,
            inbuf,
            outbuf,
        }
    }

    /// The raw port buffers after the last `eval`: (inputs, outputs), packed
    /// in header order as `PortMap` lays them out.
    pub fn port_words(&self) -> (&[u32], &[u32]) {
        (&self.inbuf, &self.outbuf)
    }

    pub fn library(&self) -> &Arc<Library> {
        &self.lib
    }

    /// Port `i` (header order, as in `Library::ports`) set from words.
    pub fn set_port(&mut self, i: usize, words: &[u32]) {
        assert!(self.lib.ports[i].input && words.len() >= self.lib.ports[i].words());
        unsafe { (self.lib.set)(self.model, i as u32, words.as_ptr()) }
    }

    /// Port `i` (header order) as words.
    pub fn get_port(&mut self, i: usize) -> Vec<u32> {
        let mut w = vec![0; self.lib.ports[i].words()];
        unsafe { (self.lib.get)(self.model, i as u32, w.as_mut_ptr()) };
        w
    }

    /// Settles the logic as the ports are now (no clock change).
    pub fn settle(&mut self) {
        unsafe { (self.lib.settle)(self.model) }
    }
}

impl Drop for VerilatorKernel {
    fn drop(&mut self) {
        unsafe { (self.lib.destroy)(self.model) }
    }
}

impl KernelBackend for VerilatorKernel {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        self.lib.map.encode_in(inp, &mut self.inbuf);
        // SAFETY: the buffers are as long as the packed layouts the harness
        // was generated for (the library's port table was checked on load).
        unsafe { (self.lib.eval)(self.model, self.inbuf.as_ptr(), self.outbuf.as_mut_ptr()) };
        self.lib.map.decode_out(&self.outbuf)
    }

    fn tick(&mut self) {
        unsafe { (self.lib.tick)(self.model) }
    }

    fn name(&self) -> &'static str {
        "verilator"
    }
}

/// Cluster cycles per wall-clock second of a fast-path run of `replicas`
/// kernels on `backend` for at most `cycles` cycles (quick latencies: net 40,
/// HBM read 12, write 6). Returns (cycles run, cycles per second).
pub fn measure_speed(
    backend: crate::backend::Backend,
    replicas: usize,
    cycles: u64,
) -> Result<(u64, f64), String> {
    use crate::cluster::{Cluster, ClusterConfig};
    let cfg = ClusterConfig {
        net_latency: 40,
        hbm_read_latency: 12,
        hbm_write_latency: 6,
        wait_polls: 64,
        max_cycles: cycles,
        ..ClusterConfig::new(replicas, 1_000_000)
    };
    let kernels = crate::backend::kernels(backend, replicas)?;
    let mut c = Cluster::with_kernels(cfg, kernels);
    let t = std::time::Instant::now();
    while c.cycle < cycles {
        c.step().map_err(|e| e.to_string())?;
    }
    Ok((c.cycle, c.cycle as f64 / t.elapsed().as_secs_f64()))
}
