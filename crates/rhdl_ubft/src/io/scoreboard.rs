//! Scoreboard: the slot's fast-path beats as the writes land, without a
//! read (docs/scoreboard.md).
//!
//! FAST waits on three beats of its own HBM: the slot's prepare, its
//! will_cert row and its will_commit row. The scoreboard holds a copy of
//! each (a *mirror*) and keeps it up to date from the writes that go into
//! HBM as they go: the guard's (`rx_*`, a peer's write, in the cycle its
//! AXI beat is handed over) and Broadcast's (`tx_*`, this replica's own
//! record, in the cycle HBM answers OKAY). A word no write has touched
//! since the beat was watched is taken from the machines' polls of it
//! (`poll_*`). So a mirror shows, word by word, what HBM holds or is
//! about to hold, and FAST counts a vote in the cycle after its write, not
//! a poll later.
//!
//! Watching: a mirror follows the byte address `network_ptr` + 4 × word
//! of its input (`prep_word`, `cert_word`, `commit_word`, rounded down to
//! the beat), registered (`at`): it holds the beat at the address of the
//! cycle before. When that address changes (the next slot), the mirror
//! forgets what it held from the next cycle on: every word is unknown
//! until a write or a poll brings it. A write into the new beat in the
//! cycle the address changes is not captured (a poll brings it).
//!
//! Per word, two bits: `known` (a write or a poll brought it) and
//! `captured` (a write brought it). A poll's beat updates only the words
//! not captured: a write seen since the beat was watched is at least as
//! new as any read of it (the read may have been issued before the write
//! reached HBM), and a read issued later returns that same write. A write
//! updates the words its strobes cover whole (records are whole words).
//!
//! `view` is the mirror `sel` names (1 prepare, 2 will_cert, 3
//! will_commit; 0 none: zero), combinationally: a poll's beat that
//! completes in this cycle is in it (so a poll loop decides in the cycle
//! of `done`, as it did on the beat alone); the writes of this cycle are
//! in it from the next. An unknown word reads as 0, which is no prepare
//! and no vote (k ≥ 1 in every tag and prepare).
//!
//! Timing: a write handed over at cycle t is in `view` at t + 1; an
//! address given at t is watched from t + 1. Reset (`rst_n` low,
//! synchronous) forgets everything.

use crate::params::{BEAT_BITS, BEAT_WORDS};
use rust_hdl::prelude::*;

/// The beats a scoreboard watches: the prepare, the will_cert row and the
/// will_commit row of the slot.
pub const WATCHED: usize = 3;
/// Its words, a beat per mirror.
pub const WORDS: usize = WATCHED * BEAT_WORDS;

/// The literals `update` holds: three mirrors of sixteen words of 32
/// bits, a strobe bit per byte (`get_bits::<4>(i * 4)` are word i's).
pub fn check_literals() {
    use crate::params::WORD_BITS;
    assert_eq!(
        (BEAT_WORDS, WORD_BITS),
        (16, 32),
        "scoreboard.rs: j * 16 + i, get_bits::<32>(i * 32), known is Bits<16>"
    );
    assert_eq!(
        (WATCHED, WORDS),
        (3, 48),
        "scoreboard.rs: for j in 0..3, for i in 0..48, sel 1 to 3"
    );
}

#[derive(LogicBlock)]
pub struct Scoreboard {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub network_ptr: Signal<In, Bits<64>>,
    /// The beats watched, as word indices from `network_ptr`.
    pub prep_word: Signal<In, Bits<32>>,
    pub cert_word: Signal<In, Bits<32>>,
    pub commit_word: Signal<In, Bits<32>>,
    /// Which mirror `view` shows: 1, 2, 3; 0 for none.
    pub sel: Signal<In, Bits<2>>,
    /// The guard's HBM writes: one beat, in the cycle it is handed over.
    pub rx_valid: Signal<In, Bit>,
    pub rx_addr: Signal<In, Bits<64>>,
    pub rx_data: Signal<In, Bits<BEAT_BITS>>,
    pub rx_strb: Signal<In, Bits<64>>,
    /// Broadcast's local writes of one beat, in the cycle of their OKAY.
    pub tx_valid: Signal<In, Bit>,
    pub tx_addr: Signal<In, Bits<64>>,
    pub tx_data: Signal<In, Bits<BEAT_BITS>>,
    pub tx_strb: Signal<In, Bits<64>>,
    /// The controller's reads: a request taken (`poll_start`, of
    /// `poll_len` + 1 beats at `poll_addr`; only a one-beat read fills a
    /// mirror), and its result.
    pub poll_start: Signal<In, Bit>,
    pub poll_len: Signal<In, Bits<8>>,
    pub poll_addr: Signal<In, Bits<64>>,
    pub poll_done: Signal<In, Bit>,
    pub poll_error: Signal<In, Bit>,
    pub poll_beat: Signal<In, Bits<BEAT_BITS>>,
    /// The mirror `sel` names, unknown words 0.
    pub view: Signal<Out, Bits<BEAT_BITS>>,
    w: [DFF<Bits<32>>; WORDS],
    known: [DFF<Bits<16>>; WATCHED],
    capt: [DFF<Bits<16>>; WATCHED],
    at: [DFF<Bits<64>>; WATCHED],
    /// A one-beat read outstanding, and its beat's address.
    pend: DFF<Bit>,
    pend_addr: DFF<Bits<64>>,
    wa: [Signal<Local, Bits<64>>; WATCHED],
    kn: [Signal<Local, Bits<16>>; WATCHED],
    cp: [Signal<Local, Bits<16>>; WATCHED],
    fill: [Signal<Local, Bit>; WATCHED],
    rxh: [Signal<Local, Bit>; WATCHED],
    txh: [Signal<Local, Bit>; WATCHED],
    rxw: Signal<Local, Bits<16>>,
    txw: Signal<Local, Bits<16>>,
    kq: [Signal<Local, Bits<16>>; WATCHED],
    cq: [Signal<Local, Bits<16>>; WATCHED],
    /// The mirror `sel` names: its words, known and captured words, and
    /// whether a poll's beat fills it in this cycle.
    sw: [Signal<Local, Bits<32>>; BEAT_WORDS],
    vk: Signal<Local, Bits<16>>,
    vw: Signal<Local, Bits<32>>,
    vf: Signal<Local, Bit>,
    vc: Signal<Local, Bits<16>>,
    beat_mask: Constant<Bits<64>>,
    all: Constant<Bits<16>>,
}

