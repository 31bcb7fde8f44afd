//! The controller's machines on the shipped v3 kernel (`Kernel`),
//! watched from inside rust-hdl's model on every cycle of whole runs (the
//! fast path, the slow path (SLOW, R7 to R12), view changes (VIEW)):
//!
//! - one machine at a time holds the slot: Protocol is in Run exactly when
//!   one of LEADER, FAST, SLOW and VIEW is out of Off, with two
//!   exceptions, where VIEW hands SLOW the slot and waits for it (VIEW
//!   in ViewBridge while SLOW certifies and commits W in seal mode, R17;
//!   VIEW in ViewDeliver while SLOW decides from peers' COMMITs in deliver
//!   mode, R25), and no two others ever; in Close (R28) only SLOW, or
//!   none; in Decide none, or VIEW alone waiting for k to move (a
//!   catch-up's decision: ViewCatchNext, ViewAwaitNext, ViewDeliver); in Done
//!   none, or, when the run's last slot was decided so, VIEW alone for
//!   that one cycle (it sees Protocol stop running a cycle late; Idle
//!   finds it Off);
//! - `sts_state` names the state the registers hold (`STATE_NAMES`).

use rhdl_ubft::controller::protocol::{Protocol, ProtocolSt};
use rhdl_ubft::controller::status::STATE_NAMES;
use rhdl_ubft::controller::view::{ViewSt, VIEW_STATES};
use rhdl_ubft::params::N as BUILD_N;
use rust_hdl::prelude::{Atom, Block, Probe};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::rc::Rc;
use ubft_sim::adversary::silent::Silent;
use ubft_sim::backend::rust_hdl::RustHdlKernel;
use ubft_sim::cluster::{Cluster, ClusterConfig, Event, Path as DecisionPath, RunReport};
use ubft_sim::ports::{KernelBackend, KernelIn, KernelOut};
use ubft_sim::scenario::Scenario;

/// What a run showed, across its replicas: the states `sts_state` named,
/// and VIEW's states while it held the slot beside SLOW or in Decide.
#[derive(Default)]
struct Seen {
    states: BTreeSet<u8>,
    view_beside: BTreeSet<String>,
    /// Protocol's own states, with the machine out of Off in each
    /// (`machines()` as L, F, S, V, `-` for Off).
    protocol: BTreeSet<String>,
}

type Shared = Rc<RefCell<Seen>>;

/// VIEW's state register, read through rust-hdl's probe (Protocol keeps
/// VIEW to itself; its `state_name` names SLOW's state while both are
/// out of Off).
fn view_state(p: &Protocol<BUILD_N>) -> ViewSt {
    #[derive(Default)]
    struct Find {
        path: Vec<String>,
        state: Option<usize>,
    }
    impl Probe for Find {
        fn visit_start_scope(&mut self, name: &str, _: &dyn Block) {
            self.path.push(name.into());
        }
        fn visit_end_scope(&mut self, _: &str, _: &dyn Block) {
            self.path.pop();
        }
        fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
            if name == "q" && self.path.ends_with(&["view".into(), "state".into()]) {
                self.state = Some(signal.verilog().as_usize());
            }
        }
    }
    let mut find = Find::default();
    p.accept("protocol", &mut find);
    VIEW_STATES[find.state.expect("View's state register")]
}

/// A rust-hdl v3 kernel that checks the machines after every evaluation.
struct Watched {
    k: RustHdlKernel<BUILD_N>,
    replica: usize,
    cycle: u64,
    seen: Shared,
}

