//! The HTTP/1.1 chunked body decoder: a byte-at-a-time state machine fed whatever the socket
//! gave, so a peer's split points never matter. Never allocates by a size the peer declared:
//! a chunk is checked against the message cap before a byte of it is kept. Knows no socket.

/// Bytes a chunk-size line (with extensions) or a trailer line may take.
const MAX_LINE: usize = 256;
/// Bytes all trailer lines together may take.
const MAX_TRAILERS: usize = 4096;

/// Why a chunked body was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ChunkError {
    /// The framing is broken (what was wrong, for the log).
    Malformed(&'static str),
    /// The decoded body would exceed the cap.
    TooLarge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Hex digits of the next chunk's size; `ext` once a `;` started extensions.
    Size {
        value: u64,
        digits: u32,
        ext: bool,
    },
    /// A CR ended the size line; the LF must follow.
    SizeLf {
        value: u64,
        digits: u32,
    },
    /// Bytes of the current chunk still to come.
    Data {
        left: u64,
    },
    /// The CRLF after a chunk's data.
    DataCr,
    DataLf,
    /// Trailer lines after the last chunk; `empty` while the current line has no byte yet.
    Trailer {
        empty: bool,
        cr: bool,
    },
    Done,
}

/// Decodes one chunked body, capped at `cap` decoded bytes.
#[derive(Debug)]
pub(super) struct Chunked {
    state: State,
    cap: usize,
    total: usize,
    line: usize,
    trailers: usize,
}

impl Chunked {
    pub(super) fn new(cap: usize) -> Self {
        Chunked { state: State::Size { value: 0, digits: 0, ext: false }, cap, total: 0, line: 0, trailers: 0 }
    }

    /// Whether the final chunk and its trailers are in: the body is complete.
    pub(super) fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes what it can of `input` into `out` and says how many bytes of `input` it used;
    /// it stops right after the body ends, so what follows (a pipelined request) stays unread.
    pub(super) fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<usize, ChunkError> {
        let mut used = 0;
        while used < input.len() && self.state != State::Done {
            if let State::Data { left } = self.state {
                // Data is copied in runs, not byte by byte; the cap was checked with the size.
                let run = usize::try_from(left).unwrap_or(usize::MAX).min(input.len() - used);
                out.extend_from_slice(&input[used..used + run]);
                used += run;
                let left = left - run as u64;
                self.state = if left == 0 { State::DataCr } else { State::Data { left } };
                continue;
            }
            let byte = input[used];
            used += 1;
            self.step(byte)?;
        }
        Ok(used)
    }

    fn step(&mut self, byte: u8) -> Result<(), ChunkError> {
        self.state = match self.state {
            State::Size { value, digits, ext } => {
                self.line += 1;
                if self.line > MAX_LINE {
                    return Err(ChunkError::Malformed("chunk-size line too long"));
                }
                match byte {
                    b'\r' => State::SizeLf { value, digits },
                    b'\n' => self.size_done(value, digits)?,
                    _ if ext => State::Size { value, digits, ext },
                    b';' if digits > 0 => State::Size { value, digits, ext: true },
                    b' ' | b'\t' if digits > 0 => State::Size { value, digits, ext: true },
                    _ => {
                        let digit = (byte as char).to_digit(16).ok_or(ChunkError::Malformed("bad chunk size"))?;
                        // 15 hex digits already exceed any cap; more could overflow.
                        if digits >= 15 {
                            return Err(ChunkError::TooLarge);
                        }
                        State::Size { value: value * 16 + u64::from(digit), digits: digits + 1, ext }
                    }
                }
            }
            State::SizeLf { value, digits } => {
                if byte != b'\n' {
                    return Err(ChunkError::Malformed("chunk-size line without LF"));
                }
                self.size_done(value, digits)?
            }
            State::Data { .. } | State::Done => self.state,
            State::DataCr => match byte {
                b'\r' => State::DataLf,
                b'\n' => self.next_size(),
                _ => return Err(ChunkError::Malformed("chunk data longer than its size")),
            },
            State::DataLf => {
                if byte != b'\n' {
                    return Err(ChunkError::Malformed("chunk data not followed by CRLF"));
                }
                self.next_size()
            }
            State::Trailer { empty, cr } => {
                self.trailers += 1;
                if self.trailers > MAX_TRAILERS {
                    return Err(ChunkError::Malformed("trailers too long"));
                }
                match byte {
                    b'\n' if empty => State::Done,
                    b'\n' => State::Trailer { empty: true, cr: false },
                    b'\r' if !cr => State::Trailer { empty, cr: true },
                    b'\r' => return Err(ChunkError::Malformed("bare CR in trailers")),
                    _ if cr => return Err(ChunkError::Malformed("bare CR in trailers")),
                    _ => State::Trailer { empty: false, cr: false },
                }
            }
        };
        Ok(())
    }

