//! Ports: a kernel's ports as plain Rust values, one clock at a time.
//!
//! Every backend (rust-hdl's simulator, the exported Verilog under Verilator)
//! implements [`KernelBackend`]; every model (HBM, network, client) reads a
//! [`KernelOut`] and writes its part of a [`KernelIn`]. A cycle is:
//!
//! 1. each model drives its inputs from its own state (`KernelIn`);
//! 2. `eval` settles the kernel's logic and returns its outputs (`KernelOut`);
//! 3. each model observes the handshakes of this cycle (valid && ready, from
//!    the same `KernelIn` and `KernelOut`) and updates its state;
//! 4. `tick` is the rising edge of `ap_clk`.
//!
//! A 512-bit beat is `[u32; 16]`, word 0 in bits [31:0]. The send-queue word
//! is `[u64; 4]`, bits [63:0] first.

use rhdl_ubft::params::BEAT_WORDS;

/// A 512-bit beat as sixteen 32-bit words, word 0 lowest.
pub type Beat = [u32; BEAT_WORDS];

/// The kernel's inputs. `repr(C)`: the Verilator harness reads the fields
/// at their offsets (`verilator/portmap.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct KernelIn {
    /// `ap_rst_n`: active low, synchronous.
    pub ap_rst_n: bool,
    // s_axi_control, master to slave (the host; see `host.rs`).
    pub ctl_awaddr: u16,
    pub ctl_awvalid: bool,
    pub ctl_wdata: u32,
    pub ctl_wstrb: u8,
    pub ctl_wvalid: bool,
    pub ctl_bready: bool,
    pub ctl_araddr: u16,
    pub ctl_arvalid: bool,
    pub ctl_rready: bool,
    // m_axi_hbm, slave to master.
    pub hbm_arready: bool,
    pub hbm_rvalid: bool,
    pub hbm_rdata: Beat,
    pub hbm_rresp: u8,
    pub hbm_rlast: bool,
    pub hbm_awready: bool,
    pub hbm_wready: bool,
    pub hbm_bvalid: bool,
    pub hbm_bresp: u8,
    // RoCE send queue and completions.
    pub sq_tready: bool,
    pub cq_tvalid: bool,
    pub cq_tdata: u64,
    // The signer service's streams.
    pub sreq_tready: bool,
    pub sresp_tvalid: bool,
    pub sresp_tdata: Beat,
    pub sresp_tuser: u8,
    pub sresp_tlast: bool,
    // Proposals in, decisions out.
    pub prop_tvalid: bool,
    pub prop_tdata: u32,
    pub dec_tready: bool,
    // The RoCE stack's receive path (`s_axis_rx_cmd`, `s_axis_rx_data`):
    // incoming RDMA WRITEs, into the kernel's guard.
    pub rx_cmd_tvalid: bool,
    /// A `WrCommand`, packed (96 bits: words 0..3).
    pub rx_cmd_tdata: [u32; 3],
    pub rx_data_tvalid: bool,
    pub rx_data_tdata: Beat,
    pub rx_data_tkeep: u64,
    pub rx_data_tlast: bool,
    // m_axi_rx (the guard's HBM writes), slave to master.
    pub rx_awready: bool,
    pub rx_wready: bool,
    pub rx_bvalid: bool,
    pub rx_bresp: u8,
    /// `m_axis_rx_sts_tready`: the stack takes the write statuses.
    pub rx_sts_tready: bool,
    // The stack's reads of staged payloads (`s_axis_tx_cmd`, a memCmd
    // packed as `rx_cmd_tdata`) and the data's ready (`m_axis_tx_data`).
    pub tx_cmd_tvalid: bool,
    pub tx_cmd_tdata: [u32; 3],
    pub tx_data_tready: bool,
}

impl Default for KernelIn {
    fn default() -> Self {
        KernelIn {
            ap_rst_n: true,
            ctl_awaddr: 0,
            ctl_awvalid: false,
            ctl_wdata: 0,
            ctl_wstrb: 0,
            ctl_wvalid: false,
            ctl_bready: false,
            ctl_araddr: 0,
            ctl_arvalid: false,
            ctl_rready: false,
            hbm_arready: false,
            hbm_rvalid: false,
            hbm_rdata: [0; BEAT_WORDS],
            hbm_rresp: 0,
            hbm_rlast: false,
            hbm_awready: false,
            hbm_wready: false,
            hbm_bvalid: false,
            hbm_bresp: 0,
            sq_tready: false,
            cq_tvalid: false,
            cq_tdata: 0,
            sreq_tready: false,
            sresp_tvalid: false,
            sresp_tdata: [0; BEAT_WORDS],
            sresp_tuser: 0,
            sresp_tlast: false,
            prop_tvalid: false,
            prop_tdata: 0,
            dec_tready: false,
            rx_cmd_tvalid: false,
            rx_cmd_tdata: [0; 3],
            rx_data_tvalid: false,
            rx_data_tdata: [0; BEAT_WORDS],
            rx_data_tkeep: 0,
            rx_data_tlast: false,
            rx_awready: false,
            rx_wready: false,
            rx_bvalid: false,
            rx_bresp: 0,
            rx_sts_tready: false,
            tx_cmd_tvalid: false,
            tx_cmd_tdata: [0; 3],
            tx_data_tready: false,
        }
    }
}

