//! A replica that floods (`kind = "flood"`, `adversary::flood`): writes of
//! its own at the link's line rate, besides its kernel's. The receiving
//! stacks keep one queue per sending queue pair and serve them round robin
//! (docs/roce.md, "Receive queues"), so the flood fills only its own queue:
//! an honest write waits on a receive path for at most one turn of n − 1
//! writes per write ahead of it in its own queue. A completion comes only
//! after the receiver's status for the write (docs/roce.md, "Write
//! status"), so a round (R13) ends with its records in every HBM however
//! long they waited (`params::D_LAND` = 0): every acknowledged write is
//! checked to be in the receiver's HBM when it is acknowledged
//! (`NetworkReport::status_errors`). Checked at n = 3 and n = 5, with an
//! honest leader and with a faulty one: agreement, validity, and every
//! honest replica deciding every slot.

use ubft_sim::backend::Backend;
use ubft_sim::models::network::LINE_RATE_CYCLES;
use ubft_sim::scenario::{Fault, Scenario};

/// The guard's longest write: a NEW_VIEW record (docs/guard.md, Timing).
const LONGEST_WRITE: u64 = 44;

fn flood(replica: usize, target: Option<usize>) -> Fault {
    Fault::Flood {
        replica,
        target,
        from_cycle: 0,
        to_cycle: None,
    }
}

/// Runs `s`; checks agreement, validity, k order, the guard and the
/// statuses, that every honest replica decided every slot, and that no
/// honest write waited on a receive path longer than one turn per write of
/// its queued ahead of it.
fn run(s: &Scenario) -> ubft_sim::cluster::RunReport {
    let r = s.run(Backend::Verilator).unwrap();
    assert!(r.checks.ok(), "{:?}", r.checks.failures);
    let net = &r.network;
    assert_eq!(net.status_errors, 0);
    for h in r.honest() {
        assert_eq!(
            h.decided.len() as u64,
            s.slots,
            "replica {}: {:?}",
            h.id,
            h.status
        );
        let i = h.id;
        assert_eq!(net.rx_dropped[i], 0, "replica {i}");
        let turn = (s.replicas as u64 - 1) * LONGEST_WRITE;
        assert!(
            net.rx_wait_max[i] <= net.rx_depth_max[i] * turn,
            "replica {i}: waited {} with at most {} queued",
            net.rx_wait_max[i],
            net.rx_depth_max[i]
        );
    }
    eprintln!(
        "n = {}: {} cycles; waits {:?}, depths {:?}, dropped {:?}, emitted {:?}",
        s.replicas, r.cycles, net.rx_wait_max, net.rx_depth_max, net.rx_dropped, net.emitted
    );
    r
}

/// A flood aimed at one peer fills the flooder's own queue there and drops:
/// it sends a write every `LINE_RATE_CYCLES` = 4, the guard's best pace,
/// and the other senders' writes take their turns beside it.
fn assert_saturated(r: &ubft_sim::cluster::RunReport, flooder: usize) {
    let net = &r.network;
    assert!(net.emitted[flooder] > 1_000, "{:?}", net.emitted);
    assert!(net.rx_dropped[flooder] > 0, "{:?}", net.rx_dropped);
    assert_eq!(
        net.rx_depth_max[flooder],
        ubft_sim::models::network::RX_QP_DEPTH as u64
    );
}

#[test]
fn without_a_flood_honest_writes_wait_at_most_a_turn() {
    let mut s = Scenario::new(3, 4);
    s.max_cycles = 400_000;
    let r = run(&s);
    assert_eq!(r.network.emitted, vec![0; 3]);
    assert_eq!(r.network.rx_dropped, vec![0; 3]);
}

