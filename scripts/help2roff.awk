# Turns what mmprof prints (--help, a subcommand's --help, --list-keys,
# --list-probes, --list-events) into man(7) text for scripts/make-man.sh.
# Plain POSIX awk (Debian's mawk).  mode:
#   synopsis  usage lines            -> one line per command form
#   prose     text lines             -> one filled paragraph
#   items     "  TAG  text" lines    -> .TP items (options, probes, controls)
#   keys      --list-keys            -> .SS per group, .TP per key
#   exit      "exit status: 0 a, 1 b" -> .TP per status
#   help      a subcommand's --help after its usage line: paragraphs, item
#             lists, "exit status:" and "\"-continued examples
# Every input character reaches the page escaped: "\" as \e, "-" as \-
# (so options and commands copy as typed), "." or "'" at a line's start
# behind \&.

function esc(s) {
	gsub(/\\/, "\\\\e", s)
	gsub(/-/, "\\\\-", s)
	return s
}

# Escaped text with `code` in italics, safe to start a line.
function text(s,    out, a, b) {
	out = ""
	while ((a = index(s, "`")) > 0 && (b = index(substr(s, a + 1), "`")) > 0) {
		out = out esc(substr(s, 1, a - 1)) "\\fI" esc(substr(s, a + 1, b - 1)) "\\fR"
		s = substr(s, a + b + 1)
	}
	out = out esc(s)
	if (out ~ /^[.']/)
		out = "\\&" out
	return out
}

function trim(s) {
	sub(/^ +/, "", s)
	sub(/ +$/, "", s)
	return s
}

# An option's tag: options bold, their value's name italic.
function optag(s,    n, w, i, out, pre, post, cmd) {
	n = split(s, w, " ")
	out = ""
	cmd = 1 # still in the command's name: "mmprof compare"
	for (i = 1; i <= n; i++) {
		pre = ""; post = ""
		if (w[i] ~ /^\[/) { pre = "["; w[i] = substr(w[i], 2) }
		if (w[i] ~ /\]$/ && w[i] !~ /\[/) { post = "]"; w[i] = substr(w[i], 1, length(w[i]) - 1) }
		if (w[i] ~ /,$/) { post = "," post; w[i] = substr(w[i], 1, length(w[i]) - 1) }
		if (w[i] == "--" || w[i] == "...")
			w[i] = esc(w[i])
		else if (w[i] ~ /^-/ && match(w[i], /\[=[a-z]+\]$/))
			w[i] = "\\fB" esc(substr(w[i], 1, RSTART - 1)) "\\fR[=\\fI" \
				substr(w[i], RSTART + 2, RLENGTH - 3) "\\fR]"
		else if (w[i] ~ /^-/)
			w[i] = "\\fB" esc(w[i]) "\\fR"
		else if (w[i] ~ /^[a-z]+$/ && cmd && pre == "")
			w[i] = "\\fB" esc(w[i]) "\\fR"
		else
			w[i] = "\\fI" esc(w[i]) "\\fR"
		if (w[i] !~ /^\\fB[a-z]+\\fR$/)
			cmd = 0
		out = out (i > 1 ? " " : "") pre w[i] post
	}
	return out
}

# Split an item line into its tag (global tag) and text (global body):
# an option's tag by its shape, any other's is its first word (a key, a
# probe, a column: the columns are padded, and a long name is followed by
# a single space).  0 when the line is no item.
function item(line,    rest, p) {
	rest = line
	sub(/^ +/, "", rest)
	if (match(rest, /^(-[A-Za-z0-9], )?--[a-z0-9][a-z0-9-]*(\[=[a-z]+\])?( [A-Z][A-Z0-9_.]*)? /)) {
		body = trim(substr(rest, RLENGTH + 1))
		tag = optag(trim(substr(rest, 1, RLENGTH)))
		return 1
	}
	p = index(rest, " ")
	if (p == 0)
		return 0
	tag = "\\fB" esc(substr(rest, 1, p - 1)) "\\fR"
	body = trim(substr(rest, p))
	return 1
}

function indent(line) {
	match(line, /^ */)
	return RLENGTH
}

function exit_list(s,    n) {
	sub(/^exit status: */, "", s)
	sub(/\.$/, "", s)
	while (s != "") {
		if (match(s, /, [0-9]+ /)) {
			n = substr(s, 1, RSTART - 1)
			s = substr(s, RSTART + 2)
		} else {
			n = s
			s = ""
		}
		print ".TP"
		match(n, /^[0-9]+/)
		print "\\fB" substr(n, 1, RLENGTH) "\\fR"
		print text(trim(substr(n, RLENGTH + 1)))
	}
}

{ line[++nl] = $0 }

END {
	if (mode == "synopsis") {
		for (i = 1; i <= nl; i++) {
			s = line[i]
			sub(/^usage:/, "", s)
			s = trim(s)
			sub(/  +\(.*\)$/, "", s)
			if (s == "")
				continue
			if (i > 1)
				print ".br"
			print optag(s)
		}
	} else if (mode == "prose") {
		for (i = 1; i <= nl; i++)
			if (trim(line[i]) != "")
				print text(trim(line[i]))
	} else if (mode == "items") {
		for (i = 1; i <= nl; i++) {
			if (trim(line[i]) == "")
				continue
			if (!item(line[i])) {
				print text(trim(line[i]))
				continue
			}
			print ".TP"
			print tag
			print text(body)
		}
	} else if (mode == "keys") {
		for (i = 1; i <= nl; i++) {
			if (line[i] ~ /^  [a-z][a-z ]*:$/) {
				g = trim(line[i])
				sub(/:$/, "", g)
				print ".SS \"" g "\""
			} else if (indent(line[i]) == 4 && item(line[i])) {
				print ".TP"
				print tag
				print text(body)
			} else if (indent(line[i]) > 4) {
				print ".br"
				print text(trim(line[i]))
			}
		}
	} else if (mode == "exit") {
		s = ""
		for (i = 1; i <= nl; i++)
			s = s (s == "" ? "" : " ") trim(line[i])
		exit_list(s)
	} else if (mode == "help") {
		para = 0 # 1: in a paragraph's text, 2: in a list, 3: in an example
		for (i = 1; i <= nl; i++) {
			l = line[i]
			if (trim(l) == "") {
				if (para == 3)
					print ".fi"
				para = 0
				continue
			}
			if (para == 3 || l ~ / \\$/) {
				if (para != 3) {
					print ".PP"
					print ".nf"
				}
				print text(l)
				para = 3
				if (l !~ / \\$/) {
					print ".fi"
					para = 0
				}
				continue
			}
			if (l ~ /^exit status:/) {
				s = l
				while (i < nl && trim(line[i + 1]) != "")
					s = s " " trim(line[++i])
				print ".PP"
				print "Exit status:"
				print ".RS"
				exit_list(s)
				print ".RE"
				para = 0
				continue
			}
			# Deeper than its item: the item's text goes on.
			if (para == 2 && indent(l) > at + 2) {
				print ".br"
				print text(trim(l))
				continue
			}
			if (indent(l) >= 2 && item(l)) {
				print ".TP"
				print tag
				print text(body)
				para = 2
				at = indent(l)
				continue
			}
			if (para == 0) {
				print ".PP"
				# A heading: alone on its line, a list under it.
				if (l ~ /:$/ && i < nl && indent(line[i + 1]) >= 2) {
					print "\\fB" text(l) "\\fR"
					para = 2
					continue
				}
			}
			if (para == 2)
				print ".PP"
			print text(trim(l))
			para = 1
		}
		if (para == 3)
			print ".fi"
	}
}
