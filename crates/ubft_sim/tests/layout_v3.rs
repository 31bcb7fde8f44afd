//! Layout v3 in the simulator: the `layout` key of a configuration, a
//! scenario and the CLI (v2 by default, v1 refused, Byzantine replicas
//! refused on v3), the network model's v3 rule (the guard's reference), and
//! a v3 cluster on the fast path.

use rhdl_ubft::guard::Refusal;
use rhdl_ubft::layout::{field3, Mailbox, Region, Version};
use rhdl_ubft::params::{G, N as BUILD_N, SB};
use std::process::Command;
use ubft_sim::cluster::{parse_layout, ClusterConfig, SimError, V1_REFUSED, V3_BYZANTINE};
use ubft_sim::hbm::Hbm;
use ubft_sim::network::{Delivery, Network, RefuseReason, Write};
use ubft_sim::scenario::{Scenario, BYZANTINE_KINDS};

#[test]
fn the_layout_is_v2_unless_asked_and_v1_is_refused() {
    assert_eq!(ClusterConfig::new(3, 1).layout, Version::V2);
    assert_eq!(ClusterConfig::quick(3, 1).layout, Version::V2);
    assert_eq!(parse_layout("v2"), Ok(Version::V2));
    assert_eq!(parse_layout("v3"), Ok(Version::V3));
    assert_eq!(parse_layout("v1"), Err(V1_REFUSED.to_string()));
    let err = parse_layout("v4").unwrap_err();
    assert!(err.contains("unknown layout \"v4\""), "{err}");
    let cfg = ClusterConfig {
        layout: Version::V1,
        ..ClusterConfig::quick(3, 1)
    };
    assert_eq!(cfg.validate(), Err(SimError::Invalid(V1_REFUSED.into())));
    let cfg = ClusterConfig {
        layout: Version::V3,
        ..ClusterConfig::quick(3, 1)
    };
    assert_eq!(cfg.validate(), Ok(()));
    assert_eq!(cfg.mailbox(), Mailbox::v3(BUILD_N, G, SB));
    assert_eq!(
        ClusterConfig::quick(3, 1).mailbox(),
        Mailbox::v2(BUILD_N, G, SB)
    );
}

#[test]
fn an_equivocating_replica_is_refused_on_v3() {
    let cfg = ClusterConfig {
        layout: Version::V3,
        equivocate: vec![1],
        ..ClusterConfig::quick(3, 1)
    };
    let err = cfg.validate().unwrap_err().to_string();
    assert!(
        err.contains("equivocate [1] on layout v3") && err.contains(V3_BYZANTINE),
        "{err}"
    );
    // The same on v2 is a run.
    let cfg = ClusterConfig {
        layout: Version::V2,
        ..cfg
    };
    assert_eq!(cfg.validate(), Ok(()));
}

#[test]
fn the_scenario_key_round_trips_and_is_left_out_at_v2() {
    let s = Scenario::from_toml("replicas = 3\nslots = 2\n").unwrap();
    assert_eq!(s.layout, Version::V2);
    assert!(!s.to_toml().contains("layout"), "{}", s.to_toml());
    let s = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = \"v2\"\n").unwrap();
    assert_eq!(s, Scenario::new(3, 2));
    let s = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = \"v3\"\n").unwrap();
    assert_eq!(s.layout, Version::V3);
    assert_eq!(s.config().layout, Version::V3);
    assert!(s.to_toml().contains("layout = \"v3\""), "{}", s.to_toml());
    assert_eq!(Scenario::from_toml(&s.to_toml()).unwrap(), s);
    // A delay is no Byzantine replica: allowed on v3.
    let s = Scenario::from_toml(
        "replicas = 3\nslots = 2\nlayout = \"v3\"\n[[fault]]\nkind = \"delay\"\nsrc = 0\ndst = 1\nextra = 100\n",
    )
    .unwrap();
    assert_eq!(s.config().delays.len(), 1);
}

#[test]
fn the_scenario_key_refuses_v1_and_unknown_layouts_by_name() {
    let err = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = \"v1\"\n").unwrap_err();
    assert!(err.contains(V1_REFUSED), "{err}");
    let err = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = \"v9\"\n").unwrap_err();
    assert!(err.contains("unknown layout \"v9\""), "{err}");
    let err = Scenario::from_toml("replicas = 3\nslots = 2\nlayout = 3\n").unwrap_err();
    assert!(err.contains("layout"), "{err}");
}

