//! A replica's kernel restarting alone in a running cluster
//! (`Cluster::restart`, the scenario kind `restart`), placed by the
//! replica's own decision: its `ap_rst_n` falls the cycle after its client
//! takes the decision, its host drops its operations, and after the reset
//! the host starts the kernel again, its mailbox zeroed or not. The peers'
//! writes and completions go on throughout (the card's stack stays up).
//!
//! The kernel has no rejoin (recovery.md section 17, R33, is not built), so
//! the restarted replica counts among the f. What these runs show is what
//! the others owe it: they never stop deciding, a follower's restart costs
//! no view change, a leader's costs one, and every decision the restarted
//! replica makes, before or after its restart, agrees with theirs (the
//! run's checks hold it to agreement, validity and order, k starting again
//! at 1 at the restart).

use ubft_sim::backend::{self, Backend};
use ubft_sim::bench::recovery_bound;
use ubft_sim::cluster::{ClusterConfig, Event, RestartAt, RunReport};
use ubft_sim::scenario::{Scenario, RESTART_RESET_CYCLES};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig {
        wait_polls: 64,
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 600_000,
        ..ClusterConfig::quick(replicas, slots)
    }
}

/// Runs `cfg` with replica `r`'s kernel restarted after it decided slot
/// `after`.
fn run(cfg: &ClusterConfig, r: usize, after: u64, clear: bool) -> RunReport {
    let mut c = backend::cluster(cfg, Backend::Verilator).unwrap();
    c.restart(
        r,
        RestartAt::Event(Event::Decided {
            replica: r,
            slot: after,
        }),
        RESTART_RESET_CYCLES,
        clear,
    );
    assert!(!c.is_live(r) && c.is_honest(r));
    c.run().unwrap()
}

/// The run's checks hold (agreement, validity and order include the
/// restarted replica `r`), `r` restarted once, `reset` cycles after its
/// decision of slot `after`, having decided slots 1..=after before; every
/// other replica decided every slot, none of them waiting more than
/// `recovery_bound` between two decisions after the restart.
fn others_never_stop(cfg: &ClusterConfig, report: &RunReport, r: usize, after: u64) -> u64 {
    let s = report.summary();
    assert!(report.checks.ok(), "{:?}\n{s}", report.checks.failures);
    let me = &report.replicas[r];
    assert!(me.honest);
    let decided = me.decided.iter().find(|d| d.k == after).unwrap().cycle;
    assert_eq!(me.restarts, vec![decided + 1 + RESTART_RESET_CYCLES], "{s}");
    let before: Vec<u64> = me
        .decided
        .iter()
        .filter(|d| d.cycle <= decided)
        .map(|d| d.k)
        .collect();
    assert_eq!(before, (1..=after).collect::<Vec<_>>(), "{s}");
    assert!(s.contains(&format!(
        "replica {r} (restarted at cycle {})",
        me.restarts[0]
    )));
    let live: Vec<_> = report.live().collect();
    assert_eq!(live.len(), cfg.replicas - 1);
    let bound = recovery_bound(cfg);
    for x in live {
        assert_eq!(x.decided.len() as u64, cfg.slots, "replica {}\n{s}", x.id);
        let mut last = decided;
        for d in x.decided.iter().filter(|d| d.cycle > decided) {
            assert!(
                d.cycle - last <= bound,
                "replica {} waited {} cycles for k = {} (bound {bound})\n{s}",
                x.id,
                d.cycle - last,
                d.k
            );
            last = d.cycle;
        }
    }
    decided
}

#[test]
fn a_follower_restarting_with_its_mailbox_cleared_costs_the_others_no_view() {
    let cfg = quick(3, 12);
    let report = run(&cfg, 2, 4, true);
    others_never_stop(&cfg, &report, 2, 4);
    // The leader is timely: the two others decide on without a view
    // change, on the slow path once the restarted replica's fast votes
    // stop.
    for x in report.live() {
        assert_eq!(x.view, 0, "{}", report.summary());
        assert!(x
            .decided
            .iter()
            .filter(|d| d.k > 5)
            .all(|d| d.path == ubft_sim::cluster::Path::Slow));
    }
}

#[test]
fn a_leader_restarting_costs_the_others_one_view_change() {
    let cfg = quick(3, 12);
    let report = run(&cfg, 0, 4, true);
    others_never_stop(&cfg, &report, 0, 4);
    for x in report.live() {
        assert_eq!(x.view, 1, "{}", report.summary());
    }
}

#[test]
fn at_n5_a_follower_restarting_with_its_mailbox_kept_costs_no_view() {
    let cfg = quick(5, 10);
    let report = run(&cfg, 3, 3, false);
    others_never_stop(&cfg, &report, 3, 3);
    for x in report.live() {
        assert_eq!(x.view, 0, "{}", report.summary());
    }
}

#[test]
fn a_restart_is_data_in_a_scenario() {
    let s = Scenario::from_toml(
        "replicas = 3\nslots = 10\nwait_polls = 64\nsign_latency = 300\nverify_latency = 500\n\
         net_latency = 40\nhbm_read_latency = 12\nhbm_write_latency = 6\n\
         [[fault]]\nkind = \"restart\"\nreplica = 1\nfrom = { decided = 3 }\n",
    )
    .unwrap();
    // A restart counts among the f: no other fault fits at n = 3.
    assert_eq!(s.faulty().into_iter().collect::<Vec<_>>(), vec![1]);
    let report = s.run(Backend::Verilator).unwrap();
    others_never_stop(&s.config(), &report, 1, 3);
    // Its writes pass unchanged: it is honest, and the report says so.
    assert!(report.replicas[1].honest);
    assert!(report.to_json().contains("\"restarts\""));
}

#[test]
fn a_restart_scenario_that_breaks_a_rule_is_refused_with_it() {
    let with = |fault: &str| {
        Scenario::from_toml(&format!(
            "replicas = 3\nslots = 4\n[[fault]]\nkind = \"restart\"\nreplica = 1\n{fault}"
        ))
    };
    assert!(with("from_cycle = 5000\nclear = false\nreset_cycles = 10\n").is_ok());
    let err = |fault: &str| with(fault).unwrap_err();
    assert!(err("").contains("from_cycle = 0 is not after the kernels' start"));
    assert!(err("from_cycle = 9\nfrom = { decided = 2 }\n").contains("not both"));
    assert!(err("from_cycle = 5000\nreset_cycles = 0\n").contains("reset_cycles = 0"));
    assert!(err("from = { decided = 2, replica = 0 }\n").contains("only its own replica's"));
    let two =
        "replicas = 3\nslots = 4\n[[fault]]\nkind = \"restart\"\nreplica = 1\nfrom_cycle = 5000\n\
               [[fault]]\nkind = \"silent\"\nreplica = 1\n";
    assert!(Scenario::from_toml(two)
        .unwrap_err()
        .contains("also has a Byzantine fault"));
    let other =
        "replicas = 3\nslots = 4\n[[fault]]\nkind = \"restart\"\nreplica = 1\nfrom_cycle = 5000\n\
                 [[fault]]\nkind = \"silent\"\nreplica = 2\n";
    assert!(Scenario::from_toml(other)
        .unwrap_err()
        .contains("tolerates at most f"));
}
