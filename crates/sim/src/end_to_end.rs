//! End-to-end tests: the simulator on a loopback port, spoken to over real sockets by a bare HTTP/1.1
//! client (which sees resets and exact headers) and by statectl's own HTTP client and OCI signer
//! (which proves that the two sides agree on the wire and on the signing string).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use statectl::reconcile::http::{HttpClient, HttpRequest, TransportKind};
use statectl_net::Secret;
use statectl_net::oci::signature::OciSigner;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::oci_signature::tests::{KEY_ID, PRIVATE_KEY, PUBLIC_KEY};
use crate::scenario::Scenario;
use crate::server::{Sim, start};

const INSTANCE: &str = "ocid1.instance.oc1..web";
const COMPARTMENT: &str = "ocid1.compartment.oc1..c";

fn scenario() -> String {
    format!(
        r#"
[oci]
key_id = "{KEY_ID}"
public_key_pem = '''{PUBLIC_KEY}'''

[[oci.instance]]
id = "{INSTANCE}"
compartment_id = "{COMPARTMENT}"
lifecycle = ["PROVISIONING:2", "RUNNING"]
private_ip = "10.0.0.5"
subnet_id = "ocid1.subnet.oc1..s"
hostname_label = "web"
work_request = "ocid1.workrequest.oc1..w"

[[oci.work_request]]
id = "ocid1.workrequest.oc1..w"
lifecycle = ["IN_PROGRESS:1", "SUCCEEDED"]

[cf]
token = "t0ken"

[[cf.service_instance]]
guid = "si-1"
name = "db"
lifecycle = ["initial:1", "in progress:1", "succeeded"]

[[cf.service_instance]]
guid = "si-deleted"
name = "old"
deleted = true

[[cf.job]]
guid = "job-1"
lifecycle = ["PROCESSING:1", "FAILED"]
error = "the broker said no"

[[cf.job]]
guid = "eventual"
lifecycle = ["COMPLETE"]

[osb]
username = "broker"
password = "secret"

[[osb.instance]]
id = "prov"
service_id = "s"
plan_id = "p"
operation = "op-123"
kind = "provision"
lifecycle = ["in progress:1", "succeeded"]
retry_after = 2

[[osb.instance]]
id = "deprov"
service_id = "s"
plan_id = "p"
operation = "op 456"
kind = "deprovision"
lifecycle = ["in progress:1", "gone"]

[[osb.instance]]
id = "slow"
service_id = "s"
plan_id = "p"
kind = "update"
lifecycle = ["succeeded"]

[faults]
seed = 42

[[faults.path]]
prefix = "/v3/jobs/throttled"
rate_429 = 1.0
retry_after = 3

[[faults.path]]
prefix = "/v3/jobs/reset"
rate_reset = 1.0

[[faults.path]]
prefix = "/v3/jobs/eventual"
not_found_first = 2

[[faults.path]]
prefix = "/v2/service_instances/slow"
slow_body = "100ms"
"#
    )
}

async fn simulator() -> SocketAddr {
    let scenario = Scenario::parse(&scenario(), Path::new(".")).unwrap();
    start(Sim::new(&scenario, false).unwrap()).await.0
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        crate::http::first_value(&self.headers, name)
    }
}

/// One GET on a fresh connection, read to its end.
async fn get(
    address: SocketAddr,
    target: &str,
    headers: &[(&str, String)],
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(address).await?;
    let mut request = format!("GET {target} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        let _ = write!(request, "{name}: {value}\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await?;
    let text = String::from_utf8(bytes).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(": ").unwrap();
            (name.to_owned(), value.to_owned())
        })
        .collect();
    Ok(Reply {
        status,
        headers,
        body: serde_json::from_str(body).unwrap(),
    })
}

