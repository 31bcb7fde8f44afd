//! The top module's ports, read from the generated Verilog, and the C++
//! harness (a C ABI over the Verilated model) generated from them.
//!
//! Nothing here names a kernel port: the port list comes from the
//! `module rhdl_ubft(...)` header and its `input`/`output` declarations, so a
//! port added, removed or resized in the Rust design changes the harness on
//! the next build without an edit.
//! The one exception, [`PROBES`], names two signals inside the kernel
//! that the shell brings out for a run's timeline; [`check_probes`] says
//! which one a changed design lost.

use super::portmap::{Field, Kind, PortMap};
use std::fmt::Write as _;

/// The top module's name in the exported Verilog.
pub const TOP: &str = "rhdl_ubft";
/// The clock port, driven by the harness itself (`ubft_eval`, `ubft_tick`).
pub const CLOCK: &str = "ap_clk";

/// One port of the top module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub input: bool,
    /// Width in bits.
    pub width: usize,
}

impl Port {
    /// 32-bit words the port takes in a buffer, word 0 lowest.
    pub fn words(&self) -> usize {
        self.width.div_ceil(32)
    }

    /// The mask of the port's last (highest) word.
    pub fn last_mask(&self) -> u32 {
        match self.width % 32 {
            0 => u32::MAX,
            r => (1u32 << r) - 1,
        }
    }
}

/// The ports of `module <top>(...)` in header order, with their directions
/// and widths from the declarations in the module body.
pub fn parse_ports(verilog: &str, top: &str) -> Result<Vec<Port>, String> {
    let head = format!("module {top}(");
    let start = verilog
        .find(&head)
        .ok_or_else(|| format!("no `{head}...` in the Verilog"))?;
    let rest = &verilog[start + head.len()..];
    let close = rest
        .find(");")
        .ok_or_else(|| format!("module {top}: the port list is not closed"))?;
    let names: Vec<&str> = rest[..close]
        .split(',')
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    let body_end = rest.find("endmodule").unwrap_or(rest.len());
    let body = &rest[close + 2..body_end];
    let mut decls: Vec<(String, bool, usize)> = vec![];
    for line in body.lines() {
        let t = line.trim();
        let (input, t) = if let Some(t) = t.strip_prefix("input ") {
            (true, t)
        } else if let Some(t) = t.strip_prefix("output ") {
            (false, t)
        } else if t.starts_with("inout ") {
            return Err(format!("module {top}: inout ports are not supported: {t}"));
        } else {
            continue;
        };
        let t = t.trim_start();
        let t = t
            .strip_prefix("wire")
            .or_else(|| t.strip_prefix("reg"))
            .unwrap_or(t)
            .trim_start();
        let t = t.strip_prefix("signed").unwrap_or(t).trim_start();
        let (width, t) = if let Some(r) = t.strip_prefix('[') {
            let end = r
                .find(']')
                .ok_or_else(|| format!("bad range in `{line}`"))?;
            let (msb, lsb) = r[..end]
                .split_once(':')
                .ok_or_else(|| format!("bad range in `{line}`"))?;
            let msb: usize = msb
                .trim()
                .parse()
                .map_err(|_| format!("bad range in `{line}`"))?;
            let lsb: usize = lsb
                .trim()
                .parse()
                .map_err(|_| format!("bad range in `{line}`"))?;
            if lsb != 0 || msb < lsb {
                return Err(format!("module {top}: ranges must be [msb:0]: `{line}`"));
            }
            (msb + 1, &r[end + 1..])
        } else {
            (1, t)
        };
        for name in t.trim().trim_end_matches(';').split(',') {
            decls.push((name.trim().to_string(), input, width));
        }
    }
    names
        .iter()
        .map(|&n| {
            decls
                .iter()
                .find(|d| d.0 == n)
                .map(|d| Port {
                    name: n.to_string(),
                    input: d.1,
                    width: d.2,
                })
                .ok_or_else(|| format!("module {top}: port `{n}` has no input/output declaration"))
        })
        .collect()
}

/// C++ type of a port in a Verilated model.
fn ctype(width: usize) -> &'static str {
    match width {
        0..=8 => "CData",
        9..=16 => "SData",
        17..=32 => "IData",
        33..=64 => "QData",
        _ => "VlWide",
    }
}

