#!/bin/sh
# Installs the GEGL operation cuda:gaussian-blur (the module and its
# translations) where GEGL looks for a user's operations: the native
# ${XDG_DATA_HOME:-~/.local/share}/gegl-0.4/plug-ins, and the Flatpak GIMP's
# ~/.var/app/org.gimp.GIMP/data/gegl-0.4/plug-ins when a Flatpak GIMP exists.
# Prints each folder it wrote.  GEGL_MODULE_FOLDER names one folder, and then
# only that one is written (the release's install.sh --system: GEGL's own).
# BUILD-INFO (a release's) is kept beside the module as
# cuda-gaussian-blur.BUILD-INFO, which says whose build it is; a build
# installed without one leaves none.  `folders` prints where it would write.
#   operation/install-gegl-user.sh install|uninstall MODULE LOCALEDIR [BUILD-INFO]
#   operation/install-gegl-user.sh folders
set -eu
action=${1:?usage: install-gegl-user.sh install|uninstall MODULE LOCALEDIR [BUILD-INFO] | folders}
module=${2:-} localedir=${3:-} info=${4:-}
home=${HOME:?HOME is not set}
name=cuda-gaussian-blur

folders=${XDG_DATA_HOME:-$home/.local/share}/gegl-0.4/plug-ins
flatpak=$home/.var/app/org.gimp.GIMP
[ -d "$flatpak" ] && folders="$folders
$flatpak/data/gegl-0.4/plug-ins"
folders=${GEGL_MODULE_FOLDER:-$folders}
[ "$action" = folders ] && { echo "$folders"; exit 0; }

echo "$folders" | while IFS= read -r folder; do
  case $action in
    install)
      mkdir -p "$folder/locale"
      cp "$module" "$folder/$name.so"
      if [ -n "$info" ]; then cp "$info" "$folder/$name.BUILD-INFO"; else rm -f "$folder/$name.BUILD-INFO"; fi
      for lang in "$localedir"/*; do
        [ -d "$lang" ] || continue
        mkdir -p "$folder/locale/${lang##*/}/LC_MESSAGES"
        cp "$lang/LC_MESSAGES/$name.mo" "$folder/locale/${lang##*/}/LC_MESSAGES/"
      done
      echo "Installed in $folder" ;;
    uninstall)
      [ -f "$folder/$name.so" ] || continue
      rm -f "$folder/$name.so" "$folder/$name.BUILD-INFO" "$folder"/locale/*/LC_MESSAGES/$name.mo
      # The locale folders it made, where no other module's catalogue is left.
      rmdir "$folder"/locale/*/LC_MESSAGES "$folder"/locale/* "$folder/locale" 2>/dev/null || true
      echo "Removed $folder/$name.so" ;;
    *) echo "install-gegl-user: install, uninstall or folders, not '$action'" >&2; exit 2 ;;
  esac
done
[ "$action" = install ] && echo "Restart GIMP 3: Filters > Blur > Gaussian Blur (CUDA)…"
exit 0
