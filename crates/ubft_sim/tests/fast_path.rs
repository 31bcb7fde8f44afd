//! The fast path, end to end, on simulated clusters of the shipped kernel
//! (v3, `Kernel`) in rust-hdl's simulator, and the ubft_new bugs the fast
//! path fixes (each test fails if its fix is undone).

use rhdl_ubft::layout::{records, Mailbox, Region};
use rhdl_ubft::params::defaults;
use rhdl_ubft::params::{vote_tag, ConfigError, G, N, SB};
use ubft_sim::adversary::silent::Silent;
use ubft_sim::backend::rust_hdl::RustHdlKernel;
use ubft_sim::cluster::{Cluster, ClusterConfig, Path, RunReport, NETWORK_PTR};
use ubft_sim::models::client::proposal;
use ubft_sim::ports::{KernelBackend, KernelIn, KernelOut};

/// A cluster of `cfg` on rust-hdl's simulator.
fn rust_hdl_cluster(cfg: ClusterConfig) -> Result<Cluster, ubft_sim::backend::RunError> {
    ubft_sim::backend::cluster(&cfg, ubft_sim::backend::Backend::RustHdl)
}

/// Short links keep rust-hdl's simulator quick; the benchmark uses the
/// performance model's L = 300, H = 80.
fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    // The tests' short links, with the longer wait (64 polls) and the
    // default signer the fast-path tests were written for.
    let cfg = ClusterConfig {
        wait_polls: 64,
        sign_latency: defaults::SIGN_LATENCY,
        verify_latency: defaults::VERIFY_LATENCY,
        ..ClusterConfig::quick(replicas, slots)
    };
    cfg
}

fn byte(word: usize) -> u64 {
    NETWORK_PTR + 4 * word as u64
}

fn layout() -> Mailbox {
    Mailbox::v3(N, G, SB)
}

/// A v3 prepare as it lies in HBM: (k, m, v, prev) in `records` order.
fn prepare(k: u32, m: u32, view: u32, prev: u32) -> Vec<u32> {
    let mut p = vec![0; 4];
    p[records::PREPARE_K] = k;
    p[records::PREPARE_M] = m;
    p[records::PREPARE_V] = view;
    p[records::PREPARE_PREV] = prev;
    p
}

/// The shipped kernel in rust-hdl's simulator.
fn kernel() -> RustHdlKernel<N> {
    RustHdlKernel::<N>::new()
}

/// Every replica decided k = 1..=slots on the fast path, the same values,
/// equal to the client's proposals in order.
fn assert_fast_path_agreement(report: &RunReport, slots: u64, seed: u64) {
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let expected: Vec<(u64, u32)> = (1..=slots).map(|k| (k, proposal(seed, k - 1))).collect();
    for r in &report.replicas {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        assert_eq!(got, expected, "replica {}", r.id);
        assert!(
            r.decided.iter().all(|d| d.path == Path::Fast),
            "replica {}",
            r.id
        );
        assert_eq!(r.status.fast as u64, slots);
        assert_eq!(r.status.timeouts, 0, "replica {} timed out", r.id);
    }
    // Decisions come out in time order too.
    for r in &report.replicas {
        assert!(r.decided.windows(2).all(|w| w[0].cycle < w[1].cycle));
    }
}

fn fast_path_cluster(n: usize, seed: u64) {
    let slots = 40;
    assert!(slots as usize > G, "more slots than the window");
    let mut c = rust_hdl_cluster(ClusterConfig {
        seed,
        ..quick(n, slots)
    })
    .unwrap();
    let report = c.run().unwrap();
    assert_fast_path_agreement(&report, slots, seed);
    for r in &report.replicas {
        assert_eq!(r.guard.refused, 0, "replica {}", r.id);
    }
    assert_eq!(report.network.guard_disagreements, 0);
    // The window's last G prepares, in every mailbox: each carries the
    // value decided at k - 1 (prev), across the window's wrap.
    let mb = layout();
    for r in 0..n {
        for k in slots - G as u64 + 1..=slots {
            let slot = (k as usize - 1) % G;
            let got = c.hbms[r].read_words(byte(mb.prepare(slot)), 4);
            let want = prepare(k as u32, proposal(seed, k - 1), 0, proposal(seed, k - 2));
            assert_eq!(got, want, "replica {r}, the prepare of k = {k}");
        }
    }
}

#[test]
fn three_replicas_decide_40_slots_on_the_fast_path() {
    fast_path_cluster(3, 11);
}

