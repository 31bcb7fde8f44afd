//! Broadcast, cycle by cycle: a one-beat record staged and its RDMA WRITE
//! commands beside its local write, a longer one's after it, one per peer,
//! held under back-pressure, nothing dropped; and the RoCE adapter that puts
//! a command into the stack's format.

use rhdl_ubft::io::broadcast::Broadcast;
use rhdl_ubft::io::roce::QPNS_BITS;
use rhdl_ubft::params::N;
use rust_hdl::prelude::*;

mod common;

fn block() -> Broadcast {
    common::broadcast()
}

fn settle(b: &mut Broadcast) {
    b.clock.next = Clock::from(false);
    assert!(simulate(b, 100));
}
fn edge(b: &mut Broadcast) {
    b.clock.next = Clock::from(true);
    assert!(simulate(b, 100));
}

/// A command as Broadcast hands it to the RoCE adapter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Cmd {
    qpn: u64,
    addr: u64,
    len: u64,
}

fn cmd(b: &Broadcast) -> Cmd {
    Cmd {
        qpn: b.cmd_qpn.val().to_u64(),
        addr: b.cmd_addr.val().to_u64(),
        len: b.cmd_len.val().to_u64(),
    }
}

struct Trace {
    aw: Option<u64>,
    w: Option<u64>,
    /// The cycle B was taken.
    b: Option<u64>,
    commands: Vec<(u64, Cmd)>,
    done: Option<u64>,
    /// `write_errors` at the end.
    errors: u64,
    /// `failed` at the end.
    failed: bool,
    /// The cycles of `stage_put`, with what it stages (address, bytes, the
    /// record's first two words).
    puts: Vec<(u64, u64, u64, [u64; 2])>,
}

/// Runs one broadcast of a two-word record from replica `id` of `n`, with
/// the write response `wlat` cycles after the write and `sq_ready(cycle)`.
fn run(n: u64, id: u64, wlat: u64, local_only: bool, sq_ready: impl Fn(u64) -> bool) -> Trace {
    run_bresp(n, id, wlat, local_only, 0, sq_ready)
}

/// As `run`, with the write answered by `bresp`.
fn run_bresp(
    n: u64,
    id: u64,
    wlat: u64,
    local_only: bool,
    bresp: u64,
    sq_ready: impl Fn(u64) -> bool,
) -> Trace {
    run_staged(n, id, wlat, local_only, bresp, sq_ready, |_| false)
}

/// As `run_bresp`, with Stage busy while `stage_busy(cycle)`.
fn run_staged(
    n: u64,
    id: u64,
    wlat: u64,
    local_only: bool,
    bresp: u64,
    sq_ready: impl Fn(u64) -> bool,
    stage_busy: impl Fn(u64) -> bool,
) -> Trace {
    let mut b = block();
    let mut t = Trace {
        aw: None,
        w: None,
        b: None,
        commands: vec![],
        done: None,
        errors: 0,
        failed: false,
        puts: vec![],
    };
    let mut held: Option<Cmd> = None;
    for cycle in 0..60u64 {
        b.start.next = cycle == 1;
        b.word.next = (0x0100_0000u64 + 16 * 3 + 2 * id).into();
        b.words.next = 2.into();
        b.local_only.next = local_only;
        let mut data = Bits::<512>::default();
        data.set_bits::<32>(0, 0x0000_0007.into());
        data.set_bits::<32>(32, 0xCAFE_F00D.into());
        b.data.next = data;
        b.network_ptr.next = 0x8000_0000u64.into();
        b.n.next = n.into();
        b.id.next = id.into();
        // Peer p on queue pair 16 + p.
        let mut qpns = Bits::<QPNS_BITS>::default();
        for p in 0..N {
            qpns.set_bits::<10>(10 * p, (16 + p as u64).into());
        }
        b.qpns.next = qpns;
        b.awready.next = cycle >= 3; // AW waits a cycle; W is taken at once
        b.wready.next = true;
        b.bvalid.next =
            t.aw.is_some_and(|a| cycle == a.max(t.w.unwrap_or(a)) + wlat);
        b.bresp.next = bresp.into();
        b.cmd_ready.next = sq_ready(cycle);
        b.ack.next = false;
        b.stage_busy.next = stage_busy(cycle);
        settle(&mut b);
        if b.bvalid.val() && b.bready.val() {
            t.b = Some(cycle);
        }
        if b.stage_put.val() {
            assert!(!stage_busy(cycle), "staged only while Stage is free");
            let d = b.stage_data.val();
            t.puts.push((
                cycle,
                b.stage_addr.val().to_u64(),
                b.stage_len.val().to_u64(),
                [d.get_bits::<32>(0).to_u64(), d.get_bits::<32>(32).to_u64()],
            ));
        }
        if b.awvalid.val() && b.awready.val() {
            t.aw = Some(cycle);
            let byte = 0x8000_0000u64 + (0x0100_0000 + 48 + 2 * id) * 4;
            assert_eq!(b.awaddr.val().to_u64(), byte & !63, "beat-aligned address");
            assert_eq!(b.awlen.val().to_u64(), 0);
            let lane = (byte % 64) / 4;
            assert_eq!(
                b.wstrb.val().to_u64(),
                0xffu64 << (lane * 4),
                "strobes cover the record"
            );
        }
        if b.wvalid.val() && b.wready.val() {
            t.w = Some(cycle);
            assert!(b.wlast.val());
            let lane = ((48 + 2 * id) % 16) as usize;
            assert_eq!(
                b.wdata.val().get_bits::<32>(lane * 32 + 32).to_u64(),
                0xCAFE_F00D
            );
        }
        if b.cmd_valid.val() {
            assert!(
                !t.puts.is_empty() && b.cmd_staged.val(),
                "a one-beat record's commands only once it is staged, and marked staged"
            );
            let c = cmd(&b);
            if let Some(h) = held {
                assert_eq!(h, c, "payload stable while tvalid waits for tready");
            }
            if b.cmd_ready.val() {
                t.commands.push((cycle, c));
                held = None;
            } else {
                held = Some(c);
            }
        }
        if b.done.val() {
            t.done = Some(cycle);
        }
        edge(&mut b);
    }
    settle(&mut b);
    t.errors = b.write_errors.val().to_u64();
    t.failed = b.failed.val();
    t
}

