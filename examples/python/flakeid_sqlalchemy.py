"""flakeid columns in SQLAlchemy (tested with 1.4 and psycopg2, Debian's
python3-sqlalchemy and python3-psycopg2).

IDs are Python strings, their canonical text.  Every parameter is sent as
CAST(:param AS sno), so comparisons never depend on the driver guessing a
type.  A column filled by the server:

    class Event(Base):
        __tablename__ = "events"
        id = Column(Sno, primary_key=True, server_default=text("sno_new(0)"))
        ref = Column(Siq, nullable=False, server_default=text("siq_new('user')"))

and the time range of IDs, an index range scan:

    session.query(Event).filter(in_time_range(Event.id, start, end))
"""
from sqlalchemy import DateTime, cast, func
from sqlalchemy.types import UserDefinedType


class FlakeId(UserDefinedType):
    """A flakeid type; subclasses name it."""

    cache_ok = True
    type_name = None

    def get_col_spec(self, **kw):
        return self.type_name

    def bind_processor(self, dialect):
        def process(value):
            return None if value is None else str(value)
        return process

    def result_processor(self, dialect, coltype):
        return None  # the driver hands back the canonical text

    def bind_expression(self, bindvalue):
        return cast(bindvalue, self)

    class comparator_factory(UserDefinedType.Comparator):
        def time(self):
            """<type>_time(id): the ID's time, as an aware datetime."""
            return getattr(func, self.type.type_name + "_time")(self.expr, type_=DateTime(timezone=True))


def _flakeid_type(name):
    # cache_ok on each class itself: SQLAlchemy does not inherit it
    return type(name.capitalize(), (FlakeId,), {"type_name": name, "cache_ok": True})


Sno = _flakeid_type("sno")
Flax = _flakeid_type("flax")
Siq = _flakeid_type("siq")
Kuid = _flakeid_type("kuid")
Kuid96 = _flakeid_type("kuid96")


def in_time_range(column, start, end):
    """column <@ tstzrange(start, end): IDs whose time is in [start, end);
    None leaves a side open."""
    return column.op("<@")(func.tstzrange(start, end))
