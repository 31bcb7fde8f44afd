//! Params: every number of the design, in one place.
//!
//! The hardware, the simulator, the CLI and the docs import these; nothing
//! else writes a width, a window or a default latency down a second time.

/// The most replicas a default build supports (the kernel's `N`).
pub const N: usize = 8;
/// Slots in the window (the kernel's `G`): slot = (k - 1) mod G.
pub const G: usize = 16;
/// The bridge's reach in slots, ⌊(G − 1)/2⌋: how far below k SLOW's seal
/// mode finds W's records unreused, and so how far behind an uncovered W
/// a catch-up may leave it (docs/recovery.md D11.16).
pub const BRIDGE_REACH: usize = (G - 1) / 2;
// The window's premise (docs/recovery.md D11.16): while a will_commit W
// is uncovered, k stays within max(BRIDGE_REACH, 2) slots above W's slot,
// so the entry holding W's records is not reused for another slot while
// the bridge may need them. That needs BRIDGE_REACH >= 2, i.e. G >= 5.
const _: () = assert!(BRIDGE_REACH >= 2 && G > BRIDGE_REACH);
/// Client requests a replica holds and has not seen decided (the buffer B of
/// docs/recovery.md R1; `crate::controller::requests`).
pub const REQUESTS: usize = 8;
/// 512-bit beats per signature share: Ed25519 (64 bytes) is one beat.
pub const SB_ED25519: usize = 1;
/// DSig's share: 26 beats (layout only; the kernel is built for Ed25519).
pub const SB_DSIG: usize = 26;
/// The share size the kernel is built for.
pub const SB: usize = SB_ED25519;

/// Bits in a mailbox word.
pub const WORD_BITS: usize = 32;
/// Bytes in a mailbox word.
pub const WORD_BYTES: u64 = 4;
/// Bits in an HBM data beat (the kernel's `m_axi_hbm` width).
pub const BEAT_BITS: usize = 512;
/// Words in a beat.
pub const BEAT_WORDS: usize = BEAT_BITS / WORD_BITS;
/// Bytes in a beat; also AXI's `AxSIZE` = log2 of it.
pub const BEAT_BYTES: u64 = (BEAT_BITS / 8) as u64;
/// AXI `AxSIZE` for a full 512-bit beat (2^6 = 64 bytes).
pub const AXI_SIZE_BEAT: u64 = 6;
/// AXI `AxBURST` INCR.
pub const AXI_BURST_INCR: u64 = 1;
/// AXI bursts must not cross this many bytes.
pub const AXI_BOUNDARY_BYTES: u64 = 4096;

/// The longest record Broadcast writes, in beats: v3's new_view stride
/// (13 beats used of 16, docs/recovery.md section 13). A record of more
/// than one beat is one AXI burst (AWLEN = beats - 1) and one RDMA WRITE of
/// beats × 64 bytes.
pub const RECORD_BEATS_MAX: usize = 16;
/// Bits of an RDMA WRITE command's length in bytes (Broadcast's `cmd_len`,
/// the RoCE adapter's input): 16 beats are 1,024 bytes, which 8 bits do
/// not hold; the stack's own field is 32 bits (docs/roce.md).
pub const CMD_LEN_BITS: usize = 16;
/// D_land (docs/recovery.md section 2, R13): the cycles a round waits after
/// the last completion of its RDMA WRITEs before it ends, so that each
/// acknowledged write is in its receiver's HBM. 0: the receiver's stack
/// acknowledges a WRITE only on the kernel's status for it (`m_axis_rx_sts`,
/// `io::rx_status`), which comes after the guard refused the write or HBM
/// answered every beat of it (docs/roce.md, "Write status"). A completion
/// therefore comes after the write is in HBM, whatever the receive path
/// queued ahead of it, and the bound rests on no peer's behaviour.
pub const D_LAND: u64 = 0;

