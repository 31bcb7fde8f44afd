//! ForgeShares: a replica whose slow-path shares are forged.
//!
//! It sends no fast-path votes, so every slot goes to the slow path, and
//! in every certify record it writes the share after the record's header
//! beat has one byte flipped in each word: flagged valid, signed by
//! nobody. The block the share claims to sign (the header beat) stays as
//! the protocol says.

use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::BEAT_WORDS;

/// No fast-path votes, and every certify share corrupted.
#[derive(Clone, Debug)]
pub struct ForgeShares {
    pub mailbox: Mailbox,
}

impl Adversary for ForgeShares {
    fn transform(&mut self, _src: usize, _dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        match self.mailbox.locate(write.word).map(|(r, _)| r) {
            Some(Region::WillCert | Region::WillCommit) => vec![],
            Some(Region::Certify) => {
                let stride = self.mailbox.stride(Region::Certify);
                for (i, w) in write.data.iter_mut().enumerate() {
                    let share = self
                        .mailbox
                        .locate(write.word + i)
                        .is_some_and(|(_, off)| off % stride >= BEAT_WORDS);
                    if share {
                        *w ^= 0x0000_0100;
                    }
                }
                vec![write]
            }
            _ => vec![write],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::params::vote_tag;

    #[test]
    fn forge_shares_keeps_the_cert_block_and_forges_the_share() {
        let m = Mailbox::v3(3, 16, 1);
        let mut fs = ForgeShares { mailbox: m.clone() };
        let rec = m.record(Region::Certify, 3, 2);
        let data: Vec<u32> = (0..m.stride(Region::Certify) as u32).collect();
        let out = fs.transform(
            2,
            0,
            Write {
                word: rec,
                data: data.clone(),
            },
            0,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].data[..BEAT_WORDS],
            data[..BEAT_WORDS],
            "the CERT block"
        );
        for i in BEAT_WORDS..data.len() {
            assert_eq!(out[0].data[i], data[i] ^ 0x100, "share word {i}");
        }
        // No fast votes; a COMMIT passes.
        let vote = Write {
            word: m.vote(Region::WillCommit, 3, 2),
            data: vec![vote_tag(1, 4), 9],
        };
        assert_eq!(fs.transform(2, 0, vote, 0), vec![]);
        let commit = Write {
            word: m.record(Region::Commit, 3, 2),
            data: vec![3, 2, 1, 4, 9, 0, 0, 0],
        };
        assert_eq!(fs.transform(2, 0, commit.clone(), 0), vec![commit]);
    }
}
