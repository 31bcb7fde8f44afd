//! `cargo xtask vivado` and `cargo xtask synth`: the card flow and the
//! resource estimate.

use crate::{root, write_or_check, Result};
use std::process::Command;
use std::time::Instant;

/// The generated files of vivado/ (the rest of the folder is hand-written).
pub fn vivado_files() -> Vec<(&'static str, String)> {
    vec![
        ("vivado/kernel.xml", rhdl_ubft::vitis::kernel_xml()),
        (
            "vivado/package_kernel.tcl",
            rhdl_ubft::vitis::package_kernel_tcl(),
        ),
        ("vivado/rhdl_ubft_regs.h", rhdl_ubft::regs::c_header()),
    ]
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// Writes (or checks) the generated vivado/ files, checks what open tools
/// can check, and runs the Vitis flow when Vivado and v++ are installed.
/// Without them it prints what it would run and succeeds ("skipped"), so CI
/// on a machine without Xilinx tools stays green.
pub fn vivado(check: bool, target: &str) -> Result {
    for (rel, text) in vivado_files() {
        write_or_check(rel, &text, check, "cargo xtask vivado")?;
    }
    // Tcl syntax (balanced braces, quotes and brackets) of every script.
    if on_path("tclsh") {
        for f in ["vivado/package_kernel.tcl", "vivado/gen_xo.tcl"] {
            let script = format!(
                "set f [open {{{}}}]; set src [read $f]; close $f\n\
                 set cmd {{}}; set line 0; set start 0\n\
                 foreach l [split $src \"\\n\"] {{ incr line; if {{$cmd eq {{}}}} {{ set start $line }}; append cmd $l \"\\n\"; if {{[info complete $cmd]}} {{ set cmd {{}} }} }}\n\
                 if {{$cmd ne {{}}}} {{ puts \"incomplete command from line $start\"; exit 1 }}\n",
                root().join(f).display()
            );
            let out = Command::new("tclsh")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    c.stdin.take().unwrap().write_all(script.as_bytes())?;
                    c.wait_with_output()
                })
                .map_err(|e| format!("tclsh: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "{f}: Tcl syntax: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            println!("{f}: Tcl syntax OK (tclsh)");
        }
    } else {
        println!("tclsh not found: Tcl syntax not checked (apt-get install tcl)");
    }
    if on_path("xmllint") {
        let out = Command::new("xmllint")
            .args(["--noout", "vivado/kernel.xml"])
            .current_dir(root())
            .output()
            .map_err(|e| format!("xmllint: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "vivado/kernel.xml: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        println!("vivado/kernel.xml: well-formed (xmllint)");
    } else {
        println!("vivado/kernel.xml: parsed and checked against the top by `cargo test -p rhdl_ubft --test vitis`");
    }
    if check {
        return Ok(());
    }
    let missing: Vec<&str> = ["vivado", "v++"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    let cmds = format!(
        "  cargo xtask verilog\n  make -C vivado {target}    # xo: vivado -mode batch -source gen_xo.tcl -tclargs …; xclbin/hw_emu: v++ --link …"
    );
    if !missing.is_empty() {
        println!(
            "skipped: {} not found (source the Vitis/XRT settings64.sh). With them, this runs:\n{cmds}",
            missing.join(" and ")
        );
        return Ok(());
    }
    let status = Command::new("make")
        .args(["-C", "vivado", target])
        .current_dir(root())
        .status()
        .map_err(|e| format!("make: {e}"))?;
    if !status.success() {
        return Err(format!("make -C vivado {target} failed"));
    }
    Ok(())
}

/// A file's name alone (the runs use the directory as working directory).
fn file_name(p: &std::path::Path) -> String {
    p.file_name().unwrap().to_string_lossy().to_string()
}

/// U280 (XCU280) resources, for the share columns.
const U280_LUTS: u64 = 1_303_680;
const U280_FFS: u64 = 2_607_360;

#[derive(Default, Debug, Clone)]
struct Stat {
    n: usize,
    lut: u64,
    ff: u64,
    lutram: u64,
    bram: u64,
    carry: u64,
    muxf: u64,
    dsp: u64,
    secs: f64,
}

fn parse_stat(text: &str) -> Stat {
    let mut s = Stat::default();
    // Only the last `stat` block (the flattened top).
    let body = text.rsplit("=== ").next().unwrap_or(text);
    for line in body.lines() {
        let mut it = line.split_whitespace();
        let (Some(a), Some(b), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        // Yosys 0.23 (Debian) prints "cell count", newer Yosys (0.70, the
        // pinned PyPI build) "count cell".
        let (cell, count) = match (a.parse::<u64>(), b.parse::<u64>()) {
            (Err(_), Ok(count)) => (a, count),
            (Ok(count), Err(_)) => (b, count),
            _ => continue,
        };
        let c = cell.trim_start_matches('$');
        if c.starts_with("LUT") && c.len() == 4 {
            s.lut += count;
        } else if matches!(c, "FDRE" | "FDSE" | "FDCE" | "FDPE") {
            s.ff += count;
        } else if c.starts_with("RAMB18") || c.starts_with("RAMB36") {
            s.bram += count;
        } else if c.starts_with("RAM") {
            s.lutram += count;
        } else if c.starts_with("CARRY") {
            s.carry += count;
        } else if c.starts_with("MUXF") {
            s.muxf += count;
        } else if c.starts_with("DSP") {
            s.dsp += count;
        }
    }
    s
}

/// The Verilog of the kernel (`rhdl_ubft::kernel::verilog`,
/// `rtl/rhdl_ubft.v` at the default N), for the build N: the kernel of the
/// default table.
fn kernel_verilog(n: usize) -> Result<String> {
    use rhdl_ubft::kernel::verilog;
    let v = match n {
        1 => verilog::<1>(),
        3 => verilog::<3>(),
        5 => verilog::<5>(),
        7 => verilog::<7>(),
        8 => verilog::<8>(),
        _ => return Err(format!("--n {n}: builds are 1, 3, 5, 7 and 8")),
    };
    Ok(v.replace("top$", "rhdl_ubft$"))
}

/// Synthesises the kernel (or one block alone) for each N, prints the
/// table and writes docs/resources.md (a block: its own section; the
/// kernel: also each block's deepest register-to-register path).
pub fn synth(ns: &[usize], flatten: bool, block: Option<&str>) -> Result {
    let (rows, version) = synth_stats(ns, flatten, block)?;
    match block {
        Some(b) => write_block_resources(b, &rows, &version, flatten),
        None => {
            let n = *ns.last().unwrap_or(&rhdl_ubft::params::N);
            let depths = depths(n)?;
            write_resources(&rows, &version, flatten, n, &depths)
        }
    }
}

/// The blocks of the kernel whose register-to-register depth `cargo
/// xtask synth` reports: (module under the top, what it is). WATCH's
/// Fetch is the module of `fetch`.
const BLOCKS: [(&str, &str); 23] = [
    ("", "the whole kernel (paths across blocks)"),
    ("control", "Control: s_axi_control"),
    ("protocol", "Protocol, with its machines"),
    ("protocol$leader", "LEADER"),
    ("protocol$fast", "FAST"),
    ("protocol$slow", "Slow: the f + 1 slow path"),
    ("protocol$view", "View: the view change"),
    ("protocol$cc", "CertCheck: a certificate inside a COMMIT"),
    ("protocol$requests", "Requests: the client requests held"),
    ("protocol$tally", "Tally (combinational: port to port)"),
    ("protocol$rr", "RemoteRead: the kept lock and its READs"),
    ("protocol$help", "Help: the decider's share"),
    ("fetch", "Fetch"),
    ("watch", "WATCH: the background poller"),
    ("rdmux", "RdMux: the two Fetches on m_axi_hbm's reads"),
    ("compose", "COMPOSE: a record's later beats"),
    ("broadcast", "Broadcast"),
    (
        "local_guard",
        "LocalGuard: the owner rule on the kernel's own writes",
    ),
    ("signing", "SignerPort"),
    ("roce", "RoCE adapter (combinational: port to port)"),
    ("guard", "Guard: the receive path"),
    ("rx_status", "RxStatus: the receive path's write statuses"),
    ("chain", "Chain: the SHA-256 chain of the decisions"),
];

/// One block's deepest path: cells on it, and its ends.
#[derive(Clone, Debug)]
pub struct Depth {
    pub about: &'static str,
    pub cells: usize,
    pub from: String,
    pub to: String,
}

/// Levels of logic above which a path is at risk at 300 MHz on UltraScale+
/// (docs/resources.md says why).
pub const RISK_LEVELS: usize = 8;

/// The deepest register-to-register path of each block of the build N:
/// `synth_xilinx -flatten` with the block as top, then `ltp -noff` on every
/// cell but the flip-flops, so a path starts at a flip-flop's output or a
/// port and ends at a flip-flop's input or a port. The length counts LUTs,
/// MUXFs and CARRY4s alike.
pub fn depths(n: usize) -> Result<Vec<Depth>> {
    let yosys = hdl_tools::Yosys::get()?;
    let dir = root().join("target/synth");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let vf = dir.join(format!("rhdl_ubft_n{n}.v"));
    std::fs::write(&vf, kernel_verilog(n)?).map_err(|e| e.to_string())?;
    let mut out = vec![];
    for (block, about) in BLOCKS {
        let top = if block.is_empty() {
            "rhdl_ubft".to_string()
        } else {
            format!("rhdl_ubft${block}")
        };
        let tag = if block.is_empty() { "kernel" } else { block }.replace('$', "_");
        let lf = dir.join(format!("ltp_n{n}_{tag}.txt"));
        // The whole kernel's was written by `synth_stats`' run (flattened).
        if block.is_empty() && lf.exists() {
            let text = std::fs::read_to_string(&lf).map_err(|e| e.to_string())?;
            if let Some(d) = parse_ltp(&text, about) {
                println!(
                    "N = {n}: deepest path of {top}: {} cells: {} -> {}",
                    d.cells, d.from, d.to
                );
                out.push(d);
                continue;
            }
        }
        // Relative names, run from target/synth (see `synth_stats`).
        let script = format!(
            "read_verilog {}; synth_xilinx -family xcup -flatten -noiopad -top {top}; \
             tee -q -o {} ltp -noff * t:FD* %d",
            file_name(&vf),
            file_name(&lf)
        );
        println!("N = {n}: deepest path of {top} (yosys synth_xilinx; ltp -noff) …");
        let o = yosys
            .command()
            .args(["-q", "-p", &script])
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("yosys: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "yosys failed on {top}: {}",
                hdl_tools::tail(&String::from_utf8_lossy(&o.stderr), 20)
            ));
        }
        let text = std::fs::read_to_string(&lf).map_err(|e| e.to_string())?;
        let d =
            parse_ltp(&text, about).ok_or_else(|| format!("no ltp result in {}", lf.display()))?;
        println!("  {} cells: {} -> {}", d.cells, d.from, d.to);
        out.push(d);
    }
    Ok(out)
}

/// `Longest topological path in M (length=L):` and its numbered nodes.
fn parse_ltp(text: &str, about: &'static str) -> Option<Depth> {
    let i = text.find("(length=")?;
    let cells: usize = text[i + 8..].split(')').next()?.trim().parse().ok()?;
    let nodes: Vec<String> = text[i..]
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (num, rest) = l.trim().split_once(": ")?;
            num.parse::<usize>().ok()?;
            Some(rest.split(" (via").next()?.trim().to_string())
        })
        .collect();
    // Internal names (`$abc$...`) say nothing; show the nearest named wire.
    let named = |w: Option<&String>| {
        w.map(|w| w.trim_start_matches('\\').to_string())
            .unwrap_or_else(|| "(unnamed)".into())
    };
    let is_named = |w: &&String| w.starts_with('\\');
    Some(Depth {
        about,
        cells,
        from: named(nodes.iter().find(is_named)),
        // The path's end: the last named wire after its start.
        to: named(nodes.iter().skip(1).rev().find(is_named)),
    })
}

/// Synthesises and prints the table only (the benchmark's resources line).
pub fn synth_rows(ns: &[usize], flatten: bool) -> Result {
    synth_stats(ns, flatten, None).map(|_| ())
}

fn synth_stats(ns: &[usize], flatten: bool, block: Option<&str>) -> Result<(Vec<Stat>, String)> {
    let yosys = hdl_tools::Yosys::get()?;
    let version = yosys.version.clone();
    let dir = root().join("target/synth");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut rows = vec![];
    for &n in ns {
        let (top, v) = match block {
            None => ("rhdl_ubft", kernel_verilog(n)?),
            Some(b) => crate::block_verilog(b, n)?,
        };
        let vf = dir.join(format!("{top}_n{n}.v"));
        let sf = dir.join(format!("stat_{top}_n{n}.txt"));
        let lf = dir.join(format!("yosys_{top}_n{n}.log"));
        std::fs::write(&vf, v).map_err(|e| e.to_string())?;
        // The whole kernel's deepest path comes from this run too (`depths`),
        // when it is flattened.
        let ltp = dir.join(format!("ltp_n{n}_kernel.txt"));
        let _ = std::fs::remove_file(&ltp);
        let ltp_cmd = if flatten {
            format!("; tee -q -o {} ltp -noff * t:FD* %d", file_name(&ltp))
        } else {
            String::new()
        };
        // Relative names, run from target/synth: the YoWASP Yosys sees the
        // working directory but mounts its own directory over /tmp.
        let script =
            format!(
            "read_verilog {}; synth_xilinx -family xcup {}-noiopad -top {top}; tee -q -o {} stat{}",
            file_name(&vf),
            if flatten { "-flatten " } else { "" },
            file_name(&sf),
            if block.is_none() { ltp_cmd.as_str() } else { "" },
        );
        println!(
            "{top}, N = {n}: yosys synth_xilinx -family xcup{} …",
            if flatten { " -flatten" } else { "" }
        );
        let t = Instant::now();
        let out = yosys
            .command()
            .args(["-q", "-l", &file_name(&lf), "-p", &script])
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("yosys: {e}"))?;
        let secs = t.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(format!("yosys failed for N = {n} (log: {})", lf.display()));
        }
        let text = std::fs::read_to_string(&sf).map_err(|e| e.to_string())?;
        let mut s = parse_stat(&text);
        s.n = n;
        s.secs = secs;
        rows.push(s);
    }
    print!("{}", resources_table(&rows));
    Ok((rows, version))
}

