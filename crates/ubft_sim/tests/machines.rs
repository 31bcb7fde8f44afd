//! The controller's four machines, watched from inside rust-hdl's model on
//! every cycle of whole runs (fast path, slow path, view changes):
//!
//! - one machine at a time: Protocol is in Run exactly when one of LEADER,
//!   FAST, SLOW and VIEW is out of Off, and then only one is;
//! - `sts_state` names the state the registers hold (`STATE_NAMES`).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::rc::Rc;
use ubft_sim::cluster::{Cluster, ClusterConfig};
use ubft_sim::ports::{KernelBackend, KernelIn, KernelOut};
use ubft_sim::rusthdl::RustHdlKernel;
use ubft_sim::scenario::Scenario;

use rhdl_ubft::params::N as BUILD_N;
use rhdl_ubft::protocol::{ProtocolSt, STATE_NAMES};

/// The states seen, across the replicas of a run.
type Seen = Rc<RefCell<BTreeSet<u8>>>;

/// A rust-hdl kernel that checks the machines after every evaluation.
struct Watched {
    k: RustHdlKernel<BUILD_N>,
    replica: usize,
    cycle: u64,
    seen: Seen,
}

impl KernelBackend for Watched {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        let out = self.k.eval(inp);
        let p = self.k.kernel().debug_protocol();
        let active = p.machines().iter().filter(|&&a| a).count();
        // In Run one machine holds the slot; in Close (v3, R28) Slow3 or
        // none (its last cycle); else none.
        let want = match p.own_state() {
            ProtocolSt::Run => 1,
            ProtocolSt::Close => p.machines()[2] as usize,
            _ => 0,
        };
        let at = format!("replica {}, cycle {}", self.replica, self.cycle);
        assert_eq!(
            active,
            want,
            "{at}: Protocol {:?}, machines {:?}",
            p.own_state(),
            p.machines()
        );
        let n = self.k.kernel().debug_state();
        assert_eq!(
            STATE_NAMES.get(n as usize).copied(),
            Some(p.state_name().as_str()),
            "{at}: sts_state {n}"
        );
        self.seen.borrow_mut().insert(n);
        out
    }

    fn tick(&mut self) {
        self.k.tick();
        self.cycle += 1;
    }

    fn name(&self) -> &'static str {
        "rust-hdl (watched)"
    }
}

fn watched(n: usize, seen: &Seen) -> Vec<Box<dyn KernelBackend>> {
    (0..n)
        .map(|replica| {
            Box::new(Watched {
                k: RustHdlKernel::new(),
                replica,
                cycle: 0,
                seen: seen.clone(),
            }) as Box<dyn KernelBackend>
        })
        .collect()
}

fn names(seen: &Seen) -> Vec<&'static str> {
    seen.borrow()
        .iter()
        .map(|&n| STATE_NAMES[n as usize])
        .collect()
}

fn scenario(file: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    Scenario::from_file(&path).unwrap()
}

#[test]
fn one_machine_at_a_time_on_the_fast_path() {
    let seen = Seen::default();
    let cfg = ClusterConfig::quick(3, 3).v2();
    let report = Cluster::with_kernels(cfg, watched(3, &seen)).run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let s = names(&seen);
    for state in [
        "Idle",
        "LeaderCheck",
        "LeaderWaitValue",
        "LeaderSendPrepare",
        "FastPollPrepare",
        "FastWaitPrepare",
        "FastSendCert",
        "FastPollCert",
        "FastWaitCert",
        "FastSendCommit",
        "FastPollCommit",
        "FastWaitCommit",
        "Decide",
    ] {
        assert!(s.contains(&state), "{state} not visited: {s:?}");
    }
}

#[test]
fn one_machine_at_a_time_on_the_slow_path() {
    let seen = Seen::default();
    let s = scenario("v2/mute_fast.toml");
    let report = s
        .cluster_with_kernels(watched(s.replicas, &seen))
        .unwrap()
        .run()
        .unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let s = names(&seen);
    for state in [
        "SlowStart",
        "SlowStep",
        "SlowWaitShare",
        "SlowSendShare",
        "SlowSendFlag",
        "SlowPollFlags",
        "SlowWaitFlags",
        "SlowPollFast",
        "SlowWaitFast",
        "SlowSendCommit",
        "SlowPollCommit",
        "SlowWaitCommit",
    ] {
        assert!(s.contains(&state), "{state} not visited: {s:?}");
    }
}

#[test]
fn one_machine_at_a_time_through_view_changes() {
    // split_view's view changes choose nothing since the requests block
    // (its made-up values are never voted for), so VcInstall comes from
    // lie_vc's, whose liar tells one peer its true m.
    let seen = Seen::default();
    for file in ["v2/split_view.toml", "v2/lie_vc.toml"] {
        let s = scenario(file);
        let report = s
            .cluster_with_kernels(watched(s.replicas, &seen))
            .unwrap()
            .run()
            .unwrap();
        assert!(report.checks.ok(), "{file}: {:?}", report.checks.failures);
    }
    let s = names(&seen);
    for state in [
        "VcStart",
        "VcSendRecord",
        "VcSendFlag",
        "VcPollFlags",
        "VcWaitFlags",
        "VcPollRecords",
        "VcWaitRecords",
        "VcDecide",
        "VcInstall",
        "VcPollCatch",
        "VcWaitCatch",
        "VcPollCatchSlow",
        "VcWaitCatchSlow",
    ] {
        assert!(s.contains(&state), "{state} not visited: {s:?}");
    }
}
