//! The guard in the kernel (issue 10, phase 2), on the shipped v3 kernel
//! (`Kernel`, its guard `Guard` with the kernel's rule table, guard.md):
//! every landing RDMA write goes through the receiving kernel's
//! `s_axis_rx_cmd`/`s_axis_rx_data` ports, the guard decides, and what it
//! accepts lands through `m_axi_rx`.
//!
//! - The audit's E1 (`protocol-audit.md`), on v3's vote rows: a Byzantine
//!   leader aims forged vote entries at the other replicas' entries. The
//!   honest kernels refuse them (`not_owner`, read from their status
//!   registers) and agreement holds; the same run without a guard
//!   (`Delivery::Bypass`) splits the honest replicas, so the test can fail.
//! - The report's `guard` counters, read through `s_axi_control`, match what
//!   the ports showed; the network model's rule agreed write by write.
//! - The guard runs while the kernel is idle (configured, never started),
//!   with the block's timing at the kernel's ports: an owned vote, a
//!   two-beat record, a leader's record.

use rhdl_ubft::guard::Refusal;
use rhdl_ubft::io::roce::{wr_data_beats, WrCommand};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, BEAT_WORDS, G, N as BUILD_N, SB, WORD_BYTES};
use rhdl_ubft::regs;
use ubft_sim::backend::{self, Backend};
use ubft_sim::cluster::{ClusterConfig, Path, RunReport, NETWORK_PTR, QPN_BASE};
use ubft_sim::models::client::proposal;
use ubft_sim::models::hbm::Hbm;
use ubft_sim::models::host::{Host, Op};
use ubft_sim::models::network::Delivery;
use ubft_sim::ports::{KernelBackend, KernelIn};

/// The seed of E1's run (`ClusterConfig::quick`'s).
fn report_seed() -> u64 {
    ClusterConfig::quick(3, 2).seed
}

