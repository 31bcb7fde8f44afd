//! The soak's liveness measure (docs/recovery.md, "Recovery after the last
//! fault"; docs/scenarios.md, "The soak"): where a scenario's last fault
//! settles, the cycles from there to every honest replica's next decision,
//! and the bound they are held against; on a soak scenario whose leader
//! falls silent mid-run, the measured recovery is within the bound.

use ubft_sim::backend::Backend;
use ubft_sim::bench::{fault_bound, nv_miss, recovery_bound, t_vc};
use ubft_sim::cluster::{After, Decision, Path};
use ubft_sim::scenario::{EventSpec, Fault, Scenario};

fn decision(k: u64, cycle: u64) -> Decision {
    Decision {
        k,
        m: k as u32,
        cycle,
        path: Path::Fast,
    }
}

#[test]
fn the_last_fault_settles_at_a_silence_or_when_a_delayed_link_is_timely_again() {
    let mut s = Scenario::new(3, 4);
    assert_eq!(s.settle_cycle(), Some(0), "no fault");
    s.faults.push(Fault::Equivocate { replica: 0 });
    assert_eq!(
        s.settle_cycle(),
        Some(0),
        "a Byzantine kind acts from the start"
    );
    s.faults.push(Fault::Silent {
        replica: 1,
        from_cycle: 5_000,
        from: None,
    });
    assert_eq!(s.settle_cycle(), Some(5_000));
    s.faults.push(Fault::Delay {
        src: 0,
        dst: 2,
        extra: 700,
        from_cycle: 1_000,
        to_cycle: Some(9_000),
        from: None,
        cycles: None,
    });
    assert_eq!(
        s.settle_cycle(),
        Some(9_700),
        "the last delayed write lands"
    );
    let mut open = s.clone();
    if let Some(Fault::Delay { to_cycle, .. }) = open.faults.last_mut() {
        *to_cycle = None;
    }
    assert_eq!(
        open.settle_cycle(),
        None,
        "a delay without an end never settles"
    );
    s.faults.push(Fault::Silent {
        replica: 2,
        from_cycle: 0,
        from: Some(EventSpec {
            decided: Some(3),
            ..Default::default()
        }),
    });
    assert_eq!(
        s.settle_cycle(),
        None,
        "an event's cycle is known only in the run"
    );
}

#[test]
fn after_is_the_last_first_decision_nothing_left_or_never() {
    let a = [decision(1, 100), decision(2, 900)];
    let b = [decision(1, 120), decision(2, 400), decision(3, 1_500)];
    let lists = || [a.as_slice(), b.as_slice()].into_iter();
    assert_eq!(After::of(lists(), 0, 3), After::Decided(120));
    assert_eq!(After::of(lists(), 300, 3), After::Decided(600), "a at 900");
    // After 900, `a` decides nothing more with a slot left: never.
    assert_eq!(After::of(lists(), 1_000, 3), After::Never);
    // With two slots, `a` is done; `b` decides its third at 1,500.
    assert_eq!(After::of(lists(), 1_000, 2), After::Decided(500));
    assert_eq!(
        After::of(lists(), 2_000, 2),
        After::Done,
        "both decided their two slots"
    );
}

#[test]
fn the_bound_is_f_plus_1_recoveries_with_the_wait_doubling() {
    for n in [3usize, 5, 7] {
        let cfg = Scenario::new(n, 4).config();
        let f = (n - 1) / 2;
        let poll = cfg.hbm_read_latency + 4;
        let mut sum = 0;
        for i in 0..=f {
            let mut c = cfg.clone();
            c.wait_polls = cfg.wait_polls << i;
            sum += recovery_bound(&c);
            if i > 0 {
                // The faulty leader of the awaited view: every T_vc miss
                // may read its NEW_VIEW and refuse it.
                sum += t_vc(&c) * (nv_miss(&c) - poll);
            }
        }
        assert_eq!(fault_bound(&cfg), sum, "n = {n}");
        assert!(
            fault_bound(&cfg) > (f as u64 + 1) * recovery_bound(&cfg),
            "n = {n}"
        );
    }
}

