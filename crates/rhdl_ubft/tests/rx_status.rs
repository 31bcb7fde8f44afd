//! RxStatus, cycle by cycle, between a scripted stack and a scripted guard.
//!
//! The guard model takes a command when idle (`g_cmd_tready` high), makes
//! its `aws` AW handshakes one a cycle, the last the cycle before it is
//! idle again, `busy` cycles after the command (as the guard's timing:
//! a one-beat write's AW at a + 7, the next command at a + 8). HBM answers each AW with a B,
//! `b_lat` cycles later and in AW order, one a cycle. The stack presents
//! its commands back to back and takes statuses on a `tready` pattern.
//! Checked: the command stream passes through unchanged while the FIFO has
//! room; each status names its command's queue pair and HBM beats, in the
//! order the commands were taken, and comes exactly at the first cycle
//! after the write is finished, after its last B and after the status
//! before it; with statuses not taken, eight fill the FIFO and the command
//! stream stops, losing nothing.

use rhdl_ubft::io::roce::WrCommand;
use rhdl_ubft::io::rx_status::RxStatus;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// One incoming write as the scripts see it.
#[derive(Clone, Copy, Debug)]
struct W {
    qpn: u64,
    /// AW handshakes the guard makes for it (0: refused).
    aws: u64,
    /// Cycles from its command to the guard's next idle cycle.
    busy: u64,
}

fn block() -> RxStatus {
    let mut b = RxStatus::default();
    b.clock.connect();
    b.s_cmd_tdata.connect();
    b.s_cmd_tvalid.connect();
    b.g_cmd_tready.connect();
    b.awvalid.connect();
    b.awready.connect();
    b.bvalid.connect();
    b.bresp.connect();
    b.bready.connect();
    b.m_sts_tready.connect();
    b.connect_all();
    b
}

fn cmd(qpn: u64) -> Bits<96> {
    let p = WrCommand::write(qpn, 0x1000, 64).pack();
    let mut b: Bits<96> = ((p & ((1 << 64) - 1)) as u64).into();
    b = b | (bit_cast::<96, 32>(((p >> 64) as u64).into()) << 64);
    b
}

/// What a run saw: per write, the cycle its command was taken, the cycle
/// the guard was idle after it, its last B; and the statuses (cycle, data).
#[derive(Debug, Default)]
struct Trace {
    taken: Vec<u64>,
    idle_after: Vec<u64>,
    last_b: Vec<Option<u64>>,
    statuses: Vec<(u64, u32)>,
    /// Cycles with `s_cmd_tvalid` high and the FIFO full (stream stopped).
    stopped: u64,
}

fn run(writes: &[W], b_lat: u64, sts_ready: &dyn Fn(u64) -> bool, cycles: u64) -> Trace {
    run_err(writes, b_lat, sts_ready, cycles, None)
}

/// `run`, with the B of index `bad` (counting every B from 0) answered
/// SLVERR.
fn run_err(
    writes: &[W],
    b_lat: u64,
    sts_ready: &dyn Fn(u64) -> bool,
    cycles: u64,
    bad: Option<usize>,
) -> Trace {
    run_reset(writes, b_lat, sts_ready, cycles, bad, 0..0)
}

