//! The view change on the shipped v3 kernel (VIEW, `view.md`; recovery.md
//! R14 to R25): the view advances, the leader rotates, a value some replica
//! may have decided survives it, and the timeout doubles with each view
//! change in a row. Quick links and signer with a wait of 64 polls (v3's
//! rule: the wait outlasts one signer step, protocol.md "Timeouts"), on
//! the Verilator backend.

use rhdl_ubft::layout::Region;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay, Path, RunReport, NETWORK_PTR};
use ubft_sim::models::client::proposal;

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig {
        wait_polls: 64,
        ..ClusterConfig::quick(replicas, slots)
    }
}

/// `extra` cycles on the link `src` -> `dst` for writes sent in
/// `from..to`.
fn late(src: usize, dst: usize, extra: u64, from: u64, to: u64) -> LinkDelay {
    LinkDelay {
        src,
        dst,
        extra,
        from_cycle: from,
        to_cycle: to,
        records: None,
        after: None,
    }
}

/// A cluster of `cfg` on Verilator.
fn cluster(cfg: &ClusterConfig) -> Cluster {
    backend::cluster(cfg, Backend::Verilator).unwrap()
}

/// Runs `c` to its end; the checks (agreement, validity, order, guard)
/// must pass.
fn run_checked(c: &mut Cluster) -> RunReport {
    let report = c.run().unwrap();
    assert_eq!(report.layout, "v3");
    assert!(
        report.checks.ok(),
        "{:?}\n{}",
        report.checks.failures,
        report.summary()
    );
    report
}

/// Every replica decided the client's stream in order, each request once,
/// for `slots` slots.
fn decided_the_stream(report: &RunReport, seed: u64, slots: u64) {
    let stream: Vec<(u64, u32)> = (0..slots).map(|i| (i + 1, proposal(seed, i))).collect();
    for r in &report.replicas {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        assert_eq!(
            got,
            stream,
            "replica {}: the stream in order, once each\n{}",
            r.id,
            report.summary()
        );
    }
}

/// Logs the cycles of replica `r`'s own writes into `region` (its kernel's
/// AWs on `m_axi_hbm`).
fn watch(c: &mut Cluster, r: usize, region: Region) {
    let span = c.cfg.mailbox().span(region);
    let byte = |word: usize| NETWORK_PTR + 4 * word as u64;
    c.hbms[r].watch_writes(byte(span.start)..byte(span.start + span.words));
}

/// The leader's prepare of slot 1 reaches replica 1 3,000 cycles late.
/// Replicas 0 and 2 lock it and decide it on the slow path, on f + 1 = 2
/// COMMITs (R10 to R12), with no view change; replica 1 times out waiting
/// for the prepare, seals view 0 alone (one SEAL is not f + 1, so no
/// NEW_VIEW comes) and, awaiting one, decides each slot from its peers'
/// COMMITs (R25 while awaiting). So the late prepare's value is decided
/// once everywhere, and the slots decide the client's stream in order.
/// (The v2 kernel, whose slow path needs every replica, recovered it by a
/// view change and the f + 1 rule.)
#[test]
fn a_late_prepare_is_decided_once_by_the_others_and_the_late_replica_catches_up() {
    let slots = 4;
    let cfg = ClusterConfig {
        delays: vec![late(0, 1, 3_000, 0, 200)],
        ..quick(3, slots)
    };
    let report = run_checked(&mut cluster(&cfg));
    decided_the_stream(&report, cfg.seed, slots);
    for r in [0, 2] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (0, 0),
            "replica {r}\n{}",
            report.summary()
        );
        assert_eq!(rr.decided[0].path, Path::Slow, "replica {r}");
    }
    let r1 = &report.replicas[1];
    assert!(
        r1.view >= 1 && r1.status.view_changes >= 1,
        "replica 1 timed out into a view change\n{}",
        report.summary()
    );
    assert!(r1.decided.iter().all(|d| d.path == Path::Slow));
}

