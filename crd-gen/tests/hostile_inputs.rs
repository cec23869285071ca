//! Hostile inputs through every door of the CLI: `check FILE`, `generate FILE`,
//! `validate --crd FILE OBJ` (the file read as CRDs) and `validate --crd CRD FILE`
//! (the file read as objects).
//!
//! Every run must end by itself with exit 0, 1 or 2 within [`TIME_LIMIT`] and
//! [`MEMORY_LIMIT_MB`] (measured with `wait4`), print each error on one line naming
//! the file and a position or field path, and never print Rust `Debug` text or a
//! panic. Each case also states what the user should see.

#![cfg(unix)]

mod hostile;
#[path = "../../tests/src/test_crd.rs"]
mod test_crd;

use std::path::Path;
use std::process::Command;

use hostile::*;

fn alias_bomb() -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text
}

#[test]
fn alias_bombs_are_refused() {
    let bench = Bench::new("alias");
    let file = bench.write("bomb.yaml", alias_bomb());
    assert_unreadable(
        &bench,
        &file,
        "6:45: the YAML cannot be read safely: aliases expand to too much data (an alias bomb?)",
    );
}

#[test]
fn nesting_200000_deep_is_refused_at_the_servers_limit() {
    let bench = Bench::new("deep");
    let n = 200_000;
    // JSON as kube-apiserver reads it: 10,000 levels (Go's maxNestingDepth), refused in
    // its words at the first bracket past that.
    let json = [
        (
            "array.json",
            format!("{}{}", "[".repeat(n), "]".repeat(n)),
            "1:10001: invalid character '[' exceeded max depth",
        ),
        (
            "object.json",
            format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n)),
            "1:50001: invalid character '{' exceeded max depth",
        ),
        (
            "unclosed.json",
            "[".repeat(n),
            "1:10001: invalid character '[' exceeded max depth",
        ),
    ];
    for (name, text, want) in json {
        let file = bench.write(name, text);
        assert_unreadable(&bench, &file, want);
    }
    let cases = [
        (
            "flow.yaml",
            format!("x: {}1{}\n", "[".repeat(n), "]".repeat(n)),
            "1:259",
        ),
        (
            "flow-map.yaml",
            format!("x: {}1{}\n", "{a: ".repeat(n), "}".repeat(n)),
            "1:512",
        ),
        ("block.yaml", format!("{}x\n", "- ".repeat(n)), "1:257"),
    ];
    for (name, text, at) in cases {
        let file = bench.write(name, text);
        assert_unreadable(
            &bench,
            &file,
            &format!("{at}: document nests deeper than 128 levels"),
        );
    }
    // Block mappings nest by indentation: 2,000 levels is already 2 MB.
    let mut block = String::new();
    for level in 0..2_000 {
        block.push_str(&" ".repeat(level));
        block.push_str("a:\n");
    }
    let file = bench.write("block-map.yaml", block);
    assert_unreadable(
        &bench,
        &file,
        "129:129: document nests deeper than 128 levels",
    );
}

