//! The kernel as a Vitis RTL kernel: the hosts program and start a cluster
//! through s_axi_control (AXI4-Lite), read the status counters and see
//! ap_done; a reset in the middle of a run restarts every machine cleanly.

use rhdl_ubft::regs::ctrl;
use ubft_sim::cluster::{Cluster, ClusterConfig, Path};

/// A cluster of `cfg` on rust-hdl's simulator.
fn rust_hdl_cluster(cfg: ClusterConfig) -> Result<Cluster, ubft_sim::backend::RunError> {
    ubft_sim::backend::cluster(&cfg, ubft_sim::backend::Backend::RustHdl)
}

/// The shipped kernel (v3) on the tests' short links.
fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    let cfg = ClusterConfig::quick(replicas, slots);
    cfg
}

/// The hosts program and start every kernel, and each decides the run's
/// slots on the fast path. A v3 kernel then closes the last slot (R28,
/// Protocol's Close): SLOW certifies and commits its will_commit, so at
/// the last decision no kernel has raised ap_done yet. Each raises it after
/// it has sent its COMMIT of the last slot to every mailbox, with the
/// counters of the run, the cycle counter stopped and the state Idle; the
/// read that sees ap_done clears it.
#[test]
fn the_hosts_start_a_cluster_read_its_counters_and_see_ap_done() {
    use rhdl_ubft::controller::status::STATE_NAMES;
    use rhdl_ubft::layout::{records, Region};
    use ubft_sim::cluster::{NETWORK_PTR, START_CYCLE};
    let (n, slots) = (3, 3);
    let mut c = rust_hdl_cluster(quick(n, slots)).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let end = c.cycle;
    for (r, h) in c.hosts.iter().enumerate() {
        assert!(h.violations().is_empty(), "{:?}", h.violations());
        // Ten argument words, then CTRL: every write answered.
        assert!(h.writes >= 7);
        let s = h.status();
        assert_eq!(
            (s.decisions, s.fast, s.slow),
            (slots as u32, slots as u32, 0),
            "replica {r}"
        );
        assert_eq!(s.error, 0);
        assert!(s.polls > 0 && s.acks > 0);
        // In Close: SLOW's state, and no ap_done yet.
        let state = STATE_NAMES[s.state as usize];
        assert!(state.starts_with("Slow"), "replica {r} in Close: {state}");
        assert_eq!(h.ctrl() & ctrl::AP_DONE, 0, "replica {r}: Close still runs");
    }
    // Poll CTRL until every host has seen ap_done; Close ends within a
    // slow-path slot's budget.
    let within = (c.cfg.cycle_budget() - 1_000) / slots;
    let last = (slots - 1) as usize;
    let mut done_at: Vec<Option<u64>> = vec![None; n];
    while done_at.iter().any(|d| d.is_none()) {
        for (r, h) in c.hosts.iter_mut().enumerate() {
            if done_at[r].is_none() && h.idle() {
                if h.ctrl() & ctrl::AP_DONE != 0 {
                    done_at[r] = Some(c.cycle);
                } else {
                    h.poll_ctrl();
                }
            }
        }
        c.step().unwrap();
        assert!(c.cycle < end + within, "ap_done within {within} cycles");
    }
    // The reads after ap_done: CTRL without it (the read that saw it
    // cleared it), Idle, the run's counters, and the cycle counter stopped
    // at Done (after the last decision; equal on a second read).
    c.read_status().unwrap();
    let first: Vec<u32> = c.hosts.iter().map(|h| h.status().cycles).collect();
    for (r, h) in c.hosts.iter().enumerate() {
        let s = h.status();
        assert_eq!(
            h.ctrl() & ctrl::AP_DONE,
            0,
            "replica {r}: ap_done read once"
        );
        assert_ne!(h.ctrl() & ctrl::AP_IDLE, 0);
        assert_eq!(h.ctrl() & ctrl::AP_START, 0, "one start, one run");
        assert_eq!(s.state, 0, "replica {r} is Idle");
        assert_eq!(
            (s.decisions, s.fast, s.slow, s.timeouts, s.error),
            (slots as u32, slots as u32, 0, 0, 0),
            "replica {r}"
        );
        let decided = report.replicas[r].decided[last].cycle;
        assert!(
            (s.cycles as u64) > decided - START_CYCLE && (s.cycles as u64) < done_at[r].unwrap(),
            "replica {r}: {} cycles, decided at {decided}, done by {:?}",
            s.cycles,
            done_at[r]
        );
    }
    for _ in 0..20 {
        c.step().unwrap();
    }
    c.read_status().unwrap();
    let second: Vec<u32> = c.hosts.iter().map(|h| h.status().cycles).collect();
    assert_eq!(first, second, "the cycle counter stops at Done");
    // Each replica's COMMIT of the last slot, (3, j, v = 0, k, m_k,
    // m_(k-1)), with the bitmap of f + 1 shares, is in every mailbox once it has landed (ap_done
    // follows its broadcast; the peers' copies land L cycles later).
    let mb = c.cfg.mailbox();
    let dec = &report.replicas[0].decided;
    for r in 0..n {
        for j in 0..n {
            let at = NETWORK_PTR + 4 * mb.record(Region::Commit, last, j) as u64;
            let w = c.hbms[r].read_words(at, records::COMMIT_BITMAP + 1);
            let mut want = vec![0; records::COMMIT_BITMAP + 1];
            want[records::KIND] = records::KIND_COMMIT;
            want[records::COMMIT_J] = j as u32;
            want[records::COMMIT_K] = slots as u32;
            want[records::COMMIT_M] = dec[last].m;
            want[records::COMMIT_PREV] = dec[last - 1].m;
            want[records::COMMIT_BITMAP] = w[records::COMMIT_BITMAP];
            assert_eq!(w, want, "replica {j}'s COMMIT of k = {slots} at {r}");
            assert_eq!(w[records::COMMIT_BITMAP].count_ones(), 2, "f + 1 shares");
        }
    }
}

