//! The partial-order reduction (`--por`, docs/model.md) against the full
//! search, on bounds where both finish in seconds: the same verdict for
//! every property, the same terminal states (so the same decision vectors),
//! and the same counterexample found where a variant loses agreement.

use std::collections::{BTreeSet, HashSet};

use stateright::Model;
use ubft_model::check::{acyclic, fingerprint, RunOpts};
use ubft_model::current::Current;
use ubft_model::model::State;
use ubft_model::recovery::{Recovery, Variant};
use ubft_model::{run, Config, Design, UbftModel};

/// Every state reachable in `m` (its own actions: reduced when `m.por`),
/// by hand: the number of states, the terminal states' fingerprints, and
/// the decision vectors (each replica's decisions) of the terminal states.
fn terminals<D: Design>(m: &UbftModel<D>) -> (usize, HashSet<u64>, BTreeSet<String>) {
    let init = m.init_states().remove(0);
    let mut seen = HashSet::from([fingerprint(&init)]);
    let mut stack: Vec<State<D>> = vec![init];
    let mut term = HashSet::new();
    let mut vectors = BTreeSet::new();
    while let Some(s) = stack.pop() {
        let mut acts = vec![];
        m.actions(&s, &mut acts);
        let mut any = false;
        for a in acts {
            if let Some(t) = m.next_state(&s, a) {
                any = true;
                if seen.insert(fingerprint(&t)) {
                    stack.push(t);
                }
            }
        }
        if !any {
            assert!(
                m.terminal(&s),
                "a reduced state with no successor is terminal"
            );
            term.insert(fingerprint(&s));
            let v: Vec<String> = (0..m.cfg.n)
                .map(|r| format!("{:?}", m.design.decisions(&s.reps[r])))
                .collect();
            vectors.insert(v.join(" "));
        }
    }
    (seen.len(), term, vectors)
}

/// The reduced and the full search agree under `c`.
fn agree<D: Design>(design: D, c: Config) {
    let full = UbftModel::new(design.clone(), c.clone());
    let red = UbftModel {
        por: true,
        ..full.clone()
    };
    let (n_full, t_full, v_full) = terminals(&full);
    let (n_red, t_red, v_red) = terminals(&red);
    println!(
        "{}: {n_full} states, {} terminal; reduced {n_red} states, {} terminal; {} decision vectors",
        design.name(),
        t_full.len(),
        t_red.len(),
        v_full.len()
    );
    assert!(n_red <= n_full);
    assert_eq!(t_full, t_red, "the same terminal states");
    assert_eq!(v_full, v_red, "the same decision vectors");
    let r_full = run(design.clone(), c.clone(), &RunOpts::default());
    let r_red = run(
        design,
        c,
        &RunOpts {
            por: true,
            ..RunOpts::default()
        },
    );
    for (a, b) in r_full.properties.iter().zip(&r_red.properties) {
        assert_eq!(
            a.holds,
            b.holds,
            "{}: {}\n{}",
            a.name,
            r_full.text(),
            r_red.text()
        );
    }
}

fn cfg(slots: usize, views: u8) -> Config {
    let mut c = Config::new(3, slots, 1, views);
    c.early_timeouts = 0;
    c.delays = 0;
    c
}

#[test]
fn reduced_and_full_agree_on_recovery() {
    // Silence at any point, the window wrapping, two view changes.
    agree(Recovery::default(), cfg(2, 2));
    // One early timeout, all live.
    let mut c = cfg(1, 1);
    c.early_timeouts = 1;
    c.silent = 0;
    agree(Recovery::default(), c);
}

#[test]
#[ignore = "about a minute: the reduction is slow per state (docs/model.md)"]
fn reduced_and_full_agree_on_recovery_with_a_held_write() {
    // One held write, all live, views 0..=0.
    let mut c = cfg(1, 0);
    c.delays = 1;
    c.silent = 0;
    agree(Recovery::default(), c);
}

#[test]
fn reduced_and_full_agree_on_current() {
    // `current` loses liveness with a silent replica: both searches say so.
    let mut c = cfg(1, 1);
    c.early_timeouts = 1;
    agree(Current::ALL_N, c);
}

#[test]
fn the_reduction_finds_cert_fs_counterexample() {
    // A Byzantine view-0 leader with f shares a certificate: agreement
    // fails, in the reduced search too.
    let mut c = cfg(1, 0);
    c.silent = 0;
    c.byzantine = Some(0);
    c.byz_writes = 2;
    agree(
        Recovery {
            variant: Variant::CertF,
        },
        c.clone(),
    );
    let r = run(
        Recovery {
            variant: Variant::CertF,
        },
        c,
        &RunOpts {
            por: true,
            ..RunOpts::default()
        },
    );
    assert!(!r.property("agreement").holds, "{}", r.text());
}

#[test]
fn the_recovery_state_graph_has_no_cycle() {
    // The reduction's argument for the invariants needs it: from every
    // reachable state a terminal state is reachable (docs/model.md).
    let mut c = cfg(2, 2);
    assert!(acyclic(&UbftModel::new(Recovery::default(), c.clone())).is_some());
    c = cfg(1, 1);
    c.early_timeouts = 1;
    c.silent = 0;
    assert!(acyclic(&UbftModel::new(Recovery::default(), c)).is_some());
}
