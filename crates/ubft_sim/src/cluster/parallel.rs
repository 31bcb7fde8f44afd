//! Parallel: a cluster's replicas stepped on several threads, the same run
//! cycle for cycle as [`Cluster::step`](crate::cluster::Cluster::step)s.
//!
//! Why it is the same run. A replica's cycle ([`Replica::cycle`]) touches
//! only its own kernel, HBM, client, signer, host and RoCE stack. Replicas
//! meet only through RDMA writes, and a write sent at cycle c lands at
//! c + L at the earliest (L, the network's latency; link delays only add).
//! A receiver orders the writes it holds by (landing, cycle sent, sender),
//! which does not depend on when they were handed over. So a replica may
//! step cycle c as soon as every other replica has stepped, and handed over
//! what it sent in, every cycle before c − L + 1: it may run up to L − 1
//! cycles ahead of the slowest of the others (the conservative rule of
//! parallel discrete-event simulation, with the network's latency as the
//! lookahead).
//!
//! Where it stops. A serial run stops at the first cycle C at which every
//! honest replica has decided every slot, and no replica may step past it.
//! An honest replica that has stepped to cycle c without having decided
//! them all shows that C > c; one that has shows that C is at least the
//! cycle it first had. So every replica may step up to the largest of these
//! bounds ([`Shared::bound`]), which grows as the others progress and ends
//! at C exactly once every honest replica has decided.
//!
//! An error (an AXI or control violation) stops the run: the others step on
//! to the error's cycle, and the earliest error by (cycle, replica), the one
//! a serial run reports, is returned.
//!
//! Scheduling: any thread takes any replica that may step, the least
//! advanced first, for a chunk of at most L / 2 cycles (and 64), so n
//! replicas share the threads evenly (three replicas on two threads are 1.5
//! each, not 2 and 1). A replica's models, kernel and stack move with it (everything in a
//! [`Replica`] is `Send`).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;

use crate::cluster::{Frame, Replica, SimError};
use crate::models::network::Flight;
use crate::ports::KernelBackend;

type Member<'a> = Replica<'a, dyn KernelBackend + Send + 'a>;

/// Not yet (an honest replica that has not decided every slot).
const NOT_YET: u64 = u64::MAX;

/// What the threads share: each replica, where it stands, and the mail.
struct Shared<'a> {
    replicas: Vec<Mutex<Member<'a>>>,
    honest: Vec<bool>,
    /// Cycles each replica has stepped (its next cycle).
    cur: Vec<AtomicU64>,
    /// The cycle at which each honest replica first had decided every slot.
    fin: Vec<AtomicU64>,
    /// Writes on their way to each replica, not yet in its stack.
    mail: Vec<Mutex<Vec<Flight>>>,
    /// No replica steps to or past this cycle.
    cap: AtomicU64,
    /// The earliest error so far, by (cycle, replica).
    error: Mutex<Option<(u64, usize, SimError)>>,
    /// Replicas stopped by an error of their own.
    failed: Vec<AtomicBool>,
    /// Threads holding a replica.
    active: AtomicUsize,
    latency: u64,
    chunk: u64,
    slots: u64,
}

impl<'a> Shared<'a> {
    /// No replica may step to or past this cycle: the serial run's last
    /// cycle is at least this.
    fn bound(&self) -> u64 {
        let mut b = 0;
        for (r, _) in self.honest.iter().enumerate().filter(|(_, &h)| h) {
            // `step` publishes fin, then cur: read cur first, so that an
            // unset fin read after it means "undecided at that cur".
            let cur = self.cur[r].load(SeqCst);
            let fin = self.fin[r].load(SeqCst);
            b = b.max(if fin == NOT_YET { cur + 1 } else { fin });
        }
        b
    }

    /// An honest replica that has not decided every slot: while it has not,
    /// its next cycle is inside the serial run.
    fn undecided(&self, r: usize) -> bool {
        self.honest[r] && self.fin[r].load(SeqCst) == NOT_YET
    }

    /// How far replica r may step now, by the lookahead (L − 1 cycles past
    /// the slowest of the others) and the cap.
    fn limit(&self, r: usize) -> u64 {
        let mut l = self.cap.load(SeqCst);
        for (q, c) in self.cur.iter().enumerate() {
            if q != r {
                l = l.min(c.load(SeqCst) + self.latency);
            }
        }
        l
    }

    fn can_step(&self, r: usize, bound: u64) -> bool {
        let cur = self.cur[r].load(SeqCst);
        !self.failed[r].load(SeqCst) && cur < self.limit(r) && (self.undecided(r) || cur < bound)
    }

