//! What more than one block test needs.

use rhdl_ubft::io::broadcast::Broadcast;
use rhdl_ubft::io::fetch::Fetch;
use rust_hdl::prelude::*;

/// A Broadcast block with every input connected for a test to drive, out
/// of reset, sending one-beat records (`beats` = 1).
#[allow(dead_code)] // (each test crate uses what it needs)
pub fn broadcast() -> Broadcast {
    let mut b = Broadcast::default();
    b.clock.connect();
    b.rst_n.connect();
    b.start.connect();
    b.word.connect();
    b.words.connect();
    b.data.connect();
    b.local_only.connect();
    b.round.connect();
    b.beats.connect();
    b.s_rec_tdata.connect();
    b.s_rec_tvalid.connect();
    b.s_rec_tlast.connect();
    b.network_ptr.connect();
    b.n.connect();
    b.id.connect();
    b.qpns.connect();
    b.awready.connect();
    b.wready.connect();
    b.bresp.connect();
    b.bvalid.connect();
    b.cmd_ready.connect();
    b.ack.connect();
    b.clear.connect();
    b.stage_busy.connect();
    b.connect_all();
    b.rst_n.next = true;
    b.beats.next = 1.into();
    b
}

/// A Fetch block with every input connected for a test to drive, out of
/// reset.
#[allow(dead_code)]
pub fn fetch() -> Fetch {
    let mut f = Fetch::default();
    f.clock.connect();
    f.rst_n.connect();
    f.start.connect();
    f.poll.connect();
    f.again.connect();
    f.addr.connect();
    f.len.connect();
    f.arready.connect();
    f.rdata.connect();
    f.rresp.connect();
    f.rlast.connect();
    f.rvalid.connect();
    f.connect_all();
    f.rst_n.next = true;
    f
}

/// xorshift64, so the tests need no crate and replay exactly.
#[allow(dead_code)] // (each test crate uses what it needs)
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
