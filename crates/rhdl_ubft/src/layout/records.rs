//! Records: where each field sits in what a replica writes (docs/recovery.md,
//! sections 3 and 13), as word indices into the record (the bit shifts
//! inside `#[hdl_gen]` code are these times `params::WORD_BITS`, checked by
//! each block's `check_literals`).
//!
//! A record's first beat starts with the eight-word block its signature
//! covers, word 0 naming the block's kind, so a verify request reads the
//! block as it lies in HBM; the signatures follow on beats of their own.
//! The prepare and the vote entries are unsigned.

/// Words in a signed block.
pub const BLOCK_WORDS: usize = 8;
/// Its bytes, as a sign or verify request carries them: the words in
/// order, each little-endian, in bytes [31:0] of the request's first
/// beat (TKEEP = `setup::code::BLOCK_KEEP`).
pub const BLOCK_BYTES: usize = BLOCK_WORDS * crate::params::WORD_BYTES as usize;
/// Its bits (the SignerPort port's `block`, Protocol's `sg_block`).
pub const BLOCK_BITS: usize = BLOCK_WORDS * crate::params::WORD_BITS;
/// Word 0 of every signed block: its kind.
pub const KIND: usize = 0;
pub const KIND_PREP: u32 = 1;
pub const KIND_CERT: u32 = 2;
pub const KIND_COMMIT: u32 = 3;
pub const KIND_SEAL: u32 = 4;
/// PREP and CERT blocks: [kind, v, k, m, prev, 0, 0, 0].
pub const BLOCK_V: usize = 1;
pub const BLOCK_K: usize = 2;
pub const BLOCK_M: usize = 3;
pub const BLOCK_PREV: usize = 4;
/// COMMIT block: [3, j, v, k, m, prev, 0, 0].
pub const COMMIT_J: usize = 1;
pub const COMMIT_V: usize = 2;
pub const COMMIT_K: usize = 3;
pub const COMMIT_M: usize = 4;
pub const COMMIT_PREV: usize = 5;
/// A commit record's signer bitmap (bit i: replica i's CERT share is
/// among the f + 1 that follow, in ascending i), after its block.
pub const COMMIT_BITMAP: usize = 8;
/// SEAL block: [4, j, v, L.w, L.c, L.m, L.prev, L present].
pub const SEAL_J: usize = 1;
pub const SEAL_V: usize = 2;
pub const SEAL_LW: usize = 3;
pub const SEAL_LC: usize = 4;
pub const SEAL_LM: usize = 5;
pub const SEAL_LPREV: usize = 6;
pub const SEAL_LPRESENT: usize = 7;
/// prepare (unsigned; its block is PREP's): (k, m, v, prev).
pub const PREPARE_K: usize = 0;
pub const PREPARE_M: usize = 1;
pub const PREPARE_V: usize = 2;
pub const PREPARE_PREV: usize = 3;
/// A will_cert or will_commit entry (unsigned): (tag(v, k), m)
/// (`params::vote_tag`).
pub const VOTE_TAG: usize = 0;
pub const VOTE_M: usize = 1;
/// new_view's first beat (unsigned): [v + 1, seal bitmap, certificate
/// bitmap]; then the f + 1 seals in ascending replica order (each a SEAL
/// beat and its signature, as in seal), then the certificate's f + 1
/// shares in ascending replica order, over the CERT block of the highest
/// commit the seals carry.
pub const NV_VIEW: usize = 0;
pub const NV_SEALS: usize = 1;
pub const NV_CERT: usize = 2;

/// The PREP (`kind` = [`KIND_PREP`]) or CERT ([`KIND_CERT`]) block of
/// (v, k, m, prev).
pub fn block(kind: u32, v: u32, k: u32, m: u32, prev: u32) -> [u32; BLOCK_WORDS] {
    assert!(kind == KIND_PREP || kind == KIND_CERT, "kind {kind}");
    let mut w = [0; BLOCK_WORDS];
    w[KIND] = kind;
    w[BLOCK_V] = v;
    w[BLOCK_K] = k;
    w[BLOCK_M] = m;
    w[BLOCK_PREV] = prev;
    w
}

