#!/bin/sh
# Generates ./configure from a clean checkout.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux
autoreconf --install --force
