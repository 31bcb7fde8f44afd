//! The harness: the cluster around a design, as a stateright model.
//!
//! The state is every replica's controller state and HBM (the mailbox words
//! that matter, as the design defines them), the writes the network holds
//! back, and the environment's choices so far (who fell silent, how much
//! asynchrony was spent, how many writes the Byzantine replica made).
//!
//! Actions:
//!
//! - `Step(r, s, silent, hold)`: replica r takes step s of its design: one
//!   atomic poll of its own HBM and what the kernel does on it. Its writes go
//!   to its own HBM first, then to every peer. A write lands at once unless
//!   the network holds it back (`hold`: a mask of peers, within
//!   `Config::delays`) or an earlier held write blocks its queue pair (FIFO
//!   per src → dst). `silent`: r falls silent right after this step (silence
//!   commutes with everything but r's own steps, so this reaches every point
//!   a replica can stop at). A poll that finds nothing changes nothing, so it
//!   is no action (a stutter).
//! - A timeout is a step too (the design lists it apart). It fires when no
//!   replica can step (nothing else can happen but held writes landing); or
//!   earlier, at most `Config::early_timeouts` times in a run.
//! - `Land(src, dst)`: the held write at the head of queue pair src → dst
//!   lands, and the writes queued behind it with it (any time).
//! - `Forge(dst, w, step..)`: the Byzantine replica writes w straight into
//!   dst's HBM (anything in its own entries, different per receiver: the
//!   design's `forgeries`, which `allowed`, the per-sender slot guard,
//!   accepts), and dst takes a step on it. A forged write matters only to
//!   dst's polls and commutes with everything else, so it is placed right
//!   before the step of dst it is for. At most `Config::byz_writes` of them.
//! - `Silence(r)`: replica r is silent from the start. A silent replica takes
//!   no step; writes it already handed to the NIC still land (the NIC is
//!   trusted); its own mailbox still takes writes, but nobody reads it again,
//!   so the model drops them.
//! - `Restart(r)` (with `Config::restarts`): replica r restarts at any point
//!   (docs/recovery.md R33): the design's restart state, its mailbox
//!   cleared, its writes in flight dropped, and of the writes in flight to
//!   it only the records of rounds in progress kept, which their writers
//!   re-send on the new queue pair (they land at once). Until it rejoins it
//!   counts among the f faults, with the silent ones: a silence or a
//!   restart is offered only while the faults stay within `Config::silent`.
//!   Not sound with `--por` (a restart reads and drops other replicas'
//!   writes in flight), which the CLI refuses with restarts.
//!
//! So the network is synchronous except for at most `delays` held writes and
//! `early_timeouts` early timers: eventual synchrony with a bounded amount of
//! asynchrony before GST (docs/model.md says what that can miss). GST is
//! taken as the last asynchronous event (an early timeout or a held write
//! landing).
//!
//! Properties (names fixed for every design): `agreement`, `validity`,
//! `integrity` (invariants over the honest replicas' decisions) and
//! `live_with_f_silent` (every terminal state reached is one where every live
//! honest replica decided every slot, unless a bound cut the run).

use std::fmt::Debug;
use std::hash::Hash;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use rhdl_ubft::params::faults;
use stateright::{Model, Property};

/// A value in the model's small domain. 0 is "nothing" (a cleared word),
/// 1..=`Config::values` are the clients' values (A, B, ...), [`FORGED`] is a
/// value no client proposed, [`NOOP`] the no-op a design may decide.
pub type Val = u8;
/// A value only a Byzantine replica writes.
pub const FORGED: Val = 15;
/// The no-op (a design that fills a slot with nothing decides it).
pub const NOOP: Val = 14;

/// How a value reads in a trace.
pub fn val_name(v: Val) -> String {
    match v {
        0 => "-".into(),
        FORGED => "X".into(),
        NOOP => "noop".into(),
        v if v <= 13 => ((b'A' + v - 1) as char).to_string(),
        v => format!("?{v}"),
    }
}

/// The bounds and the environment of one check.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// n = 2f + 1 replicas.
    pub n: usize,
    /// Slots every live honest replica must decide (k = 1..=slots); a replica
    /// that decided them stops, as the kernel does with `slots` = S.
    pub slots: usize,
    /// The model's window G: slot = (k - 1) mod G, so with G < S slot k + G
    /// reuses slot k's mailbox entries.
    pub window: usize,
    /// The highest view: a replica that would go past it stops ("capped").
    pub views: u8,
    /// Client values: 1..=values.
    pub values: u8,
    /// What a leader may propose: any client value (`true`), or the one its
    /// stream holds for k: value 1 + (leader + k - 1) mod values.
    pub any_value: bool,
    /// At most this many honest replicas fall silent (default f).
    pub silent: usize,
    /// The Byzantine replica, if any.
    pub byzantine: Option<usize>,
    /// Writes the Byzantine replica may make.
    pub byz_writes: u8,
    /// Liveness: a run cut by the view bound counts as a failure once the
    /// views advanced this many times after GST with a slot undecided.
    pub live_views: u8,
    /// Asynchrony: timeouts that may fire while something else can still
    /// happen (a write can land, a replica can step). After them, a timeout
    /// fires only when nothing else can.
    pub early_timeouts: u8,
    /// Asynchrony: writes the network may hold back (a held write does not
    /// keep timeouts from firing; writes behind it on its queue pair wait).
    pub delays: u8,
    /// The bridge's reach R, in slots (`kernel`: recovery.md D11.16): a
    /// catch-up (R24) that would leave an open obligation's W more than R
    /// slots below the new k is not taken. The RTL's is
    /// ⌊(G − 1)/2⌋ = 7 at G = 16.
    pub reach: usize,
    /// Restarts (recovery.md R29 to R33): at most this many times a live
    /// honest replica restarts, at any point: its controller state is
    /// lost, its own mailbox cleared, its writes in flight dropped, and
    /// it rejoins from a checkpoint certificate. A replica rejoining counts
    /// among the f faults (`silent` is their budget) until it installs.
    /// 0 (the default) leaves every design as it was: no checkpoints.
    pub restarts: u8,
    /// Checkpoints: a replica writes one after deciding a slot k with
    /// k mod C = 0 (only when `restarts` > 0).
    pub ckpt_every: usize,
    /// Rules of the rejoin to leave out, to see what each guards against
    /// (bits of [`REJOIN_RULES`]); 0: the design.
    pub rejoin_off: u8,
}

