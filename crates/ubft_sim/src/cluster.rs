//! Cluster: n kernels and the models around them, run one clock at a time.
//!
//! Each replica is a kernel backend with its own HBM model and client; one
//! network model connects them. A cycle follows `ports.rs`: every model
//! drives its inputs, every kernel settles, every model observes the
//! handshakes, every kernel takes the clock edge, and the network delivers
//! the writes due. Replicas are held in reset for `START_CYCLE` cycles; then
//! each replica's host (`host.rs`) writes the arguments through
//! `s_axi_control` and sets ap_start, as an XRT run does. At the end the
//! hosts read every status register back.
//!
//! Every run checks itself ([`Checks`]): agreement among honest replicas,
//! validity (every decided m was proposed), and k order from 1 without gaps.

pub mod event;
mod parallel;

pub use event::{Event, Trigger};

use crate::adversary::equivocate::Equivocate;
use crate::models::client::{Client, Decided};
use crate::models::hbm::{AxiViolation, Hbm};
use crate::models::host::{Args, GuardStatus, Host};
use crate::models::network::{Adversary, Delivery, Flight, Links, Network, Stack};
use crate::models::signer::Signer;
use crate::ports::{KernelBackend, KernelIn, Status};
use crate::timeline::TimeoutLog;
use rhdl_ubft::layout::{Mailbox, Region, Version, PREPARE_WORDS, UBFT_BASE_PTR};
use rhdl_ubft::params::{defaults, ConfigError, G, N as BUILD_N, SB};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Byte address of the mailbox buffer on every card (4 KiB aligned, above
/// 4 GiB so the kernel's 64-bit address path is exercised).
pub const NETWORK_PTR: u64 = 0x1_0000_0000;
/// Queue pair of peer p on every card: `QPN_BASE + p`.
pub const QPN_BASE: u32 = 16;
/// The first cycle out of reset, when the hosts start programming.
pub const START_CYCLE: u64 = 2;
/// Cycles allowed for the hosts' final status reads.
pub const STATUS_READ_CYCLES: u64 = 400;
/// `Cluster::run_with` reports progress this often: a power of two (a mask
/// test per cycle), a few times a second at simulation speed.
pub const PROGRESS_CYCLES: u64 = 1 << 17;

/// Which path decided a slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Path {
    Fast,
    Slow,
}

/// Extra latency on one link (src -> dst) for writes sent in a window of
/// cycles; with `records`, only for writes into those records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkDelay {
    pub src: usize,
    pub dst: usize,
    pub extra: u64,
    pub from_cycle: u64,
    pub to_cycle: u64,
    /// Only writes that start in these records of the sender (`None`: every
    /// write on the link).
    pub records: Option<Records>,
    /// Placed by an event of the sender's (`None`: at cycles): the window
    /// is `from_cycle..to_cycle` counted from the cycle the event starts
    /// its faults ([`event`]), and empty until it happens.
    pub after: Option<Event>,
}

/// Some records of the mailbox a replica writes: its entry (or, in a
/// leader's region, the record) of `region` at `slot`, or the whole region
/// without a slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Records {
    pub region: Region,
    /// The slot index (k - 1 mod G); `None`: every slot.
    pub slot: Option<usize>,
}

impl Records {
    /// The mailbox words of these records as `writer` writes them: its entry
    /// of a vote row, its record of a per-slot region, the slot's record of
    /// a leader's per-slot region (prepare, prep_sig), or the whole region
    /// without a slot.
    pub fn words(&self, mb: &Mailbox, writer: usize) -> Result<std::ops::Range<usize>, String> {
        use rhdl_ubft::layout::{Shape, VOTE_WORDS};
        let name = self.region.name();
        let Some(slot) = self.slot else {
            let s = mb.span(self.region);
            return Ok(s.start..s.start + s.words);
        };
        if slot >= G {
            return Err(format!("slot {slot} of {name}: slots are 0..{G}"));
        }
        let at = |start: usize, words: usize| Ok(start..start + words);
        if mb.is_vote(self.region) {
            return at(mb.vote(self.region, slot, writer), VOTE_WORDS);
        }
        let stride = mb.stride(self.region);
        match Shape::of(self.region) {
            Shape::PerSlot => at(mb.record(self.region, slot, 0), stride),
            Shape::SlotByNode => at(mb.record(self.region, slot, writer), stride),
            _ => Err(format!("{name} has no records by slot")),
        }
    }
}

/// Local HBM writes of one replica answered with SLVERR
/// ([`Hbm::fail_writes`]): the first `count` bursts of its own writes
/// (`m_axi_hbm`) that start in `records`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HbmWriteError {
    pub replica: usize,
    pub records: Records,
    pub count: u64,
}

/// A run's parameters.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    pub replicas: usize,
    pub slots: u64,
    pub seed: u64,
    pub net_latency: u64,
    pub hbm_read_latency: u64,
    pub hbm_write_latency: u64,
    pub wait_polls: u64,
    /// Signer service latencies, in cycles.
    pub sign_latency: u64,
    pub verify_latency: u64,
    /// Engines of each replica's signer service (`Signer::engines`; at
    /// least 1). The kernel makes one request at a time, so more change
    /// nothing yet.
    pub signer_engines: usize,
    pub max_cycles: u64,
    pub delays: Vec<LinkDelay>,
    /// Local HBM writes answered with SLVERR.
    pub hbm_write_errors: Vec<HbmWriteError>,
    /// Replicas that equivocate while leader: a different m to each peer.
    pub equivocate: Vec<usize>,
    /// How landing writes reach HBM: through each kernel's guard (the
    /// default), or the network model's filter (the recorded testbenches),
    /// or unchecked (`Bypass`, tests only).
    pub delivery: Delivery,
    /// The kernels run without a slot limit (`slots` register 0, as a
    /// deployment runs them, registers.md), and the run still ends once
    /// every honest replica has decided `slots` slots: a replica that
    /// decided them goes on to the next slots instead of closing and
    /// stopping (recovery.md, "The run's end"). Decisions above `slots`
    /// are checked as every other.
    pub open_ended: bool,
    /// How many requests each replica's client offers in all (0: an endless
    /// stream). The same stream goes to every replica (R1); once it is
    /// offered the clients are quiet, as a deployment's are between bursts.
    pub requests: u64,
}

/// Why a layout other than the kernel's is refused.
pub const LAYOUT_REFUSED: &str = "the kernel runs the v3 mailbox layout, the only one the simulator runs: v1 is ubft_new's word-for-word layout, which no kernel of this project runs (`rhdl-ubft layout --version v1` prints it), the v2 reference kernel is retired (CHANGELOG.md names its last commit), and v4 (48-bit slots and views, docs/recovery.md section 13) is laid out but run by no kernel (`rhdl-ubft layout --version v4` prints it)";

