//! Setup, cycle by cycle: a sign is one request beat (the 32-byte signed
//! block), a verify two; each beat is held until taken; the response waits
//! until the controller takes it; a response without TLAST is MALFORMED;
//! one request at a time.

use rhdl_ubft::layout::field3::{self, BLOCK_BITS, BLOCK_WORDS, KIND_CERT};
use rhdl_ubft::setup::{code, Setup};
use rust_hdl::prelude::*;

fn block() -> Setup {
    let mut s = Setup::default();
    s.clock.connect();
    s.rst_n.connect();
    s.sign.connect();
    s.verify.connect();
    s.block.connect();
    s.signer.connect();
    s.signature.connect();
    s.resp_take.connect();
    s.sreq_tready.connect();
    s.sresp_tdata.connect();
    s.sresp_tuser.connect();
    s.sresp_tlast.connect();
    s.sresp_tvalid.connect();
    s.connect_all();
    s.rst_n.next = true;
    s
}

fn settle(s: &mut Setup) {
    s.clock.next = Clock::from(false);
    assert!(simulate(s, 100));
}
fn edge(s: &mut Setup) {
    s.clock.next = Clock::from(true);
    assert!(simulate(s, 100));
}

/// One request beat as seen on the stream: (cycle, tdata's 16 words, tkeep,
/// tuser, tlast).
type Beat = (u64, [u32; 16], u64, u64, bool);

/// The block the tests send: CERT of (v, k, m, prev) = (7, 3, 0x1234, 9).
fn cert() -> [u32; BLOCK_WORDS] {
    field3::block(KIND_CERT, 7, 3, 0x1234, 9)
}

fn block_bits(w: &[u32; BLOCK_WORDS]) -> Bits<BLOCK_BITS> {
    let mut b = Bits::<BLOCK_BITS>::default();
    for (i, &x) in w.iter().enumerate() {
        b.set_bits::<32>(32 * i, (x as u64).into());
    }
    b
}

struct Run {
    beats: Vec<Beat>,
    resp: Option<(u64, u64)>,
    busy_after: bool,
}

/// Issues `sign` (or `verify`) at cycle 1; the stream is ready only on
/// cycles in `ready`; the response arrives at `resp_at` with `tlast`, and
/// the controller takes it from `take_from` on.
fn run(verify: bool, ready: &[u64], resp_at: u64, tlast: bool, take_from: u64) -> Run {
    let mut s = block();
    let mut r = Run {
        beats: vec![],
        resp: None,
        busy_after: true,
    };
    let mut sig = Bits::<512>::default();
    sig.set_bits::<64>(0, 0x5151_5151u64.into());
    for cycle in 0..40u64 {
        s.sign.next = !verify && cycle == 1;
        s.verify.next = verify && cycle == 1;
        s.block.next = block_bits(&cert());
        s.signer.next = 2.into();
        s.signature.next = sig;
        s.sreq_tready.next = ready.contains(&cycle);
        s.sresp_tvalid.next = cycle >= resp_at && r.resp.is_none();
        s.sresp_tuser.next = code::OK.into();
        s.sresp_tlast.next = tlast;
        s.sresp_tdata.next = sig;
        s.resp_take.next = cycle >= take_from && s.resp_valid.val();
        settle(&mut s);
        s.resp_take.next = cycle >= take_from && s.resp_valid.val();
        settle(&mut s);
        if s.sreq_tvalid.val() && s.sreq_tready.val() {
            let d = s.sreq_tdata.val();
            let mut words = [0u32; 16];
            for (i, w) in words.iter_mut().enumerate() {
                *w = d.get_bits::<32>(32 * i).to_u32();
            }
            r.beats.push((
                cycle,
                words,
                s.sreq_tkeep.val().to_u64(),
                s.sreq_tuser.val().to_u64(),
                s.sreq_tlast.val(),
            ));
        }
        if s.resp_valid.val() && s.resp_take.val() {
            assert!(
                s.sresp_tready.val(),
                "taking the response is the stream's ready"
            );
            r.resp = Some((cycle, s.resp_status.val().to_u64()));
        }
        if cycle == 39 {
            r.busy_after = s.busy.val();
        }
        edge(&mut s);
    }
    r
}

#[test]
fn a_sign_is_one_block_beat_held_until_taken() {
    // Ready only from cycle 4: the beat, valid from cycle 2, is held.
    let r = run(false, &[4, 5, 6], 10, true, 0);
    assert_eq!(r.beats.len(), 1);
    let (cycle, data, keep, user, last) = r.beats[0];
    assert_eq!(cycle, 4);
    assert_eq!(data[..BLOCK_WORDS], cert(), "the block, word 0 first");
    assert_eq!(data[BLOCK_WORDS..], [0; 16 - BLOCK_WORDS]);
    assert_eq!(keep, code::BLOCK_KEEP);
    assert_eq!(keep, 0xffff_ffff, "32 bytes");
    assert_eq!(user, code::OP_SIGN);
    assert!(last);
    assert_eq!(r.resp, Some((10, code::OK)));
    assert!(!r.busy_after, "busy falls once the response is taken");
}

#[test]
fn a_verify_is_the_block_then_the_signature_naming_the_signer() {
    let r = run(true, &(2..10).collect::<Vec<_>>(), 12, true, 0);
    assert_eq!(r.beats.len(), 2);
    assert_eq!(
        (r.beats[0].0, r.beats[1].0),
        (2, 3),
        "one beat per cycle when ready"
    );
    assert_eq!(r.beats[0].1[..BLOCK_WORDS], cert());
    assert_eq!(r.beats[0].2, code::BLOCK_KEEP);
    assert!(!r.beats[0].4 && r.beats[1].4, "TLAST on the signature");
    assert_eq!(r.beats[1].2, u64::MAX, "64 signature bytes");
    assert_eq!(r.beats[1].1[0], 0x5151_5151);
    for b in &r.beats {
        assert_eq!(b.3, code::OP_VERIFY | (2 << 8), "op and signer in TUSER");
    }
}

#[test]
fn a_response_waits_for_the_controller_and_one_without_tlast_is_malformed() {
    // The response is valid from 8 but taken only from 20.
    let r = run(false, &[2], 8, true, 20);
    assert_eq!(r.resp, Some((20, code::OK)));
    let r = run(false, &[2], 8, false, 0);
    assert_eq!(r.resp, Some((8, code::MALFORMED)));
}

#[test]
fn a_second_request_while_busy_is_ignored() {
    let mut s = block();
    let mut sent = 0;
    for cycle in 0..20u64 {
        s.sign.next = cycle == 1 || cycle == 5;
        s.verify.next = false;
        s.block.next = Bits::<BLOCK_BITS>::default();
        s.signer.next = 0.into();
        s.signature.next = Bits::<512>::default();
        s.sreq_tready.next = true;
        s.sresp_tvalid.next = false;
        s.sresp_tdata.next = Bits::<512>::default();
        s.sresp_tuser.next = 0.into();
        s.sresp_tlast.next = true;
        s.resp_take.next = false;
        settle(&mut s);
        if s.sreq_tvalid.val() {
            sent += 1;
        }
        edge(&mut s);
    }
    assert_eq!(sent, 1, "one request in flight");
}