impl Default for Scoreboard {
    fn default() -> Self {
        Scoreboard {
            clock: Default::default(),
            rst_n: Default::default(),
            network_ptr: Default::default(),
            prep_word: Default::default(),
            cert_word: Default::default(),
            commit_word: Default::default(),
            sel: Default::default(),
            rx_valid: Default::default(),
            rx_addr: Default::default(),
            rx_data: Default::default(),
            rx_strb: Default::default(),
            tx_valid: Default::default(),
            tx_addr: Default::default(),
            tx_data: Default::default(),
            tx_strb: Default::default(),
            poll_start: Default::default(),
            poll_len: Default::default(),
            poll_addr: Default::default(),
            poll_done: Default::default(),
            poll_error: Default::default(),
            poll_beat: Default::default(),
            view: Default::default(),
            w: std::array::from_fn(|_| Default::default()),
            known: std::array::from_fn(|_| Default::default()),
            capt: std::array::from_fn(|_| Default::default()),
            at: std::array::from_fn(|_| Default::default()),
            pend: Default::default(),
            pend_addr: Default::default(),
            wa: std::array::from_fn(|_| Default::default()),
            kn: std::array::from_fn(|_| Default::default()),
            cp: std::array::from_fn(|_| Default::default()),
            fill: std::array::from_fn(|_| Default::default()),
            rxh: std::array::from_fn(|_| Default::default()),
            txh: std::array::from_fn(|_| Default::default()),
            rxw: Default::default(),
            txw: Default::default(),
            kq: std::array::from_fn(|_| Default::default()),
            cq: std::array::from_fn(|_| Default::default()),
            sw: std::array::from_fn(|_| Default::default()),
            vk: Default::default(),
            vw: Default::default(),
            vf: Default::default(),
            vc: Default::default(),
            beat_mask: Constant::new((!(crate::params::BEAT_BYTES - 1)).into()),
            all: Constant::new(0xffff.into()),
        }
    }
}

