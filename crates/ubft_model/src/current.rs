//! `current`: the all-n design, an earlier controller whose every path and
//! view change waits for all n replicas. It is not the kernel (that is the
//! design `kernel`, in `recovery.rs`): it stays as the documented
//! counterexample (docs/model.md, "Results for `current`").
//!
//! All-n quorums for every path (2f + 1 = n), the f + 1 choose rule of the
//! view change (`choose` below), the catch-up as
//! built (a full quorum in the slot's will_commit, then commit row, under
//! any view of the slot's k: R26; `current:no_r26` looks under
//! tag(vote_view, k) only), client values checked (R2: `requests`;
//! `current:no_requests` does not), the timeouts as built (fast → slow for the same
//! slot; prepare, leader idle and slow → view change; a view change never
//! times out).
//!
//! Each abstract state below is a poll of one record or row of the replica's
//! own HBM followed by what that controller decides on it (docs/model.md
//! maps them onto its states):
//!
//! | model | all-n controller states | step (poll finds ...) | timeout (poll misses) |
//! | --- | --- | --- | --- |
//! | LeaderWait | LeaderCheck, LeaderWaitValue, LeaderIdle, LeaderSendPrepare | Propose(v): a value it holds; writes prepare (k, v, view) | no value: VcStart |
//! | FastPrepare | FastPollPrepare, FastWaitPrepare, FastSendCert | Vote: prepare holds (k, view) and a value it holds: will_cert (tag, m) | VcStart |
//! | FastCert | FastPollCert, FastWaitCert, FastSendCommit | CertQuorum: n will_cert for (tag, m): will_commit | SlowStart + sign: share + certify_valid |
//! | FastCommit | FastPollCommit, FastWaitCommit | CommitQuorum: n will_commit: Decide | SlowStart + sign |
//! | Slow | SlowStep, SlowWaitShare, SlowPollFlags/SlowWaitFlags, SlowPollFast/SlowWaitFast | Verify: new valid shares; SlowFast: n will_commit; SlowSendCommit: n valid shares | VcStart |
//! | SlowCommit | SlowPollCommit, SlowWaitCommit | SlowDecide: n commits | VcStart |
//! | VcCatch | VcStart.. VcSendFlag, VcPollCatch, VcWaitCatch | Catch: full quorum in will_commit for k, any view: Decide (back in vote_view if the row is of it); else on | (none) |
//! | VcCatchSlow | VcPollCatchSlow, VcWaitCatchSlow | CatchSlow: the same in commit; else on | (none) |
//! | VcRecords | VcPollFlags .. VcWaitRecords, VcDecide, VcInstall | Records: higher / install / LeaderCheck / too few (again, if something landed) | (none) |
//! | Done | Done | (decided S slots) | |
//! | Capped | (none: the model's view bound) | | |

mod mailbox;

use mailbox::{Mailbox, Region};
use rhdl_ubft::params::{faults, quorum, vote_tag, SB};

use crate::model::{val_name, Config, Design, Out, Val, FORGED, MAX_N, MAX_SLOTS, MAX_WINDOW};

/// The design. Its one parameter is whether replicas check client values
/// (recovery.md R2, built by the kernel's `requests` block): with
/// `requests`, a replica votes for a prepare (its own installed one
/// included) only when its m is a client value it has not decided, and a
/// prepare that fails the check is a miss, so the wait times out as for no
/// prepare. Everything else is in `Config`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Current {
    pub requests: bool,
    /// R26 (recovery.md): the view change's catch-up decides on a full row
    /// under any view of the slot's k (its first entry's), not only under
    /// tag(vote_view, k). It goes back to vote_view when the row is of
    /// vote_view (as without R26), and otherwise stays in its view.
    pub any_view_catch: bool,
}

impl Current {
    /// The all-n design (`current`): R2 in FastWaitPrepare, and R26's
    /// catch-up in VcWaitCatch and VcWaitCatchSlow.
    pub const ALL_N: Current = Current {
        requests: true,
        any_view_catch: true,
    };
    /// The all-n design with its requests block and the catch-up under
    /// tag(vote_view, k) only (`current:no_r26`): E3 stalls it.
    pub const NO_R26: Current = Current {
        requests: true,
        any_view_catch: false,
    };
    /// The all-n design without the `requests` block and R26: any prepare of the
    /// view's leader is voted for (`current:no_requests`).
    pub const NO_REQUESTS: Current = Current {
        requests: false,
        any_view_catch: false,
    };
}

impl Default for Current {
    fn default() -> Self {
        Current::ALL_N
    }
}

/// prepare[slot]: the words (k, m, view, 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Prep {
    pub k: u8,
    pub m: Val,
    pub view: u8,
}

/// A vote or flag entry: the words (tag(view, k), m).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vote {
    pub view: u8,
    pub k: u8,
    pub m: Val,
}

/// A node's certify share for the summary (view, slot, k, m), with its
/// certify_valid flag (tag(view, k), m): signatures are unforgeable, so a
/// share is "a valid share for (view, k, m) is present".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Share {
    pub view: u8,
    pub k: u8,
    pub m: Val,
}

