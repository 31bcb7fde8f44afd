//! The packaging files against their sources: kernel.xml parses and lists
//! exactly the register table's arguments and the interfaces of
//! `vitis::INTERFACES`; those interfaces match the ports (names and widths)
//! of the generated top module, and every port of the top belongs to one of
//! them or to the sideband (clock, reset, interrupt); the Control block
//! carries `s_axi_control`.

use rhdl_ubft::regs::{self, Access};
use rhdl_ubft::vitis::{self, Kind, INTERFACES, SIDEBAND};
use std::collections::BTreeMap;

/// Port name -> width, from the non-ANSI declarations of `module`.
fn port_widths(verilog: &str, module: &str) -> BTreeMap<String, usize> {
    let start = verilog.find(&format!("module {module}(")).expect("module");
    let body = &verilog[start..];
    let body = &body[..body.find("endmodule").unwrap()];
    let mut m = BTreeMap::new();
    for line in body.lines() {
        let t = line.trim();
        if !(t.starts_with("input ") || t.starts_with("output ")) {
            continue;
        }
        let t = t.trim_end_matches(';');
        let width = match (t.find('['), t.find(':')) {
            (Some(a), Some(b)) if b > a => t[a + 1..b].trim().parse::<usize>().unwrap() + 1,
            _ => 1,
        };
        let name = t.split_whitespace().last().unwrap().to_string();
        m.insert(name, width);
    }
    m
}

fn stream_widths(k: &Kind) -> Vec<(&'static str, usize)> {
    match k {
        Kind::StreamOut(s) | Kind::StreamIn(s) => {
            let mut v = vec![("tdata", s.tdata_bits), ("tvalid", 1), ("tready", 1)];
            if s.tuser_bits > 0 {
                v.push(("tuser", s.tuser_bits));
            }
            if s.tkeep {
                v.push(("tkeep", s.tdata_bits / 8));
            }
            if s.tlast {
                v.push(("tlast", 1));
            }
            v
        }
        Kind::AxiMaster {
            data_bits,
            addr_bits,
        } => vec![
            ("araddr", *addr_bits),
            ("awaddr", *addr_bits),
            ("rdata", *data_bits),
            ("wdata", *data_bits),
            ("wstrb", data_bits / 8),
        ],
        Kind::AxiWriteMaster {
            data_bits,
            addr_bits,
        } => vec![
            ("awaddr", *addr_bits),
            ("wdata", *data_bits),
            ("wstrb", data_bits / 8),
        ],
        Kind::AxiLiteSlave => vec![
            ("awaddr", regs::ADDR_BITS),
            ("araddr", regs::ADDR_BITS),
            ("wdata", 32),
            ("rdata", 32),
            ("wstrb", 4),
        ],
    }
}

#[test]
fn kernel_xml_parses_and_matches_the_register_table_and_interfaces() {
    let xml = vitis::kernel_xml();
    let doc = roxmltree::Document::parse(&xml).expect("kernel.xml is well-formed");
    let kernel = doc
        .descendants()
        .find(|n| n.has_tag_name("kernel"))
        .unwrap();
    assert_eq!(kernel.attribute("name"), Some(vitis::KERNEL));
    assert_eq!(kernel.attribute("hwControlProtocol"), Some("ap_ctrl_hs"));
    let ports: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("port"))
        .collect();
    assert_eq!(ports.len(), INTERFACES.len());
    for (p, i) in ports.iter().zip(INTERFACES.iter()) {
        assert_eq!(p.attribute("name"), Some(i.name));
        match i.kind {
            Kind::AxiLiteSlave => {
                assert_eq!(p.attribute("range"), Some("0x1000"));
                assert_eq!(p.attribute("dataWidth"), Some("32"));
            }
            Kind::AxiMaster { data_bits, .. } | Kind::AxiWriteMaster { data_bits, .. } => {
                assert_eq!(p.attribute("mode"), Some("master"));
                assert_eq!(
                    p.attribute("dataWidth"),
                    Some(data_bits.to_string().as_str())
                );
            }
            Kind::StreamOut(s) => {
                assert_eq!(p.attribute("mode"), Some("write_only"));
                assert_eq!(
                    p.attribute("dataWidth"),
                    Some(s.tdata_bits.to_string().as_str())
                );
                assert_eq!(s.tdata_bits % 8, 0, "AXIS tdata is whole bytes");
            }
            Kind::StreamIn(s) => {
                assert_eq!(p.attribute("mode"), Some("read_only"));
                assert_eq!(
                    p.attribute("dataWidth"),
                    Some(s.tdata_bits.to_string().as_str())
                );
                assert_eq!(s.tdata_bits % 8, 0, "AXIS tdata is whole bytes");
            }
        }
    }
    let args: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("arg"))
        .collect();
    let want: Vec<(String, u64, &regs::Reg)> = regs::expanded()
        .into_iter()
        .filter(|r| r.2.access == Access::Arg)
        .collect();
    let streams: Vec<_> = INTERFACES
        .iter()
        .filter(|i| matches!(i.kind, Kind::StreamIn(_) | Kind::StreamOut(_)))
        .collect();
    assert_eq!(args.len(), want.len() + streams.len());
    for (id, a) in args.iter().enumerate() {
        assert_eq!(a.attribute("id"), Some(id.to_string().as_str()));
    }
    for (a, (name, off, r)) in args.iter().zip(want.iter()) {
        assert_eq!(a.attribute("name"), Some(name.as_str()));
        assert_eq!(a.attribute("offset"), Some(format!("0x{off:03X}").as_str()));
        if r.bits > 32 {
            assert_eq!(a.attribute("addressQualifier"), Some("1"));
            assert_eq!(a.attribute("port"), Some("m_axi_hbm"));
        } else {
            assert_eq!(a.attribute("addressQualifier"), Some("0"));
            assert_eq!(a.attribute("port"), Some("s_axi_control"));
        }
    }
    for (a, i) in args[want.len()..].iter().zip(streams.iter()) {
        assert_eq!(a.attribute("addressQualifier"), Some("4"));
        assert_eq!(a.attribute("port"), Some(i.name));
        assert_eq!(a.attribute("name"), Some(i.arg));
    }
}

