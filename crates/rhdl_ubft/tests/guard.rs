//! Guard, cycle by cycle: the stack's memory-write commands and payloads
//! go in, single-beat AXI writes come out for what the trust model allows,
//! and nothing of a refused write reaches HBM. Every rule, straddles, the
//! leader's regions in many views, back-pressure from HBM, reset in the
//! middle of a write, and a differential run against `guard::decide` (the
//! pure-Rust rule) over random and adversarial writes.

use std::collections::{BTreeMap, VecDeque};

use rhdl_ubft::guard::{
    check, check_command, decide, max_record_words, rule_for, Guard, GuardConfig, Refusal, Rule,
    BEATS, CHECK_CYCLES, LEADER_CYCLES, REASONS,
};
use rhdl_ubft::io::roce::QPNS_BITS;
use rhdl_ubft::io::roce::{wr_data_beats, WrCommand, WR_CMD_BITS};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{BEAT_WORDS, G, N as BUILD_N, SB};
use rust_hdl::prelude::*;

/// `network_ptr`: 4 KiB aligned, above 4 GiB so the upper address bits count.
const PTR: u64 = 0x1_0000_0000;
/// Peer i is on local queue pair `QPN_BASE + 3 i` (not contiguous on purpose).
const QPN_BASE: u64 = 40;

fn qpn(i: usize) -> u64 {
    QPN_BASE + 3 * i as u64
}

fn addr(word: usize) -> u64 {
    PTR + 4 * word as u64
}

/// One packet as the stack hands it over: the command and its payload
/// beats `(words, tlast)`.
#[derive(Clone, Debug)]
struct Packet {
    cmd: WrCommand,
    payload: Vec<u32>,
    beats: Vec<([u32; 16], bool)>,
}

impl Packet {
    /// A well-formed RDMA WRITE from peer `from` of `payload` at `word`.
    fn write(from: usize, word: usize, payload: &[u32]) -> Packet {
        Self::raw(
            WrCommand::write(qpn(from), addr(word), 4 * payload.len() as u64),
            payload,
        )
    }

    /// Any command, with `payload` as its beats (lane 0 first).
    fn raw(cmd: WrCommand, payload: &[u32]) -> Packet {
        let beats = if payload.is_empty() && cmd.len == 0 {
            vec![]
        } else {
            wr_data_beats(payload)
                .into_iter()
                .map(|(d, _, l)| (d, l))
                .collect()
        };
        Packet {
            cmd,
            payload: payload.to_vec(),
            beats,
        }
    }
}

/// When an AXI ready is high, by cycle.
type Knob = Box<dyn Fn(u64) -> bool>;

/// What the testbench saw.
#[derive(Default, Debug)]
struct Trace {
    /// Cycle each command was taken.
    cmds: Vec<u64>,
    /// Cycle each payload beat was taken.
    beats: Vec<u64>,
    /// AW handshakes (cycle, address) and W handshakes (cycle).
    aws: Vec<(u64, u64)>,
    ws: Vec<u64>,
    /// B handshakes.
    bs: Vec<u64>,
    /// Cycles `landed` was high.
    landed: Vec<u64>,
    /// Counters after each command's decision (snapshot when the next
    /// command is taken, and at the end).
    counters: Vec<Counters>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counters {
    accepted: u64,
    write_errors: u64,
    refused: [u64; REASONS],
    by: Vec<u64>,
}

struct Bench<const N: usize> {
    g: Guard<N>,
    mb: Mailbox,
    cfg: GuardConfig,
    cycle: u64,
    cmds: VecDeque<Packet>,
    data: VecDeque<([u32; 16], bool)>,
    /// HBM, by word index from `network_ptr`.
    hbm: BTreeMap<u64, u32>,
    aw_q: VecDeque<u64>,
    w_q: VecDeque<(Vec<u32>, u64)>,
    b_due: VecDeque<u64>,
    awready: Knob,
    wready: Knob,
    /// Cycles from a write's last handshake to its B response.
    b_latency: u64,
    bresp: u64,
    /// The payload is offered only on cycles where this is true.
    data_ready: Knob,
    /// Commands are offered only on cycles where this is true (RxStatus
    /// holds TVALID low while its status FIFO is full; TDATA stays).
    cmd_ready: Knob,
    rst_at: Vec<u64>,
    trace: Trace,
    held_aw: Option<u64>,
    held_w: Option<(Vec<u32>, u64)>,
    /// Every cycle's inputs and outputs, packed as `vectors` packs them
    /// (for the Verilog replay), when recording.
    rec: Option<Vec<(Vec<u32>, Vec<u32>)>>,
}

impl<const N: usize> Bench<N> {
    fn new(g: Guard<N>, mb: Mailbox, n: usize, id: usize) -> Self {
        let mut g = g;
        g.clock.connect();
        g.rst_n.connect();
        g.network_ptr.connect();
        g.n.connect();
        g.id.connect();
        g.qpns.connect();
        g.wr_cmd_tdata.connect();
        g.wr_cmd_tvalid.connect();
        g.wr_data_tdata.connect();
        g.wr_data_tkeep.connect();
        g.wr_data_tlast.connect();
        g.wr_data_tvalid.connect();
        g.awready.connect();
        g.wready.connect();
        g.bresp.connect();
        g.bvalid.connect();
        g.connect_all();
        Bench {
            g,
            mb,
            cfg: GuardConfig {
                network_ptr: PTR,
                n,
                id,
                qpns: (0..BUILD_N).map(qpn).collect(),
            },
            cycle: 0,
            cmds: VecDeque::new(),
            data: VecDeque::new(),
            hbm: BTreeMap::new(),
            aw_q: VecDeque::new(),
            w_q: VecDeque::new(),
            b_due: VecDeque::new(),
            awready: Box::new(|_| true),
            wready: Box::new(|_| true),
            b_latency: 3,
            bresp: 0,
            data_ready: Box::new(|_| true),
            cmd_ready: Box::new(|_| true),
            rst_at: vec![],
            trace: Trace::default(),
            held_aw: None,
            held_w: None,
            rec: None,
        }
    }

    fn send(&mut self, p: Packet) {
        self.data.extend(p.beats.iter().copied());
        self.cmds.push_back(p);
    }

    fn counters(&self) -> Counters {
        let by = self.g.sts_refused_by.val();
        Counters {
            accepted: self.g.sts_accepted.val().to_u64(),
            write_errors: self.g.sts_write_errors.val().to_u64(),
            refused: [
                self.g.sts_refused_unknown_qp.val().to_u64(),
                self.g.sts_refused_length.val().to_u64(),
                self.g.sts_refused_unaligned.val().to_u64(),
                self.g.sts_refused_outside.val().to_u64(),
                self.g.sts_refused_data.val().to_u64(),
                self.g.sts_refused_not_owner.val().to_u64(),
                self.g.sts_refused_not_leader.val().to_u64(),
                self.g.sts_refused_shape.val().to_u64(),
                self.g.sts_refused_unchecked.val().to_u64(),
            ],
            by: (0..BUILD_N)
                .map(|i| by.get_bits::<32>(32 * i).to_u64())
                .collect(),
        }
    }

    /// One clock cycle.
    fn step(&mut self) {
        let c = self.cycle;
        let g = &mut self.g;
        g.rst_n.next = !self.rst_at.contains(&c);
        g.network_ptr.next = PTR.into();
        g.n.next = (self.cfg.n as u64).into();
        g.id.next = (self.cfg.id as u64).into();
        let mut q = Bits::<QPNS_BITS>::default();
        for (i, v) in self.cfg.qpns.iter().enumerate() {
            q.set_bits::<10>(10 * i, (*v).into());
        }
        g.qpns.next = q;
        let mut t = Bits::<WR_CMD_BITS>::default();
        let front = self.cmds.front().map(|p| p.cmd.pack()).unwrap_or(0);
        t.set_bits::<64>(0, (front as u64).into());
        t.set_bits::<32>(64, ((front >> 64) as u64).into());
        g.wr_cmd_tdata.next = t;
        g.wr_cmd_tvalid.next = (self.cmd_ready)(c) && !self.cmds.is_empty();
        let offer = (self.data_ready)(c);
        let (d, last) = self.data.front().copied().unwrap_or(([0; 16], false));
        let mut beat = Bits::<512>::default();
        for (i, w) in d.iter().enumerate() {
            beat.set_bits::<32>(32 * i, (*w as u64).into());
        }
        g.wr_data_tdata.next = beat;
        g.wr_data_tkeep.next = u64::MAX.into();
        g.wr_data_tlast.next = last;
        g.wr_data_tvalid.next = offer && !self.data.is_empty();
        g.awready.next = (self.awready)(c);
        g.wready.next = (self.wready)(c);
        let bvalid = self.b_due.front().is_some_and(|&due| due <= c);
        g.bvalid.next = bvalid;
        g.bresp.next = self.bresp.into();
        g.clock.next = Clock::from(false);
        assert!(simulate(g, 200));
        if let Some(rec) = self.rec.as_mut() {
            rec.push(vectors(g));
        }
        let g = &mut self.g;

        // Handshakes of this cycle.
        if g.wr_cmd_tvalid.val() && g.wr_cmd_tready.val() {
            self.cmds.pop_front();
            self.trace.cmds.push(c);
            let snap = self.counters();
            self.trace.counters.push(snap);
        }
        let g = &mut self.g;
        if g.wr_data_tvalid.val() && g.wr_data_tready.val() {
            self.data.pop_front();
            self.trace.beats.push(c);
        }
        assert!(g.bready.val(), "bready is always high");
        if g.landed.val() {
            self.trace.landed.push(c);
        }
        if bvalid {
            self.b_due.pop_front();
            self.trace.bs.push(c);
        }
        // AXI: a valid payload is held until its ready.
        if let Some(a) = self.held_aw.take() {
            assert!(g.awvalid.val(), "cycle {c}: awvalid dropped before awready");
            assert_eq!(g.awaddr.val().to_u64(), a, "cycle {c}: awaddr changed");
        }
        if let Some(w) = self.held_w.take() {
            assert!(g.wvalid.val(), "cycle {c}: wvalid dropped before wready");
            let now = (
                (0..16)
                    .map(|i| g.wdata.val().get_bits::<32>(32 * i).to_u32())
                    .collect::<Vec<_>>(),
                g.wstrb.val().to_u64(),
            );
            assert_eq!(now, w, "cycle {c}: W changed while held");
        }
        if g.awvalid.val() {
            assert_eq!(g.awlen.val().to_u64(), 0);
            assert_eq!(g.awsize.val().to_u64(), 6);
            assert_eq!(g.awburst.val().to_u64(), 1);
            assert_eq!(g.awaddr.val().to_u64() % 64, 0, "beat-aligned");
            if g.awready.val() {
                self.aw_q.push_back(g.awaddr.val().to_u64());
                self.trace.aws.push((c, g.awaddr.val().to_u64()));
            } else {
                self.held_aw = Some(g.awaddr.val().to_u64());
            }
        }
        if g.wvalid.val() {
            assert!(g.wlast.val());
            let w = (
                (0..16)
                    .map(|i| g.wdata.val().get_bits::<32>(32 * i).to_u32())
                    .collect::<Vec<_>>(),
                g.wstrb.val().to_u64(),
            );
            if g.wready.val() {
                self.w_q.push_back(w);
                self.trace.ws.push(c);
            } else {
                self.held_w = Some(w);
            }
        }
        while let (Some(&a), Some(_)) = (self.aw_q.front(), self.w_q.front()) {
            let (data, strb) = self.w_q.pop_front().unwrap();
            self.aw_q.pop_front();
            for (i, v) in data.iter().enumerate() {
                let s = (strb >> (4 * i)) & 0xf;
                assert!(s == 0 || s == 0xf, "strobes cover whole words");
                if s == 0xf {
                    self.hbm.insert((a - PTR) / 4 + i as u64, *v);
                }
            }
            self.b_due.push_back(c + self.b_latency);
        }
        self.g.clock.next = Clock::from(true);
        assert!(simulate(&mut self.g, 200));
        self.cycle += 1;
    }