/// The shell's top module: the kernel with its inputs behind registers.
pub const SHELL: &str = "ubft_shell";
/// The shell's clock of the kernel (`ap_clk`).
pub const SHELL_CLK: &str = "ubft_clk";
/// The shell's clock of its input registers.
pub const SHELL_LOAD: &str = "ubft_load";

/// A signal inside the kernel that the shell brings out as an output of its
/// own, `p_<name>`, read with `ubft_probe(m, i)` (i its index in [`PROBES`])
/// when a run asks (the rust-hdl backend reads the same signal directly).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub name: &'static str,
    /// The signal in the top module: `<block>$<port>`, as rust-hdl names the
    /// port of a child block.
    pub wire: &'static str,
    pub width: usize,
}

/// What the probes read: the status values the control block serves as the
/// `state` and `timeouts` registers, as they stand in each cycle (the
/// host's reads of them take cycles of their own, and runs read them only
/// at the end).
pub const PROBES: [Probe; 2] = [
    Probe {
        name: "state",
        wire: "control$sts_state",
        width: 8,
    },
    Probe {
        name: "timeouts",
        wire: "control$sts_timeouts",
        width: 32,
    },
];
/// `PROBES[PROBE_STATE]`: the controller's state (`status::STATE_NAMES`).
pub const PROBE_STATE: usize = 0;
/// `PROBES[PROBE_TIMEOUTS]`: the `timeouts` counter.
pub const PROBE_TIMEOUTS: usize = 1;

/// An error naming the first probe whose wire `module <top>` does not
/// declare (a renamed block or port).
pub fn check_probes(verilog: &str, top: &str) -> Result<(), String> {
    let head = format!("module {top}(");
    let start = verilog
        .find(&head)
        .ok_or_else(|| format!("no `{head}...` in the Verilog"))?;
    let rest = &verilog[start..];
    let body = &rest[..rest.find("endmodule").unwrap_or(rest.len())];
    for p in &PROBES {
        let declared = body.lines().any(|l| {
            let t = l.trim();
            (t.starts_with("wire") || t.starts_with("reg"))
                && t.strip_suffix(';')
                    .is_some_and(|t| t.split_whitespace().last() == Some(p.wire))
        });
        if !declared {
            return Err(format!(
                "module {top} declares no `{}`, which the probe `{}` reads (harness::PROBES)",
                p.wire, p.name
            ));
        }
    }
    Ok(())
}

/// The shell the harness drives: `i_<port>` inputs, registered on the
/// rising edge of `ubft_load`, feed the kernel; `ubft_clk` is its `ap_clk`;
/// its outputs are `o_<port>`, and the probes' `p_<name>` ([`PROBES`]).
///
/// Why: a cycle is "the clock edge that ends cycle c - 1, then cycle c's
/// inputs, then settle". Driving the kernel's inputs directly, Verilator
/// settles the logic twice per cycle (after the edge with the old inputs,
/// and again with the new ones). With the inputs registered, one `eval()`
/// with both clocks rising does the edge and loads the new inputs at once,
/// and the logic settles once. The kernel's registers sample what they
/// sampled before: their inputs were settled by the previous `eval()`.
pub fn shell_verilog(ports: &[Port], top: &str) -> String {
    let mut v = String::new();
    let ins: Vec<&Port> = ports
        .iter()
        .filter(|p| p.input && p.name != CLOCK)
        .collect();
    let outs: Vec<&Port> = ports.iter().filter(|p| !p.input).collect();
    let range = |p: &Port| {
        if p.width > 1 {
            format!("[{}:0] ", p.width - 1)
        } else {
            String::new()
        }
    };
    let mut names = vec![SHELL_CLK.to_string(), SHELL_LOAD.to_string()];
    names.extend(ins.iter().map(|p| format!("i_{}", p.name)));
    names.extend(outs.iter().map(|p| format!("o_{}", p.name)));
    names.extend(PROBES.iter().map(|p| format!("p_{}", p.name)));
    let _ = writeln!(
        v,
        "// Generated by ubft_sim::backend::verilator (harness.rs); do not edit.\n\
         module {SHELL}({});\n  input {SHELL_CLK};\n  input {SHELL_LOAD};",
        names.join(", ")
    );
    for p in &ins {
        let _ = writeln!(v, "  input {}i_{};", range(p), p.name);
        let _ = writeln!(v, "  reg {}q_{};", range(p), p.name);
    }
    for p in &outs {
        let _ = writeln!(v, "  output {}o_{};", range(p), p.name);
    }
    for p in &PROBES {
        let _ = writeln!(
            v,
            "  output [{}:0] p_{};\n  assign p_{1} = kernel.{};",
            p.width - 1,
            p.name,
            p.wire
        );
    }
    let _ = writeln!(v, "  always @(posedge {SHELL_LOAD}) begin");
    for p in &ins {
        let _ = writeln!(v, "    q_{0} <= i_{0};", p.name);
    }
    let _ = writeln!(v, "  end\n  {top} kernel(\n    .{CLOCK}({SHELL_CLK}),");
    let conns: Vec<String> = ins
        .iter()
        .map(|p| format!("    .{0}(q_{0})", p.name))
        .chain(outs.iter().map(|p| format!("    .{0}(o_{0})", p.name)))
        .collect();
    let _ = writeln!(v, "{}\n  );\nendmodule", conns.join(",\n"));
    v
}