#[test]
fn a_one_beat_record_is_staged_and_sent_beside_its_local_write() {
    let t = run(5, 2, 4, false, |_| true);
    // AW held from cycle 2 until awready at 3; W taken at 2; B at 3 + 4 = 7.
    assert_eq!(t.aw, Some(3));
    assert_eq!(t.w, Some(2));
    assert_eq!(t.b, Some(7));
    // Staged at 1, as it is taken (Stage free): its address, 8 bytes, the
    // record's words.
    let addr = 0x8000_0000 + (0x0100_0000 + 48 + 4) * 4;
    assert_eq!(t.puts, vec![(1, addr, 8, [7, 0xCAFE_F00D])]);
    let peers: Vec<u64> = t.commands.iter().map(|(_, c)| c.qpn - 16).collect();
    assert_eq!(peers, vec![0, 1, 3, 4], "every peer once, never itself");
    // Commands from 2, with the local write, before B: peers 0, 1 at 2, 3;
    // own id skipped at 4.
    let cycles: Vec<u64> = t.commands.iter().map(|(c, _)| *c).collect();
    assert_eq!(cycles, vec![2, 3, 5, 6]);
    // done two cycles after the later of B (7) and the last command (6).
    assert_eq!(t.done, Some(9));
    for (_, c) in &t.commands {
        assert_eq!(c.len, 8);
        assert_eq!(c.addr, addr);
    }
}

/// A record waits for Stage, which holds the one before until the stack has
/// read every copy of it; the local write does not wait.
#[test]
fn a_one_beat_record_waits_for_stage_to_be_free() {
    let t = run_staged(5, 2, 4, false, 0, |_| true, |c| c < 10);
    assert_eq!((t.aw, t.w, t.b), (Some(3), Some(2), Some(7)));
    assert_eq!(t.puts.len(), 1);
    assert_eq!(t.puts[0].0, 10, "staged the cycle Stage is free");
    let cycles: Vec<u64> = t.commands.iter().map(|(c, _)| *c).collect();
    assert_eq!(cycles, vec![11, 12, 14, 15]);
    assert_eq!(t.done, Some(17));
}

#[test]
fn back_pressure_holds_the_command_and_drops_nothing() {
    // The send queue is ready only on every third cycle.
    let t = run(7, 0, 2, false, |c| c % 3 == 0);
    let peers: Vec<u64> = t.commands.iter().map(|(_, c)| c.qpn - 16).collect();
    assert_eq!(peers, vec![1, 2, 3, 4, 5, 6]);
    for (c, _) in &t.commands {
        assert_eq!(c % 3, 0, "taken only when ready");
    }
    let last = t.commands.last().unwrap().0;
    assert_eq!(t.done, Some(last + 2));
}

/// `local_only` (the view change installing a chosen value in its own
/// prepare) writes the replica's HBM and sends nothing.
#[test]
fn a_local_only_record_is_written_locally_and_sent_nowhere() {
    let t = run(5, 2, 4, true, |_| true);
    assert_eq!((t.aw, t.w), (Some(3), Some(2)));
    assert!(t.commands.is_empty());
    // B accepted at 7; done the cycle after it is seen.
    assert_eq!(t.done, Some(8));
}

/// A staged record's local write answered with an error (SLVERR), after
/// some of its commands went out: its peers may hold the record while this
/// replica's HBM does not. Broadcast sends no further command, counts the
/// error, and fails stop (`failed`): it writes nothing more, and Protocol
/// stops the run as a crashed card's.
#[test]
fn a_failed_local_write_of_a_sent_record_fails_stop() {
    let ok = run(5, 2, 4, false, |_| true);
    assert_eq!((ok.errors, ok.failed), (0, false));
    assert_eq!(ok.commands.len(), 4);
    // The send queue takes a command every third cycle: peers 0 and 1 go
    // out (cycles 3 and 6) before B's error at 7; nothing after it.
    let t = run_bresp(5, 2, 4, false, 2, |c| c % 3 == 0);
    assert_eq!(t.b, Some(7));
    let cycles: Vec<u64> = t.commands.iter().map(|(c, _)| *c).collect();
    assert_eq!(cycles, vec![3, 6]);
    assert_eq!(t.done, Some(8));
    assert_eq!((t.errors, t.failed), (1, true));
}

