//! RFC 6570 URI templates (levels 1-3) for MCP resource templates: expansion,
//! and the reverse match that turns a concrete URI back into variable values.
//! Pure std; values are plain strings (no lists or maps), so level-4 modifiers
//! parse but `*` is a no-op and `:n` only truncates on expansion.

use super::percent;
use std::collections::{HashMap, HashSet};

/// Upper bound on matcher steps, so a hostile URI cannot make matching slow.
const MAX_MATCH_STEPS: usize = 200_000;
/// The longest URI the matcher looks at (longer ones match nothing): every step is then cheap,
/// and the whole match costs at most this times the steps. Requests are capped before this.
const MAX_MATCH_BYTES: usize = 64 * 1024;

/// An expression operator (RFC 6570 §3.2, Appendix A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    fn first(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query => "?",
            Op::QueryCont => "&",
        }
    }

    fn sep(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ",",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query | Op::QueryCont => "&",
        }
    }

    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryCont)
    }

    fn if_empty(self) -> &'static str {
        match self {
            Op::Query | Op::QueryCont => "=",
            _ => "",
        }
    }

    fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}

/// One `varspec` of an expression.
#[derive(Clone, Debug)]
struct VarSpec {
    name: String,
    prefix: Option<usize>,
}

#[derive(Clone, Debug)]
enum Part {
    Literal(String),
    Expr { op: Op, vars: Vec<VarSpec> },
}

/// A parsed RFC 6570 URI template such as `file:///{+path}`.
#[derive(Clone, Debug)]
pub struct UriTemplate {
    raw: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `template`, rejecting unbalanced braces, empty expressions,
    /// reserved operators (`= , ! @ |`) and invalid variable names.
    pub fn parse(template: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(open) = rest.find(['{', '}']) {
            let (before, after) = rest.split_at(open);
            literal.push_str(before);
            let at = offset + open;
            let Some(after_open) = after.strip_prefix('{') else {
                return Err(format!("unmatched '}}' at offset {at}"));
            };
            let close = match after_open.find(['{', '}']) {
                Some(close) if after_open.get(close..).is_some_and(|t| t.starts_with('}')) => close,
                Some(_) => return Err(format!("nested '{{' in expression at offset {at}")),
                None => return Err(format!("unclosed '{{' at offset {at}")),
            };
            let body = after_open.get(..close).unwrap_or_default();
            let expr = parse_expression(body).map_err(|e| format!("{e} at offset {at}"))?;
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(expr);
            rest = after_open.get(close + 1..).unwrap_or_default();
            offset = at + close + 2;
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate { raw: template.to_string(), parts })
    }

