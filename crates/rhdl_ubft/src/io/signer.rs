//! SignerPort: the signer service, on streams.
//!
//! ubft_new stopped its kernel for 3.07 M cycles to sign and 10.4 M to
//! verify. Here signing is a service on the other side of two AXI-Streams,
//! and SignerPort is the kernel's requester: it sends requests one after another,
//! keeps up to `SIGNER_IN_FLIGHT` outstanding, and hands each response to
//! the controller, which goes on polling meanwhile.
//!
//! Every signature covers one signed block (docs/recovery.md, section 3):
//! eight 32-bit words, word 0 naming its kind (`layout::records`), so a
//! signature of one kind never verifies as another. SignerPort carries the block
//! it is given and does not look inside it.
//!
//! Request stream `sreq` (512-bit TDATA, TKEEP, TLAST, TUSER = {signer[7:0],
//! op[7:0]}):
//! - sign (op 1): one beat; bytes [31:0] are the block (its eight words in
//!   order, each little-endian), TKEEP = `code::BLOCK_KEEP` (0xFFFF_FFFF).
//! - verify (op 2): two beats; the block as above, then the 64-byte
//!   signature (TKEEP all ones, TLAST); TUSER's signer names whose key.
//!
//! Response stream `sresp` (512-bit TDATA, TUSER = status[7:0], TLAST): one
//! beat per request, in request order. Status 0: signed (TDATA holds the
//! signature) or valid; 1: invalid signature; 2: malformed request (length,
//! TKEEP, op, or a block that is not one: `records::well_formed`); 3:
//! unknown signer.
//!
//! Controller side: `sign` or `verify` (one-cycle pulses, taken only when not
//! `busy`) with `block`, `signer`, `signature` and the caller's `tag`;
//! `resp_valid` with `resp_status`, `resp_sig`, `resp_sign` (the response
//! is to a sign) and `resp_tag` (the tag given with its request) while a
//! response waits; `resp_take` consumes it (it drives `sresp_tready`, so a
//! response waits in the service until the controller is ready for it).
//!
//! In flight: up to `SIGNER_IN_FLIGHT` requests are outstanding (taken,
//! their response not yet taken; `in_flight` counts them). A small FIFO
//! holds each one's kind (sign or verify) and tag, pushed when the request
//! is taken and popped when its response is taken. The service must answer
//! in request order: a response is matched to the oldest outstanding request
//! (AXI-Stream TID tags would let it answer out of order; not needed).
//! `busy`: SignerPort cannot take a request this cycle, because its request
//! sender is sending one (the cycles its beats are valid) or
//! `SIGNER_IN_FLIGHT` are outstanding. `pending`: at least one request is
//! outstanding, i.e. from the cycle after a request until the cycle after
//! the last response is taken (the machines wait on it, one request at a
//! time).
//!
//! Timing: the first request beat is valid the cycle after `sign`/`verify`;
//! each beat is held, payload stable, until `sreq_tready`; the next request
//! can be taken the cycle after the last beat of this one went (a sign
//! every 2 cycles, a verify every 3, at full `sreq_tready`). `resp_valid`
//! follows `sresp_tvalid` combinationally from the cycle after the last
//! beat of the oldest outstanding request; a response beat before then is
//! not taken (it answers nothing that was sent).
//!
//! Reset (`rst_n` low): abandons every outstanding request; on the card the
//! service is reset with the kernel.

use crate::layout::records::{BLOCK_BITS, BLOCK_BYTES};
use crate::params::{BEAT_BITS, SIGNER_IN_FLIGHT, SIGNER_IN_FLIGHT_BITS, SIGNER_TAG_BITS};
use rust_hdl::prelude::*;

// The block fits the first beat, and its TKEEP a u64.
const _: () = assert!(BLOCK_BITS <= BEAT_BITS && BLOCK_BYTES < 64);

