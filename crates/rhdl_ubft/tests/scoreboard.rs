//! Scoreboard against docs/scoreboard.md: a write is in `view` the cycle
//! after it is handed over, a poll's beat in the cycle of its `done` and
//! only where no write came since the beat was watched, a new address
//! forgets the mirror from the next cycle, unknown words read 0; and, over random traffic,
//! against a reference written from the page.

use rhdl_ubft::io::scoreboard::Scoreboard;
use rust_hdl::prelude::*;

const PTR: u64 = 0x10_0000;

mod common;
use common::Rng;

/// One cycle's inputs.
#[derive(Clone, Default)]
struct Ins {
    rst: bool,
    /// Word indices of the prepare, the will_cert row, the will_commit row.
    words: [u32; 3],
    sel: u8,
    rx: Option<(u32, [u32; 16], u16)>,
    tx: Option<(u32, [u32; 16], u16)>,
    /// (word, one beat)
    poll_start: Option<(u32, bool)>,
    /// (error, beat)
    poll_done: Option<(bool, [u32; 16])>,
}

fn beat_bits(w: &[u32; 16]) -> Bits<512> {
    let mut b: Bits<512> = 0.into();
    for (i, x) in w.iter().enumerate() {
        b = b | (bit_cast::<512, 32>((*x as u64).into()) << (32 * i as u64));
    }
    b
}

fn words_of(b: Bits<512>) -> [u32; 16] {
    std::array::from_fn(|i| b.get_bits::<32>(32 * i).to_u32())
}

fn strobes(mask: u16) -> Bits<64> {
    let mut s = 0u64;
    for i in 0..16 {
        if mask >> i & 1 == 1 {
            s |= 0xf << (4 * i);
        }
    }
    s.into()
}

fn addr(word: u32) -> u64 {
    PTR + 4 * word as u64
}

/// The page's rules, as plain Rust.
#[derive(Default)]
struct Reference {
    w: [[u32; 16]; 3],
    known: [u16; 3],
    capt: [u16; 3],
    at: [u64; 3],
    pend: Option<u64>,
}

impl Reference {
    fn beat(word: u32) -> u64 {
        addr(word) & !63
    }

    /// The view in this cycle, then the clock edge.
    fn step(&mut self, i: &Ins) -> [u32; 16] {
        let wa: [u64; 3] = std::array::from_fn(|j| Self::beat(i.words[j]));
        let kn = self.known;
        let cp = self.capt;
        let mut fill = [false; 3];
        for j in 0..3 {
            fill[j] = matches!(i.poll_done, Some((false, _))) && self.pend == Some(self.at[j]);
        }
        let mut view = [0u32; 16];
        if (1..=3).contains(&i.sel) {
            let j = i.sel as usize - 1;
            for (x, v) in view.iter_mut().enumerate() {
                if fill[j] && cp[j] >> x & 1 == 0 {
                    *v = i.poll_done.as_ref().unwrap().1[x];
                } else if kn[j] >> x & 1 == 1 {
                    *v = self.w[j][x];
                }
            }
        }
        // The edge.
        for j in 0..3 {
            let (mut k, mut c) = (kn[j], cp[j]);
            if fill[j] {
                k = 0xffff;
                let b = i.poll_done.as_ref().unwrap().1;
                for x in 0..16 {
                    if cp[j] >> x & 1 == 0 {
                        self.w[j][x] = b[x];
                    }
                }
            }
            for (wr, _) in [(&i.rx, 0), (&i.tx, 1)] {
                if let Some((word, data, mask)) = wr {
                    if Self::beat(*word) == self.at[j] {
                        k |= mask;
                        c |= mask;
                        for x in 0..16 {
                            if mask >> x & 1 == 1 {
                                self.w[j][x] = data[x];
                            }
                        }
                    }
                }
            }
            self.known[j] = k;
            self.capt[j] = c;
            if wa[j] != self.at[j] {
                self.known[j] = 0;
                self.capt[j] = 0;
            }
            self.at[j] = wa[j];
        }
        if i.poll_done.is_some() {
            self.pend = None;
        }
        if let Some((word, one)) = i.poll_start {
            self.pend = one.then_some(Self::beat(word));
        }
        if i.rst {
            self.pend = None;
            self.known = [0; 3];
            self.capt = [0; 3];
        }
        view
    }
}

