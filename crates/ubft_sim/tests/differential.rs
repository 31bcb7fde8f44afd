//! Differential: the same scenario on rust-hdl's simulator and on the
//! exported Verilog under Verilator, in lockstep, every output port of every
//! replica compared on every cycle. A difference names the first cycle,
//! replica and port.

use rhdl_ubft::params::defaults;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{Cluster, ClusterConfig};
use ubft_sim::lockstep::{differential, differential_with, Lockstep, Mismatch, Watch};
use ubft_sim::ports::{KernelBackend, KernelIn, KernelOut};
use ubft_sim::verilator::kernel_port_map;

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    // The tests' short links, with the longer wait (64 polls) and the
    // default signer these tests were written for.
    ClusterConfig {
        wait_polls: 64,
        sign_latency: defaults::SIGN_LATENCY,
        verify_latency: defaults::VERIFY_LATENCY,
        ..ClusterConfig::quick(replicas, slots).v2()
    }
}

#[test]
fn fast_path_agrees_on_both_backends_for_20k_cycles() {
    let cfg = ClusterConfig {
        seed: 5,
        ..quick(3, 100)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 20_000)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.cycles >= 20_000, "only {} cycles", a.cycles);
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        assert!(
            r.decided.len() >= 40,
            "replica {} decided {}",
            r.id,
            r.decided.len()
        );
    }
    eprintln!(
        "{} cycles compared, {} decisions each",
        a.cycles,
        a.report.replicas[0].decided.len()
    );
}

/// A forger's writes into other replicas' entries, refused by the receivers'
/// guards, under HBM back-pressure on `m_axi_rx`: both backends agree on
/// every port (the receive streams, `m_axi_rx` and the counters read back).
#[test]
fn the_guards_refusals_agree_on_both_backends() {
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, N, SB};
    use ubft_sim::adversary::Forge;
    use ubft_sim::network::Ready;
    let cfg = ClusterConfig {
        max_cycles: 4_000,
        ..quick(3, 2)
    };
    let a = differential_with(&cfg, Backend::RustHdl, Backend::Verilator, 0, |c| {
        c.set_adversary(2, Box::new(Forge::new(3, Mailbox::v2(N, G, SB), 9)));
        c.hbms[0].rx_aw_ready = Ready::Every {
            period: 3,
            phase: 1,
        };
        c.hbms[1].rx_w_ready = Ready::Every {
            period: 2,
            phase: 0,
        };
    })
    .unwrap()
    .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    assert_eq!(a.report.network.guard_disagreements, 0);
    for r in [0, 1] {
        let g = &a.report.replicas[r].guard;
        assert!(g.refused > 0 && g.accepted > 0, "replica {r}: {g:?}");
    }
}

#[test]
fn an_equivocating_leader_agrees_on_both_backends() {
    let cfg = ClusterConfig {
        equivocate: vec![0],
        wait_polls: 8,
        max_cycles: 6_000,
        ..quick(5, 3)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 0)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(a.cycles, 6_000);
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in a.report.honest() {
        assert!(r.status.timeouts > 0, "replica {} did not time out", r.id);
    }
}

/// The slow path on both backends: replica 1's writes reach replica 0 late
/// for the whole run, so every slot times out on the fast path and is decided
/// with signatures.
#[test]
fn slow_path_agrees_on_both_backends_for_20k_cycles() {
    use ubft_sim::cluster::{LinkDelay, Path};
    let cfg = ClusterConfig {
        wait_polls: 32,
        sign_latency: 300,
        verify_latency: 500,
        delays: vec![LinkDelay {
            src: 1,
            dst: 0,
            extra: 600,
            from_cycle: 0,
            to_cycle: u64::MAX,
            records: None,
        }],
        ..quick(3, 4)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 20_000)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.cycles >= 20_000);
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        let slow = r.decided.iter().filter(|d| d.path == Path::Slow).count();
        assert!(
            slow >= 3,
            "replica {} decided {slow} of 4 slots on the slow path",
            r.id
        );
    }
}

/// A view change on both backends: the leader's first prepare reaches
/// replica 1 too late for both paths.
#[test]
fn a_view_change_agrees_on_both_backends_for_20k_cycles() {
    use ubft_sim::cluster::LinkDelay;
    let cfg = ClusterConfig {
        wait_polls: 16,
        sign_latency: 300,
        verify_latency: 500,
        delays: vec![LinkDelay {
            src: 0,
            dst: 1,
            extra: 3_000,
            from_cycle: 0,
            to_cycle: 200,
            records: None,
        }],
        ..quick(3, 5)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 20_000)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.cycles >= 20_000);
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        assert!(
            r.status.view_changes >= 1 && r.view >= 1,
            "replica {} changed view",
            r.id
        );
        assert_eq!(r.decided.len(), 5);
    }
}

/// A backend that misbehaves once: bit 6 of `m_axi_hbm_araddr` flipped on
/// one cycle.
struct Faulty {
    inner: Box<dyn KernelBackend>,
    cycle: u64,
    at: u64,
}

impl KernelBackend for Faulty {
    fn eval(&mut self, i: &KernelIn) -> KernelOut {
        let mut o = self.inner.eval(i);
        if self.cycle == self.at {
            o.hbm_araddr ^= 0x40;
        }
        o
    }
    fn tick(&mut self) {
        self.inner.tick();
        self.cycle += 1;
    }
    fn name(&self) -> &'static str {
        "faulty"
    }
}

#[test]
fn a_difference_names_the_first_cycle_replica_and_port() {
    let cfg = quick(3, 2);
    let map = Arc::new(kernel_port_map().unwrap());
    let watch: Watch = Rc::new(RefCell::new(None));
    let a = backend::kernels(Backend::Verilator, 3).unwrap();
    let b = backend::kernels(Backend::Verilator, 3).unwrap();
    let kernels: Vec<Box<dyn KernelBackend>> = a
        .into_iter()
        .zip(b)
        .enumerate()
        .map(|(r, (x, y))| {
            let y: Box<dyn KernelBackend> = if r == 1 {
                Box::new(Faulty {
                    inner: y,
                    cycle: 0,
                    at: 123,
                })
            } else {
                y
            };
            Box::new(Lockstep::new(x, y, map.clone(), r, watch.clone())) as Box<dyn KernelBackend>
        })
        .collect();
    let mut c = Cluster::with_kernels(cfg, kernels);
    while c.cycle < 300 && watch.borrow().is_none() {
        c.step().unwrap();
    }
    let m: Mismatch = watch.borrow().clone().expect("the fault was not seen");
    assert_eq!(
        (m.cycle, m.replica, m.port.as_str()),
        (123, 1, "m_axi_hbm_araddr")
    );
    assert_eq!(m.b_name, "faulty");
    assert_eq!(
        u64::from_str_radix(&m.a, 16).unwrap() ^ u64::from_str_radix(&m.b, 16).unwrap(),
        0x40
    );
    let text = m.to_string();
    assert!(
        text.starts_with(
            "first difference at cycle 123, replica 1, port m_axi_hbm_araddr: verilator 'h"
        ),
        "{text}"
    );
}
