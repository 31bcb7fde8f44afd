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
    let e = run_named("recovery", small(), &RunOpts::default()).unwrap_err();
    assert!(e.contains("not yet implemented"), "{e}");
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
