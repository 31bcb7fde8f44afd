//! Events: faults placed by what a replica does rather than at a cycle.
//!
//! An [`Event`] is something the simulator sees a replica do: its client
//! takes its decision of a slot (`Decided`), or its send queue takes the
//! first write of one of its records (`Sent`, `Sealed`; the kernel's write,
//! before any adversary). Its replica's stack watches for it
//! ([`Watches`]) and fires a [`Trigger`] with the cycle the fault starts:
//!
//! - `Decided`: the cycle after the one the client takes the decision (the
//!   decision's `cycle` in the report) — "after it decides slot k";
//! - `Sent`, `Sealed`: the cycle the send queue takes the first write of
//!   the record (to its first peer), that write included — "when it sends
//!   it".
//!
//! An event places only a fault of its own replica (a silent replica's, a
//! delay's sender's): the stack that sees the event is the one that applies
//! the fault, so the start is exact on any number of threads.

use rhdl_ubft::layout::{records, Mailbox, Region, Shape};
use rhdl_ubft::params::{G, TAG_K_MASK};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::Records;
use crate::models::client::Decided as Decision;
use crate::models::network::Write;

/// Something a replica does that a fault can start at.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Its client takes its decision of slot `slot` (k, from 1); the fault
    /// starts the cycle after.
    Decided { replica: usize, slot: u64 },
    /// Its send queue takes the first write of its record of `region`: of
    /// slot k (the record at (k − 1) mod G, naming slot k where the record
    /// has a slot word) if `slot` is given, else any; the fault starts that
    /// cycle, that write included.
    Sent {
        replica: usize,
        region: Region,
        slot: Option<u64>,
    },
    /// Its send queue takes the first write of its SEAL of view `view` (the
    /// SEAL block's v); the fault starts that cycle, that write included.
    Sealed { replica: usize, view: u32 },
}

/// The regions a replica sends, as `sent` names them.
pub fn sent_regions() -> &'static [Region] {
    &Region::ALL
}

/// Whether a region's records are per slot (`slot` may be given).
pub fn has_slots(region: Region) -> bool {
    matches!(
        Shape::of(region),
        Shape::VoteRows | Shape::PerSlot | Shape::SlotByNode
    )
}

impl Event {
    /// The replica whose doing it is.
    pub fn replica(&self) -> usize {
        match *self {
            Event::Decided { replica, .. }
            | Event::Sent { replica, .. }
            | Event::Sealed { replica, .. } => replica,
        }
    }

    /// Why the event cannot happen in a run of `n` replicas, if so.
    pub fn check(&self, n: usize) -> Result<(), String> {
        if self.replica() >= n {
            return Err(format!(
                "the event's replica = {} is not below replicas = {n}",
                self.replica()
            ));
        }
        match *self {
            Event::Decided { slot: 0, .. } | Event::Sent { slot: Some(0), .. } => {
                Err("slot = 0: slots count from 1".into())
            }
            Event::Sent { region, .. } if !sent_regions().contains(&region) => Err(format!(
                "sent = \"{}\": the kernel sends no such record",
                region.name()
            )),
            Event::Sent {
                region,
                slot: Some(_),
                ..
            } if !has_slots(region) => Err(format!(
                "sent = \"{}\" has no slot: its records are not per slot (give no slot)",
                region.name()
            )),
            _ => Ok(()),
        }
    }

