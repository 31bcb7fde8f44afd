//! The kernel's cluster runs: the configuration's, a scenario's and the
//! CLI's layout (v3, the only one; v1 and v2 refused by name, the CLI has
//! no `--layout`), Byzantine replicas whose adversaries know the kernel's
//! records, the network model's v3 rule (the guard's reference), and
//! clusters on the fast path, the slow path and through view changes.

use rhdl_ubft::guard::Refusal;
use rhdl_ubft::layout::{records, Mailbox, Region, Version, PREPARE_WORDS};
use rhdl_ubft::params::{defaults, G, N as BUILD_N, SB};
use std::process::Command;
use ubft_sim::backend::lockstep::differential;
use ubft_sim::backend::verilator::harness::{parse_ports, TOP};
use ubft_sim::backend::verilator::{kernel_verilog, Library};
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{
    parse_layout, ClusterConfig, Event, LinkDelay, Path, LAYOUT_REFUSED, NETWORK_PTR,
};
use ubft_sim::models::client::proposal;
use ubft_sim::models::hbm::Hbm;
use ubft_sim::models::network::{Delivery, Network, RefuseReason, Write};
use ubft_sim::scenario::{Scenario, BYZANTINE_KINDS, RECOVERY_KINDS};

#[test]
fn the_mailbox_is_v3_and_only_v3_is_a_layout() {
    assert_eq!(
        ClusterConfig::new(3, 1).mailbox(),
        Mailbox::v3(BUILD_N, G, SB)
    );
    assert_eq!(
        ClusterConfig::quick(3, 1).mailbox(),
        Mailbox::v3(BUILD_N, G, SB)
    );
    assert_eq!(ClusterConfig::quick(3, 1).validate(), Ok(()));
    assert_eq!(parse_layout("v3"), Ok(Version::V3));
    for name in ["v1", "v2", "v4"] {
        let err = parse_layout(name).unwrap_err();
        assert!(err.contains(LAYOUT_REFUSED), "{name}: {err}");
        assert!(err.contains(&format!("layout \"{name}\"")), "{name}: {err}");
    }
    let err = parse_layout("v5").unwrap_err();
    assert!(err.contains("unknown layout \"v5\""), "{err}");
}

#[test]
fn an_equivocating_replica_is_taken() {
    let cfg = ClusterConfig {
        equivocate: vec![1],
        ..ClusterConfig::quick(3, 1)
    };
    assert_eq!(cfg.validate(), Ok(()));
    // An id not below n is refused.
    let cfg = ClusterConfig {
        equivocate: vec![3],
        ..cfg
    };
    assert!(cfg.validate().is_err());
}

#[test]
fn the_scenario_key_is_v3_when_absent_and_always_written() {
    let s = Scenario::from_toml("replicas = 3\nslots = 2\n").unwrap();
    assert_eq!(s.layout, Version::V3);
    assert_eq!(s, Scenario::new(3, 2));
    // Written out even at the default, so a printed scenario names the
    // layout it ran.
    assert!(s.to_toml().contains("layout = \"v3\""), "{}", s.to_toml());
    let s = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = \"v3\"\n").unwrap();
    assert_eq!(s.layout, Version::V3);
    assert_eq!(s.config().mailbox(), Mailbox::v3(BUILD_N, G, SB));
    assert!(s.to_toml().contains("layout = \"v3\""), "{}", s.to_toml());
    assert_eq!(Scenario::from_toml(&s.to_toml()).unwrap(), s);
    // A delay is no Byzantine replica: allowed.
    let s = Scenario::from_toml(
        "replicas = 3\nslots = 2\nlayout = \"v3\"\n[[fault]]\nkind = \"delay\"\nsrc = 0\ndst = 1\nextra = 100\n",
    )
    .unwrap();
    assert_eq!(s.config().delays.len(), 1);
}

#[test]
fn the_scenario_key_refuses_v1_v2_and_unknown_layouts_by_name() {
    for name in ["v1", "v2"] {
        let err = Scenario::from_toml(&format!("replicas = 3\nslots = 2\nlayout = \"{name}\"\n"))
            .unwrap_err();
        assert!(err.contains(LAYOUT_REFUSED), "{name}: {err}");
        assert!(err.contains(&format!("layout \"{name}\"")), "{name}: {err}");
    }
    let err = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = \"v9\"\n").unwrap_err();
    assert!(err.contains("unknown layout \"v9\""), "{err}");
    let err = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = 3\n").unwrap_err();
    assert!(err.contains("layout"), "{err}");
}

#[test]
fn every_byzantine_kind_runs() {
    // Every kind has an adversary that targets the kernel's records, so the
    // cluster takes each; RECOVERY_KINDS are among them.
    for kind in RECOVERY_KINDS {
        assert!(BYZANTINE_KINDS.contains(&kind), "{kind}");
    }
    for kind in BYZANTINE_KINDS {
        let text = format!(
            "replicas = 3\nslots = 2\nlayout = \"v3\"\n[[fault]]\nkind = \"delay\"\nsrc = 0\ndst = 1\nextra = 9\n[[fault]]\nkind = \"{kind}\"\nreplica = 1\n"
        );
        // The same scenario on v2 is refused for its layout.
        let v2 = text.replace("layout = \"v3\"", "layout = \"v2\"");
        let err = Scenario::from_toml(&v2).unwrap_err();
        assert!(err.contains(LAYOUT_REFUSED), "{kind}: {err}");
        let mut s = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(s.check().is_ok(), "{kind}");
        s.slots = 1;
        let c = s
            .cluster(Backend::RustHdl)
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(!c.is_honest(1) && c.is_honest(0), "{kind}");
    }
}

fn rhdl_ubft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rhdl-ubft"))
        .args(args)
        .output()
        .expect("rhdl-ubft runs")
}

/// `simulate` has no `--layout` flag: the kernel runs v3, and clap refuses
/// the flag whatever its value.
#[test]
fn the_cli_refuses_a_layout_flag() {
    for layout in ["v1", "v2", "v3"] {
        let out = rhdl_ubft(&[
            "simulate",
            "--replicas",
            "3",
            "--slots",
            "2",
            "--layout",
            layout,
        ]);
        assert_eq!(out.status.code(), Some(2), "{layout}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("unexpected argument '--layout'"),
            "{layout}: {err}"
        );
        assert!(out.stdout.is_empty(), "{layout}");
    }
}

const PTR: u64 = 0x1_0000_0000;

/// The network model of a 3-replica v3 cluster filtering by its own rule.
fn reference_network() -> (Network, Mailbox) {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let mut net = Network::new(3, 10, mb.clone(), PTR, 16);
    net.set_delivery(Delivery::Model);
    (net, mb)
}

#[test]
fn the_network_model_checks_writes_by_the_references_rule() {
    let (net, mb) = reference_network();
    let w = |word: usize, data: Vec<u32>| Write { word, data };
    // A PREPARE (k, m, v, prev) of view 4 is its leader's, 4 mod 3 = 1.
    let mut prepare = vec![0; 4];
    prepare[records::PREPARE_K] = 6;
    prepare[records::PREPARE_M] = 0x99;
    prepare[records::PREPARE_V] = 4;
    let p = w(mb.prepare(5), prepare.clone());
    assert_eq!(net.guard(1, &p), Ok(()));
    assert_eq!(
        net.guard(0, &p),
        Err(RefuseReason::NotLeader {
            region: Region::Prepare,
            view: 4
        })
    );
    // Without its view word.
    assert_eq!(
        net.guard(1, &w(mb.prepare(5), prepare[..2].to_vec())),
        Err(RefuseReason::Shape {
            region: Region::Prepare
        })
    );
    // The fast path's votes: each replica's own entry only.
    let vote = mb.vote(Region::WillCert, 3, 2);
    assert_eq!(net.guard(2, &w(vote, vec![1, 2])), Ok(()));
    assert_eq!(
        net.guard(1, &w(vote, vec![1, 2])),
        Err(RefuseReason::NotOwner {
            word: vote,
            owner: Some(2)
        })
    );
    // A v3 record owned per writer: certify[slot 2][writer 1].
    let cert = mb.record(Region::Certify, 2, 1);
    assert_eq!(net.guard(1, &w(cert, vec![7; 16])), Ok(()));
    assert_eq!(
        net.guard(0, &w(cert, vec![7; 16])),
        Err(RefuseReason::NotOwner {
            word: cert,
            owner: Some(1)
        })
    );
    // Each verdict is the reference's.
    for (src, write) in [
        (1, &p),
        (0, &p),
        (2, &w(vote, vec![1, 2])),
        (1, &w(vote, vec![1, 2])),
    ] {
        let reference = rhdl_ubft::guard::check(&mb, 3, src, write.word, &write.data);
        let model = net.guard(src, write).map_err(|r| r.refusal());
        assert_eq!(model, reference, "{src} writes at {}", write.word);
    }
    assert_eq!(
        net.guard(1, &w(mb.end() - 1, vec![0, 0]))
            .map_err(|r| r.refusal()),
        Err(Refusal::Outside)
    );
}

/// The tests' short links, with the longer wait (64 polls) and the default
/// signer, as fast_path.rs and verilator.rs run them.
fn quick(replicas: usize, slots: u64) -> ClusterConfig {
    ClusterConfig {
        wait_polls: 64,
        sign_latency: defaults::SIGN_LATENCY,
        verify_latency: defaults::VERIFY_LATENCY,
        ..ClusterConfig::quick(replicas, slots)
    }
}

fn byte(word: usize) -> u64 {
    NETWORK_PTR + 4 * word as u64
}

#[test]
fn the_verilator_library_is_the_kernels_verilog() {
    let v = kernel_verilog();
    assert!(v.contains("the v3 layout"), "its header names the layout");
    let lib = Library::get().unwrap();
    assert_eq!(lib.ports, parse_ports(&v, TOP).unwrap());
    // One library, loaded once.
    assert_eq!(lib.path, Library::get().unwrap().path);
}

/// Three timely replicas decide 8 slots, all on the fast path: the
/// client's requests in order, the guards agreeing with the model's v3
/// rule on every write, and each prepare in HBM where v3 puts it,
/// (k, m, v, prev = dec[k - 1]).
#[test]
fn three_replicas_decide_8_slots_on_the_fast_path() {
    let (n, slots, seed) = (3, 8, 5);
    let cfg = ClusterConfig {
        seed,
        ..quick(n, slots)
    };
    let mut c3 = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let v3 = c3.run().unwrap();
    let expected: Vec<(u64, u32)> = (1..=slots).map(|k| (k, proposal(seed, k - 1))).collect();
    {
        let report = &v3;
        assert!(report.checks.ok(), "{:?}", report.checks.failures);
        for r in &report.replicas {
            let got: Vec<(u64, u32)> = r.decided.iter().map(|d| (d.k, d.m)).collect();
            assert_eq!(got, expected, "replica {}", r.id);
            assert!(r.decided.iter().all(|d| d.path == Path::Fast));
            assert_eq!(r.status.fast as u64, slots, "replica {}", r.id);
            assert_eq!((r.status.slow, r.status.timeouts), (0, 0));
            assert_eq!(r.status.error, 0, "replica {}", r.id);
            assert_eq!(r.guard.refused, 0, "replica {}", r.id);
        }
        assert!(report.network.guard_agreements > 0);
        assert_eq!(report.network.guard_disagreements, 0);
        // The leader's prepares, one per slot.
        assert_eq!(report.proposal_cycles.len() as u64, slots);
    }
    // The prepares lie where v3 puts them: a beat per slot, (k, m, v, prev).
    let mb = Mailbox::v3(BUILD_N, G, SB);
    assert_eq!(c3.net.mailbox(), &mb);
    for r in 0..n {
        for (i, &(k, m)) in expected.iter().enumerate() {
            let got = c3.hbms[r].read_words(byte(mb.prepare(i)), 4);
            let prev = if i == 0 { 0 } else { expected[i - 1].1 };
            let mut want = vec![0; 4];
            want[records::PREPARE_K] = k as u32;
            want[records::PREPARE_M] = m;
            want[records::PREPARE_V] = 0;
            want[records::PREPARE_PREV] = prev;
            assert_eq!(got, want, "replica {r}, the prepare of k = {k}");
        }
        // The rest of the first prepare's beat is padding.
        assert_eq!(
            c3.hbms[r].read_words(byte(mb.prepare(0) + PREPARE_WORDS), 4),
            vec![0; 4]
        );
    }
    for r in &v3.replicas {
        let d: Vec<(u64, u64)> = r.decided.iter().map(|x| (x.k, x.cycle)).collect();
        eprintln!("replica {}: (k, cycle) {d:?}", r.id);
    }
    assert_eq!(v3.layout, Version::V3.name());
    eprintln!(
        "run: {} cycles; proposals {:?}",
        v3.cycles, v3.proposal_cycles
    );
}

/// The v3 kernel on rust-hdl's simulator and on Verilator: every output
/// port equal on every cycle of a 20-slot fast-path run (past the window of
/// G = 16 slots).
#[test]
fn the_kernel_agrees_on_both_backends() {
    let cfg = ClusterConfig {
        seed: 9,
        ..quick(3, 20)
    };
    let a = differential(&cfg, Backend::RustHdl, Backend::Verilator, 0)
        .unwrap()
        .unwrap_or_else(|m| panic!("{m}"));
    assert!(a.report.checks.ok(), "{:?}", a.report.checks.failures);
    for r in &a.report.replicas {
        assert_eq!(r.decided.len(), 20, "replica {}", r.id);
        assert_eq!(r.status.fast, 20, "replica {}", r.id);
    }
    eprintln!("{} cycles compared", a.cycles);
}

/// A slot whose fast path times out is decided on the v3 slow path (R7 to
/// R12, slow.md): the client's values, in order, on every replica, the
/// first slot slow and the second fast.
#[test]
fn a_timeout_takes_the_kernel_to_its_slow_path() {
    let cfg = late_votes_to_the_leader();
    let v3 = backend::run(&cfg, Backend::Verilator).unwrap();
    assert!(v3.checks.ok(), "{:?}", v3.checks.failures);
    let expected: Vec<(u64, u32)> = (1..=2).map(|k| (k, proposal(cfg.seed, k - 1))).collect();
    for a in &v3.replicas {
        assert_eq!(a.status.error, 0, "replica {}: {}", a.id, v3.summary());
        let values = a.decided.iter().map(|d| (d.k, d.m)).collect::<Vec<_>>();
        assert_eq!(values, expected, "replica {}", a.id);
        assert_eq!(a.decided.len(), 2, "replica {}", a.id);
        assert_eq!(
            a.decided.iter().map(|d| d.path).collect::<Vec<_>>(),
            vec![Path::Slow, Path::Fast],
            "replica {}: slot 1 slow, slot 2 fast",
            a.id
        );
        assert_eq!(
            (a.status.slow, a.status.timeouts),
            (1, 1),
            "replica {}",
            a.id
        );
    }
    eprintln!("{}", v3.summary());
}

