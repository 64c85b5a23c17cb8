//! Unguessable tokens (session ids, task ids, secrets) from the OS's random source.

use std::fs::File;
use std::io::{self, Read};
use std::sync::OnceLock;

const SOURCE: &str = "/dev/urandom";

/// `bytes` random bytes from `/dev/urandom`.
pub fn bytes(n: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let mut source = source()?;
    source.read_exact(&mut buf).map_err(|e| io::Error::new(e.kind(), format!("{SOURCE}: {e}")))?;
    Ok(buf)
}

/// The source, opened once: opening it was most of the cost of a session id, and an open
/// descriptor still works when the process has run out of descriptors.
fn source() -> io::Result<&'static File> {
    static OPEN: OnceLock<File> = OnceLock::new();
    if let Some(file) = OPEN.get() {
        return Ok(file);
    }
    // Named in the error: a container without /dev (or a chroot) otherwise says only "not found".
    let file = File::open(SOURCE).map_err(|e| io::Error::new(e.kind(), format!("{SOURCE}: {e}")))?;
    Ok(OPEN.get_or_init(|| file))
}

/// A lowercase hex token of `n` random bytes (2n visible ASCII characters).
pub fn hex_token(n: usize) -> io::Result<String> {
    Ok(bytes(n)?.iter().map(|b| format!("{b:02x}")).collect())
}

/// A token of `n` random bytes as [`hex_token`], after `node.` when a node id is given: the
/// form of every id a load balancer may route on (session and task ids).
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
