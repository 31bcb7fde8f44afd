//! The lone bridge at n = 3: a leader delivers fast after a follower
//! sealed, and bridges its will_commit alone. The model shows the stall,
//! for `recovery:no_remote_read` (the kernel without its remote read) and
//! for `recovery`, by a targeted search, and that `kernel`'s remote read
//! ends it; `recovery:no_remote_read` at the default bounds (`cargo xtask
//! model`'s: views 0..=1, L = f + 2 = 3) reaches the same
//! terminal state and excuses it ("the view bound cut the run before L
//! synchronous views", `UbftModel::excuse`).
//!
//! The scenario: n = 3 (f = 1), S = 1, G = 1, at most one silent replica,
//! one held write, no early timeout. The view-0 leader r0 proposes A and
//! the network holds back its PREPARE to r2; r1 locks A, times out of
//! Cert and of Slow into Bridge; r0's PREPARE lands at r2; r1, with two
//! locks of the three, seals view 0 with L = -; r2 locks A and falls
//! silent; r0 now reads n locks, delivers A fast, writes its will_commit,
//! times out of CommitWait (its prep_sig and its CERT share) and of Slow
//! into Bridge on W = (v0, k1, A). That is the prefix (`PREFIX`), replayed
//! by its lines. From the state after it every reachable state is
//! explored breadth-first, completely, with agreement, validity, integrity
//! and `live_with_f_silent` checked on each.
//!
//! What it finds (the tests assert it): nothing unsafe, and one path only
//! (the fault budget and the held write are spent, r2 is silent and r0
//! has no step): r0 waits in Bridge for good (Bridge has no timer; W's
//! certificate needs f + 1 = 2 shares and only r0 signs one: r1 sealed
//! view 0 before the third lock landed, so it never delivers A nor shares
//! it), while r1 times out of AwaitNv and seals view after view (a
//! NEW_VIEW needs f + 1 = 2 SEALs and r0 never seals; r1 leads views 1
//! and 4 and waits for r0's SEAL there in vain) up to the view bound,
//! where it stops. The terminal state is r0 in Bridge in view 0 and r1
//! Capped at the top view, with the last asynchronous event at view 0: with
//! views 0..=V and L = 3 it counts against liveness once V ≥ 3 (views 0..=4
//! in the tests below), and is excused for V ≤ 2, the default's V = 1
//! included (`the_default_bound_excuses_it`).
//!
//! It is the caveat of docs/recovery.md section 11 ("the bridge of a
//! will_commit that nobody else could deliver") at f = 1, through one
//! slot: the receiver that fails (r2) locks first, and the honest leader
//! does sign (R7), but r1 has sealed view 0 by then: its timers fire while
//! r0 waits for the held PREPARE's lock, and a replica in a higher view
//! reads neither the third lock nor the prep_sig of view 0. The view bound
//! hides it because r1 keeps timing out; recovery.md D11.14 gives the run
//! with the new leader's timeout taken out, where r1 waits in AwaitNv of
//! view 1 and the default run fails in these ten actions.
//!
//! Measured (release, `CARGO_TARGET_DIR=/work/tmp/target_lb cargo test
//! --release -p ubft_model --test n3_lone_bridge -- --nocapture`; the
//! design at commit 0d02101), from the prefix's end, for each design:
//! 8 states, complete, BFS depth 7, 1 terminal, 1 failing
//! `live_with_f_silent` (the stall, 7 actions after the prefix), none
//! unsafe; under 1 ms.

mod common;

use common::{assert_reached, explore_from, replay, Found, St};
use stateright::Model;
use ubft_model::recovery::{Recovery, Variant};
use ubft_model::{defaults, Config, UbftModel};

fn cfg(views: u8, live_views: u8) -> Config {
    // n = 3 (f = 1), S = 1, G = 1, views 0..=views; up to one silent
    // replica, one held write, no early timeout, L = live_views.
    let mut c = Config::new(3, 1, 1, views);
    c.silent = 1;
    c.early_timeouts = 0;
    c.delays = 1;
    c.live_views = live_views;
    c
}

