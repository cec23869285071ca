use super::*;

fn rule(text: &str) -> FaultRule {
    text.parse().unwrap()
}

const GET: Request<'static> = Request {
    verb: "get",
    group: "",
    resource: "configmaps",
    subresource: None,
    namespace: Some("ns"),
    name: Some("a"),
    user: None,
};

fn pattern(faults: &Faults, n: usize) -> String {
    (0..n)
        .map(|_| match faults.decide(&GET) {
            Some(i) => char::from_digit(i.rule.0 as u32, 10).unwrap_or('?'),
            None => '.',
        })
        .collect()
}

#[test]
fn after_then_count_then_untouched() {
    let faults = Faults::new([rule("verb=get,code=500,after=2,count=3")]);
    assert_eq!(pattern(&faults, 8), "..111...");
    let id = faults.rules()[0].0;
    assert_eq!(faults.injected(id), Some(3));
}

#[test]
fn the_first_rule_that_acts_decides_and_rules_come_and_go() {
    let faults = Faults::default();
    assert_eq!(faults.decide(&GET), None, "no rule: untouched");
    let first = faults.add(rule("verb=get,code=409,count=1"));
    let second = faults.add(rule("resource=configmaps,code=500"));
    assert_eq!(pattern(&faults, 3), "122");
    assert!(faults.remove(second));
    assert!(!faults.remove(second), "gone already");
    assert_eq!(pattern(&faults, 2), "..");
    let third = faults.add(rule("verb=list,code=500"));
    assert_eq!(pattern(&faults, 1), ".", "another verb");
    faults.clear();
    assert!(faults.rules().is_empty());
    assert_eq!(faults.injected(first), None);
    assert_eq!(faults.injected(third), None);
    let i = Faults::new([rule("verb=get,code=429,retry-after=2,delay=5ms")])
        .decide(&GET)
        .unwrap();
    assert_eq!(
        (i.code, i.retry_after, i.delay, i.text.as_str()),
        (
            Some(429),
            Some(2),
            Some(Duration::from_millis(5)),
            "verb=get,code=429,retry-after=2,delay=5ms"
        )
    );
}

#[test]
fn a_seed_makes_the_choices_reproducible() {
    let run = |seed: u64| {
        let faults = Faults::new([rule(&format!(
            "verb=get,code=500,probability=0.3,seed={seed}"
        ))]);
        pattern(&faults, 64)
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42), run(43));
    let hits = run(42).matches('1').count();
    assert!((8..=32).contains(&hits), "about 30% of 64: {hits}");
    let never = Faults::new([rule("verb=get,code=500,probability=0")]);
    assert_eq!(pattern(&never, 16), "................");
}
