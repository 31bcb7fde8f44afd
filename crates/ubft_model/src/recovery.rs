//! `recovery`: docs/recovery.md at the level of the mailboxes.
//!
//! uBFT's slow path (f + 1 certificates, f + 1 commits), the fast-to-slow
//! bridge, the signed seal with its echo registers and the NEW_VIEW with one
//! carried slot, adapted to a kernel that works one slot at a time and talks
//! only through trusted mailboxes. Rule numbers (R1 ...) are the doc's.
//!
//! Each model step is one atomic poll of a record or row of the replica's own
//! HBM and what the controller does on it (signing and verifying are
//! instantaneous: the signer is a service, its latency a timing matter). A
//! step that follows a round (R13) is enabled only when every write the
//! replica sent has landed in every HBM (`Design::in_round`; the harness
//! checks the network). The D_land wait of R13 is part of the round.
//!
//! | model `Pc` / step | rule | poll finds ... | does ... |
//! | --- | --- | --- | --- |
//! | Propose: `Propose(m)` | R3, R1, R2 | leader(v), NEW_VIEW(v) accepted (none in view 0), k ≥ c* | writes PREPARE (k, m, v, dec[k−1]); m = m* at c*, else the head of B (by default its preferred value in B; `--any-value`: any value in B); its PREPARE is its lock (R5) → Cert |
//! | Prepare: `Lock` | R4, R2 | prepare[s] = (k, m, v, prev), prev = dec[k−1], m valid, no lock at (v, k) (or R8's lock on m) | writes will_cert (tag(v, k), m), phase 1 → Cert |
//! | Cert: `FastDeliver` (also in Slow with phase 1) | R5 | n locks for (tag(v, k), m), the leader's lane being its PREPARE | delivered (fast); writes will_commit, phase 2 → CommitWait |
//! | any waiting state: `FastDecide` | R6, R26 | a full will_commit row for (tag(w, k), m), any w | decides (k, m); in `kernel` not at a rerun slot while WATCH reads it (D11.15) |
//! | Prepare, Cert, CommitWait, Slow: `Echo` | R8.1 | prep_sig[s] = σ_leader(PREP, v, k, m, prev), prev = dec[k−1], m = its lock or no lock, m valid | writes echo_prep[s][i] in a round |
//! | (round) `EchoCheck` | R8.2–3, R9 | echo_prep[s][*] after the round | another valid block for (v, k): never delivers (v, k); else delivered (with nothing locked, m becomes its lock): writes its CERT share |
//! | Prepare, Cert, CommitWait, Slow, Bridge: `Commit` | R10 | a certificate for (v, k, m, prev) (f + 1 shares in certify[s], or inside a COMMIT in commit[s]) | writes COMMIT; L := (v, k, m, prev) if higher; counts its own COMMIT (R12) |
//! | any waiting state: `DeliverCommit(x)` | R11.1–2 | commit[s][x] = a COMMIT of x for its slot k (any view w), not yet processed | writes echo_commit[x][i] (if higher) in a round |
//! | (round) `CommitCheck` | R11.3–4, R12, R25 | echo_seal[x][*] and seal[x] | a SEAL of x of a view ≥ w: never counts it; else counts it; f + 1 for one block: decides |
//! | any waiting state: `CatchAbove` | R24 | a certificate for (w′, k + 1, m′, p): in a COMMIT, f + 1 shares, or the NEW_VIEW's | decides (k, p) |
//! | any waiting state: `Behind` | R27 | a COMMIT or certificate for a slot ≥ k + G that R24 cannot use | stops: BEHIND_WINDOW |
//! | Cert, CommitWait: timeout | R7, R9, slow path | (the fast path missed) | leader: writes prep_sig; delivered fast: writes its share → Slow |
//! | Propose, Prepare, Slow, AwaitNv: timeout | R14 | (nothing locked, slow path missed, no NEW_VIEW within T_vc) | R15, R16 (shares for what it delivered, the leader's prep_sig) → Bridge |
//! | working or AwaitNv: `Trigger` | R14 | f + 1 SEALs of views ≥ v in its HBM | as the timeout |
//! | Bridge: `SealDeliver` | R16 (findings 4), R5, R9 | locked, not delivered, n locks for (tag(v, k), m) | delivered (fast) with no will_commit (R15); writes its CERT share |
//! | Bridge: `BridgeCommit` | R17, R10 | its highest will_commit (w, b, m) is not covered by a commit at a slot ≥ b, and the certificate of (w, b, m, dec[b−1]) is visible | writes COMMIT (w, b, m, dec[b−1]) |
//! | Bridge: `Seal` | R17, R18 | no bridge obligation left (its decision of b with a value other than m discharged it), or a certificate for b + 1 with prev = m discharges it | writes SEAL (i, v, L) → view v + 1, AwaitNv |
//! | AwaitNv, leader(v + 1): `Collect` | R19, R21 | f others' SEALs of views ≥ v (its own is in) | writes echo_seal[x][i] for them in a round |
//! | (round) `CollectCheck` | R19, R21, R20, R22 | echo_commit[x][*] | f that pass, and the certificate of the highest L found in its HBM: writes NEW_VIEW, installs it |
//! | AwaitNv (or working, for v′ > v + 1): `ReadNv` | R22, R14 | new_view = NEW_VIEW(v′): f + 1 SEALs of views ≥ v′ − 1, a valid certificate | writes echo_seal[x][i] for its seals in a round (refuses at once when malformed) |
//! | (round) `NvCheck` | R21, R22, R23, R14 | echo_commit[x][*] | every seal passes: installs (c*, m*, prev*) (stepping back to c* from c* + 1, R23; sealing the views between first, R14); else seals v |
//!
//! Abstractions: values are small numbers; a signature is "this replica
//! signed this block" (unforgeable: an honest replica's signature exists
//! only on what it signed; the Byzantine replica signs anything of its own,
//! copies any signed record it has seen, and assembles a certificate only
//! from shares that exist); hashes are the blocks themselves. Every client
//! value is in every replica's buffer B from the start (R1: every request
//! goes to every replica; a value leaves B when the replica decides it), so
//! B is "the values it has not decided" and a made-up value (`FORGED`) is
//! never valid (R2). T_vc's doubling has no meaning here: a timer fires only
//! when nothing else can happen (or, within `--early-timeouts`, earlier), so
//! every timer is already "long enough" after GST.
//!
//! Record formats: [`Write::words`] gives each record's words as section 3
//! and the signed blocks of docs/recovery.md define them, in the field
//! positions of `rhdl_ubft::layout::records`, and [`address`] places them in
//! `rhdl_ubft::layout::Mailbox::v3` (section 13).

use std::hash::{Hash, Hasher};

use rhdl_ubft::layout::{records, Mailbox, Region};
use rhdl_ubft::params::{faults, vote_tag};

use crate::model::{val_name, Config, Design, Out, Val, FORGED, MAX_N, MAX_SLOTS, MAX_WINDOW};

/// f + 1 for the largest cluster (n = 5).
pub const MAX_F1: usize = 3;

/// The variants of section 12: each removes one safety rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The design as written.
    #[default]
    Full,
    /// Seal without R17 (no bridge).
    NoBridge,
    /// f shares make a certificate.
    CertF,
    /// f COMMITs decide.
    DecideF,
    /// R11 step 3 and R21's echo_commit check removed.
    NoCrossCheck,
    /// No fast delivery while sealing (R16 before finding 4): a liveness
    /// variant, which stalls.
    NoSealDeliver,
    /// A looser R8 (docs/model.md, "Variants for the RTL of VIEW"): the
    /// leader's signed block is echoed
    /// whatever its prev, and a delivery with nothing locked is no lock, so
    /// R4 may still lock another value at the same (v, k). It loses
    /// `agreement` with a Byzantine leader.
    LooseR8,
    /// recovery.md D11.9 V2: no R11/R12 while sealing or awaiting
    /// (`DeliverCommit` off in Bridge and AwaitNv; its own bridge COMMIT is
    /// not counted). `Kernel` keeps the Bridge half only: the RTL delivers
    /// COMMITs while awaiting a NEW_VIEW (VIEW's ViewDeliver), so this
    /// variant alone is an RTL without that delivery.
    RtlNoCommitSealing,
    /// D11.9 V3: the discharge (R17) and R24 from what WATCH reads, certify
    /// rows (f + 1 shares) and COMMIT records (their certificates verified
    /// by CertCheck), not the NEW_VIEW's certificate but its constraint at
    /// k + 1 = c*; R24 waits for the seal while bridging at b < k.
    RtlCertRows,
    /// D11.9 V4: the leader collects its own seal and the f lowest
    /// candidates; the certificate only from `x_T`'s COMMIT record (or its
    /// own); a failure marks the replica for the view.
    RtlCollect,
    /// D11.9 V5: a malformed NEW_VIEW is a miss (read again until T_vc), not
    /// a refusal.
    RtlNvRetry,
    /// D11.9 V6: a NEW_VIEW is read only in AwaitNv.
    RtlNvAwait,
    /// D11.9 V7: no SEALS trigger, R24 or other-view FULL_ROW while LEADER
    /// or FAST holds the slot (Propose, Prepare, Cert, CommitWait).
    RtlWatchScope,
    /// R21's view bound (recovery.md R21, the RTL's bridge, view.rs): a
    /// COMMIT of x in echo_commit[x][*] counts against x's SEAL (x, v_s,
    /// L_s) only if its view w ≤ v_s (and it is above L_s, as before). A
    /// COMMIT of a later view was made after the SEAL. Part of `kernel` too
    /// (docs/model.md, "R21's view bound and L's order (the RTL's bridge)").
    R21ViewBound,
    /// The RTL's bridge, whose only target is W (docs/model.md, "R21's view
    /// bound and L's order"): R16 writes only prev1's share and W's (the
    /// delivered block, if it is its will_commit), delivers nothing while
    /// sealing, and the leader does not sign its PREPARE (R7) at the
    /// trigger. A liveness variant, with the view bound.
    WBridge,
    /// The kernel's design (`kernel`): the design as the RTL builds it,
    /// D11.9's departures V2 to V7 together, R21's view bound, the RTL's
    /// bridge (`w_bridge`'s W-only target) with its delivery on n locks
    /// (slow.md): in Slow only while R8 has neither delivered nor refused
    /// the slot, and while sealing (`SealDeliver`) only while the
    /// obligation stands; and the remote read (recovery.md section 11, "A
    /// remote read", D11.17): a lock sealed undelivered is kept, and
    /// certified once a peer's will_cert row, read over the network, holds
    /// the n − 1 other lanes' locks (the leader's lane is the replica's own
    /// lock); and the decider's share (recovery.md D11.18): a replica that
    /// decided slot j = k − 1 on a block of view w_d below its own view
    /// writes, while it awaits or collects a NEW_VIEW, its share of (w, j,
    /// m, dec[j − 1]) for a peer's will_commit of (w, j, m) with w_d < w ≤
    /// its view at the decision, and at the run's end lingers (no timer)
    /// to do so. docs/model.md, "The
    /// kernel's rules in the model", lists what it does not model.
    Kernel,
    /// The design before R28: a replica that decided the run's S slots
    /// stops at once, its last will_commit's COMMIT unwritten. A liveness
    /// variant: a laggard at slot S waits for good (recovery.md R28).
    NoClose,
    /// A candidate fix, not the design: R10 also commits a certificate of
    /// the slot from a later view than the replica's (higher than its L),
    /// so a bridge on a value decided in a later view ends (docs/model.md,
    /// "R28: the run's end", the open finding). It does not end the mirror
    /// case, a value decided from COMMITs of an earlier view.
    AdoptAbove,
    /// A candidate for the open finding of docs/model.md "R28: the run's
    /// end", closing the trace and its mirror ("Closing in the view",
    /// docs/model.md): `adopt_above`'s R10 (a certificate of the slot
    /// from a later view than the replica's, higher than its L; also
    /// while awaiting a NEW_VIEW, from its awaited view on), and R28
    /// extended: a replica that decided the run's last slot S = m and
    /// holds no COMMIT of S of a view it has not sealed (L below (S, its
    /// view)) does not stop: it certifies (v, S, m, dec[S − 1]) for its
    /// view v (when v is at least the view of the block it decided on),
    /// commits the first certificate of (w′ ≥ v, S, m, dec[S − 1]) it
    /// sees, and only then stops. That wait has no timer.
    CloseInView,
    /// `kernel` with R17's former early end: the bridge on W = (w, b, m)
    /// is discharged by a certificate of slot b + 1 whose prev is m (from
    /// WATCH's rows and COMMIT records, V3), without committing anything. It loses `agreement` with a Byzantine replica
    /// (n = 3, S = 2, views 0..=1; `tests/discharge.rs`): the replica that
    /// discharges seals with no L, so a NEW_VIEW of its SEAL and the
    /// Byzantine replica's carries nothing, and a laggard at b decides
    /// another value there (recovery.md R17, "Why no early end").
    DischargeB1,
    /// A candidate for the lone bridge (recovery.md section 11's caveat):
    /// `recovery:no_remote_read` with a late share. A replica that sealed
    /// view w holding a lock on (w, k, m) that it had not delivered keeps
    /// it (`late`); while it is still at slot k, once the slot's rows show
    /// n locks for it (the PREPARE of (w, k, m) and every will_cert lane),
    /// it delivers (w, k, m) and writes its CERT share of (w, k, m,
    /// dec[k − 1]), once, with no vote and no COMMIT (R15: it sealed w). A
    /// bridge on W = (w, k, m) then finds the f + 1 shares it waits for
    /// among the replicas that sealed before the last lock landed. It
    /// reads the rows while it awaits a NEW_VIEW (AwaitNv) only.
    LateShare,
    /// `kernel` without the remote read:
    /// a lock sealed undelivered is dropped, so the caveat's Byzantine form
    /// (the faulty writer's lock sent to the bridger only) leaves the
    /// bridger in Bridge for good (`tests/remote_read.rs`).
    NoRemoteRead,
    /// `kernel:no_help` with R28 in the view (`close_in_view`'s close; the
    /// adoption is `kernel`'s already). Not a fix: with the view-2 leader
    /// Byzantine it fails where `kernel:no_help` does, since the closer certifies
    /// its own view's block and the bridger waits for an earlier view's
    /// (docs/model.md, "A decider a view ahead of a bridger").
    KernelClose,
    /// The decider's share in its wider form, not the design (`kernel`
    /// builds the narrower one; docs/model.md, "A decider a view ahead of
    /// a bridger"). A
    /// replica that decided slot j = m on a block of view w_d (a full
    /// row's or the COMMITs'; not a catch-up) and finds a peer's
    /// will_commit of (w, j, m) with w ≥ w_d in its will_commit row of
    /// slot j writes its share of (w, j, m, dec[j − 1]), in any waiting
    /// state, once per block; and at the run's end it does not stop but
    /// lingers (no timer, no other step) for such a will_commit.
    KernelHelp,
    /// `kernel` without the decider's share (recovery.md D11.18): a
    /// replica that decided stops at the run's end and never certifies a
    /// bridger's block of a later view. With the view-2 leader Byzantine
    /// it fails liveness ("A decider a view ahead of a bridger"). (The
    /// variants `discharge_b1`, `late_share`, `no_remote_read` and
    /// `kernel:close_in_view` are this design with their change.)
    NoHelp,
}

impl Variant {
    pub const ALL: [Variant; 25] = [
        Variant::Full,
        Variant::NoBridge,
        Variant::CertF,
        Variant::DecideF,
        Variant::NoCrossCheck,
        Variant::NoSealDeliver,
        Variant::LooseR8,
        Variant::RtlNoCommitSealing,
        Variant::RtlCertRows,
        Variant::RtlCollect,
        Variant::RtlNvRetry,
        Variant::RtlNvAwait,
        Variant::RtlWatchScope,
        Variant::R21ViewBound,
        Variant::WBridge,
        Variant::Kernel,
        Variant::NoClose,
        Variant::AdoptAbove,
        Variant::CloseInView,
        Variant::DischargeB1,
        Variant::LateShare,
        Variant::NoRemoteRead,
        Variant::KernelClose,
        Variant::KernelHelp,
        Variant::NoHelp,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Variant::Full => "recovery",
            Variant::NoBridge => "recovery:no_bridge",
            Variant::CertF => "recovery:cert_f",
            Variant::DecideF => "recovery:decide_f",
            Variant::NoCrossCheck => "recovery:no_cross_check",
            Variant::NoSealDeliver => "recovery:no_seal_deliver",
            Variant::LooseR8 => "recovery:loose_r8",
            Variant::RtlNoCommitSealing => "recovery:rtl_no_commit_sealing",
            Variant::RtlCertRows => "recovery:rtl_cert_rows",
            Variant::RtlCollect => "recovery:rtl_collect",
            Variant::RtlNvRetry => "recovery:rtl_nv_retry",
            Variant::RtlNvAwait => "recovery:rtl_nv_await",
            Variant::RtlWatchScope => "recovery:rtl_watch_scope",
            Variant::R21ViewBound => "recovery:r21_view_bound",
            Variant::WBridge => "recovery:w_bridge",
            Variant::Kernel => "kernel",
            Variant::NoClose => "recovery:no_close",
            Variant::AdoptAbove => "recovery:adopt_above",
            Variant::CloseInView => "recovery:close_in_view",
            Variant::DischargeB1 => "recovery:discharge_b1",
            Variant::LateShare => "recovery:late_share",
            Variant::NoRemoteRead => "recovery:no_remote_read",
            Variant::KernelClose => "kernel:close_in_view",
            Variant::KernelHelp => "kernel:help",
            Variant::NoHelp => "kernel:no_help",
        }
    }
    /// By name: `recovery:no_bridge`, or `recovery-no-bridge`; `kernel`
    /// also as its former names `recovery:rtl` and `recovery:remote_read`
    /// (aliases).
    pub fn by_name(name: &str) -> Option<Variant> {
        if matches!(
            name,
            "recovery:rtl" | "recovery-rtl" | "recovery:remote_read" | "recovery-remote-read"
        ) {
            return Some(Variant::Kernel);
        }
        let canon = match name.strip_prefix("recovery-") {
            Some(rest) => format!("recovery:{}", rest.replace('-', "_")),
            None => name.to_string(),
        };
        Variant::ALL.into_iter().find(|v| v.name() == canon)
    }
}