    /// The template text as given to [`UriTemplate::parse`].
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The variable names in order of first appearance, without duplicates.
    pub fn variables(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expr { vars, .. } = part {
                for var in vars {
                    if !names.contains(&var.name.as_str()) {
                        names.push(&var.name);
                    }
                }
            }
        }
        names
    }

    /// Expands the template with `vars` (RFC 6570 §3). Variables missing from
    /// `vars` are undefined and skipped, with their separators; an empty
    /// string is defined.
    pub fn expand(&self, vars: &HashMap<String, String>) -> String {
        let mut out = String::with_capacity(self.raw.len());
        for part in &self.parts {
            let (op, specs) = match part {
                Part::Literal(text) => {
                    out.push_str(&encode(text, true));
                    continue;
                }
                Part::Expr { op, vars } => (*op, vars),
            };
            let mut first = true;
            for spec in specs {
                let Some(value) = vars.get(&spec.name) else {
                    continue;
                };
                out.push_str(if first { op.first() } else { op.sep() });
                first = false;
                let value = match spec.prefix {
                    Some(n) => {
                        value.char_indices().nth(n).map_or(value.as_str(), |(i, _)| value.get(..i).unwrap_or(value))
                    }
                    None => value.as_str(),
                };
                if op.named() {
                    out.push_str(&spec.name);
                    if value.is_empty() {
                        out.push_str(op.if_empty());
                        continue;
                    }
                    out.push('=');
                }
                out.push_str(&encode(value, op.allow_reserved()));
            }
        }
        out
    }

    /// Matches `uri` against the template and returns each matched variable
    /// with its percent-decoded value, in the order of [`UriTemplate::variables`].
    ///
    /// Supported: literals match exactly; `{var}`, `{.var}` and `{/var}`
    /// match one or more characters other than `/ ? # & , ;`; `{+var}` matches
    /// one or more characters other than `?` and `#` (so it spans `/`);
    /// `{#var}` matches the rest after `#`; multi-variable expressions need
    /// every variable present. `{?a,b}`, `{&a}` and `{;a}` accept their
    /// variables in any order, each optional and at most once, but no names
    /// the template does not list. Backtracking lets greedy variables give
    /// way to a literal suffix. Empty values only match in named forms;
    /// repeated variables must match equal values. An invalid `%XX`, or a
    /// decoding that is not UTF-8, leaves the value as it was.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        if uri.len() > MAX_MATCH_BYTES {
            return None;
        }
        let tokens = self.tokens();
        let names = self.variables();
        // `names` holds each variable once: more variables than names means one repeats.
        let has_repeats = {
            let count = |p: &Part| match p {
                Part::Expr { vars, .. } => vars.len(),
                Part::Literal(_) => 0,
            };
            self.parts.iter().map(count).sum::<usize>() > names.len()
        };
        let mut matcher = Matcher {
            uri,
            tokens: &tokens,
            stops: Stops::new(uri),
            captures: Vec::new(),
            failed: HashSet::new(),
            memoize: !has_repeats,
            steps: 0,
        };
        if !matcher.run(0, 0) {
            return None;
        }
        // In the order of `names`, each variable's first capture (a repeated one matched equal
        // values); picked by a scan, not a stable sort (which costs ~8 KB of code).
        let mut captures: Vec<Option<(String, String)>> =
            matcher.captures.into_iter().map(|(name, cap)| Some((name, cap.text(uri)))).collect();
        let ordered = names
            .iter()
            .filter_map(|name| captures.iter_mut().find(|c| c.as_ref().is_some_and(|c| c.0 == *name))?.take())
            .collect();
        Some(ordered)
    }

    /// Flattens the template into the matcher's tokens.
    fn tokens(&self) -> Vec<Token<'_>> {
        let mut tokens = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => tokens.push(Token::Literal(encode(text, true))),
                Part::Expr { op, vars } if op.named() => tokens.push(Token::Named {
                    first: op.first(),
                    sep: op.sep(),
                    stops: if *op == Op::PathParam { "/?#" } else { "#" },
                    names: vars.iter().map(|v| v.name.as_str()).collect(),
                }),
                Part::Expr { op, vars } => {
                    let excluded = match op {
                        Op::Reserved => "?#",
                        Op::Fragment => "",
                        _ => "/?#&,;",
                    };
                    for (i, var) in vars.iter().enumerate() {
                        let lead = if i == 0 { op.first() } else { op.sep() };
                        if !lead.is_empty() {
                            tokens.push(Token::Literal(lead.to_string()));
                        }
                        tokens.push(Token::Var { name: &var.name, excluded });
                    }
                }
            }
        }
        tokens
    }
}

