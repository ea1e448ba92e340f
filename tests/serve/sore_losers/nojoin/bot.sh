#!/bin/sh
echo "gone before joining" >&2
exit 5
