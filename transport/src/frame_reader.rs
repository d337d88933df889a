//! Reading length-prefixed control frames ([`crate::frame`]) from a QUIC stream without trusting
//! the length prefix.
//!
//! A peer's 4-byte prefix is a claim, not a fact: allocating what it claims before the bytes are
//! there lets anyone who completes a TLS handshake make a node reserve [`MAX_FRAME`] bytes per
//! connection for nothing. So:
//!
//! - every read has a limit, and a prefix above it is refused at once ([`ReadError::TooLarge`],
//!   counted by the caller) before anything is allocated for the body;
//! - before the peer's `Hello` has been checked (an unauthenticated peer) the limit is
//!   [`MAX_HELLO_FRAME`], a few KiB: the handshake frames (`Hello`, `HelloAck`, `Refused`) are
//!   well under it. Only an authenticated peer gets [`MAX_FRAME`];
//! - the body buffer grows with the bytes that actually arrive, [`CHUNK`] at a time, so a peer
//!   that claims a large frame and sends little costs little;
//! - the buffer is reused from frame to frame, and given back when one frame made it larger than
//!   [`RETAIN`], so one large repair does not pin its size for the life of the connection.

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::frame::{Frame, FrameError, MAX_FRAME};

/// Largest frame accepted from a peer whose `Hello` has not been checked yet (and of the answer to
/// our `Hello`). `Hello` and `HelloAck` are under 60 bytes, a `Refused` carries a one-line reason.
pub const MAX_HELLO_FRAME: usize = 4 << 10;
/// How much the body buffer grows at most per read.
pub const CHUNK: usize = 64 << 10;
/// Capacity above which the buffer is released after a frame instead of being kept for the next.
pub const RETAIN: usize = 1 << 20;

/// Why no frame could be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The stream ended, was reset, or the connection closed (between frames or inside one).
    #[error("control stream ended: {0}")]
    Stream(String),
    /// The length prefix claims more than this read allows.
    #[error("frame of {len} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// What the prefix claimed.
        len: usize,
        /// The limit of this read ([`MAX_HELLO_FRAME`] or [`MAX_FRAME`]).
        limit: usize,
    },
    /// The body did not decode.
    #[error(transparent)]
    Malformed(#[from] FrameError),
}

/// Reads frames from one stream; keeps the body buffer between frames.
#[derive(Debug, Default)]
pub struct FrameReader {
    buf: Vec<u8>,
}

impl FrameReader {
    /// A reader with an empty buffer.
    pub fn new() -> FrameReader {
        FrameReader::default()
    }

    /// Reads the next frame of at most `limit` bytes (capped at [`MAX_FRAME`]).
    pub async fn read<R: AsyncRead + Unpin>(
        &mut self,
        stream: &mut R,
        limit: usize,
    ) -> Result<Frame, ReadError> {
        let limit = limit.min(MAX_FRAME);
        let mut prefix = [0u8; 4];
        stream
            .read_exact(&mut prefix)
            .await
            .map_err(|e| ReadError::Stream(e.to_string()))?;
        let len = u32::from_be_bytes(prefix) as usize;
        if len > limit {
            return Err(ReadError::TooLarge { len, limit });
        }
        self.read_body(stream, len).await?;
        let frame = Frame::decode(&self.buf);
        if self.buf.capacity() > RETAIN {
            self.buf = Vec::new();
        }
        Ok(frame?)
    }

    /// Fills the buffer with `len` bytes, growing it only as they arrive.
    async fn read_body<R: AsyncRead + Unpin>(
        &mut self,
        stream: &mut R,
        len: usize,
    ) -> Result<(), ReadError> {
        self.buf.clear();
        while self.buf.len() < len {
            let have = self.buf.len();
            if self.buf.capacity() == have {
                // Full: double what arrived so far (at least a chunk, at most what is still
                // missing), so the buffer stays within about twice the bytes received.
                self.buf.reserve_exact((len - have).min(have.max(CHUNK)));
            }
            // Into the spare capacity (not zeroed first), never past this frame's end.
            let n = (&mut *stream)
                .take((len - have) as u64)
                .read_buf(&mut self.buf)
                .await
                .map_err(|e| ReadError::Stream(e.to_string()))?;
            if n == 0 {
                return Err(ReadError::Stream(format!(
                    "ended {have} bytes into a frame of {len} bytes"
                )));
            }
        }
        Ok(())
    }