/// A record never staged (Stage busy until after its local write failed,
/// or free only in the cycle of the failed B) was sent to no peer: the
/// error is counted, and Broadcast goes on.
#[test]
fn a_failed_local_write_of_a_record_not_yet_staged_sends_nothing() {
    for free_at in [20, 7] {
        let t = run_staged(5, 2, 4, false, 2, |_| true, |c| c < free_at);
        assert_eq!(t.b, Some(7));
        assert!(
            t.puts.is_empty() && t.commands.is_empty(),
            "{:?}",
            t.commands
        );
        assert_eq!(t.done, Some(8));
        assert_eq!((t.errors, t.failed), (1, false), "Stage free at {free_at}");
    }
}

/// The adapter packs a command into fpga-network-stack's send-queue word and
/// turns a completion with `cmplt` into an `ack`, combinationally.
#[test]
fn the_counters_count_one_run_and_clear_on_start() {
    let mut b = block();
    b.n.next = 3.into();
    b.id.next = 0.into();
    b.words.next = 2.into();
    b.local_only.next = true;
    b.awready.next = true;
    b.wready.next = true;
    b.bresp.next = 2.into(); // SLVERR: the record is not sent
    let cycle = |b: &mut Broadcast, start: bool, bvalid: bool, ack: bool, clear: bool| {
        b.start.next = start;
        b.bvalid.next = bvalid;
        b.ack.next = ack;
        b.clear.next = clear;
        settle(b);
        edge(b);
        b.start.next = false;
        b.bvalid.next = false;
        b.ack.next = false;
        b.clear.next = false;
        settle(b);
        (b.acks.val().to_u64(), b.write_errors.val().to_u64())
    };
    // Three completions and one failed local write.
    for _ in 0..3 {
        cycle(&mut b, false, false, true, false);
    }
    cycle(&mut b, true, false, false, false); // Idle -> Local
    cycle(&mut b, false, false, false, false); // AW, W taken -> Resp
    assert_eq!(cycle(&mut b, false, true, false, false), (3, 1));
    // A run starts (Protocol's `started`): both read 0 from the next cycle,
    // a completion in that same cycle included.
    assert_eq!(cycle(&mut b, false, false, true, true), (0, 0));
    assert_eq!(cycle(&mut b, false, false, true, false), (1, 0));
}

/// Every record the kernel broadcasts is 2, 4 or 16 words at a lane that
/// is a multiple of its size, for every build size (Protocol asserts it
/// for its own N when it is built).
#[test]
fn every_broadcast_record_is_aligned_to_its_size() {
    use rhdl_ubft::io::broadcast::{check_lanes, lane_positions, RECORD_WORDS};
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, SB};
    for n in 1..=N {
        let mb = Mailbox::v3(n, G, SB);
        check_lanes(&mb);
        for (lane, words) in lane_positions(&mb) {
            assert!(RECORD_WORDS.contains(&words) && lane % words == 0);
        }
    }
}

/// For every record the kernel can send (2, 4 or 16 words at a lane that
/// is a multiple of its size, the words above the record zero), the beat
/// and strobes written are the old 16-lane shifter's: `data << 32 lane`
/// and the record's bytes; held from the cycle after `start` on.
#[test]
fn the_beat_is_the_record_at_its_lanes() {
    let mut b = block();
    b.network_ptr.next = 0x8000_0000u64.into();
    b.n.next = 3.into();
    b.id.next = 0.into();
    b.local_only.next = true;
    b.awready.next = true;
    b.wready.next = true;
    b.bresp.next = 0.into();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for words in [2usize, 4, 16] {
        for lane in (0..16).step_by(words) {
            for beat in [5u64, 6] {
                // The record in data's low words, zero above it.
                let mut data = Bits::<512>::default();
                for w in 0..words {
                    data.set_bits::<32>(32 * w, (next() & 0xffff_ffff).into());
                }
                let word = 0x0100_0000u64 + 16 * beat + lane as u64;
                b.word.next = word.into();
                b.words.next = (words as u64).into();
                b.data.next = data;
                b.start.next = true;
                b.bvalid.next = false;
                settle(&mut b);
                edge(&mut b);
                // Inputs move on once the record is taken.
                b.start.next = false;
                b.data.next = Bits::<512>::default();
                b.word.next = 0x0100_0001u64.into();
                b.words.next = 2.into();
                settle(&mut b);
                let want = data << ((32 * lane) as u64);
                let strb = (u64::MAX >> (64 - 4 * words)) << (4 * lane);
                for _ in 0..2 {
                    assert!(b.wvalid.val() || b.busy.val());
                    assert_eq!(b.wdata.val(), want, "{words} words at lane {lane}");
                    assert_eq!(b.wstrb.val().to_u64(), strb, "{words} words at lane {lane}");
                    edge(&mut b);
                    settle(&mut b);
                }
                // The write response: back to Idle (local only).
                b.bvalid.next = true;
                settle(&mut b);
                edge(&mut b);
                b.bvalid.next = false;
                settle(&mut b);
                edge(&mut b);
                settle(&mut b);
                assert!(!b.busy.val());
                assert_eq!(b.wdata.val(), want, "held after the write");
            }
        }
    }
}