/// E1's run: n = 3, replica 0 (view 0's leader) forges quorums, quick
/// links (a wait of 64 polls, v3's rule), 2 slots, 6,000 cycles.
fn e1(delivery: Delivery) -> (RunReport, ubft_sim::models::network::NetStats) {
    let cfg = ClusterConfig {
        max_cycles: 6_000,
        wait_polls: 64,
        delivery,
        ..ClusterConfig::quick(3, 2)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    c.set_adversary(
        0,
        Box::new(ubft_sim::adversary::forge_quorum::ForgeQuorum {
            n: 3,
            mailbox: cfg.mailbox(),
            seed: cfg.seed,
        }),
    );
    let report = c.run().unwrap();
    assert_eq!(report.layout, "v3");
    (report, c.net.stats())
}

/// E1 through the kernels' guards. Measured: replicas 1 and 2 each refuse
/// 16 writes, all `not_owner`, all from replica 0; 86 writes are checked
/// against the model with 0 disagreements; no forged row counts, so no
/// slot is fast: replica 1, sent the true m, decides slot 1 on the slow
/// path with the leader (f + 1 = 2 COMMITs), and replica 2, sent the next
/// request, decides nothing in the 6,000 cycles.
#[test]
fn e1_forged_votes_are_refused_by_the_kernels_guards_and_agreement_holds() {
    let (report, stats) = e1(Delivery::Kernel);
    println!("{}", report.summary());
    assert!(
        report.checks.agreement && report.checks.validity,
        "{:?}",
        report.checks.failures
    );
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    // Every write the guards decided agreed with the model's rule.
    assert_eq!(report.network.guard_disagreements, 0);
    assert!(report.network.guard_agreements > 50);
    for r in [1, 2] {
        let g = &report.replicas[r].guard;
        // Counted by the kernel, read by the host: forged entries of the
        // others, from replica 0 only.
        assert!(g.refused_for(Refusal::NotOwner) > 0, "replica {r}: {g:?}");
        assert_eq!(g.refused, g.refused_for(Refusal::NotOwner) as u64);
        assert_eq!(g.refused_by_sender[0] as u64, g.refused);
        assert!(g.accepted > 0);
        assert_eq!(g.write_errors, 0);
        // What the host read is what the ports showed, up to the writes
        // decided during the host's final reads (the run stops at its cycle
        // budget with writes still arriving).
        let landed: u64 = (0..3).map(|s| stats.delivered[s][r]).sum();
        assert!(g.accepted as u64 <= landed && landed - g.accepted as u64 <= 2);
        assert!(g.refused <= stats.refused_at[r] && stats.refused_at[r] - g.refused <= 2);
    }
    // No forged quorum was counted: no honest replica decided on the fast
    // path, and what was decided is the leader's true m.
    let true_m = proposal(report_seed(), 0);
    for r in report.honest() {
        for d in &r.decided {
            assert_eq!(d.path, Path::Slow, "replica {}: {d:?}", r.id);
            assert_eq!((d.k, d.m), (1, true_m), "replica {}", r.id);
        }
    }
    let json = report.to_json();
    assert!(json.contains("\"guard\": {"), "{json}");
    assert!(json.contains("\"not_owner\""));
}

/// E1 without a guard (`Delivery::Bypass`): the forged rows land, and
/// replicas 1 and 2 decide slot 1 on the fast path, each the value it was
/// sent (both client requests, so validity holds: the forged quorum alone
/// breaks agreement).
#[test]
fn e1_without_a_guard_the_forged_votes_split_the_honest_replicas() {
    let (report, stats) = e1(Delivery::Bypass);
    println!("{}", report.summary());
    assert!(
        !report.checks.agreement && report.checks.validity,
        "without a guard E1 should break agreement: {}",
        report.summary()
    );
    let first = |r: usize| {
        report.replicas[r]
            .decided
            .first()
            .map(|d| (d.k, d.m, d.path))
    };
    let seed = report_seed();
    assert_eq!(first(1), Some((1, proposal(seed, 0), Path::Fast)));
    assert_eq!(first(2), Some((1, proposal(seed, 1), Path::Fast)));
    // Nothing was refused: the writes landed unchecked.
    assert_eq!(stats.refused.iter().sum::<u64>(), 0);
    for r in &report.replicas {
        assert_eq!(r.guard.accepted, 0);
        assert_eq!(r.guard.refused, 0);
    }
}

/// Three honest replicas, 3 slots on the fast path: every write lands
/// through the kernels' guards, none is refused, the counters the hosts
/// read are what the network delivered, and the fast path's records
/// (prepares, a beat per slot, and two-word votes) are one HBM beat each.
#[test]
fn an_honest_cluster_lands_every_write_through_the_guard() {
    let cfg = ClusterConfig {
        wait_polls: 64,
        ..ClusterConfig::quick(3, 3)
    };
    let mut c = backend::cluster(&cfg, Backend::Verilator).unwrap();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    assert_eq!(report.layout, "v3");
    assert_eq!(report.network.delivery, Delivery::Kernel);
    let stats = c.net.stats();
    for r in 0..3 {
        assert!(
            report.replicas[r]
                .decided
                .iter()
                .all(|d| d.path == Path::Fast),
            "{}",
            report.summary()
        );
        let g = &report.replicas[r].guard;
        assert_eq!(g.refused, 0, "replica {r}: {g:?}");
        let landed: u64 = (0..3).map(|s| stats.delivered[s][r]).sum();
        assert_eq!(g.accepted as u64, landed);
        assert!(landed > 0);
        // Every accepted record is one single-beat AXI write.
        assert_eq!(c.hbms[r].rx_counters().writes, landed);
        assert_eq!(c.hbms[r].rx_counters().write_beats, landed);
    }
    assert_eq!(report.network.guard_disagreements, 0);
    assert!(report.checks.guard);
}

/// A write the idle-kernel test sends: from `sender`, `words` at `word`.
struct Sent {
    sender: usize,
    word: usize,
    words: Vec<u32>,
}

/// One v3 kernel (replica 0 of 3), configured through `s_axi_control` but
/// never started: the guard still takes incoming writes, with the block's
/// timing (guard.md, "Timing"), and the host reads its counters. Returns,
/// per write, the cycle its command was taken and the cycles of its AW
/// handshakes on `m_axi_rx`, with the HBM and the guard counters.
fn idle_kernel(backend: Backend, sent: &[Sent]) -> (Vec<(u64, Vec<u64>)>, Hbm, Host) {
    let mut k: Box<dyn KernelBackend> = backend::kernels(backend, 1).unwrap().remove(0);
    let mut hbm = Hbm::new(12, 6);
    let mut host = Host::new();
    let w = |addr: u64, data: u32| Op::Write { addr, data };
    host.push(w(regs::NETWORK_PTR_LO, NETWORK_PTR as u32));
    host.push(w(regs::NETWORK_PTR_HI, (NETWORK_PTR >> 32) as u32));
    host.push(w(regs::ID, 0));
    host.push(w(regs::NREPL, 3));
    for p in 0..BUILD_N as u64 {
        host.push(w(regs::QPN + 4 * p, QPN_BASE + p as u32));
    }
    let mut writes: Vec<(WrCommand, Vec<_>)> = sent
        .iter()
        .map(|s| {
            let cmd = WrCommand::write(
                QPN_BASE as u64 + s.sender as u64,
                NETWORK_PTR + s.word as u64 * WORD_BYTES,
                s.words.len() as u64 * WORD_BYTES,
            );
            (cmd, wr_data_beats(&s.words))
        })
        .collect();
    writes.reverse();
    let (mut taken, mut aws) = (vec![], vec![]);
    let mut beats = std::collections::VecDeque::new();
    let mut cmd: Option<WrCommand> = None;
    let mut reads_queued = false;
    for cycle in 0..600u64 {
        // The writes come once the host has configured the kernel.
        if host.idle() && cycle > 10 && cmd.is_none() && beats.is_empty() {
            if let Some((c, b)) = writes.pop() {
                cmd = Some(c);
                beats.extend(b);
            } else if !reads_queued && cycle > 300 {
                host.read_status();
                host.poll_ctrl();
                reads_queued = true;
            }
        }
        let mut inp = KernelIn {
            ap_rst_n: cycle >= 2,
            ..KernelIn::default()
        };
        host.drive(&mut inp);
        hbm.drive(&mut inp);
        if let Some(c) = cmd {
            let p = c.pack();
            inp.rx_cmd_tvalid = true;
            inp.rx_cmd_tdata = [p as u32, (p >> 32) as u32, (p >> 64) as u32];
        }
        if let Some(&(d, keep, last)) = beats.front() {
            inp.rx_data_tvalid = true;
            inp.rx_data_tdata = d;
            inp.rx_data_tkeep = keep;
            inp.rx_data_tlast = last;
        }
        let out = k.eval(&inp);
        hbm.observe(&inp, &out, cycle).unwrap();
        host.observe(&inp, &out, cycle);
        if inp.rx_cmd_tvalid && out.rx_cmd_tready {
            taken.push(cycle);
            cmd = None;
        }
        if inp.rx_data_tvalid && out.rx_data_tready {
            beats.pop_front();
        }
        if out.rx_awvalid && inp.rx_awready {
            aws.push(cycle);
        }
        k.tick();
    }
    assert!(
        writes.is_empty() && beats.is_empty(),
        "{backend}: every write was taken"
    );
    assert!(host.violations().is_empty(), "{:?}", host.violations());
    assert!(host.idle(), "the status reads were answered");
    // Never started: ap_start 0, ap_idle 1.
    assert_eq!(host.ctrl() & 0x5, 0x4, "CTRL {:#x}", host.ctrl());
    assert_eq!(taken.len(), sent.len(), "{backend}");
    // Each AW belongs to the last command taken before it.
    let per_write = taken
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let next = taken.get(i + 1).copied().unwrap_or(u64::MAX);
            (
                t,
                aws.iter().copied().filter(|&a| a > t && a < next).collect(),
            )
        })
        .collect();
    (per_write, hbm, host)
}

