// coffer — the command-line client of coffer-daemon (see docs/cli.md).
#include "app/app.hpp"

#include <iostream>

int main(int argc, char** argv) { return coffer::cli::run(argc, argv, std::cout, std::cerr); }
