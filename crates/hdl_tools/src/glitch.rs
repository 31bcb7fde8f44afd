//! Glitch loops in rust-hdl's Verilog: a check that event-driven simulators
//! (Icarus, XSim, the commercial ones) settle every time step.
//!
//! rust-hdl writes each block's `update` as one `always @(*)` block. A
//! signal that block assigns twice on one path (a default, then an
//! override) changes twice whenever the block runs and the override is
//! taken: an event with no net change, a glitch. Every `always @(*)` that
//! reads the signal is woken by it. Verilator and rust-hdl's simulator
//! settle such a design; an event-driven simulator wakes the readers,
//! which run once with the settled values. That ends it, unless a woken
//! block glitches a signal of its own that wakes the first block again:
//! then the two wake each other without end at one time step, and
//! simulated time stops.
//!
//! [`loops`] finds those cycles. Its nodes are the `always @(*)` blocks;
//! an edge runs from block A to block B when A assigns some signal at least
//! twice on one path (a *glitching* signal, found by [`glitching`]) and that
//! signal's net, followed through every port connection, is read by B. A
//! block's own reads of what it glitches do not count: a running block is
//! not waiting on its sensitivity list. Registers (`always @(posedge ..)`)
//! are not nodes, so a glitch on a flip-flop's `d` goes nowhere. A strongly
//! connected component of two or more blocks is a loop an event-driven
//! simulator can hang in, whenever each glitch's override is live; the fix
//! is to assign one signal on the loop once on every path (if/else).
//!
//! The parser reads the Verilog rust-hdl writes (one module a line
//! `module NAME(...)`, instances as `TYPE NAME(.port(signal), ...);`, and
//! `always @(*) begin ... end` with `if`/`else`, `case`/`endcase` and
//! blocking assignments); it is not a general Verilog front end.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One glitch edge: `from` glitches `signal`, which `to` reads (the name in
/// `to`'s module, through the port connections).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: String,
    pub signal: String,
    pub to: String,
    pub read_as: String,
}

/// A loop: the blocks of one strongly connected component (by module
/// name) and the glitch edges among them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub blocks: Vec<String>,
    pub edges: Vec<Edge>,
}

impl std::fmt::Display for Loop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "glitch loop through {} always @(*) blocks: {}",
            self.blocks.len(),
            self.blocks.join(", ")
        )?;
        for e in &self.edges {
            writeln!(
                f,
                "  {} assigns `{}` more than once on a path; {} reads it as `{}`",
                e.from, e.signal, e.to, e.read_as
            )?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Num,
    Punct(String),
}

fn tokenize(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = vec![];
    while i < b.len() {
        let c = b[i] as char;
        if c == '/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' || c == '\\' {
            let st = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
        } else if c.is_ascii_digit() || c == '\'' {
            // 32'h1f, 1'b0, 12, 'h3
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && b[i] == b'\'' {
                i += 1;
                if i < b.len() && (b[i] == b's' || b[i] == b'S') {
                    i += 1;
                }
                i += 1; // the base letter
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
            }
            out.push(Tok::Num);
        } else {
            // Multi-character operators matter only for `=` against `==`,
            // `<=`, `>=`, `!=`: keep those together.
            let two = if i + 1 < b.len() { &s[i..i + 2] } else { "" };
            let three = if i + 2 < b.len() { &s[i..i + 3] } else { "" };
            if ["===", "!==", "<<<", ">>>"].contains(&three) {
                out.push(Tok::Punct(three.to_string()));
                i += 3;
            } else if ["==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "+:", "-:"].contains(&two) {
                out.push(Tok::Punct(two.to_string()));
                i += 2;
            } else {
                out.push(Tok::Punct(c.to_string()));
                i += 1;
            }
        }
    }
    out
}

/// Per signal, the most assignments on any one path through a statement.
type Counts = BTreeMap<String, u32>;

struct Parser<'a> {
    t: &'a [Tok],
    i: usize,
    reads: BTreeSet<String>,
}