/// Where the blocks' sections start in docs/resources.md.
const BLOCKS_MARK: &str = "<!-- block: written by `cargo xtask synth --block";

/// The blocks' sections of docs/resources.md, which `cargo xtask synth`
/// keeps when it rewrites the kernel's part: each from its start mark to
/// its end mark, and nothing else (no text between them).
fn blocks_part() -> String {
    let Ok(text) = std::fs::read_to_string(root().join("docs/resources.md")) else {
        return String::new();
    };
    let mut kept = vec![];
    let mut rest = text.as_str();
    while let Some(i) = rest.find(BLOCKS_MARK) {
        rest = &rest[i..];
        let block = rest[BLOCKS_MARK.len()..]
            .trim_start()
            .split('`')
            .next()
            .unwrap_or_default()
            .to_string();
        let end = format!("<!-- end of block {block} -->\n");
        let Some(j) = rest.find(&end) else {
            break;
        };
        if block != "kernel" {
            kept.push(&rest[..j + end.len()]);
        }
        rest = &rest[j + end.len()..];
    }
    kept.join("\n")
}

/// A block's section of docs/resources.md: replaces the block's previous
/// section and keeps everything else.
fn write_block_resources(block: &str, rows: &[Stat], version: &str, flatten: bool) -> Result {
    let path = root().join("docs/resources.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("docs/resources.md: {e}"))?;
    let start = format!("{BLOCKS_MARK} {block}`; rerun it to refresh -->");
    let end = format!("<!-- end of block {block} -->\n");
    let (source, layout) = block_source(block);
    let of = match layout {
        Some(layout) => format!(
            "`{source}`: the {layout} layout of N replicas, window G = {}, shares of SB = {} beat",
            rhdl_ubft::params::G,
            rhdl_ubft::params::SB
        ),
        None => format!("`{source}`, one size for every N"),
    };
    let section = format!(
        "{start}\n## The {block} block alone\n\n\
`cargo xtask synth --block {block}` runs the kernel's Yosys script (`synth_xilinx -family xcup{} -noiopad`) \
on the block's Verilog alone ({of}). {}\n\n\
- tool: {version}\n\n{}{end}",
        if flatten { " -flatten" } else { "" },
        block_note(block),
        resources_table(rows)
    );
    let new = match (text.find(&start), text.find(&end)) {
        (Some(a), Some(b)) if b > a => {
            format!("{}{section}{}", &text[..a], &text[b + end.len()..])
        }
        _ => {
            let sep = if text.ends_with("\n\n") { "" } else { "\n" };
            format!("{text}{sep}{section}")
        }
    };
    write_or_check("docs/resources.md", &new, false, "cargo xtask synth")
}

/// What a block is, in its section of docs/resources.md.
fn block_note(block: &str) -> &'static str {
    match block {
        "guard" => "The kernel's guard (`guard::Guard`, docs/guard.md): it streams records past its two-beat buffer.",
        "watch" => "WATCH, the replica's background poller (docs/watch.md); in the kernel on a Fetch of its own through RdMux.",
        "compose" => "COMPOSE, the record composer (docs/compose.md).",
        "cert_check" => "CertCheck, the check of a certificate inside a peer's COMMIT for R24 (docs/cert_check.md); in the kernel's Protocol.",
        "rdmux" => "RdMux, the two-master AXI4 read multiplexer in front of `m_axi_hbm` (docs/rdmux.md).",
        "rx_status" => "RxStatus, the write statuses for the stack's ACK (docs/rx_status.md).",
        "chain" => "Chain, the SHA-256 chain of the decisions on `m_axis_dec` (docs/chain.md).",
        "kernel" => "The kernel (rtl/rhdl_ubft.v), the one of the tables at the top; `cargo xtask synth` drops this section.",
        _ => "",
    }
}

