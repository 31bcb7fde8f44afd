//! RemoteRead: the remote read's lock, its RDMA READs and their check
//! (docs/recovery.md section 11, "A remote read", and D11.17).
//!
//! A replica that seals a view holding a lock it has not delivered keeps
//! the lock, K = (w, k, m, prev) (`keep`, from VIEW at each SEAL, with
//! Protocol's vote registers: the latest such lock); K is `armed` while
//! the replica is still at slot k. While VIEW awaits a NEW_VIEW with K
//! armed, each of its polls that misses `issue`s one RDMA READ of one
//! peer p (one in flight, below), round robin over the peers: p's
//! will_cert[s(k)] row beat into remote_rows[p] (on `rd_*`, the
//! RoceAdapter's READ port). VIEW then reads remote_rows whole (N beats,
//! `scan` while it comes): `found` rises when some peer's row shows the
//! vote (tag(w, k), m) in every lane of the first n but the leader of
//! w's. The leader's lane is K itself: this replica locked on leader(w)'s
//! PREPARE of (w, k, m, prev) in its own HBM (R4), which its guard took
//! from leader(w) only. VIEW then has SLOW write K's CERT share, and
//! `cancel` drops K; so does a share of slot k from a later view written
//! by this replica (the model's rule: a later share is not overwritten).
//!
//! Why the row needs to be neither fresh nor read at one instant: every
//! lane of it is what its owner wrote (the guard on the network path, the
//! local guard on the owner's own, `local_guard.md`), and a lock once
//! written is a fact.
//!
//! Ports: `n`, `id`, `network_ptr`, `qpns` (configuration); `k`
//! (Protocol's slot); `keep` with `keep_view`, `keep_m`, `keep_prev`,
//! `keep_leader` (leader(w)); `cancel`; `armed` and K (`kv`, `kk`, `km`,
//! `kprev`, for SLOW's target); `issue`; `rd_qpn`, `rd_laddr`, `rd_raddr`,
//! `rd_valid`, `rd_ready`, `rd_taken`; `scan_start`, `beat`, `beat_valid`,
//! `found`.
//!
//! One READ is in flight at a time: `issue` sends the next only once the
//! guard has taken the last one's response (`rd_taken`), or 2^16 cycles
//! after it was sent (a READ lost to a crashed peer), so the READ
//! responses a peer's queue pair holds at this replica's receive path
//! are at most one, whatever the polls' rate.
//!
//! Timing: `armed` and K are registers; a READ is presented the cycle
//! after `issue` and held until `rd_ready`; `found` rises with the beat
//! that shows the locks (combinational on it) and stays until the next
//! `scan_start`.
//!
//! Reset (`rst_n`, synchronous, active low): K dropped, no READ.

use crate::io::roce::{QPNS_BITS, QPN_BITS};
use crate::layout::{Mailbox, Region};
use crate::params::{BEAT_BITS, BEAT_WORDS, G, SB, TAG_K_BITS, TAG_K_MASK};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum RrSt {
    Idle,
    /// p's will_cert row beat.
    Row,
}

#[derive(LogicBlock)]
pub struct RemoteRead<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub n: Signal<In, Bits<8>>,
    pub id: Signal<In, Bits<8>>,
    pub network_ptr: Signal<In, Bits<64>>,
    pub qpns: Signal<In, Bits<QPNS_BITS>>,
    /// The first n replicas' lanes.
    pub active: Signal<In, Bits<N>>,
    pub k: Signal<In, Bits<32>>,
    pub keep: Signal<In, Bit>,
    pub keep_view: Signal<In, Bits<32>>,
    pub keep_m: Signal<In, Bits<32>>,
    pub keep_prev: Signal<In, Bits<32>>,
    pub keep_leader: Signal<In, Bits<8>>,
    pub cancel: Signal<In, Bit>,
    pub armed: Signal<Out, Bit>,
    pub kv: Signal<Out, Bits<32>>,
    pub kk: Signal<Out, Bits<32>>,
    pub km: Signal<Out, Bits<32>>,
    pub kprev: Signal<Out, Bits<32>>,
    pub issue: Signal<In, Bit>,
    pub rd_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub rd_laddr: Signal<Out, Bits<64>>,
    pub rd_raddr: Signal<Out, Bits<64>>,
    pub rd_valid: Signal<Out, Bit>,
    pub rd_ready: Signal<In, Bit>,
    /// The guard took a READ response's command (it left the receive
    /// queue).
    pub rd_taken: Signal<In, Bit>,
    pub scan_start: Signal<In, Bit>,
    pub beat: Signal<In, Bits<BEAT_BITS>>,
    pub beat_valid: Signal<In, Bit>,
    pub found: Signal<Out, Bit>,
    kept: DFF<Bit>,
    k_view: DFF<Bits<32>>,
    k_k: DFF<Bits<32>>,
    k_m: DFF<Bits<32>>,
    k_prev: DFF<Bits<32>>,
    k_leader: DFF<Bits<8>>,
    state: DFF<RrSt>,
    peer: DFF<Bits<8>>,
    found_q: DFF<Bit>,
    /// A READ sent whose response the guard has not taken yet, and the
    /// cycles since it was sent.
    in_flight: DFF<Bit>,
    age: DFF<Bits<16>>,
    next1: Signal<Local, Bits<8>>,
    next2: Signal<Local, Bits<8>>,
    slot: Signal<Local, Bits<32>>,
    tag: Signal<Local, Bits<32>>,
    lanes_ok: Signal<Local, Bit>,
    rr_word: Signal<Local, Bits<32>>,
    peer_bit: Signal<Local, Bits<N>>,
    leader_bit: Signal<Local, Bits<N>>,
    one: Constant<Bits<N>>,
    will_cert_base: Constant<Bits<32>>,
    row_shift: Constant<Bits<32>>,
    remote_base: Constant<Bits<32>>,
    remote_shift: Constant<Bits<32>>,
    last_slot: Constant<Bits<32>>,
}

