//! Restarts and the rejoin (docs/recovery.md section 17, R29 to R33): a
//! replica restarts at any point, its state lost and its mailbox cleared,
//! and rejoins from a checkpoint certificate; the model checks the four
//! properties over every interleaving (docs/model.md, "Restarts").

mod common;

use stateright::Model;
use ubft_model::recovery::{Pc, Recovery, Variant};
use ubft_model::{run, Config, RunOpts, UbftModel};

/// n = 3, S = 2 at G = 2, views 0..=1, no held write, one restart.
fn restart_cfg(views: u8) -> Config {
    let mut c = Config::new(3, 2, 2, views);
    c.delays = 0;
    c.early_timeouts = 0;
    c.restarts = 1;
    c
}

fn kernel() -> Recovery {
    Recovery {
        variant: Variant::Kernel,
    }
}

#[test]
fn a_replica_that_restarts_at_any_point_rejoins_and_all_four_hold() {
    let with = run(kernel(), restart_cfg(1), &RunOpts::default());
    println!("{}", with.text());
    assert!(with.complete);
    assert!(with.all_hold(), "{}", with.text());
    // The restarts are explored: the same bounds without them are a small
    // fraction of the states.
    let mut c = restart_cfg(1);
    c.restarts = 0;
    let without = run(kernel(), c, &RunOpts::default());
    assert!(without.all_hold(), "{}", without.text());
    assert!(
        with.states > 100 * without.states,
        "{} states with a restart, {} without",
        with.states,
        without.states
    );
}

#[test]
fn a_restarted_replica_installs_a_checkpoint_and_decides_the_slot_after_it() {
    // The rejoin is reached, not vacuous: a replica that restarted (its
    // decisions so far are its past life's) installed the checkpoint of
    // slot 1 written after its restart, and then decided slot 2 while
    // another replica is silent and wrote no vote or COMMIT of slot 2 that
    // reached it: with f + 1 = 2 COMMITs or n votes needed, its own COMMIT
    // is one of them. So once it installed it counts as honest again, and
    // the one fault n = 3 tolerates may fall elsewhere.
    let m = UbftModel::new(kernel(), restart_cfg(1));
    let found = common::witness(&m, &m.init_states().remove(0), 3_000_000, |s| {
        (0..3).any(|r| {
            let rep = &s.reps[r];
            let h = &s.hbm[r];
            let sl = m.cfg.slot(2);
            rep.npast > 0
                && rep.base.c == 1
                && rep.log[..rep.nlog as usize].iter().any(|&(k, _)| k == 2)
                && (0..3).any(|x| {
                    x != r
                        && s.silent & (1 << x) != 0
                        && h.commit[sl][x].k != 2
                        && h.will_commit[sl][x].k != 2
                })
        })
    });
    let trace = found.expect("a restarted replica that installs slot 1 and decides slot 2");
    println!("{trace}");
    assert!(trace.contains("restarts"));
    assert!(trace.contains("R33 reads ckpt"));
    assert!(trace.contains("falls silent"));
}

#[test]
fn a_restarted_replica_does_nothing_until_it_installs() {
    // Every state where a replica is rejoining (a bounded part of the
    // run, breadth-first): it has decided nothing and is in no round of
    // its new life, so until it installs it acts as a silent replica, the
    // fault it counts as.
    let m = UbftModel::new(kernel(), restart_cfg(1));
    let found = common::witness(&m, &m.init_states().remove(0), 400_000, |s| {
        (0..3).any(|r| {
            let rep = &s.reps[r];
            rep.pc == Pc::Rejoin && (rep.nlog != 0 || rep.round != Default::default())
        })
    });
    assert!(found.is_none(), "{}", found.unwrap());
}