#[test]
fn the_roce_adapter_speaks_the_stacks_format() {
    use rhdl_ubft::io::roce::adapter::RoceAdapter;
    use rhdl_ubft::io::roce::{CqCompletion, SqCommand, RC_RDMA_WRITE_ONLY};
    let mut a = RoceAdapter::default();
    a.cmd_qpn.connect();
    a.cmd_addr.connect();
    a.cmd_len.connect();
    a.cmd_valid.connect();
    a.sq_tready.connect();
    a.cq_tdata.connect();
    a.cq_tvalid.connect();
    a.connect_all();
    a.cmd_qpn.next = 0x2a5.into();
    a.cmd_addr.next = 0x1_0380_0040u64.into();
    a.cmd_len.next = 64.into();
    a.cmd_valid.next = true;
    a.sq_tready.next = false;
    a.cq_tvalid.next = true;
    a.cq_tdata.next = CqCompletion {
        ssn: 7,
        cmplt: true,
        ..Default::default()
    }
    .pack()
    .into();
    assert!(simulate(&mut a, 20));
    let t = a.sq_tdata.val();
    let words = [0, 64, 128, 192].map(|o| t.get_bits::<64>(o).to_u64());
    let c = SqCommand::unpack(&words);
    assert_eq!(
        c,
        SqCommand {
            opcode: RC_RDMA_WRITE_ONLY,
            qpn: 0x2a5,
            host: false,
            last: true,
            offs: 0,
            laddr: 0x1_0380_0040,
            raddr: 0x1_0380_0040,
            length: 64,
            params: 0
        }
    );
    assert!(
        a.sq_tvalid.val() && !a.cmd_ready.val(),
        "back-pressure passes through"
    );
    assert!(a.ack.val() && a.cq_tready.val());
    a.cq_tdata.next = CqCompletion {
        ssn: 8,
        cmplt: false,
        ..Default::default()
    }
    .pack()
    .into();
    assert!(simulate(&mut a, 20));
    assert!(!a.ack.val(), "only completions count");
}

#[test]
fn the_roce_adapter_sends_a_read_when_broadcast_has_no_command_and_holds_it() {
    use rhdl_ubft::io::roce::adapter::RoceAdapter;
    use rhdl_ubft::io::roce::{SqCommand, RC_RDMA_READ_REQUEST, RC_RDMA_WRITE_ONLY};
    let mut a = RoceAdapter::default();
    a.connect_all();
    let cycle = |a: &mut RoceAdapter| {
        assert!(simulate(a, 20));
        a.clock.next = Clock::from(true);
        assert!(simulate(a, 20));
        a.clock.next = Clock::from(false);
        assert!(simulate(a, 20));
    };
    let sq = |a: &RoceAdapter| {
        let t = a.sq_tdata.val();
        SqCommand::unpack(&[0, 64, 128, 192].map(|o| t.get_bits::<64>(o).to_u64()))
    };
    a.rd_qpn.next = 0x101.into();
    a.rd_laddr.next = 0x1_0360_0400u64.into();
    a.rd_raddr.next = 0x1_0359_0040u64.into();
    a.rd_valid.next = true;
    a.cmd_valid.next = false;
    a.sq_tready.next = false;
    cycle(&mut a);
    assert!(a.sq_tvalid.val() && !a.rd_ready.val());
    assert_eq!(
        sq(&a),
        SqCommand {
            opcode: RC_RDMA_READ_REQUEST,
            qpn: 0x101,
            host: false,
            last: false,
            offs: 0,
            laddr: 0x1_0360_0400,
            raddr: 0x1_0359_0040,
            length: 64,
            params: 0
        },
        "a READ of one beat, no completion asked"
    );
    // Broadcast's command comes while the READ waits on sq: the READ stays
    // (AXI-Stream keeps TDATA while TVALID waits), and Broadcast waits.
    a.cmd_qpn.next = 0x102.into();
    a.cmd_addr.next = 0x1_0380_0040u64.into();
    a.cmd_len.next = 8.into();
    a.cmd_valid.next = true;
    cycle(&mut a);
    assert_eq!(sq(&a).opcode, RC_RDMA_READ_REQUEST);
    assert!(!a.cmd_ready.val());
    a.sq_tready.next = true;
    assert!(simulate(&mut a, 20));
    assert!(a.rd_ready.val() && !a.cmd_ready.val());
    cycle(&mut a);
    // Taken: Broadcast's WRITE goes next, ahead of a READ still asked for.
    assert_eq!(sq(&a).opcode, RC_RDMA_WRITE_ONLY);
    assert!(a.cmd_ready.val() && !a.rd_ready.val());
}

// Rounds (R13) and records of more than one beat.

/// One broadcast request of a scripted run.
#[derive(Copy, Clone, Debug)]
struct Req {
    at: u64,
    round: bool,
    local_only: bool,
    beats: u64,
}

impl Req {
    fn plain(at: u64) -> Req {
        Req {
            at,
            round: false,
            local_only: false,
            beats: 1,
        }
    }
    fn round(at: u64) -> Req {
        Req {
            round: true,
            ..Req::plain(at)
        }
    }
}

