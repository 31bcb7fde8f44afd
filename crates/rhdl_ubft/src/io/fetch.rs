//! Fetch: one HBM read burst per poll, and a poll stream that reads ahead.
//!
//! The controller asks for a mailbox region (a beat-aligned byte address and
//! a burst length); Fetch issues one AXI4 INCR burst of 512-bit beats on the
//! AR channel, takes the R beats, and hands each beat to the controller.
//!
//! Ports:
//! - request: `start` (a one-cycle pulse; ignored while `busy`), `addr` (byte
//!   address, 64-byte aligned; the layout guarantees that no region the
//!   controller polls crosses 4 KiB), `len` (AXI AxLEN: beats - 1), `poll`
//!   (with `start`: this request is one of a loop of polls of one beat, so
//!   Fetch may read ahead behind it) and `again` (with `poll`: it repeats
//!   the loop's last request after a miss, so it may be answered from the
//!   read ahead, a read issued before it; see "Reading ahead").
//! - result: `beat` and `beat_valid` for one cycle per beat; `done` with the
//!   last beat; `error` with `done` when any beat came back with a non-OKAY
//!   RRESP (the controller then treats the poll as having found nothing).
//! - `m_axi` read channels: `arvalid` is held with a stable payload until
//!   `arready`; `rready` is high while any burst is outstanding.
//!
//! Timing: AR goes out the cycle after `start`; a beat accepted at cycle t
//! is on `beat` with `beat_valid` at t + 1; `busy` falls with `done`, so the
//! next `start` may come in the cycle `done` is seen. With HBM read latency H
//! (AR accepted to first R beat), a one-beat poll takes H + 2 cycles from
//! `start` to `done` when `arready` is high. Without `poll` this is all
//! Fetch does, with one burst in flight, as before the read-ahead.
//!
//! Reading ahead. A poll loop (FAST's waits: a poll, a miss, the same poll
//! again) sees a write that lands while a poll is in flight only with the
//! poll after it, about H + 3 cycles later. With `poll`, Fetch halves that:
//! while the poll's own burst is the only one outstanding and has been so
//! for half a round trip (`rt` / 2, the cycles from AR handshake to last
//! beat of the last burst that completed), it issues a second read of the
//! same beat, a read ahead, whose data nobody has asked for yet. If the next
//! request is a `poll` `again` of the same one-beat region, it takes that
//! read (attaches): no new AR, and its `done` comes when the read ahead's beat
//! does, about half a round trip sooner. Any other request leaves the read
//! ahead to drain: its beat is taken off R and dropped, and the request's
//! own AR goes out behind it. So at most two of Fetch's bursts are
//! outstanding, one of them read ahead, and a loop of polls reads its beat
//! twice per round trip. The data a poll gets is never older than the data
//! of the poll before it (the read ahead was issued after that poll's AR);
//! it may be older than the request itself by up to half a round trip,
//! which a poll loop (a miss only means "poll again") does not mind; a
//! loop's first request (`again` low: after a write of the replica's own,
//! say) never attaches, so it reads afresh. Only FAST's polls and LEADER's
//! idle polls are `poll` (docs/fetch.md).
//!
//! Reset (`rst_n`, synchronous, active low): abandons every burst and drops
//! `arvalid`/`rready` the next cycle. On the card, `ap_rst_n` resets the
//! kernel's AXI interconnect with it, so no beat of an abandoned burst is
//! delivered afterwards.

use crate::params::{AXI_BURST_INCR, AXI_SIZE_BEAT, BEAT_BITS};
use rust_hdl::prelude::*;

/// Width of the age counters and of the measured round trip (saturating).
pub const AGE_BITS: usize = 8;
// `half` is `rt`'s bits 1.. (`get_bits::<7>(1)`, `bit_cast::<AGE_BITS, 7>`).
const _: () = assert!(AGE_BITS == 8);

