//! A replica that floods (`kind = "flood"`, `adversary::flood`): its
//! writes at the link's line rate queue on the target's receive path
//! ahead of honest writes, and the network model measures how long those
//! wait before the guard takes them (`NetworkReport::rx_wait_max`,
//! `late_for_round`). D_LAND (`params::D_LAND`) assumes an idle guard: a
//! round (R13) tolerates a wait of L + 2 cycles, the completion's way back
//! plus Broadcast's two, and a flood makes honest writes wait longer
//! (docs/protocol.md, "Weaknesses"). Agreement and validity still hold.

use ubft_sim::backend::Backend;
use ubft_sim::scenario::{Fault, Scenario};

fn run(s: &Scenario) -> ubft_sim::cluster::RunReport {
    let r = s.run(Backend::Verilator).unwrap();
    assert!(r.checks.ok(), "{:?}", r.checks.failures);
    r
}

#[test]
fn without_a_flood_no_honest_write_waits_past_d_lands_slack() {
    let mut s = Scenario::new(3, 4);
    s.max_cycles = 400_000;
    let r = run(&s);
    let slack = s.net_latency + 2;
    for src in 0..3 {
        assert_eq!(r.network.late_for_round[src], 0, "replica {src}");
        assert!(
            r.network.rx_wait_max[src] <= slack,
            "replica {src}: {:?}",
            r.network.rx_wait_max
        );
    }
    assert_eq!(r.network.emitted, vec![0; 3]);
}

#[test]
fn a_flood_into_one_replica_delays_honest_writes_past_d_lands_slack() {
    // n = 3: replica 2 floods replica 1 for the whole run; replica 0 (the
    // leader) and replica 1 are honest.
    let mut s = Scenario::new(3, 4);
    s.max_cycles = 400_000;
    s.faults.push(Fault::Flood {
        replica: 2,
        target: Some(1),
        from_cycle: 0,
        to_cycle: None,
    });
    let r = run(&s);
    let slack = s.net_latency + 2;
    let net = &r.network;
    assert!(net.emitted[2] > 1_000, "{:?}", net.emitted);
    assert_eq!(net.emitted[0] + net.emitted[1], 0);
    // The honest leader's writes to replica 1 queue behind the flood.
    assert!(net.rx_wait_max[0] > 100 * slack, "{:?}", net.rx_wait_max);
    assert!(net.late_for_round[0] > 0, "{:?}", net.late_for_round);
    eprintln!(
        "flood: waits {:?}, late {:?}, emitted {:?}, decided {:?}, cycles {}",
        net.rx_wait_max,
        net.late_for_round,
        net.emitted,
        r.honest().map(|h| h.decided.len()).collect::<Vec<_>>(),
        r.cycles
    );
}

#[test]
fn a_flood_is_refused_where_it_names_no_peer() {
    let mut s = Scenario::new(3, 4);
    s.faults.push(Fault::Flood {
        replica: 2,
        target: Some(2),
        from_cycle: 0,
        to_cycle: None,
    });
    let e = s.check().unwrap_err();
    assert!(e.contains("target must be a peer"), "{e}");
    let t = "replicas = 3\nslots = 2\n[[fault]]\nkind = \"flood\"\nreplica = 1\nfrom_cycle = 500\nto_cycle = 9000\n";
    let s = Scenario::from_toml(t).unwrap();
    assert_eq!(s.settle_cycle(), Some(9000));
    assert_eq!(s.faulty().into_iter().collect::<Vec<_>>(), vec![1]);
}
