#!/usr/bin/python3
"""Photographs' stand-in for the folder benchmarks: N PNGs of W x H,
smooth gradients, blocks and a little noise, the same on every run.

    make-photos.py FOLDER N W H       (writes FOLDER/img000.png ...)"""
import sys

import cv2
import numpy as np


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out, n, w, h = sys.argv[1], *map(int, sys.argv[2:])
    rng = np.random.default_rng(49)
    yy, xx = np.mgrid[0:h, 0:w]
    for i in range(n):
        base = np.stack([(xx * (c + 1) + yy * (i + 1)) % 256 for c in range(3)], -1).astype(np.float64)
        img = base * 0.7 + 60 * (((xx // 97 + yy // 61 + i) % 2)[..., None]) + rng.normal(0, 6, (h, w, 3))
        cv2.imwrite(f"{out}/img{i:03d}.png", np.clip(img, 0, 255).astype(np.uint8))


if __name__ == '__main__':
    main()
