//! Timeline: a run as a message sequence chart, drawn as SVG.
//!
//! One lane per replica, time running down. Each RDMA WRITE a send queue
//! took is an arrow from its sender's lane at the cycle it was sent to its
//! receiver's at the cycle it lands, labelled with its record (the region,
//! and the slot k and view v where the record names them). An arrow's class
//! says what became of it: `write` on every one, and `refused` (a guard
//! refused it), `dropped` (the sender's adversary dropped it), `forged`
//! (the adversary changed it or added writes), `delayed` (a link delay held
//! it past L), `in-flight` (no guard had decided it when the run ended).
//! The lanes carry marks: each decision (`decision`, its k and path), each
//! replica's SEAL of a view (`view-change`: it leaves that view, after a
//! timeout or a failed slow path), each NEW_VIEW it writes as the next
//! view's leader, its first slow-path record of a slot (`slow`: its
//! prep_sig, echo_prep or certify of k, after the fast path's timeout), and
//! each step of its kernel's `timeouts` status counter (`timeout`: a
//! machine's poll wait ran out, labelled with the state that waited, as
//! `sts_state` names it). A faulty replica's lane is shaded (`fault`) from
//! the first write its adversary dropped or changed.
//!
//! Recording: [`Cluster::record_timeline`] makes each stack log the writes
//! it sends ([`WireLog::sent`]) and the guard's decision on each write it
//! receives ([`WireLog::decided`]), and each replica read its kernel's
//! `timeouts` counter and state in every cycle ([`TimeoutLog`], from
//! [`KernelBackend::debug_timeouts`](crate::ports::KernelBackend::debug_timeouts)
//! and `debug_state`; Verilator's shell brings both out,
//! `backend::verilator::harness::PROBES`). A run that does not ask keeps
//! `None` there and pays one branch per write and one per replica and
//! cycle. [`Timeline::new`] joins the logs with the run's report: a queue
//! pair delivers in order and a receiver's guard decides in landing order,
//! so a pair's decisions follow its writes one for one.
//!
//! Time is drawn compressed: every cycle at which something happens gets a
//! row (its writes, then its marks on a row of their own), the cycles
//! between are drawn at half a pixel each up to a gap of 40 pixels, and a
//! longer gap is cut and labelled with the cycles it hides. A window of
//! cycles ([`Window`]) draws the writes sent in it and the marks in it.

use crate::cluster::{Cluster, Path, RunReport};
use crate::models::network::Write;
use rhdl_ubft::controller::status::STATE_NAMES;
use rhdl_ubft::layout::{records, Mailbox, Region};
use rhdl_ubft::params::{TAG_K_BITS, TAG_K_MASK};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A write's record, as its words name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The first mailbox word written.
    pub word: usize,
    pub words: usize,
    /// Its region (`None`: outside every region).
    pub region: Option<Region>,
    /// The slot k it names, where its format has one.
    pub slot: Option<u64>,
    /// The view it names: a vote's tag's, a block's v, a SEAL's v (the
    /// view it leaves), a NEW_VIEW's first word (the view it starts).
    pub view: Option<u32>,
}

impl Record {
    /// The record of `w` in the layout `mb`.
    pub fn of(mb: &Mailbox, w: &Write) -> Record {
        let region = mb.locate(w.word).map(|(r, _)| r);
        let at = |i: usize| w.data.get(i).copied();
        let kind = at(records::KIND);
        let (slot, view) = match region {
            Some(Region::Prepare) => (
                at(records::PREPARE_K).map(u64::from),
                at(records::PREPARE_V),
            ),
            Some(Region::WillCert | Region::WillCommit) => match at(0) {
                Some(t) => (Some((t & TAG_K_MASK) as u64), Some(t >> TAG_K_BITS)),
                None => (None, None),
            },
            Some(Region::PrepSig | Region::EchoPrep | Region::Certify) => {
                (at(records::BLOCK_K).map(u64::from), at(records::BLOCK_V))
            }
            Some(Region::Commit | Region::EchoCommit) if kind == Some(records::KIND_COMMIT) => {
                (at(records::COMMIT_K).map(u64::from), at(records::COMMIT_V))
            }
            Some(Region::Seal | Region::EchoSeal) if kind == Some(records::KIND_SEAL) => {
                (None, at(records::SEAL_V))
            }
            Some(Region::NewViewRecord) => (None, at(records::NV_VIEW)),
            _ => (None, None),
        };
        Record {
            word: w.word,
            words: w.data.len(),
            region,
            slot,
            view,
        }
    }

