use ubft_model::{run_named, Config, RunOpts};
fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let mut cfg = Config::new(a[0], a[1], a[2], a[3] as u8);
    cfg.values = a[4] as u8;
    cfg.silent = a[5];
    cfg.early_timeouts = a[6] as u8;
    cfg.delays = a[7] as u8;
    if a.len() > 10 {
        cfg.byzantine = Some(a[9]);
        cfg.byz_writes = a[10] as u8;
    }
    let r = run_named("current", cfg, &RunOpts { threads: 1, max_states: a.get(8).copied().unwrap_or(0) }).unwrap();
    print!("{}", r.text());
}
