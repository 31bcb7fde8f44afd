//! Self-checking Verilog testbenches that replay recorded cluster runs on
//! the exported RTL (`cargo xtask testbench`, docs/testbench.md).
//!
//! A [`Scenario`] is a cluster run recorded port by port: every replica's
//! inputs and outputs on every cycle, from a [`Recorder`] around each kernel
//! (rust-hdl's simulator by default, so the RTL is checked against the Rust
//! design). [`write`] turns it into
//!
//! - `<name>_r<i>_in.hex`: replica i's inputs, one `$readmemh` record per
//!   cycle on which they change: `{cycle[31:0], inputs}`;
//! - `<name>_r<i>_out.hex`: replica i's expected outputs, the same way;
//! - `tb_<name>.v`: n `rhdl_ubft` instances (`rtl/rhdl_ubft.v`), each fed its recorded inputs
//!   (the HBM, network and client behaviour as recorded), every output
//!   compared with `!==` on every cycle; it prints `TESTBENCH OK` or
//!   `TESTBENCH MISMATCH: cycle C, replica R, port P: expected E, got G` for
//!   the first difference, then `$finish`es.
//!
//! Inputs and outputs are packed as `PortMap` packs them: every port but the
//! clock in header order, each starting on a 32-bit word. The testbench is
//! plain Verilog-2001 (Icarus `-g2005`, Vivado xsim).

use crate::adversary::forge::Forge;
use crate::adversary::silent::Silent;
use crate::backend::verilator::harness::{CLOCK, TOP};
use crate::backend::verilator::portmap::{hex, PortMap};
use crate::backend::{self, Backend};
use crate::cluster::{Cluster, ClusterConfig, Event, HbmWriteError, LinkDelay, Records, RunReport};
use crate::ports::{KernelBackend, KernelIn, KernelOut};
use rhdl_ubft::layout::Region;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

/// One replica's cycles: (inputs, outputs).
pub type Trace = Vec<(KernelIn, KernelOut)>;

/// A backend that records every cycle's inputs and outputs.
pub struct Recorder {
    inner: Box<dyn KernelBackend>,
    log: Rc<RefCell<Trace>>,
}

impl Recorder {
    pub fn new(inner: Box<dyn KernelBackend>) -> (Recorder, Rc<RefCell<Trace>>) {
        let log = Rc::new(RefCell::new(vec![]));
        (
            Recorder {
                inner,
                log: log.clone(),
            },
            log,
        )
    }
}

impl KernelBackend for Recorder {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        let out = self.inner.eval(inp);
        self.log.borrow_mut().push((inp.clone(), out.clone()));
        out
    }
    fn tick(&mut self) {
        self.inner.tick()
    }
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn debug_state(&self) -> Option<u8> {
        self.inner.debug_state()
    }
    fn debug_timeouts(&self) -> Option<u32> {
        self.inner.debug_timeouts()
    }
}

/// A recorded run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// File-name stem, e.g. `fast3`.
    pub name: String,
    /// One line on what the run does (a comment in the testbench).
    pub about: String,
    pub backend: Backend,
    /// Per replica, every cycle.
    pub replicas: Vec<Trace>,
    /// The recorded run's report (its checks passed, or it is not recorded).
    pub report: RunReport,
}

impl Scenario {
    pub fn cycles(&self) -> usize {
        self.replicas.first().map_or(0, |t| t.len())
    }
}

/// Records `cfg` on `backend` (run to the end as `Cluster::run`, or
/// `max_cycles` if that is smaller).
pub fn record(
    name: &str,
    about: &str,
    cfg: &ClusterConfig,
    backend: Backend,
) -> Result<Scenario, String> {
    record_with(name, about, cfg, backend, &[], &[])
}