/// `simulate` runs the kernel and names its layout, v3, in the summary
/// and the JSON report. At the run's end (the last honest decision) every
/// replica is in Close (R28, recovery.md section 7): it decided the last
/// slot fast, and SLOW certifies and commits its will_commit, so its
/// state is SLOW's.
#[test]
fn the_cli_runs_v3_and_names_it() {
    let run = |json: bool| {
        let mut a = vec![
            "simulate",
            "--replicas",
            "3",
            "--slots",
            "3",
            "--seed",
            "2",
            "--net-latency",
            "40",
            "--quiet",
            "--threads",
            "1",
        ];
        if json {
            a.push("--json");
        }
        let out = rhdl_ubft(&a);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let v3 = run(false);
    assert!(v3.contains("cycles on verilator, layout v3\n"), "{v3}");
    assert!(v3.contains("3 decided (3 fast, 0 slow)"), "{v3}");
    let json = run(true);
    assert!(json.contains("\"layout\": \"v3\""), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let states: Vec<&str> = v["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            rhdl_ubft::controller::status::STATE_NAMES
                [r["status"]["state"].as_u64().unwrap() as usize]
        })
        .collect();
    assert!(
        states.len() == 3 && states.iter().all(|s| s.starts_with("Slow")),
        "{states:?}: {json}"
    );
}

/// A v3 cluster of `n` whose `silent` replicas are never heard (`from`
/// None) or heard until `from(r)`, an event of each silent replica r's own
/// (`cluster::event`), run on Verilator to `slots` decisions or
/// `max_cycles`.
/// The signer takes 300 cycles to sign and 500 to verify
/// (scenarios/v2/silent.toml's): a wait of 64 polls (1,024 cycles) outlasts
/// one signer step, as the slow path needs (slow.md, Timing).
fn silent_run(
    n: usize,
    slots: u64,
    silent: &[usize],
    from: Option<fn(usize) -> Event>,
    max_cycles: u64,
) -> ubft_sim::cluster::RunReport {
    silent_cluster(n, slots, silent, from, max_cycles).1
}

/// [`silent_run`], with the cluster (its HBMs) after the run and the cycle
/// each silent replica fell silent (`from` None: 0).
fn silent_cluster(
    n: usize,
    slots: u64,
    silent: &[usize],
    from: Option<fn(usize) -> Event>,
    max_cycles: u64,
) -> (
    ubft_sim::cluster::Cluster,
    ubft_sim::cluster::RunReport,
    Vec<Option<u64>>,
) {
    let cfg = ClusterConfig {
        seed: 21,
        max_cycles,
        sign_latency: 300,
        verify_latency: 500,
        ..quick(n, slots)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let mut triggers = vec![];
    for &r in silent {
        let silence = Box::new(ubft_sim::adversary::silent::Silent { from_cycle: 0 });
        triggers.push(match from {
            None => {
                c.set_adversary(r, silence);
                None
            }
            Some(event) => Some(c.set_adversary_from(r, event(r), silence)),
        });
    }
    let report = run_checked(&mut c);
    let starts = triggers
        .iter()
        .map(|t| t.as_ref().map_or(Some(0), |t| t.start()))
        .collect();
    (c, report, starts)
}

/// Runs `c` to its end and checks agreement, validity, order and the
/// guards (the report's checks), naming the failures.
fn run_checked(c: &mut ubft_sim::cluster::Cluster) -> ubft_sim::cluster::RunReport {
    let report = c.run().unwrap();
    assert!(
        report.checks.ok(),
        "{:?}\n{}",
        report.checks.failures,
        report.summary()
    );
    report
}

/// The honest replicas' decisions of a run: each decided every slot, in
/// order, the same values; returns (fast, slow) decisions of replica 0.
fn every_slot_decided(report: &ubft_sim::cluster::RunReport, slots: u64) -> (usize, usize) {
    let first = report.honest().next().unwrap();
    for r in report.honest() {
        assert_eq!(r.status.error, 0, "{}", report.summary());
        let ks: Vec<u64> = r.decided.iter().map(|d| d.k).collect();
        assert_eq!(ks, (1..=slots).collect::<Vec<_>>(), "{}", report.summary());
        let ms: Vec<u32> = r.decided.iter().map(|d| d.m).collect();
        let want: Vec<u32> = first.decided.iter().map(|d| d.m).collect();
        assert_eq!(ms, want, "agreement");
    }
    let fast = first
        .decided
        .iter()
        .filter(|d| d.path == Path::Fast)
        .count();
    (fast, first.decided.len() - fast)
}

/// recovery.md's liveness with a crashed follower (n = 3, f = 1):
/// replica 2 goes silent after 12 fast slots, from its will_commit of slot
/// 13 (an event; cycle 3,059 here, where it was placed at 3,000 before),
/// and the two others decide every one of 20 slots: on the fast path while
/// it is heard, on f + 1 = 2 COMMITs after (R10 to R12). v2 stops deciding
/// there (scenarios/v2/silent.toml).
#[test]
fn a_silent_follower_leaves_every_slot_decided_on_the_slow_path() {
    let (_, report, starts) = silent_cluster(
        3,
        20,
        &[2],
        Some(|r| Event::Sent {
            replica: r,
            region: Region::WillCommit,
            slot: Some(13),
        }),
        200_000,
    );
    let silent = starts[0].expect("replica 2 sent its will_commit of slot 13");
    let (fast, slow) = every_slot_decided(&report, 20);
    assert_eq!((fast, slow), (12, 8), "fast and slow decisions");
    // Every slot proposed after the silence is decided slow: those decided
    // 10,000 cycles after it (slots 15 on).
    let r0 = &report.replicas[0];
    let late = r0.decided.iter().filter(|d| d.cycle > silent + 10_000);
    assert!(late.clone().count() > 0 && late.clone().all(|d| d.path == Path::Slow));
    eprintln!("{fast} fast, {slow} slow, {} cycles", report.cycles);
}

/// Two crashed followers at n = 5 (f = 2): from cycle 0 no slot has n votes,
/// and the three others decide every slot on f + 1 = 3 COMMITs.
#[test]
fn two_silent_followers_of_five_leave_every_slot_decided() {
    let report = silent_run(5, 4, &[3, 4], None, 200_000);
    let (fast, slow) = every_slot_decided(&report, 4);
    assert_eq!((fast, slow), (0, 4));
    eprintln!("{} cycles", report.cycles);
}

/// The two-beat record at `word` in `hbm`: its block, and whether its
/// signature (the second beat) verifies as `signer`'s over that block.
fn signed_block_at(hbm: &Hbm, word: usize, signer: usize, seed: u64) -> ([u32; 8], bool) {
    use ubft_sim::models::signer::{block_bytes, signing_key};
    let block: [u32; 8] = hbm.read_words(byte(word), 8).try_into().unwrap();
    let ok = signing_key(seed, signer)
        .verifying_key()
        .verify_strict(&block_bytes(&block), &signature_at(hbm, word + 16))
        .is_ok();
    (block, ok)
}

/// What a view change without a carried value leaves in every honest
/// replica's HBM (view.md): NEW_VIEW(`view`) = [view, sb, 0], then the
/// SEAL of each replica of `sb`, in ascending order, each of view `view`
/// - 1 with no L and signed by its replica; seal[j] and, written by every
/// other honest replica in R21's register, echo_seal[j][i] hold the same.
fn check_new_view(c: &ubft_sim::cluster::Cluster, honest: &[usize], view: u32, sb: &[usize]) {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let seed = c.cfg.seed;
    let bitmap = sb.iter().map(|&j| 1u32 << j).sum::<u32>();
    for &r in honest {
        let hbm = &c.hbms[r];
        let nv = mb.record(Region::NewViewRecord, 0, 0);
        assert_eq!(
            hbm.read_words(byte(nv), 3),
            vec![view, bitmap, 0],
            "replica {r}'s new_view header"
        );
        for (i, &j) in sb.iter().enumerate() {
            let seal = records::seal_block(j as u32, view - 1, None);
            assert_eq!(
                signed_block_at(hbm, nv + 16 + 32 * i, j, seed),
                (seal, true),
                "replica {r}: NEW_VIEW's SEAL {i}, of replica {j}"
            );
            assert_eq!(
                signed_block_at(hbm, mb.record(Region::Seal, 0, j), j, seed),
                (seal, true),
                "replica {r}: seal[{j}]"
            );
            // R21's register: every honest replica but j wrote j's SEAL
            // into echo_seal[j][i] (the leader before writing the
            // NEW_VIEW, the others before installing it).
            for &i in honest.iter().filter(|&&i| i != j) {
                assert_eq!(
                    signed_block_at(hbm, mb.record(Region::EchoSeal, j, i), j, seed),
                    (seal, true),
                    "replica {r}: echo_seal[{j}][{i}]"
                );
            }
        }
    }
}

/// The view change without a carried value (recovery.md D11.12
/// steps 1 and 2, view.md). The leader is silent from the start (n = 3,
/// f = 1). Replicas 1 and 2 time out in FastWaitPrepare having sent
/// nothing, so neither has an obligation or an L: each seals view 0
/// (R18). Replica 1, the leader of view 1, takes its own SEAL and 2's,
/// verifies 2's, echoes it and finds no COMMIT of 2's (R19, R21), and
/// writes NEW_VIEW(1); replica 2 reads it, checks 1's SEAL the same way,
/// and installs view 1. Every slot is then decided on the slow path (f + 1
/// = 2 COMMITs: the fast path needs all 3).
///
/// The timeline, read from the HBMs as the run goes (exact cycles): the
/// SEALs land before the NEW_VIEW, and slot 1 is decided after it.
#[test]
fn a_silent_leader_hands_view_1_to_follower_1_and_every_slot_is_decided() {
    let cfg = ClusterConfig {
        seed: 21,
        max_cycles: 150_000,
        sign_latency: 300,
        verify_latency: 500,
        ..quick(3, 20)
    };
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        0,
        Box::new(ubft_sim::adversary::silent::Silent { from_cycle: 0 }),
    );
    // First cycle at which replica 2's HBM holds each record.
    let seal = |j: usize| mb.record(Region::Seal, 0, j);
    let nv = mb.record(Region::NewViewRecord, 0, 0);
    let mut landed = [None::<u64>; 3];
    while c.cycle < 20_000 && landed.iter().any(Option::is_none) {
        c.step().unwrap();
        let hbm = &c.hbms[2];
        for (i, (word, want)) in [
            (seal(1), records::KIND_SEAL),
            (seal(2), records::KIND_SEAL),
            (nv, 1),
        ]
        .into_iter()
        .enumerate()
        {
            if landed[i].is_none() && hbm.read_words(byte(word), 1)[0] == want {
                landed[i] = Some(c.cycle);
            }
        }
    }
    let [s1, s2, nv_at] = landed.map(|l| l.expect("landed by cycle 20,000"));
    let report = run_checked(&mut c);
    assert_eq!(every_slot_decided(&report, 20), (0, 20), "fast, slow");
    let first = report.replicas[1].decided[0].cycle;
    assert!(
        s1.max(s2) < nv_at && nv_at < first,
        "{s1} {s2} {nv_at} {first}"
    );
    for r in report.honest() {
        assert_eq!(
            (r.view, r.status.view_changes),
            (1, 1),
            "replica {}: one view change, to view 1\n{}",
            r.id,
            report.summary()
        );
    }
    check_new_view(&c, &[1, 2], 1, &[1, 2]);
    eprintln!(
        "{} cycles; at replica 2: seal[1] at {s1}, seal[2] at {s2}, NEW_VIEW(1) at {nv_at}; \
         slot 1 decided at {first} (replica 1), {} (replica 2)",
        report.cycles, report.replicas[2].decided[0].cycle
    );
}

/// The same at n = 5 (f = 2) with the leaders of views 0 and 1 silent:
/// replicas 2, 3 and 4 seal view 0; the NEW_VIEW that replica 1 would
/// write never comes, so each waits out T_vc (`wait_polls` << `streak`
/// polls) and seals view 1 (R14); replica 2, the leader of view 2, takes
/// three SEALs of view 1 and writes NEW_VIEW(2), and every slot is
/// decided in view 2.
#[test]
fn two_silent_leaders_of_five_leave_every_slot_decided_in_view_2() {
    let (c, report, _) = silent_cluster(5, 8, &[0, 1], None, 300_000);
    assert_eq!(every_slot_decided(&report, 8), (0, 8), "fast, slow");
    for r in report.honest() {
        assert_eq!(
            (r.view, r.status.view_changes),
            (2, 2),
            "replica {}: two view changes\n{}",
            r.id,
            report.summary()
        );
    }
    check_new_view(&c, &[2, 3, 4], 2, &[2, 3, 4]);
    eprintln!("{} cycles", report.cycles);
}

/// R21 (view.md): a SEAL without L is false if its writer signed a
/// COMMIT, and a NEW_VIEW never carries a false SEAL. The silent-leader
/// run of n = 3, with a COMMIT block of replica 2's for (v0, k1) planted at
/// cycle 600 in replica 1's HBM as echo_commit[2][0] (replica 0 echoing
/// it), which is what a Byzantine 2 that committed and sealed without L
/// would leave.
/// - Signed by replica 2, it proves 2's SEAL false: replica 1, leading
///   view 1, drops 2's SEAL and never writes NEW_VIEW(1); when replica 2
///   leads view 2, replica 1 reads the same proof and refuses its
///   NEW_VIEW(2). With one replica of three taken for faulty and one
///   silent, nothing is decided (and nothing unsafe is): the views go on
///   past 2, and no replica stops. Replica 1, short of f + 1 SEALs as the
///   leader of view 1, waits 2^LEAD_WAIT_SHIFT T_vc before it seals it
///   (recovery.md D11.14), hence the longer budget of this run.
/// - With a signature that does not verify, the entry is read and verified
///   twice (a torn read would pass the second time) and then passed over,
///   and every slot is decided in view 1. (Before T_vc covered the view
///   change's signer steps, the two verifies, 500 cycles each, delayed
///   NEW_VIEW(1) past replica 2's T_vc of 128 polls at `streak` 1, and the
///   slots were decided in view 2, after a second view change; T_vc is now
///   2^3 times that at n = 3.)
#[test]
fn a_seal_that_hides_a_signed_commit_is_never_carried_in_a_new_view() {
    let run = |signed: bool| {
        let cfg = ClusterConfig {
            seed: 21,
            max_cycles: if signed { 400_000 } else { 150_000 },
            sign_latency: 300,
            verify_latency: 500,
            ..quick(3, 4)
        };
        let mb = Mailbox::v3(BUILD_N, G, SB);
        let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
        c.set_adversary(
            0,
            Box::new(ubft_sim::adversary::silent::Silent { from_cycle: 0 }),
        );
        for _ in 0..600 {
            c.step().unwrap();
        }
        let hidden = records::commit_block(2, 0, 1, proposal(cfg.seed, 0), 0);
        let at = mb.record(Region::EchoCommit, 2, 0);
        plant(&mut c, 1, at, &hidden, 2, signed);
        let report = run_checked(&mut c);
        (c, report)
    };
    let (c, report) = run(true);
    for r in report.honest() {
        assert_eq!(
            (r.status.error, r.decided.len()),
            (0, 0),
            "replica {}\n{}",
            r.id,
            report.summary()
        );
        assert!(r.view >= 3, "replica {}\n{}", r.id, report.summary());
    }
    // Replica 1 wrote no NEW_VIEW(1); the one it holds is replica 2's.
    let nv = mb_new_view(&c, 1);
    assert_ne!(nv[0], 1, "NEW_VIEW(1) was written: {nv:?}");
    let (_, report) = run(false);
    assert_eq!(every_slot_decided(&report, 4), (0, 4), "fast, slow");
    for r in report.honest() {
        assert_eq!(
            (r.view, r.status.view_changes),
            (1, 1),
            "{}",
            report.summary()
        );
    }
}

/// The first three words of replica `r`'s new_view record.
fn mb_new_view(c: &ubft_sim::cluster::Cluster, r: usize) -> Vec<u32> {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    c.hbms[r].read_words(byte(mb.record(Region::NewViewRecord, 0, 0)), 3)
}

/// Five and seven replicas, 20 slots (past the window): every slot
/// decided on the fast path, the client's requests in order.
#[test]
fn five_and_seven_replicas_decide_on_the_fast_path() {
    for (n, seed) in [(5, 12), (7, 13)] {
        let cfg = ClusterConfig {
            seed,
            ..quick(n, 20)
        };
        let v3 = backend::run(&cfg, Backend::Verilator).unwrap();
        assert!(v3.checks.ok(), "n = {n}: {:?}", v3.checks.failures);
        let expected: Vec<(u64, u32)> = (1..=20).map(|k| (k, proposal(seed, k - 1))).collect();
        for b in &v3.replicas {
            assert_eq!(b.status.fast, 20, "n = {n}, replica {}", b.id);
            let got: Vec<(u64, u32)> = b.decided.iter().map(|d| (d.k, d.m)).collect();
            assert_eq!(got, expected, "n = {n}, replica {}", b.id);
            assert!(
                b.decided.iter().all(|d| d.path == Path::Fast),
                "n = {n}, replica {}",
                b.id
            );
        }
        eprintln!("n = {n}: {} cycles", v3.cycles);
    }
}

/// Three replicas whose first slot's votes from 1 reach 0, the
/// leader, late: the leader times out in FastWaitCert (locked, phase 1),
/// 1 and 2 in FastWaitCommit (delivered fast, phase 2).
/// The timeout (512 polls, about 8,000 cycles) is longer than the v3 slow
/// path's lead over the next slot (the followers decide about 6,000 cycles
/// before the leader, which then proposes k = 2), and the late votes
/// arrive after it.
fn late_votes_to_the_leader() -> ClusterConfig {
    ClusterConfig {
        seed: 3,
        wait_polls: 512,
        delays: vec![LinkDelay {
            src: 1,
            dst: 0,
            extra: 20_000,
            from_cycle: 0,
            to_cycle: 2_000,
            records: None,
            after: None,
        }],
        ..quick(3, 2)
    }
}

/// The run ends when every replica has stopped; a replica stops with
/// Broadcast's `done`, its WRITEs still on the wire: let them land.
fn settle(c: &mut ubft_sim::cluster::Cluster) {
    for _ in 0..500 {
        c.step().unwrap();
    }
}

/// The run of [`late_votes_to_the_leader`] on Verilator, checked and
/// settled: the cluster, its report and its seed.
fn late_votes_run() -> (
    ubft_sim::cluster::Cluster,
    ubft_sim::cluster::RunReport,
    u64,
) {
    let cfg = late_votes_to_the_leader();
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    settle(&mut c);
    (c, report, cfg.seed)
}

/// The signature in the beat at `word` of a replica's HBM.
fn signature_at(hbm: &Hbm, word: usize) -> ed25519_dalek::Signature {
    let mut bytes = [0u8; 64];
    for (i, w) in hbm.read_words(byte(word), 16).iter().enumerate() {
        bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    ed25519_dalek::Signature::from_bytes(&bytes)
}

/// R7 (slow.md): where the v3 leader's fast path times out holding the
/// slot, it signs its PREPARE's PREP block [1, v, k, m, prev] and writes
/// prep_sig[s(k)], the block and then the signature, into every replica's
/// mailbox; the guards take it (a leader's record, checked by its view
/// word) and the signature verifies as the leader's over that block only.
/// The followers' SLOW writes no prep_sig. The run then goes on (R8 to
/// R12) and every replica decides both slots.
#[test]
fn a_leader_that_times_out_writes_its_signed_prepare_everywhere() {
    use ubft_sim::models::signer::{block_bytes, block_mutants, signing_key};
    let n = 3;
    let (c, report, seed) = late_votes_run();
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let m = proposal(seed, 0);
    let block = records::block(records::KIND_PREP, 0, 1, m, 0);
    let key = signing_key(seed, 0).verifying_key();
    let at = mb.record(Region::PrepSig, 0, 0);
    for r in 0..n {
        let st = &report.replicas[r].status;
        assert_eq!(
            (st.error, st.decisions),
            (0, 2),
            "replica {r}: {}",
            report.summary()
        );
        assert_eq!(report.replicas[r].guard.refused, 0, "replica {r}");
        // Beat 0: the block, and nothing else in the beat.
        let beat0 = c.hbms[r].read_words(byte(at), 16);
        assert_eq!(&beat0[..8], &block[..], "replica {r}'s prep_sig block");
        assert!(beat0[8..].iter().all(|&w| w == 0), "replica {r}: {beat0:?}");
        // Beat 1: the leader's signature over exactly that block.
        let sig = signature_at(&c.hbms[r], at + 16);
        assert!(
            key.verify_strict(&block_bytes(&block), &sig).is_ok(),
            "replica {r}'s copy of the leader's PREP signature"
        );
        for (what, x) in block_mutants(&block, &[0, 1, 2, 3, 4]) {
            assert!(
                key.verify_strict(&block_bytes(&x), &sig).is_err(),
                "it verifies with {what}"
            );
        }
        // The followers sign no PREP: the second slot's prep_sig is empty
        // and nobody wrote another (one write of two beats per replica).
        assert_eq!(
            c.hbms[r].read_words(byte(mb.record(Region::PrepSig, 1, 0)), 32),
            vec![0; 32]
        );
    }
    assert_eq!(report.network.guard_disagreements, 0);
    // Each 128-byte WRITE was one well-formed command (v3's longest is 1 KiB).
    assert_eq!(c.net.stats().malformed, vec![0; n]);
    eprintln!("{}", report.summary());
}

/// R8 and R9 (slow.md), on the run of the test above: the leader, locked
/// but not delivered (phase 1), reads its prep_sig back, verifies it,
/// echoes it in a round into echo_prep[0][0] and, finding no other block
/// of (v0, k1) in the row, delivers and certifies; the followers, which
/// delivered on the fast path (phase 2), certify at once. So every
/// mailbox holds three certify records of (C, share), each share verifying
/// as its replica's over C = [2, 0, 1, m, 0, 0, 0, 0] only: the f + 1
/// shares a certificate needs, and more.
#[test]
fn a_slot_that_times_out_is_delivered_and_certified_by_every_replica() {
    use ubft_sim::models::signer::{block_bytes, block_mutants, signing_key};
    let n = 3;
    let (c, report, seed) = late_votes_run();
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let m = proposal(seed, 0);
    let prep = records::block(records::KIND_PREP, 0, 1, m, 0);
    let cert = records::block(records::KIND_CERT, 0, 1, m, 0);
    let sig_at = |r: usize, word: usize| signature_at(&c.hbms[r], word);
    for r in 0..n {
        let st = &report.replicas[r].status;
        assert_eq!(
            (st.error, st.bad_shares, st.decisions),
            (0, 0, 2),
            "replica {r}"
        );
        assert_eq!(report.replicas[r].guard.refused, 0, "replica {r}");
        // The leader's echo of its prep_sig, in a round; the followers
        // delivered fast and echo nothing.
        let echo = mb.record(Region::EchoPrep, 0, 0);
        assert_eq!(c.hbms[r].read_words(byte(echo), 8), prep.to_vec());
        assert!(signing_key(seed, 0)
            .verifying_key()
            .verify_strict(&block_bytes(&prep), &sig_at(r, echo + 16))
            .is_ok());
        for j in 1..n {
            let e = mb.record(Region::EchoPrep, 0, j);
            assert_eq!(c.hbms[r].read_words(byte(e), 32), vec![0; 32], "echo {j}");
        }
        // Every replica's share, in every mailbox.
        for j in 0..n {
            let at = mb.record(Region::Certify, 0, j);
            assert_eq!(
                c.hbms[r].read_words(byte(at), 16)[..8],
                cert[..],
                "replica {r}'s copy of {j}'s CERT block"
            );
            let key = signing_key(seed, j).verifying_key();
            let share = sig_at(r, at + 16);
            assert!(
                key.verify_strict(&block_bytes(&cert), &share).is_ok(),
                "replica {r}'s copy of {j}'s share"
            );
            for (what, x) in block_mutants(&cert, &[0, 1, 2, 3, 4]) {
                assert!(
                    key.verify_strict(&block_bytes(&x), &share).is_err(),
                    "{j}'s share verifies with {what}"
                );
            }
        }
    }
    assert_eq!(report.network.guard_disagreements, 0);
    assert_eq!(c.net.stats().malformed, vec![0; n]);
}

/// R10 to R12 (slow.md), on the run of the tests above. Every replica,
/// delivered, read f + 1 = 2 shares over C from its certify row, signed
/// its COMMIT block K = [3, j, 0, 1, m, 0] and wrote commit[s(1)][j]: K
/// with a signer bitmap of exactly f + 1 replicas (word 8), j's signature
/// over K only, then those replicas' shares over C in ascending order. It
/// delivered the COMMITs of its peers' same block (x's signature, an echo
/// into echo_commit[x][j] in a round, no SEAL of x) and decided slot 1 on
/// the slow path on f + 1 of them, its own among them: the followers first
/// (they were certified earliest), the leader last. Slot 2 is fast.
#[test]
fn a_slot_that_times_out_is_decided_on_f_plus_1_commits() {
    use ubft_sim::models::signer::{block_bytes, block_mutants, signing_key};
    let n = 3;
    let f1 = 2;
    let (c, report, seed) = late_votes_run();
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let m = proposal(seed, 0);
    let cert = records::block(records::KIND_CERT, 0, 1, m, 0);
    let key = |j: usize| signing_key(seed, j).verifying_key();
    for r in 0..n {
        let rep = &report.replicas[r];
        assert_eq!(rep.status.error, 0, "{}", report.summary());
        assert_eq!(
            rep.decided
                .iter()
                .map(|d| (d.k, d.m, d.path))
                .collect::<Vec<_>>()[0],
            (1, m, Path::Slow),
            "replica {r}"
        );
        assert_eq!(rep.status.bad_shares, 0, "replica {r}");
        for j in 0..n {
            // j's COMMIT, in r's mailbox.
            let at = mb.record(Region::Commit, 0, j);
            let beat0 = c.hbms[r].read_words(byte(at), 16);
            let k_j = records::commit_block(j as u32, 0, 1, m, 0);
            assert_eq!(
                &beat0[..8],
                &k_j[..],
                "replica {r}'s copy of {j}'s COMMIT block"
            );
            let bitmap = beat0[records::COMMIT_BITMAP];
            assert_eq!(bitmap.count_ones(), f1, "{j}'s signer bitmap {bitmap:#b}");
            assert_eq!(bitmap >> n, 0, "{j}'s signers are replicas");
            assert!(beat0[9..].iter().all(|&w| w == 0), "{beat0:?}");
            let sig = signature_at(&c.hbms[r], at + 16);
            assert!(key(j).verify_strict(&block_bytes(&k_j), &sig).is_ok());
            for (what, x) in block_mutants(&k_j, &[0, 1, 2, 3, 4, 5]) {
                assert!(
                    key(j).verify_strict(&block_bytes(&x), &sig).is_err(),
                    "{j}'s COMMIT signature verifies with {what}"
                );
            }
            let signers: Vec<usize> = (0..n).filter(|s| bitmap >> s & 1 == 1).collect();
            for (i, s) in signers.iter().enumerate() {
                let share = signature_at(&c.hbms[r], at + 16 * (2 + i));
                assert!(
                    key(*s).verify_strict(&block_bytes(&cert), &share).is_ok(),
                    "{j}'s COMMIT: share {i} is {s}'s over C"
                );
            }
        }
        // The COMMITs r delivered, echoed into echo_commit[x][r] (in every
        // mailbox, by the round): at least f of its peers'.
        let echoed: Vec<usize> = (0..n)
            .filter(|&x| x != r)
            .filter(|&x| {
                let at = mb.record(Region::EchoCommit, x, r);
                let k_x = records::commit_block(x as u32, 0, 1, m, 0);
                c.hbms[(r + 1) % n].read_words(byte(at), 8) == k_x.to_vec()
                    && key(x)
                        .verify_strict(
                            &block_bytes(&k_x),
                            &signature_at(&c.hbms[(r + 1) % n], at + 16),
                        )
                        .is_ok()
            })
            .collect();
        assert!(
            echoed.len() as u32 >= f1 - 1,
            "replica {r} echoed {echoed:?}"
        );
    }
    let at = |r: usize| report.replicas[r].decided[0].cycle;
    assert!(at(1) < at(0) && at(2) < at(0), "the leader decides last");
    eprintln!(
        "slot 1 decided slow at cycles {}, {}, {}",
        at(0),
        at(1),
        at(2)
    );
}

/// A cluster of `cfg` run to cycle 600, with a two-beat record planted in
/// replica `r`'s HBM at word `at`: `block`, then its signature by
/// `signer`'s key (`signed`), or that signature with a bit flipped.
fn planted_at_600(
    cfg: &ClusterConfig,
    r: usize,
    at: usize,
    block: &[u32; 8],
    signer: usize,
    signed: bool,
) -> ubft_sim::cluster::Cluster {
    let mut c = backend::cluster(cfg, Backend::Verilator).unwrap();
    for _ in 0..600 {
        c.step().unwrap();
    }
    plant(&mut c, r, at, block, signer, signed);
    c
}

/// Writes `block` and its signature by `signer` (or, unless `signed`, that
/// signature with a bit flipped) into replica `r`'s HBM at word `at`.
fn plant(
    c: &mut ubft_sim::cluster::Cluster,
    r: usize,
    at: usize,
    block: &[u32; 8],
    signer: usize,
    signed: bool,
) {
    use ed25519_dalek::Signer as _;
    use ubft_sim::models::signer::{block_bytes, signing_key};
    let mut sig = signing_key(c.cfg.seed, signer)
        .sign(&block_bytes(block))
        .to_bytes();
    if !signed {
        sig[0] ^= 1;
    }
    c.hbms[r].write_words(byte(at), block);
    let words: Vec<u32> = sig
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    c.hbms[r].write_words(byte(at) + 64, &words);
}

/// R8's register check (slow.md, SlowWaitEchoPrep and SlowVerifySuspect), on
/// the run above with an echo planted in the leader's HBM at cycle 600 as
/// replica 1's: a PREP block of the same (v0, k1) with another m.
/// - Signed by the leader, it proves that the leader equivocated: the
///   leader never delivers the slot and writes no share of view 0, while
///   the followers, which delivered on the fast path, certify as before.
///   (Its certify entry may end with the decider's share of view 1.)
///   The followers decide the slot on their two COMMITs (f + 1 = 2). At
///   k = 2, whose prepare never comes, they time out into VIEW and seal
///   view 0 carrying that COMMIT (L). Replica 1, the leader of view 1,
///   takes its own SEAL and the leader's (no L), and writes NEW_VIEW(1)
///   with the certificate of (v0, k1) from its own COMMIT (R19, R20). The
///   followers, at k = 2 = c* + 1, step back and rerun k = 1 in view 1
///   (R23: not emitted again); the leader, at k = 1 while it awaits
///   NEW_VIEW(1), decides it from their two COMMITs (R25, SLOW's deliver
///   mode; before that was built it decided it in view 1 under the
///   constraint, fast), and reruns it as they do. Every replica decides
///   k = 1 on the slow path and k = 2 fast in view 1. This
///   test found a flaw in the first version of FAST's read ahead
///   (fetch.md): its loops read twice per H + 4 cycles, not H + 3, so the
///   followers' wait for k = 2's prepare (FAST's) outlasted replica 0's
///   T_vc (VIEW's) by 6.7 %, replica 0 sealed view 1 alone, and k = 2
///   went the slow path at cycle 283,549 instead of fast at 174,009.
/// - With a signature that does not verify, it is passed over, and the
///   leader commits k = 1 in view 0: on its own certificate as in the test
///   above, or on a follower's, whose COMMIT may come while it still works
///   on its delivery (SLOW's adoption, R10's second half); every replica
///   decides both slots. (The timeout is 1,024 polls: the leader's extra
///   verify delays its proposal of k = 2.)
#[test]
fn a_second_signed_block_in_the_echo_row_keeps_the_leader_from_delivering() {
    let n = 3;
    let run = |signed: bool| {
        // (k = 1 is decided on the slow path, so the followers wait for
        // k = 2's prepare as long as SLOW waits: 8 × 1,024 polls.)
        let cfg = ClusterConfig {
            wait_polls: 1024,
            max_cycles: 1_000_000,
            ..late_votes_to_the_leader()
        };
        let seed = cfg.seed;
        let mb = Mailbox::v3(BUILD_N, G, SB);
        let other = records::block(records::KIND_PREP, 0, 1, proposal(seed, 0) ^ 1, 0);
        let at = mb.record(Region::EchoPrep, 0, 1);
        let mut c = planted_at_600(&cfg, 0, at, &other, 0, signed);
        let report = c.run().unwrap();
        settle(&mut c);
        assert!(report.checks.ok(), "{:?}", report.checks.failures);
        // A CERT share of (v0, k1) in each replica's entry.
        let entry = |j: usize| c.hbms[1].read_words(byte(mb.record(Region::Certify, 0, j)), 8);
        let certified: Vec<bool> = (0..n)
            .map(|j| {
                let w = entry(j);
                w[0] == records::KIND_CERT && w[1] == 0
            })
            .collect();
        if signed {
            // The leader's entry holds no share of view 0. It may hold
            // the decider's share (help.md) of the followers' rerun of
            // k = 1 in view 1: it decided k = 1 on view 0's COMMITs while
            // in view 1, and at k = 2, awaiting NEW_VIEW(1), it may find
            // their will_commits of (v1, k1, m) in its row.
            let w = entry(0);
            let help = [records::KIND_CERT, 1, 1, proposal(seed, 0), 0, 0, 0, 0];
            assert!(
                w == [0; 8] || w == help,
                "the leader's certify entry {w:x?}"
            );
        }
        // The leader's COMMIT of k = 1 in view 0, in its own mailbox.
        let own = c.hbms[0].read_words(byte(mb.record(Region::Commit, 0, 0)), 4);
        let committed_v0 = own == [records::KIND_COMMIT, 0, 0, 1];
        let outcome: Vec<(u8, usize)> = report
            .replicas
            .iter()
            .map(|r| (r.status.error, r.decided.len()))
            .collect();
        if signed {
            every_slot_decided(&report, 2);
            // The followers decided k = 1 slowly in view 0, and their
            // rerun of it in view 1 is not emitted; the leader, awaiting
            // NEW_VIEW(1) at k = 1, decides it slowly too, from their two
            // COMMITs (R25 while awaiting), and reruns it as they do. In
            // view 1 nobody is late: k = 2 on the fast path everywhere.
            for r in &report.replicas {
                assert_eq!(r.view, 1, "{}", report.summary());
                let paths: Vec<Path> = r.decided.iter().map(|d| d.path).collect();
                assert_eq!(paths, [Path::Slow, Path::Fast], "replica {}", r.id);
            }
            // NEW_VIEW(1) carries (v0, k1) with its certificate: cb has
            // f + 1 = 2 signers, and the new leader's SEAL has L.
            let nv = mb.record(Region::NewViewRecord, 0, 0);
            for r in 0..n {
                let head = c.hbms[r].read_words(byte(nv), 3);
                assert_eq!(head[0], 1, "replica {r}'s NEW_VIEW is of view 1");
                assert_eq!(head[2].count_ones(), 2, "replica {r}: cb {:#b}", head[2]);
            }
            eprintln!("{}", report.summary());
        } else {
            assert_eq!(outcome, vec![(0, 2); 3], "{}", report.summary());
        }
        // The leader read its planted entry (the echo of its own record
        // went into entry 0, which it wrote in a round first).
        let echo0 = c.hbms[0].read_words(byte(mb.record(Region::EchoPrep, 0, 0)), 1);
        assert_eq!(echo0, vec![records::KIND_PREP]);
        (certified, committed_v0)
    };
    // Refused: no share from the leader, and no COMMIT of k = 1 in view 0
    // (it decides k = 1 from the followers' COMMITs while it awaits
    // NEW_VIEW(1)).
    assert_eq!(run(true), (vec![false, true, true], false), "refused");
    // Passed over: the leader goes on in view 0 and commits k = 1 there,
    // on its own certificate or, still working on its delivery when a
    // follower's COMMIT comes, on the follower's (R10's second half).
    let (certified, committed_v0) = run(false);
    assert!(committed_v0, "passed over: 0 commits in view 0");
    assert!(certified[1] && certified[2], "{certified:?}");
}

/// R11.3's seal veto (slow.md, SlowWaitSeal and SlowVerifySeal), on the
/// late-votes run with a SEAL planted at cycle 600 in replica 2's mailbox
/// as replica 1's seal[1]: replica 1 sealed view 0.
/// - Signed by replica 1, it vetoes 1's COMMIT at replica 2: replica 2
///   echoes that COMMIT (the echo comes before the seal check) but does
///   not count it, and decides slot 1 on the leader's COMMIT instead (its
///   echo_commit[0][2] holds the leader's block).
/// - With a signature that does not verify, the SEAL is passed over:
///   replica 2 decides on 1's COMMIT, earlier, and never reads the
///   leader's (echo_commit[0][2] stays empty).
#[test]
fn a_signed_seal_of_a_peer_vetoes_its_commit_and_a_forged_one_does_not() {
    let run = |signed: bool| {
        let cfg = late_votes_to_the_leader();
        let seed = cfg.seed;
        let mb = Mailbox::v3(BUILD_N, G, SB);
        let seal = records::seal_block(1, 0, None);
        let mut c = planted_at_600(&cfg, 2, mb.record(Region::Seal, 0, 1), &seal, 1, signed);
        let report = c.run().unwrap();
        settle(&mut c);
        assert!(report.checks.ok(), "{:?}", report.checks.failures);
        let m = proposal(seed, 0);
        for r in &report.replicas {
            assert_eq!(r.status.error, 0, "{}", report.summary());
            assert_eq!((r.decided[0].k, r.decided[0].m), (1, m));
            assert_eq!(r.decided[0].path, Path::Slow);
        }
        let k0 = records::commit_block(0, 0, 1, m, 0);
        let k1 = records::commit_block(1, 0, 1, m, 0);
        let echo = |x: usize| c.hbms[1].read_words(byte(mb.record(Region::EchoCommit, x, 2)), 8);
        assert_eq!(echo(1), k1.to_vec(), "replica 2 echoed 1's COMMIT");
        let at = |r: usize| report.replicas[r].decided[0].cycle;
        (echo(0) == k0.to_vec(), at(2))
    };
    let (vetoed, forged) = (run(true), run(false));
    assert!(vetoed.0, "vetoed: decided on the leader's COMMIT");
    assert!(!forged.0, "passed over: decided on 1's COMMIT");
    assert!(forged.1 < vetoed.1, "{forged:?} {vetoed:?}");
    eprintln!(
        "replica 2 decides slot 1 at {} (vetoed), {} (forged SEAL)",
        vetoed.1, forged.1
    );
}

/// One late message among honest replicas (the audit's E3,
/// scenarios/v2/late_will_commit.toml's fault): replica `src`'s will_commit
/// for k = 1 reaches replica `dst` `extra` cycles late; nobody is faulty.
/// The others decide k = 1 fast and go on; `dst` times out holding the slot
/// (phase 2) into SLOW, which certifies k = 1 and waits for f + 1 shares
/// that the others, past k = 1, never write. WATCH (on the second Fetch,
/// while SLOW holds the slot) polls the will_commit row; once the late
/// vote lands the row is full (R26, any view) and Protocol decides k = 1
/// on the fast path at SLOW's next poll state. Returns the run and the
/// cycle the late write was sent.
fn late_will_commit(
    src: usize,
    dst: usize,
    extra: u64,
    slots: u64,
) -> (ubft_sim::cluster::RunReport, u64) {
    let n = 3;
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let span = mb.span(Region::WillCommit);
    let will_commit = byte(span.start)..byte(span.start + span.words);
    let base = ClusterConfig {
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 100_000,
        ..quick(n, slots)
    };
    let mut probe = backend::cluster(
        &ClusterConfig {
            slots: 1,
            ..base.clone()
        },
        Backend::Verilator,
    )
    .unwrap();
    probe.hbms[src].watch_writes(will_commit);
    probe.run().unwrap();
    let sent = probe.hbms[src].watched_writes()[0];
    let cfg = ClusterConfig {
        delays: vec![LinkDelay {
            src,
            dst,
            extra,
            from_cycle: sent,
            to_cycle: sent + 30,
            records: None,
            after: None,
        }],
        ..base
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    (run_checked(&mut c), sent)
}

/// E3 at a follower: replica 1's will_commit for k = 1 reaches replica 2
/// 1,500 cycles late. Replicas 0 and 1 decide k = 1 fast and k = 2 on
/// f + 1 COMMITs (replica 2 is not at k = 2 to lock it); replica 2 decides
/// k = 1 through WATCH once the vote lands, then catches up with them.
/// Every replica decides every slot.
#[test]
fn a_late_will_commit_to_a_follower_is_caught_up_by_watch() {
    let extra = 1_500;
    let (report, sent) = late_will_commit(1, 2, extra, 4);
    eprintln!("{}", report.summary());
    every_slot_decided(&report, 4);
    let r2 = &report.replicas[2];
    assert_eq!(r2.decided[0].path, Path::Fast);
    assert!(r2.decided[0].cycle > sent + extra, "{}", report.summary());
    assert!(r2.status.timeouts >= 1, "it timed out into Slow first");
    assert!(report.replicas[1].decided[0].cycle < sent + extra);
}

/// E3 at the leader (the scenario's own link, 1 to 0), the audit's one
/// late message among honest replicas. The leader decides k = 1 through
/// WATCH after the late vote lands, but by then the followers, waiting at
/// k = 2 for its prepare, have timed out into VIEW. Each sent will_commit
/// at k = 1 and holds no COMMIT that covers it: the bridge (R17) certifies
/// and commits (v0, k1) through SLOW's seal mode, and each SEAL carries
/// that COMMIT as L. Replica 1 writes NEW_VIEW(1) with the certificate of
/// (v0, k1) (R19, R20); every replica, at k = 2 = c* + 1, steps back and
/// reruns k = 1 in view 1 (R23) without emitting it again. The leader,
/// in SLOW at k = 2, is pulled into the view change by the followers'
/// two SEALs (WATCH's SEALS at SLOW's poll, R14's trigger), bridges in
/// turn, and reruns k = 1 in view 1 with them on the slow path (before
/// the trigger it sealed on its own timeout and decided the rerun from
/// their certificate of k = 2, WATCH's ABOVE). The rerun runs whole (a
/// full will_commit row of k = 1 does not end it, recovery.md D11.15),
/// so the three replicas leave it together, and every replica decides
/// every slot once, on the fast path: k = 1 in view 0, k = 2 and k = 3 in
/// view 1, k = 3 at cycle 11,873 at the latest.
#[test]
fn e3_at_the_leader_is_bridged_into_view_1_and_every_slot_is_decided() {
    let extra = 1_129;
    let (report, sent) = late_will_commit(1, 0, extra, 3);
    let r0 = &report.replicas[0];
    assert_eq!(r0.decided[0].path, Path::Fast);
    assert!(r0.decided[0].cycle > sent + extra);
    assert!(r0.status.timeouts >= 1);
    assert_eq!(every_slot_decided(&report, 3), (3, 0), "fast, slow");
    for r in &report.replicas {
        assert_eq!(r.view, 1, "{}", report.summary());
    }
    eprintln!(
        "{}\nslot 3 decided at {:?}",
        report.summary(),
        report
            .replicas
            .iter()
            .map(|r| r.decided[2].cycle)
            .collect::<Vec<_>>()
    );
}

/// A torn read of a SEAL (recovery.md D1, D11.10 item 6): on the card a
/// burst may return a record's block from a write landing during the read
/// and its signature from the write before. Here replica 1's seal[1] is
/// planted in replica 2's mailbox at cycle 600 with a signature that does
/// not verify, and the right signature lands as replica 2's first verify
/// of it fails (its signer's first INVALID). SLOW reads a SEAL whose
/// signature failed once again before it passes it over (SlowVerifySeal),
/// so the second read, whole, vetoes 1's COMMIT: replica 2 decides on the
/// leader's COMMIT, as with a SEAL that was whole from the start. A forged
/// SEAL fails twice and is passed over (the test above).
#[test]
fn a_torn_seal_is_read_again_and_vetoes() {
    use ed25519_dalek::Signer as _;
    use ubft_sim::models::signer::{block_bytes, signing_key};
    let cfg = late_votes_to_the_leader();
    let seed = cfg.seed;
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let seal = records::seal_block(1, 0, None);
    let at = mb.record(Region::Seal, 0, 1);
    let mut c = planted_at_600(&cfg, 2, at, &seal, 1, false);
    while c.signers[2].counters().invalid == 0 {
        assert!(
            c.cycle < cfg.cycle_budget(),
            "replica 2 never verified the SEAL\n{}",
            c.report().summary()
        );
        c.step().unwrap();
    }
    let failed_at = c.cycle;
    let sig = signing_key(seed, 1).sign(&block_bytes(&seal)).to_bytes();
    let words: Vec<u32> = sig
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    c.hbms[2].write_words(byte(at) + 64, &words);
    // The echo of the COMMIT replica 2 decided slot 1 on, read as it
    // decides (a later slot's COMMIT of the same peer replaces it, R11's
    // "only if higher"); its echo round has ended, so it is in every HBM.
    while c.report().replicas[2].decided.is_empty() {
        assert!(c.cycle < cfg.cycle_budget(), "{}", c.report().summary());
        for _ in 0..16 {
            c.step().unwrap();
        }
    }
    let echo0 = c.hbms[1].read_words(byte(mb.record(Region::EchoCommit, 0, 2)), 8);
    let report = c.run().unwrap();
    settle(&mut c);
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let m = proposal(seed, 0);
    let r2 = &report.replicas[2];
    assert_eq!(
        (r2.decided[0].k, r2.decided[0].m),
        (1, m),
        "{}",
        report.summary()
    );
    let k0 = records::commit_block(0, 0, 1, m, 0);
    assert_eq!(
        echo0,
        k0.to_vec(),
        "vetoed: replica 2 went on to the leader's COMMIT"
    );
    assert_eq!(
        c.signers[2].counters().invalid,
        1,
        "one failed verify, then a good one"
    );
    eprintln!(
        "first verify failed at {failed_at}; replica 2 decides slot 1 at {}",
        r2.decided[0].cycle
    );
}

/// The bridge and a carried value (recovery.md R16 to R23, view.md): the
/// leader of n = 3 goes silent the cycle after it decides slot 12 on the
/// fast path (an event; cycle 2,897 here), before its prepare of slot 13
/// goes out. Each follower sent will_commit for the last
/// slot it decided fast, W = (v0, b), which no COMMIT of its own covers:
/// VIEW's bridge certifies and commits W through SLOW's seal mode
/// (certify[s(b)] and commit[s(b)] of both followers hold (v0, b)), and
/// each SEAL of view 0 carries that COMMIT as L. Replica 1, the leader of
/// view 1, writes NEW_VIEW(1) with the certificate of (v0, b): cb names
/// f + 1 = 2 signers. Both followers, at k = b + 1, step back and rerun
/// b in view 1 without emitting it again, and every slot is decided once,
/// in order.
#[test]
fn a_leader_silent_after_fast_decisions_is_bridged_and_every_slot_is_decided() {
    let slots = 20;
    let (c, report, starts) = silent_cluster(
        3,
        slots,
        &[0],
        Some(|r| Event::Decided {
            replica: r,
            slot: 12,
        }),
        300_000,
    );
    let silent = starts[0].expect("the leader decided slot 12");
    let (fast, slow) = every_slot_decided(&report, slots);
    assert_eq!(fast, 12, "slots 1 to 12 fast: {}", report.summary());
    for r in report.honest() {
        assert_eq!(r.view, 1, "{}", report.summary());
        assert_eq!(r.status.decisions as u64, slots, "each slot emitted once");
    }
    eprintln!(
        "{}\nfast {fast}, slow {slow}; slot {} decided at {} and {} (the leader silent from {silent})",
        report.summary(),
        fast + 1,
        report.replicas[1].decided[fast].cycle,
        report.replicas[2].decided[fast].cycle
    );
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let seed = c.cfg.seed;
    let b = fast as u32;
    let m = report.replicas[1].decided[b as usize - 1].m;
    let prev = report.replicas[1].decided[b as usize - 2].m;
    let s = (b as usize - 1) % G;
    for r in [1, 2] {
        let hbm = &c.hbms[r];
        // The NEW_VIEW carries (v0, b, m, prev) with f + 1 shares.
        let nv = mb.record(Region::NewViewRecord, 0, 0);
        let head = hbm.read_words(byte(nv), 3);
        assert_eq!(
            (head[0], head[1]),
            (1, 0b110),
            "replica {r}'s NEW_VIEW header"
        );
        assert_eq!(head[2], 0b110, "replica {r}: the certificate's signers");
        for (i, j) in [1usize, 2].into_iter().enumerate() {
            let seal = records::seal_block(j as u32, 0, Some([0, b, m, prev]));
            assert_eq!(
                signed_block_at(hbm, nv + 16 + 32 * i, j, seed),
                (seal, true),
                "replica {r}: NEW_VIEW's SEAL {i}, of replica {j}, carries L"
            );
        }
        // The bridge's COMMIT of each follower, and its share, in view 0.
        for j in [1usize, 2] {
            // (Its view is 1 if the rerun of b wrote over it.)
            let k = hbm.read_words(byte(mb.record(Region::Commit, s, j)), 6);
            assert_eq!(
                [k[0], k[1], k[3], k[4]],
                [records::KIND_COMMIT, j as u32, b, m],
                "replica {r}: commit[{s}][{j}]"
            );
        }
    }
}

/// The same at n = 5 (f = 2): the leader and follower 4 go silent the
/// cycle after each decides slot 11 (events; cycle 3,073 here, where they
/// were placed at 3,000 before, the same run). Replicas 1, 2 and 3 bridge
/// their last fast slot, 11 (f + 1 = 3
/// shares), seal with L, and replica 1 writes NEW_VIEW(1) carrying it;
/// every slot is decided once, in view 1.
#[test]
fn a_leader_and_a_follower_of_five_silent_after_fast_decisions_are_bridged() {
    let slots = 24;
    let (c, report, starts) = silent_cluster(
        5,
        slots,
        &[0, 4],
        Some(|r| Event::Decided {
            replica: r,
            slot: 11,
        }),
        400_000,
    );
    assert!(starts.iter().all(Option::is_some), "both decided slot 11");
    let (fast, slow) = every_slot_decided(&report, slots);
    assert_eq!(fast, 11, "slots 1 to 11 fast: {}", report.summary());
    for r in report.honest() {
        assert_eq!(r.view, 1, "{}", report.summary());
        assert_eq!(r.status.decisions as u64, slots, "each slot emitted once");
    }
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let nv = mb.record(Region::NewViewRecord, 0, 0);
    for r in [1, 2, 3] {
        let head = c.hbms[r].read_words(byte(nv), 3);
        assert_eq!(head[0], 1, "replica {r}'s NEW_VIEW is of view 1");
        assert_eq!(head[1].count_ones(), 3, "replica {r}: f + 1 SEALs");
        assert_eq!(head[2].count_ones(), 3, "replica {r}: f + 1 shares");
    }
    eprintln!(
        "{}\nfast {fast}, slow {slow}; slot {} decided at {}",
        report.summary(),
        fast + 1,
        report.replicas[1].decided[fast].cycle
    );
}

/// The `state` register during the bridge (protocol.md, "States"): VIEW
/// waits in ViewBridge while SLOW works in seal mode, both out of Off, and
/// the kernel reports SLOW's state alone, a valid name, not the OR of
/// two numbers. On rust-hdl, whose kernel shows `sts_state` every cycle:
/// the leader of n = 3 silent from the cycle after it decides slot 3 (its
/// fast decision; the event, cycle 763 with these settings), replica 1
/// bridges slot 3.
#[test]
fn the_state_register_names_slow_during_the_bridge() {
    use rhdl_ubft::controller::status::STATE_NAMES;
    let cfg = ClusterConfig {
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 8_000,
        ..quick(3, 6)
    };
    let mut c = backend::cluster(&cfg, Backend::RustHdl).unwrap();
    let silent = c.set_adversary_from(
        0,
        Event::Decided {
            replica: 0,
            slot: 3,
        },
        Box::new(ubft_sim::adversary::silent::Silent { from_cycle: 0 }),
    );
    let mut seen = std::collections::BTreeSet::new();
    while c.cycle < 8_000 {
        c.step().unwrap();
        let s = c.kernels[1].debug_state().unwrap() as usize;
        assert!(s < STATE_NAMES.len(), "state {s} at cycle {}", c.cycle);
        seen.insert(STATE_NAMES[s]);
    }
    let d3 = c.clients[0].decisions()[2];
    assert_eq!(
        (d3.k, d3.slow),
        (3, false),
        "the leader decided slot 3 fast"
    );
    assert_eq!(
        silent.start(),
        Some(d3.cycle + 1),
        "silent from the cycle after"
    );
    assert!(
        seen.contains("ViewTurn") && seen.contains("ViewSignSeal"),
        "{seen:?}"
    );
    assert!(
        seen.contains("SlowPollCertify"),
        "the bridge's certify row: {seen:?}"
    );
    assert!(!seen.contains("ViewBridge"), "{seen:?}");
}

/// T_vc (params.rs `vc_shift`, view.md "T_vc"): from a view change's start
/// to the first decision of the view it installs, VIEW's and SLOW's
/// waits are 2^3 (n = 3) or 2^4 (n ≥ 5) times the path timeout, so a
/// leader silent after a fast decision costs one view change, at the
/// tests' links and at the performance model's defaults alike, and no
/// replica is left behind. Before, the new leader of n = 5 timed out in
/// its first slot while the followers still checked NEW_VIEW(1) and was
/// left behind in a later view, and at the defaults n = 3 reached slot 4
/// only in view 4 (224,794 cycles) and n = 5 not within 600,000 cycles.
/// `bench::measure_recovery`: the leader silent from the cycle after it
/// decided slot 3 fast; slot 4's first decision within
/// `bench::recovery_bound`.
#[test]
fn a_silent_leader_costs_one_view_change_at_the_tests_links_and_the_defaults() {
    for at_defaults in [false, true] {
        for n in [3, 5] {
            let base = if at_defaults {
                ClusterConfig {
                    max_cycles: 1_000_000,
                    ..ClusterConfig::new(n, 6)
                }
            } else {
                ClusterConfig {
                    sign_latency: 300,
                    verify_latency: 500,
                    max_cycles: 400_000,
                    ..quick(n, 6)
                }
            };
            let cfg = ClusterConfig {
                wait_polls: 64,
                ..base
            };
            let r = ubft_sim::bench::measure_recovery(cfg, 3, Backend::Verilator).unwrap();
            eprintln!("defaults {at_defaults}, n = {n}: {r:?}");
            assert_eq!(r.view, 1, "defaults {at_defaults}, n = {n}: {r:?}");
            assert!(
                r.behind.is_empty(),
                "defaults {at_defaults}, n = {n}: {r:?}"
            );
            assert!(r.last.is_some(), "{r:?}");
            assert!(r.first <= r.bound, "defaults {at_defaults}, n = {n}: {r:?}");
        }
    }
}

/// `scenarios/late_link_to_a_follower.toml` (the soak's seed 280): a
/// Byzantine replica that never votes fast puts every slot on the slow
/// path, and replica 0's writes to replica 1 land up to 708 cycles late
/// for a while. The followers wait for the prepare after a slow slot as
/// long as SLOW waits, so replica 1 keeps up: every replica decides all
/// 12 slots in view 0. Before, replica 1 timed out alone waiting for slot
/// 2's prepare, and the run took a view change (and, with SLOW's longer
/// waits alone, left replica 1 a view ahead of the others, one slot
/// short).
#[test]
fn a_late_link_to_a_follower_costs_no_view_change() {
    let s = Scenario::from_toml(include_str!(
        "../../../scenarios/late_link_to_a_follower.toml"
    ))
    .unwrap();
    let report = s.run(Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    for r in report.honest() {
        assert_eq!(
            (r.status.error, r.status.decisions, r.decided.len(), r.view),
            (0, 12, 12, 0),
            "replica {}\n{}",
            r.id,
            report.summary()
        );
    }
    every_slot_decided(&report, 12);
}

/// A replica a view ahead catches up while it awaits a NEW_VIEW (view.md,
/// ViewPollNv and ViewAwaitNext: WATCH's ABOVE, R24, granted there). n = 5,
/// `wait_polls` 11 and the signer's latencies 69; replica 4 writes no
/// fast-path votes (`mute_fast`), so every slot goes the slow path; and
/// the leader's writes to replica 2 land 1,600 cycles late for 4,516
/// cycles from its COMMIT of slot 2 (an event): that COMMIT and its
/// prepare of slot 3, sent right after. (From the soak's seed 1282, with
/// 6 slots for its 3. The delay's length is the run's: 1,600 cycles give
/// the case these assertions check, 1,800 and 2,000 let replica 2 keep up,
/// from 2,200 every replica changes view.)
/// replica 2 times out alone waiting for slot 3's prepare and seals view
/// 0, while the other four decide on in view 0. Replica 2 then decides
/// slots 3 to 5, each after the others certified the slot above it, in a
/// later view than theirs. Slot 6, the run's last, has no slot above it:
/// replica 2 decides it on the slow path from the others' COMMITs while it
/// awaits a NEW_VIEW (R25, SLOW's deliver mode, view.md ViewDeliver).
#[test]
fn a_replica_a_view_ahead_catches_up_while_awaiting_a_new_view() {
    let s = Scenario::from_toml(
        r#"
replicas = 5
slots = 6
seed = 1282
net_latency = 110
hbm_read_latency = 21
hbm_write_latency = 11
wait_polls = 11
sign_latency = 69
verify_latency = 69
max_cycles = 150000
layout = "v3"

[[fault]]
kind = "mute_fast"
replica = 4

[[fault]]
kind = "delay"
src = 0
dst = 2
extra = 1600
from = { sent = "commit", slot = 2 }
cycles = 4516
"#,
    )
    .unwrap();
    let report = s.run(Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    let others: Vec<_> = report.replicas.iter().filter(|r| r.id != 2).collect();
    for r in &others {
        assert_eq!(
            (r.status.error, r.decided.len(), r.view),
            (0, 6, 0),
            "{}",
            report.summary()
        );
    }
    let r2 = &report.replicas[2];
    assert_eq!(r2.status.error, 0, "{}", report.summary());
    assert!(
        r2.view > 0,
        "replica 2 sealed view 0 alone: {}",
        report.summary()
    );
    let ks: Vec<u64> = r2.decided.iter().map(|d| d.k).collect();
    assert_eq!(ks, vec![1, 2, 3, 4, 5, 6], "{}", report.summary());
    // Slot 6 by R25 while awaiting: on the slow path, in a later view than
    // the others', after f + 1 = 3 of them committed it (each commits
    // before it decides).
    assert_eq!(r2.decided[5].path, Path::Slow, "{}", report.summary());
    let mut at: Vec<u64> = others.iter().map(|r| r.decided[5].cycle).collect();
    at.sort();
    assert!(
        r2.decided[5].cycle > at[2],
        "slot 6: {at:?}\n{}",
        report.summary()
    );
    for (i, d) in r2.decided.iter().enumerate() {
        assert_eq!(d.m, others[0].decided[i].m, "agreement at slot {}", d.k);
    }
    // Slots 3 to 5 by ABOVE: f + 1 = 3 others certified the slot above
    // (its certificate carries the value as prev), each after deciding
    // the slot, so at least three had decided it before replica 2 did.
    for i in 2..5 {
        let mut at: Vec<u64> = others.iter().map(|r| r.decided[i].cycle).collect();
        at.sort();
        assert!(
            r2.decided[i].cycle > at[2],
            "slot {}: {} after {at:?}\n{}",
            i + 1,
            r2.decided[i].cycle,
            report.summary()
        );
    }
    eprintln!("{}", report.summary());
}

/// The bridge's end by the next slot's certificate (R17, recovery.md):
/// the soak's seed 1533, a late link 0 -> 1 at n = 3. Replica 1 times out
/// holding a will_commit that its two peers decided fast and went past,
/// so nobody writes the share its bridge waits for (without this end it
/// stays in SlowWaitCertify for good, 2 of 12 decided). Its peers go slow
/// at the next slot, certify it on that value and commit it; replica 1,
/// bridging, adopts their COMMIT of W.b + 1 (its prev is W.m, its view the
/// one being sealed: SLOW's adopt mode on D at W.b + 1), so its own
/// COMMIT of that slot covers W: it seals, and decides every slot while
/// it awaits a NEW_VIEW its peers never write: the last from their
/// COMMITs (R25 while awaiting).
/// Agreement holds throughout. The late link: the leader's prepare of
/// slot 3, sent right after it decides slot 2, lands 2,589 cycles late at
/// replica 1, and the writes after it on that queue pair with it (they
/// stay in order); the soak's window, cycles 1,030 to 3,328, began with
/// that prepare, and placed by it the run is the same, report for report.
#[test]
fn a_bridge_ends_by_adopting_a_commit_of_the_next_slot() {
    let s = Scenario::from_toml(
        r#"
replicas = 3
slots = 12
seed = 1533
net_latency = 102
hbm_read_latency = 22
hbm_write_latency = 14
wait_polls = 62
sign_latency = 704
verify_latency = 768
max_cycles = 450000
layout = "v3"

[[fault]]
kind = "delay"
src = 0
dst = 1
extra = 2589
from = { sent = "prepare", slot = 3 }
cycles = 1
"#,
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    // Replica 1's own COMMIT of a slot it never reached as k, in view 0,
    // in replica 0's HBM: the adoption (a COMMIT of slot 3 on slot 2's
    // value is how its bridge on slot 2 ended).
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let at = NETWORK_PTR + 4 * mb.record(Region::Commit, 2, 1) as u64;
    let block = c.hbms[0].read_words(at, 8);
    assert_eq!(
        (block[0], block[1], block[2], block[3]),
        (records::KIND_COMMIT, 1, 0, 3),
        "replica 1's COMMIT of slot 3, view 0: {block:x?}"
    );
    assert_eq!(
        block[5], report.replicas[0].decided[1].m,
        "its prev is slot 2's value"
    );
    for r in [&report.replicas[0], &report.replicas[2]] {
        assert_eq!(
            (r.status.error, r.decided.len(), r.view),
            (0, 12, 0),
            "{}",
            report.summary()
        );
    }
    let r1 = &report.replicas[1];
    let state = rhdl_ubft::controller::status::STATE_NAMES[r1.status.state as usize];
    assert_eq!(r1.status.error, 0, "{}", report.summary());
    assert!(r1.view > 0, "replica 1 sealed: {}", report.summary());
    assert!(
        !state.starts_with("Slow"),
        "replica 1 left the bridge, in {state}: {}",
        report.summary()
    );
    let ks: Vec<u64> = r1.decided.iter().map(|d| d.k).collect();
    assert_eq!(ks, (1..=12).collect::<Vec<u64>>(), "{}", report.summary());
    assert_eq!(r1.decided[11].path, Path::Slow, "{}", report.summary());
    for (i, d) in r1.decided.iter().enumerate() {
        assert_eq!(
            d.m, report.replicas[0].decided[i].m,
            "agreement at slot {}",
            d.k
        );
    }
}

/// The bridge's end by the next slot's certificate taken from the certify
/// row (R17, `adopt_row`): the soak's seed 434,828, n = 3, a `random`
/// replica 0 and replica 2's writes to it late. Replica 2 bridges a
/// will_commit whose own certificate never forms; the certificate of the
/// next slot on W.m exists only as f + 1 CERT records in the certify row
/// (no peer wrote a COMMIT of it that replica 2 can adopt). WATCH reports
/// it as ABOVE, and SLOW's adopt mode reads the row, verifies both shares
/// and commits it, so replica 2 seals with L above W. Without the row's
/// adoption (the bridge adopting COMMIT records only) replica 2 stays in
/// its bridge and the run ends with the honest replicas short of the 7
/// slots.
#[test]
fn a_bridge_ends_by_adopting_the_next_slots_certificate_from_the_certify_row() {
    let s = Scenario::from_toml(
        r#"
replicas = 3
slots = 7
seed = 434828
net_latency = 88
hbm_read_latency = 8
hbm_write_latency = 15
wait_polls = 83
sign_latency = 164
verify_latency = 260
max_cycles = 123232
layout = "v3"

[[fault]]
kind = "random"
replica = 0

[[fault]]
kind = "delay"
src = 2
dst = 0
extra = 463
from_cycle = 370
to_cycle = 11495
"#,
    )
    .unwrap();
    let report = s.cluster(Backend::Verilator).unwrap().run().unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    for r in &report.replicas[1..] {
        let ks: Vec<u64> = r.decided.iter().map(|d| d.k).collect();
        assert_eq!(ks, (1..=7).collect::<Vec<u64>>(), "{}", report.summary());
        assert_eq!(r.status.error, 0, "{}", report.summary());
    }
    for i in 0..7 {
        assert_eq!(
            report.replicas[1].decided[i].m,
            report.replicas[2].decided[i].m,
            "agreement at slot {}",
            i + 1
        );
    }
    // Replica 2 went through a view change (it sealed after its bridge).
    assert!(report.replicas[2].view > 0, "{}", report.summary());
}

/// The equivocating leader (`Equivocate`: a signed PREP block with
/// the client's request m for replica 1 and the next request m' for
/// replica 2, its own CERT share and a signed COMMIT made up for each),
/// with replica 2's writes to replica 1 one network latency (40 cycles)
/// late.
///
/// The followers see the equivocation and change view, and every replica
/// ends in view 1 (replica 1 leads) having decided every slot fast, slot 1
/// included, the client's requests in order. Safe throughout: m' is never
/// decided. (With the delay above about 55 cycles, replica 1 no longer
/// sees replica 2's echo in time: it decides every slot slow in view 0
/// with the leader, and replica 2, alone in later views, ends a slot
/// short, the run's last slot of docs/protocol.md's weaknesses.)
/// (R24 by CertCheck on a valid certificate is exercised instead by
/// `a_follower_behind_catches_up_from_the_certificate_in_a_commit_of_the_next_slot`,
/// below, with dropped writes.)
#[test]
fn an_equivocating_leader_with_a_late_echo_is_replaced_and_view_1_decides_the_clients_requests() {
    let s = Scenario::from_toml(
        r#"
replicas = 3
slots = 12
layout = "v3"
seed = 8
net_latency = 40
hbm_read_latency = 12
hbm_write_latency = 6
wait_polls = 64
sign_latency = 300
verify_latency = 500
max_cycles = 300000

[[fault]]
kind = "equivocate"
replica = 0

[[fault]]
kind = "delay"
src = 2
dst = 1
extra = 40
"#,
    )
    .unwrap();
    let report = s.run(Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    for r in &report.replicas[1..] {
        assert_eq!(
            (r.status.error, r.decided.len(), r.view),
            (0, 12, 1),
            "{}",
            report.summary()
        );
        // The client's requests in order (m, never the leader's m').
        for (i, d) in r.decided.iter().enumerate() {
            assert_eq!(
                d.m,
                ubft_sim::models::client::proposal(8, i as u64),
                "slot {}",
                d.k
            );
        }
        // Nothing in view 0: every slot fast in view 1, behind an honest
        // leader.
        assert!(
            r.decided.iter().all(|d| d.path == Path::Fast),
            "{}",
            report.summary()
        );
    }
    for (a, b) in report.replicas[1]
        .decided
        .iter()
        .zip(&report.replicas[2].decided)
    {
        assert_eq!(a.m, b.m, "agreement at slot {}", a.k);
    }
}

/// The run's last slot with a `random` replica: the soak's seed 505, n = 3
/// with replica 1 `random`. Replicas 0 and 2 decide all ten slots and
/// agree. The run once reached R28's laggard case (recovery.md section 7:
/// replica 2 decided slot 10 fast and closed its will_commit, replica 0
/// decided it on the two COMMITs); with the rerun run whole (recovery.md
/// D11.15) its timing changed and both decide slot 10 on the slow path
/// (which of them first follows the timing). R28's laggard case is
/// checked by the model (`recovery:no_close` stalls, `kernel` does not; model.md, "R28: the
/// run's end") and Close itself by `tests/control.rs`.
#[test]
fn the_last_slot_with_a_random_replica_is_decided_by_both_honest_replicas() {
    let s = Scenario::from_toml(
        r#"
replicas = 3
slots = 10
seed = 505
net_latency = 35
hbm_read_latency = 12
hbm_write_latency = 7
wait_polls = 84
sign_latency = 524
verify_latency = 437
max_cycles = 248360
layout = "v3"

[[fault]]
kind = "random"
replica = 1
"#,
    )
    .unwrap();
    let report = s.run(Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    let (r0, r2) = (&report.replicas[0], &report.replicas[2]);
    for r in [r0, r2] {
        assert_eq!(
            (r.status.error, r.decided.len()),
            (0, 10),
            "{}",
            report.summary()
        );
    }
    let (d0, d2) = (&r0.decided[9], &r2.decided[9]);
    eprintln!("{}\nslot 10: r0 {d0:?}, r2 {d2:?}", report.summary());
    assert_eq!((d0.k, d2.k), (10, 10));
    assert_eq!(d0.m, d2.m, "agreement at slot 10");
    assert_eq!((d0.path, d2.path), (Path::Slow, Path::Slow), "slot 10");
}

/// `lie_vc` (`LieVc`): at n = 5, replica 0, the view-0 leader, falls
/// silent from its CERT share of slot 3 (its certify record; an event), so
/// the four others certify and commit slot 3 without it and slot 4 is
/// never proposed, and replica 2 lies in its SEAL: replica 0 (its
/// lowest peer) is sent its true SEAL, replicas 1, 3 and 4 a SEAL of the
/// same view with no L, which it signs itself. A late link 3 -> 4 moves the
/// first slots to the slow path, so the liar has committed before it
/// seals, and its lie omits that commit. R21 must catch it: its COMMITs
/// are in the honest replicas' echo_commit registers. The honest replicas
/// change view, agree, and decide every slot.
#[test]
fn a_replica_that_omits_its_commit_from_the_seal_it_shows_some_peers_does_not_stop_the_view_change()
{
    let s = Scenario::from_toml(
        r#"
replicas = 5
slots = 8
seed = 4
net_latency = 40
hbm_read_latency = 12
hbm_write_latency = 6
wait_polls = 64
sign_latency = 300
verify_latency = 500
max_cycles = 400000
layout = "v3"

[[fault]]
kind = "lie_vc"
replica = 2

[[fault]]
kind = "silent"
replica = 0
from = { sent = "certify", slot = 3 }

[[fault]]
kind = "delay"
src = 3
dst = 4
extra = 2000
from_cycle = 0
to_cycle = 8000
"#,
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    for r in [1, 3, 4] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.status.error, rr.decided.len()),
            (0, 8),
            "{}",
            report.summary()
        );
        assert!(rr.view >= 1, "{}", report.summary());
    }
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let seal2 = mb.record(Region::Seal, 0, 2);
    // Replica 0 was told the truth: the liar sealed view 0 with L, its
    // COMMIT of slot 3 (k = 3, present), signed by it.
    let (told, told_ok) = signed_block_at(&c.hbms[0], seal2, 2, s.seed);
    assert!(told_ok, "{told:x?}");
    assert_eq!(
        (told[..5].to_vec(), told[records::SEAL_LPRESENT]),
        (vec![records::KIND_SEAL, 2, 0, 0, 3], 1),
        "{told:x?}"
    );
    for r in [1, 3, 4] {
        // The others got the lie: the same view, no L, signed by the liar.
        let (lie, lie_ok) = signed_block_at(&c.hbms[r], seal2, 2, s.seed);
        assert_eq!(
            (lie, lie_ok),
            (records::seal_block(2, 0, None), true),
            "replica {r}"
        );
        // NEW_VIEW(1), replica 1's: its own SEAL and those of 3 and 4, not
        // the liar's, which R21 refused (its COMMITs were echoed). The same
        // run without the lie (replica 2 honest) has NEW_VIEW(1) hold the
        // SEALs of 1, 2 and 4: the leader takes the lowest that pass.
        let nv = c.hbms[r].read_words(byte(mb.record(Region::NewViewRecord, 0, 0)), 2);
        assert_eq!(nv, vec![1, 0b11010], "replica {r}'s NEW_VIEW");
    }
}

/// `split_view` (`SplitView`): `scenarios/equivocate.toml` with
/// the equivocating leader also splitting the view. When it seals view 0,
/// replica 1 is sent a SEAL whose L claims a COMMIT of the latest slot it
/// proposed (slot 1 or 2, as the timing goes) with the value replica 1's
/// half got, and replica 2 one with
/// the value its half got, each signed by the leader (neither has a
/// certificate behind it: the COMMIT records it made up carry its own
/// share and zeros). The honest replicas agree and decide every slot in
/// view 1, under a NEW_VIEW(1) of the SEALs of 1 and 2. (That is also
/// what equivocate.toml, the same run without the split, ends with:
/// this run does not show that R20 or R21 would refuse the lie, only
/// that it changes nothing.) The file also delays every write from 1 to 2
/// by 2,000 cycles, so NEW_VIEW(1) reaches replica 2 close to the end of
/// its T_vc: where its wait runs out first (the timing of the adoption
/// passes in view 0 decides which), replica 2 seals view 1 alone, leads
/// view 2 with no SEAL but its own, and decides every slot from its
/// peers' COMMITs (R24 to R26) while it awaits; replica 1 stays in view 1.
#[test]
fn a_leader_that_splits_the_view_with_signed_seals_changes_nothing() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/split_view.toml"
    ))
    .unwrap();
    let s = Scenario::from_toml(&text).unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let seal0 = mb.record(Region::Seal, 0, 0);
    let mut told = vec![];
    for r in [1, 2] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.status.error, rr.decided.len()),
            (0, 12),
            "{}",
            report.summary()
        );
        let views = if r == 1 { 1..=1 } else { 1..=2 };
        assert!(views.contains(&rr.view), "{}", report.summary());
        let (seal, ok) = signed_block_at(&c.hbms[r], seal0, 0, s.seed);
        assert!(ok, "replica {r}: {seal:x?}");
        told.push(seal);
        let nv = c.hbms[r].read_words(byte(mb.record(Region::NewViewRecord, 0, 0)), 2);
        assert_eq!(nv, vec![1, 0b110], "replica {r}'s NEW_VIEW");
    }
    // Replica 1 and replica 2 were told the same L = (w 0, c, m, prev) of
    // the latest slot c the leader proposed, each with the value its half
    // got: the two SEALs differ in L.m alone.
    let (a, b) = (told[0], told[1]);
    for seal in [a, b] {
        assert_eq!(seal[..records::SEAL_LW], [records::KIND_SEAL, 0, 0]);
        assert_eq!(
            (seal[records::SEAL_LW], seal[records::SEAL_LPRESENT]),
            (0, 1)
        );
        assert!(seal[records::SEAL_LC] >= 1, "{seal:x?}");
    }
    for i in 0..records::BLOCK_WORDS {
        assert_eq!(
            a[i] == b[i],
            i != records::SEAL_LM,
            "word {i}: {a:x?} {b:x?}"
        );
    }
    if a[records::SEAL_LC] == 1 {
        // The lie of slot 1: replica 1's half got the stream's first
        // request, replica 2's the next.
        for (seal, m) in told.iter().zip([proposal(s.seed, 0), proposal(s.seed, 1)]) {
            assert_eq!(*seal, records::seal_block(0, 0, Some([0, 1, m, 0])));
        }
    }
}

