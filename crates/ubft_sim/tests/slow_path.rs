//! The slow path and the signer service on streams, on the kernel (R7 to
//! R12, slow.md: f + 1 shares over a CERT block, f + 1 COMMITs): a slot
//! sent to the slow path and the next ones back on the fast path, shares
//! signed after a view change, forged shares, and a kernel that never stops
//! for a signature.
//!
//! The kernel's certify record of replica j for slot s(k) = (k - 1) mod G
//! is two beats (docs/layout.md, `Region::Certify`): the CERT block C = [2,
//! v, k, m, prev, 0, 0, 0] (`records::block`), then j's share, its Ed25519
//! signature over C's 32 bytes.
//!
//! Tests of v2's all-n slow path that moved to cluster.rs:
//! - `a_share_in_hbm_verifies_against_its_cert_block_only` (every replica's
//!   share of a slot that timed out, in every mailbox, verifies over its
//!   CERT block and over none of its mutants) is
//!   `a_slot_that_times_out_is_delivered_and_certified_by_every_replica`
//!   there; its two extra checks (the share fails over the block with a
//!   word dropped from the 32 bytes, and over ubft_new's 16-byte summary)
//!   are made here on the view-1 share, in
//!   `a_share_signed_after_a_view_change_covers_view_and_k`. v2's
//!   certify_valid flag has no v3 counterpart (a record is present when its
//!   block is).

use ed25519_dalek::{Signature, Verifier};
use rhdl_ubft::layout::{records, Mailbox, Region};
use rhdl_ubft::params::{G, N, SB};
use ubft_sim::adversary::forge_shares::ForgeShares;
use ubft_sim::adversary::mute_fast::MuteFast;
use ubft_sim::adversary::silent::Silent;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay, Path, NETWORK_PTR};
use ubft_sim::models::client::proposal;
use ubft_sim::models::hbm::Hbm;
use ubft_sim::models::signer::{beat_bytes, block_bytes, block_mutants, signing_key};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig::quick(replicas, slots)
}

fn byte(word: usize) -> u64 {
    NETWORK_PTR + 4 * word as u64
}

fn mailbox() -> Mailbox {
    Mailbox::v3(N, G, SB)
}

/// The signature in the beat at `word` of a replica's HBM.
fn signature_at(hbm: &Hbm, word: usize) -> Signature {
    let beat: [u32; 16] = hbm.read_words(byte(word), 16).try_into().unwrap();
    Signature::from_bytes(&beat_bytes(&beat))
}

/// The CERT block of (v, k, m, prev).
fn cert(v: u32, k: u32, m: u32, prev: u32) -> [u32; 8] {
    records::block(records::KIND_CERT, v, k, m, prev)
}

/// The CERT block's words: kind, v, k, m, prev.
const CERT_FIELDS: [usize; 5] = [0, 1, 2, 3, 4];

