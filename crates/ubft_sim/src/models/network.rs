//! Network: the RoCE stacks and links of a cluster of n replicas.
//!
//! What it models: each replica's fpga-network-stack RoCE v2 core (its send
//! queue `sq_*` and completion queue `cq_*`, see `rhdl_ubft::io::roce`) and the
//! links between the cards. A replica's command on queue pair `q` goes to
//! replica `q - qpn_base`; a stack has no connection to its own card, so a
//! queue pair naming no replica, or the sender itself, is refused. A
//! single-packet RDMA WRITE (`RC_RDMA_WRITE_ONLY`, card memory, 4 bytes to
//! the layout's longest record in whole words, 1 KiB at the default build,
//! `laddr == raddr`, inside the mailbox buffer) and an RDMA READ of one
//! beat (`RC_RDMA_READ_REQUEST`, card memory, the peer's beat inside its
//! mailbox buffer into this replica's record of remote_rows for that
//! peer: the remote read, docs/remote_read.md) are taken; any other
//! command is counted as [`Malformed`] and dropped. A record of more than one beat
//! is one packet on a path MTU of 1 KiB or more; a stack that split it into
//! packets would hand the guard several memory-write commands, which this
//! model does not do (docs/broadcast.md, Rounds: the PMTU is not checked).
//!
//! Timing, in kernel cycles:
//!
//! - The stack pulls a WRITE's payload, WRITEs in command order. A
//!   command taken (`sq_tvalid && sq_tready`) with `host` = 0 reads the
//!   sender's HBM the cycle it is taken, or, behind a staged WRITE still
//!   waiting, the cycle that one is sent. A staged one (`host` = 1, one
//!   beat: docs/stage.md) asks the sender's kernel for its payload: its
//!   memory-read command is presented on `s_axis_tx_cmd` from the next
//!   cycle, and it is sent the cycle `m_axis_tx_data` hands over the beat
//!   with TLAST. Sent at cycle `c`, a WRITE
//!   lands in the receiver's HBM at `max(c + L + extra, previous landing on
//!   the same queue pair)`: in order per queue pair. `extra` is the sum of the
//!   link delays ([`Network::add_delay`]) whose window holds `c` (and, for a
//!   delay of some records, [`Network::add_delay_to`], whose words hold the
//!   write's first word). A delayed write delays the later ones on its queue
//!   pair to its landing.
//! - A command sent with `last = 1` (the stack acknowledges only those) gets a
//!   completion (`ssn` = the command's number on its queue pair from 0,
//!   `cmplt` = 1) that becomes valid on the sender's `cq` L cycles (the
//!   ack's way back) after the receiver acknowledges it, and is held until
//!   `cq_tready`. Through a kernel's guard (`Delivery::Kernel`) the receiver
//!   acknowledges an honest sender's write when the kernel's status for it
//!   is taken (`m_axis_rx_sts`: refused, or in HBM; docs/roce.md, "Write
//!   status"); otherwise at the landing, when the write is in HBM (a faulty
//!   sender's stack completes its commands as usual). Completions are
//!   presented in the order they become valid.
//!
//! - A READ accepted at cycle `c` reaches the peer's stack at `max(c + L,
//!   previous landing on the queue pair)` (no link delay of its own: a
//!   delay holds it behind the writes it delays); that stack reads its HBM
//!   then (the peer's kernel takes no part) and the response lands at the
//!   reader H + L cycles later, in order on the peer's queue pair to the
//!   reader, as a write marked `WR_RD` (`WrCommand::read_response`). It
//!   gets no completion (the kernel sends it with `last` = 0). An
//!   adversary does not see READs or their responses: the stack and HBM
//!   are trusted.
//!
//! Delivery ([`Delivery`]): by default a landing write is handed, as a real
//! network does, to the receiver's RoCE stack, which presents it to the
//! kernel as fpga-network-stack does: a memory-write command on
//! `s_axis_rx_cmd` (`WrCommand`: the address, the length and the queue pair
//! it arrived on, `qpn_base + src`) and its payload on `s_axis_rx_data`
//! (`wr_data_beats`). The stack keeps one queue of [`RX_QP_DEPTH`] writes per
//! sending queue pair and presents them round robin, one write at a time
//! (docs/roce.md, "Receive queues"); a write that finds its queue full is
//! dropped and never acknowledged ([`NetStats::rx_dropped`]). The kernel's
//! guard decides; what it accepts reaches HBM through `m_axi_rx` (the HBM
//! model's second write port). The network does not filter. Its old rule,
//! [`Network::guard`], stays as a checker: the guard's decision, seen on the
//! ports (an AW on `m_axi_rx` between taking the command and being ready
//! for the next one means accepted), must agree with it write by write, and
//! every disagreement is counted ([`NetStats::disagreements`]); the rule is
//! the guard's reference, so there is no documented difference.
//! `Delivery::Model` is the old behaviour (the rule filters and
//! lands directly; the receive ports stay idle), which the network's unit
//! tests and `examples/delivery.rs` use; `Delivery::Bypass` (tests only) lands every write
//! unchecked, as a card without a guard would.
//!
//! The slot guard (the trust model): a replica writes only its own vote
//! entries and records in a peer's mailbox. The rule is the reference's,
//! `rhdl_ubft::guard::check` on the kernel's layout (docs/guard.md): every
//! word of a write must be owned by the sender (`Mailbox::owner`), except in
//! prepare (v at word 2), prep_sig (v at word 1) and new_view (v + 1 at
//! word 0), the view's leader's records: a write there must lie in one
//! record and carry its view word, with `view mod n == src`. Anything else
//! (padding, gaps, outside the mailboxes) is refused whole and counted per
//! sender.
//!
//! Structure: one [`Stack`] per replica holds everything of that replica's
//! (its queue pairs' numbering and landings, its adversary, its completion
//! queue, the writes on their way to it, its receive path, its counters) and
//! touches only its own replica's HBM; the [`Links`] are shared and fixed. A
//! command becomes a [`Flight`] in its sender's stack, which the cluster
//! hands to the receiver's stack before its landing; the receiver lands
//! flights by (landing, cycle sent, sender). So replicas can be stepped
//! apart, on several threads (`parallel.rs`), and [`Network::stats`] sums
//! the stacks' counters.
//!
//! Knobs: L, `qpn_base`, `network_ptr` and the layout ([`Network::new`]);
//! per-replica `sq_tready` patterns ([`Network::set_sq_ready`]); link delays;
//! and adversaries ([`Network::set_adversary`]), which sit behind a faulty
//! replica's stack: they see each outgoing write and return what is sent
//! instead, while the faulty kernel sees its commands complete as usual.

use std::collections::BTreeMap;

use rhdl_ubft::guard::{
    check_rd as check_reference, max_record_words, rule_for, Refusal as GuardRefusal, Rule,
};
use rhdl_ubft::io::roce::{
    wr_data_beats, CqCompletion, SqCommand, WrCommand, RC_RDMA_READ_REQUEST, RC_RDMA_WRITE_ONLY,
};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{defaults, BEAT_BYTES, WORD_BYTES};
use std::collections::VecDeque;

use crate::cluster::event::{Event, Trigger, Watches};
use crate::models::hbm::Hbm;
use crate::ports::{Beat, KernelIn, KernelOut, Ready};
use crate::timeline::WireLog;

/// How a landing write reaches the receiver's HBM (see the module header).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Through the receiving kernel's guard (`s_axis_rx_cmd`,
    /// `s_axis_rx_data`, then `m_axi_rx`); the model's rule checks it.
    #[default]
    Kernel,
    /// The model's rule filters and the write lands directly; the kernel's
    /// receive ports stay idle (the recorded testbenches).
    Model,
    /// Every write lands directly, unchecked: no guard at all. For tests
    /// that show what the guard prevents.
    Bypass,
}

/// One RDMA write as it crosses the wire: a word index from `network_ptr`
/// (the same on every card) and the words written there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub word: usize,
    pub data: Vec<u32>,
}

/// A Byzantine replica, as a transformation of its outgoing writes: it may
/// drop a write (return nothing), change it, or add writes of its own. What
/// it returns still passes the slot guard at the receiver.
pub trait Adversary: Send {
    fn transform(&mut self, src: usize, dst: usize, write: Write, cycle: u64) -> Vec<Write>;

    /// Writes it sends of its own in `cycle`, whether or not its kernel
    /// sends anything, each to a peer (`(dst, write)`); called once a cycle.
    /// They take the link as its kernel's writes do (in order per queue
    /// pair) and get no completion. None by default.
    fn emit(&mut self, _src: usize, _cycle: u64) -> Vec<(usize, Write)> {
        vec![]
    }

    /// Whether it only drops writes (a crash, in any layout), and never
    /// makes or changes one.
    fn only_drops(&self) -> bool {
        false
    }
}

/// Why a command never became a write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MalformedKind {
    /// The queue pair names no replica, or the sender itself.
    NoConnection { qpn: u64 },
    /// Not `RC_RDMA_WRITE_ONLY`.
    Opcode(u64),
    /// `host = 1` on a READ, or on a WRITE of more than one beat: the
    /// kernel stages one-beat payloads only (`rhdl_ubft::io::stage`), and
    /// this cluster has no host memory.
    HostMemory,
    /// Length not 4 bytes to the layout's longest record (1 KiB at the
    /// default build) in whole words.
    Length(u64),
    /// Local address not word-aligned.
    Unaligned(u64),
    /// Local and remote address differ (every card has the same layout).
    AddrMismatch { laddr: u64, raddr: u64 },
    /// Some byte lies outside `[network_ptr, network_ptr + buffer bytes)`.
    OutsideBuffer { laddr: u64, length: u64 },
}

/// A refused command, as logged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub src: usize,
    pub cycle: u64,
    pub kind: MalformedKind,
}

/// Why the slot guard refused a write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefuseReason {
    /// A word the sender does not own (`owner` is who does, if anyone).
    NotOwner { word: usize, owner: Option<usize> },
    /// A leader's region written by a replica that does not lead `view`.
    NotLeader { region: Region, view: u32 },
    /// A leader's region written across records or without its view word.
    Shape { region: Region },
    /// An empty write.
    Empty,
    /// Another refusal of the reference rule (`guard::check`: a write
    /// longer than the layout's longest record, or past its end).
    Other(GuardRefusal),
}

impl RefuseReason {
    /// The guard's reason for the same refusal.
    pub fn refusal(&self) -> GuardRefusal {
        match self {
            RefuseReason::NotOwner { .. } => GuardRefusal::NotOwner,
            RefuseReason::NotLeader { .. } => GuardRefusal::NotLeader,
            RefuseReason::Shape { .. } => GuardRefusal::Shape,
            RefuseReason::Empty => GuardRefusal::Length,
            RefuseReason::Other(r) => *r,
        }
    }
}

/// A write on which the kernel's guard and the model's rule disagreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    pub src: usize,
    pub dst: usize,
    /// The cycle the guard's decision was seen.
    pub cycle: u64,
    pub word: usize,
    pub words: usize,
    /// The guard wrote it to HBM.
    pub kernel_accepted: bool,
    /// The model's verdict (with the documented differences applied).
    pub model: Result<(), GuardRefusal>,
}

/// A write the slot guard refused, as logged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub src: usize,
    pub dst: usize,
    pub cycle: u64,
    pub word: usize,
    pub reason: RefuseReason,
}

