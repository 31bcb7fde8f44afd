//! The `current` design under reduced bounds: the checker can fail (a silent
//! replica stops every decision; before R26, one held write stalls an honest
//! cluster, E3),
//! agreement holds in the explored space, and its state graph has no cycle
//! (so "terminal" covers every run's end). The model's records are checked
//! against its layout in `src/current/mailbox.rs`.

use stateright::Model;
use ubft_model::check::{acyclic, RunOpts};
use ubft_model::current::Current;
use ubft_model::model::{Action, UbftModel};
use ubft_model::{run, Config};

fn opts() -> RunOpts {
    RunOpts {
        threads: 1,
        ..RunOpts::default()
    }
}

/// n = 3, S slots, window 1 (slot 2 reuses slot 1's entries), views 0..=V,
/// with no asynchrony and no silence unless a test adds it.
fn cfg(slots: usize, views: u8) -> Config {
    let mut c = Config::new(3, slots, 1, views);
    c.silent = 0;
    c.early_timeouts = 0;
    c.delays = 0;
    c
}

#[test]
fn a_silent_replica_stops_every_decision() {
    let mut c = cfg(1, 1);
    c.silent = 1;
    let r = run(Current::ALL_N, c, &opts());
    assert!(r.complete);
    assert!(r.property("agreement").holds);
    let live = r.property("live_with_f_silent");
    assert!(!live.holds);
    let ce = live.counterexample.as_ref().unwrap().join("\n");
    println!("{ce}");
    // Someone falls silent, the others start a view change, and the view
    // change waits for all n records for good: a terminal state with
    // nothing decided.
    assert!(
        ce.contains("falls silent") || ce.contains("silent from the start"),
        "{ce}"
    );
    assert!(ce.contains("VcStart: view 1"), "{ce}");
    assert!(ce.contains("2 of 3 valid records"), "{ce}");
    assert!(!ce.contains("decides"), "{ce}");
    assert!(ce.contains("terminal: no action is enabled"), "{ce}");
    assert!(ce.contains("decided []"), "{ce}");
}

#[test]
fn with_everyone_timely_every_slot_is_decided() {
    // Synchronous, nobody silent: every run decides both slots (the
    // checker passes what it should).
    let r = run(Current::ALL_N, cfg(2, 2), &opts());
    assert!(r.complete);
    assert!(r.all_hold(), "{}", r.text());
}

#[test]
fn agreement_holds_with_a_held_write_a_silent_replica_and_a_reused_slot() {
    let mut c = cfg(2, 1);
    c.silent = 1;
    c.delays = 1;
    let r = run(Current::ALL_N, c, &opts());
    println!("{}", r.text());
    assert!(r.complete);
    assert!(r.property("agreement").holds);
    assert!(r.property("validity").holds);
    assert!(r.property("integrity").holds);
    assert!(!r.property("live_with_f_silent").holds);
}

#[test]
fn without_r26_one_held_will_commit_stalls_an_honest_cluster_for_good() {
    // Audit E3, with every replica honest and nobody silent: one write held
    // back once, everything else synchronous. The kernel before R26 (its
    // catch-up looked under tag(vote_view, k) only).
    // Views 0..=3; a run cut there after L = 2 views without a decision
    // since the held write landed counts against liveness.
    let mut c = cfg(2, 3);
    c.delays = 1;
    c.live_views = 2;
    let r = run(
        Current::NO_R26,
        c,
        &RunOpts {
            threads: 2,
            ..RunOpts::default()
        },
    );
    assert!(r.property("agreement").holds);
    let live = r.property("live_with_f_silent");
    assert!(!live.holds);
    let ce = live.counterexample.as_ref().unwrap().join("\n");
    println!("{ce}");
    assert!(!ce.contains("silent"), "{ce}");
    // The held write is a will_commit for k = 1, the laggard's own HBM ends
    // up holding the full view-0 quorum, and it never decides k = 1.
    assert!(ce.contains("the network holds back its write"), "{ce}");
    assert!(
        ce.contains("land r") && ce.contains("will_commit[0]"),
        "{ce}"
    );
    assert!(
        ce.contains("no full quorum under tag(1,1)")
            || ce.contains("no full quorum under tag(2,1)"),
        "{ce}"
    );
    assert!(ce.contains("without a decision"), "{ce}");
}