/// The design, with the variant it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Recovery {
    pub variant: Variant,
}

/// A signed block's contents (v, k, m, prev): a PREPARE, a CERT share, a
/// COMMIT, a latest commit L. `k == 0` is "none".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Block {
    pub v: u8,
    pub k: u8,
    pub m: Val,
    pub prev: Val,
}

impl Block {
    pub const NONE: Block = Block {
        v: 0,
        k: 0,
        m: 0,
        prev: 0,
    };
    pub fn is(&self) -> bool {
        self.k != 0
    }
    /// The order of commits: slot first, then view.
    pub fn key(&self) -> (u8, u8) {
        (self.k, self.v)
    }
    pub fn above(&self, other: &Block) -> bool {
        self.is() && self.key() > other.key()
    }
}

/// The view word of a checkpoint floor (R32): a SEAL's L, or a
/// NEW_VIEW's constraint, that is a checkpoint certificate of slot c and no
/// COMMIT. It ranks above every commit of slot c and below every commit
/// of c + 1 (the order of L: slot first, then view), and its `prev` holds
/// the checkpoint's chain (dec[1..=c], [`chain_dec`]).
pub const FLOOR: u8 = 250;

impl Block {
    /// A checkpoint floor, not a commit.
    pub fn floor(&self) -> bool {
        self.is() && self.v == FLOOR
    }
}

/// A checkpoint (R29): slot c and the chain of the values decided in
/// slots 1..=c, as signed by its writer (`c == 0`: none). The chain stands
/// for the digest of recovery.md section 17: hashes do not collide, so two
/// chains are equal only when the decided values are. The model packs
/// dec[j] into bits 4(j − 1).. of one byte, so it runs two slots at most
/// with restarts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ckpt {
    pub c: u8,
    pub chain: u8,
}

impl Ckpt {
    /// Its floor (R30): the block an L or a constraint holds for it.
    pub fn floor(&self) -> Block {
        Block {
            v: FLOOR,
            k: self.c,
            m: chain_dec(self.chain, self.c),
            prev: self.chain,
        }
    }
}

/// dec[j] from a checkpoint's chain.
pub fn chain_dec(chain: u8, j: u8) -> Val {
    (chain >> (4 * (j - 1))) & 0xf
}

/// The registers a rejoining replica copies from one peer's HBM (R33):
/// echo_prep, echo_commit and echo_seal, and the peer's copy of its own
/// SEAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Regs {
    pub echo_prep: [[Block; MAX_N]; MAX_WINDOW],
    pub echo_commit: [[Block; MAX_N]; MAX_N],
    pub echo_seal: [[Option<Seal>; MAX_N]; MAX_N],
    pub own_seal: Option<Seal>,
    /// The peer's checkpoints (used only when `Config::rejoin_off` leaves
    /// out the fresh checkpoint).
    pub ckpt: [Ckpt; MAX_N],
}

/// A vote entry (tag(v, k), m); `k == 0` is empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vote {
    pub v: u8,
    pub k: u8,
    pub m: Val,
}

/// A SEAL (j, v, L) with j's signature (j is where it is kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Seal {
    pub v: u8,
    pub l: Block,
}

/// A NEW_VIEW: the view, f + 1 seals (with their signers), and whether the
/// certificate of their highest L it carries is valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Nv {
    pub view: u8,
    pub len: u8,
    pub who: [u8; MAX_F1],
    pub seals: [Seal; MAX_F1],
    pub cert_ok: bool,
}

impl Nv {
    pub fn seals(&self) -> impl Iterator<Item = (usize, Seal)> + '_ {
        (0..self.len as usize).map(|i| (self.who[i] as usize, self.seals[i]))
    }
    /// R20: the highest L among the seals (slot first, then view; the first
    /// of equals), or none.
    pub fn constraint(&self) -> Block {
        let mut c = Block::NONE;
        for (_, s) in self.seals() {
            if s.l.above(&c) {
                c = s.l;
            }
        }
        c
    }
}

/// The mailbox records that matter, in one replica's HBM (section 3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hbm {
    pub prepare: [Block; MAX_WINDOW],
    pub prep_sig: [Block; MAX_WINDOW],
    pub will_cert: [[Vote; MAX_N]; MAX_WINDOW],
    pub will_commit: [[Vote; MAX_N]; MAX_WINDOW],
    pub echo_prep: [[Block; MAX_N]; MAX_WINDOW],
    pub certify: [[Block; MAX_N]; MAX_WINDOW],
    pub commit: [[Block; MAX_N]; MAX_WINDOW],
    /// echo_commit[x][j]
    pub echo_commit: [[Block; MAX_N]; MAX_N],
    pub seal: [Option<Seal>; MAX_N],
    /// echo_seal[x][j]
    pub echo_seal: [[Option<Seal>; MAX_N]; MAX_N],
    pub new_view: Option<Nv>,
    /// ckpt[j]: j's latest checkpoint (R29).
    pub ckpt: [Ckpt; MAX_N],
}

// Hashing. The checker fingerprints every state it generates by hashing
// it whole, and a derived `Hash` makes one hasher call per field: for the
// mailboxes, most of them empty, that was most of the checker's time. These
// impls hash the same fields, packed (a block or a vote in one `u32`, a
// SEAL in one `u64`, a whole mailbox in one byte string), so equal values
// still hash alike and the states explored are the same.

impl Block {
    fn bytes(&self) -> [u8; 4] {
        [self.v, self.k, self.m, self.prev]
    }
}

impl Hash for Block {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u32(u32::from_le_bytes(self.bytes()));
    }
}

impl Vote {
    fn bytes(&self) -> [u8; 3] {
        [self.v, self.k, self.m]
    }
}

impl Hash for Vote {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let [v, k, m] = self.bytes();
        h.write_u32(u32::from_le_bytes([v, k, m, 0]));
    }
}

impl Seal {
    fn bytes(&self) -> [u8; 5] {
        let [v, k, m, p] = self.l.bytes();
        [self.v, v, k, m, p]
    }
}

impl Hash for Seal {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let [a, b, c, d, e] = self.bytes();
        h.write_u64(u64::from_le_bytes([a, b, c, d, e, 0, 0, 0]));
    }
}

/// A mailbox's bytes, each field in declaration order, an absent SEAL or
/// NEW_VIEW as a 0 tag and zeros (a present one: a 1 tag, then its bytes).
const HBM_BYTES: usize = 2 * MAX_WINDOW * 4
    + 2 * MAX_WINDOW * MAX_N * 3
    + 3 * MAX_WINDOW * MAX_N * 4
    + MAX_N * MAX_N * 4
    + (MAX_N + MAX_N * MAX_N) * 6
    + 1
    + 3
    + MAX_F1 * 6
    + MAX_N * 2;

impl Hash for Hbm {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let mut buf = [0u8; HBM_BYTES];
        let mut at = 0;
        let mut put = |b: &[u8]| {
            buf[at..at + b.len()].copy_from_slice(b);
            at += b.len();
        };
        for b in self.prepare.iter().chain(&self.prep_sig) {
            put(&b.bytes());
        }
        for row in self.will_cert.iter().chain(&self.will_commit) {
            for v in row {
                put(&v.bytes());
            }
        }
        for row in self
            .echo_prep
            .iter()
            .chain(&self.certify)
            .chain(&self.commit)
        {
            for b in row {
                put(&b.bytes());
            }
        }
        for row in &self.echo_commit {
            for b in row {
                put(&b.bytes());
            }
        }
        for s in self.seal.iter().chain(self.echo_seal.iter().flatten()) {
            match s {
                Some(s) => {
                    put(&[1]);
                    put(&s.bytes());
                }
                None => put(&[0; 6]),
            }
        }
        match &self.new_view {
            Some(nv) => {
                put(&[1, nv.view, nv.len, nv.cert_ok as u8]);
                for (w, s) in nv.who.iter().zip(&nv.seals) {
                    put(&[*w]);
                    put(&s.bytes());
                }
            }
            None => put(&[0; 4 + MAX_F1 * 6]),
        }
        for c in &self.ckpt {
            put(&[c.c, c.chain]);
        }
        debug_assert_eq!(at, HBM_BYTES);
        h.write(&buf);
    }
}

/// A write: which record, and what goes there. `node` is the owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Write {
    Prepare {
        slot: u8,
        b: Block,
    },
    PrepSig {
        slot: u8,
        b: Block,
    },
    WillCert {
        slot: u8,
        node: u8,
        v: Vote,
    },
    WillCommit {
        slot: u8,
        node: u8,
        v: Vote,
    },
    EchoPrep {
        slot: u8,
        node: u8,
        b: Block,
    },
    Certify {
        slot: u8,
        node: u8,
        b: Block,
    },
    Commit {
        slot: u8,
        node: u8,
        b: Block,
    },
    EchoCommit {
        x: u8,
        node: u8,
        b: Block,
    },
    Seal {
        node: u8,
        s: Seal,
    },
    EchoSeal {
        x: u8,
        node: u8,
        s: Seal,
    },
    NewView {
        nv: Nv,
    },
    /// R29: node's checkpoint.
    Ckpt {
        node: u8,
        ck: Ckpt,
    },
}

/// The controller's abstract state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pc {
    /// The leader of the view, with its NEW_VIEW accepted: R3.
    Propose,
    /// Waiting for the PREPARE (no lock): R4.
    Prepare,
    /// Locked, waiting for n locks: R5.
    Cert,
    /// will_commit sent, waiting for n: R6.
    CommitWait,
    /// The slow path for (view, k): R7–R12.
    Slow,
    /// Sealing the view: R16 done, R17 then R18.
    Bridge,
    /// Sealed view − 1, waiting for NEW_VIEW(view) (or collecting it, as
    /// its leader): R19–R22.
    AwaitNv,
    /// Decided S slots, with a will_commit of slot S not covered by a
    /// COMMIT of its own: R28 certifies and commits it, then Done.
    Close,
    /// Decided S slots.
    Done,
    /// `kernel:help`: decided S slots, and waits (no timer) to write its
    /// share for a peer's will_commit of a slot it decided.
    Linger,
    /// The model's view bound.
    Capped,
    /// R27: BEHIND_WINDOW.
    Behind,
    /// R33: restarted; copies its registers from a peer (`stage` 1), then
    /// waits for a checkpoint certificate in its own mailbox (`stage` 2).
    Rejoin,
}

/// A round in progress (R13): what was written, to be checked when it has
/// landed everywhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Round {
    #[default]
    Idle,
    /// R8: echo_prep written for this block.
    Echo(Block),
    /// R11: echo_commit[x] written for x's COMMIT.
    Commit(u8, Block),
    /// R22: echo_seal written for this NEW_VIEW's seals.
    Nv(Nv),
    /// R19: echo_seal written for these candidate seals.
    Collect([Option<Seal>; MAX_N]),
    /// R32 (with restarts): its SEAL written; it goes on once the SEAL is
    /// in every replica's HBM.
    Seal,
}

/// What an honest replica has signed (kept only when a Byzantine replica
/// is checked: what it may copy).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Signed {
    pub shares: Vec<Block>,
    pub commits: Vec<Block>,
    pub seals: Vec<Seal>,
    pub preps: Vec<Block>,
}

fn add<T: Ord + Copy>(v: &mut Vec<T>, t: T) {
    if let Err(i) = v.binary_search(&t) {
        v.insert(i, t);
    }
}

/// One replica's controller state (section 8) and bookkeeping.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rep {
    pub pc: Pc,
    pub round: Round,
    pub view: u8,
    pub k: u8,
    /// Its lock at (view, k) (0: none).
    pub m: Val,
    /// 0 no vote, 1 will_cert sent (or proposed), 2 will_commit sent.
    pub phase: u8,
    /// What it proposed at (view, k), as leader (0: nothing).
    pub proposed: Val,
    /// What it delivered at (view, k) (R5 or R8), and how.
    pub dlv: Block,
    pub fast: bool,
    pub cert_done: bool,
    /// R8 found the leader's equivocation at (view, k).
    pub refused: bool,
    /// Its COMMIT at (view, k).
    pub committed: Block,
    /// Slot k − 1, delivered fast and not certified (R16).
    pub prev1: Block,
    /// It delivered (and so certified, by the time it seals) its slot k, in
    /// some view: R16 then writes no share for k − 1 (finding 1).
    pub dk: bool,
    /// Its highest will_commit (w, b, m), and whether R17 is done with it.
    pub wc: Vote,
    pub wc_done: bool,
    /// W.prev as the RTL keeps it (recovery.md D11.2): dec[k − 1] when the
    /// will_commit was sent. The model's rules rebuild it as dec(wc.k − 1);
    /// it is kept only for D11.9 V11's assertions (a function of the rest
    /// of the state while they hold, so it adds no states).
    pub wc_prev: Val,
    /// `recovery:late_share`: the lock (w, k, m) it sealed view w with,
    /// undelivered; its share is written once n locks show (k == 0: none).
    pub late: Vote,
    /// Its latest commit L.
    pub l: Block,
    /// `close_in_view`, in Close after the run's last slot: the block
    /// (v, S, m, dec[S − 1]) of its view v at the decision; it stops once
    /// it has committed a certificate of (w′ ≥ v, S, m, dec[S − 1]).
    pub close: Block,
    /// NEW_VIEW(view) accepted (always in view 0), and its constraint
    /// (c*, w*, m*, prev*) (none: every slot open).
    pub nv_ok: bool,
    pub cons: Block,
    /// Rerunning the carried slot (R23): its decision is not emitted again.
    pub rerun: bool,
    /// R11 at its slot: the COMMIT of each x it processed, and which of them
    /// it counted.
    pub dseen: [Block; MAX_N],
    pub dcount: u8,
    /// An accepted NEW_VIEW(v′) it seals its way up to (R14).
    pub pend: Option<Nv>,
    /// A NEW_VIEW it refused (it does not read it again).
    pub nv_refused: Option<Nv>,
    /// R19: seals that failed R21 at it, as leader, in this view.
    pub failed: [Option<Seal>; MAX_N],
    pub log: [(u8, Val); MAX_SLOTS + 1],
    pub nlog: u8,
    /// `kernel` and `kernel:help`: for each decided slot j, 1 + the view
    /// of the block it was decided on (0: unknown, a catch-up; for
    /// `kernel`, also a block of the replica's own view, which arms
    /// nothing).
    pub wd: [u8; MAX_SLOTS + 1],
    /// `kernel`: for each decided slot j, the replica's view when it
    /// decided it (an honest peer's will_commit of (w, j) has w at most
    /// that: it needs this replica's lock at (w, j)).
    pub wv: [u8; MAX_SLOTS + 1],
    pub signed: Signed,
    /// R33: 1 copying its registers, 2 waiting for a checkpoint
    /// certificate (in `Pc::Rejoin`).
    pub stage: u8,
    /// R33: the first view it may act in after a restart.
    pub fence: u8,
    /// The checkpoint it installed last (R31, R33): slot and chain (0: none).
    pub base: Ckpt,
    /// Slots it holds no decision for, having installed a checkpoint above
    /// them.
    pub skipped: u8,
    /// The decisions of its lives before a restart.
    pub past: [(u8, Val); MAX_SLOTS],
    pub npast: u8,
}

/// What a replica does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Propose(Val),
    Lock,
    FastDeliver,
    SealDeliver,
    FastDecide,
    Echo,
    EchoCheck,
    Commit,
    DeliverCommit(u8),
    CommitCheck,
    CatchAbove,
    Behind,
    Trigger,
    BridgeCommit,
    /// `recovery:late_share`: the share of the lock it sealed with, on n
    /// locks.
    LateShare,
    /// The remote read (`kernel`): the same share, on the kept lock and
    /// the n − 1 other votes in replica p's will_cert row, read from p's
    /// HBM.
    RemoteShare(u8),
    /// R28: the share of the last slot's W (`close_in_view`: of its view's
    /// block of the last slot).
    CloseShare,
    /// `close_in_view`: commits a certificate of the last slot of a view
    /// ≥ its own, then stops.
    CloseCommit,
    /// `kernel:help`: the share of (w, j, m, dec[j − 1]) for a peer's
    /// will_commit of a slot j it decided m on a block of a view ≤ w.
    HelpShare(Block),
    Seal,
    /// R32: its SEAL's round has landed.
    SealLanded,
    Collect,
    CollectCheck,
    ReadNv,
    NvCheck,
    Timeout,
    /// R33: copies its registers from peer p's HBM (an RDMA READ).
    Restore(u8, Regs),
    /// R33: installs a checkpoint certificate in its own mailbox.
    Install,
    /// R31: a checkpoint certificate of a slot ≥ k: skips to the slot after.
    Skip,
    /// R30: a checkpoint certificate at its bridge's slot or above: L
    /// takes its floor, which ends the bridge.
    Floor,
}

/// Slot k's rows hold n locks for (tag(v, k), m): the leader of v's lane
/// is its PREPARE of (v, k, m, prev), every other lane a will_cert (R5).
fn locks_of(cfg: &Config, h: &Hbm, v: u8, k: u8, m: Val, prev: Val) -> bool {
    let p = h.prepare[cfg.slot(k)];
    p.k == k && p.v == v && p.m == m && p.prev == prev && other_locks_in(cfg, h, v, k, m, None)
}

/// The remote read's n locks (recovery.md D11.17): every lane of a
/// will_cert row read from another replica's HBM but the leader of v's,
/// which the reader's own lock on (v, k, m) proves (it locked on leader(v)'s
/// PREPARE in its own HBM, R4). The lanes of `any` (the Byzantine replica
/// whose HBM it is) count as locks of anything.
fn other_locks_in(cfg: &Config, h: &Hbm, v: u8, k: u8, m: Val, any: Option<usize>) -> bool {
    let s = cfg.slot(k);
    let ld = cfg.leader(v);
    (0..cfg.n).all(|j| j == ld || any == Some(j) || vote_matches(&h.will_cert[s][j], v, k, m))
}

fn vote_matches(e: &Vote, v: u8, k: u8, m: Val) -> bool {
    e.k != 0 && vote_tag(e.v as u32, e.k as u32) == vote_tag(v as u32, k as u32) && e.m == m
}

