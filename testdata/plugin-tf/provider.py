"""A protocol-6 provider written with Python's `tf` package, for statectl's plugin reader tests.

Its one resource, `pyasync_job`, is an async resource: its remote object is "creating" for a while
after Create returns, as a database or a cluster is. The "remote" is a JSON file the test controls
(`PYASYNC_REMOTE`): Create adds the job there as `creating`; Read returns whatever the file says
now, so a test finishes the creation behind Terraform's back by editing the file. `steps` is a
protocol-6 nested attribute (`nested_type`, a list of objects), which protocol 5 cannot express.
"""

import json
import os
import sys

from tf import runner, schema, types
from tf.gen import tfplugin_pb2 as pb
from tf.iface import Provider, Resource
from tf.utils import Diagnostics


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
        return {"id": job_id, **jobs[job_id]}

    def read(self, ctx, current):
        job = load().get(current["id"])
        if job is None:
            return None
        return {"id": current["id"], **job}

    def update(self, ctx, current, planned):
        return current

    def delete(self, ctx, current):
        jobs = load()
        jobs.pop(current["id"], None)
        save(jobs)


class PyAsync(Provider):
    def get_model_prefix(self):
        return "pyasync_"

    def full_name(self):
        return "statectl.example/test/pyasync"

    def get_provider_schema(self, diags):
        return schema.Schema(attributes=[])

    def validate_config(self, diags, config):
        pass

    def configure_provider(self, diags, config):
        pass

    def get_data_sources(self):
        return []

    def get_resources(self):
        return [Job]


if __name__ == "__main__":
    runner.run_provider(PyAsync(), sys.argv)
