//! The guard in the kernel (issue 10, phase 2): every landing RDMA write
//! goes through the receiving kernel's `s_axis_rx_cmd`/`s_axis_rx_data`
//! ports, the guard decides, and what it accepts lands through `m_axi_rx`.
//!
//! - The audit's E1 (`protocol-audit.md`): a Byzantine leader aims forged
//!   vote entries at the other replicas' entries. The honest kernels refuse
//!   them (`not_owner`, read from their status registers) and agreement
//!   holds; the same run without a guard (`Delivery::Bypass`) splits the
//!   honest replicas, so the test can fail.
//! - The report's `guard` counters, read through `s_axi_control`, match what
//!   the ports showed; the network model's rule agreed write by write.
//! - The guard runs while the kernel is idle (configured, never started),
//!   with the block's timing at the kernel's ports.

use rhdl_ubft::guard::Refusal;
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, G, N as BUILD_N, SB, WORD_BYTES};
use rhdl_ubft::regs;
use rhdl_ubft::roce::{wr_data_beats, WrCommand};
use ubft_sim::adversary::ForgeQuorum;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{ClusterConfig, RunReport, NETWORK_PTR, QPN_BASE};
use ubft_sim::hbm::Hbm;
use ubft_sim::host::{Host, Op};
use ubft_sim::network::Delivery;
use ubft_sim::ports::{KernelBackend, KernelIn};

/// E1's run: n = 3, replica 0 (view 0's leader) forges quorums, quick
/// links, 2 slots, 6,000 cycles.
fn e1(delivery: Delivery) -> (RunReport, ubft_sim::network::NetStats) {
    let cfg = ClusterConfig {
        max_cycles: 6_000,
        delivery,
        ..ClusterConfig::quick(3, 2).v2()
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        0,
        Box::new(ForgeQuorum::new(3, Mailbox::v2(BUILD_N, G, SB))),
    );
    let report = c.run().unwrap();
    (report, c.net.stats())
}

#[test]
fn e1_forged_votes_are_refused_by_the_kernels_guards_and_agreement_holds() {
    let (report, stats) = e1(Delivery::Kernel);
    println!("{}", report.summary());
    assert!(
        report.checks.agreement && report.checks.validity,
        "{:?}",
        report.checks.failures
    );
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    // Every write the guards decided agreed with the model's rule.
    assert_eq!(report.network.guard_disagreements, 0);
    assert!(report.network.guard_agreements > 50);
    for r in [1, 2] {
        let g = &report.replicas[r].guard;
        // Counted by the kernel, read by the host: forged entries of the
        // others, from replica 0 only.
        assert!(g.refused_for(Refusal::NotOwner) > 0, "replica {r}: {g:?}");
        assert_eq!(g.refused, g.refused_for(Refusal::NotOwner) as u64);
        assert_eq!(g.refused_by_sender[0] as u64, g.refused);
        assert!(g.accepted > 0);
        assert_eq!(g.write_errors, 0);
        // What the host read is what the ports showed, up to the writes
        // decided during the host's final reads (the run stops at its cycle
        // budget with writes still arriving).
        let landed: u64 = (0..3).map(|s| stats.delivered[s][r]).sum();
        assert!(g.accepted as u64 <= landed && landed - g.accepted as u64 <= 2);
        assert!(g.refused <= stats.refused_at[r] && stats.refused_at[r] - g.refused <= 2);
    }
    // No forged m was decided by anyone honest.
    for r in report.honest() {
        for d in &r.decided {
            assert!(report.proposed.contains(&d.m));
        }
    }
    let json = report.to_json();
    assert!(json.contains("\"guard\": {"), "{json}");
    assert!(json.contains("\"not_owner\""));
}

#[test]
fn e1_without_a_guard_the_forged_votes_split_the_honest_replicas() {
    let (report, stats) = e1(Delivery::Bypass);
    println!("{}", report.summary());
    // The attack succeeds: two honest replicas decide differently, or one
    // decides a value nobody proposed.
    assert!(
        !report.checks.agreement || !report.checks.validity,
        "without a guard E1 should break safety: {}",
        report.summary()
    );
    // Nothing was refused: the writes landed unchecked.
    assert_eq!(stats.refused.iter().sum::<u64>(), 0);
    for r in &report.replicas {
        assert_eq!(r.guard.accepted, 0);
        assert_eq!(r.guard.refused, 0);
    }
}

#[test]
fn an_honest_cluster_lands_every_write_through_the_guard() {
    let cfg = ClusterConfig::quick(3, 3).v2();
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    assert_eq!(report.network.delivery, Delivery::Kernel);
    let stats = c.net.stats();
    for r in 0..3 {
        let g = &report.replicas[r].guard;
        assert_eq!(g.refused, 0, "replica {r}: {g:?}");
        let landed: u64 = (0..3).map(|s| stats.delivered[s][r]).sum();
        assert_eq!(g.accepted as u64, landed);
        assert!(landed > 0);
        // Every accepted v2 record is one single-beat AXI write.
        assert_eq!(c.hbms[r].rx_counters().writes, landed);
    }
    assert_eq!(report.network.guard_disagreements, 0);
    assert!(report.checks.guard);
}

