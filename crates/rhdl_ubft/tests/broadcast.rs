//! Broadcast, cycle by cycle: the local write first, then one RDMA WRITE
//! command per peer, held under back-pressure, nothing dropped; and the RoCE
//! adapter that puts a command into the stack's format.

use rhdl_ubft::broadcast::Broadcast;
use rhdl_ubft::params::N;
use rhdl_ubft::regs::QPNS_BITS;
use rust_hdl::prelude::*;

fn block() -> Broadcast {
    let mut b = Broadcast::default();
    b.clock.connect();
    b.rst_n.connect();
    b.start.connect();
    b.word.connect();
    b.words.connect();
    b.data.connect();
    b.local_only.connect();
    b.network_ptr.connect();
    b.n.connect();
    b.id.connect();
    b.qpns.connect();
    b.awready.connect();
    b.wready.connect();
    b.bresp.connect();
    b.bvalid.connect();
    b.cmd_ready.connect();
    b.ack.connect();
    b.clear.connect();
    b.connect_all();
    b.rst_n.next = true;
    b
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
    commands: Vec<(u64, Cmd)>,
    done: Option<u64>,
    /// `write_errors` at the end.
    errors: u64,
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
    let mut b = block();
    let mut t = Trace {
        aw: None,
        w: None,
        commands: vec![],
        done: None,
        errors: 0,
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
        settle(&mut b);
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
                t.aw.is_some() && t.w.is_some(),
                "commands only after the local write"
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
    t
}

#[test]
fn the_record_reaches_every_peer_after_the_local_write() {
    let t = run(5, 2, 4, false, |_| true);
    // AW held from cycle 2 until awready at 3; W taken at 2; B at 3 + 4 = 7.
    assert_eq!(t.aw, Some(3));
    assert_eq!(t.w, Some(2));
    let peers: Vec<u64> = t.commands.iter().map(|(_, c)| c.qpn - 16).collect();
    assert_eq!(peers, vec![0, 1, 3, 4], "every peer once, never itself");
    // B accepted at 7; Send from 8: peers 0, 1 at 8, 9; own id skipped at 10.
    let cycles: Vec<u64> = t.commands.iter().map(|(c, _)| *c).collect();
    assert_eq!(cycles, vec![8, 9, 11, 12]);
    assert_eq!(t.done, Some(14));
    for (_, c) in &t.commands {
        assert_eq!(c.len, 8);
        assert_eq!(c.addr, 0x8000_0000 + (0x0100_0000 + 48 + 4) * 4);
    }
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

/// A local write answered with an error (SLVERR) leaves the record out of
/// local HBM, from where the stack would read the payload: no RDMA WRITE to
/// any peer, no retry; `write_errors` counts it and `done` pulses as after
/// a local-only record.
#[test]
fn a_failed_local_write_sends_nothing() {
    let ok = run(5, 2, 4, false, |_| true);
    assert_eq!(ok.errors, 0);
    assert_eq!(ok.commands.len(), 4);
    let t = run_bresp(5, 2, 4, false, 2, |_| true);
    assert_eq!((t.aw, t.w), (Some(3), Some(2)));
    assert!(t.commands.is_empty(), "{:?}", t.commands);
    assert_eq!(t.done, Some(8));
    assert_eq!(t.errors, 1);
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
    use rhdl_ubft::broadcast::{check_lanes, lane_positions, RECORD_WORDS};
    use rhdl_ubft::layout::Mailbox;
    use rhdl_ubft::params::{G, SB};
    for n in 1..=N {
        let mb = Mailbox::v2(n, G, SB);
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
    use rhdl_ubft::roce::{CqCompletion, SqCommand, RC_RDMA_WRITE_ONLY};
    use rhdl_ubft::roce_adapter::RoceAdapter;
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