/// `run_err`, with `ap_rst_n` low in the cycles `reset`: the interconnect
/// is reset with the kernel, so every B due then or later for an AW made
/// before or during it never comes.
fn run_reset(
    writes: &[W],
    b_lat: u64,
    sts_ready: &dyn Fn(u64) -> bool,
    cycles: u64,
    bad: Option<usize>,
    reset: std::ops::Range<u64>,
) -> Trace {
    let mut bs_seen = 0usize;
    let mut b = block();
    let mut t = Trace::default();
    let mut next = 0usize; // the stack's next command
    let mut guard: Option<(usize, u64)> = None; // (write, cycle taken)
    let mut bq: VecDeque<(u64, usize)> = VecDeque::new(); // (due, write)
    for c in 0..cycles {
        let idle = guard.is_none_or(|(i, at)| c >= at + writes[i].busy);
        if let Some((i, at)) = guard {
            if c == at + writes[i].busy {
                t.idle_after.push(c);
                guard = None;
            }
        }
        // Its AWs end the cycle before it is idle again, as the guard's do
        // (one-beat write: AW at a + 7, the next command at a + 8).
        let aw = guard.is_some_and(|(i, at)| {
            let w = writes[i];
            c + w.aws >= at + w.busy && c < at + w.busy
        });
        if reset.contains(&c) {
            bq.clear();
        }
        let b_now = bq.front().is_some_and(|&(due, _)| due <= c);
        b.rst_n.next = !reset.contains(&c);
        b.s_cmd_tvalid.next = next < writes.len();
        b.s_cmd_tdata.next = cmd(writes.get(next).map_or(0, |w| w.qpn));
        b.g_cmd_tready.next = idle;
        b.awvalid.next = aw;
        b.awready.next = true;
        b.bvalid.next = b_now;
        b.bresp.next = if b_now && bad == Some(bs_seen) { 2 } else { 0 }.into();
        b.bready.next = true;
        b.m_sts_tready.next = sts_ready(c);
        b.clock.next = Clock::from(false);
        assert!(simulate(&mut b, 100));
        // The pass-through: tvalid passes while the FIFO has room, and
        // tready is the guard's then; with the FIFO full both are 0.
        let valid = next < writes.len();
        assert!(!b.g_cmd_tvalid.val() || valid, "cycle {c}");
        assert!(!b.s_cmd_tready.val() || idle, "cycle {c}");
        if valid {
            let room = b.g_cmd_tvalid.val();
            assert_eq!(b.s_cmd_tready.val(), idle && room, "cycle {c}");
            if !room {
                t.stopped += 1;
            }
        }
        if b.g_cmd_tvalid.val() && idle {
            assert!(b.s_cmd_tready.val());
            guard = Some((next, c));
            t.taken.push(c);
            t.last_b.push(None);
            next += 1;
        }
        if aw && !reset.contains(&c) {
            let (i, _) = guard.unwrap();
            bq.push_back((c + b_lat, i));
        }
        if b_now {
            let (_, i) = bq.pop_front().unwrap();
            t.last_b[i] = Some(c);
            bs_seen += 1;
        }
        if b.m_sts_tvalid.val() && sts_ready(c) {
            t.statuses.push((c, b.m_sts_tdata.val().to_u32()));
        }
        b.clock.next = Clock::from(true);
        assert!(simulate(&mut b, 100));
    }
    t
}

/// Every status in order, with its write's queue pair and beats, at the
/// first cycle allowed (when the stack always takes them).
fn assert_exact(writes: &[W], t: &Trace) {
    assert_eq!(t.statuses.len(), writes.len(), "{t:?}");
    let mut prev = 0;
    for (i, w) in writes.iter().enumerate() {
        let (at, data) = t.statuses[i];
        assert_eq!(data & 0x3ff, w.qpn as u32, "write {i}");
        assert_eq!((data >> 16) & 0x3f, w.aws as u32, "write {i}");
        assert_eq!(data & !0x3f_03ff, 0, "write {i}: bits outside the fields");
        let mut due = t.idle_after[i] + 1;
        if let Some(lb) = t.last_b[i] {
            due = due.max(lb + 1);
        }
        if i > 0 {
            due = due.max(prev + 1);
        }
        assert_eq!(at, due, "write {i}: {t:?}");
        prev = at;
    }
}

#[test]
fn a_status_follows_the_last_b_of_its_write() {
    // Accepted writes of one, two and seventeen HBM beats; B 20 cycles
    // after each AW.
    let w = [
        W {
            qpn: 3,
            aws: 1,
            busy: 8,
        },
        W {
            qpn: 5,
            aws: 2,
            busy: 9,
        },
        W {
            qpn: 1023,
            aws: 17,
            busy: 45,
        },
    ];
    let t = run(&w, 20, &|_| true, 200);
    assert_exact(&w, &t);
    assert_eq!(t.stopped, 0);
    // Each status is after its own last B.
    for i in 0..w.len() {
        assert!(t.statuses[i].0 > t.last_b[i].unwrap());
    }
}

#[test]
fn a_refusal_waits_for_the_bs_of_the_writes_before_it() {
    // A refusal (no AW) right behind an accepted write whose B is late:
    // its status waits for that B; a refusal alone goes out the cycle after
    // the guard is idle.
    let w = [
        W {
            qpn: 7,
            aws: 0,
            busy: 6,
        },
        W {
            qpn: 8,
            aws: 1,
            busy: 8,
        },
        W {
            qpn: 9,
            aws: 0,
            busy: 6,
        },
        W {
            qpn: 10,
            aws: 0,
            busy: 6,
        },
    ];
    let t = run(&w, 40, &|_| true, 200);
    assert_exact(&w, &t);
    assert_eq!(t.statuses[0].0, t.idle_after[0] + 1);
    let b1 = t.last_b[1].unwrap();
    assert!(
        t.idle_after[2] + 1 < b1 + 1,
        "the refusal is decided before the B"
    );
    assert_eq!(t.statuses[2].0, b1 + 2, "after write 1's status");
}