/// One kernel, configured through `s_axi_control` but never started: the
/// guard still takes incoming writes, with the block's timing, and the host
/// reads its counters.
fn idle_kernel(backend: Backend) {
    let mut k: Box<dyn KernelBackend> = backend::kernels(backend, 1).unwrap().remove(0);
    let mut hbm = Hbm::new(12, 6);
    let mut host = Host::new();
    let mb = Mailbox::v2(BUILD_N, G, SB);
    let w = |addr: u64, data: u32| Op::Write { addr, data };
    host.push(w(regs::NETWORK_PTR_LO, NETWORK_PTR as u32));
    host.push(w(regs::NETWORK_PTR_HI, (NETWORK_PTR >> 32) as u32));
    host.push(w(regs::ID, 0));
    host.push(w(regs::NREPL, 3));
    for p in 0..BUILD_N as u64 {
        host.push(w(regs::QPN + 4 * p, QPN_BASE + p as u32));
    }
    // Replica 1 writes its own will_cert entry of slot 2, then replica 2's.
    let own = mb.vote(Region::WillCert, 2, 1);
    let other = mb.vote(Region::WillCert, 2, 2);
    let record = [vote_tag(0, 3), 0xabcd];
    let mut writes: Vec<(WrCommand, Vec<_>)> = [own, other]
        .iter()
        .map(|&word| {
            let cmd = WrCommand::write(
                QPN_BASE as u64 + 1,
                NETWORK_PTR + word as u64 * WORD_BYTES,
                8,
            );
            (cmd, wr_data_beats(&record))
        })
        .collect();
    writes.reverse();
    let (mut taken, mut aws) = (vec![], vec![]);
    let mut beats = std::collections::VecDeque::new();
    let mut cmd: Option<WrCommand> = None;
    let mut reads_queued = false;
    for cycle in 0..400u64 {
        // The writes come once the host has configured the kernel.
        if host.idle() && cycle > 10 && cmd.is_none() && beats.is_empty() {
            if let Some((c, b)) = writes.pop() {
                cmd = Some(c);
                beats.extend(b);
            } else if !reads_queued && cycle > 100 {
                host.read_status();
                host.poll_ctrl();
                reads_queued = true;
            }
        }
        let mut inp = KernelIn {
            ap_rst_n: cycle >= 2,
            ..KernelIn::default()
        };
        host.drive(&mut inp);
        hbm.drive(&mut inp);
        if let Some(c) = cmd {
            let p = c.pack();
            inp.rx_cmd_tvalid = true;
            inp.rx_cmd_tdata = [p as u32, (p >> 32) as u32, (p >> 64) as u32];
        }
        if let Some(&(d, keep, last)) = beats.front() {
            inp.rx_data_tvalid = true;
            inp.rx_data_tdata = d;
            inp.rx_data_tkeep = keep;
            inp.rx_data_tlast = last;
        }
        let out = k.eval(&inp);
        hbm.observe(&inp, &out, cycle).unwrap();
        host.observe(&inp, &out, cycle);
        if inp.rx_cmd_tvalid && out.rx_cmd_tready {
            taken.push(cycle);
            cmd = None;
        }
        if inp.rx_data_tvalid && out.rx_data_tready {
            beats.pop_front();
        }
        if out.rx_awvalid && inp.rx_awready {
            aws.push(cycle);
        }
        k.tick();
    }
    assert!(host.violations().is_empty(), "{:?}", host.violations());
    assert!(host.idle(), "the status reads were answered");
    // Never started: ap_start 0, ap_idle 1.
    assert_eq!(host.ctrl() & 0x5, 0x4, "CTRL {:#x}", host.ctrl());
    // The own entry: AW and W at a + 7, the block's timing at the kernel's
    // ports; the other's: no AXI write at all.
    assert_eq!(taken.len(), 2);
    assert_eq!(aws, vec![taken[0] + 7], "{backend}");
    let at = |word: usize| NETWORK_PTR + word as u64 * WORD_BYTES;
    assert_eq!(hbm.read_words(at(own), 2), record.to_vec());
    assert_eq!(hbm.read_words(at(other), 2), vec![0, 0]);
    let g = host.guard();
    assert_eq!(g.accepted, 1);
    assert_eq!(g.refused_for(Refusal::NotOwner), 1);
    assert_eq!(g.refused_total(), 1);
    assert_eq!(g.refused_by[1], 1);
    assert_eq!(g.refused_by.iter().sum::<u32>(), 1);
}

#[test]
fn the_guard_checks_writes_while_the_kernel_is_idle_on_both_backends() {
    idle_kernel(Backend::RustHdl);
    idle_kernel(Backend::Verilator);
}

/// What the guard costs the fast path, at the performance model's defaults
/// (L = 300, H = 80, n = 3 and 5, 20 slots): the same runs with the network
/// model writing HBM directly (`Delivery::Model`) and through the kernels'
/// guards. A write lands 8 cycles later through the guard (presented the
/// cycle after landing, AW and W 7 cycles after the command is taken), and
/// a slot has three hops, so about 24 cycles, plus the poll that catches
/// it and the queueing of writes that arrive together.
#[test]
fn the_guard_costs_the_fast_path_a_few_dozen_cycles_a_slot() {
    use ubft_sim::bench::{fast_bound, measure};
    use ubft_sim::cluster::Path;
    for n in [3, 5] {
        let mean = |delivery| {
            let cfg = ClusterConfig {
                delivery,
                ..ClusterConfig::new(n, 20).v2()
            };
            let bound = fast_bound(&cfg);
            measure(cfg, Path::Fast, bound, Backend::Verilator)
                .unwrap()
                .mean
        };
        let (direct, guarded) = (mean(Delivery::Model), mean(Delivery::Kernel));
        println!(
            "n = {n}: fast-path mean latency {direct:.1} cycles without the guard, {guarded:.1} through it (+{:.1})",
            guarded - direct
        );
        assert!(guarded > direct && guarded - direct < 120.0);
    }
}
