//! Every scenario file directly in `scenarios/` (at the repo root) parses,
//! runs on Verilator with a short cycle budget, and passes its checks;
//! those in `scenarios/long/` run at their own budget. `scenarios/failing/`
//! (found safety failures, kept for replay) is not run.

use rhdl_ubft::layout::Version;
use std::path::{Path, PathBuf};
use ubft_sim::backend::Backend;
use ubft_sim::scenario::Scenario;

/// The budget each file is capped at here (`scenarios/random.toml`
/// decides its last slot at cycle 150,281, `rerun_needs_every_share.toml`
/// at 260,260).
const MAX_CYCLES: u64 = 300_000;

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into())
        .collect()
}

/// Runs one file and checks it, capped at `cap` cycles; returns the fewest
/// slots an honest replica decided.
fn run(path: &Path, cap: u64) -> (Scenario, u64) {
    let mut s = Scenario::from_file(path).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.trim_start().starts_with('#'),
        "{}: starts with a comment saying what it shows",
        path.display()
    );
    if s.max_cycles == 0 || s.max_cycles > cap {
        s.max_cycles = cap;
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
    assert_eq!(report.layout, s.layout.name(), "{}", path.display());
    let byzantine = s.byzantine();
    for r in &report.replicas {
        assert_eq!(r.honest, !byzantine.contains(&r.id), "{}", path.display());
    }
    // A restarted replica is honest but does not rejoin: the run waits for
    // the live ones.
    let decided = report.live().map(|r| r.decided.len()).min().unwrap_or(0) as u64;
    assert!(
        decided >= s.expect_decided,
        "{}: a live replica decided {decided}, the scenario expects at least {}",
        path.display(),
        s.expect_decided
    );
    eprintln!(
        "{}: {} cycles, every live replica decided {decided} of {}, refused {:?}, {:.2} s",
        path.display(),
        report.cycles,
        s.slots,
        report.network.refused,
        t.elapsed().as_secs_f64()
    );
    (s, decided)
}

/// The shipped scenarios expect liveness: each file in
/// `scenarios/` runs the kernel, expects every honest replica to decide
/// every slot, and does; every fault kind, E3, one silent replica at n = 3
/// and two at n = 5 (leaders included) are among them.
#[test]
fn every_shipped_scenario_runs_the_kernel_and_decides_every_slot() {
    let files = files("");
    let names = names(&files);
    for kind in [
        "delay",
        "silent",
        "silent_leader",
        "silent_leaders5",
        "restart",
        "equivocate",
        "lie_vc",
        "split_view",
        "forge",
        "forge_shares",
        "mute_fast",
        "random",
        "combined",
        "late_will_commit",
        "made_up",
        "forge_cert",
        "wrong_history",
        "omit_carried",
    ] {
        assert!(
            names.iter().any(|n| n == kind),
            "scenarios/{kind}.toml is missing"
        );
    }
    for path in &files {
        let (s, decided) = run(path, MAX_CYCLES);
        assert_eq!(s.layout, Version::V3, "{}", path.display());
        assert_eq!(
            s.expect_decided,
            s.slots,
            "{}: a shipped scenario expects every honest replica to decide every slot",
            path.display()
        );
        assert_eq!(decided, s.slots, "{}", path.display());
    }
}

/// The long runs of `scenarios/long/` (soak seeds kept for a case that
/// needs more than `MAX_CYCLES` to reach), each at its own budget, with the
/// same checks: liveness expected, every honest replica decides every slot.
#[test]
fn every_long_scenario_decides_every_slot_within_its_own_budget() {
    let files = files("long");
    assert!(
        names(&files).iter().any(|n| n == "jump_counts_every_view"),
        "scenarios/long/jump_counts_every_view.toml is missing"
    );
    for path in &files {
        let (s, decided) = run(path, u64::MAX);
        assert_eq!(s.expect_decided, s.slots, "{}", path.display());
        assert_eq!(decided, s.slots, "{}", path.display());
    }
}