#[test]
fn interfaces_match_the_top_modules_ports() {
    let v = rhdl_ubft::kernel::verilog::<8>();
    let ports = vitis::top_ports(&v);
    let widths = port_widths(&v, vitis::KERNEL);
    assert_eq!(ports.len(), widths.len());
    let mut claimed = vec![];
    for i in &INTERFACES {
        let names = vitis::port_names(i);
        for p in &names {
            assert!(
                ports.contains(p),
                "{}: port {p} missing from module rhdl_ubft",
                i.name
            );
        }
        for (sfx, w) in stream_widths(&i.kind) {
            let p = format!("{}_{sfx}", i.name);
            assert_eq!(widths[&p], w, "width of {p}");
        }
        claimed.extend(names);
    }
    for p in SIDEBAND {
        assert!(ports.iter().any(|q| q == p), "sideband port {p} missing");
        claimed.push(p.to_string());
    }
    for p in &ports {
        assert!(
            claimed.contains(p),
            "port {p} belongs to no Vitis interface (every kernel port must)"
        );
    }
}

#[test]
fn the_control_block_carries_s_axi_control_and_interrupt() {
    let v = rhdl_ubft::io::control::verilog::<8>();
    let widths = port_widths(&v, "top");
    let axil = INTERFACES
        .iter()
        .find(|i| i.name == "s_axi_control")
        .unwrap();
    for p in vitis::port_names(axil) {
        assert!(widths.contains_key(&p), "Control lacks {p}");
    }
    for (sfx, w) in stream_widths(&axil.kind) {
        assert_eq!(widths[&format!("s_axi_control_{sfx}")], w);
    }
    assert_eq!(widths["interrupt"], 1);
    assert_eq!(widths["qpns"], rhdl_ubft::io::roce::QPNS_BITS);
    assert_eq!(widths["network_ptr"], 64);
}

#[test]
fn the_register_header_compiles_without_clashes() {
    let h = regs::c_header();
    let mut names = std::collections::HashSet::new();
    for l in h.lines().filter(|l| l.starts_with("#define ")) {
        let name = l.split_whitespace().nth(1).unwrap();
        let name = name.split('(').next().unwrap();
        assert!(names.insert(name.to_string()), "{name} defined twice");
    }
}

#[test]
fn package_tcl_registers_every_table_entry() {
    let tcl = vitis::package_kernel_tcl();
    for (name, off, _) in regs::expanded() {
        assert!(
            tcl.contains(&format!("add_register -quiet \"{name}\"")),
            "{name}"
        );
        assert!(
            tcl.contains(&format!("address_offset 0x{off:03X}")),
            "{name} offset"
        );
    }
    for i in &INTERFACES {
        assert!(tcl.contains(&format!("-busif {} -clock ap_clk", i.name)));
    }
}
