//! Bench: the measurements `cargo xtask bench` prints.
//!
//! Latencies are simulated kernel cycles, exact and repeatable. A slot's
//! decision latency runs from the cycle the leader's kernel writes its
//! prepare into its own HBM (the AW handshake on `m_axi_hbm`, one cycle
//! after it chose the request) to the cycle the last honest replica's
//! decision is taken off `m_axis_dec` (DESIGN.md section 7). The benchmark's
//! runs have no view change, so the i-th prepare written is k = i + 1's. Simulation speed is wall-clock and
//! varies with the machine.

use crate::cluster::{Cluster, ClusterConfig, Path, RunReport, SimError};
use std::time::Instant;

/// One configuration's measurements.
#[derive(Clone, Debug)]
pub struct Latency {
    pub replicas: usize,
    pub slots: u64,
    pub path: Path,
    /// Mean and maximum decision latency over the slots, in cycles.
    pub mean: f64,
    pub max: u64,
    /// The bound of the performance model, in cycles.
    pub bound: u64,
    /// Cluster cycles simulated, and per wall-clock second.
    pub cycles: u64,
    pub cycles_per_sec: f64,
}

/// The fast-path bound: three network hops and three polls, 3 (L + H).
pub fn fast_bound(cfg: &ClusterConfig) -> u64 {
    3 * (cfg.net_latency + cfg.hbm_read_latency)
}

/// The slow-path bound used by the benchmark (docs/performance.md): the
/// fast path's wait (`wait_polls` polls of H + 4 cycles), one signature,
/// the n - 1 peer verifications one at a time, and four network rounds with
/// their polls (prepare, the failed will_cert, share and flag, commit).
pub fn slow_bound(cfg: &ClusterConfig) -> u64 {
    let poll = cfg.hbm_read_latency + 4;
    cfg.wait_polls * poll
        + cfg.sign_latency
        + (cfg.replicas as u64 - 1) * cfg.verify_latency
        + 4 * (cfg.net_latency + cfg.hbm_read_latency)
}

/// The v3 slow-path bound (docs/performance.md, "The v3 slow path"): the
/// fast path's wait, then the chain of recovery.md R7 to R12 on the
/// critical path, each poll H + 4 cycles:
/// - the leader signs its PREP block and writes prep_sig (S + L);
/// - a replica polls it, verifies it, echoes it in a round and reads the
///   echo row (H + V + L + H), signs its CERT share and writes it (S + L);
/// - it reads the certify row and verifies the shares of the f + 1 lowest
///   ids but its own (H + c V), signs its COMMIT and writes it (S + L);
/// - for each of f peers: it reads the COMMIT and verifies it, echoes it in
///   a round, and reads the peer's seal and echo_seal row (H + V + L + 2H).
///
/// That is W + 3 S + (1 + c + f) V + (4 + f) L + (3 + 3f) (H + 4), where
/// f + 1 COMMITs decide, against v2's n (`slow_bound`). c, the shares a
/// replica verifies, is f for a replica among the f + 1 lowest ids and
/// f + 1 above them; the latency is the last honest replica's, and the
/// bench's muted replica is the last (n − 1), so c = f + 1 once an honest
/// id exceeds f (n ≥ 5).
pub fn slow3_bound(cfg: &ClusterConfig) -> u64 {
    let poll = cfg.hbm_read_latency + 4;
    let n = cfg.replicas as u64;
    let f = (n - 1) / 2;
    let c = if n - 2 > f { f + 1 } else { f };
    cfg.wait_polls * poll
        + 3 * cfg.sign_latency
        + (1 + c + f) * cfg.verify_latency
        + (4 + f) * cfg.net_latency
        + (3 + 3 * f) * poll
}

/// Per-slot decision latencies of a finished run, for the slots decided by
/// every honest replica on `path`.
pub fn latencies(report: &RunReport, path: Path) -> Vec<u64> {
    let mut out = vec![];
    for (i, &taken) in report.proposal_cycles.iter().enumerate() {
        let k = i as u64 + 1;
        let last = report
            .honest()
            .map(|r| {
                r.decided
                    .iter()
                    .find(|d| d.k == k && d.path == path)
                    .map(|d| d.cycle)
            })
            .collect::<Option<Vec<u64>>>();
        if let Some(cycles) = last {
            if let Some(&max) = cycles.iter().max() {
                out.push(max - taken);
            }
        }
    }
    out
}

/// Runs `cfg` and measures its decision latency on `path`. For the slow
/// path, the last replica writes no fast-path votes (`MuteFast`), so every
/// slot takes the slow path without any delay added to its critical path.
pub fn measure(
    cfg: ClusterConfig,
    path: Path,
    bound: u64,
    backend: crate::backend::Backend,
) -> Result<Latency, SimError> {
    cfg.validate()?;
    let kernels = crate::backend::kernels_for(backend, cfg.replicas, cfg.layout)
        .map_err(SimError::Invalid)?;
    let mut c = Cluster::with_kernels(cfg.clone(), kernels);
    if path == Path::Slow {
        let mailbox = c.net.mailbox().clone();
        c.set_adversary(
            cfg.replicas - 1,
            Box::new(crate::adversary::MuteFast { mailbox }),
        );
    }
    let t = Instant::now();
    let report = c.run()?;
    let secs = t.elapsed().as_secs_f64();
    if !report.checks.ok() {
        return Err(SimError::Invalid(format!(
            "the run failed its checks: {:?}",
            report.checks.failures
        )));
    }
    let l = latencies(&report, path);
    if l.is_empty() {
        return Err(SimError::Invalid(format!(
            "no slot was decided on the {path:?} path"
        )));
    }
    Ok(Latency {
        replicas: cfg.replicas,
        slots: cfg.slots,
        path,
        mean: l.iter().sum::<u64>() as f64 / l.len() as f64,
        max: *l.iter().max().unwrap(),
        bound,
        cycles: report.cycles,
        cycles_per_sec: report.cycles as f64 / secs,
    })
}