/// As [`record`], with each replica of `silent` (replica, event) silent
/// from the cycle its event starts its faults (`cluster::event`;
/// `adversary::silent::Silent`: its writes are dropped, as a
/// crashed NIC's would be; the kernel itself runs on and is recorded), and
/// each replica of `forge` a forger (`adversary::forge::Forge`: writes into other
/// replicas' entries, which their guards refuse).
pub fn record_with(
    name: &str,
    about: &str,
    cfg: &ClusterConfig,
    backend: Backend,
    silent: &[(usize, Event)],
    forge: &[usize],
) -> Result<Scenario, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let mut logs = vec![];
    let kernels: Vec<Box<dyn KernelBackend>> = backend::kernels(backend, cfg.replicas)?
        .into_iter()
        .map(|k| {
            let (r, log) = Recorder::new(k);
            logs.push(log);
            Box::new(r) as Box<dyn KernelBackend>
        })
        .collect();
    let mut c = Cluster::with_kernels(cfg.clone(), kernels);
    for &(r, event) in silent {
        if r >= cfg.replicas || event.replica() != r {
            return Err(format!(
                "scenario {name}: replica {r} cannot be silenced from \"{event}\""
            ));
        }
        c.set_adversary_from(r, event, Box::new(Silent { from_cycle: 0 }));
    }
    for &r in forge {
        if r >= cfg.replicas {
            return Err(format!("scenario {name}: no replica {r} to forge"));
        }
        let seed = cfg.seed ^ (r as u64 + 1);
        c.set_adversary(r, Box::new(Forge::new(cfg.replicas, cfg.mailbox(), seed)));
    }
    let report = c.run().map_err(|e| e.to_string())?;
    if !report.checks.ok() {
        return Err(format!(
            "scenario {name}: the run's own checks failed: {:?}",
            report.checks.failures
        ));
    }
    drop(c);
    Ok(Scenario {
        name: name.to_string(),
        about: about.to_string(),
        backend,
        replicas: logs.into_iter().map(|l| l.take()).collect(),
        report,
    })
}

/// One of the runs `cargo xtask testbench` writes ([`standard`]).
pub struct Standard {
    /// File-name stem.
    pub name: &'static str,
    /// One line on what the run does.
    pub about: &'static str,
    pub cfg: ClusterConfig,
    /// (replica, event): silent from the event ([`record_with`]).
    pub silent: Vec<(usize, Event)>,
    /// Forgers ([`record_with`]).
    pub forge: Vec<usize>,
}

impl Standard {
    /// Records it on `backend`.
    pub fn record(&self, backend: Backend) -> Result<Scenario, String> {
        record_with(
            self.name,
            self.about,
            &self.cfg,
            backend,
            &self.silent,
            &self.forge,
        )
    }
}

