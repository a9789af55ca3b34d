#!/usr/bin/perl
# The README's SQL, run as a reader would run it: every ```sql block, in
# order, in one session of a fresh database of the preloaded cluster
# (the PG* environment test/t/in_cluster.pl gives).  One TAP line per block.
#
# Marks, in README.md:
#   * a statement expected to fail carries `-- ERROR <SQLSTATE>` on its
#     last line; it must fail with exactly that SQLSTATE;
#   * `<!-- doc-test: skip <reason> -->` on the line before a block skips it
#     (a restart, another server, Citus: their own suites run those), and
#     the skip is reported with its reason, never counted as a pass.
# Any other error fails the block, with the statement and the message.
use strict;
use warnings;

chdir((__FILE__ =~ s{/[^/]*$}{}r) . '/../..') or die "chdir: $!";
my $db = 'flakeid_readme';

# --- the blocks -------------------------------------------------------------
open(my $fh, '<', 'README.md') or die "README.md: $!";
my @lines = <$fh>;
close($fh);
my (@blocks, $open, $indent, $mark, $last_text);
for my $i (0 .. $#lines) {
	my $line = $lines[$i];
	if (!$open && $line =~ /^(\s*)```sql\s*$/) {
		$open = {line => $i + 1, text => '', skip => undef};
		$indent = length($1);
		$open->{skip} = $1 if defined $last_text && $last_text =~ /<!--\s*doc-test:\s*skip\s+(.*?)\s*-->/;
		next;
	}
	if ($open && $line =~ /^\s*```\s*$/) {
		push @blocks, $open;
		undef $open;
		next;
	}
	if ($open) {
		my $body = $line;
		$body =~ s/^ {0,$indent}//;
		$open->{text} .= $body;
		next;
	}
	$last_text = $line if $line =~ /\S/;
}
die "README.md: a ```sql block opened at line $open->{line} never closes\n" if $open;

# Statements of a block: split at `;` outside quotes, dollar quotes and
# comments; a comment after the `;` on the same line stays with the statement.
sub statements {
	my ($text) = @_;
	my @out;
	my $cur = '';
	my $dollar;
	my $i = 0;
	my $n = length($text);
	while ($i < $n) {
		my $rest = substr($text, $i);
		if (defined $dollar) {
			if ($rest =~ /^\Q$dollar\E/) { $cur .= $dollar; $i += length($dollar); undef $dollar; next; }
			$cur .= substr($text, $i, 1); $i++; next;
		}
		if ($rest =~ /^(\$[A-Za-z_]*\$)/) { $dollar = $1; $cur .= $1; $i += length($1); next; }
		if ($rest =~ /^('(?:[^']|'')*')/) { $cur .= $1; $i += length($1); next; }
		if ($rest =~ /^(--[^\n]*)/) { $cur .= $1; $i += length($1); next; }
		if ($rest =~ /^;([ \t]*(?:--[^\n]*)?)/) {
			$cur .= ';' . $1;
			$i += 1 + length($1);
			push @out, $cur;
			$cur = '';
			next;
		}
		$cur .= substr($text, $i, 1);
		$i++;
	}
	push @out, $cur if $cur =~ /\S/ && $cur !~ /^(\s|--[^\n]*)*$/;
	return map { s/^\s+//r } @out;
}

# --- one session for all of them ---------------------------------------------
# (quietly: a missing database is the usual case, not news)
{ local $ENV{PGOPTIONS} = '-c client_min_messages=warning'; system('dropdb', '--if-exists', $db) == 0 or die "dropdb failed\n"; }
system('createdb', $db) == 0 or die "createdb failed\n";
my $script = "\\set ON_ERROR_STOP 0\n\\set SHOW_CONTEXT never\n\\set VERBOSITY default\n\\pset pager off\n";
my @expect;    # per statement: [block index, expected SQLSTATE, text]
for my $b (0 .. $#blocks) {
	next if defined $blocks[$b]{skip};
	for my $stmt (statements($blocks[$b]{text})) {
		my $k = scalar @expect;
		my $want = $stmt =~ /--\s*ERROR\s+([0-9A-Z]{5})\b/ ? $1 : '00000';
		push @expect, [$b, $want, $stmt];
		$script .= "\\warn '\@\@ $k'\n$stmt\n\\echo '\@\@' $k :SQLSTATE\n";
	}
}
my $tmp = "/tmp/flakeid_readme_$$";
open(my $out, '>', "$tmp.sql") or die;
print $out $script;
close($out);
system("psql -X -q -d $db -f $tmp.sql > $tmp.out 2> $tmp.err");
my (%got, %errors);
open(my $res, '<', "$tmp.out") or die;
while (<$res>) { $got{$1} = $2 if /^\@\@ (\d+) ([0-9A-Z]{5})$/; }
close($res);
open(my $err, '<', "$tmp.err") or die;
my $current;
while (<$err>) {
	if (/^\@\@ (\d+)$/) { $current = $1; next; }
	$errors{$current} .= $_ if defined $current;
}
close($err);
unlink("$tmp.sql", "$tmp.out", "$tmp.err");

# --- a TAP line per block ----------------------------------------------------
my ($n, $failed, $skipped) = (0, 0, 0);
for my $b (0 .. $#blocks) {
	my $block = $blocks[$b];
	my ($first) = split /\n/, $block->{text};
	$first =~ s/#//g;
	$n++;
	if (defined $block->{skip}) {
		$skipped++;
		print "ok $n - README.md line $block->{line}: $first # skip $block->{skip}\n";
		next;
	}
	my @problems;
	for my $k (grep { $expect[$_][0] == $b } 0 .. $#expect) {
		my ($want, $stmt) = @{$expect[$k]}[1, 2];
		my $got = $got{$k} // 'none (psql stopped before it)';
		next if $got eq $want;
		push @problems, "statement: " . ($stmt =~ s/\n/\n#   /gr),
			"expected SQLSTATE $want, got $got" . ($errors{$k} ? ": " . ($errors{$k} =~ s/\n+$//r =~ s/\n/\n#   /gr) : '');
	}
	if (@problems) {
		$failed++;
		print "not ok $n - README.md line $block->{line}: $first\n";
		print "#   $_\n" for @problems;
	} else {
		print "ok $n - README.md line $block->{line}: $first\n";
	}
}
print "1..$n\n";
system('dropdb', $db);
exit($failed ? 1 : 0);
