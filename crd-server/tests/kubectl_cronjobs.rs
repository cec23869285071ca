//! CronJobs that run on the server's clock, with the real kubectl: `kubectl create
//! cronjob` then moving the clock past the schedule creates the Job `NAME-<minutes>`,
//! which completes (`lastSuccessfulTime`, `SawCompletedJob`); a history limit deletes
//! the older one; `kubectl create job --from=cronjob/NAME` creates a Job owned by it;
//! `suspend` stops it; a `timeZone` schedules in that zone; `CRON_TZ=` is refused as
//! upstream's validation refuses it. With the kubelet off (Jobs keep running), `Forbid`
//! skips a time and `Replace` deletes the running Job; a `startingDeadlineSeconds` past
//! skips the run. kube::Client reads the status.

mod support;

use std::time::Duration;

use chrono::{TimeDelta, Timelike, Utc};
use crd_server::TestServer;
use k8s_openapi::api::batch::v1::CronJob;
use kube::api::Api;
use serde_json::Value;
use support::{kubectl, kubectl_err, kubectl_ok, write};

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).expect("kubectl printed JSON")
}

/// Polls `kubectl get ... -o json` until `done` holds (bounded: 30 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", "json"]);
    for _ in 0..300 {
        let out = kubectl(url, &full);
        if out.status.success() {
            let v = json_of(&String::from_utf8_lossy(&out.stdout));
            if done(&v) {
                return v;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

fn names(list: &Value) -> Vec<String> {
    let mut out: Vec<String> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["metadata"]["deletionTimestamp"].is_null())
        .map(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string())
        .collect();
    out.sort();
    out
}

/// The Jobs `cronjob` owns.
fn jobs_of(url: &str, cronjob: &str) -> Vec<String> {
    let list = json_of(&kubectl_ok(url, &["get", "jobs", "-o", "json"]));
    let mut out: Vec<String> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["metadata"]["ownerReferences"][0]["name"] == cronjob)
        .filter(|j| j["metadata"]["deletionTimestamp"].is_null())
        .map(|j| j["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// Moves the server's clock to `secs` seconds past the next multiple of `every` minutes.
fn advance_past_boundary(server: &TestServer, every: i64, secs: i64) -> chrono::DateTime<Utc> {
    let now = server.clock().now();
    let minutes = now.timestamp() / 60;
    let boundary_min = (minutes / every + 1) * every;
    let boundary = chrono::DateTime::from_timestamp(boundary_min * 60, 0).unwrap();
    let by = boundary + TimeDelta::seconds(secs) - now;
    server.clock().advance(by.to_std().unwrap());
    boundary
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cronjobs_run_on_the_moved_clock() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let out = kubectl_ok(
        url,
        &[
            "create",
            "cronjob",
            "tick",
            "--image=busybox",
            "--schedule=*/5 * * * *",
        ],
    );
    assert_eq!(out.trim(), "cronjob.batch/tick created");
    let err = kubectl_err(
        url,
        &[
            "create",
            "cronjob",
            "bad",
            "--image=busybox",
            "--schedule=CRON_TZ=UTC 0 * * * *",
        ],
    );
    assert!(
        err.contains("cannot use TZ or CRON_TZ in schedule, use timeZone field instead"),
        "{err}"
    );

    // Past the next multiple of five minutes: that time's Job.
    let at = advance_past_boundary(&server, 5, 30);
    let first = format!("tick-{}", at.timestamp() / 60);
    let cj = eventually(url, &["get", "cronjob", "tick"], "the first run", |v| {
        v["status"]["lastScheduleTime"].is_string()
    })
    .await;
    assert_eq!(
        cj["status"]["lastScheduleTime"],
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    assert_eq!(jobs_of(url, "tick"), [first.as_str()]);
    let job = json_of(&kubectl_ok(url, &["get", "job", &first, "-o", "json"]));
    assert_eq!(
        job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"],
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    assert_eq!(job["metadata"]["ownerReferences"][0]["kind"], "CronJob");
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=complete",
            &format!("job/{first}"),
            "--timeout=30s",
        ],
    );
    let cj = eventually(
        url,
        &["get", "cronjob", "tick"],
        "the run seen complete",
        |v| v["status"]["lastSuccessfulTime"].is_string() && v["status"]["active"].is_null(),
    )
    .await;
    assert!(cj["status"]["active"].is_null());
    let events = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=tick",
        ],
    );
    assert!(events.contains(&format!("Created job {first}")), "{events}");
    assert!(
        events.contains(&format!("Saw completed job: {first}, condition: Complete")),
        "{events}"
    );

    // `kubectl create job --from` is a create: a Job owned by the CronJob.
    let out = kubectl_ok(url, &["create", "job", "manual", "--from=cronjob/tick"]);
    assert_eq!(out.trim(), "job.batch/manual created");
    let manual = json_of(&kubectl_ok(url, &["get", "job", "manual", "-o", "json"]));
    assert_eq!(manual["metadata"]["ownerReferences"][0]["name"], "tick");
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=complete",
            "job/manual",
            "--timeout=30s",
        ],
    );

    // A second run; a history limit of one keeps the newest successful Job only.
    kubectl_ok(
        url,
        &[
            "patch",
            "cronjob",
            "tick",
            "-p",
            r#"{"spec":{"successfulJobsHistoryLimit":1}}"#,
        ],
    );
    let at2 = advance_past_boundary(&server, 5, 30);
    let second = format!("tick-{}", at2.timestamp() / 60);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=complete",
            &format!("job/{second}"),
            "--timeout=30s",
        ],
    );
    for _ in 0..300 {
        if jobs_of(url, "tick") == [second.as_str()] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(jobs_of(url, "tick"), [second.as_str()]);
    let events = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=tick",
        ],
    );
    assert!(events.contains(&format!("Deleted job {first}")), "{events}");

    // Suspended: no run.
    kubectl_ok(
        url,
        &[
            "patch",
            "cronjob",
            "tick",
            "-p",
            r#"{"spec":{"suspend":true}}"#,
        ],
    );
    eventually(url, &["get", "cronjob", "tick"], "suspend seen", |v| {
        v["spec"]["suspend"] == true
    })
    .await;
    // The controller's informer sees the change before the clock moves.
    tokio::time::sleep(Duration::from_secs(1)).await;
    advance_past_boundary(&server, 5, 30);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(jobs_of(url, "tick"), [second.as_str()]);

    // kube::Client reads the status.
    let uri: http::Uri = url.parse().unwrap();
    let client = kube::Client::try_from(kube::Config::new(uri)).expect("client");
    let cronjobs: Api<CronJob> = Api::namespaced(client, "default");
    let status = cronjobs.get("tick").await.unwrap().status.unwrap();
    assert_eq!(
        status.last_schedule_time.unwrap().0.as_second(),
        at2.timestamp()
    );
    assert!(status.last_successful_time.is_some());
    assert!(status.active.is_none_or(|a| a.is_empty()));
}

