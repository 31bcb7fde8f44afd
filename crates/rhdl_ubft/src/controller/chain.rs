//! Chain: the SHA-256 chain of the decided values (docs/chain.md,
//! docs/recovery.md section 17's h_c).
//!
//! h_0 = 0 and h_c = SHA-256(h_{c−1} ‖ c ‖ dec[c]): 32 bytes of h_{c−1},
//! c as 8 bytes and the value as 4, all big-endian, one 64-byte block
//! with its padding. So the block's sixteen message words are
//! [h_{c−1}'s eight, c's high word, c's low word, dec[c], 0x8000_0000,
//! 0, 0, 0, 352], and one compression of 64 rounds, one a cycle, gives
//! h_c.
//!
//! The block sits on the decision stream between Protocol and
//! `m_axis_dec`, a tap: a decision passes to the host unchanged, in the
//! cycle it is offered, and the handshake that hands it out also queues
//! its (k, m) for the hash (`CHAIN_QUEUE` entries). While the queue is
//! full the stream waits (`s_tready` = `m_tvalid` = 0), so no decision
//! goes out unhashed; the hash takes `CHAIN_CYCLES` per decision and
//! empties the queue between decisions of any path.
//!
//! `k` is the slot of the latest decision hashed (0: none since the run
//! started) and `h` its h_k; both change together, in one cycle. A run's
//! start (`start`) and reset (`rst_n` low) empty the queue and set the
//! chain back to h_0 = 0 at k = 0. The register view of both
//! (`chain_k`, `chain_h_i`) is in `regs`.

use crate::params::{CHAIN_BITS, CHAIN_QUEUE, CHAIN_WORDS};

// The packing of h_k in `update` is written for eight words.
const _: () = assert!(CHAIN_BITS == 256, "chain.rs: h_k's packing literals");
use rust_hdl::prelude::*;

/// SHA-256's round constants (FIPS 180-4, 4.2.2).
pub const SHA256_K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256's initial hash value (FIPS 180-4, 5.3.3).
pub const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Message word 11: the padding's leading 1 bit after the 44 bytes.
pub const PAD_WORD: u32 = 0x8000_0000;
/// Message word 15: the message's length in bits, 44 × 8.
pub const LENGTH_WORD: u32 = 44 * 8;

/// The sixteen message words of the block that hashes (c, dec[c]) onto
/// `h` = h_{c−1}.
pub fn message(h: &[u32; CHAIN_WORDS], c: u64, m: u32) -> [u32; 16] {
    let mut w = [0; 16];
    w[..8].copy_from_slice(h);
    w[8] = (c >> 32) as u32;
    w[9] = c as u32;
    w[10] = m;
    w[11] = PAD_WORD;
    w[15] = LENGTH_WORD;
    w
}

/// h_c from h_{c−1} = `h`, c and dec[c] = `m`: what the block computes,
/// in software (the simulator's check of the `chain_h_i` registers).
pub fn next(h: &[u32; CHAIN_WORDS], c: u64, m: u32) -> [u32; CHAIN_WORDS] {
    let mut w = [0u32; 64];
    w[..16].copy_from_slice(&message(h, c, m));
    for t in 16..64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16]
            .wrapping_add(s0)
            .wrapping_add(w[t - 7])
            .wrapping_add(s1);
    }
    let mut v = SHA256_IV;
    for t in 0..64 {
        let [a, b, c, d, e, f, g, hh] = v;
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = hh
            .wrapping_add(s1)
            .wrapping_add(ch)
            .wrapping_add(SHA256_K[t])
            .wrapping_add(w[t]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        v = [t1.wrapping_add(t2), a, b, c, d.wrapping_add(t1), e, f, g];
    }
    std::array::from_fn(|i| SHA256_IV[i].wrapping_add(v[i]))
}

/// h_c of the decisions `dec` = [(c, dec[c])], in order, from h_0 = 0.
pub fn chain(dec: impl IntoIterator<Item = (u64, u32)>) -> [u32; CHAIN_WORDS] {
    dec.into_iter()
        .fold([0; CHAIN_WORDS], |h, (c, m)| next(&h, c, m))
}

/// Rounds in a compression.
const ROUNDS: u64 = 64;
/// The queue's last entry.
const LAST: usize = CHAIN_QUEUE - 1;