    /// "prepare k3 v0", "seal v0", "new_view v1".
    pub fn label(&self) -> String {
        let mut s = self.region.map_or("(outside)", |r| r.name()).to_string();
        if let Some(k) = self.slot {
            let _ = write!(s, " k{k}");
        }
        if let Some(v) = self.view {
            let _ = write!(s, " v{v}");
        }
        s
    }
}

/// One command a send queue took: its writes as the kernel made them and
/// as they went on the wire.
#[derive(Clone, Debug)]
pub struct Sent {
    pub src: usize,
    pub dst: usize,
    pub cycle: u64,
    pub landing: u64,
    /// The kernel's write.
    pub kernel: Record,
    /// What its adversary made of it (the kernel's write, without one):
    /// none if dropped.
    pub wire: Vec<Record>,
    /// The adversary changed, dropped or added to it.
    pub altered: bool,
}

/// A guard's decision on a landing write (`Delivery::Model` and `Bypass`:
/// the model's at landing).
#[derive(Copy, Clone, Debug)]
pub struct Decided {
    pub src: usize,
    pub cycle: u64,
    pub word: usize,
    pub accepted: bool,
}

/// One stack's log: the writes it sent, the decisions on those it received.
#[derive(Clone, Debug, Default)]
pub struct WireLog {
    pub sent: Vec<Sent>,
    pub decided: Vec<Decided>,
}

impl WireLog {
    /// A command of `src` to `dst` taken at `cycle`, landing at `landing`:
    /// the kernel's write and what went on the wire.
    #[allow(clippy::too_many_arguments)]
    pub fn sent(
        &mut self,
        mb: &Mailbox,
        src: usize,
        dst: usize,
        cycle: u64,
        landing: u64,
        kernel: &Write,
        wire: &[Write],
    ) {
        self.sent.push(Sent {
            src,
            dst,
            cycle,
            landing,
            kernel: Record::of(mb, kernel),
            wire: wire.iter().map(|w| Record::of(mb, w)).collect(),
            altered: wire.len() != 1 || wire[0] != *kernel,
        });
    }

    /// The receiver's guard decided a write of `src` at `word` at `cycle`.
    pub fn decided(&mut self, src: usize, _dst: usize, cycle: u64, word: usize, accepted: bool) {
        self.decided.push(Decided {
            src,
            cycle,
            word,
            accepted,
        });
    }
}

/// One replica's timeouts: each step of its kernel's `timeouts` counter
/// (`sts_timeouts`, the status register), read from inside the kernel in
/// every cycle ([`KernelBackend::debug_timeouts`](crate::ports::KernelBackend::debug_timeouts)).
#[derive(Clone, Debug, Default)]
pub struct TimeoutLog {
    pub timeouts: Vec<Timeout>,
    /// The counter and the state in the last cycle seen.
    count: u32,
    state: Option<u8>,
}

/// A timeout: the cycle the counter first shows it, and the state whose
/// wait expired (`status::STATE_NAMES`: the state in the cycle before).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    pub cycle: u64,
    pub state: Option<u8>,
}

impl TimeoutLog {
    /// The counter and the state in `cycle` (`None`: the backend cannot see
    /// them). A counter that falls restarted (a reset, a new ap_start): it
    /// counts no timeout.
    pub fn observe(&mut self, cycle: u64, count: Option<u32>, state: Option<u8>) {
        let Some(count) = count else { return };
        for _ in self.count..count {
            self.timeouts.push(Timeout {
                cycle,
                state: self.state,
            });
        }
        self.count = count;
        self.state = state;
    }
}

/// What became of a write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// The receiver's guard passed every write it became.
    Accepted,
    /// The guard refused one of them.
    Refused,
    /// The sender's adversary dropped it.
    Dropped,
    /// Not decided when the run ended.
    InFlight,
}

/// One arrow: a command a send queue took.
#[derive(Clone, Debug)]
pub struct Arrow {
    pub sent: Sent,
    pub fate: Fate,
    /// It landed later than L after it was sent (a link delay, or the queue
    /// pair behind one).
    pub delayed: bool,
}

/// A mark on a lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    Decision {
        k: u64,
        m: u32,
        path: Path,
    },
    /// Its SEAL of view v: it leaves v.
    Seal {
        view: u32,
    },
    /// Its NEW_VIEW of view v, as v's leader.
    NewView {
        view: u32,
    },
    /// Its first slow-path record of slot k.
    Slow {
        k: u64,
    },
    /// A timeout of its kernel, in the state whose wait expired.
    Timeout {
        state: Option<u8>,
    },
}

