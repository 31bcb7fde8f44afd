//! Cluster simulation speed on a backend:
//! `cargo run --release -p ubft_sim --example speed -- verilator 3 200000 [threads]`.
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let backend = a[0].parse().expect("backend");
    let n: usize = a[1].parse().unwrap();
    let cycles: u64 = a[2].parse().unwrap();
    let threads: usize = a.get(3).map_or(1, |t| t.parse().unwrap());
    let (c, s, cpu) =
        ubft_sim::backend::verilator::measure_speed(backend, n, cycles, threads).unwrap();
    let cpu = cpu.map_or("-".to_string(), |r| format!("{r:.0}"));
    println!(
        "{c} cycles on {threads} thread(s), {s:.0} cluster cycles/s (wall), {cpu} per CPU-second"
    );
}