/// The decided value of slot k at this replica (0: none; k = 0 is "before
/// slot 1", prev 0).
pub fn dec(rep: &Rep, k: u8) -> Val {
    if k >= 1 && k <= rep.base.c {
        return chain_dec(rep.base.chain, k);
    }
    rep.log[..rep.nlog as usize]
        .iter()
        .find(|&&(kk, _)| kk == k)
        .map(|&(_, m)| m)
        .unwrap_or(0)
}

impl Rep {
    fn working(&self) -> bool {
        matches!(
            self.pc,
            Pc::Propose | Pc::Prepare | Pc::Cert | Pc::CommitWait | Pc::Slow
        )
    }
    fn waiting(&self) -> bool {
        !matches!(self.pc, Pc::Done | Pc::Capped | Pc::Behind)
    }
    /// R1: the buffer B, the client values it has not decided.
    fn in_b(&self, m: Val, cfg: &Config) -> bool {
        m >= 1
            && m <= cfg.values
            && self.log[..self.nlog as usize].iter().all(|&(_, d)| d != m)
            && (1..=self.base.c).all(|j| chain_dec(self.base.chain, j) != m)
    }
    fn reset_view(&mut self) {
        self.m = 0;
        self.phase = 0;
        self.proposed = 0;
        self.dlv = Block::NONE;
        self.fast = false;
        self.cert_done = false;
        self.refused = false;
        self.committed = Block::NONE;
    }
    fn reset_slot(&mut self) {
        self.reset_view();
        self.late = Vote::default();
        self.dseen = [Block::NONE; MAX_N];
        self.dcount = 0;
        self.dk = false;
    }
}

impl Recovery {
    fn cert_need(&self, cfg: &Config) -> usize {
        match self.variant {
            Variant::CertF => cfg.f(),
            _ => cfg.f() + 1,
        }
    }
    fn decide_need(&self, cfg: &Config) -> usize {
        match self.variant {
            Variant::DecideF => cfg.f(),
            _ => cfg.f() + 1,
        }
    }
    fn cross_check(&self) -> bool {
        self.variant != Variant::NoCrossCheck
    }
    /// R28: a replica that decided the run's S slots closes its last
    /// will_commit (every variant but `no_close`).
    fn closes(&self) -> bool {
        self.variant != Variant::NoClose
    }
    /// R10's adoption from a later view (recovery.md section 11):
    /// `close_in_view`, and `kernel`, which builds it (D11.13).
    fn adopts(&self) -> bool {
        self.variant == Variant::CloseInView || self.kernel()
    }
    /// R28 in the view (recovery.md section 11): `close_in_view` and
    /// `kernel:close_in_view`.
    fn closes_in_view(&self) -> bool {
        matches!(self.variant, Variant::CloseInView | Variant::KernelClose)
    }
    /// D11.15 (`kernel`): WATCH's full will_commit row does not decide a
    /// rerun slot (R23) again; the replica stays in the rerun's slow path,
    /// whose certificate needs its share. While LEADER or FAST holds the
    /// slot (WATCH off, V7) the row is the rerun's own view's, which FAST's
    /// R6 reads, and it decides as before.
    fn rerun_keeps_row(&self, rep: &Rep) -> bool {
        self.kernel() && rep.rerun && !self.watch_off(rep)
    }
    /// One of D11.9's departures (V2 to V7): its own variant, or `kernel`.
    fn rtl(&self, v: Variant) -> bool {
        self.variant == v || self.kernel()
    }
    /// `kernel`, or `kernel` with R17's former early end
    /// (`recovery:discharge_b1`).
    fn kernel(&self) -> bool {
        matches!(
            self.variant,
            Variant::Kernel
                | Variant::DischargeB1
                | Variant::LateShare
                | Variant::NoRemoteRead
                | Variant::KernelClose
                | Variant::KernelHelp
                | Variant::NoHelp
        )
    }
    /// The decider's share: `kernel` (as built, recovery.md D11.18) and
    /// the wider candidate `kernel:help`.
    fn helps(&self) -> bool {
        matches!(self.variant, Variant::Kernel | Variant::KernelHelp)
    }
    /// The remote read: `kernel`, and `kernel` with R17's former early end.
    fn remote_read(&self) -> bool {
        matches!(
            self.variant,
            Variant::Kernel
                | Variant::DischargeB1
                | Variant::KernelClose
                | Variant::KernelHelp
                | Variant::NoHelp
        )
    }
    /// The remote read or `recovery:late_share`: a lock sealed undelivered
    /// is kept, and certified on n locks.
    fn late_kept(&self) -> bool {
        self.remote_read() || self.variant == Variant::LateShare
    }
    /// The RTL's bridge, whose only target is W (`kernel` and
    /// `recovery:w_bridge`): R16 writes only prev1's share and W's, and
    /// the leader does not sign its PREPARE (R7) at the trigger.
    fn w_only(&self) -> bool {
        self.kernel() || self.variant == Variant::WBridge
    }
    /// D11.9 V7: LEADER or FAST holds the slot (WATCH is off).
    fn watch_off(&self, rep: &Rep) -> bool {
        self.rtl(Variant::RtlWatchScope)
            && matches!(
                rep.pc,
                Pc::Propose | Pc::Prepare | Pc::Cert | Pc::CommitWait
            )
    }
    /// D11.9 V3: the blocks with f + 1 shares in certify[s(k)] (what WATCH's
    /// ABOVE reads), no COMMIT record, no NEW_VIEW.
    fn certs_in_rows(&self, cfg: &Config, h: &Hbm, k: u8) -> Vec<Block> {
        let row = &h.certify[cfg.slot(k)][..cfg.n];
        let mut out = vec![];
        for c in row {
            if c.k == k && row.iter().filter(|x| *x == c).count() >= self.cert_need(cfg) {
                add(&mut out, *c);
            }
        }
        out
    }

    /// WATCH's sources for R24 at slot k - 1: f + 1 CERT blocks in the
    /// certify row of k (ABOVE), or a COMMIT record of k, whose certificate
    /// CertCheck verifies (a COMMIT here always carries a valid one: the
    /// Byzantine replica's need f + 1 signers, `forgeries`).
    fn certs_watched(&self, cfg: &Config, h: &Hbm, k: u8) -> Vec<Block> {
        let mut out = self.certs_in_rows(cfg, h, k);
        for c in &h.commit[cfg.slot(k)][..cfg.n] {
            if c.k == k {
                add(&mut out, *c);
            }
        }
        out
    }

    /// R2: m is valid for slot k in the replica's view.
    fn valid(&self, cfg: &Config, rep: &Rep, k: u8, m: Val) -> bool {
        if rep.nv_ok && rep.cons.is() {
            if k == rep.cons.k {
                return m == rep.cons.m;
            }
            if k < rep.cons.k {
                return false;
            }
        }
        rep.in_b(m, cfg)
    }

    /// A certificate for `b` in the slot's rows: f + 1 shares, or a COMMIT
    /// (which carries one).
    fn cert_visible(&self, cfg: &Config, h: &Hbm, b: &Block) -> bool {
        if b.floor() {
            // R30: a floor's certificate (f + 1 checkpoints) travels with
            // the SEAL that carries it.
            return true;
        }
        let s = cfg.slot(b.k);
        h.commit[s][..cfg.n].iter().any(|c| c == b)
            || h.certify[s][..cfg.n].iter().filter(|c| *c == b).count() >= self.cert_need(cfg)
    }

    /// Every block with a certificate visible for slot k (COMMITs, f + 1
    /// shares), and the NEW_VIEW's when `nv` is set.
    fn certs_for(&self, cfg: &Config, h: &Hbm, k: u8, nv: bool) -> Vec<Block> {
        let s = cfg.slot(k);
        let mut out = vec![];
        for c in &h.commit[s][..cfg.n] {
            if c.k == k {
                add(&mut out, *c);
            }
        }
        for c in &h.certify[s][..cfg.n] {
            if c.k == k && self.cert_visible(cfg, h, c) {
                add(&mut out, *c);
            }
        }
        if nv {
            if let Some(n) = &h.new_view {
                let c = n.constraint();
                if n.cert_ok && c.k == k && !c.floor() {
                    add(&mut out, c);
                }
            }
        }
        out
    }