/// The function a block's Verilog comes from, and its layout (none: the
/// block has one size for every N).
fn block_source(block: &str) -> (String, Option<&'static str>) {
    match block {
        "guard" => ("rhdl_ubft::guard::verilog::<N>()".into(), Some("v3")),
        "watch" => (
            "rhdl_ubft::controller::watch::verilog::<N>()".into(),
            Some("v3"),
        ),
        "compose" => ("rhdl_ubft::io::compose::verilog()".into(), None),
        "rdmux" => ("rhdl_ubft::io::rdmux::verilog()".into(), None),
        "rx_status" => ("rhdl_ubft::io::rx_status::verilog()".into(), None),
        "cert_check" => ("rhdl_ubft::controller::cert_check::verilog()".into(), None),
        "chain" => ("rhdl_ubft::controller::chain::verilog()".into(), None),
        "kernel" => ("rhdl_ubft::kernel::verilog::<N>()".into(), Some("v3")),
        b => (format!("rhdl_ubft::{b}::verilog::<N>()"), Some("v3")),
    }
}

fn depth_table(depths: &[Depth]) -> String {
    let mut t = String::from(
        "| block | cells on the deepest path | at risk at 300 MHz (> RISK) | from | to |\n\
         | --- | ---: | --- | --- | --- |\n",
    )
    .replace("RISK", &RISK_LEVELS.to_string());
    for d in depths {
        t += &format!(
            "| {} | {} | {} | `{}` | `{}` |\n",
            d.about,
            d.cells,
            if d.cells > RISK_LEVELS {
                "**yes**"
            } else {
                "no"
            },
            d.from,
            d.to
        );
    }
    t
}