    /// Runs until every packet is taken and the guard is idle again (or
    /// `max` cycles).
    fn run(&mut self, max: u64) {
        let mut quiet = 0;
        while self.cycle < max {
            self.step();
            let idle = self.cmds.is_empty()
                && self.data.is_empty()
                && self.b_due.is_empty()
                && !self.g.awvalid.val()
                && !self.g.wvalid.val();
            quiet = if idle { quiet + 1 } else { 0 };
            if quiet > CHECK_CYCLES + LEADER_CYCLES + 4 {
                break;
            }
        }
        let snap = self.counters();
        self.trace.counters.push(snap);
    }

    /// The words at `word..word + len` of HBM (0 where never written).
    fn read(&self, word: usize, len: usize) -> Vec<u32> {
        (word..word + len)
            .map(|w| *self.hbm.get(&(w as u64)).unwrap_or(&0))
            .collect()
    }
}

/// The default build's layout (N = params::N, G, SB).
fn mb() -> Mailbox {
    Mailbox::v3(BUILD_N, G, SB)
}

/// The default build's guard, a replica of `n` with id `id`.
fn bench(n: usize, id: usize) -> Bench<BUILD_N> {
    Bench::new(Guard::default(), mb(), n, id)
}

fn refused(r: Refusal) -> [u64; REASONS] {
    let mut a = [0; REASONS];
    a[r.code() as usize - 1] = 1;
    a
}

fn by(sender: Option<usize>) -> Vec<u64> {
    (0..BUILD_N).map(|i| (Some(i) == sender) as u64).collect()
}

#[test]
fn an_own_vote_lands_six_cycles_after_its_command() {
    let mut b = bench(3, 0);
    let w = mb().vote(Region::WillCert, 2, 1);
    b.send(Packet::write(1, w, &[0x0100_0003, 0xCAFE_F00D]));
    b.send(Packet::write(2, mb().vote(Region::WillCert, 2, 2), &[7, 8]));
    b.run(60);
    let t = &b.trace;
    // Taken at 0, the payload at 1, decided at 5; AW and W at 0 + 6; the
    // next command at 7. It was presented from 1, so its checks are done:
    // its payload at 8, decided at 9, AW and W at 10.
    assert_eq!(t.cmds, vec![0, 7]);
    assert_eq!(t.beats, vec![1, 8]);
    assert_eq!(t.aws[0], (6, (addr(w)) & !63));
    assert_eq!(t.ws, vec![6, 10]);
    assert_eq!(t.landed, vec![6, 10], "landed: both handshakes");
    assert_eq!(t.bs, vec![9, 13], "B three cycles later, never waited for");
    assert_eq!(b.read(w, 2), vec![0x0100_0003, 0xCAFE_F00D]);
    assert_eq!(b.read(w - 2, 2), vec![0, 0], "strobes: only the record");
    assert_eq!(b.read(w + 2, 2), vec![7, 8]);
    let end = t.counters.last().unwrap();
    assert_eq!(
        (end.accepted, end.refused, end.by.clone()),
        (2, [0; REASONS], by(None))
    );
    assert_eq!(t.counters[1].accepted, 1, "counted when its W is taken");
}

/// One write per rule, each refused whole; the counters say why and who.
#[test]
fn each_rule_refuses_whole_and_counts_by_reason_and_sender() {
    let m = mb();
    let vote = m.vote(Region::WillCommit, 4, 2);
    let max = max_record_words(&m);
    // The words after prepare, before prep_sig's alignment: in no region.
    let gap = m.base(Region::Prepare) + m.span(Region::Prepare).words;
    assert!(m.locate(gap).is_none() && gap < m.base(Region::PrepSig));
    let cases: Vec<(&str, Packet, Refusal, Option<usize>)> = vec![
        (
            "another node's vote",
            Packet::write(1, vote, &[1, 2]),
            Refusal::NotOwner,
            Some(1),
        ),
        (
            "padding after the row (R = 16 words, n = 3 writes 6)",
            Packet::write(2, m.vote_row(Region::WillCommit, 4) + 10, &[1]),
            Refusal::NotOwner,
            Some(2),
        ),
        (
            "below the mailboxes (ubft_new's log)",
            Packet::write(2, 1000, &[1]),
            Refusal::NotOwner,
            Some(2),
        ),
        (
            "a gap between regions",
            Packet::write(2, gap, &[1]),
            Refusal::NotOwner,
            Some(2),
        ),
        (
            "prepare of a view it does not lead",
            Packet::write(2, m.prepare(3), &[4, 9, 4, 0]),
            Refusal::NotLeader,
            Some(2),
        ),
        (
            "prepare without its view word",
            Packet::write(1, m.prepare(3), &[4, 9]),
            Refusal::Shape,
            Some(1),
        ),
        (
            "the replica's own queue pair",
            Packet::raw(WrCommand::write(qpn(0), addr(vote), 8), &[1, 2]),
            Refusal::UnknownQp,
            None,
        ),
        (
            "a queue pair of no replica (peer 3 of n = 3)",
            Packet::raw(WrCommand::write(qpn(3), addr(vote), 8), &[1, 2]),
            Refusal::UnknownQp,
            None,
        ),
        (
            "length zero (no payload follows)",
            Packet::raw(WrCommand::write(qpn(2), addr(vote), 0), &[]),
            Refusal::Length,
            Some(2),
        ),
        (
            "length not whole words",
            Packet::raw(WrCommand::write(qpn(2), addr(vote), 6), &[1, 2]),
            Refusal::Length,
            Some(2),
        ),
        (
            "longer than the largest record",
            Packet::write(2, vote, &vec![5; max + 1]),
            Refusal::Length,
            Some(2),
        ),
        (
            "not on a word",
            Packet::raw(WrCommand::write(qpn(2), addr(vote) + 2, 8), &[1, 2]),
            Refusal::Unaligned,
            Some(2),
        ),
        (
            "below network_ptr",
            Packet::raw(WrCommand::write(qpn(2), PTR - 64, 8), &[1, 2]),
            Refusal::Outside,
            Some(2),
        ),
        (
            "past the buffer's end",
            Packet::write(2, m.end() - 1, &[1, 2]),
            Refusal::Outside,
            Some(2),
        ),
        (
            "address bits above 47",
            Packet::raw(WrCommand::write(qpn(2), addr(vote) | 1 << 50, 8), &[1, 2]),
            Refusal::Outside,
            Some(2),
        ),
        (
            "a SEND's payload (host = 0)",
            Packet::raw(
                WrCommand {
                    host: false,
                    ..WrCommand::write(qpn(2), addr(vote), 8)
                },
                &[1, 2],
            ),
            Refusal::Outside,
            Some(2),
        ),
    ];
    for (what, p, reason, sender) in cases {
        let mut b = bench(3, 0);
        let (cmd, payload, beats) = (p.cmd, p.payload.clone(), p.beats.len());
        b.send(p);
        // A good write after it, to see when the guard is free again.
        let own = mb().vote(Region::WillCert, 0, 1);
        b.send(Packet::write(1, own, &[3, 4]));
        b.run(80);
        let t = &b.trace;
        assert!(
            t.aws.iter().all(|&(_, a)| a == addr(own) & !63),
            "{what}: refused writes never reach AXI"
        );
        assert_eq!(b.hbm.len(), 2, "{what}: only the good write landed");
        // Decided at 5 (a leader's record: at 13), the next command at 6
        // (14). A payload longer than the buffer waits in the stack after
        // its first BEATS beats (taken at 1 and 2) and is drained from the
        // decision on, a beat a cycle from 6 (14): the next command at
        // B + 4 (B + 12) for B payload beats (docs/guard.md, Timing).
        let streamed = beats > BEATS;
        let next = match (reason == Refusal::NotLeader, streamed) {
            (true, false) => 14,
            (true, true) => beats as u64 + 12,
            (false, false) => 6,
            (false, true) => beats as u64 + 4,
        };
        assert_eq!(t.cmds[1], next, "{what}");
        let after = &t.counters[1];
        assert_eq!(after.refused, refused(reason), "{what}");
        assert_eq!(after.by, by(sender), "{what}");
        assert_eq!(after.accepted, 0, "{what}");
        assert_eq!(
            decide(&b.mb, &b.cfg, &cmd, &payload, beats)
                .err()
                .map(|e| e.0),
            Some(reason),
            "{what}: the reference agrees"
        );
        // A too-long payload is drained whole.
        if cmd.len > 4 * max as u64 {
            assert_eq!(t.beats.len(), beats + 1, "{what}");
        }
    }
}

/// The counters add up by reason and by sender; a refusal whose queue
/// pair names no replica is counted by reason only.
#[test]
fn refusals_are_counted_by_reason_and_by_sender() {
    let m = mb();
    let max = max_record_words(&m);
    let mut b = bench(5, 3);
    let other = m.vote(Region::WillCommit, 1, 0);
    b.send(Packet::write(1, other, &[1, 2])); // 1: not its entry
    b.send(Packet::write(1, other + 2, &[1, 2])); // 1: its own: lands
    b.send(Packet::write(2, other, &[1, 2])); // 2: not its entry
    b.send(Packet::write(2, m.prepare(0), &[1, 2, 7, 0])); // 2: view 7 is 2's: lands
    b.send(Packet::write(4, m.prepare(0), &[1, 2, 7, 0])); // 4: view 7 is not 4's
    b.send(Packet::write(4, m.prepare(0) + 1, &[2])); // 4: no view word
    b.send(Packet::write(4, m.share(0, 4), &vec![0; max + 1])); // 4: too long
    b.send(Packet::raw(
        WrCommand::write(qpn(3), addr(other), 8),
        &[1, 2],
    )); // own QP
    b.send(Packet::raw(WrCommand::write(999, addr(other), 8), &[1, 2])); // nobody's
    b.run(600);
    let end = b.trace.counters.last().unwrap().clone();
    let mut want = [0; REASONS];
    for (r, k) in [
        (Refusal::NotOwner, 2),
        (Refusal::NotLeader, 1),
        (Refusal::Shape, 1),
        (Refusal::Length, 1),
        (Refusal::UnknownQp, 2),
    ] {
        want[r.code() as usize - 1] = k;
    }
    assert_eq!(end.refused, want);
    assert_eq!(end.by, vec![0, 1, 1, 0, 3, 0, 0, 0]);
    assert_eq!(end.accepted, 2);
    assert_eq!(b.read(other + 2, 2), vec![1, 2]);
    assert_eq!(b.read(m.prepare(0), 4), vec![1, 2, 7, 0]);
}

#[test]
fn a_payload_whose_last_beat_disagrees_with_the_length_is_refused() {
    let mut b = bench(3, 0);
    let w = mb().vote(Region::WillCert, 0, 1);
    // 8 bytes announced, two beats sent (tlast on the second).
    let mut p = Packet::write(1, w, &[1, 2]);
    p.beats = vec![([1; 16], false), ([2; 16], true)];
    b.send(p);
    b.send(Packet::write(1, w, &[3, 4]));
    b.run(80);
    assert_eq!(b.trace.beats, vec![1, 2, 7]);
    assert_eq!(b.trace.cmds, vec![0, 6]);
    assert_eq!(b.trace.counters[1].refused, refused(Refusal::Data));
    assert_eq!(b.read(w, 2), vec![3, 4]);
}

#[test]
fn writes_across_two_entries_are_refused() {
    let m = mb();
    for (what, word, len) in [
        (
            "own vote into the next node's",
            m.vote(Region::WillCommit, 1, 1),
            3,
        ),
        (
            "the previous node's word and own vote",
            m.vote(Region::WillCommit, 1, 1) - 1,
            3,
        ),
        ("own share into the next node's", m.share(2, 1) + 8, 16),
        (
            "own seal into the next node's",
            m.record(Region::Seal, 0, 1) + 16,
            32,
        ),
        ("a prepare across two slots", m.prepare(1) + 14, 4),
        (
            "the last vote of a row past its region",
            m.vote(Region::WillCommit, G - 1, 7),
            3,
        ),
        (
            "the last seal into echo_seal",
            m.record(Region::Seal, 0, 7) + 16,
            32,
        ),
    ] {
        // n = 8, so that node 7 is a replica (the guard does not care that
        // n is even; the kernel refuses it).
        let mut b = bench(8, 5);
        let payload: Vec<u32> = (1..=len as u32).collect();
        // Written by the owner of the first word (or the leader of view 1).
        let sender = m.owner(word).unwrap_or(1);
        b.send(Packet::write(sender, word, &payload));
        b.run(40);
        assert!(b.trace.aws.is_empty(), "{what}");
        let reason = if m.locate(word).unwrap().0 == Region::Prepare {
            Refusal::Shape
        } else {
            Refusal::NotOwner
        };
        assert_eq!(
            b.trace.counters.last().unwrap().refused,
            refused(reason),
            "{what}"
        );
        assert_eq!(
            rhdl_ubft::guard::check(&m, b.cfg.n, sender, word, &payload),
            Err(reason),
            "{what}: the reference agrees"
        );
    }
}

/// A replica's own certify record, two beats: an aligned write is two AXI
/// writes in consecutive cycles; one that starts mid-beat lands shifted
/// across two beats; one across two records is refused.
#[test]
fn a_record_of_two_beats_is_written_beat_by_beat_at_any_word_offset() {
    let m = mb();
    let mut b = bench(5, 4);
    let share = m.record(Region::Certify, 3, 2);
    let data: Vec<u32> = (0..32).map(|i| 0x1000 + i).collect();
    b.send(Packet::write(2, share, &data));
    let part: Vec<u32> = (0..20).map(|i| 0x2000 + i).collect();
    b.send(Packet::write(2, share + 5, &part));
    b.send(Packet::write(2, share + 20, &data[..16]));
    b.run(80);
    let t = &b.trace;
    // Taken at 0, beats at 1 and 2; AW/W for beats 0 and 1 at 6 and 7.
    assert_eq!(t.cmds[..2], [0, 8]);
    assert_eq!(t.ws[..2], [6, 7]);
    assert_eq!(t.aws[0], (6, addr(share)));
    assert_eq!(t.aws[1], (7, addr(share) + 64));
    // The second, checked while the first was: words 5..25 of the share,
    // two payload beats (9, 10), decided at 11, two HBM beats.
    assert_eq!(t.aws[2..], [(12, addr(share)), (13, addr(share) + 64)]);
    let mut expect = data.clone();
    expect[5..25].copy_from_slice(&part);
    assert_eq!(b.read(share, 32), expect);
    let end = t.counters.last().unwrap();
    assert_eq!(end.accepted, 2);
    assert_eq!(end.refused, refused(Refusal::NotOwner));
    assert_eq!(end.by, by(Some(2)));
}

/// prepare and new_view take only the record of a view the sender leads,
/// for every n and for views up to 2^32 - 1.
#[test]
fn the_leaders_regions_take_only_the_views_leader() {
    let m = mb();
    let mut rng = Rng(7);
    for n in [3usize, 5, 7] {
        let mut views: Vec<u32> = (0..2 * n as u32 + 1).collect();
        views.extend([255, 256, 257, 1 << 24, 0x8000_0000, u32::MAX - 1, u32::MAX]);
        views.extend((0..4).map(|_| rng.next() as u32));
        let mut b = bench(n, n - 1);
        let mut want = vec![];
        for (k, &view) in views.iter().enumerate() {
            let from = k % (n - 1);
            let slot = k % G;
            if k % 5 == 4 {
                let rec = [view, slot as u32, k as u32, 0xAB];
                b.send(Packet::write(from, m.base(Region::NewViewRecord), &rec));
                want.push((
                    view as usize % n == from,
                    m.base(Region::NewViewRecord),
                    rec.to_vec(),
                ));
            } else {
                let rec = [k as u32 + 1, 0x5000 + k as u32, view, 0];
                b.send(Packet::write(from, m.prepare(slot), &rec));
                want.push((view as usize % n == from, m.prepare(slot), rec.to_vec()));
            }
        }
        b.run(40 * views.len() as u64);
        let t = &b.trace;
        let mut landed = 0;
        for (i, (ok, _, _)) in want.iter().enumerate() {
            // A leader's record: the view check adds LEADER_CYCLES, but for
            // a view below n (its own remainder; no view repeats here, so
            // the memo never holds one); a write takes one more cycle than
            // a refusal. The first is checked from its take
            // (CHECK_CYCLES); every later one from the cycle after the one
            // before it was taken, so it is decided the cycle after its
            // payload, or CHECK_CYCLES after it was first presented if the
            // one before went quicker (a refusal without a view check).
            let decided = if i == 0 {
                CHECK_CYCLES
            } else {
                (t.cmds[i - 1] + 1 + CHECK_CYCLES)
                    .saturating_sub(t.cmds[i])
                    .max(2)
            };
            let check = if (views[i] as usize) < n {
                0
            } else {
                LEADER_CYCLES
            };
            let spent = t.cmds.get(i + 1).copied().unwrap_or(b.cycle) - t.cmds[i];
            if i + 1 < t.cmds.len() {
                assert_eq!(
                    spent,
                    decided + check + 1 + *ok as u64,
                    "n = {n}, write {i}"
                );
            }
            landed += *ok as u64;
            assert_eq!(
                t.counters[i + 1].accepted,
                landed,
                "n = {n}, write {i} (view {})",
                views[i]
            );
        }
        let end = t.counters.last().unwrap();
        assert_eq!(
            end.refused[Refusal::NotLeader.code() as usize - 1],
            want.len() as u64 - landed
        );
        // The last landed record of each place is in HBM.
        let mut last: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        for (ok, w, rec) in &want {
            if *ok {
                last.insert(*w, rec.clone());
            }
        }
        for (w, rec) in last {
            assert_eq!(b.read(w, 4), rec, "n = {n}");
        }
    }
}

#[test]
fn a_leaders_record_lands_fourteen_cycles_after_its_command() {
    let mut b = bench(5, 0);
    let p = mb().prepare(7);
    b.send(Packet::write(3, p, &[8, 0xABCD, 13, 0])); // 13 mod 5 = 3
    b.send(Packet::write(2, p + 2, &[13])); // the view word alone, not its leader
    b.run(60);
    let t = &b.trace;
    assert_eq!(t.aws, vec![(14, addr(p) & !63)]);
    assert_eq!(t.cmds, vec![0, 15]);
    let end = t.counters.last().unwrap();
    assert_eq!(end.refused, refused(Refusal::NotLeader));
    assert_eq!(b.read(p, 4), vec![8, 0xABCD, 13, 0]);
}

/// HBM's back-pressure holds AW and W (payload stable) and the stack's
/// command stream; a late B response holds nothing; error responses are
/// counted.
#[test]
fn back_pressure_from_hbm_holds_the_write_and_the_stack() {
    let m = mb();
    let w1 = m.vote(Region::WillCommit, 5, 1);
    let w2 = m.vote(Region::WillCommit, 5, 2);
    let w3 = m.record(Region::Seal, 0, 2);
    let mut b = bench(3, 0);
    b.send(Packet::write(1, w1, &[1, 2]));
    b.send(Packet::write(2, w2, &[3, 4]));
    b.send(Packet::write(2, w3, &[5, 6, 7, 8]));
    // AW waits until 12, W until 10 for the first write; the second's W
    // waits until 22; B comes 40 cycles after each write.
    b.awready = Box::new(|c| c >= 12);
    b.wready = Box::new(|c| c >= 10 && !(16..22).contains(&c));
    b.b_latency = 40;
    b.bresp = 2;
    b.run(200);
    let t = &b.trace;
    // AW and W of the first at 12 and 10; the second (taken at 13, checked
    // while the first waited, decided at 15): AW at 16, W at 22; the
    // third's at 26 (taken at 23, decided at 25).
    assert_eq!(
        t.aws.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![12, 16, 26]
    );
    assert_eq!(t.ws, vec![10, 22, 26]);
    assert_eq!(t.landed, vec![12, 22, 26]);
    // The stack waits while a write is on AXI, not for B.
    assert_eq!(t.cmds, vec![0, 13, 23]);
    assert_eq!(t.bs, vec![52, 62, 66]);
    assert_eq!(b.read(w1, 2), vec![1, 2]);
    assert_eq!(b.read(w2, 2), vec![3, 4]);
    assert_eq!(b.read(w3, 4), vec![5, 6, 7, 8]);
    let end = t.counters.last().unwrap();
    assert_eq!((end.accepted, end.write_errors), (3, 3));
}

/// A payload that comes slowly is waited for; the decision follows its
/// last beat.
#[test]
fn a_slow_payload_is_waited_for() {
    let m = mb();
    let mut b = bench(3, 0);
    let share = m.record(Region::Certify, 0, 1);
    let data: Vec<u32> = (0..32).collect();
    b.send(Packet::write(1, share, &data));
    b.data_ready = Box::new(|c| c == 4 || c == 11);
    b.run(60);
    assert_eq!(b.trace.beats, vec![4, 11]);
    // Check from 12, the row results long ready: AW at 13.
    assert_eq!(
        b.trace.aws.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![13, 14]
    );
    assert_eq!(b.read(share, 32), data);
}

/// Reset abandons a write that has not reached AXI (nothing written),
/// drains the rest of its payload, finishes one that has, and clears the
/// counters.
#[test]
fn reset_abandons_or_finishes_a_write_but_never_writes_part_of_one() {
    let m = mb();
    let share = m.record(Region::Certify, 1, 1);
    let data: Vec<u32> = (0..32).map(|i| 0x7000 + i).collect();
    let vote = m.vote(Region::WillCert, 0, 2);
    let run = |rst: u64, awready_from: u64| {
        let mut b = bench(3, 0);
        b.send(Packet::write(2, vote, &[9, 9]));
        b.send(Packet::write(1, share, &data));
        b.send(Packet::write(2, vote, &[5, 6]));
        b.data_ready = Box::new(|c| c != 9);
        b.awready = Box::new(move |c| c < 10 || c >= awready_from);
        b.rst_at = vec![rst];
        b.run(100);
        b
    };
    let aws = |b: &Bench<BUILD_N>| b.trace.aws.iter().map(|a| a.0).collect::<Vec<_>>();
    // No reset: the first vote's AW at 6; the share taken at 7 (checked
    // while it was presented), its beats at 8 and 10 (the stack pauses at
    // 9), decided at 11, its two AXI writes at 12 and 13; the last vote
    // taken at 14, written at 17.
    let b = run(100, 0);
    assert_eq!(b.trace.cmds, vec![0, 7, 14]);
    assert_eq!(b.trace.beats, vec![1, 8, 10, 15]);
    assert_eq!(aws(&b), vec![6, 12, 13, 17]);
    // Reset at 0: no command is taken in a reset cycle; all one cycle later,
    // except that the share's beats (10, 11) now follow the pause at 9.
    let b = run(0, 0);
    assert_eq!(b.trace.cmds, vec![1, 8, 15]);

    // Reset at 9, between the share's two beats: the second is drained at
    // 10, nothing of the share is written. The last vote's checks start
    // again after the reset (presented from 10): taken at 11, decided at
    // 15, written at 16.
    let b = run(9, 0);
    assert_eq!(b.trace.beats, vec![1, 8, 10, 12]);
    assert_eq!(b.trace.cmds, vec![0, 7, 11]);
    assert_eq!(aws(&b), vec![6, 16]);
    assert_eq!(b.read(share, 32), vec![0; 32]);
    assert_eq!(b.read(vote, 2), vec![5, 6]);
    assert_eq!(b.trace.counters[2].accepted, 0, "cleared by the reset");

    // Reset at 11, the cycle the share is decided: abandoned.
    let b = run(11, 0);
    assert_eq!(b.trace.cmds, vec![0, 7, 12]);
    assert_eq!(aws(&b), vec![6, 18]);
    assert_eq!(b.read(share, 32), vec![0; 32]);
    assert_eq!(b.read(vote, 2), vec![5, 6]);

    // Reset at 13, between the share's two AXI writes: the second is still
    // written, so the share lands whole.
    let b = run(13, 0);
    assert_eq!(aws(&b), vec![6, 12, 13, 20]);
    assert_eq!(b.read(share, 32), data);
    assert_eq!(
        b.trace.counters.last().unwrap().accepted,
        1,
        "the share's count is cleared, the vote after it counts"
    );

    // Reset at 14 while the share's first AW waits for awready (from 16;
    // its W went at 12): held through the reset, then both beats written.
    let b = run(14, 16);
    assert_eq!(aws(&b), vec![6, 16, 17, 21]);
    assert_eq!(b.trace.ws[..3], [6, 12, 17]);
    assert_eq!(b.read(share, 32), data);

    // A reset that lasts: no command is taken while rst_n is low.
    let mut b = bench(3, 0);
    b.send(Packet::write(2, vote, &[1, 2]));
    b.rst_at = (0..5).collect();
    b.run(40);
    assert_eq!(b.trace.cmds, vec![5]);
}

/// xorshift64*, so the tests need no crate and replay exactly.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// docs/guard.md shows the default build's table as `GuardTable::markdown`
/// renders it.
#[test]
fn the_docs_show_the_default_builds_table() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guard.md"))
        .unwrap_or_default();
    let table = rhdl_ubft::guard::table(BUILD_N).markdown();
    assert!(
        page.contains(&table),
        "docs/guard.md lacks the table of the default build; paste:\n{table}"
    );
}