/// The cycles of one line-rate RDMA WRITE of one beat on a 100 Gb/s link at
/// the kernel's 300 MHz (333 bits a cycle): 64 bytes of payload and 98 of
/// Ethernet, IP, UDP, BTH, RETH, ICRC, FCS, preamble and gap, 1,296 bits,
/// 3.9 cycles. The fastest a replica can send writes (`adversary::flood`).
pub const LINE_RATE_CYCLES: u64 = 4;

/// Writes a receiving stack holds per sending queue pair, the one it
/// presents to the guard included (docs/roce.md, "Receive queues"); a write
/// that finds its queue full is dropped unacknowledged
/// (`NetStats::rx_dropped`). An honest sender's write dropped fails the
/// run's guard check (`Cluster::report`), so every run and the soak check
/// that the depth covers the kernel's own traffic: one broadcast at a time,
/// one WRITE per peer each, and a round waits for every completion.
pub const RX_QP_DEPTH: usize = 16;

/// The network's counters; `[src][dst]` per queue pair, `[r]` per replica.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetStats {
    /// Commands accepted and well formed.
    pub accepted: Vec<Vec<u64>>,
    /// Writes landed (after adversaries and the slot guard).
    pub delivered: Vec<Vec<u64>>,
    /// Writes refused by the slot guard, per sender.
    pub refused: Vec<u64>,
    /// Writes refused by the slot guard, per receiver.
    pub refused_at: Vec<u64>,
    /// Commands refused as malformed, per sender.
    pub malformed: Vec<u64>,
    /// Completions taken by each replica's kernel.
    pub completions: Vec<u64>,
    pub malformed_log: Vec<Malformed>,
    pub refusal_log: Vec<Refusal>,
    /// `Delivery::Kernel`: writes whose guard decision agreed with the
    /// model's rule.
    pub agreements: u64,
    /// `Delivery::Kernel`: writes on which they disagreed (must stay 0).
    pub disagreements: u64,
    pub disagreement_log: Vec<Disagreement>,
    /// `Delivery::Kernel`: writes whose command the guard took but a reset
    /// abandoned before they reached AXI (neither written nor counted), and
    /// writes the stacks dropped at a mailbox clear
    /// ([`Network::discard_waiting_writes`]).
    pub abandoned: u64,
    /// `Delivery::Kernel`, per sender: the longest wait of one of its
    /// writes on a receive path, from the stack's hand-off to the guard
    /// taking its command.
    pub rx_wait_max: Vec<u64>,
    /// `Delivery::Kernel`, per sender: the most writes of its queued at
    /// once on one receive path's queue (at most [`RX_QP_DEPTH`]).
    pub rx_depth_max: Vec<u64>,
    /// `Delivery::Kernel`, per sender: its writes a receive path dropped,
    /// its queue full.
    pub rx_dropped: Vec<u64>,
    /// `Delivery::Kernel`: write statuses (`m_axis_rx_sts`) that named
    /// another queue pair than the write taken in that place, came with no
    /// write taken, or acknowledged an accepted write that HBM did not hold
    /// yet (must stay 0).
    pub status_errors: u64,
    /// Writes adversaries sent of their own (`Adversary::emit`), per sender.
    pub emitted: Vec<u64>,
    /// RDMA READs sent, per requester, and answered, per responder (the
    /// remote read, recovery.md section 11).
    pub reads: Vec<u64>,
    pub read_responses: Vec<u64>,
}

impl NetStats {
    /// Zeroed counters for `n` replicas.
    fn new(n: usize) -> Self {
        let grid = vec![vec![0; n]; n];
        NetStats {
            accepted: grid.clone(),
            delivered: grid,
            refused: vec![0; n],
            refused_at: vec![0; n],
            malformed: vec![0; n],
            completions: vec![0; n],
            rx_wait_max: vec![0; n],
            rx_depth_max: vec![0; n],
            rx_dropped: vec![0; n],
            emitted: vec![0; n],
            reads: vec![0; n],
            read_responses: vec![0; n],
            ..Default::default()
        }
    }

    /// Adds `o`'s counters and logs to these.
    fn add(&mut self, o: &NetStats) {
        let add = |a: &mut Vec<u64>, b: &Vec<u64>| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        for (a, b) in self.accepted.iter_mut().zip(&o.accepted) {
            add(a, b);
        }
        for (a, b) in self.delivered.iter_mut().zip(&o.delivered) {
            add(a, b);
        }
        add(&mut self.refused, &o.refused);
        add(&mut self.refused_at, &o.refused_at);
        add(&mut self.malformed, &o.malformed);
        add(&mut self.completions, &o.completions);
        self.malformed_log.extend_from_slice(&o.malformed_log);
        self.refusal_log.extend_from_slice(&o.refusal_log);
        self.agreements += o.agreements;
        self.disagreements += o.disagreements;
        self.disagreement_log.extend_from_slice(&o.disagreement_log);
        self.abandoned += o.abandoned;
        for (a, b) in self.rx_wait_max.iter_mut().zip(&o.rx_wait_max) {
            *a = (*a).max(*b);
        }
        for (a, b) in self.rx_depth_max.iter_mut().zip(&o.rx_depth_max) {
            *a = (*a).max(*b);
        }
        add(&mut self.rx_dropped, &o.rx_dropped);
        self.status_errors += o.status_errors;
        add(&mut self.emitted, &o.emitted);
        add(&mut self.reads, &o.reads);
        add(&mut self.read_responses, &o.read_responses);
    }
}

#[derive(Clone, Debug)]
struct Delay {
    src: usize,
    dst: usize,
    extra: u64,
    from: u64,
    to: u64,
    /// Only writes whose first word is here (mailbox words).
    words: Option<std::ops::Range<usize>>,
    /// Placed by an event: the window is `from..to` counted from the
    /// trigger's start, and empty until it fires.
    start: Option<Trigger>,
}

impl Delay {
    /// Whether a write of `src` sent at `cycle` on this link is delayed.
    fn covers(&self, cycle: u64) -> bool {
        match &self.start {
            None => (self.from..self.to).contains(&cycle),
            Some(t) => t.start().is_some_and(|s| {
                (s.saturating_add(self.from)..s.saturating_add(self.to)).contains(&cycle)
            }),
        }
    }
}

/// Where a write in flight stands among those to the same receiver: its
/// landing cycle, then the cycle it was sent, then its sender (the order in
/// which the cluster steps the replicas, so the same on one thread or many).
type FlightKey = (u64, u64, usize);

/// The writes one command became (after its sender's adversary), on their
/// way to `dst`. Between [`Stack::sent`] and [`Stack::receive`] it belongs to
/// nobody: a cluster run on several threads carries it from the sender's
/// thread to the receiver's.
pub struct Flight {
    dst: usize,
    key: FlightKey,
    writes: Vec<Write>,
    /// The completion the sender is owed for these writes once the
    /// receiver's kernel reports them finished, and the cycle its command
    /// was sent.
    owed: Option<(u64, CqCompletion)>,
    /// An acknowledgement instead of writes: the completion, valid from
    /// `key.0`, of the command `dst` sent at the cycle given.
    ack: Option<(u64, CqCompletion)>,
    /// An RDMA READ request of `key.2`'s instead of writes: `dst`'s stack
    /// reads its HBM at the landing and sends the response back.
    read: Option<ReadRequest>,
    /// `writes` are READ responses (the stack's mark `WR_RD`), not WRITEs.
    rd: bool,
}

/// An RDMA READ request on its way to the peer whose memory it reads.
#[derive(Copy, Clone, Debug)]
struct ReadRequest {
    /// Where in the responder's memory, and how many bytes.
    raddr: u64,
    length: u64,
    /// Where the response lands in the requester's memory.
    laddr: u64,
}

impl Flight {
    /// The receiver.
    pub fn dst(&self) -> usize {
        self.dst
    }
}

/// The writes of one key on their way to a stack, and the completion an
/// honest sender is owed for them (`Flight::owed`).
#[derive(Default)]
struct Inbound {
    writes: Vec<Write>,
    owed: Option<(u64, CqCompletion)>,
    /// READ responses, and READ requests to serve (their requester is the
    /// key's sender).
    responses: Vec<Write>,
    requests: Vec<ReadRequest>,
}

/// A write handed to a receiving stack, waiting for the guard's decision.
#[derive(Clone, Debug)]
struct RxWrite {
    src: usize,
    /// The cycle the stack handed it on (its landing).
    handed: u64,
    word: usize,
    words: usize,
    /// The model's verdict.
    model: Result<(), GuardRefusal>,
    /// The model's reason, for the refusal log.
    reason: Option<RefuseReason>,
    /// The completion its sender is owed once the receiver's kernel reports
    /// the write finished on `m_axis_rx_sts` (an honest sender's command
    /// with `last`), and the cycle the command was sent.
    ack: Option<(u64, CqCompletion)>,
    /// Its payload, to check that HBM holds it when it is acknowledged.
    data: Vec<u32>,
}

/// The write the guard took, until its decision shows.
#[derive(Clone, Debug)]
struct Deciding {
    w: RxWrite,
    taken: u64,
    written: bool,
}

/// A write on a receive path with what the stack presents of it: its
/// memory-write command and payload beats. Presented, it keeps its beats
/// until the last is taken, and its write only until the guard takes the
/// command (`w` is then the guard's, in `Deciding`).
#[derive(Clone, Debug)]
struct RxEntry {
    cmd: [u32; 3],
    beats: VecDeque<(Beat, u64, bool)>,
    w: Option<RxWrite>,
}

/// One replica's RoCE stack's receive path (`Delivery::Kernel`), as the
/// stack's integration has it (docs/roce.md, "Receive queues"): a queue of
/// [`RX_QP_DEPTH`] writes per sending queue pair, served round robin, one
/// write (command and payload) at a time; then the write the guard took,
/// until its decision shows; then the writes decided, until the kernel's
/// status for each (`m_axis_rx_sts`, in the order taken) lets the stack
/// acknowledge it.
#[derive(Default)]
struct RxStack {
    queues: Vec<VecDeque<RxEntry>>,
    /// The next queue round robin serves.
    next: usize,
    presenting: Option<RxEntry>,
    deciding: Option<Deciding>,
    finished: VecDeque<RxWrite>,
}

impl RxStack {
    fn busy(&self) -> bool {
        self.queues.iter().any(|q| !q.is_empty())
            || self.presenting.is_some()
            || self.deciding.is_some()
            || !self.finished.is_empty()
    }

    /// With nothing presented, the next queue's head, round robin.
    fn select(&mut self) {
        if self.presenting.is_some() {
            return;
        }
        let n = self.queues.len();
        for i in 0..n {
            let q = (self.next + i) % n;
            if let Some(e) = self.queues[q].pop_front() {
                self.presenting = Some(e);
                self.next = (q + 1) % n;
                return;
            }
        }
    }
}

/// One replica's completion queue: entries by (valid-from cycle, cycle
/// sent), and the one on the wire, which must not change until it is taken.
#[derive(Default)]
struct CqQueue {
    pending: BTreeMap<(u64, u64), CqCompletion>,
    presenting: Option<CqCompletion>,
}

