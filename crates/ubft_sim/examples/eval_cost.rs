//! The v3 kernel's evaluation alone, out of reset and not started (every
//! machine Off), on the Verilator backend: kernel cycles per second for a
//! build of N replicas. Verilator evaluates all of the design's logic every
//! cycle whether a machine runs or not, so this is the floor of one
//! replica's cost in a cluster run (`docs/performance.md`, "The 1 M goal").
//! `cargo run --release -p ubft_sim --example eval_cost -- 8 [cycles]`
use ubft_sim::ports::{KernelBackend, KernelIn};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = a.first().map_or(8, |s| s.parse().expect("N"));
    let cycles: u64 = a.get(1).map_or(2_000_000, |s| s.parse().expect("cycles"));
    let verilog = match n {
        3 => rhdl_ubft::kernel::verilog::<3>(),
        5 => rhdl_ubft::kernel::verilog::<5>(),
        8 => rhdl_ubft::kernel::verilog::<8>(),
        _ => panic!("N {n}: 3, 5 or 8"),
    }
    .replace("top$", "rhdl_ubft$");
    let lib =
        ubft_sim::backend::verilator::Library::build(&verilog).expect("the Verilator library");
    let mut k =
        ubft_sim::backend::verilator::VerilatorKernel::with_library(std::sync::Arc::new(lib));
    // Ten cycles of reset (ap_rst_n low), then idle inputs.
    let mut inp = KernelIn {
        ap_rst_n: false,
        ..KernelIn::default()
    };
    for _ in 0..10 {
        k.eval(&inp);
        k.tick();
    }
    inp.ap_rst_n = true;
    let t = std::time::Instant::now();
    for _ in 0..cycles {
        k.eval(&inp);
        k.tick();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "N = {n}: {cycles} kernel cycles in {s:.2} s, {:.0} per second",
        cycles as f64 / s
    );
}