/// One FIFO entry: bit 0 says the request is a sign, bits above it hold
/// its tag.
pub const ENTRY_BITS: usize = SIGNER_TAG_BITS + 1;
/// The FIFO of outstanding requests, oldest in the low `ENTRY_BITS`.
pub const QUEUE_BITS: usize = SIGNER_IN_FLIGHT * ENTRY_BITS;
// `fill` (the queue's bits in use) is 8 bits wide.
const _: () = assert!(QUEUE_BITS < 256);

/// The request sender's states (responses are counted, not a state).
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum SetupState {
    Idle,
    SendBlock,
    SendSignature,
}

/// Request opcodes and response status codes.
pub mod code {
    pub const OP_SIGN: u64 = 1;
    pub const OP_VERIFY: u64 = 2;
    pub const OK: u64 = 0;
    pub const INVALID: u64 = 1;
    pub const MALFORMED: u64 = 2;
    pub const UNKNOWN_SIGNER: u64 = 3;
    /// TKEEP of a request's first beat: the signed block's bytes
    /// (`layout::records::BLOCK_BYTES`, 32).
    pub const BLOCK_KEEP: u64 = (1u64 << super::BLOCK_BYTES) - 1;
}

#[derive(LogicBlock)]
pub struct SignerPort {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Controller side.
    pub sign: Signal<In, Bit>,
    pub verify: Signal<In, Bit>,
    /// The signed block, word 0 in bits [31:0].
    pub block: Signal<In, Bits<BLOCK_BITS>>,
    pub signer: Signal<In, Bits<8>>,
    pub signature: Signal<In, Bits<BEAT_BITS>>,
    /// The caller's name for the request, returned as `resp_tag`.
    pub tag: Signal<In, Bits<SIGNER_TAG_BITS>>,
    /// Cannot take a request this cycle (sending one, or all in flight).
    pub busy: Signal<Out, Bit>,
    /// Some request is outstanding (`in_flight` != 0).
    pub pending: Signal<Out, Bit>,
    /// Requests taken whose responses have not been taken.
    pub in_flight: Signal<Out, Bits<SIGNER_IN_FLIGHT_BITS>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_status: Signal<Out, Bits<8>>,
    pub resp_sig: Signal<Out, Bits<BEAT_BITS>>,
    pub resp_sign: Signal<Out, Bit>,
    pub resp_tag: Signal<Out, Bits<SIGNER_TAG_BITS>>,
    pub resp_take: Signal<In, Bit>,
    // Request stream.
    pub sreq_tdata: Signal<Out, Bits<BEAT_BITS>>,
    pub sreq_tkeep: Signal<Out, Bits<64>>,
    pub sreq_tlast: Signal<Out, Bit>,
    pub sreq_tuser: Signal<Out, Bits<16>>,
    pub sreq_tvalid: Signal<Out, Bit>,
    pub sreq_tready: Signal<In, Bit>,
    // Response stream.
    pub sresp_tdata: Signal<In, Bits<BEAT_BITS>>,
    pub sresp_tuser: Signal<In, Bits<8>>,
    pub sresp_tlast: Signal<In, Bit>,
    pub sresp_tvalid: Signal<In, Bit>,
    pub sresp_tready: Signal<Out, Bit>,
    state: DFF<SetupState>,
    block_q: DFF<Bits<BLOCK_BITS>>,
    signature_q: DFF<Bits<BEAT_BITS>>,
    user_q: DFF<Bits<16>>,
    /// The request being sent is a sign (one beat).
    is_sign: DFF<Bit>,
    /// Outstanding requests.
    count: DFF<Bits<SIGNER_IN_FLIGHT_BITS>>,
    /// Outstanding requests whose last beat has gone: the responses the
    /// controller may take.
    sent: DFF<Bits<SIGNER_IN_FLIGHT_BITS>>,
    /// Each outstanding request's entry, oldest first.
    queue: DFF<Bits<QUEUE_BITS>>,
    /// Bits of `queue` in use: `count` × `ENTRY_BITS`.
    fill: DFF<Bits<8>>,
    accept: Signal<Local, Bit>,
    last_beat: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    entry: Signal<Local, Bits<QUEUE_BITS>>,
    popped: Signal<Local, Bits<QUEUE_BITS>>,
    pos: Signal<Local, Bits<8>>,
    op_sign: Constant<Bits<16>>,
    op_verify: Constant<Bits<16>>,
    block_keep: Constant<Bits<64>>,
    all_keep: Constant<Bits<64>>,
    malformed: Constant<Bits<8>>,
    full: Constant<Bits<SIGNER_IN_FLIGHT_BITS>>,
    entry_bits: Constant<Bits<8>>,
}

