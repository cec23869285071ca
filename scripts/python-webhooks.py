"""A TokenReview and SubjectAccessReview webhook over HTTPS, in Python, for
scripts/python-extensions.sh: `alice-token` is alice in group `dev`; alice may get and
list ConfigMaps, is denied Secrets with a reason, and the webhook has no opinion on the
rest. Usage: python-webhooks.py PORT CERT KEY (serves until killed).
"""

import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


def token_review(spec):
    if spec.get("token") == "alice-token":
        user = {"username": "alice", "uid": "42", "groups": ["dev"]}
        return {"authenticated": True, "user": user}
    return {"authenticated": False, "error": "unknown token"}


def access_review(spec):
    attrs = spec.get("resourceAttributes") or {}
    if spec.get("user") != "alice":
        return {"allowed": False}
    if attrs.get("resource") == "configmaps" and attrs.get("verb") in ("get", "list"):
        return {"allowed": True, "reason": "alice reads configmaps"}
    if attrs.get("resource") == "secrets":
        return {"allowed": False, "denied": True, "reason": "secrets are not for alice"}
    return {"allowed": False}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = {"/authenticate": token_review, "/authorize": access_review}[self.path]
        review["status"] = answer(review.get("spec", {}))
        body = json.dumps(review).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main(port, cert, key):
    server = HTTPServer(("127.0.0.1", int(port)), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("serving", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:4])
