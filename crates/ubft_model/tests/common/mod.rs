//! Search helpers shared by the targeted-search tests (n5_caveat.rs,
//! n3_lone_bridge.rs, recovery.rs): a state's fingerprint, the trace to a
//! state found breadth-first, replaying a prefix by its lines, and
//! exploring every state reachable from its end breadth-first with the
//! four properties checked on each.

#![allow(dead_code)]

use stateright::Model;
use std::collections::{HashMap, VecDeque};
use ubft_model::model::{Action, State};
use ubft_model::recovery::Recovery;
use ubft_model::{Design, UbftModel};

pub type St = State<Recovery>;
pub type Act = Action<Recovery>;

pub fn fp<D: Design>(s: &State<D>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The trace from `start` to the state fingerprinted `end`, by the action
/// that reached each state first (`parent`): the actions' lines, and the
/// state at its end.
pub fn trace<D: Design>(
    m: &UbftModel<D>,
    parent: &HashMap<u64, Option<(u64, Action<D>)>>,
    start: &State<D>,
    end: u64,
) -> (Vec<String>, State<D>) {
    let mut path = vec![];
    let mut at = end;
    while let Some(Some((p, a))) = parent.get(&at) {
        path.insert(0, a.clone());
        at = *p;
    }
    let mut lines = vec![];
    let mut t = start.clone();
    for a in path {
        lines.push(m.describe(&t, &a));
        t = m.next_state(&t, a).expect("replays");
    }
    (lines, t)
}

/// Follows `path` from the initial state: the state at its end, and the
/// lines.
pub fn replay(m: &UbftModel<Recovery>, path: &[&[&str]]) -> (St, Vec<String>) {
    let mut s = m.init_states().remove(0);
    let mut lines = vec![];
    for frags in path {
        let mut acts = vec![];
        m.actions(&s, &mut acts);
        let said = |what: &str| frags.iter().any(|f| f.contains(what));
        let hits: Vec<(Act, String)> = acts
            .into_iter()
            .map(|a| {
                let l = m.describe(&s, &a);
                (a, l)
            })
            .filter(|(_, l)| {
                l.starts_with(frags[0])
                    && frags.iter().all(|f| l.contains(f))
                    && (said("holds back") || !l.contains("holds back"))
                    && (said("falls silent") || !l.contains("falls silent"))
            })
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "{frags:?} after\n{}\n{}\n(matches: {:#?})",
            lines.join("\n"),
            m.describe_state(&s).join("\n"),
            hits.iter().map(|(_, l)| l).collect::<Vec<_>>()
        );
        let (a, l) = hits.into_iter().next().unwrap();
        lines.push(l);
        s = m.next_state(&s, a).expect("a step");
    }
    (s, lines)
}

/// What the breadth-first exploration from a state found.
pub struct Found {
    /// States visited (the start included).
    pub states: usize,
    /// The deepest BFS level reached (actions after the start).
    pub depth: usize,
    /// Terminal states, and how many of them fail `live_with_f_silent`.
    pub terminal: usize,
    pub stalls: usize,
    /// Whether every reachable state was visited (not cut by the cap).
    pub complete: bool,
    /// States that fail a safety property (agreement, validity,
    /// integrity).
    pub unsafe_states: usize,
    /// Each failing state (a failing state is not expanded), in the order
    /// found: its depth, the live replicas' lines, and the trace (lines from
    /// the start, then the state).
    pub fails: Vec<(usize, String, String)>,
    pub secs: f64,
}

impl Found {
    /// The failing states by kind (the live replicas' lines), each with
    /// its count, in the order first found.
    pub fn kinds(&self) -> Vec<(&str, usize)> {
        let mut kinds: Vec<(&str, usize)> = vec![];
        for (_, who, _) in &self.fails {
            match kinds.iter_mut().find(|(w, _)| w == who) {
                Some((_, c)) => *c += 1,
                None => kinds.push((who, 1)),
            }
        }
        kinds
    }

