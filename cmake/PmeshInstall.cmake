# Installation: library, headers, tools, exported CMake package and pkg-config file.
