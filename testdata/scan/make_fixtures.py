#!/usr/bin/env python3
"""Writes the `statectl scan` fixtures in this folder (testdata/scan/*.tfstate).

Each fixture is a version-4 state laid out byte for byte as the real writers lay it out:

* Terraform 1.15 (internal/states/statefile/version4.go): `json.MarshalIndent(state, "", "  ")`
  plus one "\n"; struct key order; `<`, `>`, `&`, U+2028, U+2029 escaped as Go's encoding/json does;
  non-ASCII raw.
* OpenTofu 1.12 local files (internal/states/statemgr/filesystem.go): compact `json.Marshal` plus
  "\n", then `json.Indent(.., "", "  ")` plus one more "\n", so the file ends in "\n\n"; OpenTofu's
  instance key order (provider, skip_destroy, identity after private...).

Inside `attributes` the values are what go-cty's JSON marshaller writes for the provider's schema:
object attributes and map keys sorted, every schema attribute present (null when unset), list and set
blocks as JSON arrays (never null), single blocks (`timeouts`) as an object or null, a plugin-framework
`SingleNestedAttribute` as an object, dynamic attributes as {"value": ..., "type": ...}. Which
attribute holds null, "" or a zero value follows what the provider's create/read code sets (see
README.md for the provider versions and files each shape was checked against).

Python 3.11, standard library only. Run from anywhere: `python3 testdata/scan/make_fixtures.py`.
"""

import base64
import hashlib
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

TERRAFORM_VERSION = "1.15.5"
OPENTOFU_VERSION = "1.12.0"

AWS = 'provider["registry.terraform.io/hashicorp/aws"]'
OCI = 'provider["registry.terraform.io/oracle/oci"]'
AZURERM = 'provider["registry.terraform.io/hashicorp/azurerm"]'
AZAPI = 'provider["registry.terraform.io/azure/azapi"]'
CLOUDFOUNDRY = 'provider["registry.terraform.io/cloudfoundry/cloudfoundry"]'
BUILTIN = 'provider["terraform.io/builtin/terraform"]'
TOFU_AWS = 'provider["registry.opentofu.org/hashicorp/aws"]'

# terraform-plugin-sdk/v2 keeps the resource's timeouts (nanoseconds) under this key of `private`.
TIMEOUT_KEY = "e2bfb730-ecaa-11e6-8f88-34363bc7c4c0"
MINUTE = 60 * 1_000_000_000


# ----------------------------------------------------------------------------------------------------
# Serialisation
# ----------------------------------------------------------------------------------------------------


class Dyn:
    """A value of a dynamically typed attribute (`DynamicPseudoType`): go-cty writes it as
    {"value": ..., "type": ...}, `value` first."""

    def __init__(self, value, type_=None):
        self.value = value
        self.type = type_ if type_ is not None else implied_type(value)


