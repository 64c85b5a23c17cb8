//! SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), written here so sealing `requestState`
//! needs no crypto dependency, plus a constant-time comparison for tags. Pure std, no crate module.

/// The digest length in bytes.
pub(crate) const DIGEST_LEN: usize = 32;

/// The block length in bytes; HMAC pads keys to it.
const BLOCK_LEN: usize = 64;

/// FIPS 180-4 §5.3.3: the initial hash value.
const H0: [u32; 8] =
    [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19];

/// FIPS 180-4 §4.2.2: the round constants.
const K: [u32; 64] = [
    0x428a_2f98,
    0x7137_4491,
    0xb5c0_fbcf,
    0xe9b5_dba5,
    0x3956_c25b,
    0x59f1_11f1,
    0x923f_82a4,
    0xab1c_5ed5,
    0xd807_aa98,
    0x1283_5b01,
    0x2431_85be,
    0x550c_7dc3,
    0x72be_5d74,
    0x80de_b1fe,
    0x9bdc_06a7,
    0xc19b_f174,
    0xe49b_69c1,
    0xefbe_4786,
    0x0fc1_9dc6,
    0x240c_a1cc,
    0x2de9_2c6f,
    0x4a74_84aa,
    0x5cb0_a9dc,
    0x76f9_88da,
    0x983e_5152,
    0xa831_c66d,
    0xb003_27c8,
    0xbf59_7fc7,
    0xc6e0_0bf3,
    0xd5a7_9147,
    0x06ca_6351,
    0x1429_2967,
    0x27b7_0a85,
    0x2e1b_2138,
    0x4d2c_6dfc,
    0x5338_0d13,
    0x650a_7354,
    0x766a_0abb,
    0x81c2_c92e,
    0x9272_2c85,
    0xa2bf_e8a1,
    0xa81a_664b,
    0xc24b_8b70,
    0xc76c_51a3,
    0xd192_e819,
    0xd699_0624,
    0xf40e_3585,
    0x106a_a070,
    0x19a4_c116,
    0x1e37_6c08,
    0x2748_774c,
    0x34b0_bcb5,
    0x391c_0cb3,
    0x4ed8_aa4a,
    0x5b9c_ca4f,
    0x682e_6ff3,
    0x748f_82ee,
    0x78a5_636f,
    0x84c8_7814,
    0x8cc7_0208,
    0x90be_fffa,
    0xa450_6ceb,
    0xbef9_a3f7,
    0xc671_78f2,
];

/// An incremental SHA-256 hash: `update` any number of times, then `finish`.
#[derive(Clone)]
pub(crate) struct Sha256 {
    state: [u32; 8],
    block: [u8; BLOCK_LEN],
    /// Bytes waiting in `block` (always < 64 between calls).
    filled: usize,
    /// Total message length in bytes so far.
    length: u64,
}

impl Sha256 {
    /// A hash of the empty message so far.
    pub(crate) fn new() -> Self {
        Sha256 { state: H0, block: [0; BLOCK_LEN], filled: 0, length: 0 }
    }

    /// Appends `data` to the message.
    pub(crate) fn update(&mut self, mut data: &[u8]) {
        self.length = self.length.wrapping_add(data.len() as u64);
        if self.filled > 0 {
            let take = (BLOCK_LEN - self.filled).min(data.len());
            let (head, rest) = data.split_at(take);
            self.block[self.filled..self.filled + take].copy_from_slice(head);
            self.filled += take;
            data = rest;
            if self.filled < BLOCK_LEN {
                return;
            }
            compress(&mut self.state, &self.block);
            self.filled = 0;
        }
        let mut blocks = data.chunks_exact(BLOCK_LEN);
        for block in &mut blocks {
            compress(&mut self.state, block);
        }
        let rest = blocks.remainder();
        self.block[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    /// FIPS 180-4 §5.1.1: pads with `1`, zeros and the bit length, and returns the digest.
    pub(crate) fn finish(mut self) -> [u8; DIGEST_LEN] {
        let bit_length = self.length.wrapping_mul(8);
        let mut padding = [0u8; BLOCK_LEN + 8];
        padding[0] = 0x80;
        // One `0x80`, then zeros until 8 bytes short of a block boundary.
        let zeros = (BLOCK_LEN + BLOCK_LEN - 8 - 1 - self.filled) % BLOCK_LEN;
        self.update(&padding[..1 + zeros]);
        padding[..8].copy_from_slice(&bit_length.to_be_bytes());
        self.update(&padding[..8]);
        debug_assert_eq!(self.filled, 0);
        let mut out = [0u8; DIGEST_LEN];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.state) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }
}

/// The SHA-256 digest of `data`.
pub(crate) fn digest(data: &[u8]) -> [u8; DIGEST_LEN] {
    let mut hash = Sha256::new();
    hash.update(data);
    hash.finish()
}

/// FIPS 180-4 §6.2.2: one 64-byte block into the running state.
fn compress(state: &mut [u32; 8], block: &[u8]) {
    let mut w = [0u32; 64];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    for t in 16..64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for (k, w) in K.iter().zip(w) {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(*k).wrapping_add(w);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *word = word.wrapping_add(add);
    }
}

/// An HMAC-SHA-256 key with its inner and outer pads already hashed, so each tag costs two
/// compressions fewer than hashing the padded key again.
#[derive(Clone)]
pub(crate) struct HmacKey {
    inner: Sha256,
    outer: Sha256,
}

impl HmacKey {
    /// RFC 2104 §2: keys longer than a block are hashed first, shorter ones zero-padded.
    pub(crate) fn new(key: &[u8]) -> Self {
        let mut padded = [0u8; BLOCK_LEN];
        if key.len() > BLOCK_LEN {
            padded[..DIGEST_LEN].copy_from_slice(&digest(key));
        } else {
            padded[..key.len()].copy_from_slice(key);
        }
        let mut inner = Sha256::new();
        inner.update(&padded.map(|b| b ^ 0x36));
        let mut outer = Sha256::new();
        outer.update(&padded.map(|b| b ^ 0x5c));
        HmacKey { inner, outer }
    }

