//! Lockstep: two backends fed identical inputs, compared port by port,
//! cycle by cycle (the differential test of rust-hdl against Verilator).
//!
//! A [`Lockstep`] is itself a [`KernelBackend`], so a whole cluster runs on
//! pairs: each kernel's models see backend `a`'s outputs, backend `b` gets
//! the same inputs, and after every `eval` the two `KernelOut`s are compared
//! as port words (`PortMap::encode_out`), so a difference names the output
//! port. The first difference of the run is kept in a shared [`Watch`].

use crate::backend::verilator::portmap::{hex, PortMap};
use crate::backend::{self, Backend};
use crate::cluster::{Cluster, ClusterConfig, RunReport};
use crate::ports::{KernelBackend, KernelIn, KernelOut};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

/// The first difference between two backends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub replica: usize,
    /// The output port (Verilog name).
    pub port: String,
    pub a_name: &'static str,
    pub b_name: &'static str,
    /// The port's values, Verilog hex.
    pub a: String,
    pub b: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "first difference at cycle {}, replica {}, port {}: {} 'h{}, {} 'h{}",
            self.cycle, self.replica, self.port, self.a_name, self.a, self.b_name, self.b
        )
    }
}

/// The first mismatch of a run, shared by its kernels.
pub type Watch = Rc<RefCell<Option<Mismatch>>>;

/// Two backends in lockstep; outputs are `a`'s.
pub struct Lockstep {
    a: Box<dyn KernelBackend>,
    b: Box<dyn KernelBackend>,
    map: Arc<PortMap>,
    replica: usize,
    cycle: u64,
    watch: Watch,
    /// Cycles compared so far.
    pub compared: u64,
}

impl Lockstep {
    pub fn new(
        a: Box<dyn KernelBackend>,
        b: Box<dyn KernelBackend>,
        map: Arc<PortMap>,
        replica: usize,
        watch: Watch,
    ) -> Lockstep {
        Lockstep {
            a,
            b,
            map,
            replica,
            cycle: 0,
            watch,
            compared: 0,
        }
    }
}

impl KernelBackend for Lockstep {
    fn eval(&mut self, inp: &KernelIn) -> KernelOut {
        let oa = self.a.eval(inp);
        let ob = self.b.eval(inp);
        self.compared += 1;
        if oa != ob && self.watch.borrow().is_none() {
            let (wa, wb) = (self.map.encode_out(&oa), self.map.encode_out(&ob));
            let m = match self.map.first_difference(&wa, &wb) {
                Some((i, x, y)) => {
                    let p = &self.map.outputs[i].port;
                    (p.name.clone(), hex(&x, p.width), hex(&y, p.width))
                }
                // Every KernelOut field is a port; this is a safety net.
                None => (
                    "(a KernelOut field on no port)".into(),
                    format!("{oa:?}"),
                    format!("{ob:?}"),
                ),
            };
            *self.watch.borrow_mut() = Some(Mismatch {
                cycle: self.cycle,
                replica: self.replica,
                port: m.0,
                a_name: self.a.name(),
                b_name: self.b.name(),
                a: m.1,
                b: m.2,
            });
        }
        oa
    }

    fn tick(&mut self) {
        self.a.tick();
        self.b.tick();
        self.cycle += 1;
    }

    fn name(&self) -> &'static str {
        "lockstep"
    }

    fn debug_state(&self) -> Option<u8> {
        self.a.debug_state()
    }

    fn debug_timeouts(&self) -> Option<u32> {
        self.a.debug_timeouts()
    }
}

/// The outcome of a differential run that agreed throughout.
#[derive(Clone, Debug)]
pub struct Agreement {
    /// Cluster cycles compared (every replica's outputs on every cycle).
    pub cycles: u64,
    pub report: RunReport,
}

/// Runs `cfg` on backends `a` and `b` in lockstep until every honest
/// replica decided (or the cycle budget is spent), and then on until at
/// least `min_cycles` cycles ran. Stops at the first mismatch.
pub fn differential(
    cfg: &ClusterConfig,
    a: Backend,
    b: Backend,
    min_cycles: u64,
) -> Result<Result<Agreement, Mismatch>, String> {
    differential_with(cfg, a, b, min_cycles, |_| {})
}

/// As [`differential`], with `setup` applied to the cluster before it runs
/// (adversaries, back-pressure knobs).
pub fn differential_with(
    cfg: &ClusterConfig,
    a: Backend,
    b: Backend,
    min_cycles: u64,
    setup: impl FnOnce(&mut Cluster),
) -> Result<Result<Agreement, Mismatch>, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let map = Arc::new(crate::backend::verilator::kernel_port_map()?);
    let watch: Watch = Rc::new(RefCell::new(None));
    let ka = backend::kernels(a, cfg.replicas)?;
    let kb = backend::kernels(b, cfg.replicas)?;
    let kernels: Vec<Box<dyn KernelBackend>> = ka
        .into_iter()
        .zip(kb)
        .enumerate()
        .map(|(r, (x, y))| {
            Box::new(Lockstep::new(x, y, map.clone(), r, watch.clone())) as Box<dyn KernelBackend>
        })
        .collect();
    let mut c = Cluster::with_kernels(cfg.clone(), kernels);
    setup(&mut c);
    let budget = cfg.cycle_budget().max(min_cycles);
    while c.cycle < budget && (!c.finished() || c.cycle < min_cycles) {
        c.step().map_err(|e| e.to_string())?;
        if let Some(m) = watch.borrow().clone() {
            return Ok(Err(m));
        }
    }
    let cycles = c.cycle;
    // The hosts read the status registers back, still in lockstep.
    c.read_status().map_err(|e| e.to_string())?;
    if let Some(m) = watch.borrow().clone() {
        return Ok(Err(m));
    }
    let mut report = c.report();
    report.backend = format!("{a} and {b} in lockstep");
    Ok(Ok(Agreement { cycles, report }))
}
