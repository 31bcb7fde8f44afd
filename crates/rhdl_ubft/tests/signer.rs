//! SignerPort, cycle by cycle: a sign is one request beat (the 32-byte signed
//! block), a verify two; each beat is held until taken; the response waits
//! until the controller takes it; a response without TLAST is MALFORMED;
//! up to `SIGNER_IN_FLIGHT` requests outstanding, answered in order with
//! their kinds and tags; one request alone keeps the timing it always had.

use rhdl_ubft::io::signer::{code, SignerPort};
use rhdl_ubft::layout::records::{self, BLOCK_BITS, BLOCK_WORDS, KIND_CERT};
use rhdl_ubft::params::SIGNER_IN_FLIGHT;
use rust_hdl::prelude::*;

fn block() -> SignerPort {
    let mut s = SignerPort::default();
    s.clock.connect();
    s.rst_n.connect();
    s.sign.connect();
    s.verify.connect();
    s.block.connect();
    s.signer.connect();
    s.signature.connect();
    s.tag.connect();
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

fn settle(s: &mut SignerPort) {
    s.clock.next = Clock::from(false);
    assert!(simulate(s, 100));
}
fn edge(s: &mut SignerPort) {
    s.clock.next = Clock::from(true);
    assert!(simulate(s, 100));
}

/// One request beat as seen on the stream: (cycle, tdata's 16 words, tkeep,
/// tuser, tlast).
type Beat = (u64, [u32; 16], u64, u64, bool);

/// The block the tests send: CERT of (v, k, m, prev) = (7, 3, 0x1234, 9).
fn cert() -> [u32; BLOCK_WORDS] {
    records::block(KIND_CERT, 7, 3, 0x1234, 9)
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

/// A request the test's controller makes: from cycle `from` on it holds
/// `sign` or `verify` high until SignerPort takes it (so a request while `busy`
/// is seen to wait, not to be lost).
#[derive(Clone, Copy)]
struct Req {
    from: u64,
    verify: bool,
    tag: u64,
}

fn req(from: u64, verify: bool, tag: u64) -> Req {
    Req { from, verify, tag }
}

/// A response as the controller took it.
#[derive(Debug, PartialEq)]
struct Taken {
    cycle: u64,
    status: u64,
    sign: bool,
    tag: u64,
    /// Word 0 of `resp_sig`: the test's service puts 100 + the request's
    /// index there.
    word0: u32,
}

#[derive(Default)]
struct Trace {
    /// (cycle, request index) of each request SignerPort took.
    accepted: Vec<(u64, usize)>,
    beats: Vec<Beat>,
    taken: Vec<Taken>,
    /// Per cycle.
    busy: Vec<bool>,
    pending: Vec<bool>,
    in_flight: Vec<u64>,
    resp_valid: Vec<bool>,
    sresp_tready: Vec<bool>,
}

/// SignerPort between a controller making `reqs` in order and a service that
/// answers request j `lat[j]` cycles after its last beat went (at the
/// earliest; in request order, each response held until taken), with
/// status `status[j]` and 100 + j in word 0. The stream is ready on cycles
/// where `ready` holds; the controller takes a waiting response on cycles
/// where `take` holds.
fn drive(
    reqs: &[Req],
    ready: impl Fn(u64) -> bool,
    lat: &[u64],
    status: &[u64],
    take: impl Fn(u64) -> bool,
    cycles: u64,
) -> Trace {
    let mut s = block();
    let mut t = Trace::default();
    let mut next = 0;
    let mut beats_of_req = 0;
    // Requests sent (their last beat gone) and not yet answered:
    // (index, ready_at).
    let mut due: std::collections::VecDeque<(usize, u64)> = Default::default();
    let mut sent = 0;
    for cycle in 0..cycles {
        let r = reqs.get(next).filter(|r| cycle >= r.from);
        s.sign.next = r.is_some_and(|r| !r.verify);
        s.verify.next = r.is_some_and(|r| r.verify);
        s.tag.next = r.map_or(0, |r| r.tag).into();
        s.block.next = block_bits(&cert());
        s.signer.next = 2.into();
        s.signature.next = Bits::<512>::default();
        s.sreq_tready.next = ready(cycle);
        let head = due.front().filter(|(_, at)| cycle >= *at).copied();
        s.sresp_tvalid.next = head.is_some();
        s.sresp_tuser.next = head.map_or(0, |(j, _)| status[j]).into();
        s.sresp_tlast.next = true;
        let mut data = Bits::<512>::default();
        data.set_bits::<32>(0, head.map_or(0, |(j, _)| 100 + j as u64).into());
        s.sresp_tdata.next = data;
        s.resp_take.next = false;
        settle(&mut s);
        s.resp_take.next = take(cycle) && s.resp_valid.val();
        settle(&mut s);
        t.busy.push(s.busy.val());
        t.pending.push(s.pending.val());
        t.in_flight.push(s.in_flight.val().to_u64());
        t.resp_valid.push(s.resp_valid.val());
        t.sresp_tready.push(s.sresp_tready.val());
        if r.is_some() && !s.busy.val() {
            t.accepted.push((cycle, next));
            next += 1;
        }
        if s.sreq_tvalid.val() && s.sreq_tready.val() {
            let d = s.sreq_tdata.val();
            let mut words = [0u32; 16];
            for (i, w) in words.iter_mut().enumerate() {
                *w = d.get_bits::<32>(32 * i).to_u32();
            }
            t.beats.push((
                cycle,
                words,
                s.sreq_tkeep.val().to_u64(),
                s.sreq_tuser.val().to_u64(),
                s.sreq_tlast.val(),
            ));
            beats_of_req += 1;
            if s.sreq_tlast.val() {
                assert_eq!(
                    beats_of_req,
                    if reqs[sent].verify { 2 } else { 1 },
                    "request {sent}'s beats"
                );
                due.push_back((sent, cycle + lat[sent]));
                sent += 1;
                beats_of_req = 0;
            }
        }
        if s.sresp_tvalid.val() && s.sresp_tready.val() {
            assert!(s.resp_valid.val() && s.resp_take.val());
            let (j, _) = due.pop_front().unwrap();
            t.taken.push(Taken {
                cycle,
                status: s.resp_status.val().to_u64(),
                sign: s.resp_sign.val(),
                tag: s.resp_tag.val().to_u64(),
                word0: s.resp_sig.val().get_bits::<32>(0).to_u32(),
            });
            assert_eq!(t.taken.last().unwrap().word0, 100 + j as u32);
        }
        edge(&mut s);
    }
    t
}

/// The cycles on which `v` is true.
fn cycles_of(v: &[bool]) -> Vec<u64> {
    (0..v.len() as u64).filter(|&c| v[c as usize]).collect()
}

#[test]
fn the_in_flight_limit_is_four() {
    assert_eq!(SIGNER_IN_FLIGHT, 4, "the tests below count to four");
}

#[test]
fn p_verifies_go_back_to_back_and_the_next_waits_for_a_response() {
    // Five verifies, all wanted from cycle 1; the service answers each 20
    // cycles after its signature beat; the controller takes responses at
    // once.
    let reqs: Vec<Req> = (0..5).map(|j| req(1, true, j)).collect();
    let t = drive(&reqs, |_| true, &[20; 5], &[code::OK; 5], |_| true, 50);
    // A verify every third cycle: taken at c, beats at c + 1 and c + 2,
    // the next taken at c + 3.
    assert_eq!(
        t.accepted[..4],
        [(1, 0), (4, 1), (7, 2), (10, 3)],
        "four taken back to back"
    );
    let beat_cycles: Vec<u64> = t.beats.iter().map(|b| b.0).collect();
    assert_eq!(beat_cycles[..8], [2, 3, 5, 6, 8, 9, 11, 12]);
    for (i, b) in t.beats[..8].iter().enumerate() {
        assert_eq!(b.3, code::OP_VERIFY | (2 << 8));
        assert_eq!(b.4, i % 2 == 1, "TLAST on each signature beat");
        assert_eq!(
            b.2,
            if i % 2 == 0 {
                code::BLOCK_KEEP
            } else {
                u64::MAX
            }
        );
    }
    assert_eq!(t.in_flight[11], 4, "four outstanding");
    // The fifth waits: busy from 11 (four outstanding) until the cycle
    // after the first response (ready 3 + 20 = 23) is taken.
    assert_eq!(t.taken[0].cycle, 23);
    assert!(
        (11..=23).all(|c| t.busy[c]),
        "busy while four are in flight"
    );
    assert_eq!(
        t.accepted[4],
        (24, 4),
        "the fifth, the cycle after a response"
    );
    assert_eq!(beat_cycles[8..], [25, 26]);
    // Responses in order, one per cycle once ready: 23, 26, 29, 32, 46.
    let got: Vec<(u64, u64, u32)> = t.taken.iter().map(|r| (r.cycle, r.tag, r.word0)).collect();
    assert_eq!(
        got,
        [
            (23, 0, 100),
            (26, 1, 101),
            (29, 2, 102),
            (32, 3, 103),
            (46, 4, 104)
        ]
    );
    assert!(t.taken.iter().all(|r| !r.sign && r.status == code::OK));
    assert_eq!(t.in_flight[47], 0);
    assert!(!t.pending[47] && !t.busy[47]);
}

#[test]
fn signs_and_verifies_mixed_are_routed_by_kind_and_tag_in_order() {
    // sign (tag 5), verify (tag 9), sign (tag 3), verify (tag 15): a sign is
    // taken every other cycle, a verify every third.
    let reqs = [
        req(1, false, 5),
        req(1, true, 9),
        req(1, false, 3),
        req(1, true, 15),
    ];
    // The service answers the verifies sooner than the signs; it must still
    // answer in order, so the later ones wait for the first.
    let status = [
        code::OK,
        code::INVALID,
        code::MALFORMED,
        code::UNKNOWN_SIGNER,
    ];
    let t = drive(&reqs, |_| true, &[30, 5, 30, 5], &status, |_| true, 60);
    assert_eq!(t.accepted, [(1, 0), (3, 1), (6, 2), (8, 3)]);
    let beats: Vec<(u64, u64, bool)> = t.beats.iter().map(|b| (b.0, b.3, b.4)).collect();
    let v = code::OP_VERIFY | (2 << 8);
    assert_eq!(
        beats,
        [
            (2, code::OP_SIGN, true),
            (4, v, false),
            (5, v, true),
            (7, code::OP_SIGN, true),
            (9, v, false),
            (10, v, true),
        ]
    );
    let got: Vec<(u64, u64, bool, u64)> = t
        .taken
        .iter()
        .map(|r| (r.cycle, r.status, r.sign, r.tag))
        .collect();
    // Ready at 32, 10, 37, 15; in order: 32, 33, 37, 38.
    assert_eq!(
        got,
        [
            (32, code::OK, true, 5),
            (33, code::INVALID, false, 9),
            (37, code::MALFORMED, true, 3),
            (38, code::UNKNOWN_SIGNER, false, 15),
        ]
    );
}

#[test]
fn responses_wait_for_resp_take_and_are_taken_one_a_cycle() {
    // Four signs, answered 4 cycles after their beats (6, 8, 10, 12); the
    // controller takes nothing before cycle 30.
    let reqs: Vec<Req> = (0..4).map(|j| req(1, false, j + 4)).collect();
    let t = drive(&reqs, |_| true, &[4; 4], &[code::OK; 4], |c| c >= 30, 40);
    assert_eq!(t.accepted, [(1, 0), (3, 1), (5, 2), (7, 3)]);
    assert_eq!(cycles_of(&t.resp_valid), (6..=33).collect::<Vec<_>>());
    assert_eq!(
        cycles_of(&t.sresp_tready),
        [30, 31, 32, 33],
        "sresp_tready only while the controller takes"
    );
    let got: Vec<(u64, u64, u32)> = t.taken.iter().map(|r| (r.cycle, r.tag, r.word0)).collect();
    assert_eq!(
        got,
        [(30, 4, 100), (31, 5, 101), (32, 6, 102), (33, 7, 103)]
    );
    assert!(t.taken.iter().all(|r| r.sign));
    // All four in flight, so busy, until the first is taken.
    assert!((8..=30).all(|c| t.busy[c] && t.in_flight[c] == 4));
    assert_eq!(t.in_flight[31..35], [3, 2, 1, 0]);
}

#[test]
fn a_request_is_held_while_the_stream_is_not_ready() {
    // Two verifies; the stream is ready on cycles 4, 7, 9 and 12 only.
    let reqs = [req(1, true, 1), req(1, true, 2)];
    let t = drive(
        &reqs,
        |c| [4, 7, 9, 12].contains(&c),
        &[3, 3],
        &[code::OK; 2],
        |_| true,
        30,
    );
    let beat_cycles: Vec<u64> = t.beats.iter().map(|b| b.0).collect();
    assert_eq!(beat_cycles, [4, 7, 9, 12]);
    assert_eq!(
        t.accepted,
        [(1, 0), (8, 1)],
        "the second when the first has gone"
    );
    assert_eq!(
        t.taken.iter().map(|r| r.cycle).collect::<Vec<_>>(),
        [10, 15]
    );
}

#[test]
fn one_request_alone_keeps_todays_timing() {
    // A verify at 1; ready always; the response ready 10 cycles after the
    // signature beat (3 + 10 = 13) and taken at once. The same cycles as
    // SignerPort of one request at a time: beats at 2 and 3, `pending` (the old
    // `busy`) from 2 to 13, the response taken at 13.
    let t = drive(
        &[req(1, true, 6)],
        |_| true,
        &[10],
        &[code::OK],
        |_| true,
        20,
    );
    assert_eq!(t.beats.iter().map(|b| b.0).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(cycles_of(&t.pending), (2..=13).collect::<Vec<_>>());
    assert_eq!(cycles_of(&t.busy), [2, 3], "busy only while sending");
    assert_eq!(cycles_of(&t.resp_valid), [13]);
    assert_eq!(t.taken[0].cycle, 13);
    assert_eq!((t.taken[0].tag, t.taken[0].sign), (6, false));
    // A sign: one beat at 2, pending 2..=8 for a response ready at 2 + 6.
    let t = drive(
        &[req(1, false, 0)],
        |_| true,
        &[6],
        &[code::OK],
        |_| true,
        20,
    );
    assert_eq!(t.beats.iter().map(|b| b.0).collect::<Vec<_>>(), [2]);
    assert_eq!(cycles_of(&t.pending), (2..=8).collect::<Vec<_>>());
    assert_eq!(cycles_of(&t.busy), [2]);
    assert_eq!(t.taken[0].cycle, 8);
}

#[test]
fn a_response_before_its_request_has_gone_is_not_taken() {
    // The service offers a response from cycle 0, before anything was sent;
    // the controller would take it. SignerPort presents it only after the sign's
    // beat went (cycle 2), from 3.
    let mut s = block();
    let mut valid = vec![];
    for cycle in 0..6u64 {
        s.sign.next = cycle == 1;
        s.verify.next = false;
        s.tag.next = 0.into();
        s.block.next = block_bits(&cert());
        s.signer.next = 0.into();
        s.signature.next = Bits::<512>::default();
        s.sreq_tready.next = true;
        s.sresp_tvalid.next = true;
        s.sresp_tdata.next = Bits::<512>::default();
        s.sresp_tuser.next = 0.into();
        s.sresp_tlast.next = true;
        s.resp_take.next = true;
        settle(&mut s);
        valid.push((s.resp_valid.val(), s.sresp_tready.val()));
        edge(&mut s);
    }
    assert_eq!(
        valid,
        [
            (false, false),
            (false, false),
            (false, false),
            (true, true),
            (false, false),
            (false, false)
        ]
    );
}

#[test]
fn reset_abandons_every_outstanding_request() {
    let mut s = block();
    let mut seen = vec![];
    for cycle in 0..12u64 {
        s.rst_n.next = cycle != 7;
        s.sign.next = (1..=4).contains(&cycle) || cycle == 9;
        s.verify.next = false;
        s.tag.next = 0.into();
        s.block.next = Bits::<BLOCK_BITS>::default();
        s.signer.next = 0.into();
        s.signature.next = Bits::<512>::default();
        s.sreq_tready.next = true;
        s.sresp_tvalid.next = cycle >= 3;
        s.sresp_tdata.next = Bits::<512>::default();
        s.sresp_tuser.next = 0.into();
        s.sresp_tlast.next = true;
        s.resp_take.next = false;
        settle(&mut s);
        seen.push((s.in_flight.val().to_u64(), s.resp_valid.val()));
        edge(&mut s);
    }
    // Signs taken at 1 and 3 (2 and 4 are their beats): two outstanding
    // until the reset at 7, the first's response presented from 3 (the
    // service offers one from 3 on) and not taken; none after the reset, and
    // no response presented until the sign of cycle 9 has gone (10).
    let in_flight: Vec<u64> = seen.iter().map(|x| x.0).collect();
    assert_eq!(in_flight, [0, 0, 1, 1, 2, 2, 2, 2, 0, 0, 1, 1]);
    let valid: Vec<bool> = seen.iter().map(|x| x.1).collect();
    assert_eq!(cycles_of(&valid), [3, 4, 5, 6, 7, 11]);
}
