//! The timeline (`ubft_sim::timeline`): a silent leader's view change drawn
//! as SVG and read back: one arrow per write the network model counted,
//! each dropped write marked, every decision, the view change and every
//! timeout on its lane; and the CLI's `--timeline` with a cycle window.

use rhdl_ubft::controller::status::STATE_NAMES;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use ubft_sim::backend::Backend;
use ubft_sim::scenario::Scenario;
use ubft_sim::timeline::{Timeline, Window};

/// scenarios/silent_leader.toml cut to 3 slots: replica 0 silent from the
/// start, replicas 1 and 2 seal view 0 and replica 1 writes NEW_VIEW(1).
fn silent_leader() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/silent_leader.toml");
    let mut s = Scenario::from_file(&path).unwrap();
    s.slots = 3;
    s.expect_decided = 3;
    s
}

/// The `g` elements of an SVG whose class list holds `class`.
fn groups<'a>(doc: &'a roxmltree::Document, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("g"))
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|x| x == class))
        })
        .collect()
}

fn out(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn a_silent_leaders_view_change_has_an_arrow_per_write_and_every_decision_marked() {
    let mut c = silent_leader().cluster(Backend::Verilator).unwrap();
    c.record_timeline();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    assert!(report.honest().all(|r| r.decided.len() == 3 && r.view == 1));
    let t = Timeline::new(&c, &report).unwrap();
    let path = out("silent_leader.svg");
    std::fs::write(&path, t.svg(Window::ALL)).unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let writes = groups(&doc, "write");
    let counted: u64 = report.network.writes.iter().flatten().sum();
    assert!(counted > 100, "{counted}");
    assert_eq!(writes.len() as u64, counted, "one arrow per network write");
    for src in 0..3 {
        for dst in 0..3 {
            let drawn = writes
                .iter()
                .filter(|g| g.attribute("data-src") == Some(&src.to_string()))
                .filter(|g| g.attribute("data-dst") == Some(&dst.to_string()))
                .count() as u64;
            assert_eq!(drawn, report.network.writes[src][dst], "{src} -> {dst}");
        }
    }
    // Every write of the silent leader is dropped, and none of another's.
    let dropped = groups(&doc, "dropped");
    assert_eq!(
        dropped.len() as u64,
        report.network.writes[0].iter().sum::<u64>()
    );
    assert!(dropped.iter().all(|g| g.attribute("data-src") == Some("0")));
    // Each arrow runs down: it lands L cycles or more after it is sent.
    for g in &writes {
        let at = |a: &str| g.attribute(a).unwrap().parse::<u64>().unwrap();
        assert!(at("data-landing") >= at("data-sent") + 40);
    }
    // Every decision of the report, and only those, marked on its lane.
    let marked: BTreeSet<(usize, u64, u64)> = groups(&doc, "decision")
        .iter()
        .map(|g| {
            let at = |a: &str| g.attribute(a).unwrap().parse::<u64>().unwrap();
            (at("data-replica") as usize, at("data-k"), at("data-cycle"))
        })
        .collect();
    let decided: BTreeSet<(usize, u64, u64)> = report
        .replicas
        .iter()
        .flat_map(|r| r.decided.iter().map(move |d| (r.id, d.k, d.cycle)))
        .collect();
    assert_eq!(marked, decided);
    assert_eq!(decided.len(), 9, "the silent kernel decides too");
    // The view change: both followers seal view 0, replica 1 writes
    // NEW_VIEW(1); the leader's lane is shaded from its first write.
    let views: Vec<String> = groups(&doc, "view-change")
        .iter()
        .map(|g| {
            let r = g.attribute("data-replica").unwrap();
            let label = g.descendants().find(|n| n.has_tag_name("text")).unwrap();
            format!("{r}: {}", label.text().unwrap())
        })
        .collect();
    for want in [
        "1: seals v0: view change",
        "2: seals v0: view change",
        "1: NEW_VIEW v1",
    ] {
        assert!(views.iter().any(|v| v == want), "{want} in {views:?}");
    }
    let faults = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("fault"))
        .map(|n| n.attribute("data-replica").unwrap())
        .collect::<Vec<_>>();
    assert_eq!(faults, ["0"]);
}

