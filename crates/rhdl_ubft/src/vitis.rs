//! Vitis: the kernel's bus interfaces, and the packaging files rendered from
//! them and from the register map (`regs`).
//!
//! [`INTERFACES`] is the one list of the kernel's Vitis-visible interfaces
//! (names, widths, direction). It renders `vivado/kernel.xml`
//! ([`kernel_xml`]) and `vivado/package_kernel.tcl` ([`package_kernel_tcl`]),
//! and the tests check it against the ports of the generated top module:
//! every interface's ports are there with their widths, and every port of the
//! top belongs to an interface or to [`SIDEBAND`].
//!
//! The signer streams' widths (512-bit TDATA; requests with TKEEP, TLAST and
//! a 16-bit TUSER, responses with TLAST and an 8-bit TUSER) follow the
//! kernel top as it is being wired; they are provisional until the signer
//! kernel is designed: change the `SREQ_*`/`SRESP_*` constants here (the
//! tests compare them with the top's port widths).

use crate::io::roce::{CQ_BITS, SQ_BITS, WR_CMD_BITS, WR_DATA_BITS};
use crate::io::rx_status::STS_BITS;
use crate::params::BEAT_BITS;
use crate::regs::{self, Access};

/// The kernel (and top module) name.
pub const KERNEL: &str = "rhdl_ubft";
/// IP-XACT vendor of the packaged kernel.
pub const VENDOR: &str = "rhdl-ubft.org";
/// The kernel clock the package declares (`FREQ_HZ`); v++ --kernel_frequency may override.
pub const FREQ_HZ: u64 = crate::params::defaults::KERNEL_MHZ * 1_000_000;
/// The U280 part, for the packaging project.
pub const PART: &str = "xcu280-fsvh2892-2L-e";
/// The Vitis platform.
pub const PLATFORM: &str = "xilinx_u280_gen3x16_xdma_1_202211_1";

/// SignerPort request/response TDATA bits (one 512-bit beat).
pub const SIGNER_TDATA_BITS: usize = BEAT_BITS;
/// SignerPort request TUSER bits.
pub const SREQ_TUSER_BITS: usize = 16;
/// SignerPort response TUSER bits.
pub const SRESP_TUSER_BITS: usize = 8;

/// What kind of interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// AXI4-Lite slave (`s_axi_control`).
    AxiLiteSlave,
    /// AXI4 master, addressable memory.
    AxiMaster { data_bits: usize, addr_bits: usize },
    /// AXI4 master with write channels only (AW, W, B): `m_axi_rx`.
    AxiWriteMaster { data_bits: usize, addr_bits: usize },
    /// AXI4-Stream out of the kernel.
    StreamOut(Stream),
    /// AXI4-Stream into the kernel.
    StreamIn(Stream),
}

/// An AXI4-Stream's optional signals.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    pub tdata_bits: usize,
    /// 0: no TUSER.
    pub tuser_bits: usize,
    pub tkeep: bool,
    pub tlast: bool,
}

const fn stream(tdata_bits: usize, tuser_bits: usize, tkeep: bool, tlast: bool) -> Stream {
    Stream {
        tdata_bits,
        tuser_bits,
        tkeep,
        tlast,
    }
}

/// One Vitis bus interface of the kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    pub name: &'static str,
    pub kind: Kind,
    /// The kernel.xml argument name for a stream (its C-side name).
    pub arg: &'static str,
    pub desc: &'static str,
}