/// A scripted run: requests, completions and the other side's readiness.
struct Script {
    n: u64,
    id: u64,
    reqs: Vec<Req>,
    /// Cycles in which `ack` is high.
    acks: Vec<u64>,
    /// Write response latency after the last W beat (and AW).
    wlat: u64,
    bresp: u64,
    /// `bresp` answers the B's before this cycle; OKAY from it on.
    bresp_until: u64,
    /// Cycles in which `clear` is high (a run starts).
    clear_at: Vec<u64>,
    awready: fn(u64) -> bool,
    wready: fn(u64) -> bool,
    tvalid: fn(u64) -> bool,
    sq_ready: fn(u64) -> bool,
    /// The stream raises `s_rec_tlast` on this beat (None: on the last).
    tlast_at: Option<u64>,
    cycles: u64,
}

impl Script {
    fn new(n: u64, id: u64, reqs: Vec<Req>) -> Script {
        Script {
            n,
            id,
            reqs,
            acks: vec![],
            wlat: 4,
            bresp: 0,
            bresp_until: u64::MAX,
            clear_at: vec![],
            awready: |_| true,
            wready: |_| true,
            tvalid: |_| true,
            sq_ready: |_| true,
            tlast_at: None,
            cycles: 300,
        }
    }
}

#[derive(Default, Debug)]
struct RTrace {
    /// (cycle, awaddr, awlen).
    aw: Vec<(u64, u64, u64)>,
    /// (cycle, wdata, wstrb, wlast).
    w: Vec<(u64, Bits<512>, u64, bool)>,
    /// Cycles in which a stream beat was taken.
    taken: Vec<u64>,
    commands: Vec<(u64, Cmd)>,
    done: Vec<u64>,
    round_done: Vec<u64>,
    round_error: Vec<u64>,
    /// Cycles in which `busy` was high.
    busy: Vec<u64>,
    /// Cycles in which `failed` was high.
    failed: Vec<u64>,
    errors: u64,
}

/// The record's beat `j` (for the stream and the check): word w of it is
/// 0xB0000000 | j << 8 | w.
fn rec_beat(j: u64) -> Bits<512> {
    let mut b = Bits::<512>::default();
    for w in 0..16u64 {
        b.set_bits::<32>(32 * w as usize, (0xB000_0000u64 | j << 8 | w).into());
    }
    b
}

/// The record's first word: beat 5 of the mailbox buffer.
const REC_WORD: u64 = 0x0100_0000 + 16 * 5;
const REC_BYTE: u64 = 0x8000_0000 + REC_WORD * 4;

fn script(s: &Script) -> RTrace {
    let mut b = block();
    let mut t = RTrace::default();
    // The request in progress: its index, the stream beat next offered,
    // the W beats so far, the cycle of its B.
    let mut cur: Option<usize> = None;
    let mut next_beat = 1u64;
    let mut w_beats = 0u64;
    let mut b_at: Option<u64> = None;
    let mut aw_seen = false;
    let mut last_w: Option<u64> = None;
    let mut held_w: Option<(Bits<512>, u64, bool)> = None;
    // A stream beat once offered stays offered until taken (AXI4-Stream).
    let mut offered = false;
    for cycle in 0..s.cycles {
        let req = s.reqs.iter().position(|r| r.at == cycle);
        b.start.next = req.is_some();
        if let Some(i) = req {
            let r = s.reqs[i];
            assert!(!b.busy.val() || cur.is_none(), "test: a request while busy");
            cur = Some(i);
            next_beat = 1;
            w_beats = 0;
            b_at = None;
            aw_seen = false;
            last_w = None;
            b.round.next = r.round;
            b.local_only.next = r.local_only;
            b.beats.next = r.beats.into();
            b.word.next = REC_WORD.into();
            b.words.next = if r.beats > 1 { 2.into() } else { 16.into() };
            b.data.next = rec_beat(0);
        } else {
            // Inputs move on once the request is taken.
            b.round.next = false;
            b.local_only.next = false;
            b.beats.next = 1.into();
            b.data.next = Bits::<512>::default();
        }
        b.network_ptr.next = 0x8000_0000u64.into();
        b.n.next = s.n.into();
        b.id.next = s.id.into();
        let mut qpns = Bits::<QPNS_BITS>::default();
        for p in 0..N {
            qpns.set_bits::<10>(10 * p, (16 + p as u64).into());
        }
        b.qpns.next = qpns;
        b.awready.next = (s.awready)(cycle);
        b.wready.next = (s.wready)(cycle);
        let beats = cur.map_or(1, |i| s.reqs[i].beats);
        let offer = next_beat < beats && (offered || (s.tvalid)(cycle));
        b.s_rec_tvalid.next = offer;
        b.s_rec_tdata.next = if offer {
            rec_beat(next_beat)
        } else {
            Bits::<512>::default()
        };
        b.s_rec_tlast.next = offer && next_beat == s.tlast_at.unwrap_or(beats - 1);
        b.bvalid.next = b_at == Some(cycle);
        b.bresp.next = if cycle < s.bresp_until { s.bresp } else { 0 }.into();
        b.clear.next = s.clear_at.contains(&cycle);
        b.cmd_ready.next = (s.sq_ready)(cycle);
        b.ack.next = s.acks.contains(&cycle);
        settle(&mut b);
        if b.busy.val() {
            t.busy.push(cycle);
        }
        if b.failed.val() {
            t.failed.push(cycle);
        }
        if b.awvalid.val() && b.awready.val() {
            t.aw.push((cycle, b.awaddr.val().to_u64(), b.awlen.val().to_u64()));
            aw_seen = true;
        }
        if b.wvalid.val() {
            let w = (b.wdata.val(), b.wstrb.val().to_u64(), b.wlast.val());
            if let Some(h) = held_w {
                assert_eq!(h, w, "W held stable until wready (cycle {cycle})");
            }
            held_w = Some(w);
            if b.wready.val() {
                t.w.push((cycle, w.0, w.1, w.2));
                held_w = None;
                w_beats += 1;
                if w_beats == beats {
                    last_w = Some(cycle);
                }
            }
        } else {
            assert!(
                held_w.is_none(),
                "wvalid fell before wready (cycle {cycle})"
            );
        }
        offered = offer;
        if b.s_rec_tready.val() && offer {
            t.taken.push(cycle);
            next_beat += 1;
            offered = false;
        }
        if b_at.is_none() && aw_seen {
            if let Some(l) = last_w {
                let aw = t.aw.last().unwrap().0;
                b_at = Some(l.max(aw) + s.wlat);
            }
        }
        if b.cmd_valid.val() && b.cmd_ready.val() {
            t.commands.push((cycle, cmd(&b)));
        }
        if b.done.val() {
            t.done.push(cycle);
        }
        if b.round_done.val() {
            t.round_done.push(cycle);
        }
        if b.round_error.val() {
            t.round_error.push(cycle);
        }
        edge(&mut b);
    }
    settle(&mut b);
    t.errors = b.write_errors.val().to_u64();
    t
}

