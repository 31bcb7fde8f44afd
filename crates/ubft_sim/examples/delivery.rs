//! The same random scenarios (`Scenario::random`, what `cargo xtask soak`
//! runs) with every write through the kernels' guards (`Delivery::Kernel`,
//! the default) and with the network model writing HBM directly
//! (`Delivery::Model`, the behaviour before the guard was wired in). The
//! writes that land are the same either way (the guards agree with the
//! model's rule, checked on every write); only when they land differs, by
//! the guard's few cycles. So a check that fails under one delivery and not
//! the other is a timing effect of the protocol, not the guard's.
//!
//!     cargo run --release -p ubft_sim --example delivery -- 1358 2237 2946
//!     cargo run --release -p ubft_sim --example delivery -- scenarios/v2/lie_vc.toml
//!
//! Prints, per seed or scenario file, the checks under each delivery, the
//! decisions per replica and the failures.

use ubft_sim::backend::Backend;
use ubft_sim::models::network::Delivery;
use ubft_sim::scenario::Scenario;

fn main() {
    for arg in std::env::args().skip(1) {
        let (seed, s) = if arg.ends_with(".toml") {
            let s = Scenario::from_file(std::path::Path::new(&arg)).expect("a scenario file");
            (arg.clone(), s)
        } else {
            let seed: u64 = arg.parse().expect("a seed or a .toml file");
            (arg.clone(), Scenario::random(seed, 40_000))
        };
        for delivery in [Delivery::Kernel, Delivery::Model] {
            let mut c = s.cluster(Backend::Verilator).expect("a valid scenario");
            c.net.set_delivery(delivery);
            let r = c.run().expect("the run");
            println!(
                "seed {seed} {delivery:?}: ok {} (agreement {}, validity {}, order {}, guard {}), {} cycles, decided {:?}; {}",
                r.checks.ok(),
                r.checks.agreement,
                r.checks.validity,
                r.checks.order,
                r.checks.guard,
                r.cycles,
                r.replicas.iter().map(|x| x.decided.len()).collect::<Vec<_>>(),
                r.checks.failures.join("; ")
            );
        }
    }
}
