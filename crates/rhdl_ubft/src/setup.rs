//! Setup: the signer service, on streams.
//!
//! ubft_new stopped its kernel for 3.07 M cycles to sign and 10.4 M to
//! verify. Here signing is a service on the other side of two AXI-Streams,
//! and Setup is the kernel's requester: it sends one request at a time and
//! hands the response to the controller, which goes on polling meanwhile.
//!
//! Every signature covers one signed block (docs/recovery.md, section 3):
//! eight 32-bit words, word 0 naming its kind (`layout::field3`), so a
//! signature of one kind never verifies as another. Setup carries the block
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
//! TKEEP, op, or a block that is not one: `field3::well_formed`); 3:
//! unknown signer.
//!
//! Controller side: `sign` or `verify` (one-cycle pulses, taken only when not
//! `busy`) with `block`, `signer`, `signature`; `resp_valid` with
//! `resp_status`, `resp_sig`, `resp_sign` (the response is to a sign) while
//! a response waits; `resp_take` consumes it (it drives `sresp_tready`, so a
//! response waits in the service until the controller is ready for it).
//!
//! Timing: the first request beat is valid the cycle after `sign`/`verify`;
//! each beat is held, payload stable, until `sreq_tready`. `busy` is high
//! from the request until the response is taken.
//!
//! Reset (`rst_n` low): abandons the request; on the card the service is
//! reset with the kernel.

use crate::layout::field3::{BLOCK_BITS, BLOCK_BYTES};
use crate::params::BEAT_BITS;
use rust_hdl::prelude::*;

// The block fits the first beat, and its TKEEP a u64.
const _: () = assert!(BLOCK_BITS <= BEAT_BITS && BLOCK_BYTES < 64);

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum SetupState {
    Idle,
    SendBlock,
    SendSignature,
    AwaitResponse,
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
    /// (`layout::field3::BLOCK_BYTES`, 32).
    pub const BLOCK_KEEP: u64 = (1u64 << super::BLOCK_BYTES) - 1;
}

#[derive(LogicBlock)]
pub struct Setup {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Controller side.
    pub sign: Signal<In, Bit>,
    pub verify: Signal<In, Bit>,
    /// The signed block, word 0 in bits [31:0].
    pub block: Signal<In, Bits<BLOCK_BITS>>,
    pub signer: Signal<In, Bits<8>>,
    pub signature: Signal<In, Bits<BEAT_BITS>>,
    pub busy: Signal<Out, Bit>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_status: Signal<Out, Bits<8>>,
    pub resp_sig: Signal<Out, Bits<BEAT_BITS>>,
    pub resp_sign: Signal<Out, Bit>,
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
    is_sign: DFF<Bit>,
    op_sign: Constant<Bits<16>>,
    op_verify: Constant<Bits<16>>,
    block_keep: Constant<Bits<64>>,
    all_keep: Constant<Bits<64>>,
    malformed: Constant<Bits<8>>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            clock: Default::default(),
            rst_n: Default::default(),
            sign: Default::default(),
            verify: Default::default(),
            block: Default::default(),
            signer: Default::default(),
            signature: Default::default(),
            busy: Default::default(),
            resp_valid: Default::default(),
            resp_status: Default::default(),
            resp_sig: Default::default(),
            resp_sign: Default::default(),
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
            op_sign: Constant::new(code::OP_SIGN.into()),
            op_verify: Constant::new(code::OP_VERIFY.into()),
            block_keep: Constant::new(code::BLOCK_KEEP.into()),
            all_keep: Constant::new(u64::MAX.into()),
            malformed: Constant::new(code::MALFORMED.into()),
        }
    }
}

impl Logic for Setup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, block_q, signature_q, user_q, is_sign);
        self.sreq_tvalid.next = false;
        self.sreq_tdata.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.block_q.q.val());
        self.sreq_tkeep.next = self.block_keep.val();
        self.sreq_tlast.next = self.is_sign.q.val();
        self.sreq_tuser.next = self.user_q.q.val();
        self.resp_valid.next = false;
        self.sresp_tready.next = false;
        match self.state.q.val() {
            SetupState::Idle => {
                if self.sign.val() | self.verify.val() {
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
                        self.state.d.next = SetupState::AwaitResponse;
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
                    self.state.d.next = SetupState::AwaitResponse;
                }
            }
            SetupState::AwaitResponse => {
                self.resp_valid.next = self.sresp_tvalid.val();
                self.sresp_tready.next = self.resp_take.val();
                if self.sresp_tvalid.val() & self.resp_take.val() {
                    self.state.d.next = SetupState::Idle;
                }
            }
            _ => {
                self.state.d.next = SetupState::Idle;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = SetupState::Idle;
        }
        self.busy.next = self.state.q.val() != SetupState::Idle;
        // A response is one beat; one without TLAST is not one the
        // controller can trust, whatever its status says.
        if self.sresp_tlast.val() {
            self.resp_status.next = self.sresp_tuser.val();
        } else {
            self.resp_status.next = self.malformed.val();
        }
        self.resp_sig.next = self.sresp_tdata.val();
        self.resp_sign.next = self.is_sign.q.val();
    }
}
