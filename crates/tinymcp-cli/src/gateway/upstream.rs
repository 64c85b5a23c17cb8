//! One upstream's life, on a supervisor thread of its own: connect (start its process or open
//! its session), the handshake, list what it offers and register it; then wait for its end,
//! a list change (listed again) or the next ping; once it is down, its entries are taken out
//! (with `list_changed`) and it is tried again with back-off until it answers.

use super::config::{How, UpstreamConfig};
use super::http::HttpWire;
use super::link::{Link, Notice, Wire};
use super::{catalogue, legacy, stdio, Gateway};
use crate::cli::connect::auth::Credentials;
use crate::cli::connect::http1::Url;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};
use tinymcp::{RequestCx, Server};

/// The handshake and each listing must be answered within this.
const HANDSHAKE_WITHIN: Duration = Duration::from_secs(30);
/// How often an upstream that is up is pinged: one that stopped answering is noticed.
const PING_EVERY: Duration = Duration::from_secs(15);
const PING_WITHIN: Duration = Duration::from_secs(10);
/// Back-off between attempts: doubling from the first to the last.
const RETRY_FIRST: Duration = Duration::from_millis(250);
const RETRY_MOST: Duration = Duration::from_secs(10);
/// Pages read of one list, at most (a list without end is cut there).
const PAGES: usize = 100;
/// How long one listen stream to a 2026-07-28 upstream is held before it is opened again.
const LISTEN_FOR: Duration = Duration::from_secs(3600);
/// Resources a 2026-07-28 upstream's listen stream names at most: as many as a listen stream
/// of the gateway's own may (and a tinymcp upstream accepts).
const LISTEN_URIS: usize = 1024;
/// URIs whose subscription downstream changed while not passed on yet (the upstream down, or
/// busy), at most: past it they are forgotten and everything held is looked at again.
const PENDING_URIS: usize = 4096;

/// Where an upstream stands.
#[derive(Clone)]
pub enum Status {
    Starting,
    Up,
    Down(String),
}

#[derive(Default)]
struct Wake {
    /// It said a list changed: list it again.
    relist: bool,
    /// Its URIs whose subscription downstream changed since they were passed on, each with
    /// whether its last change was a subscription: the supervisor passes on what is held of
    /// each when it looks (not the history of subscribe and unsubscribe, which a client could
    /// make grow without end while it is down). A subscription counts as held even before
    /// its subscriber does (a 2026-07-28 listen stream's runs the hooks before it is open).
    changed: HashMap<String, bool>,
    /// Everything downstream holds of it is to be passed on: it was (re)connected (a new
    /// process or session holds none of the last one's subscriptions), or `changed` overflowed.
    resync: bool,
}

impl Wake {
    /// `uri` was subscribed to downstream (`on`) or let go by its last subscriber; past
    /// `PENDING_URIS` the URIs so far are dropped for a resync, so it stays bounded however
    /// many distinct URIs come and go.
    fn touch(&mut self, uri: &str, on: bool) {
        if let Some(last) = self.changed.get_mut(uri) {
            *last = on;
            return;
        }
        if self.changed.len() >= PENDING_URIS {
            self.changed = HashMap::new();
            self.resync = true;
        }
        self.changed.insert(uri.to_owned(), on);
    }
}

/// The resources subscribed to downstream of a 2026-07-28 upstream (its own URIs), which its
/// listen stream names: the listed link's, kept across its links (a new one's stream names
/// them all); a session's own process's, which that session subscribed to.
#[derive(Default)]
struct Listened {
    uris: Mutex<ListenedUris>,
    /// A URI was added or removed since the stream was opened: it is ended and opened again.
    changed: AtomicBool,
}

#[derive(Default)]
struct ListenedUris {
    uris: Vec<String>,
    /// A session's stream's thread runs (it stops when no URI is left).
    running: bool,
}

