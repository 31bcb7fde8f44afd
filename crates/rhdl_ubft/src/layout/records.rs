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
