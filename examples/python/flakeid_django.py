"""flakeid columns in Django models (tested with Django 3.2 and psycopg2,
Debian's python3-django and python3-psycopg2).

IDs are Python strings, their canonical text.  A primary key the database
fills from the column's DEFAULT, and another ID column:

    class Event(models.Model):
        id = SnoAutoField(primary_key=True)             # DEFAULT sno_new()
        ref = SiqField(null=True)

SnoAutoField works like Django's AutoField: the INSERT leaves the column
out and reads the new value back (RETURNING).  Its DEFAULT is written into
CREATE TABLE by the migration that creates the model (db_type_suffix); for
a table made otherwise, set it yourself (ALTER TABLE ... ALTER COLUMN id SET
DEFAULT sno_new()).  Pass generator="sno_new(3)" to pick a meta.

Time ranges of IDs, an index range scan:

    Event.objects.filter(id__time_in=(start, end))     # id <@ tstzrange(start, end)
"""
from django.db import models
from django.db.models.fields import AutoFieldMixin


class FlakeIdField(models.Field):
    """A column of a flakeid type; subclasses name it."""

    flakeid_type = None
    description = "a flakeid ID"
    empty_strings_allowed = False  # no ID is "": an unset one is None (NULL, or the DEFAULT for a key)

    def db_type(self, connection):
        return self.flakeid_type

    def rel_db_type(self, connection):
        return self.flakeid_type  # a ForeignKey to it has the same type

    def get_placeholder(self, value, compiler, connection):
        return "%s::" + self.flakeid_type

    def to_python(self, value):
        return None if value is None else str(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return None if value is None else str(value)


@FlakeIdField.register_lookup
class TimeIn(models.Lookup):
    """field__time_in=(start, end): the ID's time is in [start, end);
    None leaves a side open."""

    lookup_name = "time_in"
    prepare_rhs = False

    def get_prep_lookup(self):
        start, end = self.rhs
        return [start, end]

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return "%s <@ tstzrange(%%s, %%s)" % lhs, [*lhs_params, *self.rhs]


class ColumnDefault(models.Expression):
    """DEFAULT, as a value in an INSERT"""

    def as_sql(self, compiler, connection):
        return "DEFAULT", []


class FlakeIdAutoField(AutoFieldMixin, FlakeIdField):
    """A primary key filled by the column's DEFAULT, <type>_new() unless
    generator says otherwise."""

    def pre_save(self, model_instance, add):
        # create() leaves the column out (it is the model's auto_field);
        # bulk_create() lists it for every row (Django 3.2 leaves out only
        # AutoField itself), so an unset key asks for the DEFAULT there
        value = super().pre_save(model_instance, add)
        return ColumnDefault() if add and value is None else value

    default_generator = None  # <type>_new() unless a subclass says otherwise

    def __init__(self, *args, generator=None, **kwargs):
        self.generator = generator
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        if self.generator is not None:
            kwargs["generator"] = self.generator
        return name, path, args, kwargs

    def db_type_suffix(self, connection):
        return "DEFAULT " + (self.generator or self.default_generator or self.flakeid_type + "_new()")


def _field(base, name, type_name, generator=None):
    attributes = {"flakeid_type": type_name, "__module__": __name__}
    if generator:
        attributes["default_generator"] = generator
    return type(name, (base,), attributes)


SnoField = _field(FlakeIdField, "SnoField", "sno")
FlaxField = _field(FlakeIdField, "FlaxField", "flax")
SiqField = _field(FlakeIdField, "SiqField", "siq")
KuidField = _field(FlakeIdField, "KuidField", "kuid")
Kuid96Field = _field(FlakeIdField, "Kuid96Field", "kuid96")
SnoAutoField = _field(FlakeIdAutoField, "SnoAutoField", "sno")
# siq_new() needs a kind: 'user' unless generator names another
SiqAutoField = _field(FlakeIdAutoField, "SiqAutoField", "siq", "siq_new('user')")