/// The guard of a v3 kernel that is configured and never started, on both
/// backends, at the kernel's ports. Replica 1 writes, at replica 0:
/// - its own will_cert entry of slot 2 (two words): AW and W at a + 6;
/// - replica 2's entry: refused (`not_owner`), no AXI write;
/// - its own certify record of slot 2 (two beats, block and share),
///   checked while it waited behind the refusal: held whole, AW and W at
///   a + 5 and a + 6;
/// - a prepare of view 4, which it leads (4 mod 3), checked while it
///   waited: a leader's record, the view checked 4 bits a cycle (a view
///   below n would need no check), AW and W at a + 11;
/// - a prepare of view 0, which replica 0 leads: refused (`not_leader`).
/// (Each command is taken at a; guard.md, "Timing".)
#[test]
fn the_guard_checks_writes_while_the_kernel_is_idle_on_both_backends() {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let own = mb.vote(Region::WillCert, 2, 1);
    let other = mb.vote(Region::WillCert, 2, 2);
    let vote = vec![vote_tag(0, 3), 0xabcd];
    let certify = mb.record(Region::Certify, 2, 1);
    let record: Vec<u32> = (0..2 * BEAT_WORDS as u32).map(|i| 0x5100 + i).collect();
    let prepare = |k: u32, v: u32| vec![k, 0x1234, v, 0];
    let (p1, p0) = (mb.prepare(3), mb.prepare(4));
    let sent = [
        Sent {
            sender: 1,
            word: own,
            words: vote.clone(),
        },
        Sent {
            sender: 1,
            word: other,
            words: vote.clone(),
        },
        Sent {
            sender: 1,
            word: certify,
            words: record.clone(),
        },
        Sent {
            sender: 1,
            word: p1,
            words: prepare(4, 4),
        },
        Sent {
            sender: 1,
            word: p0,
            words: prepare(5, 0),
        },
    ];
    for backend in [Backend::RustHdl, Backend::Verilator] {
        let (per_write, hbm, host) = idle_kernel(backend, &sent);
        let at = |word: usize| NETWORK_PTR + word as u64 * WORD_BYTES;
        let aws: Vec<Vec<u64>> = per_write
            .iter()
            .map(|(a, aws)| aws.iter().map(|c| c - a).collect())
            .collect();
        assert_eq!(
            aws,
            vec![vec![6], vec![], vec![5, 6], vec![11], vec![]],
            "{backend}: AWs after each command was taken"
        );
        assert_eq!(hbm.read_words(at(own), 2), vote);
        assert_eq!(hbm.read_words(at(other), 2), vec![0, 0]);
        assert_eq!(hbm.read_words(at(certify), record.len()), record);
        assert_eq!(hbm.read_words(at(p1), 4), prepare(4, 4));
        assert_eq!(hbm.read_words(at(p0), 4), vec![0; 4]);
        let g = host.guard();
        assert_eq!(g.accepted, 3, "{backend}");
        assert_eq!(g.refused_for(Refusal::NotOwner), 1, "{backend}");
        assert_eq!(g.refused_for(Refusal::NotLeader), 1, "{backend}");
        assert_eq!(g.refused_total(), 2, "{backend}");
        assert_eq!(g.refused_by[1], 2, "{backend}");
        assert_eq!(g.refused_by.iter().sum::<u32>(), 2, "{backend}");
    }
}