impl Listened {
    fn uris(&self) -> MutexGuard<'_, ListenedUris> {
        self.uris.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `uri`, unless it is held already (its stream is not opened again) or at the cap;
    /// whether a session's stream must be started for it (none runs: it runs from now).
    fn add(&self, uri: &str, upstream: &str) -> bool {
        let mut held = self.uris();
        if held.uris.iter().any(|u| u == uri) {
            return false;
        }
        if held.uris.len() >= LISTEN_URIS {
            log::warn!(
                "upstream {upstream}: {uri} not subscribed to: its listen stream names {LISTEN_URIS} resources already"
            );
            return false;
        }
        held.uris.push(uri.to_owned());
        // Under the lock: the stream's thread takes the flag and the list together.
        self.changed.store(true, Ordering::SeqCst);
        !std::mem::replace(&mut held.running, true)
    }

    /// Removes `uri` (its last subscriber downstream is gone); a URI not held reopens nothing.
    fn remove(&self, uri: &str) {
        let mut held = self.uris();
        let before = held.uris.len();
        held.uris.retain(|u| u != uri);
        if held.uris.len() != before {
            self.changed.store(true, Ordering::SeqCst);
        }
    }

    /// The URIs to name now; the flag is cleared with them. `stops`: a session's stream,
    /// which stops when none is left (`None`; the next `add` starts it again).
    fn take(&self, stops: bool) -> Option<Vec<String>> {
        let mut held = self.uris();
        self.changed.store(false, Ordering::SeqCst);
        if stops && held.uris.is_empty() {
            held.running = false;
            return None;
        }
        Some(held.uris.clone())
    }
}

/// One configured upstream.
pub struct Upstream {
    pub config: UpstreamConfig,
    /// `url`: where it is and the gateway's own credentials there (headers with their `${VAR}`
    /// read at start, OAuth client credentials), never its callers'.
    url: Option<(Url, Arc<Credentials>)>,
    link: Mutex<Option<Arc<Link>>>,
    status: Mutex<Status>,
    /// Attempts made so far (the first one's end is waited for at start).
    attempts: Mutex<u64>,
    attempted: Condvar,
    wake: Mutex<Wake>,
    woken: Condvar,
    /// What it said it can do in its handshake.
    capabilities: Mutex<Value>,
    /// What it registered on the gateway's server.
    pub registered: Mutex<catalogue::Registered>,
    /// The gateway's server, for the resource updates it sends.
    server: OnceLock<Weak<Server>>,
    /// A stdio upstream run once per downstream session (not `shared`, the gateway serving
    /// sessions over HTTP): its link above is the one it is listed, pinged and subscribed
    /// through, and serves requests without a session.
    per_session: bool,
    /// The sessions' own links, ended with the gateway if their sessions have not ended them.
    session_links: Mutex<Vec<Weak<Link>>>,
    /// What its listen stream subscribes to, when it speaks 2026-07-28.
    listened: Arc<Listened>,
    /// What its listed link was sent `resources/subscribe` for (a 2025 era one): what a last
    /// unsubscription downstream unsubscribes there.
    subscribed: Mutex<HashSet<String>>,
}

/// One downstream session's own links to the per-session upstreams, by upstream name: kept in
/// the session (`RequestCx::session_state`), ended with it.
#[derive(Default)]
pub struct SessionLinks {
    state: Mutex<SessionState>,
}

#[derive(Default)]
struct SessionState {
    /// The session ended: nothing more is started for it.
    ended: bool,
    /// Its end is hooked (once per session).
    hooked: bool,
    links: HashMap<String, Arc<Link>>,
    /// The resources (their own URIs) of each per-session upstream, by name, the session holds:
    /// what its own process is subscribed to again when started again (at most the session's
    /// cap on subscriptions, which the library checks before the hooks run).
    held: HashMap<String, HashSet<String>>,
    /// What the listen stream on its own process of a 2026-07-28 upstream names, by upstream
    /// name, with the link it is held on (a process started again starts with none).
    listened: HashMap<String, (Arc<Link>, Arc<Listened>)>,
    /// Held while an upstream's process for the session starts: concurrent calls start one.
    starting: HashMap<String, Arc<Mutex<()>>>,
}