#[test]
fn fifty_megabyte_strings() {
    let bench = Bench::new("big");
    let big = "x".repeat(50 << 20);
    let yaml = format!(
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {{name: x}}\nspec: {{s: {big}}}\n"
    );
    let file = bench.write("string.yaml", yaml);
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
    let file = bench.write("string.json", object(&format!(r#"{{"s":"{big}"}}"#)));
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
    // A 50 MB implicit key is longer than YAML allows (1024 characters).
    let file = bench.write("key.yaml", format!("{big}: 1\n"));
    assert_unreadable(
        &bench,
        &file,
        "1:52428801: mapping values are not allowed in this context",
    );
    // A 50 MB description is a valid CRD; generate carries it into a doc comment.
    let file = bench.write(
        "description.yaml",
        crd(&format!(r#"{{"type":"object","description":"{big}"}}"#)),
    );
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert_eq!(runs[2].code, 0);
}

#[test]
fn bytes_that_are_not_text() {
    let bench = Bench::new("bytes");
    let file = bench.write("utf8.yaml", b"apiVersion: v1\nkind: \xff\xfe\n");
    assert_unreadable(
        &bench,
        &file,
        "2:7: input is not valid UTF-8 (invalid byte at offset 21)",
    );
    // NUL: a raw one in YAML, a raw one inside a JSON string, and a raw one between
    // JSON tokens.
    let file = bench.write("nul.yaml", "apiVersion: v1\nkind: Cron\0Tab\n");
    assert_unreadable(&bench, &file, "2:11: unexpected character: `U+0000'");
    let file = bench.write("nul-string.json", "{\"kind\":\"Cron\0Tab\"}");
    assert_unreadable(
        &bench,
        &file,
        "1:14: control character (\\u0000-\\u001F) found while parsing a string",
    );
    let file = bench.write("nul-token.json", "{\"kind\":\"CronTab\",\0}");
    assert_unreadable(&bench, &file, "1:19: key must be a string");
    // An escaped NUL is valid JSON; the name then fails the API server's rules.
    let file = bench.write(
        "nul-escaped.json",
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a\u0000b"}}"#,
    );
    let runs = bench.run_all(&file);
    assert_eq!(runs[3].code, 1);
    assert!(
        runs[3]
            .stdout
            .contains("metadata.name: Invalid value: \"a\\x00b\""),
        "{}",
        runs[3].stdout
    );
    // Invalid UTF-8 inside a JSON string, read as objects.
    let file = bench.write("utf8.json", b"{\"a\": \"\xc3\x28\"}");
    for run in bench.run_all(&file) {
        assert_eq!(run.code, 2);
        assert!(
            run.stderr.contains(&format!("{}:1:", file.display())),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn duplicate_keys_are_errors_in_yaml_and_json() {
    let bench = Bench::new("dup");
    let file = bench.write(
        "dup.yaml",
        "apiVersion: stable.example.com/v1\nkind: CronTab\nkind: CronTab\nmetadata: {name: x}\n",
    );
    assert_unreadable(&bench, &file, "3:1: key \"kind\" already set in map");
    let file = bench.write(
        "dup.json",
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","kind":"CronTab"}"#,
    );
    assert_unreadable(&bench, &file, "1:72: duplicate field \"kind\"");
    // Inside a CRD's schema, too: the later `type` must not silently win.
    let file = bench.write("dup-crd.json", r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"type":"a","type":"b"}}"#);
    assert_unreadable(&bench, &file, "1:104: duplicate field \"type\"");
}

#[test]
fn five_thousand_digit_numbers() {
    let bench = Bench::new("digits");
    let digits = "9".repeat(5_000);
    let file = bench.write(
        "int.yaml",
        format!("apiVersion: v1\nkind: X\nn: {digits}\n"),
    );
    assert_unreadable(
        &bench,
        &file,
        &format!(
            "3:4: `{}... (5000 characters)` is not a finite number (too large, or .inf/.nan), which JSON cannot hold",
            &digits[..32]
        ),
    );
    let file = bench.write("int.json", format!(r#"{{"n": {digits}}}"#));
    assert_unreadable(&bench, &file, "1:5006: number out of range");
    // A long fraction is a fine float.
    let file = bench.write("fraction.json", object(&format!(r#"{{"f": 0.{digits}}}"#)));
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
}

#[test]
fn two_hundred_thousand_empty_documents() {
    let bench = Bench::new("empty");
    for (name, text) in [
        ("dashes.yaml", "---\n".repeat(200_000)),
        ("ends.yaml", "---\n...\n".repeat(200_000)),
    ] {
        let file = bench.write(name, text);
        let runs = bench.run_all(&file);
        assert_eq!(runs[0].code, 0);
        assert!(runs[0].stderr.contains("note: empty file (no documents)"));
        assert_eq!(runs[1].code, 2);
        assert_eq!(runs[2].code, 2);
        assert_eq!(runs[3].code, 0);
        assert!(runs[3].stderr.contains("validated 0 objects: 0 invalid"));
    }
}

#[test]
fn odd_yaml_tags() {
    let bench = Bench::new("tags");
    // Tags a manifest can carry: core tags are applied, unknown local tags ignored.
    let text = "apiVersion: !!str stable.example.com/v1\nkind: !CronTab CronTab\nmetadata: !!map {name: !!str x}\nspec: {a: !!binary aGVsbG8=, b: !!set {a, b}, c: !<tag:yaml.org,2002:int> 3, d: !!float 1, e: !!python/object:os.system x}\n";
    let file = bench.write("tags.yaml", text);
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
    let out = Command::new(BIN)
        .args(["validate", "--output", "json", "--crd"])
        .arg(bench.dir.path().join("plain-crd.yaml"))
        .arg(&file)
        .output()
        .unwrap();
    let admitted: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        admitted["spec"],
        serde_json::json!({"a": "hello", "b": {"a": null, "b": null}, "c": 3, "d": 1.0, "e": "x"})
    );
    let file = bench.write(
        "timestamp.yaml",
        "apiVersion: v1\nkind: X\nt: !!timestamp 2001-12-14\n",
    );
    assert_unreadable(
        &bench,
        &file,
        "3:16: this tagged value (such as !!timestamp) cannot be read as JSON: quote it as a plain string",
    );
}

#[test]
fn crlf_line_ends() {
    let bench = Bench::new("crlf");
    let schema = r#"{"type":"object","properties":{"spec":{"type":"object","properties":{"text":{"type":"string"}}}}}"#;
    let file = bench.write("crd.yaml", crd(schema).replace('\n', "\r\n"));
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert!(!runs[1].stdout.contains('\r'));
    let obj = "apiVersion: stable.example.com/v1\r\nkind: CronTab\r\nmetadata:\r\n  name: x\r\nspec:\r\n  text: |\r\n    two\r\n    lines\r\n";
    let objects = bench.write("object.yaml", obj);
    let out = Command::new(BIN)
        .args(["validate", "--output", "json", "--crd"])
        .arg(&file)
        .arg(&objects)
        .output()
        .unwrap();
    let admitted: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(admitted["spec"]["text"], "two\nlines\n");
}

#[test]
fn huge_and_deep_schemas() {
    let bench = Bench::new("schemas");
    let props: Vec<String> = (0..20_000)
        .map(|i| format!(r#""p{i}":{{"type":"string"}}"#))
        .collect();
    let file = bench.write(
        "wide.yaml",
        spec_crd(&format!("{{{}}}", props.join(",")), "[]"),
    );
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert_eq!(runs[2].code, 0);
    assert!(runs[1].stdout.contains("pub p19999: Option<String>"));
    // 2,000 levels of schema are 4,000 levels of YAML: refused where reading stops.
    let deep = format!(
        "{}{{\"type\":\"string\"}}{}",
        r#"{"type":"object","properties":{"a":"#.repeat(2_000),
        "}}".repeat(2_000)
    );
    let file = bench.write("deep.yaml", crd(&deep));
    assert_unreadable(
        &bench,
        &file,
        "14:2174: document nests deeper than 128 levels",
    );
    // 60 levels (120 of YAML) are read, checked, generated and validated.
    let deep = format!(
        "{}{{\"type\":\"string\"}}{}",
        r#"{"type":"object","properties":{"a":"#.repeat(60),
        "}}".repeat(60)
    );
    let file = bench.write("deep-60.yaml", crd(&deep));
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert_eq!(runs[2].code, 0);
}

/// A CRD (JSON, which may nest 10,000 levels where YAML stops at 128) whose `spec`
/// nests `levels` schemas through `properties` (two JSON levels each) or `items`
/// (one each).
fn deep_json_crd(levels: usize, through_items: bool) -> String {
    let (open, close) = if through_items {
        (r#"{"type":"array","items":"#, "}")
    } else {
        (r#"{"type":"object","properties":{"n":"#, "}}")
    };
    let spec = format!(
        "{}{{\"type\":\"string\"}}{}",
        open.repeat(levels),
        close.repeat(levels)
    );
    format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"deeps.example.com"}},"spec":{{"group":"example.com","names":{{"plural":"deeps","singular":"deep","kind":"Deep","listKind":"DeepList"}},"scope":"Namespaced","versions":[{{"name":"v1","served":true,"storage":true,"schema":{{"openAPIV3Schema":{{"type":"object","properties":{{"spec":{spec}}}}}}}}}]}}}}"#
    )
}

/// Schemas as deep as a CRD body carries them through every command that reads
/// CRDs: `check`, `validate` and `diff` accept them, `generate` and `roundtrip`
/// answer their one-line limit, and one level of JSON too many is the server's
/// decode error everywhere. Each run has a 1 MiB main stack ([`MAIN_STACK`]):
/// `generate` and `roundtrip` once aborted with a stack overflow here (issue 49).
#[test]
fn deep_schemas_through_every_command() {
    let bench = Bench::new("deep-schemas");
    let too_deep_to_generate = "spec.versions[0].schema.openAPIV3Schema: nests deeper than 256 \
                                levels: crd-gen generate writes types for at most 256";
    let cases = [
        ("props-2000.json", deep_json_crd(2_000, false)),
        ("props-4990.json", deep_json_crd(4_990, false)),
        ("items-2000.json", deep_json_crd(2_000, true)),
        ("items-9990.json", deep_json_crd(9_990, true)),
    ];
    for (name, text) in cases {
        let file = bench.write(name, text);
        let runs = assert_crd(&bench, &file, 0, 1, "checked 1 CRDs: 0 invalid");
        assert!(
            runs[1].stderr.contains(too_deep_to_generate),
            "{name}: {}",
            head(&runs[1].stderr)
        );
        assert_eq!(runs[2].code, 1, "{name}: {}", head(&runs[2].all()));
        let roundtrip = bench.run(Door::Roundtrip, &file);
        assert_eq!(roundtrip.code, 2, "{name}: {}", head(&roundtrip.all()));
        assert!(
            roundtrip.stderr.contains(too_deep_to_generate),
            "{name}: {}",
            head(&roundtrip.stderr)
        );
        let diff = bench.run(Door::Diff, &file);
        assert_eq!(diff.code, 0, "{name}: {}", head(&diff.all()));
        assert!(
            diff.stdout
                .contains("compared 1 CRDs: 0 breaking, 0 compatible, 0 informational"),
            "{name}: {}",
            head(&diff.all())
        );
    }
    // A change at the bottom of the deepest schema is found and reported.
    let old = bench.write("old.json", deep_json_crd(9_990, true));
    let new = bench.write(
        "new.json",
        deep_json_crd(9_990, true).replace(r#"{"type":"string"}"#, r#"{"type":"integer"}"#),
    );
    let args = ["diff", old.to_str().unwrap(), new.to_str().unwrap()];
    let diff = spawn_bounded(bench.dir.path(), Door::Diff, &args);
    assert_eq!(diff.code, 1, "{}", head(&diff.all()));
    assert!(
        diff.stdout
            .contains("type-changed: type changed from string to integer [breaking]"),
        "{}",
        head(&diff.all())
    );
    // 10,000 `properties` levels are 20,000 JSON levels: refused where reading stops,
    // by every command.
    let file = bench.write("props-10000.json", deep_json_crd(10_000, false));
    assert_unreadable(
        &bench,
        &file,
        "1:175257: invalid character '{' exceeded max depth",
    );
    for door in [Door::Roundtrip, Door::Diff] {
        let run = bench.run(door, &file);
        assert_eq!(run.code, 2, "{door:?}: {}", head(&run.all()));
        assert!(
            run.stderr.contains("exceeded max depth"),
            "{door:?}: {}",
            head(&run.stderr)
        );
    }
}

#[test]
fn catastrophic_and_unsupported_regular_expressions() {
    let bench = Bench::new("regex");
    let props =
        r#"{"a":{"type":"string","pattern":"^(a+)+$"},"b":{"type":"string","pattern":"^(a|a)*$"}}"#;
    let file = bench.write("catastrophic.yaml", spec_crd(props, "[]"));
    assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    // Backtracking engines take exponential time here; RE2 semantics take linear time.
    let long = format!("{}b", "a".repeat(100_000));
    let objects = bench.write(
        "evil.json",
        object(&format!(r#"{{"a":"{long}","b":"{long}"}}"#)),
    );
    let report = invalid_objects_report(&file, &objects);
    assert!(
        report.contains("spec.a in body should match '^(a+)+$'"),
        "{}",
        head(&report)
    );
    let cases = [
        (
            "lookahead",
            "^(?=a)a$",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
        ),
        (
            "backreference",
            "(a)\\\\1",
            "error parsing regexp: invalid or unsupported Perl syntax: `\\1`",
        ),
        (
            "open-groups",
            &"(".repeat(5_000),
            "error parsing regexp: missing closing )",
        ),
        (
            "nested-groups",
            &format!("{}a{}", "(".repeat(5_000), ")".repeat(5_000)),
            "error parsing regexp: expression nests too deeply",
        ),
        (
            "repeats",
            "((a{1000}){1000}){1000}",
            "error parsing regexp: expression too large",
        ),
    ];
    for (name, pattern, message) in cases {
        let props = format!(r#"{{"a":{{"type":"string","pattern":"{pattern}"}}}}"#);
        let file = bench.write(&format!("{name}.yaml"), spec_crd(&props, "[]"));
        let runs = assert_crd(&bench, &file, 1, 0, message);
        assert!(
            runs[0]
                .stdout
                .contains(".properties[spec].properties[a].pattern: Invalid value: ")
        );
        // validate reports the bad pattern on the object's field.
        assert_eq!(runs[2].code, 1, "{}", head(&runs[2].all()));
        assert!(
            runs[2]
                .stdout
                .contains(&format!("but pattern is invalid: {message}"))
        );
    }
}

#[test]
fn cel_cost_bombs_and_deep_rules() {
    let bench = Bench::new("cel");
    let list = r#"{"l":{"type":"array","items":{"type":"string"}}}"#;
    let bomb = r#"[{"rule":"self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d != ''))))"}]"#;
    let file = bench.write("bomb.yaml", spec_crd(list, bomb));
    assert_crd(
        &bench,
        &file,
        1,
        0,
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x",
    );
    // Run anyway (validate does not refuse CRDs), the runtime limit stops it.
    let items: Vec<String> = (0..1_000).map(|i| format!("\"{i}\"")).collect();
    let objects = bench.write(
        "big-list.json",
        object(&format!(r#"{{"l":[{}]}}"#, items.join(","))),
    );
    let report = invalid_objects_report(&file, &objects);
    assert!(
        report.contains("'operation cancelled: actual cost limit exceeded'"),
        "{}",
        head(&report)
    );

    let recursion =
        "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
    let deep_rules = [
        format!("{} > 0", vec!["1"; 20_000].join(" + ")),
        format!("self{} == ''", ".a".repeat(20_000)),
        format!("{}true{}", "(".repeat(5_000), ")".repeat(5_000)),
        format!("{}{} == []", "[".repeat(5_000), "]".repeat(5_000)),
        format!("{}true", "true ? true : ".repeat(5_000)),
    ];
    for (i, rule) in deep_rules.iter().enumerate() {
        let file = bench.write(
            &format!("deep-{i}.yaml"),
            spec_crd(list, &format!(r#"[{{"rule":"{rule}"}}]"#)),
        );
        let runs = assert_crd(&bench, &file, 1, 0, recursion);
        assert_eq!(runs[2].code, 1);
        assert!(
            runs[2].stdout.contains(recursion),
            "{}",
            head(&runs[2].stdout)
        );
    }
    let huge = format!("'{}' != ''", "a".repeat(1 << 20));
    let file = bench.write(
        "huge.yaml",
        spec_crd(list, &format!(r#"[{{"rule":"{huge}"}}]"#)),
    );
    let runs = assert_crd(
        &bench,
        &file,
        1,
        0,
        "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: ",
    );
    assert!(runs[0].stdout.contains(", limit 100000\n"));
    // 5,000 negations are one flat operator in CEL's grammar: accepted.
    let file = bench.write(
        "nots.yaml",
        spec_crd(
            list,
            &format!(r#"[{{"rule":"{}true"}}]"#, "!".repeat(5_000)),
        ),
    );
    assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
}

/// `crd-gen validate --crd CRD OBJECTS` on objects it must find invalid (exit 1):
/// its report.
fn invalid_objects_report(crd: &Path, objects: &Path) -> String {
    let out = Command::new(BIN)
        .arg("validate")
        .arg("--crd")
        .arg(crd)
        .arg(objects)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stdout).unwrap()
}