/// A node's view-change record (view, slot | phase << 16, k, m) with its
/// vc_valid flag (tag(view, k), m), written as one: the record goes first on
/// the same queue pair, and the kernel counts it only with its flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rec {
    pub view: u8,
    pub phase: u8,
    pub k: u8,
    pub m: Val,
}

/// The vote regions, as rows of per-node entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Row {
    WillCert = 0,
    WillCommit = 1,
    Commit = 2,
}

impl Row {
    fn region(self) -> Region {
        match self {
            Row::WillCert => Region::WillCert,
            Row::WillCommit => Region::WillCommit,
            Row::Commit => Region::Commit,
        }
    }
    pub fn name(self) -> &'static str {
        self.region().name()
    }
}

/// The mailbox words that matter, in one replica's HBM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hbm {
    pub prepare: [Prep; MAX_WINDOW],
    pub rows: [[[Vote; MAX_N]; MAX_WINDOW]; 3],
    pub certify: [[Share; MAX_N]; MAX_WINDOW],
    pub vc: [Rec; MAX_N],
}

const HBM_BYTES: usize =
    3 * MAX_WINDOW + 3 * 3 * MAX_WINDOW * MAX_N + 3 * MAX_WINDOW * MAX_N + 4 * MAX_N;

impl std::hash::Hash for Hbm {
    // One byte string: hashing field by field was half the checker's time.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let mut b = [0u8; HBM_BYTES];
        let mut i = 0;
        let mut put = |x: &[u8]| {
            b[i..i + x.len()].copy_from_slice(x);
            i += x.len();
        };
        for p in &self.prepare {
            put(&[p.k, p.m, p.view]);
        }
        for row in &self.rows {
            for slot in row {
                for v in slot {
                    put(&[v.view, v.k, v.m]);
                }
            }
        }
        for slot in &self.certify {
            for c in slot {
                put(&[c.view, c.k, c.m]);
            }
        }
        for r in &self.vc {
            put(&[r.view, r.phase, r.k, r.m]);
        }
        h.write(&b);
    }
}

/// A write: which entry, and what goes there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Write {
    Prepare {
        slot: u8,
        p: Prep,
    },
    Vote {
        row: Row,
        slot: u8,
        node: u8,
        v: Vote,
    },
    Share {
        slot: u8,
        node: u8,
        s: Share,
    },
    Vc {
        node: u8,
        r: Rec,
    },
}

/// The controller's abstract state (see the table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pc {
    LeaderWait,
    FastPrepare,
    FastCert,
    FastCommit,
    Slow,
    SlowCommit,
    VcCatch,
    VcCatchSlow,
    VcRecords,
    Done,
    Capped,
}

impl Pc {
    /// The kernel state whose poll the model's step stands for.
    pub fn kernel(self) -> &'static str {
        match self {
            Pc::LeaderWait => "LeaderWaitValue",
            Pc::FastPrepare => "FastWaitPrepare",
            Pc::FastCert => "FastWaitCert",
            Pc::FastCommit => "FastWaitCommit",
            Pc::Slow => "SlowWaitFlags",
            Pc::SlowCommit => "SlowWaitCommit",
            Pc::VcCatch => "VcWaitCatch",
            Pc::VcCatchSlow => "VcWaitCatchSlow",
            Pc::VcRecords => "VcDecide",
            Pc::Done => "Done",
            Pc::Capped => "Capped (view bound)",
        }
    }
}

/// One replica's controller registers that matter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rep {
    pub pc: Pc,
    pub view: u8,
    pub k: u8,
    pub m: Val,
    /// 0 voted for nothing, 1 will_cert sent, 2 will_commit or commit sent.
    pub phase: u8,
    /// The view the slot's votes carry (tag(vote_view, k)).
    pub vote_view: u8,
    /// Slow path: lanes whose share verified (its own included).
    pub verified: u8,
    /// Something landed since this view-change loop's catch-up poll.
    pub dirty: bool,
    pub log: [(u8, Val); MAX_SLOTS],
    pub nlog: u8,
}

/// What a replica does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Propose(Val),
    Vote,
    CertQuorum,
    CommitQuorum,
    Verify,
    SlowFast,
    SlowSendCommit,
    SlowDecide,
    Catch,
    CatchSlow,
    Records,
    Timeout,
}

/// What a replica reads in its vc region (the Choose block's outputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chosen {
    pub valid: usize,
    pub higher: bool,
    pub chosen: Option<(u8, Val)>,
}

fn matches(e: &Vote, view: u8, k: u8, m: Val) -> bool {
    vote_tag(e.view as u32, e.k as u32) == vote_tag(view as u32, k as u32) && e.m == m
}

/// Entries among the first n that hold (tag(view, k), m): `count_votes`.
pub fn count(row: &[Vote], n: usize, view: u8, k: u8, m: Val) -> usize {
    row[..n].iter().filter(|e| matches(e, view, k, m)).count()
}

/// The catch-up's probe: the m of the first entry with tag(view, k), if all
/// n entries hold it.
/// R26's probe: the row's first entry, if it is for k and all n entries
/// hold it: its (view, m).
pub fn probe_any(row: &[Vote], n: usize, k: u8) -> Option<(u8, Val)> {
    let e = row[0];
    (e.k == k && count(row, n, e.view, k, e.m) >= quorum(n)).then_some((e.view, e.m))
}