const PINNED: &str = r#"
apiVersion: batch/v1
kind: CronJob
metadata:
  name: tokyo
spec:
  schedule: "0 9 * * *"
  timeZone: Asia/Tokyo
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: forbid
spec:
  schedule: "* * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: replace
spec:
  schedule: "* * * * *"
  concurrencyPolicy: Replace
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: late
spec:
  schedule: "*/5 * * * *"
  startingDeadlineSeconds: 10
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrency_policies_deadlines_and_time_zones() {
    // No kubelet: the Jobs keep running.
    let server = TestServer::builder()
        .controllers("*,-kwok,-scheduler")
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    // The server's clock also moves with the wall clock: a minute that turns between the
    // apply and the advance below would give the every-minute CronJobs a Job of their
    // own (and `forbid` would then skip the one this test expects).
    let second = server.clock().now().timestamp() % 60;
    if second >= 45 {
        tokio::time::sleep(Duration::from_secs((61 - second) as u64)).await;
    }
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "cj.yaml", PINNED)]);
    eventually(url, &["get", "cronjobs"], "four cronjobs", |v| {
        names(v).len() == 4
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    // 150 s past a multiple of five minutes: `late`'s time is 150 s old (past its
    // 10 s deadline), the every-minute ones have a time 30 s old.
    let boundary = advance_past_boundary(&server, 5, 150);
    let minute = boundary + TimeDelta::minutes(2);
    let first = |name: &str| format!("{name}-{}", minute.timestamp() / 60);
    for name in ["forbid", "replace"] {
        let want = [first(name)];
        for _ in 0..300 {
            if jobs_of(url, name) == want {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(jobs_of(url, name), want, "{name}");
    }
    assert_eq!(jobs_of(url, "late"), Vec::<String>::new());

    // A minute on: Forbid skips the time, Replace deletes the running Job first.
    server.clock().advance(Duration::from_secs(60));
    let next = format!("replace-{}", minute.timestamp() / 60 + 1);
    for _ in 0..300 {
        if jobs_of(url, "replace") == [next.as_str()] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(jobs_of(url, "replace"), [next.as_str()]);
    assert_eq!(jobs_of(url, "forbid"), [first("forbid")]);
    let forbid = json_of(&kubectl_ok(
        url,
        &["get", "cronjob", "forbid", "-o", "json"],
    ));
    assert_eq!(forbid["status"]["active"].as_array().map(Vec::len), Some(1));
    let events = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=replace",
        ],
    );
    assert!(
        events.contains(&format!("Deleted job {}", first("replace"))),
        "{events}"
    );

    // Tokyo's 09:00: the Job's scheduled time is written in that zone.
    let now = server.clock().now();
    let tokyo_now = now + TimeDelta::hours(9);
    let mut until =
        TimeDelta::hours(9) - TimeDelta::seconds(i64::from(tokyo_now.num_seconds_from_midnight()));
    if until <= TimeDelta::zero() {
        until += TimeDelta::days(1);
    }
    server
        .clock()
        .advance((until + TimeDelta::seconds(30)).to_std().unwrap());
    let mut jobs = Vec::new();
    for _ in 0..300 {
        jobs = jobs_of(url, "tokyo");
        if !jobs.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let job = json_of(&kubectl_ok(url, &["get", "job", &jobs[0], "-o", "json"]));
    let when = job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(when.ends_with("T09:00:00+09:00"), "{when}");
}