/// The scenarios `cargo xtask testbench` writes, 3 replicas each: the fast
/// path; an equivocating leader (timeouts, view changes); a forger whose
/// writes the kernels' guards refuse; a leader that falls silent after two
/// fast decisions (the bridge, the view change, the carried slot's rerun
/// and the f + 1 slow path); a follower that takes the fast path while the
/// leader's will_cert to it is late; and a leader whose own will_cert and
/// will_commit writes into its HBM fail (SLVERR). Every write goes through
/// the receiving kernel's guard (`Delivery::Kernel`).
pub fn standard() -> Vec<Standard> {
    let plain = |name, about, cfg| Standard {
        name,
        about,
        cfg,
        silent: vec![],
        forge: vec![],
    };
    vec![
        plain(
            "fast_path",
            "3 replicas decide 6 slots on the fast path (net 40, HBM 12/6 cycles)",
            quick(6),
        ),
        plain(
            "equivocating_leader",
            "3 replicas, replica 0 equivocates while leader (a different m to each follower): the followers time out, change view and decide under the next leader",
            ClusterConfig {
                equivocate: vec![0],
                ..quick(2)
            },
        ),
        Standard {
            name: "guard",
            about: "3 replicas, replica 2 a forger: it aims a copy of each of its writes at another replica's entries, which the receiving kernels' guards refuse (s_axis_rx_cmd, s_axis_rx_data, m_axi_rx), and fills its own entries with garbage; replicas 0 and 1 decide 3 slots on the f + 1 slow path",
            cfg: ClusterConfig {
                seed: 11,
                ..quick(3)
            },
            silent: vec![],
            forge: vec![2],
        },
        // A quicker signer than the others' (sign 100, verify 150 cycles)
        // keeps the recording short; 16 polls of H + 4 = 16 cycles still
        // outlast a signer step, as v3 requires (protocol.md, "Timeouts").
        Standard {
            name: "silent_leader",
            about: "3 replicas; the leader, replica 0, falls silent from the cycle after it decides slot 2; replicas 1 and 2 bridge slot 3, change view, rerun slot 3 as the carried value and decide slot 4 on the f + 1 slow path",
            cfg: quick(4),
            silent: vec![(0, Event::Decided { replica: 0, slot: 2 })],
            forge: vec![],
        },
        Standard {
            name: "late_will_cert",
            about: "3 replicas decide 2 slots on the fast path; the leader's will_cert of k = 1 reaches replica 1 150 cycles late, so replica 1 polls the will_cert row with the leader's lane empty, votes will_commit on its own vote, replica 2's and the leader's PREPARE as the leader's lock (recovery.md D2), and decides k = 1 fast once the leader's will_commit, queued behind the late will_cert, lands",
            cfg: ClusterConfig {
                delays: vec![LinkDelay {
                    src: 0,
                    dst: 1,
                    extra: 150,
                    from_cycle: 0,
                    to_cycle: u64::MAX,
                    records: Some(Records {
                        region: Region::WillCert,
                        slot: Some(0),
                    }),
                    after: None,
                }],
                ..quick(2)
            },
            silent: vec![],
            forge: vec![],
        },
        Standard {
            name: "hbm_write_error",
            about: "3 replicas, 3 slots; the leader's HBM answers its own will_cert write of k = 1 with SLVERR after the vote was sent beside it (staged, stage.md): the leader stops (WriteFailed, write_errors 1) as a crashed card, having decided nothing; replicas 1 and 2, a will_commit short, decide k = 1 on the f + 1 slow path, change view and decide k = 2 and 3 in view 1",
            cfg: ClusterConfig {
                hbm_write_errors: vec![HbmWriteError {
                    replica: 0,
                    records: Records {
                        region: Region::WillCert,
                        slot: Some(0),
                    },
                    count: 1,
                }],
                // The stopped leader never decides, so the run ends at its
                // budget: long enough for slot 3 in view 1.
                max_cycles: 11_000,
                ..quick(3)
            },
            silent: vec![],
            forge: vec![],
        },
    ]
}

/// The recordings' configuration: [`ClusterConfig::quick`] links, a
/// quicker signer (sign 100, verify 150 cycles), a wait of 16 polls, seed 7
/// and every write through the kernels' guards (`Delivery::Kernel`).
fn quick(slots: u64) -> ClusterConfig {
    ClusterConfig {
        seed: 7,
        wait_polls: 16,
        sign_latency: 100,
        verify_latency: 150,
        delivery: crate::models::network::Delivery::Kernel,
        ..ClusterConfig::quick(3, slots)
    }
}

/// A deliberately wrong expected value, to show a testbench fails: bit 0 of
/// output `port` of `replica` flipped on `cycle`.
#[derive(Clone, Debug)]
pub struct Corrupt {
    pub cycle: u64,
    pub replica: usize,
    pub port: String,
}

/// Ports up to this width go in the narrow record files.
const NARROW: usize = 64;

/// One direction's ports for the writer: (name, width, words, offset in the
/// packed buffer, qualifier index).
struct Col {
    name: String,
    width: usize,
    offset: usize,
    qualifier: Option<usize>,
}

fn in_cols(map: &PortMap) -> Vec<Col> {
    map.inputs
        .iter()
        .map(|b| Col {
            name: b.port.name.clone(),
            width: b.port.width,
            offset: b.offset,
            qualifier: None,
        })
        .collect()
}

