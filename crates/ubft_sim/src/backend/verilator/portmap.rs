//! Kernel ports by name <-> `KernelIn`/`KernelOut` fields.
//!
//! The only place that names ports outside the Rust design: one line per
//! port in [`inputs`] and [`outputs`]. A renamed port is a one-line change; a
//! port of the Verilog that no line names (or a line naming a port the
//! Verilog lacks) is an error when a [`PortMap`] is made, naming the port.
//!
//! Port values are little-endian arrays of 32-bit words, word 0 lowest (the
//! testbenches' vectors and the differential test compare these). Each line
//! also records where its field lies in `KernelIn`/`KernelOut` ([`Field`]),
//! so the harness (`harness.rs`) copies between those structs and the
//! model's ports directly, with no packing on the way.

use super::harness::{Port, CLOCK};
use crate::ports::{KernelIn, KernelOut};

/// How a field is stored: its byte offset in `KernelIn`/`KernelOut` and its
/// type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub offset: usize,
    pub kind: Kind,
}

/// A field's type, as the harness's C++ reads or writes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One byte, 0 or 1.
    Bool,
    /// An unsigned integer of this many bytes (1, 2, 4 or 8).
    Uint(usize),
    /// This many little-endian 32-bit words (`[u32; K]`, or `[u64; K/2]`,
    /// which has the same bytes on a little-endian machine).
    Words(usize),
}

impl Kind {
    pub fn bytes(&self) -> usize {
        match *self {
            Kind::Bool => 1,
            Kind::Uint(b) => b,
            Kind::Words(k) => 4 * k,
        }
    }
}

/// The [`Kind`] of a field type.
pub trait FieldKind {
    const KIND: Kind;
}
impl FieldKind for bool {
    const KIND: Kind = Kind::Bool;
}
impl FieldKind for u8 {
    const KIND: Kind = Kind::Uint(1);
}
impl FieldKind for u16 {
    const KIND: Kind = Kind::Uint(2);
}
impl FieldKind for u32 {
    const KIND: Kind = Kind::Uint(4);
}
impl FieldKind for u64 {
    const KIND: Kind = Kind::Uint(8);
}
impl<const K: usize> FieldKind for [u32; K] {
    const KIND: Kind = Kind::Words(K);
}
// The harness reads a [u64; K] as 2K little-endian words.
#[cfg(target_endian = "little")]
impl<const K: usize> FieldKind for [u64; K] {
    const KIND: Kind = Kind::Words(2 * K);
}

/// The kind of the field a projection returns (for the macros below).
pub fn kind_of<T, F: FieldKind>(_: fn(&T) -> &F) -> Kind {
    F::KIND
}

/// A field of `KernelIn` or `KernelOut` by name.
macro_rules! field {
    ($t:ty, $f:ident) => {
        Field {
            offset: std::mem::offset_of!($t, $f),
            kind: kind_of(|x: &$t| &x.$f),
        }
    };
}

/// A value as port words (and back).
pub trait Words: Sized {
    /// Writes the value into `w` (every word of the port).
    fn put(&self, w: &mut [u32]);
    fn get(w: &[u32]) -> Self;
}

impl Words for bool {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        w[0] = *self as u32;
    }
    fn get(w: &[u32]) -> Self {
        w[0] & 1 != 0
    }
}

impl Words for u8 {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        w[0] = *self as u32;
    }
    fn get(w: &[u32]) -> Self {
        w[0] as u8
    }
}

impl Words for u16 {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        w[0] = *self as u32;
    }
    fn get(w: &[u32]) -> Self {
        w[0] as u16
    }
}

impl Words for u32 {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        w[0] = *self;
    }
    fn get(w: &[u32]) -> Self {
        w[0]
    }
}

impl Words for u64 {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        w[0] = *self as u32;
        if w.len() > 1 {
            w[1] = (*self >> 32) as u32;
        }
    }
    fn get(w: &[u32]) -> Self {
        w[0] as u64 | (w.get(1).copied().unwrap_or(0) as u64) << 32
    }
}

impl<const K: usize> Words for [u32; K] {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        for (d, s) in w.iter_mut().zip(self) {
            *d = *s;
        }
    }
    fn get(w: &[u32]) -> Self {
        let mut x = [0; K];
        for (d, s) in x.iter_mut().zip(w) {
            *d = *s;
        }
        x
    }
}