/// Whether `w` is a block of a known kind with zero where its kind has
/// no field (the signer service refuses any other as MALFORMED): PREP
/// and CERT end in three zero words, COMMIT in two, and a SEAL's last
/// word is 0 (no L, and then L's words are zero) or 1.
pub fn well_formed(w: &[u32; BLOCK_WORDS]) -> bool {
    let zero_from = |i: usize| w[i..].iter().all(|&x| x == 0);
    match w[KIND] {
        KIND_PREP | KIND_CERT => zero_from(BLOCK_PREV + 1),
        KIND_COMMIT => zero_from(COMMIT_PREV + 1),
        KIND_SEAL => match w[SEAL_LPRESENT] {
            0 => zero_from(SEAL_LW),
            1 => true,
            _ => false,
        },
        _ => false,
    }
}

/// Replica j's COMMIT block of (v, k, m, prev).
pub fn commit_block(j: u32, v: u32, k: u32, m: u32, prev: u32) -> [u32; BLOCK_WORDS] {
    let mut w = [0; BLOCK_WORDS];
    w[KIND] = KIND_COMMIT;
    w[COMMIT_J] = j;
    w[COMMIT_V] = v;
    w[COMMIT_K] = k;
    w[COMMIT_M] = m;
    w[COMMIT_PREV] = prev;
    w
}

