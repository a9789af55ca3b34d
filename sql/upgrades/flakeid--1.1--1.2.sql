-- flakeid 1.1 -> 1.2 (written by hand: every SQL change of 1.2, in the
-- order a reviewer reads it; test/in_cluster/upgrade.t proves that 1.1
-- updated equals a fresh 1.2, privileges included)

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.2'" to load this file. \quit
