//! The harness every design shares: selection by name, the JSON report.

use ubft_model::check::{run_named, RunOpts};
use ubft_model::Config;

fn small() -> Config {
    let mut c = Config::new(3, 1, 1, 1);
    c.delays = 0;
    c
}

#[test]
fn designs_are_selected_by_name() {
    let r = run_named("current", small(), &RunOpts::default()).unwrap();
    assert_eq!(r.design, "current");
    let mut tiny = small();
    tiny.views = 0;
    tiny.early_timeouts = 0;
    for name in ubft_model::DESIGNS {
        let r = run_named(name, tiny.clone(), &RunOpts::default()).unwrap();
        assert_eq!(r.design, name);
    }
    assert!(run_named("paxos", small(), &RunOpts::default()).is_err());
}

#[test]
fn the_json_report_has_the_issues_fields() {
    let r = run_named("current", small(), &RunOpts::default()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(v["design"], "current");
    assert_eq!(v["replicas"], 3);
    assert!(v["states"].as_u64().unwrap() > 0);
    assert_eq!(v["complete"], true);
    let props = v["properties"].as_array().unwrap();
    let names: Vec<&str> = props.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["agreement", "validity", "integrity", "live_with_f_silent"]
    );
    for p in props {
        let holds = p["holds"].as_bool().unwrap();
        // A counterexample exactly when the property fails: a list of lines.
        assert_eq!(p["counterexample"].is_null(), holds, "{p}");
        if !holds {
            assert!(p["counterexample"]
                .as_array()
                .unwrap()
                .iter()
                .all(|l| l.is_string()));
        }
    }
    assert_eq!(props[3]["holds"], false, "a silent replica stops current");
}

/// `cargo xtask model`'s default design (`ubft_model::defaults`) is a
/// design the checker knows, the kernel's, and `recovery:rtl` stays an
/// alias of it.
#[test]
fn the_default_design_parses() {
    use ubft_model::recovery::Variant;
    assert_eq!(ubft_model::defaults::DESIGN, "kernel");
    assert_eq!(
        Variant::by_name(ubft_model::defaults::DESIGN),
        Some(Variant::Kernel)
    );
    assert_eq!(Variant::by_name("recovery:rtl"), Some(Variant::Kernel));
    assert_eq!(Variant::by_name("recovery-rtl"), Some(Variant::Kernel));
    assert!(ubft_model::DESIGNS.contains(&ubft_model::defaults::DESIGN));
    let mut tiny = small();
    tiny.views = 0;
    let r = run_named(ubft_model::defaults::DESIGN, tiny, &RunOpts::default()).unwrap();
    assert_eq!(r.design, "kernel");
    assert!(r.complete && r.all_hold(), "{}", r.text());
    assert_eq!(r.checked, r.states, "a complete run checks every state");
    assert!(r.stopped.is_none());
}

/// The defaults themselves, as `cargo xtask model` runs them: complete,
/// with agreement, validity and integrity holding (about two and a half
/// minutes, 1.8 GB; docs/model.md, "Running it", has the figures).
/// `live_with_f_silent` fails there: the kernel's bridge on a value
/// decided in another view (issue 36's first item), printed, not asserted.
#[test]
#[ignore = "minutes: the default run of cargo xtask model"]
fn the_default_configuration_completes() {
    use ubft_model::defaults as d;
    let mut c = Config::new(d::REPLICAS, d::SLOTS, d::WINDOW, d::VIEWS);
    c.delays = d::DELAYS;
    c.early_timeouts = d::EARLY_TIMEOUTS;
    let opts = RunOpts {
        threads: d::THREADS,
        ..RunOpts::default()
    };
    let r = run_named(d::DESIGN, c, &opts).unwrap();
    println!("{}", r.text());
    assert!(r.complete, "{}", r.text());
    for p in ["agreement", "validity", "integrity"] {
        assert!(r.property(p).holds, "{}", r.text());
    }
}