fn out_cols(map: &PortMap) -> Vec<Col> {
    map.outputs
        .iter()
        .map(|b| Col {
            name: b.port.name.clone(),
            width: b.port.width,
            offset: b.offset,
            qualifier: b.qualifier,
        })
        .collect()
}

/// The value width of the wide records (0 if no port is wider than NARROW).
fn wide_width(cols: &[Col]) -> usize {
    cols.iter()
        .filter(|c| c.width > NARROW)
        .map(|c| c.width.div_ceil(32) * 32)
        .max()
        .unwrap_or(0)
}

/// Change records `{cycle[31:0], port[31:0], value}` as `$readmemh` lines:
/// every port on cycle 0, then a port on each cycle its value changes.
/// Returns (narrow text, narrow count, wide text, wide count).
fn records(rows: impl Iterator<Item = Vec<u32>>, cols: &[Col]) -> (String, usize, String, usize) {
    let ww = wide_width(cols);
    let (mut ns, mut nn, mut ws, mut wn) = (String::new(), 0, String::new(), 0);
    let mut last: Option<Vec<u32>> = None;
    for (cycle, w) in rows.enumerate() {
        for (i, c) in cols.iter().enumerate() {
            let r = c.offset..c.offset + c.width.div_ceil(32);
            if last.as_ref().is_some_and(|l| l[r.clone()] == w[r.clone()]) {
                continue;
            }
            let vw = if c.width > NARROW { ww } else { NARROW };
            let mut rec = w[r].to_vec();
            rec.resize(vw / 32, 0);
            rec.push(i as u32);
            rec.push(cycle as u32);
            let line = hex(&rec, vw + 64);
            if c.width > NARROW {
                ws += &line;
                ws.push('\n');
                wn += 1;
            } else {
                ns += &line;
                ns.push('\n');
                nn += 1;
            }
        }
        last = Some(w);
    }
    (ns, nn, ws, wn)
}

/// Record counts of one replica: [in narrow, in wide, out narrow, out wide].
type Counts = [usize; 4];

/// Writes `tb_<name>.v` and its vector files into `dir`; returns the paths.
pub fn write(
    dir: &Path,
    sc: &Scenario,
    map: &PortMap,
    corrupt: Option<&Corrupt>,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = &sc.name;
    let n = sc.replicas.len();
    let cycles = sc.cycles();
    if let Some(c) = corrupt {
        if !map.outputs.iter().any(|o| o.port.name == c.port)
            || c.replica >= n
            || c.cycle as usize >= cycles
        {
            return Err(format!(
                "cannot corrupt {c:?}: no such output, replica or cycle"
            ));
        }
    }
    let (ic, oc) = (in_cols(map), out_cols(map));
    let mut files = vec![];
    let mut counts: Vec<Counts> = vec![];
    let mut put = |file: String, text: String| -> Result<(), String> {
        let p = dir.join(file);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        files.push(p);
        Ok(())
    };
    for (r, trace) in sc.replicas.iter().enumerate() {
        let mut buf = vec![0u32; map.in_words];
        let ins = trace.iter().map(|(i, _)| {
            map.encode_in(i, &mut buf);
            buf.clone()
        });
        let (ins_n, cin_n, ins_w, cin_w) = records(ins, &ic);
        let outs = trace.iter().enumerate().map(|(cy, (_, o))| {
            let mut w = map.encode_out(o);
            if let Some(c) = corrupt.filter(|c| c.replica == r && c.cycle as usize == cy) {
                let b = map.outputs.iter().find(|b| b.port.name == c.port).unwrap();
                w[b.offset] ^= 1;
            }
            w
        });
        let (outs_n, cout_n, outs_w, cout_w) = records(outs, &oc);
        put(format!("{name}_r{r}_in.hex"), ins_n)?;
        if cin_w > 0 {
            put(format!("{name}_r{r}_in_wide.hex"), ins_w)?;
        }
        put(format!("{name}_r{r}_out.hex"), outs_n)?;
        if cout_w > 0 {
            put(format!("{name}_r{r}_out_wide.hex"), outs_w)?;
        }
        counts.push([cin_n, cin_w, cout_n, cout_w]);
    }
    put(format!("tb_{name}.v"), verilog(sc, &ic, &oc, &counts))?;
    Ok(files)
}

