-- every operator class of the extension passes amvalidate(), as contrib/isn checks
SELECT opc.opcname, am.amname, opc.opcdefault, amvalidate(opc.oid)
FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
JOIN pg_depend d ON d.objid = opc.oid AND d.classid = 'pg_opclass'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
ORDER BY 1, 2;

-- operators carry commutators, negators, estimators, HASHES and MERGES
SELECT o.oprname, o.oprleft::regtype, o.oprcom::regoperator AS commutator,
       o.oprnegate::regoperator AS negator, o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge,
       p.proleakproof
FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
JOIN pg_depend d ON d.objid = o.oid AND d.classid = 'pg_operator'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
ORDER BY o.oprleft::regtype::text, o.oprname, o.oprright::regtype::text;

-- the type itself: fixed width, by reference, char alignment, plain storage
SELECT typname, typlen, typbyval, typalign, typstorage
FROM pg_type t JOIN pg_depend d ON d.objid = t.oid AND d.classid = 'pg_type'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
WHERE t.typtype = 'b' AND t.typcategory <> 'A'   -- from 17 on, array and view row types are members too
ORDER BY 1;

-- every cast is explicit (bytea, and kuid <-> kuid96)
SELECT castsource::regtype, casttarget::regtype, castcontext
FROM pg_cast c JOIN pg_depend d ON d.objid = c.oid AND d.classid = 'pg_cast'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
ORDER BY castsource::regtype::text, casttarget::regtype::text;