/// Statuses RxStatus queues for the stack (`io::rx_status`): a write waits
/// there for its B's only, so eight cover HBM's answer
/// (`defaults::HBM_WRITE_LATENCY`) at the guard's fastest pace.
pub const RX_STS_DEPTH: usize = 8;

/// Decisions Chain queues for its hash (`controller::chain`): handed to
/// the host and not yet hashed. A hash takes `CHAIN_CYCLES`; the fastest
/// path decides a slot per 3L cycles, and a burst (a catch-up, a
/// NEW_VIEW's delivery) waits for the stream only past four.
pub const CHAIN_QUEUE: usize = 4;
/// Words of h_k, Chain's hash: SHA-256's digest, eight 32-bit words
/// (`chain_h_0` .. `chain_h_7`).
pub const CHAIN_WORDS: usize = 8;
/// Its bits (Chain's `h`, Control's `sts_chain_h`).
pub const CHAIN_BITS: usize = CHAIN_WORDS * WORD_BITS;
/// Cycles Chain spends on a decision: a load and 64 rounds, the last of
/// which writes h_k. Its h_k shows `CHAIN_CYCLES` + 1 after the handshake
/// that handed it out (the queue's register in between), when the queue
/// was empty and the hash idle.
pub const CHAIN_CYCLES: u64 = 65;

/// SignerPort requests SignerPort keeps outstanding: taken from the controller and
/// not yet answered (docs/signer.md, In flight). The f + 1 slow path
/// verifies a leader's PREP signature, f shares and f + 1 COMMITs per slot
/// (docs/recovery.md sections 6 and 15): at n = 7 (f = 3) that is up to 8
/// verifies, 4,000 cycles each one at a time. Four in flight keep a service
/// of four engines busy and hold f + 1 COMMITs of n = 7 at once; each costs
/// SignerPort one FIFO entry of `SIGNER_TAG_BITS` + 1 bits.
pub const SIGNER_IN_FLIGHT: usize = 4;
/// Bits of `in_flight`, the SignerPort port's count of outstanding requests (0 to
/// `SIGNER_IN_FLIGHT`).
pub const SIGNER_IN_FLIGHT_BITS: usize = 3;
/// Bits of the caller's tag on a signer request (the SignerPort port's `tag`, returned as
/// `resp_tag` with its response): enough for a peer id (N = 8) and one
/// more bit, e.g. share or COMMIT.
pub const SIGNER_TAG_BITS: usize = 4;
const _: () = assert!(SIGNER_IN_FLIGHT >= 1 && SIGNER_IN_FLIGHT < (1 << SIGNER_IN_FLIGHT_BITS));
const _: () = assert!(N <= (1 << (SIGNER_TAG_BITS - 1)));

