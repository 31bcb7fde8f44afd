//! Differential: the same scenario on rust-hdl's simulator and on the
//! exported Verilog under Verilator, in lockstep, every output port of every
//! replica compared on every cycle. A difference names the first cycle,
//! replica and port.
//!
//! Every test runs the kernel (`Kernel<N>`, the v3 layout): the fast path
//! past the window, the guards' refusals, an equivocating leader, the slow
//! path (R7 to R12, f + 1 COMMITs) and a view change (VIEW). rust-hdl's
//! simulator runs about 1,000 cluster cycles a second at n = 3, so each run
//! is kept to the cycles its property needs (the whole file takes about a
//! minute in release).

use rhdl_ubft::params::defaults;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use ubft_sim::backend::lockstep::{differential, differential_with, Lockstep, Mismatch, Watch};
use ubft_sim::backend::verilator::kernel_port_map;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay, Path};
use ubft_sim::ports::{KernelBackend, KernelIn, KernelOut};

fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    // The tests' short links, with the longer wait (64 polls) and the
    // default signer these tests were written for.
    ClusterConfig {
        wait_polls: 64,
        sign_latency: defaults::SIGN_LATENCY,
        verify_latency: defaults::VERIFY_LATENCY,
        ..ClusterConfig::quick(replicas, slots)
    }
}

/// 80 slots on the fast path (five times round the window of G = 16), about
/// 19,000 cycles: every replica decides every slot fast, with no timeout.
#[test]
fn fast_path_agrees_on_both_backends_over_80_slots() {
    let slots = 80;
    let cfg = ClusterConfig {
        seed: 5,
        ..quick(3, slots)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 0)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        assert_eq!(
            (r.decided.len() as u64, r.status.fast, r.status.timeouts),
            (slots, slots as u32, 0),
            "replica {}: {}",
            r.id,
            a.report.summary()
        );
        assert!(r.decided.iter().all(|d| d.path == Path::Fast));
    }
    eprintln!("{} cycles compared, {slots} fast decisions each", a.cycles);
}

/// A forger's writes into other replicas' entries, refused by the receivers'
/// guards, under HBM back-pressure on `m_axi_rx`: both backends agree on
/// every port (the receive streams, `m_axi_rx` and the counters read back).
#[test]
fn the_guards_refusals_agree_on_both_backends() {
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, N, SB};
    use ubft_sim::adversary::forge::Forge;
    use ubft_sim::ports::Ready;
    let cfg = ClusterConfig {
        max_cycles: 4_000,
        ..quick(3, 2)
    };
    let a = differential_with(&cfg, Backend::RustHdl, Backend::Verilator, 0, |c| {
        c.set_adversary(2, Box::new(Forge::new(3, Mailbox::v3(N, G, SB), 9)));
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

/// An equivocating leader of n = 5 (`Equivocate`: a different signed
/// PREP block for each follower): no follower gets the n votes of one
/// value, every honest replica times out in the 6,000 cycles, and nobody
/// decides anything.
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
        assert!(r.decided.is_empty(), "replica {}: {:?}", r.id, r.decided);
    }
}

/// The slow path on both backends: replica 1's writes reach replica 0, the
/// leader, 600 cycles late for the whole run, so no slot completes on the
/// fast path (it needs all n votes at every replica): every replica times
/// out at every slot and decides it on f + 1 = 2 COMMITs (R7 to R12,
/// slow.md), in view 0. About 3,400 cycles a slot.
#[test]
fn slow_path_agrees_on_both_backends() {
    let slots = 2;
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
            after: None,
        }],
        ..quick(3, slots)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 0)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        let got: Vec<(u64, Path)> = r.decided.iter().map(|d| (d.k, d.path)).collect();
        assert_eq!(
            got,
            (1..=slots).map(|k| (k, Path::Slow)).collect::<Vec<_>>(),
            "replica {}: {}",
            r.id,
            a.report.summary()
        );
        let st = &r.status;
        assert_eq!(
            (
                st.error,
                st.slow,
                st.fast,
                st.timeouts,
                st.view_changes,
                st.bad_shares
            ),
            (0, slots as u32, 0, slots as u32, 0, 0),
            "replica {}: {st:?}",
            r.id
        );
        assert_eq!(r.view, 0, "replica {}", r.id);
    }
    eprintln!("{} cycles compared", a.cycles);
}

/// A view change on both backends (VIEW, view.md): the leader's writes to
/// both followers before cycle 200 (its prepare of slot 1) land 5,000
/// cycles late, so the followers time out waiting for it with nothing
/// locked, seal view 0, and replica 1 writes NEW_VIEW(1); every replica,
/// the old leader too, installs view 1 (one view change each) and decides
/// both slots there, on the slow path. Nobody is faulty.
#[test]
fn a_view_change_agrees_on_both_backends() {
    let slots = 2;
    let cfg = ClusterConfig {
        wait_polls: 32,
        sign_latency: 300,
        verify_latency: 500,
        delays: (1..3)
            .map(|dst| LinkDelay {
                src: 0,
                dst,
                extra: 5_000,
                from_cycle: 0,
                to_cycle: 200,
                records: None,
                after: None,
            })
            .collect(),
        ..quick(3, slots)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 0)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        assert_eq!(
            (r.status.error, r.view, r.status.view_changes),
            (0, 1, 1),
            "replica {}: one view change, to view 1\n{}",
            r.id,
            a.report.summary()
        );
        let got: Vec<u64> = r.decided.iter().map(|d| d.k).collect();
        assert_eq!(got, (1..=slots).collect::<Vec<_>>(), "replica {}", r.id);
        assert_eq!(r.status.slow, slots as u32, "replica {}", r.id);
    }
    eprintln!("{} cycles compared", a.cycles);
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