impl<const N: usize> Default for RemoteRead<N> {
    fn default() -> Self {
        let mb = Mailbox::v3(N, G, SB);
        let row_words = mb.vote_row_words();
        let remote_words = mb.stride(Region::RemoteRows);
        assert!(row_words.is_power_of_two() && remote_words.is_power_of_two());
        assert!(
            row_words <= BEAT_WORDS && remote_words == BEAT_WORDS,
            "remote_read.rs: a will_cert row and a remote_rows record are one beat each"
        );
        assert!(G.is_power_of_two());
        // The literal `update` holds: a tag of k's low 24 bits under the
        // view's low 8 (`params::vote_tag`).
        assert_eq!(
            (TAG_K_BITS, TAG_K_MASK),
            (24, 0x00ff_ffff),
            "remote_read.rs: tag = view << 24 | k & 0x00ff_ffff"
        );
        assert_eq!(QPN_BITS, 10, "remote_read.rs: qpn i at bits i * 10");
        let k = |x: usize| Constant::new((x as u64).into());
        RemoteRead {
            clock: Default::default(),
            rst_n: Default::default(),
            n: Default::default(),
            id: Default::default(),
            network_ptr: Default::default(),
            qpns: Default::default(),
            active: Default::default(),
            k: Default::default(),
            keep: Default::default(),
            keep_view: Default::default(),
            keep_m: Default::default(),
            keep_prev: Default::default(),
            keep_leader: Default::default(),
            cancel: Default::default(),
            armed: Default::default(),
            kv: Default::default(),
            kk: Default::default(),
            km: Default::default(),
            kprev: Default::default(),
            issue: Default::default(),
            rd_qpn: Default::default(),
            rd_laddr: Default::default(),
            rd_raddr: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd_taken: Default::default(),
            scan_start: Default::default(),
            beat: Default::default(),
            beat_valid: Default::default(),
            found: Default::default(),
            kept: Default::default(),
            k_view: Default::default(),
            k_k: Default::default(),
            k_m: Default::default(),
            k_prev: Default::default(),
            k_leader: Default::default(),
            state: Default::default(),
            peer: Default::default(),
            found_q: Default::default(),
            in_flight: Default::default(),
            age: Default::default(),
            next1: Default::default(),
            next2: Default::default(),
            slot: Default::default(),
            tag: Default::default(),
            lanes_ok: Default::default(),
            rr_word: Default::default(),
            peer_bit: Default::default(),
            leader_bit: Default::default(),
            one: Constant::new(1u64.into()),
            will_cert_base: k(mb.base(Region::WillCert)),
            row_shift: k(row_words.trailing_zeros() as usize),
            remote_base: k(mb.base(Region::RemoteRows)),
            remote_shift: k(remote_words.trailing_zeros() as usize),
            last_slot: k(G - 1),
        }
    }
}