/// The prefix: each action is picked by its line, which starts with the
/// first fragment and contains the others; a line holds back writes or
/// falls silent only where a fragment says so.
const PREFIX: [&[&str]; 10] = [
    &[
        "r0 step: Propose (view 0, k 1) R3: proposes A",
        "the network holds back its write to r2",
    ],
    &["r1 step: Prepare (view 0, k 1) R4 reads prepare[0] = (v0, k1, A, prev -) → locks"],
    &["r1 timeout: Cert (view 0, k 1) → the slow path (R7, R9)"],
    &["r1 timeout: Slow (view 0, k 1) → view change (R14, R15, R16)"],
    &["land r0→r2 (held back until now): prepare[0] = (v0, k1, A, prev -)"],
    &["r1 step: Bridge (view 0, k 1) R18 → seals with L = -"],
    &[
        "r2 step: Prepare (view 0, k 1) R4 reads prepare[0] = (v0, k1, A, prev -) → locks",
        "then r2 falls silent",
    ],
    &[
        "r0 step: Cert (view 0, k 1) R5 reads will_cert[0]",
        "n locks for (tag(0,1), A): delivered (fast); writes will_commit",
    ],
    &["r0 timeout: CommitWait (view 0, k 1) → the slow path (R7, R9)"],
    &[
        "r0 timeout: Slow (view 0, k 1) → view change (R14, R15, R16)",
        "[→ Bridge, view 0]",
    ],
];

/// The lone bridge exactly: r0 bridges its will_commit of A in view 0
/// (Bridge has no timer), r1 sealed its way up to the view bound and
/// stopped there, r2 is silent.
fn the_stall(who: &str, views: u8) -> bool {
    who.contains("r0: Bridge view 0 k 1 m A phase 2 delivered (v0, k1, A, prev -) L - will_commit (tag(0,1), A)")
        && who.contains(&format!(
            "r1: Capped view {views} k 1 m - phase 0 delivered - L - will_commit -"
        ))
        && !who.contains("r2:")
}

/// Every state from the end of `prefix` (the whole PREFIX, or its first
/// actions), explored; the failing states and the first trace of the lone
/// bridge printed.
fn search(v: Variant, views: u8, live_views: u8, prefix: &[&[&str]]) -> Found {
    let m = UbftModel::new(Recovery { variant: v }, cfg(views, live_views));
    let (start, lines) = replay(&m, prefix);
    let found = explore_from(&m, start, 1_000_000);
    println!(
        "{}, views 0..={views}, L = {live_views}, after {} actions: {}",
        v.name(),
        prefix.len(),
        found.summary()
    );
    for (_, who, _) in &found.fails {
        println!("  failing state: {who}");
    }
    if let Some(f) = found.fails.iter().find(|f| the_stall(&f.1, views)) {
        println!(
            "first failure that is the lone bridge exactly, {} actions after the prefix:\n{}\n{}",
            f.0,
            lines.join("\n"),
            f.2
        );
    }
    found
}

/// The check for one design: the exploration completes, nothing is unsafe,
/// and the lone bridge is reached (the trace is printed).
fn check(v: Variant, views: u8, live_views: u8) {
    let found = search(v, views, live_views, &PREFIX);
    assert_reached(
        &found,
        v.name(),
        |who| the_stall(who, views),
        "the lone bridge",
    );
}

/// Views 0..=4, L = 3: 8 states, complete, BFS depth 7, 1 terminal, 1
/// failing `live_with_f_silent` (the lone bridge, r1 Capped at view 4, 4
/// views after the last asynchronous event), none unsafe; under 1 ms.
#[test]
fn no_remote_read_n3_lone_bridge() {
    check(Variant::NoRemoteRead, 4, 3);
}

/// The same search on `recovery`: the same 8 states and the same stall
/// (its Bridge has no timer either, and its seal is the same R18 seal).
#[test]
fn recovery_n3_lone_bridge() {
    check(Variant::Full, 4, 3);
}

