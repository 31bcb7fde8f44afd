//! `cargo xtask testbench [--check] [--run] [--sim verilator|icarus]
//! [--backend rust-hdl|verilator]`: records the standard scenarios
//! (`ubft_sim::testbench::standard`) and writes their self-checking
//! testbenches and vectors into `rtl/tb/`; `--check` instead fails if
//! `rtl/tb/` differs from what would be written; `--run` then replays each
//! on the kernel's RTL, `rtl/rhdl_ubft.v` (Verilator by default, Icarus Verilog with `--sim
//! icarus`) and fails unless it prints `TESTBENCH OK`. docs/testbench.md has
//! the details.

use std::path::{Path, PathBuf};
use ubft_sim::backend::verilator::{kernel_port_map, kernel_verilog, scratch_dir};
use ubft_sim::backend::Backend;
use ubft_sim::testbench::{self, Sim};

pub const TB_DIR: &str = "rtl/tb";

/// Generated files in a testbench directory (what a rewrite replaces).
fn generated(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let n = p.file_name().unwrap().to_string_lossy();
                    n.ends_with(".hex") || (n.starts_with("tb_") && n.ends_with(".v"))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub fn testbench(
    root: &Path,
    check: bool,
    run: bool,
    sims: &[String],
    backend: &str,
) -> Result<(), String> {
    let backend: Backend = backend.parse()?;
    let sims: Vec<Sim> = sims.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
    let dir = root.join(TB_DIR);
    let scratch = scratch_dir("testbench");
    let out = if check {
        scratch.join("check")
    } else {
        dir.clone()
    };
    for f in generated(&out) {
        std::fs::remove_file(&f).map_err(|e| format!("{}: {e}", f.display()))?;
    }
    let mut names = vec![];
    for st in testbench::standard() {
        let name = st.name;
        let sc = st.record(backend)?;
        let map = kernel_port_map()?;
        let files = testbench::write(&out, &sc, &map, None)?;
        let bytes: u64 = files
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum();
        println!(
            "{TB_DIR}/tb_{name}.v: {} cycles x {} replicas recorded on {backend}, {} files, {} KiB{}",
            sc.cycles(),
            sc.replicas.len(),
            files.len(),
            bytes / 1024,
            if check { " (checked)" } else { "" }
        );
        names.push(name);
    }
    if check {
        let want = generated(&out);
        let have = generated(&dir);
        let rel = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().to_string();
        let names_w: Vec<String> = want.iter().map(rel).collect();
        let names_h: Vec<String> = have.iter().map(rel).collect();
        if names_w != names_h {
            return Err(format!(
                "{TB_DIR} is stale (files differ); run `cargo xtask testbench` and commit it"
            ));
        }
        for (w, h) in want.iter().zip(&have) {
            if std::fs::read(w).ok() != std::fs::read(h).ok() {
                return Err(format!(
                    "{TB_DIR}/{} is stale; run `cargo xtask testbench` and commit it",
                    rel(h)
                ));
            }
        }
        println!("{TB_DIR}: up to date");
    }
    if !run {
        return Ok(());
    }
    // Each run replays on the kernel's file, which must be current.
    let rel = super::VERILOG;
    let rtl = root.join(rel);
    if std::fs::read_to_string(&rtl).ok() != Some(kernel_verilog()) {
        return Err(format!(
            "{rel} is stale or missing; run `cargo xtask verilog` first"
        ));
    }
    for &sim in &sims {
        for &name in &names {
            let t = std::time::Instant::now();
            let log = testbench::run(sim, &dir, name, &rtl, &scratch)?;
            let secs = t.elapsed().as_secs_f64();
            for l in log.lines().filter(|l| l.starts_with("TESTBENCH")) {
                println!("{sim} tb_{name}: {l} ({secs:.1} s)");
            }
        }
    }
    Ok(())
}