/// A layout by name, as the scenario key `layout` takes it: "v3", the
/// kernel's; anything else is refused with the reason.
pub fn parse_layout(s: &str) -> Result<Version, String> {
    match s {
        "v3" => Ok(Version::V3),
        "v1" | "v2" | "v4" => Err(format!("layout {s:?}: {LAYOUT_REFUSED}")),
        _ => Err(format!("unknown layout {s:?}: the kernel runs v3")),
    }
}

impl ClusterConfig {
    /// The performance model's defaults for `replicas` and `slots`.
    pub fn new(replicas: usize, slots: u64) -> Self {
        ClusterConfig {
            replicas,
            slots,
            seed: 1,
            net_latency: defaults::NET_LATENCY,
            hbm_read_latency: defaults::HBM_READ_LATENCY,
            hbm_write_latency: defaults::HBM_WRITE_LATENCY,
            wait_polls: defaults::WAIT_POLLS,
            sign_latency: defaults::SIGN_LATENCY,
            verify_latency: defaults::VERIFY_LATENCY,
            signer_engines: 1,
            max_cycles: 0,
            delays: vec![],
            hbm_write_errors: vec![],
            equivocate: vec![],
            delivery: Delivery::Kernel,
            open_ended: false,
            requests: 0,
        }
    }

    /// Short links and a quick signer, for tests on rust-hdl's simulator:
    /// L = 40, H = 12, W = 6, a wait of 16 polls, sign 300 and verify 500.
    pub fn quick(replicas: usize, slots: u64) -> Self {
        ClusterConfig {
            net_latency: 40,
            hbm_read_latency: 12,
            hbm_write_latency: 6,
            wait_polls: 16,
            sign_latency: 300,
            verify_latency: 500,
            ..ClusterConfig::new(replicas, slots)
        }
    }

    /// The mailbox layout of the running cluster: the kernel's, for the
    /// build's
    /// N, G and SB.
    pub fn mailbox(&self) -> Mailbox {
        Mailbox::v3(BUILD_N, G, SB)
    }

    /// The cycle budget: as given, or generous for the slots asked.
    pub fn cycle_budget(&self) -> u64 {
        if self.max_cycles > 0 {
            self.max_cycles
        } else {
            let per_slot =
                6 * (self.net_latency + self.hbm_read_latency + 40) + 200 + self.slow_budget();
            1_000 + self.slots.max(1) * per_slot
        }
    }

    /// A slow-path slot's generous cycle budget: the wait, a signature,
    /// n verifications and network rounds.
    fn slow_budget(&self) -> u64 {
        let poll = self.hbm_read_latency + 8;
        self.wait_polls * 2 * poll
            + self.sign_latency
            + self.replicas as u64 * (self.verify_latency + 2 * poll)
            + 6 * (self.net_latency + poll)
            + self.delays.iter().map(|d| d.extra).max().unwrap_or(0)
    }

    /// The rule a configuration breaks, if any: the kernel's own check
    /// (`ConfigError`) and the simulator's.
    pub fn validate(&self) -> Result<(), SimError> {
        let e = ConfigError::check(self.replicas, 0, BUILD_N, NETWORK_PTR, self.slots);
        if e != ConfigError::None {
            return Err(SimError::Config(e));
        }
        if self.slots == 0 {
            return Err(SimError::Invalid("slots must be at least 1".into()));
        }
        if self.hbm_read_latency == 0 || self.hbm_write_latency == 0 {
            return Err(SimError::Invalid(
                "HBM latencies must be at least 1 cycle".into(),
            ));
        }
        if self.sign_latency == 0 || self.verify_latency == 0 || self.net_latency == 0 {
            return Err(SimError::Invalid(
                "network, sign and verify latencies must be at least 1 cycle".into(),
            ));
        }
        if self.signer_engines == 0 {
            return Err(SimError::Invalid(
                "the signer needs at least 1 engine".into(),
            ));
        }
        if self.wait_polls == 0 || self.wait_polls > 0xffff {
            return Err(SimError::Invalid("wait polls must be in 1..=65535".into()));
        }
        for d in &self.delays {
            if d.src >= self.replicas || d.dst >= self.replicas || d.src == d.dst {
                return Err(SimError::Invalid(format!(
                    "a delay names link {}:{}; replicas are 0..{} and a link joins two",
                    d.src, d.dst, self.replicas
                )));
            }
            if let Some(rec) = &d.records {
                rec.words(&self.mailbox(), d.src)
                    .map_err(|e| SimError::Invalid(format!("a delay's records: {e}")))?;
            }
            if let Some(e) = &d.after {
                e.check(self.replicas)
                    .map_err(|m| SimError::Invalid(format!("a delay's event: {m}")))?;
                if e.replica() != d.src {
                    return Err(SimError::Invalid(format!(
                        "a delay on link {}:{} placed by an event of replica {}: an event places only its own replica's faults (a delay's: its sender's)",
                        d.src,
                        d.dst,
                        e.replica()
                    )));
                }
            }
        }
        for e in &self.hbm_write_errors {
            if e.replica >= self.replicas {
                return Err(SimError::Invalid(format!(
                    "an HBM write error names replica {}; replicas are 0..{}",
                    e.replica, self.replicas
                )));
            }
            e.records
                .words(&self.mailbox(), e.replica)
                .map_err(|m| SimError::Invalid(format!("an HBM write error's records: {m}")))?;
        }
        if self.equivocate.iter().any(|&r| r >= self.replicas) {
            return Err(SimError::Invalid(
                "an equivocating replica id is not below n".into(),
            ));
        }
        Ok(())
    }
}

/// Why a run could not be made or was stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The kernel refuses this configuration (its status register's code).
    Config(ConfigError),
    /// The simulator refuses this configuration.
    Invalid(String),
    /// A kernel broke an AXI rule on its HBM port.
    Axi {
        replica: usize,
        violation: AxiViolation,
    },
    /// A kernel broke an AXI4-Lite rule on `s_axi_control`, or its
    /// registers did not answer.
    Control {
        replica: usize,
        cycle: u64,
        message: String,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => write!(
                f,
                "configuration refused (status code {}): {}; this build's N is {}",
                e.code(),
                e.rule(),
                BUILD_N
            ),
            SimError::Invalid(s) => write!(f, "invalid run: {s}"),
            SimError::Axi { replica, violation } => {
                write!(f, "replica {replica} broke an AXI rule: {violation}")
            }
            SimError::Control {
                replica,
                cycle,
                message,
            } => {
                write!(
                    f,
                    "replica {replica}, s_axi_control, cycle {cycle}: {message}"
                )
            }
        }
    }
}

impl std::error::Error for SimError {}

/// One decision as the client saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub k: u64,
    pub m: u32,
    pub cycle: u64,
    pub path: Path,
}

