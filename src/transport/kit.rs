//! What a transport is built from, for a transport of your own (the crate `tinymcp-http` is
//! built from these only).
//!
//! A transport reads a message (a line, a request body), parses it with [`parse`], and hands it
//! to the client's [`Connection`] with [`Connection::handle`] and what it knows besides the body
//! ([`Arrival`]); everything the connection answers or sends arrives on the [`Sink`] given
//! there, as [`Outgoing`] messages the transport writes out in order (one writer per output
//! stream). [`Connection::handle_text`] does the parsing for a transport with no facts of its
//! own, as stdio and [`crate::MemoryClient`] are.
//!
//! Beside that core: the era of a message as a transport must know it before the connection
//! sees it ([`era`], e.g. to choose between a session and none), ready-made frames
//! ([`error_response`], [`write_batch`]), the bounded channel a slow client cannot grow
//! ([`Sink::bounded`]), what a session's `initialize` settled ([`Negotiated`], to carry a
//! session across replicas), the server's key for tagging session ids ([`StateKey`]), and a
//! few leaves (random ids, URL-safe base64, percent-encoding, a condition to wait on).

pub use crate::server::connection::Connection;
pub use crate::server::session::{Negotiated, Session};
pub use crate::server::shutting_down;
pub use crate::server::sink::{BoundedReceiver, Outgoing, Sink};
pub use crate::util::condition::Condition;
pub use crate::util::crypto::TagKey;
pub use crate::util::seal::{from_url_safe, to_url_safe, StateKey};
pub use crate::wire::frame::{error_response, text_of, write_batch, Answer, Reply};
pub use crate::wire::jsonrpc::{parse, Incoming, Malformed, Message, Method, Notification, Request, Response};
pub use crate::wire::meta::{batch_is_per_request, batch_refused, era, Arrival, Era};
pub use crate::wire::params::Params;

/// Random bytes and ids from the OS (session ids, stream ids).
pub mod random {
    pub use crate::util::random::{bytes, routed_token};
}

/// Base64 (RFC 4648, padded), the one `blob` contents use.
pub mod base64 {
    pub use crate::util::base64::encode;
}

/// Percent-encoding (RFC 3986 §2.1), as URIs and form bodies need it.
pub mod percent {
    pub use crate::util::percent::{encode, is_unreserved};
}