/// The guard on the fast path, at the performance model's defaults (L =
/// 300, H = 80, n = 3 and 5, 20 slots): the same runs with the network
/// model writing HBM directly (`Delivery::Model`) and through the kernels'
/// guards. Through a guard a write lands 7 cycles after its command is
/// taken (8 for one presented the cycle after landing, and a leader's
/// record 8 more), and the guard hands each beat it writes to the
/// kernel's scoreboard (docs/scoreboard.md), so FAST sees it the cycle
/// after. Written directly, nothing passes the scoreboard and FAST sees a
/// vote only when a poll reads it, an HBM read later at least. So the
/// guard's path is the faster one, by about a read per hop: more than
/// 2H over the three hops.
#[test]
fn through_the_guard_the_fast_path_sees_votes_as_they_land() {
    use ubft_sim::bench::{fast_bound, measure};
    for n in [3, 5] {
        let mean = |delivery| {
            let cfg = ClusterConfig {
                delivery,
                ..ClusterConfig::new(n, 20)
            };
            let bound = fast_bound(&cfg);
            measure(cfg, Path::Fast, bound, Backend::Verilator)
                .unwrap()
                .mean
        };
        let (direct, guarded) = (mean(Delivery::Model), mean(Delivery::Kernel));
        println!(
            "n = {n}: fast-path mean latency {direct:.1} cycles written directly, {guarded:.1} through the guard ({:.1} fewer)",
            direct - guarded
        );
        let h = ClusterConfig::new(n, 20).hbm_read_latency as f64;
        assert!(
            direct - guarded > 2.0 * h,
            "n = {n}: {direct:.1} and {guarded:.1}"
        );
    }
}
