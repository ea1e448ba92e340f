#!/bin/sh
echo "thinking forever"
exec sleep 600