/// Runs the scenario file `scenarios/<name>.toml` on Verilator and
/// returns the cluster (its HBMs) and the report, the checks passed.
fn scenario_file_run(
    name: &str,
) -> (
    Scenario,
    ubft_sim::cluster::Cluster,
    ubft_sim::cluster::RunReport,
) {
    let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let s = Scenario::from_file(std::path::Path::new(&path)).unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    (s, c, report)
}

/// `made_up` (`MadeUp`), `scenarios/made_up.toml`: replica 0,
/// the view-0 leader, proposes for slot 1 a value M no client sent, the
/// same to both followers, with a PREP block, a CERT share and a COMMIT
/// of M that it signs. Every signature verifies, and validity (R1, R2)
/// stops it: neither follower locks or certifies M (it is in neither's
/// request buffer), both time out with nothing locked, seal view 0 with no
/// L, and every slot is decided in view 1 from client requests.
#[test]
fn a_leader_that_proposes_a_made_up_value_to_everyone_is_replaced_and_m_is_never_decided() {
    use ubft_sim::adversary::made_up::MadeUp;
    let (s, c, report) = scenario_file_run("made_up");
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let made_up = MadeUp::value(s.seed, 1);
    assert!(!report.proposed.contains(&made_up), "no client sent it");
    let (fast, slow) = every_slot_decided(&report, 8);
    for r in [1, 2] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (1, 1),
            "{}",
            report.summary()
        );
        assert!(rr.decided.iter().all(|d| d.m != made_up));
        let hbm = &c.hbms[r];
        // What the liar wrote, signed with its key, is there: the PREP
        // block of (v 0, k 1, M, prev 0), its CERT share and its COMMIT.
        assert_eq!(
            signed_block_at(hbm, mb.record(Region::PrepSig, 0, 0), 0, s.seed),
            (records::block(records::KIND_PREP, 0, 1, made_up, 0), true),
            "replica {r}'s prep_sig"
        );
        assert_eq!(
            signed_block_at(hbm, mb.record(Region::Certify, 0, 0), 0, s.seed),
            (records::block(records::KIND_CERT, 0, 1, made_up, 0), true),
            "replica {r}'s certify[0][0]"
        );
        assert_eq!(
            signed_block_at(hbm, mb.record(Region::Commit, 0, 0), 0, s.seed),
            (records::commit_block(0, 0, 1, made_up, 0), true),
            "replica {r}'s commit[0][0]"
        );
        // Neither follower locked, certified or committed M, and each
        // sealed view 0 with no L (it had committed nothing).
        for j in [1, 2] {
            let lane = hbm.read_words(byte(mb.vote(Region::WillCert, 0, j)), 2);
            assert_ne!(lane[1], made_up, "replica {r}: will_cert[0][{j}]");
            for rec in [Region::Certify, Region::Commit, Region::EchoPrep] {
                let b = hbm.read_words(byte(mb.record(rec, 0, j)), 8);
                assert!(!b.contains(&made_up), "replica {r}: {rec:?}[0][{j}] {b:x?}");
            }
            assert_eq!(
                signed_block_at(hbm, mb.record(Region::Seal, 0, j), j, s.seed),
                (records::seal_block(j as u32, 0, None), true),
                "replica {r}: seal[{j}]"
            );
        }
    }
    eprintln!(
        "made-up value {made_up:#x}; {fast} fast, {slow} slow; slot 1 decided at cycle {} \
         (replica 1), {} cycles",
        report.replicas[1].decided[0].cycle, report.cycles
    );
}

