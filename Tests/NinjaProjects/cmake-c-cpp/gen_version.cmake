# cmake -DIN=version.txt -DOUT=version.h -P gen_version.cmake
file(READ "${IN}" version)
string(STRIP "${version}" version)
file(WRITE "${OUT}" "#define DEMO_VERSION \"${version}\"\n")