#[derive(LogicBlock)]
pub struct Chain {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// A run starts: the chain goes back to h_0 at k = 0.
    pub start: Signal<In, Bit>,
    // The decision stream from Protocol (AXI-Stream: {m, k}, the path).
    pub s_tdata: Signal<In, Bits<64>>,
    pub s_tuser: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    // ... and on to the host (`m_axis_dec`).
    pub m_tdata: Signal<Out, Bits<64>>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    /// The slot of the latest decision hashed, and its h_k: SHA-256's
    /// eight big-endian words, word i in bits [32 i + 31 : 32 i].
    pub k: Signal<Out, Bits<32>>,
    pub h: Signal<Out, Bits<CHAIN_BITS>>,
    // The queue: entry 0 the oldest, `qv` bit i = entry i holds one.
    qk: [DFF<Bits<32>>; CHAIN_QUEUE],
    qm: [DFF<Bits<32>>; CHAIN_QUEUE],
    qv: DFF<Bits<CHAIN_QUEUE>>,
    all: Constant<Bits<CHAIN_QUEUE>>,
    // The compression: `busy` from the load to the last round; `round`
    // the next round's index; `v` the working variables a..h; `w` the
    // message schedule's next sixteen words (w[0] this round's).
    busy: DFF<Bit>,
    round: DFF<Bits<6>>,
    v: [DFF<Bits<32>>; 8],
    w: [DFF<Bits<32>>; 16],
    cur_k: DFF<Bits<32>>,
    // The chain: h_k and k.
    hq: DFF<Bits<CHAIN_BITS>>,
    kq: DFF<Bits<32>>,
    // Constants.
    iv: [Constant<Bits<32>>; 8],
    krom: Constant<Bits<2048>>,
    pad: Constant<Bits<32>>,
    len: Constant<Bits<32>>,
    last_round: Constant<Bits<6>>,
    // Combinational.
    room: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    mid_k: [Signal<Local, Bits<32>>; CHAIN_QUEUE],
    mid_m: [Signal<Local, Bits<32>>; CHAIN_QUEUE],
    midv: Signal<Local, Bits<CHAIN_QUEUE>>,
    nv: Signal<Local, Bits<CHAIN_QUEUE>>,
    placed: Signal<Local, Bit>,
    koff: Signal<Local, Bits<11>>,
    kt: Signal<Local, Bits<32>>,
    sig0: Signal<Local, Bits<32>>,
    sig1: Signal<Local, Bits<32>>,
    ch: Signal<Local, Bits<32>>,
    maj: Signal<Local, Bits<32>>,
    t1: Signal<Local, Bits<32>>,
    t2: Signal<Local, Bits<32>>,
    s0: Signal<Local, Bits<32>>,
    s1: Signal<Local, Bits<32>>,
    fin: [Signal<Local, Bits<32>>; 8],
}

