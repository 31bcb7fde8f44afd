// Scratch: random walks through the recovery model, printing the longest.
use stateright::Model;
use ubft_model::model::UbftModel;
use ubft_model::recovery::Recovery;
use ubft_model::Config;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let slots: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(1);
    let views: u8 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(1);
    let silent: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(0);
    let delays: u8 = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(1);
    let mut c = Config::new(3, slots, 1, views);
    c.silent = silent;
    c.delays = delays;
    c.early_timeouts = 0;
    let m = UbftModel::new(Recovery::default(), c);
    let mut seed: u64 = 12345;
    let mut best: Vec<String> = vec![];
    for _ in 0..2000 {
        let mut s = m.init_states()[0].clone();
        let mut lines = vec![];
        loop {
            let mut acts = vec![];
            m.actions(&s, &mut acts);
            if acts.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = acts[(seed >> 33) as usize % acts.len()].clone();
            lines.push(m.describe(&s, &a));
            match m.next_state(&s, a) {
                Some(t) => s = t,
                None => break,
            }
        }
        if lines.len() > best.len() {
            best = lines;
            best.extend(m.describe_state(&s));
        }
    }
    for (i, l) in best.iter().enumerate() {
        println!("{i:3}. {}", &l[..l.len().min(400)]);
    }
}
