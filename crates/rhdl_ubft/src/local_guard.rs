//! LocalGuard: the owner rule on the kernel's own HBM writes
//! (docs/local_guard.md; docs/recovery.md D11.17, "The local guard").
//!
//! A peer's remote read (`remote_read.md`) trusts a will_cert row of this
//! card's HBM as a row of facts: each lane holds what its owner last
//! wrote. The slot guard keeps each peer to its own lanes on the network
//! path; this block keeps the kernel to its own lane on the local path.
//! It sits between Broadcast's write channels and `m_axi_hbm`, and it is
//! trusted hardware, like the slot guard: it assumes nothing of the
//! master it serves, so a faulty controller cannot write another
//! replica's lane of a will_cert row here, whatever it does on AW and W.
//!
//! The rule: a beat of a burst whose 64 bytes lie in the will_cert region
//! keeps only its strobes on this replica's lanes (lane `id` of each row
//! in the beat: 8 bytes at N = 8); every other beat passes as it comes. A
//! beat whose strobes reached further is counted (`refused`, a pulse, and
//! `sts_refused`, since reset); an honest kernel never makes one.
//!
//! How it holds against any master:
//! - the block takes AW into registers (`s_awready` while no burst is
//!   open) and presents it downstream from them, with AWSIZE = 64 bytes
//!   and AWBURST = INCR whatever came, so the addresses HBM writes are the
//!   ones the rule checked: beat i at (AWADDR rounded down to the beat) +
//!   64 i;
//! - W passes only while a burst is open, masked by that burst's
//!   addresses; WLAST downstream is the block's own (beat AWLEN), and the
//!   burst closes after that beat, so a master's extra beats belong to its
//!   next AW, and a missing WLAST changes nothing;
//! - a burst that would cross a 4 KiB boundary (which AXI forbids, and
//!   whose addresses a slave may then compute otherwise) is written with
//!   every strobe low, and each of its beats is counted;
//! - downstream AWVALID and WVALID come from the block's registers and
//!   the master's W, never from a downstream ready (AXI's rule that a
//!   master does not wait for AWREADY before WVALID).
//!
//! B passes through unchanged: one response per burst, in order.
//!
//! Timing: AW goes downstream the cycle after the master's AW handshake,
//! and W beats from that cycle on, a beat a cycle; one burst is open at
//! a time, and the next AW is taken the cycle after the last beat and AW
//! went downstream. A one-beat write costs one cycle more than a direct
//! port.
//!
//! Ports: `id`, `network_ptr` (configuration, as the slot guard's); the
//! master's `s_aw*`, `s_w*`, `s_b*`; HBM's `m_aw*`, `m_w*`, `m_b*`;
//! `refused`, `sts_refused`.
//!
//! Reset (`rst_n`, synchronous, active low): no burst open (a burst in
//! flight is abandoned, as Broadcast abandons it); the count stays.

use crate::layout::{Mailbox, Region, VOTE_WORDS};
use crate::params::{
    AXI_BOUNDARY_BYTES, AXI_BURST_INCR, AXI_SIZE_BEAT, BEAT_BITS, BEAT_BYTES, BEAT_WORDS, G, N, SB,
    WORD_BYTES,
};
use rust_hdl::prelude::*;

/// Byte strobes of replica j's lanes in a beat of will_cert rows: the
/// words w of the beat with (w mod the row's words) / 2 = j, for n = N.
pub fn own_lane_strobes(j: usize) -> u64 {
    let row_words = Mailbox::v3(N, G, SB).vote_row_words();
    (0..BEAT_WORDS)
        .filter(|w| (w % row_words) / VOTE_WORDS == j)
        .fold(0u64, |m, w| m | (0xf << (WORD_BYTES as usize * w)))
}

