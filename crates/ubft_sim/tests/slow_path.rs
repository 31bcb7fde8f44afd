//! The slow path and the signer service on streams: signed shares, commit,
//! decisions on the slow path, and a kernel that never stops for a signature.

use ed25519_dalek::{Signature, Verifier};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, G, N, SB};
use ubft_sim::adversary::ForgeShares;
use ubft_sim::client::proposal;
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay, Path, NETWORK_PTR};
use ubft_sim::signer::{beat_bytes, block_bytes, block_mutants, cert_block, signing_key};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig::quick(replicas, slots).v2()
}

fn byte(word: usize) -> u64 {
    NETWORK_PTR + 4 * word as u64
}

/// One link slow enough to defeat the fast path for the first slot (replica
/// 1's votes reach replica 0 late): every replica decides it on the slow
/// path, with the same value; the leader keeps proposing and the following
/// slots go back to the fast path.
#[test]
fn a_slow_link_sends_one_slot_to_the_slow_path_and_the_next_come_back_fast() {
    let n = 3;
    let slots = 5;
    let cfg = ClusterConfig {
        delays: vec![LinkDelay {
            src: 1,
            dst: 0,
            extra: 1_500,
            from_cycle: 0,
            to_cycle: 1_000,
            records: None,
        }],
        wait_polls: 40,
        ..quick(n, slots)
    };
    let seed = cfg.seed;
    let report = Cluster::new(cfg).unwrap().run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in &report.replicas {
        let got: Vec<(u64, u32, Path)> = r.decided.iter().map(|d| (d.k, d.m, d.path)).collect();
        let mut want = vec![(1, proposal(seed, 0), Path::Slow)];
        want.extend((2..=slots).map(|k| (k, proposal(seed, k - 1), Path::Fast)));
        assert_eq!(got, want, "replica {}", r.id);
        assert_eq!((r.status.slow, r.status.fast), (1, slots as u32 - 1));
        assert!(r.status.timeouts > 0);
    }
    assert_eq!(
        report.proposal_cycles.len(),
        slots as usize,
        "the leader kept proposing: one prepare per slot, none installed by a view change"
    );
}

