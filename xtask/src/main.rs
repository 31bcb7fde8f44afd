//! Project chores, run as `cargo xtask <command>` (alias in .cargo/config.toml).
//!
//! - `verilog [--check]`: writes `rtl/rhdl_ubft.v` (the kernel) and `rtl/README.md` from the
//!   Rust source.
//! - `docs [--check]`: writes `docs/layout.md` (`rhdl_ubft::layout`) and `docs/registers.md` (`rhdl_ubft::regs`).
//! - `vivado [--check] [--target xo|xclbin|hw_emu]`: writes vivado/kernel.xml,
//!   package_kernel.tcl and rhdl_ubft_regs.h from `rhdl_ubft::{regs,vitis}`,
//!   checks them (tclsh, xmllint), runs the Vitis flow if vivado and v++ exist.
//! - `synth [--n 3,5,8] [--no-flatten] [--block guard|watch|compose|rdmux|rx_status|cert_check|kernel]`: Yosys resource estimate and
//!   logic depth, docs/resources.md (the shipped v3 kernel, or one block alone in its own section).
//! - `testbench [--check] [--run] [--sim S] [--backend B]`: self-checking testbenches of
//!   recorded cluster runs in `rtl/tb/` (`ubft_sim::testbench`); `--run` replays them
//!   under Verilator, or Icarus with `--sim icarus`.
//! - `soak --runs N [--seed S] [--max-cycles C] [--jobs J]`: N random
//!   Byzantine scenarios (`ubft_sim::scenario::Scenario::random`) on Verilator; prints the count
//!   and every failing seed with its scenario
//!   as TOML (docs/scenarios.md).
//! - `model [--design kernel|recovery|current|...] [--replicas N] [--slots S] [--views V]
//!   [--max-memory-gb M] [--json]`: checks a design of the protocol over every
//!   interleaving (crates/ubft_model, docs/model.md); exit status 1 when a property
//!   fails, 2 when it cannot run, 3 when the memory cap or `--max-seconds` stopped it.
//! - `lint [--block guard|watch|compose|rdmux|rx_status|cert_check|kernel]`: Verilator `-Wall` (waivers in `rtl/lint_waivers.vlt`)
//!   and the Yosys checks of rust-hdl's `yosys_validate` on `rtl/rhdl_ubft.v`,
//!   or on one block's Verilog alone (generated into `target/lint/`).
//!
//! Generated files are committed; `--check` regenerates them in memory and
//! fails when the committed copy is stale or missing (CI runs it via `.ci/run`).

mod hw;
mod testbench;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Result<T = ()> = std::result::Result<T, String>;

#[derive(Parser)]
#[command(about = "rhdl_ubft project tasks")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write rtl/rhdl_ubft.v and rtl/README.md (generated Verilog of the kernel).
    Verilog {
        /// Fail if the files on disk differ from what would be generated.
        #[arg(long)]
        check: bool,
    },
    /// Lint rtl/rhdl_ubft.v with Verilator (-Wall) and Yosys.
    Lint {
        /// Lint this block's Verilog alone instead (`guard`, `watch`, `compose`, `rdmux`, `rx_status`,
        /// `cert_check`, `kernel`), written to
        /// target/lint/ for the build's N.
        #[arg(long)]
        block: Option<String>,
    },
    /// Print the benchmark: decision latency in cycles against the bounds,
    /// and simulation speed.
    Bench {
        /// Slots per run.
        #[arg(long, default_value_t = 20)]
        slots: u64,
        /// Skip the yosys resource estimate.
        #[arg(long)]
        no_synth: bool,
        /// Measure the latencies only and fail if docs/performance.md's
        /// table of them differs (writes nothing, measures no speed).
        #[arg(long)]
        check: bool,
    },
    /// Record the standard scenarios and write self-checking testbenches of
    /// the RTL into rtl/tb/ (docs/testbench.md); --run replays them.
    Testbench {
        /// Fail if rtl/tb/ differs from what would be written (writes nothing there).
        #[arg(long)]
        check: bool,
        /// Also run each testbench on rtl/rhdl_ubft.v.
        #[arg(long)]
        run: bool,
        /// The simulators of --run, comma-separated: verilator (the one on
        /// PATH, or the pinned one installed on first use) and icarus
        /// (iverilog/vvp on PATH).
        #[arg(long, value_delimiter = ',', default_value = "verilator")]
        sim: Vec<String>,
        /// The backend that records the expected values: rust-hdl or verilator.
        #[arg(long, default_value = "rust-hdl")]
        backend: String,
    },
    /// Write (or --check) vivado/kernel.xml, package_kernel.tcl and
    /// rhdl_ubft_regs.h from the register table, check them with the open
    /// tools, and run `make -C vivado <target>` when vivado and v++ are on
    /// PATH (otherwise print what it would run and exit 0: "skipped").
    Vivado {
        /// Only check that the generated files are up to date (no flow).
        #[arg(long)]
        check: bool,
        /// The Makefile target: xo, xclbin or hw_emu.
        #[arg(long, default_value = "xclbin")]
        target: String,
    },
    /// Yosys synth_xilinx (UltraScale+) of the shipped kernel (v3) for each
    /// N: a LUT/FF table and each block's logic depth, written to
    /// docs/resources.md (estimates, not Vivado).
    Synth {
        /// Builds to synthesize (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "3,5,8")]
        n: Vec<usize>,
        /// Synthesize hierarchically (no -flatten).
        #[arg(long)]
        no_flatten: bool,
        /// Synthesize this block alone instead of the kernel (`guard`, `watch`, `compose`, `rdmux`, `rx_status`,
        /// `cert_check`, `kernel`); its
        /// table goes into its own section of docs/resources.md.
        #[arg(long)]
        block: Option<String>,
    },
    /// Run N random Byzantine scenarios on Verilator and print every failing
    /// seed with its scenario as TOML (replay: rhdl-ubft simulate --scenario).
    Soak {
        /// How many scenarios.
        #[arg(long, default_value_t = 100)]
        runs: u64,
        /// The first scenario's seed; run i uses seed + i.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Cycle budget of each run, at least (a run gets the larger of this
        /// and its scenario's `Scenario::sized_budget`); it also places the
        /// silent faults in time.
        #[arg(long, default_value_t = 40_000)]
        max_cycles: u64,
        /// Runs at once (threads).
        #[arg(long, default_value_t = 2)]
        jobs: usize,
    },
    /// Check a design of the protocol over every interleaving (stateright;
    /// docs/model.md). The default checks the kernel's design at n = 3, one
    /// slot, views 0..=1, up to f = 1 replica silent from any point and one
    /// write the network holds back (run (iii) of docs/model.md): complete
    /// in minutes within a few GB. Bigger configurations (--slots 2
    /// --views 2, more --delays, --early-timeouts, a --byzantine replica,
    /// --replicas 5; docs/model.md, "Running it") print progress and stop
    /// cleanly at --max-memory-gb (or --max-seconds). Exit status 0: every
    /// property holds; 1: one fails; 2: the check cannot run; 3: stopped at
    /// the memory cap or the time budget with no property failing in the
    /// part explored.
    Model {
        /// The design: kernel (the design the RTL builds: recovery.md with
        /// its D11.9 departures; formerly recovery:rtl, still accepted),
        /// recovery (docs/recovery.md as written), current (the all-n design,
        /// the documented counterexample: every path waits for all n
        /// replicas), current:no_r26, current:no_requests, or a variant of
        /// recovery (recovery:no_bridge, recovery:cert_f, recovery:decide_f,
        /// recovery:no_cross_check, recovery:w_bridge, recovery:close_in_view,
        /// recovery:late_share, recovery:no_remote_read, kernel:no_help (the
        /// kernel without the decider's share), kernel:help,
        /// ...; docs/model.md lists them; also spelt recovery-no-bridge, ...).
        #[arg(long, default_value = ubft_model::defaults::DESIGN)]
        design: String,
        /// n = 2f + 1 replicas.
        #[arg(long, default_value_t = ubft_model::defaults::REPLICAS)]
        replicas: usize,
        /// Slots every live honest replica must decide.
        #[arg(long, default_value_t = ubft_model::defaults::SLOTS)]
        slots: usize,
        /// The highest view (views 0..=V).
        #[arg(long, default_value_t = ubft_model::defaults::VIEWS)]
        views: u8,
        /// The model's window G (slot = (k - 1) mod G; G < slots wraps).
        #[arg(long, default_value_t = ubft_model::defaults::WINDOW)]
        window: usize,
        /// Client values, at least --slots (a leader proposes each value
        /// once) [default: the larger of 2 and --slots].
        #[arg(long)]
        values: Option<u8>,
        /// A leader may propose any client value (default: its stream's one).
        #[arg(long)]
        any_value: bool,
        /// At most this many replicas fall silent (default f, less the Byzantine one).
        #[arg(long)]
        silent: Option<usize>,
        /// The Byzantine replica's id.
        #[arg(long)]
        byzantine: Option<usize>,
        /// Writes the Byzantine replica may make.
        #[arg(long, default_value_t = 4)]
        byz_writes: u8,
        /// Timeouts that may fire while something else can still happen.
        #[arg(long, default_value_t = ubft_model::defaults::EARLY_TIMEOUTS)]
        early_timeouts: u8,
        /// Writes the network may hold back.
        #[arg(long, default_value_t = ubft_model::defaults::DELAYS)]
        delays: u8,
        /// The bridge's reach in slots (`kernel`: a catch-up that would
        /// leave an open obligation's W further below k is not taken,
        /// recovery.md D11.16; the RTL's is 7).
        #[arg(long, default_value_t = ubft_model::defaults::REACH)]
        reach: usize,
        /// Restarts: at most this many times a live honest replica restarts
        /// at any point (its state lost, its mailbox cleared) and rejoins
        /// from a checkpoint certificate (recovery.md section 17; `recovery`
        /// and `kernel` only; at most two slots, no Byzantine replica).
        #[arg(long, default_value_t = 0)]
        restarts: u8,
        /// With --restarts: a checkpoint after every C-th slot.
        #[arg(long, default_value_t = 1)]
        ckpt_every: usize,
        /// With --restarts: leave out rules of the rejoin, to see what each
        /// guards against (comma-separated: floor, copy, fence, fresh).
        #[arg(long, value_delimiter = ',')]
        rejoin_without: Vec<String>,
        /// Views after GST without a decision that count as a liveness failure
        /// (default f + 2).
        #[arg(long)]
        live_views: Option<u8>,
        /// Checker threads.
        #[arg(long, default_value_t = ubft_model::defaults::THREADS)]
        threads: usize,
        /// Stop after this many generated states (0: no limit).
        #[arg(long, default_value_t = 0)]
        max_states: usize,
        /// Explore no deeper than this many actions (0: no limit).
        #[arg(long, default_value_t = 0)]
        max_depth: usize,
        /// Depth-first (less memory; counterexamples not the shortest).
        #[arg(long)]
        dfs: bool,
        /// Partial-order reduction: explore a persistent set of each state's
        /// actions (sound for the four properties; docs/model.md).
        #[arg(long)]
        por: bool,
        /// Stop cleanly once the process's resident memory passes this many
        /// GB (0: no cap); the report then says what was explored, and the
        /// exit status is 3 unless a property failed.
        #[arg(long, default_value_t = ubft_model::defaults::MAX_MEMORY_GB)]
        max_memory_gb: f64,
        /// Seconds between progress lines on stderr (states checked,
        /// states/s, resident memory); 0: none.
        #[arg(long, default_value_t = ubft_model::defaults::PROGRESS_SECONDS)]
        progress: u64,
        /// Stop cleanly after this many seconds (0: no budget), as at the
        /// memory cap (exit status 3 unless a property failed).
        #[arg(long, default_value_t = 0)]
        max_seconds: u64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write docs/layout.md and docs/registers.md (generated pages).
    Docs {
        /// Fail if the file on disk differs from what would be generated.
        #[arg(long)]
        check: bool,
    },
}

