//! The Verilator backend: built from the shipped kernel's Verilog (v3,
//! `rtl/rhdl_ubft.v`), its ports bound by name, and clusters of Verilated
//! kernels reaching the decisions that fast_path.rs expects of the same
//! kernel in rust-hdl's simulator, on the same configurations.

use rhdl_ubft::layout::Version;
use rhdl_ubft::params::defaults;
use std::sync::Arc;
use ubft_sim::backend::verilator::harness::{parse_ports, Port, TOP};
use ubft_sim::backend::verilator::portmap::PortMap;
use ubft_sim::backend::verilator::{kernel_verilog, Library, VerilatorKernel};
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{ClusterConfig, Path};
use ubft_sim::models::client::proposal;
use ubft_sim::ports::{KernelBackend, KernelIn};

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

/// The shipped kernel's Verilog, as the backend compiles it.
fn verilog() -> String {
    kernel_verilog()
}

/// The shipped kernel's library (built on first use).
fn library() -> Arc<Library> {
    Library::get().unwrap()
}

#[test]
fn every_port_of_the_verilog_is_bound_to_a_field() {
    let ports: Vec<Port> = parse_ports(&verilog(), TOP).unwrap();
    assert!(ports
        .iter()
        .any(|p| p.name == "m_axi_hbm_rdata" && p.input && p.width == 512));
    PortMap::new(&ports).unwrap();
}

#[test]
fn a_renamed_or_new_port_is_a_clear_error() {
    let v = verilog().replace("s_axis_prop_tready", "s_axis_prop_tready2");
    let e = PortMap::new(&parse_ports(&v, TOP).unwrap()).err().unwrap();
    assert!(
        e.contains("output port `s_axis_prop_tready2` (1 bits) has no KernelOut field"),
        "{e}"
    );
    assert!(
        e.contains("names output `s_axis_prop_tready`, which the Verilog lacks"),
        "{e}"
    );
}

#[test]
fn ports_by_index_match_the_packed_eval() {
    let lib = library();
    let mut k = VerilatorKernel::with_library(lib.clone());
    let inp = KernelIn {
        ap_rst_n: false,
        ..KernelIn::default()
    };
    for _ in 0..3 {
        k.eval(&inp);
        k.tick();
    }
    let out = k.eval(&KernelIn {
        ctl_awaddr: 0x18,
        ctl_awvalid: true,
        ..KernelIn::default()
    });
    assert!(
        out.ctl_awready,
        "s_axi_control takes an address out of reset"
    );
    // Every output read by index equals the port map's words of `out`.
    let packed = lib.map.encode_out(&out);
    for (i, p) in lib.ports.iter().enumerate().filter(|(_, p)| !p.input) {
        let b = lib
            .map
            .outputs
            .iter()
            .find(|o| o.port.name == p.name)
            .unwrap();
        assert_eq!(
            k.get_port(i),
            packed[b.offset..b.offset + p.words()],
            "{}",
            p.name
        );
    }
    // An input set by index reads back (masked to its width).
    let id = lib
        .ports
        .iter()
        .position(|p| p.name == "s_axi_control_awaddr")
        .unwrap();
    k.set_port(id, &[0x1fff]);
    assert_eq!(k.get_port(id), [0xfff]);
}