fn cycles(v: &[(u64, Cmd)]) -> Vec<u64> {
    v.iter().map(|(c, _)| *c).collect()
}

/// A round writes as a broadcast does (the same cycles, `done` included),
/// then stays busy until every command has its completion and D_LAND more
/// cycles have passed: `round_done` pulses once, at the last completion +
/// D_LAND + 2.
#[test]
fn a_round_ends_d_land_after_its_last_completion() {
    use rhdl_ubft::params::D_LAND;
    for last in [60u64, 200] {
        let mut s = Script::new(5, 2, vec![Req::round(1)]);
        // The four completions, in any order of queue pairs; the last at
        // `last`.
        s.acks = vec![30, 31, 45, last];
        let t = script(&s);
        // The broadcast's own cycles: W at 2, AW at 2, B at 6, commands
        // from 7 (own id skipped at 9), done two cycles after the last.
        assert_eq!(t.aw.iter().map(|a| a.0).collect::<Vec<_>>(), vec![2]);
        assert_eq!(cycles(&t.commands), vec![7, 8, 10, 11]);
        assert_eq!(t.done, vec![13]);
        let end = last + D_LAND + 2;
        assert_eq!(t.round_done, vec![end], "last completion at {last}");
        assert!(t.round_error.is_empty());
        assert_eq!(
            t.busy,
            (2..end).collect::<Vec<_>>(),
            "busy until round_done"
        );
    }
    // The same record as a plain broadcast: staged, its commands from 2
    // beside the local write (B at 6), done two cycles after B; not busy
    // after done, no round_done.
    let mut s = Script::new(5, 2, vec![Req::plain(1)]);
    s.acks = vec![30, 31, 45, 60];
    let t = script(&s);
    assert_eq!(cycles(&t.commands), vec![2, 3, 5, 6]);
    assert_eq!(t.done, vec![8]);
    assert_eq!(t.busy, (2..8).collect::<Vec<_>>());
    assert!(t.round_done.is_empty());
}

/// Completions of an earlier broadcast still outstanding when a round
/// starts hold the round: it ends only when every command taken, earlier
/// ones included, has its completion. Here the first two completions after
/// the round's commands are the earlier broadcast's (one of them in the
/// cycle the round's first command is taken): a round that counted its own
/// n - 1 completions would end D_LAND after cycle 41.
#[test]
fn a_round_waits_for_the_completions_of_earlier_broadcasts() {
    use rhdl_ubft::params::D_LAND;
    // n = 3, id 0: two commands each (own id skipped first). The plain
    // broadcast at 1 is staged, takes its commands at 3 and 4 and is done
    // at 8 (B at 6); the round starts at 12 and takes its commands at 19
    // and 20, after its B.
    let mut s = Script::new(3, 0, vec![Req::plain(1), Req::round(12)]);
    let first = script(&s);
    assert_eq!(cycles(&first.commands), vec![3, 4, 19, 20]);
    assert_eq!(first.done, vec![8, 22]);
    assert!(first.round_done.is_empty(), "no completion, no end");
    s.acks = vec![19, 41, 90, 91];
    let t = script(&s);
    assert_eq!(cycles(&t.commands), vec![3, 4, 19, 20]);
    assert_eq!(t.done, vec![8, 22]);
    assert_eq!(t.round_done, vec![91 + D_LAND + 2]);
    // A local-only round waits for them too, then D_LAND: it writes
    // nothing remote, but the rule is the same.
    let lo = Req {
        local_only: true,
        ..Req::round(12)
    };
    let mut s = Script::new(3, 0, vec![Req::plain(1), lo]);
    s.acks = vec![50, 70];
    let t = script(&s);
    assert_eq!(cycles(&t.commands), vec![3, 4]);
    // The local write's B at 17, done at 18, then the last completion.
    assert_eq!(t.done, vec![8, 18]);
    assert_eq!(t.round_done, vec![70 + D_LAND + 2]);
    // With nothing outstanding, a local-only round ends D_LAND + 1 after
    // its done.
    let mut s = Script::new(3, 0, vec![lo]);
    s.acks = vec![];
    let t = script(&s);
    assert_eq!(t.done, vec![18]);
    assert_eq!(t.round_done, vec![18 + D_LAND + 1]);
}