/// What the stacks of a cluster share, fixed for a run: the links and the
/// layout the guard's checker enforces.
pub struct Links {
    n: usize,
    latency: u64,
    qpn_base: u64,
    network_ptr: u64,
    buffer_bytes: u64,
    /// The longest WRITE taken: the layout's longest record, at least a
    /// beat (1 KiB at the default build).
    max_write_bytes: u64,
    mailbox: Mailbox,
    delays: Vec<Delay>,
    delivery: Delivery,
}

/// One replica's RoCE stack: its send queue, its queue pairs to the peers
/// and its completion queue; the writes on their way to it and its receive
/// path; its counters (the cluster's are their sum, [`Network::stats`]).
/// A stack touches only its own replica's HBM, so the replicas of a cluster
/// can be stepped on different threads, exchanging [`Flight`]s.
pub struct Stack {
    r: usize,
    sq_ready: Ready,
    /// The cycle its next `drive` is for.
    now: u64,
    adversary: Option<Box<dyn Adversary>>,
    /// The events of this replica that place faults (`cluster::event`).
    watches: Watches,
    /// Per peer: the next command's sequence number and the last landing.
    next_ssn: Vec<u64>,
    last_landing: Vec<u64>,
    /// Writes sent and not yet handed to their receivers.
    outbox: Vec<Flight>,
    /// Writes on their way to this replica, with their senders.
    inbox: BTreeMap<FlightKey, Inbound>,
    cq: CqQueue,
    rx: RxStack,
    stats: NetStats,
    /// What a timeline of the run needs ([`Network::record_wires`]); `None`,
    /// and untouched, unless asked for.
    wires: Option<Box<WireLog>>,
    /// The WRITEs taken and not yet sent, in command order: a staged one
    /// waits for its payload from the kernel (`s_axis_tx_cmd`,
    /// `m_axis_tx_data`), and every later one waits behind it.
    tx: VecDeque<TxWrite>,
}

/// A WRITE taken from the send queue whose payload the stack has not read
/// yet.
#[derive(Clone, Debug)]
struct TxWrite {
    dst: usize,
    cmd: SqCommand,
    /// Staged (`host` = 1): the payload comes from the kernel.
    staged: bool,
    /// The memory-read command has been taken by the kernel.
    asked: bool,
    /// The payload's words read back so far.
    data: Vec<u32>,
}

/// The RoCE stacks and links of an n-replica cluster (see the module header).
pub struct Network {
    links: Links,
    stacks: Vec<Stack>,
}

impl Network {
    /// A cluster of `n` replicas with one-way latency L (at least 1). The
    /// buffer runs from `network_ptr` to the end of `mailbox`, which may be
    /// sized for more replicas than `n` (a build's N).
    pub fn new(n: usize, latency: u64, mailbox: Mailbox, network_ptr: u64, qpn_base: u64) -> Self {
        assert!(latency >= 1, "network latency must be at least 1");
        assert_eq!(
            network_ptr % BEAT_BYTES,
            0,
            "network_ptr must be beat-aligned"
        );
        Network {
            links: Links {
                n,
                latency,
                qpn_base,
                network_ptr,
                buffer_bytes: mailbox.end() as u64 * WORD_BYTES,
                max_write_bytes: (max_record_words(&mailbox) as u64 * WORD_BYTES).max(BEAT_BYTES),
                mailbox,
                delays: Vec::new(),
                delivery: Delivery::Kernel,
            },
            stacks: (0..n)
                .map(|r| Stack {
                    r,
                    sq_ready: Ready::Always,
                    now: 0,
                    adversary: None,
                    watches: Watches::default(),
                    next_ssn: vec![0; n],
                    last_landing: vec![0; n],
                    outbox: Vec::new(),
                    inbox: BTreeMap::new(),
                    cq: CqQueue::default(),
                    rx: RxStack {
                        queues: vec![VecDeque::new(); n],
                        ..Default::default()
                    },
                    stats: NetStats::new(n),
                    wires: None,
                    tx: VecDeque::new(),
                })
                .collect(),
        }
    }

    /// The default latency L of the performance model.
    pub fn with_default_latency(
        n: usize,
        mailbox: Mailbox,
        network_ptr: u64,
        qpn_base: u64,
    ) -> Self {
        Self::new(n, defaults::NET_LATENCY, mailbox, network_ptr, qpn_base)
    }

    /// The layout the slot guard enforces.
    pub fn mailbox(&self) -> &Mailbox {
        self.links.mailbox()
    }

    /// The one-way latency L.
    pub fn latency(&self) -> u64 {
        self.links.latency()
    }

    /// How landing writes reach HBM (`Delivery::Kernel` by default).
    pub fn set_delivery(&mut self, delivery: Delivery) {
        self.links.delivery = delivery;
    }

    pub fn delivery(&self) -> Delivery {
        self.links.delivery
    }

    /// Replica `r`'s `sq_tready` pattern.
    pub fn set_sq_ready(&mut self, r: usize, ready: Ready) {
        self.stacks[r].sq_ready = ready;
    }

    /// `extra` cycles on link src -> dst for commands accepted in
    /// `from_cycle..to_cycle`. Windows that overlap add up.
    pub fn add_delay(
        &mut self,
        src: usize,
        dst: usize,
        extra: u64,
        from_cycle: u64,
        to_cycle: u64,
    ) {
        self.add_delay_to(src, dst, extra, from_cycle, to_cycle, None);
    }

    /// As [`add_delay`](Self::add_delay), for the writes whose first word
    /// (a mailbox word index) is in `words` only (`None`: every write).
    pub fn add_delay_to(
        &mut self,
        src: usize,
        dst: usize,
        extra: u64,
        from_cycle: u64,
        to_cycle: u64,
        words: Option<std::ops::Range<usize>>,
    ) {
        self.links.delays.push(Delay {
            src,
            dst,
            extra,
            from: from_cycle,
            to: to_cycle,
            words,
            start: None,
        });
    }

    /// As [`add_delay_to`](Self::add_delay_to), placed by an event: the
    /// writes sent from `start`'s cycle + `from` to its cycle + `to`, once
    /// it fires ([`Network::watch`] on `src` fires it).
    #[allow(clippy::too_many_arguments)]
    pub fn add_delay_after(
        &mut self,
        src: usize,
        dst: usize,
        extra: u64,
        start: Trigger,
        from: u64,
        to: u64,
        words: Option<std::ops::Range<usize>>,
    ) {
        self.links.delays.push(Delay {
            src,
            dst,
            extra,
            from,
            to,
            words,
            start: Some(start),
        });
    }

    /// Replica `r`'s stack watches for `event` (one of `r`'s own) and fires
    /// `trigger` when it happens (`cluster::event`).
    pub fn watch(&mut self, r: usize, event: Event, trigger: Trigger) {
        self.stacks[r].watches.add(event, trigger);
    }

    /// Make replica `r` faulty: its outgoing writes pass through `adversary`.
    pub fn set_adversary(&mut self, r: usize, adversary: Box<dyn Adversary>) {
        self.stacks[r].adversary = Some(adversary);
    }

    /// The counters, summed over the stacks; the logs in cycle order.
    pub fn stats(&self) -> NetStats {
        let mut t = NetStats::new(self.links.n);
        for s in &self.stacks {
            t.add(&s.stats);
        }
        t.malformed_log.sort_by_key(|x| x.cycle);
        t.refusal_log.sort_by_key(|x| x.cycle);
        t.disagreement_log.sort_by_key(|x| x.cycle);
        t
    }

    /// Commands accepted on queue pair src -> dst.
    pub fn writes(&self, src: usize, dst: usize) -> u64 {
        self.stacks[src].stats.accepted[src][dst]
    }

    /// Writes landed from src in dst's HBM.
    pub fn delivered(&self, src: usize, dst: usize) -> u64 {
        self.stacks[dst].stats.delivered[src][dst]
    }

    /// Writes from `src` the slot guard refused.
    pub fn refused(&self, src: usize) -> u64 {
        self.stacks.iter().map(|s| s.stats.refused[src]).sum()
    }

    /// Commands from `src` refused as malformed.
    pub fn malformed(&self, src: usize) -> u64 {
        self.stacks[src].stats.malformed[src]
    }

    /// Completions replica `r`'s kernel took.
    pub fn completions(&self, r: usize) -> u64 {
        self.stacks[r].stats.completions[r]
    }

    /// True while a write or a completion is still on its way.
    pub fn busy(&self) -> bool {
        self.stacks.iter().any(|s| s.busy())
    }

    /// Drive replica `r`'s `sq_tready`, `cq_*` and receive path for its
    /// current cycle (kept per replica: the cluster steps the replicas one
    /// after another).
    pub fn drive(&mut self, r: usize, inp: &mut KernelIn) {
        self.stacks[r].drive(inp);
    }

    /// Take replica `r`'s handshakes of `cycle` and advance `r` to the next
    /// cycle. An accepted command's payload is read from `hbms[r]` now.
    pub fn observe(&mut self, r: usize, inp: &KernelIn, out: &KernelOut, cycle: u64, hbms: &[Hbm]) {
        self.stacks[r].observe(&self.links, inp, out, cycle, &hbms[r]);
        self.post(r);
    }

    /// Hands the writes replica `r` sent to their receivers' stacks.
    fn post(&mut self, r: usize) {
        let sent: Vec<Flight> = self.stacks[r].sent().collect();
        for f in sent {
            self.stacks[f.dst].receive(f);
        }
    }

    /// Land every write due by `cycle` in its receiver's HBM, oldest first.
    pub fn deliver(&mut self, cycle: u64, hbms: &mut [Hbm]) {
        for (s, hbm) in self.stacks.iter_mut().zip(hbms.iter_mut()) {
            s.land(&self.links, cycle, hbm);
        }
    }

    /// `Delivery::Kernel`: drops the writes every stack holds that no guard
    /// has taken yet (their commands and whole payloads; a payload the
    /// guard is taking or draining stays). A host that zeroes the mailboxes
    /// before a new run (`Cluster::reset`) calls it: with the guards in
    /// reset these writes wait in the stacks, and would land on the cleared
    /// mailboxes, where the old model had landed them before the clear.
    /// Returns how many were dropped (counted as abandoned).
    pub fn discard_waiting_writes(&mut self) -> u64 {
        self.stacks.iter_mut().map(|s| s.discard_waiting()).sum()
    }

    /// The model's slot guard (see the module header): the filter of
    /// `Delivery::Model`, the checker of `Delivery::Kernel`.
    pub fn guard(&self, src: usize, w: &Write) -> Result<(), RefuseReason> {
        self.links.guard(src, w)
    }

    /// The links and every replica's stack, to step the replicas apart (on
    /// several threads); the caller carries each [`Flight`] from
    /// [`Stack::sent`] to its receiver's [`Stack::receive`] before the
    /// receiver's clock reaches the flight's landing, at least
    /// [`latency`](Self::latency) cycles after it was sent.
    pub fn split(&mut self) -> (&Links, &mut [Stack]) {
        (&self.links, &mut self.stacks)
    }

    /// From now on every stack logs each write it sends and each guard
    /// decision on a write it receives, for a timeline
    /// (`crate::timeline`); a run that does not ask pays nothing.
    pub fn record_wires(&mut self) {
        for s in &mut self.stacks {
            s.wires.get_or_insert_with(Box::default);
        }
    }

    /// Each stack's log, replica order (none unless
    /// [`record_wires`](Self::record_wires) was called).
    pub fn wires(&self) -> Vec<Option<&WireLog>> {
        self.stacks.iter().map(|s| s.wires.as_deref()).collect()
    }
}