/// Declarations and the per-cycle loader of one record stream.
struct Stream {
    mem: String,
    ptr: String,
    count: usize,
    vw: usize,
    file: String,
}

/// The testbench text.
fn verilog(sc: &Scenario, ic: &[Col], oc: &[Col], counts: &[Counts]) -> String {
    let name = &sc.name;
    let n = sc.replicas.len();
    let (iww, oww) = (wide_width(ic), wide_width(oc));
    let mut v = String::new();
    let _ = write!(
        v,
        "// Generated by `cargo xtask testbench` (ubft_sim::testbench); do not edit.\n\
         // Scenario {name}: {about}.\n\
         // Recorded on the {backend} backend: {cycles} cycles, {n} replicas of the kernel\n\
         // (replay it on rtl/rhdl_ubft.v).\n\
         // Each `{TOP}` instance replays its replica's recorded inputs (the HBM,\n\
         // network, signer and client behaviour as recorded) and every output is\n\
         // compared with !== on every cycle. Vectors ({name}_r<i>_{{in,out}}[_wide].hex)\n\
         // hold records {{cycle[31:0], port[31:0], value}}: every port on cycle 0,\n\
         // then a port on each cycle its value changes; they are read from the\n\
         // simulator's working directory. Plain Verilog-2001 (iverilog -g2005, verilator --timing, xsim);\n\
         // no `timescale, like the RTL: one delay unit is half a clock.\n\
         module tb_{name};\n\
         \x20 localparam CYCLES = {cycles};\n\
         \x20 reg {CLOCK};\n\
         \x20 integer cycle;\n\
         \x20 reg failed;\n",
        about = sc.about,
        backend = sc.backend,
        cycles = sc.cycles(),
    );
    let mut streams: Vec<Vec<(Stream, bool, bool)>> = vec![];
    for (r, c) in counts.iter().enumerate() {
        let _ = writeln!(v, "\n  // replica {r}");
        let mut ss = vec![];
        for (k, (dir, wide)) in [("in", false), ("in", true), ("out", false), ("out", true)]
            .into_iter()
            .enumerate()
        {
            if c[k] == 0 {
                continue;
            }
            let vw = match (dir, wide) {
                (_, false) => NARROW,
                ("in", true) => iww,
                _ => oww,
            };
            let suffix = if wide { "_wide" } else { "" };
            let s = Stream {
                mem: format!("v{dir}{suffix}_{r}"),
                ptr: format!("p{dir}{suffix}_{r}"),
                count: c[k],
                vw,
                file: format!("{name}_r{r}_{dir}{suffix}.hex"),
            };
            let _ = writeln!(
                v,
                "  reg [{}:0] {} [0:{}];\n  integer {};",
                vw + 63,
                s.mem,
                s.count - 1,
                s.ptr
            );
            ss.push((s, dir == "in", wide));
        }
        for c in ic {
            let _ = writeln!(v, "  reg [{}:0] i{r}_{};", c.width - 1, c.name);
        }
        for c in oc {
            let _ = writeln!(v, "  reg [{}:0] e{r}_{};", c.width - 1, c.name);
            let _ = writeln!(v, "  wire [{}:0] r{r}_{};", c.width - 1, c.name);
        }
        let mut conns = vec![format!("    .{CLOCK}({CLOCK})")];
        conns.extend(ic.iter().map(|c| format!("    .{0}(i{r}_{0})", c.name)));
        conns.extend(oc.iter().map(|c| format!("    .{0}(r{r}_{0})", c.name)));
        let _ = writeln!(v, "  {TOP} k{r} (\n{}\n  );", conns.join(",\n"));
        streams.push(ss);
    }
    let _ = writeln!(v, "\n  initial begin");
    for ss in &streams {
        for (s, _, _) in ss {
            let _ = writeln!(
                v,
                "    $readmemh(\"{}\", {});\n    {} = 0;",
                s.file, s.mem, s.ptr
            );
        }
    }
    let _ = writeln!(
        v,
        "    {CLOCK} = 0;\n    failed = 0;\n    for (cycle = 0; cycle < CYCLES && !failed; cycle = cycle + 1) begin\n      {CLOCK} = 0;"
    );
    for (r, ss) in streams.iter().enumerate() {
        for (s, input, wide) in ss {
            let (m, p, vw) = (&s.mem, &s.ptr, s.vw);
            let cols = if *input { ic } else { oc };
            let _ = writeln!(
                v,
                "      while ({p} < {} && {m}[{p}][{}:{}] == cycle) begin\n        case ({m}[{p}][{}:{vw}])",
                s.count,
                vw + 63,
                vw + 32,
                vw + 31
            );
            for (i, c) in cols
                .iter()
                .enumerate()
                .filter(|(_, c)| (c.width > NARROW) == *wide)
            {
                let pre = if *input { 'i' } else { 'e' };
                let _ = writeln!(
                    v,
                    "          {i}: {pre}{r}_{} = {m}[{p}][{}:0];",
                    c.name,
                    c.width - 1
                );
            }
            let _ = writeln!(
                v,
                "          default: ;\n        endcase\n        {p} = {p} + 1;\n      end"
            );
        }
    }
    let _ = writeln!(v, "      #5;");
    for r in 0..n {
        for c in oc {
            let cond = match c.qualifier {
                Some(q) => format!("e{r}_{} && ", oc[q].name),
                None => String::new(),
            };
            let _ = writeln!(
                v,
                "      if (!failed && {cond}r{r}_{p} !== e{r}_{p}) begin\n        \
                 $display(\"TESTBENCH MISMATCH: cycle %0d, replica {r}, port {p}: expected %h, got %h\", cycle, e{r}_{p}, r{r}_{p});\n        \
                 failed = 1;\n      end",
                p = c.name
            );
        }
    }
    let _ = writeln!(
        v,
        "      {CLOCK} = 1;\n      #5;\n    end\n    \
         if (!failed) $display(\"TESTBENCH OK: {name}, %0d cycles, {n} replicas, every output compared\", CYCLES);\n    \
         $finish;\n  end\nendmodule"
    );
    v
}