/// The rejoin's rules that `Config::rejoin_off` can leave out: the floor
/// in the SEAL (R30, R33 step 4), the register copy (step 2), the fence
/// (step 3), and the checkpoint made after the restart (step 4: without
/// it the copy also brings the peer's checkpoints).
pub const REJOIN_RULES: [(&str, u8); 4] = [("floor", 1), ("copy", 2), ("fence", 4), ("fresh", 8)];

impl Config {
    /// n replicas, S slots, window G, views 0..=V, max(2, S) client values
    /// (a leader proposes each value once, so fewer than S would leave the
    /// last slots with nothing to propose), f silent, no Byzantine replica,
    /// L = f + 2.
    pub fn new(n: usize, slots: usize, window: usize, views: u8) -> Config {
        assert!(
            n % 2 == 1 && n <= MAX_N,
            "n must be odd and at most {MAX_N}"
        );
        assert!((1..=MAX_SLOTS).contains(&slots), "slots in 1..={MAX_SLOTS}");
        assert!(
            (1..=MAX_WINDOW).contains(&window),
            "window in 1..={MAX_WINDOW}"
        );
        Config {
            n,
            slots,
            window,
            views,
            values: 2.max(slots as Val),
            any_value: false,
            silent: faults(n),
            byzantine: None,
            byz_writes: 0,
            live_views: faults(n) as u8 + 2,
            early_timeouts: 2,
            delays: 1,
            reach: crate::defaults::REACH,
            restarts: 0,
            ckpt_every: 1,
            rejoin_off: 0,
        }
    }

    pub fn f(&self) -> usize {
        faults(self.n)
    }

    /// Whether replica r is honest (it may still fall silent).
    pub fn honest(&self, r: usize) -> bool {
        self.byzantine != Some(r)
    }

    /// The mailbox slot of sequence number k.
    pub fn slot(&self, k: u8) -> usize {
        (k as usize + self.window - 1) % self.window
    }

    /// The values leader `id` may propose for k.
    pub fn proposals(&self, id: usize, k: u8) -> Vec<Val> {
        if self.any_value {
            (1..=self.values).collect()
        } else {
            vec![1 + ((id + k as usize - 1) % self.values as usize) as Val]
        }
    }

    /// The leader of a view (view mod n).
    pub fn leader(&self, view: u8) -> usize {
        view as usize % self.n
    }
}

/// The most replicas, window slots and decisions the fixed-size records hold.
pub const MAX_N: usize = 5;
pub const MAX_WINDOW: usize = 4;
pub const MAX_SLOTS: usize = 4;

/// What a step writes: onto every queue pair (after its own HBM), or into
/// its own HBM only.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Out<W> {
    All(W),
    Local(W),
}