/// Whether the c-th share of the COMMIT record at `word` in `hbm` is
/// `signer`'s signature over `cert`.
fn commit_share_verifies(
    hbm: &Hbm,
    word: usize,
    c: usize,
    signer: usize,
    cert: &[u32; 8],
    seed: u64,
) -> bool {
    let share = hbm.read_words(byte(word + (2 + c) * 16), 16);
    ubft_sim::models::signer::block_verifies(seed, signer, cert, &share)
}

/// `forge_cert` (`ForgeCert`, with `mute_fast` on the same replica),
/// `scenarios/forge_cert.toml`: every slot goes slow, and each COMMIT
/// replica 2 writes is replaced by two it signs: one of another value m′
/// at its slot (the bitmap of its true certificate, its own share over
/// m′, replica 0's or 1's true share of the decided value replayed under
/// that signer's bit) and one at the next slot, (v 0, k + 1, m″, prev =
/// m′), whose only valid share is its own (the catch-up R24 through
/// WATCH's COMMIT poll and CertCheck). The honest replicas count neither:
/// SLOW counts only COMMITs of its own block (a COMMIT of m′ is a miss),
/// and CertCheck refuses the certificate above, so every slot is decided
/// on the honest replicas' own COMMITs, in view 0. The forgeries cost
/// time (CertCheck's verifies): 36,230 cycles against 31,987 for the same
/// run with replica 2 only `mute_fast`.
#[test]
fn a_replica_whose_commits_carry_forged_certificates_is_never_counted_or_caught_up_from() {
    use ubft_sim::adversary::forge_cert::ForgeCert;
    let s = Scenario::from_toml(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/forge_cert.toml"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let mb = Mailbox::v3(BUILD_N, G, SB);
    // The first cycle at which replica r's HBM holds a COMMIT of replica
    // 2's for slot k + 1 (k = 1..7), and its prev: the forgery above,
    // written with replica 2's COMMIT of slot k.
    let mut above = [[None::<(u64, u32)>; 8]; 2];
    while c.cycle < 40_000 && above.iter().any(|row| row[1..].iter().any(Option::is_none)) {
        c.step().unwrap();
        for (r, row) in above.iter_mut().enumerate() {
            for (k, seen) in row.iter_mut().enumerate().skip(1) {
                if seen.is_none() {
                    let b = c.hbms[r].read_words(byte(mb.record(Region::Commit, k, 2)), 8);
                    if b[records::KIND] == records::KIND_COMMIT
                        && b[records::COMMIT_K] == k as u32 + 1
                    {
                        *seen = Some((c.cycle, b[records::COMMIT_PREV]));
                    }
                }
            }
        }
    }
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    assert_eq!(every_slot_decided(&report, 8), (0, 8), "fast, slow");
    let forger = ForgeCert::new(3, mb.clone(), s.seed, 2);
    let decided: Vec<u32> = report.replicas[0].decided.iter().map(|d| d.m).collect();
    let prev = |k: usize| if k == 1 { 0 } else { decided[k - 2] };
    for r in [0, 1] {
        assert_eq!(
            (
                report.replicas[r].view,
                report.replicas[r].status.view_changes
            ),
            (0, 0)
        );
        let hbm = &c.hbms[r];
        for k in 1..=8usize {
            let (m, p) = (decided[k - 1], prev(k));
            // r's own COMMIT is of the decided value.
            assert_eq!(
                signed_block_at(hbm, mb.record(Region::Commit, k - 1, r), r, s.seed),
                (records::commit_block(r as u32, 0, k as u32, m, p), true),
                "replica {r}: its COMMIT of slot {k}"
            );
            // The forger's, signed by it, of another value.
            let m1 = forger.other(m);
            assert_ne!(m1, m);
            let at = mb.record(Region::Commit, k - 1, 2);
            assert_eq!(
                signed_block_at(hbm, at, 2, s.seed),
                (records::commit_block(2, 0, k as u32, m1, p), true),
                "replica {r}: commit[{k}][2]"
            );
            // Its certificate: the forger's own share holds, the honest
            // signer's (a share of the decided value) does not.
            let cert = records::block(records::KIND_CERT, 0, k as u32, m1, p);
            let bitmap = hbm.read_words(byte(at + records::COMMIT_BITMAP), 1)[0];
            let signers: Vec<usize> = (0..3).filter(|&j| bitmap >> j & 1 == 1).collect();
            assert_eq!(signers.len(), 2, "replica {r}: slot {k}: {bitmap:b}");
            for (i, &j) in signers.iter().enumerate() {
                assert_eq!(
                    commit_share_verifies(hbm, at, i, j, &cert, s.seed),
                    j == 2,
                    "replica {r}: slot {k}: share of {j}"
                );
            }
        }
        // The last forgery above: slot 9, prev = the forged value of slot
        // 8, left in commit[s(9)][2] (no slot 9 is run).
        let m1 = forger.other(decided[7]);
        let at = mb.record(Region::Commit, 8, 2);
        let (block, ok) = signed_block_at(hbm, at, 2, s.seed);
        assert_eq!(
            (block, ok),
            (records::commit_block(2, 0, 9, forger.other(m1), m1), true),
            "replica {r}: commit[9][2]"
        );
        let cert = records::block(records::KIND_CERT, 0, 9, forger.other(m1), m1);
        assert_eq!(
            hbm.read_words(byte(at + records::COMMIT_BITMAP), 1)[0],
            0b101
        );
        assert!(!commit_share_verifies(hbm, at, 0, 0, &cert, s.seed));
        assert!(commit_share_verifies(hbm, at, 1, 2, &cert, s.seed));
    }
    // Each forgery above landed while the replica was still at slot k
    // (1,100 to 1,250 cycles before it decided k): the window in which
    // R24 would have taken it.
    let mut open = 0;
    for (r, row) in above.iter().enumerate() {
        for (k, seen) in row.iter().enumerate().skip(1) {
            let (at, p) = seen.expect("the forgery above landed");
            assert_eq!(
                p,
                forger.other(decided[k - 1]),
                "replica {r}, slot {}",
                k + 1
            );
            let decided_k = report.replicas[r].decided[k - 1].cycle;
            eprintln!("replica {r}: forgery above slot {k} landed at {at}, slot {k} decided at {decided_k}");
            open += (at < decided_k) as usize;
        }
    }
    assert!(
        open == 14,
        "every forgery above landed before its slot was decided: {open} of 14"
    );
    // No honest replica decided a forged value: each decided, at every
    // slot, the value of its own COMMIT (above), not the forger's m′. (m′
    // is the client stream's request after m, which the honest leader
    // proposes at k + 1: had CertCheck taken the certificate above, a
    // replica still at slot k would have decided (k, m′).)
    eprintln!("{} cycles", report.cycles);
}

/// `wrong_history` (`WrongHistory`), `scenarios/wrong_history.toml`:
/// n = 5, replica 0 (the view-0 leader) silent from the cycle after it
/// decides slot 5 fast, and replica 2's SEAL of view 0, signed by it, claims L
/// = (w 0, c + 1, m′, m) where its true L is its bridge's COMMIT (0, c, m,
/// prev): the slot after, the stream's next request, no certificate
/// behind it. R21 does not refuse it (no COMMIT of replica 2 above it
/// exists). Replica 1, leading view 1, takes the SEALs of 1, 2 and 3 (its
/// own and the lowest others); the liar's L is the highest (R20), so it
/// reads commit[s(c + 1)][2] for its certificate, finds no COMMIT of that
/// block, drops the liar, and writes NEW_VIEW(1) from the SEALs of 1, 3
/// and 4, carrying the true W. Every slot is decided, in view 1. The same
/// run with replica 2 honest has NEW_VIEW(1) of 1, 2 and 3: the lie costs
/// the leader a certificate read and a second collection, nothing else
/// (the test prints both runs' cycles).
#[test]
fn a_seal_that_claims_a_commit_above_the_truth_is_dropped_for_its_missing_certificate() {
    use ubft_sim::adversary::wrong_history::WrongHistory;
    let (s, c, report) = scenario_file_run("wrong_history");
    let mb = Mailbox::v3(BUILD_N, G, SB);
    every_slot_decided(&report, 8);
    let liar = WrongHistory::new(5, mb.clone(), s.seed, 2);
    // The liar's own HBM keeps its true SEAL of view 0: L = its COMMIT.
    let seal2 = mb.record(Region::Seal, 0, 2);
    let (truth, ok) = signed_block_at(&c.hbms[2], seal2, 2, s.seed);
    assert!(ok && truth[records::SEAL_LPRESENT] == 1, "{truth:x?}");
    let true_l: [u32; 4] = truth[records::SEAL_LW..records::SEAL_LPRESENT]
        .try_into()
        .unwrap();
    let claim = liar.claimed(0, Some(true_l));
    assert_eq!(claim[1], true_l[1] + 1);
    for r in [1, 3, 4] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (1, 1),
            "{}",
            report.summary()
        );
        let hbm = &c.hbms[r];
        // Every honest replica holds the lie, signed by the liar.
        assert_eq!(
            signed_block_at(hbm, seal2, 2, s.seed),
            (records::seal_block(2, 0, Some(claim)), true),
            "replica {r}'s seal[2]"
        );
        // No COMMIT of the claimed block is anywhere: commit[s(c + 1)][2]
        // holds the liar's COMMIT of that slot in view 1, if any.
        let at = mb.record(Region::Commit, claim[1] as usize - 1, 2);
        let b = hbm.read_words(byte(at), 8);
        assert_ne!(
            b,
            records::commit_block(2, claim[0], claim[1], claim[2], claim[3]).to_vec(),
            "replica {r}"
        );
        // NEW_VIEW(1): the SEALs of 1, 3 and 4, with a certificate (cb not
        // 0) of the true W, the bridge's COMMIT: the lie is left out.
        let nv = hbm.read_words(byte(mb.record(Region::NewViewRecord, 0, 0)), 3);
        assert_eq!(&nv[..2], &[1, 0b11010], "replica {r}'s NEW_VIEW");
        assert_ne!(nv[2], 0, "replica {r}: a certificate is carried");
        for (i, j) in [1, 3, 4].into_iter().enumerate() {
            let (seal, ok) = signed_block_at(
                hbm,
                mb.record(Region::NewViewRecord, 0, 0) + 16 + 32 * i,
                j,
                s.seed,
            );
            assert!(ok, "replica {r}: NEW_VIEW's SEAL of {j}");
            assert_eq!(seal[records::SEAL_LPRESENT], 1);
            assert!(
                (seal[records::SEAL_LC], seal[records::SEAL_LW]) <= (true_l[1], true_l[0]),
                "replica {r}: SEAL of {j} {seal:x?} above the liar's true L"
            );
        }
    }
    // The same run with replica 2 honest: NEW_VIEW(1) holds the SEALs of
    // 1, 2 and 3, so the lie is what moved the leader to 4's.
    let mut honest = s.clone();
    honest.faults.retain(|f| f.kind() != "wrong_history");
    let mut c2 = honest.cluster(Backend::Verilator).unwrap();
    let report2 = run_checked(&mut c2);
    every_slot_decided(&report2, 8);
    assert_eq!(
        &mb_new_view(&c2, 1)[..2],
        &[1, 0b01110],
        "{}",
        report2.summary()
    );
    let (k, r1, h1) = (
        true_l[1] as usize,
        &report.replicas[1],
        &report2.replicas[1],
    );
    eprintln!(
        "true L {true_l:x?}, claimed {claim:x?}; slot {} decided at {} (replica 1; {} without \
         the lie), {} cycles ({} without)",
        k + 1,
        r1.decided[k].cycle,
        h1.decided[k].cycle,
        report.cycles,
        report2.cycles
    );
}

