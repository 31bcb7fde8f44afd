//! Signer: the signing service on the other side of a kernel's signer
//! streams (`m_axis_sreq`, `s_axis_sresp`; format in `rhdl_ubft::io::signer`).
//!
//! Real Ed25519 (ed25519-dalek): one key pair per replica, derived from the
//! run's seed; every replica's service knows every public key. A sign takes
//! `sign_latency` cycles and a verify `verify_latency` cycles on one of
//! `engines` engines (default 1). A request whose last beat was accepted
//! on cycle c goes to the first free engine (the lowest-numbered engine free
//! at c, or, if none is, the one that frees first) and is done `latency`
//! cycles after it starts (at max(c, that engine's free cycle)); with one
//! engine, one request at a time in arrival order, as before engines were
//! added. Responses leave in request order, one beat each: a response is
//! valid from the cycle its request is done and every earlier response has
//! been taken, and held, payload stable, until `sresp_tready` (a request
//! that finishes before an earlier one waits for it). Signer matches
//! responses to requests by order alone (`rhdl_ubft::io::signer`).
//!
//! What is signed is the request's signed block (docs/recovery.md, section
//! 3; `rhdl_ubft::layout::records`): eight 32-bit words, word 0 its kind,
//! the 32 bytes of the first beat (TKEEP = `code::BLOCK_KEEP`), every byte
//! of it. The service signs whatever well-formed block it is given; it is
//! the kind word that keeps a signature of one kind from verifying as
//! another.
//!
//! Refused requests get an error response instead of a hang: a sign of
//! other than one block beat, a verify of other than a block beat and a
//! 64-byte beat, a first beat whose TKEEP is not the block's 32 bytes, a
//! block that is not one (`records::well_formed`: an unknown kind, or a
//! nonzero word where its kind has none), or an unknown op answer
//! MALFORMED; a verify naming a signer id with no key answers
//! UNKNOWN_SIGNER.

use crate::ports::{Beat, KernelIn, KernelOut, Ready};
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier, VerifyingKey};
use rhdl_ubft::io::signer::code;
use rhdl_ubft::layout::records::{self, BLOCK_BYTES, BLOCK_WORDS};
use rhdl_ubft::params::BEAT_WORDS;
use std::collections::VecDeque;

