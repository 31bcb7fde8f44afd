//! R17's former early end loses agreement: a bridge discharged by a
//! certificate of the slot after W's, with nothing committed, lets a
//! Byzantine replica carry nothing into the next view, and a laggard then
//! decides another value at W's slot. The model shows it on
//! `recovery:discharge_b1` (`kernel` with that discharge, as the RTL built
//! it) by replaying the trace below. In `kernel` and `recovery`, which
//! end a bridge only by a COMMIT at W's slot or above or by a decision of
//! another value there, the discharge step does not exist: the bridging
//! replica commits the certificate instead, and the laggard learns the
//! decided value from that COMMIT.
//!
//! The configuration: n = 3 (f = 1), S = 2, G = 2, views 0..=1, r1
//! Byzantine with nine writes, no silent replica, no held write, no early
//! timeout. The trace (`TRACE`, replayed by its lines):
//!
//! 1. r0, the view-0 leader, proposes A at k = 1; r2 locks it; r1 writes
//!    its lock of A to both, so both read n locks, deliver A fast and write
//!    their will_commits; r1 writes its will_commit to r0 only, and r0
//!    decides k = 1 = A on the full row.
//! 2. r0 proposes B at k = 2 (prev A), times out into the slow path (r2,
//!    at k = 1, never locks it), delivers (v0, k2, B, A) slowly and
//!    certifies it, and times out into the view change, with W = (v0, k1,
//!    A) and its R16 share of it.
//! 3. r1 writes its share of (v0, k2, B, A) to r0: a certificate of k = 2
//!    whose prev is W.m. With the discharge, r0 seals view 0 with L = -
//!    and commits nothing.
//! 4. r2 times out of CommitWait (r1's will_commit never reached it),
//!    commits (v0, k1, A) on its and r0's shares, times out and seals view
//!    0 with L = (v0, k1, A).
//! 5. r1, the leader of view 1, writes to r2 a NEW_VIEW of r0's SEAL and
//!    its own, both without L: r2 accepts it, with no constraint.
//! 6. r1 proposes B at k = 1 in view 1 and signs it; r2 delivers it
//!    slowly, certifies it, commits it with r1's share, counts r1's COMMIT
//!    and decides k = 1 = B. r0 decided A.
//!
//! Measured (release, `cargo test --release -p ubft_model --test
//! discharge -- --nocapture`): the trace's 24 actions end with r0's
//! k = 1 = A and r2's k = 1 = B. Without the discharge, from the state
//! after `FIXED`, breadth-first to the cap of 300,000 states, depth 7:
//! none unsafe, for `kernel` and for `recovery` (about 10 s each); the
//! search is not complete (five Byzantine writes are left).

mod common;

use common::{explore_from, replay};
use stateright::Model;
use ubft_model::recovery::{Recovery, Variant};
use ubft_model::{Config, UbftModel};

fn cfg() -> Config {
    // n = 3, S = 2, G = 2, views 0..=1; r1 Byzantine with nine writes
    // (the trace's), nothing silent, no held write, no early timeout.
    let mut c = Config::new(3, 2, 2, 1);
    c.silent = 0;
    c.byzantine = Some(1);
    c.byz_writes = 9;
    c.early_timeouts = 0;
    c.delays = 0;
    c
}

/// The trace: each action is picked by its line, which starts with the
/// first fragment and contains the others.
const TRACE: [&[&str]; 24] = [
    &["r0 step: Propose (view 0, k 1)"],
    &["r2 step: Prepare (view 0, k 1)"],
    &[
        "forge r1→r0 (Byzantine): will_cert[0][1] = (tag(0,1), A)",
        "n locks",
    ],
    &[
        "forge r1→r2 (Byzantine): will_cert[0][1] = (tag(0,1), A)",
        "n locks",
    ],
    &[
        "forge r1→r0 (Byzantine): will_commit[0][1] = (tag(0,1), A)",
        "full row",
    ],
    &["r0 step: Propose (view 0, k 2)"],
    &["r0 timeout: Cert (view 0, k 2)"],
    &["r0 step: Slow (view 0, k 2) R8.1"],
    &["r0 step: Slow (view 0, k 2) R8.2"],
    &["r0 timeout: Slow (view 0, k 2) → view change"],
    // Step 3: the discharge (`recovery:discharge_b1` only).
    &[
        "forge r1→r0 (Byzantine): certify[1][1] = share (v0, k2, B, prev A)",
        "R17 discharged",
    ],
    &["r2 timeout: CommitWait (view 0, k 1)"],
    &["r2 step: Slow (view 0, k 1) R10"],
    &["r2 timeout: Slow (view 0, k 1) → view change"],
    &["r2 step: Bridge (view 0, k 1) R18"],
    &["forge r1→r2 (Byzantine): new_view = NEW_VIEW(1) [r0: (view 0, L -), r1: (view 0, L -)]"],
    &[
        "r2 step: AwaitNv (view 1, k 1) R21/R22",
        "accepts NEW_VIEW(1): constraint -",
    ],
    &["forge r1→r2 (Byzantine): prepare[0] = (v1, k1, B, prev -)"],
    &[
        "forge r1→r2 (Byzantine): prep_sig[0] = σ(PREP (v1, k1, B, prev -))",
        "R8.1",
    ],
    &["r2 step: Cert (view 1, k 1) R8.2"],
    &["r2 timeout: Cert (view 1, k 1)"],
    &[
        "forge r1→r2 (Byzantine): certify[0][1] = share (v1, k1, B, prev -)",
        "R10",
    ],
    &[
        "forge r1→r2 (Byzantine): commit[0][1] = COMMIT (v1, k1, B, prev -)",
        "R11.1",
    ],
    &["r2 step: Slow (view 1, k 1) R11.3", "decides k 1 = B"],
];

