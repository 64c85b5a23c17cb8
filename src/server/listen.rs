//! Listeners: whoever hears the server-wide notifications (list changes, resource updates):
//! each initialized session, and each 2026-07-28 `subscriptions/listen` stream, so broadcasts
//! never assume a session. Knows no feature type.

use crate::server::sink::{Outgoing, Sink};
use crate::wire::error::{RpcError, INTERNAL_ERROR};
use crate::wire::frame::{self, Answer};
use crate::wire::jsonrpc::RequestId;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// One party that hears server-wide notifications.
pub(crate) trait Listener: Send + Sync {
    /// Whether it hears anything yet (a session: once `initialize` is answered).
    fn is_listening(&self) -> bool;
    /// Whether it subscribed to `uri` (`resources/subscribe`).
    fn is_subscribed(&self, uri: &str) -> bool;
    /// Every URI it subscribed to.
    fn subscriptions(&self) -> Vec<String>;
    /// Delivers one notification.
    fn notify(&self, method: &str, params: &Value);
    /// Ends it (the server is shutting down): what it runs sees cancellation.
    fn close(&self);
    /// The task ids whose `notifications/tasks` it asked for (a listen stream's `taskIds`).
    fn task_ids(&self) -> &[String] {
        &[]
    }
}

/// Where this replica's server-wide notifications (list changes, resource updates, task
/// statuses) go to reach the listeners of other replicas, which hand them to
/// [`Server::deliver_notice`](crate::Server::deliver_notice) (`Server::set_notice_bus`; the
/// binary's `--store`). Without one they stay in this process.
pub trait NoticeBus: Send + Sync {
    /// Passes on one notification this server sent its own listeners. Must not block: it is
    /// called from whatever changed (a handler, the watcher).
    fn publish(&self, method: &str, params: &Value);
}

/// `_meta` key that ties a frame to its `subscriptions/listen` stream (2026-07-28).
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a listen stream delivers: the kinds the client asked for that the server offers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub tools_list_changed: bool,
    pub prompts_list_changed: bool,
    pub resources_list_changed: bool,
    /// The resource URIs whose `notifications/resources/updated` it hears.
    pub resource_subscriptions: Vec<String>,
    /// The tasks whose `notifications/tasks` it hears (tasks extension, SEP-2663).
    pub task_ids: Vec<String>,
}

impl Filter {
    /// The honoured filter as the acknowledgement echoes it (only what is on).
    pub(crate) fn to_wire(&self) -> Value {
        let mut map = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools_list_changed),
            ("promptsListChanged", self.prompts_list_changed),
            ("resourcesListChanged", self.resources_list_changed),
        ] {
            if on {
                map.insert(key.into(), true.into());
            }
        }
        if !self.resource_subscriptions.is_empty() {
            map.insert("resourceSubscriptions".into(), json!(self.resource_subscriptions));
        }
        if !self.task_ids.is_empty() {
            map.insert("taskIds".into(), json!(self.task_ids));
        }
        Value::Object(map)
    }

    /// Whether a server-wide notification is one this stream asked for (resource updates are
    /// chosen by URI before they get here, through `is_subscribed`, and task statuses by id,
    /// through `task_ids`).
    fn wants(&self, method: &str) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools_list_changed,
            "notifications/prompts/list_changed" => self.prompts_list_changed,
            "notifications/resources/list_changed" => self.resources_list_changed,
            "notifications/resources/updated" => !self.resource_subscriptions.is_empty(),
            "notifications/tasks" => !self.task_ids.is_empty(),
            _ => false,
        }
    }
}

/// One open `subscriptions/listen` request (2026-07-28): a listener whose frames go to the
/// request's own sink, each tagged with the subscription id (the request id as sent). It holds
/// no worker: it lives in its connection's table until cancelled, the connection ends, or the
/// server shuts down (then it is answered).
pub(crate) struct ListenStream {
    id: RequestId,
    filter: Filter,
    sink: Sink,
    ended: AtomicBool,
    /// Its place under the server-wide cap, given back when the stream is dropped.
    _slot: ListenSlot,
}