/// One replica's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicaReport {
    pub id: usize,
    pub honest: bool,
    /// The cycles at which its host started its kernel again after a
    /// restart ([`Cluster::restart`]); its decisions after each start again
    /// at k = 1.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub restarts: Vec<u64>,
    pub view: u32,
    pub decided: Vec<Decision>,
    pub status: StatusReport,
    /// The kernel's guard counters, read through `s_axi_control`.
    pub guard: GuardReport,
}

/// A replica's guard counters at the end of the run, as its host read them
/// from the `guard_*` status registers (lifetime counters: since reset).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GuardReport {
    /// Incoming writes the guard passed to HBM.
    pub accepted: u32,
    /// Incoming writes it refused, all reasons.
    pub refused: u64,
    /// Refusals by reason (`guard::Refusal::name`), every reason listed.
    pub refused_by_reason: BTreeMap<String, u32>,
    /// Refusals by sender, replicas 0..n.
    pub refused_by_sender: Vec<u32>,
    /// The guard's HBM writes answered with an error.
    pub write_errors: u32,
    /// Beats of the kernel's own HBM writes its local guard narrowed
    /// (`local_refused`): 0 for the honest kernel every replica runs.
    pub local_refused: u32,
}

impl GuardReport {
    fn new(g: &GuardStatus, n: usize) -> GuardReport {
        GuardReport {
            accepted: g.accepted,
            refused: g.refused_total(),
            refused_by_reason: rhdl_ubft::guard::Refusal::ALL
                .iter()
                .map(|r| (r.name().to_string(), g.refused_for(*r)))
                .collect(),
            refused_by_sender: g.refused_by[..n.min(BUILD_N)].to_vec(),
            write_errors: g.write_errors,
            local_refused: g.local_refused,
        }
    }

    /// Refusals for `reason`.
    pub fn refused_for(&self, reason: rhdl_ubft::guard::Refusal) -> u32 {
        self.refused_by_reason
            .get(reason.name())
            .copied()
            .unwrap_or(0)
    }
}

/// The kernel's status counters at the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct StatusReport {
    pub cycles: u32,
    pub decisions: u32,
    pub fast: u32,
    pub slow: u32,
    pub view_changes: u32,
    pub timeouts: u32,
    pub polls: u32,
    pub bad_shares: u32,
    pub acks: u32,
    /// Local HBM writes answered with an error (`write_errors`).
    pub write_errors: u32,
    pub error: u8,
    /// The controller's state at the end (`rhdl_ubft::controller::status::STATE_NAMES`).
    pub state: u8,
    /// The slot of the latest decision in the chain (`chain_k`), and its
    /// h_k as SHA-256's 64 hex digits (`chain_h_0` first; docs/chain.md).
    pub chain_k: u32,
    pub chain_h: String,
}

impl From<Status> for StatusReport {
    fn from(s: Status) -> Self {
        StatusReport {
            cycles: s.cycles,
            decisions: s.decisions,
            fast: s.fast,
            slow: s.slow,
            view_changes: s.view_changes,
            timeouts: s.timeouts,
            polls: s.polls,
            bad_shares: s.bad_shares,
            acks: s.acks,
            write_errors: s.write_errors,
            error: s.error,
            state: s.state,
            chain_k: s.chain_k,
            chain_h: s.chain_h.iter().map(|w| format!("{w:08x}")).collect(),
        }
    }
}

/// The checks every run makes of itself.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Checks {
    /// No two honest replicas decided different values for the same k.
    pub agreement: bool,
    /// Every value an honest replica decided was proposed by a client.
    pub validity: bool,
    /// Every honest replica decided k = 1, 2, 3, ... without gaps or repeats.
    pub order: bool,
    /// Every kernel's guard decided every write as the network model's rule
    /// does (`Delivery::Kernel`; true otherwise), and no kernel's own write
    /// tripped its local guard (every replica runs the honest kernel).
    pub guard: bool,
    /// Every honest replica's `chain_k` and `chain_h` registers, as its
    /// host read them at the end, are the SHA-256 chain of the decisions
    /// its kernel handed out since its last start (`chain::chain`), and
    /// name its last decision once Chain had the time to hash it.
    pub chain: bool,
    /// What failed, in words.
    pub failures: Vec<String>,
}

impl Checks {
    pub fn ok(&self) -> bool {
        self.agreement && self.validity && self.order && self.guard && self.chain
    }
}

/// What the network model counted.
#[derive(Clone, Debug, Serialize)]
pub struct NetworkReport {
    /// RDMA WRITEs accepted per queue pair, `writes[src][dst]`.
    pub writes: Vec<Vec<u64>>,
    /// Writes refused, per sender: by the kernels' guards (`Delivery::Kernel`,
    /// as seen on their ports) or by the model's rule (`Delivery::Model`).
    pub refused: Vec<u64>,
    /// How writes reached HBM in this run.
    pub delivery: Delivery,
    /// `Delivery::Kernel`: writes on which the kernels' guards and the
    /// model's rule agreed, and disagreed (must be 0).
    pub guard_agreements: u64,
    pub guard_disagreements: u64,
    /// Writes a kernel reset abandoned inside a guard.
    pub guard_abandoned: u64,
    /// `Delivery::Kernel`, per sender: the longest wait of its writes on a
    /// receive path before the guard took them, the most queued at once on
    /// one receive path, and how many a full queue dropped
    /// (`NetStats::rx_dropped`).
    pub rx_wait_max: Vec<u64>,
    pub rx_depth_max: Vec<u64>,
    pub rx_dropped: Vec<u64>,
    /// `Delivery::Kernel`: write statuses that did not match the write taken
    /// in their place, or acknowledged a write HBM did not hold yet (must
    /// be 0; a write of the same words since, the guard's or the receiver's
    /// own kernel's, excuses the second).
    pub status_errors: u64,
    /// Writes faulty replicas sent of their own (a flood), per sender.
    pub emitted: Vec<u64>,
}

/// A run's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub cycles: u64,
    pub backend: String,
    /// The mailbox layout the kernels ran ("v3").
    pub layout: &'static str,
    /// The kernels ran with no slot limit (`ClusterConfig::open_ended`).
    pub open_ended: bool,
    pub replicas: Vec<ReplicaReport>,
    /// The client requests, each once, in the order a replica first took
    /// one off `s_axis_prop` (every replica takes the same requests).
    pub proposed: Vec<u32>,
    /// The cycles at which a kernel wrote a prepare into its own HBM (the
    /// AW handshake on `m_axi_hbm`), all replicas merged, in order: in a
    /// run without view changes, the leader's proposal of k = 1, 2, ...
    /// (a view change adds the prepares VIEW installs).
    pub proposal_cycles: Vec<u64>,
    pub network: NetworkReport,
    pub checks: Checks,
}

