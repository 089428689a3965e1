"""A JupyterHub and a student's Jupyter server as a browser's notebook front end uses them: the hub's
REST API (users, servers), the server's contents API (files) and a kernel over its websocket
(execute a cell, read what it printed). Only the standard library and tornado (Jupyter's own
web framework, already in the project's environment)."""
from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass


class JupyterError(RuntimeError):
    pass


@dataclass
class Api:
    """HTTP calls with a token, on a base URL (the hub's, or a user's server through the hub's proxy)."""
    base: str     # e.g. http://127.0.0.1:8000/hub/api or http://127.0.0.1:8000/user/alice
    token: str

    def call(self, method: str, path: str, body=None, timeout: float = 60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base.rstrip("/") + "/" + path.lstrip("/"), data=data, method=method,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as e:
            raise JupyterError(f"{method} {req.full_url}: {e.code} {e.read().decode(errors='replace')[:500]}") from None
        return json.loads(text) if text.strip() else None


class Hub(Api):
    def add_users(self, *names: str) -> None:
        self.call("POST", "users", {"usernames": list(names)})

    def spawn(self, name: str) -> None:
        self.call("POST", f"users/{name}/server", {})

    def wait_ready(self, name: str, timeout: float = 900) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            server = (self.call("GET", f"users/{name}").get("servers") or {}).get("")
            if server and server.get("ready"):
                return server
            if not server:   # the spawn failed: JupyterHub forgets the server (its log says why)
                raise JupyterError(f"{name}'s server is gone before it was ready")
            time.sleep(2)
        raise JupyterError(f"{name}'s server was not ready after {timeout:.0f} s")

    def stop(self, name: str) -> None:
        self.call("DELETE", f"users/{name}/server")


class Server(Api):
    """A user's single-user server (base: the hub's public URL + /user/<name>)."""

    def mkdir(self, path: str) -> None:
        self.call("PUT", f"api/contents/{path}", {"type": "directory"})

    def put_text(self, path: str, text: str) -> None:
        self.call("PUT", f"api/contents/{path}", {"type": "file", "format": "text", "content": text})

    def get_text(self, path: str) -> str:
        doc = self.call("GET", f"api/contents/{path}?type=file&format=text&content=1")
        return doc["content"]

    def execute(self, code: str, timeout: float = 1800) -> tuple[str, str]:
        """Start a kernel, run one cell in it, shut it down: (the reply's status, what the cell printed)."""
        kernel = self.call("POST", "api/kernels", {"name": "python3"})
        try:
            return asyncio.run(self._execute(kernel["id"], code, timeout))
        finally:
            self.call("DELETE", f"api/kernels/{kernel['id']}")

    async def _execute(self, kernel_id: str, code: str, timeout: float) -> tuple[str, str]:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = self.base.replace("http", "ws", 1).rstrip("/") + f"/api/kernels/{kernel_id}/channels"
        ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {self.token}"}),
                                     ping_interval=20)
        msg_id, session = uuid.uuid4().hex, uuid.uuid4().hex
        ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "session": session, "username": "test", "msg_type": "execute_request",
                       "version": "5.3", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        out, status, idle = [], None, False
        end = time.monotonic() + timeout
        try:
            while status is None or not idle:
                left = end - time.monotonic()
                if left <= 0:
                    raise JupyterError(f"the cell did not finish in {timeout:.0f} s; it printed: {''.join(out)[-2000:]}")
                raw = await asyncio.wait_for(ws.read_message(), left)
                if raw is None:
                    raise JupyterError(f"the kernel's websocket closed; the cell printed: {''.join(out)[-2000:]}")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["header"]["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(content["text"])
                elif kind == "error":
                    out.append("\n".join(content.get("traceback", [])) or f"{content['ename']}: {content['evalue']}")
                elif kind == "execute_reply":
                    status = content["status"]
                elif kind == "status" and content.get("execution_state") == "idle":
                    idle = True
        finally:
            ws.close()
        return status, "".join(out)
