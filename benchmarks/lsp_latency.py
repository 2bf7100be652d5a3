"""Time ``torchperf-lint server`` from ``didChange`` to ``publishDiagnostics``, against the command line.

    python benchmarks/lsp_latency.py [--rounds 30]

Two documents, copied into a temporary project: a 100-line kernel file (the first 100 lines of the
reference kernels' ``routers.py``) and the largest file of the lint speed corpus (found in the
installed torch package without importing it). One server process, started through the console
script, holds both open; the script speaks LSP to it over stdio like an editor. Each edit adds or
removes a last line holding one ``.cuda()`` call, so every version has new text and the findings
change; the time runs from writing the ``didChange`` to reading the diagnostics for that version.

Edits come after a pause longer than the server's debounce, as a single edit or a paste arrives; a
burst of typing (``--burst`` changes, 30 ms apart) is also timed, from its last change, and shows the
debounce. The command line lints the large file as a whole process, start to exit, in the same
rounds (round-robin), so a slow spell of this shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from lint_speed import corpus_sources, run_once

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "reference_kernels" / "routers.py"
KERNEL_LINES = 100
PROBE = "probe = torch.zeros(1).cuda()\n"
PAUSE = 0.3  # seconds between edits: longer than the server's 150 ms debounce
BURST_GAP = 0.03
TIMEOUT = 120.0


class Server:
    """A language server process and the JSON-RPC messages it sends, read on a thread of their own."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages: queue.Queue[tuple[float, dict]] = queue.Queue()
        self._ids = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line:
                return
            body = stream.read(length)
            self.messages.put((time.perf_counter(), json.loads(body)))

    def send(self, method: str, params: object, *, request: bool = False) -> tuple[float, int | None]:
        """Write one message; the moment it was written, and its id for a request."""
        message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self._ids += 1
            message["id"] = self._ids
        body = json.dumps(message).encode()
        stdin = self.process.stdin
        assert stdin is not None
        sent = time.perf_counter()
        stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        stdin.flush()
        return sent, message.get("id")  # type: ignore[return-value]

    def wait(self, matches) -> tuple[float, dict]:
        deadline = time.perf_counter() + TIMEOUT
        while True:
            received, message = self.messages.get(timeout=max(0.0, deadline - time.perf_counter()))
            if matches(message):
                return received, message

    def request(self, method: str, params: object) -> dict:
        _, ident = self.send(method, params, request=True)
        return self.wait(lambda m: m.get("id") == ident and "method" not in m)[1]

    def close(self) -> None:
        self.request("shutdown", None)
        self.send("exit", None)
        self.process.wait(TIMEOUT)


@dataclass
class Document:
    """An open document whose last line is toggled between nothing and ``PROBE``."""

    server: Server
    path: Path
    text: str
    version: int = 1
    latencies: list[float] = field(default_factory=list)

    @property
    def uri(self) -> str:
        return self.path.as_uri()

    def open(self) -> None:
        item = {"uri": self.uri, "languageId": "python", "version": 1, "text": self.text}
        self.server.send("textDocument/didOpen", {"textDocument": item})
        self._published(1)

    def edit(self) -> float:
        """Toggle the probe line; the seconds until this version's diagnostics arrived."""
        sent = self._toggle()
        return self._published(self.version) - sent

    def burst(self, changes: int) -> float:
        """``changes`` edits ``BURST_GAP`` apart; seconds from the last one to its diagnostics."""
        for _ in range(changes - 1):
            self._toggle()
            time.sleep(BURST_GAP)
        return self.edit()

    def _toggle(self) -> float:
        lines = self.text.count("\n")
        if self.text.endswith(PROBE):
            start, end, new = {"line": lines - 1, "character": 0}, {"line": lines, "character": 0}, ""
            self.text = self.text.removesuffix(PROBE)
        else:
            start = end = {"line": lines, "character": 0}
            new, self.text = PROBE, self.text + PROBE
        self.version += 1
        change = {"range": {"start": start, "end": end}, "text": new}
        document = {"uri": self.uri, "version": self.version}
        sent, _ = self.server.send(
            "textDocument/didChange", {"textDocument": document, "contentChanges": [change]}
        )
        return sent

    def _published(self, version: int) -> float:
        def matches(message: dict) -> bool:
            params = message.get("params") or {}
            return (
                message.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == self.uri
                and params.get("version") == version
            )

        received, _ = self.server.wait(matches)
        return received