/// What the honest replicas did after a cycle (`RunReport::after`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum After {
    /// Every honest replica decided again: the cycles from the given cycle
    /// to the last of their first decisions at or after it.
    Decided(u64),
    /// Every honest replica that did not decide again had decided all of
    /// the run's slots before it: there was nothing left to decide.
    Done,
    /// Some honest replica with slots left never decided again.
    Never,
}

impl After {
    /// From the decisions of each honest replica, in order.
    pub fn of<'a>(honest: impl Iterator<Item = &'a [Decision]>, cycle: u64, slots: u64) -> After {
        let mut last = None;
        for decided in honest {
            match decided.iter().find(|d| d.cycle >= cycle) {
                Some(d) => last = last.max(Some(d.cycle - cycle)),
                None if slots != 0 && decided.len() as u64 >= slots => {}
                None => return After::Never,
            }
        }
        last.map_or(After::Done, After::Decided)
    }
}

impl RunReport {
    /// The honest replicas' reports.
    pub fn honest(&self) -> impl Iterator<Item = &ReplicaReport> {
        self.replicas.iter().filter(|r| r.honest)
    }

    /// The reports of the honest replicas that never restarted: those the
    /// run waits for ([`Cluster::is_live`]).
    pub fn live(&self) -> impl Iterator<Item = &ReplicaReport> {
        self.honest().filter(|r| r.restarts.is_empty())
    }

    /// How long after `cycle` every honest replica made its next decision,
    /// in a run of `slots` slots (0: no limit).
    pub fn after(&self, cycle: u64, slots: u64) -> After {
        After::of(self.live().map(|h| h.decided.as_slice()), cycle, slots)
    }

    /// As JSON (the CLI's `simulate --json`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes")
    }

    /// A short human summary.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} cycles on {}, layout {}",
            self.cycles, self.backend, self.layout
        );
        if self.open_ended {
            s += ", open-ended (no slot limit)";
        }
        s += "\n";
        for r in &self.replicas {
            let fast = r.decided.iter().filter(|d| d.path == Path::Fast).count();
            s += &format!(
                "replica {}{}{}: view {}, {} decided ({} fast, {} slow), {} timeouts, last k {}, chain h_{} {}…\n",
                r.id,
                if r.honest { "" } else { " (faulty)" },
                match r.restarts.as_slice() {
                    [] => String::new(),
                    c => format!(" (restarted at cycle {})", c.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")),
                },
                r.view,
                r.decided.len(),
                fast,
                r.decided.len() - fast,
                r.status.timeouts,
                r.decided.last().map_or(0, |d| d.k),
                r.status.chain_k,
                &r.status.chain_h[..16]
            );
            // A refused configuration, or a run the kernel stopped: say
            // which rule (the `error` status register).
            if let Some(e) = ConfigError::from_code(r.status.error as u64) {
                if e != ConfigError::None {
                    s += &format!(
                        "  replica {} {} (status code {}): {}\n",
                        r.id,
                        if e.is_stop() {
                            "stopped"
                        } else {
                            "refused its configuration"
                        },
                        e.code(),
                        e.rule()
                    );
                }
            }
        }
        s += &format!(
            "checks: agreement {}, validity {}, order {}, guard {}, chain {}\n",
            self.checks.agreement,
            self.checks.validity,
            self.checks.order,
            self.checks.guard,
            self.checks.chain
        );
        if self.network.delivery == Delivery::Kernel {
            let refused: Vec<u64> = self.replicas.iter().map(|r| r.guard.refused).collect();
            s += &format!(
                "guards: {} writes checked against the model, {} disagreements; refused per receiver {:?}\n",
                self.network.guard_agreements + self.network.guard_disagreements,
                self.network.guard_disagreements,
                refused
            );
        }
        for f in &self.checks.failures {
            s += &format!("  FAILED: {f}\n");
        }
        s
    }
}

/// Checks agreement, validity and order over the honest replicas.
pub fn check(replicas: &[ReplicaReport], proposed: &[u32]) -> Checks {
    let mut failures = vec![];
    let proposed: BTreeSet<u32> = proposed.iter().copied().collect();
    let mut by_k: BTreeMap<u64, (usize, u32)> = BTreeMap::new();
    let (mut agreement, mut validity, mut order) = (true, true, true);
    for r in replicas.iter().filter(|r| r.honest) {
        // k starts again at 1 at each restart.
        let mut next = 1;
        let mut restarts = r.restarts.iter().peekable();
        for d in &r.decided {
            while restarts.next_if(|&&c| c <= d.cycle).is_some() {
                next = 1;
            }
            if d.k != next {
                if order {
                    failures.push(format!(
                        "replica {} decided k = {} where k = {} was next",
                        r.id, d.k, next
                    ));
                }
                order = false;
            }
            next = d.k + 1;
            if !proposed.contains(&d.m) {
                failures.push(format!(
                    "replica {} decided m = {:#x} at k = {}, never proposed",
                    r.id, d.m, d.k
                ));
                validity = false;
            }
            match by_k.get(&d.k) {
                Some(&(other, m)) if m != d.m => {
                    failures.push(format!(
                        "k = {}: replica {} decided {:#x}, replica {} decided {:#x}",
                        d.k, other, m, r.id, d.m
                    ));
                    agreement = false;
                }
                Some(_) => {}
                None => {
                    by_k.insert(d.k, (r.id, d.m));
                }
            }
        }
    }
    Checks {
        agreement,
        validity,
        order,
        guard: true,
        chain: true,
        failures,
    }
}

/// A cluster being simulated.
pub struct Cluster {
    pub cfg: ClusterConfig,
    pub kernels: Vec<Box<dyn KernelBackend>>,
    pub hbms: Vec<Hbm>,
    pub clients: Vec<Client>,
    pub signers: Vec<Signer>,
    pub hosts: Vec<Host>,
    pub net: Network,
    pub cycle: u64,
    /// Replicas whose writes an adversary transforms.
    faulty: Vec<usize>,
    /// Each replica's start: when its host starts its kernel, and the
    /// restarts planned for it ([`Cluster::restart`]).
    starts: Vec<Start>,
    last_status: Vec<Status>,
    /// Every replica's arguments, as its host writes them.
    run_args: Vec<Args>,
    /// Threads `run` uses (`set_threads`).
    threads: usize,
    /// Each replica's timeouts, for a timeline (`record_timeline`); `None`,
    /// and untouched, unless asked for.
    timeouts: Vec<Option<Box<TimeoutLog>>>,
}