#[test]
fn five_replicas_decide_40_slots_on_the_fast_path() {
    fast_path_cluster(5, 12);
}

#[test]
fn seven_replicas_decide_40_slots_on_the_fast_path() {
    fast_path_cluster(7, 13);
}

/// ubft_new sent each vote to one queue pair. Every replica's records must
/// reach every peer: per queue pair, the leader sends a prepare and two votes
/// per slot, a follower two votes.
#[test]
fn every_vote_reaches_every_replica() {
    let (n, slots) = (5, 6);
    let report = rust_hdl_cluster(quick(n, slots)).unwrap().run().unwrap();
    assert!(report.checks.ok());
    for src in 0..n {
        for dst in 0..n {
            let expected = if src == dst {
                0
            } else if src == 0 {
                3 * slots
            } else {
                2 * slots
            };
            assert_eq!(
                report.network.writes[src][dst], expected,
                "queue pair {src} -> {dst}"
            );
        }
        assert_eq!(report.network.refused[src], 0);
    }
}

/// ubft_new's leader never voted, so a quorum of all n was unreachable. The
/// leader's will_cert and will_commit entries must be in every mailbox.
#[test]
fn the_leaders_votes_reach_every_mailbox() {
    let (n, slots, seed) = (3, 3, 5);
    let mut c = rust_hdl_cluster(ClusterConfig {
        seed,
        ..quick(n, slots)
    })
    .unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok());
    let mb = layout();
    for r in 0..n {
        for k in 1..=slots {
            let slot = (k as usize - 1) % G;
            let want = vec![vote_tag(0, k as u32), proposal(seed, k - 1)];
            for region in [Region::WillCert, Region::WillCommit] {
                let got = c.hbms[r].read_words(byte(mb.vote(region, slot, 0)), 2);
                assert_eq!(
                    got, want,
                    "replica {r}'s {region:?} entry of leader 0, k = {k}"
                );
            }
        }
    }
}

/// ubft_new's k repeated every G_T slots and its mailboxes were never
/// cleared, so a reused slot decided its stale value. Here the leader's
/// client runs dry after G slots: slot 0 still holds k = 1's complete
/// prepare and votes when k = G + 1 comes, and nobody may decide again.
#[test]
fn a_reused_slot_never_decides_its_old_value() {
    let n = 3;
    let slots = G as u64 + 1;
    let mut c = rust_hdl_cluster(ClusterConfig {
        wait_polls: 16,
        max_cycles: 30_000,
        ..quick(n, slots)
    })
    .unwrap();
    // The clients send G requests in all (to every replica, so the next
    // leaders, after view changes, have nothing to propose either).
    for r in 0..n {
        c.clients[r].limit = Some(G as u64);
    }
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in &report.replicas {
        assert_eq!(
            r.decided.len(),
            G,
            "replica {} decided only the {} proposed slots",
            r.id,
            G
        );
    }
    // The leader waits for a value; the followers poll k = G + 1 and time out.
    for r in &report.replicas[1..] {
        assert!(
            r.status.timeouts > 0,
            "replica {} waited for k = {} and timed out",
            r.id,
            G + 1
        );
    }
    // Slot 0 still holds k = 1's complete, stale quorum.
    let mb = layout();
    let stale = c.hbms[1].read_words(byte(mb.vote(Region::WillCommit, 0, 2)), 2);
    assert_eq!(stale[0], vote_tag(0, 1));
}

