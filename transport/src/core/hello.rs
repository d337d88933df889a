//! The hello exchange that follows a QUIC connection's TLS handshake, as decisions over frames:
//! the dialler sends [`Frame::Hello`] on the first stream it opens; the acceptor answers
//! [`Frame::HelloAck`] with its own proof, or [`Frame::Refused`] with the reason, and only then
//! do the two register each other (and the frames held for the peer go out).
//!
//! The shell ([`crate::node`]) does the I/O in this order — open or accept the stream, write and
//! read the frames, close a refused connection — and asks this module what each frame means.
//! Checking a proof needs the connection's TLS exporter, so the shell hands a verifier in; the
//! decision itself (version, proof, duplicate connection) is [`Mesh::admit`]'s.

use crate::config::PROTOCOL_VERSION;
use crate::core::Mesh;
use crate::frame::Frame;
use crate::id::NodeId;

/// A proof of the federation secret, bound to one TLS session (development mode).
pub type Proof = [u8; 32];

/// Why a hello exchange ended without a connection (the text goes into the log and into
/// [`crate::TransportEvent::PeerRefused`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HelloRefused(pub String);

/// The dialler's first frame.
pub fn hello(me: NodeId, proof: Option<Proof>) -> Frame {
    Frame::Hello {
        node: me,
        version: PROTOCOL_VERSION,
        proof,
    }
}

/// What the acceptor does with the first frame of a new connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Accept {
    /// Answer with [`Frame::HelloAck`] (built by [`hello_ack`]), then register `node`.
    Welcome {
        /// The dialler.
        node: NodeId,
    },
    /// Answer with `reply` (a [`Frame::Refused`] when there is a peer to tell), then close.
    Refuse {
        /// The frame to send before closing, if any.
        reply: Option<Frame>,
        /// Why.
        reason: HelloRefused,
    },
}

/// The acceptor's decision on `first`, the first frame of a connection it accepted: it must be
/// a [`Frame::Hello`] whose version this node speaks, whose proof `verify` accepts, from a node
/// not connected already ([`Mesh::admit`]).
pub fn on_hello<L>(
    mesh: &Mesh<L>,
    first: &Frame,
    verify: impl FnOnce(NodeId, Option<&Proof>) -> bool,
) -> Accept {
    let Frame::Hello {
        node,
        version,
        proof,
    } = first
    else {
        return Accept::Refuse {
            reply: None,
            reason: HelloRefused("first frame was not Hello".into()),
        };
    };
    // The proof is bound to this protocol version's exporter label: checked only when the
    // version matches.
    let proof_ok = *version == PROTOCOL_VERSION && verify(*node, proof.as_ref());
    match mesh.admit(*node, *version, proof_ok) {
        Ok(()) => Accept::Welcome { node: *node },
        Err(refusal) => {
            let reason = refusal.to_string();
            Accept::Refuse {
                reply: Some(Frame::Refused {
                    reason: reason.clone(),
                }),
                reason: HelloRefused(reason),
            }
        }
    }
}

/// The acceptor's answer to a hello it welcomed.
pub fn hello_ack(me: NodeId, proof: Option<Proof>) -> Frame {
    Frame::HelloAck { node: me, proof }
}

/// The dialler's decision on the acceptor's answer: the node it dialled (as its beacon said)
/// acknowledged with a proof `verify` accepts, or the connection is refused.
pub fn on_answer(
    dialled: NodeId,
    answer: &Frame,
    verify: impl FnOnce(Option<&Proof>) -> bool,
) -> Result<(), HelloRefused> {
    match answer {
        Frame::HelloAck { node, proof } if *node == dialled => {
            if verify(proof.as_ref()) {
                Ok(())
            } else {
                Err(HelloRefused(format!(
                    "node {dialled} did not prove the federation secret"
                )))
            }
        }
        Frame::Refused { reason } => Err(HelloRefused(format!("refused by {dialled}: {reason}"))),
        other => Err(HelloRefused(format!(
            "unexpected answer to Hello: {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::{Duration, Instant};

    use super::*;

    fn mesh() -> Mesh<()> {
        Mesh::new(NodeId(1), Duration::from_secs(3))
    }

    #[test]
    fn a_hello_with_a_good_proof_is_welcomed_and_acknowledged() {
        let m = mesh();
        let h = hello(NodeId(7), Some([1; 32]));
        let mut seen = None;
        let got = on_hello(&m, &h, |n, p| {
            seen = Some((n, p.copied()));
            true
        });
        assert_eq!(got, Accept::Welcome { node: NodeId(7) });
        assert_eq!(seen, Some((NodeId(7), Some([1; 32]))));
        assert_eq!(
            on_answer(NodeId(1), &hello_ack(NodeId(1), Some([2; 32])), |p| p
                == Some(&[2; 32])),
            Ok(())
        );
    }

    #[test]
    fn a_first_frame_other_than_hello_is_refused_without_a_reply() {
        let got = on_hello(&mesh(), &Frame::Heartbeat, |_, _| true);
        assert_eq!(
            got,
            Accept::Refuse {
                reply: None,
                reason: HelloRefused("first frame was not Hello".into())
            }
        );
    }

    #[test]
    fn a_bad_proof_another_version_or_a_duplicate_is_refused_with_the_reason() {
        let mut m = mesh();
        let refused = |a: Accept| match a {
            Accept::Refuse {
                reply: Some(Frame::Refused { reason }),
                reason: r,
            } => {
                assert_eq!(reason, r.0);
                reason
            }
            other => panic!("not refused with a reply: {other:?}"),
        };
        let bad_proof = refused(on_hello(&m, &hello(NodeId(7), None), |_, _| false));
        assert!(bad_proof.contains("did not prove"), "{bad_proof}");
        // Another version: the verifier is not even asked.
        let old = Frame::Hello {
            node: NodeId(7),
            version: PROTOCOL_VERSION + 1,
            proof: None,
        };
        let version = refused(on_hello(&m, &old, |_, _| panic!("verified")));
        assert!(version.contains("protocol version"), "{version}");
        // Connected already.
        let addr: SocketAddr = "127.0.0.1:9".parse().unwrap_or_else(|_| unreachable!());
        assert!(m.register(Instant::now(), NodeId(7), addr, ()).is_ok());
        let dup = refused(on_hello(&m, &hello(NodeId(7), None), |_, _| true));
        assert!(dup.contains("duplicate"), "{dup}");
    }

    #[test]
    fn the_dialler_refuses_a_wrong_node_a_bad_proof_a_refusal_and_anything_else() {
        let ack = |n| hello_ack(NodeId(n), None);
        let refused = |r: Result<(), HelloRefused>| match r {
            Err(e) => e,
            Ok(()) => panic!("accepted"),
        };
        let e = refused(on_answer(NodeId(3), &ack(4), |_| true));
        assert!(e.0.starts_with("unexpected answer"), "{e}");
        let e = refused(on_answer(NodeId(3), &ack(3), |_| false));
        assert_eq!(
            e.0,
            format!("node {} did not prove the federation secret", NodeId(3))
        );
        let e = refused(on_answer(
            NodeId(3),
            &Frame::Refused {
                reason: "no".into(),
            },
            |_| true,
        ));
        assert_eq!(e.0, format!("refused by {}: no", NodeId(3)));
        assert!(on_answer(NodeId(3), &Frame::Heartbeat, |_| true).is_err());
    }
}