/// The prepare reaches nobody but the leader: no follower locks a value,
/// so each seals view 0 with no L, and NEW_VIEW(1) carries no value (its
/// certificate bitmap is 0). The new leader proposes the oldest request it
/// holds: the same one, so no request is lost to the view change and the
/// slots decide the client's stream in order, in view 1.
#[test]
fn with_no_value_locked_by_f_plus_1_the_new_leader_proposes_the_same_request_again() {
    let cfg = ClusterConfig {
        delays: vec![late(0, 1, 3_000, 0, 200), late(0, 2, 3_000, 0, 200)],
        ..quick(3, 2)
    };
    let mut c = cluster(&cfg);
    let report = run_checked(&mut c);
    decided_the_stream(&report, cfg.seed, 2);
    let mb = cfg.mailbox();
    let nv = NETWORK_PTR + 4 * mb.record(Region::NewViewRecord, 0, 0) as u64;
    for r in &report.replicas {
        assert!(
            r.view >= 1 && r.status.view_changes >= 1,
            "replica {}",
            r.id
        );
        // NEW_VIEW(1): view 1, the SEALs of f + 1 = 2 replicas, no
        // certificate (nothing carried).
        let head = c.hbms[r.id].read_words(nv, 3);
        assert_eq!(
            (head[0], head[1].count_ones(), head[2]),
            (1, 2, 0),
            "replica {}'s NEW_VIEW {head:x?}",
            r.id
        );
    }
}

/// Views and leaders rotate in step: in a run whose leaders all have
/// nothing to propose, every view times out (the leader idles, the
/// followers wait for its prepare), and after 16,000 cycles every replica
/// is in view 2 or later, all within one view of each other, and the
/// cluster neither decides nor stops.
#[test]
fn leaders_with_nothing_to_propose_rotate_the_view_without_deciding() {
    let n = 3;
    let mut c = cluster(&ClusterConfig {
        max_cycles: 16_000,
        ..quick(n, 1)
    });
    for r in 0..n {
        c.clients[r].limit = Some(0);
    }
    let report = run_checked(&mut c);
    let views: Vec<u32> = report.replicas.iter().map(|r| r.view).collect();
    assert!(views.iter().all(|&v| v >= 2), "views {views:?}");
    let spread = views.iter().max().unwrap() - views.iter().min().unwrap();
    assert!(
        spread <= 1,
        "replicas move through the views together: {views:?}"
    );
    for r in &report.replicas {
        assert!(r.decided.is_empty());
        assert_eq!(r.status.error, 0, "replica {}", r.id);
        assert!(r.status.timeouts >= r.status.view_changes);
    }
}

