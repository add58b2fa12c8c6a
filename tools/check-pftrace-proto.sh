#!/bin/sh
# Decode a dltrace .pftrace (or .pftrace.gz) with Perfetto's complete
# protos/perfetto/trace/perfetto_trace.proto, which is not part of this
# repository (take it from a checkout of github.com/google/perfetto), and
# fail on any field it does not declare.  The tests decode with the
# project's own .proto (tests/perfetto/dltrace_trace.proto), which cannot
# catch a field number that is wrong on both sides; this can.
#
#   tools/check-pftrace-proto.sh PERFETTO_TRACE_PROTO TRACE.pftrace[.gz]
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 PERFETTO_TRACE_PROTO TRACE.pftrace[.gz]" >&2
	exit 2
fi
proto=$1
trace=$2
command -v protoc >/dev/null || { echo "$0: protoc is missing (apt-get install protobuf-compiler)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$(od -An -tx1 -N2 "$trace" | tr -d ' ')" = 1f8b ]; then
	gzip -dc "$trace" >"$tmp/trace.pb"
else
	cat "$trace" >"$tmp/trace.pb"
fi
if ! protoc -I "$(dirname "$proto")" --decode=perfetto.protos.Trace "$(basename "$proto")" \
	<"$tmp/trace.pb" >"$tmp/trace.txt" 2>"$tmp/err"; then
	echo "$trace: protoc cannot decode it:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
# protoc prints a field its .proto does not declare as a bare number
if grep -nE '^ *[0-9]+(: | \{)' "$tmp/trace.txt" >"$tmp/unknown"; then
	echo "$trace: fields perfetto_trace.proto does not declare:" >&2
	head -5 "$tmp/unknown" >&2
	exit 1
fi
echo "$trace: $(grep -c '^packet {' "$tmp/trace.txt") packets," \
	"$(grep -c '^  track_event {' "$tmp/trace.txt") track events," \
	"$(grep -c '^  track_descriptor {' "$tmp/trace.txt") track descriptors decode with" \
	"$(basename "$proto"), no unknown field"
