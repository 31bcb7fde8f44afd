//! Grants, row by row of docs/grants.md: which event is acted on at which
//! poll point, what it starts, and which events are taken at once. The
//! block is combinational: each case sets the inputs and reads the
//! outputs.

use rhdl_ubft::controller::grants::Grants;
use rhdl_ubft::controller::watch::ev;
use rust_hdl::prelude::*;

const PREV: u64 = 0x50;
/// W's m: an event on it ends no bridge.
const W_M: u64 = 0x77;

/// Where the slot's holder is.
#[derive(Clone, Copy, PartialEq)]
enum At {
    /// SLOW at a poll point in normal mode.
    SlowPoint,
    /// SLOW holding the slot in normal mode, between its polls.
    SlowBusy,
    /// SLOW at a poll point in seal mode (the bridge).
    Bridge,
    /// VIEW at a catch-up poll point.
    Catch,
    /// VIEW awaiting a NEW_VIEW, at that wait's poll point.
    Await,
    /// Nobody at a poll point.
    Busy,
}

#[derive(Clone, Copy)]
struct Case {
    kind: u64,
    prev: u64,
    at: At,
    sg_busy: bool,
    running: bool,
    cc_busy: bool,
    cc_passed: bool,
    /// Protocol's `adopt_ok` (recovery.md D11.13).
    adopt_ok: bool,
    /// Protocol's `adopt_next_ok` (recovery.md R17).
    adopt_next_ok: bool,
    /// k is a rerun slot (R23; recovery.md D11.15).
    rerun: bool,
    /// Ledger's `reach_ok` (recovery.md D11.16).
    reach_ok: bool,
}

fn case(kind: u64, at: At) -> Case {
    Case {
        kind,
        prev: PREV,
        at,
        sg_busy: false,
        running: true,
        cc_busy: false,
        cc_passed: false,
        adopt_ok: false,
        adopt_next_ok: false,
        rerun: false,
        reach_ok: true,
    }
}

/// The outputs that are high.
fn run(c: Case) -> Vec<&'static str> {
    let mut b = Grants::default();
    b.connect_all();
    b.ev_valid.next = true;
    b.ev_kind.next = c.kind.into();
    b.ev_prev.next = c.prev.into();
    b.running.next = c.running;
    b.rerun.next = c.rerun;
    b.prev.next = PREV.into();
    b.slow_holding.next = matches!(c.at, At::SlowPoint | At::SlowBusy | At::Bridge);
    b.slow_seal.next = c.at == At::Bridge;
    b.slow_deliver.next = false;
    b.slow_at_poll.next = matches!(c.at, At::SlowPoint | At::Bridge);
    b.view_awaiting.next = c.at == At::Await;
    b.view_await_poll.next = c.at == At::Await;
    b.view_catch_poll.next = c.at == At::Catch;
    b.cc_busy.next = c.cc_busy;
    b.cc_passed.next = c.cc_passed;
    b.cc_failed.next = false;
    b.sg_busy.next = c.sg_busy;
    b.bc_busy.next = false;
    b.adopt_ok.next = c.adopt_ok;
    b.adopt_next_ok.next = c.adopt_next_ok;
    b.reach_ok.next = c.reach_ok;
    b.w_m.next = W_M.into();
    assert!(simulate(&mut b, 100));
    let mut on = vec![];
    for (name, v) in [
        ("bridging", b.bridging.val()),
        ("grant", b.grant.val()),
        ("decide", b.decide.val()),
        ("above", b.above.val()),
        ("seals", b.seals.val()),
        ("seal_trigger", b.seal_trigger.val()),
        ("slow_abort", b.slow_abort.val()),
        ("dl_grant", b.dl_grant.val()),
        ("adopt_start", b.adopt_start.val()),
        ("adopt", b.adopt.val()),
        ("adopt_next", b.adopt_next.val()),
        ("adopt_row", b.adopt_row.val()),
        ("cc_start", b.cc_start.val()),
        ("cc_hold", b.cc_hold.val()),
        ("take", b.take.val()),
        ("held_back", b.held_back.val()),
    ] {
        if v {
            on.push(name);
        }
    }
    on
}