impl Cluster {
    /// A cluster of the given kernels.
    pub fn with_kernels(cfg: ClusterConfig, kernels: Vec<Box<dyn KernelBackend>>) -> Cluster {
        let n = cfg.replicas;
        let faulty = cfg.equivocate.clone();
        let hbms = (0..n)
            .map(|_| Hbm::new(cfg.hbm_read_latency, cfg.hbm_write_latency))
            .collect();
        // Every request goes to every replica (recovery.md R1).
        let clients = (0..n)
            .map(|_| {
                let mut c = Client::new(cfg.seed);
                c.limit = (cfg.requests != 0).then_some(cfg.requests);
                c
            })
            .collect();
        let signers = (0..n)
            .map(|r| {
                Signer::new(cfg.seed, r, n, cfg.sign_latency, cfg.verify_latency)
                    .with_engines(cfg.signer_engines)
            })
            .collect();
        let layout = cfg.mailbox();
        // A proposal is the kernel writing a prepare into its own HBM (v3: a
        // beat per slot, the record in its first four words).
        let prepares = NETWORK_PTR + 4 * layout.base(Region::Prepare) as u64
            ..NETWORK_PTR + 4 * (layout.prepare(G - 1) + PREPARE_WORDS) as u64;
        let mut hbms: Vec<Hbm> = hbms;
        for h in &mut hbms {
            h.watch_writes(prepares.clone());
        }
        let bytes = |w: std::ops::Range<usize>| {
            NETWORK_PTR + 4 * w.start as u64..NETWORK_PTR + 4 * w.end as u64
        };
        for e in &cfg.hbm_write_errors {
            let words = e.records.words(&layout, e.replica).expect("validated");
            hbms[e.replica].fail_writes(bytes(words), e.count);
        }
        let mut net = Network::new(
            n,
            cfg.net_latency,
            layout.clone(),
            NETWORK_PTR,
            QPN_BASE as u64,
        );
        for d in &cfg.delays {
            let words = d
                .records
                .map(|r| r.words(&layout, d.src).expect("validated"));
            match d.after {
                None => net.add_delay_to(d.src, d.dst, d.extra, d.from_cycle, d.to_cycle, words),
                Some(e) => {
                    let t = Trigger::new();
                    net.watch(d.src, e, t.clone());
                    net.add_delay_after(d.src, d.dst, d.extra, t, d.from_cycle, d.to_cycle, words);
                }
            }
        }
        for &r in &cfg.equivocate {
            let adv: Box<dyn Adversary> = Box::new(Equivocate::new(n, layout.clone(), cfg.seed, r));
            net.set_adversary(r, adv);
        }
        net.set_delivery(cfg.delivery);
        let run_args = (0..n).map(|r| args_of(&cfg, r)).collect();
        Cluster {
            cfg,
            kernels,
            hbms,
            clients,
            signers,
            hosts: (0..n).map(|_| Host::new()).collect(),
            net,
            cycle: 0,
            faulty,
            starts: vec![Start::new(START_CYCLE); n],
            last_status: vec![Status::default(); n],
            run_args,
            threads: 1,
            timeouts: vec![None; n],
        }
    }

    /// From now on the cluster records what a timeline of the run needs
    /// (`crate::timeline`): every write and guard decision
    /// ([`Network::record_wires`]), and each kernel's timeouts, its
    /// `timeouts` counter and state read in every cycle. A run that does
    /// not ask reads neither and pays a branch per replica and cycle.
    pub fn record_timeline(&mut self) {
        self.net.record_wires();
        for t in &mut self.timeouts {
            t.get_or_insert_with(Box::default);
        }
    }

    /// Each replica's timeouts, replica order (none unless
    /// [`record_timeline`](Self::record_timeline) was called).
    pub fn timeout_logs(&self) -> Vec<Option<&TimeoutLog>> {
        self.timeouts.iter().map(|t| t.as_deref()).collect()
    }

    /// Replica r's arguments.
    pub fn args(&self, r: usize) -> Args {
        args_of(&self.cfg, r)
    }

    /// One clock cycle of the whole cluster: each replica's part of it
    /// ([`Replica::cycle`]), in replica order, then the writes sent handed to
    /// their receivers' stacks (they land L cycles later at the earliest).
    pub fn step(&mut self) -> Result<(), SimError> {
        let cycle = self.cycle;
        let (frame, replicas) = self.parts(|k| Some(k.as_mut()));
        for mut x in replicas.into_iter().flatten() {
            x.cycle(&frame, cycle)?;
        }
        let stacks = self.net.split().1;
        for r in 0..stacks.len() {
            let sent: Vec<Flight> = stacks[r].sent().collect();
            for f in sent {
                stacks[f.dst()].receive(f);
            }
        }
        self.cycle += 1;
        Ok(())
    }

    /// The frame every replica's cycle reads, and each replica's parts,
    /// with its kernel as `kernel` gives it (`None` if it cannot).
    fn parts<'a, K: KernelBackend + ?Sized + 'a>(
        &'a mut self,
        kernel: impl Fn(&'a mut Box<dyn KernelBackend>) -> Option<&'a mut K>,
    ) -> (Frame<'a>, Vec<Option<Replica<'a, K>>>) {
        let (links, stacks) = self.net.split();
        let frame = Frame {
            links,
            args: &self.run_args,
        };
        let parts = self
            .kernels
            .iter_mut()
            .zip(self.hbms.iter_mut())
            .zip(self.clients.iter_mut())
            .zip(self.signers.iter_mut())
            .zip(self.hosts.iter_mut())
            .zip(stacks.iter_mut())
            .zip(self.last_status.iter_mut())
            .zip(self.timeouts.iter_mut())
            .zip(self.starts.iter_mut());
        let replicas = parts
            .enumerate()
            .map(
                |(
                    r,
                    ((((((((k, hbm), client), signer), host), stack), status), timeouts), start),
                )| {
                    Some(Replica {
                        r,
                        kernel: kernel(k)?,
                        hbm,
                        client,
                        signer,
                        host,
                        stack,
                        status,
                        timeouts,
                        start,
                    })
                },
            )
            .collect();
        (frame, replicas)
    }

    /// Runs the replicas on this many threads (1, the default, steps them
    /// one after another). A run on several threads is the same run, cycle
    /// for cycle (`Cluster::run_with`); only backends that can move between
    /// threads ([`KernelBackend::as_send`]) take part, others run on one.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, self.kernels.len().max(1));
    }

    /// The threads a run will use.
    pub fn threads(&mut self) -> usize {
        let movable = self.kernels.iter_mut().all(|k| k.as_send().is_some());
        if movable {
            self.threads
        } else {
            1
        }
    }

    /// True once every live replica ([`Cluster::is_live`]) decided the
    /// slots asked for.
    pub fn finished(&self) -> bool {
        (0..self.kernels.len())
            .filter(|&r| self.is_live(r))
            .all(|r| self.clients[r].decisions().len() as u64 >= self.cfg.slots)
    }