impl<'a> Parser<'a> {
    fn peek_ident(&self, w: &str) -> bool {
        matches!(self.t.get(self.i), Some(Tok::Ident(s)) if s == w)
    }
    fn peek_punct(&self, p: &str) -> bool {
        matches!(self.t.get(self.i), Some(Tok::Punct(s)) if s == p)
    }
    fn expect_punct(&mut self, p: &str) -> Result<(), String> {
        if self.peek_punct(p) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!(
                "expected `{p}` at token {}, found {:?}",
                self.i,
                self.t.get(self.i)
            ))
        }
    }
    /// Skips a balanced `( ... )`, recording the identifiers read.
    fn parens(&mut self) -> Result<(), String> {
        self.expect_punct("(")?;
        let mut depth = 1;
        while depth > 0 {
            match self.t.get(self.i) {
                None => return Err("unbalanced parentheses".into()),
                Some(Tok::Punct(p)) if p == "(" => depth += 1,
                Some(Tok::Punct(p)) if p == ")" => depth -= 1,
                Some(Tok::Ident(s)) => {
                    self.reads.insert(s.clone());
                }
                _ => {}
            }
            self.i += 1;
        }
        Ok(())
    }
    /// Reads identifiers up to (not past) a token for which `stop` holds at
    /// bracket depth 0.
    fn expr_until(&mut self, stop: &dyn Fn(&Tok) -> bool) -> Result<(), String> {
        let mut depth = 0i32;
        loop {
            let t = self.t.get(self.i).ok_or("unexpected end of block")?;
            if depth == 0 && stop(t) {
                return Ok(());
            }
            match t {
                Tok::Punct(p) if p == "(" || p == "[" || p == "{" => depth += 1,
                Tok::Punct(p) if p == ")" || p == "]" || p == "}" => depth -= 1,
                Tok::Ident(s) => {
                    self.reads.insert(s.clone());
                }
                _ => {}
            }
            self.i += 1;
        }
    }

    fn stmt(&mut self) -> Result<Counts, String> {
        if self.peek_ident("begin") {
            self.i += 1;
            let mut c = Counts::new();
            while !self.peek_ident("end") {
                let s = self.stmt()?;
                for (k, v) in s {
                    *c.entry(k).or_insert(0) += v;
                }
            }
            self.i += 1;
            return Ok(c);
        }
        if self.peek_ident("if") {
            self.i += 1;
            self.parens()?;
            let a = self.stmt()?;
            let b = if self.peek_ident("else") {
                self.i += 1;
                self.stmt()?
            } else {
                Counts::new()
            };
            return Ok(max(a, b));
        }
        if self.peek_ident("case") || self.peek_ident("casez") || self.peek_ident("casex") {
            self.i += 1;
            self.parens()?;
            let mut c = Counts::new();
            while !self.peek_ident("endcase") {
                // Labels: expressions or `default`, up to the `:`.
                self.expr_until(&|t| matches!(t, Tok::Punct(p) if p == ":"))?;
                self.i += 1;
                c = max(c, self.stmt()?);
            }
            self.i += 1;
            return Ok(c);
        }
        if self.peek_punct(";") {
            self.i += 1;
            return Ok(Counts::new());
        }
        // An assignment: NAME [index] = expr ;
        let name = match self.t.get(self.i) {
            Some(Tok::Ident(s)) => s.clone(),
            t => {
                return Err(format!(
                    "expected a statement at token {}, found {t:?}",
                    self.i
                ))
            }
        };
        self.i += 1;
        if self.peek_punct("[") {
            self.expr_until(&|t| matches!(t, Tok::Punct(p) if p == "="))?;
        }
        self.expect_punct("=")?;
        self.expr_until(&|t| matches!(t, Tok::Punct(p) if p == ";"))?;
        self.i += 1;
        Ok(Counts::from([(name, 1)]))
    }
}

fn max(mut a: Counts, b: Counts) -> Counts {
    for (k, v) in b {
        let e = a.entry(k).or_insert(0);
        *e = (*e).max(v);
    }
    a
}

/// An `always @(*)` block: what it assigns at most how often on one path,
/// and what it reads.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub counts: BTreeMap<String, u32>,
    pub reads: BTreeSet<String>,
}

impl Block {
    /// The signals assigned at least twice on some path.
    pub fn glitching(&self) -> impl Iterator<Item = &String> {
        self.counts.iter().filter(|(_, &n)| n >= 2).map(|(s, _)| s)
    }
}

/// Parses the body of an `always @(*)` block (from its `begin` to its
/// `end`).
pub fn parse_block(body: &str) -> Result<Block, String> {
    let toks = tokenize(body);
    let mut p = Parser {
        t: &toks,
        i: 0,
        reads: BTreeSet::new(),
    };
    let counts = p.stmt()?;
    if p.i != toks.len() {
        return Err(format!("trailing tokens after the block at token {}", p.i));
    }
    Ok(Block {
        counts,
        reads: p.reads,
    })
}