/// The kernel's outputs. `repr(C)`: the Verilator harness writes the fields
/// at their offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct KernelOut {
    // s_axi_control, slave to master.
    pub ctl_awready: bool,
    pub ctl_wready: bool,
    pub ctl_bresp: u8,
    pub ctl_bvalid: bool,
    pub ctl_arready: bool,
    pub ctl_rdata: u32,
    pub ctl_rresp: u8,
    pub ctl_rvalid: bool,
    pub interrupt: bool,
    // m_axi_hbm, master to slave.
    pub hbm_araddr: u64,
    pub hbm_arlen: u8,
    pub hbm_arsize: u8,
    pub hbm_arburst: u8,
    pub hbm_arvalid: bool,
    pub hbm_rready: bool,
    pub hbm_awaddr: u64,
    pub hbm_awlen: u8,
    pub hbm_awsize: u8,
    pub hbm_awburst: u8,
    pub hbm_awvalid: bool,
    pub hbm_wdata: Beat,
    pub hbm_wstrb: u64,
    pub hbm_wlast: bool,
    pub hbm_wvalid: bool,
    pub hbm_bready: bool,
    // RoCE.
    pub sq_tvalid: bool,
    pub sq_tdata: [u64; 4],
    pub cq_tready: bool,
    // The signer service's streams.
    pub sreq_tvalid: bool,
    pub sreq_tdata: Beat,
    pub sreq_tkeep: u64,
    pub sreq_tlast: bool,
    pub sreq_tuser: u16,
    pub sresp_tready: bool,
    // Client.
    pub prop_tready: bool,
    pub dec_tvalid: bool,
    /// The decided slot's sequence number k.
    pub dec_k: u32,
    /// The decided value m.
    pub dec_m: u32,
    /// `m_axis_dec_tuser`: the path, true for slow.
    pub dec_slow: bool,
    // The receive path's ready signals.
    pub rx_cmd_tready: bool,
    pub rx_data_tready: bool,
    // m_axi_rx, master to slave (write channels only).
    pub rx_awaddr: u64,
    pub rx_awlen: u8,
    pub rx_awsize: u8,
    pub rx_awburst: u8,
    pub rx_awvalid: bool,
    pub rx_wdata: Beat,
    pub rx_wstrb: u64,
    pub rx_wlast: bool,
    pub rx_wvalid: bool,
    pub rx_bready: bool,
    // m_axis_rx_sts: a status per incoming write, once refused or in HBM
    // (`rhdl_ubft::io::rx_status`): the queue pair in bits [9:0], the HBM
    // beats written in [21:16].
    pub rx_sts_tvalid: bool,
    pub rx_sts_tdata: u32,
    // s_axis_tx_cmd's ready, and m_axis_tx_data: a staged payload's beats
    // (`rhdl_ubft::io::stage`).
    pub tx_cmd_tready: bool,
    pub tx_data_tvalid: bool,
    pub tx_data_tdata: Beat,
    pub tx_data_tkeep: u64,
    pub tx_data_tlast: bool,
}

pub use rhdl_ubft::controller::status::Status;

/// A kernel, driven one clock at a time.
pub trait KernelBackend {
    /// Apply this cycle's inputs, settle the logic, return the outputs.
    fn eval(&mut self, inp: &KernelIn) -> KernelOut;
    /// The rising edge of `ap_clk`.
    fn tick(&mut self);
    /// The backend's name, for reports.
    fn name(&self) -> &'static str;
    /// The controller's state (`status::STATE_NAMES`), where the backend
    /// can see inside the kernel (a debugging aid; the host reads the
    /// `state` register instead).
    fn debug_state(&self) -> Option<u8> {
        None
    }
    /// The `timeouts` counter (`sts_timeouts`) as it stands this cycle, read
    /// from inside the kernel as [`debug_state`](Self::debug_state) is (the
    /// timeline's timeout marks, `Cluster::record_timeline`).
    fn debug_timeouts(&self) -> Option<u32> {
        None
    }
    /// This backend, if it may move to another thread (a cluster run on
    /// several threads needs every kernel to); `None` for backends that share
    /// state with their creator (recorders, lockstep pairs).
    fn as_send(&mut self) -> Option<&mut (dyn KernelBackend + Send)> {
        None
    }
}

/// When a ready signal is high: the back-pressure knob shared by the models.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Ready {
    /// Every cycle.
    #[default]
    Always,
    /// Never (a stalled slave).
    Never,
    /// Only on cycles with `cycle % period == phase`.
    Every { period: u64, phase: u64 },
    /// Every cycle except those in `from..to`.
    LowDuring { from: u64, to: u64 },
}

impl Ready {
    /// Whether the signal is high at `cycle`.
    pub fn at(&self, cycle: u64) -> bool {
        match *self {
            Ready::Always => true,
            Ready::Never => false,
            Ready::Every { period, phase } => cycle % period == phase,
            Ready::LowDuring { from, to } => !(from..to).contains(&cycle),
        }
    }
}
