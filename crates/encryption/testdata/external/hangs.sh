#!/usr/bin/env bash
# A key provider that never answers (and has a child holding its stdout open).
echo '{"magic":"OpenTofu-External-Key-Provider","version":1}'
sleep 30
