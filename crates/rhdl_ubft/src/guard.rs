//! Guard: the slot guard on the receive path, the trust model in hardware.
//!
//! Every incoming RDMA WRITE, as fpga-network-stack's RoCE core hands it to
//! card memory (a memory-write command on `wr_cmd_*` and its payload on
//! `wr_data_*`, formats in `roce.rs`), is checked against the replica its
//! queue pair names before any of it reaches HBM. A write must lie wholly in
//! the sender's own entries of the mailbox (`layout::Mailbox::owner`); the
//! leader's regions take only a record whose view the sender leads (view mod
//! n = sender); a READ response's payload (the stack's mark `WR_RD`) goes
//! only into the sender's record of remote_rows, which takes nothing else
//! (the remote read, docs/remote_read.md); anything else, and any
//! malformed command, is refused whole and counted by reason and by
//! sender. What passes is written to HBM through
//! the block's own AXI4 write master (`aw*`, `w*`, `b*`), one single-beat
//! write per 64-byte beat it touches, byte strobes covering only the record.
//!
//! The rules are table-driven: [`GuardTable`] turns a [`Mailbox`] into one
//! [`Row`] per region (base, size, entry size, owner rule, leader flag, view
//! word), computed and checked at construction; each row becomes one
//! [`RowCheck`] sub-block with the row's numbers as constants. A new layout
//! adds rows, not logic. [`check`] is the same rule in plain Rust, the
//! reference the block is tested against (and the simulator's checker).
//!
//! Ports and handshakes:
//! - `wr_cmd_tdata/tvalid/tready`: AXI-Stream, one command per packet.
//!   `tready` is high only in Idle (not during reset), so the command
//!   taken before is finished whenever it is high (RxStatus and the
//!   simulator read a command's end from it). The checks start on the
//!   command presented, before it is taken: AXI-Stream holds `tdata` while
//!   `tvalid` is high.
//! - `wr_data_tdata/tkeep/tlast/tvalid/tready`: AXI-Stream, the payload of
//!   the command last taken, lane 0 first, `tlast` on its last beat. `tready`
//!   is high from the cycle after the command is taken until `tlast`, and
//!   while draining after a reset. `tkeep` is not used: the command's length
//!   decides which bytes are written.
//! - AXI4 write master: AWLEN 0, AWSIZE 6 (64 bytes), INCR, WLAST 1.
//!   `awvalid` and `wvalid` rise together for each beat and each is held,
//!   payload stable, until its ready. `bready` is always high; a non-OKAY
//!   BRESP is counted in `sts_write_errors`.
//! - configuration: `network_ptr`, `n`, `id`, `qpns` (as for Broadcast: the
//!   local queue pair connected to peer i in bits [10 i + 9 : 10 i]).
//! - `rd_taken`: one cycle as a READ response's command (`WR_RD`) is
//!   taken, accepted or not (RemoteRead's count of READs in flight).
//! - status: `sts_accepted`, `sts_write_errors`, one `sts_refused_*` per
//!   [`Refusal`], and `sts_refused_by` (refusals of sender i in bits
//!   [32 i + 31 : 32 i]); 32-bit counters that wrap.
//!
//! Timing (`awready` and `wready` high). The checks are a pipeline fed
//! every cycle with the command presented on `wr_cmd_*`: a command first
//! presented at p has its results at p + [`CHECK_CYCLES`] = p + 5 (a cycle
//! with `tvalid` low, or a reset cycle, starts them again). Taken at a ≥ p,
//! its payload's last beat at t ≥ a + 1, it is decided at max(p + 5,
//! t + 1), and AW and W are valid the cycle after. Taken as soon as it is
//! presented (the guard idle, p = a), a one-beat write is decided at a + 5,
//! on AXI at a + 6, and the next command is taken at a + 7. The next one,
//! presented from a + 1 while this one is checked and written, has its
//! checks done when it is taken: decided two cycles after it is taken and
//! on AXI the cycle after that, so a flood of one-beat writes lands one
//! every 4 cycles. A record in a leader's region adds eight cycles (view
//! mod n, four bits a cycle), unless its view is below n (its own
//! remainder) or the one last checked under the same n (the memo:
//! `memo_view`, `memo_n`, `memo_rem`). A refusal is decided the same way and the
//! next command is taken the cycle after. A record touching k HBM beats is
//! k AXI writes, one a cycle, and each cycle `awready` or `wready` stays
//! low adds one. `bvalid` never holds the guard up.
//!
//! Streaming: a record longer than the [`BEATS`]-beat buffer is not held
//! whole. Its first `BEATS` beats are taken and the rest are
//! held back on `wr_data_tready` while the write is checked (every leader's
//! record has its view word in its first beat); an accepted record is then
//! written one HBM beat per payload beat, each later beat fetched from the
//! stack after the HBM beat before it (two cycles a beat), and a refused
//! one is drained. A payload whose `tlast` disagrees with its length on a
//! streamed beat stops the write before that beat: it counts as `data`,
//! and the HBM beats before it stay written (docs/guard.md, "Streaming").
//!
//! States, named for what they wait on:
//!
//! | state | waits for | then |
//! | --- | --- | --- |
//! | Idle | a command | Collect (Check when its length is 0: no payload follows) |
//! | Collect | the payload's beats, until `tlast` (streaming: or a full buffer) | Check |
//! | Check | the checks' results (`CHECK_CYCLES` after the command was first presented) | Idle (refused; Drain if the payload is not all in), Leader, or Write |
//! | Leader | view mod n (`LEADER_CYCLES`) | Write, or Idle/Drain (refused) |
//! | Write | AWREADY and WREADY, beat by beat | Idle after the last beat; Fetch when the next HBM beat needs a payload beat not yet taken |
//! | Fetch | streaming: the next payload beat | Write; Idle/Drain when its `tlast` disagrees with the length |
//! | Drain | `tlast` of a payload abandoned by a reset or refused while streaming | Idle |
//!
//! Reset (`rst_n`, synchronous, active low): clears the counters, starts
//! the checks of the command presented again, and abandons a write that
//! has not reached AXI: nothing of it is written. A
//! write whose AW and W are already valid is finished, all of its beats:
//! AXI cannot take back a valid, and stopping would leave a partial record.
//! If the abandoned command's payload is still coming, the guard drains it
//! (`wr_data_tready` high until `tlast`, the beats dropped) before it takes
//! the next command, so the stack's streams stay in step. A streamed
//! record on AXI is finished too, fetching its beats through the reset.

use crate::io::roce::QPNS_BITS;
use crate::io::roce::{
    WrCommand, QPN_BITS, WR_CMD_BITS, WR_DEST, WR_HOST, WR_LEN, WR_LEN_BITS, WR_QPN, WR_RD,
    WR_STRM, WR_VADDR, WR_VADDR_BITS,
};
use crate::layout::{records, Mailbox, Region, Shape, Version};
use crate::params::{BEAT_BITS, BEAT_WORDS, COUNTER_BITS, WORD_BYTES};

// The queue pairs of `qpns` are 10 bits apart (the loop below writes it out).
const _: () = assert!(QPN_BITS == 10);
use rust_hdl::prelude::*;

/// Why a write was refused: the code the block counts it under.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Refusal {
    /// The queue pair is none of peer i's (i < n, i ≠ id).
    UnknownQp = 1,
    /// Length zero, not a whole number of words, or longer than the largest
    /// record of the layout.
    Length = 2,
    /// The address is not on a word.
    Unaligned = 3,
    /// Some byte lies outside the mailbox buffer `[network_ptr, network_ptr +
    /// 4 · end)`, or the address has bits above 47, or the payload is a
    /// SEND's (no address).
    Outside = 4,
    /// The payload's `tlast` did not come on the beat the length implies.
    Data = 5,
    /// A word the sender does not own (another node's entry, padding,
    /// reserved, a gap between regions), or a write across two entries.
    NotOwner = 6,
    /// A leader's record whose view the sender does not lead.
    NotLeader = 7,
    /// A write in a leader's region across two records or without the
    /// record's view word.
    Shape = 8,
    /// A region the guard cannot check. No region of the kernel's layout is
    /// closed with it, so its counter stays 0; the code keeps its place in
    /// the register map (`guard_refused_unchecked`).
    Unchecked = 9,
}

/// Refusal reasons, and counters of them.
pub const REASONS: usize = 9;

impl Refusal {
    /// In code order.
    pub const ALL: [Refusal; REASONS] = [
        Refusal::UnknownQp,
        Refusal::Length,
        Refusal::Unaligned,
        Refusal::Outside,
        Refusal::Data,
        Refusal::NotOwner,
        Refusal::NotLeader,
        Refusal::Shape,
        Refusal::Unchecked,
    ];

    /// The code (1 ..= REASONS; 0 is "accepted").
    pub const fn code(self) -> u64 {
        self as u64
    }

    /// The reason with this code.
    pub fn from_code(code: u64) -> Option<Refusal> {
        Self::ALL.iter().copied().find(|r| r.code() == code)
    }

    /// The counter's name: the block's port is `sts_refused_<name>`.
    pub const fn name(self) -> &'static str {
        match self {
            Refusal::UnknownQp => "unknown_qp",
            Refusal::Length => "length",
            Refusal::Unaligned => "unaligned",
            Refusal::Outside => "outside",
            Refusal::Data => "data",
            Refusal::NotOwner => "not_owner",
            Refusal::NotLeader => "not_leader",
            Refusal::Shape => "shape",
            Refusal::Unchecked => "unchecked",
        }
    }

    /// Is this a malformed command (refused before any rule is looked at)?
    pub const fn is_malformed(self) -> bool {
        matches!(
            self,
            Refusal::UnknownQp
                | Refusal::Length
                | Refusal::Unaligned
                | Refusal::Outside
                | Refusal::Data
        )
    }
}

/// Who may write a region, and how its entries are laid out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Entry e = offset / `entry_words` belongs to node e mod `period`
    /// (nobody when that is not below the layout's n: padding).
    Owned { entry_words: usize, period: usize },
    /// One record every `record_words`, its view at word `view_at`
    /// (`view_words` words: 1 in v3; 2 in v4, a 48-bit view whose high
    /// word has no bit above 15): only leader(view) = view mod n writes it,
    /// a whole write inside one record and holding the view's words.
    Leader {
        record_words: usize,
        view_at: usize,
        view_words: usize,
    },
    /// Nobody writes here; a write is refused with this reason.
    Closed(Refusal),
}

/// The rule of a region under the trust model (docs/recovery.md, sections
/// 3 and 13; docs/guard.md, "Rules"): will_cert and will_commit entries are
/// their writer's; every other per-node record is its writer's entry, one
/// per stride; prepare, prep_sig and new_view are the leader's, each
/// record's view word naming it. For `Mailbox::v4` the same rules with
/// v4's entries and view words (`records::v4`); the kernel's guard block
/// takes v3's ([`Guard::new`]).
pub fn rule_for(mb: &Mailbox, region: Region) -> Rule {
    let v4 = mb.version == Version::V4;
    let leader = |view_at: usize, view_at_v4: usize| Rule::Leader {
        record_words: mb.stride(region),
        view_at: if v4 { view_at_v4 } else { view_at },
        view_words: if v4 { 2 } else { 1 },
    };
    match (region, Shape::of(region)) {
        (_, Shape::VoteRows) => Rule::Owned {
            entry_words: mb.vote_words(),
            period: mb.vote_row_words() / mb.vote_words(),
        },
        (_, s) if s.per_node() => Rule::Owned {
            entry_words: mb.stride(region),
            period: s.row_records(mb.n, mb.g),
        },
        (Region::Prepare, _) => leader(records::PREPARE_V, records::v4::PREPARE_V),
        (Region::PrepSig, _) => leader(records::BLOCK_V, records::v4::BLOCK_V),
        // v + 1, the view the record's writer leads.
        (Region::NewViewRecord, _) => leader(records::NV_VIEW, records::v4::NV_VIEW),
        _ => Rule::Closed(Refusal::NotOwner),
    }
}

