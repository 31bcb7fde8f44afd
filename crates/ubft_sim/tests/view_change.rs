//! The view change: the view advances, the leader rotates, and every replica
//! recovers the slot's value by itself with the f + 1 rule.

use ubft_sim::client::proposal;
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay, Path};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig::quick(replicas, slots).v2()
}

/// The leader's prepare reaches replica 1 too late for both paths. Replicas
/// 0 and 2 voted for it (phase 1), replica 1 never saw it (phase 0): the
/// view changes, f + 1 = 2 records report (k = 1, m), every replica installs
/// it and decides it once, and the leaders of the later views propose the
/// next requests: every request goes to every replica, so the slots decide
/// the client's stream in order, each request once. (Replica 1 completes view 1
/// late, since replica 0's records wait behind the late prepare on their
/// queue pair, so the cluster may pass through more than one view.)
#[test]
fn a_late_prepare_is_recovered_by_the_f_plus_1_rule_and_decided_once() {
    let n = 3;
    let slots = 4;
    let cfg = ClusterConfig {
        delays: vec![LinkDelay {
            src: 0,
            dst: 1,
            extra: 3_000,
            from_cycle: 0,
            to_cycle: 200,
            records: None,
        }],
        ..quick(n, slots)
    };
    let seed = cfg.seed;
    let report = Cluster::new(cfg).unwrap().run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let leader0 = proposal(seed, 0);
    for r in &report.replicas {
        assert!(r.status.view_changes >= 1, "replica {} changed view", r.id);
        assert!(r.view >= 1);
        let ks: Vec<u64> = r.decided.iter().map(|d| d.k).collect();
        assert_eq!(
            ks,
            (1..=slots).collect::<Vec<_>>(),
            "replica {}: each k once",
            r.id
        );
        assert_eq!(
            r.decided[0].m, leader0,
            "replica {} recovered the old leader's value",
            r.id
        );
        // Later slots: the next requests, in order, proposed by the leader
        // of the final view (not replica 0) from the same stream.
        assert_ne!(r.view as usize % n, 0);
        let ms: Vec<u32> = r.decided.iter().map(|d| d.m).collect();
        let stream: Vec<u32> = (0..slots).map(|i| proposal(seed, i)).collect();
        assert_eq!(
            ms, stream,
            "replica {}: the stream in order, once each",
            r.id
        );
    }
    assert!(report.proposed.len() as u64 >= slots);
}

/// The prepare reaches nobody but the leader: one record (the leader's own)
/// has phase 1, fewer than f + 1, so no value can have been decided, and the
/// new leader proposes the oldest request it holds: the same one.
#[test]
fn with_no_value_reported_by_f_plus_1_the_new_leader_proposes_the_same_request_again() {
    let n = 3;
    let cfg = ClusterConfig {
        delays: vec![
            LinkDelay {
                src: 0,
                dst: 1,
                extra: 3_000,
                from_cycle: 0,
                to_cycle: 200,
                records: None,
            },
            LinkDelay {
                src: 0,
                dst: 2,
                extra: 3_000,
                from_cycle: 0,
                to_cycle: 200,
                records: None,
            },
        ],
        ..quick(n, 2)
    };
    let seed = cfg.seed;
    let report = Cluster::new(cfg).unwrap().run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in &report.replicas {
        assert!(r.status.view_changes >= 1);
        assert_eq!(r.decided[0].k, 1);
        // The request the old leader proposed was never voted on, so it is
        // still every replica's oldest: the new leader proposes it again, and
        // no request is lost to the view change.
        assert_eq!(
            r.decided[0].m,
            proposal(seed, 0),
            "replica {}: k = 1 is the first request, proposed again",
            r.id
        );
        assert_eq!(r.decided[1].m, proposal(seed, 1), "replica {}", r.id);
    }
}

/// Views and leaders rotate in step: after the view changes of a run whose
/// leaders all have nothing to propose, every replica is in the same view
/// and the cluster neither decides nor hangs.
#[test]
fn leaders_with_nothing_to_propose_rotate_the_view_without_deciding() {
    let n = 3;
    let mut c = Cluster::new(ClusterConfig {
        max_cycles: 8_000,
        ..quick(n, 1)
    })
    .unwrap();
    for r in 0..n {
        c.clients[r].limit = Some(0);
    }
    let report = c.run().unwrap();
    assert!(report.checks.ok());
    let views: Vec<u32> = report.replicas.iter().map(|r| r.view).collect();
    assert!(views.iter().all(|&v| v >= 2), "views {views:?}");
    let spread = views.iter().max().unwrap() - views.iter().min().unwrap();
    assert!(
        spread <= 1,
        "replicas move through the views together: {views:?}"
    );
    for r in &report.replicas {
        assert!(r.decided.is_empty());
        assert!(r.status.timeouts >= r.status.view_changes);
    }
}

