//! Stage, cycle by cycle: a one-beat record held for the stack's reads,
//! one per command sent, in command order; a read of anything else gets
//! zeros; `busy` until every copy is read.

use rhdl_ubft::io::roce::WrCommand;
use rhdl_ubft::io::stage::Stage;
use rust_hdl::prelude::*;

fn block() -> Stage {
    let mut s = Stage::default();
    s.connect_all();
    s.rst_n.next = true;
    s
}

fn settle(s: &mut Stage) {
    s.clock.next = Clock::from(false);
    assert!(simulate(s, 100));
}

fn edge(s: &mut Stage) {
    s.clock.next = Clock::from(true);
    assert!(simulate(s, 100));
    s.clock.next = Clock::from(false);
    assert!(simulate(s, 100));
}

const ADDR: u64 = 0x8000_0000 + 4 * 0x0100_0042;

fn record() -> Bits<512> {
    let mut d = Bits::<512>::default();
    d.set_bits::<32>(0, 0x0100_0005u64.into());
    d.set_bits::<32>(32, 0xCAFEu64.into());
    d
}

fn read(addr: u64, len: u64) -> Bits<96> {
    let c = WrCommand::payload_read(17, addr, len).pack();
    let mut b = Bits::<96>::default();
    b.set_bits::<64>(0, (c as u64).into());
    b.set_bits::<32>(64, ((c >> 64) as u64).into());
    b
}

