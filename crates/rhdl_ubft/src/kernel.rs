//! Kernel: the top, wiring only.
//!
//! Connects Control, Protocol, Chain, Fetch, Broadcast, LocalGuard, Compose, RoceAdapter, SignerPort, Guard,
//! and WATCH with its Fetch and the read multiplexer RdMux, and exposes the ports of DESIGN.md section 4 with Vitis names (an
//! interface prefix and the AXI suffix), so Vivado infers `s_axi_control`,
//! `m_axi_hbm`, `m_axi_rx`, `m_axis_sq`, `s_axis_cq`, `s_axis_rx_cmd`,
//! `s_axis_rx_data`, `m_axis_rx_sts`, `s_axis_tx_cmd`, `m_axis_tx_data`, `m_axis_sreq`, `s_axis_sresp`,
//! `s_axis_prop` and `m_axis_dec`. The host
//! configures, starts and reads the kernel through `s_axi_control` (Control,
//! register map in `regs`).
//!
//! Fetch owns the read channels of `m_axi_hbm` (through RdMux, which
//! passes it through unchanged while WATCH is idle; WATCH's Fetch shares
//! the channel, responses in order), Broadcast the write channels,
//! through LocalGuard, which keeps the kernel's writes to its own lanes of
//! the will_cert rows a peer's remote read trusts (docs/local_guard.md;
//! its reset is `ap_rst_n` alone, as Guard's); AXI's channels are
//! independent, so both run at once. Guard
//! owns `m_axi_rx`, a second, write-only master for the peers' writes it
//! accepts (docs/guard.md: no arbiter on Broadcast's path), and RxStatus,
//! on the guard's command stream, reports each incoming write's end to the
//! stack on `m_axis_rx_sts` (docs/rx_status.md). Guard's reset is
//! `ap_rst_n` alone: it checks incoming writes whenever the card is out of
//! reset, before `ap_start` and after `ap_done` too. Stage holds a
//! one-beat broadcast's payload for the stack, which reads it on
//! `s_axis_tx_cmd` and `m_axis_tx_data` (docs/stage.md), so Broadcast's
//! commands go out beside its local write.

use crate::controller::chain::Chain;
use crate::controller::protocol::Protocol;
use crate::controller::watch::Watch;
use crate::guard::Guard;
use crate::io::broadcast::Broadcast;
use crate::io::compose::Compose;
use crate::io::control::Control;
use crate::io::fetch::Fetch;
use crate::io::rdmux::RdMux;
use crate::io::roce::adapter::RoceAdapter;
use crate::io::roce::{CQ_BITS, SQ_BITS, WR_CMD_BITS, WR_DATA_BITS};
use crate::io::rx_status::{RxStatus, STS_BITS};
use crate::io::scoreboard::Scoreboard;
use crate::io::signer::SignerPort;
use crate::io::stage::Stage;
use crate::local_guard::LocalGuard;
use crate::params::BEAT_BITS;
use rust_hdl::prelude::*;

