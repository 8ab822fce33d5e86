"""docker-compose.yml's services as `docker run` options, so a test runs the containers as the
file says: every key of a service is translated here, named as a build key, or kept as the order
of starting (depends_on), and any other key fails loudly. Nothing of the file is copied into the
tests. Compose puts its services on one network, each reachable by its name: run_argv(network=)
does the same with a network the caller made."""

from __future__ import annotations

import pathlib
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

BUILD_KEYS = {"build", "image"}  # how the image is made and named, not how it runs
FLAGS = {"init": "--init", "read_only": "--read-only"}  # true -> flag
VALUES = {
    "mem_limit": "--memory",
    "memswap_limit": "--memory-swap",
    "pids_limit": "--pids-limit",
    "cpus": "--cpus",
    "restart": "--restart",
    "user": "--user",
    "shm_size": "--shm-size",
}
LISTS = {"tmpfs": "--tmpfs", "cap_drop": "--cap-drop", "cap_add": "--cap-add", "expose": "--expose"}
HEALTH = {
    "interval": "--health-interval",
    "timeout": "--health-timeout",
    "start_period": "--health-start-period",
    "retries": "--health-retries",
}
# $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}: what the file uses, as compose reads it.
VARIABLE = re.compile(r"\$(?:(\$)|([A-Za-z_]\w*)|\{([A-Za-z_]\w*)(?:(:?-)([^}]*))?\})")


class UntranslatedKey(KeyError):
    """The service sets something this module cannot turn into a `docker run` option."""


@dataclass(frozen=True)
class Service:
    name: str
    image: str
    build_args: dict[str, str]
    options: tuple[tuple[str, str | None], ...]  # (flag, value or None), in the file's order
    ports: tuple[int, ...]  # container ports it publishes
    expose: tuple[int, ...] = ()  # container ports only other services reach
    depends_on: tuple[str, ...] = ()  # services to start before this one
    build_context: pathlib.Path | None = None  # build.context, relative to the file
    profiles: tuple[str, ...] = ()  # started only with one of these (`--profile`); () always

    def run_argv(
        self, *, without: Callable[[str, str | None], bool] = lambda f, v: False, network: str | None = None
    ) -> list[str]:
        """`docker run` arguments before the image; `without` leaves options out (a test's
        variant), never adds any. `network`: on that network, reachable by the service's name,
        as compose runs it."""
        argv: list[str] = ["--network", network, "--network-alias", self.name] if network else []
        for flag, value in self.options:
            if not without(flag, value):
                argv += [flag] if value is None else [flag, value]
        return argv


def interpolate(value: Any, environ: Mapping[str, str]) -> Any:
    """Compose's variable substitution, applied to every string in the file."""
    if isinstance(value, dict):
        return {k: interpolate(v, environ) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, environ) for v in value]
    if not isinstance(value, str):
        return value

    def substitute(m: re.Match) -> str:
        dollar, bare, name, op, default = m.groups()
        if dollar:
            return "$"
        name = bare or name
        if op == ":-":
            return environ.get(name) or default
        if op == "-":
            return environ.get(name, default)
        return environ.get(name, "")

    if re.search(r"\$\{[^}]*[?+]", value):
        raise UntranslatedKey(f"unsupported substitution in {value!r}")
    return VARIABLE.sub(substitute, value)


def _health(check: dict) -> list[tuple[str, str | None]]:
    if check.get("disable"):
        return [("--no-healthcheck", None)]
    test = check.get("test")
    if isinstance(test, list) and test[0] == "NONE":
        return [("--no-healthcheck", None)]
    # docker run takes the command as a shell string only (it becomes CMD-SHELL); compose sends
    # the exec form. Quoting each word keeps the argv the same.
    if isinstance(test, list):
        command = shlex.join(test[1:]) if test[0] == "CMD" else test[1]
    else:
        command = test
    out: list[tuple[str, str | None]] = [("--health-cmd", command)]
    for key, value in check.items():
        if key in HEALTH:
            out.append((HEALTH[key], str(value)))
        elif key != "test":
            raise UntranslatedKey(f"healthcheck.{key}")
    return out


def _port(spec: str, publish: Callable[[int], int] | None) -> tuple[int, str]:
    """'[IP:][HOST:]CONTAINER[/proto]', with the host port the caller chose for CONTAINER."""
    spec, _, proto = str(spec).partition("/")
    parts = spec.split(":")
    container = int(parts[-1])
    host_ip = parts[0] + ":" if len(parts) == 3 else ""
    host = publish(container) if publish else int(parts[-2]) if len(parts) >= 2 else container
    return container, f"{host_ip}{host}:{container}" + (f"/{proto}" if proto else "")


