//! Running a parsed [`Template`] over an object.

use serde_json::{Value, json};

use super::{Arg, Host, Node, Pipe, Template};

struct Scope<'a> {
    root: &'a Value,
    host: &'a dyn Host,
    vars: Vec<(String, Value)>,
    out: String,
}

/// Runs `template` with `data` as `.` (and `$`).
pub fn render(template: &Template, data: &Value, host: &dyn Host) -> Result<String, String> {
    let mut s = Scope {
        root: data,
        host,
        vars: vec![("$".into(), data.clone())],
        out: String::new(),
    };
    s.nodes(&template.nodes, data)?;
    Ok(s.out)
}

/// How a value prints: strings as they are, `nil` as nothing, lists and maps as JSON.
pub fn to_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Go's truth: false, 0, nil and empty strings, lists and maps are false.
fn truth(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn walk(v: &Value, chain: &[String]) -> Value {
    let mut at = v;
    for f in chain {
        match at.get(f) {
            Some(next) => at = next,
            None => return Value::Null,
        }
    }
    at.clone()
}

impl Scope<'_> {
    fn nodes(&mut self, nodes: &[Node], dot: &Value) -> Result<(), String> {
        for n in nodes {
            self.node(n, dot)?;
        }
        Ok(())
    }

    fn node(&mut self, n: &Node, dot: &Value) -> Result<(), String> {
        match n {
            Node::Text(t) => self.out.push_str(t),
            Node::Action(p) => {
                let v = self.pipe(p, dot)?;
                if p.vars.is_empty() {
                    self.out.push_str(&to_text(&v));
                }
            }
            Node::If(branches, otherwise) => {
                let depth = self.vars.len();
                let mut taken = false;
                for (cond, body) in branches {
                    if truth(&self.pipe(cond, dot)?) {
                        self.nodes(body, dot)?;
                        taken = true;
                        break;
                    }
                }
                if !taken {
                    self.nodes(otherwise, dot)?;
                }
                self.vars.truncate(depth);
            }
            Node::With(p, body, otherwise) => {
                let depth = self.vars.len();
                let v = self.pipe(p, dot)?;
                if truth(&v) {
                    self.nodes(body, &v)?;
                } else {
                    self.nodes(otherwise, dot)?;
                }
                self.vars.truncate(depth);
            }
            Node::Range(p, body, otherwise) => {
                let depth = self.vars.len();
                let v = self.pipe_value(p, dot)?;
                let items: Vec<(Value, Value)> = match &v {
                    Value::Array(a) => a
                        .iter()
                        .enumerate()
                        .map(|(i, x)| (json!(i), x.clone()))
                        .collect(),
                    Value::Object(o) => o.iter().map(|(k, x)| (json!(k), x.clone())).collect(),
                    Value::Number(n) => (0..n.as_i64().unwrap_or(0))
                        .map(|i| (json!(i), json!(i)))
                        .collect(),
                    Value::Null => Vec::new(),
                    other => return Err(format!("range can't iterate over {}", to_text(other))),
                };
                if items.is_empty() {
                    self.nodes(otherwise, dot)?;
                }
                for (key, item) in items {
                    let inner = self.vars.len();
                    match p.vars.as_slice() {
                        [v] => self.vars.push((v.clone(), item.clone())),
                        [k, v] => {
                            self.vars.push((k.clone(), key));
                            self.vars.push((v.clone(), item.clone()));
                        }
                        _ => {}
                    }
                    self.nodes(body, &item)?;
                    self.vars.truncate(inner);
                }
                self.vars.truncate(depth);
            }
        }
        Ok(())
    }

    /// A `range`'s pipeline: its value (its variables are bound per item).
    fn pipe_value(&mut self, p: &Pipe, dot: &Value) -> Result<Value, String> {
        let bare = Pipe {
            vars: Vec::new(),
            declare: false,
            cmds: p.cmds.clone(),
        };
        self.pipe(&bare, dot)
    }

    fn pipe(&mut self, p: &Pipe, dot: &Value) -> Result<Value, String> {
        let mut piped: Option<Value> = None;
        for cmd in &p.cmds {
            piped = Some(self.command(cmd, dot, piped)?);
        }
        let v = piped.unwrap_or(Value::Null);
        if let Some(name) = p.vars.first() {
            if p.declare {
                self.vars.push((name.clone(), v.clone()));
            } else {
                let slot = self
                    .vars
                    .iter_mut()
                    .rev()
                    .find(|(n, _)| n == name)
                    .ok_or_else(|| format!("undefined variable: {name}"))?;
                slot.1 = v.clone();
            }
        }
        Ok(v)
    }

    fn arg(&mut self, a: &Arg, dot: &Value) -> Result<Value, String> {
        match a {
            Arg::Field(chain) => Ok(walk(dot, chain)),
            Arg::Var(name, chain) => {
                let (_, v) = self
                    .vars
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .ok_or_else(|| format!("undefined variable: {name}"))?;
                Ok(walk(v, chain))
            }
            Arg::Lit(v) => Ok(v.clone()),
            Arg::Func(f) => self.call(f, Vec::new()),
            Arg::Sub(p, chain) => {
                let v = self.pipe(p, dot)?;
                Ok(walk(&v, chain))
            }
        }
    }

    fn command(&mut self, cmd: &[Arg], dot: &Value, piped: Option<Value>) -> Result<Value, String> {
        if let Arg::Func(f) = &cmd[0] {
            let mut args = Vec::new();
            for a in &cmd[1..] {
                args.push(self.arg(a, dot)?);
            }
            args.extend(piped);
            return self.call(f, args);
        }
        if cmd.len() > 1 || piped.is_some() {
            return Err("can't give an argument to a non-function".into());
        }
        self.arg(&cmd[0], dot)
    }

    fn call(&mut self, f: &str, args: Vec<Value>) -> Result<Value, String> {
        let want = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "wrong number of args for {f}: want {n} got {}",
                    args.len()
                ))
            }
        };
        let at_least = |n: usize| {
            if args.len() >= n {
                Ok(())
            } else {
                Err(format!("wrong number of args for {f}: want at least {n}"))
            }
        };
        Ok(match f {
            "and" => {
                at_least(1)?;
                args.iter()
                    .find(|a| !truth(a))
                    .unwrap_or(&args[args.len() - 1])
                    .clone()
            }
            "or" => {
                at_least(1)?;
                args.iter()
                    .find(|a| truth(a))
                    .unwrap_or(&args[args.len() - 1])
                    .clone()
            }
            "not" => {
                want(1)?;
                json!(!truth(&args[0]))
            }
            "eq" => {
                at_least(2)?;
                json!(args[1..].iter().any(|a| same(&args[0], a)))
            }
            "ne" => {
                want(2)?;
                json!(!same(&args[0], &args[1]))
            }
            "lt" | "le" | "gt" | "ge" => {
                want(2)?;
                let ord = order(&args[0], &args[1])
                    .ok_or_else(|| format!("incompatible types for comparison in {f}"))?;
                json!(match f {
                    "lt" => ord.is_lt(),
                    "le" => ord.is_le(),
                    "gt" => ord.is_gt(),
                    _ => ord.is_ge(),
                })
            }
            "len" => {
                want(1)?;
                json!(match &args[0] {
                    Value::String(s) => s.len(),
                    Value::Array(a) => a.len(),
                    Value::Object(o) => o.len(),
                    Value::Null => 0,
                    other => return Err(format!("len of {}", to_text(other))),
                })
            }
            "index" => {
                at_least(1)?;
                let mut v = args[0].clone();
                for k in &args[1..] {
                    v = match (&v, k) {
                        (Value::Array(a), Value::Number(n)) => {
                            let i = n.as_u64().unwrap_or(u64::MAX) as usize;
                            a.get(i).cloned().ok_or_else(|| {
                                format!("error calling index: index out of range: {i}")
                            })?
                        }
                        (Value::Object(o), Value::String(s)) => {
                            o.get(s).cloned().unwrap_or(Value::Null)
                        }
                        (Value::Null, _) => Value::Null,
                        _ => return Err("error calling index: cannot index".into()),
                    };
                }
                v
            }
            "print" => json!(args.iter().map(to_text).collect::<Vec<_>>().join("")),
            "println" => json!(format!(
                "{}\n",
                args.iter().map(to_text).collect::<Vec<_>>().join(" ")
            )),
            "printf" => {
                at_least(1)?;
                json!(printf(&to_text(&args[0]), &args[1..])?)
            }
            "Quote" => {
                want(1)?;
                let text = match &args[0] {
                    Value::String(s) => s.clone(),
                    other => to_text(other),
                };
                json!(serde_json::to_string(&text).unwrap_or_default())
            }
            "YAML" => {
                at_least(1)?;
                json!(serde_json::to_string(&args[0]).unwrap_or_default())
            }
            "Now" => json!(self.host.now()),
            "StartTime" => match self.root.pointer("/status/startTime") {
                Some(Value::String(s)) if !s.is_empty() => json!(s),
                _ => json!(self.host.now()),
            },
            "PodIP" => json!(self.host.pod_ip()?),
            "NodeIP" => json!(self.host.node_ip()),
            "NodeName" => json!(self.host.node_name()),
            "QOSClass" => json!(self.host.qos_class()),
            "Version" => json!("kwok-crd-server"),
            other => return Err(format!("function {other:?} not defined")),
        })
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn printf(format: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let verb = chars.next().unwrap_or('%');
        if verb == '%' {
            out.push('%');
            continue;
        }
        let arg = args.next();
        match (verb, arg) {
            (_, None) => out.push_str(&format!("%!{verb}(MISSING)")),
            ('s' | 'v' | 'd', Some(a)) => out.push_str(&to_text(a)),
            ('q', Some(a)) => out.push_str(&serde_json::to_string(&to_text(a)).unwrap_or_default()),
            (other, Some(_)) => return Err(format!("printf verb %{other} is not supported")),
        }
    }
    Ok(out)
}
