//! The byte buffers both codecs write to and read from, with the octet-boundary padding rule:
//! before each element, pad (zeros when writing, skipped when reading) up to the element's octet
//! boundary, counted from the start of the whole encoded value.

use super::error::EncoderError;

/// Largest element count accepted for elements that may encode in zero bytes (e.g. arrays of
/// `HLAtoken`), where the remaining length cannot bound the count.
pub const MAX_ZERO_SIZE_ELEMENTS: usize = 65_536;

/// Writes one encoded value.
#[derive(Debug, Default, Clone)]
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reuses `buf` (cleared) as the output, to avoid an allocation per value.
    pub fn with_buffer(mut buf: Vec<u8>) -> Self {
        buf.clear();
        Self { buf }
    }

    /// Pads with zeros up to a multiple of `boundary`.
    pub fn align(&mut self, boundary: usize) {
        if boundary > 1 {
            let rem = self.buf.len() % boundary;
            if rem != 0 {
                self.buf.resize(self.buf.len() + boundary - rem, 0);
            }
        }
    }

    /// Appends raw bytes.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Appends one byte.
    pub fn write_u8(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// Appends a variable-array element count (HLAinteger32BE).
    pub fn write_count(&mut self, n: usize) {
        self.buf
            .extend_from_slice(&(i32::try_from(n).unwrap_or(i32::MAX)).to_be_bytes());
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True if nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The encoded bytes, by value.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads one encoded value from untrusted bytes. Every read is bounds-checked.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// Starts at offset 0 of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Current offset.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Skips padding up to a multiple of `boundary`.
    pub fn align(&mut self, boundary: usize) -> Result<(), EncoderError> {
        if boundary > 1 {
            let rem = self.pos % boundary;
            if rem != 0 {
                self.read_bytes(boundary - rem)?;
            }
        }
        Ok(())
    }

    /// Reads `n` raw bytes.
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8], EncoderError> {
        if self.remaining() < n {
            return Err(EncoderError::Truncated {
                offset: self.pos,
                needed: n,
                available: self.remaining(),
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads exactly `N` bytes.
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N], EncoderError> {
        let s = self.read_bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Reads a variable-array element count and checks it against what the rest of the buffer
    /// can hold, given the smallest encoding of one element. Never trust a count enough to
    /// allocate for it before this check.
    pub fn read_count(&mut self, element_min_len: usize) -> Result<usize, EncoderError> {
        let n = i32::from_be_bytes(self.read_array()?);
        if n < 0 {
            return Err(EncoderError::NegativeLength(n.into()));
        }
        let count = n as usize;
        let remaining = self.remaining();
        let fits = match remaining.checked_div(element_min_len) {
            Some(max) => count <= max,
            None => count <= MAX_ZERO_SIZE_ELEMENTS,
        };
        if fits {
            Ok(count)
        } else {
            Err(EncoderError::LengthTooLarge { count, remaining })
        }
    }

    /// Errors if bytes are left.
    pub fn finish(&self) -> Result<(), EncoderError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(EncoderError::TrailingBytes(n)),
        }
    }
}
