//! The shipped kernel's Verilog has no glitch loop (`hdl_tools::glitch`):
//! no two `always @(*)` blocks that can wake each other without end at one
//! time step in an event-driven simulator (Icarus, XSim). And the check
//! finds the loop that hung Icarus, put back by hand: Protocol's FAST
//! `votes` (D2's lock count) as a default then an override.

use hdl_tools::glitch;
use rhdl_ubft::{kernel, params::N};

const FIXED: &str = "        if ((phase$q == 32'h1) & ~tally$flags[vote_leader$q]) begin
            fast$votes = tally$votes + 32'h1;
        end
        else begin
            fast$votes = tally$votes;
        end
";

const OVERRIDE: &str = "        fast$votes = tally$votes;
        if ((phase$q == 32'h1) & ~tally$flags[vote_leader$q]) begin
            fast$votes = tally$votes + 32'h1;
        end
";

#[test]
fn the_kernel_has_no_glitch_loop_and_the_check_finds_the_votes_override() {
    let v = kernel::verilog::<N>();
    let loops = glitch::loops(&v).unwrap();
    assert!(
        loops.is_empty(),
        "{}",
        loops.iter().map(|l| l.to_string()).collect::<String>()
    );

    assert_eq!(
        v.matches(FIXED).count(),
        1,
        "Protocol's assignment of fast$votes moved"
    );
    let broken = v.replace(FIXED, OVERRIDE);
    let loops = glitch::loops(&broken).unwrap();
    assert_eq!(loops.len(), 1, "{loops:?}");
    let l = &loops[0];
    assert!(l.blocks.contains(&"top$protocol".to_string()));
    assert!(l.blocks.contains(&"top$protocol$fast".to_string()));
    // Protocol's glitch on FAST's votes wakes FAST, and FAST's on `missed`
    // (a default, then 1 on a miss) wakes Protocol.
    assert!(l
        .edges
        .iter()
        .any(|e| e.from == "top$protocol" && e.signal == "fast$votes" && e.read_as == "votes"));
    assert!(l.edges.iter().any(|e| e.from == "top$protocol$fast"
        && e.signal == "missed"
        && e.read_as == "fast$missed"));
}