/// Whether a region takes READ responses only (and nothing else takes
/// them): remote_rows, where this replica's RDMA READs of its peers'
/// mailboxes land (recovery.md section 11, "A remote read").
pub fn read_only(region: Region) -> bool {
    region == Region::RemoteRows
}

/// The largest record of the layout, in words: the longest write the guard
/// takes.
pub fn max_record_words(mb: &Mailbox) -> usize {
    Region::of_version(mb.version)
        .iter()
        .map(|&r| match rule_for(mb, r) {
            Rule::Owned { entry_words, .. } => entry_words,
            Rule::Leader { record_words, .. } => record_words,
            Rule::Closed(_) => 0,
        })
        .max()
        .unwrap_or(0)
}

/// `x / divisor == (x · mul) >> shift` for every x below the limit it was
/// made for: a division by a constant with one 16 × 16 multiply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Divider {
    pub divisor: usize,
    pub mul: u64,
    pub shift: u64,
}

impl Divider {
    /// The smallest shift whose multiplier fits 16 bits and is exact for
    /// every x < `limit` (checked exhaustively); a power of two gets
    /// mul = 1.
    pub fn new(divisor: usize, limit: usize) -> Divider {
        assert!(divisor >= 1 && divisor < 1 << 16, "divisor {divisor}");
        assert!(limit <= 1 << 16, "offsets must fit 16 bits ({limit})");
        for shift in 0..32u64 {
            let mul = (1u64 << shift).div_ceil(divisor as u64);
            if mul >= 1 << 16 {
                break;
            }
            let d = Divider {
                divisor,
                mul,
                shift,
            };
            if (0..limit).all(|x| d.apply(x) == x / divisor) {
                return d;
            }
        }
        panic!("no 16-bit multiplier divides by {divisor} below {limit}")
    }

    /// The hardware's arithmetic: a 16 × 16 product, shifted, 16 bits kept.
    pub fn apply(&self, x: usize) -> usize {
        ((((x as u64) & 0xffff) * self.mul) >> self.shift) as usize & 0xffff
    }
}

/// One region as the block sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub region: Region,
    /// First word (an index from `network_ptr`).
    pub base: usize,
    /// Words.
    pub words: usize,
    pub rule: Rule,
    /// Entry (or record) words, and entries per period of owners; 1 and 1
    /// for a closed row.
    pub entry_words: usize,
    pub period: usize,
    /// offset / entry_words, and entry / period, as the hardware divides.
    pub entry_div: Divider,
    pub period_div: Divider,
}

impl Row {
    fn new(mb: &Mailbox, region: Region) -> Row {
        let span = mb.span(region);
        let rule = rule_for(mb, region);
        let (entry_words, mut period) = match rule {
            Rule::Owned {
                entry_words,
                period,
            } => (entry_words, period),
            Rule::Leader { record_words, .. } => (record_words, 1),
            Rule::Closed(_) => (1, 1),
        };
        let entries = span.words.div_ceil(entry_words);
        // A region of one period (seal): any power of two at least
        // as large gives the same owners, and a free division.
        if entries <= period {
            period = period.next_power_of_two();
        }
        Row {
            region,
            base: span.start,
            words: span.words,
            rule,
            entry_words,
            period,
            entry_div: Divider::new(entry_words, span.words),
            period_div: Divider::new(period, entries),
        }
    }

    /// (entry, offset in the entry, owner) of the word at `off`, computed as
    /// the block computes it.
    pub fn decompose(&self, off: usize) -> (usize, usize, usize) {
        let e = self.entry_div.apply(off);
        let eo = (off - e * self.entry_words) & 0xffff;
        let q = self.period_div.apply(e);
        (e, eo, (e - q * self.period) & 0xffff)
    }

    pub fn contains(&self, word: usize) -> bool {
        word >= self.base && word < self.base + self.words
    }
}

/// The guard's view of a layout: one row per region, in the layout's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardTable {
    /// The layout's n: the build's N.
    pub n: usize,
    pub rows: Vec<Row>,
    /// The word after the last region: the buffer is `[0, end)`.
    pub end: usize,
    /// The longest write taken, in words.
    pub max_words: usize,
}

impl GuardTable {
    /// The table of `mb`, checked word by word against `Mailbox::owner`.
    pub fn new(mb: &Mailbox) -> GuardTable {
        let rows: Vec<Row> = Region::of_version(mb.version)
            .iter()
            .map(|&r| Row::new(mb, r))
            .collect();
        let t = GuardTable {
            n: mb.n,
            rows,
            end: mb.end(),
            max_words: max_record_words(mb),
        };
        t.verify(mb);
        t
    }

    /// The row holding `word`.
    pub fn row_of(&self, word: usize) -> Option<&Row> {
        self.rows.iter().find(|r| r.contains(word))
    }

    /// The checks that let the block's arithmetic stand for the rule.
    fn verify(&self, mb: &Mailbox) {
        for w in self.rows.windows(2) {
            assert!(
                w[0].base + w[0].words <= w[1].base,
                "rows overlap: {:?}",
                w[1].region
            );
        }
        let last = self.rows.last().expect("a layout has regions");
        assert!(
            last.base + last.words == self.end,
            "the last row ends the buffer"
        );
        assert!(self.end < 1 << 30, "word indices fit 32 bits as bytes / 4");
        // (row, entry) of each word an owner holds, to find adjacent entries.
        let mut prev: Option<(usize, Option<(usize, usize)>)> = None;
        for word in self.rows[0].base..self.end {
            let owner = mb.owner(word);
            let entry = self.rows.iter().enumerate().find_map(|(i, r)| {
                if !r.contains(word) {
                    return None;
                }
                let (e, eo, o) = r.decompose(word - r.base);
                assert_eq!(
                    e * r.entry_words + eo,
                    word - r.base,
                    "{:?}: the entry division is exact",
                    r.region
                );
                assert!(eo < r.entry_words);
                match r.rule {
                    Rule::Owned { .. } => {
                        let hw = (o < self.n).then_some(o);
                        assert_eq!(hw, owner, "{:?} word {word}: owner", r.region);
                    }
                    _ => assert_eq!(owner, None, "{:?} word {word}", r.region),
                }
                Some((i, e))
            });
            if entry.is_none() {
                assert_eq!(owner, None, "word {word} lies in no row");
            }
            // The block refuses a write across two entries; the rule refuses
            // one across two owners. They agree when no two adjacent
            // entries share an owner, which holds for every layout of two
            // or more nodes (with one node there is no peer to refuse).
            if let (Some((p_owner, p_entry)), Some(o)) = (prev, owner) {
                if self.n >= 2 && p_owner == o {
                    assert_eq!(
                        p_entry, entry,
                        "word {word}: two adjacent entries of node {o}"
                    );
                }
            }
            prev = owner.map(|o| (o, entry));
        }
    }
}

impl GuardTable {
    /// The table as docs/guard.md shows it (a test checks the page holds the
    /// default build's).
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "| region | first word | words | rule | entry words | owner of entry e | view word | hardware divisions (mul, shift) |\n\
             | --- | ---: | ---: | --- | ---: | --- | ---: | --- |\n",
        );
        for r in &self.rows {
            let (rule, owner, view) = match r.rule {
                Rule::Owned { period, .. } if read_only(r.region) => (
                    "owned, READ responses only".to_string(),
                    format!("e mod {period}"),
                    "".into(),
                ),
                Rule::Owned { period, .. } => {
                    ("owned".to_string(), format!("e mod {period}"), "".into())
                }
                Rule::Leader {
                    view_at,
                    view_words,
                    ..
                } => (
                    "leader's record".into(),
                    "view mod n".into(),
                    (view_at..view_at + view_words)
                        .map(|w| w.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                Rule::Closed(why) => (
                    format!("closed: `{}`", why.name()),
                    "nobody".into(),
                    "".into(),
                ),
            };
            let div = match r.rule {
                Rule::Closed(_) => String::new(),
                _ => format!(
                    "/{}: ({}, {}); /{}: ({}, {})",
                    r.entry_words,
                    r.entry_div.mul,
                    r.entry_div.shift,
                    r.period,
                    r.period_div.mul,
                    r.period_div.shift
                ),
            };
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.region.name(),
                r.base,
                r.words,
                rule,
                r.entry_words,
                owner,
                view,
                div
            );
        }
        s
    }
}

/// The configuration the guard reads (the kernel's control registers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardConfig {
    pub network_ptr: u64,
    pub n: usize,
    pub id: usize,
    /// `qpns[i]`: the local queue pair connected to peer i.
    pub qpns: Vec<u64>,
}

/// The replica whose writes arrive on queue pair `qpn`: the first i < n,
/// i ≠ id, with `qpns[i] == qpn`.
pub fn sender_of(cfg: &GuardConfig, qpn: u64) -> Option<usize> {
    (0..cfg.n.min(cfg.qpns.len())).find(|&i| i != cfg.id && cfg.qpns[i] == qpn)
}

/// The slot guard's rule, the reference: may `sender` (< n, the replicas
/// of the cluster) write `data` at word index `word` of a mailbox laid out
/// as `mb`? This is `ubft_sim`'s `Network::guard`, except that an empty,
/// too long or out-of-buffer write is refused here too.
pub fn check(
    mb: &Mailbox,
    n: usize,
    sender: usize,
    word: usize,
    data: &[u32],
) -> Result<(), Refusal> {
    check_rd(mb, n, sender, word, data, false)
}

/// [`check`] for a write that is a READ response (`rd`, the stack's mark
/// `WR_RD`) or not: a READ response is taken only into remote_rows, and
/// remote_rows takes nothing else; where that fails, the row's refusal
/// (`not_owner` for an owned row or none, `shape` for a leader's).
pub fn check_rd(
    mb: &Mailbox,
    n: usize,
    sender: usize,
    word: usize,
    data: &[u32],
    rd: bool,
) -> Result<(), Refusal> {
    assert!(sender < n, "the sender is a replica of the cluster");
    if data.is_empty() || data.len() > max_record_words(mb) {
        return Err(Refusal::Length);
    }
    if word + data.len() > mb.end() {
        return Err(Refusal::Outside);
    }
    let words = word..word + data.len();
    let rule = mb
        .locate(word)
        .map(|(region, off)| (rule_for(mb, region), off));
    match (mb.locate(word), rule) {
        (Some((region, _)), Some((r, _))) if read_only(region) != rd => {
            return Err(match r {
                Rule::Leader { .. } => Refusal::Shape,
                Rule::Closed(why) => why,
                Rule::Owned { .. } => Refusal::NotOwner,
            });
        }
        (None, _) => return Err(Refusal::NotOwner),
        _ => {}
    }
    match rule {
        Some((
            Rule::Leader {
                record_words,
                view_at,
                view_words,
            },
            off,
        )) => {
            let start = word - off % record_words;
            let view_word = start + view_at;
            let last = view_word + view_words - 1;
            if words.end > start + record_words
                || !words.contains(&view_word)
                || !words.contains(&last)
            {
                return Err(Refusal::Shape);
            }
            let lo = data[view_word - word];
            let view = if view_words == 1 {
                u64::from(lo)
            } else {
                match records::v4::join(lo, data[last - word]) {
                    Some(v) => v,
                    None => return Err(Refusal::Shape),
                }
            };
            if view % n as u64 == sender as u64 {
                Ok(())
            } else {
                Err(Refusal::NotLeader)
            }
        }
        Some((Rule::Closed(reason), _)) => Err(reason),
        _ => {
            if words.into_iter().all(|w| mb.owner(w) == Some(sender)) {
                Ok(())
            } else {
                Err(Refusal::NotOwner)
            }
        }
    }
}

