//! The net thread's tasks (a one-worker tokio runtime): the QUIC endpoint and the hello
//! exchange of each connection (dial and accept; the decisions are the core's `Mesh`), one
//! ordered control stream per peer with its writer and reader, discovery beacons and
//! liveness.

use super::*;
use crate::core::hello;

/// Most incoming handshakes in progress at once; further ones are ignored (the peer retries
/// with its next dial). Each holds a QUIC connection's state for up to `HANDSHAKE_TIMEOUT`.
pub const MAX_PENDING_ACCEPTS: usize = 32;
/// Longest a handshake (dial or accept, including the hello exchange) may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);
/// QUIC application close code of a clean close (shutdown, goodbye, a peer removed).
pub(super) const CLOSE_BYE: u32 = 0;
/// QUIC application close code of a refused connection.
const CLOSE_REFUSED: u32 = 1;

pub(super) async fn accept_loop(shared: Arc<Shared>, endpoint: quinn::Endpoint) {
    while let Some(incoming) = endpoint.accept().await {
        if shared.pending_accepts.fetch_add(1, Ordering::AcqRel) >= MAX_PENDING_ACCEPTS {
            shared.pending_accepts.fetch_sub(1, Ordering::AcqRel);
            tracing::debug!(addr = %incoming.remote_address(), "too many handshakes in progress");
            incoming.ignore();
            continue;
        }
        let shared = shared.clone();
        tokio::spawn(async move {
            let addr = incoming.remote_address();
            let r = tokio::time::timeout(HANDSHAKE_TIMEOUT, accept_one(&shared, incoming)).await;
            shared.pending_accepts.fetch_sub(1, Ordering::AcqRel);
            match r {
                Ok(Ok(())) => {}
                Ok(Err(HandshakeError::Refused(reason))) => refuse(&shared, addr, reason),
                Ok(Err(HandshakeError::Unreachable(reason))) => {
                    tracing::debug!(%addr, "incoming connection broke off: {reason}");
                }
                Err(_) => tracing::debug!(%addr, "incoming handshake timed out"),
            }
        });
    }
}

/// Why a handshake failed: a refusal (authentication, version, duplicate) is worth a warning;
/// a peer that does not answer (it died, or it is not there) is not a refusal.
#[derive(Debug)]
enum HandshakeError {
    Refused(String),
    Unreachable(String),
}

impl From<String> for HandshakeError {
    /// Stream and framing errors during the hello exchange: the connection broke.
    fn from(s: String) -> Self {
        HandshakeError::Unreachable(s)
    }
}

/// Classifies a QUIC connection error of a handshake.
fn handshake_error(what: &str, e: quinn::ConnectionError) -> HandshakeError {
    use quinn::ConnectionError as C;
    let text = format!("{what}: {e}");
    match e {
        // The peer or our verifier rejected the other's certificate, or the peer closed it as
        // refused.
        C::TransportError(_) | C::ConnectionClosed(_) | C::VersionMismatch => {
            HandshakeError::Refused(text)
        }
        C::ApplicationClosed(ref c) if c.error_code == quinn::VarInt::from_u32(CLOSE_REFUSED) => {
            HandshakeError::Refused(text)
        }
        _ => HandshakeError::Unreachable(text),
    }
}

fn refuse(shared: &Shared, addr: SocketAddr, reason: String) {
    if shared.shutdown.load(Ordering::Relaxed) {
        return;
    }
    shared.stats.refused.fetch_add(1, Ordering::Relaxed);
    tracing::warn!(%addr, "peer refused: {reason}");
    shared.emit(TransportEvent::PeerRefused { addr, reason });
}

/// Reads one frame of at most `limit` bytes; a prefix over it is counted
/// ([`ShellStats::oversize_frames`]).
async fn read_frame(
    shared: &Shared,
    reader: &mut FrameReader,
    recv: &mut quinn::RecvStream,
    limit: usize,
) -> Result<Frame, ReadError> {
    let r = reader.read(recv, limit).await;
    if let Err(ReadError::TooLarge { .. }) = &r {
        shared.stats.oversize_frames.fetch_add(1, Ordering::Relaxed);
    }
    r
}

impl From<ReadError> for HandshakeError {
    /// A stream that ended is a connection that broke; a frame over the limit or one that does
    /// not decode is the peer's doing.
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Stream(s) => HandshakeError::Unreachable(s),
            e => HandshakeError::Refused(e.to_string()),
        }
    }
}