/// The audit's E3, on the kernels: one late message among honest replicas.
/// Replica 1's will_commit for k = 1 reaches replica 0 late (everything
/// else on time). Replicas 1 and 2 decide k = 1 on the fast path and wait
/// at k = 2 for replica 0, the view's leader, which times out holding k = 1
/// into SLOW. When the late will_commit lands while WATCH still polls the
/// slot, replica 0's HBM holds the full view-0 row for k = 1, and WATCH
/// finds it (R26, any view): replica 0 decides k = 1 fast. When it lands
/// after replica 0 has left for the view change, replica 0 decides k = 1
/// from NEW_VIEW(1), which carries it (slow). Either way the followers
/// have timed out into VIEW: they bridge k = 1 (R17), NEW_VIEW(1) carries
/// it, and every replica ends in view 1 having decided every slot. The
/// sweep has both outcomes (the shortest delays land in time for WATCH);
/// which one a delay near the edge gets is timing, so the test asserts
/// that both occur, not which delay gets which. The delays are those of a sweep
/// (500 to 12,000 cycles in steps of 37) for which the v2 kernel before
/// R26 stalled for good (the model's `current:no_r26` counterexample,
/// model.md); `cluster.rs` traces one of them
/// (`e3_at_the_leader_is_bridged_into_view_1_and_every_slot_is_decided`).
#[test]
fn one_late_will_commit_among_honest_replicas_does_not_stall_the_cluster() {
    let n = 3;
    let slots = 3;
    // When replica 1 sends its will_commit for k = 1: the cycle its kernel
    // writes it into its own HBM, in a run without the delay.
    let mut probe = cluster(&quick(n, 1));
    watch(&mut probe, 1, Region::WillCommit);
    probe.run().unwrap();
    let sent = probe.hbms[1].watched_writes()[0];
    let mut fast_at_0 = 0;
    for extra in [
        1129u64, 1203, 1314, 1388, 1573, 1758, 1943, 2128, 2313, 2498, 2683, 2868, 3053,
    ] {
        // Its RDMA WRITEs follow the local write within a few cycles; the
        // next write replica 1 makes comes after k = 2's prepare, later.
        let cfg = ClusterConfig {
            delays: vec![late(1, 0, extra, sent, sent + 30)],
            max_cycles: 80_000,
            ..quick(n, slots)
        };
        let report = run_checked(&mut cluster(&cfg));
        for r in &report.replicas {
            assert_eq!(
                r.decided.len() as u64,
                slots,
                "late by {extra}: replica {} decided every slot (view {}, {} view changes)",
                r.id,
                r.view,
                r.status.view_changes
            );
            assert!(r.view >= 1, "late by {extra}: replica {}", r.id);
        }
        // Replica 1 decided k = 1 on the fast path before the late write
        // landed; replica 0 decided it after it: from the full row (fast),
        // or from NEW_VIEW(1) (slow).
        let (r0, r1) = (&report.replicas[0], &report.replicas[1]);
        assert_eq!(r1.decided[0].path, Path::Fast);
        assert!(r1.decided[0].cycle < sent + extra, "late by {extra}");
        assert!(r0.decided[0].cycle > sent + extra, "late by {extra}");
        assert!(r0.status.timeouts >= 1, "late by {extra}");
        if r0.decided[0].path == Path::Fast {
            fast_at_0 += 1;
        }
    }
    // R26's path is taken in the sweep, and so is the view change's.
    assert!(
        fast_at_0 > 0,
        "replica 0 never decided k = 1 from the full row"
    );
    assert!(
        fast_at_0 < 13,
        "no delay landed after replica 0's view change"
    );
}

/// Each view change since the last decision doubles the timeout
/// (recovery.md R14; protocol.md, "Timeouts"). With nothing to propose,
/// the leader of view v installs it as it writes NEW_VIEW(v), idles in
/// LEADER until its timeout, and seals view v (a sign, then its SEAL
/// write). LEADER's idle polls read ahead, two per H + 3 cycles, counted
/// against twice the limit, so at `streak` = v (v view changes since the
/// last decision) the idle wait is `wait_polls` · 2^v · (H + 3) cycles.
/// So the span from a leader's NEW_VIEW(v) write to its SEAL write is that
/// wait plus the same constant in every view, and the spans of views v and
/// v + 1 differ by exactly `wait_polls` · 2^v · (H + 3): 1,920, 3,840 and
/// 7,680 cycles from view 1 to 4 here.
#[test]
fn the_timeout_doubles_with_each_view_change_in_a_row() {
    let n = 3;
    let cfg = ClusterConfig {
        max_cycles: 40_000,
        ..quick(n, 1)
    };
    // The run is deterministic: run it twice, watching each replica's
    // SEAL writes in the first and its NEW_VIEW writes in the second.
    let watched = |region: Region| {
        let mut c = cluster(&cfg);
        for r in 0..n {
            c.clients[r].limit = Some(0);
            watch(&mut c, r, region);
        }
        let report = run_checked(&mut c);
        let at: Vec<Vec<u64>> = (0..n)
            .map(|r| c.hbms[r].watched_writes().to_vec())
            .collect();
        (report, at)
    };
    let (report, seals) = watched(Region::Seal);
    let (again, new_views) = watched(Region::NewViewRecord);
    // (The watch replaces the one that fills `proposal_cycles`, so compare
    // the rest.)
    let status = |r: &RunReport| {
        let st: Vec<_> = r
            .replicas
            .iter()
            .map(|x| (x.view, format!("{:?}", x.status)))
            .collect();
        (r.cycles, st)
    };
    assert_eq!(status(&report), status(&again), "the same run twice");
    // Every replica sealed each view it left once, in order (its SEAL of
    // view v is its (v + 1)-th); view v's leader (v mod n) wrote
    // NEW_VIEW(v) as its ((v - 1) / n + 1)-th.
    for r in 0..n {
        assert_eq!(
            seals[r].len() as u32,
            report.replicas[r].view,
            "replica {r}: {seals:?}"
        );
    }
    let span = |v: usize| -> Option<u64> {
        let leader = v % n;
        let nv = *new_views[leader].get((v - 1) / n)?;
        let seal = *seals[leader].get(v)?;
        assert!(seal > nv, "view {v}: seal {seal}, NEW_VIEW {nv}");
        Some(seal - nv)
    };
    let spans: Vec<u64> = (1..=4)
        .map(|v| span(v).unwrap_or_else(|| panic!("view {v}: {seals:?} {new_views:?}")))
        .collect();
    let period = cfg.hbm_read_latency + 3;
    for v in 1..4 {
        assert_eq!(
            spans[v] - spans[v - 1],
            cfg.wait_polls * (1 << v) * period,
            "views {v} and {}: spans {spans:?}",
            v + 1
        );
    }
}

