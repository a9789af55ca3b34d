#!/usr/bin/env python3
"""flakeid through SQLAlchemy's ORM (1.4 and 2.0; psycopg2, or psycopg 3 with
FLAKEID_SQLALCHEMY_DRIVER=psycopg) with the column types of
examples/python/flakeid_sqlalchemy.py: a sno primary key and a siq column
filled by their DEFAULTs, every check through the ORM's own insert and
query API.  TAP output; the server comes from the libpq environment
(test/clients/run)."""
import datetime
import os
import sys
import warnings

# a mapping that makes SQLAlchemy warn (an uncacheable type, say) fails here
warnings.simplefilter("error")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

from sqlalchemy import Column, Integer, Text, create_engine, select, text  # noqa: E402
from sqlalchemy.exc import DataError  # noqa: E402
from sqlalchemy.orm import Session, declarative_base  # noqa: E402

from flakeid_sqlalchemy import Siq, Sno, in_time_range  # noqa: E402
from tap import Tap  # noqa: E402

DRIVER = os.environ.get("FLAKEID_SQLALCHEMY_DRIVER", "psycopg2")
tap = Tap("SQLAlchemy" if DRIVER == "psycopg2" else f"SQLAlchemy on {DRIVER}")
Base = declarative_base()


class Event(Base):
    __tablename__ = "client_sqlalchemy"
    # eager_defaults: the server's DEFAULTs come back in the INSERT's RETURNING
    __mapper_args__ = {"eager_defaults": True}
    id = Column(Sno, primary_key=True, server_default=text("sno_new(0)"))
    ref = Column(Siq, nullable=False, server_default=text("siq_new('user')"))
    n = Column(Integer, nullable=False)
    name = Column(Text)


# psycopg2 or psycopg 3 over libpq: an empty URL part takes the PG* environment
engine = create_engine(f"postgresql+{DRIVER}://", future=True)
with engine.begin() as conn:
    conn.execute(text("CREATE EXTENSION IF NOT EXISTS flakeid"))
    Base.metadata.drop_all(conn)
    Base.metadata.create_all(conn)
    ddl = conn.execute(text("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'client_sqlalchemy'::regclass ORDER BY adnum")).scalars().all()
tap.ok(ddl == ["sno_new(0)", "siq_new('user'::text)"], f"create_all makes the columns with their DEFAULTs ({ddl})")

with Session(engine) as session:
    events = [Event(n=i, name=f"event {i}") for i in range(30)]
    session.add_all(events)
    session.commit()
    ids = [e.id for e in events]
    tap.ok(all(isinstance(i, str) and len(i) == 16 for i in ids) and len(set(ids)) == 30 and sorted(ids) == ids,
       f"session.add_all + commit: 30 sno keys from the DEFAULT, distinct and increasing ({ids[0]})")
    refs = [e.ref for e in events]
    tap.ok(all(isinstance(r, str) and len(r) == 23 for r in refs), f"the siq DEFAULT comes back too ({refs[0]})")

with Session(engine) as session:
    found = session.get(Event, ids[4])
    tap.ok(found is not None and found.n == 4, "session.get(Event, a sno string)")
    by_ref = session.execute(select(Event).where(Event.ref == refs[9])).scalar_one()
    tap.ok(by_ref.n == 9, "select(Event).where(Event.ref == a siq string)")
    ordered = session.execute(select(Event.id).order_by(Event.id.desc())).scalars().all()
    tap.ok(ordered == sorted(ids, reverse=True), "order_by(Event.id.desc())")
    when = session.execute(select(Event.id.time()).where(Event.id == ids[0])).scalar_one()
    now = datetime.datetime.now(datetime.timezone.utc)
    tap.ok(isinstance(when, datetime.datetime) and when.tzinfo is not None and abs((now - when).total_seconds()) < 600,
       f"Event.id.time() (sno_time) is an aware datetime of now ({when})")
    recent = session.execute(select(Event).where(in_time_range(Event.id, now - datetime.timedelta(hours=1), None))).scalars().all()
    none = session.execute(select(Event).where(in_time_range(Event.id, None, now - datetime.timedelta(hours=1)))).scalars().all()
    tap.ok(len(recent) == 30 and len(none) == 0, "in_time_range(Event.id, start, end): Event.id <@ tstzrange")
    found.name = "renamed"
    session.delete(session.get(Event, ids[0]))
    session.commit()
    left = session.execute(select(Event.name).order_by(Event.id)).scalars().all()
    tap.ok(len(left) == 29 and left[3] == "renamed", "update and delete through the session")
    try:
        session.execute(select(Event).where(Event.id == "not-an-id!")).all()
        tap.ok(False, "a bad sno literal is refused")
    except DataError as e:
        session.rollback()
        # (psycopg2's pgcode is psycopg 3's sqlstate)
        tap.ok((getattr(e.orig, "sqlstate", None) or e.orig.pgcode) == "22P02" and bool(e.orig.diag.message_detail),
           f"a bad sno string is DataError 22P02 with a DETAIL ({e.orig.diag.message_detail})")

with engine.begin() as conn:
    Base.metadata.drop_all(conn)
tap.finish()