impl Logic for Scoreboard {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pend, pend_addr);
        for i in 0..48 {
            self.w[i].clock.next = self.clock.val();
            self.w[i].d.next = self.w[i].q.val();
        }
        for j in 0..3 {
            self.known[j].clock.next = self.clock.val();
            self.capt[j].clock.next = self.clock.val();
            self.at[j].clock.next = self.clock.val();
        }
        // The beats watched, as byte addresses.
        self.wa[0].next = (self.network_ptr.val()
            + (bit_cast::<64, 32>(self.prep_word.val()) << 2))
            & self.beat_mask.val();
        self.wa[1].next = (self.network_ptr.val()
            + (bit_cast::<64, 32>(self.cert_word.val()) << 2))
            & self.beat_mask.val();
        self.wa[2].next = (self.network_ptr.val()
            + (bit_cast::<64, 32>(self.commit_word.val()) << 2))
            & self.beat_mask.val();
        // The words a write covers: its strobe on each word's first byte.
        self.rxw.next = 0.into();
        self.txw.next = 0.into();
        for i in 0..16 {
            self.rxw.next = self
                .rxw
                .val()
                .replace_bit(i, self.rx_strb.val().get_bits::<4>(i * 4) == 0xf);
            self.txw.next = self
                .txw
                .val()
                .replace_bit(i, self.tx_strb.val().get_bits::<4>(i * 4) == 0xf);
        }
        for j in 0..3 {
            // The mirror is of the beat at `at`, the address registered:
            // nothing in `view` waits for the address's adder.
            self.kn[j].next = self.known[j].q.val();
            self.cp[j].next = self.capt[j].q.val();
            self.at[j].d.next = self.wa[j].val();
            self.fill[j].next = (self.poll_done.val() & !self.poll_error.val())
                & (self.pend.q.val() & (self.pend_addr.q.val() == self.at[j].q.val()));
            self.rxh[j].next = self.rx_valid.val()
                & ((self.rx_addr.val() & self.beat_mask.val()) == self.at[j].q.val());
            self.txh[j].next = self.tx_valid.val()
                & ((self.tx_addr.val() & self.beat_mask.val()) == self.at[j].q.val());
            self.kq[j].next = self.kn[j].val();
            self.cq[j].next = self.cp[j].val();
            if self.fill[j].val() {
                self.kq[j].next = self.all.val();
            }
            if self.rxh[j].val() {
                self.kq[j].next = self.kq[j].val() | self.rxw.val();
                self.cq[j].next = self.cq[j].val() | self.rxw.val();
            }
            if self.txh[j].val() {
                self.kq[j].next = self.kq[j].val() | self.txw.val();
                self.cq[j].next = self.cq[j].val() | self.txw.val();
            }
            self.known[j].d.next = self.kq[j].val();
            self.capt[j].d.next = self.cq[j].val();
            if self.wa[j].val() != self.at[j].q.val() {
                // A new address (the next slot) forgets the mirror, what
                // this cycle brought for the old one too.
                self.known[j].d.next = 0.into();
                self.capt[j].d.next = 0.into();
            }
            // Word by word: a poll's beat where no write came, then the
            // writes (the guard's and Broadcast's never share a word of an
            // honest replica's mailbox; Broadcast's is the later).
            for i in 0..16 {
                if self.fill[j].val() & !self.cp[j].val().get_bit(i) {
                    self.w[j * 16 + i].d.next = self.poll_beat.val().get_bits::<32>(i * 32);
                }
                if self.rxh[j].val() & self.rxw.val().get_bit(i) {
                    self.w[j * 16 + i].d.next = self.rx_data.val().get_bits::<32>(i * 32);
                }
                if self.txh[j].val() & self.txw.val().get_bit(i) {
                    self.w[j * 16 + i].d.next = self.tx_data.val().get_bits::<32>(i * 32);
                }
            }
        }
        // The read side: the mirror `sel` names, with a poll's beat of
        // this cycle in the words no write brought.
        self.vk.next = 0.into();
        self.vc.next = 0.into();
        self.vf.next = false;
        for i in 0..16 {
            self.sw[i].next = 0.into();
        }
        if self.sel.val() == 1 {
            self.vk.next = self.kn[0].val();
            self.vc.next = self.cp[0].val();
            self.vf.next = self.fill[0].val();
            for i in 0..16 {
                self.sw[i].next = self.w[i].q.val();
            }
        }
        if self.sel.val() == 2 {
            self.vk.next = self.kn[1].val();
            self.vc.next = self.cp[1].val();
            self.vf.next = self.fill[1].val();
            for i in 0..16 {
                self.sw[i].next = self.w[16 + i].q.val();
            }
        }
        if self.sel.val() == 3 {
            self.vk.next = self.kn[2].val();
            self.vc.next = self.cp[2].val();
            self.vf.next = self.fill[2].val();
            for i in 0..16 {
                self.sw[i].next = self.w[32 + i].q.val();
            }
        }
        // Word 15 first, each shifted up by a word as the next comes.
        self.view.next = 0.into();
        for i in 0..16 {
            self.view.next = self.view.val() << 32;
            // (bit_cast's argument may not name the loop's index.)
            self.vw.next = 0.into();
            if self.vf.val() & !self.vc.val().get_bit(15 - i) {
                self.vw.next = self.poll_beat.val().get_bits::<32>((15 - i) * 32);
            } else if self.vk.val().get_bit(15 - i) {
                self.vw.next = self.sw[15 - i].val();
            }
            self.view.next = self.view.val() | bit_cast::<BEAT_BITS, 32>(self.vw.val());
        }
        if !self.rst_n.val() {
            self.pend.d.next = false;
            for j in 0..3 {
                self.known[j].d.next = 0.into();
                self.capt[j].d.next = 0.into();
            }
        }
        // The controller's reads: one outstanding at a time.
        if self.poll_done.val() {
            self.pend.d.next = false;
        }
        if self.poll_start.val() {
            self.pend.d.next = self.poll_len.val() == 0;
            self.pend_addr.d.next = self.poll_addr.val() & self.beat_mask.val();
        }
        if !self.rst_n.val() {
            self.pend.d.next = false;
        }
    }
}