    /// Takes a replica that may step, the least advanced first.
    fn take(&self) -> Option<(usize, std::sync::MutexGuard<'_, Member<'a>>)> {
        let bound = self.bound();
        let mut order: Vec<(u64, usize)> = (0..self.cur.len())
            .filter(|&r| self.can_step(r, bound))
            .map(|r| (self.cur[r].load(SeqCst), r))
            .collect();
        order.sort_unstable();
        for (_, r) in order {
            if let Ok(g) = self.replicas[r].try_lock() {
                self.active.fetch_add(1, SeqCst);
                return Some((r, g));
            }
        }
        None
    }

    /// Steps replica r for a chunk of cycles within its limit, then hands
    /// over what it sent and publishes where it stands.
    fn step(&self, r: usize, x: &mut Member<'a>, frame: &Frame) {
        let mut m = self.mail[r].lock().expect("mail");
        for f in m.drain(..) {
            x.stack.receive(f);
        }
        drop(m);
        let mut cur = self.cur[r].load(SeqCst);
        let end = self.limit(r).min(cur + self.chunk);
        let honest = self.honest[r];
        let mut fin = self.fin[r].load(SeqCst);
        let mut bound = 0;
        while cur < end {
            // Undecided, the next cycle is inside the serial run; decided
            // (or faulty), only up to the bound.
            if !(honest && fin == NOT_YET) && cur >= bound {
                bound = self.bound();
                if cur >= bound {
                    break;
                }
            }
            if let Err(e) = x.cycle(frame, cur) {
                let mut err = self.error.lock().expect("error");
                if err.as_ref().is_none_or(|(c, q, _)| (cur, r) < (*c, *q)) {
                    *err = Some((cur, r, e));
                }
                self.cap.fetch_min(cur + 1, SeqCst);
                self.failed[r].store(true, SeqCst);
                break;
            }
            cur += 1;
            if honest && fin == NOT_YET && x.decided(self.slots) {
                fin = cur;
            }
        }
        for f in x.stack.sent() {
            self.mail[f.dst()].lock().expect("mail").push(f);
        }
        self.fin[r].store(fin, SeqCst);
        self.cur[r].store(cur, SeqCst);
    }

    /// True when no replica may step, and no thread holds one.
    fn settled(&self) -> bool {
        if self.active.load(SeqCst) != 0 {
            return false;
        }
        let bound = self.bound();
        !(0..self.cur.len()).any(|r| self.can_step(r, bound))
    }

    /// A thread's loop: step replicas until the run has settled.
    fn work(&self, frame: &Frame) {
        let mut idle = 0u32;
        loop {
            if let Some((r, mut g)) = self.take() {
                self.step(r, &mut g, frame);
                drop(g);
                self.active.fetch_sub(1, SeqCst);
                idle = 0;
                continue;
            }
            if self.settled() {
                return;
            }
            idle += 1;
            if idle < 1 << 10 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Steps `replicas` (all of a cluster's, at cycle `from`, every one of them
/// with its kernel movable) on `threads` threads until cycle `until` or the
/// cycle at which every honest replica has decided `slots` slots, whichever
/// comes first; returns the cycle reached. Every write sent is in its
/// receiver's stack on return.
pub(crate) fn run<'a>(
    frame: &Frame,
    replicas: Vec<Member<'a>>,
    honest: &[bool],
    slots: u64,
    threads: usize,
    from: u64,
    until: u64,
) -> Result<u64, SimError> {
    let n = replicas.len();
    let latency = frame.links.latency().max(1);
    let fin = replicas
        .iter()
        .map(|x| {
            AtomicU64::new(if honest[x.r] && x.decided(slots) {
                from
            } else {
                NOT_YET
            })
        })
        .collect();
    let shared = Shared {
        replicas: replicas.into_iter().map(Mutex::new).collect(),
        honest: honest.to_vec(),
        cur: (0..n).map(|_| AtomicU64::new(from)).collect(),
        fin,
        mail: (0..n).map(|_| Mutex::new(vec![])).collect(),
        cap: AtomicU64::new(until),
        error: Mutex::new(None),
        failed: (0..n).map(|_| AtomicBool::new(false)).collect(),
        active: AtomicUsize::new(0),
        latency,
        chunk: (latency / 2).clamp(1, 64),
        slots,
    };
    std::thread::scope(|s| {
        for _ in 1..threads.clamp(1, n.max(1)) {
            s.spawn(|| shared.work(frame));
        }
        shared.work(frame);
    });
    for (r, x) in shared.replicas.iter().enumerate() {
        let mut x = x.lock().expect("replica");
        for f in shared.mail[r].lock().expect("mail").drain(..) {
            x.stack.receive(f);
        }
    }
    if let Some((_, _, e)) = shared.error.into_inner().expect("error") {
        return Err(e);
    }
    let reached = shared.cur[0].load(SeqCst);
    debug_assert!(shared.cur.iter().all(|c| c.load(SeqCst) == reached));
    Ok(reached)
}