impl Default for SignerPort {
    fn default() -> Self {
        SignerPort {
            clock: Default::default(),
            rst_n: Default::default(),
            sign: Default::default(),
            verify: Default::default(),
            block: Default::default(),
            signer: Default::default(),
            signature: Default::default(),
            tag: Default::default(),
            busy: Default::default(),
            pending: Default::default(),
            in_flight: Default::default(),
            resp_valid: Default::default(),
            resp_status: Default::default(),
            resp_sig: Default::default(),
            resp_sign: Default::default(),
            resp_tag: Default::default(),
            resp_take: Default::default(),
            sreq_tdata: Default::default(),
            sreq_tkeep: Default::default(),
            sreq_tlast: Default::default(),
            sreq_tuser: Default::default(),
            sreq_tvalid: Default::default(),
            sreq_tready: Default::default(),
            sresp_tdata: Default::default(),
            sresp_tuser: Default::default(),
            sresp_tlast: Default::default(),
            sresp_tvalid: Default::default(),
            sresp_tready: Default::default(),
            state: Default::default(),
            block_q: Default::default(),
            signature_q: Default::default(),
            user_q: Default::default(),
            is_sign: Default::default(),
            count: Default::default(),
            sent: Default::default(),
            queue: Default::default(),
            fill: Default::default(),
            accept: Default::default(),
            last_beat: Default::default(),
            taken: Default::default(),
            entry: Default::default(),
            popped: Default::default(),
            pos: Default::default(),
            op_sign: Constant::new(code::OP_SIGN.into()),
            op_verify: Constant::new(code::OP_VERIFY.into()),
            block_keep: Constant::new(code::BLOCK_KEEP.into()),
            all_keep: Constant::new(u64::MAX.into()),
            malformed: Constant::new(code::MALFORMED.into()),
            full: Constant::new((SIGNER_IN_FLIGHT as u64).into()),
            entry_bits: Constant::new((ENTRY_BITS as u64).into()),
        }
    }
}