fn write_resources(
    rows: &[Stat],
    version: &str,
    flatten: bool,
    n: usize,
    depths: &[Depth],
) -> Result {
    let table = resources_table(rows);
    let dtable = depth_table(depths);
    let md = format!(
        "<!-- written by `cargo xtask synth`; rerun it to refresh -->\n\
# Resources (estimates)\n\n\
Yosys estimates, not Vivado: `synth_xilinx -family xcup{} -noiopad` (UltraScale+ cells, no I/O buffers) \
on the kernel (`rhdl_ubft::kernel::verilog::<N>()`; `rtl/rhdl_ubft.v` is its \
N = {}), for each N. Yosys maps to CARRY4 rather than CARRY8 and does no timing-driven optimisation or \
retiming: the figures give scale and trends.\n\n\
- tool: {version}\n- time: the Yosys run per N, on a 2-core machine\n\n{table}\n\
LUT = LUT1…LUT6; FF = FDRE/FDSE/FDCE/FDPE; LUTRAM = RAM* cells other than RAMB18/36; BRAM = RAMB18/RAMB36; \
CARRY = CARRY4/CARRY8; MUXF = MUXF7/8/9. Shares are of a U280's {} LUTs and {} FFs.\n\n\
The kernel is the whole top: Control (AXI4-Lite), Protocol (LEADER, FAST, SLOW, VIEW, CertCheck, \
Requests, Tally, Timer, Ledger, Grants, Encoder, SlotRecords and Counters), Fetch, WATCH with a Fetch of its own and RdMux, COMPOSE, Broadcast, SignerPort, the \
RoCE adapter and Guard (the receive path, `m_axi_rx`).\n\n\
## Logic depth (N = {n})\n\n\
The deepest register-to-register path of each block: `synth_xilinx -family xcup -flatten -noiopad` \
with the block as top, then `ltp -noff` over every cell but the flip-flops, so a path runs from a \
flip-flop or an input port to a flip-flop or an output port. A block's ports are path ends, so a path \
that crosses blocks shows whole only in the first row. The count is of cells: LUTs, MUXF7/8 and CARRY4 \
alike.\n\n{dtable}\n\
A 300 MHz clock leaves 3.33 ns per cycle. On UltraScale+ (the U280 is speed grade -2) a LUT costs \
about 0.1-0.15 ns and its route 0.2-0.4 ns, and the flip-flop's clock-to-out, setup and clock skew \
about 0.5 ns, so about {RISK_LEVELS} levels fill the cycle and rows marked **yes** are at risk. Every \
cell counts as a level here, which overstates paths through CARRY4 chains (about 0.05 ns a step).\n",
        if flatten { " -flatten" } else { "" },
        rhdl_ubft::params::N,
        U280_LUTS,
        U280_FFS
    );
    let blocks = blocks_part();
    let md = if blocks.is_empty() {
        md
    } else {
        format!("{md}\n{blocks}")
    };
    write_or_check("docs/resources.md", &md, false, "cargo xtask synth")
}