/// ubft_new's prepare carried no view, so an old view's proposal was voted
/// on; and followers voted for any value. A prepare is voted on only in the
/// current view, only with a value a client sent (a request the replica
/// holds, recovery.md R2), and (v3) only when its prev is the replica's own
/// decision at k - 1 (R4; 0 before the first): the same prepare in another
/// view, with a made-up value or with another prev, is not.
#[test]
fn a_prepare_is_voted_on_only_in_its_view_with_a_clients_value_and_its_prev() {
    let n = 3;
    let mb = layout();
    let seed = quick(n, 1).seed;
    let request = proposal(seed, 0);
    for (view, m, prev, votes) in [
        (100u32, request, 0, false),
        (0u32, request, 0, true),
        (0u32, 0xABCD, 0, false),
        (0u32, request, 0x5EED, false),
    ] {
        let mut c = rust_hdl_cluster(ClusterConfig {
            wait_polls: 8,
            max_cycles: 3_000,
            ..quick(n, 1)
        })
        .unwrap();
        // One request, which every replica holds. The view-0 leader is
        // silent, so the planted prepare is all replicas 1 and 2 see (and
        // after a view change, whatever they propose goes to a later view).
        for r in 0..n {
            c.clients[r].limit = Some(1);
        }
        c.set_adversary(0, Box::new(Silent { from_cycle: 0 }));
        for r in 0..n {
            c.hbms[r].write_words(byte(mb.prepare(0)), &prepare(1, m, view, prev));
        }
        let report = c.run().unwrap();
        assert!(report.checks.ok(), "{:?}", report.checks.failures);
        for r in 1..n {
            let vote = c.hbms[r].read_words(byte(mb.vote(Region::WillCert, 0, r)), 2);
            if votes {
                assert_eq!(
                    vote,
                    vec![vote_tag(0, 1), m],
                    "replica {r} votes in its view for the client's value"
                );
            } else {
                assert_ne!(
                    vote,
                    vec![vote_tag(0, 1), m],
                    "replica {r} voted on a view-{view} prepare of {m:#x}, prev {prev:#x}"
                );
                assert!(report.replicas[r].decided.iter().all(|d| d.m == request));
                assert!(report.replicas[r].status.timeouts > 0);
            }
        }
    }
}

/// ubft_new's vote was the word 1 and bound nothing. A follower that sends
/// each peer a vote for a different m must not complete anyone's fast-path
/// quorum of all n: nobody decides on the fast path, everybody times out,
/// and the slow path (f + 1 signed COMMITs, which the forger does not
/// touch) decides every slot with the client's requests.
#[test]
fn a_vote_for_another_m_does_not_count() {
    let (n, slots, seed) = (3, 2, 1);
    let cfg = ClusterConfig {
        seed,
        ..ClusterConfig::quick(n, slots)
    };
    let mut c = rust_hdl_cluster(cfg).unwrap();
    c.set_adversary(
        2,
        Box::new(ubft_sim::adversary::wrong_fast_votes::WrongFastVotes { mailbox: layout() }),
    );
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    for r in report.honest() {
        let got: Vec<(u64, u32, Path)> = r.decided.iter().map(|d| (d.k, d.m, d.path)).collect();
        let want: Vec<(u64, u32, Path)> = (1..=slots)
            .map(|k| (k, proposal(seed, k - 1), Path::Slow))
            .collect();
        assert_eq!(got, want, "replica {} decided on forged votes", r.id);
        assert_eq!(r.status.fast, 0, "replica {}", r.id);
        assert!(r.status.timeouts > 0);
    }
    // The forged votes did arrive: each honest replica holds replica 2's
    // will_cert for k = 1 with an m that was never proposed.
    let mb = layout();
    for r in 0..2 {
        let v = c.hbms[r].read_words(byte(mb.vote(Region::WillCert, 0, 2)), 2);
        assert_eq!(v[0], vote_tag(0, 1));
        assert!(!report.proposed.contains(&v[1]));
    }
}

/// A rust-hdl kernel that notes the view (Protocol's `sts_view`) of each
/// decision it hands over.
struct ViewAtDecision {
    k: RustHdlKernel<N>,
    views: std::sync::Arc<std::sync::Mutex<Vec<(u32, u32)>>>,
}

impl KernelBackend for ViewAtDecision {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        let out = self.k.eval(inp);
        if out.dec_tvalid && inp.dec_tready {
            let view = self.k.kernel().debug_protocol().sts_view.val().to_u32();
            self.views.lock().unwrap().push((out.dec_k, view));
        }
        out
    }
    fn tick(&mut self) {
        self.k.tick();
    }
    fn name(&self) -> &'static str {
        "rust-hdl"
    }
}