/// The checks of a command alone, in the block's order: the sender and the
/// word index, or the refusal (with the sender when the queue pair named
/// one).
pub fn check_command(
    mb: &Mailbox,
    cfg: &GuardConfig,
    cmd: &WrCommand,
) -> Result<(usize, usize), (Refusal, Option<usize>)> {
    let sender = sender_of(cfg, cmd.qpn).ok_or((Refusal::UnknownQp, None))?;
    let refuse = |r| Err((r, Some(sender)));
    let max_bytes = max_record_words(mb) as u64 * WORD_BYTES;
    if cmd.len == 0 || cmd.len % WORD_BYTES != 0 || cmd.len > max_bytes {
        return refuse(Refusal::Length);
    }
    if cmd.vaddr % WORD_BYTES != 0 {
        return refuse(Refusal::Unaligned);
    }
    let end = mb.end() as u64 * WORD_BYTES;
    if !cmd.host
        || cmd.strm
        || cmd.dest != 0
        || cmd.vaddr < cfg.network_ptr
        || cmd.vaddr - cfg.network_ptr + cmd.len > end
    {
        return refuse(Refusal::Outside);
    }
    Ok((
        sender,
        ((cmd.vaddr - cfg.network_ptr) / WORD_BYTES) as usize,
    ))
}

/// The whole decision for a command whose payload came in `beats` beats
/// (the beat with `tlast` included): (sender, word) to write, or the
/// refusal and the sender it is counted for.
pub fn decide(
    mb: &Mailbox,
    cfg: &GuardConfig,
    cmd: &WrCommand,
    payload: &[u32],
    beats: usize,
) -> Result<(usize, usize), (Refusal, Option<usize>)> {
    let (sender, word) = check_command(mb, cfg, cmd)?;
    if beats as u64 != cmd.len.div_ceil(64) {
        return Err((Refusal::Data, Some(sender)));
    }
    check_rd(mb, cfg.n, sender, word, payload, cmd.rd).map_err(|r| (r, Some(sender)))?;
    Ok((sender, word))
}

/// Cycles from a command's first cycle presented on `wr_cmd_*` (taken or
/// not) to its checks' results (docs/guard.md, "Timing").
pub const CHECK_CYCLES: u64 = 5;
/// Cycles of the leader check (32 bits of view, four a cycle).
pub const LEADER_CYCLES: u64 = 8;

/// Bits of `sts_refused_by`: a counter per possible sender of the build.
pub const REFUSED_BY_BITS: usize = crate::params::N * COUNTER_BITS;

/// The table's rows: one per region of the layout.
pub const ROWS: usize = Region::ALL.len();
/// Payload beats the guard buffers: a two-beat record (most of the layout's)
/// is held whole; commit and new_view are streamed after their first two.
/// Two is the least that streams: an HBM beat takes words from two payload
/// beats.
pub const BEATS: usize = 2;
const _: () = assert!(BEATS >= 2 && BEATS < 64);

/// A constant of the block.
fn konst<const B: usize>(x: u64) -> Constant<Bits<B>> {
    Constant::new(x.into())
}

/// One row of the table in hardware: is the write's first word in this
/// region, and may the sender write there?
///
/// A four-stage pipeline that takes a command every cycle: stage 1 finds
/// the row (`hit`) from `word` and the offset; 2 the entry, offset / entry
/// words; 3 the offset in the entry and the period; 4 the owner, entry −
/// period · period length, and the verdict, from `words`, `sender` and
/// `rd`, which the guard carries along so that stage 4 reads its own
/// command's. The divisions are multiplications by the row's
/// constants ([`Divider`]), so a row of powers of two costs shifts only.
#[derive(LogicBlock)]
pub struct RowCheck {
    pub clock: Signal<In, Clock>,
    pub word: Signal<In, Bits<32>>,
    pub words: Signal<In, Bits<16>>,
    pub sender: Signal<In, Bits<8>>,
    /// The command is a READ response's (`WR_RD`).
    pub rd: Signal<In, Bit>,
    /// The first word is in this row.
    pub hit: Signal<Out, Bit>,
    /// Owned: the write lies in one entry, the sender's. Leader: it lies in
    /// one record and holds the record's view word. Closed: never. And in
    /// every row: the write is a READ response exactly where the row is
    /// remote_rows.
    pub pass: Signal<Out, Bit>,
    /// A leader's row: the view still has to be checked.
    pub leader: Signal<Out, Bit>,
    /// The refusal when not `pass`.
    pub code: Signal<Out, Bits<4>>,
    /// Leader: the index of the view word in the payload.
    pub vidx: Signal<Out, Bits<16>>,
    hit1: DFF<Bit>,
    off1: DFF<Bits<16>>,
    hit2: DFF<Bit>,
    off2: DFF<Bits<16>>,
    e2: DFF<Bits<16>>,
    hit3: DFF<Bit>,
    e3: DFF<Bits<16>>,
    eo3: DFF<Bits<16>>,
    q3: DFF<Bits<16>>,
    hit4: DFF<Bit>,
    pass4: DFF<Bit>,
    vidx4: DFF<Bits<16>>,
    rel: Signal<Local, Bits<32>>,
    prod_e: Signal<Local, Bits<32>>,
    back_e: Signal<Local, Bits<16>>,
    prod_q: Signal<Local, Bits<32>>,
    back_q: Signal<Local, Bits<16>>,
    owner: Signal<Local, Bits<16>>,
    span_end: Signal<Local, Bits<17>>,
    fits: Signal<Local, Bit>,
    base: Constant<Bits<32>>,
    size: Constant<Bits<32>>,
    entry_words: Constant<Bits<16>>,
    entry_end: Constant<Bits<17>>,
    entry_mul: Constant<Bits<16>>,
    entry_shift: Constant<Bits<6>>,
    period: Constant<Bits<16>>,
    period_mul: Constant<Bits<16>>,
    period_shift: Constant<Bits<6>>,
    view_at: Constant<Bits<16>>,
    view_at17: Constant<Bits<17>>,
    is_owned: Constant<Bit>,
    is_leader: Constant<Bit>,
    read_only: Constant<Bit>,
    refusal: Constant<Bits<4>>,
}

impl RowCheck {
    pub fn new(row: &Row) -> RowCheck {
        let (is_owned, is_leader, view_at, refusal) = match row.rule {
            Rule::Owned { .. } => (true, false, 0, Refusal::NotOwner),
            Rule::Leader { view_at, .. } => (false, true, view_at, Refusal::Shape),
            Rule::Closed(r) => (false, false, 0, r),
        };
        assert!(row.entry_words < 1 << 16 && row.period < 1 << 16);
        RowCheck {
            clock: Default::default(),
            word: Default::default(),
            words: Default::default(),
            sender: Default::default(),
            rd: Default::default(),
            hit: Default::default(),
            pass: Default::default(),
            leader: Default::default(),
            code: Default::default(),
            vidx: Default::default(),
            hit1: Default::default(),
            off1: Default::default(),
            hit2: Default::default(),
            off2: Default::default(),
            e2: Default::default(),
            hit3: Default::default(),
            e3: Default::default(),
            eo3: Default::default(),
            q3: Default::default(),
            hit4: Default::default(),
            pass4: Default::default(),
            vidx4: Default::default(),
            rel: Default::default(),
            prod_e: Default::default(),
            back_e: Default::default(),
            prod_q: Default::default(),
            back_q: Default::default(),
            owner: Default::default(),
            span_end: Default::default(),
            fits: Default::default(),
            base: konst(row.base as u64),
            size: konst(row.words as u64),
            entry_words: konst(row.entry_words as u64),
            entry_end: konst(row.entry_words as u64),
            entry_mul: Constant::new(row.entry_div.mul.into()),
            entry_shift: Constant::new(row.entry_div.shift.into()),
            period: konst(row.period as u64),
            period_mul: Constant::new(row.period_div.mul.into()),
            period_shift: Constant::new(row.period_div.shift.into()),
            view_at: konst(view_at as u64),
            view_at17: konst(view_at as u64),
            is_owned: Constant::new(is_owned),
            is_leader: Constant::new(is_leader),
            read_only: Constant::new(read_only(row.region)),
            refusal: Constant::new(refusal.code().into()),
        }
    }
}

impl Logic for RowCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hit1, off1, hit2, off2, e2, hit3, e3, eo3, q3, hit4, pass4, vidx4);
        // Stage 1: the row, and the offset in it.
        self.rel.next = self.word.val() - self.base.val();
        self.hit1.d.next =
            (self.word.val() >= self.base.val()) & (self.rel.val() < self.size.val());
        self.off1.d.next = self.rel.val().get_bits::<16>(0);
        // Stage 2: the entry.
        self.prod_e.next = self.off1.q.val() * self.entry_mul.val();
        self.hit2.d.next = self.hit1.q.val();
        self.off2.d.next = self.off1.q.val();
        self.e2.d.next = bit_cast::<16, 32>(self.prod_e.val() >> self.entry_shift.val());
        // Stage 3: the offset in the entry, and the period the entry is in.
        self.back_e.next = bit_cast::<16, 32>(self.e2.q.val() * self.entry_words.val());
        self.prod_q.next = self.e2.q.val() * self.period_mul.val();
        self.hit3.d.next = self.hit2.q.val();
        self.e3.d.next = self.e2.q.val();
        self.eo3.d.next = self.off2.q.val() - self.back_e.val();
        self.q3.d.next = bit_cast::<16, 32>(self.prod_q.val() >> self.period_shift.val());
        // Stage 4: the owner, and whether the write fits the entry.
        self.back_q.next = bit_cast::<16, 32>(self.q3.q.val() * self.period.val());
        self.owner.next = self.e3.q.val() - self.back_q.val();
        self.span_end.next =
            bit_cast::<17, 16>(self.eo3.q.val()) + bit_cast::<17, 16>(self.words.val());
        self.fits.next = self.span_end.val() <= self.entry_end.val();
        self.hit4.d.next = self.hit3.q.val();
        self.pass4.d.next = ((self.is_owned.val()
            & self.fits.val()
            & (self.owner.val() == bit_cast::<16, 8>(self.sender.val())))
            | (self.is_leader.val()
                & self.fits.val()
                & (self.eo3.q.val() <= self.view_at.val())
                & (self.view_at17.val() < self.span_end.val())))
            & (self.rd.val() == self.read_only.val());
        self.vidx4.d.next = self.view_at.val() - self.eo3.q.val();
        self.hit.next = self.hit4.q.val();
        self.pass.next = self.pass4.q.val();
        self.leader.next = self.is_leader.val();
        self.code.next = self.refusal.val();
        self.vidx.next = self.vidx4.q.val();
    }
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum GuardState {
    /// Waiting for a command.
    Idle,
    /// Taking the payload, until `tlast`.
    Collect,
    /// Dropping the rest of an abandoned payload (after a reset).
    Drain,
    /// Waiting for the checks' results; then refuse, write, or check the
    /// view.
    Check,
    /// view mod n, four bits a cycle.
    Leader,
    /// One AW and one W per beat.
    Write,
    /// Streaming: the next payload beat, into the buffer slot the HBM beat
    /// after the one just written needs.
    Fetch,
}

