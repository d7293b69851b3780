//! The plugin transport against a real provider: launch, mutual TLS handshake, schema, configure,
//! upgrade and a clean stop, with the AWS provider 3.39 (protocol 5) that
//! scripts/install-aws-provider.sh installs; `STATECTL_AWS_PROVIDER` names its binary. Without it these
//! tests skip as `crate::skip` says (reported, and a failure under CI).
//!
//! Nothing here reaches AWS: the provider is configured against a loopback port nobody listens on,
//! with every start-up check that would call out turned off.

use crate::builder::assert_starts_with;
use std::path::PathBuf;

use serde_json::{Value, json};
use statectl::reconcile::plugin::client::ProviderClient;
use statectl::reconcile::plugin::launch::Plugin;

pub(crate) fn aws_provider() -> Option<PathBuf> {
    crate::skip::require_installed(
        "STATECTL_AWS_PROVIDER",
        "target/aws-provider/bin/terraform-provider-aws_v3.39.0_x5",
    )
    .filter(|path| path.is_file())
}

/// A loopback port with nothing listening on it (bound, then released).
fn unused_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The moto-style configuration, with each skip flag this provider version knows.
fn moto_config(provider: &statectl::reconcile::plugin::value::Block, port: u16) -> Value {
    let mut config = json!({
        "region": "us-east-1",
        "access_key": "test",
        "secret_key": "test",
        "endpoints": [{"ec2": format!("http://127.0.0.1:{port}")}],
    });
    for flag in [
        "skip_credentials_validation",
        "skip_metadata_api_check",
        "skip_requesting_account_id",
        "skip_region_validation",
        "skip_get_ec2_platforms",
    ] {
        if provider
            .attributes
            .iter()
            .any(|attribute| attribute.name == flag)
        {
            config[flag] = json!(true);
        }
    }
    config
}

#[tokio::test]
async fn launches_configures_upgrades_and_stops_the_aws_provider() {
    let Some(binary) = aws_provider() else {
        return;
    };
    let plugin = Plugin::launch(&binary).await.unwrap();
    assert_eq!(
        plugin.protocol_version, 5,
        "AWS provider 3.x speaks protocol 5"
    );
    let mut client = ProviderClient::new(plugin.channel.clone(), plugin.protocol_version).unwrap();

    let schema = client.schema().await.unwrap();
    let instance = schema.resource("aws_instance").unwrap();
    assert!(
        instance
            .block
            .attributes
            .iter()
            .any(|attribute| attribute.name == "instance_state"),
        "aws_instance has instance_state"
    );
    assert!(instance.version >= 1);
    assert!(schema.resource("aws_no_such_thing").is_err());

    let config = moto_config(&schema.provider, unused_port());
    client.configure(&schema.provider, &config).await.unwrap();

    let attributes = json!({
        "id": "i-0123456789abcdef0",
        "ami": "ami-12345678",
        "instance_type": "t2.micro",
        "instance_state": "pending",
        "tags": {"Name": "web"},
        "ebs_block_device": [],
        "root_block_device": [],
    });
    let upgraded = client
        .upgrade("aws_instance", 1, serde_json::to_vec(&attributes).unwrap())
        .await
        .unwrap();
    // A msgpack map: the object under the current schema.
    assert!(
        matches!(upgraded.state[0], 0x80..=0x8f | 0xde | 0xdf),
        "upgraded state starts with {:#x}",
        upgraded.state[0]
    );
    let error = client
        .upgrade("aws_no_such_thing", 0, b"{}".to_vec())
        .await
        .unwrap_err()
        .to_string();
    assert_starts_with(&error, "UpgradeResourceState");

    client.stop().await.unwrap();
    let status = plugin.shutdown().await.unwrap();
    assert!(
        status.code().is_some(),
        "the plugin exited by itself: {status}"
    );
}

/// A stand-in EC2 endpoint on loopback that answers every call with an empty DescribeInstances
/// result, and counts the calls. It stops with the test's runtime.
async fn empty_ec2() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

    const BODY: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><reservationSet/></DescribeInstancesResponse>"#;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                loop {
                    let mut length = 0;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some((name, value)) = line.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if stream.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    counter.fetch_add(1, Ordering::SeqCst);
                    let response = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/xml;charset=UTF-8\r\nContent-Length: {}\r\n\r\n{BODY}",
                        BODY.len()
                    );
                    if stream
                        .get_mut()
                        .write_all(response.as_bytes())
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (port, calls)
}

#[tokio::test]
async fn an_instance_the_provider_cannot_find_is_gone() {
    use statectl::reconcile::outcome::Outcome;
    use statectl::reconcile::plugin::discover::SearchPaths;
    use statectl::reconcile::plugin::reader::{ReadJob, ReaderSettings, read_all};

    let Some(binary) = aws_provider() else {
        return;
    };
    let (port, calls) = empty_ec2().await;
    let plugin_dir = binary.parent().unwrap().to_owned();
    let config = json!({
        "region": "us-east-1",
        "access_key": "test",
        "secret_key": "test",
        "skip_credentials_validation": true,
        "skip_metadata_api_check": true,
        "skip_requesting_account_id": true,
        "skip_get_ec2_platforms": true,
        "max_retries": 1,
        "endpoints": [{"ec2": format!("http://127.0.0.1:{port}")}],
    });
    let settings = ReaderSettings {
        paths: SearchPaths {
            plugin_dirs: vec![plugin_dir],
            config_dir: std::env::temp_dir(),
            ..SearchPaths::default()
        },
        configs: [("aws".to_owned(), config)].into(),
        parallelism: 4,
        timeout: Some(std::time::Duration::from_secs(60)),
        ..ReaderSettings::default()
    };
    let jobs = (0..3)
        .map(|index| ReadJob {
            address: format!("aws_instance.web[{index}]"),
            resource_type: "aws_instance".into(),
            provider: r#"provider["registry.terraform.io/hashicorp/aws"]"#.into(),
            schema_version: 1,
            attributes: json!({"id": format!("i-{index:017x}"), "instance_state": "pending"})
                .to_string(),
            private: Some("eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==".into()),
            sensitive_attributes: Vec::new(),
            identity: None,
        })
        .collect();
    let results = read_all(jobs, &settings).await;
    for result in &results {
        assert_eq!(result.outcome, Outcome::Gone, "{result:?}");
        assert!(result.object.is_none());
    }
    assert!(calls.load(std::sync::atomic::Ordering::SeqCst) >= 3);
}