#[test]
fn a_leader_silent_after_slot_2_recovers_within_the_bound() {
    // n = 3 at the scenario defaults; the leader (replica 0) falls silent
    // when its client takes the decision of slot 2 (an event, so the onset
    // is read from the run, not from the scenario).
    let mut s = Scenario::new(3, 6);
    s.faults.push(Fault::Silent {
        replica: 0,
        from_cycle: 0,
        from: Some(EventSpec {
            decided: Some(2),
            ..Default::default()
        }),
    });
    assert_eq!(s.settle_cycle(), None);
    let r = s.run(Backend::Verilator).unwrap();
    assert!(r.checks.ok(), "{:?}", r.checks.failures);
    let onset = r.replicas[0]
        .decided
        .iter()
        .find(|d| d.k == 2)
        .unwrap()
        .cycle;
    let bound = fault_bound(&s.config());
    // The followers decide slot 2 too, in the cycles around the leader's
    // decision; the recovery is to slot 3, every honest replica's.
    let slot3: Vec<u64> = r
        .honest()
        .map(|h| h.decided.iter().find(|d| d.k == 3).expect("slot 3").cycle)
        .collect();
    let c = slot3.iter().max().unwrap() - onset;
    assert!(c <= bound, "{c} > {bound}");
    // A view change happened: the recovery is one, not the next fast
    // slot.
    assert!(c > recovery_bound(&s.config()) / 4, "{c}: no view change?");
    assert!(r.honest().all(|h| h.view >= 1));
}

/// A leader silent after a slow slot: its PREPARE of slot 3 lands, and it
/// falls silent with its will_commit of slot 3 (the event: that write, the
/// first one dropped), after its prep_sig, so the followers decide slot 3
/// on the slow path in view 0. Slot 4's PREPARE never reaches them, and a
/// follower's wait for the PREPARE after a slow decision is T_vc's length
/// (protocol.md, "FAST's and LEADER's waits"), as is SLOW's prep_sig wait
/// when the followers locked: `bench::recovery_bound` counts the path
/// timeout and T_vc in its detection. From each honest replica's decision
/// of slot 3 to its decision of slot 4 is within the bound, and above what
/// the bound would be with two path timeouts for the detection, at n = 3
/// and n = 5 and the scenario defaults.
#[test]
fn a_leader_silent_after_a_slow_slot_recovers_within_the_bound() {
    for n in [3usize, 5] {
        let mut s = Scenario::new(n, 5);
        s.max_cycles = 1_000_000;
        s.faults.push(Fault::Silent {
            replica: 0,
            from_cycle: 0,
            from: Some(EventSpec {
                sent: Some("will_commit".into()),
                slot: Some(3),
                ..Default::default()
            }),
        });
        let r = s.run(Backend::Verilator).unwrap();
        assert!(r.checks.ok(), "n = {n}: {:?}", r.checks.failures);
        let cfg = s.config();
        let bound = recovery_bound(&cfg);
        let poll = cfg.hbm_read_latency + 4;
        let two_path_waits = bound - (t_vc(&cfg) - cfg.wait_polls) * poll;
        for h in r.honest() {
            let at = |k: u64| {
                h.decided
                    .iter()
                    .find(|d| d.k == k)
                    .map(|d| (d.cycle, d.path))
            };
            let (three, path) = at(3).expect("slot 3 decided");
            assert_eq!(path, Path::Slow, "n = {n}, replica {}", h.id);
            let (four, _) = at(4).expect("slot 4 decided");
            let gap = four - three;
            eprintln!(
                "n = {n}, replica {}: {gap} (bound {bound}, with two path waits {two_path_waits})",
                h.id
            );
            assert!(gap <= bound, "n = {n}, replica {}: {gap} > {bound}", h.id);
            assert!(gap > two_path_waits, "n = {n}, replica {}: {gap}", h.id);
            assert!(
                h.view >= 1 && h.decided.len() == 5,
                "n = {n}\n{}",
                r.summary()
            );
        }
    }
}