/// Parses the text between `{` and `}`.
fn parse_expression(body: &str) -> Result<Part, String> {
    let mut chars = body.chars();
    let op = match chars.next() {
        None => return Err("empty expression".to_string()),
        Some('+') => Op::Reserved,
        Some('#') => Op::Fragment,
        Some('.') => Op::Label,
        Some('/') => Op::Path,
        Some(';') => Op::PathParam,
        Some('?') => Op::Query,
        Some('&') => Op::QueryCont,
        Some(c @ ('=' | ',' | '!' | '@' | '|')) => return Err(format!("unsupported operator '{c}'")),
        Some(_) => Op::Simple,
    };
    let list = if op == Op::Simple { body } else { chars.as_str() };
    let mut vars = Vec::new();
    for spec in list.split(',') {
        let (name, prefix) = if let Some(name) = spec.strip_suffix('*') {
            (name, None)
        } else if let Some((name, digits)) = spec.split_once(':') {
            let valid = !digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|b| b.is_ascii_digit());
            match digits.parse::<usize>() {
                Ok(n) if valid && n > 0 => (name, Some(n)),
                _ => return Err(format!("invalid prefix length {digits:?} (expected 1-9999)")),
            }
        } else {
            (spec, None)
        };
        if !is_var_name(name) {
            return Err(format!("invalid variable name {name:?}"));
        }
        vars.push(VarSpec { name: name.to_string(), prefix });
    }
    Ok(Part::Expr { op, vars })
}

/// RFC 6570 `varname`: `varchar *( ["."] varchar )`, where a varchar is
/// ALPHA, DIGIT, `_` or a `%XX` triplet.
fn is_var_name(name: &str) -> bool {
    let mut bytes = name.as_bytes();
    let mut previous_dot = true;
    while let Some((&b, rest)) = bytes.split_first() {
        bytes = rest;
        match b {
            b'.' if !previous_dot => previous_dot = true,
            b'%' => match rest {
                [h, l, tail @ ..] if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                    bytes = tail;
                    previous_dot = false;
                }
                _ => return false,
            },
            b if b.is_ascii_alphanumeric() || b == b'_' => previous_dot = false,
            _ => return false,
        }
    }
    !previous_dot
}

fn is_reserved(c: char) -> bool {
    matches!(
        c,
        ':' | '/' | '?' | '#' | '[' | ']' | '@' | '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
    )
}

/// Percent-encodes `text`, keeping unreserved characters and, when
/// `allow_reserved`, reserved characters and existing `%XX` triplets too.
fn encode(text: &str, allow_reserved: bool) -> String {
    percent::encode(text, |text, i, c| {
        percent::is_unreserved(c) || (allow_reserved && (is_reserved(c) || (c == '%' && percent::is_triplet(text, i))))
    })
}

/// Decodes `%XX` triplets; see [`UriTemplate::matches`] for the lenient cases.
fn decode(text: &str) -> String {
    percent::decode(text).unwrap_or_else(|| text.to_string())
}

/// A piece of the template as the matcher sees it.
enum Token<'t> {
    /// Text that must appear exactly.
    Literal(String),
    /// One unnamed variable: one or more characters not in `excluded`.
    Var { name: &'t str, excluded: &'static str },
    /// A whole `{;..}`, `{?..}` or `{&..}` expression.
    Named { first: &'static str, sep: &'static str, stops: &'static str, names: Vec<&'t str> },
}

/// For each position of a URI, where the next character of each class of excluded characters
/// is: a variable's longest run is then found in constant time, not by a scan per attempt.
struct Stops {
    /// Next `/ ? # & , ;` (simple, label and path variables).
    segment: Vec<usize>,
    /// Next `?` or `#` (reserved variables).
    reserved: Vec<usize>,
}

impl Stops {
    fn new(uri: &str) -> Stops {
        let table = |excluded: &str| {
            let mut next = vec![uri.len(); uri.len() + 1];
            for (i, b) in uri.bytes().enumerate().rev() {
                next[i] = if excluded.as_bytes().contains(&b) { i } else { next[i + 1] };
            }
            next
        };
        Stops { segment: table("/?#&,;"), reserved: table("?#") }
    }

    /// The end of the run starting at `pos` of characters not in `excluded`.
    fn end(&self, excluded: &str, len: usize, pos: usize) -> usize {
        let table = match excluded {
            "" => return len,
            "?#" => &self.reserved,
            _ => &self.segment,
        };
        table.get(pos).copied().unwrap_or(len)
    }
}

