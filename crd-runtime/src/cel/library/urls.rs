//! The URL library as the API server has it, on Go's `net/url` rules:
//! `url()`/`isURL()` accept what `url.ParseRequestURI` accepts (absolute paths,
//! and `scheme:opaque` such as `https:://host/`), and the getters return what
//! `url.Parse`'s fields give (empty strings for absent parts, the escaped path,
//! the query as a map of lists). kube-cel follows WHATWG URL parsing instead.

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::{Key, Map, Opaque, Value};
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use crate::cel::cost::budget::charge_traversal;
use crate::go::quote;

/// A URL split as Go's `url.URL` (only the parts the library reads).
#[derive(Debug, Clone, PartialEq, Eq)]
struct GoUrl {
    scheme: String,
    host: String,
    path: String,
    raw_path: String,
    raw_query: String,
}

impl Opaque for GoUrl {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

pub(crate) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("url", url);
    ctx.add_function("isURL", is_url);
    ctx.add_function("getScheme", |This(u): This<Value>| {
        part(&u, |u| u.scheme.clone())
    });
    ctx.add_function("getHost", |This(u): This<Value>| {
        part(&u, |u| u.host.clone())
    });
    ctx.add_function("getHostname", |This(u): This<Value>| {
        part(&u, |u| split_host_port(&u.host).0.to_string())
    });
    ctx.add_function("getPort", |This(u): This<Value>| {
        part(&u, |u| split_host_port(&u.host).1.to_string())
    });
    ctx.add_function("getEscapedPath", |This(u): This<Value>| {
        part(&u, escaped_path)
    });
    ctx.add_function("getQuery", get_query);
}

fn as_url(v: &Value) -> Result<&GoUrl, ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<GoUrl>(),
        _ => None,
    }
    .ok_or(ExecutionError::NoSuchOverload)
}

fn part(v: &Value, f: impl Fn(&GoUrl) -> String) -> ResolveResult {
    Ok(Value::String(Arc::new(f(as_url(v)?))))
}

fn url(s: Arc<String>) -> ResolveResult {
    charge_traversal(&s, 1.0)?;
    let parsed = parse(&s, true).and_then(|_| {
        let without_fragment = s.split_once('#').map_or(s.as_str(), |(u, _)| u);
        parse(without_fragment, false)
    });
    match parsed {
        Ok(u) => Ok(Value::Opaque(Arc::new(u))),
        Err(e) => Err(ExecutionError::function_error(
            "url",
            format!(
                "URL parse error during conversion from string: parse {}: {e}",
                quote(&s)
            ),
        )),
    }
}

/// Go's `url.ParseRequestURI` (the `uri` format checks it too).
pub(super) fn parse_request_uri(s: &str) -> Result<(), String> {
    parse(s, true).map(|_| ())
}

fn is_url(s: Arc<String>) -> ResolveResult {
    Ok(Value::Bool(parse(&s, true).is_ok()))
}

/// Go's `url.parse(rawURL, viaRequest)`.
fn parse(raw: &str, via_request: bool) -> Result<GoUrl, String> {
    if raw.bytes().any(|c| c < 0x20 || c == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".into());
    }
    let mut u = GoUrl {
        scheme: String::new(),
        host: String::new(),
        path: String::new(),
        raw_path: String::new(),
        raw_query: String::new(),
    };
    if raw == "*" {
        u.path = "*".into();
        return Ok(u);
    }
    let (scheme, mut rest) = scheme(raw)?;
    u.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        u.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !u.scheme.is_empty() {
            // A rootless path after a scheme is opaque: no host, no path.
            return Ok(u);
        }
        if via_request {
            return Err("invalid URI for request".into());
        }
        if rest.split('/').next().is_some_and(|seg| seg.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!u.scheme.is_empty() || !via_request && !rest.starts_with("///")) && rest.starts_with("//")
    {
        let authority = &rest[2..];
        let (authority, path) = match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        };
        u.host = parse_authority(authority)?;
        rest = path;
    }
    u.path = unescape(rest, Mode::Path)?;
    if escape_path(&u.path) != rest {
        u.raw_path = rest.to_string();
    }
    Ok(u)
}

/// Go's `getScheme`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parseAuthority`: the host (user info is checked, not kept).
fn parse_authority(authority: &str) -> Result<String, String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    let host = parse_host(host)?;
    if let Some(info) = userinfo {
        let valid = info
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c));
        if !valid {
            return Err("net/url: invalid userinfo".into());
        }
        unescape(info, Mode::Path)?;
    }
    Ok(host)
}

fn valid_optional_port(port: &str) -> bool {
    match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => digits.bytes().all(|c| c.is_ascii_digit()),
    }
}

