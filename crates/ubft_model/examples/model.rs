//! `cargo xtask model` without building xtask (and so without rebuilding
//! the simulator): the same flags, the same defaults, the same report.
//! `model DESIGN [--replicas N] [--slots S] [--views V] [--window G]
//! [--values K] [--any-value] [--silent X] [--byzantine ID] [--byz-writes B]
//! [--delays D] [--early-timeouts A] [--live-views L] [--threads T]
//! [--max-states M] [--max-depth D] [--dfs] [--por] [--json]`.
//! Exit status as `cargo xtask model`'s: 0 all hold, 1 one fails, 2 cannot run.
use std::process::ExitCode;

use ubft_model::{run_named, Config, RunOpts};

fn main() -> ExitCode {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let Some(design) = a.first().cloned() else {
        eprintln!("usage: model DESIGN [flags of cargo xtask model]");
        return ExitCode::from(2);
    };
    let mut n = 3usize;
    let (mut slots, mut views, mut window, mut values) = (2usize, 2u8, 1usize, None::<u8>);
    let (mut silent, mut byzantine, mut byz_writes) = (None::<usize>, None::<usize>, 4u8);
    let (mut delays, mut early, mut live_views) = (1u8, 0u8, None::<u8>);
    let mut opts = RunOpts {
        threads: 2, // as cargo xtask model
        ..RunOpts::default()
    };
    let (mut any_value, mut json) = (false, false);
    let mut i = 1;
    while i < a.len() {
        let flag = a[i].as_str();
        let val = || a.get(i + 1).cloned().unwrap_or_default();
        let num = || -> usize {
            val()
                .parse()
                .unwrap_or_else(|_| panic!("{flag} takes a number"))
        };
        let mut takes = true;
        match flag {
            "--replicas" => n = num(),
            "--slots" => slots = num(),
            "--views" => views = num() as u8,
            "--window" => window = num(),
            "--values" => values = Some(num() as u8),
            "--silent" => silent = Some(num()),
            "--byzantine" => byzantine = Some(num()),
            "--byz-writes" => byz_writes = num() as u8,
            "--delays" => delays = num() as u8,
            "--early-timeouts" => early = num() as u8,
            "--live-views" => live_views = Some(num() as u8),
            "--threads" => opts.threads = num(),
            "--max-states" => opts.max_states = num(),
            "--max-depth" => opts.max_depth = num(),
            _ => {
                takes = false;
                match flag {
                    "--dfs" => opts.dfs = true,
                    "--por" => opts.por = true,
                    "--any-value" => any_value = true,
                    "--json" => json = true,
                    other => {
                        eprintln!("error: unknown flag {other}");
                        return ExitCode::from(2);
                    }
                }
            }
        }
        i += if takes { 2 } else { 1 };
    }
    let mut cfg = Config::new(n, slots, window, views);
    cfg.values = values.unwrap_or(cfg.values);
    cfg.any_value = any_value;
    cfg.byzantine = byzantine;
    cfg.byz_writes = if byzantine.is_some() { byz_writes } else { 0 };
    cfg.silent = silent.unwrap_or(cfg.f() - byzantine.is_some() as usize);
    cfg.early_timeouts = early;
    cfg.delays = delays;
    if let Some(l) = live_views {
        cfg.live_views = l;
    }
    opts.threads = opts.threads.max(1);
    match run_named(&design, cfg, &opts) {
        Ok(r) => {
            if json {
                println!("{}", r.to_json());
            } else {
                print!("{}", r.text());
            }
            if r.all_hold() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