impl Mark {
    fn class(&self) -> &'static str {
        match self {
            Mark::Decision { .. } => "decision",
            Mark::Seal { .. } | Mark::NewView { .. } => "view-change",
            Mark::Slow { .. } => "slow",
            Mark::Timeout { .. } => "timeout",
        }
    }

    fn label(&self) -> String {
        match self {
            Mark::Decision { k, path, .. } => format!(
                "decides k{k} {}",
                if *path == Path::Fast { "fast" } else { "slow" }
            ),
            Mark::Seal { view } => format!("seals v{view}: view change"),
            Mark::NewView { view } => format!("NEW_VIEW v{view}"),
            Mark::Slow { k } => format!("slow path k{k}"),
            Mark::Timeout { state } => match state_name(*state) {
                Some(st) => format!("timeout in {st}"),
                None => "timeout".into(),
            },
        }
    }
}

/// A state's name (`status::STATE_NAMES`), if it has one.
fn state_name(state: Option<u8>) -> Option<&'static str> {
    STATE_NAMES
        .get(state? as usize)
        .copied()
        .filter(|s| !s.is_empty())
}

/// A window of cycles, both ends included: what a timeline draws (the
/// writes sent in it and the marks in it) and what `--waves` dumps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub from: u64,
    pub to: u64,
}

impl Window {
    pub const ALL: Window = Window {
        from: 0,
        to: u64::MAX,
    };

    fn holds(&self, c: u64) -> bool {
        (self.from..=self.to).contains(&c)
    }
}

/// A run's message sequence chart.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub replicas: usize,
    pub honest: Vec<bool>,
    pub latency: u64,
    pub cycles: u64,
    /// Every command every send queue took, in (cycle, sender) order.
    pub arrows: Vec<Arrow>,
    /// Each replica's marks, by cycle: (replica, cycle, mark).
    pub marks: Vec<(usize, u64, Mark)>,
    /// Where each faulty replica's shading starts.
    pub fault_from: Vec<Option<u64>>,
}

impl Timeline {
    /// The timeline of `cluster`'s run so far, with its `report`; `None` if
    /// the cluster did not record ([`Cluster::record_timeline`]).
    pub fn new(cluster: &Cluster, report: &RunReport) -> Option<Timeline> {
        let logs: Vec<&WireLog> = cluster.net.wires().into_iter().collect::<Option<_>>()?;
        let timeouts: Vec<&TimeoutLog> =
            cluster.timeout_logs().into_iter().collect::<Option<_>>()?;
        let n = logs.len();
        let latency = cluster.net.latency();
        let mut arrows: Vec<Arrow> = logs
            .iter()
            .flat_map(|l| l.sent.iter())
            .map(|s| Arrow {
                delayed: s.landing > s.cycle + latency,
                fate: if s.wire.is_empty() {
                    Fate::Dropped
                } else {
                    Fate::InFlight
                },
                sent: s.clone(),
            })
            .collect();
        arrows.sort_by_key(|a| (a.sent.cycle, a.sent.src, a.sent.dst));
        // Each queue pair's wire writes in send order, to meet its guard's
        // decisions in the same order.
        let mut pending: BTreeMap<(usize, usize), std::collections::VecDeque<(usize, usize)>> =
            BTreeMap::new();
        for (i, a) in arrows.iter().enumerate() {
            for (j, _) in a.sent.wire.iter().enumerate() {
                pending
                    .entry((a.sent.src, a.sent.dst))
                    .or_default()
                    .push_back((i, j));
            }
        }
        let mut verdicts: Vec<Vec<Option<bool>>> = arrows
            .iter()
            .map(|a| vec![None; a.sent.wire.len()])
            .collect();
        for (dst, log) in logs.iter().enumerate() {
            for d in &log.decided {
                let Some(q) = pending.get_mut(&(d.src, dst)) else {
                    continue;
                };
                // A write a reset abandoned has no decision: skip to the
                // one this decision is about.
                while let Some(&(i, j)) = q.front() {
                    q.pop_front();
                    if arrows[i].sent.wire[j].word == d.word {
                        verdicts[i][j] = Some(d.accepted);
                        break;
                    }
                }
            }
        }
        for (a, v) in arrows.iter_mut().zip(&verdicts) {
            if v.is_empty() {
                continue;
            }
            a.fate = if v.contains(&Some(false)) {
                Fate::Refused
            } else if v.iter().all(|x| *x == Some(true)) {
                Fate::Accepted
            } else {
                Fate::InFlight
            };
        }
        let mut marks = vec![];
        for r in &report.replicas {
            for d in &r.decided {
                marks.push((
                    r.id,
                    d.cycle,
                    Mark::Decision {
                        k: d.k,
                        m: d.m,
                        path: d.path,
                    },
                ));
            }
        }
        for (r, log) in timeouts.iter().enumerate() {
            for t in &log.timeouts {
                marks.push((r, t.cycle, Mark::Timeout { state: t.state }));
            }
        }
        // The kernel's own records, before any adversary: what it did.
        let mut seen = BTreeSet::new();
        for a in &arrows {
            let s = &a.sent;
            let (mark, key) = match (s.kernel.region, s.kernel.view, s.kernel.slot) {
                (Some(Region::Seal), Some(v), _) => (Mark::Seal { view: v }, (0, v as u64)),
                (Some(Region::NewViewRecord), Some(v), _) => {
                    (Mark::NewView { view: v }, (1, v as u64))
                }
                (Some(Region::PrepSig | Region::EchoPrep | Region::Certify), _, Some(k)) => {
                    (Mark::Slow { k }, (2, k))
                }
                _ => continue,
            };
            if seen.insert((s.src, key)) {
                marks.push((s.src, s.cycle, mark));
            }
        }
        marks.sort_by_key(|m| (m.1, m.0));
        let fault_from = (0..n)
            .map(|r| {
                arrows
                    .iter()
                    .find(|a| a.sent.src == r && a.sent.altered)
                    .map(|a| a.sent.cycle)
            })
            .collect();
        Some(Timeline {
            replicas: n,
            honest: (0..n).map(|r| cluster.is_honest(r)).collect(),
            latency,
            cycles: report.cycles,
            arrows,
            marks,
            fault_from,
        })
    }

