#!/bin/sh
echo "cannot start: missing model file" >&2
exit 3