impl<const K: usize> Words for [u64; K] {
    fn put(&self, w: &mut [u32]) {
        w.fill(0);
        for (i, x) in self.iter().enumerate() {
            for h in 0..2 {
                if let Some(d) = w.get_mut(2 * i + h) {
                    *d = (x >> (32 * h)) as u32;
                }
            }
        }
    }
    fn get(w: &[u32]) -> Self {
        let mut x = [0; K];
        for (i, d) in x.iter_mut().enumerate() {
            let lo = w.get(2 * i).copied().unwrap_or(0) as u64;
            let hi = w.get(2 * i + 1).copied().unwrap_or(0) as u64;
            *d = lo | hi << 32;
        }
        x
    }
}

/// An input port: writes its words from a `KernelIn`. A writer may leave the
/// words as they are (the buffer keeps the last value applied).
pub struct InPort {
    pub name: &'static str,
    pub put: fn(&KernelIn, &mut [u32]),
    /// The field the port takes its value from.
    pub field: Field,
    /// The port takes the field's value only while this bool field is true
    /// (it holds its last value otherwise).
    pub when: Option<Field>,
}

/// An output port: reads its words into a `KernelOut`, and writes them back.
pub struct OutPort {
    pub name: &'static str,
    pub get: fn(&[u32], &mut KernelOut),
    pub put: fn(&KernelOut, &mut [u32]),
    /// The port is reported only while this 1-bit output is high (`KernelOut`
    /// holds zero otherwise, as the rust-hdl backend does); a testbench
    /// compares it only then.
    pub qualifier: Option<&'static str>,
    /// The fields the port's bits go to: (lowest bit, field); one field
    /// for every port but the decision, which splits into k and m.
    pub parts: Vec<(usize, Field)>,
}

macro_rules! inp {
    ($name:literal, $f:ident) => {
        InPort {
            name: $name,
            put: |i: &KernelIn, w: &mut [u32]| Words::put(&i.$f, w),
            field: field!(KernelIn, $f),
            when: None,
        }
    };
}

macro_rules! outp {
    ($name:literal, $f:ident) => {
        OutPort {
            name: $name,
            get: |w: &[u32], o: &mut KernelOut| o.$f = Words::get(w),
            put: |o: &KernelOut, w: &mut [u32]| Words::put(&o.$f, w),
            qualifier: None,
            parts: vec![(0, field!(KernelOut, $f))],
        }
    };
}

/// Input ports (the clock is the harness's own).
pub fn inputs() -> Vec<InPort> {
    vec![
        inp!("ap_rst_n", ap_rst_n),
        inp!("s_axi_control_awaddr", ctl_awaddr),
        inp!("s_axi_control_awvalid", ctl_awvalid),
        inp!("s_axi_control_wdata", ctl_wdata),
        inp!("s_axi_control_wstrb", ctl_wstrb),
        inp!("s_axi_control_wvalid", ctl_wvalid),
        inp!("s_axi_control_bready", ctl_bready),
        inp!("s_axi_control_araddr", ctl_araddr),
        inp!("s_axi_control_arvalid", ctl_arvalid),
        inp!("s_axi_control_rready", ctl_rready),
        inp!("m_axi_hbm_arready", hbm_arready),
        // Read data is applied only with rvalid, as the rust-hdl backend
        // does; the port holds its last value otherwise.
        InPort {
            name: "m_axi_hbm_rdata",
            put: |i, w| {
                if i.hbm_rvalid {
                    i.hbm_rdata.put(w)
                }
            },
            field: field!(KernelIn, hbm_rdata),
            when: Some(field!(KernelIn, hbm_rvalid)),
        },
        inp!("m_axi_hbm_rresp", hbm_rresp),
        inp!("m_axi_hbm_rlast", hbm_rlast),
        inp!("m_axi_hbm_rvalid", hbm_rvalid),
        inp!("m_axi_hbm_awready", hbm_awready),
        inp!("m_axi_hbm_wready", hbm_wready),
        inp!("m_axi_hbm_bresp", hbm_bresp),
        inp!("m_axi_hbm_bvalid", hbm_bvalid),
        inp!("m_axis_sq_tready", sq_tready),
        inp!("s_axis_cq_tdata", cq_tdata),
        inp!("s_axis_cq_tvalid", cq_tvalid),
        inp!("m_axis_sreq_tready", sreq_tready),
        // Signer responses, like read data, are applied only with tvalid.
        InPort {
            name: "s_axis_sresp_tdata",
            put: |i, w| {
                if i.sresp_tvalid {
                    i.sresp_tdata.put(w)
                }
            },
            field: field!(KernelIn, sresp_tdata),
            when: Some(field!(KernelIn, sresp_tvalid)),
        },
        inp!("s_axis_sresp_tuser", sresp_tuser),
        inp!("s_axis_sresp_tlast", sresp_tlast),
        inp!("s_axis_sresp_tvalid", sresp_tvalid),
        inp!("s_axis_prop_tdata", prop_tdata),
        inp!("s_axis_prop_tvalid", prop_tvalid),
        inp!("m_axis_dec_tready", dec_tready),
        inp!("s_axis_rx_cmd_tdata", rx_cmd_tdata),
        inp!("s_axis_rx_cmd_tvalid", rx_cmd_tvalid),
        inp!("m_axis_rx_sts_tready", rx_sts_tready),
        // Payload beats, like read data, are applied only with tvalid.
        InPort {
            name: "s_axis_rx_data_tdata",
            put: |i, w| {
                if i.rx_data_tvalid {
                    i.rx_data_tdata.put(w)
                }
            },
            field: field!(KernelIn, rx_data_tdata),
            when: Some(field!(KernelIn, rx_data_tvalid)),
        },
        inp!("s_axis_rx_data_tkeep", rx_data_tkeep),
        inp!("s_axis_rx_data_tlast", rx_data_tlast),
        inp!("s_axis_rx_data_tvalid", rx_data_tvalid),
        inp!("m_axi_rx_awready", rx_awready),
        inp!("m_axi_rx_wready", rx_wready),
        inp!("m_axi_rx_bresp", rx_bresp),
        inp!("m_axi_rx_bvalid", rx_bvalid),
        inp!("s_axis_tx_cmd_tdata", tx_cmd_tdata),
        inp!("s_axis_tx_cmd_tvalid", tx_cmd_tvalid),
        inp!("m_axis_tx_data_tready", tx_data_tready),
    ]
}

