//! Bench: the measurements `cargo xtask bench` prints.
//!
//! Latencies are simulated kernel cycles, exact and repeatable. A slot's
//! decision latency runs from the cycle the leader's kernel writes its
//! prepare into its own HBM (the AW handshake on `m_axi_hbm`, one cycle
//! after it chose the request) to the cycle the last honest replica's
//! decision is taken off `m_axis_dec` (DESIGN.md section 7). The benchmark's
//! runs have no view change, so the i-th prepare written is k = i + 1's. Simulation speed is wall-clock and
//! varies with the machine.

use crate::cluster::event::{Event, Trigger};
use crate::cluster::{Cluster, ClusterConfig, Path, RunReport, SimError};
use rhdl_ubft::layout::Region;
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
    /// The fast path's three hops, mean cycles over the slots measured
    /// (`Hops`); zero for another path.
    pub hops: Hops,
    /// Cluster cycles simulated, and per wall-clock second.
    pub cycles: u64,
    pub cycles_per_sec: f64,
}

/// The fast-path bound: three network hops and three polls, 3 (L + H).
pub fn fast_bound(cfg: &ClusterConfig) -> u64 {
    3 * (cfg.net_latency + cfg.hbm_read_latency)
}

/// The wire's share of the fast path: three network hops, 3 L.
pub fn wire_bound(cfg: &ClusterConfig) -> u64 {
    3 * cfg.net_latency
}

/// A fast slot's latency cut at the two events between its three hops,
/// each at the last honest replica to reach it: from the proposal to the
/// last will_cert vote sent (`prepare`: the prepare's hop, and the vote's
/// local write), from there to the last will_commit vote sent
/// (`will_cert`), and from there to the last decision (`will_commit`).
/// "Sent" is the send queue taking the vote's first write (`Event::Sent`).
/// The three add up to the slot's latency.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hops {
    pub prepare: f64,
    pub will_cert: f64,
    pub will_commit: f64,
}

/// The slow-path bound (docs/performance.md, "The slow path"): the
/// fast path's wait, then the chain of recovery.md R7 to R12 on the
/// critical path, each poll H + 4 cycles and each round (R13) 2 L, its
/// writes' way out and their completions' way back:
/// - the leader signs its PREP block and writes prep_sig (S + L);
/// - a replica polls it, verifies it, echoes it in a round and reads the
///   echo row (H + V + 2 L + H), signs its CERT share and writes it
///   (S + L);
/// - it reads the certify row and verifies the shares of the f + 1 lowest
///   ids but its own (H + c V), signs its COMMIT and writes it (S + L);
/// - for each of f peers: it reads the COMMIT and verifies it, reads its
///   own echo_commit entry of the peer (R11.2's "if higher") and echoes
///   the COMMIT in a round, and reads the peer's seal and echo_seal row
///   (H + V + H + 1 + 2 L + 2H).
///
/// That is W + 3 S + (1 + c + f) V + (5 + 2f) L + (3 + 4f) (H + 4) + f,
/// where f + 1 COMMITs decide. c, the shares a
/// replica verifies, is f for a replica among the f + 1 lowest ids and
/// f + 1 above them; the latency is the last honest replica's, and the
/// bench's muted replica is the last (n − 1), so c = f + 1 once an honest
/// id exceeds f (n ≥ 5).
pub fn slow_bound(cfg: &ClusterConfig) -> u64 {
    let poll = cfg.hbm_read_latency + 4;
    let n = cfg.replicas as u64;
    let f = (n - 1) / 2;
    let c = if n - 2 > f { f + 1 } else { f };
    fast_wait(cfg)
        + 3 * cfg.sign_latency
        + (1 + c + f) * cfg.verify_latency
        + (5 + 2 * f) * cfg.net_latency
        + (3 + 4 * f) * poll
        + f
}

/// The fast path's wait for votes, `wait_polls` (H + 4) cycles: FAST's
/// polls read ahead and count twice (protocol.md, "Timeouts").
pub fn fast_wait(cfg: &ClusterConfig) -> u64 {
    cfg.wait_polls * (cfg.hbm_read_latency + 4)
}

/// The slow path's bound without the fast path's wait: `slow_bound` less
/// [`fast_wait`], the latency of a slot that skips the wait on the sticky
/// slow path (protocol.md, "The sticky slow path").
pub fn sticky_bound(cfg: &ClusterConfig) -> u64 {
    slow_bound(cfg) - fast_wait(cfg)
}

