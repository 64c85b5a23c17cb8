//! Standard base64 (RFC 4648 §4, with padding) for blob contents and cursors.
//! Pure std: written here so the crate needs no base64 dependency.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Marks bytes that are not in the alphabet in [`DECODE`].
const INVALID: u8 = 0xFF;

/// Reverse lookup table: byte -> 6-bit value, or [`INVALID`].
const DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// Encodes `bytes` as standard base64 with `=` padding.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    let sextet = |n: u32, shift: u32| char::from(ALPHABET[((n >> shift) & 0x3F) as usize]);
    let mut chunks = bytes.chunks_exact(3);
    for chunk in &mut chunks {
        if let [a, b, c] = *chunk {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c);
            out.push(sextet(n, 18));
            out.push(sextet(n, 12));
            out.push(sextet(n, 6));
            out.push(sextet(n, 0));
        }
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.push(sextet(n, 18));
            out.push(sextet(n, 12));
            out.push_str("==");
        }
        [a, b] => {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8);
            out.push(sextet(n, 18));
            out.push(sextet(n, 12));
            out.push(sextet(n, 6));
            out.push('=');
        }
        _ => {}
    }
    out
}

/// Decodes strict standard base64: the length must be a multiple of 4, only
/// alphabet characters may appear, `=` padding (at most two) only at the end,
/// and the unused trailing bits must be zero.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let input = text.as_bytes();
    if !input.len().is_multiple_of(4) {
        return Err(format!("invalid base64 length {}: expected a multiple of 4", input.len()));
    }
    let padding = input.iter().rev().take_while(|&&b| b == b'=').count();
    if padding > 2 {
        return Err(format!("invalid base64 padding: expected at most 2 '=', got {padding}"));
    }
    let data_len = input.len() - padding;
    let mut out = Vec::with_capacity(input.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits: u32 = 0;
    for (pos, &byte) in input.iter().take(data_len).enumerate() {
        let value = DECODE[usize::from(byte)];
        if value == INVALID {
            return Err(if byte == b'=' {
                format!("invalid base64 padding at offset {pos}: '=' is only allowed at the end")
            } else {
                format!(
                    "invalid base64 character {:?} at offset {pos}",
                    text.get(pos..).and_then(|s| s.chars().next()).unwrap_or(char::REPLACEMENT_CHARACTER)
                )
            });
        }
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if acc != 0 {
        return Err("invalid base64: non-zero trailing bits before padding".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_rfc4648_test_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(decode(encoded).as_deref(), Ok(plain.as_bytes()));
        }
    }

    #[test]
    fn round_trips_all_byte_values_and_lengths() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        for len in 0..bytes.len() {
            let slice = &bytes[..len];
            let encoded = encode(slice);
            assert_eq!(encoded.len(), len.div_ceil(3) * 4);
            assert_eq!(decode(&encoded).as_deref(), Ok(slice));
        }
    }

    #[test]
    fn uses_plus_and_slash() {
        assert_eq!(encode(&[0xFB, 0xFF]), "+/8=");
        assert_eq!(decode("+/8=").as_deref(), Ok(&[0xFB, 0xFF][..]));
    }

    #[test]
    fn rejects_bad_length() {
        let err = decode("Zm9").unwrap_err();
        assert!(err.contains("multiple of 4"), "{err}");
        assert!(decode("Z").is_err());
        assert!(decode("Zm9vY").is_err());
    }

    #[test]
    fn rejects_characters_outside_the_alphabet() {
        let err = decode("Zm9*").unwrap_err();
        assert!(err.contains("character '*' at offset 3"), "{err}");
        assert!(decode("Zm9-").is_err(), "url-safe alphabet is not accepted");
        assert!(decode("Zm9_").is_err());
        assert!(decode("Zm 9").is_err());
        assert!(decode("Zm9v\n").is_err());
        assert!(decode("Zmé=").is_err());
    }

    #[test]
    fn rejects_misplaced_or_excess_padding() {
        let err = decode("Zg=a").unwrap_err();
        assert!(err.contains("only allowed at the end"), "{err}");
        assert!(decode("=Zm9").is_err());
        assert!(decode("Zg==Zm9v").is_err());
        let err = decode("Z===").unwrap_err();
        assert!(err.contains("at most 2"), "{err}");
        assert!(decode("====").is_err());
    }

    #[test]
    fn rejects_non_zero_trailing_bits() {
        // "Zh==" has the same first byte as "Zg==" but sets unused bits.
        let err = decode("Zh==").unwrap_err();
        assert!(err.contains("trailing bits"), "{err}");
        assert!(decode("Zm9=").is_err());
        assert!(decode("Zm8=").is_ok());
    }

    #[test]
    fn error_messages_are_lowercase_without_period() {
        for bad in ["Zm9", "Zm9*", "Z===", "Zh==", "Zg=a"] {
            let err = decode(bad).unwrap_err();
            assert!(err.starts_with(|c: char| c.is_lowercase()), "{err}");
            assert!(!err.ends_with('.'), "{err}");
        }
    }
}