/// The kernel's interfaces, in kernel.xml order.
pub const INTERFACES: [Interface; 14] = [
    Interface {
        name: "s_axi_control",
        kind: Kind::AxiLiteSlave,
        arg: "",
        desc: "registers (docs/registers.md)",
    },
    Interface {
        name: "m_axi_hbm",
        kind: Kind::AxiMaster {
            data_bits: BEAT_BITS,
            addr_bits: 64,
        },
        arg: "network_ptr",
        desc: "HBM: mailbox polls (read bursts) and local writes",
    },
    Interface {
        name: "m_axi_rx",
        kind: Kind::AxiWriteMaster {
            data_bits: BEAT_BITS,
            addr_bits: 64,
        },
        arg: "network_ptr",
        desc: "HBM: the peers' RDMA WRITEs the guard accepted (same buffer as m_axi_hbm)",
    },
    Interface {
        name: "m_axis_sq",
        kind: Kind::StreamOut(stream(SQ_BITS, 0, false, false)),
        arg: "sq",
        desc: "RoCE send queue: RDMA WRITE commands (roce.rs)",
    },
    Interface {
        name: "s_axis_cq",
        kind: Kind::StreamIn(stream(CQ_BITS, 0, false, false)),
        arg: "cq",
        desc: "RoCE completions (roce.rs)",
    },
    Interface {
        name: "s_axis_rx_cmd",
        kind: Kind::StreamIn(stream(WR_CMD_BITS, 0, false, false)),
        arg: "rx_cmd",
        desc: "RoCE receive path: memory-write commands of incoming RDMA WRITEs (roce.rs WrCommand), into the guard",
    },
    Interface {
        name: "s_axis_rx_data",
        kind: Kind::StreamIn(stream(WR_DATA_BITS, 0, true, true)),
        arg: "rx_data",
        desc: "RoCE receive path: their payloads, into the guard",
    },
    Interface {
        name: "m_axis_rx_sts",
        kind: Kind::StreamOut(stream(STS_BITS, 0, false, false)),
        arg: "rx_sts",
        desc: "RoCE receive path: a status per incoming write once it is refused or in HBM (rx_status.rs), for the stack's ACK",
    },
    Interface {
        name: "s_axis_tx_cmd",
        kind: Kind::StreamIn(stream(WR_CMD_BITS, 0, false, false)),
        arg: "tx_cmd",
        desc: "RoCE send path: the stack's memory-read commands for staged payloads (host = 1; roce.rs WrCommand), into Stage",
    },
    Interface {
        name: "m_axis_tx_data",
        kind: Kind::StreamOut(stream(WR_DATA_BITS, 0, true, true)),
        arg: "tx_data",
        desc: "RoCE send path: the staged payloads, to the stack (stage.rs)",
    },
    Interface {
        name: "s_axis_prop",
        kind: Kind::StreamIn(stream(32, 0, false, false)),
        arg: "prop",
        desc: "proposals m (the leader takes one per slot)",
    },
    Interface {
        name: "m_axis_dec",
        kind: Kind::StreamOut(stream(64, 1, false, false)),
        arg: "dec",
        desc: "decisions (k, m); tuser 1 = slow path",
    },
    Interface {
        name: "m_axis_sreq",
        kind: Kind::StreamOut(stream(SIGNER_TDATA_BITS, SREQ_TUSER_BITS, true, true)),
        arg: "sreq",
        desc: "signer requests (provisional widths)",
    },
    Interface {
        name: "s_axis_sresp",
        kind: Kind::StreamIn(stream(SIGNER_TDATA_BITS, SRESP_TUSER_BITS, false, true)),
        arg: "sresp",
        desc: "signer responses (provisional widths)",
    },
];

/// Top-level ports that are not part of any interface but belong to the
/// kernel: the clock, the reset and the interrupt.
pub const SIDEBAND: [&str; 3] = ["ap_clk", "ap_rst_n", "interrupt"];

/// The top-level port names an interface needs.
pub fn port_names(i: &Interface) -> Vec<String> {
    let p = i.name;
    let sfx: Vec<&str> = match i.kind {
        Kind::AxiLiteSlave => vec![
            "awaddr", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp",
            "bvalid", "bready", "araddr", "arvalid", "arready", "rdata", "rresp", "rvalid",
            "rready",
        ],
        Kind::AxiMaster { .. } => vec![
            "araddr", "arlen", "arsize", "arburst", "arvalid", "arready", "rdata", "rresp",
            "rlast", "rvalid", "rready", "awaddr", "awlen", "awsize", "awburst", "awvalid",
            "awready", "wdata", "wstrb", "wlast", "wvalid", "wready", "bresp", "bvalid", "bready",
        ],
        Kind::AxiWriteMaster { .. } => vec![
            "awaddr", "awlen", "awsize", "awburst", "awvalid", "awready", "wdata", "wstrb",
            "wlast", "wvalid", "wready", "bresp", "bvalid", "bready",
        ],
        Kind::StreamOut(st) | Kind::StreamIn(st) => {
            let mut v = vec!["tdata", "tvalid", "tready"];
            if st.tuser_bits > 0 {
                v.push("tuser");
            }
            if st.tkeep {
                v.push("tkeep");
            }
            if st.tlast {
                v.push("tlast");
            }
            v
        }
    };
    sfx.iter().map(|s| format!("{p}_{s}")).collect()
}

