//! The self-checking testbenches (`cargo xtask testbench`): a recorded run
//! replayed on the current design's RTL prints TESTBENCH OK, and a
//! deliberately broken expected value makes it fail, naming the cycle,
//! replica and port. They replay under Verilator (`Sim::Verilator`: the one
//! on PATH or the pinned one, so they run on every machine); CI also replays
//! the committed testbenches in Icarus (`cargo xtask testbench --run --sim
//! icarus`).

use rhdl_ubft::layout::Region;
use rhdl_ubft::params::{defaults, ConfigError};
use std::path::PathBuf;
use ubft_sim::backend::verilator::{cache_dir, kernel_port_map, kernel_verilog};
use ubft_sim::backend::Backend;
use ubft_sim::cluster::{ClusterConfig, Path, NETWORK_PTR};
use ubft_sim::testbench::{self, Corrupt, Scenario, Trace};

/// A scratch directory under the target directory, with the current
/// design's Verilog in it.
fn scratch(tag: &str) -> (PathBuf, PathBuf) {
    let dir = cache_dir()
        .parent()
        .unwrap()
        .join("testbench-tests")
        .join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rtl = dir.join("rhdl_ubft.v");
    std::fs::write(&rtl, kernel_verilog()).unwrap();
    (dir, rtl)
}

/// Where the replays are built (shared, so each testbench builds once).
fn build_dir() -> PathBuf {
    cache_dir().parent().unwrap().join("testbench")
}

fn short_run() -> Scenario {
    let cfg = ClusterConfig {
        wait_polls: 64,
        sign_latency: defaults::SIGN_LATENCY,
        verify_latency: defaults::VERIFY_LATENCY,
        seed: 3,
        ..ClusterConfig::quick(3, 3)
    };
    testbench::record(
        "short3",
        "3 replicas decide 3 slots",
        &cfg,
        Backend::RustHdl,
    )
    .unwrap()
}

#[test]
fn a_recorded_run_replays_ok_on_the_rtl() {
    let (dir, rtl) = scratch("ok");
    let sc = short_run();
    assert!(sc.cycles() > 500);
    testbench::write(&dir, &sc, &kernel_port_map().unwrap(), None).unwrap();
    let log = testbench::run_verilator(&dir, "short3", &rtl, &build_dir())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        log.contains(&format!(
            "TESTBENCH OK: short3, {} cycles, 3 replicas",
            sc.cycles()
        )),
        "{log}"
    );
}

#[test]
fn a_broken_expected_value_fails_naming_cycle_replica_and_port() {
    let (dir, rtl) = scratch("broken");
    let sc = short_run();
    let bad = Corrupt {
        cycle: 400,
        replica: 2,
        port: "m_axi_hbm_arvalid".into(),
    };
    testbench::write(&dir, &sc, &kernel_port_map().unwrap(), Some(&bad)).unwrap();
    let e = testbench::run_verilator(&dir, "short3", &rtl, &build_dir()).unwrap_err();
    let first = e.lines().next().unwrap();
    assert!(
        first.starts_with("tb_short3: TESTBENCH MISMATCH: cycle 400, replica 2, port m_axi_hbm_arvalid: expected "),
        "{e}"
    );
    assert!(!e.contains("TESTBENCH OK"), "{e}");
}

