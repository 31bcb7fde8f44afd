//! Config against docs/config.md: the refusal code equals the Rust rule
//! (`ConfigError::check`, what the simulator and the CLI report) over
//! every n and id a build can be given, misaligned buffers and `slots` at
//! the wrap; support, quorum and the active lanes registered at `start`
//! and held until the next.

use rhdl_ubft::controller::config::Config;
use rhdl_ubft::params::{ConfigError, AXI_BOUNDARY_BYTES, K_WRAP};
use rust_hdl::prelude::*;

const N: usize = 5;

fn bench() -> Config<N> {
    let mut b = Config::<N>::default();
    b.connect_all();
    b
}

fn set(b: &mut Config<N>, n: u64, id: u64, ptr: u64, slots: u64) {
    b.n.next = n.into();
    b.id.next = id.into();
    b.network_ptr.next = ptr.into();
    b.slots.next = slots.into();
    assert!(simulate(b, 100));
}

fn edge(b: &mut Config<N>, start: bool) {
    b.start.next = start;
    assert!(simulate(b, 100));
    b.clock.next = Clock::from(true);
    assert!(simulate(b, 100));
    b.clock.next = Clock::from(false);
    b.start.next = false;
    assert!(simulate(b, 100));
}

#[test]
fn the_refusal_is_the_first_rule_broken_as_the_simulator_and_cli_say() {
    let mut b = bench();
    let ptrs = [0, AXI_BOUNDARY_BYTES, 8, AXI_BOUNDARY_BYTES * 3 + 64];
    let slots = [0, 1, K_WRAP - 1, K_WRAP, u32::MAX as u64];
    let mut refused = std::collections::BTreeSet::new();
    for n in 0..=9u64 {
        for id in 0..=9u64 {
            for &ptr in &ptrs {
                for &s in &slots {
                    set(&mut b, n, id, ptr, s);
                    let want = ConfigError::check(n as usize, id as usize, N, ptr, s);
                    assert_eq!(
                        b.refusal.val().index() as u64,
                        want.code(),
                        "n {n}, id {id}, ptr {ptr:#x}, slots {s}: {want:?}"
                    );
                    refused.insert(want.code());
                }
            }
        }
    }
    // Every rule was broken somewhere, and some configuration accepted.
    for e in ConfigError::ALL.iter().filter(|e| !e.is_stop()) {
        assert!(refused.contains(&e.code()), "{e:?} never reached");
    }
}

#[test]
fn support_quorum_and_lanes_follow_n_at_start_and_hold() {
    let mut b = bench();
    for n in [1u64, 3, 5] {
        set(&mut b, n, 0, 0, 10);
        edge(&mut b, true);
        let f = (n - 1) / 2;
        assert_eq!(b.support.val().index() as u64, f + 1, "n {n}");
        assert_eq!(b.quorum.val().index() as u64, 2 * f + 1, "n {n}");
        assert_eq!(b.active.val().index() as u64, (1 << n) - 1, "n {n}");
        // A new n without a start changes nothing.
        set(&mut b, 7, 0, 0, 10);
        edge(&mut b, false);
        assert_eq!(b.support.val().index() as u64, f + 1, "n {n}, held");
        assert_eq!(b.active.val().index() as u64, (1 << n) - 1, "n {n}, held");
    }
}