/// A protocol to check: its replica state, its mailbox, its writes and its
/// steps. The harness supplies everything else.
pub trait Design: Clone + Debug + Hash + Eq + Send + Sync + 'static {
    type Replica: Clone + Debug + Hash + Eq + Send + Sync;
    type Hbm: Clone + Debug + Hash + Eq + Send + Sync;
    type Write: Clone + Debug + Hash + Eq + Send + Sync;
    type Step: Clone + Debug + Hash + Eq + Send + Sync;

    /// The name the CLI selects it by.
    fn name(&self) -> &'static str;
    /// Replica `id`'s state and HBM at `ap_start`.
    fn init(&self, cfg: &Config, id: usize) -> (Self::Replica, Self::Hbm);
    /// The steps `id` can take now that change something (a poll that finds
    /// nothing is not a step).
    fn steps(
        &self,
        cfg: &Config,
        id: usize,
        rep: &Self::Replica,
        hbm: &Self::Hbm,
        out: &mut Vec<Self::Step>,
    );
    /// The timeouts that could fire now (each on a poll that misses).
    fn timeouts(
        &self,
        cfg: &Config,
        id: usize,
        rep: &Self::Replica,
        hbm: &Self::Hbm,
        out: &mut Vec<Self::Step>,
    );
    /// Takes a step (or a timeout); returns its writes.
    fn apply(
        &self,
        cfg: &Config,
        id: usize,
        rep: &mut Self::Replica,
        hbm: &mut Self::Hbm,
        step: &Self::Step,
    ) -> Vec<Out<Self::Write>>;
    /// A write from `src` lands in `dst`'s HBM (`rep` is `dst`'s, for what it
    /// records about landings).
    fn land(
        &self,
        cfg: &Config,
        dst: usize,
        rep: &mut Self::Replica,
        hbm: &mut Self::Hbm,
        src: usize,
        w: &Self::Write,
    );
    /// Remote reads (an RDMA READ of a peer's mailbox, served by the peer's
    /// trusted stack from its trusted HBM): the steps `id` can take on what
    /// `peer`'s HBM holds now (`hbm` is `id`'s own). The harness offers
    /// every peer that is not silent (a crashed card answers no READ); a
    /// design that drops a stopped replica's HBM reads nothing there.
    /// The default reads nothing.
    #[allow(clippy::too_many_arguments)]
    fn remote_steps(
        &self,
        _cfg: &Config,
        _id: usize,
        _rep: &Self::Replica,
        _hbm: &Self::Hbm,
        _peer: usize,
        _peer_hbm: &Self::Hbm,
        _out: &mut Vec<Self::Step>,
    ) {
    }
    /// Whether an honest replica's write `w` is kept in the Byzantine
    /// replica's HBM, which nobody reads but a remote read (the default:
    /// nothing is kept there). It lands at once: the Byzantine replica's
    /// stack and HBM are trusted and take every write.
    fn kept_at_byzantine(&self, _w: &Self::Write) -> bool {
        false
    }
    /// What the Byzantine replica `byz` may write into `dst`'s HBM now.
    /// `reps` and `hbms` are the whole cluster's (the Byzantine replica's
    /// own entries are not kept): what it has seen, so it may copy any signed
    /// record that exists (signatures are unforgeable, not secret).
    fn forgeries(
        &self,
        cfg: &Config,
        byz: usize,
        dst: usize,
        reps: &[Self::Replica],
        hbms: &[Self::Hbm],
        out: &mut Vec<Self::Write>,
    );
    /// Rounds (docs/recovery.md R13): the replica's next step follows a
    /// round, so it takes no step and no timeout while any write it sent is
    /// still in flight (a write to a silent or Byzantine replica's HBM lands
    /// at once: that memory is trusted and takes writes). `current` has no
    /// rounds.
    fn in_round(&self, _rep: &Self::Replica) -> bool {
        false
    }
    /// Replica `id` fell silent: it never steps again and nobody reads its
    /// HBM, so a design may forget what only its own steps read (keeping
    /// what the properties, the harness and the Byzantine replica read: its
    /// decisions and signatures). The default keeps everything.
    fn silenced(&self, _cfg: &Config, _id: usize, _rep: &mut Self::Replica) {}
    /// Replica `id` restarts (`Config::restarts`): the state it restarts
    /// with, keeping only what the properties read (its decisions so far,
    /// as [`Design::past_decisions`]). The harness clears its mailbox and
    /// settles the network ([`Design::resent`]). The default: no design
    /// restarts.
    fn restart(&self, _cfg: &Config, _id: usize, _rep: &Self::Replica) -> Self::Replica {
        panic!("{} has no restart", self.name())
    }
    /// It has restarted and not yet rejoined (it counts among the f faults).
    fn rejoining(&self, _rep: &Self::Replica) -> bool {
        false
    }
    /// Whether a replica in this state may restart (a stopped one has
    /// nothing left to rejoin for).
    fn may_restart(&self, _rep: &Self::Replica) -> bool {
        false
    }
    /// Whether a peer re-sends write `w`, in flight when the replica it is
    /// for restarted (or landed there before and still in flight to
    /// another peer), on the new queue pair: the record of a round in
    /// progress. Every other write in flight to the restarted replica is
    /// dropped with its old queue pair.
    fn resent(&self, _w: &Self::Write) -> bool {
        false
    }
    /// Decisions of its earlier lives (before restarts): agreement and
    /// validity cover them; integrity is per life.
    fn past_decisions<'a>(&self, _rep: &'a Self::Replica) -> &'a [(u8, Val)] {
        &[]
    }
    /// Slots it holds no decision for because it installed a checkpoint
    /// above them (the host fetches that state from a peer).
    fn skipped(&self, _rep: &Self::Replica) -> usize {
        0
    }
    /// The per-sender slot guard: may `src` write `w`?
    fn allowed(&self, cfg: &Config, src: usize, w: &Self::Write) -> bool;
    /// The replica's decisions (k, m), in order.
    fn decisions<'a>(&self, rep: &'a Self::Replica) -> &'a [(u8, Val)];
    /// Its current view.
    fn view(&self, rep: &Self::Replica) -> u8;
    /// It stopped at the view bound.
    fn capped(&self, rep: &Self::Replica) -> bool;
    /// The design claims liveness at the run's last slot: a replica that
    /// decided the S slots leaves what a laggard at slot S needs before it
    /// stops (`recovery`'s R28), so "a replica finished and stopped" does
    /// not excuse a stall (and `recovery:no_close` shows one). The
    /// default: it stops at once, and an unbounded run would go on to slot
    /// S + 1 (`current`).
    fn last_slot_live(&self) -> bool {
        false
    }
    /// A line for a trace: what the step read and did (`rep`, `hbm` before it).
    fn describe_step(
        &self,
        cfg: &Config,
        id: usize,
        rep: &Self::Replica,
        hbm: &Self::Hbm,
        step: &Self::Step,
    ) -> String;
    /// Whether a step is a timeout.
    fn is_timeout(&self, step: &Self::Step) -> bool;
    /// A write, with its words and address from the layout.
    fn describe_write(&self, cfg: &Config, src: usize, w: &Self::Write) -> String;
    /// A replica's state in a line.
    fn describe_replica(&self, cfg: &Config, rep: &Self::Replica) -> String;
}

/// A write in flight on queue pair src → dst.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Msg<W> {
    pub src: u8,
    pub dst: u8,
    /// Held back by the network: it does not count against quiescence.
    pub held: bool,
    pub w: W,
}

/// The whole cluster.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State<D: Design> {
    pub reps: Vec<D::Replica>,
    pub hbm: Vec<D::Hbm>,
    /// In send order; a pair's oldest is the first with that (src, dst).
    pub net: Vec<Msg<D::Write>>,
    /// Bit r: replica r fell silent.
    pub silent: u8,
    /// Early timeouts so far.
    pub early: u8,
    /// Writes held back so far.
    pub held: u8,
    /// The highest live honest view at the last asynchronous event (an early
    /// timeout, or a held write landing): GST is no earlier.
    pub gst: u8,
    /// Writes the Byzantine replica made.
    pub forged: u8,
    /// Restarts so far.
    pub restarted: u8,
}