    /// Capacity of the body buffer (what this reader holds between frames).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    #[test]
    fn reads_frames_back_to_back_and_reuses_its_buffer() {
        rt().block_on(async {
            let (mut w, mut r) = tokio::io::duplex(1 << 16);
            let a = Frame::Heartbeat.encode();
            let b = Frame::App {
                tag: None,
                hw: 7,
                payload: vec![9; 3000],
            };
            let mut bytes = a.clone();
            bytes.extend_from_slice(&b.encode());
            w.write_all(&bytes).await.expect("write");
            drop(w);
            let mut reader = FrameReader::new();
            assert_eq!(
                reader.read(&mut r, MAX_HELLO_FRAME).await.expect("a"),
                Frame::Heartbeat
            );
            assert_eq!(reader.read(&mut r, MAX_HELLO_FRAME).await.expect("b"), b);
            assert!(matches!(
                reader.read(&mut r, MAX_HELLO_FRAME).await,
                Err(ReadError::Stream(_))
            ));
        });
    }

    #[test]
    fn a_prefix_over_the_limit_is_refused_before_any_body_is_read() {
        rt().block_on(async {
            let (mut w, mut r) = tokio::io::duplex(64);
            w.write_all(&(MAX_HELLO_FRAME as u32 + 1).to_be_bytes())
                .await
                .expect("write");
            let mut reader = FrameReader::new();
            match reader.read(&mut r, MAX_HELLO_FRAME).await {
                Err(ReadError::TooLarge { len, limit }) => {
                    assert_eq!((len, limit), (MAX_HELLO_FRAME + 1, MAX_HELLO_FRAME));
                }
                other => panic!("expected TooLarge, got {other:?}"),
            }
            assert_eq!(reader.capacity(), 0, "nothing allocated for the body");
            // The ceiling applies whatever limit the caller passes.
            let (mut w, mut r) = tokio::io::duplex(64);
            w.write_all(&u32::MAX.to_be_bytes()).await.expect("write");
            assert!(matches!(
                reader.read(&mut r, usize::MAX).await,
                Err(ReadError::TooLarge {
                    limit: MAX_FRAME,
                    ..
                })
            ));
        });
    }

    #[test]
    fn a_large_claim_with_few_bytes_allocates_only_what_arrived() {
        rt().block_on(async {
            let (mut w, mut r) = tokio::io::duplex(1 << 16);
            // Claims the largest frame allowed, sends 1000 bytes, ends.
            w.write_all(&(MAX_FRAME as u32).to_be_bytes())
                .await
                .expect("write");
            w.write_all(&[0u8; 1000]).await.expect("write");
            drop(w);
            let mut reader = FrameReader::new();
            let e = reader.read(&mut r, MAX_FRAME).await;
            assert!(matches!(e, Err(ReadError::Stream(_))), "{e:?}");
            assert!(
                reader.capacity() <= CHUNK,
                "{} bytes reserved for 1000 received",
                reader.capacity()
            );
        });
    }

    #[test]
    fn a_large_frame_is_read_whole_and_its_buffer_given_back() {
        rt().block_on(async {
            let big = Frame::App {
                tag: None,
                hw: 1,
                payload: vec![5; 3 << 20],
            };
            let bytes = big.encode();
            let (mut w, mut r) = tokio::io::duplex(1 << 16);
            let writer = tokio::spawn(async move {
                w.write_all(&bytes).await.expect("write");
            });
            let mut reader = FrameReader::new();
            assert_eq!(reader.read(&mut r, MAX_FRAME).await.expect("big"), big);
            assert_eq!(reader.capacity(), 0, "a buffer over RETAIN is released");
            writer.await.expect("writer");
        });
    }
}