/// Whether slot k waits for the fast path's votes in a run whose every
/// slot misses it from slot 1 on: slot 1 the whole wait, and the probes
/// 2, 4, 8, 16, then every multiple of `PROBE_SLOTS`, half of it
/// (protocol.md, "The sticky slow path").
pub fn is_probe(k: u64) -> bool {
    use rhdl_ubft::params::PROBE_SLOTS;
    k % PROBE_SLOTS == 0 || (k < PROBE_SLOTS && k.is_power_of_two())
}

/// The replica a run of [`measure_outage`] keeps off the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outage {
    /// The last replica writes no fast-path votes (`MuteFast`) and takes
    /// part in the slow path.
    MuteFast,
    /// The last replica is silent from the start (`Silent`).
    Silent,
}

/// A run with one replica off the fast path from the start, every slot on
/// the slow path: slot 1 pays the fast path's wait, and so do the probes
/// ([`is_probe`]); the others skip it. Latencies run from the slot's
/// proposal to its decision at a majority, the f + 1-th honest replica to
/// decide (the f + 1 matching replies a client waits for), and at the last
/// honest replica. Without the wait a replica whose signer work per slot
/// exceeds the leader's (the last, which verifies one share more) falls
/// behind the others by up to a slot, so its latency is not the slot's.
#[derive(Clone, Debug)]
pub struct OutageLatency {
    pub replicas: usize,
    pub slots: u64,
    pub outage: Outage,
    /// Slot 1's latency at a majority, and its bound (`slow_bound`).
    pub first: u64,
    pub first_bound: u64,
    /// The mean latency at a majority of slots 2 to `slots`, probes
    /// included, and of the slots that skipped the wait; the largest of
    /// the latter; their bound (`sticky_bound`).
    pub after_mean: f64,
    pub skip_mean: f64,
    pub skip_max: u64,
    pub bound: u64,
    /// The mean latency of slots 2 to `slots` at the last honest replica.
    pub after_last: f64,
    /// The mean cycles from one proposal to the next over the run: a
    /// decision every `interval` cycles, one slot at a time.
    pub interval: f64,
}

/// Runs `cfg` with its last replica off the fast path (`outage`) and
/// measures [`OutageLatency`]. The run must pass its checks and decide
/// every slot on the slow path.
pub fn measure_outage(
    cfg: ClusterConfig,
    outage: Outage,
    backend: crate::backend::Backend,
) -> Result<OutageLatency, SimError> {
    cfg.validate()?;
    let kernels = crate::backend::kernels(backend, cfg.replicas).map_err(SimError::Invalid)?;
    let mut c = Cluster::with_kernels(cfg.clone(), kernels);
    let last = cfg.replicas - 1;
    match outage {
        Outage::MuteFast => {
            let mailbox = c.net.mailbox().clone();
            c.set_adversary(
                last,
                Box::new(crate::adversary::mute_fast::MuteFast { mailbox }),
            );
        }
        Outage::Silent => c.set_adversary(
            last,
            Box::new(crate::adversary::silent::Silent { from_cycle: 0 }),
        ),
    }
    let report = c.run()?;
    if !report.checks.ok() {
        return Err(SimError::Invalid(format!(
            "the run failed its checks: {:?}",
            report.checks.failures
        )));
    }
    let f = (cfg.replicas - 1) / 2;
    let mut majority = vec![];
    let mut latest = vec![];
    for k in 1..=cfg.slots {
        let mut at: Vec<u64> = report
            .honest()
            .filter_map(|r| r.decided.iter().find(|d| d.k == k && d.path == Path::Slow))
            .map(|d| d.cycle)
            .collect();
        let taken = report.proposal_cycles.get(k as usize - 1).copied();
        let (Some(taken), true) = (taken, at.len() == cfg.replicas - 1) else {
            return Err(SimError::Invalid(format!(
                "slot {k} was not decided on the slow path by every honest replica"
            )));
        };
        at.sort();
        majority.push(at[f] - taken);
        latest.push(at[at.len() - 1] - taken);
    }
    let skipped: Vec<u64> = (2..=cfg.slots)
        .filter(|&k| !is_probe(k))
        .map(|k| majority[k as usize - 1])
        .collect();
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let p = &report.proposal_cycles;
    Ok(OutageLatency {
        replicas: cfg.replicas,
        slots: cfg.slots,
        outage,
        first: majority[0],
        first_bound: slow_bound(&cfg),
        after_mean: mean(&majority[1..]),
        skip_mean: mean(&skipped),
        skip_max: skipped.iter().copied().max().unwrap_or(0),
        bound: sticky_bound(&cfg),
        after_last: mean(&latest[1..]),
        interval: (p[cfg.slots as usize - 1] - p[0]) as f64 / (cfg.slots - 1) as f64,
    })
}