#[derive(LogicBlock)]
pub struct LocalGuard {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub id: Signal<In, Bits<8>>,
    pub network_ptr: Signal<In, Bits<64>>,
    // The master's write channels (Broadcast).
    pub s_awaddr: Signal<In, Bits<64>>,
    pub s_awlen: Signal<In, Bits<8>>,
    pub s_awvalid: Signal<In, Bit>,
    pub s_awready: Signal<Out, Bit>,
    pub s_wdata: Signal<In, Bits<BEAT_BITS>>,
    pub s_wstrb: Signal<In, Bits<64>>,
    pub s_wvalid: Signal<In, Bit>,
    pub s_wready: Signal<Out, Bit>,
    pub s_bresp: Signal<Out, Bits<2>>,
    pub s_bvalid: Signal<Out, Bit>,
    pub s_bready: Signal<In, Bit>,
    // HBM's (m_axi_hbm's write channels).
    pub m_awaddr: Signal<Out, Bits<64>>,
    pub m_awlen: Signal<Out, Bits<8>>,
    pub m_awsize: Signal<Out, Bits<3>>,
    pub m_awburst: Signal<Out, Bits<2>>,
    pub m_awvalid: Signal<Out, Bit>,
    pub m_awready: Signal<In, Bit>,
    pub m_wdata: Signal<Out, Bits<BEAT_BITS>>,
    pub m_wstrb: Signal<Out, Bits<64>>,
    pub m_wlast: Signal<Out, Bit>,
    pub m_wvalid: Signal<Out, Bit>,
    pub m_wready: Signal<In, Bit>,
    pub m_bresp: Signal<In, Bits<2>>,
    pub m_bvalid: Signal<In, Bit>,
    pub m_bready: Signal<Out, Bit>,
    /// A beat whose strobes the rule narrowed went downstream.
    pub refused: Signal<Out, Bit>,
    /// Such beats since reset.
    pub sts_refused: Signal<Out, Bits<32>>,
    /// A burst is open (its AW taken), its AW went downstream, its beats
    /// all went downstream.
    open: DFF<Bit>,
    aw_sent: DFF<Bit>,
    w_done: DFF<Bit>,
    /// The open burst: its first beat's address (rounded down to the
    /// beat), its AWLEN, whether it crosses 4 KiB, and the next beat.
    a_addr: DFF<Bits<64>>,
    a_len: DFF<Bits<8>>,
    a_cross: DFF<Bit>,
    beat: DFF<Bits<8>>,
    count: DFF<Bits<32>>,
    // Combinational.
    beat_addr: Signal<Local, Bits<64>>,
    beat_word: Signal<Local, Bits<64>>,
    in_rows: Signal<Local, Bit>,
    allowed: Signal<Local, Bits<64>>,
    own: Signal<Local, Bits<64>>,
    id_bit: Signal<Local, Bits<N>>,
    w_go: Signal<Local, Bit>,
    cross_end: Signal<Local, Bits<16>>,
    // Constants.
    one: Constant<Bits<N>>,
    /// own_lane_strobes(j) at bits 64 j.
    lanes: Constant<Bits<512>>,
    /// The will_cert region in words: [rows_lo, rows_hi).
    rows_lo: Constant<Bits<64>>,
    rows_hi: Constant<Bits<64>>,
    beat_mask: Constant<Bits<64>>,
    page: Constant<Bits<16>>,
    size_beat: Constant<Bits<3>>,
    burst_incr: Constant<Bits<2>>,
}

impl Default for LocalGuard {
    fn default() -> Self {
        let mb = Mailbox::v3(N, G, SB);
        let span = mb.span(Region::WillCert);
        assert!(
            span.start % BEAT_WORDS == 0 && span.words % BEAT_WORDS == 0,
            "local_guard.rs: the will_cert region is whole beats"
        );
        assert!(
            N * 64 <= 512,
            "local_guard.rs: a lane mask per replica in 512 bits"
        );
        assert_eq!(BEAT_BYTES, 64, "local_guard.rs: beat i at + 64 i (<< 6)");
        assert_eq!(
            AXI_BOUNDARY_BYTES, 4096,
            "local_guard.rs: a beat's place in its page is address bits 11:6"
        );
        let mut lanes = Bits::<512>::default();
        for j in 0..N {
            lanes.set_bits::<64>(64 * j, own_lane_strobes(j).into());
        }
        block!(LocalGuard {
            one: Constant::new(1u64.into()),
            lanes: Constant::new(lanes),
            rows_lo: Constant::new((span.start as u64).into()),
            rows_hi: Constant::new(((span.start + span.words) as u64).into()),
            beat_mask: Constant::new((!(BEAT_BYTES - 1)).into()),
            page: Constant::new(AXI_BOUNDARY_BYTES.into()),
            size_beat: Constant::new(AXI_SIZE_BEAT.into()),
            burst_incr: Constant::new(AXI_BURST_INCR.into());
            defaults:
            clock, rst_n, id, network_ptr, s_awaddr, s_awlen, s_awvalid, s_awready, s_wdata,
            s_wstrb, s_wvalid, s_wready, s_bresp, s_bvalid, s_bready, m_awaddr, m_awlen, m_awsize,
            m_awburst, m_awvalid, m_awready, m_wdata, m_wstrb, m_wlast, m_wvalid, m_wready,
            m_bresp, m_bvalid, m_bready, refused, sts_refused, open, aw_sent, w_done, a_addr,
            a_len, a_cross, beat, count, beat_addr, beat_word, in_rows, allowed, own, id_bit,
            w_go, cross_end
        })
    }
}

