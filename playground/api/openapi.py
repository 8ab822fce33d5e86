"""The API's OpenAPI 3.1 document, generated from the dataclasses that the routes read and write
(JobRequest, Report, Comparison): a field added to one of them is in the document at once."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from ..contract.job import Report
from ..contract.job_request import JobRequest
from ..reports.compare import Comparison

VERSION = "1"


def schema_of(hint: Any, components: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a type hint; each dataclass once, under components/schemas."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):  # a dataclass, not an instance
        name = hint.__name__
        if name not in components:
            components[name] = {}  # a placeholder breaks cycles
            hints = typing.get_type_hints(hint)
            fields = dataclasses.fields(hint)
            components[name] = {
                "type": "object",
                "properties": {f.name: schema_of(hints[f.name], components) for f in fields},
                "required": [
                    f.name
                    for f in fields
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                ],
            }
            if hint.__doc__:
                components[name]["description"] = " ".join(hint.__doc__.split())
        return {"$ref": f"#/components/schemas/{name}"}
    if origin in (typing.Union, types.UnionType):
        choices = [schema_of(a, components) for a in args if a is not type(None)]
        if type(None) in args:
            choices.append({"type": "null"})
        return choices[0] if len(choices) == 1 else {"anyOf": choices}
    if origin is typing.Literal:
        return {"type": "string", "enum": list(args)}
    if origin in (list, tuple):
        return {"type": "array", "items": schema_of(args[0], components) if args else {}}
    if origin is dict:
        return {"type": "object", "additionalProperties": schema_of(args[1], components)}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    return {"type": simple[hint]} if hint in simple else {}


def document() -> dict[str, Any]:
    components: dict[str, Any] = {}
    request = schema_of(JobRequest, components)
    components["JobRequest"]["additionalProperties"] = False  # an unknown field is a 400
    report = schema_of(Report, components)
    comparison = schema_of(Comparison, components)
    components["Error"] = {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["status", "message"],
                "properties": {
                    "status": {"type": "integer"},
                    "message": {"type": "string"},
                    "field": {"type": "string"},
                },
            }
        },
    }
    components["ReportResponse"] = {
        "allOf": [
            report,
            {
                "type": "object",
                "properties": {
                    "share_url": {"type": "string", "description": "opens the same run in the page"}
                },
            },
        ]
    }
    components["CompareResponse"] = {
        "type": "object",
        "required": ["compare", "share_url"],
        "properties": {"compare": comparison, "share_url": {"type": "string"}},
    }
    components["Event"] = {
        "type": "object",
        "required": ["event"],
        "properties": {
            "event": {
                "type": "string",
                "enum": [
                    "queued",
                    "started",
                    "starting_version",
                    "call_started",
                    "call_finished",
                    "timing",
                    "demoted",
                    "accepted",
                    "retry",
                    "report",
                    "compare",
                    "error",
                ],
            }
        },
        "description": "One line of the application/x-ndjson stream: queued {position, eta_s}, "
        "started, call_finished {function, index, retraced, reason, "
        "tracing_count}, timing {function, mode, progress}, then report "
        "{report, share_url}, compare {compare, share_url} or error {error}. "
        "With compare, each event has side: a or b.",
    }
    ref = {name: {"$ref": f"#/components/schemas/{name}"} for name in components}
    error = {"description": "refused", "content": {"application/json": {"schema": ref["Error"]}}}
    refusals = {
        "400": {**error, "description": "a field that cannot run; error.field names it"},
        "401": {**error, "description": "an unknown API token"},
        "403": {**error, "description": "a foreign page's Origin, without a token (CSRF)"},
        "411": {**error, "description": "a body without Content-Length"},
        "413": {**error, "description": "a body over the server's cap"},
        "415": {**error, "description": "a body that is not application/json"},
        "429": {
            **error,
            "description": "over a per-client limit; Retry-After says when",
            "headers": {"Retry-After": {"schema": {"type": "integer"}}},
        },
        "500": {**error, "description": "a fault of the playground's (never a trace)"},
        "503": {
            **error,
            "description": "warming up (just started), or no worker can start; Retry-After says when",
            "headers": {"Retry-After": {"schema": {"type": "integer"}}},
        },
    }
    limited = {"400": refusals["400"], "429": refusals["429"]}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "tf.function playground",
            "version": VERSION,
            "description": "Run TensorFlow code in the playground's sandbox and read what "
            "tf.function and AutoGraph did (docs/api.md).",
        },
        "paths": {
            "/api/v1/analyze": {
                "post": {
                    "summary": "Run a file as a script, or an entry function's call plan",
                    "parameters": [_lang()],
                    "requestBody": {"required": True, "content": {"application/json": {"schema": request}}},
                    "responses": {
                        "200": {
                            "description": "the report, as `analyze --json` prints it (with "
                            "compare: the comparison); or, with Accept: "
                            "application/x-ndjson, the events then the report",
                            "content": {
                                "application/json": {
                                    "schema": {"anyOf": [ref["ReportResponse"], ref["CompareResponse"]]}
                                },
                                "application/x-ndjson": {"schema": ref["Event"]},
                            },
                        },
                        **refusals,
                    },
                }
            },
            "/api/v1/examples": {
                "get": {
                    "summary": "The gallery's examples",
                    "parameters": [_lang()],
                    "responses": {
                        "200": {
                            "description": "name and title of each",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"examples": {"type": "array", "items": _EXAMPLE}},
                                    }
                                }
                            },
                        },
                        "429": refusals["429"],
                    },
                }
            },
            "/api/v1/examples/{name}": {
                "get": {
                    "summary": "One example, with the request that runs it",
                    "parameters": [
                        _lang(),
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "the example",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        **_EXAMPLE,
                                        "properties": {
                                            **_EXAMPLE["properties"],
                                            "explanation": {"type": "string"},
                                            "article_claim": {"type": "string"},
                                            "request": request,
                                        },
                                    }
                                }
                            },
                        },
                        "404": {**error, "description": "no such example"},
                        **limited,
                    },
                }
            },
            "/api/v1/versions": {
                "get": {
                    "summary": "The installed TensorFlow versions",
                    "responses": {
                        "200": {
                            "description": "the default first",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "default": {"type": "string"},
                                            "versions": {"type": "array", "items": {"type": "string"}},
                                        },
                                    }
                                }
                            },
                        },
                        "429": refusals["429"],
                    },
                }
            },
            "/api/v1/ready": {
                "get": {
                    "summary": "Whether Runs are taken (a readiness probe)",
                    "responses": {
                        "200": {
                            "description": "ready",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"ready": {"const": True}}}
                                }
                            },
                        },
                        "503": {
                            "description": "warming up: the sandbox is loading TensorFlow",
                            "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "ready": {"const": False},
                                            "warming_s": {"type": "integer"},
                                        },
                                    }
                                }
                            },
                        },
                        "429": refusals["429"],
                    },
                }
            },
            "/api/v1/openapi.json": {
                "get": {
                    "summary": "This document",
                    "responses": {
                        "200": {
                            "description": "OpenAPI 3.1",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        },
                        "429": refusals["429"],
                    },
                }
            },
        },
        "components": {"schemas": components},
    }


_EXAMPLE: dict[str, Any] = {
    "type": "object",
    "required": ["name", "title"],
    "properties": {"name": {"type": "string"}, "title": {"type": "string"}},
}


def _lang() -> dict[str, Any]:
    return {
        "name": "lang",
        "in": "query",
        "required": False,
        "schema": {"type": "string", "enum": ["en", "zh"]},
        "description": "the language of messages (else Accept-Language)",
    }