/// The key pair of replica `id` in a run with `seed`.
pub fn signing_key(seed: u64, id: usize) -> SigningKey {
    let mut bytes = [0u8; 32];
    let mut x = seed ^ 0x5eed_0000_0000_0000 ^ ((id as u64) << 32);
    for chunk in bytes.chunks_mut(8) {
        // splitmix64
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    SigningKey::from_bytes(&bytes)
}

/// The 32 bytes a signature covers: a signed block's words in order, each
/// little-endian (as they lie in a request's first beat and in HBM).
pub fn block_bytes(w: &[u32; BLOCK_WORDS]) -> [u8; BLOCK_BYTES] {
    let mut s = [0u8; BLOCK_BYTES];
    for (i, x) in w.iter().enumerate() {
        s[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    s
}

/// `key`'s signature over a signed block, as the beat a record carries
/// after its block (what a Byzantine replica with its own key writes).
pub fn sign_block(key: &SigningKey, b: &[u32; BLOCK_WORDS]) -> Beat {
    bytes_beat(&key.sign(&block_bytes(b)).to_bytes())
}

/// Whether `sig` (a record's signature beat, 16 words) is replica `id`'s
/// signature over `block` in a run with `seed`.
pub fn block_verifies(seed: u64, id: usize, block: &[u32], sig: &[u32]) -> bool {
    let block: [u32; BLOCK_WORDS] = block[..BLOCK_WORDS].try_into().expect("a block");
    let mut bytes = [0u8; 64];
    for (i, w) in sig[..16].iter().enumerate() {
        bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    signing_key(seed, id)
        .verifying_key()
        .verify(&block_bytes(&block), &Signature::from_bytes(&bytes))
        .is_ok()
}

/// A CERT block with prev = 0, [CERT, v, k, m, 0, 0, 0, 0]: the block of
/// the first slot's share (no value decided before it), and the signer's
/// tests' block.
pub fn cert_block(v: u32, k: u32, m: u32) -> [u32; BLOCK_WORDS] {
    records::block(records::KIND_CERT, v, k, m, 0)
}

/// The M6a mutants of a signed block `w`, none of which a signature over
/// `w` may verify as: the same words under each other kind (PREP, CERT,
/// COMMIT, SEAL), and each word of `fields` (word indices, which must
/// include the kind) changed in its bit 0 or its bit 31, or dropped (the
/// words after it move down and a zero comes in at the end; skipped when
/// that gives `w` back). Each comes with a name for failure messages.
pub fn block_mutants(
    w: &[u32; BLOCK_WORDS],
    fields: &[usize],
) -> Vec<(String, [u32; BLOCK_WORDS])> {
    use records::{KIND, KIND_CERT, KIND_COMMIT, KIND_PREP, KIND_SEAL};
    assert!(fields.contains(&KIND), "the kind word is a field");
    let mut out = vec![];
    for kind in [KIND_PREP, KIND_CERT, KIND_COMMIT, KIND_SEAL] {
        if kind != w[KIND] {
            let mut x = *w;
            x[KIND] = kind;
            out.push((format!("the words as kind {kind}"), x));
        }
    }
    for &i in fields {
        for flip in [1u32, 0x8000_0000] {
            let mut x = *w;
            x[i] ^= flip;
            out.push((format!("word {i} ^ {flip:#x}"), x));
        }
        let mut x = [0; BLOCK_WORDS];
        let rest: Vec<u32> = (0..BLOCK_WORDS).filter(|&j| j != i).map(|j| w[j]).collect();
        x[..BLOCK_WORDS - 1].copy_from_slice(&rest);
        if x != *w {
            out.push((format!("word {i} dropped"), x));
        }
    }
    out
}

/// A beat's bytes, word 0 first, little-endian.
pub fn beat_bytes(b: &Beat) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (i, w) in b.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// Bytes as a beat (zero-padded).
pub fn bytes_beat(bytes: &[u8]) -> Beat {
    let mut b = [0u32; BEAT_WORDS];
    for (i, c) in bytes.chunks(4).enumerate().take(BEAT_WORDS) {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        b[i] = u32::from_le_bytes(w);
    }
    b
}

#[derive(Clone, Debug)]
struct ReqBeat {
    data: Beat,
    keep: u64,
    user: u16,
}

#[derive(Clone, Debug)]
struct Response {
    /// The cycle its engine is done with it.
    ready_at: u64,
    data: Beat,
    status: u8,
}

/// What the service did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignerCounters {
    pub signs: u64,
    pub verifies: u64,
    pub invalid: u64,
    pub malformed: u64,
    pub unknown_signer: u64,
}

/// One card's signing service.
pub struct Signer {
    key: SigningKey,
    publics: Vec<VerifyingKey>,
    pub sign_latency: u64,
    pub verify_latency: u64,
    /// `sreq_tready` pattern (back-pressure knob).
    pub req_ready: Ready,
    /// Engines working in parallel (at least 1; 1 by default).
    pub engines: usize,
    beats: Vec<ReqBeat>,
    responses: VecDeque<Response>,
    /// The cycle each engine is free again (as many as `engines`).
    free_at: Vec<u64>,
    now: u64,
    counters: SignerCounters,
    /// Cycles at which a request's last beat was accepted.
    pub request_cycles: Vec<u64>,
}

impl Signer {
    /// Replica `id`'s service in a cluster of `n` with `seed`.
    pub fn new(seed: u64, id: usize, n: usize, sign_latency: u64, verify_latency: u64) -> Signer {
        Signer {
            key: signing_key(seed, id),
            publics: (0..n)
                .map(|j| signing_key(seed, j).verifying_key())
                .collect(),
            sign_latency: sign_latency.max(1),
            verify_latency: verify_latency.max(1),
            req_ready: Ready::Always,
            engines: 1,
            beats: vec![],
            responses: VecDeque::new(),
            free_at: vec![0],
            now: 0,
            counters: SignerCounters::default(),
            request_cycles: vec![],
        }
    }

    /// The same service with `engines` engines (at least 1).
    pub fn with_engines(mut self, engines: usize) -> Signer {
        self.engines = engines.max(1);
        self
    }

    pub fn counters(&self) -> SignerCounters {
        self.counters
    }

    /// The engine a request whose last beat is accepted on `cycle` goes to:
    /// the first free at `cycle`, else the one free soonest (the lowest
    /// numbered of those).
    fn engine(&mut self, cycle: u64) -> usize {
        let engines = self.engines.max(1);
        if self.free_at.len() != engines {
            // Engines added are free; set `engines` before the run.
            self.free_at.resize(engines, 0);
        }
        match self.free_at.iter().position(|&f| f <= cycle) {
            Some(e) => e,
            None => (0..engines).min_by_key(|&e| self.free_at[e]).unwrap(),
        }
    }

    /// True while a request is being computed or a response waits.
    pub fn busy(&self) -> bool {
        !self.responses.is_empty() || !self.beats.is_empty()
    }

    pub fn drive(&mut self, inp: &mut KernelIn) {
        inp.sreq_tready = self.req_ready.at(self.now);
        match self.responses.front().filter(|r| r.ready_at <= self.now) {
            Some(r) => {
                inp.sresp_tvalid = true;
                inp.sresp_tdata = r.data;
                inp.sresp_tuser = r.status;
                inp.sresp_tlast = true;
            }
            None => {
                inp.sresp_tvalid = false;
                inp.sresp_tdata = [0; BEAT_WORDS];
                inp.sresp_tuser = 0;
                inp.sresp_tlast = false;
            }
        }
    }

    pub fn observe(&mut self, inp: &KernelIn, out: &KernelOut, cycle: u64) {
        self.now = cycle + 1;
        if !inp.ap_rst_n {
            // The service shares the kernel's reset: requests and responses
            // in flight are dropped.
            self.beats.clear();
            self.responses.clear();
            for f in &mut self.free_at {
                *f = cycle;
            }
            return;
        }
        if inp.sresp_tvalid && out.sresp_tready {
            self.responses.pop_front();
        }
        if out.sreq_tvalid && inp.sreq_tready {
            self.beats.push(ReqBeat {
                data: out.sreq_tdata,
                keep: out.sreq_tkeep,
                user: out.sreq_tuser,
            });
            if out.sreq_tlast {
                let beats = std::mem::take(&mut self.beats);
                self.request_cycles.push(cycle);
                let (status, data, latency) = self.serve(&beats);
                let e = self.engine(cycle);
                let start = self.free_at[e].max(cycle);
                self.free_at[e] = start + latency;
                self.responses.push_back(Response {
                    ready_at: start + latency,
                    data,
                    status,
                });
            }
        }
    }

    /// The response to one whole request, and its latency.
    fn serve(&mut self, beats: &[ReqBeat]) -> (u8, Beat, u64) {
        let zero = [0u32; BEAT_WORDS];
        let op = (beats[0].user & 0xff) as u64;
        let signer = (beats[0].user >> 8) as usize;
        let mut block = [0u32; BLOCK_WORDS];
        block.copy_from_slice(&beats[0].data[..BLOCK_WORDS]);
        let block_ok = beats[0].keep == code::BLOCK_KEEP && records::well_formed(&block);
        let msg = block_bytes(&block);
        match op {
            code::OP_SIGN if beats.len() == 1 && block_ok => {
                self.counters.signs += 1;
                let sig = self.key.sign(&msg);
                (
                    code::OK as u8,
                    bytes_beat(&sig.to_bytes()),
                    self.sign_latency,
                )
            }
            code::OP_VERIFY if beats.len() == 2 && block_ok && beats[1].keep == u64::MAX => {
                let Some(public) = self.publics.get(signer) else {
                    self.counters.unknown_signer += 1;
                    return (code::UNKNOWN_SIGNER as u8, zero, 1);
                };
                self.counters.verifies += 1;
                let sig = Signature::from_bytes(&beat_bytes(&beats[1].data));
                if public.verify(&msg, &sig).is_ok() {
                    (code::OK as u8, zero, self.verify_latency)
                } else {
                    self.counters.invalid += 1;
                    (code::INVALID as u8, zero, self.verify_latency)
                }
            }
            _ => {
                self.counters.malformed += 1;
                (code::MALFORMED as u8, zero, 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::layout::records::{block, commit_block, seal_block, KIND, KIND_CERT, KIND_PREP};
    use rhdl_ubft::params::defaults;

    fn send(s: &mut Signer, beats: &[(Beat, u64, u16, bool)], cycle: &mut u64) {
        for &(data, keep, user, last) in beats {
            let mut inp = KernelIn::default();
            s.drive(&mut inp);
            let out = KernelOut {
                sreq_tvalid: true,
                sreq_tdata: data,
                sreq_tkeep: keep,
                sreq_tuser: user,
                sreq_tlast: last,
                ..KernelOut::default()
            };
            s.observe(&inp, &out, *cycle);
            *cycle += 1;
        }
    }

    /// Runs until a response is valid and takes it: (cycle, status, data).
    fn take(s: &mut Signer, cycle: &mut u64) -> (u64, u8, Beat) {
        for _ in 0..100_000 {
            let mut inp = KernelIn::default();
            s.drive(&mut inp);
            let out = KernelOut {
                sresp_tready: true,
                ..KernelOut::default()
            };
            s.observe(&inp, &out, *cycle);
            *cycle += 1;
            if inp.sresp_tvalid {
                return (*cycle - 1, inp.sresp_tuser, inp.sresp_tdata);
            }
        }
        panic!("no response: the service hung");
    }

    fn beat_of(w: &[u32; BLOCK_WORDS]) -> Beat {
        bytes_beat(&block_bytes(w))
    }

    /// Asks `s` to sign `w`; the response's status and data.
    fn sign(s: &mut Signer, c: &mut u64, w: &[u32; BLOCK_WORDS]) -> (u8, Beat) {
        let op = code::OP_SIGN as u16;
        send(s, &[(beat_of(w), code::BLOCK_KEEP, op, true)], c);
        let (_, status, data) = take(s, c);
        (status, data)
    }

    /// Asks `s` to verify `sig` as replica `signer`'s over `w`: the status.
    fn verify(s: &mut Signer, c: &mut u64, w: &[u32; BLOCK_WORDS], sig: Beat, signer: u16) -> u8 {
        let user = code::OP_VERIFY as u16 | (signer << 8);
        send(
            s,
            &[
                (beat_of(w), code::BLOCK_KEEP, user, false),
                (sig, u64::MAX, user, true),
            ],
            c,
        );
        take(s, c).1
    }

    /// Sends a verify of `sig` as replica `signer`'s over `w` (two beats, on
    /// two cycles), taking no response meanwhile.
    fn send_verify(s: &mut Signer, c: &mut u64, w: &[u32; BLOCK_WORDS], sig: Beat, signer: u16) {
        let user = code::OP_VERIFY as u16 | (signer << 8);
        send(
            s,
            &[
                (beat_of(w), code::BLOCK_KEEP, user, false),
                (sig, u64::MAX, user, true),
            ],
            c,
        );
    }

    /// Replica 0's signature over `w`, from its own service.
    fn signature_of(w: &[u32; BLOCK_WORDS]) -> Beat {
        let (status, sig) = sign(&mut Signer::new(9, 0, 3, 1, 1), &mut 0, w);
        assert_eq!(status, code::OK as u8);
        sig
    }

    /// Four verifies sent back to back (last beats on cycles 1, 3, 5, 7) on a
    /// service of `engines` engines with the default latencies: the cycles
    /// their responses are taken, each as soon as it is valid.
    fn four_verifies(engines: usize) -> Vec<(u64, u8)> {
        let mut s = Signer::new(9, 1, 3, defaults::SIGN_LATENCY, defaults::VERIFY_LATENCY)
            .with_engines(engines);
        let mut c = 0;
        let ws: Vec<_> = (0..4).map(|k| cert_block(0, k + 1, 0x40 + k)).collect();
        for w in &ws {
            send_verify(&mut s, &mut c, w, signature_of(w), 0);
        }
        assert_eq!(s.request_cycles, [1, 3, 5, 7]);
        (0..4)
            .map(|_| take(&mut s, &mut c))
            .map(|(at, st, _)| (at, st))
            .collect()
    }

    #[test]
    fn four_engines_verify_four_requests_in_one_verify_latency() {
        let v = defaults::VERIFY_LATENCY;
        assert_eq!(v, 4_000);
        let ok = code::OK as u8;
        // Each on its own engine: done VERIFY_LATENCY after its last beat.
        assert_eq!(
            four_verifies(4),
            [(v + 1, ok), (v + 3, ok), (v + 5, ok), (v + 7, ok)],
            "4,001, 4,003, 4,005 and 4,007"
        );
        // One engine, one at a time: the last at 16,001.
        assert_eq!(
            four_verifies(1),
            [
                (v + 1, ok),
                (2 * v + 1, ok),
                (3 * v + 1, ok),
                (4 * v + 1, ok)
            ]
        );
        // Two engines: two at a time.
        assert_eq!(
            four_verifies(2),
            [(v + 1, ok), (v + 3, ok), (2 * v + 1, ok), (2 * v + 3, ok)]
        );
    }

    #[test]
    fn a_sign_that_finishes_first_waits_behind_the_verify_before_it() {
        // Two engines, sign 10 cycles, verify 50: a verify (last beat on 1,
        // done 51), then a sign (beat on 2, done 12).
        let mut s = Signer::new(9, 1, 3, 10, 50).with_engines(2);
        let w = cert_block(0, 1, 0x77);
        let mut c = 0;
        send_verify(&mut s, &mut c, &w, signature_of(&w), 0);
        send(
            &mut s,
            &[(beat_of(&w), code::BLOCK_KEEP, code::OP_SIGN as u16, true)],
            &mut c,
        );
        // The controller is not ready until cycle 60: the verify's response
        // is valid from 51 and held, the sign's not shown before it.
        let mut shown = vec![];
        while c < 60 {
            let mut inp = KernelIn::default();
            s.drive(&mut inp);
            if inp.sresp_tvalid {
                shown.push((c, inp.sresp_tuser, inp.sresp_tdata));
            }
            s.observe(&inp, &KernelOut::default(), c);
            c += 1;
        }
        assert_eq!(shown.first().map(|x| x.0), Some(51));
        assert_eq!(shown.len(), 9, "held from 51 to 59");
        assert!(
            shown
                .iter()
                .all(|x| (x.1, x.2) == (code::OK as u8, [0; BEAT_WORDS])),
            "the verify's response, payload stable"
        );
        let (at, status, data) = take(&mut s, &mut c);
        assert_eq!((at, status, data), (60, code::OK as u8, [0; BEAT_WORDS]));
        let (at, status, sig) = take(&mut s, &mut c);
        assert_eq!((at, status), (61, code::OK as u8), "then the sign's");
        let expected = signing_key(9, 1).sign(&block_bytes(&w));
        assert_eq!(beat_bytes(&sig), expected.to_bytes());
    }

    #[test]
    fn malformed_and_unknown_signer_answers_keep_their_place() {
        // Four engines; a verify (done 51), a malformed sign (one cycle,
        // done 3), a verify naming signer 7 of 3 (done 5), a sign (done 15).
        let mut s = Signer::new(9, 1, 3, 10, 50).with_engines(4);
        let w = cert_block(0, 1, 0x77);
        let mut c = 0;
        send_verify(&mut s, &mut c, &w, signature_of(&w), 0);
        send(
            &mut s,
            &[(beat_of(&w), 0xffff, code::OP_SIGN as u16, true)],
            &mut c,
        );
        send_verify(&mut s, &mut c, &w, signature_of(&w), 7);
        send(
            &mut s,
            &[(beat_of(&w), code::BLOCK_KEEP, code::OP_SIGN as u16, true)],
            &mut c,
        );
        assert_eq!(s.request_cycles, [1, 2, 4, 5]);
        let got: Vec<(u64, u8)> = (0..4)
            .map(|_| take(&mut s, &mut c))
            .map(|x| (x.0, x.1))
            .collect();
        assert_eq!(
            got,
            [
                (51, code::OK as u8),
                (52, code::MALFORMED as u8),
                (53, code::UNKNOWN_SIGNER as u8),
                (54, code::OK as u8)
            ]
        );
        // With one engine the same answers, later: 51, 52, 53, 63.
        let mut s = Signer::new(9, 1, 3, 10, 50);
        let mut c = 0;
        send_verify(&mut s, &mut c, &w, signature_of(&w), 0);
        send(
            &mut s,
            &[(beat_of(&w), 0xffff, code::OP_SIGN as u16, true)],
            &mut c,
        );
        send_verify(&mut s, &mut c, &w, signature_of(&w), 7);
        send(
            &mut s,
            &[(beat_of(&w), code::BLOCK_KEEP, code::OP_SIGN as u16, true)],
            &mut c,
        );
        let got: Vec<(u64, u8)> = (0..4)
            .map(|_| take(&mut s, &mut c))
            .map(|x| (x.0, x.1))
            .collect();
        assert_eq!(
            got,
            [
                (51, code::OK as u8),
                (52, code::MALFORMED as u8),
                (53, code::UNKNOWN_SIGNER as u8),
                (63, code::OK as u8)
            ]
        );
    }

    #[test]
    fn signs_and_verifies_with_real_ed25519_after_its_latencies() {
        let mut a = Signer::new(7, 0, 3, 10, 20);
        let mut b = Signer::new(7, 1, 3, 10, 20);
        let w = cert_block(0, 4, 0xdead);
        let mut cycle = 0;
        send(
            &mut a,
            &[(beat_of(&w), 0xffff_ffff, code::OP_SIGN as u16, true)],
            &mut cycle,
        );
        let (at, status, sig) = take(&mut a, &mut cycle);
        assert_eq!(
            (at, status),
            (10, 0),
            "valid sign_latency cycles after the last beat"
        );
        let expected = signing_key(7, 0).sign(&block_bytes(&w));
        assert_eq!(beat_bytes(&sig), expected.to_bytes(), "all 32 bytes signed");
        // Replica 1's service verifies replica 0's share.
        let user = code::OP_VERIFY as u16;
        let mut c = 0;
        send(
            &mut b,
            &[
                (beat_of(&w), 0xffff_ffff, user, false),
                (sig, u64::MAX, user, true),
            ],
            &mut c,
        );
        let (at, status, _) = take(&mut b, &mut c);
        assert_eq!((at, status), (21, code::OK as u8));
        // A corrupted signature is invalid; a verify naming replica 1 fails.
        let mut bad = sig;
        bad[3] ^= 1;
        assert_eq!(verify(&mut b, &mut c, &w, bad, 0), code::INVALID as u8);
        assert_eq!(verify(&mut b, &mut c, &w, sig, 1), code::INVALID as u8);
        assert_eq!(b.counters().invalid, 2);
    }

    #[test]
    fn malformed_requests_and_unknown_signers_get_an_error_response() {
        let mut s = Signer::new(1, 0, 3, 50, 50);
        let mut c = 0;
        let w = cert_block(0, 1, 2);
        let blk = beat_of(&w);
        let op_sign = code::OP_SIGN as u16;
        // A sign of 33 bytes, and of 28 (the block with its last word dropped).
        send(&mut s, &[(blk, 0x1_ffff_ffff, op_sign, true)], &mut c);
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        send(&mut s, &[(blk, 0x0fff_ffff, op_sign, true)], &mut c);
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // The 16-byte summary the service signed before the block.
        send(&mut s, &[(blk, 0xffff, op_sign, true)], &mut c);
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // Blocks that are not one: kind 0 and 5; a CERT block with a word
        // after prev; a SEAL without L but with L's words.
        let mut not_blocks = vec![];
        for kind in [0, 5] {
            let mut x = w;
            x[KIND] = kind;
            not_blocks.push(x);
        }
        let mut x = w;
        x[7] = 1;
        not_blocks.push(x);
        let mut x = seal_block(0, 1, Some([1, 2, 3, 4]));
        x[7] = 0;
        not_blocks.push(x);
        let mut x = seal_block(0, 1, None);
        x[7] = 2;
        not_blocks.push(x);
        for x in &not_blocks {
            assert!(!records::well_formed(x));
            assert_eq!(sign(&mut s, &mut c, x).0, code::MALFORMED as u8, "{x:?}");
            assert_eq!(
                verify(&mut s, &mut c, x, blk, 0),
                code::MALFORMED as u8,
                "{x:?}"
            );
        }
        // A verify of one beat.
        send(
            &mut s,
            &[(blk, code::BLOCK_KEEP, code::OP_VERIFY as u16, true)],
            &mut c,
        );
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // An unknown op.
        send(&mut s, &[(blk, code::BLOCK_KEEP, 9, true)], &mut c);
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // A verify naming signer 5 of 3.
        assert_eq!(
            verify(&mut s, &mut c, &w, blk, 5),
            code::UNKNOWN_SIGNER as u8
        );
        assert_eq!(s.counters().malformed, 5 + 2 * not_blocks.len() as u64);
        assert_eq!(s.counters().unknown_signer, 1);
        assert_eq!(s.counters().signs, 0, "nothing malformed was signed");
    }

    /// The M6a mutation test for one kind: replica 0's signature over `w`
    /// verifies (through replica 1's service) as replica 0's over `w` only,
    /// and as none of `block_mutants(w, fields)` (the same words under any
    /// other kind, any word of `fields` changed or dropped). Each mutant is
    /// refused either as INVALID (a well-formed block the signature does
    /// not cover) or as MALFORMED (not a block), and in both cases the raw
    /// Ed25519 check over its 32 bytes fails too, so the test does not rest
    /// on the service's well-formedness rule.
    fn one_kind_verifies_as_itself_only(w: [u32; BLOCK_WORDS], fields: &[usize]) {
        assert!(records::well_formed(&w));
        let (mut a, mut b) = (Signer::new(3, 0, 3, 5, 7), Signer::new(3, 1, 3, 5, 7));
        let (mut ca, mut cb) = (0, 0);
        let (status, sig) = sign(&mut a, &mut ca, &w);
        assert_eq!(status, code::OK as u8);
        assert_eq!(verify(&mut b, &mut cb, &w, sig, 0), code::OK as u8);
        let key = signing_key(3, 0).verifying_key();
        let raw = Signature::from_bytes(&beat_bytes(&sig));
        let mutants = block_mutants(&w, fields);
        let mut invalid = 0;
        for (what, x) in &mutants {
            assert!(
                key.verify(&block_bytes(x), &raw).is_err(),
                "{what}: Ed25519 accepts it"
            );
            let want = if records::well_formed(x) {
                invalid += 1;
                code::INVALID
            } else {
                code::MALFORMED
            };
            assert_eq!(
                verify(&mut b, &mut cb, x, sig, 0),
                want as u8,
                "{what}: {x:?}"
            );
        }
        assert!(
            invalid > 0,
            "some mutant is a well-formed block the signature does not cover"
        );
        // A word of `fields` dropped from the request itself: 28 bytes, which
        // the service refuses, and over which the signature fails.
        for &i in fields {
            let mut short = block_bytes(&w).to_vec();
            short.drain(4 * i..4 * i + 4);
            assert!(key.verify(&short, &raw).is_err(), "word {i} dropped");
            let user = code::OP_VERIFY as u16;
            let data = bytes_beat(&short);
            send(
                &mut b,
                &[
                    (data, 0x0fff_ffff, user, false),
                    (sig, u64::MAX, user, true),
                ],
                &mut cb,
            );
            assert_eq!(take(&mut b, &mut cb).1, code::MALFORMED as u8);
        }
        // Still valid afterwards, and not as another replica's.
        assert_eq!(verify(&mut b, &mut cb, &w, sig, 0), code::OK as u8);
        assert_eq!(verify(&mut b, &mut cb, &w, sig, 2), code::INVALID as u8);
    }

    #[test]
    fn a_prep_signature_verifies_as_its_prep_block_only() {
        // [PREP, v, k, m, prev]: as CERT with the same words it must fail.
        let w = block(KIND_PREP, 3, 17, 0xbeef, 16);
        one_kind_verifies_as_itself_only(w, &[0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_cert_signature_verifies_as_its_cert_block_only() {
        let w = block(KIND_CERT, 3, 17, 0xbeef, 16);
        one_kind_verifies_as_itself_only(w, &[0, 1, 2, 3, 4]);
        // v2's CERT block, prev = 0, too.
        one_kind_verifies_as_itself_only(cert_block(1, 2, 0x77), &[0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_commit_signature_verifies_as_its_commit_block_only() {
        // [COMMIT, j, v, k, m, prev].
        let w = commit_block(2, 3, 17, 0xbeef, 16);
        one_kind_verifies_as_itself_only(w, &[0, 1, 2, 3, 4, 5]);
        // With prev = 0 its words are a well-formed PREP or CERT block too
        // ([k, j, v, k, m, 0, 0, 0]): only the signature tells them apart.
        let w = commit_block(2, 3, 17, 0xbeef, 0);
        assert!(records::well_formed(&block(KIND_CERT, 2, 3, 17, 0xbeef)));
        one_kind_verifies_as_itself_only(w, &[0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_seal_signature_verifies_as_its_seal_block_only() {
        // [SEAL, j, v, L.w, L.c, L.m, L.prev, L present], with L and without.
        let w = seal_block(2, 4, Some([3, 17, 0xbeef, 16]));
        one_kind_verifies_as_itself_only(w, &[0, 1, 2, 3, 4, 5, 6, 7]);
        let w = seal_block(2, 4, None);
        one_kind_verifies_as_itself_only(w, &[0, 1, 2, 7]);
    }
}