    /// One line: the states from the prefix's end, whether complete, the
    /// depth, the terminal and failing states, the time.
    pub fn summary(&self) -> String {
        format!(
            "{} states from the prefix's end ({}), depth {}, {} terminal, {} failing \
             live_with_f_silent, {} failing a safety property, {:.3} s",
            self.states,
            if self.complete {
                "complete"
            } else {
                "NOT complete: cap"
            },
            self.depth,
            self.terminal,
            self.stalls,
            self.unsafe_states,
            self.secs
        )
    }
}

/// Every state reachable from `start` (at most `cap`), breadth-first:
/// agreement, validity, integrity and `live_with_f_silent` on each.
pub fn explore_from(m: &UbftModel<Recovery>, start: St, cap: usize) -> Found {
    let t0 = std::time::Instant::now();
    // The action that reached each state first (lines are made only for the
    // trace, by replaying it).
    let mut parent: HashMap<u64, Option<(u64, Act)>> = HashMap::from([(fp(&start), None)]);
    let mut queue = VecDeque::from([(start.clone(), 0usize)]);
    let (mut depth, mut terminal, mut stalls) = (0, 0, 0);
    let mut fails = vec![];
    let mut unsafe_states = 0;
    let mut complete = true;
    while let Some((s, d)) = queue.pop_front() {
        depth = depth.max(d);
        let term = m.terminal(&s);
        terminal += term as usize;
        let live = m.live_with_f_silent(&s);
        stalls += !live as usize;
        let safe = m.agreement(&s) && m.validity(&s) && m.integrity(&s);
        unsafe_states += !safe as usize;
        if !(live && safe) {
            {
                let (mut lines, t) = trace(m, &parent, &start, fp(&s));
                let end = m.describe_state(&t);
                let who: Vec<&String> = (0..m.cfg.n)
                    .filter(|&r| m.live(&t, r))
                    .map(|r| &end[r])
                    .collect();
                let who = format!("{who:?}");
                lines.extend(end);
                fails.push((d, who, lines.join("\n")));
            }
            continue;
        }
        if parent.len() >= cap {
            complete = false;
            continue;
        }
        let mut acts = vec![];
        m.actions(&s, &mut acts);
        for a in acts {
            if let Some(t) = m.next_state(&s, a.clone()) {
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(fp(&t)) {
                    e.insert(Some((fp(&s), a)));
                    queue.push_back((t, d + 1));
                }
            }
        }
    }
    Found {
        states: parent.len(),
        depth,
        terminal,
        stalls,
        complete,
        unsafe_states,
        fails,
        secs: t0.elapsed().as_secs_f64(),
    }
}

/// What every targeted search asserts: the exploration from the prefix
/// is complete, no state is unsafe, and a failing state is the stall the
/// test looks for (`is_it`, on the live replicas' lines).
pub fn assert_reached(found: &Found, design: &str, is_it: impl Fn(&str) -> bool, what: &str) {
    assert!(found.complete, "{design}: not complete");
    assert_eq!(found.unsafe_states, 0, "{design}: a safety property fails");
    assert!(
        found.fails.iter().any(|f| is_it(&f.1)),
        "{design}: no state of {what}"
    );
}

/// Breadth-first from `start` to the first state `is_it` accepts: the
/// trace there and the state it ends in (at most `cap` states explored).
pub fn witness(
    m: &UbftModel<Recovery>,
    start: &St,
    cap: usize,
    is_it: impl Fn(&St) -> bool,
) -> Option<String> {
    let mut parent: HashMap<u64, Option<(u64, Act)>> = HashMap::from([(fp(start), None)]);
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(s) = queue.pop_front() {
        if is_it(&s) {
            let (mut lines, t) = trace(m, &parent, start, fp(&s));
            lines.extend(m.describe_state(&t));
            return Some(lines.join("\n"));
        }
        if parent.len() >= cap {
            continue;
        }
        let mut acts = vec![];
        m.actions(&s, &mut acts);
        for a in acts {
            if let Some(t) = m.next_state(&s, a.clone()) {
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(fp(&t)) {
                    e.insert(Some((fp(&s), a)));
                    queue.push_back(t);
                }
            }
        }
    }
    None
}