    /// The will_cert row holds n locks for (tag(v, k), m), the leader's lane
    /// being its PREPARE (R5).
    fn n_locks(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> bool {
        locks_of(cfg, h, rep.view, rep.k, rep.m, dec(rep, rep.k - 1))
    }

    /// `recovery:late_share`: n locks for its kept lock (w, k, m) in the
    /// slot's rows (w's PREPARE in the leader's lane), at slot k still,
    /// while awaiting a NEW_VIEW (where the RTL's VIEW polls), and its own
    /// certify entry holding no share of k from a later view.
    fn late_share(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm) -> bool {
        self.late_due(cfg, id, rep, h) && {
            let l = rep.late;
            locks_of(cfg, h, l.v, l.k, l.m, dec(rep, l.k - 1))
        }
    }

    /// A late share is due once n locks show: a kept lock at its slot
    /// still, awaiting a NEW_VIEW, its own certify entry holding no share
    /// of k from a later view.
    fn late_due(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm) -> bool {
        let l = rep.late;
        if !self.late_kept() || l.k == 0 || l.k != rep.k || rep.pc != Pc::AwaitNv {
            return false;
        }
        let own = h.certify[cfg.slot(l.k)][id];
        !(own.k == l.k && own.v > l.v)
    }

    /// R6, R26: a full will_commit row for the slot, under any view.
    fn full_row(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Val> {
        let row = &h.will_commit[cfg.slot(rep.k)][..cfg.n];
        let e = row[0];
        (e.k == rep.k && row.iter().all(|x| vote_matches(x, e.v, e.k, e.m))).then_some(e.m)
    }

    /// D11.9 V7: a full row FAST reads itself (of its vote view), or any
    /// full row when WATCH is on.
    fn full_row_seen(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Val> {
        let m = self.full_row(cfg, rep, h)?;
        let e = h.will_commit[cfg.slot(rep.k)][0];
        (!self.watch_off(rep) || vote_matches(&e, rep.view, rep.k, m)).then_some(m)
    }

    /// R8.1: the leader's signed block it can echo.
    fn echoable(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm) -> Option<Block> {
        // R8 runs while the replica seals too (Bridge): finding 2.
        if !matches!(
            rep.pc,
            Pc::Prepare | Pc::Cert | Pc::CommitWait | Pc::Slow | Pc::Bridge
        ) || rep.dlv.is()
            || rep.refused
        {
            return None;
        }
        let s = cfg.slot(rep.k);
        let b = h.prep_sig[s];
        // The block chains to what this replica decided (prev = dec[k − 1],
        // as R4 checks the PREPARE and the RTL's SlowWaitPrepSig compares
        // beat 0 with B built from its own prev). Without it a Byzantine
        // leader's PREP with a wrong prev got a share, and two honest
        // replicas certified blocks that differ in prev: a bridge stall
        // (docs/model.md, "Variants for the RTL of VIEW").
        let ok = b.k == rep.k
            && b.v == rep.view
            && (b.prev == dec(rep, rep.k - 1) || self.variant == Variant::LooseR8)
            && (rep.m == 0 || b.m == rep.m)
            && self.valid(cfg, rep, rep.k, b.m)
            && h.echo_prep[s][id] != b;
        ok.then_some(b)
    }

    /// R17's other end (recovery.md R17): while bridging W = (w, b, m), a
    /// certificate of slot b + 1 whose prev is m, of a view it has not
    /// sealed (its view or later), committed (R10): L then covers W. The
    /// kernel takes it as the design does, from any certificate it sees:
    /// f + 1 matching shares in the certify row (WATCH's ABOVE, which
    /// SLOW's adopt mode reads and verifies as R10) or a peer's COMMIT
    /// record (WATCH's COMMIT, whose certificate adopt mode copies and
    /// verifies). Not in `recovery:discharge_b1`, which discharges W on it
    /// instead.
    fn bridge_next(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Block> {
        if self.variant == Variant::DischargeB1
            || rep.pc != Pc::Bridge
            || !self.obligation(rep)
            || rep.wc.k as usize >= cfg.slots
        {
            return None;
        }
        self.certs_for(cfg, h, rep.wc.k + 1, false)
            .into_iter()
            .find(|c| c.prev == rep.wc.m && c.v >= rep.view && c.above(&rep.l))
    }

    /// R10: a certificate it should commit now: of its view, or, with the
    /// candidate `adopt_above`, of a later view, higher than its L.
    fn commit_candidate(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Block> {
        let close = self.adopts();
        // `close_in_view`: also while awaiting NEW_VIEW(view), a certificate
        // of a view ≥ view (it has sealed only views below it).
        let awaiting = close && rep.pc == Pc::AwaitNv && rep.round == Round::Idle;
        if !awaiting
            && !matches!(
                rep.pc,
                Pc::Prepare | Pc::Cert | Pc::CommitWait | Pc::Slow | Pc::Bridge
            )
        {
            return None;
        }
        if let Some(c) = self.bridge_next(cfg, rep, h) {
            return Some(c);
        }
        let certs = self.certs_for(cfg, h, rep.k, false);
        if !rep.committed.is() && !awaiting {
            if let Some(c) = certs.iter().find(|c| c.v == rep.view) {
                return Some(*c);
            }
        }
        if self.variant != Variant::AdoptAbove && !close {
            return None;
        }
        let first = if awaiting { rep.view } else { rep.view + 1 };
        let certs = if self.kernel() {
            // The kernel adopts (recovery.md D11.13) from a peer's COMMIT
            // record of k, whose certificate SLOW copies and verifies,
            // while awaiting a NEW_VIEW, while it bridges a will_commit of
            // k, and in SLOW's normal mode (R10's second half); not while
            // FAST holds the slot (WATCH is off there, V7).
            let bridging_k = rep.pc == Pc::Bridge && self.obligation(rep) && rep.wc.k == rep.k;
            if !(awaiting || bridging_k || rep.pc == Pc::Slow) {
                return None;
            }
            let s = cfg.slot(rep.k);
            h.commit[s][..cfg.n]
                .iter()
                .filter(|c| c.k == rep.k)
                .copied()
                .collect()
        } else {
            certs
        };
        certs
            .into_iter()
            .find(|c| c.v >= first && c.above(&rep.l) && c.prev == dec(rep, rep.k - 1))
    }

    /// `close_in_view`, in Close: the certificate of (w′ ≥ v, S, m,
    /// dec[S − 1]) it commits before it stops.
    fn close_cert(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Block> {
        let t = rep.close;
        if self.kernel() {
            // The kernel: SLOW's R10 in seal mode on (v, S, m, dec[S − 1])
            // reads the certify row for that block alone.
            return self.certs_in_rows(cfg, h, t.k).contains(&t).then_some(t);
        }
        self.certs_for(cfg, h, t.k, false)
            .into_iter()
            .find(|c| c.v >= t.v && c.m == t.m && c.prev == t.prev)
    }

    /// R11: the lowest x whose COMMIT for its slot it has not processed.
    fn commit_to_deliver(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm) -> Option<u8> {
        let s = cfg.slot(rep.k);
        (0..cfg.n)
            .find(|&x| x != id && h.commit[s][x].k == rep.k && h.commit[s][x] != rep.dseen[x])
            .map(|x| x as u8)
    }

    /// R24: dec[k] from a certificate for slot k + 1.
    fn above(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Val> {
        if rep.k as usize >= cfg.slots + 1 {
            return None;
        }
        let mut ps: Vec<Val> = if self.rtl(Variant::RtlCertRows) {
            // WATCH's ABOVE and COMMIT (certify rows and COMMIT records,
            // not the NEW_VIEW's certificate); while bridging at b < k its
            // polls read b + 1's slot (wt_k = b), so R24 at k waits.
            if rep.pc == Pc::Bridge && self.obligation(rep) && rep.wc.k < rep.k {
                vec![]
            } else {
                self.certs_watched(cfg, h, rep.k + 1)
                    .iter()
                    .map(|c| c.prev)
                    .collect()
            }
        } else {
            self.certs_for(cfg, h, rep.k + 1, true)
                .iter()
                .map(|c| c.prev)
                .collect()
        };
        if rep.nv_ok && rep.cons.is() && rep.cons.k == rep.k + 1 {
            ps.push(rep.cons.prev);
        }
        ps.sort();
        ps.dedup();
        ps.first().copied()
    }

    /// R27: a COMMIT or certificate for a slot ≥ k + G that R24 cannot use.
    fn behind(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> bool {
        let lim = (rep.k as usize + cfg.window).max(rep.k as usize + 2);
        let far = |k: u8| k as usize >= lim;
        (0..cfg.window).any(|s| {
            h.commit[s][..cfg.n].iter().any(|c| far(c.k))
                || h.certify[s][..cfg.n]
                    .iter()
                    .any(|c| far(c.k) && self.cert_visible(cfg, h, c))
        }) || h
            .new_view
            .is_some_and(|n| n.cert_ok && !n.constraint().floor() && far(n.constraint().k))
    }

    /// R14: f + 1 SEALs of views ≥ v in its HBM.
    fn seal_trigger(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> bool {
        (rep.working() || rep.pc == Pc::AwaitNv)
            && h.seal[..cfg.n]
                .iter()
                .filter(|s| s.is_some_and(|s| s.v >= rep.view))
                .count()
                >= cfg.f() + 1
    }

    /// D11.16, in `kernel`: a catch-up of k (R24, to k + 1) leaves an open
    /// obligation's W.b at most `reach` slots below the new k. One that
    /// would not is not taken: the replica commits k itself (its own
    /// certificate or an adopted one), and the catch-up is open again.
    fn within_reach(&self, cfg: &Config, rep: &Rep) -> bool {
        !self.kernel()
            || !self.obligation(rep)
            || (rep.k as usize + 1).saturating_sub(rep.wc.k as usize) <= cfg.reach
    }

    /// D11.16: what the gate keeps, checked where a bridge starts: an open
    /// obligation's W.b is at most max(`reach`, 2) slots below k, or one
    /// above it (after R23's step back). A fast decision leaves W one
    /// below k; a full row two at most (a rerun's will_commit at c* moves
    /// W below one it made at c* + 1, whose row may then decide c* + 1).
    /// The RTL has no stop for a bridge beyond it (params.md: no code 7).
    fn assert_reach(&self, cfg: &Config, id: usize, rep: &Rep) {
        if self.kernel() && self.obligation(rep) {
            let (k, b) = (rep.k as usize, rep.wc.k as usize);
            assert!(
                b + cfg.reach.max(2) >= k || b == k + 1,
                "D11.16: r{id} bridges W at slot {b} from k {k}, beyond the reach {}: {rep:?}",
                cfg.reach
            );
        }
    }

    /// The window's premise, in `kernel` where G > max(R, 2) (the RTL's
    /// G = 16 > 7): while an obligation on W stands, the replica writes no
    /// CERT share of another slot into W's entry, so the share its bridge
    /// needs is never its own casualty. D11.16's invariant keeps W.b
    /// within max(R, 2) slots of k, and entries are reused only G slots on
    /// (params.md, `BRIDGE_REACH`). At G = 1 a share of k lands in k − 1's
    /// entry by construction: the Byzantine stall of model.md, "Running
    /// it", is that case.
    fn assert_window(&self, cfg: &Config, id: usize, rep: &Rep, w: Vote, out: &[Out<Write>]) {
        if cfg.window <= cfg.reach.max(2) || !(self.obligation(rep) && rep.wc == w) {
            return;
        }
        for o in out {
            if let Out::All(Write::Certify { slot, node, b })
            | Out::Local(Write::Certify { slot, node, b }) = o
            {
                assert!(
                    !(*node as usize == id && *slot as usize == cfg.slot(w.k) && b.k != w.k),
                    "window premise: r{id} writes its share of {b:?} into the entry of W {w:?}: {rep:?}"
                );
            }
        }
    }

    /// `kernel:help`: the blocks (w, j, m, dec[j − 1]) of peers'
    /// will_commits at slots j this replica decided m on a block of view
    /// w_d ≤ w, within the window (j > k − G, or any once it lingers), that
    /// its certify entry of slot j does not hold. `kernel`: only j = k − 1,
    /// and only w_d < w ≤ the view it decided j in (`Rep::wv`).
    fn help_shares(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm) -> Vec<Block> {
        let mut out = vec![];
        for &(j, m) in &rep.log[..rep.nlog as usize] {
            let wd = rep.wd[j as usize];
            // Slot j's entries hold slot j + G's records once k reaches
            // it; a replica that lingers after the run's last slot works
            // on none.
            let reused = j as usize + cfg.window <= rep.k as usize && rep.pc != Pc::Linger;
            let last = self.variant != Variant::Kernel || j + 1 == rep.k;
            if wd == 0 || reused || !last {
                continue;
            }
            let s = cfg.slot(j);
            for (x, w) in h.will_commit[s][..cfg.n].iter().enumerate() {
                // (`kernel`: a view above w_d only; at w_d itself
                // adoption (R10) or R16's share of a fast delivery covers it.)
                // (`kernel`: and at most the view it decided in, which an
                // honest bridger's is; a Byzantine replica's will_commits
                // of later views get no share.)
                let low = if self.variant == Variant::Kernel {
                    w.v + 1 <= wd || w.v > rep.wv[j as usize]
                } else {
                    w.v + 1 < wd
                };
                if x == id || w.k != j || w.m != m || low {
                    continue;
                }
                let b = Block {
                    v: w.v,
                    k: j,
                    m,
                    prev: dec(rep, j - 1),
                };
                if h.certify[s][id] != b {
                    add(&mut out, b);
                }
            }
        }
        out
    }

    /// R17: the bridge obligation (its highest will_commit not covered by a
    /// commit at a slot ≥ b).
    fn obligation(&self, rep: &Rep) -> bool {
        self.variant != Variant::NoBridge && rep.wc.k != 0 && !rep.wc_done && rep.l.k < rep.wc.k
    }

    /// R17's former early end, in `recovery:discharge_b1` only: a
    /// certificate of b + 1 with prev = W.m. The design has none: a bridge
    /// ends by a COMMIT at W's slot or above (its own, R10 on the slot it
    /// holds, or R10's adoption), or by a decision of another value at W's
    /// slot (`decide`).
    fn discharged(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> bool {
        if self.variant != Variant::DischargeB1 {
            return false;
        }
        if self.rtl(Variant::RtlCertRows) {
            // ABOVE or a verified COMMIT with wt_k = b: a certificate of
            // b + 1 with prev = W.m.
            return self
                .certs_watched(cfg, h, rep.wc.k + 1)
                .iter()
                .any(|c| c.prev == rep.wc.m);
        }
        self.certs_for(cfg, h, rep.wc.k + 1, true)
            .iter()
            .any(|c| c.prev == rep.wc.m)
    }

    fn bridge_block(&self, rep: &Rep) -> Block {
        Block {
            v: rep.wc.v,
            k: rep.wc.k,
            m: rep.wc.m,
            prev: dec(rep, rep.wc.k - 1),
        }
    }

    /// The NEW_VIEW it may read now (R14, R22).
    fn readable_nv(&self, cfg: &Config, rep: &Rep, h: &Hbm) -> Option<Nv> {
        let nv = h.new_view?;
        if rep.nv_refused == Some(nv) || rep.pend.is_some() {
            return None;
        }
        // D11.9 V6: read only in AwaitNv.
        if self.rtl(Variant::RtlNvAwait) && rep.pc != Pc::AwaitNv {
            return None;
        }
        // D11.9 V5: a malformed NEW_VIEW is a miss (ViewWaitNvRec → ViewPollNv).
        if self.rtl(Variant::RtlNvRetry) && !self.nv_wellformed(cfg, &nv) {
            return None;
        }
        let ok = match rep.pc {
            Pc::AwaitNv => nv.view >= rep.view,
            _ if rep.working() => nv.view > rep.view + 1,
            _ => false,
        };
        ok.then_some(nv)
    }

    /// R22's checks that need no round: f + 1 seals of distinct replicas,
    /// of views ≥ v′ − 1, and a valid certificate.
    fn nv_wellformed(&self, cfg: &Config, nv: &Nv) -> bool {
        let mut seen = 0u8;
        nv.cert_ok
            && nv.len as usize == cfg.f() + 1
            && nv.seals().all(|(x, s)| {
                let fresh = seen & (1 << x) == 0;
                seen |= 1 << x;
                fresh && x < cfg.n && s.v + 1 >= nv.view
            })
    }

    /// R21's register check at u: no echo_commit[x][*] holds a COMMIT of x
    /// above L_s (with the view bound, `r21_view_bound` and `kernel`: of a view
    /// w ≤ v_s and above L_s).
    fn seal_passes(&self, cfg: &Config, h: &Hbm, x: usize, s: &Seal) -> bool {
        let bound = self.rtl(Variant::R21ViewBound) || self.variant == Variant::WBridge;
        !self.cross_check()
            || h.echo_commit[x][..cfg.n]
                .iter()
                .all(|c| !c.above(&s.l) || (bound && c.v > s.v))
    }

    /// R19: the leader's candidate seals (of others, views ≥ view − 1, not
    /// failed).
    fn candidates(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm) -> [Option<Seal>; MAX_N] {
        let mut c = [None; MAX_N];
        for x in 0..cfg.n {
            if x != id {
                if let Some(s) = h.seal[x] {
                    // D11.9 V4: `failed` is a bit per replica (per view).
                    let failed = if self.rtl(Variant::RtlCollect) {
                        rep.failed[x].is_some()
                    } else {
                        rep.failed[x] == Some(s)
                    };
                    if s.v + 1 >= rep.view && !failed {
                        c[x] = Some(s);
                    }
                }
            }
        }
        c
    }

    fn leader_check(&self, cfg: &Config, id: usize, rep: &mut Rep) {
        rep.pc = if cfg.leader(rep.view) == id {
            Pc::Propose
        } else {
            Pc::Prepare
        };
    }

    fn sign_share(&self, cfg: &Config, rep: &mut Rep, b: Block) {
        if cfg.byzantine.is_some() {
            add(&mut rep.signed.shares, b);
        }
    }

    /// Decides (k, m) at its slot and moves on (R23: a rerun emits nothing,
    /// unless the value differs, which integrity then shows).
    /// `w`: the view of the block it decided on (a full will_commit row's
    /// or the COMMITs'), none for R24.
    fn decide(&self, cfg: &Config, id: usize, rep: &mut Rep, m: Val, w: Option<u8>) {
        let k = rep.k;
        if !rep.rerun || dec(rep, k) != m {
            rep.log[rep.nlog as usize] = (k, m);
            rep.nlog += 1;
            if self.variant == Variant::KernelHelp {
                rep.wd[k as usize] = w.map_or(0, |w| w + 1);
            } else if self.helps() {
                // `kernel`: armed only for a block of a view
                // below the replica's own (an honest peer's will_commit of
                // (w > w_d, k, m) needs this replica's lock at (w, k), so
                // its view reached w before it decided k).
                rep.wd[k as usize] = w.filter(|&w| w < rep.view).map_or(0, |w| w + 1);
                rep.wv[k as usize] = rep.view;
            }
        }
        rep.rerun = false;
        // prev1 (R16's k − 1 share): slot k delivered fast in this view, not
        // certified, and the value decided. A decision of another value
        // clears it (docs/model.md, "prev1 after a decision of another
        // value"): the share would be of a value this replica did not
        // decide, and could complete a certificate of it with a Byzantine
        // share.
        rep.prev1 = if rep.dlv.k == k && rep.fast && !rep.cert_done && rep.dlv.m == m {
            rep.dlv
        } else {
            Block::NONE
        };
        // R17: a decision of slot b = W.b with a value other than W.m
        // discharges the obligation (wc_done). The bridge carries W.m into
        // the next view in case W.m was decided fast at (w, b); a fast
        // decision needs every replica's will_commit for W.m, and then no
        // other value is ever decided at b (agreement), so this decision
        // shows there is nothing to carry. Without it W's certificate may
        // never form (no other honest replica delivered W.m), no
        // certificate of b + 1 has prev = W.m (its prev is dec[b]), and
        // Bridge, which has no timer, waits for good. The discharge by a
        // certificate of b + 1 rests on an honest signer who passed slot b;
        // this one on an honest signer at slot b (a certificate of b, or n
        // will_commits there), who had decided every slot below b
        // (docs/model.md, "prev1 after a decision of another value").
        if rep.wc.k == k && rep.wc.m != m {
            rep.wc_done = true;
        }
        self.assert_v11(id, rep, k, m);
        rep.reset_slot();
        rep.k = k + 1;
        if rep.nlog as usize >= cfg.slots {
            // R28: the run's last slot, delivered with a will_commit and
            // not committed, is certified and committed before it stops.
            rep.pc = if self.closes() && self.obligation(rep) && rep.wc.k == k {
                Pc::Close
            } else if self.closes_in_view() && !(rep.l.k == k && rep.l.v >= rep.view) {
                // R28 in the view: no COMMIT of S of a view it has not
                // sealed, so a laggard could count none of its COMMITs
                // (R11.3). Its share of (v, S, m) is safe once v is at
                // least the decided block's view: every certificate of S
                // in such a view is of m (recovery.md section 10, Lemma 2).
                rep.close = Block {
                    v: rep.view,
                    k,
                    m,
                    prev: dec(rep, k - 1),
                };
                rep.prev1 = if w.is_some_and(|w| rep.view >= w) {
                    rep.close
                } else {
                    Block::NONE
                };
                Pc::Close
            } else if self.helps() {
                Pc::Linger
            } else {
                Pc::Done
            };
            rep.round = Round::Idle;
        } else if rep.working() {
            self.leader_check(cfg, id, rep);
        }
    }

    /// The D11.9 assertions (V9, V11) state what the design guarantees, so
    /// they are checked for the design, its liveness variant and the RTL's
    /// variants, not for the variants that remove a safety rule (whose
    /// counterexamples break them: `loose_r8`'s trace fails V11 before it
    /// fails `agreement`).
    fn asserts(&self) -> bool {
        !matches!(
            self.variant,
            Variant::NoBridge
                | Variant::CertF
                | Variant::DecideF
                | Variant::NoCrossCheck
                | Variant::LooseR8
        )
    }

    /// W as the RTL keeps it: (w, b, m, prev) of its highest will_commit.
    fn w_block(&self, rep: &Rep) -> Block {
        Block {
            v: rep.wc.v,
            k: rep.wc.k,
            m: rep.wc.m,
            prev: rep.wc_prev,
        }
    }

    /// recovery.md D11.9 V11: the RTL builds prev1's share and the bridge
    /// block from W (its highest will_commit, W.prev kept from when it was
    /// sent), where the model rebuilds them from its delivered block and
    /// dec(b − 1). Checked at every decision of slot k (the log already
    /// holds (k, m)): when prev1 is set, prev1 = W = (wc.v, wc.k, wc.m,
    /// dec(wc.k − 1)) and m = wc.m (so at k + 1, W is (view, k, dec[k],
    /// dec[k − 1]), as D11.2 says). A failure stops the run (a panic, in
    /// release builds too), naming the replica and its state.
    ///
    /// D11.9 V11 (d) also asks for "wc.k = k implies m = wc.m" at every
    /// decision. That is false, and not only after a seal: with a Byzantine
    /// view-0 leader, a replica that delivered A fast (W = (0, 1, A)) can
    /// decide B at k 1 from view-1 COMMITs (R11, R12, R25), in view 0 with
    /// its bridge obligation open, or after sealing with L = A. A was
    /// decided by nobody; the bridge block is W either way, in the model
    /// and in the RTL, so the equivalence does not need the clause
    /// (docs/model.md, "Variants for the RTL of VIEW"). The prev1
    /// case's m = wc.m failed the same way with five Byzantine writes at
    /// views 0..=1 (r2 decided B in CommitWait with prev1 = its fast A);
    /// now a decision of another value clears prev1 (`decide`), so it holds
    /// by construction, and stays asserted (docs/model.md, "prev1 after a
    /// decision of another value").
    fn assert_v11(&self, id: usize, rep: &Rep, k: u8, m: Val) {
        if !self.asserts() || !rep.prev1.is() {
            return;
        }
        let w = self.w_block(rep);
        assert!(
            rep.prev1 == w && w.prev == dec(rep, w.k.wrapping_sub(1)) && m == w.m,
            "D11.9 V11: r{id} decides k {k} = {} with prev1 {} but W = {} (dec(b − 1) = {}): {rep:?}",
            val_name(m),
            blk(&rep.prev1),
            blk(&w),
            val_name(dec(rep, w.k.wrapping_sub(1)))
        );
    }

    /// D11.9 V11 for the bridge block: the model's (wc.v, wc.k, wc.m,
    /// dec(wc.k − 1)) is the RTL's W.
    fn assert_v11_bridge(&self, id: usize, rep: &Rep, c: &Block) {
        if self.asserts() {
            assert!(
                *c == self.w_block(rep),
                "D11.9 V11: r{id}'s bridge block {} is not W = {}: {rep:?}",
                blk(c),
                blk(&self.w_block(rep))
            );
        }
    }

    /// recovery.md D11.9 V9: a follower does not R21-check its own seal in a
    /// NEW_VIEW (the model checks every seal). Checked after the R22 round:
    /// its own seal, if the NEW_VIEW carries one, passes R21 here, so
    /// skipping it changes nothing. A failure stops the run (a panic).
    fn assert_v9(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm, nv: &Nv) {
        if !self.asserts() {
            return;
        }
        for (x, sl) in nv.seals().filter(|&(x, _)| x == id) {
            assert!(
                self.seal_passes(cfg, h, x, &sl),
                "D11.9 V9: r{id}'s own seal (view {}, L {}) in NEW_VIEW({}) fails R21: echo_commit[{id}] = [{}]; {rep:?}",
                sl.v,
                blk(&sl.l),
                nv.view,
                blocks(&h.echo_commit[id][..cfg.n])
            );
        }
    }

    /// Counts its own COMMIT, and decides on f + 1 for one block (R12).
    fn count(&self, cfg: &Config, id: usize, rep: &mut Rep, x: usize, c: Block) {
        rep.dseen[x] = c;
        rep.dcount |= 1 << x;
        let n = (0..cfg.n)
            .filter(|&y| rep.dcount & (1 << y) != 0 && rep.dseen[y] == c)
            .count();
        if c.k == rep.k && n >= self.decide_need(cfg) {
            self.decide(cfg, id, rep, c.m, Some(c.v));
        }
    }

    /// Writes its COMMIT of c (R10).
    fn commit(&self, cfg: &Config, id: usize, rep: &mut Rep, c: Block) -> Vec<Out<Write>> {
        if c.above(&rep.l) {
            rep.l = c;
        }
        if cfg.byzantine.is_some() {
            add(&mut rep.signed.commits, c);
        }
        let w = Write::Commit {
            slot: cfg.slot(c.k) as u8,
            node: id as u8,
            b: c,
        };
        if c.k == rep.k {
            if c.v == rep.view {
                rep.committed = c;
            }
            // D11.9 V2: SLOW in seal mode yields after its COMMIT (no R12).
            if !(self.rtl(Variant::RtlNoCommitSealing) && rep.pc == Pc::Bridge) {
                self.count(cfg, id, rep, id, c);
            }
        }
        vec![Out::All(w)]
    }

    /// R14–R16: the trigger. Stops voting, certifies what it delivered, the
    /// leader signs its PREPARE; then the bridge (or the view bound).
    fn vc_start(&self, cfg: &Config, id: usize, rep: &mut Rep) -> Vec<Out<Write>> {
        self.assert_reach(cfg, id, rep);
        rep.round = Round::Idle;
        if rep.view >= cfg.views {
            rep.pc = Pc::Capped;
            return vec![];
        }
        let mut out = vec![];
        // R16 (changed after the model found finding 1): with G = 1 not
        // over a share for slot k, which carries prev = dec[k − 1] and so
        // discharges k − 1's bridge (R17): the two share one entry. With
        // G >= 2 they do not, and the share of k − 1 is written whatever
        // k's state, as the RTL's seal mode does (SLOW signs W's CERT
        // block first): without it two honest replicas may bridge one W
        // with one share of it between them (docs/model.md, "R24 from a
        // COMMIT", run (v)).
        if rep.prev1.is() && (!rep.dk || cfg.window > 1) {
            let b = rep.prev1;
            self.sign_share(cfg, rep, b);
            out.push(Out::All(Write::Certify {
                slot: cfg.slot(b.k) as u8,
                node: id as u8,
                b,
            }));
            rep.prev1 = Block::NONE;
        }
        let w_only = self.w_only();
        let is_w = rep.wc.k == rep.dlv.k && rep.wc.v == rep.dlv.v && rep.wc.m == rep.dlv.m;
        if rep.dlv.is()
            && rep.dlv.v == rep.view
            && rep.dlv.k == rep.k
            && !rep.cert_done
            && (!w_only || is_w)
        {
            let b = rep.dlv;
            self.sign_share(cfg, rep, b);
            rep.cert_done = true;
            out.push(Out::All(Write::Certify {
                slot: cfg.slot(b.k) as u8,
                node: id as u8,
                b,
            }));
        }
        if rep.proposed != 0 && rep.working() && rep.pc != Pc::Slow && !w_only {
            // (In the slow path it signed it already, R7.)
            out.extend(self.sign_prepare(cfg, id, rep));
        }
        rep.prev1 = Block::NONE;
        rep.pc = Pc::Bridge;
        out
    }

    /// R7: the leader signs its PREPARE.
    fn sign_prepare(&self, cfg: &Config, _id: usize, rep: &mut Rep) -> Vec<Out<Write>> {
        let b = Block {
            v: rep.view,
            k: rep.k,
            m: rep.proposed,
            prev: dec(rep, rep.k - 1),
        };
        if cfg.byzantine.is_some() {
            add(&mut rep.signed.preps, b);
        }
        vec![Out::All(Write::PrepSig {
            slot: cfg.slot(rep.k) as u8,
            b,
        })]
    }

    /// R22, R23: installs an accepted NEW_VIEW (false: R23's check fails).
    fn install(&self, cfg: &Config, id: usize, rep: &mut Rep, nv: &Nv) -> bool {
        let c = nv.constraint();
        if c.floor() {
            // R30: every slot up to the floor is decided; a replica below it
            // skips to the slot after (R31, on the certificate the NEW_VIEW
            // carries), and nothing is carried or rerun.
            rep.view = nv.view;
            rep.nv_ok = true;
            rep.cons = Block::NONE;
            rep.pend = None;
            rep.nv_refused = None;
            rep.failed = [None; MAX_N];
            rep.round = Round::Idle;
            rep.reset_view();
            if rep.k <= c.k {
                self.skip_to(
                    cfg,
                    rep,
                    Ckpt {
                        c: c.k,
                        chain: c.prev,
                    },
                );
            }
            if rep.pc != Pc::Done {
                self.leader_check(cfg, id, rep);
            }
            return true;
        }
        let step_back = c.is() && rep.k == c.k + 1;
        if step_back && (dec(rep, c.k) != c.m || dec(rep, c.k - 1) != c.prev) {
            return false;
        }
        rep.view = nv.view;
        rep.nv_ok = true;
        rep.cons = c;
        rep.pend = None;
        rep.nv_refused = None;
        rep.failed = [None; MAX_N];
        rep.round = Round::Idle;
        rep.reset_view();
        if step_back {
            rep.rerun = true;
            rep.k = c.k;
            rep.reset_slot();
            rep.prev1 = Block::NONE;
        }
        self.leader_check(cfg, id, rep);
        true
    }

    /// R18: seals (every view up to an accepted NEW_VIEW's, R14), then
    /// installs that NEW_VIEW or waits for one.
    fn seal(&self, cfg: &Config, id: usize, rep: &mut Rep) -> Vec<Out<Write>> {
        let target = rep.pend.map(|n| n.view).unwrap_or(rep.view + 1);
        if self.late_kept() && rep.phase == 1 && rep.m != 0 && !rep.dlv.is() {
            rep.late = Vote {
                v: rep.view,
                k: rep.k,
                m: rep.m,
            };
        }
        let mut last = None;
        while rep.view < target {
            let s = Seal {
                v: rep.view,
                l: rep.l,
            };
            if cfg.byzantine.is_some() {
                add(&mut rep.signed.seals, s);
            }
            last = Some(s);
            rep.view += 1;
        }
        rep.nv_ok = false;
        rep.cons = Block::NONE;
        rep.reset_view();
        rep.failed = [None; MAX_N];
        rep.pc = Pc::AwaitNv;
        if cfg.restarts > 0 && last.is_some() {
            // R32: it acts in the next view only once its SEAL is in every
            // HBM, so a restart finds it in the peer it copies from.
            rep.round = Round::Seal;
            return last
                .map(|s| Out::All(Write::Seal { node: id as u8, s }))
                .into_iter()
                .collect();
        }
        self.seal_landed(cfg, id, rep);
        last.map(|s| Out::All(Write::Seal { node: id as u8, s }))
            .into_iter()
            .collect()
    }

    /// After R18's SEAL (and, with restarts, its round): installs the
    /// NEW_VIEW it sealed its way up to, if any.
    fn seal_landed(&self, cfg: &Config, id: usize, rep: &mut Rep) {
        rep.round = Round::Idle;
        if let Some(nv) = rep.pend {
            if !self.install(cfg, id, rep, &nv) {
                rep.pend = None;
                rep.nv_refused = Some(nv);
            }
        }
    }

    /// R29: f + 1 checkpoints of one (c, chain) from distinct replicas in
    /// its HBM, the highest such c (none: `None`).
    fn ckpt_cert(&self, cfg: &Config, h: &Hbm) -> Option<Ckpt> {
        let mut best: Option<Ckpt> = None;
        for a in &h.ckpt[..cfg.n] {
            if a.c != 0
                && h.ckpt[..cfg.n].iter().filter(|b| *b == a).count() > cfg.f()
                && best.is_none_or(|b| a.c > b.c)
            {
                best = Some(*a);
            }
        }
        best
    }

    /// R31: installs checkpoint `ck` (above its slot): the slots up to
    /// ck.c are the host's to fetch, its L becomes at least the floor, and
    /// it goes on at ck.c + 1 (or stops, past the run's last slot).
    fn skip_to(&self, cfg: &Config, rep: &mut Rep, ck: Ckpt) {
        let from = rep.k;
        rep.skipped += ck.c + 1 - from;
        rep.base = ck;
        let floor = ck.floor();
        if floor.above(&rep.l) && cfg.rejoin_off & 1 == 0 {
            rep.l = floor;
        }
        rep.reset_slot();
        rep.prev1 = Block::NONE;
        rep.rerun = false;
        rep.k = ck.c + 1;
        if rep.k as usize > cfg.slots {
            rep.pc = Pc::Done;
            rep.round = Round::Idle;
        }
    }
}

impl Design for Recovery {
    type Replica = Rep;
    type Hbm = Hbm;
    type Write = Write;
    type Step = Step;

    fn name(&self) -> &'static str {
        self.variant.name()
    }

    fn init(&self, cfg: &Config, id: usize) -> (Rep, Hbm) {
        let mut rep = Rep {
            pc: Pc::Prepare,
            round: Round::Idle,
            view: 0,
            k: 1,
            m: 0,
            phase: 0,
            proposed: 0,
            dlv: Block::NONE,
            fast: false,
            cert_done: false,
            refused: false,
            committed: Block::NONE,
            late: Vote::default(),
            prev1: Block::NONE,
            dk: false,
            wc: Vote::default(),
            wc_prev: 0,
            wc_done: false,
            l: Block::NONE,
            close: Block::NONE,
            nv_ok: true,
            cons: Block::NONE,
            rerun: false,
            dseen: [Block::NONE; MAX_N],
            dcount: 0,
            pend: None,
            nv_refused: None,
            failed: [None; MAX_N],
            log: [(0, 0); MAX_SLOTS + 1],
            wd: [0; MAX_SLOTS + 1],
            wv: [0; MAX_SLOTS + 1],
            nlog: 0,
            signed: Signed::default(),
            stage: 0,
            fence: 0,
            base: Ckpt::default(),
            skipped: 0,
            past: [(0, 0); MAX_SLOTS],
            npast: 0,
        };
        self.leader_check(cfg, id, &mut rep);
        (rep, Hbm::default())
    }

    fn in_round(&self, rep: &Rep) -> bool {
        rep.round != Round::Idle
    }

    fn steps(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm, out: &mut Vec<Step>) {
        match rep.round {
            Round::Echo(_) => return out.push(Step::EchoCheck),
            Round::Commit(..) => return out.push(Step::CommitCheck),
            Round::Nv(_) => return out.push(Step::NvCheck),
            Round::Collect(_) => return out.push(Step::CollectCheck),
            Round::Seal => return out.push(Step::SealLanded),
            Round::Idle => {}
        }
        if !rep.waiting() {
            return;
        }
        if rep.pc == Pc::Rejoin {
            // R33: passive until it installs (its copy is a remote step).
            if rep.stage == 2 && self.ckpt_cert(cfg, h).is_some() {
                out.push(Step::Install);
            }
            return;
        }
        // R31: a checkpoint certificate of its slot or above.
        if cfg.restarts > 0
            && !matches!(rep.pc, Pc::Close | Pc::Linger)
            && self.ckpt_cert(cfg, h).is_some_and(|c| c.c >= rep.k)
        {
            out.push(Step::Skip);
        }
        // `kernel` (the RTL's): only while it awaits or collects
        // a NEW_VIEW (VIEW's poll loops), or lingers.
        let help_here =
            self.variant != Variant::Kernel || matches!(rep.pc, Pc::AwaitNv | Pc::Linger);
        if self.helps() && rep.round == Round::Idle && help_here {
            out.extend(
                self.help_shares(cfg, id, rep, h)
                    .into_iter()
                    .map(Step::HelpShare),
            );
        }
        if rep.pc == Pc::Linger {
            return;
        }
        if rep.pc == Pc::Close && rep.close.is() {
            // `close_in_view`: its share of (v, S, m), then the COMMIT of
            // a certificate of (w′ ≥ v, S, m).
            if rep.prev1.is() {
                out.push(Step::CloseShare);
            } else if self.close_cert(cfg, rep, h).is_some() {
                out.push(Step::CloseCommit);
            }
            return;
        }
        if rep.pc == Pc::Close {
            // R28: the share of W (prev1, its fast delivery of slot S) if
            // not yet written, then W's COMMIT once a certificate is seen.
            if rep.prev1.is() {
                out.push(Step::CloseShare);
            } else if self.cert_visible(cfg, h, &self.bridge_block(rep)) {
                out.push(Step::BridgeCommit);
            }
            return;
        }
        let s = cfg.slot(rep.k);
        // Catching up and delivering COMMITs: in every waiting state. In
        // `kernel`, not a full row at a rerun slot (D11.15): the replica
        // decided it before, and the rerun needs its share and COMMIT.
        if self.full_row_seen(cfg, rep, h).is_some() && !self.rerun_keeps_row(rep) {
            out.push(Step::FastDecide);
        }
        if self.above(cfg, rep, h).is_some() {
            if !self.watch_off(rep) && self.within_reach(cfg, rep) {
                out.push(Step::CatchAbove);
            }
        } else if self.behind(cfg, rep, h) {
            out.push(Step::Behind);
        }
        // D11.9 V2: no R11 while bridging (SLOW's seal mode); while
        // awaiting a NEW_VIEW the RTL delivers COMMITs (VIEW's
        // ViewDeliver: SLOW's R11 on a peer's COMMIT of k), so only the
        // named variant leaves that delivery out.
        let no_deliver = match rep.pc {
            Pc::Bridge => self.rtl(Variant::RtlNoCommitSealing),
            Pc::AwaitNv => self.variant == Variant::RtlNoCommitSealing,
            _ => false,
        };
        if !no_deliver {
            if let Some(x) = self.commit_to_deliver(cfg, id, rep, h) {
                out.push(Step::DeliverCommit(x));
            }
        }
        match rep.pc {
            Pc::Propose => {
                if rep.cons.is() && rep.k == rep.cons.k {
                    out.push(Step::Propose(rep.cons.m));
                } else if !rep.cons.is() || rep.k > rep.cons.k {
                    let first = (id + rep.k as usize - 1) % cfg.values as usize;
                    let order = (0..cfg.values as usize)
                        .map(|i| 1 + ((first + i) % cfg.values as usize) as Val);
                    let mut b = order.filter(|&m| rep.in_b(m, cfg));
                    if cfg.any_value {
                        out.extend(b.map(Step::Propose));
                    } else if let Some(m) = b.next() {
                        out.push(Step::Propose(m));
                    }
                }
            }
            Pc::Prepare => {
                let p = h.prepare[s];
                // R4: one lock per (v, k). A delivery by R8 with nothing
                // locked made its value the lock (`EchoCheck`), so only that
                // value may still be locked (and voted for) here.
                let unlocked = rep.m == 0 || p.m == rep.m || self.variant == Variant::LooseR8;
                if p.k == rep.k
                    && p.v == rep.view
                    && unlocked
                    && p.prev == dec(rep, rep.k - 1)
                    && self.valid(cfg, rep, rep.k, p.m)
                {
                    out.push(Step::Lock);
                }
            }
            Pc::Cert => {
                if self.n_locks(cfg, rep, h) {
                    out.push(Step::FastDeliver);
                }
            }
            Pc::Slow => {
                // In `kernel` only while SLOW works on its delivery (R8's
                // states, slow.md "Delivery on n locks"): not once R8
                // delivered or refused the slot.
                let working = !self.kernel()
                    || (!rep.refused && !(rep.dlv.v == rep.view && rep.dlv.k == rep.k));
                if rep.phase == 1 && working && self.n_locks(cfg, rep, h) {
                    out.push(Step::FastDeliver);
                }
            }
            Pc::Bridge => {
                // R16 (changed after finding 4): n locks seen while sealing
                // still deliver, with no will_commit (R15).
                if !matches!(self.variant, Variant::NoSealDeliver | Variant::WBridge)
                    && (!self.kernel() || self.obligation(rep))
                    && rep.phase == 1
                    && !rep.dlv.is()
                    && !rep.refused
                    && self.n_locks(cfg, rep, h)
                {
                    out.push(Step::SealDeliver);
                }
                if self.obligation(rep)
                    && cfg.restarts > 0
                    && cfg.rejoin_off & 1 == 0
                    && self.ckpt_cert(cfg, h).is_some_and(|c| c.c >= rep.wc.k)
                {
                    // R30: a checkpoint certificate at W's slot or above
                    // covers W; L takes its floor, and the bridge ends.
                    out.push(Step::Floor);
                } else if self.obligation(rep) && !self.discharged(cfg, rep, h) {
                    if rep.wc.v == rep.view && self.cert_visible(cfg, h, &self.bridge_block(rep)) {
                        out.push(Step::BridgeCommit);
                    }
                } else {
                    out.push(Step::Seal);
                }
            }
            Pc::AwaitNv => {
                if cfg.leader(rep.view) == id && rep.pend.is_none() {
                    let c = self.candidates(cfg, id, rep, h);
                    if c.iter().filter(|s| s.is_some()).count() >= cfg.f() {
                        out.push(Step::Collect);
                    }
                }
            }
            _ => {}
        }
        if self.variant == Variant::LateShare && self.late_share(cfg, id, rep, h) {
            out.push(Step::LateShare);
        }
        if self.echoable(cfg, id, rep, h).is_some() {
            out.push(Step::Echo);
        }
        if self.commit_candidate(cfg, rep, h).is_some() {
            out.push(Step::Commit);
        }
        if self.seal_trigger(cfg, rep, h) && !self.watch_off(rep) {
            out.push(Step::Trigger);
        }
        if self.readable_nv(cfg, rep, h).is_some() {
            out.push(Step::ReadNv);
        }
    }

    fn timeouts(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm, out: &mut Vec<Step>) {
        if rep.close.is() {
            return; // `close_in_view`: the wait has no timer
        }
        if rep.round != Round::Idle
            || !matches!(
                rep.pc,
                Pc::Propose
                    | Pc::Prepare
                    | Pc::Cert
                    | Pc::CommitWait
                    | Pc::Slow
                    | Pc::AwaitNv
                    | Pc::Close
            )
        {
            return;
        }
        let mut s = Vec::new();
        self.steps(cfg, id, rep, h, &mut s);
        if s.is_empty() {
            out.push(Step::Timeout);
        }
    }

    fn apply(
        &self,
        cfg: &Config,
        id: usize,
        rep: &mut Rep,
        h: &mut Hbm,
        step: &Step,
    ) -> Vec<Out<Write>> {
        let w_before = (self.kernel() && self.obligation(rep)).then_some(rep.wc);
        let nlog = rep.nlog;
        let mut out = self.apply_step(cfg, id, rep, h, step);
        if let Some(w) = w_before {
            self.assert_window(cfg, id, rep, w, &out);
        }
        if cfg.restarts > 0 && rep.nlog > nlog {
            // R29: a checkpoint after deciding a slot c with c mod C = 0
            // (a rerun's decision emits nothing, and writes none).
            let (c, _) = rep.log[rep.nlog as usize - 1];
            if c as usize % cfg.ckpt_every == 0 {
                let chain = (1..=c).fold(0u8, |a, j| a | dec(rep, j) << (4 * (j - 1)));
                let w = Write::Ckpt {
                    node: id as u8,
                    ck: Ckpt { c, chain },
                };
                land_write(h, &w);
                out.push(Out::All(w));
            }
        }
        if !rep.waiting() && cfg.restarts > 0 {
            // With restarts a stopped replica's HBM is kept: a rejoining
            // one may copy its registers from it.
            rep.round = Round::Idle;
        } else if !rep.waiting() {
            // Stopped (Done, Capped, Behind): it never polls again and
            // nobody reads its HBM, so the model keeps neither its mailbox
            // nor its working registers (one state for every way of
            // stopping with the same decisions; `land` ignores it from now).
            *h = Hbm::default();
            let (init, _) = self.init(cfg, id);
            *rep = Rep {
                pc: rep.pc,
                view: rep.view,
                k: rep.k,
                log: rep.log,
                nlog: rep.nlog,
                signed: std::mem::take(&mut rep.signed),
                past: rep.past,
                npast: rep.npast,
                skipped: rep.skipped,
                base: rep.base,
                ..init
            };
        }
        out
    }

    /// A silent replica keeps only its decisions and signatures (what the
    /// properties and the Byzantine replica read); its view, slot and
    /// working registers are read by nobody (the harness counts views and
    /// liveness over live replicas only).
    fn silenced(&self, cfg: &Config, id: usize, rep: &mut Rep) {
        let (init, _) = self.init(cfg, id);
        *rep = Rep {
            log: rep.log,
            nlog: rep.nlog,
            signed: std::mem::take(&mut rep.signed),
            past: rep.past,
            npast: rep.npast,
            skipped: rep.skipped,
            base: rep.base,
            ..init
        };
    }

    /// R33: a restart loses the controller's state; what the properties
    /// read (its decisions so far) moves to `past`.
    fn restart(&self, cfg: &Config, id: usize, rep: &Rep) -> Rep {
        assert!(
            cfg.byzantine.is_none()
                && cfg.slots <= 2
                && cfg.restarts as usize * cfg.slots <= MAX_SLOTS,
            "restarts: no Byzantine replica, at most two slots (the chain's byte), \
             and room for every life's decisions"
        );
        let (mut new, _) = self.init(cfg, id);
        let mut np = rep.npast as usize;
        for &(k, m) in &rep.log[..rep.nlog as usize] {
            new.past[np] = (k, m);
            np += 1;
        }
        new.past[..rep.npast as usize].copy_from_slice(&rep.past[..rep.npast as usize]);
        new.npast = np as u8;
        new.pc = Pc::Rejoin;
        new.stage = 1;
        new
    }

    fn rejoining(&self, rep: &Rep) -> bool {
        rep.pc == Pc::Rejoin
    }

    fn may_restart(&self, rep: &Rep) -> bool {
        rep.waiting() && rep.pc != Pc::Linger
    }

    /// The rounds' records (R8, R11, R21): echo_prep, echo_commit,
    /// echo_seal, and (R32) the SEAL.
    fn resent(&self, w: &Write) -> bool {
        matches!(
            w,
            Write::EchoPrep { .. }
                | Write::EchoCommit { .. }
                | Write::EchoSeal { .. }
                | Write::Seal { .. }
        )
    }

    fn past_decisions<'a>(&self, rep: &'a Rep) -> &'a [(u8, Val)] {
        &rep.past[..rep.npast as usize]
    }

    fn skipped(&self, rep: &Rep) -> usize {
        rep.skipped as usize
    }

    /// The remote read (`kernel`): n locks for its kept lock, the leader's
    /// lane from the lock itself and the others from `peer`'s will_cert
    /// row (its own rows are not read: the RTL's RemoteRead reads peers').
    fn remote_steps(
        &self,
        cfg: &Config,
        id: usize,
        rep: &Rep,
        h: &Hbm,
        peer: usize,
        ph: &Hbm,
        out: &mut Vec<Step>,
    ) {
        if rep.pc == Pc::Rejoin && rep.stage == 1 {
            // R33: the registers, and its own SEAL, as the peer holds them.
            out.push(Step::Restore(
                peer as u8,
                Regs {
                    echo_prep: ph.echo_prep,
                    echo_commit: ph.echo_commit,
                    echo_seal: ph.echo_seal,
                    own_seal: ph.seal[id],
                    ckpt: if cfg.rejoin_off & 8 != 0 {
                        ph.ckpt
                    } else {
                        [Ckpt::default(); MAX_N]
                    },
                },
            ));
            return;
        }
        if !self.remote_read() || !self.late_due(cfg, id, rep, h) {
            return;
        }
        let l = rep.late;
        let any = (!cfg.honest(peer)).then_some(peer);
        if other_locks_in(cfg, ph, l.v, l.k, l.m, any) {
            out.push(Step::RemoteShare(peer as u8));
        }
    }

    /// The remote read reads the will_cert rows of the Byzantine replica's
    /// HBM too: honest will_cert votes are kept there.
    fn kept_at_byzantine(&self, w: &Write) -> bool {
        self.remote_read() && matches!(w, Write::WillCert { .. })
    }

    fn land(&self, cfg: &Config, _dst: usize, rep: &mut Rep, h: &mut Hbm, _src: usize, w: &Write) {
        if rep.waiting() || cfg.restarts > 0 {
            // Without restarts a stopped replica's mailbox is not kept.
            land_write(h, w);
        }
    }

    /// Just in time: what the Byzantine replica may write into the records
    /// `dst`'s next poll reads. Its own entries only (the guard), anything
    /// it signs itself, and copies of what honest replicas signed (their
    /// `signed` logs): never an honest signature on something unsigned. A
    /// certificate it assembles needs f + 1 signers of the block, itself
    /// included.
    fn forgeries(
        &self,
        cfg: &Config,
        byz: usize,
        dst: usize,
        reps: &[Rep],
        hbms: &[Hbm],
        out: &mut Vec<Write>,
    ) {
        let d = &reps[dst];
        let h = &hbms[dst];
        let b = byz as u8;
        let start = out.len();
        let honest = |j: usize| j != byz;
        // Honest signers of a CERT block.
        let signers = |blk: &Block| {
            (0..cfg.n)
                .filter(|&j| honest(j) && reps[j].signed.shares.contains(blk))
                .count()
        };
        let certifiable = |blk: &Block| signers(blk) + 1 >= self.cert_need(cfg);
        let mut shared: Vec<Block> = vec![];
        for j in (0..cfg.n).filter(|&j| honest(j)) {
            for s in &reps[j].signed.shares {
                add(&mut shared, *s);
            }
        }
        let mut certified: Vec<Block> = shared.iter().copied().filter(|x| certifiable(x)).collect();
        if self.cert_need(cfg) <= 1 {
            // Its own share alone is a certificate (variant cert_f, f = 1):
            // any block of its choosing for the slots dst reads.
            for k in [d.k, d.k + 1] {
                for m in 1..=cfg.values {
                    for prev in 0..=cfg.values {
                        add(
                            &mut certified,
                            Block {
                                v: d.view,
                                k,
                                m,
                                prev,
                            },
                        );
                        add(
                            &mut shared,
                            Block {
                                v: d.view,
                                k,
                                m,
                                prev,
                            },
                        );
                    }
                }
            }
        }
        let s = cfg.slot(d.k);
        match d.round {
            Round::Echo(blk) => {
                // A conflicting block the leader signed (only if it leads).
                if cfg.leader(blk.v) == byz {
                    for m in 1..=cfg.values {
                        if m != blk.m {
                            out.push(Write::EchoPrep {
                                slot: s as u8,
                                node: b,
                                b: Block { m, ..blk },
                            });
                        }
                    }
                }
            }
            Round::Commit(x, c) => {
                // A SEAL of x of a view ≥ w, echoed: x's own if x is honest.
                let x = x as usize;
                if x == byz {
                    out.push(Write::EchoSeal {
                        x: b,
                        node: b,
                        s: Seal {
                            v: c.v,
                            l: Block::NONE,
                        },
                    });
                } else {
                    for sl in reps[x].signed.seals.iter().filter(|sl| sl.v >= c.v) {
                        out.push(Write::EchoSeal {
                            x: x as u8,
                            node: b,
                            s: *sl,
                        });
                    }
                }
            }
            Round::Nv(_) | Round::Collect(_) => {
                // A COMMIT of x above the seal's L, echoed.
                let seals: Vec<(usize, Seal)> = match d.round {
                    Round::Nv(nv) => nv.seals().collect(),
                    Round::Collect(c) => c
                        .iter()
                        .enumerate()
                        .filter_map(|(x, s)| s.map(|s| (x, s)))
                        .collect(),
                    _ => unreachable!(),
                };
                for (x, sl) in seals {
                    let cands: Vec<Block> = if x == byz {
                        certified.clone()
                    } else {
                        reps[x].signed.commits.clone()
                    };
                    for c in cands.into_iter().filter(|c| c.above(&sl.l)) {
                        out.push(Write::EchoCommit {
                            x: x as u8,
                            node: b,
                            b: c,
                        });
                    }
                }
            }
            Round::Idle if d.waiting() => {
                // A will_commit that completes a full row.
                let row = &h.will_commit[s][..cfg.n];
                let others: Vec<&Vote> =
                    (0..cfg.n).filter(|&j| j != byz).map(|j| &row[j]).collect();
                if let Some(e) = others.first() {
                    if e.k == d.k && others.iter().all(|x| vote_matches(x, e.v, e.k, e.m)) {
                        out.push(Write::WillCommit {
                            slot: s as u8,
                            node: b,
                            v: **e,
                        });
                    }
                }
                // Its COMMIT of a certified block of slot k or k + 1; its
                // share on a block other replicas certified there.
                for c in certified.iter().filter(|c| c.k == d.k || c.k == d.k + 1) {
                    out.push(Write::Commit {
                        slot: cfg.slot(c.k) as u8,
                        node: b,
                        b: *c,
                    });
                }
                for c in shared.iter().filter(|c| c.k == d.k || c.k == d.k + 1) {
                    out.push(Write::Certify {
                        slot: cfg.slot(c.k) as u8,
                        node: b,
                        b: *c,
                    });
                }
                // Its SEAL of this view (the f + 1 trigger).
                if d.view <= cfg.views {
                    out.push(Write::Seal {
                        node: b,
                        s: Seal {
                            v: d.view,
                            l: Block::NONE,
                        },
                    });
                }
                let leads = cfg.leader(d.view) == byz;
                if d.working() && leads {
                    let prev = dec(d, d.k - 1);
                    let ms: Vec<Val> = (1..=cfg.values).chain(std::iter::once(FORGED)).collect();
                    for &m in &ms {
                        out.push(Write::Prepare {
                            slot: s as u8,
                            b: Block {
                                v: d.view,
                                k: d.k,
                                m,
                                prev,
                            },
                        });
                    }
                    let wrong = if prev == 1 { 2 } else { 1 };
                    for m in 1..=cfg.values {
                        for p in [prev, wrong] {
                            out.push(Write::PrepSig {
                                slot: s as u8,
                                b: Block {
                                    v: d.view,
                                    k: d.k,
                                    m,
                                    prev: p,
                                },
                            });
                        }
                    }
                }
                if matches!(d.pc, Pc::Cert | Pc::Slow) && !leads {
                    for m in [d.m, FORGED] {
                        out.push(Write::WillCert {
                            slot: s as u8,
                            node: b,
                            v: Vote {
                                v: d.view,
                                k: d.k,
                                m,
                            },
                        });
                    }
                }
                if d.pc == Pc::AwaitNv {
                    // Its SEAL for the new leader's collection.
                    if cfg.leader(d.view) == dst {
                        for l in std::iter::once(Block::NONE).chain(certified.iter().copied()) {
                            out.push(Write::Seal {
                                node: b,
                                s: Seal { v: d.view - 1, l },
                            });
                        }
                    }
                    if leads {
                        self.forge_new_views(cfg, byz, d.view, reps, &certified, out);
                    }
                }
            }
            Round::Idle | Round::Seal => {}
        }
        // Only writes that change something.
        let mut i = start;
        while i < out.len() {
            let mut t = h.clone();
            let mut r = d.clone();
            self.land(cfg, dst, &mut r, &mut t, byz, &out[i]);
            if t == *h || out[start..i].contains(&out[i]) {
                out.remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn allowed(&self, cfg: &Config, src: usize, w: &Write) -> bool {
        let s = src as u8;
        match *w {
            Write::Prepare { b, .. } | Write::PrepSig { b, .. } => cfg.leader(b.v) == src,
            Write::NewView { nv } => cfg.leader(nv.view) == src,
            Write::WillCert { node, .. }
            | Write::WillCommit { node, .. }
            | Write::EchoPrep { node, .. }
            | Write::Certify { node, .. }
            | Write::Commit { node, .. }
            | Write::EchoCommit { node, .. }
            | Write::Seal { node, .. }
            | Write::EchoSeal { node, .. }
            | Write::Ckpt { node, .. } => node == s,
        }
    }

    fn decisions<'a>(&self, rep: &'a Rep) -> &'a [(u8, Val)] {
        &rep.log[..rep.nlog as usize]
    }

    fn view(&self, rep: &Rep) -> u8 {
        rep.view
    }

    fn capped(&self, rep: &Rep) -> bool {
        rep.pc == Pc::Capped
    }

    fn last_slot_live(&self) -> bool {
        true
    }

    fn is_timeout(&self, step: &Step) -> bool {
        *step == Step::Timeout
    }

    fn describe_step(&self, cfg: &Config, id: usize, rep: &Rep, h: &Hbm, step: &Step) -> String {
        let s = cfg.slot(rep.k);
        let mut t = rep.clone();
        let mut th = h.clone();
        let outs = self.apply(cfg, id, &mut t, &mut th, step);
        let at = format!("{:?} (view {}, k {})", rep.pc, rep.view, rep.k);
        let head = match *step {
            Step::Propose(m) => format!("{at} R3: proposes {}", val_name(m)),
            Step::Lock => format!("{at} R4 reads prepare[{s}] = {} → locks", blk(&h.prepare[s])),
            Step::LateShare => format!(
                "{at} late share: reads will_cert[{s}] = [{}] with prepare[{s}] = {} → n locks for its sealed lock (tag({},{}), {}): delivered, R9 certifies (no vote, no COMMIT)",
                votes(&h.will_cert[s][..cfg.n]),
                blk(&h.prepare[s]),
                rep.late.v,
                rep.late.k,
                val_name(rep.late.m)
            ),
            Step::RemoteShare(p) => format!(
                "{at} remote read: reads r{p}'s will_cert[{s}] (an RDMA READ of its mailbox) → with its own lock on leader({})'s PREPARE, n locks for its sealed lock (tag({},{}), {}): delivered, R9 certifies (no vote, no COMMIT)",
                rep.late.v,
                rep.late.v,
                rep.late.k,
                val_name(rep.late.m)
            ),
            Step::FastDeliver | Step::SealDeliver => {
                let (rule, what) = if *step == Step::FastDeliver {
                    ("R5", "delivered (fast)")
                } else {
                    (
                        "R16 (sealing)",
                        "delivered (fast, no will_commit), R9 certifies",
                    )
                };
                format!(
                    "{at} {rule} reads will_cert[{s}] = [{}] with prepare[{s}] = {} → n locks for (tag({},{}), {}): {what}",
                    votes(&h.will_cert[s][..cfg.n]),
                    blk(&h.prepare[s]),
                    rep.view,
                    rep.k,
                    val_name(rep.m)
                )
            }
            Step::FastDecide => format!(
                "{at} R6/R26 reads will_commit[{s}] = [{}] → full row",
                votes(&h.will_commit[s][..cfg.n])
            ),
            Step::Echo => format!(
                "{at} R8.1 reads prep_sig[{s}] = σ_r{}{} → echoes it (round)",
                cfg.leader(rep.view),
                blk(&h.prep_sig[s])
            ),
            Step::EchoCheck => {
                let Round::Echo(b) = rep.round else { unreachable!() };
                format!(
                    "{at} R8.2 reads echo_prep[{s}] = [{}] after its round → {}",
                    blocks(&h.echo_prep[s][..cfg.n]),
                    if t.refused {
                        "another valid block for the same (v, k): the leader equivocated, never delivers".to_string()
                    } else {
                        format!("delivered {} (slow), R9 certifies", blk(&b))
                    }
                )
            }
            Step::Commit | Step::BridgeCommit => {
                let c = if *step == Step::Commit {
                    self.commit_candidate(cfg, rep, h).unwrap()
                } else {
                    self.bridge_block(rep)
                };
                format!(
                    "{at} {} reads certify[{}] = [{}], commit[{}] = [{}] → certificate for {} → commits",
                    if *step == Step::Commit {
                        "R10"
                    } else if rep.pc == Pc::Close {
                        "R28 close"
                    } else {
                        "R17 bridge"
                    },
                    cfg.slot(c.k),
                    blocks(&h.certify[cfg.slot(c.k)][..cfg.n]),
                    cfg.slot(c.k),
                    blocks(&h.commit[cfg.slot(c.k)][..cfg.n]),
                    blk(&c)
                )
            }
            Step::DeliverCommit(x) => format!(
                "{at} R11.1 reads commit[{s}][{x}] = COMMIT {} by r{x} → echoes it (round)",
                blk(&h.commit[s][x as usize])
            ),
            Step::CommitCheck => {
                let Round::Commit(x, c) = rep.round else { unreachable!() };
                let x = x as usize;
                // (A decision resets the counts: it counted this one.)
                let sealed = t.nlog == rep.nlog && t.dcount & (1 << x) == 0;
                format!(
                    "{at} R11.3 reads seal[{x}] = {}, echo_seal[{x}] = [{}] after its round → {} r{x}'s COMMIT {}",
                    seal_text(&h.seal[x]),
                    h.echo_seal[x][..cfg.n].iter().map(seal_text).collect::<Vec<_>>().join(", "),
                    if sealed { "r{x} sealed its view: never counts" } else { "counts" },
                    blk(&c)
                )
                .replace("r{x}", &format!("r{x}"))
            }
            Step::CatchAbove => format!(
                "{at} R24 finds a certificate for slot {} (commit[{}] = [{}], certify = [{}], new_view {}) → dec[{}] = its prev",
                rep.k + 1,
                cfg.slot(rep.k + 1),
                blocks(&h.commit[cfg.slot(rep.k + 1)][..cfg.n]),
                blocks(&h.certify[cfg.slot(rep.k + 1)][..cfg.n]),
                nv_text(&h.new_view),
                rep.k
            ),
            Step::HelpShare(b) => format!(
                "{at} the decider's share: decided k {} = {} on a block of view {}, reads will_commit[{}] = [{}] → certifies the bridger's block: CERT {}",
                b.k,
                val_name(b.m),
                rep.wd[b.k as usize].saturating_sub(1),
                cfg.slot(b.k),
                votes(&h.will_commit[cfg.slot(b.k)][..cfg.n]),
                blk(&b)
            ),
            Step::CloseShare if rep.close.is() => format!(
                "{at} R28 (in the view) decided the run's last slot → certifies it in its view: CERT {}",
                blk(&rep.prev1)
            ),
            Step::CloseShare => format!(
                "{at} R28 decided the run's last slot fast → certifies it: CERT {}",
                blk(&rep.prev1)
            ),
            Step::CloseCommit => {
                let c = self.close_cert(cfg, rep, h).unwrap();
                format!(
                    "{at} R28 (in the view) reads certify[{}] = [{}], commit[{}] = [{}] → certificate for {} → commits, stops",
                    cfg.slot(c.k),
                    blocks(&h.certify[cfg.slot(c.k)][..cfg.n]),
                    cfg.slot(c.k),
                    blocks(&h.commit[cfg.slot(c.k)][..cfg.n]),
                    blk(&c)
                )
            }
            Step::Behind => format!("{at} R27 sees a COMMIT or certificate outside its window → BEHIND_WINDOW"),
            Step::Trigger => format!(
                "{at} R14 reads seal = [{}] → f + 1 SEALs of views ≥ {}: view change (R15, R16)",
                h.seal[..cfg.n].iter().map(seal_text).collect::<Vec<_>>().join(", "),
                rep.view
            ),
            Step::Seal => format!(
                "{at} R18{} → seals with L = {}",
                if self.obligation(rep) { " (R17 discharged by a certificate for slot b + 1)" } else { "" },
                blk(&rep.l)
            ),
            Step::Collect => format!(
                "{at} R19 reads seal = [{}] → checks them (R21 round)",
                h.seal[..cfg.n].iter().map(seal_text).collect::<Vec<_>>().join(", ")
            ),
            Step::CollectCheck => format!(
                "{at} R19/R21 reads echo_commit = [{}] after its round → {}",
                (0..cfg.n)
                    .map(|x| format!("r{x}: {}", blocks(&h.echo_commit[x][..cfg.n])))
                    .collect::<Vec<_>>()
                    .join("; "),
                if t.nv_ok { "writes NEW_VIEW and installs it" } else { "too few seals pass (or no certificate for the highest L)" }
            ),
            Step::ReadNv => format!("{at} R22 reads new_view = {}", nv_text(&h.new_view)),
            Step::NvCheck => {
                let Round::Nv(nv) = rep.round else { unreachable!() };
                format!(
                    "{at} R21/R22 reads echo_commit of the seals' signers = [{}] after its round → {}",
                    nv.seals()
                        .map(|(x, _)| format!("r{x}: {}", blocks(&h.echo_commit[x][..cfg.n])))
                        .collect::<Vec<_>>()
                        .join("; "),
                    if t.nv_ok && t.view == nv.view {
                        format!("accepts NEW_VIEW({}): constraint {}", nv.view, blk(&nv.constraint()))
                    } else if t.pend.is_some() {
                        format!("accepts NEW_VIEW({}), seals its way up to it (R14)", nv.view)
                    } else {
                        "refuses it".to_string()
                    }
                )
            }
            Step::SealLanded => format!("{at} R32: its SEAL is in every HBM"),
            Step::Restore(p, regs) => format!(
                "{at} R33 reads r{p}'s echo_prep, echo_commit and echo_seal (an RDMA READ) and merges them into its own; r{p} holds its SEAL {} → acts from view {} on",
                seal_text(&regs.own_seal),
                t.fence
            ),
            Step::Install => format!(
                "{at} R33 reads ckpt = [{}] → installs k{} (the host fetches slots up to it), seals view {} with the floor as L",
                ckpts(&h.ckpt[..cfg.n]),
                t.base.c,
                rep.fence.saturating_sub(1)
            ),
            Step::Floor => format!(
                "{at} R30 reads ckpt = [{}] → a certificate at or above its bridge's slot: L = its floor, the bridge ends",
                ckpts(&h.ckpt[..cfg.n])
            ),
            Step::Skip => format!(
                "{at} R31 reads ckpt = [{}] → skips to k{}",
                ckpts(&h.ckpt[..cfg.n]),
                t.k
            ),
            Step::Timeout => format!(
                "{at}{} → {}",
                if rep.pc == Pc::AwaitNv { " (no NEW_VIEW within T_vc)" } else { "" },
                if t.pc == Pc::Slow {
                    "the slow path (R7, R9)".to_string()
                } else if t.pc == Pc::Capped {
                    "view bound reached: stops".to_string()
                } else {
                    "view change (R14, R15, R16)".to_string()
                }
            ),
        };
        let mut line = head;
        for o in &outs {
            let (Out::All(w) | Out::Local(w)) = o;
            line += &format!("; writes {}", self.describe_write(cfg, id, w));
        }
        if t.nlog > rep.nlog {
            let (k, m) = t.log[t.nlog as usize - 1];
            line += &format!("; decides k {k} = {}", val_name(m));
            if t.wc_done && !rep.wc_done && self.obligation(rep) {
                line += &format!(
                    "; R17: its will_commit {} is discharged (another value decided at k {k})",
                    vote(&rep.wc)
                );
            }
        } else if t.k > rep.k && rep.rerun {
            line += &format!("; reran k {} (no second decision, R23)", rep.k);
        }
        if t.rerun && !rep.rerun {
            line += &format!("; steps back to k {} (R23 rerun)", t.k);
        }
        if t.pc != rep.pc || t.view != rep.view {
            line += &format!(" [→ {:?}, view {}]", t.pc, t.view);
        }
        line
    }

    fn describe_write(&self, cfg: &Config, _src: usize, w: &Write) -> String {
        if let Write::Ckpt { node, ck } = *w {
            return format!(
                "ckpt[{node}] = CKPT(r{node}, k{}, chain [{}]) {:x?}",
                ck.c,
                (1..=ck.c)
                    .map(|j| val_name(chain_dec(ck.chain, j)))
                    .collect::<Vec<_>>()
                    .join(", "),
                w.words(cfg)
            );
        }
        let (addr, words) = (address(&mailbox(cfg), w), w.words(cfg));
        let ws: Vec<String> = words.iter().map(|x| format!("{x:#x}")).collect();
        let at = format!("{{@{addr}: [{}]}}", ws.join(", "));
        match *w {
            Write::Prepare { slot, b } => format!("prepare[{slot}] = {} {at}", blk(&b)),
            Write::PrepSig { slot, b } => format!("prep_sig[{slot}] = σ(PREP {}) {at}", blk(&b)),
            Write::WillCert { slot, node, v } => {
                format!("will_cert[{slot}][{node}] = {} {at}", vote(&v))
            }
            Write::WillCommit { slot, node, v } => {
                format!("will_commit[{slot}][{node}] = {} {at}", vote(&v))
            }
            Write::EchoPrep { slot, node, b } => {
                format!("echo_prep[{slot}][{node}] = {} {at}", blk(&b))
            }
            Write::Certify { slot, node, b } => {
                format!("certify[{slot}][{node}] = share {} {at}", blk(&b))
            }
            Write::Commit { slot, node, b } => {
                format!("commit[{slot}][{node}] = COMMIT {} {at}", blk(&b))
            }
            Write::EchoCommit { x, node, b } => {
                format!("echo_commit[{x}][{node}] = COMMIT {} {at}", blk(&b))
            }
            Write::Seal { node, s } => format!(
                "seal[{node}] = SEAL(r{node}, view {}, L {}) {at}",
                s.v,
                blk(&s.l)
            ),
            Write::EchoSeal { x, node, s } => {
                format!(
                    "echo_seal[{x}][{node}] = SEAL(r{x}, view {}, L {}) {at}",
                    s.v,
                    blk(&s.l)
                )
            }
            Write::NewView { nv } => format!("new_view = {} {at}", nv_text(&Some(nv))),
            Write::Ckpt { .. } => unreachable!(),
        }
    }

    fn describe_replica(&self, _cfg: &Config, rep: &Rep) -> String {
        format!(
            "{:?}{} view {} k {} m {} phase {} delivered {} L {} will_commit {} constraint {}{}",
            rep.pc,
            if rep.round != Round::Idle {
                " (in a round)"
            } else {
                ""
            },
            rep.view,
            rep.k,
            val_name(rep.m),
            rep.phase,
            blk(&rep.dlv),
            blk(&rep.l),
            vote(&rep.wc),
            if rep.nv_ok {
                blk(&rep.cons)
            } else {
                "(no NEW_VIEW yet)".into()
            },
            if rep.rerun { " (rerun)" } else { "" }
        )
    }
}

fn blk(b: &Block) -> String {
    if !b.is() {
        "-".into()
    } else {
        format!(
            "(v{}, k{}, {}, prev {})",
            b.v,
            b.k,
            val_name(b.m),
            val_name(b.prev)
        )
    }
}

/// A ckpt region in a trace line: each replica's checkpoint slot and
/// chain.
fn ckpts(cs: &[Ckpt]) -> String {
    cs.iter()
        .map(|c| format!("k{}:{:#x}", c.c, c.chain))
        .collect::<Vec<_>>()
        .join(", ")
}

fn blocks(bs: &[Block]) -> String {
    bs.iter().map(blk).collect::<Vec<_>>().join(", ")
}

fn vote(v: &Vote) -> String {
    if v.k == 0 {
        "-".into()
    } else {
        format!("(tag({},{}), {})", v.v, v.k, val_name(v.m))
    }
}

fn votes(vs: &[Vote]) -> String {
    vs.iter().map(vote).collect::<Vec<_>>().join(", ")
}

fn seal_text(s: &Option<Seal>) -> String {
    match s {
        None => "-".into(),
        Some(s) => format!("(view {}, L {})", s.v, blk(&s.l)),
    }
}

fn nv_text(nv: &Option<Nv>) -> String {
    match nv {
        None => "-".into(),
        Some(nv) => format!(
            "NEW_VIEW({}) [{}]{}",
            nv.view,
            nv.seals()
                .map(|(x, s)| format!("r{x}: {}", seal_text(&Some(s))))
                .collect::<Vec<_>>()
                .join(", "),
            if nv.cert_ok {
                ""
            } else {
                " (invalid certificate)"
            }
        ),
    }
}

/// The f-subsets of 0..len, in order.
/// The leader's NEW_VIEW(`view`) of its own seal and `others`, the seals
/// in ascending replica order (R19).
fn new_view(view: u8, own: (usize, Seal), others: impl Iterator<Item = (usize, Seal)>) -> Nv {
    let mut nv = Nv {
        view,
        len: 0,
        who: [0; MAX_F1],
        seals: [Seal::default(); MAX_F1],
        cert_ok: true,
    };
    let mut all: Vec<(usize, Seal)> = vec![own];
    all.extend(others);
    all.sort();
    for (i, (x, sl)) in all.iter().enumerate() {
        nv.who[i] = *x as u8;
        nv.seals[i] = *sl;
    }
    nv.len = all.len() as u8;
    nv
}

fn combos(len: usize, f: usize) -> Vec<Vec<usize>> {
    let mut out = vec![];
    let mut cur = vec![];
    fn go(i: usize, len: usize, f: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == f {
            out.push(cur.clone());
            return;
        }
        for j in i..len {
            cur.push(j);
            go(j + 1, len, f, cur, out);
            cur.pop();
        }
    }
    go(0, len, f, &mut cur, &mut out);
    out
}

impl Recovery {
    /// D11.9 V4, after the R21 round: every chosen seal passed (else it polls
    /// the seal row again); the certificate of the highest L is `x_T`'s
    /// COMMIT record, or its own COMMIT when `x_T` = id; else `x_T` fails.
    fn collect_rtl(
        &self,
        cfg: &Config,
        id: usize,
        rep: &mut Rep,
        h: &Hbm,
        own: Seal,
        pass: &[(usize, Seal)],
    ) -> Vec<Out<Write>> {
        if pass.len() < cfg.f() {
            return vec![];
        }
        let nv = new_view(rep.view, (id, own), pass.iter().copied());
        let c = nv.constraint();
        if c.is() {
            let (xt, st) = nv.seals().find(|(_, s)| s.l == c).expect("x_T");
            if xt != id && !c.floor() && h.commit[cfg.slot(c.k)][xt] != c {
                rep.failed[xt] = Some(st);
                return vec![];
            }
        }
        let mut out = vec![Out::All(Write::NewView { nv })];
        if !self.install(cfg, id, rep, &nv) {
            out.extend(self.vc_start(cfg, id, rep));
        }
        out
    }

    /// R22 answered at `dst` after the Byzantine replica wrote NEW_VIEW(v):
    /// malformed (at once), or not.
    fn refuse_nv(&self, cfg: &Config, id: usize, rep: &mut Rep, nv: Nv) -> Vec<Out<Write>> {
        rep.nv_refused = Some(nv);
        rep.pend = None;
        if rep.pc == Pc::AwaitNv && nv.view == rep.view {
            self.vc_start(cfg, id, rep)
        } else {
            vec![]
        }
    }

    /// The NEW_VIEW(v)s a Byzantine leader of v may write: f + 1 seals of
    /// distinct replicas of views ≥ v − 1 (its own with any certified L or
    /// none; honest ones it has seen), with the certificate of the highest
    /// L if it can assemble one; and one malformed NEW_VIEW.
    fn forge_new_views(
        &self,
        cfg: &Config,
        byz: usize,
        v: u8,
        reps: &[Rep],
        certified: &[Block],
        out: &mut Vec<Write>,
    ) {
        let mut per: Vec<Vec<Seal>> = vec![vec![]; cfg.n];
        for x in 0..cfg.n {
            if x == byz {
                per[x].push(Seal {
                    v: v - 1,
                    l: Block::NONE,
                });
                for c in certified {
                    per[x].push(Seal { v: v - 1, l: *c });
                }
            } else {
                per[x] = reps[x]
                    .signed
                    .seals
                    .iter()
                    .copied()
                    .filter(|s| s.v + 1 >= v)
                    .collect();
            }
        }
        for who in combos(cfg.n, cfg.f() + 1) {
            let mut sets: Vec<Vec<Seal>> = vec![vec![]];
            for &x in &who {
                let mut next = vec![];
                for pre in &sets {
                    for s in &per[x] {
                        let mut p = pre.clone();
                        p.push(*s);
                        next.push(p);
                    }
                }
                sets = next;
            }
            for set in sets {
                let mut nv = Nv {
                    view: v,
                    len: who.len() as u8,
                    who: [0; MAX_F1],
                    seals: [Seal::default(); MAX_F1],
                    cert_ok: true,
                };
                for (i, (&x, s)) in who.iter().zip(set.iter()).enumerate() {
                    nv.who[i] = x as u8;
                    nv.seals[i] = *s;
                }
                let c = nv.constraint();
                nv.cert_ok = !c.is() || certified.contains(&c);
                out.push(Write::NewView { nv });
            }
        }
        out.push(Write::NewView {
            nv: Nv {
                view: v,
                len: 0,
                who: [0; MAX_F1],
                seals: [Seal::default(); MAX_F1],
                cert_ok: false,
            },
        });
    }
}

/// The v3 mailbox (`rhdl_ubft::layout::Mailbox::v3`, section 13) for this
/// model's n and G, with Ed25519 shares of one beat.
pub fn mailbox(cfg: &Config) -> Mailbox {
    Mailbox::v3(cfg.n, cfg.window, 1)
}

/// The first word a write lands on in `mb` (a v3 mailbox).
pub fn address(mb: &Mailbox, w: &Write) -> usize {
    let (r, i, j) = match *w {
        Write::Prepare { slot, .. } => (Region::Prepare, slot as usize, 0),
        Write::PrepSig { slot, .. } => (Region::PrepSig, slot as usize, 0),
        Write::WillCert { slot, node, .. } => {
            return mb.vote(Region::WillCert, slot as usize, node as usize)
        }
        Write::WillCommit { slot, node, .. } => {
            return mb.vote(Region::WillCommit, slot as usize, node as usize)
        }
        Write::EchoPrep { slot, node, .. } => (Region::EchoPrep, slot as usize, node as usize),
        Write::Certify { slot, node, .. } => (Region::Certify, slot as usize, node as usize),
        Write::Commit { slot, node, .. } => (Region::Commit, slot as usize, node as usize),
        Write::EchoCommit { x, node, .. } => (Region::EchoCommit, x as usize, node as usize),
        Write::Seal { node, .. } => (Region::Seal, 0, node as usize),
        Write::EchoSeal { x, node, .. } => (Region::EchoSeal, x as usize, node as usize),
        Write::NewView { .. } => (Region::NewViewRecord, 0, 0),
        Write::Ckpt { .. } => unreachable!("a checkpoint has no place in the v3 mailbox"),
    };
    mb.record(r, i, j)
}

impl Write {
    /// The record's words as v3 lays them out (`rhdl_ubft::layout::records`:
    /// the first beat starts with the signed block of section 3, kind first),
    /// up to the first signature, which is shown as one word
    /// `0x5160_0000 | kind << 8 | signer` standing for its beats (0xff: the
    /// leader of the block's view). A commit shows its own signature only (the
    /// shares follow it in HBM); a NEW_VIEW its first beat and its seals.
    pub fn words(&self, _cfg: &Config) -> Vec<u32> {
        if let Write::Ckpt { node, ck } = *self {
            // Not in v3: [kind 5, j, c, chain], and j's signature.
            return vec![5, node as u32, ck.c as u32, ck.chain as u32, sig5(node)];
        }
        let sig = |kind: u32, who: u8| 0x5160_0000 | kind << 8 | who as u32;
        let block = |kind: u32, b: &Block| {
            records::block(kind, b.v as u32, b.k as u32, b.m as u32, b.prev as u32).to_vec()
        };
        let commit = |j: u8, b: &Block| {
            records::commit_block(j as u32, b.v as u32, b.k as u32, b.m as u32, b.prev as u32)
                .to_vec()
        };
        let seal = |j: u32, s: &Seal| {
            let l = s.l;
            let l = l
                .is()
                .then_some([l.v as u32, l.k as u32, l.m as u32, l.prev as u32]);
            records::seal_block(j, s.v as u32, l).to_vec()
        };
        match *self {
            Write::Prepare { b, .. } => {
                let mut w = vec![0u32; 4];
                w[records::PREPARE_K] = b.k as u32;
                w[records::PREPARE_M] = b.m as u32;
                w[records::PREPARE_V] = b.v as u32;
                w[records::PREPARE_PREV] = b.prev as u32;
                w
            }
            Write::WillCert { v, .. } | Write::WillCommit { v, .. } => {
                vec![vote_tag(v.v as u32, v.k as u32), v.m as u32]
            }
            Write::PrepSig { b, .. } | Write::EchoPrep { b, .. } => {
                let mut w = block(records::KIND_PREP, &b);
                w.push(sig(records::KIND_PREP, 0xff));
                w
            }
            Write::Certify { node, b, .. } => {
                let mut w = block(records::KIND_CERT, &b);
                w.push(sig(records::KIND_CERT, node));
                w
            }
            Write::Commit { node, b, .. } | Write::EchoCommit { x: node, b, .. } => {
                let mut w = commit(node, &b);
                w.push(sig(records::KIND_COMMIT, node));
                w
            }
            Write::Seal { node, s } | Write::EchoSeal { x: node, s, .. } => {
                let mut w = seal(node as u32, &s);
                w.push(sig(records::KIND_SEAL, node));
                w
            }
            Write::NewView { nv } => {
                let mut w = vec![0u32; 3];
                w[records::NV_VIEW] = nv.view as u32;
                w[records::NV_SEALS] = nv.seals().map(|(x, _)| 1u32 << x).fold(0, |a, b| a | b);
                // The model keeps whether the carried certificate checks out,
                // not its signers: bit 31 stands for a valid one.
                w[records::NV_CERT] = (nv.cert_ok as u32) << 31;
                for (x, s) in nv.seals() {
                    w.extend(seal(x as u32, &s));
                    w.push(sig(records::KIND_SEAL, x as u8));
                }
                w
            }
            Write::Ckpt { .. } => unreachable!("returned above"),
        }
    }
}

/// The stand-in word for a checkpoint's signature (see [`Write::words`]).
fn sig5(who: u8) -> u32 {
    0x5160_0000 | 5 << 8 | who as u32
}

/// f as the model uses it (re-exported for tests).
pub fn f_of(n: usize) -> usize {
    faults(n)
}

/// A write lands in a mailbox.
fn land_write(h: &mut Hbm, w: &Write) {
    match *w {
        Write::Prepare { slot, b } => h.prepare[slot as usize] = b,
        Write::PrepSig { slot, b } => h.prep_sig[slot as usize] = b,
        Write::WillCert { slot, node, v } => h.will_cert[slot as usize][node as usize] = v,
        Write::WillCommit { slot, node, v } => h.will_commit[slot as usize][node as usize] = v,
        Write::EchoPrep { slot, node, b } => h.echo_prep[slot as usize][node as usize] = b,
        Write::Certify { slot, node, b } => h.certify[slot as usize][node as usize] = b,
        Write::Commit { slot, node, b } => h.commit[slot as usize][node as usize] = b,
        Write::EchoCommit { x, node, b } => h.echo_commit[x as usize][node as usize] = b,
        Write::Seal { node, s } => h.seal[node as usize] = Some(s),
        Write::EchoSeal { x, node, s } => h.echo_seal[x as usize][node as usize] = Some(s),
        Write::NewView { nv } => h.new_view = Some(nv),
        Write::Ckpt { node, ck } => h.ckpt[node as usize] = ck,
    }
}

impl Recovery {
    fn apply_step(
        &self,
        cfg: &Config,
        id: usize,
        rep: &mut Rep,
        h: &mut Hbm,
        step: &Step,
    ) -> Vec<Out<Write>> {
        let s = cfg.slot(rep.k) as u8;
        let node = id as u8;
        match *step {
            Step::Propose(m) => {
                let b = Block {
                    v: rep.view,
                    k: rep.k,
                    m,
                    prev: dec(rep, rep.k - 1),
                };
                rep.m = m;
                rep.phase = 1;
                rep.proposed = m;
                rep.pc = Pc::Cert;
                vec![Out::All(Write::Prepare { slot: s, b })]
            }
            Step::Lock => {
                let p = h.prepare[s as usize];
                rep.m = p.m;
                rep.phase = 1;
                rep.pc = Pc::Cert;
                vec![Out::All(Write::WillCert {
                    slot: s,
                    node,
                    v: Vote {
                        v: rep.view,
                        k: rep.k,
                        m: p.m,
                    },
                })]
            }
            Step::FastDeliver | Step::SealDeliver => {
                // R5 (n locks), while working or (R16) while sealing.
                let b = Block {
                    v: rep.view,
                    k: rep.k,
                    m: rep.m,
                    prev: dec(rep, rep.k - 1),
                };
                rep.dlv = b;
                rep.fast = true;
                rep.dk = true;
                rep.phase = 2;
                if *step == Step::SealDeliver {
                    // No vote while sealing (R15): certify at once (R9).
                    rep.cert_done = true;
                    self.sign_share(cfg, rep, b);
                    return vec![Out::All(Write::Certify { slot: s, node, b })];
                }
                let v = Vote {
                    v: rep.view,
                    k: rep.k,
                    m: rep.m,
                };
                rep.wc = v;
                rep.wc_prev = dec(rep, rep.k - 1);
                rep.wc_done = false;
                if rep.pc == Pc::Cert {
                    rep.pc = Pc::CommitWait;
                }
                vec![Out::All(Write::WillCommit { slot: s, node, v })]
            }
            Step::FastDecide => {
                let m = self.full_row_seen(cfg, rep, h).expect("a full row");
                let w = h.will_commit[cfg.slot(rep.k)][0].v;
                self.decide(cfg, id, rep, m, Some(w));
                vec![]
            }
            Step::Echo => {
                let b = self.echoable(cfg, id, rep, h).expect("echoable");
                rep.round = Round::Echo(b);
                vec![Out::All(Write::EchoPrep { slot: s, node, b })]
            }
            Step::EchoCheck => {
                let Round::Echo(b) = rep.round else {
                    unreachable!()
                };
                rep.round = Round::Idle;
                let conflict = h.echo_prep[s as usize][..cfg.n]
                    .iter()
                    .any(|e| e.v == b.v && e.k == b.k && *e != b);
                // Moved on meanwhile (a catch-up decided the slot): nothing.
                if b.k != rep.k || b.v != rep.view {
                    return vec![];
                }
                if conflict {
                    rep.refused = true;
                    return vec![];
                }
                rep.dlv = b;
                rep.fast = false;
                rep.dk = true;
                rep.cert_done = true;
                // With nothing locked (phase 0), the delivered value is its
                // lock from now on (the RTL's `set_m` := m′, recovery.md D11.3): else
                // R4 could lock another value at (v, k) and so complete a
                // fast delivery of it, against Lemma 1's fast/slow case
                // ("R8 delivers only the locked value").
                if rep.m == 0 && self.variant != Variant::LooseR8 {
                    rep.m = b.m;
                }
                self.sign_share(cfg, rep, b);
                vec![Out::All(Write::Certify { slot: s, node, b })]
            }
            Step::Commit => {
                let c = self.commit_candidate(cfg, rep, h).expect("a certificate");
                self.commit(cfg, id, rep, c)
            }
            Step::LateShare | Step::RemoteShare(_) => {
                // Delivered on n locks after sealing w: the share only
                // (R9), no vote and no COMMIT (R15).
                let l = rep.late;
                let b = Block {
                    v: l.v,
                    k: l.k,
                    m: l.m,
                    prev: dec(rep, l.k - 1),
                };
                rep.late = Vote::default();
                self.sign_share(cfg, rep, b);
                vec![Out::All(Write::Certify {
                    slot: cfg.slot(l.k) as u8,
                    node: id as u8,
                    b,
                })]
            }
            Step::BridgeCommit => {
                let c = self.bridge_block(rep);
                self.assert_v11_bridge(id, rep, &c);
                let out = self.commit(cfg, id, rep, c);
                if rep.pc == Pc::Close {
                    // R28 done: W is committed.
                    rep.pc = Pc::Done;
                }
                out
            }
            Step::CloseCommit => {
                let c = self.close_cert(cfg, rep, h).expect("a certificate");
                let out = self.commit(cfg, id, rep, c);
                rep.pc = Pc::Done;
                out
            }
            Step::HelpShare(b) => {
                self.sign_share(cfg, rep, b);
                vec![Out::All(Write::Certify {
                    slot: cfg.slot(b.k) as u8,
                    node: id as u8,
                    b,
                })]
            }
            Step::CloseShare => {
                // R28: prev1 is W (V11), delivered fast and not certified
                // (`close_in_view`: its view's block of the last slot).
                let b = rep.prev1;
                self.sign_share(cfg, rep, b);
                rep.prev1 = Block::NONE;
                vec![Out::All(Write::Certify {
                    slot: cfg.slot(b.k) as u8,
                    node: id as u8,
                    b,
                })]
            }
            Step::Timeout if rep.pc == Pc::Close => {
                // R28's wait is bounded: the decision is taken already.
                rep.pc = Pc::Done;
                vec![]
            }
            Step::DeliverCommit(x) => {
                let c = h.commit[s as usize][x as usize];
                if !self.cross_check() {
                    self.count(cfg, id, rep, x as usize, c);
                    return vec![];
                }
                rep.round = Round::Commit(x, c);
                if c.above(&h.echo_commit[x as usize][id]) {
                    vec![Out::All(Write::EchoCommit { x, node, b: c })]
                } else {
                    vec![]
                }
            }
            Step::CommitCheck => {
                let Round::Commit(x, c) = rep.round else {
                    unreachable!()
                };
                rep.round = Round::Idle;
                let x = x as usize;
                let sealed = h.seal[x].is_some_and(|z| z.v >= c.v)
                    || h.echo_seal[x][..cfg.n]
                        .iter()
                        .any(|z| z.is_some_and(|z| z.v >= c.v));
                if c.k != rep.k || !rep.waiting() {
                    return vec![];
                }
                if sealed {
                    rep.dseen[x] = c;
                    rep.dcount &= !(1 << x);
                } else {
                    self.count(cfg, id, rep, x, c);
                }
                vec![]
            }
            Step::CatchAbove => {
                let p = self.above(cfg, rep, h).expect("a certificate above");
                self.decide(cfg, id, rep, p, None);
                vec![]
            }
            Step::Behind => {
                rep.pc = Pc::Behind;
                vec![]
            }
            Step::Trigger => self.vc_start(cfg, id, rep),
            Step::Timeout if !matches!(rep.pc, Pc::Cert | Pc::CommitWait) => {
                self.vc_start(cfg, id, rep)
            }
            Step::Timeout => {
                // Cert or CommitWait: the slow path for the same (v, k).
                let mut out = vec![];
                if rep.proposed != 0 {
                    out.extend(self.sign_prepare(cfg, id, rep));
                }
                if rep.phase == 2 && !rep.cert_done {
                    let b = rep.dlv;
                    rep.cert_done = true;
                    self.sign_share(cfg, rep, b);
                    out.push(Out::All(Write::Certify { slot: s, node, b }));
                }
                rep.pc = Pc::Slow;
                out
            }
            Step::Seal => {
                if self.obligation(rep) {
                    rep.wc_done = true; // discharged (R17)
                }
                self.seal(cfg, id, rep)
            }
            Step::Collect => {
                let mut c = self.candidates(cfg, id, rep, h);
                if self.rtl(Variant::RtlCollect) {
                    // D11.9 V4: its own and the f lowest candidates (`sb`).
                    let mut taken = 0;
                    for s in c.iter_mut() {
                        if s.is_some() {
                            if taken == cfg.f() {
                                *s = None;
                            } else {
                                taken += 1;
                            }
                        }
                    }
                }
                rep.round = Round::Collect(c);
                let mut out = vec![];
                for (x, sl) in c.iter().enumerate() {
                    if let Some(sl) = sl {
                        if h.echo_seal[x][id].is_none_or(|e| e.v < sl.v) {
                            out.push(Out::All(Write::EchoSeal {
                                x: x as u8,
                                node,
                                s: *sl,
                            }));
                        }
                    }
                }
                out
            }
            Step::CollectCheck => {
                let Round::Collect(c) = rep.round else {
                    unreachable!()
                };
                rep.round = Round::Idle;
                let own = h.seal[id].expect("it sealed");
                let mut pass = vec![];
                for (x, sl) in c.iter().enumerate() {
                    if let Some(sl) = sl {
                        if self.seal_passes(cfg, h, x, sl) {
                            pass.push((x, *sl));
                        } else {
                            rep.failed[x] = Some(*sl);
                        }
                    }
                }
                if self.rtl(Variant::RtlCollect) {
                    return self.collect_rtl(cfg, id, rep, h, own, &pass);
                }
                // Own + the first f that pass whose highest L's certificate
                // it holds (in a COMMIT or f + 1 shares in its HBM).
                let f = cfg.f();
                let mut chosen = None;
                for combo in combos(pass.len(), f) {
                    let nv = new_view(rep.view, (id, own), combo.iter().map(|&i| pass[i]));
                    let c = nv.constraint();
                    if !c.is() || self.cert_visible(cfg, h, &c) {
                        chosen = Some(nv);
                        break;
                    }
                }
                match chosen {
                    Some(nv) => {
                        let ok = self.install(cfg, id, rep, &nv);
                        if !ok {
                            // Its own R23 check failed: it cannot happen
                            // when Lemma 2 holds; the leader seals on.
                            let mut out = vec![Out::All(Write::NewView { nv })];
                            out.extend(self.vc_start(cfg, id, rep));
                            return out;
                        }
                        vec![Out::All(Write::NewView { nv })]
                    }
                    None => {
                        // No certificate for the highest L: those seals
                        // fail here; it waits for others.
                        for (x, sl) in &pass {
                            if sl.l.is() && !self.cert_visible(cfg, h, &sl.l) {
                                rep.failed[*x] = Some(*sl);
                            }
                        }
                        vec![]
                    }
                }
            }
            Step::SealLanded => {
                self.seal_landed(cfg, id, rep);
                vec![]
            }
            Step::Restore(_, regs) => {
                // R33: merged entry by entry, each register keeping the
                // higher of its copy and what landed since the restart (a
                // register only grows: echo_prep and echo_commit by (k, v),
                // echo_seal by view).
                let copy = cfg.rejoin_off & 2 == 0;
                let regs = if copy {
                    regs
                } else {
                    Regs {
                        echo_prep: Default::default(),
                        echo_commit: Default::default(),
                        echo_seal: Default::default(),
                        ..regs
                    }
                };
                if cfg.rejoin_off & 8 != 0 {
                    // Without the fresh checkpoint: the peer's count too.
                    for (a, b) in h.ckpt.iter_mut().zip(&regs.ckpt) {
                        if b.c > a.c {
                            *a = *b;
                        }
                    }
                }
                for (mine, theirs) in h.echo_prep.iter_mut().zip(&regs.echo_prep) {
                    for (a, b) in mine.iter_mut().zip(theirs) {
                        if b.key() > a.key() {
                            *a = *b;
                        }
                    }
                }
                for (mine, theirs) in h.echo_commit.iter_mut().zip(&regs.echo_commit) {
                    for (a, b) in mine.iter_mut().zip(theirs) {
                        if b.key() > a.key() {
                            *a = *b;
                        }
                    }
                }
                for (mine, theirs) in h.echo_seal.iter_mut().zip(&regs.echo_seal) {
                    for (a, b) in mine.iter_mut().zip(theirs) {
                        if b.is_some_and(|b| a.is_none_or(|a| b.v > a.v)) {
                            *a = *b;
                        }
                    }
                }
                // Its SEAL in the peer's HBM is its last completed seal
                // round (R32): it acted in no view above that one's + 1.
                rep.fence = if cfg.rejoin_off & 4 == 0 {
                    regs.own_seal.map_or(1, |s| s.v + 2)
                } else {
                    1
                };
                rep.stage = 2;
                vec![]
            }
            Step::Install => {
                let ck = self.ckpt_cert(cfg, h).expect("a checkpoint certificate");
                rep.stage = 0;
                self.skip_to(cfg, rep, ck);
                if rep.pc == Pc::Done {
                    return vec![];
                }
                if rep.fence > cfg.views {
                    rep.pc = Pc::Capped;
                    return vec![];
                }
                // It seals the view below its fence with the floor as L,
                // and awaits NEW_VIEW(fence).
                rep.view = rep.fence - 1;
                rep.pend = None;
                self.seal(cfg, id, rep)
            }
            Step::Floor => {
                let ck = self.ckpt_cert(cfg, h).expect("a checkpoint certificate");
                rep.l = ck.floor();
                vec![]
            }
            Step::Skip => {
                let ck = self.ckpt_cert(cfg, h).expect("a checkpoint certificate");
                let working = rep.working();
                self.skip_to(cfg, rep, ck);
                if working && rep.pc != Pc::Done {
                    self.leader_check(cfg, id, rep);
                }
                vec![]
            }
            Step::ReadNv => {
                let nv = self.readable_nv(cfg, rep, h).expect("a NEW_VIEW");
                if !self.nv_wellformed(cfg, &nv) {
                    return self.refuse_nv(cfg, id, rep, nv);
                }
                rep.round = Round::Nv(nv);
                let mut out = vec![];
                for (x, sl) in nv.seals() {
                    if x != id && h.echo_seal[x][id].is_none_or(|e| e.v < sl.v) {
                        out.push(Out::All(Write::EchoSeal {
                            x: x as u8,
                            node,
                            s: sl,
                        }));
                    }
                }
                out
            }
            Step::NvCheck => {
                let Round::Nv(nv) = rep.round else {
                    unreachable!()
                };
                rep.round = Round::Idle;
                self.assert_v9(cfg, id, rep, h, &nv);
                let pass = nv.seals().all(|(x, sl)| self.seal_passes(cfg, h, x, &sl));
                if !pass {
                    return self.refuse_nv(cfg, id, rep, nv);
                }
                if rep.pc == Pc::AwaitNv && nv.view == rep.view {
                    if self.install(cfg, id, rep, &nv) {
                        vec![]
                    } else {
                        self.refuse_nv(cfg, id, rep, nv)
                    }
                } else {
                    // R14: an accepted NEW_VIEW(v′ > v + 1): seal every view
                    // up to v′ − 1 on the way.
                    rep.pend = Some(nv);
                    if rep.pc == Pc::AwaitNv {
                        rep.pc = Pc::Bridge;
                        if rep.view >= cfg.views {
                            rep.pc = Pc::Capped;
                        }
                        vec![]
                    } else {
                        self.vc_start(cfg, id, rep)
                    }
                }
            }
        }
    }
}