    pub fn is_honest(&self, r: usize) -> bool {
        !self.faulty.contains(&r)
    }

    /// Makes replica r faulty: `adversary` transforms its writes.
    pub fn set_adversary(&mut self, r: usize, adversary: Box<dyn Adversary>) {
        self.net.set_adversary(r, adversary);
        if !self.faulty.contains(&r) {
            self.faulty.push(r);
        }
    }

    /// A trigger that `event`'s replica fires when the event happens, with
    /// the cycle the faults it places start ([`event`]).
    pub fn trigger(&mut self, event: Event) -> Trigger {
        let t = Trigger::new();
        self.net.watch(event.replica(), event, t.clone());
        t
    }

    /// Makes replica r faulty from `event` on (one of r's own, [`event`]):
    /// `adversary` transforms the writes r sends from the cycle the event
    /// starts its faults, and the earlier ones pass unchanged
    /// (`adversary::After`). The trigger returned tells that cycle once the
    /// event happened. Panics if the event is another replica's.
    pub fn set_adversary_from(
        &mut self,
        r: usize,
        event: Event,
        adversary: Box<dyn Adversary>,
    ) -> Trigger {
        assert_eq!(
            event.replica(),
            r,
            "a fault of replica {r} placed by \"{event}\": an event places only its own replica's faults"
        );
        let start = self.trigger(event);
        let gated = crate::adversary::After {
            start: start.clone(),
            inner: adversary,
        };
        self.set_adversary(r, Box::new(gated));
        start
    }

    /// Runs until every honest replica decided, or the cycle budget is spent.
    pub fn run(&mut self) -> Result<RunReport, SimError> {
        self.run_with(|_| {})
    }

    /// As [`run`](Self::run), calling `progress` every [`PROGRESS_CYCLES`]
    /// cycles (the CLI's progress line).
    pub fn run_with(&mut self, mut progress: impl FnMut(&Cluster)) -> Result<RunReport, SimError> {
        let budget = self.cfg.cycle_budget();
        let threads = self.threads();
        while self.cycle < budget && !self.finished() {
            if threads > 1 {
                let next = (self.cycle / PROGRESS_CYCLES + 1) * PROGRESS_CYCLES;
                self.run_parallel(threads, next.min(budget))?;
            } else {
                self.step()?;
            }
            if self.cycle % PROGRESS_CYCLES == 0 {
                progress(self);
            }
        }
        self.read_status()?;
        Ok(self.report())
    }

    /// Steps the cluster on `threads` threads until cycle `until`, or until
    /// every honest replica has decided, stopping at the very cycle at which
    /// [`step`](Self::step)s would have (see `parallel.rs`).
    fn run_parallel(&mut self, threads: usize, until: u64) -> Result<(), SimError> {
        let n = self.kernels.len();
        let live: Vec<bool> = (0..n).map(|r| self.is_live(r)).collect();
        let slots = self.cfg.slots;
        let from = self.cycle;
        let (frame, replicas) = self.parts(|k| k.as_send());
        let replicas: Vec<_> = replicas
            .into_iter()
            .map(|x| x.expect("checked by threads()"))
            .collect();
        let reached = parallel::run(&frame, replicas, &live, slots, threads, from, until)?;
        self.cycle = reached;
        Ok(())
    }

    /// The fewest slots a live replica has decided so far.
    pub fn decided(&self) -> u64 {
        (0..self.kernels.len())
            .filter(|&r| self.is_live(r))
            .map(|r| self.clients[r].decisions().len() as u64)
            .min()
            .unwrap_or(0)
    }

    /// Resets every kernel (`ap_rst_n` low for `cycles` cycles from now, with
    /// its AXI interconnect and signer service), as a host does between runs;
    /// the hosts then program and start the kernels again. With
    /// `clear_mailboxes` the hosts first zero every mailbox (XRT writes the
    /// buffer before a new run; writes still in the network when the reset
    /// began have landed by then if `cycles` exceeds two network latencies),
    /// so no record of the old run is polled. The writes that the receiving
    /// stacks still hold for the kernels' guards, which were in reset, are
    /// dropped with the clear (`Network::discard_waiting_writes`).
    pub fn reset(&mut self, cycles: u64, clear_mailboxes: bool) {
        let at = self.cycle + cycles.max(1);
        for (s, h) in self.starts.iter_mut().zip(self.hosts.iter_mut()) {
            s.at = at;
            s.clear = clear_mailboxes;
            s.drop_waiting = clear_mailboxes;
            h.abandon();
        }
    }

    /// Restarts replica r's kernel alone, as a host does after a fault of
    /// its card's kernel, while the other replicas run on: from the cycle
    /// `when` names (a cycle, or one of r's own events,
    /// [`set_adversary_from`](Self::set_adversary_from)), `ap_rst_n` is
    /// low for `cycles` cycles, with r's AXI interconnect and signer
    /// service, and its host's operations are dropped; then its host
    /// programs and starts the kernel again with the run's arguments. With
    /// `clear_mailbox` the host first zeroes r's mailbox. The card's
    /// network stack and its queue pairs stay up: the peers' writes that
    /// arrive meanwhile wait in it for the guard, which takes them once the
    /// kernel is out of reset, so their completions come and the peers'
    /// rounds end (a restart that also tears the queue pairs down is not
    /// modelled).
    ///
    /// The restarted kernel starts at k = 1 in view 0 and does not rejoin
    /// (recovery.md section 17, R33, is not built), so r counts among the
    /// f: its decisions are checked for agreement, validity and order (the
    /// order starting again at k = 1 at each restart) as an honest
    /// replica's, and the run does not wait for it to decide
    /// ([`Cluster::is_live`]). Panics if the event is another replica's.
    pub fn restart(&mut self, r: usize, when: RestartAt, cycles: u64, clear_mailbox: bool) {
        let trigger = match when {
            RestartAt::Cycle(c) => {
                let t = Trigger::new();
                t.fire(c);
                t
            }
            RestartAt::Event(e) => {
                assert_eq!(
                    e.replica(),
                    r,
                    "a restart of replica {r} placed by \"{e}\": an event places only its own replica's faults"
                );
                self.trigger(e)
            }
        };
        self.starts[r].planned.push(PlannedRestart {
            trigger,
            cycles: cycles.max(1),
            clear: clear_mailbox,
        });
    }

    /// Whether the run waits for replica r to decide every slot: an honest
    /// replica that is not to restart ([`Cluster::restart`]).
    pub fn is_live(&self, r: usize) -> bool {
        self.is_honest(r) && self.starts[r].planned.is_empty() && self.starts[r].restarts.is_empty()
    }

    /// Replica r's status registers as its host last read them
    /// ([`Cluster::read_status`]; `run` reads them at its end).
    pub fn status(&self, r: usize) -> Status {
        self.last_status[r]
    }