/// What happens next.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action<D: Design> {
    /// Replica r's step; then whether r falls silent right after it, and the
    /// peers (a bit mask) for which the network holds back its writes.
    Step(usize, D::Step, bool, u8),
    /// The held write at the head of queue pair src → dst lands (and those
    /// queued behind it).
    Land(usize, usize),
    /// The Byzantine replica writes into dst's HBM, then dst steps (as in
    /// `Step`).
    Forge(usize, D::Write, D::Step, bool, u8),
    /// Replica r is silent from the start.
    Silence(usize),
    /// Replica r restarts (`Config::restarts`).
    Restart(usize),
}

/// The cluster around design `D` with bounds `cfg`, as a stateright model.
#[derive(Clone, Debug)]
pub struct UbftModel<D: Design> {
    pub design: D,
    pub cfg: Config,
    /// Check only this property (to find a short counterexample for it).
    pub only: Option<&'static str>,
    /// Explore a persistent set of each state's actions instead of all of
    /// them (see [`UbftModel::stubborn`] and docs/model.md, "Partial-order
    /// reduction"). Off by default.
    pub por: bool,
    /// The run's stop switch and its count of checked states, shared with
    /// the checker's threads and the thread that watches memory
    /// ([`crate::check::run`]).
    pub budget: Arc<Budget>,
}

/// A run's stop switch and counter. Once `stop` is set, the model generates
/// no new state (`within_boundary` is false), offers no action, and its
/// properties hold trivially, so the checker's threads drain their queues
/// at once: what was checked before the stop is what the report counts.
#[derive(Debug, Default)]
pub struct Budget {
    /// Set to stop the run (the memory cap).
    pub stop: AtomicBool,
    /// States whose four properties were checked and whose successors were
    /// generated (before the stop).
    pub checked: AtomicUsize,
}

impl Budget {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    pub fn checked(&self) -> usize {
        self.checked.load(Ordering::Relaxed)
    }
}

/// The property names, in report order.
pub const PROPERTIES: [&str; 4] = ["agreement", "validity", "integrity", "live_with_f_silent"];

impl<D: Design> UbftModel<D> {
    pub fn new(design: D, cfg: Config) -> Self {
        UbftModel {
            design,
            cfg,
            only: None,
            por: false,
            budget: Arc::default(),
        }
    }

    /// Replica r takes steps: honest, not silent.
    pub fn live(&self, s: &State<D>, r: usize) -> bool {
        self.cfg.honest(r) && s.silent & (1 << r) == 0
    }

    /// Replica r can take a step or a timeout now: live, and not waiting for
    /// a round of its own to land (R13).
    pub fn acts(&self, s: &State<D>, r: usize) -> bool {
        self.live(s, r)
            && !(self.design.in_round(&s.reps[r]) && s.net.iter().any(|m| m.src as usize == r))
    }

    /// Replica r's steps: on its own HBM, and on what it reads remotely in
    /// each peer's that is not silent ([`Design::remote_steps`]).
    fn steps_of(&self, s: &State<D>, r: usize, out: &mut Vec<D::Step>) {
        self.design.steps(&self.cfg, r, &s.reps[r], &s.hbm[r], out);
        for p in 0..self.cfg.n {
            if p != r && s.silent & (1 << p) == 0 {
                self.design
                    .remote_steps(&self.cfg, r, &s.reps[r], &s.hbm[r], p, &s.hbm[p], out);
            }
        }
    }

    /// Landings, steps, then the timeouts the synchrony rule allows.
    fn progress_actions(&self, s: &State<D>, out: &mut Vec<Action<D>>) {
        let n = self.cfg.n;
        let mut seen = 0u32;
        for m in &s.net {
            let bit = 1u32 << (m.src as usize * n + m.dst as usize);
            if seen & bit == 0 {
                seen |= bit;
                out.push(Action::Land(m.src as usize, m.dst as usize));
            }
        }
        let may_silence = self.faults(s) < self.cfg.silent;
        let holds = self.cfg.delays - s.held;
        let mut steps = Vec::new();
        let mut busy = false;
        for r in 0..n {
            if self.acts(s, r) {
                self.steps_of(s, r, &mut steps);
                busy |= !steps.is_empty();
                self.push_steps(s, r, &mut steps, may_silence, holds, out);
            }
        }
        if !busy || s.early < self.cfg.early_timeouts {
            for r in 0..n {
                if self.acts(s, r) {
                    self.design
                        .timeouts(&self.cfg, r, &s.reps[r], &s.hbm[r], &mut steps);
                    self.push_steps(s, r, &mut steps, may_silence, holds, out);
                }
            }
        }
    }

    fn push_steps(
        &self,
        s: &State<D>,
        r: usize,
        steps: &mut Vec<D::Step>,
        may_silence: bool,
        holds: u8,
        out: &mut Vec<Action<D>>,
    ) {
        // Peers a write can be held back for: live, not already blocked.
        let mut peers = 0u8;
        for d in 0..self.cfg.n {
            if d != r
                && self.live(s, d)
                && !s
                    .net
                    .iter()
                    .any(|m| m.src as usize == r && m.dst as usize == d)
            {
                peers |= 1 << d;
            }
        }
        for st in steps.drain(..) {
            for silent in [false, true] {
                if silent && !may_silence {
                    continue;
                }
                // Every subset of those peers within the budget.
                let mut mask = peers;
                loop {
                    if mask.count_ones() as u8 <= holds {
                        out.push(Action::Step(r, st.clone(), silent, mask));
                    }
                    if mask == 0 {
                        break;
                    }
                    mask = (mask - 1) & peers;
                }
            }
        }
    }