/// `omit_carried` (`OmitCarried`), `scenarios/omit_carried.toml`:
/// n = 5, replica 0 (the view-0 leader) silent from the cycle after it
/// decides slot 5 fast, so every follower bridges its will_commit and seals
/// view 0 with that L; replica 1, the view-1 leader, writes NEW_VIEW(1)
/// with the certificate bitmap 0 and no certificate, as if no SEAL
/// carried an L (all it can do: the SEALs are signed by their writers and
/// every honest one carries the bridged value). R22's form check refuses
/// it (a certificate exactly when a SEAL carries an L); the followers wait
/// out T_vc, seal view 1, and replica 2 writes NEW_VIEW(2) with the
/// certificate. Every slot is decided, in view 2, none in view 1 (the
/// refused record is a miss until T_vc).
#[test]
fn a_new_view_that_drops_the_carried_values_certificate_is_refused_and_the_next_leader_carries_it()
{
    let s = Scenario::from_toml(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/omit_carried.toml"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let (nv1, nv1_at, nv2_at) = watch_new_views(&mut c, 2, 200_000);
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    every_slot_decided(&report, 8);
    // The liar's NEW_VIEW(1): three SEALs of view 0, each with an L and
    // signed by its writer, the certificate bitmap 0 and no shares.
    let sb = nv1[records::NV_SEALS];
    assert_eq!(
        (sb.count_ones(), sb & 0b10, nv1[records::NV_CERT]),
        (3, 0b10, 0),
        "{nv1:x?}"
    );
    let sealers: Vec<usize> = (0..5).filter(|&j| sb >> j & 1 == 1).collect();
    for (p, &j) in sealers.iter().enumerate() {
        let seal = &nv1[16 + 32 * p..16 + 32 * p + 8];
        assert_eq!(
            (
                seal[records::KIND],
                seal[records::SEAL_J],
                seal[records::SEAL_V],
                seal[records::SEAL_LPRESENT]
            ),
            (records::KIND_SEAL, j as u32, 0, 1),
            "NEW_VIEW(1)'s SEAL of {j}"
        );
        assert!(ubft_sim::models::signer::block_verifies(
            s.seed,
            j,
            seal,
            &nv1[32 + 32 * p..48 + 32 * p]
        ));
    }
    assert!(nv1[7 * 16..].iter().all(|&x| x == 0), "no certificate");
    // NEW_VIEW(2), replica 2's, carries a certificate.
    for r in [2, 3, 4] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (2, 2),
            "{}",
            report.summary()
        );
        let h = mb_new_view(&c, r);
        assert_eq!(h[0], 2, "replica {r}");
        assert_ne!(h[2], 0, "replica {r}: NEW_VIEW(2) carries a certificate");
    }
    // Nothing was decided between the lie and NEW_VIEW(2): the slots after
    // the fast ones are decided after NEW_VIEW(2) landed.
    let fast = report.replicas[2]
        .decided
        .iter()
        .filter(|d| d.path == Path::Fast)
        .count();
    for r in [2, 3, 4] {
        for d in &report.replicas[r].decided[fast..] {
            assert!(
                d.cycle > nv2_at,
                "replica {r}: {d:?} before NEW_VIEW(2) at {nv2_at}"
            );
        }
    }
    eprintln!(
        "NEW_VIEW(1) landed at replica 2 at {nv1_at}, NEW_VIEW(2) at {nv2_at}; slot {} decided at \
         {} (replica 2); {} cycles",
        fast + 1,
        report.replicas[2].decided[fast].cycle,
        report.cycles
    );
}

