//! The rust-hdl backend: the kernel (`rhdl_ubft::kernel::Kernel<N>`) in
//! rust-hdl's own simulator.
//!
//! Each cycle settles the logic twice: once with the clock low and this
//! cycle's inputs (`eval`), once on the rising edge (`tick`).

use crate::ports::{Beat, KernelBackend, KernelIn, KernelOut};
use rhdl_ubft::io::roce::{SQ_BITS, WR_CMD_BITS};
use rhdl_ubft::kernel::Kernel;
use rhdl_ubft::params::{BEAT_BITS, BEAT_WORDS};
use rust_hdl::prelude::*;

/// Settling passes allowed per evaluation before the logic counts as a loop.
const MAX_SETTLE: usize = 200;

pub struct RustHdlKernel<const N: usize> {
    k: Box<Kernel<N>>,
}

impl<const N: usize> Default for RustHdlKernel<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> RustHdlKernel<N> {
    /// The kernel, its inputs driven by the simulator.
    pub fn new() -> Self {
        RustHdlKernel {
            k: Box::new(Kernel::<N>::top()),
        }
    }

    /// The simulated kernel, for tests that look inside it.
    pub fn kernel(&self) -> &Kernel<N> {
        &self.k
    }

    /// The simulated kernel, for tests that change its registers.
    pub fn kernel_mut(&mut self) -> &mut Kernel<N> {
        &mut self.k
    }
}

/// A beat as rust-hdl bits.
pub fn beat_to_bits(b: &Beat) -> Bits<BEAT_BITS> {
    let mut x = Bits::<BEAT_BITS>::default();
    for (i, w) in b.iter().enumerate() {
        if *w != 0 {
            x.set_bits::<32>(i * 32, (*w as u64).into());
        }
    }
    x
}

/// rust-hdl bits as a beat.
pub fn bits_to_beat(x: Bits<BEAT_BITS>) -> Beat {
    let mut b = [0u32; BEAT_WORDS];
    for (i, w) in b.iter_mut().enumerate() {
        *w = x.get_bits::<32>(i * 32).to_u32();
    }
    b
}

/// A packed memory-write command (three words) as rust-hdl bits.
pub fn cmd_to_bits(c: &[u32; 3]) -> Bits<WR_CMD_BITS> {
    let mut x = Bits::<WR_CMD_BITS>::default();
    for (i, w) in c.iter().enumerate() {
        if *w != 0 {
            x.set_bits::<32>(i * 32, (*w as u64).into());
        }
    }
    x
}

fn settle<B: Block>(b: &mut B) {
    assert!(simulate(b, MAX_SETTLE), "the kernel's logic did not settle");
}

