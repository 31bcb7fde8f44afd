//! Waveforms (`backend::verilator::trace`): a silent leader's run on the
//! traced Verilator library writes a VCD per replica with every kernel port
//! and the machines' state registers, dumped in the window asked, and a
//! decision shows on `m_axis_dec_tvalid` at ten times its cycle.

use std::path::Path;
use ubft_sim::backend::verilator::trace::{trace_cluster, Window};
use ubft_sim::backend::Backend;
use ubft_sim::scenario::Scenario;
use vcd::{Command, ScopeItem, Value};

/// Every variable under `items`, with its scope path.
fn vars(items: &[ScopeItem], path: &mut Vec<String>, out: &mut Vec<(Vec<String>, vcd::Var)>) {
    for i in items {
        match i {
            ScopeItem::Scope(s) => {
                path.push(s.identifier.clone());
                vars(&s.children, path, out);
                path.pop();
            }
            ScopeItem::Var(v) => out.push((path.clone(), v.clone())),
        }
    }
}

#[test]
fn a_silent_leaders_run_writes_a_vcd_per_replica_with_its_decisions() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/silent_leader.toml");
    let mut s = Scenario::from_file(&path).unwrap();
    s.slots = 2;
    s.expect_decided = 2;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("waves");
    let _ = std::fs::remove_dir_all(&dir);
    let window = Window { from: 0, to: 9_000 };
    let mut c = s.cluster(Backend::Verilator).unwrap();
    let files = trace_cluster(&mut c, &dir, window).unwrap();
    assert_eq!(files.len(), 3);
    let report = c.run().unwrap();
    assert!(report.checks.ok(), "{:?}", report.checks.failures);
    drop(c); // closes the files
    let first = report.replicas[1].decided[0].cycle;
    assert!(first < window.to, "replica 1 decides slot 1 at {first}");

    let f = std::fs::File::open(&files[1]).unwrap();
    let mut p = vcd::Parser::new(std::io::BufReader::new(f));
    let header = p.parse_header().unwrap();
    assert!(header.timescale.is_some());
    let mut all = vec![];
    vars(&header.items, &mut vec![], &mut all);
    let kernel = ["TOP", "ubft_shell", "kernel"];
    let in_kernel = |name: &str| {
        all.iter()
            .find(|(p, v)| p == &kernel && v.reference == name)
            .map(|(_, v)| v.code)
    };
    // Every port of the kernel, as the Verilog declares it.
    for port in ubft_sim::backend::verilator::kernel_ports().unwrap() {
        assert!(in_kernel(&port.name).is_some(), "port {}", port.name);
    }
    // Each machine's state register, in its own scope under the kernel.
    let states = all
        .iter()
        .filter(|(p, v)| p.len() > kernel.len() && p[..3] == kernel && v.reference == "state$q")
        .count();
    assert!(states >= 5, "{states} state registers");
    let dec = in_kernel("m_axis_dec_tvalid").unwrap();
    let (mut now, mut last, mut rose) = (0, 0, None);
    for cmd in p {
        match cmd.unwrap() {
            Command::Timestamp(t) => {
                now = t;
                last = t;
            }
            Command::ChangeScalar(id, Value::V1) if id == dec && rose.is_none() => rose = Some(now),
            _ => {}
        }
    }
    assert_eq!(rose, Some(10 * first), "dec_tvalid rises at 10 x its cycle");
    assert_eq!(
        last,
        10 * window.to + 5,
        "the window's last cycle, clock low"
    );
}