/// Steps `c` until NEW_VIEW(2) lands in replica `r`'s HBM (at most to
/// `max_cycles`), looking at its new_view record every 8 cycles: the
/// record (3f + 4 beats at f = 2) as last seen holding NEW_VIEW(1), the
/// first cycle it held NEW_VIEW(1), and the first it held NEW_VIEW(2).
fn watch_new_views(
    c: &mut ubft_sim::cluster::Cluster,
    r: usize,
    max_cycles: u64,
) -> (Vec<u32>, u64, u64) {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let nv = mb.record(Region::NewViewRecord, 0, 0);
    let (mut nv1, mut nv1_at, mut nv2_at) = (None::<Vec<u32>>, None::<u64>, None::<u64>);
    while c.cycle < max_cycles && nv2_at.is_none() {
        c.step().unwrap();
        if c.cycle % 8 == 0 {
            let rec = c.hbms[r].read_words(byte(nv), 10 * 16);
            match rec[0] {
                1 => {
                    nv1_at.get_or_insert(c.cycle);
                    nv1 = Some(rec);
                }
                2 => nv2_at = Some(c.cycle),
                _ => {}
            }
        }
    }
    (
        nv1.expect("NEW_VIEW(1) landed"),
        nv1_at.unwrap(),
        nv2_at.expect("NEW_VIEW(2) landed"),
    )
}

