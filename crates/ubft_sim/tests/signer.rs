//! SignerPort (rust-hdl) in front of the simulated signer service: verifies kept
//! in flight, answered in order with their tags, and the time several
//! engines save. The same streams as in the kernel (`m_axis_sreq`,
//! `s_axis_sresp`), without the kernel.

use ed25519_dalek::Signer as _;
use rhdl_ubft::io::signer::{code, SignerPort};
use rhdl_ubft::layout::records::{BLOCK_BITS, BLOCK_WORDS};
use rhdl_ubft::params::{defaults, BEAT_BITS, BEAT_WORDS};
use rust_hdl::prelude::*;
use ubft_sim::models::signer::{block_bytes, bytes_beat, cert_block, signing_key, Signer};
use ubft_sim::ports::{Beat, KernelIn, KernelOut};

fn bits(b: &Beat) -> Bits<BEAT_BITS> {
    let mut x = Bits::<BEAT_BITS>::default();
    for (i, &w) in b.iter().enumerate() {
        x.set_bits::<32>(32 * i, (w as u64).into());
    }
    x
}

fn beat(x: Bits<BEAT_BITS>) -> Beat {
    let mut b = [0u32; BEAT_WORDS];
    for (i, w) in b.iter_mut().enumerate() {
        *w = x.get_bits::<32>(32 * i).to_u32();
    }
    b
}

fn block_bits(w: &[u32; BLOCK_WORDS]) -> Bits<BLOCK_BITS> {
    let mut b = Bits::<BLOCK_BITS>::default();
    for (i, &x) in w.iter().enumerate() {
        b.set_bits::<32>(32 * i, (x as u64).into());
    }
    b
}

/// Replica 1's SignerPort and service (`engines` engines, default latencies)
/// verify `reqs` (block, signer, signature, tag) in order, each requested
/// from cycle 1 until taken, each response taken at once: (cycle taken,
/// status, tag) of each response, and the cycles the requests were taken.
fn verify_all(
    engines: usize,
    reqs: &[([u32; BLOCK_WORDS], u8, Beat, u64)],
) -> (Vec<(u64, u64, u64)>, Vec<u64>) {
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
    let mut svc = Signer::new(3, 1, 3, defaults::SIGN_LATENCY, defaults::VERIFY_LATENCY)
        .with_engines(engines);
    let (mut got, mut accepted) = (vec![], vec![]);
    let mut next = 0;
    for cycle in 0..20_000u64 {
        let mut inp = KernelIn {
            ap_rst_n: true,
            ..KernelIn::default()
        };
        svc.drive(&mut inp);
        let r = reqs.get(next).filter(|_| cycle >= 1);
        s.rst_n.next = true;
        s.sign.next = false;
        s.verify.next = r.is_some();
        s.block.next = block_bits(&r.map_or([0; BLOCK_WORDS], |r| r.0));
        s.signer.next = (r.map_or(0, |r| r.1) as u64).into();
        s.signature.next = bits(&r.map_or([0; BEAT_WORDS], |r| r.2));
        s.tag.next = r.map_or(0, |r| r.3).into();
        s.sreq_tready.next = inp.sreq_tready;
        s.sresp_tvalid.next = inp.sresp_tvalid;
        s.sresp_tdata.next = bits(&inp.sresp_tdata);
        s.sresp_tuser.next = (inp.sresp_tuser as u64).into();
        s.sresp_tlast.next = inp.sresp_tlast;
        s.resp_take.next = false;
        s.clock.next = Clock::from(false);
        assert!(simulate(&mut s, 100));
        s.resp_take.next = s.resp_valid.val();
        assert!(simulate(&mut s, 100));
        if r.is_some() && !s.busy.val() {
            accepted.push(cycle);
            next += 1;
        }
        if s.resp_valid.val() && s.resp_take.val() {
            assert!(!s.resp_sign.val());
            got.push((
                cycle,
                s.resp_status.val().to_u64(),
                s.resp_tag.val().to_u64(),
            ));
        }
        let out = KernelOut {
            sreq_tvalid: s.sreq_tvalid.val(),
            sreq_tdata: beat(s.sreq_tdata.val()),
            sreq_tkeep: s.sreq_tkeep.val().to_u64(),
            sreq_tuser: s.sreq_tuser.val().to_u64() as u16,
            sreq_tlast: s.sreq_tlast.val(),
            sresp_tready: s.sresp_tready.val(),
            ..KernelOut::default()
        };
        svc.observe(&inp, &out, cycle);
        s.clock.next = Clock::from(true);
        assert!(simulate(&mut s, 100));
        if got.len() == reqs.len() {
            break;
        }
    }
    assert_eq!(svc.counters().verifies, reqs.len() as u64);
    (got, accepted)
}

/// Four shares of slot k = 1..4: replica 0's signature over its CERT block,
/// tag 8 + k; the third's signature is corrupted.
fn four_shares() -> Vec<([u32; BLOCK_WORDS], u8, Beat, u64)> {
    (1..=4u32)
        .map(|k| {
            let w = cert_block(0, k, 0x100 + k);
            let sig = signing_key(3, 0).sign(&block_bytes(&w)).to_bytes();
            let mut b = bytes_beat(&sig);
            if k == 3 {
                b[5] ^= 1;
            }
            (w, 0, b, 8 + k as u64)
        })
        .collect()
}

#[test]
fn four_verifies_in_flight_on_four_engines_take_one_verify_latency() {
    let v = defaults::VERIFY_LATENCY;
    let (ok, bad) = (code::OK, code::INVALID);
    let (got, accepted) = verify_all(4, &four_shares());
    // SignerPort takes a verify every third cycle (two beats, then Idle); each
    // signature beat goes on 3, 6, 9, 12 and its engine answers V later.
    assert_eq!(accepted, [1, 4, 7, 10]);
    assert_eq!(
        got,
        [
            (v + 3, ok, 9),
            (v + 6, ok, 10),
            (v + 9, bad, 11),
            (v + 12, ok, 12)
        ],
        "all four by cycle 4,012"
    );
    // One engine: the same answers, one verify latency apart (16,003).
    let (got, accepted) = verify_all(1, &four_shares());
    assert_eq!(
        accepted,
        [1, 4, 7, 10],
        "SignerPort does not wait for the service"
    );
    assert_eq!(
        got,
        [
            (v + 3, ok, 9),
            (2 * v + 3, ok, 10),
            (3 * v + 3, bad, 11),
            (4 * v + 3, ok, 12)
        ]
    );
}
