//! HMAC-SHA-256 from RustCrypto's `hmac` and `sha2`, narrowed to what the crate does with it:
//! tag bytes under a key meant for one use, and check a tag in constant time. SHA-256 itself is
//! used straight from `sha2`; the known-answer tests here check both wirings, not the crates.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The SHA-256 digest (and tag) length in bytes.
pub(crate) const DIGEST_LEN: usize = 32;

/// An HMAC-SHA-256 key for one use. Its pads are hashed once, here, so each tag costs only
/// the message's blocks and the outer block.
#[derive(Clone)]
pub struct TagKey {
    mac: Hmac<Sha256>,
}

impl TagKey {
    /// A key of any length (RFC 2104 §2: longer than a block is hashed first).
    pub(crate) fn new(key: &[u8]) -> TagKey {
        // HMAC takes keys of any length, so `new_from_slice` cannot fail for it.
        TagKey { mac: Hmac::new_from_slice(key).expect("HMAC accepts keys of any length") }
    }

    /// The key for the use named `label`: HMAC-SHA-256(master, label). Keys derived with two
    /// labels are unrelated, so a tag made for one use never verifies for another, whatever
    /// the bytes tagged; the same master and label give the same key in every process.
    pub(crate) fn derive(master: &[u8], label: &str) -> TagKey {
        TagKey::new(&TagKey::new(master).tag(label.as_bytes()))
    }

    /// The 32-byte tag of `data`.
    pub fn tag(&self, data: &[u8]) -> [u8; DIGEST_LEN] {
        self.mac.clone().chain_update(data).finalize().into_bytes().into()
    }

    /// Whether `tag` is the tag of `data`, compared in constant time (a check must not tell an
    /// attacker how many leading bytes were right). A tag of another length never verifies.
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> bool {
        self.mac.clone().chain_update(data).verify_slice(tag).is_ok()
    }
}

impl std::fmt::Debug for TagKey {
    // The pads are as good as the key: never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TagKey(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// `sha2::Sha256` both ways the crate calls it: one shot (skill file digests) and fed in
    /// pieces (the arguments digest of a sealed state).
    #[test]
    fn sha256_digests_fips_180_4_examples() {
        let sha256 = |data: &[u8]| -> [u8; DIGEST_LEN] { Sha256::digest(data).into() };
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
            assert_eq!(hex(&sha256(message)), expected, "{:?}", String::from_utf8_lossy(message));
        }
        let mut hash = Sha256::new();
        for piece in [b'a'; 1_000_000].chunks(997) {
            hash.update(piece);
        }
        let million_a: [u8; DIGEST_LEN] = hash.finalize().into();
        assert_eq!(hex(&million_a), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    #[test]
    fn tags_match_every_rfc_4231_test_case_and_verify() {
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
            let key = TagKey::new(key);
            let tag = key.tag(data);
            assert_eq!(&hex(&tag)[..expected.len()], expected, "RFC 4231 test case {}", number + 1);
            assert!(key.verify(data, &tag), "RFC 4231 test case {}", number + 1);
        }
    }

    #[test]
    fn verify_refuses_any_other_tag_or_data() {
        let key = TagKey::new(b"key");
        let data = b"The quick brown fox jumps over the lazy dog";
        let tag = key.tag(data);
        // The widely published HMAC_SHA256("key", "The quick brown fox jumps over the lazy dog").
        assert_eq!(hex(&tag), "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
        assert!(key.verify(data, &tag));
        for at in 0..DIGEST_LEN {
            let mut flipped = tag;
            flipped[at] ^= 1;
            assert!(!key.verify(data, &flipped), "byte {at}");
        }
        assert!(!key.verify(data, &tag[..16]), "a truncated tag");
        assert!(!key.verify(data, &[tag.as_slice(), b"x"].concat()), "a longer tag");
        assert!(!key.verify(data, b""), "no tag");
        assert!(!key.verify(b"The quick brown fox jumps over the lazy cat", &tag));
        assert!(!TagKey::new(b"kez").verify(data, &tag));
    }

    #[test]
    fn derived_keys_are_hmac_of_the_label_and_differ_per_label() {
        // Computed independently: hmac.new(hmac.new(b"\x42" * 32, label, sha256).digest(),
        // b"data", sha256) in Python. Replicas of any version must derive the same keys.
        let master = [0x42; 32];
        let state = TagKey::derive(&master, "tinymcp requestState v1");
        let session = TagKey::derive(&master, "tinymcp session-id v1");
        assert_eq!(hex(&state.tag(b"data")), "1cc7f8a58fa2775683abe9970d9e80441c0060f43e6be0aa621b3d8954376427");
        assert_eq!(hex(&session.tag(b"data")), "8c044741858ddf8e721e36895425b2763ac8b09e9be0ffa96ccfee40b2753ae5");
        assert!(!session.verify(b"data", &state.tag(b"data")));
        assert!(!state.verify(b"data", &session.tag(b"data")));
    }

    #[test]
    fn key_debug_hides_the_key() {
        assert_eq!(format!("{:?}", TagKey::new(b"secret")), "TagKey(..)");
    }
}
