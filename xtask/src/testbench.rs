//! `cargo xtask testbench [--run] [--backend rust-hdl|verilator]`: records the
//! standard scenarios (`ubft_sim::testbench::standard`) and writes their
//! self-checking testbenches and vectors into `rtl/tb/`; with `--run`,
//! replays each on `rtl/rhdl_ubft.v` in Icarus Verilog and fails unless it
//! prints `TESTBENCH OK`. docs/testbench.md has the details.

use std::path::Path;
use ubft_sim::backend::Backend;
use ubft_sim::testbench;
use ubft_sim::verilator::{cache_dir, kernel_port_map, kernel_verilog};

pub const TB_DIR: &str = "rtl/tb";

pub fn testbench(root: &Path, run: bool, backend: &str) -> Result<(), String> {
    let backend: Backend = backend.parse()?;
    let map = kernel_port_map()?;
    let dir = root.join(TB_DIR);
    let mut names = vec![];
    for (name, about, cfg) in testbench::standard() {
        let sc = testbench::record(name, about, &cfg, backend)?;
        let files = testbench::write(&dir, &sc, &map, None)?;
        let bytes: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
        println!(
            "{TB_DIR}/tb_{name}.v: {} cycles x {} replicas recorded on {backend}, {} files, {} KiB",
            sc.cycles(),
            sc.replicas.len(),
            files.len(),
            bytes / 1024
        );
        names.push(name);
    }
    if !run {
        return Ok(());
    }
    let rtl = root.join(super::VERILOG);
    if std::fs::read_to_string(&rtl).ok().as_deref() != Some(kernel_verilog().as_str()) {
        return Err(format!("{} is stale or missing; run `cargo xtask verilog` first", super::VERILOG));
    }
    let build = cache_dir().parent().map(|t| t.join("testbench")).unwrap_or_else(|| root.join("target/testbench"));
    for name in names {
        let log = testbench::run_iverilog(&dir, name, &rtl, &build)?;
        for l in log.lines().filter(|l| l.starts_with("TESTBENCH")) {
            println!("iverilog tb_{name}: {l}");
        }
    }
    Ok(())
}
