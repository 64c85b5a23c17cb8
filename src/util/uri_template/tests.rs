//! Unit tests of `uri_template`.
use super::*;

fn rfc_vars() -> HashMap<String, String> {
    [("var", "value"), ("hello", "Hello World!"), ("path", "/foo/bar"), ("x", "1024"), ("y", "768"), ("empty", "")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn expand(template: &str) -> String {
    UriTemplate::parse(template).unwrap().expand(&rfc_vars())
}

fn matched(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    UriTemplate::parse(template).unwrap().matches(uri)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn parse_rejects_malformed_templates() {
    let cases = [
        ("{", "unclosed '{' at offset 0"),
        ("a}b", "unmatched '}' at offset 1"),
        ("x{a{b}}", "nested '{'"),
        ("x/{}", "empty expression at offset 2"),
        ("{a b}", "invalid variable name"),
        ("{a,}", "invalid variable name"),
        ("{.a.}", "invalid variable name"),
        ("{a..b}", "invalid variable name"),
        ("{%zz}", "invalid variable name"),
        ("{=a}", "unsupported operator '='"),
        ("{|a}", "unsupported operator"),
        ("{a:0}", "invalid prefix length"),
        ("{a:10000}", "invalid prefix length"),
        ("{a:}", "invalid prefix length"),
        ("{+}", "invalid variable name"),
        ("ok{a}then}", "unmatched '}' at offset 9"),
    ];
    for (template, expected) in cases {
        let err = UriTemplate::parse(template).unwrap_err();
        assert!(err.contains(expected), "{template}: {err}");
        assert!(err.starts_with(|c: char| c.is_lowercase()) && !err.ends_with('.'), "{err}");
    }
}

#[test]
fn parse_accepts_valid_names_and_modifiers() {
    let t = UriTemplate::parse("a/{x_1,a.b,%41B}{?q*}{/p:3}").unwrap();
    assert_eq!(t.variables(), vec!["x_1", "a.b", "%41B", "q", "p"]);
    assert_eq!(t.as_str(), "a/{x_1,a.b,%41B}{?q*}{/p:3}");
}

#[test]
fn variables_are_ordered_and_deduplicated() {
    let t = UriTemplate::parse("{b}/{a}{?b,c}{#a}").unwrap();
    assert_eq!(t.variables(), vec!["b", "a", "c"]);
    assert!(UriTemplate::parse("plain").unwrap().variables().is_empty());
}

#[test]
fn expands_rfc6570_level1_and_level2_examples() {
    assert_eq!(expand("{var}"), "value");
    assert_eq!(expand("{hello}"), "Hello%20World%21");
    assert_eq!(expand("{+var}"), "value");
    assert_eq!(expand("{+hello}"), "Hello%20World!");
    assert_eq!(expand("{+path}/here"), "/foo/bar/here");
    assert_eq!(expand("here?ref={+path}"), "here?ref=/foo/bar");
    assert_eq!(expand("X{#var}"), "X#value");
    assert_eq!(expand("X{#hello}"), "X#Hello%20World!");
}

#[test]
fn expands_rfc6570_level3_examples() {
    let cases = [
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ];
    for (template, expected) in cases {
        assert_eq!(expand(template), expected, "{template}");
    }
}

#[test]
fn undefined_variables_are_skipped() {
    assert_eq!(expand("a{undef}b"), "ab");
    assert_eq!(expand("{x,undef,y}"), "1024,768");
    assert_eq!(expand("{undef,x}"), "1024");
    assert_eq!(expand("p{?undef}"), "p");
    assert_eq!(expand("p{?undef,x}"), "p?x=1024");
    assert_eq!(expand("{#undef}"), "");
    assert_eq!(expand("{x,empty}"), "1024,");
}

#[test]
fn expansion_encodes_unicode_and_percent() {
    let vars: HashMap<String, String> = [("v".to_string(), "é %41%zz".to_string())].into();
    let t = |s: &str| UriTemplate::parse(s).unwrap().expand(&vars);
    assert_eq!(t("{v}"), "%C3%A9%20%2541%25zz");
    assert_eq!(t("{+v}"), "%C3%A9%20%41%25zz");
    assert_eq!(t("{v:1}"), "%C3%A9");
    assert_eq!(t("{var:3}"), "");
    assert_eq!(expand("{var:3}"), "val");
    assert_eq!(expand("{var:30}"), "value");
    assert_eq!(t("a b/{undef}"), "a%20b/");
}

#[test]
fn matches_simple_variable() {
    assert_eq!(matched("test://template/{id}/data", "test://template/123/data"), Some(pairs(&[("id", "123")])));
    assert_eq!(matched("test://template/{id}/data", "test://template//data"), None);
    assert_eq!(matched("test://template/{id}/data", "test://template/1/2/data"), None);
    assert_eq!(matched("test://template/{id}/data", "test://template/123/datax"), None);
    assert_eq!(matched("test://template/{id}/data", "other://template/123/data"), None);
    assert_eq!(matched("test://{id}", "test://a?b"), None);
    assert_eq!(matched("test://{id}", "test://a,b"), None);
    assert_eq!(matched("test://{id}", "test://%E2%82%AC"), Some(pairs(&[("id", "€")])));
}

#[test]
fn matches_reserved_path() {
    assert_eq!(matched("file:///{+path}", "file:///a/b%20c.txt"), Some(pairs(&[("path", "a/b c.txt")])));
    assert_eq!(matched("file:///{+path}", "file:///"), None);
    assert_eq!(matched("file:///{+path}", "file:///a?x"), None);
    assert_eq!(
        matched("repo://{owner}/{+path}/raw", "repo://me/src/lib.rs/raw"),
        Some(pairs(&[("owner", "me"), ("path", "src/lib.rs")]))
    );
}

#[test]
fn greedy_variables_backtrack_for_literal_suffix() {
    assert_eq!(matched("x://{name}.json", "x://a.b.json"), Some(pairs(&[("name", "a.b")])));
    assert_eq!(matched("x://{+a}/{+b}", "x://1/2/3"), Some(pairs(&[("a", "1/2"), ("b", "3")])));
    assert_eq!(matched("x://{a}{b}", "x://xy"), Some(pairs(&[("a", "x"), ("b", "y")])));
}

#[test]
fn matches_fragment_label_and_path_operators() {
    assert_eq!(matched("x://p{#frag}", "x://p#a/b?c"), Some(pairs(&[("frag", "a/b?c")])));
    assert_eq!(matched("x://file{.ext}", "x://file.rs"), Some(pairs(&[("ext", "rs")])));
    assert_eq!(matched("x:{/a,b}", "x:/one/two"), Some(pairs(&[("a", "one"), ("b", "two")])));
    assert_eq!(matched("x:{/a,b}", "x:/one"), None);
    assert_eq!(matched("map?{x,y}", "map?1024,768"), Some(pairs(&[("x", "1024"), ("y", "768")])));
}

#[test]
fn matches_query_in_any_order_with_optional_variables() {
    let t = "search://items{?q,limit}";
    let both = pairs(&[("q", "a b"), ("limit", "5")]);
    assert_eq!(matched(t, "search://items?q=a%20b&limit=5"), Some(both.clone()));
    assert_eq!(matched(t, "search://items?limit=5&q=a%20b"), Some(both));
    assert_eq!(matched(t, "search://items?limit=5"), Some(pairs(&[("limit", "5")])));
    assert_eq!(matched(t, "search://items"), Some(vec![]));
    assert_eq!(matched(t, "search://items?q"), Some(pairs(&[("q", "")])));
    assert_eq!(matched(t, "search://items?other=1"), None);
    assert_eq!(matched(t, "search://items?q=1&q=2"), None);
    assert_eq!(matched("s://i?fixed=yes{&x}", "s://i?fixed=yes&x=1"), Some(pairs(&[("x", "1")])));
    assert_eq!(matched("s://i{?a}{&b}", "s://i?a=1&b=2"), Some(pairs(&[("a", "1"), ("b", "2")])));
    assert_eq!(matched("s://{;x,y}/z", "s://;y=2;x/z"), Some(pairs(&[("x", ""), ("y", "2")])));
}

#[test]
fn repeated_variables_must_agree() {
    assert_eq!(matched("x://{a}/{a}", "x://1/1"), Some(pairs(&[("a", "1")])));
    assert_eq!(matched("x://{a}/{a}", "x://1/2"), None);
}

#[test]
fn expand_then_match_round_trips() {
    let templates = [
        "test://template/{id}/data",
        "file:///{+path}",
        "x://{a}/{b}{?q,n}",
        "x://{owner}/{+path}{#frag}",
        "x://doc{.ext}{/seg}{;p}",
    ];
    let values = ["1", "hello world", "é", "a,b", "50%", "x.y", "~-_"];
    // Reserved expansion passes '?' and '#' through, which cannot be told
    // apart from the URI's own delimiters, so only unnamed-safe templates get them.
    let hostile = "é/ü?&=#";
    for template in templates {
        let t = UriTemplate::parse(template).unwrap();
        let extra = (!template.contains('+')).then_some(hostile);
        for value in values.into_iter().chain(extra) {
            let vars: HashMap<String, String> =
                t.variables().iter().map(|n| (n.to_string(), value.to_string())).collect();
            let uri = t.expand(&vars);
            let got = t.matches(&uri).unwrap_or_else(|| panic!("{template} {uri}"));
            let want: Vec<(String, String)> =
                t.variables().iter().map(|n| (n.to_string(), value.to_string())).collect();
            assert_eq!(got, want, "{template} {uri}");
        }
    }
}

#[test]
fn invalid_percent_encoding_and_non_ascii_do_not_panic() {
    assert_eq!(matched("x://{a}", "x://%zz%"), Some(pairs(&[("a", "%zz%")])));
    assert_eq!(matched("x://{a}", "x://%FF"), Some(pairs(&[("a", "%FF")])));
    assert_eq!(matched("x://{a}", "x://日本"), Some(pairs(&[("a", "日本")])));
    assert_eq!(matched("x://é/{a}", "x://%C3%A9/1"), Some(pairs(&[("a", "1")])));
    let templates = ["{a}", "{+a}{b}", "x{?a,b}{#c}", "{;a}{/b}", "é{.x}"];
    let uris = ["", "%", "%%%", "?&=#", "日本?=&#;/", "x?a=%&b=%E2%82", "é.é", ";;;/", "#"];
    for template in templates {
        let t = UriTemplate::parse(template).unwrap();
        for uri in uris {
            let _ = t.matches(uri);
        }
    }
}

#[test]
fn pathological_input_is_bounded() {
    let t = UriTemplate::parse("x://{+a}{+b}{+c}{+d}{+e}/end").unwrap();
    let uri = format!("x://{}", "a".repeat(5_000));
    assert_eq!(t.matches(&uri), None);
    let uri = format!("x://{}/end", "a/".repeat(2_000));
    assert!(t.matches(&uri).is_some());
}

#[test]
fn mutated_templates_and_uris_parse_match_and_expand_in_time() {
    use crate::util::fuzz::{bounded, rounds, Mutator, JSON_TOKENS};
    let templates = ["file:///{+path}", "test://template/{id}/data", "x://{a}{/b,c}{?q,r}{#f}", "{.x}{;y}{&z}"];
    let uris = ["file:///srv/a/b.txt", "test://template/123/data", "x://1/2/3?q=4&r=5#6", ".a;y=2&z=3"];
    let mut mutator = Mutator::with_tokens(0x7572_6974, JSON_TOKENS);
    for round in 0..rounds(20_000) {
        let template = mutator.pick(&templates);
        let uri = mutator.pick(&uris);
        if let Ok(parsed) = bounded("UriTemplate::parse", round, &template, || UriTemplate::parse(&template)) {
            let found = bounded("UriTemplate::matches", round, &uri, || parsed.matches(&uri));
            let vars: HashMap<String, String> = found.unwrap_or_default().into_iter().collect();
            let _ = bounded("UriTemplate::expand", round, &template, || parsed.expand(&vars));
        }
    }
}