/// The model's state, and in a traced build (`--trace`, so `VM_TRACE` is
/// 1) its VCD writer and the window of cycles it dumps (`trace.rs`):
/// `ubft_trace_open(m, path, from, to)`, 0 if the file opened, and
/// `ubft_trace_close(m)`. In the normal build `VM_TRACE` is 0 and none of
/// it is compiled.
const TRACE_HEAD: &str = r#"#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

struct Model {
  VerilatedContext ctx;
  VSHELL* m;
#if VM_TRACE
  VerilatedVcdC* tfp = nullptr;
  uint64_t cycle = 0, from = 0, to = 0;
#endif
};

#if VM_TRACE
extern "C" int ubft_trace_open(void* p, const char* path, uint64_t from, uint64_t to) {
  Model* x = (Model*)p;
  if (x->tfp) return 1;
  x->tfp = new VerilatedVcdC;
  x->m->trace(x->tfp, 99);
  x->tfp->open(path);
  if (!x->tfp->isOpen()) { delete x->tfp; x->tfp = nullptr; return 1; }
  x->from = from;
  x->to = to;
  return 0;
}

extern "C" void ubft_trace_close(void* p) {
  Model* x = (Model*)p;
  if (x->tfp) { x->tfp->close(); delete x->tfp; x->tfp = nullptr; }
}
#endif
"#;

/// In `ubft_eval`, a traced build dumps cycle c at time 10c (the edge and
/// c's inputs, settled: what the models see in cycle c) and 10c + 5 (the
/// clocks low) while c is in the window.
const TRACE_DUMP: &str = "#if VM_TRACE\n  { Model* x = (Model*)p; if (x->tfp && x->cycle >= x->from && x->cycle <= x->to) x->tfp->dump(10 * x->cycle + {PHASE}); }\n#endif\n";
/// ... and counts the cycle.
const TRACE_NEXT: &str = "#if VM_TRACE\n  ((Model*)p)->cycle++;\n#endif\n";

