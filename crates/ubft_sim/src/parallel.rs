//! Parallel: a cluster's replicas stepped on several threads, the same run
//! cycle for cycle as [`Cluster::step`](crate::cluster::Cluster::step)s.
//!
//! Why it is the same run. A replica's cycle ([`Replica::cycle`]) touches
//! only its own kernel, HBM, client, signer, host and RoCE stack. Replicas
//! meet only through RDMA writes, and a write sent at cycle c lands at
//! c + L at the earliest (L, the network's latency; link delays only add).
//! So in a window of at most L cycles from cycle s, every write that lands
//! was sent before s: each thread steps its replicas through the window on
//! its own, and the writes sent in the window ([`Flight`]s) are handed to
//! their receivers' stacks at its end, before any of them can land. A
//! receiver orders what it receives by (landing, cycle sent, sender), which
//! does not depend on when it was handed over.
//!
//! Where it stops. A serial run stops at the first cycle at which every
//! honest replica has decided every slot; a thread cannot see the others'
//! replicas mid-window. So in each window every thread stops early at the
//! first cycle at which its own honest replicas have all decided. If every
//! thread stopped early, the run's last cycle is the latest of their stops
//! (decisions are never taken back), and the threads that stopped sooner
//! step on to it; otherwise all of them step on to the window's end. Both
//! stay inside the window, so no write crosses between threads meanwhile.
//! An error (an AXI or control violation) stops the run with the earliest
//! one by (cycle, replica), the one a serial run reports.
//!
//! Threads meet twice a window at most, on a spinning gate (a few hundred
//! nanoseconds, against tens of microseconds of simulation a window at the
//! tests' L = 40). Honest replicas are dealt to the threads first, so that
//! each thread has one if it can: a thread of faulty replicas only could
//! never stop early, and would be stepped on its own after the others.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::cluster::{Frame, Replica, SimError};
use crate::network::Flight;
use crate::ports::KernelBackend;

type Member<'a> = Replica<'a, dyn KernelBackend + Send + 'a>;

/// A thread's replicas and the cycle they reached.
struct Group<'a> {
    members: Vec<(Member<'a>, bool)>,
    cur: u64,
}

/// What a thread reports after a round.
struct Outcome {
    cur: u64,
    finished: bool,
    error: Option<(u64, usize, SimError)>,
}

impl<'a> Group<'a> {
    /// Every honest replica of this group has decided `slots` slots.
    fn finished(&self, slots: u64) -> bool {
        self.members
            .iter()
            .all(|(x, honest)| !honest || x.decided(slots))
    }

    /// Takes the writes on their way to this group's replicas.
    fn take_mail(&mut self, mail: &[Mutex<Vec<Flight>>]) {
        for (x, _) in self.members.iter_mut() {
            let mut m = mail[x.r].lock().expect("mail");
            for f in m.drain(..) {
                x.stack.receive(f);
            }
        }
    }

    /// Steps the replicas to cycle `target` (stopping as soon as they have
    /// all decided, with `stop_early`), then posts what they sent.
    fn advance(
        &mut self,
        frame: &Frame,
        target: u64,
        stop_early: bool,
        slots: u64,
        mail: &[Mutex<Vec<Flight>>],
    ) -> Outcome {
        self.take_mail(mail);
        let mut error = None;
        'cycles: while self.cur < target {
            if stop_early && self.finished(slots) {
                break;
            }
            for (x, _) in self.members.iter_mut() {
                if let Err(e) = x.cycle(frame, self.cur) {
                    error = Some((self.cur, x.r, e));
                    break 'cycles;
                }
            }
            self.cur += 1;
        }
        for (x, _) in self.members.iter_mut() {
            for f in x.stack.sent() {
                mail[f.dst()].lock().expect("mail").push(f);
            }
        }
        Outcome {
            cur: self.cur,
            finished: self.finished(slots),
            error,
        }
    }
}

/// The rendezvous of the threads: a round is published by bumping `gen`,
/// and each worker counts itself `done`.
#[derive(Default)]
struct Gate {
    gen: AtomicU64,
    target: AtomicU64,
    stop_early: AtomicBool,
    quit: AtomicBool,
    done: AtomicUsize,
}

