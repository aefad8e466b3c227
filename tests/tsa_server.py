"""A time-stamping authority of the tests' own, on the loopback interface only.

``make_pki(folder, name)`` makes a CA and a TSA certificate (the cryptography
package: the TSA's certificate carries the critical extended key usage
timeStamping that RFC 3161 requires) and the ``openssl ts`` configuration that
signs with them. ``TSA(pki)`` serves RFC 3161 over HTTP on 127.0.0.1: each POSTed
query is answered by ``openssl ts -reply`` (the OpenSSL command line, not this
project's code). ``mode`` makes it misbehave: ``garbage`` answers bytes that are
no reply, ``once`` answers the first query and then as ``garbage`` (a TSA that
fails between the run's check and the stamp); ``clock`` shifts the TSA's clock
(libfaketime's FAKETIME, e.g. "-1d").
"""

from __future__ import annotations

import datetime
import http.server
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Self

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

FAKETIME_LIBS = [
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
]

OPENSSL_CONF = """
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = {dir}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.crt
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def make_pki(folder: Path, name: str) -> Path:
    """folder/{ca.crt, tsa.crt, tsa.key, openssl.cnf, serial}; returns folder."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(days=30), now + datetime.timedelta(days=30)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name(f"{name} test CA"))
        .issuer_name(_name(f"{name} test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    tsa_key = ec.generate_private_key(ec.SECP256R1())
    tsa = (
        x509.CertificateBuilder()
        .subject_name(_name(f"{name} test TSA"))
        .issuer_name(ca.subject)
        .public_key(tsa_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    (folder / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "tsa.crt").write_bytes(tsa.public_bytes(serialization.Encoding.PEM))
    (folder / "tsa.key").write_bytes(_pem_key(tsa_key))
    (folder / "serial").write_text("01\n")
    (folder / "openssl.cnf").write_text(OPENSSL_CONF.format(dir=folder))
    return folder


def faketime_lib() -> str | None:
    return next((p for p in FAKETIME_LIBS if Path(p).is_file()), None)


def reply(pki: Path, query: bytes, clock: str | None = None) -> bytes:
    """``openssl ts -reply`` for one query, with the TSA's clock shifted by ``clock``."""
    env = None
    if clock:
        lib = faketime_lib()
        if lib is None:
            raise RuntimeError("libfaketime is not installed (apt-get install faketime)")
        import os

        env = dict(os.environ, LD_PRELOAD=lib, FAKETIME=clock, FAKETIME_DONT_FAKE_MONOTONIC="1")
    with tempfile.TemporaryDirectory() as tmp:
        q, r = Path(tmp) / "q.tsq", Path(tmp) / "r.tsr"
        q.write_bytes(query)
        subprocess.run(
            [
                "openssl",
                "ts",
                "-reply",
                "-config",
                str(pki / "openssl.cnf"),
                "-queryfile",
                str(q),
                "-out",
                str(r),
            ],
            check=True,
            capture_output=True,
            env=env,
        )
        return r.read_bytes()


class TSA:
    """An RFC 3161 server on 127.0.0.1 (a thread of the test process)."""

    def __init__(self, pki: Path, mode: str = "ok", clock: str | None = None) -> None:
        self.pki, self.mode, self.clock = pki, mode, clock
        self.requests = 0
        lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                query = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:
                    outer.requests += 1
                    if outer.mode == "garbage" or (outer.mode == "once" and outer.requests > 1):
                        body = b"this is not a time-stamp reply"
                    else:
                        body = reply(outer.pki, query, outer.clock)
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/tsa"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port_url() -> str:
    """A loopback URL where nothing listens (a TSA that is down)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/tsa"


__all__ = ["TSA", "closed_port_url", "faketime_lib", "make_pki", "reply"]
