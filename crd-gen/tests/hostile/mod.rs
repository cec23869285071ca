//! The harness of `hostile_inputs.rs`: runs the CLI through each of its doors,
//! bounded in time and memory (`wait4`), and checks the rules every run must
//! keep (exit 0-2, one-line errors naming the file, no Debug text).

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");
/// Generous for a debug build on a loaded 2-core CI machine: the whole suite (each
/// case through all four doors) takes about 11 s there (FUZZING.md).
pub const TIME_LIMIT: Duration = Duration::from_secs(30);
pub const MEMORY_LIMIT_MB: i64 = 1536;

/// The ways a file enters the CLI: the four [`DOORS`] every case goes through, and
/// the commands that also read CRDs (run for the cases about CRDs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Door {
    Check,
    Generate,
    ValidateAsCrd,
    ValidateAsObjects,
    Roundtrip,
    Diff,
}

pub const DOORS: [Door; 4] = [
    Door::Check,
    Door::Generate,
    Door::ValidateAsCrd,
    Door::ValidateAsObjects,
];

/// What one run printed and cost.
pub struct Run {
    pub door: Door,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub max_rss_mb: i64,
}

impl Run {
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// A scratch directory holding a plain CRD and object beside the hostile files.
pub struct Bench {
    pub dir: tempfile::TempDir,
}

/// A CRD whose schema is `schema` (JSON text, as a flow mapping).
pub fn crd(schema: &str) -> String {
    crate::test_crd::crd_yaml("stable.example.com", "CronTab", schema)
}

/// A CronTab object with `spec` (JSON text).
pub fn object(spec: &str) -> String {
    format!(
        r#"{{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{{"name":"x"}},"spec":{spec}}}"#
    )
}

/// A CRD with a `spec` of the given properties and rules (JSON texts).
pub fn spec_crd(properties: &str, rules: &str) -> String {
    crd(&format!(
        r#"{{"type":"object","properties":{{"spec":{{"type":"object","properties":{properties},"x-kubernetes-validations":{rules}}}}}}}"#
    ))
}

impl Bench {
    pub fn new(test: &str) -> Bench {
        let dir = tempfile::Builder::new()
            .prefix(&format!("crd-gen-hostile-{test}-"))
            .tempdir()
            .unwrap();
        let open = r#"{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}"#;
        std::fs::write(dir.path().join("plain-crd.yaml"), crd(open)).unwrap();
        std::fs::write(dir.path().join("plain-object.json"), object(r#"{"a":"x"}"#)).unwrap();
        Bench { dir }
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Runs `file` through `door`, bounded in time, and checks the universal rules.
    pub fn run(&self, door: Door, file: &Path) -> Run {
        let file = file.to_str().unwrap();
        let plain_crd = self.dir.path().join("plain-crd.yaml");
        let plain_object = self.dir.path().join("plain-object.json");
        let (plain_crd, plain_object) =
            (plain_crd.to_str().unwrap(), plain_object.to_str().unwrap());
        let args: Vec<&str> = match door {
            Door::Check => vec!["check", file],
            Door::Generate => vec!["generate", file],
            Door::ValidateAsCrd => vec!["validate", "--crd", file, plain_object],
            Door::ValidateAsObjects => vec!["validate", "--crd", plain_crd, file],
            Door::Roundtrip => vec!["roundtrip", file],
            // The file against itself: every CRD is read twice and compared.
            Door::Diff => vec!["diff", file, file],
        };
        let run = spawn_bounded(self.dir.path(), door, &args);
        check_universal_rules(&run, file);
        run
    }

    /// Runs `file` through every door.
    pub fn run_all(&self, file: &Path) -> Vec<Run> {
        DOORS.iter().map(|&door| self.run(door, file)).collect()
    }
}

/// Main-thread stack of every run: an eighth of the usual 8 MiB, so that recursion
/// on the main thread fails here in debug builds as it would with release builds'
/// different frames on a bigger stack (issue 49 overflowed only in release).
pub const MAIN_STACK: libc::rlim_t = 1 << 20;

/// Runs the CLI with output in files (no pipe can fill up), polling `wait4` until it
/// exits or [`TIME_LIMIT`] passes (then it is killed and the test fails).
pub fn spawn_bounded(dir: &Path, door: Door, args: &[&str]) -> Run {
    let out_path = dir.join(format!("{door:?}.stdout"));
    let err_path = dir.join(format!("{door:?}.stderr"));
    let start = Instant::now();
    // Reaped below by `wait4`, which also gives the peak memory `Child::wait` cannot.
    #[allow(clippy::zombie_processes)]
    let mut command = Command::new(BIN);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap());
    // SAFETY: rlimit is plain data; getrlimit fills it.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to our own rlimit.
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) },
        0
    );
    limit.rlim_cur = limit.rlim_cur.min(MAIN_STACK);
    // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_STACK, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let child = command.spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child, with valid pointers.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break;
        }
        assert!(done == 0, "wait4 failed for {args:?}");
        if start.elapsed() > TIME_LIMIT {
            // SAFETY: kills our own child, then reaps it.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::wait4(pid, &mut status, 0, &mut usage);
            }
            panic!("{args:?} ran longer than {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = start.elapsed();
    assert!(
        libc::WIFEXITED(status),
        "{args:?} was killed by signal {} (a crash or stack overflow); stderr:\n{}",
        libc::WTERMSIG(status),
        read_lossy(&err_path, 2000)
    );
    Run {
        door,
        code: libc::WEXITSTATUS(status),
        stdout: read_lossy(&out_path, 8 << 20),
        stderr: read_lossy(&err_path, 200_000),
        elapsed,
        max_rss_mb: usage.ru_maxrss / 1024,
    }
}

