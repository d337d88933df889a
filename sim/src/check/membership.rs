//! Membership invariants: on each side of a partition at most one LRC acts as the coordinator,
//! and the decision logs of the live members on one side are prefixes of one another (compared
//! by decision number where both still hold a decision verbatim, and as folded stand-ins where
//! both folded as far); at the end ([`converged`]) every live member has the same view and
//! log, the coordinator is one of them and no federate handle was given twice.

use std::collections::{BTreeMap, BTreeSet};

use hlamesh_core::core::FederationCore;
use hlamesh_core::core::membership::View;
use hlamesh_core::core::wire::Decision;
use hlamesh_core::handles::FederateHandle;
use hlamesh_transport::NodeId;

fn tail(v: &View, from: u64, to: u64) -> Vec<&Decision> {
    v.numbered()
        .filter(|(n, _)| *n > from && *n <= to && *n > v.base)
        .map(|(_, d)| d)
        .collect()
}

/// Checks the admitted live members `cores` (each with its side of the partition: members on
/// different sides may disagree until the losers learn they were evicted).
pub fn check_step(cores: &[(NodeId, u32, &FederationCore)]) -> Result<(), String> {
    for (i, (a, sa, ca)) in cores.iter().enumerate() {
        for (b, sb, cb) in &cores[i + 1..] {
            if sa != sb {
                continue;
            }
            let (la, lb) = (ca.view(), cb.view());
            let from = la.base.max(lb.base);
            let to = la.last().min(lb.last());
            let (ta, tb) = (tail(la, from, to), tail(lb, from, to));
            if ta != tb {
                let i = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
                return Err(format!(
                    "the decision logs of {a} and {b} diverge at decision {}: {:?} / {:?} \
                     (views {:?} / {:?})",
                    from + 1 + i as u64,
                    ta.get(i),
                    tb.get(i),
                    la.nodes,
                    lb.nodes
                ));
            }
            if la.base == lb.base && la.folded != lb.folded {
                return Err(format!("the folded logs of {a} and {b} diverge"));
            }
        }
    }
    let mut coords: BTreeMap<u32, Vec<NodeId>> = BTreeMap::new();
    for (n, side, c) in cores {
        if c.is_active_coordinator() {
            coords.entry(*side).or_default().push(*n);
        }
    }
    if let Some((side, c)) = coords.iter().find(|(_, c)| c.len() > 1) {
        return Err(format!(
            "more than one active coordinator on side {side}: {c:?}"
        ));
    }
    Ok(())
}

/// Whether the live members `cores` agree, with `live` the federates the harness knows joined
/// and not gone; `Err` says how they differ.
pub fn converged(
    cores: &[(NodeId, &FederationCore)],
    live: &BTreeSet<FederateHandle>,
) -> Result<(), String> {
    let Some((first, c0)) = cores.first() else {
        return Err("no live member".into());
    };
    let v0 = c0.view();
    for (n, c) in &cores[1..] {
        let v = c.view();
        if v.last() != v0.last() || v.log != v0.log || v.folded != v0.folded || v.base != v0.base {
            return Err(format!(
                "{n} holds another log than {first} (decisions up to {} / {})",
                v.last(),
                v0.last()
            ));
        }
        if v.nodes != v0.nodes {
            return Err(format!(
                "{n} has members {:?}, {first} {:?}",
                v.nodes, v0.nodes
            ));
        }
        if c.coordinator() != c0.coordinator() {
            return Err(format!("{n} and {first} name different coordinators"));
        }
    }
    let coord = c0.coordinator();
    if !cores.iter().any(|(n, _)| Some(n.0) == coord) {
        return Err(format!("the coordinator {coord:?} is not a live member"));
    }
    let mut handles = BTreeSet::new();
    for d in v0.folded.iter().map(|(_, d)| d).chain(&v0.log) {
        if let Decision::FederateJoined { handle, .. } = d
            && !handles.insert(*handle)
        {
            return Err(format!("federate handle {handle} given twice"));
        }
    }
    let joined: BTreeSet<FederateHandle> = v0.federates.keys().copied().collect();
    if &joined != live {
        return Err(format!(
            "the view's federates {joined:?} are not the live ones {live:?}"
        ));
    }
    Ok(())
}
