# The documentation's SQL, run as a reader would run it: every ```sql block
# of README.md and of each docs/*.md file, in order, in one session of a
# fresh database per file, of a preloaded server of its own, with the
# extension created for docs/ files.  One check per block, and one per
# document for its relative links.
#
# Marks, in the documents:
#   * a statement expected to fail carries `-- ERROR <SQLSTATE>` on its
#     last line; it must fail with exactly that SQLSTATE;
#   * a statement whose comment on its last line shows its result
#     (`-- → <result>`, after any words) must print exactly that: its
#     columns joined by " | ", rows by " ; ";
#   * a query (SELECT, WITH, TABLE, VALUES) that returns no row fails, unless
#     its comment says "no rows": a reader who runs the text top to bottom
#     never gets an empty result the text does not announce;
#   * `<!-- doc-test: skip <reason> -->` on the line before a block skips it
#     (a restart, another server, Citus: their own suites run those), and
#     the skip is reported with its reason, never counted as a pass;
#   * `<!-- doc-test: needs pg_partman -->` runs the block where pg_partman
#     5.2 or later is installed (the test command installs it:
#     scripts/debian_extension), and skips it, saying why, where it is not.
# Any other error fails the block, with the statement and the message.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('readme', -extension => 0);
# psql, createdb and dropdb below talk to this server
@ENV{qw(PGHOST PGPORT PGUSER PGDATABASE)} = ($node->host, $node->port, scalar getpwuid($>), 'postgres');
chdir(tree_root()) or die "chdir: $!";
my $partman_missing = partman_unavailable($node);