/// The kernel of a build of N replicas: the mailbox layout
/// (`layout::Mailbox::v3`), its guard (`guard::Guard`) and the controller
/// (`Protocol::new`): the fast path, the slow path (R7 to R12, `slow.md`)
/// and the view change (`view.md`). `rtl/rhdl_ubft.v`, what the card
/// runs.
#[derive(LogicBlock)]
pub struct Kernel<const N: usize> {
    pub ap_clk: Signal<In, Clock>,
    pub ap_rst_n: Signal<In, Bit>,
    // s_axi_control: AXI4-Lite slave (crate::io::control, map in crate::regs).
    pub s_axi_control_awaddr: Signal<In, Bits<12>>,
    pub s_axi_control_awvalid: Signal<In, Bit>,
    pub s_axi_control_awready: Signal<Out, Bit>,
    pub s_axi_control_wdata: Signal<In, Bits<32>>,
    pub s_axi_control_wstrb: Signal<In, Bits<4>>,
    pub s_axi_control_wvalid: Signal<In, Bit>,
    pub s_axi_control_wready: Signal<Out, Bit>,
    pub s_axi_control_bresp: Signal<Out, Bits<2>>,
    pub s_axi_control_bvalid: Signal<Out, Bit>,
    pub s_axi_control_bready: Signal<In, Bit>,
    pub s_axi_control_araddr: Signal<In, Bits<12>>,
    pub s_axi_control_arvalid: Signal<In, Bit>,
    pub s_axi_control_arready: Signal<Out, Bit>,
    pub s_axi_control_rdata: Signal<Out, Bits<32>>,
    pub s_axi_control_rresp: Signal<Out, Bits<2>>,
    pub s_axi_control_rvalid: Signal<Out, Bit>,
    pub s_axi_control_rready: Signal<In, Bit>,
    pub interrupt: Signal<Out, Bit>,
    // m_axi_hbm: AXI4 master, 512-bit data, 64-bit addresses.
    pub m_axi_hbm_araddr: Signal<Out, Bits<64>>,
    pub m_axi_hbm_arlen: Signal<Out, Bits<8>>,
    pub m_axi_hbm_arsize: Signal<Out, Bits<3>>,
    pub m_axi_hbm_arburst: Signal<Out, Bits<2>>,
    pub m_axi_hbm_arvalid: Signal<Out, Bit>,
    pub m_axi_hbm_arready: Signal<In, Bit>,
    pub m_axi_hbm_rdata: Signal<In, Bits<BEAT_BITS>>,
    pub m_axi_hbm_rresp: Signal<In, Bits<2>>,
    pub m_axi_hbm_rlast: Signal<In, Bit>,
    pub m_axi_hbm_rvalid: Signal<In, Bit>,
    pub m_axi_hbm_rready: Signal<Out, Bit>,
    pub m_axi_hbm_awaddr: Signal<Out, Bits<64>>,
    pub m_axi_hbm_awlen: Signal<Out, Bits<8>>,
    pub m_axi_hbm_awsize: Signal<Out, Bits<3>>,
    pub m_axi_hbm_awburst: Signal<Out, Bits<2>>,
    pub m_axi_hbm_awvalid: Signal<Out, Bit>,
    pub m_axi_hbm_awready: Signal<In, Bit>,
    pub m_axi_hbm_wdata: Signal<Out, Bits<BEAT_BITS>>,
    pub m_axi_hbm_wstrb: Signal<Out, Bits<64>>,
    pub m_axi_hbm_wlast: Signal<Out, Bit>,
    pub m_axi_hbm_wvalid: Signal<Out, Bit>,
    pub m_axi_hbm_wready: Signal<In, Bit>,
    pub m_axi_hbm_bresp: Signal<In, Bits<2>>,
    pub m_axi_hbm_bvalid: Signal<In, Bit>,
    pub m_axi_hbm_bready: Signal<Out, Bit>,
    // RoCE send queue and completions.
    pub m_axis_sq_tdata: Signal<Out, Bits<SQ_BITS>>,
    pub m_axis_sq_tvalid: Signal<Out, Bit>,
    pub m_axis_sq_tready: Signal<In, Bit>,
    pub s_axis_cq_tdata: Signal<In, Bits<CQ_BITS>>,
    pub s_axis_cq_tvalid: Signal<In, Bit>,
    pub s_axis_cq_tready: Signal<Out, Bit>,
    // The signer service.
    pub m_axis_sreq_tdata: Signal<Out, Bits<BEAT_BITS>>,
    pub m_axis_sreq_tkeep: Signal<Out, Bits<64>>,
    pub m_axis_sreq_tlast: Signal<Out, Bit>,
    pub m_axis_sreq_tuser: Signal<Out, Bits<16>>,
    pub m_axis_sreq_tvalid: Signal<Out, Bit>,
    pub m_axis_sreq_tready: Signal<In, Bit>,
    pub s_axis_sresp_tdata: Signal<In, Bits<BEAT_BITS>>,
    pub s_axis_sresp_tuser: Signal<In, Bits<8>>,
    pub s_axis_sresp_tlast: Signal<In, Bit>,
    pub s_axis_sresp_tvalid: Signal<In, Bit>,
    pub s_axis_sresp_tready: Signal<Out, Bit>,
    // Proposals in, decisions out.
    pub s_axis_prop_tdata: Signal<In, Bits<32>>,
    pub s_axis_prop_tvalid: Signal<In, Bit>,
    pub s_axis_prop_tready: Signal<Out, Bit>,
    pub m_axis_dec_tdata: Signal<Out, Bits<64>>,
    pub m_axis_dec_tuser: Signal<Out, Bit>,
    pub m_axis_dec_tvalid: Signal<Out, Bit>,
    pub m_axis_dec_tready: Signal<In, Bit>,
    // The RoCE stack's receive path: incoming RDMA WRITEs (Guard).
    pub s_axis_rx_cmd_tdata: Signal<In, Bits<WR_CMD_BITS>>,
    pub s_axis_rx_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_rx_cmd_tready: Signal<Out, Bit>,
    pub s_axis_rx_data_tdata: Signal<In, Bits<WR_DATA_BITS>>,
    pub s_axis_rx_data_tkeep: Signal<In, Bits<64>>,
    pub s_axis_rx_data_tlast: Signal<In, Bit>,
    pub s_axis_rx_data_tvalid: Signal<In, Bit>,
    pub s_axis_rx_data_tready: Signal<Out, Bit>,
    // m_axi_rx: AXI4 write master of the guard's accepted writes (no read
    // channels: the port is write-only).
    pub m_axi_rx_awaddr: Signal<Out, Bits<64>>,
    pub m_axi_rx_awlen: Signal<Out, Bits<8>>,
    pub m_axi_rx_awsize: Signal<Out, Bits<3>>,
    pub m_axi_rx_awburst: Signal<Out, Bits<2>>,
    pub m_axi_rx_awvalid: Signal<Out, Bit>,
    pub m_axi_rx_awready: Signal<In, Bit>,
    pub m_axi_rx_wdata: Signal<Out, Bits<BEAT_BITS>>,
    pub m_axi_rx_wstrb: Signal<Out, Bits<64>>,
    pub m_axi_rx_wlast: Signal<Out, Bit>,
    pub m_axi_rx_wvalid: Signal<Out, Bit>,
    pub m_axi_rx_wready: Signal<In, Bit>,
    pub m_axi_rx_bresp: Signal<In, Bits<2>>,
    pub m_axi_rx_bvalid: Signal<In, Bit>,
    pub m_axi_rx_bready: Signal<Out, Bit>,
    // m_axis_rx_sts: AXI4-Stream, a status per incoming write, after it is
    // refused or in HBM (crate::io::rx_status), for the stack's ACK.
    pub m_axis_rx_sts_tdata: Signal<Out, Bits<STS_BITS>>,
    pub m_axis_rx_sts_tvalid: Signal<Out, Bit>,
    pub m_axis_rx_sts_tready: Signal<In, Bit>,
    // s_axis_tx_cmd, m_axis_tx_data: the stack's reads of staged payloads
    // (memory-read commands with `host` = 1) and their data
    // (crate::io::stage).
    pub s_axis_tx_cmd_tdata: Signal<In, Bits<WR_CMD_BITS>>,
    pub s_axis_tx_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_tx_cmd_tready: Signal<Out, Bit>,
    pub m_axis_tx_data_tdata: Signal<Out, Bits<WR_DATA_BITS>>,
    pub m_axis_tx_data_tkeep: Signal<Out, Bits<64>>,
    pub m_axis_tx_data_tlast: Signal<Out, Bit>,
    pub m_axis_tx_data_tvalid: Signal<Out, Bit>,
    pub m_axis_tx_data_tready: Signal<In, Bit>,
    protocol: Protocol<N>,
    fetch: Fetch,
    broadcast: Broadcast,
    signing: SignerPort,
    control: Control<N>,
    roce: RoceAdapter,
    guard: Guard<N>,
    /// The owner rule on Broadcast's writes into this card's HBM.
    local_guard: LocalGuard,
    chain: Chain,
    /// The receive path's write statuses, for the stack.
    rx_status: RxStatus,
    /// A record's later beats, for Broadcast's `s_rec`.
    compose: Compose,
    /// A one-beat record's payload, where the stack reads it.
    stage: Stage,
    /// The background poller (D3), its own Fetch, and the read multiplexer
    /// that puts both Fetches on `m_axi_hbm`'s read channels.
    watch: Watch<N>,
    watch_fetch: Fetch,
    rdmux: RdMux,
    /// The slot's prepare and vote rows as the guard's and Broadcast's
    /// writes land, for FAST (docs/scoreboard.md).
    scoreboard: Scoreboard,
}

