"""Records (``wflint.core.records``) behave as the dataclasses they replace: each behaviour of the
base is held against a dataclass twin declared here (the converted classes of the code base are
held to theirs in test_records_converted.py)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

import pytest

from wflint.core.records import MutableRecord, Record, assign, field_names, fresh, replace

# ---------------------------------------------------------------------- the base, with twins


class Point(Record):
    def __init__(self, x: int, y: int = 0, tag: Any = None) -> None:
        assign(self, locals())


class Tagged(Record, uncompared=("tag",)):
    def __init__(self, x: int, tag: Any = None) -> None:
        assign(self, locals())


class Slotted(Record, slots=True, uncompared=("offset",)):
    def __init__(self, line: int, col: int, offset: int = 0) -> None:
        assign(self, locals())


class Box(MutableRecord):
    def __init__(self, name: str, items: list[Any] = fresh(list), meta: dict[str, Any] = fresh(dict)) -> None:
        assign(self, locals())


class Node(MutableRecord, eq=False):  # compared by identity

    def __init__(self, name: str, children: list[Any] = fresh(list)) -> None:
        assign(self, locals())


@dataclass(frozen=True)
class PointDC:
    x: int
    y: int = 0
    tag: Any = None


@dataclass(frozen=True)
class TaggedDC:
    x: int
    tag: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class SlottedDC:
    line: int
    col: int
    offset: int = field(default=0, compare=False)


@dataclass
class BoxDC:
    name: str
    items: list[Any] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class NodeDC:
    name: str
    children: list[Any] = field(default_factory=list)


def _twin_repr(record: Any, twin: Any) -> str:
    """The twin dataclass's repr with its class name put back to the record's."""
    return repr(twin).replace(type(twin).__qualname__ + "(", type(record).__qualname__ + "(")


def test_fields_are_the_init_parameters_in_order():
    assert field_names(Point) == ("x", "y", "tag") == field_names(Point(1))
    assert field_names(Box) == ("name", "items", "meta")
    assert Slotted.__slots__ == ("line", "col", "offset")
    with pytest.raises(TypeError, match="__init__ declares them"):
        class NoFields(Record, slots=True):
            pass


def test_equality_and_hash_are_a_dataclass_s():
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert hash(Point(1, 2, "t")) == hash(PointDC(1, 2, "t")) == hash((1, 2, "t"))
    # another class with the same fields is not equal, either way round
    assert Point(1, 2) != PointDC(1, 2) and PointDC(1, 2) != Point(1, 2)
    assert Point(1).__eq__(PointDC(1)) is NotImplemented
    nan = float("nan")  # tuples compare their items by identity first, as a dataclass's __eq__ does
    assert Point(nan) == Point(nan) and (PointDC(nan) == PointDC(nan))


def test_uncompared_fields_are_left_out_of_equality_and_hash_but_shown():
    assert Tagged(1, "a") == Tagged(1, "b") and hash(Tagged(1, "a")) == hash(TaggedDC(1, "b")) == hash((1,))
    assert Slotted(1, 2, 10) == Slotted(1, 2, 99) and hash(Slotted(1, 2, 10)) == hash(SlottedDC(1, 2, 99))
    assert repr(Tagged(1, "a")) == _twin_repr(Tagged(1, "a"), TaggedDC(1, "a")) == "Tagged(x=1, tag='a')"
    with pytest.raises(TypeError, match="uncompared"):
        class Wrong(Record, uncompared=("nope",)):
            def __init__(self, x: int) -> None:
                assign(self, locals())


def test_repr_is_a_dataclass_s():
    p, s, b = Point(1, "two", [3]), Slotted(1, 2, 3), Box("b", [1], {"k": "v"})
    assert repr(p) == _twin_repr(p, PointDC(1, "two", [3])) == "Point(x=1, y='two', tag=[3])"
    assert repr(s) == _twin_repr(s, SlottedDC(1, 2, 3))
    assert repr(b) == _twin_repr(b, BoxDC("b", [1], {"k": "v"}))


def test_repr_shows_a_record_met_again_inside_itself_as_dots():
    parent, parent_dc = Node("p"), NodeDC("p")
    parent.children.append(Node("c", [parent]))
    parent_dc.children.append(NodeDC("c", [parent_dc]))
    assert repr(parent) == _twin_repr(parent, parent_dc).replace("NodeDC(", "Node(")
    assert repr(parent) == "Node(name='p', children=[Node(name='c', children=[...])])"


def test_frozen_records_refuse_assignment_and_deletion():
    for record in (Point(1), Slotted(1, 2)):
        with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
            record.x = 5
        with pytest.raises(FrozenInstanceError, match="cannot assign to field 'other'"):
            record.other = 5
        with pytest.raises(FrozenInstanceError, match="cannot delete field"):
            del record.x
    assert isinstance(FrozenInstanceError(), AttributeError)
    assert not hasattr(Slotted(1, 2), "__dict__")


def test_mutable_records_assign_and_are_unhashable_when_compared_by_value():
    b = Box("b")
    b.name = "c"
    assert b == Box("c") and Box.__hash__ is None and BoxDC.__hash__ is None
    with pytest.raises(TypeError, match="unhashable"):
        hash(b)


def test_records_compared_by_identity():
    a = Node("a")
    assert a != Node("a") and a == a and hash(a) == object.__hash__(a)
    assert Node.__eq__ is NodeDC.__eq__ and Node.__hash__ is NodeDC.__hash__


def test_fresh_defaults_are_made_for_each_instance():
    one, two = Box("1"), Box("2")
    assert one.items == [] and one.meta == {} and one.items is not two.items and one.meta is not two.meta
    given: list[int] = [1]
    assert Box("x", given).items is given and Box("x", None).items is None  # as default_factory does
    assert "fresh(list)" in repr(Box.__init__.__defaults__)


def test_replace_is_dataclasses_replace():
    items = [1]
    b = Box("b", items)
    c = replace(b, name="c")
    assert (c.name, c.items is items, b.name) == ("c", True, "b")
    p = replace(Point(1, 2, "t"), y=5)
    assert p == Point(1, 5, "t")
    assert replace(Slotted(1, 2, 3), col=9) == Slotted(1, 9, 3) and replace(Slotted(1, 2, 3), col=9).offset == 3
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        replace(p, colour="red")


@pytest.mark.parametrize("record", [Point(1, (2, 3), "t"), Tagged(1, "t"), Slotted(1, 2, 3), Box("b", [1], {"k": 1}),
                                    Node("n")], ids=lambda r: type(r).__name__)
def test_records_pickle_and_copy(record):
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(record, protocol))
        assert type(back) is type(record) and repr(back) == repr(record)
        assert all(getattr(back, n) == getattr(record, n) for n in field_names(record))
    for copied in (copy.copy(record), copy.deepcopy(record)):
        assert repr(copied) == repr(record) and copied is not record
    if not isinstance(record, Node):
        assert pickle.loads(pickle.dumps(record)) == record