/// Replica j's SEAL block of view v, with its latest commit L = (w, c,
/// m, prev) or none.
pub fn seal_block(j: u32, v: u32, l: Option<[u32; 4]>) -> [u32; BLOCK_WORDS] {
    let mut w = [0; BLOCK_WORDS];
    w[KIND] = KIND_SEAL;
    w[SEAL_J] = j;
    w[SEAL_V] = v;
    if let Some([lw, lc, lm, lprev]) = l {
        w[SEAL_LW] = lw;
        w[SEAL_LC] = lc;
        w[SEAL_LM] = lm;
        w[SEAL_LPREV] = lprev;
        w[SEAL_LPRESENT] = 1;
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_recovery_md_section_3s() {
        assert_eq!(block(KIND_PREP, 5, 6, 7, 8), [1, 5, 6, 7, 8, 0, 0, 0]);
        assert_eq!(block(KIND_CERT, 5, 6, 7, 8), [2, 5, 6, 7, 8, 0, 0, 0]);
        assert_eq!(commit_block(2, 5, 6, 7, 8), [3, 2, 5, 6, 7, 8, 0, 0]);
        assert_eq!(
            seal_block(2, 9, Some([5, 6, 7, 8])),
            [4, 2, 9, 5, 6, 7, 8, 1]
        );
        assert_eq!(seal_block(2, 9, None), [4, 2, 9, 0, 0, 0, 0, 0]);
    }
}

/// The fields of Mailbox v4's records (docs/recovery.md, section 13,
/// "v4", and section 17): k, every view and a checkpoint's slot are 48-bit
/// values of two words each (x.lo = x\[31:0\], then x\[47:32\] in bits
/// \[15:0\] of the next word, bits \[31:16\] zero), and every signed block
/// is one beat of sixteen words. [`super::super::Mailbox::v4`] places
/// them.
pub mod v4 {
    use crate::params::BEAT_WORDS;

    /// Bits of k, of a view and of a checkpoint's slot.
    pub const WIDE_BITS: u32 = 48;
    /// The largest 48-bit value.
    pub const WIDE_MAX: u64 = (1 << WIDE_BITS) - 1;

    /// Words in a signed block: one beat.
    pub const BLOCK_WORDS: usize = BEAT_WORDS;
    /// Its bytes, as a sign or verify request carries them (TKEEP all
    /// ones).
    pub const BLOCK_BYTES: usize = BLOCK_WORDS * crate::params::WORD_BYTES as usize;
    /// Word 0 of every signed block: its kind (v3's four, and CKPT).
    pub const KIND: usize = 0;
    pub use super::{KIND_CERT, KIND_COMMIT, KIND_PREP, KIND_SEAL};
    pub const KIND_CKPT: u32 = 5;

    /// PREP and CERT blocks: [kind, v.lo, v.hi, k.lo, k.hi, m, prev].
    pub const BLOCK_V: usize = 1;
    pub const BLOCK_K: usize = 3;
    pub const BLOCK_M: usize = 5;
    pub const BLOCK_PREV: usize = 6;
    /// COMMIT block: [3, j, v.lo, v.hi, k.lo, k.hi, m, prev].
    pub const COMMIT_J: usize = 1;
    pub const COMMIT_V: usize = 2;
    pub const COMMIT_K: usize = 4;
    pub const COMMIT_M: usize = 6;
    pub const COMMIT_PREV: usize = 7;
    /// A commit record's signer bitmap: word 0 of the beat after the
    /// block, which the block fills.
    pub const COMMIT_BITMAP: usize = BLOCK_WORDS;
    /// SEAL block: [4, j, v.lo, v.hi, L.w.lo, L.w.hi, L.c.lo, L.c.hi, L.m,
    /// L.prev, L's kind].
    pub const SEAL_J: usize = 1;
    pub const SEAL_V: usize = 2;
    pub const SEAL_LW: usize = 4;
    pub const SEAL_LC: usize = 6;
    pub const SEAL_LM: usize = 8;
    pub const SEAL_LPREV: usize = 9;
    pub const SEAL_LKIND: usize = 10;
    /// L's kinds: none (L's words 0), a commit (w, c, m, prev), a floor
    /// (R30: c and dec\[c\]; L.w and L.prev 0).
    pub const L_NONE: u32 = 0;
    pub const L_COMMIT: u32 = 1;
    pub const L_FLOOR: u32 = 2;
    /// CKPT block: [5, j, c.lo, c.hi, dec\[c\], 0, 0, 0, h_c\[0\], …,
    /// h_c\[7\]].
    pub const CKPT_J: usize = 1;
    pub const CKPT_C: usize = 2;
    pub const CKPT_DEC: usize = 4;
    pub const CKPT_H: usize = 8;
    /// Words of the chain h_c: SHA-256's eight state words, H0 first
    /// (docs/chain.md).
    pub const HASH_WORDS: usize = 8;

    /// A floor's header beat (a SEAL record's and a NEW_VIEW's, before
    /// the f + 1 CKPT signatures): [c.lo, c.hi, dec\[c\], signer bitmap, 0,
    /// 0, 0, 0, h_c\[0\], …, h_c\[7\]].
    pub const FLOOR_C: usize = 0;
    pub const FLOOR_DEC: usize = 2;
    pub const FLOOR_BITMAP: usize = 3;
    pub const FLOOR_H: usize = 8;

    /// prepare (unsigned): (k.lo, k.hi, m, v.lo, v.hi, prev), a beat a slot.
    pub const PREPARE_K: usize = 0;
    pub const PREPARE_M: usize = 2;
    pub const PREPARE_V: usize = 3;
    pub const PREPARE_PREV: usize = 5;
    pub const PREPARE_WORDS: usize = 6;

    /// A will_cert or will_commit entry: the 96-bit tag t(v, k) = v · 2^48
    /// + k in words 0 to 2, m in word 3.
    pub const VOTE_WORDS: usize = 4;
    pub const VOTE_TAG: usize = 0;
    pub const TAG_WORDS: usize = 3;
    pub const VOTE_M: usize = 3;

    /// new_view's header beat (unsigned): [(v + 1).lo, (v + 1).hi, seal
    /// bitmap, certificate bitmap, the certificate's kind]; then the f + 1
    /// SEALs (block beat and signature each), then the certificate of the
    /// highest L the seals carry: f + 1 CERT shares, or a floor's header
    /// beat and f + 1 CKPT signatures.
    pub const NV_VIEW: usize = 0;
    pub const NV_SEALS: usize = 2;
    pub const NV_CERT: usize = 3;
    pub const NV_CERT_KIND: usize = 4;
    /// The certificate's kinds in a NEW_VIEW: none, CERT shares, a floor.
    pub const NV_CERT_NONE: u32 = 0;
    pub const NV_CERT_SHARES: u32 = 1;
    pub const NV_CERT_FLOOR: u32 = 2;

    /// The two words of a 48-bit value: [x.lo, x.hi].
    pub fn split(x: u64) -> [u32; 2] {
        assert!(x <= WIDE_MAX, "{x} does not fit 48 bits");
        [x as u32, (x >> 32) as u32]
    }

    /// The 48-bit value of two words, or `None` where the high word has a
    /// bit above 15 set (not well formed).
    pub fn join(lo: u32, hi: u32) -> Option<u64> {
        (hi >> 16 == 0).then_some(u64::from(hi) << 32 | u64::from(lo))
    }

    /// The tag t(v, k) = v · 2^48 + k as its three words: [k.lo,
    /// k\[47:32\] | v\[15:0\] << 16, v\[47:16\]]. Never zero for k >= 1.
    pub fn tag(v: u64, k: u64) -> [u32; TAG_WORDS] {
        assert!(v <= WIDE_MAX, "view {v} does not fit 48 bits");
        let [klo, khi] = split(k);
        [klo, khi | (v as u32 & 0xffff) << 16, (v >> 16) as u32]
    }

    /// (v, k) of a tag's three words.
    pub fn untag(t: [u32; TAG_WORDS]) -> (u64, u64) {
        let k = u64::from(t[1] & 0xffff) << 32 | u64::from(t[0]);
        let v = u64::from(t[2]) << 16 | u64::from(t[1] >> 16);
        (v, k)
    }

    fn put(w: &mut [u32; BLOCK_WORDS], at: usize, x: u64) {
        w[at..at + 2].copy_from_slice(&split(x));
    }

    /// The PREP (`kind` = [`KIND_PREP`]) or CERT ([`KIND_CERT`]) block of
    /// (v, k, m, prev).
    pub fn block(kind: u32, v: u64, k: u64, m: u32, prev: u32) -> [u32; BLOCK_WORDS] {
        assert!(kind == KIND_PREP || kind == KIND_CERT, "kind {kind}");
        let mut w = [0; BLOCK_WORDS];
        w[KIND] = kind;
        put(&mut w, BLOCK_V, v);
        put(&mut w, BLOCK_K, k);
        w[BLOCK_M] = m;
        w[BLOCK_PREV] = prev;
        w
    }

    /// Replica j's COMMIT block of (v, k, m, prev).
    pub fn commit_block(j: u32, v: u64, k: u64, m: u32, prev: u32) -> [u32; BLOCK_WORDS] {
        let mut w = [0; BLOCK_WORDS];
        w[KIND] = KIND_COMMIT;
        w[COMMIT_J] = j;
        put(&mut w, COMMIT_V, v);
        put(&mut w, COMMIT_K, k);
        w[COMMIT_M] = m;
        w[COMMIT_PREV] = prev;
        w
    }

    /// What a SEAL carries as L (docs/recovery.md R18, R30).
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    pub enum SealL {
        /// No commit and no floor.
        None,
        /// The latest commit (w, c, m, prev).
        Commit { w: u64, c: u64, m: u32, prev: u32 },
        /// A checkpoint certificate's floor: slot c, decided dec\[c\].
        Floor { c: u64, dec: u32 },
    }

    /// Replica j's SEAL block of view v with L.
    pub fn seal_block(j: u32, v: u64, l: SealL) -> [u32; BLOCK_WORDS] {
        let mut w = [0; BLOCK_WORDS];
        w[KIND] = KIND_SEAL;
        w[SEAL_J] = j;
        put(&mut w, SEAL_V, v);
        match l {
            SealL::None => {}
            SealL::Commit { w: lw, c, m, prev } => {
                put(&mut w, SEAL_LW, lw);
                put(&mut w, SEAL_LC, c);
                w[SEAL_LM] = m;
                w[SEAL_LPREV] = prev;
                w[SEAL_LKIND] = L_COMMIT;
            }
            SealL::Floor { c, dec } => {
                put(&mut w, SEAL_LC, c);
                w[SEAL_LM] = dec;
                w[SEAL_LKIND] = L_FLOOR;
            }
        }
        w
    }

    /// Replica j's CKPT block of slot c, its decision dec\[c\] and the
    /// chain h_c (R29).
    pub fn ckpt_block(j: u32, c: u64, dec: u32, h: [u32; HASH_WORDS]) -> [u32; BLOCK_WORDS] {
        let mut w = [0; BLOCK_WORDS];
        w[KIND] = KIND_CKPT;
        w[CKPT_J] = j;
        put(&mut w, CKPT_C, c);
        w[CKPT_DEC] = dec;
        w[CKPT_H..CKPT_H + HASH_WORDS].copy_from_slice(&h);
        w
    }

    /// Whether `w` is a v4 block the signer service signs or verifies
    /// (else MALFORMED): a known kind, every 48-bit value's high word
    /// below 2^16, and zero where its kind has no field; a SEAL's L kind is
    /// 0 (L's words zero), 1 or 2 (L.w and L.prev zero).
    pub fn well_formed(w: &[u32; BLOCK_WORDS]) -> bool {
        let zero = |from: usize, to: usize| w[from..to].iter().all(|&x| x == 0);
        let wide = |at: usize| join(w[at], w[at + 1]).is_some();
        match w[KIND] {
            KIND_PREP | KIND_CERT => {
                wide(BLOCK_V) && wide(BLOCK_K) && zero(BLOCK_PREV + 1, BLOCK_WORDS)
            }
            KIND_COMMIT => wide(COMMIT_V) && wide(COMMIT_K) && zero(COMMIT_PREV + 1, BLOCK_WORDS),
            KIND_SEAL => {
                wide(SEAL_V)
                    && zero(SEAL_LKIND + 1, BLOCK_WORDS)
                    && match w[SEAL_LKIND] {
                        L_NONE => zero(SEAL_LW, SEAL_LKIND),
                        L_COMMIT => wide(SEAL_LW) && wide(SEAL_LC),
                        L_FLOOR => {
                            zero(SEAL_LW, SEAL_LW + 2) && w[SEAL_LPREV] == 0 && wide(SEAL_LC)
                        }
                        _ => false,
                    }
            }
            KIND_CKPT => wide(CKPT_C) && zero(CKPT_DEC + 1, CKPT_H),
            _ => false,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn blocks_are_recovery_md_section_13s() {
            let big = WIDE_MAX - 2;
            let [blo, bhi] = split(big);
            assert_eq!(bhi, 0xffff);
            assert_eq!(
                block(KIND_PREP, 254, big, 7, 8)[..8],
                [1, 254, 0, blo, bhi, 7, 8, 0]
            );
            assert_eq!(block(KIND_CERT, 1, 2, 3, 4)[..7], [2, 1, 0, 2, 0, 3, 4]);
            assert_eq!(
                commit_block(2, 1 << 40, 6, 7, 8)[..9],
                [3, 2, 0, 1 << 8, 6, 0, 7, 8, 0]
            );
            let l = SealL::Commit {
                w: 5,
                c: 1 << 32,
                m: 7,
                prev: 8,
            };
            assert_eq!(
                seal_block(2, 9, l)[..12],
                [4, 2, 9, 0, 5, 0, 0, 1, 7, 8, L_COMMIT, 0]
            );
            assert_eq!(
                seal_block(2, 9, SealL::Floor { c: 40, dec: 3 })[..12],
                [4, 2, 9, 0, 0, 0, 40, 0, 3, 0, L_FLOOR, 0]
            );
            assert_eq!(seal_block(1, 3, SealL::None)[4..], [0; 12]);
            let h = [10, 11, 12, 13, 14, 15, 16, 17];
            assert_eq!(
                ckpt_block(1, 16, 99, h),
                [5, 1, 16, 0, 99, 0, 0, 0, 10, 11, 12, 13, 14, 15, 16, 17]
            );
        }

        #[test]
        fn every_block_built_is_well_formed_and_a_wide_word_above_48_bits_is_not() {
            let h = [1; HASH_WORDS];
            let good = [
                block(KIND_PREP, WIDE_MAX, WIDE_MAX, u32::MAX, u32::MAX),
                block(KIND_CERT, 0, 1, 0, 0),
                commit_block(7, WIDE_MAX, 1, 2, 3),
                seal_block(0, 0, SealL::None),
                seal_block(
                    0,
                    5,
                    SealL::Floor {
                        c: WIDE_MAX,
                        dec: 1,
                    },
                ),
                seal_block(
                    0,
                    5,
                    SealL::Commit {
                        w: 4,
                        c: 9,
                        m: 1,
                        prev: 2,
                    },
                ),
                ckpt_block(3, 8, 4, h),
            ];
            for b in good {
                assert!(well_formed(&b), "{b:?}");
                // A high word with bit 16 set, in the block's first wide
                // value, is refused.
                let mut bad = b;
                let at = match b[KIND] {
                    KIND_PREP | KIND_CERT => BLOCK_V + 1,
                    KIND_COMMIT => COMMIT_V + 1,
                    KIND_SEAL => SEAL_V + 1,
                    _ => CKPT_C + 1,
                };
                bad[at] |= 1 << 16;
                assert!(!well_formed(&bad), "{bad:?}");
                // So is a word set past the kind's fields.
                let mut bad = b;
                let last = if b[KIND] == KIND_CKPT {
                    CKPT_DEC + 1
                } else {
                    BLOCK_WORDS - 1
                };
                bad[last] = 1;
                assert!(!well_formed(&bad), "{bad:?}");
            }
            let mut floor = seal_block(0, 5, SealL::Floor { c: 3, dec: 1 });
            floor[SEAL_LPREV] = 1;
            assert!(!well_formed(&floor), "a floor has no prev");
            let mut none = seal_block(0, 5, SealL::None);
            none[SEAL_LM] = 1;
            assert!(!well_formed(&none), "no L, no L words");
            let mut kind = seal_block(0, 5, SealL::None);
            kind[SEAL_LKIND] = 3;
            assert!(!well_formed(&kind));
            let mut unknown = block(KIND_PREP, 1, 1, 1, 1);
            unknown[KIND] = 6;
            assert!(!well_formed(&unknown));
        }

        #[test]
        fn tags_order_by_view_then_slot_and_are_never_zero() {
            let cases = [
                (0, 1),
                (254, (1 << 24) - 3),
                (255, 1 << 24),
                (256, 1),
                (WIDE_MAX, WIDE_MAX),
                (1 << 16, 1 << 32),
            ];
            for (v, k) in cases {
                let t = tag(v, k);
                assert_ne!(t, [0; TAG_WORDS]);
                assert_eq!(untag(t), (v, k));
                let wide = u128::from(t[2]) << 64 | u128::from(t[1]) << 32 | u128::from(t[0]);
                assert_eq!(
                    wide,
                    u128::from(v) << 48 | u128::from(k),
                    "t = v · 2^48 + k"
                );
            }
            assert_eq!(join(0, 0x1_0000), None);
            assert_eq!(join(5, 0xffff), Some(0xffff_0000_0005));
        }
    }
}