/// The `date` and `authorization` headers statectl's own signer makes for a GET of `target`.
fn signed(address: SocketAddr, target: &str, date: SystemTime) -> Vec<(&'static str, String)> {
    let signer = OciSigner::from_pem(KEY_ID.to_owned(), &Secret::new(PRIVATE_KEY)).unwrap();
    let date = httpdate::fmt_http_date(date);
    let signed = signer.sign("GET", &address.to_string(), target, &date, None);
    vec![
        ("date", date),
        (
            "authorization",
            signed.authorization.expose_str().to_owned(),
        ),
    ]
}

async fn oci(address: SocketAddr, target: &str) -> Reply {
    get(address, target, &signed(address, target, SystemTime::now()))
        .await
        .unwrap()
}

fn bearer(token: &str) -> Vec<(&'static str, String)> {
    vec![("authorization", format!("Bearer {token}"))]
}

fn broker(version: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = vec![(
        "authorization",
        format!("Basic {}", STANDARD.encode("broker:secret")),
    )];
    headers.extend(version.map(|version| ("x-broker-api-version", version.to_owned())));
    headers
}

async fn stats(address: SocketAddr) -> Value {
    get(address, "/_sim/stats", &[]).await.unwrap().body
}

#[tokio::test]
async fn an_instance_runs_after_its_polls_and_its_vnic_appears() {
    let address = simulator().await;
    let attachments =
        format!("/20160918/vnicAttachments?compartmentId={COMPARTMENT}&instanceId={INSTANCE}");
    let instance = format!("/20160918/instances/{INSTANCE}");
    assert_eq!(oci(address, &attachments).await.body, json!([]));

    let first = oci(address, &instance).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.body["lifecycleState"], "PROVISIONING");
    assert_eq!(first.body["compartmentId"], COMPARTMENT);
    for field in ["displayName", "availabilityDomain", "shape", "timeCreated"] {
        assert!(first.body[field].is_string(), "{field} in {}", first.body);
    }
    assert!(first.header("opc-request-id").is_some());
    assert_eq!(
        oci(address, &instance).await.body["lifecycleState"],
        "PROVISIONING"
    );
    assert_eq!(
        oci(address, &attachments).await.body,
        json!([]),
        "no VNIC while provisioning"
    );

    let running = oci(address, &instance).await;
    assert_eq!(running.body["lifecycleState"], "RUNNING");
    assert_ne!(running.header("etag"), first.header("etag"));
    let listed = oci(address, &attachments).await.body;
    assert_eq!(listed[0]["instanceId"], INSTANCE);
    assert_eq!(listed[0]["lifecycleState"], "ATTACHED");
    let vnic_id = listed[0]["vnicId"].as_str().unwrap();
    assert_eq!(vnic_id, "ocid1.vnic.oc1..web");
    let vnic = oci(address, &format!("/20160918/vnics/{vnic_id}"))
        .await
        .body;
    assert_eq!(
        (
            &vnic["privateIp"],
            &vnic["subnetId"],
            &vnic["hostnameLabel"]
        ),
        (
            &json!("10.0.0.5"),
            &json!("ocid1.subnet.oc1..s"),
            &json!("web")
        )
    );
    assert_eq!(vnic["publicIp"], Value::Null, "left out, as OCI does");

    let work_request = "/20160918/workRequests/ocid1.workrequest.oc1..w";
    assert_eq!(
        oci(address, work_request).await.body["status"],
        "IN_PROGRESS"
    );
    let done = oci(address, work_request).await.body;
    assert_eq!(
        (&done["status"], &done["percentComplete"]),
        (&json!("SUCCEEDED"), &json!(100.0))
    );
    assert_eq!(done["resources"][0]["identifier"], INSTANCE);
    assert_eq!(done["resources"][0]["actionType"], "CREATED");

    let unknown = oci(address, "/20160918/instances/ocid1.instance.oc1..nope").await;
    assert_eq!(
        (unknown.status, &unknown.body["code"]),
        (404, &json!("NotAuthorizedOrNotFound"))
    );
}