impl SessionLinks {
    fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Its live link to `upstream`, if one is up.
    fn live(&self, upstream: &str) -> Option<Arc<Link>> {
        self.state().links.get(upstream).filter(|l| l.ended().is_none()).cloned()
    }

    /// What the listen stream on `link`, its process of `upstream`, names (made on first use).
    fn listened(&self, upstream: &str, link: &Arc<Link>) -> Arc<Listened> {
        let mut state = self.state();
        let entry = state.listened.entry(upstream.to_owned()).or_insert_with(|| (Arc::clone(link), Arc::default()));
        if !Arc::ptr_eq(&entry.0, link) {
            *entry = (Arc::clone(link), Arc::default());
        }
        Arc::clone(&entry.1)
    }

    /// The session ended: its processes end with it.
    fn end(&self) {
        let links: Vec<Arc<Link>> = {
            let mut state = self.state();
            state.ended = true;
            state.listened.clear();
            state.held.clear();
            state.links.drain().map(|(_, link)| link).collect()
        };
        for link in links {
            log::info!("upstream {}: its process for a session ends with the session", link.name);
            link.end("its session ended");
        }
    }
}

impl Upstream {
    /// `sessions`: the gateway serves sessions (over HTTP), so a stdio upstream not `shared` is
    /// run once per session.
    pub fn new(config: UpstreamConfig, url: Option<(Url, Arc<Credentials>)>, sessions: bool) -> Arc<Upstream> {
        let per_session = sessions && matches!(config.how, How::Command { shared: false, .. });
        Arc::new(Upstream {
            config,
            url,
            link: Mutex::new(None),
            status: Mutex::new(Status::Starting),
            attempts: Mutex::new(0),
            attempted: Condvar::new(),
            wake: Mutex::new(Wake::default()),
            woken: Condvar::new(),
            capabilities: Mutex::new(Value::Null),
            registered: Mutex::new(catalogue::Registered::default()),
            server: OnceLock::new(),
            per_session,
            session_links: Mutex::new(Vec::new()),
            listened: Arc::default(),
            subscribed: Mutex::default(),
        })
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    pub fn status(&self) -> Status {
        self.status.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn set_status(&self, status: Status) {
        *self.status.lock().unwrap_or_else(PoisonError::into_inner) = status;
    }

    /// The live link, or why there is none.
    pub fn link(&self) -> Result<Arc<Link>, String> {
        let link = self.link.lock().unwrap_or_else(PoisonError::into_inner).clone();
        match (link, self.status()) {
            (Some(link), Status::Up) if link.ended().is_none() => Ok(link),
            (_, Status::Down(why)) => Err(why),
            (Some(link), _) if link.ended().is_some() => Err(link.ended().unwrap_or_default()),
            _ => Err("it is starting".into()),
        }
    }

    /// The link a request of `cx` goes through: for a per-session upstream and a request in a
    /// session, that session's own (its process started on first use); else the shared one.
    pub fn link_for(self: &Arc<Self>, cx: &RequestCx) -> Result<Arc<Link>, String> {
        // Up first: an upstream that cannot be started fails its calls at once, as it did.
        let shared = self.link()?;
        if !self.per_session {
            return Ok(shared);
        }
        // 2026-07-28 requests come without a session: they share the listed process.
        let Some(links) = cx.session_state::<SessionLinks>() else { return Ok(shared) };
        let (starting, hook) = {
            let mut state = links.state();
            if state.ended {
                return Err("its client's session ended".into());
            }
            if let Some(link) = state.links.get(self.name()).filter(|l| l.ended().is_none()) {
                return Ok(Arc::clone(link));
            }
            let hook = !std::mem::replace(&mut state.hooked, true);
            (Arc::clone(state.starting.entry(self.name().to_owned()).or_default()), hook)
        };
        if hook {
            // Outside the lock: a session that already ended runs the hook at once.
            let ending = Arc::clone(&links);
            cx.on_session_end(move || ending.end());
        }
        let _one = starting.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(link) = links.live(self.name()) {
            return Ok(link);
        }
        let (link, _) = self.connect()?;
        let mut state = links.state();
        if state.ended {
            drop(state);
            link.end("its session ended");
            return Err("its client's session ended".into());
        }
        state.links.insert(self.name().to_owned(), Arc::clone(&link));
        let held: Vec<String> = state.held.get(self.name()).map(|h| h.iter().cloned().collect()).unwrap_or_default();
        drop(state);
        {
            let mut all = self.session_links.lock().unwrap_or_else(PoisonError::into_inner);
            all.retain(|l| l.upgrade().is_some_and(|l| l.ended().is_none()));
            all.push(Arc::downgrade(&link));
            log::info!("upstream {}: started for a session ({} running for sessions)", self.name(), all.len());
        }
        // Started again (the last one died): it holds none of the session's subscriptions.
        // Made before the request that started it goes on (others of the session wait).
        // The first that fails ends it: a process that does not answer one would hold the
        // request up to a timeout for each of the session's (up to 1000) subscriptions.
        let listened = link.is_per_request().then(|| links.listened(self.name(), &link));
        for (done, uri) in held.iter().enumerate() {
            if let Err(why) = self.subscribe_at(&link, listened.as_ref(), uri) {
                let left = held.len() - done;
                log::info!(
                    "upstream {}: subscribing again to {left} resources for a session: {uri}: {why}",
                    self.name()
                );
                break;
            }
        }
        Ok(link)
    }

    /// How many processes it runs for sessions now, when it runs one per session.
    pub fn session_processes(&self) -> Option<usize> {
        let all = self.session_links.lock().unwrap_or_else(PoisonError::into_inner);
        self.per_session.then(|| all.iter().filter(|l| l.upgrade().is_some_and(|l| l.ended().is_none())).count())
    }

    fn wake(&self) -> MutexGuard<'_, Wake> {
        self.wake.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A downstream subscription to its resource `uri` (its own URI), passed on: to the
    /// session's own process when `by` (the `resources/subscribe`) has one, for that is where
    /// the session's changes happen (a 2026-07-28 one's: on a listen stream held there, opened
    /// on the first, ended with the process); else to the listed one, on the supervisor's
    /// thread (a 2026-07-28 one's listen stream names it, opened again with it).
    pub fn subscribe(self: &Arc<Self>, uri: &str, by: Option<&RequestCx>) {
        let own = by.filter(|_| self.per_session).and_then(|cx| Some((cx, cx.session_state::<SessionLinks>()?)));
        if let Some((cx, links)) = own {
            // Its process first (one started now is subscribed to what the session held before).
            let link = self.link_for(cx);
            links.state().held.entry(self.name().to_owned()).or_default().insert(uri.to_owned());
            let subscribed = link.and_then(|link| {
                let listened = link.is_per_request().then(|| links.listened(self.name(), &link));
                self.subscribe_at(&link, listened.as_ref(), uri)
            });
            if let Err(why) = subscribed {
                log::info!("upstream {}: subscribing to {uri} for a session: {why}", self.name());
            }
            return;
        }
        self.touch(uri, true);
    }

    /// Subscribes `link` to its resource `uri` (its own URI): a 2026-07-28 one's listen stream
    /// names it (`listened`: the listed link's, or a session's own, started here when none
    /// runs); else `resources/subscribe`.
    fn subscribe_at(&self, link: &Arc<Link>, listened: Option<&Arc<Listened>>, uri: &str) -> Result<(), String> {
        match listened {
            Some(listened) => {
                // The listed link's stream runs while the link lasts: only a session's starts here.
                if listened.add(uri, self.name()) && !Arc::ptr_eq(listened, &self.listened) {
                    self.listen(link, listened, false);
                }
                Ok(())
            }
            None => link
                .request("resources/subscribe", json!({"uri": uri}), None, PING_WITHIN)
                .map(drop)
                .map_err(|e| e.message),
        }
    }

    /// Its resource `uri` was subscribed to downstream (`on`) or let go: the supervisor looks.
    fn touch(&self, uri: &str, on: bool) {
        self.wake().touch(uri, on);
        self.woken.notify_all();
    }

    /// A downstream subscription to its resource `uri` (its own URI) ended, `last` when no
    /// client holds it now: the session's own process, where that session's
    /// `resources/subscribe` was made, is told at once; the listed one, on the supervisor's
    /// thread, once the last subscriber is gone and only if it was subscribed there (a
    /// 2026-07-28 one's listen stream is opened again without it).
    pub fn unsubscribe(self: &Arc<Self>, uri: &str, last: bool, by: Option<&RequestCx>) {
        let own = by.filter(|_| self.per_session).and_then(|cx| cx.session_state::<SessionLinks>());
        if let Some(links) = &own {
            // Not subscribed again to when its process is started again.
            if let Some(held) = links.state().held.get_mut(self.name()) {
                held.remove(uri);
            }
        }
        // Its live process only: none is started to be told.
        if let Some((links, link)) = own.as_ref().and_then(|links| Some((links, links.live(self.name())?))) {
            if link.is_per_request() {
                // Its stream there is opened again without it (or ends, naming nothing).
                links.listened(self.name(), &link).remove(uri);
            } else if let Err(e) = link.request("resources/unsubscribe", json!({"uri": uri}), None, PING_WITHIN) {
                log::info!("upstream {}: unsubscribing from {uri} for a session: {}", self.name(), e.message);
            }
        }
        if last {
            self.touch(uri, false);
        }
    }

    /// Whether a client of the gateway holds its resource `uri` (its own URI) now.
    fn held_downstream(&self, uri: &str) -> bool {
        let server = self.server.get().and_then(Weak::upgrade);
        server.is_some_and(|s| s.has_subscribers(&super::wire::prefix_uri(self.name(), uri)))
    }

    /// Its resources (its own URIs) the clients of the gateway hold now: as many as they may
    /// hold (each client's subscriptions and the clients are capped).
    fn all_held_downstream(&self) -> HashSet<String> {
        let Some(server) = self.server.get().and_then(Weak::upgrade) else { return HashSet::new() };
        let uris = server.subscribed_uris();
        uris.iter().filter_map(|uri| super::wire::strip_uri(self.name(), uri)).map(str::to_owned).collect()
    }

    /// Waits until its first attempt to connect ended (or `deadline`).
    pub fn wait_first_attempt(&self, deadline: Instant) {
        let attempts = self.attempts.lock().unwrap_or_else(PoisonError::into_inner);
        let left = deadline.saturating_duration_since(Instant::now());
        let _ = self.attempted.wait_timeout_while(attempts, left, |n| *n == 0).unwrap_or_else(PoisonError::into_inner);
    }

    fn attempt_done(&self) {
        *self.attempts.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.attempted.notify_all();
    }

    /// The gateway is exiting: its link ends (its process is signalled, its session closed).
    pub fn end(&self) {
        if let Some(link) = self.link.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            link.end("the gateway is exiting");
        }
        let sessions = std::mem::take(&mut *self.session_links.lock().unwrap_or_else(PoisonError::into_inner));
        for link in sessions.iter().filter_map(Weak::upgrade) {
            link.end("the gateway is exiting");
        }
    }

    /// Starts its supervisor thread.
    pub fn supervise(self: &Arc<Self>, gateway: &Arc<Gateway>) -> std::io::Result<()> {
        let _ = self.server.set(Arc::downgrade(&gateway.server));
        let (me, gateway) = (Arc::clone(self), Arc::clone(gateway));
        std::thread::Builder::new()
            .name(format!("gateway-{}", self.name()))
            .stack_size(256 * 1024)
            .spawn(move || me.run(&gateway))
            .map(drop)
    }

    fn run(self: &Arc<Self>, gateway: &Arc<Gateway>) {
        let mut retry = RETRY_FIRST;
        let mut told: Option<String> = None;
        loop {
            match self.connect() {
                Ok((link, capabilities)) => {
                    *self.capabilities.lock().unwrap_or_else(PoisonError::into_inner) = capabilities;
                    *self.link.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&link));
                    // A new process or session holds no subscription of the last one's.
                    self.subscribed.lock().unwrap_or_else(PoisonError::into_inner).clear();
                    match self.list(&link) {
                        Ok(listing) => {
                            retry = RETRY_FIRST;
                            told = None;
                            // Up before its entries are: a call as soon as one is listed finds it.
                            self.set_status(Status::Up);
                            catalogue::register(gateway, self, listing);
                            self.attempt_done();
                            gateway.list_changed();
                            // Subscribed again to what its clients hold now, first thing.
                            self.wake().resync = true;
                            if link.is_per_request() {
                                self.listen(&link, &self.listened, true);
                            }
                            let why = self.serve(gateway, &link);
                            log::warn!("upstream {}: down ({why}); retrying", self.name());
                            self.set_status(Status::Down(why));
                            link.end("the gateway left it");
                            catalogue::unregister(gateway, self);
                            gateway.list_changed();
                        }
                        Err(why) => {
                            link.end(&why);
                            self.down(&why, &mut told);
                        }
                    }
                }
                Err(why) => self.down(&why, &mut told),
            }
            // An interval is the point here: the upstream is tried again, not waited for.
            std::thread::sleep(retry);
            retry = (retry * 2).min(RETRY_MOST);
        }
    }

    /// A 2026-07-28 upstream says its lists changed, and its resources changed, only on a
    /// listen stream: one is held open while its link lasts (opened again when it ends, and
    /// when a resource is subscribed to downstream or let go, to name what is held now), its
    /// notifications delivered as any other (a list change lists it again, an update goes to
    /// its subscribers). `lists`: the listed link's, which hears list changes too and is held
    /// naming nothing; a session's own process's names its resources only, and stops when
    /// none is left.
    fn listen(&self, link: &Arc<Link>, listened: &Arc<Listened>, lists: bool) {
        let (link, name, listened) = (Arc::clone(link), self.name().to_owned(), Arc::clone(listened));
        let ended = Arc::clone(&listened);
        let started = std::thread::Builder::new().name(format!("gateway-{name}-listen")).stack_size(128 * 1024).spawn(
            move || {
                while link.ended().is_none() {
                    let Some(uris) = listened.take(!lists) else { return };
                    let mut params = match lists {
                        true => json!({"notifications":
                            {"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}}),
                        false => json!({"notifications": {}}),
                    };
                    if !uris.is_empty() {
                        params["notifications"]["resourceSubscriptions"] = json!(uris);
                    }
                    let started = Instant::now();
                    let stop = Some(&listened.changed);
                    if let Err(e) = link.request_until("subscriptions/listen", params, None, LISTEN_FOR, stop) {
                        log::debug!("upstream {name}: its listen stream ended: {}", e.message);
                    }
                    // Ended to name a new resource: opened again at once. One refused at once
                    // is not asked again without a pause.
                    if !listened.changed.load(Ordering::SeqCst) && started.elapsed() < RETRY_MOST {
                        std::thread::sleep(RETRY_MOST);
                    }
                }
            },
        );
        if let Err(e) = started {
            // Started again by the next subscription.
            ended.uris().running = false;
            log::warn!(
                "upstream {}: no listen stream (cannot start a thread: {e}): its changes go unheard",
                self.name()
            );
        }
    }

    /// It could not be reached: said once until it changes, its calls fail with why.
    fn down(&self, why: &str, told: &mut Option<String>) {
        if told.as_deref() != Some(why) {
            log::warn!("upstream {}: unavailable: {why}; retrying with back-off", self.name());
            *told = Some(why.to_owned());
        }
        self.set_status(Status::Down(why.to_owned()));
        self.attempt_done();
    }

    /// A new link, its handshake done; the capabilities the upstream said it has.
    fn connect(self: &Arc<Self>) -> Result<(Arc<Link>, Value), String> {
        let weak = Arc::downgrade(self);
        let link = Link::new(self.name(), move |notice| {
            if let Some(me) = weak.upgrade() {
                me.notice(notice);
            }
        });
        let http = match (&self.config.how, &self.url) {
            (How::Command { command, args, env, cwd, .. }, _) => {
                let wire = stdio::spawn(&link, command, args, env, cwd.as_ref())?;
                link.attach(wire as Arc<dyn Wire>);
                None
            }
            (How::Url { legacy: true, .. }, Some((url, auth))) => {
                let wire = legacy::open(&link, url, Arc::clone(auth))?;
                link.attach(wire as Arc<dyn Wire>);
                None
            }
            (How::Url { .. }, Some((url, auth))) => {
                let wire = HttpWire::new(url.clone(), Arc::clone(auth));
                link.attach(Arc::clone(&wire) as Arc<dyn Wire>);
                Some(wire)
            }
            (How::Url { .. }, None) => return Err("no URL".into()),
        };
        let answer = link.initialize(HANDSHAKE_WITHIN.min(self.config.timeout));
        match answer {
            Ok(answer) => {
                // A session's revision header and GET stream; a per-request upstream has neither.
                if let Some(wire) = http.filter(|_| !link.is_per_request()) {
                    wire.initialized(&link);
                }
                Ok((link, answer.get("capabilities").cloned().unwrap_or_default()))
            }
            Err(why) => {
                link.end(&why);
                Err(format!("its handshake failed: {why}"))
            }
        }
    }

    fn notice(&self, notice: Notice) {
        match notice {
            Notice::ListChanged => {
                self.wake().relist = true;
                self.woken.notify_all();
            }
            Notice::Updated(uri) => {
                if let Some(server) = self.server.get().and_then(Weak::upgrade) {
                    server.notify_resource_updated(&super::wire::prefix_uri(self.name(), &uri));
                }
            }
        }
    }

    /// While it is up: lists again when it says a list changed, passes subscriptions on, and
    /// pings it; returns why it went down.
    fn serve(self: &Arc<Self>, gateway: &Arc<Gateway>, link: &Arc<Link>) -> String {
        let mut next_ping = Instant::now() + PING_EVERY;
        loop {
            if let Some(why) = link.ended() {
                return why;
            }
            let (relist, resync, changed) = {
                let wake = self.wake();
                let left = next_ping.saturating_duration_since(Instant::now());
                let (mut wake, _) = self
                    .woken
                    .wait_timeout_while(wake, left.min(Duration::from_millis(500)), |w| {
                        !w.relist && !w.resync && w.changed.is_empty()
                    })
                    .unwrap_or_else(PoisonError::into_inner);
                let resync = std::mem::take(&mut wake.resync);
                (std::mem::take(&mut wake.relist), resync, std::mem::take(&mut wake.changed))
            };
            if resync {
                self.resync(link);
            }
            // After a resync too: one subscribed to as it read what is held may not count yet.
            for (uri, on) in changed {
                self.pass_on(link, &uri, on || self.held_downstream(&uri));
            }
            if relist {
                match self.list(link) {
                    Ok(listing) => {
                        catalogue::register(gateway, self, listing);
                        gateway.list_changed();
                    }
                    Err(why) => log::warn!("upstream {}: listing again: {why}", self.name()),
                }
            }
            if Instant::now() >= next_ping {
                // 2026-07-28 has no `ping`: `server/discover` answers as surely.
                let ping = if link.is_per_request() { "server/discover" } else { "ping" };
                if let Err(e) = link.request(ping, json!({}), None, PING_WITHIN) {
                    if e.code != tinymcp::error_codes::METHOD_NOT_FOUND {
                        return format!("it did not answer a ping: {}", e.message);
                    }
                }
                next_ping = Instant::now() + PING_EVERY;
            }
        }
    }

    /// Everything its clients hold now, passed on to its listed link: each URI held that is
    /// not subscribed there is, each one subscribed there that none holds is let go. On each
    /// (re)connect, and when too many URIs changed to keep each.
    fn resync(&self, link: &Arc<Link>) {
        let held = self.all_held_downstream();
        let mut uris = held.clone();
        uris.extend(self.subscribed.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned());
        uris.extend(self.listened.uris().uris.iter().cloned());
        for uri in uris {
            self.pass_on(link, &uri, held.contains(&uri));
        }
    }

    /// Whether its clients hold `uri` (`held`, read when the supervisor looks), passed on to
    /// its listed link: a 2026-07-28 one's listen stream's thread opens it again naming the
    /// URIs held now (with it, or without it); else `resources/subscribe` for a URI held and not
    /// subscribed there, `resources/unsubscribe` for one subscribed there that none holds.
    fn pass_on(&self, link: &Arc<Link>, uri: &str, held: bool) {
        let subscribed = || self.subscribed.lock().unwrap_or_else(PoisonError::into_inner);
        match (held, link.is_per_request()) {
            (true, true) => drop(self.subscribe_at(link, Some(&self.listened), uri)),
            (false, true) => self.listened.remove(uri),
            (true, false) if !subscribed().contains(uri) => match self.subscribe_at(link, None, uri) {
                Ok(()) => drop(subscribed().insert(uri.to_owned())),
                Err(why) => log::info!("upstream {}: subscribing to {uri}: {why}", self.name()),
            },
            (false, false) if subscribed().remove(uri) => {
                if let Err(e) = link.request("resources/unsubscribe", json!({"uri": uri}), None, PING_WITHIN) {
                    log::info!("upstream {}: unsubscribing from {uri}: {}", self.name(), e.message);
                }
            }
            (_, false) => {}
        }
    }

    /// Everything it offers, every page.
    fn list(&self, link: &Arc<Link>) -> Result<Listing, String> {
        let capabilities = self.capabilities.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let has = |name: &str| capabilities.get(name).is_some_and(|c| !c.is_null());
        let all = |method: &str, key: &str| -> Result<Vec<Value>, String> {
            let mut items = Vec::new();
            let mut cursor: Option<Value> = None;
            for _ in 0..PAGES {
                let params = match &cursor {
                    Some(cursor) => json!({"cursor": cursor}),
                    None => json!({}),
                };
                let page = link
                    .request(method, params, None, HANDSHAKE_WITHIN)
                    .map_err(|e| format!("{method}: {}", e.message))?;
                items.extend(page.get(key).and_then(Value::as_array).cloned().unwrap_or_default());
                cursor = page.get("nextCursor").filter(|c| c.is_string()).cloned();
                if cursor.is_none() {
                    break;
                }
            }
            Ok(items)
        };
        Ok(Listing {
            tools: if has("tools") { all("tools/list", "tools")? } else { Vec::new() },
            prompts: if has("prompts") { all("prompts/list", "prompts")? } else { Vec::new() },
            resources: if has("resources") { all("resources/list", "resources")? } else { Vec::new() },
            templates: if has("resources") {
                all("resources/templates/list", "resourceTemplates").unwrap_or_default()
            } else {
                Vec::new()
            },
        })
    }
}

/// What an upstream listed, as it said it.
pub struct Listing {
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
}

#[cfg(test)]
mod tests {
    use super::{Wake, PENDING_URIS};

    // A client subscribing and unsubscribing while its upstream is down: each URI is kept once,
    // and past the cap the set is dropped for a resync, so memory stays bounded however many
    // distinct URIs come and go.
    #[test]
    fn the_uris_to_look_at_again_are_bounded() {
        let mut wake = Wake::default();
        for i in 0..10_000 {
            wake.touch("test://same", i % 2 == 1);
        }
        assert_eq!(wake.changed.len(), 1);
        assert_eq!(wake.changed.get("test://same"), Some(&true), "its last change");
        assert!(!wake.resync);
        for i in 0..3 * PENDING_URIS {
            wake.touch(&format!("test://{i}"), i % 2 == 0);
            assert!(wake.changed.len() <= PENDING_URIS);
        }
        assert!(wake.resync, "past the cap: everything held is looked at again");
    }
}
