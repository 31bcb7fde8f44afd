//! `rhdl_ubft::guard::check`, the hardware guard's reference rule, against
//! the network model's slot guard (`Network::guard`, reached through the
//! model's public interface: a command sent, delivered or refused, and the
//! refusal's detail): the same verdict for every well-formed write.

use rhdl_ubft::guard::{check, Refusal};
use rhdl_ubft::io::roce::{SqCommand, RC_RDMA_WRITE_ONLY};
use rhdl_ubft::layout::{Mailbox, Region, Shape};
use rhdl_ubft::params::{G, N as BUILD_N, SB};
use ubft_sim::models::hbm::Hbm;
use ubft_sim::models::network::{Delivery, Network, RefuseReason};
use ubft_sim::ports::{KernelIn, KernelOut};

const PTR: u64 = 0x1_0000_0000;
const QPN_BASE: u64 = 16;
const L: u64 = 4;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Sends `data` at `word` from `src` to `dst` through the model and
/// returns what its guard said.
fn model(
    n: usize,
    mb: &Mailbox,
    src: usize,
    dst: usize,
    word: usize,
    data: &[u32],
) -> Option<RefuseReason> {
    let mut net = Network::new(n, L, mb.clone(), PTR, QPN_BASE);
    // No kernels here: the model's own rule filters (`Delivery::Model`).
    net.set_delivery(Delivery::Model);
    let mut hbms: Vec<Hbm> = (0..n).map(|_| Hbm::new(5, 3)).collect();
    let at = PTR + 4 * word as u64;
    hbms[src].write_words(at, data);
    let cmd = SqCommand {
        opcode: RC_RDMA_WRITE_ONLY,
        qpn: QPN_BASE + dst as u64,
        last: true,
        laddr: at,
        raddr: at,
        length: 4 * data.len() as u64,
        ..Default::default()
    };
    for c in 0..L + 3 {
        net.deliver(c, &mut hbms);
        for r in 0..n {
            let mut inp = KernelIn::default();
            net.drive(r, &mut inp);
            let send = c == 0 && r == src;
            let out = KernelOut {
                sq_tvalid: send,
                sq_tdata: if send { cmd.pack() } else { [0; 4] },
                cq_tready: true,
                ..Default::default()
            };
            net.observe(r, &inp, &out, c, &hbms);
        }
    }
    assert_eq!(
        net.malformed(src),
        0,
        "a well-formed command: {:?}",
        net.stats().malformed_log
    );
    assert_eq!(net.delivered(src, dst) + net.refused(src), 1);
    net.stats().refusal_log.first().map(|r| r.reason)
}

#[test]
fn the_reference_rule_is_the_network_models_slot_guard() {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let mut rng = Rng(0xfeed);
    let mut compared = 0;
    for n in [3usize, 5, 7] {
        for _ in 0..1500 {
            let src = rng.below(n);
            let dst = (src + 1 + rng.below(n - 1)) % n;
            let region = if rng.below(3) == 0 {
                [Region::Prepare, Region::PrepSig, Region::NewViewRecord][rng.below(3)]
            } else {
                Region::ALL[rng.below(Region::ALL.len())]
            };
            let shape = Shape::of(region);
            let (rows, cols) = shape.dims(BUILD_N, G);
            let (i, j) = (rng.below(rows), rng.below(cols));
            let base = match shape {
                Shape::VoteRows => mb.vote(region, i, j),
                _ => mb.record(region, i, j),
            };
            let word =
                ((base as i64 + [0, 0, 0, 1, -1, 2, 16][rng.below(7)]) as usize).min(mb.end() - 1);
            let len = [1, 2, 4, 4, 3, 16, 5, 32][rng.below(8)].min(mb.end() - word);
            let led = (rng.below(100) * n + src) as u32;
            let data: Vec<u32> = (0..len)
                .map(|i| match (i, rng.below(3)) {
                    (0..=2, 0 | 1) => led + rng.below(2) as u32,
                    _ => rng.next() as u32,
                })
                .collect();
            let hw = check(&mb, n, src, word, &data);
            let sim = model(n, &mb, src, dst, word, &data).map(|r| match r {
                RefuseReason::NotOwner { .. } => Refusal::NotOwner,
                RefuseReason::NotLeader { .. } => Refusal::NotLeader,
                RefuseReason::Shape { .. } => Refusal::Shape,
                RefuseReason::Empty => Refusal::Length,
                RefuseReason::Other(r) => r,
            });
            assert_eq!(
                hw.err(),
                sim,
                "n = {n}: {src} writes {data:x?} at word {word} ({:?})",
                mb.locate(word)
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 4500);
}