    fn next_size(&mut self) -> State {
        self.line = 0;
        State::Size { value: 0, digits: 0, ext: false }
    }

    /// The size line ended: a last chunk starts the trailers, another must fit under the cap.
    fn size_done(&mut self, value: u64, digits: u32) -> Result<State, ChunkError> {
        if digits == 0 {
            return Err(ChunkError::Malformed("empty chunk size"));
        }
        if value == 0 {
            return Ok(State::Trailer { empty: true, cr: false });
        }
        let size = usize::try_from(value).map_err(|_| ChunkError::TooLarge)?;
        if size > self.cap - self.total {
            return Err(ChunkError::TooLarge);
        }
        self.total += size;
        Ok(State::Data { left: value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tinymcp::fuzz_support::{rounds, Mutator};

    fn decode(input: &[u8], cap: usize) -> Result<(Vec<u8>, usize), ChunkError> {
        let mut decoder = Chunked::new(cap);
        let mut out = Vec::new();
        let used = decoder.feed(input, &mut out)?;
        if decoder.is_done() {
            Ok((out, used))
        } else {
            Err(ChunkError::Malformed("unfinished"))
        }
    }

    #[test]
    fn chunks_extensions_and_trailers_decode_and_what_follows_stays_unread() {
        let body = b"4;name=v\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Sum: 1\r\n\r\nGET / HTTP/1.1";
        let (out, used) = decode(body, 100).unwrap();
        assert_eq!(out, b"Wikipedia");
        assert_eq!(&body[used..], b"GET / HTTP/1.1");
        assert_eq!(decode(b"a\nhello12345\n0\n\n", 100).unwrap().0, b"hello12345");
    }

    #[test]
    fn any_split_of_the_input_decodes_the_same() {
        let body = b"3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n";
        for split in 0..body.len() {
            let mut decoder = Chunked::new(100);
            let mut out = Vec::new();
            let first = decoder.feed(&body[..split], &mut out).unwrap();
            assert_eq!(first, split);
            decoder.feed(&body[split..], &mut out).unwrap();
            assert!(decoder.is_done(), "split at {split}");
            assert_eq!(out, b"abc0123456789abcdef");
        }
    }

    #[test]
    fn a_declared_size_over_the_cap_is_refused_before_any_data() {
        assert_eq!(decode(b"ffffffffffffffffffff\r\n", 1000), Err(ChunkError::TooLarge));
        assert_eq!(decode(b"3e9\r\n", 1000), Err(ChunkError::TooLarge));
        assert_eq!(decode(b"200\r\n", 1000).unwrap_err(), ChunkError::Malformed("unfinished"));
        assert_eq!(decode(b"200\r\n", 511), Err(ChunkError::TooLarge));
    }

    #[test]
    fn broken_framing_is_malformed() {
        for bad in [&b"x\r\n"[..], b"\r\n", b"3\r\nabcd\r\n", b"3\r\nabc\rX", b"3\rX", b";\r\n"] {
            assert!(matches!(decode(bad, 100), Err(ChunkError::Malformed(_))), "{:?}", String::from_utf8_lossy(bad));
        }
        let long = format!("1;{}\r\n", "e".repeat(MAX_LINE));
        assert!(matches!(decode(long.as_bytes(), 100), Err(ChunkError::Malformed(_))));
    }

    #[test]
    fn mutated_bodies_never_panic_or_exceed_the_cap() {
        let seeds: [&[u8]; 3] = [
            b"4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n",
            b"1;a=b\r\nx\r\n0\r\nT: v\r\n\r\n",
            b"10\r\n0123456789abcdef\r\n0\r\n\r\n",
        ];
        let mut mutator = Mutator::new(0x5eed_c4a1);
        for round in 0..rounds(50_000) {
            let input = mutator.mutate(seeds[round % seeds.len()]);
            let mut decoder = Chunked::new(64);
            let mut out = Vec::new();
            // Fed in two pieces at a random point, as a socket might deliver it.
            let split = mutator.below(input.len() + 1);
            if let Ok(used) = decoder.feed(&input[..split], &mut out) {
                if used == split {
                    let _ = decoder.feed(&input[split..], &mut out);
                }
            }
            assert!(out.len() <= 64, "round {round}: {} bytes decoded", out.len());
        }
    }
}