async fn accept_one(shared: &Arc<Shared>, incoming: quinn::Incoming) -> Result<(), HandshakeError> {
    let conn = incoming
        .await
        .map_err(|e| handshake_error("TLS handshake failed", e))?;
    // A failure from here on closes the connection at once, as refused.
    let guard = CloseOnDrop(Some(conn.clone()));
    let (mut send, mut recv) = conn.accept_bi().await.map_err(|e| e.to_string())?;
    // The peer is not authenticated before its Hello is checked: a small frame limit.
    let first = read_frame(shared, &mut FrameReader::new(), &mut recv, MAX_HELLO_FRAME).await?;
    let verdict = {
        let peers = lock(&shared.peers);
        hello::on_hello(&peers, &first, |node, proof| {
            shared
                .security
                .verify_proof(&conn, Role::Dialer, node, proof)
        })
    };
    let node = match verdict {
        hello::Accept::Welcome { node } => node,
        hello::Accept::Refuse { reply, reason } => {
            if let Some(reply) = reply {
                let _ = send_all(&mut send, &reply).await;
                let _ = send.finish();
                // Let the refusal reach the peer before the close overtakes it.
                tokio::time::sleep(Duration::from_millis(50)).await;
                conn.close(CLOSE_REFUSED.into(), b"refused");
            }
            return Err(HandshakeError::Refused(reason.0));
        }
    };
    let ack = hello::hello_ack(
        shared.node,
        shared.security.proof(&conn, Role::Acceptor, shared.node),
    );
    send_all(&mut send, &ack).await?;
    guard.disarm();
    register(shared, node, conn, send, recv);
    Ok(())
}

async fn send_all(send: &mut quinn::SendStream, frame: &Frame) -> Result<(), String> {
    send.write_all(&frame.encode())
        .await
        .map_err(|e| e.to_string())
}

async fn dial(shared: Arc<Shared>, info: PeerInfo) {
    let node = info.beacon.node;
    let result = async {
        let addr = *info
            .beacon
            .quic_addrs
            .first()
            .ok_or_else(|| HandshakeError::Refused("beacon has no QUIC address".into()))?;
        let idle = shared.cfg.peer_timeout * 3;
        let client = shared
            .security
            .client_config(
                info.beacon.cert_fingerprint,
                shared.cfg.heartbeat_interval,
                idle,
            )
            .map_err(|e| HandshakeError::Refused(e.to_string()))?;
        let connecting = shared
            .endpoint
            .connect_with(client, addr, SERVER_NAME)
            .map_err(|e| HandshakeError::Unreachable(e.to_string()))?;
        let conn = connecting
            .await
            .map_err(|e| handshake_error(&format!("TLS handshake with {addr} failed"), e))?;
        // Whatever happens from here on, a failure closes the connection at once: its state is
        // given back now, not at the idle timeout.
        let guard = CloseOnDrop(Some(conn.clone()));
        let (mut send, mut recv) = conn.open_bi().await.map_err(|e| e.to_string())?;
        let hello = hello::hello(
            shared.node,
            shared.security.proof(&conn, Role::Dialer, shared.node),
        );
        send_all(&mut send, &hello).await?;
        let answer =
            read_frame(&shared, &mut FrameReader::new(), &mut recv, MAX_HELLO_FRAME).await?;
        let verdict = hello::on_answer(node, &answer, |proof| {
            shared
                .security
                .verify_proof(&conn, Role::Acceptor, node, proof)
        });
        if let Err(reason) = verdict {
            if matches!(answer, Frame::HelloAck { .. }) {
                conn.close(CLOSE_REFUSED.into(), b"refused");
            }
            return Err(HandshakeError::Refused(reason.0));
        }
        guard.disarm();
        register(&shared, node, conn, send, recv);
        Ok(())
    };
    let addr = info.source;
    // On timeout the future is dropped, and with it the connection attempt (quinn closes a
    // connection whose last handle is gone).
    let outcome = match tokio::time::timeout(HANDSHAKE_TIMEOUT, result).await {
        Ok(Ok(())) => DialOutcome::Connected,
        Ok(Err(HandshakeError::Refused(reason))) => {
            refuse(&shared, addr, reason);
            DialOutcome::Refused
        }
        Ok(Err(HandshakeError::Unreachable(reason))) => {
            if !shared.shutdown.load(Ordering::Relaxed) {
                tracing::info!(peer = %node, %addr, "peer unreachable: {reason}");
            }
            DialOutcome::Unreachable
        }
        Err(_) => {
            if !shared.shutdown.load(Ordering::Relaxed) {
                tracing::info!(peer = %node, %addr, "peer unreachable: dialling timed out");
            }
            DialOutcome::Unreachable
        }
    };
    lock(&shared.peers).dial_finished(Instant::now(), node, outcome);
}