impl Stack {
    /// True while a write or a completion of this replica's is on its way.
    fn busy(&self) -> bool {
        !self.outbox.is_empty()
            || !self.tx.is_empty()
            || !self.inbox.is_empty()
            || self.rx.busy()
            || self.cq.presenting.is_some()
            || !self.cq.pending.is_empty()
    }

    /// Drive `sq_tready`, `cq_*` and the receive path for the current cycle.
    pub fn drive(&mut self, inp: &mut KernelIn) {
        let cycle = self.now;
        inp.sq_tready = self.sq_ready.at(cycle);
        // The payload read of the first staged WRITE not yet asked for, as
        // the stack's memory-read command (memCmd: `laddr`, length, `host`
        // = 1, the queue pair); its data is taken as it comes.
        let ask = self.tx.iter().find(|t| t.staged && !t.asked);
        inp.tx_cmd_tvalid = ask.is_some();
        inp.tx_cmd_tdata = ask.map_or([0; 3], |t| {
            WrCommand::payload_read(t.cmd.qpn, t.cmd.laddr, t.cmd.length).to_words()
        });
        inp.tx_data_tready = true;
        let q = &mut self.cq;
        if q.presenting.is_none() {
            if let Some(entry) = q.pending.first_entry() {
                if entry.key().0 <= cycle {
                    q.presenting = Some(entry.remove());
                }
            }
        }
        inp.cq_tvalid = q.presenting.is_some();
        inp.cq_tdata = q.presenting.map_or(0, |c| c.pack());
        // The receive path: the write presented, its command until taken
        // and its payload beats; statuses are taken as they come.
        self.rx.select();
        let p = self.rx.presenting.as_ref();
        let cmd = p.filter(|p| p.w.is_some()).map(|p| p.cmd);
        inp.rx_cmd_tvalid = cmd.is_some();
        inp.rx_cmd_tdata = cmd.unwrap_or([0; 3]);
        inp.rx_sts_tready = true;
        match p.and_then(|p| p.beats.front()) {
            Some(&(data, keep, last)) => {
                inp.rx_data_tvalid = true;
                inp.rx_data_tdata = data;
                inp.rx_data_tkeep = keep;
                inp.rx_data_tlast = last;
            }
            None => {
                inp.rx_data_tvalid = false;
                inp.rx_data_tkeep = 0;
                inp.rx_data_tlast = false;
            }
        }
    }

    /// Take the handshakes of `cycle` and advance to the next cycle. An
    /// accepted command's payload is read from `hbm`, this replica's, now;
    /// the writes it becomes wait in [`sent`](Self::sent).
    pub fn observe(
        &mut self,
        links: &Links,
        inp: &KernelIn,
        out: &KernelOut,
        cycle: u64,
        hbm: &Hbm,
    ) {
        self.now = cycle + 1;
        self.observe_rx(links, inp, out, cycle, hbm);
        let r = self.r;
        if inp.cq_tvalid && out.cq_tready {
            self.cq.presenting = None;
            self.stats.completions[r] += 1;
        }
        if out.sq_tvalid && inp.sq_tready {
            let cmd = SqCommand::unpack(&out.sq_tdata);
            match links.check(r, &cmd) {
                Ok(dst) if cmd.opcode == RC_RDMA_READ_REQUEST => {
                    self.request(links, dst, &cmd, cycle)
                }
                Ok(dst) => self.tx.push_back(TxWrite {
                    dst,
                    cmd,
                    staged: cmd.host,
                    asked: false,
                    data: Vec::new(),
                }),
                Err(kind) => {
                    self.stats.malformed[r] += 1;
                    self.stats.malformed_log.push(Malformed {
                        src: r,
                        cycle,
                        kind,
                    });
                }
            }
        }
        // The staged payloads' reads: the command taken, the data in command
        // order. A WRITE is sent once its payload is in, in command order: a
        // WRITE read from HBM reads it now, behind the staged ones before it.
        if inp.tx_cmd_tvalid && out.tx_cmd_tready {
            if let Some(t) = self.tx.iter_mut().find(|t| t.staged && !t.asked) {
                t.asked = true;
            }
        }
        let mut payload_in = false;
        if out.tx_data_tvalid && inp.tx_data_tready {
            let t = self
                .tx
                .iter_mut()
                .find(|t| t.staged && t.asked)
                .expect("the kernel sent payload data for no read the stack asked for");
            let want = (t.cmd.length / WORD_BYTES) as usize;
            let have = t.data.len();
            let take = (want - have).min(out.tx_data_tdata.len());
            t.data.extend_from_slice(&out.tx_data_tdata[..take]);
            if out.tx_data_tlast {
                assert_eq!(
                    t.data.len(),
                    want,
                    "a staged payload's TLAST before its length (or after it)"
                );
                payload_in = true;
            }
        }
        while let Some(t) = self.tx.front() {
            if t.staged && !(payload_in && t.asked) {
                break;
            }
            let t = self.tx.pop_front().expect("a front");
            let data = if t.staged {
                payload_in = false;
                t.data
            } else {
                hbm.read_words(t.cmd.laddr, (t.cmd.length / WORD_BYTES) as usize)
            };
            self.send(links, t.dst, &t.cmd, cycle, data);
        }
        // An adversary's own writes, after its kernel's of this cycle.
        let emitted = match &mut self.adversary {
            Some(adv) => adv.emit(r, cycle),
            None => vec![],
        };
        for (dst, write) in emitted {
            assert!(dst != r && dst < links.n, "an emitted write goes to a peer");
            let landing = (cycle + links.latency).max(self.last_landing[dst]);
            self.last_landing[dst] = landing;
            self.stats.emitted[r] += 1;
            match self
                .outbox
                .iter_mut()
                .find(|f| f.dst == dst && f.key == (landing, cycle, r))
            {
                Some(f) => f.writes.push(write),
                None => self.outbox.push(Flight {
                    dst,
                    key: (landing, cycle, r),
                    writes: vec![write],
                    owed: None,
                    ack: None,
                    read: None,
                    rd: false,
                }),
            }
        }
    }

    /// This replica's client's decisions so far (`Client::decisions`), for
    /// the events that place faults (`cluster::event`).
    pub fn client_decided(&mut self, decisions: &[crate::models::client::Decided]) {
        if !self.watches.is_empty() {
            self.watches.decided(decisions);
        }
    }