/// A simulator that replays testbenches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sim {
    /// `verilator --timing --main` (the one on PATH, or the pinned one
    /// installed on first use: always available). Two-state: `!==` compares
    /// as `!=`, so an X does not show.
    Verilator,
    /// Icarus Verilog (`iverilog -g2005`, `vvp`), where installed: four-state,
    /// an X in an output fails the comparison.
    Icarus,
}

impl std::str::FromStr for Sim {
    type Err = String;
    fn from_str(s: &str) -> Result<Sim, String> {
        match s {
            "verilator" => Ok(Sim::Verilator),
            "icarus" => Ok(Sim::Icarus),
            _ => Err(format!("unknown simulator `{s}`: verilator or icarus")),
        }
    }
}

impl std::fmt::Display for Sim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Sim::Verilator => "verilator",
            Sim::Icarus => "icarus",
        })
    }
}

/// Replays `tb_<name>.v` in `dir` on the RTL at `rtl` with `sim`, building
/// in `build`; returns the log if it printed `TESTBENCH OK`.
pub fn run(sim: Sim, dir: &Path, name: &str, rtl: &Path, build: &Path) -> Result<String, String> {
    match sim {
        Sim::Verilator => run_verilator(dir, name, rtl, build),
        Sim::Icarus => run_iverilog(dir, name, rtl, build),
    }
}