/// The slot guard for a build of `N` replicas, a table of `ROWS` rows and a
/// payload buffer of `BEATS` beats (module header; docs/guard.md).
#[derive(LogicBlock)]
pub struct Guard<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Configuration.
    pub network_ptr: Signal<In, Bits<64>>,
    pub n: Signal<In, Bits<8>>,
    pub id: Signal<In, Bits<8>>,
    pub qpns: Signal<In, Bits<QPNS_BITS>>,
    // The stack's memory-write commands and data.
    pub wr_cmd_tdata: Signal<In, Bits<WR_CMD_BITS>>,
    pub wr_cmd_tvalid: Signal<In, Bit>,
    pub wr_cmd_tready: Signal<Out, Bit>,
    pub wr_data_tdata: Signal<In, Bits<BEAT_BITS>>,
    pub wr_data_tkeep: Signal<In, Bits<64>>,
    pub wr_data_tlast: Signal<In, Bit>,
    pub wr_data_tvalid: Signal<In, Bit>,
    pub wr_data_tready: Signal<Out, Bit>,
    // AXI4 write master.
    pub awaddr: Signal<Out, Bits<64>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awsize: Signal<Out, Bits<3>>,
    pub awburst: Signal<Out, Bits<2>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<BEAT_BITS>>,
    pub wstrb: Signal<Out, Bits<64>>,
    pub wlast: Signal<Out, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    /// One cycle as the block takes a READ response's command (`WR_RD`),
    /// accepted or not: it has left the stack's receive queue (RemoteRead
    /// counts its READs in flight by it).
    pub rd_taken: Signal<Out, Bit>,
    /// One cycle as an HBM beat's AW and W have both been taken (the
    /// later of the two handshakes): `awaddr`, `wdata` and `wstrb` are that
    /// beat. The scoreboard's `rx_*` (docs/scoreboard.md).
    pub landed: Signal<Out, Bit>,
    // Status.
    pub sts_accepted: Signal<Out, Bits<32>>,
    pub sts_write_errors: Signal<Out, Bits<32>>,
    pub sts_refused_unknown_qp: Signal<Out, Bits<32>>,
    pub sts_refused_length: Signal<Out, Bits<32>>,
    pub sts_refused_unaligned: Signal<Out, Bits<32>>,
    pub sts_refused_outside: Signal<Out, Bits<32>>,
    pub sts_refused_data: Signal<Out, Bits<32>>,
    pub sts_refused_not_owner: Signal<Out, Bits<32>>,
    pub sts_refused_not_leader: Signal<Out, Bits<32>>,
    pub sts_refused_shape: Signal<Out, Bits<32>>,
    pub sts_refused_unchecked: Signal<Out, Bits<32>>,
    pub sts_refused_by: Signal<Out, Bits<REFUSED_BY_BITS>>,
    rows: [RowCheck; ROWS],
    state: DFF<GuardState>,
    // The checks of the command presented on `wr_cmd_*`, a pipeline fed
    // every cycle: `pres` counts the cycles the same command has been
    // presented (0 its first; its row checks are out at 5).
    pres: DFF<Bits<4>>,
    // What the command alone says (registered from `wr_cmd_tdata`), then
    // carried along the row checks' stages (sN: with stage N).
    word_d: DFF<Bits<32>>,
    words_d: DFF<Bits<16>>,
    sender_d: DFF<Bits<8>>,
    known_d: DFF<Bit>,
    mal_d: DFF<Bits<4>>,
    rd_d: DFF<Bit>,
    words_s2: DFF<Bits<16>>,
    words_s3: DFF<Bits<16>>,
    words_s4: DFF<Bits<16>>,
    sender_s2: DFF<Bits<8>>,
    sender_s3: DFF<Bits<8>>,
    sender_s4: DFF<Bits<8>>,
    sender_s5: DFF<Bits<8>>,
    known_s2: DFF<Bit>,
    known_s3: DFF<Bit>,
    known_s4: DFF<Bit>,
    known_s5: DFF<Bit>,
    mal_s2: DFF<Bits<4>>,
    mal_s3: DFF<Bits<4>>,
    mal_s4: DFF<Bits<4>>,
    mal_s5: DFF<Bits<4>>,
    rd_s2: DFF<Bit>,
    rd_s3: DFF<Bit>,
    rd_s4: DFF<Bit>,
    // The command taken: its address and length, and its checks' results
    // (latched when they come out, at age 5; age counts from the cycle it
    // was first presented).
    vaddr_q: DFF<Bits<64>>,
    len_q: DFF<Bits<32>>,
    age: DFF<Bits<4>>,
    sender_q: DFF<Bits<8>>,
    known_q: DFF<Bit>,
    mal_q: DFF<Bits<4>>,
    hit_q: DFF<Bit>,
    pass_q: DFF<Bit>,
    leader_q: DFF<Bit>,
    code_q: DFF<Bits<4>>,
    vidx_q: DFF<Bits<16>>,
    // The payload.
    buf: [DFF<Bits<BEAT_BITS>>; BEATS],
    csel: DFF<Bits<64>>,
    beat_n: DFF<Bits<8>>,
    data_bad: DFF<Bit>,
    // The payload's tlast has been taken (streaming: the rest is drained
    // after a refusal when it has not).
    got_last: DFF<Bit>,
    // The leader check.
    vsh: DFF<Bits<32>>,
    rem: DFF<Bits<9>>,
    step: DFF<Bits<4>>,
    // The view being checked and the n it is checked with.
    vck: DFF<Bits<32>>,
    nck: DFF<Bits<8>>,
    // The last view checked, the n it was checked with, and view mod n: a
    // record of the same view under the same n needs no check.
    memo_ok: DFF<Bit>,
    memo_view: DFF<Bits<32>>,
    memo_n: DFF<Bits<8>>,
    memo_rem: DFF<Bits<9>>,
    memo_hit: Signal<Local, Bit>,
    known: Signal<Local, Bit>,
    known_rem: Signal<Local, Bits<9>>,
    // The HBM write.
    wad: DFF<Bits<64>>,
    wrem: DFF<Bits<32>>,
    wsel: DFF<Bits<64>>,
    // Streaming: the slot of the previous payload beat, and the HBM beat's
    // index.
    psel: DFF<Bits<64>>,
    hb: DFF<Bits<8>>,
    first: DFF<Bit>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    // Counters.
    accepted_q: DFF<Bits<32>>,
    werr_q: DFF<Bits<32>>,
    refused_q: [DFF<Bits<32>>; REASONS],
    by_q: DFF<Bits<REFUSED_BY_BITS>>,
    // Combinational.
    take: Signal<Local, Bit>,
    c_vaddr: Signal<Local, Bits<64>>,
    c_len: Signal<Local, Bits<32>>,
    c_high: Signal<Local, Bit>,
    diff: Signal<Local, Bits<64>>,
    found: Signal<Local, Bit>,
    who: Signal<Local, Bits<8>>,
    mal: Signal<Local, Bits<4>>,
    lane: Signal<Local, Bits<4>>,
    expect_m1: Signal<Local, Bits<8>>,
    rot1: Signal<Local, Bits<BEAT_BITS>>,
    rot2: Signal<Local, Bits<BEAT_BITS>>,
    lane_lo: Signal<Local, Bits<2>>,
    lane_hi: Signal<Local, Bits<2>>,
    r_hit: Signal<Local, Bit>,
    r_pass: Signal<Local, Bit>,
    r_leader: Signal<Local, Bit>,
    r_code: Signal<Local, Bits<4>>,
    r_vidx: Signal<Local, Bits<16>>,
    // The taken command's results: live at age 5, latched after.
    s_hit: Signal<Local, Bit>,
    s_pass: Signal<Local, Bit>,
    s_leader: Signal<Local, Bit>,
    s_code: Signal<Local, Bits<4>>,
    s_vidx: Signal<Local, Bits<16>>,
    s_sender: Signal<Local, Bits<8>>,
    s_known: Signal<Local, Bit>,
    s_mal: Signal<Local, Bits<4>>,
    vbeat: Signal<Local, Bits<BEAT_BITS>>,
    vlane: Signal<Local, Bits<4>>,
    vword: Signal<Local, Bits<9>>,
    view: Signal<Local, Bits<32>>,
    n9: Signal<Local, Bits<9>>,
    t1: Signal<Local, Bits<9>>,
    m1: Signal<Local, Bits<9>>,
    t2: Signal<Local, Bits<9>>,
    m2: Signal<Local, Bits<9>>,
    t3: Signal<Local, Bits<9>>,
    m3: Signal<Local, Bits<9>>,
    t4: Signal<Local, Bits<9>>,
    m4: Signal<Local, Bits<9>>,
    cur: Signal<Local, Bits<BEAT_BITS>>,
    prev: Signal<Local, Bits<BEAT_BITS>>,
    lane_mask: Signal<Local, Bits<BEAT_BITS>>,
    lo: Signal<Local, Bits<7>>,
    hi: Signal<Local, Bits<7>>,
    refuse: Signal<Local, Bit>,
    why: Signal<Local, Bits<4>>,
    nxt: Signal<Local, Bits<8>>,
    rot_sel: Signal<Local, Bits<64>>,
    by_off: Signal<Local, Bits<16>>,
    by_field: Signal<Local, Bits<32>>,
    // Constants.
    at_vaddr: Constant<Bits<8>>,
    at_len: Constant<Bits<8>>,
    at_strm: Constant<Bits<8>>,
    at_host: Constant<Bits<8>>,
    at_rd: Constant<Bits<8>>,
    at_dest: Constant<Bits<8>>,
    at_qpn: Constant<Bits<8>>,
    ids: Constant<Bits<64>>,
    reason_ids: Constant<Bits<64>>,
    beat_ids: Constant<Bits<1024>>,
    end_bytes: Constant<Bits<64>>,
    max_bytes: Constant<Bits<32>>,
    ready_age: Constant<Bits<4>>,
    c_length: Constant<Bits<4>>,
    c_unknown: Constant<Bits<4>>,
    c_unaligned: Constant<Bits<4>>,
    c_outside: Constant<Bits<4>>,
    c_data: Constant<Bits<4>>,
    c_not_owner: Constant<Bits<4>>,
    c_not_leader: Constant<Bits<4>>,
    ones: Constant<Bits<BEAT_BITS>>,
    ones64: Constant<Bits<64>>,
    mask32: Constant<Bits<REFUSED_BY_BITS>>,
    beat_mask: Constant<Bits<64>>,
    size: Constant<Bits<3>>,
    burst: Constant<Bits<2>>,
    // The buffer's last slot, one-hot.
    last_slot: Constant<Bits<64>>,
}

impl<const N: usize> Default for Guard<N> {
    /// The kernel's guard: [`table`]`(N)`.
    fn default() -> Self {
        Self::new(&table(N))
    }
}