impl Logic for SignerPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            block_q,
            signature_q,
            user_q,
            is_sign,
            count,
            sent,
            queue,
            fill
        );
        // Every output below is assigned once per pass: `resp_valid` and
        // `busy`/`pending` are read combinationally by the controller, which
        // drives `resp_take` and `sign`/`verify` back (docs/requests.md,
        // Verilog).
        self.busy.next =
            (self.state.q.val() != SetupState::Idle) | (self.count.q.val() == self.full.val());
        self.pending.next = self.count.q.val() != 0;
        self.in_flight.next = self.count.q.val();
        self.accept.next = (self.sign.val() | self.verify.val())
            & (self.state.q.val() == SetupState::Idle)
            & (self.count.q.val() != self.full.val());
        // Responses: the oldest outstanding request's, once it has gone.
        self.resp_valid.next = self.sresp_tvalid.val() & (self.sent.q.val() != 0);
        self.sresp_tready.next = self.resp_take.val() & (self.sent.q.val() != 0);
        self.taken.next = self.sresp_tvalid.val() & self.resp_take.val() & (self.sent.q.val() != 0);
        self.resp_sign.next = self.queue.q.val().get_bit(0);
        self.resp_tag.next = bit_cast::<SIGNER_TAG_BITS, QUEUE_BITS>(self.queue.q.val() >> 1);
        // A response is one beat; one without TLAST is not one the
        // controller can trust, whatever its status says.
        if self.sresp_tlast.val() {
            self.resp_status.next = self.sresp_tuser.val();
        } else {
            self.resp_status.next = self.malformed.val();
        }
        self.resp_sig.next = self.sresp_tdata.val();
        // The request sender.
        self.sreq_tvalid.next = false;
        self.sreq_tdata.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.block_q.q.val());
        self.sreq_tkeep.next = self.block_keep.val();
        self.sreq_tlast.next = self.is_sign.q.val();
        self.sreq_tuser.next = self.user_q.q.val();
        self.last_beat.next = false;
        match self.state.q.val() {
            SetupState::Idle => {
                if self.accept.val() {
                    self.block_q.d.next = self.block.val();
                    self.signature_q.d.next = self.signature.val();
                    self.is_sign.d.next = self.sign.val();
                    if self.sign.val() {
                        self.user_q.d.next = self.op_sign.val();
                    } else {
                        self.user_q.d.next =
                            self.op_verify.val() | (bit_cast::<16, 8>(self.signer.val()) << 8);
                    }
                    self.state.d.next = SetupState::SendBlock;
                }
            }
            SetupState::SendBlock => {
                self.sreq_tvalid.next = true;
                if self.sreq_tready.val() {
                    if self.is_sign.q.val() {
                        self.last_beat.next = true;
                        self.state.d.next = SetupState::Idle;
                    } else {
                        self.state.d.next = SetupState::SendSignature;
                    }
                }
            }
            SetupState::SendSignature => {
                self.sreq_tvalid.next = true;
                self.sreq_tdata.next = self.signature_q.q.val();
                self.sreq_tkeep.next = self.all_keep.val();
                self.sreq_tlast.next = true;
                if self.sreq_tready.val() {
                    self.last_beat.next = true;
                    self.state.d.next = SetupState::Idle;
                }
            }
            _ => {
                self.state.d.next = SetupState::Idle;
            }
        }
        // The counts: a request taken, its last beat gone, its response taken.
        if self.accept.val() & !self.taken.val() {
            self.count.d.next = self.count.q.val() + 1;
        } else if !self.accept.val() & self.taken.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        if self.last_beat.val() & !self.taken.val() {
            self.sent.d.next = self.sent.q.val() + 1;
        } else if !self.last_beat.val() & self.taken.val() {
            self.sent.d.next = self.sent.q.val() - 1;
        }
        // The FIFO: pop the oldest entry when its response is taken, push
        // the new request's entry above the others.
        if self.taken.val() {
            self.popped.next = self.queue.q.val() >> self.entry_bits.val();
            self.pos.next = self.fill.q.val() - self.entry_bits.val();
        } else {
            self.popped.next = self.queue.q.val();
            self.pos.next = self.fill.q.val();
        }
        if self.sign.val() {
            self.entry.next = (bit_cast::<QUEUE_BITS, SIGNER_TAG_BITS>(self.tag.val()) << 1) | 1;
        } else {
            self.entry.next = bit_cast::<QUEUE_BITS, SIGNER_TAG_BITS>(self.tag.val()) << 1;
        }
        if self.accept.val() {
            self.queue.d.next = self.popped.val() | (self.entry.val() << self.pos.val());
            self.fill.d.next = self.pos.val() + self.entry_bits.val();
        } else {
            self.queue.d.next = self.popped.val();
            self.fill.d.next = self.pos.val();
        }
        if !self.rst_n.val() {
            self.state.d.next = SetupState::Idle;
            self.count.d.next = 0.into();
            self.sent.d.next = 0.into();
            self.queue.d.next = 0.into();
            self.fill.d.next = 0.into();
        }
    }
}