#[tokio::test]
async fn oci_refuses_what_is_not_signed_right() {
    let address = simulator().await;
    let instance = format!("/20160918/instances/{INSTANCE}");
    let unsigned = get(address, &instance, &[]).await.unwrap();
    assert_eq!(
        (unsigned.status, &unsigned.body["code"]),
        (401, &json!("NotAuthenticated"))
    );

    let refused = [
        (
            "signed for another target",
            signed(address, "/20160918/instances/other", SystemTime::now()),
            "does not match",
        ),
        (
            "signed ten minutes ago",
            signed(
                address,
                &instance,
                SystemTime::now() - Duration::from_secs(600),
            ),
            "5 minutes",
        ),
    ];
    for (case, authorization, says) in refused {
        let answer = get(address, &instance, &authorization).await.unwrap();
        assert_eq!(answer.status, 401, "{case}");
        let message = answer.body["message"].as_str().unwrap();
        assert!(message.contains(says), "{case}: {message}");
    }

    assert_eq!(stats(address).await["auth_rejected"], 3);
    let first_real_poll = oci(address, &instance).await;
    assert_eq!(
        first_real_poll.body["lifecycleState"], "PROVISIONING",
        "a refused request is not a poll"
    );
}

#[tokio::test]
async fn cf_wants_its_bearer_token_and_plays_the_lifecycle() {
    let address = simulator().await;
    let target = "/v3/service_instances/si-1";
    let missing = get(address, target, &[]).await.unwrap();
    assert_eq!(missing.status, 401);
    assert_eq!(missing.body["errors"][0]["code"], 10002);
    assert_eq!(missing.body["errors"][0]["title"], "CF-NotAuthenticated");
    let wrong = get(address, target, &bearer("nope")).await.unwrap();
    assert_eq!(
        (wrong.status, &wrong.body["errors"][0]["title"]),
        (401, &json!("CF-InvalidAuthToken"))
    );

    let mut seen = Vec::new();
    for _ in 0..3 {
        let reply = get(address, target, &bearer("t0ken")).await.unwrap();
        assert_eq!(reply.body["type"], "managed");
        assert_eq!(reply.body["last_operation"]["type"], "create");
        seen.push(
            reply.body["last_operation"]["state"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(seen, ["initial", "in progress", "succeeded"]);

    let deleted = get(
        address,
        "/v3/service_instances/si-deleted",
        &bearer("t0ken"),
    )
    .await
    .unwrap();
    assert_eq!(
        (deleted.status, &deleted.body["errors"][0]["code"]),
        (404, &json!(10010))
    );

    let job = get(address, "/v3/jobs/job-1", &bearer("t0ken"))
        .await
        .unwrap()
        .body;
    assert_eq!(
        (&job["state"], &job["errors"]),
        (&json!("PROCESSING"), &json!([]))
    );
    let failed = get(address, "/v3/jobs/job-1", &bearer("t0ken"))
        .await
        .unwrap()
        .body;
    assert_eq!(failed["state"], "FAILED");
    assert_eq!(failed["errors"][0]["detail"], "the broker said no");
}

#[tokio::test]
async fn osb_checks_its_headers_and_answers_gone_for_a_deprovision() {
    let address = simulator().await;
    let poll = |id: &str, query: &str| format!("/v2/service_instances/{id}/last_operation?{query}");
    let target = poll("prov", "service_id=s&plan_id=p&operation=op-123");

    assert_eq!(
        get(
            address,
            &target,
            &[("x-broker-api-version", "2.17".to_owned())]
        )
        .await
        .unwrap()
        .status,
        401
    );
    let missing = get(address, &target, &broker(None)).await.unwrap();
    assert_eq!(
        (missing.status, &missing.body["error"]),
        (400, &json!("MissingBrokerAPIVersion"))
    );
    for version in ["2.12", "3.0"] {
        let refused = get(address, &target, &broker(Some(version))).await.unwrap();
        assert_eq!(refused.status, 412, "{version}");
    }
    for query in [
        "operation=op-999",
        "plan_id=p",
        "operation=op-123&plan_id=other",
    ] {
        let refused = get(address, &poll("prov", query), &broker(Some("2.17")))
            .await
            .unwrap();
        assert_eq!(refused.status, 400, "{query}");
        assert!(refused.body["description"].is_string());
    }

    let in_progress = get(address, &target, &broker(Some("2.17"))).await.unwrap();
    assert_eq!(in_progress.body["state"], "in progress");
    assert_eq!(in_progress.header("retry-after"), Some("2"));
    let succeeded = get(address, &target, &broker(Some("2.13"))).await.unwrap();
    assert_eq!(succeeded.body["state"], "succeeded");
    assert_eq!(succeeded.header("retry-after"), None);

    // The operation is percent-encoded on the wire and compared decoded.
    let deprovision = poll("deprov", "service_id=s&plan_id=p&operation=op%20456");
    let first = get(address, &deprovision, &broker(Some("2.17")))
        .await
        .unwrap();
    assert_eq!(first.body["state"], "in progress");
    let gone = get(address, &deprovision, &broker(Some("2.17")))
        .await
        .unwrap();
    assert_eq!((gone.status, gone.body), (410, json!({})));

    let unknown = get(address, &poll("nope", ""), &broker(Some("2.17")))
        .await
        .unwrap();
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn faults_answer_instead_of_the_service_and_are_counted() {
    let address = simulator().await;
    let token = bearer("t0ken");
    let throttled = get(address, "/v3/jobs/throttled", &token).await.unwrap();
    assert_eq!(throttled.status, 429);
    assert_eq!(throttled.header("retry-after"), Some("3"));
    assert_eq!(throttled.body["errors"][0]["title"], "CF-RateLimitExceeded");

    let reset = get(address, "/v3/jobs/reset", &token).await.unwrap_err();
    assert_eq!(reset.kind(), std::io::ErrorKind::ConnectionReset, "{reset}");

    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(
            get(address, "/v3/jobs/eventual", &token)
                .await
                .unwrap()
                .status,
        );
    }
    assert_eq!(statuses, [404, 404, 200]);

    let slow = get(
        address,
        "/v2/service_instances/slow/last_operation",
        &broker(Some("2.17")),
    )
    .await
    .unwrap();
    assert_eq!(slow.body["state"], "succeeded");

    assert_eq!(
        stats(address).await,
        json!({
            "requests": 6,
            "paths": {
                "/v3/jobs/throttled": 1,
                "/v3/jobs/reset": 1,
                "/v3/jobs/eventual": 3,
                "/v2/service_instances/slow/last_operation": 1,
            },
            "statuses": {"200": 2, "404": 2, "429": 1},
            "faults": {"latency": 0, "not_found": 2, "reset": 1, "429": 1, "500": 0, "503": 0, "slow_body": 1},
            "auth_rejected": 0,
        })
    );
}

#[tokio::test]
async fn statectl_http_client_reads_the_simulator() {
    let address = simulator().await;
    let client = HttpClient::new(2).unwrap();
    let request = |path: &str| HttpRequest {
        method: reqwest::Method::GET,
        url: reqwest::Url::parse(&format!("http://{address}{path}")).unwrap(),
        headers: vec![("accept".to_owned(), "application/json".to_owned())],
        secret_headers: vec![("authorization".to_owned(), Secret::new("Bearer t0ken"))],
        body: None,
    };
    let timeout = Duration::from_secs(2);
    // Three polls over the client's pooled connection.
    let mut states = Vec::new();
    for _ in 0..3 {
        let response = client
            .send(&request("/v3/service_instances/si-1"), timeout)
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&response.body).unwrap();
        states.push(body["last_operation"]["state"].clone());
    }
    assert_eq!(
        states,
        [json!("initial"), json!("in progress"), json!("succeeded")]
    );

    let error = client
        .send(&request("/v3/jobs/reset"), timeout)
        .await
        .unwrap_err();
    assert_eq!(error.kind, TransportKind::Reset, "{}", error.message);

    let throttled = client
        .send(&request("/v3/jobs/throttled"), timeout)
        .await
        .unwrap();
    assert_eq!(
        (throttled.status, throttled.header("retry-after")),
        (429, Some("3"))
    );
}