/// The start of a file as text (outputs can be 50 MB; the rules need the start).
pub fn read_lossy(path: &Path, limit: usize) -> String {
    let bytes = std::fs::read(path).unwrap();
    String::from_utf8_lossy(&bytes[..bytes.len().min(limit)]).into_owned()
}

/// Text that only Rust's `Debug` formatting or a panic prints.
pub const DEBUG_MARKERS: [&str; 10] = [
    "panicked",
    "RUST_BACKTRACE",
    "Some(",
    "None,",
    "Ok(",
    "Err(",
    " { kind: ",
    "Error {",
    "\\u{",
    "Location {",
];

pub fn check_universal_rules(run: &Run, file: &str) {
    let context = format!(
        "{:?} on {file}: exit {}\nstdout: {}\nstderr: {}",
        run.door,
        run.code,
        head(&run.stdout),
        head(&run.stderr)
    );
    assert!((0..=2).contains(&run.code), "{context}");
    assert!(run.elapsed < TIME_LIMIT, "{context}");
    assert!(
        run.max_rss_mb < MEMORY_LIMIT_MB,
        "{} MB: {context}",
        run.max_rss_mb
    );
    // Generated Rust may quote anything in its doc comments; reports may not.
    let report = if run.door == Door::Generate {
        run.stderr.clone()
    } else {
        run.all()
    };
    for marker in DEBUG_MARKERS {
        assert!(!report.contains(marker), "Debug text {marker:?}: {context}");
    }
    // Every error line on stderr names the file it is about (or, for validate, its
    // --crd inputs as a whole).
    for line in run.stderr.lines() {
        let about_file = line.contains(file)
            || line.contains("--crd inputs")
            || line.starts_with("validated ")
            || line.starts_with("checked ");
        assert!(about_file, "a line not naming {file}: {line:?}\n{context}");
    }
}

pub fn head(s: &str) -> String {
    s.chars().take(600).collect()
}

/// The file cannot be read at all: every door exits 2 with `FILE:AT: MESSAGE`.
pub fn assert_unreadable(bench: &Bench, file: &Path, at_and_message: &str) {
    let expected = format!("{}:{at_and_message}", file.display());
    for run in bench.run_all(file) {
        assert_eq!(run.code, 2, "{:?}: {}", run.door, head(&run.all()));
        assert!(
            run.stderr.lines().any(|l| l.ends_with(&expected)),
            "{:?}: expected {expected:?}, got:\n{}",
            run.door,
            head(&run.stderr)
        );
        if run.door == Door::ValidateAsObjects {
            assert!(
                run.stderr.contains("1 document unreadable"),
                "{}",
                run.stderr
            );
        }
    }
}

/// The file holds objects, not CRDs: `check` skips it, `generate` and `validate
/// --crd` find no CRD, and the objects validate with `expected` as the summary.
pub fn assert_objects(bench: &Bench, file: &Path, expected_code: i32, expected_summary: &str) {
    let runs = bench.run_all(file);
    let name = file.display().to_string();
    assert_eq!(runs[0].code, 0, "{}", head(&runs[0].all()));
    assert!(
        runs[0]
            .stderr
            .contains("skipped: not a CustomResourceDefinition")
            || runs[0].stderr.contains("no documents")
    );
    assert_eq!(runs[1].code, 2);
    assert_eq!(
        runs[1].stderr.trim(),
        format!("error: no CustomResourceDefinition found in {name}")
    );
    assert_eq!(runs[2].code, 2);
    assert_eq!(
        runs[2].stderr.trim(),
        "no CustomResourceDefinition found in the --crd inputs"
    );
    assert_eq!(runs[3].code, expected_code, "{}", head(&runs[3].all()));
    assert!(
        runs[3].stderr.contains(expected_summary),
        "{}",
        head(&runs[3].all())
    );
}

/// The file is a CRD: `check` and `validate --crd` give `check_code`, `generate`
/// gives `generate_code`; `expected` appears in check's report.
pub fn assert_crd(
    bench: &Bench,
    file: &Path,
    check_code: i32,
    generate_code: i32,
    expected: &str,
) -> Vec<Run> {
    let runs = bench.run_all(file);
    assert_eq!(runs[0].code, check_code, "{}", head(&runs[0].all()));
    assert!(
        runs[0].all().contains(expected),
        "expected {expected:?} in\n{}",
        head(&runs[0].all())
    );
    assert_eq!(runs[1].code, generate_code, "{}", head(&runs[1].all()));
    // Read as objects, a CRD is an object of a kind no CRD defines here.
    assert_eq!(runs[3].code, 1, "{}", head(&runs[3].all()));
    assert!(
        runs[3]
            .stdout
            .contains("no CustomResourceDefinition is loaded")
    );
    runs
}