def implied_type(value):
    """The cty type JSON of a value as HCL or azapi's JSON decoding implies it (objects, tuples)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return ["object", {key: implied_type(value[key]) for key in sorted(value)}]
    if isinstance(value, list):
        return ["tuple", [implied_type(item) for item in value]]
    raise TypeError(f"no implied type for {value!r}")


def cty(value):
    """A value as go-cty's JSON marshaller orders it: object attributes and map keys sorted
    (byte-wise, which for UTF-8 is Python's code-point order), integral numbers without a fraction."""
    if isinstance(value, Dyn):
        return {"value": cty(value.value), "type": cty(value.type)}
    if isinstance(value, dict):
        return {key: cty(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [cty(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def go_escape(text):
    """encoding/json's HTML-safe escaping, applied to a document Python has already encoded."""
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def go_marshal_indent(document):
    """`json.MarshalIndent(document, "", "  ")`: Python's indent=2 layout with ": " and "," is the
    same, and so are its string escapes (\\" \\\\ \\n \\r \\t \\b \\f, \\u00XX in lower case) once
    Go's HTML escaping is added."""
    return go_escape(json.dumps(document, indent=2, ensure_ascii=False, separators=(",", ": ")))


def go_marshal(document):
    """`json.Marshal(document)`, compact."""
    return go_escape(json.dumps(document, ensure_ascii=False, separators=(",", ":")))


def sdk_private(timeouts=None, schema_version=0):
    """`private` as terraform-plugin-sdk/v2 writes it: base64 of compact JSON with sorted keys
    holding the resource's default timeouts and, when above 0, its schema version as a string.
    With neither it is the JSON text `null` ("bnVsbA==")."""
    meta = {}
    if timeouts:
        meta[TIMEOUT_KEY] = {key: minutes * MINUTE for key, minutes in sorted(timeouts.items())}
    if schema_version:
        meta["schema_version"] = str(schema_version)
    raw = json.dumps(meta if meta else None, separators=(",", ":"), sort_keys=True)
    return base64.b64encode(raw.encode()).decode()


def get_attr(*names):
    """A `sensitive_attributes` path of attribute steps."""
    return [{"type": "get_attr", "value": name} for name in names]


def instance(attributes, *, schema_version, index_key=None, tainted=False, deposed=None,
             sensitive=(), identity=None, private=None, dependencies=(), create_before_destroy=False):
    """One object of `resources[].instances[]` in Terraform 1.15's key order."""
    out = {}
    if index_key is not None:
        out["index_key"] = index_key
    if tainted:
        out["status"] = "tainted"
    if deposed is not None:
        out["deposed"] = deposed
    out["schema_version"] = schema_version
    out["attributes"] = cty(attributes)
    # Terraform >= 1.10 records every attribute the schema marks sensitive, null ones included,
    # sorted by their printed path (".password" < ".password_wo").
    out["sensitive_attributes"] = [get_attr(name) for name in sorted(sensitive)]
    out["identity_schema_version"] = 0
    if identity is not None:
        out["identity"] = cty(identity)
    if private is not None:
        out["private"] = private
    if dependencies:
        out["dependencies"] = sorted(dependencies)
    if create_before_destroy:
        out["create_before_destroy"] = True
    return out


def resource(mode, type_, name, provider, instances, module=None):
    out = {}
    if module is not None:
        out["module"] = module
    out.update({"mode": mode, "type": type_, "name": name, "provider": provider,
                "instances": instances})
    return out


def state(serial, lineage, resources, *, outputs=None, check_results=None):
    keys = [(r.get("module", ""), r["mode"], r["type"], r["name"]) for r in resources]
    assert keys == sorted(keys), "resources must be in Terraform's order"
    return {
        "version": 4,
        "terraform_version": TERRAFORM_VERSION,
        "serial": serial,
        "lineage": lineage,
        "outputs": outputs or {},
        "resources": resources,
        "check_results": check_results,
    }


# ----------------------------------------------------------------------------------------------------
# Stable fake identifiers
# ----------------------------------------------------------------------------------------------------


def token(seed, length, alphabet="abcdefghijklmnopqrstuvwxyz0123456789"):
    out, counter = [], 0
    while len(out) < length:
        digest = hashlib.sha256(f"{seed}/{counter}".encode()).digest()
        out.extend(alphabet[b % len(alphabet)] for b in digest)
        counter += 1
    return "".join(out[:length])


def hexid(seed, length):
    return token(seed, length, "0123456789abcdef")


def guid(seed):
    h = hexid(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def ocid(kind, seed, region="eu-frankfurt-1"):
    return f"ocid1.{kind}.oc1.{region}.aaaaaaaa{token(seed, 52)}"


ACCOUNT = "418295637021"
REGION = "eu-west-1"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaa" + token("tenancy", 52)
COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaa" + token("compartment-prod", 52)
OCI_CREATED_BY = "oracleidentitycloudservice/jane.doe@example.com"
SUBSCRIPTION = guid("azure-subscription")
AZ_TENANT = guid("azure-tenant")


def oci_defined_tags(created_on):
    return {"Oracle-Tags.CreatedBy": OCI_CREATED_BY, "Oracle-Tags.CreatedOn": created_on}


# ----------------------------------------------------------------------------------------------------
# Oracle Cloud (oracle/oci 8.28.0, terraform-plugin-sdk/v2)
# ----------------------------------------------------------------------------------------------------

OCI_AD = "Uocm:EU-FRANKFURT-1-AD-1"
OCI_IMAGE = ocid("image", "oracle-linux-9-2026.07.30")
OCI_SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + token("ssh", 43, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") + " jane.doe@example.com"
OCI_USER_DATA = base64.b64encode(b"#cloud-config\npackage_update: true\npackages:\n  - podman\n").decode()
OCI_INSTANCE_TIMEOUTS = {"create": 45, "update": 45, "delete": 75}  # core_instance_resource.go
OCI_DEFAULT_TIMEOUTS = {"create": 20, "update": 20, "delete": 20}  # tfresource.DefaultTimeout


def oci_vcn(seed, *, display_name, cidr, dns_label, created):
    vcn_id = ocid("vcn", seed)
    return vcn_id, {
        "byoipv6cidr_blocks": [],
        "byoipv6cidr_details": [],
        "cidr_block": cidr,
        "cidr_blocks": [cidr],
        "compartment_id": COMPARTMENT,
        "default_dhcp_options_id": ocid("dhcpoptions", seed),
        "default_route_table_id": ocid("routetable", seed),
        "default_security_list_id": ocid("securitylist", seed),
        "defined_tags": oci_defined_tags(created[1]),
        "display_name": display_name,
        "dns_label": dns_label,
        "freeform_tags": {"env": "prod", "owner": "R&D platform"},
        "id": vcn_id,
        "ipv6cidr_blocks": [],
        "ipv6private_cidr_blocks": [],
        "is_ipv6enabled": False,
        "is_oracle_gua_allocation_enabled": None,
        "security_attributes": {},
        "state": "AVAILABLE",
        "time_created": created[0],
        "timeouts": None,
        "vcn_domain_name": f"{dns_label}.oraclevcn.com",
    }


def oci_subnet(seed, *, vcn_id, vcn_dns, display_name, cidr, dns_label, router_ip, created):
    subnet_id = ocid("subnet", seed)
    return subnet_id, {
        "availability_domain": None,
        "cidr_block": cidr,
        "compartment_id": COMPARTMENT,
        "defined_tags": oci_defined_tags(created[1]),
        "dhcp_options_id": ocid("dhcpoptions", vcn_id),
        "display_name": display_name,
        "dns_label": dns_label,
        "freeform_tags": {"env": "prod"},
        "id": subnet_id,
        "ipv4cidr_blocks": [cidr],
        "ipv6cidr_block": None,
        "ipv6cidr_blocks": [],
        "ipv6virtual_router_ip": None,
        "prohibit_internet_ingress": False,
        "prohibit_public_ip_on_vnic": False,
        "route_table_id": ocid("routetable", vcn_id),
        "security_list_ids": [ocid("securitylist", vcn_id)],
        "state": "AVAILABLE",
        "subnet_domain_name": f"{dns_label}.{vcn_dns}.oraclevcn.com",
        "time_created": created[0],
        "timeouts": None,
        "vcn_id": vcn_id,
        "virtual_router_ip": router_ip,
        "virtual_router_mac": "00:00:17:" + ":".join(hexid(seed, 6)[i:i + 2].upper() for i in (0, 2, 4)),
    }


def oci_instance(seed, *, display_name, subnet_id, hostname, created, running, async_, fault_domain,
                 private_ip=None, public_ip=None):
    """oci_core_instance as SetData() leaves it (core_instance_resource.go). While the instance is
    PROVISIONING, SetData skips the primary VNIC and the boot volume attachment does not exist yet:
    the computed `boot_volume_id`, `hostname_label`, `private_ip`, `public_ip` and `subnet_id` stay
    null, and `create_vnic_details` keeps what the plan held (configured values, zero values for the
    nested computed ones: terraform-plugin-sdk reads nested fields with ValueOrZero)."""
    instance_id = ocid("instance", seed)
    boot_volume = ocid("bootvolume", seed)
    vnic_details = {
        "assign_ipv6ip": False,
        "assign_private_dns_record": False,
        "assign_public_ip": "true",
        "defined_tags": oci_defined_tags(created[1]) if running else {},
        "display_name": display_name if running else "",
        "freeform_tags": {},
        "hostname_label": hostname,
        "ipv6address_ipv6subnet_cidr_pair_details": [],
        "nsg_ids": [],
        "private_ip": private_ip if running else "",
        "private_ip_id": "",
        "security_attributes": {},
        "skip_source_dest_check": False,
        "subnet_cidr": "",
        "subnet_id": subnet_id,
        "vlan_id": "",
    }
    return instance_id, {
        "agent_config": [{
            "are_all_plugins_disabled": False,
            "is_management_disabled": False,
            "is_monitoring_disabled": False,
            "plugins_config": [],
        }],
        "async": True if async_ else None,
        "availability_config": [{"is_live_migration_preferred": False, "recovery_action": "RESTORE_INSTANCE"}],
        "availability_domain": OCI_AD,
        "boot_volume_id": boot_volume if running else None,
        "capacity_reservation_id": None,
        "cluster_placement_group_id": None,
        "compartment_id": COMPARTMENT,
        "compute_cluster_id": None,
        "create_vnic_details": [vnic_details],
        "dedicated_vm_host_id": None,
        "defined_tags": oci_defined_tags(created[1]),
        "display_name": display_name,
        "extended_metadata": {},
        "fault_domain": fault_domain,
        "freeform_tags": {"env": "prod", "owner": "R&D platform"},
        "hostname_label": hostname if running else None,
        "id": instance_id,
        "image": OCI_IMAGE,
        "instance_configuration_id": None,
        "instance_options": [{"are_legacy_imds_endpoints_disabled": False}],
        "ipxe_script": None,
        "is_ai_enterprise_enabled": False,
        "is_cross_numa_node": False,
        "is_pv_encryption_in_transit_enabled": None,
        "launch_mode": "PARAVIRTUALIZED",
        "launch_options": [{
            "boot_volume_type": "PARAVIRTUALIZED",
            "firmware": "UEFI_64",
            "is_consistent_volume_naming_enabled": True,
            "is_pv_encryption_in_transit_enabled": False,
            "network_type": "PARAVIRTUALIZED",
            "remote_data_volume_type": "PARAVIRTUALIZED",
        }],
        "launch_volume_attachments": [],
        "licensing_configs": [],
        "metadata": {"ssh_authorized_keys": OCI_SSH_KEY, "user_data": OCI_USER_DATA},
        "placement_constraint_details": [],
        "platform_config": [],
        "preemptible_instance_config": [],
        "preserve_boot_volume": None,
        "preserve_data_volumes_created_at_launch": None,
        "private_ip": private_ip if running else None,
        "public_ip": public_ip if running else None,
        "region": "eu-frankfurt-1",
        "security_attributes": {},
        "security_attributes_state": "STABLE",
        "shape": "VM.Standard.E5.Flex",
        "shape_config": [{
            "baseline_ocpu_utilization": "",
            "gpu_description": "",
            "gpus": 0,
            "local_disk_description": "",
            "local_disks": 0,
            "local_disks_total_size_in_gbs": 0,
            "local_volume_size_in_gbs": 0,
            "max_vnic_attachments": 2,
            "memory_in_gbs": 16,
            "networking_bandwidth_in_gbps": 1,
            "nvmes": 0,
            "ocpus": 1,
            "processor_description": "2.4 GHz AMD EPYC™ 9J14 (Genoa)",
            "resource_management": "",
            "vcpus": 2,
        }],
        "source_details": [{
            "boot_volume_size_in_gbs": "50",
            "boot_volume_vpus_per_gb": "10",
            "instance_source_image_filter_details": [],
            "is_preserve_boot_volume_enabled": False,
            "kms_key_id": "",
            "source_id": OCI_IMAGE,
            "source_type": "image",
        }],
        "state": "RUNNING" if running else "PROVISIONING",
        "subnet_id": subnet_id if running else None,
        "system_tags": {},
        "time_created": created[0],
        "time_maintenance_reboot_due": "",
        "timeouts": None,
        "update_operation_constraint": None,
    }


def oci_network(tag):
    """A healthy VCN and subnet (both AVAILABLE)."""
    vcn_id, vcn = oci_vcn(f"{tag}-vcn", display_name="prod-vcn", cidr="10.20.0.0/16", dns_label="prodvcn",
                          created=("2026-08-20 09:02:11.486 +0000 UTC", "2026-08-20T09:02:11.301Z"))
    subnet_id, subnet = oci_subnet(f"{tag}-subnet", vcn_id=vcn_id, vcn_dns="prodvcn", display_name="app-subnet",
                                   cidr="10.20.1.0/24", dns_label="app", router_ip="10.20.1.1",
                                   created=("2026-08-20 09:02:14.020 +0000 UTC", "2026-08-20T09:02:13.877Z"))
    return subnet_id, [
        resource("managed", "oci_core_subnet", "app", OCI, [instance(
            subnet, schema_version=0, private=sdk_private(OCI_DEFAULT_TIMEOUTS),
            dependencies=["oci_core_vcn.main"])]),
        resource("managed", "oci_core_vcn", "main", OCI, [instance(
            vcn, schema_version=0, private=sdk_private(OCI_DEFAULT_TIMEOUTS))]),
    ]


def fixture_oci_async_provisioning():
    subnet_id, network = oci_network("async")
    _, inst = oci_instance("async-app-1", display_name="app-1", subnet_id=subnet_id, hostname="app-1",
                           created=("2026-08-20 09:03:02.913 +0000 UTC", "2026-08-20T09:03:02.688Z"),
                           running=False, async_=True, fault_domain="FAULT-DOMAIN-1")
    return state(7, "4f0d6a2e-93b1-c7e5-0a6b-8d2f3c1e9b57", [
        resource("managed", "oci_core_instance", "app", OCI, [instance(
            inst, schema_version=0, private=sdk_private(OCI_INSTANCE_TIMEOUTS),
            dependencies=["oci_core_subnet.app", "oci_core_vcn.main"])]),
        *network,
    ])


def fixture_generic_status():
    # oci_apigateway_gateway is not in statectl's catalog: only the generic rule (a top-level
    # `state` holding UPDATING) can see it. The gateway was ACTIVE when Terraform created it; a
    # certificate rotation started in the console was still running when the scheduled
    # `terraform apply -refresh-only` refreshed it (SetData copies LifecycleState into `state`).
    subnet_id, network = oci_network("generic")
    gateway_id = ocid("apigateway", "generic-public-gw")
    gateway = {
        "ca_bundles": [],
        "certificate_id": ocid("certificate", "api-example-com-2026"),
        "compartment_id": COMPARTMENT,
        "defined_tags": oci_defined_tags("2026-08-20T09:05:41.120Z"),
        "display_name": "public-api",
        "endpoint_type": "PUBLIC",
        "freeform_tags": {"env": "prod"},
        "hostname": token("generic-public-gw-host", 26) + ".apigateway.eu-frankfurt-1.oci.customer-oci.com",
        "id": gateway_id,
        "ip_addresses": [{"ip_address": "130.61.214.9"}],
        "ip_mode": "IPV4",
        "ipv4address_configuration": [],
        "ipv6address_configuration": [],
        "is_lock_override": None,
        "lifecycle_details": None,
        "locks": [],
        "network_security_group_ids": [],
        "response_cache_details": [{
            "authentication_secret_id": "",
            "authentication_secret_version_number": "",
            "connect_timeout_in_ms": 0,
            "is_ssl_enabled": False,
            "is_ssl_verify_disabled": False,
            "read_timeout_in_ms": 0,
            "send_timeout_in_ms": 0,
            "servers": [],
            "type": "NONE",
        }],
        "state": "UPDATING",
        "subnet_id": subnet_id,
        "system_tags": {},
        "time_created": "2026-08-20 09:05:41.302 +0000 UTC",
        "time_updated": "2026-08-22 06:40:18.775 +0000 UTC",
        "timeouts": None,
    }
    return state(11, "8e5b1d7c-3a0f-49e2-b6c4-d1f7a9e3c025", [
        resource("managed", "oci_apigateway_gateway", "public", OCI, [instance(
            gateway, schema_version=0, private=sdk_private(OCI_DEFAULT_TIMEOUTS),
            dependencies=["oci_core_subnet.app", "oci_core_vcn.main"])]),
        *network,
    ])


# ----------------------------------------------------------------------------------------------------
# Cloud Foundry (cloudfoundry/cloudfoundry 1.16.0, terraform-plugin-framework)
# ----------------------------------------------------------------------------------------------------

CF_SPACE = guid("cf-space-payments-prod")


def cf_service_instance(guid_, *, name, type_, plan, created, updated, last_operation, tags=None,
                        dashboard_url=None, maintenance_info=None, upgrade_available=None, parameters=None):
    """mapResourceServiceInstanceValuesToType (types_service_instance.go): `last_operation` and
    `maintenance_info` are SingleNestedAttributes, i.e. objects, not lists."""
    managed = type_ == "managed"
    return {
        "annotations": None,
        "created_at": created,
        "credentials": None,
        "dashboard_url": dashboard_url,
        "id": guid_,
        "labels": None,
        "last_operation": last_operation,
        "maintenance_info": (maintenance_info or {"description": None, "version": None}) if managed else None,
        "name": name,
        "parameters": parameters,
        "route_service_url": None,
        "service_plan": plan,
        "space": CF_SPACE,
        "syslog_drain_url": None,
        "tags": tags,
        "timeouts": None,
        "type": type_,
        "updated_at": updated,
        "upgrade_available": upgrade_available,
    }


def fixture_cf_tainted_in_progress():
    db_guid = guid("cf-si-orders-db")
    db = cf_service_instance(
        db_guid, name="orders-db", type_="managed", plan=guid("cf-plan-postgres-ha-large"),
        created="2026-08-21T13:04:55Z", updated="2026-08-21T13:04:55Z",
        tags=["postgres", "orders"], upgrade_available=False,
        parameters='{"backups":{"retention_days":14},"ha":true}',
        last_operation={
            "created_at": "2026-08-21T13:04:55Z",
            "description": "Provisioning PostgreSQL 16 cluster (3 nodes): waiting for replicas",
            "state": "in progress",
            "type": "create",
            "updated_at": "2026-08-21T13:43:12Z",
        })
    ups_guid = guid("cf-si-splunk-drain")
    ups = cf_service_instance(
        ups_guid, name="log-drain", type_="user-provided", plan=None,
        created="2026-08-21T13:04:51Z", updated="2026-08-21T13:04:51Z",
        last_operation={
            "created_at": "2026-08-21T13:04:51Z",
            "description": "Operation succeeded",
            "state": "succeeded",
            "type": "create",
            "updated_at": "2026-08-21T13:04:51Z",
        })
    ups["syslog_drain_url"] = "syslog-tls://logs.example.com:6514"
    sensitive = ("credentials", "parameters")
    return state(3, "b6e1f0c4-2d7a-5e93-81c0-4a9d7f2b6e18", [
        resource("managed", "cloudfoundry_service_instance", "log_drain", CLOUDFOUNDRY, [instance(
            ups, schema_version=0, sensitive=sensitive, identity={"service_instance_guid": ups_guid})]),
        resource("managed", "cloudfoundry_service_instance", "orders_db", CLOUDFOUNDRY, [instance(
            db, schema_version=0, tainted=True, sensitive=sensitive,
            identity={"service_instance_guid": db_guid})]),
    ])


# ----------------------------------------------------------------------------------------------------
# AWS (hashicorp/aws 5.100.0, terraform-plugin-sdk/v2)
# ----------------------------------------------------------------------------------------------------

DB_SENSITIVE = ("password", "password_wo")
DB_PRIVATE = sdk_private({"create": 50, "update": 80, "delete": 60}, schema_version=2)
SG_PRIVATE = sdk_private({"create": 10, "delete": 15}, schema_version=1)
EC2_PRIVATE = sdk_private({"create": 10, "update": 10, "read": 15, "delete": 20}, schema_version=1)
S3_PRIVATE = sdk_private({"create": 20, "read": 20, "update": 20, "delete": 60})
EKS_PRIVATE = sdk_private({"create": 30, "update": 60, "delete": 15}, schema_version=1)
VPC_ID = "vpc-0c3f9a71d25e4b806"
SUBNETS = ["subnet-0a81f3c52d9e47b16", "subnet-0e27b9d4a1c8f3605", "subnet-06d4c1e8b7a2f9530"]


def tags(name, **extra):
    return {"Name": name, "env": "prod", "team": "payments", **extra}


def aws_db_instance(identifier, *, status, available, engine_version="16.4", kms_seed="rds"):
    """aws_db_instance (schema version 2). `address`, `endpoint`, `hosted_zone_id` and `port` are set
    by Read only once DescribeDBInstances returns an Endpoint, which it does not while the instance
    is `creating`."""
    resource_id = "db-" + token(identifier, 26, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    host = f"{identifier}.c{token(identifier + 'host', 11)}.{REGION}.rds.amazonaws.com"
    kms = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/{guid(kms_seed)}"
    return resource_id, {
        "address": host if available else None,
        "allocated_storage": 100,
        "allow_major_version_upgrade": None,
        "apply_immediately": False,
        "arn": f"arn:aws:rds:{REGION}:{ACCOUNT}:db:{identifier}",
        "auto_minor_version_upgrade": True,
        "availability_zone": f"{REGION}b",
        "backup_retention_period": 7,
        "backup_target": "region",
        "backup_window": "02:13-02:43",
        "blue_green_update": [],
        "ca_cert_identifier": "rds-ca-rsa2048-g1",
        "character_set_name": "",
        "copy_tags_to_snapshot": True,
        "custom_iam_instance_profile": "",
        "customer_owned_ip_enabled": False,
        "database_insights_mode": "standard",
        "db_name": "orders",
        "db_subnet_group_name": "payments-prod-db",
        "dedicated_log_volume": False,
        "delete_automated_backups": True,
        "deletion_protection": True,
        "domain": "",
        "domain_auth_secret_arn": "",
        "domain_dns_ips": [],
        "domain_fqdn": "",
        "domain_iam_role_name": "",
        "domain_ou": "",
        "enabled_cloudwatch_logs_exports": ["postgresql"],
        "endpoint": f"{host}:5432" if available else None,
        "engine": "postgres",
        "engine_lifecycle_support": "open-source-rds-extended-support-disabled",
        "engine_version": engine_version,
        "engine_version_actual": engine_version,
        "final_snapshot_identifier": f"{identifier}-final",
        "hosted_zone_id": "Z29XKXDKYMONMX" if available else None,
        "iam_database_authentication_enabled": False,
        "id": resource_id,
        "identifier": identifier,
        "identifier_prefix": "",
        "instance_class": "db.m7g.large",
        "iops": 3000,
        "kms_key_id": kms,
        "latest_restorable_time": "2026-08-21T10:35:00Z" if available else "",
        "license_model": "postgresql-license",
        "listener_endpoint": [],
        "maintenance_window": "sun:03:30-sun:04:00",
        "manage_master_user_password": True,
        "master_user_secret": [{
            "kms_key_id": kms,
            "secret_arn": f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:rds!{resource_id.lower()}-{token(identifier, 6, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')}",
            "secret_status": "active" if available else "creating",
        }],
        "master_user_secret_kms_key_id": None,
        "max_allocated_storage": 500,
        "monitoring_interval": 0,
        "monitoring_role_arn": "",
        "multi_az": True,
        "nchar_character_set_name": "",
        "network_type": "IPV4",
        "option_group_name": "default:postgres-16",
        "parameter_group_name": "default.postgres16",
        "password": None,
        "password_wo": None,
        "password_wo_version": None,
        "performance_insights_enabled": False,
        "performance_insights_kms_key_id": "",
        "performance_insights_retention_period": 0,
        "port": 5432 if available else None,
        "publicly_accessible": False,
        "replica_mode": "",
        "replicas": [],
        "replicate_source_db": "",
        "resource_id": resource_id,
        "restore_to_point_in_time": [],
        "s3_import": [],
        "skip_final_snapshot": False,
        "snapshot_identifier": None,
        "status": status,
        "storage_encrypted": True,
        "storage_throughput": 125,
        "storage_type": "gp3",
        "tags": tags(identifier),
        "tags_all": tags(identifier),
        "timeouts": None,
        "timezone": "",
        "upgrade_storage_config": None,
        "username": "orders_admin",
        "vpc_security_group_ids": ["sg-07b3e2c91d4a8f615"],
    }


def security_group(group_id, name, description, ingress):
    """An aws_security_group with the one egress rule every group here has (all out) and one
    ingress rule."""
    return {
        "arn": f"arn:aws:ec2:{REGION}:{ACCOUNT}:security-group/{group_id}",
        "description": description,
        "egress": [sg_rule(["0.0.0.0/0"], "", 0, "-1", [])],
        "id": group_id,
        "ingress": [ingress],
        "name": name,
        "name_prefix": "",
        "owner_id": ACCOUNT,
        "revoke_rules_on_delete": False,
        "tags": tags(name),
        "tags_all": tags(name),
        "timeouts": None,
        "vpc_id": VPC_ID,
    }


def sg_rule(cidr_blocks, description, port, protocol, security_groups):
    """One ingress or egress rule, as the provider's schema writes it (from and to the same port)."""
    return {
        "cidr_blocks": cidr_blocks,
        "description": description,
        "from_port": port,
        "ipv6_cidr_blocks": [],
        "prefix_list_ids": [],
        "protocol": protocol,
        "security_groups": security_groups,
        "self": False,
        "to_port": port,
    }


def aws_security_group_db():
    return security_group("sg-07b3e2c91d4a8f615", "payments-prod-db", "PostgreSQL from the app tier",
                          sg_rule([], "app tier", 5432, "tcp", ["sg-0f1d8a6c3b2e49570"]))


def fixture_rds_creating():
    # The create wait timed out while RDS was still `creating` (Terraform tainted the object), the
    # operator ran `terraform untaint` rather than have the next apply replace it, and a scheduled
    # `terraform apply -refresh-only` then read it, still creating: status "creating", no Endpoint.
    _, db = aws_db_instance("orders-prod", status="creating", available=False)
    return state(12, "7c2b9e04-51fd-a3c8-6e17-0b94d2f5a8c3", [
        resource("managed", "aws_db_instance", "orders", AWS, [instance(
            db, schema_version=2, sensitive=DB_SENSITIVE, private=DB_PRIVATE,
            dependencies=["aws_security_group.db"])]),
        resource("managed", "aws_security_group", "db", AWS, [instance(
            aws_security_group_db(), schema_version=1, private=SG_PRIVATE)]),
    ])


def aws_instance(instance_id, *, ami, private_ip, public_ip, subnet, az, name, state_="running",
                 termination_protection=False, volume_id, eni, launched_user_data_hash):
    """aws_instance (schema version 1) as Read leaves a running instance."""
    private_dns = "ip-" + private_ip.replace(".", "-") + f".{REGION}.compute.internal"
    return {
        "ami": ami,
        "arn": f"arn:aws:ec2:{REGION}:{ACCOUNT}:instance/{instance_id}",
        "associate_public_ip_address": public_ip != "",
        "availability_zone": az,
        "capacity_reservation_specification": [{
            "capacity_reservation_preference": "open",
            "capacity_reservation_target": [],
        }],
        "cpu_core_count": 1,
        "cpu_options": [{"amd_sev_snp": "", "core_count": 1, "threads_per_core": 2}],
        "cpu_threads_per_core": 2,
        "credit_specification": [{"cpu_credits": "unlimited"}],
        "disable_api_stop": False,
        "disable_api_termination": termination_protection,
        "ebs_block_device": [],
        "ebs_optimized": False,
        "enable_primary_ipv6": None,
        "enclave_options": [{"enabled": False}],
        "ephemeral_block_device": [],
        "get_password_data": False,
        "hibernation": False,
        "host_id": "",
        "host_resource_group_arn": None,
        "iam_instance_profile": "web-prod",
        "id": instance_id,
        "instance_initiated_shutdown_behavior": "stop",
        "instance_lifecycle": "",
        "instance_market_options": [],
        "instance_state": state_,
        "instance_type": "t3.small",
        "ipv6_address_count": 0,
        "ipv6_addresses": [],
        "key_name": "",
        "launch_template": [],
        "maintenance_options": [{"auto_recovery": "default"}],
        "metadata_options": [{
            "http_endpoint": "enabled",
            "http_protocol_ipv6": "disabled",
            "http_put_response_hop_limit": 2,
            "http_tokens": "required",
            "instance_metadata_tags": "disabled",
        }],
        "monitoring": False,
        "network_interface": [],
        "outpost_arn": "",
        "password_data": "",
        "placement_group": "",
        "placement_partition_number": 0,
        "primary_network_interface_id": eni,
        "private_dns": private_dns,
        "private_dns_name_options": [{
            "enable_resource_name_dns_a_record": False,
            "enable_resource_name_dns_aaaa_record": False,
            "hostname_type": "ip-name",
        }],
        "private_ip": private_ip,
        "public_dns": (f"ec2-{public_ip.replace('.', '-')}.{REGION}.compute.amazonaws.com" if public_ip else ""),
        "public_ip": public_ip,
        "root_block_device": [{
            "delete_on_termination": True,
            "device_name": "/dev/xvda",
            "encrypted": True,
            "iops": 3000,
            "kms_key_id": f"arn:aws:kms:{REGION}:{ACCOUNT}:key/{guid('ebs-default')}",
            "tags": {},
            "tags_all": {},
            "throughput": 125,
            "volume_id": volume_id,
            "volume_size": 20,
            "volume_type": "gp3",
        }],
        "secondary_private_ips": [],
        "security_groups": [],
        "source_dest_check": True,
        "spot_instance_request_id": "",
        "subnet_id": subnet,
        "tags": tags(name),
        "tags_all": tags(name),
        "tenancy": "default",
        "timeouts": None,
        "user_data": launched_user_data_hash,
        "user_data_base64": None,
        "user_data_replace_on_change": False,
        "volume_tags": None,
        "vpc_security_group_ids": ["sg-0f1d8a6c3b2e49570"],
    }


def aws_security_group_web():
    return security_group("sg-0f1d8a6c3b2e49570", "web-prod", "web tier",
                          sg_rule(["0.0.0.0/0"], "HTTPS", 443, "tcp", []))


def fixture_deposed():
    # AMI bump with create_before_destroy: the replacement (current) came up, then destroying the
    # old object failed because it still had termination protection ("OperationNotPermitted: The
    # instance 'i-...' may not be terminated. Modify its 'disableApiTermination' instance attribute
    # and try again."). Terraform keeps the old object as deposed.
    user_data = hexid("web-user-data", 40)
    current = aws_instance("i-0d4b7e1f39a62c058", ami="ami-0f9c4e1d27b835a60", private_ip="10.40.1.57",
                           public_ip="34.252.118.9", subnet=SUBNETS[0], az=f"{REGION}a", name="web-prod",
                           volume_id="vol-0b6e3d9f1a4c27e85", eni="eni-03a7c9e1f5b2d4068",
                           launched_user_data_hash=user_data)
    old = aws_instance("i-0a91c2e7d5f3b8146", ami="ami-07d2b6a1f94c3e852", private_ip="10.40.1.23",
                       public_ip="52.48.201.77", subnet=SUBNETS[0], az=f"{REGION}a", name="web-prod",
                       termination_protection=True, volume_id="vol-05f2a8c1e9d3b7460",
                       eni="eni-0e6b1d8a4c7f2e935", launched_user_data_hash=user_data)
    deps = ["aws_security_group.web"]
    return state(21, "e8a3d5f1-0b6c-7294-c1e8-5f3a9d2b7c60", [
        resource("managed", "aws_instance", "web", AWS, [
            instance(current, schema_version=1, private=EC2_PRIVATE, dependencies=deps,
                     create_before_destroy=True),
            instance(old, schema_version=1, deposed="1a2b3c4d", private=EC2_PRIVATE, dependencies=deps,
                     create_before_destroy=True),
        ]),
        resource("managed", "aws_security_group", "web", AWS, [instance(
            aws_security_group_web(), schema_version=1, private=SG_PRIVATE, create_before_destroy=True)]),
    ])


def fixture_failed_create():
    # CreateCluster was accepted, then EKS moved the cluster to FAILED (here: the KMS key named in
    # encryption_config does not let the cluster role use it). resourceClusterCreate has already
    # called d.SetId(), so the failed wait ("waiting for EKS Cluster (payments-prod) create:
    # unexpected state 'FAILED', wanted target 'ACTIVE'") saves the object and Terraform taints it;
    # the refresh of the next plan (or `apply -refresh-only`) fills in `status` from
    # DescribeCluster and keeps the taint.
    name = "payments-prod"
    key_arn = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/{guid('eks-secrets')}"
    cluster = {
        "access_config": [{"authentication_mode": "API", "bootstrap_cluster_creator_admin_permissions": True}],
        "arn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{name}",
        "bootstrap_self_managed_addons": True,
        "certificate_authority": [],
        "cluster_id": None,
        "compute_config": [],
        "created_at": "2026-08-21T08:12:47Z",
        "enabled_cluster_log_types": ["api", "audit", "authenticator"],
        "encryption_config": [{"provider": [{"key_arn": key_arn}], "resources": ["secrets"]}],
        "endpoint": "",
        "force_update_version": None,
        "id": name,
        "identity": [],
        "kubernetes_network_config": [{
            "elastic_load_balancing": [{"enabled": False}],
            "ip_family": "ipv4",
            "service_ipv4_cidr": "172.20.0.0/16",
            "service_ipv6_cidr": "",
        }],
        "name": name,
        "outpost_config": [],
        "platform_version": "eks.6",
        "remote_network_config": [],
        "role_arn": f"arn:aws:iam::{ACCOUNT}:role/{name}-eks-cluster",
        "status": "FAILED",
        "storage_config": [],
        "tags": tags(name),
        "tags_all": tags(name),
        "timeouts": None,
        "upgrade_policy": [{"support_type": "STANDARD"}],
        "version": "1.33",
        "vpc_config": [{
            "cluster_security_group_id": "",
            "endpoint_private_access": True,
            "endpoint_public_access": False,
            "public_access_cidrs": [],
            "security_group_ids": [],
            "subnet_ids": sorted(SUBNETS),
            "vpc_id": VPC_ID,
        }],
        "zonal_shift_config": [],
    }
    return state(4, "2d9f6b81-c4e0-35a7-9b12-e6f0a8c4d3b9", [
        resource("managed", "aws_eks_cluster", "payments", AWS, [instance(
            cluster, schema_version=1, tainted=True, private=EKS_PRIVATE)]),
    ])


# ----------------------------------------------------------------------------------------------------
# Azure (hashicorp/azurerm 4.79.0, azure/azapi 2.12.0)
# ----------------------------------------------------------------------------------------------------

RG_NAME = "rg-aks-prod-weu"
RG_ID = f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{RG_NAME}"


def fixture_azure_creating():
    # azapi >= 2.12.0 (GH-1183): when the create of an azapi_resource is interrupted (SIGINT) or its
    # long-running operation exceeds the timeout, the provider GETs the resource and saves it (id,
    # `output` = the read-only part of the response) before reporting the error, so Terraform keeps
    # it, tainted. The response here is an AKS cluster still `Creating`. No resource identity is
    # written: Create() sets it only when there was no error.
    rg = {"id": RG_ID, "location": "westeurope", "managed_by": "", "name": RG_NAME,
          "tags": {"env": "prod", "cost-center": "CC-4711"}, "timeouts": None}
    aks_name = "aks-prod-weu"
    aks_id = f"{RG_ID}/providers/Microsoft.ContainerService/managedClusters/{aks_name}"
    body = {
        "properties": {
            "agentPoolProfiles": [{
                "availabilityZones": ["1", "2", "3"],
                "count": 3,
                "mode": "System",
                "name": "system",
                "osType": "Linux",
                "vmSize": "Standard_D4ds_v5",
            }],
            "dnsPrefix": aks_name,
            "kubernetesVersion": "1.32",
            "networkProfile": {"networkPlugin": "azure", "networkPluginMode": "overlay"},
        },
        "sku": {"name": "Base", "tier": "Standard"},
    }
    principal = guid("aks-identity-principal")
    output = {
        "id": aks_id,
        "identity": {"principalId": principal, "tenantId": AZ_TENANT},
        "properties": {
            "agentPoolProfiles": [{
                "currentOrchestratorVersion": "1.32.6",
                "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202608.04.0",
                "provisioningState": "Creating",
            }],
            "azurePortalFQDN": f"{aks_name}-{hexid('aks-fqdn', 8)}.portal.hcp.westeurope.azmk8s.io",
            "currentKubernetesVersion": "1.32.6",
            "fqdn": f"{aks_name}-{hexid('aks-fqdn', 8)}.hcp.westeurope.azmk8s.io",
            "maxAgentPools": 100,
            "powerState": {"code": "Running"},
            "provisioningState": "Creating",
            "resourceUID": hexid("aks-uid", 24),
        },
        "type": "Microsoft.ContainerService/ManagedClusters",
    }
    aks = {
        "body": Dyn(body),
        "create_headers": None,
        "create_query_parameters": None,
        "delete_headers": None,
        "delete_query_parameters": None,
        "id": aks_id,
        "identity": [{"identity_ids": None, "principal_id": principal, "tenant_id": AZ_TENANT,
                      "type": "SystemAssigned"}],
        "ignore_body_changes": None,
        "ignore_casing": False,
        "ignore_missing_property": True,
        "ignore_null_property": False,
        "ignore_other_items_in_list": None,
        "list_unique_id_property": None,
        "location": "westeurope",
        "locks": None,
        "name": aks_name,
        "output": Dyn(output),
        "parent_id": RG_ID,
        "read_headers": None,
        "read_query_parameters": None,
        "replace_triggers_external_values": None,
        "replace_triggers_refs": None,
        "response_export_values": None,
        "retry": None,
        "schema_validation_enabled": True,
        "sensitive_body": None,
        "sensitive_body_version": None,
        "tags": {"env": "prod", "cost-center": "CC-4711"},
        "timeouts": None,
        "type": "Microsoft.ContainerService/managedClusters@2025-05-01",
        "update_headers": None,
        "update_query_parameters": None,
    }
    return state(5, "c0e7a4d2-6f19-8b53-27d0-9a1e5c3f7b46", [
        resource("managed", "azapi_resource", "aks", AZAPI, [instance(
            aks, schema_version=2, tainted=True, dependencies=["azurerm_resource_group.aks"])]),
        resource("managed", "azurerm_resource_group", "aks", AZURERM, [instance(
            rg, schema_version=0, identity={"name": RG_NAME, "subscription_id": SUBSCRIPTION},
            private=sdk_private({"create": 90, "read": 5, "update": 90, "delete": 90}))]),
    ])


# ----------------------------------------------------------------------------------------------------
# Built-in provider (terraform.io/builtin/terraform)
# ----------------------------------------------------------------------------------------------------


def terraform_data(seed, input_value, triggers=None):
    return {
        "id": guid(seed),
        "input": Dyn(input_value),
        "output": Dyn(input_value),
        "triggers_replace": Dyn(triggers) if triggers is not None else None,
    }


# ----------------------------------------------------------------------------------------------------
# Clean, checks, missing ids
# ----------------------------------------------------------------------------------------------------


def fixture_clean():
    subnet_id, network = oci_network("clean")
    _, inst = oci_instance("clean-app-1", display_name="app-1", subnet_id=subnet_id, hostname="app-1",
                           created=("2026-08-20 09:03:02.913 +0000 UTC", "2026-08-20T09:03:02.688Z"),
                           running=True, async_=False, fault_domain="FAULT-DOMAIN-2",
                           private_ip="10.20.1.14", public_ip="130.61.87.203")
    _, db = aws_db_instance("orders-prod", status="available", available=True)
    return state(38, "5a1c8e3f-d72b-4069-b3e5-1f8d0c6a2e97", [
        resource("managed", "aws_db_instance", "orders", AWS, [instance(
            db, schema_version=2, sensitive=DB_SENSITIVE, private=DB_PRIVATE,
            dependencies=["aws_security_group.db"])]),
        resource("managed", "aws_security_group", "db", AWS, [instance(
            aws_security_group_db(), schema_version=1, private=SG_PRIVATE)]),
        resource("managed", "oci_core_instance", "app", OCI, [instance(
            inst, schema_version=0, private=sdk_private(OCI_INSTANCE_TIMEOUTS),
            dependencies=["oci_core_subnet.app", "oci_core_vcn.main"])]),
        *network,
        resource("managed", "terraform_data", "release", BUILTIN, [instance(
            terraform_data("clean-release", "orders-api 2026.08.3", "2026.08.3"), schema_version=0)]),
    ])


def fixture_checks_failed():
    # check_results exactly as Terraform 1.15.5 writes them (checked by running it): an evaluation
    # error gives status "error" and no failure_messages; Terraform does not sort the entries.
    check_results = [
        {
            "object_kind": "check",
            "config_addr": "check.certificate_expiry",
            "status": "error",
            "objects": [{"object_addr": "check.certificate_expiry", "status": "error"}],
        },
        {
            "object_kind": "check",
            "config_addr": "check.dns",
            "status": "pass",
            "objects": [{"object_addr": "check.dns", "status": "pass"}],
        },
        {
            "object_kind": "check",
            "config_addr": "check.latency",
            "status": "fail",
            "objects": [{
                "object_addr": "check.latency",
                "status": "fail",
                "failure_messages": ["p99 latency of orders-api is 1840 ms > 500 ms (SLO <= 500 ms)"],
            }],
        },
    ]
    return state(9, "9b4e2c7a-1d5f-86e0-a3c9-70f2b8d6e1a4", [
        resource("managed", "terraform_data", "deploy", BUILTIN, [instance(
            terraform_data("checks-deploy", "orders-api 2026.08.3"), schema_version=0)]),
        resource("managed", "terraform_data", "endpoint", BUILTIN, [instance(
            terraform_data("checks-endpoint", "https://orders.example.com/healthz"), schema_version=0)]),
    ], check_results=check_results)


def fixture_missing_id():
    # Hand-repaired state after a failed `terraform import`: one object kept its attributes but
    # lost its id (""), the other is a placeholder with only configuration values and a null id.
    user_data = hexid("batch-user-data", 40)
    damaged = aws_instance("", ami="ami-0f9c4e1d27b835a60", private_ip="10.40.2.88", public_ip="",
                           subnet=SUBNETS[1], az=f"{REGION}b", name="batch-worker-1",
                           volume_id="vol-0c7e2b5a9f1d3e684", eni="eni-0b4f8e2a6d1c9f357",
                           launched_user_data_hash=user_data)
    damaged["arn"] = f"arn:aws:ec2:{REGION}:{ACCOUNT}:instance/i-0c58e1a9f2d7b4306"
    placeholder = {key: None for key in damaged}
    for key in ("capacity_reservation_specification", "cpu_options", "credit_specification",
                "ebs_block_device", "enclave_options", "ephemeral_block_device", "instance_market_options",
                "launch_template", "maintenance_options", "metadata_options", "network_interface",
                "private_dns_name_options", "root_block_device"):
        placeholder[key] = []  # blocks are never null
    placeholder.update({
        "ami": "ami-0f9c4e1d27b835a60",
        "instance_type": "t3.small",
        "subnet_id": SUBNETS[2],
        "tags": tags("batch-worker-2"),
        "tags_all": tags("batch-worker-2"),
        "user_data_replace_on_change": False,
        "get_password_data": False,
        "source_dest_check": True,
        "hibernation": False,
    })
    remote_state = {
        "backend": "s3",
        "config": Dyn({"bucket": "acme-terraform-state", "key": "network/prod.tfstate", "region": REGION}),
        "defaults": None,
        "outputs": Dyn({"private_subnet_ids": SUBNETS, "vpc_id": VPC_ID}),
        "workspace": None,
    }
    return state(16, "03f6d9b2-8e4a-71c5-d0b7-2a5e9c1f4d83", [
        resource("data", "terraform_remote_state", "network", BUILTIN, [instance(remote_state, schema_version=0)]),
        resource("managed", "aws_instance", "batch_worker_1", AWS, [instance(
            damaged, schema_version=1, private=EC2_PRIVATE)]),
        resource("managed", "aws_instance", "batch_worker_2", AWS, [instance(
            placeholder, schema_version=1)]),
    ])


# ----------------------------------------------------------------------------------------------------
# OpenTofu 1.12: skip_destroy
# ----------------------------------------------------------------------------------------------------


def tofu_instance(attributes, *, schema_version, private=None, dependencies=(), skip_destroy=False):
    """OpenTofu 1.12's instanceObjectStateV4 key order: index_key, status, deposed, provider,
    schema_version, attributes, attributes_flat, sensitive_attributes, private, dependencies,
    create_before_destroy, skip_destroy, identity, identity_schema_version (only with an identity)."""
    out = {"schema_version": schema_version, "attributes": cty(attributes), "sensitive_attributes": []}
    if private is not None:
        out["private"] = private
    if dependencies:
        out["dependencies"] = sorted(dependencies)
    if skip_destroy:
        out["skip_destroy"] = True
    return out


def fixture_opentofu_skip_destroy():
    # lifecycle { destroy = false } on the audit bucket: OpenTofu 1.12 persists it as skip_destroy.
    bucket = "acme-payments-audit-logs-eu-west-1"
    attributes = {
        "acceleration_status": "",
        "acl": None,
        "arn": f"arn:aws:s3:::{bucket}",
        "bucket": bucket,
        "bucket_domain_name": f"{bucket}.s3.amazonaws.com",
        "bucket_prefix": "",
        "bucket_regional_domain_name": f"{bucket}.s3.{REGION}.amazonaws.com",
        "cors_rule": [],
        "force_destroy": False,
        "grant": [{
            "id": hexid("s3-canonical-owner", 64),
            "permissions": ["FULL_CONTROL"],
            "type": "CanonicalUser",
            "uri": "",
        }],
        "hosted_zone_id": "Z1BKCTXD74EZPE",
        "id": bucket,
        "lifecycle_rule": [],
        "logging": [],
        "object_lock_configuration": [],
        "object_lock_enabled": False,
        "policy": "",
        "region": REGION,
        "replication_configuration": [],
        "request_payer": "BucketOwner",
        "server_side_encryption_configuration": [{
            "rule": [{
                "apply_server_side_encryption_by_default": [{"kms_master_key_id": "", "sse_algorithm": "AES256"}],
                "bucket_key_enabled": False,
            }],
        }],
        "tags": tags(bucket, retention="7y"),
        "tags_all": tags(bucket, retention="7y"),
        "timeouts": None,
        "versioning": [{"enabled": True, "mfa_delete": False}],
        "website": [],
        "website_domain": None,
        "website_endpoint": None,
    }
    document = {
        "version": 4,
        "terraform_version": OPENTOFU_VERSION,
        "serial": 6,
        "lineage": "f17c3a9e-4b2d-0e68-95a1-c8d3e7b0f254",
        "outputs": {},
        "resources": [
            resource("managed", "aws_s3_bucket", "audit_logs", TOFU_AWS, [tofu_instance(
                attributes, schema_version=0, private=S3_PRIVATE, skip_destroy=True)]),
        ],
        "check_results": None,
    }
    return document


# ----------------------------------------------------------------------------------------------------

TERRAFORM_FIXTURES = {
    "oci-async-provisioning.tfstate": fixture_oci_async_provisioning,
    "cf-tainted-in-progress.tfstate": fixture_cf_tainted_in_progress,
    "rds-creating.tfstate": fixture_rds_creating,
    "azure-creating.tfstate": fixture_azure_creating,
    "deposed.tfstate": fixture_deposed,
    "failed-create.tfstate": fixture_failed_create,
    "clean.tfstate": fixture_clean,
    "checks-failed.tfstate": fixture_checks_failed,
    "missing-id.tfstate": fixture_missing_id,
    "generic-status.tfstate": fixture_generic_status,
}


def main():
    for name, build in TERRAFORM_FIXTURES.items():
        text = go_marshal_indent(build()) + "\n"
        (HERE / name).write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {name}")
    # OpenTofu 1.12 local state: Write() gives compact JSON + "\n"; the filesystem manager indents it
    # (json.Indent keeps the trailing "\n") and appends another "\n".
    compact = go_marshal(fixture_opentofu_skip_destroy()) + "\n"
    indented = json.dumps(json.loads(compact), indent=2, ensure_ascii=False, separators=(",", ": "))
    text = go_escape(indented) + "\n\n"
    (HERE / "opentofu-skip-destroy.tfstate").write_text(text, encoding="utf-8", newline="\n")
    print("wrote opentofu-skip-destroy.tfstate")


if __name__ == "__main__":
    main()
