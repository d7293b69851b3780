"""A protocol-6 provider written with Python's `tf` package, for statectl's plugin reader tests.

Its one resource, `pyasync_job`, is an async resource: its remote object is "creating" for a while
after Create returns, as a database or a cluster is. The "remote" is a JSON file the test controls
(`PYASYNC_REMOTE`): Create adds the job there as `creating`; Read returns whatever the file says
now, so a test finishes the creation behind Terraform's back by editing the file. `steps` is a
protocol-6 nested attribute (`nested_type`, a list of objects), which protocol 5 cannot express.

Resource identities, which `tf` 1.2.0 predates, are added here when `PYASYNC_IDENTITY_VERSION` is
set: GetResourceIdentitySchemas and UpgradeResourceIdentity as raw gRPC methods, and ReadResource's
`new_identity` (field 5) appended to tf's answer, all encoded by hand from tfplugin6.proto. Version 0
of the identity is `{job}`; version 1 is `{id, origin}`, and upgrading from 0 says so in `origin`.
ReadResource returns the identity it was sent, else one it makes (`origin` "read").

The provider block's `region` is copied into every job it creates or reads, so a test sees which
provider configuration a refresh used. `PYASYNC_MISBEHAVE` makes it fail as bad providers do:
`schema-hang` (GetProviderSchema never answers), `bad-value` (ReadResource returns a number where
the schema says string), `read-error` (ReadResource answers with an error diagnostic); and
`read-wait` holds each read (after creating `<PYASYNC_REMOTE>.reading`) until `<PYASYNC_REMOTE>.go`
exists, at most a minute, so that a test can act while a client is reading.
"""

import json
import os
import sys
import time

import grpc
import msgpack

import tf.provider
from tf import runner, schema, types
from tf.gen import tfplugin_pb2_grpc
from tf.gen import tfplugin_pb2 as pb
from tf.iface import Provider, Resource
from tf.utils import Diagnostics


def misbehaviour():
    return os.environ.get("PYASYNC_MISBEHAVE", "")


def remote_path():
    return os.environ["PYASYNC_REMOTE"]


def load():
    try:
        with open(remote_path()) as remote:
            return json.load(remote)
    except FileNotFoundError:
        return {}


def save(jobs):
    with open(remote_path() + ".tmp", "w") as remote:
        json.dump(jobs, remote, indent=2)
    os.replace(remote_path() + ".tmp", remote_path())


class Objects(types.TfType):
    """The value of a nested attribute: plain Python lists of dicts, as msgpack carries them."""

    def encode(self, value):
        return value

    def decode(self, value):
        return value

    def tf_type(self):
        return b""


class NestedList(schema.Attribute):
    """A nested attribute (protocol 6's `nested_type`) with list nesting; `tf` has none."""

    def __init__(self, name, attributes, **kwargs):
        super().__init__(name, Objects(), **kwargs)
        self.attributes = attributes

    def to_pb(self):
        attribute = super().to_pb()
        attribute.ClearField("type")
        attribute.nested_type.CopyFrom(
            pb.Schema.Object(
                attributes=[inner.to_pb() for inner in self.attributes],
                nesting=pb.Schema.Object.NestingMode.LIST,
            )
        )
        return attribute


class Job(Resource):
    def __init__(self, provider):
        self.provider = provider

    @classmethod
    def get_name(cls):
        return "job"

    @classmethod
    def get_schema(cls):
        return schema.Schema(
            version=1,
            attributes=[
                schema.Attribute("id", types.String(), computed=True),
                schema.Attribute("name", types.String(), required=True, requires_replace=True),
                schema.Attribute("status", types.String(), computed=True),
                schema.Attribute("endpoint", types.String(), computed=True),
                schema.Attribute("token", types.String(), computed=True, sensitive=True),
                schema.Attribute("region", types.String(), computed=True),
                NestedList(
                    "steps",
                    [
                        schema.Attribute("name", types.String(), computed=True),
                        schema.Attribute("state", types.String(), computed=True),
                    ],
                    computed=True,
                ),
            ],
        )

    def create(self, ctx, planned):
        jobs = load()
        job_id = "job-" + planned["name"]
        jobs[job_id] = {
            "name": planned["name"],
            "status": "creating",
            "endpoint": None,
            "token": None,
            "steps": [
                {"name": "provision", "state": "running"},
                {"name": "configure", "state": "pending"},
            ],
        }
        save(jobs)
        return {"id": job_id, **jobs[job_id], "region": self.provider.region}

    def read(self, ctx, current):
        if misbehaviour() == "read-error":
            ctx.diagnostics.add_error("the job API refused the request", "HTTP 403: the token has expired")
            return current
        if misbehaviour() == "read-wait":
            open(remote_path() + ".reading", "w").close()
            deadline = time.monotonic() + 60
            while not os.path.exists(remote_path() + ".go") and time.monotonic() < deadline:
                time.sleep(0.05)
        job = load().get(current["id"])
        if job is None:
            return None
        return {"id": current["id"], **job, "region": self.provider.region}

    def update(self, ctx, current, planned):
        return current

    def delete(self, ctx, current):
        jobs = load()
        jobs.pop(current["id"], None)
        save(jobs)


