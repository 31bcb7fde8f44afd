//! Cluster: n kernels and the models around them, run one clock at a time.
//!
//! (Skeleton of the API; the run loop lands with the kernel.)

use serde::Serialize;

/// Which path decided a slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Path {
    Fast,
    Slow,
}

/// Extra latency on one link (src -> dst) in a window of cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkDelay {
    pub src: usize,
    pub dst: usize,
    pub extra: u64,
    pub from_cycle: u64,
    pub to_cycle: u64,
}

/// A run's parameters.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    pub replicas: usize,
    pub slots: u64,
    pub seed: u64,
    pub net_latency: u64,
    pub hbm_read_latency: u64,
    pub hbm_write_latency: u64,
    pub wait_polls: u64,
    pub max_cycles: u64,
    pub delays: Vec<LinkDelay>,
    /// Replicas whose leader role equivocates (a different m to each peer).
    pub equivocate: Vec<usize>,
}

/// One decision as the client saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub k: u64,
    pub m: u32,
    pub cycle: u64,
    pub path: Path,
}

/// One replica's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicaReport {
    pub id: usize,
    pub honest: bool,
    pub view: u32,
    pub decided: Vec<Decision>,
}

/// A run's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub cycles: u64,
    pub replicas: Vec<ReplicaReport>,
}