#[derive(LogicBlock)]
pub struct Fetch {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Request.
    pub start: Signal<In, Bit>,
    pub poll: Signal<In, Bit>,
    pub again: Signal<In, Bit>,
    pub addr: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<8>>,
    pub busy: Signal<Out, Bit>,
    // Result.
    pub beat: Signal<Out, Bits<BEAT_BITS>>,
    pub beat_valid: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    // AXI4 read address channel.
    pub araddr: Signal<Out, Bits<64>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arsize: Signal<Out, Bits<3>>,
    pub arburst: Signal<Out, Bits<2>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    // AXI4 read data channel.
    pub rdata: Signal<In, Bits<BEAT_BITS>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
    /// The last request taken: its region (the read ahead's too).
    req_addr: DFF<Bits<64>>,
    req_len: DFF<Bits<8>>,
    /// The last request was a `poll` of one beat: reading ahead is allowed.
    stream: DFF<Bit>,
    /// A request waits for a read ahead's pending AR to be taken.
    want: DFF<Bit>,
    /// An AR is on the channel (held until `arready`), with this payload.
    ar_on: DFF<Bit>,
    ar_addr: DFF<Bits<64>>,
    ar_len: DFF<Bits<8>>,
    /// ... and its burst is delivered (0: a read ahead nobody has taken).
    ar_del: DFF<Bit>,
    /// Bursts outstanding (AR taken, last beat not yet), 0 to 2, oldest
    /// first: delivered or not, and cycles since the AR handshake.
    out: DFF<Bits<2>>,
    del0: DFF<Bit>,
    del1: DFF<Bit>,
    age0: DFF<Bits<AGE_BITS>>,
    age1: DFF<Bits<AGE_BITS>>,
    /// The round trip of the last burst that completed (AR to last beat).
    rt: DFF<Bits<AGE_BITS>>,
    /// Half of it: when a read ahead goes out.
    half: Signal<Local, Bits<AGE_BITS>>,
    beat_q: DFF<Bits<BEAT_BITS>>,
    beat_valid_q: DFF<Bit>,
    done_q: DFF<Bit>,
    error_q: DFF<Bit>,
    size: Constant<Bits<3>>,
    burst: Constant<Bits<2>>,
    age_max: Constant<Bits<AGE_BITS>>,
    busy_l: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    ahead_ar: Signal<Local, Bit>,
    ahead_out: Signal<Local, Bit>,
    attach: Signal<Local, Bit>,
    hs: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    deliver: Signal<Local, Bit>,
    push_del: Signal<Local, Bit>,
}

impl Default for Fetch {
    fn default() -> Self {
        Fetch {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            poll: Default::default(),
            again: Default::default(),
            addr: Default::default(),
            len: Default::default(),
            busy: Default::default(),
            beat: Default::default(),
            beat_valid: Default::default(),
            done: Default::default(),
            error: Default::default(),
            araddr: Default::default(),
            arlen: Default::default(),
            arsize: Default::default(),
            arburst: Default::default(),
            arvalid: Default::default(),
            arready: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            rlast: Default::default(),
            rvalid: Default::default(),
            rready: Default::default(),
            req_addr: Default::default(),
            req_len: Default::default(),
            stream: Default::default(),
            want: Default::default(),
            ar_on: Default::default(),
            ar_addr: Default::default(),
            ar_len: Default::default(),
            ar_del: Default::default(),
            out: Default::default(),
            del0: Default::default(),
            del1: Default::default(),
            age0: Default::default(),
            age1: Default::default(),
            rt: Default::default(),
            half: Default::default(),
            beat_q: Default::default(),
            beat_valid_q: Default::default(),
            done_q: Default::default(),
            error_q: Default::default(),
            size: Constant::new(AXI_SIZE_BEAT.into()),
            burst: Constant::new(AXI_BURST_INCR.into()),
            age_max: Constant::new(((1u64 << AGE_BITS) - 1).into()),
            busy_l: Default::default(),
            take: Default::default(),
            ahead_ar: Default::default(),
            ahead_out: Default::default(),
            attach: Default::default(),
            hs: Default::default(),
            pop: Default::default(),
            deliver: Default::default(),
            push_del: Default::default(),
        }
    }
}

