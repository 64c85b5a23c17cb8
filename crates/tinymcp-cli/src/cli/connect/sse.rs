//! Reading server-sent events (the client side): `event`, `data`, `id` and `retry` fields,
//! an event per blank line, comments skipped; an event's data is capped.

use super::http1::read_line;
use std::io::{self, BufRead};

/// One event as the server sent it.
#[derive(Debug, Default, PartialEq)]
pub struct Event {
    /// The `event` field; empty for the default `message`.
    pub event: String,
    /// The `data` lines joined with `\n`; empty for an event that only carries an id.
    pub data: String,
    /// The `id` field, when the event has one.
    pub id: Option<String>,
    /// The `retry` field in milliseconds, when the event has one.
    pub retry_ms: Option<u64>,
}

/// The events of one stream, in order.
pub struct Events<R> {
    reader: R,
    cap: usize,
}

impl<R: BufRead> Events<R> {
    /// Events read from `reader`, each one's data at most `cap` bytes.
    pub fn new(reader: R, cap: usize) -> Self {
        Events { reader, cap }
    }

    /// The next event, or `None` at the end of the stream (an unfinished last event is dropped,
    /// as the SSE standard says).
    pub fn next_event(&mut self) -> io::Result<Option<Event>> {
        let mut event = Event::default();
        let mut seen = false;
        loop {
            let Some(line) = read_line(&mut self.reader, self.cap)? else { return Ok(None) };
            if line.is_empty() {
                if seen {
                    return Ok(Some(event));
                }
                continue;
            }
            if line[0] == b':' {
                continue;
            }
            let line = String::from_utf8_lossy(&line);
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            seen = true;
            match field {
                "event" => event.event = value.to_owned(),
                "data" => {
                    if event.data.len() + value.len() > self.cap {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("an event larger than {} bytes", self.cap),
                        ));
                    }
                    if !event.data.is_empty() {
                        event.data.push('\n');
                    }
                    event.data.push_str(value);
                }
                "id" if !value.contains('\0') => event.id = Some(value.to_owned()),
                "retry" => event.retry_ms = value.parse().ok(),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Event, Events};

    #[test]
    fn events_are_split_on_blank_lines_and_fields_read() {
        let input: &[u8] = b": comment\r\nid: 7\r\nretry: 500\r\ndata:\r\n\r\nevent: endpoint\ndata: /message?s=1\n\n\
                             data: {\"a\":\ndata: 1}\n\ndata: unfinished";
        let mut events = Events::new(input, 64);
        let primer = Event { id: Some("7".into()), retry_ms: Some(500), ..Event::default() };
        assert_eq!(events.next_event().unwrap(), Some(primer));
        let endpoint = events.next_event().unwrap().unwrap();
        assert_eq!((endpoint.event.as_str(), endpoint.data.as_str()), ("endpoint", "/message?s=1"));
        assert_eq!(events.next_event().unwrap().unwrap().data, "{\"a\":\n1}");
        assert_eq!(events.next_event().unwrap(), None);
    }

    #[test]
    fn an_event_over_the_cap_is_an_error() {
        let input: &[u8] = b"data: 0123456789\ndata: 0123456789\n\n";
        assert!(Events::new(input, 16).next_event().is_err());
    }
}