impl<const N: usize> Guard<N> {
    /// The guard of `table`, which must be the layout of this build: n = N,
    /// [`ROWS`] rows.
    pub fn new(table: &GuardTable) -> Self {
        assert!(
            N >= 1 && N <= crate::params::N,
            "Guard<N>: qpns and sts_refused_by are sized for params::N"
        );
        assert_eq!(table.n, N, "the table's layout is for N replicas");
        assert_eq!(table.rows.len(), ROWS, "one RowCheck per row");
        // A record longer than the buffer is streamed: its first BEATS beats
        // are held while the write is checked, the rest taken one at a time
        // as HBM takes the beats before them (docs/guard.md, "Streaming").
        assert!(
            table.max_words.div_ceil(BEAT_WORDS) < 255,
            "beat_n counts a record's beats"
        );
        for r in &table.rows {
            if let Rule::Leader {
                view_at,
                view_words,
                ..
            } = r.rule
            {
                assert_eq!(
                    view_words, 1,
                    "{:?}: the block checks a one-word view (Mailbox::v3)",
                    r.region
                );
                assert!(
                    view_at < BEATS * BEAT_WORDS,
                    "{:?}: the view word is checked before the write starts, \
                     so it must lie in the buffered beats",
                    r.region
                );
            }
        }
        let mut ids = Bits::<64>::default();
        for i in 0..8 {
            ids.set_bits::<8>(8 * i, (i as u64).into());
        }
        let mut beat_ids = Bits::<1024>::default();
        for i in 0..64 {
            beat_ids.set_bits::<16>(16 * i, (i as u64).into());
        }
        let mut reason_ids = Bits::<64>::default();
        for (i, r) in Refusal::ALL.iter().enumerate() {
            reason_ids.set_bits::<4>(4 * i, r.code().into());
        }
        let mut ones = Bits::<BEAT_BITS>::default();
        for i in 0..BEAT_BITS / 64 {
            ones.set_bits::<64>(64 * i, u64::MAX.into());
        }
        Guard {
            clock: Default::default(),
            rst_n: Default::default(),
            network_ptr: Default::default(),
            n: Default::default(),
            id: Default::default(),
            qpns: Default::default(),
            wr_cmd_tdata: Default::default(),
            wr_cmd_tvalid: Default::default(),
            wr_cmd_tready: Default::default(),
            wr_data_tdata: Default::default(),
            wr_data_tkeep: Default::default(),
            wr_data_tlast: Default::default(),
            wr_data_tvalid: Default::default(),
            wr_data_tready: Default::default(),
            awaddr: Default::default(),
            awlen: Default::default(),
            awsize: Default::default(),
            awburst: Default::default(),
            awvalid: Default::default(),
            awready: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            wlast: Default::default(),
            wvalid: Default::default(),
            wready: Default::default(),
            bresp: Default::default(),
            bvalid: Default::default(),
            bready: Default::default(),
            rd_taken: Default::default(),
            landed: Default::default(),
            sts_accepted: Default::default(),
            sts_write_errors: Default::default(),
            sts_refused_unknown_qp: Default::default(),
            sts_refused_length: Default::default(),
            sts_refused_unaligned: Default::default(),
            sts_refused_outside: Default::default(),
            sts_refused_data: Default::default(),
            sts_refused_not_owner: Default::default(),
            sts_refused_not_leader: Default::default(),
            sts_refused_shape: Default::default(),
            sts_refused_unchecked: Default::default(),
            sts_refused_by: Default::default(),
            rows: std::array::from_fn(|i| RowCheck::new(&table.rows[i])),
            state: Default::default(),
            pres: Default::default(),
            word_d: Default::default(),
            words_d: Default::default(),
            sender_d: Default::default(),
            known_d: Default::default(),
            mal_d: Default::default(),
            rd_d: Default::default(),
            words_s2: Default::default(),
            words_s3: Default::default(),
            words_s4: Default::default(),
            sender_s2: Default::default(),
            sender_s3: Default::default(),
            sender_s4: Default::default(),
            sender_s5: Default::default(),
            known_s2: Default::default(),
            known_s3: Default::default(),
            known_s4: Default::default(),
            known_s5: Default::default(),
            mal_s2: Default::default(),
            mal_s3: Default::default(),
            mal_s4: Default::default(),
            mal_s5: Default::default(),
            rd_s2: Default::default(),
            rd_s3: Default::default(),
            rd_s4: Default::default(),
            vaddr_q: Default::default(),
            len_q: Default::default(),
            age: Default::default(),
            sender_q: Default::default(),
            known_q: Default::default(),
            mal_q: Default::default(),
            hit_q: Default::default(),
            pass_q: Default::default(),
            leader_q: Default::default(),
            code_q: Default::default(),
            vidx_q: Default::default(),
            buf: std::array::from_fn(|_| Default::default()),
            csel: Default::default(),
            beat_n: Default::default(),
            data_bad: Default::default(),
            got_last: Default::default(),
            vsh: Default::default(),
            vck: Default::default(),
            nck: Default::default(),
            memo_ok: Default::default(),
            memo_view: Default::default(),
            memo_n: Default::default(),
            memo_rem: Default::default(),
            memo_hit: Default::default(),
            known: Default::default(),
            known_rem: Default::default(),
            rem: Default::default(),
            step: Default::default(),
            wad: Default::default(),
            wrem: Default::default(),
            wsel: Default::default(),
            psel: Default::default(),
            hb: Default::default(),
            first: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            accepted_q: Default::default(),
            werr_q: Default::default(),
            refused_q: std::array::from_fn(|_| Default::default()),
            by_q: Default::default(),
            take: Default::default(),
            c_vaddr: Default::default(),
            c_len: Default::default(),
            c_high: Default::default(),
            diff: Default::default(),
            found: Default::default(),
            who: Default::default(),
            mal: Default::default(),
            lane: Default::default(),
            expect_m1: Default::default(),
            rot1: Default::default(),
            rot2: Default::default(),
            lane_lo: Default::default(),
            lane_hi: Default::default(),
            r_hit: Default::default(),
            r_pass: Default::default(),
            r_leader: Default::default(),
            r_code: Default::default(),
            r_vidx: Default::default(),
            s_hit: Default::default(),
            s_pass: Default::default(),
            s_leader: Default::default(),
            s_code: Default::default(),
            s_vidx: Default::default(),
            s_sender: Default::default(),
            s_known: Default::default(),
            s_mal: Default::default(),
            vbeat: Default::default(),
            vlane: Default::default(),
            vword: Default::default(),
            view: Default::default(),
            n9: Default::default(),
            t1: Default::default(),
            m1: Default::default(),
            t2: Default::default(),
            m2: Default::default(),
            t3: Default::default(),
            m3: Default::default(),
            t4: Default::default(),
            m4: Default::default(),
            cur: Default::default(),
            prev: Default::default(),
            lane_mask: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            refuse: Default::default(),
            why: Default::default(),
            nxt: Default::default(),
            rot_sel: Default::default(),
            by_off: Default::default(),
            by_field: Default::default(),
            at_vaddr: konst(WR_VADDR as u64),
            at_len: konst(WR_LEN as u64),
            at_strm: konst(WR_STRM as u64),
            at_host: konst(WR_HOST as u64),
            at_rd: konst(WR_RD as u64),
            at_dest: konst(WR_DEST as u64),
            at_qpn: konst(WR_QPN as u64),
            ids: Constant::new(ids),
            reason_ids: Constant::new(reason_ids),
            beat_ids: Constant::new(beat_ids),
            end_bytes: konst(table.end as u64 * WORD_BYTES),
            max_bytes: konst(table.max_words as u64 * WORD_BYTES),
            ready_age: konst(CHECK_CYCLES),
            c_length: konst(Refusal::Length.code()),
            c_unknown: konst(Refusal::UnknownQp.code()),
            c_unaligned: konst(Refusal::Unaligned.code()),
            c_outside: konst(Refusal::Outside.code()),
            c_data: konst(Refusal::Data.code()),
            c_not_owner: konst(Refusal::NotOwner.code()),
            c_not_leader: konst(Refusal::NotLeader.code()),
            ones: Constant::new(ones),
            ones64: konst(u64::MAX),
            mask32: konst(u32::MAX as u64),
            beat_mask: konst(!63u64),
            size: konst(crate::params::AXI_SIZE_BEAT),
            burst: konst(crate::params::AXI_BURST_INCR),
            last_slot: konst(1 << (BEATS - 1)),
        }
    }
}