/// One link slow enough to defeat the fast path for the first slot (replica
/// 1's votes reach replica 0, the leader, 1,500 cycles late until cycle
/// 1,000): every replica times out once and decides slot 1 on the slow path
/// (f + 1 = 2 COMMITs), with the same value; the leader keeps proposing in
/// view 0 and the following slots go back to the fast path.
/// (cluster.rs's `a_timeout_takes_the_v3_kernel_to_its_slow_path_as_v2`
/// shows slot 1 slow and slot 2 fast with a 512-poll wait; this is the
/// tests' quick wait, over five slots.)
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
            after: None,
        }],
        wait_polls: 40,
        ..quick(n, slots)
    };
    let seed = cfg.seed;
    let report = backend::run(&cfg, Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in &report.replicas {
        let got: Vec<(u64, u32, Path)> = r.decided.iter().map(|d| (d.k, d.m, d.path)).collect();
        let mut want = vec![(1, proposal(seed, 0), Path::Slow)];
        want.extend((2..=slots).map(|k| (k, proposal(seed, k - 1), Path::Fast)));
        assert_eq!(got, want, "replica {}\n{}", r.id, report.summary());
        let st = &r.status;
        assert_eq!(
            (st.error, st.slow, st.fast, st.timeouts, st.view_changes),
            (0, 1, slots as u32 - 1, 1, 0),
            "replica {}: {st:?}",
            r.id
        );
        assert_eq!(r.view, 0);
    }
    assert_eq!(
        report.proposal_cycles.len(),
        slots as usize,
        "the leader kept proposing: one prepare per slot, none installed by a view change"
    );
    // The fast slots come after the slow one, not beside it: slot 2 is
    // proposed once the leader decided slot 1.
    let leader_slot1 = report.replicas[0].decided[0].cycle;
    assert!(report.proposal_cycles[1] >= leader_slot1);
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

/// The block's view word is signed too, and its k and prev. In view 0 the
/// view word is zero, so a kernel that left it out of the signed block
/// would pass cluster.rs's share test; here the share is signed after a
/// view change: the leader of n = 3 is silent from the start, replicas 1
/// and 2 seal view 0 and install view 1 (replica 1 leads), and decide k = 1
/// and k = 2 there on the slow path (the fast path needs all three). Every
/// honest replica's share of k = 2, in every honest mailbox at
/// certify[s(2)][j], is its signature over C = [2, 1, 2, m2, m1] only: not
/// with the view zeroed, not with any word changed or dropped (in the
/// block, or from its 32 bytes), not over ubft_new's summary. (The block
/// has no slot word: the slot is (k - 1) mod G, so k covers it.)
#[test]
fn a_share_signed_after_a_view_change_covers_view_and_k() {
    let n = 3;
    let cfg = ClusterConfig {
        seed: 21,
        wait_polls: 64,
        max_cycles: 40_000,
        ..quick(n, 2)
    };
    let seed = cfg.seed;
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(0, Box::new(Silent { from_cycle: 0 }));
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let (view, slot, k) = (1u32, 1usize, 2u32);
    for r in report.honest() {
        assert_eq!(
            (r.status.error, r.view, r.status.view_changes),
            (0, view, 1),
            "replica {}: one view change, to view 1\n{}",
            r.id,
            report.summary()
        );
        let got: Vec<(u64, Path)> = r.decided.iter().map(|d| (d.k, d.path)).collect();
        assert_eq!(
            got,
            vec![(1, Path::Slow), (2, Path::Slow)],
            "replica {}",
            r.id
        );
    }
    let first = report.honest().next().unwrap();
    let (m1, m2) = (first.decided[0].m, first.decided[1].m);
    assert_eq!((m1, m2), (proposal(seed, 0), proposal(seed, 1)));
    let block = cert(view, k, m2, m1);
    let mb = mailbox();
    let honest: Vec<usize> = report.honest().map(|r| r.id).collect();
    assert_eq!(honest, vec![1, 2]);
    for &holder in &honest {
        for &signer in &honest {
            let at = mb.record(Region::Certify, slot, signer);
            let hbm = &c.hbms[holder];
            assert_eq!(
                hbm.read_words(byte(at), 8),
                block.to_vec(),
                "replica {holder}'s copy of {signer}'s CERT block of k = {k}"
            );
            let sig = signature_at(hbm, at + 16);
            let key = signing_key(seed, signer).verifying_key();
            assert!(
                key.verify(&block_bytes(&block), &sig).is_ok(),
                "replica {holder}'s copy of {signer}'s share of k = {k}"
            );
            // With the view zeroed, or any word changed or dropped, it fails.
            assert!(key.verify(&block_bytes(&cert(0, k, m2, m1)), &sig).is_err());
            for (what, x) in block_mutants(&block, &CERT_FIELDS) {
                assert!(key.verify(&block_bytes(&x), &sig).is_err(), "{what}");
            }
            // A word dropped from the message itself (28 bytes) fails too.
            for i in CERT_FIELDS {
                let mut short = block_bytes(&block).to_vec();
                short.drain(4 * i..4 * i + 4);
                assert!(key.verify(&short, &sig).is_err(), "word {i} dropped");
            }
            assert!(key
                .verify(&old_summary(view, slot as u32, k, m2), &sig)
                .is_err());
        }
    }
}

/// ubft_new signed view<<48 ^ slot<<32 ^ k<<16 ^ m, where (k = 1, m = 0) and
/// (k = 2, m = 196608) collide in the same view and slot. The CERT blocks
/// the kernel signs for them differ, and one's signature fails on the other.
#[test]
fn the_summaries_that_collided_in_ubft_new_are_different_blocks() {
    let old = |view: u64, slot: u64, k: u64, m: u64| (view << 48) ^ (slot << 32) ^ (k << 16) ^ m;
    assert_eq!(
        old(0, 5, 1, 0),
        old(0, 5, 2, 196_608),
        "ubft_new's collision"
    );
    let (a, b) = (cert(0, 1, 0, 0), cert(0, 2, 196_608, 0));
    assert_ne!(block_bytes(&a), block_bytes(&b));
    let key = signing_key(1, 0);
    use ed25519_dalek::Signer;
    let sig = key.sign(&block_bytes(&a));
    assert!(key.verifying_key().verify(&block_bytes(&a), &sig).is_ok());
    assert!(key.verifying_key().verify(&block_bytes(&b), &sig).is_err());
}

/// A faulty replica (1, a follower) writes its certify records with the
/// share corrupted (the CERT block as the protocol says) and no fast votes
/// (`ForgeShares`). Its shares reach the honest replicas 0 and 2, are read
/// as candidates (replica 1 is below 2 in the row's order), fail their
/// verify and are not counted: each honest replica counts bad shares,
/// times out of the fast path at every slot, and decides every slot on the
/// slow path from the two honest shares. Every honest COMMIT names exactly
/// replicas 0 and 2 as its certificate's signers, and its shares verify
/// over C; the forger's share in the honest mailboxes fails over C.
#[test]
fn a_forged_share_is_not_counted_and_the_honest_replicas_decide_without_it() {
    let n = 3;
    let slots = 2u64;
    let forger = 1;
    let cfg = ClusterConfig {
        wait_polls: 40,
        ..quick(n, slots)
    };
    let seed = cfg.seed;
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(forger, Box::new(ForgeShares { mailbox: mailbox() }));
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let mb = mailbox();
    let key = |j: usize| signing_key(seed, j).verifying_key();
    let honest: Vec<usize> = report.honest().map(|r| r.id).collect();
    assert_eq!(honest, vec![0, 2]);
    for r in report.honest() {
        let got: Vec<(u64, u32, Path)> = r.decided.iter().map(|d| (d.k, d.m, d.path)).collect();
        let want: Vec<(u64, u32, Path)> = (1..=slots)
            .map(|k| (k, proposal(seed, k - 1), Path::Slow))
            .collect();
        assert_eq!(got, want, "replica {}\n{}", r.id, report.summary());
        let st = &r.status;
        assert_eq!(st.error, 0, "replica {}", r.id);
        assert!(
            st.bad_shares >= 1,
            "replica {} found no forged share invalid: {st:?}",
            r.id
        );
        assert_eq!(st.timeouts, slots as u32, "replica {}: {st:?}", r.id);
    }
    for k in 1..=slots as u32 {
        let s = (k - 1) as usize;
        let m = proposal(seed, k as u64 - 1);
        let prev = if k == 1 {
            0
        } else {
            proposal(seed, k as u64 - 2)
        };
        let c_block = cert(0, k, m, prev);
        for &holder in &honest {
            let hbm = &c.hbms[holder];
            // The forger's record arrived: its block as the protocol says,
            // its share not a signature over it.
            let at = mb.record(Region::Certify, s, forger);
            assert_eq!(hbm.read_words(byte(at), 8), c_block.to_vec());
            assert!(
                key(forger)
                    .verify(&block_bytes(&c_block), &signature_at(hbm, at + 16))
                    .is_err(),
                "replica {holder} holds a valid share of the forger's for k = {k}"
            );
            // Every honest COMMIT of k: signers 0 and 2, shares over C.
            for &j in &honest {
                let at = mb.record(Region::Commit, s, j);
                let beat0 = hbm.read_words(byte(at), 16);
                assert_eq!(
                    &beat0[..8],
                    &records::commit_block(j as u32, 0, k, m, prev)[..],
                    "replica {holder}'s copy of {j}'s COMMIT of k = {k}"
                );
                let bitmap = beat0[records::COMMIT_BITMAP];
                assert_eq!(
                    bitmap,
                    (1 << 0) | (1 << 2),
                    "{j}'s COMMIT of k = {k} counts the forger: {bitmap:#b}"
                );
                for (i, signer) in honest.iter().enumerate() {
                    let share = signature_at(hbm, at + 16 * (2 + i));
                    assert!(
                        key(*signer).verify(&block_bytes(&c_block), &share).is_ok(),
                        "{j}'s COMMIT of k = {k}: share {i} is {signer}'s over C"
                    );
                }
            }
        }
    }
}

/// The kernel keeps polling while a signature is computed: between the sign
/// request (the leader's, R7, when its fast path times out on slot 1) and
/// its response, the replica's HBM keeps seeing read bursts (WATCH's polls:
/// the `polls` status register counts only the first Fetch's, which SLOW
/// does not issue while it waits for its signature, so it stands still).
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
            after: None,
        }],
        max_cycles: 40_000,
        ..quick(n, 1)
    };
    let mut c: Cluster = backend::cluster(&cfg, Backend::Verilator).unwrap();
    while c.signers[0].request_cycles.is_empty() {
        c.step().unwrap();
        assert!(c.cycle < 20_000, "replica 0 never asked for a signature");
    }
    let asked = c.cycle;
    c.read_status().unwrap(); // through s_axi_control, while the kernel runs
                              // Reads in each quarter of the 4,000 cycles after the request: a poll
                              // takes about H + 4 = 16 cycles, so a quarter holds well over 25 of
                              // them, and a kernel that waited for the signer would issue none.
    let mut quarters = vec![];
    for _ in 0..4 {
        let reads = c.hbms[0].counters().reads;
        for _ in 0..1_000 {
            c.step().unwrap();
        }
        quarters.push(c.hbms[0].counters().reads - reads);
    }
    assert!(c.signers[0].busy(), "the signature is still being computed");
    assert_eq!(
        c.signers[0].request_cycles.len(),
        1,
        "one request, still pending"
    );
    assert!(
        quarters.iter().all(|&q| q > 25),
        "reads per 1,000 cycles after the request at {asked}: {quarters:?}"
    );
    eprintln!("reads per 1,000 cycles while the signer is busy: {quarters:?}");
}