    /// Faults now: silent replicas, and restarted ones not yet rejoined.
    pub fn faults(&self, s: &State<D>) -> usize {
        s.silent.count_ones() as usize
            + (0..self.cfg.n)
                .filter(|&r| self.live(s, r) && self.design.rejoining(&s.reps[r]))
                .count()
    }

    /// Replica r restarts: its state as the design restarts it, its mailbox
    /// cleared, its writes in flight dropped, and every write in flight to
    /// it dropped but the records of rounds in progress, which their
    /// writers re-send on the new queue pair (and land at once).
    fn restart(&self, t: &mut State<D>, r: usize) {
        t.reps[r] = self.design.restart(&self.cfg, r, &t.reps[r]);
        t.hbm[r] = self.design.init(&self.cfg, r).1;
        // Each writer's queues in flight are suffixes of its send order
        // (a broadcast goes to every peer in turn), so its longest queue
        // holds them all, in the order they were sent.
        let mut again: Vec<(u8, D::Write)> = vec![];
        for src in (0..self.cfg.n).filter(|&u| u != r) {
            let queue = |d: usize| {
                t.net
                    .iter()
                    .filter(move |m| m.src as usize == src && m.dst as usize == d)
            };
            if let Some(d) = (0..self.cfg.n).max_by_key(|&d| queue(d).count()) {
                for m in queue(d).filter(|m| self.design.resent(&m.w)) {
                    again.push((m.src, m.w.clone()));
                }
            }
        }
        t.net.retain(|m| m.src as usize != r && m.dst as usize != r);
        for (src, w) in again {
            self.design.land(
                &self.cfg,
                r,
                &mut t.reps[r],
                &mut t.hbm[r],
                src as usize,
                &w,
            );
        }
        t.restarted += 1;
    }

    /// A live replica can step (so a timeout now is an early one).
    pub fn busy(&self, s: &State<D>) -> bool {
        let mut steps = Vec::new();
        (0..self.cfg.n).any(|r| {
            self.acts(s, r) && {
                self.steps_of(s, r, &mut steps);
                !steps.is_empty()
            }
        })
    }

    fn top_view(&self, s: &State<D>) -> u8 {
        (0..self.cfg.n)
            .filter(|&r| self.live(s, r))
            .map(|r| self.design.view(&s.reps[r]))
            .max()
            .unwrap_or(0)
    }

    /// `s` with the Byzantine replica's write `w` in dst's HBM.
    fn forge(&self, s: &State<D>, dst: usize, w: &D::Write) -> State<D> {
        let mut t = s.clone();
        let b = self.cfg.byzantine.expect("a Byzantine replica");
        self.design
            .land(&self.cfg, dst, &mut t.reps[dst], &mut t.hbm[dst], b, w);
        t.forged += 1;
        t
    }

    fn silence(&self, t: &mut State<D>, r: usize) {
        t.silent |= 1 << r;
        // Its mailbox still takes writes, but nobody reads it again.
        t.hbm[r] = self.design.init(&self.cfg, r).1;
        self.design.silenced(&self.cfg, r, &mut t.reps[r]);
        t.net.retain(|m| m.dst as usize != r);
    }

    /// No action at all is enabled.
    pub fn terminal(&self, s: &State<D>) -> bool {
        if !s.net.is_empty() {
            return false;
        }
        let mut steps = Vec::new();
        for r in 0..self.cfg.n {
            if self.acts(s, r) {
                self.steps_of(s, r, &mut steps);
                self.design
                    .timeouts(&self.cfg, r, &s.reps[r], &s.hbm[r], &mut steps);
                if !steps.is_empty() {
                    return false;
                }
            }
        }
        let mut a = Vec::new();
        self.all_actions(s, &mut a);
        a.is_empty()
    }

