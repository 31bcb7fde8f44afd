//! Searches one design for a counterexample to one property (breadth-first,
//! the shortest): `find DESIGN PROPERTY SLOTS VIEWS SILENT DELAYS EARLY
//! [BYZ WRITES [ANY_VALUE]]`.
use ubft_model::{find, Config};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let p = |i: usize| a[i].parse::<usize>().unwrap();
    let mut c = Config::new(3, p(3), 1, p(4) as u8);
    c.silent = p(5);
    c.delays = p(6) as u8;
    c.early_timeouts = p(7) as u8;
    if a.len() > 9 {
        c.byzantine = Some(p(8));
        c.byz_writes = p(9) as u8;
    }
    c.any_value = a.len() > 10;
    let v = ubft_model::recovery::Variant::by_name(&a[1]).expect("a recovery variant");
    let prop: &'static str = Box::leak(a[2].clone().into_boxed_str());
    let t = std::time::Instant::now();
    let (ce, states) = find(
        ubft_model::recovery::Recovery { variant: v },
        c,
        prop,
        20_000_000,
    );
    println!("{} states, {:.1} s", states, t.elapsed().as_secs_f64());
    match ce {
        Some(ce) => ce.iter().for_each(|l| println!("{l}")),
        None => println!("no counterexample"),
    }
}