/// The weakness the spec names (a faulty replica showing different records
/// to different replicas): leader 0 sends each peer its own m, then tells
/// each, in the view change, that it voted for that peer's m. Before the
/// `requests` block, each honest replica voted for its m and then saw f + 1
/// = 2 reports (its own and the liar's) for a different value, so the honest
/// replicas installed different candidates (the all-n quorum kept them from
/// deciding differently). Now every m the liar sends is made up, so no
/// honest replica votes for one (recovery.md R2): each sees a single report
/// for its candidate, nothing is chosen, and the new leader proposes the
/// client's first request again. Both honest replicas install the same
/// prepare, and the cluster decides the stream in order.
#[test]
fn a_split_view_no_longer_splits_the_honest_replicas() {
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, N, SB};
    use ubft_sim::adversary::SplitView;
    use ubft_sim::backend::{self, Backend};
    use ubft_sim::cluster::NETWORK_PTR;
    let n = 3;
    let slots = 2;
    let mb = Mailbox::v2(N, G, SB);
    let cfg = ClusterConfig {
        max_cycles: 40_000,
        ..quick(n, slots)
    };
    let seed = cfg.seed;
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(0, Box::new(SplitView::new(n, mb.clone())));
    // Run to the first view change's prepare on both honest replicas.
    let prepare =
        |c: &Cluster, r: usize| c.hbms[r].read_words(NETWORK_PTR + 4 * mb.prepare(0) as u64, 4);
    while !(1..n).all(|r| prepare(&c, r)[2] >= 1) {
        c.step().unwrap();
        assert!(c.cycle < 20_000, "no view change reached a prepare");
    }
    let (p1, p2) = (prepare(&c, 1), prepare(&c, 2));
    assert_eq!(
        (p1[0], p2[0], p1[2], p2[2]),
        (1, 1, 1, 1),
        "both hold k = 1 in view 1"
    );
    assert_eq!(
        (p1[1], p2[1]),
        (proposal(seed, 0), proposal(seed, 0)),
        "the honest replicas hold the same value, the client's first request"
    );
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in report.honest() {
        let ms: Vec<u32> = r.decided.iter().map(|d| d.m).collect();
        let stream: Vec<u32> = (0..slots).map(|i| proposal(seed, i)).collect();
        assert_eq!(ms, stream, "replica {}: the stream, in order", r.id);
        assert!(
            r.view >= 1 && r.status.view_changes >= 1,
            "replica {}",
            r.id
        );
    }
}

/// The audit's E3, on the kernels: one late message among honest replicas.
/// Replica 1's will_commit for k = 1 reaches replica 0 late (everything
/// else on time). Replicas 1 and 2 decide k = 1 on the fast path and wait
/// at k = 2 for replica 0, the view's leader, which times out into the slow
/// path and then into view changes. When the late will_commit lands,
/// replica 0's HBM holds the full view-0 row for k = 1; if by then a view
/// change has moved its vote view on, a catch-up that looks under
/// tag(vote_view, k) only never finds it. The delays below are those of a
/// sweep (500 to 12,000 cycles in steps of 37) for which the kernel before
/// R26 stalled for good: replica 0 decided nothing and replicas 1 and 2
/// only k = 1, through 42 views in 80,000 cycles (the model's
/// `current:no_r26` counterexample, model.md). With R26 the catch-up finds
/// the row under any view (tally.md), and every replica decides every
/// slot, for each of them (the same sweep finds no stall).
#[test]
fn one_late_will_commit_among_honest_replicas_no_longer_stalls_the_cluster() {
    use rhdl_ubft::layout::{Mailbox, Region};
    use rhdl_ubft::params::{G, N, SB};
    use ubft_sim::backend::{self, Backend};
    use ubft_sim::cluster::NETWORK_PTR;
    let n = 3;
    let slots = 3;
    let mb = Mailbox::v2(N, G, SB);
    // When replica 1 sends its will_commit for k = 1: the cycle its kernel
    // writes it into its own HBM, in a run without the delay.
    let will_commit = NETWORK_PTR + 4 * mb.base(Region::WillCommit) as u64
        ..NETWORK_PTR + 4 * mb.base(Region::Commit) as u64;
    let mut probe = Cluster::new(quick(n, 1)).unwrap();
    probe.hbms[1].watch_writes(will_commit);
    probe.run().unwrap();
    let sent = probe.hbms[1].watched_writes()[0];
    for extra in [
        1129u64, 1203, 1314, 1388, 1573, 1758, 1943, 2128, 2313, 2498, 2683, 2868, 3053,
    ] {
        // Its RDMA WRITEs follow the local write within a few cycles; the
        // next write replica 1 makes comes after k = 2's prepare, later.
        let cfg = ClusterConfig {
            delays: vec![LinkDelay {
                src: 1,
                dst: 0,
                extra,
                from_cycle: sent,
                to_cycle: sent + 30,
                records: None,
            }],
            max_cycles: 80_000,
            ..quick(n, slots)
        };
        let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
        let report = c.run().unwrap();
        assert!(report.checks.ok(), "{extra}: {:?}", report.checks.failures);
        for r in &report.replicas {
            assert_eq!(
                r.decided.len() as u64,
                slots,
                "late by {extra}: replica {} decided every slot (view {}, {} view changes)",
                r.id,
                r.view,
                r.status.view_changes
            );
        }
        // Replicas 1 and 2 decided k = 1 on the fast path long before
        // replica 0, which got there after the late write, through a view
        // change.
        let (r0, r1) = (&report.replicas[0], &report.replicas[1]);
        assert_eq!(r1.decided[0].path, Path::Fast);
        assert!(r0.decided[0].cycle > sent + extra, "late by {extra}");
        assert!(r0.status.view_changes >= 1, "late by {extra}");
    }
}

