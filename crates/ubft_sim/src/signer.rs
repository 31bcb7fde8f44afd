//! Signer: the signing service on the other side of a kernel's signer
//! streams (`m_axis_sreq`, `s_axis_sresp`; format in `rhdl_ubft::setup`).
//!
//! Real Ed25519 (ed25519-dalek): one key pair per replica, derived from the
//! run's seed; every replica's service knows every public key. A sign takes
//! `sign_latency` cycles and a verify `verify_latency` cycles, one request
//! at a time in arrival order (a request waits for the one before it). The
//! response is valid from the cycle its latency has passed after the
//! request's last beat was accepted, and held until `sresp_tready`.
//!
//! Refused requests get an error response instead of a hang: a sign of
//! other than one 16-byte beat, a verify of other than a 16-byte beat and a
//! 64-byte beat, or an unknown op answer MALFORMED; a verify naming a
//! signer id with no key answers UNKNOWN_SIGNER.

use crate::network::Ready;
use crate::ports::{Beat, KernelIn, KernelOut};
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier, VerifyingKey};
use rhdl_ubft::params::BEAT_WORDS;
use rhdl_ubft::setup::code;
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

/// The 16 bytes the spec signs: (view, slot, k, m) as four little-endian
/// 32-bit words.
pub fn summary(view: u32, slot: u32, k: u32, m: u32) -> [u8; 16] {
    let mut s = [0u8; 16];
    for (i, w) in [view, slot, k, m].into_iter().enumerate() {
        s[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    s
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
    beats: Vec<ReqBeat>,
    responses: VecDeque<Response>,
    /// The cycle the service is free again.
    free_at: u64,
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
            beats: vec![],
            responses: VecDeque::new(),
            free_at: 0,
            now: 0,
            counters: SignerCounters::default(),
            request_cycles: vec![],
        }
    }

    pub fn counters(&self) -> SignerCounters {
        self.counters
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
            self.free_at = cycle;
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
                let start = self.free_at.max(cycle);
                self.free_at = start + latency;
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
        let summary_ok = beats[0].keep == code::SUMMARY_KEEP;
        let summary = &beat_bytes(&beats[0].data)[..16];
        match op {
            code::OP_SIGN if beats.len() == 1 && summary_ok => {
                self.counters.signs += 1;
                let sig = self.key.sign(summary);
                (
                    code::OK as u8,
                    bytes_beat(&sig.to_bytes()),
                    self.sign_latency,
                )
            }
            code::OP_VERIFY if beats.len() == 2 && summary_ok && beats[1].keep == u64::MAX => {
                let Some(public) = self.publics.get(signer) else {
                    self.counters.unknown_signer += 1;
                    return (code::UNKNOWN_SIGNER as u8, zero, 1);
                };
                self.counters.verifies += 1;
                let sig = Signature::from_bytes(&beat_bytes(&beats[1].data));
                if public.verify(summary, &sig).is_ok() {
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

    #[test]
    fn signs_and_verifies_with_real_ed25519_after_its_latencies() {
        let mut a = Signer::new(7, 0, 3, 10, 20);
        let mut b = Signer::new(7, 1, 3, 10, 20);
        let s = summary(0, 3, 4, 0xdead);
        let mut cycle = 0;
        send(
            &mut a,
            &[(bytes_beat(&s), 0xffff, code::OP_SIGN as u16, true)],
            &mut cycle,
        );
        let (at, status, sig) = take(&mut a, &mut cycle);
        assert_eq!(
            (at, status),
            (10, 0),
            "valid sign_latency cycles after the last beat"
        );
        let expected = signing_key(7, 0).sign(&s);
        assert_eq!(beat_bytes(&sig), expected.to_bytes());
        // Replica 1's service verifies replica 0's share.
        let user = code::OP_VERIFY as u16;
        let mut c = 0;
        send(
            &mut b,
            &[
                (bytes_beat(&s), 0xffff, user, false),
                (sig, u64::MAX, user, true),
            ],
            &mut c,
        );
        let (at, status, _) = take(&mut b, &mut c);
        assert_eq!((at, status), (21, code::OK as u8));
        // A corrupted signature is invalid; a verify naming replica 1 fails.
        let mut bad = sig;
        bad[3] ^= 1;
        send(
            &mut b,
            &[
                (bytes_beat(&s), 0xffff, user, false),
                (bad, u64::MAX, user, true),
            ],
            &mut c,
        );
        assert_eq!(take(&mut b, &mut c).1, code::INVALID as u8);
        let as_1 = user | (1 << 8);
        send(
            &mut b,
            &[
                (bytes_beat(&s), 0xffff, as_1, false),
                (sig, u64::MAX, as_1, true),
            ],
            &mut c,
        );
        assert_eq!(take(&mut b, &mut c).1, code::INVALID as u8);
        assert_eq!(b.counters().invalid, 2);
    }

    #[test]
    fn malformed_requests_and_unknown_signers_get_an_error_response() {
        let mut s = Signer::new(1, 0, 3, 50, 50);
        let mut c = 0;
        let sum = bytes_beat(&summary(0, 0, 1, 2));
        // A sign of 17 bytes.
        send(
            &mut s,
            &[(sum, 0x1ffff, code::OP_SIGN as u16, true)],
            &mut c,
        );
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // A verify of one beat.
        send(
            &mut s,
            &[(sum, 0xffff, code::OP_VERIFY as u16, true)],
            &mut c,
        );
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // An unknown op.
        send(&mut s, &[(sum, 0xffff, 9, true)], &mut c);
        assert_eq!(take(&mut s, &mut c).1, code::MALFORMED as u8);
        // A verify naming signer 5 of 3.
        let user = code::OP_VERIFY as u16 | (5 << 8);
        send(
            &mut s,
            &[(sum, 0xffff, user, false), (sum, u64::MAX, user, true)],
            &mut c,
        );
        assert_eq!(take(&mut s, &mut c).1, code::UNKNOWN_SIGNER as u8);
        assert_eq!(s.counters().malformed, 3);
        assert_eq!(s.counters().unknown_signer, 1);
    }
}