/// An equivocating leader (`Equivocate`: two client requests for one
/// slot, one to each half of its peers, each backed by a PREP block it
/// signs) cannot split the replicas: no fast-path quorum of all n forms,
/// and the echo of its signed PREP blocks (R8) keeps the slow path from
/// delivering either value, so nobody decides in view 0. Every replica
/// counts its timeout and changes view, and every slot is decided in the
/// view the replica ends in (view 1 on this run, every slot on the slow
/// path: the new leader's first fast wait runs out while its followers
/// still check NEW_VIEW(1)), the client's requests in order, in
/// agreement.
#[test]
fn an_equivocating_leader_cannot_split_the_replicas() {
    let (n, slots, seed) = (5, 3, 1);
    let cfg = ClusterConfig {
        equivocate: vec![0],
        seed,
        wait_polls: 64,
        // The run needs 22,946 cycles, over the quick budget for 3 slots.
        max_cycles: 60_000,
        ..ClusterConfig::quick(n, slots)
    };
    type Views = std::sync::Arc<std::sync::Mutex<Vec<(u32, u32)>>>;
    let views: Vec<Views> = (0..n).map(|_| Views::default()).collect();
    let kernels = views
        .iter()
        .map(|v| {
            Box::new(ViewAtDecision {
                k: kernel(),
                views: v.clone(),
            }) as Box<dyn KernelBackend>
        })
        .collect();
    let report = Cluster::with_kernels(cfg, kernels).run().unwrap();
    eprintln!("{}", report.summary());
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let want: Vec<(u64, u32)> = (1..=slots).map(|k| (k, proposal(seed, k - 1))).collect();
    for r in report.honest() {
        let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
        assert_eq!(got, want, "replica {}", r.id);
        assert!(r.status.timeouts > 0, "replica {} counts its timeout", r.id);
        assert!(r.status.view_changes > 0, "replica {}", r.id);
        let views = views[r.id].lock().unwrap().clone();
        eprintln!("replica {}: (k, view) {views:?}", r.id);
        assert_eq!(views.len() as u64, slots);
        assert!(
            views.iter().all(|&(_, v)| v > 0 && v == r.view),
            "replica {} decided in the equivocating leader's view: {views:?}",
            r.id
        );
    }
}

/// A configuration the kernel refuses is refused with a code in its status
/// register, and ap_done follows: the host writes the arguments through
/// s_axi_control, starts the kernel, polls CTRL and reads the error code.
#[test]
fn the_kernel_refuses_bad_configurations_with_a_status_code() {
    use rhdl_ubft::params::K_WRAP;
    use rhdl_ubft::regs;
    use ubft_sim::models::host::{Args, Host, Op};
    let wrap = K_WRAP as u32;
    let cases = [
        (4, 0, NETWORK_PTR, 1, ConfigError::EvenReplicas),
        (0, 0, NETWORK_PTR, 1, ConfigError::EvenReplicas),
        (9, 0, NETWORK_PTR, 1, ConfigError::TooManyReplicas),
        (3, 3, NETWORK_PTR, 1, ConfigError::IdOutOfRange),
        (3, 1, NETWORK_PTR + 64, 1, ConfigError::BufferMisaligned),
        (3, 1, NETWORK_PTR, wrap, ConfigError::SlotsWrap),
        (3, 1, NETWORK_PTR, u32::MAX, ConfigError::SlotsWrap),
        (3, 1, NETWORK_PTR, wrap - 1, ConfigError::None),
        (3, 1, NETWORK_PTR, 0, ConfigError::None),
        (3, 1, NETWORK_PTR, 1, ConfigError::None),
    ];
    for (n, id, ptr, slots, want) in cases {
        assert_eq!(
            ConfigError::check(n as usize, id as usize, N, ptr, slots as u64),
            want
        );
        let mut k = kernel();
        let mut host = Host::new();
        host.configure(&Args {
            network_ptr: ptr,
            id,
            n,
            wait_polls: 8,
            slots,
            qpn_base: 0,
        });
        let mut done_at = None;
        for cycle in 0..200u64 {
            if host.idle() {
                if done_at.is_none() {
                    host.poll_ctrl();
                } else {
                    break;
                }
            }
            let mut inp = KernelIn {
                ap_rst_n: cycle >= 1,
                ..KernelIn::default()
            };
            host.drive(&mut inp);
            let out = k.eval(&inp);
            host.observe(&inp, &out, cycle);
            if host.ctrl() & regs::ctrl::AP_DONE != 0 && done_at.is_none() {
                done_at = Some(cycle);
                host.push(Op::Read {
                    addr: regs::ERROR_CODE,
                });
            }
            k.tick();
        }
        assert!(host.violations().is_empty(), "{:?}", host.violations());
        let error = host
            .reads
            .iter()
            .rev()
            .find(|r| r.0 == regs::ERROR_CODE)
            .map(|r| r.1);
        if want == ConfigError::None {
            assert_eq!(
                done_at, None,
                "an accepted configuration runs (n = {n}, id = {id}, slots = {slots})"
            );
        } else {
            assert!(done_at.is_some(), "ap_done after a refused configuration");
            assert_eq!(
                error.and_then(|e| ConfigError::from_code(e as u64)),
                Some(want),
                "n = {n}, id = {id}, slots = {slots}"
            );
        }
    }
}