#[test]
fn statuses_not_taken_fill_eight_places_and_stop_the_command_stream() {
    // Ten refusals; the stack takes no status before cycle 100.
    let w: Vec<W> = (0..10)
        .map(|i| W {
            qpn: 40 + i,
            aws: 0,
            busy: 6,
        })
        .collect();
    let t = run(&w, 20, &|c| c >= 100, 200);
    // Eight are finished and queued; the ninth is taken and finished only
    // once room is made.
    assert_eq!(t.statuses.len(), 10);
    assert!(t.stopped > 0);
    assert_eq!(t.statuses[0].0, 100);
    assert!(t.taken[8] < 100 && t.idle_after[8] < 100, "{t:?}");
    assert!(t.taken[9] > 100, "{t:?}");
    for (i, (_, d)) in t.statuses.iter().enumerate() {
        assert_eq!(d & 0x3ff, 40 + i as u32);
    }
    // In order, one a cycle once taken: the eight queued, then write 8
    // (its end was seen when room came back), then write 9.
    for i in 1..8 {
        assert_eq!(t.statuses[i].0, 100 + i as u64);
    }
}

#[test]
fn a_busy_receive_path_with_hbm_at_its_latency_never_stops_the_stream() {
    // Back-to-back one-beat writes (the guard's fastest accepted pace, a
    // command every 4 cycles) with B at HBM's 20 cycles: at most five
    // statuses wait, and the stream is never held.
    let w: Vec<W> = (0..40)
        .map(|i| W {
            qpn: i % 7,
            aws: 1,
            busy: 4,
        })
        .collect();
    let t = run(
        &w,
        rhdl_ubft::params::defaults::HBM_WRITE_LATENCY,
        &|_| true,
        600,
    );
    assert_exact(&w, &t);
    assert_eq!(t.stopped, 0);
    // Statuses queued at once: write i is in the FIFO from the cycle after
    // the guard finished it to the cycle its status is taken.
    let most = (0..600)
        .map(|c| {
            (0..w.len())
                .filter(|&i| t.idle_after[i] < c && c <= t.statuses[i].0)
                .count()
        })
        .max()
        .unwrap();
    assert_eq!(most, 5);
}

#[test]
fn after_a_b_that_is_not_okay_no_status_goes_out_again() {
    // Write 1's B is SLVERR: write 0's status goes out, write 1's (its
    // record is not in HBM) and every later one never do; eight fill the
    // FIFO, the guard finishes one more, and the command stream stops.
    let w: Vec<W> = (0..14)
        .map(|i| W {
            qpn: 60 + i,
            aws: 1,
            busy: 8,
        })
        .collect();
    let t = run_err(&w, 20, &|_| true, 400, Some(1));
    assert_eq!(t.statuses.len(), 1, "{t:?}");
    assert_eq!(t.statuses[0].1 & 0x3ff, 60);
    assert_eq!(t.taken.len(), 10, "{t:?}");
    assert!(t.stopped > 0);
}

#[test]
fn the_verilog_names_its_top_rhdl_ubft_rx_status() {
    let v = rhdl_ubft::io::rx_status::verilog();
    assert!(v.contains("module rhdl_ubft_rx_status("));
    assert!(!v.contains("module top("));
}

#[test]
fn a_write_whose_b_the_reset_takes_away_gets_its_status_after_the_reset() {
    // Two one-beat writes, B 20 cycles after each AW. The kernel is reset
    // for cycles 18..22: the first write's B (AW at 7, due at 27) and the
    // second's (AW at 15, due at 35) never come. Each still gets its
    // status, in order, from the cycle after the reset's first cycle: the
    // interconnect lost the B's, and the stack must not wait for them.
    let w = [
        W {
            qpn: 5,
            aws: 1,
            busy: 8,
        },
        W {
            qpn: 6,
            aws: 1,
            busy: 8,
        },
    ];
    let t = run_reset(&w, 20, &|_| true, 200, None, 18..22);
    assert_eq!(t.last_b, vec![None, None], "{t:?}");
    let at: Vec<u64> = t.statuses.iter().map(|s| s.0).collect();
    assert_eq!(at, vec![19, 20], "{t:?}");
    let qpns: Vec<u32> = t.statuses.iter().map(|s| s.1 & 0x3ff).collect();
    assert_eq!(qpns, vec![5, 6]);
    // Without the reset, each waits for its B.
    let t = run(&w, 20, &|_| true, 200);
    assert_exact(&w, &t);
}
