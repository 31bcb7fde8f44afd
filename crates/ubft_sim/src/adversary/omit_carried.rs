//! The new leader that omits the carried value, on the v3 layout.
//!
//! What it models: a Byzantine replica that leads view v + 1 after a view
//! in which a value must be carried (a follower bridged a will_commit,
//! R17, so the SEALs carry an L), and writes a NEW_VIEW that leaves the
//! value out. What it can do is bounded by the record (recovery.md
//! section 3, `records::NV_*`): NEW_VIEW(v + 1) is [v + 1, seal bitmap,
//! certificate bitmap], the f + 1 SEALs, each under its writer's
//! signature, then the certificate of the highest L they carry (R19, R20).
//! It cannot change an honest SEAL's L, nor sign a share for an honest
//! replica; and it cannot pick f + 1 SEALs that hide the carried value,
//! since every honest replica that sent the will_commit committed it
//! before sealing (R17), so every honest SEAL has that L or a higher one
//! (section 10, Lemma 2), and at most f of the f + 1 are its own or
//! another faulty replica's. What is left is to declare no constraint: it
//! writes its kernel's NEW_VIEW with the certificate bitmap 0 and the
//! certificate's f + 1 beats zero, as a NEW_VIEW whose SEALs carry no L
//! is written (2f + 3 beats; the words after are zero). A follower that
//! took it would install view v + 1 with every slot open (R22: "with no L
//! in any seal, every slot is open") and could lock another value at the
//! carried slot. What must stop it is R22's form check (a certificate
//! bitmap of 0 exactly when no SEAL carries an L; view.md, "R22: a
//! follower reads it"): the record is malformed, a miss, and the
//! followers wait out T_vc, seal v + 1 and move on to the next leader.
//!
//! Only its new_view record changes (the header's certificate bitmap and
//! the certificate beats, whichever writes carry them); every other write
//! passes. Its own HBM keeps the true NEW_VIEW.

use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::records;
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::BEAT_WORDS;

/// See the module's documentation.
pub struct OmitCarried {
    n: usize,
    mailbox: Mailbox,
}

impl OmitCarried {
    /// The liar of an n-replica run.
    pub fn new(n: usize, mailbox: Mailbox) -> Self {
        OmitCarried { n, mailbox }
    }

    /// The first word of a NEW_VIEW's certificate (after the header beat
    /// and the f + 1 SEALs of two beats each).
    pub fn cert_word(n: usize) -> usize {
        (2 * ((n - 1) / 2) + 3) * BEAT_WORDS
    }
}

impl Adversary for OmitCarried {
    fn transform(&mut self, _src: usize, _dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let cert = Self::cert_word(self.n);
        for i in 0..write.data.len() {
            if let Some((Region::NewViewRecord, off)) = self.mailbox.locate(write.word + i) {
                if off == records::NV_CERT || off >= cert {
                    write.data[i] = 0;
                }
            }
        }
        vec![write]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::params::{G, N, SB};

    fn mb() -> Mailbox {
        Mailbox::v3(N, G, SB)
    }

    #[test]
    fn the_new_view_loses_its_certificate_and_the_rest_passes() {
        let m = mb();
        let n = 5;
        let mut o = OmitCarried::new(n, m.clone());
        let at = m.record(Region::NewViewRecord, 0, 0);
        // 3f + 4 = 10 beats: header, 3 SEALs, 3 shares.
        let data: Vec<u32> = (1..=10 * BEAT_WORDS as u32).collect();
        let out = o.transform(
            1,
            2,
            Write {
                word: at,
                data: data.clone(),
            },
            0,
        );
        assert_eq!(out.len(), 1);
        let d = &out[0].data;
        assert_eq!(&d[..2], &data[..2], "view and seal bitmap");
        assert_eq!(d[records::NV_CERT], 0, "no certificate bitmap");
        assert_eq!(&d[3..7 * BEAT_WORDS], &data[3..7 * BEAT_WORDS], "the SEALs");
        assert!(d[7 * BEAT_WORDS..].iter().all(|&x| x == 0), "no shares");
        // A write of the shares alone, beat by beat, loses them too.
        let beat = Write {
            word: at + 8 * BEAT_WORDS,
            data: vec![9; BEAT_WORDS],
        };
        assert_eq!(
            o.transform(1, 2, beat.clone(), 0)[0].data,
            vec![0; BEAT_WORDS]
        );
        // Other records pass.
        let seal = Write {
            word: m.record(Region::Seal, 0, 1),
            data: vec![4; 2 * BEAT_WORDS],
        };
        assert_eq!(o.transform(1, 2, seal.clone(), 0), vec![seal]);
    }
}