class PyAsync(Provider):
    region = None

    def get_model_prefix(self):
        return "pyasync_"

    def full_name(self):
        return "statectl.example/test/pyasync"

    def get_provider_schema(self, diags):
        return schema.Schema(attributes=[schema.Attribute("region", types.String(), optional=True)])

    def validate_config(self, diags, config):
        pass

    def configure_provider(self, diags, config):
        self.region = config.get("region")

    def get_data_sources(self):
        return []

    def get_resources(self):
        return [Job]


# --- Resource identities, by hand (protobuf wire format) ---

IDENTITY_ATTRIBUTES = {0: ["job"], 1: ["id", "origin"]}


def identity_version():
    version = os.environ.get("PYASYNC_IDENTITY_VERSION")
    return None if version is None else int(version)


def varint(number):
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, payload):
    """A length-delimited field (strings, bytes, messages)."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def fields(message):
    """Each (number, value) of a message: ints for varints, bytes for length-delimited fields."""
    position = 0
    while position < len(message):
        key, position = read_varint(message, position)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, position = read_varint(message, position)
        elif wire == 2:
            length, position = read_varint(message, position)
            value, position = message[position : position + length], position + length
        else:
            raise ValueError(f"wire type {wire}")
        yield number, value


def read_varint(message, position):
    number, shift = 0, 0
    while True:
        byte = message[position]
        position += 1
        number |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return number, position


def first(message, number):
    return next((value for n, value in fields(message) if n == number), None)


def identity_data(value):
    """ResourceIdentityData { DynamicValue identity_data = 1 { bytes msgpack = 1 } }."""
    return field(1, field(1, msgpack.packb(value)))


def identity_schemas(request, context):
    version = identity_version()
    attributes = b"".join(
        field(2, field(1, name.encode()) + field(2, b'"string"') + (b"\x18\x01" if i == 0 else b"\x20\x01"))
        for i, name in enumerate(IDENTITY_ATTRIBUTES[version])
    )
    schema_message = b"\x08" + varint(version) + attributes
    entry = field(1, b"pyasync_job") + field(2, schema_message)
    return field(1, entry)


def upgrade_identity(request, context):
    version = first(request, 2) or 0
    raw = first(request, 3)
    old = json.loads(first(raw, 1))
    if version == 0 and identity_version() == 1:
        new = {"id": old["job"], "origin": "upgraded from 0"}
    else:
        new = old
    return field(1, identity_data(new))


class IdentityServicer(tf.provider.ProviderServicer):
    def GetProviderSchema(self, request, context):
        if misbehaviour() == "schema-hang":
            time.sleep(3600)
        return super().GetProviderSchema(request, context)

    def ReadResource(self, request, context):
        response = super().ReadResource(request, context)
        if misbehaviour() == "bad-value" and response.HasField("new_state"):
            state = msgpack.unpackb(response.new_state.msgpack)
            state["status"] = 7
            response.new_state.msgpack = msgpack.packb(state)
        version = identity_version()
        if version is None or not response.HasField("new_state"):
            return response
        state = msgpack.unpackb(response.new_state.msgpack)
        if state is None:
            return response
        sent = first(request.SerializeToString(), 6)
        if sent is not None:
            new_identity = field(5, sent)
        elif version == 0:
            new_identity = field(5, identity_data({"job": state["id"]}))
        else:
            new_identity = field(5, identity_data({"id": state["id"], "origin": "read"}))
        response.MergeFromString(new_identity)
        return response


def add_provider(servicer, server, add=tfplugin_pb2_grpc.add_ProviderServicer_to_server):
    add(servicer, server)
    if identity_version() is not None:
        raw = {"request_deserializer": None, "response_serializer": None}
        server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    "tfplugin6.Provider",
                    {
                        "GetResourceIdentitySchemas": grpc.unary_unary_rpc_method_handler(identity_schemas, **raw),
                        "UpgradeResourceIdentity": grpc.unary_unary_rpc_method_handler(upgrade_identity, **raw),
                    },
                ),
            )
        )


if __name__ == "__main__":
    tf.provider.ProviderServicer = IdentityServicer
    tfplugin_pb2_grpc.add_ProviderServicer_to_server = add_provider
    runner.run_provider(PyAsync(), sys.argv)