impl<const N: usize> Logic for RemoteRead<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, kept, k_view, k_k, k_m, k_prev, k_leader, state, peer, found_q, in_flight,
            age
        );
        // K, and whether it is still this slot's.
        if self.keep.val() {
            self.kept.d.next = true;
            self.k_view.d.next = self.keep_view.val();
            self.k_k.d.next = self.k.val();
            self.k_m.d.next = self.keep_m.val();
            self.k_prev.d.next = self.keep_prev.val();
            self.k_leader.d.next = self.keep_leader.val();
        }
        if self.cancel.val() | (self.kept.q.val() & (self.k_k.q.val() != self.k.val())) {
            self.kept.d.next = false;
        }
        self.armed.next = self.kept.q.val() & (self.k_k.q.val() == self.k.val());
        self.kv.next = self.k_view.q.val();
        self.kk.next = self.k_k.q.val();
        self.km.next = self.k_m.q.val();
        self.kprev.next = self.k_prev.q.val();
        // The next peer, round robin over the first n but this replica.
        self.next1.next = self.peer.q.val() + 1;
        if self.next1.val() >= self.n.val() {
            self.next1.next = 0.into();
        }
        self.next2.next = self.next1.val();
        if self.next1.val() == self.id.val() {
            self.next2.next = self.next1.val() + 1;
            if self.next1.val() + 1 >= self.n.val() {
                self.next2.next = 0.into();
            }
        }
        // The READ: p's will_cert[s(k)] row beat into remote_rows[p].
        self.slot.next = (self.k_k.q.val() - 1) & self.last_slot.val();
        self.rr_word.next = self.remote_base.val()
            + (bit_cast::<32, 8>(self.peer.q.val()) << self.remote_shift.val());
        self.peer_bit.next = self.one.val() << self.peer.q.val();
        self.leader_bit.next = self.one.val() << self.k_leader.q.val();
        self.rd_qpn.next = 0.into();
        for i in 0..N {
            if self.peer_bit.val().get_bit(i) {
                self.rd_qpn.next = self.qpns.val().get_bits::<QPN_BITS>(i * 10);
            }
        }
        self.rd_valid.next = false;
        self.rd_laddr.next = self.network_ptr.val() + (bit_cast::<64, 32>(self.rr_word.val()) << 2);
        self.rd_raddr.next = self.network_ptr.val()
            + (bit_cast::<64, 32>(
                self.will_cert_base.val() + (self.slot.val() << self.row_shift.val()),
            ) << 2);
        // The READ in flight: its response taken by the guard ends it;
        // after 2^16 cycles without it, the READ is given up as lost (a
        // crashed peer answers none), so the next peer gets its turn.
        if self.age.q.val() != 0xffff {
            self.age.d.next = self.age.q.val() + 1;
        }
        if self.rd_taken.val() {
            self.in_flight.d.next = false;
        }
        match self.state.q.val() {
            RrSt::Idle => {
                if self.issue.val()
                    & self.kept.q.val()
                    & (!self.in_flight.q.val() | (self.age.q.val() == 0xffff))
                {
                    self.peer.d.next = self.next2.val();
                    self.in_flight.d.next = true;
                    self.age.d.next = 0.into();
                    self.state.d.next = RrSt::Row;
                }
            }
            RrSt::Row => {
                self.rd_valid.next = true;
                if self.rd_ready.val() {
                    self.state.d.next = RrSt::Idle;
                }
            }
            _ => {
                self.state.d.next = RrSt::Idle;
            }
        }
        // The scan of remote_rows, a peer's row a beat: every lane of the
        // first n but the leader of w's holds (tag(w, k), m). A beat never
        // written (this replica's own, a peer not read yet) is zero, which
        // no tag of a slot k >= 1 matches.
        self.tag.next = (bit_cast::<32, 8>(self.k_view.q.val().get_bits::<8>(0)) << 24)
            | (self.k_k.q.val() & 0x00ff_ffff);
        self.lanes_ok.next = true;
        for i in 0..N {
            if self.active.val().get_bit(i)
                & !self.leader_bit.val().get_bit(i)
                & ((self.beat.val().get_bits::<32>(i * 64) != self.tag.val())
                    | (self.beat.val().get_bits::<32>(i * 64 + 32) != self.k_m.q.val()))
            {
                self.lanes_ok.next = false;
            }
        }
        if self.scan_start.val() {
            self.found_q.d.next = false;
        } else if self.beat_valid.val() & self.lanes_ok.val() & self.kept.q.val() {
            self.found_q.d.next = true;
        }
        // With the beat that shows them: VIEW reads it in the cycle of the
        // fetch's `done`, which comes with the last beat.
        self.found.next = self.found_q.q.val()
            | (self.beat_valid.val() & self.lanes_ok.val() & self.kept.q.val());
        if !self.rst_n.val() {
            self.kept.d.next = false;
            self.state.d.next = RrSt::Idle;
            self.found_q.d.next = false;
            self.in_flight.d.next = false;
        }
    }
}

/// n locks for K in one peer's will_cert row (its words), the leader of
/// w's lane being K itself: the reference the block's scan is tested
/// against.
pub fn n_locks(row: &[u32], n: usize, leader: usize, (view, k, m): (u32, u32, u32)) -> bool {
    let tag = crate::params::vote_tag(view, k);
    (0..n).all(|j| j == leader || (row[2 * j] == tag && row[2 * j + 1] == m))
}
