"""``--cluster`` over Dask's TLS, with docs/CLUSTER.md's commands: a run through the TLS options
completes; a TLS address without them, and a plain connection to a TLS scheduler, are each
refused in one line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.bench.cluster import TlsFiles

from .conftest import start_local_cluster
from .helpers import arena_run, assert_complete, run_command, shown

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for certificates"),
]


def make_certificates(root: Path) -> TlsFiles:
    """A CA of our own, and one certificate and key signed by it for every process."""
    root.mkdir(parents=True)

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=root, check=True, capture_output=True)

    # One call per line, as the commands would be typed.
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", "ca.key",
            "-out", "ca.pem", "-subj", "/CN=arena-test-ca")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr",
            "-subj", "/CN=arena-test-node")  # fmt: skip
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-out", "node.pem")  # fmt: skip
    return TlsFiles(root / "ca.pem", root / "node.pem", root / "node.key")


@pytest.mark.slow
def test_a_run_over_tls_and_connections_without_it_refused(tmp_path: Path) -> None:
    tls = make_certificates(tmp_path / "certs")
    cluster = start_local_cluster(tmp_path / "cluster", workers=1, tls=tls)
    try:
        assert cluster.address.startswith("tls://")
        host_port = cluster.address.removeprefix("tls://")
        options = [
            "--cluster-tls-ca",
            str(tls.ca),
            "--cluster-tls-cert",
            str(tls.cert),
            "--cluster-tls-key",
            str(tls.key),
        ]
        # A bare HOST:PORT with the TLS files is a tls:// address.
        done = arena_run(
            tmp_path, run_command(tmp_path / "arena.db", 1, "--cluster", host_port, *options)
        )
        assert done.returncode == 0, shown(done) + cluster.logs()
        assert_complete(tmp_path / "arena.db", 1)

        without = arena_run(
            tmp_path, run_command(tmp_path / "no.db", 1, "--cluster", cluster.address)
        )
        assert without.returncode == 2, shown(without)
        assert "is a TLS address" in without.stderr and "Traceback" not in without.stderr

        plain = arena_run(
            tmp_path, run_command(tmp_path / "plain.db", 1, "--cluster", f"tcp://{host_port}"), 120
        )
        assert plain.returncode == 2, shown(plain)
        assert "cannot reach the Dask scheduler" in plain.stderr, shown(plain)
        assert "Traceback" not in plain.stderr, shown(plain)
    finally:
        cluster.stop()