/// One cycle: the inputs, then what the block shows before the edge.
#[derive(Default, Clone, Copy)]
struct In {
    put: bool,
    sent: bool,
    cmd: Option<(u64, u64)>,
    ready: bool,
    rst: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct Out {
    cmd_ready: bool,
    valid: bool,
    data: [u64; 2],
    keep: u64,
    last: bool,
    busy: bool,
}

fn step(s: &mut Stage, i: In) -> Out {
    s.put.next = i.put;
    s.put_addr.next = ADDR.into();
    s.put_len.next = 8.into();
    s.put_data.next = record();
    s.sent.next = i.sent;
    s.s_cmd_tvalid.next = i.cmd.is_some();
    s.s_cmd_tdata.next = i.cmd.map_or(Bits::default(), |(a, l)| read(a, l));
    s.m_data_tready.next = i.ready;
    s.rst_n.next = !i.rst;
    settle(s);
    let d = s.m_data_tdata.val();
    let o = Out {
        cmd_ready: s.s_cmd_tready.val(),
        valid: s.m_data_tvalid.val(),
        data: [d.get_bits::<32>(0).to_u64(), d.get_bits::<32>(32).to_u64()],
        keep: s.m_data_tkeep.val().to_u64(),
        last: s.m_data_tlast.val(),
        busy: s.busy.val(),
    };
    edge(s);
    o
}

#[test]
fn every_read_of_the_staged_record_gets_it_one_a_cycle() {
    let mut s = block();
    let put = In {
        put: true,
        ready: true,
        ..Default::default()
    };
    assert!(!step(&mut s, put).busy);
    // Three commands sent (n = 4), their reads one a cycle after them.
    let sent = In {
        sent: true,
        ready: true,
        ..Default::default()
    };
    step(&mut s, sent);
    let o = step(
        &mut s,
        In {
            cmd: Some((ADDR, 8)),
            ..sent
        },
    );
    assert!(o.busy && o.cmd_ready && !o.valid);
    let mut beats = vec![];
    for c in 0..4 {
        let o = step(
            &mut s,
            In {
                sent: c == 0,
                cmd: (c < 2).then_some((ADDR, 8)),
                ready: true,
                ..Default::default()
            },
        );
        if o.valid {
            beats.push(o.clone());
        }
        assert!(o.busy || c == 3, "busy until the last copy is taken ({c})");
    }
    assert_eq!(beats.len(), 3, "one beat a read, a read a cycle");
    for b in &beats {
        assert_eq!(b.data, [0x0100_0005, 0xCAFE]);
        assert_eq!((b.keep, b.last), (0xff, true));
    }
    assert!(!step(&mut s, In::default()).busy);
}

#[test]
fn a_read_of_anything_else_gets_zeros_of_its_length_and_owes_nothing() {
    let mut s = block();
    step(
        &mut s,
        In {
            put: true,
            sent: true,
            ..Default::default()
        },
    );
    // 100 bytes elsewhere: two beats of zeros, the second's keep 36 bytes.
    let o = step(
        &mut s,
        In {
            cmd: Some((ADDR + 64, 100)),
            ready: true,
            ..Default::default()
        },
    );
    assert!(o.busy && o.cmd_ready);
    let a = step(
        &mut s,
        In {
            ready: true,
            ..Default::default()
        },
    );
    let b = step(
        &mut s,
        In {
            ready: true,
            ..Default::default()
        },
    );
    assert_eq!(
        (a.valid, a.data, a.keep, a.last),
        (true, [0, 0], u64::MAX, false)
    );
    assert_eq!((b.valid, b.data, b.last), (true, [0, 0], true));
    assert_eq!(b.keep, (1u64 << 36) - 1, "the last beat keeps its 36 bytes");
    assert!(b.busy, "the record's own read is still owed");
    // The record's length with another address, or another length: misses.
    for (addr, len) in [(ADDR + 4, 8), (ADDR, 16)] {
        step(
            &mut s,
            In {
                cmd: Some((addr, len)),
                ready: true,
                ..Default::default()
            },
        );
        let o = step(
            &mut s,
            In {
                ready: true,
                ..Default::default()
            },
        );
        assert_eq!((o.valid, o.data), (true, [0, 0]));
    }
    assert!(step(&mut s, In::default()).busy);
}

#[test]
fn a_beat_waits_for_tready_stable_and_the_record_stays_until_taken() {
    let mut s = block();
    step(
        &mut s,
        In {
            put: true,
            sent: true,
            ..Default::default()
        },
    );
    step(
        &mut s,
        In {
            cmd: Some((ADDR, 8)),
            ..Default::default()
        },
    );
    // Held for three cycles: stable, no new command taken, busy (the owed
    // count is 0, the beat is not taken), and a put is refused.
    for _ in 0..3 {
        let o = step(
            &mut s,
            In {
                put: true,
                cmd: Some((ADDR, 8)),
                ..Default::default()
            },
        );
        assert!(o.valid && !o.cmd_ready && o.busy);
        assert_eq!(o.data, [0x0100_0005, 0xCAFE]);
    }
    let o = step(
        &mut s,
        In {
            ready: true,
            ..Default::default()
        },
    );
    assert!(o.valid && o.cmd_ready);
    assert!(!step(&mut s, In::default()).busy);
}

#[test]
fn a_reset_clears_the_reads_owed_and_keeps_the_record() {
    let mut s = block();
    step(
        &mut s,
        In {
            put: true,
            sent: true,
            ..Default::default()
        },
    );
    step(
        &mut s,
        In {
            sent: true,
            ..Default::default()
        },
    );
    assert!(step(&mut s, In::default()).busy);
    step(
        &mut s,
        In {
            rst: true,
            ..Default::default()
        },
    );
    assert!(
        !step(&mut s, In::default()).busy,
        "Broadcast may stage again"
    );
    // The stack, not reset, still reads the record it was sent: it gets it.
    step(
        &mut s,
        In {
            cmd: Some((ADDR, 8)),
            ready: true,
            ..Default::default()
        },
    );
    let o = step(
        &mut s,
        In {
            ready: true,
            ..Default::default()
        },
    );
    assert_eq!(
        (o.valid, o.data, o.busy),
        (true, [0x0100_0005, 0xCAFE], true)
    );
    assert!(
        !step(&mut s, In::default()).busy,
        "a read with nothing owed"
    );
}

/// The stack asks for the payload at the earliest in the cycle Broadcast's
/// registered `sent` for the command arrives: the read served and the
/// `sent` leave nothing owed.
#[test]
fn a_read_in_the_cycle_of_its_sent_owes_nothing_after_it() {
    let mut s = block();
    step(
        &mut s,
        In {
            put: true,
            ..Default::default()
        },
    );
    let o = step(
        &mut s,
        In {
            sent: true,
            cmd: Some((ADDR, 8)),
            ready: true,
            ..Default::default()
        },
    );
    assert!(o.cmd_ready && !o.busy);
    let o = step(
        &mut s,
        In {
            ready: true,
            ..Default::default()
        },
    );
    assert_eq!(
        (o.valid, o.data, o.busy),
        (true, [0x0100_0005, 0xCAFE], true)
    );
    assert!(!step(&mut s, In::default()).busy, "nothing owed");
}
