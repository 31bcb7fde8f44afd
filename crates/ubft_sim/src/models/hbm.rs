//! HBM: an AXI4 slave model of one card's HBM behind the kernel's `m_axi_hbm`,
//! with a second, write-only port behind `m_axi_rx` (the guard's accepted
//! writes) into the same memory. The second port follows the same write
//! timing and rules, with its own ready patterns (`rx_aw_ready`,
//! `rx_w_ready`) and counters (`rx_counters`); on the U280 both ports map to
//! one pseudo-channel, where the platform's crossbar serialises them.
//!
//! What it models: 512-bit data, 64-bit byte addresses, a single ID (so every
//! response comes back in request order), INCR bursts of up to 256 beats.
//! Storage is sparse, one 64-byte beat per map entry, because the mailboxes
//! sit about 57 MB into the buffer; memory never written reads as 0. `rresp`
//! and `bresp` are OKAY unless a write error is injected
//! ([`Hbm::fail_writes`]): a broken rule is reported as an [`AxiViolation`]
//! from [`Hbm::observe`] instead, so a test fails at the cycle the kernel
//! broke it rather than at some later symptom.
//!
//! Timing, in cycles of the kernel clock (see `ports.rs` for the cycle):
//!
//! - Read: an AR accepted at cycle `c` has its first R beat valid at exactly
//!   `c + H`, then one beat per cycle while `rready`, `rlast` on the last.
//!   Several reads may be outstanding; they return in order, each no earlier
//!   than its own `c + H`. The data is sampled when the AR is accepted: a read
//!   returns memory as it was at that cycle.
//! - Write: AW and W are independent (W beats may arrive before their AW, as
//!   AXI allows). The burst is written to memory, under `wstrb`, at the cycle
//!   its last piece (the last W beat or the AW) is accepted, and its B
//!   response is valid exactly W cycles later and held until `bready`.
//!
//! Rules checked (each an [`AxiViolation`] naming the rule and the cycle):
//! a valid that was high and not accepted stays high with the same payload;
//! AxSIZE <= 6 (narrow transfers use the lanes of their address); AxBURST is
//! INCR; a burst does not cross a 4 KiB boundary; `wlast` is high exactly on a
//! burst's last beat. AxLEN <= 255 holds by its 8-bit type. While `ap_rst_n`
//! is low the stability rules are not checked (a master may drop its valids
//! in reset) and transactions in flight are abandoned, as the interconnect
//! is reset with the kernel; memory keeps its contents. After a violation the model's state is unspecified: stop.
//!
//! Knobs: H and W ([`Hbm::new`]), the ready patterns `ar_ready`,
//! `aw_ready`, `w_ready` (always ready by default) to exercise back-pressure,
//! and write errors ([`Hbm::fail_writes`]): a burst of `m_axi_hbm` that
//! writes a byte in a given range is answered with SLVERR (`bresp` = 2, at
//! the same cycle an OKAY would be) and not written to memory, as a slave
//! that refused it; `HbmCounters::write_errors` counts them.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use rhdl_ubft::params::{
    defaults, AXI_BOUNDARY_BYTES, AXI_BURST_INCR, AXI_SIZE_BEAT, BEAT_BYTES, BEAT_WORDS, WORD_BYTES,
};

use crate::ports::{Beat, KernelIn, KernelOut, Ready};

/// The AXI channel a violation happened on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    Ar,
    Aw,
    W,
    /// `m_axi_rx`'s write address channel (the guard's port).
    RxAw,
    /// `m_axi_rx`'s write data channel.
    RxW,
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Channel::Ar => "AR",
            Channel::Aw => "AW",
            Channel::W => "W",
            Channel::RxAw => "m_axi_rx AW",
            Channel::RxW => "m_axi_rx W",
        })
    }
}

/// An AXI4 rule the master broke, and the cycle it broke it at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxiViolation {
    /// VALID went low before its handshake.
    ValidDropped { cycle: u64, channel: Channel },
    /// The payload changed while VALID was high and not yet accepted.
    PayloadChanged { cycle: u64, channel: Channel },
    /// AxSIZE wider than the 64-byte data bus.
    SizeTooWide {
        cycle: u64,
        channel: Channel,
        size: u8,
    },
    /// AxBURST other than INCR.
    NotIncr {
        cycle: u64,
        channel: Channel,
        burst: u8,
    },
    /// The burst's bytes span two 4 KiB pages.
    Crosses4K {
        cycle: u64,
        channel: Channel,
        addr: u64,
        len: u8,
        size: u8,
    },
    /// WLAST high on a beat that is not the burst's last, or low on the last.
    WlastMismatch {
        cycle: u64,
        beat: usize,
        beats: usize,
        wlast: bool,
    },
}

impl AxiViolation {
    /// The cycle the rule was broken at.
    pub fn cycle(&self) -> u64 {
        match *self {
            AxiViolation::ValidDropped { cycle, .. }
            | AxiViolation::PayloadChanged { cycle, .. }
            | AxiViolation::SizeTooWide { cycle, .. }
            | AxiViolation::NotIncr { cycle, .. }
            | AxiViolation::Crosses4K { cycle, .. }
            | AxiViolation::WlastMismatch { cycle, .. } => cycle,
        }
    }
}

