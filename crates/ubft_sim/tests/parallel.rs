//! A cluster of the shipped kernel (v3) stepped on several threads
//! (`Cluster::set_threads`, `parallel.rs`) is the same run as one stepped
//! on one: for each configuration, the whole JSON report (every decision
//! and its cycle, the status registers the hosts read at the end, the
//! network's and guards' counters, the checks) and the cycle the run ended
//! at are identical. The configurations cover the ways a parallel run could
//! drift: the fast path, the slow path, view changes, Byzantine writes,
//! link delays, a thread holding only a faulty replica, the model's
//! delivery, a budget that ends the run, a reset with a mailbox clear
//! in the middle, and one replica's restart placed by its decision.

use rhdl_ubft::layout::Version;
use std::path::PathBuf;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{Cluster, ClusterConfig, Event, LinkDelay};
use ubft_sim::models::network::Delivery;
use ubft_sim::scenario::Scenario;

/// Runs `make()` on 1 thread and on each of `threads`; asserts the reports
/// and end cycles agree. Returns the report (JSON) for further checks.
fn same_run(name: &str, make: impl Fn() -> Cluster, threads: &[usize]) -> serde_json::Value {
    let mut one = make();
    one.set_threads(1);
    let base = one.run().unwrap_or_else(|e| panic!("{name}: {e}"));
    let base_json = serde_json::to_value(&base).unwrap();
    for &t in threads {
        let mut c = make();
        c.set_threads(t);
        assert_eq!(c.threads(), t, "{name}: the Verilator kernels can move");
        let r = c
            .run()
            .unwrap_or_else(|e| panic!("{name}, {t} threads: {e}"));
        assert_eq!(
            c.cycle, one.cycle,
            "{name}, {t} threads: the run ended elsewhere"
        );
        let json = serde_json::to_value(&r).unwrap();
        if json != base_json {
            panic!(
                "{name}, {t} threads: the report differs\n1 thread: {}\n{t} threads: {}",
                serde_json::to_string(&base_json).unwrap(),
                serde_json::to_string(&json).unwrap()
            );
        }
    }
    base_json
}

fn verilator(cfg: ClusterConfig) -> Cluster {
    backend::cluster(&cfg, Backend::Verilator).expect("a Verilator cluster")
}

fn scenario(file: &str, max_cycles: u64) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    let mut sc = Scenario::from_file(&path).unwrap();
    sc.max_cycles = max_cycles;
    sc
}

#[test]
fn the_fast_path_on_two_and_three_threads() {
    let cfg = ClusterConfig::quick(3, 12);
    let r = same_run("fast n=3", || verilator(cfg.clone()), &[2, 3]);
    assert_eq!(r["replicas"][0]["decided"].as_array().unwrap().len(), 12);
    let cfg = ClusterConfig::quick(5, 6);
    same_run("fast n=5", || verilator(cfg.clone()), &[2]);
}

#[test]
fn an_equivocating_leader_and_the_view_change() {
    let cfg = ClusterConfig {
        equivocate: vec![0],
        wait_polls: 8,
        ..ClusterConfig::quick(3, 4)
    };
    // Replica 0 is faulty: with 3 threads it runs on a thread of its own,
    // which can never stop early.
    let r = same_run("equivocate", || verilator(cfg.clone()), &[2, 3]);
    // The honest replicas left view 0 and decided on the slow path.
    for x in &r["replicas"].as_array().unwrap()[1..] {
        assert!(x["status"]["view_changes"].as_u64().unwrap() > 0, "{x}");
        assert!(x["status"]["slow"].as_u64().unwrap() > 0, "{x}");
    }
}

