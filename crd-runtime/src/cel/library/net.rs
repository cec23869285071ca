//! `ip()`, `isIP()`, `ip.isCanonical()`, `cidr()` and `isCIDR()` as the API
//! server has them: strings are checked by Go's `netip.ParseAddr` and
//! `netip.ParsePrefix` rules and rejected in their words (wrapped as the IP and
//! CIDR libraries wrap them); the values are kube-cel's. Also the type
//! identifiers `net.IP` and `net.CIDR` (`type(ip('::1')) == net.IP`).

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::FunctionContext;
use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::{Key, Map, Value};
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use super::delegate::call;
use crate::cel::cost::budget::{charge, charge_traversal};
use crate::go::quote;

pub(crate) fn register(ctx: &mut Context<'_>, type_value: fn(&str) -> Value) {
    ctx.add_function("ip", ip);
    ctx.add_function("isIP", is_ip);
    ctx.add_function("ip.isCanonical", is_canonical);
    ctx.add_function("cidr", cidr);
    ctx.add_function("isCIDR", is_cidr);
    ctx.add_function("containsIP", |This(c): This<Value>, other: Value| {
        contains(c, other, "a.containsIP(b)", 1)
    });
    ctx.add_function("containsCIDR", |This(c): This<Value>, other: Value| {
        contains(c, other, "a.containsCIDR(b)", 3)
    });
    let types: HashMap<Key, Value> = [("IP", "net.IP"), ("CIDR", "net.CIDR")]
        .into_iter()
        .map(|(field, name)| (Key::from(field.to_string()), type_value(name)))
        .collect();
    ctx.add_variable_from_value(
        "net",
        Value::Map(Map {
            map: Arc::new(types),
        }),
    );
}

/// Go's `parseAddrError` text.
fn addr_error(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(at) => format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at)),
        None => format!("ParseAddr({}): {msg}", quote(input)),
    }
}

/// Go's `netip.ParseAddr`: Ok(has a zone) or its error.
pub(crate) fn parse_addr(s: &str) -> Result<bool, String> {
    for c in s.bytes() {
        match c {
            b'.' => return parse_ipv4(s, s).map(|_| false),
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

/// `parseIPv4Fields` over `part` (all of `input`, or its embedded IPv4 tail).
fn parse_ipv4(input: &str, part: &str) -> Result<(), String> {
    let b = part.as_bytes();
    let (mut val, mut fields, mut digits) = (0u32, 0, 0);
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == b.len() - 1 || b[i - 1] == b'.' {
                let msg = "IPv4 field must have at least one digit";
                return Err(addr_error(input, msg, Some(&part[i..])));
            }
            if fields == 3 {
                return Err(addr_error(input, "IPv4 address too long", None));
            }
            fields += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(addr_error(input, "unexpected character", Some(&part[i..])));
        }
    }
    if fields < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    Ok(())
}

/// Go's `parseIPv6`: Ok(has a zone) or its error.
fn parse_ipv6(input: &str) -> Result<bool, String> {
    let err = |msg: &str, at: Option<&str>| Err(addr_error(input, msg, at));
    let (mut s, zone) = match input.find('%') {
        Some(i) => (&input[..i], Some(&input[i + 1..])),
        None => (input, None),
    };
    if zone == Some("") {
        return err("zone must be a non-empty string", None);
    }
    let mut ellipsis = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(zone.is_some());
        }
    }
    let mut i = 0;
    while i < 16 {
        let b = s.as_bytes();
        let (mut off, mut acc) = (0, 0u32);
        while off < b.len() {
            let Some(d) = (b[off] as char).to_digit(16) else {
                break;
            };
            acc = (acc << 4) + d;
            if off > 3 {
                return err("each group must have 4 or less digits", Some(s));
            }
            if acc > u32::from(u16::MAX) {
                return err("IPv6 field has value >=2^16", Some(s));
            }
            off += 1;
        }
        if off == 0 {
            return err(
                "each colon-separated field must have at least one digit",
                Some(s),
            );
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                let msg = "embedded IPv4 address must replace the final 2 fields of the address";
                return err(msg, Some(s));
            }
            if i + 4 > 16 {
                let msg = "too many hex fields to fit an embedded IPv4 at the end of the address";
                return err(msg, Some(s));
            }
            parse_ipv4(input, s)?;
            s = "";
            i += 4;
            break;
        }
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return err("unexpected character, want colon", Some(s));
        } else if s.len() == 1 {
            return err("colon must be followed by more characters", Some(s));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return err("multiple :: in address", Some(s));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return err("trailing garbage after address", Some(s));
    }
    if i < 16 && ellipsis.is_none() {
        return err("address string too short", None);
    }
    if i >= 16 && ellipsis.is_some() {
        return err("the :: must expand to at least one field of zeros", Some(s));
    }
    Ok(zone.is_some())
}

/// The IP library's `parseIPAddr` checks.
fn check_ip(s: &str) -> Result<(), String> {
    let has_zone = parse_addr(s).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {e}",
            quote(s)
        )
    })?;
    if has_zone {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            quote(s)
        ));
    }
    Ok(())
}

