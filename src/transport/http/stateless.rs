//! Streamable HTTP for revision 2026-07-28: each POST is one request, served by a connection of
//! its own with no session (none is created or echoed; no resumability). The request's `_meta`
//! and its SEP-2243 headers are checked first, in the contract's order; the answer is JSON, or
//! an SSE stream when something comes before it (progress, log messages) and for
//! `subscriptions/listen`, whose stream lasts until the client hangs up.

use super::headers::{self, Header};
use super::http1::Exchange;
use super::pump::{Pump, Stop};
use super::{Http, HttpResponse, Mount, SLICE};
use crate::server::connection::Connection;
use crate::server::sink::{BoundedReceiver, Outgoing, Sink};
use crate::wire::frame;
use crate::wire::jsonrpc::Message;
use crate::wire::meta::{self, Arrival, RequestMeta};
use crate::wire::method::Id;
use crate::wire::rpc::{
    RequestId, RpcError, HEADER_MISMATCH, INSUFFICIENT_SCOPE, INTERNAL_ERROR, METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
};
use serde_json::Value;
use std::sync::mpsc::RecvTimeoutError;

/// Serves one per-request-era POST; `scopes`: what its access token granted, when checked.
pub(super) fn post(
    http: &Http,
    at: &Mount,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    message: Message,
    scopes: Option<&[String]>,
) {
    let req = match message {
        Message::Request(req) => req,
        // No session holds anything a notification could change: a request is cancelled by
        // closing its POST.
        other => {
            log::debug!("per-request message without a request ignored: {other:?}");
            return HttpResponse::new(202).send(exchange, cors);
        }
    };
    let version_header = exchange.header("MCP-Protocol-Version").map(|v| v.trim().to_owned());
    let arrival = Arrival::Http { protocol_version: version_header.as_deref(), session: false, scopes };
    // A method none of the served revisions has first (`initialize` to a server that speaks
    // 2026-07-28 only: -32601, 404, naming the revisions served), then the contract's order
    // (§2.5, §2.9): `_meta` fields (-32602), the version header against `_meta` (-32020), the
    // version (-32022), then the routing headers (-32020).
    let revisions = at.server.options().revisions;
    if let Err(e) = meta::method_served(&req.method, revisions) {
        return refuse(exchange, cors, &req.id, status_of(Some(e.code)), &e);
    }
    let meta = match RequestMeta::parse(&req.params, arrival, revisions) {
        Ok(meta) => meta,
        Err(e) => return refuse(exchange, cors, &req.id, 400, &e),
    };
    let checked = {
        let pairs: Vec<Header> = exchange.head.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes())).collect();
        // The headers mirror members of the body: read from it one by one, the arguments only
        // for a tool whose schema asks for headers.
        let check = |schema: Option<&Value>| headers::validate(&pairs, &req.method, &req.params, schema);
        let tool = req.method.spec().filter(|s| s.id == Id::ToolsCall).and_then(|_| req.params.string_member("name"));
        match tool {
            Some(name) => Connection::with_tool_input_schema(&at.server, &meta, &name, check),
            None => check(None),
        }
    };
    if let Err(e) = checked {
        return refuse(exchange, cors, &req.id, 400, &e);
    }
    // No session: the request is served alone, and what it holds instead (its cancellation
    // flag, a listen stream) ends when the client has its answer or hangs up.
    let (reply, answers) = Sink::bounded(super::WAITING_FOR_REQUEST, super::WAITING_BYTES);
    let id = req.id.clone();
    let listen = req.method.spec().is_some_and(|s| s.id == Id::SubscriptionsListen);
    // `_meta` was read above: it is taken as it is.
    let alone = Connection::serve_alone(&at.server, req, meta, scopes, &reply);
    drop(reply);
    let first = loop {
        match answers.recv_timeout(SLICE) {
            Ok(message) => break Some(message),
            Err(RecvTimeoutError::Disconnected) => break None,
            Err(RecvTimeoutError::Timeout) if http.stopping() => break None,
            // Spec (2026-07-28 cancellation over HTTP): closing the POST cancels the request.
            Err(RecvTimeoutError::Timeout) if exchange.client_gone() => {
                log::debug!("client hung up; request cancelled");
                alone.close();
                return;
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    };
    match first {
        // A listen stream refused at the server-wide cap (-32603): capacity, not the request,
        // so 503 with `Retry-After`, as at the other caps.
        Some(Outgoing::Response(answer)) if listen && answer.code() == Some(INTERNAL_ERROR) => {
            HttpResponse::json(503, answer.to_text()).with("Retry-After", "5").send(exchange, cors);
        }
        Some(Outgoing::Response(answer)) if answer.code() == Some(INSUFFICIENT_SCOPE) => {
            HttpResponse::of(http, at, &answer).send(exchange, cors);
        }
        Some(Outgoing::Response(answer)) => {
            HttpResponse::json(status_of(answer.code()), answer.to_text()).send(exchange, cors);
        }
        // Cancelled by a drain that ran out of time: the client is still owed an answer.
        None if http.draining() => {
            let error = RpcError::invalid_request("the server stopped before this request finished");
            HttpResponse::json(200, frame::error_response(Some(&id), &error)).send(exchange, cors);
        }
        // Ended with nothing written (cancelled): never answered, yet the POST gets a stream.
        None => super::streams::unanswered(exchange, cors),
        Some(first) => stream(http, exchange, cors, first, &answers),
    }
    alone.close();
}

/// Writes a request's messages as SSE, one JSON per `data:` line, until its response (or, for
/// a listen stream, until the client hangs up or the server stops or drains).
fn stream(
    http: &Http,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    first: Outgoing,
    answers: &BoundedReceiver,
) {
    let Ok(mut pump) = Pump::start(exchange, cors) else { return };
    let mut next = Some(first);
    let stop = loop {
        let message = match next.take() {
            Some(message) => message,
            None => match answers.recv_timeout(SLICE) {
                Ok(message) => message,
                Err(RecvTimeoutError::Disconnected) => break Stop::Finish,
                Err(RecvTimeoutError::Timeout) => match pump.idle(http, true, true) {
                    Ok(()) => continue,
                    Err(stop) => break stop,
                },
            },
        };
        if matches!(message, Outgoing::CloseStream) {
            continue;
        }
        if let Err(e) = pump.event(None, None, None, &message.to_text()) {
            log::debug!("per-request stream lost: {e}");
            break Stop::Abandon;
        }
        if message.is_response() {
            break Stop::Finish;
        }
    };
    pump.end(http, stop);
}

/// A refusal before the request runs: JSON (the suite reads a body only as JSON), the id echoed.
fn refuse(exchange: &mut Exchange<'_>, cors: &[(&'static str, String)], id: &RequestId, status: u16, e: &RpcError) {
    HttpResponse::json(status, frame::error_response(Some(id), e)).send(exchange, cors);
}

/// The HTTP status of an answer with this error code (contract §2.9): header, capability and
/// version errors are 400, an unknown or removed method 404, anything else (a result, a
/// handler's error) 200.
fn status_of(code: Option<i64>) -> u16 {
    match code {
        Some(HEADER_MISMATCH | MISSING_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION) => 400,
        Some(METHOD_NOT_FOUND) => 404,
        _ => 200,
    }
}
