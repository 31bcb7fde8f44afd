//! The controller's state numbers: what each block reports in `sts_state`,
//! `status::STATE_NAMES` (what the host reads), and the state tables of
//! the docs and the blocks' headers, all tied together.

use rhdl_ubft::controller::fast::{Fast, FAST_STATES};
use rhdl_ubft::controller::leader::{Leader, LEADER_STATES};
use rhdl_ubft::controller::protocol::{Protocol, PROTOCOL_STATES};
use rhdl_ubft::controller::slow::{Slow, SLOW_STATES};
use rhdl_ubft::controller::status::STATE_NAMES;
use rhdl_ubft::controller::view::{View, VIEW_STATES};
use rhdl_ubft::params::N;
use std::collections::BTreeMap;
use std::path::Path;

/// (machine, state name, number reported) for every state of every block,
/// read from the blocks' logic; `None` for a machine's Off and Protocol's
/// Run, which report 0 and name no state.
fn reported() -> Vec<(&'static str, String, Option<u8>)> {
    let mut v = vec![];
    let mut add = |machine, name: String, n: u8, idle: bool| {
        if idle {
            assert_eq!(n, 0, "{machine} {name} reports {n}, not 0");
            v.push((machine, name, None));
        } else {
            v.push((machine, name, Some(n)));
        }
    };
    for st in PROTOCOL_STATES {
        let name = format!("{st:?}");
        add(
            "protocol",
            name.clone(),
            Protocol::<N>::reported(st),
            name == "Run",
        );
    }
    for st in LEADER_STATES {
        add(
            "leader",
            format!("{st:?}"),
            Leader::reported(st),
            format!("{st:?}") == "Off",
        );
    }
    for st in FAST_STATES {
        add(
            "fast",
            format!("{st:?}"),
            Fast::reported(st),
            format!("{st:?}") == "Off",
        );
    }
    for st in SLOW_STATES {
        add(
            "slow",
            format!("{st:?}"),
            Slow::reported(st),
            format!("{st:?}") == "Off",
        );
    }
    for st in VIEW_STATES {
        add(
            "view",
            format!("{st:?}"),
            View::reported(st),
            format!("{st:?}") == "Off",
        );
    }
    v
}

#[test]
fn every_state_reports_the_number_state_names_gives_it() {
    let mut seen = BTreeMap::new();
    for (machine, name, n) in reported() {
        let Some(n) = n else { continue };
        assert_eq!(
            STATE_NAMES.get(n as usize).copied(),
            Some(name.as_str()),
            "{machine} {name} reports {n}"
        );
        assert!(seen.insert(n, name.clone()).is_none(), "{n} reported twice");
    }
    // Every name is some block's state, each once; the numbers no state
    // reports have no name.
    let named: Vec<String> = STATE_NAMES
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .collect();
    assert_eq!(seen.values().cloned().collect::<Vec<_>>(), named);
    for (i, s) in STATE_NAMES.iter().enumerate() {
        assert_eq!(s.is_empty(), !seen.contains_key(&(i as u8)), "number {i}");
    }
}

/// The rows of the state tables (header `| # | state | ...`) in a doc page
/// or a source file's header (`//! | # | state | ...`).
fn table_rows(path: &Path) -> Vec<(u8, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rows = vec![];
    let mut in_table = false;
    for l in text.lines() {
        let l = l.trim_start_matches("//!").trim();
        if !l.starts_with('|') {
            in_table = false;
            continue;
        }
        let cells: Vec<&str> = l.split('|').map(str::trim).collect();
        if cells.len() < 4 {
            continue;
        }
        if cells[1] == "#" {
            in_table = cells[2] == "state";
        } else if in_table {
            if let Ok(n) = cells[1].parse::<u8>() {
                rows.push((n, cells[2].trim_matches('`').to_string()));
            }
        }
    }
    rows
}

#[test]
fn the_state_tables_of_the_docs_and_the_headers_match_the_blocks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let by_machine = |m: &str| -> Vec<(u8, String)> {
        reported()
            .into_iter()
            .filter(|(machine, _, n)| *machine == m && n.is_some())
            .map(|(_, name, n)| (n.unwrap(), name))
            .collect()
    };
    let all: Vec<(u8, String)> = STATE_NAMES
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(i, s)| (i as u8, s.to_string()))
        .collect();
    let pages = [
        ("../../docs/protocol.md", None),
        ("../../docs/leader.md", Some("leader")),
        ("../../docs/fast.md", Some("fast")),
        ("../../docs/slow.md", Some("slow")),
        ("../../docs/view.md", Some("view")),
        ("src/controller/protocol.rs", Some("protocol")),
        ("src/controller/leader.rs", Some("leader")),
        ("src/controller/fast.rs", Some("fast")),
        ("src/controller/slow.rs", Some("slow")),
        ("src/controller/view.rs", Some("view")),
    ];
    for (file, machine) in pages {
        let rows = table_rows(&root.join(file));
        for (n, name) in &rows {
            assert_eq!(
                STATE_NAMES.get(*n as usize).copied(),
                Some(name.as_str()),
                "{file}: row {n} {name}"
            );
        }
        // Every state of the page's machine (all of them on protocol.md) has a row.
        let want = match machine {
            None => all.clone(),
            Some(m) => by_machine(m),
        };
        for w in &want {
            assert!(rows.contains(w), "{file}: no row for {} {}", w.0, w.1);
        }
    }
}

#[test]
fn the_hdl_literals_match_the_layout() {
    // Every numeric literal inside the protocol blocks' `#[hdl_gen]` code
    // (record shifts and sizes, the tag's masks and shifts, Tally's and
    // Choose's lane offsets) is checked against the layout and params
    // constants it stands for; a layout change without the literals fails
    // here (and at every Protocol's construction).
    rhdl_ubft::controller::literals::check_literals::<N>();
    rhdl_ubft::controller::literals::check_literals::<3>();
    // The tag those literals build is vote_tag's.
    use rhdl_ubft::params::{vote_tag, TAG_K_BITS, TAG_K_MASK, TAG_VIEW_MASK};
    for (view, k) in [
        (0, 1),
        (0xff, 0x00ff_ffff),
        (0x1_02, 0x0100_0003),
        (7, 1 << 24),
    ] {
        let t = vote_tag(view, k);
        assert_eq!(t >> TAG_K_BITS, view & TAG_VIEW_MASK);
        assert_eq!(t & TAG_K_MASK, k & TAG_K_MASK);
        assert_eq!(t, ((view & 0xff) << 24) | (k & 0x00ff_ffff));
    }
}

#[test]
fn the_record_literals_match_the_layout() {
    // Protocol's prepare a beat (slot << 4, quarter 0, prev at bit
    // 96) and the vote rows, for the default build and the smallest.
    rhdl_ubft::controller::literals::check_record_literals::<N>();
    rhdl_ubft::controller::literals::check_record_literals::<3>();
}