/// A round whose local write fails sends nothing and ends at once, with
/// `round_error` alongside `round_done` (and `done`), so a machine never
/// waits for completions that will not come.
#[test]
fn a_round_whose_local_write_fails_ends_with_round_error() {
    let mut s = Script::new(5, 2, vec![Req::round(1)]);
    s.bresp = 2;
    let t = script(&s);
    assert!(t.commands.is_empty());
    // W and AW at 2, B at 6, the end at 7.
    assert_eq!(t.done, vec![7]);
    assert_eq!(t.round_done, vec![7]);
    assert_eq!(t.round_error, vec![7]);
    assert_eq!(t.busy, (2..7).collect::<Vec<_>>());
    assert_eq!(t.errors, 1);
    // A failed plain broadcast raises neither.
    let mut s = Script::new(5, 2, vec![Req::plain(1)]);
    s.bresp = 2;
    let t = script(&s);
    assert_eq!(t.done, vec![7]);
    assert!(t.round_done.is_empty() && t.round_error.is_empty());
}

/// After a failed round Broadcast fails stop: HBM may hold the round's
/// record without the peers, so it writes nothing more, locally or to a
/// peer, until `clear`. Every later request ends the cycle after it (a
/// round with `round_error`), so no machine waits. A failed broadcast of
/// more than one beat (sent after its local write, so to no peer) does not
/// fail it stop, a failed staged one does, and `clear` (the next run)
/// ends it.
#[test]
fn after_a_failed_round_nothing_is_written_until_clear() {
    let t = {
        let reqs = vec![
            Req::round(1),
            Req::plain(20),
            Req::round(30),
            Req::plain(60),
        ];
        let mut s = Script::new(5, 2, reqs);
        s.bresp = 2;
        s.bresp_until = 10;
        s.clear_at = vec![50];
        s.acks = vec![];
        script(&s)
    };
    // The failed round writes locally (B at 6, SLVERR), then nothing until
    // the clear at 50: the broadcast at 60 writes (AW at 61) and, staged,
    // sends beside it.
    assert_eq!(t.aw.iter().map(|a| a.0).collect::<Vec<_>>(), vec![2, 61]);
    assert_eq!(cycles(&t.commands), vec![61, 62, 64, 65]);
    assert_eq!(t.done, vec![7, 21, 31, 67]);
    assert_eq!(t.round_done, vec![7, 31]);
    assert_eq!(t.round_error, vec![7, 31]);
    assert_eq!(t.errors, 0, "the clear at 50 zeroed the count");
    assert_eq!(t.failed, (7..51).collect::<Vec<_>>());
    assert!(!t.busy.contains(&21) && !t.busy.contains(&31));
    // A failed plain broadcast of two beats leaves Broadcast working.
    let two = |at| Req {
        beats: 2,
        ..Req::plain(at)
    };
    let mut s = Script::new(5, 2, vec![two(1), Req::plain(20)]);
    s.bresp = 2;
    s.bresp_until = 10;
    let t = script(&s);
    assert_eq!(t.aw.iter().map(|a| a.0).collect::<Vec<_>>(), vec![2, 21]);
    assert_eq!(cycles(&t.commands), vec![21, 22, 24, 25]);
    assert!(t.round_error.is_empty() && t.failed.is_empty());
    // A failed staged one, whose commands went out, fails it stop.
    let mut s = Script::new(5, 2, vec![Req::plain(1), Req::plain(20)]);
    s.bresp = 2;
    s.bresp_until = 10;
    let t = script(&s);
    assert_eq!(t.aw.iter().map(|a| a.0).collect::<Vec<_>>(), vec![2]);
    assert_eq!(cycles(&t.commands), vec![2, 3, 5, 6]);
    assert_eq!(t.done, vec![7, 21]);
    assert_eq!(t.failed, (7..300).collect::<Vec<_>>());
}

/// Checks a record of `beats` beats as written: one AW (the record's
/// address, AWLEN = beats - 1), the beats in order (the first `data`, the
/// rest the stream's), full strobes, WLAST on the last only; one command
/// per peer of beats × 64 bytes at the record's address.
fn check_record(t: &RTrace, beats: u64, peers: usize) {
    assert_eq!(t.aw.len(), 1);
    assert_eq!(
        (t.aw[0].1, t.aw[0].2),
        (REC_BYTE, beats - 1),
        "AWADDR, AWLEN"
    );
    assert_eq!(t.w.len() as u64, beats);
    for (j, (_, data, strb, last)) in t.w.iter().enumerate() {
        assert_eq!(*data, rec_beat(j as u64), "beat {j}");
        assert_eq!(*strb, u64::MAX, "beat {j}'s strobes");
        assert_eq!(*last, j as u64 == beats - 1, "WLAST on beat {j}");
    }
    assert_eq!(t.commands.len(), peers);
    for (_, c) in &t.commands {
        assert_eq!((c.addr, c.len), (REC_BYTE, 64 * beats));
    }
}

