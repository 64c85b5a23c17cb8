#!/bin/sh
# Prints {"lines": N, "words": N, "bytes": N} for one file: a manifest tool with JSON output.
# The file is read through a redirection, so a name starting with a dash is never an option.
set -eu
set -- $(wc -l -w -c < "$1")
printf '{"lines": %s, "words": %s, "bytes": %s}\n' "$1" "$2" "$3"