/// The C++ harness: a C ABI over `V<SHELL>`.
///
/// - `ubft_create()`, `ubft_destroy(m)`: one model, with its own context;
///   created with both clocks low and settled once (the `initial` blocks).
/// - `ubft_port_count()`, `ubft_port_name(i)`, `ubft_port_width(i)`,
///   `ubft_port_is_input(i)`: the kernel's port table (header order) it was
///   built for; `ubft_struct_sizes(in, out)`: the sizes of `KernelIn` and
///   `KernelOut` it was built for.
/// - `ubft_set(m, i, words)`, `ubft_get(m, i, words)`: kernel port i (an
///   input: the value the next `ubft_eval` registers) from/to a
///   little-endian array of 32-bit words, word 0 lowest.
/// - `ubft_eval(m, edge, in, out)`: the cycle. Every input from the
///   `KernelIn` at `in` (each port from its field, `map`), both clocks rise
///   (only `ubft_load` if `edge` is 0: no edge of the kernel's clock since
///   the last call), settle, every output into the `KernelOut` at `out`,
///   then both clocks fall (this settles nothing: the kernel's inputs are
///   registers).
/// - `ubft_probe(m, i)`: probe i ([`PROBES`]) as the last `ubft_eval`
///   left it; nothing calls it unless a run asks.
pub fn harness_cpp(ports: &[Port], map: &PortMap) -> String {
    let v = format!("V{SHELL}");
    let head = TRACE_HEAD.replace("VSHELL", &v);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by ubft_sim::backend::verilator (harness.rs) from the ports of `{TOP}`; do not edit.\n\
         #include \"{v}.h\"\n#include \"verilated.h\"\n#include <cstdint>\n#include <cstring>\n{head}\n\
         extern \"C\" {{\n"
    );
    let _ = writeln!(s, "static const char* NAMES[] = {{");
    for p in ports {
        let _ = writeln!(s, "  \"{}\",", p.name);
    }
    let _ = writeln!(s, "}};\nstatic const uint32_t WIDTHS[] = {{");
    for p in ports {
        let _ = writeln!(s, "  {},", p.width);
    }
    let _ = writeln!(s, "}};\nstatic const int INPUTS[] = {{");
    for p in ports {
        let _ = writeln!(s, "  {},", p.input as u8);
    }
    let _ = writeln!(
        s,
        "}};\n\
         uint32_t ubft_port_count() {{ return {n}; }}\n\
         const char* ubft_port_name(uint32_t i) {{ return i < {n} ? NAMES[i] : nullptr; }}\n\
         uint32_t ubft_port_width(uint32_t i) {{ return i < {n} ? WIDTHS[i] : 0; }}\n\
         int ubft_port_is_input(uint32_t i) {{ return i < {n} ? INPUTS[i] : -1; }}\n\
         void ubft_struct_sizes(uint64_t* in, uint64_t* out) {{ *in = {si}; *out = {so}; }}\n\n\
         void* ubft_create() {{\n\
         \x20 Model* x = new Model;\n\
         \x20 x->ctx.commandArgs(0, (const char**)nullptr);\n\
         #if VM_TRACE\n\
         \x20 x->ctx.traceEverOn(true);\n\
         #endif\n\
         \x20 x->m = new {v}{{&x->ctx}};\n\
         \x20 x->m->{SHELL_CLK} = 0;\n\
         \x20 x->m->{SHELL_LOAD} = 0;\n\
         \x20 x->m->eval();\n\
         \x20 return x;\n}}\n\n\
         void ubft_destroy(void* p) {{\n\
         \x20 Model* x = (Model*)p;\n\
         #if VM_TRACE\n\
         \x20 ubft_trace_close(p);\n\
         #endif\n\
         \x20 x->m->final();\n\
         \x20 delete x->m;\n\
         \x20 delete x;\n}}\n",
        n = ports.len(),
        si = std::mem::size_of::<crate::ports::KernelIn>(),
        so = std::mem::size_of::<crate::ports::KernelOut>(),
    );
    // The shell's member for kernel port p.
    let member = |p: &Port| {
        if p.name == CLOCK {
            SHELL_CLK.to_string()
        } else if p.input {
            format!("i_{}", p.name)
        } else {
            format!("o_{}", p.name)
        }
    };
    // Port words <-> a shell port (ubft_set, ubft_get).
    let set = |p: &Port, w: &str| -> String {
        let n = member(p);
        let mask = p.last_mask();
        match ctype(p.width) {
            "QData" => {
                let hi = if p.words() > 1 {
                    format!("((QData)({w}[1] & {mask}u) << 32)")
                } else {
                    "0".into()
                };
                let lo_mask = if p.words() > 1 { u32::MAX } else { mask };
                format!("m->{n} = (QData)({w}[0] & {lo_mask}u) | {hi};")
            }
            "VlWide" => {
                let k = p.words();
                format!(
                    "for (int j = 0; j < {k}; j++) m->{n}[j] = {w}[j]; m->{n}[{}] &= {mask}u;",
                    k - 1
                )
            }
            t => format!("m->{n} = ({t})({w}[0] & {mask}u);"),
        }
    };
    let get = |p: &Port, w: &str| -> String {
        let n = member(p);
        match ctype(p.width) {
            "QData" if p.words() > 1 => {
                format!("{w}[0] = (uint32_t)m->{n}; {w}[1] = (uint32_t)(m->{n} >> 32);")
            }
            "VlWide" => format!(
                "for (int j = 0; j < {}; j++) {w}[j] = m->{n}[j];",
                p.words()
            ),
            _ => format!("{w}[0] = (uint32_t)m->{n};"),
        }
    };
    let _ = writeln!(
        s,
        "void ubft_set(void* p, uint32_t i, const uint32_t* w) {{\n  {v}* m = ((Model*)p)->m;\n  switch (i) {{"
    );
    for (i, p) in ports.iter().enumerate().filter(|(_, p)| p.input) {
        let _ = writeln!(s, "  case {i}: {} break;", set(p, "w"));
    }
    let _ = writeln!(s, "  default: break;\n  }}\n}}\n");
    let _ = writeln!(
        s,
        "void ubft_get(void* p, uint32_t i, uint32_t* w) {{\n  {v}* m = ((Model*)p)->m;\n  switch (i) {{"
    );
    for (i, p) in ports.iter().enumerate() {
        let _ = writeln!(s, "  case {i}: {} break;", get(p, "w"));
    }
    let _ = writeln!(s, "  default: break;\n  }}\n}}\n");
    let _ = writeln!(
        s,
        "uint32_t ubft_probe(void* p, uint32_t i) {{\n  {v}* m = ((Model*)p)->m;\n  switch (i) {{"
    );
    for (i, p) in PROBES.iter().enumerate() {
        let _ = writeln!(s, "  case {i}: return (uint32_t)m->p_{};", p.name);
    }
    let _ = writeln!(s, "  default: return 0;\n  }}\n}}\n");
    // The cycle: fields -> ports, edge, ports -> fields.
    let _ = writeln!(
        s,
        "void ubft_eval(void* p, int edge, const uint8_t* in, uint8_t* out) {{\n  {v}* m = ((Model*)p)->m;"
    );
    for b in &map.inputs {
        let p = &b.port;
        let n = member(p);
        let copy = field_to_port(&n, p, &b.field);
        match b.when {
            Some(w) => {
                let _ = writeln!(s, "  if (in[{}]) {{ {copy} }}", w.offset);
            }
            None => {
                let _ = writeln!(s, "  {{ {copy} }}");
            }
        }
    }
    let _ = writeln!(
        s,
        "  m->{SHELL_LOAD} = 1;\n  if (edge) m->{SHELL_CLK} = 1;\n  m->eval();\n{}",
        TRACE_DUMP.replace("{PHASE}", "0")
    );
    for b in &map.outputs {
        let p = &b.port;
        let n = member(p);
        let copies: Vec<String> = b
            .parts
            .iter()
            .map(|(lo, f)| port_to_field(&n, p, *lo, f))
            .collect();
        match b.qualifier {
            Some(q) => {
                let qn = member(&map.outputs[q].port);
                let zero: Vec<String> = b
                    .parts
                    .iter()
                    .map(|(_, f)| format!("memset(out + {}, 0, {});", f.offset, f.kind.bytes()))
                    .collect();
                let _ = writeln!(
                    s,
                    "  if (m->{qn}) {{ {} }} else {{ {} }}",
                    copies.join(" "),
                    zero.join(" ")
                );
            }
            None => {
                let _ = writeln!(s, "  {{ {} }}", copies.join(" "));
            }
        }
    }
    let _ = writeln!(
        s,
        "  m->{SHELL_LOAD} = 0;\n  m->{SHELL_CLK} = 0;\n  m->eval();\n{}{}}}\n\n}}  // extern \"C\"",
        TRACE_DUMP.replace("{PHASE}", "5"),
        TRACE_NEXT
    );
    s
}