#[test]
fn with_r26_one_held_will_commit_no_longer_stalls_an_honest_cluster() {
    // The same bounds as above, the kernel as built: the laggard's catch-up
    // finds the full view-0 row for k = 1 under any view (R26), decides it,
    // and every run decides both slots: complete, all four properties hold.
    let mut c = cfg(2, 3);
    c.delays = 1;
    c.live_views = 2;
    let r = run(Current::ALL_N, c.clone(), &opts());
    assert!(r.complete);
    assert!(r.all_hold(), "{}", r.text());
    // And with a timeout that may fire at any time instead of views 0..=3.
    let mut c = cfg(2, 2);
    c.delays = 1;
    c.early_timeouts = 1;
    let r = run(Current::ALL_N, c, &opts());
    assert!(r.complete);
    assert!(r.all_hold(), "{}", r.text());
}

#[test]
fn the_state_graph_has_no_cycle() {
    // So every run ends in a terminal state, which is where liveness is
    // judged (docs/model.md).
    let mut c = cfg(2, 1);
    c.silent = 1;
    c.early_timeouts = 1;
    let m = UbftModel::new(Current::ALL_N, c.clone());
    let visited = acyclic(&m).expect("no cycle");
    println!("{visited} states, no cycle");
    let mut c = cfg(1, 1);
    c.delays = 1;
    c.byzantine = Some(1);
    c.byz_writes = 2;
    assert!(acyclic(&UbftModel::new(Current::ALL_N, c)).is_some());
}

/// A Byzantine r0 that may write 5 times, one slot, views 0..=0, one value.
fn forging_leader() -> Config {
    let mut c = cfg(1, 0);
    c.values = 1;
    c.byzantine = Some(0);
    c.byz_writes = 5;
    c
}

#[test]
fn without_requests_a_byzantine_leader_gets_a_forged_value_decided() {
    // Validity as the simulator checks it (a decided value was proposed by a
    // client): before the `requests` block the kernel did not check client
    // values, so a Byzantine leader that proposes one of its own, and votes
    // for it, gets it decided.
    // Views 0..=0: the lie needs no view change.
    let r = run(Current::NO_REQUESTS, forging_leader(), &opts());
    assert!(r.property("agreement").holds);
    let v = r.property("validity");
    assert!(!v.holds);
    let ce = v.counterexample.as_ref().unwrap().join("\n");
    println!("{ce}");
    assert!(
        ce.contains("forge r0→r1 (Byzantine): prepare[0] = (k 1, m X"),
        "{ce}"
    );
    assert!(ce.contains("decides k 1 = X"), "{ce}");
}

#[test]
fn with_requests_a_forged_value_is_never_decided() {
    // R2 (recovery.md section 4), as the kernel checks it: an honest replica
    // votes only for a client value it holds, so the same budget forges
    // nothing. With a view change the forger can also lie in its records;
    // the installed prepare is checked the same way.
    let r = run(Current::ALL_N, forging_leader(), &opts());
    assert!(r.complete);
    assert!(r.property("agreement").holds);
    assert!(r.property("validity").holds, "{}", r.text());
    assert!(r.property("integrity").holds);
    let mut c = cfg(1, 2);
    c.byzantine = Some(0);
    c.byz_writes = 3;
    let r = run(Current::ALL_N, c, &opts());
    assert!(r.complete);
    assert!(r.property("agreement").holds);
    assert!(r.property("validity").holds, "{}", r.text());
    assert!(r.property("integrity").holds);
}

#[test]
fn every_action_the_harness_offers_changes_the_state() {
    // A stutter would be a cycle; the checker's actions are all real steps.
    let mut c = cfg(2, 1);
    c.silent = 1;
    c.delays = 1;
    let m = UbftModel::new(Current::ALL_N, c);
    let s = &m.init_states()[0];
    let mut a = vec![];
    m.actions(s, &mut a);
    assert!(a.iter().any(|a| matches!(a, Action::Silence(0))));
    for act in a {
        let t = m.next_state(s, act.clone());
        assert!(t.as_ref() != Some(s), "{act:?} changes nothing");
    }
}