/// Appends `b` as 32-bit words, least significant first.
fn pack<const W: usize>(v: &mut Vec<u32>, b: Bits<W>) {
    for k in 0..W.div_ceil(32) {
        let mut w = 0u32;
        for j in 0..32 {
            if 32 * k + j < W && b.get_bit(32 * k + j) {
                w |= 1 << j;
            }
        }
        v.push(w);
    }
}

/// The guard's ports in the replay's order: (name, bits), inputs then
/// outputs; each field starts on a 32-bit word.
const IN_PORTS: [(&str, usize); 15] = [
    ("rst_n", 1),
    ("network_ptr", 64),
    ("n", 8),
    ("id", 8),
    ("qpns", QPNS_BITS),
    ("wr_cmd_tdata", WR_CMD_BITS),
    ("wr_cmd_tvalid", 1),
    ("wr_data_tdata", 512),
    ("wr_data_tkeep", 64),
    ("wr_data_tlast", 1),
    ("wr_data_tvalid", 1),
    ("awready", 1),
    ("wready", 1),
    ("bresp", 2),
    ("bvalid", 1),
];
const OUT_PORTS: [(&str, usize); 24] = [
    ("wr_cmd_tready", 1),
    ("wr_data_tready", 1),
    ("awaddr", 64),
    ("awlen", 8),
    ("awsize", 3),
    ("awburst", 2),
    ("awvalid", 1),
    ("wdata", 512),
    ("wstrb", 64),
    ("wlast", 1),
    ("wvalid", 1),
    ("bready", 1),
    ("sts_accepted", 32),
    ("sts_write_errors", 32),
    ("sts_refused_unknown_qp", 32),
    ("sts_refused_length", 32),
    ("sts_refused_unaligned", 32),
    ("sts_refused_outside", 32),
    ("sts_refused_data", 32),
    ("sts_refused_not_owner", 32),
    ("sts_refused_not_leader", 32),
    ("sts_refused_shape", 32),
    ("sts_refused_unchecked", 32),
    ("sts_refused_by", rhdl_ubft::guard::REFUSED_BY_BITS),
];