const TOP: &str = "rhdl_ubft";
/// The kernel the card runs (`rhdl_ubft::kernel::verilog`).
const VERILOG: &str = "rtl/rhdl_ubft.v";
const WAIVERS: &str = "rtl/lint_waivers.vlt";

fn main() -> ExitCode {
    let result = match Cli::parse().cmd {
        Cmd::Model {
            design,
            replicas,
            slots,
            views,
            window,
            values,
            any_value,
            silent,
            byzantine,
            byz_writes,
            early_timeouts,
            delays,
            reach,
            restarts,
            ckpt_every,
            rejoin_without,
            live_views,
            threads,
            max_states,
            max_depth,
            dfs,
            por,
            max_memory_gb,
            progress,
            max_seconds,
            json,
        } => {
            return model(ModelArgs {
                design,
                replicas,
                slots,
                views,
                window,
                values,
                any_value,
                silent,
                byzantine,
                byz_writes,
                early_timeouts,
                delays,
                reach,
                restarts,
                ckpt_every,
                rejoin_without,
                live_views,
                threads,
                max_states,
                max_depth,
                dfs,
                por,
                max_memory_gb,
                progress,
                max_seconds,
                json,
            })
        }
        Cmd::Verilog { check } => verilog(check),
        Cmd::Lint { block } => lint(block.as_deref()),
        Cmd::Docs { check } => docs(check),
        Cmd::Bench {
            slots,
            no_synth,
            check,
        } => bench(slots, !no_synth && !check, check),
        Cmd::Testbench {
            check,
            run,
            sim,
            backend,
        } => testbench::testbench(&root(), check, run, &sim, &backend),
        Cmd::Vivado { check, target } => hw::vivado(check, &target),
        Cmd::Synth {
            n,
            no_flatten,
            block,
        } => hw::synth(&n, !no_flatten, block.as_deref()),
        Cmd::Soak {
            runs,
            seed,
            max_cycles,
            jobs,
        } => soak(runs, seed, max_cycles, jobs),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes `content` to `rel` (relative to the repo root), or with `check`
/// compares and fails naming the stale file and the command that fixes it.
fn write_or_check(rel: &str, content: &str, check: bool, fix: &str) -> Result {
    let path = root().join(rel);
    let current = std::fs::read_to_string(&path).ok();
    if check {
        return match current {
            Some(c) if c == content => {
                println!("{rel}: up to date");
                Ok(())
            }
            Some(_) => Err(format!("{rel} is stale; run `{fix}` and commit it")),
            None => Err(format!("{rel} is missing; run `{fix}` and commit it")),
        };
    }
    if current.as_deref() == Some(content) {
        println!("{rel}: unchanged");
        return Ok(());
    }
    std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| format!("{rel}: {e}"))?;
    std::fs::write(&path, content).map_err(|e| format!("{rel}: {e}"))?;
    println!("{rel}: written");
    Ok(())
}

fn verilog(check: bool) -> Result {
    // rust-hdl names every submodule `top$<path>`; a unique prefix keeps them
    // from clashing with other RTL in a Vivado project.
    let v = ubft_sim::backend::verilator::kernel_verilog();
    let modules = v.lines().filter(|l| l.starts_with("module ")).count();
    write_or_check(VERILOG, &v, check, "cargo xtask verilog")?;
    write_or_check(
        "rtl/README.md",
        &rtl_readme(modules),
        check,
        "cargo xtask verilog",
    )
}

fn rtl_readme(modules: usize) -> String {
    let n = rhdl_ubft::params::N;
    format!(
        "<!-- generated by `cargo xtask verilog`; do not edit -->\n\
# rtl/\n\n\
Generated Verilog of the `rhdl_ubft` kernel (rust-hdl 0.46 export of `crates/rhdl_ubft`). \
Do not edit: change the Rust source, then run `cargo xtask verilog` and commit the result. \
CI runs `cargo xtask verilog --check`, which fails when these files are stale.\n\n\
- `rhdl_ubft.v`: the whole kernel for N = {n} (`rhdl_ubft::params::N`), {modules} modules in one file. \
The top module is `rhdl_ubft`; every submodule is named `rhdl_ubft$<instance path>` \
(rust-hdl emits one module per instance). The fast path, the f + 1 slow path and the view change \
(docs/recovery.md); the card flow packages it (`vivado/`) and the simulator runs it.\n\
- `tb/`: self-checking testbenches of recorded cluster runs (`cargo xtask testbench`, docs/testbench.md).\n\
- `lint_waivers.vlt`: Verilator waivers used by `cargo xtask lint`, one reason per rule (hand-written).\n\n\
`cargo xtask lint` runs `verilator --lint-only -Wall` with the waivers and the Yosys checks of \
rust-hdl's `yosys_validate` (no latches, undriven or implicit wires, or duplicate modules).\n"
    )
}

fn docs(check: bool) -> Result {
    write_or_check(
        "docs/layout.md",
        &rhdl_ubft::layout::markdown(),
        check,
        "cargo xtask docs",
    )?;
    write_or_check(
        "docs/registers.md",
        &rhdl_ubft::regs::markdown(),
        check,
        "cargo xtask docs",
    )
}

/// `path::<n>()` for a build of `n` replicas (1, 3, 5, 7 or 8), or the
/// error naming the builds: the blocks are generic over N.
macro_rules! at_n {
    ($n:expr, $($f:ident)::+) => {
        match $n {
            1 => $($f)::+::<1>(),
            3 => $($f)::+::<3>(),
            5 => $($f)::+::<5>(),
            7 => $($f)::+::<7>(),
            8 => $($f)::+::<8>(),
            n => return Err(format!("--n {n}: builds are 1, 3, 5, 7 and 8")),
        }
    };
}

/// The Verilog of a block linted or synthesized alone: (top module, text).
pub fn block_verilog(block: &str, n: usize) -> Result<(&'static str, String)> {
    match block {
        // The kernel's guard: it streams records past its two-beat buffer.
        "guard" => Ok(("rhdl_ubft_guard", at_n!(n, rhdl_ubft::guard::verilog))),
        // The v3 replica's background poller (recovery.md D3); in the
        // kernel on a Fetch of its own through RdMux, acting on R26.
        "watch" => Ok((
            "rhdl_ubft_watch",
            at_n!(n, rhdl_ubft::controller::watch::verilog),
        )),
        // The kernel (rtl/rhdl_ubft.v), linted or synthesized at another N.
        "kernel" => Ok((
            "rhdl_ubft",
            at_n!(n, rhdl_ubft::kernel::verilog).replace("top$", "rhdl_ubft$"),
        )),
        // The v3 record composer (recovery.md D5), in the kernel in front
        // of Broadcast; one size for every n.
        "compose" => Ok(("rhdl_ubft_compose", rhdl_ubft::io::compose::verilog())),
        // The read multiplexer (docs/rdmux.md): the controller's Fetch and
        // WATCH's onto m_axi_hbm's read channels; one size for every n.
        "rdmux" => Ok(("rhdl_ubft_rdmux", rhdl_ubft::io::rdmux::verilog())),
        // The write statuses for the stack's ACK (docs/rx_status.md); one
        // size for every n.
        "rx_status" => Ok((
            "rhdl_ubft_rx_status",
            rhdl_ubft::io::rx_status::verilog(),
        )),
        // The check of a certificate inside a peer's COMMIT (R24 from a
        // COMMIT, docs/cert_check.md); one size for every n.
        "cert_check" => Ok((
            "rhdl_ubft_cert_check",
            rhdl_ubft::controller::cert_check::verilog(),
        )),
        // The SHA-256 chain of the decisions (docs/chain.md), on the
        // decision stream; one size for every n.
        "chain" => Ok(("rhdl_ubft_chain", rhdl_ubft::controller::chain::verilog())),
        _ => Err(format!(
            "--block {block}: the blocks are: guard, watch, compose, rdmux, rx_status, cert_check, chain, kernel"
        )),
    }
}

fn lint(block: Option<&str>) -> Result {
    let (top, file) = match block {
        None => (TOP.to_string(), VERILOG.to_string()),
        Some(b) => {
            let (top, text) = block_verilog(b, rhdl_ubft::params::N)?;
            let rel = format!("target/lint/{top}.v");
            let path = root().join(&rel);
            std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&path, text).map_err(|e| format!("{rel}: {e}"))?;
            println!("{rel}: written ({b}, N = {})", rhdl_ubft::params::N);
            (top.to_string(), rel)
        }
    };
    let (top, file) = (top.as_str(), file.as_str());
    if !root().join(file).exists() {
        return Err(format!("{file} is missing; run `cargo xtask verilog`"));
    }
    // Glitch loops, which hang event-driven simulators (Icarus, XSim):
    // hdl_tools::glitch.
    let text = std::fs::read_to_string(root().join(file)).map_err(|e| format!("{file}: {e}"))?;
    let loops = hdl_tools::glitch::loops(&text).map_err(|e| format!("{file}: {e}"))?;
    if !loops.is_empty() {
        for l in &loops {
            eprint!("{l}");
        }
        return Err(format!(
            "{file}: {} glitch loop(s): assign one signal of each loop once on every path (if/else), not a default then an override",
            loops.len()
        ));
    }
    println!(
        "glitch loops (hdl_tools::glitch): none; an event-driven simulator settles every time step"
    );
    let verilator = hdl_tools::Verilator::get()?;
    let out = verilator
        .command()
        .args(["--lint-only", "-Wall", "--top-module", top, WAIVERS, file])
        .current_dir(root())
        .output()
        .map_err(|e| format!("verilator: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let errors = log.lines().filter(|l| l.starts_with("%Error")).count();
    let warnings = log.lines().filter(|l| l.starts_with("%Warning")).count();
    if errors + warnings > 0 || !out.status.success() {
        eprint!("{log}");
        return Err(format!(
            "{}: {errors} errors, {warnings} warnings not waived in {WAIVERS}",
            verilator.version
        ));
    }
    println!(
        "verilator -Wall ({}): OK (0 errors, 0 unwaived warnings; waivers in {WAIVERS})",
        verilator.version
    );

    // The checks of rust-hdl's `yosys_validate`, on the committed file.
    let yosys = hdl_tools::Yosys::get()?;
    let text = std::fs::read_to_string(root().join(file)).map_err(|e| e.to_string())?;
    yosys.check(&text, top, &root().join("target/yosys-lint"))?;
    println!(
        "yosys read/hierarchy/proc/flatten/check ({}): OK (no latches, undriven or implicit wires, duplicate modules, combinational loops or conflicting drivers)",
        yosys.version
    );
    Ok(())
}

/// Markers of the generated parts of docs/performance.md and docs/scenarios.md.
const PERF_DOC: &str = "docs/performance.md";
const BENCH_BEGIN: &str = "<!-- bench:begin -->";
const BENCH_END: &str = "<!-- bench:end -->";
const SPEED_BEGIN: &str = "<!-- bench-speed:begin -->";
const SPEED_END: &str = "<!-- bench-speed:end -->";
const SCEN_DOC: &str = "docs/scenarios.md";
const SOAK_BEGIN: &str = "<!-- soak:begin -->";
const SOAK_END: &str = "<!-- soak:end -->";

/// `text` with what lies between the lines `begin` and `end` replaced by
/// `body` (the markers kept); an error names the file and the marker missing.
fn between(text: &str, file: &str, begin: &str, end: &str, body: &str) -> Result<String> {
    let a = text
        .find(begin)
        .ok_or_else(|| format!("{file}: no `{begin}` marker"))?;
    let b = text[a..]
        .find(end)
        .map(|b| a + b)
        .ok_or_else(|| format!("{file}: no `{end}` after `{begin}`"))?;
    Ok(format!("{}{begin}\n{body}{}", &text[..a], &text[b..]))
}

/// Rewrites the part of `file` between `begin` and `end` (the file read
/// just before, so concurrent edits elsewhere in it are kept), or with
/// `check` fails when it differs.
fn write_between(file: &str, begin: &str, end: &str, body: &str, check: bool, fix: &str) -> Result {
    let text = std::fs::read_to_string(root().join(file)).map_err(|e| format!("{file}: {e}"))?;
    let new = between(&text, file, begin, end, body)?;
    if check && new != text {
        let at = text.find(begin).unwrap();
        let old = &text[at..at + text[at..].find(end).unwrap()];
        eprintln!("{file}, as committed:\n{old}\nas measured now:\n{begin}\n{body}");
    }
    write_or_check(file, &new, check, fix)
}

/// Thousands separators for a count, as the docs write them.
fn grouped(x: u64) -> String {
    let s = x.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `grouped` with one decimal: 1,330.0.
fn grouped1(x: f64) -> String {
    let s = format!("{x:.1}");
    let (int, frac) = s.split_once('.').unwrap();
    format!("{}.{frac}", grouped(int.parse().unwrap()))
}

/// The benchmark of DESIGN.md section 7: decision latency on the fast path,
/// the slow path and through a view change, for n = 3, 5, 7, against the
/// model's bounds and ubft_new's cost per slot; simulation speed. Prints the
/// tables and writes them into docs/performance.md between its markers:
/// the latencies (exact simulated cycles) between `bench:begin`/`bench:end`,
/// which `check` compares instead of writing (and then measures no speed),
/// and the simulation speed (wall clock, never checked) between
/// `bench-speed:begin`/`bench-speed:end`.
fn bench(slots: u64, synth: bool, check: bool) -> Result {
    use rhdl_ubft::params::defaults::{
        HBM_READ_LATENCY, KERNEL_MHZ, NET_LATENCY, SIGN_LATENCY, UBFT_NEW_CYCLES_PER_SLOT,
        UBFT_NEW_SIGN_CYCLES, UBFT_NEW_VERIFY_CYCLES, VERIFY_LATENCY,
    };
    use ubft_sim::backend::Backend;
    use ubft_sim::bench::{fast_bound, measure, wire_bound, Latency};
    use ubft_sim::cluster::{ClusterConfig, Path};
    let cmd = if slots == 20 {
        "cargo xtask bench".to_string()
    } else {
        format!("cargo xtask bench --slots {slots}")
    };
    let header = || {
        println!(
            "{:>3} {:>8} {:>6} {:>5} {:>8} {:>8} {:>8} {:>11} {:>8} {:>10} {:>12} {:>14}",
            "n",
            "mean",
            "max",
            "3L",
            "mean/3L",
            "max/3L",
            "3(L+H)",
            "mean/3(L+H)",
            "prepare",
            "will_cert",
            "will_commit",
            "ubft_new/mean"
        )
    };
    let row = |l: &Latency, wire: u64| {
        println!(
            "{:>3} {:>8.1} {:>6} {:>5} {:>8.3} {:>8.3} {:>8} {:>11.3} {:>8.1} {:>10.1} {:>12.1} {:>14.0}",
            l.replicas,
            l.mean,
            l.max,
            wire,
            l.mean / wire as f64,
            l.max as f64 / wire as f64,
            l.bound,
            l.mean / l.bound as f64,
            l.hops.prepare,
            l.hops.will_cert,
            l.hops.will_commit,
            UBFT_NEW_CYCLES_PER_SLOT as f64 / l.mean
        )
    };
    let md_head = "| n | mean | max | 3L | mean / 3L | max / 3L | 3 (L + H) | mean / 3 (L + H) | hop: prepare | hop: will_cert | hop: will_commit | ubft_new / mean |\n\
                   | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    let md_row = |l: &Latency, wire: u64| {
        format!(
            "| {} | {} | {} | {} | {:.3} | {:.3} | {} | {:.3} | {} | {} | {} | {} |\n",
            l.replicas,
            grouped1(l.mean),
            grouped(l.max),
            grouped(wire),
            l.mean / wire as f64,
            l.max as f64 / wire as f64,
            grouped(l.bound),
            l.mean / l.bound as f64,
            grouped1(l.hops.prepare),
            grouped1(l.hops.will_cert),
            grouped1(l.hops.will_commit),
            grouped((UBFT_NEW_CYCLES_PER_SLOT as f64 / l.mean).round() as u64)
        )
    };
    let mut md = format!(
        "<!-- written by `{cmd}` (`--check` compares); exact simulated cycles, do not edit -->\n\n"
    );
    println!(
        "Decision latency in simulated kernel cycles (exact and repeatable; Verilator backend,"
    );
    println!("which agrees cycle for cycle with rust-hdl's simulator: tests/differential.rs).");
    println!();
    println!("fast path, L = 300, H = 80, {slots} slots; against the wire, 3L, and the poll model's bound, 3 (L + H); the three hops at the last replica");
    md += &format!(
        "**Fast path**: L = {NET_LATENCY}, H = {HBM_READ_LATENCY}, {slots} slots; against the wire's three hops, 3L (`bench::wire_bound`), and the poll model's bound 3 (L + H) (`bench::fast_bound`). The hops (`bench::Hops`, means over the slots): from the proposal to the last replica's will_cert vote sent, from there to the last will_commit vote sent, from there to the last decision; each is one L on the wire and the rest in the kernels.\n\n{md_head}"
    );
    header();
    let per_sec = |l: &Latency| grouped((KERNEL_MHZ as f64 * 1e6 / l.mean).round() as u64);
    let mut fast = vec![];
    for n in [3, 5, 7] {
        let cfg = ClusterConfig::new(n, slots);
        let bound = fast_bound(&cfg);
        let wire = wire_bound(&cfg);
        let l = measure(cfg, Path::Fast, bound, Backend::Verilator).map_err(|e| e.to_string())?;
        row(&l, wire);
        md += &md_row(&l, wire);
        fast.push(l);
    }
    md += &format!(
        "\nThroughput at {KERNEL_MHZ} MHz, one slot at a time: {} fast decisions per second (n = 3), {} (n = 5), {} (n = 7).\n\n",
        per_sec(&fast[0]),
        per_sec(&fast[1]),
        per_sec(&fast[2]),
    );
    println!();
    // The guard alone under a flood of one-beat writes.
    let flood = 60;
    println!("guard: {flood} back-to-back one-beat writes from the n - 1 peers, HBM always ready");
    println!(
        "{:>3} {:>7} {:>7} {:>15} {:>16}",
        "n", "writes", "cycles", "writes/cycle", "cycles/write"
    );
    md += &format!(
        "**The guard's rate**: the kernel's guard alone (`bench::guard_rate`, rust-hdl's simulator), {flood} one-beat will_cert votes from the n − 1 peers in turn, each command and payload offered back to back, HBM always ready; cycles from the first command taken to the last vote's AXI beat.\n\n\
| n | writes | cycles | writes / cycle | cycles / write |\n\
| ---: | ---: | ---: | ---: | ---: |\n"
    );
    for n in [3, 5, 7] {
        let g = ubft_sim::bench::guard_rate(n, flood).map_err(|e| e.to_string())?;
        println!(
            "{:>3} {:>7} {:>7} {:>15.3} {:>16.2}",
            n,
            g.writes,
            g.cycles,
            g.per_cycle(),
            1.0 / g.per_cycle()
        );
        md += &format!(
            "| {} | {} | {} | {:.3} | {:.2} |\n",
            n,
            g.writes,
            g.cycles,
            g.per_cycle(),
            1.0 / g.per_cycle()
        );
    }
    md += "\n";
    println!();
    let outage_slots = 40;
    println!(
        "slow path, one replica off the fast path from the start (it writes no fast votes, or is silent), L = 300, H = 80, sign {SIGN_LATENCY}, verify {VERIFY_LATENCY}, wait 64 polls, {outage_slots} slots;"
    );
    println!(
        "latency from the proposal to the decision of a majority (the f + 1-th honest replica), and of the last honest replica"
    );
    println!(
        "slot 1 waits for fast votes: bound wait (H + 4) + 3 sign + (1 + c + f) verify + (5 + 2f) L + (3 + 4f) (H + 4) + f, c = f + 1 at n >= 5 (bench::slow_bound);"
    );
    println!(
        "the later slots skip the wait but at the probes (2, 4, 8, 16, 32), which wait half of it: bound without the wait (bench::sticky_bound)"
    );
    println!(
        "{:>6} {:>2} {:>7} {:>6} {:>6} {:>9} {:>9} {:>6} {:>9} {:>6} {:>10} {:>10} {:>9} {:>6}",
        "fault",
        "n",
        "slot 1",
        "bound",
        "ratio",
        "mean 2..",
        "skipped",
        "max",
        "last 2..",
        "bound",
        "mean/bound",
        "skip/bound",
        "interval",
        "dec/s"
    );
    md += &format!(
        "**Slow path**: one replica off the fast path from the start, the last: it writes no fast-path votes (`mute_fast`) or nothing (`silent`); L = {NET_LATENCY}, H = {HBM_READ_LATENCY}, sign {}, verify {}, wait 64 polls, {outage_slots} slots. A slot's latency runs from its proposal to its decision at a majority, the f + 1-th honest replica to decide (`bench::OutageLatency`). Slot 1 waits for the fast path's votes until its wait runs out, bound `bench::slow_bound`; the later slots skip that wait except the probes, slots 2, 4, 8, 16 and 32, which wait half of it (`protocol.md`, \"The sticky slow path\"), bound without the wait `bench::sticky_bound`. \"mean 2..\" is the mean over slots 2 to {outage_slots}, the probes included; \"skipped\" over the slots that skipped the wait; \"last 2..\" the mean over slots 2 to {outage_slots} at the last honest replica; \"interval\" the mean cycles from one proposal to the next, and decisions per second at {KERNEL_MHZ} MHz from it.\n\n\
| fault | n | slot 1 | bound | slot 1 / bound | mean 2.. | skipped: mean | skipped: max | last 2.. | bound without the wait | mean 2.. / bound | skipped / bound | interval | decisions / s |\n\
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        grouped(SIGN_LATENCY),
        grouped(VERIFY_LATENCY)
    );
    use ubft_sim::bench::{measure_outage, Outage};
    for (name, outage, n) in [
        ("mute", Outage::MuteFast, 3),
        ("mute", Outage::MuteFast, 5),
        ("mute", Outage::MuteFast, 7),
        ("silent", Outage::Silent, 3),
        ("silent", Outage::Silent, 5),
    ] {
        let cfg = ClusterConfig::new(n, outage_slots);
        let o = measure_outage(cfg, outage, Backend::Verilator).map_err(|e| e.to_string())?;
        let per_sec = (KERNEL_MHZ as f64 * 1e6 / o.interval).round() as u64;
        println!(
            "{name:>6} {n:>2} {:>7} {:>6} {:>6.3} {:>9.1} {:>9.1} {:>6} {:>9.1} {:>6} {:>10.3} {:>10.3} {:>9.1} {:>6}",
            o.first,
            o.first_bound,
            o.first as f64 / o.first_bound as f64,
            o.after_mean,
            o.skip_mean,
            o.skip_max,
            o.after_last,
            o.bound,
            o.after_mean / o.bound as f64,
            o.skip_mean / o.bound as f64,
            o.interval,
            per_sec
        );
        md += &format!(
            "| {} | {n} | {} | {} | {:.3} | {} | {} | {} | {} | {} | {:.3} | {:.3} | {} | {} |\n",
            if outage == Outage::MuteFast {
                "`mute_fast`"
            } else {
                "`silent`"
            },
            grouped(o.first),
            grouped(o.first_bound),
            o.first as f64 / o.first_bound as f64,
            grouped1(o.after_mean),
            grouped1(o.skip_mean),
            grouped(o.skip_max),
            grouped1(o.after_last),
            grouped(o.bound),
            o.after_mean / o.bound as f64,
            o.skip_mean / o.bound as f64,
            grouped1(o.interval),
            grouped(per_sec)
        );
    }
    println!(
        "ubft_new: at least {UBFT_NEW_CYCLES_PER_SLOT} cycles per slot ({UBFT_NEW_SIGN_CYCLES} signing + {UBFT_NEW_VERIFY_CYCLES} verifying, kernel stopped)"
    );
    md += &format!(
        "\nubft_new: at least {} cycles per slot ({} signing and {} verifying, the kernel stopped).\n\n",
        grouped(UBFT_NEW_CYCLES_PER_SLOT),
        grouped(UBFT_NEW_SIGN_CYCLES),
        grouped(UBFT_NEW_VERIFY_CYCLES)
    );
    println!();
    println!("recovery: the leader silent from the cycle after it decided slot 3 fast;");
    println!(
        "cycles to the first decision of slot 4 at the first and the last honest replica (the bridge,"
    );
    println!(
        "the SEALs, NEW_VIEW(1) with the carried slot, its rerun, then slot 4 on the slow path);"
    );
    println!(
        "the tests' links (L = 40, H = 12, sign 300, verify 500; 400,000 cycles at most) and the defaults"
    );
    println!(
        "(L = 300, H = 80, sign 2,000, verify 4,000; 2,000,000 cycles at most); wait 64 polls, 6 slots"
    );
    println!("bound: bench::recovery_bound (docs/performance.md, \"Recovery\")");
    println!(
        "{:>8} {:>3} {:>12} {:>8} {:>8} {:>7} {:>11} {:>10} {:>5} {:>8}",
        "links",
        "n",
        "silent from",
        "first",
        "last",
        "bound",
        "first/bound",
        "last/bound",
        "view",
        "behind"
    );
    md += "**Recovery**: the leader silent from the cycle after it decided slot 3 fast; cycles from the silence to slot 4's first decision at the first and the last honest replica; the tests' links (L = 40, H = 12, sign 300, verify 500) and the defaults (L = 300, H = 80, sign 2,000, verify 4,000); wait 64 polls, 6 slots; bound `bench::recovery_bound`.\n\n\
| links | n | silent from | first | last | bound | first / bound | last / bound | view | left behind |\n\
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
    let quick = |n| ClusterConfig {
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 400_000,
        ..ClusterConfig::quick(n, 6)
    };
    let default = |n| ClusterConfig {
        max_cycles: 2_000_000,
        ..ClusterConfig::new(n, 6)
    };
    let runs = [
        ("tests", quick(3)),
        ("tests", quick(5)),
        ("defaults", default(3)),
        ("defaults", default(5)),
    ];
    for (links, cfg) in runs {
        let cfg = ClusterConfig {
            wait_polls: 64,
            ..cfg
        };
        let r = ubft_sim::bench::measure_recovery(cfg, 3, Backend::Verilator)
            .map_err(|e| e.to_string())?;
        let last = r.last.map_or("-".to_string(), |l| l.to_string());
        let ratio = r.last.map_or("-".to_string(), |l| {
            format!("{:.3}", l as f64 / r.bound as f64)
        });
        println!(
            "{links:>8} {:>3} {:>12} {:>8} {:>8} {:>7} {:>11.3} {:>10} {:>5} {:>8}",
            r.replicas,
            r.silent_from,
            r.first,
            last,
            r.bound,
            r.first as f64 / r.bound as f64,
            ratio,
            r.view,
            format!("{:?}", r.behind)
        );
        md += &format!(
            "| {links} | {} | {} | {} | {} | {} | {:.3} | {ratio} | {} | {} |\n",
            r.replicas,
            grouped(r.silent_from),
            grouped(r.first),
            r.last.map_or("–".to_string(), grouped),
            grouped(r.bound),
            r.first as f64 / r.bound as f64,
            r.view,
            if r.behind.is_empty() {
                "–".to_string()
            } else {
                format!("{:?}", r.behind)
            }
        );
    }
    write_between(
        PERF_DOC,
        BENCH_BEGIN,
        BENCH_END,
        &md,
        check,
        "cargo xtask bench --no-synth",
    )?;
    if check {
        return Ok(());
    }
    println!();
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    let threads = cores.min(3);
    println!("simulation speed, whole-cluster cycles per wall-clock second (this machine, {cores} cores),");
    println!("on rust-hdl, and on Verilator on 1 and {threads} threads (Cluster::set_threads; the same run);");
    println!(
        "per CPU-second of the process (every thread), the same as wall on one thread when idle"
    );
    println!(
        "{:>3} {:>10} {:>11} {:>11} {:>11} {:>11} {:>7} {:>9}",
        "n",
        "rust-hdl",
        "verilator",
        "per CPU-s",
        format!("{threads} threads"),
        "per CPU-s",
        "speedup",
        "V/rusthdl"
    );
    let mut speed = format!(
        "<!-- written by `{cmd}`; wall clock on the machine that ran it ({cores} cores), never checked -->\n\n\
| n | rust-hdl | Verilator, 1 thread | per CPU-second | Verilator, {threads} threads | per CPU-second | speedup | Verilator / rust-hdl |\n\
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    );
    // rust-hdl's run is shorter: it simulates a few hundred cycles a second.
    use ubft_sim::backend::verilator::measure_speed;
    for n in [3, 5] {
        let (_, a, _) = measure_speed(Backend::RustHdl, n, 5_000, 1)?;
        let (_, b, cpu) = measure_speed(Backend::Verilator, n, 1_000_000, 1)?;
        let (_, p, pcpu) = measure_speed(Backend::Verilator, n, 1_000_000, threads)?;
        let f = |x: Option<f64>| x.map_or("-".to_string(), |r| format!("{r:.0}"));
        println!(
            "{n:>3} {a:>10.0} {b:>11.0} {:>11} {p:>11.0} {:>11} {:>7.2} {:>9.0}",
            f(cpu),
            f(pcpu),
            p / b,
            b / a
        );
        let g = |x: Option<f64>| x.map_or("–".to_string(), |r| grouped(r.round() as u64));
        speed += &format!(
            "| {n} | {} | {} | {} | {} | {} | {:.2} | {} |\n",
            grouped(a.round() as u64),
            grouped(b.round() as u64),
            g(cpu),
            grouped(p.round() as u64),
            g(pcpu),
            p / b,
            grouped((b / a).round() as u64)
        );
    }
    write_between(
        PERF_DOC,
        SPEED_BEGIN,
        SPEED_END,
        &speed,
        false,
        "cargo xtask bench --no-synth",
    )?;
    if synth {
        println!();
        println!(
            "resources of the default build (N = {}), yosys estimates:",
            rhdl_ubft::params::N
        );
        hw::synth_rows(&[rhdl_ubft::params::N], true)?;
    }
    Ok(())
}

/// How often `cargo xtask soak` prints its progress line.
const SOAK_PROGRESS: std::time::Duration = std::time::Duration::from_secs(5);
/// Short runs (an honest replica decided fewer than every slot) printed as
/// TOML after the soak; every one is listed by seed and reason.
const SOAK_SHORT_TOML: usize = 10;

/// How many times its budget a short soak run is replayed with.
const SOAK_REPLAY_BUDGETS: u64 = 16;

/// Why a soak run fell short, from two replays with the kernels running
/// open-ended (no slot limit, `Scenario::open_ended`), as deployed, and
/// clients that offer the run's requests and then go quiet
/// (`Scenario::requests` = `slots`), so that no later slot is proposed:
/// - "the run's end": open-ended, within the same budget, every honest
///   replica decides every slot. The replicas that had decided the last
///   slot stopped, and one behind needed them (recovery.md, "The run's
///   end");
/// - "slow": open-ended, every slot is decided within
///   `SOAK_REPLAY_BUDGETS` times the budget (the factor is given);
/// - "stalled": open-ended, still short at that budget.
fn short_cause(s: &ubft_sim::scenario::Scenario) -> String {
    use ubft_sim::backend::Backend;
    let mut open = s.clone();
    open.open_ended = true;
    open.requests = s.slots;
    let all_decided = |r: &ubft_sim::cluster::RunReport| {
        r.checks.ok() && r.live().all(|h| h.decided.len() as u64 >= s.slots)
    };
    match open.run(Backend::Verilator) {
        Ok(r) if all_decided(&r) => return "the run's end".into(),
        Ok(r) if !r.checks.ok() => {
            return format!("open-ended replay FAILED: {}", r.checks.failures.join("; "))
        }
        Err(e) => return format!("open-ended replay could not run: {e}"),
        Ok(_) => {}
    }
    open.max_cycles = s.max_cycles * SOAK_REPLAY_BUDGETS;
    match open.run(Backend::Verilator) {
        Ok(r) if all_decided(&r) => format!(
            "slow: every slot at {:.1} × the budget",
            r.cycles as f64 / s.max_cycles.max(1) as f64
        ),
        Ok(r) if !r.checks.ok() => {
            format!("open-ended replay FAILED: {}", r.checks.failures.join("; "))
        }
        Ok(_) => format!("stalled: short at {SOAK_REPLAY_BUDGETS} × the budget"),
        Err(e) => format!("open-ended replay could not run: {e}"),
    }
}

/// `cargo xtask soak`: `runs` random scenarios from `seed` on Verilator.
fn soak(runs: u64, seed: u64, max_cycles: u64, jobs: usize) -> Result {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;
    use ubft_sim::backend::Backend;
    use ubft_sim::scenario::Scenario;
    let random = |s: u64| Scenario::random(s, max_cycles);
    ubft_sim::backend::verilator::Library::get().map_err(|e| format!("verilator backend: {e}"))?;
    let start = std::time::Instant::now();
    let next = AtomicU64::new(0);
    let failures: Mutex<Vec<(u64, String, String)>> = Mutex::new(vec![]);
    let (decided, cycles) = (AtomicU64::new(0), AtomicU64::new(0));
    // Writes the kernels' guards decided, checked against the model's rule,
    // and the disagreements (a run with one fails its checks).
    let (checked, disagreed) = (AtomicU64::new(0), AtomicU64::new(0));
    let refused = AtomicU64::new(0);
    // The receive paths: the most writes of an honest sender held at once
    // on one, and the longest an honest write waited there.
    let (rx_depth, rx_wait) = (AtomicU64::new(0), AtomicU64::new(0));
    // Runs that passed their checks, and those of them in which an honest
    // replica decided fewer than the scenario's slots: (seed, why, TOML).
    let passed = AtomicU64::new(0);
    let short: Mutex<Vec<(u64, String, String)>> = Mutex::new(vec![]);
    // The same runs as rows of docs/scenarios.md's table, by seed.
    let short_rows: Mutex<Vec<(u64, String)>> = Mutex::new(vec![]);
    // Per faulty kind (and "none" for runs without a faulty replica): the
    // passing runs that had it, and those of them that fell short.
    let by_kind: Mutex<std::collections::BTreeMap<&'static str, (u64, u64)>> =
        Mutex::new(Default::default());
    // Liveness after the last fault (docs/recovery.md, "Recovery after the
    // last fault"): per passing run, the cycles from `settle_cycle` to the
    // next decision of every honest replica and the bound
    // (`bench::fault_bound`), by seed; the runs with nothing left to decide
    // after it, and those in which an honest replica never decided again.
    let recovered: Mutex<Vec<(u64, u64, u64)>> = Mutex::new(vec![]);
    let (nothing_left, never) = (AtomicU64::new(0), Mutex::new(vec![]));
    let done = AtomicU64::new(0);
    let last_line = Mutex::new(start);
    // A progress line on stderr after a run, at most every few seconds: runs
    // done, failures, and the time left at the rate so far.
    let progress = || {
        let d = done.fetch_add(1, Ordering::SeqCst) + 1;
        let mut last = last_line.lock().unwrap();
        if last.elapsed() < SOAK_PROGRESS && d < runs {
            return;
        }
        *last = std::time::Instant::now();
        let secs = start.elapsed().as_secs_f64();
        let left = secs / d as f64 * (runs - d) as f64;
        eprintln!(
            "soak: {d}/{runs} runs, {} failed, {:.0} s elapsed, about {:.0} s left",
            failures.lock().unwrap().len(),
            secs,
            left
        );
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= runs {
                    break;
                }
                let s = random(seed + i);
                let run = s.run(Backend::Verilator);
                if let Ok(r) = &run {
                    let n = &r.network;
                    checked.fetch_add(
                        n.guard_agreements + n.guard_disagreements,
                        Ordering::Relaxed,
                    );
                    disagreed.fetch_add(n.guard_disagreements, Ordering::Relaxed);
                    let g: u64 = r
                        .replicas
                        .iter()
                        .filter(|x| x.honest)
                        .map(|x| x.guard.refused)
                        .sum();
                    refused.fetch_add(g, Ordering::Relaxed);
                    for h in r.replicas.iter().filter(|x| x.honest) {
                        rx_depth.fetch_max(n.rx_depth_max[h.id], Ordering::Relaxed);
                        rx_wait.fetch_max(n.rx_wait_max[h.id], Ordering::Relaxed);
                    }
                }
                let why = match run {
                    Ok(r) if r.checks.ok() => {
                        let d = r
                            .honest()
                            .map(|h| h.decided.len() as u64)
                            .min()
                            .unwrap_or(0);
                        decided.fetch_add(d, Ordering::Relaxed);
                        cycles.fetch_add(r.cycles, Ordering::Relaxed);
                        if let Some(at) = s.settle_cycle() {
                            use ubft_sim::cluster::After;
                            match r.after(at, s.slots) {
                                After::Decided(c) => recovered.lock().unwrap().push((
                                    seed + i,
                                    c,
                                    ubft_sim::bench::fault_bound(&s.config()),
                                )),
                                After::Done => {
                                    nothing_left.fetch_add(1, Ordering::Relaxed);
                                }
                                After::Never => never.lock().unwrap().push(seed + i),
                            }
                        }
                        passed.fetch_add(1, Ordering::Relaxed);
                        let mut kinds: Vec<&'static str> = s
                            .faults
                            .iter()
                            .filter(|f| f.replica().is_some())
                            .map(|f| f.kind())
                            .collect();
                        kinds.sort();
                        kinds.dedup();
                        if kinds.is_empty() {
                            kinds.push("none");
                        }
                        {
                            let mut b = by_kind.lock().unwrap();
                            for k in kinds {
                                let e = b.entry(k).or_default();
                                e.0 += 1;
                                e.1 += (d < s.slots) as u64;
                            }
                        }
                        if d < s.slots {
                            let kinds: Vec<&str> = s.faults.iter().map(|f| f.kind()).collect();
                            let behind: Vec<String> = r
                                .honest()
                                .filter(|h| (h.decided.len() as u64) < s.slots)
                                .map(|h| {
                                    let state = rhdl_ubft::controller::status::STATE_NAMES
                                        .get(h.status.state as usize)
                                        .copied()
                                        .unwrap_or("?");
                                    format!(
                                        "replica {} decided {} (view {}, {} timeouts, error {}, in {state})",
                                        h.id,
                                        h.decided.len(),
                                        h.view,
                                        h.status.timeouts,
                                        h.status.error
                                    )
                                })
                                .collect();
                            let why = format!(
                                "{} of {} slots in {} cycles, faults {kinds:?}: {}",
                                d,
                                s.slots,
                                r.cycles,
                                behind.join(", ")
                            );
                            let cause = short_cause(&s);
                            if cause.contains("FAILED") {
                                eprintln!("seed {}: FAILED: {cause}", seed + i);
                                failures.lock().unwrap().push((seed + i, cause.clone(), s.to_toml()));
                            }
                            let states: Vec<String> = r
                                .honest()
                                .filter(|h| (h.decided.len() as u64) < s.slots)
                                .map(|h| {
                                    let state = rhdl_ubft::controller::status::STATE_NAMES
                                        .get(h.status.state as usize)
                                        .copied()
                                        .unwrap_or("?");
                                    format!("{}: {}, view {}, {state}", h.id, h.decided.len(), h.view)
                                })
                                .collect();
                            short_rows.lock().unwrap().push((
                                seed + i,
                                format!(
                                    "| {} | {} | {} | {} of {} | {} | {cause} |\n",
                                    seed + i,
                                    s.replicas,
                                    kinds.join(", "),
                                    d,
                                    s.slots,
                                    states.join("; ")
                                ),
                            ));
                            let why = format!("{why}; {cause}");
                            short.lock().unwrap().push((seed + i, why, s.to_toml()));
                        }
                        progress();
                        continue;
                    }
                    Ok(r) => r.checks.failures.join("; "),
                    Err(e) => format!("could not run: {e}"),
                };
                eprintln!("seed {}: FAILED: {why}", seed + i);
                failures.lock().unwrap().push((seed + i, why, s.to_toml()));
                progress();
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    let (cycles, decided) = (cycles.into_inner(), decided.into_inner());
    let (checked, disagreed, refused) = (
        checked.into_inner(),
        disagreed.into_inner(),
        refused.into_inner(),
    );
    println!(
        "soak: {runs} random scenarios (seeds {seed}..{}), {} failed, {cycles} cycles simulated, {decided} slots decided by every honest replica, {:.1} s",
        seed + runs,
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    println!(
        "soak: the kernels' guards decided {checked} incoming writes, {disagreed} disagreements with the network model's rule; honest guards refused {refused}"
    );
    let (rx_depth, rx_wait) = (rx_depth.into_inner(), rx_wait.into_inner());
    let depth = ubft_sim::models::network::RX_QP_DEPTH;
    println!(
        "soak: receive queues: an honest sender held at most {rx_depth} writes at once on one receive path (of {depth}); an honest write waited there at most {rx_wait} cycles"
    );
    // Liveness: the share of the runs that passed their checks in which
    // every honest replica decided every slot within the budget.
    let passed = passed.into_inner();
    let mut short = short.into_inner().unwrap();
    short.sort();
    println!(
        "soak: every honest replica decided every slot in {} of {passed} passing runs ({:.1} %); {} fell short",
        passed - short.len() as u64,
        100.0 * (passed - short.len() as u64) as f64 / passed.max(1) as f64,
        short.len()
    );
    // The same share by the kinds of faulty replica a run had (a run with
    // two kinds counts under each; "none": no faulty replica).
    let by_kind = by_kind.into_inner().unwrap();
    for (kind, (runs_with, short_with)) in &by_kind {
        println!(
            "soak:   with {kind}: {} of {runs_with} ({:.1} %)",
            runs_with - short_with,
            100.0 * (runs_with - short_with) as f64 / (*runs_with).max(1) as f64
        );
    }
    for (s, why, _) in &short {
        println!("soak: short seed {s}: {why}");
    }
    for (s, why, toml) in short.iter().take(SOAK_SHORT_TOML) {
        println!("\n# short seed {s}: {why}\n{toml}");
    }
    if short.len() > SOAK_SHORT_TOML {
        println!(
            "\n# (the first {SOAK_SHORT_TOML} short runs as TOML; every seed is listed above and `Scenario::random(seed, max_cycles)` rebuilds it)"
        );
    }
    for (s, why, toml) in &failures {
        println!("\n# failing seed {s}: {why}\n{toml}");
    }
    // Each run that failed or fell short, as a scenario file beside the
    // command that replays it with its waveforms and timeline
    // (docs/debugging.md).
    if !(short.is_empty() && failures.is_empty()) {
        let dir = root().join("target/soak");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!();
        for (s, _, toml) in failures.iter().chain(short.iter()) {
            let file = dir.join(format!("seed-{s}.toml"));
            std::fs::write(&file, toml).map_err(|e| format!("{}: {e}", file.display()))?;
            let stem = dir.join(format!("seed-{s}"));
            println!(
                "soak: replay seed {s}: cargo run --release -p ubft_sim --bin rhdl-ubft -- simulate --scenario {} --waves {}-waves --timeline {}.svg",
                file.display(),
                stem.display(),
                stem.display()
            );
        }
    }
    // docs/scenarios.md's soak table: exact (the runs are deterministic),
    // but for the wall-clock time, which it leaves out.
    let mut cmd = format!("cargo xtask soak --runs {runs} --seed {seed}");
    if max_cycles != 40_000 {
        cmd += &format!(" --max-cycles {max_cycles}");
    }
    let pct = |ok: u64, of: u64| format!("{:.1} %", 100.0 * ok as f64 / of.max(1) as f64);
    let mut md = format!(
        "<!-- written by `{cmd}`; rerun it to refresh, do not edit -->\n\n\
| runs | seeds | failed | cycles simulated | guard decisions | disagreements | every slot decided | share |\n\
| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n\
| {} | {} to {} | {} | {} | {} | {disagreed} | {} of {} | {} |\n\n\
| faulty kind in the run | runs | every slot decided | share |\n\
| --- | ---: | ---: | ---: |\n",
        grouped(runs),
        grouped(seed),
        grouped(seed + runs - 1),
        failures.len(),
        grouped(cycles),
        grouped(checked),
        grouped(passed - short.len() as u64),
        grouped(passed),
        pct(passed - short.len() as u64, passed)
    );
    for (kind, (runs_with, short_with)) in &by_kind {
        let kind = if *kind == "none" {
            "none (a link delay at most)".to_string()
        } else {
            format!("`{kind}`")
        };
        md += &format!(
            "| {kind} | {} | {} | {} |\n",
            grouped(*runs_with),
            grouped(runs_with - short_with),
            pct(runs_with - short_with, *runs_with)
        );
    }
    // The recovery after the last fault: the distribution, and the runs
    // over the bound.
    let mut recovered = recovered.into_inner().unwrap();
    recovered.sort();
    let mut never = never.into_inner().unwrap();
    never.sort();
    let nothing_left = nothing_left.into_inner();
    let mut gaps: Vec<u64> = recovered.iter().map(|r| r.1).collect();
    gaps.sort();
    let mut ratios: Vec<f64> = recovered.iter().map(|r| r.1 as f64 / r.2 as f64).collect();
    ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let over: Vec<u64> = recovered
        .iter()
        .filter(|r| r.1 > r.2)
        .map(|r| r.0)
        .collect();
    // The nearest-rank quantile of a sorted list.
    fn quantile<T: Copy>(v: &[T], q: f64) -> Option<T> {
        (!v.is_empty()).then(|| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1])
    }
    let cyc = |q: f64| quantile(&gaps, q).map_or("–".into(), grouped);
    let rat = |q: f64| quantile(&ratios, q).map_or("–".into(), |x| format!("{x:.3}"));
    // Median, p99 and max of the cycles, then of the shares of the bound.
    let [c50, c99, cmax, r50, r99, rmax] =
        [cyc(0.5), cyc(0.99), cyc(1.0), rat(0.5), rat(0.99), rat(1.0)];
    let seeds = |v: &[u64]| match v {
        [] => "0".to_string(),
        _ => format!(
            "{} (seeds {})",
            v.len(),
            v.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    println!(
        "soak: after the last fault, every honest replica decided again in {} runs: median {c50} cycles, p99 {c99}, max {cmax} (of the bound: median {r50}, p99 {r99}, max {rmax}); over the bound: {}; {nothing_left} with nothing left to decide; never decided again: {}",
        recovered.len(),
        seeds(&over),
        seeds(&never),
    );
    md += &format!(
        "\nReceive queues (`roce.md`, \"Receive queues\"): an honest sender held at most {rx_depth} writes at once on one receive path, of `RX_QP_DEPTH` = {depth}; an honest write waited there at most {} cycles.\n\nAfter the last fault (`Scenario::settle_cycle`: a replica turning faulty, or a delayed link timely again), the cycles to the next decision of every honest replica, against the bound `bench::fault_bound` (recovery.md, \"Recovery after the last fault\"):\n\n\
| runs measured | median | p99 | max | median / bound | p99 / bound | max / bound | over the bound | nothing left to decide | never decided again |\n\
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
| {} | {c50} | {c99} | {cmax} | {r50} | {r99} | {rmax} | {} | {} | {} |\n",
        grouped(rx_wait),
        grouped(recovered.len() as u64),
        seeds(&over),
        grouped(nothing_left),
        seeds(&never),
    );
    let mut rows = short_rows.into_inner().unwrap();
    rows.sort();
    if rows.is_empty() {
        md += "\nNo run fell short.\n";
    } else {
        md += "\nThe runs that fell short (each honest replica behind: id, slots decided, view, end state; the cause, from the run replayed open-ended, `short_cause`):\n\n\
| seed | n | faulty kinds | slots decided by all | behind | cause |\n\
| ---: | ---: | --- | ---: | --- | --- |\n";
        for (_, row) in rows {
            md += &row;
        }
    }
    write_between(SCEN_DOC, SOAK_BEGIN, SOAK_END, &md, false, &cmd)?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {runs} scenarios failed their checks",
            failures.len()
        ))
    }
}

struct ModelArgs {
    design: String,
    replicas: usize,
    slots: usize,
    views: u8,
    window: usize,
    values: Option<u8>,
    any_value: bool,
    silent: Option<usize>,
    byzantine: Option<usize>,
    byz_writes: u8,
    early_timeouts: u8,
    delays: u8,
    reach: usize,
    restarts: u8,
    ckpt_every: usize,
    rejoin_without: Vec<String>,
    live_views: Option<u8>,
    threads: usize,
    max_states: usize,
    max_depth: usize,
    dfs: bool,
    por: bool,
    max_memory_gb: f64,
    progress: u64,
    max_seconds: u64,
    json: bool,
}

/// `cargo xtask model`: exit 0 when every property holds, 1 when one fails,
/// 2 when the check cannot run (a design not yet implemented, bad bounds),
/// 3 when the memory cap or the time budget stopped it with no property
/// failing.
fn model(a: ModelArgs) -> ExitCode {
    use ubft_model::model::{MAX_N, MAX_SLOTS, MAX_WINDOW};
    use ubft_model::{run_named, Config, RunOpts};
    let n = a.replicas;
    let values = a.values.unwrap_or(2.max(a.slots.min(13) as u8));
    let bad = if n % 2 == 0 || n > MAX_N {
        Some(format!("--replicas must be odd and at most {MAX_N}"))
    } else if a.slots == 0 || a.slots > MAX_SLOTS {
        Some(format!("--slots must be in 1..={MAX_SLOTS}"))
    } else if a.window == 0 || a.window > MAX_WINDOW {
        Some(format!("--window must be in 1..={MAX_WINDOW}"))
    } else if values == 0 || values > 13 {
        Some("--values must be in 1..=13".into())
    } else if (values as usize) < a.slots {
        Some(format!(
            "--values {values} is below --slots {}: a leader proposes each client value once, so \
             the last slots would have nothing to propose and every run would end at the view \
             bound, which liveness excuses",
            a.slots
        ))
    } else if a.byzantine.is_some_and(|b| b >= n) {
        Some("--byzantine must name a replica below --replicas".into())
    } else if a.restarts > 0 && (a.slots > 2 || a.byzantine.is_some() || a.por) {
        Some("--restarts runs at most two slots, with no --byzantine replica and no --por".into())
    } else if a.restarts as usize * a.slots > MAX_SLOTS {
        Some(format!(
            "--restarts {} at --slots {} keeps more past decisions than the model holds \
             ({MAX_SLOTS})",
            a.restarts, a.slots
        ))
    } else if a.ckpt_every == 0 {
        Some("--ckpt-every must be at least 1".into())
    } else if !(a.max_memory_gb >= 0.0 && a.max_memory_gb.is_finite()) {
        Some("--max-memory-gb must be a number of GB, 0 for no cap".into())
    } else {
        None
    };
    if let Some(e) = bad {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let mut cfg = Config::new(n, a.slots, a.window, a.views);
    cfg.values = values;
    cfg.any_value = a.any_value;
    cfg.byzantine = a.byzantine;
    cfg.byz_writes = if a.byzantine.is_some() {
        a.byz_writes
    } else {
        0
    };
    cfg.silent = a.silent.unwrap_or(cfg.f() - a.byzantine.is_some() as usize);
    cfg.early_timeouts = a.early_timeouts;
    cfg.delays = a.delays;
    cfg.reach = a.reach;
    cfg.restarts = a.restarts;
    cfg.ckpt_every = a.ckpt_every;
    for r in &a.rejoin_without {
        match ubft_model::model::REJOIN_RULES.iter().find(|(n, _)| n == r) {
            Some((_, bit)) => cfg.rejoin_off |= bit,
            None => {
                eprintln!("error: --rejoin-without takes floor, copy, fence or fresh, not {r}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(l) = a.live_views {
        cfg.live_views = l;
    }
    let opts = RunOpts {
        threads: a.threads,
        max_states: a.max_states,
        dfs: a.dfs,
        max_depth: a.max_depth,
        por: a.por,
        max_memory: (a.max_memory_gb * (1u64 << 30) as f64) as u64,
        progress: (a.progress > 0).then(|| std::time::Duration::from_secs(a.progress)),
        max_time: (a.max_seconds > 0).then(|| std::time::Duration::from_secs(a.max_seconds)),
    };
    match run_named(&a.design, cfg, &opts) {
        Ok(report) => {
            if a.json {
                println!("{}", report.to_json());
            } else {
                print!("{}", report.text());
            }
            if !report.all_hold() {
                ExitCode::from(1)
            } else if report.stopped.is_some() {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
