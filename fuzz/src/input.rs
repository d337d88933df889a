//! Reading structured choices out of a fuzzer's bytes. Past the end every read returns zero
//! (or an empty slice), so any input is a complete script and shorter inputs are prefixes of
//! longer ones, which helps the fuzzer's minimisation.

/// A cursor over the fuzzer's bytes.
#[derive(Debug)]
pub struct Input<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Input { bytes, pos: 0 }
    }

    /// True once every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    /// Little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// Little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Little-endian u64.
    pub fn u64(&mut self) -> u64 {
        let mut a = [0u8; 8];
        for b in &mut a {
            *b = self.u8();
        }
        u64::from_le_bytes(a)
    }

    /// Up to `n` of the next bytes.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.bytes.len());
        let end = start.saturating_add(n).min(self.bytes.len());
        self.pos = self.pos.saturating_add(n);
        &self.bytes[start..end]
    }

    /// A number the fuzzer is likely to make interesting: one byte picks a boundary value
    /// (0, 1, 2^63, 2^64 − 1, …) or a literal 8-byte value.
    pub fn interesting_u64(&mut self) -> u64 {
        match self.u8() % 12 {
            0 => 0,
            1 => 1,
            2 => 2,
            3 => u64::from(self.u8()),
            4 => u64::from(self.u16()),
            5 => u64::MAX,
            6 => u64::MAX - 1,
            7 => u64::MAX - u64::from(self.u8()),
            8 => 1 << 63,
            9 => u64::from(u32::MAX),
            _ => self.u64(),
        }
    }

    /// Like [`Input::interesting_u64`], for 32-bit fields.
    pub fn interesting_u32(&mut self) -> u32 {
        match self.u8() % 8 {
            0 => 0,
            1 => 1,
            2 => u32::from(self.u8()),
            3 => u32::from(self.u16()),
            4 => u32::MAX,
            5 => u32::MAX - 1,
            6 => 1 << 31,
            _ => self.u32(),
        }
    }
}
