#!/usr/bin/env bash
# Writes data/kjv.txt, the training text of the playground's character-level model: nine books of
# the King James Bible (public domain; see data/README.md) from Debian's bible-kjv-text package,
# read with its own `bible` program (bible-kjv), one verse a line without the verse reference,
# a blank line between chapters. Needs Debian's apt (apt-get download: no root, no install).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
apt-get download bible-kjv-text bible-kjv >/dev/null
for deb in *.deb; do dpkg-deb -x "$deb" x; done
out="$root/data/kjv.txt"
: >"$out"
for book in gen ex josh judg ruth 1sam ps prov matt; do
  x/usr/bin/bible -p "$tmp/x/usr/lib" -f "${book}1:1-${book}999:999" |
    awk '{ split($1, r, ":"); ch = r[1]; if (NR > 1 && ch != prev) print ""; prev = ch;
           sub(/^[^ ]+ /, ""); print }' >>"$out"
  echo >>"$out"
done
echo "data/kjv.txt: $(wc -c <"$out") bytes"
