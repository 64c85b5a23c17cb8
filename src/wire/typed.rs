//! A result kept typed on its way to the one writer of its stream (`Typed`), which serialises it
//! member by member straight into its output; and the length of JSON counted without keeping
//! it. Knows nothing of MCP.

use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::io::{self, Write};

/// A writer that counts what passes through it to `inner`.
struct CountingWriter<W> {
    inner: W,
    bytes: usize,
}

impl<W: Write> Write for CountingWriter<W> {
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
    let mut count = CountingWriter { inner: io::sink(), bytes: 0 };
    // Counting never fails, and what writers write always serializes.
    let _ = write(&mut count);
    count.bytes
}

/// The length of `value` as compact JSON.
pub fn encoded_len(value: &Value) -> usize {
    counted(|out| Ok(serde_json::to_writer(out, value)?))
}

/// The members of a JSON object being written, between its braces: what `Typed::write_members`
/// writes into. Each member brings its comma.
pub struct Members<'w> {
    out: &'w mut dyn Write,
    first: bool,
}

impl<'w> Members<'w> {
    /// The members of an object whose `{` is written already, written into `out`.
    pub(crate) fn new(out: &'w mut dyn Write) -> Members<'w> {
        Members { out, first: true }
    }

    /// One member.
    pub fn entry<V: Serialize + ?Sized>(&mut self, key: &str, value: &V) -> serde_json::Result<()> {
        self.comma()?;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b":").map_err(serde_json::Error::io)?;
        serde_json::to_writer(&mut *self.out, value)
    }

    /// Members already written as JSON (`"a":1,"b":2`), as they are: what is the same in many
    /// results is serialised once.
    pub(crate) fn raw(&mut self, members: &str) -> serde_json::Result<()> {
        self.comma()?;
        self.out.write_all(members.as_bytes()).map_err(serde_json::Error::io)
    }

    fn comma(&mut self) -> serde_json::Result<()> {
        if !std::mem::replace(&mut self.first, false) {
            self.out.write_all(b",").map_err(serde_json::Error::io)?;
        }
        Ok(())
    }
}

/// A result its handler kept typed: the writer of its stream serialises it, member by member,
/// straight into its output (no `Value` map, no text of its own).
pub trait Typed: Send + fmt::Debug {
    /// Writes every member but `_meta` into the object `members` is writing.
    fn write_members(&self, members: &mut Members<'_>) -> serde_json::Result<()>;
    /// The result's own `_meta`, if any: written first, or merged into by a wrapper.
    fn meta(&self) -> Option<&Value>;
    /// About how many bytes the members but `_meta` take as JSON, without writing them (what a
    /// metered stream counts while the result waits for its writer): the length of the data
    /// they carry plus a little for each member.
    fn size_hint(&self) -> usize;
}