/// A round whose local write HBM refuses fails the replica stop
/// (`WriteFailed`, broadcast.md): HBM may hold the round's record without
/// the peers, which a later check (R11's "if higher", R21's echo_seal)
/// would take for a round that landed everywhere. Replica 0 writes no
/// fast-path votes (`MuteFast`), so every slot goes slow; replica 2's
/// first echo_commit round (R11, delivering a peer's COMMIT of k = 1) is
/// refused. From that failure on replica 2 writes nothing (its HBM sees no
/// write of its own) and stops with code 8, having decided nothing, as a
/// crashed replica; replicas 0 and 1 are f + 1 and decide every slot on
/// the slow path. (A one-beat vote's failed write fails the replica stop
/// too, as it is staged: `broadcast.rs`'s block tests and the
/// `hbm_write_error` testbench.)
#[test]
fn a_replica_whose_round_fails_stops_and_the_others_decide_every_slot() {
    use rhdl_ubft::params::ConfigError;
    use ubft_sim::cluster::{HbmWriteError, Records};
    let slots = 3;
    let refuse = |region, slot| HbmWriteError {
        replica: 2,
        records: Records { region, slot },
        count: 1,
    };
    let cfg = ClusterConfig {
        hbm_write_errors: vec![refuse(Region::EchoCommit, None)],
        wait_polls: 40,
        ..quick(3, slots)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        0,
        Box::new(MuteFast {
            mailbox: cfg.mailbox(),
        }),
    );
    c.hbms[2].watch_writes(NETWORK_PTR..NETWORK_PTR + (1 << 32));
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let failed = c.hbms[2].failed_writes().to_vec();
    assert_eq!(
        failed.len(),
        1,
        "the echo_commit round\n{}",
        report.summary()
    );
    let (failed_at, _) = failed[0];
    let after: Vec<u64> = c.hbms[2]
        .watched_writes()
        .iter()
        .copied()
        .filter(|&at| at > failed_at)
        .collect();
    assert!(
        after.is_empty(),
        "replica 2 wrote after its round failed, at {after:?}"
    );
    let r2 = &report.replicas[2];
    assert_eq!(
        ConfigError::from_code(r2.status.error as u64),
        Some(ConfigError::WriteFailed),
        "{}",
        report.summary()
    );
    assert!(r2.decided.is_empty());
    assert!(report
        .summary()
        .contains("replica 2 stopped (status code 8)"));
    // Replica 1 on the slow path; replica 0, whose own fast votes reach
    // nobody, may decide fast (it sees every other vote).
    for r in &report.replicas[..2] {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        let want: Vec<(u64, u32)> = (1..=slots)
            .map(|k| (k, proposal(cfg.seed, k - 1)))
            .collect();
        assert_eq!(got, want, "replica {}\n{}", r.id, report.summary());
        assert_eq!(r.status.error, 0);
    }
    assert!(report.replicas[1]
        .decided
        .iter()
        .all(|d| d.path == Path::Slow));
}