/// ubft_new's 16-byte summary (view, slot, k, m), which v2 signed before the
/// signed blocks: a share must not verify against it.
fn old_summary(view: u32, slot: u32, k: u32, m: u32) -> [u8; 16] {
    let mut s = [0u8; 16];
    for (i, w) in [view, slot, k, m].into_iter().enumerate() {
        s[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    s
}

/// The CERT block's words: kind, v, k, m, prev.
const CERT_FIELDS: [usize; 5] = [0, 1, 2, 3, 4];

/// Replica `holder`'s copy of replica `signer`'s share of `slot`, as an
/// Ed25519 signature.
fn share_in_hbm(c: &Cluster, holder: usize, signer: usize, slot: usize) -> Signature {
    let mb = Mailbox::v2(N, G, SB);
    let words = c.hbms[holder].read_words(byte(mb.share(slot, signer)), 16);
    let mut beat = [0u32; 16];
    beat.copy_from_slice(&words);
    Signature::from_bytes(&beat_bytes(&beat))
}

/// A share in a replica's HBM is an Ed25519 signature, by that replica's
/// key, of the CERT block [CERT, v, k, m, prev = 0, 0, 0, 0] (all 32 bytes),
/// and of nothing else: not of the same words under another kind (PREP,
/// COMMIT, SEAL), not with any of its words (kind, v, k, m, prev) changed
/// or dropped, and not of the 16-byte summary it signed before.
#[test]
fn a_share_in_hbm_verifies_against_its_cert_block_only() {
    let n = 3;
    let cfg = ClusterConfig {
        delays: vec![LinkDelay {
            src: 2,
            dst: 0,
            extra: 1_500,
            from_cycle: 0,
            to_cycle: 1_000,
            records: None,
        }],
        wait_polls: 40,
        ..quick(n, 1)
    };
    let seed = cfg.seed;
    let mut c = Cluster::new(cfg).unwrap();
    let report = c.run().unwrap();
    assert_eq!(report.replicas[0].decided[0].path, Path::Slow);
    let m = report.replicas[0].decided[0].m;
    let mb = Mailbox::v2(N, G, SB);
    let block = cert_block(0, 1, m);
    let mutants = block_mutants(&block, &CERT_FIELDS);
    let other_kinds = mutants.iter().filter(|(w, _)| w.contains("kind")).count();
    assert_eq!(other_kinds, 3, "PREP, COMMIT and SEAL");
    for holder in 0..n {
        for signer in 0..n {
            let sig = share_in_hbm(&c, holder, signer, 0);
            let key = signing_key(seed, signer).verifying_key();
            assert!(
                key.verify(&block_bytes(&block), &sig).is_ok(),
                "replica {holder}'s copy of {signer}'s share"
            );
            for (what, x) in &mutants {
                assert!(
                    key.verify(&block_bytes(x), &sig).is_err(),
                    "{signer}'s share verifies with {what}: {x:?}"
                );
            }
            // A word dropped from the message itself (28 bytes) fails too.
            for i in CERT_FIELDS {
                let mut short = block_bytes(&block).to_vec();
                short.drain(4 * i..4 * i + 4);
                assert!(key.verify(&short, &sig).is_err(), "word {i} dropped");
            }
            assert!(key.verify(&old_summary(0, 0, 1, m), &sig).is_err());
            // And its certify_valid flag is (tag, m).
            let flag = c.hbms[holder].read_words(byte(mb.vote(Region::CertifyValid, 0, signer)), 2);
            assert_eq!(flag, vec![vote_tag(0, 1), m]);
        }
    }
}

/// The block's view word is signed too, and its k. In view 0 the view word
/// is zero, so a kernel that left it out of the signed block would pass the
/// test above; here the share is signed after a view change (view 1) at
/// k = 2, the second slot of the window: replica 0 equivocates while it
/// leads view 0, replica 4 writes no fast votes, so view 1 decides k = 1
/// and k = 2 on the slow path, and every honest replica's share of k = 2
/// verifies against the CERT block of (1, 2, m) only. (The block has no
/// slot word: the slot is (k - 1) mod G, so k covers it.)
#[test]
fn a_share_signed_after_a_view_change_covers_view_and_k() {
    use ubft_sim::adversary::MuteFast;
    use ubft_sim::backend::{self, Backend};
    let n = 5;
    let cfg = ClusterConfig {
        equivocate: vec![0],
        ..quick(n, 2)
    };
    let seed = cfg.seed;
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let mb = Mailbox::v2(N, G, SB);
    c.set_adversary(
        4,
        Box::new(MuteFast {
            mailbox: mb.clone(),
        }),
    );
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let (view, slot, k) = (1u32, 1usize, 2u64);
    for r in report.honest() {
        assert_eq!(r.view, view, "replica {} ends in view 1", r.id);
        let d = &r.decided[k as usize - 1];
        assert_eq!((d.k, d.path), (k, Path::Slow), "replica {}", r.id);
    }
    let m = report.honest().next().unwrap().decided[1].m;
    let block = cert_block(view, k as u32, m);
    let honest: Vec<usize> = report.honest().map(|r| r.id).collect();
    for &holder in &honest {
        for &signer in &honest {
            let sig = share_in_hbm(&c, holder, signer, slot);
            let key = signing_key(seed, signer).verifying_key();
            assert!(
                key.verify(&block_bytes(&block), &sig).is_ok(),
                "replica {holder}'s copy of {signer}'s share of k = {k}"
            );
            // With the view zeroed, or any word changed or dropped, it fails.
            assert!(key
                .verify(&block_bytes(&cert_block(0, k as u32, m)), &sig)
                .is_err());
            for (what, x) in block_mutants(&block, &CERT_FIELDS) {
                assert!(key.verify(&block_bytes(&x), &sig).is_err(), "{what}");
            }
        }
    }
}

/// ubft_new signed view<<48 ^ slot<<32 ^ k<<16 ^ m, where (k = 1, m = 0) and
/// (k = 2, m = 196608) collide in the same view and slot. The blocks the
/// kernel signs for them differ, and one's signature fails on the other.
#[test]
fn the_summaries_that_collided_in_ubft_new_are_different_blocks() {
    let old = |view: u64, slot: u64, k: u64, m: u64| (view << 48) ^ (slot << 32) ^ (k << 16) ^ m;
    assert_eq!(
        old(0, 5, 1, 0),
        old(0, 5, 2, 196_608),
        "ubft_new's collision"
    );
    let (a, b) = (cert_block(0, 1, 0), cert_block(0, 2, 196_608));
    assert_ne!(block_bytes(&a), block_bytes(&b));
    let key = signing_key(1, 0);
    use ed25519_dalek::Signer;
    let sig = key.sign(&block_bytes(&a));
    assert!(key.verifying_key().verify(&block_bytes(&b), &sig).is_err());
}

/// A faulty replica writes corrupted shares (and no fast votes): they are
/// not counted, nobody decides a wrong value, and the honest replicas do not
/// hang: they go on polling, count the invalid shares and time out.
#[test]
fn a_forged_share_is_not_counted_and_the_controller_times_out() {
    let n = 3;
    let cfg = ClusterConfig {
        max_cycles: 12_000,
        ..quick(n, 2)
    };
    let mut c = Cluster::new(cfg).unwrap();
    c.set_adversary(
        2,
        Box::new(ForgeShares {
            mailbox: Mailbox::v2(N, G, SB),
        }),
    );
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in report.honest() {
        assert!(
            r.decided.is_empty(),
            "replica {} decided without a valid quorum",
            r.id
        );
        assert!(
            r.status.bad_shares >= 1,
            "replica {} found the forged share invalid",
            r.id
        );
        assert!(r.status.timeouts > 0, "replica {} says it timed out", r.id);
    }
    // Still polling at the end: the controller did not hang.
    let polls: Vec<u32> = report.replicas.iter().map(|r| r.status.polls).collect();
    for _ in 0..400 {
        c.step().unwrap();
    }
    c.read_status().unwrap();
    let later = c.report();
    for r in 0..2 {
        assert!(
            later.replicas[r].status.polls > polls[r] + 2,
            "replica {r} stopped polling"
        );
    }
}

/// The kernel keeps polling while a signature is computed: between the sign
/// request and its response, the replica's HBM keeps seeing read bursts.
#[test]
fn fetches_continue_while_the_signer_is_busy() {
    let n = 3;
    let cfg = ClusterConfig {
        sign_latency: 5_000,
        delays: vec![LinkDelay {
            src: 1,
            dst: 0,
            extra: 8_000,
            from_cycle: 0,
            to_cycle: 1_000,
            records: None,
        }],
        max_cycles: 40_000,
        ..quick(n, 1)
    };
    let mut c = Cluster::new(cfg).unwrap();
    while c.signers[0].request_cycles.is_empty() {
        c.step().unwrap();
        assert!(c.cycle < 20_000, "replica 0 never asked for a signature");
    }
    let asked = c.cycle;
    let reads = c.hbms[0].counters().reads;
    c.read_status().unwrap(); // through s_axi_control, while the kernel runs
    let polls = c.report().replicas[0].status.polls;
    for _ in 0..4_000 {
        c.step().unwrap();
    }
    assert!(c.signers[0].busy(), "the signature is still being computed");
    let more = c.hbms[0].counters().reads - reads;
    // A poll takes about H + 4 = 16 cycles: 4,000 cycles hold well over 100.
    assert!(
        more > 100,
        "only {more} reads in the 4,000 cycles after the request at {asked}"
    );
    c.read_status().unwrap();
    assert!(c.report().replicas[0].status.polls > polls + 100);
}