#[derive(Debug, Default)]
struct Module {
    blocks: Vec<Block>,
    /// (instance's module type, [(port, signal)]).
    instances: Vec<(String, Vec<(String, String)>)>,
}

fn parse_modules(verilog: &str) -> Result<BTreeMap<String, Module>, String> {
    let mut mods = BTreeMap::new();
    let lines: Vec<&str> = verilog.lines().collect();
    let mut i = 0;
    let mut cur: Option<(String, Module)> = None;
    while i < lines.len() {
        let l = lines[i].trim();
        if let Some(rest) = l.strip_prefix("module ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            cur = Some((name, Module::default()));
            i += 1;
            continue;
        }
        if l.starts_with("endmodule") {
            if let Some((n, m)) = cur.take() {
                mods.insert(n, m);
            }
            i += 1;
            continue;
        }
        let Some((_, m)) = cur.as_mut() else {
            i += 1;
            continue;
        };
        if l.starts_with("always @(*)") {
            // The body runs from the `begin` on this line to its matching
            // `end`, counted by begin/end and case/endcase words.
            let start = i;
            let mut depth = 0i32;
            let mut text = String::new();
            loop {
                let line = lines.get(i).ok_or("unterminated always block")?;
                let body = if i == start {
                    line.trim().trim_start_matches("always @(*)")
                } else {
                    line
                };
                for t in tokenize(body) {
                    if let Tok::Ident(w) = t {
                        match w.as_str() {
                            "begin" | "case" | "casez" | "casex" => depth += 1,
                            "end" | "endcase" => depth -= 1,
                            _ => {}
                        }
                    }
                }
                text.push_str(body);
                text.push('\n');
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            let b = parse_block(&text)
                .map_err(|e| format!("always @(*) at line {}: {e}", start + 1))?;
            m.blocks.push(b);
            continue;
        }
        // An instance: `TYPE NAME(` on a line of its own.
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.len() == 2
            && words[1].ends_with('(')
            && !["module", "always", "initial"].contains(&words[0])
        {
            let ty = words[0].to_string();
            let mut ports = vec![];
            i += 1;
            while i < lines.len() {
                let p = lines[i].trim();
                i += 1;
                if p.starts_with(");") {
                    break;
                }
                if let Some(rest) = p.strip_prefix('.') {
                    let port = rest.split('(').next().unwrap_or("").to_string();
                    let sig = rest
                        .split_once('(')
                        .map(|x| x.1)
                        .unwrap_or("")
                        .trim_end_matches(',')
                        .trim_end_matches(')')
                        .to_string();
                    if !sig.is_empty() {
                        ports.push((port, sig));
                    }
                }
            }
            m.instances.push((ty, ports));
            continue;
        }
        i += 1;
    }
    Ok(mods)
}

/// A small union-find over (module, signal) names.
struct Nets {
    ids: HashMap<(String, String), usize>,
    parent: Vec<usize>,
}

impl Nets {
    fn id(&mut self, m: &str, s: &str) -> usize {
        let k = (m.to_string(), s.to_string());
        if let Some(&i) = self.ids.get(&k) {
            return i;
        }
        let i = self.parent.len();
        self.parent.push(i);
        self.ids.insert(k, i);
        i
    }
    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a] = b;
        }
    }
}