    /// Has every host read every status register, as a host does at the end
    /// of a run (the report's status is from these reads).
    pub fn read_status(&mut self) -> Result<(), SimError> {
        for h in self.hosts.iter_mut() {
            h.read_status();
        }
        let deadline = self.cycle + STATUS_READ_CYCLES;
        loop {
            if self.hosts.iter().all(|h| h.idle()) {
                // A chain read that straddled a hash is read again.
                let torn: Vec<usize> = (0..self.hosts.len())
                    .filter(|&r| self.hosts[r].chain_torn())
                    .collect();
                if torn.is_empty() {
                    break;
                }
                for r in torn {
                    self.hosts[r].read_chain();
                }
            }
            if self.cycle >= deadline {
                let r = self.hosts.iter().position(|h| !h.idle()).unwrap_or(0);
                return Err(SimError::Control {
                    replica: r,
                    cycle: self.cycle,
                    message: format!(
                        "status reads not answered within {STATUS_READ_CYCLES} cycles"
                    ),
                });
            }
            self.step()?;
        }
        Ok(())
    }

    /// The outcome so far.
    pub fn report(&self) -> RunReport {
        let replicas: Vec<ReplicaReport> = (0..self.kernels.len())
            .map(|r| ReplicaReport {
                id: r,
                honest: self.is_honest(r),
                restarts: self.starts[r].restarts.clone(),
                view: self.last_status[r].view,
                decided: self.clients[r]
                    .decisions()
                    .iter()
                    .map(|d| Decision {
                        k: d.k as u64,
                        m: d.m,
                        cycle: d.cycle,
                        path: if d.slow { Path::Slow } else { Path::Fast },
                    })
                    .collect(),
                status: self.last_status[r].into(),
                guard: GuardReport::new(&self.hosts[r].guard(), self.kernels.len()),
            })
            .collect();
        let mut taken: Vec<(u64, u32)> = self
            .clients
            .iter()
            .flat_map(|c| c.taken().iter().map(|t| (t.cycle, t.m)))
            .collect();
        // Every replica takes the same requests: each once, at its first take.
        taken.sort();
        let mut seen = BTreeSet::new();
        taken.retain(|t| seen.insert(t.1));
        let proposed: Vec<u32> = taken.iter().map(|t| t.1).collect();
        let mut proposal_cycles: Vec<u64> = self
            .hbms
            .iter()
            .flat_map(|h| h.watched_writes().iter().copied())
            .collect();
        proposal_cycles.sort();
        let n = self.kernels.len();
        let stats = self.net.stats();
        let network = NetworkReport {
            writes: (0..n)
                .map(|s| (0..n).map(|d| self.net.writes(s, d)).collect())
                .collect(),
            refused: (0..n).map(|s| self.net.refused(s)).collect(),
            delivery: self.net.delivery(),
            guard_agreements: stats.agreements,
            guard_disagreements: stats.disagreements,
            guard_abandoned: stats.abandoned,
            rx_wait_max: stats.rx_wait_max.clone(),
            rx_depth_max: stats.rx_depth_max.clone(),
            rx_dropped: stats.rx_dropped.clone(),
            status_errors: stats.status_errors,
            emitted: stats.emitted.clone(),
        };
        let mut checks = check(&replicas, &proposed);
        for d in stats.disagreement_log.iter().take(5) {
            checks.failures.push(format!(
                "guard of replica {} {} a write of {} words at word {} from replica {} (cycle {}); the model's rule says {:?}",
                d.dst,
                if d.kernel_accepted { "accepted" } else { "refused" },
                d.words,
                d.word,
                d.src,
                d.cycle,
                d.model
            ));
        }
        if stats.status_errors > 0 {
            checks.failures.push(format!(
                "{} write statuses (m_axis_rx_sts) did not match the write taken in their place, or came before HBM held it",
                stats.status_errors
            ));
        }
        // An honest sender's write dropped by a full receive queue is never
        // acknowledged: the queue is too shallow for the kernel's traffic.
        let honest_drops: Vec<(usize, u64)> = (0..n)
            .filter(|&src| self.is_honest(src) && stats.rx_dropped[src] > 0)
            .map(|src| (src, stats.rx_dropped[src]))
            .collect();
        for (src, d) in &honest_drops {
            checks.failures.push(format!(
                "{d} writes of honest replica {src} dropped by a full receive queue (RX_QP_DEPTH)"
            ));
        }
        let local: Vec<(usize, u32)> = replicas
            .iter()
            .filter(|r| r.guard.local_refused > 0)
            .map(|r| (r.id, r.guard.local_refused))
            .collect();
        for (r, c) in &local {
            checks.failures.push(format!(
                "replica {r}'s local guard narrowed {c} beats of its kernel's own HBM writes (an honest kernel writes only its own will_cert lanes)"
            ));
        }
        checks.guard = stats.disagreements == 0
            && stats.status_errors == 0
            && honest_drops.is_empty()
            && local.is_empty();
        for r in (0..n).filter(|&r| self.is_honest(r)) {
            if let Err(e) = self.check_chain(r) {
                checks.chain = false;
                checks.failures.push(format!("replica {r}'s chain: {e}"));
            }
        }
        RunReport {
            cycles: self.cycle,
            backend: self
                .kernels
                .first()
                .map_or("none", |k| k.name())
                .to_string(),
            layout: Version::V3.name(),
            open_ended: self.cfg.open_ended,
            replicas,
            proposed,
            proposal_cycles,
            network,
            checks,
        }
    }
}

impl Cluster {
    /// Replica r's chain registers, as its host last read them, against
    /// the decisions its kernel handed out since the kernels' last start
    /// (docs/chain.md).
    fn check_chain(&self, r: usize) -> Result<(), String> {
        use rhdl_ubft::controller::chain;
        use rhdl_ubft::params::{CHAIN_CYCLES, CHAIN_QUEUE};
        let status = &self.last_status[r];
        // The first `chain_k` read of the last pair (`Host::chain_regs`).
        let Some(&(_, _, read_at)) = self.hosts[r]
            .reads
            .iter()
            .rev()
            .filter(|x| x.0 == rhdl_ubft::regs::CHAIN_K)
            .nth(1)
        else {
            return Ok(()); // never read: no status was read in this run
        };
        let start_at = self.starts[r].at;
        if read_at < start_at {
            // Read before a restart the cluster still waits for: the
            // registers are an earlier run's, whose start is not kept.
            return Ok(());
        }
        let run: Vec<&Decided> = self.clients[r]
            .decisions()
            .iter()
            .filter(|d| d.cycle >= start_at && d.cycle < read_at)
            .collect();
        let upto = run.iter().position(|d| d.k == status.chain_k);
        let hashed = match (status.chain_k, upto) {
            (0, _) => 0,
            (_, Some(i)) => i + 1,
            (k, None) => return Err(format!("chain_k = {k} is no decision of the run")),
        };
        let want = chain::chain(run[..hashed].iter().map(|d| (d.k as u64, d.m)));
        if status.chain_h != want {
            return Err(format!(
                "chain_h at k = {} is {:08x?}, the decisions' chain is {want:08x?}",
                status.chain_k, status.chain_h
            ));
        }
        // A decision handed out this long before the read has been hashed,
        // even behind a full queue.
        let due = (CHAIN_QUEUE as u64 + 1) * CHAIN_CYCLES + 1;
        if let Some(last) = run.iter().rev().find(|d| d.cycle + due <= read_at) {
            if hashed < run.iter().position(|d| d.k == last.k).unwrap() + 1 {
                return Err(format!(
                    "chain_k = {} at cycle {read_at}, but k = {} was handed out at cycle {}",
                    status.chain_k, last.k, last.cycle
                ));
            }
        }
        Ok(())
    }
}

