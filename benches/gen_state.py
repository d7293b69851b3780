#!/usr/bin/env python3
"""Generator of large, realistic Terraform v4 state files for statectl's benchmarks.

This file owns the synthetic states under target/bench/: what resources they hold, what their
attributes look like, and that the bytes are exactly what Terraform 1.15's Go writer would produce
(json.MarshalIndent(state, "", "  ") plus one "\\n"; see ../../shared/reference/state-format.md,
sections 1 and 3). It uses the Python standard library only.

    gen_state.py --instances N --out FILE [--seed S]
    gen_state.py --many K --size-mb M --out-dir DIR [--seed S]
    gen_state.py --many K --total-mb T --out-dir DIR [--seed S]   (mixed sizes, 10 KB to 5 MB)
    gen_state.py --verify FILE...      (check files against the Go writer's rules)

N counts instance objects, i.e. the entries of all "instances" arrays (deposed objects included);
about 2.5 KB each, so 20000 gives ~50 MB and 100000 ~250 MB. The same seed gives the same bytes.
A one-line summary (counts of tainted, deposed and transitional instances: what `statectl scan`
should find) goes to stderr; stdout stays empty.

Why the output matches Go byte for byte:
- nested() writes what json.dumps(indent=2, ensure_ascii=False) would, which is MarshalIndent's
  layout (items end the line, ": " after keys, "[]" and "{}" when empty) with the same escapes for
  everything we generate. Go also escapes < > & U+2028 U+2029; we never generate them, and
  render_resource() refuses the first three rather than writing a file Go would not.
- The envelope (state, resource, instance keys) is written by hand in Go struct order; attribute
  values come from cty's JSON encoder, which sorts object and map keys, hence obj() below. The one
  exception is a dynamically typed value (terraform_data's input/output), which cty writes as
  {"value": ..., "type": ...} in that order.
- Resources are sorted by (module, mode, type, name) and instances by key (ints before strings),
  current object before its deposed ones. Python compares str by code point, which for UTF-8 is the
  same as Go's byte-wise order.
- Only integers are generated: Go keeps raw attribute numbers as written anyway, but top-level
  floats would be formatted differently by the two languages.
Checked against real Terraform 1.15.5: its rewrite after `terraform state rm` of one resource is
this file minus that resource with serial + 1, except check_results, which Go writes in map order.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field

TERRAFORM_VERSION = "1.15.5"
# Average bytes per instance object, measured on this generator's own output; --many uses it to
# turn --size-mb into an instance count. Re-measure if the resource mix below changes.
BYTES_PER_INSTANCE = 2520

AWS = 'provider["registry.terraform.io/hashicorp/aws"]'
AWS_WEST = 'provider["registry.terraform.io/hashicorp/aws"].us_west_2'
OCI = 'provider["registry.terraform.io/oracle/oci"]'
CF = 'provider["registry.terraform.io/cloudfoundry/cloudfoundry"]'
RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'
BUILTIN = 'provider["terraform.io/builtin/terraform"]'


def obj(**kw):
    """A cty object or map as Terraform writes it: keys sorted."""
    return dict(sorted(kw.items()))


def sorted_map(d):
    return dict(sorted(d.items()))


def dyn(value, typ):
    """A value of a dynamically typed attribute: cty writes "value" before "type"."""
    return {"value": value, "type": typ}


def sdk_private(schema_version, create=None, delete=None, update=None, read=None):
    """The opaque `private` blob of a terraform-plugin-sdk v2 resource: timeouts in nanoseconds
    under the SDK's fixed key, plus the schema version. Real states repeat these few blobs."""
    timeouts = {}
    for k, minutes in (("create", create), ("delete", delete), ("read", read), ("update", update)):
        if minutes is not None:
            timeouts[k] = minutes * 60 * 10**9
    meta = {}
    if timeouts:
        meta["e2bfb730-ecaa-11e6-8f88-34363bc7c4c0"] = timeouts
    meta["schema_version"] = str(schema_version)
    raw = json.dumps(meta, separators=(",", ":")).encode()
    return base64.b64encode(raw).decode()


PRIVATE_AWS_INSTANCE = sdk_private(1, create=10, delete=20, read=15, update=10)
PRIVATE_AWS_SG = sdk_private(1, create=10, delete=15)
PRIVATE_AWS_DB = sdk_private(2, create=40, delete=60, update=80)
PRIVATE_AWS_PLAIN = sdk_private(0)
PRIVATE_OCI = sdk_private(0, create=45, delete=75, update=45)

WORDS = [
    "analytics", "auth", "billing", "catalog", "checkout", "données", "gateway", "identity",
    "inventory", "ledger", "media", "notifications", "orders", "payments", "pricing", "profile",
    "recommendations", "reporting", "search", "shipping",
]
TEAMS = ["platform", "payments", "growth", "data", "core", "équipe-paris", "sre"]
ENVS = ["prod", "staging", "dev"]
AZS = ["us-east-1a", "us-east-1b", "us-east-1c"]
INSTANCE_TYPES = ["t3.micro", "t3.small", "t3.medium", "m6i.large", "m6i.xlarge", "c6i.2xlarge"]
OCI_REGIONS = ["phx", "iad", "fra", "lhr", "nrt", "gru"]
OCI_SHAPES = ["VM.Standard.E4.Flex", "VM.Standard3.Flex", "VM.Standard.A1.Flex"]
CF_SERVICES = {
    # for_each key -> (service offering name, plan name)
    "postgres": ("postgresql-db", "medium"),
    "redis": ("redis-cache", "small"),
    "rabbitmq": ("rabbitmq", "standard"),
    "s3": ("objectstore", "default"),
    "search": ("elasticsearch", "large"),
}
MANAGED_POLICIES = [
    "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
    "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy",
    "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
    "arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess",
    "arn:aws:iam::aws:policy/SecretsManagerReadWrite",
]
SSM_KEYS = ["DATABASE_URL", "FEATURE_FLAGS", "LOG_LEVEL", "SENTRY_DSN", "SMTP_PASSWORD",
            "API_TOKEN", "QUEUE_URL", "libellé_service"]
SECRET_SSM_KEYS = {"DATABASE_URL", "SENTRY_DSN", "SMTP_PASSWORD", "API_TOKEN"}
PASSWORD_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#$%*()-_=+[]{}:?"


# --------------------------------------------------------------------------- small value helpers

