# sh gen-version.sh version.txt version.h
printf '#define DEMO_VERSION "%s"\n' "$(cat "$1")" > "$2"