/// Every glitch loop of a design (rust-hdl's Verilog, all modules in one
/// text), by strongly connected component; empty when an event-driven
/// simulator cannot loop on a glitch.
pub fn loops(verilog: &str) -> Result<Vec<Loop>, String> {
    let mods = parse_modules(verilog)?;
    let mut nets = Nets {
        ids: HashMap::new(),
        parent: vec![],
    };
    // Port connections join a parent's signal and the child's port into
    // one net.
    for (name, m) in &mods {
        for (ty, ports) in &m.instances {
            for (port, sig) in ports {
                let a = nets.id(name, sig);
                let b = nets.id(ty, port);
                nets.union(a, b);
            }
        }
    }
    // Blocks, and which of them read each net (with the name read).
    let mut blocks: Vec<(String, &Block)> = vec![];
    for (name, m) in &mods {
        for b in &m.blocks {
            blocks.push((name.clone(), b));
        }
    }
    let mut readers: HashMap<usize, Vec<(usize, String)>> = HashMap::new();
    for (bi, (name, b)) in blocks.iter().enumerate() {
        for r in &b.reads {
            let n = nets.id(name, r);
            let n = nets.find(n);
            readers.entry(n).or_default().push((bi, r.clone()));
        }
    }
    let mut edges: Vec<Vec<(usize, String, String)>> = vec![vec![]; blocks.len()];
    for (bi, (name, b)) in blocks.iter().enumerate() {
        for s in b.glitching() {
            let n = nets.id(name, s);
            let n = nets.find(n);
            for (bj, read_as) in readers.get(&n).into_iter().flatten() {
                if *bj != bi {
                    edges[bi].push((*bj, s.clone(), read_as.clone()));
                }
            }
        }
    }
    let adj: Vec<Vec<usize>> = edges
        .iter()
        .map(|e| e.iter().map(|x| x.0).collect())
        .collect();
    let mut out = vec![];
    for comp in sccs(&adj) {
        if comp.len() < 2 {
            continue;
        }
        let set: BTreeSet<usize> = comp.iter().copied().collect();
        let mut names: Vec<String> = comp.iter().map(|&i| blocks[i].0.clone()).collect();
        names.sort();
        let mut es = vec![];
        for &i in &comp {
            for (j, s, r) in &edges[i] {
                if set.contains(j) {
                    es.push(Edge {
                        from: blocks[i].0.clone(),
                        signal: s.clone(),
                        to: blocks[*j].0.clone(),
                        read_as: r.clone(),
                    });
                }
            }
        }
        es.sort_by(|a, b| (&a.from, &a.signal, &a.to).cmp(&(&b.from, &b.signal, &b.to)));
        out.push(Loop {
            blocks: names,
            edges: es,
        });
    }
    out.sort_by(|a, b| a.blocks.cmp(&b.blocks));
    Ok(out)
}

/// Tarjan's strongly connected components (iterative).
fn sccs(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = vec![];
    let mut next = 0;
    let mut out = vec![];
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut ei)) = work.last_mut() {
            if *ei == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if *ei < adj[v].len() {
                let w = adj[v][*ei];
                *ei += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(u, _)) = work.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = vec![];
                    loop {
                        let w = stack.pop().unwrap();
                        on[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_the_longest_path() {
        let b = parse_block(
            "begin\n a = 1'b0;\n b = c;\n if (x) begin\n a = 1'b1;\n end\n else begin\n b = d;\n end\n \
             case (s)\n 32'h1: begin\n e = 1'b1;\n end\n default: begin\n e = f[(32'h0)+:(4)] == 4'h3;\n end\n endcase\nend\n",
        )
        .unwrap();
        assert_eq!(b.counts["a"], 2);
        assert_eq!(b.counts["b"], 2);
        assert_eq!(b.counts["e"], 1);
        assert!(b.reads.contains("x") && b.reads.contains("f") && b.reads.contains("s"));
        assert!(!b.reads.contains("a"));
        let g: Vec<_> = b.glitching().cloned().collect();
        assert_eq!(g, vec!["a".to_string(), "b".to_string()]);
    }

    const TWO: &str = "\
module top(clk);
    input wire clk;
    reg [7:0] kid$v;
    wire kid$m;
    reg t;
    kid_t kid(
        .v(kid$v),
        .m(kid$m)
    );
    always @(*) begin
        kid$v = 8'h0;
        if (t) begin
            kid$v = 8'h1;
        end
        t = kid$m;
    end
endmodule // top

module kid_t(v,m);
    input wire [7:0] v;
    output reg m;
    always @(*) begin
        m = 1'b0;
        if (v == 8'h1) begin
            m = 1'b1;
        end
    end
endmodule // kid_t
";

    #[test]
    fn finds_a_parent_and_child_waking_each_other() {
        let l = loops(TWO).unwrap();
        assert_eq!(l.len(), 1, "{l:?}");
        assert_eq!(l[0].blocks, vec!["kid_t".to_string(), "top".to_string()]);
        assert!(l[0]
            .edges
            .iter()
            .any(|e| e.from == "top" && e.signal == "kid$v" && e.read_as == "v"));
        assert!(l[0]
            .edges
            .iter()
            .any(|e| e.from == "kid_t" && e.signal == "m" && e.read_as == "kid$m"));
    }

    #[test]
    fn one_assignment_on_each_path_breaks_the_loop() {
        let fixed = TWO.replace(
            "        kid$v = 8'h0;\n        if (t) begin\n            kid$v = 8'h1;\n        end\n",
            "        if (t) begin\n            kid$v = 8'h1;\n        end\n        else begin\n            kid$v = 8'h0;\n        end\n",
        );
        assert_ne!(fixed, TWO);
        assert_eq!(loops(&fixed).unwrap(), vec![]);
    }
}
