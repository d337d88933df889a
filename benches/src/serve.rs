//! `hlamesh-bench serve`, the other machine's side of `--peer`: for every driver connection it
//! starts one `hlamesh-bench peer` process with the arguments the driver sends (only the peer
//! subcommand's own options, and this machine's `--interface`), and bridges the connection to the
//! peer's stdin/stdout. Closing the connection ends the peer.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::BenchError;

/// `hlamesh-bench serve`: accepts drivers' connections on `listen`, one peer process each, until
/// killed. Each peer runs with `--interface interface`; at most `max_peers` at a time.
pub fn serve(listen: SocketAddr, interface: Ipv4Addr, max_peers: usize) -> Result<(), BenchError> {
    let l = TcpListener::bind(listen).map_err(BenchError::io(format!("listen on {listen}")))?;
    eprintln!("hlamesh-bench serve: listening on {listen}, peers on interface {interface}");
    let live = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for conn in l.incoming() {
        let Ok(conn) = conn else { continue };
        if live.load(std::sync::atomic::Ordering::Acquire) >= max_peers {
            eprintln!("hlamesh-bench serve: refusing a connection, {max_peers} peers running");
            continue;
        }
        live.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let live = live.clone();
        std::thread::spawn(move || {
            if let Err(e) = serve_one(conn, interface) {
                eprintln!("hlamesh-bench serve: {e}");
            }
            live.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        });
    }
    Ok(())
}

fn serve_one(conn: TcpStream, interface: Ipv4Addr) -> Result<(), BenchError> {
    let peer = conn.peer_addr().ok();
    let _ = conn.set_nodelay(true);
    let mut reader = BufReader::new(
        conn.try_clone()
            .map_err(BenchError::io("clone the driver connection"))?,
    );
    let mut line = String::new();
    reader
        .read_line(&mut line)
        .map_err(BenchError::io("read peer arguments"))?;
    let mut args: Vec<String> = serde_json::from_str(line.trim())
        .map_err(|e| BenchError::Protocol(format!("bad peer arguments from {peer:?}: {e}")))?;
    // Only the peer subcommand's own options are accepted, and our interface replaces the
    // driver's placeholder.
    if args
        .iter()
        .any(|a| a.starts_with("--") && !PEER_OPTIONS.contains(&a.as_str()))
    {
        return Err(BenchError::Protocol(format!(
            "refusing peer arguments {args:?} from {peer:?}"
        )));
    }
    if let Some(i) = args.iter().position(|a| a == "--interface")
        && i + 1 < args.len()
    {
        args[i + 1] = interface.to_string();
    }
    let exe = std::env::current_exe().map_err(BenchError::io("find own executable"))?;
    let mut child = Command::new(exe)
        .arg("peer")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(BenchError::io("spawn peer"))?;
    eprintln!(
        "hlamesh-bench serve: peer for {peer:?} started (pid {})",
        child.id()
    );
    let mut out = child
        .stdout
        .take()
        .ok_or_else(|| BenchError::Protocol("peer has no stdout".into()))?;
    let mut to_driver = conn
        .try_clone()
        .map_err(BenchError::io("clone the driver connection"))?;
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut out, &mut to_driver);
    });
    if let Some(mut stdin) = child.stdin.take() {
        // Commands from the driver, a line at a time, until it closes the connection; then the
        // peer's stdin closes and it leaves. (Not `io::copy`: its splice fast path between a
        // socket and a pipe held the driver's short command lines back.)
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if stdin
                        .write_all(line.as_bytes())
                        .and_then(|_| stdin.flush())
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    }
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = conn.shutdown(std::net::Shutdown::Both);
    let _ = up.join();
    Ok(())
}

/// Options `hlamesh-bench peer` takes (what `serve` lets a driver pass).
const PEER_OPTIONS: [&str; 15] = [
    "--role",
    "--level",
    "--interface",
    "--ttl",
    "--discovery-port",
    "--data-port",
    "--discovery-group",
    "--raw-port",
    "--raw-group",
    "--federation",
    "--timeout-s",
    "--index",
    "--federates",
    "--callbacks",
    "--join-only",
];