/// The testbench's verdict from its output.
fn verdict(name: &str, ok: bool, log: String) -> Result<String, String> {
    if ok && log.lines().any(|l| l.starts_with("TESTBENCH OK")) {
        Ok(log)
    } else {
        let first = log
            .lines()
            .find(|l| l.contains("TESTBENCH MISMATCH"))
            .unwrap_or("no TESTBENCH OK line");
        Err(format!("tb_{name}: {first}\n{log}"))
    }
}

/// Builds `tb_<name>.v` with the RTL under Verilator (`--timing --main`,
/// `hdl_tools::build`) and runs it from `dir`. The executable depends only
/// on the two Verilog files (the vectors are read at run time), so it is
/// cached under `build/verilator/<hash>/`: a testbench replayed with other
/// vectors, or by both the tests and `cargo xtask testbench`, is built once.
pub fn run_verilator(dir: &Path, name: &str, rtl: &Path, build: &Path) -> Result<String, String> {
    let tb_path = dir.join(format!("tb_{name}.v"));
    let tb =
        std::fs::read_to_string(&tb_path).map_err(|e| format!("{}: {e}", tb_path.display()))?;
    let rtl_text = std::fs::read_to_string(rtl).map_err(|e| format!("{}: {e}", rtl.display()))?;
    let v = hdl_tools::Verilator::get()?;
    let top = format!("tb_{name}");
    let b = hdl_tools::build::Build {
        top: top.clone(),
        sources: vec!["tb.v".into(), "rtl.v".into()],
        flags: ["-Wno-fatal", "-Wno-lint", "-Wno-style"]
            .iter()
            .map(|f| f.to_string())
            .collect(),
        cpp: vec![],
        // A replay runs a few thousand cycles: compile time is what counts.
        opt_fast: "-O0".into(),
        opt_slow: "-O0".into(),
        output: hdl_tools::build::Output::Executable(top.clone()),
    };
    let key = hdl_tools::fnv1a(&[&tb, &rtl_text, &b.key(), &v.version]);
    let out_dir = build.join("verilator").join(format!("{key:016x}"));
    let exe = out_dir.join(&top);
    // One build at a time: tests replaying the same testbench build it once.
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    if !exe.exists() {
        hdl_tools::build_atomically(&out_dir, |tmp| {
            std::fs::write(tmp.join("tb.v"), &tb).map_err(|e| e.to_string())?;
            std::fs::write(tmp.join("rtl.v"), &rtl_text).map_err(|e| e.to_string())?;
            hdl_tools::build::build(v, tmp, &b).map(|_| ())
        })?;
    }
    let out = Command::new(&exe)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    verdict(name, out.status.success(), log)
}

/// Compiles `tb_<name>.v` in `dir` with the RTL at `rtl` under Icarus
/// Verilog (`iverilog -g2005`, the image in `build`), runs it with `vvp`
/// from `dir`, and returns its output if it printed `TESTBENCH OK`.
pub fn run_iverilog(dir: &Path, name: &str, rtl: &Path, build: &Path) -> Result<String, String> {
    std::fs::create_dir_all(build).map_err(|e| format!("{}: {e}", build.display()))?;
    let image = build.join(format!("tb_{name}.vvp"));
    let tb = dir.join(format!("tb_{name}.v"));
    let tool = |t: &str, e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("`{t}` not found: Icarus Verilog is used only where installed (apt-get install iverilog); `--sim verilator` needs nothing installed")
        } else {
            format!("{t}: {e}")
        }
    };
    let out = Command::new("iverilog")
        .args(["-g2005", "-s", &format!("tb_{name}"), "-o"])
        .arg(&image)
        .arg(&tb)
        .arg(rtl)
        .output()
        .map_err(|e| tool("iverilog", e))?;
    if !out.status.success() {
        return Err(format!(
            "iverilog failed on {}:\n{}",
            tb.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let out = Command::new("vvp")
        .arg("-n")
        .arg(std::fs::canonicalize(&image).map_err(|e| e.to_string())?)
        .current_dir(dir)
        .output()
        .map_err(|e| tool("vvp", e))?;
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    verdict(name, out.status.success(), log)
}