    /// The honest replicas (silent ones included: they were honest).
    fn honest(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.cfg.n).filter(|&r| self.cfg.honest(r))
    }

    pub fn agreement(&self, s: &State<D>) -> bool {
        let mut by_k = [0 as Val; 256];
        for r in self.honest() {
            let rep = &s.reps[r];
            let all = self.design.past_decisions(rep).iter();
            for &(k, m) in all.chain(self.design.decisions(rep)) {
                let e = &mut by_k[k as usize];
                if *e == 0 {
                    *e = m;
                } else if *e != m {
                    return false;
                }
            }
        }
        true
    }

    pub fn validity(&self, s: &State<D>) -> bool {
        self.honest().all(|r| {
            let rep = &s.reps[r];
            self.design
                .past_decisions(rep)
                .iter()
                .chain(self.design.decisions(rep))
                .all(|&(_, m)| (m >= 1 && m <= self.cfg.values) || m == NOOP)
        })
    }

    pub fn integrity(&self, s: &State<D>) -> bool {
        self.honest().all(|r| {
            let d = self.design.decisions(&s.reps[r]);
            d.iter()
                .enumerate()
                .all(|(i, a)| d[..i].iter().all(|b| b.0 != a.0))
        })
    }

    /// Every live honest replica decided every slot (a replica that
    /// installed a checkpoint: every slot above it).
    pub fn all_decided(&self, s: &State<D>) -> bool {
        (0..self.cfg.n)
            .filter(|&r| self.live(s, r))
            .all(|r| self.finished(s, r))
    }

    fn finished(&self, s: &State<D>, r: usize) -> bool {
        let rep = &s.reps[r];
        self.design.decisions(rep).len() + self.design.skipped(rep) >= self.cfg.slots
    }

    /// Why a terminal state with a slot undecided does not count against
    /// liveness, if it does not: a bound cut the run.
    pub fn excuse(&self, s: &State<D>) -> Option<&'static str> {
        let live: Vec<usize> = (0..self.cfg.n).filter(|&r| self.live(s, r)).collect();
        if !self.design.last_slot_live() && live.iter().any(|&r| self.finished(s, r)) {
            // A replica that decided S slots stops, so a laggard may wait for
            // it where an unbounded run would go on to slot S + 1.
            return Some("a replica finished the S slots and stopped");
        }
        if live.iter().any(|&r| self.design.rejoining(&s.reps[r]))
            && live
                .iter()
                .all(|&r| self.design.rejoining(&s.reps[r]) || self.finished(s, r))
        {
            // The checkpoint a restarted replica installs is one made after
            // its restart; a run with no last slot makes one within C
            // slots, this one has none left to decide.
            return Some("a replica restarted after the run's last checkpoint");
        }
        if live.iter().any(|&r| self.design.capped(&s.reps[r]))
            && self.views_since_gst(s) < self.cfg.live_views
        {
            return Some("the view bound cut the run before L synchronous views");
        }
        None
    }

    /// Views the live honest replicas advanced after the last asynchronous
    /// event (their highest).
    pub fn views_since_gst(&self, s: &State<D>) -> u8 {
        self.top_view(s).saturating_sub(s.gst)
    }

    pub fn live_with_f_silent(&self, s: &State<D>) -> bool {
        self.all_decided(s) || !self.terminal(s) || self.excuse(s).is_some()
    }

    /// A line for an action taken from `s`.
    pub fn describe(&self, s: &State<D>, a: &Action<D>) -> String {
        match a {
            Action::Step(r, st, silent, hold) => {
                let what = if !self.design.is_timeout(st) {
                    "step"
                } else if self.busy(s) {
                    "timeout (early)"
                } else {
                    "timeout"
                };
                let mut line = format!(
                    "r{r} {what}: {}",
                    self.design
                        .describe_step(&self.cfg, *r, &s.reps[*r], &s.hbm[*r], st)
                );
                for d in 0..self.cfg.n {
                    if hold & (1 << d) != 0 {
                        line += &format!("; the network holds back its write to r{d}");
                    }
                }
                if *silent {
                    line += &format!("; then r{r} falls silent (its mailbox still takes writes)");
                }
                line
            }
            Action::Land(src, dst) => {
                let m = s
                    .net
                    .iter()
                    .find(|m| m.src as usize == *src && m.dst as usize == *dst)
                    .expect("a landing has a write in flight");
                let behind = s
                    .net
                    .iter()
                    .filter(|m| m.src as usize == *src && m.dst as usize == *dst)
                    .count()
                    - 1;
                format!(
                    "land r{src}→r{dst} (held back until now): {}{}",
                    self.design.describe_write(&self.cfg, *src, &m.w),
                    if behind > 0 {
                        format!(", and the {behind} write(s) queued behind it")
                    } else {
                        String::new()
                    }
                )
            }
            Action::Forge(dst, w, st, silent, hold) => {
                let b = self.cfg.byzantine.unwrap();
                let t = self.forge(s, *dst, w);
                format!(
                    "forge r{b}→r{dst} (Byzantine): {}; then {}",
                    self.design.describe_write(&self.cfg, b, w),
                    self.describe(&t, &Action::Step(*dst, st.clone(), *silent, *hold))
                )
            }
            Action::Silence(r) => {
                format!("r{r} is silent from the start (its mailbox still takes writes)")
            }
            Action::Restart(r) => format!(
                "r{r} restarts: its controller state is lost, its mailbox cleared, its writes in flight dropped; its peers re-send their rounds in progress to it"
            ),
        }
    }

    /// The state in a few lines (for the end of a trace).
    pub fn describe_state(&self, s: &State<D>) -> Vec<String> {
        let mut out = vec![];
        for r in 0..self.cfg.n {
            let who = if !self.cfg.honest(r) {
                " (Byzantine)"
            } else if s.silent & (1 << r) != 0 {
                " (silent)"
            } else {
                ""
            };
            let dec: Vec<String> = self
                .design
                .decisions(&s.reps[r])
                .iter()
                .map(|&(k, m)| format!("k{k}={}", val_name(m)))
                .collect();
            out.push(format!(
                "r{r}{who}: {}; decided [{}]",
                self.design.describe_replica(&self.cfg, &s.reps[r]),
                dec.join(", ")
            ));
        }
        out.push(format!(
            "in flight: {}; early timeouts {}, held writes {}; last asynchronous event at view {}",
            s.net.len(),
            s.early,
            s.held,
            s.gst
        ));
        out
    }
}

impl<D: Design> Model for UbftModel<D> {
    type State = State<D>;
    type Action = Action<D>;

    fn init_states(&self) -> Vec<State<D>> {
        let (reps, hbm) = (0..self.cfg.n)
            .map(|r| self.design.init(&self.cfg, r))
            .unzip();
        vec![State {
            reps,
            hbm,
            net: vec![],
            silent: 0,
            early: 0,
            held: 0,
            gst: 0,
            forged: 0,
            restarted: 0,
        }]
    }

    fn actions(&self, s: &State<D>, out: &mut Vec<Action<D>>) {
        if self.budget.stopped() {
            return;
        }
        self.budget.checked.fetch_add(1, Ordering::Relaxed);
        if self.por {
            out.extend(self.reduced_actions(s));
        } else {
            self.all_actions(s, out);
        }
    }

    fn next_state(&self, s: &State<D>, a: Action<D>) -> Option<State<D>> {
        self.step(s, a)
    }

    fn within_boundary(&self, _: &State<D>) -> bool {
        !self.budget.stopped()
    }