/// One cycle's (inputs, outputs) of the guard, packed in port order.
fn vectors<const N: usize>(g: &Guard<N>) -> (Vec<u32>, Vec<u32>) {
    let bit = |x: bool| Bits::<1>::from(x);
    let mut i = vec![];
    pack(&mut i, bit(g.rst_n.val()));
    pack(&mut i, g.network_ptr.val());
    pack(&mut i, g.n.val());
    pack(&mut i, g.id.val());
    pack(&mut i, g.qpns.val());
    pack(&mut i, g.wr_cmd_tdata.val());
    pack(&mut i, bit(g.wr_cmd_tvalid.val()));
    pack(&mut i, g.wr_data_tdata.val());
    pack(&mut i, g.wr_data_tkeep.val());
    pack(&mut i, bit(g.wr_data_tlast.val()));
    pack(&mut i, bit(g.wr_data_tvalid.val()));
    pack(&mut i, bit(g.awready.val()));
    pack(&mut i, bit(g.wready.val()));
    pack(&mut i, g.bresp.val());
    pack(&mut i, bit(g.bvalid.val()));
    let mut o = vec![];
    pack(&mut o, bit(g.wr_cmd_tready.val()));
    pack(&mut o, bit(g.wr_data_tready.val()));
    pack(&mut o, g.awaddr.val());
    pack(&mut o, g.awlen.val());
    pack(&mut o, g.awsize.val());
    pack(&mut o, g.awburst.val());
    pack(&mut o, bit(g.awvalid.val()));
    pack(&mut o, g.wdata.val());
    pack(&mut o, g.wstrb.val());
    pack(&mut o, bit(g.wlast.val()));
    pack(&mut o, bit(g.wvalid.val()));
    pack(&mut o, bit(g.bready.val()));
    for c in [
        &g.sts_accepted,
        &g.sts_write_errors,
        &g.sts_refused_unknown_qp,
        &g.sts_refused_length,
        &g.sts_refused_unaligned,
        &g.sts_refused_outside,
        &g.sts_refused_data,
        &g.sts_refused_not_owner,
        &g.sts_refused_not_leader,
        &g.sts_refused_shape,
        &g.sts_refused_unchecked,
    ] {
        pack(&mut o, c.val());
    }
    pack(&mut o, g.sts_refused_by.val());
    (i, o)
}

fn hex_line(words: &[u32]) -> String {
    words.iter().rev().map(|w| format!("{w:08x}")).collect()
}

