//! The crate `Error` for setup and I/O failures (bind, read, write). Never sent on the wire.

use std::fmt;
use std::io;

/// A failure to start or keep serving.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a stream failed.
    Io(io::Error),
    /// A listener could not be set up.
    Bind(String),
    /// A configuration that cannot be served.
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "i/o error: {e}"),
            Error::Bind(why) => write!(f, "cannot listen: {why}"),
            Error::Config(why) => write!(f, "bad configuration: {why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}
