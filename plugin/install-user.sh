#!/bin/sh
# Installs the plug-in (and its translations) into the user's GIMP profiles:
# the profile of the GIMP it was built for and, when a Flatpak GIMP exists,
# the profiles that GIMP reads.  Prints each folder it wrote.
#   plugin/install-user.sh install|uninstall PROGRAM LOCALEDIR GIMP_VERSION
# GIMP_VERSION is the one built for: 2.10, 3.0 or 3.2.  XDG_CONFIG_HOME moves
# the profile as it does for GIMP; GIMP2_DIRECTORY / GIMP3_DIRECTORY name one
# profile, and then only that one is written (quickstart.sh's throwaway
# profile).
# The Flatpak GIMP bind-mounts the host's config folder (its permission
# xdg-config/GIMP) over its own, so it reads the host's GIMP/3.0 or GIMP/3.2,
# never ~/.var/app/org.gimp.GIMP/config/GIMP: copies there are hidden, and
# are removed.  A GIMP 3 plug-in serves every GIMP 3.x (one libgimp API).
set -eu
action=${1:?usage: install-user.sh install|uninstall PROGRAM LOCALEDIR GIMP_VERSION}
program=$2 localedir=$3 gimp=$4
name=cuda-gaussian-blur
home=${HOME:?HOME is not set}
config=${XDG_CONFIG_HOME:-$home/.config}
flatpak=$home/.var/app/org.gimp.GIMP

case $gimp in
  2.*) chosen=${GIMP2_DIRECTORY:-}; flatpak_versions="" ;;
  3.*) chosen=${GIMP3_DIRECTORY:-}; flatpak_versions="3.0 3.2" ;;
  *) echo "install-user: unknown GIMP version '$gimp'" >&2; exit 2 ;;
esac
case $action in install|uninstall) ;; *)
  echo "install-user: install or uninstall, not '$action'" >&2; exit 2 ;;
esac

profiles=${chosen:-$config/GIMP/$gimp}
if [ -z "$chosen" ] && [ -d "$flatpak" ]; then
  for v in $flatpak_versions; do
    [ "$config/GIMP/$v" = "$profiles" ] || profiles="$profiles
$config/GIMP/$v"
  done
fi

echo "$profiles" | while IFS= read -r profile; do
  folder=$profile/plug-ins/$name
  if [ "$action" = install ]; then
    mkdir -p "$folder"
    cp "$program" "$folder/$name"
    chmod 755 "$folder/$name"
    rm -rf "$folder/locale" && cp -r "$localedir" "$folder/locale"
    echo "Installed in $folder"
  elif [ -d "$folder" ]; then
    rm -rf "$folder"
    echo "Removed $folder"
  fi
done

# Copies that earlier versions of this script put where the Flatpak GIMP never looks.
[ -z "$chosen" ] && for folder in "$flatpak"/config/GIMP/*/plug-ins/$name; do
  [ -d "$folder" ] || continue
  rm -rf "$folder"
  echo "Removed $folder (hidden from the Flatpak GIMP by its xdg-config/GIMP permission)"
done
[ "$action" = install ] && echo "Restart GIMP: Filters > Blur > CUDA Gaussian Blur…"
exit 0