pub fn probe(row: &[Vote], n: usize, view: u8, k: u8) -> Option<Val> {
    let tag = vote_tag(view as u32, k as u32);
    let first = row[..n]
        .iter()
        .find(|e| vote_tag(e.view as u32, e.k as u32) == tag)?;
    (count(row, n, view, k, first.m) >= quorum(n)).then_some(first.m)
}

/// Choose on the vc region, for a replica in `view` (the block's rule: a
/// record counts with its flag and its view; `choose` is the reference).
pub fn read_records(vc: &[Rec], n: usize, view: u8, window: usize) -> Chosen {
    let higher = vc[..n].iter().any(|r| r.view > view);
    let valid: Vec<VcRecord> = vc[..n]
        .iter()
        .filter(|r| r.view == view)
        .map(|r| VcRecord {
            view: r.view as u32,
            slot: ((r.k as usize + window - 1) % window) as u32,
            phase: r.phase as u32,
            k: r.k as u32,
            m: r.m as u32,
        })
        .collect();
    let chosen = choose(&valid, faults(n) + 1).map(|(k, m)| (k as u8, m as Val));
    Chosen {
        valid: valid.len(),
        higher,
        chosen,
    }
}

impl Prep {
    /// The words in prepare[slot]: (k, m, view, 0).
    pub fn words(&self) -> [u32; 4] {
        [self.k as u32, self.m as u32, self.view as u32, 0]
    }
}

impl Vote {
    /// The words of the entry: (tag(view, k), m).
    pub fn words(&self) -> [u32; 2] {
        [vote_tag(self.view as u32, self.k as u32), self.m as u32]
    }
}

impl Rec {
    pub fn record(&self, window: usize) -> VcRecord {
        VcRecord {
            view: self.view as u32,
            slot: ((self.k as usize + window - 1) % window) as u32,
            phase: self.phase as u32,
            k: self.k as u32,
            m: self.m as u32,
        }
    }
    /// The flag in vc_valid: (tag(view, k), m).
    pub fn flag(&self) -> [u32; 2] {
        [vote_tag(self.view as u32, self.k as u32), self.m as u32]
    }
}

impl Write {
    /// The first word it writes, and the words (the layout's formats), in
    /// this design's mailbox ([`mailbox()`]) for this cluster and window.
    fn placed(&self, mb: &Mailbox, window: usize) -> Vec<(usize, Vec<u32>)> {
        match *self {
            Write::Prepare { slot, p } => vec![(mb.prepare(slot as usize), p.words().to_vec())],
            Write::Vote { row, slot, node, v } => {
                vec![(
                    mb.vote(row.region(), slot as usize, node as usize),
                    v.words().to_vec(),
                )]
            }
            Write::Share { slot, node, s } => {
                // The share's words are a signature over (view, slot, k, m);
                // the flag is (tag, m).
                let flag = Vote {
                    view: s.view,
                    k: s.k,
                    m: s.m,
                };
                vec![
                    (
                        mb.share(slot as usize, node as usize),
                        vec![s.view as u32, slot as u32, s.k as u32, s.m as u32],
                    ),
                    (
                        mb.vote(Region::CertifyValid, slot as usize, node as usize),
                        flag.words().to_vec(),
                    ),
                ]
            }
            Write::Vc { node, r } => vec![
                (mb.vc(node as usize), r.record(window).words().to_vec()),
                (mb.vc_valid(node as usize), r.flag().to_vec()),
            ],
        }
    }
}

/// This design's mailbox for a model configuration.
fn mailbox(cfg: &Config) -> Mailbox {
    Mailbox::new(cfg.n, cfg.window, SB)
}

fn tag_text(view: u8, k: u8) -> String {
    format!("tag({view},{k})")
}

fn prep_text(p: &Prep) -> String {
    if p.k == 0 {
        "empty".into()
    } else {
        format!("(k {}, m {}, view {})", p.k, val_name(p.m), p.view)
    }
}

fn vote_text(v: &Vote) -> String {
    if v.k == 0 {
        "empty".into()
    } else {
        format!("({}, m={})", tag_text(v.view, v.k), val_name(v.m))
    }
}

fn rec_text(r: &Rec) -> String {
    format!(
        "(view {}, phase {}, k {}, m {})",
        r.view,
        r.phase,
        r.k,
        val_name(r.m)
    )
}

impl Current {
    fn all(cfg: &Config) -> u8 {
        ((1u16 << cfg.n) - 1) as u8
    }

    fn verifiable(cfg: &Config, rep: &Rep, hbm: &Hbm) -> u8 {
        let slot = cfg.slot(rep.k);
        let want = Share {
            view: rep.view,
            k: rep.k,
            m: rep.m,
        };
        let mut bits = 0u8;
        for i in 0..cfg.n {
            if hbm.certify[slot][i] == want {
                bits |= 1 << i;
            }
        }
        bits & !rep.verified
    }