/// Output ports.
pub fn outputs() -> Vec<OutPort> {
    vec![
        outp!("s_axi_control_awready", ctl_awready),
        outp!("s_axi_control_wready", ctl_wready),
        outp!("s_axi_control_bresp", ctl_bresp),
        outp!("s_axi_control_bvalid", ctl_bvalid),
        outp!("s_axi_control_arready", ctl_arready),
        outp!("s_axi_control_rdata", ctl_rdata),
        outp!("s_axi_control_rresp", ctl_rresp),
        outp!("s_axi_control_rvalid", ctl_rvalid),
        outp!("interrupt", interrupt),
        outp!("m_axi_hbm_araddr", hbm_araddr),
        outp!("m_axi_hbm_arlen", hbm_arlen),
        outp!("m_axi_hbm_arsize", hbm_arsize),
        outp!("m_axi_hbm_arburst", hbm_arburst),
        outp!("m_axi_hbm_arvalid", hbm_arvalid),
        outp!("m_axi_hbm_rready", hbm_rready),
        outp!("m_axi_hbm_awaddr", hbm_awaddr),
        outp!("m_axi_hbm_awlen", hbm_awlen),
        outp!("m_axi_hbm_awsize", hbm_awsize),
        outp!("m_axi_hbm_awburst", hbm_awburst),
        outp!("m_axi_hbm_awvalid", hbm_awvalid),
        // Write data is reported only with wvalid (see `PortMap::decode_out`).
        OutPort {
            qualifier: Some("m_axi_hbm_wvalid"),
            ..outp!("m_axi_hbm_wdata", hbm_wdata)
        },
        outp!("m_axi_hbm_wstrb", hbm_wstrb),
        outp!("m_axi_hbm_wlast", hbm_wlast),
        outp!("m_axi_hbm_wvalid", hbm_wvalid),
        outp!("m_axi_hbm_bready", hbm_bready),
        outp!("m_axis_sq_tdata", sq_tdata),
        outp!("m_axis_sq_tvalid", sq_tvalid),
        outp!("s_axis_cq_tready", cq_tready),
        OutPort {
            qualifier: Some("m_axis_sreq_tvalid"),
            ..outp!("m_axis_sreq_tdata", sreq_tdata)
        },
        outp!("m_axis_sreq_tkeep", sreq_tkeep),
        outp!("m_axis_sreq_tlast", sreq_tlast),
        outp!("m_axis_sreq_tuser", sreq_tuser),
        outp!("m_axis_sreq_tvalid", sreq_tvalid),
        outp!("s_axis_sresp_tready", sresp_tready),
        outp!("s_axis_prop_tready", prop_tready),
        // m_axis_dec_tdata: k in bits [31:0], m in bits [63:32].
        OutPort {
            name: "m_axis_dec_tdata",
            get: |w, o| {
                o.dec_k = w[0];
                o.dec_m = w[1];
            },
            put: |o, w| {
                w[0] = o.dec_k;
                w[1] = o.dec_m;
            },
            qualifier: None,
            parts: vec![
                (0, field!(KernelOut, dec_k)),
                (32, field!(KernelOut, dec_m)),
            ],
        },
        outp!("m_axis_dec_tuser", dec_slow),
        outp!("m_axis_dec_tvalid", dec_tvalid),
        outp!("s_axis_rx_cmd_tready", rx_cmd_tready),
        outp!("s_axis_rx_data_tready", rx_data_tready),
        OutPort {
            qualifier: Some("m_axis_rx_sts_tvalid"),
            ..outp!("m_axis_rx_sts_tdata", rx_sts_tdata)
        },
        outp!("m_axis_rx_sts_tvalid", rx_sts_tvalid),
        outp!("m_axi_rx_awaddr", rx_awaddr),
        outp!("m_axi_rx_awlen", rx_awlen),
        outp!("m_axi_rx_awsize", rx_awsize),
        outp!("m_axi_rx_awburst", rx_awburst),
        outp!("m_axi_rx_awvalid", rx_awvalid),
        OutPort {
            qualifier: Some("m_axi_rx_wvalid"),
            ..outp!("m_axi_rx_wdata", rx_wdata)
        },
        outp!("m_axi_rx_wstrb", rx_wstrb),
        outp!("m_axi_rx_wlast", rx_wlast),
        outp!("m_axi_rx_wvalid", rx_wvalid),
        outp!("m_axi_rx_bready", rx_bready),
        outp!("s_axis_tx_cmd_tready", tx_cmd_tready),
        OutPort {
            qualifier: Some("m_axis_tx_data_tvalid"),
            ..outp!("m_axis_tx_data_tdata", tx_data_tdata)
        },
        outp!("m_axis_tx_data_tkeep", tx_data_tkeep),
        outp!("m_axis_tx_data_tlast", tx_data_tlast),
        outp!("m_axis_tx_data_tvalid", tx_data_tvalid),
    ]
}