/// A self-checking Icarus testbench: the recorded inputs drive
/// `rhdl_ubft_guard`, every output is compared on every cycle.
fn testbench(cycles: usize) -> String {
    let ports = |list: &[(&'static str, usize)]| {
        let mut at = 0;
        let mut v = vec![];
        for &(name, bits) in list {
            if bits > 0 {
                v.push((name, bits, at));
                at += 32 * bits.div_ceil(32);
            }
        }
        (v, at)
    };
    let (ins, in_w) = ports(&IN_PORTS);
    let (outs, out_w) = ports(&OUT_PORTS);
    let mut t = String::from("`timescale 1ns/1ps\nmodule tb;\n  reg clock = 1'b0;\n");
    t += &format!(
        "  reg [{}:0] inm [0:{}];\n  reg [{}:0] outm [0:{}];\n  reg [{}:0] got;\n  integer c;\n  reg failed = 1'b0;\n",
        in_w - 1,
        cycles - 1,
        out_w - 1,
        cycles - 1,
        out_w - 1
    );
    for (name, bits, _) in &ins {
        t += &format!("  reg [{}:0] {name};\n", bits - 1);
    }
    for (name, bits, _) in &outs {
        t += &format!("  wire [{}:0] {name};\n", bits - 1);
    }
    t += "  rhdl_ubft_guard dut(.clock(clock)";
    for (name, _, _) in ins.iter().chain(outs.iter()) {
        t += &format!(", .{name}({name})");
    }
    t +=
        ");\n  initial begin\n    $readmemh(\"in.hex\", inm);\n    $readmemh(\"out.hex\", outm);\n";
    t += &format!("    for (c = 0; c < {cycles}; c = c + 1) begin\n");
    for (name, bits, at) in &ins {
        t += &format!("      {name} = inm[c][{at} +: {bits}];\n");
    }
    t += "      #1;\n      got = 0;\n";
    for (name, bits, at) in &outs {
        t += &format!("      got[{at} +: {bits}] = {name};\n");
    }
    t += "      if (got !== outm[c]) begin\n";
    for (name, bits, at) in &outs {
        t += &format!(
            "        if (got[{at} +: {bits}] !== outm[c][{at} +: {bits}]) $display(\"TESTBENCH MISMATCH: cycle %0d, port {name}: expected %h, got %h\", c, outm[c][{at} +: {bits}], got[{at} +: {bits}]);\n"
        );
    }
    // Verilator runs on after a `$finish` until the process waits, so a
    // flag, not the `$finish`, keeps a failed run from printing OK.
    t += "        failed = 1;\n        $finish;\n      end\n      clock = 1'b1;\n      #1;\n      clock = 1'b0;\n      #1;\n    end\n";
    t += &format!(
        "    if (!failed) $display(\"TESTBENCH OK ({cycles} cycles)\");\n    $finish;\n  end\nendmodule\n"
    );
    t
}

fn replay(rec: &[(Vec<u32>, Vec<u32>)], verilog: &str, dir: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lines = |f: fn(&(Vec<u32>, Vec<u32>)) -> &Vec<u32>| {
        rec.iter()
            .map(|r| hex_line(f(r)) + "\n")
            .collect::<String>()
    };
    std::fs::write(dir.join("in.hex"), lines(|r| &r.0)).unwrap();
    std::fs::write(dir.join("out.hex"), lines(|r| &r.1)).unwrap();
    std::fs::write(dir.join("tb.v"), testbench(rec.len())).unwrap();
    std::fs::write(dir.join("rhdl_ubft_guard.v"), verilog).unwrap();
    let has = |tool: &str| hdl_tools::on_path(tool).is_some();
    if has("iverilog") && has("vvp") {
        eprintln!("replaying on Icarus Verilog");
        let out = std::process::Command::new("iverilog")
            .args(["-g2005", "-o", "sim", "tb.v", "rhdl_ubft_guard.v"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "iverilog: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = std::process::Command::new("vvp")
            .arg("sim")
            .current_dir(&dir)
            .output()
            .unwrap();
        return String::from_utf8_lossy(&out.stdout).into_owned();
    }
    let v = hdl_tools::Verilator::get().unwrap_or_else(|e| panic!("no Icarus, and {e}"));
    eprintln!("no Icarus on PATH: replaying on Verilator {}", v.version);
    let build = dir.join("verilator");
    let _ = std::fs::remove_dir_all(&build);
    std::fs::create_dir_all(&build).unwrap();
    for f in ["tb.v", "rhdl_ubft_guard.v"] {
        std::fs::copy(dir.join(f), build.join(f)).unwrap();
    }
    let b = hdl_tools::build::Build {
        top: "tb".into(),
        sources: vec!["tb.v".into(), "rhdl_ubft_guard.v".into()],
        flags: ["-Wno-fatal", "-Wno-lint", "-Wno-style"]
            .iter()
            .map(|f| f.to_string())
            .collect(),
        cpp: vec![],
        // A few thousand cycles: compile time is what counts.
        opt_fast: "-O0".into(),
        opt_slow: "-O0".into(),
        output: hdl_tools::build::Output::Executable("tb".into()),
    };
    let exe = hdl_tools::build::build(v, &build, &b).unwrap_or_else(|e| panic!("verilator: {e}"));
    let out = std::process::Command::new(&exe)
        .current_dir(&dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

// ---- Records longer than the buffer are streamed ----

fn beats_of(words: usize) -> usize {
    words.div_ceil(BEAT_WORDS)
}

/// A commit record (6 beats at N = 8: its block, the bitmap, the signature
/// and four shares) is taken two beats at a time into the buffer, checked,
/// and then written one HBM beat per payload beat: the two buffered beats
/// back to back, each later beat fetched from the stack after the HBM beat
/// before it (two cycles a beat). The next command waits for the last.
#[test]
fn a_commit_record_streams_after_its_first_two_beats() {
    let m = mb();
    let mut b = bench(3, 0);
    let at = m.record(Region::Commit, 5, 2);
    let words = BEAT_WORDS * rhdl_ubft::layout::record_beats(Region::Commit, BUILD_N, SB);
    assert_eq!(words, 96, "six beats at N = 8");
    let rec: Vec<u32> = (0..words as u32).map(|i| 0x3000_0000 + i).collect();
    b.send(Packet::write(2, at, &rec));
    let own = m.vote(Region::WillCert, 1, 1);
    b.send(Packet::write(1, own, &[3, 4]));
    b.run(100);
    let t = &b.trace;
    // The first two beats at 1 and 2 fill the buffer; the rest wait until
    // the write is decided (5) and then follow their HBM beats.
    assert_eq!(t.beats, vec![1, 2, 8, 10, 12, 14, 17]);
    let aws: Vec<u64> = t.aws.iter().map(|a| a.0).collect();
    assert_eq!(aws, vec![6, 7, 9, 11, 13, 15, 19]);
    assert_eq!(t.ws, aws);
    assert_eq!(
        t.aws[..6].iter().map(|a| a.1).collect::<Vec<_>>(),
        (0..6).map(|k| addr(at) + 64 * k).collect::<Vec<_>>()
    );
    assert_eq!(t.cmds, vec![0, 16], "the next command after the last beat");
    assert_eq!(b.read(at, words), rec);
    assert_eq!(
        b.read(at + words, 32),
        vec![0; 32],
        "the pad beats untouched"
    );
    let end = t.counters.last().unwrap();
    assert_eq!((end.accepted, end.refused), (2, [0; REASONS]));
    assert_eq!(t.counters[1].accepted, 1, "counted at its last W");
}

/// A record that starts mid-beat lands shifted: each HBM beat takes words
/// from two payload beats, and the last HBM beat (the spill) needs no new
/// payload beat. AW/W held by HBM hold the stream too.
#[test]
fn a_streamed_record_at_a_word_offset_lands_shifted_under_back_pressure() {
    let m = mb();
    let mut b = bench(5, 4);
    let at = m.record(Region::Commit, 2, 3) + 5;
    // 76 words from word 5: five payload beats, six HBM beats.
    let rec: Vec<u32> = (0..76).map(|i| 0x4400 + i).collect();
    b.send(Packet::write(3, at, &rec));
    b.awready = Box::new(|c| c != 10 && c != 11);
    b.wready = Box::new(|c| c != 14);
    b.run(100);
    let t = &b.trace;
    // HBM beat 3's AW waits until 12 (its W went at 11), beat 4's W until
    // 15: each holds the next fetch. The sixth HBM beat (the spill) takes
    // the fifth payload beat's last words and fetches nothing.
    assert_eq!(t.beats, vec![1, 2, 8, 10, 13]);
    assert_eq!(
        t.aws.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![6, 7, 9, 12, 14, 16]
    );
    assert_eq!(t.ws, vec![6, 7, 9, 11, 15, 16]);
    assert_eq!(b.read(at, 76), rec);
    assert_eq!(b.read(at - 5, 5), vec![0; 5]);
    assert_eq!(b.read(at + 76, 8), vec![0; 8]);
    assert_eq!(t.counters.last().unwrap().accepted, 1);
}

/// A refused multi-beat record: decided on its first two beats (6; a
/// leader's record after its view check, 14), nothing reaches AXI, and the
/// rest of its payload is drained before the next command is taken.
#[test]
fn a_refused_streamed_record_is_drained_and_never_reaches_axi() {
    let m = mb();
    let mut b = bench(3, 0);
    // Replica 1 writes replica 2's commit record (6 beats).
    let at = m.record(Region::Commit, 0, 2);
    b.send(Packet::write(1, at, &vec![7; 96]));
    // A new_view record (16 beats) for view 4, whose leader is 1, from 2.
    let nv = m.record(Region::NewViewRecord, 0, 0);
    let mut rec = vec![9; m.stride(Region::NewViewRecord)];
    rec[0] = 4;
    b.send(Packet::write(2, nv, &rec));
    // Then 1's own will_cert vote.
    let own = m.vote(Region::WillCert, 3, 1);
    b.send(Packet::write(1, own, &[5, 6]));
    b.run(200);
    let t = &b.trace;
    // Commit: taken at 0, beats at 1 and 2, refused at 5, beats 2..5
    // drained at 6..9, the next command at 10.
    assert_eq!(t.cmds[..2], [0, 10]);
    assert_eq!(t.beats[..6], [1, 2, 6, 7, 8, 9]);
    assert_eq!(t.counters[1].refused, refused(Refusal::NotOwner));
    // new_view (checked while the commit was): beats at 11 and 12,
    // decided at 13, refused at 13 + 8 = 21, the other 14 beats drained
    // at 22..35, the vote taken at 36 and written at 39.
    assert_eq!(t.cmds[2], 36);
    assert_eq!(t.beats[6..8], [11, 12]);
    assert_eq!(t.beats[8..22], (22..36).collect::<Vec<_>>()[..]);
    assert_eq!(t.aws, vec![(39, addr(own) & !63)]);
    let end = t.counters.last().unwrap();
    let mut want = refused(Refusal::NotOwner);
    want[Refusal::NotLeader.code() as usize - 1] = 1;
    assert_eq!((end.accepted, end.refused), (1, want));
    assert_eq!(end.by, vec![0, 1, 1, 0, 0, 0, 0, 0]);
    assert_eq!(b.hbm.len(), 2, "only the vote landed");
    assert_eq!(b.read(own, 2), vec![5, 6]);
}

/// The leader's new_view record (16 beats at N = 8): the view check on the
/// first beat, then sixteen HBM beats, the buffered two back to back.
#[test]
fn a_leaders_new_view_record_lands_beat_by_beat_after_its_view_check() {
    let m = mb();
    let mut b = bench(3, 0);
    let nv = m.record(Region::NewViewRecord, 0, 0);
    let mut rec: Vec<u32> = (0..m.stride(Region::NewViewRecord) as u32).collect();
    rec[0] = 7; // view 7: 7 mod 3 = 1
    b.send(Packet::write(1, nv, &rec));
    b.run(100);
    let t = &b.trace;
    let mut aws = vec![14, 15];
    aws.extend((2..16).map(|j| 15 + 2 * (j - 1)));
    assert_eq!(t.aws.iter().map(|a| a.0).collect::<Vec<_>>(), aws);
    assert_eq!(b.read(nv, rec.len()), rec);
    assert_eq!(t.counters.last().unwrap().accepted, 1);
}

/// A payload that disagrees with its length: within the two buffered beats
/// it is refused whole (`data`). Found on a streamed beat, the
/// write stops before that beat's HBM beat: the HBM beats before it are
/// written (a part of a record the rule allowed whole), and it counts as
/// `data`, not accepted. The stack produces both from one packet, so this
/// is a stack fault, not something a peer can send.
#[test]
fn a_payload_that_disagrees_with_its_length_while_streaming_stops_the_write() {
    let m = mb();
    let at = m.record(Region::Commit, 1, 1);
    let rec: Vec<u32> = (0..96).map(|i| 0x5500 + i).collect();
    // tlast on beat 1 of 6: refused whole.
    let mut b = bench(3, 0);
    let mut p = Packet::write(1, at, &rec);
    p.beats.truncate(2);
    p.beats[1].1 = true;
    b.send(p);
    b.send(Packet::write(1, at, &[1, 2]));
    b.run(100);
    assert_eq!(b.trace.cmds, vec![0, 6]);
    assert_eq!(b.trace.counters[1].refused, refused(Refusal::Data));
    assert_eq!(b.read(at, 3), vec![1, 2, 0]);
    // tlast on beat 3 of 6: HBM beats 0..=2 written, then it stops.
    let mut b = bench(3, 0);
    let mut p = Packet::write(1, at, &rec);
    p.beats.truncate(4);
    p.beats[3].1 = true;
    b.send(p);
    b.run(100);
    assert_eq!(b.trace.beats, vec![1, 2, 8, 10]);
    assert_eq!(
        b.trace.aws.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![6, 7, 9]
    );
    assert_eq!(b.read(at, 96)[..48], rec[..48]);
    assert_eq!(b.read(at + 48, 48), vec![0; 48]);
    let end = b.trace.counters.last().unwrap();
    assert_eq!((end.accepted, end.refused), (0, refused(Refusal::Data)));
    // No tlast on beat 5 (a seventh follows): beats 0..=4 written, the
    // seventh drained.
    let mut b = bench(3, 0);
    let mut p = Packet::write(1, at, &rec);
    p.beats[5].1 = false;
    p.beats.push(([0xEE; 16], true));
    b.send(p);
    b.send(Packet::write(1, at + 100, &[1]));
    b.run(100);
    assert_eq!(b.trace.beats, vec![1, 2, 8, 10, 12, 14, 15, 17]);
    assert_eq!(b.trace.cmds, vec![0, 16]);
    assert_eq!(b.read(at, 96)[..80], rec[..80]);
    assert_eq!(b.read(at + 80, 16), vec![0; 16]);
    assert_eq!(b.trace.counters[1].refused, refused(Refusal::Data));
}

/// What the block does with a write, as the reference says it
/// (`guard::decide`, `guard::check`), plus streaming's one difference: a
/// payload whose tlast disagrees with its length on a beat past the
/// buffer is found only when that beat is fetched, after the rule. Then a
/// refusal by the rule comes first; else the HBM beats before the bad one
/// are written and the write counts as `data`. Returns the verdict and
/// the words that land.
fn expect(
    m: &Mailbox,
    cfg: &GuardConfig,
    p: &Packet,
) -> (Result<(), (Refusal, Option<usize>)>, Vec<(usize, u32)>) {
    let beats = p.beats.len();
    let verdict = decide(m, cfg, &p.cmd, &p.payload, beats);
    let whole = |word: usize| {
        p.payload
            .iter()
            .enumerate()
            .map(|(i, v)| (word + i, *v))
            .collect::<Vec<_>>()
    };
    let (sender, word) = match check_command(m, cfg, &p.cmd) {
        Ok(x) => x,
        Err(e) => return (Err(e), vec![]),
    };
    let e = beats_of(p.payload.len()) - 1;
    // The first beat whose tlast is wrong: early, or missing on beat e.
    let last = p.beats.iter().position(|b| b.1).unwrap_or(usize::MAX);
    let bad = if last == e { None } else { Some(last.min(e)) };
    match bad {
        Some(k) if k >= BEATS => match check(m, cfg.n, sender, word, &p.payload) {
            Err(r) => (Err((r, Some(sender))), vec![]),
            Ok(()) => {
                let lane = word % BEAT_WORDS;
                let upto = p.payload.len().min(BEAT_WORDS * k - lane);
                let mut w = whole(word);
                w.truncate(upto);
                (Err((Refusal::Data, Some(sender))), w)
            }
        },
        _ => match verdict {
            Ok(_) => (Ok(()), whole(word)),
            Err(e) => (Err(e), vec![]),
        },
    }
}

/// A random write: every region, owned records by their writer or
/// another, whole, partial, crossing into the next record; leader's
/// records with the view led or not, with and without their view word;
/// too long; malformed commands; tlast in the wrong place.
fn adversarial(rng: &mut Rng, m: &Mailbox, cfg: &GuardConfig) -> Packet {
    let n = cfg.n;
    // The records longer than the buffer a third of the time.
    // (And remote_rows, where READ responses land, a tenth of the rest.)
    let region = if rng.below(3) == 0 {
        [Region::Commit, Region::NewViewRecord][rng.below(2)]
    } else if rng.below(10) == 0 {
        Region::RemoteRows
    } else {
        Region::ALL[rng.below(Region::ALL.len())]
    };
    let span = m.span(region);
    let (stride, view_at) = match rule_for(m, region) {
        Rule::Owned { entry_words, .. } => (entry_words, None),
        Rule::Leader {
            record_words,
            view_at,
            ..
        } => (record_words, Some(view_at)),
        Rule::Closed(_) => (16, None),
    };
    let records = span.words / stride;
    let base = span.start + rng.below(records) * stride;
    let (off, len) = match rng.below(6) {
        0 | 1 => (0, stride),
        2 => {
            let off = rng.below(stride);
            (off, 1 + rng.below(stride - off))
        }
        3 => {
            // Across the end of the record.
            let off = stride - 1 - rng.below(stride.min(20));
            (off, stride - off + 1 + rng.below(20))
        }
        4 => (0, 1 + rng.below(m.stride(Region::NewViewRecord) + 20)),
        _ => (
            [0, 1, 2, 3, 8, 16][rng.below(6)],
            [1, 2, 4, 16, 17, 32, 40][rng.below(7)],
        ),
    };
    let word = (base + off).min(m.end() - 1);
    // The writer: the owner of the first word most of the time.
    let from = match m.owner(word) {
        Some(o) if o < n && rng.below(3) > 0 => o,
        _ => rng.below(n + 1), // n: a queue pair of no replica
    };
    let mut payload: Vec<u32> = (0..len).map(|_| rng.next() as u32).collect();
    if let Some(at) = view_at {
        let vw = (base + at).checked_sub(word);
        if let Some(i) = vw.filter(|&i| i < len) {
            let led = (rng.below(1000) * n + from % n.max(1)) as u32;
            payload[i] = if rng.below(4) > 0 { led } else { led + 1 };
        }
    }
    let qp = if from < n { cfg.qpns[from] } else { 999 };
    let mut cmd = WrCommand::write(qp, addr(word), 4 * len as u64);
    // A READ response (the stack's mark): mostly where remote_rows takes
    // one, and now and then anywhere else.
    cmd.rd = region == Region::RemoteRows && rng.below(4) > 0;
    match rng.below(30) {
        7 => cmd.rd = true,
        0 => cmd.len = 4 * len as u64 - 2,
        1 => cmd.vaddr += 2,
        2 => cmd.vaddr = PTR - 4 * (1 + rng.below(8)) as u64,
        3 => cmd.host = false,
        4 => cmd.qpn = 1000 + rng.below(24) as u64,
        5 => cmd.vaddr = addr(m.end() - rng.below(4)),
        6 => {
            cmd.len = 0;
            payload.clear();
        }
        _ => {}
    }
    let mut p = Packet::raw(cmd, &payload);
    if !p.beats.is_empty() {
        match rng.below(25) {
            // One beat too many.
            0 => {
                let k = p.beats.len() - 1;
                p.beats[k].1 = false;
                p.beats.push(([0xBAD; 16], true));
            }
            // The payload ends early.
            1 if p.beats.len() >= 2 => {
                let k = rng.below(p.beats.len() - 1);
                p.beats.truncate(k + 1);
                p.beats[k].1 = true;
            }
            _ => {}
        }
    }
    p
}

/// The block against the reference over random writes (n = 3, 5, 8,
/// queue pairs permuted, random AWREADY/WREADY and payload gaps): the
/// counters after every decision, and HBM, which must hold exactly the
/// accepted records' words (and the part of a record streaming stopped)
/// and nothing else.
#[test]
fn the_block_agrees_with_the_reference_on_random_writes() {
    let m = mb();
    let mut rng = Rng(0x3a3a);
    // Accepted records streamed past the buffer; refused ones drained
    // past it; streamed ones stopped by their tlast.
    let (mut streamed, mut drained, mut stopped) = (0, 0, 0);
    // READ responses (`WR_RD`) taken into remote_rows, and refused.
    let (mut rd_taken, mut rd_refused) = (0, 0);
    let p_word = |p: &Packet| ((p.cmd.vaddr.wrapping_sub(PTR)) / 4) as usize;
    for (n, id, writes) in [(3usize, 1usize, 300usize), (5, 0, 300), (8, 6, 300)] {
        let mut b = bench(n, id);
        b.cfg.qpns.rotate_left(n / 2);
        b.cfg.qpns.reverse();
        let mut state = rng.next();
        b.awready = Box::new(move |c| (c ^ state) % 5 != 0);
        state = rng.next();
        b.wready = Box::new(move |c| (c.wrapping_mul(7) ^ state) % 4 != 0);
        state = rng.next();
        b.data_ready = Box::new(move |c| (c.wrapping_mul(3) ^ state) % 7 != 0);
        // (From the same draw, so the writes stay those of the seed.)
        let gaps = state.rotate_left(29);
        b.cmd_ready = Box::new(move |c| (c.wrapping_mul(11) ^ gaps) % 13 != 0);
        b.b_latency = 9;
        let mut want = Counters {
            by: vec![0; BUILD_N],
            ..Default::default()
        };
        let mut snapshots = vec![want.clone()];
        let mut hbm: BTreeMap<u64, u32> = BTreeMap::new();
        let mut outcomes = BTreeMap::new();
        for _ in 0..writes {
            let p = adversarial(&mut rng, &m, &b.cfg);
            let (verdict, lands) = expect(&m, &b.cfg, &p);
            match verdict {
                Ok(()) => want.accepted += 1,
                Err((r, who)) => {
                    want.refused[r.code() as usize - 1] += 1;
                    if let Some(s) = who {
                        want.by[s] += 1;
                    }
                }
            }
            if p.beats.len() > BEATS {
                match verdict {
                    Ok(()) => streamed += 1,
                    Err((Refusal::Data, _)) if !lands.is_empty() => stopped += 1,
                    Err(_) => drained += 1,
                }
            }
            for (w, v) in lands {
                hbm.insert(w as u64, v);
            }
            *outcomes.entry(verdict.map_err(|e| e.0)).or_insert(0) += 1;
            if p.cmd.rd {
                match verdict {
                    Ok(()) => rd_taken += 1,
                    Err(_) => rd_refused += 1,
                }
            } else if verdict.is_ok()
                && m.locate(p_word(&p)).map(|(r, _)| r) == Some(Region::RemoteRows)
            {
                panic!("a WRITE into remote_rows accepted by the reference");
            }
            snapshots.push(want.clone());
            b.send(p);
        }
        b.run(200 * writes as u64);
        assert_eq!(b.trace.cmds.len(), writes, "n = {n}: every command taken");
        for (i, c) in b.trace.counters.iter().enumerate() {
            assert_eq!(c, &snapshots[i], "n = {n}: counters before write {i}");
        }
        assert_eq!(b.hbm, hbm, "n = {n}: HBM");
        let seen: Vec<_> = outcomes.keys().collect();
        for r in [
            Ok(()),
            Err(Refusal::NotOwner),
            Err(Refusal::NotLeader),
            Err(Refusal::Shape),
            Err(Refusal::Length),
            Err(Refusal::Data),
            Err(Refusal::Unaligned),
            Err(Refusal::Outside),
            Err(Refusal::UnknownQp),
        ] {
            assert!(outcomes.contains_key(&r), "n = {n}: no {r:?} in {seen:?}");
        }
    }
    eprintln!("streamed {streamed}, drained {drained}, stopped {stopped}; READ responses taken {rd_taken}, refused {rd_refused}");
    assert!(
        rd_taken > 5 && rd_refused > 5,
        "READ responses taken {rd_taken}, refused {rd_refused}"
    );
    assert!(
        streamed > 40 && drained > 40 && stopped > 2,
        "streamed {streamed}, drained {drained}, stopped {stopped}"
    );
}

/// The guard's Verilog, driven by a recorded run of random writes
/// (streamed, refused and drained, back-pressure, payload gaps, resets),
/// gives the rust-hdl outputs on every cycle, on Icarus or Verilator
/// (`replay`).
#[test]
fn the_verilog_replays_a_recorded_run_cycle_for_cycle() {
    let m = mb();
    let mut rng = Rng(0x77aa);
    let mut b = bench(5, 2);
    b.rec = Some(vec![]);
    let state = rng.next();
    b.awready = Box::new(move |c| (c ^ state) % 3 != 0);
    b.wready = Box::new(move |c| (c.wrapping_mul(5) ^ state) % 4 != 0);
    b.b_latency = 7;
    b.data_ready = Box::new(|c| c % 11 != 5);
    b.cmd_ready = Box::new(|c| c % 17 != 3);
    b.rst_at = vec![300, 301, 777, 1234, 2000];
    for _ in 0..200 {
        let p = adversarial(&mut rng, &m, &b.cfg);
        b.send(p);
    }
    b.run(8000);
    let rec = b.rec.take().unwrap();
    let log = replay(
        &rec,
        &rhdl_ubft::guard::verilog::<BUILD_N>(),
        "guard_replay",
    );
    assert!(
        log.contains("TESTBENCH OK") && !log.contains("TESTBENCH MISMATCH"),
        "{}",
        log.lines().take(20).collect::<Vec<_>>().join("\n")
    );
    eprintln!("{} cycles, {} commands", rec.len(), b.trace.cmds.len());
    assert!(rec.len() > 2000, "{} cycles", rec.len());
    assert!(
        b.trace.cmds.len() > 190,
        "most commands taken across the resets"
    );
}

/// A two-beat record (certify: the CERT block and its share) fits the
/// buffer and is held whole.
#[test]
fn a_two_beat_record_is_held_whole() {
    let m = mb();
    let mut b = bench(3, 0);
    let at = m.record(Region::Certify, 4, 1);
    let rec: Vec<u32> = (0..32).map(|i| 0x2200 + i).collect();
    b.send(Packet::write(1, at, &rec));
    b.send(Packet::write(1, at, &[1]));
    b.run(60);
    let t = &b.trace;
    assert_eq!(t.beats, vec![1, 2, 9]);
    assert_eq!(t.aws[..2], [(6, addr(at)), (7, addr(at) + 64)]);
    assert_eq!(t.cmds, vec![0, 8]);
    let mut want = rec.clone();
    want[0] = 1;
    assert_eq!(b.read(at, 32), want);
}

/// Reset and streaming: a streamed record not yet on AXI is abandoned and
/// its waiting beats drained; one on AXI is finished, its later beats
/// fetched through the reset.
#[test]
fn reset_abandons_a_streamed_record_before_axi_and_finishes_it_after() {
    let m = mb();
    let at = m.record(Region::Commit, 3, 2);
    let rec: Vec<u32> = (0..96).map(|i| 0x6600 + i).collect();
    let vote = m.vote(Region::WillCommit, 0, 1);
    let run = |rst: Vec<u64>| {
        let mut b = bench(3, 0);
        b.send(Packet::write(2, at, &rec));
        b.send(Packet::write(1, vote, &[8, 9]));
        b.rst_at = rst;
        b.run(100);
        b
    };
    // Reset at 4, while the record is checked (its first two beats in):
    // abandoned, beats 2..5 drained at 5..8, the vote taken at 9.
    let b = run(vec![4]);
    assert_eq!(b.trace.beats[..6], [1, 2, 5, 6, 7, 8]);
    assert_eq!(b.trace.cmds, vec![0, 9]);
    assert!(b.trace.aws.iter().all(|a| a.1 == addr(vote) & !63));
    assert_eq!(b.read(at, 96), vec![0; 96]);
    // Reset from 8 to 11, while beat 2 is fetched and HBM beats 2 and 3
    // are written: the record goes on as without a reset and lands whole;
    // the vote is taken after it, at 16.
    let b = run(vec![8, 9, 10, 11]);
    assert_eq!(b.trace.beats[..6], [1, 2, 8, 10, 12, 14]);
    assert_eq!(
        b.trace.aws.iter().map(|a| a.0).collect::<Vec<_>>()[..6],
        [6, 7, 9, 11, 13, 15]
    );
    assert_eq!(b.read(at, 96), rec);
    assert_eq!(b.trace.cmds, vec![0, 16]);
    assert_eq!(b.trace.counters[1].accepted, 1, "counted after the reset");
}

// ---- A command is checked while it is presented ----

/// A flood of one-beat votes from the n − 1 peers in turn, each command
/// and payload offered back to back, HBM always ready (as
/// `ubft_sim::bench::guard_rate` drives the block): each command's checks
/// run while the one before it is decided and written, so a vote lands
/// every 4 cycles.
#[test]
fn a_flood_of_one_beat_votes_lands_one_every_four_cycles() {
    let m = mb();
    for n in [3usize, 5, 7] {
        let mut b = bench(n, 0);
        let writes = 4 * (n - 1);
        let mut want = vec![];
        for k in 0..writes {
            let from = 1 + k % (n - 1);
            let slot = k / (n - 1);
            let w = m.vote(Region::WillCert, slot, from);
            let rec = [0x0100_0000 | (slot as u32 + 1), k as u32];
            b.send(Packet::write(from, w, &rec));
            want.push((w, rec));
        }
        b.run(400);
        let t = &b.trace;
        // The first: taken at 0, on AXI at 6. Each later one is taken the
        // cycle after the one before it lands, its checks done: its
        // payload, its decision, and its AW and W in the next three cycles.
        let landed: Vec<u64> = (0..writes as u64).map(|k| 6 + 4 * k).collect();
        assert_eq!(t.landed, landed, "n = {n}");
        assert!(t.landed.windows(2).all(|w| w[1] - w[0] <= 4));
        assert_eq!(t.aws.iter().map(|a| a.0).collect::<Vec<_>>(), landed);
        assert_eq!(t.ws, landed);
        let cmds: Vec<u64> = std::iter::once(0)
            .chain((1..writes as u64).map(|k| 3 + 4 * k))
            .collect();
        assert_eq!(t.cmds, cmds, "n = {n}");
        // The n − 1 votes of a round: the last lands 4 (n − 2) cycles after
        // the first.
        assert_eq!(t.landed[n - 2] - t.landed[0], 4 * (n as u64 - 2));
        for (w, rec) in want {
            assert_eq!(b.read(w, 2), rec.to_vec(), "n = {n}");
        }
        let end = t.counters.last().unwrap();
        assert_eq!((end.accepted, end.refused), (writes as u64, [0; REASONS]));
    }
}

/// A command presented while the one before it is checked and refused
/// has its own checks done when it is taken, and one taken before its
/// checks are done waits for them.
#[test]
fn a_command_is_checked_while_a_refused_one_before_it_is() {
    let m = mb();
    let mut b = bench(3, 0);
    let other = m.vote(Region::WillCert, 5, 2);
    let own1 = m.vote(Region::WillCert, 5, 1);
    let own2 = m.vote(Region::WillCert, 6, 2);
    b.send(Packet::write(1, other, &[1, 2])); // 2's entry: refused
    b.send(Packet::write(1, own1, &[3, 4]));
    b.send(Packet::write(2, own1, &[9, 9])); // 1's entry: refused
    b.send(Packet::write(2, own2, &[5, 6]));
    b.run(80);
    let t = &b.trace;
    // 1: taken at 0, refused at 5. 2: presented from 1, its checks out at
    // 6, the cycle it is taken: payload at 7, decided at 8, AW and W at 9
    // (taken alone it lands at 6 + 6 = 12). 3: presented from 7, taken at
    // 10, its checks out at 12 (7 + CHECK_CYCLES) with its payload in:
    // refused at 12. 4: presented from 11, taken at 13, its payload at 14,
    // its checks out at 16: AW and W at 17.
    assert_eq!(t.cmds, vec![0, 6, 10, 13]);
    assert_eq!(t.beats, vec![1, 7, 11, 14]);
    assert_eq!(t.aws, vec![(9, addr(own1) & !63), (17, addr(own2) & !63)]);
    assert_eq!(t.landed, vec![9, 17]);
    assert_eq!(t.counters[1].refused, refused(Refusal::NotOwner));
    assert_eq!(t.counters[1].by, by(Some(1)));
    assert_eq!(t.counters[2].accepted, 1);
    assert_eq!(t.counters[3].by, vec![0, 1, 1, 0, 0, 0, 0, 0]);
    let end = t.counters.last().unwrap();
    assert_eq!(end.accepted, 2);
    assert_eq!(b.read(own1, 2), vec![3, 4]);
    assert_eq!(b.read(own2, 2), vec![5, 6]);
    assert_eq!(b.read(other, 2), vec![0, 0]);
}

/// An owned write presented behind a leader's record is checked during the
/// record's view check, and written three cycles after it is taken.
#[test]
fn an_owned_write_is_checked_during_the_leaders_view_check_before_it() {
    let m = mb();
    let mut b = bench(5, 0);
    let p = m.prepare(7);
    b.send(Packet::write(3, p, &[8, 0xABCD, 13, 0])); // 13 mod 5 = 3
    let own = m.vote(Region::WillCommit, 7, 2);
    b.send(Packet::write(2, own, &[5, 6]));
    b.run(60);
    let t = &b.trace;
    // The prepare: decided at 5, view mod n from 6 to 13, AW and W at 14
    // (CHECK_CYCLES + LEADER_CYCLES + 1). The vote, presented from 1:
    // taken at 15, payload at 16, decided at 17, AW and W at 18.
    assert_eq!(t.cmds, vec![0, 15]);
    assert_eq!(t.aws, vec![(14, addr(p) & !63), (18, addr(own) & !63)]);
    assert_eq!(t.landed, vec![14, 18]);
    assert_eq!(t.landed[0], CHECK_CYCLES + LEADER_CYCLES + 1);
    assert_eq!(b.read(p, 4), vec![8, 0xABCD, 13, 0]);
    assert_eq!(b.read(own, 2), vec![5, 6]);
    assert_eq!(t.counters.last().unwrap().accepted, 2);
}

/// The guard keeps the last view it checked and its leader under the n it
/// used: a leader's record of that view is decided as an owned write is,
/// without the view check, whoever sends it; another view is checked.
#[test]
fn a_leaders_record_of_the_view_last_checked_needs_no_view_check() {
    let m = mb();
    let mut b = bench(5, 0);
    let (p7, p8, p9) = (m.prepare(7), m.prepare(8), m.prepare(9));
    b.send(Packet::write(3, p7, &[8, 0xA, 13, 0])); // 13 mod 5 = 3: checked
    b.send(Packet::write(3, p8, &[9, 0xB, 13, 0])); // view 13 again
    b.send(Packet::write(2, p9, &[10, 0xC, 13, 0])); // view 13, not its leader
    b.send(Packet::write(4, p9, &[10, 0xD, 14, 0])); // 14 mod 5 = 4: checked
    b.run(80);
    let t = &b.trace;
    // The first as alone: AW at 14, the next taken at 15. The second,
    // checked while presented: payload at 16, decided at 17 with the view
    // known, AW at 18, as an owned write. The third is refused at its
    // decision (21). The fourth, presented from 20 and taken at 22, has its
    // checks at 25 (CHECK_CYCLES after 20), the view from 26 to 33, AW at
    // 34.
    assert_eq!(t.cmds, vec![0, 15, 19, 22]);
    assert_eq!(
        t.aws,
        vec![
            (14, addr(p7) & !63),
            (18, addr(p8) & !63),
            (34, addr(p9) & !63)
        ]
    );
    let end = t.counters.last().unwrap();
    assert_eq!(end.accepted, 3);
    assert_eq!(end.refused, refused(Refusal::NotLeader));
    assert_eq!(end.by, by(Some(2)));
    assert_eq!(b.read(p8, 4), vec![9, 0xB, 13, 0]);
    assert_eq!(b.read(p9, 4), vec![10, 0xD, 14, 0]);
}

/// Reset with a command in the guard and the next one presented and being
/// checked: the first is abandoned before AXI (its payload drained) or
/// finished on AXI; the second's checks start again after the reset, and
/// its payload is its own.
#[test]
fn reset_with_a_command_in_the_guard_and_the_next_one_checked() {
    let m = mb();
    let share = m.record(Region::Certify, 2, 1);
    let rec: Vec<u32> = (0..32).map(|i| 0x8800 + i).collect();
    let vote = m.vote(Region::WillCert, 2, 2);
    let run = |rst: Vec<u64>, awready_from: u64| {
        let mut b = bench(3, 0);
        b.send(Packet::write(1, share, &rec));
        b.send(Packet::write(2, vote, &[7, 8]));
        b.awready = Box::new(move |c| c >= awready_from);
        b.rst_at = rst;
        b.run(80);
        b
    };
    let aws = |b: &Bench<BUILD_N>| b.trace.aws.iter().map(|a| a.0).collect::<Vec<_>>();
    // No reset: the share taken at 0, its beats at 1 and 2, decided at 5,
    // on AXI at 6 and 7; the vote, checked from 1, taken at 8, AW at 11.
    let b = run(vec![], 0);
    assert_eq!(b.trace.cmds, vec![0, 8]);
    assert_eq!(b.trace.beats, vec![1, 2, 9]);
    assert_eq!(aws(&b), vec![6, 7, 11]);
    // Reset at 3, the share checked (both beats in), the vote presented:
    // the share is abandoned, nothing of it on AXI; the vote is taken at
    // 4, its checks from 4 (CHECK_CYCLES): decided at 9, AW at 10.
    let b = run(vec![3], 0);
    assert_eq!(b.trace.cmds, vec![0, 4]);
    assert_eq!(b.trace.beats, vec![1, 2, 5]);
    assert_eq!(b.trace.aws, vec![(10, addr(vote) & !63)]);
    assert_eq!(b.read(share, 32), vec![0; 32]);
    assert_eq!(b.read(vote, 2), vec![7, 8]);
    // Reset at 1, the share's first beat taken: its second is drained at
    // 2, and the beat taken at 4 is the vote's.
    let b = run(vec![1], 0);
    assert_eq!(b.trace.cmds, vec![0, 3]);
    assert_eq!(b.trace.beats, vec![1, 2, 4]);
    assert_eq!(b.trace.aws, vec![(8, addr(vote) & !63)]);
    assert_eq!(b.read(share, 32), vec![0; 32]);
    assert_eq!(b.read(vote, 2), vec![7, 8]);
    assert_eq!(b.hbm.len(), 2, "only the vote landed");
    // Reset at 7 and 8 while the share's first AW waits for awready (from
    // 9; its W went at 6): the share lands whole, AWs at 9 and 10. The
    // vote, presented from 1, is checked again from 9: taken at 11,
    // decided at 14, AW at 15.
    let b = run(vec![7, 8], 9);
    assert_eq!(aws(&b), vec![9, 10, 15]);
    assert_eq!(b.trace.ws, vec![6, 10, 15]);
    assert_eq!(b.trace.cmds, vec![0, 11]);
    assert_eq!(b.read(share, 32), rec);
    assert_eq!(b.read(vote, 2), vec![7, 8]);
    assert_eq!(
        b.trace.counters.last().unwrap().accepted,
        2,
        "both counted after the reset"
    );
}

/// A streamed record behind a one-beat write: checked while the write
/// was, then streamed as alone; the write after it waits for its last
/// beat.
#[test]
fn a_streamed_record_after_a_one_beat_write() {
    let m = mb();
    let mut b = bench(3, 0);
    let v1 = m.vote(Region::WillCert, 4, 1);
    b.send(Packet::write(1, v1, &[1, 2]));
    let at = m.record(Region::Commit, 4, 2);
    let rec: Vec<u32> = (0..96).map(|i| 0x9900 + i).collect();
    b.send(Packet::write(2, at, &rec));
    let v2 = m.vote(Region::WillCert, 4, 2);
    b.send(Packet::write(2, v2, &[3, 4]));
    b.run(100);
    let t = &b.trace;
    // The vote: AW at 6. The commit record: taken at 7, its first two beats
    // at 8 and 9, decided at 10, HBM beats 0 and 1 at 11 and 12; payload
    // beat j ≥ 2 fetched at 2j + 9, its HBM beat at 2j + 10; the last at
    // 20. The second vote: taken at 21, AW at 24.
    assert_eq!(t.cmds, vec![0, 7, 21]);
    assert_eq!(t.beats, vec![1, 8, 9, 13, 15, 17, 19, 22]);
    assert_eq!(
        t.aws.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![6, 11, 12, 14, 16, 18, 20, 24]
    );
    assert_eq!(t.landed, t.ws);
    assert_eq!(b.read(v1, 2), vec![1, 2]);
    assert_eq!(b.read(at, 96), rec);
    assert_eq!(b.read(v2, 2), vec![3, 4]);
    assert_eq!(t.counters.last().unwrap().accepted, 3);
}

/// A command whose TVALID drops before it is taken (RxStatus holding the
/// stream while its status FIFO is full) is checked again from the cycle
/// it is presented again.
#[test]
fn a_command_whose_tvalid_drops_is_checked_again() {
    let m = mb();
    let v1 = m.vote(Region::WillCert, 1, 1);
    let v2 = m.vote(Region::WillCert, 1, 2);
    let run = |gap: Option<u64>| {
        let mut b = bench(3, 0);
        b.send(Packet::write(1, v1, &[1, 2]));
        b.send(Packet::write(2, v2, &[3, 4]));
        b.cmd_ready = Box::new(move |c| Some(c) != gap);
        b.run(60);
        b
    };
    // Presented from 1: its checks are out at 6, taken at 7, AW at 10.
    let b = run(None);
    assert_eq!(b.trace.cmds, vec![0, 7]);
    assert_eq!(b.trace.landed, vec![6, 10]);
    // TVALID low at 4: presented again from 5, its checks out at 10: taken
    // at 7, AW at 11.
    let b = run(Some(4));
    assert_eq!(b.trace.cmds, vec![0, 7]);
    assert_eq!(b.trace.landed, vec![6, 11]);
    assert_eq!(b.read(v2, 2), vec![3, 4]);
}
