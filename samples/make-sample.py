#!/usr/bin/python3
"""Generates samples/sample.png, the project's own test picture (no third-party
rights): a sunset landscape with hard edges, smooth gradients, fine texture
and text-like detail, so a blur's effect is easy to see.
    /usr/bin/python3 samples/make-sample.py [OUT.png]"""
import sys

import cv2
import numpy as np

W, H = 1200, 800
rng = np.random.default_rng(7)
y, x = np.mgrid[0:H, 0:W].astype(np.float64)

# Sky: a warm gradient with a sun.
t = y / H
img = np.stack([0.15 + 0.85 * t, 0.25 + 0.45 * t, 0.55 - 0.25 * t], axis=-1)   # RGB
sun = np.exp(-(((x - 820) ** 2 + (y - 300) ** 2) / (2 * 60.0 ** 2)))
img += sun[..., None] * np.array([1.0, 0.8, 0.4]) * 0.9
disc = ((x - 820) ** 2 + (y - 300) ** 2) < 45 ** 2
img[disc] = [1.0, 0.95, 0.75]

# Two mountain ridges with hard silhouettes.
for base, amp, freq, colour in ((470, 120, 0.004, (0.25, 0.2, 0.35)), (560, 80, 0.009, (0.12, 0.15, 0.18))):
    ridge = base - amp * (0.6 * np.sin(x[0] * freq + base) + 0.4 * np.sin(x[0] * freq * 3.1 + 1.0))
    ridge += rng.normal(0, 3, W).cumsum() * 0.05
    mask = y > ridge[None, :]
    img[mask] = np.array(colour) * (0.8 + 0.4 * rng.random((mask.sum(), 1)))

# A meadow with fine grass texture.
meadow = y > 640
grass = rng.random((H, W)) * 0.35
img[meadow] = np.stack([0.15 + grass, 0.35 + grass, 0.1 + 0.5 * grass], axis=-1)[meadow]

# A fence: thin vertical posts and two rails (one-pixel detail).
posts = (x % 60 < 4) & (y > 600) & (y < 720)
rails = ((np.abs(y - 630) < 2) | (np.abs(y - 680) < 2)) & (y > 600)
img[posts | rails] = [0.95, 0.92, 0.85]

img = np.clip(img, 0, 1)
out = sys.argv[1] if len(sys.argv) > 1 else "samples/sample.png"
cv2.imwrite(out, np.round(img[..., ::-1] * 255).astype(np.uint8))