/// Whether the peer closed the connection on purpose (shut down or said goodbye), as opposed to
/// a timeout or a reset.
fn closed_cleanly(conn: &quinn::Connection) -> bool {
    matches!(
        conn.close_reason(),
        Some(quinn::ConnectionError::ApplicationClosed(c))
            if c.error_code == quinn::VarInt::from_u32(CLOSE_BYE)
    )
}

/// Closes a connection when dropped, unless disarmed (the handshake succeeded).
struct CloseOnDrop(Option<quinn::Connection>);

impl CloseOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.close(CLOSE_REFUSED.into(), b"handshake failed");
        }
    }
}

fn register(
    shared: &Arc<Shared>,
    node: NodeId,
    conn: quinn::Connection,
    mut send: quinn::SendStream,
    mut recv: quinn::RecvStream,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let addr = conn.remote_address();
    {
        let mut peers = lock(&shared.peers);
        let link = PeerLink {
            tx: tx.clone(),
            conn: conn.clone(),
        };
        let Ok(held) = peers.register(Instant::now(), node, addr, link) else {
            conn.close(CLOSE_REFUSED.into(), b"duplicate");
            return;
        };
        // Under the peers lock, so no new frame can overtake the held ones.
        for f in held {
            let _ = tx.send(f);
        }
    }
    // Writer: frames from the channel, heartbeats when idle.
    let hb = shared.cfg.heartbeat_interval;
    let s1 = shared.clone();
    tokio::spawn(async move {
        let heartbeat = Frame::Heartbeat.encode();
        let mut tick = tokio::time::interval(hb);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    Some(bytes) => if send.write_all(&bytes).await.is_err() { break },
                    None => break,
                },
                _ = tick.tick() => {
                    s1.metrics.heartbeat_out();
                    if send.write_all(&heartbeat).await.is_err() { break }
                }
            }
        }
    });
    // Reader.
    let s2 = shared.clone();
    let reader_conn = conn.clone();
    tokio::spawn(async move {
        let mut reader = FrameReader::new();
        loop {
            match read_frame(&s2, &mut reader, &mut recv, MAX_FRAME).await {
                Ok(frame) => {
                    lock(&s2.peers).heard(Instant::now(), node);
                    let _ = s2.control.send(ControlWork::Frame(node, frame));
                }
                Err(e) => {
                    tracing::debug!(peer = %node, "control stream ended: {e}");
                    if !s2.shutdown.load(Ordering::Relaxed) {
                        // A peer that closed its connection on purpose (it shut down, and its
                        // close overtook its goodbye frame) left; anything else is a loss.
                        let lost = !closed_cleanly(&reader_conn);
                        let _ = s2.control.send(ControlWork::Gone { node, lost });
                    }
                    break;
                }
            }
        }
    });
    let _ = shared.control.send(ControlWork::Registered(node));
    tracing::info!(peer = %node, %addr, "peer connected");
    // The event before the change signal: a thread woken by the change finds it queued.
    shared.emit(TransportEvent::PeerConnected { node, addr });
    shared.discovery_changed();
}