#[test]
fn a_full_row_or_above_decides_at_a_poll_point_with_nothing_in_flight() {
    for kind in [ev::FULL_ROW, ev::ABOVE] {
        let above = if kind == ev::ABOVE {
            vec!["above"]
        } else {
            vec![]
        };
        let mut slow = vec!["grant", "decide"];
        slow.extend(&above);
        slow.extend(["slow_abort", "take"]);
        let sorted = |mut v: Vec<&'static str>| {
            v.sort();
            v
        };
        assert_eq!(sorted(run(case(kind, At::SlowPoint))), sorted(slow));
        let mut catch = vec!["grant", "decide", "take"];
        catch.extend(&above);
        assert_eq!(sorted(run(case(kind, At::Catch))), sorted(catch));
        // Held: not at a poll point, a signer request in flight, or
        // Protocol not running.
        for c in [
            case(kind, At::Busy),
            Case {
                sg_busy: true,
                ..case(kind, At::SlowPoint)
            },
            Case {
                running: false,
                ..case(kind, At::Catch)
            },
        ] {
            assert_eq!(run(c), above.clone(), "the event waits");
        }
    }
}

#[test]
fn seals_start_the_view_change_from_slow_and_seal_at_views_poll_point() {
    let mut from_slow = run(case(ev::SEALS, At::SlowPoint));
    from_slow.sort();
    assert_eq!(
        from_slow,
        ["grant", "seal_trigger", "seals", "slow_abort", "take"]
    );
    let mut at_view = run(case(ev::SEALS, At::Catch));
    at_view.sort();
    assert_eq!(at_view, ["grant", "seals", "take"]);
}

#[test]
fn a_commit_is_checked_first_and_decides_once_its_certificate_passed() {
    assert_eq!(
        run(case(ev::COMMIT, At::SlowPoint)),
        ["cc_start", "cc_hold"]
    );
    assert_eq!(run(case(ev::COMMIT, At::Catch)), ["cc_start", "cc_hold"]);
    // While CertCheck runs, the holder is held and nothing else starts.
    let running = Case {
        cc_busy: true,
        ..case(ev::COMMIT, At::SlowPoint)
    };
    assert_eq!(run(running), ["cc_hold"]);
    // Passed: as good as ABOVE.
    let passed = Case {
        cc_busy: true,
        cc_passed: true,
        ..case(ev::COMMIT, At::SlowPoint)
    };
    let mut on = run(passed);
    on.sort();
    assert_eq!(
        on,
        ["above", "cc_hold", "decide", "grant", "slow_abort", "take"]
    );
}

/// A certificate of W.b + 1 ends the bridge only once it is committed
/// (recovery.md R17): an ABOVE at W.b on W.m, like every event but one to
/// adopt, is taken at once and SLOW is not aborted, and a COMMIT of
/// W.b + 1 is not checked by CertCheck.
#[test]
fn while_bridging_every_event_but_one_to_adopt_is_taken_at_once() {
    for prev in [W_M, W_M + 1] {
        for kind in [ev::ABOVE, ev::FULL_ROW, ev::SEALS, ev::COMMIT] {
            let mut on = run(Case {
                prev,
                ..case(kind, At::Bridge)
            });
            on.retain(|s| !["above", "seals"].contains(s));
            assert_eq!(on, ["bridging", "take"], "kind {kind}, prev {prev}");
        }
    }
}

/// A COMMIT of W.b + 1 on W.m, of a view not sealed (`adopt_next_ok`), is
/// adopted at SLOW's poll point while bridging: `adopt` with
/// `adopt_next` (D's slot is W.b + 1), and taken. On another prev, without
/// `adopt_next_ok`, or while CertCheck runs, it is not.
#[test]
fn a_commit_of_the_next_slot_on_w_is_adopted_while_bridging() {
    let next = Case {
        prev: W_M,
        adopt_next_ok: true,
        ..case(ev::COMMIT, At::Bridge)
    };
    assert_eq!(run(next), ["bridging", "adopt", "adopt_next", "take"]);
    let other = Case { prev: PREV, ..next };
    assert_eq!(run(other), ["bridging", "take"]);
    let sealed = Case {
        adopt_next_ok: false,
        ..next
    };
    assert_eq!(run(sealed), ["bridging", "take"]);
    let checking = Case {
        cc_busy: true,
        ..next
    };
    assert_eq!(run(checking), ["bridging", "adopt_next", "cc_hold"]);
    // Not in normal mode: there a COMMIT of k + 1 is CertCheck's.
    let normal = Case {
        at: At::SlowPoint,
        ..next
    };
    assert_eq!(run(normal), ["cc_start", "cc_hold"]);
}

