//! Running the checker: the same for every design. Counts states, reports
//! each property with a counterexample a person can read, and writes the
//! JSON report of `cargo xtask model --json`.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use stateright::{Checker, HasDiscoveries, Model};

use crate::current::Current;
use crate::model::{Budget, Config, Design, UbftModel, PROPERTIES};

/// How to run the checker.
#[derive(Clone, Debug)]
pub struct RunOpts {
    pub threads: usize,
    /// Stop after this many unique states (0: no limit); the report then
    /// says `complete: false`.
    pub max_states: usize,
    /// Explore depth-first (memory: the visited fingerprints and one path,
    /// not a breadth-first frontier of whole states); counterexamples are
    /// then not the shortest.
    pub dfs: bool,
    /// Explore no deeper than this many actions (0: no limit); the report
    /// then says `complete: false` if a state at that depth had successors.
    pub max_depth: usize,
    /// Partial-order reduction: explore a persistent set of each state's
    /// actions (docs/model.md, "Partial-order reduction").
    pub por: bool,
    /// Stop the run cleanly once the process's resident memory passes this
    /// many bytes (0: no cap). The report then says `complete: false`,
    /// `stopped: "memory cap ..."`, and what was checked.
    pub max_memory: u64,
    /// Print a progress line (states, states/s, resident memory) to stderr
    /// this often (`None`: quiet).
    pub progress: Option<Duration>,
    /// Stop the run cleanly after this long (`None`: no time budget), as
    /// at the memory cap (`stopped: "time budget ..."`).
    pub max_time: Option<Duration>,
}

impl Default for RunOpts {
    fn default() -> Self {
        RunOpts {
            threads: 1,
            max_states: 0,
            dfs: false,
            max_depth: 0,
            por: false,
            max_memory: 0,
            progress: None,
            max_time: None,
        }
    }
}

/// The process's resident memory and its peak so far, in bytes
/// (`VmRSS`, `VmHWM` of /proc/self/status; 0 where that file is missing).
pub fn resident_memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// A number with thousands separators (1,234,567), as the docs print them.
pub fn thousands(n: usize) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn gb(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Waits for the checker's threads; meanwhile prints progress and, at the
/// memory cap, sets the budget's stop switch. Returns why the run stopped
/// early (`None`: it ran to its end). A checker thread's panic (an
/// assertion of the design) is passed on.
fn watch<M: Model, C: Checker<M>>(
    c: &mut C,
    budget: &Budget,
    opts: &RunOpts,
    what: &str,
) -> Option<String> {
    let handles = c.handles();
    let start = Instant::now();
    let (mut last_t, mut last_n) = (start, 0usize);
    let mut stopped = None;
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(20));
        let (rss, _) = resident_memory();
        if stopped.is_none() && opts.max_memory > 0 && rss > opts.max_memory {
            budget.stop.store(true, Ordering::Relaxed);
            let why = format!(
                "memory cap: {:.2} GB resident, cap {:.2} GB",
                gb(rss),
                gb(opts.max_memory)
            );
            eprintln!(
                "{what}: stopping at the memory cap ({:.2} GB resident): {} states checked, depth {}",
                gb(rss),
                thousands(budget.checked()),
                c.max_depth()
            );
            stopped = Some(why);
        }
        if stopped.is_none() && opts.max_time.is_some_and(|t| start.elapsed() >= t) {
            budget.stop.store(true, Ordering::Relaxed);
            let why = format!("time budget: {:.0} s", start.elapsed().as_secs_f64());
            eprintln!(
                "{what}: stopping at the time budget: {} states checked, depth {}",
                thousands(budget.checked()),
                c.max_depth()
            );
            stopped = Some(why);
        }
        if let Some(every) = opts.progress {
            if last_t.elapsed() >= every {
                let n = budget.checked();
                let rate = (n - last_n.min(n)) as f64 / last_t.elapsed().as_secs_f64();
                eprintln!(
                    "{what}: {} states checked ({} generated), depth {}, {:.0} states/s, {:.2} GB resident, {:.0} s",
                    thousands(n),
                    thousands(c.state_count()),
                    c.max_depth(),
                    rate,
                    gb(rss),
                    start.elapsed().as_secs_f64()
                );
                (last_t, last_n) = (Instant::now(), n);
            }
        }
    }
    for h in handles {
        if let Err(panic) = h.join() {
            std::panic::resume_unwind(panic);
        }
    }
    stopped
}

