# Converts the small Markdown subset of docs/file-format.md (headings,
# paragraphs, fenced blocks, pipe tables, `code`) into the man page
# osprof-file-format(5), so the page and the document are one source.
# Usage: awk -v version=V -f dist/md2man.awk docs/file-format.md
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	return s
}
function inline(s) {
	s = esc(s)
	# `code` -> bold
	while (match(s, /`[^`]*`/))
		s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" substr(s, RSTART + RLENGTH)
	gsub(/\*\*/, "", s)
	sub(/^ +/, "", s)
	sub(/ +$/, "", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}
BEGIN {
	print ".TH OSPROF-FILE-FORMAT 5 \"\" \"osprof " version "\" \"File Formats\""
	print ".SH NAME"
	print "osprof-file-format \\- the .osp profile set file format of osprof"
	fence = 0
}
/^```/ {
	if (!fence) { print ".PP"; print ".nf"; print ".ft CR"; fence = 1 }
	else { print ".ft R"; print ".fi"; fence = 0 }
	next
}
fence { line = esc($0); if (line ~ /^[.']/) line = "\\&" line; print line; next }
/^# / { sub(/^# /, ""); print ".SH DESCRIPTION"; print inline($0); print ".PP"; next }
/^## / { sub(/^## /, ""); print ".SH " toupper(inline($0)); next }
/^\| *-/ { next } # table rule
/^\|/ && !intable { intable = 1; next } # header row: the section says what it is
/^\|/ {
	n = split($0, cell, /\|/)
	print ".TP"
	print inline(cell[2])
	print inline(cell[3])
	next
}
/^$/ { intable = 0; print ".PP"; next }
{ print inline($0) }
END {
	print ".SH SEE ALSO"
	print ".BR osprof (1),"
	print ".BR osprof-report (1),"
	print ".BR osprof-merge (1)"
}
