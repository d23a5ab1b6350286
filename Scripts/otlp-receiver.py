#!/usr/bin/env python3
"""A small OTLP/HTTP trace receiver, for the tests of `--otel`.

Listens on 127.0.0.1 (a free port unless --port), prints `listening on http://127.0.0.1:PORT`,
and decodes each POST /v1/traces (protobuf, gzip or not) with PyPI's opentelemetry-proto. Each
span becomes one JSON line in --out: its trace, span and parent IDs (hex), name, kind, start and
end (nanoseconds since 1970), status code and message, attributes, and the service that sent it.

    python3 -m venv venv && venv/bin/pip install opentelemetry-proto
    venv/bin/python Scripts/otlp-receiver.py --out spans.jsonl
    python3 Scripts/otlp-receiver.py --discard      # a sink: needs no opentelemetry-proto
"""
import argparse
import gzip
import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer



def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def spans(request):
    for resource_spans in request.resource_spans:
        resource = {kv.key: value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "service": resource.get("service.name"),
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "status": span.status.code,
                    "statusMessage": span.status.message,
                    "attributes": {kv.key: value(kv.value) for kv in span.attributes},
                    "links": [link.span_id.hex() for link in span.links],
                }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the file of JSON lines, one a span (required unless --discard)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--discard", action="store_true",
                        help="answer every POST (traces, metrics) with success and drop it, undecoded: a sink for benchmarks")
    arguments = parser.parse_args()
    # A parent that ignores SIGTERM (a test process whose run ignores it) passes that on.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if arguments.discard:
        out = None
    elif arguments.out:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
        out = open(arguments.out, "a", buffering=1)
    else:
        parser.error("--out FILE or --discard")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if out is None:
                # An empty protobuf message: an export response with nothing rejected.
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.headers.get("Content-Encoding", "") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/traces":
                self.send_error(404, "only /v1/traces")
                return
            if "protobuf" not in self.headers.get("Content-Type", ""):
                self.send_error(415, "protobuf only")
                return
            request = trace_service_pb2.ExportTraceServiceRequest()
            request.ParseFromString(body)
            for span in spans(request):
                out.write(json.dumps(span, sort_keys=True) + "\n")
            answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
