//! The shortest path to a failed model assertion (recovery.md D11.9's V9
//! and V11, which panic): a breadth-first search that catches the panic and
//! prints the path, as a counterexample reads (with `DFS=1` in the
//! environment: depth-first, less memory, not the shortest path).
//! `assert_trace DESIGN SLOTS VIEWS SILENT DELAYS EARLY [BYZ WRITES]`.
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};

use stateright::Model;
use ubft_model::check::fingerprint;
use ubft_model::model::UbftModel;
use ubft_model::recovery::{Recovery, Variant};
use ubft_model::Config;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let p = |i: usize| a[i].parse::<usize>().unwrap();
    let mut c = Config::new(3, p(2), 1, p(3) as u8);
    c.silent = p(4);
    c.delays = p(5) as u8;
    c.early_timeouts = p(6) as u8;
    if a.len() > 8 {
        c.byzantine = Some(p(7));
        c.byz_writes = p(8) as u8;
    }
    let variant = Variant::by_name(&a[1]).expect("a recovery variant");
    let m = UbftModel::new(Recovery { variant }, c);
    std::panic::set_hook(Box::new(|_| {}));
    if std::env::var("DFS").is_ok() {
        return dfs(&m);
    }
    let init = m.init_states().remove(0);
    // fingerprint -> (parent fingerprint, the action's line)
    let mut seen: HashMap<u64, Option<(u64, String)>> = HashMap::new();
    let f0 = fingerprint(&init);
    seen.insert(f0, None);
    let mut queue = VecDeque::from([(f0, init)]);
    let mut n = 0usize;
    while let Some((f, s)) = queue.pop_front() {
        n += 1;
        let mut acts = vec![];
        m.actions(&s, &mut acts);
        for act in acts {
            // (Describing a step applies it, so it may fail too.)
            let r = catch_unwind(AssertUnwindSafe(|| {
                m.next_state(&s, act.clone())
                    .map(|t| (t, m.describe(&s, &act)))
            }));
            let line = format!("{act:?}");
            match r {
                Ok(Some((t, line))) => {
                    let g = fingerprint(&t);
                    if !seen.contains_key(&g) {
                        seen.insert(g, Some((f, line)));
                        queue.push_back((g, t));
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .unwrap_or_else(|| "a panic".into());
                    let mut path = vec![format!("(fails) {line}")];
                    let mut at = f;
                    while let Some(Some((pf, l))) = seen.get(&at) {
                        path.push(l.clone());
                        at = *pf;
                    }
                    path.reverse();
                    println!("{n} states explored; the assertion fails:\n{msg}\n");
                    for (i, l) in path.iter().enumerate() {
                        println!("{:>3}. {l}", i + 1);
                    }
                    println!("state before the failing step:");
                    for l in m.describe_state(&s) {
                        println!("  {l}");
                    }
                    return;
                }
            }
        }
    }
    println!("{n} states explored; no assertion fails");
}

/// Depth-first (`DFS=1`): little memory, a path that is not the shortest.
fn dfs(m: &UbftModel<Recovery>) {
    use std::collections::HashSet;
    type S = <UbftModel<Recovery> as Model>::State;
    type A = <UbftModel<Recovery> as Model>::Action;
    let init = m.init_states().remove(0);
    let mut seen: HashSet<u64> = HashSet::from([fingerprint(&init)]);
    let acts = |s: &S| {
        let mut v: Vec<A> = vec![];
        m.actions(s, &mut v);
        v
    };
    let mut stack: Vec<(S, Vec<A>, usize)> = vec![(init.clone(), acts(&init), 0)];
    let mut n = 1usize;
    while let Some((s, v, i)) = stack.last_mut() {
        if *i >= v.len() {
            stack.pop();
            continue;
        }
        let act = v[*i].clone();
        *i += 1;
        let s = s.clone();
        match catch_unwind(AssertUnwindSafe(|| m.next_state(&s, act.clone()))) {
            Ok(Some(t)) => {
                if seen.insert(fingerprint(&t)) {
                    n += 1;
                    let nv = acts(&t);
                    stack.push((t, nv, 0));
                }
            }
            Ok(None) => {}
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| "a panic".into());
                println!("{n} states explored (depth-first); the assertion fails:\n{msg}\n");
                for (j, (st, v, i)) in stack.iter().enumerate() {
                    let line = if j + 1 < stack.len() {
                        m.describe(st, &v[*i - 1])
                    } else {
                        format!("(fails) {:?}", v[*i - 1])
                    };
                    println!("{:>3}. {line}", j + 1);
                }
                println!("state before the failing step:");
                for l in m.describe_state(&s) {
                    println!("  {l}");
                }
                return;
            }
        }
    }
    println!("{n} states explored (depth-first); no assertion fails");
}
