#!/usr/bin/env python3
"""Local stand-in for the arXiv export API and the Semantic Scholar Graph API.

Used by tests/dft-papers.bats.  Listens on 127.0.0.1 on an ephemeral port,
writes the port to PORTFILE, and logs one line per request to LOGFILE:
"<monotonic seconds> <path> key=<x-api-key or ->".

The first path component picks the behaviour:
  /ok/...           recorded answers (arxiv: api/query, s2: paper/search);
                    /ok-NAME/ the same, its own lines in the log for a test
                    that counts its requests
  /empty/...        an empty Atom feed (totalResults 0) every time
  /empty-once/...   an empty feed first, the recorded feed afterwards
  /error/...        an arXiv error feed
  /429/...          429 with Retry-After: 1 first, then the recorded answer
  /429-long/...     429 with Retry-After: 120 every time
  /500/...          500 twice, then the recorded answer
  /500-always/...   500 every time
  /stall/...        accepts the request and never answers
  /reset/...        closes the connection without an answer the first
                    time, then the recorded answer
  /key/...          403 unless x-api-key is "test-key"
  /big/...          a 50 MB body, sent as it is made, with no length
  /bomb/...         200 MB of zeros as a 200 KB gzip (Content-Encoding)
Answers are read from the fixtures directory: arxiv.atom, arxiv-empty.atom,
arxiv-error.atom, s2.json.
"""
import gzip
import http.server
import os
import socketserver
import sys
import threading
import time

FIXTURES, PORTFILE, LOGFILE = sys.argv[1], sys.argv[2], sys.argv[3]
COUNTS = {}
LOCK = threading.Lock()
BOMB = None


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, code, body, ctype, extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def recorded(self, path):
        if "/paper/search" in path:
            self.send(200, fixture("s2.json"), "application/json")
        else:
            self.send(200, fixture("arxiv.atom"), "application/atom+xml")

    def do_GET(self):
        mode = self.path.split("/")[1]
        key = self.headers.get("x-api-key", "-")
        with LOCK:
            n = COUNTS.get(mode, 0) + 1
            COUNTS[mode] = n
            with open(LOGFILE, "a") as log:
                log.write("%.3f %s key=%s\n" % (time.monotonic(), self.path, key))
        if mode == "ok" or mode.startswith("ok-"):
            self.recorded(self.path)
        elif mode == "empty":
            self.send(200, fixture("arxiv-empty.atom"), "application/atom+xml")
        elif mode == "empty-once":
            if n == 1:
                self.send(200, fixture("arxiv-empty.atom"), "application/atom+xml")
            else:
                self.recorded(self.path)
        elif mode == "error":
            self.send(200, fixture("arxiv-error.atom"), "application/atom+xml")
        elif mode == "429":
            if n == 1:
                self.send(429, b"rate limited\n", "text/plain", {"Retry-After": "1"})
            else:
                self.recorded(self.path)
        elif mode == "429-long":
            self.send(429, b"rate limited\n", "text/plain", {"Retry-After": "120"})
        elif mode == "500":
            if n <= 2:
                self.send(500, b"oops\n", "text/plain")
            else:
                self.recorded(self.path)
        elif mode == "500-always":
            self.send(500, b"oops\n", "text/plain")
        elif mode == "stall":
            time.sleep(30)
        elif mode == "reset":
            if n == 1:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.recorded(self.path)
        elif mode == "big":
            self.send_response(200)
            self.send_header("Content-Type", "application/atom+xml")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            chunk = b"<feed>" + b"x" * (1 << 20)
            try:
                for _ in range(50):
                    self.wfile.write(chunk)
            except OSError:
                pass
        elif mode == "bomb":
            global BOMB
            with LOCK:
                if BOMB is None:
                    BOMB = gzip.compress(b"\0" * (200 << 20), 9)
            self.send(200, BOMB, "application/atom+xml",
                      {"Content-Encoding": "gzip"})
        elif mode == "key":
            if key == "test-key":
                self.recorded(self.path)
            else:
                self.send(403, b"forbidden\n", "text/plain")
        else:
            self.send(404, b"not found\n", "text/plain")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, PORTFILE)
    srv.serve_forever()


if __name__ == "__main__":
    main()