def _depends_on(value: Any, where: str) -> tuple[str, ...]:
    """The services to start first. docker run cannot wait for another container's health, so
    only the plain form (a list, or condition: service_started) is understood."""
    if isinstance(value, list):
        return tuple(value)
    for dependency, spec in value.items():
        if (
            set(spec or {}) - {"condition"}
            or (spec or {}).get("condition", "service_started") != "service_started"
        ):
            raise UntranslatedKey(f"{where}.depends_on.{dependency}: only service_started")
    return tuple(value)


def _volume(spec: Any, base: pathlib.Path, where: str) -> str:
    """Short syntax SOURCE:TARGET[:MODE]; a relative SOURCE is relative to the file."""
    if not isinstance(spec, str):
        raise UntranslatedKey(f"{where}.volumes: only the short syntax (SOURCE:TARGET[:MODE])")
    source, _, rest = spec.partition(":")
    if source.startswith((".", "~")):
        source = str((base / source).resolve())
    return f"{source}:{rest}" if rest else source


def names(path: pathlib.Path) -> list[str]:
    """The file's services, in its order."""
    return list(yaml.safe_load(path.read_text())["services"])


def load_all(
    path: pathlib.Path,
    *,
    environ: Mapping[str, str],
    publish: Callable[[int], int] | None = None,
    profiles: tuple[str, ...] = (),
) -> dict[str, Service]:
    """The services `docker compose --profile P ...` starts, by name, in the file's order: those
    with no profile, and those of one of `profiles`."""
    every = {name: load(path, environ=environ, publish=publish, name=name) for name in names(path)}
    return {name: s for name, s in every.items() if not s.profiles or set(s.profiles) & set(profiles)}


def load(
    path: pathlib.Path,
    *,
    environ: Mapping[str, str],
    publish: Callable[[int], int] | None = None,
    name: str | None = None,
) -> Service:
    """One service of the file: `name`, which may be left out when the file has only one.
    `environ` is what ${...} reads (compose reads the shell's); `publish` picks another host
    port for a container port (a shared machine's 8501 may be taken), keeping the file's host
    address."""
    services = yaml.safe_load(path.read_text())["services"]
    if name is None:
        if len(services) != 1:
            raise UntranslatedKey(
                f"{path.name} has {len(services)} services ({', '.join(services)}); name one"
            )
        (name,) = services
    if name not in services:
        raise KeyError(f"{path.name} has no service {name!r} (it has {', '.join(services)})")
    service = interpolate(services[name], environ)
    where = f"{path.name}: services.{name}"
    options: list[tuple[str, str | None]] = []
    ports: list[int] = []
    expose: list[int] = []
    depends_on: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()
    for key, value in service.items():
        if key in BUILD_KEYS:
            continue
        if key == "profiles":
            profiles = tuple(str(p) for p in value)
            continue
        if key in FLAGS:
            if value is True:
                options.append((FLAGS[key], None))
        elif key in VALUES:
            options.append((VALUES[key], str(value)))
        elif key in LISTS:
            items = [value] if isinstance(value, (str, int)) else value
            options += [(LISTS[key], str(v)) for v in items]
            if key == "expose":
                expose += [int(str(v).partition("/")[0]) for v in items]
        elif key == "ports":
            for spec in value:
                container, mapped = _port(spec, publish)
                ports.append(container)
                options.append(("--publish", mapped))
        elif key == "environment":
            pairs = value.items() if isinstance(value, dict) else (e.split("=", 1) for e in value)
            options += [("--env", f"{k}={v}") for k, v in pairs]
        elif key == "security_opt":
            for opt in value:
                kind, _, arg = opt.partition("=")
                if kind == "seccomp" and arg not in ("unconfined", "builtin"):
                    opt = f"seccomp={(path.parent / arg).resolve()}"  # relative to the file
                options.append(("--security-opt", opt))
        elif key == "healthcheck":
            options += _health(value)
        elif key == "depends_on":
            depends_on = _depends_on(value, where)
            unknown = set(depends_on) - set(services)
            if unknown:
                raise KeyError(f"{where}.depends_on names no service of the file: {unknown}")
        elif key == "volumes":
            options += [("--volume", _volume(v, path.parent, where)) for v in value]
        else:
            raise UntranslatedKey(
                f"{where}.{key} has no docker run translation in tests/support/compose_service.py; add one there"
            )
    build = service.get("build", {})
    if isinstance(build, str):
        build = {"context": build}
    context = build.get("context")
    return Service(
        name=name,
        image=service["image"],
        build_args={k: str(v) for k, v in (build.get("args") or {}).items()},
        options=tuple(options),
        ports=tuple(ports),
        expose=tuple(expose),
        depends_on=depends_on,
        build_context=(path.parent / context).resolve() if context else None,
        profiles=profiles,
    )


def start_order(services: Mapping[str, Service]) -> list[str]:
    """Service names with each one's depends_on before it, as compose starts them."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise ValueError(f"depends_on cycle: {' -> '.join(path + (name,))}")
        if name not in order:
            for dependency in services[name].depends_on:
                visit(dependency, path + (name,))
            order.append(name)

    for name in services:
        visit(name, ())
    return order