/// One evaluation of a kernel `$k` (a `&mut Box<Kernel<N>>`) with
/// inputs `$i`.
macro_rules! eval_kernel {
    ($k:expr, $i:expr) => {{
        let k = $k;
        let i: &KernelIn = $i;
        k.ap_clk.next = Clock::from(false);
        k.ap_rst_n.next = i.ap_rst_n;
        k.s_axi_control_awaddr.next = (i.ctl_awaddr as u64).into();
        k.s_axi_control_awvalid.next = i.ctl_awvalid;
        k.s_axi_control_wdata.next = (i.ctl_wdata as u64).into();
        k.s_axi_control_wstrb.next = (i.ctl_wstrb as u64).into();
        k.s_axi_control_wvalid.next = i.ctl_wvalid;
        k.s_axi_control_bready.next = i.ctl_bready;
        k.s_axi_control_araddr.next = (i.ctl_araddr as u64).into();
        k.s_axi_control_arvalid.next = i.ctl_arvalid;
        k.s_axi_control_rready.next = i.ctl_rready;
        k.m_axi_hbm_arready.next = i.hbm_arready;
        k.m_axi_hbm_rvalid.next = i.hbm_rvalid;
        if i.hbm_rvalid {
            k.m_axi_hbm_rdata.next = beat_to_bits(&i.hbm_rdata);
        }
        k.m_axi_hbm_rresp.next = (i.hbm_rresp as u64).into();
        k.m_axi_hbm_rlast.next = i.hbm_rlast;
        k.m_axi_hbm_awready.next = i.hbm_awready;
        k.m_axi_hbm_wready.next = i.hbm_wready;
        k.m_axi_hbm_bvalid.next = i.hbm_bvalid;
        k.m_axi_hbm_bresp.next = (i.hbm_bresp as u64).into();
        k.m_axis_sq_tready.next = i.sq_tready;
        k.s_axis_cq_tvalid.next = i.cq_tvalid;
        k.s_axis_cq_tdata.next = i.cq_tdata.into();
        k.m_axis_sreq_tready.next = i.sreq_tready;
        k.s_axis_sresp_tvalid.next = i.sresp_tvalid;
        if i.sresp_tvalid {
            k.s_axis_sresp_tdata.next = beat_to_bits(&i.sresp_tdata);
        }
        k.s_axis_sresp_tuser.next = (i.sresp_tuser as u64).into();
        k.s_axis_sresp_tlast.next = i.sresp_tlast;
        k.s_axis_prop_tvalid.next = i.prop_tvalid;
        k.s_axis_prop_tdata.next = (i.prop_tdata as u64).into();
        k.m_axis_dec_tready.next = i.dec_tready;
        k.s_axis_rx_cmd_tvalid.next = i.rx_cmd_tvalid;
        k.s_axis_rx_cmd_tdata.next = cmd_to_bits(&i.rx_cmd_tdata);
        k.m_axis_rx_sts_tready.next = i.rx_sts_tready;
        k.s_axis_rx_data_tvalid.next = i.rx_data_tvalid;
        if i.rx_data_tvalid {
            k.s_axis_rx_data_tdata.next = beat_to_bits(&i.rx_data_tdata);
        }
        k.s_axis_rx_data_tkeep.next = i.rx_data_tkeep.into();
        k.s_axis_rx_data_tlast.next = i.rx_data_tlast;
        k.m_axi_rx_awready.next = i.rx_awready;
        k.m_axi_rx_wready.next = i.rx_wready;
        k.m_axi_rx_bvalid.next = i.rx_bvalid;
        k.m_axi_rx_bresp.next = (i.rx_bresp as u64).into();
        k.s_axis_tx_cmd_tvalid.next = i.tx_cmd_tvalid;
        k.s_axis_tx_cmd_tdata.next = cmd_to_bits(&i.tx_cmd_tdata);
        k.m_axis_tx_data_tready.next = i.tx_data_tready;
        settle(k.as_mut());
        let sq: Bits<SQ_BITS> = k.m_axis_sq_tdata.val();
        let dec: Bits<64> = k.m_axis_dec_tdata.val();
        let wvalid = k.m_axi_hbm_wvalid.val();
        let rx_wvalid = k.m_axi_rx_wvalid.val();
        KernelOut {
            ctl_awready: k.s_axi_control_awready.val(),
            ctl_wready: k.s_axi_control_wready.val(),
            ctl_bresp: k.s_axi_control_bresp.val().to_u8(),
            ctl_bvalid: k.s_axi_control_bvalid.val(),
            ctl_arready: k.s_axi_control_arready.val(),
            ctl_rdata: k.s_axi_control_rdata.val().to_u32(),
            ctl_rresp: k.s_axi_control_rresp.val().to_u8(),
            ctl_rvalid: k.s_axi_control_rvalid.val(),
            interrupt: k.interrupt.val(),
            hbm_araddr: k.m_axi_hbm_araddr.val().to_u64(),
            hbm_arlen: k.m_axi_hbm_arlen.val().to_u8(),
            hbm_arsize: k.m_axi_hbm_arsize.val().to_u8(),
            hbm_arburst: k.m_axi_hbm_arburst.val().to_u8(),
            hbm_arvalid: k.m_axi_hbm_arvalid.val(),
            hbm_rready: k.m_axi_hbm_rready.val(),
            hbm_awaddr: k.m_axi_hbm_awaddr.val().to_u64(),
            hbm_awlen: k.m_axi_hbm_awlen.val().to_u8(),
            hbm_awsize: k.m_axi_hbm_awsize.val().to_u8(),
            hbm_awburst: k.m_axi_hbm_awburst.val().to_u8(),
            hbm_awvalid: k.m_axi_hbm_awvalid.val(),
            // The 512-bit data is converted only while it is valid: the
            // conversion is the slowest part of a cycle.
            hbm_wdata: if wvalid {
                bits_to_beat(k.m_axi_hbm_wdata.val())
            } else {
                [0; BEAT_WORDS]
            },
            hbm_wstrb: k.m_axi_hbm_wstrb.val().to_u64(),
            hbm_wlast: k.m_axi_hbm_wlast.val(),
            hbm_wvalid: wvalid,
            hbm_bready: k.m_axi_hbm_bready.val(),
            sq_tvalid: k.m_axis_sq_tvalid.val(),
            sq_tdata: [
                sq.get_bits::<64>(0).to_u64(),
                sq.get_bits::<64>(64).to_u64(),
                sq.get_bits::<64>(128).to_u64(),
                sq.get_bits::<64>(192).to_u64(),
            ],
            cq_tready: k.s_axis_cq_tready.val(),
            sreq_tvalid: k.m_axis_sreq_tvalid.val(),
            sreq_tdata: if k.m_axis_sreq_tvalid.val() {
                bits_to_beat(k.m_axis_sreq_tdata.val())
            } else {
                [0; BEAT_WORDS]
            },
            sreq_tkeep: k.m_axis_sreq_tkeep.val().to_u64(),
            sreq_tlast: k.m_axis_sreq_tlast.val(),
            sreq_tuser: k.m_axis_sreq_tuser.val().to_u16(),
            sresp_tready: k.s_axis_sresp_tready.val(),
            prop_tready: k.s_axis_prop_tready.val(),
            dec_tvalid: k.m_axis_dec_tvalid.val(),
            dec_k: dec.get_bits::<32>(0).to_u32(),
            dec_m: dec.get_bits::<32>(32).to_u32(),
            dec_slow: k.m_axis_dec_tuser.val(),
            rx_cmd_tready: k.s_axis_rx_cmd_tready.val(),
            rx_data_tready: k.s_axis_rx_data_tready.val(),
            rx_sts_tvalid: k.m_axis_rx_sts_tvalid.val(),
            // Like the Verilator backend's: data only with its valid.
            rx_sts_tdata: if k.m_axis_rx_sts_tvalid.val() {
                k.m_axis_rx_sts_tdata.val().to_u32()
            } else {
                0
            },
            rx_awaddr: k.m_axi_rx_awaddr.val().to_u64(),
            rx_awlen: k.m_axi_rx_awlen.val().to_u8(),
            rx_awsize: k.m_axi_rx_awsize.val().to_u8(),
            rx_awburst: k.m_axi_rx_awburst.val().to_u8(),
            rx_awvalid: k.m_axi_rx_awvalid.val(),
            rx_wdata: if rx_wvalid {
                bits_to_beat(k.m_axi_rx_wdata.val())
            } else {
                [0; BEAT_WORDS]
            },
            rx_wstrb: k.m_axi_rx_wstrb.val().to_u64(),
            rx_wlast: k.m_axi_rx_wlast.val(),
            rx_wvalid,
            rx_bready: k.m_axi_rx_bready.val(),
            tx_cmd_tready: k.s_axis_tx_cmd_tready.val(),
            tx_data_tvalid: k.m_axis_tx_data_tvalid.val(),
            tx_data_tdata: if k.m_axis_tx_data_tvalid.val() {
                bits_to_beat(k.m_axis_tx_data_tdata.val())
            } else {
                [0; BEAT_WORDS]
            },
            tx_data_tkeep: k.m_axis_tx_data_tkeep.val().to_u64(),
            tx_data_tlast: k.m_axis_tx_data_tlast.val(),
        }
    }};
}

impl<const N: usize> KernelBackend for RustHdlKernel<N> {
    fn eval(&mut self, i: &KernelIn) -> KernelOut {
        let k = &mut self.k;
        eval_kernel!(k, i)
    }

    fn tick(&mut self) {
        self.k.ap_clk.next = Clock::from(true);
        settle(self.k.as_mut());
    }

    fn name(&self) -> &'static str {
        "rust-hdl"
    }

    fn debug_state(&self) -> Option<u8> {
        Some(self.k.debug_state())
    }

    fn debug_timeouts(&self) -> Option<u32> {
        Some(self.k.debug_protocol().sts_timeouts.val().to_u32())
    }
}