/// Bits of the poll counter and of the `wait` timeout register.
pub const WAIT_BITS: usize = 16;
/// The most times the timeout doubles: each view change since the last
/// decision doubles it (recovery.md R14, "T_vc doubles with every view
/// change in a row"), up to `wait_polls` · 2^WAIT_DOUBLINGS polls.
pub const WAIT_DOUBLINGS: usize = 8;
/// T_vc's doublings over the path timeout on the v3 kernel (VIEW's waits
/// until the installed view's first decision, and SLOW's at every slot:
/// protocol.md, "Timeouts", "SLOW's waits"; recovery.md R14), for n = 3: the wait for a NEW_VIEW
/// spans the view change's signer steps, 3f + 4 of them at most (two signs,
/// f + 1 SEAL verifies, f suspect verifies, f + 1 share verifies), and the
/// v3 rule makes `wait_polls` outlast one step, so T_vc's base is
/// `wait_polls` · 2^VC_SHIFT_F1 ≥ 3f + 4 = 7 steps.
pub const VC_SHIFT_F1: usize = 3;
/// The same for n ≥ 5: 2^4 = 16 ≥ 3f + 4 for f ≤ 3 (n ≤ 7).
pub const VC_SHIFT: usize = 4;
/// T_vc's doublings over `wait_polls` for `n` replicas (what the kernel
/// computes from its `n` argument).
pub const fn vc_shift(n: usize) -> usize {
    if n <= 3 {
        VC_SHIFT_F1
    } else {
        VC_SHIFT
    }
}
const _: () = assert!((1 << VC_SHIFT_F1) >= 3 + 4);
const _: () = assert!((1 << VC_SHIFT) >= 3 * ((N - 1) / 2) + 4);
/// A new leader waits 2^LEAD_WAIT_SHIFT times T_vc for f + 1 SEALs
/// (VIEW's ViewWaitSeals, recovery.md D11.14): a replica ahead of the
/// others by some views waits at the first view it leads while they time
/// out up to it, one T_vc per view. Three doublings cover the n − 1 views
/// of a rotation at n = 7 (2^3 = 8 > 6) with each of theirs as long as its.
pub const LEAD_WAIT_SHIFT: usize = 3;
/// Bits of the miss counter: `wait_polls` at its largest doubling, T_vc's
/// included.
pub const WAITED_BITS: usize = WAIT_BITS + WAIT_DOUBLINGS + VC_SHIFT + FAST_POLL_SHIFT;
/// FAST's and LEADER's waits count 2^FAST_POLL_SHIFT times as many polls
/// as the other machines' (`wait_polls` << FAST_POLL_SHIFT at the path
/// timeout): their poll loops read ahead (`fetch.md`), two reads per H + 3
/// cycles where the others make one, so their timeouts last as many cycles.
pub const FAST_POLL_SHIFT: usize = 1;
/// The sticky slow path's probes (protocol.md, "The sticky slow path"):
/// once a slot's fast path has failed, FAST hands the later slots to SLOW
/// right after its will_cert vote, without waiting for votes, except the
/// probes, which wait half the usual wait (timer.rs); a fast decision or
/// a view change ends it.
/// The probes are the slots whose k is a multiple of 2^j, j the fast
/// path's failures since then, up to PROBE_SHIFT: every second slot
/// after one failure, then every 4th, 8th, ..., 32nd, so a transient miss
/// costs a slow slot or two and a replica down costs half the wait (a
/// probe's, timer.rs) once in 32 slots. Every replica's probes are
/// multiples of its 2^j, so the slots that are multiples of
/// 2^PROBE_SHIFT are probes everywhere.
pub const PROBE_SHIFT: usize = 5;
/// The longest gap between two probes: 2^PROBE_SHIFT slots.
pub const PROBE_SLOTS: u64 = 1 << PROBE_SHIFT;
/// Bits of the count of view changes since the last decision (and of the
/// shift, streak plus T_vc's doublings).
pub const STREAK_BITS: usize = 4;
const _: () = assert!(WAIT_DOUBLINGS + VC_SHIFT + FAST_POLL_SHIFT < (1 << STREAK_BITS));
/// Bits of the status counters.
pub const COUNTER_BITS: usize = 32;

/// Faults tolerated by `n` replicas: n = 2f + 1 (n odd).
pub const fn faults(n: usize) -> usize {
    (n - 1) / 2
}

/// Matching votes a replica needs: 2f + 1.
pub const fn quorum(n: usize) -> usize {
    2 * faults(n) + 1
}

