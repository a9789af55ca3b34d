-- flakeid 1.2 -> 1.3.  `make sql` generates flakeid--1.2--1.3.sql from this
-- file: write here by hand only what an upgrade alone does (DROP, ALTER),
-- and take in each new or replaced object from the one sql/source/ file
-- that defines it with a line "--@include FILE" (a template FILE.sql.in is
-- taken once per fixed-width type).  test/t/*_upgrade.pl proves that 1.2
-- updated equals a fresh 1.3, privileges included.

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.3'" to load this file. \quit