/// A bound input: its port, word offset in the packed input buffer, writer.
pub struct BoundIn {
    pub port: Port,
    pub offset: usize,
    pub put: fn(&KernelIn, &mut [u32]),
    pub field: Field,
    pub when: Option<Field>,
}

/// A bound output: its port, word offset in the packed output buffer.
pub struct BoundOut {
    pub port: Port,
    pub offset: usize,
    pub get: fn(&[u32], &mut KernelOut),
    pub put: fn(&KernelOut, &mut [u32]),
    /// Index in `PortMap::outputs` of the qualifying valid bit, if any.
    pub qualifier: Option<usize>,
    pub parts: Vec<(usize, Field)>,
}

/// The ports of one Verilog top, bound to `KernelIn`/`KernelOut` fields.
pub struct PortMap {
    /// Every input but the clock, in header order.
    pub inputs: Vec<BoundIn>,
    /// Every output, in header order.
    pub outputs: Vec<BoundOut>,
    pub in_words: usize,
    pub out_words: usize,
}

impl PortMap {
    /// Binds `ports` (from `harness::parse_ports`) to the tables above.
    pub fn new(ports: &[Port]) -> Result<PortMap, String> {
        let ins = inputs();
        let outs = outputs();
        let mut errors = vec![];
        let (mut inputs, mut outputs) = (vec![], vec![]);
        let (mut in_words, mut out_words) = (0, 0);
        if !ports
            .iter()
            .any(|p| p.name == CLOCK && p.input && p.width == 1)
        {
            errors.push(format!("the Verilog has no 1-bit input `{CLOCK}`"));
        }
        for p in ports.iter().filter(|p| p.name != CLOCK) {
            if p.input {
                match ins.iter().find(|i| i.name == p.name) {
                    Some(i) => {
                        inputs.push(BoundIn {
                            port: p.clone(),
                            offset: in_words,
                            put: i.put,
                            field: i.field,
                            when: i.when,
                        });
                        in_words += p.words();
                    }
                    None => errors.push(format!(
                        "input port `{}` ({} bits) has no KernelIn field: add a line to \
                         `inputs()` in crates/ubft_sim/src/verilator/portmap.rs",
                        p.name, p.width
                    )),
                }
            } else {
                match outs.iter().find(|o| o.name == p.name) {
                    Some(o) => {
                        outputs.push((
                            o,
                            BoundOut {
                                port: p.clone(),
                                offset: out_words,
                                get: o.get,
                                put: o.put,
                                qualifier: None,
                                parts: o.parts.clone(),
                            },
                        ));
                        out_words += p.words();
                    }
                    None => errors.push(format!(
                        "output port `{}` ({} bits) has no KernelOut field: add a line to \
                         `outputs()` in crates/ubft_sim/src/verilator/portmap.rs",
                        p.name, p.width
                    )),
                }
            }
        }
        for b in &inputs {
            if let Err(e) = fits(&b.port, &[(0, b.field)]) {
                errors.push(e);
            }
        }
        for (_, b) in &outputs {
            if let Err(e) = fits(&b.port, &b.parts) {
                errors.push(e);
            }
        }
        for i in &ins {
            if !ports.iter().any(|p| p.input && p.name == i.name) {
                errors.push(format!(
                    "portmap.rs names input `{}`, which the Verilog lacks",
                    i.name
                ));
            }
        }
        for o in &outs {
            if !ports.iter().any(|p| !p.input && p.name == o.name) {
                errors.push(format!(
                    "portmap.rs names output `{}`, which the Verilog lacks",
                    o.name
                ));
            }
        }
        if !errors.is_empty() {
            return Err(format!(
                "the kernel's ports do not match the port map:\n  {}",
                errors.join("\n  ")
            ));
        }
        let names: Vec<String> = outputs.iter().map(|(_, b)| b.port.name.clone()).collect();
        let outputs: Vec<BoundOut> = outputs
            .into_iter()
            .map(|(o, mut b)| {
                b.qualifier = o.qualifier.and_then(|q| names.iter().position(|n| n == q));
                b
            })
            .collect();
        Ok(PortMap {
            inputs,
            outputs,
            in_words,
            out_words,
        })
    }

