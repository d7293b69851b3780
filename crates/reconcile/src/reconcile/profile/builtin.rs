//! The built-in profiles, compiled in: OCI compute instances, Cloud Foundry service instances, and an
//! Open Service Broker `last_operation` profile to extend. They are data in the documented format
//! (`crates/reconcile/src/reconcile/profiles/*.toml`), so users can read, copy and override them.

/// `(file name, text)` of each built-in profile file.
pub(crate) const FILES: [(&str, &str); 3] = [
    (
        "oci_core_instance.toml",
        include_str!("../profiles/oci_core_instance.toml"),
    ),
    (
        "cloudfoundry_service_instance.toml",
        include_str!("../profiles/cloudfoundry_service_instance.toml"),
    ),
    (
        "osb_service_instance.toml",
        include_str!("../profiles/osb_service_instance.toml"),
    ),
];

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::FILES;
    use crate::reconcile::profile::mapping::tests::changed;
    use crate::reconcile::profile::{Endpoint, GoneAction, ListedAs, Profiles};
    use crate::state::operation::Operation;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn header<'r>(request: &'r crate::reconcile::http::HttpRequest, name: &str) -> Option<&'r str> {
        request
            .headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    #[test]
    fn every_builtin_profile_parses_and_validates() {
        for (name, text) in FILES {
            let mut profiles = Profiles::default();
            profiles
                .add_str(text, name)
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            assert_eq!(profiles.iter().count(), 1, "{name}");
        }
        let profiles = Profiles::builtin();
        let types: Vec<&str> = profiles
            .iter()
            .map(|profile| profile.type_name.as_str())
            .collect();
        assert_eq!(
            types,
            [
                "cloudfoundry_service_instance",
                "oci_core_instance",
                "osb_service_instance"
            ]
        );
        assert_eq!(
            profiles.endpoint_names().into_iter().collect::<Vec<_>>(),
            ["cf", "oci", "osb"]
        );
    }

    /// An `oci_core_instance` as `terraform apply` with `async = true` leaves it.
    fn oci_attributes() -> Value {
        json!({
            "id": "ocid1.instance.oc1.eu-frankfurt-1.antheljt",
            "compartment_id": "ocid1.compartment.oc1..aaaaaaaa",
            "region": "eu-frankfurt-1",
            "availability_domain": "Uocm:EU-FRANKFURT-1-AD-1",
            "boot_volume_id": null,
            "state": "PROVISIONING",
            "private_ip": null,
            "public_ip": "",
            "subnet_id": "",
            "hostname_label": "",
            "create_vnic_details": [{
                "assign_public_ip": "true",
                "hostname_label": "",
                "private_ip": "",
                "subnet_id": "ocid1.subnet.oc1.eu-frankfurt-1.aaaa"
            }]
        })
    }

    fn oci_instance(state: &str) -> String {
        json!({
            "availabilityDomain": "Uocm:EU-FRANKFURT-1-AD-1",
            "compartmentId": "ocid1.compartment.oc1..aaaaaaaa",
            "displayName": "web-0",
            "id": "ocid1.instance.oc1.eu-frankfurt-1.antheljt",
            "lifecycleState": state,
            "region": "eu-frankfurt-1",
            "shape": "VM.Standard.E4.Flex",
            "timeCreated": "2024-05-02T10:00:00.000Z"
        })
        .to_string()
    }

    #[test]
    fn oci_asks_for_the_instance_then_once_running_for_its_vnic() {
        let profiles = Profiles::builtin();
        let oci = profiles.for_type("oci_core_instance").unwrap();
        let endpoint = oci.endpoint(&[], &no_env).unwrap();
        assert!(matches!(endpoint, Endpoint::PerInstance(_)));
        let attributes = oci_attributes();
        let [instance, attachments, vnic, boot] = &oci.requests[..] else {
            panic!("four requests");
        };

        // Still provisioning: the VNIC requests wait.
        let mut context = oci.context(&attributes, &endpoint, &no_env);
        let request = context.render(instance).unwrap();
        assert_eq!(request.method, reqwest::Method::GET);
        assert_eq!(
            request.url.as_str(),
            "https://iaas.eu-frankfurt-1.oraclecloud.com/20160918/instances/ocid1.instance.oc1.eu-frankfurt-1.antheljt"
        );
        assert_eq!(header(&request, "accept"), Some("application/json"));
        context
            .record(instance, oci_instance("PROVISIONING").as_bytes())
            .unwrap();
        assert_eq!(context.status().unwrap().class, ListedAs::Pending);
        assert!(!context.runs(attachments) && !context.runs(vnic) && !context.runs(boot));

        // Running: the VNIC attachment (the attached one, not a detached leftover), then the VNIC.
        let mut context = oci.context(&attributes, &endpoint, &no_env);
        context
            .record(instance, oci_instance("RUNNING").as_bytes())
            .unwrap();
        assert!(context.runs(attachments));
        let request = context.render(attachments).unwrap();
        assert_eq!(
            request.url.as_str(),
            "https://iaas.eu-frankfurt-1.oraclecloud.com/20160918/vnicAttachments?compartmentId=ocid1.compartment.oc1..aaaaaaaa&instanceId=ocid1.instance.oc1.eu-frankfurt-1.antheljt"
        );
        let listing = json!([
            {"id": "ocid1.vnicattachment.oc1.eu-frankfurt-1.old", "instanceId": "ocid1.instance.oc1.eu-frankfurt-1.antheljt",
             "lifecycleState": "DETACHED", "vnicId": "ocid1.vnic.oc1.eu-frankfurt-1.old", "nicIndex": 0},
            {"id": "ocid1.vnicattachment.oc1.eu-frankfurt-1.new", "instanceId": "ocid1.instance.oc1.eu-frankfurt-1.antheljt",
             "lifecycleState": "ATTACHED", "vnicId": "ocid1.vnic.oc1.eu-frankfurt-1.abcd", "nicIndex": 0}
        ]);
        context
            .record(attachments, listing.to_string().as_bytes())
            .unwrap();
        let request = context.render(vnic).unwrap();
        assert_eq!(
            request.url.path(),
            "/20160918/vnics/ocid1.vnic.oc1.eu-frankfurt-1.abcd"
        );
        let answer = json!({
            "availabilityDomain": "Uocm:EU-FRANKFURT-1-AD-1",
            "compartmentId": "ocid1.compartment.oc1..aaaaaaaa",
            "hostnameLabel": "web-0",
            "id": "ocid1.vnic.oc1.eu-frankfurt-1.abcd",
            "isPrimary": true,
            "lifecycleState": "AVAILABLE",
            "macAddress": "02:00:17:00:00:01",
            "privateIp": "10.0.1.23",
            "publicIp": "130.61.1.2",
            "subnetId": "ocid1.subnet.oc1.eu-frankfurt-1.aaaa"
        });
        context.record(vnic, answer.to_string().as_bytes()).unwrap();
        // The boot volume attachment, asked by availability domain and compartment as OCI requires.
        let request = context.render(boot).unwrap();
        assert_eq!(
            request.url.as_str(),
            "https://iaas.eu-frankfurt-1.oraclecloud.com/20160918/bootVolumeAttachments?availabilityDomain=Uocm%3AEU-FRANKFURT-1-AD-1&compartmentId=ocid1.compartment.oc1..aaaaaaaa&instanceId=ocid1.instance.oc1.eu-frankfurt-1.antheljt"
        );
        let boots = json!([
            {"id": "ocid1.bootvolumeattachment.oc1.eu-frankfurt-1.abcd", "instanceId": "ocid1.instance.oc1.eu-frankfurt-1.antheljt",
             "bootVolumeId": "ocid1.bootvolume.oc1.eu-frankfurt-1.abcd", "lifecycleState": "ATTACHED"}
        ]);
        context.record(boot, boots.to_string().as_bytes()).unwrap();
        let patch = context.patch();
        assert!(patch.skipped.is_empty(), "{:?}", patch.skipped);
        assert_eq!(
            changed(&patch),
            [
                "state",
                "boot_volume_id",
                "private_ip",
                "public_ip",
                "subnet_id",
                "hostname_label",
                "create_vnic_details[0].private_ip",
                "create_vnic_details[0].hostname_label"
            ]
        );
        assert_eq!(patch.attributes["state"], "RUNNING");
        assert_eq!(
            patch.attributes["create_vnic_details"][0]["assign_public_ip"],
            "true"
        );
    }

    #[test]
    fn oci_region_falls_back_to_the_environment_and_endpoint_overrides_win() {
        let profiles = Profiles::builtin();
        let oci = profiles.for_type("oci_core_instance").unwrap();
        let mut attributes = oci_attributes();
        attributes["region"] = Value::Null;
        let instance = &oci.requests[0];
        let env = |name: &str| (name == "OCI_REGION").then(|| "us-ashburn-1".to_owned());
        let endpoint = oci.endpoint(&[], &env).unwrap();
        let request = oci
            .context(&attributes, &endpoint, &env)
            .render(instance)
            .unwrap();
        assert_eq!(
            request.url.host_str(),
            Some("iaas.us-ashburn-1.oraclecloud.com")
        );

        let error = oci
            .context(&attributes, &endpoint, &no_env)
            .render(instance)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "profile `oci_core_instance`, request `instance`: url: default_url: `{var.region}`: variable `region`: `{attr.region|env.OCI_REGION}`: none of `attr.region`, `env.OCI_REGION` has a value"
        );

        let overrides = [(
            "oci".to_owned(),
            "https://iaas.us-phoenix-1.oraclecloud.com".to_owned(),
        )];
        let endpoint = oci.endpoint(&overrides, &no_env).unwrap();
        let request = oci
            .context(&attributes, &endpoint, &no_env)
            .render(instance)
            .unwrap();
        assert_eq!(
            request.url.host_str(),
            Some("iaas.us-phoenix-1.oraclecloud.com")
        );
    }

    #[test]
    fn cloud_foundry_reads_last_operation_under_a_path_prefixed_endpoint() {
        let profiles = Profiles::builtin();
        let cf = profiles.for_type("cloudfoundry_service_instance").unwrap();
        let error = cf.endpoint(&[], &no_env).unwrap_err();
        assert_eq!(
            error.message,
            "endpoint `cf` (profile `cloudfoundry_service_instance`) has no URL"
        );
        assert_eq!(
            error.hint.as_deref(),
            Some("give `--endpoint cf=https://...` or set `STATECTL_ENDPOINT_CF`")
        );
        let env = |name: &str| {
            (name == "STATECTL_ENDPOINT_CF").then(|| "https://api.sys.example.com/cf/".to_owned())
        };
        let endpoint = cf.endpoint(&[], &env).unwrap();
        let attributes = json!({
            "id": "c89b3280-fe8d-4aa0-a42e-44465bb1c61c",
            "name": "db",
            "last_operation": {"type": "create", "state": "in progress", "description": "",
                               "created_at": "2020-03-10T15:49:29Z", "updated_at": "2020-03-10T15:49:29Z"}
        });
        let instance = &cf.requests[0];
        let mut context = cf.context(&attributes, &endpoint, &env);
        let request = context.render(instance).unwrap();
        assert_eq!(
            request.url.as_str(),
            "https://api.sys.example.com/cf/v3/service_instances/c89b3280-fe8d-4aa0-a42e-44465bb1c61c"
        );
        let answer = json!({
            "guid": "c89b3280-fe8d-4aa0-a42e-44465bb1c61c",
            "created_at": "2020-03-10T15:49:29Z",
            "updated_at": "2020-03-10T15:51:02Z",
            "name": "db",
            "tags": [],
            "type": "managed",
            "maintenance_info": {"version": "1.0.0"},
            "upgrade_available": false,
            "dashboard_url": "https://service-broker.example.org/dashboard",
            "last_operation": {"type": "create", "state": "succeeded", "description": "Operation succeeded",
                               "created_at": "2020-03-10T15:49:29Z", "updated_at": "2020-03-10T15:51:02Z"},
            "relationships": {"space": {"data": {"guid": "5a84d315-9513-4d74-95e5-f6a5501eeef7"}}}
        });
        context
            .record(instance, answer.to_string().as_bytes())
            .unwrap();
        assert_eq!(context.status().unwrap().class, ListedAs::Target);
        let patch = context.patch();
        assert_eq!(
            changed(&patch),
            [
                "last_operation.state",
                "last_operation.description",
                "last_operation.updated_at"
            ]
        );
        assert_eq!(
            cf.gone_action(404, Operation::Create),
            Some(GoneAction::Gone)
        );
    }

    #[test]
    fn osb_echoes_the_operation_sends_the_api_version_and_reads_410_per_operation() {
        let profiles = Profiles::builtin();
        let osb = profiles.for_type("osb_service_instance").unwrap();
        let overrides = [("osb".to_owned(), "https://broker.example.com".to_owned())];
        let endpoint = osb.endpoint(&overrides, &no_env).unwrap();
        let attributes = json!({
            "id": "0a5e1b4e-instance",
            "service_id": "svc-1",
            "plan_id": "plan-small",
            "operation": "task 10/provision?x"
        });
        let request = &osb.requests[0];
        let mut context = osb.context(&attributes, &endpoint, &no_env);
        let rendered = context.render(request).unwrap();
        assert_eq!(
            rendered.url.as_str(),
            "https://broker.example.com/v2/service_instances/0a5e1b4e-instance/last_operation?operation=task%2010%2Fprovision%3Fx&plan_id=plan-small&service_id=svc-1"
        );
        assert_eq!(header(&rendered, "X-Broker-API-Version"), Some("2.17"));
        context
            .record(request, br#"{"state": "failed", "description": "Quota exceeded", "instance_usable": false}"#)
            .unwrap();
        let status = context.status().unwrap();
        assert_eq!(status.class, ListedAs::Failed);
        assert_eq!(status.message.as_deref(), Some("Quota exceeded"));

        // No operation was returned: the parameter is left out rather than sent empty.
        let bare = json!({"id": "0a5e1b4e-instance"});
        let rendered = osb
            .context(&bare, &endpoint, &no_env)
            .render(request)
            .unwrap();
        assert_eq!(rendered.url.query(), None);

        assert_eq!(
            osb.gone_action(410, Operation::Delete),
            Some(GoneAction::Gone)
        );
        assert_eq!(
            osb.gone_action(410, Operation::Create),
            Some(GoneAction::Retry)
        );
        assert_eq!(
            osb.gone_action(410, Operation::Update),
            Some(GoneAction::Retry)
        );
        assert!(osb.poll.retry_after);
    }

    #[test]
    fn osb_is_adapted_to_a_resource_type_with_extends_and_variables() {
        let mut profiles = Profiles::builtin();
        profiles
            .add_str(
                r#"
[[profile]]
type = "csb_service_instance"
extends = "osb_service_instance"
endpoint = "csb"
variables = { instance_id = "{attr.guid}", service_id = "{attr.offering_id}" }
"#,
                "team.toml",
            )
            .unwrap();
        let csb = profiles.for_type("csb_service_instance").unwrap();
        let overrides = [("csb".to_owned(), "https://csb.example.com".to_owned())];
        let endpoint = csb.endpoint(&overrides, &no_env).unwrap();
        let attributes = json!({"id": "ignored", "guid": "g-1", "offering_id": "o-1"});
        let rendered = csb
            .context(&attributes, &endpoint, &no_env)
            .render(&csb.requests[0])
            .unwrap();
        assert_eq!(
            rendered.url.as_str(),
            "https://csb.example.com/v2/service_instances/g-1/last_operation?service_id=o-1"
        );
        assert!(profiles.for_type("osb_service_instance").is_some());
    }
}