/// The harness copies `KernelIn` fields into the ports and ports into
/// `KernelOut` fields itself (C++ generated from the port map's offsets);
/// the port map's Rust packing says what each port must hold. They agree on
/// inputs with every bit pattern, the held data ports included.
#[test]
fn the_harness_copies_fields_as_the_port_map_packs_them() {
    let lib = library();
    let mut k = VerilatorKernel::with_library(lib.clone());
    let mut packed = vec![0u32; lib.map.in_words];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for cycle in 0..200 {
        let mut inp = KernelIn::default();
        // Random bits in every field (bools 0 or 1), through the Rust
        // struct so every value is one the simulator can make.
        let r = rnd();
        inp.ap_rst_n = cycle % 7 != 0;
        inp.ctl_awaddr = r as u16;
        inp.ctl_awvalid = r & 1 != 0;
        inp.ctl_wdata = (r >> 16) as u32;
        inp.ctl_wstrb = (r >> 8) as u8;
        inp.ctl_wvalid = r & 2 != 0;
        inp.ctl_bready = r & 4 != 0;
        inp.ctl_araddr = (r >> 20) as u16;
        inp.ctl_arvalid = r & 8 != 0;
        inp.ctl_rready = r & 16 != 0;
        inp.hbm_arready = r & 32 != 0;
        inp.hbm_rvalid = r & 64 != 0;
        for w in inp.hbm_rdata.iter_mut() {
            *w = rnd() as u32;
        }
        inp.hbm_rresp = (r >> 30) as u8;
        inp.hbm_rlast = r & 128 != 0;
        inp.hbm_awready = r & 256 != 0;
        inp.hbm_wready = r & 512 != 0;
        inp.hbm_bvalid = r & 1024 != 0;
        inp.hbm_bresp = (r >> 40) as u8;
        inp.sq_tready = r & 2048 != 0;
        inp.cq_tvalid = r & 4096 != 0;
        inp.cq_tdata = rnd();
        inp.sreq_tready = r & 8192 != 0;
        inp.sresp_tvalid = r & 16384 != 0;
        for w in inp.sresp_tdata.iter_mut() {
            *w = rnd() as u32;
        }
        inp.sresp_tuser = (r >> 48) as u8;
        inp.sresp_tlast = r & (1 << 15) != 0;
        inp.prop_tvalid = r & (1 << 16) != 0;
        inp.prop_tdata = (r >> 32) as u32;
        inp.dec_tready = r & (1 << 17) != 0;
        let out = k.eval(&inp);
        k.tick();
        lib.map.encode_in(&inp, &mut packed);
        for b in &lib.map.inputs {
            let i = lib
                .ports
                .iter()
                .position(|p| p.name == b.port.name)
                .unwrap();
            assert_eq!(
                k.get_port(i),
                packed[b.offset..b.offset + b.port.words()],
                "cycle {cycle}, input {}",
                b.port.name
            );
        }
        let words = lib.map.encode_out(&out);
        assert_eq!(lib.map.decode_out(&words), out, "cycle {cycle}");
        for b in &lib.map.outputs {
            let i = lib
                .ports
                .iter()
                .position(|p| p.name == b.port.name)
                .unwrap();
            let q = b
                .qualifier
                .map_or(true, |q| words[lib.map.outputs[q].offset] & 1 != 0);
            if q {
                assert_eq!(
                    k.get_port(i),
                    words[b.offset..b.offset + b.port.words()],
                    "cycle {cycle}, output {}",
                    b.port.name
                );
            }
        }
    }
}

/// fast_path.rs's three-replica run (seed 11, 40 slots, past the window of
/// G) on Verilator: every slot decided on the fast path, the client's
/// requests in order, no timeout, every write accepted by the guards.
#[test]
fn three_verilated_kernels_decide_40_slots_on_the_fast_path() {
    let seed = 11;
    let slots = 40;
    let report = backend::run(
        &ClusterConfig {
            seed,
            ..quick(3, slots)
        },
        Backend::Verilator,
    )
    .unwrap();
    assert_eq!(report.backend, "verilator");
    assert_eq!(report.layout, Version::V3.name());
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let expected: Vec<(u64, u32)> = (1..=slots).map(|k| (k, proposal(seed, k - 1))).collect();
    for r in &report.replicas {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        assert_eq!(got, expected, "replica {}", r.id);
        assert!(r.decided.iter().all(|d| d.path == Path::Fast));
        assert_eq!(
            (r.status.fast as u64, r.status.timeouts, r.guard.refused),
            (slots, 0, 0),
            "replica {}",
            r.id
        );
    }
}