impl fmt::Display for AxiViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {}: ", self.cycle())?;
        match self {
            AxiViolation::ValidDropped { channel, .. } => write!(
                f,
                "{channel}: VALID was high and not accepted, so it must stay high until READY"
            ),
            AxiViolation::PayloadChanged { channel, .. } => write!(
                f,
                "{channel}: the payload must stay stable while VALID is high and not accepted"
            ),
            AxiViolation::SizeTooWide { channel, size, .. } => write!(
                f,
                "{channel}: AxSIZE {size} exceeds the 64-byte bus (AxSIZE must be <= {AXI_SIZE_BEAT})"
            ),
            AxiViolation::NotIncr { channel, burst, .. } => write!(
                f,
                "{channel}: AxBURST {burst} is not INCR ({AXI_BURST_INCR}), the only type this slave takes"
            ),
            AxiViolation::Crosses4K {
                channel,
                addr,
                len,
                size,
                ..
            } => write!(
                f,
                "{channel}: a burst must not cross a 4 KiB boundary \
                 (addr {addr:#x}, AxLEN {len}, AxSIZE {size})"
            ),
            AxiViolation::WlastMismatch {
                beat, beats, wlast, ..
            } => write!(
                f,
                "W: WLAST must be high exactly on the last beat \
                 (beat {beat} of {beats} had WLAST = {wlast})"
            ),
        }
    }
}

impl std::error::Error for AxiViolation {}

/// What the model has counted, for reports and tests.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HbmCounters {
    /// Read bursts accepted (AR handshakes).
    pub reads: u64,
    /// R beats delivered (R handshakes).
    pub read_beats: u64,
    /// Write bursts committed to memory.
    pub writes: u64,
    /// W beats committed to memory.
    pub write_beats: u64,
    /// Write bursts answered with SLVERR ([`Hbm::fail_writes`]), not written
    /// and not counted in `writes`.
    pub write_errors: u64,
}

/// `bresp` of a write answered with a slave error.
pub const SLVERR: u8 = 2;

/// Writes to answer with SLVERR: a byte range and how many more bursts.
#[derive(Clone, Debug)]
struct WriteFault {
    bytes: std::ops::Range<u64>,
    left: u64,
}

/// An AR or AW payload, compared cycle to cycle for stability.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct AddrReq {
    addr: u64,
    len: u8,
    size: u8,
    burst: u8,
}

impl AddrReq {
    fn beats(&self) -> usize {
        self.len as usize + 1
    }

    /// Byte address of transfer `i` of an INCR burst: the first may be
    /// unaligned, the rest start on multiples of the transfer size.
    fn transfer_addr(&self, i: usize) -> u64 {
        let bytes = 1u64 << self.size;
        if i == 0 {
            self.addr
        } else {
            (self.addr & !(bytes - 1)) + i as u64 * bytes
        }
    }

