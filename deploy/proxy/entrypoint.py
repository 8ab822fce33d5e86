#!/usr/bin/env python3
"""The proxy container's entrypoint: renders nginx.conf.template into nginx's prefix (a tmpfs),
makes a self-signed certificate there unless one is mounted, and replaces itself with nginx.
tests/support/proxy_support.py renders the same template with these same functions on a host.

Environment (docker-compose.yml sets them):
  PROXY_UPSTREAM   the app, HOST:PORT                       (default playground:8501)
  PROXY_LISTEN     nginx's listen address, [HOST:]PORT       (default 8443)
  PROXY_TLS_DIR    where a real certificate is mounted: cert.pem (the full chain) and key.pem
                   (default /etc/playground-tls); absent, a self-signed one is made at start
  PROXY_TLS_NAME   the self-signed certificate's name        (default localhost)
  PROXY_PREFIX     nginx's prefix, written at start          (default /tmp/nginx)"""

from __future__ import annotations

import ipaddress
import os
import pathlib
import re
import subprocess
import sys
from collections.abc import Mapping

HERE = pathlib.Path(__file__).resolve().parent
TEMPLATE = HERE / "nginx.conf.template"
NAMES = ("PROXY_UPSTREAM", "PROXY_LISTEN", "PROXY_CERT", "PROXY_KEY")
PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")


def render(template: str, values: Mapping[str, str]) -> str:
    """The template with each PROXY_ placeholder replaced; an unknown or missing name, or a value that
    could end a directive, fails loudly instead of writing a config nginx would read otherwise."""
    found = set(PLACEHOLDER.findall(template))
    unknown = found - set(NAMES)
    if unknown:
        raise ValueError(f"unknown placeholders in the template: {sorted(unknown)}")
    missing = found - set(values)
    if missing:
        raise ValueError(f"no value for {sorted(missing)}")
    for name in found:
        if not values[name] or re.search(r"[\s;{}'\"$#]", values[name]):
            raise ValueError(f"{name}={values[name]!r}: empty, or not one nginx word")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def self_signed(directory: pathlib.Path, name: str = "localhost") -> tuple[pathlib.Path, pathlib.Path]:
    """cert.pem and key.pem for `name` (and localhost, 127.0.0.1), valid a year, made by openssl
    with an EC P-256 key (quick to make at every start)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    names = {name, "localhost", "127.0.0.1"}
    san = ",".join(("IP:" if _is_ip(n) else "DNS:") + n for n in sorted(names))
    old = os.umask(0o077)
    try:
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "365",
                "-subj",
                f"/CN={name}",
                "-addext",
                f"subjectAltName={san}",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"openssl could not make a certificate: {e.stderr.strip()}") from e
    finally:
        os.umask(old)
    return cert, key


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def prepare(prefix: pathlib.Path, values: Mapping[str, str]) -> pathlib.Path:
    """Writes PREFIX/nginx.conf and the folders it names; returns the config's path."""
    (prefix / "tmp").mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(render(TEMPLATE.read_text(), values))
    return conf


def nginx_argv(prefix: pathlib.Path, conf: pathlib.Path) -> list[str]:
    return ["nginx", "-p", f"{prefix}/", "-c", str(conf), "-e", "stderr", "-g", "daemon off;"]


def main() -> None:
    env = os.environ
    prefix = pathlib.Path(env.get("PROXY_PREFIX", "/tmp/nginx"))
    tls = pathlib.Path(env.get("PROXY_TLS_DIR", "/etc/playground-tls"))
    cert, key = tls / "cert.pem", tls / "key.pem"
    if cert.exists() != key.exists():
        sys.exit(f"entrypoint: {tls} has only one of cert.pem and key.pem; mount both")
    if cert.exists():
        print(f"entrypoint: TLS certificate from {tls}", file=sys.stderr)
    else:
        name = env.get("PROXY_TLS_NAME", "localhost")
        cert, key = self_signed(prefix / "tls", name)
        print(f"entrypoint: no certificate in {tls}; made a self-signed one for {name}", file=sys.stderr)
    conf = prepare(
        prefix,
        {
            "PROXY_UPSTREAM": env.get("PROXY_UPSTREAM", "playground:8501"),
            "PROXY_LISTEN": env.get("PROXY_LISTEN", "8443"),
            "PROXY_CERT": str(cert),
            "PROXY_KEY": str(key),
        },
    )
    argv = nginx_argv(prefix, conf)
    sys.stderr.flush()
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main()
