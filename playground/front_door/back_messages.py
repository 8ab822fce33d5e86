"""What a browser's websocket message asks of the server: a page run (one that presses a button,
or one that a later run may replace), something else, or nothing valid at all."""

from __future__ import annotations

import enum

from google.protobuf import unknown_fields
from google.protobuf.message import DecodeError, Message
from streamlit.proto.BackMsg_pb2 import BackMsg

# A widget value that happens once (a button press, a submitted chat line): the run that carries
# it must run, even if a later run has been asked for meanwhile.
ONE_SHOT = {"trigger_value", "string_trigger_value", "json_trigger_value", "chat_input_value"}


class Kind(enum.Enum):
    RERUN = "rerun"  # a page run that a later one may replace (coalesced)
    PRESS = "press"  # a page run with a one-shot value: kept in order
    OTHER = "other"  # heartbeat, stop, file URLs, ...


class Malformed(ValueError):
    """Not a BackMsg that this Streamlit sends: undecodable, of no known type, or with fields
    that its protocol does not have."""


def classify(data: bytes) -> Kind:
    message = BackMsg()
    try:
        message.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as error:
        raise Malformed(f"undecodable ({error})") from None
    kind = message.WhichOneof("type")
    if kind is None:
        raise Malformed("no known message type")
    if _has_unknown_fields(message):
        raise Malformed("fields outside the protocol")
    if kind != "rerun_script":
        return Kind.OTHER
    states = message.rerun_script.widget_states.widgets
    return Kind.PRESS if any(w.WhichOneof("value") in ONE_SHOT for w in states) else Kind.RERUN


def _has_unknown_fields(message: Message) -> bool:
    if len(unknown_fields.UnknownFieldSet(message)):
        return True
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if descriptor.is_repeated:
            if descriptor.message_type.GetOptions().map_entry:
                values = (
                    value.values()
                    if descriptor.message_type.fields_by_name["value"].message_type is not None
                    else ()
                )
            else:
                values = value
            if any(_has_unknown_fields(v) for v in values):
                return True
        elif _has_unknown_fields(value):
            return True
    return False