/// Each view change since the last decision doubles the timeout (recovery.md
/// R14; protocol.md, "Timeouts"). With nothing to propose, every view times
/// out the same way (the leader idles, the followers wait for its prepare),
/// so the cycles between a replica's view-change records grow by the
/// doubled wait: the difference between consecutive gaps doubles too. The
/// first gap is view 1's, which waits twice the base, the second view 2's,
/// four times: their difference is twice the base, 2 · `wait_polls` polls
/// of an idle poll's period, a one-beat fetch (H + 2 cycles) and the
/// machine's turn around (up to 2 more).
#[test]
fn the_timeout_doubles_with_each_view_change_in_a_row() {
    use rhdl_ubft::layout::{Mailbox, Region};
    use rhdl_ubft::params::{G, N, SB};
    let n = 3;
    let cfg = ClusterConfig {
        max_cycles: 14_000,
        ..quick(n, 1)
    };
    let (wait_polls, fetch) = (cfg.wait_polls as i64, cfg.hbm_read_latency as i64 + 2);
    let mut c = ubft_sim::backend::cluster(&cfg, ubft_sim::backend::Backend::Verilator).unwrap();
    let layout = Mailbox::v2(N, G, SB);
    let vc = ubft_sim::cluster::NETWORK_PTR + 4 * layout.base(Region::Vc) as u64
        ..ubft_sim::cluster::NETWORK_PTR + 4 * layout.base(Region::VcValid) as u64;
    for r in 0..n {
        c.clients[r].limit = Some(0);
        c.hbms[r].watch_writes(vc.clone());
    }
    let report = c.run().unwrap();
    assert!(report.checks.ok());
    for r in 0..n {
        let at = c.hbms[r].watched_writes().to_vec();
        assert!(at.len() >= 5, "replica {r}: view changes at {at:?}");
        let gaps: Vec<u64> = at.windows(2).map(|w| w[1] - w[0]).collect();
        let grows: Vec<i64> = gaps.windows(2).map(|w| w[1] as i64 - w[0] as i64).collect();
        let poll = grows[0] / (2 * wait_polls);
        assert!(
            grows[0] % (2 * wait_polls) == 0 && (fetch..=fetch + 2).contains(&poll),
            "replica {r}: gaps {gaps:?}"
        );
        for w in grows.windows(2) {
            assert_eq!(w[1], 2 * w[0], "replica {r}: gaps {gaps:?}");
        }
    }
}

/// The soak's seed 152 (no fault at all): a wait of 4 polls is shorter than
/// a round trip at L = 43, so with a fixed timeout every view timed out
/// before its votes landed, and the cluster went through view after view
/// (2 of 12 slots in 40,000 cycles, views past 12, and no end to it). Now
/// each view change doubles the timeout until a view is long enough to
/// decide, and each decision halves it again: every slot is decided, after
/// view changes.
#[test]
fn a_timeout_shorter_than_a_round_trip_no_longer_stalls_the_cluster() {
    let cfg = ClusterConfig {
        seed: 152,
        net_latency: 43,
        hbm_read_latency: 18,
        hbm_write_latency: 5,
        wait_polls: 4,
        sign_latency: 345,
        verify_latency: 1040,
        max_cycles: 200_000,
        ..ClusterConfig::new(5, 12).v2()
    };
    let mut c = ubft_sim::backend::cluster(&cfg, ubft_sim::backend::Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks);
    for r in &report.replicas {
        assert_eq!(r.decided.len(), 12, "replica {}: {:?}", r.id, r.status);
        assert!(
            r.status.view_changes > 0,
            "the short wait costs view changes"
        );
    }
}