impl Default for Chain {
    fn default() -> Self {
        let mut krom = Bits::<2048>::default();
        for (i, &k) in SHA256_K.iter().enumerate() {
            krom.set_bits::<32>(32 * i, (k as u64).into());
        }
        Chain {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            s_tdata: Default::default(),
            s_tuser: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            m_tdata: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            k: Default::default(),
            h: Default::default(),
            qk: std::array::from_fn(|_| Default::default()),
            qm: std::array::from_fn(|_| Default::default()),
            qv: Default::default(),
            all: Constant::new(((1u64 << CHAIN_QUEUE) - 1).into()),
            busy: Default::default(),
            round: Default::default(),
            v: std::array::from_fn(|_| Default::default()),
            w: std::array::from_fn(|_| Default::default()),
            cur_k: Default::default(),
            hq: Default::default(),
            kq: Default::default(),
            iv: std::array::from_fn(|i| Constant::new((SHA256_IV[i] as u64).into())),
            krom: Constant::new(krom),
            pad: Constant::new((PAD_WORD as u64).into()),
            len: Constant::new((LENGTH_WORD as u64).into()),
            last_round: Constant::new((ROUNDS - 1).into()),
            room: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            mid_k: std::array::from_fn(|_| Default::default()),
            mid_m: std::array::from_fn(|_| Default::default()),
            midv: Default::default(),
            nv: Default::default(),
            placed: Default::default(),
            koff: Default::default(),
            kt: Default::default(),
            sig0: Default::default(),
            sig1: Default::default(),
            ch: Default::default(),
            maj: Default::default(),
            t1: Default::default(),
            t2: Default::default(),
            s0: Default::default(),
            s1: Default::default(),
            fin: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl Logic for Chain {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, qv, busy, round, cur_k, kq, hq);
        for i in 0..CHAIN_QUEUE {
            self.qk[i].clock.next = self.clock.val();
            self.qk[i].d.next = self.qk[i].q.val();
            self.qm[i].clock.next = self.clock.val();
            self.qm[i].d.next = self.qm[i].q.val();
        }
        for i in 0..8 {
            self.v[i].clock.next = self.clock.val();
            self.v[i].d.next = self.v[i].q.val();
        }
        for i in 0..16 {
            self.w[i].clock.next = self.clock.val();
            self.w[i].d.next = self.w[i].q.val();
        }
        self.k.next = self.kq.q.val();
        self.h.next = self.hq.q.val();

        // The tap: a decision goes out as it comes, while the queue has
        // room (`room` does not depend on the handshake: AXI's TVALID
        // waits for no TREADY).
        self.room.next = self.rst_n.val() & (self.qv.q.val() != self.all.val());
        self.m_tdata.next = self.s_tdata.val();
        self.m_tuser.next = self.s_tuser.val();
        self.m_tvalid.next = self.s_tvalid.val() & self.room.val();
        self.s_tready.next = self.m_tready.val() & self.room.val();
        self.push.next = self.s_tvalid.val() & self.m_tready.val() & self.room.val();

        // The compression starts on the oldest entry when idle (`pop`).
        self.pop.next = !self.busy.q.val() & self.qv.q.val().get_bit(0);
        for i in 0..LAST {
            if self.pop.val() {
                self.mid_k[i].next = self.qk[i + 1].q.val();
                self.mid_m[i].next = self.qm[i + 1].q.val();
            } else {
                self.mid_k[i].next = self.qk[i].q.val();
                self.mid_m[i].next = self.qm[i].q.val();
            }
        }
        for i in LAST..CHAIN_QUEUE {
            self.mid_k[i].next = self.qk[i].q.val();
            self.mid_m[i].next = self.qm[i].q.val();
        }
        if self.pop.val() {
            self.midv.next = self.qv.q.val() >> 1;
        } else {
            self.midv.next = self.qv.q.val();
        }
        // A push goes into the first free entry.
        self.placed.next = false;
        self.nv.next = 0.into();
        for i in 0..CHAIN_QUEUE {
            self.qk[i].d.next = self.mid_k[i].val();
            self.qm[i].d.next = self.mid_m[i].val();
            if self.midv.val().get_bit(i) {
                self.nv.next = self.nv.val().replace_bit(i, true);
            } else if self.push.val() & !self.placed.val() {
                self.qk[i].d.next = self.s_tdata.val().get_bits::<32>(0);
                self.qm[i].d.next = self.s_tdata.val().get_bits::<32>(32);
                self.nv.next = self.nv.val().replace_bit(i, true);
                self.placed.next = true;
            }
        }
        self.qv.d.next = self.nv.val();

        // One round, from the working variables and w[0].
        self.koff.next = bit_cast::<11, 6>(self.round.q.val()) << 5;
        self.kt.next = self.krom.val().get_bits::<32>(self.koff.val().index());
        self.s1.next = ((self.v[4].q.val() >> 6) | (self.v[4].q.val() << 26))
            ^ ((self.v[4].q.val() >> 11) | (self.v[4].q.val() << 21))
            ^ ((self.v[4].q.val() >> 25) | (self.v[4].q.val() << 7));
        self.ch.next =
            (self.v[4].q.val() & self.v[5].q.val()) ^ (!self.v[4].q.val() & self.v[6].q.val());
        self.t1.next =
            self.v[7].q.val() + self.s1.val() + self.ch.val() + self.kt.val() + self.w[0].q.val();
        self.s0.next = ((self.v[0].q.val() >> 2) | (self.v[0].q.val() << 30))
            ^ ((self.v[0].q.val() >> 13) | (self.v[0].q.val() << 19))
            ^ ((self.v[0].q.val() >> 22) | (self.v[0].q.val() << 10));
        self.maj.next = (self.v[0].q.val() & self.v[1].q.val())
            ^ (self.v[0].q.val() & self.v[2].q.val())
            ^ (self.v[1].q.val() & self.v[2].q.val());
        self.t2.next = self.s0.val() + self.maj.val();
        // The schedule's next word, W(t + 16), from the window.
        self.sig0.next = ((self.w[1].q.val() >> 7) | (self.w[1].q.val() << 25))
            ^ ((self.w[1].q.val() >> 18) | (self.w[1].q.val() << 14))
            ^ (self.w[1].q.val() >> 3);
        self.sig1.next = ((self.w[14].q.val() >> 17) | (self.w[14].q.val() << 15))
            ^ ((self.w[14].q.val() >> 19) | (self.w[14].q.val() << 13))
            ^ (self.w[14].q.val() >> 10);

        // h_k = IV + the last round's result.
        self.fin[0].next = self.iv[0].val() + self.t1.val() + self.t2.val();
        self.fin[1].next = self.iv[1].val() + self.v[0].q.val();
        self.fin[2].next = self.iv[2].val() + self.v[1].q.val();
        self.fin[3].next = self.iv[3].val() + self.v[2].q.val();
        self.fin[4].next = self.iv[4].val() + self.v[3].q.val() + self.t1.val();
        self.fin[5].next = self.iv[5].val() + self.v[4].q.val();
        self.fin[6].next = self.iv[6].val() + self.v[5].q.val();
        self.fin[7].next = self.iv[7].val() + self.v[6].q.val();

        if self.busy.q.val() {
            self.v[0].d.next = self.t1.val() + self.t2.val();
            self.v[1].d.next = self.v[0].q.val();
            self.v[2].d.next = self.v[1].q.val();
            self.v[3].d.next = self.v[2].q.val();
            self.v[4].d.next = self.v[3].q.val() + self.t1.val();
            self.v[5].d.next = self.v[4].q.val();
            self.v[6].d.next = self.v[5].q.val();
            self.v[7].d.next = self.v[6].q.val();
            for i in 0..15 {
                self.w[i].d.next = self.w[i + 1].q.val();
            }
            self.w[15].d.next =
                self.w[0].q.val() + self.sig0.val() + self.w[9].q.val() + self.sig1.val();
            self.round.d.next = self.round.q.val() + 1;
            if self.round.q.val() == self.last_round.val() {
                // The last round: h_k shows from the next cycle.
                self.busy.d.next = false;
                self.kq.d.next = self.cur_k.q.val();
                self.hq.d.next = bit_cast::<256, 32>(self.fin[0].val())
                    | (bit_cast::<256, 32>(self.fin[1].val()) << 32)
                    | (bit_cast::<256, 32>(self.fin[2].val()) << 64)
                    | (bit_cast::<256, 32>(self.fin[3].val()) << 96)
                    | (bit_cast::<256, 32>(self.fin[4].val()) << 128)
                    | (bit_cast::<256, 32>(self.fin[5].val()) << 160)
                    | (bit_cast::<256, 32>(self.fin[6].val()) << 192)
                    | (bit_cast::<256, 32>(self.fin[7].val()) << 224);
            }
        } else if self.pop.val() {
            // The load: a..h = IV, the message words from h_{k−1} and the
            // oldest entry.
            self.busy.d.next = true;
            self.round.d.next = 0.into();
            self.cur_k.d.next = self.qk[0].q.val();
            for i in 0..8 {
                self.v[i].d.next = self.iv[i].val();
                self.w[i].d.next = self.hq.q.val().get_bits::<32>(32 * i);
            }
            self.w[8].d.next = 0.into();
            self.w[9].d.next = self.qk[0].q.val();
            self.w[10].d.next = self.qm[0].q.val();
            self.w[11].d.next = self.pad.val();
            self.w[12].d.next = 0.into();
            self.w[13].d.next = 0.into();
            self.w[14].d.next = 0.into();
            self.w[15].d.next = self.len.val();
        }

        if self.start.val() | !self.rst_n.val() {
            self.qv.d.next = 0.into();
            self.busy.d.next = false;
            self.kq.d.next = 0.into();
            self.hq.d.next = 0.into();
        }
    }
}

/// Chain's Verilog alone, as module `rhdl_ubft_chain`.
pub fn verilog() -> String {
    let mut m = Chain::default();
    m.connect_all();
    let body = generate_verilog(&m)
        .replace("module top(", "module rhdl_ubft_chain(")
        .replace("top$", "rhdl_ubft_chain$");
    format!(
        "// Generated from crates/rhdl_ubft/src/controller/chain.rs (rust-hdl 0.46).\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}
