#!/usr/bin/python3
"""Photographs' stand-in for the folder benchmarks: N PNGs of W x H,
smooth gradients, blocks and a little noise, the same on every run.

    make-photos.py FOLDER N W H       (writes FOLDER/img000.png ...)"""
import struct
import sys
import zlib

import numpy as np

try:
    import cv2
except ImportError:   # the GPU machine has numpy, not OpenCV
    cv2 = None


def write_png(path, rgb):
    """An 8-bit RGB PNG, unfiltered, with zlib alone."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    h, w = rgb.shape[:2]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), rgb.reshape(h, w * 3)], axis=1)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + chunk(b"IEND", b""))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out, n, w, h = sys.argv[1], *map(int, sys.argv[2:])
    rng = np.random.default_rng(49)
    yy, xx = np.mgrid[0:h, 0:w]
    for i in range(n):
        base = np.stack([(xx * (c + 1) + yy * (i + 1)) % 256 for c in range(3)], -1).astype(np.float64)
        img = base * 0.7 + 60 * (((xx // 97 + yy // 61 + i) % 2)[..., None]) + rng.normal(0, 6, (h, w, 3))
        img = np.clip(img, 0, 255).astype(np.uint8)
        if cv2 is not None:
            cv2.imwrite(f"{out}/img{i:03d}.png", img)
        else:
            write_png(f"{out}/img{i:03d}.png", img[..., ::-1])   # OpenCV's order is BGR


if __name__ == '__main__':
    main()
