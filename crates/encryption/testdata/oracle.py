#!/usr/bin/env python3
"""An implementation of OpenTofu's state encryption that shares no code with statectl: written
from OpenTofu's sources (internal/encryption/base.go, state.go, keyprovider/pbkdf2/,
method/aesgcm/) on the `cryptography` package. The tests use it as an oracle.

  oracle.py encrypt OPTIONS < plaintext-state > envelope
  oracle.py decrypt OPTIONS < envelope > plaintext-state

OPTIONS: --provider ADDRESS (the meta key, e.g. key_provider.pbkdf2.main), --hash sha256|sha512,
--iterations N, --key-length N, --salt-length N, --aad HEX. The passphrase comes from the
ORACLE_PASSPHRASE environment variable, never from the command line.
"""

import argparse
import base64
import json
import os
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

HASHES = {"sha256": hashes.SHA256, "sha512": hashes.SHA512}


def derive(passphrase, salt, iterations, key_length, hash_name):
    kdf = PBKDF2HMAC(algorithm=HASHES[hash_name](), length=key_length, salt=salt, iterations=iterations)
    return kdf.derive(passphrase)


def encrypt(args, passphrase, plaintext):
    state = json.loads(plaintext)
    salt = os.urandom(args.salt_length)
    key = derive(passphrase, salt, args.iterations, args.key_length, args.hash)
    nonce = os.urandom(12)
    sealed = nonce + AESGCM(key).encrypt(nonce, plaintext, bytes.fromhex(args.aad) or None)
    # Go marshals the pbkdf2 Metadata struct in field order.
    meta = json.dumps(
        {"salt": base64.b64encode(salt).decode(), "iterations": args.iterations,
         "hash_function": args.hash, "key_length": args.key_length},
        separators=(",", ":"))
    envelope = {
        "serial": state.get("serial"),
        "lineage": state.get("lineage", ""),
        "meta": {args.provider: base64.b64encode(meta.encode()).decode()},
        "encrypted_data": base64.b64encode(sealed).decode(),
        "encryption_version": "v0",
    }
    return json.dumps(envelope, separators=(",", ":")).encode()


def decrypt(args, passphrase, stored):
    envelope = json.loads(stored)
    if envelope.get("encryption_version") != "v0":
        raise SystemExit("not a v0 envelope")
    meta = json.loads(base64.b64decode(envelope["meta"][args.provider]))
    key = derive(passphrase, base64.b64decode(meta["salt"]), meta["iterations"], meta["key_length"],
                 meta["hash_function"])
    data = base64.b64decode(envelope["encrypted_data"])
    return AESGCM(key).decrypt(data[:12], data[12:], bytes.fromhex(args.aad) or None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["encrypt", "decrypt"])
    parser.add_argument("--provider", required=True)
    parser.add_argument("--hash", default="sha512", choices=sorted(HASHES))
    parser.add_argument("--iterations", type=int, default=600000)
    parser.add_argument("--key-length", type=int, default=32)
    parser.add_argument("--salt-length", type=int, default=32)
    parser.add_argument("--aad", default="")
    args = parser.parse_args()
    passphrase = os.environ["ORACLE_PASSPHRASE"].encode()
    data = sys.stdin.buffer.read()
    out = encrypt(args, passphrase, data) if args.mode == "encrypt" else decrypt(args, passphrase, data)
    sys.stdout.buffer.write(out)


if __name__ == "__main__":
    main()
