//! How this LRC's reliable data stream numbers its messages.
//!
//! The core names positions in its own stream — the last timestamp-order message a time
//! promise covers, the point a snapshot or a resignation stands at — so it must know the number
//! each message it sends will carry, at the moment it sends it (the receivers compare these
//! positions with the numbers the transport delivers under). The transport numbers each
//! datagram frame: a message that travels whole takes one number, a fragmented one a number
//! per fragment, and it is delivered under the last. The core numbers its messages by the same
//! rule, which the shell takes from the channel it opens (`set_stream_numbering`), and every
//! send carries its number: the transport refuses one it would number otherwise, so the two
//! cannot drift apart unnoticed. Counting one number per message, as the core once did, put
//! every position after the first fragmented message short of the transport's.

/// The channel's numbering rule: the largest payload it sends whole, and the payload of each
/// fragment of a larger one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamNumbering {
    /// Largest payload sent as one frame.
    pub max_whole: usize,
    /// Payload per fragment of a larger message (at least 1).
    pub fragment: usize,
}

impl StreamNumbering {
    /// Reliable numbers a message of `len` bytes takes.
    pub fn numbers(&self, len: usize) -> u64 {
        if len <= self.max_whole {
            1
        } else {
            len.div_ceil(self.fragment.max(1)) as u64
        }
    }
}

impl Default for StreamNumbering {
    /// The transport's default data datagram (1,472 bytes: 1,420 whole, 1,404 per fragment).
    /// A shell sets its channel's own rule when it opens the channel (the transport sizes
    /// datagrams by the interface's MTU).
    fn default() -> Self {
        StreamNumbering {
            max_whole: 1420,
            fragment: 1404,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_message_takes_one_number_and_a_fragmented_one_one_per_fragment() {
        let n = StreamNumbering {
            max_whole: 10,
            fragment: 8,
        };
        assert_eq!(n.numbers(0), 1);
        assert_eq!(n.numbers(10), 1);
        assert_eq!(n.numbers(11), 2);
        assert_eq!(n.numbers(16), 2);
        assert_eq!(n.numbers(17), 3);
    }
}