impl ListenStream {
    /// Opens the stream: the first frame is `notifications/subscriptions/acknowledged` with the
    /// honoured filter (spec: nothing is sent on a subscription before it).
    pub(crate) fn open(id: RequestId, grant: Grant, sink: Sink) -> ListenStream {
        let Grant { filter, slot } = grant;
        let stream = ListenStream { id, filter, sink, ended: AtomicBool::new(false), _slot: slot };
        let params = json!({ "_meta": stream.meta(), "notifications": stream.filter.to_wire() });
        stream.sink.send(Outgoing::Notification(frame::notification(ACKNOWLEDGED, &params)));
        stream
    }

    fn meta(&self) -> Value {
        json!({ SUBSCRIPTION_ID: self.id })
    }

    /// Ends the stream without an answer (the client cancelled it or went away); whether it
    /// was open until now.
    pub(crate) fn end(&self) -> bool {
        !self.ended.swap(true, Ordering::SeqCst)
    }
}

const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

impl Listener for ListenStream {
    fn is_listening(&self) -> bool {
        !self.ended.load(Ordering::SeqCst)
    }

    fn is_subscribed(&self, uri: &str) -> bool {
        self.filter.resource_subscriptions.iter().any(|u| u == uri)
    }

    fn subscriptions(&self) -> Vec<String> {
        self.filter.resource_subscriptions.clone()
    }

    fn task_ids(&self) -> &[String] {
        &self.filter.task_ids
    }

    fn notify(&self, method: &str, params: &Value) {
        if !self.filter.wants(method) {
            return;
        }
        let mut params = params.clone();
        if let Value::Object(map) = &mut params {
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(SUBSCRIPTION_ID.into(), json!(self.id));
            }
        }
        self.sink.send(Outgoing::Notification(frame::notification(method, &params)));
    }

    /// Spec (subscriptions/listen): a server ending the subscription gracefully answers it.
    fn close(&self) {
        if !self.ended.swap(true, Ordering::SeqCst) {
            let result = json!({ "resultType": "complete", "_meta": self.meta() });
            self.sink.send(Outgoing::Response(Answer::new(self.id.clone(), Ok(result.into()))));
        }
    }
}

/// A `subscriptions/listen` the method table allowed: the honoured filter, and a place under
/// the server-wide cap on open streams.
pub(crate) struct Grant {
    pub filter: Filter,
    slot: ListenSlot,
}

impl Grant {
    pub(crate) fn new(filter: Filter, slot: ListenSlot) -> Grant {
        Grant { filter, slot }
    }
}

/// The server-wide count of open listen streams (every connection, every transport): over
/// HTTP each 2026-07-28 POST is a connection of its own, so a per-connection cap alone bounds
/// nothing.
#[derive(Debug, Default)]
pub(crate) struct ListenSlots {
    open: Arc<AtomicUsize>,
}

impl ListenSlots {
    /// A place for one more stream, or `-32603` when `max` are open (the server is at capacity;
    /// the request itself is fine, so it is not `-32600`, and HTTP answers it `503`).
    pub(crate) fn take(&self, max: usize) -> Result<ListenSlot, RpcError> {
        let taken = self.open.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1));
        match taken {
            Ok(_) => Ok(ListenSlot(Arc::clone(&self.open))),
            Err(_) => Err(at_capacity(max)),
        }
    }

    /// Streams open now.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }
}

/// The refusal at the server-wide cap.
pub(crate) fn at_capacity(max: usize) -> RpcError {
    let message = format!(
        "server busy: {max} subscriptions/listen streams are open, the most it serves at once \
         (--max-listen-streams); try again later"
    );
    RpcError::new(INTERNAL_ERROR, message).with_data(json!({ "maxListenStreams": max }))
}

/// One open stream's place under the cap; dropping it frees the place.
#[derive(Debug)]
pub(crate) struct ListenSlot(Arc<AtomicUsize>);

impl Drop for ListenSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_capped_and_given_back_when_dropped() {
        let slots = ListenSlots::default();
        let a = slots.take(2).expect("first");
        let b = slots.take(2).expect("second");
        let refused = slots.take(2).expect_err("third refused");
        assert_eq!(refused.code, INTERNAL_ERROR);
        assert_eq!(slots.open(), 2);
        drop(a);
        assert_eq!(slots.open(), 1);
        let _c = slots.take(2).expect("a freed place is taken again");
        drop(b);
        assert_eq!(slots.open(), 1);
    }
}