def kernel_text() -> str:
    """The first 100 lines of ``routers.py``, or fewer, ending at a statement, if a cut there would
    not parse (the file is edited over time)."""
    lines = KERNEL.read_text(encoding="utf-8").splitlines(keepends=True)
    text = "".join(lines[:KERNEL_LINES])
    try:
        ast.parse(text)
    except SyntaxError:
        tree = ast.parse("".join(lines))
        last = max(node.end_lineno or 0 for node in tree.body if (node.end_lineno or 0) <= KERNEL_LINES)
        text = "".join(lines[:last])
    return text


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def milliseconds(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms, p95 {percentile(values, 0.95) * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="edits per document (and command-line runs)")
    parser.add_argument("--burst", type=int, default=5, help="changes per typing burst")
    args = parser.parse_args(argv)
    console_script = Path(sys.executable).with_name("torchperf-lint")
    large_source = max(corpus_sources(), key=lambda path: path.stat().st_size)
    with tempfile.TemporaryDirectory() as temporary:
        project = Path(temporary)
        (project / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
        (project / "kernel.py").write_text(kernel_text())
        (project / large_source.name).write_bytes(large_source.read_bytes())
        env_note = f"torch {version('torch')} sources, {os.cpu_count()} cores, {args.rounds} rounds"
        print(f"lsp_latency: {env_note}; large file: torch/{large_source.relative_to(large_source.parents[1])}")
        results = measure(console_script, project, large_source.name, args)
    report(results)
    return 0


def measure(
    console_script: Path, project: Path, large_name: str, args: argparse.Namespace
) -> dict[str, list[float]]:
    server = Server([str(console_script), "server"], project)
    capabilities = {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}
    folder = {"uri": project.as_uri(), "name": project.name}
    server.request(
        "initialize", {"processId": os.getpid(), "capabilities": capabilities, "workspaceFolders": [folder]}
    )
    server.send("initialized", {})
    small = Document(server, project / "kernel.py", (project / "kernel.py").read_text())
    large = Document(server, project / large_name, (project / large_name).read_text())
    small.open()
    large.open()
    command = [str(console_script), "check", "--no-cache", "-q", "--exit-zero"]
    results: dict[str, list[float]] = {"small": [], "large": [], "cli small": [], "cli large": [], "burst": []}
    for _ in range(args.rounds):
        for key, document in (("small", small), ("large", large)):
            time.sleep(PAUSE)
            results[key].append(document.edit())
        results["cli small"].append(run_once([*command, "kernel.py"], project)[0])
        results["cli large"].append(run_once([*command, large_name], project)[0])
        time.sleep(PAUSE)
        results["burst"].append(small.burst(args.burst))
    server.close()
    results["lines"] = [small.text.count("\n"), large.text.count("\n")]
    return results


def report(results: dict[str, list[float]]) -> None:
    small_lines, large_lines = results.pop("lines")
    cli_large = statistics.median(results["cli large"])
    small_median = statistics.median(results["small"])
    large_median = statistics.median(results["large"])
    print("\n| document | lines | didChange to publishDiagnostics | command line, start to exit |")
    print("| --- | --- | --- | --- |")
    print(f"| 100-line kernel | {small_lines} | {milliseconds(results['small'])} | "
          f"median {statistics.median(results['cli small']):.2f} s |")  # fmt: skip
    print(f"| largest corpus file | {large_lines} | {milliseconds(results['large'])} | median {cli_large:.2f} s |")
    print(f"\nend of a typing burst on the kernel, last change to diagnostics: {milliseconds(results['burst'])}")
    verdict = "met" if small_median < 0.05 else "NOT met"
    print(f"target: kernel median under 50 ms: {small_median * 1000:.0f} ms, {verdict}")
    verdict = "met" if large_median < cli_large else "NOT met"
    print(f"target: large file under the command line's time: {large_median / cli_large:.2f} of it, {verdict}")


if __name__ == "__main__":
    sys.exit(main())