    /// Writes a cycle's inputs into the packed buffer `buf` (which keeps the
    /// values a writer leaves alone), each port masked to its width.
    pub fn encode_in(&self, i: &KernelIn, buf: &mut [u32]) {
        for b in &self.inputs {
            let w = &mut buf[b.offset..b.offset + b.port.words()];
            (b.put)(i, w);
            *w.last_mut().unwrap() &= b.port.last_mask();
        }
    }

    /// A `KernelOut` from the packed output buffer. Qualified ports (the
    /// write data) read as zero while their valid bit is low.
    pub fn decode_out(&self, buf: &[u32]) -> KernelOut {
        let mut o = KernelOut::default();
        for b in &self.outputs {
            let q = match b.qualifier {
                Some(q) => buf[self.outputs[q].offset] & 1 != 0,
                None => true,
            };
            if q {
                (b.get)(&buf[b.offset..b.offset + b.port.words()], &mut o);
            }
        }
        o
    }

    /// A `KernelOut` as a packed output buffer.
    pub fn encode_out(&self, o: &KernelOut) -> Vec<u32> {
        let mut buf = vec![0; self.out_words];
        for b in &self.outputs {
            let w = &mut buf[b.offset..b.offset + b.port.words()];
            (b.put)(o, w);
            *w.last_mut().unwrap() &= b.port.last_mask();
        }
        buf
    }

    /// The first output port whose value differs between two packed output
    /// buffers: (index in `outputs`, a's words, b's words).
    pub fn first_difference(&self, a: &[u32], b: &[u32]) -> Option<(usize, Vec<u32>, Vec<u32>)> {
        self.outputs.iter().enumerate().find_map(|(i, o)| {
            let r = o.offset..o.offset + o.port.words();
            (a[r.clone()] != b[r.clone()]).then(|| (i, a[r.clone()].to_vec(), b[r].to_vec()))
        })
    }
}

/// Whether a port's bits fit the fields it maps to, as the harness copies
/// them: each part starts where the previous one ends, together they hold
/// the port, a 1-bit port alone goes to a bool, and a port wider than 64 bits
/// goes to whole words.
fn fits(port: &Port, parts: &[(usize, Field)]) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "port `{}` ({} bits): {why} (portmap.rs)",
            port.name, port.width
        ))
    };
    let mut next = 0;
    for (lo, f) in parts {
        if *lo != next {
            return bad("its fields are not contiguous");
        }
        if port.width > 64 && (!matches!(f.kind, Kind::Words(_)) || lo % 32 != 0) {
            return bad("a port wider than 64 bits needs whole-word fields");
        }
        if f.kind == Kind::Bool && (port.width != 1 || parts.len() != 1) {
            return bad("only a 1-bit port maps to a bool");
        }
        next += 8 * f.kind.bytes();
    }
    if next < port.width || parts.is_empty() {
        return bad("its fields are narrower than the port");
    }
    Ok(())
}

/// Port words as Verilog hex, most significant digit first, `width` bits.
pub fn hex(words: &[u32], width: usize) -> String {
    let digits = width.div_ceil(4);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let bit = 4 * d;
        let nib = (words[bit / 32] >> (bit % 32)) & 0xf;
        s.push(char::from_digit(nib, 16).unwrap());
    }
    s
}