/// The C type of a field of `kind`.
fn field_ctype(kind: &Kind) -> &'static str {
    match kind {
        Kind::Bool | Kind::Uint(1) => "uint8_t",
        Kind::Uint(2) => "uint16_t",
        Kind::Uint(4) => "uint32_t",
        Kind::Uint(8) => "uint64_t",
        Kind::Uint(_) | Kind::Words(_) => unreachable!("not a scalar field"),
    }
}

/// C++ copying the field at `in + f.offset` into the shell's input `n`,
/// masked to the port's width (`PortMap::new` checked that it fits).
fn field_to_port(n: &str, p: &Port, f: &Field) -> String {
    match f.kind {
        Kind::Words(k) => {
            let words = p.words().min(k);
            let mut c = format!("memcpy(m->{n}.data(), in + {}, {});", f.offset, 4 * words);
            for j in words..p.words() {
                c += &format!(" m->{n}[{j}] = 0;");
            }
            c + &format!(" m->{n}[{}] &= {}u;", p.words() - 1, p.last_mask())
        }
        kind => {
            let t = field_ctype(&kind);
            let mask = if p.width >= 64 {
                u64::MAX
            } else {
                (1u64 << p.width) - 1
            };
            format!(
                "{t} v; memcpy(&v, in + {}, sizeof v); m->{n} = ({})(v & {mask}ull);",
                f.offset,
                ctype(p.width)
            )
        }
    }
}