struct Bench {
    b: Scoreboard,
}

impl Bench {
    fn new() -> Self {
        let mut b = Scoreboard::default();
        b.connect_all();
        b.network_ptr.next = PTR.into();
        b.rst_n.next = true;
        Bench { b }
    }

    /// Drives one cycle's inputs, returns the view before the edge.
    fn step(&mut self, i: &Ins) -> [u32; 16] {
        let b = &mut self.b;
        b.rst_n.next = !i.rst;
        b.prep_word.next = (i.words[0] as u64).into();
        b.cert_word.next = (i.words[1] as u64).into();
        b.commit_word.next = (i.words[2] as u64).into();
        b.sel.next = (i.sel as u64).into();
        b.rx_valid.next = i.rx.is_some();
        if let Some((w, d, m)) = &i.rx {
            b.rx_addr.next = addr(*w).into();
            b.rx_data.next = beat_bits(d);
            b.rx_strb.next = strobes(*m);
        }
        b.tx_valid.next = i.tx.is_some();
        if let Some((w, d, m)) = &i.tx {
            b.tx_addr.next = addr(*w).into();
            b.tx_data.next = beat_bits(d);
            b.tx_strb.next = strobes(*m);
        }
        b.poll_start.next = i.poll_start.is_some();
        if let Some((w, one)) = i.poll_start {
            b.poll_addr.next = addr(w).into();
            b.poll_len.next = if one { 0.into() } else { 3.into() };
        }
        b.poll_done.next = i.poll_done.is_some();
        if let Some((e, d)) = &i.poll_done {
            b.poll_error.next = *e;
            b.poll_beat.next = beat_bits(d);
        } else {
            b.poll_error.next = false;
        }
        assert!(simulate(b, 100));
        let out = words_of(b.view.val());
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
        out
    }
}

const WORDS: [u32; 3] = [64, 128, 192];

fn vote(tag: u32, m: u32, lane: usize) -> [u32; 16] {
    let mut d = [0; 16];
    d[2 * lane] = tag;
    d[2 * lane + 1] = m;
    d
}

#[test]
fn a_write_is_in_the_view_the_cycle_after_it_is_handed_over() {
    let mut t = Bench::new();
    let base = Ins {
        words: WORDS,
        sel: 2,
        ..Ins::default()
    };
    assert_eq!(t.step(&base), [0; 16], "nothing known yet");
    let w = Ins {
        rx: Some((WORDS[1], vote(0x0100_0001, 9, 1), 0b1100)),
        ..base.clone()
    };
    assert_eq!(t.step(&w), [0; 16], "not in the cycle it is handed over");
    let v = t.step(&base);
    assert_eq!((v[2], v[3]), (0x0100_0001, 9), "the next cycle");
    // Broadcast's own vote, lane 0; the other mirrors saw neither.
    let o = Ins {
        tx: Some((WORDS[1], vote(0x0100_0001, 9, 0), 0b11)),
        ..base.clone()
    };
    t.step(&o);
    let v = t.step(&base);
    assert_eq!(v[..4], [0x0100_0001, 9, 0x0100_0001, 9]);
    assert_eq!(v[4..], [0; 12], "the words no write brought are unknown: 0");
    let other = Ins {
        sel: 3,
        ..base.clone()
    };
    assert_eq!(t.step(&other), [0; 16]);
    assert_eq!(
        t.step(&Ins {
            sel: 0,
            ..base.clone()
        }),
        [0; 16],
        "sel 0 shows nothing"
    );
}