/// Per-slot decision latencies of a finished run, for the slots decided by
/// every honest replica on `path`.
pub fn latencies(report: &RunReport, path: Path) -> Vec<u64> {
    let mut out = vec![];
    for (i, &taken) in report.proposal_cycles.iter().enumerate() {
        if let Some(last) = last_decision(report, i as u64 + 1, path) {
            out.push(last - taken);
        }
    }
    out
}

/// The cycle the last honest replica decided slot `k` on `path`, if every
/// honest replica did.
fn last_decision(report: &RunReport, k: u64, path: Path) -> Option<u64> {
    report
        .honest()
        .map(|r| {
            r.decided
                .iter()
                .find(|d| d.k == k && d.path == path)
                .map(|d| d.cycle)
        })
        .collect::<Option<Vec<u64>>>()
        .and_then(|v| v.into_iter().max())
}

/// The mean hops over the slots every honest replica decided fast and
/// sent both votes of.
fn hops(report: &RunReport, sent: &[(u64, usize, Region, Trigger)]) -> Hops {
    let honest: Vec<usize> = report.honest().map(|r| r.id).collect();
    let last_sent = |k: u64, region: Region| -> Option<u64> {
        honest
            .iter()
            .map(|&r| {
                sent.iter()
                    .find(|(sk, sr, sg, _)| *sk == k && *sr == r && *sg == region)
                    .and_then(|(_, _, _, t)| t.start())
            })
            .collect::<Option<Vec<u64>>>()
            .and_then(|v| v.into_iter().max())
    };
    let mut sums = [0u64; 3];
    let mut count = 0;
    for (i, &taken) in report.proposal_cycles.iter().enumerate() {
        let k = i as u64 + 1;
        let decided = last_decision(report, k, Path::Fast);
        if let (Some(cert), Some(commit), Some(dec)) = (
            last_sent(k, Region::WillCert),
            last_sent(k, Region::WillCommit),
            decided,
        ) {
            sums[0] += cert - taken;
            sums[1] += commit - cert;
            sums[2] += dec - commit;
            count += 1;
        }
    }
    let mean = |x: u64| x as f64 / count.max(1) as f64;
    Hops {
        prepare: mean(sums[0]),
        will_cert: mean(sums[1]),
        will_commit: mean(sums[2]),
    }
}