/// The port names of `module rhdl_ubft(` in generated Verilog.
pub fn top_ports(verilog: &str) -> Vec<String> {
    let start = verilog
        .find(&format!("module {KERNEL}("))
        .expect("no `module rhdl_ubft(` in the Verilog");
    let rest = &verilog[start + KERNEL.len() + 8..];
    let end = rest.find(')').expect("unterminated port list");
    rest[..end]
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `vivado/kernel.xml`: the kernel description `package_xo -kernel_xml` reads.
pub fn kernel_xml() -> String {
    let mut s = String::new();
    s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    s += "<!-- Generated by `cargo xtask vivado` from crates/rhdl_ubft/src/{regs,vitis}.rs; do not edit. -->\n";
    s += "<root versionMajor=\"1\" versionMinor=\"6\">\n";
    s += &format!(
        "  <kernel name=\"{KERNEL}\" language=\"ip_c\" vlnv=\"{VENDOR}:RTLKernel:{KERNEL}:1.0\" \
attributes=\"\" preferredWorkGroupSizeMultiple=\"0\" workGroupSize=\"1\" interrupt=\"true\" \
hwControlProtocol=\"ap_ctrl_hs\">\n"
    );
    s += "    <ports>\n";
    for i in &INTERFACES {
        s += &match i.kind {
            Kind::AxiLiteSlave => format!(
                "      <port name=\"{}\" mode=\"slave\" range=\"0x{:X}\" dataWidth=\"32\" portType=\"addressable\" base=\"0x0\"/>\n",
                i.name,
                regs::RANGE
            ),
            Kind::AxiMaster { data_bits, .. } | Kind::AxiWriteMaster { data_bits, .. } => format!(
                "      <port name=\"{}\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" dataWidth=\"{data_bits}\" portType=\"addressable\" base=\"0x0\"/>\n",
                i.name
            ),
            Kind::StreamOut(st) => format!(
                "      <port name=\"{}\" mode=\"write_only\" dataWidth=\"{}\" portType=\"stream\"/>\n",
                i.name, st.tdata_bits
            ),
            Kind::StreamIn(st) => format!(
                "      <port name=\"{}\" mode=\"read_only\" dataWidth=\"{}\" portType=\"stream\"/>\n",
                i.name, st.tdata_bits
            ),
        };
    }
    s += "    </ports>\n    <args>\n";
    let mut id = 0;
    for (name, off, r) in regs::expanded() {
        if r.access != Access::Arg {
            continue;
        }
        if r.bits > 32 {
            // The pointer: its memory is behind m_axi_hbm.
            s += &format!(
                "      <arg name=\"{name}\" addressQualifier=\"1\" id=\"{id}\" port=\"m_axi_hbm\" size=\"0x8\" offset=\"0x{off:03X}\" type=\"void*\" hostOffset=\"0x0\" hostSize=\"0x8\"/>\n"
            );
        } else {
            s += &format!(
                "      <arg name=\"{name}\" addressQualifier=\"0\" id=\"{id}\" port=\"s_axi_control\" size=\"0x4\" offset=\"0x{off:03X}\" type=\"uint\" hostOffset=\"0x0\" hostSize=\"0x4\"/>\n"
            );
        }
        id += 1;
    }
    for i in &INTERFACES {
        let (bits, user) = match i.kind {
            Kind::StreamOut(st) | Kind::StreamIn(st) => (st.tdata_bits, st.tuser_bits),
            _ => continue,
        };
        let ty = xml_escape(&format!("stream<ap_axiu<{bits},{user},0,0>>&"));
        s += &format!(
            "      <arg name=\"{}\" addressQualifier=\"4\" id=\"{id}\" port=\"{}\" size=\"0x8\" offset=\"0x0\" type=\"{ty}\" hostOffset=\"0x0\" hostSize=\"0x8\" memSize=\"{}\" origName=\"{}\" origUse=\"variable\"/>\n",
            i.arg,
            i.name,
            bits / 8,
            i.arg
        );
        id += 1;
    }
    s += "    </args>\n  </kernel>\n</root>\n";
    s
}

/// `vivado/package_kernel.tcl`: packages rtl/rhdl_ubft.v as a Vitis RTL
/// kernel IP. Sourced by gen_xo.tcl with `$rtl_file` and `$ip_dir` set.
pub fn package_kernel_tcl() -> String {
    let mut s = String::new();
    s += "# Generated by `cargo xtask vivado` from crates/rhdl_ubft/src/{regs,vitis}.rs; do not edit.\n";
    s += "# Packages the kernel Verilog as a Vitis RTL kernel (UG1393 \"Package the RTL Code as a Vivado IP\").\n";
    s += "# Sourced by gen_xo.tcl, which sets rtl_file (the Verilog) and ip_dir (the IP output folder).\n\n";
    s += &format!("set kernel {KERNEL}\nset part {PART}\nset freq_hz {FREQ_HZ}\n\n");
    s += "create_project -force kernel_pack ./tmp_kernel_pack -part $part\n";
    s += "add_files -norecurse $rtl_file\n";
    s += "set_property top $kernel [current_fileset]\n";
    s += "update_compile_order -fileset sources_1\n";
    s += &format!(
        "ipx::package_project -root_dir $ip_dir -vendor {VENDOR} -library RTLKernel -taxonomy /KernelIP -import_files -set_current false\n"
    );
    s += "ipx::unload_core $ip_dir/component.xml\n";
    s += "ipx::edit_ip_in_project -upgrade true -name tmp_edit_project -directory $ip_dir $ip_dir/component.xml\n";
    s += "set core [ipx::current_core]\n";
    s += "set_property core_revision 1 $core\n";
    s += "foreach up [ipx::get_user_parameters -of_objects $core] {\n  ipx::remove_user_parameter [get_property NAME $up] $core\n}\n\n";
    s += "# Bus interfaces (inferred from the <prefix>_<signal> port names) on ap_clk.\n";
    for i in INTERFACES.iter() {
        s += &format!(
            "ipx::associate_bus_interfaces -busif {} -clock ap_clk $core\n",
            i.name
        );
    }
    s += "ipx::associate_bus_interfaces -clock ap_clk -reset ap_rst_n $core\n";
    s += "set clkif [ipx::get_bus_interfaces -of_objects $core ap_clk]\n";
    s += "set freq [ipx::get_bus_parameters -quiet FREQ_HZ -of_objects $clkif]\n";
    s += "if {$freq eq \"\"} { set freq [ipx::add_bus_parameter FREQ_HZ $clkif] }\n";
    s += "set_property value $freq_hz $freq\n\n";
    s += "# s_axi_control's memory map.\n";
    s += "set mem_map [::ipx::add_memory_map -quiet s_axi_control $core]\n";
    s += "set addr_block [::ipx::add_address_block -quiet reg0 $mem_map]\n";
    s += &format!("set_property range 0x{:X} $addr_block\n", regs::RANGE);
    s += &regs::tcl_registers();
    s += "set_property slave_memory_map_ref s_axi_control [::ipx::get_bus_interfaces -of_objects $core s_axi_control]\n\n";
    s += "set_property xpm_libraries {XPM_CDC XPM_MEMORY XPM_FIFO} $core\n";
    s += "set_property sdx_kernel true $core\n";
    s += "set_property sdx_kernel_type rtl $core\n";
    s += "set_property supported_families { } $core\n";
    s += "set_property auto_family_support_level level_2 $core\n";
    s += "ipx::create_xgui_files $core\n";
    s += "ipx::update_checksums $core\n";
    s += "ipx::check_integrity -kernel $core\n";
    s += "ipx::save_core $core\n";
    s += "close_project -delete\n";
    s
}