# --- the blocks of one document ----------------------------------------------
sub blocks_of {
	my ($file) = @_;
	open(my $fh, '<', $file) or die "$file: $!";
	my @lines = <$fh>;
	close($fh);
	my (@blocks, $open, $indent, $last_text);
	for my $i (0 .. $#lines) {
		my $line = $lines[$i];
		if (!$open && $line =~ /^(\s*)```sql\s*$/) {
			$open = {line => $i + 1, text => '', skip => undef};
			$indent = length($1);
			$open->{skip} = $1 if defined $last_text && $last_text =~ /<!--\s*doc-test:\s*skip\s+(.*?)\s*-->/;
			$open->{skip} = $partman_missing if $partman_missing && defined $last_text && $last_text =~ /<!--\s*doc-test:\s*needs pg_partman\s*-->/;
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
	die "$file: a ```sql block opened at line $open->{line} never closes\n" if $open;
	return @blocks;
}

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

# --- one session per document ------------------------------------------------
# run_document FILE: its blocks' statements in one psql session of a fresh
# database; per statement its SQLSTATE, row count, output and error text
sub run_document {
	my ($file, @blocks) = @_;
	my $db = 'flakeid_doc_' . lc($file =~ s{^.*/}{}r =~ s/\W/_/gr);
	{ local $ENV{PGOPTIONS} = '-c client_min_messages=warning'; system('dropdb', '--if-exists', $db) == 0 or die "dropdb failed\n"; }
	system('createdb', $db) == 0 or die "createdb failed\n";
	my $script = "\\set ON_ERROR_STOP 0\n\\set SHOW_CONTEXT never\n\\set VERBOSITY default\n\\pset pager off\n"
	  . "\\pset format unaligned\n\\pset tuples_only on\n\\pset fieldsep ' | '\n";
	# the README starts from nothing; each file of docs/ says its examples
	# run where the extension exists
	$script .= "CREATE EXTENSION flakeid;\n" if $file ne 'README.md';
	my @expect;    # per statement: [block index, expected SQLSTATE, text]
	for my $b (0 .. $#blocks) {
		next if defined $blocks[$b]{skip};
		for my $stmt (statements($blocks[$b]{text})) {
			my $k = scalar @expect;
			my $want = $stmt =~ /--\s*ERROR\s+([0-9A-Z]{5})\b/ ? $1 : '00000';
			push @expect, [$b, $want, $stmt];
			$script .= "\\warn '\@\@ $k'\n\\echo '\@\@ begin' $k\n$stmt\n\\echo '\@\@' $k :SQLSTATE :ROW_COUNT\n";
		}
	}
	my $tmp = PostgreSQL::Test::Utils::tempdir() . "/doc";
	open(my $out, '>', "$tmp.sql") or die;
	print $out $script;
	close($out);
	system("psql -X -q -d $db -f $tmp.sql > $tmp.out 2> $tmp.err");
	my (%state, %rows, %output, %errors, $current);
	open(my $res, '<', "$tmp.out") or die;
	while (<$res>) {
		chomp;
		if (/^\@\@ begin (\d+)$/) { $current = $1; $output{$current} = []; next; }
		if (/^\@\@ (\d+) ([0-9A-Z]{5}) (\d*)$/) { ($state{$1}, $rows{$1}) = ($2, $3); undef $current; next; }
		push @{$output{$current}}, $_ if defined $current;
	}
	close($res);
	undef $current;
	open(my $err, '<', "$tmp.err") or die;
	while (<$err>) {
		if (/^\@\@ (\d+)$/) { $current = $1; next; }
		$errors{$current} .= $_ if defined $current;
	}
	close($err);
	unlink("$tmp.sql", "$tmp.out", "$tmp.err");
	system('dropdb', $db);
	return (\@expect, \%state, \%rows, \%output, \%errors);
}

# problems STATEMENT-RESULTS: what is wrong with one statement's result
sub problems {
	my ($want, $stmt, $got, $rows, $output, $error) = @_;
	$got //= 'none (psql stopped before it)';
	my @p;
	my $shown = "statement: " . ($stmt =~ s/\n/\n#   /gr);
	if ($got ne $want) {
		return ($shown, "expected SQLSTATE $want, got $got" . ($error ? ": " . ($error =~ s/\n+$//r =~ s/\n/\n#   /gr) : ''));
	}
	return () if $want ne '00000';
	my $code = $stmt =~ s/--[^\n]*//gr;
	if ($code =~ /^\s*(SELECT|WITH|TABLE|VALUES)\b/i && $code !~ /\\gset/ && ($rows // '') eq '0' && $stmt !~ /no rows/i) {
		push @p, $shown, "returned no rows, and its comment does not say \"no rows\"";
	}
	my ($last_line) = (split /\n/, $stmt)[-1];
	if ($last_line =~ /--[^\n]*?→\s*(.*?)\s*$/) {
		my $result = $1;
		my $printed = join(' ; ', @{$output // []});
		push @p, $shown, "printed \"$printed\", its comment says \"$result\"" if $printed ne $result;
	}
	return @p;
}

# --- a check per block -------------------------------------------------------
my @documents = ('README.md', sort glob('docs/*.md'));
for my $file (@documents) {
	my @blocks = blocks_of($file);
	next unless @blocks;
	my ($expect, $state, $rows, $output, $errors) = run_document($file, @blocks);
	for my $b (0 .. $#blocks) {
		my $block = $blocks[$b];
		my ($first) = split /\n/, $block->{text};
		$first =~ s/#//g;
		if (defined $block->{skip}) {
		  SKIP: { skip("$file line $block->{line}: $first ($block->{skip})", 1); }
			next;
		}
		my @problems;
		for my $k (grep { $expect->[$_][0] == $b } 0 .. $#$expect) {
			my ($want, $stmt) = @{$expect->[$k]}[1, 2];
			push @problems, problems($want, $stmt, $state->{$k}, $rows->{$k}, $output->{$k}, $errors->{$k});
		}
		ok(!@problems, "$file line $block->{line}: $first") or diag(join("\n", @problems));
	}
}
# --- links ---------------------------------------------------------------------
# every relative link of the documents reaches a file, and a #fragment a
# heading of it (GitHub's anchors: lower case, punctuation dropped, spaces
# to hyphens, -1, -2 ... for repeats)
sub anchors_of {
	my ($path) = @_;
	my (%anchors, %seen, $code);
	open(my $fh, '<', $path) or return {};
	while (my $line = <$fh>) {
		$code = !$code if $line =~ /^```/;
		next if $code || $line !~ /^#{1,6}\s+(.*?)\s*$/;
		my $a = lc($1) =~ s/[^\w\- ]//gr =~ s/ /-/gr;
		my $k = $seen{$a}++;
		$anchors{$k ? "$a-$k" : $a} = 1;
	}
	return \%anchors;
}
for my $file (@documents, 'CONTRIBUTING.md', 'examples/README.md') {
	open(my $fh, '<', $file) or die "$file: $!";
	my $text = do { local $/; <$fh> };
	close($fh);
	$text =~ s/```.*?```//gs;
	my $dir = $file =~ m{^(.*)/} ? "$1/" : '';
	my @broken;
	while ($text =~ /\]\(([^)\s]+)\)/g) {
		my $link = $1;
		next if $link =~ /^(https?|mailto):/;
		my ($path, $fragment) = split /#/, $link, 2;
		my $target = $path eq '' ? $file : $dir . $path;
		1 while $target =~ s{[^/]+/\.\./}{};
		if (!-e $target) { push @broken, "$link: no file $target"; next; }
		push @broken, "$link: no heading #$fragment in $target"
		  if defined $fragment && $target =~ /\.md$/ && !anchors_of($target)->{$fragment};
	}
	ok(!@broken, "$file: every relative link resolves") or diag(join("\n", @broken));
}
stop_checked($node);
done_testing();