/// Go's `netip.ParsePrefix`, then the CIDR library's `parseCIDR` wrapping.
fn check_cidr(s: &str) -> Result<(), String> {
    let prefix_err = |msg: String| {
        format!(
            "network address parse error during conversion from string: netip.ParsePrefix({}): {msg}",
            quote(s)
        )
    };
    let Some(slash) = s.rfind('/') else {
        return Err(prefix_err("no '/'".into()));
    };
    let addr = &s[..slash];
    let has_zone = parse_addr(addr).map_err(prefix_err)?;
    let v6 = addr.contains(':');
    if v6 && has_zone {
        return Err(prefix_err(
            "IPv6 zones cannot be present in a prefix".into(),
        ));
    }
    let bits = &s[slash + 1..];
    let bad_bits = || prefix_err(format!("bad bits after slash: {}", quote(bits)));
    if bits.len() > 1 && !(b'1'..=b'9').contains(&bits.as_bytes()[0]) {
        return Err(bad_bits());
    }
    let n: i64 = bits.parse().map_err(|_| bad_bits())?;
    if n < 0 || n > if v6 { 128 } else { 32 } {
        return Err(prefix_err("prefix length out of range".into()));
    }
    Ok(())
}

fn function_error(name: &str, msg: String) -> ExecutionError {
    ExecutionError::function_error(name, msg)
}

/// `ip(<string>)`; `<CIDR>.ip()` is kube-cel's.
fn ip(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    if let Some(cidr) = &ftx.this {
        charge(1)?;
        return call("a.ip()", std::slice::from_ref(cidr));
    }
    let [Value::String(s)] = &args[..] else {
        charge(1)?;
        return call("ip(a)", &args);
    };
    charge_traversal(s, 1.0)?;
    check_ip(s).map_err(|e| function_error("ip", e))?;
    call("ip(a)", &args)
}

fn is_ip(s: Arc<String>) -> ResolveResult {
    charge_traversal(&s, 1.0)?;
    let ok = check_ip(&s).is_ok() && call("ip(a)", &[Value::String(s)]).is_ok();
    Ok(Value::Bool(ok))
}

fn is_canonical(s: Arc<String>) -> ResolveResult {
    // Parsed, then compared with the original: two traversals.
    charge_traversal(&s, 2.0)?;
    check_ip(&s).map_err(|e| function_error("ip.isCanonical", e))?;
    call("ip.isCanonical(a)", &[Value::String(s)])
}

fn cidr(s: Arc<String>) -> ResolveResult {
    charge_traversal(&s, 1.0)?;
    check_cidr(&s).map_err(|e| {
        function_error(
            "cidr",
            format!("network address parse error during conversion from string: {e}"),
        )
    })?;
    call("cidr(a)", &[Value::String(s)])
}

fn is_cidr(s: Arc<String>) -> ResolveResult {
    charge_traversal(&s, 1.0)?;
    let ok = check_cidr(&s).is_ok() && call("cidr(a)", &[Value::String(s)]).is_ok();
    Ok(Value::Bool(ok))
}

/// kube-cel's `containsIP`/`containsCIDR` with the API server's call cost:
/// `base` for comparing the prefixes (the CIDR's size is 1, as cel-go sizes
/// values without a length), plus a traversal when `other` is a string to parse.
fn contains(c: Value, other: Value, src: &'static str, base: u64) -> ResolveResult {
    charge(base)?;
    if let Value::String(s) = &other {
        charge_traversal(s, 1.0)?;
    }
    call(src, &[c, other])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_fail_in_gos_words() {
        assert_eq!(
            check_ip("192.168.0.1.0").unwrap_err(),
            r#"IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long"#
        );
        assert_eq!(
            check_ip("2001:db8:::68").unwrap_err(),
            r#"IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")"#
        );
        // Go's ParseAddr messages, by their distinctive part (`true`: the end).
        for (bad, part, at_end) in [
            ("1.2.3", "IPv4 address too short", true),
            ("01.2.3.4", "leading zero", false),
            ("1.2.3.256", "value >255", false),
            ("abc", "unable to parse IP", true),
            ("fe80::1%eth0", "with zone value", false),
            ("1::2::3", "multiple ::", false),
        ] {
            let err = check_ip(bad).unwrap_err();
            let found = if at_end {
                err.ends_with(part)
            } else {
                err.contains(part)
            };
            assert!(found, "{bad}: {err}");
        }
        for ok in [
            "::",
            "::1",
            "1.2.3.4",
            "2001:db8::68",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:7:8",
        ] {
            assert_eq!(check_ip(ok), Ok(()), "{ok}");
        }
        assert!(check_ip("1:2:3:4:5:6:7:8:9").is_err());
    }

    #[test]
    fn ip_is_also_the_cidr_method() {
        use kube_cel::KubeCelExt;
        use kube_cel::cel::Program;
        let mut ctx = Context::default().with_all();
        register(&mut ctx, |name| Value::from(name));
        let eval = |src: &str| Program::compile(src).expect("parses").execute(&ctx);
        assert_eq!(eval("cidr('::1/128').ip().family()"), Ok(Value::Int(6)));
        assert_eq!(eval("net.CIDR"), Ok(Value::from("net.CIDR")));
        let err = eval("ip('1.2.3')").unwrap_err();
        assert!(err.to_string().contains("IPv4 address too short"), "{err}");
    }

    #[test]
    fn prefixes_fail_in_gos_words() {
        assert_eq!(
            check_cidr("192.168.0.0/").unwrap_err(),
            r#"network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: """#
        );
        assert!(check_cidr("10.0.0.0").unwrap_err().ends_with("no '/'"));
        assert!(
            check_cidr("10.0.0.0/33")
                .unwrap_err()
                .ends_with("prefix length out of range")
        );
        assert!(check_cidr("10.0.0.0/01").unwrap_err().contains("bad bits"));
        assert_eq!(check_cidr("2001:db8::/32"), Ok(()));
        assert_eq!(check_cidr("10.0.0.0/0"), Ok(()));
    }
}