/// Defaults of the performance model (DESIGN.md section 7), in kernel cycles.
pub mod defaults {
    /// L: one-way network latency, RDMA WRITE issue to landing in remote HBM.
    pub const NET_LATENCY: u64 = 300;
    /// H: HBM read latency, AR accepted to first R beat.
    pub const HBM_READ_LATENCY: u64 = 80;
    /// W: HBM write latency, last W beat to B response.
    pub const HBM_WRITE_LATENCY: u64 = 20;
    /// Polls a replica waits before it counts a timeout.
    pub const WAIT_POLLS: u64 = 64;
    /// The signer model's sign latency (tests; ubft_new's was 3.07 M).
    pub const SIGN_LATENCY: u64 = 2_000;
    /// The signer model's verify latency (tests; ubft_new's was 10.4 M).
    pub const VERIFY_LATENCY: u64 = 4_000;
    /// ubft_new's stop to sign, in cycles.
    pub const UBFT_NEW_SIGN_CYCLES: u64 = 3_070_000;
    /// ubft_new's stop to verify, in cycles.
    pub const UBFT_NEW_VERIFY_CYCLES: u64 = 10_400_000;
    /// ubft_new's cost per slot: 3.07 M cycles signing plus 10.4 M verifying.
    pub const UBFT_NEW_CYCLES_PER_SLOT: u64 = UBFT_NEW_SIGN_CYCLES + UBFT_NEW_VERIFY_CYCLES;
    /// The kernel clock the docs convert cycles at.
    pub const KERNEL_MHZ: u64 = 300;
}

/// Why a configuration is refused, or a run stopped: the code in the status
/// register (`error`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ConfigError {
    /// Accepted.
    None = 0,
    /// n is even (or zero): the claims cover n = 2f + 1 only.
    EvenReplicas = 1,
    /// n is above the build's N.
    TooManyReplicas = 2,
    /// The replica id is not below n.
    IdOutOfRange = 3,
    /// `network_ptr` is not 4 KiB aligned (the layout's bursts would cross
    /// 4 KiB boundaries).
    BufferMisaligned = 4,
    /// `slots` is [`K_WRAP`] or more: the run would reach k = 2^24, whose
    /// vote tag has k's field at zero (refused at `ap_start`).
    SlotsWrap = 5,
    /// Not a refusal: a run without a slot limit (`slots` = 0) decided
    /// k = [`K_LAST`] and stopped there, before k's field of the vote tag
    /// wraps. Restart it (reset, clear the mailboxes) to go on.
    KWrapped = 6,
    // 7 is not assigned: no view change stops the run (a bridge is always
    // within SLOW's reach, docs/recovery.md D11.16).
    /// Not a refusal: a round's local HBM write, or a staged record's, was
    /// answered with an error (or a round's record stream was malformed),
    /// so HBM may hold a round's record without the peers, or the peers a
    /// staged record without HBM. Broadcast writes nothing more and the run
    /// stops, as a crashed card's (docs/recovery.md section 2 and D7.3).
    WriteFailed = 8,
}

impl ConfigError {
    /// All codes, in register order.
    pub const ALL: [ConfigError; 8] = [
        ConfigError::None,
        ConfigError::EvenReplicas,
        ConfigError::TooManyReplicas,
        ConfigError::IdOutOfRange,
        ConfigError::BufferMisaligned,
        ConfigError::SlotsWrap,
        ConfigError::KWrapped,
        ConfigError::WriteFailed,
    ];

    /// The code as it reads in the status register.
    pub const fn code(self) -> u64 {
        self as u64
    }

    /// The code read back from the status register.
    pub fn from_code(code: u64) -> Option<ConfigError> {
        Self::ALL.iter().copied().find(|e| e.code() == code)
    }