/// Link delays at cycles and placed by an event (the trigger fired by the
/// sender's stack, on whichever thread steps it), the defaults, and the
/// network model's delivery.
#[test]
fn link_delays_the_default_latencies_and_the_models_delivery() {
    // A window at cycles: the cycle numbers are what this run tests (a
    // window the same on every thread), not a placement of a situation.
    let cfg = ClusterConfig {
        delays: vec![LinkDelay {
            src: 1,
            dst: 2,
            extra: 2_000,
            from_cycle: 1_500,
            to_cycle: 4_000,
            records: None,
            after: None,
        }],
        ..ClusterConfig::quick(3, 8)
    };
    same_run("delay", || verilator(cfg.clone()), &[2, 3]);
    // Placed by an event: replica 2's writes to replica 0 land 2,000 cycles
    // late for 2,500 cycles from the one after it decides slot 3: slots 1
    // to 3 fast, and replica 0 decides a later one on the slow path.
    let cfg = ClusterConfig {
        delays: vec![LinkDelay {
            src: 2,
            dst: 0,
            extra: 2_000,
            from_cycle: 0,
            to_cycle: 2_500,
            records: None,
            after: Some(Event::Decided {
                replica: 2,
                slot: 3,
            }),
        }],
        ..ClusterConfig::quick(3, 8)
    };
    let r = same_run("delay after an event", || verilator(cfg.clone()), &[2, 3]);
    let paths = |x: &serde_json::Value| -> Vec<String> {
        x["decided"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["path"].as_str().unwrap().to_string())
            .collect()
    };
    let r0 = paths(&r["replicas"][0]);
    assert_eq!(&r0[..3], ["fast", "fast", "fast"], "{r0:?}");
    assert!(
        r0[3..].iter().any(|p| p == "slow"),
        "the delay began after slot 3: {r0:?}"
    );
    let cfg = ClusterConfig::new(3, 3);
    same_run("defaults", || verilator(cfg.clone()), &[2]);
    let cfg = ClusterConfig {
        delivery: Delivery::Model,
        seed: 5,
        ..ClusterConfig::quick(3, 5)
    };
    same_run("model delivery", || verilator(cfg.clone()), &[2]);
}

/// Byzantine scenarios of the shipped kernel: a follower silent from its
/// will_commit of slot 13 (an event; every later slot on the slow path)
/// and a liar in the view change
/// (`lie_vc`, whose SEAL R21 refuses) run to their end; an equivocating
/// leader that splits the view (`split_view`) and a random writer are
/// stopped by a budget in the middle of their runs.
#[test]
fn byzantine_scenarios_and_a_budget_that_ends_the_run() {
    for (file, budget, completes) in [
        ("silent.toml", 40_000, true),
        ("lie_vc.toml", 80_000, true),
        ("split_view.toml", 40_000, false),
        ("random.toml", 40_000, false),
    ] {
        let sc = scenario(file, budget);
        assert_eq!(sc.layout, Version::V3, "{file}");
        let r = same_run(file, || sc.cluster(Backend::Verilator).unwrap(), &[2]);
        let honest: Vec<&serde_json::Value> = r["replicas"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["honest"] == true)
            .collect();
        let decided = |x: &serde_json::Value| x["decided"].as_array().unwrap().len() as u64;
        assert_eq!(
            honest.iter().all(|x| decided(x) == sc.slots),
            completes,
            "{file}: every honest replica decided every slot within {budget} cycles"
        );
        assert!(r["checks"]["agreement"] == true, "{file}");
    }
}

#[test]
fn a_reset_with_a_mailbox_clear_in_the_middle() {
    let run = |threads: usize| {
        let mut c = verilator(ClusterConfig::quick(3, 1_000));
        c.set_threads(threads);
        // Step to the middle of a slot, reset, then run to a budget.
        while c.clients.iter().any(|cl| cl.decisions().len() < 3) {
            c.step().unwrap();
        }
        for _ in 0..60 {
            c.step().unwrap();
        }
        c.reset(200, true);
        c.cfg.max_cycles = c.cycle + 20_000;
        let r = c.run().unwrap();
        (c.cycle, serde_json::to_value(&r).unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
    let decided = one.1["replicas"][0]["decided"].as_array().unwrap().len();
    assert!(decided > 8, "the cluster restarted and decided again");
}

#[test]
fn one_replica_restarting_at_its_decision() {
    // The leader's restart begins in its own thread, the cycle after its
    // client takes slot 4: the same cycle on any number of threads.
    let scenario = "replicas = 3\nslots = 10\nwait_polls = 64\nsign_latency = 300\n\
                    verify_latency = 500\nnet_latency = 40\nhbm_read_latency = 12\n\
                    hbm_write_latency = 6\n[[fault]]\nkind = \"restart\"\nreplica = 0\n\
                    from = { decided = 4 }\n";
    let sc = Scenario::from_toml(scenario).unwrap();
    let r = same_run(
        "restart",
        || sc.cluster(Backend::Verilator).unwrap(),
        &[2, 3],
    );
    assert_eq!(r["replicas"][0]["restarts"].as_array().unwrap().len(), 1);
    assert_eq!(r["replicas"][1]["decided"].as_array().unwrap().len(), 10);
}