    /// The writes sent since the last call, for their receivers.
    pub fn sent(&mut self) -> std::vec::Drain<'_, Flight> {
        self.outbox.drain(..)
    }

    /// Takes a write on its way here (from [`sent`](Self::sent) of its
    /// sender's stack).
    pub fn receive(&mut self, f: Flight) {
        debug_assert_eq!(f.dst, self.r);
        debug_assert!(f.key.0 >= self.now, "a flight received after its landing");
        if let Some((sent, c)) = f.ack {
            self.cq.pending.insert((f.key.0, sent), c);
            return;
        }
        let e = self.inbox.entry(f.key).or_default();
        if let Some(rq) = f.read {
            e.requests.push(rq);
        } else if f.rd {
            e.responses.extend(f.writes);
        } else {
            e.writes.extend(f.writes);
        }
        e.owed = e.owed.or(f.owed);
    }

    /// An RDMA READ of `dst`'s memory: the request reaches `dst`'s stack L
    /// cycles on (in order with this replica's writes to `dst`), which
    /// reads its HBM and sends the response back. A READ gets no
    /// completion (the kernel sends it with `last` = 0 and reads the
    /// region it lands in). A faulty sender's adversary does not see it: a
    /// READ writes nothing at the peer.
    fn request(&mut self, links: &Links, dst: usize, cmd: &SqCommand, cycle: u64) {
        let src = self.r;
        self.stats.reads[src] += 1;
        let landing = (cycle + links.latency).max(self.last_landing[dst]);
        self.last_landing[dst] = landing;
        self.outbox.push(Flight {
            dst,
            key: (landing, cycle, src),
            writes: vec![],
            owed: None,
            ack: None,
            read: Some(ReadRequest {
                raddr: cmd.raddr,
                length: cmd.length,
                laddr: cmd.laddr,
            }),
            rd: false,
        });
    }

    /// A WRITE whose payload `data` the stack has at `cycle` (read from
    /// HBM, or staged in the kernel) goes out.
    fn send(&mut self, links: &Links, dst: usize, cmd: &SqCommand, cycle: u64, data: Vec<u32>) {
        let src = self.r;
        self.stats.accepted[src][dst] += 1;
        let word = ((cmd.laddr - links.network_ptr) / WORD_BYTES) as usize;
        let write = Write { word, data };
        // An event this write is starts its faults with it.
        self.watches.sent(&links.mailbox, src, &write, cycle);
        let extra: u64 = links
            .delays
            .iter()
            .filter(|d| d.src == src && d.dst == dst && d.covers(cycle))
            .filter(|d| d.words.as_ref().is_none_or(|w| w.contains(&word)))
            .map(|d| d.extra)
            .sum();
        let landing = (cycle + links.latency + extra).max(self.last_landing[dst]);
        self.last_landing[dst] = landing;
        let ssn = self.next_ssn[dst];
        self.next_ssn[dst] += 1;

        let kernels = self.wires.as_ref().map(|_| write.clone());
        let honest = self.adversary.is_none();
        let writes = match &mut self.adversary {
            Some(adv) => adv.transform(src, dst, write, cycle),
            None => vec![write],
        };
        if let (Some(log), Some(w)) = (self.wires.as_mut(), kernels) {
            log.sent(&links.mailbox, src, dst, cycle, landing, &w, &writes);
        }
        let c = CqCompletion {
            ssn: ssn & 0xff_ffff,
            cmplt: true,
            ..Default::default()
        };
        // Through a kernel's guard, the receiver acknowledges an honest
        // sender's write on its status (`Stack::observe_rx`); otherwise the
        // write is in HBM at its landing (or the sender is faulty, and its
        // stack completes its commands as usual), and the acknowledgement
        // takes L back.
        let on_status = honest && links.delivery == Delivery::Kernel;
        self.outbox.push(Flight {
            dst,
            key: (landing, cycle, src),
            writes,
            owed: (on_status && cmd.last).then_some((cycle, c)),
            ack: None,
            read: None,
            rd: false,
        });
        if cmd.last && !on_status {
            self.cq.pending.insert((landing + links.latency, cycle), c);
        }
    }

    /// Land every write due by `cycle` in this replica's HBM, oldest first.
    pub fn land(&mut self, links: &Links, cycle: u64, hbm: &mut Hbm) {
        let dst = self.r;
        while let Some(entry) = self.inbox.first_entry() {
            if entry.key().0 > cycle {
                break;
            }
            let ((_, _, src), flight) = entry.remove_entry();
            let ack = flight.owed;
            for rq in &flight.requests {
                // This stack serves the READ from its card's memory (the
                // kernel does nothing): the response leaves after an HBM
                // read and lands at the requester L cycles later, in order
                // on the queue pair.
                let data = hbm.read_words(rq.raddr, (rq.length / WORD_BYTES) as usize);
                let landing =
                    (cycle + hbm.read_latency() + links.latency).max(self.last_landing[src]);
                self.last_landing[src] = landing;
                self.stats.read_responses[dst] += 1;
                self.outbox.push(Flight {
                    dst: src,
                    key: (landing, cycle, dst),
                    writes: vec![Write {
                        word: ((rq.laddr - links.network_ptr) / WORD_BYTES) as usize,
                        data,
                    }],
                    owed: None,
                    ack: None,
                    read: None,
                    rd: true,
                });
            }
            for w in flight.responses {
                if links.delivery == Delivery::Kernel {
                    self.hand_to_stack(links, src, w, None, cycle, true);
                    continue;
                }
                self.land_model(links, src, w, cycle, hbm, true);
            }
            for w in flight.writes {
                if links.delivery == Delivery::Kernel {
                    self.hand_to_stack(links, src, w, ack, cycle, false);
                    continue;
                }
                self.land_model(links, src, w, cycle, hbm, false);
            }
        }
    }

    /// `Delivery::Model` and `Bypass`: the rule filters (or nothing does)
    /// and the write lands at once. `rd`: a READ response.
    fn land_model(
        &mut self,
        links: &Links,
        src: usize,
        w: Write,
        cycle: u64,
        hbm: &mut Hbm,
        rd: bool,
    ) {
        let dst = self.r;
        let verdict = match links.delivery {
            Delivery::Bypass => Ok(()),
            _ => links.guard_rd(src, &w, rd),
        };
        if let Some(log) = self.wires.as_mut() {
            log.decided(src, dst, cycle, w.word, verdict.is_ok());
        }
        match verdict {
            Ok(()) => {
                let addr = links.network_ptr + w.word as u64 * WORD_BYTES;
                hbm.write_words(addr, &w.data);
                self.stats.delivered[src][dst] += 1;
            }
            Err(reason) => {
                self.stats.refused[src] += 1;
                self.stats.refused_at[dst] += 1;
                self.stats.refusal_log.push(Refusal {
                    src,
                    dst,
                    cycle,
                    word: w.word,
                    reason,
                });
            }
        }
    }

    /// `Delivery::Kernel`: queue `w` on the receive path, as the stack
    /// presents it, with the model's verdict for the check. An empty write
    /// never gets there (the model refuses it; a zero-length WRITE carries
    /// no memory command here).
    fn hand_to_stack(
        &mut self,
        links: &Links,
        src: usize,
        w: Write,
        ack: Option<(u64, CqCompletion)>,
        cycle: u64,
        rd: bool,
    ) {
        let dst = self.r;
        let reason = links.guard_rd(src, &w, rd).err();
        if w.data.is_empty() {
            // No memory command: acknowledged at once.
            if let Some(a) = ack {
                self.acknowledge(links, src, a, cycle);
            }
            if let Some(log) = self.wires.as_mut() {
                log.decided(src, dst, self.now, w.word, false);
            }
            self.stats.refused[src] += 1;
            self.stats.refused_at[dst] += 1;
            self.stats.refusal_log.push(Refusal {
                src,
                dst,
                cycle: self.now,
                word: w.word,
                reason: RefuseReason::Empty,
            });
            return;
        }
        let model = links.expected(reason);
        let vaddr = links.network_ptr + w.word as u64 * WORD_BYTES;
        let qpn = links.qpn_base + src as u64;
        let bytes = w.data.len() as u64 * WORD_BYTES;
        let cmd = if rd {
            WrCommand::read_response(qpn, vaddr, bytes)
        } else {
            WrCommand::write(qpn, vaddr, bytes)
        }
        .to_words();
        // The writes of src the stack holds: queued, and the one it
        // presents if the guard has not taken its command.
        let presented = self
            .rx
            .presenting
            .as_ref()
            .and_then(|p| p.w.as_ref())
            .is_some_and(|w| w.src == src);
        let q = &mut self.rx.queues[src];
        if q.len() + presented as usize >= RX_QP_DEPTH {
            // The queue is full: dropped, and never acknowledged.
            self.stats.rx_dropped[src] += 1;
            return;
        }
        q.push_back(RxEntry {
            cmd,
            beats: wr_data_beats(&w.data).into_iter().collect(),
            w: Some(RxWrite {
                src,
                handed: cycle,
                word: w.word,
                words: w.data.len(),
                model,
                reason,
                ack,
                data: w.data,
            }),
        });
        let depth = (q.len() + presented as usize) as u64;
        let m = &mut self.stats.rx_depth_max[src];
        *m = (*m).max(depth);
    }

    /// Sends `src` the completion `ack` of its command, from `cycle`: it is
    /// on `src`'s completion queue L cycles later.
    fn acknowledge(&mut self, links: &Links, src: usize, ack: (u64, CqCompletion), cycle: u64) {
        self.outbox.push(Flight {
            dst: src,
            key: (cycle + links.latency, cycle, self.r),
            writes: vec![],
            owed: None,
            ack: Some(ack),
            read: None,
            rd: false,
        });
    }

    /// A host's mailbox clear (`Cluster::reset`) for this replica:
    /// [`Network::discard_waiting_writes`] for its stack alone.
    pub fn discard_waiting(&mut self) -> u64 {
        let rx = &mut self.rx;
        let mut dropped: u64 = rx.queues.iter().map(|q| q.len() as u64).sum();
        rx.queues.iter_mut().for_each(VecDeque::clear);
        // A write whose command the guard has taken keeps its payload,
        // which the guard drains.
        if rx.presenting.as_ref().is_some_and(|p| p.w.is_some()) {
            rx.presenting = None;
            dropped += 1;
        }
        self.stats.abandoned += dropped;
        dropped
    }

    /// `Delivery::Kernel`: the receive-path handshakes of `cycle`, and the
    /// guard's decisions as they show on the ports.
    fn observe_rx(
        &mut self,
        links: &Links,
        inp: &KernelIn,
        out: &KernelOut,
        cycle: u64,
        hbm: &Hbm,
    ) {
        // A status: the oldest write decided is finished, and its sender,
        // if owed, gets its acknowledgement.
        if out.rx_sts_tvalid && inp.rx_sts_tready {
            match self.rx.finished.pop_front() {
                Some(w) => {
                    let qpn = (out.rx_sts_tdata & 0x3ff) as u64;
                    if qpn != links.qpn_base + w.src as u64 {
                        self.stats.status_errors += 1;
                    }
                    // An accepted write is in HBM when it is acknowledged,
                    // unless a later write has the same words: one the guard
                    // took after it, the receiver's own kernel's since it
                    // landed (a leader region is written by the leader of
                    // each view, the receiver too when it leads), or its
                    // host's (a mailbox cleared at a restart).
                    let overlaps =
                        |o: &RxWrite| o.word < w.word + w.words && w.word < o.word + o.words;
                    let addr = links.network_ptr + w.word as u64 * WORD_BYTES;
                    let later = self.rx.finished.iter().any(overlaps)
                        || self.rx.deciding.as_ref().is_some_and(|d| overlaps(&d.w))
                        || hbm.overwritten_since(addr, w.words, w.handed);
                    if w.ack.is_some() && w.model.is_ok() && !later {
                        if hbm.read_words(addr, w.words) != w.data {
                            self.stats.status_errors += 1;
                        }
                    }
                    if let Some(a) = w.ack {
                        self.acknowledge(links, w.src, a, cycle);
                    }
                }
                None => self.stats.status_errors += 1,
            }
        }
        let rx = &mut self.rx;
        // The guard is ready for a command again: the last one is decided.
        let decided = rx
            .deciding
            .as_ref()
            .is_some_and(|d| out.rx_cmd_tready && cycle > d.taken);
        let abandoned = !inp.ap_rst_n && rx.deciding.as_ref().is_some_and(|d| !d.written);
        if abandoned {
            // Its status still comes (RxStatus keeps its FIFO through the
            // reset).
            let d = rx.deciding.take().expect("checked");
            rx.finished.push_back(d.w);
            self.stats.abandoned += 1;
        } else if decided {
            let d = rx.deciding.take().expect("checked");
            self.decided(d, cycle);
        }
        let rx = &mut self.rx;
        if out.rx_awvalid && inp.rx_awready {
            if let Some(d) = rx.deciding.as_mut() {
                d.written = true;
            }
        }
        if inp.rx_cmd_tvalid && out.rx_cmd_tready {
            let p = rx.presenting.as_mut().expect("a command presented");
            let w = p.w.take().expect("a command not taken");
            let wait = cycle - w.handed;
            let stats = &mut self.stats;
            stats.rx_wait_max[w.src] = stats.rx_wait_max[w.src].max(wait);
            rx.deciding = Some(Deciding {
                w,
                taken: cycle,
                written: false,
            });
        }
        if inp.rx_data_tvalid && out.rx_data_tready {
            let p = rx.presenting.as_mut().expect("a beat presented");
            p.beats.pop_front();
        }
        // The write presented is done once its command and every beat are
        // taken; the next is chosen at the next cycle's `drive`.
        if rx
            .presenting
            .as_ref()
            .is_some_and(|p| p.w.is_none() && p.beats.is_empty())
        {
            rx.presenting = None;
        }
    }

    /// The guard decided `d` (it wrote it to HBM, or not): count it, and
    /// compare with the model.
    fn decided(&mut self, d: Deciding, cycle: u64) {
        let dst = self.r;
        let w = &d.w;
        if let Some(log) = self.wires.as_mut() {
            log.decided(w.src, dst, cycle, w.word, d.written);
        }
        if d.written {
            self.stats.delivered[w.src][dst] += 1;
        } else {
            self.stats.refused[w.src] += 1;
            self.stats.refused_at[dst] += 1;
            if let Some(reason) = w.reason {
                self.stats.refusal_log.push(Refusal {
                    src: w.src,
                    dst,
                    cycle,
                    word: w.word,
                    reason,
                });
            }
        }
        if d.written == w.model.is_ok() {
            self.stats.agreements += 1;
        } else {
            self.stats.disagreements += 1;
            self.stats.disagreement_log.push(Disagreement {
                src: w.src,
                dst,
                cycle,
                word: w.word,
                words: w.words,
                kernel_accepted: d.written,
                model: w.model,
            });
        }
        // Its status is next (after the earlier ones).
        self.rx.finished.push_back(d.w);
    }
}

impl Links {
    /// The layout the slot guard enforces.
    pub fn mailbox(&self) -> &Mailbox {
        &self.mailbox
    }

    /// The one-way latency L: no write lands sooner after it is sent.
    pub fn latency(&self) -> u64 {
        self.latency
    }

    /// The destination of a well-formed command.
    fn check(&self, src: usize, cmd: &SqCommand) -> Result<usize, MalformedKind> {
        let dst = cmd
            .qpn
            .checked_sub(self.qpn_base)
            .map(|d| d as usize)
            .filter(|&d| d < self.n && d != src)
            .ok_or(MalformedKind::NoConnection { qpn: cmd.qpn })?;
        if cmd.opcode == RC_RDMA_READ_REQUEST {
            return self.check_read(dst, cmd);
        }
        if cmd.opcode != RC_RDMA_WRITE_ONLY {
            return Err(MalformedKind::Opcode(cmd.opcode));
        }
        if cmd.host && cmd.length > BEAT_BYTES {
            return Err(MalformedKind::HostMemory);
        }
        if cmd.length == 0 || cmd.length % WORD_BYTES != 0 || cmd.length > self.max_write_bytes {
            return Err(MalformedKind::Length(cmd.length));
        }
        if cmd.laddr % WORD_BYTES != 0 {
            return Err(MalformedKind::Unaligned(cmd.laddr));
        }
        if cmd.laddr != cmd.raddr {
            return Err(MalformedKind::AddrMismatch {
                laddr: cmd.laddr,
                raddr: cmd.raddr,
            });
        }
        let end = self.network_ptr + self.buffer_bytes;
        if cmd.laddr < self.network_ptr || cmd.laddr.saturating_add(cmd.length) > end {
            return Err(MalformedKind::OutsideBuffer {
                laddr: cmd.laddr,
                length: cmd.length,
            });
        }
        Ok(dst)
    }

