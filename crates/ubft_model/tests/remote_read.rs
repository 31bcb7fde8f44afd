//! docs/recovery.md section 11, the caveat's Byzantine form, and "A remote
//! read": a targeted search at n = 5 shows the stall for
//! `recovery:no_remote_read` and for `recovery:late_share`, and that
//! `kernel`, whose remote read reads a peer's will_cert row, ends it.
//!
//! The scenario is the soak's seed 484,426 reduced to its core: n = 5
//! (f = 2), S = 1, G = 1, views 0..=2, the leader r0 silent after its
//! PREPARE and r1 Byzantine with one write. That is the prefix
//! (`PREFIX`), replayed by its lines: r0 proposes A and falls silent; r2,
//! r3 and r4 lock A; r1 writes its will_cert of (v0, k1, A) into r2's
//! HBM only, and r2 reads n locks and delivers fast. From the state after
//! it every reachable state is explored breadth-first, completely (the
//! fault budget and the Byzantine write are spent, nothing is held back:
//! what is left is every order of r2's, r3's and r4's steps and
//! timeouts), with agreement, validity, integrity and `live_with_f_silent`
//! checked on each.
//!
//! What it finds (the tests assert it):
//! - `recovery:no_remote_read` and `recovery:late_share`: nothing unsafe,
//!   and the stall.
//!   r2 bridges its will_commit of (v0, k1, A) for good (W's certificate
//!   needs f + 1 = 3 shares; r3 and r4 sealed view 0 with four locks and
//!   no leader signature, and their rows never show r1's lock, so the late
//!   share never fires); r3 and r4 seal their way to the view bound.
//! - `kernel`: nothing unsafe, and no failing state leaves a
//!   replica in Bridge (the failing states are every replica at the view
//!   bound, the model's unordered timers). r3 and r4, awaiting NEW_VIEW(1) with the lock they
//!   sealed view 0 with, read r2's will_cert row, find the four locks that
//!   with the leader's lane (their own lock on r0's PREPARE) are n (r1's
//!   lane there is what r1 wrote through r2's guard), and write their shares; r2's bridge
//!   commits W with f + 1 shares, and the view change carries A.

mod common;

use common::{assert_reached, explore_from, replay, Found};
use ubft_model::recovery::{Recovery, Variant};
use ubft_model::{Config, UbftModel};

fn cfg(views: u8, live_views: u8) -> Config {
    // n = 5 (f = 2), S = 1, G = 1, views 0..=2; one silent replica beside
    // the Byzantine r1 with one write; no held write, no early timeout;
    // L = 1 (the last asynchronous event is in view 0).
    let mut c = Config::new(5, 1, 1, views);
    c.silent = 1;
    c.byzantine = Some(1);
    c.byz_writes = 1;
    c.early_timeouts = 0;
    c.delays = 0;
    c.live_views = live_views;
    c
}

/// The prefix: each action is picked by its line, which starts with the
/// first fragment and contains the others.
const PREFIX: [&[&str]; 5] = [
    &[
        "r0 step: Propose (view 0, k 1) R3: proposes A",
        "then r0 falls silent",
    ],
    &["r2 step: Prepare (view 0, k 1) R4 reads prepare[0] = (v0, k1, A, prev -) → locks"],
    &["r3 step: Prepare (view 0, k 1) R4 reads prepare[0] = (v0, k1, A, prev -) → locks"],
    &["r4 step: Prepare (view 0, k 1) R4 reads prepare[0] = (v0, k1, A, prev -) → locks"],
    &[
        "forge r1→r2 (Byzantine): will_cert[0][1] = (tag(0,1), A)",
        "then r2 step: Cert (view 0, k 1) R5",
    ],
];

/// The stall: r2 bridges its will_commit of A in view 0.
fn bridged(who: &str) -> bool {
    who.contains("r2: Bridge view 0 k 1 m A phase 2 delivered (v0, k1, A, prev -) L - will_commit (tag(0,1), A)")
}

fn search(v: Variant, views: u8, live_views: u8) -> Found {
    let m = UbftModel::new(Recovery { variant: v }, cfg(views, live_views));
    let (start, lines) = replay(&m, &PREFIX);
    let found = explore_from(&m, start, 5_000_000);
    println!(
        "{}, views 0..={views}, L = {live_views}: {}",
        v.name(),
        found.summary()
    );
    let kinds = found.kinds();
    for (who, c) in &kinds {
        println!("  {c} failing state(s): {who}");
    }
    if let Some(f) = found
        .fails
        .iter()
        .find(|f| bridged(&f.1))
        .or(found.fails.first())
    {
        println!(
            "a failure, {} actions after the prefix:\n{}\n{}",
            f.0,
            lines.join("\n"),
            f.2
        );
    }
    found
}

/// `recovery:no_remote_read`: the Byzantine form of the caveat stalls.
#[test]
fn no_remote_read_stalls_in_the_byzantine_form() {
    let found = search(Variant::NoRemoteRead, 4, 3);
    assert_reached(
        &found,
        "recovery:no_remote_read",
        bridged,
        "r2 left in Bridge",
    );
}

/// `recovery:late_share`: r3's and r4's own rows never show r1's lock, so
/// the late share does not end it.
#[test]
fn late_share_does_not_end_the_byzantine_form() {
    let found = search(Variant::LateShare, 4, 3);
    assert_reached(&found, "recovery:late_share", bridged, "r2 left in Bridge");
}

/// `kernel` (the remote read): complete, nothing unsafe, no replica left in
/// Bridge, and every honest replica decides in some terminal state. What
/// still fails `live_with_f_silent` is the view bound under unordered
/// timers: one replica times out of every view before another leaves
/// its first (a timer fires whenever no replica can step).
#[test]
fn remote_read_ends_the_byzantine_form() {
    let found = search(Variant::Kernel, 4, 3);
    assert!(found.complete, "not complete");
    assert_eq!(found.unsafe_states, 0, "a safety property fails");
    assert!(
        !found.fails.iter().any(|f| f.1.contains("Bridge")),
        "a replica stays in Bridge"
    );
    assert!(
        found.terminal > found.stalls,
        "no terminal state where every honest replica decided"
    );
}
