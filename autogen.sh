#!/bin/sh
# Generates ./configure from a clean checkout.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