/// Replica r's arguments in a run of `cfg`.
fn args_of(cfg: &ClusterConfig, r: usize) -> Args {
    Args {
        network_ptr: NETWORK_PTR,
        id: r as u32,
        n: cfg.replicas as u32,
        wait_polls: cfg.wait_polls as u32,
        slots: if cfg.open_ended { 0 } else { cfg.slots as u32 },
        qpn_base: QPN_BASE,
    }
}

/// What stepping a replica needs from the rest of the cluster: the links
/// and the arguments its host programs.
pub(crate) struct Frame<'a> {
    pub links: &'a Links,
    pub args: &'a [Args],
}

/// When to restart a replica's kernel ([`Cluster::restart`]).
#[derive(Clone, Debug)]
pub enum RestartAt {
    /// `ap_rst_n` falls at this cycle.
    Cycle(u64),
    /// `ap_rst_n` falls at the cycle the event starts its faults.
    Event(Event),
}

/// A restart not yet begun.
#[derive(Clone, Debug)]
pub(crate) struct PlannedRestart {
    /// Fired with the cycle `ap_rst_n` falls.
    trigger: Trigger,
    /// Cycles in reset.
    cycles: u64,
    clear: bool,
}

/// One replica's start: when its host starts its kernel.
#[derive(Clone, Debug)]
pub(crate) struct Start {
    /// `ap_rst_n` is low before this cycle; the host starts the kernel then.
    pub at: u64,
    /// Zero the mailbox at `at` (a restart).
    pub clear: bool,
    /// Drop, with the clear, the writes the stack holds for the guard (a
    /// reset of every kernel: they are the old run's).
    pub drop_waiting: bool,
    /// Restarts not yet begun, in the order given.
    planned: Vec<PlannedRestart>,
    /// The cycles at which restarts started the kernel again.
    pub restarts: Vec<u64>,
}

impl Start {
    fn new(at: u64) -> Start {
        Start {
            at,
            clear: false,
            drop_waiting: false,
            planned: vec![],
            restarts: vec![],
        }
    }
}

/// One replica of a cluster, its kernel and the models around it, borrowed
/// to be stepped. `K` is `dyn KernelBackend`, or `dyn KernelBackend + Send`
/// on a thread of its own.
pub(crate) struct Replica<'a, K: KernelBackend + ?Sized> {
    pub r: usize,
    pub kernel: &'a mut K,
    pub hbm: &'a mut Hbm,
    pub client: &'a mut Client,
    pub signer: &'a mut Signer,
    pub host: &'a mut Host,
    pub stack: &'a mut Stack,
    pub status: &'a mut Status,
    pub timeouts: &'a mut Option<Box<TimeoutLog>>,
    pub start: &'a mut Start,
}

impl<K: KernelBackend + ?Sized> Replica<'_, K> {
    /// This replica's part of cycle `cycle`, following `ports.rs`: its models
    /// drive the inputs, the kernel settles, the models observe the
    /// handshakes, the kernel takes the clock edge, and the writes due land.
    /// A replica's cycle touches nothing of another's: what it sends waits
    /// in its stack ([`Stack::sent`]) and lands L cycles later at the
    /// earliest, so the replicas of a cycle may be stepped in any order, or
    /// up to L cycles apart.
    pub fn cycle(&mut self, f: &Frame, cycle: u64) -> Result<(), SimError> {
        if let Some(i) = self
            .start
            .planned
            .iter()
            .position(|p| p.trigger.started(cycle))
        {
            let p = self.start.planned.remove(i);
            self.start.at = cycle + p.cycles;
            self.start.clear = p.clear;
            self.start.restarts.push(self.start.at);
            self.host.abandon();
        }
        if cycle == self.start.at {
            if std::mem::take(&mut self.start.clear) {
                let zeros = vec![0u32; f.links.mailbox().end() - UBFT_BASE_PTR];
                self.hbm
                    .host_write_words(NETWORK_PTR + 4 * UBFT_BASE_PTR as u64, &zeros, cycle);
            }
            if std::mem::take(&mut self.start.drop_waiting) {
                // Old writes still waiting in the stack for the guard (in
                // reset until now) are cleared with the mailbox.
                self.stack.discard_waiting();
            }
            self.host.configure(&f.args[self.r]);
        }
        let mut inp = KernelIn {
            ap_rst_n: cycle >= self.start.at,
            ..KernelIn::default()
        };
        self.host.drive(&mut inp);
        self.hbm.drive(&mut inp);
        self.stack.drive(&mut inp);
        self.client.drive(&mut inp);
        self.signer.drive(&mut inp);
        let out = self.kernel.eval(&inp);
        if let Some(log) = self.timeouts.as_deref_mut() {
            log.observe(
                cycle,
                self.kernel.debug_timeouts(),
                self.kernel.debug_state(),
            );
        }
        let replica = self.r;
        self.hbm
            .observe(&inp, &out, cycle)
            .map_err(|violation| SimError::Axi { replica, violation })?;
        self.stack.observe(f.links, &inp, &out, cycle, self.hbm);
        self.client.observe(&inp, &out, cycle);
        self.stack.client_decided(self.client.decisions());
        self.signer.observe(&inp, &out, cycle);
        let before = self.host.violations().len();
        self.host.observe(&inp, &out, cycle);
        if let Some((cycle, message)) = self.host.violations().get(before) {
            return Err(SimError::Control {
                replica,
                cycle: *cycle,
                message: message.clone(),
            });
        }
        *self.status = self.host.status();
        self.kernel.tick();
        self.stack.land(f.links, cycle, self.hbm);
        Ok(())
    }

    /// True once this replica has decided `slots` slots.
    pub fn decided(&self, slots: u64) -> bool {
        self.client.decisions().len() as u64 >= slots
    }
}
