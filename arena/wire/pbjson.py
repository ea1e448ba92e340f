"""Messages of ``arena.v1`` as JSON values: the proto3 JSON mapping, as protobuf defines it.

The stdio seats' lines are this mapping of the messages (docs/PROTOCOL.md §8).
``arena.wire.jsonlines`` writes and reads them straight from and to engine values, with
no message in between; this module is the mapping through the generated messages, which
it is held to, and what reads everything the mapping allows beyond the usual form (the
proto's own field names, enum numbers, numeric ids) in a bot's line.

``to_json`` gives what ``json_format.MessageToDict(message,
always_print_fields_with_no_presence=True)`` gives (lowerCamelCase names, enums by name,
64-bit integers as strings, every field without presence shown, zeros and empty lists
too; fields with presence, submessages and oneof members, only when set), and
``from_json`` reads that form back; a test holds both to ``json_format`` on every message
of real games. ``json_format`` walks each field in Python with every check the mapping
has, which costs about a millisecond for a decision request; a plan per message type
makes it a tenth of that. Anything ``from_json`` does not expect makes it fall back to
``json_format.ParseDict``, so a bot's hand-written JSON is judged by the mapping itself.
``line_of`` is a message as one line of a stdio seat.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

__all__ = ["from_json", "line_of", "to_json"]

M = TypeVar("M", bound=Message)

_INT64 = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_PLAIN = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_STRING,
    }
)

# (proto name, JSON name, shown only when set, repeated, how to convert one value)
_Field = tuple[str, str, bool, bool, Callable[[Any], Any] | None]


def _identity(value: Any) -> Any:
    return value


@functools.cache
def _plan(descriptor: Descriptor) -> tuple[_Field, ...] | None:
    """How to write each field of a message type; None if it has a field this module does
    not handle (then ``json_format`` does the work)."""
    fields: list[_Field] = []
    for field in descriptor.fields:
        convert: Callable[[Any], Any] | None
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            message_type = field.message_type
            assert message_type is not None
            if message_type.GetOptions().map_entry or _plan(message_type) is None:
                return None
            convert = None  # a message: written with its own plan
        elif field.type == FieldDescriptor.TYPE_ENUM:
            enum_type = field.enum_type
            assert enum_type is not None
            names = {v.number: v.name for v in enum_type.values}
            convert = functools.partial(_enum_name, names)
        elif field.type in _INT64:
            convert = str
        elif field.type in _PLAIN:
            convert = _identity
        else:
            return None  # floats, bytes: json_format's
        repeated = field.is_repeated
        presence = not repeated and field.has_presence
        fields.append((field.name, field.json_name, presence, repeated, convert))
    return tuple(fields)


def _enum_name(names: dict[int, str], number: int) -> str | int:
    return names.get(number, number)


def to_json(message: Message) -> dict[str, Any]:
    """``message`` as ``json_format.MessageToDict(message,
    always_print_fields_with_no_presence=True)`` writes it (key order aside)."""
    plan = _plan(message.DESCRIPTOR)
    if plan is None:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    out: dict[str, Any] = {}
    for name, json_name, presence, repeated, convert in plan:
        if presence and not message.HasField(name):
            continue
        value = getattr(message, name)
        if convert is None:
            out[json_name] = [to_json(v) for v in value] if repeated else to_json(value)
        elif convert is _identity:
            out[json_name] = list(value) if repeated else value
        else:
            out[json_name] = [convert(v) for v in value] if repeated else convert(value)
    return out


def from_json(data: Any, message: M, ignore_unknown_fields: bool = False) -> M:
    """Fill ``message`` from the JSON value ``to_json`` writes; anything else (other names,
    enum numbers, unknown fields, wrong types) is read by ``json_format.ParseDict``, which
    raises ``json_format.ParseError`` where the mapping does (``ignore_unknown_fields``:
    as ``ParseDict``'s, for a reader that should outlive additions to the contract)."""
    try:
        _fill(data, message)
    except _Unexpected:
        message.Clear()
        json_format.ParseDict(data, message, ignore_unknown_fields=ignore_unknown_fields)
    return message


class _Unexpected(Exception):
    pass


@functools.cache
def _readers(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    return {field.json_name: field for field in descriptor.fields}


def _fill(data: Any, message: Message) -> None:
    if not isinstance(data, dict):
        raise _Unexpected
    fields = _readers(message.DESCRIPTOR)
    for key, value in data.items():
        field = fields.get(key)
        if field is None:
            raise _Unexpected
        repeated = field.is_repeated
        values = value if repeated else [value]
        if not isinstance(values, list):
            raise _Unexpected
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if repeated:
                target = getattr(message, field.name)
                for item in values:
                    _fill(item, target.add())
            else:
                _fill(value, getattr(message, field.name))
                getattr(message, field.name).SetInParent()
            continue
        converted = [_scalar(field, item) for item in values]
        try:
            if repeated:
                getattr(message, field.name).extend(converted)
            else:
                setattr(message, field.name, converted[0])
        except (TypeError, ValueError) as error:
            raise _Unexpected from error


def _scalar(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        if not isinstance(value, str):
            raise _Unexpected
        enum_type = field.enum_type
        assert enum_type is not None
        number = enum_type.values_by_name.get(value)
        if number is None:
            raise _Unexpected
        return number.number
    if field.type in _INT64:
        if not isinstance(value, str) or not value.isdigit():
            raise _Unexpected
        return int(value)
    if field.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise _Unexpected
        return value
    if field.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise _Unexpected
        return value
    if field.type in _PLAIN:
        if type(value) is not int:
            raise _Unexpected
        return value
    raise _Unexpected


def line_of(message: Message) -> bytes:
    """One message as a stdio seat's line: ``to_json``, compact, newline. Anything beyond
    ASCII is escaped (``\\u2026``), so the line is valid UTF-8 whatever a string holds."""
    return json.dumps(to_json(message), separators=(",", ":")).encode() + b"\n"
