//! The Verilator backend: built from the current design's Verilog, its
//! ports bound by name, and a cluster of Verilated kernels reaching the same
//! decisions as the Rust models expect.

use rhdl_ubft::params::defaults;
use ubft_sim::backend::{self, Backend};
use ubft_sim::client::proposal;
use ubft_sim::cluster::{ClusterConfig, Path};
use ubft_sim::ports::{KernelBackend, KernelIn};
use ubft_sim::verilator::harness::{parse_ports, TOP};
use ubft_sim::verilator::portmap::PortMap;
use ubft_sim::verilator::{kernel_ports, kernel_verilog, Library, VerilatorKernel};

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
fn every_port_of_the_verilog_is_bound_to_a_field() {
    let ports = kernel_ports().unwrap();
    assert!(ports
        .iter()
        .any(|p| p.name == "m_axi_hbm_rdata" && p.input && p.width == 512));
    PortMap::new(&ports).unwrap();
}

#[test]
fn a_renamed_or_new_port_is_a_clear_error() {
    let v = kernel_verilog().replace("s_axis_prop_tready", "s_axis_prop_tready2");
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
    let lib = Library::get().unwrap();
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
    let lib = Library::get().unwrap();
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
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let expected: Vec<(u64, u32)> = (1..=slots).map(|k| (k, proposal(seed, k - 1))).collect();
    for r in &report.replicas {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        assert_eq!(got, expected, "replica {}", r.id);
        assert!(r.decided.iter().all(|d| d.path == Path::Fast));
    }
}

#[test]
fn an_equivocating_leader_times_out_on_verilator_too() {
    let cfg = ClusterConfig {
        equivocate: vec![0],
        wait_polls: 8,
        max_cycles: 6_000,
        ..quick(5, 3)
    };
    let report = backend::run(&cfg, Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    // (As `fast_path.rs`'s rust-hdl run: nothing is decided in the
    // equivocating leader's view; a later view's honest leader may decide.)
    for r in report.honest() {
        assert!(r.status.timeouts > 0, "replica {} counts its timeout", r.id);
        assert!(
            r.decided.is_empty() || r.status.view_changes > 0,
            "replica {} decided in the equivocating leader's view",
            r.id
        );
    }
}

#[test]
fn the_cli_backend_names_parse() {
    assert_eq!("verilator".parse::<Backend>().unwrap(), Backend::Verilator);
    assert_eq!("rust-hdl".parse::<Backend>().unwrap(), Backend::RustHdl);
    assert!("icarus".parse::<Backend>().is_err());
    let _ = KernelBackend::name(&VerilatorKernel::new().unwrap());
}

/// Cluster cycles per second on each backend (run with `--ignored
/// --nocapture`; docs/verilator.md lists the numbers).
#[test]
#[ignore]
fn speed() {
    use ubft_sim::verilator::measure_speed;
    for n in [3, 5] {
        for (b, cycles) in [(Backend::RustHdl, 20_000), (Backend::Verilator, 500_000)] {
            let (c, s, cpu) = measure_speed(b, n, cycles, 1).unwrap();
            eprintln!(
                "{n} replicas, {b}: {c} cycles, {s:.0} cluster cycles/s, {cpu:?} per CPU-second"
            );
        }
    }
}