/// `forge_cert` as the next leader, `scenarios/forge_cert_leader.toml`:
/// n = 5, replica 0 (the view-0 leader) silent from the cycle after it
/// decides slot 5 fast, and replica 1, the forger, leads view 1. Its NEW_VIEW(1)
/// names three SEALs of view 0 with an L and the certificate of the
/// highest, C*, whose shares of signers other than itself have a bit
/// flipped. R22 verifies each share over C*: the NEW_VIEW is refused, the
/// followers seal view 1, and replica 2's NEW_VIEW(2) carries the value.
/// Every slot is decided, in view 2, none in view 1. A refused NEW_VIEW
/// costs less than a malformed one (omit_carried.toml, a miss until
/// T_vc); the test prints when each NEW_VIEW lands.
#[test]
fn a_new_view_whose_certificate_is_forged_is_refused_and_the_next_leader_carries_the_value() {
    let s = Scenario::from_toml(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/forge_cert_leader.toml"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let (nv1, nv1_at, nv2_at) = watch_new_views(&mut c, 2, 200_000);
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    every_slot_decided(&report, 8);
    // NEW_VIEW(1): three SEALs of view 0, each with an L, and a
    // certificate of the highest, C*, of which only replica 1's share (if
    // it is a signer) verifies.
    let (sb, cb) = (nv1[records::NV_SEALS], nv1[records::NV_CERT]);
    assert_eq!(
        (sb.count_ones(), sb & 0b10, cb.count_ones()),
        (3, 0b10, 3),
        "{nv1:x?}"
    );
    let sealers: Vec<usize> = (0..5).filter(|&j| sb >> j & 1 == 1).collect();
    let mut high = [0u32; 4];
    for (p, &j) in sealers.iter().enumerate() {
        let seal = &nv1[16 + 32 * p..16 + 32 * p + 8];
        assert_eq!(
            (seal[records::SEAL_J], seal[records::SEAL_LPRESENT]),
            (j as u32, 1)
        );
        assert!(ubft_sim::models::signer::block_verifies(
            s.seed,
            j,
            seal,
            &nv1[32 + 32 * p..48 + 32 * p]
        ));
        let l = [seal[3], seal[4], seal[5], seal[6]];
        if (l[1], l[0]) > (high[1], high[0]) {
            high = l;
        }
    }
    let cstar = records::block(records::KIND_CERT, high[0], high[1], high[2], high[3]);
    let signers: Vec<usize> = (0..5).filter(|&j| cb >> j & 1 == 1).collect();
    for (i, &j) in signers.iter().enumerate() {
        let share = &nv1[(7 + i) * 16..(8 + i) * 16];
        assert_eq!(
            ubft_sim::models::signer::block_verifies(s.seed, j, &cstar, share),
            j == 1,
            "NEW_VIEW(1)'s share of {j} over {cstar:x?}"
        );
    }
    for r in [2, 3, 4] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (2, 2),
            "{}",
            report.summary()
        );
        let h = mb_new_view(&c, r);
        assert_eq!(h[0], 2, "replica {r}");
        assert_ne!(h[2], 0, "replica {r}: NEW_VIEW(2) carries a certificate");
    }
    let fast = report.replicas[2]
        .decided
        .iter()
        .filter(|d| d.path == Path::Fast)
        .count();
    for r in [2, 3, 4] {
        for d in &report.replicas[r].decided[fast..] {
            assert!(
                d.cycle > nv2_at,
                "replica {r}: {d:?} before NEW_VIEW(2) at {nv2_at}"
            );
        }
    }
    eprintln!(
        "C* {high:x?}; NEW_VIEW(1) landed at replica 2 at {nv1_at}, NEW_VIEW(2) at {nv2_at}; slot {} \
         decided at {} (replica 2); {} cycles",
        fast + 1,
        report.replicas[2].decided[fast].cycle,
        report.cycles
    );
}

/// `wrong_history` as the next leader, `scenarios/wrong_history_leader.toml`:
/// n = 5, replica 0 (the view-0 leader) silent from the cycle after it
/// decides slot 5 fast, and replica 1, the liar, leads view 1. Its NEW_VIEW(1)
/// names its own SEAL as it sent it, the lie (L one slot above its true
/// commit), and its kernel's certificate of the true highest L. A
/// follower takes the lie as C* (R20): the shares, valid over the true L,
/// do not verify over it, and R22 refuses the NEW_VIEW. The followers seal
/// view 1; replica 2, leading view 2, leaves the liar's SEAL out, and every
/// slot is decided in view 2, none in view 1.
#[test]
fn a_leader_whose_new_view_names_its_lying_seal_is_refused_for_the_certificate() {
    use ubft_sim::adversary::wrong_history::WrongHistory;
    let s = Scenario::from_toml(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/wrong_history_leader.toml"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let (nv1, nv1_at, nv2_at) = watch_new_views(&mut c, 2, 200_000);
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    every_slot_decided(&report, 8);
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let liar = WrongHistory::new(5, mb.clone(), s.seed, 1);
    let (sb, cb) = (nv1[records::NV_SEALS], nv1[records::NV_CERT]);
    assert_eq!(
        (sb.count_ones(), sb & 0b10, cb.count_ones()),
        (3, 0b10, 3),
        "{nv1:x?}"
    );
    let sealers: Vec<usize> = (0..5).filter(|&j| sb >> j & 1 == 1).collect();
    // The honest SEALs' highest L, and the liar's SEAL: the lie, signed.
    let (mut true_high, mut lie) = ([0u32; 4], None);
    for (p, &j) in sealers.iter().enumerate() {
        let seal: [u32; 8] = nv1[16 + 32 * p..16 + 32 * p + 8].try_into().unwrap();
        assert!(ubft_sim::models::signer::block_verifies(
            s.seed,
            j,
            &seal,
            &nv1[32 + 32 * p..48 + 32 * p]
        ));
        let l = [seal[3], seal[4], seal[5], seal[6]];
        assert_eq!(seal[records::SEAL_LPRESENT], 1);
        if j == 1 {
            lie = Some(l);
        } else if (l[1], l[0]) > (true_high[1], true_high[0]) {
            true_high = l;
        }
    }
    let lie = lie.unwrap();
    // The liar's true SEAL of view 0 is in its own HBM; the lie is the
    // slot after its L, above the honest SEALs' highest.
    let (truth, ok) = signed_block_at(&c.hbms[1], mb.record(Region::Seal, 0, 1), 1, s.seed);
    assert!(ok && truth[records::SEAL_LPRESENT] == 1, "{truth:x?}");
    let true_l: [u32; 4] = truth[3..7].try_into().unwrap();
    assert_eq!(lie, liar.claimed(0, Some(true_l)));
    assert!((lie[1], lie[0]) > (true_high[1], true_high[0]));
    // The certificate is of the true highest L, not of the lie.
    let cert = |l: [u32; 4]| records::block(records::KIND_CERT, l[0], l[1], l[2], l[3]);
    let signers: Vec<usize> = (0..5).filter(|&j| cb >> j & 1 == 1).collect();
    for (i, &j) in signers.iter().enumerate() {
        let share = &nv1[(7 + i) * 16..(8 + i) * 16];
        assert!(ubft_sim::models::signer::block_verifies(
            s.seed,
            j,
            &cert(true_high),
            share
        ));
        assert!(!ubft_sim::models::signer::block_verifies(
            s.seed,
            j,
            &cert(lie),
            share
        ));
    }
    for r in [2, 3, 4] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (2, 2),
            "{}",
            report.summary()
        );
        let h = mb_new_view(&c, r);
        assert_eq!(
            (h[0], h[1] & 0b10),
            (2, 0),
            "replica {r}: NEW_VIEW(2) {h:x?}"
        );
        assert_ne!(h[2], 0, "replica {r}: NEW_VIEW(2) carries a certificate");
    }
    let fast = report.replicas[2]
        .decided
        .iter()
        .filter(|d| d.path == Path::Fast)
        .count();
    for r in [2, 3, 4] {
        for d in &report.replicas[r].decided[fast..] {
            assert!(
                d.cycle > nv2_at,
                "replica {r}: {d:?} before NEW_VIEW(2) at {nv2_at}"
            );
        }
    }
    eprintln!(
        "true L {true_l:x?}, lie {lie:x?}; NEW_VIEW(1) landed at replica 2 at {nv1_at}, NEW_VIEW(2) \
         at {nv2_at}; slot {} decided at {} (replica 2); {} cycles",
        fast + 1,
        report.replicas[2].decided[fast].cycle,
        report.cycles
    );
}

/// `made_up` as the leader of a view that carries a value,
/// `scenarios/made_up_leader.toml`: n = 5, replica 0 (the view-0
/// leader) silent from cycle 1,411, after fast decisions, so NEW_VIEW(1)
/// carries the bridged value; replica 1 leads view 1 and proposes values
/// no client sent. Under the constraint only the carried value is valid at
/// its slot (R22), and no made-up value is in an honest buffer (R2): no
/// honest replica locks one (their will_cert lanes, watched through the
/// run, never hold one), they time out, and every slot is decided from
/// client requests in view 2. Replica 1's view-1 PREPAREs are of slot 5,
/// the carried one, and slot 6, both made up; slot 6 is decided at cycle
/// 57,710 at replica 2, the run is over at 69,795.
/// (These cycle figures are from before R25 while awaiting a NEW_VIEW,
/// 2026-12-03, which changed the view changes' timing; the run is now
/// over at 61,214: the rerun of slot 5, decided by a catch-up while VIEW awaited NEW_VIEW(2), no longer starts LEADER beside VIEW (protocol.md). Not re-measured in detail.)
/// (Since FAST's read ahead, 2026-12-04, the slots are quicker and the
/// silence starts at 1,411, the cycle after the leader decided slot 5, as
/// 1,500 did before; the run is now over at 41,042.)
#[test]
fn a_leader_that_makes_up_the_carried_slots_value_is_replaced_under_the_constraint() {
    use ubft_sim::adversary::made_up::MadeUp;
    let s = Scenario::from_toml(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/made_up_leader.toml"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let mb = Mailbox::v3(BUILD_N, G, SB);
    // Every view-1 PREPARE replica 2 holds, (k, m), and every lock of an
    // honest replica on a made-up value, as seen every 8 cycles.
    let mut prepared = std::collections::BTreeSet::new();
    let mut locked = vec![];
    while c.cycle < 200_000 && !c.finished() {
        c.step().unwrap();
        if c.cycle % 8 != 0 {
            continue;
        }
        for slot in 0..8 {
            let p = c.hbms[2].read_words(byte(mb.record(Region::Prepare, slot, 0)), 4);
            if p[records::PREPARE_V] == 1 && p[records::PREPARE_K] != 0 {
                prepared.insert((p[records::PREPARE_K], p[records::PREPARE_M]));
            }
            for r in [2, 3, 4] {
                for j in [2, 3, 4] {
                    let lane = c.hbms[r].read_words(byte(mb.vote(Region::WillCert, slot, j)), 2);
                    if lane[1] == MadeUp::value(s.seed, slot as u32 + 1) {
                        locked.push((c.cycle, r, j, slot + 1));
                    }
                }
            }
        }
    }
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    every_slot_decided(&report, 8);
    assert!(locked.is_empty(), "{locked:?}");
    assert!(!prepared.is_empty(), "replica 1 proposed in view 1");
    for &(k, m) in &prepared {
        assert_eq!(m, MadeUp::value(s.seed, k), "view 1's PREPARE of slot {k}");
        assert!(!report.proposed.contains(&m));
    }
    for r in [2, 3, 4] {
        let rr = &report.replicas[r];
        assert_eq!(
            (rr.view, rr.status.view_changes),
            (2, 2),
            "{}",
            report.summary()
        );
        assert_eq!(mb_new_view(&c, r)[0], 2, "replica {r}");
    }
    let fast = report.replicas[2]
        .decided
        .iter()
        .filter(|d| d.path == Path::Fast)
        .count();
    eprintln!(
        "view 1's PREPAREs {prepared:x?}; slot {} decided at {} (replica 2); {} cycles",
        fast + 1,
        report.replicas[2].decided[fast].cycle,
        report.cycles
    );
}

/// R25 while awaiting a NEW_VIEW (view.md, ViewDeliver; slow.md, deliver
/// mode): `scenarios/view_ahead_at_the_end.toml`, nobody faulty. The
/// leader's writes to replica 2 around slot 3's PREPARE are 2,000 cycles
/// late, so replica 2 times out with nothing locked and seals view 0
/// alone, while replicas 0 and 1 decide slot 3, the last, on the f + 1
/// slow path in view 0 and stop. Nothing else can decide it for replica
/// 2: no NEW_VIEW(1) comes (one SEAL is not f + 1), there is no slot 4
/// whose certificate would carry it (R24), and its own lane is missing
/// from the will_commit row (R26). So its decision of slot 3, on the slow
/// path, in view 1, after both peers decided it, is R25's: WATCH's MINE
/// and SLOW's R11 on their two COMMITs. (Before R25 while awaiting,
/// replica 2 decided 2 of 3.)
#[test]
fn a_replica_a_view_ahead_at_the_last_slot_decides_it_from_its_peers_commits() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/view_ahead_at_the_end.toml");
    let s = Scenario::from_file(&path).unwrap();
    let report = s.run(Backend::Verilator).unwrap();
    assert!(report.checks.ok(), "{}", report.summary());
    every_slot_decided(&report, 3);
    for r in &report.replicas[..2] {
        assert_eq!(r.view, 0, "replica {}: {}", r.id, report.summary());
        assert_eq!(r.decided[2].path, Path::Slow, "{}", report.summary());
    }
    let r2 = &report.replicas[2];
    assert_eq!(
        r2.view,
        1,
        "replica 2 sealed view 0 alone: {}",
        report.summary()
    );
    let d = &r2.decided[2];
    assert_eq!(d.path, Path::Slow, "{}", report.summary());
    assert_eq!(d.m, report.replicas[0].decided[2].m, "agreement at slot 3");
    let last_peer = report.replicas[..2]
        .iter()
        .map(|r| r.decided[2].cycle)
        .max()
        .unwrap();
    assert!(
        d.cycle > last_peer,
        "{} after {last_peer}: {}",
        d.cycle,
        report.summary()
    );
    // The echo round of R11: replica 2 wrote each peer's COMMIT of slot 3
    // into echo_commit[x][2] everywhere (here, in replica 0's mailbox).
    let mut c = s.cluster(Backend::Verilator).unwrap();
    c.run().unwrap();
    let mb = Mailbox::v3(BUILD_N, G, SB);
    for x in 0..2 {
        let w = c.hbms[0].read_words(byte(mb.record(Region::EchoCommit, x, 2)), 4);
        assert_eq!(
            (w[0], w[1], w[3]),
            (records::KIND_COMMIT, x as u32, 3),
            "echo_commit[{x}][2] at replica 0: {w:?}"
        );
    }
    eprintln!("{}", report.summary());
}

/// Drops every will_cert write from its replica to `dst` (a lost vote, or
/// a refused one: soak seed 8519's leader), and nothing else.
struct DropWillCertTo {
    mailbox: Mailbox,
    dst: usize,
}

impl ubft_sim::models::network::Adversary for DropWillCertTo {
    fn transform(&mut self, _src: usize, dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        let will_cert = matches!(self.mailbox.locate(write.word), Some((Region::WillCert, _)));
        if will_cert && dst == self.dst {
            vec![]
        } else {
            vec![write]
        }
    }

    fn only_drops(&self) -> bool {
        true
    }
}