/// One property's result.
#[derive(Clone, Debug, Serialize)]
pub struct PropertyReport {
    pub name: String,
    pub holds: bool,
    /// The trace, one action per line, then the final state; `None` when the
    /// property holds in the explored space.
    pub counterexample: Option<Vec<String>>,
}

/// A whole check.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub design: String,
    pub replicas: usize,
    pub slots: usize,
    pub window: usize,
    pub views: u8,
    pub values: u8,
    pub any_value: bool,
    pub silent: usize,
    pub delays: u8,
    pub early_timeouts: u8,
    pub byzantine: Option<usize>,
    pub byz_writes: u8,
    pub live_views: u8,
    /// The bridge's reach (`kernel`'s catch-up gate, recovery.md D11.16).
    pub reach: usize,
    /// Explored with the partial-order reduction.
    pub por: bool,
    /// Unique states explored.
    pub states: usize,
    /// States generated, repeats included.
    pub generated: usize,
    /// States whose properties were checked and whose successors were
    /// generated: `states` when the run is complete; fewer when it stopped
    /// with states still queued.
    pub checked: usize,
    pub max_depth: usize,
    /// The whole reachable space was explored.
    pub complete: bool,
    /// Why the run stopped before its end (the memory cap or the time
    /// budget), if it did; the properties then hold or fail over the
    /// `checked` states only.
    pub stopped: Option<String>,
    /// The process's peak resident memory (VmHWM), in MiB (0 where
    /// /proc is missing).
    pub peak_memory_mb: u64,
    pub seconds: f64,
    pub properties: Vec<PropertyReport>,
}

impl CheckReport {
    pub fn property(&self, name: &str) -> &PropertyReport {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .expect("a known property")
    }

    pub fn all_hold(&self) -> bool {
        self.properties.iter().all(|p| p.holds)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes")
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "design {}: n = {}, S = {} slots, G = {}, views 0..={}, {} client values{}, ≤ {} silent, {} held write(s), {} early timeout(s), Byzantine {:?} ({} writes), L = {}, reach {}\n",
            self.design,
            self.replicas,
            self.slots,
            self.window,
            self.views,
            self.values,
            if self.any_value { " (any from any leader)" } else { "" },
            self.silent,
            self.delays,
            self.early_timeouts,
            self.byzantine,
            self.byz_writes,
            self.live_views,
            self.reach
        );
        s += &format!(
            "{} states ({} generated, depth {}){}, {}, {:.1} s, peak {} MB resident\n",
            self.states,
            self.generated,
            self.max_depth,
            if self.por {
                " with the partial-order reduction"
            } else {
                ""
            },
            if self.complete {
                "complete"
            } else {
                "NOT complete"
            },
            self.seconds,
            self.peak_memory_mb
        );
        if let Some(why) = &self.stopped {
            s += &format!(
                "stopped ({why}): {} states checked to depth {}; the results below are over those states only\n",
                self.checked, self.max_depth
            );
        }
        for p in &self.properties {
            s += &format!(
                "{:<20} {}\n",
                p.name,
                if p.holds { "holds" } else { "FAILS" }
            );
            if let Some(ce) = &p.counterexample {
                for (i, line) in ce.iter().enumerate() {
                    s += &format!("    {:>3}. {line}\n", i + 1);
                }
            }
        }
        s
    }
}

