# Sourced by the GPU machine's scripts that run a program in the GIMP 3
# bundle's GEGL: gimp3_bundle BUNDLE PROGRAM NAME unpacks the bundle at
# /opt/gimp3 (once), copies PROGRAM to /tmp/NAME patched to the bundle's C
# library, and sets what the bundle's libraries need.
gimp3_bundle () {
  [ -x /opt/gimp3/run-gimp.sh ] || tar -xJf "$1" -C /opt || return 1
  # The bundle's own copy of the operation would shadow the one under test.
  rm -f /opt/gimp3/lib/gegl-0.4/cuda-gaussian-blur.so
  cp "$2" "/tmp/$3" && /opt/gimp3/patch-plugin.sh "/tmp/$3" >/dev/null || return 1
  export BABL_PATH=/opt/gimp3/lib/babl-0.1 GCONV_PATH=/opt/gimp3/lib/gconv
}
