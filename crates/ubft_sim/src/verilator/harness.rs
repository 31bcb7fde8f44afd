//! The top module's ports, read from the generated Verilog, and the C++
//! harness (a C ABI over the Verilated model) generated from them.
//!
//! Nothing here names a kernel port: the port list comes from the
//! `module rhdl_ubft(...)` header and its `input`/`output` declarations, so a
//! port added, removed or resized in the Rust design changes the harness on
//! the next build without an edit.

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

/// The C++ harness: a C ABI over `V<top>`.
///
/// - `ubft_create()`, `ubft_destroy(m)`: one model, with its own context.
/// - `ubft_port_count()`, `ubft_port_name(i)`, `ubft_port_width(i)`,
///   `ubft_port_is_input(i)`: the port table (header order) it was built for.
/// - `ubft_set(m, i, words)`, `ubft_get(m, i, words)`: port i from/to a
///   little-endian array of 32-bit words, word 0 lowest.
/// - `ubft_settle(m)`: `eval()` as is.
/// - `ubft_eval(m, in, out)`: the clock low, every input but the clock from
///   the packed array `in` (inputs in header order, each `words()` long),
///   settle, every output into the packed array `out`.
/// - `ubft_tick(m)`: the clock high, settle (the rising edge).
pub fn harness_cpp(ports: &[Port], top: &str) -> String {
    let v = format!("V{top}");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by ubft_sim::verilator from the ports of `{top}`; do not edit.\n\
         #include \"{v}.h\"\n#include \"verilated.h\"\n#include <cstdint>\n\n\
         struct Model {{ VerilatedContext ctx; {v}* m; }};\n\n\
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
         uint32_t ubft_port_count() {{ return {}; }}\n\
         const char* ubft_port_name(uint32_t i) {{ return i < {0} ? NAMES[i] : nullptr; }}\n\
         uint32_t ubft_port_width(uint32_t i) {{ return i < {0} ? WIDTHS[i] : 0; }}\n\
         int ubft_port_is_input(uint32_t i) {{ return i < {0} ? INPUTS[i] : -1; }}\n\n\
         void* ubft_create() {{\n\
         \x20 Model* x = new Model;\n\
         \x20 x->ctx.commandArgs(0, (const char**)nullptr);\n\
         \x20 x->m = new {v}{{&x->ctx}};\n\
         \x20 x->m->{CLOCK} = 0;\n\
         \x20 return x;\n}}\n\n\
         void ubft_destroy(void* p) {{\n\
         \x20 Model* x = (Model*)p;\n\
         \x20 x->m->final();\n\
         \x20 delete x->m;\n\
         \x20 delete x;\n}}\n",
        ports.len()
    );
    // Per-port set/get bodies.
    let set = |p: &Port, m: &str, w: &str| -> String {
        let n = &member(&p.name);
        let mask = p.last_mask();
        match ctype(p.width) {
            "QData" => {
                let hi = if p.words() > 1 {
                    format!("((QData)({w}[1] & {mask}u) << 32)")
                } else {
                    "0".into()
                };
                let lo_mask = if p.words() > 1 { u32::MAX } else { mask };
                format!("{m}->{n} = (QData)({w}[0] & {lo_mask}u) | {hi};")
            }
            "VlWide" => {
                let k = p.words();
                format!(
                    "for (int j = 0; j < {k}; j++) {m}->{n}[j] = {w}[j]; {m}->{n}[{}] &= {mask}u;",
                    k - 1
                )
            }
            t => format!("{m}->{n} = ({t})({w}[0] & {mask}u);"),
        }
    };
    let get = |p: &Port, m: &str, w: &str| -> String {
        let n = &member(&p.name);
        match ctype(p.width) {
            "QData" if p.words() > 1 => {
                format!("{w}[0] = (uint32_t){m}->{n}; {w}[1] = (uint32_t)({m}->{n} >> 32);")
            }
            "VlWide" => format!(
                "for (int j = 0; j < {}; j++) {w}[j] = {m}->{n}[j];",
                p.words()
            ),
            _ => format!("{w}[0] = (uint32_t){m}->{n};"),
        }
    };
    let _ = writeln!(s, "void ubft_set(void* p, uint32_t i, const uint32_t* w) {{\n  {v}* m = ((Model*)p)->m;\n  switch (i) {{");
    for (i, p) in ports.iter().enumerate().filter(|(_, p)| p.input) {
        let _ = writeln!(s, "  case {i}: {} break;", set(p, "m", "w"));
    }
    let _ = writeln!(s, "  default: break;\n  }}\n}}\n");
    let _ = writeln!(s, "void ubft_get(void* p, uint32_t i, uint32_t* w) {{\n  {v}* m = ((Model*)p)->m;\n  switch (i) {{");
    for (i, p) in ports.iter().enumerate() {
        let _ = writeln!(s, "  case {i}: {} break;", get(p, "m", "w"));
    }
    let _ = writeln!(s, "  default: break;\n  }}\n}}\n");
    let _ = writeln!(
        s,
        "void ubft_settle(void* p) {{ ((Model*)p)->m->eval(); }}\n"
    );
    let _ = writeln!(
        s,
        "void ubft_eval(void* p, const uint32_t* in, uint32_t* out) {{\n  {v}* m = ((Model*)p)->m;\n  m->{CLOCK} = 0;"
    );
    let mut off = 0;
    for p in ports.iter().filter(|p| p.input && p.name != CLOCK) {
        let _ = writeln!(s, "  {}", set(p, "m", &format!("(in + {off})")));
        off += p.words();
    }
    let _ = writeln!(s, "  m->eval();");
    let mut off = 0;
    for p in ports.iter().filter(|p| !p.input) {
        let _ = writeln!(s, "  {}", get(p, "m", &format!("(out + {off})")));
        off += p.words();
    }
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(
        s,
        "void ubft_tick(void* p) {{\n  {v}* m = ((Model*)p)->m;\n  m->{CLOCK} = 1;\n  m->eval();\n}}\n\n}}  // extern \"C\""
    );
    s
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
        let cpp = harness_cpp(&p, TOP);
        assert!(
            cpp.contains(
                "m->x = (QData)((in + 0)[0] & 4294967295u) | ((QData)((in + 0)[1] & 255u) << 32);"
            ),
            "{cpp}"
        );
    }

    #[test]
    fn an_undeclared_port_is_an_error() {
        let v = V.replace("    output reg  z;\n", "");
        assert!(parse_ports(&v, TOP).unwrap_err().contains("`z`"));
    }
}

/// The C++ member Verilator gives a port: names it reserves (SystemVerilog
/// keywords such as `interrupt`, which Vitis requires as a port name) are
/// prefixed with `__SYM__`.
fn member(name: &str) -> String {
    const RESERVED: [&str; 1] = ["interrupt"];
    if RESERVED.contains(&name) {
        format!("__SYM__{name}")
    } else {
        name.to_string()
    }
}