fn trace<D: Design>(
    model: &UbftModel<D>,
    path: stateright::Path<<UbftModel<D> as Model>::State, <UbftModel<D> as Model>::Action>,
) -> Vec<String> {
    let steps = path.into_vec();
    let mut lines = vec![];
    for (s, a) in &steps {
        if let Some(a) = a {
            lines.push(model.describe(s, a));
        }
    }
    let last = &steps.last().expect("a path has a state").0;
    lines.push("final state:".into());
    lines.extend(
        model
            .describe_state(last)
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    if model.terminal(last) {
        let why = if model.all_decided(last) {
            "every live honest replica decided every slot".to_string()
        } else {
            match model.excuse(last) {
                Some(e) => format!("not all decided; excused: {e}"),
                None if model.views_since_gst(last) >= model.cfg.live_views => format!(
                    "no action is enabled, not all decided: the views advanced {} times after the last asynchronous event without a decision (L = {})",
                    model.views_since_gst(last),
                    model.cfg.live_views
                ),
                None => "no action is enabled and a live honest replica has a slot undecided".to_string(),
            }
        };
        lines.push(format!("  terminal: {why}"));
    }
    lines
}

/// Checks `design` under `cfg`.
pub fn run<D: Design>(design: D, cfg: Config, opts: &RunOpts) -> CheckReport {
    let start = Instant::now();
    let model = UbftModel {
        por: opts.por,
        ..UbftModel::new(design.clone(), cfg.clone())
    };
    let budget = model.budget.clone();
    let mut b = model.clone().checker().threads(opts.threads.max(1));
    if opts.max_states > 0 {
        b = b.target_state_count(opts.max_states);
    }
    if opts.max_depth > 0 {
        b = b.target_max_depth(opts.max_depth);
    }
    type Path<D> =
        stateright::Path<<UbftModel<D> as Model>::State, <UbftModel<D> as Model>::Action>;
    struct Found<D: Design> {
        states: usize,
        generated: usize,
        max_depth: usize,
        paths: std::collections::HashMap<&'static str, Path<D>>,
        stopped: Option<String>,
        checked: usize,
    }
    fn counts<D: Design, C: Checker<UbftModel<D>>>(
        mut c: C,
        budget: &Budget,
        opts: &RunOpts,
    ) -> Found<D> {
        let stopped = watch(&mut c, budget, opts, "model");
        let checked = budget.checked();
        // The threads are done: a stopped model offers no actions, and a
        // counterexample's path is rebuilt by replaying them.
        budget.stop.store(false, Ordering::Relaxed);
        Found {
            states: c.unique_state_count(),
            generated: c.state_count(),
            max_depth: c.max_depth(),
            paths: c.discoveries(),
            stopped,
            checked,
        }
    }
    let mut found = if opts.dfs {
        counts::<D, _>(b.spawn_dfs(), &budget, opts)
    } else {
        counts::<D, _>(b.spawn_bfs(), &budget, opts)
    };
    let checked = found.checked;
    let limited = (opts.max_states > 0 && found.generated >= opts.max_states)
        || (opts.max_depth > 0 && found.max_depth >= opts.max_depth)
        || found.stopped.is_some();
    let complete = found.paths.len() < PROPERTIES.len() && !limited;
    let mut properties = vec![];
    for name in PROPERTIES {
        let counterexample = found.paths.remove(name).map(|first| {
            // The first counterexample breadth-first, for this property
            // alone (the full run keeps the last one it met); the full
            // run's own path if that search meets the memory cap too.
            let only = UbftModel {
                only: Some(name),
                budget: Arc::default(),
                ..model.clone()
            };
            if found.stopped.is_some() {
                return trace(&only, first);
            }
            let mut cb = only
                .clone()
                .checker()
                .threads(1)
                .finish_when(HasDiscoveries::Any);
            if opts.max_depth > 0 {
                cb = cb.target_max_depth(opts.max_depth);
            }
            // Within what is left of the time budget; past it, or at the
            // memory cap, the full run's own path is printed.
            let quiet = RunOpts {
                progress: None,
                max_time: opts.max_time.map(|t| {
                    t.saturating_sub(start.elapsed())
                        .max(Duration::from_millis(1))
                }),
                ..opts.clone()
            };
            let (path, stopped) = if opts.dfs {
                let mut c = cb.spawn_dfs();
                let stopped = watch(&mut c, &only.budget, &quiet, "counterexample");
                only.budget.stop.store(false, Ordering::Relaxed);
                (c.discovery(name), stopped)
            } else {
                let mut c = cb.spawn_bfs();
                let stopped = watch(&mut c, &only.budget, &quiet, "counterexample");
                only.budget.stop.store(false, Ordering::Relaxed);
                (c.discovery(name), stopped)
            };
            match path {
                Some(p) if stopped.is_none() => trace(&only, p),
                _ => trace(&only, first),
            }
        });
        properties.push(PropertyReport {
            name: name.into(),
            holds: counterexample.is_none(),
            counterexample,
        });
    }
    CheckReport {
        design: design.name().into(),
        replicas: cfg.n,
        slots: cfg.slots,
        window: cfg.window,
        views: cfg.views,
        values: cfg.values,
        any_value: cfg.any_value,
        silent: cfg.silent,
        delays: cfg.delays,
        early_timeouts: cfg.early_timeouts,
        byzantine: cfg.byzantine,
        byz_writes: cfg.byz_writes,
        live_views: cfg.live_views,
        reach: cfg.reach,
        por: opts.por,
        states: found.states,
        generated: found.generated,
        checked,
        max_depth: found.max_depth,
        complete,
        stopped: found.stopped,
        peak_memory_mb: resident_memory().1 >> 20,
        seconds: start.elapsed().as_secs_f64(),
        properties,
    }
}

/// Checks the design called `name` (see [`crate::DESIGNS`]).
pub fn run_named(name: &str, cfg: Config, opts: &RunOpts) -> Result<CheckReport, String> {
    match name {
        "current" => Ok(run(Current::ALL_N, cfg, opts)),
        "current:no_requests" | "current-no-requests" => Ok(run(Current::NO_REQUESTS, cfg, opts)),
        "current:no_r26" | "current-no-r26" => Ok(run(Current::NO_R26, cfg, opts)),
        name if crate::recovery::Variant::by_name(name).is_some() => {
            let variant = crate::recovery::Variant::by_name(name).unwrap();
            Ok(run(crate::recovery::Recovery { variant }, cfg, opts))
        }
        other => Err(format!(
            "unknown design `{other}` (known: {:?})",
            crate::DESIGNS
        )),
    }
}

/// Searches for a counterexample to one property only, breadth-first (so
/// the shortest), stopping at the first: the trace, and the unique states
/// explored. Faster than [`run`] when a property is expected to fail.
pub fn find<D: Design>(
    design: D,
    cfg: Config,
    property: &'static str,
    max_states: usize,
) -> (Option<Vec<String>>, usize) {
    let only = UbftModel {
        only: Some(property),
        ..UbftModel::new(design, cfg)
    };
    let mut b = only.clone().checker().finish_when(HasDiscoveries::Any);
    if max_states > 0 {
        b = b.target_state_count(max_states);
    }
    let c = b.spawn_bfs().join();
    let states = c.unique_state_count();
    (c.discovery(property).map(|p| trace(&only, p)), states)
}

/// A state's 64-bit fingerprint, as the checker keeps states.
pub fn fingerprint<T: std::hash::Hash>(t: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// Depth-first search for a cycle in `m`'s reachable graph (states by their
/// [`fingerprint`]). Returns the states visited, or `None` on a cycle. Every
/// run of an acyclic model ends in a terminal state, which is where
/// liveness is judged, and the partial-order reduction's argument needs it
/// (docs/model.md).
pub fn acyclic<M>(m: &M) -> Option<usize>
where
    M: Model,
    M::State: std::hash::Hash,
{
    use std::collections::HashMap;
    // 1: on the stack, 2: done.
    let mut color: HashMap<u64, u8> = HashMap::new();
    for init in m.init_states() {
        let f = fingerprint(&init);
        if color.contains_key(&f) {
            continue;
        }
        color.insert(f, 1);
        let mut stack = vec![(f, m.next_states(&init), 0usize)];
        while let Some((f, next, i)) = stack.last_mut() {
            if *i < next.len() {
                let t = &next[*i];
                *i += 1;
                let g = fingerprint(t);
                match color.get(&g) {
                    Some(1) => return None,
                    Some(_) => {}
                    None => {
                        color.insert(g, 1);
                        let nt = m.next_states(t);
                        stack.push((g, nt, 0));
                    }
                }
            } else {
                color.insert(*f, 2);
                stack.pop();
            }
        }
    }
    Some(color.len())
}