/// fast_path.rs's equivocating leader (n = 5, `Equivocate` on replica 0,
/// seed 1, 3 slots) on Verilator: every replica counts its timeout and
/// changes view, and every slot is decided after the view change, the
/// client's requests in order, in agreement (22,946 cycles, over the quick
/// configuration's budget for 3 slots: every slot of view 1 is slow).
#[test]
fn an_equivocating_leader_is_replaced_on_verilator_too() {
    let (n, slots, seed) = (5, 3, 1);
    let cfg = ClusterConfig {
        equivocate: vec![0],
        seed,
        wait_polls: 64,
        max_cycles: 60_000,
        ..ClusterConfig::quick(n, slots)
    };
    let report = backend::run(&cfg, Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let want: Vec<(u64, u32)> = (1..=slots).map(|k| (k, proposal(seed, k - 1))).collect();
    for r in report.honest() {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        assert_eq!(got, want, "replica {}", r.id);
        assert!(r.status.timeouts > 0, "replica {} counts its timeout", r.id);
        assert!(
            r.status.view_changes > 0 && r.view > 0,
            "replica {} decided without leaving the equivocating leader's view",
            r.id
        );
    }
}

/// The shipped kernel on rust-hdl's simulator and on Verilator: the same
/// run, report for report (every decision and its cycle, the network's and
/// guards' counters, the checks), and, after the run, the same Close
/// (R28: each replica certifies and commits the last slot) and the same
/// status registers read after it, with the cycle counter stopped at Done.
#[test]
fn both_backends_report_the_same_run_and_close() {
    let cfg = ClusterConfig::quick(3, 3);
    let run = |b: Backend| {
        let mut c = backend::cluster(&cfg, b).unwrap();
        let report = c.run().unwrap();
        assert!(report.checks.ok(), "{b}: {:?}", report.checks.failures);
        // Close ends at W's COMMIT or at its timer (recovery.md R28), a
        // wait of its own whatever the run's length: 4,000 cycles, the
        // same on both backends, are well past it (the asserts below).
        for _ in 0..4_000 {
            c.step().unwrap();
        }
        c.read_status().unwrap();
        let after = c.report();
        let json = |r: &ubft_sim::cluster::RunReport| {
            let mut v = serde_json::to_value(r).unwrap();
            v.as_object_mut().unwrap().remove("backend");
            v
        };
        (
            json(&report),
            json(&after),
            c.hosts.iter().map(|h| h.ctrl()).collect::<Vec<_>>(),
        )
    };
    let (rust_hdl, verilator) = (run(Backend::RustHdl), run(Backend::Verilator));
    assert_eq!(rust_hdl.0, verilator.0, "the run");
    assert_eq!(rust_hdl.1, verilator.1, "after Close");
    assert_eq!(rust_hdl.2, verilator.2, "CTRL");
    // At the run's end every replica was in Close (a SLOW state); after
    // it, Idle with ap_done, and its cycle counter moved on past the run's.
    let (end, after) = (&verilator.0["replicas"], &verilator.1["replicas"]);
    for r in 0..3 {
        let state = end[r]["status"]["state"].as_u64().unwrap() as usize;
        assert!(rhdl_ubft::controller::status::STATE_NAMES[state].starts_with("Slow"));
        assert_eq!(after[r]["status"]["state"], 0, "Idle after Close");
        assert_ne!(verilator.2[r] & rhdl_ubft::regs::ctrl::AP_DONE, 0);
        let cycles = |v: &serde_json::Value| v[r]["status"]["cycles"].as_u64().unwrap();
        assert!(cycles(after) > cycles(end), "replica {r}");
        assert_eq!(after[r]["decided"].as_array().unwrap().len(), 3);
    }
}

#[test]
fn the_cli_backend_names_parse() {
    assert_eq!("verilator".parse::<Backend>().unwrap(), Backend::Verilator);
    assert_eq!("rust-hdl".parse::<Backend>().unwrap(), Backend::RustHdl);
    assert!("icarus".parse::<Backend>().is_err());
    let k = VerilatorKernel::with_library(library());
    assert_eq!(KernelBackend::name(&k), "verilator");
}

/// Cluster cycles per second on each backend (run with `--ignored
/// --nocapture`; docs/verilator.md lists the numbers).
#[test]
#[ignore]
fn speed() {
    use ubft_sim::backend::verilator::measure_speed;
    for n in [3, 5] {
        for (b, cycles) in [(Backend::RustHdl, 20_000), (Backend::Verilator, 500_000)] {
            let (c, s, cpu) = measure_speed(b, n, cycles, 1).unwrap();
            eprintln!(
                "{n} replicas, {b}: {c} cycles, {s:.0} cluster cycles/s, {cpu:?} per CPU-second"
            );
        }
    }
}