/// The first cycle on which a replica's kernel writes the word at byte
/// address `at` into its HBM, as recorded: on `m_axi_hbm` (its own
/// records) or, with `rx`, on `m_axi_rx` (a peer's write, through its
/// guard): the W beat whose strobes cover it, after an AW of its beat.
fn written(trace: &Trace, at: u64, rx: bool) -> Option<usize> {
    let mut aw_beat = None;
    for (c, (i, o)) in trace.iter().enumerate() {
        let (aw, addr, w, strb) = if rx {
            (
                o.rx_awvalid && i.rx_awready,
                o.rx_awaddr,
                o.rx_wvalid && i.rx_wready,
                o.rx_wstrb,
            )
        } else {
            (
                o.hbm_awvalid && i.hbm_awready,
                o.hbm_awaddr,
                o.hbm_wvalid && i.hbm_wready,
                o.hbm_wstrb,
            )
        };
        if aw {
            aw_beat = Some(addr / 64);
        }
        if w && aw_beat == Some(at / 64) && strb >> (at % 64) & 1 == 1 {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_standard_scenarios_replay_ok_on_the_rtl() {
    let (dir, rtl) = scratch("standard");
    let map = kernel_port_map().unwrap();
    for st in testbench::standard() {
        let sc = st.record(Backend::RustHdl).unwrap();
        testbench::write(&dir, &sc, &map, None).unwrap();
        let log = testbench::run_verilator(&dir, st.name, &rtl, &build_dir())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            log.contains(&format!(
                "TESTBENCH OK: {}, {} cycles, 3 replicas",
                st.name,
                sc.cycles()
            )),
            "{log}"
        );
        // What each run shows.
        let reps = &sc.report.replicas;
        let mb = st.cfg.mailbox();
        // Byte address of `node`'s vote of slot index `slot` in `region`.
        let vote = |region, slot, node| NETWORK_PTR + 4 * mb.vote(region, slot, node) as u64;
        let paths = |r: usize| -> Vec<Path> { reps[r].decided.iter().map(|d| d.path).collect() };
        match st.name {
            "fast_path" => {
                // Every slot fast, in view 0, no timeout.
                for r in 0..3 {
                    assert_eq!(paths(r), vec![Path::Fast; 6], "replica {r}");
                    assert_eq!(
                        (reps[r].view, reps[r].status.timeouts),
                        (0, 0),
                        "replica {r}"
                    );
                }
            }
            "equivocating_leader" => {
                // The followers see different m's, time out, change view
                // away from replica 0 and decide both slots.
                for r in &reps[1..] {
                    assert_eq!(r.decided.len() as u64, st.cfg.slots, "replica {}", r.id);
                    assert!(r.view >= 1, "replica {} stays in view {}", r.id, r.view);
                    assert!(r.status.timeouts >= 1, "replica {}", r.id);
                }
            }
            "guard" => {
                // Replica 2's forged copies are refused by the others'
                // guards; its own entries hold garbage, so no slot has the
                // fast path's n votes, and replicas 0 and 1 decide every
                // slot on the f + 1 slow path.
                for r in 0..2 {
                    assert_eq!(paths(r), vec![Path::Slow; 3], "replica {r}");
                    assert!(
                        reps[r].guard.refused_by_sender[2] > 0,
                        "replica {r}'s guard refused none of replica 2's writes: {:?}",
                        reps[r].guard
                    );
                    assert_eq!(reps[r].guard.refused_by_sender[1 - r], 0, "replica {r}");
                }
            }
            "silent_leader" => {
                // Replica 0 (the view-0 leader) falls silent, and replicas 1
                // and 2 change view and decide every slot, two fast and the
                // rest on the slow path.
                for r in &reps[1..] {
                    assert_eq!(r.decided.len() as u64, st.cfg.slots, "replica {}", r.id);
                    assert_eq!(r.view, 1, "replica {}", r.id);
                    assert_eq!((r.status.fast, r.status.slow), (2, 2), "replica {}", r.id);
                }
            }
            "late_will_cert" => {
                // Every slot fast, in view 0, no timeout; replica 1 decides
                // k = 1 last (the leader's will_commit waits behind the late
                // will_cert on its queue pair).
                for r in 0..3 {
                    assert_eq!(paths(r), vec![Path::Fast; 2], "replica {r}");
                    assert_eq!(
                        (reps[r].view, reps[r].status.timeouts),
                        (0, 0),
                        "replica {r}"
                    );
                }
                let k1 = |r: usize| reps[r].decided[0].cycle;
                assert!(k1(1) > k1(0) && k1(1) > k1(2), "{}", sc.report.summary());
                // Replica 1 wrote its will_commit of k = 1 before the
                // leader's will_cert landed in its HBM.
                let t = &sc.replicas[1];
                let own = written(t, vote(Region::WillCommit, 0, 1), false).unwrap();
                let late = written(t, vote(Region::WillCert, 0, 0), true).unwrap();
                assert!(
                    own < late,
                    "will_commit at {own}, the leader's will_cert at {late}"
                );
            }
            "hbm_write_error" => {
                // The leader's will_cert of k = 1 was staged and sent beside
                // its local write, which HBM refused: the leader stops
                // (WriteFailed) having decided nothing; replicas 1 and 2
                // decide every slot slow, the second and third in view 1.
                assert!(paths(0).is_empty(), "{}", sc.report.summary());
                assert_eq!(reps[0].status.write_errors, 1);
                assert_eq!(reps[0].status.error as u64, ConfigError::WriteFailed.code());
                for r in 1..3 {
                    assert_eq!(paths(r), vec![Path::Slow; 3], "replica {r}");
                    assert_eq!(reps[r].status.write_errors, 0);
                    assert_eq!(reps[r].view, 1, "replica {r}");
                }
                // The failed record reached both followers; the leader's
                // will_commit of k = 1, which it never sent, reached none.
                for t in &sc.replicas[1..] {
                    assert!(written(t, vote(Region::WillCert, 0, 0), true).is_some());
                    assert_eq!(written(t, vote(Region::WillCommit, 0, 0), true), None);
                }
            }
            other => panic!("{other}: every recorded run says what it shows"),
        }
    }
}