#[test]
fn recovery_without_the_deciders_share_stalls_after_a_restart_and_kernel_does_not() {
    // Views 0..=2: the rejoiner, a view ahead (its fence), delivers slot 2
    // fast in view 1 and bridges it, while the decider, also in view 1,
    // decided slot 2 on view-0 COMMITs and stopped; `recovery` has no
    // decider's share (D11.18) and stalls, `kernel` holds.
    let r = run(
        Recovery {
            variant: Variant::Full,
        },
        restart_cfg(2),
        &RunOpts::default(),
    );
    assert!(r.complete);
    assert!(!r.all_hold(), "{}", r.text());
    assert!(
        r.text().contains("live_with_f_silent   FAILS"),
        "{}",
        r.text()
    );
    let k = run(kernel(), restart_cfg(2), &RunOpts::default());
    assert!(k.complete);
    assert!(k.all_hold(), "{}", k.text());
}

/// The prefix of the stall without the floor: r0 proposes A, everyone
/// locks and delivers it fast and will_commits, r0 decides from the full
/// row and falls silent, r1 decides, and r2, which holds the two
/// checkpoints of slot 1, skips to slot 2 (R31) instead of deciding from
/// its row.
const SKIP_PREFIX: &[&[&str]] = &[
    &["r0 step: Propose (view 0, k 1)"],
    &["r1 step: Prepare (view 0, k 1)"],
    &["r2 step: Prepare (view 0, k 1)"],
    &["r0 step: Cert (view 0, k 1)"],
    &["r1 step: Cert (view 0, k 1)"],
    &["r2 step: Cert (view 0, k 1)"],
    &["r0 step: CommitWait (view 0, k 1)", "falls silent"],
    &["r1 step: CommitWait (view 0, k 1)"],
    &["r2 step: CommitWait (view 0, k 1) R31"],
];

#[test]
fn a_bridge_below_a_checkpoint_needs_the_floor() {
    // Views 0..=2, no restart needed: r2 skipped slot 1, where it had
    // sent a will_commit, and r0 is silent. r1 and r2 each bridge (R17)
    // the block of slot 1, whose certificate needs a second share that
    // nobody writes (r2 never certified it, having skipped). Without the
    // floor both wait for good (r2 ends at the view bound, which the
    // liveness property excuses, so the test looks for the bridge
    // itself). With it (R30, R31), each replica's L takes the floor of the
    // checkpoint certificate at slot 1, which covers its will_commit
    // there, and the bridge ends.
    let stuck = |off: u8| {
        let mut c = restart_cfg(2);
        c.rejoin_off = off;
        let m = UbftModel::new(kernel(), c);
        let (s, _) = common::replay(&m, SKIP_PREFIX);
        let found = common::explore_from(&m, s.clone(), 2_000_000);
        assert!(found.complete);
        assert_eq!(found.unsafe_states, 0);
        // Breadth-first from the prefix to a terminal state with a live
        // replica in Bridge.
        common::witness(&m, &s, 2_000_000, |t| {
            m.terminal(t) && (0..3).any(|r| m.live(t, r) && t.reps[r].pc == Pc::Bridge)
        })
    };
    let without = stuck(1).expect("a bridge that waits for good without the floor");
    println!("without the floor:\n{without}");
    assert!(without.contains("r1: Bridge"));
    assert!(stuck(0).is_none(), "{}", stuck(0).unwrap());
}

#[test]
fn without_the_fresh_checkpoint_a_rejoined_leaders_own_seal_fails_r21() {
    // Two restarts, views 0..=1, the rejoin taking the peer's checkpoints
    // with its registers (`fresh` left out): the second rejoiner installs
    // a checkpoint older than its restart, and a COMMIT of its earlier
    // life above that floor, delivered by a peer, makes its own SEAL fail
    // R21 at itself as the leader of view 1: the model's assertion of
    // D11.9 V9 (VIEW does not check a leader's own SEAL) fires. With the
    // fresh checkpoint the same bounds hold (the design's run).
    let mut c = restart_cfg(1);
    c.restarts = 2;
    c.rejoin_off = 8;
    let m = UbftModel::new(kernel(), c.clone());
    let hit = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        common::witness(&m, &m.init_states().remove(0), 20_000_000, |_| false);
    }));
    let e = hit.expect_err("the assertion fires");
    let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("D11.9 V9"), "{msg}");
    c.rejoin_off = 0;
    let with = run(kernel(), c, &RunOpts::default());
    assert!(with.complete);
    assert!(with.all_hold(), "{}", with.text());
}
