//! The transport's share of `/metrics`: a collector that samples the shell's counters and
//! each federation's parts when the endpoint is scraped.

use super::*;

/// Registers the collector that copies this transport's counters into the global series at every
/// scrape. It holds the transport weakly: a transport that is gone exports nothing.
pub(super) fn register_metrics(shared: &Arc<Shared>) -> m::CollectorGuard {
    let weak = Arc::downgrade(shared);
    let exporter = Mutex::new(m::Exporter::default());
    m::register_collector(Arc::new(move || {
        if let Some(shared) = weak.upgrade() {
            let sample = shared.metrics_sample();
            lock(&exporter).export(sample);
        }
    }))
}

impl Shared {
    fn metrics_sample(&self) -> m::TransportSample {
        let mut s = m::TransportSample {
            datagrams_in: self.stats.datagrams_in.load(Ordering::Relaxed),
            datagrams_in_caller: self.stats.datagrams_in_caller.load(Ordering::Relaxed),
            unrouted: self.stats.datagrams_unrouted.load(Ordering::Relaxed),
            lost: self.stats.lost.load(Ordering::Relaxed),
            refused: self.stats.refused.load(Ordering::Relaxed),
            oversize_frames: self.stats.oversize_frames.load(Ordering::Relaxed),
            drain_timeouts: self.stats.drain_timeouts.load(Ordering::Relaxed),
            event_queue: self.events.len(),
            ..Default::default()
        };
        {
            let d = lock(&self.discovery);
            let st = d.stats();
            s.beacons_accepted = st.beacons;
            s.solicits_refused = st.solicits_refused;
            s.beacons_rejected = Rejection::ALL
                .iter()
                .map(|r| (r.label(), st.rejected(*r)))
                .collect();
        }
        let (dials, _) = lock(&self.peers).dial_stats();
        s.dials = vec![
            ("connected", dials.connected),
            ("refused", dials.refused),
            ("unreachable", dials.unreachable),
            ("deferred", dials.deferred),
        ];
        self.metrics.sample_into(&mut s);
        s.peers = lock(&self.peers)
            .iter()
            .map(|(node, p)| m::PeerSample {
                node: *node,
                rtt: p.link.conn.rtt(),
                lost_packets: p.link.conn.stats().path.lost_packets,
            })
            .collect();
        let feds: Vec<Arc<FedChannel>> = self
            .federations
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        s.federations = feds
            .iter()
            .map(|f| {
                // Each lock in its own statement: a guard taken inside the struct literal would
                // live to the end of it, and `cell_stats` takes the receive path's lock again
                // (a self-deadlock on every scrape of an open federation).
                let recv = lock(&f.recv).stats();
                let send = lock(&f.sender).sender().stats();
                let cells = f.cell_stats();
                m::FederationSample {
                    name: f.name.clone(),
                    recv,
                    send,
                    sent: f.sent.totals(),
                    flow: f.flow_stats(),
                    cells,
                }
            })
            .collect();
        s
    }
}