    /// A READ the kernel may send: card memory, one beat of the peer's
    /// mailbox buffer, into the peer's own record of remote_rows (where
    /// the guard takes its response).
    fn check_read(&self, dst: usize, cmd: &SqCommand) -> Result<usize, MalformedKind> {
        if cmd.host {
            return Err(MalformedKind::HostMemory);
        }
        if cmd.length != BEAT_BYTES {
            return Err(MalformedKind::Length(cmd.length));
        }
        if cmd.laddr % BEAT_BYTES != 0 || cmd.raddr % BEAT_BYTES != 0 {
            return Err(MalformedKind::Unaligned(cmd.laddr | cmd.raddr));
        }
        let end = self.network_ptr + self.buffer_bytes;
        let rec = self.mailbox.record(Region::RemoteRows, 0, dst) as u64 * WORD_BYTES;
        let rec_bytes = self.mailbox.stride(Region::RemoteRows) as u64 * WORD_BYTES;
        let into = self.network_ptr + rec..self.network_ptr + rec + rec_bytes;
        if cmd.raddr < self.network_ptr
            || cmd.raddr + cmd.length > end
            || !into.contains(&cmd.laddr)
        {
            return Err(MalformedKind::OutsideBuffer {
                laddr: cmd.laddr,
                length: cmd.length,
            });
        }
        Ok(dst)
    }

    /// The verdict the kernel's guard must reach: the model's rule's.
    fn expected(&self, reason: Option<RefuseReason>) -> Result<(), GuardRefusal> {
        reason.map_or(Ok(()), |r| Err(r.refusal()))
    }

    /// The model's slot guard (see the module header): the filter of
    /// `Delivery::Model`, the checker of `Delivery::Kernel`. The reference
    /// rule itself (`guard::check`), its verdict detailed for the refusal
    /// log. No region's view lies elsewhere in HBM (new_view carries its
    /// own), so the receiver's HBM is not read.
    pub fn guard(&self, src: usize, w: &Write) -> Result<(), RefuseReason> {
        self.guard_rd(src, w, false)
    }