/// The actions before the discharge.
const BEFORE_DISCHARGE: usize = 10;

fn model(v: Variant) -> UbftModel<Recovery> {
    UbftModel::new(Recovery { variant: v }, cfg())
}

/// The discharge loses agreement: at the trace's end r0 decided k = 1 = A
/// and r2 decided k = 1 = B.
#[test]
fn the_discharge_by_a_certificate_of_b_plus_1_loses_agreement() {
    let m = model(Variant::DischargeB1);
    let (end, lines) = replay(&m, &TRACE);
    println!("{}", lines.join("\n"));
    let state = m.describe_state(&end);
    println!("{}", state.join("\n"));
    assert!(!m.agreement(&end));
    assert!(state[0].contains("decided [k1=A]"), "{}", state[0]);
    assert!(state[2].contains("decided [k1=B]"), "{}", state[2]);
}

/// The trace with step 3 as the design has it: r1's share lands, and r0,
/// bridging, commits (v0, k2, B, A) (R10 on the slot it holds), so its
/// SEAL carries L = (v0, k2, B, A).
const FIXED: [&[&str]; 2] = [
    &[
        "forge r1→r0 (Byzantine): certify[1][1] = share (v0, k2, B, prev A)",
        "R10 reads certify[1]",
    ],
    &["r0 step: Bridge (view 0, k 2) R18 → seals with L = (v0, k2, B, prev A)"],
];

/// r2's way from there to k = 1 = A: R24 on r0's COMMIT of k = 2, whose
/// prev is A (in `kernel` after its timeout into Slow: WATCH is off in
/// CommitWait, D11.9 V7).
fn r2_learns_a(v: Variant) -> Vec<&'static [&'static str]> {
    let r24: &[&str] = &[
        "r2 step:",
        "R24 finds a certificate for slot 2",
        "decides k 1 = A",
    ];
    match v {
        Variant::Kernel => vec![&["r2 timeout: CommitWait (view 0, k 1)"], r24],
        _ => vec![r24],
    }
}

/// Without the discharge, step 3 is not enabled: in Bridge r0 commits
/// before it seals (`FIXED`). r2 then decides k = 1 = A by R24 on r0's
/// COMMIT, which settles k = 1 (a replica decides a slot once), and
/// breadth-first from the state after `FIXED`, up to `CAP` states, no
/// state breaks agreement, validity or integrity.
fn holds_without_the_discharge(v: Variant) {
    let m = model(v);
    let (mid, _) = replay(&m, &TRACE[..BEFORE_DISCHARGE]);
    let mut acts = vec![];
    m.actions(&mid, &mut acts);
    assert!(
        acts.iter()
            .all(|a| !m.describe(&mid, a).contains("R17 discharged")),
        "{}: the discharge is enabled",
        v.name()
    );
    let path: Vec<&[&str]> = TRACE[..BEFORE_DISCHARGE]
        .iter()
        .chain(FIXED.iter())
        .copied()
        .collect();
    let (start, _) = replay(&m, &path);
    let learns: Vec<&[&str]> = path.iter().copied().chain(r2_learns_a(v)).collect();
    let (end, _) = replay(&m, &learns);
    assert!(m.describe_state(&end)[2].contains("decided [k1=A]"));
    let found = explore_from(&m, start, CAP);
    println!("{}: {}", v.name(), found.summary());
    assert_eq!(
        found.unsafe_states,
        0,
        "{}: a safety property fails",
        v.name()
    );
}

/// States explored at most from the state after `FIXED` (not every
/// reachable state: with five Byzantine writes left the space is larger).
const CAP: usize = 300_000;

#[test]
fn kernel_keeps_agreement_without_the_discharge() {
    holds_without_the_discharge(Variant::Kernel);
}

#[test]
fn recovery_keeps_agreement_without_the_discharge() {
    holds_without_the_discharge(Variant::Full);
}
