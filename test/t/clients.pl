# Real client drivers against a server with flakeid preloaded: psycopg 3
# (Python) and node-postgres (test/clients, installed there by `npm ci`).
# A driver that is not installed is a skip that says so, never a pass.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

# Debian's python3, where a python3 of its own (pyenv) comes first on PATH
my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
my $node = flakeid_node('clients');

SKIP:
{
	skip 'psycopg 3 is not installed for python3', 1
	  unless system("$python -c 'import psycopg' 2>/dev/null") == 0;
	run_tap_script($node, 'psycopg', $python, 'test/clients/psycopg_test.py');
}
SKIP:
{
	skip 'node-postgres is not installed (node, and npm ci in test/clients)', 1
	  unless system('command -v node >/dev/null') == 0 && -d 'test/clients/node_modules/pg';
	run_tap_script($node, 'node-postgres', 'node', 'test/clients/pg_test.js');
}
$node->stop;
done_testing();