#[test]
fn n3_a_flood_into_one_replica_beside_an_honest_leader() {
    // Replica 2 floods replica 1 alone: the leader's writes to replica 1
    // pass the flood at once, turn by turn. Replica 2's own fast votes
    // queue behind its flood, so every slot goes slow.
    let mut s = Scenario::new(3, 4);
    s.max_cycles = 400_000;
    s.faults.push(flood(2, Some(1)));
    let r = run(&s);
    assert_saturated(&r, 2);
    assert!(
        r.network.rx_wait_max[0] <= 2 * LONGEST_WRITE,
        "{:?}",
        r.network.rx_wait_max
    );
}

#[test]
fn n3_a_flooding_leader() {
    // The view-0 leader floods replica 1 through the first three slots; its
    // kernel is otherwise honest, but its own writes to replica 1 share the
    // flood's queue there and are mostly dropped, so replica 1 decides from
    // replica 2's COMMITs, late. With the flood on for the whole run,
    // replica 1 is still a slot behind when the others finish, and no
    // later slot's certificate lets it catch up: the run's last slot
    // (docs/protocol.md, "Weaknesses").
    let mut s = Scenario::new(3, 4);
    s.max_cycles = 1_000_000;
    s.faults.push(Fault::Flood {
        replica: 0,
        target: Some(1),
        from_cycle: 0,
        to_cycle: Some(60_000),
    });
    let r = run(&s);
    assert_saturated(&r, 0);
}

#[test]
fn n3_a_flood_spread_over_every_peer_costs_the_fast_path_nothing() {
    // At line rate over both peers in turn, each receives a write every 8
    // cycles, which its guard (a write every 4) keeps up with: the leader (the flooder)
    // still decides every slot fast.
    let mut s = Scenario::new(3, 4);
    s.max_cycles = 400_000;
    s.faults.push(flood(0, None));
    let r = run(&s);
    // A write every LINE_RATE_CYCLES for the whole run.
    assert!(
        r.network.emitted[0] + 1 >= r.cycles / LINE_RATE_CYCLES,
        "{:?} in {} cycles",
        r.network.emitted,
        r.cycles
    );
    assert!(
        r.honest().all(|h| h.status.fast == 4),
        "{:?}",
        r.replicas[1].status
    );
}

#[test]
fn n5_a_flood_into_the_next_leader_beside_an_honest_leader() {
    let mut s = Scenario::new(5, 4);
    s.max_cycles = 600_000;
    s.faults.push(flood(4, Some(1)));
    let r = run(&s);
    assert_saturated(&r, 4);
}

#[test]
fn n5_a_flood_into_the_next_leader_beside_a_silent_leader() {
    // f = 2: the view-0 leader is silent from the start and replica 4
    // floods replica 1, view 1's leader; the three honest replicas change
    // view and decide.
    let mut s = Scenario::new(5, 4);
    s.max_cycles = 1_500_000;
    s.faults.push(Fault::Silent {
        replica: 0,
        from_cycle: 0,
        from: None,
    });
    s.faults.push(flood(4, Some(1)));
    let r = run(&s);
    assert_saturated(&r, 4);
    assert!(r.honest().all(|h| h.status.view_changes > 0));
}

#[test]
fn n5_a_flood_into_a_follower_beside_an_equivocating_leader() {
    let mut s = Scenario::new(5, 4);
    s.max_cycles = 1_500_000;
    s.faults.push(Fault::Equivocate { replica: 0 });
    s.faults.push(flood(3, Some(2)));
    let r = run(&s);
    assert_saturated(&r, 3);
}

#[test]
fn a_flood_is_refused_where_it_names_no_peer() {
    let mut s = Scenario::new(3, 4);
    s.faults.push(flood(2, Some(2)));
    let e = s.check().unwrap_err();
    assert!(e.contains("target must be a peer"), "{e}");
    let t = "replicas = 3\nslots = 2\n[[fault]]\nkind = \"flood\"\nreplica = 1\nfrom_cycle = 500\nto_cycle = 9000\n";
    let s = Scenario::from_toml(t).unwrap();
    assert_eq!(s.settle_cycle(), Some(9000));
    assert_eq!(s.faulty().into_iter().collect::<Vec<_>>(), vec![1]);
}
