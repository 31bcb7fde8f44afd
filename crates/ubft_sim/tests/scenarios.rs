//! Every scenario file directly in `scenarios/` (at the repo root) parses,
//! runs on Verilator with a short cycle budget, and passes its checks.
//! `scenarios/failing/` (found safety failures, kept for replay) is not run.

use std::path::PathBuf;
use ubft_sim::backend::Backend;
use ubft_sim::scenario::Scenario;

/// The budget each file is capped at here (`scenarios/random_v3.toml`
/// decides its last slot at cycle 150,281).
const MAX_CYCLES: u64 = 200_000;

fn files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_scenario_file_parses_runs_and_passes_its_checks() {
    let files = files();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into())
        .collect();
    for kind in [
        "delay",
        "silent",
        "equivocate",
        "lie_vc",
        "forge",
        "mute_fast",
        "random",
        "combined",
    ] {
        assert!(
            names.iter().any(|n| n == kind),
            "scenarios/{kind}.toml is missing"
        );
    }
    for path in &files {
        let mut s = Scenario::from_file(path).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            text.trim_start().starts_with('#'),
            "{}: starts with a comment saying what it shows",
            path.display()
        );
        if s.max_cycles == 0 || s.max_cycles > MAX_CYCLES {
            s.max_cycles = MAX_CYCLES;
        }
        let t = std::time::Instant::now();
        let report = s
            .run(Backend::Verilator)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            report.checks.ok(),
            "{}: {:?}\n{}",
            path.display(),
            report.checks.failures,
            report.summary()
        );
        let faulty = s.faulty();
        for r in &report.replicas {
            assert_eq!(r.honest, !faulty.contains(&r.id), "{}", path.display());
        }
        let decided = report.honest().map(|r| r.decided.len()).min().unwrap_or(0);
        assert!(
            decided as u64 >= s.expect_decided,
            "{}: an honest replica decided {decided}, the scenario expects at least {}",
            path.display(),
            s.expect_decided
        );
        eprintln!(
            "{}: {} cycles, every honest replica decided {decided} of {}, refused {:?}, {:.2} s",
            path.file_name().unwrap().to_string_lossy(),
            report.cycles,
            s.slots,
            report.network.refused,
            t.elapsed().as_secs_f64()
        );
    }
}