/// f + 1 CERT blocks of W.b + 1 on W.m (ABOVE), of a view not sealed, are
/// adopted from the certify row the same way: `adopt` with `adopt_next` and
/// `adopt_row` (SLOW reads D's certificate from the row). On another prev
/// or without `adopt_next_ok` the event is taken at once; while CertCheck
/// runs it waits; in normal mode it is R24's ABOVE, a decision.
#[test]
fn an_above_of_the_next_slot_on_w_is_adopted_from_the_row_while_bridging() {
    let next = Case {
        prev: W_M,
        adopt_next_ok: true,
        ..case(ev::ABOVE, At::Bridge)
    };
    let mut on = run(next);
    on.retain(|s| *s != "above");
    assert_eq!(on, ["bridging", "adopt", "adopt_next", "adopt_row", "take"]);
    for c in [
        Case { prev: PREV, ..next },
        Case {
            adopt_next_ok: false,
            ..next
        },
    ] {
        let mut on = run(c);
        on.retain(|s| *s != "above");
        assert_eq!(on, ["bridging", "take"]);
    }
    let mut on = run(Case {
        cc_busy: true,
        ..next
    });
    on.retain(|s| *s != "above");
    assert_eq!(on, ["bridging", "adopt_next", "adopt_row", "cc_hold"]);
    let mut on = run(Case {
        at: At::SlowPoint,
        ..next
    });
    on.retain(|s| *s != "above");
    assert_eq!(on, ["grant", "decide", "slow_abort", "take"]);
}

#[test]
fn mine_is_granted_to_a_replica_awaiting_on_its_own_prev() {
    assert_eq!(run(case(ev::MINE, At::Await)), ["dl_grant", "take"]);
    // Not while CertCheck runs; on another prev it is taken at once.
    let checking = Case {
        cc_busy: true,
        ..case(ev::MINE, At::Await)
    };
    assert_eq!(run(checking), ["cc_hold"]);
    let other = Case {
        prev: PREV + 1,
        ..case(ev::MINE, At::Await)
    };
    assert_eq!(run(other), ["take"]);
}

#[test]
fn a_new_view_event_is_taken_at_once() {
    for at in [At::SlowPoint, At::Catch, At::Await, At::Busy] {
        assert_eq!(run(case(ev::NEW_VIEW, at)), ["take"]);
    }
}

#[test]
fn a_mine_to_adopt_starts_adopt_mode_while_awaiting_and_while_bridging() {
    let adopt = |at| Case {
        adopt_ok: true,
        ..case(ev::MINE, at)
    };
    // Awaiting: deliver mode, adopting first.
    assert_eq!(run(adopt(At::Await)), ["dl_grant", "adopt_start", "take"]);
    // Bridging: SLOW turns to adopt mode at its poll point; without
    // `adopt_ok`, or on another prev, the MINE is taken at once.
    assert_eq!(run(adopt(At::Bridge)), ["bridging", "adopt", "take"]);
    assert_eq!(run(case(ev::MINE, At::Bridge)), ["bridging", "take"]);
    let other = Case {
        prev: PREV + 1,
        ..adopt(At::Bridge)
    };
    assert_eq!(run(other), ["bridging", "take"]);
    // Held while CertCheck runs or the signer is busy.
    let checking = Case {
        cc_busy: true,
        ..adopt(At::Bridge)
    };
    assert_eq!(run(checking), ["bridging", "cc_hold"]);
    let signing = Case {
        sg_busy: true,
        ..adopt(At::Bridge)
    };
    assert_eq!(run(signing), ["bridging"]);
}

