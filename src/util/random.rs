//! Unguessable tokens (session ids, task ids, secrets) from the OS's random source, through
//! `getrandom`: the `getrandom` system call on Linux. No path is opened and no descriptor held,
//! so it works in a chroot or a `FROM scratch` container without `/dev`, and when the process
//! has run out of descriptors.

use std::io;

/// `n` random bytes from the OS.
pub fn bytes(n: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).map_err(|e| io::Error::other(format!("the OS gave no random bytes (getrandom): {e}")))?;
    Ok(buf)
}

/// A lowercase hex token of `n` random bytes (2n visible ASCII characters).
pub fn hex_token(n: usize) -> io::Result<String> {
    Ok(bytes(n)?.iter().map(|b| format!("{b:02x}")).collect())
}

/// A token of `n` random bytes as lowercase hex (2n characters), after `node.` when a node id
/// is given: the form of every id a load balancer may route on (session and task ids).
pub fn routed_token(node: Option<&str>, n: usize) -> io::Result<String> {
    let token = hex_token(n)?;
    Ok(match node {
        Some(node) => format!("{node}.{token}"),
        None => token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_hex_and_differ() {
        let a = hex_token(16).unwrap();
        let b = hex_token(16).unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn routed_tokens_start_with_the_node() {
        assert!(routed_token(Some("a1"), 16).unwrap().starts_with("a1."));
        assert!(!routed_token(None, 16).unwrap().contains('.'));
    }
}
