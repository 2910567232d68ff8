#!/bin/sh
# Installs the plug-in (and its translations) into the user's GIMP profiles:
# the profile of the GIMP it was built for, and the Flatpak GIMP's profile of
# every matching version that exists.  Prints each folder it wrote.
#   plugin/install-user.sh install|uninstall PROGRAM LOCALEDIR GIMP_VERSION
# GIMP_VERSION is the one built for: 2.10, 3.0 or 3.2.  XDG_CONFIG_HOME moves
# the profile as it does for GIMP; GIMP2_DIRECTORY / GIMP3_DIRECTORY name one
# profile, and then only that one is written (quickstart.sh's throwaway
# profile).  A GIMP 3 plug-in serves every GIMP 3.x (one libgimp API), so it
# goes into each Flatpak 3.x profile; a GIMP 2.10 one only into 2.10's.
set -eu
action=${1:?usage: install-user.sh install|uninstall PROGRAM LOCALEDIR GIMP_VERSION}
program=$2 localedir=$3 gimp=$4
name=cuda-gaussian-blur
home=${HOME:?HOME is not set}

case $gimp in
  2.*) chosen=${GIMP2_DIRECTORY:-}; flatpak_versions="2.10" ;;
  3.*) chosen=${GIMP3_DIRECTORY:-}; flatpak_versions="3.*" ;;
  *) echo "install-user: unknown GIMP version '$gimp'" >&2; exit 2 ;;
esac
native=${chosen:-${XDG_CONFIG_HOME:-$home/.config}/GIMP/$gimp}
[ -n "$chosen" ] && flatpak_versions=""

profiles=$native
flatpak=$home/.var/app/org.gimp.GIMP/config/GIMP
for v in $flatpak_versions; do
  for dir in "$flatpak"/$v; do
    [ -d "$dir" ] && profiles="$profiles
$dir"
  done
done

echo "$profiles" | while IFS= read -r profile; do
  folder=$profile/plug-ins/$name
  case $action in
    install)
      mkdir -p "$folder"
      cp "$program" "$folder/$name"
      chmod 755 "$folder/$name"
      rm -rf "$folder/locale" && cp -r "$localedir" "$folder/locale"
      echo "Installed in $folder" ;;
    uninstall)
      [ -d "$folder" ] || continue
      rm -rf "$folder"
      echo "Removed $folder" ;;
    *) echo "install-user: install or uninstall, not '$action'" >&2; exit 2 ;;
  esac
done
[ "$action" = install ] && echo "Restart GIMP: Filters > Blur > CUDA Gaussian Blur…"
exit 0