#[test]
fn the_cli_draws_a_window_of_the_run() {
    let path = out("silent_leader_window.svg");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/silent_leader.toml");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rhdl-ubft"))
        .args(["simulate", "--quiet", "--max-cycles", "12000", "--scenario"])
        .arg(&scenario)
        .arg("--timeline")
        .arg(&path)
        .args(["--timeline-from", "7000", "--timeline-to", "9000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("timeline: "), "{stderr}");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let writes = groups(&doc, "write");
    assert!(!writes.is_empty());
    for g in writes {
        let sent: u64 = g.attribute("data-sent").unwrap().parse().unwrap();
        assert!((7000..=9000).contains(&sent), "{sent}");
    }
    // Replica 1 decides slot 1 in the window (at cycle 7,4xx).
    assert!(groups(&doc, "decision")
        .iter()
        .any(|g| g.attribute("data-replica") == Some("1") && g.attribute("data-k") == Some("1")));
    // The window's timeouts, read on the CLI's threads, are the ones the
    // same run records in this process (the window's cycles, by replica
    // and state): slot 2's fast path runs out on each replica.
    let timeouts: Vec<(u64, String, String)> = groups(&doc, "timeout")
        .iter()
        .map(|g| {
            (
                g.attribute("data-cycle").unwrap().parse().unwrap(),
                g.attribute("data-replica").unwrap().to_string(),
                g.attribute("data-state").unwrap().to_string(),
            )
        })
        .collect();
    let mut s = Scenario::from_file(&scenario).unwrap();
    s.max_cycles = 12000;
    let mut c = s.cluster(Backend::Verilator).unwrap();
    c.record_timeline();
    c.run().unwrap();
    let mut want: Vec<(u64, String, String)> = c
        .timeout_logs()
        .into_iter()
        .enumerate()
        .flat_map(|(r, l)| {
            l.unwrap()
                .timeouts
                .iter()
                .filter(|t| (7000..=9000).contains(&t.cycle))
                .map(move |t| {
                    let st = STATE_NAMES[t.state.unwrap() as usize].to_string();
                    (t.cycle, r.to_string(), st)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    want.sort();
    let mut got = timeouts.clone();
    got.sort();
    assert_eq!(got, want);
    let lanes: BTreeSet<&str> = timeouts.iter().map(|t| t.1.as_str()).collect();
    assert_eq!(lanes.len(), 3, "a timeout on each replica: {timeouts:?}");
    assert!(
        timeouts.iter().all(|t| t.2.starts_with("FastWait")),
        "the fast path's waits: {timeouts:?}"
    );
}

#[test]
fn every_timeout_is_marked_on_its_replicas_lane() {
    let mut c = silent_leader().cluster(Backend::Verilator).unwrap();
    c.record_timeline();
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    let t = Timeline::new(&c, &report).unwrap();
    let path = out("silent_leader_timeouts.svg");
    std::fs::write(&path, t.svg(Window::ALL)).unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let marks = groups(&doc, "timeout");
    for r in &report.replicas {
        let lane: Vec<(u64, String)> = marks
            .iter()
            .filter(|g| g.attribute("data-replica") == Some(&r.id.to_string()))
            .map(|g| {
                let label = g.descendants().find(|n| n.has_tag_name("text")).unwrap();
                (
                    g.attribute("data-cycle").unwrap().parse().unwrap(),
                    label.text().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            lane.len() as u32,
            r.status.timeouts,
            "replica {}: a mark per step of its timeouts register",
            r.id
        );
        if r.honest {
            assert!(!lane.is_empty(), "replica {} timed out", r.id);
            // The first: the fast path's wait for the silent leader's
            // PREPARE runs out; the counter shows it at cycle 1,023.
            assert_eq!(lane[0], (1023, "timeout in FastWaitPrepare".into()));
        }
    }
}

#[test]
fn both_backends_see_the_same_timeouts() {
    // To past the followers' first timeouts (cycle 1,023) and the silent
    // leader's own (1,055).
    let logs = |b: Backend| {
        let mut s = silent_leader();
        s.max_cycles = 1100;
        let mut c = s.cluster(b).unwrap();
        c.record_timeline();
        c.run().unwrap();
        c.timeout_logs()
            .into_iter()
            .map(|l| {
                l.unwrap()
                    .timeouts
                    .iter()
                    .map(|t| (t.cycle, t.state))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let verilator = logs(Backend::Verilator);
    assert_eq!(verilator, logs(Backend::RustHdl));
    assert!(verilator.iter().all(|l| !l.is_empty()), "{verilator:?}");
}