    /// An incremental tag computation under this key.
    pub(crate) fn start(&self) -> Hmac {
        Hmac { inner: self.inner.clone(), outer: self.outer.clone() }
    }

    /// The tag of `data` in one call.
    pub(crate) fn tag(&self, data: &[u8]) -> [u8; DIGEST_LEN] {
        let mut mac = self.start();
        mac.update(data);
        mac.finish()
    }
}

impl std::fmt::Debug for HmacKey {
    // The pads are as good as the key: never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HmacKey(..)")
    }
}

/// An HMAC-SHA-256 computation in progress.
pub(crate) struct Hmac {
    inner: Sha256,
    outer: Sha256,
}

impl Hmac {
    /// Appends `data` to the message.
    pub(crate) fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The 32-byte tag.
    pub(crate) fn finish(self) -> [u8; DIGEST_LEN] {
        let mut outer = self.outer;
        outer.update(&self.inner.finish());
        outer.finish()
    }
}

/// HMAC-SHA-256 of `data` under `key` (the RFC 4231 vectors check it; `StateKey` keeps an
/// `HmacKey` instead, so the padded key is hashed once, not per token).
#[cfg(test)]
pub(crate) fn hmac(key: &[u8], data: &[u8]) -> [u8; DIGEST_LEN] {
    HmacKey::new(key).tag(data)
}

/// Whether `a` and `b` are equal, taking the same time wherever they differ (tag checks must
/// not tell an attacker how many leading bytes were right). Lengths are not secret.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn digests_fips_180_4_examples() {
        let cases: [(&[u8], &str); 4] = [
            (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
            (
                b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
            ),
        ];
        for (message, expected) in cases {
            assert_eq!(hex(&digest(message)), expected, "{:?}", String::from_utf8_lossy(message));
        }
    }

    #[test]
    fn digests_a_million_a_in_uneven_pieces() {
        let mut hash = Sha256::new();
        let piece = [b'a'; 997];
        let mut left = 1_000_000;
        while left > 0 {
            let n = left.min(piece.len());
            hash.update(&piece[..n]);
            left -= n;
        }
        assert_eq!(hex(&hash.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        assert_eq!(
            hex(&digest(&[b'a'; 1_000_000])),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn incremental_equals_one_shot_at_every_split_around_block_boundaries() {
        let message: Vec<u8> = (0..200u8).collect();
        for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 200] {
            let whole = digest(&message[..len]);
            for split in 0..=len {
                let mut hash = Sha256::new();
                hash.update(&message[..split]);
                hash.update(&message[split..len]);
                assert_eq!(hash.finish(), whole, "len {len} split {split}");
            }
        }
    }

    #[test]
    fn hmac_matches_every_rfc_4231_test_case() {
        let key4: Vec<u8> = (1..=25).collect();
        let cases: [(&[u8], &[u8], &str); 7] = [
            (&[0x0b; 20], b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (&[0xaa; 20], &[0xdd; 50], "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (&key4, &[0xcd; 50], "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            // Test case 5 is truncated to 128 bits.
            (&[0x0c; 20], b"Test With Truncation", "a3b6167473100ee06e0c796c2955552b"),
            // Test cases 6 and 7 use a key longer than a block, which HMAC hashes first.
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                &[0xaa; 131],
                b"This is a test using a larger than block-size key and a larger than block-size data. \
                  The key needs to be hashed before being used by the HMAC algorithm.",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (number, (key, data, expected)) in cases.into_iter().enumerate() {
            let tag = hex(&hmac(key, data));
            assert_eq!(&tag[..expected.len()], expected, "RFC 4231 test case {}", number + 1);
        }
    }

    #[test]
    fn hmac_incremental_equals_one_shot() {
        let key = HmacKey::new(b"key");
        let mut mac = key.start();
        mac.update(b"The quick brown fox ");
        mac.update(b"jumps over the lazy dog");
        let tag = mac.finish();
        assert_eq!(tag, key.tag(b"The quick brown fox jumps over the lazy dog"));
        // The widely published HMAC_SHA256("key", "The quick brown fox jumps over the lazy dog").
        assert_eq!(hex(&tag), "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
    }

    #[test]
    fn constant_time_eq_compares_bytes_and_lengths() {
        assert!(constant_time_eq(b"", b""));
        assert!(constant_time_eq(b"same tag", b"same tag"));
        assert!(!constant_time_eq(b"same tag", b"same taG"));
        assert!(!constant_time_eq(b"Same tag", b"same tag"));
        assert!(!constant_time_eq(b"short", b"short and long"));
    }

    #[test]
    fn key_debug_hides_the_key() {
        assert_eq!(format!("{:?}", HmacKey::new(b"secret")), "HmacKey(..)");
    }
}
