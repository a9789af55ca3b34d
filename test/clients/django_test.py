#!/usr/bin/env python3
"""flakeid through Django's ORM (3.2 on psycopg2; 5.2 on psycopg 3) with the fields of
examples/python/flakeid_django.py: a sno primary key filled by its DEFAULT
(SnoAutoField) and a siq column, the table made by Django's schema editor,
every check through Django's own insert and query API.  TAP output; the
server comes from the libpq environment (test/clients/run)."""
import datetime
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(
    DATABASES={"default": {
        "ENGINE": "django.db.backends.postgresql",
        # the libpq environment, as psycopg2 would read it
        "HOST": os.environ.get("PGHOST", ""), "PORT": os.environ.get("PGPORT", ""),
        "NAME": os.environ.get("PGDATABASE", "postgres"), "USER": os.environ.get("PGUSER", ""),
    }},
    INSTALLED_APPS=[], USE_TZ=True, DEFAULT_AUTO_FIELD="django.db.models.AutoField",
)
django.setup()
# a field that makes Django warn fails here (Django's own imports warn on Python 3.11)
warnings.simplefilter("error")

from django.db import DataError, connection, models  # noqa: E402

from flakeid_django import SiqField, SnoAutoField  # noqa: E402
from tap import Tap  # noqa: E402

tap = Tap(f"Django {django.get_version()}")


class Event(models.Model):
    id = SnoAutoField(primary_key=True, generator="sno_new(0)")
    ref = SiqField(null=True)
    n = models.IntegerField()

    class Meta:
        app_label = "clients"
        db_table = "client_django"
        ordering = ["id"]


class Reply(models.Model):
    id = SnoAutoField(primary_key=True)
    event = models.ForeignKey(Event, on_delete=models.CASCADE)

    class Meta:
        app_label = "clients"
        db_table = "client_django_reply"


with connection.cursor() as cur:
    cur.execute("CREATE EXTENSION IF NOT EXISTS flakeid")
    cur.execute("DROP TABLE IF EXISTS client_django_reply, client_django")
with connection.schema_editor() as editor:
    editor.create_model(Event)
    editor.create_model(Reply)
with connection.cursor() as cur:
    cur.execute("""SELECT a.attname, format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)
                   FROM pg_attribute a LEFT JOIN pg_attrdef d ON (d.adrelid, d.adnum) = (a.attrelid, a.attnum)
                   WHERE a.attrelid IN ('client_django'::regclass, 'client_django_reply'::regclass) AND a.attnum > 0
                   ORDER BY a.attrelid, a.attnum""")
    columns = cur.fetchall()
tap.ok(columns == [("id", "sno", "sno_new(0)"), ("ref", "siq", None), ("n", "integer", None),
               ("id", "sno", "sno_new()"), ("event_id", "sno", None)],
   f"the schema editor makes sno keys with their DEFAULT, and a sno foreign key ({columns})")

with connection.cursor() as cur:
    cur.execute("SELECT siq_new('user')::text FROM generate_series(1, 20)")
    refs = [r[0] for r in cur.fetchall()]
events = [Event.objects.create(n=i, ref=refs[i]) for i in range(20)]
ids = [e.pk for e in events]
tap.ok(all(isinstance(i, str) and len(i) == 16 for i in ids) and len(set(ids)) == 20 and sorted(ids) == ids,
   f"Event.objects.create: 20 keys from the DEFAULT, read back by RETURNING, distinct and increasing ({ids[0]})")
replies = Reply.objects.bulk_create([Reply(event=events[1]), Reply(event=events[1]), Reply(event=events[2])])
keys = [r.pk for r in replies]
tap.ok(all(k and len(k) == 16 for k in keys) and Reply.objects.filter(pk__in=keys).count() == 3,
   "bulk_create: every row's key from the DEFAULT, back in the objects")
tap.ok(Event.objects.get(pk=ids[3]).n == 3 and Event.objects.get(ref=refs[5]).n == 5,
   "objects.get(pk=a sno string) and get(ref=a siq string)")
tap.ok([e.pk for e in Event.objects.order_by("-id")] == sorted(ids, reverse=True), "order_by('-id')")
tap.ok(Reply.objects.filter(event__ref=refs[1]).count() == 2 and Event.objects.get(pk=ids[2]).reply_set.count() == 1,
   "a ForeignKey to a sno key: joins and reverse relations")
now = datetime.datetime.now(datetime.timezone.utc)
recent = Event.objects.filter(id__time_in=(now - datetime.timedelta(hours=1), None)).count()
older = Event.objects.filter(id__time_in=(None, now - datetime.timedelta(hours=1))).count()
tap.ok(recent == 20 and older == 0, "the id__time_in=(start, end) lookup: id <@ tstzrange")
when = Event.objects.annotate(at=models.Func(models.F("id"), function="sno_time", output_field=models.DateTimeField())).get(pk=ids[0]).at
tap.ok(isinstance(when, datetime.datetime) and when.tzinfo is not None and abs((now - when).total_seconds()) < 600,
   f"Func('id', function='sno_time') is an aware datetime of now ({when})")
Event.objects.filter(pk=ids[0]).update(n=100)
Event.objects.get(pk=ids[19]).delete()
tap.ok(Event.objects.get(pk=ids[0]).n == 100 and Event.objects.count() == 19, "update() and delete() by a sno key")
try:
    Event.objects.get(pk="not-an-id!")
    tap.ok(False, "a bad sno string is refused")
except DataError as e:
    # (psycopg2's pgcode is psycopg 3's sqlstate)
    tap.ok((getattr(e.__cause__, "sqlstate", None) or e.__cause__.pgcode) == "22P02" and bool(e.__cause__.diag.message_detail),
       f"a bad sno string is DataError 22P02 with a DETAIL ({e.__cause__.diag.message_detail})")

with connection.schema_editor() as editor:
    editor.delete_model(Reply)
    editor.delete_model(Event)
tap.finish()