impl KernelBackend for Watched {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        let out = self.k.eval(inp);
        let p = self.k.kernel().debug_protocol();
        let [leader, fast, slow, view] = p.machines();
        let at = format!(
            "replica {}, cycle {}: Protocol {:?}, machines {:?}",
            self.replica,
            self.cycle,
            p.own_state(),
            p.machines()
        );
        let active = p.machines().iter().filter(|&&a| a).count();
        match p.own_state() {
            ProtocolSt::Run if slow && view => {
                let v = view_state(p);
                assert!(
                    !leader && !fast && matches!(v, ViewSt::ViewBridge | ViewSt::ViewDeliver),
                    "{at}: View in {v:?} beside Slow"
                );
                self.seen.borrow_mut().view_beside.insert(format!("{v:?}"));
            }
            ProtocolSt::Run => assert_eq!(active, 1, "{at}"),
            // R28: SLOW on W, or none (its last cycle).
            ProtocolSt::Close => assert!(!leader && !fast && !view, "{at}"),
            ProtocolSt::Decide if view => {
                let v = view_state(p);
                assert!(
                    active == 1
                        && matches!(
                            v,
                            ViewSt::ViewCatchNext | ViewSt::ViewAwaitNext | ViewSt::ViewDeliver
                        ),
                    "{at}: View in {v:?} in Decide"
                );
                self.seen.borrow_mut().view_beside.insert(format!("{v:?}"));
            }
            // The run's last slot decided while VIEW waited for k to move
            // (R25 while awaiting, or a catch-up): VIEW sees Protocol stop
            // running one cycle late, so it is still out of Off in Done's
            // one cycle (and `sts_state` names its state, not Done); in
            // Idle it is Off (below).
            ProtocolSt::Done if view => {
                let v = view_state(p);
                assert!(
                    active == 1
                        && matches!(
                            v,
                            ViewSt::ViewCatchNext | ViewSt::ViewAwaitNext | ViewSt::ViewDeliver
                        ),
                    "{at}: View in {v:?} in Done"
                );
                self.seen
                    .borrow_mut()
                    .view_beside
                    .insert(format!("Done: {v:?}"));
            }
            _ => assert_eq!(active, 0, "{at}"),
        }
        let who: String = p
            .machines()
            .iter()
            .zip("LFSV".chars())
            .map(|(&a, c)| if a { c } else { '-' })
            .collect();
        self.seen
            .borrow_mut()
            .protocol
            .insert(format!("{:?} {who}", p.own_state()));
        let n = self.k.kernel().debug_state();
        assert_eq!(
            STATE_NAMES.get(n as usize).copied(),
            Some(p.state_name().as_str()),
            "{at}: sts_state {n}"
        );
        self.seen.borrow_mut().states.insert(n);
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

fn watched(n: usize, seen: &Shared) -> Vec<Box<dyn KernelBackend>> {
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

fn names(seen: &Shared) -> Vec<&'static str> {
    seen.borrow()
        .states
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

/// Runs `s` on watched kernels; the checks must pass.
fn run_watched(s: &Scenario, seen: &Shared) -> RunReport {
    let report = s
        .cluster_with_kernels(watched(s.replicas, seen))
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.layout, "v3");
    assert!(
        report.checks.ok(),
        "{:?}\n{}",
        report.checks.failures,
        report.summary()
    );
    report
}

/// Three timely replicas decide 3 slots on the fast path: LEADER and FAST
/// hold the slots; at the end Protocol's Close runs SLOW in seal mode on
/// the last slot's will_commit (R28).
#[test]
fn one_machine_at_a_time_on_the_fast_path() {
    let seen = Shared::default();
    let cfg = ClusterConfig {
        wait_polls: 64,
        ..ClusterConfig::quick(3, 3)
    };
    let report = Cluster::with_kernels(cfg, watched(3, &seen)).run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    assert_eq!(report.layout, "v3");
    for r in &report.replicas {
        assert_eq!(r.decided.len(), 3, "{}", report.summary());
        assert_eq!(r.status.timeouts, 0, "{}", report.summary());
    }
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
    // LEADER and FAST held every slot; SLOW ran only in Close, on the
    // last slot's W (R28), and VIEW never.
    let protocol = &seen.borrow().protocol;
    assert!(
        protocol.contains("Run L---") && protocol.contains("Run -F--"),
        "{protocol:?}"
    );
    assert!(protocol.contains("Close --S-"), "{protocol:?}");
    for p in protocol.iter() {
        let (st, who) = p.split_once(' ').unwrap();
        assert!(st == "Close" || !who.contains('S'), "{protocol:?}");
    }
    assert!(s.iter().all(|n| !n.starts_with("View")), "{s:?}");
}

/// SLOW (R7 to R12, slow.md): `scenarios/mute_fast.toml` (replica 2
/// writes no fast votes, so every slot goes slow) cut to 2 slots. Every
/// state of SLOW's normal mode but its suspect checks (SlowVerifySuspect,
/// SlowVerifySeal: an equivocation or a SEAL to verify) is visited.
#[test]
fn one_machine_at_a_time_on_the_slow_path() {
    let seen = Shared::default();
    let mut s = scenario("mute_fast.toml");
    s.slots = 2;
    let report = run_watched(&s, &seen);
    for r in report.honest() {
        assert_eq!(r.decided.len(), 2, "{}", report.summary());
        assert!(r.decided.iter().all(|d| d.path == DecisionPath::Slow));
    }
    let s = names(&seen);
    for state in [
        "SlowStart",
        "SlowSignPrep",
        "SlowSendPrepSig",
        "SlowPollPrepSig",
        "SlowWaitPrepSig",
        "SlowVerifyPrep",
        "SlowEchoPrep",
        "SlowPollEchoPrep",
        "SlowWaitEchoPrep",
        "SlowSignCert",
        "SlowSendCert",
        "SlowPollCertify",
        "SlowWaitCertify",
        "SlowVerifyShare",
        "SlowSignCommit",
        "SlowSendCommit",
        "SlowPollCommit",
        "SlowWaitCommit",
        "SlowVerifyCommit",
        "SlowEchoCommit",
        "SlowPollSeal",
        "SlowWaitSeal",
        "SlowPollEchoSeal",
        "SlowWaitEchoSeal",
    ] {
        assert!(s.contains(&state), "{state} not visited: {s:?}");
    }
    assert!(
        s.iter().all(|n| !n.starts_with("View")),
        "no view change: {s:?}"
    );
}

/// VIEW (view.md), in two runs:
/// - the leader of n = 3 silent from the cycle after its fast decision of
///   slot 3 (an event; cycle 763 with these settings): the followers time out, bridge slot 3 (VIEW in ViewBridge
///   while SLOW certifies and commits W in seal mode, R17), seal view 0
///   with that L, and replica 1 writes NEW_VIEW(1) with W's certificate,
///   read back in ViewPollCert to ViewVerifyCert; both install view 1 and
///   decide slot 4 there;
/// - `scenarios/view_ahead_at_the_end.toml`: replica 2 seals view 0 alone
///   and decides the last slot from its peers' COMMITs while it awaits a
///   NEW_VIEW (VIEW in ViewDeliver while SLOW delivers, R25).
///
/// Not visited here: the catch-up states (ViewPollCatch, ViewWaitCatch,
/// ViewCatchNext, ViewAwaitNext) and R21's ViewVerifySuspect, which
/// `cluster.rs` runs on Verilator.
#[test]
fn one_machine_at_a_time_through_view_changes() {
    let seen = Shared::default();
    let cfg = ClusterConfig {
        wait_polls: 64,
        ..ClusterConfig::quick(3, 4)
    };
    let mut c = Cluster::with_kernels(cfg, watched(3, &seen));
    let silent = c.set_adversary_from(
        0,
        Event::Decided {
            replica: 0,
            slot: 3,
        },
        Box::new(Silent { from_cycle: 0 }),
    );
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let d3 = &report.replicas[0].decided[2];
    assert_eq!(
        (d3.k, d3.path),
        (3, DecisionPath::Fast),
        "{}",
        report.summary()
    );
    assert_eq!(
        silent.start(),
        Some(d3.cycle + 1),
        "silent from the cycle after"
    );
    for r in report.honest() {
        assert_eq!((r.decided.len(), r.view), (4, 1), "{}", report.summary());
    }
    let report = run_watched(&scenario("view_ahead_at_the_end.toml"), &seen);
    assert_eq!(report.replicas[2].view, 1, "{}", report.summary());
    let s = names(&seen);
    for state in [
        "ViewStart",
        "ViewTurn",
        "ViewSignSeal",
        "ViewSendSeal",
        "ViewPollSeals",
        "ViewWaitSeals",
        "ViewNext",
        "ViewLoad",
        "ViewVerify",
        "ViewPollOwnEcho",
        "ViewWaitOwnEcho",
        "ViewSendEchoSeal",
        "ViewPollEchoCommit",
        "ViewWaitEchoCommit",
        "ViewSendNv",
        "ViewPollNv",
        "ViewWaitNv",
        "ViewPollNvRec",
        "ViewWaitNvRec",
        "ViewInstall",
        "ViewPollCert",
        "ViewWaitCert",
        "ViewVerifyCert",
        "ViewDeliver",
    ] {
        assert!(s.contains(&state), "{state} not visited: {s:?}");
    }
    // The two hand-overs from VIEW to SLOW happened, each with VIEW
    // waiting and SLOW reported.
    let beside = &seen.borrow().view_beside;
    for v in ["ViewBridge", "ViewDeliver"] {
        assert!(beside.contains(v), "View in {v} beside Slow: {beside:?}");
    }
    assert!(
        !s.contains(&"ViewBridge"),
        "ViewBridge is never reported: {s:?}"
    );
}