#[test]
fn a_poll_fills_only_the_words_no_write_brought_and_a_new_slot_forgets() {
    let mut t = Bench::new();
    let base = Ins {
        words: WORDS,
        sel: 2,
        ..Ins::default()
    };
    t.step(&Ins {
        poll_start: Some((WORDS[1], true)),
        ..base.clone()
    });
    // A peer's vote lands while the read is in flight.
    t.step(&Ins {
        rx: Some((WORDS[1], vote(7, 8, 2), 0b11_0000)),
        ..base.clone()
    });
    // The read returns the beat from before that write: its lane 2 is old.
    let mut old = [5u32; 16];
    old[0] = 1;
    let v = t.step(&Ins {
        poll_done: Some((false, old)),
        ..base.clone()
    });
    assert_eq!(
        v[6..],
        [5; 10],
        "every other word the read's, in the cycle of done"
    );
    assert_eq!(
        (v[0], v[1], v[4], v[5]),
        (1, 5, 7, 8),
        "the write wins over the older read"
    );
    let v2 = t.step(&base);
    assert_eq!(v, v2, "and so it stays");
    // A read that fails fills nothing.
    t.step(&Ins {
        poll_start: Some((WORDS[1], true)),
        ..base.clone()
    });
    t.step(&Ins {
        poll_done: Some((true, [9; 16])),
        ..base.clone()
    });
    assert_eq!(t.step(&base), v);
    // A read of another beat fills nothing here.
    t.step(&Ins {
        poll_start: Some((WORDS[2], true)),
        ..base.clone()
    });
    t.step(&Ins {
        poll_done: Some((false, [9; 16])),
        ..base.clone()
    });
    assert_eq!(t.step(&base), v);
    // The next slot: new addresses, watched from the next cycle (the
    // address is registered); then nothing is known.
    let next = Ins {
        words: [80, 144, 208],
        ..base.clone()
    };
    assert_eq!(t.step(&next), v, "the cycle the address changes");
    assert_eq!(t.step(&next), [0; 16]);
    // Back at the old addresses, still nothing: forgotten.
    t.step(&base);
    assert_eq!(t.step(&base), [0; 16]);
}

#[test]
fn random_traffic_agrees_with_the_reference() {
    let mut t = Bench::new();
    let mut r = Reference::default();
    let mut rng = Rng(0x5eed_0001);
    let beats = [64u32, 80, 128, 144, 192, 208];
    let mut words = WORDS;
    let mut in_flight: Option<u32> = None;
    for cycle in 0..4000 {
        let mut i = Ins {
            words,
            sel: rng.below(4) as u8,
            ..Ins::default()
        };
        let pick = |rng: &mut Rng| {
            let d: [u32; 16] = std::array::from_fn(|_| rng.below(1 << 20) as u32);
            (
                beats[rng.below(6) as usize] + rng.below(16) as u32,
                d,
                rng.next() as u16,
            )
        };
        if rng.below(3) == 0 {
            i.rx = Some(pick(&mut rng));
        }
        if rng.below(5) == 0 {
            i.tx = Some(pick(&mut rng));
        }
        match in_flight {
            None if rng.below(4) == 0 => {
                let w = beats[rng.below(6) as usize];
                i.poll_start = Some((w, rng.below(5) != 0));
                in_flight = Some(w);
            }
            Some(_) if rng.below(6) == 0 => {
                let d: [u32; 16] = std::array::from_fn(|_| rng.below(1 << 20) as u32);
                i.poll_done = Some((rng.below(8) == 0, d));
                in_flight = None;
            }
            _ => {}
        }
        if rng.below(200) == 0 {
            words = std::array::from_fn(|j| beats[2 * j + rng.below(2) as usize]);
        }
        i.rst = rng.below(1000) == 0;
        if i.rst {
            in_flight = None;
            i.poll_start = None;
        }
        let want = r.step(&i);
        let got = t.step(&i);
        assert_eq!(got, want, "cycle {cycle}");
    }
}