#[test]
fn every_byzantine_kind_is_refused_on_v3_with_the_reason() {
    for kind in BYZANTINE_KINDS {
        let text = format!(
            "replicas = 3\nslots = 2\nlayout = \"v3\"\n[[fault]]\nkind = \"delay\"\nsrc = 0\ndst = 1\nextra = 9\n[[fault]]\nkind = \"{kind}\"\nreplica = 1\n"
        );
        let err = Scenario::from_toml(&text).unwrap_err();
        assert!(
            err.contains(&format!("fault #2 (kind = \"{kind}\") on layout = \"v3\""))
                && err.contains(V3_BYZANTINE),
            "{kind}: {err}"
        );
        // The same scenario on v2 is accepted.
        let v2 = text.replace("layout = \"v3\"\n", "");
        assert!(Scenario::from_toml(&v2).is_ok(), "{kind}");
    }
    // Switched to v3 after parsing (the CLI's --layout), `check` refuses it.
    let mut s =
        Scenario::from_toml("replicas = 3\nslots = 2\n[[fault]]\nkind = \"silent\"\nreplica = 2\n")
            .unwrap();
    s.layout = Version::V3;
    assert!(s.check().unwrap_err().contains(V3_BYZANTINE));
}

fn rhdl_ubft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rhdl-ubft"))
        .args(args)
        .output()
        .expect("rhdl-ubft runs")
}

#[test]
fn the_cli_refuses_v1_and_byzantine_replicas_on_v3() {
    let out = rhdl_ubft(&[
        "simulate",
        "--replicas",
        "3",
        "--slots",
        "2",
        "--layout",
        "v1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(V1_REFUSED), "{err}");
    let out = rhdl_ubft(&[
        "simulate",
        "--replicas",
        "3",
        "--slots",
        "2",
        "--layout",
        "v3",
        "--equivocate",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(V3_BYZANTINE), "{err}");
    // A scenario with a Byzantine replica, switched to v3 by the flag.
    let dir = std::env::temp_dir().join(format!("layout_v3_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("forge.toml");
    std::fs::write(
        &file,
        "replicas = 3\nslots = 2\n[[fault]]\nkind = \"forge\"\nreplica = 1\n",
    )
    .unwrap();
    let out = rhdl_ubft(&[
        "simulate",
        "--scenario",
        file.to_str().unwrap(),
        "--layout",
        "v3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("kind = \"forge\"") && err.contains(V3_BYZANTINE),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

const PTR: u64 = 0x1_0000_0000;

/// The network model of a 3-replica v3 cluster filtering by its own rule,
/// and the receiver's HBM.
fn v3_network() -> (Network, Mailbox, Hbm) {
    let mb = Mailbox::v3(BUILD_N, G, SB);
    let mut net = Network::new(3, 10, mb.clone(), PTR, 16);
    net.set_delivery(Delivery::Model);
    (net, mb, Hbm::new(5, 3))
}

#[test]
fn the_network_model_checks_v3_writes_by_the_references_rule() {
    let (net, mb, hbm) = v3_network();
    let w = |word: usize, data: Vec<u32>| Write { word, data };
    // A PREPARE (k, m, v, prev) of view 4 is its leader's, 4 mod 3 = 1.
    let mut prepare = vec![0; 4];
    prepare[field3::PREPARE_K] = 6;
    prepare[field3::PREPARE_M] = 0x99;
    prepare[field3::PREPARE_V] = 4;
    let p = w(mb.prepare(5), prepare.clone());
    assert_eq!(net.guard(1, &p, &hbm), Ok(()));
    assert_eq!(
        net.guard(0, &p, &hbm),
        Err(RefuseReason::NotLeader {
            region: Region::Prepare,
            view: 4
        })
    );
    // Without its view word.
    assert_eq!(
        net.guard(1, &w(mb.prepare(5), prepare[..2].to_vec()), &hbm),
        Err(RefuseReason::Shape {
            region: Region::Prepare
        })
    );
    // The fast path's votes: each replica's own entry only.
    let vote = mb.vote(Region::WillCert, 3, 2);
    assert_eq!(net.guard(2, &w(vote, vec![1, 2]), &hbm), Ok(()));
    assert_eq!(
        net.guard(1, &w(vote, vec![1, 2]), &hbm),
        Err(RefuseReason::NotOwner {
            word: vote,
            owner: Some(2)
        })
    );
    // A v3 record owned per writer: certify[slot 2][writer 1].
    let cert = mb.record(Region::Certify, 2, 1);
    assert_eq!(net.guard(1, &w(cert, vec![7; 16]), &hbm), Ok(()));
    assert_eq!(
        net.guard(0, &w(cert, vec![7; 16]), &hbm),
        Err(RefuseReason::NotOwner {
            word: cert,
            owner: Some(1)
        })
    );
    // Each verdict is the reference's.
    for (src, write) in [
        (1, &p),
        (0, &p),
        (2, &w(vote, vec![1, 2])),
        (1, &w(vote, vec![1, 2])),
    ] {
        let reference = rhdl_ubft::guard::check(&mb, 3, src, write.word, &write.data);
        let model = net.guard(src, write, &hbm).map_err(|r| r.refusal());
        assert_eq!(model, reference, "{src} writes at {}", write.word);
    }
    assert_eq!(
        net.guard(1, &w(mb.end() - 1, vec![0, 0]), &hbm)
            .map_err(|r| r.refusal()),
        Err(Refusal::Outside)
    );
}
