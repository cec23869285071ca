use std::sync::{Arc, Mutex};

use kube_cel::cel::Program;

use super::*;
use crate::rbac::with_authorizer;

fn request_user() -> UserInfo {
    UserInfo {
        name: "alice".into(),
        groups: vec!["dev".into()],
        ..Default::default()
    }
}

fn eval(src: &str) -> ResolveResult {
    let p = Program::compile(src).expect("parses");
    let mut ctx = Context::default();
    register(&mut ctx);
    let request = RequestOf {
        user: request_user(),
        group: "apps",
        resource: "deployments",
        subresource: "",
        namespace: "demo",
        name: "web",
    };
    ctx.add_variable_from_value("authorizer", authorizer_value(&request));
    p.execute(&ctx)
}

#[test]
fn without_an_authorizer_every_check_is_allowed() {
    let ok = |s: &str| assert_eq!(eval(s), Ok(Value::Bool(true)), "{s}");
    ok(
        "authorizer.group('apps').resource('deployments').namespace('a').name('b').check('create').allowed()",
    );
    ok("authorizer.requestResource.check('update').allowed()");
    ok("authorizer.path('/healthz').check('get').allowed()");
    ok("!authorizer.requestResource.subresource('status').check('get').errored()");
    ok(
        "authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').reason() == ''",
    );
    ok("authorizer.requestResource.check('get').error() == ''");
    assert!(eval("'x'.check('get')").is_err());
    assert!(eval("authorizer.allowed()").is_err());
    // Builders only on the receivers upstream declares them on.
    assert!(eval("authorizer.resource('pods')").is_err());
    assert!(eval("authorizer.group('').check('get')").is_err());
    assert!(eval("authorizer.group('').resource(' ')").is_err());
    assert!(eval("authorizer.serviceAccount('NS!', 'sa')").is_err());
}

/// Records what it is asked; allows `get` only.
struct Recorder(Mutex<Vec<Attributes>>);

impl Authorize for Recorder {
    fn authorize(&self, attrs: &Attributes) -> AuthzDecision {
        self.0.lock().unwrap().push(attrs.clone());
        AuthzDecision {
            allowed: attrs.verb == "get",
            reason: format!("asked {}", attrs.verb),
            error: if attrs.verb == "boom" {
                "cannot decide".into()
            } else {
                String::new()
            },
        }
    }
}

#[test]
fn checks_ask_the_host_authorizer_for_the_requests_user() {
    let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
    let run = |s: &str| with_authorizer(recorder.clone(), || eval(s));
    // In this order: the recorder's entries 0 to 4 are these checks.
    for (expr, want) in [
        (
            "authorizer.requestResource.check('get').allowed()",
            Value::Bool(true),
        ),
        (
            "authorizer.requestResource.check('update').allowed()",
            Value::Bool(false),
        ),
        (
            "authorizer.requestResource.check('update').reason()",
            Value::from("asked update"),
        ),
        (
            "authorizer.path('/metrics').check('boom').errored()",
            Value::Bool(true),
        ),
        (
            "authorizer.path('/metrics').check('boom').error()",
            Value::from("cannot decide"),
        ),
    ] {
        assert_eq!(run(expr), Ok(want), "{expr}");
    }
    run("authorizer.serviceAccount('kube-system', 'robot').group('').resource('pods').subresource('log').namespace('x').name('p').check('get').allowed()")
        .expect("evaluates");
    let asked = recorder.0.lock().unwrap().clone();
    let own = &asked[0];
    assert_eq!(own.user.name, "alice");
    assert_eq!(own.user.groups, ["dev"]);
    assert_eq!(
        (
            own.api_group.as_str(),
            own.resource.as_str(),
            own.namespace.as_str(),
            own.name.as_str(),
            own.api_version.as_str()
        ),
        ("apps", "deployments", "demo", "web", "*")
    );
    assert!(own.resource_request);
    let path = &asked[3];
    assert!(!path.resource_request);
    assert_eq!(path.path, "/metrics");
    let sa = asked.last().unwrap();
    assert_eq!(sa.user.name, "system:serviceaccount:kube-system:robot");
    assert_eq!(
        sa.user.groups,
        [
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system"
        ]
    );
    assert_eq!(
        (
            sa.resource.as_str(),
            sa.subresource.as_str(),
            sa.namespace.as_str(),
            sa.name.as_str()
        ),
        ("pods", "log", "x", "p")
    );
}