/// R10's second half: in SLOW's normal mode a MINE that Protocol finds
/// adoptable (`adopt_ok`: above L, of a later view or of this one before
/// SLOW delivered k, SLOW not adopting already) turns SLOW to adopt mode
/// at its poll point, and
/// waits for it there; any other MINE is taken at once.
#[test]
fn a_mine_to_adopt_in_normal_mode_turns_slow_to_adopt_mode_at_its_poll_point() {
    let adopt = |at| Case {
        adopt_ok: true,
        ..case(ev::MINE, at)
    };
    assert_eq!(run(adopt(At::SlowPoint)), ["adopt", "take"]);
    // Between SLOW's polls it waits (not taken, nothing started).
    assert_eq!(run(adopt(At::SlowBusy)), Vec::<&str>::new());
    // Not adoptable, or on another prev: taken at once, at a poll point
    // or not.
    for at in [At::SlowPoint, At::SlowBusy] {
        assert_eq!(run(case(ev::MINE, at)), ["take"]);
        let other = Case {
            prev: PREV + 1,
            ..adopt(at)
        };
        assert_eq!(run(other), ["take"]);
    }
    // Held while CertCheck runs or the signer is busy.
    let checking = Case {
        cc_busy: true,
        ..adopt(At::SlowPoint)
    };
    assert_eq!(run(checking), ["cc_hold"]);
    let signing = Case {
        sg_busy: true,
        ..adopt(At::SlowPoint)
    };
    assert_eq!(run(signing), Vec::<&str>::new());
}

#[test]
fn a_full_row_at_a_rerun_slot_is_taken_at_once_and_decides_nothing() {
    // recovery.md D11.15: the replica decided the rerun slot before; the
    // rerun's certificate needs its share, so the row does not end its
    // slow path. ABOVE (k + 1 certified: the others moved on) still
    // decides.
    for at in [At::SlowPoint, At::Catch, At::Busy] {
        let c = Case {
            rerun: true,
            ..case(ev::FULL_ROW, at)
        };
        assert_eq!(run(c), vec!["take"]);
    }
    let mut above = run(Case {
        rerun: true,
        ..case(ev::ABOVE, At::SlowPoint)
    });
    above.sort();
    assert_eq!(
        above,
        vec!["above", "decide", "grant", "slow_abort", "take"]
    );
}

#[test]
fn a_catch_up_that_would_leave_w_out_of_the_bridges_reach_is_taken_unacted_on() {
    // recovery.md D11.16: with `reach_ok` low an ABOVE, a COMMIT of k + 1
    // and a COMMIT whose certificate passed are taken at once at every
    // poll point: nothing decided, no CertCheck started.
    for (kind, passed) in [(ev::ABOVE, false), (ev::COMMIT, false), (ev::COMMIT, true)] {
        for at in [At::SlowPoint, At::Catch, At::SlowBusy] {
            let c = Case {
                reach_ok: false,
                cc_passed: passed,
                ..case(kind, at)
            };
            let mut on = run(c);
            on.retain(|o| *o != "above");
            assert_eq!(
                on,
                vec!["take", "held_back"],
                "kind {kind}, passed {passed}"
            );
        }
    }
    // A full row, SEALS and MINE are not held back: a full row holds this
    // replica's own will_commit of k, so k is at most W.b + 1.
    for kind in [ev::FULL_ROW, ev::SEALS] {
        let on = run(Case {
            reach_ok: false,
            ..case(kind, At::SlowPoint)
        });
        assert!(
            on.contains(&"grant") && !on.contains(&"held_back"),
            "{kind}: {on:?}"
        );
    }
    let on = run(Case {
        reach_ok: false,
        adopt_ok: true,
        ..case(ev::MINE, At::SlowPoint)
    });
    assert!(
        on.contains(&"adopt") && !on.contains(&"held_back"),
        "{on:?}"
    );
    // While bridging, an ABOVE of W.b + 1 to adopt is not held back (the
    // bridge's own events; W is what it commits).
    let on = run(Case {
        reach_ok: false,
        adopt_next_ok: true,
        prev: W_M,
        ..case(ev::ABOVE, At::Bridge)
    });
    assert!(
        on.contains(&"adopt_row") && !on.contains(&"held_back"),
        "{on:?}"
    );
}