/// A rust-hdl kernel whose run starts at sequence number `k0` instead of 1
/// (`Protocol::preset_k`, set on the edge at which Protocol enters Run), so
/// a test reaches the k at which vote_tag's k field wraps without 16.7 M
/// decisions. It notes the cycle at which Protocol reaches Done.
struct StartAt {
    k: RustHdlKernel<N>,
    k0: u32,
    preset: bool,
    cycle: u64,
    done_at: std::rc::Rc<std::cell::Cell<Option<u64>>>,
}

impl KernelBackend for StartAt {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        self.k.eval(inp)
    }
    fn tick(&mut self) {
        use rhdl_ubft::controller::protocol::ProtocolSt;
        self.k.tick();
        self.cycle += 1;
        let st = self.k.kernel().debug_protocol().own_state();
        if !self.preset && st == ProtocolSt::Run {
            self.k.kernel_mut().debug_protocol_mut().preset_k(self.k0);
            self.preset = true;
        }
        if st == ProtocolSt::Done && self.done_at.get().is_none() {
            self.done_at.set(Some(self.cycle));
        }
    }
    fn name(&self) -> &'static str {
        "rust-hdl"
    }
}

#[test]
fn a_run_stops_before_k_wraps_with_a_status_code() {
    use rhdl_ubft::params::{K_LAST, K_WRAP};
    // Started at k = 2^24 - 3 with room for 5 slots: the run decides
    // 2^24 - 3, 2^24 - 2 and 2^24 - 1, then stops (Done, ap_done) in the
    // cycle after the last decision (no Close, R28, as after a run's last
    // slot), with code 6 (KWrapped) in `error`; nothing is decided at
    // k = 2^24, whose tag has k's field at zero.
    let k0 = (K_LAST - 2) as u32;
    let cfg = quick(3, 5);
    let done: Vec<_> = (0..3)
        .map(|_| std::rc::Rc::new(std::cell::Cell::new(None)))
        .collect();
    let kernels: Vec<Box<dyn KernelBackend>> = done
        .iter()
        .map(|d| {
            Box::new(StartAt {
                k: kernel(),
                k0,
                preset: false,
                cycle: 0,
                done_at: d.clone(),
            }) as Box<dyn KernelBackend>
        })
        .collect();
    let mut c = Cluster::with_kernels(cfg.clone(), kernels);
    let budget = cfg.cycle_budget();
    while c.cycle < budget && done.iter().any(|d| d.get().is_none()) {
        c.step().unwrap();
    }
    // Three times as long as a slot took, for a decision had the run gone on.
    let d = c.report().replicas[0].decided.clone();
    assert_eq!(d.len(), 3, "the run stops after three decisions");
    for _ in 0..3 * (d[2].cycle - d[1].cycle) {
        c.step().unwrap();
    }
    c.read_status().unwrap();
    let report = c.report();
    for (r, d) in report.replicas.iter().zip(&done) {
        let ks: Vec<u64> = r.decided.iter().map(|d| d.k).collect();
        assert_eq!(ks, vec![K_LAST - 2, K_LAST - 1, K_LAST], "replica {}", r.id);
        assert!(ks.iter().all(|&k| k < K_WRAP));
        let last = r.decided.last().unwrap();
        assert_eq!(
            d.get(),
            Some(last.cycle + 1),
            "replica {}: Done the cycle after deciding k = 2^24 - 1",
            r.id
        );
        assert_eq!(
            ConfigError::from_code(r.status.error as u64),
            Some(ConfigError::KWrapped),
            "replica {}",
            r.id
        );
        assert_eq!(r.status.decisions, 3);
        assert_eq!(r.status.state, 0, "back in Idle");
    }
    // Every replica decided the same values, each a proposal.
    let ms: Vec<Vec<u32>> = report
        .replicas
        .iter()
        .map(|r| r.decided.iter().map(|d| d.m).collect())
        .collect();
    assert!(ms.iter().all(|m| *m == ms[0]));
    // The report says which rule stopped the run.
    let summary = report.summary();
    assert!(
        summary.contains("stopped (status code 6)")
            && summary.contains(ConfigError::KWrapped.rule()),
        "{summary}"
    );
}