/// A tiny memory cap stops a run cleanly: no panic, no out-of-memory, a
/// report that says it stopped and is not complete, and no property
/// failing for want of the states it did not reach (a state the stop cut
/// off is not a terminal state).
#[test]
fn a_memory_cap_stops_a_run_cleanly() {
    // The kernel's design with one held write: millions of states, so the
    // cap, not the end of the space, stops it.
    let mut c = Config::new(3, 1, 1, 1);
    c.delays = 1;
    let opts = RunOpts {
        threads: 2,
        max_memory: 1,
        ..RunOpts::default()
    };
    let r = run_named("kernel", c, &opts).unwrap();
    println!("{}", r.text());
    let why = r.stopped.as_deref().expect("the cap stops the run");
    assert!(why.starts_with("memory cap"), "{why}");
    assert!(!r.complete);
    assert!(r.all_hold(), "{}", r.text());
    assert!(
        r.checked <= r.states && r.states < 1_000_000,
        "{}",
        r.text()
    );
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(v["complete"], false);
    assert!(v["stopped"].as_str().unwrap().starts_with("memory cap"));
    assert!(r.text().contains("stopped (memory cap"));
}

/// A run stopped (here by its time budget) after a property failed in
/// the part it explored: the report keeps that counterexample, a path the
/// model replays, and says the run stopped.
#[test]
fn a_stopped_run_keeps_the_counterexample_it_found() {
    // `current` loses liveness within a few actions (a silent replica);
    // its whole space takes several seconds more than the budget.
    let mut c = Config::new(3, 2, 1, 4);
    c.delays = 1;
    let opts = RunOpts {
        threads: 2,
        max_time: Some(std::time::Duration::from_secs(2)),
        ..RunOpts::default()
    };
    let r = run_named("current", c, &opts).unwrap();
    println!("{}", r.text());
    assert!(r.stopped.as_deref().unwrap().starts_with("time budget"));
    assert!(!r.complete);
    assert!(r.property("agreement").holds);
    let live = r.property("live_with_f_silent");
    assert!(!live.holds, "{}", r.text());
    let ce = live.counterexample.as_ref().unwrap();
    assert!(ce.iter().any(|l| l.contains("terminal")), "{}", r.text());
}

/// A leader proposes each client value once (R1's buffer), so a run needs
/// a value per slot: `Config::new` gives max(2, S), and with it a run at
/// the largest S, all replicas live and timely, decides every slot on the
/// fast path in view 0 instead of ending at the view bound with its last
/// slots empty (which `live_with_f_silent` would excuse).
#[test]
fn every_slot_has_a_client_value_to_decide() {
    use stateright::Model;
    use ubft_model::model::{UbftModel, MAX_SLOTS};
    use ubft_model::recovery::{Recovery, Variant};
    for s in 1..=MAX_SLOTS {
        assert!(Config::new(3, s, 1, 0).values as usize >= s);
    }
    let mut c = Config::new(3, MAX_SLOTS, 2, 0);
    c.silent = 0;
    c.delays = 0;
    c.early_timeouts = 0;
    let m = UbftModel::new(
        Recovery {
            variant: Variant::by_name("kernel").unwrap(),
        },
        c,
    );
    // Always the first enabled action: a timely run with no timeout early.
    let mut st = m.init_states()[0].clone();
    loop {
        let mut acts = vec![];
        m.actions(&st, &mut acts);
        let Some(a) = acts.into_iter().next() else {
            break;
        };
        st = m.next_state(&st, a).unwrap();
    }
    for (id, r) in st.reps.iter().enumerate() {
        let decided: Vec<u8> = r.log[..r.nlog as usize].iter().map(|d| d.0).collect();
        assert_eq!(
            decided,
            (1..=MAX_SLOTS as u8).collect::<Vec<_>>(),
            "r{id} decides every slot in order: {r:?}"
        );
        assert_eq!(r.view, 0, "r{id}: no view change in a timely run");
    }
}