    /// The chart as an SVG document, the writes sent in `window` and the
    /// marks in it.
    pub fn svg(&self, window: Window) -> String {
        let arrows: Vec<(usize, &Arrow)> = self
            .arrows
            .iter()
            .enumerate()
            .filter(|(_, a)| window.holds(a.sent.cycle))
            .collect();
        let marks: Vec<&(usize, u64, Mark)> =
            self.marks.iter().filter(|m| window.holds(m.1)).collect();
        // The rows drawn (a cycle's writes, then its marks on a row of their
        // own), and which of them carry a label.
        let mut points: BTreeMap<u64, bool> = BTreeMap::new();
        for (_, a) in &arrows {
            points.insert(2 * a.sent.cycle, true);
            points.entry(2 * a.sent.landing).or_insert(false);
        }
        for m in &marks {
            points.insert(2 * m.1 + 1, true);
        }
        let start = window.from.max(points.keys().next().map_or(0, |t| t / 2));
        let end = points.keys().next_back().map_or(start, |t| t / 2);
        points.entry(2 * start).or_insert(false);
        let axis = Axis::new(&points);
        let y = |c: u64| axis.at(2 * c);
        let y_mark = |c: u64| axis.at(2 * c + 1);

        let n = self.replicas;
        let lane = |r: usize| LEFT + LANE_W * (r as f64 + 0.5);
        let width = LEFT + LANE_W * n as f64 + 20.0;
        let height = y_mark(end) + 40.0;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="monospace" font-size="10">
<title>uBFT cluster run: {n} replicas, {c} cycles, cycles {start} to {end}</title>
<style>
.write line {{ stroke: #2060c0; stroke-width: 1; }}
.write text {{ fill: #2060c0; }}
.write.refused line {{ stroke: #d02020; }}
.write.refused text {{ fill: #d02020; }}
.write.dropped line {{ stroke: #999; stroke-dasharray: 4 3; }}
.write.dropped text {{ fill: #999; }}
.write.forged line {{ stroke: #e08000; }}
.write.forged text {{ fill: #e08000; }}
.write.delayed line {{ stroke-width: 2; }}
.write.in-flight line {{ stroke-dasharray: 1 2; }}
.decision circle {{ fill: #109030; }}
.decision text {{ fill: #109030; font-weight: bold; }}
.view-change rect {{ fill: #8030c0; }}
.view-change text {{ fill: #8030c0; font-weight: bold; }}
.slow rect {{ fill: #c08000; }}
.slow text {{ fill: #c08000; }}
.timeout path {{ fill: #c02070; }}
.timeout text {{ fill: #c02070; }}
.fault {{ fill: #f0d0d0; }}
.lane {{ stroke: #444; stroke-width: 1.5; }}
.gap {{ stroke: #bbb; stroke-dasharray: 2 4; }}
</style>
<defs><marker id="head" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="context-stroke"/></marker></defs>"##,
            c = self.cycles
        );
        // Lanes, their headers and faults.
        for r in 0..n {
            let x = lane(r);
            if let Some(from) = self.fault_from[r].filter(|_| !self.honest[r]) {
                let top = y(from.max(start));
                if from <= end {
                    let _ = writeln!(
                        s,
                        r#"<rect class="fault" data-replica="{r}" x="{:.1}" y="{top:.1}" width="{:.1}" height="{:.1}"><title>replica {r} faulty from cycle {from}</title></rect>"#,
                        x - LANE_W / 2.0 + 4.0,
                        LANE_W - 8.0,
                        y_mark(end) - top + 10.0
                    );
                }
            }
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="12" font-weight="bold">replica {r}{}</text>"#,
                TOP - 20.0,
                if self.honest[r] { "" } else { " (faulty)" }
            );
            let _ = writeln!(
                s,
                r#"<line class="lane" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}"/>"#,
                TOP - 10.0,
                y_mark(end) + 10.0
            );
        }
        // The cycle axis: a tick every 60 pixels or so, and the gaps cut.
        let mut last_tick = f64::MIN;
        for (&t, _) in points.range(2 * start..=2 * end + 1) {
            let (c, yc) = (t / 2, axis.at(t));
            if yc - last_tick >= 60.0 {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#666">{c}</text>"##,
                    LEFT - 8.0,
                    yc + 3.0
                );
                last_tick = yc;
            }
        }
        for &(c0, c1) in &axis.cuts {
            let yc = (y(c0) + y(c1)) / 2.0;
            let _ = writeln!(
                s,
                r##"<g class="cut"><line class="gap" x1="4" y1="{yc:.1}" x2="{:.1}" y2="{yc:.1}"/><text x="4" y="{:.1}" fill="#999">{} cycles</text></g>"##,
                width - 4.0,
                yc - 2.0,
                c1 - c0
            );
        }
        // The writes. A broadcast's label is written once per direction:
        // not on a write whose sender wrote the same label the same way in
        // the last few cycles.
        let mut last_label: Vec<Option<(u64, bool, String)>> = vec![None; n];
        for (i, a) in &arrows {
            let t = &a.sent;
            let (x0, x1) = (lane(t.src), lane(t.dst));
            let (y0, y1) = (y(t.cycle), y(t.landing));
            let mut class = String::from("write");
            class += match a.fate {
                Fate::Accepted => "",
                Fate::Refused => " refused",
                Fate::Dropped => " dropped",
                Fate::InFlight => " in-flight",
            };
            if t.altered && a.fate != Fate::Dropped {
                class += " forged";
            }
            if a.delayed {
                class += " delayed";
            }
            let shown = t.wire.first().unwrap_or(&t.kernel);
            let mut label = shown.label();
            if t.wire.len() > 1 {
                let _ = write!(label, " +{}", t.wire.len() - 1);
            }
            let mut title = format!(
                "{} -> {}: {} ({} words at word {}), sent {}, lands {}",
                t.src,
                t.dst,
                shown.label(),
                shown.words,
                shown.word,
                t.cycle,
                t.landing
            );
            match a.fate {
                Fate::Refused => title += ", refused by the guard",
                Fate::Dropped => title += ", dropped by the sender's adversary",
                Fate::InFlight => title += ", not decided by the end",
                Fate::Accepted => {}
            }
            if t.altered && a.fate != Fate::Dropped {
                let _ = write!(title, "; the kernel wrote {}", t.kernel.label());
            }
            for w in t.wire.iter().skip(1) {
                let _ = write!(title, "; and {}", w.label());
            }
            let (x1, y1, end_mark) = match a.fate {
                // A dropped write stops halfway, crossed out.
                Fate::Dropped => {
                    let (xm, ym) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
                    (
                        xm,
                        ym,
                        format!(
                            r#"<text x="{xm:.1}" y="{:.1}" text-anchor="middle">x</text>"#,
                            ym + 3.0
                        ),
                    )
                }
                Fate::Refused => (
                    x1,
                    y1,
                    format!(
                        r#"<text x="{x1:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">X</text>"#,
                        y1 + 4.0
                    ),
                ),
                _ => (x1, y1, String::new()),
            };
            let right = t.dst > t.src;
            let repeat = last_label[t.src].as_ref().is_some_and(|(c, d, l)| {
                *l == label && *d == right && t.cycle <= c + BROADCAST_CYCLES
            });
            last_label[t.src] = Some((t.cycle, right, label.clone()));
            let label = if repeat { String::new() } else { label };
            let (tx, anchor) = if t.dst > t.src {
                (x0 + 6.0, "start")
            } else {
                (x0 - 6.0, "end")
            };
            let _ = writeln!(
                s,
                r#"<g class="{class}" id="w{i}" data-src="{}" data-dst="{}" data-sent="{}" data-landing="{}"><title>{}</title><line x1="{x0:.1}" y1="{y0:.1}" x2="{x1:.1}" y2="{y1:.1}" marker-end="url(#head)"/><text x="{tx:.1}" y="{:.1}" text-anchor="{anchor}">{}</text>{end_mark}</g>"#,
                t.src,
                t.dst,
                t.cycle,
                t.landing,
                escape(&title),
                y0 - 2.0,
                escape(&label)
            );
        }
        // The marks, over the arrows.
        for (r, c, m) in marks {
            let (x, yc) = (lane(*r), y_mark(*c));
            let shape = match m {
                Mark::Decision { .. } => format!(r#"<circle cx="{x:.1}" cy="{yc:.1}" r="4"/>"#),
                // An hourglass: a wait ran out.
                Mark::Timeout { .. } => format!(
                    r#"<path d="M{:.1},{:.1} h8 l-8,8 h8 z"/>"#,
                    x - 4.0,
                    yc - 4.0
                ),
                _ => format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="8" height="8"/>"#,
                    x - 4.0,
                    yc - 4.0
                ),
            };
            let extra = match m {
                Mark::Decision { k, m, path } => format!(
                    r#" data-k="{k}" data-m="{m}" data-path="{}""#,
                    if *path == Path::Fast { "fast" } else { "slow" }
                ),
                Mark::Timeout { state } => match state_name(*state) {
                    Some(st) => format!(r#" data-state="{st}""#),
                    None => String::new(),
                },
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                r#"<g class="{}" data-replica="{r}" data-cycle="{c}"{extra}><title>replica {r}, cycle {c}: {}</title>{shape}<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text></g>"#,
                m.class(),
                escape(&m.label()),
                x - 7.0,
                yc + 3.0,
                escape(&m.label())
            );
        }
        s += "</svg>\n";
        s
    }
}

const LEFT: f64 = 90.0;
const TOP: f64 = 50.0;
const LANE_W: f64 = 240.0;
/// Pixels per cycle between two drawn cycles.
const SCALE: f64 = 0.5;
/// The most pixels a stretch of quiet cycles takes; a longer one is cut.
const GAP: f64 = 40.0;
/// Writes of one record by one sender this close are a broadcast: one label.
const BROADCAST_CYCLES: u64 = 8;
/// The least pixels between two labelled cycles.
const ROW: f64 = 14.0;

/// The compressed time axis: a y for every drawn row.
struct Axis {
    y: BTreeMap<u64, f64>,
    /// Stretches cut short: (from, to) cycles.
    cuts: Vec<(u64, u64)>,
}

impl Axis {
    fn new(points: &BTreeMap<u64, bool>) -> Axis {
        let mut y = BTreeMap::new();
        let mut cuts = vec![];
        let mut at = TOP;
        let mut last: Option<u64> = None;
        for (&c, &labelled) in points {
            if let Some(p) = last {
                let span = (c / 2 - p / 2) as f64 * SCALE;
                if span > GAP {
                    cuts.push((p / 2, c / 2));
                }
                at += span.min(GAP).max(if labelled { ROW } else { 1.0 });
            }
            y.insert(c, at);
            last = Some(c);
        }
        Axis { y, cuts }
    }

    /// The y of row t (a cycle's writes at 2c, its marks at 2c + 1): a
    /// drawn row's, or between its neighbours'.
    fn at(&self, c: u64) -> f64 {
        if let Some(&v) = self.y.get(&c) {
            return v;
        }
        let before = self.y.range(..c).next_back();
        let after = self.y.range(c..).next();
        match (before, after) {
            (Some((&c0, &y0)), Some((&c1, &y1))) => {
                y0 + (y1 - y0) * (c - c0) as f64 / (c1 - c0) as f64
            }
            (Some((_, &y0)), None) => y0,
            (None, Some((_, &y1))) => y1,
            (None, None) => TOP,
        }
    }
}

/// Text safe inside an SVG element or attribute.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