/// What a variable captured: a range of the URI (decoded only once the match is complete) or
/// an already decoded value.
enum Cap {
    Raw(usize, usize),
    Text(String),
}

impl Cap {
    fn text(&self, uri: &str) -> String {
        match self {
            Cap::Raw(start, end) => decode(uri.get(*start..*end).unwrap_or_default()),
            Cap::Text(text) => text.clone(),
        }
    }
}

/// Backtracking matcher over tokens, memoizing failed `(token, position)` states; each step
/// costs constant time apart from literal comparisons, and the steps are capped.
struct Matcher<'a> {
    uri: &'a str,
    tokens: &'a [Token<'a>],
    stops: Stops,
    captures: Vec<(String, Cap)>,
    failed: HashSet<(usize, usize)>,
    memoize: bool,
    steps: usize,
}

impl Matcher<'_> {
    fn run(&mut self, index: usize, pos: usize) -> bool {
        self.steps += 1;
        if self.steps > MAX_MATCH_STEPS {
            return false;
        }
        let Some(token) = self.tokens.get(index) else {
            return pos == self.uri.len();
        };
        if self.memoize && self.failed.contains(&(index, pos)) {
            return false;
        }
        let rest = self.uri.get(pos..).unwrap_or_default();
        let matched = match token {
            Token::Literal(text) => rest.starts_with(text.as_str()) && self.run(index + 1, pos + text.len()),
            Token::Var { name, excluded } => {
                let run_end = self.stops.end(excluded, self.uri.len(), pos);
                let run = self.uri.get(pos..run_end).unwrap_or_default();
                let mut ends = run.char_indices().map(|(i, c)| pos + i + c.len_utf8()).rev();
                ends.any(|end| self.try_with(vec![(name.to_string(), Cap::Raw(pos, end))], index + 1, end))
            }
            Token::Named { first, sep, stops, names } => {
                named_candidates(rest, first, sep, stops, names).into_iter().any(|(end, captured)| {
                    let captured = captured.into_iter().map(|(n, v)| (n, Cap::Text(v))).collect();
                    self.try_with(captured, index + 1, pos + end)
                })
            }
        };
        if !matched && self.memoize {
            self.failed.insert((index, pos));
        }
        matched
    }

    /// Records `captured` and matches the remaining tokens, undoing on failure.
    fn try_with(&mut self, captured: Vec<(String, Cap)>, index: usize, pos: usize) -> bool {
        let uri = self.uri;
        let consistent = captured
            .iter()
            .all(|(name, value)| self.captures.iter().all(|(n, v)| n != name || v.text(uri) == value.text(uri)));
        if !consistent {
            return false;
        }
        let mark = self.captures.len();
        self.captures.extend(captured);
        if self.run(index, pos) {
            return true;
        }
        self.captures.truncate(mark);
        false
    }
}

/// The ways a named expression can match at the start of `rest`: each
/// `(length, captures)`, longest first, ending with the empty match (every
/// variable undefined).
fn named_candidates(
    rest: &str,
    first: &str,
    sep: &str,
    stops: &str,
    names: &[&str],
) -> Vec<(usize, Vec<(String, String)>)> {
    let mut candidates = vec![(0, Vec::new())];
    let Some(mut tail) = rest.strip_prefix(first) else {
        return candidates;
    };
    let mut captured: Vec<(String, String)> = Vec::new();
    loop {
        let pair_len = tail.find(|c| sep.contains(c) || stops.contains(c)).unwrap_or(tail.len());
        let pair = tail.get(..pair_len).unwrap_or_default();
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !names.contains(&name) || captured.iter().any(|(n, _)| n == name) {
            break;
        }
        captured.push((name.to_string(), decode(value)));
        tail = tail.get(pair_len..).unwrap_or_default();
        candidates.push((rest.len() - tail.len(), captured.clone()));
        match tail.strip_prefix(sep) {
            Some(next) => tail = next,
            None => break,
        }
    }
    candidates.reverse();
    candidates
}

#[cfg(test)]
mod tests;
