//! The view change: the view advances, the leader rotates, and every replica
//! recovers the slot's value by itself with the f + 1 rule.

use ubft_sim::client::{proposal, stream_seed};
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig::quick(replicas, slots)
}

/// The leader's prepare reaches replica 1 too late for both paths. Replicas
/// 0 and 2 voted for it (phase 1), replica 1 never saw it (phase 0): the
/// view changes, f + 1 = 2 records report (k = 1, m), every replica installs
/// it and decides it once, and the next slots are proposed by the leaders
/// of the later views from their own queues. (Replica 1 completes view 1
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
        }],
        ..quick(n, slots)
    };
    let seed = cfg.seed;
    let report = Cluster::new(cfg).unwrap().run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let leader0 = proposal(stream_seed(seed, 0), 0);
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
        assert_eq!(
            r.decided.iter().filter(|d| d.m == leader0).count(),
            1,
            "decided once"
        );
        // Later slots: proposals of the final view's leader.
        let leader = r.view as usize % n;
        assert_ne!(leader, 0);
        for d in &r.decided[1..] {
            let by_leader = (0..slots).any(|i| proposal(stream_seed(seed, leader), i) == d.m);
            assert!(
                by_leader,
                "replica {}: k = {} was proposed by replica {leader}",
                r.id, d.k
            );
        }
    }
    assert!(report.proposed.len() as u64 >= slots);
}

/// The prepare reaches nobody but the leader: one record (the leader's own)
/// has phase 1, fewer than f + 1, so no value can have been decided, and the
/// new leader proposes from its queue.
#[test]
fn with_no_value_reported_by_f_plus_1_the_new_leader_proposes_from_its_queue() {
    let n = 3;
    let cfg = ClusterConfig {
        delays: vec![
            LinkDelay {
                src: 0,
                dst: 1,
                extra: 3_000,
                from_cycle: 0,
                to_cycle: 200,
            },
            LinkDelay {
                src: 0,
                dst: 2,
                extra: 3_000,
                from_cycle: 0,
                to_cycle: 200,
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
        let by_new_leader = (1..n).any(|l| proposal(stream_seed(seed, l), 0) == r.decided[0].m);
        assert!(
            by_new_leader,
            "replica {}: k = 1 is a new leader's first value",
            r.id
        );
        assert!(!r
            .decided
            .iter()
            .any(|d| d.m == proposal(stream_seed(seed, 0), 0)));
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
/// each, in the view change, that it voted for that peer's m. Each honest
/// replica sees f + 1 = 2 reports (its own and the liar's) for a different
/// value and installs it: the honest replicas choose different candidates.
/// The all-n quorum keeps them from deciding differently: that view decides
/// nothing, and a later view with an honest leader proposes afresh.
#[test]
fn a_split_view_makes_honest_replicas_choose_differently_but_not_decide_differently() {
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
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(0, Box::new(SplitView::new(n, mb.clone())));
    // Run to the first view change's install on both honest replicas.
    let prepare =
        |c: &Cluster, r: usize| c.hbms[r].read_words(NETWORK_PTR + 4 * mb.prepare(0) as u64, 4);
    while !(1..n).all(|r| prepare(&c, r)[2] >= 1) {
        c.step().unwrap();
        assert!(c.cycle < 20_000, "no view change was installed");
    }
    let (p1, p2) = (prepare(&c, 1), prepare(&c, 2));
    assert_eq!(
        (p1[0], p2[0], p1[2], p2[2]),
        (1, 1, 1, 1),
        "both installed k = 1 in view 1"
    );
    assert_ne!(
        p1[1], p2[1],
        "the honest replicas chose different candidates: {p1:?} {p2:?}"
    );
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in report.honest() {
        assert_eq!(
            r.decided.len() as u64,
            slots,
            "replica {} recovered in a later view",
            r.id
        );
        assert!(
            r.view >= 2 && r.status.view_changes >= 2,
            "replica {}: view 1 decided nothing",
            r.id
        );
        assert!(
            !r.decided.iter().any(|d| d.m == p1[1] || d.m == p2[1]),
            "no split candidate was decided"
        );
    }
}
