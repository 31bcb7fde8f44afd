//! Prints each replica's state changes during a run (a debugging aid):
//! `cargo run --release -p ubft_sim --example trace -- N SLOTS MAX_CYCLES [SRC:DST:EXTRA:[FROM:]TO]...`
//! (the tests' links, 64 polls and the default signer latencies;
//! `SEED=s` sets the seed, `WAIT=p`
//! the polls, `LAT=sign:verify` the signer's latencies, `SILENT=r:cycle`
//! silences replica r, `LINKS=defaults` runs at the defaults' links and
//! HBM, L = 300 and H = 80, as the bench does.) `SCENARIO=file.toml` runs a scenario file instead,
//! with its own faults (N, SLOTS and the links are then ignored;
//! MAX_CYCLES, if not 0, replaces the file's budget). It runs on
//! rust-hdl's simulator; `BACKEND=verilator` runs the exported Verilog,
//! about 300 times faster, for runs of millions of cycles.
use rhdl_ubft::controller::status::STATE_NAMES;
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay};

/// The simulator: rust-hdl's, or Verilator's with `BACKEND=verilator`.
fn backend() -> ubft_sim::backend::Backend {
    match std::env::var("BACKEND").as_deref() {
        Ok("verilator") => ubft_sim::backend::Backend::Verilator,
        Ok("rust-hdl") | Err(_) => ubft_sim::backend::Backend::RustHdl,
        Ok(b) => panic!("BACKEND={b}: rust-hdl or verilator"),
    }
}

/// A cluster of `cfg` on the chosen simulator.
fn cluster(cfg: ClusterConfig) -> Result<Cluster, ubft_sim::backend::RunError> {
    ubft_sim::backend::cluster(&cfg, backend())
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = a[0].parse().unwrap();
    let slots: u64 = a[1].parse().unwrap();
    let max: u64 = a[2].parse().unwrap();
    let delays = a[3..]
        .iter()
        .map(|d| {
            let v: Vec<u64> = d.split(':').map(|x| x.parse().unwrap()).collect();
            // SRC:DST:EXTRA:TO, or SRC:DST:EXTRA:FROM:TO.
            let (from_cycle, to_cycle) = if v.len() == 5 {
                (v[3], v[4])
            } else {
                (0, v[3])
            };
            LinkDelay {
                src: v[0] as usize,
                dst: v[1] as usize,
                extra: v[2],
                from_cycle,
                to_cycle,
                records: None,
                after: None,
            }
        })
        .collect();
    let mut cfg = ClusterConfig {
        max_cycles: max,
        delays,
        wait_polls: 64,
        sign_latency: rhdl_ubft::params::defaults::SIGN_LATENCY,
        verify_latency: rhdl_ubft::params::defaults::VERIFY_LATENCY,
        ..if std::env::var("LINKS").as_deref() == Ok("defaults") {
            ClusterConfig::new(n, slots)
        } else {
            ClusterConfig::quick(n, slots)
        }
    };
    if let Ok(seed) = std::env::var("SEED") {
        cfg.seed = seed.parse().unwrap();
    }
    if let Ok(w) = std::env::var("WAIT") {
        cfg.wait_polls = w.parse().unwrap();
    }
    if let Ok(l) = std::env::var("LAT") {
        let v: Vec<u64> = l.split(':').map(|x| x.parse().unwrap()).collect();
        (cfg.sign_latency, cfg.verify_latency) = (v[0], v[1]);
    }
    let mut c = match std::env::var("SCENARIO") {
        Ok(f) => {
            let s = ubft_sim::scenario::Scenario::from_toml(&std::fs::read_to_string(f).unwrap())
                .unwrap();
            s.cluster(backend()).unwrap()
        }
        Err(_) => cluster(cfg).unwrap(),
    };
    let n = c.cfg.replicas;
    let max = if std::env::var("SCENARIO").is_ok() && max == 0 {
        c.cfg.max_cycles
    } else {
        max
    };
    if let Ok(s) = std::env::var("SILENT") {
        let v: Vec<u64> = s.split(':').map(|x| x.parse().unwrap()).collect();
        c.set_adversary(
            v[0] as usize,
            Box::new(ubft_sim::adversary::silent::Silent { from_cycle: v[1] }),
        );
    }
    let mut last = vec![255u8; n];
    let skip = [
        "FastPollPrepare",
        "FastWaitPrepare",
        "FastPollCert",
        "FastWaitCert",
        "FastPollCommit",
        "FastWaitCommit",
        "SlowStep",
        "SlowPollFlags",
        "SlowWaitFlags",
        "SlowPollFast",
        "SlowWaitFast",
        "LeaderIdle",
        "LeaderWaitValue",
        "SlowPollCommit",
        "SlowWaitCommit",
        "VcPollFlags",
        "VcWaitFlags",
        "VcPollRecords",
        "VcWaitRecords",
        "VcPollCatch",
        "VcWaitCatch",
        "VcPollCatchSlow",
        "VcWaitCatchSlow",
        "VcDecide",
    ];
    while c.cycle < max && !c.finished() {
        c.step().unwrap();
        let states: Vec<u8> = (0..n)
            .map(|r| c.kernels[r].debug_state().unwrap_or(255))
            .collect();
        if states == last {
            continue;
        }
        let rep = c.report();
        for r in 0..n {
            let s = states[r];
            if s != last[r] {
                let name = STATE_NAMES.get(s as usize).copied().unwrap_or("?");
                let prev = STATE_NAMES.get(last[r] as usize).copied().unwrap_or("?");
                if !(skip.contains(&name) && skip.contains(&prev)) || std::env::var("ALL").is_ok() {
                    println!(
                        "{:>6} r{} {:<18} view {} k? dec {} to {}",
                        c.cycle,
                        r,
                        prev,
                        rep.replicas[r].view,
                        rep.replicas[r].decided.len(),
                        name
                    );
                }
                last[r] = s;
            }
        }
    }
    println!("{}", c.report().summary());
}