impl<const N: usize> Logic for Guard<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, pres, word_d, words_d, sender_d, known_d, mal_d, rd_d, words_s2,
            words_s3, words_s4, sender_s2, sender_s3, sender_s4, sender_s5, known_s2, known_s3,
            known_s4, known_s5, mal_s2, mal_s3, mal_s4, mal_s5, rd_s2, rd_s3, rd_s4, vaddr_q,
            len_q, age, sender_q, known_q, mal_q, hit_q, pass_q, leader_q, code_q, vidx_q, csel,
            beat_n, data_bad, got_last, vsh, rem, step, vck, nck, memo_ok, memo_view, memo_n,
            memo_rem, wad, wrem, wsel, psel, hb, first, aw_done, w_done, accepted_q, werr_q, by_q
        );
        for i in 0..BEATS {
            self.buf[i].clock.next = self.clock.val();
            self.buf[i].d.next = self.buf[i].q.val();
        }
        for i in 0..REASONS {
            self.refused_q[i].clock.next = self.clock.val();
            self.refused_q[i].d.next = self.refused_q[i].q.val();
        }
        // The command presented on wr_cmd_*, taken or not: AXI-Stream holds
        // TDATA while TVALID is high, so the checks can start before the
        // guard is free to take it.
        self.take.next = ((self.state.q.val() == GuardState::Idle) & self.rst_n.val())
            & self.wr_cmd_tvalid.val();
        self.c_vaddr.next = bit_cast::<64, WR_VADDR_BITS>(
            self.wr_cmd_tdata
                .val()
                .get_bits::<WR_VADDR_BITS>(self.at_vaddr.val().index()),
        );
        self.c_len.next = bit_cast::<32, WR_LEN_BITS>(
            self.wr_cmd_tdata
                .val()
                .get_bits::<WR_LEN_BITS>(self.at_len.val().index()),
        );
        // Address bits above 47, or a SEND's payload: no mailbox.
        self.c_high.next = self.wr_cmd_tdata.val().get_bit(self.at_strm.val().index())
            | (self
                .wr_cmd_tdata
                .val()
                .get_bits::<4>(self.at_dest.val().index())
                != 0)
            | !self.wr_cmd_tdata.val().get_bit(self.at_host.val().index());
        // Cycles the same command has been presented: none after a take, a
        // cycle without TVALID, or a reset cycle.
        if self.take.val() | !self.wr_cmd_tvalid.val() | !self.rst_n.val() {
            self.pres.d.next = 0.into();
        } else if self.pres.q.val() != 15 {
            self.pres.d.next = self.pres.q.val() + 1;
        }
        // What the command alone says, registered: the word index, the
        // sender its queue pair names, and whether it is malformed.
        self.diff.next = self.c_vaddr.val() - self.network_ptr.val();
        self.found.next = false;
        self.who.next = 0.into();
        for i in 0..N {
            if !self.found.val()
                & (self.ids.val().get_bits::<8>(i * 8) < self.n.val())
                & (self.ids.val().get_bits::<8>(i * 8) != self.id.val())
                & (self.qpns.val().get_bits::<QPN_BITS>(i * 10)
                    == self
                        .wr_cmd_tdata
                        .val()
                        .get_bits::<QPN_BITS>(self.at_qpn.val().index()))
            {
                self.found.next = true;
                self.who.next = self.ids.val().get_bits::<8>(i * 8);
            }
        }
        if !self.found.val() {
            self.mal.next = self.c_unknown.val();
        } else if (self.c_len.val() == 0)
            | (self.c_len.val().get_bits::<2>(0) != 0)
            | (self.c_len.val() > self.max_bytes.val())
        {
            self.mal.next = self.c_length.val();
        } else if self.c_vaddr.val().get_bits::<2>(0) != 0 {
            self.mal.next = self.c_unaligned.val();
        } else if self.c_high.val()
            | (self.c_vaddr.val() < self.network_ptr.val())
            | ((self.diff.val() + bit_cast::<64, 32>(self.c_len.val())) > self.end_bytes.val())
        {
            self.mal.next = self.c_outside.val();
        } else {
            self.mal.next = 0.into();
        }
        self.word_d.d.next = self.diff.val().get_bits::<32>(2);
        self.words_d.d.next = self.c_len.val().get_bits::<16>(2);
        self.sender_d.d.next = self.who.val();
        self.known_d.d.next = self.found.val();
        self.mal_d.d.next = self.mal.val();
        self.rd_d.d.next = self.wr_cmd_tdata.val().get_bit(self.at_rd.val().index());
        // Carried along the row checks' stages: the length, sender and mark
        // to stage 4, which reads them; the sender and the command's
        // verdict to the results.
        self.words_s2.d.next = self.words_d.q.val();
        self.words_s3.d.next = self.words_s2.q.val();
        self.words_s4.d.next = self.words_s3.q.val();
        self.sender_s2.d.next = self.sender_d.q.val();
        self.sender_s3.d.next = self.sender_s2.q.val();
        self.sender_s4.d.next = self.sender_s3.q.val();
        self.sender_s5.d.next = self.sender_s4.q.val();
        self.known_s2.d.next = self.known_d.q.val();
        self.known_s3.d.next = self.known_s2.q.val();
        self.known_s4.d.next = self.known_s3.q.val();
        self.known_s5.d.next = self.known_s4.q.val();
        self.mal_s2.d.next = self.mal_d.q.val();
        self.mal_s3.d.next = self.mal_s2.q.val();
        self.mal_s4.d.next = self.mal_s3.q.val();
        self.mal_s5.d.next = self.mal_s4.q.val();
        self.rd_s2.d.next = self.rd_d.q.val();
        self.rd_s3.d.next = self.rd_s2.q.val();
        self.rd_s4.d.next = self.rd_s3.q.val();
        if self.age.q.val() != 15 {
            self.age.d.next = self.age.q.val() + 1;
        }
        // The row checks; at most one row hits.
        for i in 0..ROWS {
            self.rows[i].clock.next = self.clock.val();
            self.rows[i].word.next = self.word_d.q.val();
            self.rows[i].words.next = self.words_s4.q.val();
            self.rows[i].sender.next = self.sender_s4.q.val();
            self.rows[i].rd.next = self.rd_s4.q.val();
        }
        self.r_hit.next = false;
        self.r_pass.next = false;
        self.r_leader.next = false;
        self.r_code.next = self.c_not_owner.val();
        self.r_vidx.next = 0.into();
        for i in 0..ROWS {
            if self.rows[i].hit.val() {
                self.r_hit.next = true;
                self.r_pass.next = self.rows[i].pass.val();
                self.r_leader.next = self.rows[i].leader.val();
                self.r_code.next = self.rows[i].code.val();
                self.r_vidx.next = self.rows[i].vidx.val();
            }
        }
        // The results of the command presented `CHECK_CYCLES` cycles ago
        // (with its command checks, carried along). The command taken reads
        // them as they come out (age 5) and keeps them; one presented long
        // enough before it is taken has them at once.
        if self.age.q.val() == self.ready_age.val() {
            self.s_hit.next = self.r_hit.val();
            self.s_pass.next = self.r_pass.val();
            self.s_leader.next = self.r_leader.val();
            self.s_code.next = self.r_code.val();
            self.s_vidx.next = self.r_vidx.val();
            self.s_sender.next = self.sender_s5.q.val();
            self.s_known.next = self.known_s5.q.val();
            self.s_mal.next = self.mal_s5.q.val();
        } else {
            self.s_hit.next = self.hit_q.q.val();
            self.s_pass.next = self.pass_q.q.val();
            self.s_leader.next = self.leader_q.q.val();
            self.s_code.next = self.code_q.q.val();
            self.s_vidx.next = self.vidx_q.q.val();
            self.s_sender.next = self.sender_q.q.val();
            self.s_known.next = self.known_q.q.val();
            self.s_mal.next = self.mal_q.q.val();
        }
        if (self.age.q.val() == self.ready_age.val())
            | (self.take.val() & (self.pres.q.val() >= self.ready_age.val()))
        {
            self.hit_q.d.next = self.r_hit.val();
            self.pass_q.d.next = self.r_pass.val();
            self.leader_q.d.next = self.r_leader.val();
            self.code_q.d.next = self.r_code.val();
            self.vidx_q.d.next = self.r_vidx.val();
            self.sender_q.d.next = self.sender_s5.q.val();
            self.known_q.d.next = self.known_s5.q.val();
            self.mal_q.d.next = self.mal_s5.q.val();
        }
        // The payload, rotated by the write's lane as it arrives: payload
        // word k of a beat is kept at word (k + lane) mod 16, where it sits
        // in HBM's beat.
        self.lane.next = self.vaddr_q.q.val().get_bits::<4>(2);
        self.expect_m1.next = bit_cast::<8, 32>((self.len_q.q.val() - 1) >> 6);
        // Two stages of 4:1 multiplexers: by lane mod 4 words, then by
        // 4 (lane / 4) words.
        self.lane_lo.next = self.lane.val().get_bits::<2>(0);
        self.lane_hi.next = self.lane.val().get_bits::<2>(2);
        match self.lane_lo.val().index() {
            0 => {
                self.rot1.next = self.wr_data_tdata.val();
            }
            1 => {
                self.rot1.next =
                    (self.wr_data_tdata.val() << 32) | (self.wr_data_tdata.val() >> 480);
            }
            2 => {
                self.rot1.next =
                    (self.wr_data_tdata.val() << 64) | (self.wr_data_tdata.val() >> 448);
            }
            _ => {
                self.rot1.next =
                    (self.wr_data_tdata.val() << 96) | (self.wr_data_tdata.val() >> 416);
            }
        }
        match self.lane_hi.val().index() {
            0 => {
                self.rot2.next = self.rot1.val();
            }
            1 => {
                self.rot2.next = (self.rot1.val() << 128) | (self.rot1.val() >> 384);
            }
            2 => {
                self.rot2.next = (self.rot1.val() << 256) | (self.rot1.val() >> 256);
            }
            _ => {
                self.rot2.next = (self.rot1.val() << 384) | (self.rot1.val() >> 128);
            }
        }
        // A leader's view word: payload word vidx, kept in beat vidx / 16 at
        // word (vidx + lane) mod 16.
        self.vbeat.next = 0.into();
        for i in 0..BEATS {
            if (self.s_vidx.val() >> 4) == self.beat_ids.val().get_bits::<16>(i * 16) {
                self.vbeat.next = self.buf[i].q.val();
            }
        }
        // (A four-bit signal, so that Verilog wraps the sum as Rust does.)
        self.vlane.next = self.s_vidx.val().get_bits::<4>(0) + self.lane.val();
        self.vword.next = bit_cast::<9, 4>(self.vlane.val()) << 5;
        self.view.next = self.vbeat.val().get_bits::<32>(self.vword.val().index());
        // The view last checked, under today's n: no check needed.
        self.memo_hit.next = self.memo_ok.q.val()
            & (self.view.val() == self.memo_view.q.val())
            & (self.n.val() == self.memo_n.q.val());
        // A view below n is its own remainder.
        self.known.next = self.memo_hit.val() | (self.view.val() < bit_cast::<32, 8>(self.n.val()));
        if self.memo_hit.val() {
            self.known_rem.next = self.memo_rem.q.val();
        } else {
            self.known_rem.next = self.view.val().get_bits::<9>(0);
        }
        // view mod n, restoring division, four bits of the view a cycle.
        self.n9.next = bit_cast::<9, 8>(self.n.val());
        self.t1.next =
            (self.rem.q.val() << 1) | bit_cast::<9, 1>(self.vsh.q.val().get_bits::<1>(31));
        if self.t1.val() >= self.n9.val() {
            self.m1.next = self.t1.val() - self.n9.val();
        } else {
            self.m1.next = self.t1.val();
        }
        self.t2.next = (self.m1.val() << 1) | bit_cast::<9, 1>(self.vsh.q.val().get_bits::<1>(30));
        if self.t2.val() >= self.n9.val() {
            self.m2.next = self.t2.val() - self.n9.val();
        } else {
            self.m2.next = self.t2.val();
        }
        self.t3.next = (self.m2.val() << 1) | bit_cast::<9, 1>(self.vsh.q.val().get_bits::<1>(29));
        if self.t3.val() >= self.n9.val() {
            self.m3.next = self.t3.val() - self.n9.val();
        } else {
            self.m3.next = self.t3.val();
        }
        self.t4.next = (self.m3.val() << 1) | bit_cast::<9, 1>(self.vsh.q.val().get_bits::<1>(28));
        if self.t4.val() >= self.n9.val() {
            self.m4.next = self.t4.val() - self.n9.val();
        } else {
            self.m4.next = self.t4.val();
        }
        // The HBM beat being written: words at or above the lane come from
        // payload beat j, those below from beat j - 1 (strobes keep the rest).
        self.cur.next = 0.into();
        self.prev.next = 0.into();
        for i in 0..BEATS {
            if self.wsel.q.val().get_bit(i) {
                self.cur.next = self.buf[i].q.val();
            }
            // The buffer is a ring: psel names beat j - 1's slot.
            if self.psel.q.val().get_bit(i) {
                self.prev.next = self.buf[i].q.val();
            }
        }
        self.lane_mask.next = self.ones.val() << (bit_cast::<10, 4>(self.lane.val()) << 5);
        if self.first.q.val() {
            self.lo.next = bit_cast::<7, 6>(self.vaddr_q.q.val().get_bits::<6>(0));
        } else {
            self.lo.next = 0.into();
        }
        if self.wrem.q.val() >= 64 {
            self.hi.next = 64.into();
        } else {
            self.hi.next = self.wrem.q.val().get_bits::<7>(0);
        }
        // Streaming: the next HBM beat, and the buffer slot after wsel's.
        self.nxt.next = self.hb.q.val() + 1;
        if (self.wsel.q.val() & self.last_slot.val()) != 0 {
            self.rot_sel.next = 1.into();
        } else {
            self.rot_sel.next = self.wsel.q.val() << 1;
        }
        // The FSM.
        self.refuse.next = false;
        self.why.next = 0.into();
        self.wr_cmd_tready.next = false;
        self.rd_taken.next = false;
        self.landed.next = false;
        self.wr_data_tready.next = false;
        self.awvalid.next = false;
        self.wvalid.next = false;
        match self.state.q.val() {
            GuardState::Idle => {
                self.wr_cmd_tready.next = self.rst_n.val();
                if self.take.val() {
                    self.rd_taken.next = self.wr_cmd_tdata.val().get_bit(self.at_rd.val().index());
                    self.vaddr_q.d.next = self.c_vaddr.val();
                    self.len_q.d.next = self.c_len.val();
                    // Its age: the cycles it has been presented.
                    if self.pres.q.val() != 15 {
                        self.age.d.next = self.pres.q.val() + 1;
                    } else {
                        self.age.d.next = self.pres.q.val();
                    }
                    self.csel.d.next = 1.into();
                    self.beat_n.d.next = 0.into();
                    self.data_bad.d.next = false;
                    self.got_last.d.next = false;
                    if self.c_len.val() == 0 {
                        // No payload follows an empty write.
                        self.got_last.d.next = true;
                        self.state.d.next = GuardState::Check;
                    } else {
                        self.state.d.next = GuardState::Collect;
                    }
                }
            }
            GuardState::Collect => {
                self.wr_data_tready.next = true;
                if self.wr_data_tvalid.val() {
                    for i in 0..BEATS {
                        if self.csel.q.val().get_bit(i) {
                            self.buf[i].d.next = self.rot2.val();
                        }
                    }
                    self.csel.d.next = self.csel.q.val() << 1;
                    if self.beat_n.q.val() != 255 {
                        self.beat_n.d.next = self.beat_n.q.val() + 1;
                    }
                    self.got_last.d.next = self.wr_data_tlast.val();
                    if self.wr_data_tlast.val() {
                        self.data_bad.d.next = self.beat_n.q.val() != self.expect_m1.val();
                        self.state.d.next = GuardState::Check;
                    } else {
                        // The beat the length says is the last lacks tlast.
                        if self.beat_n.q.val() == self.expect_m1.val() {
                            self.data_bad.d.next = true;
                        }
                        // The buffer is full: the rest waits for the
                        // decision (wr_data_tready low).
                        if (self.csel.q.val() & self.last_slot.val()) != 0 {
                            self.state.d.next = GuardState::Check;
                        }
                    }
                }
            }
            GuardState::Drain => {
                self.wr_data_tready.next = true;
                if self.wr_data_tvalid.val() & self.wr_data_tlast.val() {
                    self.state.d.next = GuardState::Idle;
                }
            }
            GuardState::Check => {
                if self.age.q.val() >= self.ready_age.val() {
                    if self.s_mal.val() != 0 {
                        self.refuse.next = true;
                        self.why.next = self.s_mal.val();
                    } else if self.data_bad.q.val() {
                        self.refuse.next = true;
                        self.why.next = self.c_data.val();
                    } else if !self.s_hit.val() {
                        self.refuse.next = true;
                        self.why.next = self.c_not_owner.val();
                    } else if !self.s_pass.val() {
                        self.refuse.next = true;
                        self.why.next = self.s_code.val();
                    } else if self.s_leader.val() & self.known.val() {
                        // A view below n, or the view last checked under
                        // the same n: its leader is known.
                        if self.known_rem.val() == bit_cast::<9, 8>(self.s_sender.val()) {
                            self.state.d.next = GuardState::Write;
                        } else {
                            self.refuse.next = true;
                            self.why.next = self.c_not_leader.val();
                        }
                    } else if self.s_leader.val() {
                        self.vsh.d.next = self.view.val();
                        self.vck.d.next = self.view.val();
                        self.nck.d.next = self.n.val();
                        self.rem.d.next = 0.into();
                        self.step.d.next = 0.into();
                        self.state.d.next = GuardState::Leader;
                    } else {
                        self.state.d.next = GuardState::Write;
                    }
                    if self.refuse.val() {
                        if !self.got_last.q.val() {
                            self.state.d.next = GuardState::Drain;
                        } else {
                            self.state.d.next = GuardState::Idle;
                        }
                    }
                    // The write's first beat: its address and its bytes from
                    // the beat's start to the record's end.
                    self.wad.d.next = self.vaddr_q.q.val() & self.beat_mask.val();
                    self.wrem.d.next = bit_cast::<32, 6>(self.vaddr_q.q.val().get_bits::<6>(0))
                        + self.len_q.q.val();
                    self.wsel.d.next = 1.into();
                    self.psel.d.next = 0.into();
                    self.hb.d.next = 0.into();
                    self.first.d.next = true;
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                }
            }
            GuardState::Leader => {
                self.rem.d.next = self.m4.val();
                self.vsh.d.next = self.vsh.q.val() << 4;
                self.step.d.next = self.step.q.val() + 1;
                if self.step.q.val() == 7 {
                    // Remember it, unless n moved while it was checked.
                    self.memo_ok.d.next = self.n.val() == self.nck.q.val();
                    self.memo_view.d.next = self.vck.q.val();
                    self.memo_n.d.next = self.nck.q.val();
                    self.memo_rem.d.next = self.m4.val();
                    if self.m4.val() == bit_cast::<9, 8>(self.s_sender.val()) {
                        self.state.d.next = GuardState::Write;
                    } else {
                        self.refuse.next = true;
                        self.why.next = self.c_not_leader.val();
                        if !self.got_last.q.val() {
                            self.state.d.next = GuardState::Drain;
                        } else {
                            self.state.d.next = GuardState::Idle;
                        }
                    }
                }
            }
            GuardState::Write => {
                self.awvalid.next = !self.aw_done.q.val();
                self.wvalid.next = !self.w_done.q.val();
                if self.awready.val() {
                    self.aw_done.d.next = true;
                }
                if self.wready.val() {
                    self.w_done.d.next = true;
                }
                if (self.aw_done.q.val() | self.awready.val())
                    & (self.w_done.q.val() | self.wready.val())
                {
                    self.landed.next = true;
                    if self.wrem.q.val() <= 64 {
                        self.accepted_q.d.next = self.accepted_q.q.val() + 1;
                        self.state.d.next = GuardState::Idle;
                    } else {
                        self.wad.d.next = self.wad.q.val() + 64;
                        self.wrem.d.next = self.wrem.q.val() - 64;
                        self.first.d.next = false;
                        self.aw_done.d.next = false;
                        self.w_done.d.next = false;
                        // HBM beat j + 1 takes payload beat j + 1 (if the
                        // record has one) and beat j; the slot of j - 1
                        // is free for j + 1.
                        self.psel.d.next = self.wsel.q.val();
                        self.hb.d.next = self.nxt.val();
                        if self.nxt.val() > self.expect_m1.val() {
                            self.wsel.d.next = 0.into();
                        } else {
                            self.wsel.d.next = self.rot_sel.val();
                            if self.beat_n.q.val() <= self.nxt.val() {
                                self.state.d.next = GuardState::Fetch;
                            }
                        }
                    }
                }
            }
            GuardState::Fetch => {
                self.wr_data_tready.next = true;
                if self.wr_data_tvalid.val() {
                    for i in 0..BEATS {
                        if self.wsel.q.val().get_bit(i) {
                            self.buf[i].d.next = self.rot2.val();
                        }
                    }
                    if self.beat_n.q.val() != 255 {
                        self.beat_n.d.next = self.beat_n.q.val() + 1;
                    }
                    self.got_last.d.next = self.wr_data_tlast.val();
                    // A payload that ends before, or goes on after, the beat
                    // its length implies: the write stops here, before this
                    // beat's HBM beat.
                    if (self.wr_data_tlast.val() & (self.beat_n.q.val() != self.expect_m1.val()))
                        | (!self.wr_data_tlast.val()
                            & (self.beat_n.q.val() == self.expect_m1.val()))
                    {
                        self.refuse.next = true;
                        self.why.next = self.c_data.val();
                        if self.wr_data_tlast.val() {
                            self.state.d.next = GuardState::Idle;
                        } else {
                            self.state.d.next = GuardState::Drain;
                        }
                    } else {
                        self.state.d.next = GuardState::Write;
                    }
                }
            }
            _ => {
                self.state.d.next = GuardState::Idle;
            }
        }
        // Counting: a refusal by its reason, and by its sender when the
        // queue pair named one.
        for i in 0..REASONS {
            if self.refuse.val() & (self.why.val() == self.reason_ids.val().get_bits::<4>(i * 4)) {
                self.refused_q[i].d.next = self.refused_q[i].q.val() + 1;
            }
        }
        self.by_off.next = bit_cast::<16, 8>(self.s_sender.val()) << 5;
        // The field's next value in a 32-bit signal: it wraps there, in
        // Verilog as in Rust, and never carries into the next sender's.
        self.by_field.next = self.by_q.q.val().get_bits::<32>(self.by_off.val().index()) + 1;
        if self.refuse.val() & self.s_known.val() {
            self.by_q.d.next = (self.by_q.q.val() & !(self.mask32.val() << self.by_off.val()))
                | (bit_cast::<REFUSED_BY_BITS, 32>(self.by_field.val()) << self.by_off.val());
        }
        if self.bvalid.val() & (self.bresp.val() != 0) {
            self.werr_q.d.next = self.werr_q.q.val() + 1;
        }
        if !self.rst_n.val() {
            // A write on AXI is finished; a payload still coming is drained.
            if self.state.q.val() == GuardState::Collect {
                if self.wr_data_tvalid.val() & self.wr_data_tlast.val() {
                    self.state.d.next = GuardState::Idle;
                } else {
                    self.state.d.next = GuardState::Drain;
                }
            } else if (self.state.q.val() == GuardState::Check)
                | (self.state.q.val() == GuardState::Leader)
            {
                // Streaming, the rest of the payload may still be coming.
                if !self.got_last.q.val() {
                    self.state.d.next = GuardState::Drain;
                } else {
                    self.state.d.next = GuardState::Idle;
                }
            }
            self.accepted_q.d.next = 0.into();
            self.werr_q.d.next = 0.into();
            self.by_q.d.next = 0.into();
            for i in 0..REASONS {
                self.refused_q[i].d.next = 0.into();
            }
        }
        self.awaddr.next = self.wad.q.val();
        self.awlen.next = 0.into();
        self.awsize.next = self.size.val();
        self.awburst.next = self.burst.val();
        self.wdata.next =
            (self.cur.val() & self.lane_mask.val()) | (self.prev.val() & !self.lane_mask.val());
        self.wstrb.next =
            (self.ones64.val() << self.lo.val()) & (self.ones64.val() >> (64 - self.hi.val()));
        self.wlast.next = true;
        self.bready.next = true;
        self.sts_accepted.next = self.accepted_q.q.val();
        self.sts_write_errors.next = self.werr_q.q.val();
        self.sts_refused_unknown_qp.next = self.refused_q[0].q.val();
        self.sts_refused_length.next = self.refused_q[1].q.val();
        self.sts_refused_unaligned.next = self.refused_q[2].q.val();
        self.sts_refused_outside.next = self.refused_q[3].q.val();
        self.sts_refused_data.next = self.refused_q[4].q.val();
        self.sts_refused_not_owner.next = self.refused_q[5].q.val();
        self.sts_refused_not_leader.next = self.refused_q[6].q.val();
        self.sts_refused_shape.next = self.refused_q[7].q.val();
        self.sts_refused_unchecked.next = self.refused_q[8].q.val();
        self.sts_refused_by.next = self.by_q.q.val();
    }
}