def hexs(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


def guid(rng):
    h = hexs(rng, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def ip10(rng):
    b = rng.getrandbits(24)
    return f"10.{b >> 16 & 255}.{b >> 8 & 255}.{(b & 255) or 1}"


def public_ip(rng):
    b = rng.getrandbits(24)
    return f"{rng.choice((3, 18, 34, 52, 54, 129, 132, 150))}.{b >> 16 & 255}.{b >> 8 & 255}.{(b & 255) or 1}"


def ocid(rng, kind, region="phx"):
    # Real OCIDs carry a 60-char base32 tail; keep that length so sizes are realistic.
    tail = base64.b32encode(rng.getrandbits(300).to_bytes(38, "big")).decode().lower()[:60]
    return f"ocid1.{kind}.oc1.{region}.{tail}"


def timestamp(rng, year=2026):
    m, d, hh, mm, ss = (rng.randint(1, 7), rng.randint(1, 28), rng.randint(0, 23),
                        rng.randint(0, 59), rng.randint(0, 59))
    return f"{year}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}Z"


def password(rng, n):
    return "".join(rng.choices(PASSWORD_CHARS, k=n))


def get_attr(*names):
    """A sensitive_attributes path of plain attribute steps."""
    return [{"type": "get_attr", "value": n} for n in names]


def key_suffix(key):
    return "" if key is None else f"-{key}"


# --------------------------------------------------------------------------- the plan

@dataclass
class Resource:
    module: str                 # "" for the root module
    mode: str                   # managed | data
    type: str
    name: str
    provider: str
    kind: str                   # builder name in BUILDERS
    keys: list                  # [None] for a single instance, else ints (count) or strs (for_each)
    ctx: dict                   # values shared by the module instance (app name, region, ids)
    deps: list = field(default_factory=list)
    cbd: bool = False           # lifecycle { create_before_destroy = true }
    deposed: dict = field(default_factory=dict)   # key -> [deposed ids]

    def sort_key(self):
        return (self.module, self.mode, self.type, self.name)

    def entries(self):
        return len(self.keys) + sum(len(v) for v in self.deposed.values())


class World:
    """Identifiers shared across the whole state (account, VPC, subnets, AMI)."""

    def __init__(self, rng):
        self.account = str(rng.randint(100000000000, 999999999999))
        self.region = "us-east-1"
        self.vpc_id = "vpc-" + hexs(rng, 17)
        self.subnets_private = ["subnet-" + hexs(rng, 17) for _ in AZS]
        self.subnets_public = {az: "subnet-" + hexs(rng, 17) for az in AZS}
        self.ami = "ami-" + hexs(rng, 17)
        self.bastion_sg = "sg-" + hexs(rng, 17)
        self.kms_key = f"arn:aws:kms:us-east-1:{self.account}:key/{guid(rng)}"
        self.cf_space = guid(rng)
        self.oci_compartment = ocid(rng, "compartment", "")
        self.oci_tenancy = ocid(rng, "tenancy", "")
        self.ssh_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + hexs(rng, 43) + " ops@statectl-bench"


def plan_resources(rng, n_entries, world):
    """Lay out modules and resources until the instance objects add up to exactly n_entries."""
    out = []
    remaining = n_entries

    def add(r):
        nonlocal remaining
        if remaining <= 0:
            return
        if r.entries() > remaining:
            # Trim the last resource so the total is exact: drop deposed objects first, then keys.
            r.deposed = {}
            r.keys = r.keys[:remaining]
        remaining -= r.entries()
        out.append(r)

    root = {"env": "prod", "app": "shared", "team": "platform"}
    add(Resource("", "data", "aws_caller_identity", "current", AWS, "caller_identity", [None], root))
    add(Resource("", "data", "aws_availability_zones", "available", AWS, "azs", [None], root))
    add(Resource("", "data", "aws_ami", "ubuntu", AWS, "ami", [None], root))
    add(Resource("", "managed", "aws_vpc", "main", AWS, "vpc", [None], root))
    add(Resource("", "managed", "aws_subnet", "private", AWS, "subnet", [0, 1, 2], root,
                 deps=["aws_vpc.main"]))
    add(Resource("", "managed", "aws_subnet", "public", AWS, "subnet", list(AZS), root,
                 deps=["aws_vpc.main"]))
    add(Resource("", "managed", "aws_security_group", "bastion", AWS, "sg", [None], root,
                 deps=["aws_vpc.main"]))
    add(Resource("", "managed", "aws_instance", "bastion", AWS, "instance", [None], root,
                 deps=["aws_security_group.bastion", "aws_subnet.public", "data.aws_ami.ubuntu"]))
    add(Resource("", "managed", "random_password", "db_master", RANDOM, "password", [None], root))
    add(Resource("", "managed", "aws_db_instance", "main", AWS, "db", [None], root,
                 deps=["aws_subnet.private", "random_password.db_master"]))
    add(Resource("", "managed", "terraform_data", "bootstrap", BUILTIN, "tfdata", [None], root))
    add(Resource("module.edge", "managed", "aws_security_group", "cdn", AWS_WEST, "sg", [None],
                 {"env": "prod", "app": "edge", "team": "platform"}))

    i = 0
    while remaining > 0:
        word = WORDS[i % len(WORDS)]
        app = f"{word}-{i // len(WORDS):03d}"
        mod = f'module.app["{app}"]'
        ctx = {"env": ENVS[rng.getrandbits(8) % 3 if i % 4 else 0], "app": app,
               "team": rng.choice(TEAMS)}
        # Web fleets dominate real big states; their count drives the size.
        n_web = rng.choice((1, 2, 3, 4, 4, 6, 8))
        cbd = rng.random() < 0.3
        web = Resource(mod, "managed", "aws_instance", "web", AWS, "instance", list(range(n_web)), ctx,
                       deps=sorted(["aws_subnet.private", "data.aws_ami.ubuntu",
                                    "module.app.aws_iam_role.app", "module.app.aws_security_group.web"]),
                       cbd=cbd)
        if cbd and rng.random() < 0.25:
            # A create_before_destroy replacement whose old object was not destroyed yet.
            k = rng.randrange(n_web)
            web.deposed[k] = sorted(hexs(rng, 8) for _ in range(1 + (rng.random() < 0.2)))
        add(Resource(mod, "data", "aws_iam_policy_document", "assume", AWS, "policy_doc", [None], ctx))
        add(Resource(mod, "managed", "aws_iam_role", "app", AWS, "role", [None], ctx,
                     deps=["module.app.data.aws_iam_policy_document.assume"]))
        add(Resource(mod, "managed", "aws_security_group", "web", AWS, "sg", [None], ctx,
                     deps=["aws_vpc.main"]))
        add(web)
        # The many small resources around a fleet (DNS, IAM, config, logs) are what keep the
        # average instance near 2.5 KB in real big states.
        add(Resource(mod, "managed", "aws_route53_record", "web", AWS, "dns", list(range(n_web)), ctx,
                     deps=["module.app.aws_instance.web"]))
        add(Resource(mod, "managed", "aws_iam_role_policy_attachment", "managed", AWS, "attachment",
                     sorted(rng.sample(MANAGED_POLICIES, rng.randint(2, 4))), ctx,
                     deps=["module.app.aws_iam_role.app"]))
        add(Resource(mod, "managed", "aws_ssm_parameter", "config", AWS, "ssm",
                     sorted(rng.sample(SSM_KEYS, rng.randint(3, 7))), ctx))
        add(Resource(mod, "managed", "aws_cloudwatch_log_group", "app", AWS, "log_group", [None], ctx))
        add(Resource(mod, "managed", "terraform_data", "release", BUILTIN, "tfdata", [None], ctx,
                     deps=["module.app.aws_instance.web"]))
        if rng.random() < 0.6:
            services = sorted(rng.sample(sorted(CF_SERVICES), rng.randint(1, 4)))
            add(Resource(mod, "managed", "cloudfoundry_service_instance", "svc", CF, "cf_service",
                         services, ctx))
        if rng.random() < 0.5:
            db_mod = mod + ".module.db[0]"
            add(Resource(db_mod, "managed", "aws_db_instance", "this", AWS, "db", [None], ctx,
                         deps=["aws_subnet.private", "module.app.module.db.aws_security_group.db",
                               "module.app.module.db.random_password.master"]))
            add(Resource(db_mod, "managed", "aws_security_group", "db", AWS, "sg", [None], ctx,
                         deps=["aws_vpc.main"]))
            add(Resource(db_mod, "managed", "random_password", "master", RANDOM, "password", [None], ctx))
        if i % 7 == 3:
            region = OCI_REGIONS[(i // 7) % len(OCI_REGIONS)]
            pool = f'module.oci_pool["{region}-{i // 7:03d}"]'
            pctx = {"env": ctx["env"], "app": app, "team": ctx["team"], "region": region}
            add(Resource(pool, "data", "oci_identity_availability_domains", "ads", OCI, "oci_ads", [None], pctx))
            add(Resource(pool, "managed", "oci_core_instance", "node", OCI, "oci_instance",
                         list(range(rng.choice((4, 8, 12, 20)))), pctx,
                         deps=["module.oci_pool.data.oci_identity_availability_domains.ads"]))
        i += 1
    return out


# --------------------------------------------------------------------------- attribute builders
# Each builder returns (attributes, sensitive_attributes, identity or None, tainted). Attribute sets
# follow the providers' real schemas (AWS 6.x, OCI 7.x, Cloud Foundry 1.x, random 3.x).

def aws_tags(r, key, extra=None):
    tags = {"Name": f"{r.ctx['app']}-{r.name}{key_suffix(key)}", "Environment": r.ctx["env"],
            "Team": r.ctx["team"], "ManagedBy": "terraform",
            "Repository": f"git.example.com/{r.ctx['team']}/{r.ctx['app']}"}
    if extra:
        tags.update(extra)
    return sorted_map(tags)


def b_instance(rng, w, r, key, deposed):
    iid = "i-" + hexs(rng, 17)
    az = AZS[rng.getrandbits(2) % 3]
    priv = ip10(rng)
    has_public = r.name == "bastion" or rng.random() < 0.2
    pub = public_ip(rng) if has_public else ""
    eni = "eni-" + hexs(rng, 17)
    itype = rng.choice(INSTANCE_TYPES)
    tags = aws_tags(r, key, {"Service": "web", "CostCenter": f"cc-{rng.randint(1000, 9999)}"}
                    if r.name == "web" else None)
    state = "stopped" if rng.random() < 0.02 else "running"
    root_size = rng.choice((8, 20, 30, 50, 100))
    attrs = obj(
        ami=w.ami,
        arn=f"arn:aws:ec2:{w.region}:{w.account}:instance/{iid}",
        associate_public_ip_address=has_public,
        availability_zone=az,
        capacity_reservation_specification=[obj(capacity_reservation_preference="open",
                                                capacity_reservation_target=[])],
        cpu_options=[obj(amd_sev_snp="", core_count=1 if "micro" in itype else 2,
                         threads_per_core=2)],
        credit_specification=[obj(cpu_credits="unlimited")] if itype.startswith("t3") else [],
        disable_api_stop=False,
        disable_api_termination=r.name == "bastion",
        ebs_block_device=[],
        ebs_optimized=not itype.startswith("t3"),
        enable_primary_ipv6=None,
        enclave_options=[obj(enabled=False)],
        ephemeral_block_device=[],
        get_password_data=False,
        hibernation=False,
        host_id="",
        host_resource_group_arn=None,
        iam_instance_profile=f"{r.ctx['app']}-profile" if r.name == "web" else "",
        id=iid,
        instance_initiated_shutdown_behavior="stop",
        instance_lifecycle="",
        instance_market_options=[],
        instance_state=state,
        instance_type=itype,
        ipv6_address_count=0,
        ipv6_addresses=[],
        key_name="ops-2026",
        launch_template=[],
        maintenance_options=[obj(auto_recovery="default")],
        metadata_options=[obj(http_endpoint="enabled", http_protocol_ipv6="disabled",
                              http_put_response_hop_limit=2, http_tokens="required",
                              instance_metadata_tags="disabled")],
        monitoring=rng.random() < 0.5,
        network_interface=[],
        outpost_arn="",
        password_data="",
        placement_group="",
        placement_partition_number=0,
        primary_network_interface=[obj(delete_on_termination=True, network_interface_id=eni)],
        primary_network_interface_id=eni,
        private_dns=f"ip-{priv.replace('.', '-')}.ec2.internal",
        private_dns_name_options=[obj(enable_resource_name_dns_a_record=False,
                                      enable_resource_name_dns_aaaa_record=False,
                                      hostname_type="ip-name")],
        private_ip=priv,
        public_dns=f"ec2-{pub.replace('.', '-')}.compute-1.amazonaws.com" if pub else "",
        public_ip=pub,
        region=w.region,
        root_block_device=[obj(delete_on_termination=True, device_name="/dev/sda1", encrypted=True,
                               iops=3000, kms_key_id=w.kms_key, tags=None, tags_all={},
                               throughput=125, volume_id="vol-" + hexs(rng, 17),
                               volume_size=root_size, volume_type="gp3")],
        secondary_private_ips=[],
        security_groups=[],
        source_dest_check=True,
        spot_instance_request_id="",
        subnet_id=w.subnets_private[rng.getrandbits(2) % 3],
        tags=tags,
        tags_all=tags,
        tenancy="default",
        timeouts=None,
        user_data=hexs(rng, 40),     # the provider stores a SHA-1 of user_data
        user_data_base64=None,
        user_data_replace_on_change=False,
        volume_tags=None,
        vpc_security_group_ids=sorted(["sg-" + hexs(rng, 17), w.bastion_sg]),
    )
    identity = obj(account_id=w.account, id=iid, region=w.region)
    tainted = not deposed and rng.random() < 0.003
    return attrs, [], identity, tainted


def sg_rule(port, cidrs, desc):
    return obj(cidr_blocks=cidrs, description=desc, from_port=port, ipv6_cidr_blocks=[],
               prefix_list_ids=[], protocol="tcp", security_groups=[], self=False, to_port=port)


def b_sg(rng, w, r, key, deposed):
    sid = "sg-" + hexs(rng, 17)
    ports = {"bastion": [22], "web": [80, 443, 8080], "db": [5432], "cdn": [443]}[r.name]
    ingress = [sg_rule(p, sorted({ip10(rng).rsplit(".", 2)[0] + ".0.0/16", "10.0.0.0/8"}),
                       f"{r.ctx['app']} {p}/tcp")
               for p in ports]
    egress = [obj(cidr_blocks=["0.0.0.0/0"], description="", from_port=0, ipv6_cidr_blocks=["::/0"],
                  prefix_list_ids=[], protocol="-1", security_groups=[], self=False, to_port=0)]
    name = f"{r.ctx['app']}-{r.name}-{hexs(rng, 6)}"
    attrs = obj(
        arn=f"arn:aws:ec2:{w.region}:{w.account}:security-group/{sid}",
        description=f"Managed by Terraform: {r.ctx['app']} {r.name}",
        egress=egress,
        id=sid,
        ingress=ingress,
        name=name,
        name_prefix="",
        owner_id=w.account,
        region=w.region,
        revoke_rules_on_delete=False,
        tags=aws_tags(r, key),
        tags_all=aws_tags(r, key),
        timeouts=None,
        vpc_id=w.vpc_id,
    )
    return attrs, [], None, False


def weighted(rng, table, default):
    """One value of (value, probability) pairs, by a single draw; `default` past their sum."""
    roll = rng.random()
    for value, probability in table:
        if roll < probability:
            return value
        roll -= probability
    return default


DB_STATUSES = (("available", 0.94), ("backing-up", 0.02), ("modifying", 0.02), ("creating", 0.02))


def b_db(rng, w, r, key, deposed):
    ident = f"{r.ctx['app']}-{r.ctx['env']}-db".replace("é", "e")
    status = weighted(rng, DB_STATUSES, "available")
    # A create that hit its timeout leaves the DB "creating" and the instance tainted; the other
    # transitional statuses come from refreshes during maintenance and are not tainted.
    tainted = status == "creating"
    host = f"{ident}.c{hexs(rng, 12)}.{w.region}.rds.amazonaws.com"
    engine_version = rng.choice(("15.8", "16.4", "16.6"))
    attrs = obj(
        address=host,
        allocated_storage=rng.choice((20, 50, 100, 500)),
        allow_major_version_upgrade=None,
        apply_immediately=False,
        arn=f"arn:aws:rds:{w.region}:{w.account}:db:{ident}",
        auto_minor_version_upgrade=True,
        availability_zone=AZS[rng.getrandbits(2) % 3],
        backup_retention_period=7,
        backup_target="region",
        backup_window="03:00-04:00",
        blue_green_update=[],
        ca_cert_identifier="rds-ca-rsa2048-g1",
        character_set_name="",
        copy_tags_to_snapshot=True,
        custom_iam_instance_profile="",
        customer_owned_ip_enabled=False,
        database_insights_mode="standard",
        db_name="app",
        db_subnet_group_name=f"{r.ctx['app']}-db",
        dedicated_log_volume=False,
        delete_automated_backups=True,
        deletion_protection=r.ctx["env"] == "prod",
        domain="",
        domain_auth_secret_arn="",
        domain_dns_ips=[],
        domain_fqdn="",
        domain_iam_role_name="",
        domain_ou="",
        enabled_cloudwatch_logs_exports=["postgresql", "upgrade"],
        endpoint=f"{host}:5432",
        engine="postgres",
        engine_lifecycle_support="open-source-rds-extended-support-disabled",
        engine_version=engine_version,
        engine_version_actual=engine_version,
        final_snapshot_identifier=f"{ident}-final",
        hosted_zone_id="Z2R2ITUGPM61AM",
        iam_database_authentication_enabled=False,
        id="db-" + base64.b32encode(rng.getrandbits(130).to_bytes(17, "big")).decode()[:26],
        identifier=ident,
        identifier_prefix="",
        instance_class=rng.choice(("db.t4g.medium", "db.r6g.large", "db.m6g.xlarge")),
        iops=0,
        kms_key_id=w.kms_key,
        latest_restorable_time="" if status == "creating" else timestamp(rng),
        license_model="postgresql-license",
        listener_endpoint=[],
        maintenance_window="sun:05:00-sun:06:00",
        manage_master_user_password=None,
        master_user_secret=[],
        master_user_secret_kms_key_id=None,
        max_allocated_storage=1000,
        monitoring_interval=60,
        monitoring_role_arn=f"arn:aws:iam::{w.account}:role/rds-monitoring",
        multi_az=r.ctx["env"] == "prod",
        nchar_character_set_name="",
        network_type="IPV4",
        option_group_name="default:postgres-16",
        parameter_group_name="default.postgres16",
        password=password(rng, 24),
        password_wo=None,
        password_wo_version=None,
        performance_insights_enabled=True,
        performance_insights_kms_key_id=w.kms_key,
        performance_insights_retention_period=7,
        port=5432,
        publicly_accessible=False,
        region=w.region,
        replica_mode="",
        replicas=[],
        replicate_source_db="",
        resource_id="db-" + hexs(rng, 26).upper(),
        restore_to_point_in_time=[],
        s3_import=[],
        skip_final_snapshot=False,
        snapshot_identifier=None,
        status=status,
        storage_encrypted=True,
        storage_throughput=0,
        storage_type="gp3",
        tags=aws_tags(r, key),
        tags_all=aws_tags(r, key),
        timeouts=None,
        timezone="",
        upgrade_storage_config=None,
        username="app_admin",
        vpc_security_group_ids=["sg-" + hexs(rng, 17)],
    )
    return attrs, [get_attr("password")], None, tainted


def b_password(rng, w, r, key, deposed):
    n = rng.choice((24, 32))
    attrs = obj(
        bcrypt_hash="$2a$10$" + base64.b64encode(rng.getrandbits(400).to_bytes(50, "big")).decode()[:53],
        id="none", keepers=None, length=n, lower=True, min_lower=0, min_numeric=0, min_special=0,
        min_upper=0, number=True, numeric=True, override_special="!#$%*()-_=+[]{}:?",
        result=password(rng, n), special=True, upper=True,
    )
    return attrs, [get_attr("bcrypt_hash"), get_attr("result")], None, False


def b_role(rng, w, r, key, deposed):
    name = f"{r.ctx['app']}-app".replace("é", "e")
    policy = json.dumps({"Statement": [{"Action": "sts:AssumeRole", "Effect": "Allow",
                                        "Principal": {"Service": "ec2.amazonaws.com"}}],
                         "Version": "2012-10-17"}, separators=(",", ":"))
    attrs = obj(
        arn=f"arn:aws:iam::{w.account}:role/{name}", assume_role_policy=policy,
        create_date=timestamp(rng, 2025), description=f"Runtime role of {r.ctx['app']}",
        force_detach_policies=False, id=name, inline_policy=[],
        managed_policy_arns=sorted(["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
                                    "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy"]),
        max_session_duration=3600, name=name, name_prefix="", path="/", permissions_boundary="",
        tags=aws_tags(r, key), tags_all=aws_tags(r, key), unique_id="AROA" + hexs(rng, 17).upper(),
    )
    return attrs, [], obj(account_id=w.account, name=name), False


def b_vpc(rng, w, r, key, deposed):
    attrs = obj(
        arn=f"arn:aws:ec2:{w.region}:{w.account}:vpc/{w.vpc_id}", assign_generated_ipv6_cidr_block=False,
        cidr_block="10.0.0.0/8", default_network_acl_id="acl-" + hexs(rng, 17),
        default_route_table_id="rtb-" + hexs(rng, 17), default_security_group_id="sg-" + hexs(rng, 17),
        dhcp_options_id="dopt-" + hexs(rng, 17), enable_dns_hostnames=True, enable_dns_support=True,
        enable_network_address_usage_metrics=False, id=w.vpc_id, instance_tenancy="default",
        ipv4_ipam_pool_id=None, ipv4_netmask_length=None, ipv6_association_id="", ipv6_cidr_block="",
        ipv6_cidr_block_network_border_group="", ipv6_ipam_pool_id="", ipv6_netmask_length=0,
        main_route_table_id="rtb-" + hexs(rng, 17), owner_id=w.account, region=w.region,
        tags=aws_tags(r, key), tags_all=aws_tags(r, key),
    )
    return attrs, [], None, False


def b_subnet(rng, w, r, key, deposed):
    sid = w.subnets_private[key] if isinstance(key, int) else w.subnets_public[key]
    az = AZS[key] if isinstance(key, int) else key
    attrs = obj(
        arn=f"arn:aws:ec2:{w.region}:{w.account}:subnet/{sid}", assign_ipv6_address_on_creation=False,
        availability_zone=az, availability_zone_id="use1-az" + az[-1], cidr_block=ip10(rng) + "/20",
        customer_owned_ipv4_pool="", enable_dns64=False, enable_lni_at_device_index=0,
        enable_resource_name_dns_a_record_on_launch=False,
        enable_resource_name_dns_aaaa_record_on_launch=False, id=sid, ipv6_cidr_block="",
        ipv6_cidr_block_association_id="", ipv6_native=False,
        map_customer_owned_ip_on_launch=False, map_public_ip_on_launch=not isinstance(key, int),
        outpost_arn="", owner_id=w.account, private_dns_hostname_type_on_launch="ip-name",
        region=w.region, tags=aws_tags(r, key), tags_all=aws_tags(r, key), timeouts=None,
        vpc_id=w.vpc_id,
    )
    return attrs, [], None, False


def b_tfdata(rng, w, r, key, deposed):
    version = f"v{rng.randint(1, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}"
    value = obj(commit=hexs(rng, 40), team=r.ctx["team"], version=version)
    typ = ["object", obj(commit="string", team="string", version="string")]
    attrs = obj(id=guid(rng), input=dyn(value, typ), output=dyn(value, typ),
                triggers_replace=dyn(version, "string") if r.name == "release" else None)
    return attrs, [], None, False


CF_OPS = (("succeeded", 0.9), ("in progress", 0.07), ("failed", 0.03))


def b_cf_service(rng, w, r, key, deposed):
    offering, plan = CF_SERVICES[key]
    state = weighted(rng, CF_OPS, "succeeded")
    # The provider polls last_operation for 40 min and still saves the instance when it gives up:
    # an unfinished or failed create is tainted. Updates never taint.
    op_type = "create" if state == "succeeded" or rng.random() < 0.7 else "update"
    tainted = state != "succeeded" and op_type == "create"
    desc = {"succeeded": f"{op_type.capitalize()} succeeded",
            "in progress": f"{offering}: {op_type} in progress ({rng.randint(5, 95)}% complete)",
            "failed": f"Service broker error: {offering} {op_type} failed: quota exceeded in org"}[state]
    created = timestamp(rng)
    params = json.dumps(obj(plan=plan, backups=True, ha=r.ctx["env"] == "prod"), separators=(",", ":"))
    attrs = obj(
        annotations=None, created_at=created, dashboard_url=None, id=guid(rng), labels=None,
        last_operation=obj(created_at=created, description=desc, state=state, type=op_type,
                           updated_at=created),
        maintenance_info=None, name=f"{r.ctx['app']}-{key}", parameters=params,
        replace_on_params_change=False, replace_on_service_plan_change=False, service_plan=guid(rng),
        space=w.cf_space, tags=[r.ctx["app"], key], timeouts=None, type="managed", updated_at=created,
        upgrade_available=False,
    )
    return attrs, [get_attr("parameters")], None, tainted


OCI_STATES = (("RUNNING", 0.93), ("PROVISIONING", 0.04), ("STOPPED", 0.02), ("STARTING", 0.01))


def b_oci_instance(rng, w, r, key, deposed):
    region = r.ctx["region"]
    state = weighted(rng, OCI_STATES, "RUNNING")
    # With async = true the provider returns at PROVISIONING and leaves network fields unset; the
    # others that are PROVISIONING timed out in the provider's waiter and are tainted.
    is_async = rng.random() < 0.5
    pending = state in ("PROVISIONING", "STARTING")
    tainted = pending and not is_async
    shape = rng.choice(OCI_SHAPES)
    ocpus = rng.choice((1, 2, 4))
    host = f"{r.ctx['app'].replace('é', 'e')}-node-{key}"
    subnet = ocid(rng, "subnet", region)
    priv, pub = ip10(rng), (public_ip(rng) if rng.random() < 0.3 else "")
    created = timestamp(rng).replace("T", " ").replace("Z", ".123 +0000 UTC")
    tags = sorted_map({"Oracle-Tags.CreatedBy": "default/ops@example.com",
                       "Oracle-Tags.CreatedOn": created[:19].replace(" ", "T") + ".123Z"})
    attrs = obj(
        agent_config=[obj(are_all_plugins_disabled=False, is_management_disabled=False,
                          is_monitoring_disabled=False,
                          plugins_config=[obj(desired_state="ENABLED", name="Compute Instance Monitoring"),
                                          obj(desired_state="DISABLED", name="Bastion")])],
        **{"async": is_async},      # a Python keyword, hence the ** form
        availability_config=[obj(is_live_migration_preferred=False, recovery_action="RESTORE_INSTANCE")],
        availability_domain=f"Uocm:{region.upper()}-AD-{1 + rng.getrandbits(2) % 3}",
        boot_volume_id=None if pending else ocid(rng, "bootvolume", region),
        capacity_reservation_id=None,
        cluster_placement_group_id=None,
        compartment_id=w.oci_compartment,
        compute_cluster_id=None,
        create_vnic_details=[obj(
            assign_ipv6ip=False, assign_private_dns_record=True,
            assign_public_ip=str(bool(pub)).lower(), defined_tags=tags,
            display_name=host, freeform_tags=obj(app=r.ctx["app"]), hostname_label=None if pending else host,
            ipv6address_ipv6subnet_cidr_pair_details=[], nsg_ids=[], private_ip=None if pending else priv,
            security_attributes={}, skip_source_dest_check=False, subnet_cidr=None,
            subnet_id=subnet, vlan_id=None)],
        dedicated_vm_host_id=None,
        defined_tags=tags,
        display_name=host,
        extended_metadata={},
        fault_domain=f"FAULT-DOMAIN-{1 + rng.getrandbits(2) % 3}",
        freeform_tags=obj(app=r.ctx["app"], env=r.ctx["env"], team=r.ctx["team"]),
        hostname_label=None if pending else host,
        id=ocid(rng, "instance", region),
        image=ocid(rng, "image", region),
        instance_configuration_id=None,
        instance_options=[obj(are_legacy_imds_endpoints_disabled=True)],
        ipxe_script=None,
        is_cross_numa_node=False,
        is_pv_encryption_in_transit_enabled=None,
        launch_mode="PARAVIRTUALIZED",
        launch_options=[obj(boot_volume_type="PARAVIRTUALIZED", firmware="UEFI_64",
                            is_consistent_volume_naming_enabled=True,
                            is_pv_encryption_in_transit_enabled=False,
                            network_type="PARAVIRTUALIZED", remote_data_volume_type="PARAVIRTUALIZED")],
        metadata=obj(ssh_authorized_keys=w.ssh_key),
        platform_config=[],
        preemptible_instance_config=[],
        preserve_boot_volume=False,
        private_ip=None if pending else priv,
        public_ip=None if pending else pub,
        region=region,
        shape=shape,
        shape_config=[obj(baseline_ocpu_utilization="", gpu_description="", gpus=0,
                          local_disk_description="", local_disks=0, local_disks_total_size_in_gbs=0,
                          max_vnic_attachments=2 * ocpus, memory_in_gbs=16 * ocpus,
                          networking_bandwidth_in_gbps=ocpus, nvmes=0, ocpus=ocpus,
                          processor_description="2.55 GHz AMD EPYC™ 7J13",
                          vcpus=2 * ocpus)],
        source_details=[obj(boot_volume_size_in_gbs="50", boot_volume_vpus_per_gb="10",
                            instance_source_image_filter_details=[], kms_key_id=None,
                            source_id=ocid(rng, "image", region), source_type="image")],
        state=state,
        subnet_id=None if pending else subnet,
        system_tags={},
        time_created=created,
        time_maintenance_reboot_due="",
        timeouts=None,
    )
    return attrs, [], None, tainted


def b_oci_ads(rng, w, r, key, deposed):
    region = r.ctx["region"].upper()
    ads = [obj(compartment_id=w.oci_tenancy, id=ocid(rng, "availabilitydomain", r.ctx["region"]),
               name=f"Uocm:{region}-AD-{n}") for n in (1, 2, 3)]
    attrs = obj(availability_domains=ads, compartment_id=w.oci_tenancy, filter=None,
                id="IdentityAvailabilityDomainsDataSource-" + str(rng.getrandbits(31)))
    return attrs, [], None, False


def b_caller_identity(rng, w, r, key, deposed):
    arn = f"arn:aws:sts::{w.account}:assumed-role/terraform-ci/session-{hexs(rng, 8)}"
    return obj(account_id=w.account, arn=arn, id=w.account, region=w.region,
               user_id="AROA" + hexs(rng, 17).upper() + ":session"), [], None, False


def b_azs(rng, w, r, key, deposed):
    return obj(all_availability_zones=None, exclude_names=None, exclude_zone_ids=None, filter=None,
               group_names=[w.region], id=w.region, names=list(AZS), region=w.region, state="available",
               timeouts=None, zone_ids=["use1-az1", "use1-az2", "use1-az4"]), [], None, False


def b_ami(rng, w, r, key, deposed):
    snap = "snap-" + hexs(rng, 17)
    name = "ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-20260301"
    attrs = obj(
        architecture="x86_64", arn=f"arn:aws:ec2:{w.region}::image/{w.ami}",
        block_device_mappings=[
            obj(device_name="/dev/sda1", ebs=sorted_map({
                "delete_on_termination": "true", "encrypted": "false", "iops": "0",
                "snapshot_id": snap, "throughput": "0", "volume_size": "8", "volume_type": "gp3"}),
                no_device="", virtual_name=""),
            obj(device_name="/dev/sdb", ebs={}, no_device="", virtual_name="ephemeral0"),
        ],
        boot_mode="uefi-preferred", creation_date="2026-03-01T06:12:44.000Z",
        deprecation_time="2028-03-01T06:12:44.000Z", description="Canonical, Ubuntu, 24.04, amd64 noble image",
        ena_support=True, executable_users=None,
        filter=[obj(name="name", values=["ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-*"]),
                obj(name="virtualization-type", values=["hvm"])],
        hypervisor="xen", id=w.ami, image_id=w.ami, image_location="amazon/" + name,
        image_owner_alias="amazon", image_type="machine", imds_support="", include_deprecated=False,
        kernel_id="", last_launched_time="", most_recent=True, name=name, name_regex=None,
        owner_id="099720109477", owners=["099720109477"], platform="", platform_details="Linux/UNIX",
        product_codes=[], public=True, ramdisk_id="", region=w.region, root_device_name="/dev/sda1",
        root_device_type="ebs", root_snapshot_id=snap, sriov_net_support="simple", state="available",
        state_reason=obj(code="UNSET", message="UNSET"), tags={}, timeouts=None, tpm_support="",
        uefi_data=None, usage_operation="RunInstances", virtualization_type="hvm",
    )
    return attrs, [], None, False


def b_policy_doc(rng, w, r, key, deposed):
    doc = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "sts:AssumeRole",
        "Principal": {"Service": "ec2.amazonaws.com"}}]}
    pretty = json.dumps(doc, indent=2)
    attrs = obj(
        id=str(rng.getrandbits(32)), json=pretty, minified_json=json.dumps(doc, separators=(",", ":")),
        override_policy_documents=None, policy_id=None, source_policy_documents=None,
        statement=[obj(actions=["sts:AssumeRole"], condition=[], effect="Allow", not_actions=[],
                       not_principals=[], not_resources=[],
                       principals=[obj(identifiers=["ec2.amazonaws.com"], type="Service")],
                       resources=[], sid="")],
        version="2012-10-17",
    )
    return attrs, [], None, False


def b_dns(rng, w, r, key, deposed):
    zone = "Z0" + hexs(rng, 19).upper()
    name = f"web-{key}.{r.ctx['app'].replace('é', 'e')}.{r.ctx['env']}.example.com"
    attrs = obj(
        alias=[], allow_overwrite=None, cidr_routing_policy=[], failover_routing_policy=[],
        fqdn=name, geolocation_routing_policy=[], geoproximity_routing_policy=[], health_check_id="",
        id=f"{zone}_{name}_A", latency_routing_policy=[], multivalue_answer_routing_policy=False,
        name=name, records=[ip10(rng)], set_identifier="", timeouts=None, ttl=300, type="A",
        weighted_routing_policy=[], zone_id=zone,
    )
    return attrs, [], None, False


def b_attachment(rng, w, r, key, deposed):
    role = f"{r.ctx['app']}-app".replace("é", "e")
    # The provider's id is the role name plus a creation timestamp and a sequence number.
    attrs = obj(id=f"{role}-2026{rng.getrandbits(32) % 10**10:010d}{rng.randint(1, 99):08d}",
                policy_arn=key, role=role)
    return attrs, [], None, False


def b_ssm(rng, w, r, key, deposed):
    name = f"/{r.ctx['app']}/{r.ctx['env']}/{key}"
    secret = key in SECRET_SSM_KEYS
    value = ("postgres://app:" + password(rng, 20) + f"@db.{r.ctx['env']}.internal:5432/app"
             if key == "DATABASE_URL" else password(rng, 32) if secret else
             {"LOG_LEVEL": "info", "FEATURE_FLAGS": "checkout_v2,search_beta",
              "QUEUE_URL": f"https://sqs.{w.region}.amazonaws.com/{w.account}/{r.ctx['app']}"}
             .get(key, "Étiquette: service " + r.ctx["app"]))
    attrs = obj(
        allowed_pattern="", arn=f"arn:aws:ssm:{w.region}:{w.account}:parameter{name}", data_type="text",
        description=f"{key} for {r.ctx['app']}", id=name, insecure_value=None,
        key_id="alias/aws/ssm" if secret else "", name=name, overwrite=None, region=w.region,
        tags=aws_tags(r, key), tags_all=aws_tags(r, key), tier="Standard",
        type="SecureString" if secret else "String", value=value, value_wo=None,
        value_wo_version=None, version=rng.randint(1, 12),
    )
    return attrs, [get_attr("value")], None, False


def b_log_group(rng, w, r, key, deposed):
    name = f"/aws/app/{r.ctx['app']}"
    attrs = obj(arn=f"arn:aws:logs:{w.region}:{w.account}:log-group:{name}", id=name, kms_key_id="",
                log_group_class="STANDARD", name=name, name_prefix="", region=w.region,
                retention_in_days=rng.choice((14, 30, 90, 365)), skip_destroy=False,
                tags=aws_tags(r, key), tags_all=aws_tags(r, key))
    return attrs, [], None, False


# kind -> (builder, schema_version, private blob or None)
BUILDERS = {
    "instance": (b_instance, 1, PRIVATE_AWS_INSTANCE),
    "sg": (b_sg, 1, PRIVATE_AWS_SG),
    "db": (b_db, 2, PRIVATE_AWS_DB),
    "password": (b_password, 3, None),
    "role": (b_role, 0, PRIVATE_AWS_PLAIN),
    "vpc": (b_vpc, 1, PRIVATE_AWS_PLAIN),
    "subnet": (b_subnet, 1, PRIVATE_AWS_PLAIN),
    "tfdata": (b_tfdata, 0, None),
    "cf_service": (b_cf_service, 0, None),
    "oci_instance": (b_oci_instance, 0, PRIVATE_OCI),
    "oci_ads": (b_oci_ads, 0, None),
    "caller_identity": (b_caller_identity, 0, None),
    "azs": (b_azs, 0, None),
    "ami": (b_ami, 0, None),
    "policy_doc": (b_policy_doc, 0, None),
    "dns": (b_dns, 2, PRIVATE_AWS_PLAIN),
    "attachment": (b_attachment, 0, None),
    "ssm": (b_ssm, 0, None),
    "log_group": (b_log_group, 0, None),
}


# --------------------------------------------------------------------------- Go-compatible output

def js(v):
    return json.dumps(v, ensure_ascii=False)


_encode_str = json.encoder.encode_basestring   # the C version, as with ensure_ascii=False
_INDENTS = ["\n" + " " * n for n in range(0, 200, 2)]


def _encode(v, depth, out):
    """Append v as json.dumps(v, indent=2, ensure_ascii=False) would, `depth` levels deep.
    A direct recursion: about twice as fast as the json module's pure-Python indent path, which
    is what bounds the generator's speed (json's C encoder cannot indent in Python 3.11)."""
    t = type(v)
    if t is str:
        out.append(_encode_str(v))
    elif t is dict:
        if not v:
            out.append("{}")
            return
        inner = _INDENTS[depth + 1]
        sep = "{" + inner
        for k, x in v.items():
            out.append(sep)
            out.append(_encode_str(k))
            out.append(": ")
            _encode(x, depth + 1, out)
            sep = "," + inner
        out.append(_INDENTS[depth] + "}")
    elif t is list:
        if not v:
            out.append("[]")
            return
        inner = _INDENTS[depth + 1]
        sep = "[" + inner
        for x in v:
            out.append(sep)
            _encode(x, depth + 1, out)
            sep = "," + inner
        out.append(_INDENTS[depth] + "]")
    elif v is None:
        out.append("null")
    elif t is bool:
        out.append("true" if v else "false")
    elif t is int:
        out.append(str(v))
    else:
        raise TypeError(f"gen_state: cannot encode {t.__name__} values the way Go would")


def nested(v, pad):
    """v indented as MarshalIndent would at a value starting `pad` spaces deep."""
    out = []
    _encode(v, pad // 2, out)
    return "".join(out)


class Stats:
    def __init__(self):
        self.resources = self.entries = self.tainted = self.deposed = 0
        self.transitional = 0
        self.sensitive = 0


def is_transitional(kind, attrs):
    if kind == "oci_instance":
        return attrs["state"] not in ("RUNNING", "STOPPED", "TERMINATED")
    if kind == "cf_service":
        return attrs["last_operation"]["state"] != "succeeded"
    if kind == "db":
        return attrs["status"] != "available"
    return False


def render_resource(seed, w, r, stats):
    """One element of "resources", at indent 4, without the trailing comma."""
    build, schema_version, private = BUILDERS[r.kind]
    # Seeding per resource address keeps each resource's content independent of the others, so a
    # change to the layout does not reshuffle every attribute. str seeds are hashed with SHA-512,
    # which does not depend on PYTHONHASHSEED.
    rng = random.Random(f"{seed}/{r.module}/{r.mode}.{r.type}.{r.name}")
    lines = ["    {"]
    if r.module:
        lines.append(f'      "module": {js(r.module)},')
    lines.append(f'      "mode": "{r.mode}",')
    lines.append(f'      "type": "{r.type}",')
    lines.append(f'      "name": "{r.name}",')
    lines.append(f'      "provider": {js(r.provider)},')
    lines.append('      "instances": [')
    objs = []
    for key in r.keys:
        for dk in [None] + r.deposed.get(key, []):
            attrs, sens, identity, tainted = build(rng, w, r, key, dk is not None)
            stats.entries += 1
            stats.tainted += tainted
            stats.deposed += dk is not None
            stats.sensitive += bool(sens)
            stats.transitional += is_transitional(r.kind, attrs)
            o = ["        {"]
            if key is not None:
                o.append(f'          "index_key": {js(key)},')
            if tainted:
                o.append('          "status": "tainted",')
            if dk is not None:
                o.append(f'          "deposed": "{dk}",')
            o.append(f'          "schema_version": {schema_version},')
            o.append(f'          "attributes": {nested(attrs, 10)},')
            o.append(f'          "sensitive_attributes": {nested(sens, 10)},')
            o.append('          "identity_schema_version": 0,')
            if identity is not None:
                o.append(f'          "identity": {nested(identity, 10)},')
            if private is not None and r.mode == "managed":
                o.append(f'          "private": "{private}",')
            if r.deps and r.mode == "managed":
                o.append(f'          "dependencies": {nested(sorted(r.deps), 10)},')
            if r.cbd:
                o.append('          "create_before_destroy": true,')
            o[-1] = o[-1][:-1]   # the last key has no comma
            o.append("        }")
            objs.append("\n".join(o))
    lines.append(",\n".join(objs))
    lines.append("      ]")
    lines.append("    }")
    text = "\n".join(lines)
    if "<" in text or ">" in text or "&" in text:
        # Go would write these as \u003c \u003e \u0026: refuse rather than emit a non-Go file.
        raise SystemExit(f"gen_state: generated value with <, > or & in {r.type}.{r.name}")
    stats.resources += 1
    return text


def instance_sort_key(k):
    # Terraform: no key first, then ints numerically, then strings byte-wise.
    if k is None:
        return (0, 0, "")
    if isinstance(k, int):
        return (1, k, "")
    return (2, 0, k)


def outputs_and_checks(w, res):
    by_addr = {(r.module, r.mode, r.type, r.name): r for r in res}
    web_ids = [f"{w.account}-web-{i}" for i in range(3)]
    outputs = {
        "account_id": {"value": w.account, "type": "string"},
        "db_master_password": {"value": "bench-not-a-secret", "type": "string", "sensitive": True},
        "private_subnet_ids": {"value": list(w.subnets_private), "type": ["list", "string"]},
        "release_tags": {"value": {"api": "v3.1.4", "web": "v2.7.1"}, "type": ["map", "string"]},
        "vpc_id": {"value": w.vpc_id, "type": "string"},
        "web_hosts": {"value": web_ids, "type": ["tuple", ["string", "string", "string"]]},
    }
    checks = []
    if ("", "managed", "aws_db_instance", "main") in by_addr:
        checks.append({"object_kind": "resource", "config_addr": "aws_db_instance.main", "status": "pass",
                       "objects": [{"object_addr": "aws_db_instance.main", "status": "pass"}]})
    checks.append({"object_kind": "check", "config_addr": "check.bastion_reachable", "status": "fail",
                   "objects": [{"object_addr": "check.bastion_reachable", "status": "fail",
                                "failure_messages": ["bastion did not answer on port 22 within 5s"]}]})
    checks.append({"object_kind": "output", "config_addr": "output.web_hosts", "status": "unknown",
                   "objects": None})
    return outputs, checks


def generate(n_entries, out_path, seed):
    t0 = time.perf_counter()
    rng = random.Random(seed)
    w = World(rng)
    res = plan_resources(rng, n_entries, w)
    for r in res:
        r.keys.sort(key=instance_sort_key)
    res.sort(key=Resource.sort_key)
    lineage = guid(random.Random(f"{seed}/lineage"))
    serial = 1000 + seed % 9000
    outputs, checks = outputs_and_checks(w, res)
    stats = Stats()
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("{\n")
        f.write('  "version": 4,\n')
        f.write(f'  "terraform_version": "{TERRAFORM_VERSION}",\n')
        f.write(f'  "serial": {serial},\n')
        f.write(f'  "lineage": "{lineage}",\n')
        f.write(f'  "outputs": {nested(outputs, 2)},\n')
        f.write('  "resources": [\n')
        for i, r in enumerate(res):
            if i:
                f.write(",\n")
            f.write(render_resource(seed, w, r, stats))
        f.write("\n  ],\n")
        f.write(f'  "check_results": {nested(checks, 2)}\n')
        f.write("}\n")
    os.replace(tmp, out_path)   # a half-written file never carries the final name
    size = os.path.getsize(out_path)
    print(f"gen_state: {out_path}: {size / 1e6:.1f} MB, {stats.resources} resources, "
          f"{stats.entries} instance objects ({stats.deposed} deposed), {stats.tainted} tainted, "
          f"{stats.transitional} transitional, {stats.sensitive} with sensitive_attributes, "
          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return stats


GO_INSTANCE_KEYS = ["index_key", "status", "deposed", "schema_version", "attributes", "attributes_flat",
                    "sensitive_attributes", "identity_schema_version", "identity", "private",
                    "dependencies", "create_before_destroy"]


def verify(path):
    """Check a state against the Go writer's rules (layout, key order, sorting); return problems.
    This checks this generator's own output: attributes must be cty-sorted, floats are refused."""
    problems = []
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")
    doc = json.loads(text)      # dicts keep the file's key order
    if nested(doc, 0) + "\n" != text:
        problems.append("layout differs from MarshalIndent(state, \"\", \"  \") + \"\\n\"")
    for ch in "<>&\u2028\u2029":
        if ch in text:
            problems.append(f"raw {ch!r}: Go would escape it")
    if list(doc) != ["version", "terraform_version", "serial", "lineage", "outputs", "resources",
                     "check_results"]:
        problems.append(f"top-level keys {list(doc)}")

    def cty_sorted(v, where):
        if isinstance(v, dict):
            keys = list(v)
            if keys != sorted(keys) and keys != ["value", "type"]:
                problems.append(f"{where}: keys not sorted: {keys[:6]}")
            for k, x in v.items():
                cty_sorted(x, where)
        elif isinstance(v, list):
            for x in v:
                cty_sorted(x, where)

    prev = None
    for r in doc["resources"]:
        addr = f"{r.get('module', '')} {r['mode']}.{r['type']}.{r['name']}"
        rk = (r.get("module", ""), r["mode"], r["type"], r["name"])
        if prev is not None and not prev < rk:
            problems.append(f"{addr}: resources out of order")
        prev = rk
        if [k for k in ("module", "mode", "type", "name", "provider", "instances") if k in r] != list(r):
            problems.append(f"{addr}: resource keys {list(r)}")
        prev_i = None
        for inst in r["instances"]:
            order = [k for k in GO_INSTANCE_KEYS if k in inst]
            if order != list(inst):
                problems.append(f"{addr}: instance keys {list(inst)}")
            ik = (instance_sort_key(inst.get("index_key")), inst.get("deposed", ""))
            if prev_i is not None and not prev_i < ik:
                problems.append(f"{addr}: instances out of order at {inst.get('index_key')!r}")
            prev_i = ik
            cty_sorted(inst["attributes"], addr)
            if len(problems) > 20:
                return problems
    return problems


def mixed_counts(k, total_bytes, rng, low=10e3, high=5e6):
    """Instance counts for k states from `low` to `high` bytes, about `total_bytes` in all.

    An organisation's states are mostly small with a few large ones: nine in ten spread evenly in
    log scale from `low` to a middle size m, the rest from m to `high`, with m found by bisection so
    that they add up to `total_bytes` (the sum grows with m). The smallest and the largest state
    are always there."""
    if not k * low <= total_bytes <= k * high or k < 20:
        raise SystemExit(f"gen_state: {k} states of {low:.0f} to {high:.0f} bytes cannot make {total_bytes:.0f}")
    small = k * 9 // 10

    def spread(a, b, n):
        return [a * (b / a) ** (i / (n - 1)) for i in range(n)]

    def sizes(middle):
        return spread(low, middle, small) + spread(middle, high, k - small)

    lo, hi = low, high
    for _ in range(60):
        mid = (lo + hi) / 2
        if sum(sizes(mid)) > total_bytes:
            hi = mid
        else:
            lo = mid
    counts = [max(1, round(size / BYTES_PER_INSTANCE)) for size in sizes(lo)]
    rng.shuffle(counts)
    return counts


def main(argv=None):
    p = argparse.ArgumentParser(description="Write large, realistic Terraform v4 state files.")
    p.add_argument("--instances", type=int, help="instance objects in the state (about 2.5 KB each)")
    p.add_argument("--out", help="output file")
    p.add_argument("--seed", type=int, default=1, help="the same seed gives the same bytes (default 1)")
    p.add_argument("--many", type=int, metavar="K", help="write K states instead of one")
    p.add_argument("--size-mb", type=float, metavar="M", help="with --many: about M MB each")
    p.add_argument("--total-mb", type=float, metavar="T",
                   help="with --many: states of mixed size, 10 KB to 5 MB, about T MB in all")
    p.add_argument("--out-dir", help="with --many: folder for state-NNN.tfstate")
    p.add_argument("--verify", metavar="FILE", nargs="+",
                   help="check generated states against the Go writer's rules instead of writing")
    a = p.parse_args(argv)
    if a.verify:
        bad = 0
        for path in a.verify:
            problems = verify(path)
            bad += bool(problems)
            print(f"gen_state: {path}: " + ("ok" if not problems else "\n  ".join(["FAILED"] + problems)),
                  file=sys.stderr)
        return 1 if bad else 0
    if a.many is not None:
        if (a.size_mb is None) == (a.total_mb is None) or a.out_dir is None or a.instances or a.out:
            p.error("--many needs --size-mb or --total-mb, and --out-dir (and not --instances/--out)")
        if a.many < 1 or (a.size_mb or a.total_mb) <= 0:
            p.error("--many and --size-mb/--total-mb must be positive")
        os.makedirs(a.out_dir, exist_ok=True)
        if a.size_mb is not None:
            counts = [max(1, round(a.size_mb * 1e6 / BYTES_PER_INSTANCE))] * a.many
        else:
            counts = mixed_counts(a.many, a.total_mb * 1e6, random.Random(a.seed))
        width = max(3, len(str(a.many - 1)))
        for i, n in enumerate(counts):
            # Distinct seeds give distinct lineages and contents, as separate workspaces would have.
            generate(n, os.path.join(a.out_dir, f"state-{i:0{width}d}.tfstate"), a.seed * 100003 + i)
        return 0
    if a.instances is None or a.out is None:
        p.error("--instances and --out are required (or --many, --size-mb, --out-dir)")
    if a.instances < 1:
        p.error("--instances must be at least 1")
    generate(a.instances, a.out, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