/// The soak's seed 152 (no fault at all) at L = 100: a wait of 4 polls is
/// shorter than a round trip, so the fast path times out wherever it waits.
/// On the v2 kernel, with a fixed timeout, every view timed out before its
/// votes landed (the seed's own run, at L = 43, decided 2 of 12 slots in
/// 40,000 cycles). On v3 the slot goes to SLOW, whose waits are T_vc's
/// length (protocol.md, "SLOW's waits"), and is decided there on f + 1
/// COMMITs: every slot is decided, each on the slow path. A SLOW that
/// still times out seals, and views may be installed (two in this run),
/// but the cluster never stalls: n − f replicas or more end in one view,
/// and a replica whose short wait ran out alone seals ahead of them, and
/// decides every slot there from their COMMITs while it awaits a NEW_VIEW
/// (R24 to R26), re-sealing at each T_vc (R14); it is never behind. A
/// replica that never changed view times out at slot 1 and at the probes
/// 2, 4 and 8, and skips the wait at the other slots (the sticky slow
/// path, protocol.md). (At the seed's own L = 43 the votes come within the 4
/// polls: the scoreboard hands FAST each vote as it lands.)
#[test]
fn a_timeout_shorter_than_a_round_trip_no_longer_stalls_the_cluster() {
    let cfg = ClusterConfig {
        seed: 152,
        net_latency: 100,
        hbm_read_latency: 18,
        hbm_write_latency: 5,
        wait_polls: 4,
        sign_latency: 345,
        verify_latency: 1040,
        max_cycles: 200_000,
        ..ClusterConfig::new(5, 12)
    };
    let report = run_checked(&mut cluster(&cfg));
    decided_the_stream(&report, cfg.seed, 12);
    for r in &report.replicas {
        assert!(
            r.decided.iter().all(|d| d.path == Path::Slow),
            "replica {}: {:?}",
            r.id,
            r.status
        );
        // A replica that never changed view ran FAST at every slot and
        // timed out at slot 1 and the probes 2, 4 and 8, skipping the
        // wait at the others; one a view ahead decides from its peers'
        // COMMITs while it awaits, and as a new leader short of f + 1
        // SEALs it counts a miss only every 2^LEAD_WAIT_SHIFT-th read
        // (recovery.md D11.14).
        if r.status.view_changes == 0 {
            assert!(r.status.timeouts >= 4, "replica {}: {:?}", r.id, r.status);
        }
    }
    let views: Vec<u32> = report.replicas.iter().map(|r| r.view).collect();
    let common = *views
        .iter()
        .max_by_key(|&&v| views.iter().filter(|&&w| w == v).count())
        .unwrap();
    let f = (cfg.replicas - 1) / 2;
    assert!(
        views.iter().filter(|&&v| v == common).count() >= cfg.replicas - f
            && views.iter().all(|&v| v >= common),
        "{views:?}\n{}",
        report.summary()
    );
}