#[test]
fn a_reset_in_the_middle_of_a_run_restarts_cleanly() {
    let n = 3;
    let mut c = rust_hdl_cluster(quick(n, 1_000)).unwrap();
    // Run until every replica decided 3 slots, and stop in the middle of
    // the 4th.
    while c.clients.iter().any(|cl| cl.decisions().len() < 3) {
        c.step().unwrap();
        assert!(c.cycle < 20_000);
    }
    for _ in 0..60 {
        c.step().unwrap();
    }
    let before: Vec<usize> = c.clients.iter().map(|cl| cl.decisions().len()).collect();
    let taken_before = c.clients[0].taken().len();
    c.reset(200, true);
    while c
        .clients
        .iter()
        .zip(&before)
        .any(|(cl, &b)| cl.decisions().len() < b + 5)
    {
        c.step().unwrap();
        assert!(c.cycle < 40_000, "the cluster did not restart");
    }
    c.read_status().unwrap();
    let report = c.report();
    for (r, rep) in report.replicas.iter().enumerate() {
        // The new run starts again at k = 1 and decides the values the
        // leader takes after the restart, on the fast path, in agreement.
        let after = &rep.decided[before[r]..];
        let ks: Vec<u64> = after.iter().map(|d| d.k).collect();
        assert_eq!(&ks[..5], &[1, 2, 3, 4, 5], "replica {r}");
        assert!(after.iter().all(|d| d.path == Path::Fast));
        let leader_values: Vec<u32> = c.clients[0].taken()[taken_before..]
            .iter()
            .map(|t| t.m)
            .collect();
        for d in &after[..5] {
            assert!(
                leader_values.contains(&d.m),
                "replica {r}: k = {} decided a value taken after the restart",
                d.k
            );
        }
        let s = &rep.status;
        assert_eq!(s.error, 0);
        assert!(s.decisions >= 5, "the counters restarted with the run");
        assert!(s.decisions < before[r] as u32 + 5);
    }
    for k in 0..5 {
        let m: Vec<u32> = report
            .replicas
            .iter()
            .map(|rep| rep.decided[before[rep.id] + k].m)
            .collect();
        assert!(
            m.windows(2).all(|w| w[0] == w[1]),
            "agreement after the restart"
        );
    }
}

#[test]
fn acks_count_one_run_and_ap_start_clears_them() {
    // Three RDMA completions reach an idle kernel; ACKS reads 3. Then a
    // start (refused: n = 4, so no run adds completions of its own), and
    // ACKS reads 0: Broadcast's counters clear on ap_start as the others do.
    use rhdl_ubft::io::roce::CQ_CMPLT;
    use rhdl_ubft::params::ConfigError;
    use rhdl_ubft::regs;
    use ubft_sim::backend::rust_hdl::RustHdlKernel;
    use ubft_sim::cluster::NETWORK_PTR;
    use ubft_sim::models::host::{Args, Host, Op};
    use ubft_sim::ports::{KernelBackend, KernelIn};
    let mut k = RustHdlKernel::<{ rhdl_ubft::params::N }>::new();
    let mut host = Host::new();
    let mut taken = 0;
    for cycle in 0..300u64 {
        if cycle == 20 {
            host.push(Op::Read { addr: regs::ACKS });
            host.configure(&Args {
                network_ptr: NETWORK_PTR,
                id: 0,
                n: 4,
                wait_polls: 8,
                slots: 1,
                qpn_base: 0,
            });
            host.poll_ctrl();
            host.push(Op::Read { addr: regs::ACKS });
            host.push(Op::Read {
                addr: regs::ERROR_CODE,
            });
        }
        let mut inp = KernelIn {
            ap_rst_n: cycle >= 1,
            cq_tvalid: (2..5).contains(&cycle),
            cq_tdata: 1 << CQ_CMPLT,
            ..KernelIn::default()
        };
        host.drive(&mut inp);
        let out = k.eval(&inp);
        taken += (inp.cq_tvalid && out.cq_tready) as u32;
        host.observe(&inp, &out, cycle);
        k.tick();
    }
    assert!(host.violations().is_empty(), "{:?}", host.violations());
    assert_eq!(taken, 3, "the adapter takes one completion a cycle");
    let reads: Vec<(u64, u32)> = host.reads.iter().map(|r| (r.0, r.1)).collect();
    let acks: Vec<u32> = reads
        .iter()
        .filter(|r| r.0 == regs::ACKS)
        .map(|r| r.1)
        .collect();
    assert_eq!(acks, vec![3, 0], "before and after ap_start");
    let error = reads.iter().find(|r| r.0 == regs::ERROR_CODE).map(|r| r.1);
    assert_eq!(error, Some(ConfigError::EvenReplicas.code() as u32));
}