fn multi(beats: u64) -> Req {
    Req {
        beats,
        ..Req::plain(1)
    }
}

/// A two-beat record (v3's prep_sig, echo_prep, certify, echo_commit,
/// seal, echo_seal): one burst of two beats, the second from the stream in
/// the cycle after the first; B, the commands and `done` one cycle later
/// than a one-beat record's.
#[test]
fn a_two_beat_record_is_one_burst_and_one_write_of_128_bytes() {
    let t = script(&Script::new(5, 2, vec![multi(2)]));
    check_record(&t, 2, 4);
    assert_eq!(t.aw[0].0, 2);
    assert_eq!(t.w.iter().map(|w| w.0).collect::<Vec<_>>(), vec![2, 3]);
    assert_eq!(t.taken, vec![3]);
    // B at 3 + 4; commands from 8.
    assert_eq!(cycles(&t.commands), vec![8, 9, 11, 12]);
    assert_eq!(t.done, vec![14]);
}

/// A sixteen-beat record (v3's new_view stride): AWLEN 15, a beat a cycle
/// from the stream, commands of 1,024 bytes (`cmd_len` is 16 bits).
#[test]
fn a_sixteen_beat_record_is_one_burst_and_one_write_of_1024_bytes() {
    let t = script(&Script::new(3, 1, vec![multi(16)]));
    check_record(&t, 16, 2);
    assert_eq!(
        t.w.iter().map(|w| w.0).collect::<Vec<_>>(),
        (2..18).collect::<Vec<_>>()
    );
    assert_eq!(t.taken, (3..18).collect::<Vec<_>>());
    // B at 17 + 4 = 21; peer 0 at 22, own id at 23, peer 2 at 24.
    assert_eq!(cycles(&t.commands), vec![22, 24]);
    assert_eq!(t.done, vec![26]);
}

/// Back-pressure on the stream (`s_rec_tvalid` low) and on HBM (`wready`
/// low) holds the record: each low cycle delays its beat by one, W holds
/// its payload until WREADY, and no beat is lost or repeated.
#[test]
fn back_pressure_on_the_stream_and_on_wready_holds_the_record() {
    let mut s = Script::new(3, 1, vec![multi(6)]);
    s.tvalid = |c| !matches!(c, 4 | 5 | 10);
    s.wready = |c| !matches!(c, 2 | 7 | 8);
    let t = script(&s);
    check_record(&t, 6, 2);
    // Beat 0 waits for wready (3). Beat 1, offered from 3 on (held while
    // beat 0 goes), at 4; beat 2 waits for tvalid (low at 5: 6); beat 3,
    // offered at 7, for wready (low at 7, 8: 9); beat 4 for tvalid (low at
    // 10: 11); beat 5 at 12.
    assert_eq!(
        t.w.iter().map(|w| w.0).collect::<Vec<_>>(),
        vec![3, 4, 6, 9, 11, 12]
    );
    assert_eq!(t.taken, vec![4, 6, 9, 11, 12], "stream beats taken with W");
    // B at 12 + 4 = 16, peers 0 and 2 at 17 and 19.
    assert_eq!(cycles(&t.commands), vec![17, 19]);
}

/// A stream whose TLAST disagrees with `beats` (early or missing): the
/// burst still has `beats` beats (AXI needs them), the record goes to no
/// peer, and it counts as a write error (a round ends with `round_error`).
#[test]
fn a_stream_that_disagrees_with_beats_sends_nothing() {
    for tlast in [2u64, 9] {
        let mut s = Script::new(
            3,
            1,
            vec![Req {
                round: true,
                ..multi(4)
            }],
        );
        s.tlast_at = Some(tlast);
        let t = script(&s);
        assert_eq!(t.w.len(), 4);
        assert_eq!(
            t.w.iter().map(|w| w.3).collect::<Vec<_>>(),
            vec![false, false, false, true]
        );
        assert!(t.commands.is_empty());
        assert_eq!(t.errors, 1);
        // W at 2 to 5, B at 9, the end at 10.
        assert_eq!(
            (t.round_done.clone(), t.round_error.clone()),
            (vec![10], vec![10])
        );
    }
}

/// Every record of more than one beat starts on a beat, has at most 16
/// beats and does not cross 4 KiB, for every build size; the checked
/// records include the 2-, 6- and 13-beat ones.
#[test]
fn every_record_of_more_than_one_beat_is_one_burst() {
    use rhdl_ubft::io::broadcast::{bursts, check_beats};
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, SB};
    for n in 1..=N {
        let mb = Mailbox::v3(n, G, SB);
        check_beats(&mb);
    }
    let sizes: std::collections::BTreeSet<usize> = bursts(&Mailbox::v3(N, G, SB))
        .into_iter()
        .map(|r| r.2)
        .collect();
    assert_eq!(sizes.into_iter().collect::<Vec<_>>(), vec![1, 2, 6, 13]);
}

/// The check fails on a layout Broadcast could not write in one burst:
/// DSig's 26-beat shares make 27-beat records.
#[test]
#[should_panic(expected = "at most 16")]
fn check_beats_refuses_a_record_longer_than_16_beats() {
    use rhdl_ubft::io::broadcast::check_beats;
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, SB_DSIG};
    check_beats(&Mailbox::v3(N, G, SB_DSIG));
}
