//! A result kept typed on its way to the one writer of its stream (`Typed`), which serialises it
//! member by member straight into its output; and the length of JSON counted without keeping
//! it. Knows nothing of MCP.

use serde_json::ser::{CompactFormatter, Compound};
use serde_json::Value;
use std::fmt;
use std::io::{self, Write};

/// A writer that counts what passes through it to `inner`.
struct Tally<W> {
    inner: W,
    bytes: usize,
}

impl<W: Write> Write for Tally<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.bytes += n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The length of `write`'s output, counted as it is written out instead of built as text (no
/// allocation: this runs for every request and, on a metered stream, every answer).
pub(crate) fn counted(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> usize {
    let mut count = Tally { inner: io::sink(), bytes: 0 };
    // Counting never fails, and what writers write always serializes.
    let _ = write(&mut count);
    count.bytes
}

/// The length of `value` as compact JSON.
pub fn encoded_len(value: &Value) -> usize {
    counted(|out| Ok(serde_json::to_writer(out, value)?))
}

/// The members of a JSON object being written: what `Typed::write_members` writes into.
pub type Members<'a, 'w> = Compound<'a, &'w mut dyn Write, CompactFormatter>;

/// A result its handler kept typed: the writer of its stream serialises it, member by member,
/// straight into its output (no `Value` map, no text of its own).
pub trait Typed: Send + fmt::Debug {
    /// Writes every member but `_meta` into the object `members` is writing.
    fn write_members(&self, members: &mut Members<'_, '_>) -> serde_json::Result<()>;
    /// The result's own `_meta`, if any: written first, or merged into by a wrapper.
    fn meta(&self) -> Option<&Value>;
    /// About how many bytes the members but `_meta` take as JSON, without writing them (what a
    /// metered stream counts while the result waits for its writer): the length of the data
    /// they carry plus a little for each member.
    fn size_hint(&self) -> usize;
}