    /// The catch-up's probe: (the view it continues in, m).
    fn catch(&self, cfg: &Config, hbm: &Hbm, row: Row, rep: &Rep) -> Option<(u8, Val)> {
        let r = Self::row(cfg, hbm, row, rep.k);
        if self.any_view_catch {
            probe_any(r, cfg.n, rep.k).map(|(w, m)| {
                if w == rep.vote_view {
                    (w, m)
                } else {
                    (rep.view, m)
                }
            })
        } else {
            probe(r, cfg.n, rep.vote_view, rep.k).map(|m| (rep.vote_view, m))
        }
    }

    fn row<'a>(cfg: &Config, hbm: &'a Hbm, row: Row, k: u8) -> &'a [Vote] {
        &hbm.rows[row as usize][cfg.slot(k)][..cfg.n]
    }

    fn votes(cfg: &Config, rep: &Rep, hbm: &Hbm, row: Row) -> usize {
        count(
            Self::row(cfg, hbm, row, rep.k),
            cfg.n,
            rep.vote_view,
            rep.k,
            rep.m,
        )
    }

    fn prepared(cfg: &Config, rep: &Rep, hbm: &Hbm) -> bool {
        let p = hbm.prepare[cfg.slot(rep.k)];
        p.k == rep.k && p.view == rep.view
    }

    /// What leader `id` may propose: `Config::proposals`; with `requests`,
    /// those in its B, or else B's head (its lowest value not decided), or
    /// nothing when B is empty (it idles and times out, as the kernel's
    /// leader does).
    fn proposals(&self, cfg: &Config, id: usize, rep: &Rep) -> Vec<Val> {
        let all = cfg.proposals(id, rep.k);
        if !self.requests {
            return all;
        }
        let ok: Vec<Val> = all
            .into_iter()
            .filter(|&m| self.valid(cfg, rep, m))
            .collect();
        if !ok.is_empty() {
            return ok;
        }
        (1..=cfg.values)
            .find(|&m| self.valid(cfg, rep, m))
            .into_iter()
            .collect()
    }

    /// R2 as the kernel checks it: m is in the replica's buffer B, i.e. a
    /// client value (every request reaches every replica, R1) that it has
    /// not decided. Always true without `requests`.
    fn valid(&self, cfg: &Config, rep: &Rep, m: Val) -> bool {
        !self.requests
            || ((1..=cfg.values).contains(&m)
                && !rep.log[..rep.nlog as usize].iter().any(|&(_, d)| d == m))
    }

    fn leader_check(cfg: &Config, id: usize, rep: &mut Rep) {
        rep.phase = 0;
        rep.vote_view = rep.view;
        rep.dirty = false;
        rep.pc = if cfg.leader(rep.view) == id {
            Pc::LeaderWait
        } else {
            Pc::FastPrepare
        };
    }

    fn decide(cfg: &Config, id: usize, rep: &mut Rep, m: Val) {
        rep.log[rep.nlog as usize] = (rep.k, m);
        rep.nlog += 1;
        rep.k += 1;
        if rep.nlog as usize >= cfg.slots {
            rep.pc = Pc::Done;
            rep.dirty = false;
        } else {
            Self::leader_check(cfg, id, rep);
        }
    }

    fn vc_start(cfg: &Config, id: usize, rep: &mut Rep) -> Vec<Out<Write>> {
        if rep.view >= cfg.views {
            rep.pc = Pc::Capped;
            rep.dirty = false;
            return vec![];
        }
        rep.view += 1;
        rep.pc = Pc::VcCatch;
        rep.dirty = false;
        let r = Rec {
            view: rep.view,
            phase: rep.phase,
            k: rep.k,
            m: rep.m,
        };
        vec![Out::All(Write::Vc { node: id as u8, r })]
    }
}

impl Design for Current {
    type Replica = Rep;
    type Hbm = Hbm;
    type Write = Write;
    type Step = Step;