    /// [`Links::guard`] for a write that is a READ response (`rd`) or not.
    pub fn guard_rd(&self, src: usize, w: &Write, rd: bool) -> Result<(), RefuseReason> {
        if w.data.is_empty() {
            return Err(RefuseReason::Empty);
        }
        let mb = &self.mailbox;
        let verdict = check_reference(mb, self.n, src, w.word, &w.data, rd);
        let region = mb.locate(w.word).map(|(r, _)| r);
        match verdict {
            Ok(()) => Ok(()),
            Err(GuardRefusal::NotOwner) => {
                let word = (w.word..w.word + w.data.len())
                    .find(|&x| mb.owner(x) != Some(src))
                    .unwrap_or(w.word);
                Err(RefuseReason::NotOwner {
                    word,
                    owner: mb.owner(word),
                })
            }
            Err(GuardRefusal::NotLeader) => {
                let region = region.expect("a leader's record lies in a region");
                let Rule::Leader {
                    record_words,
                    view_at,
                    ..
                } = rule_for(mb, region)
                else {
                    unreachable!("only a leader's region refuses as not_leader")
                };
                let off = w.word - mb.base(region);
                let view_word = w.word - off % record_words + view_at;
                Err(RefuseReason::NotLeader {
                    region,
                    view: w.data[view_word - w.word],
                })
            }
            Err(GuardRefusal::Shape) => Err(RefuseReason::Shape {
                region: region.expect("a leader's record lies in a region"),
            }),
            Err(other) => Err(RefuseReason::Other(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::params::vote_tag;

    const N: usize = 3;
    const L: u64 = 10;
    const QPN_BASE: u64 = 16;
    const PTR: u64 = 0x1_0000_0000;

    fn mailbox() -> Mailbox {
        Mailbox::v3(N, 16, 1)
    }

    fn setup() -> (Network, Vec<Hbm>) {
        let mut net = Network::new(N, L, mailbox(), PTR, QPN_BASE);
        // These tests have no kernels: the model's rule filters.
        net.set_delivery(Delivery::Model);
        (net, (0..N).map(|_| Hbm::new(5, 3)).collect())
    }

    fn addr(word: usize) -> u64 {
        PTR + word as u64 * WORD_BYTES
    }

    fn cmd(dst: usize, word: usize, words: usize) -> SqCommand {
        SqCommand {
            opcode: RC_RDMA_WRITE_ONLY,
            qpn: QPN_BASE + dst as u64,
            last: true,
            laddr: addr(word),
            raddr: addr(word),
            length: words as u64 * WORD_BYTES,
            ..Default::default()
        }
    }

    /// One cycle of the whole network with `sends[r]` on replica r's send
    /// queue and cq_tready high; returns what each replica was driven.
    fn cycle(
        net: &mut Network,
        hbms: &mut [Hbm],
        c: u64,
        sends: &[Option<SqCommand>],
    ) -> Vec<KernelIn> {
        cycle_rx0(net, hbms, c, sends, None)
    }

    /// Runs `from..to` idle; returns (cycle, replica, completion) seen.
    fn idle(
        net: &mut Network,
        hbms: &mut [Hbm],
        from: u64,
        to: u64,
    ) -> Vec<(u64, usize, CqCompletion)> {
        let mut seen = Vec::new();
        for c in from..to {
            for (r, inp) in cycle(net, hbms, c, &[]).iter().enumerate() {
                if inp.cq_tvalid {
                    seen.push((c, r, CqCompletion::unpack(inp.cq_tdata)));
                }
            }
        }
        seen
    }

    fn one(net: &mut Network, hbms: &mut [Hbm], c: u64, src: usize, command: SqCommand) {
        let mut sends = vec![None; N];
        sends[src] = Some(command);
        cycle(net, hbms, c, &sends);
    }

    /// A stand-in for replica 0's kernel on the receive path
    /// (`Delivery::Kernel`): it takes a command when `ready(c)`, its
    /// payload a beat a cycle, writes it to HBM with one AW the cycle after
    /// its last beat, is ready again the cycle after, and gives the status
    /// (the command's queue pair) `sts_delay` cycles after the AW.
    struct Rx0 {
        ready: fn(u64) -> bool,
        sts_delay: u64,
        /// The command taken: its address, length and queue pair, and the
        /// cycle of its AW once its payload is in.
        cmd: Option<(u64, usize, u64, Option<u64>)>,
        beats: Vec<u32>,
        /// Statuses due: (cycle, queue pair).
        sts: VecDeque<(u64, u32)>,
        /// The queue pairs taken, in order.
        taken: Vec<u64>,
    }

    impl Rx0 {
        fn new(ready: fn(u64) -> bool, sts_delay: u64) -> Self {
            Rx0 {
                ready,
                sts_delay,
                cmd: None,
                beats: vec![],
                sts: VecDeque::new(),
                taken: vec![],
            }
        }

        /// Its outputs for cycle `c`, given what the stack drives, and
        /// what it does at the edge.
        fn cycle(&mut self, c: u64, inp: &mut KernelIn, hbm: &mut Hbm) -> KernelOut {
            let mut out = KernelOut::default();
            inp.rx_awready = true;
            match self.cmd {
                None => out.rx_cmd_tready = (self.ready)(c),
                Some((addr, words, qpn, None)) => {
                    out.rx_data_tready = true;
                    if inp.rx_data_tvalid {
                        self.beats.extend_from_slice(&inp.rx_data_tdata);
                        if inp.rx_data_tlast {
                            self.cmd = Some((addr, words, qpn, Some(c + 1)));
                        }
                    }
                }
                Some((addr, words, qpn, Some(aw))) => {
                    if c == aw {
                        out.rx_awvalid = true;
                        hbm.write_words(addr, &self.beats[..words]);
                        self.sts.push_back((c + self.sts_delay, qpn as u32));
                    } else if c > aw {
                        // Idle again: ready for the next command.
                        self.cmd = None;
                        self.beats.clear();
                        out.rx_cmd_tready = (self.ready)(c);
                    }
                }
            }
            if out.rx_cmd_tready && inp.rx_cmd_tvalid {
                let w = WrCommand::from_words(inp.rx_cmd_tdata);
                self.cmd = Some((w.vaddr, (w.len / WORD_BYTES) as usize, w.qpn, None));
                self.taken.push(w.qpn);
            }
            if let Some(&(at, qpn)) = self.sts.front() {
                if at <= c {
                    out.rx_sts_tvalid = true;
                    out.rx_sts_tdata = qpn;
                    if inp.rx_sts_tready {
                        self.sts.pop_front();
                    }
                }
            }
            out
        }
    }

    /// `cycle`, with replica 0 on the receive path through `rx` if given
    /// (otherwise every receive port of every replica stays idle).
    fn cycle_rx0(
        net: &mut Network,
        hbms: &mut [Hbm],
        c: u64,
        sends: &[Option<SqCommand>],
        mut rx: Option<&mut Rx0>,
    ) -> Vec<KernelIn> {
        net.deliver(c, hbms);
        (0..N)
            .map(|r| {
                let mut inp = KernelIn::default();
                net.drive(r, &mut inp);
                let send = sends.get(r).copied().flatten();
                let mut out = match rx.as_deref_mut() {
                    Some(rx) if r == 0 => rx.cycle(c, &mut inp, &mut hbms[0]),
                    _ => KernelOut::default(),
                };
                out.sq_tvalid = send.is_some();
                out.sq_tdata = send.map_or([0; 4], |s| s.pack());
                out.cq_tready = true;
                net.observe(r, &inp, &out, c, hbms);
                inp
            })
            .collect()
    }

    fn kernel_setup() -> (Network, Vec<Hbm>) {
        let mut net = Network::new(N, L, mailbox(), PTR, QPN_BASE);
        net.set_delivery(Delivery::Kernel);
        (net, (0..N).map(|_| Hbm::new(5, 3)).collect())
    }

    #[test]
    fn a_read_is_served_from_the_peers_hbm_and_lands_in_remote_rows_marked() {
        // Replica 0 reads the beat of replica 2's will_cert rows from slot 2
        // (a beat holds two rows at n = 3) into remote_rows[2]: L to the peer, its HBM read (5 cycles here), L
        // back; no completion. Through the model's rule, a READ response
        // lands in remote_rows and nowhere else.
        let (mut net, mut hbms) = setup();
        let mb = mailbox();
        let row = mb.vote_row(Region::WillCert, 2);
        let lanes: Vec<u32> = (0..16).map(|i| 100 + i).collect();
        hbms[2].write_words(addr(row), &lanes);
        let rr = mb.record(Region::RemoteRows, 0, 2);
        let read = SqCommand {
            opcode: RC_RDMA_READ_REQUEST,
            qpn: QPN_BASE + 2,
            last: false,
            laddr: addr(rr),
            raddr: addr(row),
            length: BEAT_BYTES,
            ..Default::default()
        };
        one(&mut net, &mut hbms, 3, 0, read);
        // Replica 2 overwrites its row after the request landed and its
        // HBM was read: the response holds the row as read.
        let seen = idle(&mut net, &mut hbms, 4, 3 + L + 1);
        hbms[2].write_words(addr(row), &[0; 16]);
        let later = idle(&mut net, &mut hbms, 3 + L + 1, 3 + 2 * L + 5 + 2);
        assert!(
            seen.is_empty() && later.is_empty(),
            "no completion for a READ"
        );
        assert_eq!(hbms[0].read_words(addr(rr), 16), lanes);
        let st = net.stats();
        assert_eq!(
            (st.reads[0], st.read_responses[2], st.malformed[0]),
            (1, 1, 0)
        );
        // A READ into another peer's record of remote_rows, or of two
        // beats, is malformed: the kernel never sends one.
        let mut bad = read;
        bad.laddr = addr(mb.record(Region::RemoteRows, 0, 1));
        one(&mut net, &mut hbms, 200, 0, bad);
        let mut two = read;
        two.length = 2 * BEAT_BYTES;
        one(&mut net, &mut hbms, 201, 0, two);
        assert_eq!(net.stats().malformed[0], 2);
        // And a WRITE into remote_rows is refused by the rule.
        assert!(net
            .guard(
                1,
                &Write {
                    word: rr,
                    data: vec![1; 16]
                }
            )
            .is_err());
    }

    #[test]
    fn through_a_kernel_a_write_completes_l_after_its_status_not_its_landing() {
        let (mut net, mut hbms) = kernel_setup();
        let mb = mailbox();
        let w = mb.vote(Region::WillCert, 2, 1);
        hbms[1].write_words(addr(w), &[vote_tag(0, 3), 42]);
        // The status comes 40 cycles after the write's AW.
        let mut rx = Rx0::new(|_| true, 40);
        let mut seen = vec![];
        for c in 0..120 {
            let sends: Vec<Option<SqCommand>> = (0..N)
                .map(|r| (r == 1 && c == 5).then(|| cmd(0, w, 2)))
                .collect();
            for (r, inp) in cycle_rx0(&mut net, &mut hbms, c, &sends, Some(&mut rx))
                .iter()
                .enumerate()
            {
                if inp.cq_tvalid {
                    seen.push((c, r));
                }
            }
        }
        // Landed, handed on, presented and taken at 15; its beat at 16,
        // its AW at 17, its status at 57: completed at 57 + L, where the
        // landing alone would have given 15 + L.
        assert_eq!(rx.taken, vec![QPN_BASE + 1]);
        assert_eq!(seen, vec![(57 + L, 1)]);
        assert_eq!(hbms[0].read_words(addr(w), 2), vec![vote_tag(0, 3), 42]);
        let st = net.stats();
        assert_eq!(
            (st.status_errors, st.rx_dropped[1], st.rx_wait_max[1]),
            (0, 0, 0)
        );
        assert!(!net.busy());
    }

    #[test]
    fn the_receive_queues_are_served_round_robin_one_write_at_a_time() {
        let (mut net, mut hbms) = kernel_setup();
        let mb = mailbox();
        // Replicas 1 and 2 each send three votes at cycles 5, 6 and 7, and
        // replica 1 three more at 8, 9 and 10: all land by 20, while the
        // kernel is not ready before 30.
        let mut rx = Rx0::new(|c| c >= 30, 2);
        for c in 0..400 {
            let sends: Vec<Option<SqCommand>> = (0..N)
                .map(|r| {
                    let slot = c as usize - 5;
                    let n = if r == 1 { 6 } else { 3 };
                    (r > 0 && (5..5 + n).contains(&c))
                        .then(|| cmd(0, mb.vote(Region::WillCert, slot, r), 2))
                })
                .collect();
            cycle_rx0(&mut net, &mut hbms, c, &sends, Some(&mut rx));
        }
        let (a, b) = (QPN_BASE + 1, QPN_BASE + 2);
        assert_eq!(rx.taken, vec![a, b, a, b, a, b, a, a, a]);
        let st = net.stats();
        assert_eq!(st.rx_depth_max[1], 6);
        assert_eq!(st.rx_depth_max[2], 3);
        assert_eq!(st.completions[1], 6);
        assert_eq!(st.completions[2], 3);
        assert_eq!(st.status_errors, 0);
        assert!(!net.busy());
    }

    #[test]
    fn a_full_receive_queue_drops_the_write_and_never_acknowledges_it() {
        let (mut net, mut hbms) = kernel_setup();
        let mb = mailbox();
        // Replica 1 sends RX_QP_DEPTH + 2 votes while the kernel is not
        // ready: two are dropped, and only the others complete.
        let sent = RX_QP_DEPTH + 2;
        let mut rx = Rx0::new(|c| c >= 100, 2);
        for c in 0..1000 {
            let sends: Vec<Option<SqCommand>> = (0..N)
                .map(|r| {
                    let i = c as usize;
                    (r == 1 && (5..5 + sent).contains(&i))
                        .then(|| cmd(0, mb.vote(Region::WillCert, (i - 5) % 16, 1), 2))
                })
                .collect();
            cycle_rx0(&mut net, &mut hbms, c, &sends, Some(&mut rx));
        }
        let st = net.stats();
        assert_eq!(st.rx_dropped[1], 2);
        assert_eq!(st.rx_depth_max[1], RX_QP_DEPTH as u64);
        assert_eq!(rx.taken.len(), RX_QP_DEPTH);
        assert_eq!(st.completions[1], RX_QP_DEPTH as u64);
    }

    #[test]
    fn a_status_naming_another_queue_pair_is_counted() {
        let (mut net, mut hbms) = kernel_setup();
        let mb = mailbox();
        let w = mb.vote(Region::WillCert, 2, 1);
        let mut rx = Rx0::new(|_| true, 3);
        for c in 0..100 {
            let sends: Vec<Option<SqCommand>> = (0..N)
                .map(|r| (r == 1 && c == 5).then(|| cmd(0, w, 2)))
                .collect();
            if c == 18 {
                // The status due at 20 names replica 2's queue pair.
                rx.sts.front_mut().unwrap().1 = (QPN_BASE + 2) as u32;
            }
            cycle_rx0(&mut net, &mut hbms, c, &sends, Some(&mut rx));
        }
        assert_eq!(net.stats().status_errors, 1);
    }

    #[test]
    fn a_vote_lands_l_cycles_later_and_completes_l_after_that() {
        let (mut net, mut hbms) = setup();
        let mb = mailbox();
        let w = mb.vote(Region::WillCert, 2, 1);
        hbms[1].write_words(addr(w), &[vote_tag(0, 3), 42]);
        idle(&mut net, &mut hbms, 0, 5);
        one(&mut net, &mut hbms, 5, 1, cmd(0, w, 2));
        // The payload was read at 5: a later local change is not sent.
        hbms[1].write_words(addr(w), &[0, 0]);
        idle(&mut net, &mut hbms, 6, 15);
        assert_eq!(hbms[0].read_words(addr(w), 2), vec![0, 0]);
        let cq = idle(&mut net, &mut hbms, 15, 40);
        assert_eq!(hbms[0].read_words(addr(w), 2), vec![vote_tag(0, 3), 42]);
        let done = CqCompletion {
            ssn: 0,
            cmplt: true,
            ..Default::default()
        };
        assert_eq!(cq, vec![(25, 1, done)]); // landed at 15, + L
        assert_eq!(net.stats().accepted[1][0], 1);
        assert_eq!(net.stats().delivered[1][0], 1);
        assert_eq!(net.stats().completions[1], 1);
        assert!(!net.busy());
    }

    /// A staged WRITE (`host` = 1): the stack asks the sender's kernel for
    /// the payload the cycle after taking the command, sends it the cycle
    /// the beat comes back, whatever the sender's HBM holds, and a WRITE
    /// read from HBM that was taken after it waits for it (command order).
    #[test]
    fn a_staged_write_sends_the_payload_its_kernel_hands_over_in_command_order() {
        let (mut net, mut hbms) = setup();
        let mb = mailbox();
        let w = mb.vote(Region::WillCert, 2, 1);
        let c2 = mb.vote(Region::WillCommit, 2, 1);
        // HBM does not hold the staged record (its local write is not in).
        hbms[1].write_words(addr(w), &[0, 0]);
        hbms[1].write_words(addr(c2), &[vote_tag(0, 3), 7]);
        let staged = SqCommand {
            host: true,
            ..cmd(0, w, 2)
        };
        let mut asked = vec![];
        // The kernel answers each read the cycle after it takes it.
        let mut answer: Option<[u32; 16]> = None;
        for c in 0..40u64 {
            net.deliver(c, &mut hbms);
            // Sent at 8, when the beat came: lands at 8 + L = 18.
            let landed = hbms[0].read_words(addr(w), 2) == vec![vote_tag(0, 3), 42];
            assert_eq!(landed, c >= 8 + L, "cycle {c}");
            for r in 0..N {
                let mut inp = KernelIn::default();
                net.drive(r, &mut inp);
                let mut out = KernelOut::default();
                if r == 1 {
                    let send = match c {
                        5 => Some(staged),
                        6 => Some(cmd(0, c2, 2)),
                        _ => None,
                    };
                    out.sq_tvalid = send.is_some();
                    out.sq_tdata = send.map_or([0; 4], |s| s.pack());
                    // The read is held one cycle before it is taken.
                    out.tx_cmd_tready = c >= 7;
                    if let Some(beat) = answer.take() {
                        out.tx_data_tvalid = true;
                        out.tx_data_tdata = beat;
                        out.tx_data_tkeep = 0xff;
                        out.tx_data_tlast = true;
                    }
                    if inp.tx_cmd_tvalid && out.tx_cmd_tready {
                        let m = WrCommand::from_words(inp.tx_cmd_tdata);
                        asked.push((c, m));
                        let mut beat = [0u32; 16];
                        beat[0] = vote_tag(0, 3);
                        beat[1] = 42;
                        answer = Some(beat);
                    }
                }
                out.cq_tready = true;
                net.observe(r, &inp, &out, c, &hbms);
            }
        }
        // Asked from 6 (the cycle after the command), taken at 7: the
        // memCmd names laddr, the length, host and the queue pair.
        assert_eq!(asked.len(), 1);
        let (at, m) = asked[0];
        assert_eq!(at, 7);
        assert_eq!(
            (m.vaddr, m.len, m.host, m.qpn),
            (addr(w), 8, true, QPN_BASE)
        );
        // Sent at 8, when the beat came: lands at 8 + L = 18, with the
        // staged payload, not HBM's; the WRITE behind it is sent with it.
        assert_eq!(hbms[0].read_words(addr(w), 2), vec![vote_tag(0, 3), 42]);
        assert_eq!(hbms[0].read_words(addr(c2), 2), vec![vote_tag(0, 3), 7]);
        assert_eq!(net.stats().accepted[1][0], 2);
        assert!(!net.busy());
    }

    #[test]
    fn completions_are_held_until_cq_tready_and_numbered_per_queue_pair() {
        let (mut net, mut hbms) = setup();
        let w = mailbox().vote(Region::WillCommit, 0, 2);
        one(&mut net, &mut hbms, 0, 2, cmd(0, w, 2));
        one(&mut net, &mut hbms, 1, 2, cmd(0, w, 2));
        one(&mut net, &mut hbms, 2, 2, cmd(1, w, 2));
        let mut no_last = cmd(1, w, 2);
        no_last.last = false;
        one(&mut net, &mut hbms, 3, 2, no_last);
        idle(&mut net, &mut hbms, 4, 20);
        // Valid from 20, 21, 22; cq_tready low until 24.
        let mut seen = Vec::new();
        for c in 20..30 {
            net.deliver(c, &mut hbms);
            let mut inp = KernelIn::default();
            net.drive(2, &mut inp);
            let out = KernelOut {
                cq_tready: c >= 24,
                ..Default::default()
            };
            net.observe(2, &inp, &out, c, &hbms);
            if inp.cq_tvalid {
                seen.push((c, CqCompletion::unpack(inp.cq_tdata).ssn));
            }
        }
        assert_eq!(
            seen,
            vec![
                (20, 0),
                (21, 0),
                (22, 0),
                (23, 0),
                (24, 0),
                (25, 1),
                (26, 0)
            ]
        );
        assert_eq!(net.stats().completions[2], 3);
    }

    #[test]
    fn delays_add_latency_and_keep_each_queue_pair_in_order() {
        let (mut net, mut hbms) = setup();
        net.add_delay(0, 1, 20, 0, 1);
        let mb = mailbox();
        let a = mb.vote(Region::WillCert, 0, 0);
        let b = mb.vote(Region::WillCert, 1, 0);
        hbms[0].write_words(addr(a), &[1, 1]);
        hbms[0].write_words(addr(b), &[2, 2]);
        // First cycle each of (1, a), (1, b), (2, a) holds its data.
        let mut first = [None; 3];
        for c in 0..40 {
            let sends = match c {
                0 => vec![Some(cmd(1, a, 2))], // delayed: 0 + L + 20 = 30
                1 => vec![Some(cmd(1, b, 2))], // 11, but held behind a: 30
                2 => vec![Some(cmd(2, a, 2))], // another pair: 12
                _ => vec![],
            };
            cycle(&mut net, &mut hbms, c, &sends);
            let seen = [
                hbms[1].read_words(addr(a), 1)[0],
                hbms[1].read_words(addr(b), 1)[0],
                hbms[2].read_words(addr(a), 1)[0],
            ];
            for (f, v) in first.iter_mut().zip(seen) {
                if v != 0 && f.is_none() {
                    *f = Some(c);
                }
            }
        }
        assert_eq!(first, [Some(30), Some(30), Some(12)]);
    }

    #[test]
    fn sq_tready_follows_its_pattern() {
        let (mut net, mut hbms) = setup();
        net.set_sq_ready(
            0,
            Ready::Every {
                period: 3,
                phase: 0,
            },
        );
        net.set_sq_ready(1, Ready::LowDuring { from: 2, to: 4 });
        let ready: Vec<(bool, bool)> = (0..7)
            .map(|c| {
                let i = cycle(&mut net, &mut hbms, c, &[]);
                (i[0].sq_tready, i[1].sq_tready)
            })
            .collect();
        let r0: Vec<bool> = ready.iter().map(|r| r.0).collect();
        let r1: Vec<bool> = ready.iter().map(|r| r.1).collect();
        assert_eq!(r0, [true, false, false, true, false, false, true]);
        assert_eq!(r1, [true, true, false, false, true, true, true]);
        // A command not accepted is not sent.
        let w = mailbox().vote(Region::WillCert, 0, 0);
        one(&mut net, &mut hbms, 7, 0, cmd(1, w, 2));
        assert_eq!(net.stats().accepted[0][1], 0);
    }

    #[test]
    fn malformed_commands_are_counted_by_kind() {
        let (mut net, mut hbms) = setup();
        let w = mailbox().vote(Region::WillCert, 0, 0);
        let ok = cmd(1, w, 2);
        let end = mailbox().end();
        // A word more than the longest record (new_view's stride).
        let too_long = (max_record_words(&mailbox()) as u64 + 1) * WORD_BYTES;
        let bad = [
            cmd(0, w, 2), // to itself
            SqCommand {
                qpn: QPN_BASE + 3,
                ..ok
            },
            SqCommand { qpn: 2, ..ok },
            SqCommand { opcode: 0x06, ..ok },
            // Staged, and longer than the beat a staged payload is.
            SqCommand {
                host: true,
                length: 2 * BEAT_BYTES,
                ..ok
            },
            SqCommand { length: 6, ..ok },
            SqCommand {
                length: too_long,
                ..ok
            },
            SqCommand { length: 0, ..ok },
            SqCommand {
                laddr: addr(w) + 2,
                raddr: addr(w) + 2,
                ..ok
            },
            SqCommand {
                raddr: addr(w + 2),
                ..ok
            },
            SqCommand {
                laddr: PTR - 4,
                raddr: PTR - 4,
                ..ok
            },
            cmd(1, end - 1, 2),
        ];
        for (c, b) in bad.iter().enumerate() {
            one(&mut net, &mut hbms, c as u64, 0, *b);
        }
        let kinds: Vec<MalformedKind> = net.stats().malformed_log.iter().map(|m| m.kind).collect();
        use MalformedKind::*;
        assert_eq!(
            kinds,
            vec![
                NoConnection { qpn: QPN_BASE },
                NoConnection { qpn: QPN_BASE + 3 },
                NoConnection { qpn: 2 },
                Opcode(0x06),
                HostMemory,
                Length(6),
                Length(too_long),
                Length(0),
                Unaligned(addr(w) + 2),
                AddrMismatch {
                    laddr: addr(w),
                    raddr: addr(w + 2)
                },
                OutsideBuffer {
                    laddr: PTR - 4,
                    length: 8
                },
                OutsideBuffer {
                    laddr: addr(end - 1),
                    length: 8
                },
            ]
        );
        assert_eq!(net.stats().malformed, vec![12, 0, 0]);
        assert_eq!(net.stats().malformed_log[3].cycle, 3);
        idle(&mut net, &mut hbms, 12, 40);
        assert_eq!(net.stats().accepted[0], vec![0, 0, 0]);
        assert!(!net.busy());
    }

    /// Sends `data` at `word` from `src` to `dst` at cycle 0 and runs past
    /// the landing; returns the refusals.
    fn try_write(
        src: usize,
        dst: usize,
        word: usize,
        data: &[u32],
        pre: &[(usize, Vec<u32>)],
    ) -> (Vec<RefuseReason>, Vec<u32>) {
        let (mut net, mut hbms) = setup();
        for (at, d) in pre {
            hbms[dst].write_words(addr(*at), d);
        }
        hbms[src].write_words(addr(word), data);
        one(&mut net, &mut hbms, 0, src, cmd(dst, word, data.len()));
        idle(&mut net, &mut hbms, 1, L + 2);
        let reasons = net.stats().refusal_log.iter().map(|r| r.reason).collect();
        assert_eq!(
            net.stats().refused[src] as usize,
            net.stats().refusal_log.len()
        );
        (reasons, hbms[dst].read_words(addr(word), data.len()))
    }

    #[test]
    fn slot_guard_lets_a_replica_write_only_its_own_slots() {
        let mb = mailbox();
        // Own vote, own share, own seal and echo of a seal: landed.
        for w in [
            mb.vote(Region::WillCommit, 4, 1),
            mb.share(3, 1),
            mb.record(Region::Seal, 0, 1),
            mb.record(Region::EchoSeal, 0, 1),
        ] {
            assert_eq!(try_write(1, 0, w, &[5, 6], &[]), (vec![], vec![5, 6]));
        }
        // Another node's vote.
        let other = mb.vote(Region::WillCommit, 4, 2);
        assert_eq!(
            try_write(1, 0, other, &[5, 6], &[]).0,
            vec![RefuseReason::NotOwner {
                word: other,
                owner: Some(2)
            }]
        );
        // Own vote spilling into the next node's.
        let own = mb.vote(Region::WillCommit, 0, 1);
        assert_eq!(
            try_write(1, 0, own, &[1, 2, 3], &[]).0,
            vec![RefuseReason::NotOwner {
                word: own + 2,
                owner: Some(2)
            }]
        );
        // Padding after the row (R = 8 words for n = 3), a gap between
        // regions, outside.
        let pad = mb.vote_row(Region::WillCert, 0) + 6;
        assert_eq!(
            try_write(1, 0, pad, &[1], &[]).0,
            vec![RefuseReason::NotOwner {
                word: pad,
                owner: None
            }]
        );
        let gap = mb.base(Region::Prepare) + mb.span(Region::Prepare).words;
        assert!(mb.locate(gap).is_none());
        assert_eq!(
            try_write(1, 0, gap, &[1], &[]).0,
            vec![RefuseReason::NotOwner {
                word: gap,
                owner: None
            }]
        );
        assert_eq!(
            try_write(1, 0, 100, &[1], &[]).0,
            vec![RefuseReason::NotOwner {
                word: 100,
                owner: None
            }]
        );
    }

    #[test]
    fn slot_guard_lets_only_the_views_leader_write_prepare_and_new_view() {
        let mb = mailbox();
        let p = mb.prepare(5);
        // View 4 is led by 4 mod 3 = 1.
        assert_eq!(
            try_write(1, 2, p, &[6, 99, 4, 0], &[]),
            (vec![], vec![6, 99, 4, 0])
        );
        assert_eq!(
            try_write(0, 2, p, &[6, 99, 4, 0], &[]),
            (
                vec![RefuseReason::NotLeader {
                    region: Region::Prepare,
                    view: 4
                }],
                vec![0; 4]
            )
        );
        // Without its view word, or across two slots.
        let shape = RefuseReason::Shape {
            region: Region::Prepare,
        };
        assert_eq!(try_write(1, 2, p, &[6, 99], &[]).0, vec![shape]);
        assert_eq!(try_write(1, 2, p + 14, &[4, 0, 7, 8], &[]).0, vec![shape]);
        let nv = mb.base(Region::NewViewRecord);
        assert_eq!(try_write(2, 0, nv, &[5, 1, 2, 3], &[]).0, vec![]);
        assert_eq!(
            try_write(1, 0, nv, &[5, 1, 2, 3], &[]).0,
            vec![RefuseReason::NotLeader {
                region: Region::NewViewRecord,
                view: 5
            }]
        );
    }

    /// Drops every write and adds one into another node's slot.
    struct DropAndForge;
    impl Adversary for DropAndForge {
        fn transform(&mut self, _src: usize, _dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
            let other = mailbox().vote(Region::WillCommit, 0, 2);
            vec![Write {
                word: other,
                data: write.data,
            }]
        }
    }

    #[test]
    fn adversary_writes_still_pass_the_guard_and_completions_still_come() {
        let (mut net, mut hbms) = setup();
        net.set_adversary(1, Box::new(DropAndForge));
        let w = mailbox().vote(Region::WillCommit, 0, 1);
        hbms[1].write_words(addr(w), &[9, 9]);
        one(&mut net, &mut hbms, 0, 1, cmd(0, w, 2));
        let cq = idle(&mut net, &mut hbms, 1, 30);
        assert_eq!(cq.len(), 1);
        assert_eq!(cq[0].0, 2 * L);
        assert_eq!(net.stats().delivered[1][0], 0);
        assert_eq!(net.stats().refused[1], 1);
        assert_eq!(net.stats().refusal_log[0].cycle, L);
        assert_eq!(hbms[0].read_words(addr(w), 2), vec![0, 0]);
    }
}
