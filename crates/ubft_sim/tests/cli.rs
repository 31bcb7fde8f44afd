//! `rhdl-ubft simulate --threads`: refused at 0 with a clear message, and
//! the same report (byte for byte) on one thread and on two;
//! `rhdl-ubft layout --version v3` and `--version v4`: the kernel's layout
//! and the wide one.

use std::process::Command;

fn simulate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rhdl-ubft"))
        .arg("simulate")
        .args(args)
        .output()
        .expect("rhdl-ubft runs")
}

#[test]
fn zero_threads_is_refused() {
    let out = simulate(&["--replicas", "3", "--slots", "2", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--threads must be at least 1"), "{err}");
}

#[test]
fn one_thread_and_two_print_the_same_report() {
    let run = |t: &str| {
        let out = simulate(&[
            "--replicas",
            "3",
            "--slots",
            "6",
            "--seed",
            "4",
            "--net-latency",
            "60",
            "--json",
            "--quiet",
            "--threads",
            t,
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let (one, two) = (run("1"), run("2"));
    assert!(!one.is_empty());
    assert_eq!(String::from_utf8_lossy(&one), String::from_utf8_lossy(&two));
}

#[test]
fn cluster_prints_the_recoverys_regions_as_the_library_places_them() {
    use rhdl_ubft::layout::{Mailbox, Region};
    let out = Command::new(env!("CARGO_BIN_EXE_rhdl-ubft"))
        .args([
            "layout",
            "--replicas",
            "3",
            "--window",
            "4",
            "--version",
            "v3",
            "--json",
        ])
        .output()
        .expect("rhdl-ubft runs");
    assert_eq!(out.status.code(), Some(0));
    let json = String::from_utf8_lossy(&out.stdout);
    assert_eq!(json.trim(), Mailbox::v3(3, 4, 1).to_json());
    assert!(json.contains("\"version\": \"v3\""), "{json}");
    for r in Region::ALL {
        assert!(
            json.contains(&format!("\"name\": \"{}\"", r.name())),
            "{json}"
        );
    }
    assert!(!json.contains("\"vc\""), "v3 has no vc: {json}");
}

#[test]
fn layout_prints_v4_with_its_ckpt_region_and_four_word_votes() {
    use rhdl_ubft::layout::{Mailbox, Region};
    let run = |json: bool| {
        let mut args = vec![
            "layout",
            "--replicas",
            "5",
            "--window",
            "16",
            "--version",
            "v4",
        ];
        if json {
            args.push("--json");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_rhdl-ubft"))
            .args(&args)
            .output()
            .expect("rhdl-ubft runs");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mb = Mailbox::v4(5, 16, 1);
    let json = run(true);
    assert_eq!(json.trim(), mb.to_json());
    assert!(json.contains("\"version\": \"v4\""), "{json}");
    for r in Region::V4 {
        assert!(
            json.contains(&format!("\"name\": \"{}\"", r.name())),
            "{json}"
        );
    }
    let table = run(false);
    assert!(table.contains("| ckpt |"), "{table}");
    assert!(
        table.contains("node·4 + {0..=2: tag(v, k), 3: m}, R = 32"),
        "{table}"
    );
}