impl Logic for Fetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            req_addr,
            req_len,
            stream,
            want,
            ar_on,
            ar_addr,
            ar_len,
            ar_del,
            out,
            del0,
            del1,
            age0,
            age1,
            rt,
            beat_q,
            beat_valid_q,
            done_q,
            error_q
        );
        self.beat_valid_q.d.next = false;
        self.done_q.d.next = false;
        self.half.next = bit_cast::<AGE_BITS, 7>(self.rt.q.val().get_bits::<7>(1));
        // A delivered burst is on the channel or outstanding, or waits.
        self.busy_l.next = self.want.q.val()
            | (self.ar_on.q.val() & self.ar_del.q.val())
            | ((self.out.q.val() != 0) & self.del0.q.val())
            | ((self.out.q.val() == 2) & self.del1.q.val());
        self.take.next = self.start.val() & !self.busy_l.val();
        // While not busy, everything outstanding or on the channel is a read
        // ahead, and there is at most one: its AR pending, or its burst the
        // only one outstanding.
        self.ahead_ar.next = self.ar_on.q.val() & !self.ar_del.q.val();
        self.ahead_out.next = (self.out.q.val() != 0) & !self.del0.q.val();
        self.attach.next = self.take.val()
            & (self.poll.val() & self.again.val())
            & self.stream.q.val()
            & (self.len.val() == 0)
            & (self.addr.val() == self.req_addr.q.val())
            & (self.ahead_ar.val() | self.ahead_out.val());
        self.hs.next = self.ar_on.q.val() & self.arready.val();
        self.pop.next = (self.rvalid.val() & (self.out.q.val() != 0)) & self.rlast.val();
        // A beat goes to the controller if its burst is delivered, or is
        // the read ahead taken in this very cycle.
        self.deliver.next = (self.rvalid.val() & (self.out.q.val() != 0))
            & (self.del0.q.val() | (self.attach.val() & !self.ahead_ar.val()));
        self.push_del.next = self.ar_del.q.val() | (self.attach.val() & self.ahead_ar.val());

        // Ages count up, saturating.
        if self.age0.q.val() != self.age_max.val() {
            self.age0.d.next = self.age0.q.val() + 1;
        }
        if self.age1.q.val() != self.age_max.val() {
            self.age1.d.next = self.age1.q.val() + 1;
        }

        // The AR channel.
        if self.hs.val() {
            self.ar_on.d.next = false;
        }
        if self.take.val() {
            self.error_q.d.next = false;
        }
        if self.take.val() & !self.attach.val() {
            self.req_addr.d.next = self.addr.val();
            self.req_len.d.next = self.len.val();
            self.stream.d.next = self.poll.val() & (self.len.val() == 0);
            if self.ar_on.q.val() & !self.hs.val() {
                // A read ahead's AR is pending: it keeps the channel.
                self.want.d.next = true;
            } else {
                self.ar_on.d.next = true;
                self.ar_addr.d.next = self.addr.val();
                self.ar_len.d.next = self.len.val();
                self.ar_del.d.next = true;
            }
        }
        if self.attach.val() & self.ahead_ar.val() {
            self.ar_del.d.next = true;
        }
        if self.attach.val() & !self.ahead_ar.val() {
            self.del0.d.next = true;
        }
        if self.want.q.val() & self.hs.val() {
            self.want.d.next = false;
            self.ar_on.d.next = true;
            self.ar_addr.d.next = self.req_addr.q.val();
            self.ar_len.d.next = self.req_len.q.val();
            self.ar_del.d.next = true;
        }
        // The read ahead: the stream's own burst alone outstanding for half
        // a round trip; or the read ahead a poll takes in this cycle, so
        // that a loop reads twice per round trip exactly (H + 3 cycles for
        // two polls, as one poll took before).
        if (self.stream.q.val() & !self.want.q.val() & !self.ar_on.q.val())
            & ((self.out.q.val() == 1)
                & (self.del0.q.val() | (self.attach.val() & !self.ahead_ar.val())))
            & ((self.rt.q.val() != 0) & (self.age0.q.val() >= self.half.val()))
        {
            self.ar_on.d.next = true;
            self.ar_addr.d.next = self.req_addr.q.val();
            self.ar_len.d.next = self.req_len.q.val();
            self.ar_del.d.next = false;
        }

        // The order of outstanding bursts: push on the AR handshake, pop on
        // the last beat.
        if self.pop.val() {
            self.rt.d.next = self.age0.q.val();
        }
        if self.hs.val() & !self.pop.val() {
            if self.out.q.val() == 0 {
                self.del0.d.next = self.push_del.val();
                self.age0.d.next = 0.into();
            } else {
                self.del1.d.next = self.push_del.val();
                self.age1.d.next = 0.into();
            }
            self.out.d.next = self.out.q.val() + 1;
        }
        if self.pop.val() & !self.hs.val() {
            self.del0.d.next = self.del1.q.val();
            self.age0.d.next = self.age1.q.val() + 1;
            self.out.d.next = self.out.q.val() - 1;
        }
        if self.pop.val() & self.hs.val() {
            if self.out.q.val() == 1 {
                self.del0.d.next = self.push_del.val();
                self.age0.d.next = 0.into();
            } else {
                self.del0.d.next = self.del1.q.val();
                self.age0.d.next = self.age1.q.val() + 1;
                self.del1.d.next = self.push_del.val();
                self.age1.d.next = 0.into();
            }
        }

        // The controller's beats.
        if self.deliver.val() {
            self.beat_q.d.next = self.rdata.val();
            self.beat_valid_q.d.next = true;
            if self.rresp.val() != 0 {
                self.error_q.d.next = true;
            }
            if self.rlast.val() {
                self.done_q.d.next = true;
            }
        }
        if !self.rst_n.val() {
            self.want.d.next = false;
            self.ar_on.d.next = false;
            self.stream.d.next = false;
            self.out.d.next = 0.into();
            self.rt.d.next = 0.into();
            self.beat_valid_q.d.next = false;
            self.done_q.d.next = false;
        }
        self.arvalid.next = self.ar_on.q.val();
        self.araddr.next = self.ar_addr.q.val();
        self.arlen.next = self.ar_len.q.val();
        self.arsize.next = self.size.val();
        self.arburst.next = self.burst.val();
        self.rready.next = self.out.q.val() != 0;
        self.busy.next = self.busy_l.val();
        self.beat.next = self.beat_q.q.val();
        self.beat_valid.next = self.beat_valid_q.q.val();
        self.done.next = self.done_q.q.val();
        self.error.next = self.error_q.q.val();
    }
}