    fn check(&self, cycle: u64, channel: Channel) -> Result<(), AxiViolation> {
        if self.size as u64 > AXI_SIZE_BEAT {
            return Err(AxiViolation::SizeTooWide {
                cycle,
                channel,
                size: self.size,
            });
        }
        if self.burst as u64 != AXI_BURST_INCR {
            return Err(AxiViolation::NotIncr {
                cycle,
                channel,
                burst: self.burst,
            });
        }
        let aligned = self.addr & !((1u64 << self.size) - 1);
        // A burst that runs past the top of the address space crosses too.
        let last = aligned.checked_add(((self.beats() as u64) << self.size) - 1);
        let page = |a: u64| a / AXI_BOUNDARY_BYTES;
        if last.filter(|&last| page(last) == page(self.addr)).is_none() {
            return Err(AxiViolation::Crosses4K {
                cycle,
                channel,
                addr: self.addr,
                len: self.len,
                size: self.size,
            });
        }
        Ok(())
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct WBeat {
    data: Beat,
    strb: u64,
    last: bool,
}

/// An accepted read: its data, sampled at acceptance, and when it may start.
struct ReadBurst {
    beats: VecDeque<Beat>,
    first_at: u64,
}

/// One card's HBM as an AXI4 slave (see the module header).
pub struct Hbm {
    read_latency: u64,
    write_latency: u64,
    /// AR accepted on cycles where this is ready.
    pub ar_ready: Ready,
    /// AW accepted on cycles where this is ready.
    pub aw_ready: Ready,
    /// W accepted on cycles where this is ready.
    pub w_ready: Ready,
    mem: HashMap<u64, Beat>,
    /// The cycle the next `drive` is for.
    now: u64,
    reads: VecDeque<ReadBurst>,
    /// `m_axi_hbm`'s write channels.
    wr: WritePort,
    /// `m_axi_rx`'s write channels (the guard's port into the same memory).
    rx: WritePort,
    /// AW of `m_axi_rx` accepted on cycles where this is ready.
    pub rx_aw_ready: Ready,
    /// W of `m_axi_rx` accepted on cycles where this is ready.
    pub rx_w_ready: Ready,
    // Valid-and-not-accepted AR payload of the last cycle, for stability.
    ar_waiting: Option<AddrReq>,
    counters: HbmCounters,
    /// What `m_axi_rx` wrote.
    rx_counters: HbmCounters,
    /// A byte range whose writes by the kernel itself (`m_axi_hbm`) are
    /// logged, and the cycles of their AW handshakes.
    watch: Option<std::ops::Range<u64>>,
    watched: Vec<u64>,
    /// `m_axi_hbm` writes to answer with SLVERR ([`Hbm::fail_writes`]).
    faults: Vec<WriteFault>,
    /// The cycles of the bursts answered with SLVERR and their addresses.
    failed: Vec<(u64, u64)>,
    /// For each word the kernel itself wrote (`m_axi_hbm`, a byte of it
    /// enabled), by its byte address, the cycle of its last write
    /// ([`Hbm::kernel_wrote_since`]).
    kernel_wrote: HashMap<u64, u64>,
    /// The host's writes into the card's memory ([`Hbm::host_write_words`]):
    /// byte ranges and their cycles.
    host_wrote: Vec<(std::ops::Range<u64>, u64)>,
}

/// One AXI4 write port's state: accepted AWs and W beats not yet paired,
/// pending B responses (the cycles they become valid), and last cycle's
/// valid-and-not-accepted payloads.
#[derive(Default)]
struct WritePort {
    aws: VecDeque<AddrReq>,
    ws: VecDeque<WBeat>,
    /// (valid from, `bresp`).
    bresps: VecDeque<(u64, u8)>,
    aw_waiting: Option<AddrReq>,
    w_waiting: Option<WBeat>,
}

impl WritePort {
    fn busy(&self) -> bool {
        !(self.aws.is_empty() && self.ws.is_empty() && self.bresps.is_empty())
    }

    fn clear(&mut self) {
        self.aws.clear();
        self.ws.clear();
        self.bresps.clear();
    }
}

/// One cycle of a write port as the master drove it.
struct WriteCycle {
    aw: AddrReq,
    awvalid: bool,
    awready: bool,
    w: WBeat,
    wvalid: bool,
    wready: bool,
    bvalid: bool,
    bready: bool,
    channels: (Channel, Channel),
}

impl Default for Hbm {
    /// The performance model's default latencies.
    fn default() -> Self {
        Hbm::new(defaults::HBM_READ_LATENCY, defaults::HBM_WRITE_LATENCY)
    }
}

impl Hbm {
    /// An empty HBM with read latency H and write latency W, both at least 1
    /// (a response cannot be valid in the cycle its request is accepted).
    pub fn new(read_latency: u64, write_latency: u64) -> Hbm {
        assert!(read_latency >= 1, "HBM read latency must be at least 1");
        assert!(write_latency >= 1, "HBM write latency must be at least 1");
        Hbm {
            read_latency,
            write_latency,
            ar_ready: Ready::Always,
            aw_ready: Ready::Always,
            w_ready: Ready::Always,
            mem: HashMap::new(),
            now: 0,
            reads: VecDeque::new(),
            wr: WritePort::default(),
            rx: WritePort::default(),
            rx_aw_ready: Ready::Always,
            rx_w_ready: Ready::Always,
            ar_waiting: None,
            counters: HbmCounters::default(),
            rx_counters: HbmCounters::default(),
            watch: None,
            watched: Vec::new(),
            faults: Vec::new(),
            failed: Vec::new(),
            kernel_wrote: HashMap::new(),
            host_wrote: Vec::new(),
        }
    }

    /// Answers the next `count` write bursts of `m_axi_hbm` (the kernel's
    /// own writes, not the guard's) that write a byte of `bytes` (under
    /// their strobes) with SLVERR: `bresp` = 2 at the cycle an OKAY would
    /// come, and nothing written. A burst matches the first range given
    /// (in call order) that has a count left.
    pub fn fail_writes(&mut self, bytes: std::ops::Range<u64>, count: u64) {
        self.faults.push(WriteFault { bytes, left: count });
    }

    /// The bursts answered with SLVERR so far: (cycle the burst was
    /// complete, its AW address), in order.
    pub fn failed_writes(&self) -> &[(u64, u64)] {
        &self.failed
    }

    /// Logs the cycle of every AW handshake of `m_axi_hbm` (the kernel's own
    /// writes, not the guard's) whose address is in `bytes`.
    pub fn watch_writes(&mut self, bytes: std::ops::Range<u64>) {
        self.watch = Some(bytes);
    }

    /// The cycles logged by [`Hbm::watch_writes`], in order.
    pub fn watched_writes(&self) -> &[u64] {
        &self.watched
    }

    /// The read latency H.
    pub fn read_latency(&self) -> u64 {
        self.read_latency
    }

    /// The write latency W.
    pub fn write_latency(&self) -> u64 {
        self.write_latency
    }

    /// What has been counted so far.
    pub fn counters(&self) -> HbmCounters {
        self.counters
    }

    /// What `m_axi_rx` (the guard's port) has written.
    pub fn rx_counters(&self) -> HbmCounters {
        self.rx_counters
    }

    /// True while a read, a write or a B response is still in flight.
    pub fn busy(&self) -> bool {
        !self.reads.is_empty() || self.wr.busy() || self.rx.busy()
    }

    /// Drive the slave's side of `m_axi_hbm` for the current cycle.
    pub fn drive(&mut self, inp: &mut KernelIn) {
        let now = self.now;
        inp.hbm_arready = self.ar_ready.at(now);
        inp.hbm_awready = self.aw_ready.at(now);
        inp.hbm_wready = self.w_ready.at(now);
        match self.reads.front().filter(|r| now >= r.first_at) {
            Some(r) => {
                inp.hbm_rvalid = true;
                inp.hbm_rdata = r.beats[0];
                inp.hbm_rlast = r.beats.len() == 1;
            }
            None => {
                inp.hbm_rvalid = false;
                inp.hbm_rdata = [0; BEAT_WORDS];
                inp.hbm_rlast = false;
            }
        }
        inp.hbm_rresp = 0;
        let b = self.wr.bresps.front().filter(|&&(t, _)| now >= t);
        inp.hbm_bvalid = b.is_some();
        inp.hbm_bresp = b.map_or(0, |&(_, resp)| resp);
        inp.rx_awready = self.rx_aw_ready.at(now);
        inp.rx_wready = self.rx_w_ready.at(now);
        inp.rx_bvalid = self.rx.bresps.front().is_some_and(|&(t, _)| now >= t);
        inp.rx_bresp = 0;
    }

    /// Take this cycle's handshakes (`inp` as driven, `out` as the kernel
    /// settled) and advance to the next cycle.
    pub fn observe(
        &mut self,
        inp: &KernelIn,
        out: &KernelOut,
        cycle: u64,
    ) -> Result<(), AxiViolation> {
        self.now = cycle + 1;
        let ar = AddrReq {
            addr: out.hbm_araddr,
            len: out.hbm_arlen,
            size: out.hbm_arsize,
            burst: out.hbm_arburst,
        };
        if !inp.ap_rst_n {
            // The kernel's AXI interconnect is reset with it: transactions in
            // flight are abandoned (memory keeps what was written).
            self.reads.clear();
            self.wr.clear();
            self.rx.clear();
        }
        if inp.ap_rst_n {
            stable(self.ar_waiting, out.hbm_arvalid, ar, cycle, Channel::Ar)?;
        }
        self.ar_waiting = (out.hbm_arvalid && !inp.hbm_arready && inp.ap_rst_n).then_some(ar);
        // (In reset the reads in flight are abandoned above, the beat
        // driven this cycle with them.)
        if inp.ap_rst_n && inp.hbm_rvalid && out.hbm_rready {
            let head = self.reads.front_mut().expect("rvalid without a read");
            head.beats.pop_front();
            if head.beats.is_empty() {
                self.reads.pop_front();
            }
            self.counters.read_beats += 1;
        }
        if out.hbm_arvalid && inp.hbm_arready && inp.ap_rst_n {
            ar.check(cycle, Channel::Ar)?;
            let beats = (0..ar.beats())
                .map(|i| self.beat(ar.transfer_addr(i) / BEAT_BYTES))
                .collect();
            self.reads.push_back(ReadBurst {
                beats,
                first_at: cycle + self.read_latency,
            });
            self.counters.reads += 1;
        }
        let hbm = WriteCycle {
            aw: AddrReq {
                addr: out.hbm_awaddr,
                len: out.hbm_awlen,
                size: out.hbm_awsize,
                burst: out.hbm_awburst,
            },
            awvalid: out.hbm_awvalid,
            awready: inp.hbm_awready,
            w: WBeat {
                data: out.hbm_wdata,
                strb: out.hbm_wstrb,
                last: out.hbm_wlast,
            },
            wvalid: out.hbm_wvalid,
            wready: inp.hbm_wready,
            bvalid: inp.hbm_bvalid,
            bready: out.hbm_bready,
            channels: (Channel::Aw, Channel::W),
        };
        let rx = WriteCycle {
            aw: AddrReq {
                addr: out.rx_awaddr,
                len: out.rx_awlen,
                size: out.rx_awsize,
                burst: out.rx_awburst,
            },
            awvalid: out.rx_awvalid,
            awready: inp.rx_awready,
            w: WBeat {
                data: out.rx_wdata,
                strb: out.rx_wstrb,
                last: out.rx_wlast,
            },
            wvalid: out.rx_wvalid,
            wready: inp.rx_wready,
            bvalid: inp.rx_bvalid,
            bready: out.rx_bready,
            channels: (Channel::RxAw, Channel::RxW),
        };
        if out.hbm_awvalid && inp.hbm_awready && inp.ap_rst_n {
            if let Some(w) = &self.watch {
                if w.contains(&out.hbm_awaddr) {
                    self.watched.push(cycle);
                }
            }
        }
        let mut wr = std::mem::take(&mut self.wr);
        let r = self.write_cycle(&mut wr, &hbm, inp.ap_rst_n, cycle, false);
        self.wr = wr;
        r?;
        let mut rxp = std::mem::take(&mut self.rx);
        let r = self.write_cycle(&mut rxp, &rx, inp.ap_rst_n, cycle, true);
        self.rx = rxp;
        r
    }

    /// One cycle of a write port: the stability rules, the handshakes, and
    /// the bursts completed.
    fn write_cycle(
        &mut self,
        port: &mut WritePort,
        c: &WriteCycle,
        rst_n: bool,
        cycle: u64,
        rx: bool,
    ) -> Result<(), AxiViolation> {
        if rst_n {
            stable(port.aw_waiting, c.awvalid, c.aw, cycle, c.channels.0)?;
            stable(port.w_waiting, c.wvalid, c.w, cycle, c.channels.1)?;
        }
        port.aw_waiting = (c.awvalid && !c.awready && rst_n).then_some(c.aw);
        port.w_waiting = (c.wvalid && !c.wready && rst_n).then_some(c.w);
        if c.bvalid && c.bready {
            port.bresps.pop_front();
        }
        if c.awvalid && c.awready {
            c.aw.check(cycle, c.channels.0)?;
            port.aws.push_back(c.aw);
        }
        if c.wvalid && c.wready {
            port.ws.push_back(c.w);
        }
        self.commit_writes(port, cycle, rx)
    }

    /// Pair accepted AWs with their W beats (in order: a single ID) and write
    /// every burst that is complete.
    fn commit_writes(
        &mut self,
        port: &mut WritePort,
        cycle: u64,
        rx: bool,
    ) -> Result<(), AxiViolation> {
        while let Some(&aw) = port.aws.front() {
            let beats = aw.beats();
            for (i, b) in port.ws.iter().take(beats).enumerate() {
                if b.last != (i + 1 == beats) {
                    return Err(AxiViolation::WlastMismatch {
                        cycle,
                        beat: i,
                        beats,
                        wlast: b.last,
                    });
                }
            }
            if port.ws.len() < beats {
                break;
            }
            port.aws.pop_front();
            let fault = if rx {
                None
            } else {
                // The bytes the burst writes: each beat's enabled lanes.
                let written: Vec<u64> = port
                    .ws
                    .iter()
                    .take(beats)
                    .enumerate()
                    .flat_map(|(i, b)| {
                        let base = aw.transfer_addr(i) & !(BEAT_BYTES - 1);
                        (0..BEAT_BYTES)
                            .filter(move |l| b.strb >> l & 1 == 1)
                            .map(move |l| base + l)
                    })
                    .collect();
                self.faults
                    .iter_mut()
                    .find(|f| f.left > 0 && written.iter().any(|a| f.bytes.contains(a)))
            };
            if let Some(f) = fault {
                // A slave error: the beats are taken and dropped.
                f.left -= 1;
                port.ws.drain(..beats);
                self.counters.write_errors += 1;
                self.failed.push((cycle, aw.addr));
                port.bresps.push_back((cycle + self.write_latency, SLVERR));
                continue;
            }
            for i in 0..beats {
                let b = port.ws.pop_front().expect("counted above");
                let index = aw.transfer_addr(i) / BEAT_BYTES;
                self.write_beat(index, &b.data, b.strb);
                if !rx {
                    for w in (0..BEAT_WORDS as u64).filter(|w| (b.strb >> (4 * w)) & 0xf != 0) {
                        self.kernel_wrote
                            .insert(index * BEAT_BYTES + w * WORD_BYTES, cycle);
                    }
                }
            }
            let counters = if rx {
                &mut self.rx_counters
            } else {
                &mut self.counters
            };
            counters.writes += 1;
            counters.write_beats += beats as u64;
            port.bresps.push_back((cycle + self.write_latency, 0));
        }
        Ok(())
    }

    fn beat(&self, index: u64) -> Beat {
        self.mem.get(&index).copied().unwrap_or([0; BEAT_WORDS])
    }

    /// Merge `data` into beat `index` under the 64 byte enables of `strb`.
    fn write_beat(&mut self, index: u64, data: &Beat, strb: u64) {
        if strb == 0 {
            return;
        }
        let beat = self.mem.entry(index).or_insert([0; BEAT_WORDS]);
        for (w, (old, new)) in beat.iter_mut().zip(data).enumerate() {
            let enables = (strb >> (4 * w)) & 0xf;
            let mask = (0..4)
                .filter(|b| enables >> b & 1 == 1)
                .fold(0u32, |m, b| m | 0xff << (8 * b));
            *old = (*old & !mask) | (new & mask);
        }
    }

    /// Whether anyone but the guard wrote any of the `words` words from the
    /// 4-byte-aligned `byte_addr` at or after `cycle`: the kernel itself
    /// (`m_axi_hbm`, not the guard's port), or the host
    /// ([`Hbm::host_write_words`], a mailbox cleared at a restart).
    pub fn overwritten_since(&self, byte_addr: u64, words: usize, cycle: u64) -> bool {
        let end = byte_addr + words as u64 * WORD_BYTES;
        self.kernel_wrote_since(byte_addr, words, cycle)
            || self
                .host_wrote
                .iter()
                .any(|(r, c)| *c >= cycle && r.start < end && byte_addr < r.end)
    }

    /// The host writes `data` at `byte_addr` through XRT at `cycle` (a
    /// backdoor write, remembered for [`Hbm::overwritten_since`]).
    pub fn host_write_words(&mut self, byte_addr: u64, data: &[u32], cycle: u64) {
        self.write_words(byte_addr, data);
        let end = byte_addr + data.len() as u64 * WORD_BYTES;
        self.host_wrote.push((byte_addr..end, cycle));
    }

    /// Whether the kernel itself (`m_axi_hbm`, not the guard's port) wrote
    /// any of the `words` words from the 4-byte-aligned `byte_addr` at or
    /// after `cycle`.
    pub fn kernel_wrote_since(&self, byte_addr: u64, words: usize, cycle: u64) -> bool {
        (0..words as u64).any(|i| {
            self.kernel_wrote
                .get(&(byte_addr + i * WORD_BYTES))
                .is_some_and(|&c| c >= cycle)
        })
    }

    /// Backdoor read of `words` 32-bit words from a 4-byte-aligned address.
    pub fn read_words(&self, byte_addr: u64, words: usize) -> Vec<u32> {
        assert_eq!(byte_addr % WORD_BYTES, 0, "unaligned backdoor read");
        (0..words as u64)
            .map(|i| {
                let a = byte_addr + i * WORD_BYTES;
                self.beat(a / BEAT_BYTES)[((a % BEAT_BYTES) / WORD_BYTES) as usize]
            })
            .collect()
    }

    /// Backdoor write of 32-bit words at a 4-byte-aligned address; bypasses
    /// the AXI ports, their latency and the counters.
    pub fn write_words(&mut self, byte_addr: u64, data: &[u32]) {
        assert_eq!(byte_addr % WORD_BYTES, 0, "unaligned backdoor write");
        for (i, &v) in data.iter().enumerate() {
            let a = byte_addr + i as u64 * WORD_BYTES;
            let beat = self.mem.entry(a / BEAT_BYTES).or_insert([0; BEAT_WORDS]);
            beat[((a % BEAT_BYTES) / WORD_BYTES) as usize] = v;
        }
    }
}

/// The VALID/payload stability rule: `waiting` is last cycle's payload if it
/// was valid and not accepted.
fn stable<T: PartialEq>(
    waiting: Option<T>,
    valid: bool,
    now: T,
    cycle: u64,
    channel: Channel,
) -> Result<(), AxiViolation> {
    match waiting {
        Some(_) if !valid => Err(AxiViolation::ValidDropped { cycle, channel }),
        Some(p) if p != now => Err(AxiViolation::PayloadChanged { cycle, channel }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u64 = 5;
    const W: u64 = 3;

    /// One cycle: the slave drives, the "kernel" answers with `out`, the
    /// slave observes. Returns what the slave drove.
    fn step(hbm: &mut Hbm, out: &KernelOut, cycle: u64) -> (KernelIn, Result<(), AxiViolation>) {
        let mut inp = KernelIn::default();
        hbm.drive(&mut inp);
        let r = hbm.observe(&inp, out, cycle);
        (inp, r)
    }

    fn ar(addr: u64, len: u8) -> KernelOut {
        KernelOut {
            hbm_arvalid: true,
            hbm_araddr: addr,
            hbm_arlen: len,
            hbm_arsize: 6,
            hbm_arburst: 1,
            hbm_rready: true,
            ..Default::default()
        }
    }

    fn aw(addr: u64, len: u8) -> KernelOut {
        KernelOut {
            hbm_awvalid: true,
            hbm_awaddr: addr,
            hbm_awlen: len,
            hbm_awsize: 6,
            hbm_awburst: 1,
            ..Default::default()
        }
    }

    fn w(mut out: KernelOut, fill: u32, strb: u64, last: bool) -> KernelOut {
        out.hbm_wvalid = true;
        out.hbm_wdata = [fill; BEAT_WORDS];
        out.hbm_wstrb = strb;
        out.hbm_wlast = last;
        out
    }

    fn idle_r() -> KernelOut {
        KernelOut {
            hbm_rready: true,
            hbm_bready: true,
            ..Default::default()
        }
    }

    /// Runs cycles `from..to` with `out` and returns the cycles rvalid was
    /// high, with (word 0, rlast).
    fn r_beats(hbm: &mut Hbm, out: &KernelOut, from: u64, to: u64) -> Vec<(u64, u32, bool)> {
        (from..to)
            .filter_map(|c| {
                let (i, r) = step(hbm, out, c);
                r.unwrap();
                i.hbm_rvalid.then_some((c, i.hbm_rdata[0], i.hbm_rlast))
            })
            .collect()
    }

    #[test]
    fn first_read_beat_is_valid_exactly_h_cycles_after_ar() {
        let mut hbm = Hbm::new(H, W);
        let base = 57 << 20;
        hbm.write_words(base, &[7]);
        hbm.write_words(base + 64, &[8]);
        for c in 0..3 {
            step(&mut hbm, &idle_r(), c).1.unwrap();
        }
        let (i, r) = step(&mut hbm, &ar(base, 2), 3);
        r.unwrap();
        assert!(i.hbm_arready && !i.hbm_rvalid);
        let beats = r_beats(&mut hbm, &idle_r(), 4, 20);
        // AR at 3, H = 5: beats at 8, 9, 10; unwritten memory reads 0.
        assert_eq!(beats, vec![(8, 7, false), (9, 8, false), (10, 0, true)]);
        let c = hbm.counters();
        assert_eq!((c.reads, c.read_beats), (1, 3));
        assert!(!hbm.busy());
    }

    #[test]
    fn rready_low_holds_the_beat() {
        let mut hbm = Hbm::new(H, W);
        hbm.write_words(0, &[1]);
        hbm.write_words(64, &[2]);
        step(&mut hbm, &ar(0, 1), 0).1.unwrap();
        let stall = KernelOut::default();
        // Beat 0 valid from 5; rready low at 5 and 6, high from 7.
        assert_eq!(
            r_beats(&mut hbm, &stall, 1, 7),
            vec![(5, 1, false), (6, 1, false)]
        );
        assert_eq!(
            r_beats(&mut hbm, &idle_r(), 7, 12),
            vec![(7, 1, false), (8, 2, true)]
        );
    }

    #[test]
    fn outstanding_reads_return_in_order_back_to_back() {
        let mut hbm = Hbm::new(H, W);
        hbm.write_words(0, &[10]);
        hbm.write_words(4096, &[20]);
        hbm.write_words(8192, &[30]);
        step(&mut hbm, &ar(0, 1), 0).1.unwrap(); // beats at 5, 6
        step(&mut hbm, &ar(4096, 0), 1).1.unwrap(); // own c + H = 6, after 6: 7
        step(&mut hbm, &ar(8192, 0), 2).1.unwrap(); // 7, after 7: 8
        assert_eq!(
            r_beats(&mut hbm, &idle_r(), 3, 12),
            vec![(5, 10, false), (6, 0, true), (7, 20, true), (8, 30, true)]
        );
    }

    #[test]
    fn read_returns_memory_as_it_was_when_ar_was_accepted() {
        let mut hbm = Hbm::new(H, W);
        hbm.write_words(0, &[1]);
        step(&mut hbm, &ar(0, 0), 0).1.unwrap();
        hbm.write_words(0, &[2]);
        assert_eq!(r_beats(&mut hbm, &idle_r(), 1, 8), vec![(5, 1, true)]);
    }

    #[test]
    fn write_lands_at_last_w_and_b_is_valid_w_cycles_later_until_bready() {
        let mut hbm = Hbm::new(H, W);
        hbm.write_words(0, &[0xaaaa_aaaa; 16]);
        // Bytes 0..2 of word 0 and all of word 15.
        let strb = 0b0011 | 0xf << 60;
        step(&mut hbm, &w(aw(0, 0), 0x1234_5678, strb, true), 2)
            .1
            .unwrap();
        let words = hbm.read_words(0, 16);
        assert_eq!(words[0], 0xaaaa_5678);
        assert_eq!(words[1], 0xaaaa_aaaa);
        assert_eq!(words[15], 0x1234_5678);
        let no_bready = KernelOut::default();
        let bvalid: Vec<u64> = (3..8)
            .filter(|&c| step(&mut hbm, &no_bready, c).0.hbm_bvalid)
            .collect();
        assert_eq!(bvalid, vec![5, 6, 7]); // 2 + W, held while bready is low
        let (i, _) = step(&mut hbm, &idle_r(), 8);
        assert!(i.hbm_bvalid);
        let (i, _) = step(&mut hbm, &idle_r(), 9);
        assert!(!i.hbm_bvalid);
        assert_eq!(hbm.counters().writes, 1);
    }

    /// The kernel's own writes (`m_axi_hbm`) are remembered word by word,
    /// those of the guard's port (`m_axi_rx`) are not: the network's status
    /// check takes an acknowledged write overwritten by the receiver's own
    /// kernel as a later write, not as a write that never landed.
    #[test]
    fn the_kernels_own_writes_are_remembered_by_word_and_cycle() {
        let mut hbm = Hbm::new(H, W);
        // Word 1 only (bytes 4..8), at cycle 2.
        step(&mut hbm, &w(aw(64, 0), 7, 0xf0, true), 2).1.unwrap();
        assert!(hbm.kernel_wrote_since(64 + 4, 1, 2));
        assert!(hbm.kernel_wrote_since(64, 4, 0));
        assert!(
            !hbm.kernel_wrote_since(64 + 4, 1, 3),
            "before the cycle asked"
        );
        assert!(!hbm.kernel_wrote_since(64, 1, 0), "word 0 was not enabled");
        assert!(!hbm.kernel_wrote_since(64 + 8, 8, 0));
        // The guard's port writes the same beat at cycle 10: not the kernel's.
        let mut rx = KernelOut {
            rx_awvalid: true,
            rx_awaddr: 64,
            rx_awlen: 0,
            rx_awsize: 6,
            rx_awburst: 1,
            rx_wvalid: true,
            rx_wdata: [9; BEAT_WORDS],
            rx_wstrb: u64::MAX,
            rx_wlast: true,
            ..Default::default()
        };
        rx.hbm_bready = true;
        step(&mut hbm, &rx, 10).1.unwrap();
        assert_eq!(hbm.read_words(64, 2), [9, 9]);
        assert!(!hbm.kernel_wrote_since(64, 16, 3));
    }

    #[test]
    fn an_injected_write_error_answers_slverr_and_writes_nothing() {
        let mut hbm = Hbm::new(H, W);
        // Word 1 of the beat at 4096 (bytes 4100..4104).
        hbm.fail_writes(4100..4104, 1);
        // Word 0 of that beat only (strobes 0..4): written, OKAY.
        step(&mut hbm, &w(aw(4096, 0), 7, 0xf, true), 0).1.unwrap();
        // Words 1 and 2: the first in the range, SLVERR, nothing written.
        step(&mut hbm, &w(aw(4096, 0), 8, 0xff0, true), 1)
            .1
            .unwrap();
        // The same again: the count is spent, so written, OKAY.
        step(&mut hbm, &w(aw(4096, 0), 9, 0xf0, true), 2).1.unwrap();
        let resps: Vec<(u64, u8)> = (3..10)
            .map(|c| (c, step(&mut hbm, &idle_r(), c).0))
            .filter(|(_, i)| i.hbm_bvalid)
            .map(|(c, i)| (c, i.hbm_bresp))
            .collect();
        assert_eq!(resps, vec![(3, 0), (4, SLVERR), (5, 0)]);
        assert_eq!(hbm.read_words(4096, 3), vec![7, 9, 0]);
        let c = hbm.counters();
        assert_eq!((c.writes, c.write_errors), (2, 1));
        assert_eq!(hbm.failed_writes(), &[(1, 4096)]);
    }

    #[test]
    fn w_before_aw_is_buffered_and_written_when_aw_arrives() {
        let mut hbm = Hbm::new(H, W);
        let all = u64::MAX;
        step(&mut hbm, &w(idle_r(), 1, all, false), 1).1.unwrap();
        step(&mut hbm, &w(idle_r(), 2, all, true), 2).1.unwrap();
        step(&mut hbm, &idle_r(), 3).1.unwrap();
        assert_eq!(hbm.read_words(128, 1), vec![0]);
        let mut a = aw(128, 1);
        a.hbm_bready = true;
        step(&mut hbm, &a, 4).1.unwrap();
        assert_eq!(hbm.read_words(128, 1), vec![1]);
        assert_eq!(hbm.read_words(192, 1), vec![2]);
        let bvalid: Vec<u64> = (5..10)
            .filter(|&c| step(&mut hbm, &idle_r(), c).0.hbm_bvalid)
            .collect();
        assert_eq!(bvalid, vec![7]); // 4 + W, taken at once
        assert_eq!(hbm.counters().write_beats, 2);
    }

    #[test]
    fn ready_patterns_back_pressure_ar() {
        let mut hbm = Hbm::new(H, W);
        hbm.ar_ready = Ready::Every {
            period: 3,
            phase: 2,
        };
        let accepted: Vec<u64> = (0..6)
            .filter(|&c| {
                let (i, r) = step(&mut hbm, &ar(0, 0), c);
                r.unwrap();
                i.hbm_arready
            })
            .collect();
        assert_eq!(accepted, vec![2, 5]);
        assert_eq!(hbm.counters().reads, 2);
    }

    #[test]
    fn valid_must_not_drop_before_ready() {
        let mut hbm = Hbm::new(H, W);
        hbm.ar_ready = Ready::LowDuring { from: 0, to: 10 };
        step(&mut hbm, &ar(0, 0), 3).1.unwrap();
        let e = step(&mut hbm, &idle_r(), 4).1.unwrap_err();
        assert_eq!(
            e,
            AxiViolation::ValidDropped {
                cycle: 4,
                channel: Channel::Ar
            }
        );
        assert!(e.to_string().starts_with("cycle 4: AR: VALID"), "{e}");
    }

    #[test]
    fn payload_must_not_change_before_ready() {
        let mut hbm = Hbm::new(H, W);
        hbm.w_ready = Ready::Never;
        step(&mut hbm, &w(idle_r(), 1, 1, true), 0).1.unwrap();
        step(&mut hbm, &w(idle_r(), 1, 1, true), 1).1.unwrap();
        let e = step(&mut hbm, &w(idle_r(), 1, 3, true), 2).1.unwrap_err();
        assert_eq!(
            e,
            AxiViolation::PayloadChanged {
                cycle: 2,
                channel: Channel::W
            }
        );
        // In reset the master may drop valid.
        let mut hbm = Hbm::new(H, W);
        hbm.aw_ready = Ready::Never;
        step(&mut hbm, &aw(0, 0), 0).1.unwrap();
        let mut inp = KernelIn {
            ap_rst_n: false,
            ..Default::default()
        };
        hbm.drive(&mut inp);
        hbm.observe(&inp, &idle_r(), 1).unwrap();
    }

    #[test]
    fn bad_bursts_are_refused() {
        let mut hbm = Hbm::new(H, W);
        // 2 beats from 4096 - 64 end at 4096 + 63.
        let e = step(&mut hbm, &ar(4096 - 64, 1), 7).1.unwrap_err();
        assert!(matches!(e, AxiViolation::Crosses4K { cycle: 7, .. }), "{e}");
        assert!(e.to_string().contains("4 KiB"));
        let mut a = aw(0, 0);
        a.hbm_awsize = 7;
        let e = step(&mut Hbm::new(H, W), &a, 1).1.unwrap_err();
        assert!(matches!(e, AxiViolation::SizeTooWide { size: 7, .. }));
        let mut a = ar(0, 0);
        a.hbm_arburst = 0;
        let e = step(&mut Hbm::new(H, W), &a, 1).1.unwrap_err();
        assert!(matches!(e, AxiViolation::NotIncr { burst: 0, .. }));
        // 64 beats of 64 bytes fill exactly one 4 KiB page.
        step(&mut Hbm::new(H, W), &ar(4096, 63), 0).1.unwrap();
    }

    #[test]
    fn narrow_transfers_use_their_address_lanes() {
        let mut hbm = Hbm::new(H, W);
        hbm.write_words(0, &(0..32).collect::<Vec<u32>>());
        // 4-byte transfers from byte 60: word 15 of beat 0, then word 0 of beat 1.
        let mut a = ar(60, 1);
        a.hbm_arsize = 2;
        step(&mut hbm, &a, 0).1.unwrap();
        let lanes: Vec<(u64, u32, u32)> = (1..8)
            .map(|c| (c, step(&mut hbm, &idle_r(), c).0))
            .filter(|(_, i)| i.hbm_rvalid)
            .map(|(c, i)| (c, i.hbm_rdata[15], i.hbm_rdata[0]))
            .collect();
        assert_eq!(lanes, vec![(5, 15, 0), (6, 31, 16)]);
    }

    #[test]
    fn wlast_must_mark_the_last_beat() {
        let all = u64::MAX;
        // Early: wlast on beat 0 of 2.
        let mut hbm = Hbm::new(H, W);
        let e = step(&mut hbm, &w(aw(0, 1), 1, all, true), 0).1.unwrap_err();
        assert_eq!(
            e,
            AxiViolation::WlastMismatch {
                cycle: 0,
                beat: 0,
                beats: 2,
                wlast: true
            }
        );
        // Missing: no wlast on the last beat, found when the AW arrives.
        let mut hbm = Hbm::new(H, W);
        step(&mut hbm, &w(idle_r(), 1, all, false), 0).1.unwrap();
        let e = step(&mut hbm, &aw(0, 0), 1).1.unwrap_err();
        assert!(matches!(
            e,
            AxiViolation::WlastMismatch {
                cycle: 1,
                beat: 0,
                beats: 1,
                wlast: false
            }
        ));
        assert!(e.to_string().contains("WLAST"));
    }

    #[test]
    fn backdoor_words_span_beats() {
        let mut hbm = Hbm::default();
        let base = 57_000_000 * 4;
        hbm.write_words(base + 56, &[1, 2, 3, 4]);
        assert_eq!(hbm.read_words(base + 52, 6), vec![0, 1, 2, 3, 4, 0]);
    }
}
