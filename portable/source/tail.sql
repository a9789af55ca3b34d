
-- The last step: every function this script made that sets its search_path
-- searches pg_catalog first, then this schema, then pg_temp (head.sql);
-- only this transaction's, so that nothing else is touched.
DO $tail$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
               AND p.xmin = pg_catalog.pg_current_xact_id()::xid
               AND EXISTS (SELECT FROM pg_catalog.unnest(p.proconfig) c WHERE c LIKE 'search_path=%') LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                                  f, pg_catalog.current_schema());
    END LOOP;
END $tail$;
