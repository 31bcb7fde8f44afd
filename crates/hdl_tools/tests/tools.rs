//! The tools run: Verilator builds and runs a timed testbench through
//! `build` (no verilated.mk), and Yosys's checks pass clean Verilog and
//! catch a latch. On a machine without them, this installs the pinned ones.

use hdl_tools::build::{build, Build, Output};
use hdl_tools::{target_dir, Verilator, Yosys};

fn scratch(name: &str) -> std::path::PathBuf {
    let d = target_dir().join("hdl-tools-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn verilator_builds_and_runs_a_timed_testbench() {
    let v = Verilator::get().unwrap_or_else(|e| panic!("{e}"));
    let dir = scratch("timed");
    std::fs::write(
        dir.join("tb.v"),
        "module tb;\n  reg [7:0] x;\n  initial begin\n    x = 1;\n    #5 x = x + 41;\n    \
         #5 $display(\"x = %0d\", x);\n    $finish;\n  end\nendmodule\n",
    )
    .unwrap();
    let exe = build(
        v,
        &dir,
        &Build {
            top: "tb".into(),
            sources: vec!["tb.v".into()],
            flags: vec!["-Wno-fatal".into()],
            cpp: vec![],
            opt_fast: "-O0".into(),
            opt_slow: "-O0".into(),
            output: Output::Executable("tb".into()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(exe).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("x = 42"));
}

#[test]
fn yosys_checks_pass_clean_verilog_and_catch_a_latch() {
    let y = Yosys::get().unwrap_or_else(|e| panic!("{e}"));
    let dir = scratch("yosys");
    let clean =
        "module top(input a, input b, output reg y);\n  always @(*) y = a & b;\nendmodule\n";
    y.check(clean, "top", &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    let latch =
        "module top(input a, input b, output reg y);\n  always @(*) if (a) y = b;\nendmodule\n";
    let e = y.check(latch, "top", &dir).unwrap_err();
    assert!(e.contains("Latch inferred"), "{e}");
}