/// recovery.md D2: the leader's lane of the will_cert row is its PREPARE,
/// which a follower read when it locked. The leader's will_cert votes never
/// reach replica 2, yet replica 2 counts the leader's lane, sends
/// will_commit with the others, and every replica decides every slot on
/// the fast path: 6 slots in 1,542 cycles, no timeout. (Before D2, replica
/// 2 saw 2 of 3 will_certs, timed out into SLOW at every slot and sent no
/// will_commit, so no slot was fast: every replica decided the 6 on the
/// slow path, in 24,900 cycles, with 6 timeouts each.)
#[test]
fn a_leaders_will_cert_lost_to_a_follower_still_counts_its_prepare_as_its_lock() {
    let slots = 6;
    let cfg = ClusterConfig {
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 100_000,
        ..quick(3, slots)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        0,
        Box::new(DropWillCertTo {
            mailbox: cfg.mailbox(),
            dst: 2,
        }),
    );
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    let (fast, slow) = every_slot_decided(&report, slots);
    assert_eq!((fast, slow), (slots as usize, 0), "{}", report.summary());
    for r in &report.replicas {
        assert_eq!(r.view, 0, "replica {}: {}", r.id, report.summary());
        assert!(
            r.decided.iter().all(|d| d.path == Path::Fast),
            "replica {}: {}",
            r.id,
            report.summary()
        );
    }
    // Replica 2's will_cert rows really lack the leader's votes (lane 0 of
    // each row of 2N words), and replica 1's hold them.
    let span = cfg.mailbox().span(Region::WillCert);
    let row = (2 * BUILD_N).next_power_of_two();
    let lane0 = |r: usize| -> Vec<u32> {
        let words = c.hbms[r].read_words(byte(span.start), span.words);
        words.chunks(row).flat_map(|w| w[..2].to_vec()).collect()
    };
    assert!(lane0(2).iter().all(|&w| w == 0), "{:?}", lane0(2));
    assert!(lane0(1).iter().any(|&w| w != 0), "{:?}", lane0(1));
}

/// Drops, on the link to `dst`, its replica's first will_commit write and
/// every write into certify (its CERT records: block and share).
struct HideLocksAndShares {
    mailbox: Mailbox,
    dst: usize,
    will_commits: usize,
}

impl ubft_sim::models::network::Adversary for HideLocksAndShares {
    fn transform(&mut self, _src: usize, dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        if dst != self.dst {
            return vec![write];
        }
        match self.mailbox.locate(write.word).map(|(r, _)| r) {
            Some(Region::WillCommit) => {
                self.will_commits += 1;
                if self.will_commits == 1 {
                    vec![]
                } else {
                    vec![write]
                }
            }
            Some(Region::Certify) => vec![],
            _ => vec![write],
        }
    }

    fn only_drops(&self) -> bool {
        true
    }
}

/// R24 by CertCheck (recovery.md R24, `cert_check.md`), in a cluster: the
/// catch-up by the certificate inside a peer's COMMIT of k + 1. Replica 1
/// (faulty, it only drops writes) keeps from replica 2 its will_commit of
/// slot 1 and every CERT record. Replicas 0 and 1 decide slot 1 fast at
/// about cycle 280; replica 2 sees no full will_commit row of slot 1 (R26),
/// times out into SLOW and waits there. Slot 2 cannot be fast without
/// replica 2, so 0 and 1 decide it on f + 1 = 2 COMMITs, each COMMIT
/// carrying their two shares over (v0, k2, m2, prev = slot 1's m).
/// Replica 2's certify row of slot 2 holds replica 0's CERT alone (one of
/// the f + 1 that WATCH's ABOVE needs), and nobody wrote a COMMIT of slot
/// 1 (R25): its only way to slot 1 is the certificate in a COMMIT of slot
/// 2, which CertCheck verifies share by share. It decides slot 1 after
/// those COMMITs land, in view 0 with no view change, and then every slot
/// (slot 1 at cycle 4,874; 14,601 cycles in all). With CertCheck's
/// verdict ignored (Protocol's `wt_above` without `cc.passed`, tried by
/// hand), replica 2 decides nothing in 200,000 cycles: it waits in SLOW at
/// slot 1. (The interleaving the equivocation test above lost, made here
/// by dropping writes rather than by timing.)
#[test]
fn a_follower_behind_catches_up_from_the_certificate_in_a_commit_of_the_next_slot() {
    let slots = 4;
    let cfg = ClusterConfig {
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 200_000,
        ..quick(3, slots)
    };
    let mb = cfg.mailbox();
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        1,
        Box::new(HideLocksAndShares {
            mailbox: mb.clone(),
            dst: 2,
            will_commits: 0,
        }),
    );
    // The COMMITs replicas 0 and 1 write (their own, local writes: the
    // first is of slot 2, as nobody commits slot 1).
    let span = mb.span(Region::Commit);
    for r in 0..2 {
        c.hbms[r].watch_writes(byte(span.start)..byte(span.start + span.words));
    }
    let report = run_checked(&mut c);
    eprintln!("{}", report.summary());
    every_slot_decided(&report, slots);
    for r in &report.replicas {
        assert_eq!(
            (r.view, r.status.view_changes),
            (0, 0),
            "{}",
            report.summary()
        );
    }
    let (r0, r2) = (&report.replicas[0], &report.replicas[2]);
    assert_eq!(r0.decided[0].path, Path::Fast, "{}", report.summary());
    assert_eq!(r0.decided[1].path, Path::Slow, "{}", report.summary());
    let first_commit = (0..2).map(|r| c.hbms[r].watched_writes()[0]).max().unwrap();
    let d = &r2.decided[0];
    eprintln!(
        "slot 1 at replica 2 at {}, slot 2's COMMITs written by {first_commit}",
        d.cycle
    );
    assert!(
        d.cycle > first_commit && d.cycle > r0.decided[1].cycle,
        "slot 1 at replica 2 at {}, the second COMMIT of slot 2 at {first_commit}: {}",
        d.cycle,
        report.summary()
    );
    // What replica 2 could not use: lane 1 of its will_commit rows is
    // empty at slot 1's row, and no certify record of replica 1's landed.
    let wc = mb.span(Region::WillCommit);
    let lane1 = c.hbms[2].read_words(byte(wc.start + 2), 2);
    let lane0 = c.hbms[2].read_words(byte(wc.start), 2);
    assert!(lane0 != vec![0, 0], "slot 1's row is the first: {lane0:?}");
    assert_eq!(
        lane1,
        vec![0, 0],
        "replica 1's will_commit of slot 1 landed"
    );
    for slot in 0..slots as usize {
        let rec = c.hbms[2].read_words(byte(mb.record(Region::Certify, slot, 1)), 8);
        assert!(rec.iter().all(|&w| w == 0), "certify[{slot}][1]: {rec:?}");
    }
}

/// Records the cycle and the write of everything it is shown, and passes
/// it on: placed in a chain before and after a gated adversary, it tells
/// what the kernel sent and what left the replica.
struct Log(std::sync::Arc<std::sync::Mutex<Vec<(u64, ubft_sim::models::network::Write)>>>);

impl ubft_sim::models::network::Adversary for Log {
    fn transform(
        &mut self,
        _src: usize,
        _dst: usize,
        write: ubft_sim::models::network::Write,
        cycle: u64,
    ) -> Vec<ubft_sim::models::network::Write> {
        self.0.lock().unwrap().push((cycle, write.clone()));
        vec![write]
    }
}

type Logged = std::sync::Arc<std::sync::Mutex<Vec<(u64, ubft_sim::models::network::Write)>>>;

/// A cluster of three on Verilator (the tests' quick links, 4 slots) whose
/// leader, replica 0, is silent from `event`; with what its kernel sent
/// and what left it, each with its cycle.
fn silent_from(
    event: ubft_sim::cluster::Event,
) -> (ubft_sim::cluster::RunReport, Option<u64>, Logged, Logged) {
    use ubft_sim::adversary::{silent::Silent, After, Chain};
    let cfg = ClusterConfig {
        sign_latency: 300,
        verify_latency: 500,
        max_cycles: 60_000,
        ..quick(3, 4)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let start = c.trigger(event);
    let (sent, out) = (Logged::default(), Logged::default());
    c.set_adversary(
        0,
        Box::new(Chain(vec![
            Box::new(Log(sent.clone())),
            Box::new(After {
                start: start.clone(),
                inner: Box::new(Silent { from_cycle: 0 }),
            }),
            Box::new(Log(out.clone())),
        ])),
    );
    let report = c.run().unwrap();
    (report, start.start(), sent, out)
}

/// A fault placed by "replica 0 decides slot 2" starts the cycle after
/// that decision's cycle (the client's handshake): replica 0's last write
/// that leaves it is sent at or before the decision, none after, and its
/// kernel does send writes after it (so the silence dropped some).
#[test]
fn a_fault_placed_by_a_decision_starts_the_cycle_after_it() {
    use ubft_sim::cluster::Event;
    let (report, start, sent, out) = silent_from(Event::Decided {
        replica: 0,
        slot: 2,
    });
    let decided = report.replicas[0].decided[1].cycle;
    assert_eq!(report.replicas[0].decided[1].k, 2);
    assert_eq!(start, Some(decided + 1), "{}", report.summary());
    let out = out.lock().unwrap();
    let last = out.last().expect("writes before the decision").0;
    assert!(last <= decided, "a write left at {last}, after {decided}");
    let sent = sent.lock().unwrap();
    assert!(sent.iter().any(|(c, _)| *c > decided), "nothing to drop");
    assert_eq!(
        out.len(),
        sent.iter().filter(|(c, _)| *c <= decided).count(),
        "every write up to the decision left, and only those"
    );
    // The others still decide every slot, in view 1.
    assert!(report.checks.ok(), "{}", report.summary());
    for r in report.honest() {
        assert_eq!(r.decided.len(), 4, "{}", report.summary());
    }
}

/// A fault placed by "replica 0 sends its PREPARE of slot 3" starts with
/// that write: the first write of the record (k = 3 in its first word, at
/// slot index 2) is sent at the trigger's cycle and dropped, with every
/// later one; every earlier write left. Likewise "replica 0 sends its SEAL
/// of view 1" never fires (the leader of view 0 never seals view 1 here:
/// its peers never leave view 1).
#[test]
fn a_fault_placed_by_a_write_starts_with_that_write() {
    use rhdl_ubft::layout::Region;
    use ubft_sim::cluster::Event;
    let mb = ClusterConfig::quick(3, 1).mailbox();
    let (report, start, sent, out) = silent_from(Event::Sent {
        replica: 0,
        region: Region::Prepare,
        slot: Some(3),
    });
    let sent = sent.lock().unwrap();
    let first = sent
        .iter()
        .find(|(_, w)| w.word == mb.prepare(2) && w.data[0] == 3)
        .expect("the leader sent its PREPARE of slot 3")
        .0;
    assert_eq!(start, Some(first), "{}", report.summary());
    let out = out.lock().unwrap();
    assert!(out.iter().all(|(c, _)| *c < first));
    assert_eq!(out.len(), sent.iter().filter(|(c, _)| *c < first).count());
    assert!(!out.iter().any(|(_, w)| w.word == mb.prepare(2)));
    assert!(report.checks.ok(), "{}", report.summary());
    let (_, never, _, out) = silent_from(Event::Sealed {
        replica: 0,
        view: 1,
    });
    assert_eq!(never, None);
    assert!(!out.lock().unwrap().is_empty());
}

/// A Byzantine replica's drops: it casts no fast-path vote (none reaches
/// anyone, so no slot is decided fast on its votes), and keeps from
/// replica 2 its records of the regions in `from_2`, and its PREPARE of
/// the slot at index `prepare_from_2`; it follows the protocol otherwise.
struct Withhold {
    mailbox: Mailbox,
    from_2: &'static [Region],
    prepare_from_2: Option<usize>,
}

impl ubft_sim::adversary::Adversary for Withhold {
    fn transform(&mut self, src: usize, dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        let region = self.mailbox.locate(write.word).map(|(r, _)| r);
        let vote = matches!(region, Some(Region::WillCert | Region::WillCommit));
        let kept = region.is_some_and(|r| self.from_2.contains(&r));
        let prepare = self.prepare_from_2.is_some_and(|slot| {
            ubft_sim::cluster::Records {
                region: Region::Prepare,
                slot: Some(slot),
            }
            .words(&self.mailbox, src)
            .unwrap()
            .contains(&write.word)
        });
        if vote || (dst == 2 && (kept || prepare)) {
            vec![]
        } else {
            vec![write]
        }
    }

    fn only_drops(&self) -> bool {
        true
    }
}

/// R10's second half in SLOW's normal mode (recovery.md D11.13, slow.md
/// "Adopt mode"). Replica 1's writes to replica 2 land 60,000 cycles late
/// from its will_cert of slot 1 on (a queue pair stays in order), so
/// replica 2 goes slow locked but not delivered: no n locks (R5), and the
/// leader's prep_sig never reaches it. It holds one COMMIT of slot 1 (the
/// leader's), one short of f + 1. Replicas 0 and 1 certify and commit slot
/// 1 in view 0. Replica 2, polling for its delivery, adopts the
/// certificate in the leader's COMMIT (verified share by share), commits
/// it, and decides on the leader's COMMIT and its own: in view 0, with no
/// view change, long before replica 1, whose rounds wait for the late
/// link. Without the adoption it writes no COMMIT of slot 1 and waits
/// for a view change.
#[test]
fn a_replica_that_cannot_deliver_adopts_a_peers_certificate_in_its_own_view() {
    let slots = 1;
    let cfg = ClusterConfig {
        seed: 36,
        max_cycles: 200_000,
        wait_polls: 256,
        sign_latency: 300,
        verify_latency: 500,
        delays: vec![LinkDelay {
            src: 1,
            dst: 2,
            extra: 60_000,
            from_cycle: 0,
            to_cycle: u64::MAX,
            records: Some(ubft_sim::cluster::Records {
                region: Region::WillCert,
                slot: Some(0),
            }),
            after: None,
        }],
        ..quick(3, slots)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    // Replica 0, the view-0 leader, keeps its prep_sigs from replica 2.
    c.set_adversary(
        0,
        Box::new(Withhold {
            mailbox: cfg.mailbox(),
            from_2: &[Region::PrepSig],
            prepare_from_2: None,
        }),
    );
    let report = run_checked(&mut c);
    let (fast, slow) = every_slot_decided(&report, slots);
    assert_eq!((fast, slow), (0, slots as usize), "{}", report.summary());
    let two = &report.replicas[2];
    assert_eq!(
        (two.view, two.status.view_changes),
        (0, 0),
        "{}",
        report.summary()
    );
    // Slot 1: replica 2 never certified it, and its COMMIT of it carries
    // the certificate it adopted (replicas 0 and 1).
    let mb = cfg.mailbox();
    let hbm = &c.hbms[2];
    assert_eq!(
        hbm.read_words(byte(mb.record(Region::Certify, 0, 2)), 1),
        [0]
    );
    let commit = hbm.read_words(byte(mb.record(Region::Commit, 0, 2)), 9);
    assert_eq!(commit[..4], [3, 2, 0, 1], "{commit:?}");
    assert_eq!(commit[8], 0b011, "{commit:?}");
}

/// The run's last slot (protocol.md, "Weaknesses"; recovery.md, "The
/// run's end"). Replica 0, Byzantine, casts no fast-path vote (every slot
/// is slow, each will_commit covered by its replica's COMMIT) and keeps
/// its PREPARE of slot 3, the last, and its COMMITs from replica 2:
/// replica 2 times out with nothing locked and no will_commit left to
/// bridge, and seals view 0, while replicas 0 and 1 decide slot 3 on the
/// slow path in view 0. Of slot 3 replica 2 holds one COMMIT (replica
/// 1's); f + 1 is 2, and it has sealed the view of the certificate. With the kernels'
/// `slots` = 3, replicas 0 and 1 stop after slot 3 and replica 2 stays a
/// slot short for the rest of the run. Open-ended (`slots` register 0, as
/// deployed), replicas 0 and 1 go on to slot 4 and certify it, and replica
/// 2 decides slot 3 from slot 4's certificate in its certify row (R24)
/// while it awaits NEW_VIEW(1).
#[test]
fn a_replica_behind_at_the_last_slot_decides_it_when_the_others_go_on() {
    let slots = 3;
    let base = ClusterConfig {
        seed: 3,
        max_cycles: 100_000,
        sign_latency: 300,
        verify_latency: 500,
        ..quick(3, slots)
    };
    let run = |open_ended: bool| {
        let cfg = ClusterConfig {
            open_ended,
            ..base.clone()
        };
        let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
        c.set_adversary(
            0,
            Box::new(Withhold {
                mailbox: cfg.mailbox(),
                from_2: &[Region::Commit],
                prepare_from_2: Some(slots as usize - 1),
            }),
        );
        run_checked(&mut c)
    };
    let ks = |r: &ubft_sim::cluster::RunReport, id: usize| -> Vec<u64> {
        r.replicas[id].decided.iter().map(|d| d.k).collect()
    };

    let open = run(true);
    assert!(open.open_ended);
    // (It may decide slot 4 too before the run ends, as the others did.)
    assert_eq!(ks(&open, 2)[..3], [1, 2, 3], "{}", open.summary());
    // Replica 2 decided slot 3 after the others had, while it awaited
    // NEW_VIEW(1) (its view is 1): from the certificate of slot 4 that
    // replicas 0 and 1 formed in its certify row (R24, WATCH's ABOVE).
    assert!(
        open.replicas[2].decided[2].cycle > open.replicas[1].decided[2].cycle,
        "{}",
        open.summary()
    );
    assert_eq!(open.replicas[2].view, 1, "{}", open.summary());

    let closed = run(false);
    assert!(!closed.open_ended);
    assert_eq!(ks(&closed, 1), [1, 2, 3], "{}", closed.summary());
    assert_eq!(
        closed.replicas[1].status.state,
        0,
        "Done: {}",
        closed.summary()
    );
    assert_eq!(ks(&closed, 2), [1, 2], "{}", closed.summary());
    // (The report's cycles include the hosts' reads of the status
    // registers after the budget.)
    assert!(closed.cycles >= base.max_cycles, "{}", closed.summary());
}
