//! Test-only: the one deterministic mutator behind every fuzz test (the HTTP request-head parser
//! and chunked decoder; JSON-RPC messages to every method; URI templates, schemas, manifests and
//! globs in `transport/fuzz.rs`). Fixed seeds and a xorshift generator, so a failure replays
//! exactly; the test command runs a few seconds of it, `scripts/fuzz.sh` longer
//! (`TINYMCP_FUZZ_ROUNDS`).

/// Tokens that tend to reach corners of an HTTP parser.
pub(crate) const HTTP_TOKENS: &[&[u8]] = &[
    b"\r\n",
    b"\n",
    b"\r\n\r\n",
    b":",
    b" ",
    b";",
    b"0",
    b"ffffffffffffffff",
    b"18446744073709551616",
    b"Content-Length: 99999999999999\r\n",
    b"Content-Length: 5\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Expect: 100-continue\r\n",
    b"\0",
    b"\xff\xfe",
    b"HTTP/1.1",
];

/// Tokens that tend to reach corners of JSON, JSON-RPC and our parameter decoders.
pub(crate) const JSON_TOKENS: &[&[u8]] = &[
    b"null",
    b"{}",
    b"[]",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"\"",
    b",",
    b":",
    b"-1",
    b"1e308",
    b"9223372036854775808",
    b"0.5",
    b"\"\\u0000\"",
    b"\"\\ud800\"",
    b"\"jsonrpc\":\"2.0\",",
    b"\"id\":1,",
    b"\"method\":\"ping\",",
    b"\"_meta\":{\"progressToken\":1},",
    b"../",
    b"%2e%2e/",
    b"{+path}",
    b"{",
    b"}",
    b"**",
    b"*",
    b"?",
    b"\xff",
];

/// A seeded byte mutator.
pub(crate) struct Mutator {
    state: u64,
    tokens: &'static [&'static [u8]],
}

impl Mutator {
    /// A mutator splicing in HTTP tokens.
    pub(crate) fn new(seed: u64) -> Self {
        Mutator::with_tokens(seed, HTTP_TOKENS)
    }

    /// A mutator splicing in `tokens`.
    pub(crate) fn with_tokens(seed: u64, tokens: &'static [&'static [u8]]) -> Self {
        Mutator { state: seed | 1, tokens }
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// `seed` with one to four random edits.
    pub(crate) fn mutate(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut data = seed.to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(data.len() + 1);
            match self.below(7) {
                0 if at < data.len() => data[at] ^= 1 << self.below(8),
                1 if at < data.len() => data[at] = self.next() as u8,
                2 => {
                    let token = self.tokens[self.below(self.tokens.len())];
                    data.splice(at..at, token.iter().copied());
                }
                3 => {
                    let end = (at + self.below(16)).min(data.len());
                    data.drain(at..end);
                }
                4 => {
                    let end = (at + self.below(32)).min(data.len());
                    let copy = data[at..end].to_vec();
                    data.splice(at..at, copy);
                }
                5 => data.truncate(at),
                _ => data.insert(at, self.next() as u8),
            }
        }
        data
    }
}

/// Rounds to run: `default`, or `TINYMCP_FUZZ_ROUNDS` for a longer run.
pub(crate) fn rounds(default: usize) -> usize {
    std::env::var("TINYMCP_FUZZ_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}