/// From the prefix's end the run is forced (one action enabled at each
/// state) to the lone bridge's terminal state, with r1 Capped at the top
/// view V. With L = 3 (the default f + 2) that state is excused for V ≤ 2,
/// the default run's views 0..=1 included, and counts from V = 3 on.
#[test]
fn the_default_bound_excuses_it() {
    for views in 1..=4 {
        let mut c = cfg(views, 3);
        if views == defaults::VIEWS {
            // The default run's configuration exactly.
            c = Config::new(
                defaults::REPLICAS,
                defaults::SLOTS,
                defaults::WINDOW,
                defaults::VIEWS,
            );
            c.delays = defaults::DELAYS;
            c.early_timeouts = defaults::EARLY_TIMEOUTS;
        }
        let m = UbftModel::new(
            Recovery {
                variant: Variant::NoRemoteRead,
            },
            c,
        );
        let (mut s, _) = replay(&m, &PREFIX);
        let end: St = loop {
            let mut acts = vec![];
            m.actions(&s, &mut acts);
            match acts.len() {
                0 => break s,
                1 => s = m.next_state(&s, acts.remove(0)).expect("a step"),
                k => panic!("views 0..={views}: {k} actions enabled, one expected"),
            }
        };
        let lines = m.describe_state(&end);
        println!("views 0..={views}: {:?}", m.excuse(&end));
        assert!(
            m.terminal(&end) && !m.all_decided(&end),
            "views 0..={views}: not a stall"
        );
        assert!(
            the_stall(&lines[..2].join("\n"), views),
            "views 0..={views}: not the lone bridge:\n{}",
            lines.join("\n")
        );
        let excused = m.excuse(&end);
        if views <= 2 {
            assert_eq!(
                excused,
                Some("the view bound cut the run before L synchronous views"),
                "views 0..={views}"
            );
            assert!(m.live_with_f_silent(&end));
        } else {
            assert_eq!(excused, None, "views 0..={views}");
            assert!(!m.live_with_f_silent(&end));
        }
    }
}

/// `recovery:late_share` (a candidate, not built): r1 sealed view 0 with
/// its lock on A undelivered and keeps it; once r2's lock lands, r1 reads
/// n locks, delivers A and writes its share of (v0, k1, A), and r0's
/// bridge finds f + 1 = 2 shares. The late share is enabled as soon as r0
/// has delivered, before r0's timeouts (the model's timers fire only when
/// no replica can step), so the search starts after the prefix's eighth
/// action (r0's delivery): complete, nothing unsafe, and no failing state
/// leaves a replica in Bridge (the one that fails liveness has both live
/// replicas at the view bound, r1 having timed out of every view before
/// r0 left CommitWait: the model's unordered timers);
/// `recovery:no_remote_read`, from the
/// same start, reaches the lone bridge.
#[test]
fn late_share_ends_the_n3_lone_bridge() {
    let late = search(Variant::LateShare, 4, 3, &PREFIX[..8]);
    let without = search(Variant::NoRemoteRead, 4, 3, &PREFIX[..8]);
    assert!(late.complete && without.complete, "not complete");
    assert_eq!(
        late.unsafe_states + without.unsafe_states,
        0,
        "a safety property fails"
    );
    assert!(without.fails.iter().any(|f| the_stall(&f.1, 4)));
    assert!(
        !late.fails.iter().any(|f| f.1.contains("Bridge")),
        "a replica stays in Bridge"
    );
}

/// `kernel` (the remote read: the late share, with the n locks read in a
/// peer's will_cert row) from the same start: complete, nothing unsafe, and no failing
/// state leaves a replica in Bridge.
#[test]
fn remote_read_ends_the_n3_lone_bridge() {
    let found = search(Variant::Kernel, 4, 3, &PREFIX[..8]);
    assert!(found.complete, "not complete");
    assert_eq!(found.unsafe_states, 0, "a safety property fails");
    assert!(
        !found.fails.iter().any(|f| f.1.contains("Bridge")),
        "a replica stays in Bridge"
    );
}