    fn name(&self) -> &'static str {
        match (self.requests, self.any_view_catch) {
            (true, true) => "current",
            (true, false) => "current:no_r26",
            (false, _) => "current:no_requests",
        }
    }

    fn init(&self, cfg: &Config, id: usize) -> (Rep, Hbm) {
        let mut rep = Rep {
            pc: Pc::FastPrepare,
            view: 0,
            k: 1,
            m: 0,
            phase: 0,
            vote_view: 0,
            verified: 0,
            dirty: false,
            log: [(0, 0); MAX_SLOTS],
            nlog: 0,
        };
        Self::leader_check(cfg, id, &mut rep);
        (rep, Hbm::default())
    }

    fn steps(&self, cfg: &Config, _id: usize, rep: &Rep, hbm: &Hbm, out: &mut Vec<Step>) {
        let q = quorum(cfg.n);
        match rep.pc {
            Pc::LeaderWait => {
                out.extend(self.proposals(cfg, _id, rep).into_iter().map(Step::Propose))
            }
            Pc::FastPrepare => {
                if Self::prepared(cfg, rep, hbm)
                    && self.valid(cfg, rep, hbm.prepare[cfg.slot(rep.k)].m)
                {
                    out.push(Step::Vote)
                }
            }
            Pc::FastCert => {
                if Self::votes(cfg, rep, hbm, Row::WillCert) >= q {
                    out.push(Step::CertQuorum)
                }
            }
            Pc::FastCommit => {
                if Self::votes(cfg, rep, hbm, Row::WillCommit) >= q {
                    out.push(Step::CommitQuorum)
                }
            }
            Pc::Slow => {
                if rep.verified == Self::all(cfg) {
                    out.push(Step::SlowSendCommit);
                } else {
                    if Self::verifiable(cfg, rep, hbm) != 0 {
                        out.push(Step::Verify);
                    }
                    if Self::votes(cfg, rep, hbm, Row::WillCommit) >= q {
                        out.push(Step::SlowFast);
                    }
                }
            }
            Pc::SlowCommit => {
                if Self::votes(cfg, rep, hbm, Row::Commit) >= q {
                    out.push(Step::SlowDecide)
                }
            }
            Pc::VcCatch => out.push(Step::Catch),
            Pc::VcCatchSlow => out.push(Step::CatchSlow),
            Pc::VcRecords => {
                let c = read_records(&hbm.vc, cfg.n, rep.view, cfg.window);
                if c.higher || c.valid >= q || rep.dirty {
                    out.push(Step::Records);
                }
            }
            Pc::Done | Pc::Capped => {}
        }
    }

    fn timeouts(&self, cfg: &Config, id: usize, rep: &Rep, hbm: &Hbm, out: &mut Vec<Step>) {
        let can = match rep.pc {
            Pc::LeaderWait => true,
            Pc::FastPrepare | Pc::FastCert | Pc::FastCommit | Pc::Slow | Pc::SlowCommit => {
                let mut s = Vec::new();
                self.steps(cfg, id, rep, hbm, &mut s);
                s.is_empty()
            }
            _ => false,
        };
        if can {
            out.push(Step::Timeout);
        }
    }

    fn apply(
        &self,
        cfg: &Config,
        id: usize,
        rep: &mut Rep,
        hbm: &mut Hbm,
        step: &Step,
    ) -> Vec<Out<Write>> {
        let slot = cfg.slot(rep.k) as u8;
        let node = id as u8;
        match *step {
            Step::Propose(v) => {
                rep.m = v;
                rep.pc = Pc::FastPrepare;
                vec![Out::All(Write::Prepare {
                    slot,
                    p: Prep {
                        k: rep.k,
                        m: v,
                        view: rep.view,
                    },
                })]
            }
            Step::Vote => {
                rep.m = hbm.prepare[slot as usize].m;
                rep.phase = 1;
                rep.pc = Pc::FastCert;
                let v = Vote {
                    view: rep.vote_view,
                    k: rep.k,
                    m: rep.m,
                };
                vec![Out::All(Write::Vote {
                    row: Row::WillCert,
                    slot,
                    node,
                    v,
                })]
            }
            Step::CertQuorum => {
                rep.phase = 2;
                rep.pc = Pc::FastCommit;
                let v = Vote {
                    view: rep.vote_view,
                    k: rep.k,
                    m: rep.m,
                };
                vec![Out::All(Write::Vote {
                    row: Row::WillCommit,
                    slot,
                    node,
                    v,
                })]
            }
            Step::CommitQuorum | Step::SlowFast | Step::SlowDecide => {
                let m = rep.m;
                Self::decide(cfg, id, rep, m);
                vec![]
            }
            Step::Verify => {
                rep.verified |= Self::verifiable(cfg, rep, hbm);
                vec![]
            }
            Step::SlowSendCommit => {
                rep.phase = 2;
                rep.pc = Pc::SlowCommit;
                let v = Vote {
                    view: rep.vote_view,
                    k: rep.k,
                    m: rep.m,
                };
                vec![Out::All(Write::Vote {
                    row: Row::Commit,
                    slot,
                    node,
                    v,
                })]
            }
            Step::Catch | Step::CatchSlow => {
                let row = if *step == Step::Catch {
                    Row::WillCommit
                } else {
                    Row::Commit
                };
                match self.catch(cfg, hbm, row, rep) {
                    Some((w, m)) => {
                        rep.m = m;
                        rep.view = w;
                        Self::decide(cfg, id, rep, m);
                    }
                    None => {
                        rep.pc = if *step == Step::Catch {
                            Pc::VcCatchSlow
                        } else {
                            Pc::VcRecords
                        };
                    }
                }
                vec![]
            }
            Step::Records => {
                let c = read_records(&hbm.vc, cfg.n, rep.view, cfg.window);
                if c.higher {
                    Self::vc_start(cfg, id, rep)
                } else if c.valid < quorum(cfg.n) {
                    rep.dirty = false;
                    rep.pc = Pc::VcCatch;
                    vec![]
                } else if let Some((k, m)) = c.chosen.filter(|&(k, _)| k == rep.k) {
                    rep.m = m;
                    rep.phase = 0;
                    rep.vote_view = rep.view;
                    rep.dirty = false;
                    rep.pc = Pc::FastPrepare;
                    vec![Out::Local(Write::Prepare {
                        slot,
                        p: Prep {
                            k,
                            m,
                            view: rep.view,
                        },
                    })]
                } else {
                    Self::leader_check(cfg, id, rep);
                    vec![]
                }
            }
            Step::Timeout => match rep.pc {
                Pc::FastCert | Pc::FastCommit => {
                    // SlowStart, and the signature: nothing in between is
                    // observable (the signer is busy, so no miss, no verify,
                    // no decision).
                    rep.verified = 1 << id;
                    rep.pc = Pc::Slow;
                    let s = Share {
                        view: rep.view,
                        k: rep.k,
                        m: rep.m,
                    };
                    vec![Out::All(Write::Share { slot, node, s })]
                }
                _ => Self::vc_start(cfg, id, rep),
            },
        }
    }

    fn land(
        &self,
        _cfg: &Config,
        _dst: usize,
        rep: &mut Rep,
        hbm: &mut Hbm,
        _src: usize,
        w: &Write,
    ) {
        let changed = match *w {
            Write::Prepare { slot, p } => {
                std::mem::replace(&mut hbm.prepare[slot as usize], p) != p
            }
            Write::Vote { row, slot, node, v } => {
                std::mem::replace(&mut hbm.rows[row as usize][slot as usize][node as usize], v) != v
            }
            Write::Share { slot, node, s } => {
                std::mem::replace(&mut hbm.certify[slot as usize][node as usize], s) != s
            }
            Write::Vc { node, r } => std::mem::replace(&mut hbm.vc[node as usize], r) != r,
        };
        if changed && matches!(rep.pc, Pc::VcCatchSlow | Pc::VcRecords) {
            rep.dirty = true;
        }
    }

    /// Just in time: what the Byzantine replica may write into the entry
    /// that `d`'s next poll reads (its own vote, share or record, or the
    /// prepare of a view it leads). An entry it wrote earlier would be read
    /// at that same poll, so this loses no behaviour, only budget: a write
    /// that two polls read costs two here.
    fn forgeries(
        &self,
        cfg: &Config,
        byz: usize,
        dst: usize,
        reps: &[Rep],
        hbms: &[Hbm],
        out: &mut Vec<Write>,
    ) {
        let (d, h) = (&reps[dst], &hbms[dst]);
        let node = byz as u8;
        let slot = cfg.slot(d.k) as u8;
        let ms: Vec<Val> = (1..=cfg.values).chain(std::iter::once(FORGED)).collect();
        // A vote or a share either matches d's value (and counts) or does
        // not (and any other value is the same to d's count and probe).
        let spoil = if d.m == FORGED { 1 } else { FORGED };
        let vote_ms = [d.m.max(1), spoil];
        let vote = |row: Row, out: &mut Vec<Write>| {
            for &m in &vote_ms {
                out.push(Write::Vote {
                    row,
                    slot,
                    node,
                    v: Vote {
                        view: d.vote_view,
                        k: d.k,
                        m,
                    },
                });
            }
        };
        let start = out.len();
        match d.pc {
            Pc::FastPrepare if cfg.leader(d.view) == byz => {
                for &m in &ms {
                    out.push(Write::Prepare {
                        slot,
                        p: Prep {
                            k: d.k,
                            m,
                            view: d.view,
                        },
                    });
                }
            }
            Pc::FastCert => vote(Row::WillCert, out),
            Pc::FastCommit | Pc::VcCatch => vote(Row::WillCommit, out),
            Pc::SlowCommit | Pc::VcCatchSlow => vote(Row::Commit, out),
            Pc::Slow => {
                vote(Row::WillCommit, out);
                for &m in &vote_ms {
                    out.push(Write::Share {
                        slot,
                        node,
                        s: Share {
                            view: d.view,
                            k: d.k,
                            m,
                        },
                    });
                }
            }
            Pc::VcRecords => {
                // A record of this view (phase 0, or a vote for some (k, m)),
                // or of the next (which makes d follow).
                out.push(Write::Vc {
                    node,
                    r: Rec {
                        view: d.view,
                        phase: 0,
                        k: d.k,
                        m: 0,
                    },
                });
                for k in [d.k, d.k + 1] {
                    if k as usize <= cfg.slots {
                        for &m in &ms {
                            out.push(Write::Vc {
                                node,
                                r: Rec {
                                    view: d.view,
                                    phase: 1,
                                    k,
                                    m,
                                },
                            });
                        }
                    }
                }
                if d.view < cfg.views {
                    out.push(Write::Vc {
                        node,
                        r: Rec {
                            view: d.view + 1,
                            phase: 0,
                            k: d.k,
                            m: 0,
                        },
                    });
                }
            }
            _ => {}
        }
        // Only writes that change something.
        let mut i = start;
        while i < out.len() {
            let same = match out[i] {
                Write::Prepare { slot, p } => h.prepare[slot as usize] == p,
                Write::Vote { row, slot, node, v } => {
                    h.rows[row as usize][slot as usize][node as usize] == v
                }
                Write::Share { slot, node, s } => h.certify[slot as usize][node as usize] == s,
                Write::Vc { node, r } => h.vc[node as usize] == r,
            };
            if same {
                out.remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn allowed(&self, cfg: &Config, src: usize, w: &Write) -> bool {
        match w {
            // The leader's region: only for a view it leads.
            Write::Prepare { p, .. } => cfg.leader(p.view) == src,
            _ => {
                let mb = mailbox(cfg);
                w.placed(&mb, cfg.window)
                    .iter()
                    .all(|(word, _)| mb.owner(*word) == Some(src))
            }
        }
    }

    fn decisions<'a>(&self, rep: &'a Rep) -> &'a [(u8, Val)] {
        &rep.log[..rep.nlog as usize]
    }

    fn view(&self, rep: &Rep) -> u8 {
        rep.view
    }

    fn capped(&self, rep: &Rep) -> bool {
        rep.pc == Pc::Capped
    }

    fn is_timeout(&self, step: &Step) -> bool {
        *step == Step::Timeout
    }

    fn describe_step(&self, cfg: &Config, id: usize, rep: &Rep, hbm: &Hbm, step: &Step) -> String {
        let n = cfg.n;
        let slot = cfg.slot(rep.k);
        let st = rep.pc.kernel();
        let tag = tag_text(rep.vote_view, rep.k);
        let m = val_name(rep.m);
        let rows = |row: Row| Self::votes(cfg, rep, hbm, row);
        let mut t = rep.clone();
        let mut h = hbm.clone();
        let outs = self.apply(cfg, id, &mut t, &mut h, step);
        let next = t.pc.kernel();
        let head = match *step {
            Step::Propose(v) => format!(
                "{st} takes m={} from the client stream, writes prepare[slot {slot}] = (k {}, m {}, view {})",
                val_name(v),
                rep.k,
                val_name(v),
                rep.view
            ),
            Step::Vote => format!(
                "{st} polls prepare[slot {slot}] = {} → votes will_cert = ({}, m={})",
                prep_text(&hbm.prepare[slot]),
                tag,
                val_name(hbm.prepare[slot].m)
            ),
            Step::CertQuorum => format!(
                "{st} polls will_cert[slot {slot}] → {} of {n} votes for ({tag}, m={m}) → writes will_commit",
                rows(Row::WillCert)
            ),
            Step::CommitQuorum => format!(
                "{st} polls will_commit[slot {slot}] → {} of {n} votes for ({tag}, m={m}) → decides k {} = {m} (fast)",
                rows(Row::WillCommit),
                rep.k
            ),
            Step::Verify => format!(
                "SlowStep verifies the shares of {:?} for (view {}, k {}, m {m})",
                (0..n).filter(|i| Self::verifiable(cfg, rep, hbm) & (1 << i) != 0).collect::<Vec<_>>(),
                rep.view,
                rep.k
            ),
            Step::SlowFast => format!(
                "SlowWaitFast polls will_commit[slot {slot}] → {} of {n} for ({tag}, m={m}) → decides k {} = {m} (fast)",
                rows(Row::WillCommit),
                rep.k
            ),
            Step::SlowSendCommit => format!("SlowStep holds {n} valid shares → writes commit ({tag}, m={m})"),
            Step::SlowDecide => format!(
                "{st} polls commit[slot {slot}] → {} of {n} for ({tag}, m={m}) → decides k {} = {m} (slow)",
                rows(Row::Commit),
                rep.k
            ),
            Step::Catch | Step::CatchSlow => {
                let row = if *step == Step::Catch { Row::WillCommit } else { Row::Commit };
                let r = Self::row(cfg, hbm, row, rep.k);
                let seen: Vec<String> = r.iter().map(vote_text).collect();
                match self.catch(cfg, hbm, row, rep) {
                    Some((w, pm)) => format!(
                        "{st} polls {}[slot {slot}] = [{}] → full quorum under {} → decides k {} = {} in view {}",
                        row.name(),
                        seen.join(", "),
                        tag_text(if self.any_view_catch { r[0].view } else { rep.vote_view }, rep.k),
                        rep.k,
                        val_name(pm),
                        w
                    ),
                    None if self.any_view_catch => format!(
                        "{st} polls {}[slot {slot}] = [{}] → no full quorum for k {} under any view (miss)",
                        row.name(),
                        seen.join(", "),
                        rep.k
                    ),
                    None => format!(
                        "{st} polls {}[slot {slot}] = [{}] → no full quorum under {tag} (miss)",
                        row.name(),
                        seen.join(", ")
                    ),
                }
            }
            Step::Records => {
                let c = read_records(&hbm.vc, n, rep.view, cfg.window);
                let recs: Vec<String> = hbm.vc[..n].iter().map(rec_text).collect();
                let what = if c.higher {
                    "a record of a later view → follows it (VcStart)".to_string()
                } else if c.valid < quorum(n) {
                    format!("{} of {n} valid records (miss; something landed, so it polls again)", c.valid)
                } else {
                    match c.chosen {
                        Some((ck, cm)) if ck == rep.k => format!(
                            "{} valid, f + 1 report (k {ck}, {}) → installs prepare (k {ck}, m {}, view {}) locally",
                            c.valid,
                            val_name(cm),
                            val_name(cm),
                            rep.view
                        ),
                        Some((ck, cm)) => format!(
                            "{} valid, f + 1 report (k {ck}, {}) but k is {} → LeaderCheck (vote_view = {})",
                            c.valid,
                            val_name(cm),
                            rep.k,
                            rep.view
                        ),
                        None => format!(
                            "{} valid, no value with f + 1 reports → LeaderCheck (leader r{})",
                            c.valid,
                            cfg.leader(rep.view)
                        ),
                    }
                };
                format!("{st} reads vc = [{}] in view {} → {what}", recs.join(", "), rep.view)
            }
            Step::Timeout => {
                let why = match rep.pc {
                    Pc::LeaderWait => "no client value".to_string(),
                    Pc::FastPrepare => format!(
                        "prepare[slot {slot}] = {}, wants (k {}, view {})",
                        prep_text(&hbm.prepare[slot]),
                        rep.k,
                        rep.view
                    ),
                    Pc::FastCert => format!("will_cert[slot {slot}]: {} of {n} for ({tag}, m={m})", rows(Row::WillCert)),
                    Pc::FastCommit => {
                        format!("will_commit[slot {slot}]: {} of {n} for ({tag}, m={m})", rows(Row::WillCommit))
                    }
                    Pc::Slow => format!("{} of {n} valid shares, no new one", rep.verified.count_ones()),
                    Pc::SlowCommit => format!("commit[slot {slot}]: {} of {n} for ({tag}, m={m})", rows(Row::Commit)),
                    _ => String::new(),
                };
                let to = if t.pc == Pc::Capped {
                    "view bound reached: stops".to_string()
                } else if t.pc == Pc::Slow {
                    format!(
                        "SlowStart (same slot), signs (view {}, slot {slot}, k {}, m {m}), writes its share and certify_valid",
                        rep.view, rep.k
                    )
                } else {
                    format!("VcStart: view {}", t.view)
                };
                format!("in {st} ({why}) → {to}")
            }
        };
        let writes: Vec<String> = outs
            .iter()
            .filter_map(|o| match o {
                Out::All(w)
                    if *step == Step::Records
                        || (*step == Step::Timeout && matches!(t.pc, Pc::VcCatch)) =>
                {
                    Some(format!("writes {}", self.describe_write(cfg, id, w)))
                }
                Out::Local(w) => Some(format!(
                    "writes locally {}",
                    self.describe_write(cfg, id, w)
                )),
                _ => None,
            })
            .collect();
        let mut s = head;
        if !writes.is_empty() {
            s.push_str("; ");
            s.push_str(&writes.join("; "));
        }
        if next != st && !matches!(step, Step::Timeout) {
            s.push_str(&format!(" [→ {next}]"));
        }
        s
    }

    fn describe_write(&self, cfg: &Config, _src: usize, w: &Write) -> String {
        let mb = mailbox(cfg);
        let at = |words: &[(usize, Vec<u32>)]| {
            words
                .iter()
                .map(|(a, ws)| {
                    let ws: Vec<String> = ws.iter().map(|w| format!("{w:#x}")).collect();
                    format!("@{a}: [{}]", ws.join(", "))
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let placed = w.placed(&mb, cfg.window);
        match w {
            Write::Prepare { slot, p } => format!("prepare[{slot}] = {} {{{}}}", prep_text(p), at(&placed)),
            Write::Vote { row, slot, node, v } => {
                format!("{}[{slot}][{node}] = {} {{{}}}", row.name(), vote_text(v), at(&placed))
            }
            Write::Share { slot, node, s } => format!(
                "certify[{slot}][{node}] = valid share for (view {}, k {}, m {}) + certify_valid {{{}}}",
                s.view,
                s.k,
                val_name(s.m),
                at(&placed)
            ),
            Write::Vc { node, r } => format!("vc[{node}] = {} + vc_valid {{{}}}", rec_text(r), at(&placed)),
        }
    }

    fn describe_replica(&self, _cfg: &Config, rep: &Rep) -> String {
        format!(
            "{} view {} k {} m {} phase {} vote_view {}",
            rep.pc.kernel(),
            rep.view,
            rep.k,
            val_name(rep.m),
            rep.phase,
            rep.vote_view
        )
    }
}

/// A view-change record as a replica of this design posts it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct VcRecord {
    pub view: u32,
    pub slot: u32,
    pub phase: u32,
    pub k: u32,
    pub m: u32,
}

impl VcRecord {
    /// The four words of a vc record (`current/mailbox.rs`).
    pub fn words(&self) -> [u32; mailbox::VC_WORDS] {
        use mailbox::field;
        let mut w = [0; mailbox::VC_WORDS];
        w[field::VC_VIEW] = self.view;
        w[field::VC_SLOT] = self.slot | (self.phase << field::VC_PHASE_SHIFT);
        w[field::VC_K] = self.k;
        w[field::VC_M] = self.m;
        w
    }
}

/// The view change's choose rule: the (k, m) reported by at least `support`
/// of the records with phase >= 1, the highest such k, if any (records are
/// the valid ones).
pub fn choose(records: &[VcRecord], support: usize) -> Option<(u32, u32)> {
    let elig: Vec<&VcRecord> = records.iter().filter(|r| r.phase >= 1).collect();
    elig.iter()
        .filter(|r| elig.iter().filter(|o| o.k == r.k && o.m == r.m).count() >= support)
        .map(|r| (r.k, r.m))
        .max_by_key(|&(k, _)| k)
}