/// Spins, then yields, until `cond` holds.
fn wait_until(cond: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !cond() {
        if spins < 1 << 12 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// Steps `replicas` (all of a cluster's, at cycle `from`) on `threads`
/// threads until cycle `until` or until every honest replica has decided
/// `slots` slots; returns the cycle reached. Every write sent is in its
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
    let window = frame.links.latency().max(1);
    // Deal the honest replicas round-robin, then the faulty ones to the
    // smallest groups.
    let mut groups: Vec<Group<'a>> = (0..threads.clamp(1, n.max(1)))
        .map(|_| Group {
            members: vec![],
            cur: from,
        })
        .collect();
    let (good, bad): (Vec<_>, Vec<_>) = replicas.into_iter().partition(|x| honest[x.r]);
    let t = groups.len();
    for (i, x) in good.into_iter().enumerate() {
        groups[i % t].members.push((x, true));
    }
    for x in bad {
        let g = groups
            .iter_mut()
            .min_by_key(|g| g.members.len())
            .expect("a group");
        g.members.push((x, false));
    }
    groups.retain(|g| !g.members.is_empty());
    for g in groups.iter_mut() {
        g.members.sort_by_key(|(x, _)| x.r);
    }

    let mail: Vec<Mutex<Vec<Flight>>> = (0..n).map(|_| Mutex::new(vec![])).collect();
    let gate = Gate::default();
    let mut first = groups.remove(0);
    let workers = groups.len();
    let results: Vec<Mutex<Option<Outcome>>> = (0..workers).map(|_| Mutex::new(None)).collect();

    std::thread::scope(|s| {
        for (i, mut g) in groups.into_iter().enumerate() {
            let (gate, mail, results) = (&gate, &mail, &results);
            s.spawn(move || {
                let mut seen = 0;
                loop {
                    wait_until(|| gate.gen.load(Ordering::Acquire) != seen);
                    seen = gate.gen.load(Ordering::Acquire);
                    if gate.quit.load(Ordering::Relaxed) {
                        g.take_mail(mail);
                        gate.done.fetch_add(1, Ordering::Release);
                        break;
                    }
                    let target = gate.target.load(Ordering::Relaxed);
                    let stop_early = gate.stop_early.load(Ordering::Relaxed);
                    let out = g.advance(frame, target, stop_early, slots, mail);
                    *results[i].lock().expect("result") = Some(out);
                    gate.done.fetch_add(1, Ordering::Release);
                }
            });
        }

        // One round: every group steps to `target`; the outcomes, the
        // coordinator's group first.
        let round = |target: u64, stop_early: bool, first: &mut Group<'a>| {
            gate.target.store(target, Ordering::Relaxed);
            gate.stop_early.store(stop_early, Ordering::Relaxed);
            gate.done.store(0, Ordering::Relaxed);
            gate.gen.fetch_add(1, Ordering::Release);
            let mut outs = vec![first.advance(frame, target, stop_early, slots, &mail)];
            wait_until(|| gate.done.load(Ordering::Acquire) == workers);
            for r in results.iter() {
                outs.push(r.lock().expect("result").take().expect("an outcome"));
            }
            outs
        };
        // The earliest error of a round, by (cycle, replica).
        let earliest = |outs: &mut Vec<Outcome>| {
            outs.iter_mut()
                .filter_map(|o| o.error.take())
                .min_by_key(|(cycle, r, _)| (*cycle, *r))
                .map(|(_, _, e)| e)
        };

        let mut at = from;
        let result = loop {
            if at >= until {
                break Ok(at);
            }
            let end = (at + window).min(until);
            let mut outs = round(end, true, &mut first);
            if let Some(e) = earliest(&mut outs) {
                break Err(e);
            }
            let all_finished = outs.iter().all(|o| o.finished);
            let stop = if all_finished {
                outs.iter().map(|o| o.cur).max().unwrap_or(end)
            } else {
                end
            };
            if outs.iter().any(|o| o.cur < stop) {
                let mut outs = round(stop, false, &mut first);
                if let Some(e) = earliest(&mut outs) {
                    break Err(e);
                }
            }
            at = stop;
            if all_finished {
                break Ok(at);
            }
        };
        gate.quit.store(true, Ordering::Relaxed);
        gate.done.store(0, Ordering::Relaxed);
        gate.gen.fetch_add(1, Ordering::Release);
        wait_until(|| gate.done.load(Ordering::Acquire) == workers);
        first.take_mail(&mail);
        result
    })
}