    /// The rule that was broken, in words.
    pub fn rule(self) -> &'static str {
        match self {
            ConfigError::None => "accepted",
            ConfigError::EvenReplicas => "n must be odd (n = 2f + 1) and at least 1",
            ConfigError::TooManyReplicas => "n must not exceed the build's N",
            ConfigError::IdOutOfRange => "the replica id must be below n",
            ConfigError::BufferMisaligned => "network_ptr must be 4 KiB aligned",
            ConfigError::SlotsWrap => {
                "slots must be below 2^24 (16,777,216): vote_tag keeps k's low 24 bits, \
                 which wrap to zero at k = 2^24; split the run"
            }
            ConfigError::KWrapped => {
                "k must stay below 2^24: the run (slots = 0, no limit) stopped after \
                 deciding k = 2^24 - 1, where vote_tag's k field would wrap to zero; \
                 restart it (reset, clear the mailboxes) to go on"
            }
            ConfigError::WriteFailed => {
                "a round's local HBM write, and a staged record's, must succeed: HBM \
                 answered one with an error (or a round's record stream was malformed), \
                 so HBM and the peers' mailboxes may disagree; the replica stopped, as a \
                 crashed card, and writes nothing more until the next ap_start \
                 (broadcast.md, recovery.md section 2 and D7.3)"
            }
        }
    }

    /// Is this the stop of a run that had started (not a refusal)?
    pub const fn is_stop(self) -> bool {
        matches!(self, ConfigError::KWrapped | ConfigError::WriteFailed)
    }

    /// The check the kernel makes at `ap_start`, in Rust, for the simulator
    /// and the CLI.
    pub fn check(n: usize, id: usize, build_n: usize, network_ptr: u64, slots: u64) -> ConfigError {
        if n % 2 == 0 {
            ConfigError::EvenReplicas
        } else if n > build_n {
            ConfigError::TooManyReplicas
        } else if id >= n {
            ConfigError::IdOutOfRange
        } else if network_ptr % AXI_BOUNDARY_BYTES != 0 {
            ConfigError::BufferMisaligned
        } else if slots >= K_WRAP {
            ConfigError::SlotsWrap
        } else {
            ConfigError::None
        }
    }
}

/// Bits of k in a vote tag: its low bits (the vote tag is one word).
pub const TAG_K_BITS: usize = 24;
/// Bits of the view in a vote tag, above k's.
pub const TAG_VIEW_BITS: usize = WORD_BITS - TAG_K_BITS;
/// The mask of k's field in a vote tag.
pub const TAG_K_MASK: u32 = (1 << TAG_K_BITS) - 1;
/// The mask of the view's field, before it is shifted into place.
pub const TAG_VIEW_MASK: u32 = (1 << TAG_VIEW_BITS) - 1;
/// The first k whose tag has k's field at zero: 2^24. A run stops before it
/// (`ConfigError::KWrapped`) and refuses `slots` this large
/// (`ConfigError::SlotsWrap`).
pub const K_WRAP: u64 = 1 << TAG_K_BITS;
/// The last k a run decides: 2^24 - 1.
pub const K_LAST: u64 = K_WRAP - 1;

/// Checks the literals with which `#[hdl_gen]` code builds a vote tag
/// (`get_bits::<8>` or `& 0xff` of the view, `<< 24`, `get_bits::<24>` or
/// `& 0x00ff_ffff` of k) against the tag's layout; `block` names the file.
/// hdl_gen takes no constants in `get_bits` widths, so the literals stay
/// and this check ties them to [`vote_tag`].
pub fn check_tag_literals(block: &str) {
    assert_eq!(
        (TAG_VIEW_BITS, TAG_VIEW_MASK),
        (8, 0xff),
        "{block}: the view's field of a tag is written get_bits::<8> / & 0xff"
    );
    assert_eq!(
        (TAG_K_BITS, TAG_K_MASK),
        (24, 0x00ff_ffff),
        "{block}: k's field of a tag is written get_bits::<24> / & 0x00ff_ffff, the view's << 24"
    );
}

/// The fast-path vote word for (view, k): view's low 8 bits over k's low 24.
/// Never zero for 1 <= k < 2^24, so a cleared mailbox is never a vote. At
/// k = 2^24 (16.7 M slots into one run) k's field wraps: the kernel stops a
/// run after deciding k = 2^24 - 1 and refuses a `slots` of 2^24 or more
/// (`ConfigError::KWrapped`, `ConfigError::SlotsWrap`).
pub const fn vote_tag(view: u32, k: u32) -> u32 {
    ((view & TAG_VIEW_MASK) << TAG_K_BITS) | (k & TAG_K_MASK)
}