/// Runs `cfg` and measures its decision latency on `path`, over the slots
/// every honest replica decided on it (the slow path with a replica off
/// the fast path is [`measure_outage`]'s).
pub fn measure(
    cfg: ClusterConfig,
    path: Path,
    bound: u64,
    backend: crate::backend::Backend,
) -> Result<Latency, SimError> {
    cfg.validate()?;
    let kernels = crate::backend::kernels(backend, cfg.replicas).map_err(SimError::Invalid)?;
    let mut c = Cluster::with_kernels(cfg.clone(), kernels);
    // Each replica's will_cert and will_commit votes of each slot, sent.
    let mut sent = vec![];
    if path == Path::Fast {
        for k in 1..=cfg.slots {
            for r in 0..cfg.replicas {
                for region in [Region::WillCert, Region::WillCommit] {
                    let trigger = Trigger::new();
                    let event = Event::Sent {
                        replica: r,
                        region,
                        slot: Some(k),
                    };
                    c.net.watch(r, event, trigger.clone());
                    sent.push((k, r, region, trigger));
                }
            }
        }
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
    let hops = hops(&report, &sent);
    Ok(Latency {
        replicas: cfg.replicas,
        slots: cfg.slots,
        path,
        mean: l.iter().sum::<u64>() as f64 / l.len() as f64,
        max: *l.iter().max().unwrap(),
        bound,
        hops,
        cycles: report.cycles,
        cycles_per_sec: report.cycles as f64 / secs,
    })
}

/// The v3 recovery bound (docs/performance.md, "The bridge and a carried
/// value"): cycles from the leader falling silent, just after a slot b it
/// decided on the fast path, to the first decision of b + 1, for a cluster
/// with that one replica silent. Each poll is H + 4 cycles, a row of 2N
/// beats H + 2N + 4 (N the build's), W `wait_polls`, S and V the sign and
/// verify latencies, L the network latency, f = (n − 1) / 2. In order:
/// - detection: the leader's last writes land (L); a follower that locked
///   b + 1 times out in FastWaitCert (W polls' time) and then in SLOW's
///   prep_sig poll, whose wait is T_vc's length (W · 2^vc_shift(n) polls,
///   protocol.md, "SLOW's waits"), and a few polls between;
/// - the bridge: its share of W (S, a write), the certify row until the
///   other followers' shares land (they time out up to L + a poll later),
///   f verifies, the COMMIT (S, a write): 2 S + f V + 2 L + 2 rows + L;
/// - the SEAL, a round (R32): S + 2 L, its writes out and their
///   completions back;
/// - the new leader: the seal row, then for each of f SEALs a verify, an
///   echo round (2 L) and two reads; the certificate of another replica's
///   COMMIT (f + 1 verifies) and the NEW_VIEW's write (L);
/// - a follower: a poll and the NEW_VIEW's 3f + 4 beats, R21 for f SEALs
///   as the leader's, and the f + 1 shares;
/// - the rerun of b in view 1 and b + 1 itself, each at most the slow
///   path (`slow_bound`) after the leader's proposal (L + a poll).
pub fn recovery_bound(cfg: &ClusterConfig) -> u64 {
    let (s, v, l) = (cfg.sign_latency, cfg.verify_latency, cfg.net_latency);
    let poll = cfg.hbm_read_latency + 4;
    let row = cfg.hbm_read_latency + 2 * rhdl_ubft::params::N as u64 + 4;
    let f = (cfg.replicas as u64 - 1) / 2;
    let r21 = v + 2 * l + 2 * row;
    let detect = l + (cfg.wait_polls + t_vc(cfg)) * poll + 4 * poll;
    let bridge = 2 * s + f * v + 3 * l + 2 * row + poll;
    let seal = s + 2 * l;
    let leader = row + f * r21 + (f + 1) * v + l;
    let follower = poll + cfg.hbm_read_latency + 3 * f + 8 + f * r21 + (f + 1) * v;
    let slots = 2 * (slow_bound(cfg) + l + poll);
    detect + bridge + seal + leader + follower + slots
}

/// The bound on the cycles from the last fault (`Scenario::settle_cycle`)
/// to the next decision of every honest replica, with at most f faulty
/// replicas (docs/recovery.md, "Recovery after the last fault"): f + 1
/// recoveries in a row ([`recovery_bound`]), the i-th (from 0) with the
/// wait doubled i times (`wait_polls` << i), since the timeouts double with
/// each view change without a decision and within f + 1 consecutive views
/// one has an honest leader. From the second on, the faulty replica leads
/// the view the others await: each of their T_vc misses (`wait_polls` << (i
/// + vc_shift(n))) may read a NEW_VIEW it wrote and be refused, a poll of
/// new_view's first word and a read of the record's 3f + 4 beats
/// ([`nv_miss`]) where [`recovery_bound`] counts one poll.
pub fn fault_bound(cfg: &ClusterConfig) -> u64 {
    let f = (cfg.replicas as u64 - 1) / 2;
    let poll = cfg.hbm_read_latency + 4;
    (0..=f)
        .map(|i| {
            let c = ClusterConfig {
                wait_polls: cfg.wait_polls << i,
                ..cfg.clone()
            };
            let refused = if i == 0 {
                0
            } else {
                t_vc(&c) * (nv_miss(&c) - poll)
            };
            recovery_bound(&c) + refused
        })
        .sum()
}

/// T_vc in polls at the base wait: `wait_polls` · 2^vc_shift(n), the
/// length of VIEW's and SLOW's waits (protocol.md, "Timeouts").
pub fn t_vc(cfg: &ClusterConfig) -> u64 {
    cfg.wait_polls << rhdl_ubft::params::vc_shift(cfg.replicas)
}

/// The longest miss of a follower awaiting a NEW_VIEW (view.md, ViewWaitNv
/// and ViewWaitNvRec): a poll of new_view's first word (H + 4), then a
/// read of the record, 3f + 4 beats (H + 3f + 8), refused.
pub fn nv_miss(cfg: &ClusterConfig) -> u64 {
    let f = (cfg.replicas as u64 - 1) / 2;
    2 * (cfg.hbm_read_latency + 4) + 3 * f + 4
}

/// One recovery measurement: the cycles from the leader's silence to the
/// first decision of the next slot at an honest replica (`first`) and at
/// the last one (`last`: `None` if one never decided it), against
/// [`recovery_bound`]; the honest replicas that did not decide every slot
/// by `max_cycles` (`behind`).
#[derive(Clone, Debug)]
pub struct Recovery {
    pub replicas: usize,
    /// The slot the leader decided on the fast path last, just before it
    /// fell silent, and that cycle.
    pub slot: u64,
    pub silent_from: u64,
    pub first: u64,
    pub last: Option<u64>,
    pub bound: u64,
    pub view: u32,
    pub behind: Vec<usize>,
}

/// Measures the v3 recovery: a probe run finds the cycle at which the
/// leader decides slot `slot` (fast, every replica timely); the run then
/// silences the leader (replica 0) from the next cycle and measures the
/// first decision of `slot` + 1 (`Recovery`). The run must pass its
/// checks, and some honest replica must decide `slot` + 1.
pub fn measure_recovery(
    cfg: ClusterConfig,
    slot: u64,
    backend: crate::backend::Backend,
) -> Result<Recovery, SimError> {
    cfg.validate()?;
    let make = |cfg: &ClusterConfig| -> Result<Cluster, SimError> {
        let kernels = crate::backend::kernels(backend, cfg.replicas).map_err(SimError::Invalid)?;
        Ok(Cluster::with_kernels(cfg.clone(), kernels))
    };
    let probe = make(&ClusterConfig {
        slots: slot,
        ..cfg.clone()
    })?
    .run()?;
    let at = probe.replicas[0]
        .decided
        .iter()
        .find(|d| d.k == slot)
        .filter(|d| d.path == Path::Fast)
        .ok_or_else(|| SimError::Invalid(format!("slot {slot} not decided fast in the probe")))?
        .cycle;
    let silent_from = at + 1;
    let mut c = make(&cfg)?;
    c.set_adversary(
        0,
        Box::new(crate::adversary::silent::Silent {
            from_cycle: silent_from,
        }),
    );
    let report = c.run()?;
    if !report.checks.ok() {
        return Err(SimError::Invalid(format!(
            "the run failed its checks: {:?}",
            report.checks.failures
        )));
    }
    let next: Vec<Option<u64>> = report
        .honest()
        .map(|r| {
            r.decided
                .iter()
                .find(|d| d.k == slot + 1)
                .map(|d| d.cycle.saturating_sub(silent_from))
        })
        .collect();
    let first =
        next.iter().flatten().min().copied().ok_or_else(|| {
            SimError::Invalid(format!("no honest replica decided slot {}", slot + 1))
        })?;
    Ok(Recovery {
        replicas: cfg.replicas,
        slot,
        silent_from,
        first,
        last: next
            .iter()
            .copied()
            .collect::<Option<Vec<u64>>>()
            .map(|v| *v.iter().max().unwrap()),
        bound: recovery_bound(&cfg),
        view: report.honest().map(|r| r.view).max().unwrap_or(0),
        behind: report
            .honest()
            .filter(|r| (r.decided.len() as u64) < cfg.slots)
            .map(|r| r.id)
            .collect(),
    })
}

/// The guard's rate under a flood (`guard_rate`): one-beat writes accepted
/// over the cycles from the first command offered to the last write's AXI
/// beat.
#[derive(Clone, Copy, Debug)]
pub struct GuardRate {
    pub replicas: usize,
    pub writes: u64,
    pub cycles: u64,
}

impl GuardRate {
    /// Writes accepted per cycle.
    pub fn per_cycle(&self) -> f64 {
        self.writes as f64 / self.cycles as f64
    }
}

/// The kernel's guard (`guard::Guard`, the default build's) alone on
/// rust-hdl's simulator, under back-to-back one-beat writes from the n − 1
/// peers of replica 0, in turn: each a will_cert vote of its own lane, slot
/// after slot, its command and payload always valid, HBM always ready, B
/// three cycles after W. Every write must be accepted.
pub fn guard_rate(n: usize, writes: u64) -> Result<GuardRate, SimError> {
    use rhdl_ubft::guard::Guard;
    use rhdl_ubft::io::roce::{wr_data_beats, WrCommand, QPNS_BITS, WR_CMD_BITS};
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, N, SB};
    use rust_hdl::prelude::{simulate, Bits, Block, Clock};
    if !(2..=N).contains(&n) {
        return Err(SimError::Invalid(format!("guard_rate: n = {n}, 2 to {N}")));
    }
    const PTR: u64 = 0x1_0000_0000;
    let qpn = |i: usize| 16 + i as u64;
    let mb = Mailbox::v3(N, G, SB);
    let row = (2 * N).next_power_of_two();
    let mut g = Guard::<N>::default();
    g.connect_all();
    let mut q = Bits::<QPNS_BITS>::default();
    for i in 0..N {
        q.set_bits::<10>(10 * i, qpn(i).into());
    }
    let settle =
        |g: &mut Guard<N>| assert!(simulate(g, 200), "guard_rate: the guard does not settle");
    // The packets: (command, its one payload beat).
    let packets: Vec<(u128, [u32; 16])> = (0..writes)
        .map(|j| {
            let sender = 1 + (j as usize % (n - 1));
            let slot = (j as usize / (n - 1)) % G;
            let word = mb.base(Region::WillCert) + slot * row + 2 * sender;
            let payload = [0x0100_0000 | (slot as u32 + 1), 7];
            let cmd = WrCommand::write(qpn(sender), PTR + 4 * word as u64, 8).pack();
            (cmd, wr_data_beats(&payload)[0].0)
        })
        .collect();
    let (mut next_cmd, mut next_beat, mut landed) = (0usize, 0usize, 0u64);
    let mut b_due: std::collections::VecDeque<u64> = Default::default();
    let (mut first, mut last) = (None, 0u64);
    for cycle in 0..writes * 64 + 100 {
        g.rst_n.next = cycle >= 2;
        g.network_ptr.next = PTR.into();
        g.n.next = (n as u64).into();
        g.id.next = 0.into();
        g.qpns.next = q;
        let feeding = cycle >= 4;
        let mut t = Bits::<WR_CMD_BITS>::default();
        if let Some((cmd, _)) = packets.get(next_cmd) {
            t.set_bits::<64>(0, (*cmd as u64).into());
            t.set_bits::<32>(64, ((*cmd >> 64) as u64).into());
        }
        g.wr_cmd_tdata.next = t;
        g.wr_cmd_tvalid.next = feeding && next_cmd < packets.len();
        let mut beat = Bits::<512>::default();
        if let Some((_, d)) = packets.get(next_beat) {
            for (i, w) in d.iter().enumerate() {
                beat.set_bits::<32>(32 * i, (*w as u64).into());
            }
        }
        g.wr_data_tdata.next = beat;
        g.wr_data_tkeep.next = u64::MAX.into();
        g.wr_data_tlast.next = true;
        g.wr_data_tvalid.next = feeding && next_beat < packets.len().min(next_cmd);
        g.awready.next = true;
        g.wready.next = true;
        let bvalid = b_due.front().is_some_and(|&d| d <= cycle);
        g.bvalid.next = bvalid;
        g.bresp.next = 0.into();
        g.clock.next = Clock::from(false);
        settle(&mut g);
        if g.wr_cmd_tvalid.val() && g.wr_cmd_tready.val() {
            first.get_or_insert(cycle);
            next_cmd += 1;
        }
        if g.wr_data_tvalid.val() && g.wr_data_tready.val() {
            next_beat += 1;
        }
        if bvalid {
            b_due.pop_front();
        }
        if g.landed.val() {
            landed += 1;
            last = cycle;
            b_due.push_back(cycle + 3);
        }
        g.clock.next = Clock::from(true);
        settle(&mut g);
        if landed == writes {
            break;
        }
    }
    let accepted = g.sts_accepted.val().to_u64();
    if landed != writes || accepted != writes {
        return Err(SimError::Invalid(format!(
            "guard_rate: {landed} of {writes} writes landed, {accepted} accepted"
        )));
    }
    Ok(GuardRate {
        replicas: n,
        writes,
        cycles: last + 1 - first.unwrap_or(0),
    })
}