impl Logic for LocalGuard {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, open, aw_sent, w_done, a_addr, a_len, a_cross, beat, count);
        // AW: taken into the registers while no burst is open.
        self.s_awready.next = !self.open.q.val();
        // The burst's end in its 4 KiB page, from its first beat's address
        // (the address rounded down to the beat): beyond 4 KiB crosses.
        self.cross_end.next = (bit_cast::<16, 6>(self.s_awaddr.val().get_bits::<6>(6)) << 6)
            + (bit_cast::<16, 8>(self.s_awlen.val()) << 6)
            + 64;
        if !self.open.q.val() & self.s_awvalid.val() {
            self.open.d.next = true;
            self.aw_sent.d.next = false;
            self.w_done.d.next = false;
            self.a_addr.d.next = self.s_awaddr.val() & self.beat_mask.val();
            self.a_len.d.next = self.s_awlen.val();
            self.a_cross.d.next = self.cross_end.val() > self.page.val();
            self.beat.d.next = 0.into();
        }
        // AW downstream, from the registers.
        self.m_awaddr.next = self.a_addr.q.val();
        self.m_awlen.next = self.a_len.q.val();
        self.m_awsize.next = self.size_beat.val();
        self.m_awburst.next = self.burst_incr.val();
        self.m_awvalid.next = self.open.q.val() & !self.aw_sent.q.val();
        if self.open.q.val() & !self.aw_sent.q.val() & self.m_awready.val() {
            self.aw_sent.d.next = true;
        }
        // The open burst's next beat: its address, and its words from the
        // mailbox's first.
        self.beat_addr.next = self.a_addr.q.val() + (bit_cast::<64, 8>(self.beat.q.val()) << 6);
        self.beat_word.next = (self.beat_addr.val() - self.network_ptr.val()) >> 2;
        self.in_rows.next = (self.beat_addr.val() >= self.network_ptr.val())
            & (self.beat_word.val() >= self.rows_lo.val())
            & (self.beat_word.val() < self.rows_hi.val());
        self.id_bit.next = self.one.val() << self.id.val();
        self.own.next = 0.into();
        for j in 0..N {
            if self.id_bit.val().get_bit(j) {
                self.own.next = self.lanes.val().get_bits::<64>(j * 64);
            }
        }
        self.allowed.next = 0xffff_ffff_ffff_ffff_u64.into();
        if self.a_cross.q.val() {
            self.allowed.next = 0.into();
        } else if self.in_rows.val() {
            self.allowed.next = self.own.val();
        }
        // W: the master's beats while the burst has beats left.
        self.w_go.next = self.open.q.val() & !self.w_done.q.val();
        self.m_wdata.next = self.s_wdata.val();
        self.m_wstrb.next = self.s_wstrb.val() & self.allowed.val();
        self.m_wlast.next = self.beat.q.val() == self.a_len.q.val();
        self.m_wvalid.next = self.w_go.val() & self.s_wvalid.val();
        self.s_wready.next = self.w_go.val() & self.m_wready.val();
        self.refused.next = false;
        if self.w_go.val() & self.s_wvalid.val() & self.m_wready.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            if self.beat.q.val() == self.a_len.q.val() {
                self.w_done.d.next = true;
            }
            if (self.s_wstrb.val() & !self.allowed.val()) != 0 {
                self.refused.next = true;
                self.count.d.next = self.count.q.val() + 1;
            }
        }
        self.sts_refused.next = self.count.q.val();
        // The burst closes once its AW and every beat went downstream.
        if self.open.q.val() & self.aw_sent.q.val() & self.w_done.q.val() {
            self.open.d.next = false;
        }
        // B: through.
        self.s_bresp.next = self.m_bresp.val();
        self.s_bvalid.next = self.m_bvalid.val();
        self.m_bready.next = self.s_bready.val();
        if !self.rst_n.val() {
            self.open.d.next = false;
        }
    }
}