/// C++ copying bits `lo..` of the shell's output `n` into the field at
/// `out + f.offset`.
fn port_to_field(n: &str, p: &Port, lo: usize, f: &Field) -> String {
    match f.kind {
        Kind::Words(k) => format!(
            "memcpy(out + {}, m->{n}.data() + {}, {});",
            f.offset,
            lo / 32,
            4 * k.min(p.words() - lo / 32)
        ),
        kind => {
            let t = field_ctype(&kind);
            let value = if p.width > 64 {
                unreachable!("checked by PortMap::new")
            } else if lo > 0 {
                format!("(m->{n} >> {lo})")
            } else {
                format!("m->{n}")
            };
            let value = if kind == Kind::Bool {
                format!("({value} & 1)")
            } else {
                value
            };
            format!(
                "{{ {t} v = ({t}){value}; memcpy(out + {}, &v, sizeof v); }}",
                f.offset
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: &str = "module sub(a);\n input wire a;\nendmodule\n\
        module rhdl_ubft(ap_clk,x,y,z);\n\n    // Module arguments\n    input wire  ap_clk;\n\
        input wire  [39:0] x;\n    output reg  [511:0] y;\n    output reg  z;\nendmodule\n";

    #[test]
    fn ports_come_from_the_header_and_declarations() {
        let p = parse_ports(V, TOP).unwrap();
        let got: Vec<(&str, bool, usize)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.input, p.width))
            .collect();
        assert_eq!(
            got,
            [
                ("ap_clk", true, 1),
                ("x", true, 40),
                ("y", false, 512),
                ("z", false, 1)
            ]
        );
        assert_eq!(p[1].words(), 2);
        assert_eq!(p[1].last_mask(), 0xff);
        let shell = shell_verilog(&p, TOP);
        assert!(
            shell.contains("  input [39:0] i_x;\n  reg [39:0] q_x;"),
            "{shell}"
        );
        assert!(shell.contains("    q_x <= i_x;"), "{shell}");
        assert!(
            shell.contains("    .ap_clk(ubft_clk),\n    .x(q_x),\n    .y(o_y),\n    .z(o_z)\n"),
            "{shell}"
        );
    }

    #[test]
    fn an_undeclared_port_is_an_error() {
        let v = V.replace("    output reg  z;\n", "");
        assert!(parse_ports(&v, TOP).unwrap_err().contains("`z`"));
    }

    #[test]
    fn the_probes_read_wires_of_the_top_module() {
        let decls = "    reg  [7:0] control$sts_state;\n    reg  [31:0] control$sts_timeouts;\n";
        let v = V.replace(
            "    output reg  z;\n",
            &format!("    output reg  z;\n{decls}"),
        );
        check_probes(&v, TOP).unwrap();
        let shell = shell_verilog(&parse_ports(&v, TOP).unwrap(), TOP);
        assert!(
            shell.contains(
                "  output [31:0] p_timeouts;\n  assign p_timeouts = kernel.control$sts_timeouts;"
            ),
            "{shell}"
        );
        // A wire of another module is not the top's.
        let v = V
            .replace(
                "    output reg  z;\n",
                "    output reg  z;\n    reg  [7:0] control$sts_state;\n",
            )
            .replace(" input wire a;\n", &format!(" input wire a;\n{decls}"));
        let e = check_probes(&v, TOP).unwrap_err();
        assert!(
            e.contains("`control$sts_timeouts`") && e.contains("`timeouts`"),
            "{e}"
        );
    }
}