/// Go's `parseHost` (without IPv6 zone details).
fn parse_host(host: &str) -> Result<String, String> {
    let colon_port = if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".into());
        };
        &host[i + 1..]
    } else {
        host.rfind(':').map_or("", |i| &host[i..])
    };
    if !valid_optional_port(colon_port) {
        return Err(format!("invalid port {} after host", quote(colon_port)));
    }
    unescape(host, Mode::Host)
}

/// Go's `splitHostPort`.
fn split_host_port(host_port: &str) -> (&str, &str) {
    let (mut host, mut port) = (host_port, "");
    if let Some(i) = host_port.rfind(':')
        && valid_optional_port(&host_port[i..])
    {
        (host, port) = (&host_port[..i], &host_port[i + 1..]);
    }
    if host.len() >= 2 && host.starts_with('[') && host.ends_with(']') {
        host = &host[1..host.len() - 1];
    }
    (host, port)
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    Host,
    QueryComponent,
}

/// Go's `unescape`: `%XX` decoded, `+` a space in query components, and in
/// hosts only the characters `shouldEscape` allows there.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (
                    b.get(i + 1).and_then(|&c| hex(c)),
                    b.get(i + 2).and_then(|&c| hex(c)),
                ) {
                    (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
                    _ => {
                        let end = (i + 3).min(b.len());
                        return Err(format!("invalid URL escape {}", quote(&s[i..end])));
                    }
                }
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if mode == Mode::Host && c < 0x80 && !host_char(c) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote(&s[i..i + 1])
                    ));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn host_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"".contains(&c)
}

/// Go's `escape(s, encodePath)`.
fn escape_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.bytes() {
        if c.is_ascii_alphanumeric() || b"-_.~$&+,/:;=@".contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

/// Go's `URL.EscapedPath`.
fn escaped_path(u: &GoUrl) -> String {
    if !u.raw_path.is_empty() && unescape(&u.raw_path, Mode::Path).is_ok_and(|p| p == u.path) {
        let valid = u
            .raw_path
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-_.~$&+,/:;=@!'()*%[]".contains(&c));
        if valid {
            return u.raw_path.clone();
        }
    }
    if u.path == "*" {
        return "*".into();
    }
    escape_path(&u.path)
}

/// `getQuery()`: Go's `url.ParseQuery`, skipping the pairs it rejects.
fn get_query(This(u): This<Value>) -> ResolveResult {
    let u = as_url(&u)?;
    let mut order: Vec<String> = Vec::new();
    let mut values: HashMap<String, Vec<Value>> = HashMap::new();
    for pair in u.raw_query.split('&') {
        if pair.is_empty() || pair.contains(';') {
            continue;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Ok(k), Ok(v)) = (
            unescape(k, Mode::QueryComponent),
            unescape(v, Mode::QueryComponent),
        ) else {
            continue;
        };
        if !values.contains_key(&k) {
            order.push(k.clone());
        }
        values
            .entry(k)
            .or_default()
            .push(Value::String(Arc::new(v)));
    }
    let map: HashMap<Key, Value> = order
        .into_iter()
        .map(|k| {
            let list = values.remove(&k).unwrap_or_default();
            (Key::from(k), Value::List(Arc::new(list)))
        })
        .collect();
    Ok(Value::Map(Map { map: Arc::new(map) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(s: &str) -> GoUrl {
        parse(s, false).unwrap()
    }

    #[test]
    fn parses_as_go_net_url() {
        let u = go("https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c");
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str()),
            ("https", "kubernetes.io:80")
        );
        assert_eq!(split_host_port(&u.host), ("kubernetes.io", "80"));
        assert_eq!(u.raw_query, "k1=a&k2=b&k2=c");
        let opaque = go("https:://kubernetes.io/");
        assert_eq!((opaque.host.as_str(), opaque.path.as_str()), ("", ""));
        assert_eq!(split_host_port("[::1]:80"), ("::1", "80"));
        assert_eq!(
            escaped_path(&go("https://example.com/with space/")),
            "/with%20space/"
        );
        assert_eq!(escaped_path(&go("https://example.com")), "");
        assert_eq!(escaped_path(&go("/a%2Fb")), "/a%2Fb");
    }

    #[test]
    fn rejects_as_parse_request_uri() {
        assert_eq!(
            parse("../relative-path", true).unwrap_err(),
            "invalid URI for request"
        );
        assert_eq!(
            parse("https://a:b:c/", true).unwrap_err(),
            r#"invalid port ":c" after host"#
        );
        assert_eq!(parse("", true).unwrap_err(), "empty url");
        assert_eq!(parse(":x", true).unwrap_err(), "missing protocol scheme");
        assert!(
            parse("http://a b/", true)
                .unwrap_err()
                .contains("in host name")
        );
        assert!(parse("/path", true).is_ok());
        let err = url(Arc::new("../x".into())).unwrap_err().to_string();
        assert!(
            err.contains(r#"URL parse error during conversion from string: parse "../x": invalid URI for request"#),
            "{err}"
        );
    }
}