    /// Whether `w`, sent by `src` (the kernel's write, before any
    /// adversary), is this event's write.
    pub fn is_write(&self, mb: &Mailbox, src: usize, w: &Write) -> bool {
        if src != self.replica() {
            return false;
        }
        match *self {
            Event::Decided { .. } => false,
            Event::Sealed { view, .. } => {
                w.word == mb.record(Region::Seal, 0, src)
                    && w.data.get(records::KIND) == Some(&records::KIND_SEAL)
                    && w.data.get(records::SEAL_V) == Some(&view)
            }
            Event::Sent { region, slot, .. } => {
                if mb.locate(w.word).map(|(r, _)| r) != Some(region) {
                    return false;
                }
                let Some(k) = slot else { return true };
                let index = ((k - 1) % G as u64) as usize;
                let Ok(words) = (Records {
                    region,
                    slot: Some(index),
                })
                .words(mb, src) else {
                    return false;
                };
                // A vote's tag holds k in its field (k modulo 2^24).
                let want = if mb.is_vote(region) {
                    k & TAG_K_MASK as u64
                } else {
                    k
                };
                w.word == words.start && named_slot(region, &w.data).map_or(true, |n| n == want)
            }
        }
    }
}

/// The slot a record's words name, where its format has one.
fn named_slot(region: Region, data: &[u32]) -> Option<u64> {
    let at = |i: usize| data.get(i).map(|&k| k as u64);
    match region {
        Region::Prepare => at(records::PREPARE_K),
        Region::PrepSig | Region::EchoPrep | Region::Certify => at(records::BLOCK_K),
        Region::Commit => at(records::COMMIT_K),
        // (tag(v, k), m): k's field of the tag.
        Region::WillCert | Region::WillCommit => data.first().map(|&t| (t & TAG_K_MASK) as u64),
        _ => None,
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Event::Decided { replica, slot } => {
                write!(f, "replica {replica} decides slot {slot}")
            }
            Event::Sent {
                replica,
                region,
                slot,
            } => {
                write!(f, "replica {replica} sends its {}", region.name())?;
                if let Some(k) = slot {
                    write!(f, " of slot {k}")?;
                }
                Ok(())
            }
            Event::Sealed { replica, view } => {
                write!(f, "replica {replica} sends its SEAL of view {view}")
            }
        }
    }
}

/// The cycle a fault placed by an event starts, once the event happened:
/// shared by the stack that watches for the event and the adversary or
/// link delay that waits for it. Fired once; a later firing changes
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct Trigger(Arc<AtomicU64>);

const UNFIRED: u64 = u64::MAX;

impl Trigger {
    pub fn new() -> Trigger {
        Trigger(Arc::new(AtomicU64::new(UNFIRED)))
    }

    /// Sets the start cycle, unless it is set.
    pub fn fire(&self, start: u64) {
        let _ = self
            .0
            .compare_exchange(UNFIRED, start, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The start cycle, once the event happened.
    pub fn start(&self) -> Option<u64> {
        match self.0.load(Ordering::Relaxed) {
            UNFIRED => None,
            s => Some(s),
        }
    }

    /// Whether the fault applies at `cycle`.
    pub fn started(&self, cycle: u64) -> bool {
        self.start().is_some_and(|s| cycle >= s)
    }
}

/// The events one replica's stack watches for, each with its trigger.
#[derive(Clone, Debug, Default)]
pub struct Watches {
    list: Vec<(Event, Trigger)>,
    /// Decisions of this replica's client already looked at.
    seen: usize,
}

impl Watches {
    pub fn add(&mut self, event: Event, trigger: Trigger) {
        self.list.push((event, trigger));
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// A write `src`'s send queue took at `cycle`: fires the triggers of
    /// the events it is, starting at `cycle`.
    pub fn sent(&mut self, mb: &Mailbox, src: usize, w: &Write, cycle: u64) {
        for (e, t) in &self.list {
            if t.start().is_none() && e.is_write(mb, src, w) {
                t.fire(cycle);
            }
        }
    }

    /// The client's decisions so far: fires the triggers of the new ones'
    /// events, starting the cycle after each.
    pub fn decided(&mut self, decisions: &[Decision]) {
        for d in &decisions[self.seen.min(decisions.len())..] {
            for (e, t) in &self.list {
                if let Event::Decided { slot, .. } = *e {
                    if slot == d.k as u64 {
                        t.fire(d.cycle + 1);
                    }
                }
            }
        }
        self.seen = decisions.len();
    }
}