    fn properties(&self) -> Vec<Property<Self>> {
        // After the stop a state is neither checked nor expanded (a state
        // with no actions offered is no terminal state).
        let all = vec![
            Property::always("agreement", |m: &Self, s: &State<D>| {
                m.budget.stopped() || m.agreement(s)
            }),
            Property::always("validity", |m: &Self, s: &State<D>| {
                m.budget.stopped() || m.validity(s)
            }),
            Property::always("integrity", |m: &Self, s: &State<D>| {
                m.budget.stopped() || m.integrity(s)
            }),
            Property::always("live_with_f_silent", |m: &Self, s: &State<D>| {
                m.budget.stopped() || m.live_with_f_silent(s)
            }),
        ];
        match self.only {
            Some(name) => all.into_iter().filter(|p| p.name == name).collect(),
            None => all,
        }
    }
}

impl<D: Design> UbftModel<D> {
    /// Every action the model offers in `s` (some may turn out to change
    /// nothing: `step` then returns `None`).
    pub fn all_actions(&self, s: &State<D>, out: &mut Vec<Action<D>>) {
        self.progress_actions(s, out);
        if let Some(b) = self.cfg.byzantine {
            if s.forged < self.cfg.byz_writes {
                let mut ws = Vec::new();
                let mut after = Vec::new();
                for dst in 0..self.cfg.n {
                    if dst != b && self.live(s, dst) {
                        self.design
                            .forgeries(&self.cfg, b, dst, &s.reps, &s.hbm, &mut ws);
                        for w in ws.drain(..) {
                            debug_assert!(self.design.allowed(&self.cfg, b, &w));
                            let t = self.forge(s, dst, &w);
                            self.progress_actions(&t, &mut after);
                            for a in after.drain(..) {
                                if let Action::Step(r, st, silent, hold) = a {
                                    if r == dst {
                                        out.push(Action::Forge(dst, w.clone(), st, silent, hold));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // A restart, at any point, while the faults stay within f.
        if s.restarted < self.cfg.restarts && self.faults(s) < self.cfg.silent {
            for r in 0..self.cfg.n {
                if self.live(s, r)
                    && !self.design.rejoining(&s.reps[r])
                    && self.design.may_restart(&s.reps[r])
                {
                    out.push(Action::Restart(r));
                }
            }
        }
        // Silent from the start (later points come with the steps).
        if s.net.is_empty() && s.early == 0 && s.silent == 0 && s == &self.init_states()[0] {
            for r in 0..self.cfg.n {
                if self.live(s, r) && self.cfg.silent > 0 {
                    out.push(Action::Silence(r));
                }
            }
        }
    }

    /// The state after action `a` (`None`: it changes nothing).
    pub fn step(&self, s: &State<D>, a: Action<D>) -> Option<State<D>> {
        let mut t = s.clone();
        match a {
            Action::Step(r, st, silent, hold) => {
                if self.design.is_timeout(&st) && self.busy(s) {
                    t.early += 1;
                    t.gst = self.top_view(s);
                }
                let outs = self
                    .design
                    .apply(&self.cfg, r, &mut t.reps[r], &mut t.hbm[r], &st);
                let mut sent = false;
                for o in outs {
                    let (w, all) = match o {
                        Out::All(w) => (w, true),
                        Out::Local(w) => (w, false),
                    };
                    // The guard checks what arrives over the network; a write
                    // into its own HBM only (`Out::Local`) does not pass it.
                    debug_assert!(
                        !all || self.design.allowed(&self.cfg, r, &w),
                        "r{r} writes outside its entries: {w:?}"
                    );
                    self.design
                        .land(&self.cfg, r, &mut t.reps[r], &mut t.hbm[r], r, &w);
                    if !all {
                        continue;
                    }
                    sent = true;
                    for dst in 0..self.cfg.n {
                        // Nobody reads a silent replica's HBM, nor a
                        // Byzantine one's but a remote read, for the
                        // records the design keeps there.
                        if dst != r
                            && self.cfg.byzantine == Some(dst)
                            && self.design.kept_at_byzantine(&w)
                        {
                            self.design.land(
                                &self.cfg,
                                dst,
                                &mut t.reps[dst],
                                &mut t.hbm[dst],
                                r,
                                &w,
                            );
                        }
                        if dst == r || !self.live(&t, dst) {
                            continue;
                        }
                        let blocked = t
                            .net
                            .iter()
                            .any(|m| m.src as usize == r && m.dst as usize == dst);
                        if hold & (1 << dst) != 0 || blocked {
                            let held = hold & (1 << dst) != 0 && !blocked;
                            t.held += held as u8;
                            t.net.push(Msg {
                                src: r as u8,
                                dst: dst as u8,
                                held,
                                w: w.clone(),
                            });
                        } else {
                            self.design.land(
                                &self.cfg,
                                dst,
                                &mut t.reps[dst],
                                &mut t.hbm[dst],
                                r,
                                &w,
                            );
                        }
                    }
                }
                if hold != 0 && !sent {
                    return None; // nothing to hold back: the same as hold = 0
                }
                // One order for the same queues: by queue pair, each pair's
                // writes in the order sent (a stable sort).
                t.net.sort_by_key(|m| (m.src, m.dst));
                if silent {
                    self.silence(&mut t, r);
                }
            }
            Action::Land(src, dst) => {
                // The held head, and every write queued behind it.
                t.gst = self.top_view(s);
                let mut rest = vec![];
                for m in std::mem::take(&mut t.net) {
                    if m.src as usize == src && m.dst as usize == dst {
                        self.design.land(
                            &self.cfg,
                            dst,
                            &mut t.reps[dst],
                            &mut t.hbm[dst],
                            src,
                            &m.w,
                        );
                    } else {
                        rest.push(m);
                    }
                }
                t.net = rest;
            }
            Action::Forge(dst, w, st, silent, hold) => {
                let t = self.forge(s, dst, &w);
                return self.step(&t, Action::Step(dst, st, silent, hold));
            }
            Action::Silence(r) => self.silence(&mut t, r),
            Action::Restart(r) => self.restart(&mut t, r),
        }
        Some(t)
    }

    /// The actions `step` takes somewhere, with the states they lead to.
    pub fn enabled(&self, s: &State<D>) -> Vec<(Action<D>, State<D>)> {
        let mut acts = Vec::new();
        self.all_actions(s, &mut acts);
        acts.into_iter()
            .filter_map(|a| self.step(s, a.clone()).map(|t| (a, t)))
            .collect()
    }

    /// The actions the reduced search explores in `s`: the enabled actions
    /// of one or two replicas (or queue pairs) when every action of those
    /// is a stubborn set ([`UbftModel::stubborn`]), else every action.
    pub fn reduced_actions(&self, s: &State<D>) -> Vec<Action<D>> {
        let en = self.enabled(s);
        let mut groups: Vec<Group> = vec![];
        for (a, _) in &en {
            let g = group(a);
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        if groups.len() > 1 {
            // Candidate sets of groups: one group, then two, each by the
            // enabled actions they hold, fewest first.
            let mut cands: Vec<(usize, Vec<Group>)> = vec![];
            for mask in 1u32..(1 << groups.len()) - 1 {
                if mask.count_ones() > 2 {
                    continue;
                }
                let gs: Vec<Group> = (0..groups.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| groups[i])
                    .collect();
                let size = en.iter().filter(|(a, _)| gs.contains(&group(a))).count();
                cands.push((size, gs));
            }
            cands.sort_by_key(|(size, gs)| (gs.len(), *size));
            let mut cache = Cache::new();
            cache.insert(fingerprint(s), Rc::new(en.clone()));
            for (_, gs) in cands {
                if self.stubborn(s, &gs, &mut cache) {
                    return en
                        .into_iter()
                        .filter(|(a, _)| gs.contains(&group(a)))
                        .map(|(a, _)| a)
                        .collect();
                }
            }
        }
        en.into_iter().map(|(a, _)| a).collect()
    }

    fn enabled_cached(&self, u: &State<D>, cache: &mut Cache<D>) -> Rc<Enabled<D>> {
        cache
            .entry(fingerprint(u))
            .or_insert_with(|| Rc::new(self.enabled(u)))
            .clone()
    }

    /// Whether T, every action of the groups `gs` (those replicas' or
    /// queue pairs', enabled or not), is a stubborn set of `s` for terminal
    /// states (Valmari's D1 and D2), checked exhaustively over every state
    /// `u` reachable from `s` by actions not in T (at most [`POR_BUDGET`]
    /// of them, else the answer is no):
    ///
    /// - D1: for every action `c` not in T enabled in `u`, and every `a` in
    ///   T enabled after `c`: `a` is enabled in `u`, `c` after `a`, and both
    ///   orders reach the same state. By induction, an action of T that
    ///   follows a sequence of actions not in T can be moved ahead of them,
    ///   to the same state.
    /// - D2: some action of T enabled in `s` (a key action) is enabled in
    ///   every such `u`, so no terminal state is reached from `s` without an
    ///   action of T.
    ///
    /// Then the search that takes only T's enabled actions in `s` still
    /// reaches every terminal state reachable from `s` (docs/model.md,
    /// "Partial-order reduction").
    pub fn stubborn(&self, s: &State<D>, gs: &[Group], cache: &mut Cache<D>) -> bool {
        use std::collections::HashSet;
        let in_t = |a: &Action<D>| gs.contains(&group(a));
        let en = self.enabled_cached(s, cache);
        // Key candidates: the actions of T enabled in every u so far.
        let mut key: Vec<Action<D>> = en
            .iter()
            .filter(|(a, _)| in_t(a))
            .map(|(a, _)| a.clone())
            .collect();
        let mut seen: HashSet<u64> = HashSet::from([fingerprint(s)]);
        let mut queue = vec![s.clone()];
        while let Some(u) = queue.pop() {
            let en = self.enabled_cached(&u, cache);
            key.retain(|k| en.iter().any(|(b, _)| b == k));
            if key.is_empty() {
                return false; // D2
            }
            for (c, uc) in en.iter().filter(|(c, _)| !in_t(c)) {
                let en_c = self.enabled_cached(uc, cache);
                for (a, uca) in en_c.iter().filter(|(a, _)| in_t(a)) {
                    // D1: a after c is a before c.
                    let Some((_, ua)) = en.iter().find(|(b, _)| b == a) else {
                        return false;
                    };
                    let mut after_a = Vec::new();
                    self.all_actions(ua, &mut after_a);
                    if !after_a.contains(c) {
                        return false;
                    }
                    match self.step(ua, c.clone()) {
                        Some(uac) if &uac == uca => {}
                        _ => return false,
                    }
                }
                if seen.insert(fingerprint(uc)) {
                    if seen.len() > POR_BUDGET {
                        return false;
                    }
                    queue.push(uc.clone());
                }
            }
        }
        true
    }
}

/// A state's enabled actions with their successors.
pub type Enabled<D> = Vec<(Action<D>, State<D>)>;
/// Enabled actions by state fingerprint, while one state's candidate sets
/// are checked.
pub type Cache<D> = std::collections::HashMap<u64, Rc<Enabled<D>>>;

/// The most states [`UbftModel::stubborn`] visits before it gives up on a
/// candidate set (the search then takes every action of that state).
pub const POR_BUDGET: usize = 32;

/// Whose action it is: a replica's (its steps and timeouts, the Byzantine
/// writes that precede its steps, its silence), or a queue pair's landing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Replica(usize),
    Pair(usize, usize),
}

pub fn group<D: Design>(a: &Action<D>) -> Group {
    match a {
        Action::Step(r, ..) | Action::Forge(r, ..) | Action::Silence(r) | Action::Restart(r) => {
            Group::Replica(*r)
        }
        Action::Land(src, dst) => Group::Pair(*src, *dst),
    }
}

fn fingerprint<T: Hash>(t: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}
