//! The decision chain on clusters of the shipped kernel (docs/chain.md):
//! at the end of a run every honest replica's `chain_k` names its last
//! decision and `chain_h` is SHA-256's chain of its decisions, so honest
//! replicas hold equal chains; on the fast path, after a view change on
//! the slow path, and with a host holding decisions back. The run's own
//! check (`Checks::chain`, part of every cluster test's `checks.ok()`) is
//! asserted beside the explicit comparison. A burst that fills Chain's
//! queue is the block's own test (`rhdl_ubft/tests/chain.rs`).

use rhdl_ubft::controller::chain;
use rhdl_ubft::params::CHAIN_QUEUE;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{Cluster, ClusterConfig, Path, RunReport};
use ubft_sim::models::client::proposal;
use ubft_sim::ports::Ready;

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig {
        wait_polls: 64,
        ..ClusterConfig::quick(replicas, slots)
    }
}

/// Every honest replica's chain registers hold h_slots of the client's
/// stream, k = 1..=slots; returns that chain.
fn chains_are_the_streams(c: &Cluster, report: &RunReport, seed: u64, slots: u64) -> [u32; 8] {
    assert!(
        report.checks.ok() && report.checks.chain,
        "{:?}\n{}",
        report.checks.failures,
        report.summary()
    );
    let want = chain::chain((1..=slots).map(|k| (k, proposal(seed, k - 1))));
    assert_ne!(want, [0; 8]);
    let hex: String = want.iter().map(|w| format!("{w:08x}")).collect();
    for r in report.honest() {
        let s = c.status(r.id);
        assert_eq!(
            (s.chain_k as u64, s.chain_h),
            (slots, want),
            "replica {}\n{}",
            r.id,
            report.summary()
        );
        // The report and its summary show the same chain, as hex digits.
        assert_eq!((r.status.chain_k as u64, &r.status.chain_h), (slots, &hex));
        assert!(report
            .summary()
            .contains(&format!("chain h_{slots} {}…", &hex[..16])));
    }
    want
}

#[test]
fn after_a_fast_run_every_replica_holds_the_streams_chain() {
    for n in [3, 5] {
        let cfg = quick(n, 8);
        let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
        let report = c.run().unwrap();
        assert!(report.replicas.iter().all(|r| r.decided.len() == 8));
        assert!(report
            .replicas
            .iter()
            .all(|r| r.decided.iter().all(|d| d.path == Path::Fast)));
        chains_are_the_streams(&c, &report, cfg.seed, 8);
    }
}

#[test]
fn after_a_view_change_the_honest_replicas_hold_the_same_chain() {
    // The view-0 leader is silent from the start: the others change view
    // and decide on the slow path.
    let cfg = ClusterConfig {
        max_cycles: 150_000,
        sign_latency: 300,
        verify_latency: 500,
        ..quick(3, 6)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        0,
        Box::new(ubft_sim::adversary::silent::Silent { from_cycle: 0 }),
    );
    let report = c.run().unwrap();
    assert!(report.honest().all(|r| r.decided.len() == 6 && r.view >= 1));
    chains_are_the_streams(&c, &report, cfg.seed, 6);
}

#[test]
fn a_host_that_takes_decisions_late_still_gets_every_one_hashed_in_order() {
    // Replica 1's host takes no decision for 20,000 cycles: its kernel
    // waits in Decide with the first one on the stream, the others go on,
    // and replica 1 then catches up, its decisions a few hundred cycles
    // apart.
    let slots = 3 * CHAIN_QUEUE as u64;
    let cfg = ClusterConfig {
        max_cycles: 400_000,
        ..quick(3, slots)
    };
    let seed = cfg.seed;
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.clients[1].dec_ready = Ready::LowDuring {
        from: 0,
        to: 20_000,
    };
    let report = c.run().unwrap();
    let taken: Vec<u64> = report.replicas[1].decided.iter().map(|d| d.cycle).collect();
    assert!(taken[0] >= 20_000);
    chains_are_the_streams(&c, &report, seed, slots);
}