fn resources_table(rows: &[Stat]) -> String {
    let mut t = String::from(
        "| N | LUT | LUT % U280 | FF | FF % U280 | LUTRAM | BRAM | CARRY | MUXF | DSP | yosys time |\n\
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for s in rows {
        t += &format!(
            "| {} | {} | {:.3} % | {} | {:.3} % | {} | {} | {} | {} | {} | {:.0} s |\n",
            s.n,
            s.lut,
            100.0 * s.lut as f64 / U280_LUTS as f64,
            s.ff,
            100.0 * s.ff as f64 / U280_FFS as f64,
            s.lutram,
            s.bram,
            s.carry,
            s.muxf,
            s.dsp,
            s.secs
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block `cargo xtask synth` reports a depth for is a module of
    /// the kernel's Verilog (a renamed block would fail only in a long
    /// Yosys run otherwise).
    #[test]
    fn the_depth_blocks_are_modules_of_the_kernel() {
        let v = kernel_verilog(3).unwrap();
        for (block, about) in BLOCKS {
            let module = if block.is_empty() {
                "module rhdl_ubft(".to_string()
            } else {
                format!("module rhdl_ubft${block}(")
            };
            assert!(v.contains(&module), "{about}: no `{module}` in the Verilog");
        }
    }

    /// Both orders of Yosys's `stat` lines count: Debian's 0.23 ("FDRE 521")
    /// and the pinned PyPI 0.70 ("521 FDRE"); a parser that knew only one
    /// reported 0 LUT and 0 FF for the other.
    #[test]
    fn stat_lines_parse_in_both_yosys_orders() {
        let old = "=== top ===\n   Number of cells: 9\n     FDRE   521\n     LUT6   5\n     RAM32M16   37\n";
        let new = "=== top ===\n      579 cells\n      521   FDRE\n        5   LUT6\n       37   RAM32M16\n     2644 wire bits\n";
        for text in [old, new] {
            let s = parse_stat(text);
            assert_eq!((s.ff, s.lut, s.lutram), (521, 5, 37), "{text}");
        }
    }
}