pub(super) async fn discovery_loop(shared: Arc<Shared>, sock: Arc<tokio::net::UdpSocket>) {
    let mut buf = vec![0u8; 65_536];
    loop {
        let Ok((n, src)) = sock.recv_from(&mut buf).await else {
            if shared.shutdown.load(Ordering::Relaxed) {
                return;
            }
            continue;
        };
        let ev = lock(&shared.discovery).on_datagram(Instant::now(), src, &buf[..n]);
        match ev {
            Some(DiscoveryEvent::Discovered(node)) => {
                // Answer at once so the newcomer learns of us without waiting a beacon period.
                shared.beacon_now.notify_one();
                shared.discovery_changed();
                maybe_dial(&shared, node);
            }
            Some(DiscoveryEvent::Changed(node)) => {
                shared.discovery_changed();
                maybe_dial(&shared, node);
            }
            Some(DiscoveryEvent::Solicited(_)) => shared.beacon_now.notify_one(),
            // A create race may wait for its barrier beacon.
            Some(DiscoveryEvent::Echo(_)) => shared.discovery_changed(),
            Some(DiscoveryEvent::IncompatibleVersion { node, version }) => {
                tracing::warn!(
                    peer = %node, %src, version,
                    "ignoring node speaking protocol version {version} (we speak {PROTOCOL_VERSION})"
                );
            }
            Some(DiscoveryEvent::Refused { node, reason }) => {
                // Once per node while remembered (bounded): a flood is counted, not logged.
                tracing::warn!(
                    peer = %node, %src,
                    "ignoring beacons that fail authentication ({reason}): wrong development \
                     secret or certificate, or forged"
                );
            }
            None => {}
        }
    }
}

/// Dials `node` if this node is the one to dial it (the lower id), it is not connected, and the
/// dial bounds allow it now ([`crate::dial_limits`]); otherwise a later beacon retries.
fn maybe_dial(shared: &Arc<Shared>, node: NodeId) {
    if node <= shared.node || shared.shutdown.load(Ordering::Relaxed) {
        return; // the lower id dials (the core decides it too; this spares the lookup)
    }
    // Only authenticated beacons are in the table.
    let Some(info) = lock(&shared.discovery).get(node).cloned() else {
        return;
    };
    if lock(&shared.peers).should_dial(Instant::now(), node, Some(info.last_heard)) {
        tokio::spawn(dial(shared.clone(), info));
    }
}

/// Repeats of the start's query while nobody has been heard.
const START_SOLICIT_REPEATS: u32 = 2;

pub(super) async fn beacon_loop(shared: Arc<Shared>, sock: Arc<tokio::net::UdpSocket>) {
    let dest = SocketAddr::from((shared.cfg.discovery_group, shared.cfg.discovery_port));
    let gap = shared.cfg.beacon_min_gap;
    let start = Instant::now();
    let mut beacons = BeaconSchedule::new(start, shared.cfg.beacon_interval, gap);
    // The first query goes out at start, before the first beacon: members answer at once instead
    // of at their next period.
    let mut solicits = SolicitSchedule::new(start, gap, START_SOLICIT_REPEATS);
    loop {
        let due = solicits
            .due()
            .map_or(beacons.due(), |q| q.min(beacons.due()));
        tokio::select! {
            _ = tokio::time::sleep_until(due.into()) => {}
            _ = shared.beacon_now.notified() => beacons.request(),
            _ = shared.beacon_urgent.notified() => beacons.request_urgent(),
            _ = shared.solicit_now.notified() => solicits.request(Instant::now()),
        }
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        let alone = lock(&shared.discovery).peers().next().is_none();
        if solicits.fire(now, alone) {
            let query = lock(&shared.discovery).seal_solicit();
            let _ = sock.send_to(&query, dest).await;
        }
        if beacons.due() > now {
            continue;
        }
        let beacon = shared.beacon();
        let sealed = lock(&shared.discovery).seal(&beacon);
        let _ = sock.send_to(&sealed, dest).await;
        beacons.sent(now);
        let (known, gone) = {
            let mut d = lock(&shared.discovery);
            let gone = d.expire(Instant::now());
            (d.peers().map(|p| p.beacon.node).collect::<Vec<_>>(), gone)
        };
        if !gone.is_empty() {
            let mut mesh = lock(&shared.peers);
            for n in gone {
                mesh.forget(n);
            }
        }
        for node in known {
            maybe_dial(&shared, node);
        }
    }
}

pub(super) async fn liveness_loop(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(shared.cfg.heartbeat_interval / 2);
    loop {
        tick.tick().await;
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let expired = lock(&shared.peers).handle_timeout(Instant::now());
        for (node, frames) in expired.dropped_held {
            tracing::warn!(peer = %node, frames,
                "dropping control frames held for a peer that never connected");
        }
        for node in expired.lost {
            let _ = shared.control.send(ControlWork::Gone { node, lost: true });
        }
    }
}
