//! The sticky slow path (protocol.md, "The sticky slow path"; recovery.md
//! D7.1): once a slot's fast path has failed, the replicas hand the later
//! slots to SLOW without waiting for votes, except the probes, until a
//! probe decides fast; the gap between probes doubles with each failure,
//! up to `PROBE_SLOTS`. So a replica that is down costs the others the
//! fast path's wait at slot 1 and half of it at the probes 2, 4, 8, 16,
//! 32, 64, ..., not in every slot; and once it is back, the next probe
//! brings every replica back to the fast path.
//!
//! The Timer counts each wait that runs out (`timeouts`): with every slot
//! decided on the slow path in one view, those are exactly the fast
//! path's waits, so the count says which slots paid one.

use rhdl_ubft::params::PROBE_SLOTS;
use ubft_sim::adversary::silent::Silent;
use ubft_sim::backend::{self, Backend};
use ubft_sim::bench::{fast_wait, is_probe};
use ubft_sim::cluster::{ClusterConfig, Event, Path};
use ubft_sim::models::network::{Adversary, Write};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig {
        wait_polls: 64,
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 2_000_000,
        ..ClusterConfig::quick(replicas, slots)
    }
}

#[test]
fn a_silent_replica_costs_the_fast_wait_at_its_first_slot_and_half_of_it_at_each_probe() {
    for n in [3, 5] {
        let slots = PROBE_SLOTS + 8;
        let cfg = quick(n, slots);
        let w = fast_wait(&cfg);
        let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
        c.set_adversary(n - 1, Box::new(Silent { from_cycle: 0 }));
        let report = c.run().unwrap();
        let s = report.summary();
        assert!(report.checks.ok(), "{:?}\n{s}", report.checks.failures);
        for x in report.honest() {
            assert_eq!(x.decided.len() as u64, slots, "{s}");
            assert!(x.decided.iter().all(|d| d.path == Path::Slow), "{s}");
            assert_eq!(x.view, 0, "{s}");
            // Slot 1 and the probes 2, 4, 8, 16 and 32: the waits that ran
            // out, no more.
            assert_eq!(x.status.timeouts, 6, "replica {}\n{s}", x.id);
        }
        // Each slot's latency to its first decision (a replica behind,
        // catching up, decides later and carries a slot's wait into the
        // next ones).
        let lat: Vec<u64> = (1..=slots)
            .map(|k| {
                let first = report
                    .honest()
                    .map(|x| x.decided[k as usize - 1].cycle)
                    .min()
                    .unwrap();
                first - report.proposal_cycles[k as usize - 1]
            })
            .collect();
        // Slot 1 and the probes 2, 4, 8, 16 and 32.
        let paid: Vec<u64> = (1..=slots).filter(|&k| is_probe(k)).collect();
        assert_eq!(paid, [1, 2, 4, 8, 16, PROBE_SLOTS]);
        // No skipped slot pays the wait: each is quicker than every probe,
        // and the typical one (the median) by more than a quarter of the
        // wait (a probe waits half of it, the Timer's `probe_expiring`). (A
        // skipped slot may pay a verify more than the others: a share
        // read while it lands fails its verify and is read again, slow.md.)
        let mut skipped: Vec<u64> = (2..=slots)
            .filter(|k| !paid.contains(k))
            .map(|k| lat[k as usize - 1])
            .collect();
        skipped.sort_unstable();
        let median = skipped[skipped.len() / 2];
        for &p in &paid {
            let lp = lat[p as usize - 1];
            assert!(
                median + w / 4 < lp,
                "n = {n}: skipped slots' median {median} cycles, slot {p} {lp}: the wait ({w}) is paid at the probes alone"
            );
            // Slot 1 waits the whole fast wait, a probe half of it.
            if p == 1 {
                assert!(
                    median + 3 * w / 4 < lp,
                    "n = {n}: slot 1 {lp}, median {median}"
                );
            } else {
                assert!(
                    lp < median + 3 * w / 4,
                    "n = {n}: probe {p} took {lp} cycles, median {median}: more than half the wait ({w})"
                );
            }
            for k in (2..=slots).filter(|k| !paid.contains(k)) {
                let l = lat[k as usize - 1];
                assert!(l < lp, "n = {n}: slot {k} took {l} cycles, probe {p} {lp}");
            }
        }
    }
}

/// Drops every write a replica sends until its own trigger fires.
struct SilentUntil(ubft_sim::cluster::Trigger);

impl Adversary for SilentUntil {
    fn transform(&mut self, _src: usize, _dst: usize, write: Write, cycle: u64) -> Vec<Write> {
        if self.0.started(cycle) {
            vec![write]
        } else {
            vec![]
        }
    }
}

#[test]
fn after_an_outage_the_first_probe_brings_every_replica_back_to_the_fast_path() {
    // Replica 2 is not heard until it has decided slot 40 (from the
    // others' COMMITs); from then on its writes land. Every replica's
    // probes are 32 slots apart by then, so slot 64 is the next.
    let back_at = PROBE_SLOTS + 8;
    let next_probe = 2 * PROBE_SLOTS;
    let slots = next_probe + 8;
    let cfg = quick(3, slots);
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let heard = c.trigger(Event::Decided {
        replica: 2,
        slot: back_at,
    });
    c.set_adversary(2, Box::new(SilentUntil(heard.clone())));
    let report = c.run().unwrap();
    let s = report.summary();
    assert!(report.checks.ok(), "{:?}\n{s}", report.checks.failures);
    assert!(heard.start().is_some());
    // Every replica, replica 2 too: slow until the probe after its return,
    // fast from it on.
    for x in &report.replicas {
        assert_eq!(x.decided.len() as u64, slots, "{s}");
        for d in &x.decided {
            let want = if d.k < next_probe {
                Path::Slow
            } else {
                Path::Fast
            };
            assert_eq!(d.path, want, "replica {}, k = {}\n{s}", x.id, d.k);
        }
    }
    for x in report.honest() {
        // Slot 1 and the probes 2 to 32, which failed; the probe at 64
        // decided fast.
        assert_eq!(x.status.timeouts, 6, "replica {}\n{s}", x.id);
    }
}

#[test]
fn a_transient_miss_costs_one_slow_slot() {
    // Replica 2's will_cert of slot 1 lands late at both peers: no
    // replica sees n will_certs, or n will_commits, and slot 1 goes slow
    // everywhere; slot 2 is a probe (every second slot after one failure)
    // and decides fast, and so does every slot after it.
    let mut cfg = quick(3, 12);
    for dst in [0, 1] {
        cfg.delays.push(ubft_sim::cluster::LinkDelay {
            src: 2,
            dst,
            extra: 3_000,
            from_cycle: 0,
            to_cycle: u64::MAX,
            records: Some(ubft_sim::cluster::Records {
                region: rhdl_ubft::layout::Region::WillCert,
                slot: Some(0),
            }),
            after: None,
        });
    }
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    let s = report.summary();
    assert!(report.checks.ok(), "{:?}\n{s}", report.checks.failures);
    for x in &report.replicas {
        let slow: Vec<u64> = x
            .decided
            .iter()
            .filter(|d| d.path == Path::Slow)
            .map(|d| d.k)
            .collect();
        assert!(
            slow.len() <= 2 && slow.iter().all(|&k| k <= 2),
            "replica {}: slow {slow:?}\n{s}",
            x.id
        );
        assert_eq!(x.decided.len(), 12, "{s}");
    }
    assert!(report.replicas[0].decided[0].path == Path::Slow, "{s}");
}
