use super::*;
use crate::faults::Request;

fn refused(text: &str) -> (Option<String>, String) {
    let e = text.parse::<FaultRule>().unwrap_err();
    assert_eq!(e.rule, text);
    (e.key, e.message)
}

#[test]
fn every_key_is_read() {
    let rule: FaultRule = "verb=update, resource=deployments.apps/status, namespace=ns, name=web, \
         user=alice, code=503, count=2, after=1, probability=0.5, seed=7, delay=1.5s, retry-after=3"
        .parse()
        .unwrap();
    assert_eq!(rule.verb.as_deref(), Some("update"));
    assert_eq!(
        rule.resource,
        Some(ResourceMatch {
            plural: "deployments".into(),
            group: Some("apps".into()),
            subresource: Some("status".into()),
        })
    );
    assert_eq!(
        (
            rule.namespace.as_deref(),
            rule.name.as_deref(),
            rule.user.as_deref()
        ),
        (Some("ns"), Some("web"), Some("alice"))
    );
    assert_eq!((rule.code, rule.count, rule.after), (Some(503), Some(2), 1));
    assert_eq!((rule.probability, rule.seed), (0.5, 7));
    assert_eq!(rule.delay, Some(Duration::from_millis(1500)));
    assert_eq!(rule.retry_after, Some(3));
    let watch: FaultRule = "verb=watch,resource=configmaps,close-after=3"
        .parse()
        .unwrap();
    assert_eq!(watch.close_after, Some(3));
    assert_eq!(
        watch.to_string(),
        "verb=watch,resource=configmaps,close-after=3"
    );
    let any: FaultRule = "verb=*,resource=*,delay=10ms".parse().unwrap();
    assert_eq!((any.verb, any.resource), (None, None));
}

#[test]
fn mistakes_are_refused_with_their_key() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        (
            "verb=get,code=418",
            Some("code"),
            "418 is not one of 409, 410, 429, 500, 503, 504",
        ),
        (
            "verb=fetch,code=500",
            Some("verb"),
            "\"fetch\" is not one of get, list, watch, create, update, patch, delete, deletecollection, *",
        ),
        (
            "verb=get,colour=red,code=500",
            Some("colour"),
            "unknown key (keys: verb, resource, namespace, name, user, code, count, after, probability, seed, delay, close-after, retry-after)",
        ),
        (
            "verb=get,code",
            None,
            "\"code\" is not key=value (keys: verb, resource, namespace, name, user, code, count, after, probability, seed, delay, close-after, retry-after)",
        ),
        ("verb=get,verb=list,code=500", Some("verb"), "given twice"),
        (
            "verb=get,code=500,count=many",
            Some("count"),
            "\"many\" is not a count",
        ),
        (
            "verb=get,code=500,probability=1.5",
            Some("probability"),
            "1.5 is not between 0 and 1",
        ),
        (
            "verb=get,code=500,seed=3",
            Some("seed"),
            "goes with probability",
        ),
        (
            "verb=get,delay=soon",
            Some("delay"),
            "time: invalid duration \"soon\" (e.g. 500ms, 2s)",
        ),
        (
            "verb=get",
            None,
            "does nothing: give code, delay or close-after",
        ),
        (
            "verb=get,code=410",
            Some("code"),
            "410 is a watch's answer: add verb=watch",
        ),
        (
            "verb=list,close-after=2",
            Some("close-after"),
            "ends watch streams: add verb=watch",
        ),
        (
            "verb=watch,close-after=0",
            Some("close-after"),
            "must be at least 1",
        ),
        (
            "verb=watch,close-after=2,code=500",
            Some("close-after"),
            "a watch answered with a code has no stream to end",
        ),
        (
            "verb=get,code=500,retry-after=2",
            Some("retry-after"),
            "goes with code=429, 503 or 504",
        ),
        (
            "resource=Deployments,code=500",
            Some("resource"),
            "\"Deployments\" is not plural, plural.group or plural/subresource (e.g. deployments.apps/scale)",
        ),
        ("namespace=,code=500", Some("namespace"), "empty value"),
    ];
    for (rule, key, message) in cases {
        assert_eq!(
            refused(rule),
            (key.map(str::to_string), message.to_string()),
            "{rule}"
        );
    }
    let e = "verb=get,code=418".parse::<FaultRule>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "fault rule \"verb=get,code=418\": code: 418 is not one of 409, 410, 429, 500, 503, 504"
    );
}

#[test]
fn a_rule_matches_what_it_names() {
    let req = Request {
        verb: "patch",
        group: "apps",
        resource: "deployments",
        subresource: Some("status"),
        namespace: Some("ns"),
        name: Some("web"),
        user: None,
    };
    let matches = |text: &str| text.parse::<FaultRule>().unwrap().matches(&req);
    assert!(matches("verb=patch,code=500"));
    assert!(matches("resource=deployments/status,code=500"));
    assert!(matches("resource=deployments.apps/status,code=500"));
    assert!(matches("resource=deployments/*,code=500"));
    assert!(matches("namespace=ns,name=web,code=500"));
    assert!(
        !matches("resource=deployments,code=500"),
        "the resource itself only"
    );
    assert!(!matches("resource=deployments.extensions/status,code=500"));
    assert!(!matches("verb=update,code=500"));
    assert!(!matches("namespace=other,code=500"));
    assert!(!matches("user=alice,code=500"), "a request without a user");
    let alice = Request {
        user: Some("alice"),
        ..req
    };
    let core = Request {
        verb: "get",
        group: "",
        resource: "configmaps",
        subresource: None,
        ..req
    };
    for (rule, request) in [
        ("user=alice,code=500", &alice),
        ("resource=configmaps,code=500", &core),
    ] {
        let rule: FaultRule = rule.parse().unwrap();
        assert!(rule.matches(request), "{rule}");
    }
}