impl<const N: usize> Default for Kernel<N> {
    fn default() -> Self {
        Self::of(Protocol::new(), Guard::default())
    }
}

impl<const N: usize> Kernel<N> {
    /// The kernel around this controller and guard, its ports undriven.
    fn of(protocol: Protocol<N>, guard: Guard<N>) -> Self {
        Kernel {
            ap_clk: Default::default(),
            ap_rst_n: Default::default(),
            s_axi_control_awaddr: Default::default(),
            s_axi_control_awvalid: Default::default(),
            s_axi_control_awready: Default::default(),
            s_axi_control_wdata: Default::default(),
            s_axi_control_wstrb: Default::default(),
            s_axi_control_wvalid: Default::default(),
            s_axi_control_wready: Default::default(),
            s_axi_control_bresp: Default::default(),
            s_axi_control_bvalid: Default::default(),
            s_axi_control_bready: Default::default(),
            s_axi_control_araddr: Default::default(),
            s_axi_control_arvalid: Default::default(),
            s_axi_control_arready: Default::default(),
            s_axi_control_rdata: Default::default(),
            s_axi_control_rresp: Default::default(),
            s_axi_control_rvalid: Default::default(),
            s_axi_control_rready: Default::default(),
            interrupt: Default::default(),
            m_axi_hbm_araddr: Default::default(),
            m_axi_hbm_arlen: Default::default(),
            m_axi_hbm_arsize: Default::default(),
            m_axi_hbm_arburst: Default::default(),
            m_axi_hbm_arvalid: Default::default(),
            m_axi_hbm_arready: Default::default(),
            m_axi_hbm_rdata: Default::default(),
            m_axi_hbm_rresp: Default::default(),
            m_axi_hbm_rlast: Default::default(),
            m_axi_hbm_rvalid: Default::default(),
            m_axi_hbm_rready: Default::default(),
            m_axi_hbm_awaddr: Default::default(),
            m_axi_hbm_awlen: Default::default(),
            m_axi_hbm_awsize: Default::default(),
            m_axi_hbm_awburst: Default::default(),
            m_axi_hbm_awvalid: Default::default(),
            m_axi_hbm_awready: Default::default(),
            m_axi_hbm_wdata: Default::default(),
            m_axi_hbm_wstrb: Default::default(),
            m_axi_hbm_wlast: Default::default(),
            m_axi_hbm_wvalid: Default::default(),
            m_axi_hbm_wready: Default::default(),
            m_axi_hbm_bresp: Default::default(),
            m_axi_hbm_bvalid: Default::default(),
            m_axi_hbm_bready: Default::default(),
            m_axis_sq_tdata: Default::default(),
            m_axis_sq_tvalid: Default::default(),
            m_axis_sq_tready: Default::default(),
            s_axis_cq_tdata: Default::default(),
            s_axis_cq_tvalid: Default::default(),
            s_axis_cq_tready: Default::default(),
            m_axis_sreq_tdata: Default::default(),
            m_axis_sreq_tkeep: Default::default(),
            m_axis_sreq_tlast: Default::default(),
            m_axis_sreq_tuser: Default::default(),
            m_axis_sreq_tvalid: Default::default(),
            m_axis_sreq_tready: Default::default(),
            s_axis_sresp_tdata: Default::default(),
            s_axis_sresp_tuser: Default::default(),
            s_axis_sresp_tlast: Default::default(),
            s_axis_sresp_tvalid: Default::default(),
            s_axis_sresp_tready: Default::default(),
            s_axis_prop_tdata: Default::default(),
            s_axis_prop_tvalid: Default::default(),
            s_axis_prop_tready: Default::default(),
            m_axis_dec_tdata: Default::default(),
            m_axis_dec_tuser: Default::default(),
            m_axis_dec_tvalid: Default::default(),
            m_axis_dec_tready: Default::default(),
            s_axis_rx_cmd_tdata: Default::default(),
            s_axis_rx_cmd_tvalid: Default::default(),
            s_axis_rx_cmd_tready: Default::default(),
            s_axis_rx_data_tdata: Default::default(),
            s_axis_rx_data_tkeep: Default::default(),
            s_axis_rx_data_tlast: Default::default(),
            s_axis_rx_data_tvalid: Default::default(),
            s_axis_rx_data_tready: Default::default(),
            m_axi_rx_awaddr: Default::default(),
            m_axi_rx_awlen: Default::default(),
            m_axi_rx_awsize: Default::default(),
            m_axi_rx_awburst: Default::default(),
            m_axi_rx_awvalid: Default::default(),
            m_axi_rx_awready: Default::default(),
            m_axi_rx_wdata: Default::default(),
            m_axi_rx_wstrb: Default::default(),
            m_axi_rx_wlast: Default::default(),
            m_axi_rx_wvalid: Default::default(),
            m_axi_rx_wready: Default::default(),
            m_axi_rx_bresp: Default::default(),
            m_axi_rx_bvalid: Default::default(),
            m_axi_rx_bready: Default::default(),
            m_axis_rx_sts_tdata: Default::default(),
            m_axis_rx_sts_tvalid: Default::default(),
            m_axis_rx_sts_tready: Default::default(),
            s_axis_tx_cmd_tdata: Default::default(),
            s_axis_tx_cmd_tvalid: Default::default(),
            s_axis_tx_cmd_tready: Default::default(),
            m_axis_tx_data_tdata: Default::default(),
            m_axis_tx_data_tkeep: Default::default(),
            m_axis_tx_data_tlast: Default::default(),
            m_axis_tx_data_tvalid: Default::default(),
            m_axis_tx_data_tready: Default::default(),
            protocol,
            fetch: Default::default(),
            broadcast: Default::default(),
            signing: Default::default(),
            control: Control::new(),
            roce: Default::default(),
            guard,
            local_guard: Default::default(),
            chain: Default::default(),
            rx_status: Default::default(),
            compose: Default::default(),
            stage: Default::default(),
            watch: Default::default(),
            watch_fetch: Default::default(),
            rdmux: Default::default(),
            scoreboard: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Kernel<N> {
    #[hdl_gen]
    fn update(&mut self) {
        // Clock and reset.
        self.protocol.clock.next = self.ap_clk.val();
        self.fetch.clock.next = self.ap_clk.val();
        self.broadcast.clock.next = self.ap_clk.val();
        self.protocol.rst_n.next = self.ap_rst_n.val();
        self.fetch.rst_n.next = self.ap_rst_n.val();
        self.broadcast.rst_n.next = self.ap_rst_n.val();
        self.signing.clock.next = self.ap_clk.val();
        self.signing.rst_n.next = self.ap_rst_n.val();
        self.control.clock.next = self.ap_clk.val();
        self.control.rst_n.next = self.ap_rst_n.val();
        // s_axi_control: Control.
        self.control.s_axi_control_awaddr.next = self.s_axi_control_awaddr.val();
        self.control.s_axi_control_awvalid.next = self.s_axi_control_awvalid.val();
        self.s_axi_control_awready.next = self.control.s_axi_control_awready.val();
        self.control.s_axi_control_wdata.next = self.s_axi_control_wdata.val();
        self.control.s_axi_control_wstrb.next = self.s_axi_control_wstrb.val();
        self.control.s_axi_control_wvalid.next = self.s_axi_control_wvalid.val();
        self.s_axi_control_wready.next = self.control.s_axi_control_wready.val();
        self.s_axi_control_bresp.next = self.control.s_axi_control_bresp.val();
        self.s_axi_control_bvalid.next = self.control.s_axi_control_bvalid.val();
        self.control.s_axi_control_bready.next = self.s_axi_control_bready.val();
        self.control.s_axi_control_araddr.next = self.s_axi_control_araddr.val();
        self.control.s_axi_control_arvalid.next = self.s_axi_control_arvalid.val();
        self.s_axi_control_arready.next = self.control.s_axi_control_arready.val();
        self.s_axi_control_rdata.next = self.control.s_axi_control_rdata.val();
        self.s_axi_control_rresp.next = self.control.s_axi_control_rresp.val();
        self.s_axi_control_rvalid.next = self.control.s_axi_control_rvalid.val();
        self.control.s_axi_control_rready.next = self.s_axi_control_rready.val();
        self.interrupt.next = self.control.interrupt.val();
        // Control <-> Protocol: ap_ctrl_hs and the arguments.
        self.protocol.ap_start.next = self.control.ap_start.val();
        self.control.ap_done.next = self.protocol.ap_done.val();
        self.control.ap_idle.next = self.protocol.ap_idle.val();
        self.control.ap_ready.next = self.protocol.ap_ready.val();
        self.protocol.network_ptr.next = self.control.network_ptr.val();
        self.protocol.id.next = self.control.id.val();
        self.protocol.n.next = self.control.n.val();
        self.protocol.wait_polls.next = self.control.wait_polls.val();
        self.protocol.slots.next = self.control.slots.val();
        self.broadcast.network_ptr.next = self.control.network_ptr.val();
        self.broadcast.id.next = self.control.id.val();
        self.broadcast.n.next = self.control.n.val();
        self.broadcast.qpns.next = self.control.qpns.val();
        // Protocol <-> Fetch.
        self.fetch.start.next = self.protocol.fetch_start.val();
        self.fetch.addr.next = self.protocol.fetch_addr.val();
        self.fetch.len.next = self.protocol.fetch_len.val();
        self.fetch.poll.next = self.protocol.fetch_poll.val();
        self.fetch.again.next = self.protocol.fetch_again.val();
        self.protocol.fetch_beat.next = self.fetch.beat.val();
        self.protocol.fetch_done.next = self.fetch.done.val();
        self.protocol.fetch_beat_valid.next = self.fetch.beat_valid.val();
        self.protocol.fetch_error.next = self.fetch.error.val();
        // The scoreboard: the guard's and Broadcast's writes, Protocol's
        // reads, and the beat FAST waits on.
        self.scoreboard.clock.next = self.ap_clk.val();
        self.scoreboard.rst_n.next = self.ap_rst_n.val();
        self.scoreboard.network_ptr.next = self.control.network_ptr.val();
        self.scoreboard.prep_word.next = self.protocol.sb_prep_word.val();
        self.scoreboard.cert_word.next = self.protocol.sb_cert_word.val();
        self.scoreboard.commit_word.next = self.protocol.sb_commit_word.val();
        self.scoreboard.sel.next = self.protocol.sb_sel.val();
        self.protocol.sb_view.next = self.scoreboard.view.val();
        self.scoreboard.rx_valid.next = self.guard.landed.val();
        self.scoreboard.rx_addr.next = self.guard.awaddr.val();
        self.scoreboard.rx_data.next = self.guard.wdata.val();
        self.scoreboard.rx_strb.next = self.guard.wstrb.val();
        self.scoreboard.tx_valid.next = self.broadcast.written.val();
        self.scoreboard.tx_addr.next = self.broadcast.awaddr.val();
        self.scoreboard.tx_data.next = self.broadcast.wdata.val();
        self.scoreboard.tx_strb.next = self.broadcast.wstrb.val();
        self.scoreboard.poll_start.next = self.protocol.fetch_start.val();
        self.scoreboard.poll_len.next = self.protocol.fetch_len.val();
        self.scoreboard.poll_addr.next = self.protocol.fetch_addr.val();
        self.scoreboard.poll_done.next = self.fetch.done.val();
        self.scoreboard.poll_error.next = self.fetch.error.val();
        self.scoreboard.poll_beat.next = self.fetch.beat.val();
        // Protocol <-> Broadcast.
        self.broadcast.start.next = self.protocol.bc_start.val();
        self.broadcast.word.next = self.protocol.bc_word.val();
        self.broadcast.words.next = self.protocol.bc_words.val();
        self.broadcast.data.next = self.protocol.bc_data.val();
        self.protocol.bc_done.next = self.broadcast.done.val();
        self.protocol.bc_busy.next = self.broadcast.busy.val();
        self.broadcast.local_only.next = self.protocol.bc_local_only.val();
        // Rounds (R13): SLOW's and VIEW's echoes.
        self.broadcast.round.next = self.protocol.bc_round.val();
        self.protocol.bc_round_done.next = self.broadcast.round_done.val();
        self.protocol.bc_round_error.next = self.broadcast.round_error.val();
        self.protocol.bc_failed.next = self.broadcast.failed.val();
        self.broadcast.beats.next = self.protocol.bc_beats.val();
        // A record's later beats: Protocol writes them into COMPOSE, which
        // streams them to Broadcast (prep_sig, certify, COMMIT, ...).
        self.compose.clock.next = self.ap_clk.val();
        self.compose.rst_n.next = self.ap_rst_n.val();
        self.compose.wr_en.next = self.protocol.cp_wr_en.val();
        self.compose.wr_beat.next = self.protocol.cp_wr_beat.val();
        self.compose.wr_data.next = self.protocol.cp_wr_data.val();
        self.compose.start.next = self.protocol.cp_start.val();
        self.compose.first.next = self.protocol.cp_first.val();
        self.compose.last.next = self.protocol.cp_last.val();
        self.broadcast.s_rec_tdata.next = self.compose.m_rec_tdata.val();
        self.protocol.cp_rd_data.next = self.compose.m_rec_tdata.val();
        self.broadcast.s_rec_tvalid.next = self.compose.m_rec_tvalid.val();
        self.broadcast.s_rec_tlast.next = self.compose.m_rec_tlast.val();
        self.compose.m_rec_tready.next = self.broadcast.s_rec_tready.val();
        // Protocol <-> SignerPort.
        self.signing.sign.next = self.protocol.sg_sign.val();
        self.signing.verify.next = self.protocol.sg_verify.val();
        self.signing.block.next = self.protocol.sg_block.val();
        self.signing.signer.next = self.protocol.sg_signer.val();
        self.signing.signature.next = self.protocol.sg_signature.val();
        // The machines make one request at a time and wait for its
        // response: they wait on `pending` (a request outstanding), not on
        // `busy` (SignerPort cannot take another), so no tags.
        self.signing.tag.next = 0.into();
        self.protocol.sg_busy.next = self.signing.pending.val();
        self.protocol.sg_resp_valid.next = self.signing.resp_valid.val();
        self.protocol.sg_resp_status.next = self.signing.resp_status.val();
        self.protocol.sg_resp_sig.next = self.signing.resp_sig.val();
        self.signing.resp_take.next = self.protocol.sg_resp_take.val();
        // The signer streams: SignerPort.
        self.m_axis_sreq_tdata.next = self.signing.sreq_tdata.val();
        self.m_axis_sreq_tkeep.next = self.signing.sreq_tkeep.val();
        self.m_axis_sreq_tlast.next = self.signing.sreq_tlast.val();
        self.m_axis_sreq_tuser.next = self.signing.sreq_tuser.val();
        self.m_axis_sreq_tvalid.next = self.signing.sreq_tvalid.val();
        self.signing.sreq_tready.next = self.m_axis_sreq_tready.val();
        self.signing.sresp_tdata.next = self.s_axis_sresp_tdata.val();
        self.signing.sresp_tuser.next = self.s_axis_sresp_tuser.val();
        self.signing.sresp_tlast.next = self.s_axis_sresp_tlast.val();
        self.signing.sresp_tvalid.next = self.s_axis_sresp_tvalid.val();
        self.s_axis_sresp_tready.next = self.signing.sresp_tready.val();
        // Protocol <-> WATCH and WATCH <-> its Fetch.
        self.watch.clock.next = self.ap_clk.val();
        self.watch.rst_n.next = self.ap_rst_n.val();
        self.watch_fetch.clock.next = self.ap_clk.val();
        self.watch_fetch.rst_n.next = self.ap_rst_n.val();
        self.watch.enable.next = self.protocol.wt_enable.val();
        self.watch.clear.next = self.protocol.wt_clear.val();
        self.watch.network_ptr.next = self.control.network_ptr.val();
        self.watch.n.next = self.control.n.val();
        self.watch.k.next = self.protocol.wt_k.val();
        self.watch.view.next = self.protocol.wt_view.val();
        self.watch.awaiting.next = self.protocol.wt_awaiting.val();
        self.protocol.wt_ev_valid.next = self.watch.ev_valid.val();
        self.protocol.wt_ev_kind.next = self.watch.ev_kind.val();
        self.protocol.wt_ev_view.next = self.watch.ev_view.val();
        self.protocol.wt_ev_m.next = self.watch.ev_m.val();
        self.protocol.wt_ev_x.next = self.watch.ev_x.val();
        self.protocol.wt_ev_bits.next = self.watch.ev_bits.val();
        self.protocol.wt_ev_prev.next = self.watch.ev_prev.val();
        self.watch.ev_take.next = self.protocol.wt_ev_take.val();
        self.watch_fetch.start.next = self.watch.fetch_start.val();
        self.watch_fetch.addr.next = self.watch.fetch_addr.val();
        self.watch_fetch.len.next = self.watch.fetch_len.val();
        self.watch_fetch.poll.next = false;
        self.watch_fetch.again.next = false;
        self.watch.fetch_beat.next = self.watch_fetch.beat.val();
        self.watch.fetch_beat_valid.next = self.watch_fetch.beat_valid.val();
        self.watch.fetch_done.next = self.watch_fetch.done.val();
        self.watch.fetch_error.next = self.watch_fetch.error.val();
        // m_axi_hbm read channels: RdMux, Protocol's Fetch first (a),
        // WATCH's second (b), responses in order.
        self.rdmux.clock.next = self.ap_clk.val();
        self.rdmux.rst_n.next = self.ap_rst_n.val();
        self.rdmux.a_araddr.next = self.fetch.araddr.val();
        self.rdmux.a_arlen.next = self.fetch.arlen.val();
        self.rdmux.a_arsize.next = self.fetch.arsize.val();
        self.rdmux.a_arburst.next = self.fetch.arburst.val();
        self.rdmux.a_arvalid.next = self.fetch.arvalid.val();
        self.fetch.arready.next = self.rdmux.a_arready.val();
        self.fetch.rdata.next = self.rdmux.a_rdata.val();
        self.fetch.rresp.next = self.rdmux.a_rresp.val();
        self.fetch.rlast.next = self.rdmux.a_rlast.val();
        self.fetch.rvalid.next = self.rdmux.a_rvalid.val();
        self.rdmux.a_rready.next = self.fetch.rready.val();
        self.rdmux.b_araddr.next = self.watch_fetch.araddr.val();
        self.rdmux.b_arlen.next = self.watch_fetch.arlen.val();
        self.rdmux.b_arsize.next = self.watch_fetch.arsize.val();
        self.rdmux.b_arburst.next = self.watch_fetch.arburst.val();
        self.rdmux.b_arvalid.next = self.watch_fetch.arvalid.val();
        self.watch_fetch.arready.next = self.rdmux.b_arready.val();
        self.watch_fetch.rdata.next = self.rdmux.b_rdata.val();
        self.watch_fetch.rresp.next = self.rdmux.b_rresp.val();
        self.watch_fetch.rlast.next = self.rdmux.b_rlast.val();
        self.watch_fetch.rvalid.next = self.rdmux.b_rvalid.val();
        self.rdmux.b_rready.next = self.watch_fetch.rready.val();
        self.m_axi_hbm_araddr.next = self.rdmux.m_araddr.val();
        self.m_axi_hbm_arlen.next = self.rdmux.m_arlen.val();
        self.m_axi_hbm_arsize.next = self.rdmux.m_arsize.val();
        self.m_axi_hbm_arburst.next = self.rdmux.m_arburst.val();
        self.m_axi_hbm_arvalid.next = self.rdmux.m_arvalid.val();
        self.rdmux.m_arready.next = self.m_axi_hbm_arready.val();
        self.rdmux.m_rdata.next = self.m_axi_hbm_rdata.val();
        self.rdmux.m_rresp.next = self.m_axi_hbm_rresp.val();
        self.rdmux.m_rlast.next = self.m_axi_hbm_rlast.val();
        self.rdmux.m_rvalid.next = self.m_axi_hbm_rvalid.val();
        self.m_axi_hbm_rready.next = self.rdmux.m_rready.val();
        // m_axi_hbm write channels: Broadcast.
        // Broadcast's writes reach m_axi_hbm through LocalGuard, trusted
        // as Guard is (its reset is ap_rst_n alone).
        self.local_guard.clock.next = self.ap_clk.val();
        self.local_guard.rst_n.next = self.ap_rst_n.val();
        self.local_guard.id.next = self.control.id.val();
        self.local_guard.network_ptr.next = self.control.network_ptr.val();
        self.local_guard.s_awaddr.next = self.broadcast.awaddr.val();
        self.local_guard.s_awlen.next = self.broadcast.awlen.val();
        self.local_guard.s_awvalid.next = self.broadcast.awvalid.val();
        self.broadcast.awready.next = self.local_guard.s_awready.val();
        self.local_guard.s_wdata.next = self.broadcast.wdata.val();
        self.local_guard.s_wstrb.next = self.broadcast.wstrb.val();
        self.local_guard.s_wvalid.next = self.broadcast.wvalid.val();
        self.broadcast.wready.next = self.local_guard.s_wready.val();
        self.broadcast.bresp.next = self.local_guard.s_bresp.val();
        self.broadcast.bvalid.next = self.local_guard.s_bvalid.val();
        self.local_guard.s_bready.next = self.broadcast.bready.val();
        self.m_axi_hbm_awaddr.next = self.local_guard.m_awaddr.val();
        self.m_axi_hbm_awlen.next = self.local_guard.m_awlen.val();
        self.m_axi_hbm_awsize.next = self.local_guard.m_awsize.val();
        self.m_axi_hbm_awburst.next = self.local_guard.m_awburst.val();
        self.m_axi_hbm_awvalid.next = self.local_guard.m_awvalid.val();
        self.local_guard.m_awready.next = self.m_axi_hbm_awready.val();
        self.m_axi_hbm_wdata.next = self.local_guard.m_wdata.val();
        self.m_axi_hbm_wstrb.next = self.local_guard.m_wstrb.val();
        self.m_axi_hbm_wlast.next = self.local_guard.m_wlast.val();
        self.m_axi_hbm_wvalid.next = self.local_guard.m_wvalid.val();
        self.local_guard.m_wready.next = self.m_axi_hbm_wready.val();
        self.local_guard.m_bresp.next = self.m_axi_hbm_bresp.val();
        self.local_guard.m_bvalid.next = self.m_axi_hbm_bvalid.val();
        self.m_axi_hbm_bready.next = self.local_guard.m_bready.val();
        // Broadcast <-> RoceAdapter <-> the RoCE stack.
        self.roce.clock.next = self.ap_clk.val();
        // The remote read's READs: Protocol's, on the adapter's second port.
        self.protocol.qpns.next = self.control.qpns.val();
        self.roce.rd_qpn.next = self.protocol.rd_qpn.val();
        self.roce.rd_laddr.next = self.protocol.rd_laddr.val();
        self.roce.rd_raddr.next = self.protocol.rd_raddr.val();
        self.roce.rd_valid.next = self.protocol.rd_valid.val();
        self.protocol.rd_ready.next = self.roce.rd_ready.val();
        self.protocol.rd_taken.next = self.guard.rd_taken.val();
        self.roce.cmd_qpn.next = self.broadcast.cmd_qpn.val();
        self.roce.cmd_addr.next = self.broadcast.cmd_addr.val();
        self.roce.cmd_len.next = self.broadcast.cmd_len.val();
        self.roce.cmd_valid.next = self.broadcast.cmd_valid.val();
        self.roce.cmd_staged.next = self.broadcast.cmd_staged.val();
        // Stage: Broadcast's one-beat record, read by the stack.
        self.stage.clock.next = self.ap_clk.val();
        self.stage.rst_n.next = self.ap_rst_n.val();
        self.stage.put.next = self.broadcast.stage_put.val();
        self.stage.put_addr.next = self.broadcast.stage_addr.val();
        self.stage.put_len.next = self.broadcast.stage_len.val();
        self.stage.put_data.next = self.broadcast.stage_data.val();
        self.stage.sent.next = self.broadcast.stage_sent.val();
        self.broadcast.stage_busy.next = self.stage.busy.val();
        self.stage.s_cmd_tdata.next = self.s_axis_tx_cmd_tdata.val();
        self.stage.s_cmd_tvalid.next = self.s_axis_tx_cmd_tvalid.val();
        self.s_axis_tx_cmd_tready.next = self.stage.s_cmd_tready.val();
        self.m_axis_tx_data_tdata.next = self.stage.m_data_tdata.val();
        self.m_axis_tx_data_tkeep.next = self.stage.m_data_tkeep.val();
        self.m_axis_tx_data_tlast.next = self.stage.m_data_tlast.val();
        self.m_axis_tx_data_tvalid.next = self.stage.m_data_tvalid.val();
        self.stage.m_data_tready.next = self.m_axis_tx_data_tready.val();
        self.broadcast.cmd_ready.next = self.roce.cmd_ready.val();
        self.broadcast.ack.next = self.roce.ack.val();
        // A run's counters start at zero: Broadcast's too.
        self.broadcast.clear.next = self.protocol.started.val();
        self.m_axis_sq_tdata.next = self.roce.sq_tdata.val();
        self.m_axis_sq_tvalid.next = self.roce.sq_tvalid.val();
        self.roce.sq_tready.next = self.m_axis_sq_tready.val();
        self.roce.cq_tdata.next = self.s_axis_cq_tdata.val();
        self.roce.cq_tvalid.next = self.s_axis_cq_tvalid.val();
        self.s_axis_cq_tready.next = self.roce.cq_tready.val();
        // The receive path: Guard, whenever the card is out of reset (its
        // reset is ap_rst_n; ap_start does not gate it).
        self.guard.clock.next = self.ap_clk.val();
        self.guard.rst_n.next = self.ap_rst_n.val();
        self.guard.network_ptr.next = self.control.network_ptr.val();
        self.guard.n.next = self.control.n.val();
        self.guard.id.next = self.control.id.val();
        self.guard.qpns.next = self.control.qpns.val();
        // The command stream passes through RxStatus, which watches
        // m_axi_rx's handshakes and reports each write's end.
        self.rx_status.clock.next = self.ap_clk.val();
        self.rx_status.rst_n.next = self.ap_rst_n.val();
        self.rx_status.s_cmd_tdata.next = self.s_axis_rx_cmd_tdata.val();
        self.rx_status.s_cmd_tvalid.next = self.s_axis_rx_cmd_tvalid.val();
        self.s_axis_rx_cmd_tready.next = self.rx_status.s_cmd_tready.val();
        self.guard.wr_cmd_tdata.next = self.s_axis_rx_cmd_tdata.val();
        self.guard.wr_cmd_tvalid.next = self.rx_status.g_cmd_tvalid.val();
        self.rx_status.g_cmd_tready.next = self.guard.wr_cmd_tready.val();
        self.rx_status.awvalid.next = self.guard.awvalid.val();
        self.rx_status.awready.next = self.m_axi_rx_awready.val();
        self.rx_status.bvalid.next = self.m_axi_rx_bvalid.val();
        self.rx_status.bresp.next = self.m_axi_rx_bresp.val();
        self.rx_status.bready.next = self.guard.bready.val();
        self.m_axis_rx_sts_tdata.next = self.rx_status.m_sts_tdata.val();
        self.m_axis_rx_sts_tvalid.next = self.rx_status.m_sts_tvalid.val();
        self.rx_status.m_sts_tready.next = self.m_axis_rx_sts_tready.val();
        self.guard.wr_data_tdata.next = self.s_axis_rx_data_tdata.val();
        self.guard.wr_data_tkeep.next = self.s_axis_rx_data_tkeep.val();
        self.guard.wr_data_tlast.next = self.s_axis_rx_data_tlast.val();
        self.guard.wr_data_tvalid.next = self.s_axis_rx_data_tvalid.val();
        self.s_axis_rx_data_tready.next = self.guard.wr_data_tready.val();
        self.m_axi_rx_awaddr.next = self.guard.awaddr.val();
        self.m_axi_rx_awlen.next = self.guard.awlen.val();
        self.m_axi_rx_awsize.next = self.guard.awsize.val();
        self.m_axi_rx_awburst.next = self.guard.awburst.val();
        self.m_axi_rx_awvalid.next = self.guard.awvalid.val();
        self.guard.awready.next = self.m_axi_rx_awready.val();
        self.m_axi_rx_wdata.next = self.guard.wdata.val();
        self.m_axi_rx_wstrb.next = self.guard.wstrb.val();
        self.m_axi_rx_wlast.next = self.guard.wlast.val();
        self.m_axi_rx_wvalid.next = self.guard.wvalid.val();
        self.guard.wready.next = self.m_axi_rx_wready.val();
        self.guard.bresp.next = self.m_axi_rx_bresp.val();
        self.guard.bvalid.next = self.m_axi_rx_bvalid.val();
        self.m_axi_rx_bready.next = self.guard.bready.val();
        // Client streams.
        self.protocol.prop_tdata.next = self.s_axis_prop_tdata.val();
        self.protocol.prop_tvalid.next = self.s_axis_prop_tvalid.val();
        self.s_axis_prop_tready.next = self.protocol.prop_tready.val();
        // Decisions go out through Chain, which hashes them (chain.md).
        self.chain.clock.next = self.ap_clk.val();
        self.chain.rst_n.next = self.ap_rst_n.val();
        self.chain.start.next = self.protocol.started.val();
        self.chain.s_tdata.next = self.protocol.dec_tdata.val();
        self.chain.s_tuser.next = self.protocol.dec_tuser.val();
        self.chain.s_tvalid.next = self.protocol.dec_tvalid.val();
        self.protocol.dec_tready.next = self.chain.s_tready.val();
        self.m_axis_dec_tdata.next = self.chain.m_tdata.val();
        self.m_axis_dec_tuser.next = self.chain.m_tuser.val();
        self.m_axis_dec_tvalid.next = self.chain.m_tvalid.val();
        self.chain.m_tready.next = self.m_axis_dec_tready.val();
        // Status registers: Control reads them live.
        self.control.sts_cycles.next = self.protocol.sts_cycles.val();
        self.control.sts_decisions.next = self.protocol.sts_decisions.val();
        self.control.sts_fast.next = self.protocol.sts_fast.val();
        self.control.sts_slow.next = self.protocol.sts_slow.val();
        self.control.sts_view_changes.next = self.protocol.sts_view_changes.val();
        self.control.sts_view.next = self.protocol.sts_view.val();
        self.control.sts_timeouts.next = self.protocol.sts_timeouts.val();
        self.control.sts_polls.next = self.protocol.sts_polls.val();
        self.control.sts_bad_shares.next = self.protocol.sts_bad_shares.val();
        self.control.sts_acks.next = self.broadcast.acks.val();
        self.control.sts_write_errors.next = self.broadcast.write_errors.val();
        self.control.sts_error.next = self.protocol.sts_error.val();
        self.control.sts_state.next = self.protocol.sts_state.val();
        self.control.sts_guard_accepted.next = self.guard.sts_accepted.val();
        self.control.sts_guard_write_errors.next = self.guard.sts_write_errors.val();
        self.control.sts_guard_refused_unknown_qp.next = self.guard.sts_refused_unknown_qp.val();
        self.control.sts_guard_refused_length.next = self.guard.sts_refused_length.val();
        self.control.sts_guard_refused_unaligned.next = self.guard.sts_refused_unaligned.val();
        self.control.sts_guard_refused_outside.next = self.guard.sts_refused_outside.val();
        self.control.sts_guard_refused_data.next = self.guard.sts_refused_data.val();
        self.control.sts_guard_refused_not_owner.next = self.guard.sts_refused_not_owner.val();
        self.control.sts_guard_refused_not_leader.next = self.guard.sts_refused_not_leader.val();
        self.control.sts_guard_refused_shape.next = self.guard.sts_refused_shape.val();
        self.control.sts_guard_refused_unchecked.next = self.guard.sts_refused_unchecked.val();
        self.control.sts_guard_refused_by.next = self.guard.sts_refused_by.val();
        self.control.sts_local_refused.next = self.local_guard.sts_refused.val();
        self.control.sts_chain_k.next = self.chain.k.val();
        self.control.sts_chain_h.next = self.chain.h.val();
    }
}

impl<const N: usize> Kernel<N> {
    /// The kernel as a top level: its inputs are driven from outside.
    pub fn top() -> Self {
        Self::default().into_top()
    }
}

impl<const N: usize> Kernel<N> {
    /// This kernel as a top level: its inputs are driven from outside.
    fn into_top(self) -> Self {
        let mut k = self;
        k.ap_clk.connect();
        k.ap_rst_n.connect();
        k.s_axi_control_awaddr.connect();
        k.s_axi_control_awvalid.connect();
        k.s_axi_control_wdata.connect();
        k.s_axi_control_wstrb.connect();
        k.s_axi_control_wvalid.connect();
        k.s_axi_control_bready.connect();
        k.s_axi_control_araddr.connect();
        k.s_axi_control_arvalid.connect();
        k.s_axi_control_rready.connect();
        k.m_axi_hbm_arready.connect();
        k.m_axi_hbm_rdata.connect();
        k.m_axi_hbm_rresp.connect();
        k.m_axi_hbm_rlast.connect();
        k.m_axi_hbm_rvalid.connect();
        k.m_axi_hbm_awready.connect();
        k.m_axi_hbm_wready.connect();
        k.m_axi_hbm_bresp.connect();
        k.m_axi_hbm_bvalid.connect();
        k.m_axis_sq_tready.connect();
        k.s_axis_cq_tdata.connect();
        k.s_axis_cq_tvalid.connect();
        k.m_axis_sreq_tready.connect();
        k.s_axis_sresp_tdata.connect();
        k.s_axis_sresp_tuser.connect();
        k.s_axis_sresp_tlast.connect();
        k.s_axis_sresp_tvalid.connect();
        k.s_axis_prop_tdata.connect();
        k.s_axis_prop_tvalid.connect();
        k.m_axis_dec_tready.connect();
        k.s_axis_rx_cmd_tdata.connect();
        k.s_axis_rx_cmd_tvalid.connect();
        k.s_axis_rx_data_tdata.connect();
        k.s_axis_rx_data_tkeep.connect();
        k.s_axis_rx_data_tlast.connect();
        k.s_axis_rx_data_tvalid.connect();
        k.m_axi_rx_awready.connect();
        k.m_axi_rx_wready.connect();
        k.m_axi_rx_bresp.connect();
        k.m_axi_rx_bvalid.connect();
        k.connect_all();
        k
    }
}

impl<const N: usize> Kernel<N> {
    /// The controller's state (`status::STATE_NAMES`), read from inside
    /// the simulated kernel: a debugging aid for the rust-hdl backend (on
    /// the card, the host reads the `state` register).
    pub fn debug_state(&self) -> u8 {
        self.protocol.sts_state.val().to_u8()
    }

    /// The controller itself, for tests that look inside it (which of its
    /// machines is active, the state registers).
    pub fn debug_protocol(&self) -> &Protocol<N> {
        &self.protocol
    }

    /// The controller, to change its registers from a test
    /// (`Protocol::preset_k`).
    pub fn debug_protocol_mut(&mut self) -> &mut Protocol<N> {
        &mut self.protocol
    }
}

/// The kernel of the default build (N = `params::N`).
pub type UbftKernel = Kernel<{ crate::params::N }>;

/// The Verilog of the kernel of N replicas (`rtl/rhdl_ubft.v`), top
/// module renamed `rhdl_ubft`, with the "generated, do not edit" header.
pub fn verilog<const N: usize>() -> String {
    top_verilog(
        Kernel::<N>::top(),
        ", the v3 layout (the fast path, the f + 1 slow path and the view change)",
    )
}

fn top_verilog<const N: usize>(uut: Kernel<N>, build: &str) -> String {
    let body = generate_verilog(&uut);
    let body = body.replace("module top(", "module rhdl_ubft(");
    format!(
        "// Generated by `cargo xtask verilog` from crates/rhdl_ubft (rust-hdl 0.46), N = {N}{build}.\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}
