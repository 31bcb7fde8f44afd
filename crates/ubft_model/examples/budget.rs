//! A depth-first run of a `recovery` design with a time budget: the four
//! properties on every state, the model's assertions (D11.9 V9, V11) caught
//! as failures, and, when the budget runs out, how far it got (the states
//! visited, none failing). `cargo xtask model` reports only at the end, so
//! a run stopped by a timeout says nothing; this one always reports.
//! `budget DESIGN SLOTS VIEWS SILENT DELAYS EARLY SECONDS [BYZ WRITES]`.
//! States are kept as 64-bit fingerprints (`check::fingerprint`), as the
//! checker keeps them; the unique count of a complete run is the checker's.
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use stateright::Model;
use ubft_model::check::fingerprint;
use ubft_model::model::UbftModel;
use ubft_model::recovery::{Recovery, Variant};
use ubft_model::Config;

type S = <UbftModel<Recovery> as Model>::State;
type A = <UbftModel<Recovery> as Model>::Action;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let p = |i: usize| a[i].parse::<usize>().unwrap();
    let mut c = Config::new(3, p(2), 1, p(3) as u8);
    c.silent = p(4);
    c.delays = p(5) as u8;
    c.early_timeouts = p(6) as u8;
    let budget = p(7) as f64;
    if a.len() > 9 {
        c.byzantine = Some(p(8));
        c.byz_writes = p(9) as u8;
    }
    let variant = Variant::by_name(&a[1]).expect("a recovery variant");
    let m = UbftModel::new(Recovery { variant }, c);
    std::panic::set_hook(Box::new(|_| {}));
    let t0 = Instant::now();
    let acts = |s: &S| {
        let mut v: Vec<A> = vec![];
        m.actions(s, &mut v);
        v
    };
    let check = |s: &S| -> Option<&'static str> {
        if !m.agreement(s) {
            Some("agreement")
        } else if !m.validity(s) {
            Some("validity")
        } else if !m.integrity(s) {
            Some("integrity")
        } else if !m.live_with_f_silent(s) {
            Some("live_with_f_silent")
        } else {
            None
        }
    };
    let init = m.init_states().remove(0);
    let mut seen: HashSet<u64> = HashSet::from([fingerprint(&init)]);
    let mut stack: Vec<(S, Vec<A>, usize)> = vec![(init.clone(), acts(&init), 0)];
    let (mut generated, mut depth) = (1usize, 1usize);
    let mut failure: Option<String> = None;
    let mut stopped = false;
    'dfs: while let Some((s, v, i)) = stack.last_mut() {
        if *i >= v.len() {
            stack.pop();
            continue;
        }
        let act = v[*i].clone();
        *i += 1;
        let s = s.clone();
        match catch_unwind(AssertUnwindSafe(|| m.next_state(&s, act.clone()))) {
            Ok(Some(t)) => {
                generated += 1;
                if seen.insert(fingerprint(&t)) {
                    if let Some(p) = check(&t) {
                        failure = Some(format!("{p} fails"));
                        stack.push((t, vec![], 0));
                        break 'dfs;
                    }
                    if seen.len().is_multiple_of(1_000_000) {
                        eprintln!(
                            "{} states, {generated} generated, depth {}, {:.0} s",
                            seen.len(),
                            depth - 1,
                            t0.elapsed().as_secs_f64()
                        );
                        if t0.elapsed().as_secs_f64() > budget {
                            stopped = true;
                            break 'dfs;
                        }
                    }
                    let nv = acts(&t);
                    stack.push((t, nv, 0));
                    depth = depth.max(stack.len());
                }
            }
            Ok(None) => {}
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| "a panic".into());
                failure = Some(format!("an assertion fails: {msg}"));
                break 'dfs;
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let depth = depth - 1; // counted as the checker counts it
    let status = match (&failure, stopped) {
        (Some(f), _) => format!("FAILS: {f}"),
        (None, true) => "NOT complete (the time budget ran out); nothing failed so far".into(),
        (None, false) => {
            "complete; agreement, validity, integrity, live_with_f_silent and the assertions hold"
                .into()
        }
    };
    println!(
        "{}: {} states, {generated} generated, depth {depth}, {secs:.1} s: {status}",
        a[1],
        seen.len()
    );
    if failure.is_some() {
        for (j, (st, v, i)) in stack.iter().enumerate() {
            if *i > 0 {
                let last = j + 1 == stack.len();
                if last
                    && failure
                        .as_ref()
                        .is_some_and(|f| f.starts_with("an assertion"))
                {
                    println!("{:>3}. (fails) {:?}", j + 1, v[*i - 1]);
                } else {
                    println!("{:>3}. {}", j + 1, m.describe(st, &v[*i - 1]));
                }
            }
        }
        if let Some((s, _, _)) = stack.last() {
            for l in m.describe_state(s) {
                println!("  {l}");
            }
        }
    }
}
