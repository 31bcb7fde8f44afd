//! Equivalence of the current design with a reference build of the kernel:
//! both as Verilator models in lockstep, every output port of every replica
//! compared on every cycle, over the bench's runs, the scenario files,
//! random Byzantine scenarios and a reset in mid-run. The hosts read the
//! `state` register back to back meanwhile, so the state numbers are
//! compared too.
//!
//!     git show <commit>:rtl/rhdl_ubft.v > /tmp/ref.v
//!     cargo run --release -p ubft_sim --example equivalence -- /tmp/ref.v [random runs]
//!
//! It checks that a refactoring of the hardware (such as splitting the
//! controller into its four machines) changed no cycle of the kernel's
//! behaviour. Both files must have the same ports.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use ubft_sim::backend::lockstep::{Lockstep, Watch};
use ubft_sim::backend::verilator::{Library, VerilatorKernel};
use ubft_sim::cluster::{Cluster, ClusterConfig};
use ubft_sim::models::host::Op;
use ubft_sim::ports::KernelBackend;
use ubft_sim::scenario::Scenario;

struct Models {
    current: Arc<Library>,
    reference: Arc<Library>,
    map: Arc<ubft_sim::backend::verilator::portmap::PortMap>,
}

impl Models {
    fn kernels(&self, n: usize, watch: &Watch) -> Vec<Box<dyn KernelBackend>> {
        (0..n)
            .map(|r| {
                Box::new(Lockstep::new(
                    Box::new(VerilatorKernel::with_library(self.current.clone())),
                    Box::new(VerilatorKernel::with_library(self.reference.clone())),
                    self.map.clone(),
                    r,
                    watch.clone(),
                )) as Box<dyn KernelBackend>
            })
            .collect()
    }
}

/// Steps `c` until it finishes (or `budget` cycles), then reads the status
/// registers; Err names the first mismatch.
fn drive(c: &mut Cluster, watch: &Watch, budget: u64) -> Result<String, String> {
    while c.cycle < budget && !c.finished() {
        step(c)?;
        if let Some(m) = watch.borrow().clone() {
            return Err(m.to_string());
        }
    }
    c.read_status().map_err(|e| e.to_string())?;
    if let Some(m) = watch.borrow().clone() {
        return Err(m.to_string());
    }
    let r = c.report();
    let decided: Vec<usize> = r.replicas.iter().map(|x| x.decided.len()).collect();
    Ok(format!("{} cycles, decided {decided:?}", c.cycle))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reference = std::fs::read_to_string(&args[0]).expect("the reference Verilog");
    let random: u64 = args.get(1).map(|a| a.parse().unwrap()).unwrap_or(40);
    let models = Models {
        current: Library::get().expect("current model"),
        reference: Arc::new(Library::build(&reference).expect("reference model")),
        map: Arc::new(ubft_sim::backend::verilator::kernel_port_map().expect("port map")),
    };
    let mut failed = 0;
    let mut report = |name: &str, r: Result<String, String>| match r {
        Ok(s) => println!("same   {name}: {s}"),
        Err(e) => {
            failed += 1;
            println!("DIFFER {name}: {e}");
        }
    };

    // The bench's runs: fast path at the defaults, slow path (MuteFast).
    for n in [3, 5, 7] {
        for slow in [false, true] {
            let cfg = ClusterConfig::new(n, if slow { 5 } else { 20 });
            let watch: Watch = Rc::new(RefCell::new(None));
            let mut c = Cluster::with_kernels(cfg.clone(), models.kernels(n, &watch));
            if slow {
                let mailbox = c.net.mailbox().clone();
                c.set_adversary(
                    n - 1,
                    Box::new(ubft_sim::adversary::mute_fast::MuteFast { mailbox }),
                );
            }
            let name = format!("bench n = {n} {}", if slow { "slow" } else { "fast" });
            report(&name, drive(&mut c, &watch, cfg.cycle_budget()));
        }
    }
    // Equivocating leaders and slow links, quick parameters.
    for (n, eq, wait, delay) in [
        (3, vec![0], 8, false),
        (5, vec![0], 8, false),
        (5, vec![1], 16, true),
        (7, vec![0], 4, true),
        (3, vec![], 2, true),
    ] {
        let mut cfg = ClusterConfig {
            equivocate: eq.clone(),
            wait_polls: wait,
            max_cycles: 60_000,
            ..ClusterConfig::quick(n, 6)
        };
        if delay {
            cfg.delays.push(ubft_sim::cluster::LinkDelay {
                src: 0,
                dst: 1,
                extra: 400,
                from_cycle: 0,
                to_cycle: 20_000,
                records: None,
                after: None,
            });
        }
        let watch: Watch = Rc::new(RefCell::new(None));
        let mut c = Cluster::with_kernels(cfg.clone(), models.kernels(n, &watch));
        let name = format!("quick n = {n} equivocate {eq:?} wait {wait} delay {delay}");
        report(&name, drive(&mut c, &watch, cfg.cycle_budget()));
    }
    // A reset in mid-run, then a fresh run.
    {
        let cfg = ClusterConfig {
            max_cycles: 30_000,
            ..ClusterConfig::quick(3, 12)
        };
        let watch: Watch = Rc::new(RefCell::new(None));
        let mut c = Cluster::with_kernels(cfg.clone(), models.kernels(3, &watch));
        let mut r = Ok(String::new());
        // (No state reads here: the reset abandons the host's reads in
        // flight, and the host would take their late R for a violation.)
        while c.cycle < 2_500 && r.is_ok() {
            if let Err(e) = c.step() {
                r = Err(e.to_string());
            }
            if let Some(m) = watch.borrow().clone() {
                r = Err(m.to_string());
            }
        }
        if r.is_ok() {
            c.reset(200, true);
            r = drive(&mut c, &watch, cfg.cycle_budget());
        }
        report("reset in mid-run", r);
    }
    // The scenario files.
    let mut files: Vec<_> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
    files.sort();
    for f in files {
        let s = Scenario::from_file(&f).unwrap();
        let watch: Watch = Rc::new(RefCell::new(None));
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        match s.cluster_with_kernels(models.kernels(s.replicas, &watch)) {
            Ok(mut c) => {
                let budget = c_budget(&s);
                report(&name, drive(&mut c, &watch, budget))
            }
            Err(e) => report(&name, Err(format!("not run: {e}"))),
        }
    }
    // Random Byzantine scenarios (what `cargo xtask soak` runs).
    for seed in 1..=random {
        let s = Scenario::random(seed, 40_000);
        let watch: Watch = Rc::new(RefCell::new(None));
        let mut c = s
            .cluster_with_kernels(models.kernels(s.replicas, &watch))
            .unwrap();
        report(
            &format!("random seed {seed}"),
            drive(&mut c, &watch, c_budget(&s)),
        );
    }
    if failed > 0 {
        println!("{failed} runs differ");
        std::process::exit(1);
    }
    println!("every run agrees cycle for cycle");
}

/// One cycle, with every idle host reading the `state` register, so the
/// controller's state number (`sts_state`) is compared too, every few
/// cycles, through `s_axi_control_rdata`.
fn step(c: &mut Cluster) -> Result<(), String> {
    for h in c.hosts.iter_mut() {
        if h.idle() {
            h.push(Op::Read {
                addr: rhdl_ubft::regs::STATE,
            });
        }
    }
    c.step().map_err(|e| e.to_string())
}

fn c_budget(s: &Scenario) -> u64 {
    s.config().cycle_budget()
}