/// The kernel's table for a build of `n` replicas (`Mailbox::v3` with
/// window `params::G` and shares of `params::SB` beats).
pub fn table(n: usize) -> GuardTable {
    GuardTable::new(&Mailbox::v3(n, crate::params::G, crate::params::SB))
}

/// Verilog of the guard of N replicas alone (for lint and synthesis), top
/// module `rhdl_ubft_guard`, submodules `rhdl_ubft_guard$<path>`.
pub fn verilog<const N: usize>() -> String {
    block_verilog(Guard::<N>::default(), &format!("N = {N}"))
}

fn block_verilog<B: Block>(mut uut: B, what: &str) -> String {
    uut.connect_all();
    let body = generate_verilog(&uut)
        .replace("module top(", "module rhdl_ubft_guard(")
        .replace("top$", "rhdl_ubft_guard$");
    format!(
        "// Generated from crates/rhdl_ubft/src/guard.rs (rust-hdl 0.46), {what}.\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::G;

    #[test]
    fn the_table_matches_the_layout_for_every_build() {
        // The reference's table, checked word by word against
        // Mailbox::owner by GuardTable::new; the longest write is a
        // new_view record's stride.
        for n in 1..=8 {
            for sb in [1, 2] {
                let mb = Mailbox::v3(n, G, sb);
                let t = GuardTable::new(&mb);
                assert_eq!(t.rows.len(), ROWS);
                assert_eq!(t.max_words, mb.stride(Region::NewViewRecord));
            }
        }
    }

    #[test]
    fn v4s_table_matches_its_layout_and_its_rules_read_wide_views() {
        // Mailbox::v4's rules, checked word by word against its owners as
        // v3's are; the longest write is still a new_view record.
        for n in [1, 3, 5, 8] {
            let mb = Mailbox::v4(n, G, 1);
            let t = GuardTable::new(&mb);
            assert_eq!(t.rows.len(), Region::V4.len());
            assert_eq!(t.max_words, mb.stride(Region::NewViewRecord));
        }
        use records::v4;
        let (n, mb) = (5, Mailbox::v4(5, G, 1));
        // A prepare of view 2^32 + 7 (leader (2^32 + 7) mod 5 = 3): only 3
        // writes it, and only with both view words.
        let view = (1u64 << 32) + 7;
        let leader = (view % n as u64) as usize;
        let [vlo, vhi] = v4::split(view);
        let mut prep = [0u32; BEAT_WORDS];
        prep[v4::PREPARE_K] = 9;
        prep[v4::PREPARE_V] = vlo;
        prep[v4::PREPARE_V + 1] = vhi;
        let at = mb.prepare(3);
        assert_eq!(check(&mb, n, leader, at, &prep), Ok(()));
        assert_eq!(
            check(&mb, n, (leader + 1) % n, at, &prep),
            Err(Refusal::NotLeader)
        );
        assert_eq!(
            check(&mb, n, leader, at, &prep[..v4::PREPARE_V + 1]),
            Err(Refusal::Shape),
            "the view's high word is not in the write"
        );
        let mut bad = prep;
        bad[v4::PREPARE_V + 1] |= 1 << 16;
        assert_eq!(check(&mb, n, leader, at, &bad), Err(Refusal::Shape));
        // A vote entry is four words, its writer's; one word more is the
        // next node's.
        let entry = mb.vote(Region::WillCert, 2, 1);
        assert_eq!(check(&mb, n, 1, entry, &[1, 2, 3, 4]), Ok(()));
        assert_eq!(
            check(&mb, n, 1, entry, &[1, 2, 3, 4, 5]),
            Err(Refusal::NotOwner)
        );
        // ckpt[j][e] is j's alone.
        let ck = mb.record(Region::Ckpt, 1, 4);
        let block = v4::ckpt_block(4, 16, 7, [1; v4::HASH_WORDS]);
        assert_eq!(check(&mb, n, 4, ck, &block), Ok(()));
        assert_eq!(check(&mb, n, 2, ck, &block), Err(Refusal::NotOwner));
    }

    #[test]
    #[should_panic(expected = "the block checks a one-word view")]
    fn the_guard_block_refuses_a_v4_table() {
        let mut t = GuardTable::new(&Mailbox::v4(8, G, 1));
        // Keep v3's row count, so that the first check to fail is the
        // view's width.
        t.rows.truncate(ROWS);
        let _ = Guard::<8>::new(&t);
    }

    #[test]
    fn remote_rows_takes_read_responses_only_and_nothing_else_takes_them() {
        let n = 3;
        let mb = Mailbox::v3(n, 4, 1);
        let rr = mb.record(Region::RemoteRows, 0, 2);
        let row = vec![7; mb.stride(Region::RemoteRows)];
        assert_eq!(row.len(), 16, "a beat");
        // A READ response of peer 2 into its own record: taken; into
        // another's, or as a WRITE: refused.
        assert_eq!(check_rd(&mb, n, 2, rr, &row, true), Ok(()));
        assert_eq!(check_rd(&mb, n, 1, rr, &row, true), Err(Refusal::NotOwner));
        assert_eq!(check(&mb, n, 2, rr, &row), Err(Refusal::NotOwner));
        // A READ response anywhere else: refused, with the row's code.
        let vote = mb.vote(Region::WillCert, 1, 2);
        assert_eq!(check(&mb, n, 2, vote, &[1, 2]), Ok(()));
        assert_eq!(
            check_rd(&mb, n, 2, vote, &[1, 2], true),
            Err(Refusal::NotOwner)
        );
        let p = mb.record(Region::Prepare, 3, 0);
        let prep = [6, 9, 4, 1];
        assert_eq!(check(&mb, n, 1, p, &prep), Ok(()));
        assert_eq!(check_rd(&mb, n, 1, p, &prep, true), Err(Refusal::Shape));
    }

    #[test]
    fn the_reference_rule() {
        let n = 3;
        let mb = Mailbox::v3(n, 4, 1);
        // Each replica's records: the whole record (its stride) or a part of
        // one, by its writer only.
        for (r, i) in [
            (Region::EchoPrep, 2),
            (Region::Certify, 3),
            (Region::Commit, 1),
            (Region::EchoCommit, 2),
            (Region::EchoSeal, 0),
        ] {
            for j in 0..n {
                let at = mb.record(r, i, j);
                let whole = vec![1; mb.stride(r)];
                assert_eq!(check(&mb, n, j, at, &whole), Ok(()), "{r:?}");
                assert_eq!(check(&mb, n, j, at + 16, &whole[..16]), Ok(()));
                let other = (j + 1) % n;
                assert_eq!(check(&mb, n, other, at, &whole), Err(Refusal::NotOwner));
                // One word into the next record: another writer's.
                let mut long = whole.clone();
                long.push(1);
                let expect = if long.len() > max_record_words(&mb) {
                    Refusal::Length
                } else {
                    Refusal::NotOwner
                };
                assert_eq!(check(&mb, n, j, at, &long), Err(expect), "{r:?}");
            }
        }
        let seal = mb.record(Region::Seal, 0, 2);
        assert_eq!(check(&mb, n, 2, seal, &[4; 32]), Ok(()));
        assert_eq!(check(&mb, n, 1, seal, &[4; 32]), Err(Refusal::NotOwner));
        // The leader's records: the view word names the writer.
        let p = mb.record(Region::Prepare, 3, 0);
        let mut prep = [6, 9, 4, 1];
        assert_eq!(check(&mb, n, 1, p, &prep), Ok(()), "view 4 is 1's");
        assert_eq!(check(&mb, n, 0, p, &prep), Err(Refusal::NotLeader));
        assert_eq!(check(&mb, n, 1, p, &prep[..2]), Err(Refusal::Shape));
        prep[records::PREPARE_V] = 5;
        assert_eq!(check(&mb, n, 2, p, &prep), Ok(()));
        let ps = mb.record(Region::PrepSig, 1, 0);
        let mut block = vec![0; 32];
        block[records::KIND] = records::KIND_PREP;
        block[records::BLOCK_V] = 7;
        assert_eq!(check(&mb, n, 1, ps, &block), Ok(()));
        assert_eq!(check(&mb, n, 2, ps, &block), Err(Refusal::NotLeader));
        assert_eq!(
            check(&mb, n, 1, ps + 16, &block[16..]),
            Err(Refusal::Shape),
            "the signature alone names no view"
        );
        let nv = mb.record(Region::NewViewRecord, 0, 0);
        let mut rec = vec![0; mb.stride(Region::NewViewRecord)];
        rec[records::NV_VIEW] = 2;
        assert_eq!(check(&mb, n, 2, nv, &rec), Ok(()));
        assert_eq!(check(&mb, n, 0, nv, &rec), Err(Refusal::NotLeader));
        // Votes: an entry, by its writer.
        let vote = mb.vote(Region::WillCommit, 3, 2);
        assert_eq!(check(&mb, n, 2, vote, &[7, 8]), Ok(()));
        assert_eq!(check(&mb, n, 1, vote, &[7, 8]), Err(Refusal::NotOwner));
    }

    #[test]
    fn the_block_streams_what_its_buffer_cannot_hold() {
        for n in [3, 5, 8] {
            let t = table(n);
            assert!(
                t.max_words > BEATS * BEAT_WORDS,
                "n = {n}: new_view streams"
            );
        }
        let _ = Guard::<3>::default();
        let _ = Guard::<8>::default();
    }

    #[test]
    fn dividers_are_exact_and_free_for_powers_of_two() {
        let d = Divider::new(16, 4096);
        assert_eq!((d.mul, d.shift), (1, 4));
        for (div, limit) in [(5, 80), (3, 48), (7, 112), (80, 1280), (416, 1 << 16)] {
            let d = Divider::new(div, limit);
            assert!(d.mul < 1 << 16);
            assert!((0..limit).all(|x| d.apply(x) == x / div));
        }
    }

    #[test]
    fn the_reference_rule_at_the_edges() {
        let mb = Mailbox::v3(3, 16, 1);
        let max = max_record_words(&mb);
        let vote = mb.vote(Region::WillCert, 2, 1);
        assert_eq!(check(&mb, 3, 1, vote, &[7, 8]), Ok(()));
        assert_eq!(check(&mb, 3, 2, vote, &[7, 8]), Err(Refusal::NotOwner));
        assert_eq!(check(&mb, 3, 1, vote, &[7, 8, 9]), Err(Refusal::NotOwner));
        assert_eq!(check(&mb, 3, 1, vote, &[]), Err(Refusal::Length));
        assert_eq!(
            check(&mb, 3, 1, vote, &vec![0; max + 1]),
            Err(Refusal::Length)
        );
        // A part of a leader's record that holds its view word passes; one
        // without it, or running into the next record, does not.
        let p = mb.prepare(5);
        assert_eq!(check(&mb, 3, 1, p, &[6, 9, 4, 0]), Ok(()));
        assert_eq!(check(&mb, 3, 0, p, &[6, 9, 4, 0]), Err(Refusal::NotLeader));
        assert_eq!(check(&mb, 3, 1, p, &[6, 9]), Err(Refusal::Shape));
        assert_eq!(check(&mb, 3, 1, p + 2, &[4]), Ok(()));
        assert_eq!(check(&mb, 3, 1, p + 2, &[4; 16]), Err(Refusal::Shape));
        let nv = mb.base(Region::NewViewRecord);
        assert_eq!(check(&mb, 3, 2, nv, &[5, 1, 2, 3]), Ok(()));
        // Below the first region, and across the end of the buffer.
        assert_eq!(check(&mb, 3, 2, 100, &[1]), Err(Refusal::NotOwner));
        assert_eq!(
            check(&mb, 3, 2, mb.end() - 1, &[1, 2]),
            Err(Refusal::Outside)
        );
    }

    #[test]
    fn command_checks_come_in_the_blocks_order() {
        let mb = Mailbox::v3(3, 16, 1);
        let cfg = GuardConfig {
            network_ptr: 0x1_0000_0000,
            n: 3,
            id: 0,
            qpns: vec![16, 17, 18],
        };
        let at = |w: usize| cfg.network_ptr + 4 * w as u64;
        let vote = mb.vote(Region::WillCommit, 0, 2);
        let ok = WrCommand::write(18, at(vote), 8);
        let max_bytes = max_record_words(&mb) as u64 * WORD_BYTES;
        assert_eq!(check_command(&mb, &cfg, &ok), Ok((2, vote)));
        let own = WrCommand::write(16, at(vote), 8);
        assert_eq!(
            check_command(&mb, &cfg, &own),
            Err((Refusal::UnknownQp, None)),
            "the replica's own queue pair names no peer"
        );
        let bad = |c: WrCommand| check_command(&mb, &cfg, &c).unwrap_err().0;
        assert_eq!(bad(WrCommand { len: 0, ..ok }), Refusal::Length);
        assert_eq!(bad(WrCommand { len: 6, ..ok }), Refusal::Length);
        assert_eq!(
            bad(WrCommand {
                len: max_bytes + 4,
                ..ok
            }),
            Refusal::Length
        );
        assert_eq!(
            bad(WrCommand {
                vaddr: ok.vaddr + 2,
                ..ok
            }),
            Refusal::Unaligned
        );
        assert_eq!(bad(WrCommand { host: false, ..ok }), Refusal::Outside);
        assert_eq!(bad(WrCommand { dest: 1, ..ok }), Refusal::Outside);
        assert_eq!(
            bad(WrCommand::write(18, cfg.network_ptr - 4, 8)),
            Refusal::Outside
        );
        assert_eq!(
            bad(WrCommand::write(18, at(mb.end() - 1), 8)),
            Refusal::Outside
        );
        assert_eq!(
            decide(&mb, &cfg, &ok, &[1, 2], 2),
            Err((Refusal::Data, Some(2)))
        );
        assert_eq!(decide(&mb, &cfg, &ok, &[1, 2], 1), Ok((2, vote)));
    }
}
